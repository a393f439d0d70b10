#pragma once
// A schema-generic mutation (Note [One schema, two directions]): decode the input with a reader
// that behaves like ByteReader except at one choice — the k-th call of pick() with more than one
// option (a backend, an enum, a count, a flag, a value code, an index) — where it returns another
// value within that choice's own range. The schema says what every byte means and how many
// options it has, so this mutates any target with a schema (op_args_fuzzer included) without a
// line per field; the caller writes the decoded scenario back with ByteWriter. A choice whose
// change alters what follows (a count, an enum) makes the later bytes read with their new
// meaning, as a byte mutation would, but always as a well-formed scenario.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "harness/io.hpp"
#include "mutate/rng.hpp"
#include "mutate/values.hpp"

namespace crossgrad::fuzz::mutate {

class ChoiceReader {
 public:
  static constexpr bool reading = true;
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  // target == kNone: only count the choices.
  ChoiceReader(std::span<const std::uint8_t> bytes, std::size_t target, Rng *rng)
      : bytes_(bytes), target_(target), rng_(rng) {}

  void pick(std::size_t &v, std::size_t n) {
    if (n <= 1) {
      v = 0;
      return;
    }
    std::size_t raw = next();
    if (n > 256) raw |= std::size_t{next()} << 8;
    v = raw % n;
    if (choices_++ == target_ && rng_ != nullptr) {
      // 256 options is the value codebook (decode/specs.hpp): its specials are codes 240..255
      v = n == 256 && rng_->chance(1, 2) ? 240 + rng_->below(16) : other_than(*rng_, v, n);
      changed_ = true;
    }
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
  void blob(std::vector<std::uint8_t> &b, std::size_t max) {
    std::size_t n = 0;
    count(n, 0, max);
    b.resize(n);
    for (auto &x : b) x = next();
  }
  bool exhausted() const { return pos_ >= bytes_.size(); }
  std::size_t consumed() const { return pos_; }
  void note_use(std::size_t, int) {}

  std::size_t choices() const { return choices_; }
  bool changed() const { return changed_; }

 private:
  std::uint8_t next() { return pos_ < bytes_.size() ? bytes_[pos_++] : 0; }
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  std::size_t target_;
  Rng *rng_;
  std::size_t choices_ = 0;
  bool changed_ = false;
};

}  // namespace crossgrad::fuzz::mutate
