"""The host wrapper of a ``load_inline`` extension, read as functions of the input shapes.

A generated ``ModelNew`` exports C++ functions such as::

    torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
        auto size = a.numel();
        auto out = torch::zeros_like(a);
        const int block_size = 256;
        add_kernel<<<(size + block_size - 1) / block_size, block_size>>>(
            a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), size);
        return out;
    }

:func:`evaluate_host` runs such a function abstractly over tree-sitter's syntax tree: tensors are
task tensors with shapes over the symbols, integers are :data:`~larkc.tasks.ShapeExpr`\\ s, and each
``kernel<<<grid, block, smem>>>(...)`` becomes a :class:`HostLaunch` whose arguments are task bindings.
Straight-line code only: declarations, assignments, launches, ``TORCH_CHECK`` (a constraint on the
shapes, or a check that holds), ``if`` on conditions known at derivation time, and ``return``. Anything
else (a loop, a branch on sizes, a call of another host function, a kernel chosen at run time) is an
``unsupported`` error at its line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, assert_never

import tree_sitter as ts

from larkc.errors import LarkcError, Span, Stage, UnsupportedError
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.cnumbers import FloatLiteral, IntLiteral, LiteralProblem, parse_literal, trunc_div, trunc_rem
from larkc.tasks.shape_expr import (
    ArithOp,
    BoolOp,
    CmpOp,
    ShapeArith,
    ShapeBool,
    ShapeCall,
    ShapeCmp,
    ShapeExpr,
    ShapeNum,
    ShapeSym,
    evaluate,
    free_symbols,
)

__all__ = [
    "HostArgument",
    "HostLaunch",
    "HostResult",
    "HostTensor",
    "clamp_instances",
    "evaluate_host",
    "kernel_parameters",
    "kernel_thresholds",
    "show",
]

#: C++ element types of ``data_ptr<T>()`` and casts, and the ``torch::k...`` dtype constants, to larkc's names.
_CXX_TYPES = {
    "float": "f32",
    "double": "f64",
    "half": "f16",
    "__half": "f16",
    "at::Half": "f16",
    "c10::Half": "f16",
    "__nv_bfloat16": "bf16",
    "at::BFloat16": "bf16",
    "c10::BFloat16": "bf16",
    "int": "i32",
    "int32_t": "i32",
    "int64_t": "i64",
    "long": "i64",
    "bool": "bool",
    "uint8_t": "u8",
    "int8_t": "i8",
    "__nv_fp8_e4m3": "f8e4m3",
    "at::Float8_e4m3fn": "f8e4m3",
    "c10::Float8_e4m3fn": "f8e4m3",
    "__nv_fp8_e5m2": "f8e5m2",
}
_TORCH_DTYPES = {
    "kFloat": "f32",
    "kFloat32": "f32",
    "kDouble": "f64",
    "kFloat64": "f64",
    "kHalf": "f16",
    "kFloat16": "f16",
    "kBFloat16": "bf16",
    "kInt": "i32",
    "kInt32": "i32",
    "kLong": "i64",
    "kInt64": "i64",
    "kBool": "bool",
    "kByte": "u8",
    "kUInt8": "u8",
    "kChar": "i8",
    "kInt8": "i8",
    "kFloat8_e4m3fn": "f8e4m3",
    "kFloat8_e5m2": "f8e5m2",
    # at::ScalarType::Float, ...
    "Float": "f32",
    "Double": "f64",
    "Half": "f16",
    "BFloat16": "bf16",
    "Int": "i32",
    "Long": "i64",
    "Float8_e4m3fn": "f8e4m3",
    "Float8_e5m2": "f8e5m2",
}
#: The C++ name of each element type, for ``scalar_t`` in a dispatch macro's body.
_CXX_NAME = {"f32": "float", "f64": "double", "f16": "at::Half", "bf16": "at::BFloat16", "i32": "int", "i64": "int64_t"}
_SIZEOF = {
    "f32": 4,
    "f64": 8,
    "f16": 2,
    "bf16": 2,
    "i32": 4,
    "i64": 8,
    "bool": 1,
    "u8": 1,
    "i8": 1,
    "f8e4m3": 1,
    "f8e5m2": 1,
}
_INT_TYPES = frozenset(
    {"int", "unsigned", "unsigned int", "long", "long long", "int64_t", "int32_t", "size_t", "uint32_t", "uint64_t"}
)
_FLOAT_TYPES = frozenset({"float", "double"})
_INT32_TYPES = frozenset({"int", "unsigned", "unsigned int", "int32_t", "uint32_t"})
#: Calls that do not change what the wrapper computes (error checks, synchronisation, streams).
_NO_EFFECT = frozenset(
    {
        "C10_CUDA_KERNEL_LAUNCH_CHECK",
        "cudaDeviceSynchronize",
        "cudaGetLastError",
        "AT_CUDA_CHECK",
        "C10_CUDA_CHECK",
        "CUDA_CHECK",
        "cudaStreamSynchronize",
        "printf",
    }
)
#: Methods of a tensor that return the same tensor (the inputs larkc makes are contiguous CUDA tensors).
_SAME_TENSOR = frozenset({"contiguous", "cuda", "detach"})
#: RAII guards that make a tensor's device current (``at::cuda::CUDAGuard g(x.device());``): nothing
#: here, since larkc models one device and its current stream.
_GUARDS = frozenset(
    {
        "CUDAGuard",
        "OptionalCUDAGuard",
        "CUDAStreamGuard",
        "OptionalCUDAStreamGuard",
        "DeviceGuard",
        "OptionalDeviceGuard",
    }
)
#: Tensor types of host code (a variable of one holds a task tensor).
_TENSOR_TYPES = frozenset({"torch::Tensor", "at::Tensor", "Tensor"})
#: How many times a host loop is unrolled at most (its trip count is known at derivation time).
MAX_UNROLL = 64
#: Compound assignments and their operator.
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%"}


# -- values ------------------------------------------------------------------------------------------


class _Break(Exception):
    """``break`` in an unrolled host loop."""


class _Continue(Exception):
    """``continue`` in an unrolled host loop."""


@dataclass(frozen=True, slots=True)
class HostTensor:
    """A task tensor (an input, or one the wrapper allocates) seen through a contiguous view of ``shape``."""

    name: str
    shape: tuple[ShapeExpr, ...]
    dtype: str


@dataclass(frozen=True, slots=True)
class _Int:
    expr: ShapeExpr


@dataclass(frozen=True, slots=True)
class _Float:
    value: float


@dataclass(frozen=True, slots=True)
class _FloatExpr:
    """A float computed from sizes (``1.0f / sqrtf(d)``), as a task scalar expression (Python syntax)."""

    text: str


@dataclass(frozen=True, slots=True)
class _Bool:
    value: bool


@dataclass(frozen=True, slots=True)
class _Cond:
    """A condition on the shapes (from a comparison of sizes)."""

    expr: ShapeExpr


@dataclass(frozen=True, slots=True)
class _Dim3:
    dims: tuple[ShapeExpr, ...]


@dataclass(frozen=True, slots=True)
class _Ptr:
    tensor: str
    dtype: str


@dataclass(frozen=True, slots=True)
class _Dtype:
    dtype: str | None  # None: the options of no particular dtype (``torch::TensorOptions()``)


@dataclass(frozen=True, slots=True)
class _List:
    items: tuple[_Value, ...]


@dataclass(frozen=True, slots=True)
class _Opaque:
    """A value the derivation does not need (a stream, a device)."""

    what: str


@dataclass(frozen=True, slots=True)
class _Position:
    """An iterator into a list of sizes (``sizes.begin() + dim``), as the index it stands at."""

    index: ShapeExpr


@dataclass(frozen=True, slots=True)
class _Uninitialised:
    """A variable declared without a value (``int n;``): reading it before it is assigned is a finding."""

    declared: ts.Node


_Value = (
    HostTensor
    | _Int
    | _Float
    | _FloatExpr
    | _Bool
    | _Cond
    | _Dim3
    | _Ptr
    | _Dtype
    | _List
    | _Opaque
    | _Position
    | _Uninitialised
)

#: How a kernel argument binds: a tensor's name, a shape expression, or a constant.
HostArgument = (
    tuple[Literal["tensor"], str]
    | tuple[Literal["shape"], ShapeExpr]
    | tuple[Literal["scalar"], float | bool]
    | tuple[Literal["scalar_expr"], str]
    | tuple[Literal["null"], None]
)


@dataclass(frozen=True, slots=True)
class HostLaunch:
    """One ``kernel<<<grid, block, shared_bytes>>>(arguments)``: the kernel (with template arguments),
    the launch over the shapes and each kernel parameter's binding, in parameter order."""

    kernel: str
    template_args: tuple[str | int, ...]
    grid: tuple[ShapeExpr, ...]
    block: tuple[ShapeExpr, ...]
    shared_bytes: ShapeExpr
    arguments: dict[str, HostArgument]
    span: Span


@dataclass
class HostResult:
    """What a host function does: its launches in order, the tensors it allocates (name to the
    tensor, with ``init`` ``zeros`` or ``empty``), the tensors it returns, and the conditions its
    ``TORCH_CHECK``\\ s put on the shapes."""

    launches: list[HostLaunch] = field(default_factory=list)
    allocated: dict[str, tuple[HostTensor, Literal["zeros", "empty"]]] = field(default_factory=dict)
    returned: list[HostTensor] = field(default_factory=list)
    constraints: list[ShapeExpr] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)  # allocated tensor -> the C++ variable naming it


# -- printing shape expressions ----------------------------------------------------------------------

