"""Loop invariants from outside, checked by the engine (provers/hints.py, provers/invariants.py; issue 21
item 3, issue 24).

The three kernels of ``hint_kernels.py`` (a Kahan sum, a running mean, a loop unrolled by four by hand) are
right (the simulator agrees with the reference) and the automatic all-size prover leaves their equivalence
unknown: it cannot guess their invariants. With the invariant written by hand they are proved for every
size; with a wrong one, they are not, and the hint comes back rejected with the check that failed. A hint
is never trusted: a right invariant for a kernel wrong at some sizes does not prove it either.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hint_kernels import HINT_KERNELS

from larkc import Task
from larkc.cli import main
from larkc.pipeline.api import run
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task, verify_task
from larkc.provers import Budget, ScopeKind, Status
from larkc.provers.allsize import AllSizeAttempt, prove_allsize
from larkc.provers.hints import HintError, Hints, HintStatus, format_hints, parse_hints
from larkc.reference import trace_task

BUDGET = Budget(seconds=60)


def _attempt(task: Task, hints: str | None) -> AllSizeAttempt:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    given = parse_hints(hints, "hints.txt", "the test") if hints is not None else None
    (a,) = prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen, given)
    return a


@pytest.mark.parametrize("key", list(HINT_KERNELS))
def test_a_checked_invariant_proves_what_the_automatic_prover_leaves_unknown(key: str, tmp_path: Path) -> None:
    k = HINT_KERNELS[key]
    task = k.write(tmp_path)
    assert run(task).ok  # right at its instances (the simulator)
    assert not _attempt(task, None).proved  # the automatic prover cannot guess the invariant
    a = _attempt(task, k.hints)
    assert a.proved, (a.detail, a.hint_checks)
    assert a.hint_checks and all(c.status is HintStatus.CHECKED for c in a.hint_checks)
    assert a.hint_source == "the test"
    assert "proposed by the test, checked by the engine" in a.detail
    assert a.seconds < 10


@pytest.mark.parametrize("key", list(HINT_KERNELS))
def test_a_wrong_invariant_is_rejected_with_the_check_that_failed(key: str, tmp_path: Path) -> None:
    k = HINT_KERNELS[key]
    a = _attempt(k.write(tmp_path), k.wrong)
    assert not a.proved
    rejected = [c for c in a.hint_checks if c.status is HintStatus.REJECTED]
    assert rejected, a.hint_checks
    assert any("not preserved by one iteration" in c.reason or "on entry" in c.reason for c in rejected)
    assert a.hint_source == ""


def test_a_rejected_step_comes_with_z3s_model(tmp_path: Path) -> None:
    k = HINT_KERNELS["running mean"]
    a = _attempt(k.write(tmp_path), k.wrong)
    (c,) = a.hint_checks
    assert "not preserved" in c.reason
    assert "iteration" in c.model and "d" in c.model


@pytest.mark.parametrize(
    ("hints", "reason"),
    [
        ("loop 8: sum = sum(j < iters + 1, x[row * d + j])\nloop 8: c = 0\n", "does not hold on entry"),
        ("loop 8: sum = sum(j < iters, x[row * d + j])\n", "not preserved"),  # c left to the automatic rule
        ("loop 8: sum = sum(j < iters, x[j])\nloop 8: c = 0\n", "not preserved"),  # every row's first row
        ("loop 8: sum = sum(j < iters, y[row * d + j])\nloop 8: c = 0\n", "'y' is not an input tensor"),
        ("loop 8: sum = sum(j < iters, x[row * n + j])\nloop 8: c = 0\n", "hints.txt:1:38: error: bad hint: unknown"),
        ("loop 8: row = 0\n", "row is not a float that the loop changes"),
        ("loop 9: sum = 0\n", "no loop summarised at line 9"),
        ("loop 8: sum = sum(j < iters, x[row * d + j])\nloop 8: sum = 0\nloop 8: c = 0\n", "two invariants"),
        ("loop 8: sum = iters < 3\nloop 8: c = 0\n", "a condition, not a value"),
    ],
)
def test_bad_invariants_are_rejected_never_used(hints: str, reason: str, tmp_path: Path) -> None:
    a = _attempt(HINT_KERNELS["kahan"].write(tmp_path), hints)
    assert not a.proved
    assert any(c.status is HintStatus.REJECTED and reason in c.reason for c in a.hint_checks), a.hint_checks


def test_a_true_invariant_does_not_prove_a_kernel_wrong_at_some_sizes(tmp_path: Path) -> None:
    """The Kahan loop one short past d > 1024: the invariant still holds at every iteration (it says nothing
    of the trip count), and the value after the loop is the sum of d - 1 columns there: not proved, and the
    pipeline refutes it at the sizes the attempt names (the simulator confirms them)."""
    k = HINT_KERNELS["kahan"]
    task = k.write(tmp_path, "k < d; ++k", "k < (d > 1024 ? d - 1 : d); ++k")
    assert run(task).ok  # agrees at the instances
    a = _attempt(task, k.hints)
    assert not a.proved
    assert all(c.status is HintStatus.CHECKED for c in a.hint_checks)
    report = verify_task(task, budget=BUDGET, hints=parse_hints(k.hints, "hints.txt"))
    (eq,) = [r for r in report.results if r.obligation.name == "equivalence(out)"]
    assert eq.status is Status.REFUTED, eq.detail


def test_the_pipeline_reports_the_hinted_proof_for_every_size(tmp_path: Path) -> None:
    k = HINT_KERNELS["kahan"]
    task = k.write(tmp_path)
    report = verify_task(task, budget=BUDGET, hints=parse_hints(k.hints, "kahan.hints", "a colleague"))
    (eq,) = [r for r in report.results if r.obligation.name == "equivalence(out)"]
    assert eq.status is Status.PROVED
    assert eq.scope.kind is ScopeKind.PARAMETRIC, eq.detail
    assert eq.prover.startswith("allsize-z3")
    assert "proposed by a colleague, checked by the engine" in eq.detail
    plain = verify_task(task, budget=BUDGET)
    (eq,) = [r for r in plain.results if r.obligation.name == "equivalence(out)"]
    assert eq.scope.kind is ScopeKind.BOUNDED


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("loop 8: sum = sum(j < iters, x[row * d + j)\n", "h:1:43: error: bad hint: expected ']'"),
        ("\n# a comment\nloop 8 sum = 0\n", "h:3:1: error: bad hint: expected `loop LINE: VARIABLE = EXPRESSION`"),
        ("loop 8: sum = exp(x[0])\n", "h:1:15: error: bad hint: unknown function 'exp'"),
        ("loop 8: sum = 1 +\n", "h:1:18: error: bad hint: expected a value"),
        ("loop 8: sum = 1 $ 2\n", "h:1:17: error: bad hint: unexpected character '$'"),
        ("loop 8: sum = sum(1, 2)\n", "h:1:19: error: bad hint: a sum is written sum(j < bound, body)"),
        ("loop 8: sum =\n", "h:1:14: error: bad hint: the expression is empty"),
    ],
)
def test_malformed_hints_are_located_errors(text: str, where: str) -> None:
    with pytest.raises(HintError) as e:
        parse_hints(text, "h")
    assert str(e.value).startswith(where), str(e.value)


def test_hints_read_back_as_written() -> None:
    for k in HINT_KERNELS.values():
        h = parse_hints(k.hints, "h")
        assert format_hints(h.invariants) == k.hints
        assert isinstance(h, Hints)


def test_the_cli_reads_a_hints_file_and_locates_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    k = HINT_KERNELS["running mean"]
    k.write(tmp_path / "task")
    good = tmp_path / "good.hints"
    good.write_text(k.hints, encoding="utf-8")
    assert main(["verify", str(tmp_path / "task"), "--hints", str(good)]) == 0
    assert "equivalence(out)  PROVED   parametric [allsize-z3" in capsys.readouterr().out
    bad = tmp_path / "bad.hints"
    bad.write_text("loop 7: mean = if(iters == 0, 0\n", encoding="utf-8")
    assert main(["verify", str(tmp_path / "task"), "--hints", str(bad)]) == 2
    assert f"{bad}:1:32: error: bad hint: expected ','" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "task"), "--hints", str(tmp_path / "missing.hints")]) == 2


def test_the_smallest_sizes_of_a_failed_step(tmp_path: Path) -> None:
    """The model of a failed check has the least sizes (as the prover's candidates): the Kahan sum without c's
    invariant fails at the first iteration of a one-column row."""
    a = _attempt(HINT_KERNELS["kahan"].write(tmp_path), "loop 8: sum = sum(j < iters, x[row * d + j])\n")
    (c,) = a.hint_checks
    assert c.model == {"rows": "1", "d": "1", "iteration": "0"}


@pytest.mark.parametrize(
    "expr",
    [
        "x[1.5]",
        "x[row] % 2",
        "sum(j < 0.5, x[j])",
        "if(1, 2, 3)",
        "!x[0]",
        "x[0] && 1",
        "max(j < iters, iters < 2)",
        "sum(j < iters, sum(i < j, x[row * d + i]))",
        "x",
        "iters[3]",
        "((((1))))",
        "1 / 0",
    ],
)
def test_odd_hints_are_rejected_or_checked_never_a_crash(expr: str, tmp_path: Path) -> None:
    a = _attempt(HINT_KERNELS["kahan"].write(tmp_path), f"loop 8: sum = {expr}\nloop 8: c = 0\n")
    assert not a.proved
    (c,) = a.hint_checks
    assert c.status is HintStatus.REJECTED
