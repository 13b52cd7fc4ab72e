"""Every kernel of the example corpus compiles with nvcc, with the task's template arguments and defines.

The kernel file is not compiled alone: a wrapper translation unit includes it and takes the address of
the task's kernel, instantiated with the task's template arguments, so that template bodies are really
type-checked and the task's kernel name is known to exist in the file.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from larkc import Task, load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"
TASK_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))

pytestmark = [
    pytest.mark.nvcc,
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH"),
]


def template_suffix(task: Task) -> str:
    """``<float, 256>`` for a template kernel, empty otherwise (mapping values are in declaration order)."""
    args = task.template_args
    values = list(args.values()) if isinstance(args, dict) else list(args)
    if not values:
        return ""
    return "<" + ", ".join(str(v) for v in values) + ">"


def wrapper_source(task: Task) -> str:
    """A translation unit instantiating the task's kernel by taking its address."""
    return (
        f'#include "{task.source.resolve()}"\n\n'
        f"// Taking the address instantiates the template, so its body is compiled for these arguments.\n"
        f"void* larkc_inst = (void*)&{task.kernel}{template_suffix(task)};\n"
    )


def test_corpus_is_not_empty() -> None:
    assert len(TASK_DIRS) >= 30


@pytest.mark.parametrize("example", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_kernel_compiles(example: Path, tmp_path: Path) -> None:
    task = load_task(example)
    wrapper = tmp_path / f"{example.name}_inst.cu"
    wrapper.write_text(wrapper_source(task), encoding="utf-8")
    cmd = ["nvcc", "-c", "-std=c++17", "-arch=sm_80", "-o", str(tmp_path / "kernel.o")]
    cmd += [f"-D{name}={value}" for name, value in task.defines.items()]
    cmd.append(str(wrapper))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
    assert (tmp_path / "kernel.o").stat().st_size > 0