_PRECEDENCE = {ArithOp.ADD: 1, ArithOp.SUB: 1, ArithOp.MUL: 2, ArithOp.FLOORDIV: 2, ArithOp.MOD: 2}


def show(e: ShapeExpr, parent: int = 0, right: bool = False) -> str:
    """``e`` in the task-file syntax with the parentheses it needs (``cdiv(n, 256)``, ``rows * d``)."""
    match e:
        case ShapeNum(value):
            return str(value) if value >= 0 or parent == 0 else f"({value})"
        case ShapeSym(name):
            return name
        case ShapeArith(op, lhs, rhs):
            prec = _PRECEDENCE[op]
            text = f"{show(lhs, prec)} {op.value} {show(rhs, prec, True)}"
            return f"({text})" if prec < parent or (right and prec == parent) else text
        case ShapeCall(fn, args):
            return f"{fn}({', '.join(show(a) for a in args)})"
        case ShapeCmp(op, lhs, rhs):
            text = f"{show(lhs, 1)} {op.value} {show(rhs, 1)}"
            return f"({text})" if parent else text
        case ShapeBool(op, args):
            text = f" {op.value} ".join(show(a, 1) for a in args)
            return f"({text})" if parent else text
        case _:
            return str(e)


def _arith(op: ArithOp, a: ShapeExpr, b: ShapeExpr) -> ShapeExpr:
    """``a op b`` folded where it can be (constants, ``x * 1``, ``x + 0``), and ``(x + (k - 1)) / k`` as
    ``cdiv(x, k)``; the operands are sizes, so C's truncating division is floor division."""
    if isinstance(a, ShapeNum) and isinstance(b, ShapeNum):
        x, y = a.value, b.value
        match op:
            case ArithOp.ADD:
                return ShapeNum(x + y)
            case ArithOp.SUB:
                return ShapeNum(x - y)
            case ArithOp.MUL:
                return ShapeNum(x * y)
            case ArithOp.FLOORDIV | ArithOp.MOD if y != 0:
                return ShapeNum(trunc_div(x, y) if op is ArithOp.FLOORDIV else trunc_rem(x, y))
    if op in (ArithOp.ADD, ArithOp.SUB) and isinstance(b, ShapeNum):
        if b.value == 0:
            return a
        k = b.value if op is ArithOp.ADD else -b.value
        if isinstance(a, ShapeArith) and a.op is ArithOp.ADD and isinstance(a.rhs, ShapeNum):
            return _arith(ArithOp.ADD, a.lhs, ShapeNum(a.rhs.value + k))
        return ShapeArith(ArithOp.ADD if k > 0 else ArithOp.SUB, a, ShapeNum(abs(k)))
    if op is ArithOp.MUL and isinstance(a, ShapeNum) and a.value == 1:
        return b
    if op in (ArithOp.MUL, ArithOp.FLOORDIV) and isinstance(b, ShapeNum) and b.value == 1:
        return a
    if (
        op is ArithOp.FLOORDIV
        and isinstance(b, ShapeNum)
        and isinstance(a, ShapeArith)
        and a.op is ArithOp.ADD
        and a.rhs == ShapeNum(b.value - 1)
    ):
        return ShapeCall("cdiv", (a.lhs, b))
    return ShapeArith(op, a, b)


#: Math functions of host code over floats: their name in task scalar expressions and their value.
_MATH: dict[str, tuple[str, Callable[[float], float]]] = {
    "sqrtf": ("sqrt", math.sqrt),
    "sqrt": ("sqrt", math.sqrt),
    "rsqrtf": ("rsqrt", lambda x: 1 / math.sqrt(x)),
    "rsqrt": ("rsqrt", lambda x: 1 / math.sqrt(x)),
    "expf": ("exp", math.exp),
    "exp": ("exp", math.exp),
    "logf": ("log", math.log),
    "log": ("log", math.log),
}


def _plain(e: ShapeExpr) -> bool:
    """Whether ``e`` uses only ``+ - *`` (so that it reads the same as a task scalar expression)."""
    match e:
        case ShapeNum() | ShapeSym():
            return True
        case ShapeArith(ArithOp.ADD | ArithOp.SUB | ArithOp.MUL, lhs, rhs):
            return _plain(lhs) and _plain(rhs)
        case _:
            return False


def _positive(e: ShapeExpr) -> bool:
    """Whether ``e`` is at least 1 for every size (symbols are; sums, products, cdiv, max of such are)."""
    match e:
        case ShapeNum(value):
            return value >= 1
        case ShapeSym():
            return True
        case ShapeArith(ArithOp.ADD | ArithOp.MUL, lhs, rhs):
            return _positive(lhs) and _positive(rhs)
        case ShapeCall("cdiv", (a, _)) | ShapeCall("max", (a, *_)):
            return _positive(a)
        case _:
            return False


def _compare_positive(op: str, a: ShapeExpr, b: ShapeExpr) -> bool | None:
    """``a op b`` where it follows from ``a`` being a positive size and ``b`` 0 (``if (n == 0) return``)."""
    if b != ShapeNum(0) or not _positive(a):
        return None
    return {"==": False, "<=": False, "<": False, "!=": True, ">": True, ">=": True}.get(op)


def _product(dims: Sequence[ShapeExpr]) -> ShapeExpr:
    out: ShapeExpr = ShapeNum(1)
    for d in dims:
        out = _arith(ArithOp.MUL, out, d)
    return out


def _factors(e: ShapeExpr) -> list[str]:
    """The factors of a product, as text, in order (``a * (b * 4)``: ``4``, ``a``, ``b``)."""
    if isinstance(e, ShapeArith) and e.op is ArithOp.MUL:
        return sorted(_factors(e.lhs) + _factors(e.rhs))
    return [show(e)]


def _same_size(a: ShapeExpr, b: ShapeExpr) -> bool:
    """Whether ``a`` and ``b`` are the same product of sizes (``n * 4`` and ``4 * n``), read off their form."""
    fa, fb = _factors(a), _factors(b)
    return [f for f in fa if f != "1"] == [f for f in fb if f != "1"]


# -- the syntax tree ---------------------------------------------------------------------------------


def _declared_name(d: ts.Node) -> ts.Node | None:
    """The identifier a declarator declares (``g`` of ``g(x.device())``, ``*p = ...``, ``v``)."""
    while d.type != "identifier":
        inner = d.child_by_field_name("declarator")
        if inner is None:
            return None
        d = inner
    return d


def _function_definitions(root: ts.Node) -> list[tuple[ts.Node, bool]]:
    """Every function definition of the file (in namespaces, ``extern "C"`` blocks and templates), with
    whether it is a ``__global__`` kernel."""
    out: list[tuple[ts.Node, bool]] = []

    def visit(node: ts.Node) -> None:
        for c in node.named_children:
            if c.type == "function_definition":
                words = {node_text(x) for x in c.children if x.type in ("type_qualifier", "attribute_specifier")}
                words |= {node_text(x) for x in c.children if not x.is_named}
                text = node_text(c)
                head = text[: text.find("(")] if "(" in text else text
                out.append((c, "__global__" in words or "__global__" in head.split()))
            elif c.type in (
                "namespace_definition",
                "linkage_specification",
                "template_declaration",
                "declaration_list",
            ):
                visit(c)

    visit(root)
    return out


def _declarator_name(fn: ts.Node) -> tuple[str, ts.Node | None]:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    if d is None:
        return "", None
    name = d.child_by_field_name("declarator")
    return node_text(name), d.child_by_field_name("parameters")


def _parameters(params: ts.Node | None) -> list[tuple[str, str, ts.Node]]:
    """``(name, type text, node)`` of each parameter."""
    out = []
    for p in params.named_children if params is not None else []:
        if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        d = p.child_by_field_name("declarator")
        pointer = False
        while d is not None and d.type in ("pointer_declarator", "reference_declarator", "abstract_pointer_declarator"):
            pointer = pointer or d.type != "reference_declarator"
            inner = d.child_by_field_name("declarator")
            if inner is None:
                inner = next((c for c in d.named_children if c.type == "identifier"), None)
            d = inner
        type_text = " ".join(node_text(p.child_by_field_name("type")).split()) + (" *" if pointer else "")
        out.append((node_text(d), type_text, p))
    return out


def kernel_parameters(root: ts.Node, kernel: str) -> list[str] | None:
    """The parameter names of ``__global__`` function ``kernel`` (its last definition), if there is one."""
    found = None
    for fn, is_kernel in _function_definitions(root):
        name, params = _declarator_name(fn)
        if is_kernel and name.split("::")[-1] == kernel:
            found = [n for n, _, _ in _parameters(params)]
    return found


# -- evaluation --------------------------------------------------------------------------------------


