"""The bounded prover's ``inputs`` obligation on hand-made facts of a symbolic run: every input the task does
not declare in-place must end as the symbol it started as."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from larkc.errors import Span
from larkc.ir.types import F32
from larkc.provers import AssumptionKind, Budget, Obligation, ObligationKind, ObligationResult, Status
from larkc.provers.bounded import Finding, InstanceFacts, prove_instance
from larkc.symbolic import terms as tm
from larkc.symbolic.terms import Term

INPUTS = Obligation(ObligationKind.INPUTS)
X = tuple(tm.elem("x", i) for i in range(4))
Y = tuple(tm.elem("y", i) for i in range(4))


def decide(after: Sequence[Term | str], **facts: Any) -> ObligationResult:
    base = InstanceFacts(
        instance={"n": 4},
        launch="grid 1x1x1, block 4x1x1",
        input_sizes={"x": 4, "y": 4},
        input_dtypes={"x": F32, "y": F32},
        inputs_before={"x": X},
        inputs_after={"x": tuple(after)},
        input_shapes={"x": (2, 2)},
        unknowns=False,
    )
    (r,) = prove_instance(dataclasses.replace(base, **facts), [INPUTS], Budget(seconds=20))
    return r


def test_inputs_left_as_they_started_are_proved() -> None:
    r = decide(X)
    assert r.status is Status.PROVED and r.detail == "every element of x ends as it started (never changed)"
    assert [a.kind for a in r.assumptions] == [AssumptionKind.MODEL]


def test_no_input_to_keep_is_proved() -> None:
    r = decide((), inputs_before={}, inputs_after={})
    assert r.status is Status.PROVED and "no input" in r.detail


def test_a_changed_element_is_refuted_with_a_witness() -> None:
    relu = tm.maximum(X[3], tm.ZERO)  # x[1, 1] = max(x[1, 1], 0): changed where x[1, 1] < 0
    r = decide((*X[:3], relu))
    assert r.status is Status.REFUTED and r.counterexample is not None
    cx = r.counterexample
    assert cx.tensor == "x" and cx.element == (1, 1)
    assert cx.message.startswith("the kernel changes input x[1, 1], which the task does not declare in-place")
    assert cx.kernel_value is not None and cx.reference_value is not None and cx.reference_value < 0
    assert cx.kernel_value == 0 and set(cx.inputs["x"]) == {3}


def test_an_element_overwritten_with_another_input_is_refuted() -> None:
    r = decide((Y[0], *X[1:]))
    assert r.status is Status.REFUTED and r.counterexample is not None and r.counterexample.element == (0, 0)


def test_an_element_rewritten_with_an_equal_value_is_proved_under_exact_arithmetic() -> None:
    same = tm.maximum(X[0], tm.sub(X[0], tm.mul(Y[0], Y[0])))  # max(x, x - y^2) = x over the reals
    assert same is not X[0]
    r = decide((same, *X[1:]))
    assert r.status is Status.PROVED and "rewritten with equal values" in r.detail
    assert AssumptionKind.MODEL in [a.kind for a in r.assumptions] and any("exact" in a.text for a in r.assumptions)


def test_a_race_or_an_incomplete_run_leaves_it_unknown() -> None:
    race = Finding("race", "race: x[0] written by two threads", Span("k.cu", 3, 1, 3, 9))
    assert decide(X, findings=(race,)).status is Status.UNKNOWN
    stopped = decide(X, unsupported=("a branch on input data around a memory write", None))
    assert stopped.status is Status.UNKNOWN and "symbolic execution stopped" in stopped.detail
    aborted = decide(X, aborted=True)
    assert aborted.status is Status.UNKNOWN and "barrier divergence" in aborted.detail


def test_a_value_the_executor_cannot_model_leaves_it_unknown() -> None:
    opaque = tm.add(X[0], tm.elem("<opaque>", 0))
    r = decide((opaque, *X[1:]), unknowns=True, opaque=("a bit reinterpretation",))
    assert r.status is Status.UNKNOWN and "x[0, 0] is rewritten" in r.detail
