// The Cuda backend's kernels, run on the CPU. <crossgrad/backends/cuda_kernels/kernels.cuh>, the
// header the backend's .cu files compile, is device code without any CUDA runtime API, so this
// file compiles the very same templates as plain C++ under a small emulation of the
// CUDA execution model: every CUDA thread of a block is an OS thread, __syncthreads is a
// std::barrier over the block, __shfl_down_sync exchanges through a per-warp slot array and
// barrier, __shared__ variables are function statics (blocks run one after another). That checks
// the kernels' index math, tiling, edge handling, grid-stride loops and block reductions on every
// machine, GPU or not; it says nothing about timing, memory-model or launch-configuration issues,
// which only a GPU run of cuda_backend_test can check.
//
// Needs no CUDA toolkit: it is built in every configuration.
#include <algorithm>
#include <barrier>
#include <bit>
#include <type_traits>
#include <new>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

// ---- the emulated CUDA execution model ----------------------------------------------------------

namespace emu {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local dim3 thread_index;
inline thread_local dim3 block_index;
inline dim3 block_dim;
inline dim3 grid_dim;

inline std::unique_ptr<std::barrier<>> block_barrier;
struct Warp {
  std::barrier<> barrier{32};
  std::uint64_t slot[32] = {};
};
inline std::vector<std::unique_ptr<Warp>> warps;

inline unsigned linear_thread() { return thread_index.x + block_dim.x * (thread_index.y + block_dim.y * thread_index.z); }

inline void syncthreads() { block_barrier->arrive_and_wait(); }

template <class T>
T shfl_down(T v, int offset) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t));
  const unsigned tid = linear_thread();
  const unsigned lane = tid % 32;
  Warp& w = *warps[tid / 32];
  std::memcpy(&w.slot[lane], &v, sizeof(T));
  w.barrier.arrive_and_wait();
  T out = v;
  if (lane + static_cast<unsigned>(offset) < 32) std::memcpy(&out, &w.slot[lane + offset], sizeof(T));
  w.barrier.arrive_and_wait();
  return out;
}

// A block's worth of OS threads, kept across blocks and launches: each block is one round of
// start barrier, kernel, done barrier.
class Pool {
 public:
  explicit Pool(unsigned size) : start_(size + 1), done_(size + 1) {
    for (unsigned t = 0; t < size; ++t) {
      threads_.emplace_back([this, t] {
        for (;;) {
          start_.arrive_and_wait();
          if (quit_) return;
          thread_index = dim3(t % block_dim.x, (t / block_dim.x) % block_dim.y, t / (block_dim.x * block_dim.y));
          block_index = current_block_;
          (*job_)();
          done_.arrive_and_wait();
        }
      });
    }
  }
  ~Pool() {
    quit_ = true;
    start_.arrive_and_wait();
    for (std::thread& th : threads_) th.join();
  }
  void run_block(dim3 block, const std::function<void()>& job) {
    current_block_ = block;
    job_ = &job;
    start_.arrive_and_wait();
    done_.arrive_and_wait();
  }

 private:
  std::barrier<> start_;
  std::barrier<> done_;
  std::vector<std::thread> threads_;
  dim3 current_block_;
  const std::function<void()>* job_ = nullptr;
  bool quit_ = false;
};

// Runs kernel() for every thread of every block; blocks one after another, the threads of a
// block concurrently. Block sizes must be whole warps (as every kernel here uses).
inline void launch(dim3 grid, dim3 block, const std::function<void()>& kernel) {
  grid_dim = grid;
  block_dim = block;
  const unsigned threads = block.x * block.y * block.z;
  block_barrier = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(threads));
  warps.clear();
  for (unsigned w = 0; w < threads / 32; ++w) warps.push_back(std::make_unique<Warp>());
  Pool pool(threads);
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) pool.run_block(dim3(bx, by, bz), kernel);
    }
  }
}

}  // namespace emu

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define threadIdx (::emu::thread_index)
#define blockIdx (::emu::block_index)
#define blockDim (::emu::block_dim)
#define gridDim (::emu::grid_dim)
#define __syncthreads() ::emu::syncthreads()
#define __shfl_down_sync(mask, v, offset) ::emu::shfl_down((v), (offset))
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
using std::isfinite;

