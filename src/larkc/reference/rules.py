"""Shape and dtype rules of the spec ops (one rule per op in :data:`TYPE_RULES`).

A rule receives the node and the types of its operands (a :class:`ValueType` for a tensor operand, the
:class:`Scalar` itself for a scalar, ``None`` for an absent one) and returns the result type, raising
:class:`ReferenceError_` when the operands do not fit. Dtype promotion follows torch (``promote``):
tensors of rank >= 1 outrank 0-dimensional tensors, which outrank Python scalars, except that a higher
category (bool < integer < float) from a lower rank still lifts the result to that category.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from larkc.dtypes import scalar_type_of, torch_dtype
from larkc.errors import ReferenceError_
from larkc.ir.types import BOOL, F32, I64, ScalarType
from larkc.reference.shapes import (
    as_int,
    fmt,
    fmt_shape,
    mk_add,
    mk_floordiv,
    mk_sub,
    product,
    same,
    simplify,
)
from larkc.reference.spec import (
    OP_SIGNATURES,
    Absent,
    Ref,
    Scalar,
    SpecNode,
    SpecOp,
    ValueType,
)
from larkc.tasks.shape_expr import ShapeExpr, ShapeNum

__all__ = [
    "TYPE_RULES",
    "broadcast",
    "infer_type",
    "promote",
]

ArgType = ValueType | Scalar | None
TypeRule = Callable[[SpecNode, list[ArgType]], ValueType]


def _promote_pair(a: ScalarType | None, b: ScalarType | None) -> ScalarType | None:
    if a is None:
        return b
    if b is None or a == b:
        return a
    return scalar_type_of(torch.promote_types(torch_dtype(a), torch_dtype(b)))


def _combine(higher: ScalarType | None, lower: ScalarType | None) -> ScalarType | None:
    # torch's combine_categories: a lower-priority operand only matters if it is of a higher category
    if higher is None:
        return lower
    if lower is None or higher.is_float:
        return higher
    if higher.is_bool or lower.is_float:
        return _promote_pair(higher, lower)
    return higher


def promote(args: Sequence[ArgType]) -> ScalarType:
    """The result dtype torch gives an elementwise op over ``args`` (absent operands ignored)."""
    dim: ScalarType | None = None
    zero: ScalarType | None = None
    wrapped: ScalarType | None = None
    for a in args:
        match a:
            case ValueType():
                if a.rank > 0:
                    dim = _promote_pair(dim, a.dtype)
                else:
                    zero = _promote_pair(zero, a.dtype)
            case Scalar(value):
                # Python scalars count as bool, int64 or the default float dtype (float32)
                st = BOOL if isinstance(value, bool) else (F32 if isinstance(value, float) else I64)
                wrapped = _promote_pair(wrapped, st)
            case None:
                pass
    out = _combine(dim, _combine(zero, wrapped))
    if out is None:
        raise ReferenceError_("an elementwise op needs at least one operand")
    return out


def broadcast(*shapes: Sequence[ShapeExpr]) -> tuple[ShapeExpr, ...]:
    """The broadcast of ``shapes`` (right-aligned; a dim of 1 stretches, other dims must be equal)."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[ShapeExpr] = []
    for i in range(rank):
        dim: ShapeExpr = ShapeNum(1)
        for s in shapes:
            j = len(s) - rank + i
            if j < 0:
                continue
            d = s[j]
            if as_int(d) == 1:
                continue
            if as_int(dim) == 1:
                dim = d
            elif not same(dim, d):
                listed = " and ".join(fmt_shape(x) for x in shapes)
                raise ReferenceError_(f"shapes {listed} do not broadcast (dim {fmt(dim)} vs {fmt(d)})")
        out.append(dim)
    return tuple(out)


def _tensors(args: Sequence[ArgType]) -> list[ValueType]:
    return [a for a in args if isinstance(a, ValueType)]


