"""``@triton.autotune`` configurations and ``@triton.heuristics`` of a kernel, read without running the file.

An autotuned kernel is a family of specialisations, one per ``triton.Config``: larkc verifies every one
(:func:`autotune_configs` lists their constexpr values). A heuristic computes a constexpr from the launch's
arguments (``lambda args: args["N"] % args["BLOCK"] == 0``): :func:`apply_heuristics` evaluates it for
given argument values. Both are read from the decorators' source with a small evaluator over literals,
lists, dicts, comprehensions over literal lists, arithmetic, comparisons, ``args[...]``, ``min``/``max``
and ``triton.next_power_of_2``/``triton.cdiv``; anything else is a located error.

:func:`heuristic_shape_exprs` translates each heuristic into a shape expression over a task's symbols
(``larkc emit`` states the specialisation it emits with them), when the lambda is built from ``args[...]``
of arguments bound to shape expressions, integer literals, ``+ - * // %``, comparisons,
``and``/``or``/``not``, ``min``/``max``, ``triton.cdiv`` and ``triton.next_power_of_2``.
"""

from __future__ import annotations

import ast
import itertools
import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from larkc.errors import LarkcError, Span, UnsupportedError
from larkc.frontends.triton.source import SourceFile, read_source, span_of
from larkc.tasks.shape_expr import (
    ArithOp,
    BoolOp,
    CmpOp,
    ShapeArith,
    ShapeBool,
    ShapeCall,
    ShapeCmp,
    ShapeExpr,
    ShapeNot,
    ShapeNum,
    next_pow2,
)

__all__ = ["AutotuneConfig", "apply_heuristics", "autotune_configs", "heuristic_names", "heuristic_shape_exprs"]


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
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
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
    "range": lambda *a: list(range(*a)),
    "list": list,
    "tuple": tuple,
    "zip": lambda *a: list(zip(*a, strict=False)),
    "enumerate": lambda a: list(enumerate(a)),
    "itertools.product": lambda *a: list(itertools.product(*a)),
    "product": lambda *a: list(itertools.product(*a)),
    "isinstance": isinstance,
}

#: Builtin types a helper may name (``isinstance(val, list)``).
_TYPES: dict[str, type] = {"list": list, "tuple": tuple, "int": int, "float": float, "bool": bool, "str": str}

#: The most statements a helper function building configurations may run (loops included).
_HELPER_STEPS = 100_000


class _Returned(Exception):
    """A helper function's ``return``."""

    def __init__(self, value: Any) -> None:
        self.value = value


class _Config:
    """What ``triton.Config(...)`` evaluates to."""

    def __init__(self, kwargs: dict[str, object], span: Span) -> None:
        self.kwargs = kwargs
        self.span = span


