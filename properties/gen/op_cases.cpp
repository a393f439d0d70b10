#include "gen/op_cases.hpp"

#include "gen/specs.hpp"

#include <crossgrad/oracle/render.hpp>

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

namespace crossgrad::properties::gen {
namespace og = crossgrad::oracle;
namespace {

using Dims = std::vector<std::size_t>;

// ---- values ---------------------------------------------------------------------------------

// gen::float_value's ordinary and special values, small integers (ties for max/compare, -0 vs +0)
// and F64-only extremes (subnormal, near the largest finite; they round to 0 / inf in F32).
// Decimal fractions round, so the order of additions shows (select_assign's j order).
std::size_t pick(std::size_t lo, std::size_t hi_inclusive);
bool chance(int one_in);

rc::Gen<double> element() {
  return rc::gen::weightedOneOf<double>(
      {{6, gen::float_value(true)},
       {2, rc::gen::elementOf(std::vector<double>{0.1, 0.2, 0.3, 0.7, 1e-8, 3.3333333333333335, 1e30, -1e30})},
       {3, rc::gen::elementOf(std::vector<double>{-1.0, -0.0, 0.0, 1.0, 2.0})},
       {1, rc::gen::elementOf(std::vector<double>{1e300, -1e300, 4.9406564584124654e-324, -2.5e-310,
                                                  1.7976931348623157e308, 88.5, -104.0, 709.5, -745.0})}});
}

double round_to(double v, DType d) { return d == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

// A case draws all its values from a few tie-prone ones about one time in three: equal maxima
// (-0 and +0 among them) decide max_dim's bits and argmax's index.
og::HostArray floats(Dims shape, DType dtype) {
  const rc::Gen<double> ties = rc::gen::elementOf(std::vector<double>{-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1.0, -1.0, NAN, INFINITY});
  og::HostArray h{shape, dtype, *rc::gen::container<std::vector<double>>(og::element_count(shape), chance(3) ? ties : element())};
  for (double& v : h.values) v = round_to(v, dtype);
  return h;
}

og::HostArray ints(Dims shape, DType dtype) {
  rc::Gen<double> g = rc::gen::map(rc::gen::inRange(-100000, 100000), [](int i) { return double(i); });
  if (dtype == DType::U8) g = rc::gen::map(rc::gen::inRange(0, 256), [](int i) { return double(i); });
  if (dtype == DType::I8) g = rc::gen::map(rc::gen::inRange(-128, 128), [](int i) { return double(i); });
  if (dtype == DType::I64 || dtype == DType::I32) {
    // 2^24 + 1 and friends round in F32.
    g = rc::gen::weightedOneOf<double>({{4, g}, {1, rc::gen::elementOf(std::vector<double>{16777217.0, -16777219.0, 123456789.0, 2147483647.0})}});
  }
  return og::HostArray{shape, dtype, *rc::gen::container<std::vector<double>>(og::element_count(shape), g)};
}

og::HostArray bools(Dims shape) {
  return og::HostArray{shape, DType::Bool,
                       *rc::gen::container<std::vector<double>>(og::element_count(shape), rc::gen::map(rc::gen::inRange(0, 2), [](int i) { return double(i); }))};
}

DType other(DType d) { return d == DType::F32 ? DType::F64 : DType::F32; }




// ---- shapes and arguments, per Sig ------------------------------------------------------------

// Uniform choices (RapidCheck's inRange stays near its lower bound at small sizes, which would make
// the first cases all valid or all invalid).
std::size_t pick(std::size_t lo, std::size_t hi_inclusive) {
  return *rc::gen::resize(100, rc::gen::inRange<std::size_t>(lo, hi_inclusive + 1));
}
bool chance(int one_in) { return *rc::gen::resize(100, rc::gen::inRange(0, one_in)) == 0; }
Dims any_shape(std::size_t min_rank = 0) {
  Dims s = *gen::shape(3);
  while (s.size() < min_rank) s.insert(s.begin(), pick(1, 3));
  return gen::bounded(s);
}

// A broadcast partner of `s`: dims kept or set to 1, leading dims dropped.
Dims broadcast_variant(const Dims& s) {
  Dims out;
  for (std::size_t i = pick(0, s.size()); i < s.size(); ++i) out.push_back(chance(3) ? 1 : s[i]);
  return out;
}

// A shape that does not broadcast with `s` (nullopt-free: s gains a dim of 2 if it has none != 1).
std::pair<Dims, Dims> mismatched(Dims s) {
  std::size_t i = s.size();
  for (std::size_t d = 0; d < s.size(); ++d) if (s[d] != 1) i = d;
  if (i == s.size()) {
    s.push_back(2);
    i = s.size() - 1;
  }
  Dims t = s;
  t[i] = s[i] == 0 ? 2 : s[i] + 1;
  return {s, t};
}


// An int op's operand: each element one of the dtype's edges (lowest, lowest + 1, -1, 0, 1,
// highest - 1, highest), a small value (ties, exact small quotients) or any value of the dtype.
// I64 edges have no exact double, so the array is built from int64s (oracle::int_array).
og::HostArray int_operand(Dims shape, DType dtype, bool nonzero) {
  const auto [lo, hi] = [&]() -> std::pair<std::int64_t, std::int64_t> {
    if (dtype == DType::I64) return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    if (dtype == DType::I32) return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    if (dtype == DType::I8) return {-128, 127};
    return {0, 255};
  }();
  const rc::Gen<std::int64_t> edges = rc::gen::elementOf(std::vector<std::int64_t>{lo, lo + 1, -1, 0, 1, hi - 1, hi});
  const rc::Gen<std::int64_t> small = rc::gen::inRange<std::int64_t>(-9, 10);
  const rc::Gen<std::int64_t> any = rc::gen::inRange<std::int64_t>(lo, hi);  // [lo, hi): hi is an edge
  const rc::Gen<std::int64_t> g = rc::gen::weightedOneOf<std::int64_t>({{3, edges}, {4, small}, {2, any}});
  std::vector<std::int64_t> v = *rc::gen::container<std::vector<std::int64_t>>(og::element_count(shape), g);
  for (std::int64_t& x : v) {
    x = std::clamp(x, lo, hi);  // small's negatives in U8
    if (nonzero && x == 0) x = 1;
  }
  return og::int_array(shape, dtype, std::move(v));
}

DType int_dtype() { return *rc::gen::elementOf(std::vector<DType>{DType::I64, DType::I32, DType::I8, DType::U8}); }

DType other_int(DType d) { return d == DType::I64 ? DType::I32 : DType::I64; }

bool shifts(OpId op) {
  return op == OpId::bitwise_left_shift || op == OpId::bitwise_right_shift || op == OpId::bitwise_left_shift_scalar ||
         op == OpId::bitwise_right_shift_scalar;
}
// Shift counts: negative, inside every width, at and past the widths (8, 32, 64), as the dtype
// holds them (wrapping: 128 is -128 in I8, 255 is -1).
const std::vector<std::int64_t>& shift_counts() {
  static const std::vector<std::int64_t> counts{-1, 0, 1, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 255};
  return counts;
}
og::HostArray shift_operand(Dims shape, DType dtype) {
  std::vector<std::int64_t> v = *rc::gen::container<std::vector<std::int64_t>>(og::element_count(shape), rc::gen::elementOf(shift_counts()));
  for (std::int64_t& x : v) {
    if (dtype == DType::I32) x = static_cast<std::int32_t>(static_cast<std::uint32_t>(x));
    if (dtype == DType::I8) x = static_cast<std::int8_t>(static_cast<std::uint8_t>(x));
    if (dtype == DType::U8) x = static_cast<std::uint8_t>(x);
  }
  return og::int_array(shape, dtype, std::move(v));
}

bool divides(OpId op) {
  return op == OpId::int_div || op == OpId::int_remainder || op == OpId::int_div_scalar || op == OpId::int_remainder_scalar;
}

void gen_dims_op(OpCase& c, bool bad, const Dims& s) {
  c.args.dim = bad || s.empty() ? s.size() + pick(0, 1) : pick(0, s.size() - 1);
}

// An int or bool op (Unary, Binary, Scalar, Bounds or Dim Sig), in the receiver's kind. Faults: the other int
// dtype (dtype-mismatch), shapes that do not broadcast, a zero divisor (an element of a divisor
// tensor, or a scalar that converts to 0: 0.5, 256 into U8, NaN), a float receiver
// (op-kind-mismatch through Dispatch).
void gen_int_bool(OpCase& c, bool bad) {
  const OpInfo& info = op_info(c.op);
  const bool is_int = info.operand == OpKind::Int;
  c.dtype = is_int ? int_dtype() : DType::Bool;
  const auto operand = [&](Dims s, DType d, bool nonzero) { return is_int ? int_operand(std::move(s), d, nonzero) : bools(std::move(s)); };
  const int fault = bad ? static_cast<int>(pick(0, 3)) : -1;
  if (info.sig == OpSig::Unary) {
    c.operands = {fault == 0 ? floats(any_shape(), DType::F32) : operand(any_shape(), c.dtype, false)};
    return;
  }
  if (info.sig == OpSig::Binary) {
    Dims a = any_shape(), b = broadcast_variant(a);
    if (chance(2)) std::swap(a, b);
    if (fault == 1) std::tie(a, b) = mismatched(a);
    const DType bd = fault == 2 && is_int ? other_int(c.dtype) : c.dtype;
    c.operands = {fault == 0 ? floats(a, DType::F32) : operand(a, c.dtype, false),
                  shifts(c.op) ? shift_operand(b, bd) : operand(b, bd, divides(c.op) && fault != 3)};
    og::HostArray& divisor = c.operands[1];
    if (fault == 3 && is_int && !divisor.values.empty()) {  // a zero divisor anywhere, the first element included
      const std::size_t at = pick(0, divisor.values.size() - 1);
      divisor.values[at] = 0;
      if (!divisor.exact.empty()) divisor.exact[at] = 0;
    }
    return;
  }
  if (info.sig == OpSig::Scalar) {
    c.operands = {fault == 0 ? floats(any_shape(), DType::F32) : operand(any_shape(), c.dtype, false)};
    const std::vector<double> nonzero{1.0, -1.0, 2.0, -3.0, 7.0, -2.7, 127.0, 128.0, 255.0, -129.0, 2147483648.0,
                                      9007199254740992.0, 1e19, -1e19, INFINITY, -INFINITY};
    const std::vector<double> zero{0.0, -0.0, 0.5, -0.9, NAN, 256.0, 4294967296.0};
    // A divisor converts to 0 only in a bad case; the other ops take those scalars too.
    const bool to_zero = divides(c.op) ? fault == 3 : chance(4);
    c.args.scalar = *rc::gen::elementOf(to_zero ? zero : nonzero);
    if (shifts(c.op)) c.args.scalar = static_cast<double>(*rc::gen::elementOf(shift_counts()));
    return;
  }
  if (info.sig == OpSig::Bounds) {  // int_clamp: bounds within and beyond each dtype, reversed or NaN when bad
    c.operands = {fault == 0 ? floats(any_shape(), DType::F32) : operand(any_shape(), c.dtype, false)};
    const std::vector<double> ends{-1e30, -129.0, -128.0, -2.5, -1.0, 0.0, 0.5, 1.0, 3.0, 127.0, 255.0, 300.0, 2147483648.0, 1e19, INFINITY};
    double lo = *rc::gen::elementOf(ends), hi = *rc::gen::elementOf(ends);
    if (hi < lo) std::swap(lo, hi);
    if (bad && fault != 0) {
      if (lo < hi) std::swap(lo, hi);
      else lo = NAN;
    }
    c.args.min = lo;
    c.args.max = hi;
    return;
  }
  if (info.sig == OpSig::Dim) {  // the reductions along a dim: a dim past the rank, an empty lane
    const Dims s = any_shape(chance(8) ? 0 : 1);
    c.operands = {fault == 0 ? floats(s, DType::F32) : operand(s, c.dtype, false)};
    gen_dims_op(c, bad && fault != 0, s);
    return;
  }
  throw std::logic_error("gen_int_bool: no int or bool op of Sig " + std::string(op_sig_name(info.sig)));
}

void gen_binary(OpCase& c, bool bad) {
  if (op_stem(c.op) == "matmul") {
    const std::size_t m = pick(0, 3), k = pick(0, 3), n = pick(0, 3), batch = pick(0, 2);
    Dims a{m, k}, b{k, n};
    if (batch > 0) {
      const int layout = static_cast<int>(pick(0, 4 - 1));
      a.insert(a.begin(), layout == 1 ? 1 : batch);
      if (layout != 2) b.insert(b.begin(), layout == 3 ? 1 : batch);
    }
    if (bad) {
      switch (static_cast<int>(pick(0, 2))) {
        case 0: a = {k}; break;                              // matmul-rank
        case 1: b[b.size() - 2] = k + 1; break;              // matmul-inner-dim
        default: a.insert(a.begin(), 2); b.insert(b.begin(), 3); break;  // broadcast-mismatch
      }
    }
    c.operands = {floats(a, c.dtype), floats(b, c.dtype)};
    return;
  }
  Dims a = any_shape(), b = broadcast_variant(a);
  if (chance(2)) std::swap(a, b);
  DType bd = c.dtype;
  if (bad) {
    if (chance(2)) {
      std::tie(a, b) = mismatched(a);
    } else {
      bd = other(c.dtype);
    }
  }
  c.operands = {floats(a, c.dtype), floats(b, bd)};
}

// cross: 3-vectors along dim in both operands, the other dims equal or broadcast; faults: a dim
// past the rank, another size than 3 or another rank, shapes that do not broadcast, mixed dtypes.
void gen_cross(OpCase& c, bool bad) {
  Dims a = any_shape();
  const std::size_t dim = pick(0, a.size());
  a.insert(a.begin() + static_cast<std::ptrdiff_t>(dim), 3);
  Dims b = a;
  for (std::size_t d = 0; d < b.size(); ++d) {
    if (d != dim && chance(3)) (chance(2) ? a : b)[d] = 1;
  }
  c.args.dim = dim;
  DType bd = c.dtype;
  const int fault = bad ? static_cast<int>(pick(0, 4 - 1)) : -1;
  switch (fault) {
    case 0: c.args.dim = a.size() + pick(0, 1); break;  // dim-out-of-range
    case 1:                                               // cross-dim
      if (chance(2)) b[dim] = chance(2) ? 2 : 4;
      else b.insert(b.begin(), 1);
      break;
    case 2: {  // broadcast-mismatch: another dim of 2 against 3
      a.insert(a.begin(), 2);
      b.insert(b.begin(), 3);
      c.args.dim = dim + 1;
      break;
    }
    case 3: bd = other(c.dtype); break;  // dtype-mismatch
    default: break;
  }
  c.operands = {floats(a, c.dtype), floats(b, bd)};
}

// mask_where / mask_fill: the tensor, a Bool mask and (mask_where) a value, each of the result's
// shape or a broadcast variant of it; faults: a mask of another dtype, shapes that do not
// broadcast, a value of the other dtype.
void gen_masked(OpCase& c, bool bad, bool with_value) {
  const Dims s = any_shape();
  Dims ms = chance(2) ? s : broadcast_variant(s), vs = chance(2) ? s : broadcast_variant(s);
  og::HostArray mask = bools(ms);
  DType vd = c.dtype;
  const int fault = bad ? static_cast<int>(pick(0, (with_value ? 3 : 2) - 1)) : -1;
  switch (fault) {
    case 0: mask = ints(ms, chance(2) ? DType::U8 : DType::I64); break;  // unsupported-dtype
    case 1: {                                                             // broadcast-mismatch
      Dims a, b;
      std::tie(a, b) = mismatched(s);
      c.operands = {floats(a, c.dtype), bools(b)};
      if (with_value) c.operands.push_back(floats(a, c.dtype));
      c.args.scalar = 0.5;
      return;
    }
    case 2: vd = other(c.dtype); break;  // dtype-mismatch
    default: break;
  }
  c.operands = {floats(s, c.dtype), mask};
  if (with_value) c.operands.push_back(floats(vs, vd));
  c.args.scalar = *rc::gen::elementOf(std::vector<double>{0.0, -0.0, 1.0, -2.5, 0.1, 1e30, NAN, INFINITY, -INFINITY});
}


void gen_reshape(OpCase& c, bool bad, const Dims& s) {
  const std::size_t n = og::element_count(s);
  Dims to;
  switch (static_cast<int>(pick(0, 4) - 1)) {
    case 0: to = {n}; break;
    case 1: to = s; std::reverse(to.begin(), to.end()); break;
    case 2: to = s; to.insert(to.begin() + static_cast<std::ptrdiff_t>(pick(0, s.size())), 1); break;
    default:
      to = s;
      if (to.size() >= 2) {
        to[1] *= to[0];
        to.erase(to.begin());
      }
      break;
  }
  if (bad) to = {n + 1};
  c.args.shape = to;
}

void gen_expand(OpCase& c, bool bad, const Dims& s) {
  Dims to;
  for (std::size_t i = 0, lead = pick(0, 2); i < lead; ++i) to.push_back(*rc::gen::elementOf(std::vector<std::size_t>{1, 2, 3, 0}));
  for (std::size_t d : s) to.push_back(d == 1 ? *rc::gen::elementOf(std::vector<std::size_t>{1, 2, 3, 0}) : d);
  if (og::element_count(to) > 200) to = s;
  if (bad) {
    std::size_t i = s.size();
    for (std::size_t d = 0; d < s.size(); ++d) if (s[d] != 1) i = d;
    if (i < s.size()) {
      to = s;
      to[i] = s[i] + 1;
    } else if (!s.empty()) {
      to = Dims(s.begin() + 1, s.end());  // fewer dims than the input
    }
  }
  c.args.shape = to;
}

void gen_permute(OpCase& c, bool bad, const Dims& s) {
  Dims axes(s.size());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = i;
  for (std::size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[pick(0, i - 1)]);
  if (bad) {
    switch (static_cast<int>(pick(0, 2))) {
      case 0: if (axes.size() >= 2) { axes[0] = axes[1]; break; } [[fallthrough]];
      case 1: axes.push_back(axes.size()); break;
      default: if (!axes.empty()) axes.back() = axes.size(); else axes.push_back(1); break;
    }
  }
  c.args.axes = axes;
}

void gen_slice(OpCase& c, bool bad, const Dims& s) {
  const std::size_t nr = pick(0, s.size());
  for (std::size_t d = 0; d < nr; ++d) {
    const std::size_t start = pick(0, s[d]);
    c.args.ranges.push_back(Range{start, pick(start, s[d])});
  }
  if (bad) {
    const int how = static_cast<int>(pick(0, 3 - 1));
    if (how == 0 || nr == 0) {
      while (c.args.ranges.size() <= s.size()) c.args.ranges.push_back(Range{0, 0});  // dim-out-of-range
    } else {
      const std::size_t d = pick(0, nr - 1);
      if (how == 1 || s[d] == 0) c.args.ranges[d].end = s[d] + 1;                 // past the end
      else c.args.ranges[d] = Range{c.args.ranges[d].end + (c.args.ranges[d].end < s[d] ? 1 : 0), c.args.ranges[d].end - (c.args.ranges[d].end < s[d] ? 0 : 1)};  // start > end
    }
  }
}

void gen_select(OpCase& c, bool bad, bool assign) {
  const Dims s = any_shape(1);
  const std::size_t dim = pick(0, s.size() - 1);
  const std::size_t size = s[dim];
  std::size_t k = size == 0 ? 0 : pick(0, 6);
  // Half the cases pick among at most two positions: duplicates accumulate.
  const std::size_t spread = size == 0 ? 0 : (chance(2) ? std::min<std::size_t>(size - 1, 1) : size - 1);
  const DType index_dtype = chance(2) ? DType::I64 : DType::I32;
  std::vector<double> idx;
  for (std::size_t j = 0; j < k; ++j) idx.push_back(double(pick(0, spread)));
  og::HostArray indices{{k}, index_dtype, idx};
  c.args.dim = dim;
  Dims selected = s;
  selected[dim] = k;
  og::HostArray values = floats(selected, c.dtype);
  const int fault = bad ? static_cast<int>(pick(0, (assign ? 5 : 3) - 1)) : -1;
  switch (fault) {
    case 0: c.args.dim = s.size() + pick(0, 1); break;     // dim-out-of-range
    case 1: indices.shape = {1, k}; break;                   // select-index-rank
    case 2:                                                  // index-out-of-range
      indices.values.insert(indices.values.begin() + static_cast<std::ptrdiff_t>(pick(0, k)), chance(2) ? -1.0 : double(size));
      indices.shape = {k + 1};
      break;
    case 3: {                                                // assign-shape-mismatch
      Dims wrong = selected;
      wrong[pick(0, wrong.size() - 1)] += 1;
      values = floats(wrong, c.dtype);
      break;
    }
    case 4: values = floats(selected, other(c.dtype)); break;  // dtype-mismatch
    default: break;
  }
  c.operands = {floats(s, c.dtype), indices};
  if (assign) c.operands.push_back(values);
}

// gather / scatter_add: one index per element, of the tensor's shape with k (0-4) along dim.
void gen_gather(OpCase& c, bool bad, bool scatter) {
  const Dims s = any_shape(1);
  const std::size_t dim = pick(0, s.size() - 1);
  const std::size_t size = s[dim];
  Dims index_shape = s;
  index_shape[dim] = size == 0 ? 0 : pick(0, 4);
  std::size_t n = 1;
  for (std::size_t d : index_shape) n *= d;
  // Half the cases pick among at most two positions: duplicates accumulate.
  const std::size_t spread = size == 0 ? 0 : (chance(2) ? std::min<std::size_t>(size - 1, 1) : size - 1);
  const DType index_dtype = chance(2) ? DType::I64 : DType::I32;
  std::vector<double> idx;
  for (std::size_t j = 0; j < n; ++j) idx.push_back(double(pick(0, spread)));
  og::HostArray indices{index_shape, index_dtype, idx};
  c.args.dim = dim;
  og::HostArray values = floats(index_shape, c.dtype);
  const int fault = bad ? static_cast<int>(pick(0, (scatter ? 5 : 3) - 1)) : -1;
  switch (fault) {
    case 0: c.args.dim = s.size() + pick(0, 1); break;  // dim-out-of-range
    case 1: {                                             // gather-index-shape
      if (chance(2)) {
        indices.shape.push_back(1);
      } else {
        Dims wrong = index_shape;
        std::size_t d = pick(0, wrong.size() - 1);
        if (wrong.size() > 1 && d == dim) d = (d + 1) % wrong.size();
        if (d == dim) {
          indices.shape.push_back(1);
          break;
        }
        wrong[d] += 1;
        std::size_t m = 1;
        for (std::size_t w : wrong) m *= w;
        indices = og::HostArray{wrong, index_dtype, std::vector<double>(m, 0.0)};
      }
      break;
    }
    case 2: {  // index-out-of-range: one element of a non-empty index tensor
      if (n == 0) {
        c.args.dim = s.size();
        break;
      }
      indices.values[pick(0, n - 1)] = chance(2) ? -1.0 : double(size);
      break;
    }
    case 3: {  // assign-shape-mismatch
      Dims wrong = index_shape;
      wrong[pick(0, wrong.size() - 1)] += 1;
      values = floats(wrong, c.dtype);
      break;
    }
    case 4: values = floats(index_shape, other(c.dtype)); break;  // dtype-mismatch
    default: break;
  }
  c.operands = {floats(s, c.dtype), indices};
  if (scatter) c.operands.push_back(values);
}

// gather_nd / scatter_nd: index rows of k (0..rank) coordinates in a batch of rank 1 or 2; half the
// cases keep each coordinate among two positions (rows repeat: a later Assign wins). Faults:
// gather-nd-index-shape (k past the rank, or indices of rank 0), index-out-of-range (one
// coordinate -1 or its dim's size), and for scatter_nd assign-shape-mismatch and dtype-mismatch.
void gen_nd(OpCase& c, bool bad, bool scatter) {
  const Dims s = any_shape();
  const std::size_t k = pick(0, s.size());
  Dims batch(pick(1, 2));
  for (std::size_t& d : batch) d = pick(0, 3);
  std::size_t rows = 1;
  for (std::size_t d : batch) rows *= d;
  const bool spread = chance(2);
  std::vector<double> coordinates;
  for (std::size_t m = 0; m < rows; ++m) {
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t hi = s[j] == 0 ? 0 : (spread ? s[j] - 1 : std::min<std::size_t>(s[j] - 1, 1));
      coordinates.push_back(double(pick(0, hi)));
    }
  }
  Dims index_shape = batch;
  index_shape.push_back(k);
  og::HostArray indices{index_shape, chance(2) ? DType::I64 : DType::I32, coordinates};
  Dims gathered = batch;
  gathered.insert(gathered.end(), s.begin() + static_cast<std::ptrdiff_t>(k), s.end());
  og::HostArray values = floats(gathered, c.dtype);
  switch (bad ? static_cast<int>(pick(0, (scatter ? 4 : 2) - 1)) : -1) {
    case 0:  // gather-nd-index-shape
      indices = chance(3) ? og::HostArray{{}, indices.dtype, {0.0}}
                          : og::HostArray{{1, s.size() + 1}, indices.dtype, std::vector<double>(s.size() + 1, 0.0)};
      break;
    case 1:  // index-out-of-range
      if (coordinates.empty()) {
        indices = og::HostArray{{1, s.size() + 1}, indices.dtype, std::vector<double>(s.size() + 1, 0.0)};
        break;
      }
      {
        const std::size_t at = pick(0, coordinates.size() - 1);
        indices.values[at] = chance(2) ? -1.0 : double(s[at % k]);
      }
      break;
    case 2: {  // assign-shape-mismatch
      Dims wrong = gathered;
      if (wrong.empty()) wrong.push_back(2);
      else wrong[pick(0, wrong.size() - 1)] += 1;
      values = floats(wrong, c.dtype);
      break;
    }
    case 3: values = floats(gathered, other(c.dtype)); break;  // dtype-mismatch
    default: break;
  }
  c.operands = {floats(s, c.dtype), indices};
  if (scatter) {
    c.operands.push_back(values);
    c.args.update = *rc::gen::elementOf(std::vector<IndexingUpdateOp>(std::begin(kIndexingUpdateOps), std::end(kIndexingUpdateOps)));
  }
}

void gen_cat(OpCase& c, bool bad) {
  const std::size_t rank = pick(1, 3);
  Dims base(rank);
  for (std::size_t& d : base) d = *rc::gen::elementOf(std::vector<std::size_t>{1, 2, 3, 2, 0});
  const std::size_t dim = pick(0, rank - 1);
  const std::size_t pieces = pick(1, 3);
  std::vector<DType> dtypes(pieces, c.dtype);
  std::vector<Dims> shapes;
  for (std::size_t p = 0; p < pieces; ++p) {
    Dims s = base;
    s[dim] = pick(0, 3);
    shapes.push_back(s);
  }
  c.args.dim = dim;
  const int fault = bad ? static_cast<int>(pick(0, 4 - 1)) : -1;
  switch (fault) {
    case 0: shapes.clear(); break;                               // cat-empty
    case 1: c.args.dim = rank + pick(0, 1); break;               // dim-out-of-range
    case 2:                                                      // cat-mismatch: another dim or rank
      if (rank >= 2 && chance(2)) shapes.back()[(dim + 1) % rank] += 1;
      else shapes.back().push_back(1);
      break;
    case 3: dtypes.back() = other(c.dtype); break;               // dtype-mismatch
    default: break;
  }
  for (std::size_t p = 0; p < shapes.size(); ++p) c.operands.push_back(floats(shapes[p], dtypes[p]));
}

void gen_float_case(OpCase& c, bool bad);
void rekind(OpCase& c, bool bad);
// Int and bool ops whose operands are shaped as their float twin's (sorting's dim and k, matmul's
// matrices, the index updates' indices, values and masks), not as an elementwise op's.
bool takes_float_case(OpId op) {
  const OpSig sig = op_info(op).sig;
  return sig == OpSig::Sort || sig == OpSig::TopK || op_stem(op) == "matmul" || sig == OpSig::SelectAssign ||
         sig == OpSig::Scatter || sig == OpSig::ScatterUpdate || sig == OpSig::ScatterNd || sig == OpSig::MaskFill;
}

}  // namespace

OpCase op_case(OpId op) {
  const OpInfo& info = op_info(op);
  OpCase c;
  c.op = op;
  c.backend = *gen::backend();
  c.tracked = *rc::gen::arbitrary<bool>();
  // A backward pass on an autodiff device is refused before anything else (not-differentiable):
  // one case in eight says so, the rest compare values.
  if (info.rule == OpRule::NotDifferentiable) c.tracked = chance(8);
  c.dtype = *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
  const bool bad = chance(5);
  // The int and bool ops: the layout ops, sorting, int_matmul and the index updates as their float
  // twin's case in the kind (rekind), the others (arithmetic, comparisons, reductions, scans, powi,
  // argwhere) from gen_int_bool.
  if (info.operand != OpKind::Float && info.sig != OpSig::ToDType) {
    if (moves_elements(op) || takes_float_case(op)) {
      gen_float_case(c, bad);
      rekind(c, bad);
    } else {
      gen_int_bool(c, bad);
    }
    c.args.tracked = c.tracked;
    return c;
  }
  gen_float_case(c, bad);
  c.args.tracked = c.tracked;  // a Mul, Min or Max scatter refuses tracked operands
  return c;
}

namespace {

std::optional<Dims> pooled_shape(const Dims& x, const AvgPool2dOptions& o) { return og::avg_pool2d_shape(x, o); }
std::optional<Dims> pooled_shape(const Dims& x, const AvgPool1dOptions& o) { return og::avg_pool1d_shape(x, o); }
std::optional<Dims> pooled_shape(const Dims& x, const MaxPool2dOptions& o) { return og::max_pool2d_shape(x, o); }
std::optional<Dims> pooled_shape(const Dims& x, const MaxPool1dOptions& o) { return og::max_pool1d_shape(x, o); }

// avg_pool2d / avg_pool1d (Options' pooled dims: 2 or 1) and their backward passes: x [N, C,
// spatial...] and options that fit it (kernel 1..3, stride 1..3, padding up to half the kernel,
// each spatial dim at least the kernel less the padding); faults, one each: x one rank short
// (module-input-rank), a kernel or stride of 0 (module-option-zero), padding past half the kernel
// (pool-padding), a kernel past the padded input (pool-kernel-too-large), for the backward pass a
// gradient of another shape (pool-grad-shape).
template <class Options>
void gen_avg_pool(OpCase& c, bool bad, bool backward, Options& o) {
  constexpr std::size_t n = std::tuple_size_v<decltype(o.kernel_size)>;
  Dims x{pick(0, 2), pick(0, 2)};
  x.resize(n + 2, 0);
  if (!chance(6)) x[0] = std::max<std::size_t>(x[0], 1), x[1] = std::max<std::size_t>(x[1], 1);  // an empty batch or channels now and then
  for (std::size_t d = 0; d < n; ++d) {
    o.kernel_size[d] = pick(1, 3);
    o.stride[d] = pick(1, 3);
    o.padding[d] = pick(0, o.kernel_size[d] / 2);
    const std::size_t least = o.kernel_size[d] > 2 * o.padding[d] ? o.kernel_size[d] - 2 * o.padding[d] : 1;
    x[2 + d] = pick(std::max<std::size_t>(least, 1), 6);
  }
  o.count_include_pad = chance(2);
  o.ceil_mode = chance(2);
  const int fault = bad ? static_cast<int>(pick(0, backward ? 4 : 3)) : -1;
  const std::size_t d = pick(0, n - 1);
  if (fault == 0) x.erase(x.begin());
  if (fault == 1) (chance(2) ? o.kernel_size : o.stride)[d] = 0;
  if (fault == 2) o.padding[d] = o.kernel_size[d] / 2 + 1;
  if (fault == 3) o.kernel_size[d] = x[2 + d] + 2 * o.padding[d] + 1, o.padding[d] = 0;
  c.operands = {floats(x, c.dtype)};
  if (!backward) return;
  Dims g = pooled_shape(x, o).value_or(x);
  if (fault == 4) g[pick(2, n + 1)] += 1;
  c.operands.push_back(floats(g, c.dtype));
}

// adaptive_avg_pool1d / 2d / 3d (Size's dims) and their backward passes: x [N, C, 1..7 per dim]
// (N or C now and then 0) to 1..5 per dim (larger than the input too); faults: x one rank short, an output
// size of 0 (module-option-zero; from the gradient's last dims in the backward pass), x with a
// pooled dim of 0 (pool-empty-input), a gradient of another batch (pool-grad-shape).
template <class Size>
void gen_adaptive_avg_pool(OpCase& c, bool bad, bool backward, Size& out) {
  constexpr std::size_t n = std::tuple_size_v<Size>;
  Dims x{pick(1, 2), pick(1, 2)};
  for (std::size_t d = 0; d < n; ++d) x.push_back(pick(1, 7));
  if (chance(8)) x[pick(0, 1)] = 0;  // an empty batch or channel dim: an empty result
  for (std::size_t& v : out) v = pick(1, 5);
  const int fault = bad ? static_cast<int>(pick(0, backward ? 3 : 2)) : -1;
  if (fault == 0) x.erase(x.begin());
  if (fault == 1) out[pick(0, n - 1)] = 0;
  if (fault == 2) x[pick(2, n + 1)] = 0;
  c.operands = {floats(x, c.dtype)};
  if (!backward) return;
  Dims g{x[0], x.size() > 1 ? x[1] : 1};
  for (std::size_t v : out) g.push_back(v);
  if (fault == 3) g[0] += 1;
  c.operands.push_back(floats(g, c.dtype));
}

// max_pool2d / max_pool1d (Options' pooled dims), their indices and backward passes: x [N, C,
// spatial...] with options that fit (kernel 1..3, stride 1..3, dilation 1..2, padding up to half
// the kernel; a window that reaches no input cell is the pool-empty-window case, left to the
// oracle); values drawn tie-prone (floats()), so equal maxima and NaNs decide the indices. The
// backward pass takes the forward's indices (oracle), or now and then any cells of the plane
// (gradients sent anywhere). Faults: x one rank short, a dilation of 0, padding past half the
// span, the span past the padded input, for the backward pass a gradient of another shape,
// indices of another shape, an index past the plane, I8 indices.
template <class Options>
void gen_max_pool(OpCase& c, bool bad, bool backward, Options& o) {
  constexpr std::size_t n = std::tuple_size_v<decltype(o.kernel_size)>;
  Dims x{pick(1, 2), pick(1, 2)};
  if (chance(8)) x[pick(0, 1)] = 0;  // an empty batch or channel dim: an empty result
  x.resize(n + 2, 0);
  for (std::size_t d = 0; d < n; ++d) {
    o.kernel_size[d] = pick(1, 3);
    o.stride[d] = pick(1, 3);
    o.dilation[d] = pick(1, 2);
    const std::size_t span = o.dilation[d] * (o.kernel_size[d] - 1) + 1;
    o.padding[d] = pick(0, o.kernel_size[d] / 2);
    const std::size_t least = span > 2 * o.padding[d] ? span - 2 * o.padding[d] : 1;
    x[2 + d] = pick(std::max<std::size_t>(least, 1), 6);
  }
  o.ceil_mode = chance(2);
  const int fault = bad ? static_cast<int>(pick(0, backward ? 7 : 3)) : -1;
  const std::size_t d = pick(0, n - 1);
  if (fault == 0) x.erase(x.begin());
  if (fault == 1) o.dilation[d] = 0;
  if (fault == 2) o.padding[d] = o.kernel_size[d] / 2 + 1;
  if (fault == 3) o.kernel_size[d] = x[2 + d] + 2 * o.padding[d] + 1;
  c.operands = {floats(x, c.dtype)};
  if (!backward) return;
  const std::optional<Dims> out = x.size() == n + 2 ? pooled_shape(x, o) : std::nullopt;
  Dims g = out.value_or(x);
  if (fault == 4) g[pick(2, n + 1)] += 1;
  std::size_t plane = 1;
  for (std::size_t k = 2; k < x.size() && x.size() == n + 2; ++k) plane *= x[k];
  og::HostArray indices;
  if (out && fault < 0 && !chance(4)) {
    const OpId forward = n == 2 ? OpId::max_pool2d_indices : OpId::max_pool1d_indices;
    const og::ReferenceResult r = og::reference_op(forward, {c.operands[0]}, c.args);
    indices = r.panic_id ? og::HostArray{g, DType::I64, std::vector<double>(og::element_count(g), 0.0)} : r.value;
  } else {
    indices = og::HostArray{g, DType::I64, std::vector<double>(og::element_count(g))};
    for (double& v : indices.values) v = static_cast<double>(pick(0, plane - 1));
  }
  if (fault == 5) indices.shape.push_back(1);
  if (fault == 6 && !indices.values.empty()) indices.values[pick(0, indices.values.size() - 1)] = static_cast<double>(plane);
  if (fault == 7) indices.dtype = DType::I8;
  if (chance(3) && indices.dtype == DType::I64) indices.dtype = DType::I32;
  c.operands.push_back(indices);
  c.operands.push_back(floats(g, c.dtype));
}

// unfold4d: x [0..2, 0..2, 1..6, 1..6] with a kernel 1..3, stride 1..3, padding 0..2 and
// dilation 1..2 that fit (each spatial dim at least the span less the padding). Faults: x of rank
// 3, a kernel, stride or dilation of 0, a span past the padded input, an empty height or width.
void gen_unfold4d(OpCase& c, bool bad) {
  UnfoldOptions& o = c.args.unfold;
  Size2& k = c.args.unfold_kernel;
  Dims x{pick(0, 2), pick(0, 2), 0, 0};
  if (!chance(6)) x[0] = std::max<std::size_t>(x[0], 1), x[1] = std::max<std::size_t>(x[1], 1);
  for (std::size_t d = 0; d < 2; ++d) {
    k[d] = pick(1, 3);
    o.stride[d] = pick(1, 3);
    o.dilation[d] = pick(1, 2);
    o.padding[d] = pick(0, 2);
    const std::size_t span = o.dilation[d] * (k[d] - 1) + 1;
    x[2 + d] = pick(span > 2 * o.padding[d] ? span - 2 * o.padding[d] : 1, 6);
  }
  const int fault = bad ? static_cast<int>(pick(0, 4)) : -1;
  const std::size_t d = pick(0, 1);
  if (fault == 0) x.erase(x.begin());
  if (fault == 1) (chance(3) ? k : chance(2) ? o.stride : o.dilation)[d] = 0;
  if (fault == 2) k[d] = x[2 + d] + 2 * o.padding[d] + 1, o.dilation[d] = 1;
  if (fault == 3) x[2 + d] = 0;
  c.operands = {floats(x, c.dtype)};
}

// interpolate / interpolate_backward: x [0..2, 0..2, 1..6, 1..6] to an output size 1..9 per dim
// (up and down, equal now and then), every mode, align_corners both ways; the gradient of the
// output's shape. Faults: x of rank 3, an unknown mode code (4..255), an output size of 0, an
// empty height or width, for the backward pass a gradient of another shape.
void gen_interpolate(OpCase& c, bool bad, bool backward) {
  InterpolateOptions& o = c.args.interpolate;
  Size2& out = c.args.output_size;
  Dims x{pick(0, 2), pick(0, 2), pick(1, 6), pick(1, 6)};
  if (!chance(6)) x[0] = std::max<std::size_t>(x[0], 1), x[1] = std::max<std::size_t>(x[1], 1);
  for (std::size_t d = 0; d < 2; ++d) out[d] = chance(4) ? x[2 + d] : pick(1, 9);
  o.mode = static_cast<InterpolateMode>(pick(0, 3));
  o.align_corners = chance(2);
  const int fault = bad ? static_cast<int>(pick(0, backward ? 4 : 3)) : -1;
  const std::size_t d = pick(0, 1);
  if (fault == 0) x.erase(x.begin());
  if (fault == 1) o.mode = static_cast<InterpolateMode>(pick(4, 255));
  if (fault == 2) out[d] = 0;
  if (fault == 3) x[2 + d] = 0;
  c.operands = {floats(x, c.dtype)};
  if (!backward) return;
  Dims g{x[0], x.size() > 1 ? x[1] : 1, out[0], out[1]};
  if (fault == 4) g[2 + d] += 1;
  c.operands.push_back(floats(g, c.dtype));
}

// fold4d: the blocks x [0..2, channels k_h k_w, blocks] of channels 0..2 planes of an output size
// 1..6 per dim, under a kernel 1..3, stride 1..3, padding 0..2 and dilation 1..2 that fit. Faults:
// x of rank 4, a kernel, stride, dilation or output size of 0, a dim 1 the kernel's cells do not
// divide, a span past the padded output, one block too many.
void gen_fold4d(OpCase& c, bool bad) {
  UnfoldOptions& o = c.args.unfold;
  Size2& k = c.args.unfold_kernel;
  Size2& out = c.args.output_size;
  const int fault = bad ? static_cast<int>(pick(0, 4)) : -1;
  const std::size_t d = pick(0, 1);
  Size2 blocks{1, 1};
  for (std::size_t e = 0; e < 2; ++e) {
    k[e] = pick(e == d && fault == 2 ? 2 : 1, 3);
    o.stride[e] = pick(1, 3);
    o.dilation[e] = pick(1, 2);
    o.padding[e] = pick(0, 2);
    const std::size_t span = o.dilation[e] * (k[e] - 1) + 1;
    out[e] = pick(span > 2 * o.padding[e] ? span - 2 * o.padding[e] : 1, 6);
    blocks[e] = (out[e] + 2 * o.padding[e] - span) / o.stride[e] + 1;
  }
  Dims x{pick(0, 2), pick(0, 2) * k[0] * k[1], blocks[0] * blocks[1]};
  if (!chance(6)) x[0] = std::max<std::size_t>(x[0], 1), x[1] = std::max<std::size_t>(x[1], k[0] * k[1]);
  if (fault == 0) x.insert(x.begin(), 1);
  if (fault == 1) (chance(4) ? k : chance(3) ? o.stride : chance(2) ? o.dilation : out)[d] = 0;
  if (fault == 2) x[1] += 1;
  if (fault == 3) k[d] = out[d] + 2 * o.padding[d] + 1, o.dilation[d] = 1;
  if (fault == 4) x[2] += 1;
  c.operands = {floats(x, c.dtype)};
}

// embedding / embedding_backward: a table [n, d] (n 1..6, d 0..4) read at indices [b, s] (0..3
// each) drawn from the rows with repeats (a row's gradient then adds several positions), I64 or
// I32. Faults: a table of rank 1 or 3, indices of rank 1, an index past the table, a negative
// index, I8 indices, for the backward pass a gradient of another shape. Operands {weights,
// indices} and, backward, grad last ({weights, indices, grad}, the oracle's order).
void gen_embedding(OpCase& c, bool bad, bool backward) {
  Dims w{pick(1, 6), pick(0, 4)};
  Dims idx{pick(0, 3), pick(0, 3)};
  const int fault = bad ? static_cast<int>(pick(0, backward ? 6 : 5)) : -1;
  og::HostArray indices{idx, chance(3) ? DType::I32 : DType::I64, std::vector<double>(og::element_count(idx))};
  for (double& v : indices.values) v = static_cast<double>(pick(0, w[0] - 1));
  if (fault == 0) w.erase(w.begin() + static_cast<std::ptrdiff_t>(pick(0, 1)));
  if (fault == 1) w.push_back(pick(1, 2));
  if (fault == 2) indices.shape = {og::element_count(idx)};
  if (fault == 3 || fault == 4) {
    if (indices.values.empty()) {
      indices.shape = {1, 1};
      indices.values = {0.0};
    }
    indices.values[pick(0, indices.values.size() - 1)] = fault == 3 ? static_cast<double>(w[0]) : -1.0;
  }
  if (fault == 5) indices.dtype = DType::I8;
  c.operands = {floats(w, c.dtype), indices};
  if (!backward) return;
  Dims g{idx[0], idx[1], w.size() > 1 ? w[1] : 1};
  if (fault == 6) g[pick(0, 2)] += 1;
  c.operands.push_back(floats(g, c.dtype));
}

// linear and its backward passes over x [lead..., d_input], weight [d_input, d_output] and a bias
// (half the time), every size 0..4. Faults: a scalar x or gradient, a weight of rank 1 or 3, a
// bias of rank 2, d_input or d_output one off, a gradient with other leading dims.
void gen_linear(OpCase& c, bool bad) {
  const OpSig sig = op_info(c.op).sig;
  Dims lead(pick(0, 2));
  for (std::size_t& d : lead) d = pick(0, 3);
  const std::size_t d_in = pick(0, 4), d_out = pick(0, 4);
  Dims x = lead, w{d_in, d_out}, b{d_out}, g = lead;
  x.push_back(d_in);
  g.push_back(d_out);
  const int fault = bad ? static_cast<int>(pick(0, 4)) : -1;
  if (fault == 0) (sig == OpSig::Linear || sig == OpSig::LinearWeightBackward ? x : g).clear();
  if (fault == 1) w = chance(2) ? Dims{d_in} : Dims{d_in, d_out, 1};
  if (fault == 2) b.push_back(1);
  if (fault == 3) (chance(2) ? w[0] : w[1]) += 1;
  if (fault == 4) (chance(2) ? g.front() : b[0]) += 1;
  if (sig == OpSig::Linear) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype)};
    if (fault == 2 || fault == 4 || chance(2)) c.operands.push_back(floats(b, c.dtype));
  } else if (sig == OpSig::LinearXBackward) {
    c.operands = {floats(w, c.dtype), floats(g, c.dtype)};
  } else if (sig == OpSig::LinearWeightBackward) {
    c.operands = {floats(x, c.dtype), floats(g, c.dtype)};
  } else {
    c.operands = {floats(g, c.dtype)};
  }
}

