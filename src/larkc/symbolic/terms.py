"""The exact-arithmetic term language shared by the spec evaluator, the symbolic prover and the Lean lowering.

A *term* denotes one real number (or one truth value) as an expression over the elements of named input
tensors. The reference's symbolic evaluator produces one term per output element; the symbolic prover
executes a kernel into the same terms; the two are compared element by element.

Representation, in brief (``docs/reference.md`` has the long form and the soundness caveats):

* Every real-valued term is a :class:`Poly`: an exact rational constant plus a sum of monomials with
  :class:`~fractions.Fraction` coefficients. A :class:`Monomial` is a product of *atoms* raised to nonzero
  integer powers (negative powers are division). Atoms are input elements (:class:`Elem`), data-dependent
  reads (:class:`Read`), function applications (:class:`App`: ``exp``, ``log``, ``sqrt``, ``tanh``,
  ``erf``, ... uninterpreted for the provers), :class:`Max`, :class:`Min`, :class:`Select` (if-then-else)
  and sums that were kept factored (a :class:`Poly` used as a factor, e.g. the denominator of softmax).
* Truth values are :class:`BoolConst`, :class:`Cmp` (``p < 0``, ``p <= 0``, ``p == 0``, ``p != 0`` for a
  polynomial ``p``), :class:`And` and :class:`Or`; negation is pushed into comparisons, so there is no
  ``Not`` node.
* Nodes are **hash-consed**: the constructor functions of this module (:func:`const`, :func:`elem`,
  :func:`add`, :func:`mul`, ...; also the ``+ - * / **`` operators of :class:`Poly`) intern every node, so
  two terms are structurally equal exactly when they are the same object, and equality and hashing are
  O(1). Never call the dataclass constructors directly.
* The polynomial part is kept in a **canonical normal form**: monomials sorted by a deterministic
  structural key, like monomials merged, zero coefficients dropped, factored sums made monic. Products of
  sums are multiplied out while the result has at most :data:`EXPAND_LIMIT` monomials, so algebraically
  equal polynomials of moderate size are the same object (``(a+b)*(a-b) is a*a - b*b``); larger products
  stay factored (``(x - mean)**2`` over a 1000-element row), which keeps reductions of thousands of terms
  cheap. :func:`expand` multiplies everything out for a full canonical form.

Conversions: :func:`to_sympy`, :class:`Z3Converter` (z3 ``Real``; functions uninterpreted), and
:func:`evaluate` (float64 on concrete inputs, to cross-check against the numeric evaluator).
"""

from __future__ import annotations

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
from typing import TYPE_CHECKING, Any, TypeAlias, assert_never

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "EXPAND_LIMIT",
    "FALSE",
    "ONE",
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
    "compare",
    "const",
    "div",
    "dot",
    "elem",
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

# the limit in force, in a cell so that ``expand`` can lift it while it rebuilds a term
_limit_cell = [EXPAND_LIMIT]


