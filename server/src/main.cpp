// crossgrad-server: serves a local backend over gRPC until SIGTERM/SIGINT (flags.cpp's kUsage).
#include <crossgrad/server/server.hpp>

#include "flags.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <pthread.h>

namespace {

// Written to PATH.tmp then renamed, so a reader never sees half a line.
void write_port_file(const std::string& path, const std::string& endpoint) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << endpoint << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write the port file " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write the port file " + path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace crossgrad::server;
  // First of all: signals are taken by sigwait below, on this thread; every thread started later
  // (gRPC's) inherits the mask, so none of them can be killed by SIGTERM's default action.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  CommandLine cmd;
  try {
    cmd = parse_command_line(argc, argv, std::getenv("CROSSGRAD_REMOTE_TOKEN"));
  } catch (const std::exception& e) {
    std::cerr << "crossgrad-server: " << e.what() << std::endl;
    return 2;
  }
  if (cmd.help) {
    std::cout << kUsage;
    return 0;
  }
  std::unique_ptr<Server> server;
  try {
    server = Server::start(cmd.options);
    if (!cmd.port_file.empty()) write_port_file(cmd.port_file, server->endpoint());
  } catch (const std::exception& e) {
    std::cerr << "crossgrad-server: " << e.what() << std::endl;
    return 1;
  }
  std::cout << "crossgrad-server: serving " << cmd.options.backend << " on " << server->endpoint() << std::endl;

  int signal = 0;
  sigwait(&signals, &signal);
  std::cerr << "crossgrad-server: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << ", shutting down" << std::endl;
  server->shutdown();
  return 0;
}
