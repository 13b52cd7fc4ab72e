"""The exact-arithmetic term language shared by the spec evaluator, the symbolic prover and the Lean lowering.

A *term* denotes one real number (or one truth value) as an expression over the elements of named input
tensors. The reference's symbolic evaluator produces one term per output element; the symbolic prover
executes a kernel into the same terms; the two are compared element by element.

Representation, in brief (``docs/reference.md`` has the long form and the soundness caveats):

* Every real-valued term is a :class:`Poly`: an exact rational constant plus a sum of monomials with
  :class:`~fractions.Fraction` coefficients. A :class:`Monomial` is a product of *atoms* raised to nonzero
  integer powers (negative powers are division). Atoms are input elements (:class:`Elem`), data-dependent
  reads (:class:`Read`), function applications (:class:`App`: ``exp``, ``log``, ``sqrt``, ``tanh``,
  ``erf``, ... and the named constants ``pi`` and ``ln2``), :class:`Max`, :class:`Min`, :class:`Select`
  (if-then-else) and sums that were kept factored (a :class:`Poly` used as a factor, e.g. the denominator of
  softmax).
* Truth values are :class:`BoolConst`, :class:`Cmp` (``p < 0``, ``p <= 0``, ``p == 0``, ``p != 0`` for a
  polynomial ``p``), :class:`And` and :class:`Or`; negation is pushed into comparisons, so there is no
  ``Not`` node.
* Nodes are **hash-consed**: the constructor functions of this module (:func:`const`, :func:`elem`,
  :func:`add`, :func:`mul`, ...; also the ``+ - * / **`` operators of :class:`Poly`) intern every node, so
  two terms are structurally equal exactly when they are the same object, and equality and hashing are
  O(1). Never call the node classes directly.
* The polynomial part is kept in a **canonical normal form**: monomials sorted by a deterministic
  structural key, like monomials merged, zero coefficients dropped, factored sums made monic. Products of
  sums are multiplied out while the result has at most :data:`EXPAND_LIMIT` monomials, so algebraically
  equal polynomials of moderate size are the same object (``(a+b)*(a-b) is a*a - b*b``); larger products
  stay factored (``(x - mean)**2`` over a 1000-element row), which keeps reductions of thousands of terms
  cheap. :func:`larkc.symbolic.normal.normal_form` (and :func:`expand`) multiplies everything out for a full
  canonical form, and :func:`larkc.symbolic.normal.equal` decides equality without always doing so.
* **Rules for the functions**, applied by the constructors so that they hold structurally (every one is an
  identity of real functions; the ones valid only on part of the domain record a side condition, see
  :mod:`larkc.symbolic.conditions`): a monomial holds at most one ``exp`` atom: ``exp(a)*exp(b) = exp(a+b)``,
  ``exp(a)**k = exp(k*a)``, ``1/exp(a) = exp(-a)``, ``exp(0) = 1``; ``exp(k*ln2 + r) = 2**k * exp(r)``;
  ``exp(k*log(v) + r) = v**k * exp(r)`` (``v > 0``); ``log(exp(x)) = x``, ``log(2**k * q) = k*ln2 + log(q)``;
  ``exp2(x) = exp(x*ln2)``, ``log2(x) = log(x)/ln2``, ``c**y = exp(y*log(c))`` for a positive constant
  ``c``; ``sqrt`` of a rational is a rational times square roots of primes (``sqrt(1/2) = sqrt(2)/2``),
  ``sqrt`` of a product splits off its positive constants (``sqrt(2/pi) = sqrt(2) * sqrt(pi) / pi``), and a
  square root of a positive constant has the exponent 0 or 1 (``1/sqrt(2) = sqrt(2)/2``);
  ``sqrt(v)**2 = v`` (``v >= 0``).

**Sums are persistent.** Building a sum one ``+`` at a time (``acc = acc + x_i``) must cost O(1) per step,
not O(length), or accumulation loops are quadratic. A large :class:`Poly` therefore does not always hold its
sorted tuple of terms: it can be *derived*, ``k * base + delta`` for a large ``base`` and a small ``delta``,
with its coefficients in a dictionary shared by all the versions derived from one another (Baker's trick:
the dictionary holds one version's coefficients, every other version holds the changes that lead to a
neighbour, and reading a version first reverses the changes on the path to it). Each version's stored
values are scaled by a per-version factor, so scaling a sum (``neg``, making it monic) is O(1) too. The
sorted tuple :attr:`Poly.terms` is built on first use and cached. Interning needs a key computable in
O(size of delta): a Poly's *fingerprint* is the linear function ``const*H + sum(coefficient * h(monomial))``
over the field of integers modulo the prime ``2**127 - 1`` (``h`` a pseudo-random hash of the monomial's
structure), so a derived sum's fingerprint is ``k * fingerprint(base) + fingerprint(delta)``. The intern
table maps fingerprints to Polys and every hit is verified exactly (O(1) when the hit was derived from the
same base and delta, one pass over the coefficients otherwise): two Polys are the same object exactly when
they have the same constant and the same coefficients, whatever the fingerprints do. A derived sum keeps
its derivation, which the normal form uses to substitute shared sub-sums once.

**Side conditions.** Interning means that the *first* construction of a term creates its node; a later
construction returns that node. The rules valid only on part of the domain therefore record their
conditions per call, not per node (see :mod:`larkc.symbolic.conditions`): every call inside a
``side_conditions()`` block reports, whether or not the node it returns is new.

Conversions: :func:`to_sympy`, :class:`Z3Converter` (z3 ``Real``; functions uninterpreted), and
:func:`evaluate` (float64 on concrete inputs, to cross-check against the numeric evaluator).

Terms are built on one thread: reading a derived sum reorganises its shared coefficient table, and the
intern tables and the side-condition collectors are process-wide.
"""

from __future__ import annotations

import bisect
import enum
import gc
import hashlib
import math
import operator
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, assert_never

import numpy as np

from larkc.symbolic.conditions import _ACTIVE, Requirement, SideCondition, record, replay, side_conditions

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "EXPAND_LIMIT",
    "FALSE",
    "LN2",
    "ONE",
    "PI",
    "TRUE",
    "ZERO",
    "And",
    "App",
    "Atom",
    "BoolConst",
    "BoolTerm",
    "Cmp",
    "CmpOp",
    "Elem",
    "Fn",
    "Max",
    "Min",
    "Monomial",
    "Or",
    "Poly",
    "Read",
    "Select",
    "Term",
    "Z3Converter",
    "add",
    "apply",
    "built_from",
    "compare",
    "const",
    "div",
    "dot",
    "elem",
    "elements_of",
    "evaluate",
    "expand",
    "gc_paused",
    "logical_and",
    "logical_not",
    "logical_or",
    "maximum",
    "minimum",
    "mul",
    "neg",
    "power",
    "products_memoised",
    "read",
    "recip",
    "select",
    "sub",
    "tensors_of",
    "to_sympy",
]

#: Products of sums are multiplied out only while the result has at most this many monomials; larger
#: products stay factored. :func:`expand` lifts the limit.
EXPAND_LIMIT = 64

# the limit in force, in a cell so that the normal form can lift it while it rebuilds a term
_limit_cell = [EXPAND_LIMIT]

# A sum with at least this many monomials is extended by derivation (O(size of the change)) rather than
# rebuilt; smaller sums are rebuilt, which is as fast and keeps their terms tuple at hand.
_DERIVE_MIN = 16
# A derivation chain's scale factor is rebuilt away once its numerator and denominator exceed this many
# bits (long chains of scalings by binary fractions would otherwise grow every stored coefficient).
_SCALE_BITS = 512


class Fn(enum.Enum):
    """A scalar function applied by :class:`App`. The value is the printed name.

    For the provers these are uninterpreted (z3 ``Function``s) except where noted; :func:`evaluate` and
    :func:`to_sympy` give them their usual meaning. Every member has an entry in :data:`_ARITY`,
    :data:`_FLOAT_FN`, :func:`_sympy_fns` and :data:`_Z3_CONSTANT` or is converted to an uninterpreted
    z3 function (a test checks the tables).
    """

    EXP = "exp"  # e ** x
    LOG = "log"  # natural logarithm (x > 0)
    SQRT = "sqrt"  # non-negative square root (x >= 0); 1/sqrt(x) is sqrt(x) ** -1
    TANH = "tanh"  # hyperbolic tangent
    ERF = "erf"  # the Gauss error function
    SIN = "sin"  # sine (radians)
    COS = "cos"  # cosine (radians)
    POW = "pow"  # x ** y for an exponent that is not an integer constant (x > 0 assumed)
    TRUNC = "trunc"  # rounding toward zero (float to integer casts)
    PI = "pi"  # the constant π (no arguments)
    LN2 = "ln2"  # the constant ln 2 (no arguments); log2(e) is ln2 ** -1
    EXP2 = "exp2"  # 2 ** x; apply() rewrites it to exp(x * ln2), so no stored term holds it
    LOG2 = "log2"  # base-2 logarithm; apply() rewrites it to log(x) / ln2, so no stored term holds it


#: The number of arguments of each function.
_ARITY: dict[Fn, int] = {
    Fn.EXP: 1,
    Fn.LOG: 1,
    Fn.SQRT: 1,
    Fn.TANH: 1,
    Fn.ERF: 1,
    Fn.SIN: 1,
    Fn.COS: 1,
    Fn.POW: 2,
    Fn.TRUNC: 1,
    Fn.PI: 0,
    Fn.LN2: 0,
    Fn.EXP2: 1,
    Fn.LOG2: 1,
}


class CmpOp(enum.Enum):
    """The relation of a :class:`Cmp` between its polynomial and zero. The value is the printed symbol."""

    EQ = "=="  # p == 0
    NE = "!="  # p != 0
    LT = "<"  # p < 0
    LE = "<="  # p <= 0


# Interning, fingerprints ----------------------------------------------------------------------------

_Key: TypeAlias = tuple[Any, ...]
_K = TypeVar("_K")
_V = TypeVar("_V")


