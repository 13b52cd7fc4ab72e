"""Side conditions of simplifications, the sign oracle and the discharge of conditions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from larkc.symbolic import (
    LN2,
    ONE,
    PI,
    Fn,
    Requirement,
    SideCondition,
    Sign,
    add,
    apply,
    compare,
    const,
    discharge,
    div,
    elem,
    evaluate,
    maximum,
    minimum,
    mul,
    neg,
    normal_form,
    power,
    recip,
    select,
    side_conditions,
    sign_of,
    sub,
)
from larkc.symbolic import terms as tm

x, y, z = elem("x", 0), elem("x", 1), elem("x", 2)


def _nonzero(t: object) -> SideCondition:
    return SideCondition(t, Requirement.NONZERO)  # type: ignore[arg-type]


def test_cancelling_a_division_records_the_divisor() -> None:
    with side_conditions() as sc:
        assert div(mul(x, y), y) is x
    assert list(sc) == [_nonzero(y)]


def test_the_same_term_built_in_two_contexts_reports_in_both() -> None:
    for _ in range(2):
        with side_conditions() as sc:
            assert div(mul(x, y), y) is x
        assert _nonzero(y) in sc


def test_a_quotient_built_outside_and_cancelled_inside_is_recorded() -> None:
    q = div(x, add(y, z))  # outside any context: nothing to record into
    with side_conditions() as sc:
        assert mul(q, add(y, z)) is x
    assert _nonzero(add(y, z)) in sc


def test_conditions_are_recorded_once_and_in_nested_collectors() -> None:
    with side_conditions() as outer:
        with side_conditions() as inner:
            for _ in range(5):
                div(ONE, y)
        div(ONE, z)
    assert list(inner) == [_nonzero(y)]
    assert list(outer) == [_nonzero(y), _nonzero(z)]


def test_positive_atoms_are_inverted_without_conditions() -> None:
    with side_conditions() as sc:
        recip(apply(Fn.EXP, x))
        div(x, PI)
        div(x, mul(LN2, const(3)))
        div(x, apply(Fn.SQRT, const(2)))
    assert len(sc) == 0


def test_memoised_normal_forms_replay_their_conditions() -> None:
    t = add(div(x, add(x, y)), div(y, add(x, y)))
    for _ in range(2):
        with side_conditions() as sc:
            assert normal_form(t) is ONE
        assert _nonzero(add(x, y)) in sc


def test_condition_as_truth_value() -> None:
    assert _nonzero(y).as_bool() is compare("!=", y, const(0))
    assert SideCondition(y, Requirement.POSITIVE).as_bool() is compare(">", y, const(0))
    assert str(SideCondition(y, Requirement.NONNEGATIVE)) == "x[1] >= 0"


@pytest.mark.parametrize(
    ("term", "sign"),
    [
        (const(3), Sign.POSITIVE),
        (const(-2), Sign.NEGATIVE),
        (x, Sign.UNKNOWN),
        (apply(Fn.EXP, x), Sign.POSITIVE),
        (mul(x, x), Sign.NONNEGATIVE),
        (add(mul(x, x), const(Fraction(1, 100000))), Sign.POSITIVE),
        (add(mul(x, x), power(add(*(elem("w", i) for i in range(9))), 2), const(1)), Sign.POSITIVE),
        (add(mul(x, x), power(add(x, y), 2)), Sign.UNKNOWN),  # multiplied out: 2*x*y has no sign
        (neg(add(mul(x, x), ONE)), Sign.NEGATIVE),
        (apply(Fn.SQRT, x), Sign.NONNEGATIVE),
        (apply(Fn.SQRT, add(mul(x, x), ONE)), Sign.POSITIVE),
        (div(ONE, add(apply(Fn.EXP, x), apply(Fn.EXP, y))), Sign.POSITIVE),
        (mul(apply(Fn.EXP, x), power(y, -2)), Sign.POSITIVE),
        (maximum(x, const(1)), Sign.POSITIVE),
        (maximum(x, mul(y, y)), Sign.NONNEGATIVE),
        (minimum(x, const(-1)), Sign.NEGATIVE),
        (select(compare("<", x, y), apply(Fn.EXP, x), const(2)), Sign.POSITIVE),
        (apply(Fn.TANH, mul(x, x)), Sign.NONNEGATIVE),
        (mul(PI, LN2), Sign.POSITIVE),
        (sub(x, x), Sign.ZERO),
        (power(x, -1), Sign.NONZERO),
        (apply(Fn.LOG, const(3)), Sign.POSITIVE),
    ],
)
def test_sign_oracle(term: object, sign: Sign) -> None:
    assert sign_of(term) is sign  # type: ignore[arg-type]


def test_the_oracle_agrees_with_values() -> None:
    terms = [add(mul(x, x), ONE), maximum(x, const(1)), mul(apply(Fn.EXP, x), power(y, -2))]
    for values in ([0.0, 1.0, 2.0], [-3.0, 0.5, 1.0], [7.0, -2.0, 0.0]):
        for t, v in zip(terms, evaluate(terms, {"x": values}), strict=True):
            assert v > 0 or sign_of(t) is not Sign.POSITIVE


def test_discharge_splits_proved_and_remaining() -> None:
    with side_conditions() as sc:
        div(x, add(mul(y, y), const(1e-5)))  # y*y + eps > 0: proved
        div(x, y)  # y != 0: an assumption
        power(apply(Fn.SQRT, add(mul(z, z), ONE)), 2)  # z*z + 1 >= 0: proved
        apply(Fn.EXP, apply(Fn.LOG, z))  # z > 0: an assumption
    proved, remaining = discharge(sc)
    assert {str(c) for c in proved} == {"x[1]^2 + 1e-05 != 0", "x[2]^2 + 1 >= 0"}
    assert set(remaining) == {_nonzero(y), SideCondition(z, Requirement.POSITIVE)}


def test_a_memoised_product_reports_its_conditions_on_every_call() -> None:
    """Inside ``products_memoised`` a product of sums is made once; a second call returns the same term
    and still records the condition (``x != 0``) that cancelling ``x * 1/x`` needs."""
    x = tm.elem("x", 0)
    s = tm.add(*(tm.mul(x, tm.elem("y", i)) for i in range(8)))
    inv = tm.recip(x)
    with tm.products_memoised():
        with side_conditions() as first:
            p = tm.mul(s, inv)
        with side_conditions() as second:
            q = tm.mul(inv, s)
        memo = tm._MUL_MEMO[0]
        assert memo is not None and len(memo) == 1  # made once
    assert p is q is tm.add(*(tm.elem("y", i) for i in range(8)))
    expected = SideCondition(x, Requirement.NONZERO)
    assert expected in first.conditions and expected in second.conditions
    assert tm._MUL_MEMO[0] is None  # the memo ends with the block
