// Flex mask_where and mask_fill: out = mask ? value : tensor (docs/OPS.md). Operands of the result's
// shape take one flat, branch-free select split over the pool; broadcast operands a strided walk of
// the result in flat chunks, each chunk stepping an odometer of the result's coordinates with each
// operand's broadcast strides (0 along its broadcast dims). Bits are copied, as NdArray's loop does.
// And mask_select (its note at the function).
#include "common.hpp"
#include "../kind_members.hpp"
#include "isa_loops.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace crossgrad::backends {
namespace {

// at(e, k): the offset of result element e in operand k, for elements visited in order from begin.
template <std::size_t N>
class BroadcastCursor {
 public:
  BroadcastCursor(const Shape& out, const std::vector<std::size_t> (&strides)[N], std::size_t begin)
      : dims_(out.dims()), strides_(strides), coord_(dims_.size(), 0) {
    std::size_t rest = begin;
    for (std::size_t d = dims_.size(); d-- > 0;) {
      coord_[d] = rest % dims_[d];
      rest /= dims_[d];
      for (std::size_t k = 0; k < N; ++k) offset_[k] += coord_[d] * strides_[k][d];
    }
  }
  std::size_t operator[](std::size_t k) const { return offset_[k]; }
  void next() {
    for (std::size_t d = dims_.size(); d-- > 0;) {
      for (std::size_t k = 0; k < N; ++k) offset_[k] += strides_[k][d];
      if (++coord_[d] < dims_[d]) return;
      for (std::size_t k = 0; k < N; ++k) offset_[k] -= coord_[d] * strides_[k][d];
      coord_[d] = 0;
    }
  }

 private:
  std::vector<std::size_t> dims_;
  const std::vector<std::size_t> (&strides_)[N];
  std::vector<std::size_t> coord_;
  std::size_t offset_[N] = {};
};

// m != 0 ? a : b, with no branch on integer lanes: there GCC kept a branch per element (1-byte
// lanes: bool_mask_fill of 1M elements 3.3 ms) where float lanes became a blend.
template <class T>
T chosen_by(std::uint8_t m, T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    const U take_a = static_cast<U>(U{0} - static_cast<U>(m != 0 ? 1 : 0));
    return static_cast<T>((static_cast<U>(a) & take_a) | (static_cast<U>(b) & static_cast<U>(~take_a)));
  } else {
    return m != 0 ? a : b;
  }
}

// pick(i, j, k): element i of the tensor, j of the mask, k of the value operand chosen per element.
// same_shape_loop(begin, end) does elements [begin, end) when no operand broadcasts, from the
// operands' own pointers: a loop that read them through pick's captured references could not keep
// them in registers (a store might change them), and its select became a branch on the mask,
// mispredicted on a random one (mask_fill of 1M floats: 3.7 ms). Copied into locals (a closure's
// members are memory a store might change too) and run under AVX2 (Note [Flex loops compiled
// twice]), it is a vectorised blend.
template <class T, class Pick, class Same>
void masked_select(const Shape& out_shape, const Shape* (&shapes)[3], T* out, Pick pick, Same same_shape_loop) {
  const std::size_t n = out_shape.num_elements();
  bool same = true;
  for (const Shape* s : shapes) same = same && (s == nullptr || *s == out_shape);
  if (same) {
    flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
      flex::run_loop([&] { same_shape_loop(begin, end); });
    });
    return;
  }
  std::vector<std::size_t> strides[3];
  for (std::size_t k = 0; k < 3; ++k) {
    strides[k] = shapes[k] ? rules::broadcast_strides(*shapes[k], out_shape)
                           : std::vector<std::size_t>(out_shape.rank(), 0);
  }
  flex::parallel_range(n, flex::kElementwiseGrain, [&](std::size_t begin, std::size_t end) {
    BroadcastCursor<3> at(out_shape, strides, begin);
    for (std::size_t e = begin; e < end; ++e, at.next()) out[e] = pick(at[0], at[1], at[2]);
  });
}

}  // namespace

