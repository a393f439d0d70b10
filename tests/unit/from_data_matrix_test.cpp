// from_data of every dtype on every available backend (issue 10, item 3): float_from_data,
// int_from_data and bool_from_data, each given the extreme data of every dtype TensorData holds,
// on every backend's plain device and its Autodiff device. Each outcome is compared with the one
// the contract and the catalog give (accept iff the data's category is the function's — then the
// matching *_into_data returns the same bytes and the kind has the documented structure — else
// data-kind-mismatch with its exact message), and the backends are compared with each other.
#include "extreme_data.hpp"
#include "test_support.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

enum class FromData { Float, Int, Bool };
const FromData kAllFromData[] = {FromData::Float, FromData::Int, FromData::Bool};

const char* fn_name(FromData f) {
  return f == FromData::Float ? "float_from_data" : (f == FromData::Int ? "int_from_data" : "bool_from_data");
}
const char* kind_word(FromData f) { return f == FromData::Float ? "float" : (f == FromData::Int ? "int" : "bool"); }
DTypeCategory category_of(FromData f) {
  return f == FromData::Float ? DTypeCategory::Float : (f == FromData::Int ? DTypeCategory::Int : DTypeCategory::Bool);
}

DispatchTensor from_data(FromData f, const TensorData& d, const DispatchDevice& device) {
  if (f == FromData::Float) return Dispatch::float_from_data(d, device);
  if (f == FromData::Int) return Dispatch::int_from_data(d, device);
  return Dispatch::bool_from_data(d, device);
}
TensorData into_data(FromData f, const DispatchTensor& t) {
  if (f == FromData::Float) return Dispatch::float_into_data(t);
  if (f == FromData::Int) return Dispatch::int_into_data(t);
  return Dispatch::bool_into_data(t);
}

// An outcome, comparable across backends: "accepted <primitive structure>" or "panic <id>: <message>".
// The data read back is checked against the input separately (bit for bit).
struct Outcome {
  std::string text;
  std::optional<TensorData> data;
};

// The structure of a created tensor, from its variants (never from a rendering): "B(P)" on a plain
// device, "Autodiff(B(P))" on an autodiff device, P the primitive kind's name.
template <class B>
std::string structure_of(const DispatchTensorKind& kind) {
  const bool tracked = kind.is_autodiff();
  const DispatchTensorKind& inner = tracked ? kind.autodiff_inner() : kind;
  const auto* bt = std::get_if<BackendTensor<B>>(&inner.value);
  if (bt == nullptr) return "not a " + std::string(B::name) + " kind";
  const std::string p = std::string(primitive_kind_name(bt->primitive_kind()));
  return tracked ? "Autodiff(" + std::string(B::name) + "(" + p + "))" : std::string(B::name) + "(" + p + ")";
}

template <class B>
Outcome run(FromData f, const TensorData& d, bool autodiff) {
  const DispatchDevice device = autodiff ? autodiff_device<B>() : plain_device<B>();
  Outcome out;
  const auto caught = panic_of([&] {
    const DispatchTensor t = from_data(f, d, device);
    out.text = "accepted " + structure_of<B>(t.kind);
    out.data = into_data(f, t);
  });
  if (caught) out.text = "panic " + caught->id + ": " + caught->message;
  return out;
}

// From the contract: data of the function's category is accepted (floats become a tracked leaf,
// Autodiff(B(Autodiff)), on an autodiff device; ints and bools stay Int/Bool inside Autodiff(..));
// anything else — QInt8 data included — is data-kind-mismatch.
std::string expected_outcome(FromData f, DType dtype, std::string_view backend, bool autodiff) {
  if (dtype_category(dtype) != category_of(f)) {
    return std::string("panic data-kind-mismatch: ") + fn_name(f) + " needs " + kind_word(f) + " data, got dtype " +
           std::string(dtype_name(dtype)) + ".";
  }
  const std::string p = f == FromData::Float ? (autodiff ? "Autodiff" : "Float") : (f == FromData::Int ? "Int" : "Bool");
  const std::string b = std::string(backend) + "(" + p + ")";
  return "accepted " + (autodiff ? "Autodiff(" + b + ")" : b);
}

