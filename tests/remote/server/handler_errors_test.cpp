// Statuses of bad requests: unknown session (NOT_FOUND + lost), unknown handle (NOT_FOUND),
// malformed op calls (INVALID_ARGUMENT), engine panics (FAILED_PRECONDITION + panic id).
#include "handler_test_support.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

namespace crossgrad::server::testing {
namespace {

TEST_F(HandlerTest, AnUnknownSessionIsNotFoundWithTheLostKey) {
  const std::uint64_t unknown = open() + 1;
  auto expect_lost = [&](const grpc::Status& s) {
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
    EXPECT_EQ(find(trailing, "x-crossgrad-lost"), "session");
  };
  proto::TensorReply reply;
  expect_lost(upload(unknown, TensorData::from_f32({1.0f}, Shape{1}), &reply));
  expect_lost(call(op(unknown, code(OpId::float_neg), {1}), &reply));
  proto::TensorData data;
  expect_lost(download(unknown, 1, &data));
  expect_lost(free(unknown, {1}));
  expect_lost(close(unknown));
  proto::SessionRef ref;
  ref.set_session(unknown);
  proto::Empty empty;
  trailing.clear();
  expect_lost(handler->keep_alive(kToken, ref, &empty, &trailing));
  trailing.clear();
  expect_lost(handler->attach(kToken, ref, &trailing));
}

TEST_F(HandlerTest, AClosedSessionIsLostAndLogsOneLine) {
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1, 2, 3, 4}, Shape{2, 2}));
  proto::TensorReply reply;
  ASSERT_TRUE(call(op(session, code(OpId::float_neg), {a}), &reply).ok());
  ASSERT_TRUE(close(session).ok());
  EXPECT_EQ(stats(), (Stats{0, 0, 0}));
  EXPECT_EQ(call(op(session, code(OpId::float_neg), {a}), &reply).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(find(trailing, "x-crossgrad-lost"), "session");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "crossgrad-server: session " + std::to_string(session) +
                        " ended (closed) after 2 calls, 2 tensors, 32 bytes held at most");
}

TEST_F(HandlerTest, AnUnknownHandleIsNotFoundWithoutTheLostKey) {
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  proto::TensorData data;
  EXPECT_EQ(download(session, a + 1, &data).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(find(trailing, "x-crossgrad-lost"));
  proto::TensorReply reply;
  EXPECT_EQ(call(op(session, code(OpId::float_add), {a, 999}), &reply).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(find(trailing, "x-crossgrad-lost"));
  EXPECT_EQ(stats(), (Stats{1, 1, 8}));
}

TEST_F(HandlerTest, MalformedOpCallsAreInvalidArgumentAndStoreNothing) {
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  const Stats before = stats();
  auto expect_invalid = [&](proto::OpCall c, const std::string& what) {
    SCOPED_TRACE(what);
    proto::TensorReply reply;
    const grpc::Status s = call(c, &reply);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
    EXPECT_EQ(stats(), before);
  };
  expect_invalid(op(session, code(OpId::float_add), {a}), "binary op with one operand");
  expect_invalid(op(session, code(OpId::float_add), {a, a, a}), "binary op with three operands");
  expect_invalid(op(session, code(OpId::float_neg), {}), "unary op without operand");
  proto::OpCall no_scalar = op(session, code(OpId::float_add_scalar), {a});
  expect_invalid(no_scalar, "scalar op without its scalar");
  proto::OpCall extra_dim = op(session, code(OpId::float_neg), {a});
  extra_dim.add_dims(0);
  expect_invalid(extra_dim, "unary op with a dim");
  expect_invalid(op(session, static_cast<std::uint32_t>(kOpCount), {a}), "first op code past the registry");
  expect_invalid(op(session, 999, {a}), "op code 999");
  expect_invalid(op(session, 1003, {a}), "op code 1003");
  proto::OpCall bad_dtype = op(session, code(OpId::float_cast), {a});
  bad_dtype.set_dtype(200);
  expect_invalid(bad_dtype, "cast to dtype value 200");

  proto::FromDataRequest upload_bad;
  upload_bad.set_session(session);
  upload_bad.mutable_data()->add_shape(1);
  upload_bad.mutable_data()->set_dtype(10);  // one past QInt8
  upload_bad.mutable_data()->set_data(std::string(1, '\0'));
  proto::TensorReply reply;
  const grpc::Status s = handler->from_data(kToken, upload_bad, &reply, &trailing);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(stats(), before);
}

TEST_F(HandlerTest, AnEnginePanicIsFailedPreconditionWithItsIdAndExactMessage) {
  const std::uint64_t session = open();
  const std::uint64_t a = upload_ok(session, TensorData::from_f32({1, 2}, Shape{2}));
  const std::uint64_t b = upload_ok(session, TensorData::from_f32({1, 2, 3}, Shape{3}));
  proto::TensorReply reply;
  const grpc::Status s = call(op(session, code(OpId::float_add), {a, b}), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(s.error_message(), "float_add cannot broadcast shapes [2] and [3].");
  EXPECT_EQ(find(trailing, "x-crossgrad-panic-id"), "broadcast-mismatch");
  EXPECT_EQ(stats(), (Stats{1, 2, 20}));

  // Bad bytes in from_data raise the same catalog panic as a local TensorData::from_bytes.
  proto::FromDataRequest short_data;
  short_data.set_session(session);
  short_data.mutable_data()->add_shape(2);
  short_data.mutable_data()->set_dtype(static_cast<std::uint32_t>(DType::F32));
  short_data.mutable_data()->set_data(std::string(4, '\0'));
  trailing.clear();
  const grpc::Status t = handler->from_data(kToken, short_data, &reply, &trailing);
  EXPECT_EQ(t.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(t.error_message(), "Tensor data has 1 values but shape [2] needs 2.");
  EXPECT_EQ(find(trailing, "x-crossgrad-panic-id"), "data-length-mismatch");
}

TEST_F(HandlerTest, HandlesAreNeverReusedAndSessionIdsDiffer) {
  const std::uint64_t s1 = open();
  const std::uint64_t s2 = open();
  EXPECT_NE(s1, s2);
  EXPECT_NE(s1, 0u);
  const std::uint64_t a = upload_ok(s1, TensorData::from_f32({1}, Shape{1}));
  EXPECT_EQ(a, 1u);
  ASSERT_TRUE(free(s1, {a}).ok());
  EXPECT_EQ(upload_ok(s1, TensorData::from_f32({1}, Shape{1})), 2u);
  EXPECT_EQ(upload_ok(s2, TensorData::from_f32({1}, Shape{1})), 1u);
}

}  // namespace
}  // namespace crossgrad::server::testing
