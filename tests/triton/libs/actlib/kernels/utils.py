"""Helpers shared by the kernels, as ``unsloth/kernels/utils.py``."""

import triton
import triton.language as tl
from packaging.version import Version

from ..device_type import DEVICE_TYPE

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2

# tl.math.tanh now is libdevice.tanh
if Version(triton.__version__) >= Version("3.0.0"):
    if DEVICE_TYPE == "xpu":
        triton_tanh = tl.extra.intel.libdevice.tanh
    else:
        from triton.language.extra import libdevice

        triton_tanh = libdevice.tanh
    triton_cast = tl.cast
else:
    triton_tanh = tl.math.tanh

    # No casting in old Triton versions
    @triton.jit
    def triton_cast(x, dtype):
        return x.to(dtype)


def calculate_settings(n: int) -> tuple[int, int]:
    block_size: int = next_power_of_2(n)
    if block_size > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum {MAX_FUSED_SIZE}.")
    return block_size, 4 if block_size < 2048 else 8
