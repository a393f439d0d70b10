// Every registry op (ops/op_list.hpp, kOps) called through Dispatch on every available backend,
// with a plain and a tracked receiver, and its result checked against what op_info says: the
// primitive kind (Float / Int / Bool), the tracked-ness its Rule gives it (Backward ->
// Autodiff(B(Autodiff)), None -> Autodiff(B(Int|Bool)) with a checkpointing strategy, Leaf -> a
// fresh tracked leaf with no graph behind it), the receiver's backend and the dtype rule. Backward
// ops on tracked receivers must give the receiver leaf a gradient of its shape.
//
// The call is registry_op_calls.hpp's switch over OpId with no default: an op added to
// CROSSGRAD_OPS without a case there fails the build. Everything else is read from kOps.
// Also: the oracle's graph ops are exactly the float -> float Backward ops except float_cast, and
// the oracle names each op as the registry does.
#include "registry_op_calls.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/registry.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
namespace og = oracle;

// A fixed receiver shape and fixed values: positive so log / sqrt / powf stay finite.
const Shape kShape{2, 3};
const std::vector<double> kValues{0.5, 1.25, 2.0, 0.75, 1.5, 3.0};
const std::vector<double> kOther{1.0, 0.25, 2.5, 0.75, 2.0, 0.5};

// One op call: the receiver's backend, tracked-ness and float dtype.
struct Case {
  og::BackendRef backend;
  bool tracked = false;
  DType dtype = DType::F32;

  DispatchDevice device() const { return og::dispatch_device(backend.index, backend.default_device, tracked); }
  std::string describe() const {
    return backend.name + (tracked ? " tracked " : " plain ") + std::string(dtype_name(dtype));
  }
};

DispatchTensor floats(const Case& c, const std::vector<double>& values, const Shape& shape) {
  if (c.dtype == DType::F32) {
    std::vector<float> f(values.begin(), values.end());
    return Dispatch::float_from_data(TensorData::from_f32(std::move(f), shape), c.device());
  }
  return Dispatch::float_from_data(TensorData::from_f64(values, shape), c.device());
}

// The float dtype the conversions and casts target: the other one, so the rule is visible.
DType other_float(DType d) { return d == DType::F32 ? DType::F64 : DType::F32; }

// The receiver of an op: a float tensor, or for the conversions an int / bool tensor.
DispatchTensor receiver(const OpInfo& op, const Case& c) {
  switch (op.operand) {
    case OpKind::Float:
      return floats(c, kValues, kShape);
    case OpKind::Int:
      return Dispatch::int_from_data(TensorData::from_i64({3, -1, 0, 7, 2, -5}, kShape), c.device());
    case OpKind::Bool:
      return Dispatch::bool_from_data(TensorData::from_bool({true, false, false, true, true, false}, kShape), c.device());
  }
  ADD_FAILURE() << "unknown operand kind";
  return floats(c, kValues, kShape);
}

// Calls `op` through Dispatch with valid arguments built from its signature (registry_op_calls.hpp).
DispatchTensor call(OpId op, const DispatchTensor& x, const DispatchTensor& other, const Case& c) {
  const DispatchTensor indices = Dispatch::int_from_data(TensorData::from_i64({2, 0, 2}, {3}), c.device());
  return testing_support::call_registry_op(op, x, other, indices, other_float(c.dtype));
}

PrimitiveKind primitive_of_result(OpKind result, bool tracked) {
  switch (result) {
    case OpKind::Float:
      return tracked ? PrimitiveKind::Autodiff : PrimitiveKind::Float;
    case OpKind::Int:
      return PrimitiveKind::Int;
    case OpKind::Bool:
      return PrimitiveKind::Bool;
  }
  return PrimitiveKind::Float;
}

// The dtype a result must have: I64 for Int, Bool for Bool, and for Float the receiver's float
// dtype, or the target for the ToDType ops (casts and int/bool -> float conversions).
DType expected_dtype(const OpInfo& op, const Case& c) {
  switch (op.result) {
    case OpKind::Int:  // the ToDType ops convert to I32 (registry_op_calls.hpp); an int op keeps its receiver's I64
      return op.sig == OpSig::ToDType ? DType::I32 : DType::I64;
    case OpKind::Bool:
      return DType::Bool;
    case OpKind::Float:
      return op.sig == OpSig::ToDType ? other_float(c.dtype) : c.dtype;
  }
  return c.dtype;
}

DType dtype_of_result(const OpInfo& op, const DispatchTensor& r) {
  switch (op.result) {
    case OpKind::Int:
      return Dispatch::int_into_data(r).dtype();
    case OpKind::Bool:
      return Dispatch::bool_into_data(r).dtype();
    case OpKind::Float:
      return Dispatch::float_dtype(r);
  }
  return DType::F32;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const og::BackendRef& b : og::available_backends()) {
    for (bool tracked : {false, true}) {
      for (DType d : {DType::F32, DType::F64}) out.push_back({b, tracked, d});
    }
  }
  return out;
}

