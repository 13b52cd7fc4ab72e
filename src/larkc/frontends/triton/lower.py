"""Lowering of one ``@triton.jit`` kernel (a Python ``ast``) into a block-level IR function.

A kernel is specialised before it is lowered, as Triton does at launch: every ``tl.constexpr``
parameter has a value, every other parameter an IR type (a ``ptr<global T>`` for a tensor, ``i32``/
``i64``/``f32``/``bool`` for a scalar). The body is then evaluated statement by statement over
:mod:`~larkc.frontends.triton.values`: compile-time values (constexprs, dtypes, shapes, ``static_range``
loops, ``if`` on a constexpr) are computed here, in Python; run-time values become IR expressions, and
the statements that need memory or control flow become IR statements.

* A Python variable holding a run-time value is an IR variable (``let``); rebinding it to another type
  declares a new IR variable, except where Triton forbids that (a variable carried by a loop or merged
  by an ``if`` keeps its type).
* A constexpr number assigned in a loop or in a branch of a run-time ``if`` becomes a run-time value
  before the loop or ``if`` (as Triton's code generator does for loop-carried values).
* Variables first bound in both branches of a run-time ``if`` with one type are declared before it;
  bound in one branch only, they end with it.
* Calls of other ``@triton.jit`` functions are inlined (a helper's ``return`` must end its body).
* The ``tl`` functions are a handler table (:mod:`larkc.frontends.triton.builtins`).

Anything outside this subset raises :class:`~larkc.errors.UnsupportedError` at the construct.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from larkc.errors import LarkcError, Span, TypeCheckError, UnsupportedError
from larkc.frontends.triton.source import Imported, SourceFile, note_decisions, read_source, span_of
from larkc.frontends.triton.values import (
    Constexpr,
    ConstValue,
    DType,
    FunctionRef,
    Namespace,
    NamespaceKind,
    PtrDType,
    Tensor,
    Value,
    broadcast_shape,
    computation_type,
    dtype_name,
    elem_of,
    literal_type,
    shape_of,
    with_elem,
)
from larkc.ir.nodes import (
    Assign,
    Binary,
    BinaryOp,
    Break,
    Broadcast,
    Cast,
    CastKind,
    Const,
    Decl,
    Expr,
    For,
    Function,
    FunctionKind,
    If,
    Level,
    Param,
    PtrAdd,
    Reshape,
    Return,
    Select,
    Splat,
    Stmt,
    Unary,
    UnaryOp,
    VarRef,
    While,
)
from larkc.ir.types import BOOL, F32, I32, I64, VOID, BlockType, PointerType, ScalarType, Type
from larkc.ir.values import round_float
from larkc.ir.verify import combine_signature_error

if TYPE_CHECKING:
    from larkc.frontends.triton.builtins import Handler

__all__ = ["BoundMethod", "BuiltinRef", "DescMethod", "KernelLowering", "TensorDesc", "TupleValue"]


@dataclass(frozen=True, slots=True)
class BuiltinRef:
    """A function of a Triton module (``tl.load``, ``libdevice.tanh``, ``triton.cdiv``)."""

    namespace: NamespaceKind
    name: str


@dataclass(frozen=True, slots=True)
class BoundMethod:
    """A tensor method (``x.to``, ``x.sum``): the handler of ``tl.<name>`` with ``x`` first."""

    self_: Tensor
    name: str


@dataclass(frozen=True, slots=True)
class TupleValue:
    """A tuple holding run-time values (a helper returning two tensors, ``a, b = ...``)."""

    items: tuple[AnyValue, ...]


@dataclass(frozen=True, slots=True)
class TensorDesc:
    """A tensor descriptor (``tl.make_tensor_descriptor``): a ``shape``-sized view of ``base`` (element
    strides ``strides``, the last 1) loaded and stored in blocks of ``block_shape`` at element offsets;
    elements outside the view read as the padding (0 or NaN) and are not stored."""

    base: Tensor
    shape: tuple[Tensor, ...]
    strides: tuple[Tensor, ...]
    block_shape: tuple[int, ...]
    nan_padding: bool


@dataclass(frozen=True, slots=True)
class DescMethod:
    """``desc.load`` or ``desc.store``."""

    desc: TensorDesc
    name: str


AnyValue = Value | BuiltinRef | BoundMethod | TupleValue | TensorDesc | DescMethod

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.Pow: "**",
}
_CMPOPS: dict[type[ast.cmpop], BinaryOp] = {
    ast.Eq: BinaryOp.EQ,
    ast.NotEq: BinaryOp.NE,
    ast.Lt: BinaryOp.LT,
    ast.LtE: BinaryOp.LE,
    ast.Gt: BinaryOp.GT,
    ast.GtE: BinaryOp.GE,
}
_PY_CMP: dict[BinaryOp, Callable[[Any, Any], object]] = {
    BinaryOp.EQ: operator.eq,
    BinaryOp.NE: operator.ne,
    BinaryOp.LT: operator.lt,
    BinaryOp.LE: operator.le,
    BinaryOp.GT: operator.gt,
    BinaryOp.GE: operator.ge,
}
_IR_OPS = {
    "+": BinaryOp.ADD,
    "-": BinaryOp.SUB,
    "*": BinaryOp.MUL,
    "//": BinaryOp.DIV,
    "%": BinaryOp.REM,
    "<<": BinaryOp.SHL,
    ">>": BinaryOp.SHR,
    "&": BinaryOp.BITAND,
    "|": BinaryOp.BITOR,
    "^": BinaryOp.BITXOR,
}


class _Return(Exception):
    """The value of an inlined helper's final ``return``."""

    def __init__(self, value: AnyValue) -> None:
        self.value = value


@dataclass
class _Var:
    """A Python name bound to an IR variable: its IR name, type and the control depth it was declared at."""

    ir: str
    type: Type
    depth: int


