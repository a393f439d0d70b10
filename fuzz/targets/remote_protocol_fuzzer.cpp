// remote_protocol_fuzzer: arbitrary rpc sequences sent to crossgrad-server's transport-free Handler
// in process (no network). The server must answer every request with a status (an exception
// escaping Handler is a finding), the status must be the one the protocol documents for the
// situation wherever the scenario lets us know it, its statistics must stay within the limits this
// fuzzer's Handler was given and match a model of what each session holds, and at the end of every
// input, once the sessions it opened are closed, the server holds exactly what it held before.
// LeakSanitizer catches what the statistics cannot see.
#include <crossgrad/crossgrad.hpp>

#include "decode/remote_protocol.hpp"
#include "harness/target.hpp"
#include "targets/targets.hpp"

#if CROSSGRAD_WITH_REMOTE
#include <crossgrad/server/handler.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/catalog.hpp"
#endif

namespace crossgrad::fuzz {
namespace {

using namespace remote_protocol;

#if CROSSGRAD_WITH_REMOTE

namespace pb = ::crossgrad::remote;
using server::Handler;
using server::Metadata;
using server::Stats;

// Small limits, so that every limit is reachable within one input (at most kMaxSteps rpcs): a
// message limit under the session's byte limit, so that IntoData can exceed it.
constexpr char kToken[] = "remote-protocol-fuzzer-token-5f3a9c07";
constexpr std::size_t kMaxTensors = 16;
constexpr std::size_t kMaxSessionBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxMessageBytes = std::size_t{512} << 10;
constexpr std::size_t kMaxSessions = 8;
constexpr std::chrono::milliseconds kLease{3600 * 1000};  // nothing expires during an input
constexpr char kPanicIdKey[] = "x-crossgrad-panic-id";
constexpr char kLostKey[] = "x-crossgrad-lost";

// One Handler per process, never destroyed (it stays reachable, so LeakSanitizer does not count
// it); each input leaves it as it found it, which the input itself checks.
Handler &handler() {
  static Handler *const h = [] {
    server::ServerOptions o;
    o.backend = "Flex";
    o.token = kToken;
    o.max_tensors = kMaxTensors;
    o.max_session_bytes = kMaxSessionBytes;
    o.max_message_bytes = kMaxMessageBytes;
    o.max_sessions = kMaxSessions;
    o.lease = kLease;
    o.log = [](std::string_view) {};  // one line per ended session: not while fuzzing
    return new Handler(std::move(o));
  }();
  return *h;
}

std::string token_text(Token t) {
  const std::string right = kToken;
  switch (t) {
    case Token::Right:
      return right;
    case Token::WrongByte: {
      std::string w = right;
      w.back() = static_cast<char>(w.back() ^ 1);
      return w;
    }
    case Token::Empty:
      return "";
    case Token::Prefix:
      return right.substr(0, right.size() - 1);
    case Token::Longer:
      return right + "0";
    case Token::kCount:
      break;
  }
  return right;
}

// The gRPC code names, by value (grpc::StatusCode 0..16).
const char *code_name(grpc::StatusCode c) {
  static const char *const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(kNames) ? kNames[i] : "status code out of range";
}

std::optional<std::string> metadata(const Metadata &m, std::string_view key) {
  for (const auto &[k, v] : m) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::string stats_text(const Stats &s) {
  return "{sessions " + std::to_string(s.sessions) + ", tensors " + std::to_string(s.tensors) + ", bytes " +
         std::to_string(s.bytes) + "}";
}

std::string dims_text(const std::vector<std::uint64_t> &d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

template <class Repeated>
std::vector<std::uint64_t> to_vector(const Repeated &r) {
  return std::vector<std::uint64_t>(r.begin(), r.end());
}

// shape x dtype in bytes; nullopt when the dtype value is out of range or the count overflows.
std::optional<std::uint64_t> byte_count(const std::vector<std::uint64_t> &shape, std::uint32_t dtype) {
  if (dtype >= all_dtypes().size()) return std::nullopt;
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) {
    if (d == 0) return 0;
  }
  for (std::uint64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, std::uint64_t{dtype_size(all_dtypes()[dtype])}, &bytes)) return std::nullopt;
  return bytes;
}

// What the model knows of one tensor the server holds.
struct TensorInfo {
  std::vector<std::uint64_t> shape;
  std::uint32_t dtype = 0;
  std::uint64_t bytes = 0;
  std::optional<std::string> data;  // from FromData: the exact bytes IntoData must give back
};

struct SessionModel {
  std::map<std::uint64_t, TensorInfo> live;  // handle -> tensor
  std::set<std::uint64_t> returned;          // every handle a reply of this session named
  std::uint64_t bytes() const {
    std::uint64_t b = 0;
    for (const auto &[h, t] : live) b += t.bytes;
    return b;
  }
};

struct Answer {
  grpc::Status status;
  Metadata trailing;
};

// Which statuses a call may get, as far as the scenario lets us know.
using Codes = std::set<grpc::StatusCode>;

class Session;

// One input's run: the requests it sends, the model of what the server holds, the checks.
class Run {
 public:
  explicit Run(Outcome &out) : h_(handler()), out_(out), base_(h_.stats()) {}
  Run(const Run &) = delete;
  Run &operator=(const Run &) = delete;
  // A failed input still leaves the server as it found it, so the rerun with the log (and the next
  // input of a replay) starts clean.
  ~Run() {
    for (std::uint64_t id : opened_) {
      try {
        if (h_.session_live(id)) h_.client_gone(id);
      } catch (...) {
      }
    }
  }

