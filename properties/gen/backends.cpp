#include "gen/backends.hpp"

#include <iostream>

namespace crossgrad::properties::gen {

const std::vector<oracle::BackendRef>& tested_backends() {
  static const std::vector<oracle::BackendRef> tested = [] {
    std::vector<oracle::BackendRef> out;
    for (const oracle::BackendRef& b : oracle::all_backends()) {
      if (b.available) {
        out.push_back(b);
      } else {
        std::cerr << "[property] backend " << b.name << " left out: "
                  << (b.unavailable_reason.empty() ? std::string("no device") : b.unavailable_reason) << "\n";
      }
    }
    return out;
  }();
  return tested;
}

std::vector<std::size_t> tested_backend_indices() {
  std::vector<std::size_t> out;
  for (const oracle::BackendRef& b : tested_backends()) out.push_back(b.index);
  return out;
}

}  // namespace crossgrad::properties::gen
