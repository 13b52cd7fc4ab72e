"""Normal forms and equality of terms, with a bound on the work.

The constructors of :mod:`larkc.symbolic.terms` keep large products of sums factored, so two terms for the
same function can be different objects: the textbook variance ``sum((x_i - mean)**2)/D`` and the spec's
``(sum(x**2) - sum(x)**2/D)/D``, online and three-pass softmax. This module decides such equalities.

:func:`normal_form` multiplies everything out into a canonical form: atoms' arguments normalised
(recursively), every positive power of a sum expanded, the rules of the constructors (``exp`` merging,
``sqrt`` powers, ...) applied to every product, the content of every denominator normalised and made monic,
and numerators that are multiples of a denominator's content cancelled against it. Equal polynomial
expressions (over the atoms) have the same normal form object; the result can be large (``sum(x)**2`` over
``D`` elements has ``D*(D+1)/2`` monomials).

:func:`equal` avoids most of that: it works on the *difference* of the two terms and expands shared sums only
when it has to. Both work on a polynomial over *variables*: each sum that occurs as a factor (a factored
``(x_i - mean)``, the softmax denominator, a derivation base) is a variable, defined either by its terms or,
when it was built incrementally, by its derivation ``k * base + delta`` (``x_i - mean`` is ``-mean + x_i``:
two terms and the shared variable ``mean``). Variables are substituted by their definitions in reverse
topological order, latest first, so a shared sub-sum such as ``sum(x)`` collects its cofactors from every
use before it is substituted once. In :func:`equal` two more steps keep the work linear in the row length
for the usual kernel identities: before substituting a variable, a cofactor that contains a multiple of a
variable's whole definition is folded back into that variable (``sum_i x_i * S`` is ``S * S`` when ``S =
sum_i x_i``), and the work stops as soon as the difference is zero. A difference that is not zero after
every variable is gone is multiplied by its denominators (recorded ``!= 0``) and expanded once more.

Every function takes ``budget``, a bound on the number of monomial operations (``None``: unbounded):
:func:`normal_form` raises :class:`BudgetExceeded` past it and :func:`equal` answers ``None``. ``equal``
answers ``True`` only with a proof (the steps above are identities of real functions on the domain where
the recorded side conditions hold), ``False`` only with a counterexample (exact rational evaluation at an
input where both terms are defined and differ, possible when neither term applies a function), ``None``
otherwise: terms equal only through facts about ``tanh``, ``max`` or ``select`` that the normal form does not
know are not proved equal.

Normal forms are memoised on the nodes with the side conditions their computation recorded, which are
replayed into the active collectors on every later use (see :mod:`larkc.symbolic.conditions`).
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any, assert_never

import numpy as np

from larkc.symbolic.conditions import _ACTIVE, Requirement, isolated, record, replay, side_conditions
from larkc.symbolic.terms import (
    And,
    App,
    Atom,
    BoolConst,
    BoolTerm,
    Cmp,
    CmpOp,
    Elem,
    Max,
    Min,
    Monomial,
    Or,
    Poly,
    Read,
    Select,
    Term,
    _apply_rules,
    _atom_poly,
    _cmp,
    _elem_fp,
    _eval_children,
    _eval_node,
    _factor_key,
    _lead_coeff,
    _merge,
    _mk_mono,
    _monic,
    _monic_cached,
    _no_expand_limit,
    _poly_from,
    _post_order,
    _put_factor,
    _scale,
    apply,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    neg,
    read,
    select,
)

__all__ = ["DEFAULT_BUDGET", "BudgetExceeded", "equal", "normal_form", "try_normal_form"]

#: The default bound on the monomial operations of one :func:`normal_form` or :func:`equal` call (a few
#: seconds of work).
DEFAULT_BUDGET = 1 << 22

_F0 = Fraction(0)
_F1 = Fraction(1)
_EMPTY = _mk_mono(())


class BudgetExceeded(Exception):
    """A normal form would take more monomial operations than its budget allows."""


class _Cycle(Exception):
    """Definitions through interned-later derivations formed a cycle (retried without them)."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self, budget: int | None) -> None:
        self.left = budget

    def spend(self, n: int) -> None:
        if self.left is not None:
            self.left -= n
            if self.left < 0:
                raise BudgetExceeded("the normal form exceeded its budget of monomial operations")


def _memo(cache: dict[str, Any], name: str, compute: Callable[[], Any]) -> Any:
    hit = cache.get(name)
    if hit is not None:
        replay(hit[1])
        return hit[0]
    with side_conditions() as sc:
        value = compute()
    cache[name] = (value, sc.conditions)
    return value


# Normalising atoms and monomials ----------------------------------------------------------------------


def _nf_poly(p: Poly, budget: _Budget) -> Poly:
    if p._cache.get("nf") is None and _is_normal_leaf_sum(p):
        p._cache["nf"] = (p, ())
    return _memo(p._cache, "nf", lambda: _compute_nf(p, budget))  # type: ignore[no-any-return]


