"""Equality of many output elements that share sub-terms, decided once per shared sub-term.

The elements of one row of a normalisation or a softmax share their hard part: the variance under a
square root, the sum of exponentials. The kernel builds that part one way (a Welford merge, an online
rescaling, a tree of partial sums) and the spec another, so each element's kernel term differs from the
spec's term only in a few *atoms* (a factored sum, an ``exp``, a ``sqrt``), the same atoms for every
element of the row. :class:`AtomMatcher` proves such an atom pair equal once (by
:func:`larkc.symbolic.normal.equal`, recursively through function applications), records it, and rewrites
later kernel terms with the recorded substitution, so that the element is then *identical* to the spec's
term: the work is paid once per row, not once per element.

Sound by congruence: replacing a sub-term by one proved equal to it (for every input where the recorded
side conditions hold) does not change the function a term denotes.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable
from fractions import Fraction

from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import side_conditions
from larkc.symbolic.normal import equal
from larkc.symbolic.signs import discharge
from larkc.symbolic.terms import (
    And,
    App,
    Atom,
    BoolConst,
    BoolTerm,
    Cmp,
    Elem,
    Max,
    Min,
    Or,
    Poly,
    Read,
    Select,
    Term,
)

__all__ = ["AtomMatcher", "DerivedUnfolder", "ExtremaSimplifier"]


class AtomMatcher:
    """Proves kernel terms equal to spec terms atom by atom, remembering every atom pair it proved.

    ``work`` bounds each call of :func:`~larkc.symbolic.normal.equal`; ``deadline`` (a
    ``time.perf_counter`` value) stops new proof attempts.
    """

    def __init__(self, work: int | None, deadline: float) -> None:
        self.work = work
        self.deadline = deadline
        self._subst: dict[int, Atom] = {}  # id(kernel atom) -> an equal spec atom
        self._keep: list[object] = []  # keeps substituted atoms alive, so their ids stay unique
        self._memo: dict[int, object] = {}  # id(node) -> the node rewritten with the substitution
        self._tried: set[tuple[int, int]] = set()
        self._proved_shapes: set[bytes] = set()

    def match(self, kernel: Term, spec: Term) -> bool:
        """Whether ``kernel`` is shown identical to ``spec`` after substituting atoms proved equal."""
        if kernel is spec:
            return True
        current = self.rewrite(kernel)
        for _ in range(4):  # each round proves at least one more atom pair or stops
            if current is spec:
                return True
            if not (isinstance(current, Poly) and isinstance(spec, Poly)) or time.perf_counter() > self.deadline:
                return False
            if not self._learn(current, spec):
                return False
            current = self.rewrite(kernel)
        return current is spec

    # -- learning atom equalities ----------------------------------------------------------------------

    def _learn(self, k: Poly, s: Poly) -> bool:
        """Prove some atom of ``k`` missing from ``s`` equal to some atom of ``s`` missing from ``k``."""
        ka, sa = _top_atoms(k), _top_atoms(s)
        only_k = [a for a in ka if id(a) not in {id(b) for b in sa}]
        only_s = [b for b in sa if id(b) not in {id(a) for a in ka}]
        if not only_k or not only_s or len(only_k) * len(only_s) > 16:
            return False
        learned = False
        for a, b in itertools.product(only_k, only_s):
            if id(a) in self._subst or not _same_kind(a, b):
                continue
            if self._atoms_equal(a, b):
                self._subst[id(a)] = b
                self._keep.append(a)
                self._memo.clear()
                learned = True
        return learned

    def _atoms_equal(self, a: Atom, b: Atom) -> bool:
        key = (id(a), id(b))
        if key in self._tried or time.perf_counter() > self.deadline:
            return False
        self._tried.add(key)
        if isinstance(a, App) and isinstance(b, App):
            return all(self._equal(x, y) for x, y in zip(a.args, b.args, strict=True))
        if isinstance(a, Poly) and isinstance(b, Poly):
            return self._equal(a, b)
        if isinstance(a, Max | Min) and isinstance(b, Max | Min):
            return len(a.args) == len(b.args) and all(self._equal(x, y) for x, y in zip(a.args, b.args, strict=True))
        return False

    def _equal(self, a: Poly, b: Poly) -> bool:
        """Whether ``a == b``: by a proof already made for a translation of the pair (row ``k`` of an
        identity proved for row 0), else by matching atoms, else by :func:`~larkc.symbolic.normal.equal`."""
        key = translation_key(a, b)
        if key is not None and key in self._proved_shapes:
            return True
        with side_conditions() as sc:
            same = self._prove_equal(a, b)
        if same and key is not None and not discharge(sc.conditions)[1]:
            # reused for translations only when every side condition is proved by sign facts: sign_of is
            # structural, so it proves the translated conditions alike (which therefore need no record)
            self._proved_shapes.add(key)
        return same

    def _prove_equal(self, a: Poly, b: Poly) -> bool:
        if self.match(a, b):
            return True
        ra = self.rewrite(a)
        assert isinstance(ra, Poly)
        try:
            return equal(ra, b, self.work) is True
        except (ValueError, TypeError, ZeroDivisionError, RecursionError, KeyError, IndexError):
            return False

    # -- rewriting with the substitution ---------------------------------------------------------------

    def rewrite(self, term: Term) -> Term:
        """``term`` with every atom proved equal to a spec atom replaced by it (memoised)."""
        if not self._subst:
            return term
        return _rewrite(term, self._memo, self._keep, lambda atom: self._subst.get(id(atom)), before=True)


class ExtremaSimplifier:
    """Drops a constant from a ``max`` (``min``) that another pair of its arguments dominates:
    ``max(c, ..., t, -t, ...)`` is ``max(..., t, -t, ...)`` when ``c <= 0``, because ``max(t, -t) >= 0``
    (``min`` with ``c >= 0`` alike). The ``|x|`` maximum started at ``0.0f`` is the spec's ``amax(abs(x))``."""

    def __init__(self) -> None:
        self._memo: dict[int, object] = {}
        self._keep: list[object] = []

    def simplify(self, term: Term) -> Term:
        return _rewrite(term, self._memo, self._keep, _dominated)


