// Inclusive prefix sum of each row of BLOCK elements, one block per row (Hillis-Steele scan).
// Each step reads one shared buffer and writes the other, so a single barrier per step suffices:
// nobody overwrites a value another thread may still be reading in the same step.

template <int BLOCK>
__global__ void block_scan(const float* __restrict__ x, float* __restrict__ out) {
  __shared__ float buf[2][BLOCK];
  const int tid = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * BLOCK;

  int cur = 0;
  buf[cur][tid] = x[base + tid];
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    const int next = 1 - cur;
    float v = buf[cur][tid];
    if (tid >= offset) {
      v += buf[cur][tid - offset];
    }
    buf[next][tid] = v;
    __syncthreads();
    cur = next;
  }
  out[base + tid] = buf[cur][tid];
}
