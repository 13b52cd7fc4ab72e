"""Soundness properties over random terms of every constructor: the term, its normal form and every term
found equal to it evaluate like the expression they were built from, at random points where it is defined.

Each random expression is built twice: into a term with the constructors, and into a float by a direct
interpreter (Python and numpy arithmetic, in the expression's own order). Rewrites change the order of
floating-point operations, so values are compared with a tolerance scaled by the largest intermediate value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from larkc.symbolic import (
    Fn,
    Poly,
    add,
    apply,
    compare,
    const,
    div,
    elem,
    equal,
    evaluate,
    maximum,
    minimum,
    mul,
    neg,
    power,
    select,
    sub,
    try_normal_form,
)

Expr = tuple[Any, ...]

_UNARY: dict[str, tuple[Callable[[Poly], Poly], Callable[[float], float]]] = {
    "neg": (neg, lambda v: -v),
    "exp": (lambda t: apply(Fn.EXP, t), math.exp),
    "log": (lambda t: apply(Fn.LOG, t), math.log),
    "sqrt": (lambda t: apply(Fn.SQRT, t), math.sqrt),
    "tanh": (lambda t: apply(Fn.TANH, t), math.tanh),
    "erf": (lambda t: apply(Fn.ERF, t), math.erf),
    "sin": (lambda t: apply(Fn.SIN, t), math.sin),
    "cos": (lambda t: apply(Fn.COS, t), math.cos),
    "exp2": (lambda t: apply(Fn.EXP2, t), lambda v: 2.0**v),
    "log2": (lambda t: apply(Fn.LOG2, t), math.log2),
    "trunc": (lambda t: apply(Fn.TRUNC, t), float.__trunc__),  # type: ignore[dict-item]
}
_BINARY: dict[str, tuple[Callable[[Poly, Poly], Poly], Callable[[float, float], float]]] = {
    "add": (add, lambda a, b: a + b),
    "sub": (sub, lambda a, b: a - b),
    "mul": (mul, lambda a, b: a * b),
    "div": (div, lambda a, b: a / b),
    "max": (maximum, max),
    "min": (minimum, min),
    "pow": (lambda a, b: apply(Fn.POW, a, b), lambda a, b: a**b),
}
_CMP = {"<": float.__lt__, "<=": float.__le__, "==": float.__eq__, "!=": float.__ne__, ">": float.__gt__}


@st.composite
def _expr(draw: st.DrawFn, depth: int = 3) -> Expr:
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        if draw(st.booleans()):
            return ("x", draw(st.integers(0, 2)))
        return ("c", draw(st.sampled_from([Fraction(0), Fraction(1), Fraction(-2), Fraction(1, 2), Fraction(3)])))
    kind = draw(st.sampled_from(["unary", "unary", "binary", "binary", "binary", "power", "select", "rule", "rule"]))
    if kind == "rule":  # shapes that the rules rewrite
        e1, e2 = draw(_expr(depth - 1)), draw(_expr(depth - 1))
        k = draw(st.integers(-3, 3))
        return draw(
            st.sampled_from(
                [
                    ("mul", ("exp", e1), ("exp", e2)),
                    ("div", ("exp", e1), ("mul", e2, ("exp", e2))),
                    ("power", ("exp", e1), k),
                    ("exp", ("log", e1)),
                    ("log", ("exp", e1)),
                    ("exp", ("add", ("log", e1), e2)),
                    ("power", ("sqrt", e1), k),
                    ("mul", ("sqrt", e1), ("sqrt", e1)),
                    ("div", ("mul", e1, e2), e2),
                    ("exp2", ("log2", e1)),
                    ("pow", ("c", Fraction(2)), e1),
                    ("sqrt", ("mul", ("c", Fraction(1, 2)), ("exp", e1))),
                ]
            )
        )
    if kind == "unary":
        # exp, log and sqrt have the most rules: drawn more often
        op = draw(st.sampled_from(["exp", "exp", "exp", "log", "log", "sqrt", "sqrt", *sorted(_UNARY)]))
        return (op, draw(_expr(depth - 1)))
    if kind == "power":
        return ("power", draw(_expr(depth - 1)), draw(st.integers(-2, 3)))
    if kind == "select":
        op = draw(st.sampled_from(sorted(_CMP)))
        return ("select", op, *(draw(_expr(depth - 1)) for _ in range(4)))
    op = draw(st.sampled_from(["mul", "mul", "div", "add", *sorted(_BINARY)]))
    return (op, draw(_expr(depth - 1)), draw(_expr(depth - 1)))


def build(e: Expr) -> Poly:
    match e[0]:
        case "x":
            return elem("x", e[1])
        case "c":
            return const(e[1])
        case "power":
            return power(build(e[1]), e[2])
        case "select":
            return select(compare(e[1], build(e[2]), build(e[3])), build(e[4]), build(e[5]))
        case op if op in _UNARY:
            return _UNARY[op][0](build(e[1]))
        case op:
            return _BINARY[op][0](build(e[1]), build(e[2]))


def interpret(e: Expr, xs: list[float], scale: list[float]) -> float:
    """The value of ``e`` in float arithmetic; raises ArithmeticError/ValueError where undefined. ``scale``
    collects the largest magnitude seen."""
    match e[0]:
        case "x":
            v = xs[e[1]]
        case "c":
            v = float(e[1])
        case "power":
            v = interpret(e[1], xs, scale) ** e[2]
        case "select":
            a, b = interpret(e[2], xs, scale), interpret(e[3], xs, scale)
            if abs(a - b) < 1e-6 * (1 + abs(a) + abs(b)):
                raise ArithmeticError("too close to the branch point for floats to decide")
            branch = e[4] if _CMP[e[1]](a, b) else e[5]
            v = interpret(branch, xs, scale)
        case op if op in _UNARY:
            v = _UNARY[op][1](interpret(e[1], xs, scale))
        case op:
            v = _BINARY[op][1](interpret(e[1], xs, scale), interpret(e[2], xs, scale))
    if isinstance(v, complex) or not math.isfinite(v) or abs(v) > 1e6:
        raise ArithmeticError("not a moderate real number")
    scale[0] = max(scale[0], abs(v))
    return float(v)


def _built(*exprs: Expr) -> list[Poly]:
    """The terms of ``exprs``; the example is discarded when one divides by the constant zero."""
    try:
        return [build(e) for e in exprs]
    except ZeroDivisionError:
        assume(False)
        raise


# coordinates on a grid of step 1/1000: a float interpreter at subnormal points (5e-324) loses the
# values exact terms keep ((1.5 * 5e-324) / 5e-324 is not 1.5), which is no disagreement of the terms
_coordinate = st.integers(-2500, 2500).map(lambda k: k / 1000)
_points = st.lists(st.lists(_coordinate, min_size=3, max_size=3), min_size=3, max_size=3)


def _check(term: Poly, e: Expr, points: list[list[float]]) -> int:
    """Compare the term's values with the interpreter's; the number of points where ``e`` is defined."""
    defined = 0
    for xs in points:
        scale = [1.0]
        try:
            want = interpret(e, xs, scale)
        except (ArithmeticError, ValueError, OverflowError):
            continue
        (got,) = evaluate([term], {"x": xs})
        assert abs(got - want) <= 1e-7 * scale[0], f"{term} at {xs}: {got} != {want}"
        defined += 1
    return defined


@settings(max_examples=300, deadline=None)
@given(_expr(), _points)
def test_terms_evaluate_like_their_expressions(e: Expr, points: list[list[float]]) -> None:
    (term,) = _built(e)
    _check(term, e, points)


@settings(max_examples=200, deadline=None)
@given(_expr(), _points)
def test_normal_forms_evaluate_like_the_terms(e: Expr, points: list[list[float]]) -> None:
    (term,) = _built(e)
    nf = try_normal_form(term, budget=20_000)
    assume(isinstance(nf, Poly))
    assert isinstance(nf, Poly)
    _check(nf, e, points)


@settings(max_examples=300, deadline=None)
@given(_expr(), _expr(), _points)
def test_terms_found_equal_have_equal_values(e1: Expr, e2: Expr, points: list[list[float]]) -> None:
    t1, t2 = _built(e1, e2)
    verdict = equal(t1, t2, budget=20_000)
    if t1 is t2:
        assert verdict is True
    if verdict is True:
        _check(t1, e2, points)
        _check(t2, e1, points)


@settings(max_examples=200, deadline=None)
@given(_expr(2), _expr(2), _expr(2))
def test_ring_identities_hold_structurally(p: Expr, q: Expr, r: Expr) -> None:
    a, b, c = _built(p, q, r)
    assert add(a, b) is add(b, a)
    assert add(add(a, b), c) is add(a, add(b, c))
    assert mul(a, b) is mul(b, a)
    assert sub(add(a, b), b) is a
    assert neg(neg(a)) is a
    assert mul(apply(Fn.EXP, a), apply(Fn.EXP, b)) is apply(Fn.EXP, add(a, b))
    assert maximum(a, b) is maximum(b, a)
    assert equal(mul(a, add(b, c)), add(mul(a, b), mul(a, c)), budget=50_000) in (True, None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_fingerprints_are_deterministic(xs: list[float]) -> None:
    # a structure's key does not depend on the order in which it was built
    a, b, c = (elem("x", i) for i in range(3))
    s1 = add(*(mul(const(i + 1), elem("z", i)) for i in range(40)))
    s2 = add(*(mul(const(i + 1), elem("z", i)) for i in reversed(range(40))))
    assert s1 is s2
    assert np.isfinite(evaluate([add(s1, a, b, c)], {"x": xs, "z": np.ones(40)})[0])
