"""C's integer arithmetic on exact values, and C's number literals: the one place for each.

The IR's integer operators have C's meaning (``docs/ir.md``): division truncates toward zero, the
remainder has the sign of the dividend, a shift by a count outside ``[0, bits)`` is undefined. Every
place that evaluates them on known values (the preprocessor's ``#if``, the CUDA frontend's constant
folding, the IR's loop-bound evaluation, the provers' constant cases, the KernelBench host parser)
calls these functions instead of spelling the rule again; the simulator's tensor arithmetic
(``semantics.numerics``) is checked against them by the property tests.

Number literals follow C++ ([lex.icon], [lex.fcon]): decimal, octal (``010`` is 8), hexadecimal and
binary integers with the suffixes ``u``, ``l``, ``ll`` in either order and case; floating literals
in decimal or hexadecimal (``0x1p-3``) with the suffixes ``f``/``F`` (float) and ``l``/``L`` (long
double, read as double, as nvcc's device code does); ``'`` digit separators.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from larkc.ir.types import F32, F64, I32, I64, U32, U64, ScalarType
from larkc.ir.values import round_fraction, wrap_int

__all__ = [
    "FloatLiteral",
    "IntLiteral",
    "LiteralProblem",
    "char_values",
    "parse_literal",
    "parse_number",
    "shift",
    "trunc_div",
    "trunc_rem",
]


def trunc_div(a: int, b: int) -> int:
    """C's ``a / b`` on exact integers: the quotient truncated toward zero (``-7 / 2 == -3``).

    Raises ``ZeroDivisionError`` for ``b == 0``: what a zero divisor means is the caller's to say
    (an error in ``#if``, no constant when folding, the simulator's 0 in the provers).
    """
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def trunc_rem(a: int, b: int) -> int:
    """C's ``a % b`` on exact integers: ``a - (a / b) * b``, so of the dividend's sign (``-7 % 2 == -1``)."""
    return a - b * trunc_div(a, b)


def shift(left: bool, value: int, count: int, t: ScalarType) -> int | None:
    """C's ``value << count`` (``left``) or ``value >> count`` in the (promoted) integer type ``t``.

    ``value`` is a value of ``t``. ``None`` where C leaves the shift undefined, a count below zero or
    at least ``t``'s width. A left shift wraps to ``t`` (what the GPU computes, and C++20's definition);
    a right shift is arithmetic for a signed ``t`` and logical for an unsigned one (whose values are
    never negative, so Python's ``>>`` is both).
    """
    if not 0 <= count < t.bits:
        return None
    return wrap_int(value << count, t) if left else wrap_int(value, t) >> count


# --------------------------------------------------------------------------------------------------
# Literals

_INT_LITERAL: Final = re.compile(
    r"(?P<digits>0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)(?P<suffix>(?:[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?)"
)
_DECIMAL_FLOAT: Final = re.compile(r"(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?")
_HEX_FLOAT: Final = re.compile(r"0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]+|[0-9a-fA-F]+\.?)[pP][+-]?[0-9]+")


class LiteralProblem(enum.Enum):
    """Why a text is no number literal larkc reads; the value is the message's wording."""

    NOT_A_NUMBER = "invalid number literal"
    OCTAL_DIGIT = "invalid digit in octal constant"
    TOO_LARGE = "integer constant is too large for its type"


@dataclass(frozen=True, slots=True)
class IntLiteral:
    """An integer literal: its exact value and what its spelling says about its type."""

    value: int
    unsigned: bool  # a ``u``/``U`` suffix
    long: bool  # an ``l``/``L``/``ll``/``LL`` suffix (long is 64 bits on nvcc's hosts)
    decimal: bool  # written in decimal (which never makes an unsuffixed literal unsigned)

    @property
    def type(self) -> ScalarType | None:
        """The literal's C++ type: the first of its candidates that holds the value ([lex.icon] table 8);
        ``None`` where none does (a decimal above ``INT64_MAX`` without ``u``, anything above 2^64 - 1)."""
        candidates: tuple[ScalarType, ...]
        if self.unsigned:
            candidates = (U64,) if self.long else (U32, U64)
        elif self.long:
            candidates = (I64,) if self.decimal else (I64, U64)
        else:
            candidates = (I32, I64) if self.decimal else (I32, U32, I64, U64)
        return next((c for c in candidates if wrap_int(self.value, c) == self.value), None)


@dataclass(frozen=True, slots=True)
class FloatLiteral:
    """A floating literal: its value, rounded once from the exact decimal or binary value, and its type."""

    value: float
    type: ScalarType  # F32 with an ``f`` suffix, else F64 (``l`` included)


def parse_literal(text: str) -> IntLiteral | FloatLiteral | LiteralProblem:
    """The number literal ``text`` (no sign; surrounding blanks and digit separators are ignored)."""
    s = text.replace("'", "").strip()
    m = _INT_LITERAL.fullmatch(s)
    if m is not None:
        digits, suffix = m.group("digits"), m.group("suffix").lower()
        prefix = digits[:2].lower()
        if prefix == "0x":
            value = int(digits[2:], 16)
        elif prefix == "0b":
            value = int(digits[2:], 2)
        elif digits.startswith("0") and len(digits) > 1:
            if any(d in "89" for d in digits):
                return LiteralProblem.OCTAL_DIGIT
            value = int(digits, 8)
        else:
            value = int(digits)
        if value >= 1 << 64:
            return LiteralProblem.TOO_LARGE
        decimal = not (digits.startswith("0") and len(digits) > 1)
        return IntLiteral(value, "u" in suffix, "l" in suffix, decimal)
    body, t = s, F64
    if body[-1:] in ("f", "F"):
        body, t = body[:-1], F32
    elif body[-1:] in ("l", "L"):
        body = body[:-1]
    if _HEX_FLOAT.fullmatch(body):
        return FloatLiteral(round_fraction(_hex_fraction(body), t), t)
    if _DECIMAL_FLOAT.fullmatch(body) and ("." in body or "e" in body.lower()):
        return FloatLiteral(round_fraction(Fraction(body), t), t)
    return LiteralProblem.NOT_A_NUMBER


def _hex_fraction(body: str) -> Fraction:
    """The exact value of a hexadecimal floating literal without suffix (``0x1.8p-3``)."""
    mantissa, _, exponent = body[2:].lower().partition("p")
    whole, _, frac = mantissa.partition(".")
    value = Fraction(int(whole or "0", 16)) + Fraction(int(frac or "0", 16), 16 ** len(frac))
    return value * Fraction(2) ** int(exponent)


def parse_number(text: str) -> tuple[int | float, ScalarType] | None:
    """The value and C++ type of the number literal ``text``, or ``None`` where it is none or no type
    holds it."""
    lit = parse_literal(text)
    match lit:
        case IntLiteral():
            t = lit.type
            return None if t is None else (lit.value, t)
        case FloatLiteral():
            return lit.value, lit.type
        case LiteralProblem():
            return None


#: The simple escape sequences of C11 6.4.4.4 and their values.
_ESCAPES: Final = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63}


def char_values(text: str) -> list[int] | None:
    """The values of the characters of a character constant ``text`` (``'a'``, ``'\\n'``, ``'\\x7f'``,
    ``u'x'``: the prefix is skipped), escapes decoded (simple, octal, ``\\x``, ``\\u``, ``\\U``); ``None``
    for an invalid escape. Empty for ``''``. The preprocessor's ``#if`` and the lowering share it."""
    body = text[text.index("'") + 1 : -1]
    values: list[int] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            values.append(ord(c))
            i += 1
            continue
        if i + 1 >= len(body):
            return None
        e = body[i + 1]
        if e in _ESCAPES:
            values.append(_ESCAPES[e])
            i += 2
        elif e in "xuU":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2 :])
            if m is None:
                return None
            values.append(int(m.group(), 16))
            i += 2 + m.end()
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            values.append(int(m.group(), 8))
            i += 1 + m.end()
        else:
            return None
    return values
