"""Shape expressions as Lean 4 terms.

A task's sizes, launch dimensions and constraints are :mod:`larkc.tasks.shape_expr` expressions over its
shape symbols. In Lean the symbols are natural-number parameters (``(M N K : ℕ)``), so an arithmetic
shape expression prints as a ``ℕ`` term and a constraint as a ``Prop``. ``ℕ`` subtraction truncates at
zero, which is the value a size expression that went negative would have as a size; ``//`` and ``%`` are
Lean's ``/`` and ``%`` on ``ℕ`` (floor division, as in Python, for the non-negative values sizes take).
``next_pow2`` is ``Larkc.nextPow2`` of the library (``lean/Larkc/Tensor.lean``).
"""

from __future__ import annotations

from typing import assert_never

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
    ShapeSym,
)

__all__ = ["lean_shape", "lean_shape_prop"]

_ARITH = {ArithOp.ADD: "+", ArithOp.SUB: "-", ArithOp.MUL: "*", ArithOp.FLOORDIV: "/", ArithOp.MOD: "%"}
_CMP = {CmpOp.EQ: "=", CmpOp.NE: "≠", CmpOp.LT: "<", CmpOp.LE: "≤", CmpOp.GT: ">", CmpOp.GE: "≥"}


def lean_shape(e: ShapeExpr) -> str:
    """``e`` as a Lean ``ℕ`` term; compound terms are parenthesised, so the result nests anywhere."""
    match e:
        case ShapeNum(value):
            if value < 0:
                raise ValueError(f"negative size constant {value} has no ℕ value")
            return str(value)
        case ShapeSym(name):
            return name
        case ShapeArith(op, lhs, rhs):
            return f"({lean_shape(lhs)} {_ARITH[op]} {lean_shape(rhs)})"
        case ShapeCall(fn, args):
            a = [lean_shape(x) for x in args]
            if fn == "cdiv":
                return f"(({a[0]} + {a[1]} - 1) / {a[1]})"
            if fn in ("min", "max"):
                out = a[0]
                for x in a[1:]:
                    out = f"({fn} {out} {x})"
                return out
            if fn == "pow2":
                return f"(2 ^ {a[0]})"
            if fn == "next_pow2":
                return f"(Larkc.nextPow2 {a[0]})"
            raise ValueError(f"unknown shape function {fn!r}")
        case ShapeCmp() | ShapeBool() | ShapeNot():
            raise ValueError(f"{e} is a condition, not a size")
        case _:
            assert_never(e)


def lean_shape_prop(e: ShapeExpr) -> str:
    """A constraint (comparison, ``and``/``or``/``not``) as a Lean ``Prop``, parenthesised."""
    match e:
        case ShapeCmp(op, lhs, rhs):
            return f"({lean_shape(lhs)} {_CMP[op]} {lean_shape(rhs)})"
        case ShapeBool(op, args):
            sep = " ∧ " if op is BoolOp.AND else " ∨ "
            return "(" + sep.join(lean_shape_prop(a) for a in args) + ")"
        case ShapeNot(operand):
            return f"(¬{lean_shape_prop(operand)})"
        case ShapeNum() | ShapeSym() | ShapeArith() | ShapeCall():
            raise ValueError(f"{e} is a size, not a condition")
        case _:
            assert_never(e)