// The normalisations' epsilon: 1e-5 to 1, or 0 one time in eight (then a constant row or a zero
// variance is 0 / 0).
double norm_epsilon() {
  static const std::vector<double> kEpsilons{1e-5, 1e-3, 0.1, 1.0, 0.0};
  return kEpsilons[pick(0, chance(8) ? 4 : 3)];
}

// layer_norm over x [lead..., d] (lead 0..2 dims of 0..3, d 0..4), a weight [d] and a bias [d]
// half the time, epsilon from 1e-5 to 1 or 0 (then a row of equal values is 0 / 0). Faults: a
// scalar x, a weight of rank 0 or 2, a bias of rank 2, a weight or bias one off.
void gen_layer_norm(OpCase& c, bool bad) {
  Dims x(pick(0, 2));
  for (std::size_t& d : x) d = pick(0, 3);
  const std::size_t d = pick(0, 4);
  x.push_back(d);
  Dims w{d}, b{d};
  c.args.scalar = norm_epsilon();
  const int fault = bad ? static_cast<int>(pick(0, 4)) : -1;
  if (fault == 0) x.clear();
  if (fault == 1) w = chance(2) ? Dims{} : Dims{d, 1};
  if (fault == 2) b.push_back(1);
  if (fault == 3) (chance(2) ? w[0] : b[0]) += 1;
  if (fault == 4) w[0] += 1, b[0] += 1;
  c.operands = {floats(x, c.dtype), floats(w, c.dtype)};
  if (fault == 2 || fault == 3 || chance(2)) c.operands.push_back(floats(b, c.dtype));
}

