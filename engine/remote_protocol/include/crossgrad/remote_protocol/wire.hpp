#pragma once
// Note [Remote wire codec]
// The one codec of the Remote protocol (engine/remote_protocol/crossgrad_remote.proto), shared by the client
// (the Remote backend, engine/src/backends/remote/) and crossgrad-server (server/), so that both
// sides agree by construction. Not installed, and included only by those two and their tests: it
// pulls in protobuf.
//
// Op arguments are packed and read by *type*, in parameter order, never per op: a backend op's
// parameter list (CROSSGRAD_SIG_PARAMS_<Sig>, Note [Op signatures]) is walked left to right and
// each parameter goes to the field its type names:
//   tensor (a handle)            -> operands        std::vector<tensor> (Cat) -> operands (all)
//   double                       -> scalars         std::size_t               -> dims
//   std::vector<std::size_t>     -> dims (all)      Shape                     -> shape
//   DType                        -> dtype           std::vector<Range>        -> ranges
//   Size2                        -> dims (2)        AvgPool2dOptions          -> dims (8: kernel_size,
//                                                      stride, padding, count_include_pad, ceil_mode)
//   MaxPool2dOptions             -> dims (9: kernel_size, stride, padding, dilation, ceil_mode)
//   std::optional<tensor>        -> dims (1: present or not), then operands (the handle, if present)
//   Conv2dOptions                -> dims (7: stride, padding, dilation, groups)
//   ConvTranspose2dOptions       -> dims (9: stride, padding, padding_out, dilation, groups)
//   Conv1dOptions                -> dims (4: stride, padding, dilation, groups)
//   ConvTranspose1dOptions       -> dims (5: stride, padding, padding_out, dilation, groups)
//   Conv3dOptions                -> dims (10: stride, padding, dilation, groups)
//   ConvTranspose3dOptions       -> dims (13: stride, padding, padding_out, dilation, groups)
//   std::optional<std::size_t>   -> dims (1: present or not, then the size if present)
//   Size1                        -> dims (1)
//   Size3                        -> dims (3)
//   AvgPool1dOptions             -> dims (5: kernel_size, stride, padding, count_include_pad, ceil_mode)
//   MaxPool1dOptions             -> dims (5: kernel_size, stride, padding, dilation, ceil_mode)
//   UnfoldOptions                -> dims (6: stride, padding, dilation)
//   InterpolateOptions           -> dims (2: mode code, align_corners)
//   AttentionOptions             -> dims (3: scale given, softcap given, is_causal) and scalars
//                                   (2: scale, softcap; 0 for one not given)
// The client calls put_args(call, args...) with the op's arguments; the server walks the served
// backend's function type with an ArgReader, which throws WireError when an argument is missing or
// one is left over (finish()), so a call whose shape does not fit the op's Sig is INVALID_ARGUMENT.
#include "crossgrad_remote.pb.h"

#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/indexing_update.hpp>
#include <crossgrad/core/module_options.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace crossgrad::remote::wire {

// The generated messages (package crossgrad.remote) under a name that cannot be mistaken for the
// engine's own types (proto::TensorData vs crossgrad::TensorData).
namespace proto = ::crossgrad::remote;

// Call metadata: the token (request), the panic id and the lost marker (trailing).
inline constexpr char kTokenKey[] = "x-crossgrad-token";
inline constexpr char kPanicIdKey[] = "x-crossgrad-panic-id";
inline constexpr char kLostKey[] = "x-crossgrad-lost";
inline constexpr char kLostSession[] = "session";  // the value of kLostKey for an unknown session

// Codes of the backend members that are not registry ops (OpCall.op >= 1000, proto OpCode).
inline constexpr std::uint32_t kFloatFull = proto::FLOAT_FULL;
inline constexpr std::uint32_t kQuantize = proto::QUANTIZE;
inline constexpr std::uint32_t kDequantize = proto::DEQUANTIZE;

// A message that does not describe a valid call: bad dtype value, missing or extra argument,
// unknown op code. The server answers INVALID_ARGUMENT with what().
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Dims = ::google::protobuf::RepeatedField<std::uint64_t>;

void put_shape(const ::crossgrad::Shape& shape, Dims* out);
::crossgrad::Shape get_shape(const Dims& dims);

// The DType with numeric value `value` (CROSSGRAD_DTYPES order); WireError when out of range.
::crossgrad::DType get_dtype(std::uint32_t value);
inline std::uint32_t put_dtype(::crossgrad::DType dtype) { return static_cast<std::uint32_t>(dtype); }

