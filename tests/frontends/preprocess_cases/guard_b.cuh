#ifndef GUARD_B
#define GUARD_B
#include "guard_a.cuh"
int from_b;
#endif