def _compute_nf(p: Poly, budget: _Budget) -> Poly:
    try:
        return _Work(budget).load(p, _F1).finish()
    except _Cycle:
        return _Work(budget, use_alt=False).load(p, _F1).finish()


def _is_normal_leaf_sum(p: Poly) -> bool:
    """A sum of monomials of input elements and constants is its own normal form (the common case)."""
    if p._n > 4096:
        return False
    return all(type(a) is Elem for m, _ in p.terms for a, _ in m.factors)


def _nf_bool(b: BoolTerm, budget: _Budget) -> BoolTerm:
    match b:
        case BoolConst():
            return b
        case Cmp():
            return _memo(b._cache, "nf", lambda: _cmp(b.op, _nf_poly(b.lhs, budget)))  # type: ignore[no-any-return]
        case And():
            return _memo(b._cache, "nf", lambda: logical_and(*(_nf_bool(a, budget) for a in b.args)))  # type: ignore[no-any-return]
        case Or():
            return _memo(b._cache, "nf", lambda: logical_or(*(_nf_bool(a, budget) for a in b.args)))  # type: ignore[no-any-return]
        case _:
            assert_never(b)


def _nf_atom(atom: Atom, budget: _Budget) -> Poly:
    """The normal form of a non-sum atom, as a Poly (a rule can turn an atom into a sum: ``exp(log(a+b))``)."""
    match atom:
        case Elem():
            raise AssertionError("input elements are normal")
        case Read():
            return _memo(atom._cache, "nf", lambda: read(atom.tensor, _nf_poly(atom.index, budget)))  # type: ignore[no-any-return]
        case App():
            return _memo(atom._cache, "nf", lambda: apply(atom.fn, *(_nf_poly(a, budget) for a in atom.args)))  # type: ignore[no-any-return]
        case Max():
            return _memo(atom._cache, "nf", lambda: maximum(*(_nf_poly(a, budget) for a in atom.args)))  # type: ignore[no-any-return]
        case Min():
            return _memo(atom._cache, "nf", lambda: minimum(*(_nf_poly(a, budget) for a in atom.args)))  # type: ignore[no-any-return]
        case Select():

            def rebuild() -> Poly:
                return select(_nf_bool(atom.cond, budget), _nf_poly(atom.then, budget), _nf_poly(atom.other, budget))

            return _memo(atom._cache, "nf", rebuild)  # type: ignore[no-any-return]
        case Poly():
            raise AssertionError("sums are variables or denominators")
        case _:
            assert_never(atom)


def _simple(m: Monomial) -> bool:
    # input elements and positive powers of sums (variables) need no normalising
    return all(type(a) is Elem or (type(a) is Poly and e > 0) for a, e in m.factors)


def _nf_mono(m: Monomial, budget: _Budget) -> tuple[Fraction, Monomial]:
    """``m`` with its atoms normalised: leaves, variables (positive powers of sums) and denominators (negative
    powers of sums with normalised, monic content)."""
    if _simple(m):
        return _F1, m
    return _memo(m._cache, "nf", lambda: _nf_mono_compute(m, budget, _nf_atom))  # type: ignore[no-any-return]


def _nf_mono_compute(
    m: Monomial, budget: _Budget, nf_atom: Callable[[Atom, _Budget], Poly]
) -> tuple[Fraction, Monomial]:
    coeff = _F1
    factors: dict[Atom, int] = {}

    def put(a: Atom, e: int) -> None:
        _put_factor(factors, a, e)

    def put_poly(p: Poly, e: int) -> None:
        nonlocal coeff
        if p.is_const:
            coeff *= p.const**e
            return
        if p._n == 1 and not p.const:
            mono, c = p.terms[0]
            coeff *= c**e
            for a, ee in mono.factors:
                put(a, ee * e)
            return
        lead = _lead_coeff(p)
        coeff *= lead**e
        put(_scale(p, 1 / lead), e)

    for a, e in m.factors:
        if type(a) is Elem:
            put(a, e)
        elif isinstance(a, Poly):
            if e > 0:
                put(a, e)
            else:
                put_poly(_nf_poly(a, budget), e)
        else:
            put_poly(nf_atom(a, budget), e)
    c, _ = _apply_rules(factors)
    items = tuple(sorted(((a, e) for a, e in factors.items() if e), key=_factor_key))
    return coeff * c, _mk_mono(items)


def _mono_mul(m1: Monomial, m2: Monomial) -> tuple[Fraction, Monomial]:
    """The product of two normalised monomials, with the constructors' rules (exp merging, sqrt powers)."""
    if not m1.factors:
        return _F1, m2
    if not m2.factors:
        return _F1, m1
    factors = _merge(m1.factors, m2.factors)
    c, _ = _apply_rules(factors)
    items = tuple(sorted(((a, e) for a, e in factors.items() if e), key=_factor_key))
    return c, _mk_mono(items)


# Congruence of atoms ------------------------------------------------------------------------------------


