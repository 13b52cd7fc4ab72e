// Row argmax, one thread per row: a running maximum and its index, the first index on ties.
__global__ void row_argmax(const float* __restrict__ x, long long* __restrict__ idx, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = x + (long long)r * cols;
  float best = row[0];
  int best_j = 0;
  for (int j = 1; j < cols; ++j) {
    float v = row[j];
    if (v >= best) {
      best = v;
      best_j = j;
    }
  }
  idx[r] = best_j;
}
