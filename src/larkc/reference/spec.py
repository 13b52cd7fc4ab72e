"""The spec IR: a typed tensor graph over a closed table of operations, traced from a PyTorch reference.

A :class:`SpecGraph` has inputs (the reference's tensor arguments, shapes over the task's symbols),
parameters (tensors the reference holds: ``nn.Module`` weights and buffers, tensor constants), nodes in
topological order and outputs in the order the reference returns them. Values are immutable: in-place
operations of the reference were functionalised by the tracer, views are copies.

Each :class:`SpecNode` applies one :class:`SpecOp` to operands (graph values by name, Python scalars,
symbolic sizes or an absent optional operand) with the attributes the op's :data:`OP_SIGNATURES` entry
names, and records its result shape (shape expressions), element type and the :class:`Span` of the
reference line that produced it. Every op has a shape/dtype rule (:mod:`larkc.reference.rules`), a numeric
rule (:mod:`larkc.reference.numeric`) and a symbolic rule (:mod:`larkc.reference.symbolic`); a test fails
when one is missing.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from larkc.errors import NO_SPAN, ReferenceError_, Span
from larkc.ir.types import ScalarType
from larkc.tasks.shape_expr import ShapeExpr

__all__ = [
    "OP_SIGNATURES",
    "Absent",
    "AttrValue",
    "OpSignature",
    "Operand",
    "ParamKind",
    "Ref",
    "Scalar",
    "SpecGraph",
    "SpecInput",
    "SpecNode",
    "SpecOp",
    "SpecParam",
    "ValueType",
]


class SpecOp(enum.Enum):
    """The closed table of spec operations. The value is the printed name.

    Unless noted, elementwise ops broadcast their operands as torch does and a reduction's ``dims`` are
    non-negative and sorted.
    """

    # elementwise arithmetic
    ADD = "add"  # a + b
    SUB = "sub"  # a - b
    MUL = "mul"  # a * b
    DIV = "div"  # a / b, true division (integers give floats)
    FLOOR_DIVIDE = "floor_divide"  # floor(a / b): Python's // (rounds toward -inf, not C's toward 0)
    POW = "pow"  # a ** b
    MAXIMUM = "maximum"  # elementwise max(a, b)
    MINIMUM = "minimum"  # elementwise min(a, b)
    # comparisons and logic (bool results)
    EQ = "eq"  # a == b
    NE = "ne"  # a != b
    LT = "lt"  # a < b
    LE = "le"  # a <= b
    GT = "gt"  # a > b
    GE = "ge"  # a >= b
    AND = "and"  # logical and of bool tensors (torch's & on bools)
    OR = "or"  # logical or of bool tensors (torch's | on bools)
    NOT = "not"  # logical not of a bool tensor (torch's ~ on bools)
    ISINF = "isinf"  # x is +inf or -inf (bool)
    ISNAN = "isnan"  # x is NaN (bool)
    ISFINITE = "isfinite"  # x is neither an infinity nor NaN (bool)
    # selection
    WHERE = "where"  # cond ? a : b
    CLAMP = "clamp"  # min(max(x, lo), hi); lo or hi may be absent
    # elementwise unary
    NEG = "neg"  # -x
    ABS = "abs"  # |x|
    RECIPROCAL = "reciprocal"  # 1 / x
    EXP = "exp"  # e ** x
    LOG = "log"  # natural logarithm
    SQRT = "sqrt"  # square root
    RSQRT = "rsqrt"  # 1 / sqrt(x)
    TANH = "tanh"  # hyperbolic tangent
    ERF = "erf"  # error function
    SIN = "sin"  # sine
    COS = "cos"  # cosine
    SIGMOID = "sigmoid"  # 1 / (1 + exp(-x))
    RELU = "relu"  # max(x, 0)
    GELU = "gelu"  # x * Phi(x); attribute approximate: "none" (erf) or "tanh"
    SILU = "silu"  # x * sigmoid(x)
    SOFTPLUS = "softplus"  # log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold
    CAST = "cast"  # conversion to the node's dtype (.float(), .half(), .to(dtype))
    # reductions (attribute dims; keepdim keeps them as size 1)
    SUM = "sum"  # sum (integers and bools sum to i64)
    MEAN = "mean"  # arithmetic mean
    AMAX = "amax"  # maximum (torch.max/amax values)
    AMIN = "amin"  # minimum (torch.min/amin values)
    ARGMAX = "argmax"  # index of the first maximum along dim (dim None: of the flattened tensor)
    ARGMIN = "argmin"  # index of the first minimum along dim (dim None: of the flattened tensor)
    VAR = "var"  # sum((x - mean)**2) / (N - correction)
    STD = "std"  # sqrt(var)
    NORM = "norm"  # vector p-norm: (sum |x|**p) ** (1/p); ord inf is max |x|
    # normalisations
    SOFTMAX = "softmax"  # exp(x - max) / sum(exp(x - max)) along dim
    LOG_SOFTMAX = "log_softmax"  # x - max - log(sum(exp(x - max))) along dim
    LAYER_NORM = "layer_norm"  # (x - mean) / sqrt(biased var + eps) * weight + bias over trailing dims
    RMS_NORM = "rms_norm"  # x / sqrt(mean(x**2) + eps) * weight over trailing dims
    # linear algebra
    MM = "mm"  # [m, k] @ [k, n]
    BMM = "bmm"  # [b, m, k] @ [b, k, n]
    MATMUL = "matmul"  # torch.matmul / @: 1-D and batched operands, broadcasting batch dims
    LINEAR = "linear"  # x @ weight.T + bias (bias may be absent)
    # layout (values, not views)
    TRANSPOSE = "transpose"  # swap dim0 and dim1
    PERMUTE = "permute"  # reorder dims
    RESHAPE = "reshape"  # view/reshape/flatten/unflatten to attribute shape (row-major)
    UNSQUEEZE = "unsqueeze"  # insert a size-1 dim at dim
    SQUEEZE = "squeeze"  # remove the size-1 dims listed in dims
    EXPAND = "expand"  # broadcast to attribute shape
    # slicing and joining
    SLICE = "slice"  # elements start, start + step, ... below end along dim (narrow, x[a:b], split, chunk)
    SELECT = "select"  # the sub-tensor at index along dim, which is removed (x[i], unbind)
    CAT = "cat"  # concatenation of the operands along dim
    STACK = "stack"  # stacking of the operands along a new dim
    # indexing by tensors of indices
    INDEX_SELECT = "index_select"  # x's entries along dim at the positions in a 1-D index tensor
    GATHER = "gather"  # out[..i..] = x[..index[..i..]..] along dim
    EMBEDDING = "embedding"  # weight[indices]: one weight row per index
    SCATTER_ADD = "scatter_add"  # x, plus src[..i..] added at x[..index[..i..]..] along dim (index_add)
    # scans and losses
    CUMSUM = "cumsum"  # inclusive prefix sum along dim
    CROSS_ENTROPY = "cross_entropy"  # -log_softmax(logits)[target] with class-index targets; reduction
    # creation and masks
    FULL = "full"  # a tensor of attribute shape filled with value (zeros, ones, full, *_like)
    ARANGE = "arange"  # start, start + step, ... below end
    TRIL = "tril"  # x where col - row <= diagonal, 0 elsewhere (last two dims)
    TRIU = "triu"  # x where col - row >= diagonal, 0 elsewhere (last two dims)


@dataclass(frozen=True, slots=True)
class OpSignature:
    """The operand names (``*`` prefix: any number, at least one) and attribute names of an op."""

    operands: tuple[str, ...]
    attrs: tuple[str, ...] = ()

    @property
    def variadic(self) -> bool:
        return bool(self.operands) and self.operands[0].startswith("*")


_BINARY = OpSignature(("a", "b"))
_UNARY = OpSignature(("x",))
_REDUCE = OpSignature(("x",), ("dims", "keepdim"))

#: The operands and attributes of every op.
OP_SIGNATURES: dict[SpecOp, OpSignature] = {
    **{
        op: _BINARY
        for op in (
            SpecOp.ADD,
            SpecOp.SUB,
            SpecOp.MUL,
            SpecOp.DIV,
            SpecOp.FLOOR_DIVIDE,
            SpecOp.POW,
            SpecOp.MAXIMUM,
            SpecOp.MINIMUM,
            SpecOp.EQ,
            SpecOp.NE,
            SpecOp.LT,
            SpecOp.LE,
            SpecOp.GT,
            SpecOp.GE,
            SpecOp.AND,
            SpecOp.OR,
        )
    },
    SpecOp.NOT: _UNARY,
    SpecOp.ISINF: _UNARY,
    SpecOp.ISNAN: _UNARY,
    SpecOp.ISFINITE: _UNARY,
    SpecOp.WHERE: OpSignature(("cond", "a", "b")),
    SpecOp.CLAMP: OpSignature(("x", "lo", "hi")),
    **{
        op: _UNARY
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
            SpecOp.CAST,
        )
    },
    SpecOp.GELU: OpSignature(("x",), ("approximate",)),
    SpecOp.SOFTPLUS: OpSignature(("x",), ("beta", "threshold")),
    SpecOp.SUM: _REDUCE,
    SpecOp.MEAN: _REDUCE,
    SpecOp.AMAX: _REDUCE,
    SpecOp.AMIN: _REDUCE,
    SpecOp.ARGMAX: OpSignature(("x",), ("dim", "keepdim")),
    SpecOp.ARGMIN: OpSignature(("x",), ("dim", "keepdim")),
    SpecOp.VAR: OpSignature(("x",), ("dims", "correction", "keepdim")),
    SpecOp.STD: OpSignature(("x",), ("dims", "correction", "keepdim")),
    SpecOp.NORM: OpSignature(("x",), ("ord", "dims", "keepdim")),
    SpecOp.SOFTMAX: OpSignature(("x",), ("dim",)),
    SpecOp.LOG_SOFTMAX: OpSignature(("x",), ("dim",)),
    SpecOp.LAYER_NORM: OpSignature(("x", "weight", "bias"), ("normalized_shape", "eps")),
    SpecOp.RMS_NORM: OpSignature(("x", "weight"), ("normalized_shape", "eps")),
    SpecOp.MM: _BINARY,
    SpecOp.BMM: _BINARY,
    SpecOp.MATMUL: _BINARY,
    SpecOp.LINEAR: OpSignature(("x", "weight", "bias")),
    SpecOp.TRANSPOSE: OpSignature(("x",), ("dim0", "dim1")),
    SpecOp.PERMUTE: OpSignature(("x",), ("dims",)),
    SpecOp.RESHAPE: OpSignature(("x",), ("shape",)),
    SpecOp.UNSQUEEZE: OpSignature(("x",), ("dim",)),
    SpecOp.SQUEEZE: OpSignature(("x",), ("dims",)),
    SpecOp.EXPAND: OpSignature(("x",), ("shape",)),
    SpecOp.SLICE: OpSignature(("x",), ("dim", "start", "end", "step")),
    SpecOp.SELECT: OpSignature(("x",), ("dim", "index")),
    SpecOp.CAT: OpSignature(("*tensors",), ("dim",)),
    SpecOp.STACK: OpSignature(("*tensors",), ("dim",)),
    SpecOp.INDEX_SELECT: OpSignature(("x", "index"), ("dim",)),
    SpecOp.GATHER: OpSignature(("x", "index"), ("dim",)),
    SpecOp.EMBEDDING: OpSignature(("weight", "indices")),
    SpecOp.SCATTER_ADD: OpSignature(("x", "index", "src"), ("dim",)),
    SpecOp.CUMSUM: OpSignature(("x",), ("dim",)),
    SpecOp.CROSS_ENTROPY: OpSignature(("logits", "target"), ("reduction", "ignore_index")),
    SpecOp.FULL: OpSignature((), ("shape", "value")),
    SpecOp.ARANGE: OpSignature((), ("start", "end", "step")),
    SpecOp.TRIL: OpSignature(("x",), ("diagonal",)),
    SpecOp.TRIU: OpSignature(("x",), ("diagonal",)),
}


# Operands -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ref:
    """An operand that is a value of the graph: an input, a parameter or a node's result, by name."""

    name: str

    def __str__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True, slots=True)
