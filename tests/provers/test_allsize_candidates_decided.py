"""An equivalence candidate of the all-size prover is decided by the bounded prover *against the
reference* at the candidate's sizes (issue 19, class 5 for equivalence).

The all-size prover names sizes where a stored value may differ from the reference's element (a z3 model,
which may rest on a wrong guess). The pipeline simulates the kernel there; a difference only at particular
input values (``v == 0.5f``, past index 4200) is one random inputs never draw, so the simulator runs
clean. The bounded prover was then asked without the reference ("the task has no reference") and the
candidate was only a note under the bounded VERIFIED. Now it decides the obligation with the spec at those
sizes: z3's model of the difference, checked exactly, refutes it, and the simulator confirms it on those
inputs (FAILED at ``n = 4201``). Kernels written as a leftover debugging fast path would be.
"""

from __future__ import annotations

from pathlib import Path

import torch

import larkc
from larkc.provers import CounterexampleKind, ObligationKind, Status, Verdict
from larkc.tasks import Task

_CUDA = """
// ReLU with a fast path for exact halves past the first tiles (a leftover of a debugging session).
__global__ void relu(const float* __restrict__ x, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        out[i] = (i >= 4200 && v == 0.5f) ? 0.0f : (v > 0.0f ? v : 0.0f);
    }
}
"""

_TRITON = """
import triton
import triton.language as tl


@triton.jit
def relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where((offs >= 4200) & (x == 0.5), 0.0, tl.maximum(x, 0.0))
    tl.store(out_ptr + offs, y, mask=mask)
"""


def _task(tmp_path: Path, triton: bool) -> Task:
    name = "kernel.py" if triton else "kernel.cu"
    (tmp_path / name).write_text(_TRITON if triton else _CUDA, encoding="utf-8")
    extra = {"bindings": {"x_ptr": "x", "out_ptr": "out", "BLOCK": 256}} if triton else {}
    return Task(
        name="relu",
        source=str(tmp_path / name),
        kernel="relu",
        reference=torch.relu,
        inputs={"x": "f32[n]"},
        outputs={"out": "f32[n]"},
        symbols=["n"],
        constraints=["n <= 1048576"],
        instances=[{"n": 1}, {"n": 1000}],
        grid=["cdiv(n, 256)"],
        block=[1 if triton else 256],
        **extra,  # type: ignore[arg-type]
    )


def _assert_refuted_past_the_instances(tmp_path: Path, triton: bool) -> None:
    report = larkc.verify(_task(tmp_path, triton))
    shown = "\n".join(report.render())
    assert report.verdict is Verdict.FAILED, shown
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.REFUTED, shown
    cx = eq.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED, shown
    assert cx.instance["n"] > 4200, cx.instance  # outside every instance of the task
    assert 0.5 in cx.inputs.get("x", {}).values(), cx.inputs  # the value random data never draws


def test_cuda_candidate_with_a_value_bug_is_refuted_by_the_bounded_prover(tmp_path: Path) -> None:
    _assert_refuted_past_the_instances(tmp_path, triton=False)


def test_triton_candidate_with_a_value_bug_is_refuted_by_the_bounded_prover(tmp_path: Path) -> None:
    _assert_refuted_past_the_instances(tmp_path, triton=True)
