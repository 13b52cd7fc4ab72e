"""The CUDA device library larkc understands: math functions, half-precision intrinsics, conversions,
constants. Each entry says which IR construct a call becomes and how its arguments are typed.

Argument typing policies (:class:`ArgPolicy`):

* ``F32``/``F64``: arguments are converted to that type (``expf``, ``sqrt`` on doubles).
* ``OVERLOAD``: C++ overload resolution of ``<cmath>``/CUDA's math overloads: ``double`` if any argument
  is ``double`` or an integer, otherwise ``float`` (``exp(x)`` with ``float x`` is ``expf``).
* ``SAME``: the usual arithmetic conversions among the arguments (``max(a, b)`` on ints or floats).
* ``HALF``: the arguments are all ``__half`` or all ``__nv_bfloat16`` (``__hadd``, ``__hmax``).
* ``HALF2``: all ``__half2`` or all ``__nv_bfloat162`` (``__hadd2``, ``__hmul2``).
"""

from __future__ import annotations

import enum
import math

from larkc.ir.nodes import BinaryOp, CastKind, MathFn, UnaryOp
from larkc.ir.types import BF16, F16, F32, F64, I32, I64, U16, U32, U64, ScalarType

__all__ = [
    "BINARY_FUNCTIONS",
    "COMPARE_FUNCTIONS",
    "CONSTANTS",
    "CONVERSIONS",
    "FP8_FORMATS",
    "FP8_SATURATION",
    "FP8_SOURCES",
    "MATH_FUNCTIONS",
    "PAIR_FUNCTIONS",
    "UNARY_FUNCTIONS",
    "ArgPolicy",
]


class ArgPolicy(enum.Enum):
    F32 = "f32"  # convert every argument to float
    F64 = "f64"  # convert every argument to double
    OVERLOAD = "overload"  # float if every argument is a float (or half), else double
    SAME = "same"  # the usual arithmetic conversions among the arguments
    HALF = "half"  # every argument __half, or every argument __nv_bfloat16
    HALF2 = "half2"  # every argument __half2, or every argument __nv_bfloat162


def _f(fn: MathFn, policy: ArgPolicy = ArgPolicy.F32, approx: bool = False) -> tuple[MathFn, ArgPolicy, bool]:
    return fn, policy, approx


#: Function name -> (math intrinsic, argument policy, approximate variant).
MATH_FUNCTIONS: dict[str, tuple[MathFn, ArgPolicy, bool]] = {}
for _fn, _names in {
    MathFn.EXP: ("exp",),
    MathFn.EXP2: ("exp2",),
    MathFn.EXP10: ("exp10",),
    MathFn.EXPM1: ("expm1",),
    MathFn.LOG: ("log",),
    MathFn.LOG2: ("log2",),
    MathFn.LOG10: ("log10",),
    MathFn.LOG1P: ("log1p",),
    MathFn.SQRT: ("sqrt",),
    MathFn.RSQRT: ("rsqrt",),
    MathFn.CBRT: ("cbrt",),
    MathFn.SIN: ("sin",),
    MathFn.COS: ("cos",),
    MathFn.TAN: ("tan",),
    MathFn.ASIN: ("asin",),
    MathFn.ACOS: ("acos",),
    MathFn.ATAN: ("atan",),
    MathFn.ATAN2: ("atan2",),
    MathFn.SINH: ("sinh",),
    MathFn.COSH: ("cosh",),
    MathFn.TANH: ("tanh",),
    MathFn.ERF: ("erf",),
    MathFn.ERFC: ("erfc",),
    MathFn.POW: ("pow",),
    MathFn.FMOD: ("fmod",),
    MathFn.FMA: ("fma",),
    MathFn.FLOOR: ("floor",),
    MathFn.CEIL: ("ceil",),
    MathFn.TRUNC: ("trunc",),
    MathFn.ROUND: ("round",),
    MathFn.RINT: ("rint", "nearbyint"),
    MathFn.COPYSIGN: ("copysign",),
}.items():
    for _n in _names:
        MATH_FUNCTIONS[_n] = _f(_fn, ArgPolicy.OVERLOAD)
        MATH_FUNCTIONS[_n + "f"] = _f(_fn, ArgPolicy.F32)
        MATH_FUNCTIONS["std::" + _n] = _f(_fn, ArgPolicy.OVERLOAD)
