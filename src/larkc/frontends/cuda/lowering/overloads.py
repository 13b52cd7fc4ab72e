"""Calls of user functions: overload resolution, template argument deduction, default arguments.

Each candidate's template arguments are deduced from the argument types (for parameters declared as a
plain ``T``, possibly through pointers), its signature instantiated, and the cheapest implicit
conversion sequence chosen (C++'s ranks: exact, promotion, conversion; half-precision class types
last). A cooperative group argument selects the callee's instance instead of being passed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from typing import TypeVar

import tree_sitter as ts

from larkc.errors import LarkcError, UnsupportedError
from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.core import function_declarator
from larkc.frontends.cuda.lowering.values import LaneLV, LValue, MemLV, PunLV, Val, VarLV, declared_identifier
from larkc.frontends.cuda.sema.constants import fold_constant
from larkc.frontends.cuda.sema.ctypes import CArray, CType
from larkc.frontends.cuda.sema.groups import GROUP_PARAM, Group
from larkc.frontends.cuda.sema.unit import LOCAL_POINTER, MEMORY_REF, FunctionDef, TemplateArg, TemplateEnv
from larkc.frontends.cuda.syntax import node_text, takes_address, type_words
from larkc.ir.nodes import (
    Alloc,
    Assign,
    Atomic,
    Barrier,
    Call,
    Const,
    Expr,
    Fence,
    Function,
    FunctionKind,
    Load,
    Param,
    Shuffle,
    Store,
    VarRef,
    Vote,
)
from larkc.ir.types import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    VOID,
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from larkc.ir.values import convert_value
from larkc.ir.walk import walk_stmts


class Overloads(Conversions):
    """Overload resolution and template argument deduction for calls of user functions."""

    def tag_value(self, type_node: ts.Node | None, in_caller: bool) -> tuple[str, int] | None:
        """The value type and the value of a tag type (``std::true_type`` is ``("bool", 1)``,
        ``std::integral_constant<int, N>`` is ``("int", N)``); ``None`` if it depends on a template parameter
        of the callee (``in_caller`` false: then it accepts any tag)."""
        text = "".join(node_text(type_node).split()).removeprefix("::").removeprefix("std::")
        if text in ("true_type", "false_type"):
            return "bool", int(text == "true_type")
        args = _template_arguments(type_node)
        if not args:
            return None
        kind = "bool" if text.startswith("bool_constant") else node_text(args[0])
        env, consts = (self.env, self.const_scope()) if in_caller else ({}, {})
        try:
            value = fold_constant(self.tu, args[-1], env, consts)
        except LarkcError:
            value = None
        if not isinstance(value, int):
            if in_caller:
                raise self.unsupported("tag argument", type_node or args[-1])
            return None
        return kind, int(value)

    def takes_tags(self, fd: FunctionDef, tags: Sequence[tuple[str, int] | None]) -> bool:
        """Whether the unnamed tag parameters of ``fd`` accept tag arguments of values ``tags``."""
        plist = function_declarator(fd.node).child_by_field_name("parameters")
        params = [
            t
            for p in (plist.named_children if plist is not None else [])
            if p.child_by_field_name("declarator") is None
            and (t := p.child_by_field_name("type")) is not None
            and self.tu.is_tag_type(t)
        ]
        if len(params) != len(tags):
            return False
        for p, tag in zip(params, tags, strict=True):
            want = self.tag_value(p, False)
            if want is not None and want != tag:
                return False
        return True

    def user_call(
        self,
        name: str,
        targs: list[TemplateArg],
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
        want_value: bool,
        candidates: Sequence[FunctionDef] | None = None,
        fallback: Callable[[], Val | None] | None = None,
    ) -> Val | None:
        """A call of a user function: overload resolution, template deduction, then a :class:`Call`; among
        ``candidates`` when given (an explicit specialization of a template that is only declared). With
        no viable user function, ``fallback`` (the device library's function of that name: the samples'
        ``template <class T> T max(const T&, const T&)`` cannot take ``max(5.0e-37, t1)``, CUDA's
        ``max(double, float)`` does) when it knows the name; the arguments are then lowered by it alone."""
        candidates = self.tu.functions[name] if candidates is None else candidates
        if candidates[0].kind is FunctionKind.KERNEL:
            raise self.unsupported("call of a __global__ function from device code", node)
        # Cooperative groups are compile-time values: they select the callee's instance, not IR args.
        groups = [self.group_of(a) for a in arg_nodes]
        group_args = {i: g for i, g in enumerate(groups) if g is not None}
        arg_nodes = [a for i, a in enumerate(arg_nodes) if i not in group_args]
        # Tag values (`std::true_type{}`) carry no data: their unnamed parameters have no IR parameter,
        # and they only choose among the overloads (tag dispatch).
        tags = [self.tag_value(a.child_by_field_name("type"), True) for a in arg_nodes if self.tu.is_tag_value(a)]
        if tags:
            candidates = [fd for fd in candidates if self.takes_tags(fd, tags)] or candidates
            arg_nodes = [a for a in arg_nodes if not self.tu.is_tag_value(a)]
        with self.buffer() as lowered:
            resolved = self.resolve_call(name, targs, arg_nodes, group_args, node, candidates)
        if isinstance(resolved, LarkcError):
            if fallback is not None:
                try:
                    return fallback()
                except UnsupportedError:
                    pass
            raise resolved
        self.out.extend(lowered)
        fd, env, full = resolved
        memory = self.memory_references(fd, full, node) if not group_args and not tags else {}
        callee = self.tu.instantiate(fd, {**env, **{f"{MEMORY_REF}{i}": s for i, s in memory.items()}}, node)
        args: list[Expr] = []
        where = [*arg_nodes, *[node] * (len(full) - len(arg_nodes))]  # defaults are located at the call
        copies_back: list[Callable[[], None]] = []
        for i, (p, v, a) in enumerate(zip(callee.params, full, where, strict=True)):
            if i in memory and isinstance(v, MemLV):  # the reference is the address
                args.append(self.convert(Val(v.ptr, v.ptr.type), p.type, a).expr)
            elif p.by_ref:
                arg, back = self.bind_reference(p, v, callee, a)
                args.append(arg)
                copies_back += [back] if back is not None else []
            else:
                rv = v if isinstance(v, Val) else self.read(v, a)
                args.append(self.convert(rv, p.type, a).expr)
        return self.emit_call(callee, args, copies_back, name, node, want_value)

    def resolve_call(
        self,
        name: str,
        targs: list[TemplateArg],
        arg_nodes: Sequence[ts.Node],
        group_args: Mapping[int, Group],
        node: ts.Node,
        candidates: Sequence[FunctionDef],
    ) -> tuple[FunctionDef, TemplateEnv, list[LValue | Val]] | LarkcError:
        """The overload a call chooses, its template environment and its arguments (lowered here, lvalues
        until then: by-reference parameters bind to them; the defaults added); why none is viable as the
        error to raise; an ambiguous call raises."""
        args_lv: list[LValue | Val] = []
        local_pointers: set[int] = set()
        for i, a in enumerate(arg_nodes):
            place = self.local_place_of_address(a)
            if place is not None:  # `&packed[k]` for a pointer parameter: the caller's local itself
                args_lv.append(place)
                local_pointers.add(i)
                continue
            lv = self.lvalue(a)
            args_lv.append(self.decay(lv) if isinstance(lv, Val) else lv)
        arg_types = [lv.ctype if isinstance(lv, Val) else lv.type for lv in args_lv]
        viable: list[tuple[int, FunctionDef, TemplateEnv, list[LValue | Val]]] = []
        reasons: list[LarkcError] = []
        for fd in candidates:
            candidate = self.candidate(name, fd, targs, args_lv, group_args, node, local_pointers)
            if isinstance(candidate, LarkcError):
                reasons.append(candidate)
                continue
            env, params, full = candidate
            cost = self.overload_cost(params, full)
            if cost is None:
                reasons.append(self.mismatch(name, params, full, arg_nodes, node))
                continue
            viable.append((cost, fd, env, full))
        if not viable:
            if len(candidates) == 1 and reasons:
                return reasons[0]
            return self.type_error(
                f"no overload of {name} takes arguments ({', '.join(str(t) for t in arg_types)})", node
            )
        viable.sort(key=lambda b: b[0])
        tied = [v for v in viable if v[0] == viable[0][0]]
        plain = [v for v in tied if not v[1].template]  # (a `template <>` specialization has none)
        if len(tied) > 1 and len(plain) == 1:
            # C++ prefers a non-template function to a template instance that matches as well; a
            # `template <> float cuda_abs(float)` specialization is read as such a function, and where it
            # ties the primary template is instantiated for the same argument types
            tied = plain
        best = tied[0] if len(tied) == 1 else self.least_qualified_binding(tied, node)
        if best is None:
            raise self.type_error(f"ambiguous call of overloaded function {name}", node)
        _, fd, env, full = best
        return fd, env, full

    def emit_call(
        self,
        callee: Function,
        args: Sequence[Expr],
        copies_back: Sequence[Callable[[], None]],
        name: str,
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """The :class:`Call` of ``callee`` (``name`` in the source), then the copies back of by-reference
        arguments; its value."""
        span = self.span(node)
        dst = None if callee.ret == VOID else self.tmp(callee.ret, node)
        self.emit(Call(dst, callee.name, tuple(args), span))
        for back in copies_back:
            back()
        if dst is None:
            return None if not want_value else self.no_value(name, node)
        return Val(VarRef(dst, callee.ret, span), callee.ret)

    def bind_reference(
        self, p: Param, arg: LValue | Val, callee: Function, node: ts.Node
    ) -> tuple[Expr, Callable[[], None] | None]:
        """The IR argument for by-reference parameter ``p``: a local variable itself, or a temporary that
        holds an element of memory or a lane (read now), with the copy back to emit after the call.

        The IR passes only variables by reference (copied in at the call, out at its return). For a local
        lane that is C++'s meaning. For memory (``Comparator(s_key[pos], ...)`` in the CUDA samples' sorts)
        it is only when nothing else happens to memory during the call: the callee (and what it calls)
        must not access memory, synchronise or exchange values, so that its reads and writes of the
        reference, moved to the call's start and end, fall in the same interval between barriers. The
        copy back stores the element even if the callee left it unchanged: a write C++ may not do, which
        can only add race reports, never hide one (the element was read at the call).
        """
        span = self.span(node)
        if isinstance(arg, VarLV):
            if arg.type != p.type:
                raise self.type_error(f"reference parameter {p.name} of type {p.type} given a {arg.type}", node)
            if arg.readonly:
                raise self.type_error(f"reference parameter {p.name} bound to a const variable", node)
            return VarRef(arg.name, arg.type, span), None
        if isinstance(arg, Val):
            raise self.unsupported("reference argument that is not a local variable", node)
        if isinstance(arg, MemLV):
            if arg.const:
                raise self.type_error(f"reference parameter {p.name} bound to memory through a pointer to const", node)
            if not self.memory_free(callee):
                raise self.unsupported(
                    "reference argument in memory to a function that accesses memory or synchronises", node
                )
            where = self.tmp(arg.ptr.type, node)  # the address, fixed before the call changes any variable
            self.emit(Assign(where, arg.ptr, span))
            arg = MemLV(VarRef(where, arg.ptr.type, span), arg.type, arg.const)
        if arg.type != p.type:
            raise self.type_error(f"reference parameter {p.name} of type {p.type} given a {arg.type}", node)
        held = self.tmp(p.type, node)
        self.emit(Assign(held, self.read(arg, node).expr, span))
        place = arg

        def copy_back() -> None:
            self.write(place, Val(VarRef(held, p.type, span), p.type), node)

        return VarRef(held, p.type, span), copy_back

    def memory_references(self, fd: FunctionDef, args: Sequence[LValue | Val], node: ts.Node) -> dict[int, int]:
        """The reference parameters of ``fd`` bound to memory (``args``) whose address the body takes
        (``atomicExch(&all_threads_converged, 0)``): by argument index, the index of the memory's address
        space. Such a parameter is passed as that address, as C++ binds a reference, instead of a copy."""
        body = fd.node.child_by_field_name("body")
        params = self.parameter_nodes(fd.node)
        if body is None or len(params) != len(args):
            return {}
        out: dict[int, int] = {}
        for i, (p, v) in enumerate(zip(params, args, strict=True)):
            d = p.child_by_field_name("declarator")
            if not isinstance(v, MemLV) or v.const or d is None or d.type != "reference_declarator":
                continue  # (bound to const memory: bind_reference's type error)
            name = declared_identifier(d)
            pt = v.ptr.type
            if name is not None and isinstance(pt, PointerType) and takes_address(body, name):
                out[i] = list(AddressSpace).index(pt.space)
        return out

    def memory_free(self, fn: Function) -> bool:
        """Whether ``fn`` and the functions it calls touch no memory and do not synchronise or exchange
        values between threads (they only compute on their parameters and local variables)."""
        for s in walk_stmts(fn.body):
            match s:
                case Load() | Store() | Atomic() | Barrier() | Fence() | Shuffle() | Vote() | Alloc():
                    return False
                case Call(_, func, _):
                    callee = self.tu.lowered.get(func)
                    if callee is None or not self.memory_free(callee):
                        return False
                case _:
                    pass
        return True

    def local_place_of_address(self, node: ts.Node) -> LValue | None:
        """The local ``&x``, ``&v[k]`` or ``&v.x`` points at, for ``x``/``v`` a local scalar or vector
        variable (not an array, whose elements are memory); ``None`` for any other expression."""
        if node.type != "pointer_expression" or node_text(node.child_by_field_name("operator")) != "&":
            return None
        inner = node.child_by_field_name("argument")
        base = inner
        while base is not None and base.type in (
            "subscript_expression",
            "field_expression",
            "parenthesized_expression",
        ):
            base = (
                base.child_by_field_name("argument")
                if base.type != "parenthesized_expression"
                else base.named_children[0]
            )
        bound = self.lookup(node_text(base)) if base is not None and base.type == "identifier" else None
        if inner is None or bound is None or bound.kind != "var" or isinstance(bound.ctype, CArray):
            return None
        place = self.lvalue(inner)
        return place if isinstance(place, VarLV | LaneLV | PunLV) else None

    def least_qualified_binding(
        self, tied: Sequence[tuple[int, FunctionDef, TemplateEnv, list[LValue | Val]]], node: ts.Node
    ) -> tuple[int, FunctionDef, TemplateEnv, list[LValue | Val]] | None:
        """Among overloads that convert the arguments equally well, the one C++ prefers because it binds
        an lvalue argument by ``T&`` where the others bind it by ``const T&`` (llm.c's ``float& vec_at(float4&
        v, int)`` beside ``float vec_at(const float4& v, int)``); ``None`` when none is better than all."""

        def kinds(fd: FunctionDef, env: TemplateEnv) -> list[tuple[Type, str]]:
            params = self.tu.signature(fd, env)
            plist = function_declarator(fd.node).child_by_field_name("parameters")
            decls = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
            if len(decls) != len(params):
                return []
            out = []
            for p, d in zip(params, decls, strict=True):
                ref = d.child_by_field_name("declarator")
                const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in d.children)
                const_ref = const and ref is not None and ref.type == "reference_declarator"
                out.append((p.type, "ref" if p.by_ref else "const ref" if const_ref else "value"))
            return out

        def better(a: list[tuple[Type, str]], b: list[tuple[Type, str]], args: Sequence[LValue | Val]) -> bool:
            if not a or len(a) != len(b) or len(args) < len(a) or [t for t, _ in a] != [t for t, _ in b]:
                return False
            strict = False
            for (_, ka), (_, kb), arg in zip(a, b, args, strict=False):
                if ka == "ref" and kb == "const ref" and not isinstance(arg, Val):
                    strict = True
                elif ka != kb:
                    return False
            return strict

        shapes = [kinds(fd, env) for _, fd, env, _ in tied]
        for i, (shape, candidate) in enumerate(zip(shapes, tied, strict=True)):
            if all(better(shape, other, candidate[3]) for j, other in enumerate(shapes) if j != i):
                return candidate
        return None

    def candidate(
        self,
        name: str,
        fd: FunctionDef,
        targs: list[TemplateArg],
        args: list[LValue | Val],
        group_args: Mapping[int, Group],
        node: ts.Node,
        local_pointers: Set[int] = frozenset(),
    ) -> tuple[TemplateEnv, list[Param], list[LValue | Val]] | LarkcError:
        """The instance of overload ``fd`` a call with ``args`` would use (its template environment, its
        parameters, the arguments with the defaults added), or why ``fd`` cannot be called so; the
        arguments at ``local_pointers`` are the address of a caller's local (their pointer parameters
        take the local itself)."""
        env: TemplateEnv = {}
        if local_pointers and fd.template is not None:
            return self.unsupported("address of a local passed to a function template", node)
        if fd.template is not None:
            named = self.deduce(fd, targs, args, node, group_args)
            if isinstance(named, LarkcError):
                return named
            template = fd.template
            bound = _reason(lambda: self.tu.bind_template(template, targs, named, node, f"function {name}"))
            if isinstance(bound, LarkcError):
                return bound
            env = bound
        elif targs:
            return self.type_error(f"{name} is not a template", node)
        groups = self.group_bindings(fd, group_args, node)
        if isinstance(groups, LarkcError):
            return groups
        env = {**env, **groups, **{f"{LOCAL_POINTER}{i}": True for i in local_pointers}}
        params = _reason(lambda: self.tu.signature(fd, env))
        if isinstance(params, LarkcError):
            return params
        defaults = self.default_arguments(fd, env, params, len(args), node)
        if isinstance(defaults, LarkcError):
            return defaults
        return env, params, [*args, *defaults]

    def default_arguments(
        self, fd: FunctionDef, env: TemplateEnv, params: Sequence[Param], given: int, node: ts.Node
    ) -> list[Val] | LarkcError:
        """The values of the default arguments for parameters ``given`` onwards (constant expressions), or
        why one is not supported."""
        if given >= len(params):
            return []
        decl = function_declarator(fd.node)
        plist = decl.child_by_field_name("parameters")
        assert plist is not None
        nodes = [
            p for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")
        ]
        out: list[Val] = []
        span = self.span(node)
        for p, pn in list(zip(params, nodes, strict=False))[given:]:
            default = pn.child_by_field_name("default_value")
            if default is None:
                return []  # too few arguments: reported by the caller
            value = fold_constant(self.tu, default, env, {})
            if value is None or not isinstance(p.type, ScalarType):
                return self.unsupported("default argument that is not a constant", default)
            src = BOOL if isinstance(value, bool) else (I64 if isinstance(value, int) else F64)
            out.append(Val(Const(convert_value(value, src, p.type), p.type, span), p.type))
        return out

    def mismatch(
        self,
        name: str,
        params: Sequence[Param],
        args: Sequence[LValue | Val],
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
    ) -> LarkcError:
        """Why ``args`` do not fit ``params``."""
        if len(params) != len(args):
            return self.type_error(f"{name} takes {len(params)} arguments, got {len(args)}", node)
        for p, a, n in zip(params, args, arg_nodes, strict=True):
            if p.by_ref and isinstance(a, Val):
                return self.unsupported("reference argument that is not a local variable", n)
            t = a.ctype if isinstance(a, Val) else a.type
            if p.by_ref and t != p.type:
                return self.type_error(f"reference parameter {p.name} of type {p.type} given a {t}", n)
            if p.by_ref and isinstance(a, VarLV) and a.readonly:
                return self.type_error(f"reference parameter {p.name} bound to a const variable", n)
            if self.conversion_cost(t, p.type) is None:
                return self.type_error(f"argument of type {t} for parameter {p.name} of type {p.type}", n)
        return self.type_error(f"no matching call of {name}", node)

    def group_bindings(
        self, fd: FunctionDef, group_args: Mapping[int, Group], node: ts.Node
    ) -> TemplateEnv | LarkcError:
        """Bind the callee's cooperative group parameters to the groups the call passes, or say why not."""
        plist = function_declarator(fd.node).child_by_field_name("parameters")
        params = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
        type_params = {tp.name for tp in fd.template or () if tp.is_type}
        wanted = {
            i: declared_identifier(p.child_by_field_name("declarator"))
            for i, p in enumerate(params)
            if (t := p.child_by_field_name("type")) is not None
            and (self.is_group_type(t) or (i in group_args and type_words(t) in type_params))
        }
        if set(wanted) != set(group_args):
            return self.type_error(f"cooperative group arguments do not match the parameters of {fd.name}", node)
        return {GROUP_PARAM + str(wanted[i]): g for i, g in group_args.items()}

    @staticmethod
    def conversion_cost(src: CType, dst: Type) -> int | None:
        """C++-like rank of the implicit conversion of ``src`` to ``dst``: 0 exact, 1 promotion,
        2 standard conversion, 3 through a half-precision class type; ``None`` if there is none."""
        if isinstance(src, CArray):
            src = src.pointer
        if src == dst:
            return 0
        if isinstance(src, PointerType) and isinstance(dst, PointerType):
            if src.pointee != dst.pointee and not isinstance(dst.pointee, VoidType):
                return None
            if src.const and not dst.const:
                return None
            if dst.space not in (AddressSpace.GENERIC, src.space):
                return None
            return 0 if src.const == dst.const else 1
        if isinstance(src, ScalarType) and isinstance(dst, ScalarType):
            if src.kind.value in ("f16", "bf16") or dst.kind.value in ("f16", "bf16") or src.is_fp8 or dst.is_fp8:
                return 3
            if (src.is_int or src.is_bool) and dst == I32 and src.bits < 32:
                return 1
            if src == F32 and dst == F64:
                return 1
            return 2
        if isinstance(src, VectorType) and isinstance(dst, VectorType):
            return 0 if (src.elem, src.lanes) == (dst.elem, dst.lanes) else None
        return None

    def overload_cost(self, params: Sequence[Param], args: Sequence[LValue | Val]) -> int | None:
        if len(params) != len(args):
            return None
        total = 0
        for p, a in zip(params, args, strict=True):
            if p.by_ref:
                if isinstance(a, Val) or a.type != p.type or (isinstance(a, VarLV) and a.readonly):
                    return None
                continue
            cost = self.conversion_cost(a.ctype if isinstance(a, Val) else a.type, p.type)
            if cost is None:
                return None
            total += cost
        return total

    def deduce(
        self,
        fd: FunctionDef,
        targs: list[TemplateArg],
        vals: Sequence[Val | LValue],
        node: ts.Node,
        group_args: Mapping[int, Group] | None = None,
    ) -> dict[str, TemplateArg] | LarkcError:
        """Template argument deduction from argument types, for parameters declared as plain ``T``; or
        why it fails. ``group_args`` are the cooperative groups passed, by argument position (not in
        ``vals``): a parameter ``Group& g`` of a template type parameter binds ``Group`` to the group
        itself (the samples' ``cg_reduce_n(T in, Group& threads)``)."""
        groups = group_args or {}
        assert fd.template is not None
        explicit = {p.name for p in fd.template[: len(targs)]}
        type_params = {p.name for p in fd.template if p.is_type} - explicit
        if not type_params and not group_args:
            return {}
        decl = function_declarator(fd.node)
        plist = decl.child_by_field_name("parameters")
        assert plist is not None
        out: dict[str, TemplateArg] = {}
        params = [
            p for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")
        ]
        rest = iter(vals)
        for i, p in enumerate(params):
            tnode = p.child_by_field_name("type")
            d = p.child_by_field_name("declarator")
            words = type_words(tnode) if tnode is not None else ""
            if i in groups:
                if words in explicit:  # `f<int, float>(v, tile)` for `Group& g`
                    return self.type_error(f"a {groups[i]} group passed where the type is {words}", node)
                if words in type_params:
                    if words in out and out[words] != groups[i]:
                        return self.type_error(f"conflicting deductions for {words}", node)
                    out[words] = groups[i]
                continue
            v = next(rest, None)
            if v is None:
                break
            if tnode is None or words not in type_params:
                continue
            vt = v.ctype if isinstance(v, Val) else v.type
            pointers = 0
            while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
                if d.type == "pointer_declarator":
                    pointers += 1
                d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
            for _ in range(pointers):
                if isinstance(vt, CArray):
                    vt = vt.pointer
                if not isinstance(vt, PointerType):
                    return self.type_error(f"cannot deduce {words} from {vt}", node)
                vt = vt.pointee
            if isinstance(vt, CArray):
                return self.type_error(f"cannot deduce {words} from an array", node)
            if words in out and out[words] != vt:
                return self.type_error(f"conflicting deductions for {words}: {out[words]} and {vt}", node)
            out[words] = vt
        missing = type_params - set(out) - {p.name for p in fd.template if p.default is not None}
        if missing:
            return self.type_error(f"cannot deduce template parameter {', '.join(sorted(missing))} of {fd.name}", node)
        return out


_T = TypeVar("_T")


def _reason(attempt: Callable[[], _T]) -> _T | LarkcError:
    """``attempt()``, or the error it raises as the reason a candidate does not fit: the translation
    unit's ``bind_template`` and ``signature`` report a mismatch only by raising."""
    try:
        return attempt()
    except LarkcError as e:
        return e


def _template_arguments(type_node: ts.Node | None) -> list[ts.Node]:
    """The template arguments of ``ns::name<args>`` (empty if it has none)."""
    node = type_node
    while node is not None and node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    args = node.child_by_field_name("arguments") if node is not None and node.type == "template_type" else None
    return list(args.named_children) if args is not None else []
