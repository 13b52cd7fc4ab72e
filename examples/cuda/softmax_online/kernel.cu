// Row softmax with the online (single pass) normaliser: every thread keeps a running maximum and a
// sum of exponentials rescaled whenever the maximum grows; the per-thread states are merged across
// the warp with shuffles and across warps through shared memory; a second sweep writes the output.
// One block of THREADS threads per row.

#define THREADS 128
#define WARP_SIZE 32
#define NUM_WARPS (THREADS / WARP_SIZE)

struct MaxSum {
  float max;  // running maximum, -inf while no element has been seen
  float sum;  // sum of exp(x - max) over the elements seen
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  // An empty state has max = -inf; exp(-inf - -inf) would be NaN, so it is skipped instead.
  if (a.max == -INFINITY) return b;
  if (b.max == -INFINITY) return a;
  MaxSum r;
  r.max = fmaxf(a.max, b.max);
  r.sum = a.sum * expf(a.max - r.max) + b.sum * expf(b.max - r.max);
  return r;
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum s) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
    MaxSum other;
    other.max = __shfl_xor_sync(0xffffffff, s.max, offset);
    other.sum = __shfl_xor_sync(0xffffffff, s.sum, offset);
    s = merge(s, other);
  }
  return s;
}

__global__ void __launch_bounds__(THREADS)
    softmax_online(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ MaxSum warp_state[NUM_WARPS];
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const float* row_in = x + static_cast<size_t>(blockIdx.x) * d;
  float* row_out = out + static_cast<size_t>(blockIdx.x) * d;

  MaxSum state = {-INFINITY, 0.0f};
  for (int j = threadIdx.x; j < d; j += THREADS) {
    const float v = row_in[j];
    if (v > state.max) {
      state.sum = state.sum * expf(state.max - v) + 1.0f;
      state.max = v;
    } else {
      state.sum += expf(v - state.max);
    }
  }
  state = warp_merge(state);
  if (lane == 0) {
    warp_state[warp] = state;
  }
  __syncthreads();

  MaxSum total = warp_state[NUM_WARPS - 1];
  for (int w = NUM_WARPS - 2; w >= 0; --w) {
    total = merge(warp_state[w], total);
  }
  const float inv_sum = 1.0f / total.sum;
  for (int j = threadIdx.x; j < d; j += THREADS) {
    row_out[j] = expf(row_in[j] - total.max) * inv_sum;
  }
}
