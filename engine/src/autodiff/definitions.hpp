#pragma once
// Everything Autodiff<B>'s members need to be instantiated: their definitions and the backward
// rules. Included only by the instantiate_<backend>.cpp files, one per backend (Note [Autodiff<B>
// is one decorator]): one file for all five was a 70-second compile that held up every build's
// end; apart they compile in parallel.
#include "autodiff/autodiff_impl.hpp"
#include "autodiff/backward_rules.hpp"
#include "autodiff/backward_rules_indexing.hpp"
#include "autodiff/backward_rules_math.hpp"
#include "autodiff/backward_rules_module.hpp"
#include "autodiff/backward_rules_scan.hpp"

// Instantiates Autodiff<backends::Name>; used with the registry's entry macros, so a backend that
// is not built instantiates nothing.
#define CROSSGRAD_INSTANTIATE_AUTODIFF(Name) template struct Autodiff<backends::Name>;