def _head(atom: Atom) -> tuple[Any, ...]:
    """What two atoms must share to be compared: kind, and function, tensor or arity."""
    match atom:
        case App():
            return (App, atom.fn)
        case Read():
            return (Read, atom.tensor)
        case Max() | Min():
            return (type(atom), len(atom.args))
        case Elem():
            return (Elem, atom.tensor, atom.index)
        case Select() | Poly():
            return (type(atom),)
        case _:
            assert_never(atom)


def _fp_probe(fp: int) -> float:
    return (fp % (1 << 52)) / (1 << 51) - 1.0  # a pseudo-random value in [-1, 1)


def _elem_probe(e: Elem) -> float:
    return _fp_probe(e.fp)


def _probe(node: object) -> float:
    """The float64 value of a term at one fixed pseudo-random input (each element's value derived from its
    fingerprint), cached on the nodes: a cheap filter for which atoms may be equal, never a proof."""
    if type(node) is Elem:
        return _elem_probe(node)
    hit = node._cache.get("probe")  # type: ignore[attr-defined]
    if hit is not None:
        return hit  # type: ignore[no-any-return]

    def children(n: object) -> tuple[object, ...]:
        if type(n) is Elem or "probe" in n._cache:  # type: ignore[attr-defined]
            return ()
        return _eval_children(n)

    memo: dict[int, Any] = {}
    with np.errstate(all="ignore"):
        for n in _post_order([node], children):
            if type(n) is Elem:
                memo[id(n)] = _elem_probe(n)
                continue
            cache = n._cache  # type: ignore[attr-defined]
            if "probe" not in cache:
                if type(n) is Read:  # the element at the index's value, as its element node would have it
                    idx = memo[id(n.index)]
                    whole = math.isfinite(idx) and idx == int(idx)
                    cache["probe"] = _fp_probe(_elem_fp(n.tensor, int(idx))) if whole else math.nan
                else:
                    cache["probe"] = _eval_node(n, memo, {})
            memo[id(n)] = cache["probe"]
    return memo[id(node)]  # type: ignore[no-any-return]


def _close(p: float, q: float) -> bool:
    if math.isnan(p) or math.isnan(q):  # no information
        return True
    return abs(p - q) <= 1e-6 * (abs(p) + abs(q)) + 1e-9


def _atoms_equal(a: Atom, b: Atom, budget: _Budget) -> bool:
    """Whether two atoms of one head are equal by congruence (arguments proved equal), memoised on both with
    the side conditions of the proof."""
    if a is b:
        return True
    same = a._cache.setdefault("same", {})  # type: ignore[union-attr]
    hit = same.get(id(b))
    if hit is not None:
        replay(hit[1])
        return True
    with side_conditions() as sc:
        ok = _congruent(a, b, budget)
    if ok:
        same[id(b)] = (b, sc.conditions)
        b._cache.setdefault("same", {})[id(a)] = (a, sc.conditions)  # type: ignore[union-attr]
    return ok


def _congruent(a: Atom, b: Atom, budget: _Budget) -> bool:
    def eq(x: Poly, y: Poly) -> bool:
        return _poly_difference_is_zero(x, y, budget, unify=True)

    match a:
        case App():
            assert type(b) is App
            return a.fn is b.fn and all(eq(x, y) for x, y in zip(a.args, b.args, strict=True))
        case Read():
            assert type(b) is Read
            return a.tensor == b.tensor and eq(a.index, b.index)
        case Max() | Min():
            assert type(b) is type(a)
            unused = list(b.args)
            for x in a.args:
                px = _probe(x)
                for i, y in enumerate(unused):
                    if _close(px, _probe(y)) and eq(x, y):
                        del unused[i]
                        break
                else:
                    return False
            return True
        case Select():
            assert type(b) is Select
            if _bool_equal(a.cond, b.cond, budget):
                return eq(a.then, b.then) and eq(a.other, b.other)
            if _bool_equal(a.cond, logical_not(b.cond), budget):
                return eq(a.then, b.other) and eq(a.other, b.then)
            return False
        case Elem() | Poly():
            return False
        case _:
            assert_never(a)


def _bool_equal(a: BoolTerm, b: BoolTerm, budget: _Budget) -> bool:
    if a is b:
        return True
    match a:
        case Cmp():
            if type(b) is not Cmp or a.op is not b.op:
                return False
            if _poly_difference_is_zero(a.lhs, b.lhs, budget, unify=True):
                return True
            # == and != are unchanged by negation: the leading coefficients may have other signs
            return a.op in (CmpOp.EQ, CmpOp.NE) and _poly_difference_is_zero(a.lhs, neg(b.lhs), budget, unify=True)
        case And() | Or():
            if type(b) is not type(a) or len(a.args) != len(b.args):
                return False
            unused = list(b.args)
            for x in a.args:
                for i, y in enumerate(unused):
                    if _bool_equal(x, y, budget):
                        del unused[i]
                        break
                else:
                    return False
            return True
        case BoolConst():
            return False
        case _:
            assert_never(a)


