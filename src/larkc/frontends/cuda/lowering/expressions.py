"""Lowering of expressions: rvalues, lvalues and the operators.

Every memory read becomes a :class:`~larkc.ir.nodes.Load` into a fresh temporary emitted before the
statement that needs it, so C's side effects happen in program order; ``&&``, ``||`` and ``?:`` whose
right-hand side reads memory become ``if`` statements (C's short-circuit evaluation). Also here: names
(locals, template parameters, constants, members of ``this``), subscripts, vector lanes and fields,
``sizeof``, and the cast look-alikes tree-sitter produces for ``(a) - b``.
"""

from __future__ import annotations

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda import builtins as lib
from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.values import (
    VOID_PTR,
    LaneLV,
    LValue,
    MemLV,
    PunLaneLV,
    PunLV,
    Val,
    VarLV,
    is_null_constant,
    null_pointer,
    pointer_type,
)
from larkc.frontends.cuda.sema.constants import fold_binary, fold_constant
from larkc.frontends.cuda.sema.ctypes import CArray, arithmetic_result, integer_promote, vector
from larkc.frontends.cuda.sema.unit import FunctionRef
from larkc.frontends.cuda.syntax import cast_operand, misread_comma, node_text
from larkc.ir.cnumbers import char_values, parse_number
from larkc.ir.nodes import (
    Assign,
    Binary,
    BinaryOp,
    Builtin,
    BuiltinReg,
    Cast,
    CastKind,
    Const,
    Dim,
    Expr,
    Extract,
    If,
    Insert,
    Load,
    MakeVector,
    PtrAdd,
    Select,
    Store,
    Unary,
    UnaryOp,
    VarRef,
)
from larkc.ir.types import (
    BOOL,
    I32,
    U32,
    U64,
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    size_of,
)
from larkc.ir.values import wrap_int

_ASSIGN_OPS = {
    "+=": BinaryOp.ADD,
    "-=": BinaryOp.SUB,
    "*=": BinaryOp.MUL,
    "/=": BinaryOp.DIV,
    "%=": BinaryOp.REM,
    "<<=": BinaryOp.SHL,
    ">>=": BinaryOp.SHR,
    "&=": BinaryOp.BITAND,
    "|=": BinaryOp.BITOR,
    "^=": BinaryOp.BITXOR,
}

_BINARY_OPS = {op.value: op for op in BinaryOp if op not in (BinaryOp.MIN, BinaryOp.MAX)}

_BUILTIN_REGS = {r.value: r for r in BuiltinReg}

#: C's binary operator precedence (higher binds tighter).
_PRECEDENCE = {
    "*": 10, "/": 10, "%": 10,
    "+": 9, "-": 9,
    "<<": 8, ">>": 8,
    "<": 7, "<=": 7, ">": 7, ">=": 7,
    "==": 6, "!=": 6,
    "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
}  # fmt: skip


#: The C++ casts that may reinterpret the address of a local (``reinterpret_cast<float2*>(&v)``).
_PTR_CASTS = ("reinterpret_cast", "static_cast")


def _unparenthesized(node: ts.Node | None) -> ts.Node | None:
    """``x`` for ``(x)`` or ``((x))`` (LeetCUDA's ``FLOAT4(value)`` macro takes ``&(value)``)."""
    while node is not None and node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    return node


