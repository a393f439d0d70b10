// crossgrad_bench: kernels on every registered backend, the OpenBLAS / memcpy anchors and the
// dispatch-overhead pairs, all registered at start-up from the backend registry.
#include "bench_common.hpp"

#include <crossgrad/backends/flex_tuning.hpp>
#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/backends/remote_config.hpp>
#include <crossgrad/server/server.hpp>

#include <cstdlib>
#include <memory>
#include <random>
#endif

#include <cblas.h>

#include <string>

#if CROSSGRAD_WITH_REMOTE
namespace {
// Remote is measured against a server on loopback: the one configured (CROSSGRAD_REMOTE /
// CROSSGRAD_REMOTE_FILE), else one started here, serving Flex with a random token, so that
// <op>/Remote/<size> sits beside <op>/Flex/<size> in every run. Returns where it runs.
std::string serve_remote(std::unique_ptr<crossgrad::server::Server>& server) {
  if (std::getenv("CROSSGRAD_REMOTE") != nullptr || std::getenv("CROSSGRAD_REMOTE_FILE") != nullptr) {
    return "configured";
  }
  std::random_device rd;
  std::string token;
  for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[rd() % 16];
  crossgrad::server::ServerOptions options;
  options.token = token;
  server = crossgrad::server::Server::start(options);
  crossgrad::remote::configure({crossgrad::remote::Endpoint{server->endpoint(), token}});
  return "in-process " + server->endpoint();
}
}  // namespace
#endif

int main(int argc, char** argv) {
#if CROSSGRAD_WITH_REMOTE
  std::unique_ptr<crossgrad::server::Server> server;
  const std::string remote_server = serve_remote(server);
#endif
  crossgrad::bench::register_kernel_benchmarks();
  crossgrad::bench::register_anchor_benchmarks();
  crossgrad::bench::register_dispatch_benchmarks();
  crossgrad::bench::register_flex_internal_benchmarks();
  crossgrad::bench::register_remote_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("crossgrad.version", CROSSGRAD_VERSION);
  benchmark::AddCustomContext("flex.threads", std::to_string(crossgrad::flex::num_threads()));
  benchmark::AddCustomContext("flex.isa", crossgrad::flex::active_isa());
  benchmark::AddCustomContext("openblas.threads", std::to_string(openblas_get_num_threads()));
#if CROSSGRAD_WITH_REMOTE
  benchmark::AddCustomContext("remote.server", remote_server);
#endif
#if CROSSGRAD_WITH_LIBTORCH
  // The plugin sets ATen's intra-op threads to Flex's count when it loads (backends/libtorch.hpp),
  // so <op>/LibTorch/<size> is an anchor at the same thread count.
  benchmark::AddCustomContext("libtorch.threads", std::to_string(crossgrad::flex::num_threads()));
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
