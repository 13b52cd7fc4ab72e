"""The PyTorch steps of a task (:class:`~larkc.tasks.TorchStep`): parts of the computation left to PyTorch.

A candidate's forward often keeps a PyTorch op (``x = self.conv(x)``) and launches a fused kernel for the
rest. Such a step is no kernel: nothing of it is checked, its semantics are the reference stage's, and every
verdict lists it as trusted. It is executed in two ways:

* **simulated** (``larkc run``, :func:`run_torch_step`): the function is called on the concrete CPU tensors
  the earlier steps left, and its results fill the step's output buffers, which must have exactly their
  declared shapes and dtypes (else bad input, exit 2);
* **symbolically** (``larkc verify``, :func:`symbolic_torch_step`): the function is traced by the reference
  tracer, as a reference over its input tensors at the task's shapes (:func:`trace_step`), and its spec
  graph is evaluated on the terms the earlier steps left in its input buffers; the results become the terms
  of its output buffers, as an earlier launch's writes do for the next launch.

A step that reads an element no earlier step wrote (an ``empty`` buffer) is an ``uninit`` finding of the
task, in both.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from larkc.dtypes import torch_dtype
from larkc.errors import SourceCache, Span, TaskError
from larkc.semantics import Diagnosis, DiagnosisKind
from larkc.semantics.symexec import OutputValue
from larkc.symbolic.extended import NonFinite
from larkc.tasks import Task, TorchStep
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception, user_frame

__all__ = ["UNDEF", "run_torch_step", "step_span", "symbolic_torch_step", "trace_step", "uninit_inputs"]

#: How a symbolic buffer spells an element no step wrote.
UNDEF = "undef"


def step_span(step: TorchStep) -> Span | None:
    """Where the step's function is defined (its ``def`` line), for diagnoses; ``None`` if unknown."""
    fn = inspect.unwrap(step.function)
    try:
        file = inspect.getsourcefile(fn)
        _, line = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    if file is None:
        return None
    text = SourceCache.line(file, line)
    if text is None:
        try:
            SourceCache.register(file, Path(file).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return Span(file, line, 1, line, 2)
        text = SourceCache.line(file, line) or ""
    stripped = text.rstrip()
    col = len(stripped) - len(stripped.lstrip()) + 1
    return Span(file, line, col, line, max(col + 1, len(stripped) + 1))


def _raised_span(e: BaseException, step: TorchStep) -> Span | None:
    """The statement of the step's function (or of the user's code it calls) that raised ``e``."""
    frame = user_frame(e)
    if frame is None:
        return step_span(step)
    file, line = frame
    return Span(file, line, 1, line, 2)


def _check_results(task: Task, index: int, step: TorchStep, results: Sequence[Any], env: Mapping[str, int]) -> None:
    """The step returned one tensor per output, each of the output's declared shape and dtype."""
    label = task.step_label(index)
    where = step_span(step)
    if len(results) != len(step.outputs):
        raise TaskError(
            f"task {task.name}: {label} returned {len(results)} value(s) for {len(step.outputs)} output(s) "
            f"({', '.join(step.outputs)})",
            where,
        )
    for name, value in zip(step.outputs, results, strict=True):
        spec = task.tensors[name]
        if not isinstance(value, torch.Tensor):
            raise TaskError(f"task {task.name}: {label} returned {type(value).__name__} for tensor {name}", where)
        want = spec.concrete_shape(dict(env))
        if tuple(value.shape) != want or value.dtype != torch_dtype(spec.dtype):
            got = f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
            raise TaskError(
                f"task {task.name}: {label} returned {got} for tensor {name}, declared {spec} "
                f"({spec.dtype}{list(want)} at {dict(env)})",
                where,
            )


def uninit_inputs(
    task: Task, index: int, step: TorchStep, unwritten: Mapping[str, int], total: Mapping[str, int]
) -> list[Diagnosis]:
    """An ``uninit`` diagnosis for each input of the step with elements no earlier step wrote
    (``unwritten[name]`` of ``total[name]``)."""
    return [
        Diagnosis(
            DiagnosisKind.UNINIT,
            f"{task.step_label(index)} reads {name}, {unwritten[name]} of whose {total[name]} element(s) no earlier "
            f"step wrote",
            step_span(step) or Span(str(task.task_file or task.source), 1, 1, 1, 2),
            buffer=name,
        )
        for name in step.inputs
        if unwritten.get(name)
    ]


def run_torch_step(
    task: Task,
    index: int,
    step: TorchStep,
    state: dict[str, torch.Tensor],
    initialised: Mapping[str, bool | torch.Tensor],
    env: Mapping[str, int],
) -> list[Diagnosis]:
    """Run step ``index`` (a PyTorch step) on the concrete buffers ``state``, writing its results into them.

    Returns the ``uninit`` diagnoses of what it read unwritten. The function gets copies (it cannot change an
    input behind the task's back); its exceptions and results of another shape or dtype are bad input."""
    unwritten: dict[str, int] = {}
    total: dict[str, int] = {}
    for name in step.inputs:
        init = initialised[name]
        total[name] = state[name].numel()
        if init is False:
            unwritten[name] = total[name]
        elif isinstance(init, torch.Tensor):
            unwritten[name] = int((~init.reshape(-1).to(torch.bool)).sum())
    args = [state[name].clone() for name in step.inputs]
    try:
        with torch.no_grad():
            result = step.function(*args)
    except USER_CODE_ERRORS as e:
        raise TaskError(
            f"task {task.name}: {task.step_label(index)} {describe_user_exception(e)}", _raised_span(e, step)
        ) from None
    results = list(result) if isinstance(result, tuple | list) else [result]
    _check_results(task, index, step, results, env)
    for name, value in zip(step.outputs, results, strict=True):
        state[name] = value.detach().clone().contiguous()
    return uninit_inputs(task, index, step, unwritten, total)


def trace_step(task: Task, index: int, step: TorchStep) -> Any:
    """The spec graph of step ``index``'s function, traced as a reference over its input tensors (their specs,
    over the task's symbols); its outputs are checked against the step's declared outputs when evaluated.
    What the tracer refuses is bad input, named by the step."""
    from larkc.errors import ReferenceError_
    from larkc.reference import trace_reference

    try:
        return trace_reference(
            step.function,
            {name: task.tensors[name] for name in step.inputs},
            symbols=task.symbols,
            constraints=task.constraints,
            instances=task.instances,
            name=step.description,
            param_inputs={},
        )
    except ReferenceError_ as e:
        raise ReferenceError_(
            f"task {task.name}: {task.step_label(index)}: {e.message}", e.span or step_span(step), notes=e.notes
        ) from None


def symbolic_torch_step(
    task: Task,
    index: int,
    step: TorchStep,
    graph: Any,
    env: Mapping[str, int],
    contents: Mapping[str, Sequence[OutputValue]],
) -> dict[str, tuple[OutputValue, ...]]:
    """The terms of the step's outputs on the instance ``env``: its spec graph evaluated on ``contents``, the
    terms its input buffers hold (every element written: the caller checks). A non-finite element stays
    the run's spelling of it (``"+inf"``, ``"nan"``)."""
    from larkc.reference import SpecGraph, evaluate_symbolic

    assert isinstance(graph, SpecGraph)
    given: dict[str, list[Any]] = {}
    for name in step.inputs:
        given[name] = [_as_value(t) for t in contents[name]]
    outs = evaluate_symbolic(graph, env, inputs=given)
    label = task.step_label(index)
    if len(outs) != len(step.outputs):
        raise TaskError(
            f"task {task.name}: {label} returns {len(outs)} tensor(s) for {len(step.outputs)} output(s) "
            f"({', '.join(step.outputs)})",
            step_span(step),
        )
    out: dict[str, tuple[OutputValue, ...]] = {}
    for name, tt in zip(step.outputs, outs, strict=True):
        spec = task.tensors[name]
        want = spec.concrete_shape(dict(env))
        if tuple(tt.shape) != want or tt.dtype != spec.dtype:
            raise TaskError(
                f"task {task.name}: {label} returns {tt.dtype}{list(tt.shape)} for tensor {name}, declared {spec} "
                f"({spec.dtype}{list(want)} at {dict(env)})",
                step_span(step),
            )
        assert len(tt.elems) == math.prod(want)
        out[name] = tuple(e.value if isinstance(e, NonFinite) else e for e in tt.elems)
    return out


def _as_value(t: OutputValue) -> Any:
    """A buffer element as the spec evaluator takes it: a term, or the non-finite value its text spells."""
    if isinstance(t, str):
        return NonFinite(t)
    return t
