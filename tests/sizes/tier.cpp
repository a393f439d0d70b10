// The size tiers of Note [Size tiers], computed from flex::kTuning.
#include "tier.hpp"

#include "exec.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace crossgrad::sizes {
namespace {

using backends::flex::kTuning;

Tier current_tier = Tier::Quick;

bool full() { return current_tier == Tier::Full; }

std::string num(std::size_t v) { return std::to_string(v); }

// The smallest k with m * k * n >= work.
std::size_t k_reaching(std::size_t m, std::size_t n, std::size_t work) { return (work + m * n - 1) / (m * n); }

// Sorted by n, one case per n (the first reason wins).
std::vector<FlatCase> unique_sorted(std::vector<FlatCase> cases) {
  std::map<std::size_t, std::string> by_n;
  for (auto& c : cases) by_n.emplace(c.n, std::move(c.why));
  std::vector<FlatCase> out;
  for (auto& [n, why] : by_n) out.push_back({n, why});
  return out;
}

GemmCase gemm(std::size_t m, std::size_t k, std::size_t n, std::string why) {
  return {{m, k}, {k, n}, std::move(why) + " (m=" + num(m) + " k=" + num(k) + " n=" + num(n) + ")"};
}

}  // namespace

Tier tier() { return current_tier; }
void set_tier(Tier t) { current_tier = t; }
const char* tier_name() { return full() ? "full" : "quick"; }

