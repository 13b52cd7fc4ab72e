// A row-wise weighted scale written as flashinfer writes its norm kernels (include/flashinfer/norm.cuh) over
// a small vec_t of our own in the style of vec_dtypes.cuh: member function templates `cast_load` and
// `cast_store` whose type argument is deduced from the pointer passed (`v.cast_load(input + offset)`).
#include <cuda_fp16.h>
#include <cstdint>

#define FLASHINFER_INLINE inline __attribute__((always_inline)) __device__

template <typename float_t, size_t vec_size>
struct vec_t {
  float_t data[vec_size];
  FLASHINFER_INLINE float_t& operator[](size_t i) { return data[i]; }
  FLASHINFER_INLINE void fill(float_t val) {
#pragma unroll
    for (size_t i = 0; i < vec_size; ++i) {
      data[i] = val;
    }
  }
  template <typename T>
  FLASHINFER_INLINE void cast_load(const T* ptr) {
#pragma unroll
    for (size_t i = 0; i < vec_size; ++i) {
      data[i] = static_cast<float_t>(ptr[i]);
    }
  }
  template <typename T>
  FLASHINFER_INLINE void cast_store(T* ptr) const {
#pragma unroll
    for (size_t i = 0; i < vec_size; ++i) {
      ptr[i] = static_cast<T>(data[i]);
    }
  }
};

template <uint32_t VEC_SIZE, typename T>
__global__ void WeightedScaleKernel(T* __restrict__ input, T* __restrict__ weight, T* __restrict__ output,
                                    const uint32_t d, const uint32_t stride_input, const uint32_t stride_output) {
  const uint32_t bx = blockIdx.x;
  const uint32_t tx = threadIdx.x, ty = threadIdx.y;
  constexpr uint32_t warp_size = 32;
  const uint32_t num_warps = blockDim.y;
  const uint32_t thread_id = tx + ty * warp_size;
  const uint32_t num_threads = num_warps * warp_size;
  const uint32_t rounds = (d + VEC_SIZE * num_threads - 1) / (VEC_SIZE * num_threads);

  for (uint32_t i = 0; i < rounds; i++) {
    vec_t<float, VEC_SIZE> input_vec;
    input_vec.fill(0.f);
    vec_t<float, VEC_SIZE> weight_vec;
    weight_vec.fill(0.f);
    vec_t<float, VEC_SIZE> output_vec;
    if ((i * num_threads + thread_id) * VEC_SIZE < d) {
      input_vec.cast_load(input + bx * stride_input + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
      weight_vec.cast_load(weight + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
#pragma unroll
      for (uint32_t j = 0; j < VEC_SIZE; j++) {
        output_vec[j] = input_vec[j] * weight_vec[j];
      }
      output_vec.cast_store(output + bx * stride_output + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
    }
  }
}

// Seeded bug: the weight is read at the row's offset too (`weight + bx * stride_input + ...`).
template <uint32_t VEC_SIZE, typename T>
__global__ void WeightedScaleKernelBug(T* __restrict__ input, T* __restrict__ weight, T* __restrict__ output,
                                       const uint32_t d, const uint32_t stride_input, const uint32_t stride_output) {
  const uint32_t bx = blockIdx.x;
  const uint32_t tx = threadIdx.x, ty = threadIdx.y;
  constexpr uint32_t warp_size = 32;
  const uint32_t num_warps = blockDim.y;
  const uint32_t thread_id = tx + ty * warp_size;
  const uint32_t num_threads = num_warps * warp_size;
  const uint32_t rounds = (d + VEC_SIZE * num_threads - 1) / (VEC_SIZE * num_threads);

  for (uint32_t i = 0; i < rounds; i++) {
    vec_t<float, VEC_SIZE> input_vec;
    input_vec.fill(0.f);
    vec_t<float, VEC_SIZE> weight_vec;
    weight_vec.fill(0.f);
    vec_t<float, VEC_SIZE> output_vec;
    if ((i * num_threads + thread_id) * VEC_SIZE < d) {
      input_vec.cast_load(input + bx * stride_input + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
      weight_vec.cast_load(weight + bx * stride_input + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
#pragma unroll
      for (uint32_t j = 0; j < VEC_SIZE; j++) {
        output_vec[j] = input_vec[j] * weight_vec[j];
      }
      output_vec.cast_store(output + bx * stride_output + i * num_threads * VEC_SIZE + thread_id * VEC_SIZE);
    }
  }
}
