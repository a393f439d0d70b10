// Finding and loading the ATen plugin (Note [The LibTorch plugin's ABI]). is_available() only
// looks for the file, so enumerating backends never loads libtorch (~0.6 s of CPU per process);
// the first op loads it.
#include "plugin.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#ifndef CROSSGRAD_LIBTORCH_BUILD_PLUGIN
#error "the build sets CROSSGRAD_LIBTORCH_BUILD_PLUGIN and CROSSGRAD_LIBTORCH_INSTALLED_PLUGIN"
#endif

namespace crossgrad::backends {
namespace libtorch {
namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

struct Loaded {
  const cg_aten_api* api = nullptr;
  std::string error;  // why not, when api is null
};

Loaded load() {
  const std::string path = plugin_path();
  if (!file_exists(path)) return {nullptr, "the LibTorch plugin " + path + " does not exist"};
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = ::dlerror();
    return {nullptr, "the LibTorch plugin " + path + " did not load (" + (err ? err : "unknown error") + ")"};
  }
  auto entry = reinterpret_cast<cg_aten_entry_fn>(::dlsym(lib, CG_ATEN_ENTRY));
  if (entry == nullptr) return {nullptr, "the LibTorch plugin " + path + " has no " CG_ATEN_ENTRY};
  const cg_aten_api* table = entry(CG_ATEN_ABI_VERSION);
  if (table == nullptr) return {nullptr, "the LibTorch plugin " + path + " speaks another ABI version"};
  // The same intra-op thread count as Flex, so benchmarks compare the two at equal threads.
  table->set_num_threads(static_cast<int32_t>(flex::num_threads()));
  return {table, {}};
}

const Loaded& loaded() {
  static const Loaded once = load();  // the library stays loaded for the process
  return once;
}

}  // namespace

std::string plugin_path() {
  if (const char* env = std::getenv("CROSSGRAD_LIBTORCH_PLUGIN"); env != nullptr && *env != '\0') return env;
  const std::string built = CROSSGRAD_LIBTORCH_BUILD_PLUGIN;
  if (file_exists(built)) return built;
  return CROSSGRAD_LIBTORCH_INSTALLED_PLUGIN;
}

const cg_aten_api& api() {
  const Loaded& l = loaded();
  if (l.api == nullptr) {
    panic(PanicId::DeviceUnavailable, {{"device", Device::cpu().to_string()},
                                       {"backend", std::string(LibTorch::name)},
                                       {"reason", l.error}});
  }
  return *l.api;
}

}  // namespace libtorch

bool LibTorch::is_available() { return libtorch::file_exists(libtorch::plugin_path()); }

std::string LibTorch::unavailable_reason() {
  if (is_available()) return {};
  return "the LibTorch plugin " + libtorch::plugin_path() + " does not exist";
}

}  // namespace crossgrad::backends
