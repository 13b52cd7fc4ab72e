"""The race obligation and the scopes of atomics: a block-scoped atomic (``atomicAdd_block``) conflicts
with an atomic of another block to the same location; device-scoped ones do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.pipeline.verify import verify_task
from larkc.provers import Status
from larkc.provers.parametric import _conflict
from larkc.provers.zexec import AccessKind
from larkc.tasks import load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"

R, W, A, BA = AccessKind.READ, AccessKind.WRITE, AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC


@pytest.mark.parametrize(
    ("a", "b", "within", "across"),
    [
        (R, R, False, False),
        (R, W, True, True),
        (W, W, True, True),
        (A, R, True, True),
        (BA, R, True, True),
        (A, A, False, False),
        (A, BA, False, True),
        (BA, A, False, True),
        (BA, BA, False, True),
    ],
)
def test_conflicts_by_kind(a: AccessKind, b: AccessKind, within: bool, across: bool) -> None:
    assert _conflict(a, b, across=False) is within
    assert _conflict(a, b, across=True) is across


def test_block_scoped_merge_is_refuted_with_a_confirmed_counterexample(tmp_path: Path) -> None:
    report = verify_task(load_task(EXAMPLES / "channel_positive_count_bug_block_scope_global"), replay_dir=tmp_path)
    (race,) = [r for r in report.results if r.obligation.name == "race"]
    assert race.status is Status.REFUTED and race.counterexample is not None
    assert "atomic only towards its own block" in race.counterexample.message
    assert race.counterexample.kind.value == "confirmed"


def test_device_scoped_merge_is_proved_race_free(tmp_path: Path) -> None:
    report = verify_task(load_task(EXAMPLES / "channel_positive_count"), replay_dir=tmp_path)
    (race,) = [r for r in report.results if r.obligation.name == "race"]
    assert race.status is Status.PROVED
