"""Values of the Triton frontend, and Triton's typing rules over them.

While a ``@triton.jit`` body is lowered, every Python expression evaluates to one of:

* :class:`Constexpr` — a compile-time value: a Python ``int``/``float``/``bool``/``None``/``str``, a
  :class:`DType`, or a tuple of those (``tl.constexpr`` parameters, literals, ``x.shape``, dtypes);
* :class:`Tensor` — a run-time value: an IR expression of a scalar, pointer or block type (Triton's
  0-d and n-d tensors);
* :class:`FunctionRef` / :class:`Namespace` — a ``@triton.jit`` function or a module (``tl``,
  ``tl.math``, ``libdevice``) named in the body.

The typing rules follow ``triton/language/semantic.py`` (Triton 3.9): Python numbers take part in
promotion only when of a higher kind than the tensor (bool < uint < int < float); integer division and
remainder truncate toward zero (``create_sdiv``/``create_srem``, as C); true division of integers is in
``float32``; ``float16`` mixed with ``bfloat16`` computes in ``float32``.
"""

from __future__ import annotations

import ast
import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from larkc.errors import Span
from larkc.ir.nodes import Expr
from larkc.ir.types import (
    BF16,
    BOOL,
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
    BlockType,
    PointerType,
    ScalarType,
    Type,
)

__all__ = [
    "DTYPES",
    "Constexpr",
    "DType",
    "FunctionRef",
    "Namespace",
    "NamespaceKind",
    "PtrDType",
    "Tensor",
    "Value",
    "broadcast_shape",
    "computation_type",
    "dtype_name",
    "elem_of",
    "integer_promote",
    "literal_type",
    "shape_of",
    "with_elem",
]


@dataclass(frozen=True, slots=True)
class DType:
    """A Triton dtype (``tl.float32``...) standing for an IR scalar type."""

    type: ScalarType


#: Triton's dtype names and the IR scalar type of each.
DTYPES: dict[str, ScalarType] = {
    "int1": BOOL,
    "int8": I8,
    "int16": I16,
    "int32": I32,
    "int64": I64,
    "uint8": U8,
    "uint16": U16,
    "uint32": U32,
    "uint64": U64,
    "float16": F16,
    "bfloat16": BF16,
    "float32": F32,
    "float64": F64,
}
_ALIASES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "float": "float32"}
DTYPES.update({k: DTYPES[v] for k, v in _ALIASES.items()})
_NAMES = {t: n for n, t in reversed(DTYPES.items())}


def dtype_name(t: ScalarType) -> str:
    """Triton's name of an IR scalar type (``fp32`` style as Triton prints them)."""
    name = _NAMES[t]
    short = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
    return short.get(name, name)


@dataclass(frozen=True, slots=True)
class PtrDType:
    """The dtype of a pointer (``p.dtype``), whose ``element_ty`` is the pointee's dtype."""

    pointee: ScalarType


ConstValue = int | float | bool | str | DType | PtrDType | tuple["ConstValue", ...] | None


@dataclass(frozen=True, slots=True)
class Constexpr:
    """A compile-time value."""

    value: ConstValue


@dataclass(frozen=True, slots=True)
class Tensor:
    """A run-time value: ``expr`` has a scalar, pointer or block type."""

    expr: Expr

    @property
    def type(self) -> Type:
        return self.expr.type


@dataclass(frozen=True, slots=True)
class FunctionRef:
    """A ``@triton.jit`` function of the source file."""

    name: str
    node: ast.FunctionDef
    file: str


class NamespaceKind(enum.Enum):
    TL = "tl"  # triton.language
    MATH = "math"  # tl.math, libdevice: the same math functions
    TRITON = "triton"  # the triton module (triton.cdiv)
    PYMATH = "python math"  # Python's math module, on compile-time values (`math.sqrt(2 / math.pi)`)


@dataclass(frozen=True, slots=True)
class Namespace:
    """A module named in the body (``tl``, ``tl.math``, ``libdevice``, ``triton``)."""

    kind: NamespaceKind


Value = Constexpr | Tensor | FunctionRef | Namespace


def shape_of(t: Type) -> tuple[int, ...]:
    """The block shape of ``t`` (``()`` for a scalar or pointer)."""
    return t.shape if isinstance(t, BlockType) else ()


def elem_of(t: Type) -> ScalarType | PointerType:
    """The element type: the block's element, or ``t`` itself."""
    if isinstance(t, BlockType):
        return t.elem
    assert isinstance(t, ScalarType | PointerType), t
    return t


def with_elem(elem: ScalarType | PointerType, shape: Sequence[int]) -> Type:
    """``elem`` as a scalar (empty ``shape``) or a block of ``shape``."""
    return BlockType(elem, tuple(shape)) if shape else elem


def broadcast_shape(a: Sequence[int], b: Sequence[int], span: Span) -> tuple[int, ...]:
    """NumPy-style broadcast of two block shapes (Triton's ``broadcast_impl_shape``)."""
    from larkc.errors import TypeCheckError

    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(pa, pb, strict=True):
        if x != y and 1 not in (x, y):
            raise TypeCheckError(f"cannot broadcast shapes {list(a)} and {list(b)}", span)
        out.append(max(x, y))
    return tuple(out)


def literal_type(v: int | float | bool) -> ScalarType:
    """The type Triton gives a Python number (``to_tensor_type``)."""
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        if -(2**31) <= v < 2**31:
            return I32
        if 2**31 <= v < 2**32:
            return U32
        if -(2**63) <= v < 2**63:
            return I64
        return U64
    a = abs(v)
    if a in (0.0, float("inf")) or math.isnan(v) or 2.0**-126 <= a <= (2 - 2.0**-23) * 2.0**127:
        return F32
    return F64


def _kind(t: ScalarType) -> int:
    """Triton's ordering of kinds: bool < integer (signed or not) < float."""
    if t.is_bool:
        return 0
    return 2 if t.is_float else 1


def _int_rank(t: ScalarType) -> tuple[bool, int]:
    """(signed, bit width) as Triton sees an integer type: ``int1`` is a 1-bit unsigned integer."""
    return (False, 1) if t.is_bool else (t.is_signed, t.bits)


def integer_promote(a: ScalarType, b: ScalarType) -> ScalarType:
    """C's usual arithmetic conversions between two integer types (``integer_promote_impl``)."""
    (sa, ra), (sb, rb) = _int_rank(a), _int_rank(b)
    if sa == sb:
        return a if ra > rb else b
    if not sa:
        return a if ra >= rb else b
    return b if rb >= ra else a


def computation_type(a: ScalarType, a_py: bool, b: ScalarType, b_py: bool, div_or_mod: bool) -> ScalarType | str:
    """The type both operands of a binary arithmetic operation are converted to, or why there is none.

    ``a_py``/``b_py`` say whether the operand is a Python number (a weakly typed constexpr)."""
    if a_py != b_py:
        scalar, tensor = (a, b) if a_py else (b, a)
        if _kind(scalar) <= _kind(tensor):
            a = b = tensor
    if F64 in (a, b):
        return F64
    if div_or_mod and (a.is_float or b.is_float):
        return F32
    if F32 in (a, b):
        return F32
    if F16 in (a, b):
        return F16
    if a == BF16 and b == BF16:
        return BF16
    if BF16 in (a, b):
        return F32
    if div_or_mod and _int_rank(a)[0] != _int_rank(b)[0]:
        return f"cannot use /, // or % with {dtype_name(a)} and {dtype_name(b)} (different signedness)"
    return integer_promote(a, b)
