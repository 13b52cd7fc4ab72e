"""Lowering of CUDA function bodies (a tree-sitter-cuda parse of preprocessed text) into the kernel IR.

A :class:`~larkc.frontends.cuda.unit.TranslationUnit` holds a file's declarations and asks
:class:`FunctionLowering` for each function it instantiates (a kernel with its template arguments,
then every device function it calls, each template instance and overload once).
:class:`FunctionLowering` turns one function body into IR statements:

* expressions are lowered to pure IR expressions; every memory read becomes a :class:`Load` into a fresh
  temporary emitted before the statement that needs it, so C's side effects happen in program order;
* operands are converted by C's rules (integer promotion, usual arithmetic conversions, CUDA's
  half-precision overloads), made explicit as :class:`Cast` nodes; conversions of literals are folded;
* ``&&``, ``||`` and ``?:`` whose right-hand side reads memory become ``if`` statements, preserving C's
  short-circuit evaluation (a guarded load is never executed when its guard is false);
* names are made unique per function (a shadowing declaration of ``i`` becomes ``i.1``).

Anything outside the supported subset raises :class:`UnsupportedError` with the span of the construct.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import tree_sitter as ts

from larkc.errors import LarkcError, Span, Stage, TypeCheckError, UnsupportedError
from larkc.frontends.cuda import builtins as lib
from larkc.frontends.cuda.constants import fold_binary, fold_constant, parse_number
from larkc.frontends.cuda.ctypes import (
    BUILTIN_TYPES,
    CArray,
    CType,
    StructInfo,
    arithmetic_result,
    integer_promote,
    vector,
)
from larkc.frontends.cuda.groups import GROUP_PARAM, REDUCE_OPS, Group
from larkc.frontends.cuda.syntax import node_text, type_words
from larkc.frontends.cuda.unit import (
    FunctionDef,
    FunctionRef,
    TemplateArg,
    TemplateEnv,
    TranslationUnit,
    is_type_arg,
)
from larkc.ir.nodes import (
    Alloc,
    Assert,
    Assign,
    Atomic,
    AtomicOp,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Break,
    Builtin,
    BuiltinReg,
    Call,
    Cast,
    CastKind,
    Const,
    Continue,
    Decl,
    Dim,
    DoWhile,
    Expr,
    Extract,
    Fence,
    FenceScope,
    For,
    Function,
    FunctionKind,
    If,
    Insert,
    Level,
    Load,
    MakeVector,
    MathCall,
    MathFn,
    Param,
    PtrAdd,
    Return,
    Select,
    Shuffle,
    ShuffleKind,
    Stmt,
    Store,
    Unary,
    UnaryOp,
    VarRef,
    Vote,
    VoteKind,
    While,
)
from larkc.ir.types import (
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    U32,
    U64,
    VOID,
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    size_of,
)
from larkc.ir.values import convert_value, wrap_int

__all__ = ["FunctionLowering"]


# --------------------------------------------------------------------------------------------------
# Values and lvalues of expressions inside a function


@dataclass(frozen=True, slots=True)
class Val:
    """A lowered rvalue: a pure IR expression and its C type (arrays keep their dimensions)."""

    expr: Expr
    ctype: CType


@dataclass(frozen=True, slots=True)
class VarLV:
    name: str
    type: Type


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


LValue = VarLV | MemLV | LaneLV


@dataclass(slots=True)
class Binding:
    """What a C name means in a scope."""

    kind: str  # "var" | "alloc" | "const" | "shared_scalar" (a __shared__ variable) | "group"
    ir_name: str
    ctype: CType
    value: bool | int | float | None = None
    group: Group | None = None  # a cooperative group (no IR variable)


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
_SHUFFLES = {
    "__shfl_sync": ShuffleKind.IDX,
    "__shfl_up_sync": ShuffleKind.UP,
    "__shfl_down_sync": ShuffleKind.DOWN,
    "__shfl_xor_sync": ShuffleKind.XOR,
}
_VOTES = {"__any_sync": VoteKind.ANY, "__all_sync": VoteKind.ALL, "__ballot_sync": VoteKind.BALLOT}
_ATOMICS = {
    "atomicAdd": AtomicOp.ADD,
    "atomicSub": AtomicOp.SUB,
    "atomicMin": AtomicOp.MIN,
    "atomicMax": AtomicOp.MAX,
    "atomicExch": AtomicOp.EXCH,
    "atomicCAS": AtomicOp.CAS,
    "atomicAnd": AtomicOp.AND,
    "atomicOr": AtomicOp.OR,
    "atomicXor": AtomicOp.XOR,
}
for _scope_suffix in ("_block", "_system"):
    for _n, _op in list(_ATOMICS.items()):
        _ATOMICS[_n + _scope_suffix] = _op
#: `__reduce_<op>_sync(mask, v)` (integers, sm_80): the binary operator each combines with.
_WARP_REDUCES = {
    "__reduce_add_sync": "+",
    "__reduce_min_sync": "min",
    "__reduce_max_sync": "max",
    "__reduce_and_sync": "&",
    "__reduce_or_sync": "|",
    "__reduce_xor_sync": "^",
}
_LOADS = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"}
_STORES = {"__stwb", "__stcg", "__stcs", "__stwt"}
_FULL_MASK = 0xFFFFFFFF
_SHUFFLE_TYPES = {"i32", "u32", "i64", "u64", "f32", "f64", "f16", "bf16"}


class FunctionLowering:
    """Lowers one function body (a kernel or a device function instance) to IR."""

    def __init__(self, tu: TranslationUnit, fd: FunctionDef, env: TemplateEnv, ir_name: str) -> None:
        self.tu = tu
        self.fd = fd
        self.env = env
        self.ir_name = ir_name
        self.scopes: list[dict[str, Binding]] = [{}]
        self.used: set[str] = set()
        self.out: list[Stmt] = []
        self.loops = 0
        self.tmp_counter = 0
        self.pending_unroll: int | None = None
        self.ret: Type = VOID
        self.is_kernel = fd.kind is FunctionKind.KERNEL
        self.group_params: dict[str, Group] = {}  # cooperative group parameters of this instance

    # -- helpers ------------------------------------------------------------------------------------

    def span(self, node: ts.Node) -> Span:
        return self.tu.span(node)

    def unsupported(self, what: str, node: ts.Node) -> UnsupportedError:
        return UnsupportedError(what, node_text(node), self.span(node))

    def type_error(self, message: str, node: ts.Node) -> TypeCheckError:
        return TypeCheckError(message, self.span(node), stage=Stage.FRONTEND)

    def fresh(self, base: str) -> str:
        name = base
        n = 0
        while name in self.used:
            n += 1
            name = f"{base}.{n}"
        self.used.add(name)
        return name

    def tmp(self, t: Type, node: ts.Node) -> str:
        """Declare a fresh temporary of type ``t`` and return its name."""
        while f"tmp.{self.tmp_counter}" in self.used:
            self.tmp_counter += 1
        name = f"tmp.{self.tmp_counter}"
        self.used.add(name)
        self.emit(Decl(name, t, None, self.span(node)))
        return name

    def emit(self, s: Stmt) -> None:
        self.out.append(s)

    @contextlib.contextmanager
    def buffer(self) -> Iterator[list[Stmt]]:
        saved = self.out
        self.out = []
        try:
            yield self.out
        finally:
            self.out = saved

    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    def lookup(self, name: str) -> Binding | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    def declare(
        self, c_name: str, kind: str, ctype: CType, node: ts.Node, value: bool | int | float | None = None
    ) -> str:
        if c_name in self.scopes[-1]:
            raise self.type_error(f"redeclaration of {c_name}", node)
        ir_name = self.fresh(c_name) if kind != "const" else c_name
        self.scopes[-1][c_name] = Binding(kind, ir_name, ctype, value)
        return ir_name

    def resolve_type(self, type_node: ts.Node, ctx: ts.Node) -> Type:
        words = type_words(type_node)
        bound = self.env.get(words)
        if bound is not None and is_type_arg(bound):
            return bound
        return self.tu.resolve_type(type_node, self.env, ctx)

    # -- function -----------------------------------------------------------------------------------

    def function_declarator(self) -> ts.Node:
        decl = self.fd.node.child_by_field_name("declarator")
        while decl is not None and decl.type not in ("function_declarator", "abstract_function_declarator"):
            decl = decl.child_by_field_name("declarator") or (decl.named_children[-1] if decl.named_children else None)
        assert decl is not None
        return decl

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
        while decl.type in ("pointer_declarator", "reference_declarator", "abstract_pointer_declarator"):
            if decl.type in ("pointer_declarator", "abstract_pointer_declarator"):
                ret = PointerType(ret, AddressSpace.GENERIC)
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
        max_threads = None
        for c in node.named_children:
            if c.type == "launch_bounds":
                args = [a for a in c.named_children if a.type not in ("comment",)]
                if args:
                    v = fold_constant(self.tu, args[0], self.env, self.const_scope())
                    if not isinstance(v, int) or v <= 0:
                        raise self.unsupported("__launch_bounds__ argument", c)
                    max_threads = v
        body = node.child_by_field_name("body")
        assert body is not None
        with self.scope():
            for p in params:
                self.scopes[0][p.name] = Binding("var", p.name, p.type)
            for gname, group in self.group_params.items():
                self.scopes[0][gname] = Binding("group", gname, U32, None, group)
            stmts = self.compound(body, new_scope=False)
        kind = FunctionKind.KERNEL if self.is_kernel else FunctionKind.DEVICE
        return Function(self.ir_name, kind, Level.THREAD, tuple(params), ret, tuple(stmts), max_threads, span)

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
                gname = _declared_identifier(p.child_by_field_name("declarator"))
                if gname is None:
                    raise self.unsupported("cooperative group parameter", p)
                bound = self.env.get(GROUP_PARAM + gname)
                if isinstance(bound, Group):
                    self.group_params[gname] = bound
                continue
            base = self.resolve_type(type_node, p)
            if base == VOID and p.child_by_field_name("declarator") is None:
                continue  # f(void)
            const = any(node_text(c) == "const" for c in p.named_children if c.type == "type_qualifier")
            d = p.child_by_field_name("declarator")
            if d is None:
                raise self.unsupported("unnamed parameter", p)
            t, name_node, by_ref = self.apply_declarator(base, const, d, param=True)
            if isinstance(t, CArray):
                t = PointerType(t.elem, AddressSpace.GENERIC, const)
            t = self.param_space(t)
            name = node_text(name_node)
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
            params.append(Param(name, t, by_ref, self.span(p)))
        return params

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
            elif d.type == "parenthesized_declarator":
                raise self.unsupported("parenthesized declarator", d)
            else:
                raise self.unsupported("declarator", d)
        if dims:
            if any(x is None for x in dims[1:]):
                raise self.unsupported("array with an unknown inner dimension", d)
            return CArray(t, tuple(dims), AddressSpace.LOCAL), d, by_ref
        return t, d, by_ref

    def const_scope(self) -> dict[str, bool | int | float]:
        out: dict[str, bool | int | float] = {}
        for s in self.scopes:
            for k, b in s.items():
                if b.kind == "const" and b.value is not None:
                    out[k] = b.value
        return out

    # -- statements ---------------------------------------------------------------------------------

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
                self.env = {**self.env, name: self.resolve_type(type_node, node)}
            case "static_assert_declaration":
                pass
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

    def local_typedef(self, node: ts.Node) -> None:
        type_node = node.child_by_field_name("type")
        assert type_node is not None
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
        if self.is_group_type(type_node) or (is_auto and self.declares_groups(node)):
            for d in node.children_by_field_name("declarator"):
                target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                if target is None or target.type != "identifier":
                    raise self.unsupported("cooperative group declaration", d)
                self.declare_group(target, d.child_by_field_name("value"), d)
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
                if init is None or dnode.type != "identifier":
                    raise self.unsupported("auto declaration", d)
                v = self.rvalue(init)
                if isinstance(v.ctype, CArray):
                    raise self.unsupported("auto array", d)
                ctype: CType = v.ctype
                name_node = dnode
                self.declare_var(node_text(name_node), ctype, v, name_node, d, const="constexpr" in specs)
                continue
            assert base is not None
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
            if init is not None and init.type in ("initializer_list", "argument_list"):
                value = self.brace_init(ctype, init)
            elif init is not None:
                value = self.rvalue(init)
            else:
                value = None
            is_constexpr = "constexpr" in specs or (const and isinstance(ctype, ScalarType))
            self.declare_var(name, ctype, value, name_node, d, const=is_constexpr, init_node=init)

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
    ) -> None:
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
        ir_name = self.declare(name, "var", t, name_node)
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
            raise self.unsupported("array sized by its initializer", node)
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
            items = init.named_children
            assert count is not None
            if len(items) > count:
                raise self.type_error("too many initializers for array", init)
            if any(i.type == "initializer_list" for i in items):
                raise self.unsupported("nested array initializer", init)
            ptr = VarRef(ir_name, arr.pointer, self.span(node))
            values = [self.rvalue(i) for i in items]
            # C zero-fills the elements without an initializer.
            zero = Val(_zero(ctype.elem, self.span(init)), ctype.elem) if isinstance(ctype.elem, ScalarType) else None
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
        items = init.named_children
        if isinstance(t, ScalarType):
            if len(items) > 1:
                raise self.type_error("too many initializers for a scalar", init)
            return self.convert(self.rvalue(items[0]), t, init) if items else Val(_zero(t, self.span(init)), t)
        if isinstance(t, VectorType):
            if len(items) > t.lanes:
                raise self.type_error(f"too many initializers for {t}", init)
            lanes = [self.convert(self.rvalue(i), t.elem, i).expr for i in items]
            lanes += [_zero(t.elem, self.span(init)) for _ in range(t.lanes - len(lanes))]
            return Val(MakeVector(tuple(lanes), t, self.span(init)), t)
        raise self.unsupported("brace initializer", init)

    def expression_statement(self, node: ts.Node) -> None:
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
            body_node = node.child_by_field_name("body")
            assert body_node is not None
            self.loops += 1
            try:
                body = self.body(body_node)
            finally:
                self.loops -= 1
            if pre:
                # The condition reads memory: evaluate it at the top of every iteration.
                assert cond is not None
                guard = If(Unary(UnaryOp.NOT, cond, BOOL, cond.span), (Break(cond.span),), (), cond.span)
                body = [*pre, guard, *body]
                cond = None
            self.emit(For(tuple(init), cond, tuple(step), tuple(body), unroll, self.span(node)))

    def while_statement(self, node: ts.Node) -> None:
        unroll = self.take_unroll()
        cond_node = node.child_by_field_name("condition")
        pre, cond = self.loop_cond(cond_node)
        assert cond is not None
        body_node = node.child_by_field_name("body")
        assert body_node is not None
        self.loops += 1
        try:
            body = self.body(body_node)
        finally:
            self.loops -= 1
        if pre or unroll is not None:
            if pre:
                guard = If(Unary(UnaryOp.NOT, cond, BOOL, cond.span), (Break(cond.span),), (), cond.span)
                body = [*pre, guard, *body]
                self.emit(For((), None, (), tuple(body), unroll, self.span(node)))
            else:
                self.emit(For((), cond, (), tuple(body), unroll, self.span(node)))
            return
        self.emit(While(cond, tuple(body), self.span(node)))

    def do_statement(self, node: ts.Node) -> None:
        self.take_unroll()
        body_node = node.child_by_field_name("body")
        assert body_node is not None
        self.loops += 1
        try:
            body = self.body(body_node)
        finally:
            self.loops -= 1
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
            self.emit(Return(None, self.span(node)))
            return
        if self.ret == VOID:
            raise self.type_error("return with a value in a void function", node)
        v = self.convert(self.rvalue(value_node), self.ret, value_node)
        self.emit(Return(v.expr, self.span(node)))

    # -- conversions --------------------------------------------------------------------------------

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
        if isinstance(t, PointerType) and _is_null_constant(v):
            return Val(_null(t, span), t)
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
            zero = _zero(v.ctype, self.span(node))
            return Val(Binary(BinaryOp.NE, v.expr, zero, BOOL, self.span(node)), BOOL)
        if isinstance(v.ctype, PointerType):
            span = self.span(node)
            return Val(Binary(BinaryOp.NE, v.expr, _null(v.ctype, span), BOOL, span), BOOL)
        raise self.type_error(f"{v.ctype} used as a truth value", node)

    def scalar(self, v: Val, node: ts.Node) -> tuple[Expr, ScalarType]:
        v = self.decay(v)
        if not isinstance(v.ctype, ScalarType):
            raise self.type_error(f"expected a scalar, got {v.ctype}", node)
        return v.expr, v.ctype

    # -- expressions --------------------------------------------------------------------------------

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
                body = node_text(node)[1:-1]
                if len(body) != 1:
                    raise self.unsupported("character literal", node)
                return Val(Const(ord(body), I32, span), I32)
            case "parenthesized_expression":
                return self.rvalue(node.named_children[0])
            case "identifier":
                return self.identifier(node)
            case "qualified_identifier":
                return self.qualified(node)
            case "field_expression" | "subscript_expression" | "pointer_expression" if not (
                t == "pointer_expression" and node_text(node.child_by_field_name("operator")) == "&"
            ):
                lv = self.lvalue(node)
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
                raise self.unsupported("initializer list here", node)
            case "string_literal" | "concatenated_string":
                raise self.unsupported("string literal", node)
            case "null" | "nullptr":
                return Val(_null(_VOID_PTR, span), _VOID_PTR)
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
        try:
            self.resolve_type(tnode, node)
            return None  # a real cast
        except LarkcError:
            pass
        x = self.tu.reparse_expression(tnode)
        arg = vnode.child_by_field_name("argument")
        if x is None or arg is None:
            return None
        if not _lookalike_keeps_grouping(node, op):
            # tree-sitter grouped the pieces around the "cast" differently from C's precedence
            raise self.unsupported("expression tree-sitter misreads as a cast (add parentheses)", node)
        return self.apply_binary(op, self.rvalue(x), self.rvalue(arg), node)

    # -- member functions ----------------------------------------------------------------------------

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

    def check_subscript_operator(self, vt: VectorType, node: ts.Node) -> None:
        """``p[i]`` on a struct value is lane ``i``: true of the ``operator[]`` packed types define
        (``return payload[i];`` over a member array that is the whole struct); anything else is rejected."""
        info = self.struct_of(vt, "operator[]")
        if info is None:
            return
        for m in info.methods["operator[]"]:
            body = m.child_by_field_name("body")
            stmts = [c for c in body.named_children if c.type != "comment"] if body is not None else []
            ret = stmts[0].named_children[0] if len(stmts) == 1 and stmts[0].type == "return_statement" else None
            array = (
                ret.child_by_field_name("argument") if ret is not None and ret.type == "subscript_expression" else None
            )
            field = info.fields.get(node_text(array)) if array is not None else None
            index = ret.child_by_field_name("indices") if ret is not None else None
            index_text = "".join(node_text(index).split()).strip("[]") if index is not None else None
            lowering = FunctionLowering(self.tu, FunctionDef("operator[]", m, FunctionKind.DEVICE, None), {}, "")
            plist = lowering.function_declarator().child_by_field_name("parameters")
            declared = [p.child_by_field_name("declarator") for p in plist.named_children] if plist else []
            if field != (0, vt.lanes, True) or [_declared_identifier(d) for d in declared] != [index_text]:
                raise self.unsupported("operator[] other than `return member_array[i];`", node)

    def struct_of(self, vt: Type, method: str) -> StructInfo | None:
        """The struct (laid out as ``vt``) that has member function ``method``."""
        if not isinstance(vt, VectorType):
            return None
        return next((i for i in self.tu.vector_fields.get(vt, []) if method in i.methods), None)

    def method_def(self, info: StructInfo, method: str, arity: int, node: ts.Node) -> FunctionDef:
        """The definition of member function ``method`` of ``info`` taking ``arity`` arguments."""
        for m in info.methods.get(method, []):
            decl = FunctionLowering(self.tu, FunctionDef(method, m, FunctionKind.DEVICE, None), {}, method)
            plist = decl.function_declarator().child_by_field_name("parameters")
            params = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
            if len(params) != arity or m.child_by_field_name("body") is None:
                continue
            static = "static" in {node_text(c) for c in m.named_children if c.type == "storage_class_specifier"}
            return FunctionDef(
                f"{info.name}{_struct_args(info)}::{method}",
                m,
                FunctionKind.DEVICE,
                None,
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
    ) -> Val | None:
        """A call of a member function (``obj.m(args)``, ``S::m(args)``, or ``m(args)`` in a method)."""
        span = self.span(node)
        fd = self.method_def(info, method, len(arg_nodes), node)
        callee = self.tu.instantiate(fd, info.env, node)  # type: ignore[arg-type]  # env holds types
        args: list[Expr] = []
        value_params = list(callee.params)
        if not fd.static_method:
            if this is None:
                assert obj_node is not None
                this = self.lvalue(obj_node)
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
        for p, a in zip(value_params, arg_nodes, strict=True):
            if p.by_ref:
                lv = self.lvalue(a)
                if not isinstance(lv, VarLV) or lv.type != p.type:
                    raise self.unsupported("reference argument that is not a local variable", a)
                args.append(VarRef(lv.name, lv.type, self.span(a)))
            else:
                args.append(self.convert(self.rvalue(a), p.type, a).expr)
        if callee.ret == VOID:
            self.emit(Call(None, callee.name, tuple(args), span))
            return None if not want_value else self.no_value(method, node)
        dst = self.tmp(callee.ret, node)
        self.emit(Call(dst, callee.name, tuple(args), span))
        return Val(VarRef(dst, callee.ret, span), callee.ret)

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
            lanes += [_zero(info.vector.elem, span) for _ in range(info.vector.lanes - len(lanes))]
            self.emit(Assign(tmp, MakeVector(tuple(lanes), info.vector, span), span))
        else:
            self.method_call(None, info, base, arg_nodes, node, False, VarLV(tmp, info.vector))
        return Val(VarRef(tmp, info.vector, span), info.vector)

    def memcpy(self, arg_nodes: Sequence[ts.Node], node: ts.Node) -> None:
        """``memcpy(&a, &b, sizeof(a))`` between two whole values of equal size: a reinterpretation."""
        self.expect_args("memcpy", arg_nodes, (3,), node)
        dst_node, src_node, n_node = arg_nodes
        places: list[LValue | Val] = []
        for a in (dst_node, src_node):
            if a.type != "pointer_expression" or node_text(a.child_by_field_name("operator")) != "&":
                raise self.unsupported("memcpy other than between two whole variables (&a, &b)", a)
            target = a.child_by_field_name("argument")
            assert target is not None
            places.append(self.lvalue(target))
        dst, src = places
        if not isinstance(dst, VarLV):
            raise self.unsupported("memcpy into something other than a local variable", dst_node)
        src_val = src if isinstance(src, Val) else self.read(src, src_node)
        src_t = src_val.ctype
        n = fold_constant(self.tu, n_node, self.env, self.const_scope())
        if n is None:
            n = self.sizeof_value(n_node) if n_node.type == "sizeof_expression" else None
        if isinstance(src_t, CArray) or not isinstance(n, int) or n != size_of(dst.type) or n != size_of(src_t):
            raise self.unsupported("memcpy whose size is not the size of both variables", node)
        value = src_val.expr if src_t == dst.type else Cast(src_val.expr, dst.type, CastKind.BITCAST, self.span(node))
        self.emit(Assign(dst.name, value, self.span(node)))

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
            if b.kind == "shared_scalar":
                assert not isinstance(b.ctype, CArray)
                ptr = VarRef(b.ir_name, PointerType(b.ctype, AddressSpace.SHARED), span)
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
        raise self.type_error(f"use of undeclared identifier {name}", node)

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
        info = self.tu.struct_info(scope, self.env, node) if scope is not None else None
        member = node_text(node.child_by_field_name("name"))
        if info is not None and member in info.constants:
            ct, cv = info.constants[member]
            return Val(Const(cv, ct, self.span(node)), ct)
        raise self.unsupported("qualified name", node)

    def read(self, lv: LValue, node: ts.Node) -> Val:
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
            case _:
                raise AssertionError(lv)

    def write(self, lv: LValue, v: Val, node: ts.Node) -> Val:
        """Store ``v`` (already of the lvalue's type) and return the stored value."""
        span = self.span(node)
        match lv:
            case VarLV(name, t):
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
                return VarLV(b.ir_name, b.ctype)
            if b is not None and b.kind == "shared_scalar":
                assert not isinstance(b.ctype, CArray)
                return MemLV(VarRef(b.ir_name, PointerType(b.ctype, AddressSpace.SHARED), span), b.ctype, False)
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
            base = self.lvalue(base_node)
            if isinstance(base, LaneLV | MemLV | VarLV):
                base_val = self.read(base, base_node)
            else:
                base_val = base
            if isinstance(base_val.ctype, VectorType):
                self.check_subscript_operator(base_val.ctype, node)
                return self.vector_lane(base, base_val, idx_nodes[0], node)
            idx_e, idx_t = self.scalar(self.rvalue(idx_nodes[0]), idx_nodes[0])
            if not idx_t.is_int and not idx_t.is_bool:
                raise self.type_error(f"array subscript is not an integer ({idx_t})", idx_nodes[0])
            if idx_t.is_bool:
                idx_e, idx_t = self.cast_scalar(idx_e, idx_t, I32, span), I32
            ct = base_val.ctype
            if isinstance(ct, CArray):
                ptr_t = ct.pointer
                if len(ct.dims) > 1:
                    row = ct.row_size()
                    off = self.mul_index(idx_e, idx_t, row, span)
                    sub = CArray(ct.elem, ct.dims[1:], ct.space)
                    return Val(PtrAdd(base_val.expr, off, ptr_t, span), sub)
                return MemLV(PtrAdd(base_val.expr, idx_e, ptr_t, span), ct.elem, False)
            if isinstance(ct, PointerType):
                if isinstance(ct.pointee, VoidType):
                    raise self.type_error("subscript of a void pointer", node)
                return MemLV(PtrAdd(base_val.expr, idx_e, ct, span), ct.pointee, ct.const)
            raise self.type_error(f"subscript of a value of type {ct}", node)
        if t == "pointer_expression":
            op = node_text(node.child_by_field_name("operator"))
            arg = node.child_by_field_name("argument")
            assert arg is not None
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
        return Val(Extract(base_val.expr, idx_e, vt.elem, self.span(node)), vt.elem)

    def field(self, node: ts.Node) -> LValue | Val:
        arg = node.child_by_field_name("argument")
        fnode = node.child_by_field_name("field")
        op = node.child_by_field_name("operator")
        assert arg is not None and fnode is not None
        fname = node_text(fnode)
        span = self.span(node)
        if op is not None and node_text(op) == "->":
            raise self.unsupported("member access through a pointer (->)", node)
        if arg.type == "identifier" and node_text(arg) in _BUILTIN_REGS and self.lookup(node_text(arg)) is None:
            if fname not in ("x", "y", "z"):
                raise self.type_error(f"{node_text(arg)} has no component {fname}", node)
            return Val(Builtin(_BUILTIN_REGS[node_text(arg)], Dim(fname), U32, span), U32)
        base = self.lvalue(arg)
        base_val = self.read(base, arg) if isinstance(base, VarLV | MemLV | LaneLV) else base
        vt = base_val.ctype
        if not isinstance(vt, VectorType):
            raise self.type_error(f"member {fname} of a value of type {vt}", node)
        lane, count, is_array = self.field_layout(vt, fname, node)
        if is_array:
            # `v.val` names an array member; it must be subscripted (handled by the caller) — we return
            # a marker Val whose type is a sub-vector view. Only whole-struct-of-one-array is supported.
            if lane != 0 or count != vt.lanes:
                raise self.unsupported("array member that is not the whole struct", node)
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

    def field_layout(self, vt: VectorType, fname: str, node: ts.Node) -> tuple[int, int, bool]:
        for info in self.tu.vector_fields.get(vt, []):
            if fname in info.fields:
                return info.fields[fname]
        xyzw = {"x": 0, "y": 1, "z": 2, "w": 3}
        if fname in xyzw and xyzw[fname] < vt.lanes:
            return xyzw[fname], 1, False
        raise self.type_error(f"{vt} has no member {fname}", node)

    def address_of(self, node: ts.Node) -> Val:
        arg = node.child_by_field_name("argument")
        assert arg is not None
        lv = self.lvalue(arg)
        if isinstance(lv, MemLV):
            pt = PointerType(lv.type, self.ptr_space(lv.ptr), lv.const)
            return Val(lv.ptr, pt) if _ptr_type(lv.ptr) == pt else Val(lv.ptr, _ptr_type(lv.ptr) or pt)
        if isinstance(lv, Val) and isinstance(lv.ctype, CArray):
            return Val(lv.expr, lv.ctype.pointer)
        raise self.unsupported("address of a local variable", node)

    def ptr_space(self, e: Expr) -> AddressSpace:
        t = _ptr_type(e)
        return t.space if t is not None else AddressSpace.GENERIC

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
        if isinstance(a.ctype, VectorType) or isinstance(b.ctype, VectorType):
            op_text = node_text(node.child_by_field_name("operator"))
            if op_text in self.tu.user_operators or f"{op_text}=" in self.tu.user_operators:
                raise self.unsupported(f"call of user-defined operator{op_text}", node)
            if a.ctype == b.ctype:
                assert isinstance(a.ctype, VectorType)
                return a.expr, b.expr, a.ctype
            raise self.type_error(f"operands of types {a.ctype} and {b.ctype}", node)
        if not isinstance(a.ctype, ScalarType) or not isinstance(b.ctype, ScalarType):
            raise self.type_error(f"invalid operands of types {a.ctype} and {b.ctype}", node)
        rt = arithmetic_result(a.ctype, b.ctype)
        if rt is None:
            raise self.type_error(f"no common type for {a.ctype} and {b.ctype}", node)
        span = self.span(node)
        return self.cast_scalar(a.expr, a.ctype, rt, span), self.cast_scalar(b.expr, b.ctype, rt, span), rt

    def binary(self, node: ts.Node) -> Val:
        op_text = node_text(node.child_by_field_name("operator"))
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        assert left is not None and right is not None
        if op_text in ("&&", "||"):
            return self.logical(op_text, left, right, node)
        a = self.rvalue(left)
        b = self.rvalue(right)
        return self.apply_binary(op_text, a, b, node)

    def apply_binary(self, op_text: str, a: Val, b: Val, node: ts.Node) -> Val:
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
            if op in (BinaryOp.EQ, BinaryOp.NE) and isinstance(a.ctype, PointerType) and _is_null_constant(b):
                return Val(Binary(op, a.expr, _null(a.ctype, span), BOOL, span), BOOL)
            if op in (BinaryOp.EQ, BinaryOp.NE) and isinstance(b.ctype, PointerType) and _is_null_constant(a):
                return Val(Binary(op, _null(b.ctype, span), b.expr, BOOL, span), BOOL)
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

    def negate(self, e: Expr, t: ScalarType, span: Span) -> Expr:
        if isinstance(e, Const) and not isinstance(e.value, bool):
            v = -e.value
            return Const(wrap_int(int(v), t) if t.is_int else v, t, span)
        return Unary(UnaryOp.NEG, e, t, span)

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
        op = node_text(node.child_by_field_name("operator"))
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        assert left is not None and right is not None
        lv = self.lvalue(left)
        if not isinstance(lv, VarLV | MemLV | LaneLV):
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

    def update(self, node: ts.Node, *, want_value: bool) -> Val | None:
        op = node_text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        assert arg is not None
        span = self.span(node)
        lv = self.lvalue(arg)
        if not isinstance(lv, VarLV | MemLV | LaneLV):
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

    # -- calls --------------------------------------------------------------------------------------

    def call(self, node: ts.Node, *, want_value: bool) -> Val | None:
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
            struct = self.tu.find(name, fn_node, self.tu.structs)
            if struct is not None and not arg_nodes and self.tu.conversion_to_pointer(struct, tuple(targs), node):
                return self.struct_conversion(struct, tuple(targs), node)
            info = self.tu.struct_info(fn_node, self.env, node) if struct is not None else None
            if info is not None:
                return self.construct(info, arg_nodes, node)
            raise self.unsupported(f"call of template {name}", node)
        if fn_node.type == "qualified_identifier":
            text = "".join(node_text(fn_node).split())
            m = re.fullmatch(r"std::numeric_limits<(.+)>::(\w+)", text)
            if m is not None:
                return self.numeric_limits(m.group(1), m.group(2), node)
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
                raise self.unsupported("call of unknown function", node)
            key = self.tu.find(text, fn_node, self.tu.functions)
            if key is not None:
                return self.user_call(key, [], arg_nodes, node, want_value)
            if self.cg_name(fn_node) == "reduce":
                return self.group_reduce(arg_nodes, node)
            if self.cg_name(fn_node) == "sync" and len(arg_nodes) == 1:
                group = self.group_of(arg_nodes[0])
                if group is not None:
                    return self.group_method(group, "sync", [], node, want_value)
            if self.cg_name(fn_node) is not None:
                raise self.unsupported("cooperative groups function", node)
            scope = fn_node.child_by_field_name("scope")
            info = self.tu.struct_info(scope, self.env, node) if scope is not None else None
            method = node_text(fn_node.child_by_field_name("name"))
            if info is not None and method in info.methods:
                return self.method_call(None, info, method, arg_nodes, node, want_value)  # S::m(args)
            # ::expf, std::exp, std::max: the device library's functions
            name = text.removeprefix("::").removeprefix("std::")
        elif fn_node.type == "identifier":
            name = node_text(fn_node)
            bound = self.env.get(name)
            if isinstance(bound, FunctionRef):
                return self.user_call(bound.name, list(bound.targs), arg_nodes, node, want_value)
            owner = self.fd.owner
            if owner is not None and name in owner.methods and self.lookup(name) is None:
                this = None if self.fd.static_method else VarLV("this", owner.vector)
                return self.method_call(None, owner, name, arg_nodes, node, want_value, this)
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
            method = node_text(fn_node.child_by_field_name("field"))
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
            return self.method_call(obj, info, method, arg_nodes, node, want_value, receiver)
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
        if key is not None:
            return self.user_call(key, [], arg_nodes, node, want_value)
        if name in BUILTIN_TYPES and isinstance(BUILTIN_TYPES[name], ScalarType):
            if len(arg_nodes) != 1:
                raise self.unsupported("functional cast", node)
            return self.explicit_cast(self.rvalue(arg_nodes[0]), BUILTIN_TYPES[name], node)
        return self.builtin_call(name, arg_nodes, node, want_value)

    def struct_conversion(self, struct: str, targs: tuple[TemplateArg, ...], node: ts.Node) -> Val:
        """``S<T>()`` of a member-less struct with an ``operator T*()``: the pointer it converts to."""
        fn = self.tu.conversion_to_pointer(struct, targs, node)
        if fn is None:
            raise self.unsupported("construction of a struct (other than one converting to a pointer)", node)
        span = self.span(node)
        dst = self.tmp(fn.ret, node)
        self.emit(Call(dst, fn.name, (), span))
        return Val(VarRef(dst, fn.ret, span), fn.ret)

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
        return any(self.tu.find(words, node, t) is not None for t in (self.tu.typedefs, self.tu.structs))

    def numeric_limits(self, type_text: str, member: str, node: ts.Node) -> Val:
        t: Type | None = BUILTIN_TYPES.get(type_text)
        bound = self.env.get(type_text)
        if bound is not None and is_type_arg(bound):
            t = bound
        if not isinstance(t, ScalarType):
            raise self.unsupported("numeric_limits of this type", node)
        span = self.span(node)
        value: int | float
        if t.is_float:
            info = {
                "f32": (float.fromhex("0x1.fffffep+127"), float.fromhex("0x1p-126"), float.fromhex("0x1p-23")),
                "f64": (float.fromhex("0x1.fffffffffffffp+1023"), float.fromhex("0x1p-1022"), 2.0**-52),
                "f16": (65504.0, 2.0**-14, 2.0**-10),
                "bf16": (float.fromhex("0x1.fep+127"), float.fromhex("0x1p-126"), 2.0**-7),
            }[str(t)]
            table = {
                "infinity": math.inf,
                "max": info[0],
                "lowest": -info[0],
                "min": info[1],
                "epsilon": info[2],
                "quiet_NaN": math.nan,
            }
        else:
            lo = -(2 ** (t.bits - 1)) if t.is_signed else 0
            hi = 2 ** (t.bits - 1) - 1 if t.is_signed else 2**t.bits - 1
            table = {"max": hi, "min": lo, "lowest": lo}
        if member not in table:
            raise self.unsupported(f"numeric_limits member {member}", node)
        value = table[member]
        return Val(Const(value, t, span), t)

    def args(self, arg_nodes: Sequence[ts.Node]) -> list[Val]:
        return [self.decay(self.rvalue(a)) for a in arg_nodes]

    def expect_args(self, name: str, arg_nodes: Sequence[ts.Node], counts: tuple[int, ...], node: ts.Node) -> None:
        if len(arg_nodes) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.type_error(f"{name} takes {want} arguments, got {len(arg_nodes)}", node)

    def policy_args(self, policy: lib.ArgPolicy, vals: list[Val], name: str, node: ts.Node) -> tuple[list[Expr], Type]:
        span = self.span(node)
        if policy in (lib.ArgPolicy.F32, lib.ArgPolicy.F64):
            t = F32 if policy is lib.ArgPolicy.F32 else F64
            return [self.convert(v, t, node).expr for v in vals], t
        if policy is lib.ArgPolicy.OVERLOAD:
            types = [v.ctype for v in vals]
            if any(isinstance(x, VectorType) for x in types):
                raise self.type_error(f"{name} of a vector", node)
            all_float = all(isinstance(x, ScalarType) and x.is_float and x != F64 for x in types)
            t = F32 if all_float else F64
            return [self.convert(v, t, node).expr for v in vals], t
        if policy is lib.ArgPolicy.SAME:
            if len(vals) == 1:
                e, st = self.scalar(vals[0], node)
                rt = integer_promote(st) if not st.is_float else st
                return [self.cast_scalar(e, st, rt, span)], rt
            acc = vals[0]
            assert not isinstance(acc.ctype, CArray)  # arguments are decayed
            out_t: Type = acc.ctype
            for v in vals[1:]:
                _, _, out_t = self.arith_operands(acc, v, node)
                acc = Val(acc.expr, out_t)
            return [self.convert(v, out_t, node).expr for v in vals], out_t
        if policy is lib.ArgPolicy.HALF:
            t0 = vals[0].ctype
            if t0 not in (F16, vector(F16, 1)) and not (
                isinstance(t0, ScalarType) and t0.kind.value in ("f16", "bf16")
            ):
                raise self.type_error(f"{name} needs __half or __nv_bfloat16 arguments, got {t0}", node)
            assert isinstance(t0, ScalarType)
            return [self.convert(v, t0, node).expr for v in vals], t0
        if policy is lib.ArgPolicy.HALF2:
            t0 = vals[0].ctype
            if not (isinstance(t0, VectorType) and t0.lanes == 2 and t0.elem.kind.value in ("f16", "bf16")):
                raise self.type_error(f"{name} needs __half2 or __nv_bfloat162 arguments, got {t0}", node)
            for v in vals:
                if v.ctype != t0:
                    raise self.type_error(f"{name}: arguments of types {t0} and {v.ctype}", node)
            return [v.expr for v in vals], t0
        raise AssertionError(policy)

    def builtin_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        span = self.span(node)
        if name == "__syncthreads":
            self.expect_args(name, arg_nodes, (0,), node)
            self.emit(Barrier(BarrierScope.BLOCK, None, span))
            return None if not want_value else self.no_value(name, node)
        if name == "__syncwarp":
            self.expect_args(name, arg_nodes, (0, 1), node)
            mask: Expr = Const(_FULL_MASK, U32, span)
            if arg_nodes:
                mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
            self.emit(Barrier(BarrierScope.WARP, mask, span))
            return None if not want_value else self.no_value(name, node)
        if name in ("__threadfence", "__threadfence_block", "__threadfence_system"):
            self.expect_args(name, arg_nodes, (0,), node)
            scope = FenceScope.BLOCK if name == "__threadfence_block" else FenceScope.DEVICE
            self.emit(Fence(scope, span))
            return None if not want_value else self.no_value(name, node)
        if name in _SHUFFLES:
            return self.shuffle(name, arg_nodes, node)
        if name in _WARP_REDUCES:
            return self.warp_reduce(name, arg_nodes, node)
        if name in _VOTES:
            self.expect_args(name, arg_nodes, (2,), node)
            vmask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
            pred = self.to_bool(self.rvalue(arg_nodes[1]), arg_nodes[1]).expr
            vote = _VOTES[name]
            rt = U32 if vote is VoteKind.BALLOT else I32
            dst = self.tmp(rt, node)
            self.emit(Vote(dst, vote, vmask, pred, span))
            return Val(VarRef(dst, rt, span), rt)
        if name in _ATOMICS:
            return self.atomic(name, arg_nodes, node, want_value)
        if name in _LOADS:
            self.expect_args(name, arg_nodes, (1,), node)
            pv = self.decay(self.rvalue(arg_nodes[0]))
            if not isinstance(pv.ctype, PointerType) or isinstance(pv.ctype.pointee, VoidType):
                raise self.type_error(f"{name} needs a pointer argument", node)
            return self.read(MemLV(pv.expr, pv.ctype.pointee, True), node)
        if name in _STORES:
            self.expect_args(name, arg_nodes, (2,), node)
            pv = self.decay(self.rvalue(arg_nodes[0]))
            if not isinstance(pv.ctype, PointerType) or isinstance(pv.ctype.pointee, VoidType):
                raise self.type_error(f"{name} needs a pointer argument", node)
            v = self.convert(self.rvalue(arg_nodes[1]), pv.ctype.pointee, node)
            self.write(MemLV(pv.expr, pv.ctype.pointee, pv.ctype.const), v, node)
            return None if not want_value else self.no_value(name, node)
        if name in lib.MATH_FUNCTIONS:
            fn, policy, approx = lib.MATH_FUNCTIONS[name]
            arity = {MathFn.ATAN2: 2, MathFn.POW: 2, MathFn.FMOD: 2, MathFn.DIV: 2, MathFn.COPYSIGN: 2, MathFn.FMA: 3}
            self.expect_args(name, arg_nodes, (arity.get(fn, 1),), node)
            vals = self.args(arg_nodes)
            exprs, t = self.policy_args(policy, vals, name, node)
            if fn in (MathFn.POPC, MathFn.CLZ, MathFn.FFS):
                if not isinstance(t, ScalarType) or not t.is_int:
                    raise self.type_error(f"{name} needs an integer argument", node)
                return Val(MathCall(fn, tuple(exprs), I32, approx, span), I32)
            if fn is MathFn.ABS and isinstance(t, ScalarType) and t.is_int:
                if t.is_unsigned:
                    return Val(exprs[0], t)
                return Val(MathCall(fn, tuple(exprs), t, approx, span), t)
            if fn in (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE, MathFn.SIGNBIT):
                return Val(MathCall(fn, tuple(exprs), BOOL, approx, span), BOOL)
            if isinstance(t, ScalarType) and not t.is_float:
                raise self.type_error(f"{name} of {t}", node)
            return Val(MathCall(fn, tuple(exprs), t, approx, span), t)
        if name in lib.BINARY_FUNCTIONS:
            op, policy = lib.BINARY_FUNCTIONS[name]
            self.expect_args(name, arg_nodes, (2,), node)
            exprs, t = self.policy_args(policy, self.args(arg_nodes), name, node)
            return Val(Binary(op, exprs[0], exprs[1], t, span), t)
        if name in lib.COMPARE_FUNCTIONS:
            self.expect_args(name, arg_nodes, (2,), node)
            exprs, t = self.policy_args(lib.ArgPolicy.HALF, self.args(arg_nodes), name, node)
            return Val(Binary(lib.COMPARE_FUNCTIONS[name], exprs[0], exprs[1], BOOL, span), BOOL)
        if name in lib.UNARY_FUNCTIONS:
            uop, policy = lib.UNARY_FUNCTIONS[name]
            self.expect_args(name, arg_nodes, (1,), node)
            exprs, t = self.policy_args(policy, self.args(arg_nodes), name, node)
            return Val(Unary(uop, exprs[0], t, span), t)
        if name in lib.CONVERSIONS:
            src, dst_t, kind, rounding = lib.CONVERSIONS[name]
            self.expect_args(name, arg_nodes, (1,), node)
            v = self.rvalue(arg_nodes[0])
            e = self.convert(v, src, node).expr if src is not None else self.scalar(v, node)[0]
            if rounding is not None:
                assert src is not None
                e = MathCall(rounding, (e,), src, False, span)
            return Val(
                Cast(e, dst_t, kind, span) if kind is CastKind.BITCAST else self.cast_any(e, src, dst_t, span), dst_t
            )
        if name in lib.PAIR_FUNCTIONS:
            return self.pair_function(name, arg_nodes, node)
        if name == "__saturatef":
            self.expect_args(name, arg_nodes, (1,), node)
            e = self.convert(self.rvalue(arg_nodes[0]), F32, node).expr
            lo = Binary(BinaryOp.MAX, e, Const(0.0, F32, span), F32, span)
            return Val(Binary(BinaryOp.MIN, lo, Const(1.0, F32, span), F32, span), F32)
        if name in ("__frcp_rn", "__drcp_rn"):
            self.expect_args(name, arg_nodes, (1,), node)
            t = F32 if name == "__frcp_rn" else F64
            e = self.convert(self.rvalue(arg_nodes[0]), t, node).expr
            return Val(Binary(BinaryOp.DIV, Const(1.0, t, span), e, t, span), t)
        if name in ("sincosf", "sincos", "__sincosf"):
            raise self.unsupported(f"{name} (use sinf and cosf)", node)
        if re.fullmatch(r"make_(\w+?)(\d)", name) is not None and name[len("make_") :] in BUILTIN_TYPES:
            vt = BUILTIN_TYPES[name[len("make_") :]]
            assert isinstance(vt, VectorType)
            self.expect_args(name, arg_nodes, (vt.lanes,), node)
            lanes = [self.convert(v, vt.elem, node).expr for v in self.args(arg_nodes)]
            return Val(MakeVector(tuple(lanes), vt, span), vt)
        if name in self.tu.host_functions:
            raise self.type_error(f"call of host function {name} from device code", node)
        if name == "assert":
            self.expect_args(name, arg_nodes, (1,), node)
            self.emit(Assert(self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr, span))
            return None if not want_value else self.no_value(name, node)
        if name in ("__trap", "__assert_fail", "__assertfail"):
            # an unconditional trap (what assert macros expand to under their failing branch)
            self.emit(Assert(Const(False, BOOL, span), span))
            return None if not want_value else self.no_value(name, node)
        if name in ("memcpy", "std::memcpy", "::memcpy"):
            self.memcpy(arg_nodes, node)
            return None if not want_value else self.no_value(name, node)
        if name in ("printf", "__brkpt", "malloc", "free", "clock", "clock64"):
            raise self.unsupported(f"call of {name}", node)
        if name == "__activemask":
            raise self.unsupported("__activemask", node)
        raise self.unsupported("call of unknown function", node)

    def cast_any(self, e: Expr, src: ScalarType | None, dst: ScalarType, span: Span) -> Expr:
        if src is None:
            return Cast(e, dst, CastKind.CONVERT, span)
        return self.cast_scalar(e, src, dst, span)

    def no_value(self, name: str, node: ts.Node) -> Val:
        raise self.type_error(f"{name} returns no value", node)

    def pair_function(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        kind, elem = lib.PAIR_FUNCTIONS[name]
        assert elem is not None
        span = self.span(node)
        pair = vector(elem, 2)
        f2 = vector(F32, 2)
        if kind == "make2":
            self.expect_args(name, arg_nodes, (2,), node)
            lanes = [self.convert(v, elem, node).expr for v in self.args(arg_nodes)]
            return Val(MakeVector(tuple(lanes), pair, span), pair)
        self.expect_args(name, arg_nodes, (1,), node)
        v = self.decay(self.rvalue(arg_nodes[0]))
        if kind == "dup":
            e = self.convert(v, elem, node).expr
            return Val(MakeVector((e, e), pair, span), pair)
        if kind == "from_f2":
            e = self.convert(v, f2, node).expr
            lanes = [self.cast_scalar(Extract(e, Const(i, I32, span), F32, span), F32, elem, span) for i in (0, 1)]
            return Val(MakeVector(tuple(lanes), pair, span), pair)
        e = self.convert(v, pair, node).expr
        if kind in ("low", "high"):
            return Val(Extract(e, Const(0 if kind == "low" else 1, I32, span), elem, span), elem)
        if kind in ("low_f", "high_f"):
            lane = Extract(e, Const(0 if kind == "low_f" else 1, I32, span), elem, span)
            return Val(Cast(lane, F32, CastKind.CONVERT, span), F32)
        if kind == "to_f2":
            return Val(Cast(e, f2, CastKind.CONVERT, span), f2)
        raise AssertionError(kind)

    def shuffle(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        self.expect_args(name, arg_nodes, (3, 4), node)
        mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        v = self.shuffle_operand(self.rvalue(arg_nodes[1]), name, arg_nodes[1])
        lane = self.convert(self.rvalue(arg_nodes[2]), I32, arg_nodes[2]).expr
        width: Expr | int = 32
        if len(arg_nodes) == 4:
            width = self.convert(self.rvalue(arg_nodes[3]), I32, arg_nodes[3]).expr
        return self.emit_shuffle(_SHUFFLES[name], mask, v, lane, width, node)

    def shuffle_operand(self, v: Val, name: str, node: ts.Node) -> Val:
        """A value shuffles as a 32/64-bit scalar, a half, or a half pair; narrower integers promote."""
        v = self.decay(v)
        vt = v.ctype
        assert not isinstance(vt, CArray)  # decayed above
        if isinstance(vt, ScalarType):
            if str(vt) not in _SHUFFLE_TYPES:
                return self.convert(v, integer_promote(vt) if not vt.is_float else vt, node)
            return v
        if not (isinstance(vt, VectorType) and vt.lanes == 2 and vt.elem.kind.value in ("f16", "bf16")):
            raise self.type_error(f"{name} of a value of type {vt}", node)
        return v

    def emit_shuffle(self, kind: ShuffleKind, mask: Expr, v: Val, lane: Expr, width: Expr | int, node: ts.Node) -> Val:
        span = self.span(node)
        vt = v.ctype
        assert not isinstance(vt, CArray)
        w = Const(width, I32, span) if isinstance(width, int) else width
        dst = self.tmp(vt, node)
        self.emit(Shuffle(dst, kind, mask, v.expr, lane, w, span))
        return Val(VarRef(dst, vt, span), vt)

    # -- cooperative groups (see groups.py) ---------------------------------------------------------

    def cg_name(self, node: ts.Node) -> str | None:
        """``this_thread_block`` for ``cg::this_thread_block`` (with ``cg`` an alias), else ``None``."""
        text = self.tu._unalias("".join(node_text(node).split()).removeprefix("::"))
        prefix = "cooperative_groups::"
        return text[len(prefix) :] if text.startswith(prefix) else None

    def group_of(self, node: ts.Node) -> Group | None:
        """The group an expression denotes: a factory call, or a variable bound to a group."""
        if node.type == "parenthesized_expression" and node.named_children:
            return self.group_of(node.named_children[0])
        if node.type == "identifier":
            b = self.lookup(node_text(node))
            return b.group if b is not None else None
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None or fn.type != "qualified_identifier":
            return None
        inner = fn.child_by_field_name("name")
        while inner is not None and inner.type == "qualified_identifier":
            inner = inner.child_by_field_name("name")
        name = self.cg_name(fn)
        if name == "this_thread_block":
            return Group()
        if inner is not None and inner.type == "template_function" and self.cg_name(fn) is not None:
            base = node_text(inner.child_by_field_name("name"))
            targs = inner.child_by_field_name("arguments")
            parent = args.named_children[0] if args.named_children else None
            if base == "tiled_partition" and targs is not None and parent is not None:
                size = fold_constant(self.tu, targs.named_children[0], self.env, self.const_scope())
                if not isinstance(size, int) or size not in (1, 2, 4, 8, 16, 32):
                    raise self.unsupported("tiled_partition size (a power of two up to 32)", targs)
                outer = self.group_of(parent)
                if outer is None or not outer.is_block:
                    raise self.unsupported("tiled_partition of something other than the thread block", parent)
                return Group(size)
        if name is not None:
            raise self.unsupported("cooperative groups function", node)
        return None

    def tile_declaration(self, node: ts.Node) -> bool:
        """``cg::thread_block_tile<32> t = ...;``, which tree-sitter (not knowing the template) reads as
        ``(cg::thread_block_tile < 32) > (t = ...)``: declare the group it means."""
        if node.type != "binary_expression" or node_text(node.child_by_field_name("operator")) != ">":
            return False
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "binary_expression" or right.type != "assignment_expression":
            return False
        name = left.child_by_field_name("left")
        target = right.child_by_field_name("left")
        if name is None or target is None or target.type != "identifier":
            return False
        if self.cg_name(name) != "thread_block_tile" or node_text(left.child_by_field_name("operator")) != "<":
            return False
        self.declare_group(target, right.child_by_field_name("right"), node)
        return True

    def declares_groups(self, node: ts.Node) -> bool:
        """An ``auto`` declaration whose initializers are cooperative groups."""
        inits = [d.child_by_field_name("value") for d in node.children_by_field_name("declarator")]
        return bool(inits) and all(i is not None and self.group_of(i) is not None for i in inits)

    def declare_group(self, name_node: ts.Node, init: ts.Node | None, node: ts.Node) -> None:
        group = self.group_of(init) if init is not None else None
        if group is None:
            raise self.unsupported("cooperative group variable without a this_thread_block/tiled_partition value", node)
        c_name = node_text(name_node)
        if c_name in self.scopes[-1]:
            raise self.type_error(f"redeclaration of {c_name}", node)
        self.scopes[-1][c_name] = Binding("group", c_name, U32, None, group)

    def is_group_type(self, type_node: ts.Node) -> bool:
        name = self.cg_name(type_node)
        return name is not None and (name == "thread_block" or name.startswith("thread_block_tile"))

    def linear_tid(self, span: Span) -> Expr:
        def reg(r: BuiltinReg, d: Dim) -> Expr:
            return Builtin(r, d, U32, span)

        def mul(a: Expr, b: Expr) -> Expr:
            return Binary(BinaryOp.MUL, a, b, U32, span)

        def add(a: Expr, b: Expr) -> Expr:
            return Binary(BinaryOp.ADD, a, b, U32, span)

        tx, ty, tz = (reg(BuiltinReg.THREAD_IDX, d) for d in (Dim.X, Dim.Y, Dim.Z))
        bx, by = reg(BuiltinReg.BLOCK_DIM, Dim.X), reg(BuiltinReg.BLOCK_DIM, Dim.Y)
        return add(tx, mul(bx, add(ty, mul(by, tz))))

    def block_size(self, span: Span) -> Expr:
        dims = [Builtin(BuiltinReg.BLOCK_DIM, d, U32, span) for d in (Dim.X, Dim.Y, Dim.Z)]
        return Binary(BinaryOp.MUL, Binary(BinaryOp.MUL, dims[0], dims[1], U32, span), dims[2], U32, span)

    def tile_mask(self, size: int, span: Span) -> Expr:
        """The lanes of this thread's tile, as a warp mask."""
        if size == 32:
            return Const(_FULL_MASK, U32, span)
        lane = Binary(BinaryOp.REM, self.linear_tid(span), Const(32, U32, span), U32, span)
        first = Binary(
            BinaryOp.MUL,
            Binary(BinaryOp.DIV, lane, Const(size, U32, span), U32, span),
            Const(size, U32, span),
            U32,
            span,
        )
        return Binary(BinaryOp.SHL, Const((1 << size) - 1, U32, span), first, U32, span)

    def group_method(
        self, group: Group, method: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool
    ) -> Val | None:
        span = self.span(node)
        size = group.tile
        if method == "sync":
            self.expect_args(method, arg_nodes, (0,), node)
            if size is None:
                self.emit(Barrier(BarrierScope.BLOCK, None, span))
            else:
                self.emit(Barrier(BarrierScope.WARP, self.tile_mask(size, span), span))
            return None if not want_value else self.no_value(method, node)
        if method in ("thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size"):
            self.expect_args(method, arg_nodes, (0,), node)
            tid = self.linear_tid(span)
            if method == "thread_rank":
                e: Expr = tid if size is None else Binary(BinaryOp.REM, tid, Const(size, U32, span), U32, span)
            elif method in ("size", "num_threads"):
                e = self.block_size(span) if size is None else Const(size, U32, span)
            elif size is None:
                raise self.unsupported(f"{method} of a thread block", node)
            elif method == "meta_group_rank":
                e = Binary(BinaryOp.DIV, tid, Const(size, U32, span), U32, span)
            else:
                total = Binary(BinaryOp.ADD, self.block_size(span), Const(size - 1, U32, span), U32, span)
                e = Binary(BinaryOp.DIV, total, Const(size, U32, span), U32, span)
            return Val(e, U32)
        if size is None:
            raise self.unsupported(f"thread block method {method}", node)
        kinds = {
            "shfl": ShuffleKind.IDX,
            "shfl_up": ShuffleKind.UP,
            "shfl_down": ShuffleKind.DOWN,
            "shfl_xor": ShuffleKind.XOR,
        }
        if method in kinds:
            self.expect_args(method, arg_nodes, (2,), node)
            v = self.shuffle_operand(self.rvalue(arg_nodes[0]), method, arg_nodes[0])
            lane = self.convert(self.rvalue(arg_nodes[1]), I32, arg_nodes[1]).expr
            return self.emit_shuffle(kinds[method], self.tile_mask(size, span), v, lane, size, node)
        votes = {"any": VoteKind.ANY, "all": VoteKind.ALL, "ballot": VoteKind.BALLOT}
        if method in votes:
            self.expect_args(method, arg_nodes, (1,), node)
            pred = self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr
            kind = votes[method]
            rt = U32 if kind is VoteKind.BALLOT else I32
            dst = self.tmp(rt, node)
            self.emit(Vote(dst, kind, self.tile_mask(size, span), pred, span))
            result: Expr = VarRef(dst, rt, span)
            if kind is VoteKind.BALLOT and size < 32:
                # a tile's ballot numbers its own lanes from 0
                lane = Binary(BinaryOp.REM, self.linear_tid(span), Const(32, U32, span), U32, span)
                first = Binary(
                    BinaryOp.MUL,
                    Binary(BinaryOp.DIV, lane, Const(size, U32, span), U32, span),
                    Const(size, U32, span),
                    U32,
                    span,
                )
                shifted = Binary(BinaryOp.SHR, result, first, U32, span)
                result = Binary(BinaryOp.BITAND, shifted, Const((1 << size) - 1, U32, span), U32, span)
            return Val(result, rt)
        raise self.unsupported(f"thread_block_tile method {method}", node)

    def group_reduce(self, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``cg::reduce(tile, v, op)``: every lane gets op over the tile, by butterfly exchanges."""
        span = self.span(node)
        self.expect_args("cooperative_groups::reduce", arg_nodes, (3,), node)
        group = self.group_of(arg_nodes[0])
        if group is None or group.tile is None:
            raise self.unsupported("reduce over something other than a thread_block_tile", arg_nodes[0])
        op_node = arg_nodes[2]
        op_name = None
        if op_node.type == "call_expression":
            fn = op_node.child_by_field_name("function")
            cg = self.cg_name(fn) if fn is not None else None
            op_name = cg.split("<")[0] if cg is not None else None
        if op_name not in REDUCE_OPS:
            raise self.unsupported("reduce operator (use cg::plus, cg::greater, cg::less, cg::bit_*)", op_node)
        v = self.shuffle_operand(self.rvalue(arg_nodes[1]), "reduce", arg_nodes[1])
        vt = v.ctype
        assert not isinstance(vt, CArray)  # shuffle operands are scalars or half pairs
        return self.butterfly(v, vt, REDUCE_OPS[op_name], self.tile_mask(group.tile, span), group.tile, node)

    def butterfly(self, v: Val, vt: Type, op: str, mask: Expr, width: int, node: ts.Node) -> Val:
        """``op`` over ``width`` lanes, left in every lane: ``log2 width`` xor-shuffle exchange steps."""
        span = self.span(node)
        acc = self.tmp(vt, node)
        self.emit(Assign(acc, v.expr, span))
        current = Val(VarRef(acc, vt, span), vt)
        offset = width // 2
        while offset >= 1:
            other = self.emit_shuffle(ShuffleKind.XOR, mask, current, Const(offset, I32, span), width, node)
            combined = (
                self.minmax(op, current, other, node)
                if op in ("max", "min")
                else self.apply_binary(op, current, other, node)
            )
            self.emit(Assign(acc, self.convert(combined, vt, node).expr, span))
            offset //= 2
        return current

    def warp_reduce(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``__reduce_<op>_sync(0xffffffff, v)``: every lane gets op over the warp (a butterfly of xor
        shuffles; integer + & | ^ min max are associative and commutative, so the order is immaterial)."""
        self.expect_args(name, arg_nodes, (2,), node)
        mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        if not (isinstance(mask, Const) and mask.value == _FULL_MASK):
            raise self.unsupported(f"{name} with a mask other than 0xffffffff", arg_nodes[0])
        v = self.decay(self.rvalue(arg_nodes[1]))
        if not isinstance(v.ctype, ScalarType) or not v.ctype.is_int:
            raise self.type_error(f"{name} needs an integer value, got {v.ctype}", arg_nodes[1])
        vt = U32 if v.ctype.is_unsigned else I32
        return self.butterfly(self.convert(v, vt, arg_nodes[1]), vt, _WARP_REDUCES[name], mask, 32, node)

    def minmax(self, which: str, a: Val, b: Val, node: ts.Node) -> Val:
        ae, be, t = self.arith_operands(a, b, node)
        op = BinaryOp.MAX if which == "max" else BinaryOp.MIN
        return Val(Binary(op, ae, be, t, self.span(node)), t)

    def atomic(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        span = self.span(node)
        op = _ATOMICS[name]
        self.expect_args(name, arg_nodes, (3,) if op is AtomicOp.CAS else (2,), node)
        pv = self.decay(self.rvalue(arg_nodes[0]))
        if not isinstance(pv.ctype, PointerType) or not isinstance(pv.ctype.pointee, ScalarType):
            raise self.type_error(f"{name} needs a pointer to a scalar, got {pv.ctype}", arg_nodes[0])
        if pv.ctype.const:
            raise self.type_error(f"{name} through a pointer to const", arg_nodes[0])
        t = pv.ctype.pointee
        if op is AtomicOp.CAS:
            cmp = self.convert(self.rvalue(arg_nodes[1]), t, arg_nodes[1]).expr
            val = self.convert(self.rvalue(arg_nodes[2]), t, arg_nodes[2]).expr
        else:
            cmp = None
            val = self.convert(self.rvalue(arg_nodes[1]), t, arg_nodes[1]).expr
        if op in (AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR) and not t.is_int:
            raise self.type_error(f"{name} on {t}", node)
        dst = self.tmp(t, node) if want_value else None
        self.emit(Atomic(dst, op, pv.expr, val, cmp, None, span))
        if dst is None:
            return None
        return Val(VarRef(dst, t, span), t)

    def user_call(
        self, name: str, targs: list[TemplateArg], arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool
    ) -> Val | None:
        candidates = self.tu.functions[name]
        span = self.span(node)
        if candidates[0].kind is FunctionKind.KERNEL:
            raise self.unsupported("call of a __global__ function from device code", node)
        # Cooperative groups are compile-time values: they select the callee's instance, not IR args.
        groups = [self.group_of(a) for a in arg_nodes]
        group_args = {i: g for i, g in enumerate(groups) if g is not None}
        arg_nodes = [a for i, a in enumerate(arg_nodes) if i not in group_args]
        # Arguments stay lvalues until the overload is chosen: by-reference parameters bind to them.
        args_lv: list[LValue | Val] = []
        for a in arg_nodes:
            lv = self.lvalue(a)
            args_lv.append(self.decay(lv) if isinstance(lv, Val) else lv)
        arg_types = [lv.ctype if isinstance(lv, Val) else lv.type for lv in args_lv]
        viable: list[tuple[int, FunctionDef, TemplateEnv, list[LValue | Val]]] = []
        reasons: list[LarkcError] = []
        for fd in candidates:
            try:
                env: TemplateEnv = {}
                if fd.template is not None:
                    named = self.deduce(fd, targs, args_lv, node)
                    env = self.tu.bind_template(fd.template, targs, named, node, f"function {name}")
                elif targs:
                    raise self.type_error(f"{name} is not a template", node)
                env = {**env, **self.group_bindings(fd, group_args, node)}
                params = self.tu.signature(fd, env)
                full = [*args_lv, *self.default_arguments(fd, env, params, len(args_lv), node)]
            except LarkcError as e:
                reasons.append(e)
                continue
            cost = self.overload_cost(params, full)
            if cost is None:
                reasons.append(self.mismatch(name, params, full, arg_nodes, node))
                continue
            viable.append((cost, fd, env, full))
        if not viable:
            if len(candidates) == 1 and reasons:
                raise reasons[0]
            raise self.type_error(
                f"no overload of {name} takes arguments ({', '.join(str(t) for t in arg_types)})", node
            )
        viable.sort(key=lambda b: b[0])
        if len(viable) > 1 and viable[0][0] == viable[1][0]:
            raise self.type_error(f"ambiguous call of overloaded function {name}", node)
        _, fd, env, full = viable[0]
        callee = self.tu.instantiate(fd, env, node)
        args: list[Expr] = []
        where = [*arg_nodes, *[node] * (len(full) - len(arg_nodes))]  # defaults are located at the call
        for p, v, a in zip(callee.params, full, where, strict=True):
            if p.by_ref:
                assert isinstance(v, VarLV)
                args.append(VarRef(v.name, v.type, self.span(a)))
            else:
                rv = v if isinstance(v, Val) else self.read(v, a)
                args.append(self.convert(rv, p.type, a).expr)
        if callee.ret == VOID:
            self.emit(Call(None, callee.name, tuple(args), span))
            return None if not want_value else self.no_value(name, node)
        dst = self.tmp(callee.ret, node)
        self.emit(Call(dst, callee.name, tuple(args), span))
        return Val(VarRef(dst, callee.ret, span), callee.ret)

    def default_arguments(
        self, fd: FunctionDef, env: TemplateEnv, params: Sequence[Param], given: int, node: ts.Node
    ) -> list[Val]:
        """The values of the default arguments for parameters ``given`` onwards (constant expressions)."""
        if given >= len(params):
            return []
        decl = FunctionLowering(self.tu, fd, env, fd.name).function_declarator()
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
                raise self.unsupported("default argument that is not a constant", default)
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
            if p.by_ref and not isinstance(a, VarLV):
                return self.unsupported("reference argument that is not a local variable", n)
            t = a.ctype if isinstance(a, Val) else a.type
            if p.by_ref and t != p.type:
                return self.type_error(f"reference parameter {p.name} of type {p.type} given a {t}", n)
            if self.conversion_cost(t, p.type) is None:
                return self.type_error(f"argument of type {t} for parameter {p.name} of type {p.type}", n)
        return self.type_error(f"no matching call of {name}", node)

    def group_bindings(self, fd: FunctionDef, group_args: Mapping[int, Group], node: ts.Node) -> TemplateEnv:
        """Bind the callee's cooperative group parameters to the groups the call passes."""
        plist = FunctionLowering(self.tu, fd, {}, fd.name).function_declarator().child_by_field_name("parameters")
        params = [p for p in plist.named_children if p.type.endswith("parameter_declaration")] if plist else []
        wanted = {
            i: _declared_identifier(p.child_by_field_name("declarator"))
            for i, p in enumerate(params)
            if (t := p.child_by_field_name("type")) is not None and self.is_group_type(t)
        }
        if set(wanted) != set(group_args):
            raise self.type_error(f"cooperative group arguments do not match the parameters of {fd.name}", node)
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
            if src.kind.value in ("f16", "bf16") or dst.kind.value in ("f16", "bf16"):
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
                if not isinstance(a, VarLV) or a.type != p.type:
                    return None
                continue
            cost = self.conversion_cost(a.ctype if isinstance(a, Val) else a.type, p.type)
            if cost is None:
                return None
            total += cost
        return total

    def deduce(
        self, fd: FunctionDef, targs: list[TemplateArg], vals: Sequence[Val | LValue], node: ts.Node
    ) -> dict[str, TemplateArg]:
        """Template argument deduction from argument types, for parameters declared as plain ``T``."""
        assert fd.template is not None
        explicit = {p.name for p in fd.template[: len(targs)]}
        type_params = {p.name for p in fd.template if p.is_type} - explicit
        if not type_params:
            return {}
        decl = FunctionLowering(self.tu, fd, {}, fd.name).function_declarator()
        plist = decl.child_by_field_name("parameters")
        assert plist is not None
        out: dict[str, TemplateArg] = {}
        params = [
            p for p in plist.named_children if p.type in ("parameter_declaration", "optional_parameter_declaration")
        ]
        for p, v in zip(params, vals, strict=False):
            tnode = p.child_by_field_name("type")
            d = p.child_by_field_name("declarator")
            if tnode is None:
                continue
            words = type_words(tnode)
            if words not in type_params:
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
                    raise self.type_error(f"cannot deduce {words} from {vt}", node)
                vt = vt.pointee
            if isinstance(vt, CArray):
                raise self.type_error(f"cannot deduce {words} from an array", node)
            if words in out and out[words] != vt:
                raise self.type_error(f"conflicting deductions for {words}: {out[words]} and {vt}", node)
            out[words] = vt
        missing = type_params - set(out) - {p.name for p in fd.template if p.default is not None}
        if missing:
            raise self.type_error(f"cannot deduce template parameter {', '.join(sorted(missing))} of {fd.name}", node)
        return out


# --------------------------------------------------------------------------------------------------
# literals and folding


_VOID_PTR = PointerType(VOID, AddressSpace.GENERIC)


#: C's binary operator precedence (higher binds tighter).
_PRECEDENCE = {
    "*": 10, "/": 10, "%": 10,
    "+": 9, "-": 9,
    "<<": 8, ">>": 8,
    "<": 7, "<=": 7, ">": 7, ">=": 7,
    "==": 6, "!=": 6,
    "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
}  # fmt: skip


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


def _struct_args(info: StructInfo) -> str:
    """``<float>`` for a struct template instance (its template arguments, as the key records them)."""
    targs = [v for k, v in info.env.items() if k != info.name.rpartition("::")[2]]
    return f"<{', '.join(str(_targ_text(a)) for a in targs)}>" if targs else ""


def _targ_text(a: object) -> str:
    from larkc.frontends.cuda.unit import _targ_str

    return _targ_str(a)  # type: ignore[arg-type]  # env values are template arguments


def _declared_identifier(d: ts.Node | None) -> str | None:
    """The name a parameter declarator declares (through ``&`` and ``*``)."""
    while d is not None and d.type not in ("identifier", "field_identifier"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
    return node_text(d) if d is not None else None


def _null(t: PointerType, span: Span) -> Expr:
    """The null pointer of type ``t``: address 0, reinterpreted."""
    return Cast(Const(0, U64, span), t, CastKind.BITCAST, span)


def _is_null_constant(v: Val) -> bool:
    """``nullptr``, ``NULL`` or an integer literal 0 (C++'s null pointer constants)."""
    e = v.expr
    if isinstance(e, Cast) and e.kind is CastKind.BITCAST and isinstance(e.operand, Const):
        return e.operand.value == 0 and v.ctype == _VOID_PTR
    return isinstance(e, Const) and not isinstance(e.value, bool) and e.type.is_int and e.value == 0


def _zero(t: Type, span: Span) -> Expr:
    if isinstance(t, ScalarType):
        return Const(False if t.is_bool else (0.0 if t.is_float else 0), t, span)
    if isinstance(t, VectorType):
        z = Const(0.0 if t.elem.is_float else 0, t.elem, span)
        return MakeVector(tuple(z for _ in range(t.lanes)), t, span)
    raise ValueError(f"no zero of {t}")


def _ptr_type(e: Expr) -> PointerType | None:
    t = e.type
    return t if isinstance(t, PointerType) else None