class _Evaluator:
    def __init__(
        self,
        root: ts.Node,
        span: Callable[[ts.Node], Span],
        arguments: Mapping[str, HostTensor | float | int | bool | tuple[int, ...] | ShapeExpr | None],
    ) -> None:
        self.root = root
        self.span = span
        self.env: dict[str, _Value] = {}
        for k, v in arguments.items():
            match v:
                case HostTensor():
                    self.env[k] = v
                case bool():
                    self.env[k] = _Bool(v)
                case int():
                    self.env[k] = _Int(ShapeNum(v))
                case float():
                    self.env[k] = _Float(v)
                case None:  # an absent optional tensor (forward passes None): has_value() is false
                    self.env[k] = _Opaque("absent")
                case tuple():  # a list of integers (an IntArrayRef: stride)
                    self.env[k] = _List(tuple(_Int(ShapeNum(int(i))) for i in v))
                case ShapeNum() | ShapeSym() | ShapeArith() | ShapeCall():  # a size forward computed: x.size(0)
                    self.env[k] = _Int(v)
        self.result = HostResult()
        self.done = False
        self.prefix = ""
        self.aliases: dict[str, str] = {}  # type names bound by a dispatch macro (scalar_t -> float)
        self.given: Mapping[str, int] | None = None  # the problem's sizes
        self.owned: frozenset[str] = frozenset()  # tensors the caller allocated for this function to fill
        self.types: dict[str, str] = {}  # declared type of each local variable (`int`, `float *`, `auto`)
        self.loops = 0  # how many loops the statement being evaluated is in (for `break`, `continue`)

    def unsupported(self, what: str, node: ts.Node) -> LarkcError:
        return UnsupportedError(what, node_text(node), self.span(node), stage=Stage.FRONTEND)

    def error(self, message: str, node: ts.Node) -> LarkcError:
        return LarkcError(message, self.span(node), stage=Stage.FRONTEND)

    # statements

    def block(self, node: ts.Node) -> None:
        for s in node.named_children:
            if self.done:
                return
            self.statement(s)

    def statement(self, s: ts.Node) -> None:
        match s.type:
            case "comment":
                return
            case "declaration":
                self.declaration(s)
            case "expression_statement":
                e = s.named_children[0] if s.named_children else None
                if e is not None:
                    self.effect(e)
            case "return_statement":
                e = s.named_children[0] if s.named_children else None
                if e is not None:
                    self.returns(e)
                self.done = True  # a void function's `return;` too
            case "compound_statement":
                self.block(s)
            case "if_statement":
                cond = s.child_by_field_name("condition")
                inner = cond.named_children[-1] if cond is not None and cond.named_children else cond
                assert inner is not None
                v = self.expr(inner)
                if not isinstance(v, _Bool):
                    raise self.unsupported("branch on sizes in host code", inner)
                branch = s.child_by_field_name("consequence" if v.value else "alternative")
                if branch is not None:
                    if branch.type == "else_clause":
                        branch = branch.named_children[0]
                    self.statement(branch)
            case "for_statement" | "while_statement" | "for_range_loop":
                self.loop(s)
            case "break_statement" | "continue_statement" if self.loops:
                raise _Break() if s.type == "break_statement" else _Continue()
            case "do_statement":
                raise self.unsupported("do loop in host code", s)
            case _:
                raise self.unsupported(f"{s.type.replace('_', ' ')} in host code", s)

    def loop(self, s: ts.Node) -> None:
        """A loop whose trip count is known at derivation time (``for (int i = 0; i < x.dim(); ++i)``),
        unrolled: each iteration's condition must be a constant, and at most :data:`MAX_UNROLL` run.
        A condition on sizes (a launch per row) is an error at it. The loop's own variables are gone after it."""
        outer = dict(self.env)
        outer_types = dict(self.types)
        body = s.child_by_field_name("body")
        assert body is not None
        items: Sequence[_Value] | None = None
        if s.type == "for_range_loop":
            right = s.child_by_field_name("right")
            name = s.child_by_field_name("declarator")
            assert right is not None and name is not None
            seq = self.expr(right)
            if not isinstance(seq, _List) or name.type not in ("identifier", "reference_declarator"):
                raise self.unsupported("range loop in host code (over something other than a list of sizes)", s)
            items = seq.items
            if len(items) > MAX_UNROLL:
                raise self.error(f"host loop of more than {MAX_UNROLL} iterations (larkc unrolls host loops)", s)
        elif s.type == "for_statement":
            init = s.child_by_field_name("initializer")
            if init is not None:
                if init.type == "declaration":
                    self.declaration(init)
                else:
                    self.effect(init)
        condition = s.child_by_field_name("condition")
        update = s.child_by_field_name("update")
        trips = 0
        self.loops += 1
        try:
            while not self.done:
                if items is not None:
                    if trips == len(items):
                        break
                    declarator = s.child_by_field_name("declarator")
                    assert declarator is not None
                    self.env[node_text(declarator).lstrip("&").strip()] = items[trips]
                elif condition is not None:
                    inner = condition
                    if inner.type == "condition_clause":
                        inner = inner.child_by_field_name("value") or inner.named_children[-1]
                    c = self.expr(inner)
                    if not isinstance(c, _Bool):
                        raise self.unsupported(
                            "loop in host code whose trip count depends on the sizes "
                            "(a launch count is derived from straight-line code)",
                            s,
                        )
                    if not c.value:
                        break
                if trips == MAX_UNROLL:
                    raise self.error(
                        f"host loop runs more than {MAX_UNROLL} iterations at the problem's shape "
                        "(larkc unrolls host loops whose trip count is a constant, up to that many)",
                        s,
                    )
                trips += 1
                try:
                    self.statement(body)
                except _Continue:
                    pass
                except _Break:
                    break
                if update is not None and not self.done:
                    self.effect(update)
        finally:
            self.loops -= 1
        # the loop's variables end with it; what it assigned to variables declared before it stays
        for k in list(self.env):
            if k not in outer:
                del self.env[k]
        self.types = {k: v for k, v in self.types.items() if k in outer_types}

    def declaration(self, s: ts.Node) -> None:
        type_node = s.child_by_field_name("type")
        assert type_node is not None
        type_text = self.cxx_type(type_node)
        if type_text.split("::")[-1] in _GUARDS:
            for d in s.children_by_field_name("declarator"):  # the guard's own name: nothing to do with it
                self.env[node_text(_declared_name(d) or d)] = _Opaque("guard")
            return
        for d in s.children_by_field_name("declarator"):
            self.declarator(type_text, d)

    def declarator(self, type_text: str, d: ts.Node) -> None:
        """One declarator of a declaration of type ``type_text``: ``n = x.numel()``, ``* p = x.data_ptr<float>()``,
        ``g(a, b)`` (a ``dim3`` constructed, which tree-sitter reads as a function declaration), ``n``."""
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        target = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        pointer = False
        while target is not None and target.type in ("pointer_declarator", "reference_declarator"):
            pointer = pointer or target.type == "pointer_declarator"
            target = target.child_by_field_name("declarator") or next(
                (c for c in target.named_children if c.type == "identifier"), None
            )
        arguments: Sequence[tuple[_Value, ts.Node]] | None = None
        if value is not None and value.type in ("argument_list", "initializer_list"):  # dim3 g(a, 16); dim3 g{a};
            arguments = [(self.expr(a), a) for a in value.named_children if a.type != "comment"]
        elif target is not None and target.type == "function_declarator" and not pointer:
            # C++'s most vexing parse: `dim3 block(bx, by);` is a function declaration to the grammar, but in
            # a function body, with names of values in scope as its "parameter types", it defines an object
            arguments = self.constructor_arguments(target)
            if arguments is None:
                raise self.unsupported("declaration in host code", d)
            target = target.child_by_field_name("declarator")
        if target is None or target.type != "identifier":
            raise self.unsupported("declaration in host code", d)
        name = node_text(target)
        base = type_text.removeprefix("const ").strip()
        if arguments is None and value is None:
            if base == "dim3" and not pointer:
                self.env[name] = _Dim3((ShapeNum(1),))
            elif base.startswith("std::vector<") and not pointer:
                self.env[name] = _List(())  # an empty vector (of sizes, once something is pushed)
            else:
                self.env[name] = _Uninitialised(d)
            self.types[name] = base + (" *" if pointer else "")
            return
        v: _Value
        if arguments is not None:
            v = self.construct(base, pointer, arguments, d)
        else:
            assert value is not None
            v = self.expr(value)
            if pointer:
                v = self.pointer(base, v, value)
            elif base == "dim3":
                v = self.as_dim3(v, value)
        self.bind(name, base + (" *" if pointer else ""), v, value if value is not None else d)

    def bind(self, name: str, type_text: str, v: _Value, node: ts.Node) -> None:
        """``name`` holds ``v`` (of the variable's declared type ``type_text``)."""
        self.env[name] = self.convert(v, type_text, node)
        self.types[name] = type_text
        if isinstance(v, HostTensor) and v.name in self.result.allocated:
            self.result.variables.setdefault(v.name, name)

    def constructor_arguments(self, declarator: ts.Node) -> list[tuple[_Value, ts.Node]] | None:
        """The arguments of ``T v(a, b * c)`` read as a function declaration whose "parameters" are a
        "type" ``a`` and a "pointer" ``c`` to "type" ``b``: each must be a name of a value in scope, or a
        product of such names (a type name makes it a declaration indeed, and then ``None``)."""
        params = declarator.child_by_field_name("parameters")
        out: list[tuple[_Value, ts.Node]] = []
        for p in params.named_children if params is not None else []:
            if p.type == "comment":
                continue
            t = p.child_by_field_name("type")
            if p.type != "parameter_declaration" or t is None or t.type != "type_identifier":
                return None
            factors = [t]
            d = p.child_by_field_name("declarator")
            while d is not None and d.type == "pointer_declarator" and len(d.named_children) == 1:
                d = d.child_by_field_name("declarator")
                if d is not None and d.type == "identifier":
                    factors.append(d)
                    d = None
                elif d is not None and d.type != "pointer_declarator":
                    return None
            if d is not None or any(node_text(f) not in self.env for f in factors):
                return None
            v = self.expr(factors[0])
            for f in factors[1:]:
                v = self.operate("*", v, self.expr(f), p)
            out.append((v, p))
        return out

    def construct(
        self, type_text: str, pointer: bool, arguments: Sequence[tuple[_Value, ts.Node]], d: ts.Node
    ) -> _Value:
        """``T v(args)`` or ``T v{args}``: a ``dim3``, a copy of a tensor, a number from one value."""
        if type_text == "dim3" and not pointer:
            return self.dim3_of(arguments, d)
        if len(arguments) == 1:
            v, node = arguments[0]
            if pointer:
                return self.pointer(type_text, v, node)
            if type_text in _TENSOR_TYPES and isinstance(v, HostTensor):
                return v
            if type_text in _INT_TYPES | _FLOAT_TYPES or type_text == "auto":
                return v
        raise self.unsupported(f"initialisation of {type_text}", d)

    def pointer(self, type_text: str, v: _Value, node: ts.Node) -> _Value:
        """A pointer variable (``const float* __restrict__ a = A.data_ptr<float>();``): a tensor's data,
        of the declared element type."""
        if v == _Opaque("null"):
            return v  # `float* bias_ptr = nullptr;` (passing it to a kernel is an error at the launch)
        if not isinstance(v, _Ptr):
            raise self.unsupported(f"pointer of type {type_text} * in host code (expected a tensor's data_ptr)", node)
        if type_text == "auto":
            return v
        return self.cast(f"{type_text}*", v, node)

    def convert(self, v: _Value, type_text: str, node: ts.Node) -> _Value:
        if type_text in _INT_TYPES and isinstance(v, _Float):
            return _Int(ShapeNum(int(v.value)))
        if type_text in _INT32_TYPES and isinstance(v, _Int) and self.given is not None:
            # host integers are exact shape expressions: a 32-bit one must hold its value at every size
            # allowed, that is up to the problem's (the derived constraints bound every size by it)
            lo, hi = (0, 2**32) if type_text.startswith(("unsigned", "uint")) else (-(2**31), 2**31)
            value = int(evaluate(v.expr, dict(self.given)))
            if not lo <= value < hi:
                raise self.error(f"{type_text} {show(v.expr)} overflows at the problem's shape ({value})", node)
        if type_text in _FLOAT_TYPES and isinstance(v, _Int):
            if not isinstance(v.expr, ShapeNum):
                return self.float_expr(v, node)
            return _Float(float(v.expr.value))
        if type_text in _INT_TYPES and isinstance(v, _FloatExpr):
            raise self.unsupported("integer computed from a floating-point value of sizes", node)
        return v

    def effect(self, e: ts.Node) -> None:
        if e.type == "assignment_expression":
            self.assign(e)
            return
        if e.type == "update_expression":  # ++i, i--
            arg = e.child_by_field_name("argument")
            op = node_text(e.child_by_field_name("operator"))
            assert arg is not None
            if arg.type != "identifier":
                raise self.unsupported("update in host code", e)
            self.store(arg, self.operate(op[0], self.expr(arg), _Int(ShapeNum(1)), e), e)
            return
        if e.type == "comma_expression":  # ++i, ++j
            for side in ("left", "right"):
                part = e.child_by_field_name(side)
                assert part is not None
                self.effect(part)
            return
        if e.type == "call_expression":
            if any(c.type == "kernel_call_syntax" for c in e.children):
                self.launch(e)
                return
            fn = e.child_by_field_name("function")
            assert fn is not None
            if fn.type == "field_expression" and self.mutation(fn, e):
                return
            name = node_text(fn)
            if name in ("TORCH_CHECK", "AT_ASSERT", "TORCH_INTERNAL_ASSERT", "assert"):
                args = e.child_by_field_name("arguments")
                assert args is not None and args.named_children
                self.check(args.named_children[0])
                return
            if name.split("::")[-1] in _NO_EFFECT:
                return
            if name.startswith("AT_DISPATCH_"):
                self.dispatch(e)
                return
            if name.split("::")[-1] == "cudaMemset":
                args = e.child_by_field_name("arguments")
                self.memset(args.named_children if args is not None else [], e)
                return
            self.expr(e)  # a call with a value, dropped: evaluated for its errors
            return
        raise self.unsupported("statement in host code", e)

    def assign(self, e: ts.Node) -> None:
        """``v = ...``, ``v *= ...`` (also on a variable declared without a value) and ``sizes[i] = ...``."""
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        op = node_text(e.child_by_field_name("operator"))
        assert left is not None and right is not None
        if op != "=" and op not in _COMPOUND:
            raise self.unsupported("assignment in host code", e)
        if left.type == "subscript_expression":  # out_sizes[dim] = 1;
            arg = left.child_by_field_name("argument")
            idx = left.child_by_field_name("indices") or left.child_by_field_name("index")
            assert arg is not None and idx is not None
            base = self.expr(arg)
            i = self.constant_int(idx.named_children[0] if idx.type == "subscript_argument_list" else idx)
            if arg.type != "identifier" or not isinstance(base, _List) or not -len(base.items) <= i < len(base.items):
                raise self.unsupported("assignment in host code", e)
            i %= len(base.items)
            v = self.expr(right)
            if op != "=":
                v = self.operate(_COMPOUND[op], base.items[i], v, e)
            self.env[node_text(arg)] = _List((*base.items[:i], v, *base.items[i + 1 :]))
            return
        if left.type == "field_expression":  # dim3 grid; grid.x = blocks;
            arg = left.child_by_field_name("argument")
            field_name = node_text(left.child_by_field_name("field"))
            assert arg is not None
            grid = self.expr(arg)
            if arg.type != "identifier" or not isinstance(grid, _Dim3) or field_name not in ("x", "y", "z"):
                raise self.unsupported("assignment in host code", e)
            v = self.expr(right)
            if op != "=":
                v = self.operate(_COMPOUND[op], self.expr(left), v, e)
            if not isinstance(v, _Int):
                raise self.unsupported("dim3 component", right)
            dims = [*grid.dims, *[ShapeNum(1)] * (3 - len(grid.dims))]
            dims["xyz".index(field_name)] = v.expr
            while len(dims) > 1 and dims[-1] == ShapeNum(1):
                dims.pop()
            self.env[node_text(arg)] = _Dim3(tuple(dims))
            return
        if left.type != "identifier":
            raise self.unsupported("assignment in host code", e)
        v = self.expr(right)
        if op != "=":
            v = self.operate(_COMPOUND[op], self.expr(left), v, e)
        self.store(left, v, e)

    def store(self, name_node: ts.Node, v: _Value, e: ts.Node) -> None:
        """``v`` into the variable ``name_node`` names, converted to its declared type."""
        name = node_text(name_node)
        if name not in self.env:
            raise self.unsupported("name in host code", name_node)
        declared = self.types.get(name)
        if declared is not None and declared.endswith(" *"):
            v = self.pointer(declared.removesuffix(" *"), v, e)
        elif declared == "dim3":
            v = self.as_dim3(v, e)
        self.bind(name, declared or "auto", v, e)

    def mutation(self, fn: ts.Node, e: ts.Node) -> bool:
        """A method call that changes its receiver, if ``e`` is one: ``sizes.erase(sizes.begin() + dim)``,
        ``sizes.push_back(n)`` on a list of sizes, ``out.zero_()`` on a tensor the function allocated."""
        receiver = fn.child_by_field_name("argument")
        method = node_text(fn.child_by_field_name("field"))
        args_node = e.child_by_field_name("arguments")
        args = args_node.named_children if args_node is not None else []
        if receiver is None or receiver.type != "identifier":
            return False
        recv = self.expr(receiver)
        if isinstance(recv, _List) and method in ("erase", "push_back", "emplace_back", "pop_back", "insert"):
            items = list(recv.items)
            if method in ("push_back", "emplace_back") and len(args) == 1:
                items.append(self.expr(args[0]))
            elif method == "pop_back" and not args and items:
                items.pop()
            elif method in ("erase", "insert") and len(args) == (1 if method == "erase" else 2):
                at = self.expr(args[0])
                if not isinstance(at, _Position) or not isinstance(at.index, ShapeNum):
                    raise self.unsupported(f"{method} at a position that is not a constant", args[0])
                i = at.index.value
                if not 0 <= i < len(items) + (method == "insert"):
                    raise self.error(f"{method} at position {i} of a list of {len(items)} sizes", e)
                if method == "erase":
                    del items[i]
                else:
                    items.insert(i, self.expr(args[1]))
            else:
                raise self.unsupported(f"{method} of a list of sizes", e)
            self.env[node_text(receiver)] = _List(tuple(items))
            return True
        if isinstance(recv, HostTensor) and method in ("zero_", "fill_"):
            if method == "fill_" and (len(args) != 1 or self.expr(args[0]) not in (_Int(ShapeNum(0)), _Float(0.0))):
                raise self.unsupported("fill_ with a value other than 0 in host code", e)
            self.zero(recv, e)
            return True
        return False

    def zero(self, t: HostTensor, e: ts.Node) -> None:
        """Tensor ``t`` is set to zeros (``t.zero_()``, ``cudaMemset(p, 0, bytes)``): one the function
        allocated, before any launch reads or writes it, starts zeroed."""
        if t.name not in self.result.allocated:
            raise self.unsupported("zeroing of a tensor the host function did not allocate", e)
        if any(("tensor", t.name) in launch.arguments.values() for launch in self.result.launches):
            raise self.unsupported("zeroing of a tensor after a launch that used it", e)
        tensor, _ = self.result.allocated[t.name]
        self.result.allocated[t.name] = (tensor, "zeros")

    def memset(self, args: Sequence[ts.Node], e: ts.Node) -> None:
        """``cudaMemset(t.data_ptr<float>(), 0, t.numel() * sizeof(float))``: all of an allocated tensor
        zeroed."""
        if len(args) != 3:
            raise self.unsupported("cudaMemset in host code", e)
        ptr, value, size = (self.expr(a) for a in args)
        if not isinstance(ptr, _Ptr) or value != _Int(ShapeNum(0)) or not isinstance(size, _Int):
            raise self.unsupported("cudaMemset in host code (other than all of a tensor's bytes to 0)", e)
        tensor, _ = self.result.allocated.get(ptr.tensor, (None, "empty"))
        if tensor is None:
            raise self.unsupported("cudaMemset of a tensor the host function did not allocate", e)
        whole = _arith(ArithOp.MUL, _product(tensor.shape), ShapeNum(_SIZEOF[tensor.dtype]))
        if not _same_size(size.expr, whole):
            raise self.unsupported(f"cudaMemset of {show(size.expr)} bytes of a tensor of {show(whole)}", e)
        self.zero(tensor, e)

    def file_constants(self, root: ts.Node) -> None:
        """File-level constants (``constexpr int BLOCK = 256;``, ``const float EPS = 1e-5f;``) the host
        function may use; the function's parameters hide them. Device variables and anything that does
        not evaluate are left out (a use of them is then an error at the use)."""
        for node in root.named_children:
            if node.type in ("namespace_definition", "linkage_specification"):
                body = node.child_by_field_name("body")
                if body is not None:
                    self.file_constants(body)
                continue
            if node.type != "declaration":
                continue
            words = {node_text(c) for c in node.children}
            if words & {"__device__", "__constant__", "__shared__", "extern", "__managed__"}:
                continue
            type_text = " ".join(node_text(node.child_by_field_name("type")).split())
            for d in node.children_by_field_name("declarator"):
                name_node = d.child_by_field_name("declarator") if d.type == "init_declarator" else None
                value = d.child_by_field_name("value") if d.type == "init_declarator" else None
                if name_node is None or value is None or name_node.type != "identifier":
                    continue
                if node_text(name_node) in self.env or value.type in ("argument_list", "initializer_list"):
                    continue
                try:
                    self.env[node_text(name_node)] = self.convert(self.expr(value), type_text, value)
                except LarkcError:
                    continue

    def dispatch(self, e: ts.Node) -> None:
        """``AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "name", [&] { ... })``: the lambda's body with
        ``scalar_t`` the C++ type of the dispatched dtype."""
        args_node = e.child_by_field_name("arguments")
        args = args_node.named_children if args_node is not None else []
        body = args[-1] if args else None
        while body is not None and body.type == "parenthesized_expression" and body.named_children:
            body = body.named_children[0]
        if len(args) < 3 or body is None or body.type != "lambda_expression":
            raise self.unsupported("dispatch macro", e)
        d = self.expr(args[0])
        if not isinstance(d, _Dtype) or d.dtype is None or d.dtype not in _CXX_NAME:
            raise self.unsupported("dispatch on this type", args[0])
        block = body.child_by_field_name("body")
        assert block is not None
        saved = dict(self.aliases)
        self.aliases["scalar_t"] = _CXX_NAME[d.dtype]
        try:
            self.block(block)
        finally:
            self.aliases = saved

    def cxx_type(self, node: ts.Node) -> str:
        """The normalised text of a type, with the dispatch macros' ``scalar_t`` replaced by its type."""
        text = " ".join(node_text(node).split())
        return self.aliases.get(text, text)

    def check(self, cond: ts.Node) -> None:
        v = self.expr(cond)
        match v:
            case _Bool(True):
                return
            case _Bool(False):
                raise self.error("this check fails on the problem's inputs", cond)
            case _Cond(expr):
                self.result.constraints.append(expr)
            case _:
                raise self.unsupported("check in host code", cond)

    def returns(self, e: ts.Node) -> None:
        v = self.expr(e)
        items = v.items if isinstance(v, _List) else (v,)
        for item in items:
            if not isinstance(item, HostTensor):
                raise self.unsupported("return value of a host function (expected tensors)", e)
            if item.name not in self.result.allocated and item.name not in self.owned:
                raise self.unsupported("return of an input tensor (in-place results)", e)
            self.result.returned.append(item)

    def launch(self, e: ts.Node) -> None:
        fn = e.child_by_field_name("function")
        assert fn is not None
        template_args: tuple[str | int, ...] = ()
        if fn.type == "template_function":
            name_node = fn.child_by_field_name("name")
            targs = fn.child_by_field_name("arguments")
            template_args = tuple(self.template_arg(a) for a in (targs.named_children if targs else []))
        else:
            name_node = fn
        if name_node is None or name_node.type not in ("identifier", "qualified_identifier"):
            raise self.unsupported("launch of a kernel chosen at run time", fn)
        kernel = node_text(name_node)
        params = kernel_parameters(self.root, kernel.split("::")[-1])
        if params is None:
            raise self.unsupported("launch of a kernel chosen at run time (no __global__ function of this name)", fn)
        config = next(c for c in e.children if c.type == "kernel_call_syntax")
        parts = config.named_children
        if len(parts) < 2:
            raise self.unsupported("launch configuration", config)
        grid = self.as_dim3(self.expr(parts[0]), parts[0]).dims
        block = self.as_dim3(self.expr(parts[1]), parts[1]).dims
        smem: ShapeExpr = ShapeNum(0)
        if len(parts) > 2:
            s = self.expr(parts[2])
            if not isinstance(s, _Int):
                raise self.unsupported("dynamic shared memory size", parts[2])
            smem = s.expr
        if len(parts) > 3:  # the stream: the current one (PyTorch's), or the default one (0)
            stream = self.expr(parts[3])
            if stream not in (_Opaque("stream"), _Int(ShapeNum(0)), _Opaque("null")):
                raise self.unsupported("launch on a stream other than the current one", parts[3])
        args_node = e.child_by_field_name("arguments")
        args = args_node.named_children if args_node is not None else []
        if len(args) != len(params):
            raise self.error(f"{kernel} takes {len(params)} arguments, the launch passes {len(args)}", e)
        bindings: dict[str, HostArgument] = {}
        for p, a in zip(params, args, strict=True):
            bindings[p] = self.argument(a)
        self.result.launches.append(HostLaunch(kernel, template_args, grid, block, smem, bindings, self.span(e)))

    def template_arg(self, a: ts.Node) -> str | int:
        if a.type == "type_descriptor":
            return self.cxx_type(a)
        v = self.expr(a)
        if isinstance(v, _Int) and isinstance(v.expr, ShapeNum):
            return v.expr.value
        if isinstance(v, _Bool):
            return int(v.value)
        raise self.unsupported("template argument that depends on sizes", a)

    def argument(self, a: ts.Node) -> HostArgument:
        v = self.expr(a)
        match v:
            case _Ptr(tensor, _):
                return ("tensor", tensor)
            case _Int(expr):
                return ("shape", expr)
            case _Float(value):
                return ("scalar", value)
            case _Bool(value):
                return ("scalar", value)
            case _FloatExpr(text):
                return ("scalar_expr", text)
            case _Opaque("null"):
                return ("null", None)  # a null pointer: the task binds it so (a kernel dereferencing it fails)
            case _:
                raise self.unsupported("kernel argument", a)

    # expressions

    def dim3(self, items: Sequence[ts.Node], node: ts.Node) -> _Dim3:
        return self.dim3_of([(self.expr(it), it) for it in items], node)

    def dim3_of(self, items: Sequence[tuple[_Value, ts.Node]], node: ts.Node) -> _Dim3:
        dims = []
        for v, it in items:
            if not isinstance(v, _Int):
                raise self.unsupported("dim3 component", it)
            dims.append(v.expr)
        if not 1 <= len(dims) <= 3:
            raise self.unsupported("dim3", node)
        return _Dim3(tuple(dims))

    def as_dim3(self, v: _Value, node: ts.Node) -> _Dim3:
        if isinstance(v, _Dim3):
            return v
        if isinstance(v, _Int):
            return _Dim3((v.expr,))
        raise self.unsupported("launch dimension", node)

    def expr(self, e: ts.Node) -> _Value:
        match e.type:
            case "parenthesized_expression":
                return self.expr(e.named_children[0])
            case "number_literal":
                return self.number(e)
            case "true" | "false":
                return _Bool(e.type == "true")
            case "null":
                return _Opaque("null")  # a null pointer: passing it to a kernel is an error at the launch
            case "identifier" | "type_identifier":  # a type identifier: a name in `dim3 g(a, b);`
                name = node_text(e)
                if name in self.env:
                    v = self.env[name]
                    if isinstance(v, _Uninitialised):
                        line = self.span(v.declared).line
                        raise self.error(
                            f"host variable {name} is used before it is initialised "
                            f"(declared without a value at line {line})",
                            e,
                        )
                    return v
                if name == "NULL":
                    return _Opaque("null")
                if kernel_parameters(self.root, name) is not None:
                    return _Opaque("kernel")  # a kernel as a value: launching it is an error
                if name == "cudaSuccess":
                    return _Opaque("cudaSuccess")
                raise self.unsupported("name in host code", e)
            case "qualified_identifier":
                last = node_text(e).split("::")[-1]
                if last in _TORCH_DTYPES:
                    return _Dtype(_TORCH_DTYPES[last])
                if last == "kCUDA":
                    return _Opaque("device")
                raise self.unsupported("name in host code", e)
            case "binary_expression":
                return self.binary(e)
            case "unary_expression":
                op = node_text(e.child_by_field_name("operator"))
                arg = e.child_by_field_name("argument")
                assert arg is not None
                v = self.expr(arg)
                if op == "-" and isinstance(v, _Int):
                    return _Int(_arith(ArithOp.SUB, ShapeNum(0), v.expr))
                if op == "-" and isinstance(v, _Float):
                    return _Float(-v.value)
                if op == "!" and isinstance(v, _Bool):
                    return _Bool(not v.value)
                raise self.unsupported("operator in host code", e)
            case "conditional_expression":
                cond = e.child_by_field_name("condition")
                assert cond is not None
                c = self.expr(cond)
                if not isinstance(c, _Bool):
                    arms = [e.child_by_field_name(f) for f in ("consequence", "alternative")]
                    if any(a is not None and kernel_parameters(self.root, node_text(a)) is not None for a in arms):
                        raise self.unsupported("kernel chosen at run time", e)
                    clamp = self.min_max(c, arms)
                    if clamp is not None:
                        return clamp
                    raise self.unsupported("choice on sizes in host code", e)
                branch = e.child_by_field_name("consequence" if c.value else "alternative")
                assert branch is not None
                return self.expr(branch)
            case "sizeof_expression":
                t = e.child_by_field_name("type")
                dtype = _CXX_TYPES.get(self.cxx_type(t)) if t is not None else None
                if dtype is None:
                    raise self.unsupported("sizeof in host code", e)
                return _Int(ShapeNum(_SIZEOF[dtype]))
            case "cast_expression":
                t = e.child_by_field_name("type")
                value = e.child_by_field_name("value")
                assert t is not None and value is not None
                return self.cast(self.cxx_type(t), self.expr(value), e)
            case "initializer_list":
                return _List(tuple(self.expr(c) for c in e.named_children))
            case "call_expression":
                return self.call(e)
            case "subscript_expression":
                arg = e.child_by_field_name("argument")
                idx = e.child_by_field_name("indices") or e.child_by_field_name("index")
                assert arg is not None and idx is not None
                base = self.expr(arg)
                inner = idx.named_children[0] if idx.type == "subscript_argument_list" else idx
                i = self.constant_int(inner)
                if isinstance(base, _List) and -len(base.items) <= i < len(base.items):
                    return base.items[i]
                raise self.unsupported("subscript in host code", e)
            case "field_expression":
                arg = e.child_by_field_name("argument")
                fname = node_text(e.child_by_field_name("field"))
                assert arg is not None
                base = self.expr(arg)
                if isinstance(base, _Dim3) and fname in ("x", "y", "z"):
                    i = "xyz".index(fname)
                    return _Int(base.dims[i] if i < len(base.dims) else ShapeNum(1))
                raise self.unsupported("member in host code", e)
            case _:
                raise self.unsupported(f"{e.type.replace('_', ' ')} in host code", e)

    def min_max(self, c: _Value, arms: Sequence[ts.Node | None]) -> _Value | None:
        """``n > 1024 ? 1024 : n`` (and the other spellings of a minimum or maximum of two sizes) as
        ``min(n, 1024)``, if ``c ? arms[0] : arms[1]`` is one."""
        if not isinstance(c, _Cond) or not isinstance(c.expr, ShapeCmp) or None in arms:
            return None
        values = [self.expr(a) for a in arms if a is not None]
        if not all(isinstance(v, _Int) for v in values):
            return None
        then, other = (v.expr for v in values if isinstance(v, _Int))
        op, lhs, rhs = c.expr.op, c.expr.lhs, c.expr.rhs
        if {then, other} != {lhs, rhs} or lhs == rhs or op in (CmpOp.EQ, CmpOp.NE):
            return None
        greater = op in (CmpOp.GT, CmpOp.GE)  # the condition holds where lhs is the larger
        return _Int(ShapeCall("max" if greater == (then == lhs) else "min", (lhs, rhs)))

    def number(self, e: ts.Node) -> _Value:
        text = node_text(e)
        negative = text.startswith("-")  # tree-sitter lexes a leading sign into the literal
        lit = parse_literal(text.removeprefix("-").removeprefix("+"))
        match lit:
            case IntLiteral(value=value):
                return _Int(ShapeNum(-value if negative else value))
            case FloatLiteral(value=value):
                return _Float(-value if negative else value)
            case LiteralProblem():
                raise self.unsupported("number", e)
            case _:
                assert_never(lit)

    def constant_int(self, e: ts.Node) -> int:
        v = self.expr(e)
        if isinstance(v, _Int) and isinstance(v.expr, ShapeNum):
            return v.expr.value
        raise self.unsupported("index that is not a constant", e)

    def cast(self, type_text: str, v: _Value, e: ts.Node) -> _Value:
        for alias, actual in self.aliases.items():  # (scalar_t*) p
            type_text = " ".join(actual if w == alias else w for w in type_text.replace("*", " * ").split())
        type_text = type_text.replace(" *", "*")
        base = type_text.replace("const ", "").replace(" ", "")
        if base.endswith("*"):
            elem = _CXX_TYPES.get(type_text.replace("const", "").replace("*", "").strip())
            if isinstance(v, _Ptr) and elem is not None:
                if v.dtype not in ("void", elem):
                    raise self.error(f"a {v.dtype} tensor read as {elem} elements", e)
                return _Ptr(v.tensor, elem)
            raise self.unsupported("pointer cast in host code", e)
        return self.convert(v, type_text, e)

    def binary(self, e: ts.Node) -> _Value:
        op = node_text(e.child_by_field_name("operator"))
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        assert left is not None and right is not None
        return self.operate(op, self.expr(left), self.expr(right), e)

    def operate(self, op: str, a: _Value, b: _Value, e: ts.Node) -> _Value:
        """``a op b`` (``e`` the expression, or the assignment ``a op= b``)."""
        if isinstance(a, HostTensor) or isinstance(b, HostTensor):
            raise self.unsupported(
                f"torch arithmetic ({op}) on a tensor in host code (a computation on the kernel's output "
                "after the launch is not modelled yet)",
                e,
            )
        if isinstance(a, _Position) and isinstance(b, _Int) and op in ("+", "-"):
            return _Position(_arith(ArithOp.ADD if op == "+" else ArithOp.SUB, a.index, b.expr))
        if op in ("&&", "||"):
            return self.logical(op, a, b, e)
        if isinstance(a, _Dtype) and isinstance(b, _Dtype) and op in ("==", "!="):
            return _Bool((a.dtype == b.dtype) == (op == "=="))
        if isinstance(a, _List) and isinstance(b, _List) and op in ("==", "!="):  # A.sizes() == B.sizes()
            if len(a.items) != len(b.items):
                return _Bool(op == "!=")
            same: _Value = _Bool(True)
            for da, db in zip(a.items, b.items, strict=True):
                same = self.logical("&&", same, self.operate("==", da, db, e), e)
            if op == "==":
                return same
            if isinstance(same, _Bool):
                return _Bool(not same.value)
            raise self.unsupported("condition in host code", e)
        statuses = {v.what for v in (a, b) if isinstance(v, _Opaque)}
        if statuses == {"status", "cudaSuccess"} and op in ("==", "!="):
            return _Bool(op == "==")  # a launch that succeeds (the model larkc verifies)
        if isinstance(a, _Float | _FloatExpr) or isinstance(b, _Float | _FloatExpr):
            return self.float_binary(op, a, b, e)
        if not (isinstance(a, _Int) and isinstance(b, _Int)):
            raise self.unsupported("operands in host code", e)
        arith = {"+": ArithOp.ADD, "-": ArithOp.SUB, "*": ArithOp.MUL, "/": ArithOp.FLOORDIV, "%": ArithOp.MOD}
        if op in arith:
            if op in ("/", "%") and b.expr == ShapeNum(0):
                raise self.error("division by zero in host code", e)
            return _Int(_arith(arith[op], a.expr, b.expr))
        compare = {"==": CmpOp.EQ, "!=": CmpOp.NE, "<": CmpOp.LT, "<=": CmpOp.LE, ">": CmpOp.GT, ">=": CmpOp.GE}
        if op in compare:
            if isinstance(a.expr, ShapeNum) and isinstance(b.expr, ShapeNum):
                x, y = a.expr.value, b.expr.value
                results = {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}
                return _Bool(results[op])
            if a.expr == b.expr:  # the same size (`A.size(1) == B.size(0)` where both are K)
                return _Bool(op in ("==", "<=", ">="))
            known = _compare_positive(op, a.expr, b.expr)
            if known is not None:
                return _Bool(known)
            return _Cond(ShapeCmp(compare[op], a.expr, b.expr))
        raise self.unsupported("operator in host code", e)

    def logical(self, op: str, a: _Value, b: _Value, e: ts.Node) -> _Value:
        for v in (a, b):
            if not isinstance(v, _Bool | _Cond):
                raise self.unsupported("operands in host code", e)
        if isinstance(a, _Bool) and isinstance(b, _Bool):
            return _Bool(a.value and b.value if op == "&&" else a.value or b.value)
        if op == "&&":
            if isinstance(a, _Bool):
                return b if a.value else a
            if isinstance(b, _Bool):
                return a if b.value else b
        assert isinstance(a, _Cond | _Bool) and isinstance(b, _Cond | _Bool)
        if isinstance(a, _Cond) and isinstance(b, _Cond):
            return _Cond(ShapeBool(BoolOp.AND if op == "&&" else BoolOp.OR, (a.expr, b.expr)))
        raise self.unsupported("condition in host code", e)

    def math(self, fn: str, v: _Value, e: ts.Node) -> _Value:
        """``sqrtf(x)`` and friends: folded on a constant, a scalar expression on sizes."""
        name, f = _MATH[fn]
        constant = v.value if isinstance(v, _Float) else None
        if isinstance(v, _Int) and isinstance(v.expr, ShapeNum):
            constant = float(v.expr.value)
        if constant is not None:
            try:
                return _Float(f(constant))
            except (ValueError, ZeroDivisionError, OverflowError):
                raise self.unsupported(f"{fn} of {constant}", e) from None
        return _FloatExpr(f"{name}({self.float_expr(v, e).text})")

    def float_expr(self, v: _Value, e: ts.Node) -> _FloatExpr:
        """``v`` as a scalar expression: sizes built with ``+ - *`` (integer division has no counterpart)."""
        match v:
            case _FloatExpr():
                return v
            case _Float(value):
                return _FloatExpr(repr(value))
            case _Int(expr) if _plain(expr):
                return _FloatExpr(show(expr))
        raise self.unsupported("floating-point value computed from sizes", e)

    def float_binary(self, op: str, a: _Value, b: _Value, e: ts.Node) -> _Value:
        if any(isinstance(v, _FloatExpr) or (isinstance(v, _Int) and not isinstance(v.expr, ShapeNum)) for v in (a, b)):
            if op not in ("+", "-", "*", "/"):
                raise self.unsupported("floating-point operation on sizes in host code", e)
            return _FloatExpr(f"({self.float_expr(a, e).text}) {op} ({self.float_expr(b, e).text})")

        def num(v: _Value) -> float:
            if isinstance(v, _Float):
                return v.value
            if isinstance(v, _Int) and isinstance(v.expr, ShapeNum):
                return float(v.expr.value)
            raise self.unsupported("floating-point value computed from sizes", e)

        x, y = num(a), num(b)
        ops: dict[str, Callable[[float, float], float | bool]] = {
            "+": lambda p, q: p + q,
            "-": lambda p, q: p - q,
            "*": lambda p, q: p * q,
            "/": lambda p, q: p / q,
            "<": lambda p, q: p < q,
            ">": lambda p, q: p > q,
            "<=": lambda p, q: p <= q,
            ">=": lambda p, q: p >= q,
            "==": lambda p, q: p == q,
            "!=": lambda p, q: p != q,
        }
        if op not in ops or (op == "/" and y == 0):
            raise self.unsupported("floating-point operation in host code", e)
        r = ops[op](x, y)
        return _Bool(r) if isinstance(r, bool) else _Float(float(r))

    def call(self, e: ts.Node) -> _Value:
        fn = e.child_by_field_name("function")
        args_node = e.child_by_field_name("arguments")
        args = args_node.named_children if args_node is not None else []
        assert fn is not None
        if fn.type == "field_expression":
            receiver = fn.child_by_field_name("argument")
            method_node = fn.child_by_field_name("field")
            assert receiver is not None and method_node is not None
            targs: list[ts.Node] = []
            if method_node.type == "template_method":
                m_args = method_node.child_by_field_name("arguments")
                targs = list(m_args.named_children) if m_args is not None else []
                method_node = method_node.child_by_field_name("name") or method_node
            return self.method(self.expr(receiver), node_text(method_node), targs, args, e)
        name = node_text(fn.child_by_field_name("name") if fn.type == "template_function" else fn)
        name = name.split("<", 1)[0].strip()  # std::min<int64_t>(a, b): the template argument changes nothing here
        short = name.split("::")[-1]
        if short in ("empty", "zeros", "empty_like", "zeros_like") and (
            name.startswith(("torch::", "at::")) or name == short
        ):
            return self.allocate(short, args, e)
        if short in ("min", "max") and len(args) >= 2:
            vals = [self.expr(a) for a in args]
            if all(isinstance(v, _Int) for v in vals):
                exprs = tuple(v.expr for v in vals if isinstance(v, _Int))
                if all(isinstance(x, ShapeNum) for x in exprs):
                    nums = [x.value for x in exprs if isinstance(x, ShapeNum)]
                    return _Int(ShapeNum(min(nums) if short == "min" else max(nums)))
                return _Int(ShapeCall(short, exprs))
            if all(isinstance(v, _Float | _Int) for v in vals):
                fl = [
                    v.value if isinstance(v, _Float) else float(self.constant_int(a))
                    for v, a in zip(vals, args, strict=True)
                ]
                return _Float(min(fl) if short == "min" else max(fl))
        if short in _MATH and len(args) == 1:
            return self.math(short, self.expr(args[0]), args[0])
        if short == "dim3":
            return self.dim3(args, e)
        if short in ("static_cast", "reinterpret_cast") and fn.type == "template_function" and len(args) == 1:
            targ = fn.child_by_field_name("arguments")
            assert targ is not None
            return self.cast(" ".join(node_text(targ.named_children[0]).split()), self.expr(args[0]), e)
        if short in ("getCurrentCUDAStream", "getDefaultCUDAStream"):
            return _Opaque("stream")
        if short in ("cudaGetLastError", "cudaDeviceSynchronize", "cudaPeekAtLastError"):
            return _Opaque("status")  # larkc models launches that succeed: the status is cudaSuccess
        if short == "device" and name.startswith(("torch::", "at::")):
            return _Dtype(None)  # torch::device(torch::kCUDA): options of no particular dtype yet
        if short in ("TensorOptions", "dtype") and name.startswith(("torch::", "at::")):
            if short == "dtype" and len(args) == 1:
                d = self.expr(args[0])
                if isinstance(d, _Dtype):
                    return d
            if short == "TensorOptions" and not args:
                return _Dtype(None)
        if short in (
            "cudaStreamCreate",
            "cudaStreamCreateWithFlags",
            "cudaStreamCreateWithPriority",
            "getStreamFromPool",
        ):
            raise self.unsupported("stream of its own in host code (larkc models launches on the current stream)", e)
        if name.startswith(("torch::", "at::")):
            raise self.unsupported(
                f"torch function {name} in host code (the host function's torch computations other than "
                "allocation are not modelled yet)",
                e,
            )
        raise self.unsupported("call in host code", e)

    def method(
        self, recv: _Value, method: str, targs: Sequence[ts.Node], args: Sequence[ts.Node], e: ts.Node
    ) -> _Value:
        if isinstance(recv, _Dtype):
            if method in ("device", "layout", "requires_grad", "memory_format"):
                return recv
            if method == "dtype" and len(args) == 1:
                d = self.expr(args[0])
                if isinstance(d, _Dtype):
                    return d
            raise self.unsupported("tensor option", e)
        if isinstance(recv, _Opaque) and recv.what == "device" and method in ("is_cuda", "is_contiguous"):
            return _Bool(True)
        if isinstance(recv, _Opaque) and recv.what == "stream" and method == "stream" and not args:
            return recv  # at::cuda::getCurrentCUDAStream().stream(): the cudaStream_t of the current stream
        if isinstance(recv, _List):
            return self.list_method(recv, method, args, e)
        if recv == _Opaque("absent"):
            if method == "has_value" and not args:
                return _Bool(False)
            raise self.unsupported("use of an absent optional tensor (None passed from ModelNew.forward)", e)
        if not isinstance(recv, HostTensor):
            raise self.unsupported("method call in host code", e)
        t = recv
        match method:
            case "numel":
                return _Int(_product(t.shape))
            case "dim" | "ndimension":
                return _Int(ShapeNum(len(t.shape)))
            case "size" | "stride":
                i = self.constant_int(args[0]) if len(args) == 1 else None
                if i is None or not -len(t.shape) <= i < len(t.shape):
                    raise self.unsupported(f"{method} of a tensor of rank {len(t.shape)}", e)
                i %= len(t.shape)
                return _Int(t.shape[i] if method == "size" else _product(t.shape[i + 1 :]))
            case "sizes":
                return _List(tuple(_Int(d) for d in t.shape))
            case "data_ptr" | "data":
                if targs:
                    elem = _CXX_TYPES.get(self.cxx_type(targs[0]))
                    if elem is None:
                        raise self.unsupported("element type", targs[0])
                    if elem != t.dtype:
                        raise self.error(f"data_ptr<{self.cxx_type(targs[0])}>() of a {t.dtype} tensor", e)
                    return _Ptr(t.name, elem)
                return _Ptr(t.name, "void")
            case "options":
                return _Dtype(t.dtype)
            case "scalar_type" | "dtype":
                return _Dtype(t.dtype)
            case "is_cuda" | "is_contiguous":
                return _Bool(True)
            case "defined" | "has_value":
                # a task tensor (an input or an allocation) is a defined tensor, and an optional tensor
                # parameter (`c10::optional<torch::Tensor> bias`) holds one: forward passes no None for it
                return _Bool(True)
            case "value" if not args:  # bias.value() of an optional tensor
                return t
            case "to" if args:  # .to(x.device()), .to(torch::kCUDA), .to(x.dtype()) of its own dtype: itself
                for a in args:
                    v = self.expr(a)
                    if not (v == _Opaque("device") or (isinstance(v, _Dtype) and v.dtype in (None, t.dtype))):
                        raise self.unsupported("conversion of a tensor to another dtype in host code", e)
                return t
            case "device":
                return _Opaque("device")
            case _ if method in _SAME_TENSOR:
                return t
            case "view" | "reshape":
                shape = self.shape(args, e)
                if any(d == ShapeNum(-1) for d in shape):
                    known = _product([d for d in shape if d != ShapeNum(-1)])
                    rest = _arith(ArithOp.FLOORDIV, _product(t.shape), known)
                    shape = tuple(rest if d == ShapeNum(-1) else d for d in shape)
                return HostTensor(t.name, shape, t.dtype)
            case "unsqueeze" | "squeeze":
                i = self.constant_int(args[0]) if len(args) == 1 else None
                rank = len(t.shape)
                if i is None:
                    raise self.unsupported(f"{method} in host code", e)
                if method == "unsqueeze":
                    i = i % (rank + 1)
                    return HostTensor(t.name, (*t.shape[:i], ShapeNum(1), *t.shape[i:]), t.dtype)
                i %= max(rank, 1)
                if t.shape[i] != ShapeNum(1):
                    raise self.unsupported("squeeze of a dimension that may not be 1", e)
                return HostTensor(t.name, (*t.shape[:i], *t.shape[i + 1 :]), t.dtype)
            case _:
                raise self.unsupported(
                    f"torch method {method}() on a tensor in host code (the host function's torch computations "
                    "other than allocation, shapes and views are not modelled yet)",
                    e,
                )

    def list_method(self, recv: _List, method: str, args: Sequence[ts.Node], e: ts.Node) -> _Value:
        """Methods of a list of sizes (``x.sizes().vec()``, ``sizes.size()``, ``sizes.begin() + dim``)."""
        match method, len(args):
            case "vec", 0:
                return recv
            case "size", 0:
                return _Int(ShapeNum(len(recv.items)))
            case "begin", 0:
                return _Position(ShapeNum(0))
            case "end", 0:
                return _Position(ShapeNum(len(recv.items)))
            case "back", 0 if recv.items:
                return recv.items[-1]
            case "front", 0 if recv.items:
                return recv.items[0]
            case "at", 1:
                i = self.constant_int(args[0])
                if 0 <= i < len(recv.items):
                    return recv.items[i]
        raise self.unsupported("method of a list of sizes in host code", e)

    def shape(self, args: Sequence[ts.Node], e: ts.Node) -> tuple[ShapeExpr, ...]:
        if len(args) == 1:
            v = self.expr(args[0])
            items = v.items if isinstance(v, _List) else (v,)
        else:
            items = tuple(self.expr(a) for a in args)
        dims = []
        for it in items:
            if not isinstance(it, _Int):
                raise self.unsupported("tensor shape", e)
            dims.append(it.expr)
        return tuple(dims)

    def allocate(self, fn: str, args: Sequence[ts.Node], e: ts.Node) -> _Value:
        init: Literal["zeros", "empty"] = "zeros" if fn.startswith("zeros") else "empty"
        if not args:
            raise self.unsupported("allocation", e)
        if fn.endswith("_like"):
            like = self.expr(args[0])
            if not isinstance(like, HostTensor):
                raise self.unsupported("allocation like a non-tensor", e)
            shape, dtype = like.shape, like.dtype
            if len(args) > 1:
                opt = self.expr(args[1])
                if not isinstance(opt, _Dtype):
                    raise self.unsupported("tensor options", args[1])
                dtype = opt.dtype or dtype
        else:
            shape = self.shape(args[:1], args[0])
            if len(args) < 2:
                dtype = "f32"  # torch's default dtype
            else:
                opt = self.expr(args[1])
                if not isinstance(opt, _Dtype):
                    raise self.unsupported("tensor options", args[1])
                dtype = opt.dtype or "f32"
        name = f"{self.prefix}out{len(self.result.allocated)}"
        tensor = HostTensor(name, shape, dtype)
        self.result.allocated[name] = (tensor, init)
        return tensor


