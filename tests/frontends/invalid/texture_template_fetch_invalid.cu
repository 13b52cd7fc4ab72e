// expect: 3:72: error: unsupported texture or surface function tex2D (larkc does not model textures or surfaces): tex2D<T>(tex, x + 0.5f, y + 0.5f)
template <typename T>
__device__ T sample(unsigned long long tex, float x, float y) { return tex2D<T>(tex, x + 0.5f, y + 0.5f); }
__global__ void k(float* out, unsigned long long tex) { out[threadIdx.x] = sample<float>(tex, threadIdx.x, 0.0f); }
