"""What lowering an expression yields: a value (:class:`Val`) or a place (an lvalue), and how a name binds.

An rvalue is a pure IR expression with its C type (an array keeps its dimensions until it decays); an
lvalue is a local variable (:class:`VarLV`), memory (:class:`MemLV`), one lane of a vector variable
(:class:`LaneLV`), a member of a union variable (:class:`PunLV`) or an element of a union's array member
(:class:`PunLaneLV`). Reads and writes of an lvalue are
emitted by ``Expressions.read``/``write``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda.sema.ctypes import CType
from larkc.frontends.cuda.sema.groups import Group
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import Cast, CastKind, Const, Expr, MakeVector
from larkc.ir.types import U64, VOID, AddressSpace, PointerType, ScalarType, Type, VectorType

if TYPE_CHECKING:
    from larkc.frontends.cuda.sema.unit import ObjectStruct


@dataclass(frozen=True, slots=True)
class Val:
    """A lowered rvalue: a pure IR expression and its C type (arrays keep their dimensions)."""

    expr: Expr
    ctype: CType


@dataclass(frozen=True, slots=True)
class VarLV:
    name: str
    type: Type
    readonly: bool = False  # a `const` local: no `T&` parameter binds it


@dataclass(frozen=True, slots=True)
class MemLV:
    ptr: Expr
    type: Type
    const: bool


@dataclass(frozen=True, slots=True)
class LaneLV:
    var: VarLV
    index: Expr
    type: ScalarType


@dataclass(frozen=True, slots=True)
class PunLV:
    """A member of a union variable: the variable's bits read (and written) as ``type``, by bitcasts."""

    var: VarLV
    type: ScalarType | VectorType


@dataclass(frozen=True, slots=True)
class PunLaneLV:
    """Element ``index`` of an array member of a union variable (``u.f[i]`` with ``float f[4]``): a lane of
    the variable's bits viewed as the vector ``view``."""

    var: VarLV
    view: VectorType
    index: Expr
    type: ScalarType


LValue = VarLV | MemLV | LaneLV | PunLV | PunLaneLV


@dataclass(slots=True)
class Binding:
    """What a C name means in a scope."""

    #: "var" | "alloc" | "const" | "shared_scalar" (a __shared__ variable) | "group" | "struct" | "pun" | "object"
    #: | "lambda" (a local lambda; ``ir_name`` is its key in ``LoweringCore.lambdas``)
    kind: str
    ir_name: str
    ctype: CType
    value: bool | int | float | None = None
    group: Group | None = None  # a cooperative group (no IR variable)
    #: a kernel's parameter struct of pointers ("struct"): member -> its IR parameter (``p.out``)
    fields: dict[str, VarLV] | None = None
    readonly: bool = False  # a `const` local variable ("var")
    #: a pointer to a local that never changes ("pun": `uint32_t* w = reinterpret_cast<uint32_t*>(&v)`):
    #: the local and the type it is viewed as, so `*w` and `w[i]` are the views `*(T*)&v` and `((T*)&v)[i]`
    pun: tuple[VarLV, Type] | None = None
    #: a local object of a struct with members of different types ("object"): its members are ``fields``
    object: ObjectStruct | None = None
    #: where a "shared_scalar" lives: a `__shared__` scalar, or a `__device__` one (a kernel parameter)
    space: AddressSpace = AddressSpace.SHARED


VOID_PTR = PointerType(VOID, AddressSpace.GENERIC)
FULL_MASK = 0xFFFFFFFF


def declared_identifier(d: ts.Node | None) -> str | None:
    """The name a parameter declarator declares (through ``&`` and ``*``)."""
    while d is not None and d.type not in ("identifier", "field_identifier"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
    return node_text(d) if d is not None else None


def null_pointer(t: PointerType, span: Span) -> Expr:
    """The null pointer of type ``t``: address 0, reinterpreted."""
    return Cast(Const(0, U64, span), t, CastKind.BITCAST, span)


def is_null_constant(v: Val) -> bool:
    """``nullptr``, ``NULL`` or an integer literal 0 (C++'s null pointer constants)."""
    e = v.expr
    if isinstance(e, Cast) and e.kind is CastKind.BITCAST and isinstance(e.operand, Const):
        return e.operand.value == 0 and v.ctype == VOID_PTR
    return isinstance(e, Const) and not isinstance(e.value, bool) and e.type.is_int and e.value == 0


def zero_value(t: Type, span: Span) -> Expr:
    if isinstance(t, ScalarType):
        return Const(False if t.is_bool else (0.0 if t.is_float else 0), t, span)
    if isinstance(t, VectorType):
        z = Const(0.0 if t.elem.is_float else 0, t.elem, span)
        return MakeVector(tuple(z for _ in range(t.lanes)), t, span)
    raise ValueError(f"no zero of {t}")


def pointer_type(e: Expr) -> PointerType | None:
    t = e.type
    return t if isinstance(t, PointerType) else None
