"""Numeric evaluation of a spec graph: the executable meaning of each op on concrete tensors.

One rule per op (:data:`NUMERIC_RULES`). Composite ops (gelu, softmax, layer_norm, var, cross_entropy,
...) are written out as formulas, so that the tests, which compare with torch's own kernels, check the
formula as well as the tracing. By default every floating-point value is held in float64 and casts
between floating-point formats are the identity: the spec is the real-number function the reference
denotes, and rounding is what a task's tolerance absorbs. ``dtype=None`` instead evaluates in the
graph's own dtypes, rounding as torch does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from larkc.dtypes import torch_dtype
from larkc.errors import ReferenceError_
from larkc.ir.types import ScalarType
from larkc.reference.shapes import concrete, fmt_shape
from larkc.reference.spec import Absent, Ref, Scalar, SpecGraph, SpecNode, SpecOp, ValueType
from larkc.tasks.shape_expr import ShapeExpr, ShapeSym, free_symbols

__all__ = ["NUMERIC_RULES", "bind_symbols", "evaluate"]

Value = torch.Tensor | int | float | bool | None


@dataclass(frozen=True, slots=True)
class NumericContext:
    """What a numeric rule needs besides its operands: the symbol values and the float dtype."""

    env: Mapping[str, int]
    float_dtype: torch.dtype | None  # the dtype of every floating value; None: each value's own dtype

    def dtype(self, t: ScalarType) -> torch.dtype:
        """The torch dtype in which a value of spec type ``t`` is held."""
        if t.is_float and self.float_dtype is not None:
            return self.float_dtype
        return torch_dtype(t)

    def ints(self, exprs: tuple[ShapeExpr, ...]) -> list[int]:
        return [concrete(e, self.env) for e in exprs]

    def int(self, e: ShapeExpr | int) -> int:
        return e if isinstance(e, int) else concrete(e, self.env)


NumericRule = Callable[[SpecNode, list[Value], NumericContext], torch.Tensor]


def _t(v: Value) -> torch.Tensor:
    """A tensor operand (a Python scalar becomes a 0-dimensional tensor, which torch promotes alike)."""
    if isinstance(v, torch.Tensor):
        return v
    if v is None:
        raise ReferenceError_("missing tensor operand")
    return torch.tensor(v)


def _binary(fn: Callable[[Any, Any], Any]) -> NumericRule:
    def rule(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
        return _t(fn(a[0], a[1]))

    return rule


def _unary(fn: Callable[[torch.Tensor], torch.Tensor]) -> NumericRule:
    def rule(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
        x = _t(a[0])
        if not x.dtype.is_floating_point:  # integer inputs of float functions compute in floats
            x = x.to(ctx.dtype(node.dtype))
        return fn(x)

    return rule


def _gelu(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    if node.attr("approximate") == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        return 0.5 * x * (1.0 + torch.tanh(inner))
    return 0.5 * x * (1.0 + torch.erf(x * (1.0 / math.sqrt(2.0))))


def _softplus(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    beta, threshold = node.attr("beta"), node.attr("threshold")
    return torch.where(beta * x > threshold, x, torch.log(1.0 + torch.exp(beta * x)) / beta)


def _cast(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    target = node.dtype
    if target.is_bool:
        return x != 0
    return x.to(ctx.dtype(target))


def _dims(node: SpecNode) -> tuple[int, ...]:
    return tuple(node.attr("dims"))


def _reduce(fn: Callable[[torch.Tensor, tuple[int, ...], bool], torch.Tensor]) -> NumericRule:
    def rule(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
        x = _t(a[0])
        dims = _dims(node)
        if not dims:  # a reduction over no dims is the identity (torch would reduce over all)
            return x.clone()
        return fn(x, dims, bool(node.attr("keepdim")))

    return rule


def _count(x: torch.Tensor, dims: tuple[int, ...]) -> int:
    return math.prod(x.shape[d] for d in dims)


def _var(x: torch.Tensor, dims: tuple[int, ...], keepdim: bool, correction: float) -> torch.Tensor:
    mean = x.sum(dims, keepdim=True) / _count(x, dims)
    return ((x - mean) ** 2).sum(dims, keepdim=keepdim) / (_count(x, dims) - correction)


def _var_rule(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    dims = _dims(node) or tuple(range(x.dim()))
    out = _var(x, dims, bool(node.attr("keepdim")), node.attr("correction"))
    return torch.sqrt(out) if node.op is SpecOp.STD else out


def _norm(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    dims = _dims(node) or tuple(range(x.dim()))
    keepdim = bool(node.attr("keepdim"))
    p = float(node.attr("ord"))
    if p == math.inf:
        return x.abs().amax(dims, keepdim=keepdim)
    if p == -math.inf:
        return x.abs().amin(dims, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim=keepdim)
    if p == 2:
        return torch.sqrt((x * x).sum(dims, keepdim=keepdim))
    if p == 1:
        return x.abs().sum(dims, keepdim=keepdim)
    return (x.abs() ** p).sum(dims, keepdim=keepdim) ** (1.0 / p)


def _argreduce(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    fn = torch.argmax if node.op is SpecOp.ARGMAX else torch.argmin
    return fn(x, dim=node.attr("dim"), keepdim=bool(node.attr("keepdim")))


def _softmax(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    dim = node.attr("dim")
    shifted = x - x.amax(dim, keepdim=True)
    if node.op is SpecOp.LOG_SOFTMAX:
        return shifted - torch.log(torch.exp(shifted).sum(dim, keepdim=True))
    e = torch.exp(shifted)
    return e / e.sum(dim, keepdim=True)


def _layer_norm(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    k = len(node.attr("normalized_shape"))
    dims = tuple(range(x.dim() - k, x.dim()))
    eps = node.attr("eps")
    if node.op is SpecOp.LAYER_NORM:
        mean = x.sum(dims, keepdim=True) / _count(x, dims)
        var = _var(x, dims, True, 0)
        out = (x - mean) / torch.sqrt(var + eps)
        weight, bias = a[1], a[2]
    else:
        out = x / torch.sqrt((x * x).sum(dims, keepdim=True) / _count(x, dims) + eps)
        weight, bias = a[1], None
    if weight is not None:
        out = out * _t(weight)
    if bias is not None:
        out = out + _t(bias)
    return out


def _linear(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    out = torch.matmul(_t(a[0]), _t(a[1]).transpose(0, 1))
    return out + _t(a[2]) if a[2] is not None else out


def _clamp(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x, lo, hi = _t(a[0]), a[1], a[2]
    out = x.to(ctx.dtype(node.dtype))
    if lo is not None:
        out = torch.maximum(out, _t(lo).to(out.dtype))
    if hi is not None:
        out = torch.minimum(out, _t(hi).to(out.dtype))
    return out


def _slice(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    x = _t(a[0])
    dim = node.attr("dim")
    start, end = ctx.int(node.attr("start")), ctx.int(node.attr("end"))
    index = (slice(None),) * dim + (slice(start, end, node.attr("step")),)
    return x[index]


def _cross_entropy(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    logits, target = _t(a[0]), _t(a[1]).long()
    class_dim = 0 if logits.dim() == 1 else 1
    shifted = logits - logits.amax(class_dim, keepdim=True)
    lsm = shifted - torch.log(torch.exp(shifted).sum(class_dim, keepdim=True))
    keep = target != node.attr("ignore_index")
    safe = torch.where(keep, target, torch.zeros_like(target))
    picked = torch.gather(lsm, class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
    loss = torch.where(keep, -picked, torch.zeros_like(picked))
    reduction = node.attr("reduction")
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    total: torch.Tensor = loss.sum() / keep.sum().to(loss.dtype)
    return total


def _triangle(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
    fn = torch.tril if node.op is SpecOp.TRIL else torch.triu
    return fn(_t(a[0]), node.attr("diagonal"))


def _maxmin(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> NumericRule:
    def rule(node: SpecNode, a: list[Value], ctx: NumericContext) -> torch.Tensor:
        dtype = ctx.dtype(node.dtype)
        return fn(_t(a[0]).to(dtype), _t(a[1]).to(dtype))

    return rule


#: The numeric rule of every op. Operands arrive as tensors in the context's dtypes, Python scalars
#: (sizes already evaluated) or None for absent ones; the evaluator casts the result to the node's dtype.
NUMERIC_RULES: dict[SpecOp, NumericRule] = {
    SpecOp.ADD: _binary(lambda a, b: a + b),
    SpecOp.SUB: _binary(lambda a, b: a - b),
    SpecOp.MUL: _binary(lambda a, b: a * b),
    SpecOp.DIV: _binary(lambda a, b: _t(a) / b),
    SpecOp.FLOOR_DIVIDE: _binary(lambda a, b: torch.div(_t(a), _t(b), rounding_mode="floor")),
    SpecOp.POW: _binary(lambda a, b: a**b),
    SpecOp.MAXIMUM: _maxmin(torch.maximum),
    SpecOp.MINIMUM: _maxmin(torch.minimum),
    SpecOp.EQ: _binary(lambda a, b: _t(a) == b),
    SpecOp.NE: _binary(lambda a, b: _t(a) != b),
    SpecOp.LT: _binary(lambda a, b: _t(a) < b),
    SpecOp.LE: _binary(lambda a, b: _t(a) <= b),
    SpecOp.GT: _binary(lambda a, b: _t(a) > b),
    SpecOp.GE: _binary(lambda a, b: _t(a) >= b),
    SpecOp.AND: _binary(lambda a, b: torch.logical_and(_t(a), _t(b))),
    SpecOp.OR: _binary(lambda a, b: torch.logical_or(_t(a), _t(b))),
    SpecOp.NOT: lambda node, a, ctx: torch.logical_not(_t(a[0])),
    SpecOp.ISINF: lambda node, a, ctx: torch.isinf(_t(a[0])),
    SpecOp.ISNAN: lambda node, a, ctx: torch.isnan(_t(a[0])),
    SpecOp.ISFINITE: lambda node, a, ctx: torch.isfinite(_t(a[0])),
    SpecOp.WHERE: lambda node, a, ctx: torch.where(_t(a[0]), _t(a[1]), _t(a[2])),
    SpecOp.CLAMP: _clamp,
    SpecOp.NEG: lambda node, a, ctx: -_t(a[0]),
    SpecOp.ABS: lambda node, a, ctx: torch.abs(_t(a[0])),
    SpecOp.RELU: lambda node, a, ctx: torch.clamp(_t(a[0]), min=0),
    SpecOp.RECIPROCAL: _unary(lambda x: 1.0 / x),
    SpecOp.EXP: _unary(torch.exp),
    SpecOp.LOG: _unary(torch.log),
    SpecOp.SQRT: _unary(torch.sqrt),
    SpecOp.RSQRT: _unary(lambda x: 1.0 / torch.sqrt(x)),
    SpecOp.TANH: _unary(torch.tanh),
    SpecOp.ERF: _unary(torch.erf),
    SpecOp.SIN: _unary(torch.sin),
    SpecOp.COS: _unary(torch.cos),
    SpecOp.SIGMOID: _unary(lambda x: 1.0 / (1.0 + torch.exp(-x))),
    SpecOp.GELU: _gelu,
    SpecOp.SILU: _unary(lambda x: x / (1.0 + torch.exp(-x))),
    SpecOp.SOFTPLUS: _softplus,
    SpecOp.CAST: _cast,
    SpecOp.SUM: _reduce(lambda x, d, k: x.sum(d, keepdim=k)),
    SpecOp.MEAN: _reduce(lambda x, d, k: x.sum(d, keepdim=k) / _count(x, d)),
    SpecOp.AMAX: _reduce(lambda x, d, k: x.amax(d, keepdim=k)),
    SpecOp.AMIN: _reduce(lambda x, d, k: x.amin(d, keepdim=k)),
    SpecOp.ARGMAX: _argreduce,
    SpecOp.ARGMIN: _argreduce,
    SpecOp.VAR: _var_rule,
    SpecOp.STD: _var_rule,
    SpecOp.NORM: _norm,
    SpecOp.SOFTMAX: _softmax,
    SpecOp.LOG_SOFTMAX: _softmax,
    SpecOp.LAYER_NORM: _layer_norm,
    SpecOp.RMS_NORM: _layer_norm,
    SpecOp.MM: lambda node, a, ctx: torch.mm(_t(a[0]), _t(a[1])),
    SpecOp.BMM: lambda node, a, ctx: torch.bmm(_t(a[0]), _t(a[1])),
    SpecOp.MATMUL: lambda node, a, ctx: torch.matmul(_t(a[0]), _t(a[1])),
    SpecOp.LINEAR: _linear,
    SpecOp.TRANSPOSE: lambda node, a, ctx: _t(a[0]).transpose(node.attr("dim0"), node.attr("dim1")),
    SpecOp.PERMUTE: lambda node, a, ctx: _t(a[0]).permute(*node.attr("dims")),
    SpecOp.RESHAPE: lambda node, a, ctx: _t(a[0]).reshape(ctx.ints(node.attr("shape"))),
    SpecOp.UNSQUEEZE: lambda node, a, ctx: _t(a[0]).unsqueeze(node.attr("dim")),
    SpecOp.SQUEEZE: lambda node, a, ctx: _t(a[0]).squeeze(tuple(node.attr("dims"))),
    SpecOp.EXPAND: lambda node, a, ctx: _t(a[0]).expand(ctx.ints(node.attr("shape"))),
    SpecOp.SLICE: _slice,
    SpecOp.SELECT: lambda node, a, ctx: _t(a[0]).select(node.attr("dim"), ctx.int(node.attr("index"))),
    SpecOp.CAT: lambda node, a, ctx: torch.cat([_t(x).to(ctx.dtype(node.dtype)) for x in a], node.attr("dim")),
    SpecOp.STACK: lambda node, a, ctx: torch.stack([_t(x).to(ctx.dtype(node.dtype)) for x in a], node.attr("dim")),
    SpecOp.INDEX_SELECT: lambda node, a, ctx: torch.index_select(
        _t(a[0]), node.attr("dim"), _t(a[1]).long().reshape(-1)
    ),
    SpecOp.GATHER: lambda node, a, ctx: torch.gather(_t(a[0]), node.attr("dim"), _t(a[1]).long()),
    SpecOp.SCATTER_ADD: lambda node, a, ctx: torch.scatter_add(
        _t(a[0]), node.attr("dim"), _t(a[1]).long(), _t(a[2]).to(_t(a[0]).dtype)
    ),
    SpecOp.EMBEDDING: lambda node, a, ctx: _t(a[0])[_t(a[1]).long()],
    SpecOp.CUMSUM: lambda node, a, ctx: torch.cumsum(_t(a[0]), node.attr("dim")),
    SpecOp.CROSS_ENTROPY: _cross_entropy,
    SpecOp.FULL: lambda node, a, ctx: torch.full(
        ctx.ints(node.attr("shape")), node.attr("value"), dtype=ctx.dtype(node.dtype)
    ),
    SpecOp.ARANGE: lambda node, a, ctx: torch.arange(
        ctx.int(node.attr("start")), ctx.int(node.attr("end")), node.attr("step"), dtype=ctx.dtype(node.dtype)
    ),
    SpecOp.TRIL: _triangle,
    SpecOp.TRIU: _triangle,
}


def bind_symbols(graph: SpecGraph, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, int]:
    """The value of each symbol from the concrete shapes of the inputs (plain symbol dims bind it; every
    other dim must then evaluate to the given size)."""
    env: dict[str, int] = {}
    for inp in graph.inputs:
        if inp.name not in shapes:
            continue
        shape = shapes[inp.name]
        if len(shape) != len(inp.type.shape):
            raise ReferenceError_(
                f"input {inp.name!r} has shape {list(shape)}, expected rank {len(inp.type.shape)} ({inp.type})"
            )
        for d, n in zip(inp.type.shape, shape, strict=True):
            if isinstance(d, ShapeSym) and env.setdefault(d.name, n) != n:
                raise ReferenceError_(f"symbol {d.name} is {env[d.name]} by one input and {n} by input {inp.name!r}")
    # dims such as 2*d bind d when no input has a plain d dim
    for inp in graph.inputs:
        for d, n in zip(inp.type.shape, shapes.get(inp.name, ()), strict=False):
            unbound = sorted(free_symbols(d) - set(env))
            if len(unbound) == 1:
                value = _solve(d, unbound[0], n, env)
                if value is not None:
                    env[unbound[0]] = value
    return env


def _solve(e: ShapeExpr, symbol: str, size: int, env: Mapping[str, int]) -> int | None:
    """The positive integer value of ``symbol`` that makes ``e`` equal ``size``, if there is one."""
    import sympy

    from larkc.reference.shapes import to_sympy

    expr = to_sympy(e).xreplace({sympy.Symbol(k, integer=True, positive=True): v for k, v in env.items()})
    for root in sympy.solve(sympy.Eq(expr, size), sympy.Symbol(symbol, integer=True, positive=True)):
        if root.is_integer and int(root) >= 1:
            return int(root)
    return None


def _check_shapes(graph: SpecGraph, shapes: Mapping[str, tuple[int, ...]], env: Mapping[str, int]) -> None:
    for inp in graph.inputs:
        want = [concrete(d, env) for d in inp.type.shape]
        got = list(shapes[inp.name])
        if want != got:
            raise ReferenceError_(f"input {inp.name!r} has shape {got}, expected {want} ({inp.type})", inp.span)


@contextmanager
def _default_dtype(dtype: torch.dtype | None) -> Iterator[None]:
    # integer operands of float ops (true division, exp of an int) then compute in the evaluation dtype
    if dtype is None:
        yield
        return
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


def _convert(value: torch.Tensor, t: ValueType, ctx: NumericContext, what: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise ReferenceError_(f"{what} must be a torch.Tensor, got {type(value).__name__}")
    return value.detach().to(device="cpu", dtype=ctx.dtype(t.dtype))


def evaluate(
    graph: SpecGraph,
    inputs: Mapping[str, torch.Tensor],
    *,
    dtype: torch.dtype | None = torch.float64,
    shape_env: Mapping[str, int] | None = None,
) -> tuple[torch.Tensor, ...]:
    """The outputs of ``graph`` on ``inputs`` (by input name; parameters may be overridden by name).

    Floating-point values are computed in ``dtype`` (float64 by default; ``None``: each value in its own
    dtype). Symbols are bound from the inputs' shapes, or by ``shape_env``.
    """
    missing = [i.name for i in graph.inputs if i.name not in inputs]
    if missing:
        raise ReferenceError_(f"spec {graph.name}: no value for input(s) {', '.join(missing)}")
    shapes = {i.name: tuple(inputs[i.name].shape) for i in graph.inputs}
    env = dict(shape_env) if shape_env is not None else bind_symbols(graph, shapes)
    unbound = [s for s in graph.symbols if s not in env]
    if unbound:
        raise ReferenceError_(f"spec {graph.name}: no value for symbol(s) {', '.join(unbound)} (pass shape_env)")
    _check_shapes(graph, shapes, env)
    ctx = NumericContext(env, dtype)
    values: dict[str, torch.Tensor] = {}
    with _default_dtype(dtype), torch.no_grad():
        for inp in graph.inputs:
            values[inp.name] = _convert(inputs[inp.name], inp.type, ctx, f"input {inp.name!r}")
        for p in graph.params:
            values[p.name] = _convert(inputs.get(p.name, p.value), p.type, ctx, f"parameter {p.name!r}")
        for node in graph.nodes:
            values[node.name] = _eval_node(node, values, ctx)
    return tuple(values[o] for o in graph.outputs)


def _eval_node(node: SpecNode, values: Mapping[str, torch.Tensor], ctx: NumericContext) -> torch.Tensor:
    args: list[Value] = []
    for a in node.args:
        match a:
            case Ref(name):
                args.append(values[name])
            case Scalar(value):
                args.append(value if isinstance(value, int | float | bool) else concrete(value, ctx.env))
            case Absent():
                args.append(None)
    try:
        out = NUMERIC_RULES[node.op](node, args, ctx)
    except ReferenceError_ as e:
        raise e.with_span(node.span) from None
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ReferenceError_(f"evaluating %{node.name} = {node.op.value} failed: {first}", node.span) from None
    out = out.to(ctx.dtype(node.dtype))
    want = [concrete(d, ctx.env) for d in node.shape]
    if list(out.shape) != want:
        raise ReferenceError_(
            f"%{node.name} = {node.op.value} evaluated to shape {list(out.shape)}, but its type is"
            f" {fmt_shape(node.shape)} = {want}",
            node.span,
        )
    return out
