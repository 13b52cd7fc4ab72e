"""Symbolic values of the parametric prover and the integer semantics of the IR over z3 integers.

**Encoding.** An integer value is a z3 *unbounded* integer holding the value it has in its IR type
(``u32`` values are in ``[0, 2^32)``, ``i32`` values in ``[-2^31, 2^31)``), not a bit-vector. Every
operator first computes its exact mathematical result; the executor then asks the solver whether that
result is within the type's range on the current path. If it provably is, the result *is* the exact
term; otherwise the value is :func:`wrap` of it (reduction modulo ``2^bits``, exactly the IR's and the
simulator's meaning) and the operation becomes an overflow *site*. Why not bit-vectors: index
arithmetic multiplies symbolic sizes (``row * stride``), and nonlinear 32/64-bit bit-vector
multiplication is very hard for z3, while nonlinear integer arithmetic over unbounded integers, with
wrapping only where it can happen, is what z3's arithmetic solvers handle well; it also makes an
overflow question literally ``exact >= 2^31``.

Values (:data:`Value`): :class:`IntV` (with the overflow sites its value may carry), :class:`BoolV`,
:class:`PtrV` (a region and a byte offset into it), :class:`VecV` (lanes) and :class:`OpaqueV`
(floating-point values and anything else the prover does not track: it never needs their value).
z3 terms compare with ``==`` into formulas, so values compare by identity only (``eq=False``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import assert_never

import z3

from larkc.ir.cnumbers import trunc_div
from larkc.ir.types import PointerType, ScalarType, Type, VectorType
from larkc.provers.zworld import Z

__all__ = [
    "BoolV",
    "IntV",
    "OpaqueV",
    "PtrV",
    "Region",
    "RegionKind",
    "Value",
    "VecV",
    "bitop",
    "ite",
    "same",
    "shl_factor",
    "tdiv",
    "trange",
    "trem",
    "wrap",
]


def trange(t: ScalarType) -> tuple[int, int]:
    """The least and greatest value of an integer (or bool) type."""
    if t.is_bool:
        return 0, 1
    if t.is_signed:
        return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1
    return 0, 2**t.bits - 1


def wrap(e: Z, t: ScalarType) -> Z:
    """``e`` reduced modulo ``2^bits`` into the range of ``t`` (two's complement for signed types)."""
    m = 2**t.bits
    if z3.is_int_value(e):
        v = e.as_long() % m
        if t.is_signed and v >= m // 2:
            v -= m
        return z3.IntVal(v)
    if t.is_signed:
        return (e + m // 2) % m - m // 2
    return e % m


def _nonneg(e: Z) -> bool:
    return bool(z3.is_int_value(e) and e.as_long() >= 0)


def tdiv(a: Z, b: Z) -> Z:
    """C's integer division (truncation toward zero); the simulator's quotient 0 for a zero divisor."""
    if z3.is_int_value(a) and z3.is_int_value(b):
        y = b.as_long()
        return z3.IntVal(0 if y == 0 else trunc_div(a.as_long(), y))
    if z3.is_int_value(b) and b.as_long() > 0:
        return z3.If(a >= 0, a / b, -((-a) / b))
    if z3.is_int_value(b) and b.as_long() < 0:
        nb = -b.as_long()
        return z3.If(a >= 0, -(a / nb), (-a) / nb)
    return z3.If(
        b == 0,
        0,
        z3.If(a >= 0, z3.If(b > 0, a / b, -(a / (-b))), z3.If(b > 0, -((-a) / b), (-a) / (-b))),
    )


def trem(a: Z, b: Z) -> Z:
    """C's remainder (the sign of the dividend); the simulator's dividend for a zero divisor."""
    if z3.is_int_value(b) and b.as_long() > 0 and _nonneg(a):
        return z3.IntVal(a.as_long() % b.as_long())
    if z3.is_int_value(b) and b.as_long() != 0:
        return a - b * tdiv(a, b)
    return z3.If(b == 0, a, a - b * tdiv(a, b))


def tdiv_unsigned(a: Z, b: Z) -> Z:
    """Division of non-negative values (unsigned types): floor, quotient 0 for a zero divisor."""
    if z3.is_int_value(b):
        bv = b.as_long()
        if bv == 0:
            return z3.IntVal(0)
        if z3.is_int_value(a):
            return z3.IntVal(a.as_long() // bv)
        return a / bv
    return z3.If(b == 0, 0, a / b)


def trem_unsigned(a: Z, b: Z) -> Z:
    if z3.is_int_value(b):
        bv = b.as_long()
        if bv == 0:
            return a
        if z3.is_int_value(a):
            return z3.IntVal(a.as_long() % bv)
        return a % bv
    return z3.If(b == 0, a, a % b)


def shl_factor(amount: Z, bits: int) -> Z:
    """``2^(amount mod bits)``: the factor of a left shift, with the simulator's reduction of the amount."""
    if z3.is_int_value(amount):
        return z3.IntVal(2 ** (amount.as_long() % bits))
    s = amount % bits
    out: Z = z3.IntVal(2 ** (bits - 1))
    for i in range(bits - 2, -1, -1):
        out = z3.If(s == i, 2**i, out)
    return out


#: Constants below this take the table form in bitwise operations (at most 32 cases).
SMALL_BITOP = 32


def _bitop_int(op: str, x: int, y: int) -> int:
    return x & y if op == "&" else x | y if op == "|" else x ^ y


def bitop(op: str, a: Z, b: Z, t: ScalarType) -> Z:
    """``a & b``, ``a | b`` or ``a ^ b`` of two values of ``t`` (through bit-vectors when needed)."""
    n = t.bits
    m = 2**n
    if z3.is_int_value(a) and z3.is_int_value(b):
        return wrap(z3.IntVal(_bitop_int(op, a.as_long() % m, b.as_long() % m)), t)
    if op == "&":
        for x, y in ((a, b), (b, a)):
            if z3.is_int_value(y):
                c = y.as_long() % m
                if c & (c + 1) == 0:  # a low mask 2^j - 1: the value modulo 2^j (also for negatives)
                    return wrap(x % (c + 1), t)
    for x, y in ((a, b), (b, a)):
        if z3.is_int_value(y) and 0 <= y.as_long() < SMALL_BITOP:
            # A small constant changes only the low bits: the low part by a table, the high part kept
            # (or cleared by &). The result stays in the 2^j-aligned block of x, so in x's type.
            c = y.as_long()
            j = max(1, c.bit_length())
            low = x % 2**j
            table: Z = z3.IntVal(_bitop_int(op, 2**j - 1, c))
            for v in range(2**j - 2, -1, -1):
                table = z3.If(low == v, _bitop_int(op, v, c), table)
            return table if op == "&" else x - low + table
    ua = z3.Int2BV(a % m if t.is_signed else a, n)
    ub = z3.Int2BV(b % m if t.is_signed else b, n)
    r = ua & ub if op == "&" else ua | ub if op == "|" else ua ^ ub
    u = z3.BV2Int(r, is_signed=False)
    return wrap(u, t) if t.is_signed else u


class RegionKind(enum.Enum):
    """What memory a region is."""

    GLOBAL = "global"  # a task tensor bound to a kernel pointer parameter (one per launch)
    SHARED = "shared"  # a static __shared__ array (one per block)
    DYNAMIC = "dynamic"  # the launch's dynamic shared memory (extern __shared__), one per block
    LOCAL = "local"  # a local array (one per thread)


@dataclass(frozen=True, slots=True, eq=False)
class Region:
    """A buffer: ``size`` in bytes (a term over the symbols), ``elem`` its element type for messages.

    ``value_range``: for a read-only integer input tensor with a declared range, ``(low, high)``.
    Regions are equal when their ``key`` is.
    """

    key: str
    kind: RegionKind
    name: str
    size: Z
    elem: Type | None = None
    tensor: str | None = None
    value_range: tuple[Z, Z] | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Region) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


@dataclass(frozen=True, slots=True, eq=False)
class IntV:
    """An integer of type ``t``: ``e`` is its value (within the type's range); ``sites`` are the
    overflow sites whose possibly wrapped result flowed into it."""

    e: Z
    t: ScalarType
    sites: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True, eq=False)
class BoolV:
    e: Z
    sites: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True, eq=False)
