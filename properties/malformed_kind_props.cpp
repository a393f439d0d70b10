// Every op of the Dispatch API given every kind (issue 10, item 4): each operand takes each cell of
// (tested backend x primitive Float/Int/Bool/Quantized/Autodiff x autodiff depth 0..2), literally,
// not sampled. Expected outcomes:
// - float ops, reductions, reshape, swap_dims, to_device, cast, quantize: the oracle's op probe
//   (oracle/op_probe.hpp: exact catalog id and message, or success);
// - grad / grad_remove / backward / inner / from_inner: the oracle's receiver expectations;
// - the data accessors and dequantize, which the oracle has no expectation for: the rule below,
//   written here from the catalog entry op-kind-mismatch ("{op} needs a tensor of kind
//   {expected}, got {kind:?}.", the kind rendered by the oracle's independent renderer, {op} the
//   Dispatch member's name):
//     float_into_data / float_shape / float_dtype / float_device accept exactly the float kinds
//       B(Float(..)) and Autodiff(B(Autodiff(..)));
//     int_into_data / bool_into_data / dequantize accept B(P(..)) and Autodiff(B(P(..))) for
//       P = Int / Bool / Quantized (Burn's autodiff leaves int, bool and quantized tensors
//       untracked inside Autodiff(..): data_api.cpp, catalog entry `unreachable`);
//     anything else: op-kind-mismatch naming the op and the expected kind.
// - float/int/bool_from_data given data of every dtype on every device kind (plain, Autodiff,
//   Autodiff(Autodiff)): data of another kind -> data-kind-mismatch "{op} needs {float|int|bool}
//   data, got dtype {D}." (checked first, catalog); else a nested autodiff device ->
//   autodiff-wraps-autodiff; else success, float data on an autodiff device tracked
//   (Autodiff(B(Autodiff))), int and bool data Autodiff(B(Int|Bool)).
#include "gen/kind_cells.hpp"

#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/op_probe.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>

using namespace crossgrad;
namespace og = crossgrad::oracle;

namespace {

using Cell = properties::gen::KindCell;
using properties::gen::kind_cells;

// Positive values, so log / sqrt / pow stay finite and every probe without a fault succeeds.
og::DispatchSpec spec(const Cell& c, std::vector<std::size_t> shape) {
  std::vector<double> values(og::element_count(shape));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * static_cast<double>(i + 1);
  return properties::gen::kind_cell_spec(c, std::move(shape), std::move(values));
}

// Counts cases and keeps the first few failures, so one broken rule does not print thousands.
class Tally {
 public:
  explicit Tally(std::string name) : name_(std::move(name)) {}
  ~Tally() {
    std::cout << "[malformed-kinds] " << name_ << ": " << cases_ << " cases, " << failures_ << " failures\n";
    EXPECT_EQ(failures_, 0u) << first_;
  }
  void add(const std::optional<std::string>& failure) {
    ++cases_;
    if (!failure) return;
    if (failures_++ < 12) first_ += "\n  " + *failure;
  }

 private:
  std::string name_;
  std::size_t cases_ = 0, failures_ = 0;
  std::string first_;
};

og::OpProbe probe(og::OpProbe::Kind kind, og::DispatchSpec lhs) {
  og::OpProbe p;
  p.kind = kind;
  p.lhs = std::move(lhs);
  return p;
}

}  // namespace

TEST(MalformedKinds, BinaryOpsOnEveryPairOfKinds) {
  Tally tally("binary ops x lhs kind x rhs kind");
  for (og::Op op : {og::Op::float_add, og::Op::float_sub, og::Op::float_mul, og::Op::float_div, og::Op::float_matmul}) {
    for (const Cell& l : kind_cells()) {
      for (const Cell& r : kind_cells()) {
        og::OpProbe p = probe(og::OpProbe::Kind::Binary, spec(l, {2, 3}));
        p.op = op;
        p.rhs = spec(r, op == og::Op::float_matmul ? std::vector<std::size_t>{3, 2} : std::vector<std::size_t>{2, 3});
        tally.add(og::check_op_probe(p));
      }
    }
  }
}

