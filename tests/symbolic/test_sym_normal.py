"""Normal forms and equality of quotients and sums of products: the layer-norm forms, cancellation, budgets."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from kernel_forms import one_pass_variance, two_pass_variance, welford_variance

from larkc.reference.symbolic import _var_of
from larkc.symbolic import (
    ONE,
    ZERO,
    BudgetExceeded,
    Fn,
    Requirement,
    SideCondition,
    add,
    apply,
    compare,
    const,
    div,
    elem,
    equal,
    evaluate,
    expand,
    maximum,
    minimum,
    mul,
    normal_form,
    power,
    recip,
    select,
    side_conditions,
    sub,
    try_normal_form,
)

D = 128
row = [elem("x", i) for i in range(D)]
EPS = const(1e-5)


@pytest.mark.parametrize(
    "form", [two_pass_variance, one_pass_variance, welford_variance], ids=["two_pass", "one_pass", "welford"]
)
def test_variance_forms_equal_the_spec(form: object) -> None:
    spec = _var_of(list(row), 0)
    var, _ = form(row)  # type: ignore[operator]
    assert equal(var, spec) is True
    assert equal(spec, var) is True


def test_layer_norm_output_equals_the_spec_for_every_element() -> None:
    var, mean = two_pass_variance(row)
    r = recip(apply(Fn.SQRT, add(var, EPS)))
    kernel = [mul(sub(x, mean), r) for x in row]
    spec_var = _var_of(list(row), 0)
    spec_mean = div(add(*row), const(D))
    rs = recip(apply(Fn.SQRT, add(spec_var, EPS)))
    spec = [sub(mul(x, rs), mul(spec_mean, rs)) for x in row]
    with side_conditions() as sc:
        assert all(equal(k, s) is True for k, s in zip(kernel, spec, strict=True))
    assert all(c.requirement is Requirement.NONZERO for c in sc)


def test_wrong_variants_are_not_proved() -> None:
    spec = _var_of(list(row[:16]), 0)
    var, mean = two_pass_variance(row[:16])
    unbiased = mul(var, const(Fraction(16, 15)))
    assert equal(unbiased, spec) is False  # no function applied: an exact counterexample
    r_bug = recip(add(apply(Fn.SQRT, var), EPS))  # eps outside the square root
    r = recip(apply(Fn.SQRT, add(spec, EPS)))
    assert equal(mul(sub(row[0], mean), r_bug), mul(sub(row[0], mean), r)) is None


def test_normal_form_is_canonical_and_agrees_with_expand() -> None:
    a, b = row[0], row[1]
    assert normal_form(mul(add(a, b), sub(a, b))) is sub(mul(a, a), mul(b, b))
    big = add(*row[:20])
    assert normal_form(power(big, 2)) is normal_form(mul(big, big))
    assert normal_form(power(big, 2)) is expand(power(big, 2))
    assert len(normal_form(power(big, 2)).terms) == 20 * 21 // 2  # type: ignore[union-attr]
    var, _ = two_pass_variance(row[:32])
    assert normal_form(var) is normal_form(_var_of(list(row[:32]), 0))


def test_quotients_cancel_with_their_conditions() -> None:
    a, b = row[0], row[1]
    with side_conditions() as sc:
        assert normal_form(div(add(mul(a, b), a), add(b, ONE))) is a
        assert normal_form(add(div(a, add(a, b)), div(b, add(a, b)))) is ONE
    assert SideCondition(add(b, ONE), Requirement.NONZERO) in sc
    assert SideCondition(add(a, b), Requirement.NONZERO) in sc
    assert equal(div(mul(a, b), b), a) is True


def test_budgets_give_up_instead_of_hanging() -> None:
    big = add(*row)
    with pytest.raises(BudgetExceeded):
        normal_form(mul(power(big, 2), add(*row[:64])), budget=1000)
    assert try_normal_form(power(big, 2), budget=1000) is None
    rows_times_sum = add(*(mul(x, big) for x in row))
    assert equal(power(big, 2), rows_times_sum, budget=10) is None
    assert equal(power(big, 2), rows_times_sum) is True


def test_equality_of_truth_values_and_atoms() -> None:
    a, b = row[0], row[1]
    s = add(*row[:40])
    s2 = ZERO
    for x in row[:40]:
        s2 = s2 + x
    assert equal(compare("<", a, b), compare(">", b, a)) is True
    assert equal(maximum(s, a), maximum(a, s2)) is True
    assert equal(minimum(a, b), minimum(a, b)) is True
    assert equal(select(compare("<", a, s), a, b), select(compare("<", a, s2), a, b)) is True
    assert equal(add(a, b), sub(a, b)) is False
    with pytest.raises(TypeError):
        equal(a, compare("<", a, b))


def test_normal_forms_evaluate_like_the_terms() -> None:
    var, mean = welford_variance(row[:24])
    r = recip(apply(Fn.SQRT, add(var, EPS)))
    terms = [var, mul(sub(row[3], mean), r), power(add(*row[:24]), 2)]
    values = np.random.default_rng(3).standard_normal(24)
    got = evaluate([normal_form(t) for t in terms], {"x": values})  # type: ignore[misc]
    want = evaluate(terms, {"x": values})
    np.testing.assert_allclose(got, want, rtol=1e-9)


@pytest.mark.parametrize("perturbed", [0, 5, 79])
def test_folding_a_sum_back_checks_every_coefficient(perturbed: int) -> None:
    # sum_i x_i * S is S**2; one coefficient off and it is not (80 > EXPAND_LIMIT: x_i * S stays factored)
    xs = row[:80]
    s = add(*xs)
    rhs = add(*(mul(x, s) for x in xs))
    assert equal(power(s, 2), rhs) is True
    off = add(rhs, mul(xs[perturbed], s))
    assert equal(power(s, 2), off) is False
    assert equal(mul(const(2), power(s, 2)), add(rhs, rhs)) is True


def test_counterexamples_only_where_values_are_exact() -> None:
    from larkc.symbolic import read

    i = elem("i", 0)
    assert equal(read("w", i), read("w", add(i, ONE))) is None  # the index may leave the tensor
    assert equal(apply(Fn.TANH, row[0]), apply(Fn.TANH, row[1])) is None  # tanh is not exact
    assert equal(row[0], row[1]) is False