class _WeakTable(Generic[_K, _V]):
    """A dictionary of weak references to its values: an entry goes when its value dies. Like
    :class:`weakref.WeakValueDictionary`, at a quarter of the cost per insertion (every node is inserted)."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data: dict[_K, weakref.ref[Any]] = {}

    def get(self, key: _K) -> _V | None:
        ref = self._data.get(key)
        return None if ref is None else ref()

    def __setitem__(self, key: _K, value: _V) -> None:
        data = self._data

        def gone(ref: weakref.ref[Any], key: _K = key) -> None:
            if data.get(key) is ref:
                del data[key]

        data[key] = weakref.ref(value, gone)

    def __contains__(self, key: _K) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return len(self._data)


_TABLE: _WeakTable[_Key, Any] = _WeakTable()

# Ranks order atoms of different kinds in the structural key (and so in the printed normal form).
_R_ELEM, _R_READ, _R_APP, _R_MAX, _R_MIN, _R_SELECT, _R_POLY = range(7)
_R_BCONST, _R_CMP, _R_AND, _R_OR = range(7, 11)

# n-ary nodes with more arguments than this are keyed by fingerprint instead of by their arguments' keys
_STRUCTURAL_ARGS = 8

#: The prime modulus of fingerprints (a Mersenne prime: 127 bits).
_P = (1 << 127) - 1


def _hash_bytes(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big") % _P


_STR_HASH: dict[str, int] = {}


def _shash(text: str) -> int:
    h = _STR_HASH.get(text)
    if h is None:
        h = _hash_bytes(text.encode())
        _STR_HASH[text] = h
    return h


_MIX = _shash("larkc.mix") | 1
_H_CONST = _shash("larkc.const")
_H_MONO = _shash("larkc.monomial")
_H_EXPONENT = _shash("larkc.exponent")
_H_SET = _shash("larkc.set")


def _mix(*xs: int) -> int:
    """A deterministic pseudo-random combination of fingerprints (order matters)."""
    acc = _MIX
    for x in xs:
        acc = (acc * _MIX + x) % _P
    return (acc * acc + acc * _H_MONO + 1) % _P


def _set_part(fp: int) -> int:
    """The contribution of one element to an order-free (set) fingerprint: a sum of these, then mixed."""
    return pow(fp + _H_SET, 3, _P)


_INVERSES: dict[int, int] = {}


def _qh(q: Fraction) -> int:
    """The image of a rational in the integers modulo :data:`_P` (a ring homomorphism on the rationals whose
    denominators are prime to ``_P``)."""
    n, d = q.numerator, q.denominator
    if d == 1:
        return n % _P
    inv = _INVERSES.get(d)
    if inv is None:
        if d % _P == 0:
            raise ValueError(f"the constant {q} has a denominator divisible by 2**127 - 1")
        inv = pow(d, -1, _P)
        if len(_INVERSES) < 1 << 14:
            _INVERSES[d] = inv
    return n * inv % _P


def _interned(ident: _Key, make: Callable[[], Any]) -> Any:
    node = _TABLE.get(ident)
    if node is None:
        node = make()
        _TABLE[ident] = node
    return node


# Nodes ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Elem:
    """Element ``index`` (row-major flat index) of the input tensor ``tensor``."""

    tensor: str
    index: int
    key: _Key = field(compare=False)
    fp: int = field(compare=False)

    def __str__(self) -> str:
        return f"{self.tensor}[{self.index}]"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Read:
    """Element ``index`` of input tensor ``tensor`` where the index is itself a term (gather, embedding).

    The index term has integer values; a constant index is always an :class:`Elem` instead.
    """

    tensor: str
    index: Poly
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)  # derived values computed on first use

    def __str__(self) -> str:
        return f"{self.tensor}[{self.index}]"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class App:
    """The function ``fn`` applied to ``args``."""

    fn: Fn
    args: tuple[Poly, ...]
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        if not self.args:
            return self.fn.value
        return f"{self.fn.value}({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Max:
    """The largest of two or more terms (sorted, without duplicates, at most one constant)."""

    args: tuple[Poly, ...]
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    set_sum: int = field(compare=False)  # the sum of the arguments' set parts (to extend in O(1))
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        return f"max({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Min:
    """The smallest of two or more terms (sorted, without duplicates, at most one constant)."""

    args: tuple[Poly, ...]
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    set_sum: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        return f"min({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Select:
    """``then`` where ``cond`` holds, ``other`` elsewhere (``torch.where``, ``relu``'s derivative, ...)."""

    cond: BoolTerm
    then: Poly
    other: Poly
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        return f"select({self.cond}, {self.then}, {self.other})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Monomial:
    """A product of atoms raised to nonzero integer powers, sorted by the atoms' structural keys."""

    factors: tuple[tuple[Atom, int], ...]
    key: _Key = field(compare=False)
    h: int = field(compare=False)  # the pseudo-random hash of the structure that sums' fingerprints use
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        parts = []
        for atom, e in self.factors:
            text = f"({atom})" if isinstance(atom, Poly) else str(atom)
            parts.append(text if e == 1 else f"{text}^{e}")
        return "*".join(parts)

    __repr__ = __str__


_Changes: TypeAlias = tuple[tuple["Monomial", Fraction | None], ...]


class _Version:
    """One version of a persistent map from monomials to stored coefficients (see the module doc).

    ``link`` is the shared dictionary when this version is the root, else ``(changes, neighbour)``: this
    version's content is the neighbour's with each ``(monomial, stored value or None)`` of ``changes`` set.
    """

    __slots__ = ("link",)

    def __init__(self, link: dict[Monomial, Fraction] | tuple[_Changes, _Version]) -> None:
        self.link = link


def _reroot(version: _Version) -> dict[Monomial, Fraction]:
    """Make ``version`` the root of its tree (reversing the changes on the path) and return the dictionary."""
    link = version.link
    if isinstance(link, dict):
        return link
    path = []
    while not isinstance(link, dict):
        path.append(version)
        version = link[1]
        link = version.link
    table = link
    for step in reversed(path):
        step_link = step.link
        assert not isinstance(step_link, dict)
        changes, root = step_link
        root.link = (_apply_changes(table, changes), step)
        step.link = table
    return table


def _apply_changes(table: dict[Monomial, Fraction], changes: Iterable[tuple[Monomial, Fraction | None]]) -> _Changes:
    """Set each ``(monomial, stored value or None)`` of ``changes`` in ``table``; the changes that undo it."""
    undo = []
    for m, c in changes:
        undo.append((m, table.get(m)))
        if c is None:
            table.pop(m, None)
        else:
            table[m] = c
    return tuple(undo)


class Poly:
    """A real-valued term: ``const`` plus the sum of ``coefficient * monomial`` over ``terms``.

    ``terms`` is sorted by the monomials' structural keys and has no zero coefficient. Supports
    ``+ - * /`` and ``**`` (integer exponents) with other :class:`Poly` terms, ints and Fractions.

    Immutable once built; not a dataclass because large sums fill in ``terms`` lazily (a derived sum holds
    ``k * base + delta`` and a version of a shared coefficient table, see the module doc).
    """

    __slots__ = (
        "__weakref__",
        "_base",
        "_cache",
        "_delta",
        "_k",
        "_key",
        "_lead",
        "_lead_c",
        "_n",
        "_scale",
        "_terms",
        "_ver",
        "const",
        "fp",
    )

    const: Fraction
    fp: int  # the linear fingerprint (see the module doc)
    _n: int  # the number of monomials
    _terms: tuple[tuple[Monomial, Fraction], ...] | None
    _ver: _Version | None
    _scale: Fraction  # the coefficient of a monomial is _scale * its stored value in _ver
    _lead: Monomial | None  # the first monomial (None: no monomial, or not known yet)
    _lead_c: Fraction | None  # its coefficient (None: not known yet)
    _base: Poly | None  # derivation: self == _k * _base + _delta
    _k: Fraction
    _delta: Poly | None
    _key: _Key | None
    _cache: dict[str, Any]

    def __init__(
        self,
        const: Fraction,
        n: int,
        fp: int,
        terms: tuple[tuple[Monomial, Fraction], ...] | None,
        ver: _Version | None,
        scale: Fraction,
        lead: Monomial | None,
        base: Poly | None,
        k: Fraction,
        delta: Poly | None,
    ) -> None:
        self.const = const
        self.fp = fp
        self._n = n
        self._terms = terms
        self._ver = ver
        self._scale = scale
        self._lead = lead
        self._lead_c = None
        self._base = base
        self._k = k
        self._delta = delta
        self._key = None
        self._cache = {}

    @property
    def terms(self) -> tuple[tuple[Monomial, Fraction], ...]:
        """The ``(monomial, coefficient)`` pairs, sorted by the monomials' keys."""
        t = self._terms
        if t is None:
            t = _materialise(self)
        return t

    @property
    def key(self) -> _Key:
        """The structural sort key: a lone atom's own key, else ``(rank, fingerprint)``, so that comparing two
        large sums costs O(1)."""
        key = self._key
        if key is None:
            atom = _lone_atom(self)
            key = atom.key if atom is not None else (_R_POLY, self.fp)
            self._key = key
        return key

    @property
    def is_const(self) -> bool:
        return not self._n

    @property
    def size(self) -> int:
        """The number of summands (monomials, plus one for a nonzero constant)."""
        return self._n + (1 if self.const else 0)

    def __str__(self) -> str:
        if not self._n:
            return _fmt_number(self.const)
        out: list[str] = []
        for mono, c in self.terms:
            sign = "-" if c < 0 else "+"
            mag = -c if c < 0 else c
            body = str(mono) if mag == 1 else f"{_fmt_number(mag)}*{mono}"
            out.append(f"{sign} {body}" if out else (f"-{body}" if sign == "-" else body))
        if self.const:
            out.append(f"- {_fmt_number(-self.const)}" if self.const < 0 else f"+ {_fmt_number(self.const)}")
        return " ".join(out)

    __repr__ = __str__

    def __add__(self, other: Poly | int | Fraction) -> Poly:
        return add(self, _lift(other))

    def __radd__(self, other: int | Fraction) -> Poly:
        return add(_lift(other), self)

    def __sub__(self, other: Poly | int | Fraction) -> Poly:
        return sub(self, _lift(other))

    def __rsub__(self, other: int | Fraction) -> Poly:
        return sub(_lift(other), self)

    def __mul__(self, other: Poly | int | Fraction) -> Poly:
        return mul(self, _lift(other))

    def __rmul__(self, other: int | Fraction) -> Poly:
        return mul(_lift(other), self)

    def __truediv__(self, other: Poly | int | Fraction) -> Poly:
        return div(self, _lift(other))

    def __rtruediv__(self, other: int | Fraction) -> Poly:
        return div(_lift(other), self)

    def __neg__(self) -> Poly:
        return neg(self)

    def __pow__(self, exponent: int) -> Poly:
        return power(self, exponent)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class BoolConst:
    """A truth value known exactly."""

    value: bool
    key: _Key = field(compare=False)
    fp: int = field(compare=False)

    def __str__(self) -> str:
        return "true" if self.value else "false"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Cmp:
    """``lhs op 0``. Canonical: ``lhs`` is non-constant and its leading coefficient is 1 (``EQ``/``NE``)
    or ±1 (``LT``/``LE``); ``a > b`` is stored as ``b - a < 0``."""

    op: CmpOp
    lhs: Poly
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        pos = _poly_from(
            self.lhs.const if self.lhs.const > 0 else Fraction(0),
            {m: c for m, c in self.lhs.terms if c > 0},
        )
        negative = _poly_from(
            -self.lhs.const if self.lhs.const < 0 else Fraction(0),
            {m: -c for m, c in self.lhs.terms if c < 0},
        )
        return f"({pos} {self.op.value} {negative})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class And:
    """All of two or more truth values (flattened, sorted, without duplicates or constants)."""

    args: tuple[BoolTerm, ...]
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        return "(" + " and ".join(str(a) for a in self.args) + ")"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Or:
    """Any of two or more truth values (flattened, sorted, without duplicates or constants)."""

    args: tuple[BoolTerm, ...]
    key: _Key = field(compare=False)
    fp: int = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)

    def __str__(self) -> str:
        return "(" + " or ".join(str(a) for a in self.args) + ")"

    __repr__ = __str__


