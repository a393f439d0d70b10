#pragma once
// A dimension (a shape entry, a range bound) in the schemas of tensor_data_fuzzer and
// remote_protocol_fuzzer: one encoding, so both reach the same sizes. Class 0: 0..16 (one byte),
// 1: any 32-bit value, 2: any 64-bit value (overflow hunting).
#include <cstddef>
#include <cstdint>

namespace crossgrad::fuzz {

template <class Io>
void dim_schema(Io &io, std::uint64_t &dim) {
  std::size_t cls = dim <= 16 ? 0 : dim <= 0xffffffffu ? 1 : 2;
  io.pick(cls, 3);
  if (cls == 0) {
    std::size_t v = static_cast<std::size_t>(dim);
    io.pick(v, 17);
    dim = v;
  } else if (cls == 1) {
    std::uint32_t v = static_cast<std::uint32_t>(dim);
    io.raw(v);
    dim = v;
  } else {
    io.raw(dim);
  }
}

}  // namespace crossgrad::fuzz
