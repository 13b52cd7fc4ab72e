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
    "CapturedLaunch",
    "DerivedLaunch",
    "capture_launches",
    "derive_expression",
    "derive_launch",
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


def capture_launches(launcher: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[CapturedLaunch]]:
    """Call ``launcher(*args, **kwargs)`` with Triton launches intercepted; its result and the launches."""
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

    with _intercepted(record):
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
    ks = sorted({*divisors, *(1 << i for i in range(1, 13))} - {0, 1})
    for p in prods:
        f = _product(p)
        for k in ks:
            yield f"cdiv({'*'.join(p)}, {k})", (lambda inst, f=f, k=k: _cdiv(f(inst), k))  # type: ignore[misc]
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
) -> str | None:
    """The simplest shape expression over ``symbols`` equal to ``values[i]`` on ``instances[i]`` for every
    ``i``: a constant, a product of up to three symbols, ``next_pow2`` of one, ``cdiv`` of a product by one
    of ``divisors`` (or a power of two), a product of two such ``cdiv``s, or a product plus a small
    constant; ``None`` if none fits."""
    if len(set(values)) == 1 and (len(instances) > 1 or not symbols):
        return str(values[0])
    for text, f in _candidates(symbols, divisors):
        if all(f(inst) == v for inst, v in zip(instances, values, strict=True)):
            return text
    return None


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


def derive_launch(
    launcher: Callable[..., Any],
    make_inputs: Callable[[Mapping[str, int]], dict[str, Any]],
    symbols: Sequence[str],
    instances: Sequence[Mapping[str, int]],
) -> DerivedLaunch:
    """Run ``launcher(*make_inputs(instance).values())`` (the inputs in order) on every instance
    and derive its one kernel launch as functions of the shapes. Needs at least two instances; raises
    :class:`LarkcError` naming what cannot be derived."""
    import torch

    if len(instances) < 2:
        raise LarkcError("deriving a launch needs at least two shape instances", stage=Stage.TASK)
    records: list[tuple[dict[str, Any], Any, CapturedLaunch]] = []
    for inst in instances:
        inputs = make_inputs(inst)
        result, launches = capture_launches(launcher, *inputs.values())
        if len(launches) != 1:
            raise LarkcError(f"the launcher made {len(launches)} kernel launches; one is supported", stage=Stage.TASK)
        records.append((inputs, result, launches[0]))
    first = records[0][2]
    d = DerivedLaunch(first.kernel, first.source)
    divisors = [v for _, _, ln in records for v in ln.arguments.values() if isinstance(v, int) and v > 1]
    for name, v0 in first.arguments.items():
        per = [ln.arguments.get(name) for _, _, ln in records]
        if isinstance(v0, torch.Tensor):
            d.tensors[name] = _tensor_role(
                name, [r[0] for r in records], [r[1] for r in records], per, d, symbols, instances
            )
        elif isinstance(v0, bool | float):
            if len(set(per)) != 1:
                raise LarkcError(f"argument {name} differs between instances: {per}", stage=Stage.TASK)
            d.scalars[name] = v0
        elif isinstance(v0, int):
            expr = derive_expression([int(x) for x in per if isinstance(x, int)], instances, symbols, divisors)
            if expr is None:
                raise LarkcError(
                    f"argument {name} of {first.kernel} ({per}) is no shape expression over {', '.join(symbols)}",
                    stage=Stage.TASK,
                )
            d.sizes[name] = expr
        elif v0 is None:
            continue
        else:
            text = getattr(v0, "name", None) or str(v0)
            if len(set(map(str, per))) != 1:
                raise LarkcError(f"argument {name} differs between instances", stage=Stage.TASK)
            d.dtypes[name] = text
    grids = [_config_independent_grid(ln) for _, _, ln in records]
    rank = {len(g) for g in grids}
    if len(rank) != 1:
        raise LarkcError("the grid's rank differs between instances", stage=Stage.TASK)
    dims = []
    for i in range(rank.pop()):
        expr = derive_expression([g[i] for g in grids], instances, symbols, divisors)
        if expr is None:
            raise LarkcError(f"grid dimension {i} ({[g[i] for g in grids]}) is no shape expression", stage=Stage.TASK)
        dims.append(expr)
    d.grid = tuple(dims)
    return d


