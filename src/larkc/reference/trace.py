"""Tracing a PyTorch reference into a :class:`~larkc.reference.spec.SpecGraph`.

How (``docs/reference.md`` has the long form):

1. **Load** the reference: a function, an ``nn.Module`` subclass (constructed with ``init_inputs``, with a
   fixed seed so that its weights are reproducible) or instance, or the path of a file that defines a
   KernelBench ``Model`` (with ``get_inputs``/``get_init_inputs``) or a function ``reference`` (with
   optional ``inputs`` and ``symbols``). Modules are traced in eval mode.
2. **Export** it with ``torch.export`` (non-strict: the reference's Python runs once on fake tensors) to an
   ATen graph. Symbolic dims are marked ``Dim.AUTO`` and traced with example sizes that are distinct, at
   least 2 and satisfy the task's constraints; torch's symbols are then mapped back to the task's shape
   expressions, which detects a reference that fixes a size or equates two symbols. Graphs with in-place
   ops are functionalised (``run_decompositions({})``, which keeps composite ops such as ``layer_norm``).
3. **Convert** each ATen node with the table of :mod:`larkc.reference.aten`; every spec node's type comes
   from its op's rule and is checked against the type torch computed.

Errors are :class:`ReferenceError_` located at the reference line (from the node's stack trace, or from
the traceback of an exception the reference raised while being traced).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import inspect
import io
import itertools
import logging
import math
import re
import sys
import traceback
import types
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from larkc.dtypes import scalar_type_of, torch_dtype
from larkc.errors import NO_SPAN, InternalError, LarkcError, ReferenceError_, SourceCache, Span
from larkc.ir.types import F32, ScalarType
from larkc.reference.problem_inputs import call_get_inputs, is_meta
from larkc.reference.rules import infer_type
from larkc.reference.shapes import (
    assuming,
    fmt,
    from_sympy,
    same,
    simplify,
    to_sympy,
)
from larkc.reference.spec import (
    Absent,
    AttrValue,
    Operand,
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
from larkc.tasks import Task, TensorSpec
from larkc.tasks.input_facts import InputFacts
from larkc.tasks.shape_expr import (
    ShapeExpr,
    ShapeNum,
    evaluate,
    free_symbols,
)
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception

__all__ = ["trace_reference", "trace_task"]

_THIS_DIR = str(Path(__file__).resolve().parent)
_TORCH_DIR = str(Path(torch.__file__).resolve().parent)
_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+), in ([^\n]+)\n')

#: Sizes tried for symbols when neither the caller nor the task gives usable ones: distinct, >= 2, and
#: multiples of 8 so that references viewing rows in groups of 2, 4 or 8 trace.
_DEFAULT_SIZES = (16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104)


# Loading ------------------------------------------------------------------------------------------


class _CallModule(torch.nn.Module):
    """The module torch.export traces: calls the reference module or function with the inputs."""

    def __init__(self, target: torch.nn.Module | Callable[..., Any]) -> None:
        super().__init__()
        if isinstance(target, torch.nn.Module):
            self.inner = target
        else:
            self.fn = target

    def forward(self, *args: Any) -> Any:
        if hasattr(self, "inner"):
            return self.inner(*args)
        return self.fn(*args)


class _WithParams(torch.nn.Module):
    """A reference module whose parameters ``paths`` (``linear.weight``) are taken as arguments after
    forward's, in that order (``torch.func.functional_call``): a task proves the kernel for every value of
    them, and ``larkc run`` passes the values it draws."""

    def __init__(self, module: torch.nn.Module, paths: tuple[str, ...]) -> None:
        super().__init__()
        self.fn = module  # named as _CallModule's function: the tracer strips ``inner.fn.`` from names
        self.paths = paths

    def forward(self, *args: Any) -> Any:
        n = len(args) - len(self.paths)
        return torch.func.functional_call(self.fn, dict(zip(self.paths, args[n:], strict=True)), args[:n])


def _params_named(loaded: LoadedReference, inputs: Mapping[str, object]) -> dict[str, str]:
    """The inputs that stand for parameters of the module ``loaded``, by the names the tracer gives them:
    those that are no parameter of forward, if every one of them names a parameter."""
    if not isinstance(loaded.target, torch.nn.Module):
        return {}
    names = {p.name for p in loaded.params}
    held = [*loaded.target.named_parameters(), *loaded.target.named_buffers()]
    by_name = {re.sub(r"\W", "_", path): path for path, _ in held}
    extra = [k for k in inputs if k not in names]
    return {k: by_name[k] for k in extra} if extra and all(k in by_name for k in extra) else {}


def with_params(loaded: LoadedReference, params: Mapping[str, str]) -> LoadedReference:
    """``loaded`` taking its module's parameters ``params`` (argument name to parameter path) as
    arguments after forward's, in the order of ``params``."""
    if not params:
        return loaded
    module = loaded.target
    if not isinstance(module, torch.nn.Module):
        raise ReferenceError_(f"reference {loaded.name} is no nn.Module: it has no parameters {', '.join(params)}")
    have = dict(module.named_parameters()) | dict(module.named_buffers())  # buffers: batch norm's statistics
    for name, path in params.items():
        if path not in have:
            listed = ", ".join(have) or "none"
            raise ReferenceError_(
                f"reference {loaded.name} has no parameter {path!r} (for input {name!r}; it has: {listed})",
                loaded.span,
            )
    fixed = [p for p in loaded.params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    extra = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in params]
    target = _WithParams(module, tuple(params.values()))
    return dataclasses.replace(loaded, target=target, params=[*fixed, *extra])


@dataclass
class LoadedReference:
    """A reference ready to trace."""

    name: str
    target: torch.nn.Module | Callable[..., Any]
    params: list[inspect.Parameter]  # of the function or of forward (without self)
    span: Span  # the def line of the function or of forward
    files: set[str]  # source files of the reference's code
    codes: list[types.CodeType]  # its code objects (kept in torch.export's stack traces)
    file_inputs: Mapping[str, object] | None = None  # ``inputs`` of a reference file
    file_symbols: tuple[str, ...] = ()  # ``symbols`` of a reference file
    example_args: tuple[Any, ...] | None = None  # KernelBench ``get_inputs()`` (tensors on the meta device)
    input_facts: tuple[InputFacts, ...] = ()  # what ``get_inputs()`` guarantees of each of them


