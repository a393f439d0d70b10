// Limits (RESOURCE_EXHAUSTED naming the flag), frees, and the session's ends: lease expiry and a
// client gone free everything the session held.
#include "handler_test_support.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

#include <chrono>
#include <cstdint>
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

// Results that outgrow their operands are admitted before they run (Note [Results larger than their
// operands], served_backend.cpp): each result below is over 16 GiB, so an op allowed to run would
// fail on the engine's tensor-too-large instead of the session's limit (none is ever allocated).
TEST_F(HandlerTest, ResultsLargerThanTheirOperandsAreRefusedBeforeTheyRun) {
  ServerOptions o = options();
  o.max_session_bytes = std::size_t{4} << 20;
  make(o);
  const std::uint64_t session = open();
  const std::size_t n = std::size_t{1} << 17;
  const auto refused = [&](const proto::OpCall& c, const char* what) {
    proto::TensorReply reply;
    const grpc::Status s = call(c, &reply);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << what << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr("--max-session-bytes")) << what;
  };
  // A reduction along an empty dim: [2^33, 0] summed over dim 1 is 2^33 values (32 GiB of F32).
  const std::uint64_t empty = upload_ok(session, TensorData::from_f32({}, Shape{std::size_t{1} << 33, 0}));
  for (OpId id : {OpId::float_sum_dim, OpId::float_mean_dim, OpId::float_max_dim, OpId::float_argmax, OpId::float_min_dim,
                  OpId::float_argmin, OpId::float_prod_dim, OpId::float_max_abs_dim, OpId::float_any_dim,
                  OpId::float_all_dim}) {
    proto::OpCall reduce = op(session, code(id), {empty});
    reduce.add_dims(1);
    refused(reduce, std::string(op_info(id).name).c_str());
  }
  // Broadcasting: [2^17, 1] with [1, 2^17] is 2^34 elements (64 GiB of F32, 16 GiB of Bool).
  const std::uint64_t column = upload_ok(session, TensorData::from_f32(std::vector<float>(n, 1.0f), Shape{n, 1}));
  const std::uint64_t row = upload_ok(session, TensorData::from_f32(std::vector<float>(n, 2.0f), Shape{1, n}));
  refused(op(session, code(OpId::float_add), {column, row}), "float_add");
  refused(op(session, code(OpId::float_greater), {column, row}), "float_greater");
  // Matmul of empty operands: [2^17, 0] x [0, 2^17] is 2^34 zeros.
  const std::uint64_t lhs = upload_ok(session, TensorData::from_f32({}, Shape{n, 0}));
  const std::uint64_t rhs = upload_ok(session, TensorData::from_f32({}, Shape{0, n}));
  refused(op(session, code(OpId::float_matmul), {lhs, rhs}), "float_matmul");
  // Select repeating an index: 2^17 picks of column 0 of [2^17, 1] along dim 1 is [2^17, 2^17].
  const std::uint64_t picks = upload_ok(session, TensorData::from_i64(std::vector<std::int64_t>(n, 0), Shape{n}));
  proto::OpCall select = op(session, code(OpId::float_select), {column, picks});
  select.add_dims(1);
  refused(select, "float_select");
  // Every kind's: the int and bool reductions along an empty dim, int_matmul of empty operands.
  const std::uint64_t empty_ints = upload_ok(session, TensorData::from_i64({}, Shape{std::size_t{1} << 33, 0}));
  for (OpId id : {OpId::int_sum_dim, OpId::int_prod_dim, OpId::int_max_dim, OpId::int_argmin, OpId::int_any_dim}) {
    proto::OpCall reduce = op(session, code(id), {empty_ints});
    reduce.add_dims(1);
    refused(reduce, std::string(op_info(id).name).c_str());
  }
  const std::uint64_t int_lhs = upload_ok(session, TensorData::from_i32({}, Shape{n, 0}));
  const std::uint64_t int_rhs = upload_ok(session, TensorData::from_i32({}, Shape{0, n}));
  refused(op(session, code(OpId::int_matmul), {int_lhs, int_rhs}), "int_matmul");
  // The masked ops broadcast too: [2^17, 1] under a [1, 2^17] mask.
  const std::uint64_t mask_row = upload_ok(session, TensorData::from_bool(std::vector<bool>(n, true), Shape{1, n}));
  proto::OpCall fill = op(session, code(OpId::float_mask_fill), {column, mask_row});
  fill.add_scalars(0.5);
  refused(fill, "float_mask_fill");
  refused(op(session, code(OpId::float_mask_where), {column, mask_row, column}), "float_mask_where");
  // A dim times a count, and windows of windows: [3] repeated 2^34 times; [2^18] in windows of
  // 2^17 every cell (found by the remote_protocol fuzzer: repeat_dim allocated 1.6 GB in a 1 MiB
  // session before the limit was checked). A session of their own: their operands take 3 MiB.
  const std::uint64_t grown = open();
  const std::uint64_t three3 = upload_ok(grown, TensorData::from_f32({1, 2, 3}, Shape{3}));
  const auto with_dims = [&](proto::OpCall c, std::initializer_list<std::uint64_t> dims) {
    for (std::uint64_t d : dims) c.add_dims(d);
    return c;
  };
  refused(with_dims(op(grown, code(OpId::float_repeat_dim), {three3}), {0, std::uint64_t{1} << 34}), "float_repeat_dim");
  const std::uint64_t line = upload_ok(grown, TensorData::from_f32(std::vector<float>(std::size_t{1} << 18, 1.0f), Shape{std::size_t{1} << 18}));
  refused(with_dims(op(grown, code(OpId::float_unfold), {line}), {0, std::uint64_t{1} << 17, 1}), "float_unfold");
  // The module ops whose output size is an argument, from one cell: 2^17 x 2^17 (2^12 cubed for
  // the 3-D pooling; fold4d's one 1x1 block with stride 2^17), and unfold4d's 2^16-cell blocks.
  const std::uint64_t cell = upload_ok(grown, TensorData::from_f32({1}, Shape{1, 1, 1, 1}));
  const std::uint64_t big = std::uint64_t{1} << 17;
  refused(with_dims(op(grown, code(OpId::adaptive_avg_pool2d), {cell}), {big, big}), "adaptive_avg_pool2d");
  refused(with_dims(op(grown, code(OpId::interpolate), {cell}), {big, big, 2, 0}), "interpolate");
  const std::uint64_t voxel = upload_ok(grown, TensorData::from_f32({1}, Shape{1, 1, 1, 1, 1}));
  refused(with_dims(op(grown, code(OpId::adaptive_avg_pool3d), {voxel}), {1 << 12, 1 << 12, 1 << 12}), "adaptive_avg_pool3d");
  const std::uint64_t block = upload_ok(grown, TensorData::from_f32({1}, Shape{1, 1, 1}));
  refused(with_dims(op(grown, code(OpId::fold4d), {block}), {big, big, 1, 1, big, big, 0, 0, 1, 1}), "fold4d");
  const std::uint64_t image = upload_ok(grown, TensorData::from_f32(std::vector<float>(std::size_t{1} << 19, 1.0f), Shape{1, 1, 1 << 9, 1 << 10}));
  refused(with_dims(op(grown, code(OpId::unfold4d), {image}), {1 << 8, 1 << 8, 1, 1, 0, 0, 1, 1}), "unfold4d");
  // embedding: a row of a [1, 2^16] table per index, 2^17 indices (32 GiB), in a session of its own.
  const std::uint64_t lookups = open();
  const std::uint64_t table = upload_ok(lookups, TensorData::from_f32(std::vector<float>(std::size_t{1} << 16, 1.0f), Shape{1, std::size_t{1} << 16}));
  const std::uint64_t ids = upload_ok(lookups, TensorData::from_i32(std::vector<std::int32_t>(n, 0), Shape{n, 1}));
  refused(op(lookups, code(OpId::embedding), {table, ids}), "embedding");
  // The same ops on shapes the op refuses still give the op's own answer, not the limit.
  const std::uint64_t three = upload_ok(session, TensorData::from_f32({1, 2, 3}, Shape{3}));
  proto::TensorReply reply;
  const grpc::Status mismatch = call(op(session, code(OpId::float_add), {row, three}), &reply);  // [1, 2^17] with [3]
  EXPECT_NE(mismatch.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << mismatch.error_message();
  EXPECT_THAT(mismatch.error_message(), HasSubstr("broadcast"));
  // Results within the limit still run: the sum of the row over dim 0 is the row.
  proto::OpCall fits = op(session, code(OpId::float_sum_dim), {row});
  fits.add_dims(0);
  EXPECT_TRUE(call(fits, &reply).ok());
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
