#pragma once
// ScenarioMutator for a scenario type with a schema: the kinds are functions over the decoded
// struct (tables in scenario_kinds.cpp, op_args_kinds.cpp), plus the schema-generic "choice" kind
// (choice_reader.hpp), always last.
#include <string_view>
#include <utility>
#include <vector>

#include "harness/io.hpp"
#include "mutate/choice_reader.hpp"
#include "mutate/scenario_mutator.hpp"

namespace crossgrad::fuzz::mutate {

template <class Scenario>
struct Kind {
  std::string_view name;
  bool (*apply)(Rng &rng, Scenario &s);  // false: does not apply here
};

template <class Scenario>
class SchemaMutator final : public ScenarioMutator {
 public:
  using Cross = bool (*)(Rng &rng, Scenario &child, const Scenario &other);
  // prepare: makes a mutated struct safe to encode (the writer reads fields the struct may lack).
  SchemaMutator(std::vector<Kind<Scenario>> kinds, Cross cross, void (*prepare)(Scenario &) = nullptr)
      : kinds_(std::move(kinds)), cross_(cross), prepare_(prepare) {}

  std::size_t kind_count() const override { return kinds_.size() + 1; }
  std::string_view kind_name(std::size_t k) const override {
    return k < kinds_.size() ? kinds_[k].name : std::string_view("choice");
  }

  std::optional<ByteVector> apply(std::size_t k, Bytes in, Rng &rng) const override {
    Scenario s = decode(in);
    const ByteVector before = encode_decoded(s);
    if (k < kinds_.size()) {
      if (!kinds_[k].apply(rng, s)) return std::nullopt;
    } else {
      ChoiceReader counter(in, ChoiceReader::kNone, nullptr);
      Scenario ignored{};
      schema(counter, ignored);
      // one past the choices read: a choice the exhausted reader would read next
      ChoiceReader r(in, rng.below(counter.choices() + 1), &rng);
      s = Scenario{};
      schema(r, s);
    }
    return finish(std::move(s), before);
  }

  std::optional<ByteVector> cross(Bytes a, Bytes b, Rng &rng) const override {
    Scenario child = decode(a);
    const ByteVector before = encode_decoded(child);
    if (!cross_(rng, child, decode(b))) return std::nullopt;
    return finish(std::move(child), before);
  }

  ByteVector canonical(Bytes in) const override { return encode(decode(in)); }
  // By their encodings, not operator==: a NaN value compares unequal to itself.
  bool same_scenario(Bytes a, Bytes b) const override { return canonical(a) == canonical(b); }

 private:
  static Scenario decode(Bytes b) {
    return decode_with<Scenario>(b, [](auto &io, auto &x) { schema(io, x); });
  }
  static ByteVector encode(Scenario s) { return encode_decoded(s); }
  // Note [The mutator does not copy scenarios]
  // A mutation used to copy the decoded input twice (the struct to mutate, and the one to compare
  // with, which encode() took by value): deep copies of every op, leaf and value list, each an
  // allocation that ASan pays for, in a hook that runs once per execution. The input's canonical
  // bytes are now taken from the decoded struct in place (a decoded struct is what the writer
  // would leave it) before it is mutated, and compared as bytes.
  static ByteVector encode_decoded(Scenario &s) {
    return encode_in_place(s, [](auto &io, auto &x) { schema(io, x); });
  }
  // Written, read back (what the decoder makes of it) and written again: canonical bytes.
  std::optional<ByteVector> finish(Scenario s, const ByteVector &before) const {
    if (prepare_ != nullptr) prepare_(s);
    const ByteVector first = encode(std::move(s));
    ByteVector out = encode(decode(first));
    if (out == before) return std::nullopt;  // bytes, not ==: NaN != NaN
    return out;
  }

  std::vector<Kind<Scenario>> kinds_;
  Cross cross_;
  void (*prepare_)(Scenario &);
};

}  // namespace crossgrad::fuzz::mutate