class DerivedUnfolder:
    """Writes a sum built from a large shared sum as ``k * [base] + delta`` with ``base`` kept as one factor.

    A kernel computes ``x[j] - mean`` for every ``j``: as a term, each is a sum of ``d + 1`` monomials
    (derived from ``mean`` in constant time, but flat), so every output element differs from the spec's
    ``x[j]*r - mean*r`` by an expansion of size ``d``. Unfolded, ``x[j] - mean`` is ``x[j] - 1/d * [S]``
    with ``[S]`` the row's sum as a single factor, the same object for the kernel and the spec: the element
    compares in constant time. Sound: the unfolded sum is the same polynomial, written with a factor.
    """

    #: Follow a derivation only while the accumulated difference stays this small (monomials).
    MAX_DELTA = 8
    #: Unfold only sums at least this large (smaller ones compare cheaply anyway).
    MIN_BASE = 16

    def __init__(self) -> None:
        self._memo: dict[int, object] = {}
        self._keep: list[object] = []

    def simplify(self, term: Term) -> Term:
        return _rewrite(term, self._memo, self._keep, self._unfold, before=True)

    def _unfold(self, atom: Atom) -> Atom | Poly | None:
        if not isinstance(atom, Poly):
            return None
        base = getattr(atom, "_base", None)
        if base is None:
            return None
        k: Fraction = atom._k
        delta = atom._delta if atom._delta is not None else tm.ZERO
        while getattr(base, "_base", None) is not None:
            step = base._delta if base._delta is not None else tm.ZERO
            if step._n > self.MAX_DELTA:
                break
            delta = tm.add(delta, tm.mul(tm.const(k), step))
            k = k * base._k
            base = base._base
        if base._n < self.MIN_BASE or delta._n > self.MAX_DELTA:
            return None
        lead, monic = tm._monic(base)
        return tm.add(tm._from_factors(k * lead, {monic: 1}), delta)


