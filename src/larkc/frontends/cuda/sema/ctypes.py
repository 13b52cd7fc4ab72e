"""C/CUDA types as the CUDA frontend sees them, and C's conversion rules.

Values the frontend manipulates have IR types (:mod:`larkc.ir.types`) except for arrays, which keep
their dimensions (:class:`CArray`) until they decay to a pointer. User structs used as packed vectors
are IR :class:`~larkc.ir.types.VectorType` values; their field names live in a :class:`StructInfo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter as ts

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
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
)

__all__ = [
    "BUILTIN_TYPES",
    "PACKED_FP8_CONVERSIONS",
    "UNSUPPORTED_TYPES",
    "CArray",
    "CType",
    "StructInfo",
    "arithmetic_result",
    "integer_promote",
    "vector",
]


def vector(elem: ScalarType, lanes: int, align: int | None = None) -> VectorType:
    """A vector type with CUDA's alignment (its size, except 3-lane vectors align to the element)."""
    if align is None:
        align = elem.size if lanes == 3 else elem.size * lanes
    return VectorType(elem, lanes, align)


#: Type names CUDA code uses without declaring them (fundamental types, fixed-width typedefs, CUDA
#: vector and half-precision types).
BUILTIN_TYPES: dict[str, Type] = {
    "bool": BOOL,
    "char": I8,
    "signed char": I8,
    "unsigned char": U8,
    "short": I16,
    "short int": I16,
    "signed short": I16,
    "unsigned short": U16,
    "unsigned short int": U16,
    "int": I32,
    "signed": I32,
    "signed int": I32,
    "unsigned": U32,
    "unsigned int": U32,
    "long": I64,
    "long int": I64,
    "signed long": I64,
    "unsigned long": U64,
    "unsigned long int": U64,
    "long long": I64,
    "long long int": I64,
    "signed long long": I64,
    "unsigned long long": U64,
    "unsigned long long int": U64,
    "float": F32,
    "double": F64,
    "int8_t": I8,
    "int16_t": I16,
    "int32_t": I32,
    "int64_t": I64,
    "uint8_t": U8,
    "uint16_t": U16,
    "uint32_t": U32,
    "uint64_t": U64,
    "size_t": U64,
    "ptrdiff_t": I64,
    "intptr_t": I64,
    "uintptr_t": U64,
    "uint": U32,  # glibc's sys/types.h typedefs (nvcc includes them on Linux)
    "ushort": U16,
    "ulong": U64,
    "half": F16,
    "__half": F16,
    "nv_half": F16,  # cuda_fp16.h: typedef __half nv_half;
    "nv_bfloat16": BF16,
    "__nv_bfloat16": BF16,
    "half2": vector(F16, 2),
    "__half2": vector(F16, 2),
    "nv_half2": vector(F16, 2),  # cuda_fp16.h: typedef __half2 nv_half2;
    "nv_bfloat162": vector(BF16, 2),
    "__nv_bfloat162": vector(BF16, 2),
    # cuda_fp8.h's fp8 classes (saturating constructors, conversions back to float and half); its
    # storage typedefs are plain unsigned integers holding the bits
    "__nv_fp8_e4m3": F8E4M3,
    "__nv_fp8_e5m2": F8E5M2,
    "__nv_fp8_storage_t": U8,
    "__nv_fp8x2_storage_t": U16,
    "__nv_fp8x4_storage_t": U32,
    # cuda_fp8.h's packed classes: vectors of the fp8 values, of the size and alignment of their storage
    # (constructed from float2/float4, double2/4, __half2, __nv_bfloat162 lane by lane as the scalar
    # constructors do, saturating; converted back to float2/float4 and __half2 exactly)
    "__nv_fp8x2_e4m3": vector(F8E4M3, 2),
    "__nv_fp8x4_e4m3": vector(F8E4M3, 4),
    "__nv_fp8x2_e5m2": vector(F8E5M2, 2),
    "__nv_fp8x4_e5m2": vector(F8E5M2, 4),
}

#: The explicit conversions cuda_fp8.h's packed classes define, as (source element, target element, lanes): the
#: constructors ``__nv_fp8x2_e4m3(float2 | double2 | __half2 | __nv_bfloat162)`` and
#: ``__nv_fp8x4_e4m3(float4 | double4)``, and the conversions back ``operator float2()``, ``operator
#: __half2_raw()``, ``operator float4()`` (likewise for e5m2); each lane converts as the scalar classes do.
PACKED_FP8_CONVERSIONS: frozenset[tuple[ScalarType, ScalarType, int]] = frozenset(
    [(src, fp8, 2) for fp8 in (F8E4M3, F8E5M2) for src in (F32, F64, F16, BF16)]
    + [(fp8, dst, 2) for fp8 in (F8E4M3, F8E5M2) for dst in (F32, F16)]
    + [(src, fp8, 4) for fp8 in (F8E4M3, F8E5M2) for src in (F32, F64)]
    + [(fp8, F32, 4) for fp8 in (F8E4M3, F8E5M2)]
)

