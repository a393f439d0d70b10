// The server's bulk channel (Note [Remote bulk channel]) driven by hand: the framing codec, the
// Hello's key check, frames matched to FromData by transfer id, downloads after IntoData, and what
// a Handler without a bulk channel answers. A real gRPC stub opens the sessions; the bulk side is a
// raw socket, so every byte the server sees is written here.
#include <crossgrad/server/handler.hpp>
#include <crossgrad/server/server.hpp>
#include <crossgrad/remote_protocol/bulk_frame.hpp>

#include "crossgrad_remote.grpc.pb.h"

#include <crossgrad/core/tensor_data.hpp>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstring>

namespace crossgrad::server {
namespace {

namespace proto = ::crossgrad::remote;
namespace bulk = ::crossgrad::remote::bulk;
using namespace std::chrono_literals;
constexpr char kToken[] = "bulk-token";

std::span<const std::byte> as_bytes(const std::vector<float>& v) {
  return {reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(float)};
}

TEST(BulkFrame, HelloAndHeaderRoundTripLittleEndian) {
  bulk::Hello hello{0x0102030405060708ull, {}};
  for (std::size_t i = 0; i < hello.key.size(); ++i) hello.key[i] = static_cast<std::uint8_t>(0xa0 + i);
  const auto bytes = bulk::encode_hello(hello);
  EXPECT_EQ(std::memcmp(bytes.data(), "CGBULK01", 8), 0);
  EXPECT_EQ(std::to_integer<int>(bytes[8]), 0x08);   // least significant byte first
  EXPECT_EQ(std::to_integer<int>(bytes[15]), 0x01);
  EXPECT_EQ(std::to_integer<int>(bytes[16]), 0xa0);
  const auto back = bulk::decode_hello(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->session, hello.session);
  EXPECT_TRUE(bulk::keys_equal(back->key, hello.key));
  auto wrong = bytes;
  wrong[3] = std::byte{'X'};
  EXPECT_FALSE(bulk::decode_hello(wrong).has_value()) << "a Hello without the magic is not a crossgrad client";

  const auto header = bulk::encode_header({0x1122334455667788ull, 0x99ull});
  EXPECT_EQ(std::to_integer<int>(header[0]), 0x88);
  EXPECT_EQ(std::to_integer<int>(header[8]), 0x99);
  const bulk::FrameHeader h = bulk::decode_header(header);
  EXPECT_EQ(h.transfer, 0x1122334455667788ull);
  EXPECT_EQ(h.bytes, 0x99ull);
}

TEST(BulkFrame, KeysCompareEveryByteAndHostsComeOutOfAddresses) {
  bulk::Key a{};
  for (std::size_t i = 0; i < a.size(); ++i) {
    bulk::Key b = a;
    b[i] ^= 1;
    EXPECT_FALSE(bulk::keys_equal(a, b)) << "byte " << i;
  }
  EXPECT_TRUE(bulk::keys_equal(a, a));
  EXPECT_FALSE(bulk::key_from_string(std::string(15, 'k')).has_value());
  EXPECT_TRUE(bulk::key_from_string(std::string(16, 'k')).has_value());
  EXPECT_EQ(bulk::host_of("127.0.0.1:5000"), "127.0.0.1");
  EXPECT_EQ(bulk::host_of("localhost:1"), "localhost");
  EXPECT_EQ(bulk::host_of("[::1]:5000"), "::1");
  EXPECT_EQ(bulk::host_of("dns:///example.org:443"), "example.org");
  EXPECT_EQ(bulk::host_of("ipv4:10.0.0.2:7"), "10.0.0.2");
  EXPECT_EQ(bulk::host_of("unix:/tmp/socket"), "");
}

class BulkChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.token = kToken;
    o.max_session_bytes = std::size_t{1} << 20;
    o.bulk_wait = 2000ms;
    o.log = [](std::string_view) {};
    server = Server::start(o);
    stub = proto::Compute::NewStub(grpc::CreateChannel(server->endpoint(), grpc::InsecureChannelCredentials()));
  }

  static std::unique_ptr<grpc::ClientContext> context() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->AddMetadata("x-crossgrad-token", kToken);
    ctx->set_deadline(std::chrono::system_clock::now() + 30s);
    return ctx;
  }
  proto::OpenSessionReply open() {
    proto::OpenSessionReply reply;
    const grpc::Status s = stub->OpenSession(context().get(), {}, &reply);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return reply;
  }
  static bulk::Clock::time_point soon() { return bulk::Clock::now() + 10s; }

  // A connection that sent `hello`; true when the server answered "accepted".
  bool hello(bulk::Socket& socket, const proto::OpenSessionReply& session, const bulk::Hello& h) {
    socket = bulk::Socket::connect_to("127.0.0.1", static_cast<int>(session.bulk_port()), soon());
    socket.send_all(bulk::encode_hello(h), soon());
    std::array<std::byte, 1> answer{};
    try {
      socket.recv_all(answer, soon());
    } catch (const bulk::BulkError&) {
      return false;  // closed without an answer
    }
    return answer[0] == bulk::kAccepted;
  }
  bulk::Hello hello_of(const proto::OpenSessionReply& session) {
    return bulk::Hello{session.session(), *bulk::key_from_string(session.bulk_key())};
  }

  grpc::Status from_data(std::uint64_t session, std::uint64_t transfer, std::size_t n, proto::TensorReply* reply) {
    proto::FromDataRequest request;
    request.set_session(session);
    request.mutable_data()->add_shape(n);
    request.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::F32));
    request.mutable_data()->set_bulk_transfer(transfer);
    return stub->FromData(context().get(), request, reply);
  }

  std::unique_ptr<Server> server;
  std::unique_ptr<proto::Compute::Stub> stub;
};

