"""The state every concern of a function's lowering shares, and the interface between the concerns.

:class:`LoweringCore` holds what lowering one function keeps as it goes: the C scopes and the IR names
they bind (unique per function), the buffer statements are emitted into, the loop depth, a pending
``#pragma unroll``. Its abstract methods are the entry points one concern calls in another (an
expression lowers the arguments of a builtin, a builtin reads an lvalue): each is defined by the mixin
its group is headed with, and :class:`~larkc.frontends.cuda.lower.FunctionLowering` combines them all.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import tree_sitter as ts

from larkc.errors import InternalError, LarkcError, Span, Stage, TypeCheckError, UnsupportedError
from larkc.frontends.cuda.lowering.values import Binding, LValue, Val, VarLV
from larkc.frontends.cuda.sema.constants import try_resolve_type
from larkc.frontends.cuda.sema.ctypes import CArray, CType, StructInfo
from larkc.frontends.cuda.sema.groups import Group
from larkc.frontends.cuda.sema.unit import (
    TEXTURES_UNMODELLED,
    FunctionDef,
    ObjectStruct,
    TemplateArg,
    TemplateEnv,
    TranslationUnit,
    UnionInfo,
    is_texture_name,
    is_type_arg,
)
from larkc.frontends.cuda.syntax import node_text, type_words
from larkc.ir.nodes import Decl, Expr, Function, FunctionKind, Module, Param, ShuffleKind, Stmt, VarRef
from larkc.ir.types import VOID, AddressSpace, ScalarType, Type, VectorType
from larkc.ir.verify import verify_function

if TYPE_CHECKING:
    from larkc.frontends.cuda.lowering.cub import CubCollective
    from larkc.frontends.cuda.lowering.lambdas import Lambda


class IllTypedLowering(InternalError):
    """The lowering of a function produced IR the verifier rejects: a bug in larkc, not in the kernel.

    An :class:`~larkc.errors.InternalError`, not a :class:`~larkc.errors.LarkcError` (an error in the
    user's input): the CLI reports it as an internal error (exit status 3). ``error`` is the verifier's
    located error.
    """

    def __init__(self, function: Function, error: TypeCheckError) -> None:
        what = "kernel" if function.kind is FunctionKind.KERNEL else "device function"
        super().__init__(f"the CUDA lowering of {what} {function.name} produced ill-typed IR: {error}")
        self.function = function.name
        self.error = error


class LoweringCore(abc.ABC):
    """Lowering state of one function (a kernel or a device function instance), and its helpers."""

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
        self.array_params: dict[str, CArray] = {}  # `float x[][N]` parameters, by name
        self.device_scalars: dict[str, Type] = {}  # `__device__` scalars used by a kernel: its parameters
        self.local_pointer_params: dict[str, Type] = {}  # pointer parameters given a caller's local: pointee
        #: reference parameters given the address of the caller's memory (`MEMORY_REF`): referred type, space
        self.memory_ref_params: dict[str, tuple[Type, AddressSpace]] = {}
        self.warp_storages: set[str] = set()  # `WarpReduce::TempStorage` names (placeholders: the model shuffles)
        self.cub_types: dict[str, CubCollective] = {}  # `typedef cub::BlockReduce<float, 256> BlockReduce;`
        self.struct_params: dict[str, dict[str, VarLV]] = {}  # parameter structs of pointers: member -> parameter
        #: parameter structs that have member functions (flashinfer's `paged_kv.get_k_ptr(...)`): their objects
        self.struct_param_objects: dict[str, ObjectStruct] = {}
        self.lambdas: dict[str, Lambda] = {}  # local lambdas, by the key their name is bound to ("lambda")

    def span(self, node: ts.Node) -> Span:
        return self.tu.span(node)

    def unsupported(self, what: str, node: ts.Node) -> UnsupportedError:
        return UnsupportedError(what, node_text(node), self.span(node))

    def type_error(self, message: str, node: ts.Node) -> TypeCheckError:
        return TypeCheckError(message, self.span(node), stage=Stage.FRONTEND)

    def unknown_name(self, name: str, error: LarkcError, node: ts.Node) -> LarkcError:
        """``error`` for a name the file does not declare, unless a skipped header of the machine would
        declare it: then an error naming that header (larkc does not model it)."""
        if is_texture_name(name):
            return self.unsupported(f"texture or surface function {name} ({TEXTURES_UNMODELLED})", node)
        header = self.tu.skipped_header_of(name)
        if header is None:
            return error
        return self.unsupported(f"use of {name}, declared by {header.describe()}, a header larkc does not model", node)

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
        self,
        c_name: str,
        kind: str,
        ctype: CType,
        node: ts.Node,
        value: bool | int | float | None = None,
        *,
        readonly: bool = False,
    ) -> str:
        if c_name in self.scopes[-1]:
            raise self.type_error(f"redeclaration of {c_name}", node)
        ir_name = self.fresh(c_name) if kind != "const" else c_name
        self.scopes[-1][c_name] = Binding(kind, ir_name, ctype, value, readonly=readonly)
        return ir_name

    def resolve_type(self, type_node: ts.Node, ctx: ts.Node) -> Type:
        """The type ``type_node`` names (a template parameter of this instance, or a type of the file)."""
        bound = self.template_type(type_node)
        if bound is not None:
            return bound
        # local integer constants are template arguments too (`constexpr auto n = num_elems<T>::value;`
        # then `typename packed_as<QuantT, n>::type`); template parameters of the instance come first
        local: TemplateEnv = {k: v for k, v in self.const_scope().items() if isinstance(v, int) and k not in self.env}
        return self.tu.resolve_type(type_node, {**local, **self.env} if local else self.env, ctx)

    def try_resolve_type(self, type_node: ts.Node, ctx: ts.Node) -> Type | None:
        """The type ``type_node`` names, or ``None`` where it names none."""
        bound = self.template_type(type_node)
        return bound if bound is not None else try_resolve_type(self.tu, type_node, self.env, ctx)

    def template_type(self, type_node: ts.Node) -> Type | None:
        """The type a type template parameter named by ``type_node`` is bound to in this instance."""
        bound = self.env.get(type_words(type_node))
        return bound if bound is not None and is_type_arg(bound) else None

    def function_declarator(self) -> ts.Node:
        return function_declarator(self.fd.node)

    def const_scope(self) -> dict[str, bool | int | float]:
        out: dict[str, bool | int | float] = {}
        for s in self.scopes:
            for k, b in s.items():
                if b.kind == "const" and b.value is not None:
                    out[k] = b.value
        return out

    def expect_args(self, name: str, arg_nodes: Sequence[ts.Node], counts: tuple[int, ...], node: ts.Node) -> None:
        if len(arg_nodes) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.type_error(f"{name} takes {want} arguments, got {len(arg_nodes)}", node)

    def no_value(self, name: str, node: ts.Node) -> Val:
        raise self.type_error(f"{name} returns no value", node)

    def check_typed(self, fn: Function) -> None:
        """Verify ``fn`` against the IR typing rules (with the functions lowered before it, which it may
        call): ill-typed IR from the frontend is :class:`IllTypedLowering`, never passed on."""
        try:
            verify_function(fn, Module((*self.tu.order, fn), fn.span))
        except TypeCheckError as err:
            raise IllTypedLowering(fn, err) from err

    # -- the interface between the concerns: each method is defined by the mixin named above it ------

    # statements.py

    @abc.abstractmethod
    def brace_init(self, t: Type, init: ts.Node) -> Val:
        """``T x = {a, b}`` or ``x = {a, b}``: a scalar or vector value from a brace initializer."""

    @abc.abstractmethod
    def union_value(self, union: UnionInfo, items: Sequence[ts.Node], node: ts.Node) -> Val:
        """A union initialised from one value (``U u(x)``, ``U(x)``): the member it sets, as the union's bits."""

    @abc.abstractmethod
    def define_lambda(self, node: ts.Node) -> Lambda:
        """The lambda ``node`` defines here: the names its body sees, with its by-value captures copied now."""

    @abc.abstractmethod
    def lambda_call(self, lam: Lambda, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A call of a lambda: its body lowered here, the parameters bound to the arguments."""

    @abc.abstractmethod
    def expression_statement(self, node: ts.Node) -> None:
        """An expression evaluated for its side effects (a call, an assignment, ``i++``, a comma list)."""

    # expressions.py

    @abc.abstractmethod
    def rvalue(self, node: ts.Node) -> Val:
        """Lower ``node`` as an rvalue; loads and side effects are emitted into the current buffer."""

    @abc.abstractmethod
    def brace_value(self, t: Type, init: ts.Node) -> Val:
        """A value of type ``t`` from a brace list (an argument, a returned value)."""

    @abc.abstractmethod
    def sizeof_value(self, node: ts.Node) -> int:
        """``sizeof expr``: the size of the expression's type; the expression is not evaluated."""

    @abc.abstractmethod
    def read(self, lv: LValue, node: ts.Node) -> Val:
        """The value of ``lv``; a read of memory emits a :class:`Load` into a fresh temporary."""

    @abc.abstractmethod
    def write(self, lv: LValue, v: Val, node: ts.Node) -> Val:
        """Store ``v`` (already of the lvalue's type) and return the stored value."""

    @abc.abstractmethod
    def bind_reference(
        self, p: Param, arg: LValue | Val, callee: Function, node: ts.Node
    ) -> tuple[Expr, Callable[[], None] | None]:
        """The IR argument for by-reference parameter ``p``: a local variable itself, or a temporary that
        holds an element of memory or a lane (read now), with the copy back to emit after the call."""

    @abc.abstractmethod
    def emit_call(
        self,
        callee: Function,
        args: Sequence[Expr],
        copies_back: Sequence[Callable[[], None]],
        name: str,
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """Emit the call (defined in ``lowering.overloads``)."""

    # cub.py

    @abc.abstractmethod
    def cub_typedef(self, name: str, type_node: ts.Node, node: ts.Node) -> bool:
        """``typedef cub::BlockReduce<float, 256> BlockReduce;``: remember the collective; whether it was one."""

    @abc.abstractmethod
    def cub_storage(self, type_node: ts.Node, node: ts.Node) -> bool:
        """``__shared__ typename BlockReduce::TempStorage temp;``: declare it; whether the declaration was one."""

    @abc.abstractmethod
    def cub_collective_of(self, node: ts.Node) -> tuple[CubCollective, VarRef] | None:
        """``BlockReduce(temp_storage)``: the collective and its storage, ``None`` for anything else."""

    @abc.abstractmethod
    def cub_method(
        self,
        collective: CubCollective,
        storage: VarRef,
        method: str,
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """A method of a cub collective on its storage."""

    @abc.abstractmethod
    def identifier(self, node: ts.Node) -> Val:
        """The value a name denotes (a variable, a constant, an enumerator, a template value parameter)."""

    @abc.abstractmethod
    def parameter_nodes(self, fn: ts.Node) -> list[ts.Node]:
        """The parameter declarations of a function definition (none for ``f(void)``)."""

    @abc.abstractmethod
    def local_address(self, node: ts.Node) -> tuple[VarLV, Type] | None:
        """``&x`` (viewed as ``x``'s own type) or a reinterpreted ``(T*)&x`` with ``x`` a local variable."""

    @abc.abstractmethod
    def lvalue(self, node: ts.Node) -> LValue | Val:
        """An lvalue for ``node``; an array expression or a non-lvalue yields a :class:`Val` instead."""

    @abc.abstractmethod
    def user_conversion(self, v: Val, node: ts.Node) -> Val | None:
        """``v`` converted by its struct's conversion operator to a scalar; ``None`` if it has none."""

    @abc.abstractmethod
    def subscript(self, base: LValue | Val, base_node: ts.Node, idx_node: ts.Node, node: ts.Node) -> LValue | Val:
        """``base[idx]``: a lane of a vector, an element of an array or memory through a pointer."""

    @abc.abstractmethod
    def apply_binary(self, op_text: str, a: Val, b: Val, node: ts.Node) -> Val:
        """``a op b`` for an operator spelled ``op_text``, with C's conversions and pointer arithmetic."""

    @abc.abstractmethod
    def assignment(self, node: ts.Node) -> Val:
        """``x = e`` or ``x op= e``: the stores it emits, and the value of the expression."""

    @abc.abstractmethod
    def update(self, node: ts.Node, *, want_value: bool) -> Val | None:
        """``++x``, ``x--``: the stores it emits and, with ``want_value``, the value of the expression."""

    # calls.py

    @abc.abstractmethod
    def call(self, node: ts.Node, *, want_value: bool) -> Val | None:
        """A call expression: a cast, a user or member function, a constructor, or the device library."""

    @abc.abstractmethod
    def member(self, name: str, node: ts.Node) -> LValue | Val | None:
        """Inside a member function: a data member (of ``this``) or a static constant of the struct."""

    @abc.abstractmethod
    def check_subscript_operator(self, vt: VectorType, node: ts.Node) -> ScalarType | None:
        """``p[i]`` on a struct value: lane ``i`` (``None``), or element ``i`` of its bits viewed as the type
        returned; an ``operator[]`` of another form is rejected."""

    @abc.abstractmethod
    def construct(self, info: StructInfo, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``S(args)`` or ``S{args}``: a constructor call on a fresh temporary, or aggregate initialisation."""

    # overloads.py

    @abc.abstractmethod
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
        ``candidates`` when given (an explicit specialization of a template that is only declared)."""

    @abc.abstractmethod
    def deduce(
        self,
        fd: FunctionDef,
        targs: list[TemplateArg],
        vals: Sequence[Val | LValue],
        node: ts.Node,
        group_args: Mapping[int, Group] | None = None,
    ) -> dict[str, TemplateArg] | LarkcError:
        """Template argument deduction from argument types, for parameters declared as plain ``T``; or
        why it fails."""

    # builtin_calls.py

    @abc.abstractmethod
    def builtin_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A call of the device library function ``name``, dispatched through the table of handlers."""

    @abc.abstractmethod
    def numeric_limits(self, type_text: str, member: str, node: ts.Node, type_node: ts.Node | None = None) -> Val:
        """``std::numeric_limits<T>::member()`` as a constant."""

    @abc.abstractmethod
    def shuffle_operand(self, v: Val, name: str, node: ts.Node) -> Val:
        """A value shuffles as a 32/64-bit scalar, a half, or a half pair; narrower integers promote."""

    @abc.abstractmethod
    def emit_shuffle(self, kind: ShuffleKind, mask: Expr, v: Val, lane: Expr, width: Expr | int, node: ts.Node) -> Val:
        """A :class:`Shuffle` of ``v`` into a fresh temporary, returned as a value."""

    @abc.abstractmethod
    def butterfly(self, v: Val, vt: Type, op: str, mask: Expr, width: int, node: ts.Node) -> Val:
        """``op`` over ``width`` lanes, left in every lane: ``log2 width`` xor-shuffle exchange steps."""

    # cooperative.py

    @abc.abstractmethod
    def cg_name(self, node: ts.Node) -> str | None:
        """``this_thread_block`` for ``cg::this_thread_block`` (with ``cg`` an alias), else ``None``."""

    @abc.abstractmethod
    def group_of(self, node: ts.Node) -> Group | None:
        """The group an expression denotes: a factory call, or a variable bound to a group."""

    @abc.abstractmethod
    def tile_declaration(self, node: ts.Node) -> bool:
        """``cg::thread_block_tile<32> t = ...;``, misread by tree-sitter as comparisons: declare the group."""

    @abc.abstractmethod
    def declares_groups(self, node: ts.Node) -> bool:
        """An ``auto`` declaration whose initializers are cooperative groups."""

    @abc.abstractmethod
    def declare_group(self, name_node: ts.Node, init: ts.Node | None, node: ts.Node) -> None:
        """Bind ``name_node`` in the current scope to the group ``init`` denotes (a compile-time value)."""

    @abc.abstractmethod
    def is_group_type(self, type_node: ts.Node) -> bool:
        """Whether a type node names a cooperative group (``thread_block``, ``thread_block_tile<N>``)."""

    @abc.abstractmethod
    def check_group_type(self, type_node: ts.Node, group: Group, node: ts.Node) -> None:
        """Reject a group bound to a variable or parameter whose type cannot hold it."""

    @abc.abstractmethod
    def group_method(
        self, group: Group, method: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool
    ) -> Val | None:
        """A method of a cooperative group (``sync``, ``thread_rank``, ``shfl_down``, ``ballot``, ...)."""

    @abc.abstractmethod
    def group_reduce(self, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``cg::reduce(tile, v, op)``: every lane gets op over the tile, by butterfly exchanges."""


def function_declarator(definition: ts.Node) -> ts.Node:
    """The function declarator (name and parameter list) of a function definition node."""
    decl = definition.child_by_field_name("declarator")
    while decl is not None and decl.type not in ("function_declarator", "abstract_function_declarator"):
        decl = decl.child_by_field_name("declarator") or (decl.named_children[-1] if decl.named_children else None)
    assert decl is not None
    return decl
