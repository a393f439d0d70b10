// Boundary values (issue 10, item 2): every element-wise op, on every available backend, with both
// Flex kernel tables (AVX2/FMA where the CPU has it, and portable), at the edges of its range in
// F32 and F64 (gen/boundary_values.hpp), against the long-double reference of
// boundary_reference.hpp: NaN, infinities and signed zeros as classes, the rest within the ulp
// bounds stated there. Where the derivative is defined, backward through Autodiff too.
//
// Boundary.EveryEdgePointOnEveryBackend walks every table entry in every layout (the whole table,
// every run) and prints the largest errors seen; Boundary.NudgedEdgePoints is the RapidCheck
// property over the same tables with the points moved by up to 2 ulps.
#include "boundary_reference.hpp"
#include "gen/backends.hpp"
#include "gen/boundary_values.hpp"
#include "support/prop.hpp"

// Flex's kernel-table switch (test-facing; not engine API).
#include <crossgrad/backends/flex_tuning.hpp>

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
using gen::EdgeLayout;
using gen::EdgeOp;

namespace {

constexpr double kFiller = 0.5;  // the benign value around a Mixed point (inside every op's easy range)

bool differentiable(EdgeOp op) {
  return op == EdgeOp::Exp || op == EdgeOp::Log || op == EdgeOp::Sqrt || op == EdgeOp::Tanh ||
         op == EdgeOp::Sigmoid || op == EdgeOp::Powf || op == EdgeOp::Neg || op == EdgeOp::Relu;
}

bool is_binary(EdgeOp op) { return op == EdgeOp::Add || op == EdgeOp::Sub || op == EdgeOp::Mul || op == EdgeOp::Div; }

DispatchTensor apply(EdgeOp op, const DispatchTensor& x, double y, const std::optional<DispatchTensor>& rhs) {
  switch (op) {
    case EdgeOp::Exp: return Dispatch::float_exp(x);
    case EdgeOp::Log: return Dispatch::float_log(x);
    case EdgeOp::Sqrt: return Dispatch::float_sqrt(x);
    case EdgeOp::Tanh: return Dispatch::float_tanh(x);
    case EdgeOp::Sigmoid: return Dispatch::sigmoid(x);
    case EdgeOp::Powf: return Dispatch::float_powf_scalar(x, y);
    case EdgeOp::Neg: return Dispatch::float_neg(x);
    case EdgeOp::Relu: return Dispatch::relu(x);
    case EdgeOp::AddScalar: return Dispatch::float_add_scalar(x, y);
    case EdgeOp::MulScalar: return Dispatch::float_mul_scalar(x, y);
    case EdgeOp::Add: return Dispatch::float_add(x, *rhs);
    case EdgeOp::Sub: return Dispatch::float_sub(x, *rhs);
    case EdgeOp::Mul: return Dispatch::float_mul(x, *rhs);
    case EdgeOp::Div: return Dispatch::float_div(x, *rhs);
  }
  return x;
}

template <class T>
TensorData data_of(const std::vector<T>& v) {
  if constexpr (std::is_same_v<T, float>) return TensorData::from_f32(v, {v.size()});
  else return TensorData::from_f64(v, {v.size()});
}
template <class T>
std::vector<T> values_of(const TensorData& d) {
  if constexpr (std::is_same_v<T, float>) return d.to_f32();
  else return d.to_f64();
}

template <class T>
std::string show(T v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", std::is_same_v<T, float> ? 9 : 17, static_cast<double>(v));
  return buf;
}
std::string show_ld(LD v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.21Lg", v);
  return buf;
}

// The elements one call sees: the point in its layout, with fillers around it.
template <class T>
void lay_out(EdgeLayout layout, std::size_t lane, T x, T y, bool binary, std::vector<T>& xs, std::vector<T>& ys) {
  const std::size_t n = layout == EdgeLayout::Alone ? 1 : gen::kBlockLanes;
  xs.assign(n, layout == EdgeLayout::Mixed ? static_cast<T>(kFiller) : x);
  ys.assign(n, layout == EdgeLayout::Mixed && binary ? static_cast<T>(kFiller) : y);
  if (layout == EdgeLayout::Mixed) {
    xs[lane % n] = x;
    ys[lane % n] = y;
  }
}

// Largest error seen per (op, dtype, direction, backend), for the report: in ulps where the ulp
// bound decided, and in eps of the dtype where only the absolute bound held.
struct Worst {
  LD ulps = 0;
  std::string where;
  LD abs_eps = 0;
  std::string abs_where;
  std::size_t flushed = 0;  // results accepted only by `flush` (a subnormal reference, a zero or tiny result)
  std::string flush_where;
};
using WorstTable = std::map<std::string, Worst>;

struct Context {
  std::string backend;
  std::string isa;
};

// Runs one point in one layout on one backend, forward and (where defined) backward; returns the
// first failure, if any, and records the largest errors into `worst`.
template <class T>
std::optional<std::string> check_point(EdgeOp op, const gen::EdgePoint& p, EdgeLayout layout, std::size_t lane,
                                       const oracle::BackendRef& backend, const std::string& isa, WorstTable* worst) {
  const T x = static_cast<T>(p.x), y = static_cast<T>(p.y);
  const bool binary = is_binary(op);
  std::vector<T> xs, ys;
  lay_out(layout, lane, x, y, binary, xs, ys);
  const char* dtype = std::is_same_v<T, float> ? "F32" : "F64";
  auto describe = [&](const char* direction, std::size_t i, LD ref, T got, const Verdict& v) {
    std::ostringstream s;
    s << gen::edge_op_name(op) << " " << direction << " " << dtype << " on " << backend.name << " (" << isa
      << " kernels, " << gen::layout_name(layout) << " layout, element " << i << "): x = " << show(xs[i]);
    if (gen::has_second_value(op)) s << ", y = " << show(ys[i]);
    s << " [" << p.why << "]: expected " << show_ld(ref) << ", got " << show(got) << " (" << v.why
      << (v.ulps > 0 ? ", " + show_ld(v.ulps) + " ulp" : std::string()) << ")";
    return s.str();
  };
  auto record = [&](const char* direction, const Verdict& v, std::size_t i, LD ref, T got) {
    if (worst == nullptr) return;
    const std::string key = std::string(gen::edge_op_name(op)) + " " + dtype + " " + direction + " " + backend.name +
                            (backend.name == "Flex" ? "/" + isa : std::string());
    Worst& w = (*worst)[key];
    const std::string at = "x=" + show(xs[i]) + (gen::has_second_value(op) ? " y=" + show(ys[i]) : std::string());
    if (v.flushed) {
      if (w.flushed++ == 0) w.flush_where = at;
    } else if (v.by_abs) {
      const LD e = std::fabs(static_cast<LD>(got) - ref) / std::numeric_limits<T>::epsilon();
      if (e > w.abs_eps) w.abs_eps = e, w.abs_where = at;
    } else if (v.ulps > w.ulps) {
      w.ulps = v.ulps, w.where = at;
    }
  };

  // Device math (Cuda) has its own documented maxima for a few functions.
  const bool device_math = backend.name == "Cuda";
  auto bound_on = [&](UlpBound b, bool backward) { return device_math ? device_math_bound<T>(b, op, backward) : b; };

  // Forward, on the plain device.
  {
    const DispatchDevice device = oracle::dispatch_device(backend.index, backend.default_device);
    const DispatchTensor in = Dispatch::float_from_data(data_of(xs), device);
    std::optional<DispatchTensor> rhs;
    if (binary) rhs = Dispatch::float_from_data(data_of(ys), device);
    const std::vector<T> got = values_of<T>(Dispatch::float_into_data(apply(op, in, static_cast<double>(y), rhs)));
    if (got.size() != xs.size()) return std::string("wrong result size from ") + gen::edge_op_name(op);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const LD ref = reference_value<T>(op, xs[i], ys[i]);
      const Verdict v = judge<T>(ref, got[i], bound_on(forward_bound<T>(op), false));
      if (!v.ok) return describe("forward", i, ref, got[i], v);
      record("forward", v, i, ref, got[i]);
    }
  }
  // Backward: the gradient of sum(op(x)) is op'(x), where op(x) and op'(x) are defined.
  if (!differentiable(op) || (op == EdgeOp::Powf && !std::isfinite(y))) return std::nullopt;
  const DispatchDevice device = oracle::dispatch_device(backend.index, backend.default_device, /*autodiff=*/true);
  const DispatchTensor leaf = Dispatch::float_from_data(data_of(xs), device);
  const Gradients grads = Dispatch::backward(apply(op, leaf, static_cast<double>(y), std::nullopt));
  const std::optional<DispatchTensor> g = Dispatch::grad(leaf, grads);
  if (!g) return std::string("no gradient for the leaf of ") + gen::edge_op_name(op);
  const std::vector<T> got = values_of<T>(Dispatch::float_into_data(*g));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    // No derivative where the input or op(x) is NaN.
    if (std::isnan(xs[i]) || std::isnan(reference_value<T>(op, xs[i], ys[i]))) continue;
    const LD ref = reference_derivative<T>(op, xs[i], ys[i]);
    if (std::isnan(ref)) continue;
    const Verdict v = judge<T>(ref, got[i], bound_on(backward_bound<T>(op), true), /*signed_zeros=*/false);
    if (!v.ok) return describe("backward", i, ref, got[i], v);
    record("backward", v, i, ref, got[i]);
  }
  return std::nullopt;
}

