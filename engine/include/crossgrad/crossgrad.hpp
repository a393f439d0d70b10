#pragma once
// Umbrella header: the whole public API of the crossgrad engine.
#include <crossgrad/config.hpp>
#include <crossgrad/core/device.hpp>
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/core/tensor_data.hpp>
#include <crossgrad/backends/registry.hpp>
#include <crossgrad/autodiff/autodiff.hpp>
#include <crossgrad/autodiff/gradients.hpp>
#include <crossgrad/dispatch/debug.hpp>
#include <crossgrad/dispatch/device.hpp>
#include <crossgrad/dispatch/dispatch.hpp>
#include <crossgrad/tensor.hpp>
#include <crossgrad/dispatch/kind.hpp>
