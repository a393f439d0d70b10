#pragma once
// remote_protocol_fuzzer's scenario: a short sequence of rpc calls sent to crossgrad-server's
// transport-free Handler (server/include/crossgrad/server/handler.hpp), each either a structurally
// valid request with possibly absurd contents (huge, zero or overflowing shapes, dtype values out
// of range, data byte counts that do not match, unknown / stale / other-session handles and
// sessions, op codes out of range, wrong operand counts, NaN and infinite scalars, reversed ranges,
// long frees lists) or raw bytes parsed into the request type; some steps send a wrong or empty
// token.
//
// The scenario names no backend (the Handler is the fuzzer's own, serving Flex), so it decodes the
// same everywhere; it runs only where crossgrad-server is built (CROSSGRAD_WITH_REMOTE), elsewhere
// every input is "not applicable here". Sessions and handles are named by *reference*: "the i-th
// session this input opened" or "the i-th most recent handle a reply returned" are resolved when
// the step runs (so a reference may name a closed session or a freed or other-session handle), raw
// values name anything. Every value is a code (Note [One schema, two directions]), so scenarios
// compare with == and seeds are readable; this header needs no protobuf, so the seed generator and
// the corpus test build without gRPC.
#include <crossgrad/ops/op_list.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "decode/dims.hpp"
#include "harness/io.hpp"

