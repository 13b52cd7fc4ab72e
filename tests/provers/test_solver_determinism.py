"""The same input gets the same verdict on any machine (issue 19, item 16).

Solver work is bounded in z3's resource units (``rlimit``), which count z3's own steps, not seconds:
an answer reached within the limit is reached on any machine under any load, and a limit reached is
reached on every machine. Seconds remain an outer safety net, and its expiry says so.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pytest
import z3

from larkc.frontends import parse_source
from larkc.provers import Budget, Obligation, ObligationKind, Status
from larkc.provers.parametric import prove_parametric
from larkc.provers.zworld import Answer, Session, rlimit_count
from larkc.tasks import Task


def _hard() -> list[Any]:
    """Positive integers with x^3 + y^3 = z^3: no solution (Fermat), and no easy proof for z3."""
    x, y, z = z3.Ints("x y z")
    return [x * x * x + y * y * y == z * z * z, x > 0, y > 0, z > 0]


def test_a_resource_limit_is_reached_the_same_way_whatever_the_clock_allows() -> None:
    answers = []
    for seconds in (5.0, 1e6):  # a short and an endless safety net: neither is reached
        session = Session(_hard(), rlimit=300_000, deadline=time.monotonic() + seconds, seconds=seconds)
        out = session.check([])
        answers.append((out.answer, out.reason))
    assert answers[0] == answers[1]
    assert answers[0][0] is Answer.UNKNOWN
    assert "z3 reached its resource limit of 300000 units (rlimit)" in answers[0][1]


def test_the_limit_is_set_per_call_not_per_process() -> None:
    # z3 counts resources per context, over the whole process: a limit that were absolute would leave
    # later calls nothing; each call gets the full limit from its own start
    session = Session(_hard(), rlimit=200_000, deadline=math.inf)
    used = []
    for _ in range(3):
        before = rlimit_count(session._solvers[0])
        out = session.check([], rlimit=200_000)
        used.append(rlimit_count(session._solvers[1]) - before)
        assert out.answer is Answer.UNKNOWN and "resource limit" in out.reason
    assert all(u >= 2 * 200_000 for u in used)  # both solver configurations ran to their limit, each time


def test_an_easy_question_is_answered_within_the_limit() -> None:
    x = z3.Int("x")
    session = Session([x > 3], rlimit=100_000, deadline=math.inf)
    assert session.check([x < 5]).answer is Answer.SAT
    assert session.check([x < 3]).answer is Answer.UNSAT


def test_the_wall_clock_safety_net_is_reported_as_such() -> None:
    session = Session(_hard(), rlimit=10**12, deadline=time.monotonic() - 1.0, seconds=7.0)
    out = session.check([])
    assert out.answer is Answer.UNKNOWN
    assert out.reason == "wall-clock safety net of 7 s reached: this verdict depends on machine load (--seconds)"


_KERNEL = """\
// Adds a bias to every element of a row-major matrix, one row per block.
__global__ void add_bias(const float* __restrict__ in, const float* __restrict__ bias, float* __restrict__ out,
                         int rows, int cols) {
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    out[blockIdx.x * cols + c] = in[blockIdx.x * cols + c] + bias[c];
  }
}
"""


def _task(tmp_path: Path) -> Task:
    (tmp_path / "bias.cu").write_text(_KERNEL)
    return Task(
        source=tmp_path / "bias.cu",
        kernel="add_bias",
        inputs={"in": "f32[rows, cols]", "bias": "f32[cols]"},
        outputs={"out": "f32[rows, cols]"},
        symbols=["rows", "cols"],
        constraints=["rows <= 65535", "cols <= 8192"],
        instances=[{"rows": 3, "cols": 100}],
        grid=["rows"],
        block=[128],
    )


def test_parametric_verdicts_follow_the_resource_limit_not_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = _task(tmp_path)
    module = parse_source(task.source, kernel="add_bias")
    obligations = [Obligation(k) for k in (ObligationKind.BOUNDS, ObligationKind.RACE)]
    limits: list[int] = []
    original = z3.Solver.set

    def recording_set(self: Any, *args: Any, **kwargs: Any) -> None:
        if args and args[0] == "rlimit":
            limits.append(int(args[1]))
        original(self, *args, **kwargs)

    monkeypatch.setattr(z3.Solver, "set", recording_set)
    generous = prove_parametric(module, "add_bias", task, obligations, Budget(seconds=1e6, solver_rlimit=10**9))
    assert [r.status for r in generous] == [Status.PROVED, Status.PROVED]
    assert limits and max(limits) <= 10**9  # every solver call ran under a resource limit
    starved = prove_parametric(module, "add_bias", task, obligations, Budget(seconds=1e6, solver_rlimit=1))
    for r in starved:
        assert r.status is Status.UNKNOWN
        assert "resource limit of 1 units" in r.detail
