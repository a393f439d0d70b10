// Faults of a remote server (issue 15, item 4): each ends in its catalog panic within the call
// deadline, never a hang, with nothing held by the client lost or changed.
//   ServerKilledMidSequence     SIGKILL between ops      -> remote-unavailable; a Gradients unchanged
//   ServerRestartedLosesSession restart on the same port -> old tensors remote-session-lost, new ones work
//   WrongTokenRefused / MissingTokenRefused               -> remote-refused; the server's state unchanged
//   StalledServerHitsDeadline   --stall-ms > deadline    -> remote-unavailable with DEADLINE_EXCEEDED
//   ClientGoneFreesSession      a client process killed  -> its session freed at once, not at lease end
// The faulty servers are crossgrad-server subprocesses (killed, restarted, stalled); the token and
// client-gone tests use an in-process server, whose stats() show its state.
#include "remote_test_support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <thread>

namespace crossgrad {
namespace {
using namespace std::chrono_literals;
using remote_tests::Caught;
using remote_tests::InProcessServer;
using remote_tests::panic_of;
using remote_tests::panic_within;
using remote_tests::ServerProcess;

DispatchTensor f32(std::vector<float> v, Shape s, const DispatchDevice& d) {
  return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), d);
}

const std::regex kUnavailable(R"(Remote server 127\.0\.0\.1:(\d+) is unavailable: (\S+) failed with ([A-Z_]+) \((.*)\)\.)");

TEST(RemoteFaults, ServerKilledMidSequence) {
  ServerProcess server(0, remote_tests::random_token());
  const auto deadline = 1500ms;
  server.use(deadline);
  const DispatchDevice ad_remote = DispatchDevice::Autodiff(DispatchDevice::Remote(0));
  const DispatchDevice ad_flex = DispatchDevice::Autodiff(DispatchDevice::Flex());
  // A graph across Flex and Remote: a Flex leaf moved to Remote, a Remote leaf.
  const DispatchTensor a = f32({1, 2, 3, 4}, {2, 2}, ad_flex);
  const DispatchTensor b = f32({0.5, -1, 2, 0.25}, {2, 2}, ad_remote);
  DispatchTensor y = Dispatch::float_mul(Dispatch::float_to_device(a, ad_remote), b);
  y = Dispatch::float_add_scalar(Dispatch::float_exp(y), 1.0);
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(y));
  ASSERT_EQ(grads.size(), 2u);
  const TensorData ga_before = Dispatch::float_into_data(*Dispatch::grad(a, grads));
  const std::string gb_debug = debug(Dispatch::grad(b, grads)->kind);
  const DispatchTensor next = Dispatch::float_neg(Dispatch::float_sub(y, y));  // the sequence goes on

  server.kill_hard();

  std::chrono::milliseconds took{0};
  const std::optional<Caught> caught = panic_within(deadline + 20s, [&] { Dispatch::float_add(next, y); }, &took);
  ASSERT_TRUE(caught.has_value()) << "a call to a killed server returned";
  EXPECT_EQ(caught->id, "remote-unavailable");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(caught->message, m, kUnavailable)) << caught->message;
  EXPECT_EQ(m[1], std::to_string(server.port()));
  EXPECT_EQ(m[2], "float_add");
  EXPECT_TRUE(m[3] == "UNAVAILABLE" || m[3] == "DEADLINE_EXCEEDED") << m[3];
  std::printf("killed server: remote-unavailable after %lld ms (deadline %lld ms): %s\n",
              static_cast<long long>(took.count()), static_cast<long long>(deadline.count()), caught->message.c_str());

  // The Gradients held here is unchanged: both entries, the Flex one with the same data; the
  // Remote one names the same tensor and raises remote-unavailable rather than other data.
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_TRUE(Dispatch::float_into_data(*Dispatch::grad(a, grads)) == ga_before);
  EXPECT_EQ(debug(Dispatch::grad(b, grads)->kind), gb_debug);
  const std::optional<Caught> read = panic_within(deadline + 20s, [&] { Dispatch::float_into_data(*Dispatch::grad(b, grads)); });
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->id, "remote-unavailable");
  // And backward of a new root fails the same way, leaving `grads` alone.
  const std::optional<Caught> back = panic_within(deadline + 20s, [&] { Dispatch::backward(Dispatch::float_sum(next)); });
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id, "remote-unavailable");
  EXPECT_EQ(grads.size(), 2u);
  EXPECT_TRUE(Dispatch::float_into_data(*Dispatch::grad(a, grads)) == ga_before);
}

// The session id inside a remote-session-lost message (the rest written out by hand).
std::string lost_session_of(const Caught& c, int port) {
  const std::regex lost("Remote tensor of session (\\d+) on 127\\.0\\.0\\.1:" + std::to_string(port) +
                        " is lost: the server no longer knows that session\\.");
  std::smatch m;
  if (!std::regex_match(c.message, m, lost)) {
    ADD_FAILURE() << "not a remote-session-lost message of port " << port << ": " << c.message;
    return {};
  }
  return m[1];
}