def _monic_along(p: Poly, held: list[tuple[Fraction, Poly]]) -> tuple[Fraction, Poly]:
    """``_monic(p)``, after the monic forms of ``p``'s derivation ancestors, oldest first: interning a monic
    form that exists already (a running mean's, as a running sum) is verified in O(1) from the step before
    instead of in O(length). The monic forms are cached on the nodes weakly; ``held`` keeps them alive (for
    the caller's work), so that the next call stops where this one started."""
    chain: list[Poly] = []
    node: Poly | None = p
    while node is not None and _monic_cached(node) is None and len(chain) < 1 << 20:
        chain.append(node)
        node = node._base
    held.extend(_monic(n) for n in reversed(chain) if n._n)
    return _monic(p)


# The work polynomial ----------------------------------------------------------------------------------

_Terms = list[tuple[Fraction, Monomial]]
# a variable's definition: constant, terms over normalised monomials, the variables among their factors
_Def = tuple[Fraction, _Terms, tuple[Poly, ...]]


class _Candidates:
    """The representatives of one head, indexed by probe value: the ones whose probe is close to a given
    probe are found by bisection instead of a scan (a row of ``exp(x_i - m)`` has thousands of them).

    Atoms with a non-finite probe carry no information and are candidates for every probe; a non-finite
    probe is close to every atom. Candidates come out in the order they were added."""

    __slots__ = ("all", "keys", "loose")

    def __init__(self) -> None:
        self.all: list[Atom] = []  # every representative, in order
        self.keys: list[tuple[float, int]] = []  # (probe, serial) of those with a finite probe, sorted
        self.loose: list[int] = []  # serials of those with a non-finite probe

    def add(self, atom: Atom, probe: float) -> None:
        serial = len(self.all)
        self.all.append(atom)
        if math.isfinite(probe):
            bisect.insort(self.keys, (probe, serial))
        else:
            self.loose.append(serial)

    def near(self, probe: float) -> list[Atom]:
        if not math.isfinite(probe):
            return list(self.all)
        width = 3e-6 * abs(probe) + 2e-9  # wider than _close's tolerance; _close decides
        lo = bisect.bisect_left(self.keys, (probe - width, -1))
        hi = bisect.bisect_right(self.keys, (probe + width, len(self.all)))
        serials = [s for q, s in self.keys[lo:hi] if _close(probe, q)]
        serials += self.loose
        serials.sort()
        return [self.all[s] for s in serials]


