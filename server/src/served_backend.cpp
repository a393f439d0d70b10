// The served backend's tensor table (tensor_table.hpp), one template over any local backend B.
// Ops run from the op registry (CROSSGRAD_OPS) by walking each backend function's parameter types
// (Note [Remote wire codec]): no op is written out here, and a new registry op is served as soon as
// it exists.
#include "tensor_table.hpp"

#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/shape_rules.hpp>
#include <crossgrad/ops/op_list.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace crossgrad::server {

std::size_t tensor_bytes(const Shape& shape, DType dtype) {
  const std::size_t elements = shape.num_elements();  // panics shape-overflow past 64 bits
  const std::size_t size = dtype_size(dtype);
  if (elements > std::numeric_limits<std::size_t>::max() / size) {
    return std::numeric_limits<std::size_t>::max();
  }
  return elements * size;
}

namespace {

// The convolutions' forward plans, by options type (the result's size, for the reply's budget).
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const Conv2dOptions& o) {
  return rules::plan_conv2d(x, xd, w, wd, b, bd, o);
}
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const Conv1dOptions& o) {
  return rules::plan_conv1d(x, xd, w, wd, b, bd, o);
}
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const ConvTranspose2dOptions& o) {
  return rules::plan_conv_transpose2d(x, xd, w, wd, b, bd, o);
}
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const ConvTranspose1dOptions& o) {
  return rules::plan_conv_transpose1d(x, xd, w, wd, b, bd, o);
}
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const Conv3dOptions& o) {
  return rules::plan_conv3d(x, xd, w, wd, b, bd, o);
}
rules::Conv2dPlan convolution_plan(const Shape& x, DType xd, const Shape& w, DType wd, const Shape* b, DType bd,
                                   const ConvTranspose3dOptions& o) {
  return rules::plan_conv_transpose3d(x, xd, w, wd, b, bd, o);
}

template <class>
[[maybe_unused]] inline constexpr bool kAlwaysFalse = false;  // only in a discarded static_assert

// A convolution's arguments: x, the weight, an optional bias and the options.
template <class Args, class T>
constexpr bool is_convolution_args() {
  if constexpr (std::tuple_size_v<Args> == 4) {  // x, weight, the optional bias and the options (layer_norm's epsilon is none)
    return std::is_same_v<std::tuple_element_t<2, Args>, std::optional<T>> && !std::is_same_v<std::tuple_element_t<3, Args>, double>;
  } else {
    return false;
  }
}

bool has_kind(DType dtype, OpKind kind) {
  switch (kind) {
    case OpKind::Float:
      return true;  // the backend's own check raises the catalog panic (unsupported-dtype)
    case OpKind::Int:
      return is_int(dtype);
    case OpKind::Bool:
      return dtype == DType::Bool;
  }
  return false;
}

template <class B>
class Table final : public TensorTable {
  using T = typename B::Tensor;

 public:
  NewTensor from_data(const TensorData& data) override {
    return keep(B::from_data(data, B::default_device()));
  }

  NewTensor from_bulk(Shape shape, DType dtype, HostBuffer bytes) override {
    const std::span<const std::byte> view(bytes.data(), bytes.size());
    if constexpr (std::is_base_of_v<backends::HostTensor, T>) {
      // The checks of from_data(from_bytes(...)) in their order: the data's, then the backend's own
      // (run on an empty tensor of the dtype); then the received buffer is the storage.
      TensorData::validate_bytes(view, shape, dtype);
      (void)B::from_data(TensorData::from_bytes({}, Shape{0}, dtype), B::default_device());
      T tensor;
      static_cast<backends::HostTensor&>(tensor) = backends::HostTensor{std::move(shape), dtype, std::move(bytes)};
      return keep(std::move(tensor));
    } else {
      return keep(B::from_data(TensorData::from_bytes(view, std::move(shape), dtype), B::default_device()));
    }
  }

