#pragma once
// Note [Size tiers]
// The shapes the size tests run, derived from Flex's tuning description (flex_tuning.hpp) so that
// they straddle each threshold wherever a constant moves: just below, at and just above every
// grain and split point, odd chunk counts, GEMM sizes around MR/NR multiples and MC/KC/NC +- 1
// with n > NC, batched products on both sides of the by-batch rule, reductions past the sum block
// and the column chunk, swap_dims through both of its copy paths.
//
// Two tiers: `quick` (ctest label sizes-quick, part of the default run) keeps one case on each
// side of every threshold and only cheap GEMMs; `full` (label sizes, only when asked for) adds
// the rest of the grid and the GEMMs that cross MC, KC and NC at once. Both are deterministic.
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/core/dtype.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace crossgrad::sizes {

enum class Tier { Quick, Full };
Tier tier();
void set_tier(Tier tier);
const char* tier_name();

// The largest thread count the tests plan Flex's splits for (see exec.hpp); chunk-count cases
// (4 chunks per thread at most) are sized for it.
std::size_t max_planned_threads();

// A flat element count and why it is there ("2*grain+1: 2 chunks, the first one longer").
struct FlatCase {
  std::size_t n;
  std::string why;
};
// Around parallel_range's split points for items of `grain` elements each.
std::vector<FlatCase> split_sizes(std::size_t grain);

struct GemmCase {
  std::vector<std::size_t> lhs;  // [..., m, k]
  std::vector<std::size_t> rhs;  // [..., k, n]
  std::string why;
};
std::vector<GemmCase> gemm_cases(DType dtype);
std::vector<GemmCase> batched_gemm_cases(DType dtype);

struct ShapeCase {
  std::vector<std::size_t> shape;
  std::size_t dim0 = 0, dim1 = 0;  // reduced dim (dim0), or the swapped pair
  std::string why;
};
// float_sum / float_mean element counts around the block rule.
std::vector<FlatCase> full_reduce_sizes();
// float_sum_dim / float_mean_dim: shape and dim.
std::vector<ShapeCase> dim_reduce_cases();
// float_swap_dims: shape and the pair of dims.
std::vector<ShapeCase> swap_cases();
// [rows, inner] shapes whose broadcast binary ops split by rows around the row grain.
std::vector<ShapeCase> broadcast_row_cases();

std::string shape_text(const std::vector<std::size_t>& shape);
std::size_t product(const std::vector<std::size_t>& shape);

}  // namespace crossgrad::sizes