// batch_norm over x [0..2, channels 0..3, 0..2 spatial dims of 1..3] with weight, bias, mean and
// variance [channels] (variances drawn non-negative but for a sign flip one time in eight), epsilon
// as layer_norm's. Faults: a rank-1 x, a statistic of rank 2, a statistic one off.
void gen_batch_norm(OpCase& c, bool bad) {
  const std::size_t channels = pick(0, 3);
  Dims x{pick(0, 2), channels};
  for (std::size_t d = pick(0, 2); d > 0; --d) x.push_back(pick(1, 3));
  c.args.scalar = norm_epsilon();
  std::vector<Dims> stats(4, Dims{channels});
  const int fault = bad ? static_cast<int>(pick(0, 2)) : -1;
  const std::size_t which = pick(0, 3);
  if (fault == 0) x = {channels};
  if (fault == 1) stats[which].push_back(1);
  if (fault == 2) stats[which][0] += 1;
  c.operands = {floats(x, c.dtype)};
  for (const Dims& s : stats) c.operands.push_back(floats(s, c.dtype));
  if (!chance(8)) {
    for (double& v : c.operands[4].values) v = std::fabs(v);
  }
}

// attention over query [batch, heads, seq_q, head_dim], key [.., seq_k, head_dim] and value
// [.., seq_k, value_dim] (batch 0..2, heads 1..2, the rest 0..4; head_dim 0 one time in eight),
// a Bool mask of the scores' shape half the time (rows fully masked among them), a bias a third of
// the time, a scale, a softcap and causal masking each drawn. Faults: a rank-3 query, a key of
// another head_dim, a value of another seq_k, a mask or bias of another shape, a softcap of 0, -1
// or NaN, a float mask (op-kind-mismatch through Dispatch).
void gen_attention(OpCase& c, bool bad) {
  const std::size_t batch = pick(0, 2), heads = pick(1, 2), sq = pick(0, 4), sk = pick(0, 4);
  const std::size_t dh = chance(8) ? 0 : pick(1, 4), dv = pick(0, 4);
  Dims q{batch, heads, sq, dh}, k{batch, heads, sk, dh}, v{batch, heads, sk, dv}, scores{batch, heads, sq, sk};
  AttentionOptions& o = c.args.attention;
  static const std::vector<double> kScales{0.5, 2.0, -1.0, 0.0};
  static const std::vector<double> kSoftcaps{1.0, 5.0, 30.0};
  if (chance(3)) o.scale = kScales[pick(0, 3)];
  if (chance(3)) o.softcap = kSoftcaps[pick(0, 2)];
  o.is_causal = chance(2);
  c.args.attention_mask = chance(2);
  c.args.attention_bias = chance(3);
  const int fault = bad ? static_cast<int>(pick(0, 6)) : -1;
  Dims mask = scores, bias = scores;
  if (fault == 0) q.erase(q.begin());
  if (fault == 1) k[3] += 1;
  if (fault == 2) v[2] += 1;
  if (fault == 3) c.args.attention_mask = true, mask[pick(0, 3)] += 1;
  if (fault == 4) c.args.attention_bias = true, bias[pick(0, 3)] += 1;
  if (fault == 5) o.softcap = std::vector<double>{0.0, -1.0, NAN}[pick(0, 2)];
  if (fault == 6) c.args.attention_mask = true;
  c.operands = {floats(q, c.dtype), floats(k, c.dtype), floats(v, c.dtype)};
  if (c.args.attention_mask) c.operands.push_back(fault == 6 ? floats(mask, c.dtype) : bools(mask));
  if (c.args.attention_bias) c.operands.push_back(floats(bias, c.dtype));
}

