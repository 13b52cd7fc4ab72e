"""Frontends: CUDA C++ (and, later, Triton) source to the kernel IR.

The entry points are :func:`parse_task` (the kernel of a verification task), :func:`parse_source`
(a source file), :func:`parse_cuda` (CUDA source or text) and :func:`kernel_names`. A kernel of a
module is found by the name a task gives it with :func:`larkc.tasks.resolve_kernel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from larkc.errors import LarkcError, Stage
from larkc.frontends.cuda import parse_cuda
from larkc.ir.nodes import Module
from larkc.ir.verify import verify_module
from larkc.tasks import Task

__all__ = ["kernel_names", "parse_cuda", "parse_source", "parse_task"]


def _check(module: Module) -> Module:
    """Run the IR verifier: an ill-typed result is a frontend bug, reported as an internal error."""
    try:
        verify_module(module)
    except LarkcError as e:
        raise LarkcError(
            f"internal error: the frontend produced ill-typed IR: {e.message}", e.span, stage=Stage.FRONTEND
        ) from e
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
        raise LarkcError(f"{p}: the Triton frontend is not available yet", stage=Stage.FRONTEND)
    module = parse_cuda(p, kernel=kernel, template_args=template_args, defines=defines, include_dirs=include_dirs)
    return _check(module)


def parse_task(task: Task) -> Module:
    """The IR of the kernel a task verifies (with the task's template arguments, defines and include
    directories)."""
    return parse_source(
        task.source,
        kernel=task.kernel,
        template_args=task.template_args,
        defines=task.defines,
        include_dirs=task.include_dirs,
    )


def kernel_names(
    path: str | Path, *, defines: Mapping[str, str] | None = None, include_dirs: Sequence[str | Path] = ()
) -> list[str]:
    """The qualified names of the kernels a source file defines."""
    from larkc.frontends.cuda import cuda_kernel_names

    return cuda_kernel_names(path, defines=defines, include_dirs=include_dirs)
