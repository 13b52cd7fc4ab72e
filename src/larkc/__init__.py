"""larkc: formal verification of CUDA and Triton kernels against their PyTorch reference.

The public API is what this module exports; everything else is internal to its package.

* Tasks: :class:`Task`, :class:`TensorSpec`, the bindings, :func:`load_task`, :func:`command_line_task`.
* Stages, on a task or the path of a task file or folder (:mod:`larkc.pipeline.api`):
  :func:`parse` (the kernel IR ``Module``), :func:`trace` (the reference's ``SpecGraph``) and
  :func:`run` (simulation against the reference: a :class:`RunReport` with ``.ok``, ``.render()``
  and ``.to_json()``).
* KernelBench candidates: :func:`candidate_task` (the task of a ``ModelNew`` file against its problem file),
  :func:`verify_many` (many candidates in one process, results cached).
* Errors: :class:`LarkcError` (every error in the input larkc reports; ``.render()`` gives the located
  message); :class:`InternalError` (a bug in larkc itself, deliberately not a ``LarkcError``).

``parse``, ``trace``, ``run`` and the report types are loaded on first use, so ``import larkc`` stays
light (no torch until a function needs it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from larkc.errors import InternalError, LarkcError, Span
from larkc.tasks import (
    BufferArg,
    ScalarArg,
    ShapeArg,
    Task,
    TensorSpec,
    command_line_task,
    load_task,
)

if TYPE_CHECKING:
    from larkc.pipeline.api import parse, run, trace, verify
    from larkc.pipeline.candidates import candidate_task, verify_many
    from larkc.pipeline.reports import InstanceReport, OutputReport, RunReport, VerifyReport

__version__ = "0.1.0"

#: Public names loaded on first use -> the module that defines them.
_LAZY = {
    "parse": "larkc.pipeline.api",
    "trace": "larkc.pipeline.api",
    "run": "larkc.pipeline.api",
    "verify": "larkc.pipeline.api",
    "emit": "larkc.pipeline.api",
    "candidate_task": "larkc.pipeline.candidates",
    "verify_many": "larkc.pipeline.candidates",
    "InstanceReport": "larkc.pipeline.reports",
    "OutputReport": "larkc.pipeline.reports",
    "RunReport": "larkc.pipeline.reports",
    "VerifyReport": "larkc.pipeline.reports",
}

__all__ = [
    "BufferArg",
    "InstanceReport",
    "InternalError",
    "LarkcError",
    "OutputReport",
    "RunReport",
    "ScalarArg",
    "ShapeArg",
    "Span",
    "Task",
    "TensorSpec",
    "VerifyReport",
    "__version__",
    "candidate_task",
    "command_line_task",
    "emit",
    "load_task",
    "parse",
    "run",
    "trace",
    "verify",
    "verify_many",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'larkc' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
