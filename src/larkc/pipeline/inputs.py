"""The tensors and kernel arguments of one shape instance of a task.

**Inputs.** Floating tensors are standard normal, drawn in float32 and rounded to their dtype; integer
tensors are uniform in their ``TensorSpec`` value range (``"i64[n] in [0, max_pos)"``), or else in
``[0, m)`` with ``m`` the instance's smallest symbol value (integer inputs of kernels are nearly always
indices, and the smallest dimension is a bound every index respects); bools are fair coins. An input
declared ``triangular`` (``TensorSpec.triangular``) has its other triangle zero. Outputs
and scratch start as their ``TensorSpec.init`` says (``empty`` by default: unspecified bytes whose
reads are ``uninit``). The generator is fresh per instance, seeded with the seed, so an instance is
reproducible alone.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import torch

from larkc.dtypes import torch_dtype
from larkc.errors import TaskError
from larkc.ir.nodes import Cast, CastKind, Const, Decl, Function, Module, Param
from larkc.ir.types import U64, PointerType, ScalarType, VoidType, scalar_of
from larkc.ir.verify import verify_module
from larkc.semantics import GlobalBuffer, KernelArg
from larkc.tasks import (
    BufferArg,
    Distinct,
    NullArg,
    ScalarArg,
    ScalarExpr,
    ShapeArg,
    Task,
    TensorSpec,
    evaluate,
    resolve_kernel,
)

__all__ = [
    "bind_null_pointers",
    "check_float_param",
    "check_pointee",
    "init_of",
    "kernel_args",
    "kernel_function",
    "make_inputs",
    "with_preconditions",
]


def make_inputs(task: Task, env: Mapping[str, int], seed: int) -> dict[str, torch.Tensor]:
    """Every tensor of the task for one instance: inputs random, outputs and scratch per their init.

    Tensors that start ``empty`` are returned zero-filled; the simulator treats them as unspecified.
    """
    gen = torch.Generator().manual_seed(seed)
    index_bound = max(1, min(env.values(), default=1))
    out: dict[str, torch.Tensor] = {}
    distinct = {p.tensor for p in task.preconditions if isinstance(p, Distinct)}
    for name, spec in task.tensors.items():
        shape = spec.concrete_shape(dict(env))
        if any(d < 0 for d in shape):
            raise TaskError(f"task {task.name}: tensor {name} has a negative size {shape} at {dict(env)}")
        dtype = torch_dtype(spec.dtype)
        init = init_of(task, name, spec)
        if init == "random":
            if dtype.is_floating_point:
                t = torch.randn(shape, generator=gen, dtype=torch.float32).to(dtype)
            elif dtype == torch.bool:
                t = torch.randint(0, 2, shape, generator=gen).to(torch.bool)
            elif name in distinct:
                t = distinct_values(spec, env, shape, gen).to(dtype)
            else:
                low, high = spec.value_range(dict(env)) or (0, index_bound)
                t = torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(dtype)
        else:
            t = torch.zeros(shape, dtype=dtype)
        if init == "random":
            t = with_preconditions(spec, t)
        out[name] = t
    return out


def distinct_values(
    spec: TensorSpec, env: Mapping[str, int], shape: tuple[int, ...], gen: torch.Generator
) -> torch.Tensor:
    """Pairwise distinct int64 values of ``shape`` for an input under a ``distinct(...)`` precondition: a
    random permutation of its value range ``[low, high)`` (of ``[0, n)`` without one, ``n`` its entry
    count), its first ``n`` entries. The task checked that the range has room for them."""
    count = math.prod(shape)
    low, high = spec.value_range(dict(env)) or (0, count)
    if high - low <= max(4 * count, 1 << 20):
        return (low + torch.randperm(high - low, generator=gen)[:count]).reshape(shape)
    chosen: dict[int, None] = {}  # a range far wider than the tensor: draw until enough distinct values
    while len(chosen) < count:
        for v in torch.randint(low, high, (2 * count,), generator=gen, dtype=torch.int64).tolist():
            chosen.setdefault(v, None)
    return torch.tensor(list(chosen)[:count], dtype=torch.int64).reshape(shape)


def with_preconditions(spec: TensorSpec, t: torch.Tensor) -> torch.Tensor:
    """``t`` made to satisfy the structural precondition of the input ``spec`` declares: the other
    triangle of a ``triangular`` one zero."""
    tri = spec.triangular
    if tri is None or t.dim() < 2:
        return t
    return torch.tril(t, tri.diagonal) if tri.side == "lower" else torch.triu(t, tri.diagonal)


def init_of(task: Task, name: str, spec: TensorSpec) -> str:
    """How tensor ``name`` starts: its ``init``, else ``random`` for an input and ``empty`` otherwise."""
    if spec.init is not None:
        return spec.init
    return "random" if name in task.inputs else "empty"


def kernel_function(task: Task, module: Module, launch: int = 0) -> Function:
    """The kernel of ``module`` that launch ``launch`` of ``task`` names (:func:`~larkc.tasks.resolve_kernel`:
    ``act`` finds ``vllm::act<float, 128>``)."""
    try:
        f = resolve_kernel(module, task.launches[launch].kernel, str(task.source))
    except TaskError as e:
        raise TaskError(f"task {task.name}: {e.message}") from None
    if task.language == "cuda":  # a Triton kernel's constexprs are gone from f: checked by its frontend
        task.check_binding_names(launch, [p.name for p in f.params] + _null_bound(f))
    return f


def _null_bound(f: Function) -> list[str]:
    """The parameters :func:`bind_null_pointers` made locals of ``f`` (its leading null pointer decls)."""
    names = []
    for s in f.body:
        if not (
            isinstance(s, Decl)
            and isinstance(s.type, PointerType)
            and isinstance(s.init, Cast)
            and s.init.kind is CastKind.BITCAST
            and isinstance(s.init.operand, Const)
            and s.init.operand.value == 0
        ):
            break
        names.append(s.name)
    return names


def kernel_args(
    task: Task,
    f: Function,
    tensors: Mapping[str, torch.Tensor],
    env: Mapping[str, int],
    *,
    launch: int = 0,
    initialised: Mapping[str, bool | torch.Tensor] | None = None,
) -> dict[str, KernelArg]:
    """The argument of every kernel parameter of launch ``launch``, from the task's bindings.

    ``initialised`` says which buffers hold defined contents (default: those whose ``init`` is not
    ``empty``), per buffer or per element (a bool mask of its shape); a later launch of a task passes
    what the earlier ones wrote.
    """
    args: dict[str, KernelArg] = {}
    for p in f.params:
        b = task.binding(p.name, launch)
        match b:
            case BufferArg():
                spec = task.tensors[b.name]
                check_pointee(task, p, b.name, spec)
                init = initialised[b.name] if initialised is not None else init_of(task, b.name, spec) != "empty"
                args[p.name] = GlobalBuffer(b.name, tensors[b.name], spec.dtype, init)
            case ShapeArg():
                args[p.name] = int(evaluate(b.expr, dict(env)))
            case ScalarArg():
                args[p.name] = b.value
            case ScalarExpr():
                check_float_param(task, p, b)
                args[p.name] = b.value(dict(env)).approx
            case NullArg():
                raise TaskError(
                    f"task {task.name}: kernel parameter {p.name} is bound to the null pointer: the kernel "
                    f"takes it through bind_null_pointers, not as an argument",
                    p.span,
                )
            case None:
                raise TaskError(
                    f"task {task.name}: kernel parameter {p.name} has no binding (name a tensor or symbol "
                    f"{p.name}, or bind it in bindings=...)"
                )
    return args


def check_pointee(task: Task, p: Param, tensor: str, spec: TensorSpec) -> None:
    """A pointer parameter must point to the tensor's element type (or view it as bytes or as a vector).

    Integer types of one width may alias (``int`` data through ``unsigned*``), as C allows.
    """
    t = p.type
    if not isinstance(t, PointerType):
        raise TaskError(f"task {task.name}: parameter {p.name} of type {t} is bound to tensor {tensor}", p.span)
    elem = scalar_of(t.pointee) if not isinstance(t.pointee, VoidType | PointerType) else None
    if elem is None or elem == spec.dtype or elem.size == 1:
        return
    if elem.is_int and spec.dtype.is_int and elem.size == spec.dtype.size:
        return
    raise TaskError(
        f"task {task.name}: kernel parameter {p.name} points to {elem} but tensor {tensor} is {spec.dtype}", p.span
    )


def bind_null_pointers(task: Task, module: Module, f: Function, launch: int = 0) -> tuple[Module, Function]:
    """The kernel ``f`` with its parameters bound to :class:`~larkc.tasks.NullArg` made null pointers.

    The engines take buffers and scalars as kernel arguments, not null pointers, so each such parameter
    becomes a local of its own type initialised to the null pointer (address 0, as ``nullptr`` is
    lowered) at the top of the body: ``if (bias != nullptr)`` takes the other branch, and a dereference
    is an access outside every buffer. Returns the module with the kernel replaced, and the kernel.
    """
    nulls = [p for p in f.params if isinstance(task.binding(p.name, launch), NullArg)]
    if not nulls:
        return module, f
    for p in nulls:
        if not isinstance(p.type, PointerType):
            raise TaskError(f"task {task.name}: kernel parameter {p.name} of type {p.type} is bound to None", p.span)
    decls = tuple(
        Decl(p.name, p.type, Cast(Const(0, U64, p.span), p.type, CastKind.BITCAST, p.span), p.span) for p in nulls
    )
    g = dataclasses.replace(f, params=tuple(p for p in f.params if p not in nulls), body=(*decls, *f.body))
    new = Module(tuple(g if h is f else h for h in module.functions), module.span)
    verify_module(new)
    return new, g


def check_float_param(task: Task, p: Param, b: ScalarExpr) -> None:
    """A computed scalar binds a floating-point parameter (an integer one takes a shape expression)."""
    if not (isinstance(p.type, ScalarType) and p.type.is_float):
        raise TaskError(
            f"task {task.name}: kernel parameter {p.name} of type {p.type} is bound to the scalar expression "
            f"{b.text!r}: bind a float parameter (an integer one takes a shape expression)",
            p.span,
        )
