"""Scalar arithmetic of the kernel IR on tensors of values, one rule per operator.

The simulator holds every IR value as a torch tensor whose first dimension runs over the threads (or
Triton programs) of a launch. This module says how each scalar type is represented and how each
operator, conversion and math intrinsic computes, with the rounding the IR type prescribes.

Register representation (what :func:`reg_dtype` returns):

* ``bool`` is ``torch.bool``.
* Every integer type is ``torch.int64`` holding the exact value (``u32`` 4294967295 is the int64
  4294967295). ``u64`` is the exception: it holds the two's complement bit pattern, so values at or
  above 2^63 are negative int64s; comparisons, division and right shifts of ``u64`` account for it.
  Arithmetic wraps modulo 2^bits after every operation (:func:`wrap`).
* ``f16``, ``bf16``, ``f32``, ``f64`` are the torch float types of the same format. Each torch
  operation on them rounds once to nearest even: CPU half/bfloat16 kernels compute in float32 and
  round, which is exact for + - * / and sqrt because float32 has more than twice the precision plus
  two bits (double rounding is innocuous). Where an operation would round twice otherwise (f64 to
  f16/bf16 conversion, fused multiply-add), the intermediate is rounded to odd first.

* ``f8e4m3`` and ``f8e5m2`` are ``torch.float32`` holding a value of the fp8 format exactly (torch's
  float8 types have almost no CPU kernels). Every conversion to them rounds once to nearest even and
  saturates as CUDA's ``__NV_SATFINITE`` does (:func:`round_fp8`); CUDA has no fp8 arithmetic, and the
  IR's (which no frontend emits) is the f32 result rounded to the fp8 type the same way.

Memory representation (:func:`mem_dtype`): the torch type of the same width whose bytes are the C
object representation (``u32`` is stored as the int32 of the same bits).

Operations that C leaves undefined and a GPU does not define either (integer division by zero, shift
amounts outside ``[0, bits)``, float-to-integer conversion of NaN or out-of-range values) are
reported to the caller through :class:`UndefinedOps` and computed with a fixed, documented stand-in
so that simulation can continue. Signed overflow wraps as on the GPU (not reported).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import assert_never

import numpy as np
import torch

from larkc.errors import Span
from larkc.ir.nodes import BinaryOp, MathFn, UnaryOp
from larkc.ir.types import (
    BF16,
    BOOL,
    F8E4M3,
    F8E5M2,
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    ScalarKind,
    ScalarType,
)
from larkc.ir.values import FP8_MAX, FP8_OVERFLOW, round_fraction

__all__ = [
    "MATH_RULES",
    "UndefinedOps",
    "UndefinedReason",
    "apply_binary",
    "apply_math",
    "apply_unary",
    "bitcast_value",
    "broadcast",
    "convert_value",
    "dense",
    "from_mem",
    "mem_dtype",
    "poison",
    "reg_dtype",
    "round_fp8",
    "scalar_tensor",
    "to_mem",
    "wrap",
]

_U64_SIGN = -(2**63)  # the int64 whose bits are 0x8000000000000000


def broadcast(*ts: torch.Tensor) -> list[torch.Tensor]:
    """The tensors expanded (as views) to their common broadcast shape."""
    shape: tuple[int, ...] = ()
    for t in ts:
        shape = _broadcast_shape(shape, tuple(t.shape))
    return [t.expand(shape) for t in ts]


def _broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {a} and {b} do not broadcast")
        out.append(max(x, y) if 1 in (x, y) else x)
    return tuple(out)


def dense(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` with standard row-major strides, as byte reinterpretation (``view``) needs.

    ``Tensor.contiguous()`` is not enough: it keeps odd strides on dimensions of size 1.
    """
    out = torch.empty(t.shape, dtype=t.dtype)
    out.copy_(t)
    return out


