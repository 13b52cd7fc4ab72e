// A kernel laid out as LLM-serving libraries lay theirs out: toolkit and PyTorch headers (known to
// larkc, skipped), a configuration header next to the kernel, and the library's own headers found
// through the include directories (first/, then second/).
#include <cuda_runtime.h>
#include <cstdint>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include "local_config.h"
#include <demo/activation.cuh>
#include <demo/extra.cuh>

namespace demo {

// out[i] = silu(x[i]) * DEMO_SCALE, one element per thread.
__global__ void scaled_silu_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = silu(DEMO_LDG(x + i)) * DEMO_SCALE;
  }
}

}  // namespace demo
