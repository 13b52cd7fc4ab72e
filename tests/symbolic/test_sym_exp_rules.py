"""The rules for exp, log, sqrt and the named constants hold structurally; online softmax is three-pass softmax."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from kernel_forms import online_softmax, three_pass_softmax

from larkc.symbolic import (
    LN2,
    LOG2E,
    ONE,
    PI,
    SQRT2,
    SQRT_2_OVER_PI,
    SQRT_HALF,
    ZERO,
    Fn,
    Poly,
    Requirement,
    SideCondition,
    add,
    apply,
    const,
    div,
    elem,
    equal,
    evaluate,
    maximum,
    mul,
    neg,
    power,
    recip,
    side_conditions,
    sub,
)

a, b, c = elem("x", 0), elem("x", 1), elem("y", 0)


def exp(x: Poly) -> Poly:
    return apply(Fn.EXP, x)


def test_exp_products_powers_and_inverses_merge() -> None:
    assert mul(exp(a), exp(b)) is exp(add(a, b))
    assert mul(exp(a), exp(neg(a))) is ONE
    assert power(exp(a), 3) is exp(mul(const(3), a))
    assert recip(exp(a)) is exp(neg(a))
    assert div(exp(a), exp(b)) is exp(sub(a, b))
    assert exp(ZERO) is ONE
    assert mul(add(exp(a), exp(b)), exp(c)) is add(exp(add(a, c)), exp(add(b, c)))
    # a monomial holds one exp: a product of three merges whatever the order
    assert mul(exp(a), mul(c, exp(b))) is mul(mul(exp(b), c), exp(a))


def test_log_of_exp_and_of_constants() -> None:
    assert apply(Fn.LOG, exp(a)) is a
    assert apply(Fn.LOG, mul(const(3), exp(a))) is add(a, apply(Fn.LOG, const(3)))
    assert apply(Fn.LOG, const(8)) is mul(const(3), LN2)
    assert apply(Fn.LOG, const(Fraction(1, 2))) is neg(LN2)
    assert apply(Fn.LOG, ONE) is ZERO


def test_exp2_and_log2_are_exp_and_log() -> None:
    assert apply(Fn.EXP2, a) is exp(mul(a, LN2))
    assert apply(Fn.EXP2, mul(a, LOG2E)) is exp(a)
    assert apply(Fn.EXP2, const(3)) is const(8)
    assert apply(Fn.EXP2, const(-1)) is const(Fraction(1, 2))
    assert apply(Fn.EXP2, const(Fraction(1, 2))) is SQRT2
    assert apply(Fn.LOG2, const(8)) is const(3)
    assert apply(Fn.LOG2, a) is mul(apply(Fn.LOG, a), recip(LN2))
    assert apply(Fn.POW, const(2), a) is apply(Fn.EXP2, a)
    assert apply(Fn.POW, exp(a), b) is exp(mul(a, b))
    assert apply(Fn.EXP2, add(apply(Fn.LOG2, a), b)) is mul(a, apply(Fn.EXP2, b))


def test_exp_of_log_needs_a_positive_argument() -> None:
    with side_conditions() as sc:
        assert exp(apply(Fn.LOG, a)) is a
        assert exp(mul(const(2), apply(Fn.LOG, add(a, b)))) is power(add(a, b), 2)
    assert SideCondition(a, Requirement.POSITIVE) in sc
    assert SideCondition(add(a, b), Requirement.POSITIVE) in sc


def test_square_roots_of_constants_are_canonical() -> None:
    assert apply(Fn.SQRT, const(Fraction(1, 2))) is mul(const(Fraction(1, 2)), SQRT2)
    assert SQRT_HALF is div(ONE, SQRT2)
    assert apply(Fn.SQRT, const(8)) is mul(const(2), SQRT2)
    assert apply(Fn.SQRT, const(6)) is mul(SQRT2, apply(Fn.SQRT, const(3)))
    assert mul(SQRT2, SQRT2) is const(2)
    assert SQRT_2_OVER_PI is mul(SQRT2, recip(apply(Fn.SQRT, PI)))
    assert SQRT_2_OVER_PI is apply(Fn.SQRT, div(const(2), PI))
    assert power(apply(Fn.SQRT, PI), 2) is PI
    assert apply(Fn.SQRT, exp(a)) is exp(mul(const(Fraction(1, 2)), a))
    assert apply(Fn.SQRT, mul(const(4), a)) is mul(const(2), apply(Fn.SQRT, a))


def test_square_of_a_square_root_needs_a_nonnegative_radicand() -> None:
    with side_conditions() as sc:
        assert power(apply(Fn.SQRT, a), 2) is a
        assert power(apply(Fn.SQRT, a), 3) is mul(a, apply(Fn.SQRT, a))
        assert recip(power(apply(Fn.SQRT, a), 2)) is recip(a)
    assert SideCondition(a, Requirement.NONNEGATIVE) in sc
    with side_conditions() as sc:
        assert power(SQRT2, 2) is const(2)
    assert len(sc) == 0


def test_rules_agree_with_floats() -> None:
    terms = [
        mul(exp(a), exp(b)),
        apply(Fn.EXP2, mul(a, LOG2E)),
        SQRT_2_OVER_PI,
        SQRT_HALF,
        apply(Fn.LOG, mul(const(3), exp(a))),
        apply(Fn.POW, const(3), b),
    ]
    got = evaluate(terms, {"x": [0.25, -1.5]})
    want = [np.exp(-1.25), np.exp(0.25), np.sqrt(2 / np.pi), np.sqrt(0.5), 0.25 + np.log(3), 3**-1.5]
    np.testing.assert_allclose(got, want, rtol=1e-14)


# Softmax ----------------------------------------------------------------------------------------------


def test_online_softmax_is_three_pass_softmax() -> None:
    row = [elem("x", i) for i in range(256)]
    spec = three_pass_softmax(row)
    for parts in (1, 4):
        kernel = online_softmax(row, parts)
        with side_conditions() as sc:
            assert all(equal(k, s) is True for k, s in zip(kernel, spec, strict=True))
        assert all(c.requirement is Requirement.NONZERO for c in sc)


def test_online_softmax_without_the_rescale_is_not_proved() -> None:
    row = [elem("x", i) for i in range(24)]
    m, s = row[0], ONE
    for x in row[1:]:
        m_new = maximum(m, x)
        s = add(s, exp(sub(x, m_new)))  # the bug: s is not rescaled by exp(m - m_new)
        m = m_new
    kernel = [div(exp(sub(x, m)), s) for x in row]
    spec = three_pass_softmax(row)
    assert equal(kernel[0], spec[0]) is not True
    values = np.linspace(-1, 1, 24)
    assert not np.allclose(evaluate(kernel, {"x": values}), evaluate(spec, {"x": values}))


def test_the_fast_product_of_two_exponentials_is_the_rules_product() -> None:
    """``exp(u) * exp(v)`` of two one-atom monomials takes a direct path in ``_mono_product``; it must give
    what the general rules give, for cancelling, plain and ``ln2``/``log`` carrying arguments."""
    from larkc.symbolic import terms as tm

    x0, x1 = elem("x", 0), elem("x", 1)
    third = mul(const(Fraction(1, 3)), LN2)  # plain alone, not in a sum with twice itself (ln2 is taken out)
    args = [
        x0,
        neg(x0),
        sub(x0, x1),
        add(x1, const(3)),
        mul(const(2), LN2),
        add(x0, apply(Fn.LOG, x1)),
        const(0),
        add(x0, third),
        add(x1, mul(const(2), third)),
    ]
    for u in args:
        for v in args:
            eu, ev = apply(Fn.EXP, u), apply(Fn.EXP, v)
            mu, mv = tm._as_monomial(eu), tm._as_monomial(ev)
            if mu is None or mv is None or mu[0] != 1 or mv[0] != 1:
                continue
            factors = tm._merge(mu[1].factors, mv[1].factors)
            coeff, _ = tm._apply_rules(factors)
            want = tm._from_factors(coeff, factors)
            got = tm._mono_product(mu[1], mv[1])
            got_poly = got if isinstance(got, tm.Poly) else tm._from_factors(got[0], dict(got[1].factors))
            assert got_poly is want, (u, v)
            assert got_poly is apply(Fn.EXP, add(u, v))
