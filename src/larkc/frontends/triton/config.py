"""``@triton.autotune`` configurations and ``@triton.heuristics`` of a kernel, read without running the file.

An autotuned kernel is a family of specialisations, one per ``triton.Config``: larkc verifies every one
(:func:`autotune_configs` lists their constexpr values). A heuristic computes a constexpr from the launch's
arguments (``lambda args: args["N"] % args["BLOCK"] == 0``): :func:`apply_heuristics` evaluates it for
given argument values. Both are read from the decorators' source with a small evaluator over literals,
lists, dicts, comprehensions over literal lists, arithmetic, comparisons, ``args[...]``, ``min``/``max``
and ``triton.next_power_of_2``/``triton.cdiv``; anything else is a located error.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from larkc.errors import LarkcError, Span, UnsupportedError
from larkc.frontends.triton.source import SourceFile, span_of
from larkc.tasks.shape_expr import next_pow2

__all__ = ["AutotuneConfig", "apply_heuristics", "autotune_configs", "heuristic_names"]


@dataclass(frozen=True, slots=True)
class AutotuneConfig:
    """One ``triton.Config``: its constexpr values (``num_warps``, ``num_stages`` and the like are launch
    options that do not change what the program computes)."""

    constexprs: Mapping[str, object]
    span: Span


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "int": int,
    "bool": bool,
    "len": len,
    "next_power_of_2": next_pow2,
    "triton.next_power_of_2": next_pow2,
    "triton.cdiv": lambda a, b: (a + b - 1) // b,
    "cdiv": lambda a, b: (a + b - 1) // b,
}


class _Config:
    """What ``triton.Config(...)`` evaluates to."""

    def __init__(self, kwargs: dict[str, object], span: Span) -> None:
        self.kwargs = kwargs
        self.span = span


class _Evaluator:
    def __init__(self, src: SourceFile, names: Mapping[str, object]) -> None:
        self.src = src
        self.names = dict(names)

    def fail(self, node: ast.AST) -> LarkcError:
        return UnsupportedError("expression in a Triton decorator", ast.unparse(node), span_of(node, self.src.file))

    def eval(self, e: ast.expr) -> Any:
        match e:
            case ast.Constant(value=v):
                return v
            case ast.Name(id=name):
                if name in self.names:
                    return self.names[name]
                if name in self.src.constants:
                    return self.eval(self.src.constants[name])
                raise LarkcError(f"name {name} is not defined", span_of(e, self.src.file))
            case ast.List(elts=elts) | ast.Tuple(elts=elts):
                items = [self.eval(x) for x in elts]
                return items if isinstance(e, ast.List) else tuple(items)
            case ast.Dict(keys=keys, values=values):
                if any(k is None for k in keys):
                    raise self.fail(e)
                return {self.eval(k): self.eval(v) for k, v in zip(keys, values, strict=True) if k is not None}
            case ast.BinOp(left=left, op=op, right=right) if type(op) in _BINOPS:
                return _BINOPS[type(op)](self.eval(left), self.eval(right))
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                return -self.eval(operand)
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return not self.eval(operand)
            case ast.BoolOp(op=op, values=values):
                vals = [self.eval(v) for v in values]
                return all(vals) if isinstance(op, ast.And) else any(vals)
            case ast.Compare(left=left, ops=[op], comparators=[right]) if type(op) in _CMPOPS:
                return _CMPOPS[type(op)](self.eval(left), self.eval(right))
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self.eval(body) if self.eval(test) else self.eval(orelse)
            case ast.Subscript(value=value, slice=index):
                return self.eval(value)[self.eval(index)]
            case ast.ListComp(elt=elt, generators=gens):
                return list(self.comprehension(elt, gens))
            case ast.Call(func=func, args=args, keywords=keywords):
                name = ast.unparse(func)
                if name.endswith("Config") and name in ("triton.Config", "Config"):
                    if not args or not isinstance(self.eval(args[0]), dict):
                        raise self.fail(e)
                    return _Config(self.eval(args[0]), span_of(e, self.src.file))
                fn = _FUNCTIONS.get(name)
                if fn is None or keywords:
                    raise self.fail(e)
                return fn(*(self.eval(a) for a in args))
            case _:
                raise self.fail(e)

    def comprehension(self, elt: ast.expr, gens: list[ast.comprehension]) -> Iterator[Any]:
        if not gens:
            yield self.eval(elt)
            return
        g, rest = gens[0], gens[1:]
        if g.is_async:
            raise self.fail(g.iter)
        for value in self.eval(g.iter):
            saved = dict(self.names)
            self.bind(g.target, value)
            if all(self.eval(c) for c in g.ifs):
                yield from self.comprehension(elt, rest)
            self.names = saved

    def bind(self, target: ast.expr, value: Any) -> None:
        match target:
            case ast.Name(id=name):
                self.names[name] = value
            case ast.Tuple(elts=elts):
                for t, v in zip(elts, value, strict=True):
                    self.bind(t, v)
            case _:
                raise self.fail(target)


def _decorator(src: SourceFile, kernel: str, suffix: str) -> ast.Call | None:
    for d in src.decorators.get(kernel, []):
        if isinstance(d, ast.Call) and ast.unparse(d.func).split(".")[-1] == suffix:
            return d
    return None


def autotune_configs(src: SourceFile, kernel: str) -> list[AutotuneConfig]:
    """The configurations of ``@triton.autotune(configs=[...])`` on ``kernel`` (empty when not autotuned)."""
    d = _decorator(src, kernel, "autotune")
    if d is None:
        return []
    arg = next((k.value for k in d.keywords if k.arg == "configs"), d.args[0] if d.args else None)
    if arg is None:
        raise LarkcError("@triton.autotune without configs", span_of(d, src.file))
    value = _Evaluator(src, {}).eval(arg)
    if not isinstance(value, list) or not all(isinstance(c, _Config) for c in value):
        raise UnsupportedError("autotune configs", ast.unparse(arg), span_of(arg, src.file))
    return [AutotuneConfig(c.kwargs, c.span) for c in value]


def _heuristics(src: SourceFile, kernel: str) -> list[tuple[str, ast.Lambda]]:
    out: list[tuple[str, ast.Lambda]] = []
    for d in src.decorators.get(kernel, []):
        if not (isinstance(d, ast.Call) and ast.unparse(d.func).split(".")[-1] == "heuristics"):
            continue
        arg = next((k.value for k in d.keywords if k.arg == "values"), d.args[0] if d.args else None)
        if not isinstance(arg, ast.Dict):
            raise UnsupportedError("heuristics", "a dict literal of lambdas is expected", span_of(d, src.file))
        for k, v in zip(arg.keys, arg.values, strict=True):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Lambda)):
                raise UnsupportedError("heuristic", ast.unparse(v), span_of(v, src.file))
            if len(v.args.args) != 1:
                raise UnsupportedError("heuristic", "a lambda of one argument (args) is expected", span_of(v, src.file))
            out.append((k.value, v))
    return out


def heuristic_names(src: SourceFile, kernel: str) -> list[str]:
    """The constexprs that ``@triton.heuristics`` computes for ``kernel``."""
    return [name for name, _ in _heuristics(src, kernel)]


def apply_heuristics(src: SourceFile, kernel: str, args: Mapping[str, object]) -> dict[str, object]:
    """``args`` (the launch's arguments and constexprs by name) with every heuristic's value added, in the
    order Triton applies them (a later heuristic sees the earlier ones)."""
    values = dict(args)
    for name, fn in _heuristics(src, kernel):
        ev = _Evaluator(src, {fn.args.args[0].arg: values})
        values[name] = ev.eval(fn.body)
    return values
