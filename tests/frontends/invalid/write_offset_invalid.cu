// expect: 5:22: error: unsupported __write_offset_bytes (GPUVerify's memory access predicates are not modelled): __write_offset_bytes(A)
// GPUVerify's access predicates inside an invariant: named, not silently dropped.
__global__ void fill(float* A, int n) {
    for (int i = threadIdx.x;
         __invariant(__write_offset_bytes(A) / sizeof(float) % blockDim.x == threadIdx.x), i < n;
         i += blockDim.x) {
        A[i] = 0.0f;
    }
}
