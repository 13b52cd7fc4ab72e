// Page of each token relative to a sliding-window start, the way paged-attention schedulers bucket
// positions: positions before the window start give negative pages, so the quotient must round
// toward -inf (Python's //), not toward zero as C's integer division does.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void window_page_kernel(int32_t* __restrict__ pages, const int32_t* __restrict__ positions,
                                   const int32_t window_start, const int32_t page_size, const int num_tokens) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= num_tokens) return;
  const int32_t rel = positions[i] - window_start;
  int32_t page = rel / page_size;
  if (rel % page_size != 0 && rel < 0) {
    page -= 1;  // floor division for a positive page_size
  }
  pages[i] = page;
}
