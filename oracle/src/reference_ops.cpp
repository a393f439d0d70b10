// The reference evaluator (Note [The reference evaluator] in reference_ops.hpp): one formula per
// registry op, written from docs/OPS.md, over host arrays in double storage, computed in T.
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/graph.hpp>  // is_hop, is_op_code: a graph hop is the identity here

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace crossgrad::oracle {
namespace {

// An invalid argument: the catalog id the spec gives it.
struct Invalid {
  std::string id;
};
[[noreturn]] void invalid(std::string id) { throw Invalid{std::move(id)}; }

using Dims = std::vector<std::size_t>;

std::size_t count(const Dims& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

Dims strides(const Dims& shape) {
  Dims s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// The coordinates of flat index `flat` in `shape`.
Dims coords(std::size_t flat, const Dims& shape) {
  Dims c(shape.size(), 0);
  for (std::size_t i = shape.size(); i-- > 0;) {
    c[i] = flat % shape[i];
    flat /= shape[i];
  }
  return c;
}

bool is_float_dtype(DType d) { return d == DType::F32 || d == DType::F64; }
bool is_int_dtype(DType d) { return d == DType::I64 || d == DType::I32 || d == DType::I8 || d == DType::U8; }

void require_float(DType d) {
  if (!is_float_dtype(d)) invalid("unsupported-dtype");
}
void require_same(DType a, DType b) {
  if (a != b) invalid("dtype-mismatch");
}
void require_dim(std::size_t dim, std::size_t rank) {
  if (dim >= rank) invalid("dim-out-of-range");
}

// Calls f(T{}) with T the C++ type of a float dtype.
template <class F>
auto with_t(DType d, F&& f) {
  if (d == DType::F64) return f(double{});
  return f(float{});
}

template <class T>
double in_t(T v) {
  return static_cast<double>(v);
}

// NumPy broadcasting: aligned from the right, each pair equal or one of them 1.
Dims broadcast(const Dims& a, const Dims& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::size_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) invalid("broadcast-mismatch");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// The flat index into `small` of the element at `c` (coordinates in a broadcast shape).
std::size_t broadcast_offset(const Dims& c, const Dims& small) {
  const Dims s = strides(small);
  const std::size_t lead = c.size() - small.size();
  std::size_t off = 0;
  for (std::size_t i = 0; i < small.size(); ++i) {
    if (small[i] != 1) off += c[lead + i] * s[i];
  }
  return off;
}

HostArray make(Dims shape, DType dtype) {
  HostArray out;
  out.values.assign(count(shape), 0.0);
  out.shape = std::move(shape);
  out.dtype = dtype;
  return out;
}

// Element-wise over one float operand, in T.
template <class F>
HostArray unary(const HostArray& x, F f) {
  require_float(x.dtype);
  HostArray out = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < x.values.size(); ++i) out.values[i] = in_t<T>(f(static_cast<T>(x.values[i])));
  });
  return out;
}

// Element-wise over two broadcast float operands, in T; `result` is the output dtype (Bool for
// comparisons, whose f returns bool).
template <class F>
HostArray binary(const HostArray& a, const HostArray& b, bool to_bool, F f) {
  require_float(a.dtype);
  require_float(b.dtype);
  require_same(a.dtype, b.dtype);
  const Dims shape = broadcast(a.shape, b.shape);
  HostArray out = make(shape, to_bool ? DType::Bool : a.dtype);
  with_t(a.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < out.values.size(); ++i) {
      const Dims c = coords(i, shape);
      const T x = static_cast<T>(a.values[broadcast_offset(c, a.shape)]);
      const T y = static_cast<T>(b.values[broadcast_offset(c, b.shape)]);
      out.values[i] = static_cast<double>(f(x, y));
    }
  });
  return out;
}

// Element-wise over one float operand to a Bool result: f(x, s) in T, with the scalar s rounded
// to T first (docs/OPS.md "Scalar arguments").
template <class F>
HostArray compare_scalar(const HostArray& x, double scalar, F f) {
  require_float(x.dtype);
  HostArray out = make(x.shape, DType::Bool);
  with_t(x.dtype, [&]<class T>(T) {
    const T s = static_cast<T>(scalar);
    for (std::size_t i = 0; i < x.values.size(); ++i) out.values[i] = f(static_cast<T>(x.values[i]), s) ? 1 : 0;
  });
  return out;
}

// Views a tensor as [outer, len, inner] around `dim`.
struct Around {
  std::size_t outer = 1, len = 1, inner = 1;
  Around(const Dims& shape, std::size_t dim) {
    for (std::size_t d = 0; d < dim; ++d) outer *= shape[d];
    len = shape[dim];
    for (std::size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  }
  std::size_t at(std::size_t i, std::size_t r, std::size_t j) const { return (i * len + r) * inner + j; }
};

// sum_dim / mean_dim: dim kept with size 1; the sum in index order in T, the mean divided by len.
HostArray reduce_dim(const HostArray& x, std::size_t dim, bool mean) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  Dims shape = x.shape;
  shape[dim] = 1;
  HostArray out = make(shape, x.dtype);
  const Around v(x.shape, dim);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t j = 0; j < v.inner; ++j) {
        T acc = T(0);
        for (std::size_t r = 0; r < v.len; ++r) acc += static_cast<T>(x.values[v.at(i, r, j)]);
        if (mean) acc /= static_cast<T>(v.len);
        out.values[i * v.inner + j] = in_t<T>(acc);
      }
    }
  });
  return out;
}

// The max scan of docs/OPS.md: the first NaN if any, else the first of the equal maxima (with
// `min`: minima). Returns the index along dim the scan keeps.
template <class T>
std::size_t max_scan(const HostArray& x, const Around& v, std::size_t i, std::size_t j, bool min = false) {
  std::size_t best = 0;
  T m = static_cast<T>(x.values[v.at(i, 0, j)]);
  for (std::size_t r = 1; r < v.len; ++r) {
    const T e = static_cast<T>(x.values[v.at(i, r, j)]);
    if (!std::isnan(m) && (std::isnan(e) || (min ? e < m : e > m))) {
      m = e;
      best = r;
    }
  }
  return best;
}

// max_dim (the value) or argmax (its index, I64); with `min`, min_dim or argmin.
HostArray max_along(const HostArray& x, std::size_t dim, bool index, bool min = false) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  if (x.shape[dim] == 0) invalid("empty-reduction");
  Dims shape = x.shape;
  shape[dim] = 1;
  HostArray out = make(shape, index ? DType::I64 : x.dtype);
  const Around v(x.shape, dim);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t j = 0; j < v.inner; ++j) {
        const std::size_t r = max_scan<T>(x, v, i, j, min);
        out.values[i * v.inner + j] = index ? static_cast<double>(r) : x.values[v.at(i, r, j)];
      }
    }
  });
  return out;
}

// softmax / log_softmax along dim, in T: m the max scan's value, e = exp(x - m), s = sum e in
// index order, y = e / s or (x - m) - log(s). A 0 dim anywhere: an empty result.
HostArray softmax_along(const HostArray& x, std::size_t dim, bool log) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  HostArray out = make(x.shape, x.dtype);
  if (out.values.empty()) return out;
  const Around v(x.shape, dim);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t j = 0; j < v.inner; ++j) {
        const T m = static_cast<T>(x.values[v.at(i, max_scan<T>(x, v, i, j), j)]);
        T s = T(0);
        for (std::size_t r = 0; r < v.len; ++r) s += std::exp(static_cast<T>(x.values[v.at(i, r, j)]) - m);
        for (std::size_t r = 0; r < v.len; ++r) {
          const T shifted = static_cast<T>(x.values[v.at(i, r, j)]) - m;
          out.values[v.at(i, r, j)] = in_t<T>(log ? shifted - std::log(s) : std::exp(shifted) / s);
        }
      }
    }
  });
  return out;
}

// cumsum / cumprod (docs/OPS.md): y_r is the fold of x_0 .. x_r in T, in index order, written
// here as its definition (each prefix folded anew) rather than as a running value.
template <class Step>
HostArray scan_along(const HostArray& x, std::size_t dim, Step step) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  HostArray out = make(x.shape, x.dtype);
  if (out.values.empty()) return out;
  const Around v(x.shape, dim);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t j = 0; j < v.inner; ++j) {
        for (std::size_t r = 0; r < v.len; ++r) {
          T acc = static_cast<T>(x.values[v.at(i, 0, j)]);
          for (std::size_t k = 1; k <= r; ++k) acc = step(acc, static_cast<T>(x.values[v.at(i, k, j)]));
          out.values[v.at(i, r, j)] = in_t<T>(acc);
        }
      }
    }
  });
  return out;
}

// Element c of the result is element c of x with every flipped coordinate mirrored.
HostArray flip(const HostArray& x, const Dims& axes) {
  require_float(x.dtype);
  std::vector<bool> flipped(x.shape.size(), false);
  for (std::size_t a : axes) {
    if (a >= x.shape.size() || flipped[a]) invalid("flip-invalid");
    flipped[a] = true;
  }
  HostArray out = make(x.shape, x.dtype);
  const Dims in_strides = strides(x.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    const Dims c = coords(f, x.shape);
    std::size_t off = 0;
    for (std::size_t d = 0; d < c.size(); ++d) off += (flipped[d] ? x.shape[d] - 1 - c[d] : c[d]) * in_strides[d];
    out.values[f] = x.values[off];
  }
  return out;
}

// Result dim i is input dim axes[i] (a permutation, checked by the caller).
HostArray permuted(const HostArray& x, const Dims& axes) {
  Dims shape(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) shape[i] = x.shape[axes[i]];
  HostArray out = make(shape, x.dtype);
  const Dims in_strides = strides(x.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    const Dims c = coords(f, shape);
    std::size_t off = 0;
    for (std::size_t i = 0; i < axes.size(); ++i) off += c[i] * in_strides[axes[i]];
    out.values[f] = x.values[off];
  }
  return out;
}

// The shapes of [batch.., m, k] x [batch'.., k, n] (float_matmul, int_matmul): matmul-rank,
// matmul-inner-dim, then the batch dims' broadcast.
struct MatmulShapes {
  std::size_t m, k, n;
  Dims a_batch, b_batch, batch, shape;
};
MatmulShapes matmul_shapes(const Dims& a, const Dims& b) {
  if (a.size() < 2 || b.size() < 2) invalid("matmul-rank");
  MatmulShapes s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (s.k != b[b.size() - 2]) invalid("matmul-inner-dim");
  s.a_batch = Dims(a.begin(), a.end() - 2);
  s.b_batch = Dims(b.begin(), b.end() - 2);
  s.batch = broadcast(s.a_batch, s.b_batch);
  s.shape = s.batch;
  s.shape.push_back(s.m);
  s.shape.push_back(s.n);
  return s;
}

HostArray matmul(const HostArray& a, const HostArray& b) {
  require_float(a.dtype);
  require_float(b.dtype);
  require_same(a.dtype, b.dtype);
  const MatmulShapes ms = matmul_shapes(a.shape, b.shape);
  const std::size_t m = ms.m, k = ms.k, n = ms.n;
  const Dims &a_batch = ms.a_batch, &b_batch = ms.b_batch, &batch = ms.batch;
  HostArray out = make(ms.shape, a.dtype);
  with_t(a.dtype, [&]<class T>(T) {
    for (std::size_t bi = 0; bi < count(batch) && m * n > 0; ++bi) {
      const Dims c = coords(bi, batch);
      const std::size_t ao = broadcast_offset(c, a_batch) * m * k, bo = broadcast_offset(c, b_batch) * k * n;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          T acc = T(0);
          for (std::size_t p = 0; p < k; ++p) {
            acc += static_cast<T>(a.values[ao + i * k + p]) * static_cast<T>(b.values[bo + p * n + j]);
          }
          out.values[(bi * m + i) * n + j] = in_t<T>(acc);
        }
      }
    }
  });
  return out;
}

HostArray cat(const std::vector<HostArray>& xs, std::size_t dim) {
  if (xs.empty()) invalid("cat-empty");
  const Dims& first = xs.front().shape;
  require_dim(dim, first.size());
  Dims shape = first;
  shape[dim] = 0;
  for (const HostArray& x : xs) {
    if (x.shape.size() != first.size()) invalid("cat-mismatch");
    for (std::size_t d = 0; d < first.size(); ++d) {
      if (d != dim && x.shape[d] != first[d]) invalid("cat-mismatch");
    }
    shape[dim] += x.shape[dim];
  }
  for (const HostArray& x : xs) require_float(x.dtype);
  for (const HostArray& x : xs) require_same(xs.front().dtype, x.dtype);
  HostArray out = make(shape, xs.front().dtype);
  const Around o(shape, dim);
  std::size_t start = 0;
  for (const HostArray& x : xs) {
    const Around v(x.shape, dim);
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t r = 0; r < v.len; ++r) {
        for (std::size_t j = 0; j < v.inner; ++j) out.values[o.at(i, start + r, j)] = x.values[v.at(i, r, j)];
      }
    }
    start += v.len;
  }
  return out;
}

HostArray slice(const HostArray& x, const std::vector<Range>& ranges) {
  require_float(x.dtype);
  if (ranges.size() > x.shape.size()) invalid("dim-out-of-range");
  std::vector<Range> full;
  for (std::size_t d = 0; d < x.shape.size(); ++d) full.push_back(d < ranges.size() ? ranges[d] : Range{0, x.shape[d]});
  for (std::size_t d = 0; d < full.size(); ++d) {
    if (full[d].start > full[d].end || full[d].end > x.shape[d]) invalid("slice-out-of-range");
  }
  Dims shape;
  for (const Range& r : full) shape.push_back(r.end - r.start);
  HostArray out = make(shape, x.dtype);
  const Dims in_strides = strides(x.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    const Dims c = coords(f, shape);
    std::size_t off = 0;
    for (std::size_t d = 0; d < c.size(); ++d) off += (c[d] + full[d].start) * in_strides[d];
    out.values[f] = x.values[off];
  }
  return out;
}

// slice_assign: the ranges checked as slice's, values of the block's shape and x's dtype; every
// element of x whose coordinates all lie in the block is replaced by values at the coordinates
// less the block's start, the others kept.
HostArray slice_assign(const HostArray& x, const std::vector<Range>& ranges, const HostArray& values) {
  const HostArray block = slice(x, ranges);  // the range checks, and the block's shape
  if (values.shape != block.shape) invalid("assign-shape-mismatch");
  require_float(values.dtype);
  require_same(x.dtype, values.dtype);
  HostArray out = x;
  const Dims value_strides = strides(values.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    const Dims c = coords(f, x.shape);
    std::size_t off = 0;
    bool inside = true;
    for (std::size_t d = 0; d < c.size() && inside; ++d) {
      const std::size_t start = d < ranges.size() ? ranges[d].start : 0;
      inside = c[d] >= start && c[d] - start < values.shape[d];
      off += (c[d] - start) * value_strides[d];
    }
    if (inside) out.values[f] = values.values[off];
  }
  return out;
}

// An I64 / I32 index tensor's values, each in [0, size), the first bad one reported (before any
// write): the index checks of select, select_assign / select_add, gather and scatter_add.
Dims index_values(const HostArray& indices, std::size_t size) {
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32) invalid("unsupported-dtype");
  Dims idx;
  for (double v : indices.values) {
    if (!(v >= 0) || v >= static_cast<double>(size)) invalid("index-out-of-range");
    idx.push_back(static_cast<std::size_t>(v));
  }
  return idx;
}

// The checks float_select and float_select_assign share: dim, a 1-D I64/I32 index tensor, every
// index value in [0, size) with the first bad one reported (before any write).
Dims checked_indices(const HostArray& x, std::size_t dim, const HostArray& indices) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  if (indices.shape.size() != 1) invalid("select-index-rank");
  return index_values(indices, x.shape[dim]);
}

HostArray select(const HostArray& x, std::size_t dim, const HostArray& indices) {
  const Dims idx = checked_indices(x, dim, indices);
  Dims shape = x.shape;
  shape[dim] = idx.size();
  HostArray out = make(shape, x.dtype);
  const Around v(x.shape, dim), o(shape, dim);
  for (std::size_t i = 0; i < v.outer; ++i) {
    for (std::size_t j = 0; j < idx.size(); ++j) {
      for (std::size_t r = 0; r < v.inner; ++r) out.values[o.at(i, j, r)] = x.values[v.at(i, idx[j], r)];
    }
  }
  return out;
}

// A copy of x, then for j = 0..k-1 in order out[.., idx[j], ..] += values[.., j, ..] in T.
HostArray select_assign(const HostArray& x, std::size_t dim, const HostArray& indices, const HostArray& values) {
  const Dims idx = checked_indices(x, dim, indices);
  Dims selected = x.shape;
  selected[dim] = idx.size();
  if (values.shape != selected) invalid("assign-shape-mismatch");
  require_float(values.dtype);
  require_same(x.dtype, values.dtype);
  HostArray out = x;
  const Around o(x.shape, dim), v(selected, dim);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < o.outer; ++i) {
      for (std::size_t j = 0; j < idx.size(); ++j) {
        for (std::size_t r = 0; r < o.inner; ++r) {
          double& target = out.values[o.at(i, idx[j], r)];
          target = in_t<T>(static_cast<T>(static_cast<T>(target) + static_cast<T>(values.values[v.at(i, j, r)])));
        }
      }
    }
  });
  return out;
}

// gather / scatter_add's checks: dim, indices of x's rank and x's sizes outside dim, I64 or I32,
// every value in [0, size) in row-major order (the first bad one reported, before any write).
Dims checked_gather_indices(const HostArray& x, std::size_t dim, const HostArray& indices) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  if (indices.shape.size() != x.shape.size()) invalid("gather-index-shape");
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (d != dim && indices.shape[d] != x.shape[d]) invalid("gather-index-shape");
  }
  return index_values(indices, x.shape[dim]);
}

// The element of x at the coordinates of element f of `shape` with coordinate dim replaced by at.
std::size_t offset_with(const Dims& x_shape, const Dims& shape, std::size_t f, std::size_t dim, std::size_t at) {
  Dims c = coords(f, shape);
  c[dim] = at;
  const Dims st = strides(x_shape);
  std::size_t off = 0;
  for (std::size_t d = 0; d < c.size(); ++d) off += c[d] * st[d];
  return off;
}

// out has the indices' shape; element c is x at c with coordinate dim replaced by indices[c].
HostArray gather(const HostArray& x, std::size_t dim, const HostArray& indices) {
  const Dims idx = checked_gather_indices(x, dim, indices);
  HostArray out = make(indices.shape, x.dtype);
  for (std::size_t f = 0; f < idx.size(); ++f) out.values[f] = x.values[offset_with(x.shape, indices.shape, f, dim, idx[f])];
  return out;
}

// float_scatter's update (docs/OPS.md "Scatter"), from its definition: Assign replaces, Add and Mul
// round the sum or product to T, Min and Max keep the target unless the value is NaN or strictly
// beyond it (a NaN target stays; +0 against -0 keeps the target).
template <class T>
double updated(IndexingUpdateOp update, double target, double value) {
  const T t = static_cast<T>(target), v = static_cast<T>(value);
  switch (update) {
    case IndexingUpdateOp::Assign: return value;
    case IndexingUpdateOp::Add: return in_t<T>(static_cast<T>(t + v));
    case IndexingUpdateOp::Mul: return in_t<T>(static_cast<T>(t * v));
    case IndexingUpdateOp::Min: return std::isnan(value) || v < t ? value : target;
    case IndexingUpdateOp::Max: return std::isnan(value) || v > t ? value : target;
  }
  return target;
}

// scatter_add with any update: a copy of x, then for every element c of the indices in row-major
// order out[c with dim replaced by indices[c]] = update(out[..], values[c]).
HostArray scatter(const HostArray& x, std::size_t dim, const HostArray& indices, const HostArray& values,
                  IndexingUpdateOp update) {
  const Dims idx = checked_gather_indices(x, dim, indices);
  if (values.shape != indices.shape) invalid("assign-shape-mismatch");
  require_float(values.dtype);
  require_same(x.dtype, values.dtype);
  HostArray out = x;
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t f = 0; f < idx.size(); ++f) {
      double& target = out.values[offset_with(x.shape, indices.shape, f, dim, idx[f])];
      target = updated<T>(update, target, values.values[f]);
    }
  });
  return out;
}

// gather_nd / scatter_nd's checks (docs/OPS.md "gather_nd"): indices of rank >= 1 whose last dim k
// is at most x's rank, I64 or I32, then every coordinate of every row, in row-major order,
// component c within dim c. Returns, per index row, the offset in x of the first element it names.
Dims nd_row_offsets(const HostArray& x, const HostArray& indices) {
  require_float(x.dtype);
  if (indices.shape.empty() || indices.shape.back() > x.shape.size()) invalid("gather-nd-index-shape");
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32) invalid("unsupported-dtype");
  const std::size_t k = indices.shape.back();
  const Dims st = strides(x.shape);
  const std::size_t rows = count(Dims(indices.shape.begin(), indices.shape.end() - 1));
  Dims offsets(rows, 0);
  for (std::size_t m = 0; m < rows; ++m) {
    for (std::size_t c = 0; c < k; ++c) {
      const double v = indices.values[m * k + c];
      if (!(v >= 0) || v >= static_cast<double>(x.shape[c])) invalid("index-out-of-range");
      offsets[m] += static_cast<std::size_t>(v) * st[c];
    }
  }
  return offsets;
}

// The indices' shape without its last dim, then x's dims from k on.
Dims nd_gathered_shape(const HostArray& x, const HostArray& indices) {
  Dims shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(indices.shape.back()), x.shape.end());
  return shape;
}

// Row m of the result is the block of x from offset m on, of the size of x's dims from k on.
HostArray gather_nd(const HostArray& x, const HostArray& indices) {
  const Dims offsets = nd_row_offsets(x, indices);
  HostArray out = make(nd_gathered_shape(x, indices), x.dtype);
  const std::size_t block = offsets.empty() ? 0 : out.values.size() / offsets.size();
  for (std::size_t m = 0; m < offsets.size(); ++m) {
    for (std::size_t s = 0; s < block; ++s) out.values[m * block + s] = x.values[offsets[m] + s];
  }
  return out;
}

// A copy of x, then block m of values combined into the block index row m names, m in order.
HostArray scatter_nd(const HostArray& x, const HostArray& indices, const HostArray& values, IndexingUpdateOp update) {
  const Dims offsets = nd_row_offsets(x, indices);
  if (values.shape != nd_gathered_shape(x, indices)) invalid("assign-shape-mismatch");
  require_float(values.dtype);
  require_same(x.dtype, values.dtype);
  HostArray out = x;
  const std::size_t block = offsets.empty() ? 0 : values.values.size() / offsets.size();
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t m = 0; m < offsets.size(); ++m) {
      for (std::size_t s = 0; s < block; ++s) {
        double& target = out.values[offsets[m] + s];
        target = updated<T>(update, target, values.values[m * block + s]);
      }
    }
  });
  return out;
}

// A scatter whose update has no backward rule (Mul, Min, Max) refuses tracked operands, once every
// other check has passed.
HostArray untracked_update(HostArray result, const OpArgs& a) {
  if (a.tracked && a.update != IndexingUpdateOp::Assign && a.update != IndexingUpdateOp::Add) {
    invalid("scatter-update-gradient");
  }
  return result;
}

// cummin / cummax (docs/OPS.md), from the definition: y_r is the last NaN among x_0 .. x_r if there
// is one, else the last x_k (k <= r) equal to the prefix's extreme (so +0 and -0 tie, the later wins).
HostArray cumulative_extreme(const HostArray& x, std::size_t dim, bool is_max) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  HostArray out = make(x.shape, x.dtype);
  if (out.values.empty()) return out;
  const Around v(x.shape, dim);
  for (std::size_t i = 0; i < v.outer; ++i) {
    for (std::size_t j = 0; j < v.inner; ++j) {
      for (std::size_t r = 0; r < v.len; ++r) {
        std::optional<std::size_t> last_nan;
        for (std::size_t k = 0; k <= r; ++k) {
          if (std::isnan(x.values[v.at(i, k, j)])) last_nan = k;
        }
        if (last_nan) {
          out.values[v.at(i, r, j)] = x.values[v.at(i, *last_nan, j)];
          continue;
        }
        double extreme = x.values[v.at(i, 0, j)];
        for (std::size_t k = 1; k <= r; ++k) {
          const double e = x.values[v.at(i, k, j)];
          extreme = is_max ? std::max(extreme, e) : std::min(extreme, e);
        }
        std::size_t source = 0;
        for (std::size_t k = 0; k <= r; ++k) {
          if (x.values[v.at(i, k, j)] == extreme) source = k;
        }
        out.values[v.at(i, r, j)] = x.values[v.at(i, source, j)];
      }
    }
  }
  return out;
}