def _config_independent_grid(launch: CapturedLaunch) -> tuple[int, ...]:
    """The launch's grid, the same for every ``@triton.autotune`` configuration of its kernel (a task's grid
    cannot depend on a configuration yet: each configuration is a specialisation of one task)."""
    from larkc.frontends.triton.config import autotune_configs
    from larkc.frontends.triton.source import read_source

    configs = [dict(c.constexprs) for c in autotune_configs(read_source(launch.source), launch.kernel)] or [{}]
    grids = []
    for c in configs:
        try:
            grids.append(evaluate_grid(launch, c))
        except KeyError as e:  # the grid function reads a constexpr that neither the launch nor the config gives
            raise LarkcError(
                f"the grid of {launch.kernel} reads {e}, which no configuration gives", stage=Stage.TASK
            ) from None
    if any(g != grids[0] for g in grids):
        raise LarkcError(
            f"the grid of {launch.kernel} depends on the autotune configuration ({grids[0]} and "
            f"{next(g for g in grids if g != grids[0])}): not supported yet (a task has one grid for every "
            "configuration)",
            stage=Stage.TASK,
        )
    return grids[0]


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
        roles.add(role or f"scratch_{param}")
    if len(roles) != 1:
        raise LarkcError(f"argument {param} is a different tensor on different instances", stage=Stage.TASK)
    role = roles.pop()
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


def _load_launcher(spec: str, base: Path) -> Callable[..., Any]:
    """``"file.py:function"`` (the file relative to ``base``) imported and looked up."""
    import importlib.util
    import sys

    file, sep, func = spec.rpartition(":")
    if not sep or not file.endswith(".py") or not func.isidentifier():
        raise LarkcError(f"launcher must be 'file.py:function', got {spec!r}", stage=Stage.TASK)
    path = (base / file).resolve()
    if not path.is_file():
        raise LarkcError(f"launcher file {path} does not exist", stage=Stage.TASK)
    name = f"larkc_launcher_{abs(hash(str(path)))}"
    module = sys.modules.get(name)
    if module is None:
        spec_ = importlib.util.spec_from_file_location(name, path)
        assert spec_ is not None and spec_.loader is not None
        module = importlib.util.module_from_spec(spec_)
        sys.modules[name] = module
        try:
            spec_.loader.exec_module(module)
        except (LarkcError, InternalError):  # raised by larkc inside the call, not by the user's code
            raise
        except USER_CODE_ERRORS as e:
            del sys.modules[name]
            frame = user_frame(e, {str(path)})
            span = Span(frame[0], frame[1], 1, frame[1], 2) if frame else None
            message = f"importing launcher file {path} {describe_user_exception(e)}"
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
) -> Any:
    """A :class:`~larkc.tasks.Task` for the one kernel launch ``launcher`` makes (a function, or
    ``"file.py:function"`` relative to ``base``, by default the folder of the calling task file).

    ``inputs`` are the launcher's tensor arguments in order (as task tensors: ``"f32[r, d]"``);
    the launcher runs on random tensors of every instance (at least three are advised, with sizes that are
    not multiples of one another) with the launch intercepted; the kernel's arguments, the grid and the
    results' shapes are derived as shape expressions (:func:`derive_launch`). The launcher's results are
    the task's outputs, ``out`` (or ``out0``, ``out1``, ...) in order.
    """
    import sys

    import torch

    from larkc.dtypes import torch_dtype
    from larkc.tasks import Task, TensorSpec
    from larkc.tasks.shape_expr import evaluate

    if isinstance(launcher, str):
        caller = sys._getframe(1).f_globals.get("__file__")
        root = Path(base) if base is not None else (Path(caller).parent if caller else Path.cwd())
        fn = _load_launcher(launcher, root)
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

    # An autotuned kernel: its configurations' constexprs need no binding (each is a specialisation of the
    # task); derive_launch refuses a grid that depends on them.
    d = derive_launch(fn, make, symbols, instances)
    outputs = {k: (shape, str(dtype).removeprefix("torch.")) for k, (shape, dtype) in sorted(d.output_shapes.items())}
    scratch = {k: (shape, str(dtype).removeprefix("torch.")) for k, (shape, dtype) in d.scratch_shapes.items()}
    bindings: dict[str, Any] = {**d.tensors, **d.sizes, **d.scalars}
    return Task(
        source=d.source,
        kernel=d.kernel,
        name=name or d.kernel,
        reference=reference,
        inputs=dict(inputs),
        outputs=outputs,
        scratch=scratch,
        bindings=bindings,
        template_args={k: v.removeprefix("tl.") for k, v in d.dtypes.items()},
        symbols=symbols,
        constraints=constraints,
        instances=instances,
        grid=list(d.grid),
        block=[1],
        tolerance=tolerance,
    )
