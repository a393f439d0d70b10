#include <crossgrad/ops/op_list.hpp>

namespace crossgrad {

std::string_view op_sig_name(OpSig sig) {
  switch (sig) {
#define CROSSGRAD_X(Sig) \
  case OpSig::Sig:       \
    return #Sig;
    CROSSGRAD_OP_SIGS(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  return "?";
}

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::Float: return "Float";
    case OpKind::Int: return "Int";
    case OpKind::Bool: return "Bool";
  }
  return "?";
}

}  // namespace crossgrad
