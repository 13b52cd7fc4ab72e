"""The red-team corpus (tests/redteam/cases, manifest.py): kernels written from scratch, two thirds wrong
and one third correct but tricky, each verified with ``larkc verify`` (the Python API) and judged on its
per-obligation results (corpus.py):

* no internal error (what ``larkc verify`` exits 3 on);
* no correct kernel FAILED;
* no wrong kernel that is not FAILED with an obligation it violates PROVED in a scope that reaches the
  bug: for all sizes (the manifest's witness is a size the task allows), or at a bounded instance where
  the bug manifests; each wrong kernel is judged twice, on its task's instances (which often miss the
  bug on purpose) and on its witness alone (where a bounded proof of the violated obligation is false).

Each case is its own test id, so a failure names the case; the verdict and the time of every case are
recorded as test properties (``--junitxml``) and printed with ``-rA``. Cases whose unsound answer today
is one of the classes of issue 19 another change is fixing are marked ``xfail(strict=True)`` with the
class, so that the mark must be removed when the fix lands.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CASES as CASES_DIR
from corpus import Outcome, at_witness, judge, load
from manifest import CASES, Case, Expect


def _param(case: Case, which: str = "instances") -> object:
    xfail = case.xfail is not None and which in case.xfail_passes
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if xfail else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case_gets_a_sound_verdict(case: Case, record_property: pytest.RecordProperty) -> None:
    j = judge(case)
    record_property("verdict", j.verdict)
    record_property("seconds", round(j.seconds, 2))
    print(f"{case.name}: {j.verdict} in {j.seconds:.1f} s ({j.why})")
    assert j.outcome is Outcome.SOUND, f"{case.name}: {j.outcome.value}: {j.why} (verdict {j.verdict})"


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c, "witness") for c in CASES if at_witness(c)])
def test_wrong_case_at_its_witness_is_not_verified(case: Case, record_property: pytest.RecordProperty) -> None:
    """The same judgement with the witness (a size where the bug manifests) as the only instance: a
    bounded proof of a violated obligation there is a false proof too."""
    j = judge(case, witness=True)
    record_property("verdict", j.verdict)
    record_property("seconds", round(j.seconds, 2))
    print(f"{case.name} at {dict(case.witness)}: {j.verdict} in {j.seconds:.1f} s ({j.why})")
    assert j.outcome is Outcome.SOUND, f"{case.name}: {j.outcome.value}: {j.why} (verdict {j.verdict})"


def test_the_manifest_describes_every_case() -> None:
    """Every folder of cases/ has one manifest entry and the reverse; each wrong case's witness is allowed
    by its task and satisfies its predicate; the mix is two thirds wrong, half CUDA and half Triton."""
    folders = {p.name for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith("__")}
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
    assert folders == set(names)
    assert len(CASES) >= 60
    wrong = sum(c.expect is Expect.WRONG for c in CASES)
    cuda = sum(c.name.startswith("cu_") for c in CASES)
    assert 0.55 <= wrong / len(CASES) <= 0.75
    assert 0.4 <= cuda / len(CASES) <= 0.6
    for case in CASES:
        assert case.name.startswith(("cu_", "tr_"))
        assert bool(case.violates) == (case.expect is Expect.WRONG)
        assert case.xfail is None or case.xfail.startswith("issue 19 class ")
        load(case)  # checks the witness against the task's constraints and the obligation names


def test_the_judge_catches_a_false_proof() -> None:
    """The judgement can fail: a wrong case whose violated obligation is proved for all sizes (a bounded
    VERIFIED whose instances miss the bug, judged as if the bug were everywhere) is a false proof."""
    from dataclasses import replace

    case = next(c for c in CASES if c.name == "cu_add_vec4_tail_rem3")
    assert judge(case).outcome is Outcome.SOUND  # bounded proof at n = 8, 9, 38: none has n % 4 == 3
    everywhere = replace(case, manifests="n >= 1", witness={"n": 8})
    j = judge(everywhere)
    assert j.outcome is Outcome.FALSE_PROOF, j.why