TEST(RemoteFaults, ServerRestartedLosesSession) {
  const std::string token = remote_tests::random_token();
  auto server = std::make_unique<ServerProcess>(0, token);
  const int port = server->port();
  server->use(5000ms);
  const DispatchTensor a = f32({1, 2, 3}, {3}, DispatchDevice::Remote(0));
  const DispatchTensor b = f32({10, 20, 30}, {3}, DispatchDevice::Remote(0));
  EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_add(a, b)).to_f32(), (std::vector<float>{11, 22, 33}));

  server->kill_hard();
  server = std::make_unique<ServerProcess>(port, token);  // the same address, a new process
  ASSERT_EQ(server->port(), port);

  // New tensors work: the client opens a new session on the restarted server.
  const DispatchTensor c = f32({4, 5, 6}, {3}, DispatchDevice::Remote(0));
  const DispatchTensor d = f32({0.5, 0.5, 0.5}, {3}, DispatchDevice::Remote(0));
  EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_mul(c, d)).to_f32(), (std::vector<float>{2, 2.5, 3}));

  // Old tensors raise remote-session-lost, never other data: in an op, alone or beside a new one.
  const std::optional<Caught> op = panic_within(30s, [&] { Dispatch::float_add(a, b); });
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->id, "remote-session-lost");
  const std::string old_session = lost_session_of(*op, port);
  const std::optional<Caught> read = panic_within(30s, [&] { Dispatch::float_into_data(b); });
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->id, "remote-session-lost");
  EXPECT_EQ(lost_session_of(*read, port), old_session);
  const std::optional<Caught> mixed = panic_within(30s, [&] { Dispatch::float_add(c, a); });
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->id, "remote-session-lost");
  // The new session still works after all that.
  EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_add(c, d)).to_f32(), (std::vector<float>{4.5, 5.5, 6.5}));
}

void expect_refused(InProcessServer& server, const std::string& token) {
  const server::Stats before = server.get().stats();
  remote::configure({{server.address(), token}}, 5000ms);
  const std::optional<Caught> caught =
      panic_within(30s, [&] { Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}), DispatchDevice::Remote(0)); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "remote-refused");
  EXPECT_EQ(caught->message, "Remote server " + server.address() + " refused OpenSession: UNAUTHENTICATED (missing or wrong token (call metadata "
                             "x-crossgrad-token)).");
  const server::Stats after = server.get().stats();
  EXPECT_EQ(after.sessions, before.sessions);
  EXPECT_EQ(after.tensors, before.tensors);
  EXPECT_EQ(after.bytes, before.bytes);
  EXPECT_EQ(after.sessions, 0u);
}

TEST(RemoteFaults, WrongTokenRefused) {
  InProcessServer server;
  expect_refused(server, server.token() + "x");
  // The right token still works.
  server.use();
  EXPECT_EQ(Dispatch::float_into_data(f32({1, 2}, {2}, DispatchDevice::Remote(0))).to_f32(), (std::vector<float>{1, 2}));
  EXPECT_EQ(server.get().stats().sessions, 1u);
}

TEST(RemoteFaults, MissingTokenRefused) {
  InProcessServer server;
  expect_refused(server, "");
}

TEST(RemoteFaults, StalledServerHitsDeadline) {
  ServerProcess server(0, remote_tests::random_token(), {"--stall-ms", "4000"});
  const auto deadline = 300ms;
  server.use(deadline);
  std::chrono::milliseconds took{0};
  const std::optional<Caught> caught = panic_within(
      deadline + 20s, [&] { Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}), DispatchDevice::Remote(0)); }, &took);
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "remote-unavailable");
  EXPECT_EQ(caught->message, "Remote server " + server.address() +
                                 " is unavailable: from_data failed with DEADLINE_EXCEEDED (Deadline Exceeded).");
  std::printf("stalled server: remote-unavailable after %lld ms (deadline %lld ms)\n", static_cast<long long>(took.count()),
              static_cast<long long>(deadline.count()));
}

TEST(RemoteFaults, ClientGoneFreesSession) {
  server::ServerOptions options;
  options.lease = std::chrono::milliseconds(600000);  // ten minutes: only the client's disappearance can free it in time
  InProcessServer server(options);
  ASSERT_EQ(server.get().stats().sessions, 0u);
  // The child reads its server from the environment (CROSSGRAD_REMOTE + CROSSGRAD_REMOTE_TOKEN).
  setenv("CROSSGRAD_REMOTE", server.address().c_str(), 1);
  setenv("CROSSGRAD_REMOTE_TOKEN", server.token().c_str(), 1);
  const remote_tests::Child child = remote_tests::spawn(REMOTE_SESSION_HOLDER_EXE, {}, true);
  unsetenv("CROSSGRAD_REMOTE");
  unsetenv("CROSSGRAD_REMOTE_TOKEN");
  ASSERT_GT(child.pid, 0);
  const std::optional<std::string> line = remote_tests::read_line(child.stdout_fd, 30s);
  ASSERT_EQ(line, std::optional<std::string>("holding 3 tensors"));
  EXPECT_EQ(server.get().stats().sessions, 1u);
  EXPECT_GE(server.get().stats().tensors, 3u);

  ::kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  close(child.stdout_fd);

  const auto start = std::chrono::steady_clock::now();
  while (server.get().stats().sessions != 0 && std::chrono::steady_clock::now() - start < 60s) {
    std::this_thread::sleep_for(10ms);
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  EXPECT_EQ(server.get().stats().sessions, 0u) << "the killed client's session is still live after " << took.count()
                                                    << " ms (lease 600000 ms)";
  EXPECT_EQ(server.get().stats().tensors, 0u);
  EXPECT_EQ(server.get().stats().bytes, 0u);
  std::printf("client gone: session freed after %lld ms (lease 600000 ms)\n", static_cast<long long>(took.count()));
}

}  // namespace
}  // namespace crossgrad
