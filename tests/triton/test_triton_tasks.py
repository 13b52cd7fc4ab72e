"""Every Triton example task, specialised per shape instance and run through `larkc run`'s instance runner
(simulator and reference comparison): correct examples pass every instance, each seeded bug gives its
expected diagnosis."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import pytest
import torch

from larkc.errors import TaskError
from larkc.frontends.triton.task import parse_triton_task, specialisations, triton_arguments
from larkc.pipeline.run import run_instance, run_task
from larkc.pipeline.verify import verify_task
from larkc.tasks import ScalarExpr, Task, load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triton"
TASKS = sorted(p.parent.name for p in EXAMPLES.glob("*/task.py"))


@cache
def _task(name: str) -> Task:
    if name.endswith("_from_launcher"):  # the task file runs the launcher, which imports Triton
        pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    return load_task(EXAMPLES / name / "task.py")


def test_the_corpus() -> None:
    written = [t for t in TASKS if not t.endswith("_from_launcher")]
    assert len(written) >= 15 and len(TASKS) - len(written) >= 3
    bugs = [t for t in written if _task(t).expected_failure is not None]
    assert len(bugs) >= 3
    assert all(_task(t).language == "triton" for t in written)


def test_tasks_from_launchers_match_the_written_ones() -> None:
    """The derived softmax task binds what the hand-written one binds (names of results aside)."""
    derived = _task("softmax_from_launcher")
    written = _task("softmax")
    assert derived.kernel == written.kernel and derived.inputs == written.inputs
    rename = {"out": "y"}
    got = {k: rename.get(getattr(v, "name", ""), v) for k, v in derived.bindings.items()}
    want = {k: getattr(v, "name", v) for k, v in written.bindings.items()}
    got = {k: getattr(v, "name", v) for k, v in got.items()}
    assert got == want
    assert [str(g) for g in derived.grid] == ["r"]


@pytest.mark.parametrize("name", TASKS)
def test_example_task_runs_as_expected(name: str) -> None:
    """Every instance in every autotune configuration (each is a specialisation the task must hold for)."""
    task = _task(name)
    # an overflow bug shows at sizes too large to simulate (larkc verify finds it): its instances run clean
    expected = None if task.expected_failure == "overflow" else task.expected_failure
    seen: set[str] = set()
    for config in specialisations(task):
        for inst in task.instances:
            module = parse_triton_task(task, inst, config)
            report, _ = run_instance(task, module, inst, 0)
            seen |= {d.kind.value for d in report.diagnoses}
            if expected is None:
                assert report.ok, (config, inst, [d.message for d in report.diagnoses])
    if expected is not None:
        assert expected in seen, seen


def test_an_autotune_bug_is_in_the_configurations_after_the_first() -> None:
    """row_sum_autotune_bug_even's first configuration is correct; the bug shows with the others only."""
    task = _task("row_sum_autotune_bug_even")
    configs = specialisations(task)
    assert [c["BLOCK_N"] for c in configs] == [16, 32, 64]
    found = []
    for config in configs:
        kinds: set[str] = set()
        for inst in task.instances:
            report, _ = run_instance(task, parse_triton_task(task, inst, config), inst, 0)
            kinds |= {d.kind.value for d in report.diagnoses}
        found.append("oob" in kinds)
    assert found == [False, True, True]


def test_arguments_are_specialised_per_instance() -> None:
    task = _task("softmax")
    types, values, scalars = triton_arguments(task, {"r": 2, "d": 129})
    assert values == {"BLOCK": 256}
    assert scalars["n_cols"] == 129 and str(types["n_cols"]) == "i32" and str(types["in_ptr"]) == "ptr<global f32>"
    assert specialisations(task) == [{}]


def test_a_constexpr_without_a_binding_is_an_error(tmp_path: Path) -> None:
    task = _task("vector_add")
    bindings = {k: v for k, v in task.bindings.items() if k != "BLOCK"}
    bad = dataclasses.replace(task, bindings=bindings)
    with pytest.raises(TaskError, match="constexpr parameter BLOCK of add_kernel has no binding") as e:
        parse_triton_task(bad)
    assert e.value.span is not None and e.value.span.line == 9 and e.value.span.file.endswith("kernel.py")


