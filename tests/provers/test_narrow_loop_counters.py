"""A loop counter of a narrow type wraps where the sizes pass its range (issue 19, gap c).

``for (unsigned char k = 0; k < d; ++k)`` computes ``k + 1`` in ``int`` and converts it back to ``unsigned
char``: at ``k = 255`` it is 0 again, and for ``d >= 256`` the loop never ends (a ``short`` wraps at 32768,
implementation-defined). The summary of the loop (``k = start + step * iteration``) does not wrap, so the
overflow obligation was PROVED for all sizes. The update of a summarised counter is now an obligation of its
own: refuted with the smallest sizes where it wraps, proved where the task's constraints keep it in range.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.pipeline.reports import VerifyReport
from larkc.provers import ObligationKind, Status, Verdict
from larkc.tasks import Task

_KERNEL = """
// Row sums, one thread per row, the column loop with a compact counter.
__global__ void row_sums(const float* __restrict__ x, float* __restrict__ out, int rows, %s cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (%s c = 0; c < cols; %s) {
        acc += x[(long long)r * cols + c];
    }
    out[r] = acc;
}
"""


def _task(tmp_path: Path, counter: str, step: str, cols_max: int, bound_type: str = "int", rows_max: int = 64) -> Task:
    (tmp_path / "kernel.cu").write_text(_KERNEL % (bound_type, counter, step), encoding="utf-8")
    return Task(
        name="row_sums",
        source=str(tmp_path / "kernel.cu"),
        kernel="row_sums",
        reference=lambda x: x.sum(dim=1),
        inputs={"x": "f32[rows, cols]"},
        outputs={"out": "f32[rows]"},
        symbols=["rows", "cols"],
        constraints=[f"rows <= {rows_max}", f"cols <= {cols_max}"],
        instances=[{"rows": 1, "cols": 5}],
        grid=["cdiv(rows, 32)"],
        block=[32],
    )


def _show(report: VerifyReport) -> str:
    return "\n".join(report.render())


def _overflow(report: VerifyReport) -> tuple[Status, str]:
    (r,) = [r for r in report.results if r.obligation.kind is ObligationKind.OVERFLOW]
    return r.status, r.detail


@pytest.mark.parametrize(
    ("counter", "step", "wraps_at"),
    [
        ("unsigned char", "++c", "cols=256"),
        ("unsigned char", "c += 2", "cols=255"),
        ("short", "c++", "cols=2^15"),
    ],
    ids=["uchar", "uchar-by-2", "short"],
)
def test_a_narrow_counter_that_wraps_is_failed_with_the_size(
    tmp_path: Path, counter: str, step: str, wraps_at: str
) -> None:
    report = larkc.verify(_task(tmp_path, counter, step, 40000))
    assert report.verdict is Verdict.FAILED, _show(report)
    status, detail = _overflow(report)
    assert status is Status.REFUTED, _show(report)
    assert wraps_at in detail and "loop counter" in detail, _show(report)


def test_a_narrow_counter_the_constraints_keep_in_range_is_proved(tmp_path: Path) -> None:
    report = larkc.verify(_task(tmp_path, "unsigned char", "++c", 255))
    assert report.verdict is Verdict.VERIFIED, _show(report)
    status, _ = _overflow(report)
    assert status is Status.PROVED, _show(report)


def test_an_int_counter_against_a_64_bit_bound_is_not_proved(tmp_path: Path) -> None:
    """``int c < cols`` with ``long long cols`` up to 2^33: ``c + 1`` overflows int at ``cols = 2^31 + 1``."""
    report = larkc.verify(_task(tmp_path, "int", "++c", 1 << 33, bound_type="long long", rows_max=2))
    assert report.verdict is not Verdict.VERIFIED, _show(report)
    status, _ = _overflow(report)
    assert status is not Status.PROVED, _show(report)
