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
//
// Backend bytes name registry indices (Note [Backend bytes name registry
// indices] in decode/backends.hpp): the writer writes the registry index
// itself, the reader takes the byte modulo the number of backends the engine
// *knows* (not the number built, nor the number with a device here), so a file
// decodes to the same scenario on every machine and in every build. A backend
// appended to the registry (Remote, later) leaves every written file — seeds,
// re-encoded regression inputs — with its meaning, since their bytes are
// indices below the old count; only fuzzer-made bytes >= the old count move.
// A scenario naming a backend or device this machine lacks is decoded all the
// same, and then not run: the targets report it as "not applicable here".
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace crossgrad::fuzz {

// A backend (and device) a decoded scenario names; recorded by the reader so
// that a target can tell whether its scenario can run here.
struct BackendUse {
  std::size_t backend = 0;  // registry index
  int device = 0;           // device index (0 for a backend's default device)
  friend bool operator==(const BackendUse &, const BackendUse &) = default;
};

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
  // Bytes read so far (never more than the input's size): a file longer than what its scenario
  // consumed holds trailing bytes a later trailing section would read.
  std::size_t consumed() const { return pos_; }

  void note_use(std::size_t backend, int device) { uses_.push_back({backend, device}); }
  const std::vector<BackendUse> &uses() const { return uses_; }

 private:
  std::uint8_t next() { return pos_ < bytes_.size() ? bytes_[pos_++] : 0; }
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  std::vector<BackendUse> uses_;
};

class ByteWriter {
 public:
  static constexpr bool reading = false;

  // Most scenarios encode to well under 256 bytes: one allocation, not a doubling chain of them
  // (the mutator encodes three times per call).
  ByteWriter() { out_.reserve(256); }

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
  void note_use(std::size_t, int) {}
  const std::vector<std::uint8_t> &bytes() const { return out_; }
  // Drops the zero bytes at the end of what was written since `start` (the reader yields them
  // anyway): see trailing_section.
  void drop_trailing_zeros_since(std::size_t start) {
    while (out_.size() > start && out_.back() == 0) out_.pop_back();
  }

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
  if constexpr (Io::reading) {
    items.clear();
    items.resize(n);  // in place: assign(n, T{}) copied a T per item (a Command is deep)
  }
  for (std::size_t i = 0; i < n && i < items.size(); ++i) f(io, items[i]);
}

// Note [Trailing sections]
// A field added to a schema after files were written goes in a trailing section, after every
// other field: an old file ends before it, so the exhausted reader yields zeros there, and a
// section whose zeros mean "nothing new" (flags off) leaves every old file with its meaning. The
// writer drops the zero bytes a section leaves at the end, so a scenario that uses nothing of the
// section is written byte for byte as before the section existed (seeds keep their bytes). A
// fuzz-found file with bytes past its old end is the exception: those bytes now mean something and
// such files are re-encoded when a section is added (decode, write back).
template <class Io, class F>
void trailing_section(Io &io, F &&fields) {
  if constexpr (Io::reading) {
    fields(io);
  } else {
    const std::size_t start = io.bytes().size();
    fields(io);
    io.drop_trailing_zeros_since(start);
  }
}

template <class Scenario, class Schema>
Scenario decode_with(std::span<const std::uint8_t> bytes, Schema &&schema) {
  ByteReader r(bytes);
  Scenario s{};
  schema(r, s);
  return s;
}

// A scenario with the backends (and devices) it names, in decoding order.
template <class Scenario>
struct Decoded {
  Scenario scenario;
  std::vector<BackendUse> uses;
};

template <class Scenario, class Schema>
Decoded<Scenario> decode_noting_uses(std::span<const std::uint8_t> bytes, Schema &&schema) {
  ByteReader r(bytes);
  Decoded<Scenario> d{};
  schema(r, d.scenario);
  d.uses = r.uses();
  return d;
}

// The writer leaves s canonical: each value becomes its codebook entry, each list its written
// length. A decoded scenario already is, so encoding one in place changes nothing in it.
template <class Scenario, class Schema>
std::vector<std::uint8_t> encode_in_place(Scenario &s, Schema &&schema) {
  ByteWriter w;
  schema(w, s);
  return w.bytes();
}

template <class Scenario, class Schema>
std::vector<std::uint8_t> encode_with(Scenario s, Schema &&schema) {
  return encode_in_place(s, std::forward<Schema>(schema));
}

}  // namespace crossgrad::fuzz
