"""The public Python API: what ``larkc parse``, ``larkc trace`` and ``larkc run`` do, as functions.

:mod:`larkc` exposes these lazily (``larkc.parse``, ``larkc.trace``, ``larkc.run``). Each takes a
:class:`~larkc.tasks.Task` or the path of a task file (``task.py``) or of a folder holding one, and
returns the stage's result as an object (the IR :class:`~larkc.ir.Module`, the
:class:`~larkc.reference.SpecGraph`, the :class:`~larkc.pipeline.reports.RunReport`), never text:
a tool embedding larkc needs no command line. Bad input raises a :class:`~larkc.errors.LarkcError`.

Each stage is imported when its function is called, so ``larkc.parse`` does not import torch.
``larkc.verify`` runs the provers and returns a :class:`~larkc.pipeline.reports.VerifyReport`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from larkc.errors import ReferenceError_, TaskError
from larkc.ir.nodes import Module
from larkc.tasks import Task, load_task

if TYPE_CHECKING:
    from larkc.pipeline.reports import RunReport, VerifyReport
    from larkc.pipeline.verify import Progress
    from larkc.provers import Budget
    from larkc.provers.hints import Hints
    from larkc.reference import SpecGraph

__all__ = ["TaskOrPath", "as_task", "check_emittable", "parse", "run", "trace", "verify"]

#: A task, or the path of a task file or of a folder holding ``task.py``.
TaskOrPath: TypeAlias = Task | str | os.PathLike[str]


def as_task(task_or_path: TaskOrPath) -> Task:
    """The task itself, or the task loaded from a task file or folder."""
    return task_or_path if isinstance(task_or_path, Task) else load_task(Path(task_or_path))


def parse(
    task_or_path: TaskOrPath,
    *,
    template_args: Mapping[str, str | int] | Sequence[str | int] | None = None,
    defines: Mapping[str, str] | None = None,
) -> Module:
    """The kernel IR (verified) of the task's kernel; of a task of several launches, one module holding
    every launch's kernel (and the device functions they call).

    ``template_args`` replace the task's template arguments (of a task of one launch); ``defines`` are
    added to its defines.
    """
    from larkc.frontends import parse_task

    task = as_task(task_or_path)
    if template_args is not None:
        targs = dict(template_args) if isinstance(template_args, Mapping) else tuple(template_args)
        task = dataclasses.replace(task, template_args=targs)
    if defines:
        task = dataclasses.replace(task, defines={**task.defines, **defines})
    return parse_task(task)


def trace(task_or_path: TaskOrPath, *, shapes: Mapping[str, int] | None = None) -> SpecGraph:
    """The spec IR of the task's reference, traced with its inputs, symbols, constraints and instances.

    ``shapes`` sets the size of symbols in every instance (the sizes the reference is traced with).
    """
    from larkc.reference import trace_reference

    task = as_task(task_or_path)
    if task.reference is None:
        raise ReferenceError_(f"task {task.name} has no reference to trace")
    shapes = dict(shapes or {})
    unknown = sorted(set(shapes) - set(task.symbols))
    if unknown:
        known = ", ".join(task.symbols) or "none"
        raise TaskError(f"task {task.name} has no symbol(s) {', '.join(unknown)} (symbols: {known})")
    return trace_reference(
        task.reference,
        task.inputs,
        symbols=task.symbols,
        init_inputs=task.init_inputs,
        file=str(task.task_file) if task.task_file else None,
        constraints=task.constraints,
        instances=[{**inst, **shapes} for inst in task.instances] if shapes else task.instances,
        name=task.name,
        param_inputs=task.params,
    )


def run(
    task_or_path: TaskOrPath,
    *,
    instances: Sequence[Mapping[str, int]] | None = None,
    seed: int = 0,
    replay_dir: str | os.PathLike[str] | None = None,
    inputs: Mapping[str, Mapping[int, float]] | None = None,
    memory_bytes: int | None = None,
) -> RunReport:
    """Simulate the task's kernel on seeded random inputs and compare it with the reference.

    Runs every shape instance of the task, or ``instances``. Each failing instance is written to a
    replay file in ``replay_dir`` (default ``<tmp>/larkc-replay``), named by the report. ``inputs`` sets
    chosen input elements (tensor name to ``{flat index: value}``) over the random inputs.
    ``memory_bytes`` bounds one instance's simulation (default 4 GiB), estimated before it starts.
    """
    from larkc.pipeline.run import run_task

    folder = Path(replay_dir) if replay_dir is not None else None
    task = as_task(task_or_path)
    return run_task(task, instances=instances, seed=seed, replay_dir=folder, inputs=inputs, memory_bytes=memory_bytes)


def verify(
    task_or_path: TaskOrPath,
    *,
    instances: Sequence[Mapping[str, int]] | None = None,
    budget: Budget | None = None,
    progress: Progress | None = None,
    replay_dir: str | os.PathLike[str] | None = None,
    all_sizes: bool = False,
    hints: Hints | None = None,
) -> VerifyReport:
    """Prove the task's obligations (equivalence with the reference, bounds, races, barriers, initialised
    reads, defined operations, assertions, integer overflow) or refute one with a counterexample.

    Bounded proofs cover the task's shape instances (or ``instances``); ``budget`` bounds the effort per
    obligation (time, solver work, and ``memory_bytes``: the memory of one instance's run, estimated before
    it starts); ``progress`` receives one line per step; counterexamples confirmed by the simulator get a
    replay file in ``replay_dir``. The report's ``verdict`` is VERIFIED, FAILED or UNKNOWN, and a VERIFIED
    verdict's ``verified_scope`` is ``"all sizes"`` or ``"bounded"``. ``all_sizes``: a bounded VERIFIED
    has exit code 4 (UNKNOWN for all sizes) and is not ``ok``. ``hints``: loop invariants for the all-size
    prover (:func:`larkc.provers.hints.parse_hints`), each checked by the engine before it is used.
    """
    import dataclasses

    from larkc.pipeline.verify import verify_task

    folder = Path(replay_dir) if replay_dir is not None else None
    task = as_task(task_or_path)
    # every simulation and symbolic run is estimated against budget.memory_bytes (verify_task applies it)
    report = verify_task(task, instances=instances, budget=budget, progress=progress, replay_dir=folder, hints=hints)
    return dataclasses.replace(report, all_sizes=all_sizes)


def emit(task_or_path: TaskOrPath, output: str | os.PathLike[str]) -> list[Path]:
    """Write the task's Lean project to ``output``: the kernel's phases, the reference, and theorems
    (equivalence of every output, in-bounds, race freedom) for every size, with proofs left ``sorry``.
    Returns the written files. Unsupported constructs raise a located :class:`~larkc.errors.LarkcError`
    before anything is written."""
    from larkc.pipeline.emit import emit_task, write_project

    out = Path(output)
    task = as_task(task_or_path)
    check_emittable(task)
    return write_project(emit_task(task, out), out)


def check_emittable(task: Task) -> None:
    """Raise an ``unsupported`` error for what the Lean lowering does not model yet: a task of several
    launches, scalars computed from the shapes (:class:`~larkc.tasks.ScalarExpr`) and null pointers."""
    from larkc.errors import Span, Stage, UnsupportedError
    from larkc.tasks import NullArg, ScalarExpr

    def where(needle: str) -> Span | None:
        """The first line of the task file that mentions ``needle`` (else its first line)."""
        if task.task_file is None:
            return None
        try:
            lines = Path(task.task_file).read_text(encoding="utf-8").splitlines()
        except OSError:
            return None
        for i, line in enumerate(lines, 1):
            col = line.find(needle)
            if col >= 0:
                return Span(str(task.task_file), i, col + 1, i, col + 1 + len(needle))
        return Span.point(str(task.task_file), 1, 1)

    if task.torch_steps:  # the Lean statements are about kernels against the reference: no PyTorch step in them
        steps = "; ".join(x.description for x in task.torch_steps)
        raise UnsupportedError(
            "task with PyTorch steps in larkc emit (PyTorch steps are not emitted)", steps, where("TorchStep("),
            stage=Stage.LOWER,
        )  # fmt: skip
    if len(task.launches) > 1:
        kernels = ", ".join(x.kernel for x in task.launches)
        raise UnsupportedError("task of several launches in larkc emit", kernels, where("launches="), stage=Stage.LOWER)
    for name, b in task.bindings.items():
        if isinstance(b, ScalarExpr):
            text = f"{name} = {b.text}"
            raise UnsupportedError("computed scalar binding in larkc emit", text, where(f'"{name}"'), stage=Stage.LOWER)
        if isinstance(b, NullArg):
            raise UnsupportedError(
                "null pointer binding in larkc emit", f"{name} = None", where(f'"{name}"'), stage=Stage.LOWER
            )