class _Evaluator:
    """``stale`` (:attr:`SourceFile.stale`): the module names of ``src`` bound differently where the code
    evaluated runs (a decorator at its ``def``) than at the module's end, the names larkc reads; a
    located error where used."""

    def __init__(
        self,
        src: SourceFile,
        names: Mapping[str, object],
        depth: int = 0,
        stale: Mapping[str, bool] | None = None,
        where: str = "",
    ) -> None:
        self.src = src
        self.names = dict(names)
        self.depth = depth
        self.steps = 0
        self.stale = stale or {}
        self.where = where

    def check_fresh(self, name: str, node: ast.AST) -> None:
        """A located error when the module name ``name`` does not have its final value where this runs."""
        if name in self.stale:
            state = "rebound after" if self.stale[name] else "not yet defined when"
            raise LarkcError(
                f"name {name} is {state} {self.where} runs: larkc knows only its final value",
                span_of(node, self.src.file),
            )

    def fail(self, node: ast.AST) -> LarkcError:
        return UnsupportedError("expression in a Triton decorator", ast.unparse(node), span_of(node, self.src.file))

    def eval(self, e: ast.expr) -> Any:
        match e:
            case ast.Constant(value=v):
                return v
            case ast.Name(id=name):
                if name in self.names:
                    return self.names[name]
                self.check_fresh(name, e)
                if name in self.src.constants:
                    return self.eval(self.src.constants[name])
                if name in _TYPES:
                    return _TYPES[name]
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
                # Python's: the first operand that decides (false for `and`, true for `or`), else the last
                is_and = isinstance(op, ast.And)
                result: Any = None
                for operand in values:
                    result = self.eval(operand)
                    if bool(result) != is_and:
                        break
                return result
            case ast.Compare(left=left, ops=ops, comparators=rights) if all(type(o) in _CMPOPS for o in ops):
                a = self.eval(left)
                for o, r in zip(ops, rights, strict=True):  # a chain stops at its first false link
                    b = self.eval(r)
                    if not _CMPOPS[type(o)](a, b):
                        return False
                    a = b
                return True
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
                    # a pre_hook runs on the launch's arguments before the kernel, an ir_override replaces
                    # the kernel: either changes what the launch computes (positionally: the 6th and 7th)
                    hooks = [k.value for k in keywords if k.arg in ("pre_hook", "ir_override")] + args[5:]
                    for hook in hooks:
                        if not (isinstance(hook, ast.Constant) and hook.value is None):
                            raise UnsupportedError(
                                "triton.Config option (it changes what the launch computes)",
                                ast.unparse(hook),
                                span_of(hook, self.src.file),
                            )
                    return _Config(self.eval(args[0]), span_of(e, self.src.file))
                helper = self.helper(func)
                if helper is not None:
                    return self.call_helper(*helper, e)
                if name == "dict" and not args and all(k.arg is not None for k in keywords):
                    return {k.arg: self.eval(k.value) for k in keywords}
                fn = _FUNCTIONS.get(name)
                if fn is None or keywords:
                    raise self.fail(e)
                return fn(*(self.eval(a) for a in args))
            case _:
                raise self.fail(e)

    def helper(self, func: ast.expr) -> tuple[SourceFile, ast.FunctionDef] | None:
        """The plain Python function of the module (or imported from the user's code) that ``func`` names."""
        if not isinstance(func, ast.Name) or func.id in self.names:
            return None
        self.check_fresh(func.id, func)
        src, name = self.src, func.id
        for _ in range(16):  # through re-exports
            if name in src.defs:
                return src, src.defs[name]
            if name not in src.imports:
                return None
            imp = src.imports[name]
            src, name = read_source(imp.path), imp.name
        return None

    def call_helper(self, src: SourceFile, fn: ast.FunctionDef, call: ast.Call) -> Any:
        """Run a helper that builds configurations (``def get_autotune_config(): return [...]``): its
        arguments bound, its body of assignments, ``for``, ``if``, ``list.append``/``extend`` and ``return``."""
        if self.depth > 16:
            raise self.fail(call)
        params = fn.args.args
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or len(call.args) > len(params):
            raise self.fail(call)
        bound: dict[str, object] = {}
        for p, a in zip(params, call.args, strict=False):
            bound[p.arg] = self.eval(a)
        for k in call.keywords:
            if k.arg is None or k.arg not in {p.arg for p in params}:
                raise self.fail(call)
            bound[k.arg] = self.eval(k.value)
        defaults = dict(
            zip([p.arg for p in params][len(params) - len(fn.args.defaults) :], fn.args.defaults, strict=True)
        )
        # the defaults were evaluated at the `def`, the body runs now (as the caller, in its own module)
        stale = src.stale.get(id(fn), {})
        where = f"the def of {fn.name} (line {fn.lineno})"
        inner = _Evaluator(src, {}, self.depth + 1, stale, where)
        for p in params:
            if p.arg not in bound:
                if p.arg not in defaults:
                    raise self.fail(call)
                bound[p.arg] = inner.eval(defaults[p.arg])
        inner.names = bound
        if src is self.src:
            inner.stale, inner.where = self.stale, self.where
        else:
            inner.stale, inner.where = {}, ""
        try:
            inner.run(fn.body)
        except _Returned as r:
            return r.value
        return None

    def run(self, stmts: list[ast.stmt]) -> None:
        for st in stmts:
            self.steps += 1
            if self.steps > _HELPER_STEPS:
                raise self.fail(st)
            match st:
                case ast.Expr(value=ast.Constant(value=str())) | ast.Pass():
                    pass
                case ast.Assign(targets=[target], value=value):
                    self.bind(target, self.eval(value))
                case ast.AnnAssign(target=target, value=value) if value is not None:
                    self.bind(target, self.eval(value))
                case ast.AugAssign(target=ast.Name(id=name), op=op, value=value) if type(op) in _BINOPS:
                    if name not in self.names:
                        raise self.fail(st)
                    self.names[name] = _BINOPS[type(op)](self.names[name], self.eval(value))
                case ast.Return(value=value):
                    raise _Returned(None if value is None else self.eval(value))
                case ast.If(test=test, body=body, orelse=orelse):
                    self.run(body if self.eval(test) else orelse)
                case ast.For(target=target, iter=it, body=body, orelse=[]):
                    for v in self.eval(it):
                        self.bind(target, v)
                        self.run(body)
                case ast.Expr(
                    value=ast.Call(func=ast.Attribute(value=ast.Name(id=name), attr="append" | "extend" as m), args=[a])
                ) if isinstance(self.names.get(name), list):
                    getattr(self.names[name], m)(self.eval(a))
                case _:
                    raise UnsupportedError(
                        "statement in a function building autotune configs", ast.unparse(st), span_of(st, self.src.file)
                    )

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
    # reset_to_zero zeroes arguments before the launch that follows a tuning, a pre_hook runs on them:
    # both change what the launch computes (positionally: the 4th and 6th)
    for option in [k.value for k in d.keywords if k.arg in ("reset_to_zero", "pre_hook")] + d.args[3:]:
        if not (isinstance(option, ast.Constant) and option.value is None):
            raise UnsupportedError(
                "@triton.autotune option (it changes what the launch computes)",
                ast.unparse(option),
                span_of(option, src.file),
            )
    where = f"the decorator of {kernel} (line {d.lineno})"
    value = _Evaluator(src, {}, stale=src.stale.get(id(d), {}), where=where).eval(arg)
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


