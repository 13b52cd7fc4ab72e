"""`-I DIR` on the command line: a kernel source file's includes are found in the directories given, in
order; a task file's include_dirs are extended; replay files of command-line tasks keep them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larkc.cli import main

CASES = Path(__file__).resolve().parents[1] / "frontends" / "include_cases"
KERNEL = CASES / "kernels" / "activation.cu"
FIRST, SECOND = CASES / "first", CASES / "second"
LAUNCH = ["--grid", "2", "--block", "64", "--buffer", "x=f32[100]", "--buffer", "out=f32[100]", "--scalar", "n=100"]


def test_a_kernel_file_needs_its_include_directories(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(KERNEL), "--kernel", "scaled_silu_kernel", *LAUNCH]) == 2
    assert "include file not found" in capsys.readouterr().err
    code = main(["run", str(KERNEL), "--kernel", "scaled_silu_kernel", "-I", str(FIRST), "-I", str(SECOND), *LAUNCH])
    assert code == 0, capsys.readouterr()


def test_parse_takes_include_directories(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(KERNEL), "--include-dir", str(FIRST), "-I", str(SECOND)]) == 0
    assert "scaled_silu_kernel" in capsys.readouterr().out


def test_kernel_option_accepts_the_short_name_of_a_namespaced_task_kernel(capsys: pytest.CaptureFixture[str]) -> None:
    # the task names demo::scaled_silu_kernel by its short name; --kernel may use either
    assert main(["parse", str(CASES / "kernels"), "--kernel", "demo::scaled_silu_kernel"]) == 0
    assert main(["parse", str(CASES / "kernels"), "--kernel", "other_kernel"]) == 2


def test_replay_of_a_command_line_task_keeps_its_include_directories(tmp_path: Path) -> None:
    from larkc.pipeline.replay import load_replay, write_replay_file
    from larkc.pipeline.run import run_task
    from larkc.tasks import command_line_task

    task = command_line_task(
        KERNEL, "scaled_silu_kernel", grid=["1"], block=["64"], buffers=["x=f32[100]", "out=f32[100]"],
        scalars=["n=100"], include_dirs=[str(FIRST), str(SECOND)],
    )  # fmt: skip
    report = run_task(task, write_replay=False, seeds=1)  # one block of 64 for 100 elements: a mismatch-free run
    path = write_replay_file(task, report.instances[0], tmp_path)
    assert json.loads(path.read_text())["command_line"]["include_dirs"] == [str(FIRST), str(SECOND)]
    assert load_replay(path).task.include_dirs == (FIRST, SECOND)
