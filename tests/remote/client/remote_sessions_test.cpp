// The client's session life (Note [Remote sessions] in engine/src/backends/remote/session.hpp),
// seen from an in-process server's stats(): dropped tensors are freed by the next call, with no
// round trip of their own; an idle client keeps its session alive past the lease (KeepAlive);
// configure() ends the sessions of the old endpoint list at once, and their tensors are then lost.
#include "remote_test_support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

namespace crossgrad {
namespace {
using namespace std::chrono_literals;
using remote_tests::InProcessServer;

DispatchTensor f32(std::vector<float> v, Shape s) {
  return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), DispatchDevice::Remote(0));
}

TEST(RemoteSessions, DroppedTensorsAreFreedWithTheNextCall) {
  InProcessServer server;
  server.use();
  const DispatchTensor keep = f32({1, 2, 3}, {3});
  {
    std::vector<DispatchTensor> results;
    for (int i = 0; i < 5; ++i) results.push_back(Dispatch::float_add(keep, keep));
    EXPECT_EQ(server.get().stats().tensors, 6u);
  }  // all five dropped here
  EXPECT_EQ(server.get().stats().tensors, 6u) << "a dropped tensor cost a round trip of its own";
  EXPECT_EQ(Dispatch::float_into_data(keep).to_f32(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(server.get().stats().tensors, 1u) << "the next call did not carry the queued frees";
  EXPECT_EQ(server.get().stats().bytes, 12u);
  EXPECT_EQ(server.get().stats().sessions, 1u);
}

TEST(RemoteSessions, IdleClientKeepsItsSessionPastTheLease) {
  server::ServerOptions options;
  options.lease = 1500ms;
  InProcessServer server(options);
  server.use();
  const DispatchTensor x = f32({4, 5}, {2});
  std::this_thread::sleep_for(4500ms);  // three leases without an op: only KeepAlive holds it
  EXPECT_EQ(server.get().stats().sessions, 1u);
  EXPECT_EQ(Dispatch::float_into_data(x).to_f32(), (std::vector<float>{4, 5}));
}

TEST(RemoteSessions, ConfigureEndsTheOldSessionsAtOnce) {
  InProcessServer first;
  InProcessServer second;
  first.use();
  const DispatchTensor old = f32({1, 2}, {2});
  EXPECT_EQ(first.get().stats().sessions, 1u);
  second.use();
  EXPECT_EQ(first.get().stats().sessions, 0u);
  EXPECT_EQ(first.get().stats().tensors, 0u);
  const auto caught = remote_tests::panic_of([&] { Dispatch::float_into_data(old); });
  ASSERT_TRUE(caught.has_value());
  EXPECT_EQ(caught->id, "remote-session-lost");
  const DispatchTensor fresh = f32({3}, {1});
  EXPECT_EQ(second.get().stats().sessions, 1u);
  EXPECT_EQ(Dispatch::float_into_data(fresh).to_f32(), (std::vector<float>{3}));
}

// A process that never calls configure() takes its servers from CROSSGRAD_REMOTE_FILE (the ctest
// fixture's remote.conf format: "<address> <token>" lines, '#' comments).
TEST(RemoteSessions, EnvironmentFileConfiguresTheClient) {
  InProcessServer server;
  const std::string file = "/tmp/crossgrad-remote-conf-" + std::to_string(getpid());
  std::ofstream(file) << "# written by RemoteSessions.EnvironmentFileConfiguresTheClient\n"
                      << server.address() << " " << server.token() << "\n";
  setenv("CROSSGRAD_REMOTE_FILE", file.c_str(), 1);
  const remote_tests::Child child = remote_tests::spawn(REMOTE_SESSION_HOLDER_EXE, {}, true);
  unsetenv("CROSSGRAD_REMOTE_FILE");
  ASSERT_GT(child.pid, 0);
  EXPECT_EQ(remote_tests::read_line(child.stdout_fd, 30s), std::optional<std::string>("holding 3 tensors"));
  EXPECT_EQ(server.get().stats().sessions, 1u);
  ::kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  close(child.stdout_fd);
  std::remove(file.c_str());
}

}  // namespace
}  // namespace crossgrad