// rfft and irfft over any shape of rank 1..3 whose dim is a power of two 1..16 (irfft: a spectrum
// of n / 2 + 1 bins, n 2..16), n none or a power of two 1..16 (truncating or padding), one time in eight an
// empty other dim. Faults: a size that is no power of two (n 0, 3 or 6, or such a length), a dim
// past the rank, irfft's parts of two shapes.
void gen_fft(OpCase& c, bool bad) {
  const bool inverse = op_info(c.op).sig == OpSig::Irfft;
  Dims s;
  for (std::size_t d = 0, rank = pick(1, 3); d < rank; ++d) s.push_back(chance(8) ? 0 : pick(1, 3));
  c.args.dim = pick(0, s.size() - 1);
  const std::size_t n = std::size_t{1} << pick(inverse ? 1 : 0, 4);  // irfft's own size 2 (bins - 1) is at least 2
  s[c.args.dim] = inverse ? n / 2 + 1 : n;
  if (chance(3)) c.args.fft_size = std::size_t{1} << pick(0, 4);
  const int fault = bad ? static_cast<int>(pick(0, 3)) : -1;
  if (fault == 0) c.args.fft_size = std::vector<std::size_t>{0, 3, 6}[pick(0, 2)];
  if (fault == 1) c.args.fft_size.reset(), s[c.args.dim] = inverse ? 4 : 6;  // rfft: 6 samples; irfft: 2 (4 - 1)
  if (fault == 2) c.args.dim = s.size();
  c.operands = {floats(s, c.dtype)};
  if (inverse) {
    Dims other = s;
    if (fault == 3) other[0] += 1;
    c.operands.push_back(floats(other, c.dtype));
  }
}

