// The absolute maximum of a tensor divided by fp8 e4m3's largest value (a per-tensor quantisation scale),
// written as vLLM writes it (csrc/quantization/fp8/common.cuh, segmented_max_reduction): a grid-stride
// max per thread, a tree in shared memory, one atomicMax on the float's bits per block (nvcc needs
// --expt-relaxed-constexpr, as PyTorch extensions are built).
#include <c10/util/Float8_e4m3fn.h>
#include <cmath>

using FP8_TYPE = c10::Float8_e4m3fn;
__host__ __device__ constexpr auto FP8_E4M3_MAX = std::numeric_limits<FP8_TYPE>::max();

namespace vllm {

__device__ __forceinline__ float atomicMaxFloat(float* addr, float value) {
  float old;
  old = (value >= 0)
            ? __int_as_float(atomicMax((int*)addr, __float_as_int(value)))
            : __uint_as_float(atomicMin((unsigned int*)addr, __float_as_uint(value)));
  return old;
}

template <typename scalar_t>
__global__ void absmax_scale(float* __restrict__ scale, const scalar_t* __restrict__ input,
                             int64_t num_elems) {
  __shared__ float cache[256];
  int64_t i = blockDim.x * blockIdx.x + threadIdx.x;

  scalar_t tmp = 0.0;
  while (i < num_elems) {
    float x = static_cast<float>(input[i]);
    tmp = max(tmp, fabs(x));
    i += blockDim.x * gridDim.x;
  }
  cache[threadIdx.x] = tmp;

  __syncthreads();

  int ib = blockDim.x / 2;
  while (ib != 0) {
    if (threadIdx.x < ib && cache[threadIdx.x + ib] > cache[threadIdx.x]) {
      cache[threadIdx.x] = cache[threadIdx.x + ib];
    }
    __syncthreads();
    ib /= 2;
  }
  if (threadIdx.x == 0) {
    atomicMaxFloat(scale, cache[0] / FP8_E4M3_MAX);
  }
}

// The same with the tree started at a quarter of the block: the upper half of the block is never read.
template <typename scalar_t>
__global__ void absmax_scale_bug_quarter_tree(float* __restrict__ scale, const scalar_t* __restrict__ input,
                                              int64_t num_elems) {
  __shared__ float cache[256];
  int64_t i = blockDim.x * blockIdx.x + threadIdx.x;

  scalar_t tmp = 0.0;
  while (i < num_elems) {
    float x = static_cast<float>(input[i]);
    tmp = max(tmp, fabs(x));
    i += blockDim.x * gridDim.x;
  }
  cache[threadIdx.x] = tmp;

  __syncthreads();

  int ib = blockDim.x / 4;
  while (ib != 0) {
    if (threadIdx.x < ib && cache[threadIdx.x + ib] > cache[threadIdx.x]) {
      cache[threadIdx.x] = cache[threadIdx.x + ib];
    }
    __syncthreads();
    ib /= 2;
  }
  if (threadIdx.x == 0) {
    atomicMaxFloat(scale, cache[0] / FP8_E4M3_MAX);
  }
}

}  // namespace vllm
