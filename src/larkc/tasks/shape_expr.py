"""Shape expressions: integer arithmetic over a task's symbolic shape parameters.

Tasks give sizes, launch dimensions and constraints as strings such as ``"cdiv(n, 256)"``,
``"rows * d"`` or ``"d % 8 == 0 and d <= 8192"``. They are parsed once into this small closed AST, which
can be evaluated on a concrete shape instance and handed to the symbolic provers (every node has a
direct counterpart in z3's and sympy's integer arithmetic).

Functions: ``cdiv(a, b)`` (ceiling division), ``min(a, ...)``, ``max(a, ...)``, ``pow2(a)`` (2**a)
and ``next_pow2(a)`` (the least power of two >= a, as ``triton.next_power_of_2``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import assert_never

import lark

from larkc._resources import grammar_path
from larkc.errors import TaskError

__all__ = [
    "ArithOp",
    "BoolOp",
    "CmpOp",
    "ShapeArith",
    "ShapeBool",
    "ShapeCall",
    "ShapeCmp",
    "ShapeExpr",
    "ShapeNot",
    "ShapeNum",
    "ShapeSym",
    "evaluate",
    "free_symbols",
    "next_pow2",
    "parse_shape_expr",
    "shape_expr",
    "substitute",
]


class ArithOp(enum.Enum):
    ADD = "+"
    SUB = "-"
    MUL = "*"
    FLOORDIV = "//"
    MOD = "%"


class CmpOp(enum.Enum):
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


class BoolOp(enum.Enum):
    AND = "and"
    OR = "or"


SHAPE_FUNCTIONS = {"cdiv": 2, "min": -1, "max": -1, "pow2": 1, "next_pow2": 1}


@dataclass(frozen=True, slots=True)
class ShapeNum:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class ShapeSym:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ShapeArith:
    op: ArithOp
    lhs: ShapeExpr
    rhs: ShapeExpr

    def __str__(self) -> str:
        return f"({self.lhs} {self.op.value} {self.rhs})"


@dataclass(frozen=True, slots=True)
class ShapeCall:
    fn: str
    args: tuple[ShapeExpr, ...]

    def __str__(self) -> str:
        return f"{self.fn}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True, slots=True)
class ShapeCmp:
    op: CmpOp
    lhs: ShapeExpr
    rhs: ShapeExpr

    def __str__(self) -> str:
        return f"({self.lhs} {self.op.value} {self.rhs})"


@dataclass(frozen=True, slots=True)
class ShapeBool:
    op: BoolOp
    args: tuple[ShapeExpr, ...]

    def __str__(self) -> str:
        return "(" + f" {self.op.value} ".join(str(a) for a in self.args) + ")"


@dataclass(frozen=True, slots=True)
class ShapeNot:
    operand: ShapeExpr

    def __str__(self) -> str:
        return f"(not {self.operand})"


ShapeExpr = ShapeNum | ShapeSym | ShapeArith | ShapeCall | ShapeCmp | ShapeBool | ShapeNot


@cache
def _parser() -> lark.Lark:
    return lark.Lark(grammar_path("shape_expr.lark").read_text(), parser="lalr", maybe_placeholders=False)


class _Build(lark.Transformer[lark.Token, ShapeExpr]):
    def number(self, items: list[lark.Token]) -> ShapeExpr:
        return ShapeNum(int(items[0]))

    def symbol(self, items: list[lark.Token]) -> ShapeExpr:
        name = str(items[0])
        if name in ("and", "or", "not"):
            raise lark.exceptions.GrammarError(f"unexpected keyword {name}")
        return ShapeSym(name)

    def call(self, items: list[lark.Token | ShapeExpr]) -> ShapeExpr:
        name = str(items[0])
        args = tuple(a for a in items[1:] if a is not None)
        arity = SHAPE_FUNCTIONS.get(name)
        if arity is None:
            raise ValueError(f"unknown function {name!r} (known: {', '.join(sorted(SHAPE_FUNCTIONS))})")
        if (arity >= 0 and len(args) != arity) or (arity < 0 and len(args) < 1):
            raise ValueError(f"{name} takes {arity if arity >= 0 else 'one or more'} arguments")
        return ShapeCall(name, args)  # type: ignore[arg-type]  # lark passes the transformed children

    def arith(self, items: list[ShapeExpr | lark.Token]) -> ShapeExpr:
        lhs, op, rhs = items
        if str(op) == "/":
            raise ValueError("use // for integer division in shape expressions")
        return ShapeArith(ArithOp(str(op)), lhs, rhs)  # type: ignore[arg-type]

    def negate(self, items: list[ShapeExpr]) -> ShapeExpr:
        return ShapeArith(ArithOp.SUB, ShapeNum(0), items[0])

    def compare(self, items: list[ShapeExpr | lark.Token]) -> ShapeExpr:
        if len(items) == 1:
            return items[0]  # type: ignore[return-value]
        lhs, op, rhs = items
        return ShapeCmp(CmpOp(str(op)), lhs, rhs)  # type: ignore[arg-type]

    def and_(self, items: list[ShapeExpr]) -> ShapeExpr:
        return items[0] if len(items) == 1 else ShapeBool(BoolOp.AND, tuple(items))

    def or_(self, items: list[ShapeExpr]) -> ShapeExpr:
        return items[0] if len(items) == 1 else ShapeBool(BoolOp.OR, tuple(items))

    def not_(self, items: list[ShapeExpr]) -> ShapeExpr:
        return ShapeNot(items[0])


def parse_shape_expr(text: str, what: str = "shape expression") -> ShapeExpr:
    """Parse ``text``; raises :class:`TaskError` naming ``what`` if it is not a valid shape expression."""
    try:
        tree = _parser().parse(text)
        return _Build().transform(tree)
    except lark.exceptions.VisitError as e:
        raise TaskError(f"invalid {what} {text!r}: {e.orig_exc}") from None
    except lark.exceptions.LarkError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise TaskError(f"invalid {what} {text!r}: {first}") from None


def shape_expr(value: ShapeExpr | str | int, what: str = "shape expression") -> ShapeExpr:
    """Coerce an ``int``, a string or an already parsed expression into a :data:`ShapeExpr`."""
    if isinstance(value, bool):
        raise TaskError(f"invalid {what} {value!r}: expected an integer or an expression string")
    if isinstance(value, int):
        return ShapeNum(value)
    if isinstance(value, str):
        return parse_shape_expr(value, what)
    if isinstance(value, ShapeNum | ShapeSym | ShapeArith | ShapeCall | ShapeCmp | ShapeBool | ShapeNot):
        return value
    raise TaskError(f"invalid {what} {value!r}: expected an integer or an expression string")


def next_pow2(n: int) -> int:
    """The least power of two at least ``n`` (1 for ``n <= 1``): ``next_pow2`` of the shape language,
    and ``triton.next_power_of_2``."""
    p = 1
    while p < n:
        p *= 2
    return p


def evaluate(e: ShapeExpr, env: dict[str, int]) -> int | bool:
    """The value of ``e`` with the symbols of ``env``; a missing symbol raises :class:`TaskError`."""
    match e:
        case ShapeNum(value):
            return value
        case ShapeSym(name):
            if name not in env:
                raise TaskError(f"shape symbol {name!r} has no value (known: {', '.join(sorted(env))})")
            return env[name]
        case ShapeArith(op, lhs, rhs):
            a, b = int(evaluate(lhs, env)), int(evaluate(rhs, env))
            match op:
                case ArithOp.ADD:
                    return a + b
                case ArithOp.SUB:
                    return a - b
                case ArithOp.MUL:
                    return a * b
                case ArithOp.FLOORDIV | ArithOp.MOD:
                    if b == 0:
                        raise TaskError(f"division by zero in shape expression {e}")
                    return a // b if op is ArithOp.FLOORDIV else a % b
                case _:
                    assert_never(op)
        case ShapeCall(fn, args):
            vals: list[int] = [int(evaluate(a, env)) for a in args]
            if fn == "cdiv":
                if vals[1] == 0:
                    raise TaskError(f"division by zero in shape expression {e}")
                return -(-vals[0] // vals[1])
            if fn == "min":
                return min(vals)
            if fn == "max":
                return max(vals)
            if fn == "pow2":
                return int(2 ** vals[0])
            if fn == "next_pow2":
                return next_pow2(vals[0])
            raise TaskError(f"unknown shape function {fn!r}")
        case ShapeCmp(op, lhs, rhs):
            a, b = evaluate(lhs, env), evaluate(rhs, env)
            match op:
                case CmpOp.EQ:
                    return a == b
                case CmpOp.NE:
                    return a != b
                case CmpOp.LT:
                    return a < b
                case CmpOp.LE:
                    return a <= b
                case CmpOp.GT:
                    return a > b
                case CmpOp.GE:
                    return a >= b
                case _:
                    assert_never(op)
        case ShapeBool(op, args):
            if op is BoolOp.AND:
                return all(evaluate(a, env) for a in args)
            return any(evaluate(a, env) for a in args)
        case ShapeNot(operand):
            return not evaluate(operand, env)
        case _:
            assert_never(e)


def free_symbols(e: ShapeExpr) -> frozenset[str]:
    """The symbols ``e`` mentions."""
    match e:
        case ShapeNum():
            return frozenset()
        case ShapeSym(name):
            return frozenset({name})
        case ShapeArith(_, lhs, rhs) | ShapeCmp(_, lhs, rhs):
            return free_symbols(lhs) | free_symbols(rhs)
        case ShapeCall(_, args) | ShapeBool(_, args):
            out: frozenset[str] = frozenset()
            for a in args:
                out |= free_symbols(a)
            return out
        case ShapeNot(operand):
            return free_symbols(operand)
        case _:
            assert_never(e)


def substitute(e: ShapeExpr, values: Mapping[str, int]) -> ShapeExpr:
    """``e`` with each symbol named in ``values`` replaced by its number (an autotune configuration's
    constexprs in a Triton task's grid)."""
    match e:
        case ShapeNum():
            return e
        case ShapeSym(name):
            return ShapeNum(values[name]) if name in values else e
        case ShapeArith(op, lhs, rhs):
            return ShapeArith(op, substitute(lhs, values), substitute(rhs, values))
        case ShapeCmp(op, lhs, rhs):
            return ShapeCmp(op, substitute(lhs, values), substitute(rhs, values))
        case ShapeCall(fn, args):
            return ShapeCall(fn, tuple(substitute(a, values) for a in args))
        case ShapeBool(op, args):
            return ShapeBool(op, tuple(substitute(a, values) for a in args))
        case ShapeNot(operand):
            return ShapeNot(substitute(operand, values))
        case _:
            assert_never(e)