  void step(const Step &s, std::size_t index) {
    step_ = "step " + std::to_string(index) + " (" + std::string(rpc_name(s.rpc)) + ")";
    out_.note([&] { return step_ + ": " + describe(s); });
    const std::string token = token_text(s.token);
    switch (s.rpc) {
      case Rpc::OpenSession:
        return open_session(token, pb::OpenSessionRequest{});
      case Rpc::CloseSession:
        return close_session(token, session_ref(s));
      case Rpc::KeepAlive:
        return keep_alive(token, session_ref(s));
      case Rpc::Attach:
        return attach(token, session_ref(s));
      case Rpc::FromData:
        return from_data(token, from_data_request(s));
      case Rpc::IntoData:
        return into_data(token, handle_request(s));
      case Rpc::Call:
        return call(token, op_call(s));
      case Rpc::Free: {
        pb::FreeRequest r;
        r.set_session(session(s.session));
        for (const HandleRef &f : s.frees) r.add_frees(handle(f));
        return free(token, r);
      }
      case Rpc::ClientGone:
        return client_gone(session(s.session));
      case Rpc::Reap:
        return reap();
      case Rpc::Raw:
        return raw(s, token);
      case Rpc::kCount:
        break;
    }
  }

  // Closes every session the input left open, then the server must hold what it held before.
  void finish() {
    step_ = "end of input";
    std::vector<std::uint64_t> open;
    for (const auto &[id, m] : sessions_) open.push_back(id);
    for (std::uint64_t id : open) {
      pb::SessionRef r;
      r.set_session(id);
      close_session(kToken, r);
    }
    for (std::uint64_t id : opened_) {
      if (h_.session_live(id)) fail("end of input: session " + std::to_string(id) + " is still live after its close");
    }
    const Stats now = h_.stats();
    if (!(now == base_))
      fail("the server leaks: it held " + stats_text(base_) + " before the input and " + stats_text(now) +
           " after every session the input opened was closed");
  }

 private:
  // ---- references
  std::uint64_t session(const SessionRef &r) const {
    switch (r.pick) {
      case SessionPick::Opened:
        return opened_.empty() ? 0 : opened_[r.index % opened_.size()];
      case SessionPick::Raw:
        return r.raw;
      case SessionPick::Zero:
      case SessionPick::kCount:
        break;
    }
    return 0;
  }
  std::uint64_t handle(const HandleRef &r) const {
    switch (r.pick) {
      case HandlePick::Returned:
        return returned_.empty() ? 0 : returned_[returned_.size() - 1 - r.index % returned_.size()];
      case HandlePick::Small:
        return r.index;
      case HandlePick::Raw:
        return r.raw;
      case HandlePick::kCount:
        break;
    }
    return 0;
  }
  pb::SessionRef session_ref(const Step &s) const {
    pb::SessionRef r;
    r.set_session(session(s.session));
    return r;
  }
  SessionModel *model(std::uint64_t id) {
    auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : &it->second;
  }

  // ---- requests from structured steps
  pb::FromDataRequest from_data_request(const Step &s) const {
    pb::FromDataRequest r;
    r.set_session(session(s.session));
    for (const HandleRef &f : s.frees) r.add_frees(handle(f));
    pb::TensorData *d = r.mutable_data();
    for (std::uint64_t dim : s.shape) d->add_shape(dim);
    const std::uint32_t dtype = dtype_value(s.dtype);
    d->set_dtype(dtype);
    std::string bytes(s.bytes.begin(), s.bytes.end());
    if (s.fill) {
      const std::optional<std::uint64_t> need = byte_count(s.shape, dtype);
      if (need && *need <= kMaxFill) {
        std::string filled(static_cast<std::size_t>(*need), '\0');
        for (std::size_t i = 0; !bytes.empty() && i < filled.size(); ++i) filled[i] = bytes[i % bytes.size()];
        bytes = std::move(filled);
      }
    }
    d->set_data(std::move(bytes));
    return r;
  }

  pb::HandleRequest handle_request(const Step &s) const {
    pb::HandleRequest r;
    r.set_session(session(s.session));
    r.set_handle(handle(s.handle));
    for (const HandleRef &f : s.frees) r.add_frees(handle(f));
    return r;
  }