TEST_F(BulkChannelTest, EverySessionLearnsThePortAndItsOwnKey) {
  const proto::OpenSessionReply a = open(), b = open();
  EXPECT_GT(a.bulk_port(), 0u);
  EXPECT_EQ(a.bulk_port(), b.bulk_port());
  EXPECT_NE(a.bulk_port(), static_cast<std::uint32_t>(server->port()));
  ASSERT_EQ(a.bulk_key().size(), bulk::kKeyBytes);
  EXPECT_NE(a.bulk_key(), b.bulk_key());
}

TEST_F(BulkChannelTest, AHelloWithAWrongKeyOrSessionIsClosedUnanswered) {
  const proto::OpenSessionReply a = open(), b = open();
  bulk::Socket socket;
  bulk::Hello wrong_key = hello_of(a);
  wrong_key.key[5] ^= 0x40;
  EXPECT_FALSE(hello(socket, a, wrong_key));
  bulk::Hello other_session = hello_of(b);
  other_session.session = a.session();  // b's key for a's session
  EXPECT_FALSE(hello(socket, a, other_session));
  bulk::Hello unknown = hello_of(a);
  unknown.session ^= 1;
  EXPECT_FALSE(hello(socket, a, unknown));
  EXPECT_TRUE(hello(socket, a, hello_of(a)));
}

TEST_F(BulkChannelTest, UploadsAreMatchedByTransferIdAndCheckedAgainstTheShape) {
  const proto::OpenSessionReply s = open();
  bulk::Socket socket;
  ASSERT_TRUE(hello(socket, s, hello_of(s)));
  const std::vector<float> one{1, 2, 3}, two{4, 5, 6, 7, 8};
  // Two frames, then their calls in the other order: each call gets its own frame.
  socket.send_all(bulk::encode_header({1, 12}), soon());
  socket.send_all(as_bytes(one), soon());
  socket.send_all(bulk::encode_header({2, 20}), soon());
  socket.send_all(as_bytes(two), soon());
  proto::TensorReply r2, r1;
  ASSERT_TRUE(from_data(s.session(), 2, 5, &r2).ok());
  EXPECT_EQ(r2.shape(0), 5u);
  // Transfer 1 is older than the one taken: it was dropped, and its call now fails.
  const grpc::Status late = from_data(s.session(), 1, 3, &r1);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::UNAVAILABLE) << late.error_message();

  // A frame whose length does not fit the shape is INVALID_ARGUMENT, nothing stored.
  socket.send_all(bulk::encode_header({3, 12}), soon());
  socket.send_all(as_bytes(one), soon());
  proto::TensorReply r3;
  const grpc::Status misfit = from_data(s.session(), 3, 4, &r3);
  EXPECT_EQ(misfit.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << misfit.error_message();
  EXPECT_EQ(server->stats().tensors, 1u);

  // The stored tensor comes back on the channel after IntoData asks for it.
  proto::HandleRequest ask;
  ask.set_session(s.session());
  ask.set_handle(r2.handle());
  ask.set_bulk(true);
  proto::TensorData reply;
  ASSERT_TRUE(stub->IntoData(context().get(), ask, &reply).ok());
  EXPECT_TRUE(reply.data().empty());
  ASSERT_NE(reply.bulk_transfer(), 0u);
  std::array<std::byte, bulk::kHeaderBytes> header{};
  socket.recv_all(header, soon());
  const bulk::FrameHeader h = bulk::decode_header(header);
  EXPECT_EQ(h.transfer, reply.bulk_transfer());
  ASSERT_EQ(h.bytes, 20u);
  std::vector<float> back(5);
  socket.recv_all({reinterpret_cast<std::byte*>(back.data()), 20}, soon());
  EXPECT_EQ(back, two);
}