def _clamps(e: ShapeExpr) -> list[tuple[ShapeExpr, int]]:
    """The ``(size expression, constant)`` pairs of every ``min``/``max`` of a size and a constant in ``e``."""
    match e:
        case ShapeCall("min" | "max", args):
            nums = [a.value for a in args if isinstance(a, ShapeNum)]
            out = [(a, k) for a in args if not isinstance(a, ShapeNum) for k in nums]
            return out + [c for a in args for c in _clamps(a)]
        case ShapeCall(_, args):
            return [c for a in args for c in _clamps(a)]
        case ShapeArith(_, lhs, rhs) | ShapeCmp(_, lhs, rhs):
            return _clamps(lhs) + _clamps(rhs)
        case _:
            return []


#: A point where a launch's behaviour may change with the sizes: the launch, a size expression, the
#: constant it is compared with (the change between ``<= k`` and ``> k``) and what it is, for messages.
Threshold = tuple[HostLaunch, ShapeExpr, int, str]

_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def kernel_thresholds(root: ts.Node, launches: Sequence[HostLaunch]) -> list[Threshold]:
    """Every comparison in a launched kernel of a size parameter with an integer constant (``if (n > 4096)``,
    a vectorised path for large sizes): the scaled-down instances may all stay on one side of it, so it is
    a point to check past, as a clamp in the launch is (``n > 4096`` changes between 4096 and 4097,
    ``n >= 4096`` between 4095 and 4096)."""
    kernels: dict[str, ts.Node] = {}
    for fn, is_kernel in _function_definitions(root):
        name, _ = _declarator_name(fn)
        if is_kernel:
            kernels[name.split("::")[-1]] = fn
    out: list[Threshold] = []
    for launch in launches:
        kernel = kernels.get(launch.kernel)
        if kernel is None:
            continue
        sizes = {k: a[1] for k, a in launch.arguments.items() if a[0] == "shape" and free_symbols(a[1])}
        stack: list[ts.Node | None] = [kernel.child_by_field_name("body")]
        while stack:
            node = stack.pop()
            if node is None:
                continue
            stack.extend(node.named_children)
            if node.type != "binary_expression":
                continue
            op = node_text(node.child_by_field_name("operator"))
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op not in _FLIPPED or left is None or right is None:
                continue
            if right.type == "identifier" and left.type == "number_literal":
                left, right, op = right, left, _FLIPPED[op]
            if left.type != "identifier" or right.type != "number_literal" or node_text(left) not in sizes:
                continue
            lit = parse_literal(node_text(right))
            if not isinstance(lit, IntLiteral):
                continue
            k = lit.value
            at = k - 1 if op in ("<", ">=") else k  # the branch changes between at and at + 1
            out.append((launch, sizes[node_text(left)], at, f"comparison {node_text(node)} in {launch.kernel}"))
    return out