MATH_FUNCTIONS.update(
    {
        "fabs": _f(MathFn.ABS, ArgPolicy.OVERLOAD),
        "fabsf": _f(MathFn.ABS, ArgPolicy.F32),
        "std::fabs": _f(MathFn.ABS, ArgPolicy.OVERLOAD),
        "abs": _f(MathFn.ABS, ArgPolicy.SAME),
        "std::abs": _f(MathFn.ABS, ArgPolicy.SAME),
        "llabs": _f(MathFn.ABS, ArgPolicy.SAME),
        "labs": _f(MathFn.ABS, ArgPolicy.SAME),
        "isnan": _f(MathFn.ISNAN, ArgPolicy.OVERLOAD),
        "isinf": _f(MathFn.ISINF, ArgPolicy.OVERLOAD),
        "isfinite": _f(MathFn.ISFINITE, ArgPolicy.OVERLOAD),
        "signbit": _f(MathFn.SIGNBIT, ArgPolicy.OVERLOAD),
        "std::isnan": _f(MathFn.ISNAN, ArgPolicy.OVERLOAD),
        "std::isinf": _f(MathFn.ISINF, ArgPolicy.OVERLOAD),
        "std::isfinite": _f(MathFn.ISFINITE, ArgPolicy.OVERLOAD),
        "__expf": _f(MathFn.EXP, ArgPolicy.F32, True),
        "__exp10f": _f(MathFn.EXP10, ArgPolicy.F32, True),
        "__logf": _f(MathFn.LOG, ArgPolicy.F32, True),
        "__log2f": _f(MathFn.LOG2, ArgPolicy.F32, True),
        "__log10f": _f(MathFn.LOG10, ArgPolicy.F32, True),
        "__sinf": _f(MathFn.SIN, ArgPolicy.F32, True),
        "__cosf": _f(MathFn.COS, ArgPolicy.F32, True),
        "__tanf": _f(MathFn.TAN, ArgPolicy.F32, True),
        "__powf": _f(MathFn.POW, ArgPolicy.F32, True),
        "__fdividef": _f(MathFn.DIV, ArgPolicy.F32, True),
        "__tanhf": _f(MathFn.TANH, ArgPolicy.F32, True),
        "__fsqrt_rn": _f(MathFn.SQRT, ArgPolicy.F32),
        "__frsqrt_rn": _f(MathFn.RSQRT, ArgPolicy.F32),
        "__fmaf_rn": _f(MathFn.FMA, ArgPolicy.F32),
        "__fma_rn": _f(MathFn.FMA, ArgPolicy.F64),
        "__dsqrt_rn": _f(MathFn.SQRT, ArgPolicy.F64),
        "__popc": _f(MathFn.POPC, ArgPolicy.SAME),
        "__popcll": _f(MathFn.POPC, ArgPolicy.SAME),
        "__clz": _f(MathFn.CLZ, ArgPolicy.SAME),
        "__clzll": _f(MathFn.CLZ, ArgPolicy.SAME),
        "__ffs": _f(MathFn.FFS, ArgPolicy.SAME),
        "__ffsll": _f(MathFn.FFS, ArgPolicy.SAME),
        # half precision math (cuda_fp16.h / cuda_bf16.h), computed in the half type
        "hexp": _f(MathFn.EXP, ArgPolicy.HALF),
        "hexp2": _f(MathFn.EXP2, ArgPolicy.HALF),
        "hlog": _f(MathFn.LOG, ArgPolicy.HALF),
        "hlog2": _f(MathFn.LOG2, ArgPolicy.HALF),
        "hsqrt": _f(MathFn.SQRT, ArgPolicy.HALF),
        "hrsqrt": _f(MathFn.RSQRT, ArgPolicy.HALF),
        "htanh": _f(MathFn.TANH, ArgPolicy.HALF),
        "hfloor": _f(MathFn.FLOOR, ArgPolicy.HALF),
        "hceil": _f(MathFn.CEIL, ArgPolicy.HALF),
        "__habs": _f(MathFn.ABS, ArgPolicy.HALF),
        "__hfma": _f(MathFn.FMA, ArgPolicy.HALF),
        "h2exp": _f(MathFn.EXP, ArgPolicy.HALF2),
        "h2sqrt": _f(MathFn.SQRT, ArgPolicy.HALF2),
        "h2rsqrt": _f(MathFn.RSQRT, ArgPolicy.HALF2),
        "__habs2": _f(MathFn.ABS, ArgPolicy.HALF2),
        "__hfma2": _f(MathFn.FMA, ArgPolicy.HALF2),
        "__hisnan": _f(MathFn.ISNAN, ArgPolicy.HALF),
        "__hisinf": _f(MathFn.ISINF, ArgPolicy.HALF),
    }
)

