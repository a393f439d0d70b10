// The token (issue 15: "calls without it get UNAUTHENTICATED and touch nothing").
#include "handler_test_support.hpp"

namespace crossgrad::server::testing {
namespace {

// Missing, wrong, a prefix of the right one, the right one plus more.
const std::vector<std::string> kBadTokens = {"", "wrong", "h1-test-token-012345678", std::string(kToken) + "x",
                                             "H1-TEST-TOKEN-0123456789"};

TEST_F(HandlerTest, EveryRpcWithAMissingOrWrongTokenIsUnauthenticatedAndChangesNothing) {
  const std::uint64_t session = open();
  const TensorData values = TensorData::from_f32({1.0f, -2.0f, 3.5f}, Shape{3});
  const std::uint64_t handle = upload_ok(session, values);
  const Stats before = stats();
  ASSERT_EQ(before, (Stats{1, 1, 12}));

  for (const std::string& token : kBadTokens) {
    SCOPED_TRACE("token '" + token + "'");
    proto::OpenSessionReply opened;
    Metadata md;
    EXPECT_EQ(handler->open_session(token, {}, &opened, &md).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    proto::TensorReply reply;
    EXPECT_EQ(upload(session, values, &reply, token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(op(session, code(OpId::float_neg), {handle}), &reply, token).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    proto::TensorData data;
    EXPECT_EQ(download(session, handle, &data, token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_TRUE(data.data().empty());
    EXPECT_EQ(free(session, {handle}, token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    proto::SessionRef ref;
    ref.set_session(session);
    proto::Empty empty;
    EXPECT_EQ(handler->keep_alive(token, ref, &empty, &md).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(handler->attach(token, ref, &md).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(close(session, token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(stats(), before);
  }
  // The session, its tensor and its data are all still there.
  EXPECT_EQ(download_ok(session, handle), values);
  EXPECT_TRUE(handler->session_live(session));
  EXPECT_TRUE(log.empty());
}

TEST_F(HandlerTest, AnUnauthenticatedCallToAnUnknownSessionSaysUnauthenticatedNotNotFound) {
  proto::TensorReply reply;
  EXPECT_EQ(upload(12345, TensorData::from_f32({1.0f}, Shape{1}), &reply, "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(trailing.empty());
}

TEST(HandlerOptions, AnEmptyTokenOrAnUnservableBackendIsRefusedAtConstruction) {
  ServerOptions o;
  EXPECT_THROW(Handler{o}, std::invalid_argument);
  o.token.assign(1, 't');  // (assigning a literal trips GCC 12's -Wrestrict false positive)
  o.backend = "NoSuchBackend";
  EXPECT_THROW(Handler{o}, std::invalid_argument);
  o.backend = "Remote";
  EXPECT_THROW(Handler{o}, std::invalid_argument);
  o.backend = "NdArray";
  EXPECT_EQ(Handler{o}.backend_name(), "NdArray");
}

}  // namespace
}  // namespace crossgrad::server::testing
