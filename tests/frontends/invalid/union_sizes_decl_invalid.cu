// expect: 3:1: error: unsupported union with members of different sizes: float_or_pair
// a union whose members differ in size cannot be held as one member's bits
union float_or_pair {
    float f;
    float2 pair;
};
__global__ void k(float* x) { float_or_pair u; u.f = x[0]; x[1] = u.pair.y; }
