#pragma once
// Helpers of the Handler-level tests: a Handler with a known token and a captured log, and one-line
// wrappers over its rpcs that keep the trailing metadata.
#include <crossgrad/server/handler.hpp>

#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace crossgrad::server {
// gtest prints Stats in failure messages as {sessions, tensors, bytes}.
inline void PrintTo(const Stats& s, std::ostream* out) {
  *out << "{sessions " << s.sessions << ", tensors " << s.tensors << ", bytes " << s.bytes << "}";
}
}  // namespace crossgrad::server

namespace crossgrad::server::testing {

inline constexpr char kToken[] = "h1-test-token-0123456789";

inline void put(const TensorData& data, proto::TensorData* out) {
  for (std::size_t d : data.shape().dims()) out->add_shape(d);
  out->set_dtype(static_cast<std::uint32_t>(data.dtype()));
  out->set_data(reinterpret_cast<const char*>(data.bytes().data()), data.bytes().size());
}

inline std::optional<std::string> find(const Metadata& md, const std::string& key) {
  for (const auto& [k, v] : md) {
    if (k == key) return v;
  }
  return std::nullopt;
}

class HandlerTest : public ::testing::Test {
 protected:
  ServerOptions options() {
    ServerOptions o;
    o.token = kToken;
    o.log = [this](std::string_view line) {
      std::lock_guard lock(log_mutex);
      log.emplace_back(line);
    };
    return o;
  }
  void make(ServerOptions o) { handler = std::make_unique<Handler>(std::move(o)); }
  void SetUp() override { make(options()); }
  // The handler ends its sessions (and logs into `log`) when destroyed: before `log` goes.
  void TearDown() override { handler.reset(); }

  std::uint64_t open() {
    proto::OpenSessionReply reply;
    Metadata md;
    const grpc::Status s = handler->open_session(kToken, {}, &reply, &md);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return reply.session();
  }
  grpc::Status upload(std::uint64_t session, const TensorData& data, proto::TensorReply* reply,
                      std::string_view token = kToken) {
    proto::FromDataRequest request;
    request.set_session(session);
    put(data, request.mutable_data());
    trailing.clear();
    return handler->from_data(token, request, reply, &trailing);
  }
  std::uint64_t upload_ok(std::uint64_t session, const TensorData& data) {
    proto::TensorReply reply;
    const grpc::Status s = upload(session, data, &reply);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return reply.handle();
  }
  grpc::Status call(const proto::OpCall& request, proto::TensorReply* reply, std::string_view token = kToken) {
    trailing.clear();
    return handler->call(token, request, reply, &trailing);
  }
  grpc::Status download(std::uint64_t session, std::uint64_t handle, proto::TensorData* reply,
                        std::string_view token = kToken) {
    proto::HandleRequest request;
    request.set_session(session);
    request.set_handle(handle);
    trailing.clear();
    return handler->into_data(token, request, reply, &trailing);
  }
  TensorData download_ok(std::uint64_t session, std::uint64_t handle) {
    proto::TensorData reply;
    const grpc::Status s = download(session, handle, &reply);
    EXPECT_TRUE(s.ok()) << s.error_message();
    std::vector<std::size_t> dims(reply.shape().begin(), reply.shape().end());
    const std::string& bytes = reply.data();
    return TensorData::from_bytes(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
                                  Shape(dims), static_cast<DType>(reply.dtype()));
  }
  grpc::Status free(std::uint64_t session, std::vector<std::uint64_t> handles, std::string_view token = kToken) {
    proto::FreeRequest request;
    request.set_session(session);
    for (std::uint64_t h : handles) request.add_frees(h);
    proto::Empty reply;
    trailing.clear();
    return handler->free(token, request, &reply, &trailing);
  }
  grpc::Status close(std::uint64_t session, std::string_view token = kToken) {
    proto::SessionRef request;
    request.set_session(session);
    proto::Empty reply;
    trailing.clear();
    return handler->close_session(token, request, &reply, &trailing);
  }
  static proto::OpCall op(std::uint64_t session, std::uint32_t code, std::vector<std::uint64_t> operands) {
    proto::OpCall c;
    c.set_session(session);
    c.set_op(code);
    for (std::uint64_t h : operands) c.add_operands(h);
    return c;
  }
  static std::uint32_t code(OpId id) { return static_cast<std::uint32_t>(id); }
  Stats stats() const { return handler->stats(); }

  std::unique_ptr<Handler> handler;
  Metadata trailing;
  std::mutex log_mutex;
  std::vector<std::string> log;
};

}  // namespace crossgrad::server::testing