def test_a_parameter_without_a_binding_is_located_at_its_declaration() -> None:
    task = _task("vector_add")
    bad = dataclasses.replace(task, bindings={k: v for k, v in task.bindings.items() if k != "n_elements"})
    with pytest.raises(TaskError, match="parameter n_elements of add_kernel has no binding") as e:
        parse_triton_task(bad)
    assert e.value.span is not None and (e.value.span.line, e.value.span.col) == (9, 39)


def test_parse_and_verify_take_triton_tasks() -> None:
    import larkc
    from larkc.ir.nodes import Level
    from larkc.provers import Status

    module = larkc.parse(EXAMPLES / "softmax")
    assert [f.level for f in module.functions] == [Level.BLOCK]
    report = larkc.verify(EXAMPLES / "vector_add", instances=[{"n": 1000}])
    # Block-level kernels go through symbolic execution and the bounded prover: vector_add is proved at
    # the instance it was given, and a correct kernel is never refuted.
    statuses = {r.status for r in report.results}
    assert statuses == {Status.PROVED}
    assert report.verdict.name == "VERIFIED"


def test_larkc_run_specialises_each_instance(capsys: pytest.CaptureFixture[str]) -> None:
    """softmax binds BLOCK to next_pow2(d): the d=129 instance needs BLOCK=256, not the first one's 64."""
    from larkc.cli import main

    assert main(["run", str(EXAMPLES / "softmax"), "--seeds", "1"]) == 0, capsys.readouterr()
    assert main(["run", str(EXAMPLES / "vector_add_bug_no_mask"), "--seeds", "1"]) == 1
    assert main(["parse", str(EXAMPLES / "softmax")]) == 0
    assert "level block" in capsys.readouterr().out


_OPTIONAL_BIAS = """
import triton
import triton.language as tl


@triton.jit
def scale_bias(x_ptr, b_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if b_ptr is not None:
        x += tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * scale, mask=m)


@triton.jit
def scale_only(x_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * scale, mask=m)
"""


def _scaled(tmp_path: Path, kernel: str, scale: str = "sqrt(4) / 16") -> Task:
    """y = x / 8; ``scale_bias`` with its bias pointer bound to None."""
    src = tmp_path / "scale_bias.py"
    src.write_text(_OPTIONAL_BIAS)

    def reference(x: torch.Tensor) -> torch.Tensor:
        return x / 8

    bias = {"b_ptr": None} if kernel == "scale_bias" else {}
    return Task(
        source=src, kernel=kernel, reference=reference, inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"},
        bindings={"x_ptr": "x", "out_ptr": "out", **bias, "scale": ScalarExpr(scale), "BLOCK": 64},
        symbols=["n"], constraints=["n <= 16777216"],  # past 2^31 pid * BLOCK (i32) wraps: a real overflow
        instances=[{"n": 100}, {"n": 64}], grid=["cdiv(n, 64)"], block=[1],
    )  # fmt: skip


def test_a_scalar_expression_is_a_float_argument(tmp_path: Path) -> None:
    task = _scaled(tmp_path, "scale_only")
    types, values, scalars = triton_arguments(task, {"n": 100})
    assert str(types["scale"]) == "f32" and scalars["scale"] == 0.125 and "scale" not in values
    assert run_task(task, seeds=1, write_replay=False).ok
    wrong = dataclasses.replace(task, bindings={**task.bindings, "scale": ScalarExpr("sqrt(4) / 8")})
    assert run_task(wrong, seeds=1, write_replay=False).kinds() == {"mismatch"}
    # larkc verify takes the exact value where it is rational (sqrt(4) / 16 = 1/8), as for CUDA
    report = verify_task(task, instances=[{"n": 64}], replay_dir=tmp_path)
    assert report.verdict.name == "VERIFIED", report.render()


def test_a_pointer_bound_to_none_is_the_constexpr_none(tmp_path: Path) -> None:
    task = _scaled(tmp_path, "scale_bias")
    types, values, _ = triton_arguments(task, {"n": 100})
    assert values["b_ptr"] is None and "b_ptr" not in types
    (f,) = parse_triton_task(task).functions
    assert [p.name for p in f.params] == ["x_ptr", "out_ptr", "scale", "n"]  # the bias branch is gone
    assert run_task(task, seeds=1, write_replay=False).ok
    report = verify_task(task, instances=[{"n": 64}], replay_dir=tmp_path)
    assert report.verdict.name == "VERIFIED", report.render()
