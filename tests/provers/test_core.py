"""The prover interface: combining results of several provers and instances, verdicts, JSON forms."""

from __future__ import annotations

import pytest

from larkc.provers import (
    KIND_OF_FAILURE,
    Assumption,
    AssumptionKind,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    ScopeKind,
    Status,
    Verdict,
    combine,
    verdict,
)

OB = Obligation(ObligationKind.BOUNDS)
A1 = Assumption(AssumptionKind.MODEL, "exact arithmetic")
A2 = Assumption(AssumptionKind.TASK, "positions in [0, 8)")


def bounded(n: int, status: Status, detail: str = "", assumptions: tuple[Assumption, ...] = ()) -> ObligationResult:
    cx = Counterexample(CounterexampleKind.CONFIRMED, "oob at x[3]", {"n": n}) if status is Status.REFUTED else None
    return ObligationResult(OB, status, Scope.bounded([{"n": n}], [f"grid {n}"]), "symbolic", detail, assumptions, cx)


PARAMETRIC = ObligationResult(OB, Status.PROVED, Scope.parametric(["n"], ["n <= 1024"]), "parametric-z3", "z3")


def test_every_obligation_kind_has_a_failure_word_and_back() -> None:
    for kind in ObligationKind:
        assert KIND_OF_FAILURE[kind.failure_kind] is kind


def test_a_refutation_wins_over_proofs() -> None:
    r = combine([bounded(1, Status.PROVED), bounded(2, Status.REFUTED), PARAMETRIC])
    assert r.status is Status.REFUTED and r.counterexample is not None


def test_bounded_proofs_merge_their_scopes_and_assumptions() -> None:
    r = combine([bounded(1, Status.PROVED, "a", (A1,)), bounded(2, Status.PROVED, "b", (A1, A2))])
    assert r.status is Status.PROVED
    assert r.scope.kind is ScopeKind.BOUNDED and [dict(i) for i in r.scope.instances] == [{"n": 1}, {"n": 2}]
    assert r.assumptions == (A1, A2)
    assert "n=1" in r.scope.describe() and "n=2" in r.scope.describe()


def test_one_unknown_instance_leaves_the_obligation_unknown() -> None:
    r = combine([bounded(1, Status.PROVED), bounded(2, Status.UNKNOWN, "time budget")])
    assert r.status is Status.UNKNOWN and "time budget" in r.detail


def test_a_parametric_proof_covers_every_instance() -> None:
    r = combine([bounded(1, Status.UNKNOWN, "stopped"), PARAMETRIC])
    assert r.status is Status.PROVED and r.scope.kind is ScopeKind.PARAMETRIC


def test_results_of_different_obligations_do_not_combine() -> None:
    other = ObligationResult(Obligation(ObligationKind.RACE), Status.PROVED, Scope.bounded([], []), "x")
    with pytest.raises(ValueError):
        combine([bounded(1, Status.PROVED), other])


def test_a_refutation_needs_a_counterexample() -> None:
    with pytest.raises(ValueError):
        ObligationResult(OB, Status.REFUTED, Scope.bounded([], []), "x")
    with pytest.raises(ValueError):
        ObligationResult(
            OB, Status.PROVED, Scope.bounded([], []), "x", counterexample=Counterexample(CounterexampleKind.EXACT, "m")
        )


def test_verdicts_and_exit_codes() -> None:
    assert verdict([bounded(1, Status.PROVED), PARAMETRIC]) is Verdict.VERIFIED
    assert verdict([bounded(1, Status.PROVED), bounded(2, Status.UNKNOWN)]) is Verdict.UNKNOWN
    assert verdict([bounded(1, Status.UNKNOWN), bounded(2, Status.REFUTED)]) is Verdict.FAILED
    assert verdict([]) is Verdict.UNKNOWN  # nothing proved is not verified
    assert [v.exit_code for v in Verdict] == [0, 1, 4]


def test_json_forms_name_everything() -> None:
    j = bounded(3, Status.REFUTED, assumptions=(A1,)).to_json()
    assert j["obligation"] == "bounds" and j["status"] == "refuted"
    assert j["scope"]["kind"] == "bounded" and j["scope"]["instances"] == [{"n": 3}]
    assert j["counterexample"]["kind"] == "confirmed" and j["counterexample"]["instance"] == {"n": 3}
    assert j["assumptions"] == [{"kind": "model", "text": "exact arithmetic", "location": None}]
    assert Obligation(ObligationKind.EQUIVALENCE, "out").name == "equivalence(out)"


def _parametric_unknown(*witnesses: Counterexample) -> ObligationResult:
    scope = Scope.parametric(["n"], ["n <= 1024"])
    why = "possible violation: read `x[i + 1]` (the model involves the value of i in the loop at 3:5)"
    return ObligationResult(OB, Status.UNKNOWN, scope, "parametric-z3", why, witnesses=witnesses)


WITNESS = Counterexample(CounterexampleKind.POSSIBLE, "possible violation: read `x[i + 1]`, at n=7", {"n": 7})


def test_a_parametric_unknown_without_a_witness_leaves_the_bounded_proof() -> None:
    # the prover could not model the kernel: the instances' proof stands, with its bounded scope
    r = combine([_parametric_unknown(), bounded(1, Status.PROVED), bounded(2, Status.PROVED)])
    assert r.status is Status.PROVED and r.scope.kind is ScopeKind.BOUNDED
    assert "for all sizes unknown: possible violation" in r.detail


def test_a_parametric_unknown_with_a_witness_blocks_the_bounded_proof() -> None:
    # a violation possible at n = 7, neither confirmed nor dismissed: proofs at n = 1, 2 do not cover it
    r = combine([_parametric_unknown(WITNESS), bounded(1, Status.PROVED), bounded(2, Status.PROVED)])
    assert r.status is Status.UNKNOWN and r.witnesses == (WITNESS,)
    assert verdict([r]) is Verdict.UNKNOWN
    assert r.to_json()["witnesses"][0]["instance"] == {"n": 7}
    assert r.to_json()["witnesses"][0]["kind"] == "possible"


def test_a_refutation_still_wins_over_a_witness() -> None:
    r = combine([_parametric_unknown(WITNESS), bounded(1, Status.REFUTED)])
    assert r.status is Status.REFUTED


def test_witnesses_belong_to_an_unknown_result_only() -> None:
    with pytest.raises(ValueError):
        ObligationResult(OB, Status.PROVED, Scope.bounded([], []), "x", witnesses=(WITNESS,))
