# ruff: noqa: N803, N806 - the library's own names (BLOCK, FAST)
"""Autotune configurations built by helper functions, as ``unsloth/kernels/moe/grouped_gemm/kernels/
autotuning.py`` builds them: defaults as module constants, ``None`` meaning "detect", lists normalised by a
helper, ``dict(...)`` of keywords, a product of the choices."""

import itertools

import triton

DEFAULT_BLOCK_SIZES = [32, 64]
DEFAULT_NUM_WARPS = [4, 8]
_HAS_FAST_PATH = False


def val_to_list(val):
    if val is None:
        return None
    elif isinstance(val, list):
        return val
    else:
        return [val]


def get_scale_configs(BLOCK=DEFAULT_BLOCK_SIZES, FAST=None, num_warps=DEFAULT_NUM_WARPS):
    if FAST is None:
        FAST = _HAS_FAST_PATH
    BLOCK, FAST, num_warps = [val_to_list(x) for x in (BLOCK, FAST, num_warps)]
    kernel_configs = []
    for block, fast, w in itertools.product(BLOCK, FAST, num_warps):
        kernel_configs.append(triton.Config(dict(BLOCK_SIZE=block, USE_FAST=fast), num_warps=w))
    return kernel_configs


def prune_scale_configs(configs, args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK_SIZE"] <= triton.next_power_of_2(args["n_elements"])]