std::optional<Dims> conv_shape(const Dims& x, const Dims& w, const Conv2dOptions& o) { return og::conv2d_shape(x, w, o); }
std::optional<Dims> conv_shape(const Dims& x, const Dims& w, const Conv3dOptions& o) { return og::conv3d_shape(x, w, o); }

// conv2d and conv3d (Options' spatial dims: 2 or 3) and their backward passes over x [0..2,
// channels, 1..5 per dim (3-D: 1..3)] with groups 1..2 dividing channels 0..4 and output channels
// (no batch or no channels one time in eight each), a kernel 1..3 per dim (3-D: 1..2), stride,
// padding 0..2 and dilation 1..2 (options redrawn until the kernel fits, so most cases are valid).
// Faults: x one rank short, a zero stride, groups that do not divide, a weight for other channels,
// a bias one off, a gradient one off.
template <class Options>
void gen_conv(OpCase& c, bool bad, Options& o) {
  constexpr std::size_t n = std::tuple_size_v<decltype(o.stride)>;
  const OpSig sig = op_info(c.op).sig;
  const std::size_t groups = pick(1, 2);
  const std::size_t cg = chance(8) ? 0 : pick(1, 2), cog = pick(1, 2);  // empty inputs one time in eight each
  Dims x{chance(8) ? 0 : pick(1, 2), cg * groups};
  for (std::size_t d = 0; d < n; ++d) x.push_back(pick(1, n == 3 ? 3 : 5));
  Dims w{cog * groups, cg};
  for (std::size_t d = 0; d < n; ++d) w.push_back(pick(1, n == 3 ? 2 : 3));
  o.groups = groups;
  for (int tries = 0;; ++tries) {
    for (std::size_t& v : o.stride) v = pick(1, 2);
    for (std::size_t& v : o.padding) v = pick(0, 2);
    for (std::size_t& v : o.dilation) v = pick(1, 2);
    if (conv_shape(x, w, o) || tries > 8) break;
  }
  const std::optional<Dims> out = conv_shape(x, w, o);
  Dims g = out ? *out : Dims{x[0], w[0]};
  if (!out) g.resize(n + 2, 1);
  Dims b{w[0]};
  const int fault = bad ? static_cast<int>(pick(0, 5)) : -1;
  if (fault == 0) x.erase(x.begin() + 2);
  if (fault == 1) o.stride[pick(0, n - 1)] = 0;
  if (fault == 2) o.groups = chance(2) ? 0 : 3;
  if (fault == 3) w[1] += 1;
  if (fault == 4) b[0] += 1;
  if (fault == 5) g[pick(0, n + 1)] += 1;
  if (sig == OpSig::Conv2d || sig == OpSig::Conv3d) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype)};
    if (fault == 4 || chance(2)) c.operands.push_back(floats(b, c.dtype));
  } else if (sig == OpSig::Conv2dBackward || sig == OpSig::Conv3dBackward) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype), floats(g, c.dtype)};
  } else {
    if (fault == 4) g[1] = b[0] - 1;  // the gradient's channels one off the bias
    c.operands = {floats(x, c.dtype), floats(b, c.dtype), floats(g, c.dtype)};
  }
}

