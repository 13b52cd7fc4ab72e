"""The public Python API (``larkc.parse``, ``larkc.trace``, ``larkc.run``): the objects the commands print.

Also that ``import larkc`` and ``larkc parse`` stay light: torch is imported only by what needs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError, TaskError
from larkc.frontends import parse_task
from larkc.ir import Module, print_module
from larkc.reference import SpecGraph, print_spec, trace_task

ROOT = Path(__file__).resolve().parents[1]
VECTOR_ADD = ROOT / "examples" / "cuda" / "vector_add"
RACY = ROOT / "examples" / "cuda" / "row_sum_shared_bug_missing_sync"


def _imports_torch(code: str) -> bool:
    check = f"{code}\nimport sys\nprint('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True, cwd=ROOT)
    return out.stdout.strip().splitlines()[-1] == "True"


def test_import_larkc_and_larkc_parse_do_not_import_torch() -> None:
    """(A task file imports torch for its reference; a kernel source and a task built in code do not.)"""
    kernel = str(VECTOR_ADD / "kernel.cu")
    task = f"larkc.command_line_task({kernel!r}, 'vector_add', grid=['1'], block=['32'], buffers=['x=f32[32]'])"
    assert not _imports_torch("import larkc")
    assert not _imports_torch(f"import larkc\nlarkc.parse({task})")
    assert not _imports_torch(f"from larkc.cli import main\nmain(['parse', {kernel!r}])")
    assert _imports_torch("import larkc\nlarkc.RunReport")  # the lazy names do load


def test_lazy_names() -> None:
    assert {"parse", "trace", "run", "RunReport"} <= set(dir(larkc))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = larkc.no_such_name  # type: ignore[attr-defined]  # what the lazy look-up says of unknown names


def test_parse_takes_a_task_or_a_path() -> None:
    task = larkc.load_task(VECTOR_ADD)
    module = larkc.parse(VECTOR_ADD)
    assert isinstance(module, Module)
    assert module == larkc.parse(task) == larkc.parse(str(VECTOR_ADD / "task.py")) == parse_task(task)


def test_parse_overrides_template_args_and_adds_defines(capsys: pytest.CaptureFixture[str]) -> None:
    module = larkc.parse(RACY, template_args=["128"], defines={"UNUSED": "1"})
    assert "row_sum_shared<128>" in print_module(module)
    assert main(["parse", str(RACY), "--template-arg", "128", "-D", "UNUSED"]) == 0
    assert capsys.readouterr().out == print_module(module)


def test_trace_is_the_spec_of_the_task() -> None:
    graph = larkc.trace(VECTOR_ADD)
    assert isinstance(graph, SpecGraph)
    assert print_spec(graph) == print_spec(trace_task(larkc.load_task(VECTOR_ADD)))


def test_trace_rejects_unknown_symbols() -> None:
    with pytest.raises(TaskError, match=r"task vector_add has no symbol\(s\) m \(symbols: n\)"):
        larkc.trace(VECTOR_ADD, shapes={"m": 3})


def test_run_returns_the_report_the_command_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = larkc.run(RACY, instances=[{"rows": 2, "d": 100}], seed=3, replay_dir=tmp_path)
    assert isinstance(report, larkc.RunReport)
    assert not report.ok and report.kinds() == {"race"}
    record = report.to_json()
    assert record["ok"] is False and record["expected_failure"] == "race"
    replay = report.instances[0].replay
    assert replay is not None and replay.parent == tmp_path
    argv = ["run", str(RACY), "--shape", "rows=2,d=100", "--seed", "3", "--replay-dir", str(tmp_path)]
    assert main(argv) == 1
    assert capsys.readouterr().out == report.render() + "\n"
    assert main([*argv, "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in printed.items() if k != "instances"} == {
        k: v for k, v in record.items() if k != "instances"
    }


def test_run_of_a_correct_task(tmp_path: Path) -> None:
    report = larkc.run(larkc.load_task(VECTOR_ADD), instances=[{"n": 300}], replay_dir=tmp_path)
    assert report.ok and report.render().endswith("ok: 1 instance, no diagnosis")
    assert list(tmp_path.iterdir()) == []


def test_bad_paths_are_larkc_errors(tmp_path: Path) -> None:
    for call in (larkc.parse, larkc.trace, larkc.run):
        with pytest.raises(LarkcError, match="no task file at"):
            call(tmp_path / "missing")
