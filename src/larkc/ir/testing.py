"""Hypothesis strategies that generate random well-typed kernel IR, and helpers to mutate it.

For property tests of every stage that consumes IR (printer, parser, simulator, lowering)::

    from hypothesis import given
    from larkc.ir.testing import functions, modules

    @given(modules())
    def test_roundtrip(m): ...

Generated IR passes :func:`larkc.ir.verify.verify_module` by construction: expressions are built
top-down for a wanted type from productions whose typing rules give that type, over the variables in
scope; statements of every kind use them, with nested control flow, device functions and calls, and
block-level (Triton-like) functions with block operations. Sizes are kept small (expression depth 2,
statement nesting 2) so that a hundred examples take seconds.

This module needs ``hypothesis`` (a development dependency); nothing in the pipeline imports it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields, is_dataclass, replace
from functools import partial
from typing import TypeVar

from hypothesis import strategies as st

from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    Assign,
    Assume,
    Atomic,
    AtomicOp,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Break,
    Broadcast,
    Builtin,
    BuiltinReg,
    Call,
    Cast,
    CastKind,
    Combine,
    CombineKind,
    Const,
    Continue,
    Decl,
    Dim,
    Dot,
    DoWhile,
    Expr,
    Extract,
    Fence,
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
    MemoryOrder,
    MemScope,
    Module,
    Param,
    Permute,
    PtrAdd,
    Reduce,
    ReduceOp,
    Reshape,
    Return,
    Scan,
    Select,
    Shuffle,
    ShuffleKind,
    Splat,
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
    VOID,
    AddressSpace,
    BlockType,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
)
from larkc.ir.verify import combine_signature_error

__all__ = ["count_nodes", "functions", "modules", "node_classes", "replace_node"]

_T = TypeVar("_T")

_SCALARS = (BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
_NUMERIC = tuple(s for s in _SCALARS if not s.is_bool)
_INTS = tuple(s for s in _SCALARS if s.is_int)
_FLOATS = (F16, BF16, F32, F64)
_VECTORS = (
    VectorType(F32, 2, 8),
    VectorType(F32, 4, 16),
    VectorType(F16, 2, 4),
    VectorType(BF16, 2, 4),
    VectorType(F16, 8, 16),
    VectorType(I32, 4, 16),
    VectorType(U32, 2, 8),
    VectorType(U8, 4, 4),
    VectorType(F64, 2, 16),
    VectorType(F32, 2, 16),  # over-aligned: prints as f32x2align16
)
_SHAPES = ((4,), (8,), (2, 4), (4, 2), (4, 4), (1, 4), (4, 1), (2, 2, 2))
_SHUFFLABLE: tuple[Type, ...] = (
    I16,
    U16,
    F16,
    BF16,
    I32,
    U32,
    F32,
    I64,
    U64,
    F64,
    VectorType(F16, 2, 4),
    VectorType(BF16, 2, 4),
)
_ATOMIC_SPACES = (AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.GENERIC)

_ARITH = (BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV, BinaryOp.MIN, BinaryOp.MAX)
_INT_OPS = (BinaryOp.REM, BinaryOp.SHL, BinaryOp.SHR)
_BIT_OPS = (BinaryOp.BITAND, BinaryOp.BITOR, BinaryOp.BITXOR)
_ORDER_OPS = (BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE)
_EQ_OPS = (BinaryOp.EQ, BinaryOp.NE)
_FLOAT_FNS_1 = tuple(
    f
    for f in MathFn
    if f
    not in (
        MathFn.ATAN2,
        MathFn.POW,
        MathFn.FMOD,
        MathFn.DIV,
        MathFn.COPYSIGN,
        MathFn.FMA,
        MathFn.ISNAN,
        MathFn.ISINF,
        MathFn.ISFINITE,
        MathFn.SIGNBIT,
        MathFn.POPC,
        MathFn.CLZ,
        MathFn.FFS,
    )
)
_FLOAT_FNS_2 = (MathFn.ATAN2, MathFn.POW, MathFn.FMOD, MathFn.COPYSIGN)
_APPROX_FNS_1 = (
    MathFn.EXP,
    MathFn.EXP2,
    MathFn.EXP10,
    MathFn.LOG,
    MathFn.LOG2,
    MathFn.LOG10,
    MathFn.SIN,
    MathFn.COS,
    MathFn.TAN,
    MathFn.SQRT,
    MathFn.RSQRT,
    MathFn.TANH,
)
_PREDICATES = (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE, MathFn.SIGNBIT)
_BIT_COUNTS = (MathFn.POPC, MathFn.CLZ, MathFn.FFS)

#: Expression depth and statement nesting of generated functions.
_EXPR_DEPTH = 2
_STMT_DEPTH = 2


def _shape_of(t: Type) -> tuple[int, ...] | None:
    return t.shape if isinstance(t, BlockType) else None


def _like(t: Type, elem: ScalarType | PointerType) -> Type:
    """A value of ``t``'s shape (scalar or block) with element ``elem``."""
    return BlockType(elem, t.shape) if isinstance(t, BlockType) else elem