def clamp_instances(
    launches: Sequence[HostLaunch],
    given: Mapping[str, int],
    base: Mapping[str, int],
    thresholds: Sequence[Threshold] = (),
) -> list[dict[str, int]]:
    """Instances past each clamp of the launches (``block = std::min(1024, inner)``, one thread per
    column): where ``base`` (a scaled-down instance) keeps the clamped size below its constant and the
    problem's shape (``given``) takes it above, ``base`` with the least value of one of its sizes that
    takes it past the constant. At scaled-down sizes only the unclamped branch of the launch runs: a
    kernel wrong past the clamp (the columns beyond 1024 never written) would be verified there."""
    out: list[dict[str, int]] = []
    for _, e, k, _what in [*_launch_clamps(launches), *thresholds]:
        if int(evaluate(e, dict(base))) > k:
            continue
        found = False
        for s in sorted(free_symbols(e)):
            if s not in given or s not in base or int(evaluate(e, {**base, s: given[s]})) <= k:
                continue
            lo, hi = base[s], given[s]  # e <= k at lo, e > k at hi: the least value past k, e rising with s
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if int(evaluate(e, {**base, s: mid})) > k else (mid, hi)
            past = {**base, s: hi}
            found = True
            if past not in out:
                out.append(past)
        symbols = [s for s in sorted(free_symbols(e)) if s in given and s in base]
        if not found and symbols and int(evaluate(e, {**base, **{s: given[s] for s in symbols}})) > k:
            # no one size takes it past (`min(cdiv(batch * dim, 256), 512)` blocks): all of them together,
            # each the same fraction of the way from base to the problem's, the least fraction past k
            def at(t: int, symbols: list[str] = symbols) -> dict[str, int]:
                return {**base, **{s: base[s] + (given[s] - base[s]) * t // 1024 for s in symbols}}

            lo, hi = 0, 1024
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if int(evaluate(e, at(mid))) > k else (mid, hi)
            if at(hi) not in out:
                out.append(at(hi))
    return out


def _launch_clamps(launches: Sequence[HostLaunch]) -> list[Threshold]:
    """Every ``min``/``max`` of a size and a constant in the launches' dimensions and size arguments."""
    out: list[Threshold] = []
    for launch in launches:
        exprs = [*launch.grid, *launch.block, launch.shared_bytes]
        exprs += [a[1] for a in launch.arguments.values() if a[0] == "shape"]
        out += [(launch, e, k, f"clamp at {k}") for x in exprs for e, k in _clamps(x)]
    return out


def host_function(root: ts.Node, name: str) -> tuple[ts.Node, list[tuple[str, str, ts.Node]]] | None:
    """The definition of host function ``name`` and its parameters ``(name, type, node)``."""
    found = None
    for fn, is_kernel in _function_definitions(root):
        fname, params = _declarator_name(fn)
        if not is_kernel and fname.split("::")[-1] == name:
            found = (fn, _parameters(params))
    return found


def evaluate_host(
    root: ts.Node,
    function: ts.Node,
    span: Callable[[ts.Node], Span],
    arguments: Mapping[str, HostTensor | float | int | bool | tuple[int, ...] | ShapeExpr | None],
    prefix: str = "",
    given: Mapping[str, int] | None = None,
    owned: frozenset[str] = frozenset(),
) -> HostResult:
    """Run host function ``function`` (a definition under ``root``) abstractly on ``arguments`` (its
    parameters by name: task tensors or constants) and return what it launches, allocates (named
    ``<prefix>out<k>``) and returns; ``span`` locates a syntax node in the user's file. With ``given``
    (the problem's sizes), a 32-bit host integer whose value there does not fit is an error. ``owned``
    names the tensor arguments the caller allocated for the function to fill, which it may return."""
    ev = _Evaluator(root, span, arguments)
    ev.prefix = prefix
    ev.given = given
    ev.owned = owned
    ev.file_constants(root)
    body = function.child_by_field_name("body")
    if body is None:
        raise ev.unsupported("host function without a body", function)
    ev.block(body)
    void = node_text(function.child_by_field_name("type")) == "void"
    if not ev.done and not void:
        raise ev.error("the host function returns no tensor", function)
    return ev.result