// mask_where (value given) / mask_fill (the scalar `fill` rounded to T): element c of the NumPy
// broadcast of x, mask and value is value's (or fill) where mask's is true, else x's.
HostArray masked(const HostArray& x, const HostArray& mask, const HostArray* value, double fill) {
  require_float(x.dtype);
  // Through Dispatch a mask is a Bool tensor or the wrong kind (a backend called directly says
  // unsupported-dtype instead: nothing here calls one so).
  if (mask.dtype != DType::Bool) invalid("op-kind-mismatch");
  if (value) {
    require_float(value->dtype);
    require_same(x.dtype, value->dtype);
  }
  Dims shape = broadcast(x.shape, mask.shape);
  if (value) shape = broadcast(shape, value->shape);
  HostArray out = make(shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < out.values.size(); ++i) {
      const Dims c = coords(i, shape);
      const bool take = mask.values[broadcast_offset(c, mask.shape)] != 0;
      out.values[i] = !take ? x.values[broadcast_offset(c, x.shape)]
                      : value ? value->values[broadcast_offset(c, value->shape)]
                              : in_t<T>(static_cast<T>(fill));
    }
  });
  return out;
}

// mask_select: the elements of x where the mask (a Bool tensor of x's shape exactly) is true, in
// row-major order, as a 1-D array.
HostArray mask_select(const HostArray& x, const HostArray& mask) {
  require_float(x.dtype);
  if (mask.dtype != DType::Bool) invalid("op-kind-mismatch");  // as masked(): the wrong kind through Dispatch
  if (mask.shape != x.shape) invalid("mask-select-shape");
  HostArray out = make({0}, x.dtype);
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    if (mask.values[i] != 0) out.values.push_back(x.values[i]);
  }
  out.shape = {out.values.size()};
  return out;
}

// hard_sigmoid: clamp(alpha x + beta, 0, 1) with each step rounded in T (the scalars first).
HostArray hard_sigmoid(const HostArray& x, double alpha, double beta) {
  return unary(x, [alpha, beta](auto v) {
    using T = decltype(v);
    const T t = static_cast<T>(static_cast<T>(static_cast<T>(alpha) * v) + static_cast<T>(beta));
    return t < T(0) ? T(0) : (t > T(1) ? T(1) : t);
  });
}

// repeat_dim: element c of the result is x at c with coordinate dim taken modulo x's size there.
HostArray repeat_dim(const HostArray& x, std::size_t dim, std::size_t times) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  Dims shape = x.shape;
  shape[dim] *= times;
  HostArray out = make(shape, x.dtype);
  const Dims st = strides(x.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    Dims c = coords(f, shape);
    c[dim] %= x.shape[dim];
    std::size_t off = 0;
    for (std::size_t d = 0; d < c.size(); ++d) off += c[d] * st[d];
    out.values[f] = x.values[off];
  }
  return out;
}

// unfold: element (.., w, .., k) of the result is x at (.., w * step + k, ..); only complete
// windows, (len - size) / step + 1 of them when size <= len, none otherwise.
HostArray unfold(const HostArray& x, std::size_t dim, std::size_t size, std::size_t step) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  if (step == 0) invalid("unfold-step");
  const std::size_t len = x.shape[dim];
  Dims shape = x.shape;
  shape[dim] = size > len ? 0 : (len - size) / step + 1;
  shape.push_back(size);
  HostArray out = make(shape, x.dtype);
  const Dims st = strides(x.shape);
  for (std::size_t f = 0; f < out.values.size(); ++f) {
    Dims c = coords(f, shape);
    const std::size_t k = c.back();
    c.pop_back();
    c[dim] = c[dim] * step + k;
    std::size_t off = 0;
    for (std::size_t d = 0; d < c.size(); ++d) off += c[d] * st[d];
    out.values[f] = x.values[off];
  }
  return out;
}

// ---- 2-D pooling (docs/OPS.md "Module ops") -------------------------------------------------------
// From the definition, over the padded grid: the input padded by p on each side is a grid of
// in + 2p cells per dim whose cells p .. p + in - 1 are the input's. Output o's window covers grid
// cells o * s .. o * s + k - 1 that exist (ceil_mode's last window may overhang the grid: the
// overhang is no cell). count_include_pad divides by the window's grid cells, else by its input
// cells. Options are checked in the engine's order (unsupported-dtype, module-input-rank,
// module-option-zero for kernel_size then stride, pool-empty-input for an empty height or width,
// pool-padding, pool-kernel-too-large).

// Output positions along one dim: floor mode keeps the windows wholly in the grid; ceil mode also
// the next one, if the window before it stops short of the grid's end and it starts before the
// right padding.
std::size_t pooled_positions(std::size_t in, std::size_t k, std::size_t s, std::size_t p, bool ceil_mode) {
  const std::size_t grid = in + 2 * p;
  std::size_t n = 0;
  for (;; ++n) {
    const std::size_t start = n * s;
    if (start + k <= grid) continue;
    const bool overhang = ceil_mode && start < in + p && n > 0 && (n - 1) * s + k < grid;
    if (!overhang) break;
  }
  return n;
}

struct PoolGrid {
  std::size_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
};

PoolGrid check_avg_pool2d(const HostArray& x, const AvgPool2dOptions& o) {
  require_float(x.dtype);
  if (x.shape.size() != 4) invalid("module-input-rank");
  for (const Size2* v : {&o.kernel_size, &o.stride}) {
    if ((*v)[0] == 0 || (*v)[1] == 0) invalid("module-option-zero");
  }
  if (x.shape[2] == 0 || x.shape[3] == 0) invalid("pool-empty-input");  // windows of padding only
  if (2 * o.padding[0] > o.kernel_size[0] || 2 * o.padding[1] > o.kernel_size[1]) invalid("pool-padding");
  if (x.shape[2] + 2 * o.padding[0] < o.kernel_size[0] || x.shape[3] + 2 * o.padding[1] < o.kernel_size[1]) {
    invalid("pool-kernel-too-large");
  }
  PoolGrid g;
  g.planes = x.shape[0] * x.shape[1];
  g.in_h = x.shape[2];
  g.in_w = x.shape[3];
  g.out_h = pooled_positions(g.in_h, o.kernel_size[0], o.stride[0], o.padding[0], o.ceil_mode);
  g.out_w = pooled_positions(g.in_w, o.kernel_size[1], o.stride[1], o.padding[1], o.ceil_mode);
  return g;
}

// Calls cell(input_offset) for each input cell of output (plane, oh, ow)'s window in row-major
// order, and returns the divisor.
template <class F>
std::size_t avg_window(const PoolGrid& g, const AvgPool2dOptions& o, std::size_t plane, std::size_t oh, std::size_t ow,
                       F cell) {
  std::size_t grid_cells = 0, input_cells = 0;
  for (std::size_t i = 0; i < o.kernel_size[0]; ++i) {
    const std::size_t r = oh * o.stride[0] + i;
    if (r >= g.in_h + 2 * o.padding[0]) continue;
    for (std::size_t j = 0; j < o.kernel_size[1]; ++j) {
      const std::size_t c = ow * o.stride[1] + j;
      if (c >= g.in_w + 2 * o.padding[1]) continue;
      ++grid_cells;
      if (r < o.padding[0] || r >= o.padding[0] + g.in_h || c < o.padding[1] || c >= o.padding[1] + g.in_w) continue;
      ++input_cells;
      cell((plane * g.in_h + (r - o.padding[0])) * g.in_w + (c - o.padding[1]));
    }
  }
  return o.count_include_pad ? grid_cells : input_cells;
}

HostArray avg_pool2d(const HostArray& x, const AvgPool2dOptions& o) {
  const PoolGrid g = check_avg_pool2d(x, o);
  HostArray out = make({x.shape[0], x.shape[1], g.out_h, g.out_w}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::size_t f = 0;
    for (std::size_t plane = 0; plane < g.planes; ++plane) {
      for (std::size_t oh = 0; oh < g.out_h; ++oh) {
        for (std::size_t ow = 0; ow < g.out_w; ++ow) {
          T sum = T(0);
          const std::size_t n = avg_window(g, o, plane, oh, ow, [&](std::size_t at) { sum += static_cast<T>(x.values[at]); });
          out.values[f++] = in_t<T>(sum / static_cast<T>(n));
        }
      }
    }
  });
  return out;
}

// Each output's gradient g / divisor goes to every input cell of its window, outputs in row-major
// order, in T.
HostArray avg_pool2d_backward(const HostArray& x, const HostArray& grad, const AvgPool2dOptions& o) {
  require_float(x.dtype);
  require_float(grad.dtype);
  require_same(x.dtype, grad.dtype);
  const PoolGrid g = check_avg_pool2d(x, o);
  if (grad.shape != Dims{x.shape[0], x.shape[1], g.out_h, g.out_w}) invalid("pool-grad-shape");
  HostArray out = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> dx(out.values.size(), T(0));
    std::size_t f = 0;
    for (std::size_t plane = 0; plane < g.planes; ++plane) {
      for (std::size_t oh = 0; oh < g.out_h; ++oh) {
        for (std::size_t ow = 0; ow < g.out_w; ++ow, ++f) {
          std::vector<std::size_t> cells;
          const std::size_t n = avg_window(g, o, plane, oh, ow, [&](std::size_t at) { cells.push_back(at); });
          const T share = static_cast<T>(grad.values[f]) / static_cast<T>(n);
          for (std::size_t at : cells) dx[at] += share;
        }
      }
    }
    for (std::size_t i = 0; i < dx.size(); ++i) out.values[i] = in_t<T>(dx[i]);
  });
  return out;
}

// max_pool2d: output o's window holds cells o * stride + i * dilation of the padded grid, i < k,
// where they are input cells; scanned row by row, a cell is kept when greater than the kept value
// or NaN, starting from -inf at the window's first input cell (PyTorch's rule): the first of equal
// maxima, the last NaN. Checked as avg_pool2d with dilation (module-option-zero after stride), the
// span dilation (k - 1) + 1 in the kernel's place against the padded input, and every window
// reaching an input cell (pool-empty-window).
PoolGrid check_max_pool2d(const HostArray& x, const MaxPool2dOptions& o) {
  require_float(x.dtype);
  if (x.shape.size() != 4) invalid("module-input-rank");
  for (const Size2* v : {&o.kernel_size, &o.stride, &o.dilation}) {
    if ((*v)[0] == 0 || (*v)[1] == 0) invalid("module-option-zero");
  }
  if (x.shape[2] == 0 || x.shape[3] == 0) invalid("pool-empty-input");
  const Size2 span{o.dilation[0] * (o.kernel_size[0] - 1) + 1, o.dilation[1] * (o.kernel_size[1] - 1) + 1};
  if (2 * o.padding[0] > o.kernel_size[0] || 2 * o.padding[1] > o.kernel_size[1]) invalid("pool-padding");
  if (x.shape[2] + 2 * o.padding[0] < span[0] || x.shape[3] + 2 * o.padding[1] < span[1]) invalid("pool-kernel-too-large");
  PoolGrid g;
  g.planes = x.shape[0] * x.shape[1];
  g.in_h = x.shape[2];
  g.in_w = x.shape[3];
  g.out_h = pooled_positions(g.in_h, span[0], o.stride[0], o.padding[0], o.ceil_mode);
  g.out_w = pooled_positions(g.in_w, span[1], o.stride[1], o.padding[1], o.ceil_mode);
  // Every window must reach an input cell (grid cells padding .. padding + in - 1).
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t in = x.shape[2 + d], outputs = d == 0 ? g.out_h : g.out_w;
    for (std::size_t out = 0; out < outputs; ++out) {
      bool reaches = false;
      for (std::size_t i = 0; i < o.kernel_size[d]; ++i) {
        const std::size_t cell = out * o.stride[d] + i * o.dilation[d];
        reaches = reaches || (cell >= o.padding[d] && cell < o.padding[d] + in);
      }
      if (!reaches) invalid("pool-empty-window");
    }
  }
  return g;
}

// The kept cell of output (plane, oh, ow), as an index into the plane.
std::size_t max_cell(const HostArray& x, const PoolGrid& g, const MaxPool2dOptions& o, std::size_t plane, std::size_t oh,
                     std::size_t ow) {
  std::optional<std::size_t> kept;
  double kept_value = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < o.kernel_size[0]; ++i) {
    const std::size_t r = oh * o.stride[0] + i * o.dilation[0];
    if (r < o.padding[0] || r >= o.padding[0] + g.in_h) continue;
    for (std::size_t j = 0; j < o.kernel_size[1]; ++j) {
      const std::size_t c = ow * o.stride[1] + j * o.dilation[1];
      if (c < o.padding[1] || c >= o.padding[1] + g.in_w) continue;
      const std::size_t at = (r - o.padding[0]) * g.in_w + (c - o.padding[1]);
      const double v = x.values[plane * g.in_h * g.in_w + at];
      if (!kept) kept = at;  // the window's first input cell, holding -inf until a value beats it
      if (v > kept_value || std::isnan(v)) {
        kept_value = v;
        kept = at;
      }
    }
  }
  return kept.value_or(0);
}

HostArray max_pool2d(const HostArray& x, const MaxPool2dOptions& o, bool indices) {
  const PoolGrid g = check_max_pool2d(x, o);
  HostArray out = make({x.shape[0], x.shape[1], g.out_h, g.out_w}, indices ? DType::I64 : x.dtype);
  std::size_t f = 0;
  for (std::size_t plane = 0; plane < g.planes; ++plane) {
    for (std::size_t oh = 0; oh < g.out_h; ++oh) {
      for (std::size_t ow = 0; ow < g.out_w; ++ow) {
        const std::size_t at = max_cell(x, g, o, plane, oh, ow);
        out.values[f++] = indices ? static_cast<double>(at) : x.values[plane * g.in_h * g.in_w + at];
      }
    }
  }
  return out;
}

// Each output's gradient added, in T, to the cell its index names, outputs in row-major order.
// Checks: float x, grad of its dtype, max_pool2d's, grad of the output's shape (pool-grad-shape),
// indices I64 / I32 (unsupported-dtype) of grad's shape (pool-indices-shape), then each index, in
// order, within the plane (index-out-of-range).
HostArray max_pool2d_backward(const HostArray& x, const HostArray& indices, const HostArray& grad, const MaxPool2dOptions& o) {
  require_float(x.dtype);
  require_float(grad.dtype);
  require_same(x.dtype, grad.dtype);
  const PoolGrid g = check_max_pool2d(x, o);
  if (grad.shape != Dims{x.shape[0], x.shape[1], g.out_h, g.out_w}) invalid("pool-grad-shape");
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32) invalid("unsupported-dtype");
  if (indices.shape != grad.shape) invalid("pool-indices-shape");
  const std::vector<std::int64_t> at = int_values(indices);
  const std::size_t plane = g.in_h * g.in_w;
  for (std::int64_t i : at) {
    if (i < 0 || static_cast<std::size_t>(i) >= plane) invalid("index-out-of-range");
  }
  HostArray out = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> dx(out.values.size(), T(0));
    const std::size_t outputs = g.out_h * g.out_w;
    for (std::size_t f = 0; f < grad.values.size(); ++f) dx[f / outputs * plane + static_cast<std::size_t>(at[f])] += static_cast<T>(grad.values[f]);
    for (std::size_t i = 0; i < dx.size(); ++i) out.values[i] = in_t<T>(dx[i]);
  });
  return out;
}

// embedding's checks, in the engine's documented order (docs/OPS.md "Module ops"): float weights
// of rank 2, I64 / I32 indices of rank 2; for the backward pass first grad of the weights' dtype
// and, after these, grad of the output's shape [batch, seq_length, d_model]; then every index, in
// row-major order, within the table's rows (negative ones are not wrapped).
std::vector<std::size_t> embedding_rows(const HostArray& weights, const HostArray& indices, const HostArray* grad) {
  require_float(weights.dtype);
  if (grad != nullptr) {
    require_float(grad->dtype);
    require_same(weights.dtype, grad->dtype);
  }
  if (weights.shape.size() != 2) invalid("module-input-rank");
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32) invalid("unsupported-dtype");
  if (indices.shape.size() != 2) invalid("module-input-rank");
  if (grad != nullptr && grad->shape != Dims{indices.shape[0], indices.shape[1], weights.shape[1]}) {
    invalid("pool-grad-shape");
  }
  std::vector<std::size_t> rows;
  for (double v : indices.values) {
    if (!(v >= 0) || v >= static_cast<double>(weights.shape[0])) invalid("index-out-of-range");
    rows.push_back(static_cast<std::size_t>(v));
  }
  return rows;
}

// Position q of the flattened indices is a copy of row indices[q] of the table.
HostArray embedding(const HostArray& weights, const HostArray& indices) {
  const std::vector<std::size_t> rows = embedding_rows(weights, indices, nullptr);
  const std::size_t d = weights.shape[1];
  HostArray out = make({indices.shape[0], indices.shape[1], d}, weights.dtype);
  for (std::size_t q = 0; q < rows.size(); ++q) {
    for (std::size_t c = 0; c < d; ++c) out.values[q * d + c] = weights.values[rows[q] * d + c];
  }
  return out;
}

// Row r of the result: the gradients of the positions whose index is r, added in T from 0 in
// position order (zero for a row no position reads).
HostArray embedding_backward(const HostArray& weights, const HostArray& indices, const HostArray& grad) {
  const std::vector<std::size_t> rows = embedding_rows(weights, indices, &grad);
  const std::size_t d = weights.shape[1];
  HostArray out = make(weights.shape, weights.dtype);
  with_t(weights.dtype, [&]<class T>(T) {
    std::vector<T> dw(out.values.size(), T(0));
    for (std::size_t q = 0; q < rows.size(); ++q) {
      for (std::size_t c = 0; c < d; ++c) dw[rows[q] * d + c] += static_cast<T>(grad.values[q * d + c]);
    }
    for (std::size_t i = 0; i < dw.size(); ++i) out.values[i] = in_t<T>(dw[i]);
  });
  return out;
}

// layer_norm's checks, in the engine's documented order (docs/OPS.md "Module ops"): float operands
// of one dtype, x of rank at least 1, a rank-1 weight and bias, then the sizes they share.
void require_layer_norm(const HostArray& x, const HostArray& weight, const HostArray* bias) {
  require_float(x.dtype);
  require_same(x.dtype, weight.dtype);
  if (bias != nullptr) require_same(x.dtype, bias->dtype);
  if (x.shape.empty()) invalid("module-input-scalar");
  if (weight.shape.size() != 1) invalid("module-input-rank");
  if (bias != nullptr && bias->shape.size() != 1) invalid("module-input-rank");
  if (x.shape.back() != weight.shape[0]) invalid("module-dim-mismatch");
  if (bias != nullptr && bias->shape[0] != weight.shape[0]) invalid("module-dim-mismatch");
}

// Each row of x's last dim: (x - mean) / sqrt(var + epsilon) * weight + bias with mean and the
// biased variance of the row, from the definition in long double, rounded to the dtype once.
HostArray layer_norm(const HostArray& x, const HostArray& weight, const HostArray* bias, double epsilon) {
  require_layer_norm(x, weight, bias);
  HostArray out = make(x.shape, x.dtype);
  const std::size_t d = weight.shape[0];
  const std::size_t rows = d == 0 ? 0 : x.values.size() / d;
  // Each step in the dtype T, sums in index order (the definition's tensor ops, each rounded): the
  // mean of [1.4e-45, -0] is 0 in F32, so -0 meets an inf weight as NaN where a wider mean gives
  // -inf (found by ReferenceOps layer_norm on Flex). Epsilon as the dtype holds it (docs/OPS.md
  // "Scalar arguments").
  with_t(x.dtype, [&]<class T>(T) {
    const T eps = static_cast<T>(epsilon);
    for (std::size_t r = 0; r < rows; ++r) {
      const double* row = &x.values[r * d];
      T mean = 0, var = 0;
      for (std::size_t i = 0; i < d; ++i) mean += static_cast<T>(row[i]);
      mean /= static_cast<T>(d);
      for (std::size_t i = 0; i < d; ++i) var += (static_cast<T>(row[i]) - mean) * (static_cast<T>(row[i]) - mean);
      var /= static_cast<T>(d);
      const T denom = std::sqrt(var + eps);
      for (std::size_t i = 0; i < d; ++i) {
        T y = (static_cast<T>(row[i]) - mean) / denom * static_cast<T>(weight.values[i]);
        if (bias != nullptr) y += static_cast<T>(bias->values[i]);
        out.values[r * d + i] = in_t<T>(y);
      }
    }
  });
  return out;
}

// batch_norm with the given statistics, the engine's documented order: float operands of one
// dtype, x of rank at least 2, the four statistics of rank 1 with x's channels; then per cell
// (x - mean[c]) / sqrt(variance[c] + epsilon) * weight[c] + bias[c], each step rounded to the dtype
// (epsilon as the dtype holds it).
HostArray batch_norm(const std::vector<HostArray>& in, double epsilon) {
  const HostArray& x = in[0];
  require_float(x.dtype);
  for (std::size_t k = 1; k < 5; ++k) require_same(x.dtype, in[k].dtype);
  if (x.shape.size() < 2) invalid("module-input-min-rank");
  for (std::size_t k = 1; k < 5; ++k) {
    if (in[k].shape.size() != 1) invalid("module-input-rank");
  }
  for (std::size_t k = 1; k < 5; ++k) {
    if (in[k].shape[0] != x.shape[1]) invalid("module-dim-mismatch");
  }
  HostArray out = make(x.shape, x.dtype);
  const std::size_t channels = x.shape[1];
  std::size_t inner = 1;
  for (std::size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
  // Each step rounded to the dtype T, as the definition composes them (Burn's batch_norm is four
  // tensor ops): x - mean can underflow to 0 in F32 where it would not in a wider type, and 0 * inf
  // is then NaN, not inf (found by ReferenceOps batch_norm: -4.2e-45 / 9.4 times an inf weight).
  with_t(x.dtype, [&]<class T>(T) {
    const T eps = static_cast<T>(epsilon);
    for (std::size_t i = 0; i < x.values.size(); ++i) {
      const std::size_t c = i / inner % channels;
      const T std_dev = std::sqrt(static_cast<T>(in[4].values[c]) + eps);
      const T normalized = (static_cast<T>(x.values[i]) - static_cast<T>(in[3].values[c])) / std_dev;
      out.values[i] = in_t<T>(normalized * static_cast<T>(in[1].values[c]) + static_cast<T>(in[2].values[c]));
    }
  });
  return out;
}

// attention's checks, in Dispatch's and then the engine's documented order: the mask a Bool
// tensor (the wrong kind through Dispatch), float query, key, value and bias of one dtype, a
// positive softcap, rank-4 query, key and value sharing batch, heads, head_dim and seq_k, a mask
// and bias of the scores' shape.
void require_attention(const HostArray& q, const HostArray& k, const HostArray& v, const HostArray* mask,
                       const HostArray* bias, const AttentionOptions& o) {
  if (mask != nullptr && mask->dtype != DType::Bool) invalid("op-kind-mismatch");
  require_float(q.dtype);
  require_same(q.dtype, k.dtype);
  require_same(q.dtype, v.dtype);
  if (bias != nullptr) require_same(q.dtype, bias->dtype);
  if (o.softcap && !(*o.softcap > 0.0)) invalid("attention-softcap");
  if (q.shape.size() != 4 || k.shape.size() != 4 || v.shape.size() != 4) invalid("module-input-rank");
  if (k.shape[0] != q.shape[0] || k.shape[1] != q.shape[1] || k.shape[3] != q.shape[3]) invalid("module-dim-mismatch");
  if (v.shape[0] != k.shape[0] || v.shape[1] != k.shape[1] || v.shape[2] != k.shape[2]) invalid("module-dim-mismatch");
  const Dims scores{q.shape[0], q.shape[1], q.shape[2], k.shape[2]};
  if (mask != nullptr && mask->shape != scores) invalid("attention-operand-shape");
  if (bias != nullptr && bias->shape != scores) invalid("attention-operand-shape");
}

// softmax(cap(q k^T * scale) with masked and (causal) future cells at -inf, + bias) @ v, from the
// definition in long double, each result rounded to the dtype once. A row with no finite or +inf
// score (every cell -inf, or no key at all) attends to nothing: weights of 0, so zeros unless a
// value it multiplies is non-finite (Note [A fully masked row attends to nothing]). The causal diagonal ends at the bottom-right corner: key j is masked for
// query i when j > i + seq_k - seq_q. The scalars are the dtype's values of scale and softcap.
HostArray attention(const HostArray& q, const HostArray& k, const HostArray& v, const HostArray* mask, const HostArray* bias,
                    const AttentionOptions& o) {
  require_attention(q, k, v, mask, bias, o);
  const std::size_t heads = q.shape[0] * q.shape[1], sq = q.shape[2], dh = q.shape[3], sk = k.shape[2], dv = v.shape[3];
  HostArray out = make({q.shape[0], q.shape[1], sq, dv}, q.dtype);
  const bool f32 = q.dtype == DType::F32;
  const auto in_dtype = [&](double s) -> long double { return f32 ? static_cast<float>(s) : s; };
  const long double scale = in_dtype(o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(dh)));
  const long double inf = std::numeric_limits<long double>::infinity();
  std::vector<long double> row(sk);
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t i = 0; i < sq; ++i) {
      for (std::size_t j = 0; j < sk; ++j) {
        long double dot = 0;
        for (std::size_t c = 0; c < dh; ++c) {
          dot += static_cast<long double>(q.values[(h * sq + i) * dh + c]) * k.values[(h * sk + j) * dh + c];
        }
        long double s = dot * scale;
        if (o.softcap) {
          const long double cap = in_dtype(*o.softcap);
          s = cap * std::tanh(s / cap);
        }
        const std::size_t cell = (h * sq + i) * sk + j;
        if (mask != nullptr && mask->values[cell] != 0) s = -inf;
        if (o.is_causal && static_cast<long double>(j) > static_cast<long double>(i) + static_cast<long double>(sk) - sq) s = -inf;
        if (bias != nullptr) s += bias->values[cell];
        row[j] = s;
      }
      long double top = -inf;
      bool nan = false;
      for (long double s : row) {
        if (std::isnan(s)) nan = true;
        top = std::max(top, s);
      }
      for (std::size_t c = 0; c < dv; ++c) {
        long double acc = 0;
        if (nan) {
          acc = std::numeric_limits<long double>::quiet_NaN();
        } else if (top != -inf) {
          long double total = 0;
          for (long double s : row) total += std::exp(s - top);
          for (std::size_t j = 0; j < sk; ++j) acc += std::exp(row[j] - top) / total * v.values[(h * sk + j) * dv + c];
        } else {  // weights of 0: a non-finite value still makes the product NaN, as in any matmul
          for (std::size_t j = 0; j < sk; ++j) acc += 0.0L * v.values[(h * sk + j) * dv + c];
        }
        out.values[(h * sq + i) * dv + c] = f32 ? static_cast<double>(static_cast<float>(acc)) : static_cast<double>(acc);
      }
    }
  }
  return out;
}

