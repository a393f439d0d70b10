// Cuda backend: device discovery, errors, per-device streams, the caching allocator and tensor
// metadata. See Note [Cuda stream ordering] in cuda_common.cuh.
#include "cuda_common.cuh"

#include <crossgrad/backends/cuda_testing.hpp>

#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace crossgrad::backends {
namespace cuda_detail {
namespace {

// ---- device discovery -----------------------------------------------------------------------

struct Probe {
  int count = 0;
  cudaError_t error = cudaSuccess;  // cudaErrorNoDevice when the count is 0 without an error
  std::string reason;               // empty when count > 0
};

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

Probe run_probe() {
  Probe p;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    p.error = e;
    (void)cudaGetLastError();  // leave no error behind for the caller's next CUDA call
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaGetLastError();
    if (e == cudaErrorNoDevice) {
      p.reason = "no CUDA device is visible (cudaGetDeviceCount: " + std::string(cudaGetErrorString(e)) + ")";
    } else if (driver == 0) {
      p.reason = "no NVIDIA driver is loaded (cudaGetDeviceCount: " + std::string(cudaGetErrorString(e)) + ")";
    } else {
      int runtime = 0;
      (void)cudaRuntimeGetVersion(&runtime);
      (void)cudaGetLastError();
      p.reason = "cudaGetDeviceCount failed: " + std::string(cudaGetErrorString(e)) + " (driver supports CUDA " +
                 version_text(driver) + ", runtime is CUDA " + version_text(runtime) + ")";
    }
    return p;
  }
  if (count <= 0) {
    p.error = cudaErrorNoDevice;
    p.reason = "no CUDA device is present";
    return p;
  }
  p.count = count;
  return p;
}

// Probed once: the device count of a process does not change, and a failing probe (no driver)
// should cost its time once.
const Probe& probe() {
  static const Probe p = run_probe();
  return p;
}

// ---- streams --------------------------------------------------------------------------------

struct DeviceState {
  std::once_flag once;
  cudaStream_t stream = nullptr;
  int sms = 1;
};

// Leaked on purpose: tensors held in static storage may outlive any static destructor order, and
// destroying streams at exit races the CUDA runtime's own teardown.
DeviceState* device_states() {
  static DeviceState* states = new DeviceState[static_cast<std::size_t>(probe().count > 0 ? probe().count : 1)];
  return states;
}

DeviceState& state_of(int device) {
  if (device < 0 || device >= probe().count) {
    require_device(Device::cuda(device));  // panics with the reason
  }
  DeviceState& s = device_states()[device];
  std::call_once(s.once, [&] {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    s.sms = sms > 0 ? sms : 1;
  });
  return s;
}

// ---- caching allocator ----------------------------------------------------------------------

// Free blocks by capacity, per device. A request takes the smallest cached block that is at
// least its rounded size and at most 25% larger; otherwise it calls cudaMalloc, and when that runs
// out of memory, frees the device's cached blocks and tries once more.
struct Cache {
  std::mutex mu;
  std::vector<std::multimap<std::size_t, void*>> free_blocks;
  std::vector<CacheStats> stats;
};

Cache& cache() {
  static Cache* c = [] {
    auto* made = new Cache();  // leaked on purpose, see device_states()
    const std::size_t n = static_cast<std::size_t>(probe().count > 0 ? probe().count : 1);
    made->free_blocks.resize(n);
    made->stats.resize(n);
    return made;
  }();
  return *c;
}

std::size_t round_up(std::size_t bytes) {
  constexpr std::size_t kSmall = std::size_t{1} << 20;  // below 1 MiB: multiples of 512 bytes
  constexpr std::size_t kSmallStep = 512;
  constexpr std::size_t kLargeStep = std::size_t{2} << 20;  // from 1 MiB: multiples of 2 MiB
  const std::size_t step = bytes < kSmall ? kSmallStep : kLargeStep;
  return (bytes + step - 1) / step * step;
}

void* take_cached(int device, std::size_t capacity, std::size_t* got) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto& blocks = c.free_blocks[static_cast<std::size_t>(device)];
  auto it = blocks.lower_bound(capacity);
  if (it == blocks.end() || it->first > capacity + capacity / 4) return nullptr;
  void* p = it->second;
  *got = it->first;
  blocks.erase(it);
  c.stats[static_cast<std::size_t>(device)].cached -= *got;
  c.stats[static_cast<std::size_t>(device)].in_use += *got;
  return p;
}

}  // namespace

// ---- errors ---------------------------------------------------------------------------------

void fail(cudaError_t error, const char* call) {
  (void)cudaGetLastError();  // clears the error unless it is sticky
  cuda_testing::raise_cuda_error(static_cast<int>(error), call);
}

void check_launch(const char* kernel) {
  const cudaError_t e = injected(cudaGetLastError());
  if (e != cudaSuccess) fail(e, kernel);
}

// ---- devices --------------------------------------------------------------------------------

