// Positions an op does not read get a gradient of exactly +0, whatever they hold: inputs with inf,
// -inf and NaN at those positions (rows a slice or select leaves out, the clamped-away sides of
// clamp, relu's negative side, the non-maximal elements of max_dim, every element of x^p when p
// rounds to 0) must not leak into the gradient. A backward rule that builds its zeros from the
// input (x * 0, or a mask multiplied into a function of x) puts NaN there; random values rarely
// put specials exactly where the op does not look, so this property does it on purpose.
//
// One table, `unread_positions`, says for every registry op where it reads nothing: an exhaustive
// switch over OpId (-Werror=switch-enum), so a new op fails the build until it is described. One
// test per op the table gives a generator, on every tested backend, F32 and F64.
#include "gen/backends.hpp"
#include "gen/op_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

using Dims = std::vector<std::size_t>;

// A case: the receiver (operand 0; any other operands after it), the op's arguments, and which
// elements of the receiver the op does not read.
struct UnreadCase {
  std::vector<og::HostArray> operands;
  og::OpArgs args;
  std::vector<bool> unread;
};
using UnreadGenerator = UnreadCase (*)(DType);

std::size_t pick(std::size_t lo, std::size_t hi_inclusive) {
  return *rc::gen::resize(100, rc::gen::inRange<std::size_t>(lo, hi_inclusive + 1));
}
double round_to(DType d, double v) { return d == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

Dims small_shape(std::size_t min_rank) {
  Dims s(pick(min_rank, 3));
  for (std::size_t& d : s) d = pick(1, 4);
  return s;
}

// Ordinary finite values for the positions the op reads.
double readable(DType d) { return round_to(d, static_cast<double>(*rc::gen::inRange(-200, 201)) / 64.0); }
// One of the given specials for a position the op does not read.
double special(const std::vector<double>& specials) { return *rc::gen::elementOf(specials); }
const std::vector<double> kAnySpecial{INFINITY, -INFINITY, NAN};

// Row-major coordinates of element i of `shape`.
Dims coords(std::size_t i, const Dims& shape) {
  Dims c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

// Fills `x` from `unread`: specials where the op does not read, ordinary values elsewhere.
og::HostArray filled(const Dims& shape, DType d, const std::vector<bool>& unread, const std::vector<double>& specials) {
  og::HostArray x{shape, d, std::vector<double>(unread.size())};
  for (std::size_t i = 0; i < unread.size(); ++i) x.values[i] = unread[i] ? special(specials) : readable(d);
  return x;
}

// The steps (round, floor, ceil, trunc, sign): their gradient is +0 everywhere (docs/OPS.md), so no
// position is read, also at the jumps (integers, half-integers, +-0) and for inf and NaN.
UnreadCase step_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.unread.assign(og::element_count(s), true);
  og::HostArray x{s, d, std::vector<double>(c.unread.size())};
  for (double& v : x.values) {
    v = *rc::gen::arbitrary<bool>() ? special({INFINITY, -INFINITY, NAN, 0.0, -0.0, 0.5, -0.5, 2.5, -1.5, 3.0, -7.0})
                                     : readable(d);
  }
  c.operands = {x};
  return c;
}

// float_slice: everything outside the ranges.
UnreadCase slice_case(DType d) {
  const Dims s = small_shape(1);
  UnreadCase c;
  for (std::size_t dim = 0, n = pick(1, s.size()); dim < n; ++dim) {
    const std::size_t start = pick(0, s[dim] - 1);
    c.args.ranges.push_back(Range{start, pick(start + 1, s[dim])});
  }
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    for (std::size_t dim = 0; dim < c.args.ranges.size(); ++dim) {
      if (at[dim] < c.args.ranges[dim].start || at[dim] >= c.args.ranges[dim].end) c.unread[i] = true;
    }
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}

// float_select: the rows along dim that no index names.
UnreadCase select_case(DType d) {
  const Dims s = small_shape(1);
  UnreadCase c;
  c.args.dim = pick(0, s.size() - 1);
  std::vector<double> idx(pick(1, 4));
  for (double& v : idx) v = static_cast<double>(pick(0, s[c.args.dim] - 1));
  std::vector<bool> named(s[c.args.dim], false);
  for (double v : idx) named[static_cast<std::size_t>(v)] = true;
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) c.unread[i] = !named[coords(i, s)[c.args.dim]];
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{{idx.size()}, DType::I64, idx}};
  return c;
}

