"""Every ``@triton.autotune`` configuration is a specialisation ``larkc run`` and ``larkc verify`` check.

row_sum_autotune_bug_even is correct for its first configuration (BLOCK_N = 16) and reads past the end of
48-element rows for the other two: checking the first one only would miss it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from larkc.errors import TaskError
from larkc.frontends import parse_task, task_configs
from larkc.pipeline.replay import load_replay
from larkc.pipeline.run import LaunchModules, config_label, run_task
from larkc.pipeline.verify import verify_task
from larkc.provers import Status, Verdict
from larkc.tasks import KernelLaunch, Task, load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triton"


def _task(name: str) -> Task:
    return load_task(EXAMPLES / name / "task.py")


def test_task_configs_are_the_autotune_configurations() -> None:
    task = _task("row_sum_autotune_bug_even")
    configs = task_configs(task)
    assert [c["BLOCK_N"] for c in configs] == [16, 32, 64]
    assert task_configs(_task("softmax")) == [{}]
    # each configuration is its own module: the unrolled block size differs
    texts = {repr(parse_task(task, None, c)) for c in configs}
    assert len(texts) == 3
    assert [config_label(task, (c,)) for c in configs] == ["BLOCK_N=16", "BLOCK_N=32", "BLOCK_N=64"]
    assert len(LaunchModules(task).configs()) == 3


def test_run_checks_every_configuration(tmp_path: Path) -> None:
    report = run_task(_task("row_sum_autotune_bug_even"), seeds=1, replay_dir=tmp_path)
    assert not report.ok and "oob" in report.kinds()
    failed = {i.config for i in report.instances if not i.ok}
    assert failed == {"BLOCK_N=32", "BLOCK_N=64"}, failed
    assert all(i.ok for i in report.instances if i.config == "BLOCK_N=16")
    text = report.render()
    assert "autotune configuration BLOCK_N=32" in text and "the task expects oob: found" in text
    assert all(i.to_json()["config"] for i in report.instances)


def test_run_passes_every_configuration_of_the_correct_kernel(tmp_path: Path) -> None:
    report = run_task(_task("row_sum_autotune"), seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()
    assert sorted({i.config for i in report.instances}) == ["BLOCK_N=16", "BLOCK_N=32", "BLOCK_N=64"]
    assert len(report.instances) == 3 * len(_task("row_sum_autotune").instances)


def test_verify_refutes_in_a_later_configuration(tmp_path: Path) -> None:
    report = verify_task(_task("row_sum_autotune_bug_even"), replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED and "oob" in report.kinds()
    bounds = next(r for r in report.results if r.obligation.name == "bounds")
    assert bounds.status is Status.REFUTED and bounds.counterexample is not None
    assert "autotune configuration BLOCK_N=" in bounds.counterexample.launch
    assert "BLOCK_N=16" not in bounds.counterexample.launch  # the first configuration is correct


def test_verify_proves_for_every_configuration(tmp_path: Path) -> None:
    report = verify_task(_task("row_sum_autotune"), replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    for r in report.results:
        scope = r.scope.describe()
        assert "every" in scope and "autotune configuration" in scope, (r.obligation.name, scope)
        assert "of this module" not in scope


def _twice(name: str) -> Task:
    """The example's launch twice in a row (the second recomputes the same row sums)."""
    base = _task(name)
    launch = KernelLaunch(kernel=base.kernel, grid=["r"], block=[1], bindings=dict(base.bindings))
    return Task(
        source=base.source, reference=base.reference, inputs=dict(base.inputs), outputs=dict(base.outputs),
        symbols=list(base.symbols), constraints=list(base.constraints), instances=[{"r": 3, "d": 48}],
        launches=(launch, launch),
    )  # fmt: skip