#include <crossgrad/backends/cuda_kernels/kernels.cuh>
#include <crossgrad/backends/cuda_kernels/math_ops.cuh>

#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#undef __shared__

// ---- tests ----------------------------------------------------------------------------------------

#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

namespace cd = crossgrad::backends::cuda_detail;
using crossgrad::Device;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::NdArray;

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Buffers as cudaMalloc would give them: 256-byte aligned, so packs are aligned too.
template <class T>
struct DeviceLike {
  explicit DeviceLike(std::size_t n)
      : data(static_cast<T*>(::operator new((n > 0 ? n : 1) * sizeof(T), std::align_val_t{256}))), size(n) {}
  explicit DeviceLike(const std::vector<T>& v) : DeviceLike(v.size()) { std::copy(v.begin(), v.end(), data); }
  ~DeviceLike() { ::operator delete(data, std::align_val_t{256}); }
  DeviceLike(const DeviceLike&) = delete;
  DeviceLike& operator=(const DeviceLike&) = delete;
  std::vector<T> values() const { return std::vector<T>(data, data + size); }
  T* data;
  std::size_t size;
};

template <class T>
TensorData data_of(const std::vector<T>& v, const Shape& s) {
  if constexpr (sizeof(T) == 4) {
    return TensorData::from_f32(v, s);
  } else {
    return TensorData::from_f64(v, s);
  }
}
template <class T>
std::vector<T> values_of(const TensorData& d) {
  if constexpr (sizeof(T) == 4) {
    return d.to_f32();
  } else {
    return d.to_f64();
  }
}
NdArray::Tensor ref(const TensorData& d) { return NdArray::from_data(d, Device::cpu()); }

// ---- element-wise -------------------------------------------------------------------------------

struct Twice {
  float operator()(float x) const { return 2 * x; }
};

TEST(CudaKernelEmulation, MapCoversPacksTailsAndGridStride) {
  for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 1003u, 4096u}) {
    for (unsigned blocks : {1u, 3u}) {
      const std::vector<float> x = random_values<float>(n, 1);
      DeviceLike<float> in(x), out(n);
      emu::launch(blocks, 32, [&] { cd::map_kernel(in.data, out.data, n, Twice{}); });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out.data[i], 2 * x[i]) << "n " << n << " i " << i;
    }
  }
}

// The math ops' functors (math_ops.cuh) in map_kernel, against NdArray's kernels: on the CPU both
// call the same libm, so every element agrees bit for bit (NaN as a class), special values and the
// rounding ops' ties included. On a GPU the functors call CUDA's functions instead, which
// cuda_backend_test measures (within the ulp table's bounds).
template <class T, class Op>
void expect_math_op_matches_ndarray(const char* name, Op op, NdArray::Tensor (*ref_op)(const NdArray::Tensor&)) {
  std::vector<T> x = random_values<T>(1001, 7, -4, 4);
  const std::vector<T> large = random_values<T>(200, 8, -1e6, 1e6);
  x.insert(x.end(), large.begin(), large.end());
  const T inf = std::numeric_limits<T>::infinity();
  for (T v : {T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), T(1), T(-1), T(0.5), T(-0.5), T(1.5), T(2.5),
              T(-2.5), T(100), T(-100), T(1000), std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()}) {
    x.push_back(v);
  }
  const std::size_t n = x.size();
  DeviceLike<T> in(x), out(n);
  emu::launch(2, 64, [&] { cd::map_kernel(in.data, out.data, n, op); });
  const std::vector<T> want = values_of<T>(NdArray::into_data(ref_op(ref(data_of(x, Shape{n})))));
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(out.data[i])) << name << " at " << x[i];
    } else {
      using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      ASSERT_EQ(std::bit_cast<Bits>(out.data[i]), std::bit_cast<Bits>(want[i]))
          << name << " at " << x[i] << ": " << out.data[i] << " vs " << want[i];
    }
  }
}