// Random per-element indices along a random dim of `s` (gather's and scatter's), and the
// receiver's elements they name.
struct PerElementIndices {
  std::size_t dim = 0;
  Dims shape;
  std::vector<double> values;
  std::vector<bool> named;
};
PerElementIndices per_element_indices(const Dims& s) {
  PerElementIndices p;
  p.dim = pick(0, s.size() - 1);
  p.shape = s;
  p.shape[p.dim] = pick(1, 4);
  p.values.resize(og::element_count(p.shape));
  for (double& v : p.values) v = static_cast<double>(pick(0, s[p.dim] - 1));
  p.named.assign(og::element_count(s), false);
  for (std::size_t e = 0; e < p.values.size(); ++e) {
    Dims at = coords(e, p.shape);
    at[p.dim] = static_cast<std::size_t>(p.values[e]);
    std::size_t flat = 0;
    for (std::size_t k = 0; k < s.size(); ++k) flat = flat * s[k] + at[k];
    p.named[flat] = true;
  }
  return p;
}

// float_gather: the elements of each lane along dim that none of that lane's indices names.
UnreadCase gather_case(DType d) {
  const Dims s = small_shape(1);
  const PerElementIndices p = per_element_indices(s);
  UnreadCase c;
  c.args.dim = p.dim;
  c.unread.resize(p.named.size());
  for (std::size_t i = 0; i < p.named.size(); ++i) c.unread[i] = !p.named[i];
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{p.shape, DType::I64, p.values}};
  return c;
}

// float_scatter with Assign: the receiver's elements some value replaces (duplicates land on one
// element: the last value wins, and the element is still not read).
UnreadCase scatter_assign_case(DType d) {
  const Dims s = small_shape(1);
  const PerElementIndices p = per_element_indices(s);
  UnreadCase c;
  c.args.dim = p.dim;
  c.args.update = IndexingUpdateOp::Assign;
  c.unread = p.named;
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{p.shape, DType::I64, p.values},
                filled(p.shape, d, std::vector<bool>(p.values.size(), false), kAnySpecial)};
  return c;
}

// float_gather_nd: the elements of the receiver's first k dims that no index row names (k = 1 or 2).
UnreadCase gather_nd_case(DType d) {
  const Dims s = small_shape(1);
  UnreadCase c;
  const std::size_t k = pick(1, std::min<std::size_t>(2, s.size()));
  const std::size_t rows = pick(1, 4);
  std::vector<double> idx;
  c.unread.assign(og::element_count(s), true);
  std::size_t block = 1;
  for (std::size_t j = k; j < s.size(); ++j) block *= s[j];
  for (std::size_t m = 0; m < rows; ++m) {
    std::size_t row = 0;
    for (std::size_t j = 0; j < k; ++j) {
      idx.push_back(static_cast<double>(pick(0, s[j] - 1)));
      row = row * s[j] + static_cast<std::size_t>(idx.back());
    }
    for (std::size_t b = 0; b < block; ++b) c.unread[row * block + b] = false;
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{{rows, k}, DType::I64, idx}};
  return c;
}

// embedding: the table rows no index names are not read; indices [b, s] drawn from the rows
// (repeats included), the table [rows, d] of 1..4 x 1..4.
UnreadCase embedding_case(DType d) {
  const Dims s{pick(1, 4), pick(1, 4)};
  const Dims positions{pick(1, 2), pick(1, 3)};
  UnreadCase c;
  c.unread.assign(og::element_count(s), true);
  std::vector<double> idx;
  for (std::size_t p = 0; p < og::element_count(positions); ++p) {
    const std::size_t row = pick(0, s[0] - 1);
    idx.push_back(static_cast<double>(row));
    for (std::size_t j = 0; j < s[1]; ++j) c.unread[row * s[1] + j] = false;
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{positions, DType::I64, idx}};
  return c;
}

// float_mask_where / float_mask_fill: where the mask is true the receiver is not read (the value
// or the fill is taken); mask and value have the receiver's shape.
UnreadCase masked_case(DType d, bool with_value) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.unread.resize(og::element_count(s));
  std::vector<double> mask(c.unread.size());
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    c.unread[i] = *rc::gen::arbitrary<bool>();
    mask[i] = c.unread[i] ? 1 : 0;
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial), og::HostArray{s, DType::Bool, mask}};
  if (with_value) c.operands.push_back(filled(s, d, std::vector<bool>(c.unread.size(), false), kAnySpecial));
  c.args.scalar = 0.75;
  return c;
}
UnreadCase mask_where_case(DType d) { return masked_case(d, true); }
// float_mask_select: where the mask is false the receiver is not read.
UnreadCase mask_select_case(DType d) {
  UnreadCase c = masked_case(d, false);
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    c.unread[i] = !c.unread[i];
    c.operands[1].values[i] = c.unread[i] ? 0 : 1;
  }
  c.operands[0] = filled(c.operands[0].shape, d, c.unread, kAnySpecial);
  return c;
}
UnreadCase mask_fill_case(DType d) { return masked_case(d, false); }

