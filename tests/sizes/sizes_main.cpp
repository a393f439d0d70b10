// The size tests' main: `--tier=quick` (default) or `--tier=full` picks the tier of
// Note [Size tiers]; `--list` prints that tier's cases instead of running them; every other
// argument goes to GoogleTest.
#include "exec.hpp"
#include "tier.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

namespace {

using namespace crossgrad::sizes;

void list_cases() {
  const auto& t = crossgrad::backends::flex::kTuning;
  std::cout << "thread counts:";
  for (std::size_t n : thread_counts()) std::cout << ' ' << n;
  std::cout << "\nelement-wise / data (grain " << t.elementwise_grain << "):\n";
  for (const auto& c : split_sizes(t.elementwise_grain)) std::cout << "  n=" << c.n << "  " << c.why << '\n';
  std::cout << "broadcast rows:\n";
  for (const auto& c : broadcast_row_cases()) std::cout << "  " << c.why << '\n';
  for (auto dtype : {crossgrad::DType::F32, crossgrad::DType::F64}) {
    std::cout << "gemm " << crossgrad::dtype_name(dtype) << ":\n";
    for (const auto& c : gemm_cases(dtype)) std::cout << "  " << c.why << '\n';
  }
  std::cout << "batched gemm:\n";
  for (const auto& c : batched_gemm_cases(crossgrad::DType::F32)) std::cout << "  " << c.why << '\n';
  std::cout << "float_sum / float_mean (block " << t.sum_block << "):\n";
  for (const auto& c : full_reduce_sizes()) std::cout << "  n=" << c.n << "  " << c.why << '\n';
  std::cout << "float_sum_dim / float_mean_dim:\n";
  for (const auto& c : dim_reduce_cases()) std::cout << "  " << c.why << '\n';
  std::cout << "float_swap_dims:\n";
  for (const auto& c : swap_cases()) std::cout << "  " << c.why << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tier=full") == 0) {
      set_tier(Tier::Full);
    } else if (std::strcmp(argv[i], "--tier=quick") == 0) {
      set_tier(Tier::Quick);
    } else if (std::strcmp(argv[i], "--list") == 0) {
      list = true;
    } else {
      std::cerr << "sizes_tests: unknown argument " << argv[i] << " (want --tier=quick, --tier=full, --list)\n";
      return 2;
    }
  }
  std::cout << "size tier: " << tier_name() << "\n";
  if (list) {
    list_cases();
    return 0;
  }
  return RUN_ALL_TESTS();
}