std::optional<std::string> check_point_any(EdgeOp op, DType dtype, const gen::EdgePoint& p, EdgeLayout layout,
                                           std::size_t lane, const oracle::BackendRef& backend, const std::string& isa,
                                           WorstTable* worst) {
  return dtype == DType::F32 ? check_point<float>(op, p, layout, lane, backend, isa, worst)
                             : check_point<double>(op, p, layout, lane, backend, isa, worst);
}

// Runs f(isa name, backend) for every tested backend with Flex's default kernel table, then for
// Flex alone with the portable one: the table is Flex's, in this process, so no other backend's
// results can depend on it (Remote's server is another process). The default table comes back
// even when f throws (a failing RapidCheck case does).
template <class F>
void for_each_backend_and_flex_isa(F&& f) {
  namespace flex = backends::flex;
  struct Restore {
    ~Restore() { flex::force_portable_kernels(false); }
  } restore;
  flex::force_portable_kernels(false);
  const std::string isa = flex::active_isa();
  const std::vector<oracle::BackendRef> backends = gen::tested_backends();
  for (const oracle::BackendRef& backend : backends) f(isa, backend);
  if (isa == "portable") return;
  flex::force_portable_kernels(true);
  for (const oracle::BackendRef& backend : backends)
    if (backend.name == "Flex") f(std::string("portable"), backend);
}

}  // namespace

