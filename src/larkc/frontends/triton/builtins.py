"""The ``tl`` functions (and ``libdevice``/``tl.math``, ``triton.cdiv``, Python builtins on constexprs) as a
handler table: :data:`HANDLERS` maps a name to a function of the lowering, the positional and keyword
arguments (already evaluated) and the call's span.

Each handler binds its arguments against Triton's parameter names (:func:`_bind`), so calls by position
and by keyword both work and an unknown keyword is an error. Hints that do not change values
(``cache_modifier``, ``eviction_policy``, ``volatile``, ``tl.multiple_of``, ``tl.max_contiguous``) are
accepted and ignored; the simulator checks what the program does without them. An atomic's ``sem`` and
``scope`` become its memory order (:func:`_memory_order`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from larkc.errors import LarkcError, Span, TypeCheckError, UnsupportedError
from larkc.frontends.triton.values import (
    Constexpr,
    DType,
    Tensor,
    broadcast_shape,
    computation_type,
    dtype_name,
    elem_of,
    shape_of,
    with_elem,
)
from larkc.ir.nodes import (
    Arange,
    Atomic,
    AtomicOp,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Builtin,
    BuiltinReg,
    Combine,
    CombineKind,
    Const,
    Decl,
    Dim,
    Dot,
    Load,
    MathCall,
    MathFn,
    MemoryOrder,
    MemScope,
    Permute,
    Reduce,
    ReduceOp,
    Reshape,
    Scan,
    Select,
    Splat,
    Store,
)
from larkc.ir.types import BOOL, F32, F64, I32, U32, BlockType, PointerType, ScalarType
from larkc.tasks.shape_expr import next_pow2

if TYPE_CHECKING:
    from larkc.frontends.triton.lower import AnyValue, KernelLowering

__all__ = ["HANDLERS", "Handler"]

Handler = Callable[["KernelLowering", list["AnyValue"], dict[str, "AnyValue"], Span], "AnyValue"]
HANDLERS: dict[str, Handler] = {}

_REQUIRED = object()


def _bind(
    name: str, params: Sequence[str], pos: Sequence[AnyValue], kws: Mapping[str, AnyValue], span: Span
) -> dict[str, AnyValue | None]:
    """Match arguments to ``params`` (``"x"`` required, ``"x="`` optional with default ``None``)."""
    names = [p.rstrip("=") for p in params]
    if len(pos) > len(names):
        raise TypeCheckError(f"{name}() takes at most {len(names)} arguments, got {len(pos)}", span)
    out: dict[str, AnyValue | None] = dict(zip(names, pos, strict=False))
    for k, v in kws.items():
        if k not in names:
            raise TypeCheckError(f"{name}() has no parameter {k}", span)
        if k in out:
            raise TypeCheckError(f"{name}() got two values for {k}", span)
        out[k] = v
    for p, n in zip(params, names, strict=True):
        if n not in out:
            if not p.endswith("="):
                raise TypeCheckError(f"{name}() missing argument {n}", span)
            out[n] = None
    return out


def _handler(*names: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for n in names:
            HANDLERS[n] = fn
        return fn

    return register


def _const(v: AnyValue | None, what: str, span: Span) -> object:
    if not isinstance(v, Constexpr):
        raise TypeCheckError(f"{what} must be a compile-time value", span)
    return v.value


def _int(v: AnyValue | None, what: str, span: Span) -> int:
    x = _const(v, what, span)
    if not isinstance(x, int) or isinstance(x, bool):
        raise TypeCheckError(f"{what} must be an integer, got {x!r}", span)
    return x


def _shape(v: AnyValue | None, what: str, span: Span) -> tuple[int, ...]:
    x = _const(v, what, span)
    items = x if isinstance(x, tuple) else (x,)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in items):
        raise TypeCheckError(f"{what} must be a tuple of positive integers, got {x!r}", span)
    return tuple(d for d in items if isinstance(d, int))


def _dtype(v: AnyValue | None, what: str, span: Span) -> ScalarType:
    x = _const(v, what, span)
    if not isinstance(x, DType):
        raise TypeCheckError(f"{what} must be a dtype, got {x!r}", span)
    return x.type


def _tensor(lw: KernelLowering, v: AnyValue | None, what: str, span: Span) -> Tensor:
    if v is None:
        raise TypeCheckError(f"{what} is missing", span)
    return lw.tensor(v, span)


def _scalar_elem(t: Tensor, what: str, span: Span) -> ScalarType:
    e = elem_of(t.type)
    if not isinstance(e, ScalarType):
        raise TypeCheckError(f"{what} must be numeric, got a pointer", span)
    return e


# -- program ids, ranges, constructors ------------------------------------------------------------


def _axis_dim(axis: int, span: Span) -> Dim:
    if axis not in (0, 1, 2):
        raise TypeCheckError(f"program axis must be 0, 1 or 2, got {axis}", span)
    return (Dim.X, Dim.Y, Dim.Z)[axis]


@_handler("program_id")
def _program_id(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("program_id", ["axis"], pos, kws, span)
    return Tensor(Builtin(BuiltinReg.BLOCK_IDX, _axis_dim(_int(a["axis"], "axis", span), span), I32, span))


@_handler("num_programs")
def _num_programs(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("num_programs", ["axis"], pos, kws, span)
    return Tensor(Builtin(BuiltinReg.GRID_DIM, _axis_dim(_int(a["axis"], "axis", span), span), I32, span))


@_handler("arange")
def _arange(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("arange", ["start", "end"], pos, kws, span)
    lo, hi = _int(a["start"], "start of arange", span), _int(a["end"], "end of arange", span)
    n = hi - lo
    if n <= 0 or n & (n - 1):
        raise TypeCheckError(f"arange's range must be a power of 2, got {n}", span)
    if n > TRITON_MAX_TENSOR_NUMEL:  # Triton's own rule (triton.language.semantic.arange) and message
        raise TypeCheckError(
            f"end - start must be less than or equal to TRITON_MAX_TENSOR_NUMEL = {TRITON_MAX_TENSOR_NUMEL}", span
        )
    return Tensor(Arange(lo, hi, BlockType(I32, (n,)), span))


#: The most elements a Triton block may have (``triton._utils.TRITON_MAX_TENSOR_NUMEL``): Triton refuses
#: larger ``tl.arange`` ranges and block shapes when it compiles the kernel.
TRITON_MAX_TENSOR_NUMEL = 1 << 20


def _full(lw: KernelLowering, shape: tuple[int, ...], value: object, t: ScalarType, span: Span) -> Tensor:
    if math.prod(shape) > TRITON_MAX_TENSOR_NUMEL:  # Triton's validate_block_shape, with its message
        raise TypeCheckError(
            f"numel ({math.prod(shape)}) exceeds triton maximum tensor numel ({TRITON_MAX_TENSOR_NUMEL})", span
        )
    if isinstance(value, Tensor):
        v = lw.convert(value, t, span)
        if shape_of(v.type):
            raise TypeCheckError("the value of tl.full must be a scalar", span)
        return Tensor(Splat(v.expr, BlockType(t, shape), span))
    if not isinstance(value, bool | int | float):
        raise TypeCheckError(f"the value of tl.full must be a number, got {value!r}", span)
    c = lw.const(value, t, span) if not (t.is_int and isinstance(value, float)) else lw.const(int(value), t, span)
    return Tensor(Splat(c, BlockType(t, shape), span)) if shape else Tensor(c)


@_handler("zeros")
def _zeros(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("zeros", ["shape", "dtype"], pos, kws, span)
    t = _dtype(a["dtype"], "dtype", span)
    return _full(lw, _shape(a["shape"], "shape", span), False if t.is_bool else 0, t, span)


@_handler("full")
def _full_h(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("full", ["shape", "value", "dtype"], pos, kws, span)
    t = _dtype(a["dtype"], "dtype", span)
    v = a["value"]
    value = v.value if isinstance(v, Constexpr) else v
    return _full(lw, _shape(a["shape"], "shape", span), value, t, span)


@_handler("zeros_like")
def _zeros_like(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("zeros_like", ["input", "dtype="], pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    t = _dtype(a["dtype"], "dtype", span) if a["dtype"] is not None else _scalar_elem(x, "input", span)
    return _full(lw, shape_of(x.type), False if t.is_bool else 0, t, span)


@_handler("full_like")
def _full_like(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("full_like", ["input", "value", "dtype="], pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    t = _dtype(a["dtype"], "dtype", span) if a["dtype"] is not None else _scalar_elem(x, "input", span)
    v = a["value"]
    return _full(lw, shape_of(x.type), v.value if isinstance(v, Constexpr) else v, t, span)


def _is_number_const(v: AnyValue) -> bool:
    return isinstance(v, Constexpr) and isinstance(v.value, bool | int | float)


# -- memory ---------------------------------------------------------------------------------------


def _pointer(lw: KernelLowering, v: AnyValue | None, what: str, span: Span) -> tuple[Tensor, ScalarType]:
    p = _tensor(lw, v, what, span)
    e = elem_of(p.type)
    if not isinstance(e, PointerType) or not isinstance(e.pointee, ScalarType):
        raise TypeCheckError(f"{what} must be a pointer or a block of pointers, got {lw.describe(p)}", span)
    return p, e.pointee


def _mask(lw: KernelLowering, v: AnyValue | None, shape: tuple[int, ...], span: Span) -> Tensor | None:
    if v is None or (isinstance(v, Constexpr) and v.value is None):
        return None
    m = lw.tensor(v, span)
    if elem_of(m.type) != BOOL:
        m = lw.truth(m, span)
    ms = shape_of(m.type)
    if ms != shape:
        if broadcast_shape(ms, shape, span) != shape:
            raise TypeCheckError(f"mask of shape {list(ms)} does not fit pointers of shape {list(shape)}", span)
        m = lw.splat_to(m, shape, span)
    return m


def _block_pointer_args(a: Mapping[str, AnyValue | None], span: Span) -> None:
    bc = a.get("boundary_check")
    if bc is not None and not (isinstance(bc, Constexpr) and bc.value in ((), None)):
        raise UnsupportedError("boundary_check", "block pointers (tl.make_block_ptr) are not supported yet", span)
    po = a.get("padding_option")
    if po is not None and not (isinstance(po, Constexpr) and po.value in ("", None)):
        raise UnsupportedError("padding_option", "block pointers (tl.make_block_ptr) are not supported yet", span)


@_handler("load")
def _load(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    params = ["pointer", "mask=", "other=", "boundary_check=", "padding_option=", "cache_modifier="]
    params += ["eviction_policy=", "volatile="]
    a = _bind("load", params, pos, kws, span)
    _block_pointer_args(a, span)
    p, elem = _pointer(lw, a["pointer"], "the pointer of tl.load", span)
    shape = shape_of(p.type)
    m = _mask(lw, a["mask"], shape, span)
    other = None
    o = a["other"]
    if m is not None and o is not None and not (isinstance(o, Constexpr) and o.value is None):
        ov = lw.convert(lw.tensor(o, span, like=elem if _is_number_const(o) else None), elem, span)
        other = lw.splat_to(ov, shape, span) if shape_of(ov.type) != shape else ov
    t = with_elem(elem, shape)
    dst = lw.fresh("load")
    lw.emit(Decl(dst, t, None, span))
    lw.emit(Load(dst, p.expr, m.expr if m else None, other.expr if other else None, span))
    from larkc.ir.nodes import VarRef

    return Tensor(VarRef(dst, t, span))


@_handler("store")
def _store(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    params = ["pointer", "value", "mask=", "boundary_check=", "cache_modifier=", "eviction_policy="]
    a = _bind("store", params, pos, kws, span)
    _block_pointer_args(a, span)
    p, elem = _pointer(lw, a["pointer"], "the pointer of tl.store", span)
    shape = shape_of(p.type)
    v = a["value"]
    assert v is not None
    val = lw.convert(lw.tensor(v, span, like=elem if _is_number_const(v) else None), elem, span)
    vs = shape_of(val.type)
    if vs != shape:
        if not shape and vs:
            raise TypeCheckError("storing a block through a single pointer", span)
        val = lw.splat_to(val, shape, span)
    m = _mask(lw, a["mask"], shape, span)
    lw.emit(Store(p.expr, val.expr, m.expr if m else None, span))
    return Constexpr(None)


_ATOMICS = {
    "atomic_add": AtomicOp.ADD,
    "atomic_max": AtomicOp.MAX,
    "atomic_min": AtomicOp.MIN,
    "atomic_xchg": AtomicOp.EXCH,
    "atomic_and": AtomicOp.AND,
    "atomic_or": AtomicOp.OR,
    "atomic_xor": AtomicOp.XOR,
    "atomic_cas": AtomicOp.CAS,
}


_SEMS = {
    "relaxed": MemoryOrder.RELAXED,
    "acquire": MemoryOrder.ACQUIRE,
    "release": MemoryOrder.RELEASE,
    "acq_rel": MemoryOrder.ACQ_REL,
}


_SCOPES = {"cta": MemScope.BLOCK, "gpu": MemScope.DEVICE, "sys": MemScope.SYSTEM}


def _memory_order(sem: AnyValue | None, scope: AnyValue | None, span: Span) -> tuple[MemoryOrder, MemScope]:
    """The order of an atomic between programs, Triton's ``sem`` (default ``acq_rel``), and its scope
    (default ``gpu``); with ``scope="cta"`` it is atomic towards and orders only its own program (each
    program is a CTA)."""
    sem_v = None if sem is None else _const(sem, "sem", span)
    scope_v = None if scope is None else _const(scope, "scope", span)
    if sem_v is not None and sem_v not in _SEMS:
        raise UnsupportedError("memory semantic", repr(sem_v), span)
    if scope_v is not None and scope_v not in _SCOPES:
        raise UnsupportedError("memory scope", repr(scope_v), span)
    order = MemoryOrder.ACQ_REL if sem_v is None else _SEMS[str(sem_v)]
    return order, MemScope.DEVICE if scope_v is None else _SCOPES[str(scope_v)]


def _atomic(name: str) -> Handler:
    op = _ATOMICS[name]

    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        if op is AtomicOp.CAS:
            a = _bind(name, ["pointer", "cmp", "val", "sem=", "scope="], pos, kws, span)
        else:
            a = _bind(name, ["pointer", "val", "mask=", "sem=", "scope="], pos, kws, span)
        p, elem = _pointer(lw, a["pointer"], f"the pointer of tl.{name}", span)
        shape = shape_of(p.type)

        def operand(key: str) -> Tensor:
            v = a[key]
            assert v is not None
            t = lw.convert(lw.tensor(v, span, like=elem if _is_number_const(v) else None), elem, span)
            return lw.splat_to(t, shape, span) if shape_of(t.type) != shape else t

        val = operand("val")
        cmp = operand("cmp") if op is AtomicOp.CAS else None
        m = _mask(lw, a.get("mask"), shape, span)
        t = with_elem(elem, shape)
        dst = lw.fresh("old")
        lw.emit(Decl(dst, t, None, span))
        order, scope = _memory_order(a.get("sem"), a.get("scope"), span)
        c_e, m_e = (cmp.expr if cmp else None), (m.expr if m else None)
        lw.emit(Atomic(dst, op, p.expr, val.expr, c_e, m_e, span, order, scope))
        from larkc.ir.nodes import VarRef

        return Tensor(VarRef(dst, t, span))

    return handler


for _name in _ATOMICS:
    HANDLERS[_name] = _atomic(_name)


@_handler("debug_barrier")
def _debug_barrier(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    _bind("debug_barrier", [], pos, kws, span)
    lw.emit(Barrier(BarrierScope.BLOCK, None, span))
    return Constexpr(None)


# -- elementwise ----------------------------------------------------------------------------------


@_handler("where")
def _where(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("where", ["condition", "x", "y"], pos, kws, span)
    c, x, y = a["condition"], a["x"], a["y"]
    assert c is not None and x is not None and y is not None
    if isinstance(c, Constexpr):
        return x if c.value else y
    return lw.where(lw.tensor(c, span), x, y, span)


def _minmax(op: BinaryOp) -> Handler:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        a = _bind(op.value, ["x", "y", "propagate_nan="], pos, kws, span)
        pn = a["propagate_nan"]
        if pn is not None and not (isinstance(pn, Constexpr) and pn.value in (None, False, 0)):
            raise UnsupportedError("propagate_nan", "only the default (a NaN operand yields the other)", span)
        x, y = a["x"], a["y"]
        assert x is not None and y is not None
        tx, ty = lw.promote(x, y, span)
        if elem_of(tx.type) == BOOL:  # on int1, the maximum is `or` and the minimum `and`
            logical = BinaryOp.LOR if op is BinaryOp.MAX else BinaryOp.LAND
            return Tensor(Binary(logical, tx.expr, ty.expr, tx.type, span))
        return Tensor(Binary(op, tx.expr, ty.expr, tx.type, span))

    return handler


HANDLERS["maximum"] = _minmax(BinaryOp.MAX)
HANDLERS["minimum"] = _minmax(BinaryOp.MIN)

#: ``tl`` math functions that accept only fp32/fp64 (Triton's ``_check_dtype``), and their IR function.
_FLOAT_MATH = {
    "exp": MathFn.EXP,
    "exp2": MathFn.EXP2,
    "log": MathFn.LOG,
    "log2": MathFn.LOG2,
    "cos": MathFn.COS,
    "sin": MathFn.SIN,
    "sqrt": MathFn.SQRT,
    "sqrt_rn": MathFn.SQRT,
    "rsqrt": MathFn.RSQRT,
    "erf": MathFn.ERF,
    "floor": MathFn.FLOOR,
    "ceil": MathFn.CEIL,
    # libdevice / tl.math extras (fp32/fp64 only, as libdevice has them)
    "tanh": MathFn.TANH,
    "log1p": MathFn.LOG1P,
    "expm1": MathFn.EXPM1,
    "exp10": MathFn.EXP10,
    "log10": MathFn.LOG10,
    "tan": MathFn.TAN,
    "asin": MathFn.ASIN,
    "acos": MathFn.ACOS,
    "atan": MathFn.ATAN,
    "sinh": MathFn.SINH,
    "cosh": MathFn.COSH,
    "erfc": MathFn.ERFC,
    "cbrt": MathFn.CBRT,
    "trunc": MathFn.TRUNC,
    "round": MathFn.ROUND,
    "rint": MathFn.RINT,
    "nearbyint": MathFn.RINT,
    "isnan": MathFn.ISNAN,
    "isinf": MathFn.ISINF,
    "isfinited": MathFn.ISFINITE,
    "finitef": MathFn.ISFINITE,
    "signbit": MathFn.SIGNBIT,
}
_FLOAT_MATH2 = {"pow": MathFn.POW, "atan2": MathFn.ATAN2, "fmod": MathFn.FMOD, "copysign": MathFn.COPYSIGN}


def _float_arg(lw: KernelLowering, v: AnyValue | None, name: str, span: Span) -> Tensor:
    t = _tensor(lw, v, f"the argument of {name}", span)
    e = _scalar_elem(t, f"the argument of {name}", span)
    if e not in (F32, F64):
        raise TypeCheckError(f"{name} expects fp32 or fp64, got {dtype_name(e)} (cast it first)", span)
    return t


def _math1(name: str, fn: MathFn) -> Handler:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        a = _bind(name, ["x"], pos, kws, span)
        x = _float_arg(lw, a["x"], name, span)
        bool_result = fn in (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE, MathFn.SIGNBIT)
        t = with_elem(BOOL, shape_of(x.type)) if bool_result else x.type
        return Tensor(MathCall(fn, (x.expr,), t, span=span))

    return handler


def _math2(name: str, fn: MathFn) -> Handler:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        a = _bind(name, ["x", "y"], pos, kws, span)
        x, y = a["x"], a["y"]
        assert x is not None and y is not None
        tx, ty = lw.promote(x, y, span)
        _float_arg(lw, tx, name, span)
        return Tensor(MathCall(fn, (tx.expr, ty.expr), tx.type, span=span))

    return handler


for _name, _fn in _FLOAT_MATH.items():
    HANDLERS[_name] = _math1(_name, _fn)
for _name, _fn in _FLOAT_MATH2.items():
    HANDLERS[_name] = _math2(_name, _fn)


@_handler("abs")
def _abs(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("abs", ["x"], pos, kws, span)
    x = _tensor(lw, a["x"], "the argument of abs", span)
    e = _scalar_elem(x, "the argument of abs", span)
    if e.is_unsigned or e.is_bool:
        return x
    return Tensor(MathCall(MathFn.ABS, (x.expr,), x.type, span=span))


@_handler("fma")
def _fma(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("fma", ["x", "y", "z"], pos, kws, span)
    x, y, z = a["x"], a["y"], a["z"]
    assert x is not None and y is not None and z is not None
    tx, ty = lw.promote(x, y, span)
    tz, tx = lw.promote(z, tx, span)
    tz, ty = lw.promote(tz, ty, span)
    e = _scalar_elem(tx, "fma", span)
    if not e.is_float:
        raise TypeCheckError("fma needs floating-point operands", span)
    return Tensor(MathCall(MathFn.FMA, (tx.expr, ty.expr, tz.expr), tx.type, span=span))


@_handler("sigmoid")
def _sigmoid(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    # standard.py: 1 / (1 + math.exp(-x))
    a = _bind("sigmoid", ["x"], pos, kws, span)
    x = _float_arg(lw, a["x"], "exp", span)
    import ast as _ast

    neg = lw.unary(_ast.USub(), x, span)
    e = HANDLERS["exp"](lw, [neg], {}, span)
    return lw.binop("/", Constexpr(1), lw.binop("+", Constexpr(1), e, span), span)


@_handler("fdiv", "div_rn")
def _fdiv(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("fdiv", ["x", "y", "ieee_rounding=", "approx="], pos, kws, span)
    x, y = a["x"], a["y"]
    assert x is not None and y is not None
    tx, ty = lw.promote(x, y, span, div_or_mod=True)
    if not _scalar_elem(tx, "fdiv", span).is_float:
        raise TypeCheckError("fdiv requires floating-point operands", span)
    return Tensor(Binary(BinaryOp.DIV, tx.expr, ty.expr, tx.type, span))


@_handler("cdiv")
def _cdiv(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("cdiv", ["x", "div"], pos, kws, span)
    x, d = a["x"], a["div"]
    assert x is not None and d is not None
    if isinstance(x, Constexpr) and isinstance(d, Constexpr):
        if not (isinstance(x.value, int) and isinstance(d.value, int)) or d.value == 0:
            raise TypeCheckError("cdiv of compile-time values needs integers and a non-zero divisor", span)
        return Constexpr((x.value + d.value - 1) // d.value)
    # standard.py: (x + div - 1) // div
    return lw.binop("//", lw.binop("-", lw.binop("+", x, d, span), Constexpr(1), span), d, span)


@_handler("next_power_of_2")
def _next_pow2(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("next_power_of_2", ["n"], pos, kws, span)
    return Constexpr(next_pow2(_int(a["n"], "n", span)))


@_handler("to", "cast")
def _to(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("to", ["input", "dtype", "fp_downcast_rounding=", "bitcast="], pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    t = _dtype(a["dtype"], "dtype", span)
    rounding = a["fp_downcast_rounding"]
    if rounding is not None and not (isinstance(rounding, Constexpr) and rounding.value in (None, "rtne")):
        raise UnsupportedError("fp_downcast_rounding", str(_const(rounding, "rounding", span)), span)
    bitcast = bool(_const(a["bitcast"], "bitcast", span)) if a["bitcast"] is not None else False
    if isinstance(elem_of(x.type), PointerType):
        raise UnsupportedError("cast of a pointer", dtype_name(t), span)
    if bitcast and _scalar_elem(x, "input", span).bits != t.bits:
        raise TypeCheckError("bitcast between types of different sizes", span)
    return lw.convert(x, t, span, bitcast=bitcast)


# Compiler hints are promises the compiler optimises on (vector widths, alignment) and never checks: a
# false one is undefined behaviour. Each is lowered to the input itself and an ``Assert`` of kind HINT
# (the ``defined`` obligation) of what it promises, as Triton documents it (docs/triton-support.md).


def _hint_values(v: AnyValue | None, rank: int, name: str, span: Span) -> tuple[int, ...]:
    """The ``values`` of a hint: one positive integer per dimension (a lone integer for every one)."""
    items = (
        _tuple_items(v, f"values of tl.{name}", span)
        if not isinstance(v, Constexpr) or isinstance(v.value, tuple)
        else [v]
    )
    values = tuple(_int(x, f"values of tl.{name}", span) for x in items)
    if len(values) == 1 and rank > 1:
        values = values * rank
    if len(values) != max(rank, 1) or any(k <= 0 for k in values):
        raise TypeCheckError(f"tl.{name} needs one positive integer per dimension of its input, got {values}", span)
    return values


def _promise(lw: KernelLowering, cond: AnyValue, span: Span) -> None:
    """Emit the hint obligation that ``cond`` (a boolean, or a block of them: every element) holds."""
    from larkc.ir.nodes import Assert, AssertKind

    if isinstance(cond, Constexpr):
        if cond.value:
            return
        lw.emit(Assert(Const(False, BOOL, span), span, AssertKind.HINT))
        return
    c = lw.tensor(cond, span)
    if shape_of(c.type):
        n = math.prod(shape_of(c.type))
        flat = c if len(shape_of(c.type)) == 1 else Tensor(Reshape(c.expr, BlockType(BOOL, (n,)), span))
        ones = lw.convert(flat, I32, span)
        least = Tensor(Reduce(ReduceOp.MIN, ones.expr, 0, I32, span))
        c = Tensor(Binary(BinaryOp.EQ, least.expr, Const(1, I32, span), BOOL, span))
    lw.emit(Assert(c.expr, span, AssertKind.HINT))


def _index_along(shape: tuple[int, ...], d: int, span: Span) -> Tensor:
    """The index along dimension ``d`` of every element of a block of ``shape`` (a broadcastable block)."""
    idx = Tensor(Arange(0, shape[d], BlockType(I32, (shape[d],)), span))
    if len(shape) > 1:
        idx = Tensor(Reshape(idx.expr, BlockType(I32, tuple(m if k == d else 1 for k, m in enumerate(shape))), span))
    return idx


@_handler("multiple_of")
def _multiple_of(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    """``tl.multiple_of(x, k)``: ``k[d]`` divides the first element of every contiguous group of ``x``
    along ``d``. Checked per element (the groups are the compiler's analysis, not known here): along
    each ``d``, ``x[i] % k == 0`` or ``x[i] ≡ i_d (mod k)`` (a run that starts at a multiple of ``k`` at
    an index that is one: what ``pid * BLOCK + tl.arange(0, BLOCK)`` is); a scalar is a multiple of ``k``.
    A pointer's divisibility is of its address in bytes (a run of pointers steps by the element size)."""
    from larkc.ir.nodes import Cast, CastKind
    from larkc.ir.types import I64

    a = _bind("multiple_of", ["input", "values"], pos, kws, span)
    x = a["input"]
    assert x is not None
    xt = lw.tensor(x, span)
    shape = shape_of(xt.type)
    step = 1
    pointee = elem_of(xt.type)
    if isinstance(pointee, PointerType):
        if not isinstance(pointee.pointee, ScalarType):
            raise UnsupportedError("tl.multiple_of", "of a pointer to a non-scalar", span)
        step = max(1, pointee.pointee.bits // 8)
        xt = Tensor(Cast(xt.expr, with_elem(I64, shape), CastKind.BITCAST, span))
    elif not _scalar_elem(xt, "input of tl.multiple_of", span).is_int:
        raise UnsupportedError("tl.multiple_of", "of a value that is not an integer", span)
    values = _hint_values(a["values"], len(shape), "multiple_of", span)
    for d, k in enumerate(values):
        if k == 1:
            continue
        rem = lw.binop("%", xt, Constexpr(k), span)
        ok = lw.compare_values(BinaryOp.EQ, rem, Constexpr(0), span)
        if shape:
            index = lw.binop("*", _index_along(shape, d, span), Constexpr(step), span)
            phase = lw.binop("%", index, Constexpr(k), span)
            run = lw.binop("%", lw.binop("-", xt, phase, span), Constexpr(k), span)
            ok = lw.binop("|", ok, lw.compare_values(BinaryOp.EQ, run, Constexpr(0), span), span)
        _promise(lw, ok, span)
    return x


def _runs(lw: KernelLowering, name: str, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    """``tl.max_contiguous(x, c)`` / ``tl.max_constancy(x, c)``: along the last dimension, ``x`` is made
    of aligned groups of ``c`` elements (``x[g*c : (g+1)*c]``), each ``c`` consecutive integers (equal
    values). A group longer than the block is the whole block. Other dimensions must have ``c == 1``."""
    a = _bind(name, ["input", "values"], pos, kws, span)
    x = a["input"]
    assert x is not None
    xt = lw.tensor(x, span)
    shape = shape_of(xt.type)
    values = _hint_values(a["values"], len(shape), name, span)
    if not shape:
        return x  # a scalar is one group of one element
    if any(k != 1 for k in values[:-1]):
        raise UnsupportedError(f"tl.{name}", "with groups along a dimension other than the last", span)
    n = shape[-1]
    c = min(values[-1], n)
    if c == 1:
        return x
    if n % c != 0:
        raise UnsupportedError(f"tl.{name}", f"with groups of {c} in a dimension of {n}", span)
    if name == "max_contiguous" and not _scalar_elem(xt, f"input of tl.{name}", span).is_int:
        raise UnsupportedError(f"tl.{name}", "of a value that is not an integer", span)
    elem = _scalar_elem(xt, f"input of tl.{name}", span)
    grouped_shape = (*shape[:-1], n // c, c)
    grouped = Tensor(Reshape(xt.expr, BlockType(elem, grouped_shape), span))
    if name == "max_contiguous":
        step = _index_along(grouped_shape, len(grouped_shape) - 1, span)
        v = lw.binop("-", grouped, step, span)
        assert isinstance(v, Tensor)
        grouped = v
    g_elem = elem_of(grouped.type)
    rest = with_elem(g_elem, grouped_shape[:-1])
    hi = Reduce(ReduceOp.MAX, grouped.expr, len(grouped_shape) - 1, rest, span)
    lo = Reduce(ReduceOp.MIN, grouped.expr, len(grouped_shape) - 1, rest, span)
    _promise(lw, Tensor(Binary(BinaryOp.EQ, hi, lo, with_elem(BOOL, grouped_shape[:-1]), span)), span)
    return x


@_handler("max_contiguous")
def _max_contiguous(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    return _runs(lw, "max_contiguous", pos, kws, span)


@_handler("max_constancy")
def _max_constancy(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    return _runs(lw, "max_constancy", pos, kws, span)


@_handler("assume")
def _assume(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    """``tl.assume(cond)`` (Triton 3): the promise that ``cond`` holds, an obligation (never a hypothesis)."""
    a = _bind("assume", ["cond"], pos, kws, span)
    cond = a["cond"]
    assert cond is not None
    if not isinstance(cond, Constexpr):
        c = lw.tensor(cond, span)
        if elem_of(c.type) != BOOL:
            c = lw.tensor(lw.compare_values(BinaryOp.NE, c, Constexpr(0), span), span)
        cond = c
    _promise(lw, cond, span)
    return Constexpr(None)


@_handler("static_assert")
def _static_assert(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("static_assert", ["cond", "msg="], pos, kws, span)
    if not _const(a["cond"], "the condition of tl.static_assert", span):
        msg = a["msg"]
        text = msg.value if isinstance(msg, Constexpr) and isinstance(msg.value, str) else ""
        raise LarkcError(f"tl.static_assert failed{': ' + text if text else ''}", span)
    return Constexpr(None)


@_handler("static_print")
def _static_print(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    return Constexpr(None)


@_handler("constexpr")
def _constexpr(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("constexpr", ["value"], pos, kws, span)
    return Constexpr(_const(a["value"], "the value of tl.constexpr", span))  # type: ignore[arg-type]


# -- shapes ---------------------------------------------------------------------------------------


def _shape_args(pos: Sequence[AnyValue], kws: Mapping[str, AnyValue], name: str, span: Span) -> tuple[int, ...]:
    if "shape" in kws:
        return _shape(kws["shape"], "shape", span)
    if len(pos) == 1:
        return _shape(pos[0], "shape", span)
    return tuple(_int(p, "shape", span) for p in pos)


@_handler("reshape", "view")
def _reshape(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    kws = dict(kws)
    kws.pop("can_reorder", None)
    x = lw.tensor(kws.pop("input") if "input" in kws else pos[0], span)
    shape = _shape_args(pos[1:], kws, "reshape", span)
    have = shape_of(x.type)
    if math.prod(have) != math.prod(shape):
        raise TypeCheckError(f"cannot reshape a block of shape {list(have)} to {list(shape)}", span)
    if not shape:
        raise UnsupportedError("reshape to a scalar", "", span)
    return Tensor(Reshape(x.expr, BlockType(elem_of(x.type), shape), span))


@_handler("expand_dims")
def _expand_dims(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("expand_dims", ["input", "axis"], pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    ax = _const(a["axis"], "axis", span)
    axes = list(ax) if isinstance(ax, tuple) else [ax]
    shape = list(shape_of(x.type))
    rank = len(shape) + len(axes)
    for d in sorted(int(v) % rank for v in axes if isinstance(v, int)):
        shape.insert(d, 1)
    if not shape_of(x.type):
        return Tensor(Splat(x.expr, BlockType(elem_of(x.type), tuple(shape)), span))
    return Tensor(Reshape(x.expr, BlockType(elem_of(x.type), tuple(shape)), span))


@_handler("unsqueeze")
def _unsqueeze(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("unsqueeze", ["x", "dim"], pos, kws, span)
    x, dim = a["x"], a["dim"]
    assert x is not None and dim is not None  # required parameters
    return _expand_dims(lw, [x, dim], {}, span)


@_handler("squeeze")
def _squeeze(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("squeeze", ["x", "dim"], pos, kws, span)
    x = _tensor(lw, a["x"], "x", span)
    shape = shape_of(x.type)
    d = _axis(a["dim"], len(shape), span)
    if d is None or shape[d] != 1:
        raise TypeCheckError(f"tl.squeeze needs a dimension of size 1, got dim {d} of shape {list(shape)}", span)
    rest = shape[:d] + shape[d + 1 :]
    if not rest:
        raise UnsupportedError("squeeze to a scalar", "", span)
    return Tensor(Reshape(x.expr, BlockType(elem_of(x.type), rest), span))


@_handler("ravel")
def _ravel(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("ravel", ["x", "can_reorder="], pos, kws, span)
    x = _tensor(lw, a["x"], "x", span)
    shape = shape_of(x.type)
    if len(shape) <= 1:
        return x
    return Tensor(Reshape(x.expr, BlockType(elem_of(x.type), (math.prod(shape),)), span))


@_handler("broadcast_to")
def _broadcast_to(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    kws = dict(kws)
    x = lw.tensor(kws.pop("input") if "input" in kws else pos[0], span)
    shape = _shape_args(pos[1:], kws, "broadcast_to", span)
    return lw.splat_to(x, shape, span)


@_handler("broadcast")
def _broadcast(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("broadcast", ["input", "other"], pos, kws, span)
    x, y = _tensor(lw, a["input"], "input", span), _tensor(lw, a["other"], "other", span)
    from larkc.frontends.triton.lower import TupleValue

    bx, by = lw.broadcast(x, y, span)
    return TupleValue((bx, by))


# -- reductions -----------------------------------------------------------------------------------


def _axis(v: AnyValue | None, rank: int, span: Span) -> int | None:
    if v is None or (isinstance(v, Constexpr) and v.value is None):
        return None
    ax = _int(v, "axis", span)
    if not -rank <= ax < rank:
        raise TypeCheckError(f"axis {ax} is out of range for a block of rank {rank}", span)
    return ax % rank


def _kept(out: Tensor, shape: tuple[int, ...], axis: int | None, span: Span) -> Tensor:
    """The result ``out`` of a reduction of a block of ``shape`` along ``axis`` (``None``: all of them)
    with the reduced dimensions kept as size 1 (``keep_dims=True``)."""
    elem = elem_of(out.type)
    kept = (1,) * len(shape) if axis is None else (*shape[:axis], 1, *shape[axis + 1 :])
    if shape_of(out.type):
        return Tensor(Reshape(out.expr, BlockType(elem, kept), span))
    return Tensor(Splat(out.expr, BlockType(elem, kept), span))


def _reduce(lw: KernelLowering, op: ReduceOp, x: Tensor, axis: int | None, keep: bool, span: Span) -> Tensor:
    shape = shape_of(x.type)
    if not shape:
        raise TypeCheckError("reduction of a scalar", span)
    elem = elem_of(x.type)
    if axis is None:
        n = math.prod(shape)
        if len(shape) > 1:
            x = Tensor(Reshape(x.expr, BlockType(elem, (n,)), span))
        out = Tensor(Reduce(op, x.expr, 0, elem, span))
    else:
        rest = shape[:axis] + shape[axis + 1 :]
        out = Tensor(Reduce(op, x.expr, axis, with_elem(elem, rest), span))
    return _kept(out, shape, axis, span) if keep else out


def _sum_dtype(e: ScalarType, dtype: AnyValue | None, span: Span) -> ScalarType:
    """The type ``tl.sum``/``tl.cumsum``/``tl.cumprod`` compute in (``standard._pick_sum_dtype``): ``dtype``
    if given, else int32/uint32 for integers narrower than 32 bits (uint32 for int1), else ``e``."""
    if dtype is not None and not (isinstance(dtype, Constexpr) and dtype.value is None):
        return _dtype(dtype, "dtype", span)
    if e.is_bool or (e.is_unsigned and e.bits < 32):
        return U32
    if e.is_signed and e.bits < 32:
        return I32
    return e


@_handler("sum")
def _sum(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("sum", ["input", "axis=", "keep_dims=", "dtype="], pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    t = _sum_dtype(_scalar_elem(x, "input of tl.sum", span), a["dtype"], span)
    x = lw.convert(x, t, span)
    keep = bool(_const(a["keep_dims"], "keep_dims", span)) if a["keep_dims"] is not None else False
    return _reduce(lw, ReduceOp.SUM, x, _axis(a["axis"], len(shape_of(x.type)), span), keep, span)


def _extremum(name: str, op: ReduceOp) -> Handler:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        params = ["input", "axis=", "return_indices=", "return_indices_tie_break_left=", "keep_dims="]
        a = _bind(name, params, pos, kws, span)
        x = _tensor(lw, a["input"], "input", span)
        e = _scalar_elem(x, f"input of tl.{name}", span)
        if e.is_bool:
            x = lw.convert(x, I32, span)
        axis = _axis(a["axis"], len(shape_of(x.type)), span)
        keep = bool(_const(a["keep_dims"], "keep_dims", span)) if a["keep_dims"] is not None else False
        value = _reduce(lw, op, x, axis, keep, span)
        if a["return_indices"] is not None and _const(a["return_indices"], "return_indices", span):
            from larkc.frontends.triton.lower import TupleValue

            return TupleValue((value, _arg_extremum(lw, op, x, axis, keep, span)))
        return value

    return handler


HANDLERS["max"] = _extremum("max", ReduceOp.MAX)
HANDLERS["min"] = _extremum("min", ReduceOp.MIN)


def _arg_extremum(lw: KernelLowering, op: ReduceOp, x: Tensor, axis: int | None, keep: bool, span: Span) -> Tensor:
    """The first index of the maximum (minimum) along ``axis``: min over indices where x equals it."""
    shape = shape_of(x.type)
    if axis is None:
        if len(shape) != 1:
            raise UnsupportedError("argmax/argmin without an axis", "of a block of rank > 1", span)
        axis = 0
    best = _reduce(lw, op, x, axis, True, span)
    best = lw.splat_to(best, shape, span)
    n = shape[axis]
    idx = Tensor(Arange(0, n, BlockType(I32, (n,)), span))
    if len(shape) > 1:
        idx = Tensor(Reshape(idx.expr, BlockType(I32, tuple(n if d == axis else 1 for d in range(len(shape)))), span))
        idx = lw.splat_to(idx, shape, span)
    hit = Tensor(Binary(BinaryOp.EQ, x.expr, best.expr, BlockType(BOOL, shape), span))
    big = Tensor(Splat(Const(2**31 - 1, I32, span), BlockType(I32, shape), span))
    cand = lw.where(hit, idx, big, span)
    return _reduce(lw, ReduceOp.MIN, cand, axis, keep, span)


def _arg_handler(name: str, op: ReduceOp) -> Handler:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        a = _bind(name, ["input", "axis", "tie_break_left=", "keep_dims="], pos, kws, span)
        x = _tensor(lw, a["input"], "input", span)
        if _scalar_elem(x, "input", span).is_bool:
            x = lw.convert(x, I32, span)
        tbl = a["tie_break_left"]
        if tbl is not None and not _const(tbl, "tie_break_left", span):
            raise UnsupportedError(f"tl.{name}", "tie_break_left=False", span)
        keep = bool(_const(a["keep_dims"], "keep_dims", span)) if a["keep_dims"] is not None else False
        return _arg_extremum(lw, op, x, _axis(a["axis"], len(shape_of(x.type)), span), keep, span)

    return handler


HANDLERS["argmax"] = _arg_handler("argmax", ReduceOp.MAX)
HANDLERS["argmin"] = _arg_handler("argmin", ReduceOp.MIN)


# -- reductions and scans with a combine function; cumulative sums and products -----------------------


def _combine_operands(lw: KernelLowering, v: AnyValue | None, what: str, span: Span) -> tuple[list[Tensor], bool]:
    """The blocks of a reduction's or scan's input (a tensor, or a tuple of tensors of one shape) and
    whether it was a tuple."""
    from larkc.frontends.triton.lower import TupleValue

    items = list(v.items) if isinstance(v, TupleValue) else [v]
    xs = [_tensor(lw, x, what, span) for x in items]
    shape = shape_of(xs[0].type)
    if not shape:
        raise TypeCheckError(f"{what} must be a block, not a scalar", span)
    for x in xs:
        _scalar_elem(x, what, span)
        if shape_of(x.type) != shape:
            raise TypeCheckError(f"{what}: blocks of different shapes {list(shape)} and {list(shape_of(x.type))}", span)
    return xs, isinstance(v, TupleValue)


def _combined(kind: CombineKind, func: str, xs: list[Tensor], axis: int, reverse: bool, span: Span) -> list[Tensor]:
    """One :class:`Combine` node per result of the combination of ``xs`` along ``axis``."""
    shape = shape_of(xs[0].type)
    out_shape = shape if kind is CombineKind.SCAN else shape[:axis] + shape[axis + 1 :]
    args = tuple(x.expr for x in xs)
    return [
        Tensor(Combine(kind, func, args, r, axis, reverse, with_elem(elem_of(x.type), out_shape), span))
        for r, x in enumerate(xs)
    ]


@_handler("reduce")
def _reduce_with(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    from larkc.frontends.triton.lower import TupleValue

    a = _bind("reduce", ["input", "axis", "combine_fn", "keep_dims="], pos, kws, span)
    xs, was_tuple = _combine_operands(lw, a["input"], "input of tl.reduce", span)
    shape = shape_of(xs[0].type)
    axis = _axis(a["axis"], len(shape), span)
    keep = bool(_const(a["keep_dims"], "keep_dims", span)) if a["keep_dims"] is not None else False
    elems = tuple(_scalar_elem(x, "input of tl.reduce", span) for x in xs)
    func = lw.combine_function(a["combine_fn"], elems, span)
    if axis is None:  # Triton reduces the flattened block
        n = math.prod(shape)
        xs = [Tensor(Reshape(x.expr, BlockType(elem_of(x.type), (n,)), span)) if len(shape) > 1 else x for x in xs]
    outs = _combined(CombineKind.REDUCE, func, xs, 0 if axis is None else axis, False, span)
    if keep:
        outs = [_kept(o, shape, axis, span) for o in outs]
    return TupleValue(tuple(outs)) if was_tuple else outs[0]


def _operator_reduction(name: str, op: BinaryOp) -> Handler:
    """``tl.xor_sum``/``tl.reduce_or`` (integers): ``tl.reduce`` with ``a ^ b`` / ``a | b``."""

    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        params = ["input", "axis=", "keep_dims="] if name == "xor_sum" else ["input", "axis", "keep_dims="]
        a = _bind(name, params, pos, kws, span)
        (x,), _ = _combine_operands(lw, a["input"], f"input of tl.{name}", span)
        elem = _scalar_elem(x, f"input of tl.{name}", span)
        if not elem.is_int:
            raise TypeCheckError(f"tl.{name} is only supported for integers, got {dtype_name(elem)}", span)
        shape = shape_of(x.type)
        axis = _axis(a["axis"], len(shape), span)
        keep = bool(_const(a["keep_dims"], "keep_dims", span)) if a["keep_dims"] is not None else False
        func = lw.operator_function(op, elem, span)
        if axis is None:
            x = Tensor(Reshape(x.expr, BlockType(elem, (math.prod(shape),)), span)) if len(shape) > 1 else x
        (out,) = _combined(CombineKind.REDUCE, func, [x], 0 if axis is None else axis, False, span)
        return _kept(out, shape, axis, span) if keep else out

    return handler


HANDLERS["xor_sum"] = _operator_reduction("xor_sum", BinaryOp.BITXOR)
HANDLERS["reduce_or"] = _operator_reduction("reduce_or", BinaryOp.BITOR)


@_handler("associative_scan")
def _scan_with(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    from larkc.frontends.triton.lower import TupleValue

    a = _bind("associative_scan", ["input", "axis", "combine_fn", "reverse="], pos, kws, span)
    xs, was_tuple = _combine_operands(lw, a["input"], "input of tl.associative_scan", span)
    axis = _axis(a["axis"], len(shape_of(xs[0].type)), span)
    if axis is None:
        raise TypeCheckError("tl.associative_scan needs an axis", span)
    reverse = bool(_const(a["reverse"], "reverse", span)) if a["reverse"] is not None else False
    elems = tuple(_scalar_elem(x, "input of tl.associative_scan", span) for x in xs)
    func = lw.combine_function(a["combine_fn"], elems, span)
    outs = _combined(CombineKind.SCAN, func, xs, axis, reverse, span)
    return TupleValue(tuple(outs)) if was_tuple else outs[0]


def _cumulative(name: str, op: ReduceOp) -> Handler:
    """``tl.cumsum``/``tl.cumprod``: converted to the sum type (``_pick_sum_dtype``), then scanned."""

    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        a = _bind(name, ["input", "axis=", "reverse=", "dtype="], pos, kws, span)
        x = _tensor(lw, a["input"], "input", span)
        shape = shape_of(x.type)
        if not shape:
            raise TypeCheckError(f"tl.{name} of a scalar", span)
        x = lw.convert(x, _sum_dtype(_scalar_elem(x, f"input of tl.{name}", span), a["dtype"], span), span)
        axis = _axis(a["axis"] if a["axis"] is not None else Constexpr(0), len(shape), span)
        assert axis is not None
        reverse = bool(_const(a["reverse"], "reverse", span)) if a["reverse"] is not None else False
        t = x.type
        assert isinstance(t, BlockType)
        return Tensor(Scan(op, x.expr, axis, reverse, t, span))

    return handler


HANDLERS["cumsum"] = _cumulative("cumsum", ReduceOp.SUM)
HANDLERS["cumprod"] = _cumulative("cumprod", ReduceOp.PROD)


# -- permutations, join and split ---------------------------------------------------------------------


def _permutation(name: str) -> Handler:
    """``tl.permute(x, dims)`` and ``tl.trans(x, *dims)`` (no dims: the last two swapped), also ``x.T``."""

    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        kws = dict(kws)
        x = _tensor(lw, kws.pop("input") if "input" in kws else (pos[0] if pos else None), "input", span)
        rest = pos[1:] if "dims" not in kws else [kws.pop("dims")]
        if kws:
            raise TypeCheckError(f"{name}() has no parameter {next(iter(kws))}", span)
        if len(rest) == 1 and isinstance(rest[0], Constexpr) and isinstance(rest[0].value, tuple | list):
            dims = tuple(_int(Constexpr(d), "dims", span) for d in rest[0].value)
        else:
            dims = tuple(_int(d, "dims", span) for d in rest)
        shape = shape_of(x.type)
        if not dims and name == "trans":
            if len(shape) < 2:
                raise TypeCheckError("tl.trans of a 0- or 1-dimensional tensor", span)
            dims = (*range(len(shape) - 2), len(shape) - 1, len(shape) - 2)
        if len(dims) != len(shape):
            raise TypeCheckError(f"{name} dims must have the length of the shape {list(shape)}, got {list(dims)}", span)
        if sorted(dims) != list(range(len(dims))):
            raise TypeCheckError(f"{name} dims must be a permutation of 0, ..., n-1, got {list(dims)}", span)
        if dims == tuple(range(len(dims))):
            return x
        return Tensor(Permute(x.expr, dims, BlockType(elem_of(x.type), tuple(shape[d] for d in dims)), span))

    return handler


HANDLERS["trans"] = _permutation("trans")
HANDLERS["permute"] = _permutation("permute")


def _halves(lw: KernelLowering, a: Tensor, b: Tensor, span: Span) -> Tensor:
    """``tl.join(a, b)``: a new minor dimension of size 2 holding ``a`` then ``b`` (same shapes)."""
    shape = shape_of(a.type)
    elem = elem_of(a.type)
    full = (*shape, 2)
    lane = Tensor(Arange(0, 2, BlockType(I32, (2,)), span))
    first = Tensor(
        Binary(
            BinaryOp.EQ, lane.expr, Splat(Const(0, I32, span), BlockType(I32, (2,)), span), BlockType(BOOL, (2,)), span
        )
    )
    first = lw.splat_to(first, full, span)

    def widened(x: Tensor) -> Tensor:
        if not shape:
            return Tensor(Splat(x.expr, BlockType(elem, full), span))
        return lw.splat_to(Tensor(Reshape(x.expr, BlockType(elem, (*shape, 1)), span)), full, span)

    return Tensor(Select(first.expr, widened(a).expr, widened(b).expr, BlockType(elem, full), span))


@_handler("join")
def _join(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("join", ["a", "b"], pos, kws, span)
    x, y = lw.broadcast(_tensor(lw, a["a"], "a", span), _tensor(lw, a["b"], "b", span), span)
    if x.type != y.type:
        raise TypeCheckError(f"tl.join of {lw.describe(x)} and {lw.describe(y)} (the types must be equal)", span)
    return _halves(lw, x, y, span)


@_handler("interleave")
def _interleave(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    c = _join(lw, pos, kws, span)  # standard.py: join, then merge the last two dimensions
    assert isinstance(c, Tensor)
    shape = shape_of(c.type)
    if len(shape) == 1:
        return c
    merged = (*shape[:-2], 2 * shape[-2])
    return Tensor(Reshape(c.expr, BlockType(elem_of(c.type), merged), span))


@_handler("split")
def _split(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    """``tl.split(x)``: the two halves of a last dimension of size 2, as reductions that keep the first
    and the last element (combine functions made here: ``a = a`` and ``a = b``)."""
    from larkc.frontends.triton.lower import TupleValue

    a = _bind("split", ["a"], pos, kws, span)
    x = _tensor(lw, a["a"], "a", span)
    shape = shape_of(x.type)
    if not shape or shape[-1] != 2:
        raise TypeCheckError(f"tl.split needs a last dimension of size 2, got shape {list(shape)}", span)
    elem = _scalar_elem(x, "input of tl.split", span)
    axis = len(shape) - 1
    rest = with_elem(elem, shape[:-1])
    halves = (
        Combine(
            CombineKind.REDUCE, lw.pick_function(elem, first=True, span=span), (x.expr,), 0, axis, False, rest, span
        ),
        Combine(
            CombineKind.REDUCE, lw.pick_function(elem, first=False, span=span), (x.expr,), 0, axis, False, rest, span
        ),
    )
    return TupleValue((Tensor(halves[0]), Tensor(halves[1])))


@_handler("dot")
def _dot(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    params = ["input", "other", "acc=", "input_precision=", "allow_tf32=", "max_num_imprecise_acc="]
    params += ["out_dtype="]
    a = _bind("dot", params, pos, kws, span)
    x = _tensor(lw, a["input"], "input", span)
    y = _tensor(lw, a["other"], "other", span)
    sx, sy = shape_of(x.type), shape_of(y.type)
    if len(sx) != 2 or len(sy) != 2:
        raise UnsupportedError("tl.dot", "operands of rank other than 2", span)
    if sx[1] != sy[0]:
        raise TypeCheckError(f"tl.dot: inner dimensions differ ({list(sx)} and {list(sy)})", span)
    if min(sx[0], sx[1], sy[1]) < 16:
        raise TypeCheckError("tl.dot needs every dimension to be at least 16", span)
    ex, ey = _scalar_elem(x, "input", span), _scalar_elem(y, "other", span)
    if ex != ey:
        ct = computation_type(ex, False, ey, False, False)
        if isinstance(ct, str):
            raise TypeCheckError(ct, span)
        x, y = lw.convert(x, ct, span), lw.convert(y, ct, span)
        ex = ct
    prec = a["input_precision"]
    if ex == F32 and not (isinstance(prec, Constexpr) and prec.value == "ieee"):
        # The default ("tf32") rounds the inputs on GPUs; the simulator computes in exact float32.
        pass
    if a["acc"] is not None and not (isinstance(a["acc"], Constexpr) and a["acc"].value is None):
        acc = lw.tensor(a["acc"], span)
        out = _scalar_elem(acc, "acc", span)
        if shape_of(acc.type) != (sx[0], sy[1]):
            raise TypeCheckError(f"tl.dot: acc has shape {list(shape_of(acc.type))}, expected {[sx[0], sy[1]]}", span)
        return Tensor(Dot(x.expr, y.expr, acc.expr, BlockType(out, (sx[0], sy[1])), span))
    if a["out_dtype"] is not None:
        out = _dtype(a["out_dtype"], "out_dtype", span)
    else:
        out = I32 if ex.is_int else F32
    return Tensor(Dot(x.expr, y.expr, None, BlockType(out, (sx[0], sy[1])), span))


# -- Python builtins on compile-time values -------------------------------------------------------


def _py(name: str, fn: Callable[..., object]) -> None:
    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        if name in ("min", "max") and not kws and len(pos) >= 2 and not all(isinstance(p, Constexpr) for p in pos):
            # Triton's code generator turns min/max of run-time values into tl.minimum/tl.maximum
            acc = pos[0]
            for p in pos[1:]:
                acc = HANDLERS["minimum" if name == "min" else "maximum"](lw, [acc, p], {}, span)
            return acc
        if kws or not all(isinstance(p, Constexpr) for p in pos):
            raise UnsupportedError(f"{name}() on run-time values", "use tl.minimum/tl.maximum/.to()", span)
        try:
            out = fn(*(p.value for p in pos if isinstance(p, Constexpr)))
        except (TypeError, ValueError) as e:
            raise TypeCheckError(f"{name}(): {e}", span) from None
        return Constexpr(out)  # type: ignore[arg-type]

    HANDLERS[f"py.{name}"] = handler


def _pymath(name: str, fn: Callable[..., object]) -> None:
    """``math.<name>`` of Python on compile-time values (a module constant ``math.sqrt(2.0 / math.pi)``):
    computed in double precision as Python does, the result a compile-time value."""

    def handler(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
        if kws or not all(isinstance(p, Constexpr) for p in pos):
            raise UnsupportedError(f"math.{name}() on run-time values", "use the tl or libdevice function", span)
        try:
            out = fn(*(p.value for p in pos if isinstance(p, Constexpr)))
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeCheckError(f"math.{name}(): {e}", span) from None
        return Constexpr(out)  # type: ignore[arg-type]

    HANDLERS[f"pymath.{name}"] = handler


for _name in ("sqrt", "exp", "log", "log2", "log10", "pow", "ceil", "floor", "sin", "cos", "tan", "atan", "erf"):
    _pymath(_name, getattr(math, _name))


_PY_FUNCTIONS: dict[str, Callable[..., object]] = {
    "min": min,
    "max": max,
    "len": len,
    "int": int,
    "float": float,
    "bool": bool,
    "abs": abs,
}
for _name, _f in _PY_FUNCTIONS.items():
    _py(_name, _f)


# -- tensor descriptors ---------------------------------------------------------------------------


def _tuple_items(v: AnyValue | None, what: str, span: Span) -> list[AnyValue]:
    from larkc.frontends.triton.lower import TupleValue

    match v:
        case TupleValue(items=items):
            return list(items)
        case Constexpr(value=tuple() as values):
            return [Constexpr(x) for x in values]
        case _:
            raise TypeCheckError(f"{what} must be a tuple or list", span)


@_handler("make_tensor_descriptor")
def _make_tensor_descriptor(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    from larkc.frontends.triton.lower import TensorDesc

    a = _bind("make_tensor_descriptor", ["base", "shape", "strides", "block_shape", "padding_option="], pos, kws, span)
    base, elem = _pointer(lw, a["base"], "the base of tl.make_tensor_descriptor", span)
    if shape_of(base.type):
        raise TypeCheckError("the base of a tensor descriptor must be a single pointer", span)
    shape = _tuple_items(a["shape"], "shape", span)
    strides = _tuple_items(a["strides"], "strides", span)
    block = _shape(a["block_shape"], "block_shape", span)
    if not 1 <= len(shape) <= 5 or len(strides) != len(shape) or len(block) != len(shape):
        raise TypeCheckError("shape, strides and block_shape of a tensor descriptor need 1 to 5 equal ranks", span)
    size = 1 if elem.is_bool else elem.bits // 8
    if block[-1] * size < 16:
        raise TypeCheckError(
            f"descriptor block shape must have at least 16 bytes in the last dimension, got {block[-1]} * {size}",
            span,
        )
    last = strides[-1]
    if not (isinstance(last, Constexpr) and last.value == 1):
        raise TypeCheckError("the last stride of a tensor descriptor must be the constant 1", span)
    for s in strides:
        if isinstance(s, Constexpr) and isinstance(s.value, int) and s is not last and (s.value * size) % 16:
            raise TypeCheckError("tensor descriptor strides must be 16-byte aligned", span)
    padding = a["padding_option"]
    pad = _const(padding, "padding_option", span) if padding is not None else "zero"
    if pad not in ("zero", "nan"):
        raise TypeCheckError(f"padding option {pad!r} not supported", span)
    if pad == "nan" and not elem.is_float:
        raise TypeCheckError("padding option `nan` is not supported for integer blocks", span)
    from larkc.ir.types import I64

    return TensorDesc(
        base,
        tuple(lw.convert(lw.tensor(x, span), I32, span) for x in shape),
        tuple(lw.convert(lw.tensor(x, span), I64, span) for x in strides),
        block,
        pad == "nan",
    )


def _descriptor_block(
    lw: KernelLowering, desc: AnyValue, offsets_v: AnyValue | None, span: Span
) -> tuple[Tensor, Tensor, ScalarType]:
    """The pointers and the in-bounds mask of the block at ``offsets``; an assertion that the last
    offset is 16-byte aligned (what the hardware and Triton's interpreter require)."""
    from larkc.frontends.triton.lower import TensorDesc
    from larkc.ir.nodes import Assert
    from larkc.ir.types import I64

    assert isinstance(desc, TensorDesc)
    offsets = [lw.convert(lw.tensor(x, span), I32, span) for x in _tuple_items(offsets_v, "offsets", span)]
    block = desc.block_shape
    if len(offsets) != len(block):
        raise TypeCheckError(f"expected {len(block)} offsets, got {len(offsets)}", span)
    elem = elem_of(desc.base.type)
    assert isinstance(elem, PointerType) and isinstance(elem.pointee, ScalarType)
    scalar = elem.pointee
    size = 1 if scalar.is_bool else scalar.bits // 8
    if size < 16:
        rem = lw.binop("%", lw.binop("*", offsets[-1], Constexpr(size), span), Constexpr(16), span)
        ok = lw.compare_values(BinaryOp.EQ, rem, Constexpr(0), span)
        if isinstance(ok, Tensor):
            lw.emit(Assert(ok.expr, span))
        elif not (isinstance(ok, Constexpr) and ok.value):
            raise TypeCheckError("block offset start must be 16-byte aligned", span)
    total: Tensor | None = None
    mask: Tensor | None = None
    rank = len(block)
    for d, (off, n) in enumerate(zip(offsets, block, strict=True)):
        idx: Tensor = Tensor(Arange(0, n, BlockType(I32, (n,)), span))
        if rank > 1:
            idx = Tensor(Reshape(idx.expr, BlockType(I32, tuple(n if k == d else 1 for k in range(rank))), span))
        pos_d = lw.binop("+", off, idx, span)
        assert isinstance(pos_d, Tensor)
        inside = lw.binop(
            "&",
            lw.compare_values(BinaryOp.GE, pos_d, Constexpr(0), span),
            lw.compare_values(BinaryOp.LT, pos_d, desc.shape[d], span),
            span,
        )
        term = lw.binop("*", lw.convert(pos_d, I64, span), desc.strides[d], span)
        assert isinstance(term, Tensor) and isinstance(inside, Tensor)
        total = term if total is None else lw.tensor(lw.binop("+", total, term, span), span)
        mask = inside if mask is None else lw.tensor(lw.binop("&", mask, inside, span), span)
    assert total is not None and mask is not None
    total, mask = lw.splat_to(total, block, span), lw.splat_to(mask, block, span)
    ptrs = lw.ptr_add(desc.base, total, span)
    return ptrs, mask, scalar


@_handler("descriptor_load")
def _descriptor_load(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    from larkc.frontends.triton.lower import TensorDesc
    from larkc.ir.nodes import VarRef

    a = _bind("load", ["desc", "offsets"], pos, kws, span)
    desc = a["desc"]
    assert isinstance(desc, TensorDesc)
    ptrs, mask, scalar = _descriptor_block(lw, desc, a["offsets"], span)
    pad = lw.const(float("nan") if desc.nan_padding else (False if scalar.is_bool else 0), scalar, span)
    other = Splat(pad, BlockType(scalar, desc.block_shape), span)
    t = BlockType(scalar, desc.block_shape)
    dst = lw.fresh("load")
    lw.emit(Decl(dst, t, None, span))
    lw.emit(Load(dst, ptrs.expr, mask.expr, other, span))
    return Tensor(VarRef(dst, t, span))


@_handler("descriptor_store")
def _descriptor_store(lw: KernelLowering, pos: list[AnyValue], kws: dict[str, AnyValue], span: Span) -> AnyValue:
    a = _bind("store", ["desc", "offsets", "value"], pos, kws, span)
    desc = a["desc"]
    assert desc is not None
    ptrs, mask, scalar = _descriptor_block(lw, desc, a["offsets"], span)
    v = a["value"]
    assert v is not None
    val = lw.convert(lw.tensor(v, span, like=scalar if _is_number_const(v) else None), scalar, span)
    if shape_of(val.type) != shape_of(ptrs.type):
        val = lw.splat_to(val, shape_of(ptrs.type), span)
    lw.emit(Store(ptrs.expr, val.expr, mask.expr, span))
    return Constexpr(None)
