"""The typing rules of the kernel IR, and the verifier that checks a module against them.

Every stage that produces IR (the frontends, the IR text parser, later passes) is followed by
:func:`verify_module` in the tests. A module that passes guarantees what later stages rely on:

* every expression's ``type`` is the one its rule gives (no implicit conversions anywhere);
* every variable is used inside the scope of its declaration and names are unique per function;
* statements see operands of the types they need (loads through pointers to the destination's type,
  no stores through ``const`` pointers, bool conditions, ``break`` only in loops, ...);
* level discipline: blocks only in block-level (Triton) functions; vectors, allocations, shuffles and
  votes only in thread-level (CUDA) functions;
* calls name device functions of the same level with arguments of the parameters' types.

The first violation raises :class:`~larkc.errors.TypeCheckError` located at the offending node (or the
nearest enclosing node that has a span), with a note naming the function.

The expression rules are in :func:`expected_type`, one case per node class; the parser uses the same
function to give types to the nodes whose type the printed form leaves implicit, so the rules are
written once. ``docs/ir.md`` has them as a table.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import assert_never

from larkc.errors import Span, TypeCheckError
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
    Module,
    Permute,
    PtrAdd,
    Reduce,
    Reshape,
    Return,
    Scan,
    Select,
    Shuffle,
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
from larkc.ir.printer import format_func, format_var
from larkc.ir.types import (
    BOOL,
    I32,
    I64,
    U32,
    U64,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    ScalarKind,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    scalar_of,
    size_of,
)
from larkc.ir.values import round_float
from larkc.ir.walk import post_order

__all__ = ["builtin_type", "combine_signature_error", "expected_type", "verify_function", "verify_module"]


# --------------------------------------------------------------------------------------------------
# Type predicates


def _is_numeric(t: Type | None) -> bool:
    """An int or float scalar (not bool, not a pointer)."""
    return isinstance(t, ScalarType) and not t.is_bool


def _is_int(t: Type | None) -> bool:
    return isinstance(t, ScalarType) and t.is_int


def _is_float(t: Type | None) -> bool:
    return isinstance(t, ScalarType) and t.is_float


def _is_pointer_like(t: Type) -> bool:
    """A pointer or a block of pointers."""
    return isinstance(t, PointerType) or (isinstance(t, BlockType) and isinstance(t.elem, PointerType))


#: The integer scalar types (the types of offsets and lane indices).
_INT_SCALARS = frozenset(ScalarType(k) for k in ScalarKind if ScalarType(k).is_int)


def _with_elem(t: Type, elem: ScalarType) -> Type:
    """A scalar or block of ``t``'s shape whose element is ``elem`` (``t`` is a scalar or a block)."""
    return BlockType(elem, t.shape) if isinstance(t, BlockType) else elem


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in shape)


class _Operands(enum.Enum):
    """What an operator accepts. The value is how messages describe it ("operands of + must be ...")."""

    NUMERIC = "numeric"  # int or float scalars, vectors or blocks
    INTEGER = "integers"  # int scalars, vectors or blocks
    INTEGER_OR_BOOL = "integers or bools"  # int or bool scalars, vectors or blocks
    BOOL = "bools"  # bool scalars or bool blocks
    ORDERED = "numeric or bool scalars or blocks"  # comparable values other than pointers (no vectors)
    EQUATABLE = "numeric, bool or pointer scalars or blocks"  # what comparisons compare


def _accepts(kind: _Operands, t: Type) -> bool:
    """Whether an operand of type ``t`` is in class ``kind``."""
    elem = scalar_of(t)
    match kind:
        case _Operands.NUMERIC:
            return _is_numeric(elem)
        case _Operands.INTEGER:
            return _is_int(elem)
        case _Operands.INTEGER_OR_BOOL:
            return _is_int(elem) or elem == BOOL
        case _Operands.BOOL:
            return elem == BOOL and not isinstance(t, VectorType)
        case _Operands.ORDERED:
            return elem is not None and not isinstance(t, VectorType)
        case _Operands.EQUATABLE:
            return _accepts(_Operands.ORDERED, t) or _is_pointer_like(t)
        case _:
            assert_never(kind)


#: What each unary operator accepts, and how its message says it (singular: "operand of ~ must be ...").
_UNARY_OPERANDS = {
    UnaryOp.NEG: (_Operands.NUMERIC, "numeric"),
    UnaryOp.NOT: (_Operands.BOOL, "a bool"),
    UnaryOp.BITNOT: (_Operands.INTEGER, "an integer"),
}

_BINARY_OPERANDS = {
    BinaryOp.ADD: _Operands.NUMERIC,
    BinaryOp.SUB: _Operands.NUMERIC,
    BinaryOp.MUL: _Operands.NUMERIC,
    BinaryOp.DIV: _Operands.NUMERIC,
    BinaryOp.MIN: _Operands.NUMERIC,
    BinaryOp.MAX: _Operands.NUMERIC,
    BinaryOp.REM: _Operands.INTEGER,
    BinaryOp.SHL: _Operands.INTEGER,
    BinaryOp.SHR: _Operands.INTEGER,
    BinaryOp.BITAND: _Operands.INTEGER_OR_BOOL,
    BinaryOp.BITOR: _Operands.INTEGER_OR_BOOL,
    BinaryOp.BITXOR: _Operands.INTEGER_OR_BOOL,
    BinaryOp.LAND: _Operands.BOOL,
    BinaryOp.LOR: _Operands.BOOL,
    BinaryOp.EQ: _Operands.EQUATABLE,
    BinaryOp.NE: _Operands.EQUATABLE,
    BinaryOp.LT: _Operands.EQUATABLE,  # pointers too: `for (p = begin; p < end; ++p)`
    BinaryOp.LE: _Operands.EQUATABLE,  # pointers too: `for (p = begin; p < end; ++p)`
    BinaryOp.GT: _Operands.EQUATABLE,  # pointers too: `for (p = begin; p < end; ++p)`
    BinaryOp.GE: _Operands.EQUATABLE,  # pointers too: `for (p = begin; p < end; ++p)`
}


