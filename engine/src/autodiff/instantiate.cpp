// One instantiation of Autodiff<B> per registered backend (Note [Autodiff<B> is one decorator]).
#include "autodiff/autodiff_impl.hpp"
#include "autodiff/backward_rules.hpp"
#include "autodiff/backward_rules_indexing.hpp"
#include "autodiff/backward_rules_math.hpp"
#include "autodiff/backward_rules_module.hpp"
#include "autodiff/backward_rules_scan.hpp"

namespace crossgrad {
#define CROSSGRAD_X(Name) template struct Autodiff<backends::Name>;
CROSSGRAD_BACKENDS(CROSSGRAD_X)
#undef CROSSGRAD_X
}  // namespace crossgrad