// float_unfold: the positions along dim no complete window covers (a step longer than the window
// skips some; the tail past the last window).
UnreadCase unfold_case(DType d) {
  const Dims s = small_shape(1);
  UnreadCase c;
  c.args.dim = pick(0, s.size() - 1);
  c.args.size = pick(1, 3);
  c.args.step = pick(1, 4);
  const std::size_t len = s[c.args.dim];
  std::vector<bool> covered(len, false);
  if (c.args.size <= len) {
    for (std::size_t w = 0; w <= (len - c.args.size) / c.args.step; ++w) {
      for (std::size_t k = 0; k < c.args.size; ++k) covered[w * c.args.step + k] = true;
    }
  }
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) c.unread[i] = !covered[coords(i, s)[c.args.dim]];
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}

// avg_pool2d and avg_pool1d (N pooled dims): with a stride past the kernel, the cells between
// windows (and those past the last floor-mode window) are in no window. No padding: a window's
// cells are then input cells.
template <std::size_t N, class Options>
UnreadCase avg_pool_case(DType d, Options og::OpArgs::*field) {
  UnreadCase c;
  Options& o = c.args.*field;
  Dims s{pick(1, 2), pick(1, 2)};
  for (std::size_t k = 0; k < N; ++k) s.push_back(pick(1, 7));
  std::vector<bool> covered[N];
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t len = s[2 + k];
    o.kernel_size[k] = pick(1, std::min<std::size_t>(2, len));
    o.stride[k] = pick(1, 4);
    covered[k].assign(len, false);
    for (std::size_t w = 0; w <= (len - o.kernel_size[k]) / o.stride[k]; ++w) {
      for (std::size_t j = 0; j < o.kernel_size[k]; ++j) covered[k][w * o.stride[k] + j] = true;
    }
  }
  o.count_include_pad = pick(0, 1) == 1;
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    for (std::size_t k = 0; k < N; ++k) c.unread[i] = c.unread[i] || !covered[k][at[2 + k]];
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}
UnreadCase avg_pool2d_case(DType d) { return avg_pool_case<2>(d, &og::OpArgs::avg_pool2d); }
UnreadCase avg_pool1d_case(DType d) { return avg_pool_case<1>(d, &og::OpArgs::avg_pool1d); }

// unfold4d: with a stride past the kernel, the rows and columns between blocks are in no block
// (no padding, dilation 1: a block's cells are input cells).
UnreadCase unfold4d_case(DType d) {
  UnreadCase c;
  const Dims s{pick(1, 2), pick(1, 2), pick(1, 7), pick(1, 7)};
  std::vector<bool> covered[2];
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t len = s[2 + k];
    c.args.unfold_kernel[k] = pick(1, std::min<std::size_t>(2, len));
    c.args.unfold.stride[k] = pick(1, 4);
    covered[k].assign(len, false);
    for (std::size_t w = 0; w <= (len - c.args.unfold_kernel[k]) / c.args.unfold.stride[k]; ++w) {
      for (std::size_t j = 0; j < c.args.unfold_kernel[k]; ++j) covered[k][w * c.args.unfold.stride[k] + j] = true;
    }
  }
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    c.unread[i] = !covered[0][at[2]] || !covered[1][at[3]];
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}

// interpolate, nearest: shrinking a dim by a whole factor f reads every f-th cell (s = f exactly,
// source index o f); the cells between are read by no output.
UnreadCase interpolate_case(DType d) {
  UnreadCase c;
  Size2 factor{};
  Dims s{pick(1, 2), pick(1, 2), 0, 0};
  for (std::size_t k = 0; k < 2; ++k) {
    factor[k] = pick(1, 3);
    c.args.output_size[k] = pick(1, 3);
    s[2 + k] = factor[k] * c.args.output_size[k];
  }
  c.args.interpolate = InterpolateOptions{InterpolateMode::Nearest, pick(0, 1) == 1};  // align_corners plays no part
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    c.unread[i] = at[2] % factor[0] != 0 || at[3] % factor[1] != 0;
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}

// fold4d: with padding, the block cells that land in it are added nowhere.
UnreadCase fold4d_case(DType d) {
  UnreadCase c;
  UnfoldOptions& o = c.args.unfold;
  Size2& k = c.args.unfold_kernel;
  Size2 blocks{};
  for (std::size_t e = 0; e < 2; ++e) {
    k[e] = pick(1, 3);
    o.stride[e] = pick(1, 2);
    o.padding[e] = pick(1, 2);
    o.dilation[e] = 1;
    c.args.output_size[e] = pick(1, 5);
    const std::size_t padded = c.args.output_size[e] + 2 * o.padding[e];
    if (k[e] > padded) k[e] = padded;
    blocks[e] = (padded - k[e]) / o.stride[e] + 1;
  }
  const Dims s{pick(1, 2), pick(1, 2) * k[0] * k[1], blocks[0] * blocks[1]};
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    const std::size_t cell = at[1] % (k[0] * k[1]);
    const std::size_t y = at[2] / blocks[1] * o.stride[0] + cell / k[1], x = at[2] % blocks[1] * o.stride[1] + cell % k[1];
    c.unread[i] = y < o.padding[0] || y - o.padding[0] >= c.args.output_size[0] || x < o.padding[1] ||
                  x - o.padding[1] >= c.args.output_size[1];
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial)};
  return c;
}

