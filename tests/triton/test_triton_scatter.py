"""Data-dependent gathers and scatters as serving code writes them (issue 23 items 4-5, issue 22 item 5):
an embedding lookup (a gather through ids loaded from memory) decided on symbolic ids, and a KV-cache
write (a scatter to ``dest_loc[t]``) race-free for all sizes under the task's ``distinct(dest_loc)``
precondition, a race without it. The kernels are under ``scatter/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.errors import PreconditionError
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, ObligationKind, Status, Verdict
from larkc.tasks import load_task

HERE = Path(__file__).parent / "scatter"


def _status(report: object, kind: ObligationKind) -> Status:
    return next(r.status for r in report.results if r.obligation.kind is kind)  # type: ignore[attr-defined]


def test_an_embedding_gather_is_verified_on_symbolic_ids() -> None:
    report = verify_task(load_task(HERE / "embedding" / "task.py"), budget=Budget(seconds=120))
    assert report.verdict is Verdict.VERIFIED
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    assert eq.status is Status.PROVED
    assert eq.prover == "symbolic"  # every id value of the range, not one draw: the ids are symbols
    assert any("ids[i] in [0, vocab)" in a.text for r in report.results for a in r.assumptions)


@pytest.mark.parametrize(
    ("task_file", "kind", "word"),
    [
        ("task_bug_shifted.py", ObligationKind.EQUIVALENCE, "differ"),  # reads the row one column late
        ("task_bug_next_id.py", ObligationKind.BOUNDS, "out of bounds"),  # reads ids one token late
    ],
)
def test_a_wrong_gather_fails(task_file: str, kind: ObligationKind, word: str) -> None:
    report = verify_task(load_task(HERE / "embedding" / task_file), budget=Budget(seconds=120))
    assert report.verdict is Verdict.FAILED
    r = next(r for r in report.results if r.obligation.kind is kind)
    assert r.status is Status.REFUTED
    assert r.counterexample is not None and word in r.counterexample.message


@pytest.mark.parametrize("folder", ["kv_copy", "cuda_kv_copy"])
def test_a_scatter_to_distinct_slots_is_race_free_for_all_sizes(folder: str) -> None:
    report = verify_task(load_task(HERE / folder / "task.py"), budget=Budget(seconds=120))
    assert report.verdict is not Verdict.FAILED
    for kind in (ObligationKind.RACE, ObligationKind.BOUNDS):
        r = next(r for r in report.results if r.obligation.kind is kind)
        assert r.status is Status.PROVED
        assert r.scope.kind.value == "parametric"  # for every size the constraints allow
        assert any("are pairwise distinct (precondition distinct(" in a.text for a in r.assumptions)
    listed = [a for a in report.to_json()["assumptions"] if "pairwise distinct" in a["text"]]
    assert len(listed) == 1 and listed[0]["kind"] == "task"
    assert f"{folder}/task.py:" in listed[0]["location"]  # where the task file states it


@pytest.mark.parametrize("folder", ["kv_copy", "cuda_kv_copy"])
def test_a_scatter_without_distinct_slots_races(folder: str) -> None:
    report = verify_task(load_task(HERE / folder / "task_bug_slots_not_distinct.py"), budget=Budget(seconds=120))
    assert report.verdict is Verdict.FAILED
    r = next(r for r in report.results if r.obligation.kind is ObligationKind.RACE)
    assert r.status is Status.REFUTED
    assert r.counterexample is not None and r.counterexample.replay  # confirmed by the simulator


def test_run_draws_distinct_slots_and_refuses_repeated_ones() -> None:
    task = load_task(HERE / "kv_copy" / "task.py")
    assert run_task(task).ok
    with pytest.raises(PreconditionError, match=r"dest_loc\[0\] == dest_loc\[1\] == 2.*distinct\(dest_loc\)") as info:
        run_task(task, instances=[{"tokens": 3, "slots": 8, "heads": 2, "dim": 4}], inputs={"dest_loc": {0: 2, 1: 2}})
    assert info.value.span is not None and info.value.span.file.endswith("kv_copy/task.py")


def test_the_ignore_index_branch_is_decided_by_the_label_range() -> None:
    """Liger's ``if y == ignore_index: store 0; return``: labels in ``[0, vocab)`` never equal -100, so the
    branch is no branch on data and the row's loss is proved. Before, the run stopped at the branch
    (a branch on input data around a control transfer): UNKNOWN."""
    report = verify_task(load_task(HERE / "cross_entropy_ignore" / "task.py"), budget=Budget(seconds=120))
    assert report.verdict is Verdict.VERIFIED
    assert _status(report, ObligationKind.EQUIVALENCE) is Status.PROVED


def test_an_ignore_index_inside_the_label_range_is_never_verified() -> None:
    """Bound to 1, the ignore index is a label the range allows: both arms are possible, the early return
    is not if-converted, and the verdict says so (the reference, which ignores -100, disagrees at label 1:
    larkc run finds it)."""
    task = load_task(HERE / "cross_entropy_ignore" / "task_bug_ignore_index_in_range.py")
    report = verify_task(task, budget=Budget(seconds=120))
    assert report.verdict is not Verdict.VERIFIED
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    assert eq.status is not Status.PROVED
    assert "a branch on input data" in eq.detail or eq.status is Status.REFUTED
    assert not run_task(task).ok
