// Note [Flex GEMM]
// Goto/BLIS-style blocking. For each NC-wide column block of B and each KC-deep slice of K, the
// KC x NC block of B is packed once into NR-wide panels (shared by all threads); then tasks, each
// an MC-row block of A (times a share of the column block when there are few row blocks), pack
// their A block into MR-row panels and sweep the MR x NR micro-kernel (kernels.hpp: 6x16 floats
// or 6x8 doubles, AVX2/FMA or portable) over it. The first K slice stores into C, later ones add,
// so C is never read before it is written. Edge tiles go through a small local tile. Sizes: a
// KC x NR panel of B stays in L1, an MC x KC block of A in L2, the packed B block in L3.
// Products under ~64^3 multiply-adds skip packing and run a plain i-k-j loop.
#include "gemm.hpp"
#include "gemv.hpp"

#include "kernels.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace crossgrad::backends::flex {
namespace {

// Block sizes per element type (Note [Flex tuning]).
template <class T> struct Blocking {
  static constexpr const GemmBlocking& sizes = kTuning.gemm(sizeof(T) == sizeof(double));
  static constexpr std::size_t MR = sizes.mr, NR = sizes.nr, MC = sizes.mc, KC = sizes.kc, NC = sizes.nc;
};

// A grow-only 64-byte aligned scratch buffer, one per thread and element type.
template <class T>
class Scratch {
 public:
  T* get(std::size_t count) {
    if (count > capacity_) {
      data_.reset(static_cast<T*>(::operator new[](count * sizeof(T), std::align_val_t{64})));
      capacity_ = count;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(T* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t capacity_ = 0;
};

template <class T>
T* scratch_a(std::size_t count) {
  thread_local Scratch<T> buffer;
  return buffer.get(count);
}
template <class T>
T* scratch_b(std::size_t count) {
  thread_local Scratch<T> buffer;
  return buffer.get(count);
}
// All of A, packed by the calling thread's tasks and read by every task (gemm_few_rows).
template <class T>
T* scratch_shared_a(std::size_t count) {
  thread_local Scratch<T> buffer;
  return buffer.get(count);
}

// Packs rows [0, mc) x cols [0, kc) of A (row stride lda) into MR-row panels, zero-padded:
// panel r holds element (r*MR + i, p) at p*MR + i.
template <class T>
void pack_a(std::size_t mc, std::size_t kc, const T* a, std::size_t lda, T* out) {
  constexpr std::size_t MR = Blocking<T>::MR;
  for (std::size_t ir = 0; ir < mc; ir += MR) {
    const std::size_t mr = std::min(MR, mc - ir);
    const T* src = a + ir * lda;
    if (mr == MR) {
      for (std::size_t p = 0; p < kc; ++p) {
        for (std::size_t i = 0; i < MR; ++i) out[p * MR + i] = src[i * lda + p];
      }
    } else {
      for (std::size_t p = 0; p < kc; ++p) {
        for (std::size_t i = 0; i < MR; ++i) out[p * MR + i] = i < mr ? src[i * lda + p] : T(0);
      }
    }
    out += MR * kc;
  }
}

// Packs NR-column panel `panel` of the kc x nc block of B (row stride ldb), zero-padded:
// element (p, panel*NR + j) at p*NR + j.
template <class T>
void pack_b_panel(std::size_t panel, std::size_t kc, std::size_t nc, const T* b, std::size_t ldb,
                  T* packed) {
  constexpr std::size_t NR = Blocking<T>::NR;
  const std::size_t jr = panel * NR;
  const std::size_t nr = std::min(NR, nc - jr);
  T* out = packed + panel * NR * kc;
  const T* src = b + jr;
  if (nr == NR) {
    for (std::size_t p = 0; p < kc; ++p) std::memcpy(out + p * NR, src + p * ldb, NR * sizeof(T));
  } else {
    for (std::size_t p = 0; p < kc; ++p) {
      for (std::size_t j = 0; j < NR; ++j) out[p * NR + j] = j < nr ? src[p * ldb + j] : T(0);
    }
  }
}

// C block [mc x (panel range)] from a packed A block and packed B panels.
template <class T>
void macro_kernel(std::size_t mc, std::size_t nc, std::size_t kc, std::size_t panel_begin,
                  std::size_t panel_end, const T* packed_a, const T* packed_b, T* c,
                  std::size_t ldc, bool accumulate) {
  constexpr std::size_t MR = Blocking<T>::MR, NR = Blocking<T>::NR;
  const auto tile = typed_kernels<T>().gemm_tile;
  for (std::size_t panel = panel_begin; panel < panel_end; ++panel) {
    const std::size_t jr = panel * NR;
    const std::size_t nr = std::min(NR, nc - jr);
    const T* bp = packed_b + panel * NR * kc;
    for (std::size_t ir = 0; ir < mc; ir += MR) {
      const std::size_t mr = std::min(MR, mc - ir);
      const T* ap = packed_a + (ir / MR) * MR * kc;
      T* cp = c + ir * ldc + jr;
      if (mr == MR && nr == NR) {
        tile(kc, ap, bp, cp, ldc, accumulate);
      } else {
        alignas(64) T edge[MR * NR];
        tile(kc, ap, bp, edge, NR, false);
        for (std::size_t i = 0; i < mr; ++i) {
          for (std::size_t j = 0; j < nr; ++j) {
            cp[i * ldc + j] = accumulate ? cp[i * ldc + j] + edge[i * NR + j] : edge[i * NR + j];
          }
        }
      }
    }
  }
}

template <class T>
void gemm_small(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c) {
  std::fill(c, c + m * n, T(0));
  for (std::size_t i = 0; i < m; ++i) {
    T* row = c + i * n;
    for (std::size_t p = 0; p < k; ++p) {
      const T aip = a[i * k + p];
      const T* brow = b + p * n;
      for (std::size_t j = 0; j < n; ++j) row[j] += aip * brow[j];
    }
  }
}

template <class T>
void gemm_blocked(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c,
                  bool threaded) {
  using Bk = Blocking<T>;
  const std::size_t threads = threaded ? num_threads() : 1;
  for (std::size_t jc = 0; jc < n; jc += Bk::NC) {
    const std::size_t nc = std::min(Bk::NC, n - jc);
    const std::size_t panels = (nc + Bk::NR - 1) / Bk::NR;
    for (std::size_t pc = 0; pc < k; pc += Bk::KC) {
      const std::size_t kc = std::min(Bk::KC, k - pc);
      const bool accumulate = pc > 0;
      T* packed_b = scratch_b<T>(panels * Bk::NR * kc);
      const T* b_block = b + pc * n + jc;
      auto pack_b = [&](std::size_t panel) { pack_b_panel(panel, kc, nc, b_block, n, packed_b); };
      if (threads > 1 && panels >= 2 * threads) parallel_for(panels, pack_b);
      else for (std::size_t p = 0; p < panels; ++p) pack_b(p);

      // Tasks: row blocks of A x column shares, enough for every thread to have work. The row
      // block count is rounded up to a multiple of the thread count so that the blocks balance.
      std::size_t mc_blocks = (m + Bk::MC - 1) / Bk::MC;
      if (threads > 1 && mc_blocks > 1) mc_blocks = (mc_blocks + threads - 1) / threads * threads;
      std::size_t mc_step = (m + mc_blocks - 1) / mc_blocks;
      mc_step = std::min(Bk::MC, (mc_step + Bk::MR - 1) / Bk::MR * Bk::MR);
      mc_blocks = (m + mc_step - 1) / mc_step;
      std::size_t splits = 1;
      if (threads > 1) {
        while (mc_blocks * splits < 2 * threads && splits * 2 <= panels) splits *= 2;
      }
      const std::size_t panels_per_split = (panels + splits - 1) / splits;
      auto task = [&](std::size_t t) {
        const std::size_t block = t / splits, split = t % splits;
        const std::size_t ic = block * mc_step;
        const std::size_t mc = std::min(mc_step, m - ic);
        const std::size_t panel_begin = split * panels_per_split;
        const std::size_t panel_end = std::min(panels, panel_begin + panels_per_split);
        if (panel_begin >= panel_end) return;
        T* packed_a = scratch_a<T>(((mc + Bk::MR - 1) / Bk::MR) * Bk::MR * kc);
        pack_a(mc, kc, a + ic * k + pc, k, packed_a);
        macro_kernel(mc, nc, kc, panel_begin, panel_end, packed_a, packed_b, c + ic * n + jc, n,
                     accumulate);
      };
      const std::size_t tasks = mc_blocks * splits;
      if (threads > 1) parallel_for(tasks, task);
      else for (std::size_t t = 0; t < tasks; ++t) task(t);
    }
  }
}

// Few rows (m <= MC, one row block): the tasks are column shares, and in the general loop each
// would pack the same A block again for every KC slice, with two pool hand-offs per slice. Here
// all of A is packed once (MR panels per KC slice, one parallel_for), then each task owns a range
// of B's NR panels for the whole product: per KC slice it packs only its own panels, at most NC
// columns at a time, and sweeps the micro-kernel over them; one more parallel_for in all.
template <class T>
void gemm_few_rows(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c,
                   std::size_t threads) {
  using Bk = Blocking<T>;
  const std::size_t slices = (k + Bk::KC - 1) / Bk::KC;
  const std::size_t a_panels = (m + Bk::MR - 1) / Bk::MR;
  const std::size_t a_slice = a_panels * Bk::MR * Bk::KC;  // elements per packed KC slice of A
  T* packed_a = scratch_shared_a<T>(slices * a_slice);
  parallel_for(slices * a_panels, [&](std::size_t job) {
    const std::size_t slice = job / a_panels, panel = job % a_panels;
    const std::size_t pc = slice * Bk::KC, kc = std::min(Bk::KC, k - pc);
    const std::size_t ir = panel * Bk::MR;
    pack_a(std::min(Bk::MR, m - ir), kc, a + ir * k + pc, k, packed_a + slice * a_slice + panel * Bk::MR * kc);
  });
  const std::size_t panels = (n + Bk::NR - 1) / Bk::NR;
  const std::size_t shares = std::min(panels, 2 * threads);
  const std::size_t per_share = (panels + shares - 1) / shares;
  constexpr std::size_t kGroup = Bk::NC / Bk::NR;  // panels packed at a time
  parallel_for(shares, [&](std::size_t share) {
    const std::size_t first = share * per_share, last = std::min(panels, first + per_share);
    for (std::size_t g = first; g < last; g += kGroup) {
      const std::size_t group_end = std::min(last, g + kGroup);
      const std::size_t jc = g * Bk::NR, nc = std::min(n, group_end * Bk::NR) - jc;
      T* packed_b = scratch_b<T>((group_end - g) * Bk::NR * Bk::KC);
      for (std::size_t slice = 0; slice < slices; ++slice) {
        const std::size_t pc = slice * Bk::KC, kc = std::min(Bk::KC, k - pc);
        const T* b_block = b + pc * n + jc;
        for (std::size_t p = 0; p < group_end - g; ++p) pack_b_panel(p, kc, nc, b_block, n, packed_b);
        macro_kernel(m, nc, kc, 0, group_end - g, packed_a + slice * a_slice, packed_b, c + jc, n, slice > 0);
      }
    }
  });
}

constexpr std::size_t kSmallGemm = kTuning.gemm_small_work;        // multiply-adds below which no packing
constexpr std::size_t kThreadedGemm = kTuning.gemm_threaded_work;  // multiply-adds from which threads help
// gemm_few_rows packs all of A (at most MC rows) at once: up to this K (a 3 MiB float copy).
constexpr std::size_t kFewRowsMaxK = kTuning.gemm_few_rows_max_k;

template <class T>
void gemm_impl(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c,
               bool allow_threads) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, T(0));
    return;
  }
  const std::size_t work = m * n * k;  // m*n and k each fit (tensors exist); guard the product
  const bool huge = k != 0 && (m * n) > static_cast<std::size_t>(-1) / k;
  const bool threaded = allow_threads && (huge || work >= kThreadedGemm);
  if (m == 1 || n == 1) {  // memory-bound: gemv.cpp decides its own threading
    gemv(m, n, k, a, b, c, allow_threads);
    return;
  }
  if (!huge && work < kSmallGemm) {
    gemm_small(m, n, k, a, b, c);
    return;
  }
  using Bk = Blocking<T>;
  const std::size_t threads = threaded ? num_threads() : 1;
  if (threads > 1 && m <= Bk::MC && k <= kFewRowsMaxK) {
    gemm_few_rows(m, n, k, a, b, c, threads);
    return;
  }
  gemm_blocked(m, n, k, a, b, c, threaded);
}

}  // namespace

template <class T>
void gemm(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c) {
  gemm_impl(m, n, k, a, b, c, true);
}
template <class T>
void gemm_serial(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c) {
  gemm_impl(m, n, k, a, b, c, false);
}

template void gemm<float>(std::size_t, std::size_t, std::size_t, const float*, const float*, float*);
template void gemm<double>(std::size_t, std::size_t, std::size_t, const double*, const double*, double*);
template void gemm_serial<float>(std::size_t, std::size_t, std::size_t, const float*, const float*, float*);
template void gemm_serial<double>(std::size_t, std::size_t, std::size_t, const double*, const double*, double*);

}  // namespace crossgrad::backends::flex