  NewTensor call(const wire::proto::OpCall& call, const Admit& admit) override {
    wire::ArgReader reader(call);
    const std::uint32_t op = call.op();
    switch (op) {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) \
  case static_cast<std::uint32_t>(OpId::name):                \
    return run(OpId::name, &B::name, reader, admit);
      CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
      case wire::kFloatFull: {
        Shape shape = reader.shape();
        const double value = reader.scalar();
        const DType dtype = reader.dtype();
        reader.finish();
        admit(tensor_bytes(shape, dtype));
        return keep(B::float_full(shape, value, dtype, B::default_device()));
      }
      case wire::kQuantize: {
        const T& tensor = lookup(reader.operand());
        reader.finish();
        auto quantized = B::quantize(tensor);
        return keep(std::move(quantized.values), quantized.scale);
      }
      case wire::kDequantize: {
        const T& tensor = lookup(reader.operand());
        const float scale = reader.scale();
        reader.finish();
        return keep(B::dequantize(typename B::Quantized{tensor, scale}));
      }
      default:
        throw wire::WireError("unknown op code " + std::to_string(op));
    }
  }

  void store(std::uint64_t handle) override {
    if (!pending_) throw std::logic_error("TensorTable::store without a pending tensor");
    tensors_.insert_or_assign(handle, std::move(*pending_));
    pending_.reset();
  }
  void drop_pending() override { pending_.reset(); }

  TensorData into_data(std::uint64_t handle) const override { return B::into_data(lookup(handle)); }

  Download download(std::uint64_t handle) const override {
    const T& tensor = lookup(handle);
    if constexpr (std::is_base_of_v<backends::HostTensor, T>) {
      // A host tensor's buffer is its into_data bytes (HostTensor::to_data copies it as is): the
      // bulk writer sends from it directly, sparing a 64 MiB copy and its page faults.
      auto held = std::make_shared<const T>(tensor);
      const std::span<const std::byte> bytes(held->buffer.data(), held->buffer.size());
      return Download{held->shape, held->dtype, held, bytes};
    } else {
      auto data = std::make_shared<const TensorData>(B::into_data(tensor));
      return Download{data->shape(), data->dtype(), data, data->bytes()};
    }
  }
  bool contains(std::uint64_t handle) const override { return tensors_.contains(handle); }
  std::size_t bytes_of(std::uint64_t handle) const override {
    const T& t = lookup(handle);
    return tensor_bytes(B::shape(t), B::dtype(t));
  }
  std::size_t free(std::uint64_t handle) override {
    auto it = tensors_.find(handle);
    if (it == tensors_.end()) return 0;
    const std::size_t bytes = tensor_bytes(B::shape(it->second), B::dtype(it->second));
    tensors_.erase(it);
    return bytes;
  }
  void clear() override {
    tensors_.clear();
    pending_.reset();
  }

 private:
  const T& lookup(std::uint64_t handle) const {
    auto it = tensors_.find(handle);
    if (it == tensors_.end()) throw UnknownHandle(handle);
    return it->second;
  }

  NewTensor keep(T tensor, float scale = 0.0f) {
    NewTensor out{B::shape(tensor), B::dtype(tensor), scale, 0};
    out.bytes = tensor_bytes(out.shape, out.dtype);
    pending_ = std::move(tensor);
    return out;
  }

  // Reads one op's arguments by parameter type, left to right (Note [Remote wire codec]).
  struct Reading {
    const Table& table;
    wire::ArgReader& reader;
    OpId op;
    int tensors_read = 0;
    std::optional<DType> receiver_dtype;
    std::optional<std::size_t> shape_bytes;  // a Shape argument's result size, for admit()

    template <class P>
    auto read() {
      using D = std::remove_cvref_t<P>;
      if constexpr (std::is_same_v<D, T>) {
        const T& tensor = table.lookup(reader.operand());
        if (tensors_read++ == 0) check_receiver(B::dtype(tensor));
        return std::cref(tensor);
      } else if constexpr (std::is_same_v<D, std::optional<T>>) {
        // linear's bias, attention's mask and bias: a copy of the table's handle (a shared buffer), or none.
        const std::optional<std::uint64_t> handle = reader.optional_operand();
        return handle ? std::optional<T>(table.lookup(*handle)) : std::optional<T>();
      } else if constexpr (std::is_same_v<D, std::vector<T>>) {
        std::vector<T> tensors;
        for (std::uint64_t h : reader.remaining_operands()) tensors.push_back(table.lookup(h));
        return tensors;
      } else if constexpr (std::is_same_v<D, double>) {
        return reader.scalar();
      } else if constexpr (std::is_same_v<D, bool>) {
        return reader.flag();
      } else if constexpr (std::is_same_v<D, IndexingUpdateOp>) {
        return reader.update();
      } else if constexpr (std::is_same_v<D, std::size_t>) {
        return reader.dim();
      } else if constexpr (std::is_same_v<D, std::optional<std::size_t>>) {
        return reader.optional_size();
      } else if constexpr (std::is_same_v<D, std::vector<std::size_t>>) {
        return reader.remaining_dims();
      } else if constexpr (std::is_same_v<D, Shape>) {
        Shape shape = reader.shape();
        shape_bytes = tensor_bytes(shape, receiver_dtype.value_or(DType::F64));
        return shape;
      } else if constexpr (std::is_same_v<D, DType>) {
        return reader.dtype();
      } else if constexpr (std::is_same_v<D, std::vector<Range>>) {
        return reader.ranges();
      } else if constexpr (std::is_same_v<D, Size2>) {
        return reader.size2();
      } else if constexpr (std::is_same_v<D, Size3>) {
        return reader.size3();
      } else if constexpr (std::is_same_v<D, InterpolateOptions>) {
        return reader.interpolate_options();
      } else if constexpr (std::is_same_v<D, UnfoldOptions>) {
        return reader.unfold_options();
      } else if constexpr (std::is_same_v<D, AttentionOptions>) {
        return reader.attention_options();
      } else if constexpr (std::is_same_v<D, Size1>) {
        return reader.size1();
      } else if constexpr (std::is_same_v<D, AvgPool1dOptions>) {
        return reader.avg_pool1d_options();
      } else if constexpr (std::is_same_v<D, MaxPool1dOptions>) {
        return reader.max_pool1d_options();
      } else if constexpr (std::is_same_v<D, AvgPool2dOptions>) {
        return reader.avg_pool2d_options();
      } else if constexpr (std::is_same_v<D, MaxPool2dOptions>) {
        return reader.max_pool2d_options();
      } else if constexpr (std::is_same_v<D, Conv2dOptions>) {
        return reader.conv2d_options();
      } else if constexpr (std::is_same_v<D, ConvTranspose2dOptions>) {
        return reader.conv_transpose2d_options();
      } else if constexpr (std::is_same_v<D, Conv1dOptions>) {
        return reader.conv1d_options();
      } else if constexpr (std::is_same_v<D, ConvTranspose1dOptions>) {
        return reader.conv_transpose1d_options();
      } else if constexpr (std::is_same_v<D, Conv3dOptions>) {
        return reader.conv3d_options();
      } else if constexpr (std::is_same_v<D, ConvTranspose3dOptions>) {
        return reader.conv_transpose3d_options();
      } else {
        static_assert(kAlwaysFalse<D>, "a backend parameter type the wire does not carry");
      }
    }

    // Int and bool receivers are checked here (the backends trust Dispatch for those kinds);
    // float receivers by the backend itself, with its catalog panic.
    void check_receiver(DType dtype) {
      receiver_dtype = dtype;
      const OpInfo& info = op_info(op);
      if (!has_kind(dtype, info.operand)) {
        throw wire::WireError(std::string(info.name) + " takes a " +
                              std::string(op_kind_name(info.operand)) + " tensor, the operand is " +
                              std::string(dtype_name(dtype)));
      }
    }
  };

  template <class... P>
  NewTensor run(OpId op, T (*fn)(P...), wire::ArgReader& reader, const Admit& admit) {
    Reading reading{*this, reader, op, 0, std::nullopt, std::nullopt};
    // Braced initialisation evaluates left to right: arguments are read in parameter order.
    std::tuple<decltype(reading.template read<P>())...> args{reading.template read<P>()...};
    reader.finish();
    if (reading.shape_bytes) admit(*reading.shape_bytes);
    // A result past 2^64 bytes is the op's own tensor-too-large (it checks before allocating).
    if (const std::optional<std::size_t> bytes = grown_result_bytes(op, args); bytes && *bytes != std::numeric_limits<std::size_t>::max()) {
      admit(*bytes);
    }
    return keep(std::apply(fn, args));
  }

  // Note [Results larger than their operands]
  // store_new admits a result against the session's bytes once it exists, which bounds the
  // allocation while a result is no larger than what the session already holds. These kinds of op
  // can make more than that from small or empty operands: broadcasting binary ops ([n,1] with
  // [1,m]) and the masked ops (mask_where, mask_fill broadcast too), matmul ([n,0] x [0,m] gives
  // n x m zeros), reductions along an empty dim ([n,0] summed over dim 1 gives n values), select
  // along an empty dim, gather_nd (indices [n, 0] name the whole tensor n times), argwhere (up
  // to rank I64 coordinates per Bool byte: admitted at that bound, the count of trues being
  // unknown until it runs), repeat_dim and unfold (a dim times a count; windows of windows), the
  // convolutions, embedding (a table row per index), and the module ops that take their output
  // size as an argument (the adaptive poolings, interpolate, fold4d) or copy a kernel's cells per
  // position (unfold4d). (The fuzzer's session of 1 MiB once
  // had 15 GB allocated for the sum of an empty [1936224768, 0] tensor over dim 1.) Their result
  // size is worked out from the operands' shapes and admitted before they run. A shape the op
  // itself refuses is left to the op, so its own panic is the one reported.
  template <class Args>
  static std::optional<std::size_t> grown_result_bytes(OpId op, const Args& args) {
    using CRef = std::reference_wrapper<const T>;
    const OpInfo& info = op_info(op);
    const auto bytes_of = [&](const Shape& shape, DType receiver) {
      const DType dtype = info.result == OpKind::Bool  ? DType::Bool
                          : info.result == OpKind::Int ? DType::I64
                                                       : receiver;
      return tensor_bytes(shape, dtype);
    };
    try {
      if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef>>) {
        const Shape& a = B::shape(std::get<0>(args).get());
        const Shape& b = B::shape(std::get<1>(args).get());
        // gather_nd's rows may each name the whole tensor (indices [n, 0]).
        const DType da = B::dtype(std::get<0>(args).get()), db = B::dtype(std::get<1>(args).get());
        if (op == OpId::linear_x_backward) return bytes_of(rules::plan_linear_x_backward(a, da, b, db).out, da);
        if (op == OpId::linear_weight_backward) return bytes_of(rules::plan_linear_weight_backward(a, da, b, db).out, da);
        // embedding: a row of the table per index ([1, 2^12] read at [2^17, 1] indices is 2 GiB).
        if (op == OpId::embedding) return bytes_of(rules::plan_embedding(a, da, b, db).out, da);
        const Shape out = op_stem(op) == "matmul"      ? rules::plan_matmul(a, b, info.name).out
                          : op_stem(op) == "gather_nd" ? rules::check_gather_nd(a, b, B::dtype(std::get<1>(args).get()), info.name)
                                                       : rules::broadcast_shapes(a, b, info.name);
        return bytes_of(out, B::dtype(std::get<0>(args).get()));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, std::size_t>>) {
        // Every kind's reductions along a dim (float_sum_dim, int_sum_dim, bool_any_dim, ...).
        constexpr std::string_view kReductions[] = {"sum_dim", "mean_dim", "max_dim",    "min_dim", "prod_dim",
                                                    "max_abs_dim", "any_dim", "all_dim", "argmax",  "argmin"};
        const bool reduces = std::find(std::begin(kReductions), std::end(kReductions), op_stem(op)) != std::end(kReductions);
        const T& t = std::get<0>(args).get();
        if (!reduces || std::get<1>(args) >= B::shape(t).rank()) return std::nullopt;
        return bytes_of(rules::reduced_shape(B::shape(t), std::get<1>(args)), B::dtype(t));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, std::size_t, CRef>>) {
        const T& t = std::get<0>(args).get();
        const std::size_t dim = std::get<1>(args);
        if (op_stem(op) != "select" || dim >= B::shape(t).rank()) return std::nullopt;
        std::vector<std::size_t> dims = B::shape(t).dims();
        dims[dim] = B::shape(std::get<2>(args).get()).num_elements();
        return bytes_of(Shape(std::move(dims)), B::dtype(t));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef>>) {
        // linear_bias_backward: d_output sums of possibly empty columns.
        if (op == OpId::linear_bias_backward) {
          const T& g = std::get<0>(args).get();
          return bytes_of(rules::plan_linear_bias_backward(B::shape(g), B::dtype(g)).out, B::dtype(g));
        }
        // argwhere: up to one I64 row of rank coordinates per element (a Bool byte each).
        if (op_stem(op) != "argwhere") return std::nullopt;
        const Shape& shape = B::shape(std::get<0>(args).get());
        return tensor_bytes(Shape{shape.num_elements(), std::max<std::size_t>(shape.rank(), 1)}, DType::I64);
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef, double>>) {
        // mask_fill: the tensor and the mask broadcast ([n, 1] with [1, m]).
        const T& t = std::get<0>(args).get();
        return bytes_of(rules::broadcast_shapes(B::shape(t), B::shape(std::get<1>(args).get()), info.name), B::dtype(t));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef, std::optional<T>>>) {
        // linear: x [n, 0] and weight [0, m] make n x m values.
        const T& x = std::get<0>(args).get();
        const T& w = std::get<1>(args).get();
        const std::optional<T>& b = std::get<2>(args);
        const Shape bias_shape = b ? B::shape(*b) : Shape{};
        const rules::LinearPlan p = rules::plan_linear(B::shape(x), B::dtype(x), B::shape(w), B::dtype(w),
                                                       b ? &bias_shape : nullptr, b ? B::dtype(*b) : B::dtype(x));
        return bytes_of(p.out, B::dtype(x));
      } else if constexpr (is_convolution_args<Args, T>()) {
        // The convolutions: padding makes windows of an empty or small input ([1, 1, 0, 0] padded
        // by 1000), and a transposed one spreads every input cell over a kernel's span.
        const T& x = std::get<0>(args).get();
        const T& w = std::get<1>(args).get();
        const std::optional<T>& b = std::get<2>(args);
        const Shape bias_shape = b ? B::shape(*b) : Shape{};
        const rules::Conv2dPlan p = convolution_plan(B::shape(x), B::dtype(x), B::shape(w), B::dtype(w), b ? &bias_shape : nullptr,
                                                     b ? B::dtype(*b) : B::dtype(x), std::get<3>(args));
        return bytes_of(p.out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, std::size_t, std::size_t>>) {
        // repeat_dim: dim's size times `times` ([2] repeated 67,108,865 times is 1 GiB).
        const T& t = std::get<0>(args).get();
        if (op_stem(op) != "repeat_dim" || std::get<1>(args) >= B::shape(t).rank()) return std::nullopt;
        return bytes_of(rules::repeated_shape(B::shape(t), std::get<1>(args), std::get<2>(args)), B::dtype(t));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, std::size_t, std::size_t, std::size_t>>) {
        // unfold (dim, size, step): every window copied, size cells each (quadratic in dim's size).
        const T& t = std::get<0>(args).get();
        if (op_stem(op) != "unfold" || std::get<1>(args) >= B::shape(t).rank()) return std::nullopt;
        return bytes_of(rules::unfolded_shape(B::shape(t), std::get<1>(args), std::get<2>(args), std::get<3>(args), info.name),
                        B::dtype(t));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size1>>) {
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_adaptive_avg_pool1d(B::shape(x), B::dtype(x), std::get<1>(args)).out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size2>>) {
        // The module ops whose output size is an argument: any size from a one-cell input.
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_adaptive_avg_pool2d(B::shape(x), B::dtype(x), std::get<1>(args)).out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size3>>) {
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_adaptive_avg_pool3d(B::shape(x), B::dtype(x), std::get<1>(args)).out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size2, InterpolateOptions>>) {
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_interpolate(B::shape(x), B::dtype(x), std::get<1>(args), std::get<2>(args)).out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size2, UnfoldOptions>>) {
        // unfold4d: every block copied (a kernel's cells per position).
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_unfold4d(B::shape(x), B::dtype(x), std::get<1>(args), std::get<2>(args)).out, B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, Size2, Size2, UnfoldOptions>>) {
        const T& x = std::get<0>(args).get();
        return bytes_of(rules::plan_fold4d(B::shape(x), B::dtype(x), std::get<1>(args), std::get<2>(args), std::get<3>(args)).out,
                        B::dtype(x));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef, CRef, std::optional<T>, std::optional<T>, AttentionOptions>>) {
        // attention: the scores [batch, heads, seq_q, seq_k] of a query and key with head_dim 0
        // (no bytes) are materialised, and the result [batch, heads, seq_q, value_dim] is as large.
        const T& q = std::get<0>(args).get();
        const T& k = std::get<1>(args).get();
        const T& v = std::get<2>(args).get();
        const std::optional<T>& m = std::get<3>(args);
        const std::optional<T>& b = std::get<4>(args);
        const Shape mask_shape = m ? B::shape(*m) : Shape{}, bias_shape = b ? B::shape(*b) : Shape{};
        const rules::AttentionPlan p = rules::plan_attention(
            B::shape(q), B::dtype(q), B::shape(k), B::dtype(k), B::shape(v), B::dtype(v), m ? &mask_shape : nullptr,
            m ? B::dtype(*m) : DType::Bool, b ? &bias_shape : nullptr, b ? B::dtype(*b) : B::dtype(q), std::get<5>(args));
        return std::max(bytes_of(p.out, B::dtype(q)), bytes_of(p.scores, B::dtype(q)));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, std::size_t, std::optional<std::size_t>>>) {
        // rfft: n / 2 + 1 bins per row whatever the signal's length, and the n x (n / 2 + 1) DFT matrix.
        const T& x = std::get<0>(args).get();
        const rules::FftPlan p = rules::plan_rfft(B::shape(x), B::dtype(x), std::get<1>(args), std::get<2>(args));
        return std::max(bytes_of(p.out, B::dtype(x)), bytes_of(Shape{p.n_fft, p.bins}, DType::F64));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef, std::size_t, std::optional<std::size_t>>>) {
        // irfft: n samples per row from any number of bins, and the DFT matrix.
        const T& re = std::get<0>(args).get();
        const T& im = std::get<1>(args).get();
        const rules::FftPlan p =
            rules::plan_irfft(B::shape(re), B::dtype(re), B::shape(im), B::dtype(im), std::get<2>(args), std::get<3>(args));
        return std::max(bytes_of(p.out, B::dtype(re)), bytes_of(Shape{p.n_fft, p.bins}, DType::F64));
      } else if constexpr (std::is_same_v<Args, std::tuple<CRef, CRef, CRef>>) {
        // mask_where: the tensor, the mask and the value broadcast.
        if (op_stem(op) != "mask_where") return std::nullopt;
        const T& t = std::get<0>(args).get();
        const Shape tm = rules::broadcast_shapes(B::shape(t), B::shape(std::get<1>(args).get()), info.name);
        return bytes_of(rules::broadcast_shapes(tm, B::shape(std::get<2>(args).get()), info.name), B::dtype(t));
      }
    } catch (const Panic&) {
      return std::nullopt;
    }
    return std::nullopt;
  }

  std::unordered_map<std::uint64_t, T> tensors_;
  std::optional<T> pending_;
};