def test_a_task_of_several_launches_checks_every_combination(tmp_path: Path) -> None:
    task = _twice("row_sum_autotune_bug_even")
    assert len(LaunchModules(task).configs()) == 9
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    assert "oob" in report.kinds()
    assert {i.config for i in report.instances if i.ok} == {
        "launch 1 (kernel row_sum_kernel): BLOCK_N=16; launch 2 (kernel row_sum_kernel): BLOCK_N=16"
    }
    # larkc verify runs the sequence symbolically on the instance under each combination: the first one
    # that reads out of bounds (launch 2 with BLOCK_N=32) refutes, confirmed by the simulator
    verified = verify_task(task, replay_dir=tmp_path)
    bounds = next(r for r in verified.results if r.obligation.name == "bounds")
    assert bounds.status is Status.REFUTED, "\n".join(verified.render())
    assert "launch 2 (kernel row_sum_kernel): BLOCK_N=32" in bounds.detail
    assert bounds.counterexample is not None and bounds.counterexample.kind.value == "confirmed"
    proved = verify_task(_twice("row_sum_autotune"), replay_dir=tmp_path)
    assert proved.verdict is not Verdict.FAILED
    for r in proved.results:
        if r.status is Status.PROVED:
            assert "every combination" in r.scope.describe(), r.scope.describe()


_SCALE = """
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"])
@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    MASK
"""


def _double(tmp_path: Path, masked: bool) -> Task:
    """y = 2x over programs of BLOCK elements: the grid, cdiv(n, BLOCK), depends on the configuration."""
    body = (
        "tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)"
        if masked
        else "tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs))"
    )
    (tmp_path / "double.py").write_text(_SCALE.replace("MASK", body))
    (tmp_path / "task.py").write_text(_DOUBLE_TASK)
    return load_task(tmp_path / "task.py")


_DOUBLE_TASK = """
from larkc import Task

task = Task(
    source="double.py", kernel="double", reference=lambda x: 2.0 * x, inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"}, bindings={"x_ptr": "x", "y_ptr": "y"}, symbols=["n"],
    # from n = 2^31 Triton passes n as i64 and the i32 program_id(0) * BLOCK overflows (a real defect)
    constraints=["n <= 16777216"],
    instances=[{"n": 96}, {"n": 128}], grid=["cdiv(n, BLOCK)"], block=[1],
)
"""


def test_a_grid_may_name_the_configuration_constexprs(tmp_path: Path) -> None:
    task = _double(tmp_path, masked=True)
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()
    grids = {(i.config, i.launch.grid[0]) for i in report.instances if i.shape == {"n": 96}}
    assert grids == {("BLOCK=32", 3), ("BLOCK=64", 2)}
    assert verify_task(task, replay_dir=tmp_path).verdict is Verdict.VERIFIED


def test_an_unmasked_kernel_fails_for_the_configuration_that_overruns(tmp_path: Path) -> None:
    task = _double(tmp_path, masked=False)
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    failed = [i for i in report.instances if not i.ok]
    assert [(i.shape, i.config) for i in failed] == [({"n": 96}, "BLOCK=64")], report.render()
    assert "oob" in failed[0].kinds()
    assert failed[0].replay is not None
    replay = load_replay(failed[0].replay)  # the launch recorded with BLOCK = 64 is the one computed again
    assert replay.instance == {"n": 96}
    verified = verify_task(task, replay_dir=tmp_path)
    assert verified.verdict is Verdict.FAILED and "oob" in verified.kinds()


def test_a_grid_name_no_configuration_gives_is_an_error(tmp_path: Path) -> None:
    task = dataclasses.replace(_double(tmp_path, masked=True), grid=["cdiv(n, BLOCKS)"])
    with pytest.raises(TaskError, match="BLOCKS, neither a symbol nor an integer constexpr"):
        run_task(task, seeds=1, replay_dir=tmp_path)


def test_configurations_that_differ_only_in_launch_options_are_one_specialisation(tmp_path: Path) -> None:
    src = (EXAMPLES / "row_sum_autotune" / "kernel.py").read_text()
    # six configurations, two block sizes: num_warps and num_stages do not change the program
    configs = (
        "[triton.Config({'BLOCK_N': bn}, num_warps=nw, num_stages=ns)"
        " for bn in (16, 32) for nw in (1, 4) for ns in (2, 3)]"
    )
    start = src.index("configs=[")
    end = src.index("],", start) + 1
    (tmp_path / "kernel.py").write_text(src[:start] + "configs=" + configs + src[end:])
    task = dataclasses.replace(_task("row_sum_autotune"), source=tmp_path / "kernel.py")
    assert [c["BLOCK_N"] for c in task_configs(task)] == [16, 32]
