"""``larkc emit`` on every example: golden Lean files, the Lean linter, determinism, located errors.

Goldens live in ``tests/lower/golden/<example>/`` (the project's ``.lean`` files) and change only with
``pytest --update-golden``. Examples the lowering does not handle yet are listed with the first words
of their located error; the test fails when one starts to work, so that the list shrinks.
"""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest

from larkc.errors import LarkcError, UnsupportedError
from larkc.ir import nodes
from larkc.ir.nodes import BinaryOp, MathFn, ReduceOp, UnaryOp
from larkc.lower.kernel import BINARY_RULES, BLOCK_RULES, MATH_RULES, REDUCE_RULES, SCAN_RULES, UNARY_RULES
from larkc.pipeline.emit import HEADER, emit_task, write_project
from larkc.tasks import Task, load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"
GOLDEN = Path(__file__).resolve().parent / "golden"
LINT = ROOT.parent / "shared" / "tools" / "lean_lint.py"
TASKS = sorted(p.parent.name for p in EXAMPLES.glob("*/task.py"))
# Triton examples, by "triton/<name>"; goldens are kept for a few of them (the others are emitted,
# linted and scope-checked)
TRITON = sorted(f"triton/{p.parent.name}" for p in (ROOT / "examples" / "triton").glob("*/task.py"))
TRITON_GOLDEN = {"triton/vector_add", "triton/softmax", "triton/matmul", "triton/welford"}

NOT_YET = {
    # programs waiting for each other through a spin lock: the phase form has no happens-before
    "triton/locked_col_sum": "spin loop",
    "triton/locked_col_sum_bug_lock_race": "spin loop",
    # integer atomicAdd (the model's atomics add reals: floats, and integers only through atomicMax)
    "channel_positive_count": "atomic in Lean lowering",
    "channel_positive_count_bug_block_scope_global": "atomic in Lean lowering",
    # barriers under the block-uniform "last block" condition, which the thread computed from a ticket
    "last_block_sum": "synchronisation under this condition",
    "last_block_sum_bug_no_release_fence": "synchronisation under this condition",
}


def _task_path(name: str) -> Path:
    return (ROOT / "examples" / name if name.startswith("triton/") else EXAMPLES / name) / "task.py"


def test_every_operator_has_a_lean_rule() -> None:
    assert set(BINARY_RULES) == set(BinaryOp)
    assert set(UNARY_RULES) == set(UnaryOp)
    assert set(MATH_RULES) == set(MathFn)
    assert set(REDUCE_RULES) == set(ReduceOp) == set(SCAN_RULES)


# Expressions the lowering renders without a block rule: scalars, vectors and pointers (thread and block
# level), and the elementwise nodes, which on blocks are their scalar rule lifted with Larkc.Block.map*
SCALAR_EXPRS = {nodes.Const, nodes.VarRef, nodes.Builtin, nodes.PtrAdd, nodes.Extract, nodes.Insert, nodes.MakeVector}
LIFTED_EXPRS = {nodes.Unary, nodes.Binary, nodes.Select, nodes.Cast, nodes.MathCall}


def test_every_block_expression_has_a_lean_rule() -> None:
    exprs = set(typing.get_args(nodes.Expr))
    assert exprs - SCALAR_EXPRS - LIFTED_EXPRS == set(BLOCK_RULES)


