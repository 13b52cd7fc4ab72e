"""Reference ops people write in references (issue 22, item 4), end to end: a kernel written the way
serving frameworks write it, checked by ``larkc verify`` against a reference using the op, and a
seeded-bug twin of each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LARKC_DEBUG", raising=False)


def _status(report: larkc.VerifyReport, obligation: str) -> str:
    return next(r.status.value for r in report.results if r.obligation.name == obligation)


# isinf / isnan under torch.where -------------------------------------------------------------------


def test_nonfinite_guard_verifies(tmp_path: Path) -> None:
    """The kernel's isinf/isnan of a lane the loop does not read is an unknown truth value, as a
    comparison of it is (it was an undefined number, and the run stopped: UNKNOWN)."""
    task = HERE / "nonfinite_guard" / "task.py"
    assert larkc.run(task, replay_dir=tmp_path).ok
    report = larkc.verify(task, replay_dir=tmp_path)
    assert report.verdict.value == "VERIFIED", report.render()
    assert _status(report, "equivalence(out)") == "proved"


def test_nonfinite_guard_bug_fails(tmp_path: Path) -> None:
    task = HERE / "nonfinite_guard" / "task_bug_keeps_inf.py"
    assert larkc.run(task, replay_dir=tmp_path).kinds() == {"mismatch"}
    report = larkc.verify(task, replay_dir=tmp_path)
    assert report.verdict.value == "FAILED", report.render()
    assert _status(report, "equivalence(out)") == "refuted"


# floor division of integers that can be negative ----------------------------------------------------


def test_floor_bucket_runs_and_is_not_verified_wrongly(tmp_path: Path) -> None:
    """The reference's ``//`` traces (it was an unsupported op). The kernel side cannot divide
    data-dependent integers symbolically yet, so verify says UNKNOWN for both; the run tells them apart."""
    good, bad = HERE / "floor_bucket" / "task.py", HERE / "floor_bucket" / "task_bug_truncates.py"
    assert larkc.run(good, replay_dir=tmp_path).ok
    assert larkc.run(bad, replay_dir=tmp_path).kinds() == {"mismatch"}
    assert larkc.verify(bad, replay_dir=tmp_path).verdict.value != "VERIFIED"


# bincount + cumsum + slice assignment (MoE align's counting step) -------------------------------------


def test_moe_expert_counts_runs_and_is_not_verified_wrongly(tmp_path: Path) -> None:
    """The reference (bincount with minlength over ids declared in [0, 8), cumsum written into a slice
    of zeros) traces (bincount and slice_scatter were unsupported ops). The kernel's atomicAdd at an
    address read from the ids stops the symbolic run (UNKNOWN for both); the run tells them apart."""
    good = HERE / "moe_expert_counts" / "task.py"
    bad = HERE / "moe_expert_counts" / "task_bug_offsets.py"
    assert larkc.run(good, replay_dir=tmp_path).ok
    assert larkc.run(bad, replay_dir=tmp_path).kinds() == {"mismatch"}
    report = larkc.verify(bad, replay_dir=tmp_path)
    assert report.verdict.value != "VERIFIED", report.render()


# index_add_ with atomicAdd ----------------------------------------------------------------------------


def test_index_add_rows_runs_and_its_racy_twin_fails(tmp_path: Path) -> None:
    """The reference's index_add_ traces (a scatter_add of the index laid along dim 0). The atomicAdd at a
    data-dependent address leaves equivalence UNKNOWN; the plain += twin is FAILED (a race)."""
    good = HERE / "index_add_rows" / "task.py"
    bad = HERE / "index_add_rows" / "task_bug_plain_add.py"
    assert larkc.run(good, replay_dir=tmp_path).ok
    report = larkc.verify(good, replay_dir=tmp_path)
    assert report.verdict.value == "UNKNOWN", report.render()
    report = larkc.verify(bad, replay_dir=tmp_path)
    assert report.verdict.value == "FAILED", report.render()
    assert _status(report, "race") == "refuted"
