// GELU (tanh approximation) over 128-bit packets, in the style of llm.c: a packed struct with
// member functions moves 16 bytes per load and store; each thread handles one packet.
// The element count must be a multiple of the packet size.
#include <cuda_runtime.h>

#include <cstring>

#define GELU_SCALING_FACTOR 0.7978845608028654f  // sqrt(2 / pi)

template <class ElementType>
struct alignas(16) Packed128 {
  Packed128() = default;
  __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }

  __device__ static Packed128 constant(ElementType value) {
    Packed128 result;
    for (int k = 0; k < size; ++k) {
      result.payload[k] = value;
    }
    return result;
  }

  __device__ ElementType& operator[](int index) { return payload[index]; }
  __device__ const ElementType& operator[](int index) const { return payload[index]; }

  __device__ int4 get_bits() const {
    int4 bits;
    memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }

  static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
  ElementType payload[size];
};

typedef Packed128<float> f128;

template <class ElementType>
__device__ Packed128<ElementType> load128(const ElementType* address) {
  return Packed128<ElementType>{*reinterpret_cast<const int4*>(address)};
}

template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
  *reinterpret_cast<int4*>(target) = value.get_bits();
}

__global__ void gelu_packed128(float* out, const float* inp, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
  if (i < n) {
    f128 packed_out = f128::constant(0.0f);
    const f128 packed_inp = load128(inp + i);
    for (int k = 0; k < f128::size; ++k) {
      const float x = packed_inp[k];
      const float cube = 0.044715f * x * x * x;
      packed_out[k] = 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
    }
    store128(out + i, packed_out);
  }
}
