// Flex float_ and int_ argsort and argtopk (sort and topk gather through them, composites.cpp).
// Each lane's elements become (order key, position) pairs: the key is an unsigned integer that
// orders as host::sorts_before does (floats: every NaN one largest key, -0 made +0, the IEEE bits
// flipped so integer order is value order; signed ints: the sign bit flipped; complemented for
// descending), and the
// position breaks ties, so sorting the pairs as integers is the reference's stable sort without a
// float comparison or an indirect read per step. Lanes run side by side on the pool; argtopk with a
// small k sorts only its first k.
#include "common.hpp"
#include "thread_pool.hpp"
#include "../kind_members.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace crossgrad::backends {
namespace {

template <class T>
using KeyOf = std::conditional_t<sizeof(T) <= 4, std::uint32_t, std::uint64_t>;

template <class T>
KeyOf<T> order_key(T v, bool descending) {
  using K = KeyOf<T>;
  constexpr K kSign = K{1} << (sizeof(K) * 8 - 1);
  K key;
  if constexpr (std::is_integral_v<T>) {
    // Widened to K's width (sign-extended), then the sign bit flipped: integer order.
    key = std::is_signed_v<T> ? static_cast<K>(static_cast<std::make_signed_t<K>>(v)) ^ kSign : static_cast<K>(v);
  } else if (std::isnan(v)) {
    key = std::numeric_limits<K>::max();
  } else {
    const K bits = std::bit_cast<K>(v == T(0) ? T(0) : v);
    key = (bits & kSign) != 0 ? ~bits : (bits | kSign);
  }
  return descending ? ~key : key;
}

template <class T>
void sort_lanes(const FlexTensor& t, std::size_t dim, bool descending, std::size_t k, FlexTensor& out) {
  using Pair = std::pair<KeyOf<T>, std::uint64_t>;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t len = split.len, inner = split.inner, lanes = split.outer * split.inner;
  const T* x = t.data<T>();
  std::int64_t* o = out.mutable_data<std::int64_t>();
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / std::max<std::size_t>(1, len * 8));
  flex::parallel_range(lanes, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<Pair> pairs(len);
    for (std::size_t lane = begin; lane < end; ++lane) {
      const std::size_t a = lane / inner, i = lane % inner;
      const T* in = x + a * len * inner + i;
      for (std::size_t r = 0; r < len; ++r) pairs[r] = Pair{order_key(in[r * inner], descending), r};
      if (k < len / 8) std::partial_sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(k), pairs.end());
      else std::sort(pairs.begin(), pairs.end());
      std::int64_t* dst = o + a * k * inner + i;
      for (std::size_t r = 0; r < k; ++r) dst[r * inner] = static_cast<std::int64_t>(pairs[r].second);
    }
  });
}

FlexTensor sorted_positions(const FlexTensor& t, std::size_t dim, bool descending, std::size_t k, const Shape& shape) {
  FlexTensor out = flex::make_tensor(shape, DType::I64);
  if (out.num_elements() == 0) return out;
  host::with_element_type(t.dtype, [&](auto zero) { sort_lanes<decltype(zero)>(t, dim, descending, k, out); });
  return out;
}

FlexTensor argsort_positions(const FlexTensor& tensor, std::size_t dim, bool descending, OpId op) {
  rules::check_sort(tensor.shape, tensor.dtype, operand_category(op), dim, op_info(op).name);
  return sorted_positions(tensor, dim, descending, tensor.shape[dim], tensor.shape);
}

FlexTensor argtopk_positions(const FlexTensor& tensor, std::size_t dim, std::size_t k, OpId op) {
  const Shape out = rules::check_topk(tensor.shape, tensor.dtype, operand_category(op), dim, k, op_info(op).name);
  return sorted_positions(tensor, dim, /*descending=*/true, k, out);
}

}  // namespace

CROSSGRAD_KIND_MEMBER(Flex, float_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(Flex, int_argsort, Sort, argsort_positions)
CROSSGRAD_KIND_MEMBER(Flex, float_argtopk, TopK, argtopk_positions)
CROSSGRAD_KIND_MEMBER(Flex, int_argtopk, TopK, argtopk_positions)

}  // namespace crossgrad::backends
