#pragma once
// Values at the edges of each element-wise op's range, per op and dtype (issue 10, item 2).
//
// Every threshold is derived from std::numeric_limits<T> in long double and rounded to T, and
// each is given with its neighbours (2 ulps below .. 2 ulps above), so "just below / at / just
// above" follow the dtype. F32 / F64 values of the main thresholds, for reading the tables:
//   exp      overflow ln(max)                    88.7228     709.783
//            result leaves the normal range      -87.3365   -708.396   (ln(min_normal))
//            result is denorm_min                -103.279   -744.440   (ln(denorm_min))
//            result rounds to 0 below            -103.972   -745.133   (ln(denorm_min / 2))
//            Flex's vectorised F32 window         [-87, 88]           (Note [Flex vectorised expf])
//   sigmoid  exp(-x) overflows below             -88.7228   -709.783
//            result rounds to 1 above ln(4/eps)   17.3287    37.4299
//   tanh     result rounds to +-1 beyond          9.01091    19.4081   (0.5 ln(8/eps))
//   pow      x^2 overflows at sqrt(max)           1.8447e19  1.3408e154; x^3 at cbrt(max);
//            x^-1 is subnormal below 1/max; bases < 0 with integer and non-integer exponents,
//            0^0, 0^-1, (-0)^-1, inf^p, (-inf)^p, 1^NaN, NaN^0, x^+-inf
//   log/sqrt +-0, negatives, subnormals, 1 +- ulp (log's cancellation), max, inf, NaN
// plus, for every op: +-0, +-inf, +-NaN, +-denorm_min, the largest subnormal, +-min_normal,
// max, lowest, +-1, epsilon.
#include <crossgrad/core/dtype.hpp>

#include <rapidcheck.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace crossgrad::properties::gen {

// The element-wise ops of the backend interface (binary ones with same-shape operands).
enum class EdgeOp { Exp, Log, Sqrt, Tanh, Sigmoid, Powf, Neg, Relu, AddScalar, MulScalar, Add, Sub, Mul, Div };

inline const std::vector<EdgeOp>& all_edge_ops() {
  static const std::vector<EdgeOp> ops = {EdgeOp::Exp,  EdgeOp::Log,       EdgeOp::Sqrt,      EdgeOp::Tanh, EdgeOp::Sigmoid,
                                          EdgeOp::Powf, EdgeOp::Neg,       EdgeOp::Relu,      EdgeOp::AddScalar,
                                          EdgeOp::MulScalar, EdgeOp::Add,  EdgeOp::Sub,       EdgeOp::Mul, EdgeOp::Div};
  return ops;
}

inline const char* edge_op_name(EdgeOp op) {
  switch (op) {
    case EdgeOp::Exp: return "exp";
    case EdgeOp::Log: return "log";
    case EdgeOp::Sqrt: return "sqrt";
    case EdgeOp::Tanh: return "tanh";
    case EdgeOp::Sigmoid: return "sigmoid";
    case EdgeOp::Powf: return "powf_scalar";
    case EdgeOp::Neg: return "neg";
    case EdgeOp::Relu: return "relu";
    case EdgeOp::AddScalar: return "add_scalar";
    case EdgeOp::MulScalar: return "mul_scalar";
    case EdgeOp::Add: return "add";
    case EdgeOp::Sub: return "sub";
    case EdgeOp::Mul: return "mul";
    case EdgeOp::Div: return "div";
  }
  return "?";
}

// Ops whose second value is a double scalar (exponent / scalar) or a right-hand operand.
inline bool has_second_value(EdgeOp op) {
  return op == EdgeOp::Powf || op == EdgeOp::AddScalar || op == EdgeOp::MulScalar || op == EdgeOp::Add ||
         op == EdgeOp::Sub || op == EdgeOp::Mul || op == EdgeOp::Div;
}

// One point: x (the element), y (pow's exponent, the scalar, or the right-hand element), and why
// it is an edge. Both are exactly representable in the dtype they were made for.
struct EdgePoint {
  double x = 0;
  double y = 0;
  std::string why;
};