// conv1d and its backward passes: gen_conv's cases on a single row, x [0..2, channels, 1..7],
// a kernel 1..3, stride 1..2, padding 0..2, dilation 1..2. Faults as gen_conv's (a rank-2 x).
void gen_conv1d(OpCase& c, bool bad) {
  const OpSig sig = op_info(c.op).sig;
  const std::size_t groups = pick(1, 2);
  const std::size_t cg = chance(8) ? 0 : pick(1, 2), cog = pick(1, 2);
  Dims x{chance(8) ? 0 : pick(1, 2), cg * groups, pick(1, 7)};
  Dims w{cog * groups, cg, pick(1, 3)};
  Conv1dOptions& o = c.args.conv1d;
  o.groups = groups;
  for (int tries = 0;; ++tries) {
    o.stride = {pick(1, 2)};
    o.padding = {pick(0, 2)};
    o.dilation = {pick(1, 2)};
    if (og::conv1d_shape(x, w, o) || tries > 8) break;
  }
  const std::optional<Dims> out = og::conv1d_shape(x, w, o);
  Dims g = out ? *out : Dims{x[0], w[0], 1};
  Dims b{w[0]};
  const int fault = bad ? static_cast<int>(pick(0, 5)) : -1;
  if (fault == 0) x.erase(x.begin() + 2);
  if (fault == 1) o.stride[0] = 0;
  if (fault == 2) o.groups = chance(2) ? 0 : 3;
  if (fault == 3) w[1] += 1;
  if (fault == 4) b[0] += 1;
  if (fault == 5) g[pick(0, 2)] += 1;
  if (sig == OpSig::Conv1d) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype)};
    if (fault == 4 || chance(2)) c.operands.push_back(floats(b, c.dtype));
  } else if (sig == OpSig::Conv1dBackward) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype), floats(g, c.dtype)};
  } else {
    if (fault == 4) g[1] = b[0] - 1;  // the gradient's channels one off the bias
    c.operands = {floats(x, c.dtype), floats(b, c.dtype), floats(g, c.dtype)};
  }
}

std::optional<Dims> transposed_shape(const Dims& x, const Dims& w, const ConvTranspose2dOptions& o) {
  return og::conv_transpose2d_shape(x, w, o);
}
std::optional<Dims> transposed_shape(const Dims& x, const Dims& w, const ConvTranspose1dOptions& o) {
  return og::conv_transpose1d_shape(x, w, o);
}
std::optional<Dims> transposed_shape(const Dims& x, const Dims& w, const ConvTranspose3dOptions& o) {
  return og::conv_transpose3d_shape(x, w, o);
}

// conv_transpose1d, 2d and 3d (Options' spatial dims: 1, 2 or 3) and their backward passes
// over x [0..2, channels, 1..4 per dim] with groups 1..2 dividing channels 0..4 (no batch or no
// input channels one time in eight each), a kernel 1..3, stride and dilation 1..2, padding 0..2
// and padding_out below the stride or dilation (options redrawn until the output has cells, so
// most cases are valid). Faults: x one rank short, a zero stride, groups that do not divide, a
// weight for other input channels, a bias one off, padding_out at the stride and dilation, a
// gradient one off.
template <class Options>
void gen_conv_transpose(OpCase& c, bool bad, Options& o) {
  constexpr std::size_t n = std::tuple_size_v<decltype(o.stride)>;
  const OpSig sig = op_info(c.op).sig;
  const std::size_t groups = pick(1, 2);
  const std::size_t cg = chance(8) ? 0 : pick(1, 2), cog = pick(1, 2);
  Dims x{chance(8) ? 0 : pick(1, 2), cg * groups};
  for (std::size_t d = 0; d < n; ++d) x.push_back(pick(1, 4));
  Dims w{cg * groups, cog};
  for (std::size_t d = 0; d < n; ++d) w.push_back(pick(1, 3));
  o.groups = groups;
  for (int tries = 0;; ++tries) {
    for (std::size_t& v : o.stride) v = pick(1, 2);
    for (std::size_t& v : o.padding) v = pick(0, 2);
    for (std::size_t& v : o.dilation) v = pick(1, 2);
    for (std::size_t d = 0; d < n; ++d) o.padding_out[d] = pick(0, std::max(o.stride[d], o.dilation[d]) - 1);
    if (transposed_shape(x, w, o) || tries > 8) break;
  }
  const std::optional<Dims> out = transposed_shape(x, w, o);
  Dims g = out ? *out : Dims{x[0], w[1] * groups};
  if (!out) g.resize(n + 2, 1);
  Dims b{w[1] * groups};
  const int fault = bad ? static_cast<int>(pick(0, 6)) : -1;
  if (fault == 0) x.erase(x.begin() + 2);
  if (fault == 1) o.stride[pick(0, n - 1)] = 0;
  if (fault == 2) o.groups = chance(2) ? 0 : 3;
  if (fault == 3) w[0] += 1;
  if (fault == 4) b[0] += 1;
  if (fault == 5) {
    const std::size_t d = pick(0, n - 1);
    o.padding_out[d] = std::max(o.stride[d], o.dilation[d]);
  }
  if (fault == 6) g[pick(0, n + 1)] += 1;
  if (sig == OpSig::ConvTranspose2d || sig == OpSig::ConvTranspose1d || sig == OpSig::ConvTranspose3d) {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype)};
    if (fault == 4 || chance(2)) c.operands.push_back(floats(b, c.dtype));
  } else {
    c.operands = {floats(x, c.dtype), floats(w, c.dtype), floats(g, c.dtype)};
  }
}

