"""A sign oracle from syntax, and the discharge of side conditions with it.

:func:`sign_of` over-approximates the set of signs a term can take (``-``, ``0``, ``+``) from facts that hold
for every input: positive constants, ``exp(.) > 0``, ``pi``, ``ln2 > 0``, even powers ``>= 0``, ``sqrt(.) >= 0``,
sums of nonnegative terms plus a positive one ``> 0``, products and quotients by sign rules, ``max`` of a
positive term ``> 0``, ``min`` of negative ones ``< 0``, ``select`` as the union of its branches, and odd
functions (``tanh``, ``erf``) with the sign of their argument. It knows nothing about input values: ``x[0]``
can be anything. Where a term is undefined (a division by zero) the claim is about the points where it is
defined.

:func:`discharge` splits side conditions (:mod:`larkc.symbolic.conditions`) into those the oracle proves and
those that remain assumptions of a verdict.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import assert_never

from larkc.symbolic.conditions import Requirement, SideCondition
from larkc.symbolic.terms import App, Atom, Elem, Fn, Max, Min, Poly, Read, Select

__all__ = ["Sign", "discharge", "sign_of"]

_NEG, _ZERO, _POS = 1, 2, 4


class Sign(enum.Enum):
    """The signs a term may take, as a set of ``-``, ``0``, ``+`` (the value is the bit set)."""

    ZERO = _ZERO  # always 0
    POSITIVE = _POS  # > 0
    NEGATIVE = _NEG  # < 0
    NONNEGATIVE = _ZERO | _POS  # >= 0
    NONPOSITIVE = _NEG | _ZERO  # <= 0
    NONZERO = _NEG | _POS  # != 0
    UNKNOWN = _NEG | _ZERO | _POS  # anything

    def satisfies(self, requirement: Requirement) -> bool:
        """Whether every value of this sign meets ``requirement``."""
        allowed = {
            Requirement.NONZERO: _NEG | _POS,
            Requirement.NONNEGATIVE: _ZERO | _POS,
            Requirement.POSITIVE: _POS,
        }[requirement]
        return self.value & ~allowed == 0


def _of_rational(q: object) -> int:
    return _POS if q > 0 else _NEG if q < 0 else _ZERO  # type: ignore[operator]


def _add(a: int, b: int) -> int:
    out = 0
    for sa in (_NEG, _ZERO, _POS):
        if not a & sa:
            continue
        for sb in (_NEG, _ZERO, _POS):
            if not b & sb:
                continue
            if sa == _ZERO:
                out |= sb
            elif sb in (_ZERO, sa):
                out |= sa
            else:
                out |= _NEG | _ZERO | _POS
    return out


def _mul(a: int, b: int) -> int:
    out = 0
    for sa in (_NEG, _ZERO, _POS):
        if not a & sa:
            continue
        for sb in (_NEG, _ZERO, _POS):
            if b & sb:
                out |= _ZERO if _ZERO in (sa, sb) else (_POS if sa == sb else _NEG)
    return out


def _power(a: int, e: int) -> int:
    """The signs of ``x ** e`` for ``x`` of signs ``a`` (``e`` nonzero; ``x = 0`` is excluded for ``e < 0``)."""
    out = 0
    if a & _POS:
        out |= _POS
    if a & _ZERO and e > 0:
        out |= _ZERO
    if a & _NEG:
        out |= _POS if e % 2 == 0 else _NEG
    return out or _NEG | _ZERO | _POS  # (an atom that is always 0, inverted: never defined; claim nothing)


def _poly_sign(p: Poly) -> int:
    hit = p._cache.get("sign")
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    if p._base is not None and p._terms is None:
        return _derived_sign(p)
    out = _of_rational(p.const)
    for mono, c in p.terms:
        s = _of_rational(c)
        for atom, e in mono.factors:
            s = _mul(s, _power(_atom_sign(atom), e))
        out = _add(out, s)
        if out == _NEG | _ZERO | _POS:
            break
    p._cache["sign"] = out
    return out


def _derived_sign(p: Poly) -> int:
    """The signs of a sum kept as its derivation ``k * base + delta`` (its terms not materialised), from the
    signs of ``base`` and ``delta``: an over-approximation that never materialises the sum. The ``x[j] -
    mean`` of every element of a row are such sums; reading each one's terms would cost a row per element.
    The chain of bases is walked without recursion."""
    chain: list[Poly] = []
    q: Poly = p
    while q._base is not None and q._terms is None and q._cache.get("sign") is None:
        chain.append(q)
        q = q._base
    out = _poly_sign(q)
    for node in reversed(chain):
        delta = _poly_sign(node._delta) if node._delta is not None else _ZERO
        out = _add(_mul(_of_rational(node._k), out), delta)
        node._cache["sign"] = out
    return out


def _atom_sign(atom: Atom) -> int:
    match atom:
        case Poly():
            return _poly_sign(atom)
        case Elem() | Read():
            return _NEG | _ZERO | _POS
        case App():
            return _app_sign(atom)
        case Max():
            return _extremum_sign([_poly_sign(a) for a in atom.args], _POS, _NEG)
        case Min():
            return _extremum_sign([_poly_sign(a) for a in atom.args], _NEG, _POS)
        case Select():
            return _poly_sign(atom.then) | _poly_sign(atom.other)
        case _:
            assert_never(atom)


def _extremum_sign(signs: list[int], toward: int, away: int) -> int:
    """The signs of the max (``toward`` positive) or min (``toward`` negative) of terms of these signs: one
    of theirs; strictly ``toward`` when one argument is, and never ``away`` when one argument is not."""
    out = 0
    for s in signs:
        out |= s
    if any(s == toward for s in signs):
        return toward
    if any(not s & away for s in signs):
        return out & ~away
    return out


def _app_sign(atom: App) -> int:
    match atom.fn:
        case Fn.EXP | Fn.EXP2 | Fn.PI | Fn.LN2:
            return _POS
        case Fn.SQRT:
            return _POS if _poly_sign(atom.args[0]) == _POS else _ZERO | _POS
        case Fn.TANH | Fn.ERF:  # odd and increasing: the sign of the argument
            return _poly_sign(atom.args[0])
        case Fn.POW:  # x ** y for x > 0 (the domain the term language gives it)
            return _POS
        case Fn.TRUNC:  # rounds toward zero: the argument's sign, or zero
            return _poly_sign(atom.args[0]) | _ZERO
        case Fn.LOG | Fn.LOG2:
            arg = atom.args[0]
            if arg.is_const:
                return _of_rational(arg.const - 1)
            return _NEG | _ZERO | _POS
        case Fn.SIN | Fn.COS:
            return _NEG | _ZERO | _POS
        case _:
            assert_never(atom.fn)


def sign_of(term: Poly) -> Sign:
    """The signs ``term`` may take, from syntax alone (see the module doc)."""
    return Sign(_poly_sign(term))


def discharge(conditions: Iterable[SideCondition]) -> tuple[list[SideCondition], list[SideCondition]]:
    """``(proved, remaining)``: the conditions :func:`sign_of` proves, and the others (assumptions)."""
    proved: list[SideCondition] = []
    remaining: list[SideCondition] = []
    for c in conditions:
        (proved if sign_of(c.term).satisfies(c.requirement) else remaining).append(c)
    return proved, remaining
