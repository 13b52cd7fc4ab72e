"""Scalar expressions: float kernel arguments computed from a task's shape symbols.

A kernel often takes a float computed by its host code from the sizes: ``scale = 1 / sqrt(head_dim)``,
``inv_n = 1.0 / n``. A task binds such a parameter to ``ScalarExpr("1 / sqrt(d)")``, evaluated on each
shape instance. The language is Python's expression syntax restricted to numbers, the task's symbols,
``+ - * / **``, unary minus and the functions ``sqrt``, ``rsqrt``, ``exp``, ``log``, ``min``, ``max``
(``/`` is true division: ``1 / d`` is a fraction, not an integer division).

Values are exact where they can be: a number literal is the Python value it denotes (``0.1`` is the
binary64 number nearest 0.1, as in a PyTorch reference), and arithmetic on rationals stays rational
(``1 / sqrt(64)`` is exactly ``1/8``). An operation whose result is irrational (``sqrt(32)``, ``exp(1)``)
makes the value *inexact*: :class:`ScalarValue` then holds only the binary64 approximation, and
``larkc verify`` does not claim equivalence from it (see ``docs/tasks.md``).
"""

from __future__ import annotations

import ast
import enum
import math
import operator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import assert_never

from larkc.errors import TaskError

__all__ = ["ScalarExpr", "ScalarValue"]


class _Op(enum.Enum):
    """An arithmetic operator of the scalar language."""

    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"  # true division
    POW = "**"


class _Fn(enum.Enum):
    """A function of the scalar language."""

    SQRT = "sqrt"
    RSQRT = "rsqrt"  # 1 / sqrt(x)
    EXP = "exp"
    LOG = "log"  # natural logarithm
    MIN = "min"
    MAX = "max"


_ARITY = {_Fn.SQRT: 1, _Fn.RSQRT: 1, _Fn.EXP: 1, _Fn.LOG: 1, _Fn.MIN: -1, _Fn.MAX: -1}

_RATIONAL = {_Op.ADD: operator.add, _Op.SUB: operator.sub, _Op.MUL: operator.mul, _Op.DIV: operator.truediv}

_AST_OPS: dict[type[ast.operator], _Op] = {
    ast.Add: _Op.ADD,
    ast.Sub: _Op.SUB,
    ast.Mult: _Op.MUL,
    ast.Div: _Op.DIV,
    ast.Pow: _Op.POW,
}


@dataclass(frozen=True, slots=True)
class _Num:
    value: Fraction


@dataclass(frozen=True, slots=True)
class _Sym:
    name: str


@dataclass(frozen=True, slots=True)
class _Arith:
    op: _Op
    lhs: _Node
    rhs: _Node


@dataclass(frozen=True, slots=True)
class _Neg:
    operand: _Node


@dataclass(frozen=True, slots=True)
class _Call:
    fn: _Fn
    args: tuple[_Node, ...]


_Node = _Num | _Sym | _Arith | _Neg | _Call


@dataclass(frozen=True, slots=True)
class ScalarValue:
    """The value of a scalar expression on one instance: ``exact`` when it is rational, else ``None``;
    ``approx`` its binary64 value (what ``larkc run`` passes to the kernel)."""

    exact: Fraction | None
    approx: float

    @staticmethod
    def of(q: Fraction) -> ScalarValue:
        return ScalarValue(q, float(q))

    @staticmethod
    def inexact(x: float) -> ScalarValue:
        return ScalarValue(None, x)


@dataclass(frozen=True, slots=True)
class ScalarExpr:
    """A float parameter's value as an expression over the shape symbols (``ScalarExpr("1 / sqrt(d)")``)."""

    text: str
    tree: _Node = field(compare=False, repr=False)

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise TaskError(f"a scalar expression is a string such as '1 / sqrt(d)', got {text!r}")
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "tree", _parse(text))

    def __str__(self) -> str:
        return self.text

    def symbols(self) -> frozenset[str]:
        """The symbols the expression mentions."""
        return _symbols(self.tree)

    def value(self, env: dict[str, int]) -> ScalarValue:
        """The value with the symbols of ``env``; a missing symbol or a domain error raises :class:`TaskError`."""
        try:
            return _eval(self.tree, env, self.text)
        except (OverflowError, ZeroDivisionError, ValueError) as e:
            raise TaskError(f"scalar expression {self.text!r} at {env}: {e}") from None


def _parse(text: str) -> _Node:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise TaskError(f"invalid scalar expression {text!r}: {e.msg}") from None
    return _build(tree.body, text)