void put_data(const ::crossgrad::TensorData& data, proto::TensorData* out);
// Validated through TensorData::from_bytes: bad bytes raise the same catalog panics as a local
// from_bytes would (data-length-mismatch, unsupported-dtype, shape-overflow, ...); a dtype value
// out of range throws WireError.
::crossgrad::TensorData get_data(const proto::TensorData& data);

// The wire name of an op code, for messages: "float_add", "float_full", or "op code 77".
std::string op_code_name(std::uint32_t op);

// ---- Client side: packing arguments ------------------------------------------------------------
// A tensor argument is anything with an ADL-visible `remote_handle_of(const T&)` returning its
// handle (the client's tensor type defines it); a raw handle can be passed as wire::Handle.
struct Handle {
  std::uint64_t id = 0;
};
inline std::uint64_t remote_handle_of(const Handle& h) { return h.id; }

template <class T>
concept HandleLike = requires(const T& t) {
  { remote_handle_of(t) } -> std::convertible_to<std::uint64_t>;
};

inline void put_arg(proto::OpCall& call, double scalar) { call.add_scalars(scalar); }
inline void put_arg(proto::OpCall& call, std::size_t dim) { call.add_dims(dim); }
// A flag (float_sort's descending) travels as a dim of 0 or 1.
inline void put_arg(proto::OpCall& call, bool flag) { call.add_dims(flag ? 1 : 0); }
// An optional size (rfft's and irfft's n): a flag, then the size when present.
inline void put_arg(proto::OpCall& call, const std::optional<std::size_t>& size) {
  put_arg(call, size.has_value());
  if (size) call.add_dims(*size);
}
// An IndexingUpdateOp (float_scatter's update) travels as a dim holding its code.
inline void put_arg(proto::OpCall& call, ::crossgrad::IndexingUpdateOp update) {
  call.add_dims(static_cast<std::size_t>(update));
}
inline void put_arg(proto::OpCall& call, const std::vector<std::size_t>& dims) {
  for (std::size_t d : dims) call.add_dims(d);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Size2& size) {
  call.add_dims(size[0]);
  call.add_dims(size[1]);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Size1& size) { call.add_dims(size[0]); }
inline void put_arg(proto::OpCall& call, const ::crossgrad::Size3& size) {
  for (std::size_t v : size) call.add_dims(v);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::InterpolateOptions& o) {
  call.add_dims(static_cast<std::uint64_t>(o.mode));
  call.add_dims(o.align_corners ? 1 : 0);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::AttentionOptions& o) {
  put_arg(call, o.scale.has_value());
  put_arg(call, o.softcap.has_value());
  put_arg(call, o.is_causal);
  call.add_scalars(o.scale.value_or(0.0));
  call.add_scalars(o.softcap.value_or(0.0));
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::UnfoldOptions& o) {
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.dilation);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::AvgPool1dOptions& o) {
  put_arg(call, o.kernel_size);
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.count_include_pad);
  put_arg(call, o.ceil_mode);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::MaxPool1dOptions& o) {
  put_arg(call, o.kernel_size);
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.dilation);
  put_arg(call, o.ceil_mode);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::MaxPool2dOptions& o) {
  put_arg(call, o.kernel_size);
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.dilation);
  put_arg(call, o.ceil_mode);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::AvgPool2dOptions& o) {
  put_arg(call, o.kernel_size);
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.count_include_pad);
  put_arg(call, o.ceil_mode);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Conv2dOptions& o) {
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.dilation);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Conv1dOptions& o) {
  call.add_dims(o.stride[0]);
  call.add_dims(o.padding[0]);
  call.add_dims(o.dilation[0]);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::ConvTranspose1dOptions& o) {
  call.add_dims(o.stride[0]);
  call.add_dims(o.padding[0]);
  call.add_dims(o.padding_out[0]);
  call.add_dims(o.dilation[0]);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::ConvTranspose2dOptions& o) {
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.padding_out);
  put_arg(call, o.dilation);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Conv3dOptions& o) {
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.dilation);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::ConvTranspose3dOptions& o) {
  put_arg(call, o.stride);
  put_arg(call, o.padding);
  put_arg(call, o.padding_out);
  put_arg(call, o.dilation);
  call.add_dims(o.groups);
}
inline void put_arg(proto::OpCall& call, const ::crossgrad::Shape& shape) {
  put_shape(shape, call.mutable_shape());
}
inline void put_arg(proto::OpCall& call, ::crossgrad::DType dtype) { call.set_dtype(put_dtype(dtype)); }
inline void put_arg(proto::OpCall& call, const std::vector<::crossgrad::Range>& ranges) {
  for (const ::crossgrad::Range& r : ranges) {
    proto::Range* out = call.add_ranges();
    out->set_start(r.start);
    out->set_end(r.end);
  }
}
template <HandleLike T>
void put_arg(proto::OpCall& call, const T& tensor) {
  call.add_operands(remote_handle_of(tensor));
}
template <HandleLike T>
void put_arg(proto::OpCall& call, const std::optional<T>& tensor) {
  put_arg(call, tensor.has_value());
  if (tensor) put_arg(call, *tensor);
}
template <HandleLike T>
void put_arg(proto::OpCall& call, const std::vector<T>& tensors) {
  for (const T& t : tensors) call.add_operands(remote_handle_of(t));
}

