"""Size-only mutants (size_only.py): no change that shows only at sizes outside the instances verified
is reported with the obligation it violates PROVED for all sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from size_only import MUTANTS, SizeOnlyMutant, check_size_only


def _param(m: SizeOnlyMutant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=m.xfail)] if m.xfail else []
    return pytest.param(m, id=m.key, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [_param(m) for m in MUTANTS])
def test_no_size_only_mutant_is_claimed_for_all_sizes(mutant: SizeOnlyMutant, tmp_path: Path) -> None:
    r = check_size_only(mutant, tmp_path)
    claims = "; ".join(f"{c.obligation.name} PROVED {c.scope.describe()} [{c.prover}]" for c in r.false_claims)
    assert not r.false_claims, f"{mutant.key} (verdict {r.verdict}): {claims}; fails at {mutant.witness}"


def test_the_mutants_cover_cuda_and_triton_and_several_obligations() -> None:
    assert {m.example.split("/")[0] for m in MUTANTS} == {"cuda", "triton"}
    assert {o.split("(")[0] for m in MUTANTS for o in m.violates} >= {"equivalence", "bounds", "race"}
    assert len({m.key for m in MUTANTS}) == len(MUTANTS)


def test_a_claim_for_all_sizes_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a verifier that proves every obligation for all sizes is caught on a mutant."""
    import dataclasses

    import size_only

    from larkc.pipeline.verify import verify_task
    from larkc.provers import Scope, Status, Verdict

    def lying(*args: object, **kwargs: object) -> object:
        report = verify_task(*args, **kwargs)  # type: ignore[arg-type]
        everywhere = Scope.parametric(("n",), ())
        proved = tuple(
            dataclasses.replace(r, status=Status.PROVED, scope=everywhere, counterexample=None) for r in report.results
        )
        return dataclasses.replace(report, results=proved, verdict=Verdict.VERIFIED)

    monkeypatch.setattr(size_only, "verify_task", lying)
    mutant = next(m for m in MUTANTS if m.key == "vector_add|guard rounded up to even")
    assert check_size_only(mutant, tmp_path).false_claims