Atom = Elem | Read | App | Max | Min | Select | Poly
BoolTerm = BoolConst | Cmp | And | Or
Term = Poly | BoolTerm


def _fmt_number(q: Fraction) -> str:
    """Integers plainly, binary fractions from float constants as the float, others as ``p/q``."""
    if q.denominator == 1:
        return str(q.numerator)
    den = q.denominator
    if den & (den - 1) == 0 and den > 1024:
        f = float(q)
        if math.isfinite(f) and Fraction(f) == q:
            return repr(f)
    return f"{q.numerator}/{q.denominator}"


# Sums: interning, derivation, materialisation -------------------------------------------------------

_F0 = Fraction(0)
_F1 = Fraction(1)
_KEY = operator.attrgetter("key")


def _item_key(item: tuple[Monomial, Fraction]) -> _Key:
    return item[0].key


def _factor_key(item: tuple[Atom, int]) -> _Key:
    return item[0].key


# fingerprint -> Poly; the rare second Poly of a fingerprint goes to the overflow lists
_POLYS: _WeakTable[int, Poly] = _WeakTable()
_POLY_OVERFLOW: dict[int, list[weakref.ref[Poly]]] = {}


def _find_poly(fp: int, matches: Callable[[Poly], bool]) -> Poly | None:
    p = _POLYS.get(fp)
    if p is not None and matches(p):
        return p
    refs = _POLY_OVERFLOW.get(fp)
    if refs:
        live = [r for r in refs if r() is not None]
        if len(live) != len(refs):
            _POLY_OVERFLOW[fp] = live
        for r in live:
            q = r()
            if q is not None and matches(q):
                return q
    return None


def _store_poly(p: Poly) -> Poly:
    if _POLYS.get(p.fp) is None:
        _POLYS[p.fp] = p
    else:
        _POLY_OVERFLOW.setdefault(p.fp, []).append(weakref.ref(p))
    return p


def _fingerprint(c: Fraction, items: Iterable[tuple[Monomial, Fraction]]) -> int:
    fp = _qh(c) * _H_CONST
    for m, k in items:
        fp += _qh(k) * m.h
    return fp % _P


def _poly_sorted(c: Fraction, items: tuple[tuple[Monomial, Fraction], ...]) -> Poly:
    """The interned Poly ``c + sum(items)``; ``items`` sorted by key, without zero coefficients."""
    fp = _fingerprint(c, items)
    n = len(items)

    def matches(p: Poly) -> bool:
        return p._n == n and p.const == c and p.terms == items

    found = _find_poly(fp, matches)
    if found is not None:
        return found
    p = _store_poly(Poly(c, n, fp, items, None, _F1, items[0][0] if items else None, None, _F1, None))
    if items:
        p._lead_c = items[0][1]
    if n >= _DERIVE_MIN:
        _link_multiple(p, items[0][1])
    return p


def _store_of(p: Poly) -> dict[Monomial, Fraction]:
    """``p``'s coefficient table (values scaled by ``p._scale``), made the root of its version tree."""
    ver = p._ver
    if ver is None:
        terms = p._terms
        assert terms is not None
        table = dict(terms)
        p._ver = _Version(table)
        p._scale = _F1
        return table
    return _reroot(ver)


def _materialise(p: Poly) -> tuple[tuple[Monomial, Fraction], ...]:
    table = _store_of(p)
    items = sorted(table.items(), key=_item_key)
    s = p._scale
    terms = tuple(items) if s == 1 else tuple((m, c * s) for m, c in items)
    p._terms = terms
    if terms:
        p._lead, p._lead_c = terms[0]
    return terms


def _coeff(p: Poly, m: Monomial) -> Fraction:
    """The coefficient of ``m`` in ``p`` (0 when absent)."""
    terms = p._terms
    if terms is not None and len(terms) <= 8:
        for mm, c in terms:
            if mm is m:
                return c
        return _F0
    v = _store_of(p).get(m)
    return _F0 if v is None else v * p._scale


def _lead_of(p: Poly) -> Monomial:
    """The first monomial of a non-constant ``p``."""
    lead = p._lead
    if lead is None:
        if p._terms is not None:
            lead = p._terms[0][0]
        else:
            lead = min(_store_of(p), key=_KEY)
        p._lead = lead
    return lead


def _lead_coeff(p: Poly) -> Fraction:
    """The coefficient of the first monomial of a non-constant ``p`` (O(1) when tracked)."""
    c = p._lead_c
    if c is None:
        c = p._lead_c = _coeff(p, _lead_of(p))
    return c


def _derive(base: Poly, k: Fraction, delta: Poly) -> Poly:
    """The interned Poly ``k * base + delta`` (``k`` nonzero), built in O(size of delta) by extending
    ``base``'s version tree."""
    dterms = delta.terms
    table = _store_of(base)
    sb = base._scale
    s = sb * k
    if s.numerator.bit_length() + s.denominator.bit_length() > _SCALE_BITS:
        return _rebuilt(base, k, delta)
    n = base._n
    fp = (base.fp if k == 1 else _qh(k) * base.fp) + (_qh(delta.const) * _H_CONST if delta.const else 0)
    changes: list[tuple[Monomial, Fraction | None]] = []
    lead = base._lead
    lead_c = None if base._lead_c is None else base._lead_c * k
    lead_lost = False
    unit = s == 1
    for m, c in dterms:
        old = table.get(m)
        if old is None:
            stored: Fraction | None = c if unit else c / s
            n += 1
            if lead is not None and not lead_lost and m.key < lead.key:
                lead, lead_c = m, c
        else:
            stored = old + (c if unit else c / s)
            if not stored:
                stored = None
                n -= 1
                if m is lead:
                    lead_lost = True
            elif m is lead:
                lead_c = stored * s
        changes.append((m, stored))
        fp += _qh(c) * m.h
    fp %= _P
    c0 = base.const * k + delta.const
    if not n:
        return _poly_sorted(c0, ())
    if lead_lost:
        lead = None

    def matches(p: Poly) -> bool:
        if p._n != n or p.const != c0:
            return False
        if p._base is base and p._delta is delta and p._k == k:
            return True
        decided = _related_equal(p, base, k, delta)
        if decided is not None:
            return decided
        terms = p.terms
        table = _store_of(base)
        want = dict(dterms)
        for m, c in terms:
            v = table.get(m)
            if (_F0 if v is None else v * sb * k) + want.get(m, _F0) != c:
                return False
        if p._base is None and "alt" not in p._cache:
            # a sum built from scratch and now also by derivation (a spec's sum that a kernel accumulates):
            # the normal form can use the derivation to link the two (see normal._Work._definition)
            _record_alt(p, base, k, delta)
        return True

    found = _find_poly(fp, matches)
    if found is not None:
        return found
    table = _store_of(base)
    undo = _apply_changes(table, changes)
    version = _Version(table)
    assert base._ver is not None
    base._ver.link = (undo, version)
    p = _store_poly(Poly(c0, n, fp, None, version, s, lead, base, k, delta))
    if lead is not None and lead_c is not None:
        p._lead_c = lead_c
        _link_multiple(p, lead_c)
    return p


# monic fingerprint -> a derived sum of that class (the sums that are multiples of one monic sum)
_MULTIPLES: _WeakTable[int, Poly] = _WeakTable()


def _link_multiple(p: Poly, lead: Fraction) -> None:
    """Record, on a sum built from scratch, that it is a multiple of a derived sum (or the other way round),
    so that the normal form can substitute the derivation for it (``sum(x)`` of a spec and a kernel's
    running ``mean``, in either order of construction). O(1) unless a multiple is found, then one
    comparison of the two."""
    if p.const:
        return
    monic_fp = p.fp if lead == 1 else p.fp * _qh(1 / lead) % _P
    if p._base is not None:
        if monic_fp not in _MULTIPLES:
            _MULTIPLES[monic_fp] = p
        target = _POLYS.get(monic_fp) if lead != 1 else None
        # target == p / lead, if the fingerprints tell the truth: check
        if (
            target is not None
            and target._base is None
            and "alt" not in target._cache
            and _same_content(target, p, 1 / lead)
        ):
            _record_alt(target, p, 1 / lead, ZERO)
        return
    member = _MULTIPLES.get(monic_fp)
    if member is not None and member._n == p._n and "alt" not in p._cache:
        member_lead = _lead_coeff(member)
        if _same_content(p, member, lead / member_lead):
            _record_alt(p, member, lead / member_lead, ZERO)


def _record_alt(target: Poly, base: Poly, k: Fraction, delta: Poly) -> None:
    """Record ``target == k * base + delta`` on a sum that has no derivation of its own, looking through pure
    scalings of ``base`` to a node with a real derivation (a scaling of ``target`` itself says nothing)."""
    if not delta.terms and not delta.const:
        node = base
        while node._base is not None and node._delta is not None and node._delta.is_const and not node._delta.const:
            k, node = k * node._k, node._base
        if node is target or node._base is None:
            return
        base = node
    target._cache["alt"] = (base, k, delta)


def _same_content(p: Poly, q: Poly, k: Fraction) -> bool:
    """Whether ``p == k * q`` (one pass over the coefficients)."""
    if p._n != q._n or p.const != k * q.const:
        return False
    table = _store_of(q)
    s = q._scale * k
    for m, c in p.terms:
        v = table.get(m)
        if v is None or v * s != c:
            return False
    return True


def _collect_deltas(deltas: list[tuple[Fraction, Poly]]) -> tuple[Fraction, dict[Monomial, Fraction]]:
    const = _F0
    acc: dict[Monomial, Fraction] = {}
    for k, d in deltas:
        const += k * d.const
        for m, c in d.terms:
            v = acc.get(m, _F0) + k * c
            if v:
                acc[m] = v
            else:
                acc.pop(m, None)
    return const, acc


def _related_equal(p: Poly, base: Poly, k: Fraction, delta: Poly) -> bool | None:
    """Whether ``p == k * base + delta``, decided in O(small) when both derive from a common ancestor ``c``
    within a few steps: ``p = a*c + r`` and ``k*base + delta = b*c + s`` with ``c`` larger than ``r`` and ``s``
    together are equal exactly when ``a == b`` and ``r == s`` (else ``(a-b)*c = s - r`` would need ``c`` to have
    as few monomials as ``s - r``). None when no such ancestor is found."""
    common = _common_ancestor(p, base, k, [(_F1, delta)], 6)
    if common is None:
        return None
    ancestor, a, da, b, db = common
    if sum(d._n for _, d in da) + sum(d._n for _, d in db) >= ancestor._n:
        return None
    if a != b:
        return False
    return _collect_deltas(da) == _collect_deltas(db)


def _rebuilt(base: Poly, k: Fraction, delta: Poly) -> Poly:
    """``k * base + delta`` built from scratch (a fresh version tree)."""
    acc = {m: c * k for m, c in base.terms}
    for m, c in delta.terms:
        v = acc.get(m, _F0) + c
        if v:
            acc[m] = v
        else:
            acc.pop(m, None)
    return _poly_from(base.const * k + delta.const, acc, nonzero=True)