std::size_t max_planned_threads() {
  const auto counts = thread_counts();
  return *std::max_element(counts.begin(), counts.end());
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

std::size_t product(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::vector<FlatCase> split_sizes(std::size_t g) {
  const std::size_t split = kTuning.split_min_grains * g;
  const std::size_t max_chunks = kTuning.chunks_per_thread * max_planned_threads();
  std::vector<FlatCase> c = {
      {split - 1, "split-1: serial"},
      {split + 1, "split+1: 2 chunks, the first one item longer"},
      {3 * g + 1, "3*grain+1: 3 chunks (odd count), the first one longer"},
      {(max_chunks + 1) * g + 3, "(cap+1)*grain+3: chunk count capped at threads*chunks_per_thread, uneven chunks"},
  };
  if (full()) {
    c.push_back({g - 1, "grain-1: serial"});
    c.push_back({g, "grain: serial"});
    c.push_back({split, "split: 2 chunks of one grain"});
    c.push_back({3 * g - 1, "3*grain-1: 2 chunks"});
    c.push_back({3 * g, "3*grain: 3 equal chunks"});
    c.push_back({5 * g + 3, "5*grain+3: 5 chunks"});
    c.push_back({7 * g + 6, "7*grain+6: 7 chunks, 6 one longer"});
    c.push_back({max_chunks * g - 1, "max chunks*grain-1: one chunk below the cap"});
    c.push_back({max_chunks * g, "max chunks*grain: exactly the cap"});
  }
  return unique_sorted(std::move(c));
}

std::vector<GemmCase> gemm_cases(DType dtype) {
  const auto& b = kTuning.gemm(dtype == DType::F64);
  const std::size_t S = kTuning.gemm_small_work, W = kTuning.gemm_threaded_work;
  std::vector<GemmCase> c;
  // Path switches by work: plain loop | blocked serial | blocked threaded.
  c.push_back(gemm(64, 63, 64, "work just below small_work: plain loop"));
  c.push_back(gemm(64, 64, 64, "work = small_work: blocked, serial"));
  c.push_back(gemm(128, 64, 128, "work = threaded_work: blocked, threaded"));
  // Micro-tile edges: m one past an MR multiple, n one short of an NR multiple.
  {
    const std::size_t m = 11 * b.mr + 1, n = 5 * b.nr - 1;
    c.push_back(gemm(m, k_reaching(m, n, S), n, "MR/NR edge tiles, serial"));
  }
  // Block edges, serial.
  {
    const std::size_t n = 4 * b.nr + 3, m = b.mc + 1;
    c.push_back(gemm(m, std::max(b.kc / 8, k_reaching(m, n, S)), n, "MC+1: a last row block of 1 row"));
  }
  c.push_back(gemm(2 * b.mr + 1, b.kc + 1, 3 * b.nr + 5, "KC+1: a last K slice of depth 1 (accumulates)"));
  {
    const std::size_t m = b.mr + 1, n = b.nc + 1;
    c.push_back(gemm(m, k_reaching(m, n, S), n, "NC+1: a last column block of 1 column"));
  }
  // Threaded.
  {
    const std::size_t m = 2 * b.mc + b.mr + 1, n = b.nc + b.nr + 1;
    c.push_back(gemm(m, std::max<std::size_t>(9, k_reaching(m, n, W)), n,
                     "threaded, 3 row blocks rounded to the threads, n > NC"));
  }
  {
    const std::size_t m = 5 * b.mr + 1, n = 16 * b.nr + 3;
    c.push_back(gemm(m, k_reaching(m, n, W), n, "threaded, one row block split over column panels"));
  }
  c.push_back(gemm(b.mc + 1, b.kc + 1, 2 * b.nr + 1, "threaded, MC+1 and KC+1"));
  if (full()) {
    c.push_back(gemm(128, 63, 128, "work just below threaded_work: serial"));
    c.push_back(gemm(128, 65, 128, "work just above threaded_work"));
    for (std::size_t m : {10 * b.mr - 1, 10 * b.mr, 10 * b.mr + 1}) {
      for (std::size_t n : {4 * b.nr - 1, 4 * b.nr, 4 * b.nr + 1}) {
        c.push_back(gemm(m, k_reaching(m, n, S) + 1, n, "MR/NR multiples +-1"));
      }
    }
    for (std::size_t m : {b.mc - 1, b.mc, b.mc + 1, 2 * b.mc + 1, 3 * b.mc + b.mr - 1}) {
      c.push_back(gemm(m, b.kc / 8, 4 * b.nr + 3, "MC +-1 and multiples"));
    }
    for (std::size_t k : {b.kc - 1, b.kc, b.kc + 1, 2 * b.kc + 1}) {
      c.push_back(gemm(2 * b.mr + 1, k, 3 * b.nr + 5, "KC +-1 and multiples"));
    }
    for (std::size_t n : {b.nc - 1, b.nc, b.nc + 1, 2 * b.nc + b.nr + 1}) {
      c.push_back(gemm(b.mr + 1, 13, n, "NC +-1 and n > 2*NC"));
    }
    c.push_back(gemm(3 * b.mc + 1, b.kc, 2 * b.nr + 1, "threaded, 4 row blocks"));
    c.push_back(gemm(b.mc + b.mr + 1, b.kc + 1, b.nc + b.nr + 1, "threaded, past MC, KC and NC at once"));
  }
  return c;
}

std::vector<GemmCase> batched_gemm_cases(DType dtype) {
  (void)dtype;  // the batch rule does not depend on the dtype
  const std::size_t S = kTuning.batch_enough_work;
  std::vector<GemmCase> c = {
      {{3, 65, 64}, {3, 64, 66}, "by batch, each product blocked (per-entry work >= small_work)"},
      {{2, 1, 40, 40}, {1, 3, 40, 41}, "by batch, broadcast batch dims"},
      {{2, 40, 40}, {2, 40, 40}, "one entry at a time: too little work in total"},
  };
  if (full()) {
    // Total work exactly at and one row below batch_enough_work.
    const std::size_t k = S / (4 * 32 * 32);
    c.push_back({{4, 32, k}, {4, k, 32}, "total work = batch_enough_work: by batch"});
    c.push_back({{4, 32, k - 1}, {4, k - 1, 32}, "total work below batch_enough_work: in turn"});
    c.push_back({{2, 128, 128}, {2, 128, 127}, "per-entry work just below batch_small_matrix_work: by batch"});
    c.push_back({{2, 128, 128}, {2, 128, 128}, "per-entry work = batch_small_matrix_work: in turn, threaded"});
    c.push_back({{5, 1, 7, 300}, {1, 3, 300, 129}, "broadcast batch of blocked products"});
  }
  for (auto& g : c) g.why += " (" + shape_text(g.lhs) + " x " + shape_text(g.rhs) + ")";
  return c;
}

std::vector<FlatCase> full_reduce_sizes() {
  const std::size_t sb = kTuning.sum_block, bg = kTuning.sum_block_grain;
  const std::size_t max_chunks = kTuning.chunks_per_thread * max_planned_threads();
  std::vector<FlatCase> c = {
      {2 * sb - 1, "2*block-1: one kernel call"},
      {2 * sb + 1, "2*block+1: 3 blocks, the last of 1 element"},
      {4 * sb, "4*block: 4 whole blocks over 2 chunks"},
      {5 * sb + 3, "5*block+3: 6 blocks over 3 chunks (odd)"},
  };
  if (full()) {
    c.push_back({sb - 1, "block-1"});
    c.push_back({sb, "block"});
    c.push_back({2 * sb, "2*block: 2 whole blocks"});
    c.push_back({4 * sb + 1, "4*block+1: 5 blocks, 2 uneven chunks"});
    c.push_back({7 * sb, "7*block: 7 blocks, 3 chunks"});
    c.push_back({(bg * max_chunks + 1) * sb + 7, "past the chunk cap of the block split"});
  }
  return unique_sorted(std::move(c));
}

std::vector<ShapeCase> dim_reduce_cases() {
  const std::size_t g = kTuning.elementwise_grain, sb = kTuning.sum_block;
  const std::size_t chunk = kTuning.reduce_column_chunk;
  std::vector<ShapeCase> c;
  // inner == 1: contiguous row sums, rows split with grain g / d.
  const std::size_t d = 1000;
  for (const auto& rows : split_sizes(g / d)) {
    c.push_back({{rows.n, d}, 1, 0, "row sums, rows " + rows.why});
  }
  c.push_back({{3, g + 1}, 1, 0, "3 rows longer than a grain: grain 1"});
  // inner > 1: column chunks of reduce_column_chunk.
  c.push_back({{5, 8, chunk + 1}, 1, 0, "inner = chunk+1: 2 column chunks, the last of 1"});
  c.push_back({{3, 8, chunk - 1}, 1, 0, "inner = chunk-1: one column chunk"});
  c.push_back({{7, 3 * chunk + 5}, 0, 0, "dim 0, 4 column chunks over threads"});
  // A reduced dim past reduce_row_block: row blocks, each over column chunks of reduce_block_chunk.
  const std::size_t rb = kTuning.reduce_row_block, bc = kTuning.reduce_block_chunk;
  c.push_back({{2, rb + 3, bc + 1}, 1, 0, "row blocks (the last of 3 rows) in 2 block chunks, the last of 1"});
  // Every dim of one tensor with a dim past the sum block.
  for (std::size_t dim = 0; dim < 3; ++dim) {
    c.push_back({{3, sb + 5, 2}, dim, 0, "each dim of [3, block+5, 2]"});
  }
  if (full()) {
    c.push_back({{1, g + 1}, 1, 0, "1 row longer than a grain"});
    c.push_back({{2, g + 1}, 1, 0, "2 rows longer than a grain"});
    for (std::size_t inner : {chunk, 2 * chunk + 1}) {
      c.push_back({{5, 8, inner}, 1, 0, "inner around the column chunk"});
    }
    for (std::size_t dim = 0; dim < 4; ++dim) {
      c.push_back({{2, 3, chunk + 1, 11}, dim, 0, "each dim of a rank-4 tensor"});
    }
    c.push_back({{2 * sb + 3, 2}, 0, 0, "dim 0 longer than 2 sum blocks"});
    c.push_back({{rb, 2 * bc + 1}, 0, 0, "dim 0 = row block: column chunks, no blocks"});
    c.push_back({{rb + 1, 2 * bc + 1}, 0, 0, "dim 0 = row block+1: a last block of 1 row, 3 block chunks"});
    c.push_back({{3, 4 * rb, 2 * bc}, 1, 0, "4 whole row blocks, 2 whole block chunks"});
  }
  for (auto& s : c) s.why += " " + shape_text(s.shape) + " dim " + num(s.dim0);
  return c;
}

std::vector<ShapeCase> swap_cases() {
  const std::size_t g = kTuning.elementwise_grain, tile = kTuning.transpose_tile;
  std::vector<ShapeCase> c;
  // The transpose path (two innermost dims): matrices split with grain g / (n0 * n1).
  const std::size_t side = tile + 1;
  for (const auto& a : split_sizes(g / (side * side))) {
    c.push_back({{a.n, side, side}, 1, 2, "transposes, matrices " + a.why});
  }
  c.push_back({{1, 2 * tile + 1, 8 * tile - 1}, 2, 1, "one matrix, tile edges"});
  // The row path with C > 1: rows of n0 * c elements, grain g / (n0 * c).
  const std::size_t n0 = 16, cc = 4;
  for (const auto& rows : split_sizes(g / (n0 * cc))) {
    c.push_back({{n0, rows.n, cc}, 0, 1, "row copies of runs, rows " + rows.why});
  }
  // The row path with C = 1 and B > 1: one element per gathered run.
  const std::size_t rows_grain = g / 64;
  c.push_back({{64, 3, (2 * rows_grain - 1) / 3}, 0, 2, "element gathers, rows below the split"});
  c.push_back({{64, 3, (2 * rows_grain + 2) / 3}, 0, 2, "element gathers, rows above the split"});
  if (full()) {
    for (std::size_t r : {tile - 1, tile, tile + 1, 2 * tile + 1}) {
      for (std::size_t col : {tile - 1, tile + 1}) c.push_back({{3, r, col}, 2, 1, "tile edges"});
    }
    c.push_back({{5, 7, 9, 11, 13}, 1, 3, "rank 5, middle dims"});
    c.push_back({{3, 1000, 1001}, 1, 2, "three large transposes"});
  }
  for (auto& s : c) s.why += " " + shape_text(s.shape) + " swap " + num(s.dim0) + "," + num(s.dim1);
  return c;
}

std::vector<ShapeCase> broadcast_row_cases() {
  const std::size_t g = kTuning.elementwise_grain;
  std::vector<ShapeCase> c;
  const std::size_t inner = 1000;
  for (const auto& rows : split_sizes(g / inner)) {
    c.push_back({{rows.n, inner}, 0, 0, "rows " + rows.why});
  }
  c.push_back({{3, g + 3}, 0, 0, "3 rows longer than a grain"});
  for (auto& s : c) s.why += " " + shape_text(s.shape);
  return c;
}

}  // namespace crossgrad::sizes
