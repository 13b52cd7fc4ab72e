// Seeded bug: the offsets lag one expert behind. Tokens per expert and the experts' offsets, the first step of vLLM's moe_align_block_size: one block
// counts the routed expert ids of all tokens into shared memory with atomicAdd, then thread 0 writes the
// counts and their exclusive prefix sum (cumsum[e] is where expert e's tokens start).
#include <cuda_runtime.h>
#include <stdint.h>

#define MAX_NUM_EXPERTS 64

__global__ void count_and_sort_expert_tokens_kernel(const int32_t* __restrict__ topk_ids,
                                                    int32_t* __restrict__ expert_counts,
                                                    int32_t* __restrict__ cumsum, const int32_t num_experts,
                                                    const int numel) {
  __shared__ int32_t shared_counts[MAX_NUM_EXPERTS];
  for (int e = threadIdx.x; e < num_experts; e += blockDim.x) {
    shared_counts[e] = 0;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < numel; i += blockDim.x) {
    atomicAdd(&shared_counts[topk_ids[i]], 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t running = 0;
    cumsum[0] = 0;
    for (int e = 0; e < num_experts; ++e) {
      expert_counts[e] = shared_counts[e];
      running += shared_counts[e];
      cumsum[e + 1] = running - shared_counts[e];  // seeded bug: an exclusive sum one slot late
    }
  }
}
