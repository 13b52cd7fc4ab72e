"""A Triton kernel of a verification task, specialised for one shape instance.

A Triton task is a :class:`~larkc.tasks.Task` whose ``source`` is the kernel's ``.py`` file; its
``grid`` is the launch grid (``block`` is ignored: a program is one unit). Each parameter of the
``@triton.jit`` function binds as for CUDA kernels (a tensor, a shape expression, a scalar), and so does
each ``tl.constexpr`` parameter: an integer or shape expression (``"next_pow2(d)"``), a float or bool
scalar. A :class:`~larkc.tasks.ScalarExpr` is a float (``f32``, as Triton types a Python float), and a
parameter bound to ``None`` (:class:`~larkc.tasks.NullArg`) is the constexpr ``None``, as Triton
specialises a ``None`` argument (``if bias_ptr is not None:`` is decided when lowering); a dtype-valued
constexpr is given in ``template_args`` (``{"DTYPE": "float16"}``), and so is a string constexpr
(``{"reduction": "mean"}``: a string that names no dtype). A constexpr
of an ``@triton.autotune`` configuration or computed by ``@triton.heuristics`` needs no binding: every
configuration is a specialisation (:func:`specialisations`).

As Triton does at launch, an integer argument is ``i32`` when its value fits and ``i64`` otherwise, a
float ``f32``, a bool ``bool``; so the IR depends on the instance, and :func:`parse_triton_task` lowers
the kernel for one instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from larkc.errors import Span, TaskError
from larkc.frontends.triton import parse_triton
from larkc.frontends.triton.config import apply_heuristics, autotune_configs, heuristic_names, heuristic_shape_exprs
from larkc.frontends.triton.lower import _is_constexpr_annotation
from larkc.frontends.triton.source import SourceFile, kernel_source, read_source
from larkc.frontends.triton.values import DTYPES, ConstValue, DType
from larkc.ir.nodes import Module
from larkc.ir.types import BOOL, F32, I32, I64, AddressSpace, PointerType, Type
from larkc.tasks import BufferArg, NullArg, ScalarArg, ScalarExpr, ShapeArg, Task, evaluate
from larkc.tasks.shape_expr import ShapeExpr, ShapeNum

__all__ = ["heuristic_exprs", "parse_triton_task", "specialisations", "triton_arguments"]


def _params(src: SourceFile, kernel: str) -> tuple[list[str], list[str]]:
    """The run-time and the constexpr parameters of ``kernel``, in order."""
    fn = src.functions[kernel].node
    runtime: list[str] = []
    const: list[str] = []
    for a in fn.args.args:
        (const if _is_constexpr_annotation(a.annotation) else runtime).append(a.arg)
    return runtime, const


def _param_span(src: SourceFile, kernel: str, param: str) -> Span | None:
    """Where ``param`` of ``kernel`` is declared in its source."""
    fn = src.functions[kernel]
    for a in fn.node.args.args:
        if a.arg == param:
            return Span(fn.file, a.lineno, a.col_offset + 1, a.end_lineno or a.lineno, (a.end_col_offset or 0) + 1)
    return None


def specialisations(task: Task) -> list[dict[str, ConstValue]]:
    """The constexpr values fixed by the kernel's ``@triton.autotune`` configurations (one empty mapping
    when it is not autotuned): the task holds for each of them. Configurations that differ only in launch
    options (``num_warps``, ``num_stages``: Liger's DyT has six of each ``BLOCK_N``) lower to the same
    program, so each distinct set of constexprs is one specialisation, listed once."""
    src = kernel_source(read_source(task.source), task.kernel)
    if task.kernel not in src.functions:
        raise TaskError(f"task {task.name}: no @triton.jit function {task.kernel} in {task.source}")
    configs = autotune_configs(src, task.kernel)
    out: list[dict[str, ConstValue]] = []
    for c in configs:
        values: dict[str, ConstValue] = {}
        for k, v in c.constexprs.items():
            if not isinstance(v, bool | int | float | str):
                raise TaskError(f"task {task.name}: autotune value {k}={v!r} is not a constant")
            values[k] = v
        if values not in out:
            out.append(values)
    return out or [{}]


def triton_arguments(
    task: Task, instance: Mapping[str, int], config: Mapping[str, ConstValue] | None = None
) -> tuple[dict[str, Type], dict[str, ConstValue], dict[str, Any]]:
    """For ``instance`` (and an autotune ``config``): the IR type of each run-time parameter, the value of
    each constexpr, and the scalar value of each run-time parameter that is not a tensor."""
    src = kernel_source(read_source(task.source), task.kernel)
    if task.kernel not in src.functions:
        names = ", ".join(src.order) or "none"
        raise TaskError(f"task {task.name}: no @triton.jit function {task.kernel} in {task.source} ({names})")
    env = task.shape_env(instance)
    runtime, const = _params(src, task.kernel)
    task.check_binding_names(0, [*runtime, *const])
    dtype_args = dict(task.template_args) if isinstance(task.template_args, Mapping) else {}
    types: dict[str, Type] = {}
    scalars: dict[str, Any] = {}
    values: dict[str, ConstValue] = dict(config or {})
    for p in runtime:
        b = task.binding(p)
        match b:
            case BufferArg(name):
                types[p] = PointerType(task.tensors[name].dtype, AddressSpace.GLOBAL)
            case ShapeArg(expr):
                v = int(evaluate(expr, env))
                types[p] = I32 if -(2**31) <= v < 2**31 else I64
                scalars[p] = v
            case ScalarArg(value):
                if isinstance(value, bool):
                    types[p] = BOOL
                elif isinstance(value, int):
                    types[p] = I32 if -(2**31) <= value < 2**31 else I64
                else:
                    types[p] = F32
                scalars[p] = value
            case ScalarExpr():
                # A Python float at launch: f32 (the engines take its value from the binding, exact where
                # rational in larkc verify, as for CUDA).
                types[p] = F32
                scalars[p] = b.value(env).approx
            case NullArg():
                values[p] = None  # Triton specialises a None argument as the constexpr None
            case None:
                raise TaskError(
                    f"task {task.name}: parameter {p} of {task.kernel} has no binding (bind it in bindings=...)",
                    _param_span(src, task.kernel, p),
                )
    computed = set(heuristic_names(src, task.kernel))
    for p in const:
        if p in values:
            continue
        if p in dtype_args:
            given = dtype_args[p]
            if not isinstance(given, str):
                raise TaskError(
                    f"task {task.name}: template_args[{p!r}] must be a Triton dtype or a string, got {given!r}"
                )
            name = given.removeprefix("tl.")
            # a dtype's name is the dtype; any other string is a string constexpr (`reduction="mean"`), as
            # Triton specialises a str argument
            values[p] = DType(DTYPES[name]) if name in DTYPES else given
            continue
        b = task.binding(p)
        match b:
            case ShapeArg(expr):
                values[p] = int(evaluate(expr, env))
            case ScalarArg(value):
                values[p] = value
            case ScalarExpr():
                values[p] = b.value(env).approx  # the Python float the host passes
            case NullArg():
                values[p] = None
            case BufferArg():
                raise TaskError(f"task {task.name}: constexpr parameter {p} cannot be a tensor")
            case None if p in computed:
                pass
            case None:
                raise TaskError(
                    f"task {task.name}: constexpr parameter {p} of {task.kernel} has no binding (bind it in "
                    "bindings=..., or give it in template_args)",
                    _param_span(src, task.kernel, p),
                )
    if computed:
        all_args: dict[str, Any] = {**scalars, **values}
        for p in runtime:
            if p not in all_args:
                all_args[p] = None  # a tensor: heuristics that read it are not supported
        applied = apply_heuristics(src, task.kernel, all_args)
        for p in computed:
            hv = applied[p]
            if not isinstance(hv, bool | int | float | str):
                raise TaskError(f"task {task.name}: heuristic {p} gave {hv!r}, not a constant")
            values[p] = hv
    return types, values, scalars


def parse_triton_task(
    task: Task, instance: Mapping[str, int] | None = None, config: Mapping[str, ConstValue] | None = None
) -> Module:
    """The IR of the task's Triton kernel specialised for ``instance`` (the task's first instance by
    default) and an autotune ``config`` (the first one by default)."""
    inst = instance if instance is not None else task.instances[0]
    cfg = config if config is not None else specialisations(task)[0]
    types, values, _ = triton_arguments(task, inst, cfg)
    return parse_triton(task.source, kernel=task.kernel, params=types, constexprs=values)


def instance_independent(task: Task, instances: Sequence[Mapping[str, int]]) -> bool:
    """Whether every instance specialises the kernel the same way (one module serves them all), under
    each autotune configuration (a heuristic may read a configuration's constexprs)."""
    for config in specialisations(task):
        seen = {repr(triton_arguments(task, i, config)[:2]) for i in instances}
        if len(seen) > 1:
            return False
    return True


def heuristic_exprs(task: Task, config: Mapping[str, object] | None = None) -> dict[str, ShapeExpr]:
    """The kernel's ``@triton.heuristics`` as shape expressions over the task's symbols, under the autotune
    ``config``: ``args[name]`` of an argument bound to a shape expression is that expression, of an
    integer constexpr of the configuration or an integer scalar binding its number. Empty without
    heuristics; a heuristic outside the shape language is a located :class:`LarkcError`."""
    src = kernel_source(read_source(task.source), task.kernel)
    if not heuristic_names(src, task.kernel):
        return {}
    bound: dict[str, ShapeExpr] = {}
    for name, value in (config or {}).items():
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            bound[name] = ShapeNum(value)
    for name, b in task.bindings.items():
        match b:
            case ShapeArg(expr):
                bound[name] = expr
            case ScalarArg(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                bound[name] = ShapeNum(value)
            case _:
                pass
    return heuristic_shape_exprs(src, task.kernel, bound)
