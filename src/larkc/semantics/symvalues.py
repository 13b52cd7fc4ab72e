"""The symbolic value domain: registers and memory holding exact terms instead of numbers.

The symbolic executor (:mod:`larkc.semantics.symexec`) runs the simulator's statement interpreter over
this second value domain. A register is still a torch tensor over the threads of the launch, so every
statement rule (masks, loops, barriers, shuffles, the memory checks) is the simulator's own; what changes
is the representation of values:

* **Concrete** values keep the simulator's representation: ``torch.bool`` for truth values, ``int64`` for
  integers and pointers. Control flow and addresses are concrete for almost every kernel at a fixed shape.
* **Symbolic** values are ``int32`` tensors of *term ids*: indices into a :class:`TermTable` that holds the
  exact term (:mod:`larkc.symbolic.terms`) each id stands for. Every floating-point value is symbolic
  (its term is an exact real); an integer, truth value or pointer is symbolic when it depends on input data
  (an index read from a tensor, a comparison of floats) and concrete otherwise. No concrete register has
  dtype ``int32``, so the dtype tells the two apart.

Moving ids around (selects, shuffles, stores and loads, vector lanes) is the simulator's own tensor code;
only arithmetic goes through the table (:class:`SymbolicDomain`), one term operation per distinct operand
combination. Floating-point values outside the reals have fixed ids: :data:`UNDEF` (the value of a
variable never assigned, or of memory never written), :data:`POS_INF`, :data:`NEG_INF` and :data:`NAN`,
with IEEE rules where they meet numbers (``max(-inf, x) = x``, ``exp(-inf) = 0``).

Exact arithmetic: casts between floating-point formats are the identity and rounding does not happen; a
float-to-integer conversion truncates the exact value. Integer arithmetic on symbolic integers is exact
and checked against the type's range through the declared value ranges of the input tensors; where wrap
around cannot be excluded the value is opaque (an output computed from it is UNKNOWN).

**Defined operations.** C leaves a float-to-integer conversion of a value outside the integer type's range,
and a signed 32- or 64-bit ``+ - *`` that overflows, undefined; the simulator reports both as ``ub``. Where
the operand is symbolic the domain cannot decide this on its own: it records a :class:`RangeCondition`
(the exact value, the open interval it must lie in, the operation and its location) for every active lane,
unless the value ranges of the inputs (:meth:`SymbolicDomain.int_range`, which also reads ``max``/``min``
clamps) already prove it. The ``defined`` obligation is then to prove or refute each recorded condition
(:mod:`larkc.provers.domains`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, assert_never

import numpy as np
import torch

from larkc.errors import Span
from larkc.ir.nodes import BinaryOp, MathFn
from larkc.ir.types import ScalarKind, ScalarType
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import RangeCondition, Requirement, record
from larkc.symbolic.constants import LN10
from larkc.symbolic.normal import equal
from larkc.symbolic.signs import Sign, sign_of
from larkc.symbolic.terms import BoolConst, BoolTerm, Fn, Poly, Term

__all__ = [
    "DATA_CHOSEN_NONFINITE",
    "FALSE_ID",
    "NAN",
    "NEG_INF",
    "POS_INF",
    "TRUE_ID",
    "UNDEF",
    "NumericNote",
    "SymbolicDomain",
    "SymbolicUnsupported",
    "TermTable",
    "is_sym",
]

UNDEF = 0  # a value never assigned or never written
POS_INF = 1
NEG_INF = 2
NAN = 3
TRUE_ID = 4
FALSE_ID = 5
_SPECIALS = (UNDEF, POS_INF, NEG_INF, NAN)
_INFS = (POS_INF, NEG_INF)

ID_DTYPE = torch.int32

#: Constants of at least this magnitude passed to max/min or compared are *sentinels* (``-FLT_MAX`` as the
#: start of a max reduction): the domain treats them as -inf/+inf and records the assumption.
SENTINEL_MAGNITUDE = Fraction(10) ** 30

#: The reason of an opaque value chosen between a non-finite one and another by data (a bool mask input
#: selecting ``-inf``); the verifier decides such a run by cases over the bool inputs.
DATA_CHOSEN_NONFINITE = "a data-dependent choice of a non-finite value"

OPAQUE = "<opaque>"  # the tensor name of values the domain cannot express (see :meth:`SymbolicDomain.opaque`)
UNDEFINED = "<undef>"  # the tensor name of the distinct unknown values an undefined value stands for


def is_sym(v: torch.Tensor) -> bool:
    """Whether a register tensor holds term ids (rather than concrete values)."""
    return v.dtype == ID_DTYPE


class SymbolicUnsupported(Exception):
    """The domain cannot represent a step soundly; the obligations that depend on it are UNKNOWN."""

    def __init__(self, reason: str, span: Span | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.span = span


@dataclass(frozen=True, slots=True)
class NumericNote:
    """A float-specific step the domain took that a verdict must list (kind ``numeric``)."""

    text: str
    span: Span | None = None


@dataclass(slots=True)
class _LazyProduct:
    """``a * b`` of two real terms (ids), built only when something needs it (a dot product's entry)."""

    a: int
    b: int


@dataclass(slots=True)
class _LazySum:
    """``prev + addend`` (ids; ``prev`` a real term or another lazy sum), built only when needed.

    A kernel accumulates ``acc += a * b`` one product at a time; chaining the additions and building the
    sum once, from all its products (:func:`~larkc.symbolic.terms.dot`), costs one pass instead of one
    term construction per product."""

    prev: int
    addend: int


_Lazy = _LazyProduct | _LazySum


class TermTable:
    """The terms of one symbolic run, by id. Ids are dense ints; the specials come first. An id may stand
    for a lazy sum or product, built into a term (once) the first time it is read."""

    def __init__(self) -> None:
        self.terms: list[Term | _Lazy | None] = [None, None, None, None, tm.TRUE, tm.FALSE]
        self._ids: dict[int, int] = {id(tm.TRUE): TRUE_ID, id(tm.FALSE): FALSE_ID}
        self.lazies = 0  # lazy entries made (built or not)

    def id(self, term: Term) -> int:
        """The id of ``term`` (interned terms: one id per distinct term)."""
        i = self._ids.get(id(term))
        if i is None:
            i = self._append(term)
            self._ids[id(term)] = i
        return i

    def _append(self, entry: Term | _Lazy) -> int:
        i = len(self.terms)
        if i >= 2**31 - 1:
            raise SymbolicUnsupported("too many distinct terms (2^31)")
        self.terms.append(entry)
        return i

    def lazy(self, entry: _Lazy) -> int:
        """A new id for a lazy sum or product."""
        self.lazies += 1
        return self._append(entry)

    @property
    def weight(self) -> int:
        """The size of the table for the term budget: a lazy entry (two ints, a fraction of the memory of a
        term node) counts as a quarter of a term."""
        return len(self.terms) - self.lazies + self.lazies // 4

    def is_lazy(self, i: int) -> bool:
        return isinstance(self.terms[i], _LazyProduct | _LazySum)

    def term(self, i: int) -> Term:
        t = self.terms[i]
        if t is None:
            raise SymbolicUnsupported(f"{_special_name(i)} where a number is needed")
        if isinstance(t, _LazyProduct | _LazySum):
            return self._build(i)
        return t

    def peek(self, i: int) -> Term | None:
        """The term of ``i`` (built if lazy), or ``None`` for a special value."""
        return None if self.terms[i] is None else self.term(i)

    def _build(self, i: int) -> Term:
        entry = self.terms[i]
        if isinstance(entry, _LazyProduct):
            out = tm.mul(self._poly(entry.a), self._poly(entry.b))
        else:
            assert isinstance(entry, _LazySum)
            pairs: list[tuple[Poly, Poly]] = []
            parts: list[Poly] = []
            j = i
            while True:  # walk the chain back to a term (or an already built sum)
                e = self.terms[j]
                if not isinstance(e, _LazySum):
                    parts.append(self._poly(j))
                    break
                a = self.terms[e.addend]
                if isinstance(a, _LazyProduct):
                    pairs.append((self._poly(a.a), self._poly(a.b)))
                else:
                    parts.append(self._poly(e.addend))
                j = e.prev
            out = tm.add(tm.dot(reversed(pairs)), *reversed(parts)) if pairs else tm.add(*reversed(parts))
        self.terms[i] = out
        return out

    def _poly(self, i: int) -> Poly:
        t = self.term(i)
        if not isinstance(t, Poly):
            raise SymbolicUnsupported(f"a truth value {t} where a number is needed")
        return t

    def tensor(self, ids: Sequence[int], shape: Sequence[int] | None = None) -> torch.Tensor:
        out = torch.tensor(list(ids), dtype=ID_DTYPE)
        return out if shape is None else out.reshape(tuple(shape))

    def __len__(self) -> int:
        return len(self.terms)


def _special_name(i: int) -> str:
    return {UNDEF: "an undefined value", POS_INF: "+inf", NEG_INF: "-inf", NAN: "nan"}.get(i, f"term {i}")


def _broadcast(*ts: torch.Tensor) -> list[torch.Tensor]:
    shape: tuple[int, ...] = ()
    for t in ts:
        shape = tuple(np.broadcast_shapes(shape, tuple(t.shape)))
    return [t.expand(shape) for t in ts]


def _unique_map(ids: torch.Tensor, fn: Callable[[int], int]) -> torch.Tensor:
    flat = ids.reshape(-1)
    if flat.numel() == 0:
        return ids.clone()
    uniq, inv = torch.unique(flat, return_inverse=True)
    out = torch.tensor([fn(int(u)) for u in uniq.tolist()], dtype=ID_DTYPE)
    return out[inv].reshape(ids.shape)


def _unique_map2(a: torch.Tensor, b: torch.Tensor, fn: Callable[[int, int], int]) -> torch.Tensor:
    a, b = _broadcast(a, b)
    if a.numel() == 0:
        return a.to(ID_DTYPE).clone()
    key = a.reshape(-1).to(torch.int64) * (1 << 31) + b.reshape(-1).to(torch.int64)
    uniq, inv = torch.unique(key, return_inverse=True)
    out = torch.tensor([fn(k >> 31, k & ((1 << 31) - 1)) for k in uniq.tolist()], dtype=ID_DTYPE)
    return out[inv].reshape(a.shape)


def _unique_map3(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, fn: Callable[[int, int, int], int]) -> torch.Tensor:
    a, b, c = _broadcast(a, b, c)
    if a.numel() == 0:
        return a.to(ID_DTYPE).clone()
    stacked = torch.stack([a.reshape(-1), b.reshape(-1), c.reshape(-1)], dim=1).to(torch.int64)
    uniq, inv = torch.unique(stacked, dim=0, return_inverse=True)
    out = torch.tensor([fn(x, y, z) for x, y, z in uniq.tolist()], dtype=ID_DTYPE)
    return out[inv].reshape(a.shape)


@dataclass(slots=True)
class _Ranges:
    """Integer intervals of the input elements (from the tensors' dtypes and declared value ranges)."""

    by_tensor: dict[str, tuple[int, int]] = field(default_factory=dict)


#: Functions defined at every real argument: a sign :func:`sign_of` gives for a term made of them (and of
#: sums, products with nonnegative powers, max, min and selects) holds for every input. ``sqrt``, ``log``
#: and ``pow`` are not (NaN outside their domain: ``sqrtf(v - 1) >= 0`` is false for ``v < 1``), nor is
#: a negative power (a division by a value that may be 0).
_TOTAL_FNS = frozenset({Fn.EXP, Fn.TANH, Fn.ERF, Fn.SIN, Fn.COS, Fn.TRUNC, Fn.PI, Fn.LN2, Fn.EXP2})


def _total(term: Poly) -> bool:
    """Whether ``term`` is defined at every input (see :data:`_TOTAL_FNS`)."""
    return tm.built_from(term, _TOTAL_FNS)


#: The partial functions of :meth:`SymbolicDomain.require_defined`: NaN (or an infinity) outside their
#: domain. Division records its own condition (``!= 0``) when its term is built; the functions without an
#: exact rule (``asin``, ``acos``, ``fmod``, ...) make opaque values, whose outputs are UNKNOWN anyway.
_PARTIAL_FNS = frozenset({MathFn.SQRT, MathFn.RSQRT, MathFn.LOG, MathFn.LOG2, MathFn.LOG10, MathFn.LOG1P, MathFn.POW})


class SymbolicDomain:
    """Term operations over id tensors, with the IEEE rules for the special values.

    ``constant_reader`` maps a floating-point constant of the kernel (and its type) to the exact term it
    stands for and, when that reading is an assumption (a float literal read as the reference's decimal
    constant or as a named irrational), the note the verdict lists. ``int_ranges`` bounds the elements of
    integer input tensors (``[low, high]`` inclusive), for the range checks of symbolic integer arithmetic.
    """

    def __init__(
        self,
        constant_reader: Callable[[float, ScalarType], tuple[Poly, str | None]],
        int_ranges: Mapping[str, tuple[int, int]],
    ) -> None:
        self.table = TermTable()
        self.read_constant = constant_reader
        self.ranges = _Ranges(dict(int_ranges))
        self.notes: dict[str, NumericNote] = {}
        self.opaque_reasons: dict[str, Span | None] = {}
        self._fresh = 0
        self._range_memo: dict[int, tuple[float, float]] = {}
        self._views: dict[int, tuple[int, ScalarType]] = {}  # view id -> (viewed id, its type)
        self._view_ids: dict[tuple[int, ScalarType], int] = {}
        #: pack id -> (the ids it packs, lowest address first, their type); see :meth:`pack`
        self._packs: dict[int, tuple[tuple[int, ...], ScalarType]] = {}
        self._pack_ids: dict[tuple[tuple[int, ...], ScalarType, ScalarType], int] = {}
        self.span: Span | None = None  # the expression being evaluated, for notes and errors
        #: the range conditions of the defined obligation, each (value, operation) once, in order
        self.range_conditions: dict[tuple[int, str], RangeCondition] = {}
        self._checked: set[tuple[int, str]] = set()

    # -- ids and terms ---------------------------------------------------------------------------------

    def id(self, term: Term) -> int:
        return self.table.id(term)

    def term(self, i: int) -> Term:
        return self.table.term(i)

    def poly(self, i: int) -> Poly:
        t = self.table.term(i)
        if not isinstance(t, Poly):
            raise SymbolicUnsupported(f"a truth value {t} where a number is needed", self.span)
        return t

    def truth(self, i: int) -> BoolTerm:
        t = self.table.term(i)
        if isinstance(t, Poly):
            return tm.compare("!=", t, tm.ZERO)
        return t

    def decided(self, i: int) -> bool | None:
        """The truth value ``i`` has whatever the inputs, when the sign oracle (:func:`sign_of`) decides its
        comparison (``0 <= max(x, 0, -x)``: a max with a zero argument is never negative), else ``None``."""
        t = self.truth(i)
        if isinstance(t, BoolConst):
            return t.value
        if not isinstance(t, tm.Cmp) or not _total(t.lhs):
            return None
        signs = sign_of(t.lhs).value  # the comparison is `lhs op 0`
        neg, zero, pos = (signs & Sign.NEGATIVE.value, signs & Sign.ZERO.value, signs & Sign.POSITIVE.value)
        neg, zero, pos = self._signs_in_range(t.lhs, bool(neg), bool(zero), bool(pos))
        match t.op:
            case tm.CmpOp.LT:
                holds, fails = not (zero or pos), not neg
            case tm.CmpOp.LE:
                holds, fails = not pos, not (neg or zero)
            case tm.CmpOp.EQ:
                holds, fails = not (neg or pos), not zero
            case tm.CmpOp.NE:
                holds, fails = not zero, not (neg or pos)
            case _:
                assert_never(t.op)
        return True if holds else (False if fails else None)

    def _signs_in_range(self, p: Poly, neg: bool, zero: bool, pos: bool) -> tuple[bool, bool, bool]:
        """The signs ``p`` may take, narrowed by the interval the inputs' declared value ranges give it:
        Liger's ``if label == ignore_index`` is ``label + 100 == 0``, never true for labels in
        ``[0, vocab)``, so the branch is no branch on data."""
        lo, hi = self.int_range(p)
        return neg and lo < 0, zero and lo <= 0 <= hi, pos and hi > 0

    def note(self, text: str) -> None:
        self.notes.setdefault(text, NumericNote(text, self.span))

    def fresh(self, kind: str) -> Poly:
        """A new unknown real: an opaque value (``<opaque>``) or one undefined value (``<undef>``)."""
        self._fresh += 1
        return tm.elem(kind, self._fresh)

    @property
    def unknowns(self) -> int:
        """How many fresh unknown values (:meth:`fresh`) this domain has made."""
        return self._fresh

    def opaque(self, shape: Sequence[int], reason: str) -> torch.Tensor:
        """Fresh unknown values, one per element: what the domain cannot express but need not branch on.

        Outputs that depend on them are UNKNOWN (never equal, never refuted)."""
        self.opaque_reasons.setdefault(reason, self.span)
        n = math.prod(shape)
        return self.table.tensor([self.id(self.fresh(OPAQUE)) for _ in range(n)], shape)

    def bits_view(self, ids: torch.Tensor, src: ScalarType, dst: ScalarType) -> torch.Tensor:
        """The values of ``ids`` (of type ``src``) with their bits read as ``dst`` (same size).

        A view of a non-constant value is an opaque value that remembers what it views, so that reading
        the bits back as ``src`` gives the original value exactly (``__int_as_float(__float_as_int(x))``
        is ``x``; a ``float4`` copied through ``int4`` registers and memory is unchanged). One view per
        value and type, so equal values give equal views.
        """
        if src.size != dst.size:
            raise SymbolicUnsupported(f"a reinterpretation of {src} as {dst} of another size", self.span)

        def view(i: int) -> int:
            origin = self._views.get(i)
            if origin is not None and origin[1] == dst:
                return origin[0]  # the bits read back as the type they came from
            key = (i, dst)
            out = self._view_ids.get(key)
            if out is None:
                out = self._opaque_id(f"the bits of a {src} value read as {dst}")
                self._views[out] = (i, src)
                self._view_ids[key] = out
            return out

        return _unique_map(ids, view)

    def pack(self, ids: torch.Tensor, src: ScalarType, dst: ScalarType) -> torch.Tensor:
        """The values of ``dst`` whose bits are ``k`` values of ``src`` each (``ids`` of shape ``[..., k]``,
        lowest address first, ``k * src.size == dst.size``): shape ``[...]``.

        A pack of non-constant values is an opaque value that remembers what it packs, so that unpacking
        it (:meth:`unpack`, or a store of it read back as ``src``) gives the values exactly: llm.c's
        ``Packed128`` of eight bf16 lanes moved through an ``int4``. One pack per tuple and type.
        """
        k = ids.shape[-1]
        if k * src.size != dst.size:
            raise SymbolicUnsupported(f"a packing of {k} {src} values as {dst}", self.span)
        rows = ids.reshape(-1, k).tolist()
        out = []
        for row in rows:
            key = (tuple(int(i) for i in row), src, dst)
            got = self._pack_ids.get(key)
            if got is None:
                got = self._opaque_id(f"the bits of {k} {src} values read as one {dst}")
                self._packs[got] = (key[0], src)
                self._pack_ids[key] = got
            out.append(got)
        return torch.tensor(out, dtype=ID_DTYPE).reshape(ids.shape[:-1])

    @property
    def has_packs(self) -> bool:
        """Whether any value packs others (:meth:`pack`): memory need not look for them otherwise."""
        return bool(self._packs)

    def packed(self, i: int) -> tuple[tuple[int, ...], ScalarType] | None:
        """What the value ``i`` packs (its values, lowest address first, and their type), if a pack."""
        return self._packs.get(i)

    def unpack(self, i: int, src: ScalarType, k: int) -> tuple[int, ...] | None:
        """The ``k`` values of ``src`` that the value ``i`` packs (:meth:`pack`), or ``None``."""
        packed = self._packs.get(i)
        if packed is None or packed[1] != src or len(packed[0]) != k:
            return None
        return packed[0]

    def unpack_all(self, ids: torch.Tensor, src: ScalarType, k: int) -> torch.Tensor:
        """Each value of ``ids`` as the ``k`` values of ``src`` its bits are (shape ``[..., k]``): what it
        packs, else fresh opaque values."""
        out: list[int] = []
        for i in ids.reshape(-1).tolist():
            parts = self.unpack(int(i), src, k)
            if parts is None:
                parts = tuple(self._opaque_id(f"the bits of one value read as {k} {src} values") for _ in range(k))
            out.extend(parts)
        return torch.tensor(out, dtype=ID_DTYPE).reshape(*ids.shape, k)

    # -- lifting concrete values -----------------------------------------------------------------------

    def lift(self, v: torch.Tensor, t: ScalarType) -> torch.Tensor:
        """A concrete register tensor of type ``t`` as term ids (ids pass through)."""
        if is_sym(v):
            return v
        if v.dtype == torch.bool:
            return torch.where(v, TRUE_ID, FALSE_ID).to(ID_DTYPE)
        if v.dtype.is_floating_point:
            return _unique_map(v.to(torch.float64).view(torch.int64), lambda bits: self._float_id(bits, t))
        return _unique_map(v, lambda x: self.id(tm.const(self._int_value(x, t))))

    def _int_value(self, x: int, t: ScalarType) -> int:
        if t.is_int and t.is_unsigned and t.bits == 64 and x < 0:
            return x + 2**64  # u64 registers hold the bit pattern
        return x

    def _float_id(self, bits: int, t: ScalarType) -> int:
        value = float(np.int64(bits).view(np.float64))
        return self.float_const(value, t)

    def float_const(self, value: float, t: ScalarType) -> int:
        """The id of a floating-point constant of the kernel."""
        if math.isnan(value):
            return NAN
        if math.isinf(value):
            return POS_INF if value > 0 else NEG_INF
        term, note = self.read_constant(value, t)
        if note is not None:
            self.note(note)
        return self.id(term)

    def concrete(self, ids: torch.Tensor, t: ScalarType) -> torch.Tensor | None:
        """The concrete register tensor of ``ids`` when every term is a constant (else ``None``)."""
        uniq = torch.unique(ids.reshape(-1)).tolist()
        values: dict[int, Any] = {}
        for u in uniq:
            if u in _SPECIALS:
                if not t.is_float:
                    return None
                values[u] = {UNDEF: math.nan, POS_INF: math.inf, NEG_INF: -math.inf, NAN: math.nan}[u]
                continue
            term = self.table.term(u)
            if t.is_bool:
                if not isinstance(term, BoolConst):
                    if isinstance(term, Poly) and term.is_const:
                        values[u] = term.const != 0
                        continue
                    return None
                values[u] = term.value
            else:
                if not isinstance(term, Poly) or not term.is_const:
                    return None
                if t.is_int:
                    if term.const.denominator != 1:
                        return None
                    values[u] = int(term.const)
                else:
                    values[u] = float(term.const)
        if not uniq:
            dtype = torch.bool if t.is_bool else (torch.int64 if t.is_int else torch.float64)
            return torch.zeros(ids.shape, dtype=dtype)
        lut_keys = torch.tensor(uniq, dtype=torch.int64)
        pos = torch.searchsorted(lut_keys, ids.reshape(-1).to(torch.int64))
        if t.is_bool:
            lut = torch.tensor([values[u] for u in uniq], dtype=torch.bool)
        elif t.is_int:
            vals = [values[u] for u in uniq]
            if t.is_unsigned and t.bits == 64:
                vals = [v - 2**64 if v >= 2**63 else v for v in vals]
            lut = torch.tensor(vals, dtype=torch.int64)
        else:
            lut = torch.tensor([values[u] for u in uniq], dtype=torch.float64)
        return lut[pos].reshape(ids.shape)

    # -- integer ranges --------------------------------------------------------------------------------

    def int_range(self, p: Poly) -> tuple[float, float]:
        """An interval containing every value of the integer term ``p`` (inputs in their ranges)."""
        key = id(p)
        r = self._range_memo.get(key)
        if r is None:
            r = self._poly_range(p)
            self._range_memo[key] = r
        return r

    def _poly_range(self, p: Poly) -> tuple[float, float]:
        lo = hi = float(p.const)
        for mono, k in p.terms:
            mlo, mhi = 1.0, 1.0
            for atom, e in mono.factors:
                alo, ahi = self._atom_range(atom)
                if e < 0:
                    return (-math.inf, math.inf)
                for _ in range(e):
                    cands = [mlo * alo, mlo * ahi, mhi * alo, mhi * ahi]
                    cands = [0.0 if math.isnan(c) else c for c in cands]
                    mlo, mhi = min(cands), max(cands)
            kf = float(k)
            a, b = kf * mlo, kf * mhi
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def _atom_range(self, atom: object) -> tuple[float, float]:
        if isinstance(atom, tm.Elem):
            r = self.ranges.by_tensor.get(atom.tensor)
            if r is None:
                return (-math.inf, math.inf)
            return (float(r[0]), float(r[1]))
        if isinstance(atom, Poly):
            return self.int_range(atom)
        if isinstance(atom, tm.Select):
            a, b = self.int_range(atom.then), self.int_range(atom.other)
            return (min(a[0], b[0]), max(a[1], b[1]))
        if isinstance(atom, tm.Max | tm.Min):
            rs = [self.int_range(x) for x in atom.args]
            if isinstance(atom, tm.Max):
                return (max(r[0] for r in rs), max(r[1] for r in rs))
            return (min(r[0] for r in rs), min(r[1] for r in rs))
        return (-math.inf, math.inf)

    def fitting(self, ids: torch.Tensor, t: ScalarType, what: str) -> torch.Tensor:
        """``ids`` with every symbolic integer that may leave ``t``'s range replaced by an opaque value.

        Within the range, exact arithmetic is C's arithmetic; outside it the value wraps (or the result is
        undefined), which terms do not express. The replacement keeps the run going: an output computed
        from it is UNKNOWN, and control flow or an address depending on it stops the run.
        """
        lo_t, hi_t = _type_range(t)
        bad: dict[int, int] = {}
        for u in torch.unique(ids.reshape(-1)).tolist():
            term = self.table.term(u) if u not in _SPECIALS else None
            if not isinstance(term, Poly) or u in self._views or _lone_unknown(term):
                continue  # a bit view or an opaque value of the type: in its range by construction
            lo, hi = self.int_range(term)
            if lo < lo_t or hi > hi_t:
                bad[u] = self._opaque_id(f"data-dependent {what} may leave the range of {t}")
        if not bad:
            return ids
        return _unique_map(ids, lambda u: bad.get(u, u))

    def require_range(
        self, ids: torch.Tensor, active: torch.Tensor | None, low: Fraction, high: Fraction, what: str
    ) -> None:
        """Record that the operation ``what`` is defined only where each active lane's value of ``ids`` lies
        in the open interval ``(low, high)`` (see :class:`RangeCondition`). ``active`` is the mask of the
        threads whose results matter (the leading dimension of ``ids``); specials (an undefined value, an
        infinity, NaN) become opaque where they are converted and are not recorded."""
        lanes = ids
        if active is not None and ids.dim() >= 1 and ids.shape[0] == active.shape[0]:
            lanes = ids[active]
        for u in torch.unique(lanes.reshape(-1)).tolist():
            if u in _SPECIALS or (u, what) in self._checked:
                continue
            self._checked.add((u, what))
            term = self.table.term(u)
            if not isinstance(term, Poly) or term.is_const:
                continue  # a constant is checked by the simulator's own rule
            lo, hi = self.int_range(term)
            # the interval is computed in floating point: keep a margin so that rounding cannot claim it
            margin = 1e-9 * max(1.0, abs(float(low)), abs(float(high)))
            proved = lo > float(low) + margin and hi < float(high) - margin
            self.range_conditions.setdefault((id(term), what), RangeCondition(term, low, high, what, self.span, proved))

    def require_defined(
        self, fn: MathFn, args: Sequence[torch.Tensor], active: torch.Tensor | None, guard: torch.Tensor | None
    ) -> None:
        """Record the domain condition of the partial function ``fn`` (``sqrt``, ``rsqrt``, the logarithms,
        ``pow``) of ``args`` (ids, as passed to :meth:`float_math`) for every lane of a thread of ``active``,
        *when it is evaluated*: the normal form may later cancel the whole application (``0 * sqrt(v - 1)``,
        ``t - t``) where the GPU computes NaN, and the condition must outlive it. Inside an if-converted arm
        (``guard``: the arm's truth id per thread) the condition is ``select(guard, arg, 1)``: only the
        lanes that take the arm need it. Constants are the simulator's (``sqrt(-1)`` is NaN already), and a
        special value (an infinity, NaN, an undefined value) is no real argument: nothing is recorded."""
        if fn not in _PARTIAL_FNS:
            return
        ts = _broadcast(*args) if len(args) > 1 else [args[0]]
        n_threads = active.shape[0] if active is not None else (guard.shape[0] if guard is not None else 0)
        if guard is not None and (ts[0].dim() == 0 or guard.dim() > ts[0].dim()):
            guard = None  # a guard per lane of a value per thread: every lane's condition (never unsound)
        if guard is not None and ts[0].dim() >= 1:
            g = guard if guard.dim() == ts[0].dim() else guard.reshape(-1, *([1] * (ts[0].dim() - 1)))
            ts = _broadcast(g, *ts)
        rows = ts[0].shape[0] if ts[0].dim() >= 1 else 1
        if active is not None and ts[0].dim() >= 1 and rows == n_threads:
            ts = [t[active] for t in ts]
        if ts[0].numel() == 0:
            return
        stacked = torch.stack([t.reshape(-1).to(torch.int64) for t in ts], dim=1)
        for row in torch.unique(stacked, dim=0).tolist():
            g_id, ids = (row[0], row[1:]) if guard is not None else (TRUE_ID, row)
            if g_id == FALSE_ID or any(i in _SPECIALS for i in ids):
                continue
            condition = self._domain_condition(fn, [self.poly(i) for i in ids])
            if condition is None:
                continue
            arg, requirement = condition
            if g_id != TRUE_ID:
                arg = tm.select(self.truth(g_id), arg, tm.ONE)  # 1 satisfies every requirement
            record(arg, requirement)

    @staticmethod
    def _domain_condition(fn: MathFn, ps: list[Poly]) -> tuple[Poly, Requirement] | None:
        """What ``fn(*ps)`` needs of its arguments to be a real number (see :data:`_PARTIAL_FNS`); ``None``
        when nothing (a constant argument in the domain, an integer power)."""
        match fn:
            case MathFn.SQRT | MathFn.RSQRT:
                # rsqrt's ``!= 0`` is its division's, recorded when ``1 / sqrt(arg)`` is built
                arg, requirement = ps[0], Requirement.NONNEGATIVE
            case MathFn.LOG | MathFn.LOG2 | MathFn.LOG10:
                arg, requirement = ps[0], Requirement.POSITIVE
            case MathFn.LOG1P:
                arg, requirement = tm.add(ps[0], tm.ONE), Requirement.POSITIVE
            case MathFn.POW:
                x, y = ps
                if y.is_const and y.const.denominator == 1:
                    return None  # x ** k: a negative k divides, and the division records x != 0
                # x ** (p/q), q > 1, p > 0 is defined for x >= 0; any other exponent needs x > 0
                positive_fraction = y.is_const and y.const > 0
                arg = x
                requirement = Requirement.NONNEGATIVE if positive_fraction else Requirement.POSITIVE
            case _:
                return None
        if arg.is_const:
            # sqrt, rsqrt and the logarithms of a constant are evaluated (NaN, -inf: :meth:`_fmath1`); a
            # constant base of pow with a fractional or symbolic exponent is not, and needs its condition
            c = arg.const
            if fn is not MathFn.POW or c > 0 or (c == 0 and requirement is Requirement.NONNEGATIVE):
                return None
        return arg, requirement

    # -- floating-point arithmetic ---------------------------------------------------------------------

    def float_binary(self, op: BinaryOp, a: torch.Tensor, b: torch.Tensor, t: ScalarType) -> torch.Tensor:
        match op:
            case BinaryOp.ADD:
                return _unique_map2(a, b, self._fadd)
            case BinaryOp.SUB:
                return _unique_map2(a, b, lambda x, y: self._fadd(x, self._fneg(y)))
            case BinaryOp.MUL:
                return _unique_map2(a, b, self._fmul)
            case BinaryOp.DIV:
                return _unique_map2(a, b, self._fdiv)
            case BinaryOp.MIN | BinaryOp.MAX:
                is_max = op is BinaryOp.MAX
                return _unique_map2(a, b, lambda x, y: self._fextremum(x, y, is_max))
            case BinaryOp.EQ | BinaryOp.NE | BinaryOp.LT | BinaryOp.LE | BinaryOp.GT | BinaryOp.GE:
                return _unique_map2(a, b, lambda x, y: self._fcompare(op, x, y))
            case _:
                raise SymbolicUnsupported(f"operator {op.value} on {t} values", self.span)

    def _fneg(self, x: int) -> int:
        if x in _SPECIALS:
            return {POS_INF: NEG_INF, NEG_INF: POS_INF}.get(x, x)
        return self.id(tm.neg(self.poly(x)))

    def _fadd(self, x: int, y: int) -> int:
        if UNDEF in (x, y):
            return UNDEF
        if NAN in (x, y):
            return NAN
        if x in _INFS or y in _INFS:
            if x in _INFS and y in _INFS and x != y:
                return NAN
            return x if x in _INFS else y
        table = self.table
        if isinstance(table.terms[y], _LazySum) and not isinstance(table.terms[x], _LazySum):
            x, y = y, x  # chain onto the running sum
        if isinstance(table.terms[x], _LazySum) or isinstance(table.terms[y], _LazyProduct):
            return table.lazy(_LazySum(x, y))
        return self.id(tm.add(self.poly(x), self.poly(y)))

    def _sign_of_const(self, i: int) -> int | None:
        t = self.table.term(i)
        if isinstance(t, Poly) and t.is_const:
            return (t.const > 0) - (t.const < 0)
        return None

    def _fmul(self, x: int, y: int) -> int:
        if UNDEF in (x, y):
            return UNDEF
        if NAN in (x, y):
            return NAN
        if x in _INFS or y in _INFS:
            if x in _INFS and y in _INFS:
                return POS_INF if x == y else NEG_INF
            inf, other = (x, y) if x in _INFS else (y, x)
            sign = self._sign_of_const(other)
            if sign is None:
                return self._opaque_id("an infinity times a value of unknown sign")
            if sign == 0:
                return NAN
            return inf if sign > 0 else (NEG_INF if inf == POS_INF else POS_INF)
        if not self.table.is_lazy(x) and not self.table.is_lazy(y):
            return self.table.lazy(_LazyProduct(x, y))  # built when read: usually as an entry of a dot product
        return self.id(tm.mul(self.poly(x), self.poly(y)))

    def _fdiv(self, x: int, y: int) -> int:
        if UNDEF in (x, y):
            return UNDEF
        if NAN in (x, y):
            return NAN
        if y in _INFS:
            return NAN if x in _INFS else self.id(tm.ZERO)
        if x in _INFS:
            sign = self._sign_of_const(y)
            if sign is None:
                return self._opaque_id("an infinity divided by a value of unknown sign")
            if sign == 0:
                return x
            return x if sign > 0 else self._fneg(x)
        py = self.poly(y)
        if py.is_const and py.const == 0:
            sign = self._sign_of_const(x)
            if sign is None:
                return self._opaque_id("a division by zero")
            return NAN if sign == 0 else (POS_INF if sign > 0 else NEG_INF)
        return self.id(tm.div(self.poly(x), py))

    def _opaque_id(self, reason: str) -> int:
        self.opaque_reasons.setdefault(reason, self.span)
        return self.id(self.fresh(OPAQUE))

    def _sentinel(self, i: int) -> int:
        """+1 / -1 for a constant of sentinel magnitude (or an infinity), 0 otherwise."""
        if i == POS_INF:
            return 1
        if i == NEG_INF:
            return -1
        if i in _SPECIALS:
            return 0
        t = self.table.term(i)
        if isinstance(t, Poly) and t.is_const and abs(t.const) >= SENTINEL_MAGNITUDE:
            return 1 if t.const > 0 else -1
        return 0

    def _note_sentinel(self, i: int) -> None:
        if i in _INFS:
            return
        t = self.table.term(i)
        assert isinstance(t, Poly)
        side = "greater" if t.const < 0 else "less"
        self.note(f"every value compared with the sentinel {float(t.const):g} is {side} than it")

    def _ext_const(self, i: int) -> Fraction | float | None:
        """The value of a constant or an infinity (``None`` for a symbolic term)."""
        if i == POS_INF:
            return math.inf
        if i == NEG_INF:
            return -math.inf
        if i in _SPECIALS:
            return None
        t = self.table.term(i)
        if isinstance(t, Poly) and t.is_const:
            return t.const
        return None

    def _fextremum(self, x: int, y: int, is_max: bool) -> int:
        if UNDEF in (x, y):
            return UNDEF
        # fmaxf / fminf: a NaN operand yields the other operand (the simulator's rule)
        if x == NAN:
            return y
        if y == NAN:
            return x
        cx, cy = self._ext_const(x), self._ext_const(y)
        if cx is not None and cy is not None:
            return x if (cx >= cy if is_max else cx <= cy) else y
        identity = -1 if is_max else 1  # the sentinel that max (min) ignores
        for s_id, other in ((x, y), (y, x)):
            side = self._sentinel(s_id)
            if side == identity:
                self._note_sentinel(s_id)
                return other
            if side == -identity:
                self._note_sentinel(s_id)
                return s_id
        px, py = self.poly(x), self.poly(y)
        return self.id(tm.maximum(px, py) if is_max else tm.minimum(px, py))

    def _fcompare(self, op: BinaryOp, x: int, y: int) -> int:
        if UNDEF in (x, y):
            return self.id(tm.compare("!=", self.fresh(UNDEFINED), tm.ZERO))
        if NAN in (x, y):
            return TRUE_ID if op is BinaryOp.NE else FALSE_ID
        cx, cy = self._ext_const(x), self._ext_const(y)
        if cx is not None and cy is not None:
            return TRUE_ID if _cmp(op, cx, cy) else FALSE_ID
        sx, sy = self._sentinel(x), self._sentinel(y)
        if sx:
            self._note_sentinel(x)
            return TRUE_ID if _cmp(op, sx, 0) else FALSE_ID
        if sy:
            self._note_sentinel(y)
            return TRUE_ID if _cmp(op, 0, sy) else FALSE_ID
        return self.id(tm.compare(_CMP_TEXT[op], self.poly(x), self.poly(y)))

    def float_unary_neg(self, a: torch.Tensor) -> torch.Tensor:
        return _unique_map(a, self._fneg)

    def float_math(self, fn: MathFn, args: list[torch.Tensor], t: ScalarType) -> torch.Tensor:
        match len(args):
            case 1:
                return _unique_map(args[0], lambda x: self._fmath1(fn, x))
            case 2:
                return _unique_map2(args[0], args[1], lambda x, y: self._fmath2(fn, x, y))
            case 3:
                if fn is not MathFn.FMA:
                    raise SymbolicUnsupported(f"math function {fn.value}", self.span)
                return _unique_map3(args[0], args[1], args[2], lambda x, y, z: self._fadd(self._fmul(x, y), z))
            case _:
                raise SymbolicUnsupported(f"math function {fn.value} of {len(args)} arguments", self.span)

    def _fmath1(self, fn: MathFn, x: int) -> int:
        if x == UNDEF and fn in (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE):
            # a truth value like a comparison of an undefined value: unknown, not a number
            return self.id(tm.compare("!=", self.fresh(UNDEFINED), tm.ZERO))
        if x == UNDEF:
            return UNDEF
        if fn in (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE):
            # exact arithmetic: every number term is a finite real
            is_nan, is_inf = x == NAN, x in _INFS
            value = {MathFn.ISNAN: is_nan, MathFn.ISINF: is_inf, MathFn.ISFINITE: not (is_nan or is_inf)}[fn]
            return TRUE_ID if value else FALSE_ID
        if x in _SPECIALS:
            return self._special_math(fn, x)
        p = self.poly(x)
        match fn:
            case MathFn.EXP:
                return self.id(tm.apply(Fn.EXP, p))
            case MathFn.EXP2:
                return self.id(tm.apply(Fn.EXP2, p))
            case MathFn.EXP10:
                return self.id(tm.apply(Fn.EXP, tm.mul(p, LN10)))
            case MathFn.EXPM1:
                return self.id(tm.sub(tm.apply(Fn.EXP, p), tm.ONE))
            case MathFn.LOG | MathFn.LOG2 | MathFn.LOG10 | MathFn.LOG1P:
                q = tm.add(p, tm.ONE) if fn is MathFn.LOG1P else p
                if q.is_const and q.const <= 0:
                    return NEG_INF if q.const == 0 else NAN  # log(0) = -inf, log of a negative is NaN
                if fn is MathFn.LOG2:
                    return self.id(tm.apply(Fn.LOG2, q))
                if fn is MathFn.LOG10:
                    return self.id(tm.div(tm.apply(Fn.LOG, q), LN10))
                return self.id(tm.apply(Fn.LOG, q))
            case MathFn.SQRT:
                if p.is_const and p.const < 0:
                    return NAN
                return self.id(tm.apply(Fn.SQRT, p))
            case MathFn.RSQRT:  # 1 / sqrt(x), with IEEE division: rsqrt(0) = +inf, rsqrt(-1) = NaN
                return self._fdiv(self.id(tm.ONE), self._fmath1(MathFn.SQRT, x))
            case MathFn.TANH:
                return self.id(tm.apply(Fn.TANH, p))
            case MathFn.ERF:
                return self.id(tm.apply(Fn.ERF, p))
            case MathFn.ERFC:
                return self.id(tm.sub(tm.ONE, tm.apply(Fn.ERF, p)))
            case MathFn.SIN:
                return self.id(tm.apply(Fn.SIN, p))
            case MathFn.COS:
                return self.id(tm.apply(Fn.COS, p))
            case MathFn.ABS:
                return self.id(tm.maximum(p, tm.neg(p)))
            case MathFn.TRUNC:
                return self.id(tm.apply(Fn.TRUNC, p))
            case MathFn.SIGNBIT:
                return self.id(tm.compare("<", p, tm.ZERO))
            case _:
                if p.is_const:
                    return self._numeric_math(fn, [p.const])
                return self._opaque_id(f"math function {fn.value} (no exact rule)")

    def _fmath2(self, fn: MathFn, x: int, y: int) -> int:
        if UNDEF in (x, y):
            return UNDEF
        if fn is MathFn.DIV:
            return self._fdiv(x, y)
        if x in _SPECIALS or y in _SPECIALS:
            if x in (NAN,) or y in (NAN,):
                return NAN
            return self._opaque_id(f"{fn.value} of an infinity")
        px, py = self.poly(x), self.poly(y)
        match fn:
            case MathFn.POW:
                if py.is_const and py.const.denominator == 1:
                    if px.is_const and px.const == 0 and py.const < 0:
                        return POS_INF
                    return self.id(tm.power(px, int(py.const)))
                return self.id(tm.apply(Fn.POW, px, py))
            case MathFn.COPYSIGN:
                magnitude = tm.maximum(px, tm.neg(px))
                return self.id(tm.select(tm.compare("<", py, tm.ZERO), tm.neg(magnitude), magnitude))
            case _:
                if px.is_const and py.is_const:
                    return self._numeric_math(fn, [px.const, py.const])
                return self._opaque_id(f"math function {fn.value} (no exact rule)")

    def _numeric_math(self, fn: MathFn, args: list[Fraction]) -> int:
        """A math function of constants with an exact rational value (floor, ceil, round, rint); anything
        else is opaque."""
        value = _NUMERIC_EXACT.get(fn)
        if value is None:
            return self._opaque_id(f"math function {fn.value} of constants (no exact value)")
        return self.id(tm.const(value(*args)))

    def _special_math(self, fn: MathFn, x: int) -> int:
        if x == NAN:
            return NAN
        rule = _SPECIAL_MATH.get((fn, x))
        if rule is None:
            return self._opaque_id(f"{fn.value} of {_special_name(x)}")
        if isinstance(rule, float):
            return self.id(tm.const(rule))
        return rule

    # -- integers and truth values ---------------------------------------------------------------------

    def int_binary(
        self,
        op: BinaryOp,
        a: torch.Tensor,
        b: torch.Tensor,
        t: ScalarType,
        active: torch.Tensor | None = None,
        *,
        c_arithmetic: bool = True,
    ) -> torch.Tensor:
        """A symbolic integer operation; a result that may leave ``t``'s range is opaque. A signed 32- or
        64-bit ``+ - *`` of the kernel's arithmetic (``c_arithmetic``; not an address computation or an
        atomic, which wrap in the simulator) records its range condition for the lanes of ``active``
        (undefined in C; the simulator reports ``ub``)."""
        match op:
            case BinaryOp.ADD:
                out = _unique_map2(a, b, lambda x, y: self.id(tm.add(self.poly(x), self.poly(y))))
            case BinaryOp.SUB:
                out = _unique_map2(a, b, lambda x, y: self.id(tm.sub(self.poly(x), self.poly(y))))
            case BinaryOp.MUL:
                out = _unique_map2(a, b, lambda x, y: self.id(tm.mul(self.poly(x), self.poly(y))))
            case BinaryOp.MIN | BinaryOp.MAX:
                is_max = op is BinaryOp.MAX
                out = _unique_map2(a, b, lambda x, y: self._int_extremum(x, y, t, is_max))
            case BinaryOp.SHL:
                out = _unique_map2(a, b, self._shl)
            case BinaryOp.EQ | BinaryOp.NE | BinaryOp.LT | BinaryOp.LE | BinaryOp.GT | BinaryOp.GE:
                return _unique_map2(a, b, lambda x, y: self.id(tm.compare(_CMP_TEXT[op], self.poly(x), self.poly(y))))
            case _:
                raise SymbolicUnsupported(f"operator {op.value} on data-dependent {t} values", self.span)
        if c_arithmetic and t.is_signed and t.bits in (32, 64) and op in (BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL):
            lo, hi = _type_range(t)
            self.require_range(out, active, Fraction(lo - 1), Fraction(hi + 1), f"{t} {op.value}")
        return self.fitting(out, t, f"{t} {op.value}")

    def _int_extremum(self, x: int, y: int, t: ScalarType, is_max: bool) -> int:
        """``max``/``min`` of two integers; of the bits of two non-negative floats, the bits of the float
        ``max``/``min`` (IEEE bit patterns of non-negative floats order as integers: the ``atomicMax`` on
        ``__float_as_int`` idiom)."""
        fx, fy = self._float_behind(x, t), self._float_behind(y, t)
        if fx is not None and fy is not None and fx[1] == fy[1]:
            ft = fx[1]
            result = self._fextremum(fx[0], fy[0], is_max)
            return int(self.bits_view(self.table.tensor([result]), ft, t)[0])
        px, py = self.poly(x), self.poly(y)
        return self.id(tm.maximum(px, py) if is_max else tm.minimum(px, py))

    def _float_behind(self, i: int, t: ScalarType) -> tuple[int, ScalarType] | None:
        """``(float id, float type)`` when the integer ``i`` (of type ``t``) is the bit pattern of a float
        known to be non-negative: a bit view, or a constant whose bits are such a float."""
        origin = self._views.get(i)
        if origin is not None:
            fid, ft = origin
            if not ft.is_float or ft.size != t.size:
                return None
            if fid == POS_INF:
                return fid, ft
            if fid in _SPECIALS:
                return None
            fterm = self.table.term(fid)
            nonneg = (Sign.POSITIVE, Sign.NONNEGATIVE, Sign.ZERO)
            return (fid, ft) if isinstance(fterm, Poly) and sign_of(fterm) in nonneg else None
        term = self.table.peek(i)
        if not (isinstance(term, Poly) and term.is_const and term.const.denominator == 1) or t.size != 4:
            return None
        bits = int(term.const) % 2**32
        value = float(np.array([bits], dtype=np.uint32).view(np.float32)[0])
        if math.isnan(value) or value < 0 or (value == 0 and bits != 0):
            return None  # negative floats (and -0.0) order backwards as integers
        ft = ScalarType(ScalarKind.F32)
        return (POS_INF if math.isinf(value) else self.float_const(value, ft)), ft

    def _shl(self, x: int, y: int) -> int:
        py = self.poly(y)
        if not py.is_const or py.const < 0 or py.const.denominator != 1:
            raise SymbolicUnsupported("a shift by a data-dependent amount", self.span)
        return self.id(tm.mul(self.poly(x), tm.const(2 ** int(py.const))))

    def bool_binary(self, op: BinaryOp, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        match op:
            case BinaryOp.LAND | BinaryOp.BITAND:
                return _unique_map2(a, b, lambda x, y: self.id(tm.logical_and(self.truth(x), self.truth(y))))
            case BinaryOp.LOR | BinaryOp.BITOR:
                return _unique_map2(a, b, lambda x, y: self.id(tm.logical_or(self.truth(x), self.truth(y))))
            case BinaryOp.EQ | BinaryOp.NE | BinaryOp.BITXOR:
                same = op is BinaryOp.EQ

                def xor(x: int, y: int) -> int:
                    p, q = self.truth(x), self.truth(y)
                    both = tm.logical_or(tm.logical_and(p, q), tm.logical_and(tm.logical_not(p), tm.logical_not(q)))
                    return self.id(both if same else tm.logical_not(both))

                return _unique_map2(a, b, xor)
            case _:
                raise SymbolicUnsupported(f"operator {op.value} on data-dependent truth values", self.span)

    def bool_not(self, a: torch.Tensor) -> torch.Tensor:
        return _unique_map(a, lambda x: self.id(tm.logical_not(self.truth(x))))

    def int_neg(self, a: torch.Tensor, t: ScalarType) -> torch.Tensor:
        out = _unique_map(a, lambda x: self.id(tm.neg(self.poly(x))))
        return self.fitting(out, t, f"{t} negation")

    def select(self, c: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """``select(c, x, y)`` with a symbolic condition (ids), elementwise."""
        return _unique_map3(c, x, y, self._select)

    def _select(self, c: int, x: int, y: int) -> int:
        cond = self.truth(c)
        if isinstance(cond, BoolConst):
            return x if cond.value else y
        if x == y:
            return x
        if x in _SPECIALS or y in _SPECIALS:
            if UNDEF in (x, y) and not ({x, y} - {UNDEF}) & set(_SPECIALS):
                # one arm undefined: an unknown value there, distinct from every other
                px = self.fresh(UNDEFINED) if x == UNDEF else self.poly(x)
                py = self.fresh(UNDEFINED) if y == UNDEF else self.poly(y)
                return self.id(_select_terms(cond, px, py))
            return self._opaque_id(DATA_CHOSEN_NONFINITE)
        tx, ty = self.table.term(x), self.table.term(y)
        if isinstance(tx, Poly) and isinstance(ty, Poly):
            return self.id(_select_terms(cond, tx, ty))
        bx, by = self.truth(x), self.truth(y)
        return self.id(tm.logical_or(tm.logical_and(cond, bx), tm.logical_and(tm.logical_not(cond), by)))

    def to_bool(self, a: torch.Tensor) -> torch.Tensor:
        """Ids of numbers as ids of truth values (``x != 0``)."""
        return _unique_map(a, lambda x: self.id(self.truth(x)) if x not in _SPECIALS else self._special_truth(x))

    def _special_truth(self, x: int) -> int:
        if x == UNDEF:
            return self.id(tm.compare("!=", self.fresh(UNDEFINED), tm.ZERO))
        return TRUE_ID  # inf and nan are nonzero

    def from_bool(self, a: torch.Tensor) -> torch.Tensor:
        """Ids of truth values as ids of 1/0."""
        return _unique_map(a, lambda x: self.id(_select_terms(self.truth(x), tm.ONE, tm.ZERO)))

    def float_to_int(self, a: torch.Tensor, t: ScalarType, active: torch.Tensor | None = None) -> torch.Tensor:
        """The conversion of floats to the integer type ``t`` (truncation toward zero), with its range
        condition for the lanes of ``active``: C defines it only when the truncated value fits ``t``."""

        def conv(x: int) -> int:
            if x in _SPECIALS:
                return self._opaque_id("a float-to-integer conversion of a non-finite value")
            return self.id(tm.apply(Fn.TRUNC, self.poly(x)))

        lo, hi = _type_range(t)
        self.require_range(a, active, Fraction(lo - 1), Fraction(hi + 1), f"float-to-{t} conversion")
        return _unique_map(a, conv)

    def ids_of_terms(self, terms: Iterable[Term]) -> list[int]:
        return [self.id(t) for t in terms]


def _lone_unknown(p: Poly) -> bool:
    """Whether ``p`` is one opaque or undefined value (an atom standing for a value of its type)."""
    if p.const or len(p.terms) != 1:
        return False
    mono, k = p.terms[0]
    if k != 1 or len(mono.factors) != 1 or mono.factors[0][1] != 1:
        return False
    atom = mono.factors[0][0]
    return isinstance(atom, tm.Elem) and atom.tensor in (OPAQUE, UNDEFINED)


def _select_terms(cond: BoolTerm, x: Poly, y: Poly) -> Poly:
    """``select(cond, x, y)``, resolving selects nested on the same condition (if-conversion of two arms)
    and reading a choice between two values by their own order as ``max``/``min``."""
    x = _resolve(cond, x, True)
    y = _resolve(cond, y, False)
    if isinstance(cond, tm.Cmp) and cond.op in (tm.CmpOp.LT, tm.CmpOp.LE):
        extremum = _as_extremum(cond.lhs, x, y)
        if extremum is not None:
            return extremum
        rescaled = _as_rescaled(cond.lhs, x, y)
        if rescaled is not None:
            return rescaled
    return tm.select(cond, x, y)


#: Work bound of the equality check behind :func:`_as_rescaled` (monomial operations).
_RESCALE_WORK = 20_000


def _as_rescaled(lhs: Poly, x: Poly, y: Poly) -> Poly | None:
    """``select(p < q, x, y)`` (``lhs = p - q``) as one term when ``x`` and ``y`` are one function of the
    larger of ``p`` and ``q``: the online-softmax update ``p < q ? s*exp(p-q) + 1 : s + exp(q-p)`` is
    ``s*exp(p-M) + exp(q-M)`` with ``M = max(p, q)`` on both sides.

    With ``M = max(p, q)``, ``q = M`` where the condition holds and ``p = M`` where it fails (and both at
    a tie), so ``x = x * exp(q - M)`` and ``y = y * exp(p - M)`` on their own sides. When those two
    rescaled terms are provably the same function, the select is that function (sound for ``<`` and ``<=``).
    """
    if lhs.is_const or not lhs.terms:
        return None
    pos = tm.add(tm.const(max(lhs.const, Fraction(0))), *(tm.mul(tm.const(k), _mono(m)) for m, k in lhs.terms if k > 0))
    neg_ = tm.add(
        tm.const(max(-lhs.const, Fraction(0))), *(tm.mul(tm.const(-k), _mono(m)) for m, k in lhs.terms if k < 0)
    )
    if pos.is_const or neg_.is_const:
        return None
    top = tm.maximum(pos, neg_)
    x2 = tm.mul(x, tm.apply(Fn.EXP, tm.sub(neg_, top)))
    y2 = tm.mul(y, tm.apply(Fn.EXP, tm.sub(pos, top)))
    if x2 is y2:
        return x2
    try:
        same = equal(x2, y2, _RESCALE_WORK)
    except (ValueError, TypeError, ZeroDivisionError, RecursionError):
        return None
    return x2 if same is True else None


def _mono(m: tm.Monomial) -> Poly:
    out = tm.ONE
    for atom, e in m.factors:
        out = tm.mul(out, tm.power(atom if isinstance(atom, Poly) else tm._atom_poly(atom), e))
    return out


def _as_extremum(lhs: Poly, x: Poly, y: Poly) -> Poly | None:
    """``select(lhs < 0, x, y)`` (or ``<=``) as ``min(x, y)`` or ``max(x, y)`` when ``x - y = c * lhs``.

    ``c > 0``: the condition says ``x < y``, so the choice is the smaller; ``c < 0``: it says ``x > y``, the
    larger. At a tie both arms are equal, so ``<`` and ``<=`` agree with min/max exactly.
    """
    d = tm.sub(x, y)
    if d.is_const or lhs.is_const or d.terms[0][0] is not lhs.terms[0][0]:
        return None
    c = d.terms[0][1] / lhs.terms[0][1]
    if tm.mul(lhs, tm.const(c)) is not d:
        return None
    return tm.minimum(x, y) if c > 0 else tm.maximum(x, y)


def _resolve(cond: BoolTerm, p: Poly, holds: bool) -> Poly:
    """``p`` with a top-level select on ``cond`` (or its negation) resolved, knowing ``cond == holds``."""
    if p.const or len(p.terms) != 1:
        return p
    mono, k = p.terms[0]
    if k != 1 or len(mono.factors) != 1 or mono.factors[0][1] != 1 or not isinstance(mono.factors[0][0], tm.Select):
        return p
    atom = mono.factors[0][0]
    if atom.cond is cond:
        return _resolve(cond, atom.then if holds else atom.other, holds)
    if atom.cond is tm.logical_not(cond):
        return _resolve(cond, atom.other if holds else atom.then, holds)
    return p


def _type_range(t: ScalarType) -> tuple[int, int]:
    if t.is_bool:
        return (0, 1)
    if t.is_unsigned:
        return (0, 2**t.bits - 1)
    return (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1)


_CMP_TEXT = {
    BinaryOp.EQ: "==",
    BinaryOp.NE: "!=",
    BinaryOp.LT: "<",
    BinaryOp.LE: "<=",
    BinaryOp.GT: ">",
    BinaryOp.GE: ">=",
}


def _cmp(op: BinaryOp, a: Fraction | float, b: Fraction | float) -> bool:
    return {
        BinaryOp.EQ: a == b,
        BinaryOp.NE: a != b,
        BinaryOp.LT: a < b,
        BinaryOp.LE: a <= b,
        BinaryOp.GT: a > b,
        BinaryOp.GE: a >= b,
    }[op]


#: Values of math functions at the infinities (exact): a special id or an exact float.
_SPECIAL_MATH: dict[tuple[MathFn, int], int | float] = {
    (MathFn.EXP, NEG_INF): 0.0,
    (MathFn.EXP, POS_INF): POS_INF,
    (MathFn.EXP2, NEG_INF): 0.0,
    (MathFn.EXP2, POS_INF): POS_INF,
    (MathFn.EXP10, NEG_INF): 0.0,
    (MathFn.EXP10, POS_INF): POS_INF,
    (MathFn.EXPM1, NEG_INF): -1.0,
    (MathFn.EXPM1, POS_INF): POS_INF,
    (MathFn.TANH, NEG_INF): -1.0,
    (MathFn.TANH, POS_INF): 1.0,
    (MathFn.ERF, NEG_INF): -1.0,
    (MathFn.ERF, POS_INF): 1.0,
    (MathFn.SQRT, POS_INF): POS_INF,
    (MathFn.RSQRT, POS_INF): 0.0,
    (MathFn.LOG, POS_INF): POS_INF,
    (MathFn.LOG2, POS_INF): POS_INF,
    (MathFn.ABS, NEG_INF): POS_INF,
    (MathFn.ABS, POS_INF): POS_INF,
    (MathFn.LOG10, POS_INF): POS_INF,
    (MathFn.LOG1P, POS_INF): POS_INF,
    (MathFn.ERFC, NEG_INF): 2.0,
    (MathFn.ERFC, POS_INF): 0.0,
    # outside the domain: NaN, as IEEE 754 (and the simulator) has it
    (MathFn.SQRT, NEG_INF): NAN,
    (MathFn.RSQRT, NEG_INF): NAN,
    (MathFn.LOG, NEG_INF): NAN,
    (MathFn.LOG2, NEG_INF): NAN,
    (MathFn.LOG10, NEG_INF): NAN,
    (MathFn.LOG1P, NEG_INF): NAN,
    (MathFn.SIN, NEG_INF): NAN,
    (MathFn.SIN, POS_INF): NAN,
    (MathFn.COS, NEG_INF): NAN,
    (MathFn.COS, POS_INF): NAN,
}

#: Math functions of rational constants with exact (integer) values.
_NUMERIC_EXACT: dict[MathFn, Callable[[Fraction], int]] = {
    MathFn.FLOOR: math.floor,
    MathFn.CEIL: math.ceil,
    MathFn.ROUND: lambda x: math.floor(abs(x) + Fraction(1, 2)) * (1 if x >= 0 else -1),  # half away from zero
    MathFn.RINT: round,  # Fraction.__round__ rounds half to even
}
