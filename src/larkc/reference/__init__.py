"""The PyTorch reference frontend: tracing references into the spec IR, and evaluating specs.

* :func:`trace_reference`, :func:`trace_task`: a reference (function, ``nn.Module``, KernelBench file) to
  a :class:`SpecGraph` (``torch.export`` underneath; see :mod:`larkc.reference.trace`).
* :func:`print_spec`: the deterministic text form.
* :func:`evaluate`: numeric evaluation (float64 by default), the executable meaning of the spec.
* :func:`evaluate_symbolic`: each output element as an exact term over the input elements
  (:mod:`larkc.symbolic`), for the provers.
"""

from larkc.reference.numeric import evaluate
from larkc.reference.printer import print_spec
from larkc.reference.spec import (
    OP_SIGNATURES,
    Absent,
    Operand,
    OpSignature,
    ParamKind,
    Ref,
    Scalar,
    SpecGraph,
    SpecInput,
    SpecNode,
    SpecOp,
    SpecParam,
    ValueType,
)
from larkc.reference.symbolic import evaluate_symbolic, evaluate_symbolic_with_conditions
from larkc.reference.trace import (
    LoadedReference,
    choose_sizes,
    load_reference,
    trace_reference,
    trace_task,
    with_params,
)
from larkc.symbolic import TermTensor

__all__ = [
    "OP_SIGNATURES",
    "Absent",
    "LoadedReference",
    "OpSignature",
    "Operand",
    "ParamKind",
    "Ref",
    "Scalar",
    "SpecGraph",
    "SpecInput",
    "SpecNode",
    "SpecOp",
    "SpecParam",
    "TermTensor",
    "ValueType",
    "choose_sizes",
    "evaluate",
    "evaluate_symbolic",
    "evaluate_symbolic_with_conditions",
    "load_reference",
    "print_spec",
    "trace_reference",
    "trace_task",
    "with_params",
]
