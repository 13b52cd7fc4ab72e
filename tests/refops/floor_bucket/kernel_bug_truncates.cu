// Seeded bug: C division without the floor correction. Page of each token relative to a sliding-window start, the way paged-attention schedulers bucket
// positions: positions before the window start give negative pages, so the quotient must round
// toward -inf (Python's //), not toward zero as C's integer division does.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void window_page_kernel(int32_t* __restrict__ pages, const int32_t* __restrict__ positions,
                                   const int32_t window_start, const int32_t page_size, const int num_tokens) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_tokens) return;
  const int32_t rel = positions[i] - window_start;
  const int32_t page = rel / page_size;  // seeded bug: truncates toward zero
  pages[i] = page;
}
