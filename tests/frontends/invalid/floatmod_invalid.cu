// expect: 2:38: error: operator % on f32
__global__ void k(float* a) { a[0] = a[1] % 2.0f; }
