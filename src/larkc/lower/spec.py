"""Spec graphs as Lean definitions over ``Larkc.Torch`` (``lean/Larkc/Torch.lean``).

:func:`lower_spec` turns a traced reference (:class:`~larkc.reference.SpecGraph`) into one documented
Lean ``def`` per node and one per output. Every def takes the task's shape symbols as ``ℕ`` arguments
and the spec's inputs and parameters as ``Larkc.Tensor`` arguments, in that order::

    /-- `torch.add` (`%add = add(%mul, %y) : f32[n]`), task.py:17. -/
    def specAdd (n : ℕ) (x y : Larkc.Tensor) : Larkc.Tensor :=
      Larkc.Torch.add (specMul n x y) y

so a node's def refers to the defs of its operands applied to the same arguments. How each op lowers
is its entry in :data:`SPEC_RULES` (a test fails when an op has none). The meaning of each Lean
operation is the one :mod:`larkc.reference.numeric` gives the op, over exact reals; where ``ℝ`` has a
junk value (``x / 0 = 0``, ``Real.sqrt`` of a negative number) the Lean docstring says so, and the
lowering lists the side conditions the spec's meaning rests on (``0 < eps`` of a layer norm).

Conventions of the printed terms:

* Shapes and sizes are ``ℕ`` terms over the symbols (:func:`~larkc.lower.shapes.lean_shape`).
* Python scalars are constant tensors, ``Larkc.Torch.scalar c``, with ``c`` an exact rational
  (:func:`lean_real`): a float is read as the decimal it prints as (``1e-05`` is ``1 / 100000``), the
  value the programmer wrote, not the nearest binary64 number.
* Broadcasting is explicit: an operand of an elementwise op whose shape is not the result's is
  wrapped in ``Larkc.Torch.bcast <its shape>``.
* Casts between floating-point formats are the identity (rounding is outside the model).

The output is deterministic: the same graph gives byte-identical text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import assert_never

from larkc.errors import NO_SPAN, Span, Stage, UnsupportedError
from larkc.ir.types import ScalarType
from larkc.lower.shapes import lean_shape
from larkc.reference.spec import Absent, AttrValue, Ref, Scalar, SpecGraph, SpecNode, SpecOp
from larkc.tasks.shape_expr import ShapeExpr, ShapeNum

__all__ = [
    "LEAN_KEYWORDS",
    "SPEC_RULES",
    "LoweredTerm",
    "Operand",
    "SpecLowering",
    "SpecOutput",
    "SpecRule",
    "lean_int",
    "lean_real",
    "lower_spec",
]

#: Lean 4 keywords and the names the printed terms use, which binders and symbols must not shadow.
LEAN_KEYWORDS = frozenset(
    {
        "abbrev", "at", "attribute", "axiom", "break", "by", "calc", "catch", "class", "continue",
        "decreasing_by", "def", "deriving", "do", "else", "end", "example", "exists", "export",
        "extends", "false", "finally", "for", "forall", "from", "fun", "have", "if", "import",
        "in", "include", "inductive", "infix", "infixl", "infixr", "instance", "let", "local",
        "macro", "match", "mut", "mutual", "namespace", "noncomputable", "nomatch", "nofun",
        "notation", "obtain", "omit", "open", "opaque", "partial", "postfix", "prefix", "private",
        "protected", "return", "section", "set_option", "show", "sorry", "admit", "structure",
        "suffices", "syntax", "termination_by", "then", "theorem", "lemma", "this", "true", "try",
        "universe", "unless", "unsafe", "variable", "where", "with", "Type", "Prop", "Sort",
        "Larkc", "max", "min", "Real", "Nat", "Int", "Finset",
    }
)  # fmt: skip

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")

_TENSOR = "Larkc.Tensor"
_T = "Larkc.Torch."


# Results --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpecOutput:
    """An output of the spec: its name in the graph, the Lean def giving it and its shape."""

    name: str  # the graph output's name (its index as a string when unnamed)
    lean_name: str  # the Lean def giving this output, e.g. "specOut0"
    shape: tuple[str, ...]  # its shape as Lean ℕ terms


@dataclass(frozen=True, slots=True)
class SpecLowering:
    """The Lean form of a spec graph.

    ``definitions`` is Lean source without imports or namespace lines: one documented ``def`` per node
    and one per output, each with the signature ``(<symbols> : ℕ) (<inputs> : Larkc.Tensor)``.
    ``inputs`` pairs each spec input and parameter name with its Lean binder, in binder order.
    ``side_conditions`` are Lean ``Prop`` s (closed terms) that the spec's meaning rests on.
    """

    definitions: str
    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[SpecOutput, ...]
    side_conditions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LoweredTerm:
    """A node lowered: the Lean term of its value and the side conditions its meaning rests on."""

    term: str
    side_conditions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Operand:
    """An operand as a rule sees it: an atomic Lean term (a binder, a parenthesised application) with
    the shape and element type of a tensor, or a Python scalar (``shape`` and ``dtype`` ``None``)."""

    term: str
    shape: tuple[ShapeExpr, ...] | None
    dtype: ScalarType | None
    scalar: int | float | bool | ShapeExpr | None = None

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    def tensor_shape(self, node: SpecNode) -> tuple[ShapeExpr, ...]:
        if self.shape is None:
            raise _unsupported(node, f"a scalar operand where {node.op.value} needs a tensor")
        return self.shape


#: A lowering rule: the node and its operands (``None`` for an absent one) to the Lean term.
LowerFn = Callable[[SpecNode, tuple[Operand | None, ...]], LoweredTerm]


@dataclass(frozen=True, slots=True)
class SpecRule:
    """How an op lowers: the torch operation it is (for docstrings) and the rule building its term."""

    torch: str
    lower: LowerFn


# Literals -------------------------------------------------------------------------------------------


def _unsupported(node: SpecNode, what: str) -> UnsupportedError:
    text = f"%{node.name} = {node.op.value}"
    return UnsupportedError(f"{what} in a Lean spec", text, node.span, stage=Stage.LOWER)


def _exact(value: int | float | bool | Fraction) -> Fraction:
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a real number")
        # the decimal the float prints as: the constant as the reference's author wrote it
        return Fraction(repr(value))
    return Fraction(value)


def lean_real(value: int | float | bool | Fraction) -> str:
    """``value`` as an exact ``ℝ`` literal: ``(1 / 100000 : ℝ)``, ``(-(1 / 2) : ℝ)``, ``(3 : ℝ)``.

    Bools are ``1``/``0``; a float is read as the shortest decimal that prints as it (``repr``), so
    ``1e-05`` is ``1 / 100000`` rather than the binary64 number nearest to it. Raises ``ValueError``
    for ``inf`` and NaN, which are not real numbers.
    """
    q = _exact(value)
    mag = abs(q)
    text = str(mag.numerator) if mag.denominator == 1 else f"{mag.numerator} / {mag.denominator}"
    if q < 0:
        text = f"-{text}" if mag.denominator == 1 else f"-({text})"
    return f"({text} : ℝ)"


def lean_int(value: int) -> str:
    """An integer as an ``ℤ`` literal: ``(-1 : ℤ)``, ``(0 : ℤ)``."""
    return f"({value} : ℤ)"


def _nat(node: SpecNode, e: int | ShapeExpr) -> str:
    """A size, dim or offset as an ``ℕ`` term."""
    if isinstance(e, bool):
        raise _unsupported(node, f"the flag {e} where a size is expected")
    if isinstance(e, int):
        if e < 0:
            raise _unsupported(node, f"the negative size or index {e}")
        return str(e)
    try:
        return lean_shape(e)
    except ValueError as err:
        raise _unsupported(node, str(err)) from None


def _nat_list(node: SpecNode, items: Sequence[int | ShapeExpr]) -> str:
    return "[" + ", ".join(_nat(node, e) for e in items) + "]"


def _real_of(node: SpecNode, value: object) -> str:
    """A number or size attribute/operand as an ``ℝ`` term."""
    if isinstance(value, bool | int | float | Fraction):
        try:
            return lean_real(value)
        except ValueError:
            raise _unsupported(node, f"the constant {value}, which has no real value") from None
    if isinstance(value, ShapeNum):
        return lean_real(value.value)
    if isinstance(value, ShapeExpr):
        return f"(({_nat(node, value)} : ℕ) : ℝ)"
    raise _unsupported(node, f"the attribute value {value!r}")


def _bool(value: object) -> str:
    return "true" if value else "false"


# Rules ----------------------------------------------------------------------------------------------


def _app(fn: str, *args: str) -> LoweredTerm:
    return LoweredTerm(" ".join((_T + fn, *args)))


def _operand(node: SpecNode, args: tuple[Operand | None, ...], i: int) -> Operand:
    a = args[i]
    if a is None:
        raise _unsupported(node, f"an absent operand {i}")
    return a


def _tensor(node: SpecNode, args: tuple[Operand | None, ...], i: int) -> tuple[str, tuple[ShapeExpr, ...]]:
    a = _operand(node, args, i)
    return a.term, a.tensor_shape(node)


def _broadcast(node: SpecNode, a: Operand) -> str:
    """``a`` read at the node's indices: wrapped in ``bcast`` when its shape differs from the node's."""
    if a.shape is None or tuple(a.shape) == tuple(node.shape):
        return a.term
    return f"({_T}bcast {_nat_list(node, a.shape)} {a.term})"


def _elementwise(fn: str) -> LowerFn:
    def rule(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
        return _app(fn, *(_broadcast(node, _operand(node, args, i)) for i in range(len(args))))

    return rule


def _div(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    b = _operand(node, args, 1)
    if not b.is_tensor and isinstance(b.scalar, int | float) and b.scalar == 0:
        raise _unsupported(node, "division by the constant zero")
    return _elementwise("div")(node, args)


def _floor_divide(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    b = _operand(node, args, 1)
    if not b.is_tensor and isinstance(b.scalar, int | float) and b.scalar == 0:
        raise _unsupported(node, "floor division by the constant zero")
    return _elementwise("floorDivide")(node, args)


def _pow(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    a, b = _operand(node, args, 0), _operand(node, args, 1)
    e = b.scalar
    exact = isinstance(e, int | float) and not isinstance(e, bool) and math.isfinite(e)
    if not b.is_tensor and isinstance(e, int | float) and exact and float(e).is_integer():
        n = int(e)
        if n >= 0:
            return _app("powNat", str(n), _broadcast(node, a))
        return _app("powInt", lean_int(n), _broadcast(node, a))
    return _elementwise("pow")(node, args)


def _clamp(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x = _broadcast(node, _operand(node, args, 0))
    lo, hi = args[1], args[2]
    if lo is not None and hi is not None:
        return _app("clamp", x, _broadcast(node, lo), _broadcast(node, hi))
    if lo is not None:
        return _app("clampMin", x, _broadcast(node, lo))
    if hi is not None:
        return _app("clampMax", x, _broadcast(node, hi))
    raise _unsupported(node, "clamp without bounds")


def _unary(fn: str) -> LowerFn:
    def rule(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
        return _app(fn, _broadcast(node, _operand(node, args, 0)))

    return rule


def _gelu(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    approximate = node.attr("approximate")
    if approximate == "none":
        return _unary("gelu")(node, args)
    if approximate == "tanh":
        return _unary("geluTanh")(node, args)
    raise _unsupported(node, f"gelu approximation {approximate!r}")


def _softplus(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    beta = _real_of(node, node.attr("beta"))
    threshold = _real_of(node, node.attr("threshold"))
    x = _broadcast(node, _operand(node, args, 0))
    return LoweredTerm(f"{_T}softplus {beta} {threshold} {x}", (f"{beta} ≠ 0",))


def _cast(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x = _operand(node, args, 0)
    src, dst = x.dtype, node.dtype
    if dst.is_bool:
        fn = "castBool"
    elif src is not None and src.is_float and not dst.is_float:
        fn = "castTrunc"
    else:
        fn = "castReal"
    return _app(fn, _broadcast(node, x))


def _reduction_dims(node: SpecNode, shape: tuple[ShapeExpr, ...], all_when_empty: bool) -> tuple[int, ...]:
    dims = tuple(sorted(int(d) for d in node.attr("dims")))
    if not dims and all_when_empty:
        dims = tuple(range(len(shape)))
    for d in dims:
        if not 0 <= d < len(shape):
            raise _unsupported(node, f"reduction dim {d} of a rank-{len(shape)} tensor")
    return dims


def _reduce_args(node: SpecNode, shape: tuple[ShapeExpr, ...], dims: tuple[int, ...]) -> str:
    sizes = [shape[d] for d in dims]
    return f"{len(shape)} {_nat_list(node, dims)} {_nat_list(node, sizes)} {_bool(node.attr('keepdim'))}"


def _reduce(fn: str, all_when_empty: bool = False) -> LowerFn:
    def rule(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
        x, shape = _tensor(node, args, 0)
        dims = _reduction_dims(node, shape, all_when_empty)
        return _app(fn, _reduce_args(node, shape, dims), x)

    return rule


def _var(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    dims = _reduction_dims(node, shape, all_when_empty=True)
    sizes = _nat_list(node, [shape[d] for d in dims])
    keep = _bool(node.attr("keepdim"))
    correction = _real_of(node, node.attr("correction"))
    fn = "std" if node.op is SpecOp.STD else "var"
    return _app(fn, str(len(shape)), _nat_list(node, dims), sizes, keep, correction, x)


def _norm(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    dims = _reduction_dims(node, shape, all_when_empty=True)
    rest = _reduce_args(node, shape, dims)
    ord_ = node.attr("ord")
    p = float(ord_)
    if math.isnan(p):
        raise _unsupported(node, "vector norm of order NaN")
    named = {math.inf: "vectorNormInf", -math.inf: "vectorNormNegInf", 0.0: "vectorNormZero"}
    named.update({1.0: "vectorNorm1", 2.0: "vectorNorm2"})
    if p in named:
        return _app(named[p], rest, x)
    return _app("vectorNorm", _real_of(node, ord_), rest, x)


def _argreduce(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    suffix = "max" if node.op is SpecOp.ARGMAX else "min"
    dim = node.attr("dim")
    if dim is None:
        return _app(f"arg{suffix}All", _nat_list(node, shape), x)
    if not 0 <= dim < len(shape):
        raise _unsupported(node, f"arg{suffix} along dim {dim} of a rank-{len(shape)} tensor")
    keep = _bool(node.attr("keepdim"))
    return _app(f"arg{suffix}", str(len(shape)), str(dim), _nat(node, shape[dim]), keep, x)


def _softmax(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    dim = node.attr("dim")
    if not 0 <= dim < len(shape):
        raise _unsupported(node, f"{node.op.value} along dim {dim} of a rank-{len(shape)} tensor")
    fn = "softmax" if node.op is SpecOp.SOFTMAX else "logSoftmax"
    return _app(fn, str(dim), _nat(node, shape[dim]), x)


def _eps(node: SpecNode, eps: object) -> tuple[str, tuple[str, ...]]:
    """The eps of a normalisation as an ``ℝ`` term, and ``0 < eps`` as a side condition when it holds."""
    if eps is None:
        raise _unsupported(node, f"{node.op.value} without an explicit eps")
    term = _real_of(node, eps)
    positive = isinstance(eps, int | float) and not isinstance(eps, bool) and eps > 0
    return term, ((f"(0 : ℝ) < {term}",) if positive else ())


def _norm_layer(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    k = len(node.attr("normalized_shape"))
    lead = len(shape) - k
    if k == 0 or lead < 0:
        raise _unsupported(node, f"normalized_shape of {k} dims for a rank-{len(shape)} tensor")
    norm_shape = _nat_list(node, shape[lead:])
    eps, conditions = _eps(node, node.attr("eps"))
    weight = args[1].term if args[1] is not None else f"({_T}scalar 1)"
    if node.op is SpecOp.LAYER_NORM:
        bias = args[2].term if args[2] is not None else f"({_T}scalar 0)"
        return LoweredTerm(f"{_T}layerNorm {lead} {norm_shape} {eps} {x} {weight} {bias}", conditions)
    return LoweredTerm(f"{_T}rmsNorm {lead} {norm_shape} {eps} {x} {weight}", conditions)


def _mm(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    a, sa = _tensor(node, args, 0)
    b, _ = _tensor(node, args, 1)
    if node.op is SpecOp.MM:
        return _app("mm", _nat(node, sa[1]), a, b)
    return _app("bmm", _nat(node, sa[2]), a, b)


def _matmul(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    a, sa = _tensor(node, args, 0)
    b, sb = _tensor(node, args, 1)
    if not sa or not sb:
        raise _unsupported(node, "matmul of a 0-d tensor")
    k = _nat(node, sa[-1])
    if len(sa) == 1 and len(sb) == 1:
        return _app("dot", k, a, b)
    if len(sa) == 2 and len(sb) == 2:
        return _app("mm", k, a, b)
    if len(sb) == 1:
        batch = len(node.shape) - 1
        return _app("matmulVec", str(batch), k, _nat_list(node, sa[:-2]), a, b)
    if len(sa) == 1:
        batch = len(node.shape) - 1
        return _app("vecMatmul", str(batch), k, _nat_list(node, sb[:-2]), a, b)
    batch = len(node.shape) - 2
    return _app("matmul", str(batch), k, _nat_list(node, sa[:-2]), _nat_list(node, sb[:-2]), a, b)


def _linear(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, sx = _tensor(node, args, 0)
    w, sw = _tensor(node, args, 1)
    if len(sw) != 2 or not sx:
        raise _unsupported(node, "linear with a weight that is not 2-D or a 0-d input")
    lead, k = str(len(sx) - 1), _nat(node, sx[-1])
    bias = args[2]
    if bias is None:
        return _app("linearNoBias", lead, k, x, w)
    if bias.shape is None or len(bias.shape) != 1:
        raise _unsupported(node, "linear with a bias that is not 1-D")
    return _app("linear", lead, k, x, w, bias.term)


def _transpose(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    return _app("transpose", str(node.attr("dim0")), str(node.attr("dim1")), x)


def _permute(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    dims = [int(d) for d in node.attr("dims")]
    inverse = [0] * len(dims)
    for j, d in enumerate(dims):
        inverse[d] = j
    return _app("permute", _nat_list(node, inverse), x)


def _reshape(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    return _app("reshape", _nat_list(node, shape), _nat_list(node, node.shape), x)


def _unsqueeze(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    return _app("unsqueeze", _nat(node, node.attr("dim")), x)


def _squeeze(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    return _app("squeeze", _nat_list(node, sorted(int(d) for d in node.attr("dims"))), x)


def _expand(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    return _app("expand", _nat_list(node, shape), x)


def _slice(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    dim, start, step = node.attr("dim"), node.attr("start"), node.attr("step")
    return _app("slice", _nat(node, dim), _nat(node, start), _nat(node, step), x)


def _select(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    return _app("select", _nat(node, node.attr("dim")), _nat(node, node.attr("index")), x)


def _cat(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    dim = int(node.attr("dim"))
    parts = []
    for i in range(len(args)):
        term, shape = _tensor(node, args, i)
        if not 0 <= dim < len(shape):
            raise _unsupported(node, f"cat along dim {dim} of a rank-{len(shape)} tensor")
        parts.append(f"({_nat(node, shape[dim])}, {term})")
    return _app("cat", str(dim), "[" + ", ".join(parts) + "]")


def _stack(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    terms = [_tensor(node, args, i)[0] for i in range(len(args))]
    return _app("stack", _nat(node, node.attr("dim")), "[" + ", ".join(terms) + "]")


def _index_select(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    index, index_shape = _tensor(node, args, 1)
    if not shape:
        raise _unsupported(node, "index_select of a 0-d tensor")
    if not index_shape:  # a 0-d index reads its one entry for the size-1 result dim
        index = f"({_T}bcast [] {index})"
    return _app("indexSelect", _nat(node, node.attr("dim")), x, index)


def _gather(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    index, _ = _tensor(node, args, 1)
    return _app("gather", _nat(node, node.attr("dim")), x, index)


def _scatter_add(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    index, index_shape = _tensor(node, args, 1)
    src, _ = _tensor(node, args, 2)
    return _app("scatterAdd", _nat(node, node.attr("dim")), _nat_list(node, index_shape), x, index, src)


def _embedding(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    weight, _ = _tensor(node, args, 0)
    indices, shape = _tensor(node, args, 1)
    return _app("embedding", str(len(shape)), weight, indices)


def _cumsum(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, _ = _tensor(node, args, 0)
    return _app("cumsum", _nat(node, node.attr("dim")), x)


def _cross_entropy(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    logits, shape = _tensor(node, args, 0)
    target, target_shape = _tensor(node, args, 1)
    if not shape:
        raise _unsupported(node, "cross_entropy of 0-d logits")
    class_dim = 0 if len(shape) == 1 else 1
    common = f"{class_dim} {_nat(node, shape[class_dim])} {_real_of(node, node.attr('ignore_index'))}"
    reduction = node.attr("reduction")
    if reduction == "none":
        return LoweredTerm(f"{_T}crossEntropyLoss {common} {logits} {target}")
    if reduction in ("sum", "mean"):
        fn = "crossEntropySum" if reduction == "sum" else "crossEntropyMean"
        return LoweredTerm(f"{_T}{fn} {common} {_nat_list(node, target_shape)} {logits} {target}")
    raise _unsupported(node, f"cross_entropy reduction {reduction!r}")


def _full(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    return _app("full", _real_of(node, node.attr("value")))


def _arange(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    return _app("arange", _real_of(node, node.attr("start")), _real_of(node, node.attr("step")))


def _triangle(node: SpecNode, args: tuple[Operand | None, ...]) -> LoweredTerm:
    x, shape = _tensor(node, args, 0)
    if len(shape) < 2:
        raise _unsupported(node, f"{node.op.value} of a rank-{len(shape)} tensor")
    fn = "tril" if node.op is SpecOp.TRIL else "triu"
    return _app(fn, str(len(shape) - 2), lean_int(int(node.attr("diagonal"))), x)


#: How every op lowers: the torch operation (for the def's docstring) and the rule.
SPEC_RULES: Mapping[SpecOp, SpecRule] = {
    SpecOp.ADD: SpecRule("torch.add", _elementwise("add")),
    SpecOp.SUB: SpecRule("torch.sub", _elementwise("sub")),
    SpecOp.MUL: SpecRule("torch.mul", _elementwise("mul")),
    SpecOp.DIV: SpecRule("torch.div", _div),
    SpecOp.FLOOR_DIVIDE: SpecRule("torch.floor_divide", _floor_divide),
    SpecOp.POW: SpecRule("torch.pow", _pow),
    SpecOp.MAXIMUM: SpecRule("torch.maximum", _elementwise("maximum")),
    SpecOp.MINIMUM: SpecRule("torch.minimum", _elementwise("minimum")),
    SpecOp.EQ: SpecRule("torch.eq", _elementwise("eq")),
    SpecOp.NE: SpecRule("torch.ne", _elementwise("ne")),
    SpecOp.LT: SpecRule("torch.lt", _elementwise("lt")),
    SpecOp.LE: SpecRule("torch.le", _elementwise("le")),
    SpecOp.GT: SpecRule("torch.gt", _elementwise("gt")),
    SpecOp.GE: SpecRule("torch.ge", _elementwise("ge")),
    SpecOp.AND: SpecRule("torch.logical_and", _elementwise("logicalAnd")),
    SpecOp.OR: SpecRule("torch.logical_or", _elementwise("logicalOr")),
    SpecOp.NOT: SpecRule("torch.logical_not", _elementwise("logicalNot")),
    SpecOp.ISINF: SpecRule("torch.isinf", _unary("isinf")),
    SpecOp.ISNAN: SpecRule("torch.isnan", _unary("isnan")),
    SpecOp.ISFINITE: SpecRule("torch.isfinite", _unary("isfinite")),
    SpecOp.WHERE: SpecRule("torch.where", _elementwise("whereCond")),
    SpecOp.CLAMP: SpecRule("torch.clamp", _clamp),
    SpecOp.NEG: SpecRule("torch.neg", _unary("neg")),
    SpecOp.ABS: SpecRule("torch.abs", _unary("absolute")),
    SpecOp.RECIPROCAL: SpecRule("torch.reciprocal", _unary("reciprocal")),
    SpecOp.EXP: SpecRule("torch.exp", _unary("exp")),
    SpecOp.LOG: SpecRule("torch.log", _unary("log")),
    SpecOp.SQRT: SpecRule("torch.sqrt", _unary("sqrt")),
    SpecOp.RSQRT: SpecRule("torch.rsqrt", _unary("rsqrt")),
    SpecOp.TANH: SpecRule("torch.tanh", _unary("tanh")),
    SpecOp.ERF: SpecRule("torch.erf", _unary("erf")),
    SpecOp.SIN: SpecRule("torch.sin", _unary("sin")),
    SpecOp.COS: SpecRule("torch.cos", _unary("cos")),
    SpecOp.SIGMOID: SpecRule("torch.sigmoid", _unary("sigmoid")),
    SpecOp.RELU: SpecRule("torch.relu", _unary("relu")),
    SpecOp.GELU: SpecRule("torch.nn.functional.gelu", _gelu),
    SpecOp.SILU: SpecRule("torch.nn.functional.silu", _unary("silu")),
    SpecOp.SOFTPLUS: SpecRule("torch.nn.functional.softplus", _softplus),
    SpecOp.CAST: SpecRule("Tensor.to", _cast),
    SpecOp.SUM: SpecRule("torch.sum", _reduce("sum")),
    SpecOp.MEAN: SpecRule("torch.mean", _reduce("mean")),
    SpecOp.AMAX: SpecRule("torch.amax", _reduce("amax")),
    SpecOp.AMIN: SpecRule("torch.amin", _reduce("amin")),
    SpecOp.ARGMAX: SpecRule("torch.argmax", _argreduce),
    SpecOp.ARGMIN: SpecRule("torch.argmin", _argreduce),
    SpecOp.VAR: SpecRule("torch.var", _var),
    SpecOp.STD: SpecRule("torch.std", _var),
    SpecOp.NORM: SpecRule("torch.linalg.vector_norm", _norm),
    SpecOp.SOFTMAX: SpecRule("torch.softmax", _softmax),
    SpecOp.LOG_SOFTMAX: SpecRule("torch.log_softmax", _softmax),
    SpecOp.LAYER_NORM: SpecRule("torch.nn.functional.layer_norm", _norm_layer),
    SpecOp.RMS_NORM: SpecRule("torch.nn.functional.rms_norm", _norm_layer),
    SpecOp.MM: SpecRule("torch.mm", _mm),
    SpecOp.BMM: SpecRule("torch.bmm", _mm),
    SpecOp.MATMUL: SpecRule("torch.matmul", _matmul),
    SpecOp.LINEAR: SpecRule("torch.nn.functional.linear", _linear),
    SpecOp.TRANSPOSE: SpecRule("torch.transpose", _transpose),
    SpecOp.PERMUTE: SpecRule("torch.permute", _permute),
    SpecOp.RESHAPE: SpecRule("torch.reshape", _reshape),
    SpecOp.UNSQUEEZE: SpecRule("torch.unsqueeze", _unsqueeze),
    SpecOp.SQUEEZE: SpecRule("torch.squeeze", _squeeze),
    SpecOp.EXPAND: SpecRule("Tensor.expand", _expand),
    SpecOp.SLICE: SpecRule("Tensor.__getitem__ (slice)", _slice),
    SpecOp.SELECT: SpecRule("torch.select", _select),
    SpecOp.CAT: SpecRule("torch.cat", _cat),
    SpecOp.STACK: SpecRule("torch.stack", _stack),
    SpecOp.INDEX_SELECT: SpecRule("torch.index_select", _index_select),
    SpecOp.GATHER: SpecRule("torch.gather", _gather),
    SpecOp.SCATTER_ADD: SpecRule("torch.scatter_add", _scatter_add),
    SpecOp.EMBEDDING: SpecRule("torch.nn.functional.embedding", _embedding),
    SpecOp.CUMSUM: SpecRule("torch.cumsum", _cumsum),
    SpecOp.CROSS_ENTROPY: SpecRule("torch.nn.functional.cross_entropy", _cross_entropy),
    SpecOp.FULL: SpecRule("torch.full", _full),
    SpecOp.ARANGE: SpecRule("torch.arange", _arange),
    SpecOp.TRIL: SpecRule("torch.tril", _triangle),
    SpecOp.TRIU: SpecRule("torch.triu", _triangle),
}


# Names ----------------------------------------------------------------------------------------------


def _camel(prefix: str, name: str) -> str:
    """``prefix`` followed by ``name``'s alphanumeric runs, each capitalised: ``spec`` + ``slice_1`` is
    ``specSlice1``."""
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    return prefix + "".join(p[:1].upper() + p[1:] for p in parts)


class _Names:
    """Lean identifiers handed out so far, so that every binder and def name is distinct."""

    def __init__(self, reserved: Sequence[str]) -> None:
        self.used: set[str] = set(reserved)

    def take(self, base: str) -> str:
        name = base
        while name in self.used or name in LEAN_KEYWORDS:
            name += "'"
        self.used.add(name)
        return name


def _binder_base(name: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_']", "_", name) or "t"
    return base if _IDENT.fullmatch(base) else "t" + base


def _check_identifier(what: str, name: str, span: Span) -> None:
    if not _IDENT.fullmatch(name) or name in LEAN_KEYWORDS:
        raise UnsupportedError(f"{what} as a Lean identifier", name, span, stage=Stage.LOWER)


def _where(span: Span) -> str:
    return f"{Path(span.file).name}:{span.line}" if span.line > 0 else "no source line"


def _doc_text(text: str) -> str:
    """Text safe inside a Lean doc comment (which nests ``/-`` and ends at ``-/``)."""
    return text.replace("/-", "/ -").replace("-/", "- /")


def _node_text(node: SpecNode) -> str:
    args = ", ".join(str(a) for a in node.args)
    attrs = ", ".join(f"{k}={_format_attr(v)}" for k, v in node.attrs)
    attr_text = f" {{{attrs}}}" if attrs else ""
    return f"%{node.name} = {node.op.value}({args}){attr_text} : {node.type}"


# Lowering -------------------------------------------------------------------------------------------


def lower_spec(graph: SpecGraph, symbols: Sequence[str], prefix: str = "spec") -> SpecLowering:
    """The Lean definitions of ``graph`` over ``Larkc.Torch``: one ``def`` per node, named from
    ``prefix`` and the node's name (``specSlice1``), and one per output (``specOut0``, ...), each taking
    ``symbols`` (which must include the graph's) as ``ℕ`` arguments and the inputs and parameters as
    ``Larkc.Tensor`` arguments. Raises :class:`UnsupportedError` at a node's span for what the Lean
    library cannot express."""
    where = graph.span if graph.span is not None else NO_SPAN
    _check_identifier("def prefix", prefix, where)
    for s in symbols:
        _check_identifier("shape symbol", s, where)
    missing = [s for s in graph.symbols if s not in symbols]
    if missing:
        raise UnsupportedError(
            "spec symbols missing from the def signature", ", ".join(missing), where, stage=Stage.LOWER
        )
    if len(set(symbols)) != len(symbols):
        raise UnsupportedError("repeated shape symbol", ", ".join(symbols), where, stage=Stage.LOWER)

    names = _Names(symbols)
    out_names = [names.take(f"{prefix}Out{i}") for i in range(len(graph.outputs))]
    value_names = [*(i.name for i in graph.inputs), *(p.name for p in graph.params)]
    binders = [names.take(_binder_base(n)) for n in value_names]
    node_defs = [names.take(_camel(prefix, n.name)) for n in graph.nodes]

    signature = ""
    if symbols:
        signature += f" ({' '.join(symbols)} : ℕ)"
    if binders:
        signature += f" ({' '.join(binders)} : {_TENSOR})"
    call_args = " ".join([*symbols, *binders])

    def call(def_name: str) -> str:
        return f"({def_name} {call_args})" if call_args else def_name

    types = graph.types()
    terms: dict[str, str] = dict(zip(value_names, binders, strict=True))
    blocks: list[str] = []
    conditions: list[str] = []
    for node, def_name in zip(graph.nodes, node_defs, strict=True):
        operands: list[Operand | None] = []
        for a in node.args:
            match a:
                case Ref(name):
                    t = types[name]
                    operands.append(Operand(terms[name], tuple(t.shape), t.dtype))
                case Scalar(value):
                    operands.append(Operand(f"({_T}scalar {_real_of(node, value)})", None, None, value))
                case Absent():
                    operands.append(None)
                case _:
                    assert_never(a)
        rule = SPEC_RULES.get(node.op)
        if rule is None:
            raise _unsupported(node, "an op without a Lean rule")
        lowered = rule.lower(node, tuple(operands))
        for c in lowered.side_conditions:
            if c not in conditions:
                conditions.append(c)
        doc = _doc_text(f"`{rule.torch}` (`{_node_text(node)}`), {_where(node.span)}.")
        blocks.append(f"/-- {doc} -/\ndef {def_name}{signature} : {_TENSOR} :=\n  {lowered.term}")
        terms[node.name] = call(def_name)

    outputs: list[SpecOutput] = []
    for i, (out, def_name) in enumerate(zip(graph.outputs, out_names, strict=True)):
        t = types[out]
        body = terms[out]
        if body.startswith("(") and body.endswith(")"):
            body = body[1:-1]
        doc = _doc_text(f"Output {i} of spec `{graph.name}`: `%{out}`, of type `{t}`.")
        blocks.append(f"/-- {doc} -/\ndef {def_name}{signature} : {_TENSOR} :=\n  {body}")
        shape = tuple(_nat_shape(graph, out, d) for d in t.shape)
        outputs.append(SpecOutput(out or str(i), def_name, shape))

    return SpecLowering(
        definitions="\n\n".join(blocks) + "\n",
        inputs=tuple(zip(value_names, binders, strict=True)),
        outputs=tuple(outputs),
        side_conditions=tuple(conditions),
    )


def _nat_shape(graph: SpecGraph, name: str, d: ShapeExpr) -> str:
    try:
        return lean_shape(d)
    except ValueError as err:
        span = graph.span if graph.span is not None else NO_SPAN
        raise UnsupportedError("output shape in Lean", f"%{name}: {err}", span, stage=Stage.LOWER) from None


def _format_attr(value: AttrValue) -> str:
    """An attribute value as the spec printer shows it (``true``, ``1e-05``, ``"tanh"``, ``[0, 1]``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_format_attr(v) for v in value) + "]"
    return str(value)