// float_slice_assign: the receiver's elements inside the block are replaced, not read; the values
// (of the block's shape) are all read.
UnreadCase slice_assign_case(DType d) {
  const Dims s = small_shape(1);
  UnreadCase c;
  Dims block;
  for (std::size_t k = 0; k < s.size(); ++k) {
    const std::size_t start = pick(0, s[k]);
    c.args.ranges.push_back(Range{start, pick(start, s[k])});
    block.push_back(c.args.ranges.back().end - start);
  }
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    const Dims at = coords(i, s);
    bool inside = true;
    for (std::size_t k = 0; k < s.size(); ++k) inside = inside && at[k] >= c.args.ranges[k].start && at[k] < c.args.ranges[k].end;
    c.unread[i] = inside;
  }
  c.operands = {filled(s, d, c.unread, kAnySpecial),
                filled(block, d, std::vector<bool>(og::element_count(block), false), kAnySpecial)};
  return c;
}

// hard_sigmoid with alpha > 0: where alpha x + beta is below 0 or above 1 (-inf and +inf there;
// a NaN is read: it passes the clamp).
UnreadCase hard_sigmoid_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.args.alpha = 0.25;
  c.args.beta = 0.5;
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) c.unread[i] = *rc::gen::arbitrary<bool>();
  og::HostArray x = filled(s, d, c.unread, {INFINITY, -INFINITY, round_to(d, 3e38), -7.5});
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    if (!c.unread[i]) x.values[i] = std::fmod(std::fabs(x.values[i]), 1.5);  // inside: |x| < 2
  }
  c.operands = {x};
  return c;
}

// relu: the negative side (-inf there; NaN and +inf are read: relu passes them through).
UnreadCase relu_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) c.unread[i] = *rc::gen::arbitrary<bool>();
  og::HostArray x = filled(s, d, c.unread, {-INFINITY, round_to(d, -3e38), -1.5});
  // A read position holds a positive value: 0 and -0 are on the zero-gradient side too.
  for (std::size_t i = 0; i < x.values.size(); ++i) if (!c.unread[i]) x.values[i] = std::fabs(x.values[i]) + 0.25;
  c.operands = {x};
  return c;
}

// float_clamp: below min (-inf there) and above max (+inf there); the bounds themselves are read.
UnreadCase clamp_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.args.min = round_to(d, -1.0 - static_cast<double>(pick(0, 4)) / 4);
  c.args.max = round_to(d, 1.0 + static_cast<double>(pick(0, 4)) / 4);
  og::HostArray x{s, d, std::vector<double>(og::element_count(s))};
  c.unread.resize(x.values.size());
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    switch (pick(0, 2)) {
      case 0: x.values[i] = -INFINITY; c.unread[i] = true; break;
      case 1: x.values[i] = INFINITY; c.unread[i] = true; break;
      default: x.values[i] = round_to(d, static_cast<double>(*rc::gen::inRange(-63, 64)) / 64.0); break;
    }
  }
  c.operands = {x};
  return c;
}

// float_clamp_min / float_clamp_max: the clamped-away side (-inf below min, +inf above max); x at
// the bound itself and a NaN x are read (both pass their gradient). A NaN bound makes every
// element NaN whatever x holds, so then nothing is read.
UnreadCase one_bound_case(DType d, bool is_min) {
  const Dims s = small_shape(0);
  UnreadCase c;
  const bool nan_bound = pick(0, 4) == 0;
  const double bound = round_to(d, (is_min ? -1.0 : 1.0) * (1.0 + static_cast<double>(pick(0, 4)) / 4));
  c.args.scalar = nan_bound ? NAN : bound;
  og::HostArray x{s, d, std::vector<double>(og::element_count(s))};
  c.unread.resize(x.values.size());
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    if (nan_bound) {
      x.values[i] = special({INFINITY, -INFINITY, NAN, 0.0, -0.0, 1.5});
      c.unread[i] = true;
      continue;
    }
    switch (pick(0, 3)) {
      case 0: x.values[i] = is_min ? -INFINITY : INFINITY; c.unread[i] = true; break;
      case 1: x.values[i] = bound; break;
      default: x.values[i] = round_to(d, static_cast<double>(*rc::gen::inRange(-63, 64)) / 64.0); break;
    }
  }
  c.operands = {x};
  return c;
}
UnreadCase clamp_min_case(DType d) { return one_bound_case(d, true); }
UnreadCase clamp_max_case(DType d) { return one_bound_case(d, false); }