TEST(MalformedKinds, UnaryOpsOnEveryKind) {
  Tally tally("unary ops x kind");
  for (og::Op op : {og::Op::float_neg, og::Op::float_exp, og::Op::float_log, og::Op::float_sqrt, og::Op::float_tanh, og::Op::relu, og::Op::sigmoid,
                    og::Op::float_powf_scalar, og::Op::float_add_scalar, og::Op::float_mul_scalar, og::Op::float_sum, og::Op::float_mean}) {
    for (const Cell& c : kind_cells()) {
      og::OpProbe p = probe(og::OpProbe::Kind::Unary, spec(c, {2, 3}));
      p.op = op;
      tally.add(og::check_op_probe(p));
    }
  }
}

// Dims in and out of range: the kind is checked before the dim.
TEST(MalformedKinds, ReductionsReshapeSwapDimsCastQuantizeOnEveryKind) {
  Tally tally("sum_dim/mean_dim/swap_dims/reshape/cast/quantize x kind");
  using K = og::OpProbe::Kind;
  for (const Cell& c : kind_cells()) {
    for (K kind : {K::SumDim, K::MeanDim}) {
      for (std::size_t dim : {0u, 1u, 2u}) {
        og::OpProbe p = probe(kind, spec(c, {2, 3}));
        p.dim = dim;
        tally.add(og::check_op_probe(p));
      }
    }
    for (auto [d0, d1] : {std::pair<std::size_t, std::size_t>{0, 1}, {1, 1}, {0, 2}}) {
      og::OpProbe p = probe(K::SwapDims, spec(c, {2, 3}));
      p.dim = d0;
      p.dim1 = d1;
      tally.add(og::check_op_probe(p));
    }
    for (const auto& to : {std::vector<std::size_t>{6}, std::vector<std::size_t>{3, 2}, std::vector<std::size_t>{5}}) {
      og::OpProbe p = probe(K::Reshape, spec(c, {2, 3}));
      p.to_shape = to;
      tally.add(og::check_op_probe(p));
    }
    for (DType dtype : {DType::F32, DType::F64, DType::I64, DType::Bool}) {
      og::OpProbe p = probe(K::Cast, spec(c, {2, 3}));
      p.dtype = dtype;
      tally.add(og::check_op_probe(p));
    }
    tally.add(og::check_op_probe(probe(K::Quantize, spec(c, {2, 3}))));
  }
}

TEST(MalformedKinds, ToDeviceOfEveryKindToEveryDeviceKind) {
  Tally tally("to_device x kind x target backend x {plain, Autodiff, Autodiff(Autodiff)}");
  for (const Cell& c : kind_cells()) {
    for (std::size_t target : properties::gen::tested_backend_indices()) {
      for (int mode = 0; mode < 3; ++mode) {
        og::OpProbe p = probe(og::OpProbe::Kind::ToDevice, spec(c, {2, 3}));
        p.target_backend = target;
        p.target_tracked = mode == 1;
        p.target_nested = mode == 2;
        tally.add(og::check_op_probe(p));
      }
    }
  }
}

TEST(MalformedKinds, AutodiffOpsOnEveryKind) {
  Tally tally("grad/grad_remove/backward/inner/from_inner x kind");
  for (const Cell& c : kind_cells()) {
    for (og::ReceiverOp op : {og::ReceiverOp::Grad, og::ReceiverOp::GradRemove, og::ReceiverOp::Backward, og::ReceiverOp::Inner}) {
      Gradients grads;
      tally.add(og::check_receiver(op, spec(c, {2, 2}), grads));
    }
    tally.add(og::check_from_inner(spec(c, {2, 2})));
  }
}

// ---- the rule written here: data accessors and dequantize --------------------------------------

