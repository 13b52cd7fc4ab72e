"""The engine's check of loop invariants given from outside (hints.py), at the loop the all-size prover
summarises (allsize.py, :meth:`ValueExecutor.summarize`).

For the loop's floats ``v`` named by the hints, with ``H_v(n)`` the hint's value after ``n`` iterations:

1. **entry**: ``H_v(0)`` equals ``v``'s value before the loop, on the path that reaches it;
2. **step**: the executor's final pass (the body at an arbitrary iteration ``i`` of the trip count ``T``,
   with every float of the loop at the head of the pass a fresh placeholder) maps ``H(i)`` to ``H(i + 1)``:
   the body's new value of each ``v``, with the placeholders replaced by ``H(i)``, equals ``H_v(i + 1)``
   under the pass's path condition (which must not narrow: every iteration runs the whole update).

The two checks are z3 queries of the same executor and solver the automatic induction uses; by induction
over the iterations, ``v = H_v(n)`` at the head of every iteration ``n <= T``, so ``v = H_v(T)`` after the
loop, which the caller only asks of loops that provably end without a ``break`` or ``return``. A fold of a
hint is a fresh constant (folds.py); the step check knows of the folds of ``H(i + 1)`` only that each is
the same fold of ``H(i)`` with up to :data:`PEEL` more terms (``Σ_{j<E+c} f(j) = Σ_{j<E} f(j) + f(E) +
... + f(E+c-1)`` for ``E >= 0``; ``max``/``min`` for ``E >= 1``, or the terms alone at ``E = 0``) when
its body is the same; the entry check unifies the hint's folds with the initial value's (a previous loop's).
Nothing else about a fold is assumed, so a wrong hint fails a check (with z3's model where it has one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, assert_never

import z3

from larkc.errors import LarkcError
from larkc.provers.folds import FoldOp
from larkc.provers.hints import (
    ITERS,
    BuiltFold,
    Evaluation,
    FoldKind,
    HintCheck,
    HintStatus,
    LoopInvariant,
    evaluate,
)
from larkc.provers.zvalues import IntV, Value
from larkc.provers.zworld import Answer, VarLevel, Z, minimize_sum, model_int

if TYPE_CHECKING:
    from larkc.ir.nodes import Stmt
    from larkc.provers.allsize import NegInfV, RealV, ValueExecutor
    from larkc.provers.zexec import State

__all__ = ["PEEL", "check_invariants"]

#: The most terms one iteration may add to a fold of a hint (a loop unrolled by hand up to 16 times).
PEEL = 16


class _Rejected(Exception):
    def __init__(self, reason: str, model: Mapping[str, str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.model = dict(model or {})


def check_invariants(
    ex: ValueExecutor,
    hinted: Sequence[LoopInvariant],
    entry: State,
    accs: Mapping[str, tuple[RealV | NegInfV, Z]],
    final: tuple[State, State] | None,
    loop: Stmt,
) -> dict[str, tuple[Value, Z]]:
    """For each float the hints name (by its executor key): its value after the loop and at the head of the
    final pass, when every check passes; ``{}`` otherwise. The outcome is recorded in ``ex.hint_checks``."""
    line = loop.span.line
    names = tuple(h.var for h in hinted)
    try:
        out = _check(ex, hinted, entry, accs, final, loop)
    except _Rejected as e:
        ex.hint_checks.append(HintCheck(line, names, HintStatus.REJECTED, e.reason, e.model))
        return {}
    except LarkcError as e:  # a name or tensor the kernel does not have: located, given back as the reason
        ex.hint_checks.append(HintCheck(line, names, HintStatus.REJECTED, str(e)))
        return {}
    except z3.Z3Exception as e:  # a term z3 rejects (its own limit, never a verdict)
        ex.hint_checks.append(HintCheck(line, names, HintStatus.REJECTED, f"z3 rejected the hint's terms: {e}"))
        return {}
    what = "holds on entry and is preserved by one symbolic iteration (z3)"
    ex.hint_checks.append(HintCheck(line, names, HintStatus.CHECKED, what))
    return out


def _check(
    ex: ValueExecutor,
    hinted: Sequence[LoopInvariant],
    entry: State,
    accs: Mapping[str, tuple[RealV | NegInfV, Z]],
    final: tuple[State, State] | None,
    loop: Stmt,
) -> dict[str, tuple[Value, Z]]:
    from larkc.provers.allsize import RealV  # allsize imports this module: its value types only at run time

    keys: dict[str, str] = {}
    for h in hinted:
        k = ex.key(h.var)
        if h.var in keys:
            raise _Rejected(f"two invariants for {h.var}")
        if k not in accs:
            raise _Rejected(f"{h.var} is not a float that the loop changes")
        if not isinstance(accs[k][0], RealV):
            raise _Rejected(f"{h.var} does not hold a real before the loop (-inf is not a real)")
        keys[h.var] = k
    if final is None:
        raise _Rejected("the loop's body was not run at an arbitrary iteration")
    head, end = final
    if end.dead or len(head.pc) < 1 or len(end.pc) != len(head.pc):
        raise _Rejected("the body's path narrows: not every iteration runs the whole update")
    if not all(x.eq(y) for x, y in zip(head.pc, end.pc, strict=True)):
        raise _Rejected("the body's path narrows: not every iteration runs the whole update")
    last = head.pc[-1]
    if not (z3.is_lt(last) and z3.is_const(last.arg(0)) and last.arg(0).decl().name() in ex.reg.vars):
        raise _Rejected("the loop's trip count is not summarised")
    it, trips = last.arg(0), last.arg(1)
    if ex.reg.info(it.decl().name()).level is not VarLevel.ITER:
        raise _Rejected("the loop's trip count is not summarised")

    known: dict[str, z3.ExprRef] = dict(ex.world.syms)
    prefix = f"{ex.ctx.frame}:"
    for key, v in entry.env.items():
        if key.startswith(prefix):
            if isinstance(v, IntV):
                known[key[len(prefix) :]] = v.e
            elif isinstance(v, RealV):
                known[key[len(prefix) :]] = v.r
    origin = f"the hint for the loop at line {loop.span.line}"

    def fold(kind: FoldKind, var: z3.ArithRef, hi: z3.ArithRef, body: z3.ArithRef) -> z3.ArithRef:
        return ex.folds.make(FoldOp(kind.value), var, hi, body, (), origin)

    def tensor(name: str) -> z3.FuncDeclRef | None:
        return ex.vocab.tensor(name) if name in ex.task.inputs else None

    def build(n: Z) -> tuple[dict[str, Z], list[BuiltFold]]:
        built: list[BuiltFold] = []
        terms: dict[str, Z] = {}
        for h in hinted:
            ev = Evaluation({**known, ITERS: n}, tensor, fold, h.span)
            x = evaluate(h.expr, ev)
            if not z3.is_arith(x):
                raise _Rejected(f"the invariant of {h.var} is a condition, not a value")
            terms[h.var] = z3.ToReal(x) if z3.is_int(x) else x
            built += ev.built
        return terms, built

    # 1. entry: H(0) is the value before the loop
    at0, _ = build(z3.IntVal(0))
    for h in hinted:
        v0 = accs[keys[h.var]][0]
        assert isinstance(v0, RealV)
        goal = v0.r == ex.folds.unify(v0.r, at0[h.var], entry.pc)
        hyps = (*entry.pc, *ex.folds.facts(goal))
        if ex.prove(hyps, goal).answer is not Answer.UNSAT:
            raise _Rejected(
                f"the invariant of {h.var} does not hold on entry ({ITERS} = 0): `{h.text}` is not its value "
                "before the loop",
                _model(ex, hyps, goal),
            )
    # 2. step: one symbolic iteration maps H(i) to H(i + 1)
    at_i, built_i = build(it)
    at_next, built_next = build(it + 1)
    subs = [(accs[k][1], at_i[var]) for var, k in keys.items()]
    for a, _v in subs:
        if a is None:  # pragma: no cover - every key of accs has its placeholder
            raise _Rejected("internal: an accumulator without its placeholder")
    steps: list[tuple[str, Z]] = []
    for var, k in keys.items():
        new = end.env.get(k)
        if not isinstance(new, RealV):
            raise _Rejected(f"the body's new value of {var} is not followed (an operation this prover does not model)")
        steps.append((var, z3.substitute(new.r, *subs) == at_next[var]))
    facts = _peel(built_i, built_next)
    for var, goal in steps:
        hyps = (*end.pc, *facts, *ex.folds.facts(goal))
        if ex.prove(hyps, goal).answer is not Answer.UNSAT:
            text = next(h.text for h in hinted if h.var == var)
            raise _Rejected(
                f"the invariant of {var} is not preserved by one iteration: after an iteration that starts from "
                f"`{text}` at {ITERS} = i, {var} is not `{text}` at {ITERS} = i + 1",
                _model(ex, hyps, goal, it),
            )
    # 3. after the loop (it provably ends, without a break): H(T)
    at_end, _ = build(trips)
    return {k: (RealV(accs[k][0].t, at_end[var]), at_i[var]) for var, k in keys.items()}


def _peel(before: Sequence[BuiltFold], after: Sequence[BuiltFold]) -> list[Z]:
    """What a fold of ``H(i + 1)`` is in terms of the same fold of ``H(i)`` (same place in the expression):
    the same constant when the bounds are equal, that fold with its next ``c <= PEEL`` terms when the bound
    grows by ``c`` and the body is the same."""
    out: list[Z] = []
    for f, g in zip(before, after, strict=True):
        if f.kind is not g.kind:  # pragma: no cover - the same expression evaluated twice
            continue
        body = z3.substitute(g.body, (g.var, f.var))
        if not z3.eq(z3.simplify(body), z3.simplify(f.body)):
            continue
        c = z3.simplify(g.hi - f.hi)
        if not z3.is_int_value(c) or not 0 <= c.as_long() <= PEEL:
            continue
        n = c.as_long()
        terms = [z3.substitute(f.body, (f.var, f.hi + m)) for m in range(n)]
        if n == 0:
            out.append(g.const == f.const)
            continue
        match f.kind:
            case FoldKind.SUM:
                out.append(z3.Implies(f.hi >= 0, g.const == f.const + z3.Sum(*terms)))
            case FoldKind.MAX | FoldKind.MIN:
                acc = f.const
                for t in terms:
                    acc = _pick(f.kind, acc, t)
                out.append(z3.Implies(f.hi >= 1, g.const == acc))
                first = terms[0]
                for t in terms[1:]:
                    first = _pick(f.kind, first, t)
                out.append(z3.Implies(f.hi == 0, g.const == first))
            case _:
                assert_never(f.kind)
    return out


def _pick(kind: FoldKind, x: Z, y: Z) -> Z:
    return z3.If(x >= y, x, y) if kind is FoldKind.MAX else z3.If(x <= y, x, y)


def _model(ex: ValueExecutor, hyps: Sequence[Z], goal: Z, it: Z | None = None) -> dict[str, str]:
    """Sizes (and the iteration) of z3's model of a failed check, where it has one."""
    names = ex.reg.free_all([*hyps, goal])
    out = ex.session.check([*ex.reg.facts(names), *hyps, z3.Not(goal)])
    if out.answer is not Answer.SAT or out.model is None:
        return {}
    model = out.model
    if ex.world.syms:  # the smallest sizes of a model (least sum), as the prover's candidates are chosen
        model = minimize_sum(
            ex.session, list(ex.world.syms.values()), [*ex.reg.facts(names), *hyps, z3.Not(goal)], model
        )
    found = {s: model_int(model, v) for s, v in ex.world.syms.items()}
    shown = {s: str(v) for s, v in found.items() if v is not None}
    if it is not None:
        i = model_int(model, it)
        if i is not None:
            shown["iteration"] = str(i)
    return shown