def _build(node: ast.expr, text: str) -> _Node:
    match node:
        case ast.Constant(value=bool()):
            raise TaskError(f"invalid scalar expression {text!r}: booleans are not numbers here")
        case ast.Constant(value=int() as v):
            return _Num(Fraction(v))
        case ast.Constant(value=float() as v) if math.isfinite(v):
            return _Num(Fraction(v))
        case ast.Name(id=name):
            return _Sym(name)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return _Neg(_build(operand, text))
        case ast.UnaryOp(op=ast.UAdd(), operand=operand):
            return _build(operand, text)
        case ast.BinOp(left=lhs, op=op, right=rhs) if type(op) in _AST_OPS:
            return _Arith(_AST_OPS[type(op)], _build(lhs, text), _build(rhs, text))
        case ast.Call(func=ast.Name(id=name), args=args, keywords=[]):
            fn = next((f for f in _Fn if f.value == name), None)
            if fn is None:
                known = ", ".join(f.value for f in _Fn)
                raise TaskError(f"invalid scalar expression {text!r}: unknown function {name!r} (known: {known})")
            arity = _ARITY[fn]
            if (arity >= 0 and len(args) != arity) or not args:
                count = arity if arity > 0 else "one or more"
                raise TaskError(f"invalid scalar expression {text!r}: {name} takes {count} argument(s)")
            return _Call(fn, tuple(_build(a, text) for a in args))
        case _:
            raise TaskError(f"invalid scalar expression {text!r}: unsupported {ast.unparse(node)!r}")


def _symbols(node: _Node) -> frozenset[str]:
    match node:
        case _Num():
            return frozenset()
        case _Sym(name):
            return frozenset({name})
        case _Arith(_, lhs, rhs):
            return _symbols(lhs) | _symbols(rhs)
        case _Neg(operand):
            return _symbols(operand)
        case _Call(_, args):
            return frozenset().union(*(_symbols(a) for a in args))
        case _:
            assert_never(node)


def _exact_sqrt(q: Fraction) -> Fraction | None:
    """``sqrt(q)`` when it is rational (numerator and denominator perfect squares), else ``None``."""
    if q < 0:
        raise ValueError("square root of a negative number")
    n, d = math.isqrt(q.numerator), math.isqrt(q.denominator)
    return Fraction(n, d) if n * n == q.numerator and d * d == q.denominator else None


def _eval(node: _Node, env: dict[str, int], text: str) -> ScalarValue:
    match node:
        case _Num(value):
            return ScalarValue.of(value)
        case _Sym(name):
            if name not in env:
                known = ", ".join(sorted(env)) or "none"
                raise TaskError(f"scalar expression {text!r}: symbol {name!r} has no value (known: {known})")
            return ScalarValue.of(Fraction(env[name]))
        case _Neg(operand):
            v = _eval(operand, env, text)
            return ScalarValue(-v.exact if v.exact is not None else None, -v.approx)
        case _Arith(op, lhs, rhs):
            return _arith(op, _eval(lhs, env, text), _eval(rhs, env, text))
        case _Call(fn, args):
            return _call(fn, [_eval(a, env, text) for a in args])
        case _:
            assert_never(node)


def _arith(op: _Op, a: ScalarValue, b: ScalarValue) -> ScalarValue:
    x, y = a.exact, b.exact
    match op:
        case _Op.ADD | _Op.SUB | _Op.MUL | _Op.DIV:
            if op is _Op.DIV and b.approx == 0 and (y is None or y == 0):
                raise ZeroDivisionError("division by zero")
            fn = _RATIONAL[op]
            return (
                ScalarValue.of(fn(x, y))
                if x is not None and y is not None
                else ScalarValue.inexact(fn(a.approx, b.approx))
            )
        case _Op.POW:
            if x is not None and y is not None and y.denominator == 1 and not (x == 0 and y < 0):
                return ScalarValue.of(x ** int(y))
            if x is not None and y is not None and y.denominator == 2:
                root = _exact_sqrt(x)
                if root is not None and not (root == 0 and y < 0):
                    return ScalarValue.of(root ** int(y * 2))
            return ScalarValue.inexact(math.pow(a.approx, b.approx))
        case _:
            assert_never(op)


def _call(fn: _Fn, args: list[ScalarValue]) -> ScalarValue:
    match fn:
        case _Fn.SQRT | _Fn.RSQRT:
            (a,) = args
            root = _exact_sqrt(a.exact) if a.exact is not None else None
            if fn is _Fn.RSQRT:
                if a.approx == 0:
                    raise ZeroDivisionError("rsqrt of zero")
                return ScalarValue.of(1 / root) if root is not None else ScalarValue.inexact(1 / math.sqrt(a.approx))
            return ScalarValue.of(root) if root is not None else ScalarValue.inexact(math.sqrt(a.approx))
        case _Fn.EXP:
            (a,) = args
            return ScalarValue.of(Fraction(1)) if a.exact == 0 else ScalarValue.inexact(math.exp(a.approx))
        case _Fn.LOG:
            (a,) = args
            return ScalarValue.of(Fraction(0)) if a.exact == 1 else ScalarValue.inexact(math.log(a.approx))
        case _Fn.MIN | _Fn.MAX:
            pick = min if fn is _Fn.MIN else max
            if all(v.exact is not None for v in args):
                return ScalarValue.of(pick(v.exact for v in args if v.exact is not None))
            return ScalarValue.inexact(pick(v.approx for v in args))
        case _:
            assert_never(fn)
