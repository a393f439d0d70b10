// crossgrad_bench: kernels on every registered backend, the OpenBLAS / memcpy anchors and the
// dispatch-overhead pairs, all registered at start-up from the backend registry.
#include "bench_common.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <cblas.h>

#include <string>

int main(int argc, char** argv) {
  crossgrad::bench::register_kernel_benchmarks();
  crossgrad::bench::register_anchor_benchmarks();
  crossgrad::bench::register_dispatch_benchmarks();
  crossgrad::bench::register_flex_internal_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("crossgrad.version", CROSSGRAD_VERSION);
  benchmark::AddCustomContext("flex.threads", std::to_string(crossgrad::flex::num_threads()));
  benchmark::AddCustomContext("flex.isa", crossgrad::flex::active_isa());
  benchmark::AddCustomContext("openblas.threads", std::to_string(openblas_get_num_threads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
