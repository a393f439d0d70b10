#include "remote_test_support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>

extern char** environ;

namespace crossgrad::remote_tests {

std::string random_token() {
  std::random_device rd;
  std::string t;
  for (int i = 0; i < 32; ++i) t += "0123456789abcdef"[rd() % 16];
  return t;
}

std::optional<Caught> panic_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Panic& p) {
    return Caught{std::string(panic_id_name(p.id())), p.message()};
  }
  return std::nullopt;
}

std::optional<Caught> panic_within(std::chrono::milliseconds limit, const std::function<void()>& f,
                                   std::chrono::milliseconds* took) {
  const auto start = std::chrono::steady_clock::now();
  std::packaged_task<std::optional<Caught>()> task([&] { return panic_of(f); });
  std::future<std::optional<Caught>> result = task.get_future();
  std::thread runner(std::move(task));
  if (result.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: a remote call did not return within %lld ms: it hangs\n",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  if (took != nullptr) {
    *took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  }
  return result.get();
}

InProcessServer::InProcessServer(server::ServerOptions options) : token_(random_token()) {
  options.port = 0;
  options.token = token_;
  server_ = server::Server::start(options);
}

InProcessServer::~InProcessServer() {
  if (server_) server_->shutdown();
}

std::string InProcessServer::address() const { return "127.0.0.1:" + std::to_string(server_->port()); }

void InProcessServer::use(std::chrono::milliseconds deadline) const {
  remote::configure({{address(), token_}}, deadline);
}

Child spawn(const std::string& path, const std::vector<std::string>& args, bool pipe_stdout) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int fds[2] = {-1, -1};
  if (pipe_stdout) {
    if (pipe2(fds, O_CLOEXEC) != 0) std::abort();
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  }
  Child child;
  const int rc = posix_spawn(&child.pid, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (pipe_stdout) {
    close(fds[1]);
    child.stdout_fd = fds[0];
  }
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << path << ": error " << rc;
    child.pid = -1;
  }
  return child;
}

std::optional<std::string> read_line(int fd, std::chrono::milliseconds limit) {
  std::string line;
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char c = 0;
    if (read(fd, &c, 1) != 1) return std::nullopt;
    if (c == '\n') return line;
    line += c;
  }
}

ServerProcess::ServerProcess(int port, std::string token, std::vector<std::string> extra) : token_(std::move(token)) {
  char tmpl[] = "/tmp/crossgrad-remote-test-XXXXXX";
  dir_ = mkdtemp(tmpl);
  const std::string port_file = dir_ + "/endpoint";
  std::vector<std::string> args = {"--backend", "Flex", "--port", std::to_string(port), "--token", token_,
                                   "--port-file", port_file};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = spawn(CROSSGRAD_SERVER_EXE, args, false).pid;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    std::ifstream in(port_file);
    std::string address;
    if (in >> address) {
      port_ = std::stoi(address.substr(address.rfind(':') + 1));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "crossgrad-server did not write " << port_file << " within 20 s";
}

ServerProcess::~ServerProcess() {
  kill_hard();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void ServerProcess::kill_hard() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ServerProcess::use(std::chrono::milliseconds deadline) const {
  remote::configure({{address(), token_}}, deadline);
}

}  // namespace crossgrad::remote_tests