// Runs every (function, dtype, shape, device) cell on backend B.
template <class B>
void run_matrix(std::map<std::string, std::string>& outcomes_by_cell, std::vector<std::string>& failures) {
  for (bool autodiff : {false, true}) {
    for (FromData f : kAllFromData) {
      for (DType dtype : data_dtypes()) {
        const TensorData extremes = extreme_data(dtype);
        // [n] extremes, a scalar [] and a zero-size [2, 0] tensor.
        const TensorData shapes[] = {extremes, TensorData::from_bytes(extremes.bytes().first(dtype_size(dtype)), {}, dtype),
                                     TensorData::from_bytes({}, {2, 0}, dtype)};
        for (const TensorData& d : shapes) {
          const std::string cell = std::string(fn_name(f)) + " " + std::string(dtype_name(dtype)) + " " + d.shape().to_string() +
                                   (autodiff ? " autodiff device" : " plain device");
          const Outcome got = run<B>(f, d, autodiff);
          const std::string want = expected_outcome(f, dtype, B::name, autodiff);
          if (got.text != want) failures.push_back(std::string(B::name) + ", " + cell + ": want \"" + want + "\", got \"" + got.text + "\"");
          if (got.data && !(*got.data == d)) {
            failures.push_back(std::string(B::name) + ", " + cell + ": data read back differs, " + first_difference(d, *got.data));
          }
          // Across backends: the same outcome with the backend's name taken out.
          std::string neutral = got.text;
          for (std::size_t at; (at = neutral.find(B::name)) != std::string::npos;) neutral.replace(at, B::name.size(), "B");
          auto [it, inserted] = outcomes_by_cell.emplace(cell, neutral);
          if (!inserted && it->second != neutral) {
            failures.push_back(std::string(B::name) + ", " + cell + ": \"" + neutral + "\" where an earlier backend gave \"" +
                               it->second + "\"");
          }
        }
      }
    }
  }
}

TEST(FromDataMatrix, EveryDtypeOnEveryBackendGivesTheDocumentedOutcome) {
  std::map<std::string, std::string> outcomes_by_cell;
  std::vector<std::string> failures;
  std::size_t backends_run = 0;
  for_each_backend([&]<class B>() {
    if (!B::is_available()) return;
    ++backends_run;
    run_matrix<B>(outcomes_by_cell, failures);
  });
  EXPECT_GE(backends_run, 2u) << "NdArray and Flex are always available";
  for (const std::string& f : failures) ADD_FAILURE() << f;
  // 3 functions x 8 dtypes x 3 shapes x 2 devices.
  EXPECT_EQ(outcomes_by_cell.size(), 3u * data_dtypes().size() * 3u * 2u);
}

// The extremes survive a trip through a tracked leaf too: float data on an Autodiff device, then
// float_into_data, and int / bool data inside Autodiff(B(Int / Bool)).
TEST(FromDataMatrix, AcceptedDataOfEveryKindSurvivesAutodiffDevices) {
  for_each_backend([&]<class B>() {
    if (!B::is_available()) return;
    for (DType dtype : data_dtypes()) {
      if (dtype_category(dtype) == DTypeCategory::Quantized) continue;
      const FromData f = dtype_category(dtype) == DTypeCategory::Float
                             ? FromData::Float
                             : (dtype_category(dtype) == DTypeCategory::Int ? FromData::Int : FromData::Bool);
      const TensorData big = tiled(extreme_data(dtype), 2 * 32768 + 3);
      for (bool autodiff : {false, true}) {
        const Outcome got = run<B>(f, big, autodiff);
        ASSERT_TRUE(got.data.has_value()) << B::name << " " << dtype_name(dtype) << ": " << got.text;
        EXPECT_EQ(*got.data, big) << B::name << " " << dtype_name(dtype) << (autodiff ? " autodiff" : " plain") << ": "
                                  << first_difference(big, *got.data);
      }
    }
  });
}

}  // namespace
}  // namespace crossgrad
