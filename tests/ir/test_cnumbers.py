"""C's integer arithmetic and number literals (``larkc.ir.cnumbers``), against definitions of C that do
not share its code: exact rationals for the quotient, ctypes' fixed-width integers for wrapping, the
floor of a rational for an arithmetic right shift, and the simulator's tensor arithmetic, which must
agree with the one place every constant evaluation calls."""

from __future__ import annotations

import ctypes
import math
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from larkc.ir.cnumbers import (
    FloatLiteral,
    IntLiteral,
    LiteralProblem,
    parse_literal,
    parse_number,
    shift,
    trunc_div,
    trunc_rem,
)
from larkc.ir.nodes import BinaryOp
from larkc.ir.types import F32, F64, I32, I64, U32, U64, ScalarType
from larkc.semantics.numerics import apply_binary

_CTYPES: dict[ScalarType, type[ctypes._SimpleCData[int]]] = {
    I32: ctypes.c_int32,
    U32: ctypes.c_uint32,
    I64: ctypes.c_int64,
    U64: ctypes.c_uint64,
}
_WIDE = st.integers(min_value=-(2**70), max_value=2**70)


def _in(t: ScalarType) -> st.SearchStrategy[int]:
    if t.is_signed:
        return st.integers(min_value=-(2 ** (t.bits - 1)), max_value=2 ** (t.bits - 1) - 1)
    return st.integers(min_value=0, max_value=2**t.bits - 1)


@given(_WIDE, _WIDE.filter(lambda b: b != 0))
def test_division_truncates_toward_zero(a: int, b: int) -> None:
    q, r = trunc_div(a, b), trunc_rem(a, b)
    assert q == math.trunc(Fraction(a, b))  # C11 6.5.5p6: "the algebraic quotient with any fractional part discarded"
    assert a == q * b + r  # "(a/b)*b + a%b shall equal a"
    assert abs(r) < abs(b)
    assert r == 0 or (r > 0) == (a > 0)


@pytest.mark.parametrize(("a", "b", "q", "r"), [(7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1)])
def test_division_by_example(a: int, b: int, q: int, r: int) -> None:
    assert (trunc_div(a, b), trunc_rem(a, b)) == (q, r)


def test_division_by_zero_is_the_callers_to_define() -> None:
    with pytest.raises(ZeroDivisionError):
        trunc_div(1, 0)
    with pytest.raises(ZeroDivisionError):
        trunc_rem(1, 0)


@pytest.mark.parametrize("t", [I32, U32, I64, U64])
@given(data=st.data())
def test_shifts_in_range(t: ScalarType, data: st.DataObject) -> None:
    value, count = data.draw(_in(t)), data.draw(st.integers(min_value=0, max_value=t.bits - 1))
    wrapped = _CTYPES[t]
    assert shift(True, value, count, t) == wrapped(value << count).value
    right = shift(False, value, count, t)
    assert right == math.floor(Fraction(value, 2**count))  # arithmetic for signed, logical for unsigned
    assert right == wrapped(value).value >> count


@pytest.mark.parametrize("t", [I32, U32, I64, U64])
@pytest.mark.parametrize("count", [-1, -64, "bits", "bits+1", 10**12])
def test_shift_counts_outside_the_width_are_undefined(t: ScalarType, count: int | str) -> None:
    n = {"bits": t.bits, "bits+1": t.bits + 1}.get(str(count), count)
    assert isinstance(n, int)
    assert shift(True, 1, n, t) is None
    assert shift(False, 1, n, t) is None


@pytest.mark.parametrize("t", [I32, U32, I64, U64])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_simulator_agrees(t: ScalarType, data: st.DataObject) -> None:
    """``semantics.numerics`` computes the same quotients, remainders and shifts on tensors."""
    a = data.draw(st.lists(_in(t), min_size=1, max_size=8))
    b = data.draw(st.lists(_in(t).filter(lambda x: x != 0), min_size=len(a), max_size=len(a)))
    counts = data.draw(st.lists(st.integers(0, t.bits - 1), min_size=len(a), max_size=len(a)))

    def tensor(xs: list[int]) -> torch.Tensor:  # the simulator's registers: u64 holds the bit pattern
        return torch.tensor([ctypes.c_int64(x).value for x in xs], dtype=torch.int64)

    def values(r: torch.Tensor) -> list[int]:
        return [_CTYPES[t](x).value for x in r.tolist()]

    ta, tb, tc = tensor(a), tensor(b), tensor(counts)
    pairs = list(zip(a, b, strict=True))
    # INT_MIN / -1 overflows (undefined in C; the simulator wraps the quotient and gives remainder 0)
    defined = [not (t.is_signed and x == -(2 ** (t.bits - 1)) and y == -1) for x, y in pairs]
    quotients = values(apply_binary(BinaryOp.DIV, ta, tb, t))
    assert [q for q, ok in zip(quotients, defined, strict=True) if ok] == [
        trunc_div(x, y) for (x, y), ok in zip(pairs, defined, strict=True) if ok
    ]
    assert values(apply_binary(BinaryOp.REM, ta, tb, t)) == [
        trunc_rem(x, y) if ok else 0 for (x, y), ok in zip(pairs, defined, strict=True)
    ]
    shifts = list(zip(a, counts, strict=True))
    assert values(apply_binary(BinaryOp.SHL, ta, tc, t)) == [shift(True, x, c, t) for x, c in shifts]
    assert values(apply_binary(BinaryOp.SHR, ta, tc, t)) == [shift(False, x, c, t) for x, c in shifts]


