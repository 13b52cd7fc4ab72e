"""Block constructs against Triton's interpreter: permutations (``tl.trans``, ``tl.permute``, ``x.T``),
scans (``tl.cumsum``, ``tl.cumprod``, ``tl.associative_scan`` with tuple carries and ``reverse``),
reductions with a combine function (``tl.reduce``: tuples, ``keep_dims``, ``axis=None``) and
``tl.join``/``tl.split``/``tl.interleave``. Each case is a few lines of a kernel over a 4x8 block; larkc's
simulator must store what the interpreter stores (the interpreter folds left to right, one combine at
a time, and so does the simulator, so results are compared exactly)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from harness import Launch, compare, run_larkc, run_triton

pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")

pytestmark = pytest.mark.triton

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def combine_add(a, b):
    return a + b


@triton.jit
def combine_or(a, b):
    return a | b


@triton.jit
def combine_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def combine_argmax(v1, i1, v2, i2):
    left = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(left, v1, v2), tl.where(left, i1, i2)


@triton.jit
def combine_affine(a1, b1, a2, b2):
    return a1 * a2, a2 * b1 + b2


@triton.jit
def k(x_ptr, o_ptr, R: tl.constexpr, C: tl.constexpr, OUT_N: tl.constexpr, SCALAR: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
{body}
    if SCALAR:
        tl.store(o_ptr, y)
    else:
        tl.store(o_ptr + tl.arange(0, OUT_N), tl.reshape(y, (OUT_N,)))
"""

#: name -> (body lines, input dtype, output dtype, output elements (0: a scalar))
CASES: dict[str, tuple[str, torch.dtype, torch.dtype, int]] = {
    "trans": ("y = tl.trans(x)", torch.float32, torch.float32, 32),
    "dot_T": ("y = x.T + 1.0", torch.float32, torch.float32, 32),
    "permute_tuple": ("y = tl.permute(tl.reshape(x, (2, 4, 4)), (2, 0, 1))", torch.float32, torch.float32, 32),
    "permute_varargs": ("y = tl.permute(tl.reshape(x, (2, 4, 4)), 1, 2, 0)", torch.float32, torch.float32, 32),
    "trans_batched": ("y = tl.trans(tl.reshape(x, (2, 4, 4)))", torch.float32, torch.float32, 32),
    "cumsum_rows": ("y = tl.cumsum(x, axis=1)", torch.float32, torch.float32, 32),
    "cumsum_reverse_cols": ("y = tl.cumsum(x, 0, reverse=True)", torch.float32, torch.float32, 32),
    "cumsum_int8": ("y = tl.cumsum(x, axis=1)", torch.int8, torch.int32, 32),
    "cumsum_method": ("y = x.cumsum(1)", torch.float32, torch.float32, 32),
    "cumprod": ("y = tl.cumprod(x, axis=1, reverse=True)", torch.float32, torch.float32, 32),
    "scan_max": ("y = tl.associative_scan(x, 1, combine_max)", torch.float32, torch.float32, 32),
    "scan_tuple_reverse": (
        "a, y = tl.associative_scan((x * 0.5, x), 1, combine_affine, reverse=True)",
        torch.float32,
        torch.float32,
        32,
    ),
    "reduce_argmax_pair": (
        "idx = tl.broadcast_to(c[None, :], (R, C))\n    m, y = tl.reduce((x, idx), 1, combine_argmax)",
        torch.float32,
        torch.int32,
        4,
    ),
    "reduce_keep_dims": ("y = tl.reduce(x, 0, combine_add, keep_dims=True)", torch.float32, torch.float32, 8),
    "reduce_all": ("y = tl.reduce(x, None, combine_add)", torch.float32, torch.float32, 0),
    "reduce_method": ("y = x.reduce(1, combine_max)", torch.float32, torch.float32, 4),
    "reduce_bool": ("y = tl.reduce(x > 2.5, 1, combine_or).to(tl.int32)", torch.float32, torch.int32, 4),
    "scan_int_tuple": (
        "i = tl.broadcast_to(c[None, :], (R, C))\n    m, y = tl.associative_scan((x, i), 1, combine_argmax)",
        torch.int32,
        torch.int32,
        32,
    ),
    "xor_sum": ("y = tl.xor_sum(x, axis=1)", torch.int32, torch.int32, 4),
    "xor_sum_all_keep": ("y = x.xor_sum(keep_dims=True)", torch.int32, torch.int32, 1),
    "reduce_or": ("y = tl.reduce_or(x, 0)", torch.int32, torch.int32, 8),
    "squeeze_unsqueeze": ("y = tl.squeeze(tl.unsqueeze(x, 1), 1) * 2", torch.int32, torch.int32, 32),
    "ravel": ("y = tl.ravel(tl.trans(x))", torch.float32, torch.float32, 32),
    "join": ("y = tl.join(x, x * 2.0)", torch.float32, torch.float32, 64),
    "join_scalars": ("y = tl.join(tl.sum(x), tl.max(x))", torch.float32, torch.float32, 2),
    "split": ("a, b = tl.split(tl.reshape(x, (4, 4, 2)))\n    y = a - 2.0 * b", torch.float32, torch.float32, 16),
    "interleave": ("y = tl.interleave(x, -x)", torch.float32, torch.float32, 64),
}


def _launch(tmp: Path, name: str) -> Launch:
    body, in_t, out_t, n = CASES[name]
    path = tmp / name / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(KERNEL.format(body="    " + body), encoding="utf-8")

    def make(g: torch.Generator) -> dict[str, torch.Tensor | int | float]:
        if in_t.is_floating_point:
            x = torch.randint(-3, 4, (4, 8), generator=g).float() + torch.rand(4, 8, generator=g).round()
        else:
            x = torch.randint(-100, 100, (4, 8), generator=g)
        return {"x_ptr": x.to(in_t), "o_ptr": torch.zeros(max(n, 1), dtype=out_t)}

    consts = {"R": 4, "C": 8, "OUT_N": max(n, 1), "SCALAR": n == 0}
    return Launch(name, "k", (1,), make, consts, rtol=0.0, atol=0.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_block_construct_agrees_with_triton_interpreter(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness

    monkeypatch.setattr(harness, "EXAMPLES", tmp_path)
    launch = _launch(tmp_path, name)
    sim, _ = run_larkc(launch)
    assert sim.ok, [d.message for d in sim.diagnoses]
    ref = run_triton(launch)
    assert compare(launch, sim, ref, ["o_ptr"]) == []
