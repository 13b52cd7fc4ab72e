"""The examples of examples/pipelines/ (several launches, in-place tensors, computed scalars, null
pointers): well formed, and larkc run passes the correct ones and finds each seeded bug."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import larkc
from larkc.pipeline.run import run_task
from larkc.tasks import FAILURE_KINDS, BufferArg, NullArg, load_task

PIPELINES = Path(__file__).resolve().parents[2] / "examples" / "pipelines"
EXAMPLES = sorted(p.parent for p in PIPELINES.glob("*/task.py"))


def test_the_corpus_has_each_kind_of_example() -> None:
    tasks = [load_task(e) for e in EXAMPLES]
    assert any(len(t.launches) > 1 and t.expected_failure is None for t in tasks)
    assert any(len(t.launches) > 1 and t.expected_failure == "mismatch" for t in tasks)
    assert any(t.inplace for t in tasks) and any(t.expected_failure == "input-write" for t in tasks)
    assert any(isinstance(b, NullArg) for t in tasks for x in t.launches for b in x.bindings.values())


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_example_is_well_formed(example: Path) -> None:
    task = load_task(example)
    assert task.name == example.name and task.source == example / "kernel.cu"
    assert task.reference is not None and task.inputs and task.outputs
    assert ("_bug_" in task.name) == (task.expected_failure is not None)
    assert task.expected_failure is None or task.expected_failure in FAILURE_KINDS
    module = larkc.parse(task)
    used: set[str] = set()
    for k, launch in enumerate(task.launches):
        f = next(f for f in module.kernels if f.name == launch.kernel)
        for p in f.params:
            b = task.binding(p.name, k)
            assert b is not None, f"{launch.kernel}: parameter {p.name} has no binding"
            if isinstance(b, BufferArg):
                used.add(b.name)
    assert used == set(task.tensors), "every tensor is passed to some launch"
    for instance in task.instances:
        env = task.shape_env(instance)
        for k in range(len(task.launches)):
            grid, block, _ = task.launch_task(k).launch.concrete(env)
            assert min(grid) >= 1 and 1 <= math.prod(block) <= 1024
    # Some instance is not a multiple of a block of the first launch.
    assert any(
        math.prod(task.launch_task(0).launch.concrete(task.shape_env(i))[1]) > 1 and any(v % 32 for v in i.values())
        for i in task.instances
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_larkc_run_on_the_example(example: Path, tmp_path: Path) -> None:
    task = load_task(example)
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    if task.expected_failure is None:
        assert report.ok, report.render()
    else:
        assert task.expected_failure in report.kinds(), report.render()