// linear's checks, in the engine's documented order (docs/OPS.md "Module ops"): float operands of
// one dtype, x of rank at least 1, a rank-2 weight [d_input, d_output] and a rank-1 bias, then the
// sizes they share.
void require_linear(const HostArray& x, const HostArray& weight, const HostArray* bias) {
  require_float(x.dtype);
  require_same(x.dtype, weight.dtype);
  if (bias != nullptr) require_same(x.dtype, bias->dtype);
  if (x.shape.empty()) invalid("module-input-scalar");
  if (weight.shape.size() != 2) invalid("module-input-rank");
  if (bias != nullptr && bias->shape.size() != 1) invalid("module-input-rank");
  if (x.shape.back() != weight.shape[0]) invalid("module-dim-mismatch");
  if (bias != nullptr && bias->shape[0] != weight.shape[1]) invalid("module-dim-mismatch");
}

// A shape's dims but the last, then `last`.
Dims with_last(const Dims& shape, std::size_t last) {
  Dims out(shape.begin(), shape.end() - 1);
  out.push_back(last);
  return out;
}

// y[r, j] = sum over p of x[r, p] w[p, j], in T from 0 in p order; then + bias[j] in T. The rows r
// are x's leading dims, flattened.
HostArray linear(const HostArray& x, const HostArray& weight, const HostArray* bias) {
  require_linear(x, weight, bias);
  const std::size_t k = weight.shape[0], n = weight.shape[1];
  HostArray out = make(with_last(x.shape, n), x.dtype);
  const std::size_t rows = n == 0 ? 0 : out.values.size() / n;
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < n; ++j) {
        T acc = T(0);
        for (std::size_t p = 0; p < k; ++p) acc += static_cast<T>(x.values[r * k + p]) * static_cast<T>(weight.values[p * n + j]);
        if (bias != nullptr) acc += static_cast<T>(bias->values[j]);
        out.values[r * n + j] = in_t<T>(acc);
      }
    }
  });
  return out;
}

// dx[r, i] = sum over j of g[r, j] w[i, j].
HostArray linear_x_backward(const HostArray& weight, const HostArray& grad) {
  require_float(weight.dtype);
  require_same(weight.dtype, grad.dtype);
  if (weight.shape.size() != 2) invalid("module-input-rank");
  if (grad.shape.empty()) invalid("module-input-scalar");
  if (grad.shape.back() != weight.shape[1]) invalid("module-dim-mismatch");
  const std::size_t d_in = weight.shape[0], n = weight.shape[1];
  HostArray out = make(with_last(grad.shape, d_in), weight.dtype);
  const std::size_t rows = d_in == 0 ? 0 : out.values.size() / d_in;
  with_t(weight.dtype, [&]<class T>(T) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < d_in; ++i) {
        T acc = T(0);
        for (std::size_t j = 0; j < n; ++j) acc += static_cast<T>(grad.values[r * n + j]) * static_cast<T>(weight.values[i * n + j]);
        out.values[r * d_in + i] = in_t<T>(acc);
      }
    }
  });
  return out;
}

// dw[i, j] = sum over the rows r of x[r, i] g[r, j]; grad must be linear's output shape for x.
HostArray linear_weight_backward(const HostArray& x, const HostArray& grad) {
  require_float(x.dtype);
  require_same(x.dtype, grad.dtype);
  if (x.shape.empty() || grad.shape.empty()) invalid("module-input-scalar");
  if (grad.shape != with_last(x.shape, grad.shape.back())) invalid("pool-grad-shape");
  const std::size_t d_in = x.shape.back(), n = grad.shape.back();
  const std::size_t rows = d_in == 0 ? (n == 0 ? 0 : grad.values.size() / n) : x.values.size() / d_in;
  HostArray out = make({d_in, n}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t i = 0; i < d_in; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        T acc = T(0);
        for (std::size_t r = 0; r < rows; ++r) acc += static_cast<T>(x.values[r * d_in + i]) * static_cast<T>(grad.values[r * n + j]);
        out.values[i * n + j] = in_t<T>(acc);
      }
    }
  });
  return out;
}

// db[j] = sum over the rows r of g[r, j].
HostArray linear_bias_backward(const HostArray& grad) {
  require_float(grad.dtype);
  if (grad.shape.empty()) invalid("module-input-scalar");
  const std::size_t n = grad.shape.back();
  const std::size_t rows = n == 0 ? 0 : grad.values.size() / n;
  HostArray out = make({n}, grad.dtype);
  with_t(grad.dtype, [&]<class T>(T) {
    for (std::size_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (std::size_t r = 0; r < rows; ++r) acc += static_cast<T>(grad.values[r * n + j]);
      out.values[j] = in_t<T>(acc);
    }
  });
  return out;
}

// A convolution's geometry over N = 2 or 3 spatial dims, held as (depth, height, width) with a 2-D
// op's depth 1 (a 2-D tensor's flat indices are those of the depth-1 volume): x [n, c, in...], a
// weight [co, cg, k...] (conv; cg = c / groups) or [c, cg, k...] (transposed; cg = co / groups),
// output [n, co, out...].
struct ConvGeometry {
  std::size_t n, c, co, cg, groups;
  Size3 in, k, out, stride, padding, dilation;
  Dims out_shape;
};

std::size_t volume(const Size3& s) { return s[0] * s[1] * s[2]; }
Size3 unflatten(std::size_t at, const Size3& s) { return {at / (s[1] * s[2]), at / s[2] % s[1], at % s[2]}; }

// The cell of a `bound` volume that position `pos` reaches through kernel tap `tap`: pos * stride +
// tap * dilation - padding along each dim, flattened; nothing where that falls outside the volume
// (conv: a padding cell of the input; transposed: an output cell the padding crops).
std::optional<std::size_t> tap_cell(const ConvGeometry& g, const Size3& pos, const Size3& tap, const Size3& bound) {
  std::size_t flat = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const std::size_t v = pos[d] * g.stride[d] + tap[d] * g.dilation[d];
    if (v < g.padding[d] || v - g.padding[d] >= bound[d]) return std::nullopt;
    flat = flat * bound[d] + (v - g.padding[d]);
  }
  return flat;
}

// An N-d option, spatial dims right-aligned into (depth, height, width), `missing` before them.
template <std::size_t N>
Size3 lifted(const std::array<std::size_t, N>& v, std::size_t missing) {
  Size3 out{missing, missing, missing};
  for (std::size_t d = 0; d < N; ++d) out[3 - N + d] = v[d];
  return out;
}

// conv2d's (N = 2) and conv3d's (N = 3) checks, in the engine's documented order (docs/OPS.md
// "Module ops"), and their geometry.
template <std::size_t N>
ConvGeometry conv_geometry(const Dims& x, const Dims& weight, const Dims* bias, const std::array<std::size_t, N>& stride,
                           const std::array<std::size_t, N>& padding, const std::array<std::size_t, N>& dilation,
                           std::size_t groups) {
  if (x.size() != N + 2 || weight.size() != N + 2) invalid("module-input-rank");
  if (bias != nullptr && bias->size() != 1) invalid("module-input-rank");
  for (std::size_t d = 0; d < N; ++d) {
    if (stride[d] == 0 || dilation[d] == 0 || weight[2 + d] == 0) invalid("module-option-zero");
  }
  if (groups == 0 || x[1] % groups != 0 || weight[0] % groups != 0) invalid("conv-groups");
  if (weight[1] != x[1] / groups) invalid("conv-channels");
  if (bias != nullptr && (*bias)[0] != weight[0]) invalid("module-dim-mismatch");
  ConvGeometry g{x[0], x[1], weight[0], weight[1], groups, {1, 1, 1}, {1, 1, 1}, {1, 1, 1},
                 lifted(stride, 1), lifted(padding, 0), lifted(dilation, 1), {x[0], weight[0]}};
  for (std::size_t d = 0; d < N; ++d) {
    g.in[3 - N + d] = x[2 + d];
    g.k[3 - N + d] = weight[2 + d];
  }
  for (std::size_t d = 0; d < 3; ++d) {
    if (g.in[d] + 2 * g.padding[d] < g.dilation[d] * (g.k[d] - 1) + 1) invalid("pool-kernel-too-large");
  }
  for (std::size_t d = 0; d < 3; ++d) {
    g.out[d] = (g.in[d] + 2 * g.padding[d] - (g.dilation[d] * (g.k[d] - 1) + 1)) / g.stride[d] + 1;
  }
  for (std::size_t d = 3 - N; d < 3; ++d) g.out_shape.push_back(g.out[d]);
  return g;
}
ConvGeometry conv_geometry(const Dims& x, const Dims& weight, const Dims* bias, const Conv2dOptions& o) {
  return conv_geometry<2>(x, weight, bias, o.stride, o.padding, o.dilation, o.groups);
}
ConvGeometry conv_geometry(const Dims& x, const Dims& weight, const Dims* bias, const Conv3dOptions& o) {
  return conv_geometry<3>(x, weight, bias, o.stride, o.padding, o.dilation, o.groups);
}

// Each tap of output (b, oc, position `o`): the weight's flat index and the input's flat index
// (nullopt: a padding cell, a zero of the padded input), in the order (ci, t, i, j).
template <class F>
void for_each_tap(const ConvGeometry& g, std::size_t b, std::size_t oc, const Size3& o, F f) {
  const std::size_t group = oc / (g.co / g.groups), taps = volume(g.k), cells = volume(g.in);
  for (std::size_t ci = 0; ci < g.cg; ++ci) {
    const std::size_t c = group * g.cg + ci;
    for (std::size_t t = 0; t < taps; ++t) {
      const auto at = tap_cell(g, o, unflatten(t, g.k), g.in);
      f((oc * g.cg + ci) * taps + t, at ? std::optional<std::size_t>((b * g.c + c) * cells + *at) : std::nullopt);
    }
  }
}

void require_conv_dtypes(const std::vector<const HostArray*>& in) {
  require_float(in[0]->dtype);
  for (const HostArray* a : in) require_same(in[0]->dtype, a->dtype);
}

// y[b, oc, o...] = sum over the taps of the zero-padded x times the weight (a padding cell is a 0
// term: 0 * inf is NaN, as im2col-based kernels give), in T from 0, then + bias[oc].
HostArray convolved(const HostArray& x, const HostArray& weight, const HostArray* bias, const ConvGeometry& g) {
  HostArray out = make(g.out_shape, x.dtype);
  const std::size_t cells = volume(g.out);
  with_t(x.dtype, [&]<class T>(T) {
    std::size_t at = 0;
    for (std::size_t b = 0; b < g.n; ++b) {
      for (std::size_t oc = 0; oc < g.co; ++oc) {
        for (std::size_t q = 0; q < cells; ++q) {
          T acc = T(0);
          for_each_tap(g, b, oc, unflatten(q, g.out), [&](std::size_t wi, std::optional<std::size_t> xi) {
            acc += (xi ? static_cast<T>(x.values[*xi]) : T(0)) * static_cast<T>(weight.values[wi]);
          });
          if (bias != nullptr) acc += static_cast<T>(bias->values[oc]);
          out.values[at++] = in_t<T>(acc);
        }
      }
    }
  });
  return out;
}

template <class Options>
HostArray conv_nd(const HostArray& x, const HostArray& weight, const HostArray* bias, const Options& o) {
  std::vector<const HostArray*> in{&x, &weight};
  if (bias != nullptr) in.push_back(bias);
  require_conv_dtypes(in);
  return convolved(x, weight, bias, conv_geometry(x.shape, weight.shape, bias ? &bias->shape : nullptr, o));
}
HostArray conv2d(const HostArray& x, const HostArray& weight, const HostArray* bias, const Conv2dOptions& o) {
  return conv_nd(x, weight, bias, o);
}

// conv2d's and conv3d's x_backward / weight_backward: each tap's product g * weight added to the
// input cell it read (x's gradient; padding cells dropped), or g * x (zero at padding) to the weight.
template <class Options>
HostArray conv_nd_backward(const HostArray& x, const HostArray& weight, const HostArray& grad, const Options& o, bool of_x) {
  require_conv_dtypes({&x, &weight, &grad});
  const ConvGeometry g = conv_geometry(x.shape, weight.shape, nullptr, o);
  if (grad.shape != g.out_shape) invalid("pool-grad-shape");
  HostArray out = make(of_x ? x.shape : weight.shape, x.dtype);
  const std::size_t cells = volume(g.out);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> acc(out.values.size(), T(0));
    std::size_t at = 0;
    for (std::size_t b = 0; b < g.n; ++b) {
      for (std::size_t oc = 0; oc < g.co; ++oc) {
        for (std::size_t q = 0; q < cells; ++q) {
          const T gv = static_cast<T>(grad.values[at++]);
          for_each_tap(g, b, oc, unflatten(q, g.out), [&](std::size_t wi, std::optional<std::size_t> xi) {
            if (of_x && xi) acc[*xi] += gv * static_cast<T>(weight.values[wi]);
            if (!of_x) acc[wi] += gv * (xi ? static_cast<T>(x.values[*xi]) : T(0));
          });
        }
      }
    }
    for (std::size_t i = 0; i < acc.size(); ++i) out.values[i] = in_t<T>(acc[i]);
  });
  return out;
}
HostArray conv2d_backward(const HostArray& x, const HostArray& weight, const HostArray& grad, const Conv2dOptions& o, bool of_x) {
  return conv_nd_backward(x, weight, grad, o, of_x);
}

__extension__ typedef __int128 Int128;  // GCC's and clang's (__extension__: -Wpedantic accepts the name)
__extension__ typedef unsigned __int128 UInt128;

// conv_transpose2d's (N = 2) and conv_transpose3d's (N = 3) checks, in the engine's documented
// order (docs/OPS.md "Module ops"), and their geometry: x [n, c, in...], weight [c, cog, k...],
// output [n, cog * groups, out...].
template <std::size_t N>
ConvGeometry transposed_geometry(const Dims& x, const Dims& weight, const Dims* bias, const std::array<std::size_t, N>& stride,
                                 const std::array<std::size_t, N>& padding, const std::array<std::size_t, N>& padding_out,
                                 const std::array<std::size_t, N>& dilation, std::size_t groups) {
  if (x.size() != N + 2 || weight.size() != N + 2) invalid("module-input-rank");
  if (bias != nullptr && bias->size() != 1) invalid("module-input-rank");
  for (std::size_t d = 0; d < N; ++d) {
    if (stride[d] == 0 || dilation[d] == 0 || weight[2 + d] == 0) invalid("module-option-zero");
  }
  const UInt128 channels_out = static_cast<UInt128>(weight[1]) * groups;
  if (channels_out > std::numeric_limits<std::size_t>::max()) invalid("shape-overflow");
  if (groups == 0 || x[1] % groups != 0) invalid("conv-groups");
  if (weight[0] != x[1]) invalid("conv-transpose-weight");
  if (bias != nullptr && (*bias)[0] != channels_out) invalid("conv-bias-channels");
  for (std::size_t d = 0; d < N; ++d) {
    if (padding_out[d] >= stride[d] && padding_out[d] >= dilation[d]) invalid("conv-padding-out");
  }
  ConvGeometry g{x[0], x[1], static_cast<std::size_t>(channels_out), weight[1], groups, {1, 1, 1}, {1, 1, 1}, {1, 1, 1},
                 lifted(stride, 1), lifted(padding, 0), lifted(dilation, 1), {x[0], static_cast<std::size_t>(channels_out)}};
  for (std::size_t d = 0; d < N; ++d) {
    // (in - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * padding, in long double
    // first (within a few units: terms below 2^65, a 64-bit mantissa) to rule out sizes far outside
    // 1 to 2^64 - 1, whose terms no signed 128-bit sum holds, then exactly.
    const long double rough = (static_cast<long double>(x[2 + d]) - 1) * stride[d] +
                              static_cast<long double>(dilation[d]) * (weight[2 + d] - 1) + 1 + padding_out[d] -
                              2.0L * padding[d];
    if (x[2 + d] == 0 || rough < -16.0L || rough > 1.9e19L) invalid("conv-transpose-size");
    const Int128 size = (static_cast<Int128>(x[2 + d]) - 1) * stride[d] + static_cast<Int128>(dilation[d]) * (weight[2 + d] - 1) +
                        1 + padding_out[d] - 2 * static_cast<Int128>(padding[d]);
    if (size < 1 || size > static_cast<Int128>(std::numeric_limits<std::size_t>::max())) invalid("conv-transpose-size");
    g.in[3 - N + d] = x[2 + d];
    g.k[3 - N + d] = weight[2 + d];
    g.out[3 - N + d] = static_cast<std::size_t>(size);
    g.out_shape.push_back(static_cast<std::size_t>(size));
  }
  return g;
}
ConvGeometry transposed_geometry(const Dims& x, const Dims& weight, const Dims* bias, const ConvTranspose2dOptions& o) {
  return transposed_geometry<2>(x, weight, bias, o.stride, o.padding, o.padding_out, o.dilation, o.groups);
}
ConvGeometry transposed_geometry(const Dims& x, const Dims& weight, const Dims* bias, const ConvTranspose3dOptions& o) {
  return transposed_geometry<3>(x, weight, bias, o.stride, o.padding, o.padding_out, o.dilation, o.groups);
}

// Each tap of input cell (b, ci, position `i`): the weight's flat index and the output's flat index
// (nullopt: a cropped cell), in the order (oc', t, i, j).
template <class F>
void for_each_transposed_tap(const ConvGeometry& g, std::size_t b, std::size_t ci, const Size3& i, F f) {
  const std::size_t group = ci / (g.c / g.groups), taps = volume(g.k), cells = volume(g.out);
  for (std::size_t oc_in_group = 0; oc_in_group < g.cg; ++oc_in_group) {
    const std::size_t oc = group * g.cg + oc_in_group;
    for (std::size_t t = 0; t < taps; ++t) {
      const auto at = tap_cell(g, i, unflatten(t, g.k), g.out);
      f((ci * g.cg + oc_in_group) * taps + t, at ? std::optional<std::size_t>((b * g.co + oc) * cells + *at) : std::nullopt);
    }
  }
}

// y[b, oc, Y...] = the sum of x[b, ci, i...] * weight[ci, oc', t...] over the taps landing on
// (Y + padding, ...) of the full output, in T from 0, then + bias[oc]. No padding cell is a term
// here: the padding crops cells of the output, it adds none to the input.
template <class Options>
HostArray conv_transpose_nd(const HostArray& x, const HostArray& weight, const HostArray* bias, const Options& o) {
  std::vector<const HostArray*> in{&x, &weight};
  if (bias != nullptr) in.push_back(bias);
  require_conv_dtypes(in);
  const ConvGeometry g = transposed_geometry(x.shape, weight.shape, bias ? &bias->shape : nullptr, o);
  HostArray out = make(g.out_shape, x.dtype);
  const std::size_t cells = volume(g.in);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> acc(out.values.size(), T(0));
    std::size_t at = 0;
    for (std::size_t b = 0; b < g.n; ++b) {
      for (std::size_t ci = 0; ci < g.c; ++ci) {
        for (std::size_t q = 0; q < cells; ++q) {
          const T xv = static_cast<T>(x.values[at++]);
          for_each_transposed_tap(g, b, ci, unflatten(q, g.in), [&](std::size_t wi, std::optional<std::size_t> yi) {
            if (yi) acc[*yi] += xv * static_cast<T>(weight.values[wi]);
          });
        }
      }
    }
    const std::size_t plane = volume(g.out);
    for (std::size_t i = 0; i < acc.size(); ++i) {
      out.values[i] = in_t<T>(bias != nullptr ? acc[i] + static_cast<T>(bias->values[i / plane % g.co]) : acc[i]);
    }
  });
  return out;
}
HostArray conv_transpose2d(const HostArray& x, const HostArray& weight, const HostArray* bias, const ConvTranspose2dOptions& o) {
  return conv_transpose_nd(x, weight, bias, o);
}

// The transposed convolutions' x_backward / weight_backward: each tap's output cell's gradient g
// (0 where the tap lands in the cropped padding: a 0 term, so 0 * inf is NaN as in conv2d's
// padding) times the weight, added to x's cell, or times x, added to the weight.
template <class Options>
HostArray conv_transpose_nd_backward(const HostArray& x, const HostArray& weight, const HostArray& grad, const Options& o,
                                     bool of_x) {
  require_conv_dtypes({&x, &weight, &grad});
  const ConvGeometry g = transposed_geometry(x.shape, weight.shape, nullptr, o);
  if (grad.shape != g.out_shape) invalid("pool-grad-shape");
  HostArray out = make(of_x ? x.shape : weight.shape, x.dtype);
  const std::size_t cells = volume(g.in);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> acc(out.values.size(), T(0));
    std::size_t at = 0;
    for (std::size_t b = 0; b < g.n; ++b) {
      for (std::size_t ci = 0; ci < g.c; ++ci) {
        for (std::size_t q = 0; q < cells; ++q) {
          const std::size_t xi = at++;
          for_each_transposed_tap(g, b, ci, unflatten(q, g.in), [&](std::size_t wi, std::optional<std::size_t> yi) {
            const T gv = yi ? static_cast<T>(grad.values[*yi]) : T(0);
            if (of_x) acc[xi] += gv * static_cast<T>(weight.values[wi]);
            else acc[wi] += gv * static_cast<T>(x.values[xi]);
          });
        }
      }
    }
    for (std::size_t i = 0; i < acc.size(); ++i) out.values[i] = in_t<T>(acc[i]);
  });
  return out;
}
HostArray conv_transpose2d_backward(const HostArray& x, const HostArray& weight, const HostArray& grad,
                                    const ConvTranspose2dOptions& o, bool of_x) {
  return conv_transpose_nd_backward(x, weight, grad, o, of_x);
}

// The bias gradient of a convolution over `spatial` dims: the gradient summed over batch and every
// spatial dim per channel.
HostArray conv_bias_backward(const HostArray& x, const HostArray& bias, const HostArray& grad, std::size_t spatial) {
  require_conv_dtypes({&x, &bias, &grad});
  if (x.shape.size() != spatial + 2 || bias.shape.size() != 1 || grad.shape.size() != spatial + 2) invalid("module-input-rank");
  if (grad.shape[0] != x.shape[0] || grad.shape[1] != bias.shape[0]) invalid("pool-grad-shape");
  HostArray out = make(bias.shape, x.dtype);
  std::size_t plane = 1;
  for (std::size_t d = 2; d < grad.shape.size(); ++d) plane *= grad.shape[d];
  const std::size_t co = grad.shape[1];
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t oc = 0; oc < co; ++oc) {
      T acc = T(0);
      for (std::size_t b = 0; b < grad.shape[0]; ++b) {
        for (std::size_t q = 0; q < plane; ++q) acc += static_cast<T>(grad.values[(b * co + oc) * plane + q]);
      }
      out.values[oc] = in_t<T>(acc);
    }
  });
  return out;
}
HostArray conv2d_bias_backward(const HostArray& x, const HostArray& bias, const HostArray& grad) {
  return conv_bias_backward(x, bias, grad, 2);
}

