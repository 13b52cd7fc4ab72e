// expect: 7:5: error: ambiguous partial specializations of vec_t<float, 4>: vec_t<float, N>, vec_t<T, 4>
template <typename T, int N> struct vec_t { T data[N]; };
template <int N> struct vec_t<float, N> { float data[N]; };
template <typename T> struct vec_t<T, 4> { T data[4]; };
__global__ void fill(float* out) {
    vec_t<float, 2> ok;
    vec_t<float, 4> both;
    both.data[0] = 1.0f;
    out[threadIdx.x] = both.data[0];
}