  // What an op reads (Note [Op signatures], Note [Remote wire codec]): -1 = the whole field.
  struct Reads {
    int operands = 0, scalars = 0, dims = 0;
    bool shape = false, ranges = false;
  };
  static std::optional<Reads> reads_of(std::uint32_t op) {
    if (op == 1000) return Reads{0, 1, 0, true, false};   // float_full(shape, value, dtype)
    if (op == 1001) return Reads{1, 0, 0, false, false};  // quantize(tensor)
    if (op == 1002) return Reads{1, 0, 0, false, false};  // dequantize(tensor) + scale
    if (op >= kOpCount) return std::nullopt;
    switch (kOps[op].sig) {
      case OpSig::Unary:
        return Reads{1, 0, 0, false, false};
      case OpSig::Binary:
        return Reads{2, 0, 0, false, false};
      case OpSig::Scalar:
        return Reads{1, 1, 0, false, false};
      case OpSig::Bounds:
        return Reads{1, 2, 0, false, false};
      case OpSig::Dim:
        return Reads{1, 0, 1, false, false};
      case OpSig::DimPair:
        return Reads{1, 0, 2, false, false};
      case OpSig::ToShape:
        return Reads{1, 0, 0, true, false};
      case OpSig::ToDType:
        return Reads{1, 0, 0, false, false};
      case OpSig::Axes:
        return Reads{1, 0, -1, false, false};
      case OpSig::Ranges:
        return Reads{1, 0, 0, false, true};
      case OpSig::RangesAssign:
        return Reads{2, 0, 0, false, true};
      case OpSig::Select:
      case OpSig::Gather:
        return Reads{2, 0, 1, false, false};
      case OpSig::SelectAssign:
      case OpSig::Scatter:
        return Reads{3, 0, 1, false, false};
      case OpSig::ScatterUpdate:  // dim and the update's code
        return Reads{3, 0, 2, false, false};
      case OpSig::GatherNd:
        return Reads{2, 0, 0, false, false};
      case OpSig::ScatterNd:  // the update's code
        return Reads{3, 0, 1, false, false};
      case OpSig::MaskWhere:
        return Reads{3, 0, 0, false, false};
      case OpSig::Affine:
        return Reads{1, 2, 0, false, false};
      case OpSig::BinaryDim:
        return Reads{2, 0, 1, false, false};
      case OpSig::Repeat:
        return Reads{1, 0, 2, false, false};
      case OpSig::Window:
        return Reads{1, 0, 3, false, false};
      case OpSig::Sort:  // dim and the descending flag
      case OpSig::TopK:  // dim and k
        return Reads{1, 0, 2, false, false};
      case OpSig::MaskFill:
        return Reads{2, 1, 0, false, false};
      case OpSig::MaskSelect:
        return Reads{2, 0, 0, false, false};
      case OpSig::Cat:
        return Reads{-1, 0, 1, false, false};
      case OpSig::AvgPool2d:  // kernel_size, stride, padding (2 each), count_include_pad, ceil_mode
        return Reads{1, 0, 8, false, false};
      case OpSig::AvgPool2dBackward:
        return Reads{2, 0, 8, false, false};
      case OpSig::AdaptivePool2d:  // output_size
        return Reads{1, 0, 2, false, false};
      case OpSig::AdaptivePool2dBackward:
        return Reads{2, 0, 0, false, false};
      case OpSig::MaxPool2d:  // kernel_size, stride, padding, dilation (2 each), ceil_mode
        return Reads{1, 0, 9, false, false};
      case OpSig::MaxPool2dBackward:  // x, grad, indices
        return Reads{3, 0, 9, false, false};
      case OpSig::Unfold4d:  // kernel_size, then stride, padding, dilation (2 each)
        return Reads{1, 0, 8, false, false};
      case OpSig::Fold4d:  // output_size, kernel_size, then stride, padding, dilation (2 each)
        return Reads{1, 0, 10, false, false};
      case OpSig::AdaptivePool3d:  // output_size (3)
        return Reads{1, 0, 3, false, false};
      case OpSig::AdaptivePool3dBackward:
        return Reads{2, 0, 0, false, false};
      case OpSig::Interpolate:  // output_size, mode, align_corners
        return Reads{1, 0, 4, false, false};
      case OpSig::InterpolateBackward:
        return Reads{2, 0, 4, false, false};
      case OpSig::AvgPool1d:  // kernel_size, stride, padding (1 each), count_include_pad, ceil_mode
        return Reads{1, 0, 5, false, false};
      case OpSig::AvgPool1dBackward:
        return Reads{2, 0, 5, false, false};
      case OpSig::AdaptivePool1d:  // output_size
        return Reads{1, 0, 1, false, false};
      case OpSig::AdaptivePool1dBackward:
        return Reads{2, 0, 0, false, false};
      case OpSig::MaxPool1d:  // kernel_size, stride, padding, dilation (1 each), ceil_mode
        return Reads{1, 0, 5, false, false};
      case OpSig::MaxPool1dBackward:  // x, grad, indices
        return Reads{3, 0, 5, false, false};
      case OpSig::Embedding:  // weights, indices
        return Reads{2, 0, 0, false, false};
      case OpSig::EmbeddingBackward:  // weights, grad, indices
        return Reads{3, 0, 0, false, false};
      case OpSig::Linear:  // x, weight, the bias flag (a dim; op_call adds the bias when it is 1)
        return Reads{2, 0, 1, false, false};
      case OpSig::LinearXBackward:  // weight, grad
      case OpSig::LinearWeightBackward:  // x, grad
        return Reads{2, 0, 0, false, false};
      case OpSig::LinearBiasBackward:  // grad
        return Reads{1, 0, 0, false, false};
      case OpSig::Conv2d:  // x, weight, the bias flag, then stride, padding, dilation (2 each), groups
        return Reads{2, 0, 8, false, false};
      case OpSig::Conv2dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 7, false, false};
      case OpSig::Conv2dBiasBackward:  // x, bias, grad
        return Reads{3, 0, 0, false, false};
      case OpSig::ConvTranspose2d:  // x, weight, the bias flag, then stride, padding, padding_out, dilation (2 each), groups
        return Reads{2, 0, 10, false, false};
      case OpSig::ConvTranspose2dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 9, false, false};
      case OpSig::Conv1d:  // x, weight, the bias flag, then stride, padding, dilation, groups
        return Reads{2, 0, 5, false, false};
      case OpSig::Conv1dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 4, false, false};
      case OpSig::Conv1dBiasBackward:  // x, bias, grad
        return Reads{3, 0, 0, false, false};
      case OpSig::ConvTranspose1d:  // x, weight, the bias flag, then stride, padding, padding_out, dilation, groups
        return Reads{2, 0, 6, false, false};
      case OpSig::ConvTranspose1dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 5, false, false};
      case OpSig::Rfft:  // signal, dim, n's flag (fit: 0, none)
        return Reads{1, 0, 2, false, false};
      case OpSig::Irfft:  // real, imaginary, dim, n's flag
        return Reads{2, 0, 2, false, false};
      case OpSig::Conv3d:  // x, weight, the bias flag, then stride, padding, dilation (3 each), groups
        return Reads{2, 0, 11, false, false};
      case OpSig::Conv3dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 10, false, false};
      case OpSig::Conv3dBiasBackward:  // x, bias, grad
        return Reads{3, 0, 0, false, false};
      case OpSig::ConvTranspose3d:  // x, weight, the bias flag, then stride, padding, padding_out, dilation (3 each), groups
        return Reads{2, 0, 14, false, false};
      case OpSig::ConvTranspose3dBackward:  // x, weight, grad and the options
        return Reads{3, 0, 13, false, false};
      case OpSig::LayerNorm:  // x, weight, the bias flag, epsilon
        return Reads{2, 1, 1, false, false};
      case OpSig::BatchNorm:  // x, weight, bias, mean, variance, epsilon
        return Reads{5, 1, 0, false, false};
      case OpSig::Attention:  // query, key, value, the mask's and the bias's flags, then the options' three flags and two scalars
        return Reads{3, 2, 5, false, false};
    }
    return std::nullopt;
  }

  pb::OpCall op_call(const Step &s) const {
    pb::OpCall c;
    c.set_session(session(s.session));
    const std::uint32_t op = op_value(s.op);
    c.set_op(op);
    std::vector<std::uint64_t> operands;
    for (const HandleRef &o : s.operands) operands.push_back(handle(o));
    std::vector<double> scalars;
    for (const Scalar &x : s.scalars) scalars.push_back(scalar_value(x));
    std::vector<std::uint64_t> dims = s.dims, shape = s.shape;
    std::vector<RangeSpec> ranges = s.ranges;
    if (s.fit) {
      if (const std::optional<Reads> r = reads_of(op)) {
        const std::uint64_t recent = returned_.empty() ? 1 : returned_.back();
        if (r->operands >= 0) operands.resize(static_cast<std::size_t>(r->operands), recent);
        if (r->operands < 0 && operands.empty()) operands.push_back(recent);
        scalars.resize(static_cast<std::size_t>(r->scalars), 1.0);
        if (r->dims >= 0) dims.resize(static_cast<std::size_t>(r->dims), 0);
        const bool bias_flag = op == static_cast<std::uint32_t>(OpId::linear) || op == static_cast<std::uint32_t>(OpId::conv2d) ||
                               op == static_cast<std::uint32_t>(OpId::conv_transpose2d) ||
                               op == static_cast<std::uint32_t>(OpId::conv1d) ||
                               op == static_cast<std::uint32_t>(OpId::conv_transpose1d) ||
                               op == static_cast<std::uint32_t>(OpId::conv3d) ||
                               op == static_cast<std::uint32_t>(OpId::conv_transpose3d) ||
                               op == static_cast<std::uint32_t>(OpId::layer_norm);
        if (bias_flag && dims[0] == 1) operands.resize(3, recent);
        // attention: a handle after each optional operand's flag that is 1 (the mask, the bias).
        if (op == static_cast<std::uint32_t>(OpId::attention)) operands.resize(3 + (dims[0] == 1) + (dims[1] == 1), recent);
        if (!r->shape) shape.clear();
        if (!r->ranges) ranges.clear();
      }
    }
    for (std::uint64_t o : operands) c.add_operands(o);
    for (double x : scalars) c.add_scalars(x);
    for (std::uint64_t d : dims) c.add_dims(d);
    for (std::uint64_t d : shape) c.add_shape(d);
    c.set_dtype(dtype_value(s.dtype));
    for (const RangeSpec &r : ranges) {
      pb::Range *out = c.add_ranges();
      out->set_start(r.start);
      out->set_end(r.end);
    }
    for (const HandleRef &f : s.frees) c.add_frees(handle(f));
    c.set_scale(scale_value(s.scale));
    return c;
  }

  // Raw bytes parsed into the request type (a failed parse still leaves a message, maybe partly
  // filled: it is sent all the same), optionally aimed at a resolved session.
  void raw(const Step &s, const std::string &token) {
    const void *data = s.bytes.data();
    const int size = static_cast<int>(s.bytes.size());
    auto parse = [&](auto &message) {
      (void)message.ParseFromArray(data, size);
      if constexpr (requires { message.set_session(std::uint64_t{0}); }) {
        if (s.aim) message.set_session(session(s.session));
      }
    };
    switch (s.raw_as) {
      case Rpc::OpenSession: {
        pb::OpenSessionRequest r;
        parse(r);
        return open_session(token, r);
      }
      case Rpc::CloseSession: {
        pb::SessionRef r;
        parse(r);
        return close_session(token, r);
      }
      case Rpc::KeepAlive: {
        pb::SessionRef r;
        parse(r);
        return keep_alive(token, r);
      }
      case Rpc::FromData: {
        pb::FromDataRequest r;
        parse(r);
        return from_data(token, r);
      }
      case Rpc::IntoData: {
        pb::HandleRequest r;
        parse(r);
        return into_data(token, r);
      }
      case Rpc::Call: {
        pb::OpCall r;
        parse(r);
        return call(token, r);
      }
      case Rpc::Free: {
        pb::FreeRequest r;
        parse(r);
        return free(token, r);
      }
      case Rpc::Attach: {
        pb::SessionRef r;
        parse(r);
        return attach(token, r);
      }
      case Rpc::ClientGone:
      case Rpc::Reap:
      case Rpc::Raw:
      case Rpc::kCount:
        break;  // not request types (the decoder picks raw_as among the rpcs up to Attach)
    }
  }

  // ---- sending and checking
  // Runs one Handler method; an exception escaping it is a finding.
  template <class F>
  Answer invoke(const char *method, F &&f) {
    Answer a;
    try {
      a.status = f(&a.trailing);
    } catch (const std::exception &e) {
      fail(step_ + ": an exception escaped Handler::" + method + ": " + e.what());
    } catch (...) {
      fail(step_ + ": an exception of unknown type escaped Handler::" + method);
    }
    out_.note([&] {
      return "  -> " + std::string(code_name(a.status.error_code())) +
             (a.status.ok() ? std::string() : " \"" + a.status.error_message() + "\"");
    });
    return a;
  }

  [[noreturn]] void wrong(const Answer &a, const std::string &why) {
    fail(step_ + ": " + why + "; got " + code_name(a.status.error_code()) + " \"" + a.status.error_message() + "\"");
  }

  // Checks every answer must pass: a code the situation allows, a message when not OK, a
  // FAILED_PRECONDITION that names a catalog panic whose pattern its message matches, the lost
  // marker exactly on an unknown session.
  void check(const Answer &a, const Codes &allowed, const std::string &situation, bool session_unknown = false) {
    const grpc::StatusCode code = a.status.error_code();
    if (!allowed.count(code)) {
      std::string list;
      for (grpc::StatusCode c : allowed) list += (list.empty() ? "" : " or ") + std::string(code_name(c));
      wrong(a, situation + ": expected " + list);
    }
    if (!a.status.ok() && a.status.error_message().empty()) wrong(a, "a failed call without a message");
    const std::optional<std::string> lost = metadata(a.trailing, kLostKey);
    if (session_unknown && lost != "session") wrong(a, "an unknown session without x-crossgrad-lost: session");
    if (!session_unknown && lost) wrong(a, "x-crossgrad-lost on a call whose session is live");
    const std::optional<std::string> id = metadata(a.trailing, kPanicIdKey);
    if (code == grpc::StatusCode::FAILED_PRECONDITION) {
      if (!id) wrong(a, "FAILED_PRECONDITION without x-crossgrad-panic-id");
      std::optional<PanicId> found;
      for (PanicId p : all_panic_ids()) {
        if (panic_id_name(p) == *id) found = p;
      }
      if (!found) wrong(a, "x-crossgrad-panic-id \"" + *id + "\" is not a catalog id");
      if (std::optional<std::string> bad = check_catalogued(Panic(*found, a.status.error_message())))
        wrong(a, "a FAILED_PRECONDITION whose message is not its catalog entry's: " + *bad);
      out_.panics.insert(*found);
    } else if (id) {
      wrong(a, "x-crossgrad-panic-id on a status other than FAILED_PRECONDITION");
    }
  }

  // The statistics match the model: sessions exactly, tensors and bytes exactly, all within the
  // limits.
  void check_stats() {
    const Stats now = h_.stats();
    Stats want = base_;
    want.sessions += sessions_.size();
    for (const auto &[id, m] : sessions_) {
      want.tensors += m.live.size();
      want.bytes += m.bytes();
      if (m.live.size() > kMaxTensors)
        fail(step_ + ": session " + std::to_string(id) + " holds " + std::to_string(m.live.size()) +
             " tensors, over --max-tensors " + std::to_string(kMaxTensors));
      if (m.bytes() > kMaxSessionBytes)
        fail(step_ + ": session " + std::to_string(id) + " holds " + std::to_string(m.bytes()) +
             " bytes, over --max-session-bytes " + std::to_string(kMaxSessionBytes));
    }
    if (now.sessions > kMaxSessions)
      fail(step_ + ": " + std::to_string(now.sessions) + " live sessions, over --max-sessions " +
           std::to_string(kMaxSessions));
    if (!(now == want))
      fail(step_ + ": the server holds " + stats_text(now) + " but the replies so far leave " + stats_text(want));
  }

  // The common path of every session rpc: wrong token -> UNAUTHENTICATED and nothing changed;
  // unknown session -> NOT_FOUND + lost and nothing changed. Returns the session's model when the
  // call reached a live session (the caller checks the rest), else nullptr (already checked).
  SessionModel *screen(const Answer &a, const std::string &token, std::uint64_t id, const Stats &before) {
    if (token != kToken) {
      check(a, {grpc::StatusCode::UNAUTHENTICATED}, "a wrong or empty token");
      if (!(h_.stats() == before))
        fail(step_ + ": a call with a wrong token changed the server: " + stats_text(before) + " -> " +
             stats_text(h_.stats()));
      for (const auto &[sid, m] : sessions_) {
        if (!h_.session_live(sid)) fail(step_ + ": a call with a wrong token ended session " + std::to_string(sid));
      }
      return nullptr;
    }
    SessionModel *m = model(id);
    if (m == nullptr) {
      check(a, {grpc::StatusCode::NOT_FOUND}, "session " + std::to_string(id) + " is not live", true);
      if (!(h_.stats() == before))
        fail(step_ + ": a call on an unknown session changed the server: " + stats_text(before) + " -> " +
             stats_text(h_.stats()));
      return nullptr;
    }
    return m;
  }

  // Frees are freed before the call's own work, whatever its outcome (proto: OpCall.frees).
  template <class Repeated>
  void apply_frees(SessionModel &m, const Repeated &frees) {
    for (std::uint64_t f : frees) m.live.erase(f);
  }

  // A reply naming a new tensor: a handle never named before in the session, a valid dtype and
  // a byte count within the session's limit.
  TensorInfo &record(SessionModel &m, const Answer &a, const pb::TensorReply &reply) {
    const std::uint64_t handle = reply.handle();
    if (handle == 0 || m.returned.count(handle))
      wrong(a, "reply handle " + std::to_string(handle) + " is 0 or was named before in this session");
    const std::vector<std::uint64_t> shape = to_vector(reply.shape());
    const std::optional<std::uint64_t> bytes = byte_count(shape, reply.dtype());
    if (!bytes)
      wrong(a, "reply shape " + dims_text(shape) + " with dtype value " + std::to_string(reply.dtype()) +
                   " has no byte count");
    m.returned.insert(handle);
    returned_.push_back(handle);
    TensorInfo &t = m.live[handle];
    t.shape = shape;
    t.dtype = reply.dtype();
    t.bytes = *bytes;
    return t;
  }

  void open_session(const std::string &token, const pb::OpenSessionRequest &r) {
    const Stats before = h_.stats();
    pb::OpenSessionReply reply;
    const Answer a = invoke("open_session", [&](Metadata *t) { return h_.open_session(token, r, &reply, t); });
    if (token != kToken) {
      screen(a, token, 0, before);
      if (reply.session() != 0) wrong(a, "a refused OpenSession returned a session id");
      return;
    }
    if (before.sessions >= kMaxSessions) {
      check(a, {grpc::StatusCode::RESOURCE_EXHAUSTED}, std::to_string(before.sessions) + " sessions are live");
      if (a.status.error_message().find("--max-sessions") == std::string::npos)
        wrong(a, "the session limit's message does not name --max-sessions");
    } else {
      check(a, {grpc::StatusCode::OK}, "a session under the limit");
      const std::uint64_t id = reply.session();
      if (model(id) != nullptr || std::count(opened_.begin(), opened_.end(), id))
        wrong(a, "OpenSession returned session " + std::to_string(id) + " again");
      if (reply.backend() != "Flex") wrong(a, "OpenSession names backend \"" + reply.backend() + "\", not Flex");
      if (reply.lease_ms() != static_cast<std::uint32_t>(kLease.count())) wrong(a, "OpenSession gives lease " + std::to_string(reply.lease_ms()));
      opened_.push_back(id);
      sessions_[id];
    }
    check_stats();
  }

  void close_session(const std::string &token, const pb::SessionRef &r) {
    const Stats before = h_.stats();
    pb::Empty reply;
    const Answer a = invoke("close_session", [&](Metadata *t) { return h_.close_session(token, r, &reply, t); });
    if (screen(a, token, r.session(), before) == nullptr) return check_stats();
    check(a, {grpc::StatusCode::OK}, "closing a live session");
    sessions_.erase(r.session());
    if (h_.session_live(r.session())) wrong(a, "the session is live after its CloseSession");
    check_stats();
  }

  void keep_alive(const std::string &token, const pb::SessionRef &r) {
    const Stats before = h_.stats();
    pb::Empty reply;
    const Answer a = invoke("keep_alive", [&](Metadata *t) { return h_.keep_alive(token, r, &reply, t); });
    if (screen(a, token, r.session(), before) != nullptr) check(a, {grpc::StatusCode::OK}, "a live session");
    check_stats();
  }

  void attach(const std::string &token, const pb::SessionRef &r) {
    const Stats before = h_.stats();
    const Answer a = invoke("attach", [&](Metadata *t) { return h_.attach(token, r, t); });
    if (screen(a, token, r.session(), before) != nullptr) check(a, {grpc::StatusCode::OK}, "a live session");
    check_stats();
  }

  void from_data(const std::string &token, const pb::FromDataRequest &r) {
    const Stats before = h_.stats();
    pb::TensorReply reply;
    const Answer a = invoke("from_data", [&](Metadata *t) { return h_.from_data(token, r, &reply, t); });
    SessionModel *m = screen(a, token, r.session(), before);
    if (m == nullptr) return check_stats();
    apply_frees(*m, r.frees());
    const std::vector<std::uint64_t> shape = to_vector(r.data().shape());
    const std::uint32_t dtype = r.data().dtype();
    const std::optional<std::uint64_t> need = byte_count(shape, dtype);
    const std::size_t size = r.data().data().size();
    if (r.data().bulk_transfer() != 0) {  // this Handler has no bulk channel (Note [Remote bulk channel])
      check(a, {grpc::StatusCode::INVALID_ARGUMENT}, "a bulk transfer without a bulk channel");
    } else if (size > kMaxMessageBytes) {  // a request over the message limit is refused before it is read
      check(a, {grpc::StatusCode::RESOURCE_EXHAUSTED}, "data over --max-message-bytes");
    } else if (dtype >= all_dtypes().size()) {
      check(a, {grpc::StatusCode::INVALID_ARGUMENT}, "dtype value " + std::to_string(dtype) + " is out of range");
    } else if (valid_plain_data(r.data(), need) && m->live.size() < kMaxTensors &&
               m->bytes() + *need <= kMaxSessionBytes) {
      check(a, {grpc::StatusCode::OK}, "valid data within the session's limits");
    } else {
      check(a,
            {grpc::StatusCode::OK, grpc::StatusCode::FAILED_PRECONDITION, grpc::StatusCode::RESOURCE_EXHAUSTED},
            "data for a live session");
    }
    if (a.status.ok()) {
      if (!need || *need != size)
        wrong(a, "accepted " + std::to_string(size) + " bytes for shape " + dims_text(shape) + " and dtype value " +
                     std::to_string(dtype));
      TensorInfo &t = record(*m, a, reply);
      if (t.shape != shape || t.dtype != dtype)
        wrong(a, "FromData's reply names shape " + dims_text(t.shape) + " dtype " + std::to_string(t.dtype) +
                     " for data of shape " + dims_text(shape) + " dtype " + std::to_string(dtype));
      t.data = r.data().data();
    }
    check_stats();
  }

  // Data every local backend must accept (CONTRACT section 1): an implemented non-bool, non-quantized
  // dtype and exactly the bytes its shape needs.
  static bool valid_plain_data(const pb::TensorData &d, std::optional<std::uint64_t> need) {
    if (!need || *need != d.data().size()) return false;
    const DType t = all_dtypes()[d.dtype()];
    return t == DType::F64 || t == DType::F32 || t == DType::I64 || t == DType::I32 || t == DType::I8 ||
           t == DType::U8;
  }

  void into_data(const std::string &token, const pb::HandleRequest &r) {
    const Stats before = h_.stats();
    pb::TensorData reply;
    const Answer a = invoke("into_data", [&](Metadata *t) { return h_.into_data(token, r, &reply, t); });
    SessionModel *m = screen(a, token, r.session(), before);
    if (m == nullptr) return check_stats();
    apply_frees(*m, r.frees());
    auto it = m->live.find(r.handle());
    if (r.bulk()) {  // this Handler has no bulk channel
      check(a, {grpc::StatusCode::INVALID_ARGUMENT}, "a bulk download without a bulk channel");
    } else if (it == m->live.end()) {
      check(a, {grpc::StatusCode::NOT_FOUND}, "handle " + std::to_string(r.handle()) + " is not held");
    } else if (it->second.bytes > kMaxMessageBytes) {
      check(a, {grpc::StatusCode::RESOURCE_EXHAUSTED}, "a tensor over --max-message-bytes");
    } else {
      check(a, {grpc::StatusCode::OK}, "a held tensor");
      const TensorInfo &t = it->second;
      if (to_vector(reply.shape()) != t.shape || reply.dtype() != t.dtype || reply.data().size() != t.bytes)
        wrong(a, "IntoData gave shape " + dims_text(to_vector(reply.shape())) + " dtype " +
                     std::to_string(reply.dtype()) + " " + std::to_string(reply.data().size()) +
                     " bytes for a tensor of shape " + dims_text(t.shape) + " dtype " + std::to_string(t.dtype));
      if (t.data && reply.data() != *t.data) wrong(a, "IntoData did not give back the bytes FromData sent");
    }
    check_stats();
  }

  void call(const std::string &token, const pb::OpCall &r) {
    const Stats before = h_.stats();
    pb::TensorReply reply;
    const Answer a = invoke("call", [&](Metadata *t) { return h_.call(token, r, &reply, t); });
    SessionModel *m = screen(a, token, r.session(), before);
    if (m == nullptr) return check_stats();
    apply_frees(*m, r.frees());
    const std::uint32_t op = r.op();
    const bool known_op = op < kOpCount || op == 1000 || op == 1001 || op == 1002;
    bool unknown_operand = false;
    for (std::uint64_t o : r.operands()) unknown_operand = unknown_operand || !m->live.count(o);
    if (m->live.size() >= kMaxTensors) {
      check(a, {grpc::StatusCode::RESOURCE_EXHAUSTED}, "a session at --max-tensors");
    } else if (!known_op) {
      check(a, {grpc::StatusCode::INVALID_ARGUMENT}, "op code " + std::to_string(op) + " is not an op");
    } else if (unknown_operand) {
      check(a, {grpc::StatusCode::NOT_FOUND, grpc::StatusCode::INVALID_ARGUMENT}, "an operand handle is not held");
    } else {
      check(a,
            {grpc::StatusCode::OK, grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::FAILED_PRECONDITION,
             grpc::StatusCode::RESOURCE_EXHAUSTED},
            "an op on held tensors");
    }
    if (a.status.ok()) record(*m, a, reply);
    check_stats();
  }

  void free(const std::string &token, const pb::FreeRequest &r) {
    const Stats before = h_.stats();
    pb::Empty reply;
    const Answer a = invoke("free", [&](Metadata *t) { return h_.free(token, r, &reply, t); });
    SessionModel *m = screen(a, token, r.session(), before);
    if (m != nullptr) {
      check(a, {grpc::StatusCode::OK}, "Free on a live session (unknown handles are not an error)");
      apply_frees(*m, r.frees());
    }
    check_stats();
  }

  void client_gone(std::uint64_t id) {
    try {
      h_.client_gone(id);
    } catch (const std::exception &e) {
      fail(step_ + ": an exception escaped Handler::client_gone: " + e.what());
    }
    sessions_.erase(id);
    if (h_.session_live(id)) fail(step_ + ": session " + std::to_string(id) + " is live after client_gone");
    check_stats();
  }

  void reap() {
    std::size_t n = 0;
    try {
      n = h_.reap_expired();
    } catch (const std::exception &e) {
      fail(step_ + ": an exception escaped Handler::reap_expired: " + e.what());
    }
    if (n != 0) fail(step_ + ": reap_expired ended " + std::to_string(n) + " sessions within their hour-long lease");
    check_stats();
  }

  Handler &h_;
  Outcome &out_;
  const Stats base_;
  std::string step_;
  std::vector<std::uint64_t> opened_;                // every session this input opened, in order
  std::map<std::uint64_t, SessionModel> sessions_;   // the live ones
  std::vector<std::uint64_t> returned_;              // every handle a reply named, in order
};

#endif  // CROSSGRAD_WITH_REMOTE

ProtocolCase decode(Bytes bytes) {
  return decode_with<ProtocolCase>(bytes, [](auto &io, auto &x) { schema(io, x); });
}

void run(Bytes bytes, Outcome &out) {
  const ProtocolCase c = decode(bytes);
#if CROSSGRAD_WITH_REMOTE
  Run r(out);
  for (std::size_t i = 0; i < c.steps.size(); ++i) r.step(c.steps[i], i);
  r.finish();
#else
  // Like a scenario naming a backend this build lacks: counted, never run.
  (void)c;
  out.not_applicable = "Remote: not built with gRPC";
  out.note([&] { return "not applicable here (" + *out.not_applicable + ")"; });
#endif
}

std::string describe_bytes(Bytes bytes) { return describe(decode(bytes)); }

}  // namespace

const Target kRemoteProtocolTarget{"remote_protocol_fuzzer", &describe_bytes, &run};

}  // namespace crossgrad::fuzz