def _poly_from(c: Fraction, coeffs: Mapping[Monomial, Fraction], *, nonzero: bool = False) -> Poly:
    """The interned Poly ``c + sum(coeffs)``: zero coefficients dropped (unless the caller says there are
    none), monomials sorted."""
    items = sorted(coeffs.items() if nonzero else ((m, k) for m, k in coeffs.items() if k), key=_item_key)
    if not c and len(items) == 1:
        mono, k = items[0]
        if not mono.factors:
            return _poly_sorted(k, ())
        if len(mono.factors) == 1:
            atom, e = mono.factors[0]
            # a factored sum to the first power is the sum itself, multiplied out by the coefficient
            if e == 1 and isinstance(atom, Poly):
                return _scale(atom, k)
    if items and not items[0][0].factors:  # a product whose factors cancelled is a constant
        c = c + items[0][1]  # (the empty monomial has the smallest key, so it comes first)
        items = items[1:]
    return _poly_sorted(c if isinstance(c, Fraction) else Fraction(c), tuple(items))


def _lift(x: Poly | int | Fraction) -> Poly:
    return x if isinstance(x, Poly) else const(x)


def const(value: int | float | Fraction) -> Poly:
    """The exact constant ``value``; floats are converted exactly (``0.1`` is the binary64 value)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"the constant {value} is not a real number")
    return _poly_sorted(Fraction(value), ())


ZERO = const(0)
ONE = const(1)


def _mk_mono(factors: tuple[tuple[Atom, int], ...]) -> Monomial:
    def make() -> Monomial:
        h = _H_MONO
        key = []
        for a, e in factors:
            h = h * _MIX + a.fp * (e * _H_EXPONENT + _MIX)  # reduced once, below: monomials are short
            key.append((a.key, e))
        h %= _P
        return Monomial(factors, tuple(key), (h * h + h) % _P, {})

    return _interned(("mono", factors), make)  # type: ignore[no-any-return]


_EMPTY_MONO = _mk_mono(())


def _atom_poly(atom: Atom) -> Poly:
    if isinstance(atom, Poly):
        return atom
    return _poly_sorted(_F0, ((_mk_mono(((atom, 1),)), _F1),))


def _lone_atom(p: Poly) -> Atom | None:
    """The atom ``p`` is (coefficient 1, exponent 1), if it is one."""
    if p._n != 1 or p.const:
        return None
    m, c = p.terms[0]
    if c != 1 or len(m.factors) != 1 or m.factors[0][1] != 1:
        return None
    return m.factors[0][0]


def _elem_fp(tensor: str, index: int) -> int:
    return _hash_bytes(f"elem\0{tensor}\0{index}".encode())


def elem(tensor: str, index: int) -> Poly:
    """Element ``index`` (row-major flat index) of input tensor ``tensor``."""
    atom = _interned(
        (_R_ELEM, tensor, index), lambda: Elem(tensor, index, (_R_ELEM, tensor, index), _elem_fp(tensor, index))
    )
    return _atom_poly(atom)


def read(tensor: str, index: Poly) -> Poly:
    """Element ``index`` of input tensor ``tensor``; an integer constant index gives :func:`elem`."""
    if index.is_const:
        if index.const.denominator != 1:
            raise ValueError(f"index {index} of {tensor} is not an integer")
        return elem(tensor, int(index.const))
    atom = _interned(
        (_R_READ, tensor, index),
        lambda: Read(tensor, index, (_R_READ, tensor, index.key), _mix(_shash(tensor), index.fp), {}),
    )
    return _atom_poly(atom)


def _app_atom(fn: Fn, args: tuple[Poly, ...]) -> App:
    def make() -> App:
        key = (_R_APP, fn.value, tuple(a.key for a in args))
        return App(fn, args, key, _mix(_shash(fn.value), *(a.fp for a in args)), {})

    return _interned((_R_APP, fn, args), make)  # type: ignore[no-any-return]


def _app(fn: Fn, args: tuple[Poly, ...]) -> Poly:
    return _atom_poly(_app_atom(fn, args))


PI = _app(Fn.PI, ())
"""The constant π."""
LN2 = _app(Fn.LN2, ())
"""The constant ln 2 (``log2(e)`` is ``LN2 ** -1``)."""


# Rules for functions --------------------------------------------------------------------------------


def _is_fn(atom: object, fn: Fn) -> bool:
    return type(atom) is App and atom.fn is fn


def _positive_atom(atom: Atom) -> bool:
    """Whether ``atom`` is positive by construction: ``exp(.)``, ``pi``, ``ln2``, ``sqrt`` or ``log > 0`` of
    a positive constant."""
    if type(atom) is not App:
        return False
    fn = atom.fn
    if fn is Fn.EXP or fn is Fn.PI or fn is Fn.LN2:
        return True
    if fn is Fn.SQRT:
        return _positive_constant(atom.args[0])
    if fn is Fn.LOG:
        arg = atom.args[0]
        return arg.is_const and arg.const > 1
    return False


def _positive_constant(p: Poly) -> bool:
    """Whether ``p`` is a positive constant: a positive rational, or a positive multiple of a product of
    positive named constants (``pi``, ``ln2``, square roots of positive constants; not ``exp``)."""
    if p.is_const:
        return p.const > 0
    mono = _as_monomial(p)
    if mono is None or mono[0] <= 0:
        return False
    return all(_positive_atom(a) and not _is_fn(a, Fn.EXP) for a, _ in mono[1].factors)


_SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97)


def _sqrt_rational(q: Fraction) -> Poly:
    """``sqrt(q)`` for ``q >= 0``: a rational times square roots of primes below 100 (and of one cofactor
    without such primes), so that ``sqrt(1/2) = sqrt(2)/2`` and ``sqrt(8) = 2*sqrt(2)``."""
    rn, rd = math.isqrt(q.numerator), math.isqrt(q.denominator)
    if rn * rn == q.numerator and rd * rd == q.denominator:
        return const(Fraction(rn, rd))
    rest = q.numerator * q.denominator  # sqrt(n/d) = sqrt(n*d) / d
    outside = Fraction(1, q.denominator)
    radicands = []
    for p in _SMALL_PRIMES:
        if rest % p:
            continue
        e = 0
        while rest % p == 0:
            rest //= p
            e += 1
        outside *= p ** (e // 2)
        if e % 2:
            radicands.append(p)
    root = math.isqrt(rest)
    if root * root == rest:
        outside *= root
    else:
        radicands.append(rest)
    out = const(outside)
    for r in radicands:
        out = mul(out, _app(Fn.SQRT, (const(r),)))
    return out


def _sqrt_poly(y: Poly) -> Poly:
    if y.is_const:
        return _sqrt_rational(y.const) if y.const >= 0 else _app(Fn.SQRT, (y,))
    mono = _as_monomial(y)
    if mono is None:
        # a sum keeps its scale: its leading coefficient depends on how the sum is written (factored or
        # not), and equal radicands must give the same atom for congruence (normal.equal) to see them
        return _app(Fn.SQRT, (y,))
    c, m = mono
    out = _sqrt_rational(abs(c))
    rest: dict[Atom, int] = {}
    for atom, e in m.factors:
        if _is_fn(atom, Fn.EXP):
            out = mul(out, _exp_poly(_scale(atom.args[0], Fraction(e, 2))))  # type: ignore[union-attr]
        elif _positive_atom(atom):
            out = mul(out, power(_app(Fn.SQRT, (_atom_poly(atom),)), e))
        else:
            rest[atom] = e
    if rest or c < 0:
        radicand = _from_factors(Fraction(1 if c > 0 else -1), rest)
        out = mul(out, _app(Fn.SQRT, (radicand,)))
    return out


def _log_rational(q: Fraction) -> Poly:
    """``log(q)`` for ``q > 0``: ``k*ln2 + log(r)`` with ``q = 2**k * r`` and ``r`` free of factors 2."""
    k = 0
    num, den = q.numerator, q.denominator
    while num % 2 == 0:
        num //= 2
        k += 1
    while den % 2 == 0:
        den //= 2
        k -= 1
    out = mul(const(k), LN2)
    r = Fraction(num, den)
    if r != 1:
        out = add(out, _app(Fn.LOG, (const(r),)))
    return out


def _log_poly(y: Poly) -> Poly:
    if y.is_const:
        return _log_rational(y.const) if y.const > 0 else _app(Fn.LOG, (y,))
    mono = _as_monomial(y)
    if mono is None or mono[0] <= 0 or not all(_positive_atom(a) for a, _ in mono[1].factors):
        return _app(Fn.LOG, (y,))
    # a positive constant times positive atoms: log of a product is the sum of the logs
    parts = [_log_rational(mono[0])]
    for atom, e in mono[1].factors:
        assert type(atom) is App
        if atom.fn is Fn.EXP:
            part = atom.args[0]
        elif atom.fn is Fn.SQRT:
            part = _scale(_log_poly(atom.args[0]), Fraction(1, 2))
        else:
            part = _app(Fn.LOG, (_atom_poly(atom),))
        parts.append(_scale(part, Fraction(e)))
    return add(*parts)


def _exp_plain(arg: Poly) -> bool:
    """Whether no rule takes anything out of ``exp(arg)``: no multiple of ``ln2`` or ``log(v)`` that
    :func:`_exp_poly` would turn into a factor."""
    for m, c in arg.terms:
        if len(m.factors) == 1 and m.factors[0][1] == 1 and c.denominator <= 2:
            atom = m.factors[0][0]
            if _is_fn(atom, Fn.LN2) or _is_fn(atom, Fn.LOG):
                return False
    return True


def _exp_poly(arg: Poly) -> Poly:
    """``exp(arg)`` with the multiples of ``ln2`` and integer multiples of ``log(v)`` taken out of the
    argument: ``exp(k*ln2 + j*log(v) + r) = 2**k * v**j * exp(r)`` (``v > 0`` recorded)."""
    if arg.is_const and not arg.const:
        return ONE
    pow2 = _F0
    logs: list[tuple[Poly, Fraction]] = []
    kept: dict[Monomial, Fraction] = {}
    special = False
    for m, c in arg.terms:
        if len(m.factors) == 1 and m.factors[0][1] == 1:
            atom = m.factors[0][0]
            if _is_fn(atom, Fn.LN2) and c.denominator <= 2:
                pow2 += c
                special = True
                continue
            if _is_fn(atom, Fn.LOG) and c.denominator <= 2:
                logs.append((atom.args[0], c))  # type: ignore[union-attr]
                special = True
                continue
        kept[m] = c
    if not special:
        return _app(Fn.EXP, (arg,))
    rest = _poly_from(arg.const, kept, nonzero=True)
    out = ONE if rest.is_const and not rest.const else _app(Fn.EXP, (rest,))
    whole = math.floor(pow2)
    out = _scale(out, Fraction(2) ** whole)
    if pow2 != whole:
        out = mul(out, _app(Fn.SQRT, (const(2),)))
    for v, c in logs:
        if _ACTIVE and not _positive_constant(v):
            record(v, Requirement.POSITIVE)
        out = mul(out, power(v, int(c)) if c.denominator == 1 else power(_sqrt_poly(v), int(2 * c)))
    return out


def _pow_poly(x: Poly, y: Poly) -> Poly:
    if y.is_const:
        e = y.const
        if e.denominator == 1:
            return power(x, int(e))
        if e.denominator == 2:
            return power(_sqrt_poly(x), e.numerator)
    if x.is_const and x.const > 0:
        return _exp_poly(mul(y, _log_rational(x.const)))  # c ** y = exp(y * log(c))
    atom = _lone_atom(x)
    if atom is not None and _is_fn(atom, Fn.EXP):
        return _exp_poly(mul(atom.args[0], y))  # type: ignore[union-attr]
    return _app(Fn.POW, (x, y))


def apply(fn: Fn, *args: Poly) -> Poly:
    """``fn(*args)``, with the rules of the module doc (``exp(0) = 1``, ``sqrt(4) = 2``, ``exp2(x) =
    exp(x*ln2)``, ``log(exp(x)) = x``, ...) and constant folding where the result is exact."""
    arity = _ARITY[fn]
    if len(args) != arity:
        raise ValueError(f"{fn.value} takes {arity} argument(s), got {len(args)}")
    match fn:
        case Fn.EXP:
            return _exp_poly(args[0])
        case Fn.EXP2:
            return _exp_poly(mul(args[0], LN2))
        case Fn.LOG:
            return _log_poly(args[0])
        case Fn.LOG2:
            return mul(_log_poly(args[0]), recip(LN2))
        case Fn.SQRT:
            return _sqrt_poly(args[0])
        case Fn.POW:
            return _pow_poly(args[0], args[1])
        case Fn.TANH | Fn.ERF | Fn.SIN:
            if args[0].is_const and not args[0].const:
                return ZERO
        case Fn.COS:
            if args[0].is_const and not args[0].const:
                return ONE
        case Fn.TRUNC:
            if args[0].is_const:
                return const(math.trunc(args[0].const))
        case Fn.PI | Fn.LN2:
            pass
        case _:
            assert_never(fn)
    return _app(fn, tuple(args))


# Monomials ------------------------------------------------------------------------------------------


def _put_factor(out: dict[Atom, int], a: Atom, e: int) -> None:
    """Multiply ``a ** e`` into the exponents ``out``; cancelling an inverted factor records ``a != 0``."""
    old = out.get(a)
    if old is None:
        out[a] = e
        return
    if _ACTIVE and (old < 0 < e or e < 0 < old) and not _positive_atom(a):
        record(_atom_poly(a), Requirement.NONZERO)
    out[a] = old + e


def _merge(fa: Iterable[tuple[Atom, int]], fb: Iterable[tuple[Atom, int]]) -> dict[Atom, int]:
    """The exponents of a product of two monomials (see :func:`_put_factor`)."""
    out = dict(fa)
    for a, e in fb:
        _put_factor(out, a, e)
    return out


def _sqrt_power_reduces(atom: App, e: int) -> bool:
    """Whether ``sqrt(v) ** e`` is rewritten to ``v ** (e // 2) * sqrt(v) ** (e % 2)``: for ``|e| >= 2``, and
    for ``e = -1`` when ``v`` is a positive constant (``1/sqrt(2)`` is ``sqrt(2)/2``, one form for both)."""
    return e >= 2 or e <= -2 or (e == -1 and _positive_constant(atom.args[0]))


def _needs_rules(factors: Mapping[Atom, int]) -> bool:
    n_exp = 0
    for a, e in factors.items():
        if type(a) is App:
            if a.fn is Fn.EXP and e:
                n_exp += 1
                if e != 1 or n_exp > 1:
                    return True
            elif a.fn is Fn.SQRT and _sqrt_power_reduces(a, e):
                return True
    return False


def _apply_rules(factors: dict[Atom, int]) -> tuple[Fraction, bool]:
    """Apply the exp and sqrt rules to ``factors`` in place: the coefficient they produce, and whether a sum
    came in as a factor (the caller then multiplies out what :data:`EXPAND_LIMIT` allows)."""
    coeff = _F1
    new_sum = False
    while _needs_rules(factors):
        extra: list[tuple[Poly, int]] = []
        exps = [(a, e) for a, e in factors.items() if e and _is_fn(a, Fn.EXP)]
        if len(exps) > 1 or (exps and exps[0][1] != 1):
            for a, _ in exps:
                del factors[a]
            arg = add(*(_scale(a.args[0], Fraction(e)) for a, e in exps))  # type: ignore[union-attr]
            if arg.is_const and not arg.const:
                pass  # exp(0) = 1
            elif _exp_plain(arg):  # the common case: one new exp atom, no sum of it built
                atom = _app_atom(Fn.EXP, (arg,))
                factors[atom] = factors.get(atom, 0) + 1
            else:
                extra.append((_exp_poly(arg), 1))
        for a, e in list(factors.items()):
            if _is_fn(a, Fn.SQRT) and _sqrt_power_reduces(a, e):  # type: ignore[arg-type]
                radicand: Poly = a.args[0]  # type: ignore[union-attr]
                q, r = divmod(e, 2)
                factors[a] = r
                if _ACTIVE and not _positive_constant(radicand):
                    record(radicand, Requirement.NONNEGATIVE)
                extra.append((radicand, q))
        for p, e in extra:
            if p.is_const:
                coeff *= p.const**e
                continue
            k, fs = _factor_form(p)
            coeff *= k**e
            for a, ee in fs.items():
                if isinstance(a, Poly):
                    new_sum = True
                factors[a] = factors.get(a, 0) + ee * e
        for a in [a for a, e in factors.items() if not e]:
            del factors[a]
    return coeff, new_sum


def _as_monomial(p: Poly) -> tuple[Fraction, Monomial] | None:
    if p._n == 1 and not p.const:
        m, c = (p._terms or _materialise(p))[0]
        return c, m
    return None


def _monic(p: Poly) -> tuple[Fraction, Poly]:
    """``(c, q)`` with ``p == c * q`` and the first monomial of ``q`` having coefficient 1."""
    hit = _monic_cached(p)
    if hit is not None:
        return hit
    lead = _lead_coeff(p) if p._n else p.const
    q = _scale(p, 1 / lead)
    # held weakly: q derived from p refers to p, and a strong reference back would make a cycle that only the
    # cyclic garbage collector frees (a sum made monic at every step of a loop would fill it)
    p._cache["monic"] = (lead, weakref.ref(q))
    return lead, q


def _monic_cached(p: Poly) -> tuple[Fraction, Poly] | None:
    """``_monic(p)`` if it was computed and its result is alive."""
    hit = p._cache.get("monic")
    if hit is None:
        return None
    q = hit[1]()
    return None if q is None else (hit[0], q)


def _factor_form(p: Poly) -> tuple[Fraction, dict[Atom, int]]:
    """``p`` as ``coefficient * product of atoms ** exponents`` (a sum becomes one monic factor)."""
    mono = _as_monomial(p)
    if mono is not None:
        k, m = mono
        return k, dict(m.factors)
    lead, monic = _monic(p)
    return lead, {monic: 1}


def _from_factors(k: Fraction, factors: dict[Atom, int]) -> Poly:
    """``k * product of atoms ** exponents``, with the rules applied (``factors`` may be changed)."""
    if _needs_rules(factors):
        c, new_sum = _apply_rules(factors)
        k = k * c
        if new_sum:  # a sum came in: multiply out what the limit allows
            out = const(k)
            for a, e in sorted(factors.items(), key=_factor_key):
                out = mul(out, power(_atom_poly(a), e))
            return out
    items = tuple(sorted(((a, e) for a, e in factors.items() if e), key=_factor_key))
    if not items:
        return const(k)
    if not k:
        return ZERO
    return _poly_sorted(_F0, ((_mk_mono(items), k),))


def _mono_product(m1: Monomial, m2: Monomial) -> tuple[Fraction, Monomial] | Poly:
    """The product of two monomials: ``(coefficient, monomial)``, or a Poly when a rule brought in a sum."""
    if not m1.factors:
        return _F1, m2
    if not m2.factors:
        return _F1, m1
    f1, f2 = m1.factors, m2.factors
    if len(f1) == 1 and len(f2) == 1 and f1[0][1] == 1 and f2[0][1] == 1:
        a, b = f1[0][0], f2[0][0]
        if a is not b and type(a) is App and type(b) is App and a.fn is Fn.EXP and b.fn is Fn.EXP:
            # exp(u) * exp(v), the rescaling of a running softmax sum: what _apply_rules does for it, directly
            arg = add(a.args[0], b.args[0])
            if arg.is_const and not arg.const:
                return _F1, _EMPTY_MONO
            if _exp_plain(arg):
                return _F1, _mk_mono(((_app_atom(Fn.EXP, (arg,)), 1),))
    factors = _merge(f1, f2)
    if _needs_rules(factors):
        c, new_sum = _apply_rules(factors)
        if new_sum:
            return _from_factors(c, factors)
    else:
        c = _F1
    items = tuple(sorted(((a, e) for a, e in factors.items() if e), key=_factor_key))
    return c, _mk_mono(items)


# Arithmetic -----------------------------------------------------------------------------------------


def _scale(p: Poly, k: Fraction) -> Poly:
    if not k:
        return ZERO
    if k == 1:
        return p
    if p._n >= _DERIVE_MIN:
        return _derive(p, k, ZERO)
    if k == -1:
        terms = tuple((m, -c) for m, c in p.terms)
    else:
        kn, kd = k.numerator, k.denominator
        # Fraction(n, d) reduces once; this is about twice as fast as Fraction.__mul__ on large sums
        terms = tuple((m, Fraction(c.numerator * kn, c.denominator * kd)) for m, c in p.terms)
    return _poly_sorted(p.const * k, terms)


def _ancestors(p: Poly, steps: int) -> dict[int, tuple[Poly, Fraction, list[tuple[Fraction, Poly]]]]:
    """``p``'s derivation ancestors within ``steps`` steps: ``id -> (ancestor, a, deltas)`` with
    ``p == a * ancestor + sum(k * d for k, d in deltas)`` (``p`` itself included). The monic form of a node,
    once computed, counts as an ancestor too (``node == lead * monic``), which links a chain of running means
    to the chain of running sums it was proved equal to, one step at a time."""
    out = {}
    scale = _F1
    deltas: list[tuple[Fraction, Poly]] = []
    node: Poly | None = p
    for _ in range(steps + 1):
        if node is None:
            break
        out[id(node)] = (node, scale, list(deltas))
        monic = _monic_cached(node)
        if monic is not None and id(monic[1]) not in out:
            out[id(monic[1])] = (monic[1], scale * monic[0], list(deltas))
        if node._base is None or node._delta is None:
            break
        deltas.append((scale, node._delta))
        scale = scale * node._k
        node = node._base
    return out


_Deltas: TypeAlias = list[tuple[Fraction, "Poly"]]


def _common_ancestor(
    p: Poly, node: Poly, scale: Fraction, deltas: _Deltas, steps: int
) -> tuple[Poly, Fraction, _Deltas, Fraction, _Deltas] | None:
    """A derivation ancestor ``c`` shared by ``p`` and ``q = scale * node + sum(deltas)`` within ``steps``
    steps of each: ``(c, a, da, b, db)`` with ``p == a*c + sum(da)`` and ``q == b*c + sum(db)``."""
    mine = _ancestors(p, steps)
    deltas = list(deltas)
    for _ in range(steps + 1):
        here = [(node, scale)]
        monic = _monic_cached(node)
        if monic is not None:
            here.append((monic[1], scale * monic[0]))
        for candidate, b in here:
            hit = mine.get(id(candidate))
            if hit is not None:
                return hit[0], hit[1], hit[2], b, deltas
        if node._base is None or node._delta is None:
            return None
        deltas.append((scale, node._delta))
        scale = scale * node._k
        node = node._base
    return None


def _add_related(a: Poly, b: Poly) -> Poly | None:
    """``a + b`` in O(small) when both derive from a common ancestor within a few steps (``x - mean`` and
    ``mean``; Welford's ``mean + (x - mean)/n``), else None."""
    common = _common_ancestor(a, b, _F1, [], 4)
    if common is None:
        return None
    ancestor, sa, da, sb, db = common
    parts = [_scale(d, k) for k, d in (*da, *db)]
    if sum(p._n for p in parts) > 4 * _DERIVE_MIN:
        return None
    rest = add(*parts) if parts else ZERO
    total = sa + sb
    return rest if not total else _derive(ancestor, total, rest)


def add(*terms: Poly) -> Poly:
    """The sum of ``terms`` (n-ary, so that reductions cost one pass; adding a few terms to a large sum
    costs O(few), see the module doc)."""
    if len(terms) == 1:
        return terms[0]
    if len(terms) == 2:
        a, b = terms
        if not b._n and not b.const:
            return a
        if not a._n and not a.const:
            return b
        big, small = (a, b) if a._n >= b._n else (b, a)
        if big._n >= _DERIVE_MIN:
            if small._n >= _DERIVE_MIN:
                related = _add_related(big, small)
                if related is not None:
                    return related
            return _derive(big, _F1, small)
    else:
        i = max(range(len(terms)), key=lambda j: terms[j]._n)
        big = terms[i]
        if big._n >= _DERIVE_MIN:
            rest = terms[:i] + terms[i + 1 :]
            if sum(t._n for t in rest) <= big._n:
                return _derive(big, _F1, add(*rest))
    # the largest operand first: its monomials are already sorted, so the final sort sees long runs
    ordered = sorted(terms, key=lambda t: -t._n)
    acc: dict[Monomial, Fraction] = dict(ordered[0].terms)
    c = ordered[0].const
    touched: list[Monomial] = []  # only coefficients that were added to can have become zero
    for t in ordered[1:]:
        c += t.const
        for m, k in t.terms:
            if m in acc:
                acc[m] = acc[m] + k
                touched.append(m)
            else:
                acc[m] = k
    for m in touched:
        if m in acc and not acc[m]:
            del acc[m]
    return _poly_from(c, acc, nonzero=True)


def dot(pairs: Iterable[tuple[Poly, Poly]]) -> Poly:
    """``sum(a * b for a, b in pairs)`` in one pass: products of monomials go straight into the sum
    (a matmul entry), other products through :func:`mul`."""
    c = Fraction(0)
    acc: dict[Monomial, Fraction] = {}
    rest: list[Poly] = []
    for a, b in pairs:
        ma, mb = _as_monomial(a), _as_monomial(b)
        if ma is None or mb is None:
            rest.append(mul(a, b))
            continue
        fa, fb = ma[1].factors, mb[1].factors
        k = ma[0] * mb[0] if ma[0] != 1 or mb[0] != 1 else _F1
        if len(fa) == 1 and len(fb) == 1:
            x, y = fa[0][0], fb[0][0]
            # the common case, two different atoms (not both exponentials): one comparison to order them
            plain = x is not y and not (type(x) is App and type(y) is App and x.fn is Fn.EXP and y.fn is Fn.EXP)
        else:
            plain = False
        if plain:
            m = _mk_mono((fa[0], fb[0]) if x.key < y.key else (fb[0], fa[0]))
        else:
            prod = _mono_product(ma[1], mb[1])
            if isinstance(prod, Poly):
                rest.append(_scale(prod, k))
                continue
            k = k * prod[0]
            m = prod[1]
        if not m.factors:
            c += k
        elif m in acc:
            acc[m] = acc[m] + k
        else:
            acc[m] = k
    return add(_poly_from(c, acc), *rest)


def neg(a: Poly) -> Poly:
    ref = a._cache.get("neg")
    out = None if ref is None else ref()
    if out is None:
        out = _scale(a, Fraction(-1))
        a._cache["neg"] = weakref.ref(out)  # weakly, as in _monic: neg(neg(a)) is a
    return out


def sub(a: Poly, b: Poly) -> Poly:
    return add(a, neg(b))


def _shares_sum_factor(sum_: Poly, other: Poly) -> bool:
    """Whether ``other`` is a monomial with ``sum_`` (made monic) among its factors (so they cancel)."""
    mono = _as_monomial(other)
    if mono is None or sum_.size < 2 or not any(type(a) is Poly for a, _ in mono[1].factors):
        return False
    _, monic = _monic(sum_)
    return any(a is monic for a, _ in mono[1].factors)


#: The memo of :func:`products_memoised` (``None`` outside such a block): a pair of factors' ids to the
#: factors (kept alive, so the ids stay theirs), the product and the side conditions its rules recorded.
_MUL_MEMO: list[dict[tuple[int, int], tuple[Poly, Poly, Poly, tuple[SideCondition, ...]]] | None] = [None]
#: Products of sums with at least this many monomial pairs are memoised.
_MUL_MEMO_MIN = 8


@contextmanager
def products_memoised() -> Iterator[None]:
    """Memoise products of sums inside the block.

    The threads of a block compute the same products again and again (every lane of a butterfly merge
    of online-softmax states multiplies both halves by the same rescaling factor); the memo makes each
    one product once. A hit replays the side conditions the product recorded, so a memoised product
    reports exactly what computing it would. The memo (and the terms it holds) ends with the block.
    """
    saved = _MUL_MEMO[0]
    if saved is None:
        _MUL_MEMO[0] = {}
    try:
        yield
    finally:
        _MUL_MEMO[0] = saved


def mul(a: Poly, b: Poly) -> Poly:
    """The product; sums are multiplied out while the result has at most :data:`EXPAND_LIMIT` monomials."""
    if a.is_const:
        return _scale(b, a.const)
    if b.is_const:
        return _scale(a, b.const)
    ma, mb = _as_monomial(a), _as_monomial(b)
    if ma is not None and mb is not None:
        return _from_factors(ma[0] * mb[0], _merge(ma[1].factors, mb[1].factors))
    memo = _MUL_MEMO[0]
    if memo is None or a._n * b._n < _MUL_MEMO_MIN:
        return _mul_sums(a, b)
    key = (id(a), id(b)) if id(a) < id(b) else (id(b), id(a))
    hit = memo.get(key)
    if hit is not None:
        replay(hit[3])
        return hit[2]
    with side_conditions() as recorded:
        out = _mul_sums(a, b)
    memo[key] = (a, b, out, recorded.conditions)
    return out


def _mul_sums(a: Poly, b: Poly) -> Poly:
    """:func:`mul` of two non-constant terms, not both monomials."""
    cancels = _shares_sum_factor(a, b) or _shares_sum_factor(b, a)
    if not cancels and a.size * b.size <= _limit_cell[0]:
        c = a.const * b.const
        acc: dict[Monomial, Fraction] = {}
        extra: list[Poly] = []
        a_parts = [*a.terms, *(((_EMPTY_MONO, a.const),) if a.const else ())]
        b_parts = [*b.terms, *(((_EMPTY_MONO, b.const),) if b.const else ())]
        for m1, k1 in a_parts:
            for m2, k2 in b_parts:
                if not m1.factors and not m2.factors:
                    continue  # the constant * constant part is ``c``
                prod = _mono_product(m1, m2)
                if isinstance(prod, Poly):
                    extra.append(_scale(prod, k1 * k2))
                    continue
                k, m = prod
                acc[m] = acc.get(m, _F0) + k * k1 * k2
        out = _poly_from(c, acc)
        return add(out, *extra) if extra else out
    ka, fa = _factor_form(a)
    kb, fb = _factor_form(b)
    return _from_factors(ka * kb, _merge(fa.items(), fb.items()))


def recip(a: Poly) -> Poly:
    """``1 / a``; raises :class:`ZeroDivisionError` for the constant zero.

    A monomial is inverted by negating its exponents, which assumes its atoms are nonzero: inside a
    :func:`~larkc.symbolic.conditions.side_conditions` block each inverted atom (or factored sum) that is not
    positive by construction is recorded as ``!= 0``.
    """
    if a.is_const:
        if a.const == 0:
            raise ZeroDivisionError("division by the constant zero")
        return const(1 / a.const)
    k, factors = _factor_form(a)
    if _ACTIVE:
        for atom in factors:
            if not _positive_atom(atom):
                record(_atom_poly(atom), Requirement.NONZERO)
    return _from_factors(1 / k, {f: -e for f, e in factors.items()})


def div(a: Poly, b: Poly) -> Poly:
    return mul(a, recip(b))


def power(a: Poly, n: int) -> Poly:
    """``a ** n`` for an integer ``n`` (``0 ** 0`` is 1, as in torch)."""
    if n == 0:
        return ONE
    if n < 0:
        return recip(power(a, -n))
    if n == 1:
        return a
    if a.is_const:
        return const(a.const**n)
    mono = _as_monomial(a)
    if mono is not None:
        return _from_factors(mono[0] ** n, {f: e * n for f, e in mono[1].factors})
    if a.size**n <= _limit_cell[0]:
        out = a
        for _ in range(n - 1):
            out = mul(out, a)
        return out
    lead, monic = _monic(a)
    return _from_factors(lead**n, {monic: n})


# Max and min ------------------------------------------------------------------------------------------


def _ordered_args(args: Iterable[Poly]) -> tuple[Poly, ...]:
    seen: dict[int, Poly] = {}
    for a in args:
        seen.setdefault(id(a), a)
    return tuple(sorted(seen.values(), key=_KEY))


def _extremum_node(cls: type[Max] | type[Min], ordered: tuple[Poly, ...], set_sum: int | None = None) -> Poly:
    rank = _R_MAX if cls is Max else _R_MIN

    def make() -> Max | Min:
        total = set_sum if set_sum is not None else sum(_set_part(a.fp) for a in ordered) % _P
        fp = _mix(rank, total)
        key = (rank, 0, tuple(a.key for a in ordered)) if len(ordered) <= _STRUCTURAL_ARGS else (rank, 1, fp)
        return cls(ordered, key, fp, total, {})

    return _atom_poly(_interned((rank, ordered), make))


def _extend_extremum(atom: Max | Min, new: Poly) -> Poly:
    """``max(atom's args..., new)`` by one insertion into the sorted arguments (a running maximum)."""
    args = atom.args
    if new in args:
        return _atom_poly(atom)
    pos = bisect.bisect_left(args, new.key, key=_KEY)
    ordered = (*args[:pos], new, *args[pos:])
    return _extremum_node(type(atom), ordered, (atom.set_sum + _set_part(new.fp)) % _P)


def _extremum(args: Sequence[Poly], is_max: bool) -> Poly:
    if not args:
        raise ValueError("max/min of no terms")
    cls: type[Max] | type[Min] = Max if is_max else Min
    if len(args) == 2:
        for this, other in (args, args[::-1]):
            atom = _lone_atom(this)
            if type(atom) is cls and not other.is_const and type(_lone_atom(other)) is not cls:
                return _extend_extremum(atom, other)
    flat: list[Poly] = []
    best: Fraction | None = None
    work = list(args)
    while work:
        a = work.pop()
        atom = _lone_atom(a)
        if type(atom) is cls:
            work.extend(atom.args)  # max(max(a, b), c) is max(a, b, c)
            continue
        if a.is_const:
            if best is None or (a.const > best if is_max else a.const < best):
                best = a.const
            continue
        flat.append(a)
    if best is not None:
        flat.append(const(best))
    ordered = _ordered_args(flat)
    if len(ordered) == 1:
        return ordered[0]
    return _extremum_node(cls, ordered)


def maximum(*args: Poly) -> Poly:
    """The largest of ``args`` (n-ary; nested maxima are flattened, constants folded)."""
    return _extremum(args, is_max=True)


def minimum(*args: Poly) -> Poly:
    """The smallest of ``args`` (n-ary; nested minima are flattened, constants folded)."""
    return _extremum(args, is_max=False)


# Truth values ---------------------------------------------------------------------------------------

TRUE: BoolConst = _interned((_R_BCONST, True), lambda: BoolConst(True, (_R_BCONST, True), _shash("true")))
FALSE: BoolConst = _interned((_R_BCONST, False), lambda: BoolConst(False, (_R_BCONST, False), _shash("false")))


def _bool(value: bool) -> BoolConst:
    return TRUE if value else FALSE


def _cmp(op: CmpOp, lhs: Poly) -> BoolTerm:
    if lhs.is_const:
        c = lhs.const
        match op:
            case CmpOp.EQ:
                return _bool(c == 0)
            case CmpOp.NE:
                return _bool(c != 0)
            case CmpOp.LT:
                return _bool(c < 0)
            case CmpOp.LE:
                return _bool(c <= 0)
            case _:
                assert_never(op)
    lead = _lead_coeff(lhs)
    # p < 0 and p == 0 are unchanged by a positive scale; == and != also by a negative one
    scale = 1 / lead if op in (CmpOp.EQ, CmpOp.NE) else 1 / abs(lead)
    lhs = _scale(lhs, scale)
    return _interned(  # type: ignore[no-any-return]
        (_R_CMP, op, lhs), lambda: Cmp(op, lhs, (_R_CMP, op.value, lhs.key), _mix(_shash(op.value), lhs.fp), {})
    )


def compare(op: str, a: Poly, b: Poly) -> BoolTerm:
    """``a op b`` for ``op`` one of ``== != < <= > >=``, in canonical form."""
    match op:
        case "==":
            return _cmp(CmpOp.EQ, sub(a, b))
        case "!=":
            return _cmp(CmpOp.NE, sub(a, b))
        case "<":
            return _cmp(CmpOp.LT, sub(a, b))
        case "<=":
            return _cmp(CmpOp.LE, sub(a, b))
        case ">":
            return _cmp(CmpOp.LT, sub(b, a))
        case ">=":
            return _cmp(CmpOp.LE, sub(b, a))
        case _:
            raise ValueError(f"unknown comparison {op!r}")


def logical_not(a: BoolTerm) -> BoolTerm:
    """The negation, pushed into the comparisons (De Morgan for ``and``/``or``)."""
    match a:
        case BoolConst():
            return _bool(not a.value)
        case Cmp():
            match a.op:
                case CmpOp.EQ:
                    return _cmp(CmpOp.NE, a.lhs)
                case CmpOp.NE:
                    return _cmp(CmpOp.EQ, a.lhs)
                case CmpOp.LT:  # not (p < 0)  <=>  -p <= 0
                    return _cmp(CmpOp.LE, neg(a.lhs))
                case CmpOp.LE:  # not (p <= 0)  <=>  -p < 0
                    return _cmp(CmpOp.LT, neg(a.lhs))
                case _:
                    assert_never(a.op)
        case And():
            return logical_or(*(logical_not(x) for x in a.args))
        case Or():
            return logical_and(*(logical_not(x) for x in a.args))
        case _:
            assert_never(a)


def _junction(args: Iterable[BoolTerm], is_and: bool) -> BoolTerm:
    cls: type[And] | type[Or] = And if is_and else Or
    unit, absorbing = (TRUE, FALSE) if is_and else (FALSE, TRUE)
    flat: dict[int, BoolTerm] = {}
    for a in args:
        if a is absorbing:
            return absorbing
        if a is unit:
            continue
        for x in a.args if isinstance(a, cls) else (a,):
            flat.setdefault(id(x), x)
    ordered = tuple(sorted(flat.values(), key=_KEY))
    if not ordered:
        return unit
    if len(ordered) == 1:
        return ordered[0]
    rank = _R_AND if is_and else _R_OR

    def make() -> And | Or:
        fp = _mix(rank, sum(_set_part(a.fp) for a in ordered) % _P)
        key = (rank, 0, tuple(a.key for a in ordered)) if len(ordered) <= _STRUCTURAL_ARGS else (rank, 1, fp)
        return cls(ordered, key, fp, {})

    return _interned((rank, ordered), make)  # type: ignore[no-any-return]


def logical_and(*args: BoolTerm) -> BoolTerm:
    return _junction(args, is_and=True)


def logical_or(*args: BoolTerm) -> BoolTerm:
    return _junction(args, is_and=False)


def select(cond: BoolTerm, then: Poly, other: Poly) -> Poly:
    """``then if cond else other``; the condition is stored in the polarity with the smaller key."""
    if isinstance(cond, BoolConst):
        return then if cond.value else other
    if then is other:
        return then
    negated = logical_not(cond)
    if negated.key < cond.key:
        cond, then, other = negated, other, then
    atom = _interned(
        (_R_SELECT, cond, then, other),
        lambda: Select(
            cond, then, other, (_R_SELECT, cond.key, then.key, other.key), _mix(cond.fp, then.fp, other.fp), {}
        ),
    )
    return _atom_poly(atom)


# Traversal, expansion -------------------------------------------------------------------------------


def _children(node: object) -> tuple[object, ...]:
    match node:
        case Poly():
            return tuple(a for m, _ in node.terms for a, _ in m.factors)
        case Elem() | BoolConst():
            return ()
        case Read():
            return (node.index,)
        case App() | Max() | Min() | And() | Or():
            return node.args
        case Select():
            return (node.cond, node.then, node.other)
        case Cmp():
            return (node.lhs,)
        case _:
            raise TypeError(f"not a term node: {node!r}")


def built_from(term: Term | BoolTerm, fns: frozenset[Fn]) -> bool:
    """Whether ``term`` is built from inputs, constants, sums, products with nonnegative powers (no
    division), max, min, selects, comparisons and the functions ``fns`` only."""
    pending: list[object] = [term]
    seen: set[int] = set()
    while pending:
        x = pending.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        match x:
            case Poly():
                for mono, _c in x.terms:
                    for atom, power in mono.factors:
                        if power < 0:
                            return False
                        pending.append(atom)
            case Elem() | Read() | BoolConst():
                pass
            case App(fn=fn, args=args):
                if fn not in fns:
                    return False
                pending.extend(args)
            case Max(args=args) | Min(args=args):
                pending.extend(args)
            case Select(cond=c, then=a, other=b):
                pending.extend((c, a, b))
            case Cmp(lhs=lhs):
                pending.append(lhs)
            case And(args=args) | Or(args=args):
                pending.extend(args)
            case _:
                return False
    return True


def _post_order(
    roots: Iterable[object], children: Callable[[object], Iterable[object]] = _children
) -> Iterator[object]:
    """Every node reachable from ``roots``, children before parents, each once (no recursion)."""
    seen: set[int] = set()
    for root in roots:
        if id(root) in seen:
            continue
        stack: list[tuple[object, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                yield node
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children(node) if id(c) not in seen)


def tensors_of(terms: Iterable[Term]) -> set[str]:
    """The names of the input tensors that ``terms`` read."""
    return {n.tensor for n in _post_order(terms) if isinstance(n, Elem | Read)}


def elements_of(terms: Iterable[Term], tensor: str) -> set[int]:
    """The flat indices of the elements of ``tensor`` that ``terms`` read (``Elem`` atoms only)."""
    return {n.index for n in _post_order(terms) if isinstance(n, Elem) and n.tensor == tensor}


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while many terms are built.

    Building the terms of a matmul or a long reduction allocates millions of small objects; each
    allocation burst triggers collections that rescan all live terms, which triples the cost. Terms
    are collected by reference counting as usual; the few cycles (cached negations) wait for the next
    collection after the block.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def _no_expand_limit() -> Iterator[None]:
    saved = _limit_cell[0]
    _limit_cell[0] = 1 << 62
    try:
        yield
    finally:
        _limit_cell[0] = saved


def expand(term: Term, budget: int | None = None) -> Term:
    """``term`` with every product of sums multiplied out, inside every atom too: a full normal form in
    which algebraically equal polynomial expressions are the same object (may be large).

    The same as :func:`larkc.symbolic.normal.normal_form`; ``budget`` bounds the work (monomial products)
    and :class:`~larkc.symbolic.normal.BudgetExceeded` is raised past it.
    """
    from larkc.symbolic.normal import normal_form

    return normal_form(term, budget)


# Evaluation -----------------------------------------------------------------------------------------

_FLOAT_FN: dict[Fn, Callable[..., float]] = {
    Fn.EXP: lambda x: float(np.exp(x)),
    Fn.LOG: lambda x: float(np.log(x)),
    Fn.SQRT: lambda x: float(np.sqrt(x)),
    Fn.TANH: lambda x: float(np.tanh(x)),
    Fn.ERF: lambda x: math.erf(x) if not math.isnan(x) else math.nan,
    Fn.SIN: lambda x: float(np.sin(x)),
    Fn.COS: lambda x: float(np.cos(x)),
    Fn.POW: lambda x, y: float(np.power(np.float64(x), np.float64(y))),
    Fn.TRUNC: lambda x: float(np.trunc(x)),
    Fn.PI: lambda: math.pi,
    Fn.LN2: lambda: math.log(2.0),
    Fn.EXP2: lambda x: float(np.exp2(x)),
    Fn.LOG2: lambda x: float(np.log2(x)),
}


def _eval_children(node: object) -> tuple[object, ...]:
    # a derived sum is evaluated from its derivation, in O(size of the change): x_i - mean for every i costs
    # O(row), not O(row**2)
    if type(node) is Poly and node._base is not None:
        return (node._base, node._delta)
    return _children(node)


def evaluate(terms: Sequence[Term], env: Mapping[str, Sequence[float] | np.ndarray[Any, Any]]) -> list[Any]:
    """The float64 values (``bool`` for truth values) of ``terms`` with input tensors bound by ``env``.

    ``env`` maps a tensor name to its elements in row-major order. Shared subterms are evaluated once.
    IEEE semantics: division by zero gives ±inf or nan, overflow gives inf; a :class:`Read` outside the
    tensor gives nan.
    """
    flat = {name: np.asarray(v, dtype=np.float64).reshape(-1) for name, v in env.items()}
    memo: dict[int, Any] = {}
    with np.errstate(all="ignore"):
        for node in _post_order(terms, _eval_children):
            memo[id(node)] = _eval_node(node, memo, flat)
    return [memo[id(t)] for t in terms]


def _eval_node(node: object, memo: Mapping[int, Any], env: Mapping[str, np.ndarray[Any, Any]]) -> Any:
    match node:
        case Poly():
            if node._base is not None:
                return float(np.float64(node._k) * memo[id(node._base)] + memo[id(node._delta)])
            total = np.float64(node.const)
            for mono, k in node.terms:
                prod = np.float64(k)
                for atom, e in mono.factors:
                    prod = prod * np.float64(memo[id(atom)]) ** e
                total = total + prod
            return float(total)
        case Elem():
            if node.tensor not in env:
                raise KeyError(f"no value for input tensor {node.tensor!r}")
            return float(env[node.tensor][node.index])
        case Read():
            if node.tensor not in env:
                raise KeyError(f"no value for input tensor {node.tensor!r}")
            idx = memo[id(node.index)]
            values = env[node.tensor]
            if not math.isfinite(idx) or idx != int(idx) or not 0 <= int(idx) < len(values):
                return math.nan
            return float(values[int(idx)])
        case App():
            return _FLOAT_FN[node.fn](*(memo[id(a)] for a in node.args))
        case Max():
            vals = [memo[id(a)] for a in node.args]
            return math.nan if any(math.isnan(v) for v in vals) else max(vals)
        case Min():
            vals = [memo[id(a)] for a in node.args]
            return math.nan if any(math.isnan(v) for v in vals) else min(vals)
        case Select():
            return memo[id(node.then)] if memo[id(node.cond)] else memo[id(node.other)]
        case BoolConst():
            return node.value
        case Cmp():
            v = memo[id(node.lhs)]
            match node.op:
                case CmpOp.EQ:
                    return v == 0
                case CmpOp.NE:
                    return v != 0
                case CmpOp.LT:
                    return v < 0
                case CmpOp.LE:
                    return v <= 0
                case _:
                    assert_never(node.op)
        case And():
            return all(memo[id(a)] for a in node.args)
        case Or():
            return any(memo[id(a)] for a in node.args)
        case _:
            raise TypeError(f"not a term node: {node!r}")


# Conversions ----------------------------------------------------------------------------------------


def _sympy_fns(sympy: Any) -> dict[Fn, Callable[..., Any]]:
    """The sympy meaning of each function (``sympy`` is the imported module)."""
    return {
        Fn.EXP: sympy.exp,
        Fn.LOG: sympy.log,
        Fn.SQRT: sympy.sqrt,
        Fn.TANH: sympy.tanh,
        Fn.ERF: sympy.erf,
        Fn.SIN: sympy.sin,
        Fn.COS: sympy.cos,
        Fn.POW: lambda x, y: x**y,
        Fn.TRUNC: lambda x: sympy.sign(x) * sympy.floor(sympy.Abs(x)),
        Fn.PI: lambda: sympy.pi,
        Fn.LN2: lambda: sympy.log(2),
        Fn.EXP2: lambda x: sympy.Integer(2) ** x,
        Fn.LOG2: lambda x: sympy.log(x, 2),
    }


def to_sympy(term: Term) -> Any:
    """The sympy expression of ``term``.

    Input elements are ``IndexedBase(tensor)[index]`` (real); functions map to sympy's ``exp``, ``log``,
    ``sqrt``, ``tanh``, ``erf``, ... and the constants to ``pi`` and ``log(2)``; :class:`Select` becomes
    ``Piecewise``.
    """
    import sympy

    bases: dict[str, Any] = {}

    def base(name: str) -> Any:
        if name not in bases:
            bases[name] = sympy.IndexedBase(name, real=True)
        return bases[name]

    fns = _sympy_fns(sympy)
    memo: dict[int, Any] = {}
    for node in _post_order([term]):
        match node:
            case Poly():
                total = sympy.Rational(node.const.numerator, node.const.denominator)
                for mono, k in node.terms:
                    prod = sympy.Rational(k.numerator, k.denominator)
                    for atom, e in mono.factors:
                        prod = prod * memo[id(atom)] ** e
                    total = total + prod
                out = total
            case Elem():
                out = base(node.tensor)[node.index]
            case Read():
                out = base(node.tensor)[memo[id(node.index)]]
            case App():
                out = fns[node.fn](*(memo[id(a)] for a in node.args))
            case Max():
                out = sympy.Max(*(memo[id(a)] for a in node.args))
            case Min():
                out = sympy.Min(*(memo[id(a)] for a in node.args))
            case Select():
                out = sympy.Piecewise((memo[id(node.then)], memo[id(node.cond)]), (memo[id(node.other)], True))
            case BoolConst():
                out = sympy.true if node.value else sympy.false
            case Cmp():
                lhs = memo[id(node.lhs)]
                out = {
                    CmpOp.EQ: sympy.Eq,
                    CmpOp.NE: sympy.Ne,
                    CmpOp.LT: sympy.StrictLessThan,
                    CmpOp.LE: sympy.LessThan,
                }[node.op](lhs, 0)
            case And():
                out = sympy.And(*(memo[id(a)] for a in node.args))
            case Or():
                out = sympy.Or(*(memo[id(a)] for a in node.args))
            case _:
                raise TypeError(f"not a term node: {node!r}")
        memo[id(node)] = out
    return memo[id(term)]


#: The functions of no arguments, converted to z3 as uninterpreted real constants of these names; every
#: other function is an uninterpreted z3 function of its name.
_Z3_CONSTANT: dict[Fn, str] = {Fn.PI: "pi", Fn.LN2: "ln2"}


class Z3Converter:
    """Converts terms to z3 expressions over one shared set of z3 symbols.

    Input elements are ``Real("tensor[i]")``; a tensor that any converted term reads at a symbolic index
    (:class:`Read`) is a z3 ``Array(Int, Real)`` instead, for all of its elements, so that constant and
    symbolic reads of it agree. Call :meth:`prepare` with every term before converting any of them when
    terms of several sources (spec and kernel) are compared. Functions are uninterpreted z3 functions
    (``pi`` and ``ln2`` uninterpreted constants); max, min and select are ``If``; ``x ** -k`` is
    ``1 / x ** k`` (z3's division is total: the value at 0 is unspecified).
    """

    def __init__(self) -> None:
        import z3

        self._z3 = z3
        self._arrays: dict[str, Any] = {}
        self._reals: dict[tuple[str, int], Any] = {}
        self._fns: dict[Fn, Any] = {}
        self._memo: dict[int, Any] = {}
        self._keep: list[object] = []  # keeps memoised nodes alive so their ids stay unique

    def prepare(self, terms: Iterable[Term]) -> None:
        """Declare as arrays the tensors that ``terms`` read at symbolic indices."""
        z3 = self._z3
        for node in _post_order(terms):
            if isinstance(node, Read) and node.tensor not in self._arrays:
                if any(t == node.tensor for t, _ in self._reals):
                    raise ValueError(f"tensor {node.tensor!r} was converted as scalars before prepare()")
                self._arrays[node.tensor] = z3.Array(node.tensor, z3.IntSort(), z3.RealSort())

    def convert(self, term: Term) -> Any:
        """The z3 expression (``ArithRef`` or ``BoolRef``) of ``term``."""
        self.prepare([term])
        for node in _post_order([term]):
            if id(node) not in self._memo:
                self._memo[id(node)] = self._node(node)
                self._keep.append(node)
        return self._memo[id(term)]

    def _fn(self, fn: Fn) -> Any:
        z3 = self._z3
        if fn not in self._fns:
            self._fns[fn] = z3.Function(fn.value, *([z3.RealSort()] * (_ARITY[fn] + 1)))
        return self._fns[fn]

    def _node(self, node: object) -> Any:
        z3 = self._z3
        memo = self._memo

        def q(v: Fraction) -> Any:
            return z3.RealVal(f"{v.numerator}/{v.denominator}")

        def chain(args: tuple[Poly, ...], pick_first: Callable[[Any, Any], Any]) -> Any:
            out = memo[id(args[0])]
            for a in args[1:]:
                v = memo[id(a)]
                out = z3.If(pick_first(out, v), out, v)
            return out

        match node:
            case Poly():
                total = q(node.const)
                for mono, k in node.terms:
                    num, den = q(k), None
                    for atom, e in mono.factors:
                        base = memo[id(atom)]
                        for _ in range(abs(e)):
                            if e > 0:
                                num = num * base
                            else:
                                den = base if den is None else den * base
                    total = total + (num if den is None else num / den)
                return total
            case Elem():
                if node.tensor in self._arrays:
                    return z3.Select(self._arrays[node.tensor], node.index)
                ident = (node.tensor, node.index)
                if ident not in self._reals:
                    self._reals[ident] = z3.Real(f"{node.tensor}[{node.index}]")
                return self._reals[ident]
            case Read():
                return z3.Select(self._arrays[node.tensor], z3.ToInt(memo[id(node.index)]))
            case App():
                if node.fn in _Z3_CONSTANT:
                    return z3.Real(_Z3_CONSTANT[node.fn])
                return self._fn(node.fn)(*(memo[id(a)] for a in node.args))
            case Max():
                return chain(node.args, lambda a, b: a >= b)
            case Min():
                return chain(node.args, lambda a, b: a <= b)
            case Select():
                return z3.If(memo[id(node.cond)], memo[id(node.then)], memo[id(node.other)])
            case BoolConst():
                return z3.BoolVal(node.value)
            case Cmp():
                lhs = memo[id(node.lhs)]
                match node.op:
                    case CmpOp.EQ:
                        return lhs == 0
                    case CmpOp.NE:
                        return lhs != 0
                    case CmpOp.LT:
                        return lhs < 0
                    case CmpOp.LE:
                        return lhs <= 0
                    case _:
                        assert_never(node.op)
            case And():
                return z3.And(*(memo[id(a)] for a in node.args))
            case Or():
                return z3.Or(*(memo[id(a)] for a in node.args))
            case _:
                raise TypeError(f"not a term node: {node!r}")