void check_op(const OpInfo& op, const Case& c) {
  SCOPED_TRACE(std::string(op.name) + " on " + c.describe());
  const DispatchTensor x = receiver(op, c);
  const DispatchTensor other = floats(c, kOther, kShape);
  // Ids that exist before the call: a Leaf result must be none of them.
  std::set<std::uint64_t> known_ids;
  for (const DispatchTensor* t : {&x, &other}) {
    if (auto id = og::node_of(t->kind)) known_ids.insert(*id);
  }

  // A backward pass refuses an autodiff device (Rule NotDifferentiable), as Burn's Autodiff<B>.
  if (op.rule == OpRule::NotDifferentiable && c.tracked) {
    try {
      call(op.id, x, other, c);
      ADD_FAILURE() << "no panic on an autodiff device";
    } catch (const Panic& p) {
      EXPECT_EQ(p.id(), PanicId::NotDifferentiable) << p.message();
      EXPECT_EQ(p.message(), "Can't differentiate " + std::string(op.name) + ".");
    }
    return;
  }
  const DispatchTensor r = call(op.id, x, other, c);

  EXPECT_EQ(og::backend_of(r.kind), c.backend.index) << "result on another backend: " << debug(r.kind);
  EXPECT_EQ(og::autodiff_depth_of(r.kind), c.tracked ? 1u : 0u) << debug(r.kind);
  EXPECT_EQ(og::primitive_of(r.kind), primitive_of_result(op.result, c.tracked)) << debug(r.kind);
  EXPECT_EQ(r.checkpointing.has_value(), c.tracked) << "a tracked result carries a strategy, a plain one none";
  EXPECT_EQ(dtype_of_result(op, r), expected_dtype(op, c));
  if (!c.tracked) return;

  switch (op.rule) {
    case OpRule::Backward: {
      const auto receiver_id = og::node_of(x.kind);
      ASSERT_TRUE(receiver_id.has_value());
      const auto result_id = og::node_of(r.kind);
      ASSERT_TRUE(result_id.has_value());
      EXPECT_FALSE(known_ids.count(*result_id)) << "a Backward op returned one of its inputs' nodes";
      const Gradients grads = Dispatch::backward(r);
      const std::optional<DispatchTensor> g = Dispatch::grad(x, grads);
      ASSERT_TRUE(g.has_value()) << "no gradient entry for the receiver leaf";
      EXPECT_EQ(Dispatch::float_shape(*g), kShape);
      EXPECT_EQ(Dispatch::float_dtype(*g), c.dtype);
      break;
    }
    case OpRule::None:
      EXPECT_FALSE(og::node_of(r.kind).has_value()) << "an Int/Bool result carries a node: " << debug(r.kind);
      break;
    case OpRule::NotDifferentiable:  // refused above
      ADD_FAILURE() << "a tracked call of a backward pass returned";
      break;
    case OpRule::Leaf: {
      const auto id = og::node_of(r.kind);
      ASSERT_TRUE(id.has_value()) << debug(r.kind);
      EXPECT_FALSE(known_ids.count(*id)) << "the converted tensor reuses an existing node";
      // A leaf: backward from it reaches nothing but itself.
      const Gradients grads = Dispatch::backward(r);
      EXPECT_EQ(grads.size(), 1u);
      EXPECT_TRUE(grads.contains(NodeId{*id}));
      break;
    }
  }
}

TEST(OpRegistry, EveryOpGivesTheKindBackendAndDtypeItsEntrySays) {
  const std::vector<Case> all = cases();
  ASSERT_FALSE(all.empty()) << "no backend available";
  for (const OpInfo& op : kOps) {
    for (const Case& c : all) check_op(op, c);
  }
}

TEST(OpRegistry, TableIsInOpIdOrder) {
  for (std::size_t i = 0; i < kOpCount; ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kOps[i].id), i) << kOps[i].name;
    EXPECT_EQ(&op_info(kOps[i].id), &kOps[i]);
  }
}

// The Rule follows from the kinds (op_list.hpp's Note): Backward iff Float -> Float; None iff the
// result is Int or Bool; Leaf iff an Int/Bool receiver gives a Float result; NotDifferentiable only
// for the backward passes (Float -> Float).
TEST(OpRegistry, RuleAgreesWithOperandAndResultKinds) {
  for (const OpInfo& op : kOps) {
    SCOPED_TRACE(std::string(op.name));
    switch (op.rule) {
      case OpRule::Backward:
        EXPECT_EQ(op.operand, OpKind::Float);
        EXPECT_EQ(op.result, OpKind::Float);
        break;
      case OpRule::None:
        EXPECT_NE(op.result, OpKind::Float);
        break;
      case OpRule::Leaf:
        EXPECT_NE(op.operand, OpKind::Float);
        EXPECT_EQ(op.result, OpKind::Float);
        break;
      case OpRule::NotDifferentiable:  // a backward pass: float gradients in, a float gradient out
        EXPECT_EQ(op.operand, OpKind::Float);
        EXPECT_EQ(op.result, OpKind::Float);
        EXPECT_TRUE(op.name.ends_with("_backward")) << "only backward passes refuse differentiation";
        break;
    }
  }
}

TEST(OpRegistry, OracleGraphOpsAreTheFloatBackwardOpsButCast) {
  std::vector<OpId> expected;
  for (const OpInfo& op : kOps) {
    if (op.operand == OpKind::Float && op.result == OpKind::Float && op.rule == OpRule::Backward &&
        op.sig != OpSig::ToDType) {
      expected.push_back(op.id);
    }
  }
  // float_cast is the one float -> float Backward op with a ToDType signature.
  EXPECT_EQ(std::count_if(std::begin(kOps), std::end(kOps),
                          [](const OpInfo& op) { return op.rule == OpRule::Backward && op.sig == OpSig::ToDType; }),
            1);
  EXPECT_EQ(op_info(OpId::float_cast).sig, OpSig::ToDType);
  EXPECT_EQ(og::all_ops(), expected);
  for (const OpInfo& op : kOps) EXPECT_EQ(og::is_graph_op(op.id), std::count(expected.begin(), expected.end(), op.id) == 1) << op.name;
}

TEST(OpRegistry, OracleNamesEveryOpAsTheRegistryDoes) {
  for (const OpInfo& op : kOps) {
    EXPECT_TRUE(og::is_op_code(op.id)) << op.name;
    EXPECT_EQ(og::op_name(op.id), op.name);
  }
}

}  // namespace
}  // namespace crossgrad
