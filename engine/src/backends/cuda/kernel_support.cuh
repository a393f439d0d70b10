#pragma once
// The kernels' device-side building blocks live in
// <crossgrad/backends/cuda_kernels/kernel_support.cuh> (see kernels.cuh here for why). This name
// stays for the .cu files of this folder.
#include <crossgrad/backends/cuda_kernels/kernel_support.cuh>
