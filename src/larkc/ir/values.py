"""Exact conversions of scalar values between IR types, as C and CUDA define them.

Used to fold conversions of literals in the frontends and to check constants in the verifier: every
float value is rounded to nearest, ties to even; integer conversions wrap modulo 2^bits.

The fp8 formats (``f8e4m3``, ``f8e5m2``) convert as CUDA's constructors ``__nv_fp8_e4m3(x)`` and
``__nv_fp8_e5m2(x)`` do (``__nv_cvt_*_to_fp8`` with ``__NV_SATFINITE``): to nearest even, and a value
beyond the largest finite one (448, 57344), infinities included, saturates to it; NaN stays NaN.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from larkc.ir.types import BF16, F8E4M3, F8E5M2, F16, F32, F64, ScalarType

__all__ = ["FP8_MAX", "FP8_OVERFLOW", "convert_value", "is_representable", "round_float", "round_fraction", "wrap_int"]

#: The largest finite value of each fp8 format (the saturation bound of a conversion).
FP8_MAX: dict[ScalarType, float] = {F8E4M3: 448.0, F8E5M2: 57344.0}

#: Where a conversion to each fp8 format overflows (CUDA's ``FP8_OVERFLOW_THRESHOLD``): the largest
#: finite value plus half an ulp, and whether that tie itself overflows (it rounds up to even for e5m2,
#: down to even, 448, for e4m3).
FP8_OVERFLOW: dict[ScalarType, tuple[float, bool]] = {F8E4M3: (464.0, False), F8E5M2: (61440.0, True)}


def wrap_int(value: int, t: ScalarType) -> int:
    """``value`` modulo 2^bits, as a signed or unsigned integer of ``t``."""
    bits = t.bits
    v = value & ((1 << bits) - 1)
    if t.is_signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def round_float(value: float, t: ScalarType) -> float:
    """``value`` rounded to the nearest value of float type ``t`` (ties to even; overflow to infinity)."""
    if t.is_fp8:
        if not math.isfinite(value):
            return _saturate_fp8(value, t)
        return math.copysign(_round_fp8(Fraction(value), t), value)  # (keeps the sign of a zero)
    if math.isnan(value) or math.isinf(value) or t == F64:
        return float(value)
    if t == F32:
        try:
            return float(struct.unpack("<f", struct.pack("<f", value))[0])
        except OverflowError:
            return math.copysign(math.inf, value)
    if t == F16:
        try:
            return float(struct.unpack("<e", struct.pack("<e", value))[0])
        except OverflowError:
            return math.copysign(math.inf, value)
    if t == BF16:
        f32 = round_float(value, F32)
        if math.isinf(f32):
            return f32
        bits = struct.unpack("<I", struct.pack("<f", f32))[0]
        # Round the 32-bit pattern to its upper 16 bits, ties to even. Rounding via f32 first is exact
        # for bf16 because bf16 has fewer mantissa bits than half of f32's.
        rounding = 0x7FFF + ((bits >> 16) & 1)
        bits = ((bits + rounding) >> 16) << 16
        return float(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    raise ValueError(f"{t} is not a float type")


def convert_value(value: bool | int | float, src: ScalarType, dst: ScalarType) -> bool | int | float:
    """C's value conversion of ``value`` (of type ``src``) to ``dst``.

    Float to integer truncates toward zero; a value out of the integer's range is undefined behaviour
    in C and raises ``OverflowError`` here so callers can report it. NaN to integer raises likewise.
    """
    if dst.is_bool:
        return bool(value != 0)
    if dst.is_float:
        return round_float(float(value), dst)
    # integer destination
    if src.is_float:
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise OverflowError(f"{f} has no {dst} value")
        n = math.trunc(f)
        if wrap_int(n, dst) != n:
            raise OverflowError(f"{f} is out of the range of {dst}")
        return n
    return wrap_int(int(value), dst)


def is_representable(value: bool | int | float, t: ScalarType) -> bool:
    """Whether ``value`` is exactly a value of type ``t`` (the rule for IR constants)."""
    if t.is_bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if t.is_int:
        return isinstance(value, int) and wrap_int(value, t) == value
    if not isinstance(value, float):
        return False
    if math.isinf(value):
        return t != F8E4M3  # e4m3 has no infinities (a conversion to e5m2 saturates, but e5m2 has them)
    return math.isnan(value) or round_float(value, t) == value


def _saturate_fp8(value: float, t: ScalarType) -> float:
    """NaN, or an infinity saturated to the largest finite fp8 value of its sign."""
    return value if math.isnan(value) else math.copysign(FP8_MAX[t], value)


def _round_fp8(q: Fraction, t: ScalarType) -> float:
    """The exact rational ``q`` rounded to fp8 format ``t``, saturating (``__NV_SATFINITE``)."""
    sign = -1.0 if q < 0 else 1.0
    return sign * float(min(_round_unbounded(q, t), Fraction(FP8_MAX[t])))  # (may exceed a double)


# (significand bits including the implicit one, least normal exponent, greatest exponent)
_FORMATS = {
    F32: (24, -126, 127),
    F16: (11, -14, 15),
    BF16: (8, -126, 127),
    F8E4M3: (4, -6, 8),
    F8E5M2: (3, -14, 15),
}


def round_fraction(q: Fraction, t: ScalarType) -> float:
    """The value of float type ``t`` nearest to the exact rational ``q`` (ties to even), rounding once.

    Rounding a decimal literal through ``float`` first would round twice (to double, then to ``t``),
    which differs from C when the double lands exactly between two values of ``t``.
    """
    sign = -1.0 if q < 0 else 1.0  # (not copysign of the numerator: it may be too large for a float)
    if t == F64:
        try:
            return float(q)  # correctly rounded by Python
        except OverflowError:
            return sign * math.inf
    if t.is_fp8:
        return _round_fp8(q, t)
    value = _round_unbounded(q, t)
    if abs(value) >= Fraction(2) ** (_FORMATS[t][2] + 1):
        return sign * math.inf
    return sign * float(value)


def _round_unbounded(q: Fraction, t: ScalarType) -> Fraction:
    """``|q|`` rounded to ``t``'s precision and least exponent, ignoring its greatest exponent."""
    bits, emin, _ = _FORMATS[t]
    if q == 0:
        return Fraction(0)
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)  # subnormal values share the least exponent
    scale = Fraction(2) ** (bits - 1 - e)
    return round(a * scale) / scale  # round() of a Fraction rounds half to even
