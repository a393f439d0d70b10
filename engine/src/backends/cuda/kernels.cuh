#pragma once
// The Cuda backend's kernels live in <crossgrad/backends/cuda_kernels/kernels.cuh>, public so that
// tests/unit/cuda_kernel_emulation_test.cpp compiles the very same templates on the host without
// including engine/src. This name stays for the .cu files of this folder.
#include <crossgrad/backends/cuda_kernels/kernels.cuh>