TEST(CudaKernelEmulation, MathOpsMatchNdArray) {
#define CROSSGRAD_X(name, Functor, f32, f64)                                                  \
  expect_math_op_matches_ndarray<float>(#name " F32", cd::Functor{}, &NdArray::name);        \
  expect_math_op_matches_ndarray<double>(#name " F64", cd::Functor{}, &NdArray::name);
  CROSSGRAD_CUDA_MATH_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
}

// The scalar ops' functors (math_ops.cuh) against NdArray, bit for bit, over the same values and
// scalars at the edges (+-0, +-inf, NaN, converted-to-F32 ones like 0.1 and 1e39).
template <class T, template <class> class Op>
void expect_scalar_op_matches_ndarray(const char* name, NdArray::Tensor (*ref_op)(const NdArray::Tensor&, double)) {
  std::vector<T> x = random_values<T>(501, 9, -4, 4);
  const T inf = std::numeric_limits<T>::infinity();
  for (T v : {T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), T(1), T(-1), T(0.5), T(-2.5),
              std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()}) {
    x.push_back(v);
  }
  const std::size_t n = x.size();
  for (double s : {0.0, -0.0, 1.0, -2.5, 0.1, 1e39, 1e-50, 3.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    DeviceLike<T> in(x), out(n);
    emu::launch(2, 64, [&] { cd::map_kernel(in.data, out.data, n, Op<T>{static_cast<T>(s)}); });
    const std::vector<T> want = values_of<T>(NdArray::into_data(ref_op(ref(data_of(x, Shape{n})), s)));
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(out.data[i])) << name << " at " << x[i] << ", scalar " << s;
      } else {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        ASSERT_EQ(std::bit_cast<Bits>(out.data[i]), std::bit_cast<Bits>(want[i]))
            << name << " at " << x[i] << ", scalar " << s << ": " << out.data[i] << " vs " << want[i];
      }
    }
  }
}

TEST(CudaKernelEmulation, ScalarOpsMatchNdArray) {
#define CROSSGRAD_X(name, Functor, expr)                                              \
  expect_scalar_op_matches_ndarray<float, cd::Functor>(#name " F32", &NdArray::name); \
  expect_scalar_op_matches_ndarray<double, cd::Functor>(#name " F64", &NdArray::name);
  CROSSGRAD_CUDA_SCALAR_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
}

// The binary ops' functors (math_ops.cuh) in zip_kernel against NdArray, bit for bit, on every
// pair of values from a grid of edges and random values.
template <class T, class Op>
void expect_binary_op_matches_ndarray(const char* name, Op op,
                                      NdArray::Tensor (*ref_op)(const NdArray::Tensor&, const NdArray::Tensor&)) {
  std::vector<T> v = random_values<T>(40, 11, -6, 6);
  const T inf = std::numeric_limits<T>::infinity();
  for (T e : {T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::quiet_NaN(), T(1), T(-1), T(0.5), T(-2.5), T(3), T(0.1),
              std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min()}) {
    v.push_back(e);
  }
  std::vector<T> a, b;
  for (T x : v) {
    for (T y : v) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const std::size_t n = a.size();
  DeviceLike<T> da(a), db(b), out(n);
  emu::launch(2, 64, [&] { cd::zip_kernel(da.data, db.data, out.data, n, op); });
  const std::vector<T> want = values_of<T>(NdArray::into_data(ref_op(ref(data_of(a, Shape{n})), ref(data_of(b, Shape{n})))));
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(out.data[i])) << name << " at " << a[i] << ", " << b[i];
    } else {
      using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      ASSERT_EQ(std::bit_cast<Bits>(out.data[i]), std::bit_cast<Bits>(want[i]))
          << name << " at " << a[i] << ", " << b[i] << ": " << out.data[i] << " vs " << want[i];
    }
  }
}

