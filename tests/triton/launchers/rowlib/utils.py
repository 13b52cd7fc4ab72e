# ruff: noqa: N806 - the library's own names (BLOCK_SIZE)
"""Helpers shared by the library's launchers."""

import torch
import triton

# queried at import, as libraries pick their kernels' settings by the GPU's generation
DEVICE_CAPABILITY = torch.cuda.get_device_capability()
MAX_FUSED_SIZE = 65536 if DEVICE_CAPABILITY[0] >= 8 else 32768


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"n = {n} exceeds the maximum {MAX_FUSED_SIZE}.")
    return BLOCK_SIZE, 4 if BLOCK_SIZE < 2048 else 8