#: Functions that are binary operators: name -> (operator, argument policy).
BINARY_FUNCTIONS: dict[str, tuple[BinaryOp, ArgPolicy]] = {
    "fmaxf": (BinaryOp.MAX, ArgPolicy.F32),
    "fminf": (BinaryOp.MIN, ArgPolicy.F32),
    "fmax": (BinaryOp.MAX, ArgPolicy.OVERLOAD),
    "fmin": (BinaryOp.MIN, ArgPolicy.OVERLOAD),
    "std::fmax": (BinaryOp.MAX, ArgPolicy.OVERLOAD),
    "std::fmin": (BinaryOp.MIN, ArgPolicy.OVERLOAD),
    "max": (BinaryOp.MAX, ArgPolicy.SAME),
    "min": (BinaryOp.MIN, ArgPolicy.SAME),
    "umax": (BinaryOp.MAX, ArgPolicy.SAME),
    "umin": (BinaryOp.MIN, ArgPolicy.SAME),
    "llmax": (BinaryOp.MAX, ArgPolicy.SAME),
    "llmin": (BinaryOp.MIN, ArgPolicy.SAME),
    "std::max": (BinaryOp.MAX, ArgPolicy.SAME),
    "std::min": (BinaryOp.MIN, ArgPolicy.SAME),
    "fdividef": (BinaryOp.DIV, ArgPolicy.F32),
    "__fadd_rn": (BinaryOp.ADD, ArgPolicy.F32),
    "__fsub_rn": (BinaryOp.SUB, ArgPolicy.F32),
    "__fmul_rn": (BinaryOp.MUL, ArgPolicy.F32),
    "__fdiv_rn": (BinaryOp.DIV, ArgPolicy.F32),
    "__dadd_rn": (BinaryOp.ADD, ArgPolicy.F64),
    "__dmul_rn": (BinaryOp.MUL, ArgPolicy.F64),
    "__hadd": (BinaryOp.ADD, ArgPolicy.HALF),
    "__hsub": (BinaryOp.SUB, ArgPolicy.HALF),
    "__hmul": (BinaryOp.MUL, ArgPolicy.HALF),
    "__hdiv": (BinaryOp.DIV, ArgPolicy.HALF),
    "__hmax": (BinaryOp.MAX, ArgPolicy.HALF),
    "__hmin": (BinaryOp.MIN, ArgPolicy.HALF),
    "__hadd2": (BinaryOp.ADD, ArgPolicy.HALF2),
    "__hsub2": (BinaryOp.SUB, ArgPolicy.HALF2),
    "__hmul2": (BinaryOp.MUL, ArgPolicy.HALF2),
    "__h2div": (BinaryOp.DIV, ArgPolicy.HALF2),
    "__hmax2": (BinaryOp.MAX, ArgPolicy.HALF2),
    "__hmin2": (BinaryOp.MIN, ArgPolicy.HALF2),
}

#: Half-precision comparisons: name -> comparison (result bool).
COMPARE_FUNCTIONS: dict[str, BinaryOp] = {
    "__heq": BinaryOp.EQ,
    "__hne": BinaryOp.NE,
    "__hlt": BinaryOp.LT,
    "__hle": BinaryOp.LE,
    "__hgt": BinaryOp.GT,
    "__hge": BinaryOp.GE,
}

#: Functions that are unary operators: name -> (operator, argument policy).
UNARY_FUNCTIONS: dict[str, tuple[UnaryOp, ArgPolicy]] = {
    "__hneg": (UnaryOp.NEG, ArgPolicy.HALF),
    "__hneg2": (UnaryOp.NEG, ArgPolicy.HALF2),
}

