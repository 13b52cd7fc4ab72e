"""What a call expression names, and calls of member functions and constructors.

:meth:`Calls.call` tells a cast (``static_cast<T>(x)``, ``float(x)``, ``(T)(x)``), a user function (see
:mod:`.overloads`), a member function (``obj.m()``, ``S::m()``), a constructor (``S(args)``), a
cooperative groups call (see :mod:`.cooperative`) and a device library function (see
:mod:`.builtin_calls`) apart. Member functions are lowered as device functions taking ``this``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import tree_sitter as ts

from larkc.errors import LarkcError, UnsupportedError
from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.core import function_declarator
from larkc.frontends.cuda.lowering.values import LaneLV, LValue, Val, VarLV, declared_identifier, zero_value
from larkc.frontends.cuda.sema.constants import try_resolve_type
from larkc.frontends.cuda.sema.ctypes import BUILTIN_TYPES, CArray, StructInfo
from larkc.frontends.cuda.sema.unit import FunctionDef, FunctionRef, ObjectStruct, TemplateArg, TemplateEnv, is_type_arg
from larkc.frontends.cuda.syntax import cast_operand, node_text
from larkc.ir.nodes import Assign, Call, Const, Expr, Function, FunctionKind, MakeVector, Param, VarRef
from larkc.ir.types import I32, PointerType, ScalarType, Type, VectorType, size_of


class Calls(Conversions):
    """Call dispatch, member functions and constructors."""

    def call(self, node: ts.Node, *, want_value: bool) -> Val | None:
        """A call expression: a cast, a user or member function, a constructor, or the device library."""
        fn_node = node.child_by_field_name("function")
        args_node = node.child_by_field_name("arguments")
        assert fn_node is not None and args_node is not None
        arg_nodes = [a for a in args_node.named_children if a.type != "comment"]
        if fn_node.type == "template_function":
            name = node_text(fn_node.child_by_field_name("name"))
            targs_node = fn_node.child_by_field_name("arguments")
            assert targs_node is not None
            if name in ("static_cast", "reinterpret_cast", "const_cast"):
                if len(targs_node.named_children) != 1 or len(arg_nodes) != 1:
                    raise self.unsupported(name, node)
                target = self.tu.resolve_type(targs_node.named_children[0], self.env, node)
                v = self.rvalue(arg_nodes[0])
                if name == "reinterpret_cast":
                    return self.reinterpret(v, target, node)
                return self.explicit_cast(v, target, node)
            targs = [
                self.tu.template_argument(a, self.env, node, self.const_scope()) for a in targs_node.named_children
            ]
            key = self.tu.find(name, fn_node, self.tu.functions)
            if key is not None:
                return self.user_call(key, targs, arg_nodes, node, want_value)
            declared = self.tu.find(name, fn_node, self.tu.specializations)
            special = self.tu.specialization(declared, tuple(targs)) if declared is not None else None
            if declared is not None:
                # `template <typename Td, typename Ts> Td cast_value(Ts);` declared, defined only as
                # explicit specializations (llm.c's cuda_utils.cuh): the one for these arguments
                if special is None:
                    raise self.type_error(f"no specialization of {name} for these template arguments", node)
                return self.user_call(declared, [], arg_nodes, node, want_value, [special])
            struct = self.tu.find(name, fn_node, self.tu.structs)
            if struct is not None and not arg_nodes and self.tu.conversion_to_pointer(struct, tuple(targs), node):
                return self.struct_conversion(struct, tuple(targs), node)
            info = self.tu.struct_info(fn_node, self.env, node) if struct is not None else None
            if info is not None:
                return self.construct(info, arg_nodes, node)
            raise self.unknown_name(name, self.unsupported(f"call of template {name}", node), node)
        if fn_node.type == "qualified_identifier":
            text = "".join(node_text(fn_node).split())
            m = re.fullmatch(r"std::numeric_limits<(.+)>::(\w+)", text)
            if m is not None:
                return self.numeric_limits(m.group(1), m.group(2), node, _limits_type_node(fn_node))
            inner = fn_node.child_by_field_name("name")
            while inner is not None and inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            if inner is not None and inner.type == "template_function":
                # ns::f<T>(...): the qualified name of f, and the template arguments of the innermost name
                inner_text = "".join(node_text(inner).split())
                base = text[: len(text) - len(inner_text)] + node_text(inner.child_by_field_name("name"))
                key = self.tu.find(base, fn_node, self.tu.functions)
                targs_node = inner.child_by_field_name("arguments")
                assert targs_node is not None
                targs = [
                    self.tu.template_argument(a, self.env, node, self.const_scope()) for a in targs_node.named_children
                ]
                if key is not None:
                    return self.user_call(key, targs, arg_nodes, node, want_value)
                raise self.unknown_name(base, self.unsupported("call of unknown function", node), node)
            key = self.tu.find(text, fn_node, self.tu.functions)
            if key is not None:
                return self.user_call(key, [], arg_nodes, node, want_value)
            if self.cg_name(fn_node) is not None:
                return self.cg_call(fn_node, arg_nodes, node, want_value)
            scope = fn_node.child_by_field_name("scope")
            info = self.tu.struct_info(scope, self.env, node) if scope is not None else None
            method = node_text(fn_node.child_by_field_name("name"))
            if info is not None and method in info.methods:
                return self.method_call(None, info, method, arg_nodes, node, want_value)  # S::m(args)
            # ::expf, std::exp, std::max: the device library's functions
            name = text.removeprefix("::").removeprefix("std::")
        elif fn_node.type == "lambda_expression":  # `[&] { ... }()`: defined and called in place
            return self.lambda_call(self.define_lambda(fn_node), arg_nodes, node, want_value)
        elif fn_node.type == "identifier":
            name = node_text(fn_node)
            local = self.lookup(name)
            if local is not None and local.kind == "lambda":
                return self.lambda_call(self.lambdas[local.ir_name], arg_nodes, node, want_value)
            bound = self.env.get(name)
            if isinstance(bound, FunctionRef):
                return self.user_call(bound.name, list(bound.targs), arg_nodes, node, want_value)
            obj_owner = self.fd.object_owner
            if obj_owner is not None and name in obj_owner.methods and self.lookup(name) is None:
                # another member function of the same object: its members are this one's parameters
                fields = {m: VarLV(f"this.{m}", t) for m, t in self.object_member_types().items()}
                return self.object_method_call(obj_owner, fields, name, arg_nodes, node, want_value)
            owner = self.fd.owner
            if owner is not None and name in owner.methods and self.lookup(name) is None:
                this = None if self.fd.static_method else VarLV("this", owner.vector)
                return self.method_call(None, owner, name, arg_nodes, node, want_value, this)
            union = self.tu.union_of(fn_node) if self.names_type(fn_node) else None
            if union is not None:
                return self.union_value(union, arg_nodes, node)  # `half2_uint32(q)`
            info = self.tu.struct_info(fn_node, self.env, node) if self.names_type(fn_node) else None
            if info is not None:
                return self.construct(info, arg_nodes, node)  # `Pack(x)` with Pack a struct (or a typedef of one)
        elif fn_node.type == "parenthesized_expression" and self.names_type(fn_node.named_children[0]):
            # `(T)(x)`: tree-sitter reads a C cast of a parenthesized operand as a call
            target = self.resolve_type(fn_node.named_children[0], node)
            if len(arg_nodes) != 1:
                raise self.unsupported("cast", node)
            return self.explicit_cast(self.rvalue(arg_nodes[0]), target, node)
        elif fn_node.type in ("primitive_type", "type_identifier", "sized_type_specifier"):
            # functional cast: float(x), int(y)
            target = self.resolve_type(fn_node, node)
            if len(arg_nodes) != 1:
                raise self.unsupported("functional cast", node)
            return self.explicit_cast(self.rvalue(arg_nodes[0]), target, node)
        elif fn_node.type == "field_expression":
            obj = fn_node.child_by_field_name("argument")
            field = fn_node.child_by_field_name("field")
            if field is not None and field.type == "dependent_name" and field.named_children:
                field = field.named_children[0]  # `v.template get<2>()`
            method_targs: list[TemplateArg] = []
            if field is not None and field.type == "template_method":  # `v.get<2>()`
                targs_node = field.child_by_field_name("arguments")
                consts = self.const_scope()
                for a in targs_node.named_children if targs_node is not None else []:
                    method_targs.append(self.tu.template_argument(a, self.env, node, consts))
                field = field.child_by_field_name("name")
            method = node_text(field)
            cub = self.cub_collective_of(obj) if obj is not None else None
            if cub is not None:  # `BlockReduce(temp_storage).Sum(v)`
                return self.cub_method(cub[0], cub[1], method, arg_nodes, node, want_value)
            holder = self.lookup(node_text(obj)) if obj is not None and obj.type == "identifier" else None
            if holder is not None and holder.object is not None and holder.fields is not None:
                if method_targs:
                    raise self.unsupported("member function template of a struct with members of different types", node)
                return self.object_method_call(holder.object, holder.fields, method, arg_nodes, node, want_value)
            group = self.group_of(obj) if obj is not None else None
            if group is not None:
                return self.group_method(group, method, arg_nodes, node, want_value)
            op = fn_node.child_by_field_name("operator")
            if obj is None or (op is not None and node_text(op) == "->"):
                raise self.unsupported("method call", node)
            receiver = self.lvalue(obj)
            ctype = receiver.ctype if isinstance(receiver, Val) else receiver.type
            info = self.struct_of(ctype, method) if not isinstance(ctype, CArray) else None
            if info is None:
                raise self.unsupported("method call", node)
            return self.method_call(obj, info, method, arg_nodes, node, want_value, receiver, method_targs)
        else:
            raise self.unsupported("call", node)
        if self.lookup(name) is not None:
            raise self.unsupported("call through a variable", node)
        target_t = self.env.get(name)
        if target_t is not None and is_type_arg(target_t):
            if len(arg_nodes) != 1:
                raise self.unsupported("functional cast", node)
            return self.explicit_cast(self.rvalue(arg_nodes[0]), target_t, node)
        key = self.tu.find(name, fn_node, self.tu.functions)
        if key is not None:  # with CUDA's function of the name where no user overload is viable
            library = lambda: self.builtin_call(name, arg_nodes, node, want_value)  # noqa: E731
            return self.user_call(key, [], arg_nodes, node, want_value, fallback=library)
        if fn_node.type == "identifier" and self.cg_name(fn_node) is not None:
            return self.cg_call(fn_node, arg_nodes, node, want_value)  # after `using namespace cooperative_groups`
        builtin_t = BUILTIN_TYPES.get(name)
        packed_fp8 = isinstance(builtin_t, VectorType) and builtin_t.elem.is_fp8
        if builtin_t is not None and (isinstance(builtin_t, ScalarType) or packed_fp8):
            # cuda_fp8.h's packed classes are built by their converting constructors, __nv_fp8x2_e4m3(f2);
            # `convert` accepts only the conversions the header defines.
            if len(arg_nodes) != 1:
                raise self.unsupported("functional cast", node)
            return self.explicit_cast(self.rvalue(arg_nodes[0]), builtin_t, node)
        try:
            return self.builtin_call(name, arg_nodes, node, want_value)
        except UnsupportedError:
            declared = self.tu.find(name, fn_node, self.tu.declared_functions)
            if declared is None or self.tu.find(name, fn_node, self.tu.functions) is not None:
                raise
            raise self.type_error(f"device function {declared} is declared but never defined", fn_node) from None

    def object_member_types(self) -> dict[str, Type]:
        """In a member function of an object struct: the types its members have in this instance."""
        obj = self.fd.object_owner
        assert obj is not None
        out: dict[str, Type] = {}
        for m in obj.members:
            t = self.env[f"this.{m}"]
            assert isinstance(t, ScalarType | VectorType | PointerType)
            out[m] = t
        return out

    def object_method_call(
        self,
        obj: ObjectStruct,
        fields: Mapping[str, VarLV],
        method: str,
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """``a_.item(r, c)`` on a local object: a device function instance per member types, taking the
        members by value first (a member function that assigns a member is rejected in its body)."""
        span = self.span(node)
        defs = [
            m
            for m in obj.methods.get(method, [])
            if m.child_by_field_name("body") is not None and len(self.parameter_nodes(m)) == len(arg_nodes)
        ]
        if len(defs) != 1:
            raise self.unsupported(f"member function {method} of {obj.name} taking {len(arg_nodes)} arguments", node)
        types = ", ".join(str(fields[m].type) for m in obj.members)
        fd = FunctionDef(f"{obj.name}::{method}[{types}]", defs[0], FunctionKind.DEVICE, None, object_owner=obj)
        env: TemplateEnv = {**obj.env, **{f"this.{m}": fields[m].type for m in obj.members}}  # type: ignore[dict-item]
        callee = self.tu.instantiate(fd, env, node)
        args: list[Expr] = [VarRef(fields[m].name, fields[m].type, span) for m in obj.members]
        return self.call_with(callee, args, callee.params[len(obj.members) :], arg_nodes, method, node, want_value)

    def call_with(
        self,
        callee: Function,
        leading: list[Expr],
        params: Sequence[Param],
        arg_nodes: Sequence[ts.Node],
        name: str,
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """Call ``callee`` (``name`` in the source) with the arguments ``leading`` (already lowered: ``this``
        or an object's members) followed by ``arg_nodes`` for ``params`` (by reference where one is)."""
        args = list(leading)
        copies_back: list[Callable[[], None]] = []
        for p, a in zip(params, arg_nodes, strict=True):
            if p.by_ref:
                arg, back = self.bind_reference(p, self.lvalue(a), callee, a)
                args.append(arg)
                copies_back += [back] if back is not None else []
            else:
                args.append(self.convert(self.rvalue(a), p.type, a).expr)
        return self.emit_call(callee, args, copies_back, name, node, want_value)

    def cg_call(self, fn_node: ts.Node, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A call of a cooperative groups free function: ``reduce(tile, v, op)`` or ``sync(group)``."""
        name = self.cg_name(fn_node)
        if name == "reduce":
            return self.group_reduce(arg_nodes, node)
        group = self.group_of(arg_nodes[0]) if name == "sync" and len(arg_nodes) == 1 else None
        if group is None:
            raise self.unsupported("cooperative groups function", node)
        return self.group_method(group, "sync", [], node, want_value)

    def names_type(self, node: ts.Node) -> bool:
        """Whether an expression node is just the name of a type (``real``, ``T``, ``ns::real``)."""
        if node.type not in ("identifier", "type_identifier", "qualified_identifier", "primitive_type"):
            return False
        words = "".join(node_text(node).split()) if node.type == "qualified_identifier" else node_text(node)
        if self.lookup(words) is not None:
            return False
        bound = self.env.get(words)
        if bound is not None:
            return is_type_arg(bound)
        if words in BUILTIN_TYPES:
            return True
        tables = (self.tu.typedefs, self.tu.structs, self.tu.unions)
        return any(self.tu.find(words, node, t) is not None for t in tables)

    def struct_conversion(self, struct: str, targs: tuple[TemplateArg, ...], node: ts.Node) -> Val:
        """``S<T>()`` of a member-less struct with an ``operator T*()``: the pointer it converts to."""
        fn = self.tu.conversion_to_pointer(struct, targs, node)
        if fn is None:
            raise self.unsupported("construction of a struct (other than one converting to a pointer)", node)
        span = self.span(node)
        dst = self.tmp(fn.ret, node)
        self.emit(Call(dst, fn.name, (), span))
        return Val(VarRef(dst, fn.ret, span), fn.ret)

    def user_conversion(self, v: Val, node: ts.Node) -> Val | None:
        """``v`` converted by its struct's conversion operator to a scalar (flashinfer's ``uint_fastdiv``:
        ``operator unsigned int() const``, in ``x * paged_kv.page_size``), ``None`` if its type is no struct
        with one. The struct must be the only one laid out as ``v``'s type (larkc tells structs apart by
        their layout: another could convert differently)."""
        infos = self.tu.vector_fields.get(v.ctype, []) if isinstance(v.ctype, VectorType) else []
        converting = [i for i in infos if "operator cast" in i.methods]
        if not converting:
            return None
        if len(infos) != 1:
            raise self.unsupported(f"conversion of one of several structs laid out as {v.ctype}", node)
        value = self.method_call(None, converting[0], "operator cast", [], node, True, this=v)
        if value is None or not isinstance(value.ctype, ScalarType):
            raise self.unsupported("conversion operator to a type other than a scalar", node)
        return value

    def member(self, name: str, node: ts.Node) -> LValue | Val | None:
        """Inside a member function: a data member (of ``this``) or a static constant of the struct."""
        owner = self.fd.owner
        if owner is None:
            return None
        span = self.span(node)
        if name in owner.constants:
            ct, cv = owner.constants[name]
            return Val(Const(cv, ct, span), ct)
        if name not in owner.fields or self.fd.static_method:
            return None
        this = VarLV("this", owner.vector)
        lane, count, is_array = owner.fields[name]
        if is_array:
            if lane != 0 or count != owner.vector.lanes:
                raise self.unsupported("array member that is not the whole struct", node)
            return this  # the whole struct: subscripts are lanes
        return LaneLV(this, Const(lane, I32, span), owner.vector.elem)

    def check_subscript_operator(self, vt: VectorType, node: ts.Node) -> ScalarType | None:
        """``p[i]`` on a struct value is lane ``i``: true of the ``operator[]`` packed types define
        (``return payload[i];`` over a member array that is the whole struct; ``None``), or element ``i`` of
        the struct's bits viewed as ``T`` (``return ((T*)data)[i];`` or ``((T*)(&data))[i]``, as flashinfer's
        ``vec_t`` writes it, over a member that is the whole struct; ``T``); anything else is rejected."""
        info = self.struct_of(vt, "operator[]")
        if info is None:
            return None
        views: set[ScalarType | None] = set()
        for m in info.methods["operator[]"]:
            body = m.child_by_field_name("body")
            stmts = [c for c in body.named_children if c.type != "comment"] if body is not None else []
            ret = stmts[0].named_children[0] if len(stmts) == 1 and stmts[0].type == "return_statement" else None
            array = (
                ret.child_by_field_name("argument") if ret is not None and ret.type == "subscript_expression" else None
            )
            view = self.pointer_view_of_member(info, array) if array is not None else None
            field = info.fields.get(node_text(array)) if array is not None else None
            index = ret.child_by_field_name("indices") if ret is not None else None
            index_text = "".join(node_text(index).split()).strip("[]") if index is not None else None
            plist = function_declarator(m).child_by_field_name("parameters")
            declared = [p.child_by_field_name("declarator") for p in plist.named_children] if plist else []
            if (field != (0, vt.lanes, True) and view is None) or [declared_identifier(d) for d in declared] != [
                index_text
            ]:
                raise self.unsupported("operator[] other than `return member_array[i];`", node)
            views.add(view)
        if len(views) != 1:
            raise self.unsupported("operator[] overloads that view the struct differently", node)
        return views.pop()

    def pointer_view_of_member(self, info: StructInfo, node: ts.Node) -> ScalarType | None:
        """``((T*)data)`` or ``((const T*)(&data))`` with ``data`` a member that is the whole struct and ``T``
        a scalar type whose size divides the struct's: ``T``; ``None`` for anything else."""
        cast = cast_operand(node)
        if cast is None:
            return None
        type_node, value, _ = cast
        name = node_text(value)
        vt = info.vector
        whole = info.fields.get(name) in ((0, vt.lanes, True), (0, 1, False)) or (
            name in info.vector_arrays and info.vector_arrays[name][::2] == (0, vt.lanes)
        )
        if value.type != "identifier" or not whole:
            return None
        target = try_resolve_type(self.tu, type_node, info.env, node)  # type: ignore[arg-type]
        if not isinstance(target, PointerType) or not isinstance(target.pointee, ScalarType):
            return None
        t = target.pointee
        return t if size_of(vt) % t.size == 0 else None

    def struct_of(self, vt: Type, method: str) -> StructInfo | None:
        """The struct (laid out as ``vt``) that has member function ``method``."""
        if not isinstance(vt, VectorType):
            return None
        return next((i for i in self.tu.vector_fields.get(vt, []) if method in i.methods), None)

    def method_def(self, info: StructInfo, method: str, arity: int, node: ts.Node) -> FunctionDef:
        """The definition of member function ``method`` of ``info`` taking ``arity`` arguments."""
        for m in info.methods.get(method, []):
            plist = function_declarator(m).child_by_field_name("parameters")
            params = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
            if len(params) != arity or m.child_by_field_name("body") is None:
                continue
            # `static` is written on the declaration in the struct, not on an out-of-class definition
            static = any(
                node_text(c) == "static"
                for d in info.methods[method]
                if d is m or d.child_by_field_name("body") is None
                for c in d.named_children
                if c.type == "storage_class_specifier"
            )
            return FunctionDef(
                f"{info.name}{_struct_args(info)}::{method}",
                m,
                FunctionKind.DEVICE,
                self.tu.member_templates.get(m.start_byte),
                owner=info,
                static_method=static,
            )
        raise self.unsupported(f"member function {method} taking {arity} arguments", node)

    def method_call(
        self,
        obj_node: ts.Node | None,
        info: StructInfo,
        method: str,
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
        want_value: bool,
        this: LValue | Val | None = None,
        targs: Sequence[TemplateArg] = (),
    ) -> Val | None:
        """A call of a member function (``obj.m(args)``, ``S::m(args)``, or ``m(args)`` in a method), with
        the explicit template arguments ``targs`` of a member function template (``obj.get<2>()``)."""
        span = self.span(node)
        fd = self.method_def(info, method, len(arg_nodes), node)
        env: TemplateEnv = dict(info.env)  # type: ignore[arg-type]  # env holds types
        if not fd.static_method and this is None:  # the object is evaluated before the arguments (C++17)
            assert obj_node is not None
            this = self.lvalue(obj_node)
        lowered: list[LValue | Val] | None = None
        if fd.template is not None:
            named: dict[str, TemplateArg] = {}
            if len(targs) < len(fd.template):
                # `v.cast_load(ptr)` for `template <typename T> void cast_load(const T* ptr)` (flashinfer's
                # vec_t): the remaining arguments deduced from the call's, as for a device function template
                lowered = [self.decay(lv) if isinstance(lv, Val) else lv for lv in map(self.lvalue, arg_nodes)]
                deduced = self.deduce(fd, list(targs), lowered, node)
                if isinstance(deduced, LarkcError):
                    raise deduced
                named = deduced
            env |= self.tu.bind_template(fd.template, targs, named, node, f"member function {method}")
        elif targs:
            raise self.type_error(f"member function {method} is not a template", node)
        callee = self.tu.instantiate(fd, env, node)
        args: list[Expr] = []
        value_params = list(callee.params)
        if not fd.static_method:
            assert this is not None
            self_param = value_params.pop(0)
            if self_param.by_ref:
                if not isinstance(this, VarLV):
                    # a temporary: the method may change it, but nothing sees the change
                    value = this if isinstance(this, Val) else self.read(this, node)
                    tmp = self.tmp(info.vector, node)
                    self.emit(Assign(tmp, value.expr, span))
                    this = VarLV(tmp, info.vector)
                args.append(VarRef(this.name, this.type, span))
            else:
                value = this if isinstance(this, Val) else self.read(this, node)
                args.append(value.expr)
        if lowered is None:
            return self.call_with(callee, args, value_params, arg_nodes, method, node, want_value)
        copies_back: list[Callable[[], None]] = []
        for p, v, a in zip(value_params, lowered, arg_nodes, strict=True):
            if p.by_ref:
                arg, back = self.bind_reference(p, v, callee, a)
                args.append(arg)
                copies_back += [back] if back is not None else []
            else:
                rv = v if isinstance(v, Val) else self.read(v, a)
                args.append(self.convert(rv, p.type, a).expr)
        return self.emit_call(callee, args, copies_back, method, node, want_value)

    def construct(self, info: StructInfo, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``S(args)`` or ``S{args}``: a constructor call on a fresh temporary, or aggregate initialisation."""
        span = self.span(node)
        base = info.name.rpartition("::")[2]
        tmp = self.tmp(info.vector, node)
        if not arg_nodes:
            return Val(VarRef(tmp, info.vector, span), info.vector)  # default construction (uninitialised)
        if base not in info.methods:
            lanes = [self.convert(self.rvalue(a), info.vector.elem, a).expr for a in arg_nodes]
            if len(lanes) > info.vector.lanes:
                raise self.type_error(f"too many initializers for {base}", node)
            lanes += [zero_value(info.vector.elem, span) for _ in range(info.vector.lanes - len(lanes))]
            self.emit(Assign(tmp, MakeVector(tuple(lanes), info.vector, span), span))
        else:
            self.method_call(None, info, base, arg_nodes, node, False, VarLV(tmp, info.vector))
        return Val(VarRef(tmp, info.vector, span), info.vector)


def _struct_args(info: StructInfo) -> str:
    """``<float>`` for a struct template instance (its template arguments, as the key records them)."""
    if info.instance:
        return info.instance
    targs = [v for k, v in info.env.items() if k != info.name.rpartition("::")[2]]
    return f"<{', '.join(str(_targ_text(a)) for a in targs)}>" if targs else ""


def _targ_text(a: object) -> str:
    from larkc.frontends.cuda.sema.unit import _targ_str

    return _targ_str(a)  # type: ignore[arg-type]  # env values are template arguments


def _limits_type_node(qualified: ts.Node) -> ts.Node | None:
    """The ``T`` of ``std::numeric_limits<T>::member``: its type descriptor, to resolve as any type."""
    stack = [qualified]
    while stack:
        n = stack.pop()
        if n.type == "template_argument_list":
            return next((c for c in n.named_children if c.type == "type_descriptor"), None)
        stack.extend(n.named_children)
    return None
