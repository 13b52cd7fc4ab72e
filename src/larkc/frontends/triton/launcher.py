"""Launches of Triton kernels captured from the Python code that makes them, and their arguments derived as
functions of the shapes.

A Triton kernel is usually launched by a wrapper (``def softmax(x): ... kernel[grid](y, x, ...); return
y``, an ``autograd.Function.forward``). :func:`capture_launches` calls such a launcher on real tensors with
every ``kernel[grid](...)`` intercepted — recorded, not run — and returns what each launch passed: the
kernel, the grid, every argument by parameter name. :func:`derive_launch` runs the launcher on several
shape instances and explains each recorded integer (a size, a stride, a grid dimension, a constexpr block
size) as a shape expression over the task's symbols that gives the recorded value on every instance,
and each tensor as an input of the launcher, one of its results, or a scratch buffer.

Unlike the frontend proper, this imports and runs the user's launcher (and so Triton); tests of it are
marked ``triton``.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from larkc.errors import InternalError, LarkcError, Span, Stage
from larkc.tasks.shape_expr import next_pow2
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception, user_frame

__all__ = [
    "CUDA_STUBS",
    "CapturedLaunch",
    "DerivedLaunch",
    "capture_launches",
    "derive_expression",
    "derive_launch",
    "probe_instances",
    "task_from_launcher",
]


@dataclass
class CapturedLaunch:
    """One intercepted ``kernel[grid](...)``: the kernel function (the Python function under
    ``@triton.jit`` and any ``autotune``/``heuristics`` wrappers), its source file, the grid (evaluated
    with the launch's arguments when it is a function) and every argument by parameter name."""

    kernel: str
    source: Path
    grid: tuple[int, ...] | None
    grid_fn: Callable[[dict[str, Any]], Any] | None
    arguments: dict[str, Any]
    constexpr_params: tuple[str, ...]


def _base_function(obj: Any) -> Callable[..., Any]:
    f = obj
    for _ in range(16):
        if inspect.isfunction(f):
            return f
        f = getattr(f, "fn", None)
        if f is None:
            break
    raise LarkcError(f"cannot find the Python function of the Triton kernel {obj!r}", stage=Stage.FRONTEND)


def _constexpr_params(fn: Callable[..., Any]) -> tuple[str, ...]:
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        ann = p.annotation
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
        if "constexpr" in str(text):
            out.append(name)
    return tuple(out)


@contextlib.contextmanager
def _intercepted(record: Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], None]) -> Iterator[None]:
    from triton.runtime import jit

    classes: list[type] = [jit.KernelInterface]
    with contextlib.suppress(ImportError):
        from triton.runtime.interpreter import InterpretedFunction

        classes.append(InterpretedFunction)
    saved = [(c, c.__dict__.get("__getitem__")) for c in classes]

    def getitem(self: Any, grid: Any) -> Callable[..., None]:
        def launch(*args: Any, **kwargs: Any) -> None:
            record(self, grid, args, kwargs)

        return launch

    try:
        for c in classes:
            setattr(c, "__getitem__", getitem)  # noqa: B010 - patching a dunder on a class
        yield
    finally:
        for c, orig in saved:
            if orig is None:
                with contextlib.suppress(AttributeError):
                    delattr(c, "__getitem__")
            else:
                setattr(c, "__getitem__", orig)  # noqa: B010


class _StubStream:
    """What ``torch.cuda.current_stream()`` gives without a GPU: the default stream (handle 0)."""

    cuda_stream = 0

    def synchronize(self) -> None:
        return None


_H100_PROPERTIES = {
    "name": "NVIDIA H100 80GB HBM3",
    "major": 9,
    "minor": 0,
    "multi_processor_count": 132,
    "total_memory": 80 * 2**30,
    "max_shared_memory_per_block_optin": 232448,
    "warp_size": 32,
}


def _properties(*_: Any, **__: Any) -> Any:
    import types

    return types.SimpleNamespace(**_H100_PROPERTIES)


#: The ``torch.cuda`` functions that launchers call to pick a device, a stream or a configuration, with
#: what each gives when no GPU is present during a capture (an H100's values where the launcher may choose
#: by them) and the line that says so. Only used when ``torch.cuda.is_available()`` is false; each one a
#: launcher calls is listed by :func:`capture_launches` (and printed when a task is derived).
CUDA_STUBS: dict[str, tuple[Callable[..., Any], str]] = {
    "current_device": (lambda *a, **k: 0, "torch.cuda.current_device() gave 0"),
    "set_device": (lambda *a, **k: None, "torch.cuda.set_device(...) did nothing"),
    "device": (lambda *a, **k: contextlib.nullcontext(), "torch.cuda.device(...) was an empty context"),
    "synchronize": (lambda *a, **k: None, "torch.cuda.synchronize() did nothing"),
    "current_stream": (lambda *a, **k: _StubStream(), "torch.cuda.current_stream() gave the default stream"),
    "get_device_capability": (lambda *a, **k: (9, 0), "torch.cuda.get_device_capability() gave (9, 0) (an H100's)"),
    "get_device_name": (lambda *a, **k: _H100_PROPERTIES["name"], "torch.cuda.get_device_name() gave an H100's"),
    "get_device_properties": (_properties, "torch.cuda.get_device_properties() gave an H100's (132 SMs, 80 GiB)"),
}