class _Gen:
    """Draws one function's worth of IR; tracks the variables in scope and the names used."""

    def __init__(self, draw: st.DrawFn, level: Level, callees: tuple[Function, ...], names: Iterator[int]) -> None:
        self.draw = draw
        self.level = level
        self.callees = tuple(f for f in callees if f.level is level and f.kind is FunctionKind.DEVICE)
        self.names = names
        self.scopes: list[dict[str, tuple[Type, bool]]] = [{}]  # name -> (type, assignable)
        self.ret: Type = VOID
        self.scalars_only = False  # drawing a combine function's body: scalars, no builtins
        self.combiners = tuple(f for f in self.callees if _combiner_elems(f) is not None)

    # -- choices ------------------------------------------------------------------------------------

    def index(self, n: int) -> int:
        return self.draw(st.integers(0, n - 1))

    def pick(self, options: tuple[_T, ...] | list[_T]) -> _T:
        return options[self.index(len(options))]

    def coin(self) -> bool:
        return self.draw(st.booleans())

    def fresh(self) -> str:
        """A new local name; some are not plain identifiers, to exercise the printer's quoting."""
        n = next(self.names)
        return self.pick((f"v{n}", f"v{n}", f"v{n}", f"i.{n}", f"t<{n}>", f'q "{n}"'))

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    def declare(self, name: str, t: Type, *, assignable: bool = True) -> None:
        self.scopes[-1][name] = (t, assignable)

    def variables(self, t: Type, *, assignable: bool = False) -> list[str]:
        """Names in scope of type ``t`` (only assignable ones if asked), innermost last."""
        return [
            name
            for scope in self.scopes
            for name, (vt, can_assign) in scope.items()
            if vt == t and (can_assign or not assignable)
        ]

    # -- types --------------------------------------------------------------------------------------

    def scalar(self, options: tuple[ScalarType, ...] = _SCALARS) -> ScalarType:
        return self.pick(options)

    def pointer(self, *, const: bool | None = None, space: AddressSpace | None = None) -> PointerType:
        """A pointer to a scalar (or, at thread level, sometimes a vector or a pointer)."""
        pointee: Type = self.scalar()
        if self.level is Level.THREAD:
            pointee = self.pick((pointee, pointee, self.pick(_VECTORS), PointerType(F32, AddressSpace.GLOBAL)))
        if space is None:
            spaces = tuple(AddressSpace) if self.level is Level.THREAD else (AddressSpace.GLOBAL,)
            space = self.pick(spaces)
        return PointerType(pointee, space, self.coin() if const is None else const, self.coin())

    def value_type(self) -> Type:
        if self.level is Level.THREAD:
            options: tuple[Type, ...] = (self.scalar(), self.scalar(), self.pick(_VECTORS), self.pointer())
            return self.pick(options)
        elem = self.pick((self.scalar(), self.scalar(), self.pointer()))
        assert isinstance(elem, ScalarType | PointerType)
        return self.pick((elem, BlockType(elem, self.pick(_SHAPES))))

    # -- expressions --------------------------------------------------------------------------------

    def const(self, t: ScalarType) -> Const:
        value: bool | int | float
        if t.is_bool:
            value = self.coin()
        elif t.is_int:
            lo, hi = (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1) if t.is_signed else (0, 2**t.bits - 1)
            value = self.draw(st.one_of(st.integers(max(lo, -4), min(hi, 4)), st.integers(lo, hi)))
        elif t == BF16:
            bits = self.draw(st.integers(0, 0xFFFF))
            value = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
        else:
            width = {F16: 16, F32: 32, F64: 64}[t]
            value = self.draw(st.floats(width=width))  # type: ignore[arg-type]  # width is 16, 32 or 64
        if isinstance(value, float) and math.isnan(value):
            value = math.nan  # the shared object, so that equal modules compare equal
        return Const(value, t)

    def expr(self, t: Type, depth: int = _EXPR_DEPTH) -> Expr:
        """A well-typed expression of type ``t`` over the variables in scope."""
        options = self.leaves(t)
        if depth > 0:
            options += self.compounds(t, depth - 1)
        return self.pick(options)()

    def leaves(self, t: Type) -> list[Callable[[], Expr]]:
        out: list[Callable[[], Expr]] = [self.var(n, t) for n in self.variables(t)]
        match t:
            case ScalarType():
                out.append(lambda: self.const(t))
                if t == (U32 if self.level is Level.THREAD else I32) and not self.scalars_only:
                    regs = (
                        tuple(BuiltinReg) if self.level is Level.THREAD else (BuiltinReg.BLOCK_IDX, BuiltinReg.GRID_DIM)
                    )
                    out.append(lambda: Builtin(self.pick(regs), self.pick(tuple(Dim)), t))
            case VectorType():
                out.append(lambda: MakeVector(tuple(self.const(t.elem) for _ in range(t.lanes)), t))
            case PointerType():
                out.append(lambda: Cast(self.const(self.pick((I64, U64))), t, CastKind.BITCAST))
            case BlockType():
                elem = t.elem
                out.append(lambda: Splat(self.leaf(elem), t))
                if isinstance(elem, ScalarType) and elem.is_int and len(t.shape) == 1:
                    out.append(lambda: self.offsets(t))
            case _:
                raise AssertionError(f"no leaves of type {t}")
        return out

    @staticmethod
    def var(name: str, t: Type) -> Callable[[], Expr]:
        return lambda: VarRef(name, t)

    def leaf(self, t: Type) -> Expr:
        return self.pick(self.leaves(t))()

    def offsets(self, t: BlockType) -> Expr:
        """Triton's offsets: ``tl.arange``, converted when an integer type other than i32 is wanted."""
        arange = self.arange(t.shape[0])
        return arange if t.elem == I32 else Cast(arange, t, CastKind.CONVERT)

    def arange(self, n: int) -> Arange:
        start = self.draw(st.integers(-2, 8))
        return Arange(start, start + n, BlockType(I32, (n,)))

    def compounds(self, t: Type, d: int) -> list[Callable[[], Expr]]:
        """Productions whose rule gives type ``t``, with operands of depth ``d``."""
        out: list[Callable[[], Expr]] = [lambda: self.select(t, d)]
        elem = t.elem if isinstance(t, VectorType | BlockType) else t
        shape = _shape_of(t)
        if isinstance(elem, ScalarType):
            out += self.elementwise(t, elem, d)
            if not isinstance(t, VectorType):
                out.append(lambda: self.convert(t, elem, d))
            out.append(lambda: self.bitcast(t, d))
        match t:
            case ScalarType():
                if self.level is Level.THREAD:
                    vectors = [v for v in _VECTORS if v.elem == t]
                    if vectors:
                        out.append(lambda: self.extract(self.pick(vectors), d))
                elif not t.is_bool and not self.scalars_only:
                    out.append(lambda: self.reduce(BlockType(t, (self.pick((2, 4, 8)),)), 0, d))
                if not self.scalars_only and self.level is Level.BLOCK:
                    out += self.combines(t, d)
            case VectorType():
                out.append(lambda: MakeVector(tuple(self.expr(t.elem, d) for _ in range(t.lanes)), t))
                out.append(lambda: Insert(self.expr(t, d), self.lane(t), self.expr(t.elem, d), t))
                out.append(lambda: self.convert_vector(t, d))
            case PointerType():
                if not isinstance(t.pointee, VoidType):
                    out.append(lambda: PtrAdd(self.expr(t, d), self.expr(self.scalar(_INTS), d), t))
            case BlockType():
                assert shape is not None
                out.append(lambda: Splat(self.expr(t.elem, d), t))
                if any(s > 1 for s in shape):
                    out.append(lambda: self.broadcast(t, d))
                out.append(lambda: self.reshape(t, d))
                if isinstance(t.elem, PointerType):
                    out.append(lambda: PtrAdd(self.expr(t, d), self.expr(BlockType(self.scalar(_INTS), shape), d), t))
                elif not t.elem.is_bool:
                    if len(shape) < 3:
                        out.append(lambda: self.reduce_into(t, d))
                    if len(shape) == 2:
                        out.append(lambda: self.dot(t, d))
                    out.append(lambda: self.scan(t, d))
                if len(shape) > 1:
                    out.append(lambda: self.permute(t, d))
                out += self.combines(t, d)
            case _:
                raise AssertionError(f"no expressions of type {t}")
        return out

    def select(self, t: Type, d: int) -> Select:
        conds: list[Type] = [BOOL]
        if isinstance(t, BlockType):
            conds.append(BlockType(BOOL, t.shape))
        return Select(self.expr(self.pick(conds), d), self.expr(t, d), self.expr(t, d), t)

    def elementwise(self, t: Type, elem: ScalarType, d: int) -> list[Callable[[], Expr]]:
        """Operators and math calls producing ``t`` (a scalar, vector or block of ``elem``)."""
        out: list[Callable[[], Expr]] = []

        def binary(ops: tuple[BinaryOp, ...]) -> Callable[[], Expr]:
            return lambda: Binary(self.pick(ops), self.expr(t, d), self.expr(t, d), t)

        def math1(fns: tuple[MathFn, ...], approx: bool = False) -> Callable[[], Expr]:
            return lambda: MathCall(self.pick(fns), (self.expr(t, d),), t, approx)

        if not elem.is_bool:
            out += [lambda: Unary(UnaryOp.NEG, self.expr(t, d), t), binary(_ARITH)]
        if elem.is_int:
            out += [lambda: Unary(UnaryOp.BITNOT, self.expr(t, d), t), binary(_INT_OPS), binary(_BIT_OPS)]
        if elem.is_signed:
            out.append(math1((MathFn.ABS,)))
        if elem.is_float:
            out += [
                math1(_FLOAT_FNS_1),
                math1(_APPROX_FNS_1, approx=True),
                lambda: MathCall(self.pick(_FLOAT_FNS_2), (self.expr(t, d), self.expr(t, d)), t),
                lambda: MathCall(MathFn.POW, (self.expr(t, d), self.expr(t, d)), t, approx=True),
                lambda: MathCall(MathFn.DIV, (self.expr(t, d), self.expr(t, d)), t, approx=True),
                lambda: MathCall(MathFn.FMA, tuple(self.expr(t, d) for _ in range(3)), t),
            ]
        if isinstance(t, VectorType):
            return out
        if elem.is_bool:
            out += [
                lambda: Unary(UnaryOp.NOT, self.expr(t, d), t),
                binary((BinaryOp.LAND, BinaryOp.LOR, *_BIT_OPS)),
                lambda: self.compare(t, d),
                lambda: MathCall(self.pick(_PREDICATES), (self.expr(_like(t, self.scalar(_FLOATS)), d),), t),
            ]
        if elem == I32:
            out.append(lambda: MathCall(self.pick(_BIT_COUNTS), (self.expr(_like(t, self.scalar(_INTS)), d),), t))
        return out

    def compare(self, t: Type, d: int) -> Binary:
        """A comparison producing the bool scalar or block ``t``."""
        operand: ScalarType | PointerType = self.scalar()
        if self.coin():
            operand = self.pointer()
            op = self.pick(_EQ_OPS)
        else:
            op = self.pick(_ORDER_OPS + _EQ_OPS)
        u = _like(t, operand)
        return Binary(op, self.expr(u, d), self.expr(u, d), t)

    def convert(self, t: Type, elem: ScalarType, d: int) -> Cast:
        return Cast(self.expr(_like(t, self.scalar()), d), t, CastKind.CONVERT)

    def convert_vector(self, t: VectorType, d: int) -> Cast:
        lanes = self.scalar(_NUMERIC)
        return Cast(self.expr(VectorType(lanes, t.lanes, lanes.size * t.lanes), d), t, CastKind.CONVERT)

    def bitcast(self, t: Type, d: int) -> Cast:
        """A bitcast into ``t`` from a value of the same size (or a pointer from/to a 64-bit integer)."""
        sources: list[Type] = []
        match t:
            case ScalarType() | VectorType():
                size = t.elem.size * t.lanes if isinstance(t, VectorType) else t.size
                sources += [s for s in _NUMERIC if s.size == size]
                if self.level is Level.THREAD:
                    sources += [v for v in _VECTORS if v.size == size]
                if t in (I64, U64):
                    sources.append(self.pointer())
                if not sources:  # e.g. a 12-byte vector: no other type has its size
                    sources.append(t)
            case PointerType():
                sources += [self.pointer(), self.pick((I64, U64))]
            case BlockType():
                if isinstance(t.elem, ScalarType):
                    sources += [BlockType(s, t.shape) for s in _NUMERIC if s.size == t.elem.size]
                else:
                    sources.append(BlockType(self.pointer(), t.shape))
            case _:
                raise AssertionError(f"no bitcast into {t}")
        return Cast(self.expr(self.pick(sources), d), t, CastKind.BITCAST)

    def lane(self, v: VectorType) -> Expr:
        return self.pick((Const(self.index(v.lanes), I32), Const(self.index(v.lanes), U8)))

    def extract(self, v: VectorType, d: int) -> Extract:
        index = self.expr(self.scalar(_INTS), d)
        if isinstance(index, Const):  # a constant index must be in range; computed ones are not checked
            index = self.lane(v)
        return Extract(self.expr(v, d), index, v.elem)

    def broadcast(self, t: BlockType, d: int) -> Broadcast:
        src = tuple(1 if s > 1 and self.coin() else s for s in t.shape)
        return Broadcast(self.expr(BlockType(t.elem, src), d), t)

    def reshape(self, t: BlockType, d: int) -> Reshape:
        count = math.prod(t.shape)
        shapes = [s for s in _SHAPES if math.prod(s) == count] + [(count,), tuple(reversed(t.shape))]
        return Reshape(self.expr(BlockType(t.elem, self.pick(shapes)), d), t)

    def reduce(self, operand: BlockType, axis: int, d: int) -> Reduce:
        shape = operand.shape[:axis] + operand.shape[axis + 1 :]
        assert isinstance(operand.elem, ScalarType)
        t: Type = BlockType(operand.elem, shape) if shape else operand.elem
        return Reduce(self.pick(tuple(ReduceOp)), self.expr(operand, d), axis, t)

    def reduce_into(self, t: BlockType, d: int) -> Reduce:
        axis = self.index(len(t.shape) + 1)
        shape = (*t.shape[:axis], self.pick((2, 4)), *t.shape[axis:])
        return self.reduce(BlockType(t.elem, shape), axis, d)

    def permute(self, t: BlockType, d: int) -> Permute:
        perm = tuple(self.draw(st.permutations(range(len(t.shape)))))
        src = [0] * len(perm)
        for i, p in enumerate(perm):
            src[p] = t.shape[i]
        return Permute(self.expr(BlockType(t.elem, tuple(src)), d), perm, t)

    def scan(self, t: BlockType, d: int) -> Scan:
        axis = self.index(len(t.shape))
        return Scan(self.pick(tuple(ReduceOp)), self.expr(t, d), axis, self.coin(), t)

    def combines(self, t: Type, d: int) -> list[Callable[[], Expr]]:
        """Reductions and scans into ``t`` with a combine function of the module whose result fits."""
        out: list[Callable[[], Expr]] = []
        for f in self.combiners:
            elems = _combiner_elems(f)
            assert elems is not None
            for result, elem in enumerate(elems):
                if isinstance(t, BlockType) and t.elem == elem:
                    out.append(partial(self.combine_scan, t, f, elems, result, d))
                if (isinstance(t, BlockType) and t.elem == elem and len(t.shape) < 3) or t == elem:
                    out.append(partial(self.combine_reduce, t, f, elems, result, d))
        return out

    def combine_scan(self, t: BlockType, f: Function, elems: tuple[ScalarType, ...], r: int, d: int) -> Combine:
        args = tuple(self.expr(BlockType(e, t.shape), d) for e in elems)
        axis = self.index(len(t.shape))
        return Combine(CombineKind.SCAN, f.name, args, r, axis, self.coin(), t)

    def combine_reduce(self, t: Type, f: Function, elems: tuple[ScalarType, ...], r: int, d: int) -> Combine:
        shape = t.shape if isinstance(t, BlockType) else ()
        axis = self.index(len(shape) + 1)
        full = (*shape[:axis], self.pick((1, 2, 4)), *shape[axis:])
        args = tuple(self.expr(BlockType(e, full), d) for e in elems)
        return Combine(CombineKind.REDUCE, f.name, args, r, axis, False, t)

    def dot(self, t: BlockType, d: int) -> Dot:
        m, n = t.shape
        k = self.pick((1, 2, 4))
        elem = self.pick((F16, BF16, F32, I8))
        acc = self.expr(t, d) if self.coin() else None
        return Dot(self.expr(BlockType(elem, (m, k)), d), self.expr(BlockType(elem, (k, n)), d), acc, t)

    # -- statements ---------------------------------------------------------------------------------

    def body(self, depth: int, in_loop: bool) -> tuple[Stmt, ...]:
        with self.scope():
            return self.stmts(depth, in_loop)

    def stmts(self, depth: int, in_loop: bool) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for _ in range(self.draw(st.integers(0, 4))):
            out += self.stmt(depth, in_loop)
        return tuple(out)

    def dst(self, t: Type, out: list[Stmt]) -> str:
        """An assignable variable of type ``t``, declaring one (appended to ``out``) if needed."""
        names = self.variables(t, assignable=True)
        if names and self.coin():
            return self.pick(names)
        name = self.fresh()
        out.append(Decl(name, t))
        self.declare(name, t)
        return name

    def stmt(self, depth: int, in_loop: bool) -> list[Stmt]:
        """One statement of a random kind, preceded by the declarations it needs."""
        kinds: list[Callable[[list[Stmt]], Stmt | None]] = [
            self.decl,
            self.assign,
            self.load,
            self.store,
            self.atomic,
            lambda out: Barrier(BarrierScope.BLOCK),
            lambda out: Fence(self.pick(tuple(MemScope))),
            lambda out: Assert(self.expr(BOOL)),
            lambda out: Assume(self.expr(BOOL)),
        ]
        if self.level is Level.THREAD:
            kinds += [self.alloc, self.shuffle, self.vote, self.warp_barrier]
        if self.callees:
            kinds.append(self.call)
        if in_loop:
            kinds += [lambda out: Break(), lambda out: Continue()]
        kinds.append(lambda out: Return(None if isinstance(self.ret, VoidType) else self.expr(self.ret)))
        if depth > 0:
            kinds += [
                lambda out: If(self.expr(BOOL), self.body(depth - 1, in_loop), self.body(depth - 1, in_loop)),
                lambda out: While(self.expr(BOOL), self.body(depth - 1, True)),
                lambda out: DoWhile(self.body(depth - 1, True), self.expr(BOOL)),
                lambda out: self.for_stmt(depth),
            ]
        out: list[Stmt] = []
        s = self.pick(kinds)(out)
        if s is not None:
            out.append(s)
        return out

    def decl(self, out: list[Stmt]) -> Decl:
        t = self.value_type()
        init = self.expr(t) if self.coin() else None
        name = self.fresh()
        self.declare(name, t)
        return Decl(name, t, init)

    def assign(self, out: list[Stmt]) -> Assign:
        t = self.value_type()
        return Assign(self.dst(t, out), self.expr(t))

    def alloc(self, out: list[Stmt]) -> Alloc:
        elems: tuple[Type, ...] = (self.scalar(), self.pick(_VECTORS), PointerType(F32, AddressSpace.GLOBAL))
        elem = self.pick(elems)
        space = self.pick((AddressSpace.SHARED, AddressSpace.LOCAL))
        count = self.draw(st.integers(1, 256)) if space is AddressSpace.LOCAL or self.coin() else None
        name = self.fresh()
        self.declare(name, PointerType(elem, space), assignable=False)
        return Alloc(name, elem, count, space)

    def access(self, *, const: bool | None) -> tuple[Type, Type]:
        """The type of a pointer (or block of pointers) and of the value accessed through it."""
        ptr = self.pointer(const=const)
        shape = self.pick(_SHAPES) if self.level is Level.BLOCK and self.coin() else None
        if shape is None:
            return ptr, ptr.pointee
        assert isinstance(ptr.pointee, ScalarType)
        return BlockType(ptr, shape), BlockType(ptr.pointee, shape)

    def mask(self, ptr: Type) -> Expr | None:
        if self.coin():
            return None
        shape = _shape_of(ptr)
        return self.expr(BOOL if shape is None or self.coin() else BlockType(BOOL, shape))

    def load(self, out: list[Stmt]) -> Load:
        ptr, value = self.access(const=None)
        dst = self.dst(value, out)
        mask = self.mask(ptr)
        other = None
        if mask is not None and self.coin():
            other = self.expr(value.elem if isinstance(value, BlockType) and self.coin() else value)
        return Load(dst, self.expr(ptr), mask, other)

    def store(self, out: list[Stmt]) -> Store:
        ptr, value = self.access(const=False)
        return Store(self.expr(ptr), self.expr(value), self.mask(ptr))

    def atomic(self, out: list[Stmt]) -> Atomic:
        op = self.pick(tuple(AtomicOp))
        bitwise = op in (AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR)
        t = self.scalar((U32, U64) if op in (AtomicOp.INC, AtomicOp.DEC) else _INTS if bitwise else _NUMERIC)
        spaces = _ATOMIC_SPACES if self.level is Level.THREAD else (AddressSpace.GLOBAL,)
        ptr: Type = PointerType(t, self.pick(spaces), False, self.coin())
        value: Type = t
        mask = None
        if self.level is Level.BLOCK:
            if self.coin():
                shape = self.pick(_SHAPES)
                assert isinstance(ptr, PointerType)
                ptr, value = BlockType(ptr, shape), BlockType(t, shape)
            mask = self.mask(ptr)
        dst = self.dst(value, out) if self.coin() else None
        compare = self.expr(value) if op is AtomicOp.CAS else None
        order = self.pick(tuple(MemoryOrder)) if self.level is Level.BLOCK else MemoryOrder.RELAXED
        scope = self.pick(tuple(MemScope))
        return Atomic(dst, op, self.expr(ptr), self.expr(value), compare, mask, order=order, scope=scope)

    def shuffle(self, out: list[Stmt]) -> Shuffle:
        t = self.pick(_SHUFFLABLE)
        dst = self.dst(t, out)
        kind = self.pick(tuple(ShuffleKind))
        return Shuffle(dst, kind, self.expr(U32), self.expr(t), self.expr(I32), self.expr(I32))

    def vote(self, out: list[Stmt]) -> Vote:
        kind = self.pick(tuple(VoteKind))
        dst = self.dst(U32 if kind is VoteKind.BALLOT else I32, out)
        return Vote(dst, kind, self.expr(U32), self.expr(BOOL))

    def warp_barrier(self, out: list[Stmt]) -> Barrier:
        return Barrier(BarrierScope.WARP, self.expr(U32) if self.coin() else None)

    def call(self, out: list[Stmt]) -> Call:
        callee = self.pick(self.callees)
        args: list[Expr] = []
        for p in callee.params:
            if p.by_ref:
                args.append(VarRef(self.dst(p.type, out), p.type))
            else:
                args.append(self.expr(p.type))
        dst = None if isinstance(callee.ret, VoidType) or self.coin() else self.dst(callee.ret, out)
        return Call(dst, callee.name, tuple(args))

    def for_stmt(self, depth: int) -> For:
        with self.scope():
            i = self.fresh()
            t = self.scalar(_INTS)
            self.declare(i, t)
            init: tuple[Stmt, ...] = (Decl(i, t, self.const(t)),)
            if self.coin():
                init += (self.decl([]),)
            counter = VarRef(i, t)
            cond = self.pick((None, Binary(BinaryOp.LT, counter, self.const(t), BOOL), self.expr(BOOL)))
            with self.scope():
                step: tuple[Stmt, ...] = (Assign(i, Binary(BinaryOp.ADD, counter, self.const(t), t)),)
            body = self.body(depth - 1, True)
            unroll = self.pick((None, None, 1, 4))
            return For(init, cond, step, body, unroll)

    # -- functions ----------------------------------------------------------------------------------

    def function(self, kind: FunctionKind, name: str) -> Function:
        params: list[Param] = []
        t: Type
        for _ in range(self.draw(st.integers(0, 4))):
            pname = self.fresh()
            if kind is FunctionKind.KERNEL:
                t = self.pointer(space=AddressSpace.GLOBAL) if self.coin() else self.scalar()
                by_ref = False
            else:
                t = self.value_type()
                by_ref = self.coin()
            params.append(Param(pname, t, by_ref))
            self.declare(pname, t)
        self.ret = VOID if kind is FunctionKind.KERNEL or self.coin() else self.value_type()
        body = self.stmts(_STMT_DEPTH, in_loop=False)
        if not isinstance(self.ret, VoidType):
            body += (Return(self.expr(self.ret)),)
        max_threads = self.pick((None, 128, 256)) if kind is FunctionKind.KERNEL else None
        return Function(name, kind, self.level, tuple(params), self.ret, body, max_threads)

    def combine_function(self, name: str) -> Function:
        """A combine function (see :class:`~larkc.ir.nodes.Combine`): ``&a1..&an, b1..bn`` and a
        straight-line body assigning every ``ai``."""
        elems = tuple(self.scalar(_NUMERIC) for _ in range(self.pick((1, 1, 2))))
        params = [Param(self.fresh(), e, True) for e in elems] + [Param(self.fresh(), e) for e in elems]
        for p in params:
            self.declare(p.name, p.type)
        self.scalars_only = True
        body: list[Stmt] = []
        if self.coin():
            t = self.scalar(_NUMERIC)
            local = self.fresh()
            body.append(Decl(local, t, self.expr(t)))
            self.declare(local, t)
        body += [Assign(p.name, self.expr(p.type)) for p in params[: len(elems)]]
        return Function(name, FunctionKind.DEVICE, Level.BLOCK, tuple(params), VOID, tuple(body))