def _dominated(atom: Atom) -> Atom | Poly | None:
    if not isinstance(atom, Max | Min) or len(atom.args) < 3:
        return None
    consts = [a for a in atom.args if a.is_const]
    if len(consts) != 1:
        return None
    c = consts[0].const
    if (isinstance(atom, Max) and c > 0) or (isinstance(atom, Min) and c < 0):
        return None
    rest = [a for a in atom.args if not a.is_const]
    ids = {id(a) for a in rest}
    if not any(id(tm.neg(a)) in ids for a in rest):
        return None
    return (tm.maximum if isinstance(atom, Max) else tm.minimum)(*rest)


def _rewrite(
    term: Term,
    memo: dict[int, object],
    keep: list[object],
    replace: Callable[[Atom], Atom | Poly | None],
    *,
    before: bool = False,
) -> Term:
    """``term`` rebuilt bottom-up with ``replace(atom)`` (or the atom) for every atom (memoised in ``memo``,
    whose keys' nodes ``keep`` holds alive). ``before``: try ``replace`` on a node before its children, and
    do not descend into a node it replaces (a replacement is final; large sums are never materialised)."""
    if id(term) in memo:
        return memo[id(term)]  # type: ignore[return-value]
    # post-order over the nodes not rewritten yet (a row's shared sub-terms are visited once)
    stack: list[tuple[object, bool]] = [(term, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in memo:
            continue
        if not done and before and isinstance(node, _ATOMS):
            sub0 = replace(node)
            if sub0 is not None:
                memo[id(node)] = sub0
                keep.append(node)
                continue
        if done:
            rebuilt = _rebuild(node, memo)
            sub = None
            if not before:
                sub = replace(node) if isinstance(node, _ATOMS) else None
                if sub is None and rebuilt is not node and isinstance(rebuilt, _ATOMS):
                    sub = replace(rebuilt)
            memo[id(node)] = rebuilt if sub is None else sub
            keep.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in _derivation_children(node) if id(c) not in memo)
    return memo[id(term)]  # type: ignore[return-value]


_ATOMS = (Poly, Elem, Read, App, Max, Min, Select)


def _as_poly(x: object) -> Poly:
    return x if isinstance(x, Poly) else tm._atom_poly(x)  # type: ignore[arg-type]


def _rebuild(node: object, memo: dict[int, object]) -> object:
    match node:
        case Poly() if node._base is not None:  # a derived sum: rebuilt from its derivation, not materialised
            base = memo[id(node._base)]
            delta = memo[id(node._delta)] if node._delta is not None else None
            if base is node._base and delta is node._delta:
                return node
            rebuilt = tm.mul(tm.const(node._k), _as_poly(base))
            return rebuilt if delta is None else tm.add(rebuilt, _as_poly(delta))
        case Poly():
            if not any(memo[id(a)] is not a for m, _ in node.terms for a, _ in m.factors):
                return node
            parts = [tm.const(node.const)]
            for mono, k in node.terms:
                prod = tm.const(k)
                for atom, e in mono.factors:
                    prod = tm.mul(prod, tm.power(_as_poly(memo[id(atom)]), e))
                parts.append(prod)
            return tm.add(*parts)
        case Elem() | BoolConst():
            return node
        case Read():
            idx = memo[id(node.index)]
            return node if idx is node.index else _first(tm.read(node.tensor, _as_poly(idx)))
        case App():
            args = [memo[id(a)] for a in node.args]
            if all(x is y for x, y in zip(args, node.args, strict=True)):
                return node
            return _first(tm.apply(node.fn, *(_as_poly(a) for a in args)))
        case Max() | Min():
            args = [memo[id(a)] for a in node.args]
            if all(x is y for x, y in zip(args, node.args, strict=True)):
                return node
            fn = tm.maximum if isinstance(node, Max) else tm.minimum
            return _first(fn(*(_as_poly(a) for a in args)))
        case Select():
            c, x, y = memo[id(node.cond)], memo[id(node.then)], memo[id(node.other)]
            if c is node.cond and x is node.then and y is node.other:
                return node
            return _first(tm.select(c, _as_poly(x), _as_poly(y)))  # type: ignore[arg-type]
        case Cmp():
            lhs = memo[id(node.lhs)]
            return node if lhs is node.lhs else tm._cmp(node.op, _as_poly(lhs))
        case And() | Or():
            args = [memo[id(a)] for a in node.args]
            if all(x is y for x, y in zip(args, node.args, strict=True)):
                return node
            fn2 = tm.logical_and if isinstance(node, And) else tm.logical_or
            out: BoolTerm = fn2(*args)  # type: ignore[arg-type]
            return out
        case _:
            raise TypeError(f"not a term node: {node!r}")


def translation_key(a: Term, b: Term) -> bytes | None:
    """A fingerprint of the pair ``(a, b)`` up to a translation of each input tensor's element indices (the
    least index the pair reads of a tensor counts as 0: row ``k`` of a row-major tensor reads as row 0);
    ``None`` when the pair reads a tensor at a data-dependent index.

    The fingerprint is a hash over the terms' structure in which a sum built incrementally is described by
    its derivation (``k * base + delta``) and any other sum by the set of its monomials, so computing it costs
    the size of the derivation graph (linear in a row, even where each materialised sum is a row long).
    Equal fingerprints mean the pairs denote the same functions up to that injective renaming of the inputs,
    so an identity ``a == b`` proved for one (for all inputs) holds for the other.
    """
    offsets: dict[str, int] = {}
    nodes = list(tm._post_order([a, b], _derivation_children))
    for node in nodes:
        if isinstance(node, Read):
            return None
        if isinstance(node, Elem):
            offsets[node.tensor] = min(offsets.get(node.tensor, node.index), node.index)
    h: dict[int, bytes] = {}

    def digest(*parts: object) -> bytes:
        return hashlib.blake2b(repr(parts).encode(), digest_size=16).digest()

    for node in nodes:
        match node:
            case Poly() if node._base is not None:
                delta = h[id(node._delta)] if node._delta is not None else b""
                h[id(node)] = digest("D", node._k, h[id(node._base)], delta)
            case Poly():
                monos = sorted(digest(k, tuple(sorted((h[id(x)], e) for x, e in m.factors))) for m, k in node.terms)
                h[id(node)] = digest("P", node.const, tuple(monos))
            case Elem():
                h[id(node)] = digest("E", node.tensor, node.index - offsets[node.tensor])
            case App():
                h[id(node)] = digest("A", node.fn.value, tuple(h[id(x)] for x in node.args))
            case Max() | Min():
                h[id(node)] = digest(type(node).__name__, tuple(sorted(h[id(x)] for x in node.args)))
            case Select():
                h[id(node)] = digest("S", h[id(node.cond)], h[id(node.then)], h[id(node.other)])
            case BoolConst():
                h[id(node)] = digest("B", node.value)
            case Cmp():
                h[id(node)] = digest("C", node.op.value, h[id(node.lhs)])
            case And() | Or():
                h[id(node)] = digest(type(node).__name__, tuple(sorted(h[id(x)] for x in node.args)))
            case _:
                raise TypeError(f"not a term node: {node!r}")
    return digest(h[id(a)], h[id(b)])


def _derivation_children(node: object) -> tuple[object, ...]:
    if isinstance(node, Poly) and node._base is not None:
        return (node._base,) if node._delta is None else (node._base, node._delta)
    return tm._children(node)


def _first(p: Poly) -> object:
    """The atom of a one-atom Poly (the rebuilt form of an atom), else the Poly."""
    if not p.const and len(p.terms) == 1:
        mono, k = p.terms[0]
        if k == 1 and len(mono.factors) == 1 and mono.factors[0][1] == 1:
            return mono.factors[0][0]
    return p


def _top_atoms(p: Poly) -> list[Atom]:
    seen: dict[int, Atom] = {}
    for mono, _ in p.terms:
        for atom, _ in mono.factors:
            seen.setdefault(id(atom), atom)
    return list(seen.values())


def _same_kind(a: Atom, b: Atom) -> bool:
    if isinstance(a, App) and isinstance(b, App):
        return a.fn is b.fn and len(a.args) == len(b.args)
    if isinstance(a, Poly) and isinstance(b, Poly):
        return True
    return (isinstance(a, Max) and isinstance(b, Max)) or (isinstance(a, Min) and isinstance(b, Min))
