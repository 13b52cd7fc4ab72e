"""A parametric refutation is upheld by the simulator at its sizes or it is not a refutation.

z3 refutes an obligation of the parametric prover with a model: sizes and a pair of threads (or one
access). Where the sizes are small enough, ``verify`` runs the kernel there (:func:`_confirm_static`,
:func:`_confirm_sequence`). A run that reports the violation confirms it; a run that does not contradicts
the model (it abstracts something the execution pins down), so the refutation becomes a *possible*
violation: UNKNOWN with the witness, which blocks a bounded proof from standing for all sizes, and never
FAILED on evidence the execution contradicts. Only integer overflow, which the simulator does not check,
keeps a solver's model as ``static`` evidence when the run is silent.

The refutations are made up here (a correct kernel given a parametric refutation it does not deserve),
so that the test does not depend on a defect of the parametric prover to exist.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from larkc.frontends import parse_task
from larkc.pipeline.inputs import kernel_function
from larkc.pipeline.verify import _confirm_static
from larkc.provers import (
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    Status,
)
from larkc.tasks import Task, load_task

_SCALE = """\
__global__ void scale_rows(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i];
}
"""

_FLAG = """\
// Every thread of a block marks the block's row as seen: one value stored by many threads.
__global__ void mark_rows(const float* __restrict__ x, int* __restrict__ seen, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] == x[i]) seen[blockIdx.x] = 1;
}
"""

_TASK = """\
import torch
from larkc import Task

task = Task(
    source="kernel.cu", kernel="%s",
    inputs={"x": "f32[n]"}, outputs={"%s": "%s"}, %s
    symbols=["n"], constraints=["n <= 4096"], instances=[{"n": 40}],
    grid=["cdiv(n, 32)"], block=[32],
)
"""


def _task(tmp_path: Path, name: str, source: str, out: str, out_type: str, extra: str = "") -> Task:
    d = tmp_path / name
    d.mkdir()
    (d / "kernel.cu").write_text(textwrap.dedent(source))
    (d / "task.py").write_text(_TASK % (name, out, out_type, extra))
    return load_task(d)


def _refuted(kind: ObligationKind, instance: dict[str, int]) -> ObligationResult:
    cx = Counterexample(CounterexampleKind.STATIC, f"z3: a made-up {kind.value} violation", instance)
    scope = Scope.parametric(["n"], ["n <= 4096"])
    return ObligationResult(Obligation(kind), Status.REFUTED, scope, "parametric-z3", cx.message, (), cx)


def _confirm(task: Task, r: ObligationResult, tmp_path: Path) -> ObligationResult:
    module = parse_task(task)
    kernel_function(task, module)
    return _confirm_static(task, module, r, tmp_path / "replay")


@pytest.mark.parametrize("kind", [ObligationKind.RACE, ObligationKind.BOUNDS, ObligationKind.BARRIER])
def test_a_refutation_the_simulator_does_not_reproduce_is_a_possible_violation(
    tmp_path: Path, kind: ObligationKind
) -> None:
    task = _task(tmp_path, "scale_rows", _SCALE, "y", "f32[n]", 'bindings={"alpha": 2.0},')
    r = _confirm(task, _refuted(kind, {"n": 37}), tmp_path)
    assert r.status is Status.UNKNOWN, r.detail
    assert "the simulator at these sizes runs without reporting it" in r.detail
    (w,) = r.witnesses
    assert w.kind is CounterexampleKind.POSSIBLE and dict(w.instance) == {"n": 37}


def test_an_overflow_the_simulator_cannot_see_keeps_the_model(tmp_path: Path) -> None:
    task = _task(tmp_path, "scale_rows", _SCALE, "y", "f32[n]", 'bindings={"alpha": 2.0},')
    r = _confirm(task, _refuted(ObligationKind.OVERFLOW, {"n": 37}), tmp_path)
    assert r.status is Status.REFUTED and r.counterexample is not None
    assert r.counterexample.kind is CounterexampleKind.STATIC


def test_a_race_of_one_value_is_confirmed_as_a_race(tmp_path: Path) -> None:
    """``larkc run`` calls it ``race (same value)`` (a warning); ``verify``'s race obligation has no values,
    so the run confirms the refutation (as :mod:`tests.provers.test_triton_lane_races` expects)."""
    task = _task(tmp_path, "mark_rows", _FLAG, "seen", "i32[cdiv(n, 32)]")
    r = _confirm(task, _refuted(ObligationKind.RACE, {"n": 37}), tmp_path)
    assert r.status is Status.REFUTED and r.counterexample is not None, r.detail
    assert r.counterexample.kind is CounterexampleKind.CONFIRMED
