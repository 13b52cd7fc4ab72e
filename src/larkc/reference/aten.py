"""The mapping from ATen operators (as torch.export records them) to spec ops.

One handler per ATen overload in :data:`HANDLERS`; :data:`IGNORED` lists the nodes that carry no tensor
value (size arithmetic, metadata assertions). A handler reads the node's arguments (bound by name with the
operator's schema, defaults filled in), emits one or more spec nodes through the :class:`Converter` and
binds the fx node to the result. Several ATen overloads map to one spec op (``view``, ``reshape``,
``flatten`` and ``unflatten`` are all :attr:`SpecOp.RESHAPE`); a few ATen ops become short sequences
(``addmm`` is ``mm`` then ``add``; ``leaky_relu`` a ``where``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy
import torch

from larkc.dtypes import scalar_type_of, torch_dtype
from larkc.errors import ReferenceError_
from larkc.ir.types import BOOL, I64
from larkc.reference.aten_nn import NN_HANDLERS
from larkc.reference.shapes import as_int, mk_add, mk_sub, product, same, same_shape, simplify
from larkc.reference.spec import Absent, AttrValue, Operand, Ref, Scalar, SpecOp
from larkc.tasks.shape_expr import ShapeExpr, ShapeNum

if TYPE_CHECKING:
    from larkc.reference.trace import Converter

__all__ = ["HANDLERS", "IGNORED", "aten_name"]

Handler = Callable[["Converter", torch.fx.Node], None]

_INT64_MAX = 2**63 - 1


def aten_name(target: Any) -> str:
    """``aten.add.Tensor`` for an OpOverload, ``getitem``/``mul``/... for Python operators."""
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    if target is operator.getitem:
        return "getitem"
    return getattr(target, "__name__", str(target))


#: Nodes without a tensor value: size arithmetic (read through the sizes' symbolic values when used) and
#: metadata assertions. ``_assert_scalar`` becomes an assumption of the spec.
IGNORED = frozenset(
    {
        "aten.sym_size.int",
        "aten.sym_numel.default",
        "aten.sym_stride.int",
        "aten.sym_storage_offset.default",
        "aten._assert_scalar.default",
        "aten._assert_tensor_metadata.default",
        "aten.sym_constrain_range_for_size.default",
        "aten.sym_constrain_range.default",
        "add",
        "sub",
        "mul",
        "floordiv",
        "mod",
        "neg",
        "truediv",
        "pow",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "sym_max",
        "sym_min",
        "sym_float",
        "sym_int",
        "sym_not",
        "or_",
        "and_",
        "sym_sum",
        "floor",
        "ceil",
    }
)


def bound(node: torch.fx.Node) -> dict[str, Any]:
    """The node's arguments by schema name, defaults filled in."""
    schema = node.target._schema  # type: ignore[union-attr]
    out: dict[str, Any] = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args) and not arg.kwarg_only:
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


def _dim(d: int, rank: int) -> int:
    n = max(rank, 1)
    if not -n <= d < n:
        raise ReferenceError_(f"dim {d} out of range for a tensor of rank {rank}")
    return d % n


def _dims(ds: Any, rank: int) -> tuple[int, ...]:
    """Reduction dims: None or [] means every dim."""
    if ds is None or (isinstance(ds, list | tuple) and not ds):
        return tuple(range(rank))
    if isinstance(ds, int):
        ds = [ds]
    return tuple(sorted({_dim(int(d), rank) for d in ds}))


def _alias(c: Converter, n: torch.fx.Node, value: Operand) -> None:
    c.env[n] = c.finish(n, value)


# elementwise ------------------------------------------------------------------------------------------


def _binary(op: SpecOp, lhs: str = "self", rhs: str = "other") -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x, y = c.operand(a[lhs], n), c.operand(a[rhs], n)
        alpha = a.get("alpha", 1)
        if op in (SpecOp.ADD, SpecOp.SUB) and alpha not in (1, None):
            y = c.emit(n, SpecOp.MUL, [y, c.operand(alpha, n)], suffix="_alpha")
        c.bind(n, c.emit(n, op, [x, y]))

    return handle