void gen_float_case(OpCase& c, bool bad) {
  const OpId op = c.op;
  const OpInfo& info = op_info(op);
  switch (info.sig) {
    case OpSig::Unary: c.operands = {floats(any_shape(), c.dtype)}; break;
    case OpSig::Binary: gen_binary(c, bad); break;
    case OpSig::Scalar:
      c.operands = {floats(any_shape(), c.dtype)};
      c.args.scalar = *rc::gen::elementOf(std::vector<double>{0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 0.1, 1e30, NAN, INFINITY, -INFINITY});
      break;
    case OpSig::Bounds: {
      c.operands = {floats(any_shape(), c.dtype)};
      const std::vector<double> ends{-1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0, INFINITY, -INFINITY, 1e-40, 1e300, -1e300};
      double lo = *rc::gen::elementOf(ends), hi = *rc::gen::elementOf(ends);
      if (hi < lo) std::swap(lo, hi);
      if (bad) {
        if (lo < hi) std::swap(lo, hi);
        else lo = NAN;
      }
      c.args.min = lo;
      c.args.max = hi;
      break;
    }
    case OpSig::Dim: {
      const Dims s = any_shape(chance(8) ? 0 : 1);
      c.operands = {floats(s, c.dtype)};
      gen_dims_op(c, bad, s);
      break;
    }
    case OpSig::DimPair: {
      const Dims s = any_shape(chance(8) ? 0 : 1);
      c.operands = {floats(s, c.dtype)};
      c.args.dim = s.empty() ? 0 : pick(0, s.size() - 1);
      c.args.dim1 = s.empty() ? 0 : pick(0, s.size() - 1);
      if (bad) (chance(2) ? c.args.dim : c.args.dim1) = s.size() + pick(0, 1);
      break;
    }
    case OpSig::ToShape: {
      const Dims s = any_shape();
      c.operands = {floats(s, c.dtype)};
      if (op_stem(op) == "expand") gen_expand(c, bad, s);
      else gen_reshape(c, bad, s);
      break;
    }
    case OpSig::ToDType: {
      const Dims s = any_shape();
      switch (info.operand) {
        case OpKind::Float: c.operands = {floats(s, c.dtype)}; break;
        case OpKind::Int: c.operands = {ints(s, *rc::gen::elementOf(std::vector<DType>{DType::I64, DType::I32, DType::I8, DType::U8}))}; break;
        case OpKind::Bool: c.operands = {bools(s)}; break;
      }
      if (info.result == OpKind::Int) {  // float_into_int: an int target
        c.args.dtype = bad ? *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::Bool})
                           : *rc::gen::elementOf(std::vector<DType>{DType::I64, DType::I32, DType::I8, DType::U8});
      } else {
        c.args.dtype = bad ? *rc::gen::elementOf(std::vector<DType>{DType::I64, DType::Bool}) : *rc::gen::elementOf(std::vector<DType>{DType::F32, DType::F64});
      }
      break;
    }
    case OpSig::Axes: {
      const Dims s = any_shape();
      c.operands = {floats(s, c.dtype)};
      gen_permute(c, bad, s);
      break;
    }
    case OpSig::Ranges: {
      const Dims s = any_shape();
      c.operands = {floats(s, c.dtype)};
      gen_slice(c, bad, s);
      break;
    }
    case OpSig::RangesAssign: {
      // The block's values (of its shape, or a dim off by one when the case is bad and the
      // ranges are valid: assign-shape-mismatch).
      const Dims s = any_shape();
      c.operands = {floats(s, c.dtype)};
      gen_slice(c, bad && chance(2), s);
      Dims block = s;
      for (std::size_t d = 0; d < c.args.ranges.size() && d < s.size(); ++d) {
        const Range r = c.args.ranges[d];
        block[d] = r.start <= r.end && r.end <= s[d] ? r.end - r.start : s[d];
      }
      if (bad && c.args.ranges.size() <= s.size() && !block.empty()) block[pick(0, block.size() - 1)] += 1;
      c.operands.push_back(floats(block, c.dtype));
      break;
    }
    case OpSig::Select: gen_select(c, bad, false); break;
    case OpSig::SelectAssign: gen_select(c, bad, true); break;
    case OpSig::Gather: gen_gather(c, bad, false); break;
    case OpSig::Scatter: gen_gather(c, bad, true); break;
    case OpSig::ScatterUpdate:
      gen_gather(c, bad, true);
      c.args.update = *rc::gen::elementOf(std::vector<IndexingUpdateOp>(std::begin(kIndexingUpdateOps), std::end(kIndexingUpdateOps)));
      break;
    case OpSig::GatherNd: gen_nd(c, bad, false); break;
    case OpSig::ScatterNd: gen_nd(c, bad, true); break;
    case OpSig::Affine: {
      c.operands = {floats(any_shape(), c.dtype)};
      const std::vector<double> scalars{1.0 / 6, 0.2, 1.0, -1.0, 0.5, 0.0, -0.0, 2.5, 1e30, NAN, INFINITY};
      c.args.alpha = *rc::gen::elementOf(scalars);
      c.args.beta = *rc::gen::elementOf(std::vector<double>{0.5, 0.0, 1.0, -0.25, 3.0, -0.0, NAN});
      break;
    }
    case OpSig::Repeat: {
      const Dims s = any_shape(1);
      c.operands = {floats(s, c.dtype)};
      c.args.dim = bad ? s.size() + pick(0, 1) : pick(0, s.size() - 1);
      c.args.times = pick(0, 3);
      break;
    }
    case OpSig::Window: {
      const Dims s = any_shape(1);
      c.operands = {floats(s, c.dtype)};
      c.args.dim = pick(0, s.size() - 1);
      c.args.size = pick(0, 4);
      c.args.step = pick(1, 3);
      if (bad) {
        if (chance(2)) c.args.dim = s.size() + pick(0, 1);  // dim-out-of-range
        else c.args.step = 0;                               // unfold-step
      }
      break;
    }
    case OpSig::Sort: {
      const Dims s = any_shape(1);
      c.operands = {floats(s, c.dtype)};
      c.args.dim = bad ? s.size() + pick(0, 1) : pick(0, s.size() - 1);
      c.args.descending = chance(2);
      break;
    }
    case OpSig::TopK: {
      const Dims s = any_shape(1);
      c.operands = {floats(s, c.dtype)};
      c.args.dim = pick(0, s.size() - 1);
      const std::size_t len = s[c.args.dim];
      c.args.k = pick(0, len);
      if (bad) {
        if (chance(2)) c.args.dim = s.size() + pick(0, 1);  // dim-out-of-range
        else c.args.k = len + pick(1, 2);                   // topk-k
      }
      break;
    }
    case OpSig::BinaryDim: gen_cross(c, bad); break;
    case OpSig::MaskWhere: gen_masked(c, bad, true); break;
    case OpSig::MaskFill: gen_masked(c, bad, false); break;
    case OpSig::MaskSelect: {
      // A Bool mask of the receiver's shape; faults: an int mask (op-kind-mismatch through
      // Dispatch), a mask of another shape (mask-select-shape).
      const Dims s = any_shape();
      Dims mask_shape = s;
      const int fault = bad ? static_cast<int>(pick(0, 1)) : -1;
      if (fault == 1) mask_shape.push_back(1);
      std::vector<double> m(og::element_count(mask_shape));
      for (double& v : m) v = chance(2) ? 1 : 0;
      c.operands = {floats(s, c.dtype), og::HostArray{mask_shape, fault == 0 ? DType::I64 : DType::Bool, m}};
      break;
    }
    case OpSig::Cat: gen_cat(c, bad); break;
    case OpSig::AvgPool2d: gen_avg_pool(c, bad, false, c.args.avg_pool2d); break;
    case OpSig::AvgPool2dBackward: gen_avg_pool(c, bad, true, c.args.avg_pool2d); break;
    case OpSig::AdaptivePool2d: gen_adaptive_avg_pool(c, bad, false, c.args.output_size); break;
    case OpSig::AdaptivePool2dBackward: gen_adaptive_avg_pool(c, bad, true, c.args.output_size); break;
    case OpSig::AdaptivePool3d: gen_adaptive_avg_pool(c, bad, false, c.args.output_size_3d); break;
    case OpSig::AdaptivePool3dBackward: gen_adaptive_avg_pool(c, bad, true, c.args.output_size_3d); break;
    case OpSig::MaxPool2d: gen_max_pool(c, bad, false, c.args.max_pool2d); break;
    case OpSig::MaxPool2dBackward: gen_max_pool(c, bad, true, c.args.max_pool2d); break;
    case OpSig::AvgPool1d: gen_avg_pool(c, bad, false, c.args.avg_pool1d); break;
    case OpSig::AvgPool1dBackward: gen_avg_pool(c, bad, true, c.args.avg_pool1d); break;
    case OpSig::AdaptivePool1d: gen_adaptive_avg_pool(c, bad, false, c.args.output_size_1d); break;
    case OpSig::AdaptivePool1dBackward: gen_adaptive_avg_pool(c, bad, true, c.args.output_size_1d); break;
    case OpSig::MaxPool1d: gen_max_pool(c, bad, false, c.args.max_pool1d); break;
    case OpSig::MaxPool1dBackward: gen_max_pool(c, bad, true, c.args.max_pool1d); break;
    case OpSig::Unfold4d: gen_unfold4d(c, bad); break;
    case OpSig::Fold4d: gen_fold4d(c, bad); break;
    case OpSig::Interpolate: gen_interpolate(c, bad, false); break;
    case OpSig::InterpolateBackward: gen_interpolate(c, bad, true); break;
    case OpSig::Embedding: gen_embedding(c, bad, false); break;
    case OpSig::EmbeddingBackward: gen_embedding(c, bad, true); break;
    case OpSig::Linear:
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward: gen_linear(c, bad); break;
    case OpSig::LayerNorm: gen_layer_norm(c, bad); break;
    case OpSig::Attention: gen_attention(c, bad); break;
    case OpSig::BatchNorm: gen_batch_norm(c, bad); break;
    case OpSig::Rfft:
    case OpSig::Irfft: gen_fft(c, bad); break;
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward:
    case OpSig::Conv2dBiasBackward: gen_conv(c, bad, c.args.conv2d); break;
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward:
    case OpSig::Conv3dBiasBackward: gen_conv(c, bad, c.args.conv3d); break;
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: gen_conv_transpose(c, bad, c.args.conv_transpose3d); break;
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward: gen_conv_transpose(c, bad, c.args.conv_transpose2d); break;
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward: gen_conv_transpose(c, bad, c.args.conv_transpose1d); break;
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward:
    case OpSig::Conv1dBiasBackward: gen_conv1d(c, bad); break;
  }
}

// A layout op's case in its kind: each operand of the float case's dtype becomes one of the kind
// with the same shape (int: any int dtype with its edges; bool), one of the other float dtype the
// other int dtype (dtype-mismatch) or, for bool, stays a float (op-kind-mismatch); index tensors
// stay. A bad case sometimes has a float receiver (op-kind-mismatch through Dispatch).
void rekind(OpCase& c, bool bad) {
  const bool is_int = op_info(c.op).operand == OpKind::Int;
  const DType primary = c.dtype;
  const DType kind_dtype = is_int ? int_dtype() : DType::Bool;
  for (og::HostArray& h : c.operands) {
    if (h.dtype != DType::F32 && h.dtype != DType::F64) continue;
    if (h.dtype == primary) h = is_int ? int_operand(h.shape, kind_dtype, false) : bools(h.shape);
    else if (is_int) h = int_operand(h.shape, other_int(kind_dtype), false);
  }
  if (bad && !c.operands.empty() && chance(4)) c.operands[0] = floats(c.operands[0].shape, DType::F32);
  c.dtype = kind_dtype;
}

}  // namespace


