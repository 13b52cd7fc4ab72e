"""Frontends: CUDA C++ and Triton source to the kernel IR.

The entry points are :func:`parse_task` (the kernel of a verification task), :func:`parse_source`
(a source file), :func:`parse_cuda` (CUDA source or text) and :func:`kernel_names`. A kernel of a
module is found by the name a task gives it with :func:`larkc.tasks.resolve_kernel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from larkc.errors import InternalError, LarkcError, Stage, TaskError, TypeCheckError
from larkc.frontends.cuda import parse_cuda
from larkc.ir.nodes import Function, Module
from larkc.ir.verify import verify_module
from larkc.tasks import Task

if TYPE_CHECKING:
    from larkc.frontends.triton.values import ConstValue
    from larkc.tasks.shape_expr import ShapeExpr

__all__ = [
    "kernel_names",
    "parse_cuda",
    "parse_source",
    "parse_task",
    "specialisation_heuristics",
    "specialised_per_instance",
    "task_configs",
]


def _check(module: Module) -> Module:
    """Run the IR verifier: an ill-typed result is a frontend bug, an :class:`InternalError` (never bad
    input, nor a reason for UNKNOWN: the kernel was accepted, larkc failed on it)."""
    try:
        verify_module(module)
    except TypeCheckError as e:
        raise InternalError(f"the frontend produced ill-typed IR: {e}") from e
    return module


def parse_source(
    path: str | Path,
    *,
    kernel: str | None = None,
    template_args: Mapping[str, str | int] | Sequence[str | int] = (),
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str | Path] = (),
) -> Module:
    """Lower the kernel source file ``path`` (CUDA ``.cu``/``.cuh``) to an IR module.

    ``kernel`` is a short or qualified name, with or without template arguments (see
    :mod:`larkc.tasks.kernel_name`); ``include_dirs`` are the ``-I`` directories, searched in order.
    """
    p = Path(path)
    if p.suffix == ".py":
        raise LarkcError(
            f"{p}: a Triton kernel is lowered from a task (its parameters' types and constexpr values come "
            "from the task's bindings): use parse_task, or larkc.frontends.triton.parse_triton",
            stage=Stage.FRONTEND,
        )
    module = parse_cuda(p, kernel=kernel, template_args=template_args, defines=defines, include_dirs=include_dirs)
    return _check(module)


def parse_task(
    task: Task, instance: Mapping[str, int] | None = None, config: Mapping[str, ConstValue] | None = None
) -> Module:
    """The IR of the kernel a task verifies (with the task's template arguments, defines and include
    directories); of a task of several launches, one module holding every launch's kernel (and the device
    functions they call, once each).

    A Triton kernel is specialised for one shape instance (``instance``, by default the task's first: see
    :func:`specialised_per_instance`) and one ``@triton.autotune`` configuration (``config``, one of
    :func:`task_configs`; by default the first).
    """
    if task.torch_steps and len(task.launches) == 1:  # PyTorch steps are no kernels: the one launch's
        return parse_task(task.launch_task(0), instance, config)
    if len(task.launches) > 1 or task.torch_steps:
        if config is not None:
            raise TaskError(f"task {task.name}: an autotune configuration is one launch's: parse launch_task(k)")
        functions: dict[str, Function] = {}
        for k in range(len(task.launches)):
            for f in parse_task(task.launch_task(k), instance).functions:
                functions.setdefault(f.name, f)  # a device function both kernels call is one function
        return _check(Module(tuple(functions.values())))
    if task.language == "triton":
        from larkc.frontends.triton.task import parse_triton_task

        return _check(parse_triton_task(task, instance, config))
    return parse_source(
        task.source,
        kernel=task.kernel,
        template_args=task.template_args,
        defines=task.defines,
        include_dirs=task.include_dirs,
    )


def task_configs(task: Task) -> list[dict[str, ConstValue]]:
    """The ``@triton.autotune`` configurations of a task of one launch (their constexpr values): each is
    a specialisation of the kernel that the task must hold for. ``[{}]`` for a kernel that is not
    autotuned (and any CUDA kernel)."""
    if task.language != "triton":
        return [{}]
    from larkc.frontends.triton.task import specialisations

    return list(specialisations(task))


def specialised_per_instance(task: Task, instances: Sequence[Mapping[str, int]] | None = None) -> bool:
    """Whether the task's kernel IR may differ between the shape instances ``instances`` (by default the
    task's; a Triton kernel whose argument types or constexprs depend on the shapes), so that each
    instance needs its own :func:`parse_task`."""
    if task.language != "triton":
        return False
    from larkc.frontends.triton.task import instance_independent

    return not instance_independent(task, task.instances if instances is None else instances)


def specialisation_heuristics(task: Task, config: Mapping[str, ConstValue] | None = None) -> dict[str, ShapeExpr]:
    """The ``@triton.heuristics`` constexprs of a Triton task's kernel as shape expressions over the task's
    symbols, under the autotune ``config`` (empty without heuristics, and for CUDA); a heuristic that
    is not one is a located :class:`~larkc.errors.LarkcError`."""
    if task.language != "triton":
        return {}
    from larkc.frontends.triton.task import heuristic_exprs

    return heuristic_exprs(task, config)


def kernel_names(
    path: str | Path, *, defines: Mapping[str, str] | None = None, include_dirs: Sequence[str | Path] = ()
) -> list[str]:
    """The qualified names of the kernels a source file defines (of a Triton ``.py`` file: its
    ``@triton.jit`` functions)."""
    if Path(path).suffix == ".py":
        from larkc.frontends.triton import triton_kernel_names

        return triton_kernel_names(path)
    from larkc.frontends.cuda import cuda_kernel_names

    return cuda_kernel_names(path, defines=defines, include_dirs=include_dirs)