void require_device(const Device& device) {
  if (device.kind != Device::Kind::Cuda) {
    panic(PanicId::DeviceUnavailable, {{"device", device.to_string()},
                                       {"backend", "Cuda"},
                                       {"reason", "the Cuda backend runs on CUDA devices only"}});
  }
  const Probe& p = probe();
  if (p.count == 0) {
    panic(PanicId::DeviceUnavailable,
          {{"device", device.to_string()}, {"backend", "Cuda"}, {"reason", p.reason}});
  }
  if (device.index < 0 || device.index >= p.count) {
    panic(PanicId::DeviceUnavailable,
          {{"device", device.to_string()},
           {"backend", "Cuda"},
           {"reason", "this machine has " + std::to_string(p.count) + " CUDA device" + (p.count == 1 ? "" : "s") +
                          ", so the index must be below " + std::to_string(p.count)}});
  }
}

cudaStream_t activate(int device) {
  DeviceState& s = state_of(device);
  check(cudaSetDevice(device), "cudaSetDevice");
  return s.stream;
}

void synchronize(int device) {
  check(cudaStreamSynchronize(activate(device)), "cudaStreamSynchronize");
}

int sm_count(int device) { return state_of(device).sms; }

// ---- memory ---------------------------------------------------------------------------------

std::shared_ptr<CudaBuffer> allocate(int device, std::size_t bytes) {
  if (bytes == 0) return std::make_shared<CudaBuffer>(nullptr, 0, 0, device);
  const std::size_t capacity = round_up(bytes);
  std::size_t got = 0;
  if (void* p = take_cached(device, capacity, &got)) {
    return std::make_shared<CudaBuffer>(p, bytes, got, device);
  }
  activate(device);
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, capacity);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    release_cached(device);
    e = cudaMalloc(&p, capacity);
  }
  const cudaError_t reported = injected(e);
  if (reported != cudaSuccess) {
    if (e == cudaSuccess) (void)cudaFree(p);  // an injected failure: the block was allocated
    fail(reported, "cudaMalloc");
  }
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.stats[static_cast<std::size_t>(device)].in_use += capacity;
  }
  try {
    return std::make_shared<CudaBuffer>(p, bytes, capacity, device);
  } catch (...) {
    (void)cudaFree(p);
    throw;
  }
}

CacheStats cache_stats(int device) {
  if (device < 0 || device >= probe().count) return {};
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.stats[static_cast<std::size_t>(device)];
}

void release_cached(int device) {
  if (device < 0 || device >= probe().count) return;
  std::multimap<std::size_t, void*> blocks;
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    blocks.swap(c.free_blocks[static_cast<std::size_t>(device)]);
    c.stats[static_cast<std::size_t>(device)].cached = 0;
  }
  if (blocks.empty()) return;
  // A cached block may still be read or written by work enqueued before it was freed.
  synchronize(device);
  for (auto& [size, p] : blocks) check(cudaFree(p), "cudaFree");
}

CudaTensor make_tensor(Shape shape, DType dtype, const Device& device) {
  const std::size_t bytes = checked_tensor_bytes(shape, dtype);
  CudaTensor t;
  t.buffer = allocate(device.index, bytes);
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.dev = device;
  return t;
}

}  // namespace cuda_detail

CudaBuffer::~CudaBuffer() {
  if (ptr_ == nullptr) return;
  using namespace cuda_detail;
  try {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.free_blocks[static_cast<std::size_t>(device_)].emplace(capacity_, ptr_);
    c.stats[static_cast<std::size_t>(device_)].in_use -= capacity_;
    c.stats[static_cast<std::size_t>(device_)].cached += capacity_;
  } catch (...) {
    // Out of host memory for the free list: the block leaks rather than the process ending.
  }
}

// ---- struct Cuda: availability and metadata -----------------------------------------------------

bool Cuda::is_available() { return cuda_detail::probe().count > 0; }

std::string Cuda::unavailable_reason() { return cuda_detail::probe().reason; }

int Cuda::device_count() { return cuda_detail::probe().count; }

namespace cuda_testing {

// "out of memory (cudaErrorMemoryAllocation)": the runtime's sentence, then the name to search for.
void raise_cuda_error(int error, const char* call) {
  const auto code = static_cast<cudaError_t>(error);
  const std::string text = cudaGetErrorString(code);
  const std::string name = cudaGetErrorName(code);
  panic(PanicId::CudaError, {{"call", call}, {"error", name == text ? text : text + " (" + name + ")"}});
}

int probe_error() { return static_cast<int>(cuda_detail::probe().error); }

const Gate& gate() {
  static const Gate g = decide_gate(probe_error(), nvidia_device_node_present(), nvidia_driver_library_loadable(),
                                    cuda_detail::probe().reason);
  return g;
}

}  // namespace cuda_testing

Shape Cuda::shape(const CudaTensor& tensor) { return tensor.shape; }

DType Cuda::dtype(const CudaTensor& tensor) { return tensor.dtype; }

Device Cuda::device(const CudaTensor& tensor) { return tensor.dev; }

}  // namespace crossgrad::backends

namespace crossgrad::backends {

// Ops only enqueue on the device's stream; benchmarks and callers that time work wait here.
void Cuda::synchronize(const Device& device) {
  if (device.kind != Device::Kind::Cuda) return;
  cuda_detail::synchronize(device.index);
}

}  // namespace crossgrad::backends
