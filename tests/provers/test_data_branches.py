"""Stores under a branch on input data (issue 19, class 10): the symbolic executor if-converts the branch
and guards each arm's stores, so an element becomes ``select(condition, stored, old)``, exact per element.

A ReLU written with ``if (x[i] > 0) out[i] = x[i]; else out[i] = 0;`` and a shared-memory argmax whose
reduction swaps candidates under a comparison are VERIFIED; the same ReLU without its ``else`` arm leaves
negative positions unwritten and is FAILED, and argmax kernels that break ties towards the larger index
(torch.argmax returns the first maximum) are FAILED. Each kernel is a task folder under ``branches/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, ObligationKind, Status, Verdict
from larkc.tasks import load_task

HERE = Path(__file__).resolve().parent / "branches"

CORRECT = ("relu_branch", "relu_where_triton", "argmax_loop", "argmax_warp", "argmax_shared")
WRONG = ("relu_branch_bug_one_arm", "argmax_loop_bug_last_tie", "argmax_warp_bug_tie", "argmax_shared_bug_tie")


@pytest.mark.parametrize("name", CORRECT)
def test_correct_kernel_with_data_dependent_stores_or_choices_verifies(name: str, tmp_path: Path) -> None:
    report = verify_task(load_task(HERE / name), budget=Budget(seconds=120), replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


@pytest.mark.parametrize("name", WRONG)
def test_wrong_kernel_fails_with_a_mismatch(name: str, tmp_path: Path) -> None:
    report = verify_task(load_task(HERE / name), budget=Budget(seconds=120), replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert report.kinds() == {"mismatch"}


def test_relu_branch_needs_no_stop_at_the_branch(tmp_path: Path) -> None:
    """Before guarded stores, the run stopped at the branch ("a branch on input data around a memory
    write") and every bounded obligation was UNKNOWN."""
    report = verify_task(load_task(HERE / "relu_branch"), replay_dir=tmp_path)
    for r in report.results:
        assert "around a memory write" not in r.detail
        if r.obligation.kind is ObligationKind.EQUIVALENCE:
            assert r.status is Status.PROVED


_READ_BACK = """
__global__ void relu_then_copy(const float* __restrict__ x, float* __restrict__ out, float* __restrict__ copy,
                               int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f) {
      out[i] = x[i];
    }
    copy[i] = out[i];
  }
}
"""


def test_a_read_of_an_element_written_only_under_a_data_condition_stops_the_run(tmp_path: Path) -> None:
    """Reading ``out[i]`` after storing it in one arm only may read memory never written: the ``init``
    check cannot say, so the run stops there and nothing is claimed (never a proof of ``init``)."""
    from larkc import Task

    src = tmp_path / "k.cu"
    src.write_text(_READ_BACK)
    task = Task(
        source=src, kernel="relu_then_copy", reference=lambda x: (x.relu(), x.relu()),
        inputs={"x": "f32[n]"}, outputs={"out": "f32[n]", "copy": "f32[n]"}, symbols=["n"],
        instances=[{"n": 4}], grid=["1"], block=[32],
    )  # fmt: skip
    report = verify_task(task, replay_dir=tmp_path)
    init = next(r for r in report.results if r.obligation.kind is ObligationKind.INIT)
    assert init.status is not Status.PROVED
    assert report.verdict is not Verdict.VERIFIED
