"""Folds over symbolic index ranges: ``Σ_{k<n} f(k)``, ``max_{k<n} f(k)``, ``min_{k<n} f(k)`` (issue 21).

The all-size prover (``allsize.py``) meets reductions on both sides: the reference's ``x.sum(-1)[i]`` is
``Σ_{k<d} x[i, k]``, a kernel's accumulation loop leaves ``acc0 + Σ_{t<T} f(t)`` (``T`` its trip count)
and a Triton ``tl.sum`` of a block is ``Σ_{l<BLOCK} f(l)``. Each is a :class:`Fold`, stood for in z3
terms by a fresh real constant (:attr:`Fold.const`): a term with folds is a claim *for every value* of
them unless two of them are unified, so a proof never rests on what a fold is not known to be.

:meth:`FoldTable.unify` rewrites the folds of one term (the reference's) into provably equal folds of
another (the kernel's), so that the final z3 query compares them as the same constant. Two folds are
equal (:meth:`FoldTable.equal`) when their operators are, and at a fresh index ``u``:

* the bounds are provably equal and the bodies are equal for ``0 <= u < n``; or, for ``Σ``,
* one bound ``m`` is provably at most the other ``n``, the bodies are equal for ``u < m`` and the longer
  fold's body *selects* ``0`` (the identity of ``+``) for ``m <= u < n`` (an ``If`` whose reachable leaves
  are the literal 0: arithmetic on a masked lane's value, which may be ``-inf``, is not a real's): a masked
  block sum ``Σ_{l<BLOCK} If(l < d, x[l], 0)`` is ``Σ_{k<d} x[k]`` for every ``d <= BLOCK``.

Each side condition is a z3 validity check under the caller's hypotheses (the store's path condition and
index range) and each fold's own (its index range, the path condition of a loop's iteration). The order
in which a fold combines its terms is not part of it: larkc's equivalence is over exact reals, where
``+``, ``max`` and ``min`` are associative and commutative, so a tree reduction, a strided partition or a
left fold of the same terms are the same fold. Bodies may contain folds (a softmax's ``Σ exp(x - max)``):
they are unified first, inside out.

Interface for what comes next (tree and shuffle reductions, partitions of an index set, invariants from
outside): anything that can state "this value is the fold ``op`` of ``body`` over ``[0, n)``" makes a
:class:`Fold` with :meth:`FoldTable.make`; the comparison does not care which rule produced it.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import z3

from larkc.provers.zworld import Z

__all__ = ["Fold", "FoldOp", "FoldTable"]


class FoldOp(enum.Enum):
    """The combining operator of a fold (associative and commutative over the reals)."""

    SUM = "sum"  # +, identity 0
    MAX = "max"  # max, no real identity: folds of it are compared over equal, non-empty ranges only
    MIN = "min"  # min, likewise


@dataclass(frozen=True, slots=True, eq=False)
class Fold:
    """``op`` of ``body`` over ``var`` in ``[0, hi)``; ``body`` is defined under ``hyps`` (which may mention
    ``var``: a loop's iteration path condition), and ``const`` stands for the fold in z3 terms."""

    op: FoldOp
    var: Z  # a z3 integer, bound in ``body`` and ``hyps``
    hi: Z  # a z3 integer term (the number of terms)
    body: Z  # a z3 real term
    hyps: tuple[Z, ...]
    const: Z  # a z3 real constant
    origin: str  # where it comes from, for the prover's messages


class FoldTable:
    """The folds of one attempt, by their constants."""

    def __init__(self, valid: Callable[..., bool]) -> None:
        #: ``valid(goal, *hyps)``: the goal holds wherever the hypotheses do (z3; unknown is not valid)
        self.valid = valid
        self.folds: dict[str, Fold] = {}
        #: the side conditions that failed (goal, hypotheses), in order: where a model of one is, the two
        #: folds differ for some sizes or inputs (a hint of where to look, never a refutation by itself)
        self.failures: list[tuple[Z, tuple[Z, ...]]] = []
        self._ids = itertools.count()

    def make(self, op: FoldOp, var: Z, hi: Z, body: Z, hyps: Sequence[Z], origin: str) -> Z:
        """A fresh constant standing for the fold (recorded in the table)."""
        n = next(self._ids)
        const = z3.Real(f"allsize.fold.{op.value}.{n}")
        own = (var >= 0, var < hi, *hyps)
        self.folds[const.decl().name()] = Fold(op, var, hi, body, own, const, origin)
        return const

    def folds_in(self, term: Z, *, deep: bool = True) -> list[Fold]:
        """The folds whose constants occur in ``term`` (and, when ``deep``, in their bodies), each once."""
        out: dict[str, Fold] = {}
        stack = [term]
        seen: set[int] = set()
        while stack:
            t = stack.pop()
            if t.get_id() in seen:
                continue
            seen.add(t.get_id())
            if z3.is_const(t) and t.decl().name() in self.folds:
                f = self.folds[t.decl().name()]
                if f.const.decl().name() not in out:
                    out[f.const.decl().name()] = f
                    if deep:
                        stack.append(f.body)
                continue
            stack.extend(t.children())
        return list(out.values())

    def facts(self, term: Z) -> list[Z]:
        """What is known of the folds of ``term`` without their bodies: a sum over an empty range is 0."""
        return [z3.Implies(f.hi <= 0, f.const == 0) for f in self.folds_in(term, deep=False) if f.op is FoldOp.SUM]

    def unify(self, ours: Z, theirs: Z, hyps: Sequence[Z]) -> Z:
        """``theirs`` with each of its folds replaced by a fold of ``ours`` proved equal to it under ``hyps``
        (a fold with no equal stays: the comparison then holds only if it holds for every value of it)."""
        candidates = self.folds_in(ours)
        pairs: list[tuple[Z, Z]] = []
        for g in self.folds_in(theirs, deep=False):
            for f in candidates:
                if f is not g and self.equal(f, g, hyps):
                    pairs.append((g.const, f.const))
                    break
        return z3.substitute(theirs, *pairs) if pairs else theirs

    def equal(self, f: Fold, g: Fold, hyps: Sequence[Z]) -> bool:
        """Whether the folds ``f`` and ``g`` are provably equal wherever ``hyps`` hold (see the module)."""
        if f.op is not g.op:
            return False
        nested = self._inner(f)
        if nested is not None and f.op is FoldOp.SUM and nested.op is FoldOp.SUM and self._inner(g) is None:
            return self._partition(f, nested, g, hyps)
        u = z3.FreshInt("allsize.u")
        fb, gb = z3.substitute(f.body, (f.var, u)), z3.substitute(g.body, (g.var, u))
        fh = [z3.substitute(h, (f.var, u)) for h in f.hyps]
        gh = [z3.substitute(h, (g.var, u)) for h in g.hyps]
        at = [*hyps, u >= 0]
        if self.valid(f.hi == g.hi, *hyps):
            inner = [*at, u < f.hi, *fh, *gh]
            return self._bodies_equal(fb, gb, inner)
        if f.op is not FoldOp.SUM:
            self.failures.append((f.hi == g.hi, tuple(hyps)))  # no identity: the ranges must be equal
            return False
        for short, long, lb, sh, lh in ((g, f, fb, gh, fh), (f, g, gb, fh, gh)):
            if self.valid(short.hi <= long.hi, *hyps):
                inner = [*at, u < short.hi, *sh, *lh]
                tail = [*at, u >= short.hi, u < long.hi, *lh]
                return self._bodies_equal(fb, gb, inner) and self._zero_by_selection(lb, tail)
        return False

    def _inner(self, f: Fold) -> Fold | None:
        """The fold ``f``'s body is, when it is exactly one (a fold of folds: ``Σ_t Σ_i b(t, i)``)."""
        body = z3.simplify(f.body)  # an accumulator from 0 is `0 + Σ`
        if z3.is_const(body) and body.decl().name() in self.folds:
            return self.folds[body.decl().name()]
        return None

    def _partition(self, outer: Fold, inner: Fold, flat: Fold, hyps: Sequence[Z]) -> bool:
        """The partition rule: ``Σ_{t<S} Σ_{i<T_t} b(t, i)`` is ``Σ_{k<n} c(k)`` when the map ``(t, i) -> t +
        i*S`` takes the outer fold's index set one-to-one onto the flat one's and ``b(t, i) = c(t + i*S)``.
        One-to-one needs no check: ``0 <= t < S`` makes ``t + i*S`` determine ``(t, i)`` (Euclidean division
        is unique). Onto (every ``k < n`` is some ``t + i*S`` of the index set) is stated for every ``t < S``
        and ``i >= 0`` with ``0 <= t + i*S < n``, which covers each such ``k`` once ``S >= 1``. A per-thread
        strided loop ``for (k = t; k < n; k += S)`` summed over ``t < S`` is the row's sum, in every order
        (exact reals: ``+`` is associative and commutative).

        The two indices stay the executor's own variables (an iteration counter, a thread index), so the
        facts the registry keeps of them and of what they determine (an inner loop's trip count ``T_t``, a
        function of ``t``) hold where they are used; the folds' own hypotheses say which ``(t, i)`` are
        terms. For ``Σ`` only: ``max`` and ``min`` have no real identity, and a ``t`` whose inner fold is
        empty would have no value."""
        t, i, s = outer.var, inner.var, outer.hi
        if t.eq(i) or _mentions(outer.hi, [t, i]):
            return False
        k = t + i * s
        at = [z3.substitute(h, (flat.var, k)) for h in flat.hyps]
        terms = [*hyps, *outer.hyps, *inner.hyps]
        # the outer and inner folds' terms are terms of the flat fold, and equal to them
        if not self._holds(z3.And(*at), terms):
            return False
        if not self._bodies_equal(inner.body, z3.substitute(flat.body, (flat.var, k)), [*terms, *at]):
            return False
        # onto: every index of the flat fold is one of the nested fold's terms
        if not self._holds(s >= 1, [*hyps, *at[:2]]):
            return False
        return self._holds(z3.And(*outer.hyps, *inner.hyps), [*hyps, t >= 0, t < s, i >= 0, *at])

    def _zero_by_selection(self, body: Z, hyps: Sequence[Z]) -> bool:
        """Whether ``body`` *selects* the constant 0 wherever ``hyps`` hold: an ``If`` tree whose reachable
        leaves are the literal 0. Real arithmetic is not enough here: the tail's lanes hold values that are
        not reals (a masked load's ``-inf``, ``0 / 0``), where ``0 * v`` is NaN on the GPU, not 0."""
        if z3.is_app_of(body, z3.Z3_OP_ITE):
            c, x, y = body.children()
            then_ok = self.valid(z3.Not(c), *hyps) or self._zero_by_selection(x, [*hyps, c])
            return then_ok and (self.valid(c, *hyps) or self._zero_by_selection(y, [*hyps, z3.Not(c)]))
        if z3.is_rational_value(body) and body.as_fraction() == 0:
            return True
        self.failures.append((body == 0, tuple(hyps)))
        return False

    def _bodies_equal(self, fb: Z, gb: Z, hyps: Sequence[Z]) -> bool:
        gb = self.unify(fb, gb, hyps)
        return self._holds(fb == gb, hyps)

    def _holds(self, goal: Z, hyps: Sequence[Z]) -> bool:
        if self.valid(goal, *hyps):
            return True
        self.failures.append((goal, tuple(hyps)))
        return False


def _mentions(term: Z, consts: Sequence[Z]) -> bool:
    """Whether one of the constants ``consts`` occurs in ``term``."""
    names = {c.decl().name() for c in consts}
    stack, seen = [term], set()
    while stack:
        x = stack.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_const(x) and x.decl().name() in names:
            return True
        stack.extend(x.children())
    return False
