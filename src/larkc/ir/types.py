"""The types of the kernel IR.

One family serves CUDA's thread-level programs (scalars, pointers, short vectors, local arrays) and
Triton's block-level programs (:class:`BlockType`, a tensor of scalars or pointers held by one program).

Types are values: frozen, hashable, compared structurally. The IR is explicitly typed: there are no
implicit conversions, so every operand of a binary operator has the same type as the other, and the
frontends insert :class:`~larkc.ir.nodes.Cast` nodes where C would convert silently.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import assert_never

__all__ = [
    "BF16",
    "BOOL",
    "F8E4M3",
    "F8E5M2",
    "F16",
    "F32",
    "F64",
    "I8",
    "I16",
    "I32",
    "I64",
    "U8",
    "U16",
    "U32",
    "U64",
    "VOID",
    "AddressSpace",
    "ArrayType",
    "BlockType",
    "PointerType",
    "ScalarKind",
    "ScalarType",
    "Type",
    "VectorType",
    "VoidType",
    "scalar_of",
]


class ScalarKind(enum.Enum):
    """A scalar type. The value is the name used in the printed IR."""

    BOOL = "bool"  # one bit; C `bool`, comparison results, Triton masks
    I8 = "i8"  # signed two's complement integers of 8, 16, 32, 64 bits
    I16 = "i16"
    I32 = "i32"
    I64 = "i64"
    U8 = "u8"  # unsigned integers of 8, 16, 32, 64 bits (arithmetic wraps modulo 2^bits)
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    F16 = "f16"  # IEEE binary16 (`__half`)
    BF16 = "bf16"  # bfloat16 (`__nv_bfloat16`): 8 exponent bits, 7 mantissa bits
    F32 = "f32"  # IEEE binary32 (`float`)
    F64 = "f64"  # IEEE binary64 (`double`)
    F8E4M3 = "f8e4m3"  # OCP fp8 E4M3 (`__nv_fp8_e4m3`, torch `float8_e4m3fn`): no infinities, max 448
    F8E5M2 = "f8e5m2"  # OCP fp8 E5M2 (`__nv_fp8_e5m2`, torch `float8_e5m2`): IEEE-like, max 57344


_BITS = {
    ScalarKind.BOOL: 8,  # stored in a byte, like C++ bool
    ScalarKind.I8: 8,
    ScalarKind.I16: 16,
    ScalarKind.I32: 32,
    ScalarKind.I64: 64,
    ScalarKind.U8: 8,
    ScalarKind.U16: 16,
    ScalarKind.U32: 32,
    ScalarKind.U64: 64,
    ScalarKind.F16: 16,
    ScalarKind.BF16: 16,
    ScalarKind.F32: 32,
    ScalarKind.F64: 64,
    ScalarKind.F8E4M3: 8,
    ScalarKind.F8E5M2: 8,
}


_FLOAT_KINDS = frozenset(
    (ScalarKind.F16, ScalarKind.BF16, ScalarKind.F32, ScalarKind.F64, ScalarKind.F8E4M3, ScalarKind.F8E5M2)
)


@dataclass(frozen=True, slots=True)
class ScalarType:
    """A scalar: boolean, integer or floating point."""

    kind: ScalarKind

    @property
    def bits(self) -> int:
        """Width of the value in bits (``bool`` counts as its 8-bit storage)."""
        return _BITS[self.kind]

    @property
    def size(self) -> int:
        """Size in bytes."""
        return self.bits // 8

    @property
    def is_bool(self) -> bool:
        return self.kind is ScalarKind.BOOL

    @property
    def is_float(self) -> bool:
        return self.kind in _FLOAT_KINDS

    @property
    def is_fp8(self) -> bool:
        """One of the 8-bit float formats: a storage type, converted to ``f32`` for arithmetic."""
        return self.kind in (ScalarKind.F8E4M3, ScalarKind.F8E5M2)

    @property
    def is_int(self) -> bool:
        """Integer, signed or unsigned (not bool)."""
        return not self.is_bool and not self.is_float

    @property
    def is_signed(self) -> bool:
        return self.kind in (ScalarKind.I8, ScalarKind.I16, ScalarKind.I32, ScalarKind.I64)

    @property
    def is_unsigned(self) -> bool:
        return self.kind in (ScalarKind.U8, ScalarKind.U16, ScalarKind.U32, ScalarKind.U64)

    def __str__(self) -> str:
        return self.kind.value


BOOL = ScalarType(ScalarKind.BOOL)
I8 = ScalarType(ScalarKind.I8)
I16 = ScalarType(ScalarKind.I16)
I32 = ScalarType(ScalarKind.I32)
I64 = ScalarType(ScalarKind.I64)
U8 = ScalarType(ScalarKind.U8)
U16 = ScalarType(ScalarKind.U16)
U32 = ScalarType(ScalarKind.U32)
U64 = ScalarType(ScalarKind.U64)
F16 = ScalarType(ScalarKind.F16)
BF16 = ScalarType(ScalarKind.BF16)
F32 = ScalarType(ScalarKind.F32)
F64 = ScalarType(ScalarKind.F64)
F8E4M3 = ScalarType(ScalarKind.F8E4M3)
F8E5M2 = ScalarType(ScalarKind.F8E5M2)

SCALARS: dict[str, ScalarType] = {k.value: ScalarType(k) for k in ScalarKind}


class AddressSpace(enum.Enum):
    """Where a pointer points. The value is the name used in the printed IR."""

    GLOBAL = "global"  # device memory, visible to every block; kernel buffer parameters
    SHARED = "shared"  # per-block memory (`__shared__`, `extern __shared__`)
    LOCAL = "local"  # per-thread memory: local arrays and the address of a local variable
    GENERIC = "generic"  # a device-function parameter that may point into any of the above


@dataclass(frozen=True, slots=True)
class VectorType:
    """A short vector of one scalar type held in registers and moved as one memory access.

    Covers CUDA's ``float2``/``float4``/``int4``/``uint4``, ``half2``, ``__nv_bfloat162`` and user structs
    used as packed vectors (``struct alignas(16) Pack { half h[8]; }``). ``align`` is the alignment in
    bytes that a memory access of this type requires.
    """

    elem: ScalarType
    lanes: int
    align: int

    @property
    def size(self) -> int:
        return self.elem.size * self.lanes

    def __str__(self) -> str:
        natural = self.elem.size * self.lanes
        base = f"{self.elem}x{self.lanes}"
        return base if self.align == natural else f"{base}align{self.align}"


@dataclass(frozen=True, slots=True)
class PointerType:
    """A pointer to ``pointee`` in ``space``; ``const`` pointers may not be stored through."""

    pointee: Type
    space: AddressSpace
    const: bool = False
    restrict: bool = False

    def __str__(self) -> str:
        quals = ("const " if self.const else "") + ("restrict " if self.restrict else "")
        return f"ptr<{self.space.value} {quals}{self.pointee}>"


@dataclass(frozen=True, slots=True)
class ArrayType:
    """A fixed-length array (the element type of a local or shared allocation, or a struct field)."""

    elem: Type
    length: int

    @property
    def size(self) -> int:
        return size_of(self.elem) * self.length

    def __str__(self) -> str:
        return f"[{self.length} x {self.elem}]"


@dataclass(frozen=True, slots=True)
class BlockType:
    """A Triton block: a tensor of ``elem`` (a scalar or a pointer) with a static ``shape``.

    Block-level programs (Triton) hold values of this type; thread-level programs (CUDA) never do.
    """

    elem: ScalarType | PointerType
    shape: tuple[int, ...]

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"block<{dims} x {self.elem}>"


@dataclass(frozen=True, slots=True)
class VoidType:
    """The result type of a device function that returns nothing."""

    def __str__(self) -> str:
        return "void"


VOID = VoidType()

Type = ScalarType | VectorType | PointerType | ArrayType | BlockType | VoidType


def size_of(t: Type) -> int:
    """Size in bytes of a value of type ``t`` in memory (pointers are 8 bytes)."""
    match t:
        case ScalarType():
            return t.size
        case VectorType():
            return t.size
        case PointerType():
            return 8
        case ArrayType():
            return t.size
        case BlockType():
            raise ValueError("a block has no memory representation")
        case VoidType():
            raise ValueError("void has no size")
        case _:
            assert_never(t)


def align_of(t: Type) -> int:
    """Alignment in bytes that a memory access of type ``t`` requires."""
    match t:
        case ScalarType():
            return t.size
        case VectorType():
            return t.align
        case PointerType():
            return 8
        case ArrayType():
            return align_of(t.elem)
        case BlockType() | VoidType():
            raise ValueError(f"{t} has no alignment")
        case _:
            assert_never(t)


def scalar_of(t: Type) -> ScalarType | None:
    """The scalar element of a scalar, vector or block of scalars; ``None`` otherwise."""
    match t:
        case ScalarType():
            return t
        case VectorType():
            return t.elem
        case BlockType():
            return t.elem if isinstance(t.elem, ScalarType) else None
        case PointerType() | ArrayType() | VoidType():
            return None
        case _:
            assert_never(t)
