// The structure-aware mutator (fuzz/mutate/scenario_mutator.hpp) over the committed corpus: its
// output always decodes to a scenario whose encoding is the output (stable re-encoding), stays
// within max_size, is a function of the seed; every mutation kind is reachable and changes the
// scenario; crossover mixes both parents; the byte fallback takes its share (and all calls in
// mode Bytes). No libFuzzer here: the byte mutator is a stand-in that records its calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <cstdint>
#include <cmath>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "decode/op_args.hpp"
#include "decode/scenarios.hpp"
#include "decode/specs.hpp"
#include "mutate/scenario_mutator.hpp"

namespace crossgrad::fuzz::mutate {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTargets = {"grad_replace_fuzzer", "gradients_api_fuzzer", "ops_differential_fuzzer",
                                           "op_args_fuzzer"};
constexpr std::size_t kMaxSize = 4096;  // corpus/*.options max_len

// Up to `limit` corpus files of a target, in name order (spread over the directory).
std::vector<ByteVector> corpus(const std::string &target, std::size_t limit = 24) {
  std::vector<fs::path> files;
  for (const fs::directory_entry &e : fs::directory_iterator(fs::path(CROSSGRAD_CORPUS_DIR) / target))
    files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<ByteVector> out;
  const std::size_t step = std::max<std::size_t>(1, files.size() / limit);
  for (std::size_t i = 0; i < files.size() && out.size() < limit; i += step) {
    std::ifstream in(files[i], std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

// The stand-in for LLVMFuzzerMutate: flips the last byte or appends one, within max_size.
struct FakeBytes {
  std::size_t calls = 0;
  ByteMutator fn() {
    return [this](std::uint8_t *data, std::size_t size, std::size_t max_size) {
      ++calls;
      if (size < max_size) {
        data[size] = 0x5a;
        return size + 1;
      }
      if (size > 0) data[size - 1] ^= 0xff;
      return size;
    };
  }
};

struct Result {
  ByteVector bytes;
  MutateReport report;
};
Result mutate_once(const ScenarioMutator *m, Mode mode, const ByteVector &in, unsigned seed, FakeBytes &fake,
                   std::size_t max_size = kMaxSize) {
  ByteVector buf(std::max(max_size, in.size()));
  std::copy(in.begin(), in.end(), buf.begin());
  Result r;
  const std::size_t n = custom_mutate(m, mode, buf.data(), std::min(in.size(), max_size), max_size, seed, fake.fn(),
                                      &r.report);
  EXPECT_LE(n, max_size);
  r.bytes.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(std::min(n, buf.size())));
  return r;
}

TEST(ScenarioMutator, EveryScenarioTargetHasOne) {
  for (const std::string &t : kTargets) EXPECT_NE(scenario_mutator_for(t), nullptr) << t;
  EXPECT_EQ(scenario_mutator_for("tensor_data_fuzzer"), nullptr);
}

// A structural output is canonical: decoding and encoding it again gives the same bytes; and it
// differs, as a scenario, from the input.
TEST(ScenarioMutator, OutputDecodesReencodesStablyAndChangesTheScenario) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    FakeBytes fake;
    std::size_t structural = 0;
    for (const ByteVector &in : corpus(t)) {
      for (unsigned seed = 1; seed <= 40; ++seed) {
        const Result r = mutate_once(m, Mode::Scenario, in, seed, fake);
        ASSERT_LE(r.bytes.size(), kMaxSize);
        if (r.report.byte_fallback) continue;
        ++structural;
        ASSERT_TRUE(r.report.kind.has_value());
        EXPECT_EQ(m->canonical(r.bytes), r.bytes) << t << " kind " << m->kind_name(*r.report.kind) << " seed " << seed;
        EXPECT_FALSE(m->same_scenario(in, r.bytes)) << t << " kind " << m->kind_name(*r.report.kind);
      }
    }
    EXPECT_GT(structural, 100u) << t;
  }
}

// Every kind applies to some corpus input: the whole corpus is searched (an even sample can miss
// the few inputs a kind needs, e.g. op_args' axes and ranges, as the registry grows), and the search
// of a kind stops after 60 changed inputs.
TEST(ScenarioMutator, EveryKindIsReachableAndChangesTheScenario) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    const std::vector<ByteVector> inputs = corpus(t, std::numeric_limits<std::size_t>::max());
    for (std::size_t k = 0; k < m->kind_count(); ++k) {
      std::size_t changed = 0;
      for (const ByteVector &in : inputs) {
        if (changed >= 60) break;
        for (unsigned seed = 1; seed <= 6; ++seed) {
          Rng rng(seed);
          const std::optional<ByteVector> out = m->apply(k, in, rng);
          if (!out) continue;
          EXPECT_FALSE(m->same_scenario(in, *out)) << t << " " << m->kind_name(k);
          EXPECT_EQ(m->canonical(*out), *out) << t << " " << m->kind_name(k);
          ++changed;
        }
      }
      EXPECT_GT(changed, 0u) << t << ": kind " << m->kind_name(k) << " never applied to the corpus";
    }
  }
}

