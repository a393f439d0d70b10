// The oracle's allocation shortcuts (issue 13, item 1) give the answers of the long way round:
// compare(expected, grads) is compare(expected, snapshot(grads)), message included; run_graph on a
// NormalizedGraph, with or without leaf values passed in, is run_graph on the spec those make.
#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/snapshot.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {
namespace {

using backends::NdArray;

AnyTensor f32(std::vector<float> values) {
  const std::size_t n = values.size();
  return AnyTensor{NdArray::from_data(TensorData::from_f32(std::move(values), Shape{n}), NdArray::default_device())};
}

Gradients two_entries() {
  Gradients g;
  g.register_grad(NodeId{11}, f32({1.0f, 2.0f}));
  g.register_grad(NodeId{12}, f32({-0.0f}));
  return g;
}

// Both forms, and they must agree to the character.
std::optional<std::string> both(const GradientsSnapshot& expected, const Gradients& actual) {
  const std::optional<std::string> long_way = compare(expected, snapshot(actual));
  const std::optional<std::string> short_way = compare(expected, actual);
  EXPECT_EQ(long_way, short_way);
  return short_way;
}

TEST(OracleShortcuts, CompareWithTheContainerIsCompareWithItsSnapshot) {
  const Gradients grads = two_entries();
  const GradientsSnapshot same = snapshot(grads);
  EXPECT_EQ(both(same, grads), std::nullopt);

  GradientsSnapshot missing = same;
  missing.emplace(13, snapshot_of(f32({3.0f})));
  const auto m = both(missing, grads);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, "entry NodeId(13) is missing");

  GradientsSnapshot changed = same;
  changed.at(12) = snapshot_of(f32({0.0f}));  // +0.0 against the stored -0.0: bitwise, a change
  const auto c = both(changed, grads);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rfind("entry NodeId(12) changed: ", 0), 0u) << *c;

  GradientsSnapshot fewer = same;
  fewer.erase(11);
  const auto u = both(fewer, grads);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->rfind("unexpected entry NodeId(11): ", 0), 0u) << *u;

  EXPECT_EQ(both(GradientsSnapshot{}, Gradients{}), std::nullopt);
}

// Note [Entries compared in place]: a host tensor matches its snapshot in place only when the
// backend, device, shape, dtype and every byte agree; entries that share their bytes and differ
// in anything else are reported, as the long way reports them.
TEST(OracleShortcuts, AnEntryMatchesInPlaceOnlyWhenEverythingAgrees) {
  Gradients grads;
  grads.register_grad(NodeId{1}, f32({0.0f, 0.0f}));
  const GradientsSnapshot same = snapshot(grads);
  EXPECT_EQ(both(same, grads), std::nullopt);

  const auto changes = [&](const TensorData& data, const char* what) {
    GradientsSnapshot other = same;
    other.at(1).data = data;
    const auto d = both(other, grads);
    ASSERT_TRUE(d.has_value()) << what;
    EXPECT_EQ(d->rfind("entry NodeId(1) changed: ", 0), 0u) << what << ": " << *d;
  };
  changes(TensorData::from_f32({0.0f, 0.0f}, Shape{1, 2}), "same bytes, another shape");
  changes(TensorData::from_i32({0, 0}, Shape{2}), "same shape and bytes, another dtype");
  changes(TensorData::from_f32({0.0f, 1e-45f}, Shape{2}), "one bit of the last element");

  GradientsSnapshot other_backend = same;
  other_backend.at(1).backend = same.at(1).backend + 1;
  ASSERT_TRUE(both(other_backend, grads).has_value());
  GradientsSnapshot other_device = same;
  other_device.at(1).device.index = 1;
  ASSERT_TRUE(both(other_device, grads).has_value());

  Gradients empty_entry;
  empty_entry.register_grad(NodeId{2}, f32({}));
  EXPECT_EQ(both(snapshot(empty_entry), empty_entry), std::nullopt);
}

std::vector<double> root_values(const GraphRun& run) { return Dispatch::float_into_data(run.root()).to_f64(); }

GraphSpec two_leaf_graph() {
  GraphSpec g;
  g.backend = reference_backend();
  g.dtype = DType::F64;
  g.leaf_shapes = {{2, 3}, {3}};
  g.leaf_values = {{1, -2, 3, -4, 5, -6}, {}};
  g.ops = {OpSpec{Op::float_mul, 0, 1, 1.0, 0, 0}, OpSpec{Op::float_add, 2, 0, 1.0, 0, 0}};
  return g;
}

TEST(OracleShortcuts, RunGraphOnANormalizedGraphIsRunGraphOnTheSpec) {
  const GraphSpec spec = two_leaf_graph();
  const NormalizedGraph ng(spec);
  EXPECT_EQ(ng.spec(), normalized(spec));
  EXPECT_EQ(root_values(run_graph(ng, reference_backend(), DType::F64, false)),
            root_values(run_graph(spec, reference_backend(), DType::F64, false)));
}

TEST(OracleShortcuts, LeafValuesPassedInAreTheSpecWithThoseValues) {
  const GraphSpec spec = two_leaf_graph();
  const NormalizedGraph ng(spec);
  const std::vector<std::vector<double>> values = {{0.5, 1, 1.5, 2, 2.5, 3}, {7, -8, 9}};
  GraphSpec with = spec;
  with.leaf_values = values;
  EXPECT_EQ(root_values(run_graph(ng, reference_backend(), DType::F64, false, Hops::Ignore, &values)),
            root_values(run_graph(with, reference_backend(), DType::F64, false)));
  // An entry of the wrong size, or a missing one, is the deterministic fill, as normalized() has it.
  const std::vector<std::vector<double>> short_values = {{1, 2}};
  GraphSpec filled = spec;
  filled.leaf_values = {{1, 2}, {}};
  EXPECT_EQ(root_values(run_graph(ng, reference_backend(), DType::F64, false, Hops::Ignore, &short_values)),
            root_values(run_graph(filled, reference_backend(), DType::F64, false)));
  EXPECT_NE(root_values(run_graph(ng, reference_backend(), DType::F64, false, Hops::Ignore, &values)),
            root_values(run_graph(ng, reference_backend(), DType::F64, false)));
}

}  // namespace
}  // namespace crossgrad::oracle