// rfft and irfft from their definitions (docs/OPS.md "rfft"), in long double with the twiddles
// cos and sin of 2 pi m / n exact at multiples of a quarter turn, every sample times every twiddle
// (0 * inf is NaN). The checks in the engine's order; then, for a result with elements, the
// n x (n / 2 + 1) matrix of doubles the engine's DFT is a product with (tensor-too-large).
std::pair<long double, long double> twiddle_of(std::size_t m, std::size_t n) {
  if (m == 0) return {1.0L, 0.0L};
  if (4 * m == n) return {0.0L, 1.0L};
  if (2 * m == n) return {-1.0L, 0.0L};
  if (4 * m == 3 * n) return {0.0L, -1.0L};
  const long double angle = 2.0L * 3.141592653589793238462643383279502884L * static_cast<long double>(m) / static_cast<long double>(n);
  return {std::cos(angle), std::sin(angle)};
}
// The element count, or shape-overflow past SIZE_MAX.
std::size_t count_checked(const Dims& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) invalid("shape-overflow");
  }
  return n;
}
std::size_t fft_size(std::optional<std::size_t> n, std::size_t fallback) {
  const std::size_t size = n.value_or(fallback);
  if (size == 0 || (size & (size - 1)) != 0) invalid("fft-size");
  return size;
}
void require_dft_matrix(std::size_t n_fft, const Dims& out) {
  if (count(out) == 0) return;
  const std::size_t bins = n_fft / 2 + 1;
  if (static_cast<long double>(n_fft) * static_cast<long double>(bins) * 8 > static_cast<long double>(std::size_t{16} << 30)) {
    invalid("tensor-too-large");
  }
}

HostArray rfft(const HostArray& x, std::size_t dim, std::optional<std::size_t> n) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  const std::size_t n_fft = fft_size(n, x.shape[dim]), bins = n_fft / 2 + 1;
  Dims out_shape = x.shape;
  out_shape[dim] = bins;
  if (out_shape[0] > std::numeric_limits<std::size_t>::max() / 2) invalid("shape-overflow");
  out_shape[0] *= 2;  // the real parts, then the imaginary parts
  const std::size_t half = count_checked(out_shape) / 2;
  require_dft_matrix(n_fft, out_shape);
  HostArray out = make(out_shape, x.dtype);
  const Around v(x.shape, dim);
  const std::size_t samples = std::min(v.len, n_fft);
  with_t(x.dtype, [&]<class T>(T) {
    for (std::size_t o = 0; o < v.outer; ++o) {
      for (std::size_t i = 0; i < v.inner; ++i) {
        for (std::size_t k = 0; k < bins; ++k) {
          long double re = 0, im = 0;
          for (std::size_t t = 0; t < samples; ++t) {
            const auto [c, sn] = twiddle_of(k * t % n_fft, n_fft);
            const long double value = static_cast<long double>(x.values[v.at(o, t, i)]);
            re += value * c;
            im -= value * sn;
          }
          const std::size_t at = (o * bins + k) * v.inner + i;
          out.values[at] = in_t<T>(static_cast<T>(re));
          out.values[half + at] = in_t<T>(static_cast<T>(im));
        }
      }
    }
  });
  return out;
}

// x[t] = (1 / n) (re[0] + (-1)^t re[n / 2] + 2 sum over 0 < k < n / 2 of (re[k] cos - im[k] sin)),
// the spectrum truncated or zero-padded to n / 2 + 1 bins; the imaginary parts of bins 0 and
// n / 2 are not read.
HostArray irfft(const HostArray& re, const HostArray& im, std::size_t dim, std::optional<std::size_t> n) {
  require_float(re.dtype);
  require_same(re.dtype, im.dtype);
  if (re.shape != im.shape) invalid("fft-spectrum-shape");
  require_dim(dim, re.shape.size());
  const std::size_t given = re.shape[dim];
  const std::size_t fallback =
      given == 0 ? 0 : given - 1 > std::numeric_limits<std::size_t>::max() / 2 ? std::numeric_limits<std::size_t>::max() : 2 * (given - 1);
  const std::size_t n_fft = fft_size(n, fallback), bins = n_fft / 2 + 1, last = bins - 1;
  Dims out_shape = re.shape;
  out_shape[dim] = n_fft;
  (void)count_checked(out_shape);
  require_dft_matrix(n_fft, out_shape);
  HostArray out = make(out_shape, re.dtype);
  const Around v(re.shape, dim);
  const std::size_t read = std::min(v.len, bins);
  with_t(re.dtype, [&]<class T>(T) {
    for (std::size_t o = 0; o < v.outer; ++o) {
      for (std::size_t i = 0; i < v.inner; ++i) {
        for (std::size_t t = 0; t < n_fft; ++t) {
          long double sum = 0;
          for (std::size_t k = 0; k < read; ++k) {
            const auto [c, sn] = twiddle_of(k * t % n_fft, n_fft);
            const long double weight = (k == 0 || k == last) ? 1.0L : 2.0L;
            sum += weight * static_cast<long double>(re.values[v.at(o, k, i)]) * c;
            if (k != 0 && k != last) sum -= weight * static_cast<long double>(im.values[v.at(o, k, i)]) * sn;
          }
          out.values[(o * n_fft + t) * v.inner + i] = in_t<T>(static_cast<T>(sum / static_cast<long double>(n_fft)));
        }
      }
    }
  });
  return out;
}

// conv1d is conv2d over a single row (Burn's default conv1d): x [n, c, l] as [n, c, 1, l], the weight
// [co, cg, k] as [co, cg, 1, k], stride, padding and dilation 1, 0 and 1 across rows; its own
// checks are the ranks of its 1-D layouts (and, for a gradient, its shape, checked on the view).
Dims row_view(const Dims& d) { return d.size() == 3 ? Dims{d[0], d[1], 1, d[2]} : d; }
HostArray as_row(const HostArray& a) {
  HostArray r = a;
  r.shape = row_view(a.shape);
  return r;
}
HostArray without_row(HostArray a) {
  if (a.shape.size() == 4) a.shape = {a.shape[0], a.shape[1], a.shape[3]};
  return a;
}
Conv2dOptions row_options(const Conv1dOptions& o) { return Conv2dOptions{{1, o.stride[0]}, {0, o.padding[0]}, {1, o.dilation[0]}, o.groups}; }
void require_conv1d_ranks(const HostArray& x, const HostArray& weight) {
  if (x.shape.size() != 3 || weight.shape.size() != 3) invalid("module-input-rank");
}

HostArray conv1d(const HostArray& x, const HostArray& weight, const HostArray* bias, const Conv1dOptions& o) {
  std::vector<const HostArray*> in{&x, &weight};
  if (bias != nullptr) in.push_back(bias);
  require_conv_dtypes(in);
  require_conv1d_ranks(x, weight);
  return without_row(conv2d(as_row(x), as_row(weight), bias, row_options(o)));
}

HostArray conv1d_backward(const HostArray& x, const HostArray& weight, const HostArray& grad, const Conv1dOptions& o, bool of_x) {
  require_conv_dtypes({&x, &weight, &grad});
  require_conv1d_ranks(x, weight);
  // A gradient of another rank keeps its shape: it cannot equal the 4-D view's (pool-grad-shape).
  const HostArray g = grad.shape.size() == 3 ? as_row(grad) : grad;
  return without_row(conv2d_backward(as_row(x), as_row(weight), g, row_options(o), of_x));
}

HostArray conv1d_bias_backward(const HostArray& x, const HostArray& bias, const HostArray& grad) {
  require_conv_dtypes({&x, &bias, &grad});
  if (x.shape.size() != 3 || bias.shape.size() != 1 || grad.shape.size() != 3) invalid("module-input-rank");
  return conv2d_bias_backward(as_row(x), bias, as_row(grad));
}

// conv_transpose1d is conv_transpose2d over a single row, as conv1d is conv2d's: the weight [c,
// cog, k] as [c, cog, 1, k], stride, padding, padding_out and dilation 1, 0, 0 and 1 across rows.
ConvTranspose2dOptions row_options(const ConvTranspose1dOptions& o) {
  return ConvTranspose2dOptions{{1, o.stride[0]}, {0, o.padding[0]}, {0, o.padding_out[0]}, {1, o.dilation[0]}, o.groups};
}

HostArray conv_transpose1d(const HostArray& x, const HostArray& weight, const HostArray* bias, const ConvTranspose1dOptions& o) {
  std::vector<const HostArray*> in{&x, &weight};
  if (bias != nullptr) in.push_back(bias);
  require_conv_dtypes(in);
  require_conv1d_ranks(x, weight);
  return without_row(conv_transpose2d(as_row(x), as_row(weight), bias, row_options(o)));
}

// unfold4d from its definition: block (oy, ox) of x's padded planes holds, for every channel c
// and kernel cell (i, j), row (c k_h + i) k_w + j, the cell (oy stride + i dilation - padding,
// ox stride + j dilation - padding) of plane c, or 0 where that is padding. Checks in the engine's
// order: float x of rank 4, kernel_size, stride and dilation at least 1, no empty height or width,
// the padded input at least the dilated kernel.
struct UnfoldGrid {
  std::size_t n, c, h, w, oh, ow;
};
UnfoldGrid unfold_grid(const Dims& x, const Size2& k, const UnfoldOptions& o) {
  if (x.size() != 4) invalid("module-input-rank");
  for (const Size2& v : {k, o.stride, o.dilation}) {
    if (v[0] == 0 || v[1] == 0) invalid("module-option-zero");
  }
  if (x[2] == 0 || x[3] == 0) invalid("pool-empty-input");
  std::size_t out[2];
  for (std::size_t d = 0; d < 2; ++d) {
    const std::size_t span = o.dilation[d] * (k[d] - 1) + 1, padded = x[2 + d] + 2 * o.padding[d];
    if (padded < span) invalid("pool-kernel-too-large");
    out[d] = (padded - span) / o.stride[d] + 1;
  }
  return UnfoldGrid{x[0], x[1], x[2], x[3], out[0], out[1]};
}

// Visits every element of unfold4d's result (fold4d's input) in order, row (c k_h + i) k_w + j of
// block (oy, ox) of each batch: f(at, cell), cell the index of the image cell it copies (into
// [n, c, h, w]), or kPaddingCell where that is padding.
constexpr std::size_t kPaddingCell = static_cast<std::size_t>(-1);
template <class F>
void for_each_block_cell(const UnfoldGrid& g, const Size2& k, const UnfoldOptions& o, F f) {
  std::size_t at = 0;
  for (std::size_t b = 0; b < g.n; ++b) {
    for (std::size_t c = 0; c < g.c; ++c) {
      for (std::size_t i = 0; i < k[0]; ++i) {
        for (std::size_t j = 0; j < k[1]; ++j) {
          for (std::size_t oy = 0; oy < g.oh; ++oy) {
            for (std::size_t ox = 0; ox < g.ow; ++ox, ++at) {
              const std::size_t y = oy * o.stride[0] + i * o.dilation[0], xx = ox * o.stride[1] + j * o.dilation[1];
              const bool inside = y >= o.padding[0] && y - o.padding[0] < g.h && xx >= o.padding[1] && xx - o.padding[1] < g.w;
              f(at, inside ? ((b * g.c + c) * g.h + (y - o.padding[0])) * g.w + (xx - o.padding[1]) : kPaddingCell);
            }
          }
        }
      }
    }
  }
}

HostArray unfold4d(const HostArray& x, const Size2& k, const UnfoldOptions& o) {
  require_float(x.dtype);
  const UnfoldGrid g = unfold_grid(x.shape, k, o);
  HostArray out = make({g.n, g.c * k[0] * k[1], g.oh * g.ow}, x.dtype);
  for_each_block_cell(g, k, o, [&](std::size_t at, std::size_t cell) { out.values[at] = cell == kPaddingCell ? 0.0 : x.values[cell]; });
  return out;
}

// fold4d from its definition (col2im, unfold4d's adjoint): x [batch, channels k_h k_w, blocks]; its
// column l = oy bw + ox is block (oy, ox) of the bh x bw blocks on the padded output, and row
// (c k_h + i) k_w + j of it is added to output cell (oy stride + i dilation - padding, ox stride +
// j dilation - padding) of channel c, unless that is padding; rows, then blocks, in order. Checks in
// the engine's order: float x of rank 3, kernel_size, stride, dilation and output_size at least 1,
// dim 1 a multiple of the kernel's cells, the padded output at least the dilated kernel, dim 2 the
// number of blocks.
UnfoldGrid fold_grid(const Dims& x, const Size2& out, const Size2& k, const UnfoldOptions& o) {
  if (x.size() != 3) invalid("module-input-rank");
  for (const Size2& v : {k, o.stride, o.dilation, out}) {
    if (v[0] == 0 || v[1] == 0) invalid("module-option-zero");
  }
  std::size_t cells = 0;
  if (__builtin_mul_overflow(k[0], k[1], &cells)) invalid("shape-overflow");
  if (x[1] % cells != 0) invalid("fold-channels");
  UInt128 blocks[2];
  for (std::size_t d = 0; d < 2; ++d) {
    const UInt128 span = static_cast<UInt128>(o.dilation[d]) * (k[d] - 1) + 1;
    const UInt128 padded = static_cast<UInt128>(out[d]) + 2 * static_cast<UInt128>(o.padding[d]);
    if (padded < span) invalid("pool-kernel-too-large");
    blocks[d] = (padded - span) / o.stride[d] + 1;
  }
  if (blocks[0] * blocks[1] != x[2]) invalid("fold-blocks");
  return UnfoldGrid{x[0], x[1] / cells, out[0], out[1], static_cast<std::size_t>(blocks[0]), static_cast<std::size_t>(blocks[1])};
}

HostArray fold4d(const HostArray& x, const Size2& out_size, const Size2& k, const UnfoldOptions& o) {
  require_float(x.dtype);
  const UnfoldGrid g = fold_grid(x.shape, out_size, k, o);
  HostArray out = make({g.n, g.c, g.h, g.w}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> sums(out.values.size(), T(0));
    for_each_block_cell(g, k, o, [&](std::size_t at, std::size_t cell) {
      if (cell != kPaddingCell) sums[cell] += static_cast<T>(x.values[at]);
    });
    for (std::size_t i = 0; i < sums.size(); ++i) out.values[i] = in_t<T>(sums[i]);
  });
  return out;
}

// The 1-D poolings are the 2-D ones over a single row (Burn's defaults): x [n, c, l] as [n, c, 1,
// l], kernel, stride and dilation 1 and padding 0 across rows, an index a cell of the row.
AvgPool2dOptions row_options(const AvgPool1dOptions& o) {
  return AvgPool2dOptions{{1, o.kernel_size[0]}, {1, o.stride[0]}, {0, o.padding[0]}, o.count_include_pad, o.ceil_mode};
}
MaxPool2dOptions row_options(const MaxPool1dOptions& o) {
  return MaxPool2dOptions{{1, o.kernel_size[0]}, {1, o.stride[0]}, {0, o.padding[0]}, {1, o.dilation[0]}, o.ceil_mode};
}
// A gradient or index operand on the row view: rank 3 as [n, c, 1, l]; any other rank made one
// the 2-D op refuses as its own rank-3 op does (a rank-4 [n, c, 1, l] must not pass for the view).
HostArray operand_as_row(const HostArray& a) {
  if (a.shape.size() == 3) return as_row(a);
  HostArray r = a;
  if (r.shape.size() == 4) r.shape.push_back(1);
  return r;
}
struct RowCall {
  OpId op;
  std::vector<HostArray> operands;
  OpArgs args;
};
// A 1-D pooling as its 2-D op on the row view (nullopt for the other ops).
std::optional<RowCall> pool_as_row(OpId op, const std::vector<HostArray>& in, const OpArgs& a) {
  std::optional<OpId> op2;
  if (op == OpId::avg_pool1d) op2 = OpId::avg_pool2d;
  if (op == OpId::avg_pool1d_backward) op2 = OpId::avg_pool2d_backward;
  if (op == OpId::adaptive_avg_pool1d) op2 = OpId::adaptive_avg_pool2d;
  if (op == OpId::adaptive_avg_pool1d_backward) op2 = OpId::adaptive_avg_pool2d_backward;
  if (op == OpId::max_pool1d) op2 = OpId::max_pool2d;
  if (op == OpId::max_pool1d_indices) op2 = OpId::max_pool2d_indices;
  if (op == OpId::max_pool1d_with_indices_backward) op2 = OpId::max_pool2d_with_indices_backward;
  if (!op2) return std::nullopt;
  RowCall r{*op2, {}, a};
  for (std::size_t i = 0; i < in.size(); ++i) r.operands.push_back(i == 0 && in[0].shape.size() == 3 ? as_row(in[0]) : operand_as_row(in[i]));
  r.args.avg_pool2d = row_options(a.avg_pool1d);
  r.args.max_pool2d = row_options(a.max_pool1d);
  r.args.output_size = {1, a.output_size_1d[0]};
  return r;
}

HostArray evaluate(OpId op, const std::vector<HostArray>& in, const OpArgs& a);

// A 1-D pooling: the dtypes (x float; a gradient float of x's dtype) and x of rank 3, then the 2-D
// op's checks and values on the row view, the row dropped from the result.
HostArray pool1d(const RowCall& row, const std::vector<HostArray>& in) {
  require_float(in[0].dtype);
  if (in.size() > 1) {
    const HostArray& grad = in.back();  // {x, grad} or {x, indices, grad}
    require_float(grad.dtype);
    require_same(in[0].dtype, grad.dtype);
  }
  if (in[0].shape.size() != 3) invalid("module-input-rank");
  HostArray out = evaluate(row.op, row.operands, row.args);
  if (out.shape.size() == 4 && out.shape[2] == 1) out.shape = {out.shape[0], out.shape[1], out.shape[3]};
  return out;
}

HostArray conv_transpose1d_backward(const HostArray& x, const HostArray& weight, const HostArray& grad,
                                    const ConvTranspose1dOptions& o, bool of_x) {
  require_conv_dtypes({&x, &weight, &grad});
  require_conv1d_ranks(x, weight);
  const HostArray g = grad.shape.size() == 3 ? as_row(grad) : grad;  // as conv1d_backward's
  return without_row(conv_transpose2d_backward(as_row(x), as_row(weight), g, row_options(o), of_x));
}


// adaptive_avg_pool2d: output o of `out` along a dim of `in` averages input cells
// floor(o in / out) .. ceil((o + 1) in / out) - 1.
std::pair<std::size_t, std::size_t> adaptive_cells(std::size_t o, std::size_t in, std::size_t out) {
  // o * in exactly, then one rounded division: integral quotients stay exact, others are at least
  // 1 / out from an integer, far beyond the rounding.
  const double n = static_cast<double>(out);
  return {static_cast<std::size_t>(std::floor(static_cast<double>(o * in) / n)),
          static_cast<std::size_t>(std::ceil(static_cast<double>((o + 1) * in) / n))};
}

// The windows of an adaptive pooling of x to out_h x out_w: f(plane, oh, ow, cells) per output.
template <class F>
void adaptive_windows(const HostArray& x, const Dims& out, F f) {
  const std::size_t n = out.size();  // the pooled dims, the last n of x
  std::size_t planes = 1, plane_size = 1;
  for (std::size_t d = 0; d + n < x.shape.size(); ++d) planes *= x.shape[d];
  for (std::size_t d = 0; d < n; ++d) plane_size *= x.shape[x.shape.size() - n + d];
  for (std::size_t plane = 0; plane < planes; ++plane) {
    Dims o(n, 0);
    for (bool more = true; more;) {
      // Output o's window: the box of cells, row-major (the first pooled dim outermost).
      std::vector<std::size_t> cells{0};
      for (std::size_t d = 0; d < n; ++d) {
        const std::size_t in = x.shape[x.shape.size() - n + d];
        const auto [c0, c1] = adaptive_cells(o[d], in, out[d]);
        std::vector<std::size_t> next;
        for (std::size_t base : cells) {
          for (std::size_t c = c0; c < c1; ++c) next.push_back(base * in + c);
        }
        cells = std::move(next);
      }
      for (std::size_t& at : cells) at += plane * plane_size;
      f(cells);
      more = false;
      for (std::size_t d = n; d-- > 0;) {
        if (++o[d] < out[d]) {
          more = true;
          break;
        }
        o[d] = 0;
      }
    }
  }
}

HostArray adaptive_avg_pool2d(const HostArray& x, const Size2& output_size) {
  require_float(x.dtype);
  if (x.shape.size() != 4) invalid("module-input-rank");
  if (output_size[0] == 0 || output_size[1] == 0) invalid("module-option-zero");
  if (x.shape[2] == 0 || x.shape[3] == 0) invalid("pool-empty-input");
  HostArray out = make({x.shape[0], x.shape[1], output_size[0], output_size[1]}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::size_t f = 0;
    adaptive_windows(x, Dims{output_size[0], output_size[1]}, [&](const std::vector<std::size_t>& cells) {
      T sum = T(0);
      for (std::size_t at : cells) sum += static_cast<T>(x.values[at]);
      out.values[f++] = in_t<T>(sum / static_cast<T>(cells.size()));
    });
  });
  return out;
}

HostArray adaptive_avg_pool2d_backward(const HostArray& x, const HostArray& grad) {
  require_float(x.dtype);
  require_float(grad.dtype);
  require_same(x.dtype, grad.dtype);
  if (x.shape.size() != 4 || grad.shape.size() != 4) invalid("module-input-rank");
  if (grad.shape[0] != x.shape[0] || grad.shape[1] != x.shape[1]) invalid("pool-grad-shape");
  if (grad.shape[2] == 0 || grad.shape[3] == 0) invalid("module-option-zero");
  if (x.shape[2] == 0 || x.shape[3] == 0) invalid("pool-empty-input");
  HostArray out = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> dx(out.values.size(), T(0));
    std::size_t f = 0;
    adaptive_windows(x, Dims{grad.shape[2], grad.shape[3]}, [&](const std::vector<std::size_t>& cells) {
      const T share = static_cast<T>(grad.values[f++]) / static_cast<T>(cells.size());
      for (std::size_t at : cells) dx[at] += share;
    });
    for (std::size_t i = 0; i < dx.size(); ++i) out.values[i] = in_t<T>(dx[i]);
  });
  return out;
}

// adaptive_avg_pool3d and its backward pass: adaptive_avg_pool2d's definition over depth, height
// and width (each window a box, summed in row-major order, divided by its cells).
HostArray adaptive_avg_pool3d(const HostArray& x, const Size3& output_size) {
  require_float(x.dtype);
  if (x.shape.size() != 5) invalid("module-input-rank");
  if (output_size[0] == 0 || output_size[1] == 0 || output_size[2] == 0) invalid("module-option-zero");
  if (x.shape[2] == 0 || x.shape[3] == 0 || x.shape[4] == 0) invalid("pool-empty-input");
  HostArray out = make({x.shape[0], x.shape[1], output_size[0], output_size[1], output_size[2]}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::size_t f = 0;
    adaptive_windows(x, Dims{output_size[0], output_size[1], output_size[2]}, [&](const std::vector<std::size_t>& cells) {
      T sum = T(0);
      for (std::size_t at : cells) sum += static_cast<T>(x.values[at]);
      out.values[f++] = in_t<T>(sum / static_cast<T>(cells.size()));
    });
  });
  return out;
}

HostArray adaptive_avg_pool3d_backward(const HostArray& x, const HostArray& grad) {
  require_float(x.dtype);
  require_float(grad.dtype);
  require_same(x.dtype, grad.dtype);
  if (x.shape.size() != 5 || grad.shape.size() != 5) invalid("module-input-rank");
  if (grad.shape[0] != x.shape[0] || grad.shape[1] != x.shape[1]) invalid("pool-grad-shape");
  if (grad.shape[2] == 0 || grad.shape[3] == 0 || grad.shape[4] == 0) invalid("module-option-zero");
  if (x.shape[2] == 0 || x.shape[3] == 0 || x.shape[4] == 0) invalid("pool-empty-input");
  HostArray out = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> dx(out.values.size(), T(0));
    std::size_t f = 0;
    adaptive_windows(x, Dims{grad.shape[2], grad.shape[3], grad.shape[4]}, [&](const std::vector<std::size_t>& cells) {
      const T share = static_cast<T>(grad.values[f++]) / static_cast<T>(cells.size());
      for (std::size_t at : cells) dx[at] += share;
    });
    for (std::size_t i = 0; i < dx.size(); ++i) out.values[i] = in_t<T>(dx[i]);
  });
  return out;
}

