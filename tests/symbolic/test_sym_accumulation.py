"""Sums built one ``+`` at a time: persistent versions, interning across construction routes, evaluation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from larkc.symbolic import ONE, ZERO, Poly, add, const, div, dot, elem, evaluate, mul, neg, sub
from larkc.symbolic import terms as tm

xs = [elem("x", i) for i in range(64)]


def _model(p: Poly) -> dict[object, Fraction]:
    """The coefficients of ``p`` as a plain dictionary (the empty monomial for the constant)."""
    out: dict[object, Fraction] = {m: c for m, c in p.terms}
    if p.const:
        out[()] = p.const
    return out


def test_a_left_fold_is_the_n_ary_sum() -> None:
    # elements of a tensor no other test uses: a sum another test interned first (built another way) is
    # found, not derived again, and this test failed after such a test in the whole suite's order
    fresh = [elem("left_fold_only", i) for i in range(64)]
    acc = ZERO
    steps = []
    for x in fresh:
        acc = acc + x
        steps.append(acc)
    assert acc is add(*fresh)
    # the large partial sums are derived (k * base + delta), not rebuilt
    assert all(s._base is not None for s in steps[tm._DERIVE_MIN + 1 :])
    assert [len(s.terms) for s in steps] == list(range(1, 65))


def test_dot_product_fold_is_dot() -> None:
    ys = [elem("y", i) for i in range(64)]
    acc = ZERO
    for x, y in zip(xs, ys, strict=True):
        acc = acc + x * y
    assert acc is dot(zip(xs, ys, strict=True))


def test_siblings_of_one_base_are_independent_versions() -> None:
    s = add(*xs)
    mean = div(s, const(64))
    centred = [sub(x, mean) for x in xs]
    for i, c in enumerate(centred):
        model = {m: k for m, k in _model(mean).items()}
        model = {m: -k for m, k in model.items()}
        m_i = xs[i].terms[0][0]
        model[m_i] = model.get(m_i, Fraction(0)) + 1
        assert _model(c) == {m: k for m, k in model.items() if k}
    # reading them in any order, again, keeps them intact
    for c in reversed(centred):
        assert len(c.terms) == 64
    assert centred[3] is sub(xs[3], mean)
    assert centred[3] is add(neg(mean), xs[3])


def test_scaling_is_shared_and_exact() -> None:
    s = add(*xs)
    assert mul(s, const(3)) is mul(const(3), s)
    assert mul(mul(s, const(Fraction(1, 3))), const(3)) is s
    assert neg(neg(s)) is s
    assert sub(s, s) is ZERO
    assert div(mul(s, const(7)), const(7)) is s


def test_cancelling_most_of_a_large_sum() -> None:
    s = add(*xs)
    rest = s
    for x in xs[:-1]:
        rest = rest - x
    assert rest is xs[-1]
    assert add(s, neg(add(*xs[1:]))) is xs[0]


def test_routes_through_derivations_meet() -> None:
    # mean + (x - mean)/n (Welford) equals the running mean built from the running sum
    mean = ZERO
    total = ZERO
    for n, x in enumerate(xs, start=1):
        mean = mean + (x - mean) / const(n)
        total = total + x
        assert mean is div(total, const(n))


def test_evaluate_uses_derivations_and_agrees_with_the_terms() -> None:
    rng = np.random.default_rng(1)
    values = rng.standard_normal(64)
    acc = ONE
    parts = []
    for x in xs:
        acc = acc * const(Fraction(1, 2)) + x
        parts.append(acc)
    got = evaluate(parts, {"x": values})
    want = []
    v = 1.0
    for x in values:
        v = v * 0.5 + x
        want.append(v)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    flat = [tm._poly_from(p.const, dict(p.terms)) for p in parts]  # the same terms, evaluated as sums
    assert flat == parts
    assert evaluate([parts[-1]], {"x": values})[0] == pytest.approx(want[-1], rel=1e-12)


def test_equal_fingerprints_never_merge_different_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tm, "_fingerprint", lambda c, items: 12345)
    a = tm._poly_sorted(Fraction(0), ((xs[0].terms[0][0], Fraction(1)), (xs[1].terms[0][0], Fraction(2))))
    b = tm._poly_sorted(Fraction(0), ((xs[0].terms[0][0], Fraction(1)), (xs[1].terms[0][0], Fraction(3))))
    c = tm._poly_sorted(Fraction(1), ())
    assert len({id(a), id(b), id(c)}) == 3
    assert tm._poly_sorted(Fraction(0), ((xs[0].terms[0][0], Fraction(1)), (xs[1].terms[0][0], Fraction(3)))) is b
    assert tm._poly_sorted(Fraction(1), ()) is c


# Random histories of versions against a dictionary model --------------------------------------------

_op = st.tuples(st.sampled_from(["add", "scale", "read", "sub_own"]), st.integers(0, 1000), st.integers(-3, 3))


@settings(max_examples=60, deadline=None)
@given(st.lists(_op, min_size=1, max_size=80))
def test_random_version_histories_match_a_model(ops: list[tuple[str, int, int]]) -> None:
    base = add(*(mul(const(i + 1), x) for i, x in enumerate(xs[:40])), const(5))
    versions: list[tuple[Poly, dict[object, Fraction]]] = [(base, _model(base))]
    for kind, pick, k in ops:
        p, model = versions[pick % len(versions)]
        match kind:
            case "add":
                x = xs[(pick + k) % 64]
                q = add(p, mul(const(k), x))
                m = dict(model)
                mono = x.terms[0][0]
                m[mono] = m.get(mono, Fraction(0)) + k
                versions.append((q, {a: b for a, b in m.items() if b}))
            case "scale":
                q = mul(p, const(Fraction(k or 1, 2)))
                versions.append((q, {a: b * Fraction(k or 1, 2) for a, b in model.items()}))
            case "sub_own":
                x = xs[pick % 40]
                q = sub(p, mul(const(_model(p).get(x.terms[0][0], Fraction(0))), x))
                m = dict(model)
                m.pop(x.terms[0][0], None)
                versions.append((q, m))
            case _:
                assert _model(p) == model
    for p, model in versions:
        assert _model(p) == model
        assert tm._poly_from(p.const, dict(p.terms)) is p