TEST(Boundary, EveryEdgePointOnEveryBackend) {
  WorstTable worst;
  std::size_t checked = 0, failures = 0;
  for_each_backend_and_flex_isa([&](const std::string& isa, const oracle::BackendRef& backend) {
    for (EdgeOp op : gen::all_edge_ops()) {
      for (DType dtype : {DType::F32, DType::F64}) {
        const std::vector<gen::EdgePoint> points = gen::edge_points(op, dtype);
        for (std::size_t k = 0; k < points.size(); ++k) {
          for (EdgeLayout layout : {EdgeLayout::Alone, EdgeLayout::Block, EdgeLayout::Mixed}) {
            ++checked;
            const auto failure = check_point_any(op, dtype, points[k], layout, k, backend, isa, &worst);
            if (failure && ++failures <= 40) ADD_FAILURE() << *failure;
          }
        }
      }
    }
  });
  EXPECT_EQ(failures, 0u) << "of " << checked << " (op, dtype, point, layout, backend, kernel table) cases";
  std::cout << "[boundary] " << checked << " cases; largest error seen (ulp; where only the absolute bound held, "
               "in eps; results accepted only by `flush` counted apart):\n";
  char line[512];
  for (const auto& [key, w] : worst) {
    std::snprintf(line, sizeof line, "  %-36s %8.4Lf ulp %-34s", key.c_str(), w.ulps, w.where.c_str());
    std::cout << line;
    if (!w.abs_where.empty()) std::cout << "  abs " << show_ld(w.abs_eps) << " eps at " << w.abs_where;
    if (w.flushed > 0) std::cout << "  flushed " << w.flushed << " (first at " << w.flush_where << ")";
    std::cout << "\n";
  }
}

CG_PROP(Boundary, NudgedEdgePoints, 1500, ()) {
  const gen::BoundaryCase c = *gen::boundary_case();
  RC_TAG(std::string(gen::edge_op_name(c.op)));
  for_each_backend_and_flex_isa([&](const std::string& isa, const oracle::BackendRef& backend) {
    const auto failure = check_point_any(c.op, c.dtype, c.point, c.layout, c.lane, backend, isa, nullptr);
    if (failure) RC_FAIL(*failure + " (nudged " + std::to_string(c.nudge) + " ulp)");
  });
}
