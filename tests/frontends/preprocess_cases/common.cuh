// Shared helpers, guarded the classic way.
#ifndef LARKC_TEST_COMMON_CUH
#define LARKC_TEST_COMMON_CUH
#include <cuda_runtime.h>

#define WARP_SIZE 32
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__device__ inline float relu(float v) { return v > 0.0f ? v : 0.0f; }

#endif  // LARKC_TEST_COMMON_CUH