def _combiner_elems(f: Function) -> tuple[ScalarType, ...] | None:
    """The operand element types of ``f`` as a combine function, or ``None`` if it is not one."""
    n = len(f.params) // 2
    elems = tuple(p.type for p in f.params[:n])
    if n == 0 or not all(isinstance(e, ScalarType) for e in elems):
        return None
    if combine_signature_error(f, elems) is not None:
        return None
    return tuple(e for e in elems if isinstance(e, ScalarType))


def _function_name(draw: st.DrawFn, n: int) -> str:
    return draw(st.sampled_from((f"f{n}", f"kernel_{n}", f"warp_sum<float, {n}>")))


@st.composite
def functions(draw: st.DrawFn, level: Level = Level.THREAD) -> Function:
    """A random well-typed kernel or device function of ``level`` that calls no other function."""
    kind = draw(st.sampled_from(tuple(FunctionKind)))
    return _Gen(draw, level, (), iter(range(10**6))).function(kind, _function_name(draw, 0))


@st.composite
def modules(draw: st.DrawFn, level: Level | None = None) -> Module:
    """A random well-typed module: device functions (calling earlier ones) and then kernels; block-level
    modules sometimes start with a combine function that reductions and scans use.

    Each function's level is ``level``, or drawn per function when ``level`` is ``None``; calls only
    go to device functions of the caller's level.
    """
    functions_: list[Function] = []
    kinds = [FunctionKind.DEVICE] * draw(st.integers(0, 2)) + [FunctionKind.KERNEL] * draw(st.integers(1, 2))
    if level is not Level.THREAD and draw(st.booleans()):  # a combine function for block-level code
        gen = _Gen(draw, Level.BLOCK, (), iter(range(10**6)))
        functions_.append(gen.combine_function("combine"))
    for n, kind in enumerate(kinds):
        f_level = level if level is not None else draw(st.sampled_from(tuple(Level)))
        gen = _Gen(draw, f_level, tuple(functions_), iter(range(10**6)))
        functions_.append(gen.function(kind, _function_name(draw, n)))
    return Module(tuple(functions_))