// A bulk upload becomes the tensor's storage without a copy, but is checked exactly as inline
// bytes are: the same catalog panic, message and trailing id.
TEST_F(BulkChannelTest, BulkBytesAreCheckedAsInlineBytesAre) {
  const proto::OpenSessionReply s = open();
  bulk::Socket socket;
  ASSERT_TRUE(hello(socket, s, hello_of(s)));
  const std::array<std::byte, 3> bools{std::byte{1}, std::byte{0}, std::byte{7}};
  socket.send_all(bulk::encode_header({1, bools.size()}), soon());
  socket.send_all(bools, soon());
  proto::FromDataRequest request;
  request.set_session(s.session());
  request.mutable_data()->add_shape(3);
  request.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::Bool));
  request.mutable_data()->set_bulk_transfer(1);
  proto::TensorReply reply;
  grpc::ClientContext bulk_call;
  bulk_call.AddMetadata("x-crossgrad-token", kToken);
  const grpc::Status via_bulk = stub->FromData(&bulk_call, request, &reply);
  EXPECT_EQ(via_bulk.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(via_bulk.error_message(), "Bool data must hold 0 or 1, got byte 7 at index 2.");
  const auto id = bulk_call.GetServerTrailingMetadata().find("x-crossgrad-panic-id");
  ASSERT_NE(id, bulk_call.GetServerTrailingMetadata().end());
  EXPECT_EQ(std::string(id->second.data(), id->second.size()), "invalid-bool-value");

  request.mutable_data()->set_bulk_transfer(0);
  request.mutable_data()->set_data(std::string("\x01\x00\x07", 3));
  const grpc::Status inline_bytes = stub->FromData(context().get(), request, &reply);
  EXPECT_EQ(inline_bytes.error_code(), via_bulk.error_code());
  EXPECT_EQ(inline_bytes.error_message(), via_bulk.error_message());

  // A dtype no backend stores: the backend's own check, as for inline bytes.
  socket.send_all(bulk::encode_header({2, 4}), soon());
  socket.send_all(as_bytes(std::vector<float>{1}), soon());
  proto::FromDataRequest odd;
  odd.set_session(s.session());
  odd.mutable_data()->add_shape(2);
  odd.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::BF16));
  odd.mutable_data()->set_bulk_transfer(2);
  const grpc::Status bf16_bulk = stub->FromData(context().get(), odd, &reply);
  odd.mutable_data()->set_bulk_transfer(0);
  odd.mutable_data()->set_data(std::string(4, '\0'));
  const grpc::Status bf16_inline = stub->FromData(context().get(), odd, &reply);
  EXPECT_EQ(bf16_bulk.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << bf16_bulk.error_message();
  EXPECT_EQ(bf16_bulk.error_message(), bf16_inline.error_message());
  EXPECT_EQ(server->stats().tensors, 0u);
}

TEST_F(BulkChannelTest, AnUploadThatNeverArrivesOrHasNoConnectionIsUnavailable) {
  const proto::OpenSessionReply s = open();
  proto::TensorReply r;
  const grpc::Status no_link = from_data(s.session(), 1, 3, &r);
  EXPECT_EQ(no_link.error_code(), grpc::StatusCode::UNAVAILABLE) << no_link.error_message();
  bulk::Socket socket;
  ASSERT_TRUE(hello(socket, s, hello_of(s)));
  const auto t0 = std::chrono::steady_clock::now();
  const grpc::Status missing = from_data(s.session(), 7, 3, &r);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::UNAVAILABLE) << missing.error_message();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 1900ms) << "the server waits --bulk-wait for the bytes";
  EXPECT_EQ(server->stats().tensors, 0u);
}

TEST_F(BulkChannelTest, AFrameLargerThanTheSessionMayHoldEndsTheConnection) {
  const proto::OpenSessionReply s = open();
  bulk::Socket socket;
  ASSERT_TRUE(hello(socket, s, hello_of(s)));
  socket.send_all(bulk::encode_header({1, (std::size_t{1} << 20) + 4}), soon());  // over --max-session-bytes
  std::array<std::byte, 1> any{};
  EXPECT_THROW(socket.recv_all(any, soon()), bulk::BulkError) << "the server kept a connection announcing too much";
}

TEST(BulkHandler, WithoutABulkChannelBulkRequestsAreInvalidArguments) {
  ServerOptions o;
  o.token = kToken;
  o.log = [](std::string_view) {};
  Handler handler(o);
  Metadata trailing;
  proto::OpenSessionReply opened;
  ASSERT_TRUE(handler.open_session(kToken, {}, &opened, &trailing).ok());
  EXPECT_EQ(opened.bulk_port(), 0u);
  proto::FromDataRequest up;
  up.set_session(opened.session());
  up.mutable_data()->add_shape(1);
  up.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::F32));
  up.mutable_data()->set_bulk_transfer(1);
  proto::TensorReply made;
  EXPECT_EQ(handler.from_data(kToken, up, &made, &trailing).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  up.mutable_data()->set_bulk_transfer(0);
  up.mutable_data()->set_data(std::string(4, '\0'));
  const grpc::Status inline_bytes = handler.from_data(kToken, up, &made, &trailing);
  ASSERT_TRUE(inline_bytes.ok()) << inline_bytes.error_message();
  proto::HandleRequest down;
  down.set_session(opened.session());
  down.set_handle(made.handle());
  down.set_bulk(true);
  proto::TensorData data;
  EXPECT_EQ(handler.into_data(kToken, down, &data, &trailing).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Without the token a bulk request is refused before anything else.
  EXPECT_EQ(handler.into_data("nope", down, &data, &trailing).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

}  // namespace
}  // namespace crossgrad::server
