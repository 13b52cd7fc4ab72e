# ruff: noqa: N803 - the library's own names (BLOCK_SIZE)
"""y = 2 x, autotuned over configurations a sibling module builds, the autotuned kernel made by calling
``triton.autotune(...)`` on the jit function (Unsloth's grouped GEMM)."""

import triton
import triton.language as tl

from .autotuning import get_scale_configs, prune_scale_configs


@triton.jit
def _scale_kernel(y, x, n_elements, BLOCK_SIZE: tl.constexpr, USE_FAST: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    v = tl.load(x + offs, mask=mask, other=0.0)
    if USE_FAST:
        v = v + v
    else:
        v = v * 2.0
    tl.store(y + offs, v, mask=mask)


_autotuned_scale_kernel = triton.autotune(
    configs=get_scale_configs(),
    prune_configs_by={"early_config_prune": prune_scale_configs},
    key=["n_elements"],
)(_scale_kernel)