namespace {

struct Accessor {
  const char* name;
  const char* expected_kind;
  std::function<TensorData(const DispatchTensor&)> run;  // returns the data it read (or a stand-in)
};

TensorData dims_data(const std::vector<std::size_t>& dims) {
  return TensorData::from_i64(std::vector<std::int64_t>(dims.begin(), dims.end()), {dims.size()});
}
TensorData text_data(const std::string& text) {
  return TensorData::from_u8(std::vector<std::uint8_t>(text.begin(), text.end()), {text.size()});
}

const std::vector<Accessor>& accessors() {
  static const std::vector<Accessor> v = {
      {"float_into_data", "Float", [](const DispatchTensor& t) { return Dispatch::float_into_data(t); }},
      {"float_shape", "Float", [](const DispatchTensor& t) { return dims_data(Dispatch::float_shape(t).dims()); }},
      {"float_dtype", "Float",
       [](const DispatchTensor& t) { return TensorData::from_i64({static_cast<std::int64_t>(Dispatch::float_dtype(t))}, {1}); }},
      {"float_device", "Float", [](const DispatchTensor& t) { return text_data(Dispatch::float_device(t).to_string()); }},
      {"int_into_data", "Int", [](const DispatchTensor& t) { return Dispatch::int_into_data(t); }},
      {"bool_into_data", "Bool", [](const DispatchTensor& t) { return Dispatch::bool_into_data(t); }},
      {"dequantize", "Quantized", [](const DispatchTensor& t) { return Dispatch::float_into_data(Dispatch::dequantize(t)); }},
  };
  return v;
}

bool accepts(const Accessor& a, const og::KindSpec& k) {
  const std::string want = a.expected_kind;
  if (want == "Float") {
    return (k.autodiff_depth == 0 && k.leaf.primitive == PrimitiveKind::Float) ||
           (k.autodiff_depth == 1 && k.leaf.primitive == PrimitiveKind::Autodiff);
  }
  const PrimitiveKind p = want == "Int" ? PrimitiveKind::Int : want == "Bool" ? PrimitiveKind::Bool : PrimitiveKind::Quantized;
  return k.autodiff_depth <= 1 && k.leaf.primitive == p;
}

// What a successful accessor must have read, from the spec alone.
TensorData expected_read(const Accessor& a, const og::DispatchSpec& s) {
  const std::string name = a.name;
  const og::TensorSpec& leaf = s.kind.leaf;
  if (name == "float_shape") return dims_data(leaf.shape);
  if (name == "float_dtype") return TensorData::from_i64({static_cast<std::int64_t>(leaf.dtype)}, {1});
  if (name == "float_device") return text_data(og::dispatch_device(leaf.backend, leaf.device, s.kind.autodiff_depth == 1).to_string());
  return og::leaf_data(leaf);
}

// dequantize gives F32 values of the leaf's shape, each within half a quantization step
// (max|x| / 127 / 2) of the value that was quantized.
bool dequantized_close(const TensorData& read, const og::TensorSpec& leaf) {
  if (read.dtype() != DType::F32 || !(read.shape() == Shape(leaf.shape))) return false;
  const std::vector<double> v = og::effective_values(leaf);
  double max_abs = 0;
  for (double x : v) max_abs = std::max(max_abs, std::fabs(x));
  const double half_step = max_abs / 127.0 / 2.0 * (1 + 1e-5);
  const std::vector<float> got = read.to_f32();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(std::fabs(static_cast<double>(got[i]) - v[i]) <= half_step)) return false;
  }
  return true;
}

}  // namespace

TEST(MalformedKinds, DataAccessorsAndDequantizeOnEveryKind) {
  Tally tally("float_into_data/float_shape/float_dtype/float_device/int_into_data/bool_into_data/dequantize x kind");
  for (const Accessor& a : accessors()) {
    for (const Cell& c : kind_cells()) {
      const og::DispatchSpec s = spec(c, {2, 3});
      const DispatchTensor t = og::build(s);
      const og::Outcome got = og::outcome_of([&] { (void)a.run(t); });
      const std::string where = std::string(a.name) + "(" + og::describe(s) + "): ";
      if (accepts(a, s.kind)) {
        if (!got.ok()) {
          tally.add(where + "expected success, got " + og::describe(got));
          continue;
        }
        const TensorData read = a.run(t);
        const bool same = std::string(a.name) == "dequantize" ? dequantized_close(read, s.kind.leaf) : read == expected_read(a, s);
        tally.add(same ? std::nullopt : std::optional<std::string>(where + "read other data than the tensor holds"));
        continue;
      }
      const og::Outcome want = og::Outcome::panic("op-kind-mismatch", std::string(a.name) + " needs a tensor of kind " +
                                                                          a.expected_kind + ", got " +
                                                                          og::render_kind(s.kind, og::node_of(t.kind)) + ".");
      tally.add(got == want ? std::nullopt : std::optional<std::string>(where + "expected " + og::describe(want) + ", got " + og::describe(got)));
    }
  }
}