class _Work:
    """A polynomial under normalisation: ``const + sum(coeffs)`` over normalised monomials whose positive
    powers of sums are variables still to substitute."""

    def __init__(self, budget: _Budget, *, refold: bool = False, unify: bool = False, use_alt: bool = True) -> None:
        self.budget = budget
        self.refold = refold
        self.unify = unify
        self.use_alt = use_alt
        self.mono_memo: dict[Monomial, tuple[Fraction, Monomial]] = {}
        self.reps: dict[int, Atom] = {}  # unify mode: atom -> the representative of its class
        self.by_head: dict[tuple[Any, ...], _Candidates] = {}  # unify mode: the representatives, by kind and head
        self.keep: list[Atom] = []  # the atoms whose ids are keys of ``reps``
        self.held: list[tuple[Fraction, Poly]] = []  # monic forms made here, alive while the work lasts
        self.const = _F0
        self.coeffs: dict[Monomial, Fraction] = {}
        self.occ: dict[Poly, set[Monomial]] = {}  # variable -> the monomials holding it
        self.defs: dict[Poly, _Def] = {}  # variable -> its definition
        self.depth: dict[Poly, int] = {}
        self.heap: list[tuple[int, int, Poly]] = []  # (-depth, serial, variable) of the pending variables
        self.queued: set[int] = set()
        self.serial = 0
        self.flats: dict[Poly, tuple[Fraction, _Terms] | None] = {}  # variable -> its flat definition
        self.flat_index: dict[Monomial, list[Poly]] = {}  # first monomial of a flat definition -> variables

    # building

    def load(self, p: Poly, k: Fraction) -> _Work:
        """Add ``k * p``."""
        self.const += p.const * k
        self.budget.spend(p._n)
        for m, c in p.terms:
            nc, nm = self.norm_mono(m)
            self.put(nm, c * k * nc)
        return self

    def norm_mono(self, m: Monomial) -> tuple[Fraction, Monomial]:
        """``m`` normalised: through the global normal forms, or (unify mode) with each non-sum atom replaced by
        a representative of the atoms proved equal to it in this call."""
        if _simple(m):
            return _F1, m
        if not self.unify:
            return _nf_mono(m, self.budget)
        hit = self.mono_memo.get(m)
        if hit is None:
            hit = self.mono_memo[m] = _nf_mono_compute(m, self.budget, self.representative)
        return hit

    def representative(self, atom: Atom, budget: _Budget) -> Poly:
        """The first atom seen in this call that is proved equal to ``atom`` (congruence: same function,
        arguments proved equal), found among those of the same kind whose probe values agree."""
        rep = self.reps.get(id(atom))
        if rep is None:
            head = _head(atom)
            probe = _probe(atom)
            candidates = self.by_head.get(head)
            if candidates is None:
                candidates = self.by_head[head] = _Candidates()
            for other in candidates.near(probe):
                if _atoms_equal(atom, other, budget):
                    rep = other
                    break
            else:
                rep = atom
                candidates.add(atom, probe)
            self.reps[id(atom)] = rep
            self.keep.append(atom)
        return _atom_poly(rep)

    def put(self, m: Monomial, c: Fraction) -> None:
        if not c:
            return
        if not m.factors:
            self.const += c
            return
        old = self.coeffs.get(m)
        if old is None:
            self.coeffs[m] = c
            for a, e in m.factors:
                if e > 0 and type(a) is Poly:
                    s = self.occ.get(a)
                    if s is None:
                        s = self.occ[a] = set()
                        self._queue(a)
                    s.add(m)
            return
        new = old + c
        if new:
            self.coeffs[m] = new
            return
        self.take(m)

    def take(self, m: Monomial) -> Fraction:
        c = self.coeffs.pop(m)
        for a, e in m.factors:
            if e > 0 and type(a) is Poly:
                s = self.occ.get(a)
                if s is not None:
                    s.discard(m)
        return c

    def is_zero(self) -> bool:
        return not self.coeffs and not self.const

    # variables

    def _queue(self, v: Poly) -> None:
        if id(v) in self.queued:
            return
        self.queued.add(id(v))
        self.serial += 1
        heapq.heappush(self.heap, (-self._depth(v), self.serial, v))
        if self.refold and v._base is None and v._terms is not None and v not in self.flats:
            flat = self._flat(v)
            if flat is not None and flat[1]:
                self.flat_index.setdefault(flat[1][0][1], []).append(v)

    def _definition(self, v: Poly) -> _Def:
        """``v`` as a sum over normalised monomials: its derivation when it has one, else its terms; kept on
        the node when no atom needed normalising (then it does not depend on this call)."""
        d = self.defs.get(v)
        if d is None:
            name = "def-own" if not self.use_alt else "def-alt" if "alt" in v._cache else "def"
            d = v._cache.get(name)
            if d is None:
                d, simple = self._compute_definition(v)
                if simple:
                    v._cache[name] = d
            self.defs[v] = d
        return d

    def _derivation(self, node: Poly) -> tuple[Poly, Fraction, Poly] | None:
        """``node == k * base + delta`` as ``(base, k, delta)``: its own derivation, or (``use_alt``) one
        found when it was interned again as a derivation or as a multiple of a derived sum (which may point to
        a newer node: cycles are possible then, and retried without)."""
        if node._base is not None and node._delta is not None:
            return node._base, node._k, node._delta
        if self.use_alt:
            return node._cache.get("alt")
        return None

    def _compute_definition(self, v: Poly) -> tuple[_Def, bool]:
        terms: _Terms = []
        # pure scalings are looked through, so that the multiples of one sum share one variable
        scale, node = _F1, v
        derivation = self._derivation(node)
        seen = {id(v)}
        while derivation is not None and not derivation[2].terms and not derivation[2].const:
            scale, node = scale * derivation[1], derivation[0]
            if id(node) in seen:  # scalings in a circle (through recorded derivations): none to follow
                raise _Cycle
            seen.add(id(node))
            derivation = self._derivation(node)
        if not self.use_alt and node is not v:
            # own derivations only: point to strictly older nodes, so definitions never form a cycle
            return (_F0, [(scale, _mk_mono(((node, 1),)))], (node,)), True
        if derivation is not None:
            base, k, _delta = derivation
            if self.use_alt:
                # variables are monic sums: a kernel's running mean and a spec's sum(x) are one variable
                lead, rep = _monic_along(base, self.held)
                if rep is v:
                    derivation = None
                else:
                    terms.append((scale * k * lead, _mk_mono(((rep, 1),))))
            else:
                terms.append((scale * k, _mk_mono(((base, 1),))))
        if derivation is not None:
            const = derivation[2].const * scale
            source = derivation[2].terms
        else:
            const = node.const * scale
            source = node.terms
        more, simple = self._normalised(source, scale, terms)
        const += more
        subs: dict[int, Poly] = {}
        for _, m in terms:
            for a, e in m.factors:
                if e > 0 and type(a) is Poly:
                    subs.setdefault(id(a), a)
        return (const, terms, tuple(subs.values())), simple

    def _normalised(
        self, source: tuple[tuple[Monomial, Fraction], ...], scale: Fraction, terms: _Terms
    ) -> tuple[Fraction, bool]:
        """Append ``scale * source`` over normalised monomials to ``terms``; the constant part that came out,
        and whether no monomial needed normalising (then the result does not depend on this call)."""
        self.budget.spend(len(source))
        const = _F0
        simple = True
        for m, c in source:
            if _simple(m):
                nc, nm = _F1, m
            else:
                simple = False
                nc, nm = self.norm_mono(m)
            if nm.factors:
                terms.append((c * nc * scale, nm))
            else:
                const += c * nc * scale
        return const, simple

    def _depth(self, v: Poly) -> int:
        """1 + the largest depth of the variables in ``v``'s definition (iteratively: chains are long)."""
        depth = self.depth
        if v in depth:
            return depth[v]
        # depths are kept on the nodes too (they only order the substitutions: a stale one costs time, not
        # correctness, as a variable met again after its substitution is queued again)
        name = "depth" if self.use_alt else "depth-own"
        stack: list[tuple[Poly, bool]] = [(v, False)]
        open_: set[int] = set()  # on the current path: meeting one again is a cycle
        while stack:
            u, done = stack.pop()
            if u in depth:
                continue
            known = u._cache.get(name)
            if known is not None:
                depth[u] = known
                continue
            subs = self._definition(u)[2]
            if done:
                depth[u] = u._cache[name] = 1 + max((depth[s] for s in subs), default=0)
                open_.discard(id(u))
                continue
            if id(u) in open_:
                raise _Cycle
            open_.add(id(u))
            stack.append((u, True))
            stack.extend((s, False) for s in subs if s not in depth)
        return depth[v]

    def _power(self, v: Poly, e: int) -> _Terms:
        const, terms, _ = self._definition(v)
        base: _Terms = [*terms, *(((const, _EMPTY),) if const else ())]
        out = base
        for _ in range(e - 1):
            acc: dict[Monomial, Fraction] = {}
            self.budget.spend(len(out) * len(base))
            for c1, m1 in out:
                for c2, m2 in base:
                    k, m = _mono_mul(m1, m2)
                    acc[m] = acc.get(m, _F0) + c1 * c2 * k
            out = [(c, m) for m, c in acc.items() if c]
        return out

    def eliminate(self) -> bool:
        """Substitute every variable, latest first; in refold mode stop early when the work is zero. Whether
        the work is zero."""
        while self.heap:
            self.budget.spend(1)
            if self.refold and self.is_zero():
                return True
            _, _, v = heapq.heappop(self.heap)
            self.queued.discard(id(v))
            ms = self.occ.pop(v, None)
            if not ms:
                continue
            if self.refold:
                self._refold(v, ms)
                ms = self.occ.pop(v, set())
                if not ms:
                    continue
            taken = [(m, self.take(m)) for m in list(ms)]
            for m, c in taken:
                e = 0
                rest: list[tuple[Atom, int]] = []
                for a, ee in m.factors:
                    if a is v:
                        e = ee
                    else:
                        rest.append((a, ee))
                cofactor = _mk_mono(tuple(rest))
                expansion = self._power(v, e)
                self.budget.spend(len(expansion))
                for dc, dm in expansion:
                    k, nm = _mono_mul(cofactor, dm)
                    self.put(nm, c * dc * k)
        return self.is_zero()

    def _refold(self, v: Poly, ms: set[Monomial]) -> None:
        """Fold ``k * u * def(w)`` inside the cofactor of ``v`` back into ``k * u * w`` for a variable ``w``
        whose flat definition it contains (``w`` may be ``v``): ``sum_i x_i * S -> S * S``."""
        cofactor: dict[Monomial, tuple[Monomial, Fraction]] = {}
        for m in ms:
            rest = []
            ok = False
            for a, e in m.factors:
                if a is v and e == 1:
                    ok = True
                else:
                    rest.append((a, e))
            if ok:
                cofactor[_mk_mono(tuple(rest))] = (m, self.coeffs[m])
        self.occ[v] = ms
        if len(cofactor) < 2:
            return
        firsts = [w for m in cofactor for w in self.flat_index.get(m, ()) if id(w) in self.queued]
        for w in [v, *firsts]:
            self.budget.spend(1)
            if w._n > len(cofactor):
                continue
            flat = self._flat(w)
            if flat is None:
                continue
            const, terms = flat
            if const or not terms:
                continue
            lead_c, lead_m = terms[0]
            hit = cofactor.get(lead_m)
            if hit is None:
                continue
            ratio = hit[1] / lead_c
            self.budget.spend(len(terms))
            if not all((h := cofactor.get(t)) is not None and h[1] == c * ratio for c, t in terms):
                continue
            for _, t in terms:
                self.take(cofactor.pop(t)[0])
            k, nm = _mono_mul(_mk_mono(((v, 1),)), _mk_mono(((w, 1),)))
            self.put(nm, ratio * k)
            if len(cofactor) < 2:
                return

    def _flat(self, w: Poly) -> tuple[Fraction, _Terms] | None:
        """``w``'s terms as normalised monomials sorted by key (None when that would be large); kept on the
        node when no atom needed normalising."""
        if w._n > 1 << 16:
            return None
        if w in self.flats:
            return self.flats[w]
        out = w._cache.get("flat")
        if out is None:
            terms: _Terms = []
            more, simple = self._normalised(w.terms, _F1, terms)
            const = w.const + more
            terms.sort(key=lambda cm: cm[1].key)
            out = (const, terms)
            if simple:
                w._cache["flat"] = out
        self.flats[w] = out
        return out

    # denominators

    def cancel_denominators(self) -> None:
        """Cancel numerators that are a monomial times a denominator's content (``(x + y) / (x + y)``)."""
        changed = True
        while changed:
            self.budget.spend(1)
            changed = False
            groups: dict[tuple[tuple[Atom, int], ...], dict[Monomial, Fraction]] = {}
            for m, c in self.coeffs.items():
                den: tuple[tuple[Atom, int], ...] = tuple((a, e) for a, e in m.factors if e < 0 and type(a) is Poly)
                if den:
                    num = _mk_mono(tuple((a, e) for a, e in m.factors if not (e < 0 and type(a) is Poly)))
                    groups.setdefault(den, {})[num] = c
            for group, numerator in groups.items():
                for a, e in group:
                    assert isinstance(a, Poly)
                    if self._divide(group, a, e, numerator):
                        changed = True
                        break
                if changed:
                    break

    def _divide(self, den: tuple[tuple[Atom, int], ...], a: Poly, e: int, num: dict[Monomial, Fraction]) -> bool:
        content: _Terms = [*(((c, m) for m, c in a.terms)), *(((a.const, _EMPTY),) if a.const else ())]
        if len(content) > 64 or len(num) < len(content):
            return False
        if any(type(x) is Poly for _, t in content for x, _ in t.factors):
            return False
        first_n = min(num, key=lambda m: m.key)
        for c0, t0 in content:
            # try q = first_n / t0
            q_factors = dict(first_n.factors)
            for x, ee in t0.factors:
                q_factors[x] = q_factors.get(x, 0) - ee
            q = _mk_mono(tuple(sorted(((x, ee) for x, ee in q_factors.items() if ee), key=_factor_key)))
            ratio = num[first_n] / c0
            parts = []
            ok = True
            for c, t in content:
                k, qt = _mono_mul(q, t)
                if k != 1 or num.get(qt) != c * ratio:
                    ok = False
                    break
                parts.append(qt)
            if not ok:
                continue
            self.budget.spend(len(content))
            if _ACTIVE:
                record(a, Requirement.NONZERO)
            rest_den = tuple((x, ee) for x, ee in den if x is not a) + (((a, e + 1),) if e + 1 else ())
            for qt in parts:
                self.take(_mk_mono(tuple(sorted((*qt.factors, *den), key=_factor_key))))
            nm = _mk_mono(tuple(sorted((*q.factors, *rest_den), key=_factor_key)))
            k, nm = _mono_mul(nm, _EMPTY)
            self.put(nm, ratio * k)
            return True
        return False

    def clear_denominators(self) -> bool:
        """Multiply the work by the product of its denominators (recorded ``!= 0``), which become variables.
        Whether there were any."""
        worst: dict[Poly, int] = {}
        for m in self.coeffs:
            for a, e in m.factors:
                if e < 0 and type(a) is Poly:
                    worst[a] = min(worst.get(a, 0), e)
        if not worst:
            return False
        for a in worst:
            if _ACTIVE:
                record(a, Requirement.NONZERO)
        factor = _mk_mono(tuple(sorted(((a, -e) for a, e in worst.items()), key=_factor_key)))
        old = list(self.coeffs.items())
        old_const = self.const
        self.coeffs.clear()
        self.occ.clear()
        self.heap.clear()
        self.queued.clear()
        self.const = _F0
        self.budget.spend(len(old))
        for m, c in old:
            k, nm = _mono_mul(m, factor)
            self.put(nm, c * k)
        if old_const:
            self.put(factor, old_const)
        return True

    def finish(self) -> Poly:
        """Eliminate every variable, cancel what divides, and build the normal form."""
        self.eliminate()
        self.cancel_denominators()
        return _poly_from(self.const, self.coeffs)


