"""The mutation test in CI: a seeded sample of mutants of small examples, every proof checked.

The full run (``scripts/mutants.py``, results in ``docs/mutation.md``) takes hours; this sample takes a
minute and covers the constructs the provers reason about differently: vector lanes, warp shuffles, shared
memory with barriers, atomics, 2-D tiles, max reductions, an epsilon under a square root and math
functions. A mutant that ``larkc verify`` calls VERIFIED
must behave like the original on random inputs, and no obligation it PROVED may be contradicted by a
simulated run (``mutation_check.check_mutant``); a mutant that makes the verifier raise is a bug too.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from mutate import MutationKind, enumerate_mutants, kernel_of, sample_mutants
from mutation_check import check_mutant, load_subject

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"

#: example -> mutants drawn from it (a kind-balanced sample, seed 0)
SAMPLE = {
    "vector_add_float4": 5,
    "row_sum_warp": 5,
    "row_sum_shared": 5,
    "dot_product": 5,
    "transpose_shared": 5,
    "row_max": 5,
    "rms_norm": 6,
    "silu": 4,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SAMPLE))
def test_no_sampled_mutant_is_wrongly_verified(name: str) -> None:
    subject = load_subject(EXAMPLES / name, count=1)
    assert subject.instances, f"the original {name} verifies on none of its instances: {subject.baseline}"
    mutants = enumerate_mutants(subject.module, kernel_of(subject.module, subject.task.kernel).name)
    chosen = sample_mutants(mutants, SAMPLE[name], seed=0)
    assert len(chosen) == SAMPLE[name]
    results = [check_mutant(subject, m, full=False) for m in chosen]
    bad = [
        f"{r.key}: {r.classification} {r.error or ''} {r.contradicted} {r.differences}"
        for r in results
        if r.classification in ("soundness-bug", "error")
    ]
    assert not bad, "\n".join(bad)
    classes = Counter(r.classification for r in results)
    # most mutants of these kernels change what they compute, and the verifier must say so
    assert classes["killed"] >= 3, classes


def test_the_sample_covers_most_kinds() -> None:
    from larkc import load_task
    from larkc.frontends import parse_task

    kinds: set[MutationKind] = set()
    for name in SAMPLE:
        task = load_task(EXAMPLES / name)
        module = parse_task(task)
        kinds |= {m.kind for m in enumerate_mutants(module, kernel_of(module, task.kernel).name)}
    assert len(kinds) >= 10, sorted(k.value for k in kinds)


def test_a_lying_verifier_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a verifier that proves every obligation of a mutant that drops the bounds
    guard of ``vector_add`` is reported as a soundness bug (out of bounds, proved in bounds)."""
    import dataclasses

    import mutation_check

    from larkc.pipeline.verify import verify_task
    from larkc.provers import Status, Verdict

    def lying(*args: object, **kwargs: object) -> object:
        report = verify_task(*args, **kwargs)  # type: ignore[arg-type]
        proved = tuple(
            dataclasses.replace(r, status=Status.PROVED, counterexample=None, detail="lie") for r in report.results
        )
        return dataclasses.replace(report, results=proved, verdict=Verdict.VERIFIED)

    subject = load_subject(EXAMPLES / "vector_add", count=1)
    (dropped,) = [m for m in enumerate_mutants(subject.module, "vector_add", [MutationKind.GUARD_DROPPED])]
    assert check_mutant(subject, dropped, full=False).classification == "killed"
    monkeypatch.setattr(mutation_check, "verify_task", lying)
    r = check_mutant(subject, dropped, full=False)
    assert r.classification == "soundness-bug", r
    assert r.contradicted or r.differences
