// GPUVerify's param_values/value_causing_race, rewritten: threads 15 and 200 race on A[200] when x = 185,
// a value the preconditions allow.
__global__ void example(float* A, int x) {
    __requires(x >= 0);
    __requires(x < 1000);
    if (threadIdx.x == 15) {
        A[threadIdx.x + x] = threadIdx.x;
    }
    if (threadIdx.x == 200) {
        A[threadIdx.x] = threadIdx.x;
    }
}