// Packs an op's arguments, in order, into `call` (op code and session are the caller's).
template <class... A>
void put_args(proto::OpCall& call, const A&... args) {
  (put_arg(call, args), ...);
}

// ---- Server side: reading arguments ------------------------------------------------------------
// Pulls arguments out of an OpCall in the order the op's parameters name them; each field is
// consumed front to back. finish() throws unless every field was consumed exactly.
class ArgReader {
 public:
  explicit ArgReader(const proto::OpCall& call) : call_(call) {}

  std::uint64_t operand();                         // the next operand handle
  std::vector<std::uint64_t> remaining_operands();  // all the rest (Cat); at least one
  std::optional<std::uint64_t> optional_operand();  // a flag (the next dim), then the handle if it is 1
  double scalar();
  std::size_t dim();
  bool flag();                                      // the next dim, 0 or 1 (WireError otherwise)
  std::optional<std::size_t> optional_size();       // a flag, then the size when it is 1
  ::crossgrad::IndexingUpdateOp update();           // the next dim, an update's code (WireError otherwise)
  std::vector<std::size_t> remaining_dims();        // all the rest (Axes)
  ::crossgrad::Size2 size2();                       // the next two dims
  ::crossgrad::AvgPool2dOptions avg_pool2d_options();  // the next eight dims (put_arg's order)
  ::crossgrad::Size1 size1();                          // the next dim
  ::crossgrad::Size3 size3();                          // the next three dims
  ::crossgrad::AvgPool1dOptions avg_pool1d_options();  // the next five dims (put_arg's order)
  ::crossgrad::MaxPool1dOptions max_pool1d_options();  // the next five dims (put_arg's order)
  ::crossgrad::UnfoldOptions unfold_options();          // the next six dims (put_arg's order)
  // The next two dims: a mode code below 256 (the engine refuses the codes it does not know with
  // its catalog panic, as for a local call), then align_corners.
  ::crossgrad::InterpolateOptions interpolate_options();
  ::crossgrad::AttentionOptions attention_options();  // three dims, then two scalars (put_arg's order)
  ::crossgrad::MaxPool2dOptions max_pool2d_options();  // the next nine dims (put_arg's order)
  ::crossgrad::Conv2dOptions conv2d_options();          // the next seven dims (put_arg's order)
  ::crossgrad::ConvTranspose2dOptions conv_transpose2d_options();  // the next nine dims (put_arg's order)
  ::crossgrad::Conv1dOptions conv1d_options();          // the next four dims (put_arg's order)
  ::crossgrad::ConvTranspose1dOptions conv_transpose1d_options();  // the next five dims (put_arg's order)
  ::crossgrad::Conv3dOptions conv3d_options();          // the next ten dims (put_arg's order)
  ::crossgrad::ConvTranspose3dOptions conv_transpose3d_options();  // the next thirteen dims (put_arg's order)
  ::crossgrad::Shape shape();                       // the whole shape field
  ::crossgrad::DType dtype();                       // the dtype field
  std::vector<::crossgrad::Range> ranges();         // the whole ranges field
  float scale() const { return call_.scale(); }     // dequantize's scale (no count check)

  // WireError naming what was left over (extra operands, scalars, dims, shape or ranges).
  void finish() const;

 private:
  const proto::OpCall& call_;
  int operands_ = 0;
  int scalars_ = 0;
  int dims_ = 0;
  bool shape_read_ = false;
  bool ranges_read_ = false;
};

}  // namespace crossgrad::remote::wire