_SHAPE_ARITH: dict[type[ast.operator], ArithOp] = {
    ast.Add: ArithOp.ADD,
    ast.Sub: ArithOp.SUB,
    ast.Mult: ArithOp.MUL,
    ast.FloorDiv: ArithOp.FLOORDIV,
    ast.Mod: ArithOp.MOD,
}
_SHAPE_CMP: dict[type[ast.cmpop], CmpOp] = {
    ast.Eq: CmpOp.EQ,
    ast.NotEq: CmpOp.NE,
    ast.Lt: CmpOp.LT,
    ast.LtE: CmpOp.LE,
    ast.Gt: CmpOp.GT,
    ast.GtE: CmpOp.GE,
}
_SHAPE_CALLS = {
    "min": "min",
    "max": "max",
    "triton.cdiv": "cdiv",
    "cdiv": "cdiv",
    "triton.next_power_of_2": "next_pow2",
    "next_power_of_2": "next_pow2",
}


def _is_condition(e: ShapeExpr) -> bool:
    return isinstance(e, ShapeCmp | ShapeBool | ShapeNot)


class _Translator:
    """A heuristic's body as a shape expression; ``bound`` gives ``args[name]``'s expression."""

    def __init__(self, src: SourceFile, args: str, bound: Mapping[str, ShapeExpr]) -> None:
        self.src = src
        self.args = args
        self.bound = bound

    def fail(self, node: ast.AST, why: str) -> LarkcError:
        return UnsupportedError(f"heuristic for larkc emit ({why})", ast.unparse(node), span_of(node, self.src.file))

    def size(self, e: ast.expr) -> ShapeExpr:
        out = self.expr(e)
        if _is_condition(out):
            raise self.fail(e, "a condition where a number is expected")
        return out

    def condition(self, e: ast.expr) -> ShapeExpr:
        out = self.expr(e)
        if not _is_condition(out):
            raise self.fail(e, "a number where a condition is expected")
        return out

    def expr(self, e: ast.expr) -> ShapeExpr:
        match e:
            case ast.Constant(value=bool()):
                raise self.fail(e, "a boolean literal")
            case ast.Constant(value=int(v)) if v >= 0:
                return ShapeNum(v)
            case ast.Subscript(value=ast.Name(id=name), slice=ast.Constant(value=str(key))) if name == self.args:
                if key not in self.bound:
                    raise self.fail(e, f"{key} is not bound to a shape expression")
                return self.bound[key]
            case ast.BinOp(left=left, op=op, right=right) if type(op) in _SHAPE_ARITH:
                return ShapeArith(_SHAPE_ARITH[type(op)], self.size(left), self.size(right))
            case ast.Compare(left=left, ops=ops, comparators=rights) if all(type(o) in _SHAPE_CMP for o in ops):
                terms = [self.size(left), *(self.size(r) for r in rights)]
                cmps = tuple(
                    ShapeCmp(_SHAPE_CMP[type(o)], a, b) for o, a, b in zip(ops, terms, terms[1:], strict=False)
                )
                return cmps[0] if len(cmps) == 1 else ShapeBool(BoolOp.AND, cmps)
            case ast.BoolOp(op=op, values=values):
                return ShapeBool(
                    BoolOp.AND if isinstance(op, ast.And) else BoolOp.OR, tuple(self.condition(v) for v in values)
                )
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return ShapeNot(self.condition(operand))
            case ast.Call(func=func, args=args, keywords=[]) if ast.unparse(func) in _SHAPE_CALLS:
                fn = _SHAPE_CALLS[ast.unparse(func)]
                arity = {"cdiv": 2, "next_pow2": 1}.get(fn)
                if (arity is not None and len(args) != arity) or not args:
                    raise self.fail(e, "wrong number of arguments")
                return ShapeCall(fn, tuple(self.size(a) for a in args))
            case _:
                raise self.fail(e, "outside the shape language")


def heuristic_shape_exprs(src: SourceFile, kernel: str, bound: Mapping[str, ShapeExpr]) -> dict[str, ShapeExpr]:
    """Each heuristic of ``kernel`` as a shape expression (a condition for a boolean one), in Triton's
    order: ``bound`` maps the arguments bound to shape expressions and the configuration's constexprs
    (as numbers) to their expressions, and a later heuristic sees the earlier ones' expressions. A lambda
    outside that language is a located :class:`UnsupportedError`."""
    names = dict(bound)
    out: dict[str, ShapeExpr] = {}
    for name, fn in _heuristics(src, kernel):
        e = _Translator(src, fn.args.args[0].arg, names).expr(fn.body)
        out[name] = names[name] = e
    return out
