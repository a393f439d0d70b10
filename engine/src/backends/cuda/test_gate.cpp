// Cuda backend: when a Cuda test may skip (Note [Cuda test gate] in
// crossgrad/backends/cuda_testing.hpp). The rule is pure; the two facts about the machine are read
// from the file system and the dynamic loader.
#include <crossgrad/backends/cuda_testing.hpp>

#include <dlfcn.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>

namespace crossgrad::backends::cuda_testing {

Gate decide_gate(int probe_error, bool device_node_present, bool driver_library_loadable,
                 std::string_view probe_reason) {
  if (probe_error == 0) return {GateVerdict::Run, ""};
  const std::string reason(probe_reason);
  if (device_node_present) {
    return {GateVerdict::Fail, "an NVIDIA device node is present (/dev/nvidia*) but CUDA cannot use it: " + reason};
  }
  if (probe_error == kErrorNoDevice) {
    return {GateVerdict::Skip, "no NVIDIA device here (no /dev/nvidia* node): " + reason};
  }
  if (probe_error == kErrorInsufficientDriver) {
    if (driver_library_loadable) {
      return {GateVerdict::Fail,
              "the NVIDIA driver library (libcuda.so.1) loads but CUDA calls it insufficient (driver and runtime "
              "mismatch?): " + reason};
    }
    return {GateVerdict::Skip, "no NVIDIA driver or device here (no /dev/nvidia* node, no libcuda.so.1): " + reason};
  }
  return {GateVerdict::Fail, "the CUDA runtime failed in a way that does not mean \"no GPU\": " + reason};
}

bool nvidia_device_node_present() {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it("/dev", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "nvidiactl") return true;
    // /dev/nvidia0, /dev/nvidia1, ... (not nvidia-uvm, nvidia-modeset: those exist without a GPU too)
    if (name.size() > 6 && name.compare(0, 6, "nvidia") == 0 &&
        std::isdigit(static_cast<unsigned char>(name[6])) != 0) {
      return true;
    }
  }
  return false;
}

bool nvidia_driver_library_loadable() {
  // The library the CUDA runtime itself loads. Kept open: the runtime has it loaded already when it
  // works, and closing a driver library is not worth the risk.
  return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;
}

}  // namespace crossgrad::backends::cuda_testing