def _def_span(obj: Any, fallback_file: str | None) -> Span:
    try:
        file = inspect.getsourcefile(obj) or fallback_file or "<reference>"
        lines, start = inspect.getsourcelines(obj)
    except (OSError, TypeError):
        return NO_SPAN if fallback_file is None else Span(fallback_file, 1, 1, 1, 2)
    offset = 0
    for i, text in enumerate(lines):  # skip decorators: point at the def line
        if text.lstrip().startswith(("def ", "async def ", "class ")):
            offset = i
            break
    text = lines[offset].rstrip("\n")
    col = len(text) - len(text.lstrip()) + 1
    return Span(file, start + offset, col, start + offset, len(text) + 1)


def _code_objects(root: types.CodeType) -> Iterator[types.CodeType]:
    yield root
    for c in root.co_consts:
        if isinstance(c, types.CodeType):
            yield from _code_objects(c)


def _user_codes(obj: Any) -> list[types.CodeType]:
    """The code of ``obj`` (a function or a module instance), of nested functions and of the other
    functions and classes of its source file, so that stack traces keep frames of helper functions."""
    roots: list[Any] = []
    if isinstance(obj, torch.nn.Module):
        for m in obj.modules():
            for klass in type(m).__mro__:
                if klass.__module__.startswith("torch"):
                    continue
                roots.extend(v for v in vars(klass).values() if inspect.isfunction(v))
        module = sys.modules.get(type(obj).__module__)
    else:
        roots.append(obj)
        module = sys.modules.get(getattr(obj, "__module__", "") or "")
    files = {r.__code__.co_filename for r in roots if hasattr(r, "__code__")}
    if module is not None:
        for v in vars(module).values():
            if inspect.isfunction(v) and v.__code__.co_filename in files:
                roots.append(v)
            elif inspect.isclass(v) and v.__module__ == module.__name__:
                roots.extend(f for f in vars(v).values() if inspect.isfunction(f))
    codes: list[types.CodeType] = []
    for r in roots:
        code = getattr(r, "__code__", None)
        if code is not None:
            codes.extend(_code_objects(code))
    return codes


def _load_file_module(path: Path) -> types.ModuleType:
    name = f"larkc_reference_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ReferenceError_(f"cannot load reference file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
        raise
    except USER_CODE_ERRORS as e:
        raise _user_exception(e, {str(path)}, Span(str(path), 1, 1, 1, 2), "loading the reference") from None
    return module


def _instantiate(cls: type, init_inputs: Sequence[Any], files: set[str], span: Span) -> torch.nn.Module:
    # a fixed seed: the weights of a module reference are part of the spec and must not change per run
    with torch.random.fork_rng():
        torch.manual_seed(0)
        try:
            module: torch.nn.Module = cls(*init_inputs)
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            raise _user_exception(e, files, span, f"constructing {cls.__name__}") from None
    return module


