"""Lowering of a function's signature and its statements.

The function (return type, parameters and their address spaces, ``__launch_bounds__``), declarations
(locals, local and ``__shared__`` arrays, ``auto``, cooperative group variables), and the statements:
``if`` (and ``if constexpr``), the loops (with ``#pragma unroll``), ``return``, ``break``, ``continue``.
A loop condition that reads memory is evaluated at the top of every iteration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda.lowering.contracts import Contracts
from larkc.frontends.cuda.lowering.core import function_declarator
from larkc.frontends.cuda.lowering.lambdas import Lambda, capture_list, free_identifiers, misplaced_returns
from larkc.frontends.cuda.lowering.values import Binding, LValue, Val, VarLV, declared_identifier, zero_value
from larkc.frontends.cuda.sema.constants import fold_constant
from larkc.frontends.cuda.sema.ctypes import CArray, CType
from larkc.frontends.cuda.sema.groups import GRID_GROUP_NAMES, GRID_GROUPS_UNMODELLED, GROUP_PARAM, Group
from larkc.frontends.cuda.sema.unit import LOCAL_POINTER, MEMORY_REF, FileScopeVariable, ObjectStruct, UnionInfo
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.cnumbers import parse_number
from larkc.ir.nodes import (
    Alloc,
    Assign,
    Break,
    Cast,
    CastKind,
    Const,
    Continue,
    Decl,
    DoWhile,
    Expr,
    For,
    Function,
    FunctionKind,
    If,
    Level,
    MakeVector,
    Param,
    PtrAdd,
    Return,
    Stmt,
    Store,
    Unary,
    UnaryOp,
    VarRef,
    While,
)
from larkc.ir.types import (
    BOOL,
    F64,
    I32,
    I64,
    U32,
    VOID,
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from larkc.ir.values import convert_value


class Statements(Contracts):
    """A function's signature, its declarations and its statements."""

    def lower(self) -> Function:
        node = self.fd.node
        span = self.span(node)
        for tp in self.fd.template or ():
            self.used.add(tp.name)
        decl = node.child_by_field_name("declarator")
        assert decl is not None  # collected as a function definition: it has a function declarator
        ret_node = node.child_by_field_name("type")
        if decl.type == "operator_cast":
            # `operator T*()`: the type is inside the declarator
            ret_node = decl.child_by_field_name("type")
            inner_decl = decl.child_by_field_name("declarator")
            if inner_decl is None:
                raise self.unsupported("conversion operator", decl)
            decl = inner_decl
        if ret_node is None and self.fd.owner is None:
            raise self.unsupported("function without a return type", node.child_by_field_name("declarator") or node)
        ret = self.resolve_type(ret_node, node) if ret_node is not None else VOID  # (a constructor)
        # `const half* item_ptr(...)`: the qualifier before the type is the pointee's
        pointee_const = any(node_text(c) == "const" for c in node.named_children if c.type == "type_qualifier")
        while decl.type in ("pointer_declarator", "reference_declarator", "abstract_pointer_declarator"):
            if decl.type in ("pointer_declarator", "abstract_pointer_declarator"):
                ret = PointerType(ret, AddressSpace.GENERIC, pointee_const)
                pointee_const = False
            inner = decl.child_by_field_name("declarator") or decl.named_children[-1]
            decl = inner
        if self.is_kernel and ret != VOID:
            raise self.type_error("a __global__ function must return void", ret_node or node)
        self.ret = ret
        params = self.lower_params(decl)
        owner = self.fd.owner
        if owner is not None and not self.fd.static_method:
            # a member function: `this` by reference (by value for a const one, which cannot change it)
            const_method = any(node_text(c) == "const" for c in decl.named_children if c.type == "type_qualifier")
            params = [Param("this", owner.vector, not const_method, span), *params]
            self.used.add("this")
        members = self.object_member_params(span)
        params = [*members, *params]
        body = node.child_by_field_name("body")
        assert body is not None
        inputs = self.constant_inputs(body)
        params += inputs
        max_threads = None
        for c in node.named_children:
            if c.type == "launch_bounds":
                args = [a for a in c.named_children if a.type not in ("comment",)]
                if args:
                    v = fold_constant(self.tu, args[0], self.env, self.const_scope())
                    if not isinstance(v, int) or v <= 0:
                        raise self.unsupported("__launch_bounds__ argument", c)
                    max_threads = v
        with self.buffer() as prologue:
            self.file_scope_memory(body)
        with self.scope():
            for p in params:
                array = self.array_params.get(p.name)
                binding = Binding("var", p.name, p.type) if array is None else Binding("alloc", p.name, array)
                local = self.local_pointer_params.get(p.name)
                if local is not None:
                    if not self.never_assigned(p.name, body):
                        raise self.unsupported("pointer parameter given the address of a local and changed", body)
                    binding = Binding(
                        "pun", p.name, PointerType(local, AddressSpace.LOCAL), pun=(VarLV(p.name, local), local)
                    )
                memory = self.memory_ref_params.get(p.name)
                if memory is not None:  # `ref` reads and writes the caller's memory, `&ref` is its address
                    binding = Binding("shared_scalar", p.name, memory[0], space=memory[1])
                self.scopes[0][p.name] = binding
            for gname, group in self.group_params.items():
                self.scopes[0][gname] = Binding("group", gname, U32, None, group)
            for sname, fields in self.struct_params.items():
                obj = self.struct_param_objects.get(sname)
                self.scopes[0][sname] = Binding("struct", sname, VOID, fields=fields, object=obj)
            for p in inputs:  # `c_Kernel[i]`: a read of the kernel's input of that name
                scalar_t = self.device_scalars.get(p.name)
                if scalar_t is not None:  # `retirementCount`: the one element of its buffer
                    self.scopes[0][p.name] = Binding("shared_scalar", p.name, scalar_t, space=AddressSpace.GLOBAL)
                elif p.name not in self.array_params:  # (rows of a 2-D array are bound like 2-D parameters)
                    self.scopes[0][p.name] = Binding("var", p.name, p.type, readonly=True)
            for p in members:  # `data` in a member function of an object struct: `this.data`, read only
                self.scopes[0][p.name.removeprefix("this.")] = Binding("var", p.name, p.type, readonly=True)
            stmts = prologue + self.compound(body, new_scope=False)
            if self.ret == VOID:  # falling off the end of a void function returns: its __ensures hold there
                stmts += self.postconditions(None)
        kind = FunctionKind.KERNEL if self.is_kernel else FunctionKind.DEVICE
        fn = Function(self.ir_name, kind, Level.THREAD, tuple(params), ret, tuple(stmts), max_threads, span)
        self.check_typed(fn)
        return fn

    def object_member_params(self, span: Span) -> list[Param]:
        """For a member function of an object struct, its members as leading by-value parameters
        ``this.member``, typed as the object's variables are (their types are in the environment)."""
        obj = self.fd.object_owner
        if obj is None:
            return []
        out = []
        for m in obj.members:
            t = self.env[f"this.{m}"]
            assert isinstance(t, ScalarType | VectorType | PointerType)
            self.used.add(f"this.{m}")
            out.append(Param(f"this.{m}", t, False, span))
        return out

    def declare_objects(self, obj: ObjectStruct, node: ts.Node) -> None:
        """``MatrixView_half a_(a, rows, cols);``: one variable per member of an object struct, set by the
        constructor's member initializers (the name binds to them: ``a_.height``, ``a_.item(r, c)``)."""
        for d in node.children_by_field_name("declarator"):
            target = d.child_by_field_name("declarator") if d.type in ("init_declarator", "function_declarator") else d
            args = self.vexing_arguments(d) if d.type == "function_declarator" else None
            if target is None or target.type != "identifier" or (d.type == "function_declarator" and args is None):
                raise self.unsupported(f"declaration of a {obj.name}", d)
            init = d.child_by_field_name("value") if d.type == "init_declarator" else None
            if init is not None and init.type not in ("argument_list", "initializer_list"):
                raise self.unsupported(f"initialisation of a {obj.name} other than by its constructor", init)
            if args is None:
                args = [a for a in init.named_children if a.type != "comment"] if init is not None else []
            values = self.construct_object(obj, args, d)
            name = node_text(target)
            if name in self.scopes[-1]:
                raise self.type_error(f"redeclaration of {name}", target)
            fields: dict[str, VarLV] = {}
            for m, declared in obj.members.items():
                value = values.get(m)
                t = value.ctype if value is not None and isinstance(value.ctype, PointerType) else declared
                assert not isinstance(t, CArray)
                ir_name = self.fresh(f"{name}.{m}")
                self.emit(Decl(ir_name, t, value.expr if value is not None else None, self.span(d)))
                fields[m] = VarLV(ir_name, t)
            self.scopes[-1][name] = Binding("object", name, VOID, fields=fields, object=obj)

    def vexing_arguments(self, d: ts.Node) -> list[ts.Node] | None:
        """``T x(a, b);`` with plain names as arguments, which tree-sitter reads as the declaration of a
        function ``x`` with parameters of types ``a`` and ``b``: those names (``None`` for anything else)."""
        plist = d.child_by_field_name("parameters")
        names = []
        for p in plist.named_children if plist is not None else []:
            t = p.child_by_field_name("type")
            if p.type != "parameter_declaration" or p.child_by_field_name("declarator") is not None or t is None:
                return None
            known = (
                self.lookup(node_text(t)) is not None or self.tu.find(node_text(t), t, self.tu.constants) is not None
            )
            if t.type != "type_identifier" or not known:
                return None
            names.append(t)
        return names

    def direct_initialisation(self, t: ScalarType | VectorType, d: ts.Node) -> Val | None:
        """``T x(a)`` or ``T x(y[i])`` that tree-sitter reads as a function declarator (parameter ``a``, or
        ``y`` with an abstract array declarator): the value ``x`` is initialised with, converted as
        direct-initialisation does (a vector type's explicit constructors, such as cuda_fp8.h's packed
        classes', apply; a scalar converts implicitly). ``None`` when ``d`` is not such an initialisation."""
        target = d.child_by_field_name("declarator")
        plist = d.child_by_field_name("parameters")
        params = plist.named_children if plist is not None else []
        if target is None or target.type != "identifier" or len(params) != 1:
            return None
        p = params[0]
        name = p.child_by_field_name("type")
        if p.type != "parameter_declaration" or name is None or name.type != "type_identifier":
            return None
        if self.lookup(node_text(name)) is None and self.tu.find(node_text(name), name, self.tu.constants) is None:
            return None
        indices: list[ts.Node] = []
        dims = p.child_by_field_name("declarator")
        while dims is not None:
            size = dims.child_by_field_name("size")
            if dims.type != "abstract_array_declarator" or size is None:
                return None
            indices.insert(0, size)
            dims = dims.child_by_field_name("declarator")
        place: LValue | Val = self.identifier(name)
        for size in indices:
            place = self.subscript(place, name, size, size.parent or size)
        value = self.read(place, p) if not isinstance(place, Val) else place
        return self.explicit_cast(value, t, d) if isinstance(t, VectorType) else self.convert(value, t, d)

    def construct_object(self, obj: ObjectStruct, arg_nodes: Sequence[ts.Node], node: ts.Node) -> dict[str, Val]:
        """The member values the constructor of ``obj`` taking ``arg_nodes`` sets: ``S(T* p, int n) : data(p),
        n(n) {}`` (an empty body; members it does not name stay uninitialised). A pointer member keeps the
        address space of its value. No arguments and no constructor of none: every member uninitialised."""
        base = obj.name.rpartition("::")[2]
        ctors = [
            c
            for c in obj.methods.get(base, [])
            if len(self.parameter_nodes(c)) == len(arg_nodes) and c.child_by_field_name("body") is not None
        ]
        if not ctors and not arg_nodes:
            return {}
        if len(ctors) != 1:
            raise self.unsupported(f"construction of {obj.name} with {len(arg_nodes)} arguments", node)
        ctor = ctors[0]
        body = ctor.child_by_field_name("body")
        if body is not None and any(c.type != "comment" for c in body.named_children):
            raise self.unsupported(f"constructor of {obj.name} with statements in its body", ctor)
        bound: dict[str, Binding] = {}
        for p, a in zip(self.parameter_nodes(ctor), arg_nodes, strict=True):
            type_node, declarator = p.child_by_field_name("type"), p.child_by_field_name("declarator")
            if type_node is None or declarator is None:
                raise self.unsupported("constructor parameter", p)
            const = any(node_text(c) == "const" for c in p.named_children if c.type == "type_qualifier")
            ctype, name_node, by_ref = self.apply_declarator(self.resolve_type(type_node, p), const, declarator)
            if (by_ref and not const) or isinstance(ctype, CArray):
                raise self.unsupported("constructor parameter (by value or const reference)", p)
            v = self.decay(self.identifier(a) if a.type == "type_identifier" else self.rvalue(a))
            t: Type = ctype
            if isinstance(t, PointerType) and isinstance(v.ctype, PointerType):
                t = PointerType(t.pointee, v.ctype.space, t.const, t.restrict or v.ctype.restrict)
            tmp = self.tmp(t, a)
            self.emit(Assign(tmp, self.convert(v, t, a).expr, self.span(a)))
            bound[node_text(name_node)] = Binding("var", tmp, t, readonly=True)
        values: dict[str, Val] = {}
        outer, self.scopes = self.scopes, [bound]  # the initializers see the parameters, not the caller's names
        try:
            for init_list in (c for c in ctor.named_children if c.type == "field_initializer_list"):
                for fi in init_list.named_children:
                    parts = [c for c in fi.named_children if c.type != "comment"]
                    member = node_text(parts[0]) if parts else ""
                    if member not in obj.members or len(parts) != 2 or len(parts[1].named_children) != 1:
                        raise self.unsupported("member initializer", fi)
                    v = self.decay(self.rvalue(parts[1].named_children[0]))
                    t = obj.members[member]
                    if isinstance(t, PointerType) and isinstance(v.ctype, PointerType):
                        t = PointerType(t.pointee, v.ctype.space, t.const, t.restrict or v.ctype.restrict)
                    values[member] = self.convert(v, t, fi)
        finally:
            self.scopes = outer
        return values

    def parameter_nodes(self, fn: ts.Node) -> list[ts.Node]:
        """The parameter declarations of a function definition (none for ``f(void)``)."""
        plist = function_declarator(fn).child_by_field_name("parameters")
        params = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
        if len(params) == 1 and node_text(params[0]).strip() == "void":
            return []
        return params

    def used_file_memory(self, body: ts.Node) -> list[tuple[FileScopeVariable, re.Match[bytes]]]:
        """The file-scope ``__constant__``/``__shared__`` variables ``body`` names, with a use of each."""
        text = body.text or b""
        out = []
        for key, var in self.tu.file_memory.items():
            short = key.rpartition("::")[2]
            use = re.search(rb"\b" + re.escape(short.encode()) + rb"\b", text)
            if use is not None and self.tu.find(short, body, {key}) == key:
                out.append((var, use))
        return out

    def constant_inputs(self, body: ts.Node) -> list[Param]:
        """The host-written ``__constant__`` arrays and the ``__device__`` variables a kernel uses, as global
        buffer parameters named after them (``c_Kernel``: what ``cudaMemcpyToSymbol`` put there is the
        task's to give; a ``__device__`` scalar is a buffer of one element)."""
        params = []
        for var, use in self.used_file_memory(body):
            if not var.host_written and not var.device:
                continue
            what = "__device__ variable" if var.device else "__constant__ memory the host writes"
            at = body.descendant_for_byte_range(body.start_byte + use.start(), body.start_byte + use.end()) or body
            if not self.is_kernel:
                raise self.unsupported(f"{what}, in a device function", at)
            d = var.declarator
            inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            assert inner is not None
            base = self.resolve_type(var.type_node, var.node)
            ctype, name_node, by_ref = self.apply_declarator(base, not var.device, inner)
            scalar = var.device and isinstance(ctype, ScalarType | VectorType) and not by_ref
            if not scalar and not isinstance(ctype, CArray):
                shapes = "a scalar or an array" if var.device else "an array"
                raise self.unsupported(f"{what} that is not {shapes}", at)
            name = node_text(name_node)
            if name in self.used:
                raise self.type_error(f"parameter {name} hides the file-scope variable of that name", at)
            self.used.add(name)
            elem = ctype.elem if isinstance(ctype, CArray) else ctype
            assert not isinstance(elem, CArray)
            # not const-qualified, as in C++ (`unsigned int* p = &c_Table[y][0];`; nvcc rejects device writes)
            pt = PointerType(elem, AddressSpace.GLOBAL)
            params.append(Param(name, pt, False, self.span(var.node)))
            if scalar:
                self.device_scalars[name] = elem
            elif isinstance(ctype, CArray) and len(ctype.dims) > 1:  # `c_Table[D][R]`: a pointer to rows of R
                self.array_params[name] = CArray(elem, (None, *ctype.dims[1:]), AddressSpace.GLOBAL, pt.const)
        return params

    def file_scope_memory(self, body: ts.Node) -> None:
        """Declare the file-scope ``__constant__`` and ``__shared__`` variables ``body`` names, in the function's
        outermost scope: a ``__constant__`` one as a per-thread copy of its initialiser (it is read-only, so
        each thread reading its own copy reads the same values), a ``__shared__`` one as the kernel's own
        (a device function cannot share it with its kernel, so it is rejected there)."""
        for var, use in self.used_file_memory(body):
            short = var.name.rpartition("::")[2]
            if var.host_written or var.device:
                continue  # a kernel parameter (constant_inputs)
            if var.shared and not self.is_kernel:
                at = body.descendant_for_byte_range(body.start_byte + use.start(), body.start_byte + use.end())
                raise self.unsupported("file-scope __shared__ variable in a device function", at or body)
            base = self.resolve_type(var.type_node, var.node)
            d = var.declarator
            inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            init = d.child_by_field_name("value") if d.type == "init_declarator" else None
            assert inner is not None
            specs = {node_text(c) for c in var.node.named_children if c.type == "type_qualifier"}
            ctype, name_node, by_ref = self.apply_declarator(base, "const" in specs, inner)
            if by_ref or isinstance(ctype, PointerType):
                raise self.unsupported("file-scope memory variable of this type", var.node)
            if isinstance(ctype, CArray):
                self.declare_array(short, ctype, var.shared, False, init, d)
            elif var.shared:
                if not isinstance(ctype, ScalarType | VectorType):
                    raise self.unsupported("__shared__ variable of this type", d)
                ir_name = self.declare(short, "shared_scalar", ctype, name_node)
                self.emit(Alloc(ir_name, ctype, 1, AddressSpace.SHARED, self.span(d)))
            else:
                assert init is not None  # collected only with an initialiser
                items = init.named_children if init.type in ("initializer_list", "argument_list") else None
                value = self.brace_init(ctype, init) if items is not None else self.rvalue(init)
                scalar = isinstance(ctype, ScalarType)
                self.declare_var(short, ctype, value, name_node, d, const=scalar, init_node=init, readonly=True)

    def lower_params(self, decl: ts.Node) -> list[Param]:
        plist = decl.child_by_field_name("parameters")
        assert plist is not None
        params: list[Param] = []
        for p in plist.named_children:
            if p.type == "comment":
                continue
            if p.type == "variadic_parameter":
                raise self.unsupported("variadic parameter", p)
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                raise self.unsupported("parameter", p)
            type_node = p.child_by_field_name("type")
            assert type_node is not None
            if self.is_group_type(type_node):
                # a cooperative group parameter: bound per instance, no IR parameter
                if self.is_kernel:
                    raise self.unsupported("cooperative group parameter of a kernel", p)
                gname = declared_identifier(p.child_by_field_name("declarator"))
                if gname is None:
                    raise self.unsupported("cooperative group parameter", p)
                bound = self.env.get(GROUP_PARAM + gname)
                if isinstance(bound, Group):
                    self.check_group_type(type_node, bound, p)
                    self.group_params[gname] = bound
                continue
            if p.child_by_field_name("declarator") is None and self.tu.is_tag_type(type_node):
                continue  # `std::bool_constant<B>`: its template argument is all it holds (no IR parameter)
            members = self.tu.pointer_struct(type_node, self.env)
            if members is not None:
                params.extend(self.struct_params_of(p, members))
                obj = self.tu.object_struct(type_node, self.env)
                if obj is not None:  # its member functions take the members, as a local object's do
                    self.struct_param_objects[declared_identifier(p.child_by_field_name("declarator")) or ""] = obj
                continue
            base = self.resolve_type(type_node, p)
            if base == VOID and p.child_by_field_name("declarator") is None:
                continue  # f(void)
            const = any(node_text(c) == "const" for c in p.named_children if c.type == "type_qualifier")
            d = p.child_by_field_name("declarator")
            if d is None:
                raise self.unsupported("unnamed parameter", p)
            ctype, name_node, by_ref = self.apply_declarator(base, const, d, param=True)
            array = ctype if isinstance(ctype, CArray) else None
            if isinstance(ctype, CArray):
                ctype = PointerType(ctype.elem, AddressSpace.GENERIC, const)
            t = self.param_space(ctype)
            name = node_text(name_node)
            if array is not None and len(array.dims) > 1 and isinstance(t, PointerType):
                # `float x[][N]`: a pointer to rows of N, indexed as the array it points into
                self.array_params[name] = CArray(array.elem, (None, *array.dims[1:]), t.space, t.const)
            if name in self.used:
                raise self.type_error(f"duplicate parameter {name}", name_node)
            self.used.add(name)
            if by_ref and const:
                by_ref = False  # a const reference is a copy for our purposes (no aliasing can be observed)
            if by_ref and self.is_kernel:
                raise self.unsupported("reference parameter of a kernel", p)
            if by_ref and not isinstance(t, ScalarType | VectorType):
                raise self.unsupported("reference parameter of this type", p)
            if isinstance(t, VoidType):
                raise self.type_error("parameter of type void", p)
            space = self.env.get(f"{MEMORY_REF}{len(params)}")
            if by_ref and isinstance(space, int) and not isinstance(space, bool) and isinstance(t, ScalarType):
                # bound to the caller's memory and its address taken here: the address itself
                self.memory_ref_params[name] = (t, list(AddressSpace)[space])
                t, by_ref = PointerType(t, list(AddressSpace)[space]), False
            local = self.env.get(f"{LOCAL_POINTER}{len(params)}")
            if local and isinstance(t, PointerType) and isinstance(t.pointee, ScalarType | VectorType):
                # given the address of a caller's local: the local itself, by reference; `*p` and `p[0]`
                # are views of it (a pointer that never changes), any other use is a located error
                self.local_pointer_params[name] = t.pointee
                t, by_ref = t.pointee, True
            params.append(Param(name, t, by_ref, self.span(p)))
        return params

    def struct_params_of(self, p: ts.Node, members: dict[str, Type]) -> list[Param]:
        """A kernel's parameter struct of pointers (``Params p``, by value): one IR parameter per member,
        named ``p.member``; ``p.member`` in the body is that parameter."""
        d = p.child_by_field_name("declarator")
        if not self.is_kernel or d is None or d.type != "identifier":
            raise self.unsupported("struct with pointer members other than as a kernel's by-value parameter", p)
        name = node_text(d)
        fields = {m: VarLV(f"{name}.{m}", self.param_space(t)) for m, t in members.items()}
        self.struct_params[name] = fields
        self.used.update(f.name for f in fields.values())
        return [Param(f.name, f.type, False, self.span(p)) for f in fields.values()]

    def param_space(self, t: Type) -> Type:
        if isinstance(t, PointerType):
            space = AddressSpace.GLOBAL if self.is_kernel else AddressSpace.GENERIC
            return PointerType(t.pointee, space, t.const, t.restrict)
        return t

    def apply_declarator(
        self, base: Type, const: bool, d: ts.Node, *, param: bool = False
    ) -> tuple[CType, ts.Node, bool]:
        """Apply a declarator to ``base``: returns (type, name node, is_reference)."""
        by_ref = False
        dims: list[int | None] = []
        t: Type = base
        pointee_const = const
        while True:
            if d.type == "pointer_declarator":
                quals = [node_text(c) for c in d.named_children if c.type == "type_qualifier"]
                restrict = "__restrict__" in quals or "__restrict" in quals
                t = PointerType(t, AddressSpace.GENERIC, pointee_const, restrict)
                pointee_const = False
                nxt = d.child_by_field_name("declarator")
                assert nxt is not None
                d = nxt
            elif d.type == "reference_declarator":
                by_ref = True
                d = d.named_children[-1]
            elif d.type == "array_declarator":
                size = d.child_by_field_name("size")
                if size is None:
                    dims.insert(0, None)
                else:
                    v = fold_constant(self.tu, size, self.env, self.const_scope())
                    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                        raise self.unsupported("array size that is not a positive constant", size)
                    dims.insert(0, v)
                nxt = d.child_by_field_name("declarator")
                assert nxt is not None
                d = nxt
            elif d.type in ("identifier", "field_identifier"):
                break
            elif d.type == "parenthesized_declarator" and param and dims and len(d.named_children) == 1:
                # `half (&items)[4]`: a reference to an array, passed (as C passes arrays) as a pointer to it
                inner = d.named_children[0]
                if inner.type != "reference_declarator" or not inner.named_children:
                    raise self.unsupported("parenthesized declarator", d)
                d = inner.named_children[-1]
            elif d.type == "parenthesized_declarator":
                raise self.unsupported("parenthesized declarator", d)
            else:
                raise self.unsupported("declarator", d)
        if dims:
            if any(x is None for x in dims[1:]):
                raise self.unsupported("array with an unknown inner dimension", d)
            return CArray(t, tuple(dims), AddressSpace.LOCAL), d, by_ref
        return t, d, by_ref

    def compound(self, node: ts.Node, *, new_scope: bool = True) -> list[Stmt]:
        with self.buffer() as out:
            if new_scope:
                with self.scope():
                    for c in node.named_children:
                        self.statement(c)
            else:
                for c in node.named_children:
                    self.statement(c)
        return out

    def body(self, node: ts.Node) -> list[Stmt]:
        """A statement used as a body (of if/for/while): its own scope."""
        if node.type == "compound_statement":
            return self.compound(node)
        with self.buffer() as out, self.scope():
            self.statement(node)
        return out

    def statement(self, node: ts.Node) -> None:
        """Lower one statement into the current buffer."""
        try:
            self.statement_kind(node)
        except RecursionError:
            # past the frontend's recursion allowance (see ``_deep_recursion``): an expression nested
            # thousands of levels deep other than by a left-nested chain such as a long sum
            raise self.unsupported("expression nested this deeply", node) from None

    def statement_kind(self, node: ts.Node) -> None:
        """Dispatch on the kind of statement ``node``."""
        t = node.type
        loops = ("for_statement", "while_statement", "do_statement")
        if t not in ("preproc_call", "comment", *loops) and self.pending_unroll is not None:
            self.pending_unroll = None  # a pragma not followed by a loop is ignored, as nvcc does
        match t:
            case "compound_statement":
                self.out.extend(self.compound(node))
            case "declaration":
                self.declaration(node)
            case "expression_statement":
                if node.named_children:
                    self.expression_statement(node.named_children[0])
            case "if_statement":
                self.if_statement(node)
            case "for_statement":
                self.for_statement(node)
            case "while_statement":
                self.while_statement(node)
            case "do_statement":
                self.do_statement(node)
            case "break_statement":
                if self.loops == 0:
                    raise self.unsupported("break outside a loop", node)
                self.emit(Break(self.span(node)))
            case "continue_statement":
                if self.loops == 0:
                    raise self.type_error("continue outside a loop", node)
                self.emit(Continue(self.span(node)))
            case "return_statement":
                self.return_statement(node)
            case "preproc_call":
                self.pragma(node)
            case "comment":
                pass
            case "type_definition":
                self.local_typedef(node)
            case "alias_declaration":
                name = node_text(node.child_by_field_name("name"))
                type_node = node.child_by_field_name("type")
                assert type_node is not None
                descriptor = type_node.child_by_field_name("type") if type_node.type == "type_descriptor" else None
                if not self.cub_typedef(name, descriptor or type_node, node):
                    self.env = {**self.env, name: self.resolve_type(type_node, node)}
            case "static_assert_declaration" | "namespace_alias_definition" | "using_declaration":
                pass  # namespace aliases and using directives are looked up through TranslationUnit.find
            case "switch_statement":
                raise self.unsupported("switch statement", node)
            case "goto_statement":
                raise self.unsupported("goto statement", node)
            case "labeled_statement":
                raise self.unsupported("labeled statement", node)
            case "for_range_loop":
                raise self.unsupported("range-based for loop", node)
            case "try_statement" | "throw_statement":
                raise self.unsupported("exception handling", node)
            case _:
                raise self.unsupported(t.replace("_", " "), node)

    def auto_pointer(self, dnode: ts.Node, init: ts.Node | None, d: ts.Node) -> tuple[ts.Node, set[str]]:
        """The name declared by ``auto* [__restrict__] p`` and the qualifiers written on the pointer."""
        qualifiers = {node_text(c) for c in dnode.children if c.type in ("type_qualifier", "ms_pointer_modifier")}
        inner = dnode.child_by_field_name("declarator")
        if init is None or inner is None or inner.type != "identifier":
            raise self.unsupported("auto declaration", d)
        return inner, qualifiers

    def auto_pointer_type(self, v: Val, qualifiers: set[str], d: ts.Node) -> PointerType:
        """The type of ``p`` in ``auto* [__restrict__] p = init``: ``init``'s pointer type, ``__restrict__``
        recorded as on an explicitly typed local pointer (``T* __restrict__ p``)."""
        if not isinstance(v.ctype, PointerType):
            raise self.type_error(f"auto* initialised with a {v.ctype}, not a pointer", d)
        restrict = v.ctype.restrict or bool({"__restrict__", "__restrict"} & qualifiers)
        return PointerType(v.ctype.pointee, v.ctype.space, v.ctype.const, restrict)

    def local_typedef(self, node: ts.Node) -> None:
        type_node = node.child_by_field_name("type")
        assert type_node is not None
        names = node.children_by_field_name("declarator")
        if len(names) == 1 and self.cub_typedef(node_text(names[0]), type_node, node):
            return
        base = self.resolve_type(type_node, node)
        for d in node.children_by_field_name("declarator"):
            if d.type not in ("type_identifier", "identifier"):
                raise self.unsupported("typedef", node)
            self.env = {**self.env, node_text(d): base}

    def pragma(self, node: ts.Node) -> None:
        text = " ".join(node_text(node).split())
        m = re.fullmatch(r"#\s*pragma\s+unroll(?:\s*\(?\s*(.*?)\s*\)?)?", text)
        if m is None:
            return  # other pragmas do not change the semantics
        arg = m.group(1)
        if not arg:
            self.pending_unroll = 0
            return
        value = parse_number(arg)
        if value is None:
            v = self.const_scope().get(arg) if arg.isidentifier() else None
            bound = self.env.get(arg)
            if v is None and isinstance(bound, int):
                v = bound
            key = self.tu.find(arg, node, self.tu.constants)
            if v is None and key is not None:
                v = self.tu.constants[key][1]
            if not isinstance(v, int):
                raise self.unsupported("#pragma unroll argument", node)
            self.pending_unroll = int(v)
        else:
            self.pending_unroll = int(value[0])

    def take_unroll(self) -> int | None:
        u, self.pending_unroll = self.pending_unroll, None
        return u

    def declaration(self, node: ts.Node) -> None:
        specs = {node_text(c) for c in node.named_children if c.type in ("storage_class_specifier", "type_qualifier")}
        specs |= {c.type for c in node.children if not c.is_named}
        type_node = node.child_by_field_name("type")
        if type_node is None:
            raise self.unsupported("declaration", node)
        if type_node.type in ("struct_specifier", "class_specifier") and type_node.child_by_field_name("body"):
            raise self.unsupported("local struct definition", node)
        shared = "__shared__" in specs
        if "__constant__" in specs:
            raise self.unsupported("__constant__ memory", node)
        is_auto = type_node.type == "placeholder_type_specifier"
        if type_node.type in ("dependent_type", "qualified_identifier") and self.cub_storage(type_node, node):
            return
        obj = None if is_auto else self.tu.object_struct(type_node, self.env)
        if obj is not None:
            self.declare_objects(obj, node)
            return
        grid = None if is_auto else self.cg_name(type_node)
        if grid is not None and grid in GRID_GROUP_NAMES:  # `cg::grid_group grid = cg::this_grid();`
            raise self.unsupported(GRID_GROUPS_UNMODELLED, node)
        if self.is_group_type(type_node) or (is_auto and self.declares_groups(node)):
            for d in node.children_by_field_name("declarator"):
                target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                if target is None or target.type != "identifier":
                    raise self.unsupported("cooperative group declaration", d)
                self.declare_group(target, d.child_by_field_name("value"), d)
                group = self.lookup(node_text(target))
                if not is_auto and group is not None and group.group is not None:
                    self.check_group_type(type_node, group.group, d)
            return
        base: Type | None = None if is_auto else self.resolve_type(type_node, node)
        const = "const" in specs or "constexpr" in specs
        for d in node.children_by_field_name("declarator"):
            init = None
            dnode = d
            if d.type == "init_declarator":
                init = d.child_by_field_name("value")
                inner = d.child_by_field_name("declarator")
                assert inner is not None
                dnode = inner
            if is_auto:
                pointer, qualifiers = dnode.type == "pointer_declarator", set[str]()
                if pointer:  # `auto* __restrict__ input_v = reinterpret_cast<...>(input);` (vLLM)
                    dnode, qualifiers = self.auto_pointer(dnode, init, d)
                if init is None or dnode.type != "identifier":
                    raise self.unsupported("auto declaration", d)
                if init.type == "lambda_expression":
                    self.declare_lambda(dnode, init)
                    continue
                v = self.rvalue(init)
                if isinstance(v.ctype, CArray):
                    raise self.unsupported("auto array", d)
                ctype: CType = self.auto_pointer_type(v, qualifiers, d) if pointer else v.ctype
                name_node = dnode
                self.declare_var(
                    node_text(name_node), ctype, v, name_node, d, const="constexpr" in specs, readonly=const
                )
                continue
            assert base is not None
            if dnode.type == "function_declarator" and isinstance(base, ScalarType | VectorType):
                direct = self.direct_initialisation(base, dnode)
                if direct is not None:  # `__nv_fp8x4_e5m2 p4(y[i]);`
                    target = dnode.child_by_field_name("declarator")
                    assert target is not None
                    self.declare_var(node_text(target), base, direct, target, d, readonly=const)
                    continue
            ctype, name_node, by_ref = self.apply_declarator(base, "const" in specs, dnode)
            if by_ref:
                raise self.unsupported("local reference variable", d)
            name = node_text(name_node)
            if isinstance(ctype, CArray):
                self.declare_array(name, ctype, shared, "extern" in specs, init, d)
                continue
            if shared:
                # A __shared__ scalar is a one-element shared array that the name dereferences.
                if init is not None:
                    raise self.unsupported("initializer of a __shared__ variable", init)
                if not isinstance(ctype, ScalarType | VectorType):
                    raise self.unsupported("__shared__ variable of this type", d)
                ir_name = self.declare(name, "shared_scalar", ctype, name_node)
                self.emit(Alloc(ir_name, ctype, 1, AddressSpace.SHARED, self.span(d)))
                continue
            if isinstance(ctype, VoidType):
                raise self.type_error(f"variable {name} of type void", d)
            alias = self.local_address(init) if isinstance(ctype, PointerType) and init is not None else None
            if alias is not None and self.never_changed(name, d):
                # `uint32_t* w = reinterpret_cast<uint32_t*>(&v);`: `*w` and `w[i]` are views of v in place
                assert isinstance(ctype, PointerType)
                view = alias[0], ctype.pointee
                self.declare(name, "pun", ctype, name_node)
                self.scopes[-1][name].pun = view
                continue
            union = self.tu.union_of(type_node) if ctype == base else None
            if union is not None and (init is not None or union.default is not None):
                if init is None:  # `U u;` with a default constructor
                    items = []
                else:
                    items = init.named_children if init.type in ("initializer_list", "argument_list") else [init]
                value = self.union_value(union, items, init if init is not None else d)
            elif init is not None and init.type in ("initializer_list", "argument_list"):
                value = self.brace_init(ctype, init)
            elif init is not None:
                value = self.rvalue(init)
            else:
                value = None
            is_constexpr = "constexpr" in specs or (const and isinstance(ctype, ScalarType))
            readonly = const and not isinstance(ctype, PointerType)  # `const T* p` points to const data
            self.declare_var(name, ctype, value, name_node, d, const=is_constexpr, init_node=init, readonly=readonly)

    def never_changed(self, name: str, declarator: ts.Node) -> bool:
        """Whether nothing after ``declarator`` in its block assigns, increments or takes the address of a
        variable named ``name`` (a shadowing one included: the answer errs towards "changed")."""
        decl = declarator.parent
        block = decl.parent if decl is not None else None
        if decl is None or block is None:
            return False
        return self.unchanged_in(name, [c for c in block.named_children if c.start_byte >= decl.end_byte])

    def never_assigned(self, name: str, body: ts.Node) -> bool:
        """Whether nothing in ``body`` assigns, increments or takes the address of a variable named ``name``."""
        return self.unchanged_in(name, [body])

    def unchanged_in(self, name: str, nodes: list[ts.Node]) -> bool:
        pending = list(nodes)
        while pending:
            n = pending.pop()
            target = None
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression" or (
                n.type == "pointer_expression" and node_text(n.child_by_field_name("operator")) == "&"
            ):
                target = n.child_by_field_name("argument")
            while target is not None and target.type == "parenthesized_expression" and target.named_children:
                target = target.named_children[0]
            if target is not None and target.type == "identifier" and node_text(target) == name:
                return False
            pending.extend(n.named_children)
        return True

    def union_value(self, union: UnionInfo, items: Sequence[ts.Node], node: ts.Node) -> Val:
        """A union initialised from ``items`` (``U u(x)``, ``U u{x}``, ``U u = x``): the member a constructor
        taking ``x``'s type sets, else (no constructors) the first member, held as the union's bits."""
        if not items and union.default is not None:
            default_member, constant = union.default
            dt = union.members[default_member]
            assert isinstance(dt, ScalarType)
            span = self.span(node)
            src = BOOL if isinstance(constant, bool) else (I64 if isinstance(constant, int) else F64)
            bits = Const(convert_value(constant, src, dt), dt, span)
            return Val(Cast(bits, union.storage, CastKind.BITCAST, span), union.storage)
        if len(items) != 1:
            raise self.unsupported("union initializer (one value)", node)
        v = self.rvalue(items[0])
        member = union.constructors.get(v.ctype) if isinstance(v.ctype, ScalarType | VectorType) else None
        if member is None and isinstance(v.ctype, ScalarType) and not v.ctype.is_bool:
            # no exact match: a standard conversion to the one constructor of the same kind (an integer for
            # `uint32_t val` or `uint16_t val`; __half's own converting constructors rank after it)
            vt = v.ctype
            same_kind = [
                m
                for pt, m in union.constructors.items()
                if isinstance(pt, ScalarType)
                and not pt.is_bool
                and (pt.is_int if vt.is_int else pt.is_float and pt.bits >= 32)
            ]
            member = same_kind[0] if len(same_kind) == 1 else None
        if member is None and union.constructors:
            raise self.type_error(f"no constructor of union {union.name} takes a {v.ctype}", node)
        t = union.members[member] if member is not None else union.storage
        v = self.convert(v, t, node)
        span = self.span(node)
        return Val(Cast(v.expr, union.storage, CastKind.BITCAST, span), union.storage)

    def declare_var(
        self,
        name: str,
        ctype: CType,
        value: Val | None,
        name_node: ts.Node,
        node: ts.Node,
        *,
        const: bool = False,
        init_node: ts.Node | None = None,
        readonly: bool = False,
    ) -> None:
        """Declare local ``name``: a compile-time constant when ``const`` and its value is one, else a variable
        (``readonly`` for a ``const`` one, which no ``T&`` parameter binds)."""
        assert not isinstance(ctype, CArray)
        t: Type = ctype
        if isinstance(t, PointerType) and value is not None:
            vt = value.ctype
            src = vt.pointer if isinstance(vt, CArray) else vt
            if isinstance(src, PointerType):
                # A local pointer lives in the address space of what it is initialised with.
                t = PointerType(t.pointee, src.space, t.const, t.restrict or src.restrict)
        where = init_node if init_node is not None else node
        init = self.convert(value, t, where).expr if value is not None else None
        if const and isinstance(t, ScalarType) and isinstance(init, Const):
            # a constant (C's typed evaluation folded it): usable in array sizes, pragmas, templates
            self.declare(name, "const", t, name_node, init.value)
            return
        ir_name = self.declare(name, "var", t, name_node, readonly=readonly)
        self.emit(Decl(ir_name, t, init, self.span(node)))

    def declare_array(
        self, name: str, ctype: CArray, shared: bool, extern: bool, init: ts.Node | None, node: ts.Node
    ) -> None:
        space = AddressSpace.SHARED if shared else AddressSpace.LOCAL
        if not isinstance(ctype.elem, ScalarType | VectorType | PointerType):
            raise self.unsupported("array element type", node)
        if extern and not shared:
            raise self.unsupported("extern local array", node)
        if ctype.dims[0] is None and not extern:
            if init is None:
                raise self.unsupported("array without a size", node)
            if init.type != "initializer_list" or len(ctype.dims) != 1 or not init.named_children:
                raise self.unsupported("array sized by its initializer", node)
            # `float f[] = {a, b, c}`: as many elements as initializers
            ctype = CArray(ctype.elem, (len([i for i in init.named_children if i.type != "comment"]),), ctype.space)
        arr = CArray(ctype.elem, ctype.dims, space)
        count: int | None = None
        if ctype.dims[0] is not None:
            count = ctype.dims[0] * arr.row_size()
        ir_name = self.declare(name, "alloc", arr, node)
        self.emit(Alloc(ir_name, ctype.elem, count, space, self.span(node)))
        if init is not None:
            if shared:
                raise self.unsupported("initializer of a __shared__ array", init)
            if init.type != "initializer_list":
                raise self.unsupported("array initializer", init)
            items = [i for i in init.named_children if i.type != "comment"]
            assert count is not None
            if len(items) > count:
                raise self.type_error("too many initializers for array", init)
            if any(i.type == "initializer_list" for i in items):
                raise self.unsupported("nested array initializer", init)
            ptr = VarRef(ir_name, arr.pointer, self.span(node))
            values = [self.rvalue(i) for i in items]
            # C zero-fills the elements without an initializer.
            elem = ctype.elem
            zero = Val(zero_value(elem, self.span(init)), elem) if isinstance(elem, ScalarType | VectorType) else None
            for k in range(count):
                if k < len(values):
                    v = self.convert(values[k], ctype.elem, init)
                elif zero is not None:
                    v = zero
                else:
                    raise self.unsupported("partially initialised vector array", init)
                addr = PtrAdd(ptr, Const(k, I32, self.span(init)), arr.pointer, self.span(init))
                self.emit(Store(addr, v.expr, None, self.span(init)))

    def brace_init(self, t: Type, init: ts.Node) -> Val:
        """``T x = {a, b}`` or ``x = {a, b}``: a scalar or vector value from a brace initializer."""
        items = init.named_children
        if isinstance(t, ScalarType):
            if len(items) > 1:
                raise self.type_error("too many initializers for a scalar", init)
            return self.convert(self.rvalue(items[0]), t, init) if items else Val(zero_value(t, self.span(init)), t)
        if isinstance(t, VectorType):
            if len(items) > t.lanes:
                raise self.type_error(f"too many initializers for {t}", init)
            lanes = [self.convert(self.rvalue(i), t.elem, i).expr for i in items]
            lanes += [zero_value(t.elem, self.span(init)) for _ in range(t.lanes - len(lanes))]
            return Val(MakeVector(tuple(lanes), t, self.span(init)), t)
        raise self.unsupported("brace initializer", init)

    def expression_statement(self, node: ts.Node) -> None:
        """An expression evaluated for its side effects (a call, an assignment, ``i++``, a comma list)."""
        if self.tile_declaration(node):
            return
        if node.type == "comma_expression":
            for c in node.named_children:
                self.expression_statement(c)
            return
        if node.type == "call_expression":
            self.call(node, want_value=False)
            return
        if node.type == "assignment_expression":
            self.assignment(node)
            return
        if node.type == "update_expression":
            self.update(node, want_value=False)
            return
        self.rvalue(node)  # evaluated for its loads (which may fault) and discarded

    def condition(self, node: ts.Node) -> Val:
        if node.type == "condition_clause":
            value = node.child_by_field_name("value")
            if value is None or node.child_by_field_name("initializer") is not None:
                raise self.unsupported("declaration in a condition", node)
            node = value
        if node.type == "declaration":
            raise self.unsupported("declaration in a condition", node)
        return self.to_bool(self.rvalue(node), node)

    def if_statement(self, node: ts.Node) -> None:
        cond_node = node.child_by_field_name("condition")
        assert cond_node is not None
        if any(c.type == "constexpr" for c in node.children):
            self.if_constexpr(node, cond_node)
            return
        c = self.condition(cond_node)
        cons = node.child_by_field_name("consequence")
        assert cons is not None
        then_body = self.body(cons)
        alt = node.child_by_field_name("alternative")
        else_body: list[Stmt] = []
        if alt is not None:
            inner = alt.named_children[-1] if alt.type == "else_clause" else alt
            else_body = self.body(inner)
        self.emit(If(c.expr, tuple(then_body), tuple(else_body), self.span(node)))

    def if_constexpr(self, node: ts.Node, cond_node: ts.Node) -> None:
        """``if constexpr``: only the branch the constant condition selects is lowered (the other may be
        ill-formed for this instantiation, as C++ allows)."""
        value = cond_node.child_by_field_name("value") if cond_node.type == "condition_clause" else cond_node
        taken = fold_constant(self.tu, value, self.env, self.const_scope())
        if taken is None:
            raise self.unsupported("if constexpr condition", cond_node)
        branch = node.child_by_field_name("consequence" if taken else "alternative")
        if branch is None:
            return
        if branch.type == "else_clause":
            branch = branch.named_children[-1]
        self.out.extend(self.body(branch))

    def loop_cond(self, node: ts.Node | None) -> tuple[list[Stmt], Expr | None]:
        if node is None:
            return [], None
        with self.buffer() as pre:
            c = self.condition(node)
        return pre, c.expr

    def loop_body(self, loop: ts.Node) -> list[Stmt]:
        """The body of a loop statement, where ``break`` and ``continue`` are allowed."""
        body_node = loop.child_by_field_name("body")
        assert body_node is not None
        self.loops += 1
        try:
            return self.body(body_node)
        finally:
            self.loops -= 1

    @staticmethod
    def guarded(pre: list[Stmt], cond: Expr, body: list[Stmt]) -> list[Stmt]:
        """A loop body that first evaluates its condition (``pre`` computes it) and leaves when it is false."""
        guard = If(Unary(UnaryOp.NOT, cond, BOOL, cond.span), (Break(cond.span),), (), cond.span)
        return [*pre, guard, *body]

    def for_statement(self, node: ts.Node) -> None:
        unroll = self.take_unroll()
        with self.scope():
            init_node = node.child_by_field_name("initializer")
            with self.buffer() as init:
                if init_node is not None:
                    if init_node.type == "declaration":
                        self.declaration(init_node)
                    else:
                        self.expression_statement(init_node)
            pre, cond = self.loop_cond(node.child_by_field_name("condition"))
            step_nodes = node.children_by_field_name("update")
            with self.buffer() as step:
                for u in step_nodes:
                    self.expression_statement(u)
            body = self.loop_body(node)
            if pre:
                # The condition reads memory: evaluate it at the top of every iteration.
                assert cond is not None
                body = self.guarded(pre, cond, body)
                cond = None
            self.emit(For(tuple(init), cond, tuple(step), tuple(body), unroll, self.span(node)))

    def while_statement(self, node: ts.Node) -> None:
        unroll = self.take_unroll()
        cond_node = node.child_by_field_name("condition")
        pre, cond = self.loop_cond(cond_node)
        assert cond is not None
        body = self.loop_body(node)
        if pre or unroll is not None:
            if pre:
                body = self.guarded(pre, cond, body)
                self.emit(For((), None, (), tuple(body), unroll, self.span(node)))
            else:
                self.emit(For((), cond, (), tuple(body), unroll, self.span(node)))
            return
        self.emit(While(cond, tuple(body), self.span(node)))

    def do_statement(self, node: ts.Node) -> None:
        self.take_unroll()
        body = self.loop_body(node)
        cond_node = node.child_by_field_name("condition")
        pre, cond = self.loop_cond(cond_node)
        assert cond is not None
        if not pre:
            self.emit(DoWhile(tuple(body), cond, self.span(node)))
            return
        # The condition has side effects or reads memory: `for (go = true; go; pre, go = cond) body`,
        # whose step runs after the body and after `continue`, as a do-while condition does.
        span = self.span(node)
        go = self.fresh("do.cond")
        init = (Decl(go, BOOL, Const(True, BOOL, span), span),)
        step = (*pre, Assign(go, cond, span))
        self.emit(For(init, VarRef(go, BOOL, span), step, tuple(body), None, span))

    def return_statement(self, node: ts.Node) -> None:
        value_node = node.named_children[0] if node.named_children else None
        if value_node is None:
            if self.ret != VOID:
                raise self.type_error("return without a value in a function returning a value", node)
            self.out.extend(self.postconditions(None))
            self.emit(Return(None, self.span(node)))
            return
        if self.ret == VOID:
            raise self.type_error("return with a value in a void function", node)
        if value_node.type == "initializer_list":  # `return {a, b};`: a value of the return type
            v = self.brace_value(self.ret, value_node)
        else:
            v = self.convert(self.rvalue(value_node), self.ret, value_node)
        if any(node_text(c.child_by_field_name("function")) == "__ensures" for c in self.contract_calls()):
            if not isinstance(v.expr, VarRef | Const):  # each postcondition reads the value returned
                name = self.tmp(self.ret, node)
                self.emit(Assign(name, v.expr, self.span(node)))
                v = Val(VarRef(name, self.ret, self.span(node)), v.ctype)
            self.out.extend(self.postconditions(v))
        self.emit(Return(v.expr, self.span(node)))

    # -- local lambdas (see lowering.lambdas) ---------------------------------------------------------

    def define_lambda(self, node: ts.Node) -> Lambda:
        """The lambda ``node`` defines here: the names its body sees, with its by-value captures copied now."""
        spec = node.child_by_field_name("captures")
        body = node.child_by_field_name("body")
        if spec is None or body is None or body.type != "compound_statement":
            raise self.unsupported("lambda expression", node)
        captures = capture_list(spec)
        if captures.unsupported:
            raise self.unsupported("lambda capture", captures.unsupported[0])
        for ret in misplaced_returns(body):
            raise self.unsupported("return other than as the last statement of a lambda", ret)
        mutable = any(c.type == "lambda_specifier" and node_text(c) == "mutable" for c in self.lambda_parts(node))
        visible: dict[str, Binding] = {}  # what the body sees of the enclosing scopes, innermost last
        for s in self.scopes:
            visible.update(s)
        if captures.default is None:
            # only what is listed, and what needs no capture: constants, __shared__ and global memory
            listed = {node_text(n) for n in (*captures.by_reference, *captures.by_value)}
            visible = {k: b for k, b in visible.items() if k in listed or not self.needs_capture(b)}
        by_value = [(node_text(n), n) for n in captures.by_value]
        if captures.default == "=":
            by_ref_names = {node_text(n) for n in captures.by_reference}
            by_value += [(name, body) for name in free_identifiers(body) if name not in by_ref_names]
        copies: dict[str, Binding] = {}
        for name, where in by_value:
            b = visible.get(name)
            if b is None:
                if where is not body:
                    raise self.type_error(f"capture of {name}, which is not a local variable", where)
                continue  # a name the body declares itself, or one that is not a variable
            if name in copies or not self.needs_capture(b):
                continue
            if b.kind in ("group", "pun") or (b.kind == "lambda" and not self.lambdas[b.ir_name].mutable):
                continue  # a copy is the same value: a compile-time group or lambda, pointers that never change
            if b.kind != "var" or isinstance(b.ctype, CArray):
                raise self.unsupported(f"capture by value of {name} (a copy of a local other than a variable)", where)
            ir_name = self.fresh(name)
            span = self.span(where)
            self.emit(Decl(ir_name, b.ctype, VarRef(b.ir_name, b.ctype, span), span))
            copies[name] = Binding("var", ir_name, b.ctype, readonly=not mutable)
        for n in captures.by_reference:
            if node_text(n) not in visible:
                raise self.type_error(f"capture of {node_text(n)}, which is not a local variable", n)
        return Lambda(node, (visible, copies), mutable)

    def lambda_parts(self, node: ts.Node) -> list[ts.Node]:
        """The children of a lambda's declarator (parameters, specifiers, trailing return type)."""
        decl = node.child_by_field_name("declarator")
        return list(decl.children) if decl is not None else []

    @staticmethod
    def needs_capture(b: Binding) -> bool:
        """Whether a lambda must capture the name bound by ``b`` to use it (an automatic variable)."""
        if b.kind in ("const", "shared_scalar"):
            return False
        return not (b.kind == "alloc" and isinstance(b.ctype, CArray) and b.ctype.space is not AddressSpace.LOCAL)

    def declare_lambda(self, name_node: ts.Node, init: ts.Node) -> None:
        """``auto f = [...](...) { ... };``: bind ``f`` to the lambda (a compile-time value, no IR variable)."""
        lam = self.define_lambda(init)
        key = self.declare(node_text(name_node), "lambda", VOID, name_node)
        self.lambdas[key] = lam

    def lambda_call(self, lam: Lambda, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A call of a lambda: its body lowered here, the parameters bound to the arguments."""
        span = self.span(node)
        parts = self.lambda_parts(lam.node)
        plist = next((c for c in parts if c.type == "parameter_list"), None)
        params = [p for p in plist.named_children if p.type != "comment"] if plist is not None else []
        self.expect_args("lambda", arg_nodes, (len(params),), node)
        bound: list[tuple[str, ts.Node, CType, Val | VarLV, ts.Node, bool]] = []
        for p, a in zip(params, arg_nodes, strict=True):
            type_node, dnode = p.child_by_field_name("type"), p.child_by_field_name("declarator")
            if p.type != "parameter_declaration" or type_node is None or dnode is None:
                raise self.unsupported("lambda parameter", p)
            if type_node.type == "placeholder_type_specifier":
                raise self.unsupported("generic lambda parameter", p)
            const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in p.children)
            ctype, name_node, by_ref = self.apply_declarator(self.resolve_type(type_node, p), const, dnode, param=True)
            if isinstance(ctype, CArray):
                raise self.unsupported("array parameter of a lambda", p)
            if by_ref:
                lv = self.lvalue(a)
                if not isinstance(lv, VarLV) or lv.type != ctype or (lv.readonly and not const):
                    raise self.unsupported("reference argument of a lambda other than a local of its type", a)
                bound.append((node_text(name_node), name_node, ctype, lv, p, const))
            else:
                bound.append((node_text(name_node), name_node, ctype, self.rvalue(a), p, const))
        ret_node = next((c for c in parts if c.type == "trailing_return_type"), None)
        body = lam.node.child_by_field_name("body")
        assert body is not None
        stmts = [c for c in body.named_children if c.type != "comment"]
        final = stmts.pop() if stmts and stmts[-1].type == "return_statement" else None
        value_node = final.named_children[0] if final is not None and final.named_children else None
        saved = self.scopes, self.loops, self.pending_unroll
        self.scopes, self.loops, self.pending_unroll = [*(dict(s) for s in lam.scopes), {}], 0, None
        try:
            for name, name_node, ctype, arg, p, const in bound:
                if isinstance(arg, VarLV):  # a reference: the argument variable under the parameter's name
                    if name in self.scopes[-1]:
                        raise self.type_error(f"redeclaration of {name}", p)
                    self.scopes[-1][name] = Binding("var", arg.name, arg.type, readonly=arg.readonly or const)
                else:
                    assert not isinstance(ctype, CArray)
                    self.declare_var(name, ctype, arg, name_node, p, init_node=p, readonly=const)
            for s in stmts:  # (the body's block is the parameters' scope, as in C++)
                self.statement(s)
            result = self.rvalue(value_node) if value_node is not None else None
            if result is not None and ret_node is not None:
                descriptor = ret_node.named_children[0]
                type_node = descriptor.child_by_field_name("type") or descriptor
                result = self.convert(result, self.resolve_type(type_node, ret_node), value_node or node)
        finally:
            self.scopes, self.loops, self.pending_unroll = saved
        if result is None:
            return self.no_value("lambda", node) if want_value else None
        result = self.decay(result)
        if isinstance(result.ctype, CArray):
            raise self.unsupported("lambda returning an array", node)
        dst = self.tmp(result.ctype, node)
        self.emit(Assign(dst, result.expr, span))
        return Val(VarRef(dst, result.ctype, span), result.ctype)