@contextlib.contextmanager
def cuda_stubbed(used: list[str]) -> Iterator[None]:
    """Without a GPU, ``torch.cuda``'s device, stream and capability functions replaced by
    :data:`CUDA_STUBS` (the line of each one called is appended to ``used``, once). With one, only
    ``torch.cuda.device``: the capture's tensors are on the CPU, and ``torch.cuda.device(x.device)`` refuses
    a CPU device."""
    import torch

    gpu = torch.cuda.is_available()
    saved = {
        name: getattr(torch.cuda, name)
        for name in CUDA_STUBS
        if hasattr(torch.cuda, name) and name != "device" and not gpu
    }
    # torch.cuda.device is a class that libraries alias at import (torch_gpu_device = torch.cuda.device):
    # its methods are replaced, so that every alias is an empty context
    device_class = torch.cuda.device
    device_methods = {m: device_class.__dict__[m] for m in ("__init__", "__enter__", "__exit__")}

    def stub(name: str) -> Callable[..., Any]:
        fn, line = CUDA_STUBS[name]

        def called(*a: Any, **k: Any) -> Any:
            if line not in used:
                used.append(line)
            return fn(*a, **k)

        return called

    def device_init(self: Any, *a: Any, **k: Any) -> None:
        stub("device")()

    try:
        for name in saved:
            setattr(torch.cuda, name, stub(name))
        setattr(device_class, "__init__", device_init)  # noqa: B010 - patching a dunder on a class
        setattr(device_class, "__enter__", lambda self: None)  # noqa: B010
        setattr(device_class, "__exit__", lambda self, *exc: None)  # noqa: B010
        yield
    finally:
        for name, fn in saved.items():
            setattr(torch.cuda, name, fn)
        for m, fn in device_methods.items():
            setattr(device_class, m, fn)


@contextlib.contextmanager
def _marked_allocations() -> Iterator[None]:
    """``torch.empty``, ``empty_like``, ``empty_strided`` and ``Tensor.new_empty`` fill what they return with
    a mark (NaN, an integer type's maximum): uninitialised memory may hold anything, and so never the values
    of an input that the allocator freed before, which would pass for a copy of it."""
    import torch

    def marked(fn: Callable[..., Any]) -> Callable[..., Any]:
        def alloc(*a: Any, **k: Any) -> Any:
            t = fn(*a, **k)
            if isinstance(t, torch.Tensor) and t.numel() > 0:
                # larkc's own write, unseen by a torch function mode of the caller's (the KernelBench
                # Triton capture refuses PyTorch writing tensors in forward)
                with torch._C.DisableTorchFunction():
                    if t.is_floating_point():
                        t.fill_(float("nan"))
                    elif t.dtype != torch.bool and not t.is_complex():
                        t.fill_(torch.iinfo(t.dtype).max)
            return t

        return alloc

    names = ("empty", "empty_like", "empty_strided")
    saved: list[tuple[Any, str, Any]] = [(torch, n, getattr(torch, n)) for n in names]
    saved.append((torch.Tensor, "new_empty", torch.Tensor.new_empty))
    try:
        for owner, n, fn in saved:
            setattr(owner, n, marked(fn))
        yield
    finally:
        for owner, n, fn in saved:
            setattr(owner, n, fn)


def capture_launches(
    launcher: Callable[..., Any], *args: Any, stubbed: list[str] | None = None, **kwargs: Any
) -> tuple[Any, list[CapturedLaunch]]:
    """Call ``launcher(*args, **kwargs)`` with Triton launches intercepted; its result and the launches.
    Without a GPU, the ``torch.cuda`` functions of :data:`CUDA_STUBS` are stubbed during the call: the
    line of each one called is appended to ``stubbed``."""
    launches: list[CapturedLaunch] = []

    def record(kernel: Any, grid: Any, a: tuple[Any, ...], kw: dict[str, Any]) -> None:
        fn = _base_function(kernel)
        sig = inspect.signature(fn)
        try:
            bound = sig.bind_partial(*a, **{k: v for k, v in kw.items() if k in sig.parameters})
        except TypeError as e:
            raise LarkcError(f"launch of {fn.__name__}: {e}", stage=Stage.FRONTEND) from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        source = Path(inspect.getsourcefile(fn) or "<unknown>")
        grid_t: tuple[int, ...] | None = None
        grid_fn = None
        if callable(grid):
            grid_fn = grid
        else:
            grid_t = tuple(int(g) for g in (grid if isinstance(grid, tuple | list) else (grid,)))
        launches.append(CapturedLaunch(fn.__name__, source, grid_t, grid_fn, arguments, _constexpr_params(fn)))

    with _intercepted(record), cuda_stubbed(stubbed if stubbed is not None else []), _marked_allocations():
        result = launcher(*args, **kwargs)
    return result, launches


def evaluate_grid(launch: CapturedLaunch, constexprs: Mapping[str, Any]) -> tuple[int, ...]:
    """The launch's grid, calling a grid function with the arguments and ``constexprs`` (an autotune config)."""
    if launch.grid is not None:
        return launch.grid
    assert launch.grid_fn is not None
    meta = {**launch.arguments, **constexprs}
    g = launch.grid_fn(meta)
    return tuple(int(x) for x in (g if isinstance(g, tuple | list) else (g,)))