// float_max_dim: every element below its slice's maximum (-inf there); each slice keeps a finite
// maximum of 3 at one position, the other read values stay below it. float_min_dim: the same with
// the signs flipped (+inf above a minimum of -3).
UnreadCase extreme_dim_case(DType d, double sign) {
  const Dims s = small_shape(1);
  UnreadCase c;
  c.args.dim = pick(0, s.size() - 1);
  const std::size_t n = og::element_count(s);
  og::HostArray x{s, d, std::vector<double>(n)};
  c.unread.assign(n, false);
  const std::size_t winner = pick(0, s[c.args.dim] - 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (coords(i, s)[c.args.dim] == winner) {
      x.values[i] = sign * 3;
    } else {
      x.values[i] = -sign * INFINITY;
      c.unread[i] = true;
    }
  }
  c.operands = {x};
  return c;
}
UnreadCase max_dim_case(DType d) { return extreme_dim_case(d, 1.0); }
UnreadCase min_dim_case(DType d) { return extreme_dim_case(d, -1.0); }

// float_max / float_min: the whole tensor is one slice: a finite extreme of 3 (-3) at one
// position, -inf (+inf) everywhere else.
UnreadCase extreme_all_case(DType d, double sign) {
  const Dims s = small_shape(0);
  UnreadCase c;
  const std::size_t n = og::element_count(s);
  og::HostArray x{s, d, std::vector<double>(n, -sign * INFINITY)};
  c.unread.assign(n, true);
  const std::size_t winner = pick(0, n - 1);
  x.values[winner] = sign * 3;
  c.unread[winner] = false;
  c.operands = {x};
  return c;
}
UnreadCase max_case(DType d) { return extreme_all_case(d, 1.0); }
UnreadCase min_case(DType d) { return extreme_all_case(d, -1.0); }

// float_powf_scalar with an exponent that is 0 in the dtype (0, -0, and 1e-50 in F32): x^0 = 1
// for every x, NaN included, so no element is read.
UnreadCase powf_zero_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.args.scalar = d == DType::F32 ? *rc::gen::elementOf(std::vector<double>{0.0, -0.0, 1e-50, -1e-50}) : *rc::gen::elementOf(std::vector<double>{0.0, -0.0});
  c.unread.assign(og::element_count(s), true);
  og::HostArray x = filled(s, d, c.unread, {INFINITY, -INFINITY, NAN, 0.0, -0.0});
  c.operands = {x};
  return c;
}

// leaky_relu with a slope that is 0 in the dtype (0, -0, and 1e-50 in F32): every x <= 0 (also
// -0, -inf, whose value is -inf * 0 = NaN, and NaN, which fails x > 0) gets g * 0, made +0; the
// positive ones are read.
UnreadCase leaky_relu_zero_slope_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.args.scalar = d == DType::F32 ? *rc::gen::elementOf(std::vector<double>{0.0, -0.0, 1e-50, -1e-50}) : *rc::gen::elementOf(std::vector<double>{0.0, -0.0});
  c.unread.resize(og::element_count(s));
  for (std::size_t i = 0; i < c.unread.size(); ++i) c.unread[i] = *rc::gen::arbitrary<bool>();
  og::HostArray x = filled(s, d, c.unread, {-INFINITY, NAN, -0.0, 0.0, round_to(d, -3e38), -1.5});
  for (std::size_t i = 0; i < x.values.size(); ++i) if (!c.unread[i]) x.values[i] = std::fabs(x.values[i]) + 0.25;
  c.operands = {x};
  return c;
}

// float_powf: the base where the exponent is +-0 (x^0 = 1 for every x, NaN included); the
// exponent tensor has the base's shape, 0 at the unread positions and ordinary values elsewhere.
UnreadCase powf_tensor_zero_case(DType d) {
  const Dims s = small_shape(0);
  UnreadCase c;
  c.unread.resize(og::element_count(s));
  og::HostArray p{s, d, std::vector<double>(c.unread.size())};
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    c.unread[i] = *rc::gen::arbitrary<bool>();
    p.values[i] = c.unread[i] ? special({0.0, -0.0}) : round_to(d, static_cast<double>(*rc::gen::inRange(1, 9)) / 4.0);
  }
  og::HostArray x = filled(s, d, c.unread, {INFINITY, -INFINITY, NAN, 0.0, -0.0});
  for (std::size_t i = 0; i < c.unread.size(); ++i) {
    if (!c.unread[i]) x.values[i] = std::fabs(x.values[i]) + 0.5;  // positive bases where read
  }
  c.operands = {x, p};
  return c;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#pragma GCC diagnostic error "-Wswitch-enum"
