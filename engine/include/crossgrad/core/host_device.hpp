#pragma once
// CROSSGRAD_HOST_DEVICE marks a core function that the Cuda kernels call on the device as well as
// the host backends on the CPU (one definition of an element rule for every backend).
#if defined(__CUDACC__)
#define CROSSGRAD_HOST_DEVICE __host__ __device__
#else
#define CROSSGRAD_HOST_DEVICE
#endif