TEST(CudaKernelEmulation, BinaryMathOpsMatchNdArray) {
#define CROSSGRAD_X(name, Functor, expr)                                                      \
  expect_binary_op_matches_ndarray<float>(#name " F32", cd::Functor{}, &NdArray::name);     \
  expect_binary_op_matches_ndarray<double>(#name " F64", cd::Functor{}, &NdArray::name);
  CROSSGRAD_CUDA_BINARY_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
}

struct Sub {
  template <class T>
  T operator()(T a, T b) const { return a - b; }
};

TEST(CudaKernelEmulation, ZipAndFill) {
  const std::size_t n = 1030;
  const std::vector<double> a = random_values<double>(n, 2), b = random_values<double>(n, 3);
  DeviceLike<double> da(a), db(b), dc(n);
  emu::launch(2, 64, [&] { cd::zip_kernel(da.data, db.data, dc.data, n, Sub{}); });
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dc.data[i], a[i] - b[i]);
  emu::launch(1, 32, [&] { cd::fill_kernel(dc.data, n - 1, 7.5); });
  for (std::size_t i = 0; i + 1 < n; ++i) ASSERT_EQ(dc.data[i], 7.5);
  ASSERT_EQ(dc.data[n - 1], a[n - 1] - b[n - 1]);  // one past the fill is untouched
}

TEST(CudaKernelEmulation, BroadcastMatchesTheReference) {
  const std::pair<Shape, Shape> cases[] = {
      {{2, 3}, {3}},       {{4, 1}, {1, 5}}, {{}, {5}},           {{4, 1, 3}, {2, 1}},
      {{3, 1, 2, 1, 2}, {1, 4, 1, 3, 1}}, {{5, 6, 7}, {6, 1}}, {{1, 1}, {1}}, {{9, 1, 7}, {9, 5, 1}},
  };
  unsigned seed = 10;
  for (const auto& [ls, rs] : cases) {
    const Shape out = crossgrad::rules::broadcast_shapes(ls, rs, "float_sub");
    const std::vector<float> l = random_values<float>(ls.num_elements(), ++seed);
    const std::vector<float> r = random_values<float>(rs.num_elements(), ++seed);
    const cd::Collapsed c = cd::collapse(out.dims(), {crossgrad::rules::broadcast_strides(ls, out),
                                                      crossgrad::rules::broadcast_strides(rs, out)});
    cd::Strided<std::uint32_t, 2> walk;
    ASSERT_TRUE(cd::fill_strided(c, walk));
    const std::size_t n = out.num_elements();
    DeviceLike<float> dl(l), dr(r), dout(n);
    emu::launch(2, 32, [&] {
      cd::broadcast_kernel(dl.data, dr.data, dout.data, static_cast<std::uint32_t>(n), walk, Sub{});
    });
    const TensorData want =
        NdArray::into_data(NdArray::float_sub(ref(data_of(l, ls)), ref(data_of(r, rs))));
    EXPECT_EQ(data_of(dout.values(), out), want) << ls.to_string() << " - " << rs.to_string();
  }
}

TEST(CudaKernelEmulation, CollapseMergesWhatWalksAsOne) {
  const cd::Collapsed same = cd::collapse({2, 3, 4}, {{12, 4, 1}, {12, 4, 1}});
  EXPECT_EQ(same.dims, std::vector<std::size_t>({24}));
  EXPECT_EQ(same.strides[0], std::vector<std::size_t>({1}));
  const cd::Collapsed row = cd::collapse({2, 3, 4}, {{12, 4, 1}, {0, 4, 1}});
  EXPECT_EQ(row.dims, std::vector<std::size_t>({2, 12}));
  const cd::Collapsed scalar = cd::collapse({1, 1}, {{0, 0}});
  EXPECT_TRUE(scalar.dims.empty());
}

TEST(CudaKernelEmulation, GatherIsSwapDims) {
  const Shape shapes[] = {{2, 3}, {2, 3, 4}, {1, 5, 1, 3}, {3, 4, 5, 6}};
  unsigned seed = 20;
  for (const Shape& shape : shapes) {
    const std::vector<double> x = random_values<double>(shape.num_elements(), ++seed);
    for (std::size_t d0 = 0; d0 < shape.rank(); ++d0) {
      for (std::size_t d1 = d0 + 1; d1 < shape.rank(); ++d1) {
        const Shape out = crossgrad::rules::swapped_shape(shape, d0, d1, "float_swap_dims");
        std::vector<std::size_t> strides = crossgrad::rules::contiguous_strides(shape);
        std::swap(strides[d0], strides[d1]);
        cd::Strided<std::uint64_t, 1> walk;
        ASSERT_TRUE(cd::fill_strided(cd::collapse(out.dims(), {strides}), walk));
        DeviceLike<double> din(x), dout(x.size());
        emu::launch(1, 64, [&] { cd::gather_kernel(din.data, dout.data, std::uint64_t{x.size()}, walk); });
        EXPECT_EQ(data_of(dout.values(), out),
                  NdArray::into_data(NdArray::float_swap_dims(ref(data_of(x, shape)), d0, d1)))
            << shape.to_string() << " " << d0 << "<->" << d1;
      }
    }
  }
}

// ---- reductions ---------------------------------------------------------------------------------

template <class T>
void expect_near_ref(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-9 * (1 + std::fabs(want[i]))) << what << " " << i;
    }
  }
}

