// Clamp to [lo, hi] with an early exit written as a goto.

__global__ void clamp_goto(const float* x, float* y, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) goto done;
  y[i] = fminf(fmaxf(x[i], lo), hi);
done:
  return;
}