class _MathSig(enum.Enum):
    """The signature family of a math intrinsic."""

    FLOAT = "float"  # float arguments (scalar, vector or block), result of the arguments' type
    FLOAT_OR_SIGNED = "float or signed integer"  # like FLOAT, also signed integers (abs)
    PREDICATE = "float scalar or block"  # a float scalar or block in, bool of the same shape out
    BIT_COUNT = "integer scalar or block"  # an integer scalar or block in, i32 of the same shape out


_MATH_SIG = {
    **dict.fromkeys(MathFn, _MathSig.FLOAT),
    MathFn.ABS: _MathSig.FLOAT_OR_SIGNED,
    MathFn.ISNAN: _MathSig.PREDICATE,
    MathFn.ISINF: _MathSig.PREDICATE,
    MathFn.ISFINITE: _MathSig.PREDICATE,
    MathFn.SIGNBIT: _MathSig.PREDICATE,
    MathFn.POPC: _MathSig.BIT_COUNT,
    MathFn.CLZ: _MathSig.BIT_COUNT,
    MathFn.FFS: _MathSig.BIT_COUNT,
}

_MATH_ARITY = {
    **dict.fromkeys(MathFn, 1),
    MathFn.ATAN2: 2,
    MathFn.POW: 2,
    MathFn.FMOD: 2,
    MathFn.DIV: 2,
    MathFn.COPYSIGN: 2,
    MathFn.FMA: 3,
}

#: The intrinsics with a fast approximate variant (``__expf``, ``__fdividef``, ``tanh.approx``...).
_APPROX = frozenset(
    {
        MathFn.EXP,
        MathFn.EXP2,
        MathFn.EXP10,
        MathFn.LOG,
        MathFn.LOG2,
        MathFn.LOG10,
        MathFn.SIN,
        MathFn.COS,
        MathFn.TAN,
        MathFn.POW,
        MathFn.DIV,
        MathFn.SQRT,
        MathFn.RSQRT,
        MathFn.TANH,
    }
)


def _math_accepts(sig: _MathSig, t: Type) -> bool:
    elem = scalar_of(t)
    match sig:
        case _MathSig.FLOAT:
            return _is_float(elem)
        case _MathSig.FLOAT_OR_SIGNED:
            return _is_float(elem) or (isinstance(elem, ScalarType) and elem.is_signed)
        case _MathSig.PREDICATE:
            return _is_float(elem) and not isinstance(t, VectorType)
        case _MathSig.BIT_COUNT:
            return _is_int(elem) and not isinstance(t, VectorType)
        case _:
            assert_never(sig)


def _math_result(sig: _MathSig, t: Type) -> Type:
    match sig:
        case _MathSig.FLOAT | _MathSig.FLOAT_OR_SIGNED:
            return t
        case _MathSig.PREDICATE:
            return _with_elem(t, BOOL)
        case _MathSig.BIT_COUNT:
            return _with_elem(t, I32)
        case _:
            assert_never(sig)


def _fits(value: object, t: ScalarType) -> str | None:
    """Why the constant ``value`` cannot have type ``t``, or ``None`` if it can."""
    if t.is_bool:
        return None if isinstance(value, bool) else f"constant {value!r} of type bool must be true or false"
    if t.is_int:
        if not isinstance(value, int) or isinstance(value, bool):
            return f"constant {value!r} of type {t} must be an integer"
        lo, hi = (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1) if t.is_signed else (0, 2**t.bits - 1)
        return None if lo <= value <= hi else f"constant {value} does not fit in {t}"
    if not isinstance(value, float):
        return f"constant {value!r} of type {t} must be a float"
    if math.isnan(value) or round_float(value, t) == value:  # overflow rounds to inf, which differs
        return None
    return f"constant {float.__repr__(value)} is not exactly representable in {t}"


def _castable(kind: CastKind, src: Type, dst: Type) -> bool:
    """Whether a cast of ``kind`` may turn a ``src`` value into a ``dst`` value."""
    match kind:
        case CastKind.CONVERT:
            match src, dst:
                case ScalarType(), ScalarType():
                    return True
                case VectorType(), VectorType():
                    return src.lanes == dst.lanes
                case BlockType(elem=ScalarType()), BlockType(elem=ScalarType()):
                    return src.shape == dst.shape
                case _:
                    return False
        case CastKind.BITCAST:
            match src, dst:
                case ScalarType() | VectorType(), ScalarType() | VectorType():
                    return size_of(src) == size_of(dst)
                case PointerType(), PointerType():
                    return True  # reinterpretation and address-space casts
                case PointerType(), ScalarType():
                    return dst in (I64, U64)
                case ScalarType(), PointerType():
                    return src in (I64, U64)
                case BlockType(), BlockType():
                    return src.shape == dst.shape and _castable(kind, src.elem, dst.elem)
                case _:
                    return False
        case _:
            assert_never(kind)


def _shufflable(t: Type) -> bool:
    """A 16, 32 or 64-bit int or float scalar, or a 2-lane vector of 16-bit floats (``half2``)."""
    match t:
        case ScalarType():
            return not t.is_bool and t.bits in (16, 32, 64)
        case VectorType():
            return t.lanes == 2 and t.elem.is_float and t.elem.bits == 16
        case PointerType() | ArrayType() | BlockType() | VoidType():
            return False
        case _:
            assert_never(t)


# --------------------------------------------------------------------------------------------------
# Expression rules


