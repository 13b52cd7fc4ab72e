// Accumulate source rows into the rows an index names (index_add_ along dim 0), the way MoE
// combine/unpermute kernels add each routed token's output into its destination row: duplicate
// indices are summed with atomicAdd.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void index_add_rows_kernel(float* __restrict__ out, const int64_t* __restrict__ index,
                                      const float* __restrict__ source, const int num_src_rows,
                                      const int hidden_size) {
  const int total = num_src_rows * hidden_size;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
    const int row = i / hidden_size;
    const int col = i % hidden_size;
    atomicAdd(&out[index[row] * hidden_size + col], source[i]);
  }
}