namespace {

FlexTensor mask_where_elements(const FlexTensor& tensor, const FlexTensor& mask, const FlexTensor& value, OpId op) {
  const Shape out_shape = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, &value.shape,
                                              value.dtype, op_info(op).name, operand_category(op));
  FlexTensor out = flex::make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const Shape* shapes[3] = {&tensor.shape, &mask.shape, &value.shape};
  flex::with_element_bits(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = tensor.data<T>();
    const std::uint8_t* m = mask.data<std::uint8_t>();
    const T* v = value.data<T>();
    T* const o = out.mutable_data<T>();
    masked_select(out_shape, shapes, o, [&](std::size_t i, std::size_t j, std::size_t k) { return m[j] != 0 ? v[k] : x[i]; },
                  [x, m, v, o](std::size_t begin, std::size_t end) {
                    const T *const xs = x, *const vs = v;
                    const std::uint8_t* const ms = m;
                    T* const os = o;
                    for (std::size_t e = begin; e < end; ++e) os[e] = chosen_by<T>(ms[e], vs[e], xs[e]);
                  });
  });
  return out;
}

}  // namespace

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(Flex, mask_where, MaskWhere, mask_where_elements)

namespace {

// The scalar as an element of the tensor's kind (fill_element): float_, int_ and bool_mask_fill.
FlexTensor mask_fill_elements(const FlexTensor& tensor, const FlexTensor& mask, double value, OpId op) {
  const Shape out_shape = rules::check_masked(tensor.shape, tensor.dtype, mask.shape, mask.dtype, nullptr, tensor.dtype,
                                              op_info(op).name, operand_category(op));
  FlexTensor out = flex::make_tensor(out_shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const Shape* shapes[3] = {&tensor.shape, &mask.shape, nullptr};
  host::with_element_type(tensor.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = tensor.data<T>();
    const std::uint8_t* m = mask.data<std::uint8_t>();
    const T fill = fill_element<T>(value, tensor.dtype == DType::Bool);
    T* const o = out.mutable_data<T>();
    masked_select(out_shape, shapes, o, [&](std::size_t i, std::size_t j, std::size_t) { return m[j] != 0 ? fill : x[i]; },
                  [x, m, fill, o](std::size_t begin, std::size_t end) {
                    const T* const xs = x;
                    const std::uint8_t* const ms = m;
                    const T f = fill;
                    T* const os = o;
                    for (std::size_t e = begin; e < end; ++e) os[e] = chosen_by<T>(ms[e], f, xs[e]);
                  });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBERS(Flex, mask_fill, MaskFill, mask_fill_elements)

// mask_select without the composite's host index list: the mask's bytes are counted per block in
// parallel, the counts' prefix sums give each block its place in the result, then each block
// copies its picked elements there, in row-major order.
namespace {

FlexTensor mask_select_elements(const FlexTensor& t, const FlexTensor& mask, OpId op) {
  rules::check_mask_select(t.shape, t.dtype, mask.shape, mask.dtype, operand_category(op), op_info(op).name);
  const std::size_t n = t.num_elements();
  constexpr std::size_t kBlock = std::size_t{1} << 14;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  const std::uint8_t* m = mask.data<std::uint8_t>();
  std::vector<std::size_t> start(blocks + 1, 0);
  flex::parallel_range(blocks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      std::size_t count = 0;
      for (std::size_t i = b * kBlock, stop = std::min(n, i + kBlock); i < stop; ++i) count += m[i] != 0;
      start[b + 1] = count;
    }
  });
  for (std::size_t b = 0; b < blocks; ++b) start[b + 1] += start[b];
  FlexTensor out = flex::make_tensor(Shape{start[blocks]}, t.dtype);
  if (start[blocks] == 0) return out;
  flex::with_element_bits(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = t.data<T>();
    T* o = out.mutable_data<T>();
    flex::parallel_range(blocks, 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) {
        std::size_t at = start[b];
        for (std::size_t i = b * kBlock, stop = std::min(n, i + kBlock); i < stop; ++i) {
          if (m[i] != 0) o[at++] = x[i];
        }
      }
    });
  });
  return out;
}

}  // namespace

CROSSGRAD_KIND_MEMBERS(Flex, mask_select, MaskSelect, mask_select_elements)

}  // namespace crossgrad::backends