namespace crossgrad::fuzz::remote_protocol {

inline constexpr std::size_t kMaxSteps = 24;
inline constexpr std::size_t kMaxRank = 6;
inline constexpr std::size_t kMaxHandles = 6;   // operands, frees
inline constexpr std::size_t kMaxScalars = 3;
inline constexpr std::size_t kMaxRanges = 4;
inline constexpr std::size_t kMaxDataBytes = 2048;  // the data blob as read (fill may repeat it)
inline constexpr std::size_t kMaxRawBytes = 512;    // a raw request

enum class Rpc : std::uint8_t {
  OpenSession,
  CloseSession,
  KeepAlive,
  FromData,
  IntoData,
  Call,
  Free,
  Attach,      // Handler::attach, the check before the stream is held open
  ClientGone,  // Handler::client_gone (the transport saw the Attach call cancelled); no token
  Reap,        // Handler::reap_expired (nothing expires: the fuzzer's lease is an hour)
  Raw,         // raw bytes parsed (ParseFromArray) into the request type of `raw_as`
  kCount
};

// The token a step sends: the server's, or one it must refuse with UNAUTHENTICATED.
enum class Token : std::uint8_t {
  Right,
  WrongByte,  // same length, the last byte differs
  Empty,
  Prefix,  // the right token without its last byte
  Longer,  // the right token and one more byte
  kCount
};

enum class SessionPick : std::uint8_t {
  Opened,  // the (index % n)-th session this input opened (it may be closed by now); 0 when none
  Raw,     // any 64-bit value (unknown to the server but by a miracle)
  Zero,
  kCount
};
struct SessionRef {
  SessionPick pick = SessionPick::Opened;
  std::size_t index = 0;  // Opened: 0..7
  std::uint64_t raw = 0;  // Raw
  friend bool operator==(const SessionRef &, const SessionRef &) = default;
};

enum class HandlePick : std::uint8_t {
  Returned,  // the (index % n)-th most recent handle any reply of this input returned, whatever
             // its session and whether it was freed since; 0 when none
  Small,     // a small value 0..255 (handles count from 1 in every session)
  Raw,       // any 64-bit value
  kCount
};
struct HandleRef {
  HandlePick pick = HandlePick::Returned;
  std::size_t index = 0;  // Returned: 0..63; Small: the value
  std::uint64_t raw = 0;
  friend bool operator==(const HandleRef &, const HandleRef &) = default;
};

// A double: codes below kScalarTable are op_args::float_value (small exact values, ±0, large,
// F32 overflow, subnormals, NaN, ±inf); the last code reads 8 raw bytes.
inline constexpr std::size_t kScalarTable = 32;
struct Scalar {
  std::size_t code = 0;
  std::uint64_t bits = 0;
  friend bool operator==(const Scalar &, const Scalar &) = default;
};
double scalar_value(const Scalar &s);
// dequantize's float scale: codes below kScaleTable from a table (1, 0.5, 0, -1, tiny, huge, NaN,
// inf), the last code reads 4 raw bytes.
inline constexpr std::size_t kScaleTable = 8;
float scale_value(const Scalar &s);

// A dtype field: codes 0..9 are the DType values (CROSSGRAD_DTYPES order), the last reads any
// 32-bit value (out of range but for 1 in 400 million).
inline constexpr std::size_t kDTypeCodes = 10;
struct DTypeField {
  std::size_t code = 1;  // F32
  std::uint32_t raw = 0;
  friend bool operator==(const DTypeField &, const DTypeField &) = default;
};
std::uint32_t dtype_value(const DTypeField &d);

// An op code, in a fixed space so a code means the same whatever ops the registry gains: codes
// 0..127 are registry ops 0..127, 128..132 FLOAT_FULL, QUANTIZE, DEQUANTIZE (1000..1002), 999 and
// any 32-bit value (kRawOpCode), and 133..511 registry ops 128..506 (a code past the registry's
// last op is an unknown code). The first 64 codes were ops until the registry passed 64 ops, the
// first 128 until it passed 128; the second block of ops follows the specials so that no code below
// 133 changed meaning (stored inputs with a byte of 133 or more were re-encoded). One byte until
// the registry passed 251 ops, two since (low byte first): every stored input was re-encoded then,
// each code keeping its value.
inline constexpr std::size_t kLowOpCodes = 128;
inline constexpr std::size_t kSpecialOpCodes = 5;
inline constexpr std::size_t kRawOpCode = kLowOpCodes + kSpecialOpCodes - 1;
inline constexpr std::size_t kOpCodes = 512;
static_assert(::crossgrad::kOpCount <= kOpCodes - kSpecialOpCodes, "grow kOpCodes (and re-encode stored inputs)");
// The code that names registry op `op` (an OpId value).
constexpr std::size_t op_field_code(std::size_t op) { return op < kLowOpCodes ? op : op + kSpecialOpCodes; }
struct OpField {
  std::size_t code = 0;
  std::uint32_t raw = 0;
  friend bool operator==(const OpField &, const OpField &) = default;
};
std::uint32_t op_value(const OpField &o);

struct RangeSpec {
  std::uint64_t start = 0, end = 0;
  friend bool operator==(const RangeSpec &, const RangeSpec &) = default;
};

struct Step {
  Rpc rpc = Rpc::OpenSession;
  Token token = Token::Right;
  SessionRef session;            // every rpc but OpenSession and Reap
  std::vector<HandleRef> frees;  // FromData, IntoData, Call, Free
  // FromData: the data's shape, dtype and bytes; `fill` repeats the bytes (zeros when none) to
  // exactly the byte count shape x dtype needs when that is at most kMaxFill, so valid data is common.
  std::vector<std::uint64_t> shape;  // also Call's shape field
  DTypeField dtype;                  // also Call's dtype field
  bool fill = false;
  std::vector<std::uint8_t> bytes;  // FromData's data; Raw's request
  HandleRef handle;                 // IntoData
  // Call. `fit` pads or trims operands, scalars and dims to what the op's Sig reads (the padding:
  // the most recent handle, 1.0, dim 0) and clears the fields it does not read, so most mutated
  // calls get past argument reading; without it the lists go as they are.
  OpField op;
  bool fit = false;
  std::vector<HandleRef> operands;
  std::vector<Scalar> scalars;
  std::vector<std::uint64_t> dims;
  std::vector<RangeSpec> ranges;
  Scalar scale;
  // Raw: the request type (an Rpc below Attach, inclusive) and whether its session field is then
  // set to `session` resolved (so raw requests also reach live sessions).
  Rpc raw_as = Rpc::OpenSession;
  bool aim = false;
  friend bool operator==(const Step &, const Step &) = default;
};

struct ProtocolCase {
  std::vector<Step> steps;
  friend bool operator==(const ProtocolCase &, const ProtocolCase &) = default;
};

inline constexpr std::size_t kMaxFill = std::size_t{1} << 20;  // the fuzzer's --max-session-bytes

// ---- schema
template <class Io>
void schema(Io &io, SessionRef &s) {
  io.pick_enum(s.pick, static_cast<std::size_t>(SessionPick::kCount));
  if (s.pick == SessionPick::Opened) io.pick(s.index, 8);
  if (s.pick == SessionPick::Raw) io.raw(s.raw);
}

template <class Io>
void schema(Io &io, HandleRef &h) {
  io.pick_enum(h.pick, static_cast<std::size_t>(HandlePick::kCount));
  if (h.pick == HandlePick::Returned) io.pick(h.index, 64);
  if (h.pick == HandlePick::Small) io.pick(h.index, 256);
  if (h.pick == HandlePick::Raw) io.raw(h.raw);
}

template <class Io>
void scalar_schema(Io &io, Scalar &s) {
  io.pick(s.code, kScalarTable + 1);
  if (s.code == kScalarTable) io.raw(s.bits);
}

template <class Io>
void scale_schema(Io &io, Scalar &s) {
  io.pick(s.code, kScaleTable + 1);
  if (s.code == kScaleTable) {
    std::uint32_t b = static_cast<std::uint32_t>(s.bits);
    io.raw(b);
    s.bits = b;
  }
}

template <class Io>
void schema(Io &io, DTypeField &d) {
  io.pick(d.code, kDTypeCodes + 1);
  if (d.code == kDTypeCodes) io.raw(d.raw);
}

template <class Io>
void schema(Io &io, OpField &o) {
  io.pick(o.code, kOpCodes);
  if (o.code == kRawOpCode) io.raw(o.raw);
}

template <class Io>
void handles(Io &io, std::vector<HandleRef> &hs) {
  list(io, hs, kMaxHandles, [](Io &i, HandleRef &h) { schema(i, h); });
}

template <class Io>
void schema(Io &io, Step &s) {
  io.pick_enum(s.rpc, static_cast<std::size_t>(Rpc::kCount));
  if (s.rpc == Rpc::ClientGone || s.rpc == Rpc::Reap) {
    s.token = Token::Right;  // no token: not an rpc
  } else {
    io.pick_enum(s.token, static_cast<std::size_t>(Token::kCount));
  }
  if (s.rpc != Rpc::OpenSession && s.rpc != Rpc::Reap) schema(io, s.session);
  if (s.rpc == Rpc::FromData) {
    handles(io, s.frees);
    list(io, s.shape, kMaxRank, [](Io &i, std::uint64_t &d) { dim_schema(i, d); });
    schema(io, s.dtype);
    io.flag(s.fill);
    io.blob(s.bytes, kMaxDataBytes);
  } else if (s.rpc == Rpc::IntoData) {
    handles(io, s.frees);
    schema(io, s.handle);
  } else if (s.rpc == Rpc::Free) {
    handles(io, s.frees);
  } else if (s.rpc == Rpc::Call) {
    handles(io, s.frees);
    schema(io, s.op);
    io.flag(s.fit);
    handles(io, s.operands);
    list(io, s.scalars, kMaxScalars, [](Io &i, Scalar &x) { scalar_schema(i, x); });
    list(io, s.dims, kMaxRank, [](Io &i, std::uint64_t &d) { dim_schema(i, d); });
    list(io, s.shape, kMaxRank, [](Io &i, std::uint64_t &d) { dim_schema(i, d); });
    schema(io, s.dtype);
    list(io, s.ranges, kMaxRanges, [](Io &i, RangeSpec &r) {
      dim_schema(i, r.start);
      dim_schema(i, r.end);
    });
    scale_schema(io, s.scale);
  } else if (s.rpc == Rpc::Raw) {
    io.pick_enum(s.raw_as, static_cast<std::size_t>(Rpc::Attach) + 1);
    io.flag(s.aim);
    io.blob(s.bytes, kMaxRawBytes);
  }
}

template <class Io>
void schema(Io &io, ProtocolCase &c) {
  list(io, c.steps, kMaxSteps, [](Io &i, Step &s) { schema(i, s); });
}

std::string_view rpc_name(Rpc r);
std::string_view token_name(Token t);
std::string describe(const SessionRef &s);
std::string describe(const HandleRef &h);
std::string describe(const Step &s);
std::string describe(const ProtocolCase &c);

}  // namespace crossgrad::fuzz::remote_protocol