def builtin_type(level: Level) -> ScalarType:
    """The type of a launch register: u32 in CUDA (thread level), i32 in Triton (block level)."""
    return U32 if level is Level.THREAD else I32


def _need_level(level: Level, needed: Level, what: str, span: Span) -> None:
    if level is not needed:
        raise TypeCheckError(f"{what} is only allowed in {needed.value}-level functions", span)


def _lane_index(e: Extract | Insert, vector: VectorType) -> None:
    what = type(e).__name__.lower()
    if e.index.type not in _INT_SCALARS:
        raise TypeCheckError(f"lane index of {what} must be an integer scalar, got {e.index.type}", e.index.span)
    if isinstance(e.index, Const) and isinstance(e.index.value, int) and not 0 <= e.index.value < vector.lanes:
        raise TypeCheckError(f"lane index {e.index.value} out of range for {vector}", e.index.span)


def expected_type(e: Expr, level: Level) -> Type:
    """The type the rules give ``e`` in a function of ``level``, given its operands' types.

    Operands are taken as already checked. Nodes that spell their type (constants, variables, casts,
    ``vector<T>``) get it back after their constraints are checked; nodes whose printed form only
    spells part of their type (a block shape, a dot's element type) get the full type built from that
    part. Raises :class:`TypeCheckError` at ``e.span`` (or an operand's) when the operands do not fit.
    """
    match e:
        case Const():
            if not isinstance(e.type, ScalarType):
                raise TypeCheckError(f"constant must have a scalar type, got {e.type}", e.span)
            why = _fits(e.value, e.type)
            if why is not None:
                raise TypeCheckError(why, e.span)
            return e.type
        case VarRef():
            return e.type  # checked against the declaration by the verifier's scopes
        case Builtin():
            if level is Level.BLOCK and e.reg not in (BuiltinReg.BLOCK_IDX, BuiltinReg.GRID_DIM):
                raise TypeCheckError(
                    f"builtin {e.reg.value}.{e.dim.value} is not available in block-level functions", e.span
                )
            return builtin_type(level)
        case Unary():
            t = e.operand.type
            accepted, described = _UNARY_OPERANDS[e.op]
            if not _accepts(accepted, t):
                raise TypeCheckError(f"operand of {e.op.value} must be {described}, got {t}", e.span)
            return t
        case Binary():
            lt, rt = e.lhs.type, e.rhs.type
            if lt != rt:
                raise TypeCheckError(f"operands of {e.op.value} have different types {lt} and {rt}", e.span)
            operands = _BINARY_OPERANDS[e.op]
            if not _accepts(operands, lt):
                raise TypeCheckError(f"operands of {e.op.value} must be {operands.value}, got {lt}", e.span)
            return _with_elem(lt, BOOL) if e.op.is_comparison else lt
        case Select():
            t, ft = e.if_true.type, e.if_false.type
            if t != ft:
                raise TypeCheckError(f"branches of select have different types {t} and {ft}", e.span)
            c = e.cond.type
            if c != BOOL and not (isinstance(t, BlockType) and c == BlockType(BOOL, t.shape)):
                wanted = f"bool or {BlockType(BOOL, t.shape)}" if isinstance(t, BlockType) else "bool"
                raise TypeCheckError(f"condition of select must be {wanted}, got {c}", e.cond.span)
            return t
        case Cast():
            if not _castable(e.kind, e.operand.type, e.type):
                raise TypeCheckError(f"cannot {e.kind.value} {e.operand.type} to {e.type}", e.span)
            return e.type
        case MathCall():
            name = e.fn.value
            arity = _MATH_ARITY[e.fn]
            if len(e.args) != arity:
                plural = "" if arity == 1 else "s"
                raise TypeCheckError(f"{name} takes {arity} argument{plural}, got {len(e.args)}", e.span)
            t = e.args[0].type
            for a in e.args[1:]:
                if a.type != t:
                    raise TypeCheckError(f"arguments of {name} have different types {t} and {a.type}", a.span)
            sig = _MATH_SIG[e.fn]
            if not _math_accepts(sig, t):
                raise TypeCheckError(f"{name} needs {sig.value} arguments, got {t}", e.span)
            if e.approx and e.fn not in _APPROX:
                raise TypeCheckError(f"{name} has no approximate variant", e.span)
            if e.fn is MathFn.DIV and not e.approx:
                raise TypeCheckError("div is only available as div.approx (use / otherwise)", e.span)
            return _math_result(sig, t)
        case PtrAdd():
            b, o = e.base.type, e.offset.type
            match b:
                case PointerType():
                    if o not in _INT_SCALARS:
                        raise TypeCheckError(f"offset of ptradd must be an integer, got {o}", e.offset.span)
                    pointer = b
                case BlockType(elem=PointerType() as pointer):
                    if not (isinstance(o, BlockType) and _is_int(o.elem) and o.shape == b.shape):
                        raise TypeCheckError(
                            f"offset of ptradd must be an integer block of shape {_dims(b.shape)}, got {o}",
                            e.offset.span,
                        )
                case _:
                    raise TypeCheckError(f"base of ptradd must be a pointer, got {b}", e.base.span)
            if isinstance(pointer.pointee, VoidType):
                raise TypeCheckError(f"pointer arithmetic on {pointer} (void has no size)", e.span)
            return b
        case Extract():
            _need_level(level, Level.THREAD, "extract", e.span)
            v = e.vector.type
            if not isinstance(v, VectorType):
                raise TypeCheckError(f"extract needs a vector operand, got {v}", e.vector.span)
            _lane_index(e, v)
            return v.elem
        case Insert():
            _need_level(level, Level.THREAD, "insert", e.span)
            v = e.vector.type
            if not isinstance(v, VectorType):
                raise TypeCheckError(f"insert needs a vector operand, got {v}", e.vector.span)
            _lane_index(e, v)
            if e.value.type != v.elem:
                raise TypeCheckError(f"inserted value has type {e.value.type}, expected {v.elem}", e.value.span)
            return v
        case MakeVector():
            _need_level(level, Level.THREAD, "vector", e.span)
            v = e.type
            if not isinstance(v, VectorType):
                raise TypeCheckError(f"vector<{v}> needs a vector type", e.span)
            if len(e.elems) != v.lanes:
                raise TypeCheckError(f"vector<{v}> needs {v.lanes} elements, got {len(e.elems)}", e.span)
            for i, x in enumerate(e.elems):
                if x.type != v.elem:
                    raise TypeCheckError(f"element {i} of vector<{v}> has type {x.type}, expected {v.elem}", x.span)
            return v
        case Arange():
            _need_level(level, Level.BLOCK, "arange", e.span)
            if e.end <= e.start:
                raise TypeCheckError(f"arange needs end > start, got {e.start} and {e.end}", e.span)
            return BlockType(I32, (e.end - e.start,))
        case Splat():
            _need_level(level, Level.BLOCK, "splat", e.span)
            t = e.operand.type
            if not isinstance(t, ScalarType | PointerType):
                raise TypeCheckError(f"splat needs a scalar or pointer operand, got {t}", e.operand.span)
            return BlockType(t, e.type.shape)
        case Broadcast():
            _need_level(level, Level.BLOCK, "broadcast", e.span)
            src = e.operand.type
            dst = e.type.shape
            if not (
                isinstance(src, BlockType)
                and len(src.shape) == len(dst)
                and all(s in (d, 1) for s, d in zip(src.shape, dst, strict=True))
            ):
                raise TypeCheckError(f"cannot broadcast {src} to shape {_dims(dst)}", e.span)
            return BlockType(src.elem, dst)
        case Reshape():
            _need_level(level, Level.BLOCK, "reshape", e.span)
            src = e.operand.type
            dst = e.type.shape
            if not (isinstance(src, BlockType) and math.prod(src.shape) == math.prod(dst)):
                raise TypeCheckError(f"cannot reshape {src} to shape {_dims(dst)}", e.span)
            return BlockType(src.elem, dst)
        case Reduce():
            what = f"reduce.{e.op.value}"
            _need_level(level, Level.BLOCK, what, e.span)
            t = e.operand.type
            if not (isinstance(t, BlockType) and _is_numeric(t.elem)):
                raise TypeCheckError(f"{what} needs a numeric block operand, got {t}", e.operand.span)
            if not 0 <= e.axis < len(t.shape):
                raise TypeCheckError(f"axis {e.axis} of {what} out of range for {t}", e.span)
            shape = t.shape[: e.axis] + t.shape[e.axis + 1 :]
            return BlockType(t.elem, shape) if shape else t.elem
        case Permute():
            _need_level(level, Level.BLOCK, "permute", e.span)
            t = e.operand.type
            if not isinstance(t, BlockType):
                raise TypeCheckError(f"permute needs a block operand, got {t}", e.operand.span)
            if sorted(e.perm) != list(range(len(t.shape))):
                order = "x".join(str(p) for p in e.perm)
                raise TypeCheckError(f"permute<{order}> is not a permutation of the dimensions of {t}", e.span)
            return BlockType(t.elem, tuple(t.shape[p] for p in e.perm))
        case Scan():
            what = f"scan.{e.op.value}"
            _need_level(level, Level.BLOCK, what, e.span)
            t = e.operand.type
            if not (isinstance(t, BlockType) and _is_numeric(t.elem)):
                raise TypeCheckError(f"{what} needs a numeric block operand, got {t}", e.operand.span)
            if not 0 <= e.axis < len(t.shape):
                raise TypeCheckError(f"axis {e.axis} of {what} out of range for {t}", e.span)
            return t
        case Combine():
            return _combine_type(e, level)
        case Dot():
            _need_level(level, Level.BLOCK, "dot", e.span)
            lt, rt = e.lhs.type, e.rhs.type
            if not (
                isinstance(lt, BlockType)
                and isinstance(rt, BlockType)
                and len(lt.shape) == 2
                and len(rt.shape) == 2
                and _is_numeric(lt.elem)
                and _is_numeric(rt.elem)
            ):
                raise TypeCheckError(f"operands of dot must be 2-D numeric blocks, got {lt} and {rt}", e.span)
            if lt.elem != rt.elem:
                raise TypeCheckError(f"operands of dot have different element types {lt.elem} and {rt.elem}", e.span)
            if lt.shape[1] != rt.shape[0]:
                raise TypeCheckError(f"inner dimensions of dot differ: {lt} and {rt}", e.span)
            if not _is_numeric(e.type.elem):
                raise TypeCheckError(f"result of dot must have a numeric element, got {e.type.elem}", e.span)
            result = BlockType(e.type.elem, (lt.shape[0], rt.shape[1]))
            if e.acc is not None and e.acc.type != result:
                raise TypeCheckError(f"accumulator of dot has type {e.acc.type}, expected {result}", e.acc.span)
            return result
        case _:
            assert_never(e)