class KernelLowering:
    """Lowers one kernel of ``src``, specialised by ``params`` (IR types) and ``constexprs`` (values)."""

    def __init__(
        self, src: SourceFile, kernel: str, params: Mapping[str, Type], constexprs: Mapping[str, ConstValue]
    ) -> None:
        from larkc.frontends.triton.builtins import HANDLERS

        self.src = src
        self.handlers: Mapping[str, Handler] = HANDLERS
        self.kernel = src.functions[kernel]
        #: the name the kernel is asked by (a re-export's, `k = triton.jit(_k)`'s): the IR function's name
        self.kernel_name = kernel
        self.params = params
        self.constexprs = constexprs
        self.env: dict[str, AnyValue] = {}
        self.vars: dict[str, _Var] = {}
        self.out: list[Stmt] = []
        self.depth = 0
        self.used: set[str] = set()
        self.globals_cache: dict[tuple[str, str], AnyValue] = {}
        #: the files of the user's code read so far (the kernel's, and those it imports from), by name
        self.modules: dict[str, SourceFile] = {src.file: src}
        self.importing: list[tuple[str, str]] = []
        self.inlining: list[str] = []
        #: device functions made from the combine functions of ``tl.reduce``/``tl.associative_scan``,
        #: one per function and element types, in order of first use (they precede the kernel)
        self.functions: list[Function] = []
        self._combiners: dict[tuple[str, tuple[ScalarType, ...]], str] = {}

    # -- entry ------------------------------------------------------------------------------------

    def function(self) -> Function:
        fn = self.kernel.node
        span = self.src.span(fn)
        ir_params: list[Param] = []
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise UnsupportedError("kernel signature", "*args, **kwargs or keyword-only parameters", span)
        for a in args.args:
            pspan = self.src.span(a)
            if _is_constexpr_annotation(a.annotation) or a.arg in self.constexprs:
                if a.arg not in self.constexprs:
                    raise LarkcError(f"no value for constexpr parameter {a.arg} of {fn.name}", pspan)
                self.env[a.arg] = Constexpr(self.constexprs[a.arg])
                continue
            t = self.params.get(a.arg)
            if t is None:
                raise LarkcError(f"no type for parameter {a.arg} of {fn.name}", pspan)
            name = self.fresh(a.arg)
            ir_params.append(Param(name, t, span=pspan))
            self.env[a.arg] = Tensor(VarRef(name, t, pspan))
        try:
            self.block(fn.body)
        except _Return as r:
            raise UnsupportedError("return with a value", "in a kernel", span) from r
        return Function(
            self.kernel_name, FunctionKind.KERNEL, Level.BLOCK, tuple(ir_params), VOID, tuple(self.out), span=span
        )

    # -- names ------------------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}.{k}"
        self.used.add(name)
        return name

    def lookup(self, name: str, span: Span) -> AnyValue:
        v = self.env.get(name)
        if v is not None:
            return v
        key = (self.src.file, name)
        g = self.globals_cache.get(key)
        if g is not None:
            return g
        g = self.global_value(name, span)
        self.globals_cache[key] = g
        return g

    def global_value(self, name: str, span: Span) -> AnyValue:
        """The module-level ``name`` of the file being lowered (``self.src``)."""
        src = self.src
        if name in src.namespaces:
            return src.namespaces[name]
        if name in src.members:
            m = src.members[name]
            if m.kind is NamespaceKind.PYMATH:
                return self.attribute(Namespace(m.kind), m.name, span)
            return BuiltinRef(m.kind, m.name)
        if name in src.functions:
            return src.functions[name]
        if name in src.constants:
            saved_env = self.env
            self.env = {}
            try:
                g = self.expr(src.constants[name])
            finally:
                self.env = saved_env
            if isinstance(g, BuiltinRef) and g.name == "constexpr":
                raise UnsupportedError("module-level name", name, span)
            return g
        if name in src.imports:
            return self.imported(name, src.imports[name], span)
        if name in src.opaque:
            o = src.opaque[name]
            raise LarkcError(
                f"name {name} is {o.why} ({o.span.location()}): a @triton.jit function cannot use it", span
            )
        if name in src.defs:
            raise UnsupportedError("call of a Python function (not @triton.jit) in a kernel", name, span)
        if name in _PY_BUILTINS:
            return BuiltinRef(NamespaceKind.TRITON, f"py.{name}")
        raise LarkcError(f"name {name} is not defined (in a @triton.jit function)", span)

    def module(self, path: Path) -> SourceFile:
        """The file ``path`` of the user's code, read once per lowering."""
        key = str(path)
        src = self.modules.get(key)
        if src is None:
            src = self.modules[key] = read_source(path)
            note_decisions(src)
        return src

    def imported(self, name: str, imp: Imported, span: Span) -> AnyValue:
        """``name`` imported from a module of the user's code: that module's ``imp.name``, looked up there."""
        if len(self.importing) > 32 or (str(imp.path), imp.name) in self.importing:
            raise LarkcError(f"name {name} is imported in a cycle ({imp.path})", span)
        saved = self.src
        self.importing.append((str(imp.path), imp.name))
        try:
            self.src = self.module(imp.path)
            return self.lookup(imp.name, span)
        finally:
            self.src = saved
            self.importing.pop()

    # -- statements -------------------------------------------------------------------------------

    def block(self, stmts: Sequence[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def emit(self, s: Stmt) -> None:
        self.out.append(s)

    def stmt(self, s: ast.stmt) -> None:
        span = self.src.span(s)
        match s:
            case ast.Expr(value=ast.Constant(value=str())):
                return  # a docstring
            case ast.Expr(value=value):
                self.expr(value)
            case ast.Assign(targets=targets, value=value):
                v = self.expr(value)
                for t in targets:
                    self.assign(t, v, span)
            case ast.AnnAssign(target=target, value=value) if value is not None:
                v = self.expr(value)
                if _is_constexpr_annotation(s.annotation) and not isinstance(v, Constexpr):
                    raise TypeCheckError("a tl.constexpr variable needs a compile-time value", span)
                self.assign(target, v, span)
            case ast.AugAssign(target=ast.Name(id=name) as target, op=op, value=value):
                cur = self.lookup(name, span)
                v = self.binop(_BINOPS[type(op)], cur, self.expr(value), span)
                self.assign(target, v, span)
            case ast.If(test=test, body=body, orelse=orelse):
                self.if_(test, body, orelse, span)
            case ast.For():
                self.for_(s, span)
            case ast.While(test=test, body=body, orelse=[]):
                self.while_(test, body, span)
            case ast.Return(value=value):
                if self.inlining:
                    raise _Return(self.expr(value) if value is not None else Constexpr(None))
                if value is not None:
                    raise UnsupportedError("return with a value", "in a kernel", span)
                self.emit(Return(None, span))
            case ast.Pass():
                return
            case ast.Assert(test=test):
                c = self.expr(test)
                if not isinstance(c, Constexpr):
                    raise UnsupportedError("assert on a run-time value", "use tl.device_assert", span)
                if not c.value:
                    raise LarkcError("assertion failed at compile time", span)
            case ast.Break() | ast.Continue():
                raise UnsupportedError("statement", type(s).__name__.lower(), span)
            case _:
                raise UnsupportedError("statement", ast.unparse(s).split("\n")[0], span)

    def assign(self, target: ast.expr, v: AnyValue, span: Span) -> None:
        match target:
            case ast.Name(id=name):
                self.bind(name, v, span)
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                items = self.unpack(v, len(elts), span)
                for t, item in zip(elts, items, strict=True):
                    self.assign(t, item, span)
            case _:
                raise UnsupportedError("assignment target", ast.unparse(target), span)

    def unpack(self, v: AnyValue, n: int, span: Span) -> tuple[AnyValue, ...]:
        match v:
            case TupleValue(items=items) if len(items) == n:
                return items
            case Constexpr(value=tuple() as citems) if len(citems) == n:
                return tuple(Constexpr(x) for x in citems)
            case _:
                raise TypeCheckError(f"cannot unpack {self.describe(v)} into {n} names", span)

    def bind(self, name: str, v: AnyValue, span: Span) -> None:
        var = self.vars.get(name)
        if var is not None and var.depth < self.depth and isinstance(v, Constexpr) and _is_number(v.value):
            v = self.tensor(v, span)  # a loop-carried or merged variable stays a run-time value
        if not isinstance(v, Tensor):
            if var is not None and var.depth < self.depth:
                raise TypeCheckError(
                    f"{name} is a run-time value outside this loop or branch and cannot become {self.describe(v)}",
                    span,
                )
            self.vars.pop(name, None)
            self.env[name] = v
            return
        t = v.type
        if var is not None and var.type == t:
            self.emit(Assign(var.ir, v.expr, span))
            self.env[name] = Tensor(VarRef(var.ir, t, span))
            return
        if var is not None and var.depth < self.depth:
            raise TypeCheckError(
                f"{name} has type {self.type_text(var.type)} outside this loop or branch and cannot become "
                f"{self.type_text(t)} inside it",
                span,
            )
        ir = self.fresh(name)
        self.emit(Decl(ir, t, v.expr, span))
        self.vars[name] = _Var(ir, t, self.depth)
        self.env[name] = Tensor(VarRef(ir, t, span))

    def materialise(self, names: Iterator[str], span: Span) -> None:
        """Turn the constexpr numbers bound to ``names`` into run-time variables (before a loop or ``if``)."""
        for name in names:
            v = self.env.get(name)
            if isinstance(v, Constexpr) and _is_number(v.value):
                t = self.tensor(v, span)
                ir = self.fresh(name)
                self.emit(Decl(ir, t.type, t.expr, span))
                self.vars[name] = _Var(ir, t.type, self.depth)
                self.env[name] = Tensor(VarRef(ir, t.type, span))

    def nested(self, body: Sequence[ast.stmt]) -> tuple[Stmt, ...]:
        """Lower ``body`` one control level deeper; names it binds first end with it."""
        saved_out, saved_env, saved_vars = self.out, dict(self.env), dict(self.vars)
        self.out = []
        self.depth += 1
        try:
            self.block(body)
            return tuple(self.out)
        finally:
            self.depth -= 1
            self.out = saved_out
            new_env = {k: v for k, v in self.env.items() if k in saved_env}
            self.env = new_env
            self.vars = {k: v for k, v in self.vars.items() if k in saved_vars and saved_vars[k].ir == v.ir}
            for k, var in saved_vars.items():
                if k in self.env and k not in self.vars:
                    self.vars[k] = var

    def if_(self, test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt], span: Span) -> None:
        c = self.expr(test)
        if isinstance(c, Constexpr):
            self.block(body if c.value else orelse)
            return
        cond = self.condition(c, span)
        assigned = set(_assigned(body)) | set(_assigned(orelse))
        self.materialise(iter(sorted(assigned)), span)
        # Names first bound in both branches with one type live on after the `if`: declare them first.
        then_new, else_new = self.dry_run(body), self.dry_run(orelse)
        for name in sorted(set(then_new) & set(else_new)):
            if then_new[name] == else_new[name]:
                t = then_new[name]
                ir = self.fresh(name)
                self.emit(Decl(ir, t, None, span))
                self.vars[name] = _Var(ir, t, self.depth)
                self.env[name] = Tensor(VarRef(ir, t, span))
        then_s = self.nested(body)
        else_s = self.nested(orelse)
        self.emit(If(cond, then_s, else_s, span))

    def dry_run(self, body: Sequence[ast.stmt]) -> dict[str, Type]:
        """The types of the run-time names ``body`` binds first (lowered and thrown away)."""
        saved = (self.out, dict(self.env), dict(self.vars), set(self.used), self.depth)
        self.out = []
        self.depth += 1
        try:
            self.block(body)
            return {k: v.type for k, v in self.env.items() if isinstance(v, Tensor) and k not in saved[1]} | {
                k: self.tensor(v, Span.point(self.src.file, 1, 1)).type
                for k, v in self.env.items()
                if isinstance(v, Constexpr) and _is_number(v.value) and k not in saved[1]
            }
        except _Return:
            return {}
        finally:
            self.out, self.env, self.vars, self.used, self.depth = saved

    def for_(self, s: ast.For, span: Span) -> None:
        if s.orelse:
            raise UnsupportedError("for ... else", "", span)
        it = s.iter
        if not isinstance(it, ast.Call):
            raise UnsupportedError("for loop over", ast.unparse(it), self.src.span(it))
        fn = self.expr(it.func)
        kind = fn.name if isinstance(fn, BuiltinRef) else ""
        if kind not in ("py.range", "range", "static_range"):
            raise UnsupportedError("for loop over", ast.unparse(it), self.src.span(it))
        pos = [self.expr(a) for a in it.args[:3]]
        kws = {k.arg: self.expr(k.value) for k in it.keywords if k.arg is not None}
        lo: AnyValue
        if len(pos) == 1:
            lo, hi, step = Constexpr(0), pos[0], kws.get("step", Constexpr(1))
        else:
            lo, hi = pos[0], pos[1]
            step = pos[2] if len(pos) > 2 else kws.get("step", Constexpr(1))
        if not isinstance(s.target, ast.Name):
            raise UnsupportedError("loop variable", ast.unparse(s.target), self.src.span(s.target))
        var = s.target.id
        if kind == "static_range":
            if not all(isinstance(v, Constexpr) and isinstance(v.value, int) for v in (lo, hi, step)):
                raise TypeCheckError("tl.static_range needs compile-time bounds", span)
            assert isinstance(lo, Constexpr) and isinstance(hi, Constexpr) and isinstance(step, Constexpr)
            assert isinstance(lo.value, int) and isinstance(hi.value, int) and isinstance(step.value, int)
            for i in range(lo.value, hi.value, step.value):
                self.bind(var, Constexpr(i), span)
                self.block(s.body)
            return
        self.materialise(iter(sorted(set(_assigned(s.body)) - {var})), span)
        tlo, thi, tstep = (self.tensor(v, span) for v in (lo, hi, step))
        t = I32
        for x in (tlo, thi, tstep):
            xt = x.type
            if not isinstance(xt, ScalarType) or not xt.is_int:
                raise TypeCheckError(f"loop bounds must be integer scalars, got {self.type_text(xt)}", span)
            if xt.bits == 64:
                t = I64
        tlo, thi, tstep = (self.convert(x, t, span) for x in (tlo, thi, tstep))
        hi_e = self.stable(thi, "hi", span)
        step_e = self.stable(tstep, "step", span)
        down = isinstance(step, Constexpr) and isinstance(step.value, int) and step.value < 0
        if isinstance(step, Constexpr) and step.value == 0:
            raise TypeCheckError("range step is zero", span)
        iv = self.fresh(var)
        ref = VarRef(iv, t, span)
        cond = Binary(BinaryOp.GT if down else BinaryOp.LT, ref, hi_e, BOOL, span)
        saved = self.env.get(var), self.vars.get(var)
        self.env[var] = Tensor(ref)
        self.vars.pop(var, None)
        body = self.nested(s.body)
        self.env.pop(var, None)
        if saved[0] is not None:
            self.env[var] = saved[0]
        if saved[1] is not None:
            self.vars[var] = saved[1]
        step_s = (Assign(iv, Binary(BinaryOp.ADD, ref, step_e, t, span), span),)
        self.emit(For((Decl(iv, t, tlo.expr, span),), cond, step_s, body, None, span))

    def stable(self, v: Tensor, base: str, span: Span) -> Expr:
        """``v`` as an expression that does not change during a loop (a constant, or a fresh variable)."""
        if isinstance(v.expr, Const):
            return v.expr
        ir = self.fresh(base)
        self.emit(Decl(ir, v.type, v.expr, span))
        return VarRef(ir, v.type, span)

    def while_(self, test: ast.expr, body: list[ast.stmt], span: Span) -> None:
        self.materialise(iter(sorted(_assigned(body))), span)
        saved = self.out
        self.out = []
        self.depth += 1
        try:
            c = self.expr(test)
            if isinstance(c, Constexpr):
                raise UnsupportedError("while loop on a compile-time condition", ast.unparse(test), span)
            cond = self.condition(c, span)
            pre = tuple(self.out)
        finally:
            self.depth -= 1
            self.out = saved
        inner = self.nested(body)
        if not pre:
            self.emit(While(cond, inner, span))
            return
        stop = If(Unary(UnaryOp.NOT, cond, BOOL, span), (Break(span),), (), span)
        self.emit(While(Const(True, BOOL, span), (*pre, stop, *inner), span))

    def condition(self, c: AnyValue, span: Span) -> Expr:
        """A run-time scalar as an IR ``bool`` (non-zero is true)."""
        t = self.tensor(c, span)
        if isinstance(t.type, BlockType):
            raise TypeCheckError("the condition must be a scalar, not a block", span)
        return self.truth(t, span).expr

    def truth(self, t: Tensor, span: Span) -> Tensor:
        elem = elem_of(t.type)
        if elem == BOOL:
            return t
        if isinstance(elem, PointerType):
            raise UnsupportedError("pointer used as a condition", "", span)
        zero = self.splat_to(Tensor(Const(0.0 if elem.is_float else 0, elem, span)), shape_of(t.type), span)
        return Tensor(Binary(BinaryOp.NE, t.expr, zero.expr, with_elem(BOOL, shape_of(t.type)), span))

    # -- expressions ------------------------------------------------------------------------------

    def expr(self, e: ast.expr) -> AnyValue:
        span = self.src.span(e)
        try:
            return self._expr(e, span)
        except LarkcError as err:
            raise err.with_span(span) from None

    def _expr(self, e: ast.expr, span: Span) -> AnyValue:
        match e:
            case ast.Constant(value=value):
                if value is None or isinstance(value, bool | int | float | str):
                    return Constexpr(value)
                raise UnsupportedError("constant", repr(value), span)
            case ast.Name(id=name):
                return self.lookup(name, span)
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                items = tuple(self.expr(x) for x in elts)
                if all(isinstance(x, Constexpr) for x in items):
                    return Constexpr(tuple(x.value for x in items if isinstance(x, Constexpr)))
                return TupleValue(items)
            case ast.Attribute(value=base, attr=attr):
                return self.attribute(self.expr(base), attr, span)
            case ast.BinOp(left=left, op=op, right=right):
                return self.binop(_BINOPS[type(op)], self.expr(left), self.expr(right), span)
            case ast.UnaryOp(op=op, operand=operand):
                return self.unary(op, self.expr(operand), span)
            case ast.Compare(left=left, ops=[op], comparators=[right]):
                return self.compare(_CMPOPS.get(type(op)), e, left, right, span)
            case ast.BoolOp(op=op, values=values):
                return self.boolop(isinstance(op, ast.And), values, span)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                c = self.expr(test)
                if isinstance(c, Constexpr):
                    return self.expr(body if c.value else orelse)
                a, b = self.expr(body), self.expr(orelse)
                return self.where(self.tensor(c, span), a, b, span)
            case ast.Subscript(value=base, slice=index):
                return self.subscript(self.expr(base), index, span)
            case ast.Call(func=func, args=args, keywords=keywords):
                return self.call(self.expr(func), args, keywords, span)
            case _:
                raise UnsupportedError("expression", ast.unparse(e), span)

    def attribute(self, base: AnyValue, attr: str, span: Span) -> AnyValue:
        match base:
            case Namespace(kind=NamespaceKind.PYMATH):
                if attr in _PY_MATH_CONSTANTS:
                    return Constexpr(_PY_MATH_CONSTANTS[attr])
                return BuiltinRef(NamespaceKind.PYMATH, f"pymath.{attr}")
            case Namespace(kind=kind):
                if kind is NamespaceKind.TL and attr in ("math",):
                    return Namespace(NamespaceKind.MATH)
                if kind is NamespaceKind.TRITON and attr == "language":
                    return Namespace(NamespaceKind.TL)
                if kind is NamespaceKind.TL:
                    from larkc.frontends.triton.values import DTYPES

                    if attr in DTYPES and attr not in ("float", "fp16", "fp32", "fp64", "bf16"):
                        return Constexpr(DType(DTYPES[attr]))
                return BuiltinRef(kind, attr)
            case Tensor():
                if attr == "dtype":
                    elem = elem_of(base.type)
                    if isinstance(elem, PointerType):
                        if not isinstance(elem.pointee, ScalarType):
                            raise UnsupportedError("dtype of a pointer", str(elem), span)
                        return Constexpr(PtrDType(elem.pointee))
                    return Constexpr(DType(elem))
                if attr == "shape":
                    return Constexpr(tuple(shape_of(base.type)))
                if attr == "T":
                    return self.call_handler("trans", [base], {}, span)
                return BoundMethod(base, attr)
            case Constexpr(value=PtrDType(pointee=pointee)) if attr == "element_ty":
                return Constexpr(DType(pointee))
            case Constexpr(value=DType() as d):
                if attr == "primitive_bitwidth":
                    return Constexpr(1 if d.type == BOOL else d.type.bits)
                raise UnsupportedError("dtype attribute", attr, span)
            case Constexpr(value=value) if attr == "value":
                return Constexpr(value)
            case TensorDesc() if attr in ("load", "store"):
                return DescMethod(base, attr)
            case TensorDesc() if attr == "block_shape":
                return Constexpr(base.block_shape)
            case _:
                raise UnsupportedError("attribute", f"{self.describe(base)}.{attr}", span)

    def call(self, fn: AnyValue, args: list[ast.expr], keywords: list[ast.keyword], span: Span) -> AnyValue:
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
            raise UnsupportedError("call with *args or **kwargs", "", span)
        pos = [self.expr(a) for a in args]
        kws = {k.arg: self.expr(k.value) for k in keywords if k.arg is not None}
        match fn:
            case BuiltinRef(name=name):
                return self.call_handler(name, pos, kws, span)
            case BoundMethod(self_=obj, name=name):
                return self.call_handler(name, [obj, *pos], kws, span)
            case FunctionRef():
                return self.inline(fn, pos, kws, span)
            case DescMethod(desc=desc, name=name):
                return self.call_handler(f"descriptor_{name}", [desc, *pos], kws, span)
            case _:
                raise UnsupportedError("call of", self.describe(fn), span)

    def call_handler(self, name: str, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        h = self.handlers.get(name)
        if h is None:
            raise UnsupportedError("Triton function", name.removeprefix("py.") + "()", span)
        return h(self, pos, kws, span)

    def inline(self, fn: FunctionRef, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        node = fn.node
        if fn.name in self.inlining:
            raise UnsupportedError("recursive call", fn.name, span)
        params = node.args.args
        defaults = node.args.defaults
        bound: dict[str, AnyValue] = {}
        if len(pos) > len(params):
            raise TypeCheckError(f"{fn.name}() takes {len(params)} arguments, got {len(pos)}", span)
        for p, v in zip(params, pos, strict=False):
            bound[p.arg] = v
        for k, v in kws.items():
            if k not in {p.arg for p in params}:
                raise TypeCheckError(f"{fn.name}() has no parameter {k}", span)
            bound[k] = v
        first_default = len(params) - len(defaults)
        saved = (self.env, self.vars, self.depth)
        saved_src = self.src
        env: dict[str, AnyValue] = {}
        for i, p in enumerate(params):
            if p.arg in bound:
                v = bound[p.arg]
            elif i >= first_default:
                self.env = {}
                v = self.expr(defaults[i - first_default])
                self.env = saved[0]
            else:
                raise TypeCheckError(f"{fn.name}() missing argument {p.arg}", span)
            if _is_constexpr_annotation(p.annotation) and not isinstance(v, Constexpr):
                raise TypeCheckError(f"argument {p.arg} of {fn.name}() must be a compile-time value", span)
            env[p.arg] = v
        self.env, self.vars = env, {}
        self.src = self.modules.get(fn.file, self.src)  # the helper's names are those of its own file
        self.inlining.append(fn.name)
        result: AnyValue = Constexpr(None)
        try:
            body = node.body
            for i, st in enumerate(body):
                if isinstance(st, ast.Return):
                    if i != len(body) - 1:
                        raise UnsupportedError("statement after return", "", self.src.span(body[i + 1]))
                    result = self.expr(st.value) if st.value is not None else Constexpr(None)
                    break
                if _has_return(st):
                    raise UnsupportedError(
                        "return inside control flow",
                        f"in {fn.name} (inlined helpers return at the end)",
                        self.src.span(st),
                    )
                self.stmt(st)
        finally:
            self.inlining.pop()
            self.env, self.vars, self.depth = saved
            self.src = saved_src
        return result

    def combine_function(self, fn: AnyValue | None, elems: tuple[ScalarType, ...], span: Span) -> str:
        """The name of the device function computing the ``@triton.jit`` combine function ``fn`` on
        operands of element types ``elems`` (see :class:`~larkc.ir.nodes.Combine`): its parameters
        ``a1..an`` by reference, then ``b1..bn``; its body the inlined ``fn`` on scalars, its results
        assigned to ``a1..an`` at the end. Made once per function and element types."""
        if not isinstance(fn, FunctionRef):
            got = "nothing" if fn is None else self.describe(fn)
            raise TypeCheckError(f"the combine function must be a @triton.jit function, got {got}", span)
        key = (f"{fn.file}:{fn.name}", elems)
        made = self._combiners.get(key)
        if made is not None:
            return made
        n = len(elems)
        fn_span = self.modules.get(fn.file, self.src).span(fn.node)
        py_params = fn.node.args.args
        if len(py_params) != 2 * n:
            raise TypeCheckError(
                f"combine function {fn.name} must take {2 * n} arguments for {n} operand(s), got {len(py_params)}",
                span,
            )
        saved = (self.out, self.used, self.depth)
        self.out, self.used, self.depth = [], set(), 0
        try:
            params = tuple(
                Param(self.fresh(p.arg), elems[i % n], i < n, span_of(p, fn.file)) for i, p in enumerate(py_params)
            )
            result = self.inline(fn, [Tensor(VarRef(p.name, p.type, p.span)) for p in params], {}, span)
            items = result.items if isinstance(result, TupleValue) else (result,)
            if len(items) != n:
                raise TypeCheckError(f"combine function {fn.name} returns {len(items)} value(s), expected {n}", span)
            temps: list[VarRef] = []
            for item, t in zip(items, elems, strict=True):
                v = self.tensor(item, span, like=t)
                if v.type != t:
                    raise TypeCheckError(
                        f"combine function {fn.name} returns {self.describe(v)} where {dtype_name(t)} is expected", span
                    )
                temp_name = self.fresh("result")
                self.emit(Decl(temp_name, t, v.expr, span))  # all results first: each may read every a_i
                temps.append(VarRef(temp_name, t, span))
            for p, ref in zip(params, temps, strict=False):
                self.emit(Assign(p.name, ref, span))
            body = tuple(self.out)
        finally:
            self.out, self.used, self.depth = saved
        name = f"{fn.name}<{', '.join(dtype_name(t) for t in elems)}>"
        func = Function(name, FunctionKind.DEVICE, Level.BLOCK, params, VOID, body, span=fn_span)
        why = combine_signature_error(func, elems)
        if why is not None:
            bad = next((st for st in body if not isinstance(st, Decl | Assign)), None)
            if bad is not None:
                what = f"{type(bad).__name__.lower()} in combine function {fn.name}"
                raise UnsupportedError(what, "combine functions are straight-line code on scalars", bad.span)
            raise UnsupportedError(f"combine function {fn.name}", why.split(" ", 3)[-1], span)
        self.functions.append(func)
        self._combiners[key] = name
        return name

    def pick_function(self, elem: ScalarType, *, first: bool, span: Span) -> str:
        """A combine function keeping the first (``a = a``) or the last (``a = b``) element: reducing a
        dimension of size 2 with it selects one half (``tl.split``)."""
        which = "first" if first else "last"
        b = VarRef("b", elem, span)
        return self._made_combiner(f"pick.{which}", elem, () if first else (Assign("a", b, span),), span)

    def operator_function(self, op: BinaryOp, elem: ScalarType, span: Span) -> str:
        """A combine function ``a = a <op> b`` (``tl.xor_sum``, ``tl.reduce_or``: Triton's ``_xor_combine``,
        ``_or_combine``)."""
        a, b = VarRef("a", elem, span), VarRef("b", elem, span)
        return self._made_combiner(op.name.lower(), elem, (Assign("a", Binary(op, a, b, elem, span), span),), span)

    def _made_combiner(self, base: str, elem: ScalarType, body: tuple[Stmt, ...], span: Span) -> str:
        """The combine function ``base<elem>(&a, b)`` with ``body``, made once."""
        key = (base, (elem,))
        made = self._combiners.get(key)
        if made is not None:
            return made
        name = f"{base}<{dtype_name(elem)}>"
        params = (Param("a", elem, True, span), Param("b", elem, False, span))
        self.functions.append(Function(name, FunctionKind.DEVICE, Level.BLOCK, params, VOID, body, span=span))
        self._combiners[key] = name
        return name

    # -- conversions ------------------------------------------------------------------------------

    def describe(self, v: AnyValue) -> str:
        match v:
            case Constexpr(value=DType() as d):
                return f"dtype {dtype_name(d.type)}"
            case Constexpr(value=PtrDType() as d):
                return f"dtype pointer<{dtype_name(d.pointee)}>"
            case Constexpr(value=value):
                return f"constexpr {value!r}"
            case Tensor():
                return f"a value of type {self.type_text(v.type)}"
            case FunctionRef(name=name):
                return f"function {name}"
            case BuiltinRef(name=name):
                return f"function {name.removeprefix('py.')}"
            case BoundMethod(name=name):
                return f"method {name}"
            case TupleValue():
                return "a tuple"
            case TensorDesc():
                return "a tensor descriptor"
            case DescMethod(name=name):
                return f"method {name} of a tensor descriptor"
            case Namespace(kind=kind):
                return f"module {kind.value}"

    @staticmethod
    def type_text(t: Type) -> str:
        match t:
            case ScalarType():
                return dtype_name(t)
            case PointerType(pointee=ScalarType() as p):
                return f"pointer<{dtype_name(p)}>"
            case BlockType(elem=elem, shape=shape):
                inner = KernelLowering.type_text(elem)
                return f"block[{', '.join(map(str, shape))}] of {inner}"
            case _:
                return str(t)

    def tensor(self, v: AnyValue, span: Span, like: ScalarType | None = None) -> Tensor:
        """``v`` as a run-time value; a Python number gets ``like`` or its own Triton type."""
        match v:
            case Tensor():
                return v
            case Constexpr(value=bool() | int() | float() as x):
                t = like or literal_type(x)
                return Tensor(self.const(x, t, span))
            case _:
                raise TypeCheckError(f"expected a tensor or a number, got {self.describe(v)}", span)

    def const(self, x: bool | int | float, t: ScalarType, span: Span) -> Const:
        if t.is_bool:
            return Const(bool(x), t, span)
        if t.is_int:
            if isinstance(x, float):
                raise TypeCheckError(f"cannot use {x!r} as {dtype_name(t)}", span)
            lo, hi = (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1) if t.is_signed else (0, 2**t.bits - 1)
            if not lo <= int(x) <= hi:
                raise TypeCheckError(f"scalar {x} is out of range for type {dtype_name(t)}", span)
            return Const(int(x), t, span)
        return Const(round_float(float(x), t), t, span)

    def convert(self, v: Tensor, t: ScalarType, span: Span, bitcast: bool = False) -> Tensor:
        """``v`` converted (elementwise) to element type ``t``."""
        src = elem_of(v.type)
        if src == t:
            return v
        shape = shape_of(v.type)
        if isinstance(v.expr, Const) and not shape and not bitcast and isinstance(src, ScalarType):
            x = v.expr.value
            if t.is_float or (t.is_bool and not src.is_float) or (src.is_int and t.is_int and not src.is_bool):
                folded = _convert_value(x, src, t)
                if folded is not None:
                    return Tensor(Const(folded, t, span))
        if not bitcast and t.is_bool:
            return self.truth(v, span)
        kind = CastKind.BITCAST if bitcast else CastKind.CONVERT
        return Tensor(Cast(v.expr, with_elem(t, shape), kind, span))

    def splat_to(self, v: Tensor, shape: Sequence[int], span: Span) -> Tensor:
        """``v`` broadcast to ``shape`` (a scalar is splatted; a block's size-1 dims are stretched)."""
        shape = tuple(shape)
        have = shape_of(v.type)
        if have == shape:
            return v
        elem = elem_of(v.type)
        if not have:
            return Tensor(Splat(v.expr, BlockType(elem, shape), span))
        if len(have) < len(shape):
            padded = (1,) * (len(shape) - len(have)) + have
            v = Tensor(Reshape(v.expr, BlockType(elem, padded), span))
            have = padded
            if have == shape:
                return v
        if broadcast_shape(have, shape, span) != shape:
            raise TypeCheckError(f"cannot broadcast shape {list(have)} to {list(shape)}", span)
        return Tensor(Broadcast(v.expr, BlockType(elem, shape), span))

    def broadcast(self, a: Tensor, b: Tensor, span: Span) -> tuple[Tensor, Tensor]:
        sa, sb = shape_of(a.type), shape_of(b.type)
        if sa == sb:
            return a, b
        shape = broadcast_shape(sa, sb, span)
        return self.splat_to(a, shape, span), self.splat_to(b, shape, span)

    def promote(self, a: AnyValue, b: AnyValue, span: Span, div_or_mod: bool = False) -> tuple[Tensor, Tensor]:
        """Both operands converted to their computation type and broadcast (Triton's type checking)."""
        ta, tb = self.tensor(a, span), self.tensor(b, span)
        ea, eb = elem_of(ta.type), elem_of(tb.type)
        if isinstance(ea, PointerType) or isinstance(eb, PointerType):
            raise TypeCheckError("arithmetic on pointers (other than adding an integer offset)", span)
        ct = computation_type(ea, _is_py_number(a), eb, _is_py_number(b), div_or_mod)
        if isinstance(ct, str):
            raise TypeCheckError(ct, span)
        return self.broadcast(self.as_type(a, ta, ct, span), self.as_type(b, tb, ct, span), span)

    def as_type(self, v: AnyValue, t: Tensor, ct: ScalarType, span: Span) -> Tensor:
        if isinstance(v, Constexpr) and _is_number(v.value):
            x = v.value
            assert isinstance(x, bool | int | float)
            if ct.is_unsigned and x < 0:
                raise TypeCheckError(
                    "cannot combine an unsigned tensor with a negative scalar (cast one of them)", span
                )
            if ct.is_int and isinstance(x, float):
                return self.convert(t, ct, span)
            return Tensor(self.const(x, ct, span))
        return self.convert(t, ct, span)

    # -- operators --------------------------------------------------------------------------------

    def binop(self, op: str, a: AnyValue, b: AnyValue, span: Span) -> AnyValue:
        if isinstance(a, Constexpr) and isinstance(b, Constexpr):
            return Constexpr(_py_binop(op, a.value, b.value, span))
        others = (TupleValue, FunctionRef, Namespace, BuiltinRef, BoundMethod, TensorDesc, DescMethod)
        if isinstance(a, others) or isinstance(b, others):
            raise TypeCheckError(f"operator {op} on {self.describe(a)} and {self.describe(b)}", span)
        if op in ("+", "-") and self.is_pointer(a):
            return self.ptr_add(self.tensor(a, span), b, span, negate=op == "-")
        if op == "+" and self.is_pointer(b):
            return self.ptr_add(self.tensor(b, span), a, span)
        if op == "**":
            raise UnsupportedError("operator", "** on tensors (use libdevice.pow)", span)
        if op == "/":
            return self.truediv(a, b, span)
        div_or_mod = op in ("//", "%")
        ta, tb = self.promote(a, b, span, div_or_mod)
        t = ta.type
        elem = elem_of(t)
        assert isinstance(elem, ScalarType)
        if op in ("<<", ">>", "&", "|", "^", "//") and elem.is_float:
            raise TypeCheckError(f"operator {op} needs integer operands, got {self.type_text(t)}", span)
        if op in ("+", "-", "*", "//", "%", "<<", ">>") and elem.is_bool:
            return self.int1_arith(op, ta, tb, span)
        if op == "%" and elem.is_float:
            from larkc.ir.nodes import MathCall, MathFn

            return Tensor(MathCall(MathFn.FMOD, (ta.expr, tb.expr), t, span=span))
        return Tensor(Binary(_IR_OPS[op], ta.expr, tb.expr, t, span))

    def int1_arith(self, op: str, a: Tensor, b: Tensor, span: Span) -> Tensor:
        """Arithmetic on ``int1`` (1-bit, modulo 2), computed in ``i32`` and reduced to its low bit."""
        shape = shape_of(a.type)
        t32 = with_elem(I32, shape)
        x, y = self.convert(a, I32, span), self.convert(b, I32, span)
        r = Binary(_IR_OPS[op], x.expr, y.expr, t32, span)
        one = self.splat_to(Tensor(Const(1, I32, span)), shape, span).expr
        return self.truth(Tensor(Binary(BinaryOp.BITAND, r, one, t32, span)), span)

    def truediv(self, a: AnyValue, b: AnyValue, span: Span) -> Tensor:
        ta, tb = self.promote(a, b, span, div_or_mod=True)
        elem = elem_of(ta.type)
        assert isinstance(elem, ScalarType)
        if not elem.is_float:
            ta, tb = self.convert(ta, F32, span), self.convert(tb, F32, span)
        return Tensor(Binary(BinaryOp.DIV, ta.expr, tb.expr, ta.type, span))

    def is_pointer(self, v: AnyValue) -> bool:
        return isinstance(v, Tensor) and isinstance(elem_of(v.type), PointerType)

    def ptr_add(self, p: Tensor, off: AnyValue, span: Span, negate: bool = False) -> Tensor:
        o = self.tensor(off, span)
        oe = elem_of(o.type)
        if not isinstance(oe, ScalarType) or not oe.is_int:
            raise TypeCheckError(f"a pointer offset must be an integer, got {self.describe(off)}", span)
        if negate:
            o = Tensor(Unary(UnaryOp.NEG, o.expr, o.type, span))
        p, o = self.broadcast(p, o, span)
        return Tensor(PtrAdd(p.expr, o.expr, p.type, span))

    def unary(self, op: ast.unaryop, v: AnyValue, span: Span) -> AnyValue:
        if isinstance(v, Constexpr):
            x = v.value
            match op:
                case ast.USub() if _is_number(x):
                    assert isinstance(x, int | float)
                    return Constexpr(-x)
                case ast.UAdd() if _is_number(x):
                    return v
                case ast.Not():
                    return Constexpr(not x)
                case ast.Invert() if isinstance(x, int):
                    return Constexpr(~x)
                case _:
                    raise TypeCheckError(f"operator {type(op).__name__} on {self.describe(v)}", span)
        t = self.tensor(v, span)
        elem = elem_of(t.type)
        if isinstance(elem, PointerType):
            raise TypeCheckError("unary operator on a pointer", span)
        match op:
            case ast.USub():
                if elem.is_bool:
                    return t  # 0 - x modulo 2 is x
                return Tensor(Unary(UnaryOp.NEG, t.expr, t.type, span))
            case ast.UAdd():
                return t
            case ast.Not():
                if isinstance(t.type, BlockType):
                    raise TypeCheckError("`not` of a block (use ~ or ==)", span)
                b = self.truth(t, span)
                return Tensor(Unary(UnaryOp.NOT, b.expr, BOOL, span))
            case ast.Invert():
                if elem.is_float:
                    raise TypeCheckError("~ needs an integer or int1 operand", span)
                if elem.is_bool:
                    return Tensor(Unary(UnaryOp.NOT, t.expr, t.type, span))
                return Tensor(Unary(UnaryOp.BITNOT, t.expr, t.type, span))
            case _:
                raise UnsupportedError("unary operator", type(op).__name__, span)

    def compare(self, op: BinaryOp | None, e: ast.expr, left: ast.expr, right: ast.expr, span: Span) -> AnyValue:
        a, b = self.expr(left), self.expr(right)
        assert isinstance(e, ast.Compare)
        if op is None:
            if isinstance(e.ops[0], ast.Is | ast.IsNot) and isinstance(a, Constexpr) and isinstance(b, Constexpr):
                same = a.value is b.value or a.value == b.value
                return Constexpr(same if isinstance(e.ops[0], ast.Is) else not same)
            raise UnsupportedError("comparison", ast.unparse(e), span)
        if self.is_pointer(a) or self.is_pointer(b):
            raise UnsupportedError("comparison of pointers", ast.unparse(e), span)
        return self.compare_values(op, a, b, span)

    def compare_values(self, op: BinaryOp, a: AnyValue, b: AnyValue, span: Span) -> AnyValue:
        """``a <op> b`` for a comparison ``op`` (Python's on two constexprs)."""
        if isinstance(a, Constexpr) and isinstance(b, Constexpr):
            return Constexpr(bool(_PY_CMP[op](a.value, b.value)))
        ta, tb = self.promote(a, b, span)
        return Tensor(Binary(op, ta.expr, tb.expr, with_elem(BOOL, shape_of(ta.type)), span))

    def boolop(self, is_and: bool, values: list[ast.expr], span: Span) -> AnyValue:
        acc = self.expr(values[0])
        for nxt in values[1:]:
            if isinstance(acc, Constexpr):
                if bool(acc.value) != is_and:
                    return acc  # Python's short circuit on a compile-time value
                acc = self.expr(nxt)
                continue
            b = self.expr(nxt)
            ta = self.tensor(acc, span)
            tb = self.tensor(b, span)
            if isinstance(ta.type, BlockType) or isinstance(tb.type, BlockType):
                raise TypeCheckError("`and`/`or` of blocks (use & or |)", span)
            ea, eb = self.truth(ta, span), self.truth(tb, span)
            acc = Tensor(Binary(BinaryOp.LAND if is_and else BinaryOp.LOR, ea.expr, eb.expr, BOOL, span))
        return acc

    def where(self, c: Tensor, a: AnyValue, b: AnyValue, span: Span) -> Tensor:
        cond = self.truth(c, span) if elem_of(c.type) != BOOL else c
        if self.is_pointer(a) or self.is_pointer(b):
            ta, tb = self.broadcast(self.tensor(a, span), self.tensor(b, span), span)
            if elem_of(ta.type) != elem_of(tb.type):
                raise TypeCheckError("tl.where of two different pointer types", span)
        else:
            ta, tb = self.promote(a, b, span)
        shape = broadcast_shape(shape_of(cond.type), shape_of(ta.type), span)
        cond, ta, tb = (self.splat_to(x, shape, span) for x in (cond, ta, tb))
        return Tensor(Select(cond.expr, ta.expr, tb.expr, ta.type, span))

    def subscript(self, base: AnyValue, index: ast.expr, span: Span) -> AnyValue:
        match base:
            case Constexpr(value=tuple() as citems):
                i = self.expr(index)
                if isinstance(i, Constexpr) and isinstance(i.value, int):
                    return Constexpr(citems[i.value])
            case TupleValue(items=items):
                i = self.expr(index)
                if isinstance(i, Constexpr) and isinstance(i.value, int):
                    return items[i.value]
            case Tensor():
                parts = index.elts if isinstance(index, ast.Tuple) else [index]
                shape = list(shape_of(base.type))
                out: list[int] = []
                k = 0
                for p in parts:
                    if isinstance(p, ast.Constant) and p.value is None:
                        out.append(1)
                    elif isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None:
                        if k >= len(shape):
                            raise TypeCheckError("too many indices for the block", span)
                        out.append(shape[k])
                        k += 1
                    else:
                        raise UnsupportedError("indexing of a tensor", ast.unparse(index), span)
                out.extend(shape[k:])
                return Tensor(Reshape(base.expr, BlockType(elem_of(base.type), tuple(out)), span))
            case _:
                pass
        raise UnsupportedError("subscript", f"{self.describe(base)}[{ast.unparse(index)}]", span)


def _is_number(x: object) -> bool:
    return isinstance(x, bool | int | float)


def _is_py_number(v: AnyValue) -> bool:
    return isinstance(v, Constexpr) and _is_number(v.value)


def _is_constexpr_annotation(a: ast.expr | None) -> bool:
    if a is None:
        return False
    text = ast.unparse(a)
    return text.endswith("constexpr") or text in ("'constexpr'", '"constexpr"')


def _assigned(stmts: Sequence[ast.stmt]) -> Iterator[str]:
    """Names a statement list binds (targets of assignments, loop variables), nested bodies included."""
    for s in stmts:
        for node in ast.walk(s):
            match node:
                case ast.Name(id=name, ctx=ast.Store()):
                    yield name
                case _:
                    pass


def _has_return(s: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(s))


def _convert_value(x: bool | int | float, src: ScalarType, t: ScalarType) -> bool | int | float | None:
    """A constant conversion the IR would compute the same way, or ``None`` to leave it to a cast."""
    if t.is_bool:
        return bool(x)
    if t.is_float:
        return round_float(float(x), t)
    if isinstance(x, bool):
        x = int(x)
    assert isinstance(x, int)
    bits = t.bits
    x &= (1 << bits) - 1
    if t.is_signed and x >= 1 << (bits - 1):
        x -= 1 << bits
    return x


def _py_binop(op: str, a: ConstValue, b: ConstValue, span: Span) -> ConstValue:
    """Compile-time arithmetic: Python's own semantics (as Triton's constexprs have)."""
    fns: dict[str, Callable[[object, object], object]] = {
        "+": operator.add,
        "-": operator.sub,
        "*": operator.mul,
        "/": operator.truediv,
        "//": operator.floordiv,
        "%": operator.mod,
        "<<": operator.lshift,
        ">>": operator.rshift,
        "&": operator.and_,
        "|": operator.or_,
        "^": operator.xor,
        "**": operator.pow,
    }
    try:
        out = fns[op](a, b)
    except (TypeError, ZeroDivisionError, ValueError) as e:
        raise TypeCheckError(f"compile-time {a!r} {op} {b!r}: {e}", span) from None
    assert isinstance(out, bool | int | float | str | tuple)
    return out


#: Python builtins a body may call (on compile-time values; ``range`` in ``for`` loops).
_PY_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_PY_BUILTINS = {"range", "min", "max", "len", "int", "float", "bool", "abs", "isinstance", "print", "getattr"}
