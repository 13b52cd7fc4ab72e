// Residual add over 128-bit packets of eight bf16 lanes, written as llm.c writes it (llmc/cuda_utils.cuh):
// a Packed128 struct built from an int4 by memcpy, load128/store128 through reinterpret_cast<int4*>.
#include <cuda_bf16.h>
#include <string.h>

typedef __nv_bfloat16 floatX;

template <class ElementType>
struct alignas(16) Packed128 {
    Packed128() = default;
    __device__ explicit Packed128(int4 bits) {
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&payload, &bits, sizeof(bits));
    }
    __device__ ElementType& operator[](int index) { return payload[index]; }
    __device__ const ElementType& operator[](int index) const { return payload[index]; }
    __device__ int4 get_bits() const {
        int4 bits;
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
};

template <class ElementType>
__device__ Packed128<ElementType> load128(const ElementType* address) {
    return Packed128<ElementType>{*reinterpret_cast<const int4*>(address)};
}

template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
    *reinterpret_cast<int4*>(target) = value.get_bits();
}

typedef Packed128<floatX> x128;

__global__ void residual_packed(floatX* out, const floatX* inp1, const floatX* inp2, int N) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
    if (idx >= N) { return; }
    x128 packed_out;
    x128 a = load128(inp1 + idx);
    x128 b = load128(inp2 + idx);
    for (int k = 0; k < a.size; k++) {
        packed_out[k] = (floatX)((float)a[k] + (float)b[k]);
    }
    store128(out + idx, packed_out);
}

// The same with the two halves of each packet swapped on the way out (a lane-order bug).
__global__ void residual_packed_bug_swapped_halves(floatX* out, const floatX* inp1, const floatX* inp2, int N) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
    if (idx >= N) { return; }
    x128 packed_out;
    x128 a = load128(inp1 + idx);
    x128 b = load128(inp2 + idx);
    for (int k = 0; k < a.size; k++) {
        packed_out[(k + 4) % 8] = (floatX)((float)a[k] + (float)b[k]);
    }
    store128(out + idx, packed_out);
}
