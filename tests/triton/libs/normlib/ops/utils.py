# ruff: noqa: N806 - the library's own names (BLOCK_SIZE)
"""Helpers shared by the kernels, as ``liger_kernel/ops/utils.py``."""

import importlib
import operator
from collections.abc import Callable

import triton
import triton.language as tl
from packaging.version import Version


def compare_version(package: str, operator: Callable, target: str):
    try:
        pkg = importlib.import_module(package)
    except ImportError:
        return False
    return operator(Version(pkg.__version__), Version(target))


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    num_warps = 4 if BLOCK_SIZE < 2048 else 8
    return BLOCK_SIZE, num_warps


if compare_version("triton", operator.ge, "3.0.0"):
    from triton.language.extra import libdevice

    tanh = libdevice.tanh
else:
    tanh = tl.math.tanh


@triton.jit
def gelu_tanh_approx(x):
    # tanh here is this module's: a helper's names are those of its own file
    return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
