#pragma once
// Note [One schema, two directions]
// Every fuzz scenario is described once, by a function template
//     template <class Io> void schema(Io& io, Scenario& s);
// that names each field in the order it sits in the byte string. Run with a
// ByteReader it decodes fuzzer bytes into a Scenario (every byte string
// decodes: an exhausted reader yields zeros, and every count is clamped, so
// sizes stay bounded whatever the input); run with a ByteWriter it encodes a
// Scenario built by hand into the bytes that decode back to it. The seed
// generator (fuzz/tools/seedgen.cpp) therefore writes corpus files from
// readable scenario descriptions and never needs a second, hand-kept copy of
// the format.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace crossgrad::fuzz {

class ByteReader {
 public:
  static constexpr bool reading = true;
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  // A choice in [0, n): one byte when n <= 256, else two. n == 0 is treated
  // as 1.
  void pick(std::size_t &v, std::size_t n) {
    if (n <= 1) {
      v = 0;
      return;
    }
    std::size_t raw = next();
    if (n > 256) raw |= std::size_t{next()} << 8;
    v = raw % n;
  }
  template <class E>
  void pick_enum(E &e, std::size_t n) {
    std::size_t v = 0;
    pick(v, n);
    e = static_cast<E>(v);
  }
  void flag(bool &b) {
    std::size_t v = 0;
    pick(v, 2);
    b = v != 0;
  }
  // A count in [lo, hi].
  void count(std::size_t &v, std::size_t lo, std::size_t hi) {
    pick(v, hi - lo + 1);
    v += lo;
  }
  template <class T>
  void raw(T &v) {
    std::uint8_t buf[sizeof(T)];
    for (auto &b : buf) b = next();
    std::memcpy(&v, buf, sizeof(T));
  }
  // Up to max bytes, length first.
  void blob(std::vector<std::uint8_t> &b, std::size_t max) {
    std::size_t n = 0;
    count(n, 0, max);
    b.resize(n);
    for (auto &x : b) x = next();
  }
  bool exhausted() const { return pos_ >= bytes_.size(); }

 private:
  std::uint8_t next() { return pos_ < bytes_.size() ? bytes_[pos_++] : 0; }
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

class ByteWriter {
 public:
  static constexpr bool reading = false;

  void pick(std::size_t &v, std::size_t n) {
    if (n <= 1) return;
    put(static_cast<std::uint8_t>(v & 0xff));
    if (n > 256) put(static_cast<std::uint8_t>((v >> 8) & 0xff));
  }
  template <class E>
  void pick_enum(E &e, std::size_t n) {
    std::size_t v = static_cast<std::size_t>(e);
    pick(v, n);
  }
  void flag(bool &b) {
    std::size_t v = b ? 1 : 0;
    pick(v, 2);
  }
  void count(std::size_t &v, std::size_t lo, std::size_t hi) {
    std::size_t w = v - lo;
    pick(w, hi - lo + 1);
  }
  template <class T>
  void raw(T &v) {
    std::uint8_t buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    for (auto b : buf) put(b);
  }
  void blob(std::vector<std::uint8_t> &b, std::size_t max) {
    std::size_t n = b.size() < max ? b.size() : max;
    count(n, 0, max);
    for (std::size_t i = 0; i < n; ++i) put(b[i]);
  }
  const std::vector<std::uint8_t> &bytes() const { return out_; }

 private:
  void put(std::uint8_t b) { out_.push_back(b); }
  std::vector<std::uint8_t> out_;
};

// A list of at most max items, count first; each item is described by f(io,
// item).
template <class Io, class T, class F>
void list(Io &io, std::vector<T> &items, std::size_t max, F &&f) {
  std::size_t n = items.size();
  io.count(n, 0, max);
  if constexpr (Io::reading) items.assign(n, T{});
  for (std::size_t i = 0; i < n && i < items.size(); ++i) f(io, items[i]);
}

template <class Scenario, class Schema>
Scenario decode_with(std::span<const std::uint8_t> bytes, Schema &&schema) {
  ByteReader r(bytes);
  Scenario s{};
  schema(r, s);
  return s;
}

template <class Scenario, class Schema>
std::vector<std::uint8_t> encode_with(Scenario s, Schema &&schema) {
  ByteWriter w;
  schema(w, s);
  return w.bytes();
}

}  // namespace crossgrad::fuzz
