#include <crossgrad/core/device.hpp>

namespace crossgrad {

std::string Device::to_string() const {
  switch (kind) {
    case Kind::Cpu:
      return "Cpu";
    case Kind::Cuda:
      return "Cuda(" + std::to_string(index) + ")";
    case Kind::Remote:
      return "Remote(" + std::to_string(index) + ")";
  }
  return "Cpu";
}

}  // namespace crossgrad