class Scalar:
    """A scalar operand: a Python number of the reference, or an integer size such as ``x.shape[1]``
    (a shape expression over the symbols)."""

    value: int | float | bool | ShapeExpr

    def __str__(self) -> str:
        from larkc.reference.shapes import fmt

        v = self.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        return f"size({fmt(v)})"


@dataclass(frozen=True, slots=True)
class Absent:
    """An optional operand the reference left out (``layer_norm`` without weight, ``clamp(min=0)``)."""

    def __str__(self) -> str:
        return "_"


Operand = Ref | Scalar | Absent

#: Attribute values: dims (ints, tuples of ints), sizes (shape expressions), flags, numbers, names.
AttrValue = int | float | bool | str | None | ShapeExpr | tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class ValueType:
    """The type of a tensor value: shape (shape expressions over the symbols) and element type."""

    shape: tuple[ShapeExpr, ...]
    dtype: ScalarType

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        from larkc.reference.shapes import fmt_shape

        return f"{self.dtype}{fmt_shape(self.shape)}"


# Graph ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpecInput:
    """A tensor argument of the reference, in call order.

    ``value_range`` is the task's ``[low, high)`` bound on an integer input's values (indices the
    reference reads with): an assumption every verdict over the spec rests on.
    """

    name: str
    type: ValueType
    span: Span = field(default=NO_SPAN, compare=False)
    value_range: tuple[ShapeExpr, ShapeExpr] | None = None


