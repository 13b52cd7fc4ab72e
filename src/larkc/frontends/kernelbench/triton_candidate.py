"""Triton ``ModelNew`` candidates: the task from the launch ``ModelNew.forward`` makes.

A Triton candidate launches its ``@triton.jit`` kernel from Python (``kernel[grid](x, out, n,
BLOCK_SIZE=1024)`` in a wrapper that forward calls). Unlike a ``load_inline`` candidate, whose host code
is C++ that larkc reads, this host code is Python that only running explains; and running it needs no
compiler or GPU: launches are intercepted, recorded and not run (:mod:`larkc.frontends.triton.launcher`).
So the candidate file is imported (its module-level code runs: ``@triton.jit`` compiles nothing until a
launch), ``ModelNew(*get_init_inputs())`` is built and its forward is called on CPU tensors of each shape
instance; the recorded launches are generalised to shape expressions by ``task_from_launcher``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from larkc.errors import InternalError, LarkcError, Span, Stage
from larkc.frontends.triton.launcher import task_from_launcher
from larkc.tasks import Task, shape_expr
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception

__all__ = ["is_triton_candidate", "triton_candidate_task"]


def is_triton_candidate(source: str) -> bool:
    """Whether a candidate's text launches Triton kernels rather than a ``load_inline`` extension."""
    return "@triton.jit" in source and "load_inline" not in source


def _import(path: Path) -> Any:
    name = f"larkc_candidate_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LarkcError(f"cannot load {path}", stage=Stage.FRONTEND)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except USER_CODE_ERRORS as e:
        raise _located(e, path, "importing the candidate") from None
    return module


def _located(e: BaseException, path: Path, what: str) -> LarkcError:
    tb = e.__traceback__
    line = 0
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(e, LarkcError):
        return e
    span = Span(str(path), line, 1, line, 2) if line else None
    return LarkcError(f"{what} {describe_user_exception(e)}", span, stage=Stage.FRONTEND)


def triton_candidate_task(
    path: Path,
    reference: Path,
    inputs: dict[str, str],
    symbols: Sequence[str],
    instances: Sequence[dict[str, int]],
    constraints: Sequence[str],
    init_args: Sequence[object],
) -> Task:
    """The task of the one kernel launch that ``ModelNew.forward`` of the Triton candidate ``path`` makes.

    ``inputs`` are forward's tensors as task tensors (``"f32[batch_size, dim]"``), in order.
    """
    module = _import(path)
    model_new = getattr(module, "ModelNew", None)
    if model_new is None:
        raise LarkcError("no class ModelNew in the candidate file", Span(str(path), 1, 1, 1, 2), stage=Stage.FRONTEND)
    try:
        model = model_new(*init_args)
    except USER_CODE_ERRORS as e:
        raise _located(e, path, "constructing ModelNew") from None

    def forward(*args: Any) -> Any:
        try:
            return model(*args)
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            raise _located(e, path, "ModelNew.forward") from None

    name = path.parent.name if path.stem == "model_new" else path.stem
    # the launch's integers are explained by the simplest shape expression that fits every instance it is
    # recorded on: a few instances fit wrong ones by chance (cdiv(b, 4) for cdiv(b * d, 1024) on three),
    # so it is recorded on more, sizes apart from each other, and the task keeps the instances asked for
    probes = [*instances]
    for k, factor in enumerate((2, 3, 5)):
        probes.append({s: v * factor + 2 * k + 1 for s, v in instances[0].items()})
    probes.append({s: 3 + 2 * i for i, s in enumerate(symbols)})
    task: Task = task_from_launcher(
        forward, inputs=inputs, symbols=symbols, instances=probes, reference=str(reference), name=name
    )
    limits = tuple(shape_expr(c, "constraint") for c in constraints)
    return dataclasses.replace(task, constraints=limits, instances=tuple(dict(i) for i in instances))