// op_args' composed ops (ctc_loss, deform_conv2d) read more tensors than some registry ops hold
// (float_cat's case holds none): a crossover that gives such a case a composed op's code must
// encode it, not index past its tensors, and both ways round the child is canonical.
TEST(ScenarioMutator, CrossOverBetweenComposedAndRegistryOps) {
  const ScenarioMutator *m = scenario_mutator_for("op_args_fuzzer");
  std::vector<ByteVector> composed, others;
  for (const fs::directory_entry &e : fs::directory_iterator(fs::path(CROSSGRAD_CORPUS_DIR) / "op_args_fuzzer")) {
    const std::string name = e.path().filename().string();
    const bool is_composed = name.find("ctc_loss") != std::string::npos || name.find("deform_conv2d") != std::string::npos;
    const bool is_other = name.find("op-float_cat-NdArray") != std::string::npos || name.find("op-float_add-NdArray") != std::string::npos;
    if (!is_composed && !is_other) continue;
    std::ifstream in(e.path(), std::ios::binary);
    (is_composed ? composed : others).emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(composed.empty());
  ASSERT_FALSE(others.empty());
  std::size_t children = 0;
  for (const ByteVector &a : composed) {
    for (const ByteVector &b : others) {
      for (unsigned seed = 1; seed <= 4; ++seed) {
        for (const auto &[x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
          Rng rng(seed);
          const std::optional<ByteVector> child = m->cross(*x, *y, rng);
          if (!child) continue;
          ++children;
          EXPECT_EQ(m->canonical(*child), *child);
        }
      }
    }
  }
  EXPECT_GT(children, 0u);
  // The case itself: no tensors at all, given each composed op's code.
  for (const std::size_t code : {op_args::kCtcLossCode, op_args::kDeformConv2dCode}) {
    op_args::OpArgsCase c;
    c.op_code = code;
    const auto schema = [](auto &io, auto &x) { op_args::schema(io, x); };
    const op_args::OpArgsCase back = decode_with<op_args::OpArgsCase>(encode_with(c, schema), schema);
    EXPECT_EQ(back.op_code, code);
    EXPECT_EQ(back.tensors.size(), code == op_args::kCtcLossCode ? 1u : 2u);
  }
}

TEST(ScenarioMutator, RespectsMaxSize) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    FakeBytes fake;
    for (const ByteVector &in : corpus(t, 12)) {
      for (std::size_t max : {std::size_t{1}, std::size_t{4}, in.size(), in.size() + 3}) {
        if (max == 0) continue;
        for (unsigned seed = 1; seed <= 30; ++seed) {
          const Result r = mutate_once(m, Mode::Scenario, in, seed, fake, max);
          ASSERT_LE(r.bytes.size(), max) << t << " seed " << seed;
        }
      }
    }
  }
}

TEST(ScenarioMutator, DeterministicPerSeed) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    FakeBytes fake;
    std::set<std::string> distinct;  // strings: GCC 12 warns on set<vector<uint8_t>> (a false -Wstringop-overread)
    for (const ByteVector &in : corpus(t, 6)) {
      for (unsigned seed = 1; seed <= 20; ++seed) {
        const Result a = mutate_once(m, Mode::Scenario, in, seed, fake);
        const Result b = mutate_once(m, Mode::Scenario, in, seed, fake);
        EXPECT_EQ(a.bytes, b.bytes) << t << " seed " << seed;
        distinct.insert(std::string(a.bytes.begin(), a.bytes.end()));
        std::vector<std::uint8_t> o1(kMaxSize), o2(kMaxSize);
        const ByteVector &other = in;  // crossover with itself is still seeded
        const std::size_t n1 = custom_cross_over(m, Mode::Scenario, in, other, o1.data(), kMaxSize, seed);
        const std::size_t n2 = custom_cross_over(m, Mode::Scenario, in, other, o2.data(), kMaxSize, seed);
        EXPECT_EQ(ByteVector(o1.begin(), o1.begin() + n1), ByteVector(o2.begin(), o2.begin() + n2));
      }
    }
    EXPECT_GT(distinct.size(), 30u) << t << ": the seed hardly matters";
  }
}