def _combine_type(e: Combine, level: Level) -> Type:
    """The type of component ``e.result`` of a reduction or scan with a combine function (the function
    itself is checked by the verifier, which knows the module)."""
    what = f"combine.{e.kind.value}"
    _need_level(level, Level.BLOCK, what, e.span)
    if not e.args:
        raise TypeCheckError(f"{what} needs at least one operand", e.span)
    first = e.args[0].type
    for a in e.args:
        if not (isinstance(a.type, BlockType) and isinstance(a.type.elem, ScalarType)):
            raise TypeCheckError(f"operands of {what} must be blocks of scalars, got {a.type}", a.span)
        assert isinstance(first, BlockType)
        if a.type.shape != first.shape:
            raise TypeCheckError(f"operands of {what} have different shapes: {first} and {a.type}", a.span)
    assert isinstance(first, BlockType)
    if not 0 <= e.axis < len(first.shape):
        raise TypeCheckError(f"axis {e.axis} of {what} out of range for {first}", e.span)
    if not 0 <= e.result < len(e.args):
        raise TypeCheckError(f"result {e.result} of {what} out of range for {len(e.args)} operand(s)", e.span)
    if e.reverse and e.kind is not CombineKind.SCAN:
        raise TypeCheckError(f"{what} cannot be reversed (only scans are)", e.span)
    t = e.args[e.result].type
    assert isinstance(t, BlockType)
    match e.kind:
        case CombineKind.SCAN:
            return t
        case CombineKind.REDUCE:
            shape = t.shape[: e.axis] + t.shape[e.axis + 1 :]
            return BlockType(t.elem, shape) if shape else t.elem
        case _:
            assert_never(e.kind)


