"""Named irrational constants, rounding to float formats, and reading kernel float literals."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from larkc.reference.symbolic import _gelu
from larkc.symbolic import (
    LN2,
    LOG2E,
    NAMED_CONSTANTS,
    PI,
    SQRT_2_OVER_PI,
    SQRT_HALF,
    Fn,
    add,
    apply,
    const,
    elem,
    evaluate,
    match_named_constant,
    mul,
    neg,
    power,
    round_to_format,
    sub,
)
from larkc.symbolic.constants import exact_value


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-6e4, max_value=6e4, allow_nan=False, allow_infinity=False))
def test_rounding_agrees_with_numpy_and_torch(v: float) -> None:
    q = Fraction(v)
    assert round_to_format(q, "f64") == q
    assert round_to_format(q, "f32") == Fraction(float(np.float32(v)))
    assert round_to_format(q, "f16") == Fraction(float(np.float16(v)))
    assert round_to_format(q, "bf16") == Fraction(float(torch.tensor(v, dtype=torch.float64).to(torch.bfloat16)))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**6), st.sampled_from(["f32", "f16", "bf16"]))
def test_rounding_of_rationals_is_to_the_nearest(p: int, q: int, fmt: str) -> None:
    # a denominator that is not a power of two (the reference's 1/6): the exponent estimate from bit
    # lengths was one too high for 1/6, which rounded it to one bit less than float32 holds
    exact = Fraction(p, q)
    try:
        r = round_to_format(exact, fmt)
    except OverflowError:
        return
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[fmt]
    held = torch.tensor(float(r), dtype=torch.float64).to(dtype)
    assert Fraction(float(held)) == r  # a value of the format
    for step in (float("inf"), float("-inf")):
        other = Fraction(float(torch.nextafter(held, torch.tensor(step, dtype=dtype))))
        assert abs(exact - r) <= abs(exact - other)


def test_one_sixth_rounds_as_float32_holds_it() -> None:
    assert round_to_format(Fraction(1, 6), "f32") == Fraction(float(np.float32(1 / 6)))


def test_rounding_ties_to_even_and_overflow() -> None:
    assert round_to_format(Fraction(1) + Fraction(1, 2**24), "f32") == 1  # a tie: down to the even 1
    assert round_to_format(Fraction(1) + Fraction(3, 2**24), "f32") == 1 + Fraction(2, 2**23)
    with pytest.raises(OverflowError):
        round_to_format(Fraction(70000), "f16")
    with pytest.raises(ValueError, match="unknown float format"):
        round_to_format(Fraction(1), "f8")


def test_named_constants_have_their_values() -> None:
    want = {
        "pi": math.pi,
        "ln2": math.log(2),
        "log2(e)": 1 / math.log(2),
        "e": math.e,
        "sqrt(2)": math.sqrt(2),
        "sqrt(1/2)": math.sqrt(0.5),
        "sqrt(2/pi)": math.sqrt(2 / math.pi),
        "2/sqrt(pi)": 2 / math.sqrt(math.pi),
        "1/sqrt(2*pi)": 1 / math.sqrt(2 * math.pi),
        "ln10": math.log(10),
    }
    for c in NAMED_CONSTANTS:
        (v,) = evaluate([c.term], {})
        assert float(exact_value(c.term)) == pytest.approx(v, rel=1e-15)
        if c.name in want:
            assert v == pytest.approx(want[c.name], rel=1e-15)


@pytest.mark.parametrize(
    ("literal", "dtype", "name"),
    [
        (float(np.float32(1.4426950)), "f32", "log2(e)"),
        (1.4426950408889634, "f64", "log2(e)"),
        (0.7978845608, "f32", "sqrt(2/pi)"),
        (0.70710678, "f32", "sqrt(1/2)"),
        (0.7071, "bf16", "sqrt(1/2)"),
        (float(np.float16(0.6931471805599453)), "f16", "ln2"),
        (3.14159265358979, "f32", "pi"),
        (-0.6931471805599453, "f64", "-ln2"),
        (1.1283791671, "f32", "2/sqrt(pi)"),
    ],
)
def test_literals_are_read_as_named_constants(literal: float, dtype: str, name: str) -> None:
    got = match_named_constant(literal, dtype)
    assert got is not None
    term, got_name = got
    assert got_name == name
    assert round_to_format(exact_value(term), dtype) == round_to_format(Fraction(literal), dtype)


@pytest.mark.parametrize(
    ("literal", "dtype"),
    [
        (0.5, "f32"),
        (1.0, "f64"),
        (0.7071, "f32"),  # sqrt(1/2) only to 4 digits: not its float32
        (3.14159265358979, "f64"),  # pi to 15 digits: not its float64
        (float(np.float16(0.6931)), "f16"),  # one unit off ln2 in half precision
        (0.0, "f32"),
        (math.inf, "f32"),
    ],
)
def test_other_literals_are_not(literal: float, dtype: str) -> None:
    assert match_named_constant(literal, dtype) is None


def test_exp2_with_a_literal_log2e_is_exp() -> None:
    x = elem("x", 0)
    matched = match_named_constant(float(np.float32(1.442695)), "f32")
    assert matched is not None and matched[0] is LOG2E
    assert apply(Fn.EXP2, mul(x, matched[0])) is apply(Fn.EXP, x)
    assert apply(Fn.EXP2, mul(x, const(float(np.float32(1.442695))))) is not apply(Fn.EXP, x)


def test_the_gelu_spec_and_a_kernel_with_literals_agree() -> None:
    x = elem("x", 0)
    k = match_named_constant(0.7978845608, "f32")
    h = match_named_constant(0.70710678, "f32")
    assert k is not None and h is not None
    assert k[0] is SQRT_2_OVER_PI and h[0] is SQRT_HALF
    half = const(Fraction(1, 2))
    kernel_tanh = mul(mul(half, x), add(const(1), apply(Fn.TANH, mul(k[0], add(x, mul(const(0.044715), power(x, 3)))))))
    kernel_erf = mul(mul(half, x), add(const(1), apply(Fn.ERF, mul(x, h[0]))))
    assert _gelu("tanh")(x) is kernel_tanh
    assert _gelu("none")(x) is kernel_erf
    assert SQRT_2_OVER_PI is apply(Fn.SQRT, mul(const(2), power(PI, -1)))
    assert sub(apply(Fn.LOG, const(2)), LN2).is_const
    assert neg(LOG2E) is mul(const(-1), power(LN2, -1))
