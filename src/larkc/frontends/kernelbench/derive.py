"""A verification task derived from a ``ModelNew`` file and its problem's inputs (see ``docs/kernelbench.md``).

:func:`derive_task` reads ``ModelNew`` (:mod:`.candidate`), writes the CUDA text of its extension to a
file whose line numbers are those of ``model_new.py`` (so that every diagnosis of the kernel names the
line of ``model_new.py`` it stands on), evaluates the host function ``forward`` calls (:mod:`.host`) on
the problem's inputs with their sizes as symbols, and builds the :class:`~larkc.tasks.Task`: the launch
and bindings the host code computes, its allocations as outputs and scratch, and shape instances around
the problem's shape, small enough to simulate, including sizes that are no multiple of a block size.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import tree_sitter as ts
import tree_sitter_cuda

from larkc.errors import LarkcError, SourceCache, Span, Stage, UnsupportedError
from larkc.frontends.cuda.preprocess import preprocess
from larkc.frontends.kernelbench.candidate import (
    Allocation,
    CallResult,
    CudaText,
    EmptyTensor,
    ForwardCall,
    NamedInt,
    ParamRef,
    SizeArg,
    Step,
    TorchOp,
    View,
    read_get_inputs,
    read_model_new,
)
from larkc.frontends.kernelbench.host import (
    HostLaunch,
    HostResult,
    HostTensor,
    Threshold,
    _declarator_name,
    _function_definitions,
    clamp_instances,
    evaluate_host,
    host_function,
    kernel_thresholds,
    show,
)
from larkc.frontends.kernelbench.params import (
    ModuleParam,
    Opaque,
    Size,
    group_norms,
    init_sizes,
    module_buffers,
    module_params,
)
from larkc.frontends.kernelbench.triton_candidate import is_triton_candidate, triton_candidate_task
from larkc.ir.types import ScalarType
from larkc.reference.spec import SpecGraph
from larkc.tasks import (
    BufferArg,
    KernelLaunch,
    NullArg,
    ScalarArg,
    ScalarExpr,
    ShapeArg,
    Task,
    TensorSpec,
    load_task,
    parse_dtype,
)
from larkc.tasks.input_facts import InputFacts
from larkc.tasks.shape_expr import ArithOp, CmpOp, ShapeArith, ShapeCmp, ShapeExpr, ShapeNum, ShapeSym, evaluate

__all__ = [
    "MAX_ELEMENTS",
    "DerivedCandidate",
    "ProblemInput",
    "ProblemParam",
    "cache_root",
    "derive_task",
    "task_file_text",
]

#: The most elements any tensor of a derived shape instance has: the problem's shape is scaled down
#: to this so that ``larkc run`` and ``larkc verify`` take seconds.
MAX_ELEMENTS = 1024
#: The least a size is scaled down to (a batch of 16 rows stays several rows).
_FLOOR = 4
#: The most elements a tensor of an instance past a launch's clamp may have (it is simulated and proved).
_CLAMP_ELEMENTS = 1 << 16

#: The empty kernel a task runs for a host function that launches none (its outputs stay unwritten).
_NO_LAUNCH = "larkc_no_launch"

#: an optional tensor parameter (a bias): given a tensor, its has_value() is true; given None, false
_OPTIONAL_TENSOR_TYPES = frozenset(
    {f"{ns}optional<{t}>" for ns in ("c10::", "torch::", "std::", "at::") for t in ("torch::Tensor", "at::Tensor")}
)
_TENSOR_TYPES = frozenset({"torch::Tensor", "at::Tensor", "Tensor"}) | _OPTIONAL_TENSOR_TYPES
#: a list of integers (``stride``), as pybind11 converts a Python list or tuple of ints
_INT_LIST_TYPES = frozenset(
    {f"{ns}IntArrayRef" for ns in ("", "torch::", "at::", "c10::")}
    | {f"std::vector<{t}>" for t in ("int", "int64_t", "long", "int32_t")}
)
#: integer parameters a size forward computes may be passed as
_INT_TYPES = frozenset({"int", "int64_t", "long", "int32_t", "size_t", "unsigned int", "long long", "unsigned"})


@dataclass(frozen=True, slots=True)
class ProblemInput:
    """One value ``get_inputs()`` returns: the reference parameter it is for, and for a tensor its
    shape and element type (``"f32"``); for anything else its value."""

    name: str
    shape: tuple[int, ...] | None
    dtype: str | None
    value: object = None
    facts: InputFacts | None = None  # the preconditions get_inputs() puts on it (tril, randint, ...)


@dataclass(frozen=True, slots=True)
class ProblemParam:
    """One parameter of the problem's ``Model`` as constructed: its path (``linear.weight``), shape and
    element type (``"f32"``), in creation order."""

    path: str
    shape: tuple[int, ...]
    dtype: str


@dataclass
class DerivedCandidate:
    """The task derived for a ``ModelNew`` file, the CUDA file written for it, and whether that file's
    line numbers are the candidate's (``aligned``)."""

    task: Task
    model_new: Path
    cuda_file: Path
    aligned: bool
    given: dict[str, int] = field(default_factory=dict)
    functions: dict[str, str] = field(default_factory=dict)  # the PyTorch steps' functions: name -> Python text


@cache
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tree_sitter_cuda.language()))


def _cuda_file_text(texts: Sequence[CudaText]) -> tuple[str, bool]:
    """The CUDA texts joined, each placed at its line and column of the candidate when all can be."""
    lines: list[str] = [""]
    aligned = True
    for t in texts:
        if aligned and t.line is not None and t.col is not None and t.line >= len(lines) and lines[-1] == "":
            lines.extend("" for _ in range(t.line - len(lines)))
            lines[-1] = " " * (t.col - 1)
        else:
            aligned = False
            lines.append("")
        parts = t.text.split("\n")
        lines[-1] += parts[0]
        lines.extend(parts[1:])
    if not aligned:
        return "\n".join(t.text for t in texts), False
    return "\n".join(lines), True


