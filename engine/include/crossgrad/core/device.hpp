#pragma once
#include <string>

namespace crossgrad {

// A physical device. Backends name which kinds they accept; debug renders "Cpu" or "Cuda(i)".
struct Device {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = 0;

  static Device cpu() { return {Kind::Cpu, 0}; }
  static Device cuda(int index) { return {Kind::Cuda, index}; }
  std::string to_string() const;
  friend bool operator==(const Device&, const Device&) = default;
};

}  // namespace crossgrad
