"""Verification tasks: what to verify, against what, for which shapes and launches.

A :class:`Task` names a kernel (source file, kernel name, template arguments, defines), the PyTorch
reference it must agree with (optional), the tensors it reads and writes, how each kernel parameter is
bound, the launch configuration as a function of the shapes, the symbolic shape parameters with their
constraints, and the concrete shape instances used for bounded checks. Every later stage consumes tasks.

A task file is a Python file that defines ``task = Task(...)`` (see ``docs/tasks.md``); relative paths in
it are resolved against the file's directory by :func:`load_task`.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import importlib.util
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from larkc.errors import InternalError, LarkcError, SourceCache, Span, TaskError
from larkc.ir.types import (
    BF16,
    BOOL,
    F8E4M3,
    F8E5M2,
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    SCALARS,
    U8,
    U16,
    U32,
    U64,
    ScalarType,
)
from larkc.tasks.input_facts import Triangular
from larkc.tasks.kernel_name import KernelName
from larkc.tasks.preconditions import Precondition, parse_precondition
from larkc.tasks.scalar_expr import ScalarExpr
from larkc.tasks.shape_expr import (
    ShapeBool,
    ShapeCmp,
    ShapeExpr,
    ShapeNot,
    ShapeNum,
    ShapeSym,
    evaluate,
    free_symbols,
    shape_expr,
    substitute,
)
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception, user_frame

__all__ = [
    "DEFAULT_MAX_TENSOR_BYTES",
    "FAILURE_KINDS",
    "Binding",
    "BindingValue",
    "BufferArg",
    "KernelLaunch",
    "Launch",
    "NullArg",
    "ScalarArg",
    "ScalarExpr",
    "ShapeArg",
    "Step",
    "Task",
    "TaskFieldError",
    "TensorSpec",
    "TorchStep",
    "command_line_task",
    "load_task",
    "parse_dtype",
    "step_output_constraints",
]

T = TypeVar("T")

#: The diagnoses a seeded-bug task may expect; the simulator and provers report these words.
#: ``overflow`` is reported by ``larkc verify`` only: an index expression that overflows at sizes the task allows.
#: ``input-write`` is reported by ``larkc run``: a store into an input the task does not declare in-place.
#: ``not-a-kernel`` is a task whose every step is PyTorch (:class:`TorchStep`): it launches no kernel of its own.
FAILURE_KINDS = (
    "race", "oob", "mismatch", "divergence", "uninit", "ub", "assert", "overflow", "input-write", "launch",
    "not-a-kernel",
)  # fmt: skip

#: The default of :attr:`Task.max_tensor_bytes`: 64 GiB, the largest tensor the overflow proofs consider.
DEFAULT_MAX_TENSOR_BYTES = 2**36

_DTYPE_NAMES: dict[str, ScalarType] = {
    **SCALARS,
    "float": F32,
    "float32": F32,
    "double": F64,
    "float64": F64,
    "half": F16,
    "float16": F16,
    "bfloat16": BF16,
    "float8_e4m3fn": F8E4M3,
    "float8_e5m2": F8E5M2,
    "int": I32,
    "int32": I32,
    "int64": I64,
    "long": I64,
    "int16": I16,
    "short": I16,
    "int8": I8,
    "uint8": U8,
    "uint16": U16,
    "uint32": U32,
    "uint64": U64,
    "bool": BOOL,
}


def parse_dtype(value: object, what: str = "dtype") -> ScalarType:
    """A scalar type from ``"f32"``, ``"float32"``, ``torch.float32`` or a :class:`ScalarType`."""
    if isinstance(value, ScalarType):
        return value
    name = str(value)
    if name.startswith("torch."):
        name = name[len("torch.") :]
    t = _DTYPE_NAMES.get(name)
    if t is None:
        raise TaskError(f"unknown {what} {value!r} (use f32, f16, bf16, f64, i32, i64, ... or a torch dtype)")
    return t


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """A tensor of the task: its shape as shape expressions, its element type, how it starts.

    ``init`` says what a buffer holds before the launch: ``"random"`` (the default for inputs),
    ``"zeros"`` (for outputs the host clears, e.g. atomically accumulated ones) or ``"empty"`` (the
    default for outputs and scratch: unspecified contents, reading them is a diagnosis).

    ``low``/``high`` bound the values of an integer tensor to ``[low, high)`` (indices such as token
    positions that the kernel trusts); written ``"i64[n] in [0, max_pos)"`` in the string form.
    ``triangular``: an input whose last two dimensions are a triangular matrix (the other triangle
    zero, as a KernelBench problem's ``torch.tril(...)`` draws it), a precondition of the checks.
    """

    shape: tuple[ShapeExpr, ...]
    dtype: ScalarType
    init: Literal["random", "zeros", "empty"] | None = None
    low: ShapeExpr | None = None
    high: ShapeExpr | None = None
    triangular: Triangular | None = None

    @staticmethod
    def of(value: object, what: str) -> TensorSpec:
        """Accept a :class:`TensorSpec`, ``(shape, dtype)``, ``(shape, dtype, init)`` or ``"f32[n, d]"``."""
        if isinstance(value, TensorSpec):
            return value
        if isinstance(value, str):
            m = re.fullmatch(r"\s*([A-Za-z0-9_.]+)\s*\[([^\]]*)\](?:\s+in\s+\[(.*),(.*)\))?\s*", value)
            if m is None:
                raise TaskError(f"invalid tensor {what} {value!r}: expected e.g. 'f32[n, d]' or 'i64[n] in [0, vocab)'")
            parts = _split_top_level(m.group(2))
            dims = [] if len(parts) == 1 and not parts[0].strip() else parts  # "f32[]" is a 0-d tensor
            if any(not d.strip() for d in dims):
                raise TaskError(f"invalid tensor {what} {value!r}: an empty dimension (between commas)")
            dtype = parse_dtype(m.group(1))
            low = high = None
            if m.group(3) is not None:
                if not dtype.is_int:
                    raise TaskError(f"invalid tensor {what} {value!r}: a value range needs an integer dtype")
                low = shape_expr(m.group(3).strip(), f"value range of {what}")
                high = shape_expr(m.group(4).strip(), f"value range of {what}")
            shape = tuple(_dimension(d.strip(), what) for d in dims)
            return TensorSpec(shape, dtype, None, low, high)
        if isinstance(value, tuple | list) and len(value) in (2, 3):
            shape_v, dtype_v = value[0], value[1]
            if not isinstance(shape_v, tuple | list):
                raise TaskError(f"invalid tensor {what}: shape must be a tuple, got {shape_v!r}")
            init = value[2] if len(value) == 3 else None
            if init not in (None, "random", "zeros", "empty"):
                raise TaskError(f"invalid init {init!r} of {what}: use 'random', 'zeros' or 'empty'")
            return TensorSpec(
                tuple(_dimension(d, what) for d in shape_v),
                parse_dtype(dtype_v, f"dtype of {what}"),
                init,
            )
        raise TaskError(f"invalid tensor {what} {value!r}: expected TensorSpec, (shape, dtype) or 'f32[n]'")

    def concrete_shape(self, env: dict[str, int]) -> tuple[int, ...]:
        return tuple(int(evaluate(d, env)) for d in self.shape)

    def value_range(self, env: dict[str, int]) -> tuple[int, int] | None:
        """The ``[low, high)`` bounds of an integer tensor on a shape instance, if the task gives them."""
        if self.low is None or self.high is None:
            return None
        return int(evaluate(self.low, env)), int(evaluate(self.high, env))

    def __str__(self) -> str:
        text = f"{self.dtype}[{', '.join(str(d) for d in self.shape)}]"
        if self.low is not None and self.high is not None:
            text += f" in [{self.low}, {self.high})"
        return text


def _dimension(value: ShapeExpr | str | int, what: str) -> ShapeExpr:
    """One dimension of a tensor's shape: an integer shape expression, not negative where it is constant."""
    if isinstance(value, bool):
        raise TaskError(f"invalid shape of {what}: a dimension is an integer, got {value!r}")
    d = shape_expr(value, f"shape of {what}")
    if is_boolean(d):
        raise TaskError(f"invalid shape of {what}: dimension {d} is a condition, not a size")
    if not free_symbols(d):
        size = evaluate(d, {})
        if size < 0:
            raise TaskError(f"invalid shape of {what}: dimension {value} is negative ({size})")
    return d


def is_boolean(e: ShapeExpr) -> bool:
    """Whether ``e`` is a condition (a comparison, ``and``/``or``/``not`` of conditions), not a number."""
    match e:
        case ShapeCmp() | ShapeNot():
            return True
        case ShapeBool(_, args):
            return all(is_boolean(a) for a in args)
        case _:
            return False


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


@dataclass(frozen=True, slots=True)
class BufferArg:
    """Bind a pointer parameter to the task tensor ``name`` (an input, output or scratch tensor)."""

    name: str


@dataclass(frozen=True, slots=True)
class ShapeArg:
    """Bind an integer parameter to a shape expression (``ShapeArg("rows * d")``)."""

    expr: ShapeExpr

    def __init__(self, expr: ShapeExpr | str | int) -> None:
        object.__setattr__(self, "expr", shape_expr(expr, "shape binding"))


@dataclass(frozen=True, slots=True)
class ScalarArg:
    """Bind a scalar parameter to a constant (``ScalarArg(1e-5)`` for an epsilon)."""

    value: int | float | bool


@dataclass(frozen=True, slots=True)
class NullArg:
    """Bind a pointer parameter to the null pointer (an optional tensor the host leaves out: ``bias``)."""


Binding = BufferArg | ShapeArg | ScalarArg | ScalarExpr | NullArg

#: What a task's ``bindings`` accept: a binding, or a plain value that says which (see ``docs/tasks.md``).
BindingValue = Binding | str | int | float | None


@dataclass(frozen=True, slots=True)
class Launch:
    """Grid and block dimensions (1 to 3 each) and dynamic shared memory in bytes, over the shapes."""

    grid: tuple[ShapeExpr, ...]
    block: tuple[ShapeExpr, ...]
    shared_bytes: ShapeExpr = ShapeNum(0)

    @staticmethod
    def of(
        grid: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int,
        block: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int,
        shared_bytes: ShapeExpr | str | int = 0,
    ) -> Launch:
        def dims(v: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int, what: str) -> tuple[ShapeExpr, ...]:
            seq: list[ShapeExpr | str | int] = list(v) if isinstance(v, tuple | list) else [v]  # type: ignore[list-item]  # mypy does not narrow the Sequence away
            if not 1 <= len(seq) <= 3:
                raise TaskError(f"{what} must have 1 to 3 dimensions, got {len(seq)}")
            return tuple(shape_expr(d, what) for d in seq)

        return Launch(dims(grid, "grid"), dims(block, "block"), shape_expr(shared_bytes, "shared_bytes"))

    def concrete(self, env: dict[str, int]) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
        """``(grid, block, shared_bytes)`` with grid and block padded to three dimensions."""
        grid = [int(evaluate(d, env)) for d in self.grid] + [1] * (3 - len(self.grid))
        block = [int(evaluate(d, env)) for d in self.block] + [1] * (3 - len(self.block))
        return (grid[0], grid[1], grid[2]), (block[0], block[1], block[2]), int(evaluate(self.shared_bytes, env))


TemplateArgs = Mapping[str, str | int] | tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class KernelLaunch:
    """One kernel launch of a task: the kernel, its launch configuration and how its parameters bind.

    A task's launches run in order on the task's tensors (see :attr:`Task.launches`). ``bindings`` are
    as :attr:`Task.bindings` takes them; a task resolves plain values (a string naming a tensor or a
    shape expression, a number) into :data:`Binding` values when it is constructed.
    """

    kernel: str
    grid: tuple[ShapeExpr, ...]
    block: tuple[ShapeExpr, ...]
    shared_bytes: ShapeExpr
    bindings: Mapping[str, BindingValue]
    template_args: TemplateArgs

    def __init__(
        self,
        *,
        kernel: str,
        grid: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int,
        block: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int,
        shared_bytes: ShapeExpr | str | int = 0,
        bindings: Mapping[str, BindingValue] | None = None,
        template_args: Mapping[str, str | int] | Sequence[str | int] = (),
    ) -> None:
        if not isinstance(kernel, str) or KernelName.parse(kernel) is None:
            raise TaskError(f"kernel must be the kernel's name (k, ns::k or k<float, 128>), got {kernel!r}")
        launch = Launch.of(grid, block, shared_bytes)
        set_ = object.__setattr__
        set_(self, "kernel", kernel)
        set_(self, "grid", launch.grid)
        set_(self, "block", launch.block)
        set_(self, "shared_bytes", launch.shared_bytes)
        if bindings is not None and not isinstance(bindings, Mapping):
            raise TaskError(f"bindings of kernel {kernel} must be a mapping from parameter name, got {bindings!r}")
        set_(self, "bindings", dict(bindings or {}))
        set_(self, "template_args", dict(template_args) if isinstance(template_args, Mapping) else tuple(template_args))

    @property
    def launch(self) -> Launch:
        return Launch(self.grid, self.block, self.shared_bytes)


@dataclass(frozen=True, slots=True)
class TorchStep:
    """A part of the computation left to PyTorch (``x = self.conv(x)`` in a candidate's forward): a
    function of torch tensors whose semantics are the reference stage's (traced by the same tracer;
    trusted, and listed as such in every verdict).

    ``function`` is a pure function of torch tensors, called with the task tensors ``inputs`` positionally
    (inputs, parameters, scratch, or outputs an earlier step wrote); it returns a tensor or a tuple of
    tensors, which fill the task tensors ``outputs`` (scratch, or outputs), in order, with exactly their
    declared shapes and dtypes. ``label`` is what the user wrote (``self.conv(x)``), for reports.
    """

    function: Callable[..., Any]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    label: str = ""

    def __init__(
        self, function: Callable[..., Any], inputs: Sequence[str], outputs: Sequence[str], label: str = ""
    ) -> None:
        if not callable(function):
            raise TaskError(f"TorchStep function must be a callable of torch tensors, got {function!r}")
        for what, names in (("inputs", inputs), ("outputs", outputs)):
            if isinstance(names, str) or not isinstance(names, Sequence):
                raise TaskError(f"TorchStep {what} must be a sequence of tensor names, got {names!r}")
            if any(not isinstance(n, str) or not n.isidentifier() for n in names):
                raise TaskError(f"TorchStep {what} must name task tensors, got {list(names)!r}")
        if not outputs:
            raise TaskError("TorchStep outputs: a step fills one or more task tensors, got none")
        for what, names in (("inputs", inputs), ("outputs", outputs)):
            dup = sorted({n for n in names if list(names).count(n) > 1})
            if dup:
                raise TaskError(f"TorchStep {what} name {', '.join(dup)} twice: each tensor once")
        set_ = object.__setattr__
        set_(self, "function", function)
        set_(self, "inputs", tuple(inputs))
        set_(self, "outputs", tuple(outputs))
        set_(self, "label", str(label))

    @property
    def description(self) -> str:
        """How reports name the step: its label, else the function's name."""
        return self.label or f"{getattr(self.function, '__name__', 'function')}({', '.join(self.inputs)})"


#: One step of a task: a kernel launch, or a part left to PyTorch.
Step = KernelLaunch | TorchStep

Reference = Callable[..., Any] | type | str


@dataclass(frozen=True)
class Task:
    """A verification task. Construct with keyword arguments; see ``docs/tasks.md``.

    * ``source``: the kernel source file (``.cu``/``.cuh`` or a Triton ``.py``); ``defines`` are ``-D``
      macros for the preprocessor, ``include_dirs`` its ``-I`` directories, in search order.
    * The launches, in one of two forms. One launch: ``kernel`` (short or qualified, ``act``,
      ``vllm::act``, possibly with its template arguments, ``act<float, 128>``), ``template_args`` (a
      mapping from template parameter to a type name or an integer, or a sequence in declaration
      order), ``bindings``, ``grid``, ``block``, ``shared_bytes``. Several launches in order:
      ``launches=(KernelLaunch(...), ...)``, each with those fields. Giving both forms is an error.
      Launches run in order on the task's tensors, with full synchronisation between them.
    * ``reference``: a function, an ``nn.Module`` subclass (constructed with ``init_inputs``), or the path
      of a KernelBench-style file (``class Model``, ``get_inputs``, ``get_init_inputs``). ``None`` asks
      only for memory safety, race freedom and barrier uniformity.
    * ``inputs``: the reference's tensor arguments, in order (name to :class:`TensorSpec`).
      ``params``: inputs that are parameters of the reference module instead (input name to the
      parameter's path in the module, ``{"linear_weight": "linear.weight"}``); they are the last inputs,
      in this order, and the reference is called with its own parameters replaced by them.
      ``outputs``: the tensors the kernel writes, in the order the reference returns them. A name in both
      is an *in-place* tensor: it starts random, and its final value is compared with the reference's
      (returned, or left in the reference's argument). ``scratch``: other buffers (workspaces, partial
      results), not compared. A kernel writing an input that is not in-place is a finding.
    * ``bindings``: kernel parameter name to :class:`BufferArg`, :class:`ShapeArg`, :class:`ScalarArg`,
      :class:`ScalarExpr` or :class:`NullArg`; a plain string names a tensor if there is one of that name
      and is a shape expression otherwise, a plain number is a constant, ``None`` the null pointer. A
      parameter without a binding binds to the tensor or symbol of its own name.
    * ``symbols``: the symbolic shape parameters; ``constraints``: what they satisfy (every symbol is at
      least 1 implicitly); ``instances``: concrete values for bounded checks.
    * ``expected_failure``: for seeded-bug examples, the diagnosis larkc must report.
    * ``max_tensor_bytes``: the largest size in bytes of any one tensor, for the parametric proofs of
      integer overflow freedom (sizes allowed by the constraints are further limited by it).
    * ``findings``: what is wrong with the candidate apart from its kernel, found while deriving the task
      (a KernelBench ``ModelNew`` parameter initialised otherwise than the ``Model`` one it stands for):
      each makes the verdict FAILED, whatever the kernel's obligations give.
    * ``trusted``: what the task's construction takes on trust (a launch derived from a launcher by
      running it at a few sizes): each is listed as a ``[trusted]`` assumption of every verdict.

    The fields ``kernel`` ... ``template_args`` hold the one launch of a single-launch task; in a task of
    several launches they are empty and ``_launches`` holds the launches (read :attr:`launches`).
    """

    source: Path
    kernel: str
    grid: tuple[ShapeExpr, ...]
    block: tuple[ShapeExpr, ...]
    shared_bytes: ShapeExpr = ShapeNum(0)
    name: str = ""
    reference: Reference | None = None
    init_inputs: tuple[Any, ...] = ()
    inputs: Mapping[str, TensorSpec] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)
    outputs: Mapping[str, TensorSpec] = field(default_factory=dict)
    scratch: Mapping[str, TensorSpec] = field(default_factory=dict)
    bindings: Mapping[str, Binding] = field(default_factory=dict)
    symbols: tuple[str, ...] = ()
    constraints: tuple[ShapeExpr, ...] = ()
    instances: tuple[Mapping[str, int], ...] = ({},)
    template_args: TemplateArgs = ()
    defines: Mapping[str, str] = field(default_factory=dict)
    include_dirs: tuple[Path, ...] = ()
    expected_failure: str | None = None
    tolerance: Mapping[str, float] = field(default_factory=dict)
    max_tensor_bytes: int = DEFAULT_MAX_TENSOR_BYTES
    task_file: Path | None = None
    findings: tuple[str, ...] = ()
    preconditions: tuple[Precondition, ...] = ()
    trusted: tuple[str, ...] = ()
    #: the launches of a task of several (``()`` for a single-launch task): see :attr:`launches`
    _launches: tuple[KernelLaunch, ...] = ()
    #: every step in order where some are PyTorch steps (``()`` otherwise): see :attr:`steps`
    _steps: tuple[Step, ...] = ()

    def __init__(
        self,
        *,
        source: str | Path,
        kernel: str | None = None,
        grid: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int | None = None,
        block: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int | None = None,
        shared_bytes: ShapeExpr | str | int | None = None,
        launches: Sequence[KernelLaunch | TorchStep] | None = None,
        name: str = "",
        reference: Reference | None = None,
        init_inputs: Sequence[Any] = (),
        inputs: Mapping[str, object] | None = None,
        params: Mapping[str, str] | None = None,
        outputs: Mapping[str, object] | None = None,
        scratch: Mapping[str, object] | None = None,
        bindings: Mapping[str, BindingValue] | None = None,
        symbols: Sequence[str] = (),
        constraints: Sequence[ShapeExpr | str] = (),
        instances: Sequence[Mapping[str, int]] = (),
        template_args: Mapping[str, str | int] | Sequence[str | int] | None = None,
        defines: Mapping[str, str | int] | None = None,
        include_dirs: Sequence[str | Path] = (),
        expected_failure: str | None = None,
        tolerance: Mapping[str, float] | None = None,
        max_tensor_bytes: int = DEFAULT_MAX_TENSOR_BYTES,
        task_file: Path | None = None,
        findings: Sequence[str] = (),
        preconditions: Sequence[Precondition | str] = (),
        trusted: Sequence[str] = (),
        _launches: Sequence[KernelLaunch] = (),
        _steps: Sequence[Step] = (),
    ) -> None:
        set_ = object.__setattr__
        set_(self, "source", Path(source))
        for field_name, role, given in (("inputs", "input", inputs), ("outputs", "output", outputs)):
            set_(self, field_name, _tensor_specs(field_name, role, given))
        set_(self, "scratch", _tensor_specs("scratch", "scratch", scratch))
        set_(self, "params", {str(k): str(v) for k, v in (params or {}).items()})
        if launches is None and _steps:  # dataclasses.replace of a task with PyTorch steps passes them back
            launches, _launches = _steps, ()
        steps = _launch_form(
            f"task {name or source}",
            launches,
            _launches,
            kernel=kernel,
            grid=grid,
            block=block,
            shared_bytes=shared_bytes,
            bindings=bindings,
            template_args=template_args,
        )
        resolved_steps = tuple(
            dataclasses.replace(
                x,
                bindings={
                    k: _in_field("bindings", k, functools.partial(self._binding, k, v)) for k, v in x.bindings.items()
                },
            )
            if isinstance(x, KernelLaunch)
            else x
            for x in steps
        )
        resolved = tuple(x for x in resolved_steps if isinstance(x, KernelLaunch))
        torch_steps = len(resolved) < len(resolved_steps)
        # A task with PyTorch steps is always of the several-steps form, even with one kernel launch.
        one = len(resolved) == 1 and not torch_steps
        first = resolved[0] if one else None
        set_(self, "kernel", first.kernel if first else "")
        set_(self, "grid", first.grid if first else ())
        set_(self, "block", first.block if first else ())
        set_(self, "shared_bytes", first.shared_bytes if first else ShapeNum(0))
        set_(self, "bindings", dict(first.bindings) if first else {})
        set_(self, "template_args", first.template_args if first else ())
        set_(self, "_launches", () if first else resolved)
        set_(self, "_steps", resolved_steps if torch_steps else ())
        default_name = " + ".join(x.kernel for x in resolved) if resolved else "pytorch"
        set_(self, "name", name or (first.kernel if first else default_name))
        set_(self, "reference", reference)
        set_(self, "init_inputs", tuple(init_inputs))
        for sym in symbols:
            if not isinstance(sym, str) or not sym.isidentifier():
                raise TaskError(f"symbol names must be identifiers, got {sym!r}")
        set_(self, "symbols", tuple(symbols))
        if isinstance(constraints, str):
            raise TaskFieldError(
                f"constraints must be a list of conditions, got the string {constraints!r}", "constraints"
            )
        stated = tuple(_constraint(k, c) for k, c in enumerate(constraints))
        implied = step_output_constraints(self._steps, self.tensors)
        set_(self, "constraints", stated + tuple(c for c in implied if str(c) not in {str(d) for d in stated}))
        set_(self, "instances", tuple(dict(i) for i in instances) or ({},))
        set_(self, "defines", {str(k): str(v) for k, v in (defines or {}).items()})
        if isinstance(include_dirs, str | Path):
            raise TaskError(f"include_dirs must be a list of directories, got {include_dirs!r}")
        set_(self, "include_dirs", tuple(Path(d) for d in include_dirs))
        if expected_failure is not None and expected_failure not in FAILURE_KINDS:
            raise TaskError(f"expected_failure must be one of {', '.join(FAILURE_KINDS)}, got {expected_failure!r}")
        set_(self, "expected_failure", expected_failure)
        set_(self, "tolerance", _tolerance(tolerance))
        if isinstance(max_tensor_bytes, bool) or not isinstance(max_tensor_bytes, int) or max_tensor_bytes < 1:
            raise TaskError(f"max_tensor_bytes must be a positive integer, got {max_tensor_bytes!r}")
        set_(self, "max_tensor_bytes", max_tensor_bytes)
        set_(self, "task_file", task_file)
        if isinstance(findings, str) or not all(isinstance(f, str) for f in findings):
            raise TaskError(f"findings must be a list of texts, got {findings!r}")
        set_(self, "findings", tuple(findings))
        if isinstance(trusted, str) or not all(isinstance(t, str) for t in trusted):
            raise TaskError(f"trusted must be a list of texts, got {trusted!r}")
        set_(self, "trusted", tuple(trusted))
        if isinstance(preconditions, str):
            raise TaskFieldError(
                f"preconditions must be a list such as ['distinct(dest_loc)'], got the string {preconditions!r}",
                "preconditions",
            )
        set_(
            self,
            "preconditions",
            tuple(
                _in_field("preconditions", k, functools.partial(parse_precondition, p))
                for k, p in enumerate(preconditions)
            ),
        )
        self._check()

    # ------------------------------------------------------------------------------------------------

    @property
    def launches(self) -> tuple[KernelLaunch, ...]:
        """The kernel launches, in the order they run (one for a task of the single-launch form; none for a
        task whose every step is PyTorch). PyTorch steps are not launches: :attr:`steps` has both."""
        if self._launches or self._steps:
            return self._launches
        return (
            KernelLaunch(
                kernel=self.kernel, grid=self.grid, block=self.block, shared_bytes=self.shared_bytes,
                bindings=self.bindings, template_args=self.template_args,
            ),
        )  # fmt: skip

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every step in the order it runs: kernel launches and PyTorch steps (:class:`TorchStep`). The
        stages that execute a task (``larkc run``, the bounded symbolic chain) iterate these; the ones
        that only look at kernels (parametric proofs, the launch obligation, emit) read :attr:`launches`."""
        return self._steps or self.launches

    @property
    def torch_steps(self) -> tuple[TorchStep, ...]:
        """The PyTorch steps, in order (none for a task of kernel launches only)."""
        return tuple(x for x in self._steps if isinstance(x, TorchStep))

    def step_label(self, index: int) -> str:
        """How reports name step ``index`` of :attr:`steps`: ``PyTorch step 1 (self.conv(x))`` for a PyTorch
        step, the launch's :meth:`launch_label` for a kernel launch."""
        x = self.steps[index]
        if isinstance(x, TorchStep):
            return f"PyTorch step {index + 1} ({x.description})"
        return self.launch_label(sum(1 for y in self.steps[:index] if isinstance(y, KernelLaunch)))

    def launch_task(self, index: int) -> Task:
        """The single-launch task of launch ``index``: the same tensors, shapes and reference, one kernel.

        The stages that handle one kernel (frontends, simulator) take a task of several launches one
        launch at a time through this view.
        """
        if not self._launches:
            return self
        x = self._launches[index]
        return dataclasses.replace(
            self, kernel=x.kernel, grid=x.grid, block=x.block, shared_bytes=x.shared_bytes,
            bindings={k: self._binding(k, v) for k, v in x.bindings.items()}, template_args=x.template_args,
            _launches=(), _steps=(),
        )  # fmt: skip

    def launch_label(self, index: int) -> str:
        """``launch 2 (kernel k2)``: how diagnoses name a launch of a task of several (``""`` for one)."""
        if len(self.launches) == 1 and not self._steps:
            return ""
        return f"launch {index + 1} (kernel {self.launches[index].kernel})"

    @property
    def tensors(self) -> dict[str, TensorSpec]:
        """Every tensor of the task by name: inputs, then outputs, then scratch (an in-place tensor once)."""
        return {**self.inputs, **self.outputs, **self.scratch}

    @property
    def inplace(self) -> tuple[str, ...]:
        """The in-place tensors: both inputs and outputs (read by the kernel, and compared afterwards)."""
        return tuple(n for n in self.outputs if n in self.inputs)

    @property
    def launch(self) -> Launch:
        """The launch configuration of a single-launch task (a task of several raises :class:`TaskError`)."""
        return self._single().launch

    def _single(self) -> KernelLaunch:
        if self._steps:
            raise TaskError(
                f"task {self.name} has {len(self.steps)} steps, {len(self.torch_steps)} of them PyTorch: this needs "
                f"one kernel launch"
            )
        if self._launches:
            kernels = ", ".join(x.kernel for x in self._launches)
            raise TaskError(f"task {self.name} has {len(self._launches)} launches ({kernels}): this needs one launch")
        return self.launches[0]

    @property
    def language(self) -> Literal["cuda", "triton"]:
        return "triton" if self.source.suffix == ".py" else "cuda"

    def binding(self, param: str, launch: int = 0) -> Binding | None:
        """The binding of kernel parameter ``param`` of launch ``launch``: explicit, or by name to a
        tensor or symbol."""
        bindings = self.launches[launch].bindings
        if param in bindings:
            b = bindings[param]
            assert isinstance(b, BufferArg | ShapeArg | ScalarArg | ScalarExpr | NullArg)  # resolved in __init__
            return b
        if param in self.tensors:
            return BufferArg(param)
        if param in self.symbols:
            return ShapeArg(param)
        return None

    def check_binding_names(self, launch: int, params: Sequence[str]) -> None:
        """Every binding of launch ``launch`` names one of ``params``, its kernel's parameters: a binding of
        another name (a typo) would bind nothing, and the parameter it meant would bind by its own name."""
        import difflib

        x = self.launches[launch]
        for name in x.bindings:
            if name in params:
                continue
            close = difflib.get_close_matches(name, params, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            listed = ", ".join(params) or "none"
            span = _field_span(self.task_file, "bindings", name, None) if self.task_file is not None else None
            raise TaskError(
                f"task {self.name}: binding {name!r} names no parameter of kernel {x.kernel}{hint}; its parameters: "
                f"{listed}",
                span,
            )

    def shape_env(self, instance: Mapping[str, int]) -> dict[str, int]:
        """Check ``instance`` against the symbols and constraints and return it as a dict."""
        env = dict(instance)
        missing = [s for s in self.symbols if s not in env]
        if missing:
            raise TaskError(f"task {self.name}: shape instance {env} gives no value to {', '.join(missing)}")
        extra = [s for s in env if s not in self.symbols]
        if extra:
            raise TaskError(f"task {self.name}: shape instance {env} names unknown symbols {', '.join(extra)}")
        for s in self.symbols:
            if not isinstance(env[s], int) or isinstance(env[s], bool) or env[s] < 1:
                raise TaskError(f"task {self.name}: symbol {s} must be a positive integer, got {env[s]!r}")
        for c in self.constraints:
            if not evaluate(c, env):
                implied = {str(d) for d in step_output_constraints(self._steps, self.tensors)}
                why = (
                    " (a PyTorch step's output would be empty: PyTorch refuses these sizes)"
                    if str(c) in implied
                    else ""
                )
                raise TaskError(f"task {self.name}: shape instance {env} violates constraint {c}{why}")
        for tname, spec in self.tensors.items():
            bounds = spec.value_range(env)
            if bounds is not None and bounds[0] >= bounds[1]:
                raise TaskError(f"task {self.name}: shape instance {env} leaves tensor {tname!r} no values {bounds}")
        return env

    def with_launch_constants(self, values: Sequence[Mapping[str, object]]) -> Task:
        """The task with the integer constants ``values[k]`` (an autotune configuration's constexprs, one
        mapping per launch) put into launch ``k``'s grid, block and shared bytes.

        A Triton task's grid may name a configuration's constexprs (``cdiv(n, BLOCK)``); every other name
        in a launch must be a symbol, which is checked here (a CUDA task's launches were checked when it
        was constructed).
        """
        if len(values) != len(self.launches):
            raise TaskError(f"task {self.name}: {len(values)} configuration(s) for {len(self.launches)} launch(es)")
        out: list[KernelLaunch] = []
        for k, (x, given) in enumerate(zip(self.launches, values, strict=True)):
            ints = {n: v for n, v in given.items() if isinstance(v, int) and not isinstance(v, bool)}
            grid = tuple(substitute(d, ints) for d in x.grid)
            block = tuple(substitute(d, ints) for d in x.block)
            shared = substitute(x.shared_bytes, ints)
            for e in (*grid, *block, shared):
                unknown = free_symbols(e) - set(self.symbols)
                if unknown:
                    where = f"{self.launch_label(k)}: " if len(self.launches) > 1 else ""
                    raise TaskError(
                        f"task {self.name}: {where}the launch uses {', '.join(sorted(unknown))}, neither a symbol "
                        f"nor an integer constexpr of the autotune configuration {dict(given)}"
                    )
            out.append(dataclasses.replace(x, grid=grid, block=block, shared_bytes=shared))
        if self._steps:
            kernels = iter(out)
            steps = tuple(next(kernels) if isinstance(x, KernelLaunch) else x for x in self._steps)
            return dataclasses.replace(self, launches=steps)  # type: ignore[call-arg]  # Task.__init__ takes it
        if not self._launches:
            (x,) = out
            return dataclasses.replace(self, grid=x.grid, block=x.block, shared_bytes=x.shared_bytes)
        return dataclasses.replace(self, _launches=tuple(out))

    def with_instances(self, instances: Sequence[Mapping[str, int]]) -> Task:
        """The same task with other concrete shape instances."""
        new = dataclasses.replace(self, instances=tuple(dict(i) for i in instances))
        return new

    # ------------------------------------------------------------------------------------------------

    def _binding(self, param: str, value: BindingValue) -> Binding:
        match value:
            case BufferArg() | ShapeArg() | ScalarArg() | ScalarExpr() | NullArg():
                return value
            case None:
                return NullArg()
            case bool():
                return ScalarArg(value)
            case str() if value in self.tensors:
                return BufferArg(value)
            case str():
                return ShapeArg(value)
            case int():
                return ShapeArg(value)
            case float():
                return ScalarArg(value)
            case _:
                raise TaskError(f"binding of parameter {param!r}: unsupported value {value!r}")

    def _check_torch_steps(self) -> None:
        """Each PyTorch step reads task tensors and fills scratch or outputs (never an input: the
        reference reads its inputs as they were)."""
        for i, x in enumerate(self._steps):
            if not isinstance(x, TorchStep):
                continue
            label = self.step_label(i)
            for n in x.inputs:
                if n not in self.tensors:
                    raise TaskFieldError(f"task {self.name}: {label} reads unknown tensor {n!r}", "launches", i)
            for n in x.outputs:
                if n in self.inputs:
                    raise TaskFieldError(
                        f"task {self.name}: {label} writes input {n!r}: a PyTorch step fills scratch or outputs",
                        "launches",
                        i,
                    )
                if n not in self.tensors:
                    raise TaskFieldError(
                        f"task {self.name}: {label} writes unknown tensor {n!r} (declare it in scratch= or outputs=)",
                        "launches",
                        i,
                    )

    def _check(self) -> None:
        names = list(self.inputs) + [n for n in self.outputs if n not in self.inputs] + list(self.scratch)
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise TaskError(f"task {self.name}: tensor names used twice: {', '.join(sorted(dup))}")
        last = list(self.inputs)[len(self.inputs) - len(self.params) :] if len(self.params) <= len(self.inputs) else []
        if list(self.params) != last:
            raise TaskError(
                f"task {self.name}: params {', '.join(self.params)} must be the last inputs, in their order"
                f" (inputs: {', '.join(self.inputs) or 'none'})"
            )
        if set(self.params) & set(self.outputs):
            raise TaskError(f"task {self.name}: a parameter of the reference cannot be an output (in-place)")
        for n in self.inplace:
            if self.inputs[n] != self.outputs[n]:
                raise TaskError(
                    f"task {self.name}: in-place tensor {n!r} is {self.inputs[n]} as an input and {self.outputs[n]} "
                    f"as an output: give it one spec"
                )
        clash = set(names) & set(self.symbols)
        if clash:
            raise TaskError(f"task {self.name}: names are both tensors and symbols: {', '.join(sorted(clash))}")
        known = set(self.symbols)
        exprs: list[tuple[str, ShapeExpr]] = [("constraint", c) for c in self.constraints]
        scalars: list[tuple[str, ScalarExpr]] = []
        for k, x in enumerate(self.launches):
            label = f"{self.launch_label(k)}: " if len(self.launches) > 1 else ""
            if self.language == "cuda":  # a Triton grid may name autotune constexprs: with_launch_constants
                exprs += [(f"{label}grid", d) for d in x.grid]
                exprs += [(f"{label}block", d) for d in x.block]
                exprs += [(f"{label}shared_bytes", x.shared_bytes)]
            for pname, b in x.bindings.items():
                if isinstance(b, ShapeArg):
                    exprs.append((f"{label}binding of {pname!r}", b.expr))
                if isinstance(b, ScalarExpr):
                    scalars.append((f"{label}binding of {pname!r}", b))
                if isinstance(b, BufferArg) and b.name not in self.tensors:
                    raise TaskError(
                        f"task {self.name}: {label}parameter {pname!r} is bound to unknown tensor {b.name!r}"
                    )
        self._check_torch_steps()
        for tname, spec in self.tensors.items():
            exprs += [(f"shape of {tname!r}", d) for d in spec.shape]
            exprs += [(f"value range of {tname!r}", d) for d in (spec.low, spec.high) if d is not None]
        unknown_of = [(what, free_symbols(e) - known) for what, e in exprs]
        unknown_of += [(what, e.symbols() - known) for what, e in scalars]
        for what, unknown in unknown_of:
            if unknown:
                raise TaskError(
                    f"task {self.name}: {what} uses undeclared symbol(s) {', '.join(sorted(unknown))}"
                    f" (declare them in symbols=...)"
                )
        self._check_preconditions()
        roles = {**{n: "scratch" for n in self.scratch}, **{n: "outputs" for n in self.outputs}}
        roles |= {n: "inputs" for n in self.inputs}
        for k, inst in enumerate(self.instances):
            env = _in_field("instances", k, functools.partial(self.shape_env, inst))
            for _what, e in scalars:
                e.value(env)  # a division by zero or a negative square root is an error of the task
            for tname, spec in self.tensors.items():
                for d in spec.shape:
                    size = int(_in_field(roles[tname], tname, functools.partial(evaluate, d, env)))
                    if size < 0:
                        raise TaskFieldError(
                            f"task {self.name}: dimension {d} of tensor {tname!r} is negative ({size}) at {env}",
                            roles[tname],
                            tname,
                        )
            self._check_preconditions_at(env)

    def precondition_span(self, p: Precondition) -> Span | None:
        """Where the task file states precondition ``p`` (``None`` for a task built in code)."""
        if self.task_file is None or p not in self.preconditions:
            return None
        return _field_span(self.task_file, "preconditions", self.preconditions.index(p), None)

    def _check_preconditions(self) -> None:
        """Each precondition names a read-only integer input (a kernel writing it would void what verify
        assumed of its values)."""
        for k, p in enumerate(self.preconditions):
            spec = self.inputs.get(p.tensor)
            if spec is None:
                known = ", ".join(self.inputs) or "none"
                raise TaskFieldError(
                    f"task {self.name}: precondition {p} names no input of the task (inputs: {known})",
                    "preconditions",
                    k,
                )
            if spec.dtype.is_float or spec.dtype.is_bool:
                raise TaskFieldError(
                    f"task {self.name}: precondition {p} needs an integer tensor; {p.tensor} is {spec}",
                    "preconditions",
                    k,
                )
            if p.tensor in self.outputs:
                raise TaskFieldError(
                    f"task {self.name}: precondition {p} is on {p.tensor}, which the kernel updates in place",
                    "preconditions",
                    k,
                )

    def _check_preconditions_at(self, env: Mapping[str, int]) -> None:
        """Each precondition can hold at shape instance ``env``: a distinct tensor fits in its value range."""
        for k, p in enumerate(self.preconditions):
            spec = self.inputs[p.tensor]
            bounds = spec.value_range(dict(env))
            count = math.prod(int(evaluate(d, dict(env))) for d in spec.shape)
            if bounds is not None and bounds[1] - bounds[0] < count:
                raise TaskFieldError(
                    f"task {self.name}: precondition {p} cannot hold at instance {dict(env)}: {count} entries,"
                    f" {bounds[1] - bounds[0]} values in [{bounds[0]}, {bounds[1]})",
                    "preconditions",
                    k,
                )


def step_output_constraints(steps: Sequence[Step], tensors: Mapping[str, TensorSpec]) -> tuple[ShapeExpr, ...]:
    """``d >= 1`` for every dimension ``d`` of a PyTorch step's output (``tensors`` gives their specs) that is
    neither a bare symbol (at least 1 already) nor a constant, once each. PyTorch refuses the sizes that make
    such an output empty (a convolution's input smaller than its kernel: ``(h - 2) >= 1``), so they are none
    of the task's (:class:`Task` adds these to its constraints), and a kernel launched on nothing there is
    no finding. A caller choosing a task's instances keeps those that satisfy them."""
    seen: dict[str, ShapeExpr] = {}
    for x in steps:
        if not isinstance(x, TorchStep):
            continue
        for name in x.outputs:
            spec = tensors.get(name)
            for d in spec.shape if spec is not None else ():
                if isinstance(d, ShapeSym) or not free_symbols(d):
                    continue
                c = shape_expr(f"{d} >= 1", f"shape of {name!r}")
                seen.setdefault(str(c), c)
    return tuple(seen.values())


#: What :attr:`Task.tolerance` may set: the absolute and the relative tolerance of the comparison.
TOLERANCE_KEYS = ("atol", "rtol")


def _in_field(field_name: str, key: int | str | None, make: Callable[[], T]) -> T:
    """``make()``, its :class:`TaskError` re-raised as one about the task field ``field_name`` (its element ``key``)."""
    try:
        return make()
    except TaskFieldError:
        raise
    except TaskError as e:
        raise TaskFieldError(e.message, field_name, key) from None


def _tensor_specs(field_name: str, role: str, given: Mapping[str, object] | None) -> dict[str, TensorSpec]:
    if given is not None and not isinstance(given, Mapping):
        raise TaskFieldError(f"{field_name} must map tensor names to specs such as 'f32[n]', got {given!r}", field_name)
    out: dict[str, TensorSpec] = {}
    for k, v in (given or {}).items():
        if not isinstance(k, str) or not k.isidentifier():
            raise TaskFieldError(f"{role} names must be identifiers, got {k!r}", field_name)
        out[k] = _in_field(field_name, k, functools.partial(TensorSpec.of, v, f"{role} {k!r}"))
    return out


def _constraint(index: int, value: object) -> ShapeExpr:
    """Constraint ``index`` of a task: a condition over the symbols (``"n % 4 == 0"``), never a number."""
    if isinstance(value, bool) or not isinstance(value, str | ShapeCmp | ShapeBool | ShapeNot):
        raise TaskFieldError(
            f"constraint {value!r} is not a condition: write a comparison such as 'n <= 4096'", "constraints", index
        )
    e = _in_field("constraints", index, lambda: shape_expr(value, "constraint"))
    if not is_boolean(e):
        raise TaskFieldError(
            f"constraint {value!r} is a number, not a condition: write a comparison such as 'n <= 4096' "
            "(a nonzero number is not read as true)",
            "constraints",
            index,
        )
    return e


def _tolerance(given: Mapping[str, float] | None) -> dict[str, float]:
    """A task's tolerance: ``atol``/``rtol`` set to finite numbers >= 0."""
    import difflib

    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise TaskFieldError(
            f"tolerance must be a mapping such as {{'atol': 1e-5, 'rtol': 1e-3}}, got {given!r}", "tolerance"
        )
    out: dict[str, float] = {}
    for key, value in given.items():
        if key not in TOLERANCE_KEYS:
            close = difflib.get_close_matches(str(key), TOLERANCE_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TaskFieldError(
                f"tolerance has no setting {key!r}{hint}: it sets {' and '.join(TOLERANCE_KEYS)}", "tolerance", key
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TaskFieldError(f"tolerance {key} must be a number, got {value!r}", "tolerance", key)
        if not math.isfinite(value) or value < 0:
            raise TaskFieldError(f"tolerance {key} must be a finite number >= 0, got {value!r}", "tolerance", key)
        out[key] = float(value)
    return out


def _launch_form(
    what: str,
    launches: Sequence[KernelLaunch | TorchStep] | None,
    stored: Sequence[KernelLaunch],
    *,
    kernel: str | None,
    grid: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int | None,
    block: Sequence[ShapeExpr | str | int] | ShapeExpr | str | int | None,
    shared_bytes: ShapeExpr | str | int | None,
    bindings: Mapping[str, BindingValue] | None,
    template_args: Mapping[str, str | int] | Sequence[str | int] | None,
) -> Sequence[KernelLaunch | TorchStep]:
    """The steps of a task from the arguments of :class:`Task`: ``launches=``, or the one launch's
    fields, or (from ``dataclasses.replace``) the launches a task of several ``stored``."""
    # dataclasses.replace passes the stored form back: the empty single-launch fields of a task of several
    # launches (kernel "", grid (), shared_bytes 0) are not a second form.
    single = {
        "kernel": kernel or None,
        "grid": grid if grid != () else None,
        "block": block if block != () else None,
        "shared_bytes": shared_bytes if shared_bytes not in (0, ShapeNum(0)) else None,
        "bindings": bindings or None,
        "template_args": template_args or None,
    }
    given = [k for k, v in single.items() if v is not None]
    if launches is not None and given:
        raise TaskError(
            f"{what}: give either launches=(KernelLaunch(...), ...) or the one launch's {', '.join(given)}, not both"
        )
    if launches is not None:
        if isinstance(launches, KernelLaunch) or not isinstance(launches, Sequence):
            raise TaskError(f"{what}: launches must be a sequence of KernelLaunch, got {launches!r}")
        bad = [x for x in launches if not isinstance(x, KernelLaunch | TorchStep)]
        if bad or not launches:
            raise TaskError(
                f"{what}: launches must be one or more KernelLaunch(...) or TorchStep(...), got {bad or '()'}"
            )
        return launches
    if stored:
        if given:
            raise TaskError(f"{what} has {len(stored)} launches: change them with launches=..., not {', '.join(given)}")
        return stored
    if kernel is None or grid is None or block is None:
        missing = [k for k in ("kernel", "grid", "block") if single[k] is None]
        raise TaskError(f"{what}: no {', '.join(missing)} (nor launches=(KernelLaunch(...), ...))")
    one = KernelLaunch(
        kernel=kernel, grid=grid, block=block, shared_bytes=shared_bytes or 0, bindings=bindings,
        template_args=template_args or (),
    )  # fmt: skip
    return (one,)


class TaskFieldError(TaskError):
    """A task field with a bad value, raised by :class:`Task`: ``field`` names the keyword argument
    (``constraints``), ``key`` the element at fault (an index of a sequence, a key of a mapping), so that
    :func:`load_task` can point at it in the task file."""

    def __init__(self, message: str, field: str, key: int | str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.key = key


def _raising_span(e: BaseException, task_file: Path) -> Span | None:
    """Where the task file ``task_file`` went wrong: the field of ``Task(...)`` a :class:`TaskFieldError`
    names, else the user's statement that raised (a frame of the task file or of a file it imports)."""
    if isinstance(e, SyntaxError) and e.filename and e.lineno:  # raised by the compiler: no frame of its own
        col = max(e.offset or 1, 1)
        return Span(e.filename, e.lineno, col, e.lineno, col + 1)
    frame = user_frame(e, {str(task_file)})
    if isinstance(e, TaskFieldError):
        field_span = _field_span(task_file, e.field, e.key, frame[1] if frame else None)
        if field_span is not None:
            return field_span
    if frame is None:
        return Span(str(task_file), 1, 1, 1, 2)
    file, line = frame
    text = SourceCache.line(file, line)
    if text is None:
        with contextlib.suppress(OSError):
            SourceCache.register(file, Path(file).read_text(encoding="utf-8", errors="replace"))
            text = SourceCache.line(file, line)
    if text is None:
        return Span(file, line, 1, line, 2)
    stripped = text.rstrip()
    col = len(stripped) - len(stripped.lstrip()) + 1
    return Span(file, line, col, line, max(col + 1, len(stripped) + 1))


def _field_span(task_file: Path, field_name: str, key: int | str | None, line: int | None) -> Span | None:
    """The span of keyword ``field_name`` (its element ``key``) of the ``Task(...)`` or ``KernelLaunch(...)``
    call of ``task_file`` that covers ``line`` (the one call of either kind if ``line`` is unknown)."""
    try:
        text = task_file.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    SourceCache.register(str(task_file), text)
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else "")
        in ("Task", "KernelLaunch", "TorchStep")
    ]
    if line is not None:
        covering = [c for c in calls if c.lineno <= line <= (c.end_lineno or c.lineno)]
        calls = covering or calls
    for call in calls:
        for kw in call.keywords:
            if kw.arg != field_name:
                continue
            node: ast.expr = kw.value
            if isinstance(key, int) and isinstance(node, ast.List | ast.Tuple) and 0 <= key < len(node.elts):
                node = node.elts[key]
            elif isinstance(key, str) and isinstance(node, ast.Dict):
                keys = [k for k in node.keys if isinstance(k, ast.Constant) and k.value == key]
                if not keys:
                    continue  # another launch's bindings
                node = keys[0]
            elif key is not None:
                node = kw.value
            end_line = node.end_lineno or node.lineno
            end_col = (node.end_col_offset or node.col_offset) + 1
            if end_line != node.lineno:
                end_line, end_col = node.lineno, node.col_offset + 2
            return Span(str(task_file), node.lineno, node.col_offset + 1, end_line, end_col)
    return None


def load_task(path: str | Path) -> Task:
    """Load the task defined by a task file (``task.py``) or by the ``task.py`` of a folder.

    The file is executed as a Python module and must define ``task``. Relative ``source``,
    ``include_dirs`` and string ``reference`` paths are resolved against the file's directory.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "task.py"
    if not p.is_file():
        raise TaskError(f"no task file at {path}")
    module_name = f"larkc_task_{abs(hash(str(p.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, p)
    if spec is None or spec.loader is None:
        raise TaskError(f"cannot load task file {p}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except LarkcError as e:
        if e.span is not None:
            raise
        span = _raising_span(e, p)
        raise TaskError(e.message if span is not None else f"{p}: {e.message}", span, notes=e.notes) from None
    except InternalError:  # larkc's own (a Task's checks run inside the task file): never the file's fault
        raise
    except USER_CODE_ERRORS as e:
        raise TaskError(f"task file {describe_user_exception(e)}", _raising_span(e, p)) from None
    task = getattr(module, "task", None)
    if not isinstance(task, Task):
        raise TaskError(f"{p}: a task file must define `task = Task(...)`")
    base = p.parent
    changes: dict[str, Any] = {"task_file": p}
    if not task.source.is_absolute():
        changes["source"] = base / task.source
    if any(not d.is_absolute() for d in task.include_dirs):
        changes["include_dirs"] = tuple(base / d for d in task.include_dirs)
    if isinstance(task.reference, str) and not Path(task.reference).is_absolute():
        changes["reference"] = str(base / task.reference)
    return dataclasses.replace(task, **changes)


def command_line_task(
    source: str | Path,
    kernel: str,
    *,
    grid: Sequence[str],
    block: Sequence[str],
    buffers: Sequence[str] = (),
    scalars: Sequence[str] = (),
    shared_bytes: str = "0",
    template_args: Sequence[str] = (),
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str | Path] = (),
) -> Task:
    """A reference-free task from command-line style arguments, as GPUVerify users give them.

    ``buffers`` are ``NAME=DTYPE[SIZE, ...]`` (``x=f32[1024]``), ``scalars`` are ``NAME=VALUE`` (an
    integer or a float), ``grid``/``block`` are 1 to 3 integers, ``include_dirs`` the ``-I`` directories.
    The task has no symbols: it is one concrete launch, checked for memory safety, race freedom and
    barrier uniformity.
    """
    tensors: dict[str, object] = {}
    for b in buffers:
        name, sep, spec = b.partition("=")
        if not sep or not name.strip().isidentifier():
            raise TaskError(f"invalid --buffer {b!r}: expected NAME=DTYPE[SIZE], e.g. x=f32[1024]")
        tensors[name.strip()] = TensorSpec.of(spec, f"buffer {name.strip()!r}")
    bindings: dict[str, Binding | str | int | float] = {}
    for s in scalars:
        name, sep, value = s.partition("=")
        if not sep or not name.strip().isidentifier():
            raise TaskError(f"invalid --scalar {s!r}: expected NAME=VALUE, e.g. n=1000")
        try:
            bindings[name.strip()] = ScalarArg(int(value, 0))
        except ValueError:
            try:
                bindings[name.strip()] = ScalarArg(float(value))
            except ValueError:
                raise TaskError(f"invalid --scalar {s!r}: VALUE must be a number") from None

    def ints(values: Sequence[str], what: str) -> list[int]:
        out = []
        for v in values:
            for part in str(v).replace("x", ",").split(","):
                if part.strip():
                    try:
                        out.append(int(part))
                    except ValueError:
                        raise TaskError(f"invalid --{what} {v!r}: expected integers such as 4 or 4,2") from None
        return out

    args: list[str | int] = [int(a) if a.lstrip("-").isdigit() else a for a in template_args]
    return Task(
        source=source,
        kernel=kernel,
        grid=ints(grid, "grid"),
        block=ints(block, "block"),
        shared_bytes=int(shared_bytes),
        inputs=tensors,
        bindings=bindings,
        template_args=tuple(args),
        defines=defines,
        include_dirs=include_dirs,
    )