template <class B>
class Served final : public ServedBackend {
 public:
  std::string_view name() const override { return B::name; }
  std::unique_ptr<TensorTable> new_table() const override { return std::make_unique<Table<B>>(); }
};

}  // namespace

std::unique_ptr<ServedBackend> make_served_backend(std::string_view name) {
  std::unique_ptr<ServedBackend> out;
  std::string refusal;
  for_each_backend([&]<class B>() {
    if constexpr (B::name == std::string_view("Remote")) {
      if (name == B::name) refusal = "crossgrad-server serves a local backend, not Remote";
    } else {
      if (name != B::name) return;
      if (!B::is_available()) {
        refusal = "backend " + std::string(name) + " is not available here: " + B::unavailable_reason();
      } else {
        out = std::make_unique<Served<B>>();
      }
    }
  });
  if (out) return out;
  if (refusal.empty()) {
    std::string served;
    for (const BackendInfo& info : registered_backends()) {
      if (info.name == name && !info.built) {
        refusal = "backend " + std::string(name) + " is not built here (" + info.unavailable_reason + ")";
      }
      if (info.available && info.name != "Remote") served += (served.empty() ? "" : ", ") + std::string(info.name);
    }
    if (refusal.empty()) refusal = "unknown backend '" + std::string(name) + "' (available: " + served + ")";
  }
  throw std::invalid_argument(refusal);
}

}  // namespace crossgrad::server