class Fn(enum.Enum):
    """A scalar function applied by :class:`App`. The value is the printed name.

    For the provers these are uninterpreted (z3 ``Function``s) except where noted; :func:`evaluate` and
    :func:`to_sympy` give them their usual meaning.
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


_ARITY = {Fn.PI: 0, Fn.POW: 2}


class CmpOp(enum.Enum):
    """The relation of a :class:`Cmp` between its polynomial and zero. The value is the printed symbol."""

    EQ = "=="  # p == 0
    NE = "!="  # p != 0
    LT = "<"  # p < 0
    LE = "<="  # p <= 0


# Interning ------------------------------------------------------------------------------------------

_Key: TypeAlias = tuple[Any, ...]
_TABLE: weakref.WeakValueDictionary[_Key, Any] = weakref.WeakValueDictionary()

# Ranks order atoms of different kinds in the structural key (and so in the printed normal form).
_R_ELEM, _R_READ, _R_APP, _R_MAX, _R_MIN, _R_SELECT, _R_POLY = range(7)
_R_BCONST, _R_CMP, _R_AND, _R_OR = range(7, 11)


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

    def __str__(self) -> str:
        return f"{self.tensor}[{self.index}]"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class App:
    """The function ``fn`` applied to ``args``."""

    fn: Fn
    args: tuple[Poly, ...]
    key: _Key = field(compare=False)

    def __str__(self) -> str:
        if self.fn is Fn.PI:
            return "pi"
        return f"{self.fn.value}({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Max:
    """The largest of two or more terms (sorted, without duplicates, at most one constant)."""

    args: tuple[Poly, ...]
    key: _Key = field(compare=False)

    def __str__(self) -> str:
        return f"max({', '.join(str(a) for a in self.args)})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Min:
    """The smallest of two or more terms (sorted, without duplicates, at most one constant)."""

    args: tuple[Poly, ...]
    key: _Key = field(compare=False)

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

    def __str__(self) -> str:
        return f"select({self.cond}, {self.then}, {self.other})"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Monomial:
    """A product of atoms raised to nonzero integer powers, sorted by the atoms' structural keys."""

    factors: tuple[tuple[Atom, int], ...]
    key: _Key = field(compare=False)
    _cache: dict[str, Any] = field(compare=False)  # derived values computed on first use

    @property
    def digest(self) -> bytes:
        """A deterministic 16-byte fingerprint of the structure (what a sum's key is made of)."""
        digest = self._cache.get("digest")
        if digest is None:
            digest = hashlib.blake2b(repr(self.key).encode(), digest_size=16).digest()
            self._cache["digest"] = digest
        return digest

    def __str__(self) -> str:
        parts = []
        for atom, e in self.factors:
            text = f"({atom})" if isinstance(atom, Poly) else str(atom)
            parts.append(text if e == 1 else f"{text}^{e}")
        return "*".join(parts)

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Poly:
    """A real-valued term: ``const`` plus the sum of ``coefficient * monomial`` over ``terms``.

    ``terms`` is sorted by the monomials' structural keys and has no zero coefficient. Supports
    ``+ - * /`` and ``**`` (integer exponents) with other :class:`Poly` terms, ints and Fractions.
    """

    const: Fraction
    terms: tuple[tuple[Monomial, Fraction], ...]
    _cache: dict[str, Any] = field(compare=False)  # derived values computed on first use

    @property
    def key(self) -> _Key:
        """The structural sort key: a lone atom's own key, else ``(rank, digest)`` with a fingerprint of
        the structure, so that comparing two large sums costs O(1)."""
        key = self._cache.get("key")
        if key is None:
            mono = _as_monomial(self)
            if mono is not None and mono[0] == 1 and len(mono[1].factors) == 1 and mono[1].factors[0][1] == 1:
                key = mono[1].factors[0][0].key
            else:
                h = hashlib.blake2b(b"".join([m.digest for m, _ in self.terms]), digest_size=16)
                coeffs = [(k.numerator, k.denominator) for _, k in self.terms]
                h.update(repr((self.const.numerator, self.const.denominator, coeffs)).encode())
                key = (_R_POLY, int.from_bytes(h.digest(), "big"))
            self._cache["key"] = key
        return key

    @property
    def is_const(self) -> bool:
        return not self.terms

    @property
    def size(self) -> int:
        """The number of summands (monomials, plus one for a nonzero constant)."""
        return len(self.terms) + (1 if self.const else 0)

    def __str__(self) -> str:
        if not self.terms:
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

    def __str__(self) -> str:
        return "(" + " and ".join(str(a) for a in self.args) + ")"

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True, repr=False)
class Or:
    """Any of two or more truth values (flattened, sorted, without duplicates or constants)."""

    args: tuple[BoolTerm, ...]
    key: _Key = field(compare=False)

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


# Constructors ---------------------------------------------------------------------------------------


def _mk_poly(c: Fraction, terms: tuple[tuple[Monomial, Fraction], ...]) -> Poly:
    # ints hash much faster than Fractions; monomials hash by identity (they are interned)
    ident = (
        _R_POLY,
        c.numerator,
        c.denominator,
        tuple(m for m, _ in terms),
        tuple(k.numerator for _, k in terms),
        tuple(k.denominator for _, k in terms),
    )
    return _interned(ident, lambda: Poly(c, terms, {}))  # type: ignore[no-any-return]


def _mk_mono(factors: tuple[tuple[Atom, int], ...]) -> Monomial:
    def make() -> Monomial:
        return Monomial(factors, tuple((a.key, e) for a, e in factors), {})

    return _interned(("mono", factors), make)  # type: ignore[no-any-return]


def _mono_of(factors: Mapping[Atom, int]) -> Monomial:
    items = sorted(((a, e) for a, e in factors.items() if e != 0), key=lambda ae: ae[0].key)
    return _mk_mono(tuple(items))