TEST(ScenarioMutator, CrossOverMixesBothParents) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    const std::vector<ByteVector> inputs = corpus(t, 10);
    std::size_t mixed = 0;
    for (std::size_t i = 0; i + 1 < inputs.size(); ++i) {
      const ByteVector &a = inputs[i], &b = inputs[i + 1];
      if (m->same_scenario(a, b)) continue;
      for (unsigned seed = 1; seed <= 10; ++seed) {
        std::vector<std::uint8_t> out(kMaxSize);
        const std::size_t n = custom_cross_over(m, Mode::Scenario, a, b, out.data(), kMaxSize, seed);
        ASSERT_LE(n, kMaxSize);
        const ByteVector child(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
        if (!m->same_scenario(child, a) && !m->same_scenario(child, b)) ++mixed;
      }
    }
    EXPECT_GT(mixed, 0u) << t << ": no child differs from both parents";
  }
}

// For command sequences "mixes" is checkable exactly: a child holds commands of both parents.
TEST(ScenarioMutator, CommandCrossOverTakesCommandsFromEachParent) {
  const ScenarioMutator *m = scenario_mutator_for("gradients_api_fuzzer");
  CommandSequence a, b;
  for (std::size_t i = 0; i < 4; ++i) {
    a.commands.push_back({CommandKind::Grad, {}, {}, i});
    b.commands.push_back({CommandKind::GradRemove, {}, {}, 4 + i});
  }
  const auto enc = [](CommandSequence s) { return encode_with(std::move(s), [](auto &io, auto &x) { schema(io, x); }); };
  const ByteVector ea = enc(a), eb = enc(b);
  bool both = false;
  for (unsigned seed = 1; seed <= 40 && !both; ++seed) {
    std::vector<std::uint8_t> out(kMaxSize);
    const std::size_t n = custom_cross_over(m, Mode::Scenario, ea, eb, out.data(), kMaxSize, seed);
    const CommandSequence child = decode_with<CommandSequence>(
        Bytes(out.data(), n), [](auto &io, auto &x) { schema(io, x); });
    bool from_a = false, from_b = false;
    for (const Command &c : child.commands) {
      from_a = from_a || c.kind == CommandKind::Grad;
      from_b = from_b || c.kind == CommandKind::GradRemove;
    }
    both = from_a && from_b;
  }
  EXPECT_TRUE(both);
}

// 1 call in kByteShare goes to the byte mutator in mode Scenario; every call in mode Bytes, whose
// output is then exactly the byte mutator's.
TEST(ScenarioMutator, ByteFallbackTakesItsShare) {
  const ScenarioMutator *m = scenario_mutator_for("ops_differential_fuzzer");
  const ByteVector in = corpus("ops_differential_fuzzer", 1).front();
  FakeBytes fake;
  std::size_t fallbacks = 0;
  constexpr unsigned kCalls = 800;
  for (unsigned seed = 1; seed <= kCalls; ++seed) fallbacks += mutate_once(m, Mode::Scenario, in, seed, fake).report.byte_fallback;
  EXPECT_EQ(fake.calls, fallbacks);
  EXPECT_GT(fallbacks, kCalls / kByteShare / 2);
  EXPECT_LT(fallbacks, kCalls / kByteShare * 2);

  FakeBytes only;
  for (unsigned seed = 1; seed <= 50; ++seed) {
    const Result r = mutate_once(m, Mode::Bytes, in, seed, only);
    EXPECT_TRUE(r.report.byte_fallback);
    ByteVector expected = in;
    expected.push_back(0x5a);
    EXPECT_EQ(r.bytes, expected);
  }
  EXPECT_EQ(only.calls, 50u);
  // No mutator (a target without a schema): bytes.
  FakeBytes none;
  EXPECT_TRUE(mutate_once(nullptr, Mode::Scenario, in, 1, none).report.byte_fallback);
}

// Mode Bytes crossover is a splice: a prefix of one parent and a suffix of the other.
TEST(ScenarioMutator, BytesModeCrossOverSplices) {
  const ByteVector a(10, 0xaa), b(10, 0xbb);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::vector<std::uint8_t> out(16);
    const std::size_t n = custom_cross_over(scenario_mutator_for("gradients_api_fuzzer"), Mode::Bytes, a, b, out.data(), 16, seed);
    ASSERT_LE(n, 16u);
    std::size_t i = 0;
    while (i < n && out[i] == 0xaa) ++i;
    while (i < n && out[i] == 0xbb) ++i;
    EXPECT_EQ(i, n) << "seed " << seed;
  }
}