#: Scalar conversions: name -> (source type or None for "any", target type, cast kind, rounding).
#: ``rounding`` is a math function applied before a float-to-integer conversion (``__float2int_rn``).
CONVERSIONS: dict[str, tuple[ScalarType | None, ScalarType, CastKind, MathFn | None]] = {
    "__half2float": (F16, F32, CastKind.CONVERT, None),
    "__float2half": (F32, F16, CastKind.CONVERT, None),
    "__float2half_rn": (F32, F16, CastKind.CONVERT, None),
    "__bfloat162float": (BF16, F32, CastKind.CONVERT, None),
    "__float2bfloat16": (F32, BF16, CastKind.CONVERT, None),
    "__float2bfloat16_rn": (F32, BF16, CastKind.CONVERT, None),
    "__double2float_rn": (F64, F32, CastKind.CONVERT, None),
    "__int2float_rn": (I32, F32, CastKind.CONVERT, None),
    "__uint2float_rn": (U32, F32, CastKind.CONVERT, None),
    "__ll2float_rn": (I64, F32, CastKind.CONVERT, None),
    "__int2double_rn": (I32, F64, CastKind.CONVERT, None),
    "__float2int_rz": (F32, I32, CastKind.CONVERT, None),
    "__float2int_rn": (F32, I32, CastKind.CONVERT, MathFn.RINT),
    "__float2int_rd": (F32, I32, CastKind.CONVERT, MathFn.FLOOR),
    "__float2int_ru": (F32, I32, CastKind.CONVERT, MathFn.CEIL),
    "__float2uint_rz": (F32, U32, CastKind.CONVERT, None),
    "__float2uint_rn": (F32, U32, CastKind.CONVERT, MathFn.RINT),
    "__float2ll_rz": (F32, I64, CastKind.CONVERT, None),
    "__float2ll_rn": (F32, I64, CastKind.CONVERT, MathFn.RINT),
    "__double2int_rz": (F64, I32, CastKind.CONVERT, None),
    "__double2int_rn": (F64, I32, CastKind.CONVERT, MathFn.RINT),
    "__half2int_rz": (F16, I32, CastKind.CONVERT, None),
    "__half2int_rn": (F16, I32, CastKind.CONVERT, MathFn.RINT),
    "__half2int_rd": (F16, I32, CastKind.CONVERT, MathFn.FLOOR),
    "__half2int_ru": (F16, I32, CastKind.CONVERT, MathFn.CEIL),
    "__int2half_rn": (I32, F16, CastKind.CONVERT, None),
    "__float_as_int": (F32, I32, CastKind.BITCAST, None),
    "__int_as_float": (I32, F32, CastKind.BITCAST, None),
    "__float_as_uint": (F32, U32, CastKind.BITCAST, None),
    "__uint_as_float": (U32, F32, CastKind.BITCAST, None),
    "__double_as_longlong": (F64, I64, CastKind.BITCAST, None),
    "__longlong_as_double": (I64, F64, CastKind.BITCAST, None),
    "__half_as_ushort": (F16, U16, CastKind.BITCAST, None),
    "__ushort_as_half": (U16, F16, CastKind.BITCAST, None),
    "__bfloat16_as_ushort": (BF16, U16, CastKind.BITCAST, None),
    "__ushort_as_bfloat16": (U16, BF16, CastKind.BITCAST, None),
}

#: Vector pair functions: name -> (kind, element type or None to take it from the argument).
#: Kinds: "make2" builds a 2-lane vector from two scalars, "dup" from one scalar twice, "low"/"high"
#: extract a lane, "low_f"/"high_f" extract a lane and convert it to float, "to_f2" converts both lanes
#: to float, "from_f2" converts a float2 to the half pair, "swap" exchanges the two lanes.
PAIR_FUNCTIONS: dict[str, tuple[str, ScalarType | None]] = {
    "__halves2half2": ("make2", F16),
    "make_half2": ("make2", F16),
    "__floats2half2_rn": ("make2", F16),
    "__half2half2": ("dup", F16),
    "__float2half2_rn": ("dup", F16),
    "__low2half": ("low", F16),
    "__high2half": ("high", F16),
    "__lowhigh2highlow": ("swap", F16),
    "__low2float": ("low_f", F16),
    "__high2float": ("high_f", F16),
    "__half22float2": ("to_f2", F16),
    "__float22half2_rn": ("from_f2", F16),
    "__halves2bfloat162": ("make2", BF16),
    "make_bfloat162": ("make2", BF16),
    "__floats2bfloat162_rn": ("make2", BF16),
    "__bfloat162bfloat162": ("dup", BF16),
    "__float2bfloat162_rn": ("dup", BF16),
    "__low2bfloat16": ("low", BF16),
    "__high2bfloat16": ("high", BF16),
    "__bfloat1622float2": ("to_f2", BF16),
    "__float22bfloat162_rn": ("from_f2", BF16),
}

