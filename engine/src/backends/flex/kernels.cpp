// Run-time choice of Flex's kernel table.
#include "kernels.hpp"

#include <atomic>
#include <cstdlib>
#include <string_view>

namespace crossgrad::backends::flex {
namespace {

bool env_forces_portable() {
  const char* isa = std::getenv("CROSSGRAD_FLEX_ISA");
  return isa != nullptr && std::string_view(isa) == "portable";
}

std::atomic<bool>& forced_portable() {
  static std::atomic<bool> forced{env_forces_portable()};
  return forced;
}

}  // namespace

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

const KernelTable& kernels() {
  if (!forced_portable().load(std::memory_order_relaxed) && cpu_has_avx2_fma()) {
    return avx2_kernels();
  }
  return portable_kernels();
}

void force_portable_kernels(bool portable) {
  forced_portable().store(portable, std::memory_order_relaxed);
}

const char* active_isa() { return kernels().isa; }

}  // namespace crossgrad::backends::flex
