// Limits (RESOURCE_EXHAUSTED naming the flag), frees, and the session's ends: lease expiry and a
// client gone free everything the session held.
#include "handler_test_support.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

#include <chrono>
#include <thread>

namespace crossgrad::server::testing {
namespace {

using ::testing::HasSubstr;

TEST_F(HandlerTest, TheTensorLimitIsResourceExhaustedNamingMaxTensors) {
  ServerOptions o = options();
  o.max_tensors = 2;
  make(o);
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1}, Shape{1}));
  upload_ok(session, TensorData::from_f32({2}, Shape{1}));
  proto::TensorReply reply;
  grpc::Status s = upload(session, TensorData::from_f32({3}, Shape{1}), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-tensors"));
  s = call(op(session, code(OpId::float_neg), {a}), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-tensors"));
  EXPECT_EQ(stats(), (Stats{1, 2, 8}));
  // Freed room is usable again.
  ASSERT_TRUE(free(session, {a}).ok());
  EXPECT_TRUE(upload(session, TensorData::from_f32({3}, Shape{1}), &reply).ok());
}

TEST_F(HandlerTest, TheByteLimitIsResourceExhaustedNamingMaxSessionBytes) {
  ServerOptions o = options();
  o.max_session_bytes = 64;
  make(o);
  const std::uint64_t session = open();
  upload_ok(session, TensorData::from_f32(std::vector<float>(12, 1.0f), Shape{12}));  // 48 bytes
  proto::TensorReply reply;
  grpc::Status s = upload(session, TensorData::from_f32(std::vector<float>(8, 1.0f), Shape{8}), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-session-bytes"));
  // A result whose size is an argument is refused before it is allocated (2^40 F64 = 8 TiB).
  proto::OpCall full = op(session, remote::wire::kFloatFull, {});
  full.add_shape(std::size_t{1} << 40);
  full.add_scalars(1.0);
  full.set_dtype(static_cast<std::uint32_t>(DType::F64));
  s = call(full, &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-session-bytes"));
  EXPECT_EQ(stats(), (Stats{1, 1, 48}));
}

TEST_F(HandlerTest, TheMessageLimitIsResourceExhaustedNamingMaxMessageBytes) {
  ServerOptions o = options();
  o.max_message_bytes = 16;
  make(o);
  const std::uint64_t session = open();
  proto::TensorReply reply;
  grpc::Status s = upload(session, TensorData::from_f32(std::vector<float>(8, 1.0f), Shape{8}), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-message-bytes"));
  // A result too large to send back is refused by into_data, and stays held.
  const std::uint64_t small = upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  proto::OpCall expand = op(session, code(OpId::float_expand), {small});
  expand.add_shape(8);
  expand.add_shape(2);
  ASSERT_TRUE(call(expand, &reply).ok());
  proto::TensorData data;
  s = download(session, reply.handle(), &data);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-message-bytes"));
  EXPECT_EQ(stats(), (Stats{1, 2, 72}));
}

TEST_F(HandlerTest, TheSessionLimitIsResourceExhaustedNamingMaxSessions) {
  ServerOptions o = options();
  o.max_sessions = 1;
  make(o);
  open();
  proto::OpenSessionReply reply;
  Metadata md;
  const grpc::Status s = handler->open_session(kToken, {}, &reply, &md);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max-sessions"));
  EXPECT_EQ(stats().sessions, 1u);
}

TEST_F(HandlerTest, FreesReallyFree) {
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  const std::uint64_t b = upload_ok(session, TensorData::from_f64({1, 2}, Shape{2}));
  const std::uint64_t c = upload_ok(session, TensorData::from_f32({1, 2, 3}, Shape{3}));
  EXPECT_EQ(stats(), (Stats{1, 3, 36}));
  ASSERT_TRUE(free(session, {b}).ok());
  EXPECT_EQ(stats(), (Stats{1, 2, 20}));
  proto::TensorData data;
  EXPECT_EQ(download(session, b, &data).error_code(), grpc::StatusCode::NOT_FOUND);
  // Frees batched with a call are freed before it runs: c is gone, a's negation is held.
  proto::OpCall neg = op(session, code(OpId::float_neg), {a});
  neg.add_frees(c);
  proto::TensorReply reply;
  ASSERT_TRUE(call(neg, &reply).ok());
  EXPECT_EQ(stats(), (Stats{1, 2, 16}));
  // Freeing a handle twice or one never given is not an error and changes nothing.
  ASSERT_TRUE(free(session, {b, 777}).ok());
  EXPECT_EQ(stats(), (Stats{1, 2, 16}));
  ASSERT_TRUE(close(session).ok());
  EXPECT_EQ(stats(), (Stats{0, 0, 0}));
}

TEST_F(HandlerTest, ALeaseThatRunsOutFreesTheSession) {
  ServerOptions o = options();
  o.lease = std::chrono::milliseconds(20);
  make(o);
  const std::uint64_t session = open();
  upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  EXPECT_EQ(stats(), (Stats{1, 1, 8}));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(handler->reap_expired(), 1u);
  EXPECT_EQ(stats(), (Stats{0, 0, 0}));
  proto::TensorReply reply;
  EXPECT_EQ(call(op(session, code(OpId::float_neg), {1}), &reply).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(find(trailing, "x-crossgrad-lost"), "session");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("ended (expired) after 1 calls, 1 tensors, 8 bytes held at most"));
}

TEST_F(HandlerTest, ASessionWithinItsLeaseIsKept) {
  ServerOptions o = options();
  o.lease = std::chrono::hours(1);
  make(o);
  open();
  EXPECT_EQ(handler->reap_expired(), 0u);
  EXPECT_EQ(stats().sessions, 1u);
}

TEST_F(HandlerTest, AClientGoneFreesTheSession) {
  const std::uint64_t session = open();
  upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  handler->client_gone(session);
  EXPECT_EQ(stats(), (Stats{0, 0, 0}));
  EXPECT_FALSE(handler->session_live(session));
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0], HasSubstr("ended (client gone)"));
}

}  // namespace
}  // namespace crossgrad::server::testing