class PtrV:
    """A pointer: ``off`` bytes from the start of ``region``; ``region`` None when the prover cannot
    say where it points (``why`` says why)."""

    region: Region | None
    off: Z
    t: PointerType
    sites: frozenset[int] = frozenset()
    why: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class OpaqueV:
    """A value the prover does not track (floating point): it never decides an address or a branch
    the prover needs, and where it does decide a branch the branch condition is a fresh variable."""

    t: Type


@dataclass(frozen=True, slots=True, eq=False)
class VecV:
    lanes: tuple[Value, ...]
    t: VectorType


Value = IntV | BoolV | PtrV | OpaqueV | VecV


def same(a: Value, b: Value) -> bool:
    """Whether two values are the same term (structurally)."""
    if a is b:
        return True
    match a:
        case IntV():
            return isinstance(b, IntV) and bool(a.e.eq(b.e)) and a.sites == b.sites
        case BoolV():
            return isinstance(b, BoolV) and bool(a.e.eq(b.e)) and a.sites == b.sites
        case PtrV():
            return (
                isinstance(b, PtrV)
                and a.region == b.region
                and bool(a.off.eq(b.off))
                and a.sites == b.sites
                and a.why == b.why
            )
        case OpaqueV():
            return isinstance(b, OpaqueV)
        case VecV():
            return isinstance(b, VecV) and all(same(x, y) for x, y in zip(a.lanes, b.lanes, strict=True))
        case _:
            assert_never(a)


def ite(c: Z, a: Value, b: Value) -> Value:
    """The value ``a`` where ``c`` holds and ``b`` elsewhere."""
    if same(a, b):
        return a
    match a:
        case IntV():
            assert isinstance(b, IntV)
            return IntV(z3.If(c, a.e, b.e), a.t, a.sites | b.sites)
        case BoolV():
            assert isinstance(b, BoolV)
            return BoolV(z3.If(c, a.e, b.e), a.sites | b.sites)
        case PtrV():
            assert isinstance(b, PtrV)
            if a.region is None or b.region is None or a.region != b.region:
                why = a.why or b.why or "it may point to different buffers on different paths"
                return PtrV(None, z3.IntVal(0), a.t, a.sites | b.sites, why)
            return PtrV(a.region, z3.If(c, a.off, b.off), a.t, a.sites | b.sites)
        case OpaqueV():
            return a
        case VecV():
            assert isinstance(b, VecV)
            return VecV(tuple(ite(c, x, y) for x, y in zip(a.lanes, b.lanes, strict=True)), a.t)
        case _:
            assert_never(a)
