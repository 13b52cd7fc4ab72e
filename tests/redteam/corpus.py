"""Judging one red-team case: run ``larkc verify`` on it and decide whether the answer is sound.

A case is a folder of ``cases/`` (a kernel and its ``task.py``) with an entry in :mod:`manifest`: the
verdict a sound tool must give and why. The judgement rests on the per-obligation results and their
scopes (:class:`larkc.provers.ObligationResult.scope`), not on the headline:

* an exception that is not a :class:`~larkc.errors.LarkcError` is an internal error (``larkc verify``
  exits 3 on it): unsound for every case;
* a correct kernel with a REFUTED obligation is a false alarm (a correct kernel FAILED);
* a wrong kernel that is not FAILED, with a violated obligation PROVED, is a false proof when the
  proof's scope reaches a size where the bug manifests: a parametric scope ("for all sizes") always does (the manifest's
  witness is a size the task's constraints allow, checked here), a bounded scope when one of its
  instances satisfies the manifest's predicate.

A :class:`~larkc.errors.LarkcError` raised by ``verify`` (exit 2: larkc refuses the input) is sound but
recorded; one raised while loading the task is a defect of the corpus, and raised.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from dataclasses import dataclass
from pathlib import Path

from manifest import Case, Expect

from larkc.errors import LarkcError
from larkc.pipeline.verify import obligations_of, verify_task
from larkc.provers import Budget, ObligationResult, ScopeKind, Status, Verdict
from larkc.tasks import Task, load_task
from larkc.tasks.shape_expr import evaluate, parse_shape_expr

CASES = Path(__file__).resolve().parent / "cases"
#: Per obligation (per instance for the bounded provers); small enough that the corpus runs in minutes.
BUDGET = Budget(seconds=20, term_size=500_000, solver_rlimit=16_000_000)


class Outcome(enum.Enum):
    """How a case's answer is judged."""

    SOUND = "sound"
    FALSE_PROOF = "false proof"  # a wrong kernel's violated obligation PROVED in a scope reaching the bug
    FALSE_ALARM = "false alarm"  # a correct kernel FAILED
    INTERNAL_ERROR = "internal error"  # exit 3


@dataclass(frozen=True, slots=True)
class Judgement:
    case: Case
    outcome: Outcome
    verdict: str  # VERIFIED / FAILED / UNKNOWN / "error: ..." (exit 2) / "internal error: ..." (exit 3)
    seconds: float
    why: str  # for an unsound outcome, the offending result; else a short summary
    results: tuple[ObligationResult, ...] = ()


def load(case: Case) -> Task:
    """The case's task, with its manifest checked against it: the witness of a wrong kernel is a size the
    task allows (so that the task cannot hide the bug behind its constraints) and satisfies the predicate."""
    task = load_task(CASES / case.name)
    if case.expect is Expect.WRONG:
        dataclasses.replace(task, instances=[dict(case.witness)])  # raises TaskError if the constraints forbid it
        if not manifests(case, case.witness):
            raise AssertionError(f"{case.name}: the witness {case.witness} does not satisfy {case.manifests!r}")
        names = {ob.name for ob in obligations_of(task)}
        unknown = set(case.violates) - names
        if unknown:
            raise AssertionError(f"{case.name}: no obligation {sorted(unknown)} (obligations: {sorted(names)})")
    return task


def manifests(case: Case, shape: dict[str, int] | object) -> bool:
    """Whether the bug of ``case`` shows at ``shape`` (symbol values)."""
    assert isinstance(shape, dict)
    return bool(evaluate(parse_shape_expr(case.manifests, "manifest predicate"), dict(shape)))


#: A witness is verified as an instance of its own (``judge(case, at_witness=True)``) when no size in it
#: exceeds this: larger ones (index overflows past 2^31 elements) are left to the parametric prover.
WITNESS_LIMIT = 4096


def at_witness(case: Case) -> bool:
    """Whether ``case`` is judged a second time with its witness as the only instance."""
    small = all(v <= WITNESS_LIMIT for v in case.witness.values())
    return case.expect is Expect.WRONG and case.witness_pass and small


def judge(case: Case, *, witness: bool = False) -> Judgement:
    """Verify ``case`` on its task's instances (or, with ``witness``, on its witness alone: a size where
    the bug manifests, so that a bounded VERIFIED there is a false proof) and judge the answer."""
    task = load(case)
    start = time.monotonic()
    try:
        report = verify_task(task, instances=[dict(case.witness)] if witness else None, budget=BUDGET)
    except LarkcError as e:  # larkc refuses the input (exit 2): sound, recorded
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        return Judgement(case, Outcome.SOUND, f"error: {first}", time.monotonic() - start, "refused (exit 2)")
    except Exception as e:
        return Judgement(
            case, Outcome.INTERNAL_ERROR, f"internal error: {type(e).__name__}", time.monotonic() - start, str(e)
        )
    seconds = time.monotonic() - start
    results = report.results
    verdict = report.verdict.value
    if case.expect is Expect.CORRECT:
        refuted = [r for r in results if r.status is Status.REFUTED]
        if refuted:
            r = refuted[0]
            msg = r.counterexample.message if r.counterexample else r.detail
            return Judgement(case, Outcome.FALSE_ALARM, verdict, seconds, f"{r.obligation.name}: {msg}", results)
        return Judgement(case, Outcome.SOUND, verdict, seconds, _summary(results), results)
    if report.verdict is Verdict.FAILED:  # the kernel is rejected (whatever else was proved)
        return Judgement(case, Outcome.SOUND, verdict, seconds, _summary(results), results)
    for r in results:
        if r.obligation.name not in case.violates or r.status is not Status.PROVED:
            continue
        match r.scope.kind:
            case ScopeKind.PARAMETRIC:
                why = f"{r.obligation.name} PROVED {r.scope.describe()}; the bug shows at {case.witness}"
                return Judgement(case, Outcome.FALSE_PROOF, verdict, seconds, why, results)
            case ScopeKind.BOUNDED:
                hit = [dict(i) for i in r.scope.instances if manifests(case, dict(i))]
                if hit:
                    why = f"{r.obligation.name} PROVED {r.scope.describe()}; the bug shows at {hit[0]}"
                    return Judgement(case, Outcome.FALSE_PROOF, verdict, seconds, why, results)
    return Judgement(case, Outcome.SOUND, verdict, seconds, _summary(results), results)


def _summary(results: tuple[ObligationResult, ...]) -> str:
    """The obligations that are not proved for all sizes, by status: what the verdict rests on."""
    parts = []
    for r in results:
        if r.status is Status.PROVED and r.scope.kind is ScopeKind.PARAMETRIC:
            continue
        scope = "bounded" if r.scope.kind is ScopeKind.BOUNDED else "all sizes"
        parts.append(f"{r.obligation.name} {r.status.value}" + (f" ({scope})" if r.status is Status.PROVED else ""))
    return ", ".join(parts) or "every obligation proved for all sizes"