// Where each registry op reads nothing of its receiver, as a generator of such cases; nullopt:
// the op reads every element of every operand (or has no gradient at all).
std::optional<UnreadGenerator> unread_positions(OpId op) {
  switch (op) {
    case OpId::float_slice: return slice_case;
    case OpId::float_select: return select_case;
    case OpId::float_gather: return gather_case;
    case OpId::float_gather_nd: return gather_nd_case;
    case OpId::embedding: return embedding_case;
    case OpId::float_scatter: return scatter_assign_case;
    case OpId::float_mask_where: return mask_where_case;
    case OpId::float_mask_select: return mask_select_case;
    case OpId::float_unfold: return unfold_case;
    case OpId::avg_pool2d: return avg_pool2d_case;
    case OpId::avg_pool1d: return avg_pool1d_case;
    case OpId::unfold4d: return unfold4d_case;
    case OpId::fold4d: return fold4d_case;
    case OpId::interpolate: return interpolate_case;
    case OpId::float_slice_assign: return slice_assign_case;
    case OpId::hard_sigmoid: return hard_sigmoid_case;
    case OpId::float_mask_fill: return mask_fill_case;
    case OpId::relu: return relu_case;
    case OpId::float_clamp: return clamp_case;
    case OpId::float_clamp_min: return clamp_min_case;
    case OpId::float_clamp_max: return clamp_max_case;
    case OpId::float_max_dim: return max_dim_case;
    case OpId::float_min_dim: return min_dim_case;
    case OpId::float_max: return max_case;
    case OpId::float_min: return min_case;
    case OpId::float_powf_scalar: return powf_zero_case;
    case OpId::leaky_relu: return leaky_relu_zero_slope_case;
    case OpId::float_powf: return powf_tensor_zero_case;
    case OpId::float_round:
    case OpId::float_floor:
    case OpId::float_ceil:
    case OpId::float_trunc:
    case OpId::float_sign:
      return step_case;
    // Every element of every operand is read (a zero derivative at some values, as abs at 0 or
    // mul by 0, still reads the value: inf * 0 is NaN).
    case OpId::float_add:
    case OpId::float_sub:
    case OpId::float_mul:
    case OpId::float_div:
    case OpId::float_matmul:
    case OpId::linear:
    case OpId::layer_norm:
    case OpId::batch_norm:
    case OpId::conv2d:  // the padding is not an element
    case OpId::conv_transpose2d:
    case OpId::conv1d:
    case OpId::conv_transpose1d:
    case OpId::conv3d:
    case OpId::conv_transpose3d:
    case OpId::float_neg:
    case OpId::float_exp:
    case OpId::float_log:
    case OpId::float_sqrt:
    case OpId::float_tanh:
    case OpId::sigmoid:
    case OpId::float_add_scalar:
    case OpId::float_mul_scalar:
    case OpId::float_sum:
    case OpId::float_mean:
    case OpId::float_sum_dim:
    case OpId::float_mean_dim:
    case OpId::float_reshape:
    case OpId::float_swap_dims:
    case OpId::float_cast:
    case OpId::float_abs:
    case OpId::float_cat:
    case OpId::float_select_assign:  // out = x, then += values at the indices: every x is read
    case OpId::float_select_add:
    case OpId::float_scatter_add:
    case OpId::float_scatter_nd:  // as scatter's; its Assign rows are pinned by ScatterUpdateOps tests
    case OpId::float_repeat_dim:  // every element is copied (times = 0 reads nothing, but has no result either)
    case OpId::float_sort:  // every element is compared (a NaN is the largest: topk keeps it first)
    case OpId::float_topk:
    case OpId::float_cummin:  // every element is compared (a NaN anywhere in a prefix is kept)
    case OpId::float_cummax:
    case OpId::float_permute:
    case OpId::float_flip:
    case OpId::float_transpose:
    case OpId::softmin:
    case OpId::float_hypot:
    case OpId::float_cross:
    case OpId::prelu:  // x is read everywhere (a only where x <= 0)
    case OpId::float_expand:
    case OpId::float_cumsum:
    case OpId::float_cumprod:  // after a zero the value is 0 * x: still read (0 * NaN is NaN)
    case OpId::softmax:
    case OpId::log_softmax:
    case OpId::float_log1p:
    case OpId::float_cos:
    case OpId::float_sin:
    case OpId::float_tan:
    case OpId::float_cosh:
    case OpId::float_sinh:
    case OpId::float_acos:
    case OpId::float_acosh:
    case OpId::float_asin:
    case OpId::float_asinh:
    case OpId::float_atan:
    case OpId::float_atanh:
    case OpId::float_erf:
    case OpId::float_recip:
    case OpId::float_sub_scalar:
    case OpId::float_div_scalar:
    case OpId::log_sigmoid:
    case OpId::gelu:
    case OpId::float_remainder_scalar:
    case OpId::float_remainder:
    case OpId::float_atan2:
    case OpId::float_prod:
    case OpId::float_prod_dim:
    // max_abs reads every element too in the sense this property needs: inf and NaN, the only
    // specials, are always maxima of |x| (a NaN is kept, inf is the largest magnitude), so no
    // special can sit where max_abs does not look.
    case OpId::float_max_abs:
    case OpId::float_max_abs_dim:
    // No gradient flows (Int and Bool results, new leaves).
    case OpId::float_greater_scalar:
    case OpId::bool_into_float:
    case OpId::int_into_float:
    case OpId::float_into_int:
    case OpId::int_add:
    case OpId::int_sub:
    case OpId::int_mul:
    case OpId::int_div:
    case OpId::int_remainder:
    case OpId::int_neg:
    case OpId::int_abs:
    case OpId::int_sign:
    case OpId::int_add_scalar:
    case OpId::int_sub_scalar:
    case OpId::int_mul_scalar:
    case OpId::int_div_scalar:
    case OpId::int_remainder_scalar:
    case OpId::bool_not:
    case OpId::bool_and:
    case OpId::bool_or:
    case OpId::bool_xor:
    case OpId::int_equal:
    case OpId::int_not_equal:
    case OpId::int_greater:
    case OpId::int_greater_equal:
    case OpId::int_lower:
    case OpId::int_lower_equal:
    case OpId::bool_equal:
    case OpId::bool_not_equal:
    case OpId::bitwise_and:
    case OpId::bitwise_or:
    case OpId::bitwise_xor:
    case OpId::bitwise_left_shift:
    case OpId::bitwise_right_shift:
    case OpId::int_equal_elem:
    case OpId::int_not_equal_elem:
    case OpId::int_greater_elem:
    case OpId::int_greater_equal_elem:
    case OpId::int_lower_elem:
    case OpId::int_lower_equal_elem:
    case OpId::bitwise_not:
    case OpId::bitwise_and_scalar:
    case OpId::bitwise_or_scalar:
    case OpId::bitwise_xor_scalar:
    case OpId::bitwise_left_shift_scalar:
    case OpId::bitwise_right_shift_scalar:
    case OpId::int_cast:
    case OpId::bool_into_int:
    case OpId::int_sum:
    case OpId::int_sum_dim:
    case OpId::int_prod:
    case OpId::int_prod_dim:
    case OpId::int_mean:
    case OpId::int_mean_dim:
    case OpId::int_max:
    case OpId::int_min:
    case OpId::int_max_dim:
    case OpId::int_min_dim:
    case OpId::int_argmax:
    case OpId::int_argmin:
    case OpId::int_any:
    case OpId::int_all:
    case OpId::bool_any:
    case OpId::bool_all:
    case OpId::int_clamp:
    case OpId::int_clamp_min:
    case OpId::int_clamp_max:
    case OpId::int_square:
    case OpId::int_any_dim:
    case OpId::int_all_dim:
    case OpId::bool_any_dim:
    case OpId::bool_all_dim:
    case OpId::int_max_abs:
    case OpId::int_max_abs_dim:
    case OpId::int_reshape:
    case OpId::int_swap_dims:
    case OpId::int_permute:
    case OpId::int_transpose:
    case OpId::int_expand:
    case OpId::int_flip:
    case OpId::int_repeat_dim:
    case OpId::int_unfold:
    case OpId::int_cat:
    case OpId::int_slice:
    case OpId::int_slice_assign:
    case OpId::int_select:
    case OpId::bool_reshape:
    case OpId::bool_swap_dims:
    case OpId::bool_permute:
    case OpId::bool_transpose:
    case OpId::bool_expand:
    case OpId::bool_flip:
    case OpId::bool_repeat_dim:
    case OpId::bool_unfold:
    case OpId::bool_cat:
    case OpId::bool_slice:
    case OpId::bool_slice_assign:
    case OpId::bool_select:
    case OpId::int_gather:
    case OpId::int_gather_nd:
    case OpId::int_mask_where:
    case OpId::int_mask_select:
    case OpId::bool_gather:
    case OpId::bool_gather_nd:
    case OpId::bool_mask_where:
    case OpId::bool_mask_select:
    case OpId::int_select_assign:
    case OpId::int_select_add:
    case OpId::int_scatter_add:
    case OpId::int_scatter:
    case OpId::int_scatter_nd:
    case OpId::int_mask_fill:
    case OpId::bool_select_or:
    case OpId::bool_scatter_or:
    case OpId::bool_mask_fill:
    case OpId::bool_argwhere:
    case OpId::int_cumsum:
    case OpId::int_cumprod:
    case OpId::int_cummin:
    case OpId::int_cummax:
    case OpId::int_argsort:
    case OpId::int_sort:
    case OpId::int_argtopk:
    case OpId::int_topk:
    case OpId::int_matmul:
    case OpId::int_powi:
    case OpId::int_powi_scalar:
    case OpId::float_argmax:
    case OpId::float_argmin:
    case OpId::float_argsort:
    case OpId::float_argtopk:
    case OpId::float_greater:
    case OpId::float_lower:
    case OpId::float_equal:
    case OpId::float_greater_equal:
    case OpId::float_lower_equal:
    case OpId::float_not_equal:
    case OpId::float_greater_equal_elem:
    case OpId::float_lower_elem:
    case OpId::float_lower_equal_elem:
    case OpId::float_equal_elem:
    case OpId::float_not_equal_elem:
    case OpId::float_is_nan:
    case OpId::float_is_inf:
    case OpId::float_any:
    case OpId::float_any_dim:
    case OpId::float_all:
    case OpId::float_all_dim:
    // adaptive_avg_pool2d's windows cover the input; the backward passes have no gradient.
    case OpId::adaptive_avg_pool2d:
    case OpId::avg_pool2d_backward:
    case OpId::adaptive_avg_pool2d_backward:
    case OpId::interpolate_backward:
    case OpId::adaptive_avg_pool3d:
    case OpId::adaptive_avg_pool3d_backward:
    // max_pool2d reads every cell of its windows (a NaN anywhere wins); its indices and backward
    // pass have no gradient.
    case OpId::max_pool2d:
    case OpId::max_pool2d_indices:
    case OpId::max_pool2d_with_indices_backward:
    // The 1-D poolings: as the 2-D ones.
    case OpId::adaptive_avg_pool1d:
    case OpId::avg_pool1d_backward:
    case OpId::adaptive_avg_pool1d_backward:
    case OpId::max_pool1d:
    case OpId::max_pool1d_indices:
    case OpId::max_pool1d_with_indices_backward:
    // attention: a masked key cell's score is replaced (a NaN there does not reach the result), its
    // value cell is still multiplied by a zero weight (a NaN there does): no position is unread for
    // every operand alike, so the table leaves it to the reference checks.
    case OpId::attention:
    case OpId::rfft:   // samples past n are cut, and read as 0 * twiddle otherwise: left to the reference checks
    case OpId::irfft:  // the imaginary parts of bins 0 and n / 2 are not read
    case OpId::embedding_backward:  // no gradient (a backward pass)
    case OpId::linear_x_backward:
    case OpId::linear_weight_backward:
    case OpId::linear_bias_backward:
    case OpId::conv2d_x_backward:
    case OpId::conv2d_weight_backward:
    case OpId::conv2d_bias_backward:
    case OpId::conv_transpose2d_x_backward:
    case OpId::conv_transpose2d_weight_backward:
    case OpId::conv_transpose2d_bias_backward:
    case OpId::conv1d_x_backward:
    case OpId::conv1d_weight_backward:
    case OpId::conv1d_bias_backward:
    case OpId::conv_transpose1d_x_backward:
    case OpId::conv_transpose1d_weight_backward:
    case OpId::conv_transpose1d_bias_backward:
    case OpId::conv3d_x_backward:
    case OpId::conv3d_weight_backward:
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d_x_backward:
    case OpId::conv_transpose3d_weight_backward:
    case OpId::conv_transpose3d_bias_backward:
      return std::nullopt;
  }
  return std::nullopt;
}
#pragma GCC diagnostic pop