TEST(MalformedKinds, FromDataOfEveryDtypeOnEveryDeviceKind) {
  Tally tally("float/int/bool_from_data x dtype x backend x {plain, Autodiff, Autodiff(Autodiff)}");
  struct Maker {
    const char* name;
    const char* word;
    DTypeCategory category;
    PrimitiveKind primitive;
    DispatchTensor (*run)(const TensorData&, const DispatchDevice&);
  };
  const Maker makers[] = {{"float_from_data", "float", DTypeCategory::Float, PrimitiveKind::Float, &Dispatch::float_from_data},
                          {"int_from_data", "int", DTypeCategory::Int, PrimitiveKind::Int, &Dispatch::int_from_data},
                          {"bool_from_data", "bool", DTypeCategory::Bool, PrimitiveKind::Bool, &Dispatch::bool_from_data}};
  const std::vector<std::pair<DType, TensorData>> data = {
      {DType::F64, TensorData::from_f64({1, 2}, {2})}, {DType::F32, TensorData::from_f32({1, 2}, {2})},
      {DType::I64, TensorData::from_i64({1, 2}, {2})}, {DType::I32, TensorData::from_i32({1, 2}, {2})},
      {DType::I8, TensorData::from_i8({1, 2}, {2})},   {DType::U8, TensorData::from_u8({1, 2}, {2})},
      {DType::Bool, TensorData::from_bool({true, false}, {2})},
      {DType::QInt8, TensorData::from_bytes(std::vector<std::byte>{std::byte{1}, std::byte{2}}, {2}, DType::QInt8)}};
  for (const Maker& m : makers) {
    for (const auto& [dtype, d] : data) {
      for (std::size_t b : properties::gen::tested_backend_indices()) {
        for (int mode = 0; mode < 3; ++mode) {
          DispatchDevice device = og::dispatch_device(b, og::all_backends().at(b).default_device, mode >= 1);
          if (mode == 2) device = DispatchDevice::Autodiff(device);
          std::optional<DispatchTensor> t;
          const og::Outcome got = og::outcome_of([&] { t = m.run(d, device); });
          const std::string where = std::string(m.name) + "(" + og::render_dtype(dtype) + " data, " + device.to_string() + "): ";
          og::Outcome want = og::Outcome::success();
          if (dtype_category(dtype) != m.category) {
            want = og::Outcome::panic("data-kind-mismatch", std::string(m.name) + " needs " + m.word + " data, got dtype " +
                                                                og::render_dtype(dtype) + ".");
          } else if (mode == 2) {
            want = og::Outcome::panic("autodiff-wraps-autodiff", "Autodiff should not wrap an autodiff tensor.");
          }
          if (!(got == want)) {
            tally.add(where + "expected " + og::describe(want) + ", got " + og::describe(got));
            continue;
          }
          if (!got.ok()) {
            tally.add(std::nullopt);
            continue;
          }
          // Structure: float data on an autodiff device is tracked; int and bool data stay
          // their primitive inside Autodiff(..).
          const bool tracked_float = mode == 1 && m.primitive == PrimitiveKind::Float;
          const PrimitiveKind want_primitive = tracked_float ? PrimitiveKind::Autodiff : m.primitive;
          const bool ok = og::autodiff_depth_of(t->kind) == static_cast<std::size_t>(mode) && og::backend_of(t->kind) == b &&
                          og::primitive_of(t->kind) == want_primitive;
          tally.add(ok ? std::nullopt : std::optional<std::string>(where + "built the wrong kind structure"));
        }
      }
    }
  }
}