def _poly_from(c: Fraction, coeffs: Mapping[Monomial, Fraction], *, nonzero: bool = False) -> Poly:
    """The interned Poly ``c + sum(coeffs)``: zero coefficients dropped (unless the caller says there are
    none), monomials sorted."""
    monos = sorted(coeffs, key=_KEY)
    items = [(m, coeffs[m]) for m in monos] if nonzero else [(m, coeffs[m]) for m in monos if coeffs[m]]
    if not c and len(items) == 1:
        mono, k = items[0]
        if not mono.factors:
            return _mk_poly(k, ())
        if len(mono.factors) == 1:
            atom, e = mono.factors[0]
            # a factored sum to the first power is the sum itself, multiplied out by the coefficient
            if e == 1 and isinstance(atom, Poly):
                return _scale(atom, k)
    if items and not items[0][0].factors:  # a product whose factors cancelled is a constant
        c = c + items[0][1]  # (the empty monomial has the smallest key, so it comes first)
        items = items[1:]
    return _mk_poly(c if isinstance(c, Fraction) else Fraction(c), tuple(items))


_KEY = operator.attrgetter("key")


def _lift(x: Poly | int | Fraction) -> Poly:
    return x if isinstance(x, Poly) else const(x)


def const(value: int | float | Fraction) -> Poly:
    """The exact constant ``value``; floats are converted exactly (``0.1`` is the binary64 value)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"the constant {value} is not a real number")
    return _mk_poly(Fraction(value), ())


ZERO = const(0)
ONE = const(1)


def _atom_poly(atom: Atom) -> Poly:
    return _mk_poly(Fraction(0), ((_mk_mono(((atom, 1),)), Fraction(1)),))


def elem(tensor: str, index: int) -> Poly:
    """Element ``index`` (row-major flat index) of input tensor ``tensor``."""
    atom = _interned((_R_ELEM, tensor, index), lambda: Elem(tensor, index, (_R_ELEM, tensor, index)))
    return _atom_poly(atom)


def read(tensor: str, index: Poly) -> Poly:
    """Element ``index`` of input tensor ``tensor``; an integer constant index gives :func:`elem`."""
    if index.is_const:
        if index.const.denominator != 1:
            raise ValueError(f"index {index} of {tensor} is not an integer")
        return elem(tensor, int(index.const))
    atom = _interned((_R_READ, tensor, index), lambda: Read(tensor, index, (_R_READ, tensor, index.key)))
    return _atom_poly(atom)


def _app(fn: Fn, args: tuple[Poly, ...]) -> Poly:
    atom = _interned((_R_APP, fn, args), lambda: App(fn, args, (_R_APP, fn.value, tuple(a.key for a in args))))
    return _atom_poly(atom)


def _exact_sqrt(q: Fraction) -> Fraction | None:
    if q < 0:
        return None
    rn, rd = math.isqrt(q.numerator), math.isqrt(q.denominator)
    if rn * rn == q.numerator and rd * rd == q.denominator:
        return Fraction(rn, rd)
    return None


def apply(fn: Fn, *args: Poly) -> Poly:
    """``fn(*args)``, simplified only where the result is exact (``exp(0) = 1``, ``sqrt(4) = 2``, ...)."""
    arity = _ARITY.get(fn, 1)
    if len(args) != arity:
        raise ValueError(f"{fn.value} takes {arity} argument(s), got {len(args)}")
    if arity == 1 and args[0].is_const:
        c = args[0].const
        match fn:
            case Fn.EXP if c == 0:
                return ONE
            case Fn.LOG if c == 1:
                return ZERO
            case Fn.SQRT:
                root = _exact_sqrt(c)
                if root is not None:
                    return const(root)
            case Fn.TANH | Fn.ERF | Fn.SIN if c == 0:
                return ZERO
            case Fn.COS if c == 0:
                return ONE
            case Fn.TRUNC:
                return const(math.trunc(c))
            case _:
                pass
    if fn is Fn.POW:
        base, exponent = args
        if exponent.is_const:
            e = exponent.const
            if e.denominator == 1:
                return power(base, int(e))
            if e.denominator == 2:
                return power(apply(Fn.SQRT, base), e.numerator)
    return _app(fn, tuple(args))


# Arithmetic -----------------------------------------------------------------------------------------


def _scale(p: Poly, k: Fraction) -> Poly:
    if k == 0:
        return ZERO
    if k == 1:
        return p
    if k == -1:
        terms = tuple((m, -c) for m, c in p.terms)
    else:
        kn, kd = k.numerator, k.denominator
        # Fraction(n, d) reduces once; this is about twice as fast as Fraction.__mul__ on large sums
        terms = tuple((m, Fraction(c.numerator * kn, c.denominator * kd)) for m, c in p.terms)
    return _mk_poly(p.const * k, terms)


def add(*terms: Poly) -> Poly:
    """The sum of ``terms`` (n-ary, so that reductions cost one pass)."""
    if len(terms) == 1:
        return terms[0]
    c = Fraction(0)
    # the largest operand first: its monomials are already sorted, so the final sort sees long runs
    ordered = sorted(terms, key=lambda t: -len(t.terms))
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
        if len(fa) == 1 and len(fb) == 1 and fa[0][0] is not fb[0][0]:
            # the common case, two different atoms: no merging, one comparison to order them
            pair = (fa[0], fb[0]) if fa[0][0].key < fb[0][0].key else (fb[0], fa[0])
            m = _mk_mono(pair)
        else:
            m = _mono_of(_merge(dict(fa), dict(fb)))
        k = ma[0] * mb[0]
        if not m.factors:
            c += k
        elif m in acc:
            acc[m] = acc[m] + k
        else:
            acc[m] = k
    return add(_poly_from(c, acc), *rest)


def neg(a: Poly) -> Poly:
    out = a._cache.get("neg")
    if out is None:
        out = _scale(a, Fraction(-1))
        a._cache["neg"] = out
    return out


def sub(a: Poly, b: Poly) -> Poly:
    return add(a, neg(b))


def _as_monomial(p: Poly) -> tuple[Fraction, Monomial] | None:
    if p.const == 0 and len(p.terms) == 1:
        return p.terms[0][1], p.terms[0][0]
    return None


def _monic(p: Poly) -> tuple[Fraction, Poly]:
    """``(c, q)`` with ``p == c * q`` and the first monomial of ``q`` having coefficient 1."""
    out = p._cache.get("monic")
    if out is None:
        lead = p.terms[0][1] if p.terms else p.const
        out = (lead, _scale(p, 1 / lead))
        p._cache["monic"] = out
    return out


def _factor_form(p: Poly) -> tuple[Fraction, dict[Atom, int]]:
    """``p`` as ``coefficient * product of atoms ** exponents`` (a sum becomes one monic factor)."""
    mono = _as_monomial(p)
    if mono is not None:
        k, m = mono
        return k, dict(m.factors)
    lead, monic = _monic(p)
    return lead, {monic: 1}


def _from_factors(k: Fraction, factors: Mapping[Atom, int]) -> Poly:
    return _poly_from(Fraction(0), {_mono_of(factors): k})


def _merge(fa: Mapping[Atom, int], fb: Mapping[Atom, int]) -> dict[Atom, int]:
    out = dict(fa)
    for a, e in fb.items():
        out[a] = out.get(a, 0) + e
    return out


def _shares_sum_factor(sum_: Poly, other: Poly) -> bool:
    """Whether ``other`` is a monomial with ``sum_`` (made monic) among its factors (so they cancel)."""
    mono = _as_monomial(other)
    if mono is None or sum_.size < 2:
        return False
    _, monic = _monic(sum_)
    return any(a is monic for a, _ in mono[1].factors)


def mul(a: Poly, b: Poly) -> Poly:
    """The product; sums are multiplied out while the result has at most :data:`EXPAND_LIMIT` monomials."""
    if a.is_const:
        return _scale(b, a.const)
    if b.is_const:
        return _scale(a, b.const)
    ma, mb = _as_monomial(a), _as_monomial(b)
    if ma is not None and mb is not None:
        return _from_factors(ma[0] * mb[0], _merge(dict(ma[1].factors), dict(mb[1].factors)))
    cancels = _shares_sum_factor(a, b) or _shares_sum_factor(b, a)
    if not cancels and a.size * b.size <= _limit_cell[0]:
        c = a.const * b.const
        acc: dict[Monomial, Fraction] = {}
        a_parts = [*a.terms, *(((_mk_mono(()), a.const),) if a.const else ())]
        b_parts = [*b.terms, *(((_mk_mono(()), b.const),) if b.const else ())]
        for m1, k1 in a_parts:
            for m2, k2 in b_parts:
                if not m1.factors and not m2.factors:
                    continue  # the constant * constant part is ``c``
                m = _mono_of(_merge(dict(m1.factors), dict(m2.factors)))
                acc[m] = acc.get(m, Fraction(0)) + k1 * k2
        return _poly_from(c, acc)
    ka, fa = _factor_form(a)
    kb, fb = _factor_form(b)
    return _from_factors(ka * kb, _merge(fa, fb))


def recip(a: Poly) -> Poly:
    """``1 / a``; raises :class:`ZeroDivisionError` for the constant zero.

    A monomial is inverted by negating its exponents, which assumes its atoms are nonzero (see the
    soundness caveats in ``docs/reference.md``).
    """
    if a.is_const:
        if a.const == 0:
            raise ZeroDivisionError("division by the constant zero")
        return const(1 / a.const)
    k, factors = _factor_form(a)
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


def _ordered_args(args: Iterable[Poly]) -> tuple[Poly, ...]:
    seen: dict[int, Poly] = {}
    for a in args:
        seen.setdefault(id(a), a)
    return tuple(sorted(seen.values(), key=lambda p: p.key))


def _extremum(args: Sequence[Poly], is_max: bool) -> Poly:
    if not args:
        raise ValueError("max/min of no terms")
    cls: type[Max] | type[Min] = Max if is_max else Min
    flat: list[Poly] = []
    best: Fraction | None = None
    work = list(args)
    while work:
        a = work.pop()
        mono = _as_monomial(a)
        if mono is not None and mono[0] == 1 and len(mono[1].factors) == 1:
            atom, e = mono[1].factors[0]
            if e == 1 and isinstance(atom, cls):
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
    rank = _R_MAX if is_max else _R_MIN
    atom = _interned((rank, ordered), lambda: cls(ordered, (rank, tuple(a.key for a in ordered))))
    return _atom_poly(atom)


def maximum(*args: Poly) -> Poly:
    """The largest of ``args`` (n-ary; nested maxima are flattened, constants folded)."""
    return _extremum(args, is_max=True)


def minimum(*args: Poly) -> Poly:
    """The smallest of ``args`` (n-ary; nested minima are flattened, constants folded)."""
    return _extremum(args, is_max=False)


# Truth values ---------------------------------------------------------------------------------------

TRUE: BoolConst = _interned((_R_BCONST, True), lambda: BoolConst(True, (_R_BCONST, True)))
FALSE: BoolConst = _interned((_R_BCONST, False), lambda: BoolConst(False, (_R_BCONST, False)))


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
    lead = lhs.terms[0][1]
    # p < 0 and p == 0 are unchanged by a positive scale; == and != also by a negative one
    scale = 1 / lead if op in (CmpOp.EQ, CmpOp.NE) else 1 / abs(lead)
    lhs = _scale(lhs, scale)
    return _interned(  # type: ignore[no-any-return]
        (_R_CMP, op, lhs), lambda: Cmp(op, lhs, (_R_CMP, op.value, lhs.key))
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
    ordered = tuple(sorted(flat.values(), key=lambda t: t.key))
    if not ordered:
        return unit
    if len(ordered) == 1:
        return ordered[0]
    rank = _R_AND if is_and else _R_OR
    return _interned(  # type: ignore[no-any-return]
        (rank, ordered), lambda: cls(ordered, (rank, tuple(a.key for a in ordered)))
    )


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
        lambda: Select(cond, then, other, (_R_SELECT, cond.key, then.key, other.key)),
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


def _post_order(roots: Iterable[object]) -> Iterator[object]:
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
            stack.extend((c, False) for c in _children(node) if id(c) not in seen)


def tensors_of(terms: Iterable[Term]) -> set[str]:
    """The names of the input tensors that ``terms`` read."""
    return {n.tensor for n in _post_order(terms) if isinstance(n, Elem | Read)}


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


def expand(term: Term) -> Term:
    """``term`` with every product of sums multiplied out, inside every atom too: a full normal form in
    which algebraically equal polynomial expressions are the same object (may be large)."""
    memo: dict[int, object] = {}
    with _no_expand_limit():
        for node in _post_order([term]):
            memo[id(node)] = _rebuild(node, memo)
    return memo[id(term)]  # type: ignore[return-value]


def _rebuild(node: object, memo: Mapping[int, object]) -> object:
    def sub_poly(p: Poly) -> Poly:
        return memo[id(p)]  # type: ignore[return-value]

    def sub_bool(b: BoolTerm) -> BoolTerm:
        return memo[id(b)]  # type: ignore[return-value]

    match node:
        case Poly():
            parts = [const(node.const)]
            for mono, k in node.terms:
                prod = const(k)
                for atom, e in mono.factors:
                    rebuilt = memo[id(atom)]
                    base = rebuilt if isinstance(rebuilt, Poly) else _atom_poly(rebuilt)  # type: ignore[arg-type]
                    prod = mul(prod, power(base, e))
                parts.append(prod)
            return add(*parts)
        case Elem() | BoolConst():
            return node
        case Read():
            return _first_atom(read(node.tensor, sub_poly(node.index)))
        case App():
            return _first_atom(apply(node.fn, *(sub_poly(a) for a in node.args)))
        case Max():
            return _first_atom(maximum(*(sub_poly(a) for a in node.args)))
        case Min():
            return _first_atom(minimum(*(sub_poly(a) for a in node.args)))
        case Select():
            return _first_atom(select(sub_bool(node.cond), sub_poly(node.then), sub_poly(node.other)))
        case Cmp():
            lhs = sub_poly(node.lhs)
            return _cmp(node.op, lhs)
        case And():
            return logical_and(*(sub_bool(a) for a in node.args))
        case Or():
            return logical_or(*(sub_bool(a) for a in node.args))
        case _:
            raise TypeError(f"not a term node: {node!r}")


def _first_atom(p: Poly) -> object:
    """The atom of a one-atom Poly, or the Poly itself when a rebuilt atom simplified to something else."""
    mono = _as_monomial(p)
    if mono is not None and mono[0] == 1 and len(mono[1].factors) == 1 and mono[1].factors[0][1] == 1:
        return mono[1].factors[0][0]
    return p


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
}


def evaluate(terms: Sequence[Term], env: Mapping[str, Sequence[float] | np.ndarray[Any, Any]]) -> list[Any]:
    """The float64 values (``bool`` for truth values) of ``terms`` with input tensors bound by ``env``.

    ``env`` maps a tensor name to its elements in row-major order. Shared subterms are evaluated once.
    IEEE semantics: division by zero gives ±inf or nan, overflow gives inf; a :class:`Read` outside the
    tensor gives nan.
    """
    flat = {name: np.asarray(v, dtype=np.float64).reshape(-1) for name, v in env.items()}
    memo: dict[int, Any] = {}
    with np.errstate(all="ignore"):
        for node in _post_order(terms):
            memo[id(node)] = _eval_node(node, memo, flat)
    return [memo[id(t)] for t in terms]


def _eval_node(node: object, memo: Mapping[int, Any], env: Mapping[str, np.ndarray[Any, Any]]) -> Any:
    match node:
        case Poly():
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


def to_sympy(term: Term) -> Any:
    """The sympy expression of ``term``.

    Input elements are ``IndexedBase(tensor)[index]`` (real); functions map to sympy's ``exp``, ``log``,
    ``sqrt``, ``tanh``, ``erf``, ...; :class:`Select` becomes ``Piecewise``.
    """
    import sympy

    bases: dict[str, Any] = {}

    def base(name: str) -> Any:
        if name not in bases:
            bases[name] = sympy.IndexedBase(name, real=True)
        return bases[name]

    fns: dict[Fn, Callable[..., Any]] = {
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
    }
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


class Z3Converter:
    """Converts terms to z3 expressions over one shared set of z3 symbols.

    Input elements are ``Real("tensor[i]")``; a tensor that any converted term reads at a symbolic index
    (:class:`Read`) is a z3 ``Array(Int, Real)`` instead, for all of its elements, so that constant and
    symbolic reads of it agree. Call :meth:`prepare` with every term before converting any of them when
    terms of several sources (spec and kernel) are compared. Functions are uninterpreted z3 functions
    (``pi`` an uninterpreted constant); max, min and select are ``If``; ``x ** -k`` is ``1 / x ** k``
    (z3's division is total: the value at 0 is unspecified).
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
            arity = _ARITY.get(fn, 1)
            self._fns[fn] = z3.Function(fn.value, *([z3.RealSort()] * (arity + 1)))
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
                if node.fn is Fn.PI:
                    return z3.Real("pi")
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
