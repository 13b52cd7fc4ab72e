"""The scratch-row kernels of ``tests/provers/test_triton_lane_races.py`` are Triton programs Triton runs:
with ``tl.debug_barrier()`` between the store and the read-back, Triton's interpreter (which runs a
program's elements together, so it cannot show the race of the version without the barrier) and larkc's
simulator compute the same rows, and the simulator reports no race."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

from larkc.frontends.triton import parse_triton
from larkc.ir.types import F32, I32, AddressSpace, PointerType
from larkc.semantics import GlobalBuffer, LaunchConfig, simulate

pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")

pytestmark = pytest.mark.triton

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def reverse_rows(x_ptr, tmp_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(tmp_ptr + row * n_cols + cols, x * 2.0, mask=mask)
    tl.debug_barrier()
    y = tl.load(tmp_ptr + row * n_cols + (n_cols - 1 - cols), mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)
"""


def test_the_synchronised_read_back_agrees_with_triton(tmp_path: Path) -> None:
    path = tmp_path / "reverse_rows.py"
    path.write_text(KERNEL, encoding="utf-8")
    rows, cols, block = 3, 13, 16
    x = torch.randn(rows, cols, generator=torch.Generator().manual_seed(0))

    spec = importlib.util.spec_from_file_location("larkc_lane_race_reverse_rows", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    tmp, out = torch.empty_like(x), torch.empty_like(x)
    mod.reverse_rows[(rows,)](x, tmp, out, cols, BLOCK=block)
    assert torch.equal(out, (2 * x).flip(1))

    p = PointerType(F32, AddressSpace.GLOBAL)
    module = parse_triton(
        path, kernel="reverse_rows", params={"x_ptr": p, "tmp_ptr": p, "out_ptr": p, "n_cols": I32},
        constexprs={"BLOCK": block},
    )  # fmt: skip
    args = {
        "x_ptr": GlobalBuffer("x", x.clone(), F32),
        "tmp_ptr": GlobalBuffer("tmp", torch.zeros_like(x), F32),
        "out_ptr": GlobalBuffer("out", torch.zeros_like(x), F32),
        "n_cols": cols,
    }
    r = simulate(module, "reverse_rows", LaunchConfig((rows, 1, 1), (1, 1, 1)), args)
    assert not r.diagnoses, [d.render() for d in r.diagnoses]
    assert torch.equal(r.buffers["out"], out)