namespace boundary_detail {

template <class T>
T step(T v, int ulps) {
  const T toward = ulps < 0 ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  for (int i = 0; i < (ulps < 0 ? -ulps : ulps); ++i) v = std::nextafter(v, toward);
  return v;
}

// t rounded to T, and its neighbours 2 ulps either side.
template <class T>
void around(std::vector<EdgePoint>& out, long double t, const std::string& why, double y = 0) {
  const T at = static_cast<T>(t);
  for (int k = -2; k <= 2; ++k) {
    const std::string where = k == 0 ? "at" : (k < 0 ? std::to_string(-k) + " ulp below" : std::to_string(k) + " ulp above");
    out.push_back({static_cast<double>(step(at, k)), y, why + " (" + where + ")"});
  }
}

template <class T>
std::vector<std::pair<T, std::string>> specials() {
  using L = std::numeric_limits<T>;
  return {{T(0), "+0"},
          {-T(0), "-0"},
          {L::infinity(), "+inf"},
          {-L::infinity(), "-inf"},
          {L::quiet_NaN(), "NaN"},
          {-L::quiet_NaN(), "-NaN"},
          {L::denorm_min(), "denorm_min"},
          {-L::denorm_min(), "-denorm_min"},
          {L::min() - L::denorm_min(), "largest subnormal"},
          {L::min(), "min_normal"},
          {-L::min(), "-min_normal"},
          {L::max(), "max"},
          {L::lowest(), "lowest"},
          {T(1), "1"},
          {T(-1), "-1"},
          {L::epsilon(), "epsilon"}};
}

template <class T>
void add_specials(std::vector<EdgePoint>& out, double y = 0, const std::string& suffix = "") {
  for (const auto& [v, why] : specials<T>()) out.push_back({static_cast<double>(v), y, why + suffix});
}

template <class T>
std::string str(T v) {
  if (std::isnan(v)) return std::signbit(v) ? "-NaN" : "NaN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

template <class T>
std::vector<EdgePoint> points(EdgeOp op) {
  using L = std::numeric_limits<T>;
  using LD = long double;
  const LD max = L::max(), min = L::min(), tiny = L::denorm_min(), eps = L::epsilon();
  std::vector<EdgePoint> out;
  switch (op) {
    case EdgeOp::Exp:
      add_specials<T>(out);
      around<T>(out, std::log(max), "exp overflows above ln(max)");
      around<T>(out, std::log(min), "exp result leaves the normal range below ln(min_normal)");
      around<T>(out, std::log(tiny), "exp result is denorm_min at ln(denorm_min)");
      around<T>(out, std::log(tiny / 2), "exp result rounds to 0 below ln(denorm_min/2)");
      around<T>(out, -87.0L, "low end of Flex's vectorised F32 exp window");
      around<T>(out, 88.0L, "high end of Flex's vectorised F32 exp window");
      for (T v : {T(1e-30), T(-1e-30), T(1000), T(-1000), T(100), T(-100), T(89), T(-104), T(0.5)}) {
        out.push_back({static_cast<double>(v), 0, "exp at " + str(v)});
      }
      break;
    case EdgeOp::Sigmoid:
      add_specials<T>(out);
      around<T>(out, -std::log(max), "sigmoid: exp(-x) overflows below -ln(max)");
      around<T>(out, std::log(min), "sigmoid result leaves the normal range");
      around<T>(out, std::log(tiny / 2), "sigmoid result rounds to 0");
      around<T>(out, std::log(4 / eps), "sigmoid rounds to 1 above ln(4/eps)");
      for (T v : {T(1e-30), T(-1e-30), T(20), T(-20), T(40), T(-40), T(1000), T(-1000)}) {
        out.push_back({static_cast<double>(v), 0, "sigmoid at " + str(v)});
      }
      break;
    case EdgeOp::Tanh: {
      add_specials<T>(out);
      const LD sat = std::log(8 / eps) / 2;
      around<T>(out, sat, "tanh rounds to 1 above 0.5 ln(8/eps)");
      around<T>(out, -sat, "tanh rounds to -1 below -0.5 ln(8/eps)");
      for (T v : {T(1e-4), T(-1e-4), T(1e-30), T(-1e-30), T(20), T(-20), T(1000), T(-1000)}) {
        out.push_back({static_cast<double>(v), 0, "tanh at " + str(v)});
      }
      break;
    }
    case EdgeOp::Log:
      add_specials<T>(out);
      around<T>(out, 1.0L, "log near 1 (cancellation, log(1) = +0)");
      around<T>(out, min, "log at the normal/subnormal boundary");
      around<T>(out, max, "log near max");
      for (T v : {T(2), T(10), T(-2), T(1e-30), T(1e30)}) out.push_back({static_cast<double>(v), 0, "log at " + str(v)});
      break;
    case EdgeOp::Sqrt:
      add_specials<T>(out);
      around<T>(out, min, "sqrt at the normal/subnormal boundary");
      around<T>(out, max, "sqrt near max");
      for (T v : {T(2), T(4), T(0.25), T(-2), T(3)}) out.push_back({static_cast<double>(v), 0, "sqrt at " + str(v)});
      break;
    case EdgeOp::Powf: {
      const std::vector<T> exponents = {T(0), T(1), T(2), T(3), T(-1), T(-2), T(-3), T(0.5), T(-0.5), T(1.5), T(128),
                                        T(-150), L::infinity(), -L::infinity(), L::quiet_NaN()};
      std::vector<std::pair<T, std::string>> bases = specials<T>();
      for (T v : {T(2), T(-2), T(-3), T(0.5), T(-0.5), step(T(1), 1), step(T(1), -1)}) bases.push_back({v, str(v)});
      for (T p : exponents) {
        for (const auto& [x, why] : bases) out.push_back({static_cast<double>(x), static_cast<double>(p), "pow(" + why + ", " + str(p) + ")"});
      }
      around<T>(out, std::sqrt(max), "x^2 overflows above sqrt(max)", 2);
      around<T>(out, -std::sqrt(max), "(-x)^2 overflows", 2);
      around<T>(out, std::cbrt(max), "x^3 overflows above cbrt(max)", 3);
      around<T>(out, -std::cbrt(max), "(-x)^3 overflows to -inf", 3);
      around<T>(out, 1 / max, "x^-1 is subnormal below 1/max", -1);
      around<T>(out, std::sqrt(tiny), "x^2 underflows below sqrt(denorm_min)", 2);
      around<T>(out, min, "sqrt(x) = x^0.5 at min_normal", 0.5);
      break;
    }
    case EdgeOp::Neg:
    case EdgeOp::Relu:
      add_specials<T>(out);
      break;
    case EdgeOp::AddScalar:
    case EdgeOp::MulScalar:
    case EdgeOp::Add:
    case EdgeOp::Sub:
    case EdgeOp::Mul:
    case EdgeOp::Div: {
      std::vector<std::pair<T, std::string>> seconds = specials<T>();
      for (T v : {T(0.5), T(2), T(-2)}) seconds.push_back({v, str(v)});
      for (const auto& [y, why] : seconds) add_specials<T>(out, static_cast<double>(y), std::string(" with ") + why);
      break;
    }
  }
  return out;
}

}  // namespace boundary_detail

// Every edge point of `op` in `dtype` (F32 or F64).
inline std::vector<EdgePoint> edge_points(EdgeOp op, DType dtype) {
  return dtype == DType::F32 ? boundary_detail::points<float>(op) : boundary_detail::points<double>(op);
}

// How the point sits in the tensor the op sees, so that SIMD blocks and scalar tails both meet it:
// Alone: a [1] tensor (the scalar tail of every kernel); Block: kBlockLanes copies (whole 8-lane
// F32 / 4-lane F64 AVX2 blocks, unrolled twice); Mixed: a block of benign values holding the
// point in one lane (a block with one out-of-window lane must fall back lane by lane).
enum class EdgeLayout { Alone, Block, Mixed };
inline constexpr std::size_t kBlockLanes = 16;

inline const char* layout_name(EdgeLayout l) {
  return l == EdgeLayout::Alone ? "alone" : (l == EdgeLayout::Block ? "block" : "mixed");
}

// A random case for the property: an op, a dtype, one of its edge points moved by -2..2 ulps
// (the tables hold thresholds; the nudge reaches the values between their listed neighbours),
// a layout and, for Mixed, the lane the point sits in.
struct BoundaryCase {
  EdgeOp op = EdgeOp::Exp;
  DType dtype = DType::F32;
  EdgePoint point;
  int nudge = 0;
  EdgeLayout layout = EdgeLayout::Alone;
  std::size_t lane = 0;
};

template <class T>
T nudged(double x, int ulps) {
  const T v = static_cast<T>(x);
  return std::isfinite(v) ? boundary_detail::step(v, ulps) : v;
}

inline rc::Gen<BoundaryCase> boundary_case() {
  return rc::gen::mapcat(
      rc::gen::tuple(rc::gen::elementOf(all_edge_ops()), rc::gen::element(DType::F32, DType::F64)),
      [](const std::tuple<EdgeOp, DType>& od) {
        const auto [op, dtype] = od;
        const std::vector<EdgePoint> pts = edge_points(op, dtype);
        return rc::gen::map(
            rc::gen::tuple(rc::gen::inRange<std::size_t>(0, pts.size()), rc::gen::inRange(-2, 3),
                           rc::gen::element(EdgeLayout::Alone, EdgeLayout::Block, EdgeLayout::Mixed),
                           rc::gen::inRange<std::size_t>(0, kBlockLanes)),
            [op, dtype, pts](const std::tuple<std::size_t, int, EdgeLayout, std::size_t>& t) {
              BoundaryCase c;
              c.op = op;
              c.dtype = dtype;
              c.point = pts[std::get<0>(t)];
              c.nudge = std::get<1>(t);
              c.layout = std::get<2>(t);
              c.lane = std::get<3>(t);
              c.point.x = dtype == DType::F32 ? static_cast<double>(nudged<float>(c.point.x, c.nudge))
                                              : nudged<double>(c.point.x, c.nudge);
              return c;
            });
      });
}

}  // namespace crossgrad::properties::gen
