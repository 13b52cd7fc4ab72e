"""Every example task with a reference traces, verifies, prints deterministically and evaluates like the
reference itself (on the task's first shape instance, and symbolically on its smallest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from larkc.dtypes import torch_dtype
from larkc.reference import SpecGraph, SpecOp, evaluate, evaluate_symbolic, print_spec, trace_task
from larkc.reference.trace import load_reference
from larkc.tasks import Task, load_task
from larkc.tasks import evaluate as eval_shape

ROOT = Path(__file__).resolve().parents[2]
TASK_FILES = sorted((ROOT / "examples" / "cuda").glob("*/task.py"))

_TRACED: dict[Path, tuple[Task, SpecGraph]] = {}


def _traced(path: Path) -> tuple[Task, SpecGraph]:
    if path not in _TRACED:
        task = load_task(path)
        if task.reference is None:
            pytest.skip("task without a reference")
        _TRACED[path] = (task, trace_task(task))
    return _TRACED[path]


def _inputs(task: Task, env: dict[str, int], native: bool) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    out: dict[str, torch.Tensor] = {}
    for name, spec in task.inputs.items():
        shape = spec.concrete_shape(env)
        dtype = torch_dtype(spec.dtype)
        if spec.dtype.is_float:
            t = torch.randn(shape, generator=gen, dtype=torch.float64)
            out[name] = t.to(dtype) if native else t
        else:
            low = int(eval_shape(spec.low, env)) if spec.low is not None else 0
            high = int(eval_shape(spec.high, env)) if spec.high is not None else 4
            out[name] = torch.randint(low, max(high, low + 1), shape, generator=gen).to(dtype)
    return out


def _call(task: Task, inputs: dict[str, torch.Tensor], double: bool) -> list[torch.Tensor]:
    loaded = load_reference(task.reference, task.init_inputs)
    fn: Any = loaded.target
    if double and isinstance(fn, torch.nn.Module):
        fn = fn.double()
    result = fn(*inputs.values())
    return list(result) if isinstance(result, tuple | list) else [result]


def test_examples_folder_has_tasks() -> None:
    if not TASK_FILES:
        pytest.skip("examples/cuda has no tasks yet")
    assert all(p.name == "task.py" for p in TASK_FILES)


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.parent.name)
def test_example_reference_traces_and_matches_torch(path: Path) -> None:
    task, graph = _traced(path)
    graph.verify()
    assert print_spec(graph) == print_spec(trace_task(task))
    env = task.shape_env(task.instances[-1])
    if any(n.op is SpecOp.CAST for n in graph.nodes):
        # the reference rounds through a narrower type: compare in the graph's own dtypes
        inputs = _inputs(task, env, native=True)
        got = evaluate(graph, inputs, dtype=None)
        want = _call(task, inputs, double=False)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype
            tol = 2e-2 if w.dtype in (torch.float16, torch.bfloat16) else 1e-5
            torch.testing.assert_close(g.double(), w.double(), rtol=tol, atol=tol)
    else:
        inputs = _inputs(task, env, native=False)
        got = evaluate(graph, inputs)
        want = _call(task, inputs, double=True)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            torch.testing.assert_close(g, w.to(g.dtype), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.parent.name)
def test_example_symbolic_matches_numeric_on_the_smallest_instance(path: Path) -> None:
    task, graph = _traced(path)
    smallest = min(task.instances, key=lambda inst: sum(inst.values()))
    env = task.shape_env(smallest)
    inputs = _inputs(task, env, native=False)
    numeric = evaluate(graph, inputs)
    values = {k: v.double().reshape(-1).numpy() for k, v in inputs.items()}
    values.update({p.name: p.value.double().reshape(-1).numpy() for p in graph.params})
    for terms, num in zip(evaluate_symbolic(graph, {s: env[s] for s in graph.symbols}), numeric, strict=True):
        np.testing.assert_allclose(terms.evaluate(values), num.double().numpy(), rtol=1e-9, atol=1e-9)


def test_value_ranges_of_index_inputs_are_part_of_the_spec() -> None:
    graph = trace_task(load_task(ROOT / "examples" / "cuda" / "rotary_embedding"))
    (positions,) = [i for i in graph.inputs if i.name == "positions"]
    assert positions.value_range is not None
    assert "input %positions: i64[num_tokens] in [0, max_position)" in print_spec(graph)