TEST(CudaKernelEmulation, FullSumTwoPasses) {
  for (std::size_t n : {0u, 1u, 3u, 5u, 1000u, 5003u}) {
    for (bool mean : {false, true}) {
      const std::vector<float> x = random_values<float>(n, 30);
      DeviceLike<float> dx(x), dout(1);
      const unsigned blocks = 3;
      DeviceLike<double> partial(blocks);
      emu::launch(blocks, 32, [&] { cd::sum_partial_kernel(dx.data, n, partial.data); });
      emu::launch(1, 64, [&] { cd::sum_final_kernel(partial.data, blocks, dout.data, n, mean); });
      const auto r = ref(data_of(x, {n}));
      const TensorData want = NdArray::into_data(mean ? NdArray::float_mean(r) : NdArray::float_sum(r));
      expect_near_ref(dout.values(), want.to_f32(), "sum n " + std::to_string(n));
    }
  }
}

TEST(CudaKernelEmulation, SumAlongDims) {
  // Small on purpose: every block reduction is a dozen barriers among OS threads here.
  const Shape shapes[] = {{7}, {3, 5}, {5, 3}, {2, 70}, {3, 2, 4}, {2, 0, 3}, {3, 40, 2}};
  unsigned seed = 40;
  for (const Shape& shape : shapes) {
    const std::vector<double> x = random_values<double>(shape.num_elements(), ++seed);
    for (std::size_t dim = 0; dim < shape.rank(); ++dim) {
      for (bool mean : {false, true}) {
        std::size_t outer = 1, inner = 1;
        for (std::size_t d = 0; d < dim; ++d) outer *= shape[d];
        for (std::size_t d = dim + 1; d < shape.rank(); ++d) inner *= shape[d];
        const std::size_t len = shape[dim];
        const std::size_t total = outer * inner;
        DeviceLike<double> dx(x), dout(total);
        if (inner == 1) {
          emu::launch(2, 32, [&] { cd::rows_kernel(dx.data, dout.data, outer, len, mean); });
        } else {
          emu::launch(1, emu::dim3(cd::kColsX, cd::kColsY),
                      [&] { cd::cols_kernel(dx.data, dout.data, total, len, inner, mean); });
        }
        const auto r = ref(data_of(x, shape));
        const TensorData want =
            NdArray::into_data(mean ? NdArray::float_mean_dim(r, dim) : NdArray::float_sum_dim(r, dim));
        expect_near_ref(dout.values(), want.to_f64(), shape.to_string() + " dim " + std::to_string(dim));
      }
    }
  }
}

TEST(CudaKernelEmulation, QuantizeStatsFindMaxAndFirstNonFinite) {
  std::vector<float> x = random_values<float>(3001, 50, -3, 3);
  x[17] = -5.5f;
  x[2000] = std::numeric_limits<float>::infinity();
  x[2500] = std::numeric_limits<float>::quiet_NaN();
  const unsigned blocks = 3;
  DeviceLike<float> dx(x), maxes(blocks + 1);
  DeviceLike<std::uint64_t> firsts(blocks + 1);
  emu::launch(blocks, 64, [&] { cd::stats_partial_kernel(dx.data, x.size(), maxes.data, firsts.data); });
  emu::launch(1, 256, [&] { cd::stats_final_kernel(maxes.data, firsts.data, blocks, maxes.data + blocks, firsts.data + blocks); });
  EXPECT_EQ(maxes.data[blocks], 5.5f);
  EXPECT_EQ(firsts.data[blocks], 2000u);
  x[2000] = 1;
  x[2500] = 1;
  DeviceLike<float> finite(x);
  emu::launch(blocks, 64, [&] { cd::stats_partial_kernel(finite.data, x.size(), maxes.data, firsts.data); });
  emu::launch(1, 256, [&] { cd::stats_final_kernel(maxes.data, firsts.data, blocks, maxes.data + blocks, firsts.data + blocks); });
  EXPECT_EQ(firsts.data[blocks], cd::kNone);
}

