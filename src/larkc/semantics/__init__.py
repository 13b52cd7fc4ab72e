"""The executable semantics of the kernel IR: a CPU simulator with dynamic checks, and ``larkc run``.

The simulator is the definition every other stage must agree with. It runs a kernel of the IR on one
concrete launch (all threads of all blocks in lock-step, vectorised over threads), with the numeric
types' real rounding, and reports what the kernel does wrong as :class:`Diagnosis` values:
out-of-bounds or misaligned accesses (``oob``), data races within and between blocks (``race``),
barrier divergence (``divergence``), reads of uninitialised memory or inactive lanes (``uninit``),
undefined operations (``ub``) and, through the runner, results that differ from the reference
(``mismatch``). ``docs/semantics.md`` documents the semantics and the checks.

Entry points: :func:`simulate` (one launch of a module), :func:`run_task` (every instance of a task,
against its reference), and the ``larkc run`` command (:mod:`larkc.semantics.cli`).
"""

from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind
from larkc.semantics.geometry import LaunchConfig
from larkc.semantics.interpreter import GlobalBuffer, KernelArg, SimLimits, SimResult, simulate
from larkc.semantics.runner import (
    InstanceReport,
    OutputReport,
    RunReport,
    load_replay,
    make_inputs,
    run_instance,
    run_task,
)

__all__ = [
    "Diagnosis",
    "DiagnosisKind",
    "GlobalBuffer",
    "InstanceReport",
    "KernelArg",
    "LaunchConfig",
    "OutputReport",
    "RunReport",
    "SimLimits",
    "SimResult",
    "load_replay",
    "make_inputs",
    "run_instance",
    "run_task",
    "simulate",
]
