// Server over loopback: a real gRPC client stub against Server::start on port 0.
#include <crossgrad/server/server.hpp>

#include "crossgrad_remote.grpc.pb.h"

#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace crossgrad::server {
namespace {

namespace proto = ::crossgrad::remote;
constexpr char kToken[] = "loopback-token";

class Loopback : public ::testing::Test {
 protected:
  void start(ServerOptions o) {
    o.token = kToken;
    o.log = [](std::string_view) {};
    server = Server::start(o);
    stub = proto::Compute::NewStub(grpc::CreateChannel(server->endpoint(), grpc::InsecureChannelCredentials()));
  }
  void SetUp() override { start({}); }

  // A context with the token (or none) and a deadline far enough for a loaded 2-core machine.
  static std::unique_ptr<grpc::ClientContext> context(const char* token = kToken) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    if (token) ctx->AddMetadata("x-crossgrad-token", token);
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return ctx;
  }
  std::uint64_t open() {
    proto::OpenSessionReply reply;
    const grpc::Status s = stub->OpenSession(context().get(), {}, &reply);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(reply.backend(), "Flex");
    return reply.session();
  }
  std::uint64_t upload(std::uint64_t session, std::vector<float> values) {
    proto::FromDataRequest request;
    request.set_session(session);
    request.mutable_data()->add_shape(values.size());
    request.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::F32));
    request.mutable_data()->set_data(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    proto::TensorReply reply;
    const grpc::Status s = stub->FromData(context().get(), request, &reply);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return reply.handle();
  }
  // Waits (bounded) for the server to reach `want` sessions; liveness, not timing.
  bool wait_for_sessions(std::size_t want) {
    for (int i = 0; i < 500; ++i) {
      if (server->stats().sessions == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::unique_ptr<Server> server;
  std::unique_ptr<proto::Compute::Stub> stub;
};

TEST_F(Loopback, AnOpRoundTripsThroughARealChannel) {
  EXPECT_GT(server->port(), 0);
  EXPECT_EQ(server->endpoint(), "127.0.0.1:" + std::to_string(server->port()));
  const std::uint64_t session = open();
  const std::uint64_t a = upload(session, {1.0f, 2.0f, 3.0f});
  const std::uint64_t b = upload(session, {0.5f, 0.25f, -1.0f});
  proto::OpCall call;
  call.set_session(session);
  call.set_op(static_cast<std::uint32_t>(OpId::float_add));
  call.add_operands(a);
  call.add_operands(b);
  proto::TensorReply sum;
  ASSERT_TRUE(stub->Call(context().get(), call, &sum).ok());
  proto::HandleRequest get;
  get.set_session(session);
  get.set_handle(sum.handle());
  proto::TensorData data;
  ASSERT_TRUE(stub->IntoData(context().get(), get, &data).ok());
  std::vector<float> out(3);
  ASSERT_EQ(data.data().size(), sizeof(float) * 3);
  std::memcpy(out.data(), data.data().data(), data.data().size());
  EXPECT_EQ(out, (std::vector<float>{1.5f, 2.25f, 2.0f}));
  EXPECT_EQ(server->stats(), (Stats{1, 3, 36}));
}

TEST_F(Loopback, TheTokenTravelsAsMetadataAndPanicsAsTrailingMetadata) {
  proto::OpenSessionReply reply;
  EXPECT_EQ(stub->OpenSession(context(nullptr).get(), {}, &reply).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(stub->OpenSession(context("nope").get(), {}, &reply).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(server->stats().sessions, 0u);

  const std::uint64_t session = open();
  const std::uint64_t a = upload(session, {1.0f, 2.0f});
  const std::uint64_t b = upload(session, {1.0f, 2.0f, 3.0f});
  proto::OpCall call;
  call.set_session(session);
  call.set_op(static_cast<std::uint32_t>(OpId::float_add));
  call.add_operands(a);
  call.add_operands(b);
  auto ctx = context();
  proto::TensorReply out;
  const grpc::Status s = stub->Call(ctx.get(), call, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(s.error_message(), "float_add cannot broadcast shapes [2] and [3].");
  const auto& md = ctx->GetServerTrailingMetadata();
  auto it = md.find("x-crossgrad-panic-id");
  ASSERT_NE(it, md.end());
  EXPECT_EQ(std::string(it->second.data(), it->second.size()), "broadcast-mismatch");

  proto::SessionRef ref;
  ref.set_session(session + 1);
  auto lost_ctx = context();
  proto::Empty empty;
  EXPECT_EQ(stub->KeepAlive(lost_ctx.get(), ref, &empty).error_code(), grpc::StatusCode::NOT_FOUND);
  auto lost = lost_ctx->GetServerTrailingMetadata().find("x-crossgrad-lost");
  ASSERT_NE(lost, lost_ctx->GetServerTrailingMetadata().end());
  EXPECT_EQ(std::string(lost->second.data(), lost->second.size()), "session");
}

TEST_F(Loopback, ACancelledAttachFreesTheSession) {
  const std::uint64_t session = open();
  upload(session, {1.0f, 2.0f});
  proto::SessionRef ref;
  ref.set_session(session);
  auto ctx = context();
  std::unique_ptr<grpc::ClientReader<proto::Empty>> attach = stub->Attach(ctx.get(), ref);
  // The server holds the call open; the client going away (here: cancelling) ends the session.
  ASSERT_TRUE(wait_for_sessions(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(server->stats().sessions, 1u) << "Attach alone must not end the session";
  ctx->TryCancel();
  EXPECT_TRUE(wait_for_sessions(0));
  EXPECT_EQ(server->stats(), (Stats{0, 0, 0}));
  attach->Finish();
}

TEST_F(Loopback, AStalledServerLetsTheClientDeadlineFire) {
  server->shutdown();
  ServerOptions o;
  o.stall = std::chrono::milliseconds(2000);
  start(o);
  const std::uint64_t session = open();  // OpenSession is not stalled
  grpc::ClientContext ctx;
  ctx.AddMetadata("x-crossgrad-token", kToken);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  proto::SessionRef ref;
  ref.set_session(session);
  proto::Empty empty;
  EXPECT_EQ(stub->KeepAlive(&ctx, ref, &empty).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(Loopback, ShutdownEndsEverySession) {
  const std::uint64_t session = open();
  upload(session, {1.0f});
  server->shutdown();
  EXPECT_EQ(server->stats(), (Stats{0, 0, 0}));
  server->shutdown();  // idempotent
  proto::OpenSessionReply reply;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  EXPECT_FALSE(stub->OpenSession(&ctx, {}, &reply).ok());
}

TEST(ServerStart, RefusesWithoutATokenAndForAnUnknownBackend) {
  ServerOptions o;
  EXPECT_THROW(Server::start(o), std::invalid_argument);
  o.token = "t";
  o.backend = "Nope";
  EXPECT_THROW(Server::start(o), std::invalid_argument);
}

}  // namespace
}  // namespace crossgrad::server
