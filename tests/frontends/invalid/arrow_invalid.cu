// expect: 3:37: error: unsupported member access through a pointer (->): a->x
struct P { float x, y; };
__global__ void k(P* a) { float v = a->x; }
