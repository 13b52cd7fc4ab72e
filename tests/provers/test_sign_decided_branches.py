"""A branch on data the sign oracle decides runs one arm (``value >= 0`` on a max of absolute values:
vLLM's atomicMaxFloat), but only where the compared term is defined at every input: ``sqrtf(v - 1) >= 0``
is false (NaN) for ``v < 1``, so it stays a branch on data (a review found both kernels below VERIFIED)."""

from __future__ import annotations

from pathlib import Path

import larkc
from larkc.tasks import Task

DOUBLE_IF_DEFINED = """
__global__ void k(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float r = 0.0f;
    if (sqrtf(v - 1.0f) >= 0.0f) r = 2.0f * v;
    out[i] = r;
  }
}
"""

WRITES_INPUT_IF_UNDEFINED = """
__global__ void k(float* x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = 2.0f * v;
    if (sqrtf(v - 1.0f) >= 0.0f) { } else { x[i] = 0.0f; }
  }
}
"""

ABS_MAX_SIGN = """
__global__ void k(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = fmaxf(fabsf(x[i]), 0.0f);
    float r = 0.0f;
    if (v >= 0.0f) r = 2.0f * x[i];
    out[i] = r;
  }
}
"""


def _task(tmp_path: Path, source: str) -> Task:
    (tmp_path / "kernel.cu").write_text(source, encoding="utf-8")
    return Task(
        name="sign",
        source=str(tmp_path / "kernel.cu"),
        kernel="k",
        reference=lambda x: x * 2.0,
        inputs={"x": "f32[n]"},
        outputs={"out": "f32[n]"},
        symbols=["n"],
        constraints=["n <= 16777216"],
        instances=[{"n": 1}, {"n": 300}],
        grid=["cdiv(n, 256)"],
        block=[256],
    )


def test_a_comparison_of_a_partial_function_is_no_decided_branch(tmp_path: Path) -> None:
    report = larkc.verify(_task(tmp_path, DOUBLE_IF_DEFINED))
    assert report.exit_code != 0, "\n".join(report.render())
    assert not larkc.run(_task(tmp_path, DOUBLE_IF_DEFINED)).ok  # the simulator: 0 where v < 1


def test_the_undecided_arm_still_counts_for_the_inputs(tmp_path: Path) -> None:
    report = larkc.verify(_task(tmp_path, WRITES_INPUT_IF_UNDEFINED))
    assert report.exit_code != 0, "\n".join(report.render())


def test_a_total_comparison_is_still_decided(tmp_path: Path) -> None:
    """``max(|x|, 0) >= 0`` holds for every input: one arm, and the kernel is proved."""
    report = larkc.verify(_task(tmp_path, ABS_MAX_SIGN))
    assert report.exit_code == 0, "\n".join(report.render())