#: cuda_fp8.h's conversions of one value to fp8 bits, by the type of the value they take.
FP8_SOURCES: dict[str, ScalarType] = {
    "__nv_cvt_float_to_fp8": F32,
    "__nv_cvt_double_to_fp8": F64,
    "__nv_cvt_halfraw_to_fp8": F16,
    "__nv_cvt_bfloat16raw_to_fp8": BF16,
}

#: cuda_fp8.h's enumerators: whether a conversion saturates (``__nv_saturation_t``), whether the
#: format is E5M2 rather than E4M3 (``__nv_fp8_interpretation_t``).
FP8_SATURATION: dict[str, bool] = {"__NV_SATFINITE": True, "__NV_NOSAT": False}
FP8_FORMATS: dict[str, bool] = {"__NV_E5M2": True, "__NV_E4M3": False}

_FLT_MAX = float.fromhex("0x1.fffffep+127")

#: Named constants of CUDA's headers: name -> (type, value).
CONSTANTS: dict[str, tuple[ScalarType, float | int]] = {
    "CUDART_INF_F": (F32, math.inf),
    "CUDART_NAN_F": (F32, math.nan),
    "CUDART_PI_F": (F32, float.fromhex("0x1.921fb6p+1")),
    "CUDART_INF": (F64, math.inf),
    "CUDART_NAN": (F64, math.nan),
    "CUDART_PI": (F64, math.pi),
    "INFINITY": (F32, math.inf),
    "HUGE_VALF": (F32, math.inf),
    "HUGE_VAL": (F64, math.inf),
    "NAN": (F32, math.nan),
    "FLT_MAX": (F32, _FLT_MAX),
    "FLT_MIN": (F32, float.fromhex("0x1p-126")),
    "FLT_EPSILON": (F32, float.fromhex("0x1p-23")),
    "DBL_MAX": (F64, float.fromhex("0x1.fffffffffffffp+1023")),
    "M_PI": (F64, math.pi),
    "M_PI_2": (F64, math.pi / 2),
    "M_SQRT2": (F64, math.sqrt(2.0)),
    "M_SQRT1_2": (F64, math.sqrt(0.5)),
    "M_2_SQRTPI": (F64, 2.0 / math.sqrt(math.pi)),
    "M_LN2": (F64, math.log(2.0)),
    "M_LOG2E": (F64, 1.0 / math.log(2.0)),
    "M_E": (F64, math.e),
    "INT_MAX": (I32, 2**31 - 1),
    "INT_MIN": (I32, -(2**31)),
    "UINT_MAX": (U32, 2**32 - 1),
    "LLONG_MAX": (I64, 2**63 - 1),
    "LLONG_MIN": (I64, -(2**63)),
    "ULLONG_MAX": (U64, 2**64 - 1),
    # cuda_fp8.h's enumerators (`__nv_saturation_t`, `__nv_fp8_interpretation_t`)
    "__NV_NOSAT": (I32, 0),
    "__NV_SATFINITE": (I32, 1),
    "__NV_E4M3": (I32, 0),
    "__NV_E5M2": (I32, 1),
    "INT8_MAX": (I32, 127),
    "INT8_MIN": (I32, -128),
    "UINT8_MAX": (I32, 255),
    "INT16_MAX": (I32, 32767),
    "INT16_MIN": (I32, -32768),
    "UINT16_MAX": (I32, 65535),
    "INT32_MAX": (I32, 2**31 - 1),
    "INT32_MIN": (I32, -(2**31)),
    "UINT32_MAX": (U32, 2**32 - 1),
    "INT64_MAX": (I64, 2**63 - 1),
    "INT64_MIN": (I64, -(2**63)),
    "UINT64_MAX": (U64, 2**64 - 1),
    "SIZE_MAX": (U64, 2**64 - 1),
    "CHAR_BIT": (I32, 8),
    "warpSize": (I32, 32),
}
