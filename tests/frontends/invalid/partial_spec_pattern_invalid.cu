// expect: 5:5: error: unsupported partial specialization argument pattern other than a parameter or a fixed argument: vec_t<T*, N>
template <typename T, int N> struct vec_t { T data[N]; };
template <typename T, int N> struct vec_t<T*, N> { float data[N]; };
__global__ void fill(float* out) {
    vec_t<float, 2> v;
    v.data[0] = 1.0f;
    out[threadIdx.x] = v.data[0];
}
