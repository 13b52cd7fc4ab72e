// A fused residual add written as vLLM writes fused_add_rms_norm_kernel (csrc/layernorm_kernels.cu): two
// __global__ overloads of one template chosen by enable_if in the return type, a vectorised one for the
// 16-bit types `_typeConvert` knows (width > 0) and a generic one; the launch picks one by its template
// arguments. residual <- input + residual; input <- residual * weight.
#include <cuda_fp16.h>
#include <type_traits>

template <typename scalar_t>
struct _typeConvert {
  static constexpr bool exists = false;
};

template <>
struct _typeConvert<__half> {
  static constexpr bool exists = true;
};

template <typename scalar_t, int width>
struct alignas(16) _f16Vec {
  scalar_t data[width];
};

template <typename scalar_t, int width>
__global__ std::enable_if_t<(width > 0) && _typeConvert<scalar_t>::exists>
fused_add_scale_kernel(scalar_t* __restrict__ input,           // [..., hidden_size]
                       scalar_t* __restrict__ residual,        // [..., hidden_size]
                       const scalar_t* __restrict__ weight,    // [hidden_size]
                       const int num_tokens, const int hidden_size) {
  const int vec_hidden_size = hidden_size / width;
  auto* __restrict__ input_v = reinterpret_cast<_f16Vec<scalar_t, width>*>(input);
  auto* __restrict__ residual_v = reinterpret_cast<_f16Vec<scalar_t, width>*>(residual);
  auto* __restrict__ weight_v = reinterpret_cast<const _f16Vec<scalar_t, width>*>(weight);
  for (int idx = threadIdx.x; idx < vec_hidden_size; idx += blockDim.x) {
    int id = blockIdx.x * vec_hidden_size + idx;
    _f16Vec<scalar_t, width> temp = input_v[id];
    _f16Vec<scalar_t, width> res = residual_v[id];
    _f16Vec<scalar_t, width> w = weight_v[idx];
#pragma unroll
    for (int i = 0; i < width; ++i) {
      scalar_t z = (scalar_t)((float)temp.data[i] + (float)res.data[i]);
      res.data[i] = z;
      temp.data[i] = (scalar_t)((float)z * (float)w.data[i]);
    }
    residual_v[id] = res;
    input_v[id] = temp;
  }
}

template <typename scalar_t, int width>
__global__ std::enable_if_t<(width == 0) || !_typeConvert<scalar_t>::exists>
fused_add_scale_kernel(scalar_t* __restrict__ input,           // [..., hidden_size]
                       scalar_t* __restrict__ residual,        // [..., hidden_size]
                       const scalar_t* __restrict__ weight,    // [hidden_size]
                       const int num_tokens, const int hidden_size) {
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    scalar_t z = (scalar_t)((float)input[blockIdx.x * hidden_size + idx] +
                            (float)residual[blockIdx.x * hidden_size + idx]);
    residual[blockIdx.x * hidden_size + idx] = z;
    input[blockIdx.x * hidden_size + idx] = (scalar_t)((float)z * (float)weight[idx]);
  }
}

// Seeded bug: the vectorised overload strides by the vector count of one row past the last vector.
template <typename scalar_t, int width>
__global__ std::enable_if_t<(width > 0) && _typeConvert<scalar_t>::exists>
fused_add_scale_bug_kernel(scalar_t* __restrict__ input, scalar_t* __restrict__ residual,
                           const scalar_t* __restrict__ weight, const int num_tokens, const int hidden_size) {
  const int vec_hidden_size = hidden_size / width;
  auto* __restrict__ input_v = reinterpret_cast<_f16Vec<scalar_t, width>*>(input);
  auto* __restrict__ residual_v = reinterpret_cast<_f16Vec<scalar_t, width>*>(residual);
  auto* __restrict__ weight_v = reinterpret_cast<const _f16Vec<scalar_t, width>*>(weight);
  for (int idx = threadIdx.x; idx <= vec_hidden_size; idx += blockDim.x) {
    int id = blockIdx.x * vec_hidden_size + idx;
    _f16Vec<scalar_t, width> temp = input_v[id];
    _f16Vec<scalar_t, width> res = residual_v[id];
    _f16Vec<scalar_t, width> w = weight_v[idx];
#pragma unroll
    for (int i = 0; i < width; ++i) {
      scalar_t z = (scalar_t)((float)temp.data[i] + (float)res.data[i]);
      res.data[i] = z;
      temp.data[i] = (scalar_t)((float)z * (float)w.data[i]);
    }
    residual_v[id] = res;
    input_v[id] = temp;
  }
}

template <typename scalar_t, int width>
__global__ std::enable_if_t<(width == 0) || !_typeConvert<scalar_t>::exists>
fused_add_scale_bug_kernel(scalar_t* __restrict__ input, scalar_t* __restrict__ residual,
                           const scalar_t* __restrict__ weight, const int num_tokens, const int hidden_size) {
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    scalar_t z = (scalar_t)((float)input[blockIdx.x * hidden_size + idx] +
                            (float)residual[blockIdx.x * hidden_size + idx]);
    residual[blockIdx.x * hidden_size + idx] = z;
    input[blockIdx.x * hidden_size + idx] = (scalar_t)((float)z * (float)weight[idx]);
  }
}
