#pragma once
// The registry's ops (Note [The op registry]): one body per op, generated from its signature,
// naming no backend (Note [Dispatch arms]). CROSSGRAD_DISPATCH_DEF defines one op's body; each
// ops_api_part_<k>.cpp expands it over one part of the list.
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/dispatch/dispatch.hpp>

#define CROSSGRAD_DISPATCH_BODY_MAP(name, Sig, Operand, Result)                                        \
  return map_op<PrimitiveKind::Operand, PrimitiveKind::Result>(                                        \
      #name, tensor, [&]<class Be>(const auto& x) { return Be::name(x CROSSGRAD_SIG_EXTRA_##Sig); });
#define CROSSGRAD_DISPATCH_BODY_ZIP(name, Sig, Operand, Result) \
  return zip_op<PrimitiveKind::Operand, PrimitiveKind::Result>(#name, lhs, rhs, [&]<class Be>(const auto& x, const auto& y) { return Be::name(x, y); });
#define CROSSGRAD_DISPATCH_BODY_SELECT(name, Sig, Operand, Result) \
  return indexed_op<false, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, nullptr,               \
                    [&]<class Be>(const auto& x, const auto& i) { return Be::name(x, dim, i); });
#define CROSSGRAD_DISPATCH_BODY_ASSIGN(name, Sig, Operand, Result) \
  return indexed_op<true, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, &values,               \
                    [&]<class Be>(const auto& x, const auto& i, const auto& v) { return Be::name(x, dim, i, v); });
#define CROSSGRAD_DISPATCH_BODY_ASSIGN_UPDATE(name, Sig, Operand, Result) \
  return indexed_op<true, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, &values,               \
                    [&]<class Be>(const auto& x, const auto& i, const auto& v) { return Be::name(x, dim, i, v, update); });
#define CROSSGRAD_DISPATCH_BODY_GATHER_ND(name, Sig, Operand, Result) \
  return indexed_op<false, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, nullptr,               \
                    [&]<class Be>(const auto& x, const auto& i) { return Be::name(x, i); });
#define CROSSGRAD_DISPATCH_BODY_SCATTER_ND(name, Sig, Operand, Result) \
  return indexed_op<true, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, &values,               \
                    [&]<class Be>(const auto& x, const auto& i, const auto& v) { return Be::name(x, i, v, update); });
#define CROSSGRAD_DISPATCH_BODY_ZIP_DIM(name, Sig, Operand, Result) \
  return zip_op<PrimitiveKind::Float, PrimitiveKind::Result>(#name, lhs, rhs, [&]<class Be>(const auto& x, const auto& y) { return Be::name(x, y, dim); });
#define CROSSGRAD_DISPATCH_BODY_ZIP_RANGES(name, Sig, Operand, Result) \
  return zip_op<PrimitiveKind::Operand, PrimitiveKind::Result>(#name, tensor, values, [&]<class Be>(const auto& x, const auto& v) { return Be::name(x, ranges, v); });
#define CROSSGRAD_DISPATCH_BODY_MASKED(name, Sig, Operand, Result)                                     \
  return indexed_op<true, PrimitiveKind::Bool, PrimitiveKind::Operand>(#name, tensor, mask, &value,                               \
                    [&]<class Be>(const auto& x, const auto& m, const auto& v) { return Be::name(x, m, v); });
#define CROSSGRAD_DISPATCH_BODY_MASK_FILL(name, Sig, Operand, Result)                                  \
  return indexed_op<false, PrimitiveKind::Bool, PrimitiveKind::Operand>(#name, tensor, mask, nullptr,                             \
                    [&]<class Be>(const auto& x, const auto& m) { return Be::name(x, m, value); });
#define CROSSGRAD_DISPATCH_BODY_MASK_SELECT(name, Sig, Operand, Result)                                \
  return indexed_op<false, PrimitiveKind::Bool, PrimitiveKind::Operand>(#name, tensor, mask, nullptr,                             \
                    [&]<class Be>(const auto& x, const auto& m) { return Be::name(x, m); });
#define CROSSGRAD_DISPATCH_BODY_ZIP_WITH(name, Sig, Operand, Result)                                   \
  return zip_op<PrimitiveKind::Operand, PrimitiveKind::Result>(                                         \
      #name, CROSSGRAD_SIG_TENSORS_##Sig, [&]<class Be>(const auto& x, const auto& g) { return Be::name(x, g CROSSGRAD_SIG_EXTRA_##Sig); });
#define CROSSGRAD_DISPATCH_BODY_ZIP_OPTIONAL(name, Sig, Operand, Result)                               \
  return zip_optional_op(#name, tensor, weight, bias, [&]<class Be>(const auto& x, const auto& w, const auto& b) { \
    return Be::name(x, w, b CROSSGRAD_SIG_EXTRA_##Sig);                                                  \
  });
#define CROSSGRAD_DISPATCH_BODY_ZIP3_WITH(name, Sig, Operand, Result)                                  \
  return zip3_op(#name, CROSSGRAD_SIG_TENSORS_##Sig, [&]<class Be>(const auto& x, const auto& y, const auto& z) { \
    return Be::name(x, y, z CROSSGRAD_SIG_EXTRA_##Sig);                                                 \
  });
#define CROSSGRAD_DISPATCH_BODY_ATTENTION(name, Sig, Operand, Result)                                  \
  return attention_op(#name, tensor, key, value, mask, bias,                                           \
                      [&]<class Be>(const auto& q, const auto& k, const auto& v, const auto& m, const auto& b) { \
                        return Be::name(q, k, v, m, b CROSSGRAD_SIG_EXTRA_##Sig);                       \
                      });
#define CROSSGRAD_DISPATCH_BODY_ZIP5_WITH(name, Sig, Operand, Result)                                  \
  return zip5_op(#name, CROSSGRAD_SIG_TENSORS_##Sig,                                                    \
                 [&]<class Be>(const auto& a, const auto& b, const auto& c, const auto& d, const auto& e) { \
                   return Be::name(a, b, c, d, e CROSSGRAD_SIG_EXTRA_##Sig);                             \
                 });
#define CROSSGRAD_DISPATCH_BODY_INDEXED_WITH(name, Sig, Operand, Result)                               \
  return indexed_op<true, PrimitiveKind::Int, PrimitiveKind::Operand>(#name, tensor, indices, &grad,                \
                    [&]<class Be>(const auto& x, const auto& i, const auto& g) { return Be::name(x, g, i CROSSGRAD_SIG_EXTRA_##Sig); });
#define CROSSGRAD_DISPATCH_BODY_CAT(name, Sig, Operand, Result) \
  return list_op<PrimitiveKind::Operand>(#name, tensors, [&]<class Be>(const auto& xs) { return Be::name(xs, dim); });

#define CROSSGRAD_DISPATCH_DEF(name, method, Sig, Operand, Result, Rule)                       \
  DispatchTensor Dispatch::name CROSSGRAD_SIG_PARAMS_##Sig(DispatchTensor, DispatchTensor) {  \
    CROSSGRAD_PP_CAT(CROSSGRAD_DISPATCH_BODY_, CROSSGRAD_SIG_CLASS_##Sig)(name, Sig, Operand, Result) \
  }