using gen::show;  // 17 digits, gen/op_cases.hpp

class UnreadPositions : public ::testing::TestWithParam<OpId> {};

TEST_P(UnreadPositions, HoldInfOrNaNAndGetExactlyPlusZeroGradient) {
  const OpId op = GetParam();
  const UnreadGenerator generate = *unread_positions(op);
  check_property(
      [op, generate] {
        const std::size_t backend = *rc::gen::elementOf(gen::tested_backend_indices());
        const DType dtype = *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
        const UnreadCase c = generate(dtype);
        std::vector<DispatchTensor> t;
        // Every operand on the autodiff device (index tensors too, as the contract gives int
        // tensors there); the receiver is a tracked leaf.
        for (const og::HostArray& h : c.operands) t.push_back(upload(h, backend, true));
        std::vector<double> grad;
        const og::Outcome ran = og::outcome_of([&] {
          const Gradients grads = Dispatch::backward(call_op(op, t, c.args));
          const std::optional<DispatchTensor> g = Dispatch::grad(t[0], grads);
          if (g) grad = Dispatch::float_into_data(*g).to_f64();
        });
        const std::string where = std::string(op_info(op).name) + " " + og::render_dtype(dtype) + og::render_shape(c.operands[0].shape) +
                                  " on " + og::all_backends().at(backend).name;
        if (!ran.ok()) RC_FAIL(where + ": " + og::describe(ran));
        RC_ASSERT(grad.size() == c.unread.size());
        for (std::size_t i = 0; i < grad.size(); ++i) {
          if (!c.unread[i]) continue;
          if (std::bit_cast<std::uint64_t>(grad[i]) != 0) {
            RC_FAIL(where + ": element " + std::to_string(i) + " holds " + show(c.operands[0].values[i]) +
                    " and is not read, but its gradient is " + show(grad[i]) + " (expected +0)");
          }
        }
      },
      200);
}

std::vector<OpId> ops_with_unread_positions() {
  std::vector<OpId> ids;
  for (const OpInfo& op : kOps) {
    if (unread_positions(op.id)) ids.push_back(op.id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryRegistryOp, UnreadPositions, ::testing::ValuesIn(ops_with_unread_positions()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

}  // namespace