#: Type names CUDA code uses that larkc knows but cannot model, and what the error calls them.
UNSUPPORTED_TYPES: dict[str, str] = {
    name: "narrow float type (the fp8 types __nv_fp8_e4m3, __nv_fp8_e5m2 and their packed forms are supported)"
    for name in (
        "__nv_fp8_e8m0",
        "__nv_fp8x2_e8m0",
        "__nv_fp8x4_e8m0",
        "__nv_fp4_e2m1",
        "__nv_fp4x2_e2m1",
        "__nv_fp4x4_e2m1",
        "__nv_fp6_e2m3",
        "__nv_fp6_e3m2",
        "__nv_fp6x2_e2m3",
        "__nv_fp6x2_e3m2",
        "__nv_fp6x4_e2m3",
        "__nv_fp6x4_e3m2",
    )
}
for _name, _elem in (
    ("char", I8),
    ("uchar", U8),
    ("short", I16),
    ("ushort", U16),
    ("int", I32),
    ("uint", U32),
    ("long", I64),
    ("ulong", U64),
    ("longlong", I64),
    ("ulonglong", U64),
    ("float", F32),
    ("double", F64),
):
    for _lanes in (1, 2, 3, 4):
        BUILTIN_TYPES[f"{_name}{_lanes}"] = vector(_elem, _lanes)
# PyTorch's half and fp8 types (c10::Half, c10::BFloat16, c10::Float8_e4m3fn convert to and from float
# like __half; c10's fp8 conversions saturate, as torch's and cuda_fp8.h's e4m3 constructor do)
for _name, _t in (("Half", F16), ("BFloat16", BF16), ("Float8_e4m3fn", F8E4M3)):
    for _ns in ("c10::", "at::", "::c10::", "::at::"):
        BUILTIN_TYPES[_ns + _name] = _t
for _q in ("std::", "::"):
    for _n in ("size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"):
        BUILTIN_TYPES[_q + _n] = BUILTIN_TYPES[_n]


@dataclass(frozen=True, slots=True)
class CArray:
    """A declared array (``float tile[32][33]``): element type and dimensions, outermost first.

    Arrays are stored flattened in row-major order; ``dims[0]`` may be ``None`` for ``extern`` arrays and
    array parameters (``float x[][N]``, a pointer to rows of ``N``).
    """

    elem: Type
    dims: tuple[int | None, ...]
    space: AddressSpace
    const: bool = False  # a `const float x[][N]` parameter

    @property
    def pointer(self) -> PointerType:
        """The type an array expression decays to (a pointer to its first row's first element)."""
        return PointerType(self.elem, self.space, self.const)

    def row_size(self) -> int:
        """Elements per step of the outermost index."""
        size = 1
        for d in self.dims[1:]:
            assert d is not None
            size *= d
        return size


CType = Type | CArray


@dataclass(frozen=True, slots=True)
class StructInfo:
    """A user struct laid out as a packed vector: ``fields`` maps a name to (first lane, lanes, is_array).

    ``constants`` are its ``static constexpr`` members; ``methods`` its member functions by name (the
    constructors under the struct's own name), as definition nodes; ``env`` binds its template
    parameters (and its own name, as C++'s injected class name) for lowering those methods.
    ``vector_arrays`` are its members that are arrays of a vector type (flashinfer's ``int4 data[N]``):
    name -> (first lane, element vector type, lanes in all); they are not in ``fields``, so only the accesses that know
    an element is several lanes (``data[i]``, ``data[i].x``) reach them.
    """

    name: str
    vector: VectorType
    fields: dict[str, tuple[int, int, bool]]
    constants: dict[str, tuple[ScalarType, bool | int | float]] = field(default_factory=dict)
    methods: dict[str, list[ts.Node]] = field(default_factory=dict)
    env: dict[str, object] = field(default_factory=dict)
    vector_arrays: dict[str, tuple[int, VectorType, int]] = field(default_factory=dict)
    #: the instance's template arguments as written in names (``<half, 16>``; empty for a plain struct): the
    #: names of its member functions' instances, so two instances' members are never one function
    instance: str = ""


_RANK = {BOOL: 0, I8: 1, U8: 1, I16: 2, U16: 2, I32: 3, U32: 3, I64: 4, U64: 4}
_UNSIGNED_OF = {I8: U8, I16: U16, I32: U32, I64: U64}


def integer_promote(t: ScalarType) -> ScalarType:
    """C's integer promotion: bool, char and short become ``int``."""
    if t.is_bool or (t.is_int and t.bits < 32):
        return I32
    return t


def arithmetic_result(a: ScalarType, b: ScalarType) -> ScalarType | None:
    """The common type of C's usual arithmetic conversions, ``None`` if there is none.

    Half-precision follows CUDA's operator overloads: ``__half op __half`` stays ``__half`` (likewise
    bf16), and a half mixed with a ``float`` or an integer is computed in ``float``.
    """
    if a.is_float or b.is_float:
        if F64 in (a, b):
            return F64
        if F32 in (a, b):
            return F32
        if a == b:
            return a
        if a.is_float and b.is_float:
            return None  # __half with __nv_bfloat16 has no common type
        return F32
    a, b = integer_promote(a), integer_promote(b)
    if a == b:
        return a
    if a.is_signed == b.is_signed:
        return a if _RANK[a] >= _RANK[b] else b
    signed, unsigned = (a, b) if a.is_signed else (b, a)
    if _RANK[unsigned] >= _RANK[signed]:
        return unsigned
    if signed.bits > unsigned.bits:
        return signed
    return _UNSIGNED_OF[signed]