// interpolate from its definition (docs/OPS.md "Module ops"): per axis, output cell o reads a few
// input cells with weights, worked out in the dtype's C type T (the source positions in double, with
// one rounding for r (o + 0.5) - 0.5) as the doc writes them (PyTorch's CPU formulas); out[oh, ow] = sum_j a_j(oh) * (sum_k x[h_j, w_k] * b_k(ow)), each sum left to
// right in T. interpolate_backward adds (a_j * b_k) * g[oh, ow] to cell (h_j, w_k), outputs in
// row-major order, j then k. Checks in the engine's order: float x of rank 4, a known mode, an
// output size of at least 1, x non-empty in height and width (then the gradient's dtype and shape).
template <class T>
std::vector<std::vector<std::pair<std::size_t, T>>> interpolation_taps(std::size_t in, std::size_t out, const InterpolateOptions& o) {
  std::vector<std::vector<std::pair<std::size_t, T>>> taps(out);
  const auto cell = [in](double v) {  // floor, then held to [0, in - 1]
    const double f = std::floor(v);
    return f <= 0 ? std::size_t{0} : f >= static_cast<double>(in - 1) ? in - 1 : static_cast<std::size_t>(f);
  };
  const T scale = static_cast<T>(in) / static_cast<T>(out);
  const T ratio = !o.align_corners ? scale : out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  for (std::size_t i = 0; i < out; ++i) {
    const T oi = static_cast<T>(i);
    if (o.mode == InterpolateMode::Nearest) {
      taps[i] = {{cell(static_cast<float>(scale * oi)), T(1)}};
    } else if (o.mode == InterpolateMode::NearestExact) {
      const T src = std::max(T(0), scale * (oi + T(0.5)) - T(0.5));
      taps[i] = {{cell(static_cast<float>(static_cast<double>(src) + 0.5)), T(1)}};
    } else if (o.mode == InterpolateMode::Bilinear) {
      if (in == out) {
        taps[i] = {{i, T(1)}, {i, T(0)}};
        continue;
      }
      const double r = static_cast<double>(ratio), di = static_cast<double>(i);
      const double src = o.align_corners ? r * di : std::max(0.0, std::fma(r, di + 0.5, -0.5));
      const std::size_t lo = static_cast<std::size_t>(src);
      const T frac = static_cast<T>(src - static_cast<double>(lo));
      taps[i] = {{lo, T(1) - frac}, {lo + 1 < in ? lo + 1 : lo, frac}};
    } else {  // Bicubic: Keys' kernel with A = -0.75 at distances t + 1, t, 1 - t, 2 - t
      const double r = static_cast<double>(ratio), di = static_cast<double>(i);
      const double src = o.align_corners ? r * di : std::fma(r, di + 0.5, -0.5);
      const double base = std::floor(static_cast<float>(src));
      const T t = static_cast<T>(src - base);
      const T a = T(-0.75);
      const auto inner = [a](T d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
      const auto outer = [a](T d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
      const T w[4] = {outer(t + T(1)), inner(t), inner(T(1) - t), outer((T(1) - t) + T(1))};
      for (int j = 0; j < 4; ++j) taps[i].push_back({cell(base - 1 + j), w[j]});
    }
  }
  return taps;
}

void check_interpolate(const HostArray& x, const Size2& out, const InterpolateOptions& o) {
  require_float(x.dtype);
  if (x.shape.size() != 4) invalid("module-input-rank");
  if (static_cast<unsigned>(o.mode) > 3) invalid("interpolate-mode");
  if (out[0] == 0 || out[1] == 0) invalid("module-option-zero");
  if (x.shape[2] == 0 || x.shape[3] == 0) invalid("pool-empty-input");
  UInt128 n = static_cast<UInt128>(x.shape[0]) * x.shape[1];
  if (n > std::numeric_limits<std::size_t>::max()) invalid("shape-overflow");
  n = n * out[0];
  if (n > std::numeric_limits<std::size_t>::max()) invalid("shape-overflow");
  n = n * out[1];
  if (n > std::numeric_limits<std::size_t>::max()) invalid("shape-overflow");
}

HostArray interpolate(const HostArray& x, const Size2& out, const InterpolateOptions& o) {
  check_interpolate(x, out, o);
  const std::size_t planes = x.shape[0] * x.shape[1], h = x.shape[2], w = x.shape[3];
  HostArray result = make({x.shape[0], x.shape[1], out[0], out[1]}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    const auto rows = interpolation_taps<T>(h, out[0], o), cols = interpolation_taps<T>(w, out[1], o);
    std::size_t at = 0;
    for (std::size_t p = 0; p < planes; ++p) {
      for (std::size_t oh = 0; oh < out[0]; ++oh) {
        for (std::size_t ow = 0; ow < out[1]; ++ow, ++at) {
          T sum = 0;
          for (std::size_t j = 0; j < rows[oh].size(); ++j) {
            T row = 0;
            for (std::size_t k = 0; k < cols[ow].size(); ++k) {
              const T v = static_cast<T>(x.values[(p * h + rows[oh][j].first) * w + cols[ow][k].first]);
              const T term = o.mode == InterpolateMode::Nearest || o.mode == InterpolateMode::NearestExact ? v : v * cols[ow][k].second;
              row = k == 0 ? term : row + term;
            }
            const T term = o.mode == InterpolateMode::Nearest || o.mode == InterpolateMode::NearestExact ? row : row * rows[oh][j].second;
            sum = j == 0 ? term : sum + term;
          }
          result.values[at] = in_t<T>(sum);
        }
      }
    }
  });
  return result;
}

HostArray interpolate_backward(const HostArray& x, const HostArray& grad, const Size2& out, const InterpolateOptions& o) {
  require_float(x.dtype);
  require_float(grad.dtype);
  require_same(x.dtype, grad.dtype);
  check_interpolate(x, out, o);
  if (grad.shape != Dims{x.shape[0], x.shape[1], out[0], out[1]}) invalid("pool-grad-shape");
  const std::size_t planes = x.shape[0] * x.shape[1], h = x.shape[2], w = x.shape[3];
  HostArray result = make(x.shape, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    const auto rows = interpolation_taps<T>(h, out[0], o), cols = interpolation_taps<T>(w, out[1], o);
    std::vector<T> dx(result.values.size(), T(0));
    std::size_t at = 0;
    for (std::size_t p = 0; p < planes; ++p) {
      for (std::size_t oh = 0; oh < out[0]; ++oh) {
        for (std::size_t ow = 0; ow < out[1]; ++ow, ++at) {
          const T g = static_cast<T>(grad.values[at]);
          for (const auto& [row, a] : rows[oh]) {
            for (const auto& [col, b] : cols[ow]) dx[(p * h + row) * w + col] += (a * b) * g;
          }
        }
      }
    }
    for (std::size_t i = 0; i < dx.size(); ++i) result.values[i] = in_t<T>(dx[i]);
  });
  return result;
}

// The most terms one cell of interpolate_backward's result sums: per axis, the most (output, tap)
// pairs that read one input cell, multiplied.
std::size_t interpolate_backward_terms(const Dims& x, const Size2& out, const InterpolateOptions& o) {
  if (x.size() != 4 || x[2] == 0 || x[3] == 0 || out[0] == 0 || out[1] == 0 || static_cast<unsigned>(o.mode) > 3) return 1;
  std::size_t terms = 1;
  for (std::size_t d = 0; d < 2; ++d) {
    std::vector<std::size_t> reads(x[2 + d], 0);
    for (const auto& taps : interpolation_taps<double>(x[2 + d], out[d], o)) {
      for (const auto& tap : taps) ++reads[tap.first];
    }
    terms *= std::max<std::size_t>(1, *std::max_element(reads.begin(), reads.end()));
  }
  return terms;
}

// sort / argsort / topk / argtopk (docs/OPS.md, "Sorting"): the place of element r of a lane is
// the number of elements of the lane that come before it, where a comes before b when it orders
// first (ascending: a < b, every number before NaN; descending the reverse, NaN first) or when the
// two are equal (both NaN, or == so that -0 equals +0) and a has the smaller index. Places below k
// are kept: `index` gives r there (I64), else x_r.
HostArray sorted_along(const HostArray& x, std::size_t dim, bool descending, std::optional<std::size_t> k,
                       bool index) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  const std::size_t len = x.shape[dim];
  const std::size_t keep = k.value_or(len);
  if (keep > len) invalid("topk-k");
  Dims shape = x.shape;
  shape[dim] = keep;
  HostArray out = make(shape, index ? DType::I64 : x.dtype);
  const auto less = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  const auto equal = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  const Around v(x.shape, dim);
  const Around o(shape, dim);
  for (std::size_t i = 0; i < v.outer; ++i) {
    for (std::size_t j = 0; j < v.inner; ++j) {
      for (std::size_t r = 0; r < len; ++r) {
        const double xr = x.values[v.at(i, r, j)];
        std::size_t place = 0;
        for (std::size_t s = 0; s < len; ++s) {
          const double xs = x.values[v.at(i, s, j)];
          if ((descending ? less(xr, xs) : less(xs, xr)) || (s < r && equal(xs, xr))) ++place;
        }
        if (place < keep) out.values[o.at(i, place, j)] = index ? static_cast<double>(r) : xr;
      }
    }
  }
  return out;
}

// cross along dim: component i of the result is a_(i+1) b_(i+2) - a_(i+2) b_(i+1) (indices mod 3),
// each product and the difference rounded in T, over the broadcast of the other dims.
HostArray cross(const HostArray& a, const HostArray& b, std::size_t dim) {
  require_float(a.dtype);
  require_float(b.dtype);
  require_same(a.dtype, b.dtype);
  require_dim(dim, a.shape.size());
  if (b.shape.size() != a.shape.size() || a.shape[dim] != 3 || b.shape[dim] != 3) invalid("cross-dim");
  const Dims shape = broadcast(a.shape, b.shape);
  HostArray out = make(shape, a.dtype);
  with_t(a.dtype, [&]<class T>(T) {
    for (std::size_t f = 0; f < out.values.size(); ++f) {
      Dims c = coords(f, shape);
      const std::size_t i = c[dim];
      const auto at = [&](const HostArray& h, std::size_t k) {
        c[dim] = k % 3;
        const T v = static_cast<T>(h.values[broadcast_offset(c, h.shape)]);
        c[dim] = i;
        return v;
      };
      const T p = at(a, i + 1) * at(b, i + 2);
      const T q = at(a, i + 2) * at(b, i + 1);
      out.values[f] = in_t<T>(static_cast<T>(p - q));
    }
  });
  return out;
}

HostArray permute(const HostArray& x, const Dims& axes) {
  require_float(x.dtype);
  if (axes.size() != x.shape.size()) invalid("permute-invalid");
  std::vector<bool> seen(axes.size(), false);
  for (std::size_t a : axes) {
    if (a >= axes.size() || seen[a]) invalid("permute-invalid");
    seen[a] = true;
  }
  return permuted(x, axes);
}

HostArray expand(const HostArray& x, const Dims& to) {
  require_float(x.dtype);
  if (to.size() < x.shape.size()) invalid("expand-mismatch");
  const std::size_t lead = to.size() - x.shape.size();
  for (std::size_t i = 0; i < x.shape.size(); ++i) {
    if (x.shape[i] != 1 && x.shape[i] != to[lead + i]) invalid("expand-mismatch");
  }
  HostArray out = make(to, x.dtype);
  for (std::size_t f = 0; f < out.values.size(); ++f) out.values[f] = x.values[broadcast_offset(coords(f, to), x.shape)];
  return out;
}

// A conversion to the float dtype `to` (static_cast from the value the operand holds).
HostArray converted(const HostArray& x, DType to) {
  require_float(to);
  HostArray out = make(x.shape, to);
  with_t(to, [&]<class T>(T) {
    for (std::size_t i = 0; i < x.values.size(); ++i) out.values[i] = in_t<T>(static_cast<T>(x.values[i]));
  });
  return out;
}

// float_into_int (docs/OPS.md): Rust's `as` from its definition: NaN is 0, else the value
// truncated toward zero and clamped to the target's range (so +-inf are its ends).
HostArray into_int(const HostArray& x, DType to) {
  require_float(x.dtype);
  if (!is_int_dtype(to)) invalid("unsupported-dtype");
  const auto [lowest, highest] = [&]() -> std::pair<long double, long double> {
    if (to == DType::I64) return {-9223372036854775808.0L, 9223372036854775807.0L};
    if (to == DType::I32) return {-2147483648.0L, 2147483647.0L};
    if (to == DType::I8) return {-128.0L, 127.0L};
    return {0.0L, 255.0L};  // U8
  }();
  HostArray out = make(x.shape, to);
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    const long double v = x.values[i];
    const long double t = std::isnan(x.values[i]) ? 0.0L : std::fmax(lowest, std::fmin(highest, std::trunc(v)));
    out.values[i] = static_cast<double>(t) + 0.0;  // an int has no -0
  }
  return out;
}

HostArray sum_all(const HostArray& x, bool mean) {
  require_float(x.dtype);
  HostArray out = make({1}, x.dtype);
  with_t(x.dtype, [&]<class T>(T) {
    T acc = T(0);
    for (double v : x.values) acc += static_cast<T>(v);
    if (mean) acc /= static_cast<T>(x.values.size());
    out.values[0] = in_t<T>(acc);
  });
  return out;
}

// The lanes a reduction folds: along `dim` (kept with size 1), or every element as one lane when
// there is no dim (shape [1]). Calls f(lane) with the lane's values in index order as T and
// stores its result.
template <class F>
HostArray over_lanes(const HostArray& x, std::optional<std::size_t> dim, DType result, F f) {
  require_float(x.dtype);
  if (dim) require_dim(*dim, x.shape.size());
  Dims shape{1};
  if (dim) {
    shape = x.shape;
    shape[*dim] = 1;
  }
  HostArray out = make(shape, result);
  const Around v(dim ? x.shape : Dims{count(x.shape)}, dim.value_or(0));
  with_t(x.dtype, [&]<class T>(T) {
    std::vector<T> lane(v.len);
    for (std::size_t i = 0; i < v.outer; ++i) {
      for (std::size_t j = 0; j < v.inner; ++j) {
        for (std::size_t r = 0; r < v.len; ++r) lane[r] = static_cast<T>(x.values[v.at(i, r, j)]);
        out.values[i * v.inner + j] = f(lane);
      }
    }
  });
  return out;
}

// prod / prod_dim (docs/OPS.md): multiplied in double from 1 in index order, rounded once to T.
HostArray product(const HostArray& x, std::optional<std::size_t> dim) {
  return over_lanes(x, dim, x.dtype, []<class T>(const std::vector<T>& lane) {
    double p = 1;
    for (T e : lane) p *= static_cast<double>(e);
    return in_t<T>(static_cast<T>(p));
  });
}

// The extreme scans over every element, or max_abs: the max scan of |x|, keeping |x| (a NaN's
// magnitude keeps its payload).
HostArray extreme_all(const HostArray& x, bool min, bool magnitude) {
  require_float(x.dtype);
  if (count(x.shape) == 0) invalid("empty-reduction");
  return over_lanes(x, std::nullopt, x.dtype, [&]<class T>(const std::vector<T>& lane) {
    T m = magnitude ? std::fabs(lane[0]) : lane[0];
    for (std::size_t r = 1; r < lane.size(); ++r) {
      const T e = magnitude ? std::fabs(lane[r]) : lane[r];
      if (!std::isnan(m) && (std::isnan(e) || (min ? e < m : e > m))) m = e;
    }
    return in_t<T>(m);
  });
}

HostArray max_abs_along(const HostArray& x, std::size_t dim) {
  require_float(x.dtype);
  require_dim(dim, x.shape.size());
  if (x.shape[dim] == 0) invalid("empty-reduction");
  return over_lanes(x, dim, x.dtype, []<class T>(const std::vector<T>& lane) {
    T m = std::fabs(lane[0]);
    for (std::size_t r = 1; r < lane.size(); ++r) {
      const T e = std::fabs(lane[r]);
      if (!std::isnan(m) && (std::isnan(e) || e > m)) m = e;
    }
    return in_t<T>(m);
  });
}

// any / all of x != 0 (NaN != 0 is true); no element: any false, all true.
HostArray truth(const HostArray& x, std::optional<std::size_t> dim, bool all) {
  return over_lanes(x, dim, DType::Bool, [all]<class T>(const std::vector<T>& lane) {
    std::size_t nonzero = 0;
    for (T e : lane) nonzero += e != T(0) ? 1 : 0;
    return (all ? nonzero == lane.size() : nonzero > 0) ? 1.0 : 0.0;
  });
}

// remainder(a, b) = a - floor(a / b) b, the sign of the divisor (docs/OPS.md): the exact value is
// fmod(a, b) (a - trunc(a / b) b, exact in IEEE arithmetic) when that is 0 or has b's sign, else
// fmod(a, b) + b, rounded once. A zero keeps fmod's sign; b = 0, a = inf and NaN give NaN.
template <class T>
T remainder_value(T a, T b) {
  const T t = std::fmod(a, b);
  if (t == T(0) || std::isnan(t) || std::signbit(t) == std::signbit(b)) return t;
  return t + b;
}

// ---- the int and bool ops (docs/OPS.md "Integer arithmetic") --------------------------------
// Computed on the mathematical integers (128-bit, where no int64 sum or product overflows), then
// reduced modulo 2^width into the dtype's range: the definition of wrapping, not the engine's
// unsigned-arithmetic route to it.
using Wide = __int128;

struct IntRange {
  Wide lowest, highest;
};
IntRange range_of(DType d) {
  if (d == DType::I64) return {Wide(INT64_MIN), Wide(INT64_MAX)};
  if (d == DType::I32) return {Wide(INT32_MIN), Wide(INT32_MAX)};
  if (d == DType::I8) return {-128, 127};
  return {0, 255};  // U8
}
std::int64_t wrap(Wide v, DType d) {
  const IntRange r = range_of(d);
  const Wide span = r.highest - r.lowest + 1;
  Wide m = (v - r.lowest) % span;
  if (m < 0) m += span;
  return static_cast<std::int64_t>(m + r.lowest);
}
// An int op's operands come through Dispatch, which routes by kind: a float or bool operand is
// op-kind-mismatch there, before any dtype rule.
void require_int(DType d) {
  if (!is_int_dtype(d)) invalid("op-kind-mismatch");
}
// Rust's `as` into i64 (toward zero, NaN 0, saturating), then modulo 2^width.
std::int64_t int_scalar_in(double s, DType d) {
  Wide v = 0;
  if (!std::isnan(s)) {
    const long double t = std::trunc(static_cast<long double>(s));
    if (t >= 9223372036854775807.0L) v = INT64_MAX;
    else if (t <= -9223372036854775808.0L) v = INT64_MIN;
    else v = static_cast<Wide>(static_cast<std::int64_t>(t));
  }
  return wrap(v, d);
}
// Truncating quotient and floor remainder on the integers (b != 0).
Wide trunc_quotient(Wide a, Wide b) { return a / b; }
Wide floor_remainder(Wide a, Wide b) {
  Wide q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
  return a - b * q;
}

template <class F>
HostArray int_binary(const HostArray& a, const HostArray& b, bool divides, F f) {
  require_int(a.dtype);
  require_int(b.dtype);
  require_same(a.dtype, b.dtype);
  const Dims shape = broadcast(a.shape, b.shape);
  const std::vector<std::int64_t> x = int_values(a), y = int_values(b);
  std::vector<std::int64_t> out(count(shape));
  if (divides && !out.empty()) {
    for (std::int64_t v : y) {
      if (v == 0) invalid("int-division-by-zero");
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Dims c = coords(i, shape);
    out[i] = wrap(f(Wide(x[broadcast_offset(c, a.shape)]), Wide(y[broadcast_offset(c, b.shape)])), a.dtype);
  }
  return int_array(shape, a.dtype, std::move(out));
}
template <class F>
HostArray int_unary(const HostArray& a, F f) {
  require_int(a.dtype);
  std::vector<std::int64_t> out = int_values(a);
  for (std::int64_t& v : out) v = wrap(f(Wide(v)), a.dtype);
  return int_array(a.shape, a.dtype, std::move(out));
}
// f(x, s) with the scalar converted to the dtype; a divisor that converts to 0 is refused whatever
// the tensor's size.
template <class F>
HostArray int_scalar_op(const HostArray& a, double scalar, bool divides, F f) {
  require_int(a.dtype);
  const Wide s = int_scalar_in(scalar, a.dtype);
  if (divides && s == 0) invalid("int-division-by-zero");
  return int_unary(a, [&](Wide x) { return f(x, s); });
}
// pred(x, y) of two broadcast int operands (or of each element and the converted scalar), Bool.
template <class P>
HostArray int_compare(const HostArray& a, const HostArray& b, P pred) {
  require_int(a.dtype);
  require_int(b.dtype);
  require_same(a.dtype, b.dtype);
  const Dims shape = broadcast(a.shape, b.shape);
  const std::vector<std::int64_t> x = int_values(a), y = int_values(b);
  HostArray out = make(shape, DType::Bool);
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    const Dims c = coords(i, shape);
    out.values[i] = pred(x[broadcast_offset(c, a.shape)], y[broadcast_offset(c, b.shape)]) ? 1 : 0;
  }
  return out;
}
template <class P>
HostArray int_compare_scalar(const HostArray& a, double scalar, P pred) {
  require_int(a.dtype);
  const std::int64_t s = int_scalar_in(scalar, a.dtype);
  const std::vector<std::int64_t> x = int_values(a);
  HostArray out = make(a.shape, DType::Bool);
  for (std::size_t i = 0; i < x.size(); ++i) out.values[i] = pred(x[i], s) ? 1 : 0;
  return out;
}
// The bit pattern of an element of d as the width's unsigned value, and back (two's complement).
std::uint64_t bits_of(Wide v, DType d) {
  const IntRange r = range_of(d);
  const Wide span = r.highest - r.lowest + 1;
  return static_cast<std::uint64_t>(((v % span) + span) % span);
}
int width_of(DType d) { return d == DType::I64 ? 64 : d == DType::I32 ? 32 : 8; }
// x * 2^n modulo 2^width; 0 when n is negative or at least the width.
Wide left_shifted(Wide x, Wide n, DType d) {
  if (n < 0 || n >= width_of(d)) return 0;
  Wide p = 1;
  for (Wide k = 0; k < n; ++k) p *= 2;
  return x * p;  // |x| < 2^63, p <= 2^63: within 128 bits; wrap() reduces it
}
// floor(x / 2^n) (an arithmetic shift; U8 values are non-negative); the sign fill when n is
// negative or at least the width.
Wide right_shifted(Wide x, Wide n, DType d) {
  if (n < 0 || n >= width_of(d)) return x < 0 ? -1 : 0;
  Wide p = 1;
  for (Wide k = 0; k < n; ++k) p *= 2;
  Wide q = x / p;
  if (x % p != 0 && x < 0) q -= 1;
  return q;
}
// A bitwise op on the width's bit patterns.
template <class F>
Wide bitwise(Wide x, Wide y, DType d, F f) {
  return Wide(f(bits_of(x, d), bits_of(y, d)));  // wrap() maps the pattern back into the dtype
}

bool truth_of(double v) { return v != 0; }

// A clamp bound as an element of d: Rust's `as` (toward zero, NaN 0, saturating at d's ends).
Wide int_bound_in(double b, DType d) {
  const IntRange r = range_of(d);
  if (std::isnan(b)) return 0;
  const long double t = std::trunc(static_cast<long double>(b));
  if (t <= static_cast<long double>(r.lowest)) return r.lowest;
  if (t >= static_cast<long double>(r.highest)) return r.highest;
  return static_cast<Wide>(static_cast<std::int64_t>(t));
}

// An int or bool reduction over every element (shape [1]) or along dim (kept with size 1): f(lane)
// gets the lane's exact values in index order and gives the result element. `needs_one`: a lane
// of no element is empty-reduction (a mean, extreme or index of nothing).
template <class F>
HostArray int_lanes(const HostArray& x, std::optional<std::size_t> dim, DType result, bool needs_one, F f) {
  if (dim) require_dim(*dim, x.shape.size());
  const std::vector<std::int64_t> v = x.dtype == DType::Bool ? std::vector<std::int64_t>(x.values.begin(), x.values.end()) : int_values(x);
  Dims shape{1};
  std::size_t outer = 1, len = v.size(), inner = 1;
  if (dim) {
    shape = x.shape;
    shape[*dim] = 1;
    outer = count(Dims(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(*dim)));
    len = x.shape[*dim];
    inner = count(Dims(x.shape.begin() + static_cast<std::ptrdiff_t>(*dim) + 1, x.shape.end()));
  }
  if (needs_one && len == 0 && (dim || count(x.shape) == 0)) invalid("empty-reduction");
  std::vector<std::int64_t> out;
  for (std::size_t a = 0; a < outer; ++a) {
    for (std::size_t b = 0; b < inner; ++b) {
      std::vector<Wide> lane;
      for (std::size_t k = 0; k < len; ++k) lane.push_back(v[(a * len + k) * inner + b]);
      out.push_back(f(lane));
    }
  }
  if (result == DType::Bool) {
    HostArray h = make(shape, DType::Bool);
    for (std::size_t i = 0; i < out.size(); ++i) h.values[i] = static_cast<double>(out[i]);
    return h;
  }
  return int_array(shape, result, std::move(out));
}

