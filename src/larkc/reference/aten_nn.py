"""ATen's neural-network layers as exact compositions of spec ops: convolutions, pooling, normalisations,
activations, ``logsumexp``, ``einsum``, attention and padding.

None of these is a spec op of its own. Each handler rewrites the layer into ops of the closed table
(:class:`~larkc.reference.spec.SpecOp`) that compute the same function over the reals, so that the
numeric, symbolic and Lean meanings of the result follow from those of the parts:

* a **convolution** (any of 1-3 spatial dims, stride, padding, dilation, groups) is the sum over the
  kernel offsets of ``weight[:, :, offset] @ x_window(offset)``: the input is zero-padded (``cat`` with a
  ``full`` of zeros), each offset's window is one strided ``slice`` per spatial dim, and the weight's
  column at that offset is a ``select`` per kernel dim; groups are a batch dim of a ``matmul``;
* a **transposed convolution** is the convolution of the input with ``stride - 1`` zeros inserted between
  its elements (``unsqueeze``, ``cat`` with zeros, ``reshape``), padded by ``dilation * (k - 1) -
  padding``, with the kernel flipped and its in/out channel dims swapped;
* **max pooling** is the ``maximum`` over the offsets' windows of the input padded with its own minimum
  (which changes no window's maximum as long as every window holds an input element, as torch requires);
  **average pooling** the ``sum`` of the windows divided by the window's element count, itself the window
  sum of a mask of ones when it varies (``count_include_pad=False``, ``ceil_mode``); **adaptive pooling**
  is a mean or maximum when the output size is 1, and ordinary pooling when it divides the input size;
* **batch, group and instance norm** are ``(x - mean) * rsqrt(var + eps) * weight + bias`` with the
  statistics of the normalised dims (biased variance), or the running statistics in eval mode;
* ``logsumexp`` is ``m + log(sum(exp(x - m)))`` with ``m`` the maximum; ``mish``, ``hardswish``,
  ``hardsigmoid``, ``elu``/``selu``/``celu`` their formulas; ``einsum`` products of permuted, unsqueezed
  operands summed over the contracted letters; ``scaled_dot_product_attention`` ``softmax(q @ k^T *
  scale + mask) @ v``; ``pad`` a ``cat`` with constant blocks; ``flip`` an ``index_select`` at reversed
  indices; ``roll`` a ``cat`` of two slices; the smooth-L1, Huber, KL-divergence and triplet-margin
  losses their formulas.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from larkc.reference.shapes import as_int, mk_add, mk_mul, mk_sub, product, simplify
from larkc.reference.spec import Absent, AttrValue, Operand, Ref, Scalar, SpecOp
from larkc.tasks.shape_expr import ShapeExpr, ShapeNum

if TYPE_CHECKING:
    from larkc.reference.trace import Converter

__all__ = ["NN_HANDLERS"]

Handler = Callable[["Converter", torch.fx.Node], None]


def _bound(node: torch.fx.Node) -> dict[str, Any]:
    from larkc.reference.aten import bound

    return bound(node)


def _name(node: torch.fx.Node) -> str:
    from larkc.reference.aten import aten_name

    return aten_name(node.target)


def _ints(value: Any, count: int, what: str, c: Converter, n: torch.fx.Node) -> tuple[int, ...]:
    """An int or a list of ints (one, or one per spatial dim) as ``count`` ints."""
    vals = [value] if isinstance(value, int) else list(value)
    if len(vals) == 1:
        vals = vals * count
    if len(vals) != count or not all(isinstance(v, int) for v in vals):
        raise c.error(n, f"unsupported {what} {value!r} in {_name(n)} (expected {count} integers)")
    return tuple(int(v) for v in vals)


def _set(shape: Sequence[ShapeExpr], dim: int, size: ShapeExpr) -> tuple[ShapeExpr, ...]:
    out = list(shape)
    out[dim] = size
    return tuple(out)


def _full_like(c: Converter, n: torch.fx.Node, x: Ref, shape: Sequence[ShapeExpr], value: float) -> Ref:
    typ = c.type_of(x)
    fill: int | float | bool = value
    if typ.dtype.is_bool:
        fill = bool(value)
    elif not typ.dtype.is_float:
        fill = int(value)
    attrs: list[tuple[str, AttrValue]] = [("shape", tuple(shape)), ("value", fill)]
    return c.emit(n, SpecOp.FULL, [], attrs, dtype=typ.dtype, suffix="_fill")


def _slice(c: Converter, n: torch.fx.Node, x: Ref, dim: int, start: ShapeExpr, end: ShapeExpr, step: int) -> Ref:
    size = c.type_of(x).shape[dim]
    if step == 1 and as_int(start) == 0 and simplify(end) == simplify(size):
        return x
    attrs: list[tuple[str, AttrValue]] = [("dim", dim), ("start", simplify(start)), ("end", simplify(end))]
    attrs.append(("step", step))
    return c.emit(n, SpecOp.SLICE, [x], attrs, suffix="_win")


def _pad_dim(c: Converter, n: torch.fx.Node, x: Ref, dim: int, left: int, right: int, fill: Operand) -> Ref:
    """``x`` with ``left``/``right`` elements of ``fill`` (a number, or a 0-d tensor) added along ``dim``; a
    negative amount removes elements."""
    shape = c.type_of(x).shape
    if left < 0 or right < 0:
        start = ShapeNum(max(-left, 0))
        end = simplify(mk_sub(shape[dim], ShapeNum(max(-right, 0))))
        x = _slice(c, n, x, dim, start, end, 1)
        left, right = max(left, 0), max(right, 0)
        shape = c.type_of(x).shape
    if left == 0 and right == 0:
        return x
    parts: list[Operand] = []
    for amount in (left, right):
        block_shape = _set(shape, dim, ShapeNum(amount))
        if amount == 0:
            parts.append(Scalar(0))  # placeholder, dropped below
        elif isinstance(fill, Ref):
            parts.append(c.emit(n, SpecOp.EXPAND, [fill], [("shape", block_shape)], suffix="_pad"))
        else:
            assert isinstance(fill, Scalar) and isinstance(fill.value, int | float)
            parts.append(_full_like(c, n, x, block_shape, float(fill.value)))
    pieces = [p for p, amount in zip(parts, (left, right), strict=True) if amount]
    ordered = ([pieces[0]] if left else []) + [x] + ([pieces[-1]] if right else [])
    return c.emit(n, SpecOp.CAT, ordered, [("dim", dim)], suffix="_padded")


def _reshape(c: Converter, n: torch.fx.Node, x: Ref, shape: Sequence[ShapeExpr], suffix: str = "_r") -> Ref:
    have = c.type_of(x).shape
    if len(have) == len(shape) and all(simplify(a) == simplify(b) for a, b in zip(have, shape, strict=True)):
        return x
    return c.emit(n, SpecOp.RESHAPE, [x], [("shape", tuple(shape))], suffix=suffix)


# Windows ---------------------------------------------------------------------------------------------


class _Windows:
    """The strided windows of a padded tensor, one per kernel offset, with shared slice prefixes."""

    def __init__(
        self,
        c: Converter,
        n: torch.fx.Node,
        x: Ref,
        first: int,
        out: Sequence[ShapeExpr],
        stride: Sequence[int],
        dilation: Sequence[int],
    ) -> None:
        self.c, self.n, self.x, self.first = c, n, x, first
        self.out, self.stride, self.dilation = out, stride, dilation
        self.cache: dict[tuple[int, ...], Ref] = {(): x}

    def at(self, offset: tuple[int, ...]) -> Ref:
        if offset in self.cache:
            return self.cache[offset]
        prev = self.at(offset[:-1])
        i = len(offset) - 1
        start = ShapeNum(offset[i] * self.dilation[i])
        span = mk_add(mk_mul(mk_sub(self.out[i], ShapeNum(1)), ShapeNum(self.stride[i])), ShapeNum(1))
        win = _slice(self.c, self.n, prev, self.first + i, start, mk_add(start, span), self.stride[i])
        self.cache[offset] = win
        return win


def _out_sizes(c: Converter, n: torch.fx.Node, spatial: int) -> tuple[ShapeExpr, ...]:
    shape = c.meta_type(n, 0 if isinstance(n.meta.get("val"), list | tuple) else None).shape
    return shape[len(shape) - spatial :]


# Convolution ---------------------------------------------------------------------------------------


def _conv_core(
    c: Converter,
    n: torch.fx.Node,
    x: Ref,
    weight_at: Callable[[tuple[int, ...]], Ref],
    kernel: Sequence[int],
    groups: int,
    out_channels: ShapeExpr,
    out: Sequence[ShapeExpr],
    dilation: Sequence[int],
    stride: Sequence[int],
) -> Ref:
    """``sum_offset weight_at(offset) @ window(offset)`` for a padded input ``x`` ``[N, C, *S]``;
    ``weight_at`` gives ``[G, O/G, C/G]`` (or ``[O, C]`` when ``groups == 1``). Result ``[N, O, *out]``."""
    xt = c.type_of(x)
    spatial = len(kernel)
    lead = xt.shape[: xt.rank - spatial - 1]
    channels = xt.shape[xt.rank - spatial - 1]
    positions = simplify(product(out))
    windows = _Windows(c, n, x, xt.rank - spatial, out, stride, dilation)
    total: Ref | None = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        win = windows.at(offset)
        if groups == 1:
            cols = _reshape(c, n, win, (*lead, channels, positions), "_cols")
        else:
            per = simplify(_div(channels, groups))
            cols = _reshape(c, n, win, (*lead, ShapeNum(groups), per, positions), "_cols")
        term = c.emit(n, SpecOp.MATMUL, [weight_at(offset), cols], suffix="_tap")
        total = term if total is None else c.emit(n, SpecOp.ADD, [total, term], suffix="_acc")
    assert total is not None
    return _reshape(c, n, total, (*lead, out_channels, *out), "_out")


def _div(a: ShapeExpr, k: int) -> ShapeExpr:
    from larkc.reference.shapes import mk_floordiv

    return mk_floordiv(a, ShapeNum(k))


def _conv_weight(
    c: Converter, n: torch.fx.Node, w: Ref, groups: int, transposed: bool
) -> Callable[[tuple[int, ...]], Ref]:
    """The weight's ``[O, C]`` (``[G, O/G, C/G]``) matrix at each kernel offset; a transposed convolution's
    weight ``[C, O/G, *k]`` is read flipped and with its channel dims swapped."""
    wt = c.type_of(w)
    kernel = [as_int(k) for k in wt.shape[2:]]
    cache: dict[tuple[int, ...], Ref] = {}
    picked: dict[tuple[int, ...], Ref] = {(): w}  # the weight at a prefix of the offset (shared selects)

    def pick(offset: tuple[int, ...]) -> Ref:
        if offset not in picked:
            k = kernel[len(offset) - 1]
            assert k is not None
            idx = k - 1 - offset[-1] if transposed else offset[-1]
            attrs: list[tuple[str, AttrValue]] = [("dim", 2), ("index", ShapeNum(idx))]
            picked[offset] = c.emit(n, SpecOp.SELECT, [pick(offset[:-1])], attrs, suffix="_tap_w")
        return picked[offset]

    def at(offset: tuple[int, ...]) -> Ref:
        if offset in cache:
            return cache[offset]
        m = pick(offset)
        d0, d1 = c.type_of(m).shape
        if transposed:  # [C, O/G] -> [G, O/G, C/G]
            if groups == 1:
                m = c.emit(n, SpecOp.TRANSPOSE, [m], [("dim0", 0), ("dim1", 1)], suffix="_tap_wt")
            else:
                m = _reshape(c, n, m, (ShapeNum(groups), simplify(_div(d0, groups)), d1), "_tap_wg")
                m = c.emit(n, SpecOp.TRANSPOSE, [m], [("dim0", 1), ("dim1", 2)], suffix="_tap_wt")
        elif groups > 1:  # [O, C/G] -> [G, O/G, C/G]
            m = _reshape(c, n, m, (ShapeNum(groups), simplify(_div(d0, groups)), d1), "_tap_wg")
        cache[offset] = m
        return m

    return at


def _dilate(c: Converter, n: torch.fx.Node, x: Ref, dim: int, stride: int) -> Ref:
    """``stride - 1`` zeros between consecutive elements of ``x`` along ``dim``."""
    if stride == 1:
        return x
    shape = c.type_of(x).shape
    size = shape[dim]
    col = c.emit(n, SpecOp.UNSQUEEZE, [x], [("dim", dim + 1)], suffix="_col")
    zeros = _full_like(c, n, x, (*shape[: dim + 1], ShapeNum(stride - 1), *shape[dim + 1 :]), 0.0)
    both = c.emit(n, SpecOp.CAT, [col, zeros], [("dim", dim + 1)], suffix="_spread")
    flat = _reshape(c, n, both, (*shape[:dim], simplify(mk_mul(size, ShapeNum(stride))), *shape[dim + 1 :]))
    end = simplify(mk_add(mk_mul(mk_sub(size, ShapeNum(1)), ShapeNum(stride)), ShapeNum(1)))
    return _slice(c, n, flat, dim, ShapeNum(0), end, 1)


def _convolution(
    c: Converter,
    n: torch.fx.Node,
    x: Ref,
    w: Ref,
    bias: Operand,
    stride: Any,
    padding: Any,
    dilation: Any,
    transposed: bool,
    output_padding: Any,
    groups: int,
) -> Ref:
    xt, wt = c.type_of(x), c.type_of(w)
    spatial = wt.rank - 2
    if spatial < 1 or xt.rank not in (spatial + 1, spatial + 2):
        raise c.error(n, f"unsupported {_name(n)} of a rank-{xt.rank} input with a rank-{wt.rank} weight")
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        else:
            raise c.error(n, f"unsupported {_name(n)} with padding={padding!r} (give the padding in numbers)")
    stride_ = _ints(stride, spatial, "stride", c, n)
    padding_ = _ints(padding, spatial, "padding", c, n)
    dilation_ = _ints(dilation, spatial, "dilation", c, n)
    out_pad = _ints(output_padding, spatial, "output_padding", c, n)
    kernel = [as_int(k) for k in wt.shape[2:]]
    if any(k is None for k in kernel):
        raise c.error(n, f"unsupported {_name(n)} with a symbolic kernel size")
    ks = [int(k) for k in kernel if k is not None]
    first = xt.rank - spatial
    out = _out_sizes(c, n, spatial)
    if transposed:
        out_channels = simplify(mk_mul(wt.shape[1], ShapeNum(groups)))
        for i in range(spatial):
            x = _dilate(c, n, x, first + i, stride_[i])
            edge = dilation_[i] * (ks[i] - 1) - padding_[i]
            x = _pad_dim(c, n, x, first + i, edge, edge + out_pad[i], Scalar(0))
        stride_ = tuple(1 for _ in range(spatial))
    else:
        out_channels = wt.shape[0]
        for i in range(spatial):
            x = _pad_dim(c, n, x, first + i, padding_[i], padding_[i], Scalar(0))
    weight_at = _conv_weight(c, n, w, groups, transposed)
    y = _conv_core(c, n, x, weight_at, ks, groups, out_channels, out, dilation_, stride_)
    if isinstance(bias, Ref):
        b = _reshape(c, n, bias, (out_channels, *(ShapeNum(1) for _ in range(spatial))), "_bias")
        y = c.emit(n, SpecOp.ADD, [y, b], suffix="_biased")
    return y


def _conv(transposed: bool | None) -> Handler:
    """conv{1,2,3}d (``transposed=False``), conv_transpose{1,2,3}d (``True``) and aten.convolution (None:
    the node says)."""

    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = _bound(n)
        x, w = c.tensor(a["input"], n), c.tensor(a["weight"], n)
        bias = c.operand(a.get("bias"), n)
        is_t = bool(a["transposed"]) if transposed is None else transposed
        output_padding = a.get("output_padding", 0) if is_t else 0
        dilation = a.get("dilation", 1)
        y = _convolution(c, n, x, w, bias, a["stride"], a["padding"], dilation, is_t, output_padding, int(a["groups"]))
        c.bind(n, y)

    return handle


# Pooling -------------------------------------------------------------------------------------------


def _window_reduce(
    c: Converter,
    n: torch.fx.Node,
    x: Ref,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    out: Sequence[ShapeExpr],
    fill: Operand,
    op: SpecOp,
) -> Ref:
    """``op`` (add or maximum) over the windows of ``x`` padded with ``fill`` (and on the right as far as
    ``ceil_mode``'s last windows reach)."""
    xt = c.type_of(x)
    spatial = len(kernel)
    first = xt.rank - spatial
    for i in range(spatial):
        size = as_int(xt.shape[first + i])
        last = as_int(out[i])
        right = padding[i]
        if size is not None and last is not None:
            needed = (last - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
            right = max(right, needed - size - padding[i])
        x = _pad_dim(c, n, x, first + i, padding[i], right, fill)
    windows = _Windows(c, n, x, first, out, stride, dilation)
    total: Ref | None = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        win = windows.at(offset)
        total = win if total is None else c.emit(n, op, [total, win], suffix="_acc")
    assert total is not None
    return total


def _pool_args(c: Converter, n: torch.fx.Node, spatial: int) -> tuple[tuple[int, ...], ...]:
    a = _bound(n)
    kernel = _ints(a["kernel_size"], spatial, "kernel_size", c, n)
    stride_v = a.get("stride")
    stride = kernel if not stride_v else _ints(stride_v, spatial, "stride", c, n)
    padding = _ints(a.get("padding", 0), spatial, "padding", c, n)
    dilation = _ints(a.get("dilation", 1), spatial, "dilation", c, n)
    return kernel, stride, padding, dilation


def _max_pool(spatial: int) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = _bound(n)
        x = c.tensor(a["self"], n)
        kernel, stride, padding, dilation = _pool_args(c, n, spatial)
        out = _out_sizes(c, n, spatial)
        fill: Operand = Scalar(0)
        if any(padding) or a.get("ceil_mode"):
            # the tensor's own minimum: no window's maximum changes (every window holds an input element)
            dims = tuple(range(c.rank(x)))
            low = c.emit(n, SpecOp.AMIN, [x], [("dims", dims), ("keepdim", False)], suffix="_low")
            fill = low
        y = _window_reduce(c, n, x, kernel, stride, padding, dilation, out, fill, SpecOp.MAXIMUM)
        if _name(n).startswith("aten.max_pool") and "with_indices" in _name(n):
            c.env[n] = (c.finish(n, y, 0), None)
        else:
            c.bind(n, y)

    return handle


def _avg_pool(spatial: int) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = _bound(n)
        x = c.tensor(a["self"], n)
        kernel, stride, padding, _ = _pool_args(c, n, spatial)
        dilation = tuple(1 for _ in kernel)
        out = _out_sizes(c, n, spatial)
        total = _window_reduce(c, n, x, kernel, stride, padding, dilation, out, Scalar(0), SpecOp.ADD)
        override = a.get("divisor_override")
        include_pad = a.get("count_include_pad", True)
        ceil = bool(a.get("ceil_mode"))
        if override:
            c.bind(n, c.emit(n, SpecOp.DIV, [total, Scalar(int(override))]))
            return
        if not ceil and (include_pad or not any(padding)):
            c.bind(n, c.emit(n, SpecOp.DIV, [total, Scalar(math.prod(kernel))]))
            return
        # the element count of each window: the window sum of a mask (1 on the input and, with
        # count_include_pad, on the padding; 0 beyond, where ceil_mode's last windows reach)
        xt = c.type_of(x)
        first = xt.rank - spatial
        ones = _full_like(c, n, x, xt.shape[first:], 1.0)
        if include_pad:
            for i in range(spatial):
                ones = _pad_dim(c, n, ones, i, padding[i], padding[i], Scalar(1))
            padding = tuple(0 for _ in padding)
        count = _window_reduce(c, n, ones, kernel, stride, padding, dilation, out, Scalar(0), SpecOp.ADD)
        c.bind(n, c.emit(n, SpecOp.DIV, [total, count]))

    return handle


def _adaptive_pool(spatial: int, is_max: bool) -> Handler:
    def handle(c: Converter, n: torch.fx.Node) -> None:
        a = _bound(n)
        x = c.tensor(a["self"], n)
        xt = c.type_of(x)
        first = xt.rank - spatial
        sizes = [as_int(s) for s in xt.shape[first:]]
        out = _out_sizes(c, n, spatial)
        outs = [as_int(o) for o in out]
        if all(o == 1 for o in outs):
            op = SpecOp.AMAX if is_max else SpecOp.MEAN
            dims = tuple(range(first, xt.rank))
            y = c.emit(n, op, [x], [("dims", dims), ("keepdim", True)])
        elif all(s is not None and o is not None and s % o == 0 for s, o in zip(sizes, outs, strict=True)):
            kernel = [int(s) // int(o) for s, o in zip(sizes, outs, strict=True) if s is not None and o is not None]
            zero = tuple(0 for _ in kernel)
            one = tuple(1 for _ in kernel)
            op = SpecOp.MAXIMUM if is_max else SpecOp.ADD
            y = _window_reduce(c, n, x, kernel, kernel, zero, one, out, Scalar(0), op)
            if not is_max:
                y = c.emit(n, SpecOp.DIV, [y, Scalar(math.prod(kernel))])
        else:
            shown = "x".join(str(s) for s in xt.shape[first:])
            raise c.error(
                n, f"unsupported op {_name(n)} with output size not dividing the input size ({shown}) in reference"
            )
        if is_max:
            c.env[n] = (c.finish(n, y, 0), None)
        else:
            c.bind(n, y)

    return handle


# Normalisation -------------------------------------------------------------------------------------


def _channel(c: Converter, n: torch.fx.Node, v: Ref, rank: int) -> Ref:
    """A per-channel vector ``[C]`` shaped ``[C, 1, ...]`` to broadcast against ``[N, C, *S]``."""
    (size,) = c.type_of(v).shape
    return _reshape(c, n, v, (size, *(ShapeNum(1) for _ in range(rank - 2))), "_ch")


def _normalise(
    c: Converter, n: torch.fx.Node, x: Ref, mean: Ref, var: Ref, eps: float, weight: Operand, bias: Operand
) -> Ref:
    """``(x - mean) * rsqrt(var + eps) * weight + bias`` (weight and bias per channel, may be absent)."""
    rank = c.rank(x)
    centred = c.emit(n, SpecOp.SUB, [x, mean], suffix="_centred")
    inv = c.emit(n, SpecOp.RSQRT, [c.emit(n, SpecOp.ADD, [var, Scalar(eps)], suffix="_var_eps")], suffix="_inv")
    y = c.emit(n, SpecOp.MUL, [centred, inv], suffix="_normed")
    if isinstance(weight, Ref):
        y = c.emit(n, SpecOp.MUL, [y, _channel(c, n, weight, rank)], suffix="_scaled")
    if isinstance(bias, Ref):
        y = c.emit(n, SpecOp.ADD, [y, _channel(c, n, bias, rank)], suffix="_shifted")
    return y


def _stats(c: Converter, n: torch.fx.Node, x: Ref, dims: tuple[int, ...]) -> tuple[Ref, Ref]:
    attrs: list[tuple[str, AttrValue]] = [("dims", dims), ("keepdim", True)]
    mean = c.emit(n, SpecOp.MEAN, [x], attrs, suffix="_mean")
    var = c.emit(n, SpecOp.VAR, [x], [("dims", dims), ("correction", 0), ("keepdim", True)], suffix="_var")
    return mean, var


def _batch_norm(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    name = _name(n)
    x = c.tensor(a["input"], n)
    rank = c.rank(x)
    if rank < 2:
        raise c.error(n, f"unsupported {name} of a rank-{rank} input")
    training = bool(a.get("training")) and "no_training" not in name
    running = a.get("running_mean"), a.get("running_var")
    if training or running[0] is None:
        mean, var = _stats(c, n, x, (0, *range(2, rank)))
    else:
        mean = _channel(c, n, c.tensor(running[0], n), rank)
        var = _channel(c, n, c.tensor(running[1], n), rank)
    y = _normalise(c, n, x, mean, var, float(a["eps"]), c.operand(a["weight"], n), c.operand(a["bias"], n))
    if name == "aten.batch_norm.default":
        c.bind(n, y)
        return
    results = n.meta.get("val")
    assert isinstance(results, list | tuple)
    c.env[n] = (c.finish(n, y, 0), *(None for _ in results[1:]))


def _instance_norm(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    x = c.tensor(a["input"], n)
    rank = c.rank(x)
    if not a["use_input_stats"]:
        raise c.error(n, "unsupported op aten.instance_norm with running statistics (use_input_stats=False)")
    if rank < 3:
        raise c.error(n, f"unsupported instance_norm of a rank-{rank} input")
    mean, var = _stats(c, n, x, tuple(range(2, rank)))
    y = _normalise(c, n, x, mean, var, float(a["eps"]), c.operand(a["weight"], n), c.operand(a["bias"], n))
    c.bind(n, y)


def _group_norm(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    x = c.tensor(a["input"], n)
    groups = int(a["num_groups"] if "num_groups" in a else a["group"])
    shape = c.type_of(x).shape
    if len(shape) < 2:
        raise c.error(n, f"unsupported group_norm of a rank-{len(shape)} input")
    per = simplify(product([_div(shape[1], groups), *shape[2:]]))
    rows = _reshape(c, n, x, (shape[0], ShapeNum(groups), per), "_groups")
    mean, var = _stats(c, n, rows, (2,))
    centred = c.emit(n, SpecOp.SUB, [rows, mean], suffix="_centred")
    inv = c.emit(n, SpecOp.RSQRT, [c.emit(n, SpecOp.ADD, [var, Scalar(float(a["eps"]))], suffix="_var_eps")])
    y = _reshape(c, n, c.emit(n, SpecOp.MUL, [centred, inv], suffix="_normed"), shape, "_back")
    weight, bias = c.operand(a["weight"], n), c.operand(a["bias"], n)
    if isinstance(weight, Ref):
        y = c.emit(n, SpecOp.MUL, [y, _channel(c, n, weight, len(shape))], suffix="_scaled")
    if isinstance(bias, Ref):
        y = c.emit(n, SpecOp.ADD, [y, _channel(c, n, bias, len(shape))], suffix="_shifted")
    if _name(n) == "aten.native_group_norm.default":
        c.env[n] = (c.finish(n, y, 0), None, None)
    else:
        c.bind(n, y)


# Activations and small composites -------------------------------------------------------------------


def _mish(c: Converter, n: torch.fx.Node) -> None:
    x = c.tensor(_bound(n)["self"], n)
    sp = c.emit(n, SpecOp.SOFTPLUS, [x], [("beta", 1.0), ("threshold", 20.0)], suffix="_softplus")
    c.bind(n, c.emit(n, SpecOp.MUL, [x, c.emit(n, SpecOp.TANH, [sp], suffix="_tanh")]))


def _hard_gate(c: Converter, n: torch.fx.Node, x: Ref) -> Ref:
    """``clamp(x + 3, 0, 6) / 6``."""
    shifted = c.emit(n, SpecOp.ADD, [x, Scalar(3)], suffix="_plus3")
    clamped = c.emit(n, SpecOp.CLAMP, [shifted, Scalar(0), Scalar(6)], suffix="_clamp")
    return c.emit(n, SpecOp.DIV, [clamped, Scalar(6)], suffix="_gate")


def _hardsigmoid(c: Converter, n: torch.fx.Node) -> None:
    c.bind(n, _hard_gate(c, n, c.tensor(_bound(n)["self"], n)))


def _hardswish(c: Converter, n: torch.fx.Node) -> None:
    x = c.tensor(_bound(n)["self"], n)
    c.bind(n, c.emit(n, SpecOp.MUL, [x, _hard_gate(c, n, x)]))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _elu_of(c: Converter, n: torch.fx.Node, x: Ref, alpha: float, scale: float, input_scale: float) -> Ref:
    """``scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1))``."""
    pos = c.emit(n, SpecOp.GT, [x, Scalar(0)], suffix="_pos")
    inner: Ref = x if input_scale == 1 else c.emit(n, SpecOp.MUL, [x, Scalar(input_scale)], suffix="_in")
    em1 = c.emit(n, SpecOp.SUB, [c.emit(n, SpecOp.EXP, [inner], suffix="_exp"), Scalar(1)], suffix="_em1")
    neg = c.emit(n, SpecOp.MUL, [em1, Scalar(alpha)], suffix="_neg")
    y = c.emit(n, SpecOp.WHERE, [pos, x, neg], suffix="_sel")
    return y if scale == 1 else c.emit(n, SpecOp.MUL, [y, Scalar(scale)], suffix="_scale")


def _elu(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    x = c.tensor(a["self"], n)
    name = _name(n)
    if name.startswith("aten.selu"):
        y = _elu_of(c, n, x, _SELU_ALPHA, _SELU_SCALE, 1.0)
    elif name.startswith("aten.celu"):
        alpha = float(a["alpha"])
        y = _elu_of(c, n, x, alpha, 1.0, 1.0 / alpha)
    else:
        y = _elu_of(c, n, x, float(a["alpha"]), float(a["scale"]), float(a["input_scale"]))
    c.bind(n, y)


def _logsumexp(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    x = c.tensor(a["self"], n)
    from larkc.reference.aten import _dims

    dims = _dims(a["dim"], c.rank(x))
    keep = bool(a["keepdim"])
    m = c.emit(n, SpecOp.AMAX, [x], [("dims", dims), ("keepdim", True)], suffix="_max")
    e = c.emit(n, SpecOp.EXP, [c.emit(n, SpecOp.SUB, [x, m], suffix="_shift")], suffix="_exp")
    s = c.emit(n, SpecOp.SUM, [e], [("dims", dims), ("keepdim", keep)], suffix="_sum")
    mk = m if keep else c.emit(n, SpecOp.SQUEEZE, [m], [("dims", dims)], suffix="_max_sq")
    c.bind(n, c.emit(n, SpecOp.ADD, [c.emit(n, SpecOp.LOG, [s], suffix="_log"), mk]))


def _numpy_t(c: Converter, n: torch.fx.Node) -> None:
    x = c.tensor(_bound(n)["self"], n)
    rank = c.rank(x)
    if rank < 2:
        c.env[n] = c.finish(n, x)
        return
    c.bind(n, c.emit(n, SpecOp.PERMUTE, [x], [("dims", tuple(range(rank - 1, -1, -1)))]))


def _pad(c: Converter, n: torch.fx.Node) -> None:
    a = _bound(n)
    x = c.tensor(a["self"], n)
    mode = a.get("mode", "constant")
    if mode != "constant":
        raise c.error(n, f"unsupported op {_name(n)} with mode={mode!r} in reference")
    pads = [int(p) for p in a["pad"]]
    value = a.get("value")
    fill = Scalar(0.0 if value is None else float(value))
    rank = c.rank(x)
    for i in range(len(pads) // 2):
        x = _pad_dim(c, n, x, rank - 1 - i, pads[2 * i], pads[2 * i + 1], fill)
    c.bind(n, x)


def _einsum(c: Converter, n: torch.fx.Node) -> None:
    """Each operand permuted and unsqueezed to the letters of all operands (output letters first), their
    product, summed over the contracted letters."""
    a = _bound(n)
    equation = str(a["equation"]).replace(" ", "")
    ops = [c.tensor(t, n) for t in a["tensors"]]
    if "..." in equation or "->" not in equation:
        raise c.error(n, f"unsupported einsum equation {equation!r} (use explicit letters and '->')")
    lhs, out = equation.split("->")
    specs = lhs.split(",")
    if len(specs) != len(ops) or any(len(set(s)) != len(s) for s in specs):
        raise c.error(n, f"unsupported einsum equation {equation!r} (a letter repeated within an operand)")
    letters = list(out) + sorted({ch for s in specs for ch in s} - set(out))
    product_: Ref | None = None
    for spec, t in zip(specs, ops, strict=True):
        if len(spec) != c.rank(t):
            raise c.error(n, f"einsum operand {spec!r} of rank {c.rank(t)}")
        order = sorted(range(len(spec)), key=lambda i: letters.index(spec[i]))
        if order != list(range(len(spec))):
            t = c.emit(n, SpecOp.PERMUTE, [t], [("dims", tuple(order))], suffix="_perm")
        present = sorted(letters.index(ch) for ch in spec)
        for pos in range(len(letters)):
            if pos not in present:
                t = c.emit(n, SpecOp.UNSQUEEZE, [t], [("dim", pos)], suffix="_unsq")
        product_ = t if product_ is None else c.emit(n, SpecOp.MUL, [product_, t], suffix="_prod")
    assert product_ is not None
    contracted = tuple(range(len(out), len(letters)))
    if contracted:
        y = c.emit(n, SpecOp.SUM, [product_], [("dims", contracted), ("keepdim", False)])
    else:
        y = product_
    want = c.meta_type(n).shape
    if c.type_of(y).shape != want:
        y = c.emit(n, SpecOp.EXPAND, [y], [("shape", want)], suffix="_expand")
    c.bind(n, y)


def _sdpa(c: Converter, n: torch.fx.Node) -> None:
    """``softmax(q @ k^T * scale + mask) @ v``; a causal mask keeps ``key <= query`` (``tril``)."""
    a = _bound(n)
    q, k, v = (c.tensor(a[name], n) for name in ("query", "key", "value"))
    if a.get("dropout_p"):
        raise c.error(n, "unsupported scaled_dot_product_attention with dropout in reference (dropout is random)")
    if a.get("enable_gqa"):
        raise c.error(n, "unsupported scaled_dot_product_attention with enable_gqa in reference")
    qt, kt = c.type_of(q), c.type_of(k)
    scale = a.get("scale")
    if scale is None:
        e = as_int(qt.shape[-1])
        if e is None:
            raise c.error(n, "unsupported scaled_dot_product_attention with a symbolic head size and no scale")
        scale = 1.0 / math.sqrt(e)
    rank = kt.rank
    k_t = c.emit(n, SpecOp.TRANSPOSE, [k], [("dim0", rank - 2), ("dim1", rank - 1)], suffix="_kT")
    scores = c.emit(n, SpecOp.MATMUL, [q, k_t], suffix="_scores")
    scores = c.emit(n, SpecOp.MUL, [scores, Scalar(float(scale))], suffix="_scaled")
    mask = c.operand(a.get("attn_mask"), n)
    if a.get("is_causal"):
        queries, keys = c.type_of(scores).shape[-2:]
        ones = c.emit(n, SpecOp.FULL, [], [("shape", (queries, keys)), ("value", True)], dtype=_bool(), suffix="_ones")
        keep = c.emit(n, SpecOp.TRIL, [ones], [("diagonal", 0)], suffix="_causal")
        scores = c.emit(n, SpecOp.WHERE, [keep, scores, Scalar(float("-inf"))], suffix="_masked")
    if isinstance(mask, Ref):
        if c.type_of(mask).dtype.is_bool:
            scores = c.emit(n, SpecOp.WHERE, [mask, scores, Scalar(float("-inf"))], suffix="_masked")
        else:
            scores = c.emit(n, SpecOp.ADD, [scores, mask], suffix="_masked")
    weights = c.emit(n, SpecOp.SOFTMAX, [scores], [("dim", rank - 1)], suffix="_weights")
    c.bind(n, c.emit(n, SpecOp.MATMUL, [weights, v]))


def _flip(c: Converter, n: torch.fx.Node) -> None:
    """``index_select`` along each flipped dim at ``size - 1 - arange(size)``."""
    from larkc.ir.types import I64
    from larkc.reference.aten import _dims

    a = _bound(n)
    x = c.tensor(a["self"], n)
    for dim in _dims(a["dims"], c.rank(x)) if a["dims"] else ():
        size = c.type_of(x).shape[dim]
        attrs: list[tuple[str, AttrValue]] = [("start", ShapeNum(0)), ("end", size), ("step", 1)]
        ramp = c.emit(n, SpecOp.ARANGE, [], attrs, dtype=I64, suffix="_ramp")
        last = simplify(mk_sub(size, ShapeNum(1)))
        last_int = as_int(last)
        rev = c.emit(n, SpecOp.SUB, [Scalar(last if last_int is None else last_int), ramp], suffix="_rev")
        x = c.emit(n, SpecOp.INDEX_SELECT, [x, rev], [("dim", dim)], suffix="_flip")
    c.env[n] = c.finish(n, x)


def _roll(c: Converter, n: torch.fx.Node) -> None:
    """``cat`` of the last ``shift`` elements and the others, per rolled dim (no dims: of the flattened
    tensor, reshaped back)."""
    a = _bound(n)
    x = c.tensor(a["self"], n)
    shape = c.type_of(x).shape
    shifts, dims = list(a["shifts"]), list(a["dims"] or [])
    flat = not dims
    if flat:
        x = _reshape(c, n, x, (simplify(product(shape)),), "_flat")
        dims = [0]
    if len(shifts) != len(dims):
        raise c.error(n, f"unsupported roll with shifts {shifts} and dims {dims}")
    from larkc.reference.aten import _dim

    for shift, d in zip(shifts, dims, strict=True):
        dim = _dim(int(d), c.rank(x))
        size = as_int(c.type_of(x).shape[dim])
        if size is None or not isinstance(shift, int):
            raise c.error(n, "unsupported roll of a symbolic size or by a symbolic shift in reference")
        k = shift % size if size else 0
        if k == 0:
            continue
        tail = _slice(c, n, x, dim, ShapeNum(size - k), ShapeNum(size), 1)
        head = _slice(c, n, x, dim, ShapeNum(0), ShapeNum(size - k), 1)
        x = c.emit(n, SpecOp.CAT, [tail, head], [("dim", dim)], suffix="_rolled")
    if flat:
        x = _reshape(c, n, x, shape, "_back")
    c.env[n] = c.finish(n, x)


def _reduction(c: Converter, n: torch.fx.Node, loss: Ref, reduction: int) -> Ref:
    """torch's loss reduction: 0 none, 1 mean, 2 sum (over every dim)."""
    if reduction == 0:
        return loss
    op = SpecOp.MEAN if reduction == 1 else SpecOp.SUM
    return c.emit(n, op, [loss], [("dims", tuple(range(c.rank(loss)))), ("keepdim", False)])


def _smooth_l1(c: Converter, n: torch.fx.Node) -> None:
    """``smooth_l1_loss`` (beta) and ``huber_loss`` (delta): quadratic below the bound, linear above."""
    a = _bound(n)
    d = c.emit(n, SpecOp.SUB, [c.tensor(a["self"], n), c.tensor(a["target"], n)], suffix="_diff")
    ad = c.emit(n, SpecOp.ABS, [d], suffix="_abs")
    huber = _name(n).startswith("aten.huber_loss")
    bound_ = float(a["delta"] if huber else a["beta"])
    if bound_ == 0 and not huber:
        c.bind(n, _reduction(c, n, ad, int(a["reduction"])))
        return
    sq = c.emit(n, SpecOp.MUL, [c.emit(n, SpecOp.POW, [d, Scalar(2)], suffix="_sq"), Scalar(0.5)], suffix="_half")
    lin = c.emit(n, SpecOp.SUB, [ad, Scalar(0.5 * bound_)], suffix="_lin")
    if huber:
        lin = c.emit(n, SpecOp.MUL, [lin, Scalar(bound_)], suffix="_lin_scaled")
    else:
        sq = c.emit(n, SpecOp.DIV, [sq, Scalar(bound_)], suffix="_quad")
    small = c.emit(n, SpecOp.LT, [ad, Scalar(bound_)], suffix="_small")
    loss = c.emit(n, SpecOp.WHERE, [small, sq, lin], suffix="_loss")
    c.bind(n, _reduction(c, n, loss, int(a["reduction"])))


def _kl_div(c: Converter, n: torch.fx.Node) -> None:
    """``target * (log(target) - input)`` (0 where target is 0, as torch's xlogy), or with a log target
    ``exp(target) * (target - input)``; then the reduction (``batchmean`` is a sum here, divided by the batch
    size in torch's Python)."""
    a = _bound(n)
    x, t = c.tensor(a["self"], n), c.tensor(a["target"], n)
    if a["log_target"]:
        diff = c.emit(n, SpecOp.SUB, [t, x], suffix="_diff")
        loss = c.emit(n, SpecOp.MUL, [c.emit(n, SpecOp.EXP, [t], suffix="_p"), diff], suffix="_loss")
    else:
        tlogt = c.emit(n, SpecOp.MUL, [t, c.emit(n, SpecOp.LOG, [t], suffix="_log")], suffix="_tlogt")
        zero = c.emit(n, SpecOp.EQ, [t, Scalar(0)], suffix="_zero")
        xlogy = c.emit(n, SpecOp.WHERE, [zero, Scalar(0.0), tlogt], suffix="_xlogy")
        loss = c.emit(n, SpecOp.SUB, [xlogy, c.emit(n, SpecOp.MUL, [t, x], suffix="_tx")], suffix="_loss")
    c.bind(n, _reduction(c, n, loss, int(a["reduction"])))


def _triplet_margin(c: Converter, n: torch.fx.Node) -> None:
    """``clamp_min(margin + d(a, p) - d(a, n), 0)`` with ``d(u, v) = norm(u - v + eps, p)`` over the last
    dim (``swap``: ``d(a, n)`` is ``min(d(a, n), d(p, n))``), then the reduction."""
    a = _bound(n)
    anchor, pos, neg = (c.tensor(a[k], n) for k in ("anchor", "positive", "negative"))
    p, eps = float(a["p"]), float(a["eps"])

    def dist(u: Ref, v: Ref, tag: str) -> Ref:
        diff = c.emit(n, SpecOp.ADD, [c.emit(n, SpecOp.SUB, [u, v], suffix=f"_{tag}"), Scalar(eps)], suffix=f"_{tag}e")
        dims = (c.rank(diff) - 1,)
        return c.emit(n, SpecOp.NORM, [diff], [("ord", p), ("dims", dims), ("keepdim", False)], suffix=f"_d{tag}")

    d_ap, d_an = dist(anchor, pos, "ap"), dist(anchor, neg, "an")
    if a["swap"]:
        d_an = c.emit(n, SpecOp.MINIMUM, [d_an, dist(pos, neg, "pn")], suffix="_swap")
    gap = c.emit(n, SpecOp.SUB, [c.emit(n, SpecOp.ADD, [d_ap, Scalar(float(a["margin"]))], suffix="_m"), d_an])
    loss = c.emit(n, SpecOp.CLAMP, [gap, Scalar(0.0), Absent()], suffix="_hinge")
    c.bind(n, _reduction(c, n, loss, int(a["reduction"])))


def _bool() -> Any:
    from larkc.ir.types import BOOL

    return BOOL


def _table() -> dict[str, Handler]:
    t: dict[str, Handler] = {}

    def add(names: str, h: Handler) -> None:
        for name in names.split():
            t[name] = h

    add("aten.conv1d.default aten.conv2d.default aten.conv3d.default", _conv(False))
    add("aten.conv1d.padding aten.conv2d.padding aten.conv3d.padding", _conv(False))
    add("aten.conv_transpose1d.default aten.conv_transpose2d.input aten.conv_transpose3d.input", _conv(True))
    add("aten.convolution.default aten._convolution.default", _conv(None))
    for d in (1, 2, 3):
        add(f"aten.max_pool{d}d.default aten.max_pool{d}d_with_indices.default", _max_pool(d))
        add(f"aten.avg_pool{d}d.default", _avg_pool(d))
        add(f"aten.adaptive_avg_pool{d}d.default aten._adaptive_avg_pool{d}d.default", _adaptive_pool(d, False))
        add(f"aten.adaptive_max_pool{d}d.default", _adaptive_pool(d, True))
    add(
        "aten.batch_norm.default aten._native_batch_norm_legit_no_training.default"
        " aten._native_batch_norm_legit.default aten._native_batch_norm_legit_functional.default"
        " aten.native_batch_norm.default",
        _batch_norm,
    )
    add("aten.instance_norm.default", _instance_norm)
    add("aten.group_norm.default aten.native_group_norm.default", _group_norm)
    add("aten.mish.default", _mish)
    add("aten.hardswish.default", _hardswish)
    add("aten.hardsigmoid.default", _hardsigmoid)
    add("aten.elu.default aten.selu.default aten.celu.default", _elu)
    add("aten.logsumexp.default", _logsumexp)
    add("aten.numpy_T.default", _numpy_t)
    add("aten.pad.default aten.constant_pad_nd.default", _pad)
    add("aten.einsum.default", _einsum)
    add("aten.scaled_dot_product_attention.default", _sdpa)
    add("aten.flip.default", _flip)
    add("aten.roll.default", _roll)
    add("aten.smooth_l1_loss.default aten.huber_loss.default", _smooth_l1)
    add("aten.kl_div.default", _kl_div)
    add("aten.triplet_margin_loss.default", _triplet_margin)
    return t


#: The handlers of this module, merged into :data:`larkc.reference.aten.HANDLERS`.
NN_HANDLERS: dict[str, Handler] = _table()
