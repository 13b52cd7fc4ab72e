// KV-cache write of one decoding step in CUDA: block t copies token t's row (d values) into the cache row
// slot_mapping[t] that the memory manager handed out; threads stride over the row.
#include <cstdint>

__global__ void reshape_and_cache_flat(const float* __restrict__ key, const int64_t* __restrict__ slot_mapping,
                                       float* __restrict__ key_cache, int d) {
  const int64_t token = blockIdx.x;
  const int64_t slot = slot_mapping[token];
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    key_cache[slot * d + j] = key[token * d + j];
  }
}