# Entry points ---------------------------------------------------------------------------------------


def normal_form(term: Term, budget: int | None = DEFAULT_BUDGET) -> Term:
    """The canonical, fully expanded form of ``term`` (see the module doc); raises :class:`BudgetExceeded`
    after ``budget`` monomial operations (``None``: no bound)."""
    b = _Budget(budget)
    with _no_expand_limit():
        if isinstance(term, Poly):
            return _nf_poly(term, b)
        return _nf_bool(term, b)


def try_normal_form(term: Term, budget: int | None = DEFAULT_BUDGET) -> Term | None:
    """:func:`normal_form`, or ``None`` past the budget."""
    try:
        return normal_form(term, budget)
    except BudgetExceeded:
        return None


def equal(a: Term, b: Term, budget: int | None = DEFAULT_BUDGET) -> bool | None:
    """Whether ``a`` and ``b`` denote the same function: ``True`` when proved (on the domain where the side
    conditions recorded meanwhile hold), ``False`` when an input where they differ was found, ``None`` when
    neither could be established within ``budget`` monomial operations."""
    if a is b:
        return True
    if isinstance(a, Poly) != isinstance(b, Poly):
        raise TypeError("comparing a number with a truth value")
    if isinstance(a, Poly) and isinstance(b, Poly) and not _close(_probe(a), _probe(b)):
        # different values at the probe input: no proof to look for (this only skips work)
        return False if _counterexample(a, b) else None
    shared = _Budget(budget)
    attempts: list[Callable[[], bool]]
    if isinstance(a, Poly) and isinstance(b, Poly):
        attempts = [
            lambda: _poly_difference_is_zero(a, b, shared, unify=True),
            lambda: _poly_difference_is_zero(a, b, shared, unify=False),
        ]
    else:
        attempts = [lambda: _nf_bool(a, shared) is _nf_bool(b, shared)]  # type: ignore[arg-type]
    # only the conditions of the attempt that succeeds are the proof's
    for attempt in attempts:
        try:
            with _no_expand_limit(), isolated() as sc:
                proved = attempt()
        except BudgetExceeded:
            break
        if proved:
            replay(sc.conditions)
            return True
    return False if _counterexample(a, b) else None