def load_reference(reference: object, init_inputs: Sequence[Any] = (), file: str | None = None) -> LoadedReference:
    """Resolve ``reference`` (function, module class or instance, or file path) to something to trace."""
    if isinstance(reference, str | Path):
        path = Path(reference)
        if not path.is_file():
            raise ReferenceError_(f"no reference file {path}")
        SourceCache.register(str(path), path.read_text(encoding="utf-8", errors="replace"))
        module = _load_file_module(path)
        model = getattr(module, "Model", None)
        if inspect.isclass(model) and issubclass(model, torch.nn.Module):
            init = list(init_inputs)
            if not init and hasattr(module, "get_init_inputs"):
                init = list(_call_user(module.get_init_inputs, {str(path)}, "get_init_inputs()"))
            instance = _instantiate(model, init, {str(path)}, _def_span(model, str(path)))
            loaded = load_reference(instance, (), str(path))
            # KernelBench's harness calls the Model it constructs without .eval(): in training mode, so batch
            # norm normalises by the batch's statistics (and dropout with p > 0 is random: refused)
            instance.train()
            loaded.name = path.stem
            if hasattr(module, "get_inputs"):
                # on meta tensors: the problem's shapes and dtypes, and the preconditions it puts on its inputs,
                # without drawing tensors of the scored shape (gigabytes, a minute)
                get_inputs = module.get_inputs
                values, facts = _call_user(lambda: call_get_inputs(get_inputs), {str(path)}, "get_inputs()")
                loaded.example_args = tuple(values)
                loaded.input_facts = tuple(facts)
            return loaded
        fn = getattr(module, "reference", None)
        if callable(fn):
            loaded = load_reference(fn, init_inputs, str(path))
            loaded.name = path.stem
            loaded.file_inputs = getattr(module, "inputs", None)
            loaded.file_symbols = tuple(getattr(module, "symbols", ()))
            return loaded
        raise ReferenceError_(
            "a reference file defines `class Model(nn.Module)` (KernelBench style) or a function `reference`",
            Span(str(path), 1, 1, 1, 2),
        )
    if inspect.isclass(reference) and issubclass(reference, torch.nn.Module):
        span = _def_span(reference, file)
        return load_reference(_instantiate(reference, init_inputs, {span.file}, span), (), file)
    if isinstance(reference, torch.nn.Module):
        reference.eval()  # dropout and batch statistics as at inference
        forward = type(reference).forward
        span = _def_span(forward, file)
        params = list(inspect.signature(reference.forward).parameters.values())
        codes = _user_codes(reference)
        files = {c.co_filename for c in codes} | ({file} if file else set())
        return LoadedReference(type(reference).__name__, reference, params, span, files, codes)
    if callable(reference):
        try:
            params = list(inspect.signature(reference).parameters.values())
        except (TypeError, ValueError):  # a builtin such as torch.maximum: inputs match by position
            params = [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
        span = _def_span(reference, file)
        codes = _user_codes(reference)
        files = {c.co_filename for c in codes} | ({file} if file else set())
        name = getattr(reference, "__name__", "reference")
        return LoadedReference(name, reference, params, span, files, codes)
    raise ReferenceError_(f"a reference is a function, an nn.Module or a file path, got {type(reference).__name__}")


def _call_user(fn: Callable[[], Any], files: set[str], what: str) -> Any:
    try:
        return fn()
    except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
        raise
    except USER_CODE_ERRORS as e:
        raise _user_exception(e, files, NO_SPAN, what) from None


# Errors -------------------------------------------------------------------------------------------


def _line_span(file: str, line: int) -> Span:
    text = SourceCache.line(file, line)
    if text is None:
        return Span(file, line, 1, line, 2)
    stripped = text.rstrip()
    col = len(stripped) - len(stripped.lstrip()) + 1
    return Span(file, line, col, line, max(col + 1, len(stripped) + 1))


def _line_text(span: Span) -> str:
    text = SourceCache.line(span.file, span.line) if span.line > 0 else None
    return " ".join(text.split()) if text else ""


def _exception_chain(e: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _user_frame(e: BaseException, files: set[str]) -> Span | None:
    """The innermost frame of the reference's own code in the traceback of ``e`` (or of its causes)."""
    for exc in _exception_chain(e):
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in files]
        frames = [f for f in frames if not f.filename.startswith(_THIS_DIR)]
        if frames and frames[-1].lineno:
            return _line_span(frames[-1].filename, frames[-1].lineno)
        # torch quotes the user frame in some messages ("The following call raised this error: File ...")
        for m in _FRAME_RE.finditer(str(exc)):
            if m.group(1) in files:
                return _line_span(m.group(1), int(m.group(2)))
    return None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _user_exception(e: BaseException, files: set[str], fallback: Span, what: str) -> ReferenceError_:
    span = _user_frame(e, files) or fallback
    return ReferenceError_(f"{what} {describe_user_exception(e)}", span)


_DATA_DEPENDENT_GUARD = ("GuardOnDataDependentSymNode", "DataDependentOutputException")
_DATA_DEPENDENT_SHAPE = ("DynamicOutputShapeException",)


def _export_error(e: BaseException, ref: LoadedReference) -> ReferenceError_:
    chain = list(_exception_chain(e))
    names = {type(x).__name__ for x in chain}
    text = "\n".join(str(x) for x in chain)
    span = _user_frame(e, ref.files)
    where = span or ref.span
    line = _line_text(where) if span else ""
    suffix = f": {line}" if line else ""
    if names & set(_DATA_DEPENDENT_GUARD) or "data-dependent expression" in text:
        return ReferenceError_(f"data-dependent control flow in reference{suffix}", where)
    if names & set(_DATA_DEPENDENT_SHAPE) or "data-dependent output shape" in text:
        return ReferenceError_(f"data-dependent output shape in reference{suffix}", where)
    if span is not None:
        return ReferenceError_(f"reference {describe_user_exception(e)}", span)
    return ReferenceError_(f"torch.export cannot trace the reference: {type(e).__name__}: {_first_line(e)}", ref.span)


# Inputs and example sizes -------------------------------------------------------------------------


@dataclass
class _Arg:
    """One positional argument of the traced call."""

    name: str
    spec: TensorSpec | None  # None: a non-tensor constant (KernelBench get_inputs ints)
    value: Any = None  # the constant, or a concrete example tensor from get_inputs()


def _match_inputs(ref: LoadedReference, inputs: Mapping[str, TensorSpec]) -> list[_Arg]:
    params = [p for p in ref.params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    names = [p.name for p in params if p.kind is not p.VAR_POSITIONAL]
    given = list(inputs)
    if all(n in names for n in given):
        order = [n for n in names if n in inputs]
        missing = [
            p.name for p in params if p.name not in inputs and p.default is p.empty and p.kind is not p.VAR_POSITIONAL
        ]
        if missing:
            raise ReferenceError_(
                f"reference parameter(s) {', '.join(missing)} have no input (inputs: {', '.join(given) or 'none'})",
                ref.span,
            )
        # a parameter left out must be a trailing one (it keeps its default)
        if order != names[: len(order)]:
            raise ReferenceError_(
                f"inputs {', '.join(given)} skip reference parameters before others; give them all", ref.span
            )
        return [_Arg(n, inputs[n]) for n in order]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    rest = [p for p in params[len(given) :] if p.kind is not p.VAR_POSITIONAL]
    if variadic or (len(given) <= len(names) and all(p.default is not p.empty for p in rest)):
        return [_Arg(n, inputs[n]) for n in given]  # names differ: match by position
    listed = ", ".join(names) if names else "none (keyword-only parameters cannot take inputs)"
    raise ReferenceError_(
        f"inputs {', '.join(given)} do not match the reference's positional parameters: {listed}", ref.span
    )


def _kernelbench_args(ref: LoadedReference, values: Sequence[Any]) -> tuple[list[_Arg], dict[str, TensorSpec]]:
    names = [p.name for p in ref.params if p.kind is not p.VAR_KEYWORD]
    args: list[_Arg] = []
    specs: dict[str, TensorSpec] = {}
    for i, v in enumerate(values):
        name = names[i] if i < len(names) and ref.params[i].kind is not ref.params[i].VAR_POSITIONAL else f"arg{i}"
        if isinstance(v, torch.Tensor):
            spec = TensorSpec(tuple(ShapeNum(int(d)) for d in v.shape), scalar_type_of(v.dtype))
            specs[name] = spec
            args.append(_Arg(name, spec, v))
        else:
            args.append(_Arg(name, None, v))
    return args, specs


def choose_sizes(
    symbols: Sequence[str],
    constraints: Sequence[ShapeExpr] = (),
    preferred: Sequence[Mapping[str, int]] = (),
    fixed: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Example sizes for tracing: ``fixed`` ones as given (if >= 2), the others distinct, at least 2 and satisfying
    ``constraints``; taken from the first of ``preferred`` (task instances) that qualifies, else found by
    a search over small candidates."""
    # a size of 1 would make torch specialise the dim (it broadcasts): such hints are not used
    fixed = {s: int(v) for s, v in (fixed or {}).items() if s in symbols and int(v) >= 2}
    free = [s for s in symbols if s not in fixed]

    def ok(env: Mapping[str, int], distinct: bool) -> bool:
        values = [env[s] for s in free]
        if any(v < 2 for v in values) or (distinct and len(set(values)) != len(values)):
            return False
        try:
            return all(bool(evaluate(c, dict(env))) for c in constraints)
        except LarkcError:
            return False

    pool: dict[str, list[int]] = {}
    for s in free:
        seen = [inst[s] for inst in preferred if s in inst and inst[s] >= 2]
        pool[s] = list(dict.fromkeys([*seen, *_DEFAULT_SIZES, *(2**k for k in range(1, 14))]))
    # distinct sizes keep torch from merging symbols; constraints such as M == N may forbid them
    for distinct in (True, False):
        for inst in preferred:
            env = {**{s: inst[s] for s in free if s in inst}, **fixed}
            if len(env) == len(symbols) and ok(env, distinct):
                return env
        for combo in itertools.islice(itertools.product(*(pool[s] for s in free)), 100_000):
            env = {**dict(zip(free, combo, strict=True)), **fixed}
            if ok(env, distinct):
                return env
    raise ReferenceError_(
        f"cannot choose example sizes for {', '.join(free)}: no distinct values >= 2 satisfy the"
        " constraints (give example_shapes)"
    )


def _example_tensor(shape: Sequence[int], dtype: ScalarType) -> torch.Tensor:
    t = torch_dtype(dtype)
    if dtype.is_float:
        return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(0)).to(t)  # () is a 0-d tensor
    return torch.zeros(tuple(shape), dtype=t)


def _torch_dim_spec(spec: TensorSpec) -> dict[int, Any] | None:
    from torch.export import Dim

    dims = {i: Dim.AUTO for i, d in enumerate(spec.shape) if not isinstance(d, ShapeNum)}
    return dims or None


# Export -------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _stack_trace_anchors(codes: Sequence[types.CodeType]) -> Iterator[None]:
    # torch.export keeps only frames of functions named `forward` in a node's stack trace, plus the
    # registered anchors (what torch.fx.traceback.annotate_fn registers); the reference's own functions
    # are registered for the duration of the trace so that nodes point at their lines
    import torch.fx.proxy as fx_proxy

    anchors: set[tuple[str, str]] | None = getattr(fx_proxy, "_STACK_TRACE_ANCHORS", None)
    added = set()
    if anchors is not None:
        for c in codes:
            key = (c.co_filename, c.co_name)
            if key not in anchors:
                anchors.add(key)
                added.add(key)
    try:
        yield
    finally:
        if anchors is not None:
            anchors.difference_update(added)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    loggers = [logging.getLogger(n) for n in ("torch", "torch.fx.experimental.symbolic_shapes", "torch.export")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        # torch.export prints the partial graph of a failed trace to stderr; the located error says it all
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _export(ref: LoadedReference, args: Sequence[_Arg], sizes: Mapping[str, int]) -> Any:
    values: list[Any] = []
    dynamic: list[Any] = []
    for a in args:
        if a.spec is None:
            values.append(a.value)
            dynamic.append(None)
            continue
        if isinstance(a.value, torch.Tensor) and not is_meta(a.value):
            values.append(a.value)
        elif isinstance(a.value, torch.Tensor):  # get_inputs()'s shape: export reads no element, so none is drawn
            try:
                values.append(torch.empty(tuple(a.value.shape), dtype=a.value.dtype))
            except RuntimeError:  # the allocator refuses even untouched memory of that size
                size = "x".join(str(d) for d in a.value.shape)
                raise ReferenceError_(
                    f"input {a.name!r} of the problem's shape ({size}) does not fit in memory to trace at that"
                    " shape: trace the task derived for a candidate (larkc task), whose shapes are symbolic",
                    ref.span,
                ) from None
        else:
            shape = [int(evaluate(d, dict(sizes))) for d in a.spec.shape]
            values.append(_example_tensor(shape, a.spec.dtype))
        dynamic.append(_torch_dim_spec(a.spec))
    wrapper = _CallModule(ref.target)
    with _stack_trace_anchors(ref.codes), _quiet():
        try:
            ep = torch.export.export(wrapper, tuple(values), dynamic_shapes=(tuple(dynamic),), strict=False)
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            raise _static_error(wrapper, values, ref, _export_error(e, ref), sizes) from None
        if any(_is_mutating(n) for n in ep.graph.nodes):
            try:
                ep = ep.run_decompositions({})
            except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
                raise
            except USER_CODE_ERRORS as e:
                raise _mutation_error(ep, ref, e) from None
    return ep


def _mutation_error(ep: Any, ref: LoadedReference, e: BaseException) -> ReferenceError_:
    """torch could not functionalise the reference's in-place updates (typically of a tensor attribute
    that is not a registered buffer): located at the first in-place update of a value the reference holds."""
    from torch.export.graph_signature import InputKind

    held = {
        s.arg.name: s.target
        for s in ep.graph_signature.input_specs
        if s.kind is not InputKind.USER_INPUT and hasattr(s.arg, "name")
    }
    conv = Converter(ref, {}, set())
    for node in ep.graph.nodes:
        if not _is_mutating(node) or not node.args or not isinstance(node.args[0], torch.fx.Node):
            continue
        target = held.get(node.args[0].name)
        if target is not None:
            name = str(target).removeprefix("inner.")
            return conv.error(
                node,
                f"reference updates {name!r} in place, a tensor it holds that torch.export cannot treat as"
                f" state ({_first_line(e)}): the module is stateful (a spec describes one call; pass the"
                " state as an input instead)",
            )
    return ReferenceError_(f"torch.export could not functionalise the reference: {_first_line(e)}", ref.span)


def _static_error(
    wrapper: torch.nn.Module,
    values: Sequence[Any],
    ref: LoadedReference,
    err: ReferenceError_,
    sizes: Mapping[str, int],
) -> ReferenceError_:
    """A reference that raised while traced with symbolic sizes: torch's message names its own symbols
    (``s33``), so trace again with the concrete example sizes for a message in numbers."""
    if not err.message.startswith("reference raised") or not sizes:
        return err
    # fresh tensors: the first export marked the example tensors' dims as dynamic
    fresh = tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in values)
    try:
        torch.export.export(wrapper, fresh, strict=False)
    except LarkcError:
        return err
    except USER_CODE_ERRORS as e:
        # the concrete run may fail deeper in torch, without the reference's frame: keep the first span
        span = _user_frame(e, ref.files) or err.span
        shown = ", ".join(f"{k}={v}" for k, v in sizes.items())
        message = f"reference {describe_user_exception(e)}"
        return ReferenceError_(message, span, notes=(f"traced with example sizes {shown}",))
    return err


def _is_mutating(node: torch.fx.Node) -> bool:
    schema = getattr(node.target, "_schema", None)
    return node.op == "call_function" and schema is not None and bool(schema.is_mutable)


# Conversion ---------------------------------------------------------------------------------------


@dataclass
class Converter:
    """Walks an exported ATen graph and builds the spec graph (handlers live in :mod:`.aten`)."""

    ref: LoadedReference
    sym_map: dict[Any, Any]  # torch's size symbols -> sympy expressions over the task's symbols
    task_symbols: set[str]
    nodes: list[SpecNode] = field(default_factory=list)
    types: dict[str, ValueType] = field(default_factory=dict)
    env: dict[torch.fx.Node, Any] = field(default_factory=dict)  # Operand, or a tuple for tuple results
    used: set[str] = field(default_factory=set)
    assumptions: list[ShapeExpr] = field(default_factory=list)
    #: the task's ``[low, high)`` bound on the values of an integer input, by input name
    value_ranges: dict[str, tuple[ShapeExpr, ShapeExpr]] = field(default_factory=dict)
    #: values with uninitialised elements (``torch.empty`` not yet fully written): name -> the dim the
    #: writes run along (``None`` before the first) and the ``[start, end)`` ranges written so far
    partial: dict[str, tuple[int | None, tuple[tuple[ShapeExpr, ShapeExpr], ...]]] = field(default_factory=dict)
    #: values computed from uninitialised elements: name -> the error at the first such read, raised when
    #: the value reaches an output (values that reach none are dead code)
    tainted: dict[str, ReferenceError_] = field(default_factory=dict)
    _read_uninitialised: ReferenceError_ | None = None

    def value_range(self, ref: Ref) -> tuple[ShapeExpr, ShapeExpr] | None:
        """The declared bound on the values of ``ref``: an input's, or that of the input it was laid out
        from (ops that only move or repeat values, and casts between integer types)."""
        moves = {
            SpecOp.RESHAPE, SpecOp.PERMUTE, SpecOp.TRANSPOSE, SpecOp.SLICE, SpecOp.SELECT,
            SpecOp.SQUEEZE, SpecOp.UNSQUEEZE, SpecOp.EXPAND,
        }  # fmt: skip
        name = ref.name
        while name not in self.value_ranges:
            node = next((n for n in self.nodes if n.name == name), None)
            if node is None or not isinstance(node.args[0], Ref):
                return None
            source = node.args[0]
            if node.op is SpecOp.CAST and not (node.dtype.is_int and self.types[source.name].dtype.is_int):
                return None
            if node.op is not SpecOp.CAST and node.op not in moves:
                return None
            name = source.name
        return self.value_ranges[name]

    # names, spans, types --------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        name = re.sub(r"\W", "_", base) or "v"
        out, k = name, 1
        while out in self.used:
            out = f"{name}_{k}"
            k += 1
        self.used.add(out)
        return out

    def span(self, node: torch.fx.Node) -> Span:
        trace = node.meta.get("stack_trace") or ""
        best: Span | None = None
        for m in _FRAME_RE.finditer(trace + "\n"):
            file = m.group(1)
            # frames of larkc's wrapper and of torch itself (absolute, or relative as torch records some)
            if file.startswith((_THIS_DIR, _TORCH_DIR, "torch/")):
                continue
            best = _line_span(file, int(m.group(2)))
        return best or self.ref.span

    def line(self, node: torch.fx.Node) -> str:
        """The text of the reference line that produced ``node`` (whitespace collapsed)."""
        return _line_text(self.span(node))

    def error(self, node: torch.fx.Node, message: str) -> ReferenceError_:
        return ReferenceError_(message, self.span(node))

    def _pending_read(self) -> ReferenceError_ | None:
        """The uninitialised read recorded while the current node was converted (set by :meth:`operand`)."""
        return self._read_uninitialised

    def taint_read(self, error: ReferenceError_) -> None:
        """Record that the node being converted read uninitialised elements (reported by ``error``)."""
        if self._read_uninitialised is None:
            self._read_uninitialised = error

    def _taint(self, node: torch.fx.Node, error: ReferenceError_) -> None:
        """Mark the results of ``node``, which read uninitialised elements, unless they are the partly
        written tensor itself (whose coverage :attr:`partial` tracks)."""
        result = self.env.get(node)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, Ref) and r.name not in self.partial:
                self.tainted.setdefault(r.name, error)

    def uninitialised(self, node: torch.fx.Node, value: Ref) -> ReferenceError_:
        dim, written = self.partial[value.name]
        what = (
            "none of it was written"
            if not written
            else f"along dim {dim} only {', '.join(f'[{fmt(s)}, {fmt(e)})' for s, e in written)} were written"
        )
        return self.error(
            node, f"the reference reads uninitialised memory (torch.empty): {what}: {_line_text(self.span(node))}"
        )

    def size(self, value: Any, node: torch.fx.Node) -> ShapeExpr:
        """A size (int, SymInt, or an fx node computing one) as a shape expression over task symbols."""
        if isinstance(value, torch.fx.Node):
            value = value.meta.get("val")
        if isinstance(value, bool):
            raise self.error(node, f"expected a size, got {value!r}")
        if isinstance(value, int):
            return ShapeNum(value)
        if isinstance(value, torch.SymInt):
            expr = value.node.expr
            if expr.is_number:
                return ShapeNum(int(expr))
            sub = expr.xreplace(self.sym_map)
            unknown = {str(s) for s in sub.free_symbols} - self.task_symbols
            if unknown:
                raise self.error(node, f"data-dependent size in reference: {_line_text(self.span(node))}")
            try:
                return simplify(from_sympy(sub))
            except ReferenceError_ as e:
                raise self.error(node, e.message) from None
        raise self.error(node, f"expected an integer size, got {type(value).__name__}")

    def value_type(self, val: Any, node: torch.fx.Node) -> ValueType:
        if not isinstance(val, torch.Tensor):
            raise self.error(node, f"expected a tensor, got {type(val).__name__}")
        try:
            dtype = scalar_type_of(val.dtype)
        except ReferenceError_ as e:
            raise self.error(node, e.message) from None
        return ValueType(tuple(self.size(d, node) for d in val.shape), dtype)

    def meta_type(self, node: torch.fx.Node, index: int | None = None) -> ValueType:
        val: Any = node.meta.get("val")
        if index is not None:
            val = val[index]
        return self.value_type(val, node)

    # operands -------------------------------------------------------------------------------------

    def operand(self, a: Any, node: torch.fx.Node) -> Operand:
        if a is None:
            return Absent()
        if isinstance(a, torch.fx.Node):
            v = self.env.get(a)
            if isinstance(v, Ref) and (v.name in self.partial or v.name in self.tainted):
                self.taint_read(self.tainted.get(v.name) or self.uninitialised(node, v))
            if isinstance(v, Ref | Scalar | Absent):
                return v
            if v is not None:
                raise self.error(node, f"a tuple result used as a tensor in reference: {_line_text(self.span(node))}")
            val = a.meta.get("val")
            if isinstance(val, torch.SymInt):
                e = self.size(val, node)
                return Scalar(e.value if isinstance(e, ShapeNum) else e)
            if isinstance(val, torch.SymFloat | torch.SymBool):
                raise self.error(
                    node,
                    f"symbolic {type(val).__name__} in reference (use integer sizes): {_line_text(self.span(node))}",
                )
            raise self.error(node, f"operand {a.name} has no value")
        if isinstance(a, bool | int | float):
            return Scalar(a)
        if isinstance(a, torch.SymInt):
            return Scalar(self.size(a, node))
        raise self.error(node, f"unsupported operand {a!r} in reference: {_line_text(self.span(node))}")

    def tensor(self, a: Any, node: torch.fx.Node) -> Ref:
        op = self.operand(a, node)
        if not isinstance(op, Ref):
            raise self.error(node, f"expected a tensor operand, got {op}")
        return op

    def type_of(self, ref: Ref) -> ValueType:
        return self.types[ref.name]

    def rank(self, ref: Ref) -> int:
        return self.types[ref.name].rank

    # emission -------------------------------------------------------------------------------------

    def emit(
        self,
        node: torch.fx.Node,
        op: SpecOp,
        args: Sequence[Operand],
        attrs: Sequence[tuple[str, AttrValue]] = (),
        *,
        dtype: ScalarType | None = None,
        suffix: str = "",
    ) -> Ref:
        """Append a spec node for (part of) fx ``node``; its type comes from the op's rule."""
        name = self.fresh(node.name + suffix)
        draft = SpecNode(name, op, tuple(args), tuple(attrs), ValueType((), dtype or F32), self.span(node))
        typ = infer_type(draft, self.types)
        spec = dataclasses.replace(draft, type=typ)
        self.nodes.append(spec)
        self.types[name] = typ
        return Ref(name)

    def finish(self, node: torch.fx.Node, result: Operand, index: int | None = None) -> Operand:
        """Check the type of ``result`` against torch's and adopt torch's (simplified) shape."""
        if isinstance(result, Ref):
            want = self.meta_type(node, index)
            have = self.types[result.name]
            if want.dtype != have.dtype or not (
                len(want.shape) == len(have.shape)
                and all(same(a, b) for a, b in zip(want.shape, have.shape, strict=True))
            ):
                # torch's type is the truth: a rule that disagrees is larkc's bug, not the reference's
                raise InternalError(
                    f"the spec rule of {node.target} gives {have} but torch gives {want}", self.span(node)
                )
            for i, n in enumerate(self.nodes):
                if n.name == result.name and n.type != want:
                    self.nodes[i] = dataclasses.replace(n, type=want)
                    self.types[result.name] = want
        return result

    def bind(self, node: torch.fx.Node, result: Operand) -> None:
        self.env[node] = self.finish(node, result)

    # driver ---------------------------------------------------------------------------------------

    def convert(self, ep: Any, args: Sequence[_Arg]) -> tuple[list[SpecInput], list[SpecParam], list[str]]:
        from torch.export.graph_signature import InputKind, OutputKind

        from larkc.reference.aten import HANDLERS, IGNORED, aten_name

        self._check_state(ep)
        placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
        tensor_args = iter([a for a in args if a.spec is not None])
        self.used.update(a.name for a in args if a.spec is not None)  # parameters taken as inputs keep the name
        inputs: list[SpecInput] = []
        params: list[SpecParam] = []
        for spec in ep.graph_signature.input_specs:
            ph = placeholders.get(getattr(spec.arg, "name", ""))
            if ph is None:
                continue
            if spec.kind is InputKind.USER_INPUT:
                if not isinstance(ph.meta.get("val"), torch.Tensor):
                    continue
                arg = next(tensor_args)
                assert arg.spec is not None
                self.used.add(arg.name)
                typ = ValueType(tuple(simplify(d) for d in arg.spec.shape), arg.spec.dtype)
                bounds = (
                    (arg.spec.low, arg.spec.high) if arg.spec.low is not None and arg.spec.high is not None else None
                )
                inputs.append(SpecInput(arg.name, typ, self.ref.span, bounds))
                if bounds is not None:
                    self.value_ranges[arg.name] = bounds
                self.types[arg.name] = typ
                self.env[ph] = Ref(arg.name)
                continue
            target = spec.target or ph.name
            value = ep.state_dict.get(target) if target in ep.state_dict else ep.constants.get(target)
            if not isinstance(value, torch.Tensor):
                raise ReferenceError_(f"reference holds a non-tensor constant {target!r}", self.ref.span)
            kind = {InputKind.PARAMETER: ParamKind.PARAMETER, InputKind.BUFFER: ParamKind.BUFFER}.get(
                spec.kind, ParamKind.CONSTANT
            )
            name = self.fresh(target.removeprefix("inner.").removeprefix("fn."))
            typ = self.value_type(value, ph)
            params.append(SpecParam(name, kind, typ, value.detach().clone(), self.ref.span))
            self.types[name] = typ
            self.env[ph] = Ref(name)

        for node in ep.graph.nodes:
            if node.op != "call_function":
                continue
            key = aten_name(node.target)
            if key in IGNORED:
                if key == "aten._assert_scalar.default":
                    self._assume(node)
                continue
            if key == "getitem":
                src, index = node.args
                parts = self.env.get(src)
                if not isinstance(parts, tuple):
                    raise self.error(node, f"indexing a non-tuple result in reference: {_line_text(self.span(node))}")
                part = parts[index]
                if part is None and all(u.op == "output" for u in node.users):
                    continue  # unused (or only an updated buffer, which the spec does not return)
                if part is None:
                    raise self.error(node, f"unsupported use of a secondary result of {src.target}")
                self.env[node] = part
                continue
            handler = HANDLERS.get(key)
            if handler is None:
                line = _line_text(self.span(node))
                raise self.error(node, f"unsupported op {key} in reference" + (f": {line}" if line else ""))
            self._read_uninitialised = None
            try:
                handler(self, node)
            except ReferenceError_ as e:
                raise e.with_span(self.span(node)) from None
            read = self._pending_read()
            if read is not None:
                self._taint(node, read)

        outputs: list[str] = []
        output_node = next(n for n in ep.graph.nodes if n.op == "output")
        returned = list(output_node.args[0])
        for spec, value in zip(ep.graph_signature.output_specs, returned, strict=True):
            if spec.kind is not OutputKind.USER_OUTPUT:
                continue  # a mutated input or buffer: the spec is what the reference returns
            if not isinstance(value, torch.fx.Node) or not isinstance(self.env.get(value), Ref):
                raise ReferenceError_(f"the reference returns a non-tensor value ({value!r})", self.ref.span)
            name = self.env[value].name
            if name in self.tainted:
                raise self.tainted[name]
            if name in self.partial:
                raise self.uninitialised(value, self.env[value])
            outputs.append(self.env[value].name)
        return inputs, params, outputs

    def _check_state(self, ep: Any) -> None:
        """A reference that updates a buffer in place and reads the new value is stateful: its result
        depends on how often it ran, which no spec of one call describes. (An update nothing reads, such
        as batch norm's running statistics in training mode, is dropped.)"""
        from torch.export.graph_signature import OutputKind

        output_node = next(n for n in ep.graph.nodes if n.op == "output")
        returned = list(output_node.args[0])
        for spec, value in zip(ep.graph_signature.output_specs, returned, strict=True):
            if spec.kind is not OutputKind.BUFFER_MUTATION or not isinstance(value, torch.fx.Node):
                continue
            if any(u.op != "output" for u in value.users):
                raise self.error(
                    value,
                    f"reference updates its buffer {str(spec.target).removeprefix('inner.')!r} in place and reads"
                    " the new value: the module"
                    " is stateful (a spec describes one call; pass the state as an input instead)",
                )

    def _assume(self, node: torch.fx.Node) -> None:
        cond = node.args[0]
        val = cond.meta.get("val") if isinstance(cond, torch.fx.Node) else None
        if not isinstance(val, torch.SymBool):
            return
        sub = val.node.expr.xreplace(self.sym_map)
        if {str(s) for s in sub.free_symbols} - self.task_symbols:
            return
        with contextlib.suppress(ReferenceError_):  # a guard with no shape-expression form is dropped
            self.assumptions.append(from_sympy(sub))


def _symbol_map(ep: Any, args: Sequence[_Arg], ref: LoadedReference) -> dict[Any, Any]:
    """torch's size symbols of the inputs -> the task's shape expressions (as sympy), checking that the
    reference kept every symbolic dim symbolic and did not equate different ones."""
    from torch.export.graph_signature import InputKind

    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    user = [
        placeholders[s.arg.name]
        for s in ep.graph_signature.input_specs
        if s.kind is InputKind.USER_INPUT and isinstance(placeholders[s.arg.name].meta.get("val"), torch.Tensor)
    ]
    tensor_args = [a for a in args if a.spec is not None]
    mapping: dict[Any, Any] = {}
    origin: dict[Any, str] = {}
    for ph, arg in zip(user, tensor_args, strict=True):
        assert arg.spec is not None
        fake = ph.meta["val"]
        for i, (d, want) in enumerate(zip(fake.shape, arg.spec.shape, strict=True)):
            where = f"dim {i} of input {arg.name!r}"
            expr = d.node.expr if isinstance(d, torch.SymInt) else None
            if expr is None or expr.is_number:
                if not isinstance(want, ShapeNum):
                    raise ReferenceError_(
                        f"the reference fixes the symbolic size {fmt(want)} ({where}) at its example value {int(d)}",
                        ref.span,
                        notes=(
                            "a Python loop over the dim, an unpacking or a size test makes torch specialise it;"
                            " declare the size as a constant or keep the reference generic",
                        ),
                    )
                continue
            target = to_sympy(want)
            if not expr.is_Symbol:
                raise ReferenceError_(f"torch traced {where} as {expr}, which larkc cannot map", ref.span)
            if expr in mapping and not same(from_sympy(mapping[expr]), want):
                raise ReferenceError_(
                    f"the reference requires {fmt(from_sympy(mapping[expr]))} == {fmt(want)}"
                    f" ({origin[expr]} and {where})",
                    ref.span,
                )
            mapping.setdefault(expr, target)
            origin.setdefault(expr, where)
    return mapping


def _dead_code(nodes: list[SpecNode], outputs: Sequence[str]) -> list[SpecNode]:
    live = set(outputs)
    keep: list[SpecNode] = []
    for n in reversed(nodes):
        if n.name in live:
            keep.append(n)
            live.update(a.name for a in n.args if isinstance(a, Ref))
    return keep[::-1]


def trace_reference(
    reference: object,
    inputs: Mapping[str, TensorSpec | object] | None = None,
    *,
    symbols: Sequence[str] = (),
    init_inputs: Sequence[Any] = (),
    file: str | None = None,
    example_shapes: Mapping[str, int] | None = None,
    constraints: Sequence[ShapeExpr] = (),
    instances: Sequence[Mapping[str, int]] = (),
    name: str | None = None,
    param_inputs: Mapping[str, str] | None = None,
) -> SpecGraph:
    """Trace ``reference`` into a spec graph.

    ``reference`` is a function, an ``nn.Module`` subclass (constructed with ``init_inputs``) or
    instance, or the path of a reference file. ``inputs`` maps the reference's tensor parameters (by
    name, else by position) to :class:`~larkc.tasks.TensorSpec` (or anything ``TensorSpec.of`` accepts)
    with shapes over ``symbols``; empty for a KernelBench file takes ``get_inputs()`` (concrete shapes).
    ``example_shapes`` gives sizes to trace with; the others are chosen from ``instances`` and
    ``constraints`` (see :func:`choose_sizes`). ``file`` names the source for spans when the reference's
    own source file cannot be found. ``param_inputs`` names inputs that stand for parameters of the reference
    module (input name to parameter path, ``linear.weight``): the spec takes them as inputs. Where it is
    not given, inputs that are no parameter of forward and are named as the tracer names the module's
    parameters (``linear_weight``) are taken so, when all such inputs are.
    """
    loaded = load_reference(reference, init_inputs, file)
    given = dict(inputs or {})
    if param_inputs is None:
        param_inputs = _params_named(loaded, given)
    ref = with_params(loaded, param_inputs)
    if not given and ref.file_inputs:
        given = dict(ref.file_inputs)
    symbols = tuple(symbols) or ref.file_symbols
    specs = {k: TensorSpec.of(v, f"input {k!r}") for k, v in given.items()}
    if specs:
        args = _match_inputs(ref, specs)
    elif ref.example_args is not None:
        args, specs = _kernelbench_args(ref, ref.example_args)
    else:
        raise ReferenceError_(f"reference {ref.name}: no inputs given (and it is not a KernelBench file)", ref.span)
    used: set[str] = set()
    for s in specs.values():
        for d in s.shape:
            used |= free_symbols(d)
    unknown = used - set(symbols)
    if unknown:
        raise ReferenceError_(f"input shapes use undeclared symbol(s) {', '.join(sorted(unknown))}", ref.span)
    ordered = [s for s in symbols if s in used]
    # the constraints about the spec's symbols (others concern only the kernel's launch)
    conditions = [c for c in constraints if free_symbols(c) <= set(ordered)]
    sizes = choose_sizes(ordered, conditions, instances, example_shapes)
    ep = _export(ref, args, sizes)
    with assuming(conditions):
        sym_map = _symbol_map(ep, args, ref)
        conv = Converter(ref, sym_map, set(ordered))
        inputs_, params, outputs = conv.convert(ep, args)
    nodes = _dead_code(conv.nodes, outputs)
    live = {a.name for n in nodes for a in n.args if isinstance(a, Ref)} | set(outputs)
    graph = SpecGraph(
        name=name or ref.name,
        symbols=tuple(ordered),
        inputs=tuple(inputs_),
        params=tuple(p for p in params if p.name in live),
        nodes=tuple(nodes),
        outputs=tuple(outputs),
        assumptions=tuple(dict.fromkeys([*conditions, *conv.assumptions])),
        span=ref.span,
    )
    graph.verify()
    return graph


def trace_task(task: Task) -> SpecGraph:
    """Trace the reference of ``task`` with the task's inputs, symbols, constraints and instances."""
    if task.reference is None:
        raise ReferenceError_(f"task {task.name} has no reference")
    file = str(task.task_file) if task.task_file is not None else None
    graph = trace_reference(
        task.reference,
        task.inputs,
        symbols=task.symbols,
        init_inputs=task.init_inputs,
        file=file,
        constraints=task.constraints,
        # tracing runs the reference on example tensors: an instance of huge tensors is no example
        instances=[i for i in task.instances if _example_elements(task, i) <= _TRACE_EXAMPLE_ELEMENTS],
        name=task.name,
        param_inputs=task.params,
    )
    _check_outputs(task, graph)
    return graph


#: The most elements (all inputs together) of a task instance that tracing takes for its example sizes;
#: the shapes' symbols, not the sizes, are what the trace needs, and larger examples cost memory only.
_TRACE_EXAMPLE_ELEMENTS = 1 << 22


def _example_elements(task: Task, instance: Mapping[str, int]) -> int:
    total = 0
    for spec in task.inputs.values():
        try:
            total += math.prod(int(evaluate(d, dict(instance))) for d in spec.shape)
        except LarkcError:
            return _TRACE_EXAMPLE_ELEMENTS + 1
    return total


def _check_outputs(task: Task, graph: SpecGraph) -> None:
    """The reference returns what the task says the kernel writes: as many tensors, of equal types."""
    if not task.outputs:
        return
    have = graph.output_types()
    if len(have) != len(task.outputs):
        raise ReferenceError_(
            f"task {task.name}: the reference returns {len(have)} tensor(s) but the task declares"
            f" {len(task.outputs)} output(s) ({', '.join(task.outputs)})",
            graph.span,
        )
    with assuming(graph.assumptions):
        for (name, spec), typ in zip(task.outputs.items(), have, strict=True):
            shape_ok = len(spec.shape) == len(typ.shape) and all(
                same(a, b) for a, b in zip(spec.shape, typ.shape, strict=True)
            )
            if not shape_ok or spec.dtype != typ.dtype:
                raise ReferenceError_(
                    f"task {task.name}: output {name!r} is declared {spec} but the reference returns {typ}",
                    graph.span,
                )
