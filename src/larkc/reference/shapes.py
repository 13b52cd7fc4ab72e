"""Shape arithmetic for the spec IR: building, simplifying, comparing and printing shape expressions.

Spec shapes are the task's :data:`~larkc.tasks.ShapeExpr` (integers over the symbolic shape parameters).
Rules build them with the folding constructors here (``mk_mul(n, 1)`` is ``n``); :func:`simplify` brings an
expression to a canonical form through sympy (symbols are positive integers), and :func:`same` decides
equality of two expressions for every value of the symbols.
"""

from __future__ import annotations

import contextvars
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from larkc.errors import ReferenceError_
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
    evaluate,
    free_symbols,
)

__all__ = [
    "as_int",
    "assuming",
    "concrete",
    "fmt",
    "from_sympy",
    "mk_add",
    "mk_cdiv",
    "mk_floordiv",
    "mk_mul",
    "mk_sub",
    "product",
    "same",
    "same_shape",
    "simplify",
    "to_sympy",
]


def as_int(e: ShapeExpr) -> int | None:
    """The value of a constant expression, ``None`` if it mentions a symbol."""
    return e.value if isinstance(e, ShapeNum) else None


def mk_add(a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ShapeNum(ia + ib)
    if ia == 0:
        return b
    if ib == 0:
        return a
    if ib is not None and ib < 0:
        return ShapeArith(ArithOp.SUB, a, ShapeNum(-ib))
    return ShapeArith(ArithOp.ADD, a, b)


def mk_sub(a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ShapeNum(ia - ib)
    if ib == 0:
        return a
    if a == b:
        return ShapeNum(0)
    return ShapeArith(ArithOp.SUB, a, b)


def mk_mul(a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ShapeNum(ia * ib)
    if ia == 1:
        return b
    if ib == 1:
        return a
    if ia == 0 or ib == 0:
        return ShapeNum(0)
    if ib is not None:  # constants first: 2 * d
        return ShapeArith(ArithOp.MUL, b, a)
    return ShapeArith(ArithOp.MUL, a, b)


def mk_floordiv(a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    ia, ib = as_int(a), as_int(b)
    if ib == 0:
        raise ReferenceError_(f"division by zero in the shape expression {fmt(a)} // 0")
    if ia is not None and ib is not None:
        return ShapeNum(ia // ib)
    if ib == 1:
        return a
    return ShapeArith(ArithOp.FLOORDIV, a, b)


def mk_cdiv(a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    ia, ib = as_int(a), as_int(b)
    if ib == 0:
        raise ReferenceError_(f"division by zero in the shape expression cdiv({fmt(a)}, 0)")
    if ia is not None and ib is not None:
        return ShapeNum(-(-ia // ib))
    if ib == 1:
        return a
    return ShapeCall("cdiv", (a, b))


def product(dims: Iterable[ShapeExpr]) -> ShapeExpr:
    out: ShapeExpr = ShapeNum(1)
    for d in dims:
        out = mk_mul(out, d)
    return out


def concrete(e: ShapeExpr, env: Mapping[str, int]) -> int:
    """The integer value of ``e`` under ``env`` (raises :class:`ReferenceError_` for a missing symbol)."""
    try:
        return int(evaluate(e, dict(env)))
    except Exception as err:
        raise ReferenceError_(f"cannot evaluate the shape expression {fmt(e)}: {err}") from None


# sympy round trip -----------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _symbol(name: str) -> Any:
    import sympy

    return sympy.Symbol(name, integer=True, positive=True)


def to_sympy(e: ShapeExpr) -> Any:
    """``e`` as a sympy expression over positive integer symbols (``//`` is ``floor(a / b)``)."""
    import sympy

    match e:
        case ShapeNum(value):
            return sympy.Integer(value)
        case ShapeSym(name):
            return _symbol(name)
        case ShapeArith(op, lhs, rhs):
            a, b = to_sympy(lhs), to_sympy(rhs)
            match op:
                case ArithOp.ADD:
                    return a + b
                case ArithOp.SUB:
                    return a - b
                case ArithOp.MUL:
                    return a * b
                case ArithOp.FLOORDIV:
                    return sympy.floor(a / b)
                case ArithOp.MOD:
                    return sympy.Mod(a, b)
            raise AssertionError(op)
        case ShapeCall(fn, args):
            vals = [to_sympy(a) for a in args]
            if fn == "cdiv":
                return sympy.ceiling(vals[0] / vals[1])
            if fn == "min":
                return sympy.Min(*vals)
            if fn == "max":
                return sympy.Max(*vals)
            if fn == "pow2":
                return sympy.Integer(2) ** vals[0]
            raise ReferenceError_(f"shape function {fn} is not supported in reference shapes")
        case ShapeCmp(op, lhs, rhs):
            a, b = to_sympy(lhs), to_sympy(rhs)
            return {
                CmpOp.EQ: sympy.Eq,
                CmpOp.NE: sympy.Ne,
                CmpOp.LT: sympy.Lt,
                CmpOp.LE: sympy.Le,
                CmpOp.GT: sympy.Gt,
                CmpOp.GE: sympy.Ge,
            }[op](a, b)
        case ShapeBool(op, args):
            vals = [to_sympy(a) for a in args]
            return sympy.And(*vals) if op is BoolOp.AND else sympy.Or(*vals)
        case ShapeNot(operand):
            return sympy.Not(to_sympy(operand))
    raise AssertionError(e)


def from_sympy(expr: Any) -> ShapeExpr:
    """A shape expression for a sympy integer expression (also torch's ``FloorDiv``, ``Mod``, ...).

    Raises :class:`ReferenceError_` for forms with no shape-expression counterpart (non-integer powers,
    floats).
    """
    import sympy

    name = type(expr).__name__
    if isinstance(expr, sympy.Integer) or (isinstance(expr, int) and not isinstance(expr, bool)):
        return ShapeNum(int(expr))
    if isinstance(expr, sympy.Symbol):
        return ShapeSym(expr.name)
    if isinstance(expr, sympy.Add):
        terms = sorted(expr.args, key=_term_order)
        out = from_sympy(terms[0])
        for t in terms[1:]:
            coeff, rest = t.as_coeff_Mul()
            if coeff < 0:
                out = mk_sub(out, from_sympy(-t))
            else:
                out = mk_add(out, from_sympy(t))
        return out
    if isinstance(expr, sympy.Mul):
        coeff, rest = expr.as_coeff_Mul()
        if coeff != 1 and not isinstance(coeff, sympy.Integer):
            raise ReferenceError_(f"the shape expression {expr} is not an integer expression")
        prod: ShapeExpr = ShapeNum(int(coeff))
        for f in sorted(sympy.Mul.make_args(rest), key=str):
            prod = mk_mul(prod, from_sympy(f))
        return prod
    if isinstance(expr, sympy.Pow):
        base, exp = expr.args
        if isinstance(exp, sympy.Integer) and int(exp) > 0:
            b = from_sympy(base)
            out = b
            for _ in range(int(exp) - 1):
                out = mk_mul(out, b)
            return out
        raise ReferenceError_(f"the shape expression {expr} is not an integer expression")
    if isinstance(expr, sympy.floor):
        num_, den = sympy.fraction(sympy.together(expr.args[0]))
        return mk_floordiv(from_sympy(num_), from_sympy(den))
    if isinstance(expr, sympy.ceiling):
        num_, den = sympy.fraction(sympy.together(expr.args[0]))
        return mk_cdiv(from_sympy(num_), from_sympy(den))
    if name in ("FloorDiv", "CleanDiv", "IntTrueDiv") and len(expr.args) == 2:
        return mk_floordiv(from_sympy(expr.args[0]), from_sympy(expr.args[1]))
    if name == "CeilDiv" and len(expr.args) == 2:
        return mk_cdiv(from_sympy(expr.args[0]), from_sympy(expr.args[1]))
    if name in ("Mod", "PythonMod") and len(expr.args) == 2:
        return ShapeArith(ArithOp.MOD, from_sympy(expr.args[0]), from_sympy(expr.args[1]))
    if name in ("Max", "Min"):
        return ShapeCall(name.lower(), tuple(from_sympy(a) for a in sorted(expr.args, key=str)))
    if isinstance(expr, sympy.Rel):
        ops = {"==": CmpOp.EQ, "!=": CmpOp.NE, "<": CmpOp.LT, "<=": CmpOp.LE, ">": CmpOp.GT, ">=": CmpOp.GE}
        return ShapeCmp(ops[expr.rel_op], from_sympy(expr.lhs), from_sympy(expr.rhs))
    if isinstance(expr, sympy.And | sympy.Or):
        op = BoolOp.AND if isinstance(expr, sympy.And) else BoolOp.OR
        return ShapeBool(op, tuple(from_sympy(a) for a in sorted(expr.args, key=str)))
    if isinstance(expr, sympy.Not):
        return ShapeNot(from_sympy(expr.args[0]))
    raise ReferenceError_(f"the shape expression {expr} has no shape-expression form ({name})")


def _term_order(t: Any) -> tuple[int, int, str]:
    # positive terms first, then by degree-free text, so that 2*d - 1 prints as such
    coeff, _ = t.as_coeff_Mul()
    return (1 if coeff < 0 else 0, 1 if t.is_number else 0, str(t))


@lru_cache(maxsize=4096)
def simplify(e: ShapeExpr) -> ShapeExpr:
    """A canonical form of ``e`` (constants folded, like terms collected, ``(2*d)//2`` is ``d``)."""
    if isinstance(e, ShapeNum | ShapeSym):
        return e
    import sympy

    return from_sympy(sympy.simplify(to_sympy(e)))


#: Substitutions that the conditions in force allow (see :func:`assuming`), as (symbol, sympy expr) pairs.
_ASSUMED: contextvars.ContextVar[tuple[tuple[str, Any], ...]] = contextvars.ContextVar("assumed", default=())


def _substitutions(conditions: Sequence[ShapeExpr]) -> tuple[tuple[str, Any], ...]:
    """``x % k == 0`` makes ``x`` a multiple ``k*x'``; ``x == e`` replaces ``x`` by ``e``."""
    import sympy

    subs: dict[str, Any] = {}
    work = list(conditions)
    while work:
        c = work.pop()
        match c:
            case ShapeBool(BoolOp.AND, args):
                work.extend(args)
            case ShapeCmp(CmpOp.EQ, ShapeArith(ArithOp.MOD, ShapeSym(x), ShapeNum(k)), ShapeNum(0)) if k > 0:
                if x not in subs:
                    subs[x] = k * sympy.Symbol(f"{x}__per{k}", integer=True, positive=True)
            case ShapeCmp(CmpOp.EQ, ShapeSym(x), rhs) if x not in free_symbols(rhs) and x not in subs:
                subs[x] = to_sympy(rhs)
            case ShapeCmp(CmpOp.EQ, lhs, ShapeSym(x)) if x not in free_symbols(lhs) and x not in subs:
                subs[x] = to_sympy(lhs)
            case _:
                pass
    # compose: a substitution's right side may mention symbols that are themselves replaced
    table = {_symbol(k): v for k, v in subs.items()}
    for _ in range(len(table) + 1):
        new = {k: v.xreplace(table) for k, v in table.items()}
        if new == table:
            break
        table = new
    return tuple(sorted((str(k), v) for k, v in table.items()))


@contextmanager
def assuming(conditions: Sequence[ShapeExpr]) -> Iterator[None]:
    """Within the block, :func:`same` decides equality under ``conditions`` (the task's constraints and
    the guards of the trace): divisibility and equations between symbols are used, inequalities not."""
    token = _ASSUMED.set(_substitutions(conditions))
    try:
        yield
    finally:
        _ASSUMED.reset(token)


def same(a: ShapeExpr, b: ShapeExpr) -> bool:
    """Whether ``a`` and ``b`` are equal for every positive value of their symbols (that satisfies the
    conditions of an enclosing :func:`assuming`)."""
    if a == b:
        return True
    ia, ib = as_int(a), as_int(b)
    if ia is not None and ib is not None:
        return ia == ib
    return _same(a, b, _ASSUMED.get())


@lru_cache(maxsize=4096)
def _same(a: ShapeExpr, b: ShapeExpr, subs: tuple[tuple[str, Any], ...]) -> bool:
    import sympy

    diff = to_sympy(a) - to_sympy(b)
    if subs:
        diff = diff.xreplace({_symbol(k): v for k, v in subs})
    if sympy.simplify(diff) == 0:
        return True
    return _same_by_residues(diff)


def _same_by_residues(diff: Any) -> bool:
    """Whether ``diff`` (with floor, ceiling or mod by constants) is zero, by cases on the residues of its
    symbols modulo the divisors: with ``d = L*m + r`` the floors become polynomials in ``m``."""
    import sympy

    divisors: set[int] = set()
    for f in diff.atoms(sympy.floor, sympy.ceiling, sympy.Mod):
        arg = f.args[0] if not isinstance(f, sympy.Mod) else f.args[0] / f.args[1]
        _, den = sympy.fraction(sympy.together(arg))
        if not den.is_Integer:
            return False
        divisors.add(int(den))
    symbols = sorted(diff.free_symbols, key=str)
    if not divisors or not symbols:
        return False
    period = math.lcm(*divisors)
    if period ** len(symbols) > 512:
        return False
    quotients = [sympy.Symbol(f"{s}__q", integer=True, nonnegative=True) for s in symbols]
    for residues in itertools.product(range(period), repeat=len(symbols)):
        case = diff.xreplace({s: period * q + r for s, q, r in zip(symbols, quotients, residues, strict=True)})
        if sympy.simplify(case) != 0:
            return False
    return True


def same_shape(a: Sequence[ShapeExpr], b: Sequence[ShapeExpr]) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))


# printing -------------------------------------------------------------------------------------------

_PREC = {ArithOp.ADD: 1, ArithOp.SUB: 1, ArithOp.MUL: 2, ArithOp.FLOORDIV: 2, ArithOp.MOD: 2}


def fmt(e: ShapeExpr, parent: int = 0) -> str:
    """``e`` in Python syntax with the fewest parentheses (``2*d``, ``n*d - 1``, ``cdiv(n, 4)``)."""
    match e:
        case ShapeNum(value):
            return str(value)
        case ShapeSym(name):
            return name
        case ShapeArith(op, lhs, rhs):
            prec = _PREC[op]
            sep = "*" if op is ArithOp.MUL else f" {op.value} "
            # a right operand at the same level keeps its parentheses unless the op is associative with
            # it: a - (b - c), a // (b * c) and a * (b // c) all need them, a + (b - c) and a * (b * c) not
            # (and a * (b // c * d) too: printed flat, every operator at the right operand's level must be *)
            associative = (op is ArithOp.ADD) or (op is ArithOp.MUL and _level_ops(rhs, prec) <= {ArithOp.MUL})
            right_prec = prec if associative else prec + 1
            text = f"{fmt(lhs, prec)}{sep}{fmt(rhs, right_prec)}"
            return f"({text})" if prec < parent else text
        case ShapeCall(fn, args):
            return f"{fn}({', '.join(fmt(a) for a in args)})"
        case ShapeCmp(op, lhs, rhs):
            text = f"{fmt(lhs, 1)} {op.value} {fmt(rhs, 1)}"
            return f"({text})" if parent > 0 else text
        case ShapeBool(op, args):
            text = f" {op.value} ".join(fmt(a, 1) for a in args)
            return f"({text})" if parent > 0 else text
        case ShapeNot(operand):
            return f"not {fmt(operand, 1)}"
    raise AssertionError(e)


def _level_ops(e: ShapeExpr, prec: int) -> set[ArithOp]:
    """The arithmetic operators of ``e`` at precedence ``prec`` that printing it flat would put side by side."""
    if isinstance(e, ShapeArith) and _PREC[e.op] == prec:
        return {e.op} | _level_ops(e.lhs, prec) | _level_ops(e.rhs, prec)
    return set()


def fmt_shape(shape: Sequence[ShapeExpr]) -> str:
    return "[" + ", ".join(fmt(d) for d in shape) + "]"
