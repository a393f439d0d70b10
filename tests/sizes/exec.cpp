#include "exec.hpp"

#include "tier.hpp"

#include <algorithm>
#include <cstring>

namespace crossgrad::sizes {

namespace flex = backends::flex;

std::string ExecConfig::describe() const {
  if (!overrides) return "";
  return std::string(" [") + (portable ? "portable" : "native") + ", " + std::to_string(threads) + " thread" +
         (threads == 1 ? "" : "s") + "]";
}

std::vector<std::size_t> thread_counts() {
  // The pool's own size, read before any override is set.
  static const std::size_t pool_threads = [] {
    flex::set_num_threads_override(0);
    return flex::num_threads();
  }();
  std::vector<std::size_t> counts = {1, std::max<std::size_t>(2, pool_threads)};
  if (tier() == Tier::Full) {
    counts.push_back(2);
    counts.push_back(3);
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<bool> portable_choices() {
  flex::force_portable_kernels(false);
  const bool native_is_portable = std::strcmp(flex::active_isa(), "portable") == 0;
  if (native_is_portable) return {true};
  return {false, true};
}

std::vector<ExecConfig> flex_configs() {
  std::vector<ExecConfig> configs;
  for (bool portable : portable_choices()) {
    for (std::size_t threads : thread_counts()) configs.push_back({portable, threads, true});
  }
  return configs;
}

ScopedExec::ScopedExec(const ExecConfig& config) : active_(config.overrides) {
  if (!active_) return;
  flex::force_portable_kernels(config.portable);
  flex::set_num_threads_override(config.threads);
}

ScopedExec::~ScopedExec() {
  if (!active_) return;
  flex::force_portable_kernels(false);
  flex::set_num_threads_override(0);
}

}  // namespace crossgrad::sizes