class Expressions(Conversions):
    """Rvalues, lvalues, names and operators."""

    def rvalue(self, node: ts.Node) -> Val:
        """Lower ``node`` as an rvalue; loads and side effects are emitted into the current buffer."""
        t = node.type
        span = self.span(node)
        match t:
            case "number_literal":
                text = node_text(node)
                # tree-sitter lexes a leading sign into the literal: type the magnitude as C does,
                # then apply the unary operator with C's promotions (so -010 is -8, -1u is 4294967295u)
                sign, digits = (text[0], text[1:].lstrip()) if text[:1] in "+-" else ("", text)
                lit = parse_number(digits)
                if lit is None:
                    raise self.unsupported("number literal", node)
                value, lt = lit
                v = Val(Const(value, lt, span), lt)
                if sign == "-":
                    rt = lt if lt.is_float else integer_promote(lt)
                    return Val(self.negate(self.cast_scalar(v.expr, lt, rt, span), rt, span), rt)
                return v
            case "true" | "false":
                return Val(Const(t == "true", BOOL, span), BOOL)
            case "char_literal":
                values = char_values(node_text(node))
                if values is None or len(values) != 1 or not node_text(node).startswith("'"):
                    raise self.unsupported("character literal", node)
                byte = values[0] & 0xFF  # a plain char is signed (nvcc's x86 host compiler): '\xff' is -1
                return Val(Const(byte - 256 if byte >= 128 else byte, I32, span), I32)
            case "parenthesized_expression":
                return self.rvalue(node.named_children[0])
            case "identifier":
                return self.identifier(node)
            case "qualified_identifier":
                return self.qualified(node)
            case "field_expression" | "subscript_expression" | "pointer_expression" if not (
                t == "pointer_expression" and node_text(node.child_by_field_name("operator")) == "&"
            ):
                lv = self.field(node, reading=True) if t == "field_expression" else self.lvalue(node)
                if isinstance(lv, Val):
                    return lv
                return self.read(lv, node)
            case "pointer_expression":
                return self.address_of(node)
            case "binary_expression":
                return self.binary(node)
            case "unary_expression":
                return self.unary(node)
            case "update_expression":
                updated = self.update(node, want_value=True)
                assert updated is not None
                return updated
            case "assignment_expression":
                return self.assignment(node)
            case "conditional_expression":
                return self.conditional(node)
            case "cast_expression":
                tnode = node.child_by_field_name("type")
                vnode = node.child_by_field_name("value")
                assert tnode is not None and vnode is not None
                misread = self.cast_lookalike(node, tnode, vnode)
                if misread is not None:
                    return misread
                target = self.resolve_type(tnode, node)
                return self.explicit_cast(self.rvalue(vnode), target, node)
            case "call_expression":
                result = self.call(node, want_value=True)
                assert result is not None
                return result
            case "sizeof_expression":
                folded = fold_constant(self.tu, node, self.env, self.const_scope())
                if not isinstance(folded, int):
                    folded = self.sizeof_value(node)
                return Val(Const(folded, U64, span), U64)
            case "comma_expression":
                left, right = node.named_children[0], node.named_children[-1]
                self.expression_statement(left)
                return self.rvalue(right)
            case "compound_literal_expression":
                tnode = node.child_by_field_name("type")
                init = node.child_by_field_name("value")
                info = self.tu.struct_info(tnode, self.env, node) if tnode is not None else None
                if info is None or init is None:
                    raise self.unsupported("compound literal", node)
                return self.construct(info, init.named_children, node)
            case "initializer_list":
                wanted = self.brace_argument_type(node)
                if wanted is None:
                    raise self.unsupported("initializer list here", node)
                return self.brace_value(wanted, node)
            case "string_literal" | "concatenated_string":
                raise self.unsupported("string literal", node)
            case "null" | "nullptr":
                return Val(null_pointer(VOID_PTR, span), VOID_PTR)
            case "gnu_asm_expression":  # a statement: lowered by the asm idiom table; it has no value
                self.builtin_call("asm", [], node, False)
                return Val(Const(0, I32, span), I32)
            case "lambda_expression":
                raise self.unsupported("lambda expression", node)
            case "new_expression" | "delete_expression":
                raise self.unsupported("dynamic allocation", node)
            case _:
                raise self.unsupported(t.replace("_", " "), node)

    def cast_lookalike(self, node: ts.Node, tnode: ts.Node, vnode: ts.Node) -> Val | None:
        """``(a * (b)) - c`` or ``(sqrtf(x)) - c``, which tree-sitter reads as a cast of ``-c`` to a type
        named by the parenthesised part: when that part is not a type, read ``(X) op Y`` as a binary."""
        op_node = vnode.child_by_field_name("operator")
        if vnode.type not in ("unary_expression", "pointer_expression") or op_node is None:
            return None
        op = node_text(op_node)
        if op not in ("-", "+", "*", "&"):
            return None
        if self.try_resolve_type(tnode, node) is not None:
            return None  # a real cast
        x = self.tu.reparse_expression(tnode)
        arg = vnode.child_by_field_name("argument")
        if x is None or arg is None:
            return None
        if not _lookalike_keeps_grouping(node, op):
            # tree-sitter grouped the pieces around the "cast" differently from C's precedence
            raise self.unsupported("expression tree-sitter misreads as a cast (add parentheses)", node)
        return self.apply_binary(op, self.rvalue(x), self.rvalue(arg), node)

    def sizeof_value(self, node: ts.Node) -> int:
        """``sizeof expr``: the size of the expression's type; the expression is not evaluated."""
        value = node.child_by_field_name("value")
        if value is None:
            raise self.unsupported("sizeof expression", node)
        with self.buffer():  # lowered only for its type: its loads and side effects are discarded
            v = self.rvalue(value)
        ct = v.ctype
        if isinstance(ct, CArray):
            count = 1
            for d in ct.dims:
                if d is None:
                    raise self.unsupported("sizeof of an array of unknown size", node)
                count *= d
            return count * size_of(ct.elem)
        try:
            return size_of(ct)
        except ValueError:
            raise self.unsupported("sizeof expression", node) from None

    def identifier(self, node: ts.Node) -> Val:
        name = node_text(node)
        span = self.span(node)
        b = self.lookup(name)
        if b is not None:
            if b.kind == "struct":
                raise self.unsupported("use of a parameter struct other than reading its members", node)
            if b.kind == "pun":
                raise self.unsupported("use of a pointer to a local variable other than *p and p[i]", node)
            if b.kind == "object":
                raise self.unsupported("use of an object other than its members and member functions", node)
            if b.kind == "lambda":
                raise self.unsupported("use of a lambda other than calling it", node)
            if b.kind == "shared_scalar":
                assert not isinstance(b.ctype, CArray)
                ptr = VarRef(b.ir_name, PointerType(b.ctype, b.space), span)
                return self.read(MemLV(ptr, b.ctype, False), node)
            if b.kind == "const":
                assert isinstance(b.ctype, ScalarType) and b.value is not None
                return Val(Const(b.value, b.ctype, span), b.ctype)
            if isinstance(b.ctype, CArray):
                return Val(VarRef(b.ir_name, b.ctype.pointer, span), b.ctype)
            return Val(VarRef(b.ir_name, b.ctype, span), b.ctype)
        if name in self.env:
            arg = self.env[name]
            if isinstance(arg, int):
                fd_params = self.fd.template or ()
                vt = next((p.value_type for p in fd_params if p.name == name and p.value_type), I32)
                return Val(Const(bool(arg) if vt.is_bool else arg, vt, span), vt)
            if isinstance(arg, FunctionRef):
                raise self.unsupported("function used as a value", node)
            raise self.type_error(f"{name} is a type, not a value", node)
        key = self.tu.find(name, node, self.tu.constants)
        if key is not None:
            ct, cv = self.tu.constants[key]
            return Val(Const(cv, ct, span), ct)
        if name in lib.CONSTANTS:
            ct, cv = lib.CONSTANTS[name]
            return Val(Const(cv, ct, span), ct)
        if name in _BUILTIN_REGS:
            raise self.unsupported(f"use of {name} as a whole (use {name}.x)", node)
        if name in self.tu.unsupported_globals:
            what, _decl = self.tu.unsupported_globals[name]
            raise self.unsupported(what, node)
        member = self.member(name, node)
        if member is not None:
            return member if isinstance(member, Val) else self.read(member, node)
        raise self.unknown_name(name, self.type_error(f"use of undeclared identifier {name}", node), node)

    def qualified(self, node: ts.Node) -> Val:
        text = "".join(node_text(node).split())
        key = self.tu.find(text, node, self.tu.constants)
        if key is not None:
            ct, cv = self.tu.constants[key]
            return Val(Const(cv, ct, self.span(node)), ct)
        if text.removeprefix("::") in lib.CONSTANTS:
            ct, cv = lib.CONSTANTS[text.removeprefix("::")]
            return Val(Const(cv, ct, self.span(node)), ct)
        scope = node.child_by_field_name("scope")
        member = node_text(node.child_by_field_name("name"))
        trait = self.tu.static_constant(scope, member, self.env) if scope is not None else None
        if trait is not None:  # `num_elems<T>::value` of a type trait (no layout: it has no data members)
            return Val(Const(trait[1], trait[0], self.span(node)), trait[0])
        info = self.tu.struct_info(scope, self.env, node) if scope is not None else None
        if info is not None and member in info.constants:
            ct, cv = info.constants[member]
            return Val(Const(cv, ct, self.span(node)), ct)
        if scope is not None and scope.type == "template_type":
            self.tu.resolve_type(scope, self.env, node)  # its located error (`num_elems<int>` never defined)
        raise self.unsupported("qualified name", node)

    def read(self, lv: LValue, node: ts.Node) -> Val:
        """The value of ``lv``; a read of memory emits a :class:`Load` into a fresh temporary."""
        span = self.span(node)
        match lv:
            case VarLV(name, t):
                return Val(VarRef(name, t, span), t)
            case MemLV(ptr, t, _):
                dst = self.tmp(t, node)
                self.emit(Load(dst, ptr, None, None, span))
                return Val(VarRef(dst, t, span), t)
            case LaneLV(var, index, t):
                return Val(Extract(VarRef(var.name, var.type, span), index, t, span), t)
            case PunLV(var, t):
                return Val(Cast(VarRef(var.name, var.type, span), t, CastKind.BITCAST, span), t)
            case PunLaneLV(var, view, index, t):
                bits = Cast(VarRef(var.name, var.type, span), view, CastKind.BITCAST, span)
                return Val(Extract(bits, index, t, span), t)
            case _:
                raise AssertionError(lv)

    def write(self, lv: LValue, v: Val, node: ts.Node) -> Val:
        """Store ``v`` (already of the lvalue's type) and return the stored value."""
        span = self.span(node)
        match lv:
            case VarLV(name, t, readonly):
                if readonly and name.startswith("this."):
                    raise self.unsupported("assignment to a member in a member function of this struct", node)
                if readonly:
                    raise self.type_error("assignment to a const variable", node)
                self.emit(Assign(name, v.expr, span))
                # the value of `x = e` is the new x: `e` itself may read x (`(b = b * 2) + 1`)
                return Val(VarRef(name, t, span), t)
            case MemLV(ptr, _, const):
                if const:
                    raise self.type_error("assignment through a pointer to const", node)
                self.emit(Store(ptr, v.expr, None, span))
                return v  # pure and reads no memory, so the store cannot change it
            case LaneLV(var, index, t):
                ref = VarRef(var.name, var.type, span)
                self.emit(Assign(var.name, Insert(ref, index, v.expr, var.type, span), span))
                return Val(Extract(VarRef(var.name, var.type, span), index, t, span), t)
            case PunLV(var, t):
                self.emit(Assign(var.name, Cast(v.expr, var.type, CastKind.BITCAST, span), span))
                return Val(Cast(VarRef(var.name, var.type, span), t, CastKind.BITCAST, span), t)
            case PunLaneLV(var, view, index, t):
                bits = Cast(VarRef(var.name, var.type, span), view, CastKind.BITCAST, span)
                updated = Insert(bits, index, v.expr, view, span)
                self.emit(Assign(var.name, Cast(updated, var.type, CastKind.BITCAST, span), span))
                return self.read(lv, node)
            case _:
                raise AssertionError(lv)

    def lvalue(self, node: ts.Node) -> LValue | Val:
        """An lvalue for ``node``; an array expression or a non-lvalue yields a :class:`Val` instead."""
        t = node.type
        span = self.span(node)
        if t == "parenthesized_expression":
            return self.lvalue(node.named_children[0])
        if t == "identifier":
            name = node_text(node)
            b = self.lookup(name)
            if b is not None and b.kind == "var":
                assert not isinstance(b.ctype, CArray)
                return VarLV(b.ir_name, b.ctype, b.readonly)
            if b is not None and b.kind == "shared_scalar":
                assert not isinstance(b.ctype, CArray)
                return MemLV(VarRef(b.ir_name, PointerType(b.ctype, b.space), span), b.ctype, False)
            if b is None:
                member = self.member(name, node)
                if member is not None:
                    return member
            return self.identifier(node)
        if t == "subscript_expression":
            base_node = node.child_by_field_name("argument")
            idx_list = node.child_by_field_name("indices") or node.child_by_field_name("index")
            assert base_node is not None and idx_list is not None
            idx_nodes = idx_list.named_children if idx_list.type == "subscript_argument_list" else [idx_list]
            if len(idx_nodes) != 1:
                raise self.unsupported("multi-argument subscript", node)
            element = self.vector_element(node)
            if element is not None:  # `data[i]` with `int4 data[N]`: that element's lanes
                return self.read_lanes(*element, node)
            pun = self.local_pun(base_node)
            if pun is not None:  # `reinterpret_cast<float*>(&v)[i]`
                return self.pun_place(pun[0], pun[1], idx_nodes[0], node)
            return self.subscript(self.lvalue(base_node), base_node, idx_nodes[0], node)
        if t == "pointer_expression":
            op = node_text(node.child_by_field_name("operator"))
            arg = node.child_by_field_name("argument")
            assert arg is not None
            if op == "*" and arg.type == "this" and self.fd.owner is not None and not self.fd.static_method:
                return VarLV("this", self.fd.owner.vector)  # `*this` in a member function: the object
            lanes = self.lane_pun(node) if op == "*" else None
            if lanes is not None:  # `*(half2*)(&(data[i].x))`
                return self.read_lanes(*lanes, node)
            pun = self.local_pun(arg) if op == "*" else None
            if pun is not None:  # `*(float2*)&x`
                return self.pun_place(pun[0], pun[1], None, node)
            if op == "*":
                pv = self.decay(self.rvalue(arg))
                if not isinstance(pv.ctype, PointerType):
                    raise self.type_error(f"dereference of a non-pointer ({pv.ctype})", node)
                if isinstance(pv.ctype.pointee, VoidType):
                    raise self.type_error("dereference of a void pointer", node)
                return MemLV(pv.expr, pv.ctype.pointee, pv.ctype.const)
            return self.address_of(node)
        if t == "field_expression":
            return self.field(node)
        return self.rvalue(node)

    def subscript(self, base: LValue | Val, base_node: ts.Node, idx_node: ts.Node, node: ts.Node) -> LValue | Val:
        """``base[idx]``: a lane of a vector, an element of an array or memory through a pointer."""
        span = self.span(node)
        if isinstance(base, LaneLV | MemLV | VarLV | PunLV | PunLaneLV):
            base_val = self.read(base, base_node)
        else:
            base_val = base
        if isinstance(base_val.ctype, VectorType):
            elem_view = self.check_subscript_operator(base_val.ctype, node)
            if elem_view is not None and elem_view != base_val.ctype.elem:  # `((half*)data)[i]` over int4 lanes
                view = vector(elem_view, size_of(base_val.ctype) // elem_view.size)
                idx_e, idx_t = self.scalar(self.rvalue(idx_node), idx_node)
                if not idx_t.is_int:
                    raise self.type_error("vector lane index is not an integer", idx_node)
                idx_e = self.cast_scalar(idx_e, idx_t, I32, self.span(idx_node))
                if isinstance(base, VarLV):
                    return PunLaneLV(base, view, idx_e, elem_view)
                bits = Cast(base_val.expr, view, CastKind.BITCAST, span)
                return Val(Extract(bits, idx_e, elem_view, span), elem_view)
            return self.vector_lane(base, base_val, idx_node, node)
        idx_e, idx_t = self.scalar(self.rvalue(idx_node), idx_node)
        if not idx_t.is_int and not idx_t.is_bool:
            raise self.type_error(f"array subscript is not an integer ({idx_t})", idx_node)
        if idx_t.is_bool:
            idx_e, idx_t = self.cast_scalar(idx_e, idx_t, I32, span), I32
        ct = base_val.ctype
        if isinstance(ct, CArray):
            ptr_t = ct.pointer
            if len(ct.dims) > 1:
                row = ct.row_size()
                off = self.mul_index(idx_e, idx_t, row, span)
                sub = CArray(ct.elem, ct.dims[1:], ct.space, ct.const)
                return Val(PtrAdd(base_val.expr, off, ptr_t, span), sub)
            return MemLV(PtrAdd(base_val.expr, idx_e, ptr_t, span), ct.elem, False)
        if isinstance(ct, PointerType):
            if isinstance(ct.pointee, VoidType):
                raise self.type_error("subscript of a void pointer", node)
            return MemLV(PtrAdd(base_val.expr, idx_e, ct, span), ct.pointee, ct.const)
        raise self.type_error(f"subscript of a value of type {ct}", node)

    def local_pun(self, node: ts.Node) -> tuple[VarLV, Type] | None:
        """``(T*)&x`` or ``reinterpret_cast<T*>(&x)`` with ``x`` a local variable, or a pointer variable
        declared as one: ``x`` and ``T``."""
        while node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        if node.type == "identifier":
            bound = self.lookup(node_text(node))
            return bound.pun if bound is not None and bound.kind == "pun" else None
        fn = node.child_by_field_name("function") if node.type == "call_expression" else None
        cpp_cast = fn is not None and fn.type == "template_function"
        if node.type == "cast_expression":
            tnode, vnode = node.child_by_field_name("type"), node.child_by_field_name("value")
        elif fn is not None and cpp_cast and node_text(fn.child_by_field_name("name")) in _PTR_CASTS:
            targs, args = fn.child_by_field_name("arguments"), node.child_by_field_name("arguments")
            if targs is None or args is None or len(targs.named_children) != 1 or len(args.named_children) != 1:
                return None
            tnode, vnode = targs.named_children[0], args.named_children[0]
        else:
            return None
        assert tnode is not None and vnode is not None
        while vnode.type == "parenthesized_expression" and vnode.named_children:
            vnode = vnode.named_children[0]
        target = _unparenthesized(vnode.child_by_field_name("argument"))
        if vnode.type != "pointer_expression" or node_text(vnode.child_by_field_name("operator")) != "&":
            return None
        if target is None or target.type != "identifier":
            return None
        b = self.lookup(node_text(target))
        if b is None or b.kind != "var" or isinstance(b.ctype, CArray):
            return None
        pt = self.tu.resolve_type(tnode, self.env, node)
        if not isinstance(pt, PointerType):
            return None
        return VarLV(b.ir_name, b.ctype), pt.pointee

    def local_address(self, node: ts.Node) -> tuple[VarLV, Type] | None:
        """``&x`` (viewed as ``x``'s own type) or a reinterpreted ``(T*)&x`` with ``x`` a local variable."""
        pun = self.local_pun(node)
        if (
            pun is not None
            or node.type != "pointer_expression"
            or node_text(node.child_by_field_name("operator")) != "&"
        ):
            return pun
        target = _unparenthesized(node.child_by_field_name("argument"))
        b = self.lookup(node_text(target)) if target is not None and target.type == "identifier" else None
        if b is None or b.kind != "var" or isinstance(b.ctype, CArray):
            return None
        return VarLV(b.ir_name, b.ctype), b.ctype

    def pun_place(self, var: VarLV, t: Type, idx_node: ts.Node | None, node: ts.Node) -> LValue | Val:
        """Element ``idx_node`` (``None``: 0) of local ``var`` reinterpreted as an array of ``t``: the
        whole variable's bits as ``t`` (equal sizes), a lane of a vector of ``t``, or (read only) a lane
        of the bits reinterpreted as a vector of scalars ``t``."""
        span = self.span(node)
        if not isinstance(t, ScalarType | VectorType):
            raise self.unsupported(f"reinterpretation of a local variable as {t}", node)
        if idx_node is None:
            idx_e: Expr = Const(0, I32, span)
        else:
            idx_e, idx_t = self.scalar(self.rvalue(idx_node), idx_node)
            if not idx_t.is_int:
                raise self.type_error(f"array subscript is not an integer ({idx_t})", idx_node)
            idx_e = self.cast_scalar(idx_e, idx_t, I32, span)
        vt = var.type
        if size_of(t) == size_of(vt):
            if not (isinstance(idx_e, Const) and idx_e.value == 0):
                raise self.unsupported("element other than 0 of a local variable reinterpreted as one value", node)
            return var if t == vt else PunLV(var, t)
        if isinstance(vt, VectorType) and t == vt.elem:
            return LaneLV(var, idx_e, t)
        elem = t if isinstance(t, ScalarType) else t.elem
        if size_of(vt) % size_of(t) == 0:
            view = vector(elem, size_of(vt) // size_of(elem))
            ref = VarRef(var.name, vt, span)
            bits = ref if view == vt else Cast(ref, view, CastKind.BITCAST, span)
            if isinstance(t, ScalarType):
                return Val(Extract(bits, idx_e, t, span), t)
            lane_indices: list[Expr] = (
                [Const(int(idx_e.value) * t.lanes + k, I32, span) for k in range(t.lanes)]
                if isinstance(idx_e, Const)
                else [
                    Binary(BinaryOp.ADD, self.mul_index(idx_e, I32, t.lanes, span), Const(k, I32, span), I32, span)
                    for k in range(t.lanes)
                ]
            )
            lanes = [Extract(bits, lane, elem, span) for lane in lane_indices]
            return Val(MakeVector(tuple(lanes), t, span), t)
        raise self.unsupported(f"reinterpretation of a local {vt} as {t}", node)

    def mul_index(self, idx: Expr, idx_t: ScalarType, factor: int, span: Span) -> Expr:
        if factor == 1:
            return idx
        return Binary(BinaryOp.MUL, idx, Const(wrap_int(factor, idx_t), idx_t, span), idx_t, span)

    def vector_lane(self, base: LValue | Val, base_val: Val, idx_node: ts.Node, node: ts.Node) -> LValue | Val:
        vt = base_val.ctype
        assert isinstance(vt, VectorType)
        idx_e, idx_t = self.scalar(self.rvalue(idx_node), idx_node)
        if not idx_t.is_int:
            raise self.type_error("vector lane index is not an integer", idx_node)
        idx_e = self.cast_scalar(idx_e, idx_t, I32, self.span(idx_node))
        if isinstance(base, VarLV):
            return LaneLV(base, idx_e, vt.elem)
        if isinstance(base, PunLV) and isinstance(base.type, VectorType):  # `u.f[i]`, `float f[4]` in a union
            return PunLaneLV(base.var, base.type, idx_e, vt.elem)
        return Val(Extract(base_val.expr, idx_e, vt.elem, self.span(node)), vt.elem)

    def field(self, node: ts.Node, *, reading: bool = False) -> LValue | Val:
        """``a.f``; ``reading`` when only its value is wanted (a vector in memory is then read whole, so an
        access through a misaligned vector pointer is found; a write stores the one lane)."""
        arg = node.child_by_field_name("argument")
        fnode = node.child_by_field_name("field")
        op = node.child_by_field_name("operator")
        assert arg is not None and fnode is not None
        fname = node_text(fnode)
        span = self.span(node)
        if op is not None and node_text(op) == "->":
            raise self.unsupported("member access through a pointer (->)", node)
        element = self.vector_element(arg)
        if element is not None:  # `data[i].x`: one lane of that element
            var, first, et = element
            xyzw = {"x": 0, "y": 1, "z": 2, "w": 3}
            if xyzw.get(fname, et.lanes) >= et.lanes:
                raise self.type_error(f"{et} has no member {fname}", node)
            return LaneLV(var, self.lane_index(first, xyzw[fname], span), et.elem)
        bound = self.lookup(node_text(arg)) if arg.type == "identifier" else None
        if bound is not None and bound.fields is not None:  # `params.out`: the member's own IR parameter
            if fname not in bound.fields:
                raise self.type_error(f"{node_text(arg)} has no member {fname}", node)
            return bound.fields[fname]
        if arg.type == "identifier" and node_text(arg) in _BUILTIN_REGS and self.lookup(node_text(arg)) is None:
            if fname not in ("x", "y", "z"):
                raise self.type_error(f"{node_text(arg)} has no component {fname}", node)
            return Val(Builtin(_BUILTIN_REGS[node_text(arg)], Dim(fname), U32, span), U32)
        base = self.lvalue(arg)
        static = self.tu.struct_constant(base.type if not isinstance(base, Val) else base.ctype, fname)
        if static is not None:  # `pack.size` with `static constexpr int size`: the object is not read
            return Val(Const(static[1], static[0], span), static[0])
        if not reading and isinstance(base, MemLV) and isinstance(base.type, VectorType):
            lane_lv = self.memory_lane(base, base.type, fname, node)
            if lane_lv is not None:
                return lane_lv
        base_val = self.read(base, arg) if isinstance(base, VarLV | MemLV | LaneLV | PunLV | PunLaneLV) else base
        vt = base_val.ctype
        union = self.tu.union_member(vt, fname) if isinstance(vt, ScalarType | VectorType) else None
        if union is not None:  # a union member: the union's bits reinterpreted
            if isinstance(base, VarLV):
                return PunLV(base, union[1])
            return Val(Cast(base_val.expr, union[1], CastKind.BITCAST, span), union[1])
        if not isinstance(vt, VectorType):
            raise self.type_error(f"member {fname} of a value of type {vt}", node)
        lane, count, is_array = self.field_layout(vt, fname, node)
        if is_array:
            # `v.val` names an array member; it must be subscripted (handled by the caller) — we return
            # a marker Val whose type is a sub-vector view. Only whole-struct-of-one-array is supported.
            if lane != 0 or count != vt.lanes:
                # `b.x` with `half2 x` the first of four members: the member's lanes, as a vector value
                mt = self.member_part_type(vt, count, node)
                lanes = [Extract(base_val.expr, Const(lane + k, I32, span), vt.elem, span) for k in range(count)]
                return Val(MakeVector(tuple(lanes), mt, span), mt)
            if isinstance(base, VarLV):
                return base
            return base_val
        idx = Const(lane, I32, span)
        if isinstance(base, VarLV):
            return LaneLV(base, idx, vt.elem)
        if isinstance(base, MemLV):
            # A member of a vector in memory: read the whole vector (as C does on the GPU) then extract.
            return Val(Extract(base_val.expr, idx, vt.elem, span), vt.elem)
        return Val(Extract(base_val.expr, idx, vt.elem, span), vt.elem)

    def member_part_type(self, vt: VectorType, count: int, node: ts.Node) -> VectorType:
        """The vector type of a member of ``count`` lanes that is part of a struct laid out as ``vt`` (a
        ``half2`` member, or an array member, which is read as the vector of its elements)."""
        if count not in (2, 3, 4):
            raise self.unsupported("array member that is not the whole struct", node)
        return vector(vt.elem, count)

    def member_part(self, node: ts.Node) -> tuple[VarLV, Expr, VectorType] | None:
        """``b.x`` with ``b`` a local struct variable and ``x`` a vector or array member that is part of it:
        the variable, the member's first lane and its type; ``None`` for anything else."""
        arg, fnode = node.child_by_field_name("argument"), node.child_by_field_name("field")
        op = node.child_by_field_name("operator")
        if node.type != "field_expression" or arg is None or fnode is None or arg.type != "identifier":
            return None
        b = self.lookup(node_text(arg))
        if op is None or node_text(op) != "." or b is None or b.kind != "var" or not isinstance(b.ctype, VectorType):
            return None
        vt = b.ctype
        if self.tu.union_member(vt, node_text(fnode)) is not None:
            return None
        lane, count, is_array = self.field_layout(vt, node_text(fnode), node)
        if not is_array or (lane == 0 and count == vt.lanes):
            return None
        first = Const(lane, I32, self.span(node))
        return VarLV(b.ir_name, vt, b.readonly), first, self.member_part_type(vt, count, node)

    def assign_member_part(self, part: tuple[VarLV, Expr, VectorType], node: ts.Node, right: ts.Node) -> Val:
        """``b.x = e`` or ``b.x op= e`` for a member (or an element of an array member, ``data[i]``) that is
        several lanes of ``b``: those lanes replaced."""
        var, first, mt = part
        span = self.span(node)
        op = node_text(node.child_by_field_name("operator"))
        left = node.child_by_field_name("left")
        assert left is not None
        if op == "=":
            v = self.brace_init(mt, right) if right.type == "initializer_list" else self.rvalue(right)
        else:
            bop = _ASSIGN_OPS.get(op)
            if bop is None:
                raise self.unsupported(f"assignment operator {op}", node)
            v = self.apply_binary(bop.value, self.rvalue(left), self.rvalue(right), node)
        value = self.tmp(mt, node)
        self.emit(Assign(value, self.convert(v, mt, node).expr, span))
        whole, view = self.lanes_view(var, mt.elem, span)
        for k in range(mt.lanes):
            lane = Extract(VarRef(value, mt, span), Const(k, I32, span), mt.elem, span)
            whole = Insert(whole, self.lane_index(first, k, span), lane, view, span)
        if view != var.type:
            whole = Cast(whole, var.type, CastKind.BITCAST, span)
        self.write(var, Val(whole, var.type), node)
        return Val(VarRef(value, mt, span), mt)

    def lane_index(self, first: Expr, k: int, span: Span) -> Expr:
        """``first + k`` as an ``i32`` lane index (folded when ``first`` is a constant)."""
        if isinstance(first, Const):
            return Const(int(first.value) + k, I32, span)
        return first if k == 0 else Binary(BinaryOp.ADD, first, Const(k, I32, span), I32, span)

    def lanes_view(self, var: VarLV, elem: ScalarType, span: Span) -> tuple[Expr, VectorType]:
        """The bits of the vector variable ``var`` as a vector of ``elem`` (itself when its lanes are ``elem``)."""
        vt = var.type
        assert isinstance(vt, VectorType)
        ref = VarRef(var.name, vt, span)
        if vt.elem == elem:
            return ref, vt
        view = vector(elem, size_of(vt) // elem.size)
        return Cast(ref, view, CastKind.BITCAST, span), view

    def read_lanes(self, var: VarLV, first: Expr, vt: VectorType, node: ts.Node) -> Val:
        """The vector of type ``vt`` that lanes ``first``... of the variable ``var`` viewed as a vector of
        ``vt``'s element type hold."""
        span = self.span(node)
        whole, _ = self.lanes_view(var, vt.elem, span)
        lanes = tuple(Extract(whole, self.lane_index(first, k, span), vt.elem, span) for k in range(vt.lanes))
        return Val(MakeVector(lanes, vt, span), vt)

    def lane_pun(self, node: ts.Node) -> tuple[VarLV, Expr, VectorType] | None:
        """``*(half2*)(&(data[i].x))``: one lane of a local vector variable (an element's lane of an array of
        vectors member) reinterpreted as a vector ``T`` of its size: the variable, ``T``'s first lane in the
        variable's bits viewed as ``T``'s elements, and ``T``; ``None`` for anything else."""
        arg = node.child_by_field_name("argument") if node.type == "pointer_expression" else None
        if arg is None or node_text(node.child_by_field_name("operator")) != "*":
            return None
        cast = cast_operand(arg)
        if cast is None or not cast[2]:
            return None
        tnode, target, _ = cast
        element = self.vector_element(target.child_by_field_name("argument") or target)
        if target.type != "field_expression" or element is None:
            return None
        pt = self.tu.resolve_type(tnode, self.env, node)
        lane = self.field(target)
        assert isinstance(lane, LaneLV)
        t = pt.pointee if isinstance(pt, PointerType) else None
        if not isinstance(t, VectorType) or size_of(t) != lane.type.size or lane.type.size % t.elem.size != 0:
            raise self.unsupported(f"reinterpretation of a {lane.type} lane as {t}", node)
        span = self.span(node)
        return lane.var, self.mul_index(lane.index, I32, lane.type.size // t.elem.size, span), t

    def vector_element(self, node: ts.Node) -> tuple[VarLV, Expr, VectorType] | None:
        """``data[i]`` in a member function, or ``b.data[i]`` with ``b`` a local struct variable, where ``data``
        is an array of a vector type that fills the struct (flashinfer's ``int4 data[vec_size / 8]``): the
        variable, the element's first lane (``i`` times the element's lanes) and the element's type; ``None``
        for anything else."""
        base = node.child_by_field_name("argument") if node.type == "subscript_expression" else None
        idx_list = node.child_by_field_name("indices") or node.child_by_field_name("index")
        if base is None or idx_list is None:
            return None
        owner = self.fd.owner
        var: VarLV | None = None
        member: tuple[int, VectorType, int] | None = None
        if base.type == "identifier" and self.lookup(node_text(base)) is None and owner is not None:
            member = owner.vector_arrays.get(node_text(base)) if not self.fd.static_method else None
            var = VarLV("this", owner.vector)
        elif base.type == "field_expression" and node_text(base.child_by_field_name("operator")) == ".":
            arg, fnode = base.child_by_field_name("argument"), base.child_by_field_name("field")
            b = self.lookup(node_text(arg)) if arg is not None and arg.type == "identifier" else None
            if fnode is None or b is None or b.kind != "var" or not isinstance(b.ctype, VectorType):
                return None
            infos = self.tu.vector_fields.get(b.ctype, [])
            members = {i.vector_arrays[node_text(fnode)] for i in infos if node_text(fnode) in i.vector_arrays}
            if len(members) > 1:
                raise self.unsupported(f"member {node_text(fnode)} of several structs laid out as {b.ctype}", base)
            member = members.pop() if members else None
            var = VarLV(b.ir_name, b.ctype, b.readonly)
        if member is None or var is None:
            return None
        first, et, count = member
        if first != 0 or not isinstance(var.type, VectorType) or count != var.type.lanes:
            raise self.unsupported("array of vectors member that is not the whole struct", base)
        idx_nodes = idx_list.named_children if idx_list.type == "subscript_argument_list" else [idx_list]
        if len(idx_nodes) != 1:
            raise self.unsupported("multi-argument subscript", node)
        idx_e, idx_t = self.scalar(self.rvalue(idx_nodes[0]), idx_nodes[0])
        if not idx_t.is_int:
            raise self.type_error(f"array subscript is not an integer ({idx_t})", idx_nodes[0])
        span = self.span(idx_nodes[0])
        idx_e = self.cast_scalar(idx_e, idx_t, I32, span)
        return var, self.mul_index(idx_e, I32, et.lanes, span), et

    def memory_lane(self, base: MemLV, vt: VectorType, fname: str, node: ts.Node) -> MemLV | None:
        """``y[i].x`` for a vector in memory: the lane's own place, so a write stores (and a read loads)
        that lane alone; ``None`` for a member that is not one scalar lane (a union or array member)."""
        if self.tu.union_member(vt, fname) is not None:
            return None
        lane, count, is_array = self.field_layout(vt, fname, node)
        if is_array or count != 1:
            return None
        span = self.span(node)
        pt = base.ptr.type
        assert isinstance(pt, PointerType)
        lane_pt = PointerType(vt.elem, pt.space, pt.const, pt.restrict)
        lane_ptr = Cast(base.ptr, lane_pt, CastKind.BITCAST, span)
        return MemLV(PtrAdd(lane_ptr, Const(lane, I32, span), lane_pt, span), vt.elem, base.const)

    def field_layout(self, vt: VectorType, fname: str, node: ts.Node) -> tuple[int, int, bool]:
        for info in self.tu.vector_fields.get(vt, []):
            if fname in info.fields:
                return info.fields[fname]
        xyzw = {"x": 0, "y": 1, "z": 2, "w": 3}
        if fname in xyzw and xyzw[fname] < vt.lanes:
            return xyzw[fname], 1, False
        raise self.type_error(f"{vt} has no member {fname}", node)

    def brace_argument_type(self, node: ts.Node) -> Type | None:
        """``f(a, {x, 1.0f})``: the type of the by-value parameter a brace list is the argument for, where
        the callee is one user function (not overloaded, not a template); ``None`` elsewhere."""
        args = node.parent
        call = args.parent if args is not None and args.type == "argument_list" else None
        fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
        if args is None or fn is None or fn.type not in ("identifier", "qualified_identifier"):
            return None
        if self.lookup(node_text(fn)) is not None:
            return None
        key = self.tu.find("".join(node_text(fn).split()), fn, self.tu.functions)
        defs = self.tu.functions[key] if key is not None else []
        if len(defs) != 1 or defs[0].template is not None or defs[0].owner is not None:
            return None
        params = self.parameter_nodes(defs[0].node)
        index = [a for a in args.named_children if a.type != "comment"].index(node)
        p = params[index] if index < len(params) else None
        type_node = p.child_by_field_name("type") if p is not None else None
        declarator = p.child_by_field_name("declarator") if p is not None else None
        if p is None or type_node is None or declarator is None or declarator.type != "identifier":
            return None
        if self.is_group_type(type_node):
            return None
        return self.tu.resolve_type(type_node, {}, p)

    def brace_value(self, t: Type, init: ts.Node) -> Val:
        """A value of type ``t`` from a brace list (an argument, a returned value): aggregate initialisation,
        or the constructor of a struct that has one."""
        infos = self.tu.vector_fields.get(t, []) if isinstance(t, VectorType) else []
        constructed = [i for i in infos if i.name.rpartition("::")[2] in i.methods]
        if constructed:
            if len(infos) != 1:
                raise self.unsupported(f"brace list for one of several structs laid out as {t}", init)
            return self.construct(constructed[0], init.named_children, init)
        return self.brace_init(t, init)

    def address_of(self, node: ts.Node) -> Val:
        arg = node.child_by_field_name("argument")
        assert arg is not None
        lv = self.lvalue(arg)
        if isinstance(lv, MemLV):
            pt = PointerType(lv.type, self.ptr_space(lv.ptr), lv.const)
            return Val(lv.ptr, pt) if pointer_type(lv.ptr) == pt else Val(lv.ptr, pointer_type(lv.ptr) or pt)
        if isinstance(lv, Val) and isinstance(lv.ctype, CArray):
            return Val(lv.expr, lv.ctype.pointer)
        raise self.unsupported("address of a local variable", node)

    def ptr_space(self, e: Expr) -> AddressSpace:
        t = pointer_type(e)
        return t.space if t is not None else AddressSpace.GENERIC

    def binary(self, node: ts.Node) -> Val:
        """``a op b``: the left operand, then the right one, then the operator.

        A left-nested chain (``x[0] + x[1] + ... + x[2999]``) is lowered in a loop down its left
        spine rather than by recursion, so a long sum does not nest Python calls thousands deep.
        """
        op_text = node_text(node.child_by_field_name("operator"))
        if op_text in ("&&", "||"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            assert left is not None and right is not None
            return self.logical(op_text, left, right, node)
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert left is not None and right is not None
        if op_text in self.tu.user_operators:
            called = self.user_operator(op_text, left, right, node)
            if called is not None:
                return called
        spine = [node]  # the binary nodes down the left operands, outermost first
        stop = ("&&", "||", *self.tu.user_operators)  # (a user operator's node is lowered on its own)
        while left.type == "binary_expression" and node_text(left.child_by_field_name("operator")) not in stop:
            spine.append(left)
            left = left.child_by_field_name("left")
            assert left is not None
        acc = self.rvalue(left)
        for n in reversed(spine):
            right = n.child_by_field_name("right")
            assert right is not None
            acc = self.apply_binary(node_text(n.child_by_field_name("operator")), acc, self.rvalue(right), n)
        return acc

    def apply_binary(self, op_text: str, a: Val, b: Val, node: ts.Node) -> Val:
        """``a op b`` for an operator spelled ``op_text``, with C's conversions and pointer arithmetic."""
        span = self.span(node)
        a, b = self.decay(a), self.decay(b)
        op = _BINARY_OPS.get(op_text)
        if op is None:
            raise self.unsupported(f"operator {op_text}", node)
        # pointer arithmetic
        if isinstance(a.ctype, PointerType) or isinstance(b.ctype, PointerType):
            if op is BinaryOp.ADD and isinstance(b.ctype, PointerType) and isinstance(a.ctype, ScalarType):
                a, b = b, a
            if (
                op in (BinaryOp.ADD, BinaryOp.SUB)
                and isinstance(a.ctype, PointerType)
                and isinstance(b.ctype, ScalarType)
            ):
                if not b.ctype.is_int:
                    raise self.type_error(f"pointer offset of type {b.ctype}", node)
                off = b.expr
                if op is BinaryOp.SUB:
                    off = self.negate(off, b.ctype, span)
                return Val(PtrAdd(a.expr, off, a.ctype, span), a.ctype)
            if op in (BinaryOp.EQ, BinaryOp.NE) and isinstance(a.ctype, PointerType) and is_null_constant(b):
                return Val(Binary(op, a.expr, null_pointer(a.ctype, span), BOOL, span), BOOL)
            if op in (BinaryOp.EQ, BinaryOp.NE) and isinstance(b.ctype, PointerType) and is_null_constant(a):
                return Val(Binary(op, null_pointer(b.ctype, span), b.expr, BOOL, span), BOOL)
            if op.is_comparison and isinstance(a.ctype, PointerType) and isinstance(b.ctype, PointerType):
                if a.ctype.pointee != b.ctype.pointee:
                    raise self.type_error(f"comparison of pointers of types {a.ctype} and {b.ctype}", node)
                # (const-ness and address space do not change an address)
                be = b.expr if b.ctype == a.ctype else Cast(b.expr, a.ctype, CastKind.BITCAST, span)
                return Val(Binary(op, a.expr, be, BOOL, span), BOOL)
            raise self.unsupported("pointer arithmetic of this kind", node)
        if op in (BinaryOp.SHL, BinaryOp.SHR):
            ae, at = self.scalar(a, node)
            be, bt = self.scalar(b, node)
            if not (at.is_int or at.is_bool) or not (bt.is_int or bt.is_bool):
                raise self.type_error(f"shift of non-integers ({at}, {bt})", node)
            st = integer_promote(at)
            ae = self.cast_scalar(ae, at, st, span)
            be = self.cast_scalar(be, bt, st, span)
            return Val(Binary(op, ae, be, st, span), st)
        ae, be, rt = self.arith_operands(a, b, node)
        if op.is_comparison:
            if isinstance(rt, VectorType):
                raise self.type_error("comparison of vectors", node)
            return Val(Binary(op, ae, be, BOOL, span), BOOL)
        integer_only = (BinaryOp.REM, BinaryOp.BITAND, BinaryOp.BITOR, BinaryOp.BITXOR)
        if op in integer_only and (not isinstance(rt, ScalarType) or rt.is_float):
            raise self.type_error(f"operator {op_text} on {rt}", node)
        if op in (BinaryOp.BITAND, BinaryOp.BITOR, BinaryOp.BITXOR) and isinstance(rt, ScalarType) and rt.is_bool:
            rt = I32
            ae = self.cast_scalar(ae, BOOL, I32, span)
            be = self.cast_scalar(be, BOOL, I32, span)
        if isinstance(ae, Const) and isinstance(be, Const) and isinstance(rt, ScalarType) and rt.is_int:
            folded = fold_binary(op_text, ae.value, be.value)
            if isinstance(folded, int) and not isinstance(folded, bool):
                return Val(Const(wrap_int(folded, rt), rt, span), rt)
        return Val(Binary(op, ae, be, rt, span), rt)

    def logical(self, op_text: str, left: ts.Node, right: ts.Node, node: ts.Node) -> Val:
        span = self.span(node)
        a = self.to_bool(self.rvalue(left), left)
        with self.buffer() as pre:
            b = self.to_bool(self.rvalue(right), right)
        op = BinaryOp.LAND if op_text == "&&" else BinaryOp.LOR
        if not pre:
            return Val(Binary(op, a.expr, b.expr, BOOL, span), BOOL)
        # The right operand reads memory: keep C's short-circuit so the read happens only when needed.
        res = self.tmp(BOOL, node)
        self.emit(Assign(res, a.expr, span))
        guard: Expr = VarRef(res, BOOL, span)
        if op is BinaryOp.LOR:
            guard = Unary(UnaryOp.NOT, guard, BOOL, span)
        self.emit(If(guard, (*pre, Assign(res, b.expr, span)), (), span))
        return Val(VarRef(res, BOOL, span), BOOL)

    def conditional(self, node: ts.Node) -> Val:
        span = self.span(node)
        cnode = node.child_by_field_name("condition")
        tnode = node.child_by_field_name("consequence")
        fnode = node.child_by_field_name("alternative")
        assert cnode is not None and tnode is not None and fnode is not None
        c = self.to_bool(self.rvalue(cnode), cnode)
        with self.buffer() as pre_t:
            tv = self.decay(self.rvalue(tnode))
        with self.buffer() as pre_f:
            fv = self.decay(self.rvalue(fnode))
        rt: Type
        if isinstance(tv.ctype, ScalarType) and isinstance(fv.ctype, ScalarType):
            r = arithmetic_result(tv.ctype, fv.ctype) if tv.ctype != fv.ctype else tv.ctype
            if r is None:
                raise self.type_error(f"conditional with branches of types {tv.ctype} and {fv.ctype}", node)
            rt = r
        elif tv.ctype == fv.ctype:
            assert not isinstance(tv.ctype, CArray)
            rt = tv.ctype
        elif isinstance(tv.ctype, PointerType) and is_null_constant(fv):
            rt = tv.ctype  # `p ? p + k : NULL`: the null pointer of p's type
        elif isinstance(fv.ctype, PointerType) and is_null_constant(tv):
            rt = fv.ctype
        else:
            raise self.type_error(f"conditional with branches of types {tv.ctype} and {fv.ctype}", node)
        if not pre_t and not pre_f:
            te = self.convert(tv, rt, tnode).expr
            fe = self.convert(fv, rt, fnode).expr
            return Val(Select(c.expr, te, fe, rt, span), rt)
        res = self.tmp(rt, node)
        with self.buffer() as then_body:
            self.out.extend(pre_t)
            self.emit(Assign(res, self.convert(tv, rt, tnode).expr, span))
        with self.buffer() as else_body:
            self.out.extend(pre_f)
            self.emit(Assign(res, self.convert(fv, rt, fnode).expr, span))
        self.emit(If(c.expr, tuple(then_body), tuple(else_body), span))
        return Val(VarRef(res, rt, span), rt)

    def unary(self, node: ts.Node) -> Val:
        op = node_text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        assert arg is not None
        span = self.span(node)
        v = self.decay(self.rvalue(arg))
        if op == "!":
            b = self.to_bool(v, arg)
            if isinstance(b.expr, Const):
                return Val(Const(not b.expr.value, BOOL, span), BOOL)
            return Val(Unary(UnaryOp.NOT, b.expr, BOOL, span), BOOL)
        if isinstance(v.ctype, VectorType) and op == "-":
            return Val(Unary(UnaryOp.NEG, v.expr, v.ctype, span), v.ctype)
        e, t = self.scalar(v, arg)
        if op == "+":
            rt = integer_promote(t) if not t.is_float else t
            return Val(self.cast_scalar(e, t, rt, span), rt)
        if op == "-":
            rt = integer_promote(t) if not t.is_float else t
            return Val(self.negate(self.cast_scalar(e, t, rt, span), rt, span), rt)
        if op == "~":
            if t.is_float:
                raise self.type_error(f"operator ~ on {t}", node)
            rt = integer_promote(t)
            e = self.cast_scalar(e, t, rt, span)
            if isinstance(e, Const):
                return Val(Const(wrap_int(~int(e.value), rt), rt, span), rt)
            return Val(Unary(UnaryOp.BITNOT, e, rt, span), rt)
        raise self.unsupported(f"operator {op}", node)

    def assignment(self, node: ts.Node) -> Val:
        """``x = e`` or ``x op= e``: the stores it emits, and the value of the expression."""
        comma = misread_comma(node)
        if comma is not None:  # `(a = e, b)`: assign `e`, then the value is `b`
            self.assign(node, comma[0])
            return self.rvalue(comma[1])
        right = node.child_by_field_name("right")
        assert right is not None
        return self.assign(node, right)

    def assign(self, node: ts.Node, right: ts.Node) -> Val:
        """The assignment ``node`` with ``right`` as its right operand."""
        op = node_text(node.child_by_field_name("operator"))
        left = node.child_by_field_name("left")
        assert left is not None
        if op != "=" and op in self.tu.user_operators:
            called = self.user_operator(op, left, right, node)
            if called is not None:
                return called
        part = self.member_part(left) or self.vector_element(left) or self.lane_pun(left)
        if part is not None:
            return self.assign_member_part(part, node, right)
        lv = self.lvalue(left)
        if not isinstance(lv, VarLV | MemLV | LaneLV | PunLV | PunLaneLV):
            if isinstance(lv, Val) and isinstance(lv.expr, VarRef) and isinstance(lv.ctype, CArray):
                raise self.type_error("assignment to an array", node)
            raise self.type_error("assignment to something that is not a variable or memory", left)
        target_t = lv.type
        if op == "=":
            if right.type in ("initializer_list",):
                v = self.brace_init(target_t, right)
            else:
                v = self.rvalue(right)
            return self.write(lv, self.convert(v, target_t, node), node)
        bop = _ASSIGN_OPS.get(op)
        if bop is None:
            raise self.unsupported(f"assignment operator {op}", node)
        rhs = self.rvalue(right)
        cur = self.read(lv, left)
        result = self.apply_binary(bop.value, cur, rhs, node)
        if isinstance(target_t, PointerType):
            return self.write(lv, result, node)
        return self.write(lv, self.convert(result, target_t, node), node)

    def user_operator(self, op: str, left: ts.Node, right: ts.Node, node: ts.Node) -> Val | None:
        """``a op b`` or ``a op= b`` with a vector operand where the file defines ``operator op`` (the samples'
        ``float3 operator*(float3 a, float b)``, ``void operator+=(float3& a, float3 b)``): a call of it
        (overload resolution on the operand types; ``a`` binds a reference parameter); ``None`` where no
        operand is a vector (C's own operator)."""
        key = self.tu.find(f"operator{op}", node, self.tu.functions)
        if key is None:
            return None
        with self.buffer():  # the operands' types (lowered again by the call)
            operands = [self.rvalue(left), self.rvalue(right)]
        if not any(isinstance(v.ctype, VectorType) for v in operands):
            return None
        used = node.parent is not None and node.parent.type != "expression_statement"
        value = self.user_call(key, [], [left, right], node, used)
        if value is None:  # `void operator+=`: only as a statement
            return Val(Const(0, I32, self.span(node)), I32)
        return value

    def update(self, node: ts.Node, *, want_value: bool) -> Val | None:
        """``++x``, ``x--``: the stores it emits and, with ``want_value``, the value of the expression."""
        op = node_text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        assert arg is not None
        span = self.span(node)
        lv = self.lvalue(arg)
        if not isinstance(lv, VarLV | MemLV | LaneLV | PunLV | PunLaneLV):
            raise self.type_error(f"operand of {op} is not assignable", arg)
        t = lv.type
        old = self.read(lv, arg)
        if want_value and isinstance(lv, VarLV):
            # Keep the old value in a temporary: the variable changes below.
            saved = self.tmp(t, node)
            self.emit(Assign(saved, old.expr, span))
            old = Val(VarRef(saved, t, span), t)
        one = Val(Const(1, I32, span), I32)
        new = self.apply_binary("+" if op == "++" else "-", old, one, node)
        if not isinstance(t, PointerType):
            new = self.convert(new, t, node)
        self.write(lv, new, node)
        if not want_value:
            return None
        prefix = node.children[0].type in ("++", "--")
        return new if prefix else old


def _lookalike_keeps_grouping(cast: ts.Node, op: str) -> bool:
    """Whether reading the cast look-alike ``(X) op c`` as a binary at the cast's place groups as C does.

    tree-sitter gives the "cast" the tightest binding: inside a binary parent ``L o (X) op c`` it groups
    ``L o (X op c)`` and inside a unary one ``-(X op c)``. That is C's grouping only when the parent's
    operator binds less tightly (for a right operand), or no more tightly (for a left operand).
    """
    parent = cast.parent
    if parent is None:
        return True
    if parent.type == "binary_expression":
        outer = node_text(parent.child_by_field_name("operator"))
        if outer not in _PRECEDENCE:
            return False
        left = parent.child_by_field_name("left")
        is_left = left is not None and left.start_byte == cast.start_byte and left.end_byte == cast.end_byte
        if is_left:
            return _PRECEDENCE[outer] <= _PRECEDENCE[op]
        return _PRECEDENCE[outer] < _PRECEDENCE[op]
    return parent.type not in (
        "unary_expression",
        "pointer_expression",
        "cast_expression",
        "update_expression",
        "subscript_expression",
        "field_expression",
        "sizeof_expression",
    )
