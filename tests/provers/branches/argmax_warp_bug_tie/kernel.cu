// Row argmax, one warp per row: each lane scans a strided part of the row, then a butterfly of shuffles
// keeps the larger value and, on ties, the smaller index (torch.argmax returns the first maximum).
__global__ void warp_argmax(const float* __restrict__ x, long long* __restrict__ out, int cols) {
  const int row = blockIdx.x;
  const int lane = threadIdx.x & 31;
  const float* xr = x + (size_t)row * cols;
  float best = -INFINITY;
  int best_idx = cols;
  for (int j = lane; j < cols; j += 32) {
    const float v = xr[j];
    if (v > best) {
      best = v;
      best_idx = j;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffff, best, offset);
    const int other_idx = __shfl_xor_sync(0xffffffff, best_idx, offset);
    if (other > best || (other == best && other_idx > best_idx)) {
      best = other;
      best_idx = other_idx;
    }
  }
  if (lane == 0) out[row] = best_idx;
}