class ParamKind(enum.Enum):
    """Where a parameter tensor of the reference comes from."""

    PARAMETER = "param"  # an nn.Parameter of the reference module (weights, biases)
    BUFFER = "buffer"  # a registered buffer of the reference module
    CONSTANT = "const"  # a tensor constant created in the reference (torch.tensor([...]))


@dataclass(frozen=True, slots=True)
class SpecParam:
    """A tensor the reference holds rather than receives; ``value`` is its content at trace time.

    Numeric evaluation uses ``value`` unless the caller binds the name; symbolic evaluation treats its
    elements as free inputs (so a proof covers every weight).
    """

    name: str
    kind: ParamKind
    type: ValueType
    value: torch.Tensor = field(compare=False, repr=False)
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True, slots=True)
class SpecNode:
    """``name = op(args) {attrs} : type``, produced by the reference line at ``span``."""

    name: str
    op: SpecOp
    args: tuple[Operand, ...]
    attrs: tuple[tuple[str, AttrValue], ...]
    type: ValueType
    span: Span = field(default=NO_SPAN, compare=False)

    def attr(self, name: str) -> Any:
        for k, v in self.attrs:
            if k == name:
                return v
        raise KeyError(f"{self.op.value} has no attribute {name!r}")

    @property
    def shape(self) -> tuple[ShapeExpr, ...]:
        return self.type.shape

    @property
    def dtype(self) -> ScalarType:
        return self.type.dtype