def combine_signature_error(f: Function, elems: tuple[Type, ...]) -> str | None:
    """Why ``f`` cannot be the combine function of operands with element types ``elems``, or ``None``.

    A combine function is a block-level device function returning void with parameters ``&a1..&an``
    (by reference) then ``b1..bn`` of the element types, whose body holds only ``let`` statements and
    assignments of scalar values (no builtins): it is evaluated elementwise, once per step of the fold.
    """
    name = format_func(f.name)
    if f.kind is not FunctionKind.DEVICE or f.level is not Level.BLOCK:
        return f"combine function {name} must be a block-level device function"
    if not isinstance(f.ret, VoidType):
        return f"combine function {name} must return void (it leaves its result in its first parameters)"
    n = len(elems)
    wanted = ", ".join([f"&{t}" for t in elems] + [str(t) for t in elems])
    got = ", ".join(f"{'&' if p.by_ref else ''}{p.type}" for p in f.params)
    if len(f.params) != 2 * n or any(p.type != elems[i % n] or p.by_ref != (i < n) for i, p in enumerate(f.params)):
        return f"combine function {name} must take ({wanted}), got ({got})"
    for st in f.body:
        match st:
            case Decl(init=init):
                roots: tuple[Expr | None, ...] = (init,)
            case Assign(value=value):
                roots = (value,)
            case _:
                return f"combine function {name} may only declare and assign scalars, not {type(st).__name__.lower()}"
        for r in roots:
            for x in post_order(r) if r is not None else ():
                if isinstance(x, Builtin):
                    return f"combine function {name} cannot read builtin {x.reg.value}.{x.dim.value}"
                if not isinstance(x.type, ScalarType):
                    return f"combine function {name} may only compute scalars, not {x.type}"
    return None


def _describe(e: Expr) -> str:
    """How a mismatch message names ``e``: ``result of +``, ``builtin threadIdx.x``, ``constant``."""
    match e:
        case Const():
            return "constant"
        case VarRef():
            return f"variable {format_var(e.name)}"
        case Builtin():
            return f"builtin {e.reg.value}.{e.dim.value}"
        case Unary() | Binary():
            return f"result of {e.op.value}"
        case MathCall():
            return f"result of {e.fn.value}"
        case Cast():
            return f"result of {e.kind.value}"
        case Reduce():
            return f"result of reduce.{e.op.value}"
        case Scan():
            return f"result of scan.{e.op.value}"
        case Combine():
            return f"result of combine.{e.kind.value}"
        case MakeVector():
            return "result of vector"
        case (
            Select()
            | PtrAdd()
            | Extract()
            | Insert()
            | Arange()
            | Splat()
            | Broadcast()
            | Reshape()
            | Permute()
            | Dot()
        ):
            return f"result of {type(e).__name__.lower()}"
        case _:
            assert_never(e)


# --------------------------------------------------------------------------------------------------
# The verifier


class _VarKind(enum.Enum):
    """How a name was introduced, which decides whether it can be assigned."""

    PARAM = "param"  # a value parameter
    REF_PARAM = "ref_param"  # a by-reference parameter (assignable, copied back to the caller)
    LOCAL = "local"  # a Decl
    ALLOC = "alloc"  # an Alloc: its value is the array's pointer, which cannot change


@dataclass(frozen=True, slots=True)
class _Var:
    """A name in scope: its type and how it was introduced."""

    type: Type
    kind: _VarKind