# -- literals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "t"),
    [
        ("0", 0, I32),
        ("010", 8, I32),  # octal
        ("0x10", 16, I32),
        ("0b101", 5, I32),
        ("1'000'000", 1000000, I32),  # digit separators
        ("2147483647", 2**31 - 1, I32),
        ("2147483648", 2**31, I64),  # a decimal literal never becomes unsigned
        ("0x80000000", 2**31, U32),  # a hexadecimal one does
        ("020000000000", 2**31, U32),  # and so does an octal one
        ("1u", 1, U32),
        ("1U", 1, U32),
        ("4294967296u", 2**32, U64),
        ("1l", 1, I64),
        ("1LL", 1, I64),
        ("1ull", 1, U64),
        ("1llu", 1, U64),
        ("0xFFFFFFFFFFFFFFFF", 2**64 - 1, U64),
        ("0x8000000000000000l", 2**63, U64),
        ("1.5", 1.5, F64),
        ("1.5f", 1.5, F32),
        ("1.F", 1.0, F32),
        (".5", 0.5, F64),
        ("1e3", 1000.0, F64),
        ("2.5E-1f", 0.25, F32),
        ("0.1f", float(ctypes.c_float(0.1).value), F32),  # rounded once, to float
        ("1.5L", 1.5, F64),  # long double is double on the device
        ("0x1p-3", 0.125, F64),
        ("0x1.8p1f", 3.0, F32),
        ("0X.8P0", 0.5, F64),
    ],
)
def test_literals(text: str, value: float, t: ScalarType) -> None:
    assert parse_number(text) == (value, t)
    assert type(parse_number(text)[0]) is type(value)  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("08", LiteralProblem.OCTAL_DIGIT),
        ("019", LiteralProblem.OCTAL_DIGIT),
        ("18446744073709551616", LiteralProblem.TOO_LARGE),
        ("1f", LiteralProblem.NOT_A_NUMBER),  # a float suffix needs a floating literal
        ("1uu", LiteralProblem.NOT_A_NUMBER),
        ("1uLu", LiteralProblem.NOT_A_NUMBER),
        ("1lL", LiteralProblem.NOT_A_NUMBER),
        ("0x", LiteralProblem.NOT_A_NUMBER),
        ("0x1.0", LiteralProblem.NOT_A_NUMBER),  # a hexadecimal floating literal needs its exponent
        ("1e", LiteralProblem.NOT_A_NUMBER),
        ("abc", LiteralProblem.NOT_A_NUMBER),
        ("", LiteralProblem.NOT_A_NUMBER),
    ],
)
def test_what_is_no_literal(text: str, problem: LiteralProblem) -> None:
    assert parse_literal(text) is problem
    assert parse_number(text) is None


def test_a_decimal_too_large_for_int64_has_no_type() -> None:
    lit = parse_literal("9223372036854775808")
    assert lit == IntLiteral(2**63, unsigned=False, long=False, decimal=True)
    assert isinstance(lit, IntLiteral)
    assert lit.type is None  # (the preprocessor's #if reads it as unsigned, as gcc does)


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_integer_spellings_agree(n: int) -> None:
    for text in (str(n), hex(n), oct(n).replace("0o", "0"), bin(n)):
        lit = parse_literal(text + "ull")
        assert isinstance(lit, IntLiteral)
        assert lit.value == n


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=0.0))
def test_float_spellings_agree(x: float) -> None:
    for text in (repr(x) if "e" in repr(x) or "." in repr(x) else repr(x) + ".", x.hex()):
        lit = parse_literal(text)
        assert lit == FloatLiteral(x, F64)
        # x is a double, so rounding it to float (ctypes) rounds its exact value once, as C does
        assert parse_literal(text + "f") == FloatLiteral(ctypes.c_float(x).value, F32)


def test_char_values_decode_escapes() -> None:
    from larkc.ir.cnumbers import char_values

    assert char_values("'a'") == [97]
    assert char_values(r"'\n'") == [10]
    assert char_values(r"'\x41\101'") == [65, 65]
    assert char_values(r"u'\u00e9'") == [0xE9]
    assert char_values(r"'\q'") is None
    assert char_values("''") == []