// The reductions' definitions on the integers: the sum and product reduced modulo 2^width, the mean
// the wrapped sum divided by the count toward zero, the first extreme or its index, any / all.
HostArray int_reduction(OpId op, const HostArray& x, std::optional<std::size_t> dim) {
  const bool is_bool_op = op == OpId::bool_any || op == OpId::bool_all || op == OpId::bool_any_dim || op == OpId::bool_all_dim;
  if (is_bool_op ? x.dtype != DType::Bool : !is_int_dtype(x.dtype)) invalid("op-kind-mismatch");
  const DType d = x.dtype;
  // If-chains, not a switch over every OpId (-Wswitch-enum).
  if (op == OpId::int_sum || op == OpId::int_sum_dim) {
    return int_lanes(x, dim, d, false, [d](const std::vector<Wide>& l) {
      Wide acc = 0;
      for (Wide e : l) acc += e;
      return wrap(acc, d);
    });
  }
  if (op == OpId::int_prod || op == OpId::int_prod_dim) {
    return int_lanes(x, dim, d, false, [d](const std::vector<Wide>& l) {
      Wide acc = 1;
      for (Wide e : l) acc = Wide(wrap(acc * e, d));  // reduced each step: the product stays within 128 bits
      return wrap(acc, d);
    });
  }
  if (op == OpId::int_mean || op == OpId::int_mean_dim) {
    return int_lanes(x, dim, d, true, [d](const std::vector<Wide>& l) {
      Wide acc = 0;
      for (Wide e : l) acc += e;
      return std::int64_t(Wide(wrap(acc, d)) / Wide(l.size()));
    });
  }
  const bool max = op == OpId::int_max || op == OpId::int_max_dim || op == OpId::int_argmax;
  const bool min = op == OpId::int_min || op == OpId::int_min_dim || op == OpId::int_argmin;
  if (max || min) {
    const bool index = op == OpId::int_argmax || op == OpId::int_argmin;
    return int_lanes(x, dim, index ? DType::I64 : d, true, [max, index](const std::vector<Wide>& l) {
      std::size_t at = 0;
      for (std::size_t k = 1; k < l.size(); ++k) {
        if (max ? l[k] > l[at] : l[k] < l[at]) at = k;  // the first extreme
      }
      return index ? std::int64_t(at) : std::int64_t(l[at]);
    });
  }
  if (op == OpId::int_max_abs || op == OpId::int_max_abs_dim) {  // the largest wrapping |x|: |MIN| is MIN
    return int_lanes(x, dim, d, true, [d](const std::vector<Wide>& l) {
      std::int64_t best = wrap(l[0] < 0 ? -l[0] : l[0], d);
      for (Wide e : l) best = std::max(best, wrap(e < 0 ? -e : e, d));
      return best;
    });
  }
  if (op == OpId::int_any || op == OpId::bool_any || op == OpId::int_any_dim || op == OpId::bool_any_dim) {
    return int_lanes(x, dim, DType::Bool, false, [](const std::vector<Wide>& l) {
      return std::int64_t(std::any_of(l.begin(), l.end(), [](Wide e) { return e != 0; }));
    });
  }
  if (op == OpId::int_all || op == OpId::bool_all || op == OpId::int_all_dim || op == OpId::bool_all_dim) {
    return int_lanes(x, dim, DType::Bool, false, [](const std::vector<Wide>& l) {
      return std::int64_t(std::all_of(l.begin(), l.end(), [](Wide e) { return e != 0; }));
    });
  }
  throw std::logic_error("int_reduction: not an int reduction");
}
// The int scans along dim: element r of a lane is the wrapped sum or product of its elements 0..r
// (the product reduced at each step, the same residue), or their least or greatest.
HostArray int_scan(OpId op, const HostArray& x, std::size_t dim) {
  require_int(x.dtype);
  require_dim(dim, x.shape.size());
  const DType d = x.dtype;
  const std::vector<std::int64_t> v = int_values(x);
  std::vector<std::int64_t> out(v.size());
  const Around a(x.shape, dim);
  for (std::size_t i = 0; i < a.outer; ++i) {
    for (std::size_t j = 0; j < a.inner; ++j) {
      Wide acc = 0;
      for (std::size_t r = 0; r < a.len; ++r) {
        const Wide e = v[a.at(i, r, j)];
        if (r == 0) acc = e;
        else if (op == OpId::int_cumsum) acc += e;
        else if (op == OpId::int_cumprod) acc = Wide(wrap(acc * e, d));
        else if (op == OpId::int_cummin) acc = std::min(acc, e);
        else acc = std::max(acc, e);
        out[a.at(i, r, j)] = wrap(acc, d);
      }
    }
  }
  return int_array(x.shape, d, std::move(out));
}

// int_sort / int_argsort / int_topk / int_argtopk: sorted_along's places on the exact values (no
// NaN: a comes before b when it is smaller, or larger descending, or equal with a smaller index).
HostArray int_sorted_along(const HostArray& x, std::size_t dim, bool descending, std::optional<std::size_t> k, bool index) {
  require_int(x.dtype);
  require_dim(dim, x.shape.size());
  const std::size_t len = x.shape[dim];
  const std::size_t keep = k.value_or(len);
  if (keep > len) invalid("topk-k");
  Dims shape = x.shape;
  shape[dim] = keep;
  const std::vector<std::int64_t> v = int_values(x);
  std::vector<std::int64_t> out(count(shape));
  const Around a(x.shape, dim);
  const Around o(shape, dim);
  for (std::size_t i = 0; i < a.outer; ++i) {
    for (std::size_t j = 0; j < a.inner; ++j) {
      for (std::size_t r = 0; r < len; ++r) {
        const std::int64_t xr = v[a.at(i, r, j)];
        std::size_t place = 0;
        for (std::size_t s = 0; s < len; ++s) {
          const std::int64_t xs = v[a.at(i, s, j)];
          if ((descending ? xs > xr : xs < xr) || (s < r && xs == xr)) ++place;
        }
        if (place < keep) out[o.at(i, place, j)] = index ? static_cast<std::int64_t>(r) : xr;
      }
    }
  }
  return int_array(shape, index ? DType::I64 : x.dtype, std::move(out));
}

// int_matmul: each output element the dot product on the integers, reduced modulo 2^width.
HostArray int_matmul(const HostArray& a, const HostArray& b) {
  require_int(a.dtype);
  require_int(b.dtype);
  require_same(a.dtype, b.dtype);
  const MatmulShapes ms = matmul_shapes(a.shape, b.shape);
  const std::size_t m = ms.m, k = ms.k, n = ms.n;
  const Dims &a_batch = ms.a_batch, &b_batch = ms.b_batch, &batch = ms.batch, &shape = ms.shape;
  const std::vector<std::int64_t> x = int_values(a), y = int_values(b);
  std::vector<std::int64_t> out(count(shape));
  for (std::size_t bi = 0; bi < count(batch) && m * n > 0; ++bi) {
    const Dims c = coords(bi, batch);
    const std::size_t ao = broadcast_offset(c, a_batch) * m * k, bo = broadcast_offset(c, b_batch) * k * n;
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        Wide acc = 0;  // each product below 2^126 in size; reduced after each step
        for (std::size_t p = 0; p < k; ++p) acc = Wide(wrap(acc + Wide(x[ao + i * k + p]) * Wide(y[bo + p * n + j]), a.dtype));
        out[(bi * m + i) * n + j] = wrap(acc, a.dtype);
      }
    }
  }
  return int_array(shape, a.dtype, std::move(out));
}

// x^e on the integers modulo 2^width for e >= 0 (square and multiply, each step reduced: the same
// residue); for e < 0 the true power truncated toward zero: 1 for x = 1, (-1)^e for x = -1, and
// otherwise 0 (|x^e| < 1), 0^e included (PyTorch's rule: no division, no panic).
Wide int_power(Wide x, Wide e, DType d) {
  if (e < 0) {
    if (x == 1) return 1;
    if (x == -1) return (-e) % 2 == 1 ? -1 : 1;
    return 0;
  }
  Wide result = 1, base = wrap(x, d);
  for (; e > 0; e /= 2) {
    if (e % 2 == 1) result = wrap(result * base, d);
    base = wrap(base * base, d);
  }
  return result;
}

template <class F>
HostArray bool_binary(const HostArray& a, const HostArray& b, F f) {
  if (a.dtype != DType::Bool || b.dtype != DType::Bool) invalid("op-kind-mismatch");  // as require_int
  const Dims shape = broadcast(a.shape, b.shape);
  HostArray out = make(shape, DType::Bool);
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    const Dims c = coords(i, shape);
    out.values[i] = f(truth_of(a.values[broadcast_offset(c, a.shape)]), truth_of(b.values[broadcast_offset(c, b.shape)])) ? 1 : 0;
  }
  return out;
}

HostArray evaluate(OpId op, const std::vector<HostArray>& in, const OpArgs& a);

// The layout ops of the int and bool kinds (docs/OPS.md "Layout ops of every kind"): an element
// moves to the same place whatever its kind, so the float op's formula runs on the elements'
// positions (exact in double) and each position is then replaced by the element it names; I64
// values beyond 2^53 move exactly. Every operand of the kind is checked first (Dispatch routes by
// kind: op-kind-mismatch before any backend rule); a second operand of another int dtype is a
// float position array of the other float dtype, so the float formula raises dtype-mismatch at
// its own place in the order.
HostArray moved(OpId op, const std::vector<HostArray>& in, const OpArgs& a) {
  const OpKind kind = op_info(op).operand;
  // in[1] is an index tensor or a Bool mask: read, never moved.
  const OpSig sig = op_info(op).sig;
  const bool index_operand = sig == OpSig::Select || sig == OpSig::Gather || sig == OpSig::GatherNd || sig == OpSig::Embedding ||
                             sig == OpSig::MaskWhere || sig == OpSig::MaskSelect;
  const auto moves = [&](std::size_t i) { return !(index_operand && i == 1); };
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!moves(i)) continue;
    const bool of_kind = kind == OpKind::Int ? is_int_dtype(in[i].dtype) : in[i].dtype == DType::Bool;
    if (!of_kind) invalid("op-kind-mismatch");
  }
  std::vector<HostArray> positions = in;
  std::vector<std::int64_t> source;  // every moved element, operand after operand
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!moves(i)) continue;
    HostArray& p = positions[i];
    p.dtype = in[i].dtype == in.front().dtype ? DType::F64 : DType::F32;
    p.exact.clear();
    const std::vector<std::int64_t> elements = int_values(in[i]);
    for (std::size_t e = 0; e < elements.size(); ++e) p.values[e] = static_cast<double>(source.size() + e);
    source.insert(source.end(), elements.begin(), elements.end());
  }
  const HostArray placed = evaluate(layout_op_of_kind(op, OpKind::Float), positions, a);
  std::vector<std::int64_t> out;
  out.reserve(placed.values.size());
  for (double p : placed.values) out.push_back(source.at(static_cast<std::size_t>(p)));
  if (kind == OpKind::Bool) {
    HostArray b = make(placed.shape, DType::Bool);
    for (std::size_t i = 0; i < out.size(); ++i) b.values[i] = out[i] != 0 ? 1 : 0;
    return b;
  }
  return int_array(placed.shape, in.front().dtype, std::move(out));
}

// The int and bool forms of the index updates (int_select_add, int_scatter, int_scatter_nd,
// int_mask_fill; bool_select_or, bool_scatter_or, bool_mask_fill): the kind checks, then the
// float op on F64 copies of the operands (the other float dtype where an int operand has another
// int dtype) for every shape, index and dtype rule, whose panics are the int op's; then the exact
// result on the integers: each value combined into its target in the float op's order (Add and Mul
// modulo 2^width, Min and Max keeping the target on a tie; for Bool, or), a fill converted as every
// int scalar (a Bool fill is true when nonzero).
Wide combined(IndexingUpdateOp update, Wide target, Wide value, DType d) {
  switch (update) {
    case IndexingUpdateOp::Assign: return value;
    case IndexingUpdateOp::Add: return wrap(target + value, d);
    case IndexingUpdateOp::Mul: return wrap(target * value, d);
    case IndexingUpdateOp::Min: return value < target ? value : target;
    case IndexingUpdateOp::Max: return value > target ? value : target;
  }
  return target;
}

HostArray updated_in_kind(OpId op, const std::vector<HostArray>& in, const OpArgs& a) {
  const OpInfo& info = op_info(op);
  const bool is_bool = info.operand == OpKind::Bool;
  const bool index_operand = takes_index_tensor(info.sig) || takes_mask(info.sig);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (index_operand && i == 1) continue;
    const bool of_kind = is_bool ? in[i].dtype == DType::Bool : is_int_dtype(in[i].dtype);
    if (!of_kind) invalid("op-kind-mismatch");
  }
  std::vector<HostArray> shadow = in;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (index_operand && i == 1) continue;
    shadow[i].dtype = in[i].dtype == in.front().dtype ? DType::F64 : DType::F32;
    shadow[i].exact.clear();
  }
  OpId twin = OpId::float_select_add;
  if (info.sig == OpSig::Scatter) twin = OpId::float_scatter_add;
  if (info.sig == OpSig::ScatterUpdate) twin = OpId::float_scatter;
  if (info.sig == OpSig::ScatterNd) twin = OpId::float_scatter_nd;
  if (info.sig == OpSig::MaskFill) twin = OpId::float_mask_fill;
  OpArgs untracked = a;
  untracked.tracked = false;  // int and bool ops have no gradient, so every update is allowed
  (void)evaluate(twin, shadow, untracked);

  const DType d = is_bool ? DType::U8 : in[0].dtype;
  const auto exact = [&](const HostArray& h) {
    return is_bool ? std::vector<std::int64_t>(h.values.begin(), h.values.end()) : int_values(h);
  };
  const HostArray& x = in[0];
  std::vector<std::int64_t> out;
  Dims shape = x.shape;
  if (info.sig == OpSig::MaskFill) {
    const Wide fill = is_bool ? Wide(a.scalar != 0) : Wide(int_scalar_in(a.scalar, d));
    shape = broadcast(x.shape, in[1].shape);
    const std::vector<std::int64_t> xs = exact(x);
    for (std::size_t f = 0; f < count(shape); ++f) {
      const Dims c = coords(f, shape);
      out.push_back(in[1].values[broadcast_offset(c, in[1].shape)] != 0 ? std::int64_t(fill) : xs[broadcast_offset(c, x.shape)]);
    }
  } else {
    out = exact(x);
    const std::vector<std::int64_t> v = exact(in[2]);
    const IndexingUpdateOp update = is_bool ? IndexingUpdateOp::Max
                                    : info.sig == OpSig::ScatterUpdate || info.sig == OpSig::ScatterNd ? a.update
                                                                                                       : IndexingUpdateOp::Add;
    const auto apply = [&](std::size_t target, std::size_t from) { out[target] = std::int64_t(combined(update, out[target], v[from], d)); };
    if (info.sig == OpSig::SelectAssign) {
      const Dims idx = index_values(in[1], x.shape[a.dim]);
      Dims selected = x.shape;
      selected[a.dim] = idx.size();
      const Around o(x.shape, a.dim), s(selected, a.dim);
      for (std::size_t i = 0; i < o.outer; ++i) {
        for (std::size_t j = 0; j < idx.size(); ++j) {
          for (std::size_t r = 0; r < o.inner; ++r) apply(o.at(i, idx[j], r), s.at(i, j, r));
        }
      }
    } else if (info.sig == OpSig::ScatterNd) {
      const Dims offsets = nd_row_offsets(shadow[0], in[1]);
      const std::size_t block = offsets.empty() ? 0 : v.size() / offsets.size();
      for (std::size_t m = 0; m < offsets.size(); ++m) {
        for (std::size_t e = 0; e < block; ++e) apply(offsets[m] + e, m * block + e);
      }
    } else {  // Scatter, ScatterUpdate
      const Dims idx = index_values(in[1], x.shape[a.dim]);
      for (std::size_t f = 0; f < idx.size(); ++f) apply(offset_with(x.shape, in[1].shape, f, a.dim, idx[f]), f);
    }
  }
  if (is_bool) {
    HostArray b = make(shape, DType::Bool);
    for (std::size_t i = 0; i < out.size(); ++i) b.values[i] = out[i] != 0 ? 1 : 0;
    return b;
  }
  return int_array(shape, d, std::move(out));
}

// bool_argwhere: the coordinates of every true element in row-major order, one row each: I64
// [n, rank].
HostArray argwhere(const HostArray& x) {
  if (x.dtype != DType::Bool) invalid("op-kind-mismatch");
  std::vector<std::int64_t> out;
  std::size_t n = 0;
  for (std::size_t f = 0; f < x.values.size(); ++f) {
    if (x.values[f] == 0) continue;
    for (std::size_t c : coords(f, x.shape)) out.push_back(static_cast<std::int64_t>(c));
    ++n;
  }
  return int_array({n, x.shape.size()}, DType::I64, std::move(out));
}