@pytest.mark.parametrize("name", TASKS + TRITON)
def test_emit_example(name: str, tmp_path: Path, update_golden: bool) -> None:
    task = load_task(_task_path(name))
    out = tmp_path / name
    if name in NOT_YET:
        with pytest.raises(LarkcError, match=NOT_YET[name]) as info:
            emit_task(task, out)
        if isinstance(info.value, UnsupportedError):
            assert info.value.span is not None and info.value.span.line > 0
        return
    project = emit_task(task, out)
    assert project == emit_task(task, out), "emit is not deterministic"
    write_project(project, out)
    lean = {rel: text for rel, text in project.files if rel.endswith(".lean")}
    for rel, text in lean.items():
        assert text.startswith(HEADER), rel
    folder = GOLDEN / name
    if name.startswith("triton/") and name not in TRITON_GOLDEN:
        folder = None
    if folder is None:
        pass
    elif update_golden:
        folder.mkdir(parents=True, exist_ok=True)
        for rel, text in lean.items():
            (folder / rel.replace("/", "__")).write_text(text, encoding="utf-8")
    for rel, text in lean.items() if folder is not None else ():
        golden = folder / rel.replace("/", "__")
        assert golden.exists(), f"no golden {golden} (run pytest --update-golden)"
        assert text == golden.read_text(encoding="utf-8"), f"{rel} differs from {golden}"
    if not LINT.exists():
        pytest.skip(f"the Lean linter is not at {LINT}")
    r = subprocess.run(
        [sys.executable, str(LINT), "--names", str(LINT.parents[1] / "lean" / "names.txt"), "--names",
         str(ROOT / "lean" / "verified_names.txt"), str(out), str(ROOT / "lean")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout


def test_library_lints_clean() -> None:
    if not LINT.exists():
        pytest.skip(f"the Lean linter is not at {LINT}")
    r = subprocess.run(
        [sys.executable, str(LINT), "--names", str(LINT.parents[1] / "lean" / "names.txt"), "--names",
         str(ROOT / "lean" / "verified_names.txt"), "--strict", str(ROOT / "lean")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    unknown = [line for line in r.stdout.splitlines() if "not defined here" in line and "import" not in line]
    assert not [u for u in unknown if "'Larkc." not in u], unknown


def test_lean_messages_map_to_kernel_lines(tmp_path: Path) -> None:
    import re

    from larkc.pipeline.emit import _LEAN_MSG, _map_message

    task = load_task(EXAMPLES / "row_sum_shared" / "task.py")
    write_project(emit_task(task, tmp_path), tmp_path)
    kernel = (tmp_path / "RowSumShared" / "Kernel.lean").read_text().splitlines()
    line = next(i for i, text in enumerate(kernel, 1) if "s.put (Loc.shr b 0" in text)
    m = _LEAN_MSG.match(f"RowSumShared/Kernel.lean:{line}:6: error: type mismatch")
    assert m is not None
    mapped = _map_message(tmp_path, m)
    assert re.search(r"\[from kernel\.cu:15\]$", mapped), mapped


def test_check_without_lean_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from larkc.pipeline.emit import check_project

    monkeypatch.setenv("PATH", str(tmp_path))
    result = check_project(tmp_path)
    assert result.status == "unknown"


@pytest.mark.parametrize("name", [t for t in TASKS + TRITON if t not in NOT_YET])
def test_generated_locals_are_bound(name: str) -> None:
    from lean_scope import unbound_locals

    project = emit_task(load_task(_task_path(name)))
    for rel, text in project.files:
        if rel.endswith("Kernel.lean"):
            assert not unbound_locals(text), unbound_locals(text)[:5]


def test_scope_check_finds_an_unbound_local() -> None:
    from lean_scope import unbound_locals

    text = "def phase0 (n : ℕ) (b t : ℕ) (s : TState) : TState :=\n  let v_a := v_b + 1\n  s\n"
    assert [u for _, u, _ in unbound_locals(text)] == ["v_b"]


def test_cli_emit_writes_and_check_is_unknown_without_lean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from larkc.cli import main

    out = tmp_path / "proj"
    assert main(["emit", str(EXAMPLES / "relu"), "-o", str(out)]) == 0
    assert (out / "Relu" / "Theorems.lean").read_text().startswith(HEADER)
    assert (out / "lakefile.toml").exists() and (out / "README.md").exists()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["emit", str(EXAMPLES / "relu"), "-o", str(out), "--check"]) == 4
    assert "no Lean toolchain" in capsys.readouterr().err


def test_cli_emit_bad_input_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from larkc.cli import main

    out = tmp_path / "proj"
    kernel = EXAMPLES / "vector_add" / "kernel.cu"
    args = ["emit", str(kernel), "--kernel", "vector_add", "--grid", "1", "--block", "256", "-o", str(out)]
    args += ["--buffer", "x=f32[256]", "--buffer", "y=f32[256]", "--buffer", "out=f32[256]", "--scalar", "n=256"]
    assert main(args) == 2
    assert "needs a reference" in capsys.readouterr().err
    assert not out.exists()


def _row_sum_autotune(tmp_path: Path, heuristic: str, instances: list[dict[str, int]]) -> Task:
    """examples/triton/row_sum_autotune with another EVEN_N heuristic and other instances."""
    src = (ROOT / "examples" / "triton" / "row_sum_autotune" / "kernel.py").read_text(encoding="utf-8")
    old = 'args["n_cols"] % args["BLOCK_N"] == 0'
    assert old in src
    path = tmp_path / "kernel.py"
    path.write_text(src.replace(old, heuristic), encoding="utf-8")
    base = load_task(_task_path("triton/row_sum_autotune"))
    return Task(
        source=str(path),
        kernel="row_sum_kernel",
        reference=base.reference,
        inputs={"x": "f32[r, d]"},
        outputs={"s": "f32[r]"},
        bindings={"x_ptr": "x", "out_ptr": "s", "stride": "d", "n_cols": "d"},
        symbols=["r", "d"],
        constraints=["d <= 4096", "r <= 65536"],
        instances=instances,
        grid=["r"],
        block=[1],
    )


def test_emit_pins_a_heuristic_false_at_the_first_instance(tmp_path: Path) -> None:
    # EVEN_N is false at d = 50: the project is about the masked specialisation, for the d it covers
    task = _row_sum_autotune(tmp_path, 'args["n_cols"] % args["BLOCK_N"] == 0', [{"r": 4, "d": 50}, {"r": 3, "d": 48}])
    theorems = dict(emit_task(task, tmp_path / "out").files)["RowSumKernel/Theorems.lean"]
    assert "1 ≤ r ∧ 1 ≤ d ∧ ((d ≤ 4096) ∧ (r ≤ 65536)) ∧ (¬((d % 16) = 0))\n" in theorems
    assert "`EVEN_N = False` (`(¬((d % 16) = 0))`)" in theorems and "(r = 3, d = 48) launch another" in theorems


@pytest.mark.parametrize(
    ("heuristic", "error"),
    [
        ('args["n_cols"] & 15 == 0', r"kernel.py:17:\d+: error: unsupported heuristic for larkc emit"),
        ('(args["n_cols"] - 1) % 16 == 15', r"heuristic EVEN_N .* subtracts"),
    ],
)
def test_emit_of_a_heuristic_it_cannot_state_is_an_error(tmp_path: Path, heuristic: str, error: str) -> None:
    task = _row_sum_autotune(tmp_path, heuristic, [{"r": 3, "d": 48}, {"r": 4, "d": 50}])
    with pytest.raises(LarkcError, match=error):
        emit_task(task, tmp_path / "out")


def test_emit_pins_a_bound_constexpr_even_where_every_instance_agrees(tmp_path: Path) -> None:
    # softmax's BLOCK = next_pow2(d) is 64 at every instance here, but not at other sizes: the theorems
    # must still be stated only for the sizes where it is 64
    base = load_task(_task_path("triton/softmax"))
    task = base.with_instances([{"r": 3, "d": 50}, {"r": 2, "d": 64}])
    theorems = dict(emit_task(task, tmp_path / "out").files)
    text = next(v for k, v in theorems.items() if k.endswith("Theorems.lean"))
    assert "Larkc.nextPow2 d = 64" in text or "nextPow2 d) = 64" in text, text[:2000]