std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string show(const og::HostArray& h) {
  std::string s = og::render_dtype(h.dtype) + og::render_shape(h.shape) + " [";
  if (h.exact.size() == h.values.size() && !h.exact.empty()) {  // I64 values beyond 2^53
    for (std::size_t i = 0; i < h.exact.size(); ++i) s += (i ? ", " : "") + std::to_string(h.exact[i]);
    return s + "]";
  }
  for (std::size_t i = 0; i < h.values.size(); ++i) s += (i ? ", " : "") + show(h.values[i]);
  return s + "]";
}
std::string show(const std::vector<std::size_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}
std::string describe(const OpCase& c) {
  std::string s = std::string(op_info(c.op).name) + " on " + og::all_backends().at(c.backend).name + (c.tracked ? " (tracked)" : " (plain)");
  for (std::size_t i = 0; i < c.operands.size(); ++i) s += "\n  operand " + std::to_string(i) + ": " + show(c.operands[i]);
  const og::OpArgs& a = c.args;
  switch (op_info(c.op).sig) {
    case OpSig::Unary:
    case OpSig::Binary: break;
    case OpSig::Scalar:
    case OpSig::MaskFill: s += "\n  scalar " + show(a.scalar); break;
    case OpSig::MaskWhere:
    case OpSig::MaskSelect: break;
    case OpSig::Affine: s += "\n  alpha " + show(a.alpha) + " beta " + show(a.beta); break;
    case OpSig::Repeat: s += "\n  dim " + std::to_string(a.dim) + " times " + std::to_string(a.times); break;
    case OpSig::Window:
      s += "\n  dim " + std::to_string(a.dim) + " size " + std::to_string(a.size) + " step " + std::to_string(a.step);
      break;
    case OpSig::Sort: s += "\n  dim " + std::to_string(a.dim) + (a.descending ? " descending" : " ascending"); break;
    case OpSig::TopK: s += "\n  dim " + std::to_string(a.dim) + " k " + std::to_string(a.k); break;
    case OpSig::Bounds: s += "\n  min " + show(a.min) + " max " + show(a.max); break;
    case OpSig::DimPair: s += "\n  dim1 " + std::to_string(a.dim1); [[fallthrough]];
    case OpSig::Dim:
    case OpSig::Select:
    case OpSig::SelectAssign:
    case OpSig::Gather:
    case OpSig::Scatter:
    case OpSig::BinaryDim:
    case OpSig::Cat: s += "\n  dim " + std::to_string(a.dim); break;
    case OpSig::ScatterUpdate:
      s += "\n  dim " + std::to_string(a.dim) + " update " + std::string(indexing_update_name(a.update));
      break;
    case OpSig::GatherNd:
    case OpSig::Embedding:
    case OpSig::EmbeddingBackward:
    case OpSig::LayerNorm:
    case OpSig::BatchNorm: s += "\n  epsilon " + show(a.scalar); break;
    case OpSig::Attention:
      s += std::string("\n  mask ") + (a.attention_mask ? "given" : "none") + ", bias " + (a.attention_bias ? "given" : "none") +
           ", scale " + (a.attention.scale ? show(*a.attention.scale) : "default") + ", softcap " +
           (a.attention.softcap ? show(*a.attention.softcap) : "none") + (a.attention.is_causal ? ", causal" : "");
      break;
    case OpSig::Linear:  // the bias is operand 2 when there is one
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
    case OpSig::Conv2dBiasBackward: break;
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward: {
      const Conv2dOptions& o = a.conv2d;
      const auto pair = [](const Size2& v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      s += "\n  stride " + pair(o.stride) + " padding " + pair(o.padding) + " dilation " + pair(o.dilation) + " groups " +
           std::to_string(o.groups);
      break;
    }
    case OpSig::Conv1dBiasBackward: break;
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward: {
      const Conv1dOptions& o = a.conv1d;
      s += "\n  stride [" + std::to_string(o.stride[0]) + "] padding [" + std::to_string(o.padding[0]) + "] dilation [" +
           std::to_string(o.dilation[0]) + "] groups " + std::to_string(o.groups);
      break;
    }
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward: {
      const ConvTranspose1dOptions& o = a.conv_transpose1d;
      s += "\n  stride [" + std::to_string(o.stride[0]) + "] padding [" + std::to_string(o.padding[0]) + "] padding_out [" +
           std::to_string(o.padding_out[0]) + "] dilation [" + std::to_string(o.dilation[0]) + "] groups " +
           std::to_string(o.groups);
      break;
    }
    case OpSig::Rfft:
    case OpSig::Irfft:
      s += "\n  dim " + std::to_string(a.dim) + " n " + (a.fft_size ? std::to_string(*a.fft_size) : std::string("none"));
      break;
    case OpSig::Conv3dBiasBackward: break;
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward: {
      const Conv3dOptions& o = a.conv3d;
      s += "\n  stride " + show(std::vector<std::size_t>(o.stride.begin(), o.stride.end())) + " padding " +
           show(std::vector<std::size_t>(o.padding.begin(), o.padding.end())) + " dilation " +
           show(std::vector<std::size_t>(o.dilation.begin(), o.dilation.end())) + " groups " + std::to_string(o.groups);
      break;
    }
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: {
      const ConvTranspose3dOptions& o = a.conv_transpose3d;
      s += "\n  stride " + show(std::vector<std::size_t>(o.stride.begin(), o.stride.end())) + " padding " +
           show(std::vector<std::size_t>(o.padding.begin(), o.padding.end())) + " padding_out " +
           show(std::vector<std::size_t>(o.padding_out.begin(), o.padding_out.end())) + " dilation " +
           show(std::vector<std::size_t>(o.dilation.begin(), o.dilation.end())) + " groups " + std::to_string(o.groups);
      break;
    }
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward: {
      const ConvTranspose2dOptions& o = a.conv_transpose2d;
      const auto pair = [](const Size2& v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      s += "\n  stride " + pair(o.stride) + " padding " + pair(o.padding) + " padding_out " + pair(o.padding_out) + " dilation " +
           pair(o.dilation) + " groups " + std::to_string(o.groups);
      break;
    }
    case OpSig::ScatterNd: s += "\n  update " + std::string(indexing_update_name(a.update)); break;
    case OpSig::ToShape: s += "\n  shape " + show(a.shape); break;
    case OpSig::ToDType: s += "\n  dtype " + og::render_dtype(a.dtype); break;
    case OpSig::Axes: s += "\n  axes " + show(a.axes); break;
    case OpSig::Ranges:
    case OpSig::RangesAssign:
      s += "\n  ranges";
      for (const Range& r : a.ranges) s += " [" + std::to_string(r.start) + ", " + std::to_string(r.end) + ")";
      break;
    case OpSig::AvgPool2d:
    case OpSig::AvgPool2dBackward: {
      const AvgPool2dOptions& o = a.avg_pool2d;
      const auto pair = [](const Size2& v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      s += "\n  kernel_size " + pair(o.kernel_size) + " stride " + pair(o.stride) + " padding " + pair(o.padding) +
           (o.count_include_pad ? " count_include_pad" : "") + (o.ceil_mode ? " ceil_mode" : "");
      break;
    }
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward:
      s += "\n  output_size [" + std::to_string(a.output_size[0]) + ", " + std::to_string(a.output_size[1]) + "]";
      break;
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward:
      s += "\n  output_size [" + std::to_string(a.output_size_3d[0]) + ", " + std::to_string(a.output_size_3d[1]) + ", " +
           std::to_string(a.output_size_3d[2]) + "]";
      break;
    case OpSig::MaxPool2d:
    case OpSig::MaxPool2dBackward: {
      const MaxPool2dOptions& o = a.max_pool2d;
      const auto pair = [](const Size2& v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      s += "\n  kernel_size " + pair(o.kernel_size) + " stride " + pair(o.stride) + " padding " + pair(o.padding) +
           " dilation " + pair(o.dilation) + (o.ceil_mode ? " ceil_mode" : "");
      break;
    }
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward: {
      const AvgPool1dOptions& o = a.avg_pool1d;
      s += "\n  kernel_size [" + std::to_string(o.kernel_size[0]) + "] stride [" + std::to_string(o.stride[0]) + "] padding [" +
           std::to_string(o.padding[0]) + "]" + (o.count_include_pad ? " count_include_pad" : "") + (o.ceil_mode ? " ceil_mode" : "");
      break;
    }
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward: s += "\n  output_size [" + std::to_string(a.output_size_1d[0]) + "]"; break;
    case OpSig::Interpolate:
    case OpSig::InterpolateBackward: {
      static constexpr const char* kModes[] = {"nearest", "nearest_exact", "bilinear", "bicubic"};
      const unsigned m = static_cast<unsigned>(a.interpolate.mode);
      s += "\n  output_size [" + std::to_string(a.output_size[0]) + ", " + std::to_string(a.output_size[1]) + "] mode " +
           (m < 4 ? std::string(kModes[m]) : "code " + std::to_string(m)) + (a.interpolate.align_corners ? " align_corners" : "");
      break;
    }
    case OpSig::Unfold4d:
    case OpSig::Fold4d: {
      const auto pair = [](const Size2& v) { return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]"; };
      if (op_info(c.op).sig == OpSig::Fold4d) s += "\n  output_size " + pair(a.output_size);
      s += "\n  kernel_size " + pair(a.unfold_kernel) + " stride " + pair(a.unfold.stride) + " padding " + pair(a.unfold.padding) +
           " dilation " + pair(a.unfold.dilation);
      break;
    }
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward: {
      const MaxPool1dOptions& o = a.max_pool1d;
      s += "\n  kernel_size [" + std::to_string(o.kernel_size[0]) + "] stride [" + std::to_string(o.stride[0]) + "] padding [" +
           std::to_string(o.padding[0]) + "] dilation [" + std::to_string(o.dilation[0]) + "]" + (o.ceil_mode ? " ceil_mode" : "");
      break;
    }
  }
  return s;
}

}  // namespace crossgrad::properties::gen
