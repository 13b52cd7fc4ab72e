"""Extended reals: the exact terms and the three values outside them, with IEEE 754's rules.

A reference may hold infinities (``masked_fill(mask, float("-inf"))`` before a softmax, ``F.pad(x, ...,
value=float("inf"))``) and produce NaN (a fully masked softmax row is ``0/0``). Terms
(:mod:`larkc.symbolic.terms`) are real numbers; an *extended* value is a term or a :class:`NonFinite`.
The operations here follow IEEE 754 where the answer does not depend on the inputs:

* ``exp(-inf) = 0``, ``exp(inf) = inf``, ``tanh(+-inf) = +-1``, ``log(inf) = inf``, ``sqrt(-inf) = nan``;
* ``max(x, -inf) = x``, ``min(x, inf) = x``, and NaN propagates through ``maximum``/``minimum``/``amax``
  (torch's rule, not C's ``fmaxf``);
* ``x + inf = inf`` for finite ``x``, ``inf - inf = nan``, ``inf * c`` by the sign of ``c``, ``x / inf = 0``;
* comparisons of a finite term with an infinity are decided (every term is finite); NaN compares unequal.

Where the answer depends on input values, the operation raises :class:`Undecided` with the reason: an
infinity times a term whose sign the syntactic oracle does not know (``0 * inf`` is NaN, any other product
an infinity), or a choice between a term and an infinity on a condition over input data. The caller turns
it into an error located at the reference line (the spec evaluator) or an unknown.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TypeAlias

from larkc.symbolic import terms as tm
from larkc.symbolic.signs import Sign, sign_of
from larkc.symbolic.terms import BoolConst, BoolTerm, Fn, Poly

__all__ = [
    "Ext",
    "NonFinite",
    "Undecided",
    "UndecidedChoice",
    "ext_add",
    "ext_apply",
    "ext_compare",
    "ext_div",
    "ext_extremum",
    "ext_mul",
    "ext_neg",
    "ext_select",
    "ext_sum",
    "is_nonfinite",
]


class NonFinite(enum.Enum):
    """A floating-point value that is not a real number. The value is how a kernel's run spells it."""

    POS_INF = "+inf"  # positive infinity
    NEG_INF = "-inf"  # negative infinity
    NAN = "nan"  # not a number (``inf - inf``, ``0 * inf``, ``0 / 0``, ``log(-inf)``)

    def __str__(self) -> str:
        return self.value


#: An extended real: an exact term (finite for every input) or a non-finite value.
Ext: TypeAlias = Poly | NonFinite

_INF = (NonFinite.POS_INF, NonFinite.NEG_INF)