class _FunctionVerifier:
    """Checks one function; holds its scopes and loop depth while walking the body."""

    def __init__(self, f: Function, m: Module) -> None:
        self.f = f
        self.m = m
        self.level = f.level
        self.scopes: list[dict[str, _Var]] = [{}]
        self.declared: set[str] = set()  # every name declared so far, in scope or not
        self.loop_depth = 0

    # -- scopes -------------------------------------------------------------------------------------

    @contextmanager
    def _scope(self, *, loop: bool = False) -> Iterator[None]:
        self.scopes.append({})
        self.loop_depth += loop
        try:
            yield
        finally:
            self.scopes.pop()
            self.loop_depth -= loop

    def _declare(self, name: str, var: _Var, span: Span) -> None:
        if name in self.declared:
            raise TypeCheckError(f"redeclaration of {format_var(name)}", span)
        self.declared.add(name)
        self.scopes[-1][name] = var

    def _lookup(self, name: str, verb: str, span: Span) -> _Var:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.declared:
            raise TypeCheckError(f"{verb} {format_var(name)} outside its scope", span)
        raise TypeCheckError(f"{verb} undeclared variable {format_var(name)}", span)

    def _dst(self, name: str, expected: Type, what: str, span: Span) -> None:
        """Check that ``name`` is an assignable variable of type ``expected`` (``what`` writes it)."""
        var = self._lookup(name, "assignment to", span)
        if var.kind is _VarKind.ALLOC:
            raise TypeCheckError(f"cannot assign to allocation {format_var(name)}", span)
        if var.type != expected:
            raise TypeCheckError(
                f"destination {format_var(name)} of {what} has type {var.type}, expected {expected}", span
            )

    # -- types --------------------------------------------------------------------------------------

    def _type(self, t: Type, span: Span) -> None:
        """Check that ``t`` is well formed and allowed at this function's level."""
        match t:
            case ScalarType() | VoidType():
                pass
            case VectorType():
                if self.level is Level.BLOCK:
                    raise TypeCheckError(f"vector type {t} in a block-level function", span)
                if not _is_numeric(t.elem):
                    raise TypeCheckError(f"vector type {t} must have an integer or float element", span)
                if t.lanes < 1:
                    raise TypeCheckError(f"vector type {t} must have at least one lane", span)
                if t.align < t.elem.size or t.align & (t.align - 1):
                    raise TypeCheckError(
                        f"vector type {t} must have a power-of-two alignment of at least {t.elem.size}", span
                    )
            case PointerType():
                if isinstance(t.pointee, BlockType):
                    raise TypeCheckError(f"pointer type {t} cannot point to a block", span)
                self._type(t.pointee, span)
            case ArrayType():
                if t.length < 1:
                    raise TypeCheckError(f"array type {t} must have a positive length", span)
                self._value_type(t.elem, f"element of {t}", span, allow_array=True)
            case BlockType():
                if self.level is Level.THREAD:
                    raise TypeCheckError(f"block type {t} in a thread-level function", span)
                if not t.shape or any(d < 1 for d in t.shape):
                    raise TypeCheckError(f"block type {t} must have a non-empty shape of positive sizes", span)
                self._type(t.elem, span)
            case _:
                assert_never(t)

    def _value_type(self, t: Type, what: str, span: Span, *, allow_array: bool = False) -> None:
        """Check that ``what`` has a value type: scalar, vector, pointer or block (well formed)."""
        if isinstance(t, VoidType) or (isinstance(t, ArrayType) and not allow_array):
            raise TypeCheckError(f"{what} must have a scalar, vector, pointer or block type, got {t}", span)
        self._type(t, span)

    # -- expressions --------------------------------------------------------------------------------

    def _expr(self, e: Expr) -> None:
        """Check ``e`` bottom-up: operands first, so the innermost violation is the one reported."""
        for x in post_order(e):
            self._node(x)

    def _node(self, e: Expr) -> None:
        """Check one expression whose operands are checked."""
        if isinstance(e, VarRef):
            var = self._lookup(e.name, "use of", e.span)
            if e.type != var.type:
                raise TypeCheckError(
                    f"variable {format_var(e.name)} has type {e.type} but is declared as {var.type}", e.span
                )
        expected = expected_type(e, self.level)  # first, so that level errors name the node
        if isinstance(e, Combine):
            self._combine_function(e)
        self._type(e.type, e.span)
        if e.type != expected:
            raise TypeCheckError(f"{_describe(e)} has type {e.type}, expected {expected}", e.span)

    def _cond(self, e: Expr, what: str) -> None:
        self._expr(e)
        if e.type != BOOL:
            raise TypeCheckError(f"condition of {what} must be bool, got {e.type}", e.span)

    def _operand(self, e: Expr, expected: Type, what: str) -> None:
        """Check ``e`` and that it has type ``expected`` (``what`` names it in the message)."""
        self._expr(e)
        if e.type != expected:
            raise TypeCheckError(f"{what} has type {e.type}, expected {expected}", e.span)

    def _combine_function(self, e: Combine) -> None:
        """The combine function of ``e`` exists and fits its operands (see :func:`combine_signature_error`)."""
        f = self.m.function(e.func)
        if f is None:
            raise TypeCheckError(f"combine.{e.kind.value} of undefined function {format_func(e.func)}", e.span)
        why = combine_signature_error(f, tuple(scalar_of(a.type) or a.type for a in e.args))
        if why is not None:
            raise TypeCheckError(why, e.span)

    def _mask(self, mask: Expr | None, ptr: Type, what: str) -> None:
        """A mask is bool, or a bool block of the shape of a block of pointers ``ptr``."""
        if mask is None:
            return
        self._expr(mask)
        allowed: list[Type] = [BOOL]
        if isinstance(ptr, BlockType):
            allowed.append(BlockType(BOOL, ptr.shape))
        if mask.type not in allowed:
            wanted = " or ".join(str(t) for t in allowed)
            raise TypeCheckError(f"mask of {what} must be {wanted}, got {mask.type}", mask.span)

    def _pointee(self, ptr: Expr, what: str) -> tuple[PointerType, Type]:
        """The pointer type of ``ptr`` (a pointer or a block of pointers) and the type it accesses."""
        self._expr(ptr)
        p = ptr.type
        match p:
            case PointerType():
                pointer, accessed = p, p.pointee
            case BlockType(elem=PointerType() as pointer):
                if not isinstance(pointer.pointee, ScalarType):
                    raise TypeCheckError(f"{what} through {p} needs pointers to scalars", ptr.span)
                accessed = BlockType(pointer.pointee, p.shape)
            case _:
                raise TypeCheckError(f"{what} needs a pointer, got {p}", ptr.span)
        if isinstance(accessed, VoidType | ArrayType):
            raise TypeCheckError(f"{what} through {p} (it points to a non-value type)", ptr.span)
        return pointer, accessed

    # -- statements ---------------------------------------------------------------------------------

    def body(self, stmts: tuple[Stmt, ...]) -> None:
        for s in stmts:
            try:
                self._stmt(s)
            except TypeCheckError as err:
                err.with_span(s.span)
                raise

    def _stmt(self, s: Stmt) -> None:
        match s:
            case Decl():
                self._value_type(s.type, f"variable {format_var(s.name)}", s.span)
                if s.init is not None:
                    self._operand(s.init, s.type, f"initializer of {format_var(s.name)}")
                self._declare(s.name, _Var(s.type, _VarKind.LOCAL), s.span)
            case Assign():
                self._expr(s.value)
                var = self._lookup(s.name, "assignment to", s.span)
                if var.kind is _VarKind.ALLOC:
                    raise TypeCheckError(f"cannot assign to allocation {format_var(s.name)}", s.span)
                if s.value.type != var.type:
                    target = format_var(s.name)
                    raise TypeCheckError(
                        f"value assigned to {target} has type {s.value.type}, expected {var.type}",
                        s.value.span,
                    )
            case Alloc():
                name = format_var(s.name)
                _need_level(self.level, Level.THREAD, f"allocation {name}", s.span)
                if s.space not in (AddressSpace.SHARED, AddressSpace.LOCAL):
                    raise TypeCheckError(
                        f"allocation {name} must be in shared or local memory, not {s.space.value}", s.span
                    )
                if s.count is None and s.space is not AddressSpace.SHARED:
                    raise TypeCheckError(f"allocation {name} of unknown size must be shared", s.span)
                if s.count is not None and s.count < 1:
                    raise TypeCheckError(f"allocation {name} needs a positive count, got {s.count}", s.span)
                if not isinstance(s.elem, ScalarType | VectorType | PointerType):
                    raise TypeCheckError(
                        f"element of allocation {name} must be a scalar, vector or pointer, got {s.elem}",
                        s.span,
                    )
                self._type(s.elem, s.span)
                self._declare(s.name, _Var(PointerType(s.elem, s.space), _VarKind.ALLOC), s.span)
            case Load():
                _, accessed = self._pointee(s.ptr, "load")
                self._dst(s.dst, accessed, "load", s.span)
                self._mask(s.mask, s.ptr.type, "load")
                if s.other is not None:
                    if s.mask is None:
                        raise TypeCheckError("other of load needs a mask", s.other.span)
                    self._expr(s.other)
                    allowed: list[Type] = [accessed]
                    if isinstance(accessed, BlockType):
                        allowed.append(accessed.elem)
                    if s.other.type not in allowed:
                        wanted = " or ".join(str(t) for t in allowed)
                        raise TypeCheckError(f"other of load has type {s.other.type}, expected {wanted}", s.other.span)
            case Store():
                pointer, accessed = self._pointee(s.ptr, "store")
                if pointer.const:
                    raise TypeCheckError(f"store through a const pointer {s.ptr.type}", s.ptr.span)
                self._operand(s.value, accessed, "stored value")
                self._mask(s.mask, s.ptr.type, "store")
            case If():
                self._cond(s.cond, "if")
                with self._scope():
                    self.body(s.then_body)
                with self._scope():
                    self.body(s.else_body)
            case For():
                if s.unroll is not None and s.unroll < 0:
                    raise TypeCheckError(f"unroll count must be non-negative, got {s.unroll}", s.span)
                with self._scope():
                    self.body(s.init)
                    if s.cond is not None:
                        self._cond(s.cond, "for")
                    with self._scope(loop=True):
                        self.body(s.body)
                    with self._scope():
                        self.body(s.step)
            case While():
                self._cond(s.cond, "while")
                with self._scope(loop=True):
                    self.body(s.body)
            case DoWhile():
                with self._scope(loop=True):
                    self.body(s.body)
                self._cond(s.cond, "do-while")
            case Break() | Continue():
                if self.loop_depth == 0:
                    raise TypeCheckError(f"{type(s).__name__.lower()} outside a loop", s.span)
            case Return():
                ret = self.f.ret
                if s.value is None:
                    if not isinstance(ret, VoidType):
                        raise TypeCheckError(f"return without a value in a function returning {ret}", s.span)
                elif isinstance(ret, VoidType):
                    raise TypeCheckError("return with a value in a function returning void", s.value.span)
                else:
                    self._operand(s.value, ret, "returned value")
            case Barrier():
                what = f"barrier.{s.scope.value}"
                match s.scope:
                    case BarrierScope.BLOCK:
                        if s.mask is not None:
                            raise TypeCheckError(f"{what} takes no mask", s.mask.span)
                    case BarrierScope.WARP:
                        _need_level(self.level, Level.THREAD, what, s.span)
                        if s.mask is not None:
                            self._operand(s.mask, U32, f"mask of {what}")
                    case _:
                        assert_never(s.scope)
            case Fence():
                pass  # every scope is valid at both levels
            case Assert():
                self._cond(s.cond, "assert")
            case Assume():
                self._cond(s.cond, "assume")
            case Shuffle():
                what = f"shfl.{s.kind.value}"
                _need_level(self.level, Level.THREAD, what, s.span)
                self._operand(s.mask, U32, f"mask of {what}")
                self._expr(s.value)
                if not _shufflable(s.value.type):
                    raise TypeCheckError(f"{what} cannot exchange a value of type {s.value.type}", s.value.span)
                self._operand(s.lane, I32, f"lane of {what}")
                self._operand(s.width, I32, f"width of {what}")
                self._dst(s.dst, s.value.type, what, s.span)
            case Vote():
                what = f"vote.{s.kind.value}"
                _need_level(self.level, Level.THREAD, what, s.span)
                self._operand(s.mask, U32, f"mask of {what}")
                self._expr(s.pred)
                if s.pred.type != BOOL:
                    raise TypeCheckError(f"predicate of {what} must be bool, got {s.pred.type}", s.pred.span)
                self._dst(s.dst, U32 if s.kind is VoteKind.BALLOT else I32, what, s.span)
            case Atomic():
                self._atomic(s)
            case Call():
                self._call(s)
            case _:
                assert_never(s)

    def _atomic(self, s: Atomic) -> None:
        what = f"atomic.{s.op.value}"
        pointer, accessed = self._pointee(s.ptr, what)
        p = s.ptr.type
        if not _is_numeric(pointer.pointee):
            raise TypeCheckError(f"{what} needs a pointer to an integer or float scalar, got {p}", s.ptr.span)
        if pointer.const:
            raise TypeCheckError(f"{what} through a const pointer {p}", s.ptr.span)
        if pointer.space not in (AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.GENERIC):
            raise TypeCheckError(f"{what} needs global, shared or generic memory, got {p}", s.ptr.span)
        if s.op in (AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR) and not _is_int(pointer.pointee):
            raise TypeCheckError(f"{what} needs an integer pointee, got {p}", s.ptr.span)
        if s.op in (AtomicOp.INC, AtomicOp.DEC) and pointer.pointee not in (U32, U64):
            raise TypeCheckError(f"{what} needs an unsigned 32- or 64-bit integer pointee, got {p}", s.ptr.span)
        self._operand(s.value, accessed, f"value of {what}")
        if s.op is AtomicOp.CAS:
            if s.compare is None:
                raise TypeCheckError(f"{what} needs a compare value", s.span)
            self._operand(s.compare, accessed, f"compare value of {what}")
        elif s.compare is not None:
            raise TypeCheckError(f"compare value is only allowed for atomic.cas, not {what}", s.compare.span)
        if s.mask is not None:
            _need_level(self.level, Level.BLOCK, f"mask of {what}", s.mask.span)
            self._mask(s.mask, p, what)
        if s.dst is not None:
            self._dst(s.dst, accessed, what, s.span)

    def _call(self, s: Call) -> None:
        name = format_func(s.func)
        callee = self.m.function(s.func)
        if callee is None:
            raise TypeCheckError(f"call to undefined function {name}", s.span)
        if callee.kind is FunctionKind.KERNEL:
            raise TypeCheckError(f"call to kernel {name} (only device functions can be called)", s.span)
        if callee.level is not self.level:
            raise TypeCheckError(
                f"call from a {self.level.value}-level function to {callee.level.value}-level {name}", s.span
            )
        if len(s.args) != len(callee.params):
            n = len(callee.params)
            raise TypeCheckError(f"{name} takes {n} argument{'' if n == 1 else 's'}, got {len(s.args)}", s.span)
        for i, (arg, param) in enumerate(zip(s.args, callee.params, strict=True), 1):
            self._expr(arg)
            if param.by_ref:
                ref = f"parameter {format_var(param.name)} is passed by reference"
                if not isinstance(arg, VarRef):
                    raise TypeCheckError(f"argument {i} of {name} must be a variable ({ref})", arg.span)
                if self._lookup(arg.name, "use of", arg.span).kind is _VarKind.ALLOC:
                    raise TypeCheckError(
                        f"argument {i} of {name} cannot be allocation {format_var(arg.name)} ({ref})",
                        arg.span,
                    )
            if arg.type != param.type:
                raise TypeCheckError(f"argument {i} of {name} has type {arg.type}, expected {param.type}", arg.span)
        if s.dst is not None:
            if isinstance(callee.ret, VoidType):
                raise TypeCheckError(
                    f"{name} returns void; its result cannot be assigned to {format_var(s.dst)}", s.span
                )
            self._dst(s.dst, callee.ret, f"call to {name}", s.span)

    # -- the function -------------------------------------------------------------------------------

    def function(self) -> None:
        f = self.f
        name = format_func(f.name)
        for p in f.params:
            var = format_var(p.name)
            self._value_type(p.type, f"parameter {var}", p.span)
            if f.kind is FunctionKind.KERNEL:
                if p.by_ref:
                    raise TypeCheckError(f"kernel parameter {var} cannot be passed by reference", p.span)
                if isinstance(p.type, PointerType) and p.type.space is not AddressSpace.GLOBAL:
                    raise TypeCheckError(f"kernel parameter {var} must point to global memory, got {p.type}", p.span)
            if p.name in self.declared:
                raise TypeCheckError(f"duplicate parameter {var}", p.span)
            self._declare(p.name, _Var(p.type, _VarKind.REF_PARAM if p.by_ref else _VarKind.PARAM), p.span)
        if not isinstance(f.ret, VoidType):
            self._value_type(f.ret, f"result of {name}", f.span)
        if f.kind is FunctionKind.KERNEL and not isinstance(f.ret, VoidType):
            raise TypeCheckError(f"kernel {name} must return void, not {f.ret}", f.span)
        if f.max_threads is not None and f.max_threads < 1:
            raise TypeCheckError(f"max_threads of {name} must be positive, got {f.max_threads}", f.span)
        self.body(f.body)


def verify_function(f: Function, m: Module) -> None:
    """Check ``f`` against the typing rules; ``m`` is the module whose device functions it may call.

    Raises :class:`TypeCheckError` for the first violation, with a note naming ``f``.
    """
    try:
        _FunctionVerifier(f, m).function()
    except TypeCheckError as err:
        err.with_span(f.span)
        where = "kernel" if f.kind is FunctionKind.KERNEL else "device function"
        err.notes = (*err.notes, f"in {where} {format_func(f.name)}")
        raise


def verify_module(m: Module) -> None:
    """Check every function of ``m`` (and that function names are unique); raises :class:`TypeCheckError`."""
    seen: set[str] = set()
    for f in m.functions:
        if f.name in seen:
            raise TypeCheckError(f"duplicate function {format_func(f.name)}", f.span)
        seen.add(f.name)
    for f in m.functions:
        verify_function(f, m)