# --------------------------------------------------------------------------------------------------
# Walking and mutating IR (for mutation tests)


def _is_node(x: object) -> bool:
    return is_dataclass(x) and not isinstance(x, type) and type(x).__module__ == "larkc.ir.nodes"


def _rewrite(x: object, visit: Callable[[object], object | None]) -> object:
    """``x`` with every node for which ``visit`` returns a replacement replaced (pre-order)."""
    new = visit(x)
    if new is not None:
        return new
    if isinstance(x, tuple):
        items = tuple(_rewrite(i, visit) for i in x)
        return x if all(a is b for a, b in zip(items, x, strict=True)) else items
    if _is_node(x):
        changes = {}
        for f in fields(x):  # type: ignore[arg-type]  # _is_node checked it is a dataclass instance
            old = getattr(x, f.name)
            value = _rewrite(old, visit)
            if value is not old:
                changes[f.name] = value
        return replace(x, **changes) if changes else x  # type: ignore[type-var]  # a dataclass instance
    return x


def node_classes(m: Module) -> set[type]:
    """The classes of every node in ``m`` (expressions, statements, functions, parameters)."""
    seen: set[type] = set()

    def visit(x: object) -> None:
        if _is_node(x):
            seen.add(type(x))

    _rewrite(m, visit)
    return seen


def count_nodes(m: Module, pred: Callable[[object], bool]) -> int:
    """How many nodes of ``m`` satisfy ``pred``."""
    count = 0

    def visit(x: object) -> None:
        nonlocal count
        if _is_node(x) and pred(x):
            count += 1

    _rewrite(m, visit)
    return count


def replace_node(m: Module, pred: Callable[[object], bool], index: int, fn: Callable[[object], object]) -> Module:
    """``m`` with the ``index``-th node satisfying ``pred`` (in pre-order) replaced by ``fn(node)``."""
    count = 0

    def visit(x: object) -> object | None:
        nonlocal count
        if _is_node(x) and pred(x):
            count += 1
            if count - 1 == index:
                return fn(x)
        return None

    result = _rewrite(m, visit)
    assert isinstance(result, Module)
    return result
