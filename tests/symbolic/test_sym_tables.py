"""Every function of the closed :class:`Fn` enum has an entry in every table that interprets it."""

from __future__ import annotations

import pytest
import sympy
import z3

from larkc.symbolic import Fn, Z3Converter, const, evaluate, sign_of, to_sympy
from larkc.symbolic import terms as tm


@pytest.mark.parametrize("fn", list(Fn), ids=[f.value for f in Fn])
def test_every_function_has_every_rule(fn: Fn) -> None:
    assert fn in tm._ARITY
    assert fn in tm._FLOAT_FN
    assert fn in tm._sympy_fns(sympy)
    args = tuple(const(0.75 if i == 0 else 2) for i in range(tm._ARITY[fn]))
    atom = tm._app(fn, args)  # the raw node: apply() rewrites exp2 and log2 away
    (value,) = evaluate([atom], {})
    want = float(to_sympy(atom).evalf(30))
    assert value == pytest.approx(want, rel=1e-12, abs=1e-15)
    converted = Z3Converter().convert(atom)
    assert isinstance(converted, z3.ArithRef)
    sign_of(atom)  # every function has a sign rule
    if fn in tm._Z3_CONSTANT:
        assert tm._ARITY[fn] == 0


def test_apply_rewrites_exp2_and_log2_away() -> None:
    x = tm.elem("x", 0)
    for fn in (Fn.EXP2, Fn.LOG2):
        assert not any(isinstance(n, tm.App) and n.fn is fn for n in tm._post_order([tm.apply(fn, x)]))
