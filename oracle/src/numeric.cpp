#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/dispatch/dispatch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace crossgrad::oracle {

double epsilon_of(DType dtype) {
  return dtype == DType::F64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

Bound bound_for(Op op, DType dtype, std::size_t reduction_length, double magnitude) {
  const double eps = epsilon_of(dtype);
  const double tiny = dtype == DType::F64 ? 1e-300 : 1e-37;
  switch (op) {
    // Correctly rounded in IEEE arithmetic (also when computed in F64 and rounded to F32).
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Neg:
    case Op::Sqrt:
    case Op::Relu:
    case Op::AddScalar:
    case Op::MulScalar:
    case Op::Reshape:
    case Op::SwapDims:
      return {0, 0, true};
    // Library functions: a few ulps, plus an absolute floor near zero for bounded outputs.
    case Op::Exp:
      return {tiny, 8 * eps, false};
    case Op::Log:
    case Op::Tanh:
    case Op::Sigmoid:
      return {8 * eps, 8 * eps, false};
    case Op::PowfScalar:
      return {tiny, 32 * eps, false};
    // Accumulations: any summation order is accepted.
    case Op::Sum:
    case Op::Mean:
    case Op::SumDim:
    case Op::MeanDim:
    case Op::Matmul: {
      if (!std::isfinite(magnitude)) return {std::numeric_limits<double>::infinity(), 0, false};
      // Two summation orders of n terms differ by at most ~2 n eps sum|x_i|, and with only the
      // largest |x| known, sum|x_i| <= n max|x|.
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      return {2 * n * n * eps * magnitude + tiny, 4 * eps, false};
    }
  }
  return {0, 0, true};
}

Bound bound_for_graph(const GraphSpec& g, DType dtype) {
  // A composition: each step can amplify earlier rounding; a generous per-dtype bound scaled by
  // depth. Graphs in the harness are small and stay away from singular points.
  const double depth = static_cast<double>(g.ops.size() + 1);
  const double base = dtype == DType::F64 ? 1e-10 : 1e-3;
  return {base * depth, base * depth, false};
}

namespace {
std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
}  // namespace

std::optional<std::string> compare_values(const TensorData& reference, const TensorData& actual, const Bound& bound,
                                          std::string_view what) {
  const std::string where(what);
  if (reference.shape() != actual.shape()) {
    return where + ": shape " + render_shape(actual.shape().dims()) + ", reference " +
           render_shape(reference.shape().dims());
  }
  if (reference.dtype() != actual.dtype()) {
    return where + ": dtype " + render_dtype(actual.dtype()) + ", reference " + render_dtype(reference.dtype());
  }
  const std::vector<double> r = reference.to_f64();
  const std::vector<double> a = actual.to_f64();
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double x = r[i];
    const double y = a[i];
    bool ok;
    if (std::isnan(x) || std::isnan(y)) {
      ok = std::isnan(x) && std::isnan(y);
    } else if (std::isinf(bound.abs)) {
      ok = true;
    } else if (std::isinf(x) || std::isinf(y)) {
      ok = x == y;
    } else if (bound.exact) {
      ok = x == y;
    } else {
      ok = std::fabs(x - y) <= bound.abs + bound.rel * std::fabs(x);
    }
    if (!ok) {
      return where + ": element " + std::to_string(i) + " is " + show(y) + ", reference " + show(x) +
             " (bound abs " + show(bound.abs) + ", rel " + show(bound.rel) + (bound.exact ? ", exact" : "") + ")";
    }
  }
  return std::nullopt;
}

double graph_objective_f64(const GraphSpec& g, const std::vector<std::vector<double>>& leaves) {
  GraphSpec copy = g;
  copy.leaf_values = leaves;
  const GraphRun run = run_graph(copy, reference_backend(), DType::F64, false);
  double sum = 0;
  for (double v : Dispatch::float_into_data(run.root()).to_f64()) sum += v;
  return sum;
}

std::vector<std::vector<std::optional<double>>> finite_differences(const GraphSpec& g, double step) {
  std::vector<std::vector<double>> x;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    x.push_back(effective_values(tensor_on(reference_backend(), PrimitiveKind::Float, g.leaf_shapes[i], DType::F64,
                                           g.leaf_values[i])));
  }
  std::vector<std::vector<std::optional<double>>> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    out[i].resize(x[i].size());
    for (std::size_t j = 0; j < x[i].size(); ++j) {
      const double x0 = x[i][j];
      auto at = [&](double h) {
        auto xs = x;
        xs[i][j] = x0 + h;
        return graph_objective_f64(g, xs);
      };
      const double h = step * std::fmax(1.0, std::fabs(x0));
      const double f0 = at(0), fp = at(h), fm = at(-h), fp2 = at(h / 2), fm2 = at(-h / 2);
      const double d1 = (fp - fm) / (2 * h);
      const double d2 = (fp2 - fm2) / h;
      if (!std::isfinite(d1) || !std::isfinite(d2)) continue;
      if (std::fabs(d1 - d2) > 1e-5 * std::fmax(1.0, std::fabs(d2))) continue;  // not smooth here
      // A kink inside [x0 - h/2, x0 + h/2] (relu near 0) fools both central estimates alike: they
      // average the two one-sided slopes. The one-sided slopes themselves then disagree.
      const double forward = (fp2 - f0) / (h / 2), backward = (f0 - fm2) / (h / 2);
      if (std::fabs(forward - backward) > 1e-2 * std::fmax(1.0, std::fabs(d2))) continue;
      out[i][j] = (4 * d2 - d1) / 3;  // Richardson extrapolation
    }
  }
  return out;
}

}  // namespace crossgrad::oracle
