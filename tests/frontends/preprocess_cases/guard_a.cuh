#ifndef GUARD_A
#define GUARD_A
#include "guard_b.cuh"
int from_a;
#endif
