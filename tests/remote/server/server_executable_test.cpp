// The crossgrad-server executable as a subprocess: --port 0 --port-file, a client call, SIGTERM ->
// exit 0 within 5 s; without a token it refuses to start with a clear message.
#include "crossgrad_remote.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace proto = ::crossgrad::remote;
namespace fs = std::filesystem;

struct Child {
  pid_t pid = -1;
};

// The environment without CROSSGRAD_REMOTE_TOKEN, plus `extra`.
std::vector<std::string> environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (std::string_view(*e).starts_with("CROSSGRAD_REMOTE_TOKEN=")) continue;
    env.emplace_back(*e);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

Child spawn(const std::vector<std::string>& args, const std::vector<std::string>& env, const fs::path& output) {
  std::vector<char*> argv;
  std::vector<std::string> all = {CROSSGRAD_SERVER_EXE};
  all.insert(all.end(), args.begin(), args.end());
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy = env;
  std::vector<char*> envp;
  for (std::string& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  Child c;
  const int rc = posix_spawn(&c.pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return c;
}

// Waits up to `limit` for the child; its wait status, or nullopt (then it is killed).
std::optional<int> wait_for(Child c, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    if (waitpid(c.pid, &status, WNOHANG) == c.pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(c.pid, SIGKILL);
  waitpid(c.pid, nullptr, 0);
  return std::nullopt;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("crossgrad-server-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

TEST(ServerExecutable, ServesOnAnEphemeralPortAndExitsZeroOnSigterm) {
  const fs::path port_file = scratch("endpoint");
  const fs::path output = scratch("out.log");
  fs::remove(port_file);
  Child server = spawn({"--port", "0", "--port-file", port_file.string()},
                       environment({"CROSSGRAD_REMOTE_TOKEN=exe-token"}), output);
  // The port file appears once the server listens (bounded wait).
  for (int i = 0; i < 2000 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(port_file)) << read_file(output);
  std::string endpoint = read_file(port_file);
  ASSERT_FALSE(endpoint.empty());
  EXPECT_EQ(endpoint.back(), '\n');
  endpoint.pop_back();
  EXPECT_TRUE(endpoint.starts_with("127.0.0.1:")) << endpoint;

  auto stub = proto::Compute::NewStub(grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata("x-crossgrad-token", "exe-token");
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  proto::OpenSessionReply reply;
  const grpc::Status s = stub->OpenSession(&ctx, {}, &reply);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(reply.backend(), "Flex");

  ASSERT_EQ(kill(server.pid, SIGTERM), 0);
  const std::optional<int> status = wait_for(server, std::chrono::seconds(5));
  ASSERT_TRUE(status) << "crossgrad-server did not exit within 5 s of SIGTERM";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << "wait status " << *status;
  const std::string log = read_file(output);
  EXPECT_NE(log.find("crossgrad-server: serving Flex on " + endpoint), std::string::npos) << log;
  EXPECT_NE(log.find("ended (shutdown) after 0 calls"), std::string::npos) << log;
}

TEST(ServerExecutable, RefusesToStartWithoutAToken) {
  const fs::path output = scratch("no-token.log");
  Child server = spawn({"--port", "0"}, environment({}), output);
  const std::optional<int> status = wait_for(server, std::chrono::seconds(20));
  ASSERT_TRUE(status) << "crossgrad-server without a token did not exit";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 2) << "wait status " << *status;
  EXPECT_EQ(read_file(output),
            "crossgrad-server: no token: pass --token T or set CROSSGRAD_REMOTE_TOKEN (clients must send the same "
            "token)\n");
}

TEST(ServerExecutable, HelpNamesEveryFlag) {
  const fs::path output = scratch("help.log");
  const std::optional<int> status = wait_for(spawn({"--help"}, environment({}), output), std::chrono::seconds(20));
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  const std::string help = read_file(output);
  for (const char* flag : {"--backend", "--host", "--port", "--token", "--port-file", "--max-tensors",
                           "--max-session-bytes", "--max-message-bytes", "--lease-ms", "--stall-ms"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
