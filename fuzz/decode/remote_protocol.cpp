#include "decode/remote_protocol.hpp"

#include <crossgrad/core/dtype.hpp>
#include <crossgrad/ops/op_list.hpp>
#include <bit>
#include <cstring>
#include <limits>
#include <sstream>

#include "decode/op_args.hpp"

namespace crossgrad::fuzz::remote_protocol {

double scalar_value(const Scalar &s) {
  if (s.code < kScalarTable) return op_args::float_value(s.code);
  return std::bit_cast<double>(s.bits);
}

float scale_value(const Scalar &s) {
  static const float kScales[kScaleTable] = {1.0f,
                                             0.5f,
                                             0.0f,
                                             -1.0f,
                                             std::numeric_limits<float>::denorm_min(),
                                             std::numeric_limits<float>::max(),
                                             std::numeric_limits<float>::quiet_NaN(),
                                             std::numeric_limits<float>::infinity()};
  if (s.code < kScaleTable) return kScales[s.code];
  return std::bit_cast<float>(static_cast<std::uint32_t>(s.bits));
}

std::uint32_t dtype_value(const DTypeField &d) {
  return d.code < kDTypeCodes ? static_cast<std::uint32_t>(d.code) : d.raw;
}

std::uint32_t op_value(const OpField &o) {
  if (o.code < kLowOpCodes) return static_cast<std::uint32_t>(o.code);
  if (o.code >= kLowOpCodes + kSpecialOpCodes) return static_cast<std::uint32_t>(o.code - kSpecialOpCodes);
  switch (o.code - kLowOpCodes) {
    case 0:
      return 1000;  // FLOAT_FULL
    case 1:
      return 1001;  // QUANTIZE
    case 2:
      return 1002;  // DEQUANTIZE
    case 3:
      return 999;
    default:
      return o.raw;
  }
}

std::string_view rpc_name(Rpc r) {
  switch (r) {
    case Rpc::OpenSession:
      return "OpenSession";
    case Rpc::CloseSession:
      return "CloseSession";
    case Rpc::KeepAlive:
      return "KeepAlive";
    case Rpc::FromData:
      return "FromData";
    case Rpc::IntoData:
      return "IntoData";
    case Rpc::Call:
      return "Call";
    case Rpc::Free:
      return "Free";
    case Rpc::Attach:
      return "Attach";
    case Rpc::ClientGone:
      return "client_gone";
    case Rpc::Reap:
      return "reap_expired";
    case Rpc::Raw:
      return "Raw";
    case Rpc::kCount:
      break;
  }
  return "?";
}

std::string_view token_name(Token t) {
  switch (t) {
    case Token::Right:
      return "right";
    case Token::WrongByte:
      return "wrong-byte";
    case Token::Empty:
      return "empty";
    case Token::Prefix:
      return "prefix";
    case Token::Longer:
      return "longer";
    case Token::kCount:
      break;
  }
  return "?";
}

std::string describe(const SessionRef &s) {
  switch (s.pick) {
    case SessionPick::Opened:
      return "opened#" + std::to_string(s.index);
    case SessionPick::Raw:
      return "raw:" + std::to_string(s.raw);
    case SessionPick::Zero:
      return "0";
    case SessionPick::kCount:
      break;
  }
  return "?";
}

std::string describe(const HandleRef &h) {
  switch (h.pick) {
    case HandlePick::Returned:
      return "returned#" + std::to_string(h.index);
    case HandlePick::Small:
      return std::to_string(h.index);
    case HandlePick::Raw:
      return "raw:" + std::to_string(h.raw);
    case HandlePick::kCount:
      break;
  }
  return "?";
}

namespace {

std::string handle_list(const std::vector<HandleRef> &hs) {
  std::string s = "[";
  for (std::size_t i = 0; i < hs.size(); ++i) s += (i ? ", " : "") + describe(hs[i]);
  return s + "]";
}

std::string dims_text(const std::vector<std::uint64_t> &dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string dtype_text(const DTypeField &d) {
  const std::uint32_t v = dtype_value(d);
  if (v < all_dtypes().size()) return std::string(dtype_name(all_dtypes()[v]));
  return "dtype#" + std::to_string(v);
}

std::string op_text(const OpField &o) {
  const std::uint32_t v = op_value(o);
  if (v < kOpCount) return std::string(kOps[v].name);
  if (v == 1000) return "float_full";
  if (v == 1001) return "quantize";
  if (v == 1002) return "dequantize";
  return "op#" + std::to_string(v);
}

std::string double_text(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string hex(const std::vector<std::uint8_t> &b, std::size_t max) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < b.size() && i < max; ++i) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  if (b.size() > max) s += "...";
  return s;
}

}  // namespace

std::string describe(const Step &s) {
  std::ostringstream os;
  os << rpc_name(s.rpc);
  if (s.rpc != Rpc::ClientGone && s.rpc != Rpc::Reap && s.token != Token::Right) os << " token=" << token_name(s.token);
  if (s.rpc != Rpc::OpenSession && s.rpc != Rpc::Reap) os << " session=" << describe(s.session);
  if (s.rpc == Rpc::FromData) {
    os << " shape=" << dims_text(s.shape) << " dtype=" << dtype_text(s.dtype) << " bytes=" << s.bytes.size()
       << (s.fill ? " fill" : "") << (s.bytes.empty() ? "" : " (" + hex(s.bytes, 16) + ")");
  } else if (s.rpc == Rpc::IntoData) {
    os << " handle=" << describe(s.handle);
  } else if (s.rpc == Rpc::Call) {
    os << " op=" << op_text(s.op) << (s.fit ? " fit" : "") << " operands=" << handle_list(s.operands);
    if (!s.scalars.empty()) {
      os << " scalars=[";
      for (std::size_t i = 0; i < s.scalars.size(); ++i) os << (i ? ", " : "") << double_text(scalar_value(s.scalars[i]));
      os << "]";
    }
    if (!s.dims.empty()) os << " dims=" << dims_text(s.dims);
    if (!s.shape.empty()) os << " shape=" << dims_text(s.shape);
    os << " dtype=" << dtype_text(s.dtype);
    if (!s.ranges.empty()) {
      os << " ranges=[";
      for (std::size_t i = 0; i < s.ranges.size(); ++i)
        os << (i ? ", " : "") << s.ranges[i].start << ".." << s.ranges[i].end;
      os << "]";
    }
    os << " scale=" << double_text(scale_value(s.scale));
  } else if (s.rpc == Rpc::Raw) {
    os << " as " << rpc_name(s.raw_as) << (s.aim ? " aimed" : "") << " bytes=" << s.bytes.size() << " ("
       << hex(s.bytes, 32) << ")";
  }
  if (!s.frees.empty()) os << " frees=" << handle_list(s.frees);
  return os.str();
}

std::string describe(const ProtocolCase &c) {
  std::string s = "remote_protocol: " + std::to_string(c.steps.size()) + " steps";
  for (std::size_t i = 0; i < c.steps.size(); ++i) s += "\n  " + std::to_string(i) + ": " + describe(c.steps[i]);
  return s;
}

}  // namespace crossgrad::fuzz::remote_protocol