TEST(ScenarioMutator, ModeFromEnvironment) {
  for (const std::string &t : kTargets) {
    ::setenv("CROSSGRAD_FUZZ_MUTATOR", "bytes", 1);
    EXPECT_EQ(mode_from_env(t), Mode::Bytes) << t;
    ::setenv("CROSSGRAD_FUZZ_MUTATOR", "scenario", 1);
    EXPECT_EQ(mode_from_env(t), Mode::Scenario) << t;
    ::setenv("CROSSGRAD_FUZZ_MUTATOR", "", 1);
    EXPECT_EQ(mode_from_env(t), default_mode(t)) << t;
    ::setenv("CROSSGRAD_FUZZ_MUTATOR", "structural", 1);  // not a mode: the default
    EXPECT_EQ(mode_from_env(t), default_mode(t)) << t;
    ::unsetenv("CROSSGRAD_FUZZ_MUTATOR");
    EXPECT_EQ(mode_from_env(t), default_mode(t)) << t;
  }
}

// Note [Default mutator per target]: structure-aware where it was measured better, bytes elsewhere.
TEST(ScenarioMutator, DefaultModeIsScenarioWhereMeasuredBetter) {
  EXPECT_EQ(default_mode("ops_differential_fuzzer"), Mode::Scenario);
  EXPECT_EQ(default_mode("gradients_api_fuzzer"), Mode::Scenario);
  EXPECT_EQ(default_mode("grad_replace_fuzzer"), Mode::Scenario);
  EXPECT_EQ(default_mode("op_args_fuzzer"), Mode::Scenario);
  EXPECT_EQ(default_mode("tensor_data_fuzzer"), Mode::Bytes);  // no schema mutator at all
}

// Canonical encoding is a fixed point for every corpus file (the mutator's "encode back").
TEST(ScenarioMutator, CanonicalEncodingIsStable) {
  for (const std::string &t : kTargets) {
    const ScenarioMutator *m = scenario_mutator_for(t);
    for (const ByteVector &in : corpus(t, 200)) {
      const ByteVector c = m->canonical(in);
      EXPECT_TRUE(m->same_scenario(in, c)) << t;
      EXPECT_EQ(m->canonical(c), c) << t;
    }
  }
}


// value_code answers codebook values directly (Note [value_code answers a codebook value without
// the search]); it must give the code of the plain search over the decoder's codebook, written
// here again: the first bit-exact code, NaN -> 240, else the first code at the least distance.
std::size_t searched_code(double v) {
  std::size_t best = 120;
  double best_err = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < 256; ++c) {
    const double x = value_of_code(c);
    if (std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(v)) return c;
    if (std::isnan(x) && std::isnan(v)) return c;
    if (std::fabs(x - v) < best_err) {
      best_err = std::fabs(x - v);
      best = c;
    }
  }
  return best;
}

TEST(ValueCode, EqualsTheSearchOnTheCodebookEdgesAndRandomDoubles) {
  std::vector<double> values;
  for (std::size_t c = 0; c < 256; ++c) {
    const double x = value_of_code(c);
    values.insert(values.end(), {x, -x, std::nextafter(x, 1e308), std::nextafter(x, -1e308), x + 1.0 / 16});
  }
  const double nan_payload = std::bit_cast<double>(std::uint64_t{0x7ff0000000000123});
  values.insert(values.end(), {0.0, -0.0, nan_payload, -std::numeric_limits<double>::quiet_NaN(), 1e20, -1e20,
                               1e308, -1e308, std::numeric_limits<double>::denorm_min(), -15.0, 14.875, 14.9375,
                               -15.0625, 0.0625, -0.0625, 4096.5, 2e30, 0.1000001});
  std::uint64_t state = 0x9e3779b97f4a7c15;
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const double random_bits = std::bit_cast<double>(state);
    values.push_back(random_bits);
    values.push_back(static_cast<double>(static_cast<std::int64_t>(state % 4001) - 2000) / 64.0);
  }
  for (const double v : values) {
    ASSERT_EQ(value_code(v), searched_code(v)) << "v = " << v << " (bits 0x" << std::hex
                                               << std::bit_cast<std::uint64_t>(v) << ")";
  }
}

}  // namespace
}  // namespace crossgrad::fuzz::mutate
