"""The executable semantics of the kernel IR: a CPU simulator with dynamic checks.

The simulator is the definition every other stage must agree with. It runs a kernel of the IR on one
concrete launch (all threads of all blocks in lock-step, vectorised over threads), with the numeric
types' real rounding, and reports what the kernel does wrong as :class:`Diagnosis` values:
out-of-bounds or misaligned accesses (``oob``), data races within and between blocks (``race``),
barrier divergence (``divergence``), reads of uninitialised memory or inactive lanes (``uninit``) and
undefined operations (``ub``). ``docs/semantics.md`` documents the semantics and the checks.

The entry point is :func:`simulate` (one launch of a module). Running a task's instances against its
reference (``larkc run``, ``mismatch`` diagnoses) is the pipeline's: :mod:`larkc.pipeline.run`.
"""

from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind
from larkc.semantics.geometry import LaunchConfig
from larkc.semantics.interpreter import GlobalBuffer, KernelArg, SimLimits, SimResult, simulate

__all__ = [
    "Diagnosis",
    "DiagnosisKind",
    "GlobalBuffer",
    "KernelArg",
    "LaunchConfig",
    "SimLimits",
    "SimResult",
    "simulate",
]
