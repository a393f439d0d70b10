// Every registry op on the engine's CPU and GPU backends (NdArray, Flex, Cuda where available)
// against PyTorch: ATen's op for the value, PyTorch's own autograd for the gradients (Note [PyTorch
// is the second opinion], oracle/torch/). One test per op (kOps: a new op is judged with no edit
// here), over the same random cases as the reference-evaluator properties (gen/op_cases.hpp):
// specials, ties, empty dims, broadcasting, F32 and F64, and every other case with ATen's operands
// given as non-contiguous views. Cases with an invalid argument (the oracle's reference names a
// catalog panic) are counted and not compared. An element may disagree only where a documented
// difference (docs/OPS.md, "Documented differences from PyTorch") recognises it; anything else
// fails, naming the op, the inputs and both values. At exit the counts per op are printed.
#include "gen/op_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/pytorch_differences.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/torch_reference.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

constexpr int kCasesPerOp = 500;

struct Counts {
  std::size_t compared = 0, invalid = 0, elements = 0;
  std::map<std::string, std::size_t> excused;  // difference id -> elements
};
std::map<std::string, Counts>& counts() {
  static std::map<std::string, Counts> c;
  return c;
}

// The engine backends this check judges: the reference and the kernels written here.
std::vector<std::size_t> judged_backends() {
  std::vector<std::size_t> out;
  for (const og::BackendRef& b : og::all_backends()) {
    if (b.available && (b.name == "NdArray" || b.name == "Flex" || b.name == "Cuda")) out.push_back(b.index);
  }
  return out;
}

bool same_bits(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
}

// Within the oracle's bound for the op: classes equal for non-finite values (or allowed to change
// by the bound's flags), finite ones within abs + rel * |torch|; exact ops bit for bit.
bool agrees(double mine, double theirs, const og::Bound& b) {
  if (b.exact) return same_bits(mine, theirs);
  if (std::isnan(mine) || std::isnan(theirs) || std::isinf(mine) || std::isinf(theirs)) {
    if (b.overflow_may_change_class && (!std::isfinite(mine) || !std::isfinite(theirs))) return true;
    return same_bits(mine, theirs) || (std::isnan(mine) && std::isnan(theirs));
  }
  return std::fabs(mine - theirs) <= b.abs + b.rel * std::fabs(theirs);
}

double largest_finite(const og::HostArray& h) {
  double m = 0;
  for (double v : h.values) if (std::isfinite(v)) m = std::fmax(m, std::fabs(v));
  return m;
}

// An upper bound on |d result / d operand| over the elements, for the terms a broadcast
// operand's gradient sums (their sum may cancel, so the summed gradient's size says nothing):
// 1 (add, sub), the other operand (mul), 1 / |b| and |y| / |b| (div), else the operands and result.
double largest_partial(const gen::OpCase& c, const og::HostArray& value) {
  double m = std::max(1.0, largest_finite(value));
  for (const og::HostArray& h : c.operands) m = std::max(m, largest_finite(h));
  if (c.op == OpId::float_div && c.operands.size() == 2) {
    double smallest = std::numeric_limits<double>::infinity();
    for (double b : c.operands[1].values) if (b != 0 && std::isfinite(b)) smallest = std::min(smallest, std::fabs(b));
    if (std::isfinite(smallest)) m *= std::max(1.0, 1 / smallest);
  }
  return m;
}

// Powers of two: multiplying by them is exact, so the gradient reaching the op is the cotangent.
og::HostArray cotangent_for(const og::HostArray& value) {
  og::HostArray c{value.shape, value.dtype, {}};
  for (std::size_t i = 0; i < value.values.size(); ++i) {
    c.values.push_back(*rc::gen::elementOf(std::vector<double>{1.0, -1.0, 0.5, 2.0, -0.25}));
  }
  return c;
}

struct Run {
  og::HostArray value;
  std::vector<std::optional<og::HostArray>> gradients;
};

