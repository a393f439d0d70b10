#pragma once
// Execution configurations: Flex runs every size case with each kernel table (AVX2/FMA when the
// CPU has it, and portable) and each planned thread count (1 and N; the full tier adds 2 and 3),
// switched in-process through flex_tuning.hpp's test-facing overrides. Other backends run once.
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_tuning.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace crossgrad::sizes {

struct ExecConfig {
  bool portable = false;
  std::size_t threads = 0;  // 0: the backend's own choice (no override)
  bool overrides = false;   // false for non-Flex backends
  std::string describe() const;
};

// 1 and N (N = the pool's size, at least 2); the full tier adds 2 and 3. Sorted, distinct.
std::vector<std::size_t> thread_counts();
// The kernel tables to run: native (when it is not already portable) and portable.
std::vector<bool> portable_choices();

std::vector<ExecConfig> flex_configs();

template <class B>
std::vector<ExecConfig> exec_configs() {
  if constexpr (std::is_same_v<B, backends::Flex>) return flex_configs();
  else return {ExecConfig{}};
}

// Applies a configuration for its lifetime; restores the defaults after.
class ScopedExec {
 public:
  explicit ScopedExec(const ExecConfig& config);
  ~ScopedExec();
  ScopedExec(const ScopedExec&) = delete;
  ScopedExec& operator=(const ScopedExec&) = delete;

 private:
  bool active_;
};

}  // namespace crossgrad::sizes
