// The activation functions of the demo library.
#pragma once

#include <cmath>

#include "compat.h"

namespace demo {

// x * sigmoid(x), computed as x / (1 + e^-x).
__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }

}  // namespace demo
