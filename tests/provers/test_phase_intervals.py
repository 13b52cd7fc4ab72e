"""The parametric prover's barrier intervals against the phase form, on every example.

The race queries of :mod:`larkc.provers.parametric` compare the block barriers each access has passed
(counted along one path by symbolic execution); the phase form (:mod:`larkc.ir.phases`, what
``larkc emit`` lowers to Lean) places the same accesses in phases. Both must agree, and a
disagreement must stop the prover from claiming race freedom.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import pytest

from larkc import load_task
from larkc.frontends import parse_task
from larkc.ir import phases
from larkc.ir.phases import Interval, PhaseForm, covers
from larkc.pipeline.inputs import kernel_function
from larkc.provers import Budget, Obligation, ObligationKind, Status
from larkc.provers.parametric import _Analysis, _Finding, prove_parametric
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"
TASKS = sorted(p.parent.name for p in EXAMPLES.glob("*/task.py"))
BUDGET = Budget(seconds=60, solver_rlimit=20_000_000)

#: Examples whose counts the phase form cannot be compared with: a barrier under a thread-dependent
#: condition puts both arms' phases in sequence (the seeded divergence bug); barriers under the "last
#: block" condition, computed from an atomic's result, have no phase form.
NOT_COMPARABLE = {"row_sum_warp_bug_sync_in_branch", "last_block_sum", "last_block_sum_bug_no_release_fence"}


@cache
def _analysis(name: str) -> tuple[Task, _Analysis]:
    task = load_task(EXAMPLES / name / "task.py")
    module = parse_task(task)
    fn = kernel_function(task, module)
    return task, _Analysis(module, fn, task, BUDGET, time.monotonic() + BUDGET.seconds)


@pytest.mark.parametrize("name", TASKS)
def test_barrier_intervals_agree_with_the_phase_form(name: str) -> None:
    _, a = _analysis(name)
    f = _Finding()
    compared = a.check_intervals(f)
    assert f.doubts == []
    if name in NOT_COMPARABLE:
        assert compared == 0
    else:
        # most accesses are placed: all but those after a loop of barriers
        assert compared >= max(1, len(a.trace.accesses) // 3), (compared, len(a.trace.accesses))


def test_a_disagreement_leaves_race_freedom_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A phase form that forgot the barriers (a defect on one side) must not let races be proved."""
    task = load_task(EXAMPLES / "row_sum_shared" / "task.py")
    module = parse_task(task)
    race = Obligation(ObligationKind.RACE)
    (ok,) = prove_parametric(module, task.kernel, task, [race], BUDGET)
    assert ok.status is Status.PROVED, ok.detail
    assert "agree with the phase form" in ok.detail

    real = phases.block_intervals

    def no_barriers(form: PhaseForm) -> dict[object, frozenset[Interval]] | None:
        out = real(form)
        return None if out is None else {k: frozenset((0, 0) for _ in v) for k, v in out.items()}

    monkeypatch.setattr("larkc.provers.parametric.block_intervals", no_barriers)
    (bad,) = prove_parametric(module, task.kernel, task, [race], BUDGET)
    assert bad.status is Status.UNKNOWN
    assert "internal inconsistency" in bad.detail and "phase form places it at [(0, 0)]" in bad.detail


@pytest.mark.parametrize(
    ("places", "start", "period", "expected"),
    [
        ({(2, 0)}, 2, 0, True),
        ({(2, 0)}, 1, 0, False),
        ({(1, 3)}, 7, 0, True),  # 1 + 3*2
        ({(1, 3)}, 0, 0, False),
        ({(1, 3)}, 4, 3, True),  # 4, 7, 10, ... all on 1 + 3k
        ({(1, 3)}, 4, 2, False),
        ({(1, 3)}, 0, 3, False),  # 0 is not placed
        ({(0, 0), (2, 2)}, 0, 2, True),  # a rotated loop's head: before the loop, then every iteration
        ({(0, 0), (3, 2)}, 0, 2, False),
        ({(2, 2)}, 0, 2, False),
    ],
)
def test_covers(places: set[Interval], start: int, period: int, expected: bool) -> None:
    assert covers(frozenset(places), start, period) is expected