class Undecided(Exception):
    """The extended value depends on input values in a way the terms cannot express (see the module doc)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UndecidedChoice(Undecided):
    """A choice between a term and a non-finite value (or two different ones) on a condition over input
    data: the value is extended-real piecewise, which one term cannot say. Where the condition reads only
    ``bool`` inputs the verifier decides it by cases over their values (:mod:`larkc.pipeline.verify`)."""


def is_nonfinite(x: object) -> bool:
    return isinstance(x, NonFinite)


def ext_neg(x: Ext) -> Ext:
    match x:
        case NonFinite.POS_INF:
            return NonFinite.NEG_INF
        case NonFinite.NEG_INF:
            return NonFinite.POS_INF
        case NonFinite.NAN:
            return x
        case Poly():
            return tm.neg(x)


def ext_add(x: Ext, y: Ext) -> Ext:
    """``x + y``: NaN absorbs, ``inf + -inf`` is NaN, an infinity absorbs a finite term."""
    if x is NonFinite.NAN or y is NonFinite.NAN:
        return NonFinite.NAN
    if isinstance(x, NonFinite) and isinstance(y, NonFinite):
        return x if x is y else NonFinite.NAN
    if isinstance(x, NonFinite):
        return x
    if isinstance(y, NonFinite):
        return y
    return tm.add(x, y)


def ext_sum(xs: Sequence[Ext]) -> Ext:
    """``sum(xs)`` (one n-ary sum of the terms when no value is infinite)."""
    specials = [x for x in xs if isinstance(x, NonFinite)]
    if not specials:
        return tm.add(*(x for x in xs if isinstance(x, Poly))) if xs else tm.ZERO
    out: Ext = specials[0]
    for s in specials[1:]:
        out = ext_add(out, s)
    return out


def _sign(p: Poly, what: str) -> int:
    """+1 or -1 for a term of known nonzero sign, 0 for the constant 0; :class:`Undecided` otherwise."""
    if p.is_const:
        return (p.const > 0) - (p.const < 0)
    s = sign_of(p)
    if s is Sign.POSITIVE:
        return 1
    if s is Sign.NEGATIVE:
        return -1
    raise Undecided(f"{what} a value of unknown sign ({_short(p)})")


def _signed_inf(positive: bool) -> NonFinite:
    return NonFinite.POS_INF if positive else NonFinite.NEG_INF


def ext_mul(x: Ext, y: Ext) -> Ext:
    """``x * y``: ``inf * c`` takes the sign of ``c``; ``0 * inf`` is NaN."""
    if x is NonFinite.NAN or y is NonFinite.NAN:
        return NonFinite.NAN
    if isinstance(x, NonFinite) and isinstance(y, NonFinite):
        return _signed_inf(x is y)
    if isinstance(x, NonFinite) or isinstance(y, NonFinite):
        inf, other = (x, y) if isinstance(x, NonFinite) else (y, x)
        assert isinstance(other, Poly)
        sign = _sign(other, "an infinity times")
        if sign == 0:
            return NonFinite.NAN
        return _signed_inf((inf is NonFinite.POS_INF) == (sign > 0))
    return tm.mul(x, y)


def ext_div(x: Ext, y: Ext) -> Ext:
    """``x / y``: a finite term over an infinity is 0, ``inf / inf`` NaN, ``inf / c`` by the sign of ``c``.

    A division of terms by the constant 0 raises :class:`ZeroDivisionError` (as :func:`terms.div`)."""
    if x is NonFinite.NAN or y is NonFinite.NAN:
        return NonFinite.NAN
    if isinstance(y, NonFinite):
        return NonFinite.NAN if isinstance(x, NonFinite) else tm.ZERO
    if isinstance(x, NonFinite):
        sign = _sign(y, "an infinity divided by")
        if sign == 0:
            return x  # IEEE: inf / 0 is inf (of the numerator's sign, for +0)
        return _signed_inf((x is NonFinite.POS_INF) == (sign > 0))
    return tm.div(x, y)


def ext_extremum(xs: Sequence[Ext], is_max: bool) -> Ext:
    """``max(xs)`` (``min``): NaN propagates (torch's ``maximum``/``amax``), ``-inf`` (``inf``) is the
    identity, ``inf`` (``-inf``) absorbs."""
    if any(x is NonFinite.NAN for x in xs):
        return NonFinite.NAN
    top, bottom = (NonFinite.POS_INF, NonFinite.NEG_INF) if is_max else (NonFinite.NEG_INF, NonFinite.POS_INF)
    if any(x is top for x in xs):
        return top
    finite = [x for x in xs if isinstance(x, Poly)]
    if not finite:
        return bottom
    return tm.maximum(*finite) if is_max else tm.minimum(*finite)


def ext_compare(op: str, x: Ext, y: Ext) -> BoolTerm:
    """``x op y`` (``== != < <= > >=``): decided whenever one side is not a term (every term is finite)."""
    if isinstance(x, Poly) and isinstance(y, Poly):
        return tm.compare(op, x, y)
    if x is NonFinite.NAN or y is NonFinite.NAN:
        return tm.TRUE if op == "!=" else tm.FALSE
    rank = {NonFinite.NEG_INF: -1, NonFinite.POS_INF: 1}
    a = rank[x] if isinstance(x, NonFinite) else 0
    b = rank[y] if isinstance(y, NonFinite) else 0
    result = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return tm.TRUE if result else tm.FALSE


def ext_select(cond: BoolTerm, x: Ext, y: Ext) -> Ext:
    """``x if cond else y``; a choice between different non-finite values (or one and a term) on a
    condition over input data is :class:`Undecided`."""
    if isinstance(cond, BoolConst):
        return x if cond.value else y
    if isinstance(x, Poly) and isinstance(y, Poly):
        return tm.select(cond, x, y)
    if x is y:
        return x
    raise UndecidedChoice(f"a choice between {_short(x)} and {_short(y)} that depends on input data ({_short(cond)})")


#: ``fn`` at the non-finite values (IEEE 754): a term or a non-finite value.
_AT_NONFINITE: dict[tuple[Fn, NonFinite], Ext] = {
    (Fn.EXP, NonFinite.NEG_INF): tm.ZERO,
    (Fn.EXP, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.EXP2, NonFinite.NEG_INF): tm.ZERO,
    (Fn.EXP2, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.LOG, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.LOG, NonFinite.NEG_INF): NonFinite.NAN,
    (Fn.LOG2, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.LOG2, NonFinite.NEG_INF): NonFinite.NAN,
    (Fn.SQRT, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.SQRT, NonFinite.NEG_INF): NonFinite.NAN,
    (Fn.TANH, NonFinite.POS_INF): tm.ONE,
    (Fn.TANH, NonFinite.NEG_INF): tm.const(-1),
    (Fn.ERF, NonFinite.POS_INF): tm.ONE,
    (Fn.ERF, NonFinite.NEG_INF): tm.const(-1),
    (Fn.SIN, NonFinite.POS_INF): NonFinite.NAN,
    (Fn.SIN, NonFinite.NEG_INF): NonFinite.NAN,
    (Fn.COS, NonFinite.POS_INF): NonFinite.NAN,
    (Fn.COS, NonFinite.NEG_INF): NonFinite.NAN,
    (Fn.TRUNC, NonFinite.POS_INF): NonFinite.POS_INF,
    (Fn.TRUNC, NonFinite.NEG_INF): NonFinite.NEG_INF,
}


def ext_apply(fn: Fn, x: Ext) -> Ext:
    """``fn(x)`` of one argument, with IEEE 754's values at the non-finite ones."""
    if isinstance(x, Poly):
        return tm.apply(fn, x)
    if x is NonFinite.NAN:
        return x
    out = _AT_NONFINITE.get((fn, x))
    if out is None:
        raise Undecided(f"{fn.value} of {x}")
    return out


def _short(x: object) -> str:
    text = str(x)
    return text if len(text) <= 80 else text[:77] + "..."
