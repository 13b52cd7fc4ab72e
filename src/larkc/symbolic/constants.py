"""Named irrational constants, and reading a kernel's float literal as one of them.

Constants of the term language are exact rationals; irrational ones are terms over a small basis of atoms
that the normal form understands: ``pi`` and ``ln2`` (:data:`~larkc.symbolic.terms.PI`,
:data:`~larkc.symbolic.terms.LN2`), ``exp(1)``, and square roots of primes and of ``pi``. So ``log2(e)`` is
``ln2 ** -1`` (and ``exp2(x * log2(e))`` normalises to ``exp(x)``), ``sqrt(1/2)`` is ``sqrt(2) / 2`` and
``sqrt(2/pi)`` is ``sqrt(2) * sqrt(pi) / pi``, whichever way a spec or a kernel builds them.

A kernel writes such a constant as a float literal (``1.4426950f``, ``0.7978845608f``), which is a rational
number close to, never equal to, the constant. :func:`match_named_constant` reads a literal as the named
constant whose rounding to the kernel's float format is the literal's rounding. That is an assumption about
the programmer's intent, not a fact: the caller records it in the verdict ("float literal 1.4426950f read as
log2(e)"), and a kernel whose literal is off by one unit in the last place is not matched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from larkc.symbolic.terms import LN2, ONE, PI, Fn, Poly, apply, const, mul, neg, power, recip, to_sympy

__all__ = [
    "FLOAT_FORMATS",
    "LN10",
    "LOG2E",
    "LOG10E",
    "NAMED_CONSTANTS",
    "SQRT2",
    "SQRT_2_OVER_PI",
    "SQRT_HALF",
    "E",
    "NamedConstant",
    "exact_value",
    "match_named_constant",
    "round_to_format",
]

E = apply(Fn.EXP, ONE)
"""Euler's number, ``exp(1)``."""
LOG2E = recip(LN2)
"""``log2(e) = 1 / ln 2``."""
LN10 = apply(Fn.LOG, const(10))
"""``ln 10`` (``ln2 + log(5)``)."""
LOG10E = recip(LN10)
"""``log10(e) = 1 / ln 10``."""
SQRT2 = apply(Fn.SQRT, const(2))
"""``sqrt(2)``."""
SQRT_HALF = apply(Fn.SQRT, const(Fraction(1, 2)))
"""``sqrt(1/2) = sqrt(2) / 2`` (the erf-GELU constant)."""
SQRT_2_OVER_PI = apply(Fn.SQRT, mul(const(2), recip(PI)))
"""``sqrt(2/pi) = sqrt(2) * sqrt(pi) / pi`` (the tanh-GELU constant)."""


@dataclass(frozen=True, slots=True)
class NamedConstant:
    """An irrational constant a kernel may write as a float literal: its printed name and exact term."""

    name: str
    term: Poly


#: The constants :func:`match_named_constant` recognises, in the order it tries them. Kept short on
#: purpose: every entry is a way for a literal to be read as something it does not equal.
NAMED_CONSTANTS: tuple[NamedConstant, ...] = (
    NamedConstant("pi", PI),
    NamedConstant("2*pi", mul(const(2), PI)),
    NamedConstant("pi/2", mul(const(Fraction(1, 2)), PI)),
    NamedConstant("1/pi", recip(PI)),
    NamedConstant("e", E),
    NamedConstant("ln2", LN2),
    NamedConstant("log2(e)", LOG2E),
    NamedConstant("ln10", LN10),
    NamedConstant("log10(e)", LOG10E),
    NamedConstant("sqrt(2)", SQRT2),
    NamedConstant("sqrt(1/2)", SQRT_HALF),
    NamedConstant("sqrt(2/pi)", SQRT_2_OVER_PI),
    NamedConstant("2/sqrt(pi)", mul(const(2), power(apply(Fn.SQRT, PI), -1))),
    NamedConstant("1/sqrt(2*pi)", apply(Fn.SQRT, recip(mul(const(2), PI)))),
)

#: Binary floating-point formats by the kernel dtype names: (significand bits including the implicit
#: one, smallest normal exponent, largest exponent).
FLOAT_FORMATS: dict[str, tuple[int, int, int]] = {
    "f64": (53, -1022, 1023),
    "f32": (24, -126, 127),
    "f16": (11, -14, 15),
    "bf16": (8, -126, 127),
    "f8e4m3": (4, -6, 8),
    "f8e5m2": (3, -14, 15),
}


def round_to_format(q: Fraction, dtype: str) -> Fraction:
    """``q`` rounded to the nearest value of the float format ``dtype`` (ties to even, subnormals
    included); raises :class:`OverflowError` past the largest finite value."""
    if dtype not in FLOAT_FORMATS:
        raise ValueError(f"unknown float format {dtype!r} (expected one of {', '.join(FLOAT_FORMATS)})")
    bits, emin, emax = FLOAT_FORMATS[dtype]
    if not q:
        return q
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2**(e-1) < a < 2**(e+1)
    if Fraction(2) ** e > a:
        e -= 1  # now 2**e <= a < 2**(e+1): 1/6 has exponent -3, not the estimate's -2
    quantum = Fraction(2) ** (max(e, emin) - bits + 1)
    scaled = a / quantum
    n, rem = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * rem
    if twice > scaled.denominator or (twice == scaled.denominator and n % 2):
        n += 1
    out = n * quantum
    if out >= Fraction(2) ** (emax + 1):
        raise OverflowError(f"{float(q)} overflows {dtype}")
    return out if q > 0 else -out


_EXACT: dict[int, Fraction] = {}


def exact_value(term: Poly, digits: int = 60) -> Fraction:
    """A binary approximation of a constant term to ``digits`` decimal digits (about 200 bits), far more
    than the 53 bits any rounding here needs: an irrational constant is never that close to a rounding
    boundary."""
    key = id(term)
    hit = _EXACT.get(key)
    if hit is None:
        value = to_sympy(term).evalf(digits)
        sign, man, exp, _ = value._mpf_
        hit = Fraction(-man if sign else man) * Fraction(2) ** exp
        if len(_EXACT) < 256:
            _EXACT[key] = hit
    return hit


def match_named_constant(value: float, dtype: str) -> tuple[Poly, str] | None:
    """``(term, name)`` when the float literal ``value``, as ``dtype`` (``"f32"``, ``"f16"``, ``"bf16"``,
    ``"f64"``) rounds it, is the rounding of a named constant of :data:`NAMED_CONSTANTS` (or of its
    negation); None otherwise. The caller records the reading as an assumption of the verdict."""
    if not math.isfinite(value) or value == 0:
        return None
    literal = round_to_format(Fraction(value), dtype)
    for c in NAMED_CONSTANTS:
        rounded = round_to_format(exact_value(c.term), dtype)
        if rounded == literal:
            return c.term, c.name
        if rounded == -literal:
            return neg(c.term), f"-{c.name}"
    return None
