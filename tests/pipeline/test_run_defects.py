"""Defects of ``larkc run`` found by using it as a new user would (issue 10, item 5), one test each."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from larkc.cli import main
from larkc.pipeline.compare import compare_output
from larkc.pipeline.replay import load_replay
from larkc.pipeline.reports import OutputReport
from larkc.pipeline.run import run_task
from larkc.tasks import command_line_task, load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"
VECTOR_ADD = EXAMPLES / "vector_add" / "kernel.cu"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------------
# a. A command-line task needs its launch


@pytest.mark.parametrize(
    ("given", "missing"),
    [([], "--grid and --block"), (["--grid", "4"], "--block"), (["--block", "256"], "--grid")],
)
def test_command_line_task_without_launch_is_refused(
    given: list[str], missing: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--buffer", "x=f32[1024]", "--replay-dir", str(tmp_path)]
    code, out, err = run_cli([*args, *given], capsys)
    assert code == 2 and out == ""
    assert f"needs {missing}" in err and "Traceback" not in err


def test_command_line_task_with_launch_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--grid", "4", "--block", "256"]
    args += ["--buffer", "x=f32[1024]", "--buffer", "y=f32[1024]", "--buffer", "out=f32[1024]", "--scalar", "n=1000"]
    code, out, _ = run_cli([*args, "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert "grid 4x1x1, block 256x1x1" in out.splitlines()[0]


# --------------------------------------------------------------------------------------------------
# b. Options that name what the kernel or the task does not have


def test_kernel_option_must_match_the_task_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli([str(EXAMPLES / "saxpy"), "--kernel", "vector_add", "--replay-dir", str(tmp_path)], capsys)
    assert code == 2
    assert "--kernel vector_add differs from the kernel of task saxpy (saxpy)" in err


@pytest.mark.parametrize("option", [["--grid", "4"], ["--block", "64"], ["--buffer", "x=f32[8]"], ["--scalar", "n=3"]])
def test_launch_options_with_a_task_file_are_refused(
    option: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run_cli([str(EXAMPLES / "saxpy"), *option, "--replay-dir", str(tmp_path)], capsys)
    assert code == 2
    assert f"{option[0]}: only for a kernel source file" in err


@pytest.mark.parametrize(
    ("option", "name"), [("--scalar", "count=5"), ("--buffer", "z=f32[1024]")], ids=["scalar", "buffer"]
)
def test_options_naming_no_parameter_are_refused(
    option: str, name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--grid", "4", "--block", "256", "--buffer", "x=f32[1024]"]
    code, out, err = run_cli([*args, option, name, "--replay-dir", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    param = name.split("=", maxsplit=1)[0]
    assert f"{option} {param}: kernel vector_add has no parameter {param} (parameters: x, y, out, n)" in err


# --------------------------------------------------------------------------------------------------
# f. NaN agrees with NaN at the same element


def _compare(got: list[float], ref: list[float]) -> OutputReport:
    task = load_task(EXAMPLES / "relu")
    spec = task.outputs["out"]
    low = torch.tensor(ref, dtype=torch.float32)
    return compare_output(task, "out", spec, torch.tensor(got), low, low.to(torch.float64), None)


def test_nan_in_kernel_and_reference_at_one_element_agrees() -> None:
    nan = math.nan
    assert _compare([1.0, nan, 3.0], [1.0, nan, 3.0]).ok
    assert _compare([nan, nan], [nan, nan]).ok
    assert _compare([math.inf, -math.inf], [math.inf, -math.inf]).ok


def test_nan_on_one_side_only_is_a_mismatch() -> None:
    nan = math.nan
    rep = _compare([1.0, nan, 3.0], [1.0, 2.0, 3.0])
    assert not rep.ok and rep.worst_index == (1,)
    rep = _compare([1.0, 2.0, 3.0], [1.0, nan, 3.0])
    assert not rep.ok and rep.worst_index == (1,)
    assert not _compare([nan, 1.0], [1.0, nan]).ok


# --------------------------------------------------------------------------------------------------
# d. Replay files of different tasks of one name do not overwrite each other

OOB_KERNEL = """
__global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 1.0f;
}
"""


def test_replay_files_of_same_named_tasks_are_distinct(tmp_path: Path) -> None:
    src = tmp_path / "fill.cu"
    src.write_text(OOB_KERNEL)
    replays = tmp_path / "replays"
    paths = []
    for size in (100, 200):
        task = command_line_task(src, "fill", grid=["1"], block=["256"], buffers=[f"out=f32[{size}]"], scalars=["n=1"])
        report = run_task(task, replay_dir=replays)
        assert not report.ok and report.instances[0].replay is not None
        paths.append(report.instances[0].replay)
    assert paths[0] != paths[1]
    assert sorted(p.name for p in replays.iterdir()) == sorted(p.name for p in paths)
    for size, path in zip((100, 200), paths, strict=True):
        assert str(load_replay(path).task.inputs["out"]) == f"f32[{size}]"