// One formula per registry op. No default: a new op fails to compile here (-Werror=switch-enum).
HostArray evaluate(OpId op, const std::vector<HostArray>& in, const OpArgs& a) {
  switch (op) {
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
      return moved(op, in, a);
    case OpId::float_add: return binary(in[0], in[1], false, [](auto x, auto y) { return x + y; });
    case OpId::float_sub: return binary(in[0], in[1], false, [](auto x, auto y) { return x - y; });
    case OpId::float_mul: return binary(in[0], in[1], false, [](auto x, auto y) { return x * y; });
    case OpId::float_div: return binary(in[0], in[1], false, [](auto x, auto y) { return x / y; });
    case OpId::float_matmul: return matmul(in[0], in[1]);
    case OpId::float_neg: return unary(in[0], [](auto x) { return -x; });
    case OpId::float_exp: return unary(in[0], [](auto x) { return std::exp(x); });
    case OpId::float_log: return unary(in[0], [](auto x) { return std::log(x); });
    case OpId::float_sqrt: return unary(in[0], [](auto x) { return std::sqrt(x); });
    case OpId::float_tanh: return unary(in[0], [](auto x) { return std::tanh(x); });
    case OpId::float_log1p: return unary(in[0], [](auto x) { return std::log1p(x); });
    case OpId::float_cos: return unary(in[0], [](auto x) { return std::cos(x); });
    case OpId::float_sin: return unary(in[0], [](auto x) { return std::sin(x); });
    case OpId::float_tan: return unary(in[0], [](auto x) { return std::tan(x); });
    case OpId::float_cosh: return unary(in[0], [](auto x) { return std::cosh(x); });
    case OpId::float_sinh: return unary(in[0], [](auto x) { return std::sinh(x); });
    case OpId::float_acos: return unary(in[0], [](auto x) { return std::acos(x); });
    case OpId::float_acosh: return unary(in[0], [](auto x) { return std::acosh(x); });
    case OpId::float_asin: return unary(in[0], [](auto x) { return std::asin(x); });
    case OpId::float_asinh: return unary(in[0], [](auto x) { return std::asinh(x); });
    case OpId::float_atan: return unary(in[0], [](auto x) { return std::atan(x); });
    case OpId::float_atanh: return unary(in[0], [](auto x) { return std::atanh(x); });
    case OpId::float_erf: return unary(in[0], [](auto x) { return std::erf(x); });
    case OpId::float_recip: return unary(in[0], [](auto x) { return decltype(x)(1) / x; });
    // Half to even, written without rint (the kernels' call): std::round rounds ties away
    // from 0, so a tie (x - trunc(x) = +-0.5, exact) is 2 round(x / 2) instead. Keeps -0 and the
    // sign of a zero result (round(-0.5) = -0), inf and NaN.
    case OpId::float_round:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        return std::fabs(x - std::trunc(x)) == T(0.5) ? T(2) * std::round(x / T(2)) : std::round(x);
      });
    case OpId::float_floor: return unary(in[0], [](auto x) { return std::floor(x); });
    case OpId::float_ceil: return unary(in[0], [](auto x) { return std::ceil(x); });
    case OpId::float_trunc: return unary(in[0], [](auto x) { return std::trunc(x); });
    // +1 above 0, -1 below; +0 for +-0 and NaN (Burn's and PyTorch's sign).
    case OpId::float_sign:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        return std::isnan(x) || x == T(0) ? T(0) : std::copysign(T(1), x);
      });
    // max(x, 0): +0 for every x <= 0 (also -0), NaN stays NaN.
    case OpId::relu:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        if (std::isnan(x)) return x;
        return x > T(0) ? x : T(0);
      });
    // docs/OPS.md "sigmoid at the ends of its range": the split form.
    case OpId::sigmoid:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
        const T e = std::exp(x);
        return e / (T(1) + e);
      });
    // log(1 / (1 + exp(-x))) = -log1p(exp(-x)) for x >= 0 and x - log1p(exp(x)) below: exp of a
    // non-positive argument only. NaN stays NaN.
    case OpId::log_sigmoid:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        if (std::isnan(x)) return x;
        if (x >= T(0)) return -std::log1p(std::exp(-x));
        return x - std::log1p(std::exp(x));
      });
    // x/2 (1 + erf(x / sqrt 2)) = x/2 erfc(-x / sqrt 2), in long double (64 bits: the rounding of
    // x / sqrt 2 moves erfc's tail by 2 z^2 of it, far below an F64 ulp); gelu(-inf) = -inf * 0 = NaN.
    case OpId::gelu:
      return unary(in[0], [](auto x) {
        using T = decltype(x);
        const long double v = x;
        return static_cast<T>(v / 2 * std::erfc(-v / std::sqrt(2.0L)));
      });
    // x above 0, x * s otherwise (s in the dtype): -0 * s, NaN * s = NaN.
    case OpId::leaky_relu:
      return unary(in[0], [s = a.scalar](auto x) {
        using T = decltype(x);
        return x > T(0) ? x : x * static_cast<T>(s);
      });
    case OpId::float_powf_scalar:
      return unary(in[0], [p = a.scalar](auto x) { return std::pow(x, static_cast<decltype(x)>(p)); });
    case OpId::float_add_scalar:
      return unary(in[0], [s = a.scalar](auto x) { return x + static_cast<decltype(x)>(s); });
    case OpId::float_mul_scalar:
      return unary(in[0], [s = a.scalar](auto x) { return x * static_cast<decltype(x)>(s); });
    case OpId::float_sum: return sum_all(in[0], false);
    case OpId::float_mean: return sum_all(in[0], true);
    case OpId::float_sum_dim: return reduce_dim(in[0], a.dim, false);
    case OpId::float_mean_dim: return reduce_dim(in[0], a.dim, true);
    case OpId::float_reshape: {
      require_float(in[0].dtype);
      if (count(a.shape) != count(in[0].shape)) invalid("reshape-mismatch");
      HostArray out = in[0];
      out.shape = a.shape;
      return out;
    }
    case OpId::float_swap_dims: {
      require_float(in[0].dtype);
      require_dim(a.dim, in[0].shape.size());
      require_dim(a.dim1, in[0].shape.size());
      Dims axes(in[0].shape.size());
      for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = i;
      std::swap(axes[a.dim], axes[a.dim1]);
      return permuted(in[0], axes);
    }
    case OpId::float_cast:
      require_float(in[0].dtype);
      return converted(in[0], a.dtype);
    // The scalar comparisons: the scalar rounded to the dtype, then IEEE comparisons (NaN: false,
    // except for !=; -0 == +0).
    case OpId::float_greater_scalar: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return x > s; });
    case OpId::float_greater_equal_elem: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return x >= s; });
    case OpId::float_lower_elem: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return x < s; });
    case OpId::float_lower_equal_elem: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return x <= s; });
    case OpId::float_equal_elem: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return x == s; });
    case OpId::float_not_equal_elem: return compare_scalar(in[0], a.scalar, [](auto x, auto s) { return !(x == s); });
    // Classification: the value is NaN / is +inf or -inf.
    case OpId::float_is_nan: return compare_scalar(in[0], 0.0, [](auto x, auto) { return std::isnan(x); });
    case OpId::float_is_inf: return compare_scalar(in[0], 0.0, [](auto x, auto) { return std::isinf(x); });
    case OpId::bool_into_float:
      if (in[0].dtype != DType::Bool) invalid("unsupported-dtype");
      return converted(in[0], a.dtype);
    case OpId::int_into_float:
      if (!is_int_dtype(in[0].dtype)) invalid("unsupported-dtype");
      return converted(in[0], a.dtype);
    case OpId::float_into_int: return into_int(in[0], a.dtype);
    case OpId::int_add: return int_binary(in[0], in[1], false, [](Wide x, Wide y) { return x + y; });
    case OpId::int_sub: return int_binary(in[0], in[1], false, [](Wide x, Wide y) { return x - y; });
    case OpId::int_mul: return int_binary(in[0], in[1], false, [](Wide x, Wide y) { return x * y; });
    case OpId::int_div: return int_binary(in[0], in[1], true, trunc_quotient);
    case OpId::int_remainder: return int_binary(in[0], in[1], true, floor_remainder);
    case OpId::int_neg: return int_unary(in[0], [](Wide x) { return -x; });
    case OpId::int_abs: return int_unary(in[0], [](Wide x) { return x < 0 ? -x : x; });
    case OpId::int_sign: return int_unary(in[0], [](Wide x) { return Wide(x > 0) - Wide(x < 0); });
    case OpId::int_add_scalar: return int_scalar_op(in[0], a.scalar, false, [](Wide x, Wide s) { return x + s; });
    case OpId::int_sub_scalar: return int_scalar_op(in[0], a.scalar, false, [](Wide x, Wide s) { return x - s; });
    case OpId::int_mul_scalar: return int_scalar_op(in[0], a.scalar, false, [](Wide x, Wide s) { return x * s; });
    case OpId::int_div_scalar: return int_scalar_op(in[0], a.scalar, true, trunc_quotient);
    case OpId::int_remainder_scalar: return int_scalar_op(in[0], a.scalar, true, floor_remainder);
    case OpId::int_sum:
    case OpId::int_prod:
    case OpId::int_mean:
    case OpId::int_max:
    case OpId::int_min:
    case OpId::int_any:
    case OpId::int_all:
    case OpId::bool_any:
    case OpId::bool_all:
    case OpId::int_max_abs: return int_reduction(op, in[0], std::nullopt);
    case OpId::int_sum_dim:
    case OpId::int_prod_dim:
    case OpId::int_mean_dim:
    case OpId::int_max_dim:
    case OpId::int_min_dim:
    case OpId::int_argmax:
    case OpId::int_argmin:
    case OpId::int_any_dim:
    case OpId::int_all_dim:
    case OpId::bool_any_dim:
    case OpId::bool_all_dim:
    case OpId::int_max_abs_dim: return int_reduction(op, in[0], a.dim);
    case OpId::int_clamp: {
      require_int(in[0].dtype);
      if (!(a.min <= a.max)) invalid("clamp-bounds");  // as given, before any conversion
      const Wide lo = int_bound_in(a.min, in[0].dtype), hi = int_bound_in(a.max, in[0].dtype);
      return int_unary(in[0], [lo, hi](Wide x) { return x < lo ? lo : (x > hi ? hi : x); });
    }
    case OpId::int_clamp_min: {
      require_int(in[0].dtype);
      const Wide lo = int_bound_in(a.scalar, in[0].dtype);
      return int_unary(in[0], [lo](Wide x) { return x < lo ? lo : x; });
    }
    case OpId::int_clamp_max: {
      require_int(in[0].dtype);
      const Wide hi = int_bound_in(a.scalar, in[0].dtype);
      return int_unary(in[0], [hi](Wide x) { return x > hi ? hi : x; });
    }
    case OpId::int_square: return int_unary(in[0], [](Wide x) { return x * x; });
    case OpId::int_cumsum:
    case OpId::int_cumprod:
    case OpId::int_cummin:
    case OpId::int_cummax: return int_scan(op, in[0], a.dim);
    case OpId::int_argsort: return int_sorted_along(in[0], a.dim, a.descending, std::nullopt, true);
    case OpId::int_sort: return int_sorted_along(in[0], a.dim, a.descending, std::nullopt, false);
    case OpId::int_argtopk: return int_sorted_along(in[0], a.dim, true, a.k, true);
    case OpId::int_topk: return int_sorted_along(in[0], a.dim, true, a.k, false);
    case OpId::int_matmul: return int_matmul(in[0], in[1]);
    case OpId::int_powi:
      return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide e) { return int_power(x, e, d); });
    case OpId::int_powi_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide e) { return int_power(x, e, d); });
    case OpId::int_select_assign:
    case OpId::int_select_add:
    case OpId::int_scatter_add:
    case OpId::int_scatter:
    case OpId::int_scatter_nd:
    case OpId::int_mask_fill:
    case OpId::bool_select_or:
    case OpId::bool_scatter_or:
    case OpId::bool_mask_fill: return updated_in_kind(op, in, a);
    case OpId::bool_argwhere: return argwhere(in[0]);
    case OpId::bool_not: {
      if (in[0].dtype != DType::Bool) invalid("op-kind-mismatch");
      HostArray out = make(in[0].shape, DType::Bool);
      for (std::size_t i = 0; i < out.values.size(); ++i) out.values[i] = truth_of(in[0].values[i]) ? 0 : 1;
      return out;
    }
    case OpId::bool_and: return bool_binary(in[0], in[1], [](bool x, bool y) { return x && y; });
    case OpId::bool_or: return bool_binary(in[0], in[1], [](bool x, bool y) { return x || y; });
    case OpId::bool_xor: return bool_binary(in[0], in[1], [](bool x, bool y) { return x != y; });
    case OpId::bool_equal: return bool_binary(in[0], in[1], [](bool x, bool y) { return x == y; });
    case OpId::bool_not_equal: return bool_binary(in[0], in[1], [](bool x, bool y) { return x != y; });
    case OpId::int_equal: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x == y; });
    case OpId::int_not_equal: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x != y; });
    case OpId::int_greater: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x > y; });
    case OpId::int_greater_equal: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x >= y; });
    case OpId::int_lower: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x < y; });
    case OpId::int_lower_equal: return int_compare(in[0], in[1], [](std::int64_t x, std::int64_t y) { return x <= y; });
    case OpId::int_equal_elem: return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x == y; });
    case OpId::int_not_equal_elem: return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x != y; });
    case OpId::int_greater_elem: return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x > y; });
    case OpId::int_greater_equal_elem:
      return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x >= y; });
    case OpId::int_lower_elem: return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x < y; });
    case OpId::int_lower_equal_elem: return int_compare_scalar(in[0], a.scalar, [](std::int64_t x, std::int64_t y) { return x <= y; });
    case OpId::bitwise_and:
      return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide y) { return bitwise(x, y, d, [](auto p, auto q) { return p & q; }); });
    case OpId::bitwise_or:
      return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide y) { return bitwise(x, y, d, [](auto p, auto q) { return p | q; }); });
    case OpId::bitwise_xor:
      return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide y) { return bitwise(x, y, d, [](auto p, auto q) { return p ^ q; }); });
    case OpId::bitwise_not: return int_unary(in[0], [](Wide x) { return -x - 1; });  // ~x = -x - 1 in two's complement
    case OpId::bitwise_left_shift: return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide n) { return left_shifted(x, n, d); });
    case OpId::bitwise_right_shift: return int_binary(in[0], in[1], false, [d = in[0].dtype](Wide x, Wide n) { return right_shifted(x, n, d); });
    case OpId::bitwise_and_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide s) { return bitwise(x, s, d, [](auto p, auto q) { return p & q; }); });
    case OpId::bitwise_or_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide s) { return bitwise(x, s, d, [](auto p, auto q) { return p | q; }); });
    case OpId::bitwise_xor_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide s) { return bitwise(x, s, d, [](auto p, auto q) { return p ^ q; }); });
    case OpId::bitwise_left_shift_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide n) { return left_shifted(x, n, d); });
    case OpId::bitwise_right_shift_scalar:
      return int_scalar_op(in[0], a.scalar, false, [d = in[0].dtype](Wide x, Wide n) { return right_shifted(x, n, d); });
    // int_cast: the value modulo 2^width of the target; bool_into_int: 0 or 1.
    case OpId::int_cast: {
      require_int(in[0].dtype);
      if (!is_int_dtype(a.dtype)) invalid("unsupported-dtype");
      std::vector<std::int64_t> v = int_values(in[0]);
      for (std::int64_t& x : v) x = wrap(Wide(x), a.dtype);
      return int_array(in[0].shape, a.dtype, std::move(v));
    }
    case OpId::bool_into_int: {
      if (in[0].dtype != DType::Bool) invalid("op-kind-mismatch");
      if (!is_int_dtype(a.dtype)) invalid("unsupported-dtype");
      std::vector<std::int64_t> v;
      for (double x : in[0].values) v.push_back(truth_of(x) ? 1 : 0);
      return int_array(in[0].shape, a.dtype, std::move(v));
    }
    case OpId::float_abs: return unary(in[0], [](auto x) { return std::fabs(x); });
    case OpId::float_clamp: {
      require_float(in[0].dtype);
      if (!(a.min <= a.max)) invalid("clamp-bounds");
      return unary(in[0], [lo = a.min, hi = a.max](auto x) {
        using T = decltype(x);
        return x < static_cast<T>(lo) ? static_cast<T>(lo) : (x > static_cast<T>(hi) ? static_cast<T>(hi) : x);
      });
    }
    case OpId::float_max_dim: return max_along(in[0], a.dim, false);
    case OpId::float_argmax: return max_along(in[0], a.dim, true);
    case OpId::float_min_dim: return max_along(in[0], a.dim, false, /*min=*/true);
    case OpId::float_argmin: return max_along(in[0], a.dim, true, /*min=*/true);
    case OpId::float_greater: return binary(in[0], in[1], true, [](auto x, auto y) { return x > y; });
    case OpId::float_lower: return binary(in[0], in[1], true, [](auto x, auto y) { return x < y; });
    case OpId::float_equal: return binary(in[0], in[1], true, [](auto x, auto y) { return x == y; });
    case OpId::float_greater_equal: return binary(in[0], in[1], true, [](auto x, auto y) { return x >= y; });
    case OpId::float_lower_equal: return binary(in[0], in[1], true, [](auto x, auto y) { return x <= y; });
    case OpId::float_not_equal: return binary(in[0], in[1], true, [](auto x, auto y) { return !(x == y); });
    case OpId::float_cat: return cat(in, a.dim);
    case OpId::float_slice: return slice(in[0], a.ranges);
    case OpId::float_slice_assign: return slice_assign(in[0], a.ranges, in[1]);
    case OpId::float_select: return select(in[0], a.dim, in[1]);
    case OpId::float_select_assign:
    case OpId::float_select_add: return select_assign(in[0], a.dim, in[1], in[2]);
    case OpId::float_gather: return gather(in[0], a.dim, in[1]);
    case OpId::float_mask_where: return masked(in[0], in[1], &in[2], 0);
    case OpId::hard_sigmoid: return hard_sigmoid(in[0], a.alpha, a.beta);
    case OpId::float_cross: return cross(in[0], in[1], a.dim);
    case OpId::float_argsort: return sorted_along(in[0], a.dim, a.descending, std::nullopt, true);
    case OpId::float_sort: return sorted_along(in[0], a.dim, a.descending, std::nullopt, false);
    case OpId::float_argtopk: return sorted_along(in[0], a.dim, true, a.k, true);
    case OpId::float_topk: return sorted_along(in[0], a.dim, true, a.k, false);
    case OpId::float_repeat_dim: return repeat_dim(in[0], a.dim, a.times);
    case OpId::float_unfold: return unfold(in[0], a.dim, a.size, a.step);
    case OpId::float_mask_fill: return masked(in[0], in[1], nullptr, a.scalar);
    case OpId::float_scatter_add: return scatter(in[0], a.dim, in[1], in[2], IndexingUpdateOp::Add);
    case OpId::float_scatter: return untracked_update(scatter(in[0], a.dim, in[1], in[2], a.update), a);
    case OpId::float_gather_nd: return gather_nd(in[0], in[1]);
    case OpId::float_scatter_nd: return untracked_update(scatter_nd(in[0], in[1], in[2], a.update), a);
    case OpId::float_mask_select: return mask_select(in[0], in[1]);
    case OpId::avg_pool2d: return avg_pool2d(in[0], a.avg_pool2d);
    case OpId::avg_pool2d_backward: return avg_pool2d_backward(in[0], in[1], a.avg_pool2d);
    case OpId::adaptive_avg_pool2d: return adaptive_avg_pool2d(in[0], a.output_size);
    case OpId::adaptive_avg_pool2d_backward: return adaptive_avg_pool2d_backward(in[0], in[1]);
    case OpId::max_pool2d: return max_pool2d(in[0], a.max_pool2d, false);
    case OpId::max_pool2d_indices: return max_pool2d(in[0], a.max_pool2d, true);
    case OpId::max_pool2d_with_indices_backward: return max_pool2d_backward(in[0], in[1], in[2], a.max_pool2d);
    case OpId::avg_pool1d:
    case OpId::avg_pool1d_backward:
    case OpId::adaptive_avg_pool1d:
    case OpId::adaptive_avg_pool1d_backward:
    case OpId::max_pool1d:
    case OpId::max_pool1d_indices:
    case OpId::max_pool1d_with_indices_backward: return pool1d(*pool_as_row(op, in, a), in);
    case OpId::unfold4d: return unfold4d(in[0], a.unfold_kernel, a.unfold);
    case OpId::fold4d: return fold4d(in[0], a.output_size, a.unfold_kernel, a.unfold);
    case OpId::interpolate: return interpolate(in[0], a.output_size, a.interpolate);
    case OpId::interpolate_backward: return interpolate_backward(in[0], in[1], a.output_size, a.interpolate);
    case OpId::adaptive_avg_pool3d: return adaptive_avg_pool3d(in[0], a.output_size_3d);
    case OpId::adaptive_avg_pool3d_backward: return adaptive_avg_pool3d_backward(in[0], in[1]);
    case OpId::embedding: return embedding(in[0], in[1]);
    case OpId::embedding_backward: return embedding_backward(in[0], in[1], in[2]);
    case OpId::linear: return linear(in[0], in[1], in.size() > 2 ? &in[2] : nullptr);
    case OpId::layer_norm: return layer_norm(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.scalar);
    case OpId::batch_norm: return batch_norm(in, a.scalar);
    case OpId::attention: {
      const std::size_t at_mask = 3, at_bias = a.attention_mask ? 4 : 3;
      return attention(in[0], in[1], in[2], a.attention_mask ? &in[at_mask] : nullptr, a.attention_bias ? &in[at_bias] : nullptr,
                       a.attention);
    }
    case OpId::linear_x_backward: return linear_x_backward(in[0], in[1]);
    case OpId::linear_weight_backward: return linear_weight_backward(in[0], in[1]);
    case OpId::linear_bias_backward: return linear_bias_backward(in[0]);
    case OpId::conv2d: return conv2d(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv2d);
    case OpId::conv2d_x_backward: return conv2d_backward(in[0], in[1], in[2], a.conv2d, true);
    case OpId::conv2d_weight_backward: return conv2d_backward(in[0], in[1], in[2], a.conv2d, false);
    case OpId::conv2d_bias_backward: return conv2d_bias_backward(in[0], in[1], in[2]);
    case OpId::conv_transpose2d: return conv_transpose2d(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv_transpose2d);
    case OpId::conv1d: return conv1d(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv1d);
    case OpId::conv1d_x_backward: return conv1d_backward(in[0], in[1], in[2], a.conv1d, true);
    case OpId::conv1d_weight_backward: return conv1d_backward(in[0], in[1], in[2], a.conv1d, false);
    case OpId::conv1d_bias_backward: return conv1d_bias_backward(in[0], in[1], in[2]);
    case OpId::conv_transpose1d: return conv_transpose1d(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv_transpose1d);
    case OpId::conv_transpose1d_x_backward: return conv_transpose1d_backward(in[0], in[1], in[2], a.conv_transpose1d, true);
    case OpId::conv_transpose1d_weight_backward: return conv_transpose1d_backward(in[0], in[1], in[2], a.conv_transpose1d, false);
    case OpId::conv_transpose1d_bias_backward: return conv1d_bias_backward(in[0], in[1], in[2]);
    case OpId::conv_transpose2d_x_backward: return conv_transpose2d_backward(in[0], in[1], in[2], a.conv_transpose2d, true);
    case OpId::conv_transpose2d_weight_backward: return conv_transpose2d_backward(in[0], in[1], in[2], a.conv_transpose2d, false);
    case OpId::conv_transpose2d_bias_backward: return conv2d_bias_backward(in[0], in[1], in[2]);
    case OpId::rfft: return rfft(in[0], a.dim, a.fft_size);
    case OpId::irfft: return irfft(in[0], in[1], a.dim, a.fft_size);
    case OpId::conv3d: return conv_nd(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv3d);
    case OpId::conv3d_x_backward: return conv_nd_backward(in[0], in[1], in[2], a.conv3d, true);
    case OpId::conv3d_weight_backward: return conv_nd_backward(in[0], in[1], in[2], a.conv3d, false);
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d_bias_backward: return conv_bias_backward(in[0], in[1], in[2], 3);
    case OpId::conv_transpose3d: return conv_transpose_nd(in[0], in[1], in.size() > 2 ? &in[2] : nullptr, a.conv_transpose3d);
    case OpId::conv_transpose3d_x_backward: return conv_transpose_nd_backward(in[0], in[1], in[2], a.conv_transpose3d, true);
    case OpId::conv_transpose3d_weight_backward:
      return conv_transpose_nd_backward(in[0], in[1], in[2], a.conv_transpose3d, false);
    case OpId::float_cummin: return cumulative_extreme(in[0], a.dim, false);
    case OpId::float_cummax: return cumulative_extreme(in[0], a.dim, true);
    case OpId::float_permute: return permute(in[0], a.axes);
    case OpId::float_expand: return expand(in[0], a.shape);
    case OpId::softmax: return softmax_along(in[0], a.dim, false);
    case OpId::log_softmax: return softmax_along(in[0], a.dim, true);
    // The scalar ops of issue 36 (docs/OPS.md): the scalar rounded to the dtype, then one IEEE
    // operation; clamp_min / clamp_max as float_clamp with one bound, a NaN bound giving NaN.
    case OpId::float_sub_scalar:
      return unary(in[0], [s = a.scalar](auto x) { return x - static_cast<decltype(x)>(s); });
    case OpId::float_div_scalar:
      return unary(in[0], [s = a.scalar](auto x) { return x / static_cast<decltype(x)>(s); });
    case OpId::float_clamp_min:
      return unary(in[0], [s = a.scalar](auto x) {
        using T = decltype(x);
        const T lo = static_cast<T>(s);
        if (std::isnan(lo)) return lo;
        return x < lo ? lo : x;
      });
    case OpId::float_clamp_max:
      return unary(in[0], [s = a.scalar](auto x) {
        using T = decltype(x);
        const T hi = static_cast<T>(s);
        if (std::isnan(hi)) return hi;
        return x > hi ? hi : x;
      });
    case OpId::float_remainder_scalar:
      return unary(in[0], [s = a.scalar](auto x) { return remainder_value(x, static_cast<decltype(x)>(s)); });
    case OpId::float_remainder:
      return binary(in[0], in[1], false, [](auto x, auto y) { return remainder_value(x, y); });
    case OpId::float_powf: return binary(in[0], in[1], false, [](auto x, auto y) { return std::pow(x, y); });
    case OpId::float_atan2: return binary(in[0], in[1], false, [](auto x, auto y) { return std::atan2(x, y); });
    case OpId::float_cumsum: return scan_along(in[0], a.dim, [](auto acc, auto x) { return acc + x; });
    case OpId::float_cumprod: return scan_along(in[0], a.dim, [](auto acc, auto x) { return acc * x; });
    case OpId::float_flip: return flip(in[0], a.axes);
    // The last two dims swapped; rank 0 and 1 unchanged.
    case OpId::float_transpose: {
      require_float(in[0].dtype);
      const std::size_t rank = in[0].shape.size();
      Dims axes(rank);
      for (std::size_t i = 0; i < rank; ++i) axes[i] = i;
      if (rank >= 2) std::swap(axes[rank - 2], axes[rank - 1]);
      return permuted(in[0], axes);
    }
    // softmin(x) = softmax(-x): the negation is exact, so the same formula on -x.
    case OpId::softmin: {
      HostArray negated = in[0];
      for (double& v : negated.values) v = -v;
      return softmax_along(negated, a.dim, false);
    }
    case OpId::float_hypot: return binary(in[0], in[1], false, [](auto x, auto y) { return std::hypot(x, y); });
    case OpId::prelu:
      return binary(in[0], in[1], false, [](auto x, auto s) { return x > decltype(x)(0) ? x : x * s; });
    case OpId::float_prod: return product(in[0], std::nullopt);
    case OpId::float_prod_dim: return product(in[0], a.dim);
    case OpId::float_max: return extreme_all(in[0], false, false);
    case OpId::float_min: return extreme_all(in[0], true, false);
    case OpId::float_max_abs: return extreme_all(in[0], false, true);
    case OpId::float_max_abs_dim: return max_abs_along(in[0], a.dim);
    case OpId::float_any: return truth(in[0], std::nullopt, false);
    case OpId::float_any_dim: return truth(in[0], a.dim, false);
    case OpId::float_all: return truth(in[0], std::nullopt, true);
    case OpId::float_all_dim: return truth(in[0], a.dim, true);
  }
  throw std::logic_error("reference_op: not a registry op");
}

}  // namespace

std::vector<std::int64_t> int_values(const HostArray& h) {
  if (h.exact.size() == h.values.size()) return h.exact;
  std::vector<std::int64_t> out;
  out.reserve(h.values.size());
  // Doubles at or beyond 2^63 have no int64; an int array never holds them (int_array rounds
  // int64 values, whose largest rounds to 2^63 only with `exact` kept).
  for (double v : h.values) out.push_back(v >= 9223372036854775807.0 ? INT64_MAX : static_cast<std::int64_t>(v));
  return out;
}

HostArray int_array(std::vector<std::size_t> shape, DType dtype, std::vector<std::int64_t> elements) {
  HostArray out;
  out.shape = std::move(shape);
  out.dtype = dtype;
  bool exact_in_double = true;
  for (std::int64_t v : elements) {
    const double d = static_cast<double>(v);
    out.values.push_back(d);
    // 2^63 (what INT64_MAX rounds to) has no int64 to compare with: not exact.
    exact_in_double = exact_in_double && d < 9223372036854775808.0 && static_cast<std::int64_t>(d) == v;
  }
  if (!exact_in_double) out.exact = std::move(elements);
  return out;
}

ReferenceResult reference_op(OpId op, const std::vector<HostArray>& operands, const OpArgs& args) {
  ReferenceResult r;
  if (is_hop(op)) {
    // A graph's hop (graph.hpp): a move between backends, the identity on values.
    r.kind = OpKind::Float;
    if (operands.empty()) throw std::logic_error("reference_op: a hop takes one operand");
    r.value = operands[0];
    return r;
  }
  if (!is_op_code(op)) throw std::logic_error("reference_op: not a registry op");
  r.kind = op_info(op).result;
  try {
    // A backward pass refuses an autodiff device before any argument check (Burn's Autodiff<B>).
    if (args.tracked && op_info(op).rule == OpRule::NotDifferentiable) invalid("not-differentiable");
    r.value = evaluate(op, operands, args);
  } catch (const Invalid& e) {
    r.panic_id = e.id;
  }
  return r;
}