def reg_dtype(t: ScalarType) -> torch.dtype:
    """The torch dtype of a register holding a value of ``t``."""
    match t.kind:
        case ScalarKind.BOOL:
            return torch.bool
        case (
            ScalarKind.I8
            | ScalarKind.I16
            | ScalarKind.I32
            | ScalarKind.I64
            | ScalarKind.U8
            | ScalarKind.U16
            | ScalarKind.U32
            | ScalarKind.U64
        ):
            return torch.int64
        case ScalarKind.F16:
            return torch.float16
        case ScalarKind.BF16:
            return torch.bfloat16
        case ScalarKind.F32:
            return torch.float32
        case ScalarKind.F64:
            return torch.float64
        case ScalarKind.F8E4M3 | ScalarKind.F8E5M2:
            return torch.float32  # holding an fp8 value exactly
        case _:
            assert_never(t.kind)


_MEM_DTYPES: dict[ScalarKind, torch.dtype] = {
    ScalarKind.BOOL: torch.bool,
    ScalarKind.I8: torch.int8,
    ScalarKind.U8: torch.uint8,
    ScalarKind.I16: torch.int16,
    ScalarKind.U16: torch.int16,
    ScalarKind.I32: torch.int32,
    ScalarKind.U32: torch.int32,
    ScalarKind.I64: torch.int64,
    ScalarKind.U64: torch.int64,
    ScalarKind.F16: torch.float16,
    ScalarKind.BF16: torch.bfloat16,
    ScalarKind.F32: torch.float32,
    ScalarKind.F64: torch.float64,
    ScalarKind.F8E4M3: torch.float8_e4m3fn,
    ScalarKind.F8E5M2: torch.float8_e5m2,
}


def mem_dtype(t: ScalarType) -> torch.dtype:
    """The torch dtype whose elements have the memory layout (size and bits) of ``t``."""
    return _MEM_DTYPES[t.kind]


