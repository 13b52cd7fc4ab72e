"""The term language of larkc.symbolic: normal form, hash-consing, evaluation and conversions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from larkc.ir.types import BOOL, F32
from larkc.symbolic import (
    EXPAND_LIMIT,
    FALSE,
    ONE,
    TRUE,
    ZERO,
    Fn,
    Poly,
    TermTensor,
    Z3Converter,
    add,
    apply,
    compare,
    const,
    div,
    elem,
    evaluate,
    expand,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    mul,
    power,
    read,
    recip,
    select,
    sub,
    tensors_of,
    to_sympy,
)

a, b, c = elem("x", 0), elem("x", 1), elem("y", 0)


def test_nodes_are_hash_consed() -> None:
    assert elem("x", 0) is a
    assert add(a, b) is add(b, a)
    assert mul(a, add(b, c)) is add(mul(c, a), mul(b, a))
    assert const(0.5) is const(Fraction(1, 2))
    assert hash(add(a, b)) == hash(add(b, a))
    assert a is not elem("x", 2)


def test_polynomial_identities_hold_structurally() -> None:
    assert (a + b) * (a - b) is a * a - b * b
    assert (a + b) ** 2 is a * a + 2 * a * b + b * b
    assert (a - b) ** 3 is expand((a - b) * (a - b) * (a - b))
    assert a * (b + c) - a * b is a * c
    assert (a + b) - (b + a) is ZERO
    assert 3 * a - a - a - a is ZERO


def test_division_cancels_monomials_and_factored_sums() -> None:
    assert a / a is ONE
    assert (a * b) / b is a
    assert (a + b) / (a + b) is ONE
    assert (2 * a + 2 * b) / (a + b) is const(2)
    assert a / (a + c) * (a + c) is a
    assert div(a, const(4)) is const(Fraction(1, 4)) * a
    with pytest.raises(ZeroDivisionError):
        recip(ZERO)


def test_large_products_stay_factored_and_expand_multiplies_out() -> None:
    xs = [elem("v", i) for i in range(20)]
    s = add(*xs)
    sq = power(s, 2)  # 400 monomials if multiplied out, more than EXPAND_LIMIT
    assert len(sq.terms) == 1
    full = expand(sq)
    assert isinstance(full, Poly)
    assert len(full.terms) == 20 * 21 // 2
    assert full is expand(mul(s, s))
    assert EXPAND_LIMIT < 400


def test_constants_are_exact() -> None:
    assert const(0.1).const == Fraction(0.1)
    assert const(0.1).const != Fraction(1, 10)
    assert str(const(1e-5)) == "1e-05"
    assert str(const(Fraction(1, 3))) == "1/3"
    with pytest.raises(ValueError):
        const(math.inf)


def test_functions_simplify_only_exactly() -> None:
    assert apply(Fn.SQRT, const(Fraction(9, 4))) is const(Fraction(3, 2))
    assert apply(Fn.EXP, ZERO) is ONE
    assert apply(Fn.LOG, ONE) is ZERO
    assert apply(Fn.POW, a, const(2)) is a * a
    assert apply(Fn.POW, a, const(0.5)) is apply(Fn.SQRT, a)
    assert apply(Fn.POW, a, const(-0.5)) is recip(apply(Fn.SQRT, a))
    assert str(apply(Fn.SQRT, const(2))) == "sqrt(2)"
    assert apply(Fn.EXP, a) is apply(Fn.EXP, add(a, ZERO))


def test_comparisons_are_canonical() -> None:
    assert compare("<", a, b) is compare(">", b, a)
    assert compare("<=", a, b) is compare(">=", b, a)
    assert compare("<", 2 * a, 2 * b) is compare("<", a, b)
    assert compare("==", a, b) is compare("==", b, a)
    assert logical_not(compare("<", a, b)) is compare(">=", a, b)
    assert logical_not(logical_not(compare("==", a, c))) is compare("==", a, c)
    assert compare("<", const(1), const(2)) is TRUE
    assert compare("==", a, a) is TRUE
    assert str(compare("<", a, b)) == "(x[0] < x[1])"


def test_logic_folds_and_flattens() -> None:
    p, q = compare("<", a, b), compare("<", b, c)
    assert logical_and(p, TRUE) is p
    assert logical_and(p, FALSE) is FALSE
    assert logical_or(p, q) is logical_or(q, logical_or(p, p))
    assert logical_not(logical_and(p, q)) is logical_or(logical_not(p), logical_not(q))


def test_select_max_min() -> None:
    cond = compare(">", a, b)
    assert select(cond, a, b) is select(logical_not(cond), b, a)
    assert select(TRUE, a, b) is a
    assert select(cond, c, c) is c
    assert maximum(a, maximum(b, const(1)), const(3)) is maximum(a, b, const(3))
    assert maximum(const(1), const(5)) is const(5)
    assert minimum(a) is a
    assert maximum(a, a) is a


def test_read_with_constant_index_is_elem() -> None:
    assert read("w", const(3)) is elem("w", 3)
    r = read("w", 4 * elem("idx", 0) + 1)
    assert str(r) == "w[4*idx[0] + 1]"
    assert tensors_of([r]) == {"w", "idx"}


def test_evaluate_on_concrete_inputs() -> None:
    env = {"x": [3.0, 2.0], "y": [0.5], "w": np.arange(12.0), "idx": [2.0]}
    terms = [
        (a + b) * c,
        div(a, b),
        apply(Fn.EXP, a - b),
        maximum(a, b),
        select(compare("<", a, b), a, c),
        read("w", 4 * elem("idx", 0) + 1),
        compare(">", a, b),
        apply(Fn.SQRT, const(2)),
        apply(Fn.ERF, c),
    ]
    got = evaluate(terms, env)
    want = [2.5, 1.5, math.exp(1.0), 3.0, 0.5, 9.0, True, math.sqrt(2), math.erf(0.5)]
    for g, w in zip(got, want, strict=True):
        assert g == pytest.approx(w, rel=1e-15)


def test_evaluate_uses_ieee_semantics() -> None:
    got = evaluate([recip(a), apply(Fn.LOG, a), read("w", elem("idx", 0))], {"x": [0.0], "w": [1.0], "idx": [5.0]})
    assert got[0] == math.inf
    assert got[1] == -math.inf
    assert math.isnan(got[2])


def test_to_sympy_agrees() -> None:
    xs = sympy.IndexedBase("x", real=True)
    assert sympy.simplify(to_sympy((a + b) ** 2) - (xs[0] + xs[1]) ** 2) == 0
    piece = to_sympy(select(compare(">", a, b), apply(Fn.EXP, a), b))
    assert isinstance(piece, sympy.Piecewise)
    assert piece.subs({xs[0]: 2, xs[1]: 1}) == sympy.exp(2)


def test_z3_conversion_proves_simple_facts() -> None:
    conv = Z3Converter()
    s = z3.Solver()
    # max(a, b) >= a, and select(a > b, a, b) is max(a, b)
    s.add(z3.Not(conv.convert(compare(">=", maximum(a, b), a))))
    assert s.check() == z3.unsat
    s = z3.Solver()
    s.add(conv.convert(select(compare(">", a, b), a, b)) != conv.convert(maximum(a, b)))
    assert s.check() == z3.unsat


def test_z3_reads_alias_elements() -> None:
    conv = Z3Converter()
    r = read("w", elem("idx", 0))
    conv.prepare([r])
    s = z3.Solver()
    s.add(conv.convert(compare("==", elem("idx", 0), const(2))))
    s.add(conv.convert(r) != conv.convert(elem("w", 2)))
    assert s.check() == z3.unsat


def test_term_tensor() -> None:
    t = TermTensor((2, 2), F32, (a, b, c, a + b))
    assert t[1, 1] is a + b
    assert t[3] is a + b
    np.testing.assert_allclose(t.evaluate({"x": [1.0, 2.0], "y": [4.0]}), [[1.0, 2.0], [4.0, 3.0]])
    with pytest.raises(ValueError):
        TermTensor((3,), F32, (a, b))
    with pytest.raises(TypeError):
        TermTensor((1,), BOOL, (a,))


def test_reductions_of_thousands_of_terms_are_practical() -> None:
    n = 512
    xs = [elem("r", i) for i in range(n)]
    mean = div(add(*xs), const(n))
    centred = [sub(x, mean) for x in xs]
    var = div(add(*(power(v, 2) for v in centred)), const(n))
    out = [mul(v, recip(apply(Fn.SQRT, add(var, const(1e-5))))) for v in centred[:4]]
    values = np.random.default_rng(0).standard_normal(n)
    got = evaluate(out, {"r": values})
    want = (values - values.mean()) / np.sqrt(values.var() + 1e-5)
    np.testing.assert_allclose(got, want[:4], rtol=1e-12)
    big = add(*(elem("s", i) for i in range(8192)))
    assert len(big.terms) == 8192


# Random expressions: evaluation agrees with float arithmetic, and algebraic rewrites agree after expand

_LEAVES = [elem("x", i) for i in range(3)]


@st.composite
def _expr(draw: st.DrawFn, depth: int = 3) -> tuple[Poly, str]:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            i = draw(st.integers(0, 2))
            return _LEAVES[i], f"x[{i}]"
        k = draw(st.integers(-3, 3))
        return const(k), f"({k})"
    op = draw(st.sampled_from(["+", "-", "*"]))
    left, ls = draw(_expr(depth - 1))
    right, rs = draw(_expr(depth - 1))
    term = add(left, right) if op == "+" else sub(left, right) if op == "-" else mul(left, right)
    return term, f"({ls} {op} {rs})"


@settings(max_examples=60, deadline=None)
@given(_expr(), st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_random_polynomials_evaluate_like_python(pair: tuple[Poly, str], values: list[float]) -> None:
    term, text = pair
    want = eval(text, {"x": values})
    got = evaluate([term], {"x": values})[0]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(_expr(), _expr(), _expr())
def test_distributivity_and_commutativity_after_expand(
    p: tuple[Poly, str], q: tuple[Poly, str], r: tuple[Poly, str]
) -> None:
    x, y, z = p[0], q[0], r[0]
    assert expand(mul(x, add(y, z))) is expand(add(mul(x, y), mul(x, z)))
    assert expand(mul(mul(x, y), z)) is expand(mul(x, mul(z, y)))
    assert expand(sub(add(x, y), y)) is expand(x)


def test_compact_variance_is_the_textbook_polynomial() -> None:
    # the spec builds var as (sum(x**2) - sum(x)**2 / N) / N and layer_norm as x*r - mean*r
    from larkc.reference.symbolic import _var_of

    xs = [elem("x", i) for i in range(5)]
    mean = div(add(*xs), const(5))
    textbook = div(add(*(power(sub(x, mean), 2) for x in xs)), const(5))
    assert expand(_var_of(list(xs), 0)) is expand(textbook)
    r = recip(apply(Fn.SQRT, add(textbook, const(1e-5))))
    assert expand(sub(mul(xs[0], r), mul(mean, r))) is expand(mul(sub(xs[0], mean), r))


def test_compact_variance_equals_the_textbook_form_for_a_long_row() -> None:
    # equal() decides it without multiplying sum(x)**2 out (O(row), not O(row**3) as expand once did)
    from larkc.reference.symbolic import _var_of
    from larkc.symbolic import equal

    xs = [elem("x", i) for i in range(300)]
    mean = div(add(*xs), const(300))
    textbook = div(add(*(power(sub(x, mean), 2) for x in xs)), const(300))
    assert equal(_var_of(list(xs), 0), textbook) is True
    assert equal(_var_of(list(xs), 1), textbook) is False
