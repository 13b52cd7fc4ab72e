"""C's conversions, made explicit as IR :class:`~larkc.ir.nodes.Cast` nodes.

Implicit conversions (assignment, argument passing, return), explicit casts (C casts, ``static_cast``,
``reinterpret_cast``), the usual arithmetic conversions of a binary operator's operands, integer
promotion, truth values (``x != 0``, ``p != nullptr``) and array-to-pointer decay. Conversions of
literals are folded, as C's constant evaluation does.
"""

from __future__ import annotations

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda.lowering.core import LoweringCore
from larkc.frontends.cuda.lowering.values import Val, is_null_constant, null_pointer, zero_value
from larkc.frontends.cuda.sema.ctypes import PACKED_FP8_CONVERSIONS, CArray, arithmetic_result
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import Binary, BinaryOp, Cast, CastKind, Const, Expr, Unary, UnaryOp
from larkc.ir.types import BOOL, AddressSpace, PointerType, ScalarType, Type, VectorType, VoidType, size_of
from larkc.ir.values import convert_value, wrap_int


class Conversions(LoweringCore):
    """C's conversions between the types of values (the base of every other concern)."""

    def decay(self, v: Val) -> Val:
        """Array-to-pointer decay."""
        if isinstance(v.ctype, CArray):
            return Val(v.expr, v.ctype.pointer)
        return v

    def convert(self, v: Val, t: Type, node: ts.Node, *, explicit: bool = False) -> Val:
        """Implicit (or, with ``explicit``, cast-expression) conversion of ``v`` to ``t``."""
        v = self.decay(v)
        src = v.ctype
        assert not isinstance(src, CArray)
        if src == t:
            return v
        span = self.span(node)
        if isinstance(t, ScalarType) and isinstance(src, ScalarType):
            return Val(self.cast_scalar(v.expr, src, t, span), t)
        if isinstance(t, PointerType) and is_null_constant(v):
            return Val(null_pointer(t, span), t)
        if isinstance(t, PointerType) and isinstance(src, PointerType):
            void = isinstance(t.pointee, VoidType) or isinstance(src.pointee, VoidType)
            if src.pointee != t.pointee and not explicit and not void:
                raise self.type_error(f"cannot convert {src} to {t} implicitly", node)
            if src.const and not t.const and not explicit:
                raise self.type_error(f"conversion from {src} to {t} discards const", node)
            generic = AddressSpace.GENERIC
            if generic not in (t.space, src.space) and t.space is not src.space:
                raise self.unsupported(f"conversion of a {src.space.value} pointer to a {t.space.value} pointer", node)
            target = PointerType(t.pointee, t.space, t.const, t.restrict)
            if target == src:
                return v
            return Val(Cast(v.expr, target, CastKind.BITCAST, span), target)
        if isinstance(t, ScalarType) and t.is_bool and isinstance(src, PointerType):
            return self.to_bool(v, node)
        if isinstance(t, VectorType) and isinstance(src, VectorType) and explicit and src.lanes == t.lanes:
            if (t.elem.is_fp8 or src.elem.is_fp8) and (src.elem, t.elem, t.lanes) not in PACKED_FP8_CONVERSIONS:
                raise self.type_error(f"cannot convert {src} to {t} (cuda_fp8.h has no such conversion)", node)
            return Val(Cast(v.expr, t, CastKind.CONVERT, span), t)
        if isinstance(t, VectorType) and isinstance(src, VectorType) and src.elem == t.elem and src.lanes == t.lanes:
            # A struct and a CUDA vector type of the same layout (Vec<float,4> and float4) are the same type.
            return Val(v.expr, t)
        raise self.type_error(f"cannot convert {src} to {t}", node)

    def cast_scalar(self, e: Expr, src: ScalarType, dst: ScalarType, span: Span) -> Expr:
        if src == dst:
            return e
        if isinstance(e, Const):
            try:
                return Const(convert_value(e.value, src, dst), dst, span)
            except OverflowError:
                pass
        return Cast(e, dst, CastKind.CONVERT, span)

    def to_bool(self, v: Val, node: ts.Node) -> Val:
        v = self.decay(v)
        if v.ctype == BOOL:
            return v
        if isinstance(v.ctype, ScalarType):
            zero = zero_value(v.ctype, self.span(node))
            return Val(Binary(BinaryOp.NE, v.expr, zero, BOOL, self.span(node)), BOOL)
        if isinstance(v.ctype, PointerType):
            span = self.span(node)
            return Val(Binary(BinaryOp.NE, v.expr, null_pointer(v.ctype, span), BOOL, span), BOOL)
        raise self.type_error(f"{v.ctype} used as a truth value", node)

    def scalar(self, v: Val, node: ts.Node) -> tuple[Expr, ScalarType]:
        v = self.decay(v)
        if not isinstance(v.ctype, ScalarType):
            raise self.type_error(f"expected a scalar, got {v.ctype}", node)
        return v.expr, v.ctype

    def explicit_cast(self, v: Val, target: Type, node: ts.Node) -> Val:
        v = self.decay(v)
        if isinstance(target, VoidType):
            return v  # (void)x discards a value
        if isinstance(target, PointerType) and isinstance(v.ctype, PointerType):
            space = v.ctype.space
            t = PointerType(target.pointee, space, target.const, target.restrict)
            if t == v.ctype:
                return v
            return Val(Cast(v.expr, t, CastKind.BITCAST, self.span(node)), t)
        if isinstance(target, PointerType) or isinstance(v.ctype, PointerType):
            raise self.unsupported("cast between pointers and integers", node)
        return self.convert(v, target, node, explicit=True)

    def reinterpret(self, v: Val, target: Type, node: ts.Node) -> Val:
        v = self.decay(v)
        if isinstance(target, PointerType) and isinstance(v.ctype, PointerType):
            return self.explicit_cast(v, target, node)
        if isinstance(target, ScalarType | VectorType) and isinstance(v.ctype, ScalarType | VectorType):
            if size_of(target) != size_of(v.ctype):
                raise self.type_error(f"reinterpret_cast between types of different sizes ({v.ctype}, {target})", node)
            return Val(Cast(v.expr, target, CastKind.BITCAST, self.span(node)), target)
        raise self.unsupported("reinterpret_cast", node)

    def arith_operands(self, a: Val, b: Val, node: ts.Node) -> tuple[Expr, Expr, Type]:
        a, b = self.decay(a), self.decay(b)
        if isinstance(a.ctype, VectorType) != isinstance(b.ctype, VectorType):
            # a struct with a conversion operator beside a scalar: C++ converts it (`x * paged_kv.page_size`)
            a = (self.user_conversion(a, node) or a) if isinstance(a.ctype, VectorType) else a
            b = (self.user_conversion(b, node) or b) if isinstance(b.ctype, VectorType) else b
        if isinstance(a.ctype, VectorType) or isinstance(b.ctype, VectorType):
            op_text = node_text(node.child_by_field_name("operator"))
            if op_text in self.tu.user_operators or f"{op_text}=" in self.tu.user_operators:
                raise self.unsupported(f"call of user-defined operator{op_text}", node)
            if a.ctype == b.ctype:
                assert isinstance(a.ctype, VectorType)
                if a.ctype.elem.is_fp8:  # cuda_fp8.h's packed classes define no operators (nvcc rejects `p + q`)
                    raise self.type_error(f"no operator {op_text} on {a.ctype} (cuda_fp8.h's packed types)", node)
                return a.expr, b.expr, a.ctype
            raise self.type_error(f"operands of types {a.ctype} and {b.ctype}", node)
        if not isinstance(a.ctype, ScalarType) or not isinstance(b.ctype, ScalarType):
            raise self.type_error(f"invalid operands of types {a.ctype} and {b.ctype}", node)
        rt = arithmetic_result(a.ctype, b.ctype)
        if rt is None:
            raise self.type_error(f"no common type for {a.ctype} and {b.ctype}", node)
        span = self.span(node)
        return self.cast_scalar(a.expr, a.ctype, rt, span), self.cast_scalar(b.expr, b.ctype, rt, span), rt

    def negate(self, e: Expr, t: ScalarType, span: Span) -> Expr:
        if isinstance(e, Const) and not isinstance(e.value, bool):
            v = -e.value
            return Const(wrap_int(int(v), t) if t.is_int else v, t, span)
        return Unary(UnaryOp.NEG, e, t, span)

    def cast_any(self, e: Expr, src: ScalarType | None, dst: ScalarType, span: Span) -> Expr:
        if src is None:
            return Cast(e, dst, CastKind.CONVERT, span)
        return self.cast_scalar(e, src, dst, span)