# -- deriving shape expressions -------------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _products(symbols: Sequence[str], max_factors: int = 3) -> Iterator[tuple[str, ...]]:
    for k in range(1, max_factors + 1):
        yield from itertools.combinations_with_replacement(symbols, k)


Shape = Callable[[Mapping[str, int]], int]


def _product(p: tuple[str, ...]) -> Shape:
    return lambda inst: math.prod(inst[s] for s in p)


def _candidates(symbols: Sequence[str], divisors: Sequence[int]) -> Iterator[tuple[str, Shape]]:
    """Shape expressions in order of preference (simplest first), each with its evaluation."""
    prods = list(_products(symbols))
    for p in prods:
        yield "*".join(p), _product(p)
    for s in symbols:
        yield f"next_pow2({s})", (lambda inst, s=s: next_pow2(inst[s]))  # type: ignore[misc]
    for p in prods:  # the stride of a tensor with a doubled dimension (2 * N)
        f = _product(p)
        for c in range(2, 9):
            yield f"{c}*{'*'.join(p)}", (lambda inst, f=f, c=c: c * f(inst))  # type: ignore[misc]
    ks = sorted({*divisors, *(1 << i for i in range(1, 13))} - {0, 1})
    for p in prods:
        f = _product(p)
        for k in ks:
            yield f"cdiv({'*'.join(p)}, {k})", (lambda inst, f=f, k=k: _cdiv(f(inst), k))  # type: ignore[misc]
    for p in prods:  # a half (D // 2), a block size of a half (next_pow2(D // 2)) or of a product
        f = _product(p)
        for c in range(2, 9):
            yield f"{'*'.join(p)} // {c}", (lambda inst, f=f, c=c: f(inst) // c)  # type: ignore[misc]
        yield f"next_pow2({'*'.join(p)})", (lambda inst, f=f: next_pow2(f(inst)))  # type: ignore[misc]
        for c in range(2, 9):
            yield f"next_pow2({'*'.join(p)} // {c})", (lambda inst, f=f, c=c: next_pow2(f(inst) // c))  # type: ignore[misc]
            yield f"next_pow2({c}*{'*'.join(p)})", (lambda inst, f=f, c=c: next_pow2(c * f(inst)))  # type: ignore[misc]
    for a, b in itertools.combinations(symbols, 2):  # one block for two head counts (Liger's RoPE)
        yield (
            f"max(next_pow2({a}), next_pow2({b}))",
            (lambda inst, a=a, b=b: max(next_pow2(inst[a]), next_pow2(inst[b]))),  # type: ignore[misc]
        )
    singles = [(p, _product(p)) for p in prods[: len(symbols)]]
    for (p1, f1, k1), (p2, f2, k2) in itertools.combinations_with_replacement(
        [(p, f, k) for (p, f) in singles for k in ks], 2
    ):
        text = f"cdiv({'*'.join(p1)}, {k1}) * cdiv({'*'.join(p2)}, {k2})"
        yield text, (lambda inst, f1=f1, k1=k1, f2=f2, k2=k2: _cdiv(f1(inst), k1) * _cdiv(f2(inst), k2))  # type: ignore[misc]
    for p in prods:
        f = _product(p)
        for c in (*range(1, 5), *range(-4, 0)):
            yield f"{'*'.join(p)} {'+' if c > 0 else '-'} {abs(c)}", (lambda inst, f=f, c=c: f(inst) + c)  # type: ignore[misc]


def derive_expression(
    values: Sequence[int],
    instances: Sequence[Mapping[str, int]],
    symbols: Sequence[str],
    divisors: Sequence[int] = (),
    config_names: Sequence[str] = (),
) -> str | None:
    """The simplest shape expression over ``symbols`` equal to ``values[i]`` on ``instances[i]`` for every
    ``i``: a constant, a product of up to three symbols, ``next_pow2`` of one, a product times a constant up
    to 8 (``2*n``), ``cdiv`` of a product by one of ``divisors`` (or a power of two), a product
    floor-divided by a constant up to 8 (``d // 2``), ``next_pow2`` of a product or of such a quotient, the
    larger ``next_pow2`` of two symbols, a product of two ``cdiv``s, or a product plus a small constant;
    ``None`` if none fits.

    ``config_names`` are autotune constexprs (``BLOCK_N``) whose values each instance also gives (one
    point per instance and configuration): an expression may then also divide by one of them,
    ``cdiv(n, BLOCK_N)`` or ``cdiv(m, BLOCK_M) * cdiv(n, BLOCK_N)``, as a grid function reading
    ``meta["BLOCK_N"]`` does."""
    if len(set(values)) == 1 and (len(instances) > 1 or not symbols):
        return str(values[0])
    candidates = _candidates(symbols, divisors)
    if config_names:
        candidates = itertools.chain(
            _config_candidates(symbols, config_names), _candidates([*symbols, *config_names], divisors)
        )
    for text, f in candidates:
        if all(f(inst) == v for inst, v in zip(instances, values, strict=True)):
            return text
    return None


def _config_candidates(symbols: Sequence[str], names: Sequence[str]) -> Iterator[tuple[str, Shape]]:
    """Grid dimensions that divide by an autotune constexpr: ``cdiv`` (or ``//``) of a product of symbols
    by one of ``names``, and the product of two such quotients (the matmul tutorial's one-dimensional
    grid)."""
    for div in ("cdiv", "//"):
        for p in _products(symbols):
            for name in names:
                yield _quotient_text(div, "*".join(p), name), _quotient(div, p, name)
    quotients = [(div, (a,), n) for div in ("cdiv", "//") for a in symbols for n in names]
    for (d1, a, na), (d2, b, nb) in itertools.combinations_with_replacement(quotients, 2):
        f, g = _quotient(d1, a, na), _quotient(d2, b, nb)
        yield f"{_quotient_text(d1, a[0], na)} * {_quotient_text(d2, b[0], nb)}", _times(f, g)


def _quotient(div: str, p: tuple[str, ...], name: str) -> Shape:
    f = _product(p)
    return lambda inst: _cdiv(f(inst), inst[name]) if div == "cdiv" else f(inst) // inst[name]


def _times(f: Shape, g: Shape) -> Shape:
    return lambda inst: f(inst) * g(inst)


def _quotient_text(div: str, a: str, b: str) -> str:
    return f"cdiv({a}, {b})" if div == "cdiv" else f"({a} // {b})"


@dataclass
class DerivedLaunch:
    """A launch explained in terms of the task: ``tensors`` maps each pointer parameter to an input name,
    ``out<i>`` (the launcher's i-th result) or ``scratch<i>``; ``sizes`` maps every other integer
    parameter and constexpr to a shape expression; ``scalars`` the float and bool ones (constant across
    instances); ``grid`` is shape expressions; ``output_shapes``/``scratch_shapes`` give shapes and
    dtypes of the tensors the launcher allocates."""

    kernel: str
    source: Path
    tensors: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, str] = field(default_factory=dict)
    scalars: dict[str, float | bool] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    grid: tuple[str, ...] = ()
    output_shapes: dict[str, tuple[tuple[str, ...], Any]] = field(default_factory=dict)
    scratch_shapes: dict[str, tuple[tuple[str, ...], Any]] = field(default_factory=dict)
    #: float parameters that vary with the sizes, as scalar expressions (``1 / sqrt(d)``)
    scalar_exprs: dict[str, str] = field(default_factory=dict)
    #: pointer parameters passed ``None`` (an optional tensor left out: Triton's constexpr ``None``)
    nulls: list[str] = field(default_factory=list)
    #: pointer parameters passed a copy of an input made by the launcher (``x.contiguous()`` of a
    #: non-contiguous view, ``x.clone()``): bound to the input, which the kernel must not write through them
    copies: dict[str, str] = field(default_factory=dict)
    #: the ``torch.cuda`` stubs the launcher called (:data:`CUDA_STUBS`), one line each
    stubbed: list[str] = field(default_factory=list)
    #: the probe instances the expressions were also checked on (:func:`probe_instances`)
    probes: list[dict[str, int]] = field(default_factory=list)


def _source_integers(*functions: Any) -> set[int]:
    """The integer literals greater than 1 in the source of each Python function (a launcher, a grid
    lambda): the divisors a grid may use (``triton.cdiv(M, 100)``)."""
    import ast
    import textwrap

    out: set[int] = set()
    for f in functions:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        except (OSError, TypeError, SyntaxError):  # a lambda inside an expression may not parse alone
            continue
        out |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int and n.value > 1}
    return out


#: Factors by which every symbol of a task instance is scaled to make the probe instances: sizes the
#: task's instances do not have, where a shape expression fitted by coincidence (``1`` for
#: ``cdiv(M, 100)`` on instances below 100) gives another value than the launcher's.
PROBE_FACTORS = (7, 13)
#: The factor by which each symbol alone is scaled in the first instance (a size below a large divisor on
#: every instance: ``cdiv(m, 128)`` with ``m < 10``).
PROBE_ONE_SYMBOL_FACTOR = 97
#: The most elements a probe instance's inputs may have together (larger probes are skipped).
PROBE_MAX_ELEMENTS = 1 << 22


def probe_instances(
    instances: Sequence[Mapping[str, int]], admits: Callable[[Mapping[str, int]], bool] | None = None
) -> list[dict[str, int]]:
    """The instances with every symbol multiplied by each of :data:`PROBE_FACTORS` (which keeps
    divisibility constraints and ratios between symbols), then the first instance with each symbol alone
    multiplied by :data:`PROBE_ONE_SYMBOL_FACTOR`; those ``admits`` accepts, each once."""
    candidates = [{s: v * k for s, v in inst.items()} for k in PROBE_FACTORS for inst in instances]
    if instances:
        first = instances[0]
        candidates += [{**first, s: first[s] * PROBE_ONE_SYMBOL_FACTOR} for s in first]
    out: list[dict[str, int]] = []
    for probe in candidates:
        if probe not in out and probe not in instances and (admits is None or admits(probe)):
            out.append(probe)
    return out


def derive_scalar_expression(
    values: Sequence[float], instances: Sequence[Mapping[str, int]], symbols: Sequence[str]
) -> str | None:
    """The simplest float expression over ``symbols`` equal (to 1e-12, relatively) to ``values[i]`` on
    ``instances[i]``: ``1 / n``, ``1 / sqrt(n)``, ``sqrt(n)`` or ``n`` for a product ``n`` of up to three
    symbols (a scale the launcher computes from the sizes); ``None`` if none fits."""
    from larkc.tasks import ScalarExpr

    forms = ("1 / ({})", "1 / sqrt({})", "sqrt({})", "1.0 * ({})")
    for p in _products(symbols):
        for form in forms:
            text = form.format(" * ".join(p))
            expr = ScalarExpr(text)
            if all(
                math.isclose(expr.value(dict(inst)).approx, v, rel_tol=1e-12)
                for inst, v in zip(instances, values, strict=True)
            ):
                return text
    return None


def derive_launch(
    launcher: Callable[..., Any],
    make_inputs: Callable[[Mapping[str, int]], dict[str, Any]],
    symbols: Sequence[str],
    instances: Sequence[Mapping[str, int]],
    admits: Callable[[Mapping[str, int]], bool] | None = None,
    probe: bool = True,
) -> DerivedLaunch:
    """Run ``launcher(*make_inputs(instance).values())`` (the inputs in order) on every instance
    and derive its one kernel launch as functions of the shapes. Needs at least two instances; raises
    :class:`LarkcError` naming what cannot be derived.

    Every expression is also checked on probe instances (:func:`probe_instances`: the instances scaled,
    those ``admits`` accepts, as the task's constraints do): the launcher runs there too, and an
    expression must give the recorded value on every instance and every probe, so that one that fits the
    task's sizes by coincidence is not taken for the launcher's rule; a value that no expression explains
    there too is an error listing the values. A probe where the launcher raises, or whose inputs exceed
    :data:`PROBE_MAX_ELEMENTS`, is skipped. ``probe=False``: a caller that chose its instances apart
    from each other for the same purpose (the KernelBench Triton capture) checks no probes."""
    import torch

    if len(instances) < 2:
        raise LarkcError("deriving a launch needs at least two shape instances", stage=Stage.TASK)
    stubbed: list[str] = []
    records: list[tuple[dict[str, Any], Any, CapturedLaunch]] = []
    for inst in instances:
        inputs = make_inputs(inst)
        try:
            result, launches = capture_launches(launcher, *inputs.values(), stubbed=stubbed)
        except (LarkcError, InternalError):
            raise
        except USER_CODE_ERRORS as e:
            frame = user_frame(e)
            span = Span(frame[0], frame[1], 1, frame[1], 2) if frame else None
            name = getattr(launcher, "__name__", "launcher")
            message = f"the launcher {name} {describe_user_exception(e)} at {_fmt_instance(inst)}"
            if stubbed:
                message += f" (without a GPU: {'; '.join(stubbed)})"
            raise LarkcError(message, span, stage=Stage.TASK) from None
        if len(launches) != 1:
            raise LarkcError(f"the launcher made {len(launches)} kernel launches; one is supported", stage=Stage.TASK)
        records.append((inputs, result, launches[0]))
    points: list[Mapping[str, int]] = list(instances)
    for probe_at in probe_instances(instances, admits) if probe else []:
        inputs = make_inputs(probe_at)
        if sum(t.numel() for t in inputs.values() if isinstance(t, torch.Tensor)) > PROBE_MAX_ELEMENTS:
            continue
        try:
            result, launches = capture_launches(launcher, *inputs.values(), stubbed=stubbed)
        except USER_CODE_ERRORS:  # the launcher refuses a size the task did not ask for: no check there
            continue
        if len(launches) == 1 and launches[0].kernel == records[0][2].kernel:
            records.append((inputs, result, launches[0]))
            points.append(probe_at)
    first = records[0][2]
    d = DerivedLaunch(first.kernel, first.source)
    d.stubbed = stubbed
    d.probes = [dict(p) for p in points[len(instances) :]]
    grid_fns = [first.grid_fn] if first.grid_fn is not None else []
    # candidate divisors: the integers the launch passes on every instance alike (BLOCK_M=128) and the
    # literals of the launcher (sizes that vary between instances would divide by coincidence)
    constant = {
        v
        for name, v in first.arguments.items()
        if type(v) is int and v > 1 and all(ln.arguments.get(name) == v for _, _, ln in records)
    }
    divisors = sorted(constant | _source_integers(launcher, *grid_fns))

    def where(values: Sequence[Any]) -> str:
        return "(" + "; ".join(f"{v} at {_fmt_instance(p)}" for v, p in zip(values, points, strict=True)) + ")"

    for name, v0 in first.arguments.items():
        per = [ln.arguments.get(name) for _, _, ln in records]
        if isinstance(v0, torch.Tensor):
            d.tensors[name] = _tensor_role(
                name, [r[0] for r in records], [r[1] for r in records], per, d, symbols, points
            )
        elif isinstance(v0, bool) or (isinstance(v0, float) and len(set(per)) == 1):
            if len(set(per)) != 1:
                raise LarkcError(f"argument {name} differs between instances: {per}", stage=Stage.TASK)
            d.scalars[name] = v0
        elif isinstance(v0, float):  # computed from the sizes: 1 / n, 1 / sqrt(head_dim)
            floats = [float(x) if isinstance(x, int | float) else math.nan for x in per]
            text = derive_scalar_expression(floats, points, symbols)
            if text is None:
                raise LarkcError(
                    f"argument {name} of {first.kernel} {where(per)} is no scalar expression over {', '.join(symbols)}"
                    " (1 / n, 1 / sqrt(n), sqrt(n), n of a product n of sizes)",
                    stage=Stage.TASK,
                )
            d.scalar_exprs[name] = text
        elif isinstance(v0, int):
            ints = [x for x in per if isinstance(x, int) and not isinstance(x, bool)]
            expr = derive_expression(ints, points, symbols, divisors) if len(ints) == len(per) else None
            if expr is None:
                raise LarkcError(
                    f"argument {name} of {first.kernel} {where(per)} is no shape expression over {', '.join(symbols)}",
                    stage=Stage.TASK,
                )
            d.sizes[name] = expr
        elif v0 is None:
            if any(x is not None for x in per):
                raise LarkcError(f"argument {name} of {first.kernel} is None on some instances only", stage=Stage.TASK)
            d.nulls.append(name)
        else:
            text = getattr(v0, "name", None) or str(v0)
            if len(set(map(str, per))) != 1:
                raise LarkcError(f"argument {name} differs between instances", stage=Stage.TASK)
            d.dtypes[name] = text
    configs = _grid_configs(first)
    # one point per instance and configuration: the grid function reads the configuration's constexprs
    config_points = [{**p, **{k: v for k, v in c.items() if type(v) is int}} for p in points for c in configs]
    grids = [_grid(ln, c) for _, _, ln in records for c in configs]
    rank = {len(g) for g in grids}
    if len(rank) != 1:
        raise LarkcError("the grid's rank differs between instances", stage=Stage.TASK)
    names = sorted({n for c in configs for n, v in c.items() if type(v) is int})
    dims = []
    for i in range(rank.pop()):
        values = [g[i] for g in grids]
        by_config = any(
            len({values[j * len(configs) + k] for k in range(len(configs))}) > 1 for j in range(len(points))
        )
        if by_config:
            expr = derive_expression(values, config_points, symbols, divisors, config_names=names)
            if expr is None:
                raise LarkcError(
                    f"grid dimension {i} of {first.kernel} depends on the autotune configuration "
                    f"({'; '.join(f'{v} at {_fmt_instance(p)}' for v, p in zip(values, config_points, strict=True))})"
                    f" and is no shape expression over {', '.join([*symbols, *names])}",
                    stage=Stage.TASK,
                )
        else:
            first_config = values[:: len(configs)]
            expr = derive_expression(first_config, points, symbols, divisors)
            if expr is None:
                raise LarkcError(f"grid dimension {i} {where(first_config)} is no shape expression", stage=Stage.TASK)
        dims.append(expr)
    d.grid = tuple(dims)
    return d


def _fmt_instance(inst: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in inst.items())


def _grid_configs(launch: CapturedLaunch) -> list[dict[str, Any]]:
    """The integer constexprs of each ``@triton.autotune`` configuration of the launch's kernel (``[{}]``
    for a kernel that is not autotuned): a grid function may read them (``meta["BLOCK_N"]``); a task's
    grid may name them (``Task.with_launch_constants``)."""
    from larkc.frontends.triton.config import autotune_configs
    from larkc.frontends.triton.source import kernel_source, read_source

    configs: list[dict[str, Any]] = []
    for c in autotune_configs(kernel_source(read_source(launch.source), launch.kernel), launch.kernel):
        if dict(c.constexprs) not in configs:  # launch options alone (num_warps) change no grid
            configs.append(dict(c.constexprs))
    return configs or [{}]


def _grid(launch: CapturedLaunch, config: Mapping[str, Any]) -> tuple[int, ...]:
    try:
        return evaluate_grid(launch, config)
    except KeyError as e:  # the grid function reads a constexpr that neither the launch nor the config gives
        raise LarkcError(
            f"the grid of {launch.kernel} reads {e}, which no configuration gives", stage=Stage.TASK
        ) from None


def _tensor_role(
    param: str,
    inputs: Sequence[Mapping[str, Any]],
    results: Sequence[Any],
    tensors: Sequence[Any],
    d: DerivedLaunch,
    symbols: Sequence[str],
    instances: Sequence[Mapping[str, int]],
) -> str:
    """Which task tensor the pointer argument ``param`` is (the same on every instance)."""
    roles = set()
    for inp, res, t in zip(inputs, results, tensors, strict=True):
        role = None
        for name, x in inp.items():
            if hasattr(x, "data_ptr") and x.data_ptr() == t.data_ptr():
                role = name
        outs = list(res) if isinstance(res, tuple | list) else [res]
        for i, x in enumerate(outs):
            if role is None and hasattr(x, "data_ptr") and x.data_ptr() == t.data_ptr():
                role = "out" if len(outs) == 1 else f"out{i}"
        copied = next((name for name, x in inp.items() if _same_values(x, t)), None)
        rearranged = next((name for name, x in inp.items() if _rearranged_values(x, t)), None)
        if role is None and copied is not None:  # an internal copy of an input (x.clone()): the input's values
            role = f"copy:{copied}"
        elif role is not None and role.startswith("out") and copied is not None:
            # a result the launcher initialised with an input's values (y = x.clone(); kernel updates y in
            # place; return y): the input, updated in place
            role = f"result:{copied}"
        elif role is not None and role.startswith("out") and rearranged is not None:
            raise LarkcError(
                f"argument {param} is the launcher's result {role}, which it initialised with input {rearranged} in"
                " another layout (a transpose or permute made contiguous): not supported; declare the rearranged"
                " tensor as the task's input",
                stage=Stage.TASK,
            )
        if role is None and rearranged is not None:
            raise LarkcError(
                f"argument {param} holds the values of input {rearranged} rearranged by the launcher before the"
                f" launch ({rearranged}.t().contiguous(), a permute, a sort): not supported (the kernel would read a"
                " scratch buffer); declare the rearranged tensor as the task's input",
                stage=Stage.TASK,
            )
        roles.add(role or f"scratch_{param}")
    if len(roles) != 1:
        raise LarkcError(f"argument {param} is a different tensor on different instances", stage=Stage.TASK)
    role = roles.pop()
    if role.startswith("copy:"):
        role = role.removeprefix("copy:")
        d.copies[param] = role
    elif role.startswith("result:"):
        role = role.removeprefix("result:")
    if role.startswith("out") or role.startswith("scratch"):
        shape = []
        for k in range(tensors[0].dim()):
            expr = derive_expression([t.shape[k] for t in tensors], instances, symbols)
            if expr is None:
                raise LarkcError(f"dimension {k} of tensor {param} is no shape expression", stage=Stage.TASK)
            shape.append(expr)
        target = d.output_shapes if role.startswith("out") else d.scratch_shapes
        target[role] = (tuple(shape), tensors[0].dtype)
    return role


def _same_values(x: Any, t: Any) -> bool:
    """Whether the tensor ``t`` (a kernel argument) holds what the input ``x`` holds, in the same shape."""
    import torch

    return (
        isinstance(x, torch.Tensor)
        and x.shape == t.shape
        and x.dtype == t.dtype
        and x.numel() > 0
        and bool(torch.equal(x, t))
    )


def _rearranged_values(x: Any, t: Any) -> bool:
    """Whether the tensor ``t`` holds the values of the input ``x`` in another shape or order."""
    import torch

    if not isinstance(x, torch.Tensor) or x.numel() != t.numel() or x.dtype != t.dtype or x.numel() < 2:
        return False
    a, b = x.flatten(), t.flatten()
    return not torch.equal(a, b) and bool(torch.equal(a.sort().values, b.sort().values))


def _package_module(path: Path) -> tuple[Path, str] | None:
    """For a file inside a package (its folder and those above hold ``__init__.py``): the folder that holds
    the top package and the file's dotted module name (``liger_kernel.ops.rms_norm``); ``None`` otherwise."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.append(folder.name)
        folder = folder.parent
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None
    return folder, ".".join(reversed(parts))


def _load_launcher(spec: str, base: Path, stubbed: list[str] | None = None) -> Callable[..., Any]:
    """``"file.py:function"`` (the file relative to ``base``) imported and looked up. A file inside a
    package is imported as a module of its package (the folder above the top package first on
    ``sys.path``), so that its relative imports (``from .utils import calculate_settings``) resolve; any
    other file on its own. ``torch.cuda`` calls made at import are stubbed without a GPU
    (:func:`cuda_stubbed`), each appended to ``stubbed``."""
    import importlib
    import importlib.util
    import sys

    file, sep, func = spec.rpartition(":")
    if not sep or not file.endswith(".py") or not func.isidentifier():
        raise LarkcError(f"launcher must be 'file.py:function', got {spec!r}", stage=Stage.TASK)
    path = (base / file).resolve()
    if not path.is_file():
        raise LarkcError(f"launcher file {path} does not exist", stage=Stage.TASK)
    package = _package_module(path)
    name = package[1] if package else f"larkc_launcher_{abs(hash(str(path)))}"
    module = sys.modules.get(name)
    if module is None:
        try:
            with cuda_stubbed(stubbed if stubbed is not None else []):
                if package is not None:
                    if str(package[0]) not in sys.path:
                        sys.path.insert(0, str(package[0]))
                    module = importlib.import_module(name)
                else:
                    spec_ = importlib.util.spec_from_file_location(name, path)
                    assert spec_ is not None and spec_.loader is not None
                    module = importlib.util.module_from_spec(spec_)
                    sys.modules[name] = module
                    spec_.loader.exec_module(module)
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            sys.modules.pop(name, None)
            frame = user_frame(e, {str(path)}) or user_frame(e)
            span = Span(frame[0], frame[1], 1, frame[1], 2) if frame else None
            message = f"importing launcher file {path} {describe_user_exception(e)}"
            if package is not None:
                message += f" (imported as {name}, a module of its package)"
            raise LarkcError(message, span, stage=Stage.TASK) from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise LarkcError(f"{path} defines no function {func}", stage=Stage.TASK)
    return fn  # type: ignore[no-any-return]


def task_from_launcher(
    launcher: Callable[..., Any] | str,
    *,
    inputs: Mapping[str, object],
    symbols: Sequence[str],
    instances: Sequence[Mapping[str, int]],
    reference: Any = None,
    constraints: Sequence[str] = (),
    name: str = "",
    tolerance: Mapping[str, float] | None = None,
    base: str | Path | None = None,
    probe: bool = True,
) -> Any:
    """A :class:`~larkc.tasks.Task` for the one kernel launch ``launcher`` makes (a function, or
    ``"file.py:function"`` relative to ``base``, by default the folder of the calling task file).

    ``inputs`` are the launcher's tensor arguments in order (as task tensors: ``"f32[r, d]"``);
    the launcher runs on random tensors of every instance (at least three are advised, with sizes that are
    not multiples of one another) with the launch intercepted; the kernel's arguments, the grid and the
    results' shapes are derived as shape expressions (:func:`derive_launch`), and checked at probe sizes.
    The launcher's results are the task's outputs, ``out`` (or ``out0``, ``out1``, ...) in order, then the
    inputs the kernel writes (in-place tensors, named as the inputs: a launcher that updates its inputs and
    returns nothing, or returns a view of them). ``None`` arguments bind to ``None``. Without a GPU, the
    ``torch.cuda`` calls of :data:`CUDA_STUBS` the launcher makes (at import or call) are stubbed, and each
    one is printed on stderr.
    """
    import sys

    import torch

    from larkc.dtypes import torch_dtype
    from larkc.tasks import Task, TensorSpec
    from larkc.tasks.shape_expr import evaluate, shape_expr

    import_stubbed: list[str] = []
    if isinstance(launcher, str):
        caller = sys._getframe(1).f_globals.get("__file__")
        root = Path(base) if base is not None else (Path(caller).parent if caller else Path.cwd())
        fn = _load_launcher(launcher, root, import_stubbed)
    else:
        fn = launcher
    specs = {k: TensorSpec.of(v, f"input {k!r}") for k, v in inputs.items()}

    def make(inst: Mapping[str, int]) -> dict[str, Any]:
        env = dict(inst)
        g = torch.Generator().manual_seed(0)
        out = {}
        for k, spec in specs.items():
            shape = [int(evaluate(d, env)) for d in spec.shape]
            dt = torch_dtype(spec.dtype)
            t = torch.randn(*shape, generator=g) if dt.is_floating_point else torch.randint(0, 2, shape, generator=g)
            out[k] = t.to(dt)
        return out

    parsed = [shape_expr(c, "constraint") for c in constraints]

    def admits(inst: Mapping[str, int]) -> bool:
        return all(bool(evaluate(c, dict(inst))) for c in parsed)

    # An autotuned kernel: its configurations' constexprs need no binding (each is a specialisation of the
    # task); derive_launch refuses a grid that depends on them.
    d = derive_launch(fn, make, symbols, instances, admits, probe)
    outputs: dict[str, Any] = {
        k: (shape, str(dtype).removeprefix("torch.")) for k, (shape, dtype) in sorted(d.output_shapes.items())
    }
    scratch = {k: (shape, str(dtype).removeprefix("torch.")) for k, (shape, dtype) in d.scratch_shapes.items()}
    from larkc.tasks import ScalarExpr

    bindings: dict[str, Any] = {
        **d.tensors,
        **d.sizes,
        **d.scalars,
        **{k: ScalarExpr(v) for k, v in d.scalar_exprs.items()},
        **dict.fromkeys(d.nulls),
    }
    common: dict[str, Any] = {
        "source": d.source,
        "kernel": d.kernel,
        "name": name or d.kernel,
        "inputs": dict(inputs),
        "scratch": scratch,
        "bindings": bindings,
        "template_args": {k: v.removeprefix("tl.") for k, v in d.dtypes.items()},
        "symbols": symbols,
        "constraints": constraints,
        "instances": instances,
        "grid": list(d.grid),
        "block": [1],
    }
    # The inputs the kernel writes are outputs too (in-place tensors: their values after the launch), after
    # the launcher's results, in the order of the inputs.
    written = _written_params(Task(**common, outputs=outputs))
    for param in sorted(written & set(d.copies)):
        raise LarkcError(
            f"argument {param} of {d.kernel} is a copy of input {d.copies[param]} that the launcher made, and the"
            " kernel writes it: a scratch buffer initialised from an input is not supported",
            stage=Stage.TASK,
        )
    inplace = {d.tensors[p] for p in written}
    outputs.update({k: v for k, v in inputs.items() if k in inplace and k not in outputs})
    if not outputs:
        raise LarkcError(
            f"{d.kernel} writes none of the launcher's inputs and none of its results (a result computed after the"
            " launch, such as a sum of the kernel's partial results, is not the kernel's): nothing to compare",
            stage=Stage.TASK,
        )
    for line in dict.fromkeys([*import_stubbed, *d.stubbed]):  # said, never silent
        print(f"larkc: launcher {getattr(fn, '__name__', fn)} captured without a GPU: {line}", file=sys.stderr)
    name = getattr(fn, "__name__", "the launcher")
    points = "; ".join(_fmt_instance(p) for p in [*instances, *d.probes])
    trusted = (
        f"the launcher {name} launches {d.kernel} as derived for every size: grid "
        f"({', '.join(str(g) for g in d.grid)}) and arguments were read off its launches at {points} only (larkc"
        " runs the launcher, it does not read it: a launcher that launches otherwise at other sizes is not seen)",
    )
    return Task(**common, outputs=outputs, reference=reference, tolerance=tolerance, trusted=trusted)


def _written_params(task: Any) -> set[str]:
    """The pointer parameters the task's Triton kernel writes through, in any specialisation (every
    instance, every autotune configuration)."""
    from larkc.frontends.triton.task import parse_triton_task, specialisations
    from larkc.frontends.triton.writes import written_pointer_params

    params: set[str] = set()
    for config in specialisations(task):
        for inst in task.instances:
            module = parse_triton_task(task, inst, config)
            kernel = next(f for f in module.functions if f.name == task.kernel)
            params |= set(written_pointer_params(kernel))
    return params