def _rsub(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x, y = c.operand(a["self"], n), c.operand(a["other"], n)
    if a.get("alpha", 1) != 1:
        x = c.emit(n, SpecOp.MUL, [x, c.operand(a["alpha"], n)], suffix="_alpha")
    c.bind(n, c.emit(n, SpecOp.SUB, [y, x]))


def _div_mode(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    mode = a.get("rounding_mode")
    if mode not in (None, "floor"):
        raise c.error(n, f"unsupported op {aten_name(n.target)} with rounding_mode={mode!r} in reference")
    op = SpecOp.DIV if mode is None else SpecOp.FLOOR_DIVIDE
    c.bind(n, c.emit(n, op, [c.operand(a["self"], n), c.operand(a["other"], n)]))


def _unary(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        c.bind(n, c.emit(n, op, [c.tensor(bound(n)["self"], n)]))

    return handle


def _logical(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        args = [c.operand(a["self"], n)] + ([c.operand(a["other"], n)] if "other" in a else [])
        for x in args:
            if isinstance(x, Ref) and not c.type_of(x).dtype.is_bool:
                raise c.error(n, f"unsupported op {aten_name(n.target)} on {c.type_of(x).dtype} (bitwise) in reference")
        c.bind(n, c.emit(n, op, args))

    return handle


def _gelu(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    c.bind(n, c.emit(n, SpecOp.GELU, [c.tensor(a["self"], n)], [("approximate", str(a["approximate"]))]))


def _softplus(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    attrs: list[tuple[str, AttrValue]] = [("beta", float(a["beta"])), ("threshold", float(a["threshold"]))]
    c.bind(n, c.emit(n, SpecOp.SOFTPLUS, [c.tensor(a["self"], n)], attrs))


def _leaky_relu(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    pos = c.emit(n, SpecOp.GT, [x, Scalar(0)], suffix="_pos")
    scaled = c.emit(n, SpecOp.MUL, [x, Scalar(float(a["negative_slope"]))], suffix="_neg")
    c.bind(n, c.emit(n, SpecOp.WHERE, [pos, x, scaled]))


def _log1p(c: Converter, n: torch.fx.Node) -> None:
    x = c.tensor(bound(n)["self"], n)
    c.bind(n, c.emit(n, SpecOp.LOG, [c.emit(n, SpecOp.ADD, [x, Scalar(1)], suffix="_1p")]))


def _expm1(c: Converter, n: torch.fx.Node) -> None:
    x = c.tensor(bound(n)["self"], n)
    c.bind(n, c.emit(n, SpecOp.SUB, [c.emit(n, SpecOp.EXP, [x], suffix="_exp"), Scalar(1)]))


def _square(c: Converter, n: torch.fx.Node) -> None:
    c.bind(n, c.emit(n, SpecOp.POW, [c.tensor(bound(n)["self"], n), Scalar(2)]))


def _pow_scalar_base(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    c.bind(n, c.emit(n, SpecOp.POW, [c.operand(a["self"], n), c.tensor(a["exponent"], n)]))


def _where(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    args = [c.tensor(a["condition"], n), c.operand(a["self"], n), c.operand(a["other"], n)]
    c.bind(n, c.emit(n, SpecOp.WHERE, args))


def _masked_fill(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    value = c.operand(a["value"], n)
    if isinstance(value, Ref):  # a 0-d tensor value keeps x's dtype, as masked_fill does
        value = c.emit(n, SpecOp.CAST, [value], dtype=c.type_of(x).dtype, suffix="_value")
    c.bind(n, c.emit(n, SpecOp.WHERE, [c.tensor(a["mask"], n), value, x]))


def _clamp(lo_name: str | None, hi_name: str | None) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        lo = c.operand(a[lo_name], n) if lo_name else Absent()
        hi = c.operand(a[hi_name], n) if hi_name else Absent()
        c.bind(n, c.emit(n, SpecOp.CLAMP, [c.tensor(a["self"], n), lo, hi]))

    return handle


def _cast(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    target = c.meta_type(n).dtype
    if target == c.type_of(x).dtype:
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.CAST, [x], dtype=target))


def _identity(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    key = "self" if "self" in a else next(iter(a))
    _alias(c, n, c.tensor(a[key], n))


def _dropout(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    if a.get("train") and a.get("p"):
        raise c.error(n, "unsupported op aten.dropout in training mode in reference (dropout is random)")
    x = c.tensor(a["input"], n)
    if aten_name(n.target).startswith("aten.native_dropout"):
        c.env[n] = (c.finish(n, x, 0), None)
    else:
        _alias(c, n, x)


# reductions --------------------------------------------------------------------------------------------


def _cast_to(c: Converter, n: torch.fx.Node, x: Ref, dtype: Any) -> Ref:
    if dtype is None:
        return x
    target = scalar_type_of(dtype)
    if target == c.type_of(x).dtype:
        return x
    return c.emit(n, SpecOp.CAST, [x], dtype=target, suffix="_cast")


def _in_dtype(c: Converter, n: torch.fx.Node, x: Ref, dtype: Any) -> Ref:
    """A sum or prefix sum with an explicit integer ``dtype=`` accumulates in that dtype
    (``x.sum(dtype=torch.int32)`` is i32), where the spec op widens integers to i64 as torch does
    without one: the widened result narrowed to ``dtype``, which wraps as the narrow sum does."""
    if dtype is None:
        return x
    return _cast_to(c, n, x, dtype)


def _reduce(op: SpecOp, all_dims: bool = False) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x = _cast_to(c, n, c.tensor(a["self"], n), a.get("dtype"))
        rank = c.rank(x)
        dims = tuple(range(rank)) if all_dims else _dims(a.get("dim"), rank)
        keepdim = bool(a.get("keepdim") or False)
        c.bind(n, _in_dtype(c, n, c.emit(n, op, [x], [("dims", dims), ("keepdim", keepdim)]), a.get("dtype")))

    return handle


def _max_dim(value_op: SpecOp, index_op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x = c.tensor(a["self"], n)
        dim = _dim(int(a["dim"]), c.rank(x))
        keepdim = bool(a["keepdim"])
        values = c.emit(n, value_op, [x], [("dims", (dim,)), ("keepdim", keepdim)], suffix="_values")
        indices = c.emit(n, index_op, [x], [("dim", dim), ("keepdim", keepdim)], suffix="_indices")
        c.env[n] = (c.finish(n, values, 0), c.finish(n, indices, 1))

    return handle


def _argreduce(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x = c.tensor(a["self"], n)
        dim = None if a["dim"] is None else _dim(int(a["dim"]), c.rank(x))
        c.bind(n, c.emit(n, op, [x], [("dim", dim), ("keepdim", bool(a["keepdim"]))]))

    return handle


def _var(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x = c.tensor(a["self"], n)
        dims = _dims(a.get("dim"), c.rank(x))
        if "correction" in a:
            correction = 1 if a["correction"] is None else a["correction"]
        else:
            correction = 1 if a.get("unbiased", True) else 0
        attrs: list[tuple[str, AttrValue]] = [
            ("dims", dims),
            ("correction", correction),
            ("keepdim", bool(a.get("keepdim") or False)),
        ]
        result = c.emit(n, op, [x], attrs)
        if aten_name(n.target).startswith(("aten.var_mean", "aten.std_mean")):
            mean = c.emit(n, SpecOp.MEAN, [x], [attrs[0], attrs[2]], suffix="_mean")
            c.env[n] = (c.finish(n, result, 0), c.finish(n, mean, 1))
        else:
            c.bind(n, result)

    return handle


def _norm(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = _cast_to(c, n, c.tensor(a["self"], n), a.get("dtype"))
    p = a.get("ord", a.get("p"))
    p = 2.0 if p is None else float(p)
    dims = _dims(a.get("dim"), c.rank(x))
    attrs: list[tuple[str, AttrValue]] = [("ord", p), ("dims", dims), ("keepdim", bool(a.get("keepdim") or False))]
    c.bind(n, c.emit(n, SpecOp.NORM, [x], attrs))


def _softmax(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        x = c.tensor(a["self"], n)
        if a.get("half_to_float"):
            x = _cast_to(c, n, x, torch.float32)
        x = _cast_to(c, n, x, a.get("dtype"))
        c.bind(n, c.emit(n, op, [x], [("dim", _dim(int(a["dim"]), c.rank(x)))]))

    return handle


def _sizes(c: Converter, n: torch.fx.Node, values: Any) -> tuple[ShapeExpr, ...]:
    return tuple(c.size(v, n) for v in values)


def _layer_norm(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["input"], n)
    shape = _sizes(c, n, a["normalized_shape"])
    args = [x, c.operand(a["weight"], n), c.operand(a["bias"], n)]
    out = c.emit(n, SpecOp.LAYER_NORM, args, [("normalized_shape", shape), ("eps", float(a["eps"]))])
    if aten_name(n.target) == "aten.native_layer_norm.default":
        c.env[n] = (c.finish(n, out, 0), None, None)
    else:
        c.bind(n, out)


def _rms_norm(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["input"], n)
    eps = a["eps"]
    if eps is None:  # torch's default: the machine epsilon of the input's dtype
        eps = torch.finfo(_torch_dtype(c, x)).eps
    shape = _sizes(c, n, a["normalized_shape"])
    out = c.emit(n, SpecOp.RMS_NORM, [x, c.operand(a["weight"], n)], [("normalized_shape", shape), ("eps", float(eps))])
    c.bind(n, out)


def _torch_dtype(c: Converter, x: Ref) -> torch.dtype:
    return torch_dtype(c.type_of(x).dtype)


# linear algebra ----------------------------------------------------------------------------------------


def _matmul_like(op: SpecOp, lhs: str = "self", rhs: str = "other") -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        c.bind(n, c.emit(n, op, [c.tensor(a[lhs], n), c.tensor(a[rhs], n)]))

    return handle


def _linear(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    args = [c.tensor(a["input"], n), c.tensor(a["weight"], n), c.operand(a["bias"], n)]
    c.bind(n, c.emit(n, SpecOp.LINEAR, args))


def _addmm(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    prod: Operand = c.emit(n, SpecOp.MM, [c.tensor(a["mat1"], n), c.tensor(a["mat2"], n)], suffix="_mm")
    if a["alpha"] != 1:
        prod = c.emit(n, SpecOp.MUL, [prod, c.operand(a["alpha"], n)], suffix="_alpha")
    bias: Operand = c.tensor(a["self"], n)
    if a["beta"] != 1:
        bias = c.emit(n, SpecOp.MUL, [bias, c.operand(a["beta"], n)], suffix="_beta")
    c.bind(n, c.emit(n, SpecOp.ADD, [bias, prod]))


# layout ---------------------------------------------------------------------------------------------


def _transpose(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    rank = c.rank(x)
    if aten_name(n.target) == "aten.t.default":
        if rank < 2:
            _alias(c, n, x)
            return
        d0, d1 = 0, 1
    else:
        d0, d1 = _dim(int(a["dim0"]), rank), _dim(int(a["dim1"]), rank)
    if d0 == d1 or rank == 0:
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.TRANSPOSE, [x], [("dim0", min(d0, d1)), ("dim1", max(d0, d1))]))


def _permute(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    dims = tuple(_dim(int(d), c.rank(x)) for d in a["dims"])
    if dims == tuple(range(len(dims))):
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.PERMUTE, [x], [("dims", dims)]))


def _reshape(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    shape = c.meta_type(n).shape  # torch resolved -1 and the flattened dims
    if len(shape) == c.rank(x) and all(
        s == t or simplify(s) == simplify(t) for s, t in zip(shape, c.type_of(x).shape, strict=True)
    ):
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.RESHAPE, [x], [("shape", shape)]))


def _unsqueeze(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    dim = _dim(int(a["dim"]), c.rank(x) + 1)
    c.bind(n, c.emit(n, SpecOp.UNSQUEEZE, [x], [("dim", dim)]))


def _squeeze(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    shape = c.type_of(x).shape
    rank = len(shape)
    wanted = a.get("dim")
    candidates = range(rank) if wanted is None else _dims(wanted, rank)
    dims = tuple(d for d in candidates if as_int(shape[d]) == 1)
    if not dims:
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.SQUEEZE, [x], [("dims", dims)]))


def _expand(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    shape = c.meta_type(n).shape
    if shape == c.type_of(x).shape:
        _alias(c, n, x)
        return
    c.bind(n, c.emit(n, SpecOp.EXPAND, [x], [("shape", shape)]))


def _broadcast_tensors(c: Converter, n: torch.fx.Node) -> None:
    """``broadcast_tensors``: each operand expanded to the common shape (a tuple result)."""
    parts: list[Operand] = []
    for i, t in enumerate(bound(n)["tensors"]):
        x = c.tensor(t, n)
        shape = c.meta_type(n, i).shape
        if shape != c.type_of(x).shape:
            x = c.emit(n, SpecOp.EXPAND, [x], [("shape", shape)], suffix=f"_{i}")
        parts.append(c.finish(n, x, i))
    c.env[n] = tuple(parts)


def _bound_index(c: Converter, n: torch.fx.Node, value: Any, size: ShapeExpr, default: int) -> ShapeExpr:
    """A slice bound as a shape expression in ``[0, size]`` (negative counts from the end)."""
    if value is None:
        return ShapeNum(default) if default == 0 else size
    if isinstance(value, int):
        if value >= _INT64_MAX or value == math.inf:
            return size
        n_size = as_int(size)
        if value < 0:
            if n_size is not None:
                return ShapeNum(max(0, n_size + value))
            return simplify(mk_add(size, ShapeNum(value)))
        if n_size is not None:
            return ShapeNum(min(value, n_size))
        return ShapeNum(value)
    return c.size(value, n)


def _slice(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    typ = c.type_of(x)
    dim = _dim(int(a["dim"]), typ.rank)
    size = typ.shape[dim]
    if aten_name(n.target) == "aten.narrow.default":
        start = _bound_index(c, n, a["start"], size, 0)
        end = simplify(mk_add(start, c.size(a["length"], n)))
        step = 1
    else:
        start = _bound_index(c, n, a["start"], size, 0)
        end = _bound_index(c, n, a["end"], size, -1)
        step = int(a["step"])
    if as_int(start) == 0 and end == size and step == 1:
        _alias(c, n, x)
        return
    attrs: list[tuple[str, AttrValue]] = [("dim", dim), ("start", start), ("end", end), ("step", step)]
    c.bind(n, c.emit(n, SpecOp.SLICE, [x], attrs))


def _select(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    typ = c.type_of(x)
    dim = _dim(int(a["dim"]), typ.rank)
    index = a["index"]
    if isinstance(index, int) and index < 0:
        idx = simplify(mk_add(typ.shape[dim], ShapeNum(index)))
    else:
        idx = c.size(index, n)
    c.bind(n, c.emit(n, SpecOp.SELECT, [x], [("dim", dim), ("index", idx)]))


def _split(c: Converter, n: torch.fx.Node) -> None:
    """split, split_with_sizes, chunk, unbind: one slice (or select) per part, sizes from torch."""
    a = bound(n)
    x = c.tensor(a["self"], n)
    typ = c.type_of(x)
    dim = _dim(int(a.get("dim") or 0), typ.rank)
    parts = n.meta.get("val")
    assert isinstance(parts, list | tuple)
    outs: list[Operand] = []
    if aten_name(n.target).startswith("aten.unbind"):
        for i in range(len(parts)):
            r = c.emit(n, SpecOp.SELECT, [x], [("dim", dim), ("index", ShapeNum(i))], suffix=f"_{i}")
            outs.append(c.finish(n, r, i))
        c.env[n] = tuple(outs)
        return
    start: ShapeExpr = ShapeNum(0)
    for i, part in enumerate(parts):
        length = c.size(part.shape[dim], n)
        end = simplify(mk_add(start, length))
        attrs: list[tuple[str, AttrValue]] = [("dim", dim), ("start", start), ("end", end), ("step", 1)]
        outs.append(c.finish(n, c.emit(n, SpecOp.SLICE, [x], attrs, suffix=f"_{i}"), i))
        start = end
    c.env[n] = tuple(outs)


def _join(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        tensors = [c.tensor(t, n) for t in a["tensors"]]
        rank = c.rank(tensors[0]) + (1 if op is SpecOp.STACK else 0)
        c.bind(n, c.emit(n, op, tensors, [("dim", _dim(int(a["dim"]), rank))]))

    return handle


# indexing --------------------------------------------------------------------------------------------


def _index_select(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    dim = _dim(int(a["dim"]), c.rank(x))
    c.bind(n, c.emit(n, SpecOp.INDEX_SELECT, [x, c.tensor(a["index"], n)], [("dim", dim)]))


def _gather(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    dim = _dim(int(a["dim"]), c.rank(x))
    c.bind(n, c.emit(n, SpecOp.GATHER, [x, c.tensor(a["index"], n)], [("dim", dim)]))


def _scatter_add(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = c.tensor(a["self"], n)
    dim = _dim(int(a["dim"]), c.rank(x))
    c.bind(n, c.emit(n, SpecOp.SCATTER_ADD, [x, c.tensor(a["index"], n), c.tensor(a["src"], n)], [("dim", dim)]))


def _index_add(c: Converter, n: torch.fx.Node) -> None:
    """``x.index_add(dim, index, source, alpha=a)``: a ``scatter_add`` of ``a * source`` with the 1-D index
    laid along ``dim`` and expanded to the source's shape."""
    a = bound(n)
    x, index, source = c.tensor(a["self"], n), c.tensor(a["index"], n), c.tensor(a["source"], n)
    src_type = c.type_of(source)
    dim = _dim(int(a["dim"]), c.rank(x))
    if c.rank(index) != 1 or src_type.rank == 0:
        raise c.error(n, f"unsupported op {aten_name(n.target)} with a 0-d index or source in reference")
    line = tuple(src_type.shape[d] if d == dim else ShapeNum(1) for d in range(src_type.rank))
    laid = c.emit(n, SpecOp.RESHAPE, [index], [("shape", line)], suffix="_index")
    spread = c.emit(n, SpecOp.EXPAND, [laid], [("shape", src_type.shape)], suffix="_spread")
    alpha = a.get("alpha", 1)
    if alpha not in (1, None):
        source = c.emit(n, SpecOp.MUL, [source, c.operand(alpha, n)], suffix="_alpha")
    c.bind(n, c.emit(n, SpecOp.SCATTER_ADD, [x, spread, source], [("dim", dim)]))


def _bincount(c: Converter, n: torch.fx.Node) -> None:
    """``torch.bincount(ids, minlength=k)``: a ``scatter_add`` of ones into ``k`` zeros. Its length is
    ``max(max(ids) + 1, k)``, a function of the values: it is ``k`` only where the task bounds the ids'
    values to ``[0, k)``, which is required (else a located error naming the op)."""
    a = bound(n)
    ids = c.tensor(a["self"], n)
    k = a.get("minlength", 0)
    what = f"aten.bincount in reference: {c.line(n)}"
    if a.get("weights") is not None:
        raise c.error(n, f"unsupported op {what} (weights)")
    ids_type = c.type_of(ids)
    if ids_type.rank != 1 or not ids_type.dtype.is_int:
        raise c.error(n, f"unsupported op {what} (ids of type {ids_type})")
    bounds = c.value_range(ids)
    fits = (
        bounds is not None
        and isinstance(bounds[0], ShapeNum)
        and isinstance(bounds[1], ShapeNum)
        and bounds[0].value >= 0
        and 0 < bounds[1].value <= k
    )
    if not fits:
        raise c.error(
            n,
            f"data-dependent output shape in reference: {c.line(n)} (bincount's length is max(ids) + 1 unless"
            f" the ids come from an input declared with values in [0, minlength), minlength {k})",
        )
    length = n.meta["val"].shape[0]
    if isinstance(length, torch.SymInt):
        c.sym_map[length.node.expr] = sympy.Integer(k)  # torch's unbacked length is k at every instance
    zeros = c.emit(n, SpecOp.FULL, [], [("shape", (ShapeNum(k),)), ("value", 0)], dtype=I64, suffix="_zeros")
    ones = c.emit(n, SpecOp.FULL, [], [("shape", ids_type.shape), ("value", 1)], dtype=I64, suffix="_ones")
    c.bind(n, c.emit(n, SpecOp.SCATTER_ADD, [zeros, ids, ones], [("dim", 0)]))


def _embedding(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    c.bind(n, c.emit(n, SpecOp.EMBEDDING, [c.tensor(a["weight"], n), c.tensor(a["indices"], n)]))


def _index(c: Converter, n: torch.fx.Node) -> None:
    """``x[idx]`` / ``x[:, idx]`` with one integer index tensor: index_select, then reshape."""
    a = bound(n)
    x = c.tensor(a["self"], n)
    indices = list(a["indices"])
    used = [i for i, t in enumerate(indices) if t is not None]
    if len(used) != 1:
        raise c.error(n, "unsupported op aten.index.Tensor with several index tensors in reference")
    dim = used[0]
    idx = c.tensor(indices[dim], n)
    idx_type = c.type_of(idx)
    if idx_type.dtype == BOOL:
        raise c.error(n, f"data-dependent output shape in reference: {c.line(n)}")
    flat: Ref = idx
    if idx_type.rank != 1:
        total = simplify(product(idx_type.shape))
        flat = c.emit(n, SpecOp.RESHAPE, [idx], [("shape", (total,))], suffix="_flat")
    picked = c.emit(n, SpecOp.INDEX_SELECT, [x, flat], [("dim", dim)], suffix="" if idx_type.rank == 1 else "_rows")
    if idx_type.rank == 1:
        c.bind(n, picked)
        return
    c.bind(n, c.emit(n, SpecOp.RESHAPE, [picked], [("shape", c.meta_type(n).shape)]))


def _cumsum(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    x = _cast_to(c, n, c.tensor(a["self"], n), a.get("dtype"))
    summed = c.emit(n, SpecOp.CUMSUM, [x], [("dim", _dim(int(a["dim"]), c.rank(x)))])
    c.bind(n, _in_dtype(c, n, summed, a.get("dtype")))


def _pointwise_loss(c: Converter, n: torch.fx.Node) -> None:
    """``mse_loss`` and ``l1_loss``: (x - y)**2 or |x - y|, then the reduction (none, mean, sum)."""
    a = bound(n)
    diff = c.emit(n, SpecOp.SUB, [c.tensor(a["self"], n), c.tensor(a["target"], n)], suffix="_diff")
    if aten_name(n.target).startswith("aten.mse_loss"):
        loss = c.emit(n, SpecOp.POW, [diff, Scalar(2)], suffix="_sq")
    else:
        loss = c.emit(n, SpecOp.ABS, [diff], suffix="_abs")
    reduction = int(a["reduction"])
    if reduction == 0:
        c.bind(n, loss)
        return
    op = SpecOp.MEAN if reduction == 1 else SpecOp.SUM
    dims = tuple(range(c.rank(loss)))
    c.bind(n, c.emit(n, op, [loss], [("dims", dims), ("keepdim", False)]))


def _cross_entropy(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    if a["weight"] is not None or float(a["label_smoothing"]) != 0.0:
        raise c.error(n, "unsupported op aten.cross_entropy_loss with class weights or label smoothing in reference")
    target = c.tensor(a["target"], n)
    if c.type_of(target).dtype.is_float:
        raise c.error(n, "unsupported op aten.cross_entropy_loss with probability targets in reference")
    reduction = {0: "none", 1: "mean", 2: "sum"}[int(a["reduction"])]
    attrs: list[tuple[str, AttrValue]] = [("reduction", reduction), ("ignore_index", int(a["ignore_index"]))]
    c.bind(n, c.emit(n, SpecOp.CROSS_ENTROPY, [c.tensor(a["self"], n), target], attrs))


# creation ------------------------------------------------------------------------------------------


def _fill_value(c: Converter, n: torch.fx.Node, value: Any) -> int | float | bool:
    if isinstance(value, bool | int | float):
        return value
    raise c.error(n, f"unsupported fill value {value!r} in reference (use a number)")


def _full(value_name: str | None, constant: float | None = None) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        value = constant if value_name is None else _fill_value(c, n, a[value_name])
        typ = c.meta_type(n)
        if typ.dtype.is_bool:
            value = bool(value)
        elif not typ.dtype.is_float:
            value = int(value)  # type: ignore[arg-type]
        else:
            value = float(value)  # type: ignore[arg-type]
        c.bind(n, c.emit(n, SpecOp.FULL, [], [("shape", typ.shape), ("value", value)], dtype=typ.dtype))

    return handle


def _empty(c: Converter, n: torch.fx.Node) -> None:
    """``torch.empty``/``empty_like``/``new_empty``: zeros in the graph, marked uninitialised until writes
    (slice assignment, ``copy_``) cover it; a read before that is a located error."""
    typ = c.meta_type(n)
    value: float | int | bool = False if typ.dtype.is_bool else (0.0 if typ.dtype.is_float else 0)
    ref = c.emit(n, SpecOp.FULL, [], [("shape", typ.shape), ("value", value)], dtype=typ.dtype)
    c.bind(n, ref)
    c.partial[ref.name] = (None, ())


def _base(c: Converter, n: torch.fx.Node, a: Any) -> Ref:
    """The tensor a write goes into, which may still be partly uninitialised."""
    v = c.env.get(a) if isinstance(a, torch.fx.Node) else None
    return v if isinstance(v, Ref) else c.tensor(a, n)


def _covered(written: tuple[tuple[ShapeExpr, ShapeExpr], ...], size: ShapeExpr) -> bool:
    """Whether the ranges ``written`` cover ``[0, size)`` (chained end to start)."""
    reached: ShapeExpr = ShapeNum(0)
    left = list(written)
    while not same(reached, size):
        step = next((r for r in left if same(r[0], reached) or (as_int(r[0]) == 0 == as_int(reached))), None)
        if step is None:
            return False
        left.remove(step)
        reached = step[1]
    return True


def _write_range(
    c: Converter, n: torch.fx.Node, base: Ref, src: Ref, dim: int, start: ShapeExpr, end: ShapeExpr
) -> None:
    """``base`` with ``[start, end)`` along ``dim`` replaced by ``src`` (of that extent): a ``cat`` of the
    parts of ``base`` around ``src``."""
    typ = c.type_of(base)
    size = typ.shape[dim]
    parts: list[Operand] = []
    if as_int(start) != 0:
        attrs: list[tuple[str, AttrValue]] = [("dim", dim), ("start", ShapeNum(0)), ("end", start), ("step", 1)]
        parts.append(c.emit(n, SpecOp.SLICE, [base], attrs, suffix="_before"))
    if c.type_of(src).dtype != typ.dtype:
        src = c.emit(n, SpecOp.CAST, [src], dtype=typ.dtype, suffix="_cast")
    parts.append(src)
    if not same(end, size):
        attrs = [("dim", dim), ("start", end), ("end", size), ("step", 1)]
        parts.append(c.emit(n, SpecOp.SLICE, [base], attrs, suffix="_after"))
    out = parts[0] if len(parts) == 1 else c.emit(n, SpecOp.CAT, parts, [("dim", dim)])
    assert isinstance(out, Ref)
    c.bind(n, out)
    if base.name in c.partial:
        was_dim, written = c.partial[base.name]
        if was_dim not in (None, dim):
            raise c.error(n, f"unsupported writes into torch.empty along dims {was_dim} and {dim} in reference")
        now = (*written, (start, end))
        if not _covered(now, size):
            c.partial[out.name] = (dim, now)


def _index_put(c: Converter, n: torch.fx.Node) -> None:
    """``x[mask] = v`` with one bool mask of x's shape and a single value (functionalised ``index_put``):
    ``where(mask, v, x)``, as ``masked_fill`` is. Other index forms stay a located error."""
    a = bound(n)
    x = _base(c, n, a["self"])
    indices = [t for t in a["indices"] if t is not None]
    mask = c.tensor(indices[0], n) if len(indices) == 1 and len(a["indices"]) == 1 else None
    value = c.tensor(a["values"], n)
    ok = (
        mask is not None
        and c.type_of(mask).dtype == BOOL
        and same_shape(c.type_of(mask).shape, c.type_of(x).shape)
        and all(as_int(d) == 1 for d in c.type_of(value).shape)
        and not a.get("accumulate", False)
    )
    if not ok or mask is None:
        raise c.error(n, f"unsupported op aten.index_put (other than x[bool mask] = scalar) in reference: {c.line(n)}")
    if x.name in c.partial:
        raise c.uninitialised(n, x)
    if c.type_of(value).rank:
        value = c.emit(n, SpecOp.RESHAPE, [value], [("shape", ())], suffix="_value")
    c.bind(n, c.emit(n, SpecOp.WHERE, [mask, value, x]))


def _fill(c: Converter, n: torch.fx.Node) -> None:
    """``x.fill_(v)`` (functionalised to ``fill``, as ``x[a:b] = 1.0`` is): every element of x written."""
    a = bound(n)
    typ = c.type_of(_base(c, n, a["self"]))
    value = c.operand(a["value"], n)
    if isinstance(value, Scalar):
        c.bind(n, c.emit(n, SpecOp.FULL, [], [("shape", typ.shape), ("value", value.value)], dtype=typ.dtype))
        return
    assert isinstance(value, Ref)
    if c.type_of(value).dtype != typ.dtype:
        value = c.emit(n, SpecOp.CAST, [value], dtype=typ.dtype, suffix="_cast")
    c.bind(n, c.emit(n, SpecOp.EXPAND, [value], [("shape", typ.shape)]))


def _slice_scatter(c: Converter, n: torch.fx.Node) -> None:
    """``x[..., a:b] = src`` (functionalised to ``slice_scatter``), with step 1."""
    a = bound(n)
    base = _base(c, n, a["self"])
    typ = c.type_of(base)
    dim = _dim(int(a.get("dim", 0)), typ.rank)
    size = typ.shape[dim]
    if int(a.get("step", 1)) != 1:
        raise c.error(n, f"unsupported op aten.slice_scatter with a step in reference: {c.line(n)}")
    start = _bound_index(c, n, a.get("start"), size, 0)
    end = _bound_index(c, n, a.get("end"), size, -1)
    if as_int(start) == 0 and same(end, size):
        # the whole of x written (the outer write of x[:, a:b] = ...): x's elements are src's
        whole = _base(c, n, a["src"])
        if whole.name in c.tainted:
            c.taint_read(c.tainted[whole.name])
        c.env[n] = whole
        return
    src = c.tensor(a["src"], n)
    src_type = c.type_of(src)
    want = (*typ.shape[:dim], simplify(mk_sub(end, start)), *typ.shape[dim + 1 :])
    if not same_shape(src_type.shape, want):
        src = c.emit(n, SpecOp.EXPAND, [src], [("shape", want)], suffix="_src")
    _write_range(c, n, base, src, dim, start, end)


def _select_scatter(c: Converter, n: torch.fx.Node) -> None:
    """``x[..., i] = src`` (functionalised to ``select_scatter``)."""
    a = bound(n)
    base = _base(c, n, a["self"])
    typ = c.type_of(base)
    dim = _dim(int(a["dim"]), typ.rank)
    index = a["index"]
    start = (
        simplify(mk_add(typ.shape[dim], ShapeNum(index))) if isinstance(index, int) and index < 0 else c.size(index, n)
    )
    src = c.emit(n, SpecOp.UNSQUEEZE, [c.tensor(a["src"], n)], [("dim", dim)], suffix="_src")
    _write_range(c, n, base, src, dim, start, simplify(mk_add(start, ShapeNum(1))))


def _arange(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    start = a.get("start", 0)
    end, step = a["end"], a.get("step", 1)
    for v in (start, end, step):
        if isinstance(v, float):
            raise c.error(n, "unsupported op arange with float bounds in reference")
    if not isinstance(step, int) or step < 1:
        raise c.error(n, f"unsupported arange step {step!r} in reference")
    typ = c.meta_type(n)
    attrs: list[tuple[str, AttrValue]] = [("start", c.size(start, n)), ("end", c.size(end, n)), ("step", step)]
    c.bind(n, c.emit(n, SpecOp.ARANGE, [], attrs, dtype=typ.dtype))


def _triangle(op: SpecOp) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = bound(n)
        c.bind(n, c.emit(n, op, [c.tensor(a["self"], n)], [("diagonal", int(a["diagonal"]))]))

    return handle


def _copy(c: Converter, n: torch.fx.Node) -> None:
    """``copy(self, src)`` (a functionalised ``copy_``): src cast and broadcast to self's type."""
    a = bound(n)
    dst, src = _base(c, n, a["self"]), c.tensor(a["src"], n)  # every element of dst is overwritten
    want = c.type_of(dst)
    out: Ref = src
    if c.type_of(out).dtype != want.dtype:
        out = c.emit(n, SpecOp.CAST, [out], dtype=want.dtype, suffix="_cast")
    if c.type_of(out).shape != want.shape:
        out = c.emit(n, SpecOp.EXPAND, [out], [("shape", want.shape)], suffix="_expand")
    _alias(c, n, out)


def _zero_fill(c: Converter, n: torch.fx.Node) -> None:
    a = bound(n)
    value = 0 if aten_name(n.target) == "aten.zero.default" else _fill_value(c, n, a["value"])
    typ = c.meta_type(n)
    value = bool(value) if typ.dtype.is_bool else (float(value) if typ.dtype.is_float else int(value))
    c.bind(n, c.emit(n, SpecOp.FULL, [], [("shape", typ.shape), ("value", value)], dtype=typ.dtype))


def _table() -> dict[str, Handler]:
    t: dict[str, Handler] = {}

    def add(names: str, h: Handler) -> None:
        for name in names.split():
            t[name] = h

    add("aten.add.Tensor aten.add.Scalar", _binary(SpecOp.ADD))
    add("aten.sub.Tensor aten.sub.Scalar aten.subtract.Tensor aten.subtract.Scalar", _binary(SpecOp.SUB))
    add("aten.rsub.Scalar aten.rsub.Tensor", _rsub)
    add("aten.mul.Tensor aten.mul.Scalar aten.multiply.Tensor aten.multiply.Scalar", _binary(SpecOp.MUL))
    add("aten.div.Tensor aten.div.Scalar aten.divide.Tensor aten.divide.Scalar", _binary(SpecOp.DIV))
    add("aten.true_divide.Tensor aten.true_divide.Scalar", _binary(SpecOp.DIV))
    add("aten.div.Tensor_mode aten.div.Scalar_mode", _div_mode)
    add("aten.floor_divide.default aten.floor_divide.Scalar", _binary(SpecOp.FLOOR_DIVIDE))
    add("aten.pow.Tensor_Scalar aten.pow.Tensor_Tensor", _binary(SpecOp.POW, "self", "exponent"))
    add("aten.pow.Scalar", _pow_scalar_base)
    add("aten.maximum.default aten.max.other", _binary(SpecOp.MAXIMUM))
    add("aten.minimum.default aten.min.other", _binary(SpecOp.MINIMUM))
    for op in (SpecOp.EQ, SpecOp.NE, SpecOp.LT, SpecOp.LE, SpecOp.GT, SpecOp.GE):
        add(f"aten.{op.value}.Tensor aten.{op.value}.Scalar", _binary(op))
    add(
        "aten.logical_and.default aten.bitwise_and.Tensor aten.bitwise_and.Scalar aten.__and__.Tensor"
        " aten.__and__.Scalar",
        _logical(SpecOp.AND),
    )
    add(
        "aten.logical_or.default aten.bitwise_or.Tensor aten.bitwise_or.Scalar aten.__or__.Tensor aten.__or__.Scalar",
        _logical(SpecOp.OR),
    )
    add("aten.logical_not.default aten.bitwise_not.default", _logical(SpecOp.NOT))
    for op in (SpecOp.ISINF, SpecOp.ISNAN, SpecOp.ISFINITE):
        add(f"aten.{op.value}.default", _unary(op))
    add("aten.where.self aten.where.ScalarSelf aten.where.ScalarOther aten.where.Scalar", _where)
    add("aten.masked_fill.Scalar aten.masked_fill.Tensor", _masked_fill)
    add("aten.clamp.default aten.clamp.Tensor", _clamp("min", "max"))
    add("aten.clamp_min.default aten.clamp_min.Tensor", _clamp("min", None))
    add("aten.clamp_max.default aten.clamp_max.Tensor", _clamp(None, "max"))
    add("aten.hardtanh.default", _clamp("min_val", "max_val"))
    for op in (
        SpecOp.NEG,
        SpecOp.ABS,
        SpecOp.RECIPROCAL,
        SpecOp.EXP,
        SpecOp.LOG,
        SpecOp.SQRT,
        SpecOp.RSQRT,
        SpecOp.TANH,
        SpecOp.ERF,
        SpecOp.SIN,
        SpecOp.COS,
        SpecOp.SIGMOID,
        SpecOp.RELU,
        SpecOp.SILU,
    ):
        add(f"aten.{op.value}.default", _unary(op))
    add("aten.gelu.default", _gelu)
    add("aten.softplus.default", _softplus)
    add("aten.leaky_relu.default", _leaky_relu)
    add("aten.log1p.default", _log1p)
    add("aten.expm1.default", _expm1)
    add("aten.square.default", _square)
    add("aten._to_copy.default aten.to.dtype aten.to.dtype_layout aten.to.device aten.type_as.default", _cast)
    add("aten.to.other", _cast)
    add(
        "aten.clone.default aten.contiguous.default aten.alias.default aten.detach.default"
        " aten.lift_fresh_copy.default aten.lift_fresh.default",
        _identity,
    )
    add("aten.dropout.default aten.native_dropout.default aten.feature_dropout.default", _dropout)
    add("aten.sum.default", _reduce(SpecOp.SUM, all_dims=True))
    add("aten.sum.dim_IntList", _reduce(SpecOp.SUM))
    add("aten.mean.default", _reduce(SpecOp.MEAN, all_dims=True))
    add("aten.mean.dim", _reduce(SpecOp.MEAN))
    add("aten.amax.default", _reduce(SpecOp.AMAX))
    add("aten.amin.default", _reduce(SpecOp.AMIN))
    add("aten.max.default", _reduce(SpecOp.AMAX, all_dims=True))
    add("aten.min.default", _reduce(SpecOp.AMIN, all_dims=True))
    add("aten.max.dim", _max_dim(SpecOp.AMAX, SpecOp.ARGMAX))
    add("aten.min.dim", _max_dim(SpecOp.AMIN, SpecOp.ARGMIN))
    add("aten.argmax.default", _argreduce(SpecOp.ARGMAX))
    add("aten.argmin.default", _argreduce(SpecOp.ARGMIN))
    add(
        "aten.var.correction aten.var.dim aten.var.default aten.var_mean.correction aten.var_mean.dim", _var(SpecOp.VAR)
    )
    add(
        "aten.std.correction aten.std.dim aten.std.default aten.std_mean.correction aten.std_mean.dim", _var(SpecOp.STD)
    )
    add("aten.linalg_vector_norm.default aten.norm.ScalarOpt_dim aten.norm.Scalar", _norm)
    add("aten.softmax.int aten._softmax.default", _softmax(SpecOp.SOFTMAX))
    add("aten.log_softmax.int aten._log_softmax.default", _softmax(SpecOp.LOG_SOFTMAX))
    add("aten.layer_norm.default aten.native_layer_norm.default", _layer_norm)
    add("aten.rms_norm.default", _rms_norm)
    add("aten.mm.default", _matmul_like(SpecOp.MM, "self", "mat2"))
    add("aten.bmm.default", _matmul_like(SpecOp.BMM, "self", "mat2"))
    add("aten.matmul.default", _matmul_like(SpecOp.MATMUL))
    add("aten.dot.default", _matmul_like(SpecOp.MATMUL, "self", "tensor"))
    add("aten.mv.default", _matmul_like(SpecOp.MATMUL, "self", "vec"))
    add("aten.linear.default", _linear)
    add("aten.addmm.default", _addmm)
    add("aten.t.default aten.transpose.int", _transpose)
    add("aten.permute.default", _permute)
    add(
        "aten.view.default aten._unsafe_view.default aten.reshape.default aten.flatten.using_ints"
        " aten.unflatten.int aten.view_as.default aten.reshape_as.default",
        _reshape,
    )
    add("aten.unsqueeze.default", _unsqueeze)
    add("aten.squeeze.dim aten.squeeze.dims aten.squeeze.default", _squeeze)
    add("aten.expand.default aten.expand_as.default aten.broadcast_to.default", _expand)
    add("aten.broadcast_tensors.default", _broadcast_tensors)
    add("aten.slice.Tensor aten.narrow.default", _slice)
    add("aten.select.int", _select)
    add(
        "aten.split.Tensor aten.split_with_sizes.default aten.chunk.default aten.unbind.int aten.tensor_split.sections",
        _split,
    )
    add("aten.cat.default aten.concat.default aten.concatenate.default", _join(SpecOp.CAT))
    add("aten.stack.default", _join(SpecOp.STACK))
    add("aten.index_select.default", _index_select)
    add("aten.gather.default", _gather)
    add("aten.scatter_add.default", _scatter_add)
    add("aten.index_add.default", _index_add)
    add("aten.bincount.default", _bincount)
    add("aten.empty.memory_format aten.empty_like.default aten.new_empty.default", _empty)
    add("aten.slice_scatter.default", _slice_scatter)
    add("aten.select_scatter.default", _select_scatter)
    add("aten.fill.Tensor", _fill)
    add("aten.index_put.default", _index_put)
    add("aten.embedding.default", _embedding)
    add("aten.index.Tensor", _index)
    add("aten.cumsum.default", _cumsum)
    add("aten.cross_entropy_loss.default", _cross_entropy)
    add("aten.mse_loss.default aten.l1_loss.default", _pointwise_loss)
    add("aten.zeros.default aten.zeros_like.default aten.new_zeros.default", _full(None, 0))
    add("aten.ones.default aten.ones_like.default aten.new_ones.default", _full(None, 1))
    add("aten.full.default aten.full_like.default", _full("fill_value"))
    add("aten.new_full.default", _full("fill_value"))
    add("aten.scalar_tensor.default", _full("s"))
    add("aten.fill.Scalar aten.zero.default", _zero_fill)
    add("aten.arange.default aten.arange.start aten.arange.start_step", _arange)
    add("aten.tril.default", _triangle(SpecOp.TRIL))
    add("aten.triu.default", _triangle(SpecOp.TRIU))
    add("aten.copy.default", _copy)
    return t


#: The handler of every supported ATen overload (with the layers of :mod:`larkc.reference.aten_nn`).
HANDLERS: dict[str, Handler] = {**_table(), **NN_HANDLERS}