def cache_root() -> Path:
    """larkc's cache folder: ``$LARKC_CACHE_DIR``, else ``$XDG_CACHE_HOME/larkc``, else ``~/.cache/larkc``."""
    if os.environ.get("LARKC_CACHE_DIR"):
        return Path(os.environ["LARKC_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "larkc"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _symbol_names(problem: Sequence[ProblemInput], reference: Path) -> list[list[str | int]]:
    """A symbol per dimension of each tensor input: the name ``get_inputs()`` sizes it with where there is
    one (one name, one symbol, also under wrapping calls: ``torch.tril(torch.rand(n, n))`` is ``[n, n]``),
    else ``<input>_d<k>``; a size written as a literal (``torch.randn(K, 1)``) or of 1 stays that constant."""
    read = read_get_inputs(reference)
    taken = {p.name for p in problem}
    value_of: dict[str, int] = {}
    out: list[list[str | int]] = []
    for i, p in enumerate(problem):  # read_get_inputs has an entry per returned value, tensor or not
        if p.shape is None:
            continue
        named = read[i].dims if i < len(read) and len(read) == len(problem) else ()
        names = named if len(named) == len(p.shape) else (None,) * len(p.shape)
        dims: list[str | int] = []
        for k, (n, v) in enumerate(zip(names, p.shape, strict=True)):
            if v == 1 or (isinstance(n, int) and n == v):
                dims.append(v)
                continue
            sym = n if isinstance(n, str) and n.isidentifier() and n not in taken else f"{p.name}_d{k}"
            if value_of.setdefault(sym, v) != v:
                sym = f"{p.name}_d{k}"
                value_of[sym] = v
            dims.append(sym)
        out.append(dims)
    return out


def _preconditions(
    problem: Sequence[ProblemInput], reference: Path, given: Mapping[str, int]
) -> dict[str, dict[str, Any]]:
    """The preconditions ``get_inputs()`` puts on each tensor input, as fields of its ``TensorSpec``: an
    integer range (``low``/``high``, :func:`_value_range`) and a zero triangle (``triangular``)."""
    read = read_get_inputs(reference)
    out: dict[str, dict[str, Any]] = {}
    for i, p in enumerate(problem):
        if p.shape is None or p.facts is None:
            continue
        fields: dict[str, Any] = {}
        high_name = read[i].high if i < len(read) and len(read) == len(problem) else None
        r = _value_range(p, high_name, given)
        if r is not None:
            fields["low"], fields["high"] = r
        triangular = p.facts.triangular()
        if triangular is not None and len(p.shape) >= 2:
            fields["triangular"] = triangular
        if fields:
            out[p.name] = fields
    return out


def _value_range(
    p: ProblemInput, high_name: str | None, given: Mapping[str, int]
) -> tuple[ShapeExpr, ShapeExpr] | None:
    """The ``[low, high)`` range of an integer input's values that ``get_inputs()`` draws it in
    (``torch.randint(0, c, ...)``): ``high`` the symbol of the same name and value where a dimension has
    one (the class count that is also a size, so that scaled-down instances keep targets in range), else
    the constant."""
    r = p.facts.int_range() if p.facts is not None else None
    if r is None or p.dtype is None or not p.dtype.startswith(("i", "u")):
        return None
    lo, hi = r
    if high_name is not None and given.get(high_name) == hi:
        return ShapeNum(lo), ShapeSym(high_name)
    return ShapeNum(lo), ShapeNum(hi)


def _instances(
    given: dict[str, int],
    tensors: Sequence[tuple[ShapeExpr, ...]],
    constraints: Sequence[ShapeExpr],
    multiples: Mapping[str, int] | None = None,
) -> list[dict[str, int]]:
    """The problem's shape if small, the shape scaled down to :data:`MAX_ELEMENTS` per tensor, one with
    every size one more (no multiple of a power of two), and one three quarters of it less one. A size
    that must stay a multiple of ``multiples[s]`` (a group norm's channels of its groups: PyTorch refuses
    others) is rounded to one: up in the scaled shape, one multiple more in the next, down in the last."""

    def largest(inst: dict[str, int]) -> int:
        out = 1
        for shape in tensors:
            n = 1
            for d in shape:
                n *= int(evaluate(d, inst))
            out = max(out, n)
        return out

    # every size divided by one power of two (ratios kept: M != N stays so; powers of two stay so), none below 4
    factor = 1
    scaled = dict(given)
    while largest(scaled) > MAX_ELEMENTS and factor < 1e9:
        factor *= 2
        scaled = {s: max(min(v, _FLOOR), math.ceil(v / factor)) for s, v in given.items()}
    # scaled less where the constraints need larger sizes (a 9x9 window needs a width of 9 or more)
    while factor > 1 and not all(evaluate(k, scaled) for k in constraints):
        factor //= 2
        scaled = {s: max(min(v, _FLOOR), math.ceil(v / factor)) for s, v in given.items()}
    groups = {s: m for s, m in (multiples or {}).items() if s in given and m > 1}
    # at least two channels per group where the problem has them: torch specialises a size of 1 (C // G)
    # when it traces the reference, which then holds at that instance only
    least = {s: 2 * m if given[s] >= 2 * m else m for s, m in groups.items()}
    scaled = {s: max(least[s], -(-v // groups[s]) * groups[s]) if s in groups else v for s, v in scaled.items()}
    smaller = {s: max(1, v * 3 // 4 - 1) for s, v in scaled.items()}
    candidates = [
        dict(given) if largest(given) <= MAX_ELEMENTS else None,
        scaled,
        {s: v + groups.get(s, 1) for s, v in scaled.items()},
        {s: max(least[s], v // groups[s] * groups[s]) if s in groups else v for s, v in smaller.items()},
    ]
    out: list[dict[str, int]] = []
    for c in candidates:
        if c is None or c in out:
            continue
        if all(evaluate(k, c) for k in constraints):
            out.append(c)
    return out


def derive_task(
    model_new: str | Path,
    reference: str | Path,
    problem: Sequence[ProblemInput],
    *,
    init_args: Sequence[object] = (),
    cuda_file: str | Path | None = None,
    params: Sequence[ProblemParam] = (),
    tracer: Tracer | None = None,
) -> DerivedCandidate:
    """The task verifying ``model_new``'s ``ModelNew`` against the problem file ``reference``.

    ``problem`` describes what the problem's ``get_inputs()`` returns, ``init_args`` its
    ``get_init_inputs()``, ``params`` the parameters of its ``Model`` (which become the task's
    ``params``: inputs the reference takes for its own parameters). The CUDA text is written to
    ``cuda_file``; by default to a file of larkc's
    cache (``$LARKC_CACHE_DIR`` or ``~/.cache/larkc``), beside the task written as a task file, from
    which the returned task is loaded (so that replay files of its runs can name it). Raises a located
    :class:`LarkcError` for what cannot be derived.
    """
    path = Path(model_new)
    ref_path = Path(reference)
    try:
        source_text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LarkcError(f"cannot read {path}: {e}", stage=Stage.FRONTEND) from None
    if is_triton_candidate(source_text):
        return _triton(path, ref_path, problem, init_args, params)
    kinds = [(len(p.shape), p.dtype or "f32") for p in problem if p.shape is not None]
    candidate = read_model_new(path, _named_ints(init_args, init_sizes(ref_path)), kinds)
    if not candidate.steps:
        raise LarkcError("ModelNew.forward calls no CUDA function", stage=Stage.FRONTEND)
    # several extensions: their CUDA texts joined in one file, each at its own lines of the candidate (a
    # forward of PyTorch steps alone, not a kernel, has the file's extensions as its source)
    used = list(dict.fromkeys(c.extension for c in candidate.calls)) or candidate.extensions
    call_span = candidate.calls[0].span if candidate.calls else candidate.steps[0].span
    texts = sorted((t for e in used for t in e.cuda), key=lambda t: (t.line is None, t.line or 0))
    text, aligned = _cuda_file_text(texts)
    digest = hashlib.sha256(f"{path.resolve()}\0{ref_path.resolve()}\0{text}".encode()).hexdigest()[:16]
    target = Path(cuda_file) if cuda_file is not None else cache_root() / "kernelbench" / digest / f"{path.stem}.cu"
    _write(target, text)
    file_name = str(path) if aligned else str(target)
    pp = preprocess(text, file_name)
    if aligned:  # the preprocessor registered the CUDA lines under the candidate's name: put its text back
        SourceCache.register(str(path), path.read_text(encoding="utf-8"))
    else:
        SourceCache.register(str(target), text)
    tree = _parser().parse(pp.text.encode())

    def span(node: ts.Node) -> Span:
        start = (node.start_point.row, node.start_point.column)
        end = (node.end_point.row, node.end_point.column)
        return pp.source_map.span_of_points(start, end)

    symbols = _symbol_names(problem, ref_path)
    tensors = [p for p in problem if p.shape is not None]
    if len(tensors) != len(problem):
        extra = next(p for p in problem if p.shape is None)
        raise LarkcError(
            f"get_inputs() returns a non-tensor value for {extra.name} ({extra.value!r}): not supported yet",
            Span(str(ref_path), 1, 1, 1, 2),
            stage=Stage.FRONTEND,
        )
    host_inputs = {
        p.name: HostTensor(
            p.name, tuple(ShapeNum(d) if isinstance(d, int) else ShapeSym(d) for d in dims), p.dtype or "f32"
        )
        for p, dims in zip(tensors, symbols, strict=True)
    }
    given = {
        s: v
        for p, dims in zip(tensors, symbols, strict=True)
        for s, v in zip(dims, p.shape or (), strict=True)
        if isinstance(s, str)
    }
    preconditions = _preconditions(problem, ref_path, given)
    if len(used) > 1:
        _check_one_definition(tree.root_node, candidate.calls, span)
    weights, weight_paths, by_path, findings, transposed = _weights(
        path, ref_path, candidate.steps, params, init_args, given, host_inputs
    )
    multiples = _group_multiples(path, ref_path, init_args, given)
    parameters = {k: weights[v] for k, v in by_path.items()}
    result = HostResult()
    program: list[HostLaunch | _PyTorchStep] = []  # the launches and PyTorch steps, in order
    for k, read in enumerate(sorted(transposed)):
        # ModelNew's (out, in, k...) weight standing for a transposed convolution's (in, out, k...): the
        # kernel reads Model's weight with dims 0 and 1 swapped, a row-major copy PyTorch would make
        span_of = next(
            a.span for c in candidate.steps for a in c.arguments if isinstance(a, ParamRef) and a.path == read
        )
        op = TorchOp(
            ("w",),
            (ParamRef(read, span_of),),
            "w.transpose(0, 1).contiguous()",
            f"Model's {weight_paths[by_path[read]]} with dims 0 and 1 swapped (ModelNew's {read})",
            span_of,
        )
        swap, outs, assumptions = _pytorch_step(
            op, len(candidate.steps) + k, [parameters[read]], given, host_inputs, weights, tracer, multiples
        )
        result.allocated[outs[0].name] = (outs[0], "empty")
        result.variables[outs[0].name] = outs[0].name
        result.constraints += assumptions
        parameters[read] = outs[0]
        program.append(swap)
    allocated: dict[str, HostTensor] = {}  # tensors forward allocates, by local name
    for a in (a for c in candidate.steps for a in c.arguments):
        if isinstance(a, Allocation) and a.name not in allocated:
            index = list(candidate.params).index(a.like)
            like = host_inputs[[p.name for p in problem][index]]
            allocated[a.name] = HostTensor(f"forward_{a.name}", like.shape, like.dtype)
            result.allocated[f"forward_{a.name}"] = (allocated[a.name], a.init)
            result.variables[f"forward_{a.name}"] = a.name
        elif isinstance(a, EmptyTensor) and _empty_key(a) not in allocated:
            # a buffer of no elements (an absent bias): nothing to read or write in it
            allocated[_empty_key(a)] = HostTensor(f"forward_{_empty_key(a)}", (ShapeNum(0),), a.dtype)
            result.allocated[f"forward_{_empty_key(a)}"] = (allocated[_empty_key(a)], "empty")
            result.variables[f"forward_{_empty_key(a)}"] = _empty_key(a)
    values: dict[int, list[HostTensor]] = {}  # each step's results
    fn: ts.Node | None = None
    ordinal = 0
    for i, step in enumerate(candidate.steps):
        if isinstance(step, TorchOp):
            inputs = [
                _tensor_of(
                    a,
                    step.span,
                    candidate.params,
                    [p.name for p in problem],
                    host_inputs,
                    values,
                    allocated,
                    parameters,
                )
                for a in step.arguments
            ]
            torch_step, outs, assumptions = _pytorch_step(
                step, i, inputs, given, host_inputs, weights, tracer, multiples
            )
            for t in outs:
                result.allocated[t.name] = (t, "empty")
                result.variables[t.name] = t.name
            result.constraints += assumptions
            values[i] = outs
            program.append(torch_step)
            continue
        c = step
        found = host_function(tree.root_node, c.function)
        if found is None:
            raise LarkcError(
                f"{c.function} is not defined in the CUDA source of {c.extension.variable}",
                c.span,
                stage=Stage.FRONTEND,
            )
        fn, params_of = found
        arguments = _host_arguments(
            c, candidate.params, [p.name for p in problem], params_of, host_inputs, values, allocated, parameters, given
        )
        prefix = f"c{ordinal}_" if len(candidate.calls) > 1 else ""
        ordinal += 1
        owned = frozenset(t.name for t in allocated.values())
        one = evaluate_host(tree.root_node, fn, span, arguments, prefix=prefix, given=given, owned=owned)
        result.launches += one.launches
        program += one.launches
        result.allocated.update(one.allocated)
        result.variables.update(one.variables)
        result.constraints += one.constraints
        values[i] = list(one.returned)
    if tracer is not None:  # sizes the reference runs at: what PyTorch computes there is not empty
        # (a 9x9 convolution of a 5x5 image: no size of the problem, for PyTorch steps and kernels alike)
        result.constraints += _reference_sizes(
            ref_path, init_args, host_inputs, weights, weight_paths, given, tracer, multiples
        )
    result.constraints += _divisible(multiples)
    if candidate.returns is not None:
        result.returned = [allocated[candidate.returns.name]]
    elif isinstance(candidate.result, CallResult):
        result.returned = values[candidate.result.index]
    if not result.returned:
        raise LarkcError("ModelNew.forward returns no tensor a CUDA call computed", call_span, stage=Stage.FRONTEND)
    if candidate.result_like is not None:  # r.view_as(x): the result with the input's shape
        like = host_inputs[[p.name for p in problem][list(candidate.params).index(candidate.result_like)]]
        if len(result.returned) != 1:
            raise LarkcError("view_as of several results", call_span, stage=Stage.FRONTEND)
        r = result.returned[0]
        result.returned = [HostTensor(r.name, like.shape, r.dtype)]
    if not result.launches and fn is not None:  # returns what it allocated, unwritten: an empty kernel launches
        called = candidate.calls[-1].function
        text += f"\n\n// written by larkc: {called} launches no kernel\n__global__ void {_NO_LAUNCH}() {{}}\n"
        _write(target, text)
        single = (ShapeNum(1),)
        empty = HostLaunch(_NO_LAUNCH, (), single, single, ShapeNum(0), {}, span(fn))
        result.launches.append(empty)
        program.append(empty)
    where = span(fn) if fn is not None else call_span
    task = _task(
        path,
        ref_path,
        target,
        {**host_inputs, **weights},
        result,
        given,
        where,
        weight_paths,
        program,
        preconditions,
        kernel_thresholds(tree.root_node, result.launches),
        multiples,
    )
    task = dataclasses.replace(task, findings=tuple(findings))
    functions = {x.name: x.text for x in program if isinstance(x, _PyTorchStep)}
    derived = DerivedCandidate(task, path, target, aligned, given, functions)
    if cuda_file is None:
        # the task as a task file beside the CUDA file, and the task loaded from it: a replay file of a
        # failing run names it, so that `larkc run --replay` finds the task again
        task_file = target.parent / "task.py"
        _write(task_file, task_file_text(derived, task_file))
        derived.task = load_task(task_file)
    return derived


@dataclass(frozen=True, slots=True)
class _PyTorchStep:
    """A step of the task left to PyTorch, before its tensors are named: the function (``name``, the
    Python text defining it, and it compiled), the host tensors it reads and writes, and its label."""

    name: str
    text: str
    function: Callable[..., Any]
    inputs: tuple[HostTensor, ...]
    outputs: tuple[HostTensor, ...]
    label: str
    span: Span


def _step_text(op: TorchOp, name: str) -> str:
    """The Python function of a PyTorch step: ``def _step0(x, conv_weight, conv_bias): return ...``."""
    return f"def {name}({', '.join(op.parameters)}):\n    return {op.expression}\n"


def _compile_step(text: str, name: str, span: Span) -> Callable[..., Any]:
    import math

    import torch

    scope: dict[str, Any] = {"torch": torch, "math": math}
    try:
        exec(compile(text, f"<larkc step {name}>", "exec"), scope)  # text larkc wrote from the candidate's AST
    except SyntaxError as e:
        raise LarkcError(f"PyTorch step {name} is not valid Python: {e.msg}", span, stage=Stage.FRONTEND) from None
    fn = scope[name]
    assert callable(fn)
    return fn  # type: ignore[no-any-return]


def _pytorch_step(
    op: TorchOp,
    index: int,
    inputs: Sequence[HostTensor],
    given: Mapping[str, int],
    host_inputs: Mapping[str, HostTensor],
    weights: Mapping[str, HostTensor],
    tracer: Tracer | None,
    multiples: Mapping[str, int] | None = None,
) -> tuple[_PyTorchStep, list[HostTensor], list[ShapeExpr]]:
    """The PyTorch step computing ``op`` and its results, with their shapes as the reference stage's
    tracer infers them (exact shape expressions over the task's symbols: ``(h + 2 - k) // 1 + 1`` for a
    convolution), and the conditions the tracer found the shapes to rest on (``h >= k``)."""
    trace_reference = _need(tracer, op)
    name = f"_step{index}"
    text = _step_text(op, name)
    fn = _compile_step(text, name, op.span)
    specs = {p: TensorSpec(t.shape, _dtype(t.dtype)) for p, t in zip(op.parameters, inputs, strict=True)}
    shapes = [t.shape for t in (*host_inputs.values(), *weights.values(), *inputs)]
    # example sizes to trace with: a scaled-down instance (small real tensors), its sizes made distinct
    # upwards (torch gives equal example sizes one symbol), then the problem's own sizes if small enough
    tries = [_distinct(i, multiples) for i in _instances(dict(given), shapes, [], multiples)[:2]]
    if all(math.prod([int(evaluate(d, dict(given))) for d in shape]) <= 1 << 22 for shape in shapes):
        tries.append(_distinct(given, multiples))
    error: LarkcError | None = None
    for example in dict.fromkeys(tuple(sorted(t.items())) for t in tries):
        try:
            graph = trace_reference(
                fn,
                specs,
                symbols=list(given),
                example_shapes=dict(example),
                name=name,
                constraints=_divisible(multiples),
            )
            break
        except LarkcError as e:
            error = e
    else:
        assert error is not None
        raise LarkcError(
            f"cannot trace the PyTorch step {op.label}: {error.message}", op.span, stage=Stage.FRONTEND
        ) from None
    types = graph.types()
    outs: list[HostTensor] = []
    for k, o in enumerate(graph.outputs):
        t = types[o]
        out_name = f"torch{index}" if len(graph.outputs) == 1 else f"torch{index}_{k}"
        outs.append(HostTensor(out_name, tuple(t.shape), str(t.dtype)))
    step = _PyTorchStep(name, text, fn, tuple(inputs), tuple(outs), op.label, op.span)
    # every size is at least 1 (PyTorch refuses a convolution whose output would be empty): the sizes
    # a result's shape expressions allow (h - 2 >= 1 for a 3x3 convolution) bound the instances and the
    # parametric proofs as a TORCH_CHECK of the host code does
    return step, outs, [*graph.assumptions, *_nonempty([t.shape for t in outs])]


#: The reference stage's tracer (``larkc.reference.trace_reference``), which the pipeline hands to
#: :func:`derive_task`: a frontend imports no other stage, and PyTorch steps are traced as the reference is.
Tracer = Callable[..., SpecGraph]


def _need(tracer: Tracer | None, op: TorchOp) -> Tracer:
    if tracer is None:
        raise LarkcError(
            f"the PyTorch step {op.label} needs the reference stage's tracer (derive_task(..., tracer=...))",
            op.span,
            stage=Stage.FRONTEND,
        )
    return tracer


def _nonempty(shapes: Sequence[Sequence[ShapeExpr]]) -> list[ShapeExpr]:
    """``d >= 1`` for each computed size ``d`` of ``shapes`` (symbols are at least 1 already)."""
    out = [
        ShapeCmp(CmpOp.GE, d, ShapeNum(1)) for shape in shapes for d in shape if not isinstance(d, ShapeNum | ShapeSym)
    ]
    return list(dict.fromkeys(out))


def _reference_sizes(
    reference: Path,
    init_args: Sequence[object],
    inputs: Mapping[str, HostTensor],
    weights: Mapping[str, HostTensor],
    paths: Mapping[str, str],
    given: Mapping[str, int],
    trace_reference: Tracer,
    multiples: Mapping[str, int] | None = None,
) -> list[ShapeExpr]:
    """The sizes at which ``Model``'s forward computes no empty tensor (PyTorch refuses pooling or a
    convolution of an empty result: ``AvgPool2d(2)`` of a 1x1 image): ``d >= 1`` for every size the
    reference stage's trace computes. A candidate's PyTorch steps and kernels are checked at those sizes
    only, as the problem is; where the reference cannot be traced here, nothing (verify reports it)."""
    specs = {k: TensorSpec(t.shape, _dtype(t.dtype)) for k, t in {**inputs, **weights}.items()}
    shapes = [t.shape for t in (*inputs.values(), *weights.values())]
    for example in [_distinct(i, multiples) for i in _instances(dict(given), shapes, [], multiples)[:2]]:
        try:
            graph = trace_reference(
                str(reference),
                specs,
                symbols=list(given),
                init_inputs=list(init_args),
                example_shapes=example,
                param_inputs=dict(paths),
                constraints=_divisible(multiples),
            )
        except LarkcError:
            continue
        return [*graph.assumptions, *_nonempty([n.type.shape for n in graph.nodes])]
    return []


def _divisible(multiples: Mapping[str, int] | None) -> list[ShapeExpr]:
    """``s % m == 0`` for each size ``s`` that must stay a multiple of ``m`` (a group norm's channels of
    its groups): a task constraint, and what the tracer must know to reshape ``C`` into ``G x C // G``
    (a group norm, or a step's ``x.view(b, groups, -1)``) without a remainder."""
    return [
        ShapeCmp(CmpOp.EQ, ShapeArith(ArithOp.MOD, ShapeSym(s), ShapeNum(m)), ShapeNum(0))
        for s, m in (multiples or {}).items()
    ]


def _named_ints(init_args: Sequence[object], named: Sequence[object] | None) -> list[object]:
    """``get_init_inputs()``'s integers as :class:`NamedInt` where the problem file names them
    (``named``: the same values read by :func:`init_sizes`), so that an attribute holding one, passed on
    to an extension, is that size."""
    out: list[object] = []
    for k, v in enumerate(init_args):
        n = named[k] if named is not None and len(named) == len(init_args) else None
        if isinstance(v, int) and not isinstance(v, bool) and isinstance(n, Size) and n.name and n.value == v:
            out.append(NamedInt(v, n.name))
        else:
            out.append(v)
    return out


def _distinct(sizes: Mapping[str, int], multiples: Mapping[str, int] | None = None) -> dict[str, int]:
    """``sizes`` with equal values made distinct by raising the later ones (in value order) by one (a size
    that must be a multiple of ``multiples[s]``: to the next multiple)."""
    out: dict[str, int] = {}
    last = 0
    for s, v in sorted(sizes.items(), key=lambda kv: kv[1]):
        out[s] = max(v, last + 1) if v >= 2 else v
        m = (multiples or {}).get(s, 1)
        out[s] = -(-out[s] // m) * m
        last = max(last, out[s])
    return out


def _group_multiples(
    path: Path, reference: Path, init_args: Sequence[object], given: Mapping[str, int]
) -> dict[str, int]:
    """The sizes that must stay multiples of a number at every instance: a group norm's channels (a size
    ``get_init_inputs()`` names, a task symbol) of its groups, in ``Model`` or ``ModelNew``, where the
    problem's own size is one (PyTorch refuses other channel counts)."""
    sizes = init_sizes(reference) or [
        Size(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in init_args
    ]
    out: dict[str, int] = {}
    for file, cls in ((reference, "Model"), (path, "ModelNew")):
        try:
            found = group_norms(file, cls, sizes)
        except LarkcError:
            continue
        for groups, channels in found:
            name = channels.name
            if name is None or name not in given or groups.value < 2 or given[name] % groups.value:
                continue
            out[name] = math.lcm(out.get(name, 1), groups.value)
    return out


def _tensor_of(
    arg: object,
    span: Span,
    forward_params: Sequence[str],
    input_names: Sequence[str],
    inputs: Mapping[str, HostTensor],
    values: Mapping[int, Sequence[HostTensor]],
    allocated: Mapping[str, HostTensor],
    parameters: Mapping[str, HostTensor],
) -> HostTensor:
    """The task tensor a tensor argument of a step is."""
    match arg:
        case str():
            index = list(forward_params).index(arg)
            if index >= len(input_names):
                raise LarkcError(f"{arg} is no input of the problem", span, stage=Stage.FRONTEND)
            return inputs[input_names[index]]
        case CallResult(index=k):
            got = values.get(k, [])
            if len(got) != 1:
                raise UnsupportedError("use of a step's several results as one tensor", str(k), span)
            return got[0]
        case Allocation(name=n):
            return allocated[n]
        case EmptyTensor():
            return allocated[_empty_key(arg)]
        case ParamRef(path=p):
            return parameters[p]
    raise UnsupportedError("argument of a PyTorch step", repr(arg), span)


def _empty_key(t: EmptyTensor) -> str:
    """The local name of forward's tensor of no elements of ``t``'s element type (one per type)."""
    return f"empty_{t.dtype}"


def _check_one_definition(root: ts.Node, calls: Sequence[ForwardCall], span: Callable[[ts.Node], Span]) -> None:
    """With several extensions in one CUDA file, a function defined twice (``forward`` in each, or one
    kernel name) would be ambiguous: an error at the second definition."""
    seen: set[str] = set()
    for fn, _kernel in _function_definitions(root):
        name, _ = _declarator_name(fn)
        if name in seen:
            raise LarkcError(
                f"{name} is defined by two load_inline extensions of the candidate (larkc verifies their CUDA"
                " as one file, where a name is one definition)",
                span(fn),
                stage=Stage.FRONTEND,
            )
        seen.add(name)
    del calls


def _scaled(values: Sequence[object], sizes: Sequence[object], inst: Mapping[str, int]) -> list[object]:
    """``get_init_inputs()`` (``values``) at a shape instance: each integer read through a name that is a
    symbol (``sizes``, from :func:`init_sizes`) has the instance's value; containers keep their types."""

    def one(v: object, size: object) -> object:
        if isinstance(size, Size):
            return inst.get(size.name, v) if size.name is not None and isinstance(v, int) else v
        if isinstance(size, list) and isinstance(v, list | tuple) and len(v) == len(size):
            items = [one(a, b) for a, b in zip(v, size, strict=True)]
            return type(v)(items) if isinstance(v, tuple) else items
        return v

    return [one(v, size) for v, size in zip(values, sizes, strict=False)] + list(values[len(sizes) :])


def _triton(
    path: Path,
    reference: Path,
    problem: Sequence[ProblemInput],
    init_args: Sequence[object],
    params: Sequence[ProblemParam] = (),
) -> DerivedCandidate:
    """The task of a Triton candidate (:mod:`.triton_candidate`), with the shapes of a CUDA one."""
    symbols = _symbol_names(problem, reference)
    tensors = [p for p in problem if p.shape is not None]
    if len(tensors) != len(problem):
        raise LarkcError("get_inputs() returns a non-tensor value: not supported yet", stage=Stage.FRONTEND)
    given = {
        s: v
        for p, dims in zip(tensors, symbols, strict=True)
        for s, v in zip(dims, p.shape or (), strict=True)
        if isinstance(s, str)
    }
    shapes: list[tuple[ShapeExpr, ...]] = [
        tuple(ShapeNum(d) if isinstance(d, int) else ShapeSym(d) for d in dims) for dims in symbols
    ]
    inputs = {
        p.name: f"{p.dtype or 'f32'}[{', '.join(str(d) for d in dims)}]"
        for p, dims in zip(tensors, symbols, strict=True)
    }
    # Model's parameters are inputs (ModelNew's, bound to them, are set to them in forward); ModelNew is
    # built per instance, with get_init_inputs()'s sizes that are symbols at the instance's values
    sizes = init_sizes(reference)
    reads = [
        (p.path, p.span)
        for p in (
            [*module_params(path, "ModelNew", sizes), *module_buffers(path, "ModelNew", sizes)]
            if sizes is not None
            else []
        )
        if isinstance(p, ModuleParam)
    ]
    weights, weight_paths, bound, findings, transposed = _bind_weights(
        path, reference, reads, params, init_args, given, inputs
    )
    if transposed:
        where = next(s for p, s in reads if p in transposed)
        raise LarkcError(
            f"unsupported parameter of ModelNew in another layout than Model's ({', '.join(sorted(transposed))}:"
            " dims 0 and 1 swapped) in a Triton candidate",
            where,
            stage=Stage.FRONTEND,
        )
    shapes += [w.shape for w in weights.values()]
    instances = _instances(given, shapes, [])
    weight_texts = {n: f"{w.dtype}[{', '.join(str(d) for d in w.shape)}]" for n, w in weights.items()}

    def init_at(inst: Mapping[str, int]) -> list[object]:
        return _scaled(init_args, sizes, inst) if sizes is not None else list(init_args)

    bounds = [f"{s} <= {max([v, *(i[s] for i in instances)])}" for s, v in given.items()]
    task = triton_candidate_task(
        path,
        reference,
        inputs,
        list(given),
        instances,
        bounds,
        init_at,
        weights=weight_texts,
        bound=bound,
        param_paths=weight_paths,
    )
    task = dataclasses.replace(task, findings=tuple(findings))
    derived = DerivedCandidate(task, path, path, True, given)
    digest = hashlib.sha256(f"{path.resolve()}\0{reference.resolve()}".encode()).hexdigest()[:16]
    task_file = cache_root() / "kernelbench" / digest / "task.py"
    _write(task_file, task_file_text(derived, task_file))
    derived.task = dataclasses.replace(load_task(task_file), source=path)  # named as given, for diagnoses
    return derived


def _weights(
    path: Path,
    reference: Path,
    calls: Sequence[Step],
    params: Sequence[ProblemParam],
    init_args: Sequence[object],
    given: dict[str, int],
    inputs: Mapping[str, HostTensor],
) -> tuple[dict[str, HostTensor], dict[str, str], dict[str, str], list[str], set[str]]:
    """The task inputs standing for ``Model``'s parameters (all of them, in creation order, named after
    their paths: ``linear.weight`` is ``linear_weight``), each one's path, and for each parameter of
    ``ModelNew`` the kernel reads, the input it is.

    ``ModelNew``'s parameter in place ``i`` equals ``Model``'s in place ``i`` when both modules create
    the parameters up to it alike (kinds, initialisers and shapes), as KernelBench's harness seeds the
    generator alike before constructing each; anything else is an error at ``ModelNew``'s line. Sizes
    named in ``get_init_inputs()`` (``in_features``) are symbols, added to ``given`` where no input has them.
    """
    reads = [(a.path, a.span) for c in calls for a in c.arguments if isinstance(a, ParamRef)]
    return _bind_weights(path, reference, reads, params, init_args, given, inputs)


def _bind_weights(
    path: Path,
    reference: Path,
    reads: Sequence[tuple[str, Span]],
    params: Sequence[ProblemParam],
    init_args: Sequence[object],
    given: dict[str, int],
    inputs: Mapping[str, object],
) -> tuple[dict[str, HostTensor], dict[str, str], dict[str, str], list[str], set[str]]:
    """:func:`_weights` for the parameters of ``ModelNew`` at ``reads`` (paths, and where they are read).

    Batch norm's running statistics of ``Model`` are inputs too, after the parameters, whether a kernel
    reads them or not: the reference, in training mode as KernelBench's harness runs it, reads none but
    updates them in place, so they follow the instance's sizes; free inputs, so a kernel reading them
    (``ModelNew``'s in the same rank) is proved for every value of them (an inference formula is refuted).
    """
    sizes = init_sizes(reference) or [
        Size(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in init_args
    ]
    model_buffers = module_buffers(reference, "Model", sizes)
    if not params and not reads and not model_buffers:
        return {}, {}, {}, [], set()
    ref_span = Span(str(reference), 1, 1, 1, 2)
    model: list[ModuleParam] = []
    for p in module_params(reference, "Model", sizes) if params else []:
        if isinstance(p, Opaque) and not reads:
            return {}, {}, {}, [], set()  # the kernel reads no weight: the reference keeps its own (as before params)
        if isinstance(p, Opaque):
            raise LarkcError(
                f"unsupported parameters in Model.__init__ ({_KNOWN} of sizes from get_init_inputs()): {p.what}",
                p.span,
                stage=Stage.FRONTEND,
            )
        model.append(p)
    # named_parameters() lists a module's own parameters before its submodules': the creation order (in
    # which the generator is drawn from) is __init__'s, read statically and checked against the module
    built = sorted((p.path, p.shape) for p in params)
    read_so = sorted((p.path, tuple(d.value for d in p.shape)) for p in model)
    if built != read_so:
        raise LarkcError(
            f"Model's parameters as constructed ({', '.join(f'{n} {list(s)}' for n, s in built) or 'none'}) are not"
            f" those read from its __init__ ({', '.join(f'{n} {list(s)}' for n, s in read_so) or 'none'})",
            model[0].span if model else ref_span,
            stage=Stage.FRONTEND,
        )
    new = module_params(path, "ModelNew", sizes)
    new_buffers = module_buffers(path, "ModelNew", sizes)
    n_params = len(model)
    model += model_buffers
    by_path: dict[str, str] = {}
    transposed: set[str] = set()  # ModelNew's paths bound to Model's parameter with dims 0 and 1 swapped
    findings: list[str] = []
    names = [_input_name(p.path, {*inputs, *given}) for p in model]
    for read, where in reads:
        index = next((i for i, p in enumerate(new) if p.path == read), None)
        buffer = next((b for b in new_buffers if b.path == read), None)
        if index is None and buffer is not None:
            # Model's buffer of the same initial value and shape, in the same rank among those (a kernel
            # reading it is proved for every value of it; the reference reads none in training mode)
            rank = [b for b in new_buffers if b.same_initial_value(buffer)].index(buffer)
            theirs = [b for b in model_buffers if b.same_initial_value(buffer)]
            if rank >= len(theirs):
                raise LarkcError(
                    f"ModelNew's buffer {buffer.describe()} has no counterpart in Model", where, stage=Stage.FRONTEND
                )
            by_path[read] = names[model.index(theirs[rank])]
            continue
        if index is None or isinstance(new[index], Opaque):
            created = ", ".join(p.path for p in new if isinstance(p, ModuleParam)) or "none"
            raise LarkcError(
                f"ModelNew.__init__ creates no parameter {read} that larkc can read (it creates: {created})",
                where,
                stage=Stage.FRONTEND,
            )
        swapped = _transposed_counterpart(new, index, model[:n_params])
        place, finding = swapped if swapped is not None else _counterpart(new, index, model[:n_params])
        if swapped is not None:
            transposed.add(read)
        by_path[read] = names[place]
        if finding is not None:
            findings.append(finding)
    weights: dict[str, HostTensor] = {}
    dtypes = {p.path: p.dtype for p in params} | {b.path: "f32" for b in model_buffers}
    for name, p in zip(names, model, strict=True):
        dims: list[ShapeExpr] = []
        # a convolution's kernel sizes stay the problem's: they do not scale with the data, and the
        # reference stage's tracer reads a convolution of a symbolic kernel size as no op it knows
        kernel_dims = range(2, len(p.shape)) if p.kind.startswith(("Conv", "ConvTranspose")) else range(0)
        for k, d in enumerate(p.shape):
            sym = d.name if d.name is not None and d.name.isidentifier() else None
            if d.value == 1 or sym is None or k in kernel_dims:
                dims.append(ShapeNum(d.value))
                continue
            if sym in inputs or sym in names or given.setdefault(sym, d.value) != d.value:
                sym = f"{name}_d{k}"
                given[sym] = d.value
            dims.append(ShapeSym(sym))
        weights[name] = HostTensor(name, tuple(dims), dtypes[p.path])
    return weights, dict(zip(names, (p.path for p in model), strict=True)), by_path, findings, transposed


#: what a message about parameters larkc cannot read says it reads
_KNOWN = (
    "larkc reads nn.Linear, nn.Conv*d, nn.ConvTranspose*d, the norms, nn.Embedding, nn.PReLU"
    " and nn.Parameter(torch.randn(...))"
)


def _draws_before(entries: Sequence[ModuleParam | Opaque], index: int) -> list[tuple[object, ...]] | None:
    """The draws from the random generator before ``entries[index]`` is created (kind, shape and what else
    decides the values), which fix the generator's state it is drawn from; ``None`` where an entry before
    it may draw in a way larkc does not know."""
    out = []
    for e in entries[:index]:
        if isinstance(e, Opaque):
            return None
        if e.draws:
            out.append(e.draw_key())
    return out


_INIT_CALL = re.compile(r"^(?:torch\.)?nn\.init\.(?P<fn>\w+_)\(\s*self\.(?P<path>[\w.]+)\s*(?:,(?P<rest>.*))?\)$", re.S)


def _reinitialised(statement: str, path: str) -> str | None:
    """What ``nn.init.<fn>_(self.<path>, ...)`` after the parameter's creation makes of it: a fixed value
    (``zeros_``, ``ones_``, ``constant_`` of a number: ``"fixed:<value>"``); ``"normal"`` for a draw from
    a normal distribution (``normal_``, ``kaiming_normal_``, ``xavier_normal_``, ``trunc_normal_``);
    ``"kaiming"`` for ``kaiming_uniform_`` with a slope ``a`` other than the modules' own ``sqrt(5)``
    (``a=1``, ``calculate_gain('linear')``, read off the fan-in); ``"xavier"`` for ``xavier_uniform_``
    (gain 1); ``None`` for anything else (unknown)."""
    found = _INIT_CALL.match(statement.strip())
    if found is None or found["path"] != path:
        return None
    fn, rest = found["fn"], (found["rest"] or "").strip()
    if fn in ("zeros_", "ones_") and not rest:
        return f"fixed:{fn[:-1]}"
    if fn == "constant_":
        try:
            value = ast.literal_eval(rest)
        except (ValueError, SyntaxError):
            return None
        return (
            f"fixed:full({float(value)!r})" if isinstance(value, int | float) and not isinstance(value, bool) else None
        )
    if fn in ("normal_", "kaiming_normal_", "xavier_normal_", "trunc_normal_"):
        return "normal"
    if fn == "kaiming_uniform_":
        slope = re.fullmatch(r"a\s*=\s*(?P<a>[^,]+)", rest)
        text = slope["a"].replace(" ", "") if slope is not None else ""
        gains = {"1", "1.0", "0", "0.0", "torch.nn.init.calculate_gain('linear')", "nn.init.calculate_gain('linear')"}
        gains |= {g.replace("'", '"') for g in gains}
        return "kaiming" if text in gains else None  # a = 1 or 0: a bound other than 1/sqrt(fan_in)
    if fn == "xavier_uniform_" and not rest:
        return "xavier"  # bound sqrt(6 / (fan_in + fan_out)): 1/sqrt(fan_in) only where fan_out = 5 fan_in
    return None


#: parameters drawn uniformly by their module (kaiming-uniform weights, biases in 1/sqrt(fan_in))
_UNIFORM_KINDS = re.compile(r"^(Linear|Bilinear|Conv[123]d|ConvTranspose[123]d)\.(weight|bias)$")


def _counterpart(
    new: Sequence[ModuleParam | Opaque], index: int, model: Sequence[ModuleParam]
) -> tuple[int, str | None]:
    """The place in ``model`` of the parameter that ``ModelNew``'s ``new[index]`` stands for, and a finding
    where its initial values differ.

    Equal values when both modules are constructed under the same seed: one of the same fixed value and
    shape (``torch.ones(c)`` and a norm's weight), wherever either is created; or one drawn alike after the
    same draws. Several fixed ones alike: the one in the same place or of the same name, else the one of
    the same rank among them. Failing that, the one of the same role (of the same path; the only one of
    the same kind and shape; in the same place with the same shape and a name alike, ``weight`` or
    ``fc_weight`` for ``fc.weight``), initialised
    otherwise (``torch.randn`` for ``nn.Linear``'s kaiming-uniform): the kernel is still proved for every
    value of it, and the finding says that KernelBench's harness gives the two different values. Anything
    else is an error at ``ModelNew``'s line saying what differs."""
    p = new[index]
    assert isinstance(p, ModuleParam)
    last = p.path.rsplit(".", 1)[-1]
    redrawn: str | None = None  # a random nn.init after creation: values of another distribution
    redraw_kind = ""
    for later in new[index + 1 :]:  # nn.init.zeros_(self.fc.bias), self.weight.data.normal_() after creation
        if isinstance(later, Opaque) and not later.path and re.search(rf"\bself\.{re.escape(p.path)}\b", later.what):
            match _reinitialised(later.what, p.path):
                case str(fixed) if fixed.startswith("fixed:"):
                    p = dataclasses.replace(
                        p, kind=f"{p.kind} then {later.what}", constant=fixed.removeprefix("fixed:")
                    )
                    redrawn = None
                case str(how) if how in ("normal", "kaiming", "xavier"):
                    redrawn, redraw_kind = later.what, how
                case _:
                    raise LarkcError(
                        f"unsupported change of ModelNew's parameter {p.path} after its creation ({_KNOWN}):"
                        f" {later.what}",
                        later.span,
                        stage=Stage.FRONTEND,
                    )
    state = _draws_before(new, index) if p.draws and redrawn is None else []
    if state is None:
        opaque = next(e for e in new[:index] if isinstance(e, Opaque))
        raise LarkcError(
            f"unsupported parameters in ModelNew.__init__ before parameter {p.path} ({_KNOWN}): {opaque.what}",
            opaque.span,
            stage=Stage.FRONTEND,
        )
    if redrawn is not None:
        pass  # equal to no module's default values: only its role is looked for, below
    elif p.draws:
        alike = [j for j, m in enumerate(model) if p.same_initial_value(m) and _draws_before(model, j) == state]
        if alike:
            return alike[0], None
    else:
        alike = [j for j, m in enumerate(model) if p.same_initial_value(m)]
        if alike:
            if index in alike:
                return index, None
            named = [j for j in alike if model[j].path.rsplit(".", 1)[-1] == last]
            if len(named) == 1:
                return named[0], None
            fixed_alike = [j for j, e in enumerate(new) if isinstance(e, ModuleParam) and p.same_initial_value(e)]
            rank = sorted({*fixed_alike, index}).index(index)  # (p itself may be zeroed after its creation)
            if rank < len(alike):
                return alike[rank], None
    if index >= len(model):
        raise LarkcError(
            f"ModelNew's parameter {p.describe()} has no counterpart in Model, which creates"
            f" {len(model)} parameter(s){': ' if model else ''}{', '.join(m.path for m in model)}",
            p.span,
            stage=Stage.FRONTEND,
        )
    shape = [d.value for d in p.shape]
    same_path = [j for j, m in enumerate(model) if m.path == p.path and [d.value for d in m.shape] == shape]
    in_place = model[index]
    other = in_place.path.rsplit(".", 1)[-1].lower()  # weight for fc_weight, W for weight: the same role
    named_alike = other in p.path.lower() or last.lower() in in_place.path.lower()
    alike_in_place = [d.value for d in in_place.shape] == shape and named_alike
    same_kind = [j for j, m in enumerate(model) if m.kind == p.kind and [d.value for d in m.shape] == shape]
    role = same_path or (same_kind if len(same_kind) == 1 else []) or ([index] if alike_in_place else [])
    # a redraw differs from a module's uniform draw (normal against uniform; kaiming with another bound,
    # from the same state or not); against anything else it might not: unknown
    # xavier's bound is a module's kaiming one where size(0) = 5 size(1) (fan_out = 5 fan_in): not decided
    xavier_alike = redraw_kind == "xavier" and (len(shape) < 2 or shape[0] == 5 * shape[1])
    if redrawn is not None and not (
        role
        and _UNIFORM_KINDS.match(model[role[0]].kind)
        and (redraw_kind == "normal" or model[role[0]].kind.endswith(".weight"))
        and not xavier_alike
    ):
        raise LarkcError(
            f"unsupported change of ModelNew's parameter {p.path} after its creation ({_KNOWN}): {redrawn}",
            p.span,
            stage=Stage.FRONTEND,
        )
    if role:
        m = model[role[0]]
        how = (
            f"re-initialised by {redrawn}, otherwise"
            if redrawn is not None
            else "drawn from another state of the random generator (other draws come before it)"
            if p.same_initial_value(m)
            else "initialised otherwise"
        )
        return role[0], (
            f"ModelNew's parameter {p.describe()} is {how} than Model's {m.describe()}, which it stands for:"
            " under KernelBench's seeded construction their values differ, so ModelNew computes with other"
            " weights than Model (its outputs differ wherever they depend on them; the kernel itself is checked"
            " with both equal, for every value)"
        )
    m = model[index]
    raise LarkcError(
        f"ModelNew's parameter {p.describe()} is not Model's in its place, {m.describe()}"
        " (equal values need the same order, shapes and initialisers)",
        p.span,
        stage=Stage.FRONTEND,
    )


def _transposed_counterpart(
    new: Sequence[ModuleParam | Opaque], index: int, model: Sequence[ModuleParam]
) -> tuple[int, str] | None:
    """Where ``ModelNew``'s ``new[index]`` is a weight in the place of ``Model``'s transposed convolution's,
    declared in a convolution's layout (``nn.Parameter(torch.randn(out, in, k))`` for ``ConvTranspose1d``'s
    ``(in, out, k)``: dims 0 and 1 swapped, both more than 1): that place and the finding that their values
    differ (the same draws fill other elements). The kernel is checked reading Model's weight swapped."""
    p = new[index]
    if not isinstance(p, ModuleParam) or index >= len(model):
        return None
    m = model[index]
    mine, theirs = [d.value for d in p.shape], [d.value for d in m.shape]
    if not (
        m.kind.startswith("ConvTranspose")
        and m.path.endswith("weight")
        and "weight" in p.path.rsplit(".", 1)[-1].lower()
        and len(mine) == len(theirs) >= 3
        and min(theirs[0], theirs[1]) > 1
        and theirs[0] != theirs[1]
        and mine == [theirs[1], theirs[0], *theirs[2:]]
    ):
        return None
    return index, (
        f"ModelNew's parameter {p.describe()} stands for Model's {m.describe()} with dims 0 and 1 swapped:"
        " under KernelBench's seeded construction the draws fill other elements, so ModelNew computes with"
        " other weights than Model (its outputs differ wherever they depend on them; the kernel itself is"
        " checked reading Model's weight swapped, for every value)"
    )


def _input_name(param_path: str, taken: set[str]) -> str:
    """The task input of ``Model``'s parameter ``param_path``: named as the reference stage names it."""
    name = re.sub(r"\W", "_", param_path)
    return name if name not in taken else f"param_{name}"


def _view(t: HostTensor, v: View, call: ForwardCall) -> HostTensor:
    """The input tensor ``t`` seen with the shape of ``v`` (the same contiguous buffer)."""
    dims: list[ShapeExpr | None] = []
    for d in v.dims:
        if isinstance(d, tuple):
            k = d[1] % len(t.shape) if -len(t.shape) <= d[1] < len(t.shape) else None
            if k is None:
                raise LarkcError(f"size({d[1]}) of a tensor of rank {len(t.shape)}", call.span, stage=Stage.FRONTEND)
            dims.append(t.shape[k])
        else:
            dims.append(None if d == -1 else ShapeNum(d))
    if dims.count(None) > 1:
        raise UnsupportedError("view with several -1", str(v.dims), call.span)
    if None in dims:
        known: ShapeExpr = ShapeNum(1)
        for given_dim in dims:
            if given_dim is not None:
                known = ShapeArith(ArithOp.MUL, known, given_dim) if known != ShapeNum(1) else given_dim
        total: ShapeExpr = t.shape[0] if t.shape else ShapeNum(1)
        for size in t.shape[1:]:
            total = ShapeArith(ArithOp.MUL, total, size)
        rest = total if known == ShapeNum(1) else ShapeArith(ArithOp.FLOORDIV, total, known)
        dims = [rest if x is None else x for x in dims]
    return HostTensor(t.name, tuple(d for d in dims if d is not None), t.dtype)


def _host_arguments(
    call: ForwardCall,
    forward_params: Sequence[str],
    input_names: Sequence[str],
    params: Sequence[tuple[str, str, ts.Node]],
    inputs: Mapping[str, HostTensor],
    values: Mapping[int, Sequence[HostTensor]],
    allocated: Mapping[str, HostTensor],
    parameters: Mapping[str, HostTensor],
    given: Mapping[str, int] | None = None,
) -> dict[str, HostTensor | float | int | bool | tuple[int, ...] | ShapeExpr | None]:
    """The host function's parameters by name: forward's tensors as the problem's inputs, results of
    earlier steps (``values``, by step), parameters of ``ModelNew`` (by
    path: the task's inputs standing for ``Model``'s), constants, and ``None`` for an absent optional
    tensor."""
    if len(call.arguments) != len(params):
        raise LarkcError(
            f"{call.function} takes {len(params)} arguments, ModelNew.forward passes {len(call.arguments)}",
            call.span,
            stage=Stage.FRONTEND,
        )
    out: dict[str, HostTensor | float | int | bool | tuple[int, ...] | ShapeExpr | None] = {}

    def tensor_of(arg: object) -> HostTensor | None:
        """The task tensor a placeholder of a size forward computes stands for."""
        if isinstance(arg, str) and arg in forward_params and list(forward_params).index(arg) < len(input_names):
            return inputs[input_names[list(forward_params).index(arg)]]
        if isinstance(arg, View):
            return _view(inputs[input_names[list(forward_params).index(arg.param)]], arg, call)
        if isinstance(arg, ParamRef):
            return parameters.get(arg.path)
        if isinstance(arg, Allocation):
            return allocated.get(arg.name)
        if isinstance(arg, EmptyTensor):
            return allocated.get(_empty_key(arg))
        if isinstance(arg, CallResult):
            got = values.get(arg.index, [])
            return got[0] if len(got) == 1 else None
        return None

    for (pname, ptype, _node), arg in zip(params, call.arguments, strict=True):
        base = ptype.replace("const ", "").replace("&", "").strip()
        if isinstance(arg, SizeArg):
            if base not in _INT_TYPES:
                raise LarkcError(f"a size passed as parameter {pname} of type {ptype}", call.span, stage=Stage.FRONTEND)
            tensors = {p: tensor_of(a) for p, a in zip(arg.placeholders, arg.arguments, strict=True)}
            out[pname] = _size_of(arg.expression, tensors, call)
            continue
        if isinstance(arg, tuple):
            if base not in _INT_LIST_TYPES:
                raise LarkcError(
                    f"a list of integers passed as parameter {pname} of type {ptype}", call.span, stage=Stage.FRONTEND
                )
            out[pname] = arg
            continue
        if isinstance(arg, View):
            if base not in _TENSOR_TYPES:
                raise LarkcError(
                    f"a tensor passed as parameter {pname} of type {ptype}", call.span, stage=Stage.FRONTEND
                )
            out[pname] = _view(inputs[input_names[list(forward_params).index(arg.param)]], arg, call)
            continue
        if isinstance(arg, Allocation | EmptyTensor | ParamRef):
            if base not in _TENSOR_TYPES:
                raise LarkcError(
                    f"a tensor passed as parameter {pname} of type {ptype}", call.span, stage=Stage.FRONTEND
                )
            match arg:
                case Allocation(name=n):
                    out[pname] = allocated[n]
                case EmptyTensor():
                    out[pname] = allocated[_empty_key(arg)]
                case ParamRef(path=p):
                    out[pname] = parameters[p]
            continue
        if isinstance(arg, str | CallResult) and base not in _TENSOR_TYPES:
            raise LarkcError(f"a tensor passed as parameter {pname} of type {ptype}", call.span, stage=Stage.FRONTEND)
        if isinstance(arg, CallResult):
            got = values.get(arg.index, [])
            if len(got) != 1:
                raise UnsupportedError(
                    "argument that is one of a call's several results", f"{call.function}({pname})", call.span
                )
            out[pname] = got[0]
        elif isinstance(arg, str):
            index = list(forward_params).index(arg)
            if index >= len(input_names):
                raise LarkcError(
                    f"argument {arg} of {call.function} is no input of the problem", call.span, stage=Stage.FRONTEND
                )
            out[pname] = inputs[input_names[index]]
        elif arg is None and base in _OPTIONAL_TENSOR_TYPES:
            out[pname] = None  # an absent optional tensor (ModelNew's self.bias of a module built without one)
        elif arg is None:
            # pybind11 gives None only to an optional: for a torch::Tensor (or a number) the call raises
            raise LarkcError(
                f"None passed as parameter {pname} of type {ptype} (PyTorch's binding refuses None for it at"
                " the call: only a c10::optional<torch::Tensor> parameter takes None)",
                call.span,
                stage=Stage.FRONTEND,
            )
        elif base in _TENSOR_TYPES:
            raise LarkcError(f"a constant passed as tensor parameter {pname}", call.span, stage=Stage.FRONTEND)
        elif base in ("float", "double"):
            out[pname] = float(arg)
        elif base == "bool":
            out[pname] = bool(arg)
        elif isinstance(arg, NamedInt) and (given or {}).get(arg.name) == int(arg):
            # self.out_features = out_features passed on: that size, which scales with the instances
            out[pname] = ShapeSym(arg.name)
        else:
            out[pname] = int(arg)
    return out


def _task(
    path: Path,
    reference: Path,
    source: Path,
    inputs: Mapping[str, HostTensor],
    result: HostResult,
    given: dict[str, int],
    where: Span,
    params: Mapping[str, str],
    program: Sequence[HostLaunch | _PyTorchStep],
    preconditions: Mapping[str, Mapping[str, Any]],
    thresholds: Sequence[Threshold] = (),
    multiples: Mapping[str, int] | None = None,
) -> Task:
    names: dict[str, str] = {}
    returned = [t.name for t in result.returned]
    if len(set(returned)) != len(returned):
        raise LarkcError("the host function returns one tensor twice", where, stage=Stage.FRONTEND)
    for i, t in enumerate(result.returned):
        names[t.name] = "out" if len(returned) == 1 else f"out{i}"
    taken = {*inputs, *names.values()}
    for k in result.allocated:
        if k not in names:  # scratch: named as the host code names it where that is free
            var = result.variables.get(k, "")
            name = var if var.isidentifier() and var not in taken and var not in given else f"scratch{len(names)}"
            names[k] = name
            taken.add(name)
    outputs: dict[str, object] = {}
    for t in result.returned:
        init = result.allocated[t.name][1]
        outputs[names[t.name]] = TensorSpec(t.shape, _dtype(t.dtype), init)
    scratch = {
        names[k]: TensorSpec(t.shape, _dtype(t.dtype), init)
        for k, (t, init) in result.allocated.items()
        if k not in returned
    }
    steps = [_kernel_launch(x, names) if isinstance(x, HostLaunch) else _torch_step(x, names) for x in program]
    shapes = [t.shape for t in inputs.values()]
    shapes += [t.shape for t, _ in result.allocated.values()]
    instances = _instances(given, shapes, result.constraints, multiples)
    if instances:  # past a clamp of the launch (`std::min(1024, n)` threads), from the smallest instance

        def elements(i: Mapping[str, int]) -> int:
            return max(math.prod(int(evaluate(d, dict(i))) for d in shape) for shape in shapes)

        extra = [
            i
            for i in clamp_instances(result.launches, given, min(instances, key=elements), thresholds)
            if i not in instances and all(evaluate(c, i) for c in result.constraints) and elements(i) <= _CLAMP_ELEMENTS
        ]
        instances[-1:-1] = extra
    if not instances:
        raise LarkcError(
            "the checks of the host function fail on the problem's shape",
            result.launches[0].span if result.launches else where,
            stage=Stage.FRONTEND,
        )
    bounds = {s: max([given[s], *(inst[s] for inst in instances)]) for s in given}
    # a check such as K == K always holds
    checks = list(dict.fromkeys(c for c in result.constraints if not (isinstance(c, ShapeCmp) and c.lhs == c.rhs)))
    constraints = [show(c) for c in checks] + [f"{s} <= {b}" for s, b in bounds.items()]
    common: dict[str, Any] = {
        "name": path.parent.name if path.stem == "model_new" else path.stem,
        "source": source,
        "reference": str(reference),
        "inputs": {k: TensorSpec(t.shape, _dtype(t.dtype), **preconditions.get(k, {})) for k, t in inputs.items()},
        "params": dict(params),
        "outputs": outputs,
        "scratch": scratch,
        "symbols": list(given),
        "constraints": constraints,
        "instances": instances,
    }
    if len(steps) > 1 or not isinstance(steps[0], KernelLaunch):
        return Task(launches=steps, **common)
    one = steps[0]
    assert isinstance(one, KernelLaunch)
    return Task(
        kernel=one.kernel,
        template_args=one.template_args,
        bindings=one.bindings,
        grid=one.grid,
        block=one.block,
        shared_bytes=one.shared_bytes,
        **common,
    )


def _torch_step(step: _PyTorchStep, names: Mapping[str, str]) -> Any:
    """The task's ``TorchStep`` for ``step``, its tensors named as the task names them."""
    import larkc.tasks

    torch_step = getattr(larkc.tasks, "TorchStep", None)
    if torch_step is None:  # a larkc without PyTorch steps in tasks
        raise UnsupportedError("computation left to PyTorch in ModelNew.forward", step.label, step.span)
    return torch_step(
        function=step.function,
        inputs=tuple(names.get(t.name, t.name) for t in step.inputs),
        outputs=tuple(names.get(t.name, t.name) for t in step.outputs),
        label=step.label,
    )


def _kernel_launch(launch: HostLaunch, names: Mapping[str, str]) -> KernelLaunch:
    bindings: dict[str, BufferArg | ShapeArg | ScalarArg | ScalarExpr | NullArg] = {}
    for param, (kind, value) in launch.arguments.items():
        match kind:
            case "null":
                bindings[param] = NullArg()
            case "tensor":
                assert isinstance(value, str)
                bindings[param] = BufferArg(names.get(value, value))
            case "shape":
                bindings[param] = ShapeArg(show(value))  # type: ignore[arg-type]
            case "scalar":
                bindings[param] = ScalarArg(value)  # type: ignore[arg-type]
            case "scalar_expr":
                bindings[param] = ScalarExpr(value)  # type: ignore[arg-type]
    return KernelLaunch(
        kernel=launch.kernel,
        template_args=launch.template_args,
        grid=[show(d) for d in launch.grid],
        block=[show(d) for d in launch.block],
        shared_bytes=show(launch.shared_bytes),
        bindings=bindings,
    )


def _size_of(expression: str, tensors: Mapping[str, HostTensor | None], call: ForwardCall) -> ShapeExpr:
    """The shape expression of a size ``ModelNew.forward`` computes (``x.size(0)``, ``x.shape[2] // 2``,
    ``x.numel()``), over the shapes of the tensors its placeholders stand for."""

    def unsupported() -> LarkcError:
        return UnsupportedError("size computed in ModelNew.forward passed to the CUDA function", expression, call.span)

    def tensor(node: ast.expr) -> HostTensor:
        if isinstance(node, ast.Name) and tensors.get(node.id) is not None:
            t = tensors[node.id]
            assert t is not None
            return t
        raise unsupported()

    def dim(t: HostTensor, k: int) -> ShapeExpr:
        if not -len(t.shape) <= k < len(t.shape):
            raise LarkcError(f"size({k}) of a tensor of rank {len(t.shape)}", call.span, stage=Stage.FRONTEND)
        return t.shape[k]

    def size(node: ast.expr) -> ShapeExpr:
        match node:
            case ast.Constant(value=int() as v) if not isinstance(v, bool):
                return ShapeNum(v)
            case ast.Subscript(value=ast.Attribute(value=owner, attr="shape"), slice=ast.Constant(value=int(k))):
                return dim(tensor(owner), k)
            case ast.Subscript(
                value=ast.Call(func=ast.Attribute(value=owner, attr="size"), args=[]), slice=ast.Constant(value=int(k))
            ):
                return dim(tensor(owner), k)
            case ast.Call(func=ast.Attribute(value=owner, attr="size"), args=[ast.Constant(value=int(k))]):
                return dim(tensor(owner), k)
            case ast.Call(func=ast.Attribute(value=owner, attr="numel"), args=[]):
                t = tensor(owner)
                total: ShapeExpr = ShapeNum(1)
                for d in t.shape:
                    total = ShapeArith(ArithOp.MUL, total, d)
                return total
            case ast.Call(func=ast.Attribute(value=owner, attr="dim"), args=[]):
                return ShapeNum(len(tensor(owner).shape))
            case ast.Call(func=ast.Name(id="int"), args=[x]):
                return size(x)
            case ast.Subscript(value=ast.Tuple(elts=items), slice=ast.Constant(value=int(k))) if (
                -len(items) <= k < len(items)
            ):
                return size(items[k])  # rows of rows, cols = n, x.size(1)
            case ast.BinOp(left=left, op=op, right=right):
                ops = {
                    ast.Add: ArithOp.ADD,
                    ast.Sub: ArithOp.SUB,
                    ast.Mult: ArithOp.MUL,
                    ast.FloorDiv: ArithOp.FLOORDIV,
                }
                if type(op) in ops:
                    return ShapeArith(ops[type(op)], size(left), size(right))
        raise unsupported()

    return size(ast.parse(expression, mode="eval").body)


def _bindings_of(step: object) -> list[object]:
    """The bindings of a kernel launch of a task's steps (none for a PyTorch step)."""
    bindings = getattr(step, "bindings", None)
    return list(bindings.values()) if isinstance(bindings, Mapping) else []


def _dtype(name: str) -> ScalarType:
    return parse_dtype(name)


def task_file_text(derived: DerivedCandidate, task_file: Path) -> str:
    """A task file that builds ``derived.task`` (paths relative to ``task_file``'s folder), for people
    to read and edit."""
    t = derived.task
    base = task_file.parent.resolve()

    def rel(p: str | Path) -> str:
        return os.path.relpath(Path(p).resolve(), base)

    def tensors(m: Mapping[str, TensorSpec]) -> str:
        items = []
        for k, spec in m.items():
            shape = ", ".join(repr(show(d)) for d in spec.shape)
            init = f", {spec.init!r}" if spec.init is not None else ""
            if spec.low is not None or spec.triangular is not None:  # an input's preconditions
                text = f"TensorSpec.of({str(spec)!r}, {k!r})"
                if spec.triangular is not None:
                    tri = spec.triangular
                    text = f"replace({text}, triangular=Triangular({tri.side!r}, {tri.diagonal!r}))"
                items.append(f"{k!r}: {text}")
                continue
            items.append(f"{k!r}: (({shape}{',' if len(spec.shape) == 1 else ''}), {str(spec.dtype)!r}{init})")
        return "{" + ", ".join(items) + "}"

    def binding(b: object) -> str:
        match b:
            case BufferArg(name):
                return f"BufferArg({name!r})"
            case ShapeArg(expr):
                return f"ShapeArg({show(expr)!r})"
            case ScalarArg(value):
                return f"ScalarArg({value!r})"
            case ScalarExpr(text=text):
                return f"ScalarExpr({text!r})"
            case NullArg():
                return "NullArg()"
            case _:  # a derived task binds buffers, sizes and constants only
                raise LarkcError(f"cannot write binding {b!r} to a task file", stage=Stage.TASK)

    given = ", ".join(f"{s}={v}" for s, v in derived.given.items())
    steps: list[Any] = list(getattr(t, "steps", t.launches))
    torch_steps = [x for x in steps if not isinstance(x, KernelLaunch)]
    lines = [
        f'"""Derived by `larkc task` from {rel(derived.model_new)}',
        f"against {rel(str(t.reference))}; edit freely.",
        "",
        f"The problem's shape is {given};",
        "the instances are it scaled down to what simulates in seconds, and shapes around it.",
        "The kernel is the candidate's Triton kernel."
        if t.language == "triton"
        else "The CUDA file's line numbers are those of the candidate file."
        if derived.aligned
        else "The CUDA file holds the extension's CUDA source.",
        '"""',
        "",
        *(["import math", ""] if any("math." in text for text in derived.functions.values()) else []),
        *(["import torch", ""] if torch_steps else []),
        *(
            ["from dataclasses import replace", ""]
            if any(spec.triangular is not None for spec in t.inputs.values())
            else []
        ),
        "from larkc.tasks import BufferArg, "
        + ("KernelLaunch, " if len(steps) > len(torch_steps) and (len(steps) > 1 or torch_steps) else "")
        + ("NullArg, " if any(isinstance(b, NullArg) for x in steps for b in _bindings_of(x)) else "")
        + "ScalarArg, ScalarExpr, ShapeArg, Task"
        + (
            ", TensorSpec"
            if any(spec.low is not None or spec.triangular is not None for spec in t.inputs.values())
            else ""
        )
        + (", TorchStep" if torch_steps else ""),
        *(
            ["from larkc.tasks.input_facts import Triangular"]
            if any(spec.triangular is not None for spec in t.inputs.values())
            else []
        ),
        "",
        *[line for text in derived.functions.values() for line in ("", text.rstrip("\n"), "")],
        *([""] if torch_steps else []),
        "task = Task(",
        f"    name={t.name!r},",
        f"    source={rel(t.source)!r},",
    ]
    lines += [
        f"    reference={rel(str(t.reference))!r},",
        f"    inputs={tensors(t.inputs)},",
        *([f"    params={dict(t.params)!r},"] if t.params else []),
        *([f"    findings={list(t.findings)!r},"] if t.findings else []),
        f"    outputs={tensors(t.outputs)},",
    ]
    if t.scratch:
        lines.append(f"    scratch={tensors(t.scratch)},")

    def launch_lines(x: KernelLaunch, indent: str) -> list[str]:
        out = [f"{indent}kernel={x.kernel!r},"]
        if x.template_args:
            targs = dict(x.template_args) if isinstance(x.template_args, Mapping) else tuple(x.template_args)
            out.append(f"{indent}template_args={targs!r},")
        out.append(f"{indent}bindings={{")
        out += [f"{indent}    {k!r}: {binding(b)}," for k, b in x.bindings.items()]
        out += [
            f"{indent}}},",
            f"{indent}grid={[show(d) for d in x.grid]!r},",
            f"{indent}block={[show(d) for d in x.block]!r},",
            f"{indent}shared_bytes={show(x.shared_bytes)!r},",
        ]
        return out

    if len(steps) == 1 and isinstance(steps[0], KernelLaunch):
        lines += launch_lines(steps[0], "    ")
    else:
        lines.append("    launches=[")
        for x in steps:
            if isinstance(x, KernelLaunch):
                lines += ["        KernelLaunch(", *launch_lines(x, "            "), "        ),"]
                continue
            lines += [
                "        TorchStep(",
                f"            function={x.function.__name__},",
                f"            inputs={tuple(x.inputs)!r},",
                f"            outputs={tuple(x.outputs)!r},",
                f"            label={x.label!r},",
                "        ),",
            ]
        lines.append("    ],")
    lines += [
        f"    symbols={list(t.symbols)!r},",
        f"    constraints={[show(c) for c in t.constraints]!r},",
        "    instances=[",
        *(f"        {dict(i)!r}," for i in t.instances),
        "    ],",
        ")",
        "",
    ]
    return "\n".join(lines)