def wrap(v: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """Integer register ``v`` (int64) reduced modulo 2^bits into the range of ``t``."""
    bits = t.bits
    if bits == 64:
        return v  # int64 arithmetic already wraps modulo 2^64 (u64 holds the bit pattern)
    m = (1 << bits) - 1
    if t.is_signed:
        half = 1 << (bits - 1)
        return ((v + half) & m) - half
    return v & m


def to_mem(v: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """A register tensor of ``t`` as a tensor of :func:`mem_dtype` with the same bits."""
    dt = mem_dtype(t)
    if t.is_int and t.bits < 64:
        if t.kind is ScalarKind.U8:
            return (v & 0xFF).to(torch.uint8)
        # Unsigned values above the signed range are stored through their signed twin of equal bits.
        return wrap(v, ScalarType(_SIGNED_TWIN[t.kind])).to(dt)
    return v.to(dt)


_SIGNED_TWIN = {
    ScalarKind.I8: ScalarKind.I8,
    ScalarKind.I16: ScalarKind.I16,
    ScalarKind.I32: ScalarKind.I32,
    ScalarKind.U16: ScalarKind.I16,
    ScalarKind.U32: ScalarKind.I32,
}


def from_mem(m: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """A tensor of :func:`mem_dtype` as registers of ``t`` (the inverse of :func:`to_mem`)."""
    if t.is_bool:
        return m if m.dtype == torch.bool else m != 0
    if t.is_int:
        v = m.to(torch.int64)
        if t.is_unsigned and t.bits < 64:
            v = v & ((1 << t.bits) - 1)
        return v
    return m.to(torch.float32) if t.is_fp8 else m


def scalar_tensor(value: bool | int | float, t: ScalarType) -> torch.Tensor:
    """A one-element register tensor holding the IR constant ``value`` of type ``t``."""
    if t.is_int:
        iv = int(value)
        if t.kind is ScalarKind.U64 and iv >= 2**63:
            iv -= 2**64
        return torch.tensor([iv], dtype=torch.int64)
    if t.is_bool:
        return torch.tensor([bool(value)], dtype=torch.bool)
    if t in (F16, BF16):
        return _narrow_from_f64(torch.tensor([float(value)], dtype=torch.float64), reg_dtype(t))
    return torch.tensor([float(value)], dtype=reg_dtype(t))


def poison(t: ScalarType, shape: tuple[int, ...]) -> torch.Tensor:
    """The value of a variable before its first assignment: NaN for floats, 0 for integers, false.

    NaN makes a float computed from an unassigned variable show up as a mismatch; integers use 0 so
    that a guarded-off use does not produce a spurious out-of-bounds index.
    """
    if t.is_float:
        return torch.full(shape, math.nan, dtype=reg_dtype(t))
    return torch.zeros(shape, dtype=reg_dtype(t))


# --------------------------------------------------------------------------------------------------
# Undefined behaviour reports


class UndefinedReason(enum.Enum):
    """An operation whose result C and CUDA leave undefined; the simulator reports it as ``ub``."""

    DIV_BY_ZERO = "integer division by zero"  # stand-in result: 0 (remainder: the dividend)
    SHIFT_RANGE = "shift amount outside [0, bits)"  # stand-in: the amount modulo bits
    FLOAT_TO_INT = "float-to-integer conversion of NaN or an out-of-range value"  # stand-in: saturate, NaN to 0
    LANE_RANGE = "vector lane index out of range"  # stand-in: the index modulo the lane count
    SIGNED_OVERFLOW = "signed integer overflow"  # + - * of int32/int64 out of range; stand-in: wrap modulo 2^bits


@dataclass(slots=True)
class UndefinedOps:
    """Where (per thread) the operations evaluated so far were undefined, by reason and source span.

    ``active`` is the mask of threads whose results matter; a lane outside it may compute anything.
    The interpreter passes one collector per statement, sets ``span`` to the expression it is about
    to apply, and turns each entry of ``found`` into a diagnosis.
    """

    active: torch.Tensor
    found: list[tuple[UndefinedReason, torch.Tensor, Span | None]] = field(default_factory=list)
    span: Span | None = None

    def check(self, reason: UndefinedReason, bad: torch.Tensor) -> None:
        """Record the threads where ``bad`` (any trailing dimensions) holds, among the active ones."""
        if bad.dim() > 1:
            bad = bad.flatten(1).any(dim=1)
        bad = bad & self.active
        if bool(bad.any()):
            self.found.append((reason, bad, self.span))


# --------------------------------------------------------------------------------------------------
# Unary and binary operators


def _u64_key(v: torch.Tensor) -> torch.Tensor:
    """An int64 that orders like the u64 whose bits ``v`` holds (flip the sign bit)."""
    return v ^ _U64_SIGN


def apply_unary(op: UnaryOp, a: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """``op a`` where ``a`` holds values of the scalar element type ``t``."""
    match op:
        case UnaryOp.NEG:
            return wrap(-a, t) if t.is_int else -a
        case UnaryOp.NOT:
            return torch.logical_not(a)
        case UnaryOp.BITNOT:
            return wrap(torch.bitwise_not(a), t)
        case _:
            assert_never(op)


def _int_divide(
    a: torch.Tensor, b: torch.Tensor, t: ScalarType, ub: UndefinedOps | None, remainder: bool
) -> torch.Tensor:
    """C's ``a / b`` or ``a % b`` on integers: truncation toward zero, remainder of the dividend's sign."""
    a, b = broadcast(a, b)
    zero = b == 0
    if ub is not None:
        ub.check(UndefinedReason.DIV_BY_ZERO, zero)
    safe_b = torch.where(zero, torch.ones_like(b), b)
    if t.kind is ScalarKind.U64 and bool(((a < 0) | (safe_b < 0)).any()):
        return _u64_divide(a, safe_b, zero, remainder)
    if t.kind is ScalarKind.I64:
        # INT64_MIN / -1 traps on x86; C calls it undefined, the GPU wraps to INT64_MIN (remainder 0).
        overflow = (a == -(2**63)) & (safe_b == -1)
        safe_b = torch.where(overflow, torch.ones_like(safe_b), safe_b)
    if remainder:
        r = torch.fmod(a, safe_b)
        return torch.where(zero, a, r)
    q = torch.div(a, safe_b, rounding_mode="trunc")
    return wrap(torch.where(zero, torch.zeros_like(q), q), t)


def _u64_divide(a: torch.Tensor, b: torch.Tensor, zero: torch.Tensor, remainder: bool) -> torch.Tensor:
    """Unsigned 64-bit division, element by element (only when an operand is at or above 2^63)."""
    out = []
    for x, y, z in zip(a.flatten().tolist(), b.flatten().tolist(), zero.flatten().tolist(), strict=True):
        ux, uy = x % 2**64, y % 2**64
        if z:
            r = ux if remainder else 0
        else:
            r = ux % uy if remainder else ux // uy
        out.append(r - 2**64 if r >= 2**63 else r)
    return torch.tensor(out, dtype=torch.int64).reshape(a.shape)


def _shift_amount(b: torch.Tensor, t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    bits = t.bits
    if ub is not None:
        ub.check(UndefinedReason.SHIFT_RANGE, (b < 0) | (b >= bits))
    return b & (bits - 1)


def apply_binary(
    op: BinaryOp, a: torch.Tensor, b: torch.Tensor, t: ScalarType, ub: UndefinedOps | None = None
) -> torch.Tensor:
    """``a op b`` for operands whose scalar element type is ``t`` (comparisons return bool)."""
    if t.is_fp8 and op in (BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV):
        return round_fp8(apply_binary(op, a, b, F32, ub), t)  # f32 has more than twice fp8's precision
    match op:
        case BinaryOp.ADD | BinaryOp.SUB | BinaryOp.MUL if t.is_int:
            result = a + b if op is BinaryOp.ADD else a - b if op is BinaryOp.SUB else a * b
            if ub is not None and t.is_signed and t.bits in (32, 64):
                ub.check(UndefinedReason.SIGNED_OVERFLOW, _signed_overflow(op, a, b, result, t))
            return wrap(result, t)
        case BinaryOp.ADD:
            return a + b
        case BinaryOp.SUB:
            return a - b
        case BinaryOp.MUL:
            return a * b
        case BinaryOp.DIV:
            return _int_divide(a, b, t, ub, remainder=False) if t.is_int else a / b
        case BinaryOp.REM:
            return _int_divide(a, b, t, ub, remainder=True)
        case BinaryOp.SHL:
            return wrap(torch.bitwise_left_shift(a, _shift_amount(b, t, ub)), t)
        case BinaryOp.SHR:
            s = _shift_amount(b, t, ub)
            if t.kind is ScalarKind.U64:
                # Logical shift of the bit pattern: shift arithmetically, then clear the copied sign bits.
                shifted = torch.bitwise_right_shift(a, s)
                keep = torch.bitwise_left_shift(torch.ones_like(s), 64 - s) - 1
                return torch.where(s == 0, a, shifted & keep)
            return torch.bitwise_right_shift(a, s)  # exact value in int64: arithmetic == logical for >= 0
        case BinaryOp.BITAND:
            return torch.logical_and(a, b) if t.is_bool else a & b
        case BinaryOp.BITOR:
            return torch.logical_or(a, b) if t.is_bool else a | b
        case BinaryOp.BITXOR:
            return torch.logical_xor(a, b) if t.is_bool else a ^ b
        case BinaryOp.LAND:
            return torch.logical_and(a, b)
        case BinaryOp.LOR:
            return torch.logical_or(a, b)
        case BinaryOp.EQ:
            return a == b
        case BinaryOp.NE:
            return a != b
        case BinaryOp.LT | BinaryOp.LE | BinaryOp.GT | BinaryOp.GE:
            if t.kind is ScalarKind.U64:
                a, b = _u64_key(a), _u64_key(b)
            return _compare(op, a, b)
        case BinaryOp.MIN:
            if t.is_float:
                return torch.fmin(a, b)  # IEEE minNum: a NaN operand yields the other operand
            if t.kind is ScalarKind.U64:
                return torch.where(_u64_key(a) <= _u64_key(b), a, b)
            return torch.minimum(a, b)
        case BinaryOp.MAX:
            if t.is_float:
                return torch.fmax(a, b)
            if t.kind is ScalarKind.U64:
                return torch.where(_u64_key(a) >= _u64_key(b), a, b)
            return torch.maximum(a, b)
        case _:
            assert_never(op)


def _signed_overflow(
    op: BinaryOp, a: torch.Tensor, b: torch.Tensor, result: torch.Tensor, t: ScalarType
) -> torch.Tensor:
    """Where ``a op b`` (``+ - *`` of signed ``t``, exact values in int64) is outside ``t``'s range.

    ``result`` is the int64 result: exact for 32 bits, wrapped modulo 2^64 for 64 bits."""
    if t.bits < 64:
        return (result < -(1 << (t.bits - 1))) | (result >= 1 << (t.bits - 1))
    match op:
        case BinaryOp.ADD:
            return ((a ^ result) & (b ^ result)) < 0  # both operands' signs differ from the result's
        case BinaryOp.SUB:
            return ((a ^ b) & (a ^ result)) < 0
        case _:
            # result / a == b unless the product wrapped; a in {0, -1} is decided apart (and INT64_MIN / -1
            # would trap the CPU)
            trivial = (a == 0) | (a == -1)
            back = torch.div(result, torch.where(trivial, torch.ones_like(a), a), rounding_mode="trunc")
            return torch.where(trivial, (a == -1) & (b == torch.iinfo(torch.int64).min), back != b)


def _compare(op: BinaryOp, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if op is BinaryOp.LT:
        return a < b
    if op is BinaryOp.LE:
        return a <= b
    if op is BinaryOp.GT:
        return a > b
    return a >= b


# --------------------------------------------------------------------------------------------------
# Conversions


def _narrow_from_f64(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """float64 ``x`` correctly rounded (to nearest even) to ``dtype``.

    torch converts float64 to half/bfloat16 through float32, rounding twice. Rounding to float32 *to
    odd* first makes the second rounding correct (float32 has more than the target's precision + 2).
    """
    if dtype == torch.float64:
        return x
    if dtype == torch.float32:
        return x.to(torch.float32)
    return _round_to_odd_f32(x).to(dtype)


def round_fp8(x: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """Float registers ``x`` rounded once to fp8 type ``t`` (to nearest even) as float32 registers.

    As CUDA's ``__nv_cvt_*_to_fp8(x, __NV_SATFINITE, ...)`` (the fp8 constructors): a magnitude beyond
    the largest finite value, infinity included, saturates to it; NaN stays NaN. A float64 argument is
    rounded to float32 *to odd* first, so that torch's float32-to-fp8 rounding is the only one.
    """
    x32 = _round_to_odd_f32(x) if x.dtype == torch.float64 else x.to(torch.float32)
    limit, inclusive = FP8_OVERFLOW[t]
    over = x32.abs() >= limit if inclusive else x32.abs() > limit
    rounded = x32.to(_MEM_DTYPES[t.kind]).to(torch.float32)
    return torch.where(over, torch.copysign(torch.full_like(x32, FP8_MAX[t]), x32), rounded)


def _round_to_odd_f32(x: torch.Tensor) -> torch.Tensor:
    """float64 ``x`` rounded to float32 toward zero, with the last bit set when the rounding was inexact."""
    f = x.to(torch.float32)
    back = f.to(torch.float64)
    inexact = (back != x) & ~torch.isnan(x)
    if not bool(inexact.any()):
        return f
    too_big = inexact & (back.abs() > x.abs())
    f = torch.where(too_big, torch.nextafter(f, torch.zeros_like(f)), f)
    bits = f.view(torch.int32)
    bits = torch.where(inexact, bits | 1, bits)
    return bits.view(torch.float32)


def _int_to_float(v: torch.Tensor, src: ScalarType, dst: ScalarType) -> torch.Tensor:
    """Integer registers of ``src`` converted to float type ``dst``, rounded once to nearest even."""
    dtype = reg_dtype(dst)
    if src.kind is ScalarKind.U64 and bool((v < 0).any()):
        # At or above 2^63: halve keeping a sticky bit, convert, double (exact: one rounding).
        halved = torch.bitwise_right_shift(v, 1) & (2**63 - 1) | (v & 1)
        big = _signed_int_to_float(halved, dtype) * 2
        return torch.where(v < 0, big, _signed_int_to_float(v, dtype))
    return _signed_int_to_float(v, dtype)


def _signed_int_to_float(v: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if dtype in (torch.float32, torch.float64):
        return v.to(dtype)  # one correctly rounded conversion (cvtsi2ss / cvtsi2sd)
    small = v.abs() < 2**53
    if bool(small.all()):
        return _narrow_from_f64(v.to(torch.float64), dtype)
    out = [_exact_int_to_narrow(int(n), dtype) for n in v.flatten().tolist()]
    return torch.tensor(out, dtype=torch.float64).reshape(v.shape).to(dtype)


def _exact_int_to_narrow(n: int, dtype: torch.dtype) -> float:
    """The integer ``n`` rounded to half or bfloat16, exactly (via a round-to-odd float64)."""
    f = float(n)
    if int(f) != n:
        if abs(int(f)) > abs(n):
            f = math.nextafter(f, 0.0)
        mant = np.array([f], dtype=np.float64).view(np.int64)
        mant |= 1
        f = float(mant.view(np.float64)[0])
    return float(_narrow_from_f64(torch.tensor([f], dtype=torch.float64), dtype).to(torch.float64)[0])


def _float_to_int(x: torch.Tensor, dst: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    """Float registers converted to integer type ``dst`` by truncation toward zero.

    NaN and values outside ``dst``'s range are undefined in C; the stand-in is the GPU's: NaN gives
    0 and out-of-range values saturate.
    """
    x64 = x.to(torch.float64)
    t = torch.trunc(x64)
    if dst.is_signed:
        lo, hi = -(2.0 ** (dst.bits - 1)), 2.0 ** (dst.bits - 1)
    else:
        lo, hi = 0.0, 2.0**dst.bits
    nan = torch.isnan(t)
    bad = nan | (t < lo) | (t >= hi)
    if ub is not None:
        ub.check(UndefinedReason.FLOAT_TO_INT, bad)
    t = torch.where(nan, torch.zeros_like(t), t.clamp(lo, math.nextafter(hi, 0.0)))
    if dst.kind is ScalarKind.U64:
        big = t >= 2.0**63
        return torch.where(big, (t - 2.0**64).to(torch.int64), torch.where(big, 0.0, t).to(torch.int64))
    return t.to(torch.int64)


def convert_value(v: torch.Tensor, src: ScalarType, dst: ScalarType, ub: UndefinedOps | None = None) -> torch.Tensor:
    """C's value conversion of registers of ``src`` to ``dst`` (CastKind.CONVERT on scalars)."""
    if src == dst:
        return v
    if dst.is_bool:
        return v != 0
    if src.is_bool:
        return v.to(reg_dtype(dst))
    if dst.is_int:
        if src.is_int:
            return wrap(v, dst)
        return _float_to_int(v, dst, ub)
    # float destination
    if src.is_int and dst.is_fp8:
        # Exact in float64 below 2^53; any larger magnitude saturates fp8 either way.
        return round_fp8(_int_to_float(v, src, F64), dst)
    if src.is_int:
        return _int_to_float(v, src, dst)
    target = reg_dtype(dst)
    if dst.is_fp8:
        return round_fp8(v, dst)
    if src == F64:
        return _narrow_from_f64(v, target)
    # Widening is exact (an fp8 value is exact in every other float type); f32 -> f16/bf16 and
    # f16 <-> bf16 (via f32) round once.
    return v.to(target)


def bitcast_value(v: torch.Tensor, src: ScalarType, src_lanes: int, dst: ScalarType, dst_lanes: int) -> torch.Tensor:
    """Reinterpret the bits of registers ``v`` (``src_lanes`` lanes of ``src``, 0 for a scalar) as ``dst``.

    ``v`` has one leading dimension over threads; vectors have one trailing lane dimension.
    """
    n = v.shape[0]
    raw = dense(to_mem(v, src).reshape(n, max(src_lanes, 1)))
    as_bytes = raw.view(torch.uint8)
    out = as_bytes.view(mem_dtype(dst))
    out = from_mem(out, dst)
    return out.reshape(n) if dst_lanes == 0 else out.reshape(n, dst_lanes)


# --------------------------------------------------------------------------------------------------
# Math intrinsics

MathRule = Callable[[list[torch.Tensor], ScalarType, "UndefinedOps | None"], torch.Tensor]


def _via_f64(fn: Callable[..., torch.Tensor]) -> MathRule:
    """Evaluate ``fn`` in float64 and round the result once to the argument type.

    CUDA's single-precision functions have a documented error of a few ulp; computing in float64 and
    rounding gives (nearly always) the correctly rounded result, which lies within those bounds.
    """

    def rule(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
        wide = [a.to(torch.float64) for a in args]
        return _narrow_from_f64(fn(*wide), reg_dtype(t))

    return rule


def _exact(fn: Callable[..., torch.Tensor]) -> MathRule:
    """An operation whose result is exactly representable in the argument type (floor, copysign...)."""

    def rule(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
        return fn(*args)

    return rule


def _numpy64(fn: Callable[..., np.ndarray]) -> Callable[..., torch.Tensor]:
    def apply(*args: torch.Tensor) -> torch.Tensor:
        with np.errstate(all="ignore"):  # NaN and infinity results are values here, not warnings
            return torch.from_numpy(np.asarray(fn(*(a.numpy() for a in args)), dtype=np.float64))

    return apply


def _round_half_away(x: torch.Tensor) -> torch.Tensor:
    """C ``round``: to nearest, halfway cases away from zero (exact in the argument's type)."""
    x64 = x.to(torch.float64)
    t = torch.trunc(x64)
    frac = x64 - t
    r = t + torch.where(frac.abs() >= 0.5, torch.sign(x64), torch.zeros_like(x64))
    return torch.copysign(r, x64).to(x.dtype)  # round(-0.3) is -0.0, as in C


def _fma(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    """``a * b + c`` with a single rounding to ``t``."""
    a, b, c = broadcast(*args)
    if t == F64:
        return _fma_f64(a, b, c)
    # The product of two values of at most 24 significant bits is exact in float64; the sum is then
    # rounded to odd (exact error by TwoSum) so that the final rounding to t is the only one.
    p = a.to(torch.float64) * b.to(torch.float64)
    c64 = c.to(torch.float64)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    finite = torch.isfinite(s)
    inexact = (err != 0) & finite
    if bool(inexact.any()):
        # Move s to the odd neighbour on the side of the exact result when the sum was inexact.
        toward = torch.where(err > 0, torch.full_like(s, math.inf), torch.full_like(s, -math.inf))
        bits = s.view(torch.int64)
        odd = (bits & 1) == 1
        s_adj = torch.where(odd, s, torch.nextafter(s, toward))
        s = torch.where(inexact, s_adj, s)
    return _narrow_from_f64(s, reg_dtype(t))


def _fma_f64(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Double-precision fused multiply-add, exactly, element by element with rationals."""
    out = []
    for x, y, z in zip(a.flatten().tolist(), b.flatten().tolist(), c.flatten().tolist(), strict=True):
        if not all(math.isfinite(v) for v in (x, y, z)):
            out.append(x * y + z)
        else:
            exact = Fraction(x) * Fraction(y) + Fraction(z)
            out.append(round_fraction(exact, F64) if exact != 0 else (x * y + z))
    return torch.tensor(out, dtype=torch.float64).reshape(a.shape)


def _abs(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    (a,) = args
    return wrap(a.abs(), t) if t.is_int else a.abs()


def _unsigned_bits(a: torch.Tensor, t: ScalarType) -> torch.Tensor:
    """The bit pattern of integer registers as a non-negative int64 (64-bit types keep their sign bit)."""
    return a if t.bits == 64 else a & ((1 << t.bits) - 1)


def _bit_length(u: torch.Tensor) -> torch.Tensor:
    """Number of significant bits of the pattern ``u`` (64 when the int64 sign bit is set)."""
    neg = u < 0
    x = torch.where(neg, torch.zeros_like(u), u)
    n = torch.zeros_like(u)
    for s in (32, 16, 8, 4, 2, 1):
        has = torch.bitwise_right_shift(x, s) != 0
        n = n + has.to(torch.int64) * s
        x = torch.where(has, torch.bitwise_right_shift(x, s), x)
    n = n + (x != 0).to(torch.int64)
    return torch.where(neg, torch.full_like(n, 64), n)


_POPCOUNT_TABLE = torch.tensor([bin(i).count("1") for i in range(256)], dtype=torch.int64)


def _popc(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    (a,) = args
    raw = dense(to_mem(a, t))
    by = raw.reshape(*raw.shape, 1).view(torch.uint8).to(torch.int64)
    return _POPCOUNT_TABLE[by].sum(dim=-1)


def _clz(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    (a,) = args
    return t.bits - _bit_length(_unsigned_bits(a, t))


def _ffs(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
    (a,) = args
    u = _unsigned_bits(a, t)
    lowest = u & -u  # two's complement isolates the least significant set bit (0 stays 0)
    return _bit_length(lowest)


def _predicate(fn: Callable[[torch.Tensor], torch.Tensor]) -> MathRule:
    def rule(args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None) -> torch.Tensor:
        return fn(args[0])

    return rule


#: One rule per math intrinsic: ``rule(args, t, ub)`` with ``t`` the scalar type of the arguments.
MATH_RULES: dict[MathFn, MathRule] = {
    MathFn.EXP: _via_f64(torch.exp),
    MathFn.EXP2: _via_f64(torch.exp2),
    MathFn.EXP10: _via_f64(lambda x: torch.pow(torch.full_like(x, 10.0), x)),
    MathFn.EXPM1: _via_f64(torch.expm1),
    MathFn.LOG: _via_f64(torch.log),
    MathFn.LOG2: _via_f64(torch.log2),
    MathFn.LOG10: _via_f64(torch.log10),
    MathFn.LOG1P: _via_f64(torch.log1p),
    # numpy's sqrt is IEEE's correctly rounded one (torch's float64 CPU kernel is not, for ~1% of inputs);
    # for f32 and below, rounding the float64 root again is exact: float64 has > 2 * 24 + 2 bits
    MathFn.SQRT: _via_f64(_numpy64(np.sqrt)),
    MathFn.RSQRT: _via_f64(torch.rsqrt),
    MathFn.CBRT: _via_f64(_numpy64(np.cbrt)),
    MathFn.SIN: _via_f64(torch.sin),
    MathFn.COS: _via_f64(torch.cos),
    MathFn.TAN: _via_f64(torch.tan),
    MathFn.ASIN: _via_f64(torch.asin),
    MathFn.ACOS: _via_f64(torch.acos),
    MathFn.ATAN: _via_f64(torch.atan),
    MathFn.ATAN2: _via_f64(torch.atan2),
    MathFn.SINH: _via_f64(torch.sinh),
    MathFn.COSH: _via_f64(torch.cosh),
    MathFn.TANH: _via_f64(torch.tanh),
    MathFn.ERF: _via_f64(torch.erf),
    MathFn.ERFC: _via_f64(torch.erfc),
    MathFn.POW: _via_f64(torch.pow),
    MathFn.FMOD: _exact(torch.fmod),  # C fmod is exact
    MathFn.DIV: _via_f64(torch.div),  # __fdividef: the exact quotient, within its error bound
    MathFn.FMA: _fma,
    MathFn.ABS: _abs,
    MathFn.FLOOR: _exact(torch.floor),
    MathFn.CEIL: _exact(torch.ceil),
    MathFn.TRUNC: _exact(torch.trunc),
    MathFn.ROUND: _exact(_round_half_away),
    MathFn.RINT: _exact(torch.round),  # torch.round is half to even, like rintf
    MathFn.COPYSIGN: _exact(torch.copysign),
    MathFn.ISNAN: _predicate(torch.isnan),
    MathFn.ISINF: _predicate(torch.isinf),
    MathFn.ISFINITE: _predicate(torch.isfinite),
    MathFn.SIGNBIT: _predicate(torch.signbit),
    MathFn.POPC: _popc,
    MathFn.CLZ: _clz,
    MathFn.FFS: _ffs,
}


def apply_math(fn: MathFn, args: list[torch.Tensor], t: ScalarType, ub: UndefinedOps | None = None) -> torch.Tensor:
    """The intrinsic ``fn`` on arguments of scalar element type ``t`` (see :data:`MATH_RULES`)."""
    if len(args) > 1:
        args = list(broadcast(*args))
    if t.is_fp8:
        out = MATH_RULES[fn](args, F32, ub)  # computed in f32, rounded once more to fp8
        return round_fp8(out, t) if out.dtype == torch.float32 else out
    return MATH_RULES[fn](args, t, ub)


#: Every scalar type, for tests that sweep them.
ALL_SCALARS = (BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2)