def _tensor(args: Sequence[ArgType], i: int, what: str) -> ValueType:
    a = args[i]
    if not isinstance(a, ValueType):
        raise ReferenceError_(f"operand {what} must be a tensor")
    return a


def _to_float(t: ScalarType) -> ScalarType:
    return t if t.is_float else F32


def _elementwise(dtype_of: Callable[[Sequence[ArgType]], ScalarType]) -> TypeRule:
    def rule(node: SpecNode, args: list[ArgType]) -> ValueType:
        shape = broadcast(*(a.shape for a in _tensors(args)))
        return ValueType(shape, dtype_of(args))

    return rule


def _same_as_x(dtype_of: Callable[[ScalarType], ScalarType] = lambda t: t) -> TypeRule:
    def rule(node: SpecNode, args: list[ArgType]) -> ValueType:
        x = _tensor(args, 0, "x")
        return ValueType(x.shape, dtype_of(x.dtype))

    return rule


def _bool_only(node: SpecNode, args: list[ArgType]) -> ValueType:
    for a in args:
        if isinstance(a, ValueType) and not a.dtype.is_bool:
            raise ReferenceError_(f"{node.op.value} needs bool tensors, got {a.dtype}")
        if isinstance(a, Scalar) and not isinstance(a.value, bool):
            raise ReferenceError_(f"{node.op.value} needs bool operands, got {a.value!r}")
    return ValueType(broadcast(*(a.shape for a in _tensors(args))), BOOL)


def _where(node: SpecNode, args: list[ArgType]) -> ValueType:
    cond = _tensor(args, 0, "cond")
    if not cond.dtype.is_bool:
        raise ReferenceError_(f"where needs a bool condition, got {cond.dtype}")
    shape = broadcast(*(a.shape for a in _tensors(args)))
    return ValueType(shape, promote(args[1:]))


def _clamp(node: SpecNode, args: list[ArgType]) -> ValueType:
    if args[1] is None and args[2] is None:
        raise ReferenceError_("clamp needs a lower or an upper bound")
    shape = broadcast(*(a.shape for a in _tensors(args)))
    return ValueType(shape, promote(args))


def _cast(node: SpecNode, args: list[ArgType]) -> ValueType:
    return ValueType(_tensor(args, 0, "x").shape, node.dtype)


def _check_dims(dims: Sequence[int], rank: int, what: str = "dim") -> None:
    for d in dims:
        if not 0 <= d < max(rank, 1):
            raise ReferenceError_(f"{what} {d} out of range for a tensor of rank {rank}")
    if len(set(dims)) != len(dims):
        raise ReferenceError_(f"repeated {what} in {list(dims)}")


def _reduced(shape: Sequence[ShapeExpr], dims: Sequence[int], keepdim: bool) -> tuple[ShapeExpr, ...]:
    if keepdim:
        return tuple(ShapeNum(1) if i in dims else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in dims)


def _reduction(dtype_of: Callable[[ScalarType], ScalarType], *, all_when_empty: bool = False) -> TypeRule:
    """A reduction over ``dims``; with ``all_when_empty``, no dims means every dim (var, std, norm)."""

    def rule(node: SpecNode, args: list[ArgType]) -> ValueType:
        x = _tensor(args, 0, "x")
        dims = tuple(node.attr("dims"))
        if all_when_empty and not dims:
            dims = tuple(range(x.rank))
        _check_dims(dims, x.rank)
        return ValueType(_reduced(x.shape, dims, bool(node.attr("keepdim"))), dtype_of(x.dtype))

    return rule