// The engine: the op, then sum(result * cotangent) backward, on a tracked device.
Run run_engine(const gen::OpCase& c, const og::HostArray* cotangent, OpKind result) {
  Run r;
  std::vector<DispatchTensor> t;
  for (const og::HostArray& h : c.operands) t.push_back(upload(h, c.backend, c.tracked));
  const DispatchTensor y = call_op(c.op, t, c.args);
  r.value = og::HostArray{{}, c.operands.empty() ? DType::F32 : c.operands[0].dtype, values_of(result, y)};
  r.gradients.resize(c.operands.size());
  if (!cotangent) return r;
  const DispatchTensor ct = upload(*cotangent, c.backend, true);
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, ct)));
  for (std::size_t i = 0; i < t.size(); ++i) {
    const og::HostArray& h = c.operands[i];
    if (h.dtype != DType::F32 && h.dtype != DType::F64) continue;
    const auto g = Dispatch::grad(t[i], grads);
    r.gradients[i] = og::HostArray{h.shape, h.dtype,
                                   g ? Dispatch::float_into_data(*g).to_f64() : std::vector<double>(og::element_count(h.shape), 0.0)};
  }
  return r;
}

void compare(const gen::OpCase& c, int output, const std::vector<double>& mine, const og::HostArray& theirs,
             const og::HostArray* cotangent, const og::Bound& bound, Counts& n, const std::string& where) {
  if (mine.size() != theirs.values.size()) {
    RC_FAIL(where + "\n  " + (output < 0 ? "value" : "gradient " + std::to_string(output)) + ": " +
            std::to_string(mine.size()) + " elements, PyTorch " + gen::show(theirs));
  }
  for (std::size_t i = 0; i < mine.size(); ++i) {
    ++n.elements;
    if (agrees(mine[i], theirs.values[i], bound)) continue;
    const double cot = cotangent && output >= 0 && i < cotangent->values.size() ? cotangent->values[i] : 0.0;
    const og::Disagreement d{c.op, c.operands, c.args, output, i, cot, mine[i], theirs.values[i]};
    const std::string_view id = og::documented_difference(d);
    if (!id.empty()) {
      ++n.excused[std::string(id)];
      continue;
    }
    RC_FAIL(where + "\n  " + (output < 0 ? std::string("value") : "gradient of operand " + std::to_string(output)) +
            " element " + std::to_string(i) + ": crossgrad " + gen::show(mine[i]) + ", PyTorch " + gen::show(theirs.values[i]) +
            (bound.exact ? " (exact op: bit for bit)" : "") + "\n  crossgrad " +
            gen::show(og::HostArray{theirs.shape, theirs.dtype, mine}) + "\n  PyTorch   " + gen::show(theirs));
  }
}

void check_case(gen::OpCase c, std::size_t case_index) {
  const std::vector<std::size_t> backends = judged_backends();
  c.backend = backends[case_index % backends.size()];
  const OpInfo& info = op_info(c.op);
  const bool with_gradients = info.rule == OpRule::Backward;
  c.tracked = with_gradients || c.tracked;
  Counts& n = counts()[std::string(info.name)];
  const og::ReferenceResult ref = og::reference_op(c.op, c.operands, c.args);
  if (ref.panic_id) {
    ++n.invalid;
    return;
  }
  ++n.compared;
  const bool strided = case_index % 2 == 1;
  const og::HostArray cot = cotangent_for(ref.value);
  const og::TorchResult torch = og::torch_reference(c.op, c.operands, c.args, with_gradients ? &cot : nullptr, strided);
  const std::string where = gen::describe(c) + (strided ? "\n  (ATen operands non-contiguous)" : "");
  if (torch.error) {
    const og::Disagreement refused{c.op, c.operands, c.args, og::kRefused, 0, 0, 0, 0};
    const std::string_view id = og::documented_difference(refused);
    if (id.empty()) RC_FAIL(where + "\n  PyTorch refused inputs crossgrad accepts: " + *torch.error);
    ++n.excused[std::string(id)];
    return;
  }
  const Run mine = run_engine(c, with_gradients ? &cot : nullptr, info.result);
  const DType dtype = c.operands.empty() ? DType::F32 : c.operands[0].dtype;
  const double magnitude = largest_finite(c.operands.empty() ? og::HostArray{} : c.operands[0]) *
                           (c.op == OpId::float_matmul ? largest_finite(c.operands[1]) : 1.0);
  og::Bound bound = og::bound_for(c.op, dtype, og::reference_reduction_length(c.op, c.operands, c.args), magnitude);
  if (info.result != OpKind::Float) bound = og::Bound{};  // ints and bools: exact
  compare(c, -1, mine.value.values, torch.value, nullptr, bound, n, where);
  if (!with_gradients) return;
  for (std::size_t k = 0; k < c.operands.size(); ++k) {
    if (!torch.gradients[k] || !mine.gradients[k]) continue;
    // A gradient is the op's partial times the cotangent (a power of two: exact), summed over the
    // dims the operand was broadcast along: bit for bit where the value is exact and nothing was
    // summed; otherwise the value's bound with room for one more rounding, plus the bound of a sum
    // of `folded` terms (crossgrad sums in double, ATen in the dtype).
    const std::size_t folded = std::max<std::size_t>(1, og::element_count(ref.value.shape)) /
                               std::max<std::size_t>(1, og::element_count(c.operands[k].shape));
    og::Bound grad_bound = bound;
    if (!bound.exact || folded > 1) {
      const og::Bound sum = og::bound_for(OpId::float_sum, dtype, std::max<std::size_t>(1, folded),
                                          largest_finite(cot) * largest_partial(c, ref.value));
      grad_bound.exact = false;
      grad_bound.rel = 2 * bound.rel + sum.rel + 4 * og::epsilon_of(dtype);
      grad_bound.abs = 2 * bound.abs + sum.abs;
      grad_bound.overflow_may_change_class = bound.overflow_may_change_class || sum.overflow_may_change_class;
    }
    compare(c, static_cast<int>(k), mine.gradients[k]->values, *torch.gradients[k], &cot, grad_bound, n, where);
  }
}