def _poly_difference_is_zero(a: Poly, b: Poly, budget: _Budget, *, unify: bool) -> bool:
    """Whether ``a - b`` reduces to zero: variables substituted latest first with refolding, then
    denominators cancelled or cleared. ``unify``: atoms compared by congruence (cheap, incomplete for rules
    that only fire on normalised arguments), else through their global normal forms."""
    if a is b:
        return True
    try:
        return _difference_is_zero(a, b, budget, unify=unify, use_alt=True)
    except _Cycle:
        return _difference_is_zero(a, b, budget, unify=unify, use_alt=False)


def _difference_is_zero(a: Poly, b: Poly, budget: _Budget, *, unify: bool, use_alt: bool) -> bool:
    work = _Work(budget, refold=True, unify=unify, use_alt=use_alt)
    work.load(a, _F1).load(b, -_F1)
    if work.eliminate():
        return True
    work.cancel_denominators()
    if work.is_zero():
        return True
    if work.clear_denominators():
        work.refold = False
        work.eliminate()
        work.cancel_denominators()
    return work.is_zero()


# Counterexamples --------------------------------------------------------------------------------------


def _exact(terms: list[Term], rng: random.Random) -> list[Any] | None:
    """The exact values of terms without function applications or reads at random small integer inputs, or
    None where one is undefined (a division by zero)."""
    env: dict[tuple[str, int], Fraction] = {}

    def value(tensor: str, index: int) -> Fraction:
        v = env.get((tensor, index))
        if v is None:
            v = env[tensor, index] = Fraction(rng.randint(-9, 9))
        return v

    memo: dict[int, Any] = {}
    for node in _post_order(terms, _eval_children):
        match node:
            case Poly():
                if node._base is not None:
                    memo[id(node)] = node._k * memo[id(node._base)] + memo[id(node._delta)]
                    continue
                total = node.const
                for mono, k in node.terms:
                    prod = k
                    for atom, e in mono.factors:
                        v = memo[id(atom)]
                        if e < 0 and v == 0:
                            return None
                        prod *= v**e
                    total += prod
                memo[id(node)] = total
            case Elem():
                memo[id(node)] = value(node.tensor, node.index)
            case Read() | App():
                return None
            case Max():
                memo[id(node)] = max(memo[id(x)] for x in node.args)
            case Min():
                memo[id(node)] = min(memo[id(x)] for x in node.args)
            case Select():
                memo[id(node)] = memo[id(node.then)] if memo[id(node.cond)] else memo[id(node.other)]
            case BoolConst():
                memo[id(node)] = node.value
            case Cmp():
                v = memo[id(node.lhs)]
                match node.op:
                    case CmpOp.EQ:
                        memo[id(node)] = v == 0
                    case CmpOp.NE:
                        memo[id(node)] = v != 0
                    case CmpOp.LT:
                        memo[id(node)] = v < 0
                    case CmpOp.LE:
                        memo[id(node)] = v <= 0
                    case _:
                        assert_never(node.op)
            case And():
                memo[id(node)] = all(memo[id(x)] for x in node.args)
            case Or():
                memo[id(node)] = any(memo[id(x)] for x in node.args)
            case _:
                raise TypeError(f"not a term node: {node!r}")
    return [memo[id(t)] for t in terms]


def _counterexample(a: Term, b: Term, tries: int = 8) -> bool:
    """Whether exact evaluation at small random integer inputs finds a point where both are defined and
    differ (only for terms that apply no function: those are evaluated exactly)."""
    # a function's value is not exact; a read's index may fall outside its tensor, where the input is not
    # a value at all
    if any(type(n) is App or type(n) is Read for n in _post_order([a, b], _eval_children)):
        return False
    rng = random.Random(0x1A2C)
    for _ in range(tries):
        values = _exact([a, b], rng)
        if values is not None and values[0] != values[1]:
            return True
    return False
