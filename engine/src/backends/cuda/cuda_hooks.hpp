#pragma once
// The host-callable Cuda internals live in <crossgrad/backends/cuda_hooks.hpp>, public so that the
// CUDA benchmarks use them without including engine/src. This name stays for this folder's files.
#include <crossgrad/backends/cuda_hooks.hpp>