class TorchDifferential : public ::testing::TestWithParam<OpId> {};

std::vector<OpId> registry_ops() {
  std::vector<OpId> ops;
  for (const OpInfo& info : kOps) ops.push_back(info.id);
  return ops;
}

// Prints the counts once every test has run.
class CountReport : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("torch differential (ATen threads %d): op: cases compared, invalid (catalog panic, not compared), elements; excused per documented difference\n",
                og::torch_threads());
    std::size_t cases = 0, excused = 0;
    for (const auto& [op, n] : counts()) {
      std::string ex;
      for (const auto& [id, k] : n.excused) {
        ex += " " + id + "=" + std::to_string(k);
        excused += k;
      }
      std::printf("  %-22s %4zu compared, %3zu invalid, %6zu elements;%s\n", op.c_str(), n.compared, n.invalid, n.elements,
                  ex.empty() ? " none excused" : ex.c_str());
      cases += n.compared;
    }
    std::printf("torch differential: %zu ops, %zu cases compared, %zu elements excused by a documented difference\n",
                counts().size(), cases, excused);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new CountReport);

// The rows of docs/OPS.md's "Documented differences from PyTorch" table: their ids.
std::set<std::string> documented_ids() {
  std::ifstream in(std::string(CROSSGRAD_SOURCE_DIR) + "/docs/OPS.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  const std::size_t begin = md.find("## Documented differences from PyTorch");
  std::set<std::string> ids;
  if (begin == std::string::npos) return ids;
  const std::size_t end = md.find("\n## ", begin + 1);
  const std::string section = md.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const std::regex row(R"(\n\| `([a-z0-9-]+)` \|)");
  for (std::sregex_iterator it(section.begin(), section.end(), row), e; it != e; ++it) ids.insert((*it)[1]);
  return ids;
}

}  // namespace

TEST_P(TorchDifferential, EngineEqualsPyTorch) {
  const OpId op = GetParam();
  std::size_t index = 0;
  check_property([op, &index] { check_case(gen::op_case(op), index++); }, kCasesPerOp);
}

INSTANTIATE_TEST_SUITE_P(Registry, TorchDifferential, ::testing::ValuesIn(registry_ops()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

// Each predicate that may excuse a disagreement is a row of the docs table, and each row a predicate.
TEST(TorchDifferential, DocumentedDifferencesAreTheTableInOpsMd) {
  std::set<std::string> in_code;
  for (const og::PyTorchDifference& d : og::pytorch_differences()) in_code.insert(std::string(d.id));
  EXPECT_EQ(in_code, documented_ids()) << "docs/OPS.md \"Documented differences from PyTorch\" and "
                                          "oracle/torch/src/pytorch_differences.cpp must list the same ids";
}
