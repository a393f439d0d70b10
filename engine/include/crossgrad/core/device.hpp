#pragma once
#include <string>

namespace crossgrad {

// A physical device. Backends name which kinds they accept; debug renders "Cpu", "Cuda(i)" or
// "Remote(i)" (CONTRACT section 3). A Remote device's index is the position of its server in the
// configured endpoint list (crossgrad/backends/remote_config.hpp).
struct Device {
  enum class Kind { Cpu, Cuda, Remote };
  Kind kind = Kind::Cpu;
  int index = 0;

  static Device cpu() { return {Kind::Cpu, 0}; }
  static Device cuda(int index) { return {Kind::Cuda, index}; }
  static Device remote(int index) { return {Kind::Remote, index}; }
  std::string to_string() const;
  friend bool operator==(const Device&, const Device&) = default;
};

}  // namespace crossgrad
