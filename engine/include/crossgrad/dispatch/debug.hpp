#pragma once
// crossgrad::debug: Rust-Debug-like rendering of a kind (CONTRACT section 3). Never prints element
// values, so a message stays short whatever the tensor's size.
#include <crossgrad/dispatch/kind.hpp>

#include <string>

namespace crossgrad {

std::string debug(const DispatchTensorKind& kind);

}  // namespace crossgrad