def _arg_reduction(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dim = node.attr("dim")
    keepdim = bool(node.attr("keepdim"))
    if dim is None:
        shape = tuple(ShapeNum(1) for _ in x.shape) if keepdim else ()
        return ValueType(shape, I64)
    _check_dims((dim,), x.rank)
    return ValueType(_reduced(x.shape, (dim,), keepdim), I64)


def _sum_dtype(t: ScalarType) -> ScalarType:
    return t if t.is_float else I64


def _float_input(op: str) -> Callable[[ScalarType], ScalarType]:
    def check(t: ScalarType) -> ScalarType:
        if not t.is_float:
            raise ReferenceError_(f"{op} needs a floating-point tensor, got {t}")
        return t

    return check


def _along_dim(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    _check_dims((node.attr("dim"),), x.rank)
    dtype = x.dtype
    if node.op is SpecOp.CUMSUM:
        dtype = _sum_dtype(dtype)
    elif not dtype.is_float:
        raise ReferenceError_(f"{node.op.value} needs a floating-point tensor, got {dtype}")
    return ValueType(x.shape, dtype)


def _check_same(a: ShapeExpr, b: ShapeExpr, what: str) -> None:
    if not same(a, b):
        raise ReferenceError_(f"{what}: {fmt(a)} vs {fmt(b)}")


def _norm_layer(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    normalized = tuple(node.attr("normalized_shape"))
    if len(normalized) > x.rank or not normalized:
        raise ReferenceError_(f"normalized_shape {fmt_shape(normalized)} does not fit {fmt_shape(x.shape)}")
    for d, n in zip(x.shape[x.rank - len(normalized) :], normalized, strict=True):
        _check_same(d, n, "normalized_shape does not match the input's trailing dims")
    for a in args[1:]:
        if isinstance(a, ValueType):
            if len(a.shape) != len(normalized):
                raise ReferenceError_(f"weight/bias shape {fmt_shape(a.shape)} is not {fmt_shape(normalized)}")
            for d, n in zip(a.shape, normalized, strict=True):
                _check_same(d, n, "weight/bias shape does not match normalized_shape")
    if not x.dtype.is_float:
        raise ReferenceError_(f"{node.op.value} needs a floating-point tensor, got {x.dtype}")
    return ValueType(x.shape, promote(args))


def _same_dtype(a: ValueType, b: ValueType, op: str) -> ScalarType:
    if a.dtype != b.dtype:
        raise ReferenceError_(f"{op} needs operands of one dtype, got {a.dtype} and {b.dtype}")
    return a.dtype


def _mm(node: SpecNode, args: list[ArgType]) -> ValueType:
    a, b = _tensor(args, 0, "a"), _tensor(args, 1, "b")
    batch = 1 if node.op is SpecOp.BMM else 0
    if a.rank != 2 + batch or b.rank != 2 + batch:
        raise ReferenceError_(f"{node.op.value} needs rank-{2 + batch} operands, got {a.rank} and {b.rank}")
    _check_same(a.shape[-1], b.shape[-2], f"{node.op.value} inner dims differ")
    if batch:
        _check_same(a.shape[0], b.shape[0], "bmm batch dims differ")
    return ValueType((*a.shape[:-1], b.shape[-1]), _same_dtype(a, b, node.op.value))


def matmul_shape(a: Sequence[ShapeExpr], b: Sequence[ShapeExpr]) -> tuple[ShapeExpr, ...]:
    """The result shape of ``torch.matmul`` (1-D operands get a dim prepended/appended, then removed)."""
    if not a or not b:
        raise ReferenceError_("matmul needs operands of rank >= 1")
    a2 = (ShapeNum(1), *a) if len(a) == 1 else tuple(a)
    b2 = (*b, ShapeNum(1)) if len(b) == 1 else tuple(b)
    _check_same(a2[-1], b2[-2], "matmul inner dims differ")
    batch = broadcast(a2[:-2], b2[:-2])
    out = [*batch, a2[-2], b2[-1]]
    if len(b) == 1:
        out.pop()
    if len(a) == 1:
        out.pop(-1 if len(b) == 1 else -2)
    return tuple(out)


def _matmul(node: SpecNode, args: list[ArgType]) -> ValueType:
    a, b = _tensor(args, 0, "a"), _tensor(args, 1, "b")
    return ValueType(matmul_shape(a.shape, b.shape), _same_dtype(a, b, "matmul"))


def _linear(node: SpecNode, args: list[ArgType]) -> ValueType:
    x, w = _tensor(args, 0, "x"), _tensor(args, 1, "weight")
    if w.rank != 2 or x.rank < 1:
        raise ReferenceError_(f"linear needs a rank-2 weight and an input of rank >= 1, got {w.rank}, {x.rank}")
    _check_same(x.shape[-1], w.shape[1], "linear in_features differ")
    b = args[2]
    if isinstance(b, ValueType):
        if b.rank != 1:
            raise ReferenceError_(f"linear bias must be 1-D, got rank {b.rank}")
        _check_same(b.shape[0], w.shape[0], "linear bias size differs from out_features")
    return ValueType((*x.shape[:-1], w.shape[0]), _same_dtype(x, w, "linear"))


def _transpose(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    d0, d1 = node.attr("dim0"), node.attr("dim1")
    _check_dims((d0,), x.rank)
    _check_dims((d1,), x.rank)
    if x.rank == 0:
        return x
    shape = list(x.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return ValueType(tuple(shape), x.dtype)


def _permute(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dims = tuple(node.attr("dims"))
    if sorted(dims) != list(range(x.rank)):
        raise ReferenceError_(f"permute dims {list(dims)} are not a permutation of {x.rank} dims")
    return ValueType(tuple(x.shape[d] for d in dims), x.dtype)


def _reshape(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    shape = tuple(node.attr("shape"))
    if not same(simplify(product(x.shape)), simplify(product(shape))):
        raise ReferenceError_(f"cannot reshape {fmt_shape(x.shape)} to {fmt_shape(shape)}: sizes differ")
    return ValueType(shape, x.dtype)


def _unsqueeze(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dim = node.attr("dim")
    if not 0 <= dim <= x.rank:
        raise ReferenceError_(f"unsqueeze dim {dim} out of range for rank {x.rank}")
    return ValueType((*x.shape[:dim], ShapeNum(1), *x.shape[dim:]), x.dtype)


def _squeeze(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dims = tuple(node.attr("dims"))
    _check_dims(dims, x.rank)
    for d in dims:
        if as_int(x.shape[d]) != 1:
            raise ReferenceError_(f"squeeze of dim {d} of size {fmt(x.shape[d])}, not 1")
    return ValueType(tuple(s for i, s in enumerate(x.shape) if i not in dims), x.dtype)


def _expand(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    shape = tuple(node.attr("shape"))
    if len(shape) < x.rank:
        raise ReferenceError_(f"cannot expand {fmt_shape(x.shape)} to fewer dims {fmt_shape(shape)}")
    for d, t in zip(x.shape, shape[len(shape) - x.rank :], strict=True):
        if as_int(d) != 1 and not same(d, t):
            raise ReferenceError_(f"cannot expand {fmt_shape(x.shape)} to {fmt_shape(shape)}")
    return ValueType(shape, x.dtype)


def slice_length(start: ShapeExpr, end: ShapeExpr, step: int) -> ShapeExpr:
    """The number of elements ``start, start + step, ...`` below ``end`` (bounds already in range)."""
    si, ei = as_int(start), as_int(end)
    if si is not None and ei is not None:
        return ShapeNum(max(0, -(-(ei - si) // step)))
    # (end - start + step - 1) // step, the form torch's meta functions use
    return simplify(mk_floordiv(mk_add(mk_sub(end, start), ShapeNum(step - 1)), ShapeNum(step)))


def _slice(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dim, step = node.attr("dim"), node.attr("step")
    _check_dims((dim,), x.rank)
    if not isinstance(step, int) or step < 1:
        raise ReferenceError_(f"slice step must be a positive integer, got {step!r}")
    shape = list(x.shape)
    shape[dim] = slice_length(node.attr("start"), node.attr("end"), step)
    return ValueType(tuple(shape), x.dtype)


def _select(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    dim = node.attr("dim")
    _check_dims((dim,), x.rank)
    return ValueType(tuple(s for i, s in enumerate(x.shape) if i != dim), x.dtype)


def _cat(node: SpecNode, args: list[ArgType]) -> ValueType:
    ts = _tensors(args)
    if len(ts) != len(args):
        raise ReferenceError_("cat operands must be tensors")
    dim = node.attr("dim")
    rank = ts[0].rank
    _check_dims((dim,), rank)
    total: ShapeExpr = ShapeNum(0)
    for t in ts:
        if t.rank != rank:
            raise ReferenceError_(f"cat operands of different ranks {rank} and {t.rank}")
        for i in range(rank):
            if i != dim:
                _check_same(t.shape[i], ts[0].shape[i], f"cat operands differ in dim {i}")
        total = mk_add(total, t.shape[dim])
    shape = list(ts[0].shape)
    shape[dim] = simplify(total)
    return ValueType(tuple(shape), promote(args))


def _stack(node: SpecNode, args: list[ArgType]) -> ValueType:
    ts = _tensors(args)
    if len(ts) != len(args):
        raise ReferenceError_("stack operands must be tensors")
    dim = node.attr("dim")
    if not 0 <= dim <= ts[0].rank:
        raise ReferenceError_(f"stack dim {dim} out of range for rank {ts[0].rank}")
    for t in ts[1:]:
        if t.rank != ts[0].rank:
            raise ReferenceError_("stack operands of different ranks")
        for a, b in zip(t.shape, ts[0].shape, strict=True):
            _check_same(a, b, "stack operands differ in shape")
    shape = (*ts[0].shape[:dim], ShapeNum(len(ts)), *ts[0].shape[dim:])
    return ValueType(shape, promote(args))


def _index_dtype(t: ValueType, op: str) -> None:
    if not t.dtype.is_int:
        raise ReferenceError_(f"{op} needs an integer index tensor, got {t.dtype}")


def _index_select(node: SpecNode, args: list[ArgType]) -> ValueType:
    x, index = _tensor(args, 0, "x"), _tensor(args, 1, "index")
    _index_dtype(index, "index_select")
    dim = node.attr("dim")
    _check_dims((dim,), x.rank)
    if index.rank > 1:
        raise ReferenceError_(f"index_select needs a 1-D index, got rank {index.rank}")
    shape = list(x.shape)
    if x.rank:
        shape[dim] = index.shape[0] if index.rank else ShapeNum(1)
    return ValueType(tuple(shape), x.dtype)


def _gather(node: SpecNode, args: list[ArgType]) -> ValueType:
    x, index = _tensor(args, 0, "x"), _tensor(args, 1, "index")
    _index_dtype(index, "gather")
    dim = node.attr("dim")
    _check_dims((dim,), x.rank)
    if index.rank != x.rank:
        raise ReferenceError_(f"gather index of rank {index.rank} for a tensor of rank {x.rank}")
    return ValueType(index.shape, x.dtype)


def _scatter_add(node: SpecNode, args: list[ArgType]) -> ValueType:
    x, index, src = _tensor(args, 0, "x"), _tensor(args, 1, "index"), _tensor(args, 2, "src")
    _index_dtype(index, "scatter_add")
    dim = node.attr("dim")
    _check_dims((dim,), x.rank)
    if not index.rank == src.rank == x.rank:
        raise ReferenceError_(f"scatter_add of ranks x {x.rank}, index {index.rank}, src {src.rank}")
    if src.dtype != x.dtype:
        raise ReferenceError_(f"scatter_add of a {src.dtype} src into a {x.dtype} tensor")
    return x


def _embedding(node: SpecNode, args: list[ArgType]) -> ValueType:
    w, idx = _tensor(args, 0, "weight"), _tensor(args, 1, "indices")
    _index_dtype(idx, "embedding")
    if w.rank != 2:
        raise ReferenceError_(f"embedding weight must be 2-D, got rank {w.rank}")
    return ValueType((*idx.shape, w.shape[1]), w.dtype)


def _cross_entropy(node: SpecNode, args: list[ArgType]) -> ValueType:
    logits, target = _tensor(args, 0, "logits"), _tensor(args, 1, "target")
    _index_dtype(target, "cross_entropy (class-index targets)")
    if not logits.dtype.is_float:
        raise ReferenceError_(f"cross_entropy needs floating-point logits, got {logits.dtype}")
    if logits.rank == 1:
        want: tuple[ShapeExpr, ...] = ()
    elif logits.rank >= 2:
        want = (logits.shape[0], *logits.shape[2:])
    else:
        raise ReferenceError_("cross_entropy needs logits of rank >= 1")
    if target.rank != len(want) or not all(same(a, b) for a, b in zip(target.shape, want, strict=True)):
        raise ReferenceError_(f"cross_entropy target shape {fmt_shape(target.shape)}, expected {fmt_shape(want)}")
    reduction = node.attr("reduction")
    if reduction not in ("mean", "sum", "none"):
        raise ReferenceError_(f"cross_entropy reduction {reduction!r}")
    return ValueType(want if reduction == "none" else (), logits.dtype)


def _full(node: SpecNode, args: list[ArgType]) -> ValueType:
    return ValueType(tuple(node.attr("shape")), node.dtype)


def _arange(node: SpecNode, args: list[ArgType]) -> ValueType:
    step = node.attr("step")
    if not isinstance(step, int) or step < 1:
        raise ReferenceError_(f"arange step must be a positive integer, got {step!r}")
    return ValueType((slice_length(node.attr("start"), node.attr("end"), step),), node.dtype)


def _triangle(node: SpecNode, args: list[ArgType]) -> ValueType:
    x = _tensor(args, 0, "x")
    if x.rank < 2:
        raise ReferenceError_(f"{node.op.value} needs a tensor of rank >= 2, got {x.rank}")
    return x


def _bool_result(args: Sequence[ArgType]) -> ScalarType:
    return BOOL


def _div_dtype(args: Sequence[ArgType]) -> ScalarType:
    return _to_float(promote(args))


#: The shape/dtype rule of every op.
TYPE_RULES: dict[SpecOp, TypeRule] = {
    SpecOp.ADD: _elementwise(promote),
    SpecOp.SUB: _elementwise(promote),
    SpecOp.MUL: _elementwise(promote),
    SpecOp.DIV: _elementwise(_div_dtype),
    SpecOp.FLOOR_DIVIDE: _elementwise(promote),
    SpecOp.POW: _elementwise(promote),
    SpecOp.MAXIMUM: _elementwise(promote),
    SpecOp.MINIMUM: _elementwise(promote),
    SpecOp.EQ: _elementwise(_bool_result),
    SpecOp.NE: _elementwise(_bool_result),
    SpecOp.LT: _elementwise(_bool_result),
    SpecOp.LE: _elementwise(_bool_result),
    SpecOp.GT: _elementwise(_bool_result),
    SpecOp.GE: _elementwise(_bool_result),
    SpecOp.AND: _bool_only,
    SpecOp.OR: _bool_only,
    SpecOp.NOT: _bool_only,
    SpecOp.ISINF: _same_as_x(lambda t: BOOL),
    SpecOp.ISNAN: _same_as_x(lambda t: BOOL),
    SpecOp.ISFINITE: _same_as_x(lambda t: BOOL),
    SpecOp.WHERE: _where,
    SpecOp.CLAMP: _clamp,
    SpecOp.NEG: _same_as_x(),
    SpecOp.ABS: _same_as_x(),
    SpecOp.RELU: _same_as_x(),
    SpecOp.RECIPROCAL: _same_as_x(_to_float),
    SpecOp.EXP: _same_as_x(_to_float),
    SpecOp.LOG: _same_as_x(_to_float),
    SpecOp.SQRT: _same_as_x(_to_float),
    SpecOp.RSQRT: _same_as_x(_to_float),
    SpecOp.TANH: _same_as_x(_to_float),
    SpecOp.ERF: _same_as_x(_to_float),
    SpecOp.SIN: _same_as_x(_to_float),
    SpecOp.COS: _same_as_x(_to_float),
    SpecOp.SIGMOID: _same_as_x(_to_float),
    SpecOp.GELU: _same_as_x(_float_input("gelu")),
    SpecOp.SILU: _same_as_x(_float_input("silu")),
    SpecOp.SOFTPLUS: _same_as_x(_float_input("softplus")),
    SpecOp.CAST: _cast,
    SpecOp.SUM: _reduction(_sum_dtype),
    SpecOp.MEAN: _reduction(_float_input("mean")),
    SpecOp.AMAX: _reduction(lambda t: t),
    SpecOp.AMIN: _reduction(lambda t: t),
    SpecOp.ARGMAX: _arg_reduction,
    SpecOp.ARGMIN: _arg_reduction,
    SpecOp.VAR: _reduction(_float_input("var"), all_when_empty=True),
    SpecOp.STD: _reduction(_float_input("std"), all_when_empty=True),
    SpecOp.NORM: _reduction(_float_input("norm"), all_when_empty=True),
    SpecOp.SOFTMAX: _along_dim,
    SpecOp.LOG_SOFTMAX: _along_dim,
    SpecOp.LAYER_NORM: _norm_layer,
    SpecOp.RMS_NORM: _norm_layer,
    SpecOp.MM: _mm,
    SpecOp.BMM: _mm,
    SpecOp.MATMUL: _matmul,
    SpecOp.LINEAR: _linear,
    SpecOp.TRANSPOSE: _transpose,
    SpecOp.PERMUTE: _permute,
    SpecOp.RESHAPE: _reshape,
    SpecOp.UNSQUEEZE: _unsqueeze,
    SpecOp.SQUEEZE: _squeeze,
    SpecOp.EXPAND: _expand,
    SpecOp.SLICE: _slice,
    SpecOp.SELECT: _select,
    SpecOp.CAT: _cat,
    SpecOp.STACK: _stack,
    SpecOp.INDEX_SELECT: _index_select,
    SpecOp.GATHER: _gather,
    SpecOp.SCATTER_ADD: _scatter_add,
    SpecOp.EMBEDDING: _embedding,
    SpecOp.CUMSUM: _along_dim,
    SpecOp.CROSS_ENTROPY: _cross_entropy,
    SpecOp.FULL: _full,
    SpecOp.ARANGE: _arange,
    SpecOp.TRIL: _triangle,
    SpecOp.TRIU: _triangle,
}


def infer_type(node: SpecNode, types: Mapping[str, ValueType]) -> ValueType:
    """The result type of ``node`` by its op's rule, given the types of the graph's values so far."""
    args: list[ArgType] = []
    for a in node.args:
        match a:
            case Ref(name):
                if name not in types:
                    raise ReferenceError_(f"%{node.name} = {node.op.value}: operand %{name} is undefined", node.span)
                args.append(types[name])
            case Scalar():
                args.append(a)
            case Absent():
                args.append(None)
    if node.op not in OP_SIGNATURES:
        raise ReferenceError_(f"op {node.op.value} has no signature", node.span)
    try:
        return TYPE_RULES[node.op](node, args)
    except ReferenceError_ as e:
        raise ReferenceError_(f"%{node.name} = {node.op.value}: {e.message}", node.span) from None