std::optional<std::vector<std::size_t>> avg_pool2d_shape(const std::vector<std::size_t>& x, const AvgPool2dOptions& options) {
  HostArray shape_only;  // check_avg_pool2d reads the shape and dtype only
  shape_only.shape = x;
  try {
    const PoolGrid g = check_avg_pool2d(shape_only, options);
    return std::vector<std::size_t>{x[0], x[1], g.out_h, g.out_w};
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> max_pool2d_shape(const std::vector<std::size_t>& x, const MaxPool2dOptions& options) {
  HostArray shape_only;
  shape_only.shape = x;
  try {
    const PoolGrid g = check_max_pool2d(shape_only, options);
    return std::vector<std::size_t>{x[0], x[1], g.out_h, g.out_w};
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> conv2d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv2dOptions& options) {
  try {
    return conv_geometry(x, weight, nullptr, options).out_shape;
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> conv1d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv1dOptions& options) {
  if (x.size() != 3 || weight.size() != 3) return std::nullopt;
  const auto shape = conv2d_shape(row_view(x), row_view(weight), row_options(options));
  if (!shape) return std::nullopt;
  return std::vector<std::size_t>{(*shape)[0], (*shape)[1], (*shape)[3]};
}

std::optional<std::vector<std::size_t>> unfold4d_shape(const std::vector<std::size_t>& x, const Size2& kernel,
                                                       const UnfoldOptions& options) {
  try {
    const UnfoldGrid g = unfold_grid(x, kernel, options);
    return std::vector<std::size_t>{g.n, g.c * kernel[0] * kernel[1], g.oh * g.ow};
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> fold4d_shape(const std::vector<std::size_t>& x, const Size2& output_size,
                                                     const Size2& kernel, const UnfoldOptions& options) {
  try {
    const UnfoldGrid g = fold_grid(x, output_size, kernel, options);
    return std::vector<std::size_t>{g.n, g.c, g.h, g.w};
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> avg_pool1d_shape(const std::vector<std::size_t>& x, const AvgPool1dOptions& options) {
  if (x.size() != 3) return std::nullopt;
  const auto shape = avg_pool2d_shape(row_view(x), row_options(options));
  if (!shape) return std::nullopt;
  return std::vector<std::size_t>{(*shape)[0], (*shape)[1], (*shape)[3]};
}

std::optional<std::vector<std::size_t>> max_pool1d_shape(const std::vector<std::size_t>& x, const MaxPool1dOptions& options) {
  if (x.size() != 3) return std::nullopt;
  const auto shape = max_pool2d_shape(row_view(x), row_options(options));
  if (!shape) return std::nullopt;
  return std::vector<std::size_t>{(*shape)[0], (*shape)[1], (*shape)[3]};
}

std::optional<std::vector<std::size_t>> conv_transpose1d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose1dOptions& options) {
  if (x.size() != 3 || weight.size() != 3) return std::nullopt;
  const auto shape = conv_transpose2d_shape(row_view(x), row_view(weight), row_options(options));
  if (!shape) return std::nullopt;
  return std::vector<std::size_t>{(*shape)[0], (*shape)[1], (*shape)[3]};
}

std::optional<std::vector<std::size_t>> conv_transpose2d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose2dOptions& options) {
  try {
    return transposed_geometry(x, weight, nullptr, options).out_shape;
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> conv3d_shape(const std::vector<std::size_t>& x, const std::vector<std::size_t>& weight,
                                                     const Conv3dOptions& options) {
  try {
    return conv_geometry(x, weight, nullptr, options).out_shape;
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::size_t>> conv_transpose3d_shape(const std::vector<std::size_t>& x,
                                                               const std::vector<std::size_t>& weight,
                                                               const ConvTranspose3dOptions& options) {
  try {
    return transposed_geometry(x, weight, nullptr, options).out_shape;
  } catch (const Invalid&) {
    return std::nullopt;
  }
}

bool differentiable(OpId op, const OpArgs& args) {
  if (!is_op_code(op) || op_info(op).rule != OpRule::Backward) return false;
  const OpSig sig = op_info(op).sig;
  if (sig != OpSig::ScatterUpdate && sig != OpSig::ScatterNd) return true;
  return args.update == IndexingUpdateOp::Assign || args.update == IndexingUpdateOp::Add;
}

namespace {

double largest_of(const HostArray& h) {
  double m = 0;
  for (double v : h.values) {
    if (std::isfinite(v)) m = std::fmax(m, std::fabs(v));
  }
  return m;
}

// layer_norm's rounding sensitivity (reference_magnitude). A row's computed variance carries an
// error of a few eps max|x|^2, so its normalised values one of about eps (r + r^3) (times the
// weight in the result, times 1 in the weight's gradient) with r =
// max|x| / sqrt(var + epsilon); rows holding a non-finite value are non-finite and compared as
// classes. Infinite when a square can overflow the dtype (the composition's variance is then inf
// and its row 0) or var + epsilon is 0 (0 / 0 on one side, rounding noise on the other).
double layer_norm_sensitivity(const std::vector<HostArray>& operands, double epsilon) {
  const HostArray& x = operands[0];
  const double largest = x.dtype == DType::F32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const std::size_t d = x.shape.empty() ? 0 : x.shape.back();
  if (d == 0) return 0;
  const long double eps = x.dtype == DType::F32 ? static_cast<float>(epsilon) : epsilon;
  long double r = 0;
  for (std::size_t row = 0; row < x.values.size() / d; ++row) {
    long double mean = 0, var = 0, top = 0;
    bool finite = true;
    for (std::size_t i = 0; i < d; ++i) {
      const double v = x.values[row * d + i];
      finite = finite && std::isfinite(v);
      mean += v;
      top = std::max(top, static_cast<long double>(std::fabs(v)));
    }
    if (!finite) continue;
    if (top * top * static_cast<long double>(d) * 4 >= largest) return INFINITY;
    mean /= static_cast<long double>(d);
    for (std::size_t i = 0; i < d; ++i) var += (x.values[row * d + i] - mean) * (x.values[row * d + i] - mean);
    var /= static_cast<long double>(d);
    const long double denom = std::sqrt(var + eps);
    if (!(denom > 0)) return INFINITY;
    r = std::max(r, top / denom);
  }
  const double w = largest_of(operands[1]), b = operands.size() > 2 ? largest_of(operands[2]) : 0.0;
  const double eps_t = x.dtype == DType::F32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  // Rounding noise of the order of the values themselves, or outputs near the dtype's end: only
  // the classes mean anything.
  if (!(static_cast<double>(r + r * r * r) * 64 * (static_cast<double>(d) + 4) * eps_t < 1)) return INFINITY;
  if (!(w * std::sqrt(static_cast<double>(d)) + b < largest / 4)) return INFINITY;
  // ATen's backward forms sums of gradient * weight * x (F32 overflows for |w x| past 1e38, where
  // the composition's does not): a product of the weight and x near the dtype's end judges classes.
  if (!(w * largest_of(x) * static_cast<double>(d + 4) < largest / 4)) return INFINITY;
  // (1 + w): the weight's own gradient is the normalised value, whose error does not scale with w.
  return static_cast<double>((1 + w) * (r + r * r * r) + b + 1);
}

// batch_norm's rounding sensitivity (reference_magnitude): a cell's error is about eps times
// |x - mean| / sqrt(variance + epsilon) (each rounded once) times the weight, plus the bias's.
// Infinite where a channel's variance + epsilon is not positive (sqrt of a negative: NaN on one
// side, maybe not the other after rounding) or a product may overflow the dtype.
double batch_norm_sensitivity(const std::vector<HostArray>& in, double epsilon) {
  const HostArray& x = in[0];
  if (x.shape.size() < 2 || in.size() < 5) return largest_of(x);
  const double largest = x.dtype == DType::F32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double eps = x.dtype == DType::F32 ? static_cast<float>(epsilon) : epsilon;
  double smallest = INFINITY;
  for (double v : in[4].values) {
    if (std::isfinite(v)) smallest = std::min(smallest, v + eps);
  }
  if (!(smallest > 0)) return in[4].values.empty() ? 0.0 : INFINITY;
  const double r = (largest_of(x) + largest_of(in[3])) / std::sqrt(smallest);
  const double w = largest_of(in[1]), b = largest_of(in[2]);
  if (!(r * (1 + w) + b < largest / 4)) return INFINITY;
  return (1 + w) * (r + 1) + b + 1;
}

// attention's rounding sensitivity (reference_magnitude): a score carries an error of about
// eps (head_dim + 2) |scale| max|q| max|k| plus eps times the bias and the softcap, and a weight's
// error is its score's times the weight, so an output's is about max|v| times the scores' error.
// Infinite when the scale is (head_dim 0: NaN on every side), when a value is not finite, or
// when a score, a bias or a sum of values may overflow the dtype.
double attention_sensitivity(const std::vector<HostArray>& operands, const OpArgs& args) {
  const HostArray &q = operands[0], &k = operands[1], &v = operands[2];
  if (q.shape.size() != 4 || k.shape.size() != 4 || v.shape.size() != 4) return largest_of(q);
  const double largest = q.dtype == DType::F32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double dh = static_cast<double>(q.shape[3]), sk = static_cast<double>(k.shape[2]);
  const double scale = std::fabs(args.attention.scale ? *args.attention.scale : 1.0 / std::sqrt(dh));
  if (!std::isfinite(scale)) return INFINITY;
  const std::size_t bias_at = args.attention_mask ? 4 : 3;
  const double bias = args.attention_bias && operands.size() > bias_at ? largest_of(operands[bias_at]) : 0.0;
  const double cap = args.attention.softcap ? std::fabs(*args.attention.softcap) : 0.0;
  const double scores = scale * largest_of(q) * largest_of(k) * std::max(dh, 1.0);
  const double values = largest_of(v);
  // A weight that underflows to 0 on one side and stays a subnormal on the other turns an infinite
  // value into NaN or inf: with a non-finite value only the classes are judged.
  for (double x : v.values) {
    if (!std::isfinite(x)) return INFINITY;
  }
  // The products q k^T are formed before the scale multiplies them (a scale of 0 does not save an
  // overflowed dot product from inf * 0 = NaN).
  if (!(largest_of(q) * largest_of(k) * std::max(dh, 1.0) < largest / 4)) return INFINITY;
  if (!(scores < largest / 4) || !(bias < largest / 4) || !(values * std::max(sk, 1.0) < largest / 4)) return INFINITY;
  return values * (scores + bias + cap + 1);
}

}  // namespace

double reference_magnitude(OpId op, const std::vector<HostArray>& operands, const OpArgs& args) {
  const auto largest_finite = [&](std::size_t i) { return i < operands.size() ? largest_of(operands[i]) : 0.0; };
  if (op == OpId::layer_norm && operands.size() >= 2) return layer_norm_sensitivity(operands, args.scalar);
  if (op == OpId::attention && operands.size() >= 3) return attention_sensitivity(operands, args);
  if (op == OpId::batch_norm && operands.size() >= 5) return batch_norm_sensitivity(operands, args.scalar);
  if (op == OpId::float_matmul || op == OpId::linear_x_backward || op == OpId::linear_weight_backward) {
    return largest_finite(0) * largest_finite(1);
  }
  // rfft's twiddles are at most 1; irfft's weights at most 2 / n, over n / 2 + 1 bins of each part.
  if (op == OpId::rfft) return largest_finite(0);
  if (op == OpId::irfft) return 2 * std::fmax(largest_finite(0), largest_finite(1));
  if (op == OpId::linear || op == OpId::conv2d || op == OpId::conv_transpose2d || op == OpId::conv1d ||
      op == OpId::conv_transpose1d || op == OpId::conv3d || op == OpId::conv_transpose3d) {
    return std::fmax(largest_finite(0) * largest_finite(1), largest_finite(2));
  }
  if (op == OpId::conv2d_x_backward || op == OpId::conv_transpose2d_x_backward || op == OpId::conv1d_x_backward ||
      op == OpId::conv_transpose1d_x_backward || op == OpId::conv3d_x_backward || op == OpId::conv_transpose3d_x_backward) {
    return largest_finite(1) * largest_finite(2);
  }
  if (op == OpId::conv2d_weight_backward || op == OpId::conv_transpose2d_weight_backward || op == OpId::conv1d_weight_backward ||
      op == OpId::conv_transpose1d_weight_backward || op == OpId::conv3d_weight_backward ||
      op == OpId::conv_transpose3d_weight_backward) {
    return largest_finite(0) * largest_finite(2);
  }
  if (op == OpId::conv2d_bias_backward || op == OpId::conv_transpose2d_bias_backward || op == OpId::conv1d_bias_backward ||
      op == OpId::conv_transpose1d_bias_backward || op == OpId::conv3d_bias_backward ||
      op == OpId::conv_transpose3d_bias_backward) {
    return largest_finite(2);
  }
  if (op == OpId::avg_pool2d_backward || op == OpId::adaptive_avg_pool2d_backward || op == OpId::avg_pool1d_backward ||
      op == OpId::adaptive_avg_pool1d_backward || op == OpId::interpolate_backward || op == OpId::adaptive_avg_pool3d_backward) {
    return largest_finite(1);
  }
  if (op == OpId::max_pool2d_with_indices_backward || op == OpId::max_pool1d_with_indices_backward || op == OpId::embedding_backward) {
    return largest_finite(2);  // {x or weights, indices, grad}
  }
  return largest_finite(0);
}

std::size_t reference_reduction_length(OpId op, const std::vector<HostArray>& operands, const OpArgs& args) {
  const Dims& shape = operands.empty() ? Dims{} : operands[0].shape;
  if (!is_op_code(op)) return 1;  // a hop (or a reserved code) sums nothing
  switch (op_info(op).sig) {
    case OpSig::Binary:
      return op == OpId::float_matmul && !shape.empty() ? shape.back() : 1;
    case OpSig::Unary:
      return op == OpId::float_sum || op == OpId::float_mean || op == OpId::float_prod ? count(shape) : 1;
    case OpSig::Dim:
      return args.dim < shape.size() ? shape[args.dim] : 1;
    case OpSig::Scalar:
    case OpSig::Bounds:
    case OpSig::DimPair:
    case OpSig::ToShape:
    case OpSig::ToDType:
    case OpSig::Axes:
    case OpSig::Ranges:
    case OpSig::Select:
    case OpSig::SelectAssign:
    case OpSig::Gather:
    case OpSig::Scatter:
    case OpSig::MaskWhere:
    case OpSig::MaskFill:
    case OpSig::Affine:
    case OpSig::Repeat:
    case OpSig::Window:
    case OpSig::BinaryDim:
    case OpSig::Sort:
    case OpSig::TopK:
    case OpSig::RangesAssign:
    case OpSig::ScatterUpdate:
    case OpSig::GatherNd:
    case OpSig::ScatterNd:
    case OpSig::MaskSelect:
    case OpSig::Cat:
      return 1;
    // The most cells one output averages (forward), or one input's gradient gathers (backward:
    // at most ceil(k / s) windows per dim overlap a cell).
    case OpSig::AvgPool2d:
    case OpSig::AvgPool2dBackward: {
      const AvgPool2dOptions& o = args.avg_pool2d;
      if (op == OpId::avg_pool2d) return std::max<std::size_t>(1, o.kernel_size[0] * o.kernel_size[1]);
      const auto overlap = [](std::size_t k, std::size_t s) { return s == 0 ? k : (k + s - 1) / s; };
      return std::max<std::size_t>(1, overlap(o.kernel_size[0], o.stride[0]) * overlap(o.kernel_size[1], o.stride[1]));
    }
    // max_pool2d copies; its backward pass sums the gradients sent to one cell: at most every
    // output of the plane (any index may name any cell).
    case OpSig::MaxPool2d:
      return 1;
    case OpSig::Embedding:  // a copy
      return 1;
    // The most positions one row gathers (indices {weights, indices, grad}).
    case OpSig::EmbeddingBackward: {
      if (operands.size() < 2) return 1;
      std::map<double, std::size_t> uses;
      std::size_t most = 1;
      for (double v : operands[1].values) most = std::max(most, ++uses[v]);
      return most;
    }
    // linear sums d_input products and the bias; its backward passes d_output products (x) and
    // the rows (weight, bias).
    case OpSig::Linear:
      return shape.empty() ? 1 : shape.back() + (operands.size() > 2 ? 1 : 0);
    case OpSig::LinearXBackward:
      return operands.size() > 1 && !operands[1].shape.empty() ? std::max<std::size_t>(1, operands[1].shape.back()) : 1;
    case OpSig::LinearWeightBackward:
    case OpSig::LinearBiasBackward:
      return shape.empty() || shape.back() == 0 ? 1 : std::max<std::size_t>(1, count(shape) / shape.back());
    // conv2d sums a group's taps and the bias; x's gradient at most every tap of a group's output
    // channels, the weight's and the bias's every output position of the batch.
    case OpSig::Conv2d:
    case OpSig::Conv2dBackward:
    case OpSig::Conv2dBiasBackward: {
      if (operands.size() < 2 || shape.size() != 4) return 1;
      const Dims& w = operands[1].shape;
      const Dims& g = operands.size() > 2 ? operands[2].shape : Dims{};
      const std::size_t positions = g.size() == 4 ? std::max<std::size_t>(1, g[0] * g[2] * g[3]) : 1;
      if (op == OpId::conv2d_bias_backward || op == OpId::conv2d_weight_backward || op == OpId::conv_transpose2d_bias_backward) {
        return positions;
      }
      if (w.size() != 4) return 1;
      const std::size_t taps = w[1] * w[2] * w[3];
      if (op == OpId::conv2d) return std::max<std::size_t>(1, taps + 1);
      const std::size_t groups = std::max<std::size_t>(1, args.conv2d.groups);
      return std::max<std::size_t>(1, w[0] / groups * w[2] * w[3]);  // conv2d_x_backward
    }
    // conv1d: conv2d's counts on the single-row view (a kernel of 1 x k taps; positions n * l).
    case OpSig::Conv1d:
    case OpSig::Conv1dBackward:
    case OpSig::Conv1dBiasBackward: {
      if (operands.size() < 2 || shape.size() != 3) return 1;
      const Dims& w = operands[1].shape;
      const Dims& g = operands.size() > 2 ? operands[2].shape : Dims{};
      const std::size_t positions = g.size() == 3 ? std::max<std::size_t>(1, g[0] * g[2]) : 1;
      if (op == OpId::conv1d_bias_backward || op == OpId::conv1d_weight_backward || op == OpId::conv_transpose1d_bias_backward) {
        return positions;
      }
      if (w.size() != 3) return 1;
      if (op == OpId::conv1d) return std::max<std::size_t>(1, w[1] * w[2] + 1);
      return std::max<std::size_t>(1, w[0] / std::max<std::size_t>(1, args.conv1d.groups) * w[2]);  // conv1d_x_backward
    }
    // conv_transpose2d: an output cell receives at most every tap of its group's input channels (a
    // product each, summed by the matmul over channels, then by the scatter over kernel cells) and
    // the bias; x's gradient sums a group's output channels' taps, the weight's every input cell of
    // the batch.
    case OpSig::ConvTranspose2d:
    case OpSig::ConvTranspose2dBackward: {
      if (operands.size() < 2 || operands[0].shape.size() != 4 || operands[1].shape.size() != 4) return 1;
      const Dims& x = operands[0].shape;
      const Dims& w = operands[1].shape;
      const std::size_t groups = std::max<std::size_t>(1, args.conv_transpose2d.groups);
      if (op == OpId::conv_transpose2d_weight_backward) return std::max<std::size_t>(1, x[0] * x[2] * x[3]);
      if (op == OpId::conv_transpose2d_x_backward) return std::max<std::size_t>(1, w[1] * w[2] * w[3]);
      return std::max<std::size_t>(1, x[1] / groups * w[2] * w[3] + (operands.size() > 2 ? 1 : 0));
    }
    // conv_transpose1d: conv_transpose2d's counts on the single-row view.
    case OpSig::ConvTranspose1d:
    case OpSig::ConvTranspose1dBackward: {
      if (operands.size() < 2 || operands[0].shape.size() != 3 || operands[1].shape.size() != 3) return 1;
      const Dims& x = operands[0].shape;
      const Dims& w = operands[1].shape;
      const std::size_t groups = std::max<std::size_t>(1, args.conv_transpose1d.groups);
      if (op == OpId::conv_transpose1d_weight_backward) return std::max<std::size_t>(1, x[0] * x[2]);
      if (op == OpId::conv_transpose1d_x_backward) return std::max<std::size_t>(1, w[1] * w[2]);
      return std::max<std::size_t>(1, x[1] / groups * w[2] + (operands.size() > 2 ? 1 : 0));
    }
    // conv3d: conv2d's counts with a depth dim (taps ci / groups * k_d * k_h * k_w; positions n *
    // d * h * w).
    case OpSig::Conv3d:
    case OpSig::Conv3dBackward:
    case OpSig::Conv3dBiasBackward: {
      if (operands.size() < 2 || shape.size() != 5) return 1;
      const Dims& w = operands[1].shape;
      const Dims& g = operands.size() > 2 ? operands[2].shape : Dims{};
      const std::size_t positions = g.size() == 5 ? std::max<std::size_t>(1, g[0] * g[2] * g[3] * g[4]) : 1;
      if (op == OpId::conv3d_bias_backward || op == OpId::conv3d_weight_backward || op == OpId::conv_transpose3d_bias_backward) {
        return positions;
      }
      if (w.size() != 5) return 1;
      if (op == OpId::conv3d) return std::max<std::size_t>(1, w[1] * w[2] * w[3] * w[4] + 1);
      const std::size_t groups = std::max<std::size_t>(1, args.conv3d.groups);
      return std::max<std::size_t>(1, w[0] / groups * w[2] * w[3] * w[4]);  // conv3d_x_backward
    }
    // conv_transpose3d: conv_transpose2d's counts with a depth dim.
    case OpSig::ConvTranspose3d:
    case OpSig::ConvTranspose3dBackward: {
      if (operands.size() < 2 || operands[0].shape.size() != 5 || operands[1].shape.size() != 5) return 1;
      const Dims& x = operands[0].shape;
      const Dims& w = operands[1].shape;
      const std::size_t groups = std::max<std::size_t>(1, args.conv_transpose3d.groups);
      if (op == OpId::conv_transpose3d_weight_backward) return std::max<std::size_t>(1, x[0] * x[2] * x[3] * x[4]);
      if (op == OpId::conv_transpose3d_x_backward) return std::max<std::size_t>(1, w[1] * w[2] * w[3] * w[4]);
      return std::max<std::size_t>(1, x[1] / groups * w[2] * w[3] * w[4] + (operands.size() > 2 ? 1 : 0));
    }
    // rfft sums n samples' products (the matmul), irfft the real parts' bins and the interior's
    // imaginary parts (two matmuls added): about n + 2 terms either way.
    case OpSig::Rfft:
    case OpSig::Irfft: {
      if (operands.empty() || args.dim >= operands[0].shape.size()) return 1;
      const std::size_t along = operands[0].shape[args.dim];
      const std::size_t n = args.fft_size.value_or(op == OpId::rfft ? along : along == 0 ? 0 : 2 * (along - 1));
      return std::max<std::size_t>(1, n + 2);
    }
    case OpSig::BatchNorm:  // a few roundings per cell, no sum
      return 4;
    case OpSig::LayerNorm:  // a row's sums of d_model terms
      return shape.empty() ? 1 : std::max<std::size_t>(1, shape.back());
    case OpSig::Attention:  // head_dim products per score, seq_k weighted values per output
      if (operands.size() < 3 || shape.size() != 4 || operands[1].shape.size() != 4) return 1;
      return std::max<std::size_t>(1, shape[3] + operands[1].shape[2]);
    case OpSig::Unfold4d:  // copies
      return 1;
    case OpSig::Fold4d:  // a cell sums at most one block cell per kernel cell
      return std::max<std::size_t>(1, args.unfold_kernel[0] * args.unfold_kernel[1]);
    case OpSig::Interpolate: {  // the taps of a cell: 1, 2 x 2 or 4 x 4
      const InterpolateMode m = args.interpolate.mode;
      return m == InterpolateMode::Bilinear ? 4 : m == InterpolateMode::Bicubic ? 16 : 1;
    }
    case OpSig::InterpolateBackward:
      return interpolate_backward_terms(operands[0].shape, args.output_size, args.interpolate);
    // The 1-D poolings: the 2-D counts on the row view.
    case OpSig::AvgPool1d:
    case OpSig::AvgPool1dBackward:
    case OpSig::AdaptivePool1d:
    case OpSig::AdaptivePool1dBackward:
    case OpSig::MaxPool1d:
    case OpSig::MaxPool1dBackward: {
      const std::optional<RowCall> row = pool_as_row(op, operands, args);
      return row ? reference_reduction_length(row->op, row->operands, row->args) : 1;
    }
    case OpSig::MaxPool2dBackward:
      return operands.size() > 2 && operands[2].shape.size() == 4 ? std::max<std::size_t>(1, operands[2].shape[2] * operands[2].shape[3]) : 1;
    case OpSig::AdaptivePool2d:
    case OpSig::AdaptivePool2dBackward: {
      if (shape.size() != 4) return 1;
      const Size2 out = op == OpId::adaptive_avg_pool2d || operands.size() < 2 || operands[1].shape.size() != 4
                            ? args.output_size
                            : Size2{operands[1].shape[2], operands[1].shape[3]};
      const auto widest = [](std::size_t in, std::size_t o) { return o == 0 ? 1 : (in + o - 1) / o + 1; };
      const auto overlap = [](std::size_t in, std::size_t o) { return in == 0 ? 1 : (o + in - 1) / in + 1; };
      if (op == OpId::adaptive_avg_pool2d) return widest(shape[2], out[0]) * widest(shape[3], out[1]);
      return overlap(shape[2], out[0]) * overlap(shape[3], out[1]);
    }
    case OpSig::AdaptivePool3d:
    case OpSig::AdaptivePool3dBackward: {
      if (shape.size() != 5) return 1;
      const Size3 out = op == OpId::adaptive_avg_pool3d || operands.size() < 2 || operands[1].shape.size() != 5
                            ? args.output_size_3d
                            : Size3{operands[1].shape[2], operands[1].shape[3], operands[1].shape[4]};
      std::size_t n = 1;
      for (std::size_t d = 0; d < 3; ++d) {
        const std::size_t in = shape[2 + d], o = out[d];
        n *= op == OpId::adaptive_avg_pool3d ? (o == 0 ? 1 : (in + o - 1) / o + 1) : (in == 0 ? 1 : (o + in - 1) / in + 1);
      }
      return n;
    }
  }
  return 1;
}

}  // namespace crossgrad::oracle