@dataclass(frozen=True, slots=True)
class SpecGraph:
    """A traced reference: the spec that kernels are verified against.

    ``outputs`` name values in the order the reference returns them (an output may be an input).
    ``assumptions`` are conditions over the symbols under which the spec holds: the task's constraints
    and the guards torch recorded while tracing (such as ``d % 4 == 0`` for a ``view(-1, 4)``). Shape
    equalities in the graph may rely on them (``rot_dim // 2 == rot_dim - rot_dim // 2`` when
    ``rot_dim % 2 == 0``).
    """

    name: str
    symbols: tuple[str, ...]
    inputs: tuple[SpecInput, ...]
    params: tuple[SpecParam, ...]
    nodes: tuple[SpecNode, ...]
    outputs: tuple[str, ...]
    assumptions: tuple[ShapeExpr, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False)

    def types(self) -> dict[str, ValueType]:
        """The type of every value by name: inputs, parameters, then node results."""
        out = {i.name: i.type for i in self.inputs}
        out.update({p.name: p.type for p in self.params})
        out.update({n.name: n.type for n in self.nodes})
        return out

    def node(self, name: str) -> SpecNode:
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def output_types(self) -> tuple[ValueType, ...]:
        types = self.types()
        return tuple(types[o] for o in self.outputs)

    def ops(self) -> Iterator[SpecOp]:
        return (n.op for n in self.nodes)

    def verify(self) -> None:
        """Check names, operand counts and attributes against :data:`OP_SIGNATURES`, and every node's
        shape and dtype against the op's rule; raises :class:`ReferenceError_` at the node's span."""
        from larkc.reference.shapes import assuming

        with assuming(self.assumptions):
            self._verify()

    def _verify(self) -> None:
        from larkc.reference.rules import infer_type
        from larkc.reference.shapes import fmt_shape, same_shape

        types: dict[str, ValueType] = {}
        values: list[SpecInput | SpecParam] = [*self.inputs, *self.params]
        for value in values:
            if value.name in types:
                raise ReferenceError_(f"spec {self.name}: value %{value.name} defined twice", value.span)
            types[value.name] = value.type
        for node in self.nodes:
            where = f"spec {self.name}: %{node.name} = {node.op.value}"
            if node.name in types:
                raise ReferenceError_(f"{where}: value %{node.name} defined twice", node.span)
            sig = OP_SIGNATURES[node.op]
            if sig.variadic:
                if not node.args:
                    raise ReferenceError_(f"{where}: needs at least one operand", node.span)
            elif len(node.args) != len(sig.operands):
                raise ReferenceError_(f"{where}: takes {len(sig.operands)} operands, got {len(node.args)}", node.span)
            if tuple(k for k, _ in node.attrs) != sig.attrs:
                raise ReferenceError_(
                    f"{where}: attributes {[k for k, _ in node.attrs]}, expected {list(sig.attrs)}", node.span
                )
            for a in node.args:
                if isinstance(a, Ref) and a.name not in types:
                    raise ReferenceError_(f"{where}: operand %{a.name} is not defined before use", node.span)
            want = infer_type(node, types)
            if not same_shape(want.shape, node.type.shape) or want.dtype != node.type.dtype:
                raise ReferenceError_(
                    f"{where}: recorded type {node.type.dtype}{fmt_shape(node.type.shape)} but the"
                    f" {node.op.value} rule gives {want.dtype}{fmt_shape(want.shape)}",
                    node.span,
                )
            types[node.name] = node.type
        for out in self.outputs:
            if out not in types:
                raise ReferenceError_(f"spec {self.name}: output %{out} is not defined", self.span)