// ---- matmul -------------------------------------------------------------------------------------

template <class T>
void run_matmul_case(const Shape& ls, const Shape& rs, bool tiled, unsigned seed) {
  const crossgrad::rules::MatmulPlan plan = crossgrad::rules::plan_matmul(ls, rs, "float_matmul");
  const std::vector<T> a = random_values<T>(ls.num_elements(), seed);
  const std::vector<T> b = random_values<T>(rs.num_elements(), seed + 1);
  DeviceLike<T> da(a), db(b), dc(plan.out.num_elements());
  cd::Strided<std::uint64_t, 2> batches;
  ASSERT_TRUE(cd::fill_strided(cd::collapse(plan.batch.dims(), {plan.lhs_batch_strides, plan.rhs_batch_strides}),
                               batches));
  const int M = static_cast<int>(plan.m), N = static_cast<int>(plan.n), K = static_cast<int>(plan.k);
  const std::string what = std::string(sizeof(T) == 4 ? "F32 " : "F64 ") + ls.to_string() + " x " + rs.to_string();
  if (tiled) {
    const int tiles_m = (M + cd::kBM - 1) / cd::kBM, tiles_n = (N + cd::kBN - 1) / cd::kBN;
    const unsigned blocks = static_cast<unsigned>(plan.batch_count) * tiles_m * tiles_n;
    const bool vec = K % 4 == 0 && N % 4 == 0;
    emu::launch(blocks, cd::kGemmThreads, [&] {
      if (vec) {
        cd::gemm_kernel<T, true>(da.data, db.data, dc.data, M, N, K, tiles_m, tiles_n, batches);
      } else {
        cd::gemm_kernel<T, false>(da.data, db.data, dc.data, M, N, K, tiles_m, tiles_n, batches);
      }
    });
  } else {
    const std::uint64_t total = plan.out.num_elements();
    emu::launch(2, 64, [&] {
      cd::small_gemm_kernel<T>(da.data, db.data, dc.data, plan.m, plan.n, plan.k, total, batches);
    });
  }
  const std::vector<T> want =
      values_of<T>(NdArray::into_data(NdArray::float_matmul(ref(data_of(a, ls)), ref(data_of(b, rs)))));
  const std::vector<T> got = dc.values();
  ASSERT_EQ(got.size(), want.size()) << what;
  if (!tiled) {
    EXPECT_EQ(got, want) << what << ": the small kernel repeats the reference's arithmetic";
    return;
  }
  const double eps = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  const double tol = 8.0 * K * K * eps;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(double(got[i]) - double(want[i])) <= tol) && bad++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", reference " << want[i];
    }
  }
}

TEST(CudaKernelEmulation, TiledMatmulEdgesAndLoads) {
  unsigned seed = 60;
  // Full tile, edge tiles with vector loads, edge tiles with scalar loads, k = 0, batches with
  // broadcast on either side, a thin k.
  const std::pair<Shape, Shape> cases[] = {
      {{130, 16}, {16, 132}}, {{129, 11}, {11, 131}}, {{40, 0}, {0, 36}},
      {{2, 1, 20, 12}, {2, 12, 24}}, {{17, 3}, {3, 19}}, {{3, 20, 8}, {8, 21}},
  };
  bool f64 = true;  // F64 on every other case: the same code, and each block is 256 OS threads
  for (const auto& [ls, rs] : cases) {
    run_matmul_case<float>(ls, rs, true, ++seed);
    if (f64) run_matmul_case<double>(ls, rs, true, ++seed);
    f64 = !f64;
  }
}

TEST(CudaKernelEmulation, SmallMatmulIsBitIdentical) {
  unsigned seed = 80;
  const std::pair<Shape, Shape> cases[] = {
      {{1, 1}, {1, 1}}, {{3, 4}, {4, 5}}, {{2, 3, 4}, {4, 2}}, {{2, 1, 3, 4}, {5, 4, 6}}, {{3, 0}, {0, 2}}, {{1, 70}, {70, 9}},
  };
  for (const auto& [ls, rs] : cases) {
    run_matmul_case<float>(ls, rs, false, ++seed);
    run_matmul_case<double>(ls, rs, false, ++seed);
  }
}

}  // namespace
