"""A KernelBench ``ModelNew`` file read with Python's ``ast``, never imported.

What larkc needs of it is static: the ``load_inline(...)`` calls (the CUDA text of ``cuda_sources`` and
the exported ``functions``), and which exported function ``ModelNew.forward`` calls on which of its
arguments and constants. Importing the file would compile the extension (``load_inline`` runs nvcc) and
run code larkc does not need, so the file is read, not run; what is not plain enough to read (a CUDA
text built at run time, a forward computing with torch besides the extension) is a located error.

The problem file's ``get_inputs()`` is read the same way for the *names* of the sizes
(``torch.randn(batch_size, dim)`` names its dimensions ``batch_size`` and ``dim``); their values come
from running it (the reference stage does).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from larkc.errors import LarkcError, SourceCache, Span, Stage, UnsupportedError

__all__ = [
    "Allocation",
    "CallResult",
    "CudaText",
    "EmptyTensor",
    "Extension",
    "ForwardCall",
    "InputRead",
    "ModelNewFile",
    "NamedInt",
    "ParamRef",
    "SizeArg",
    "Step",
    "TorchOp",
    "View",
    "init_input_values",
    "input_dim_names",
    "read_get_inputs",
    "read_model_new",
]


@dataclass(frozen=True, slots=True)
class CudaText:
    """A CUDA source string and where its first character stands in the file (1-based line and column),
    when it is a literal whose lines are the file's (no escaped newlines): then line ``k`` of the text is
    line ``line + k - 1`` of the file."""

    text: str
    line: int | None
    col: int | None


@dataclass(frozen=True, slots=True)
class Extension:
    """One ``load_inline`` call: the variable it is bound to, its CUDA texts and exported functions."""

    variable: str
    cuda: tuple[CudaText, ...]
    functions: tuple[str, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class CallResult:
    """An argument that is the result of an earlier step of forward (by its index in ``steps``)."""

    index: int


@dataclass(frozen=True, slots=True)
class Allocation:
    """A tensor forward allocates and passes to the extension to fill (``out = torch.empty_like(x)``):
    its local name, the forward parameter it is shaped like, and how it starts."""

    name: str
    like: str
    init: Literal["empty", "zeros"]


@dataclass(frozen=True, slots=True)
class EmptyTensor:
    """``torch.empty(0, device=x.device, dtype=x.dtype)`` (or ``zeros``): a tensor of no elements, which
    candidates pass for an absent bias to a ``torch::Tensor`` parameter (that takes no ``None``), with a
    flag or ``bias.numel() > 0`` saying it is absent. Its element type (``f32`` unless given)."""

    dtype: str


@dataclass(frozen=True, slots=True)
class ParamRef:
    """An argument that is a parameter of ``ModelNew`` (``self.linear.weight``, ``self.bias``): its path
    (``linear.weight``), checked against what ``__init__`` creates when the task is derived."""

    path: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class View:
    """A forward parameter seen with another shape (``x.view(-1)``, ``x.reshape(x.size(0), -1)``,
    ``x.flatten()``): each dimension an integer, ``-1``, or ``("size", k)`` (the parameter's size ``k``)."""

    param: str
    dims: tuple[int | tuple[str, int], ...]


class NamedInt(int):
    """An integer of ``get_init_inputs()`` read through a module-level name of the problem file
    (``out_features``): stored as an attribute (``self.out_features = out_features``) and passed to an
    extension unchanged, it is that size, a task symbol where one has its name. Arithmetic on it gives a
    plain ``int`` (a constant)."""

    name: str

    def __new__(cls, value: int, name: str) -> NamedInt:
        out = super().__new__(cls, value)
        out.name = name
        return out


@dataclass(frozen=True, slots=True)
class SizeArg:
    """A size ``ModelNew.forward`` computes and passes to an extension (``x.size(0)``, ``h // 2`` of
    ``_, _, h, w = x.shape``): ``expression`` (Python) over the placeholders ``__larkc_v<k>``, each the
    tensor in the same place of ``arguments``."""

    expression: str
    placeholders: tuple[str, ...]
    arguments: tuple[Argument, ...]


#: An argument of an extension call: a forward parameter (by name), a constant, an earlier call's result,
#: a tensor forward allocated, a forward parameter seen with another shape, a parameter of ModelNew, or
#: ``None`` (an absent optional tensor: ``self.bias`` of a module built without one), a list of integers
#: (``[self.stride, self.stride]`` for an ``IntArrayRef``) or a size forward computes.
Argument = (
    int | float | bool | str | CallResult | Allocation | EmptyTensor | View | ParamRef | None | tuple[int, ...]
) | SizeArg


@dataclass(frozen=True, slots=True)
class ForwardCall:
    """``self.ext.fn(a, b, self.alpha)`` in ``ModelNew.forward``: the extension, the function, and each
    argument as the forward parameter it passes (by index) or a constant."""

    extension: Extension
    function: str
    arguments: tuple[Argument, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class TorchOp:
    """A computation ``ModelNew.forward`` leaves to PyTorch (``x = self.conv(x)``, ``torch.relu(x)``,
    ``x + self.bias``): ``expression`` is Python text over ``parameters`` (``torch`` and ``math`` are the
    only other names), each parameter bound to the tensor in the same place of ``arguments``; ``label``
    is the source text it was read from (``self.conv(x)``)."""

    parameters: tuple[str, ...]
    arguments: tuple[Argument, ...]
    expression: str
    label: str
    span: Span = field(compare=False)


#: One step of ``ModelNew.forward``: a call of an extension's function, or a computation left to PyTorch.
Step = ForwardCall | TorchOp


@dataclass
class ModelNewFile:
    """What ``ModelNew`` does: the forward parameters (after ``self``), its steps in order (extension
    calls and computations left to PyTorch, each on forward's arguments, ``ModelNew``'s parameters,
    constants and earlier steps' results: :class:`CallResult` ``k`` is ``steps[k]``'s), the extension
    calls among them, and the tensor forward returns."""

    path: Path
    params: list[str] = field(default_factory=list)
    calls: list[ForwardCall] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    returns: Allocation | None = None  # forward returns a tensor it allocated (and an extension filled)
    result_like: str | None = None  # forward returns the result seen with this parameter's shape (view_as)
    result: Argument | None = None  # the tensor forward returns: a step's result, or what ``returns`` is
    extensions: list[Extension] = field(default_factory=list)  # the file's load_inline extensions

    @property
    def torch_steps(self) -> list[TorchOp]:
        return [s for s in self.steps if isinstance(s, TorchOp)]


def _span(path: Path, node: ast.AST) -> Span:
    line = getattr(node, "lineno", 1)
    col = getattr(node, "col_offset", 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_col = (getattr(node, "end_col_offset", None) or col) + 1
    if end_line != line:
        end_line, end_col = line, col + 1
    return Span(str(path), line, col, end_line, end_col)


def _unsupported(path: Path, what: str, node: ast.AST, source: str) -> LarkcError:
    text = ast.get_source_segment(source, node) or what
    return UnsupportedError(what, text, _span(path, node), stage=Stage.FRONTEND)


def _parse(path: Path) -> tuple[str, ast.Module]:
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as e:
        raise LarkcError(f"cannot read {path}: {e.strerror}", stage=Stage.FRONTEND) from None
    SourceCache.register(str(path), source)
    try:
        return source, ast.parse(source, str(path))
    except SyntaxError as e:
        span = Span.point(str(path), e.lineno or 1, e.offset or 1)
        raise LarkcError(f"invalid Python: {e.msg}", span, stage=Stage.FRONTEND) from None


class _Module:
    """The module-level names of a file: simple assignments, for looking up strings and constants."""

    def __init__(self, path: Path, source: str, tree: ast.Module) -> None:
        self.path, self.source = path, source
        self.values: dict[str, ast.expr] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                self.values[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                self.values[stmt.target.id] = stmt.value

    def strings(self, node: ast.expr, depth: int = 0) -> list[CudaText]:
        """The CUDA texts of a ``cuda_sources`` value: a literal, a name of one, a list or a sum of them."""
        if depth > 20:
            raise _unsupported(self.path, "CUDA source", node, self.source)
        match node:
            case ast.Constant(value=str() as text):
                return [self.literal(node, text)]
            case ast.Name(id=name) if name in self.values:
                return self.strings(self.values[name], depth + 1)
            case ast.List(elts=items) | ast.Tuple(elts=items):
                return [t for it in items for t in self.strings(it, depth + 1)]
            case ast.BinOp(op=ast.Add(), left=left, right=right):
                return [*self.strings(left, depth + 1), *self.strings(right, depth + 1)]
        raise _unsupported(self.path, "CUDA source (not a string literal or a variable holding one)", node, self.source)

    def literal(self, node: ast.Constant, text: str) -> CudaText:
        """``text`` with its position if its lines are the lines of the literal between the quotes (escape
        sequences within a line, such as ``"\\n"`` in a ``printf``, shift columns on that line only)."""
        segment = ast.get_source_segment(self.source, node, padded=False) or ""
        prefix_len = len(segment) - len(segment.lstrip("rRbBuUfF"))
        quotes = segment[prefix_len : prefix_len + 3]
        q = 3 if quotes in ('"""', "'''") else 1
        body = segment[prefix_len + q : len(segment) - q]
        if body.count("\n") == text.count("\n"):  # escapes only within lines (printf's "\\n"): lines agree
            return CudaText(text, node.lineno, node.col_offset + prefix_len + q + 1)
        return CudaText(text, None, None)

    def constant(self, node: ast.expr, depth: int = 0) -> object:
        """A constant expression (literals, names of module constants, arithmetic), or raise."""
        if depth > 20:
            raise _unsupported(self.path, "constant", node, self.source)
        match node:
            case ast.Constant(value=v) if isinstance(v, int | float | bool | str):
                return v
            case ast.Name(id=name) if name in self.values:
                return self.constant(self.values[name], depth + 1)
            case ast.UnaryOp(op=ast.USub(), operand=x):
                negated = self.constant(x, depth + 1)
                if isinstance(negated, int | float):
                    return -negated
            case ast.BinOp(left=left, op=op, right=right):
                a, b = self.constant(left, depth + 1), self.constant(right, depth + 1)
                if isinstance(a, int | float) and isinstance(b, int | float):
                    ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
                    if type(op) in ops:
                        return ops[type(op)]
                    if isinstance(op, ast.Div) and b:
                        return a / b
                    if isinstance(op, ast.FloorDiv) and b:
                        return a // b
            case ast.List(elts=items) | ast.Tuple(elts=items):
                return [self.constant(it, depth + 1) for it in items]
        raise _unsupported(self.path, "value that is not a constant", node, self.source)


def _load_inline(module: _Module, name: str, call: ast.Call) -> Extension:
    kw = {k.arg: k.value for k in call.keywords if k.arg is not None}
    for position, key in enumerate(("name", "cpp_sources", "cuda_sources")):  # torch's order, in every version
        if position < len(call.args):
            kw.setdefault(key, call.args[position])
    if "cuda_sources" not in kw:
        raise _unsupported(module.path, "load_inline without cuda_sources", call, module.source)
    if "functions" not in kw:
        raise _unsupported(module.path, "load_inline without functions=[...]", call, module.source)
    functions = module.constant(kw["functions"])
    if isinstance(functions, str):
        functions = [functions]
    if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
        raise _unsupported(module.path, "functions of load_inline", kw["functions"], module.source)
    texts = tuple(module.strings(kw["cuda_sources"]))
    return Extension(name, texts, tuple(str(f) for f in functions), _span(module.path, call))


def _is_load_inline(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "load_inline") or (
        isinstance(f, ast.Attribute) and f.attr == "load_inline"
    )


def read_model_new(
    path: Path, init_args: Sequence[object] = (), inputs: Sequence[tuple[int, str]] = ()
) -> ModelNewFile:
    """Read ``ModelNew`` of ``path``: its extensions and the steps its ``forward`` makes.

    ``init_args`` are ``ModelNew.__init__``'s arguments in order (the problem's ``get_init_inputs()``),
    for attributes such as ``self.alpha = alpha`` that forward passes on; ``inputs`` the rank and element
    type (``"f32"``) of each of ``get_inputs()``'s tensors, for ``x.dim()`` and ``x.dtype`` in forward.
    """
    source, tree = _parse(path)
    module = _Module(path, source, tree)
    extensions: dict[str, Extension] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and _is_load_inline(stmt.value):
            target = stmt.targets[0]
            if len(stmt.targets) != 1 or not isinstance(target, ast.Name):
                raise _unsupported(path, "assignment of load_inline", stmt, source)
            assert isinstance(stmt.value, ast.Call)
            extensions[target.id] = _load_inline(module, target.id, stmt.value)
    cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "ModelNew"), None)
    if cls is None:
        raise LarkcError("no class ModelNew in the candidate file", Span(str(path), 1, 1, 1, 2), stage=Stage.FRONTEND)
    if not extensions:
        raise LarkcError(
            "no load_inline(...) call at module level (the CUDA extension of ModelNew)",
            _span(path, cls),
            stage=Stage.FRONTEND,
        )
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)}
    attributes: dict[str, object] = {}  # self.x -> an Extension or a constant
    init = methods.get("__init__")
    if init is not None:
        attributes = _init_attributes(module, init, extensions, init_args)
    forward = methods.get("forward")
    if forward is None:
        raise LarkcError("ModelNew has no forward method", _span(path, cls), stage=Stage.FRONTEND)
    out = ModelNewFile(path, [a.arg for a in forward.args.args[1:]], extensions=list(extensions.values()))
    if forward.args.vararg is not None or forward.args.kwonlyargs:
        raise _unsupported(path, "forward signature", forward, source)
    kinds = dict(zip(out.params, inputs, strict=False))
    _read_forward(module, forward, out, extensions, attributes, _imports(tree), kinds)
    return out


@dataclass(frozen=True, slots=True)
class _ExtFunction:
    """``self.fn = ext.fn`` in ``__init__``: an exported function of an extension stored on ``self``."""

    extension: Extension
    function: str


@dataclass(frozen=True, slots=True)
class _Submodule:
    """``self.conv = nn.Conv2d(...)`` in ``__init__``: the module's class and its constructor's arguments by
    name (:data:`_SIGNATURES`), each a constant or :data:`_UNKNOWN`."""

    cls: str
    arguments: tuple[tuple[str, object], ...]
    span: Span = field(compare=False)

    def get(self, name: str) -> object:
        for k, v in self.arguments:
            if k == name:
                return v
        return _DEFAULTS.get(self.cls.rstrip("123d"), {}).get(name, _UNKNOWN)


@dataclass(frozen=True, slots=True)
class _Parameter:
    """``self.bias = nn.Parameter(...)`` in ``__init__``: ``self.bias`` is a parameter of ``ModelNew``."""


class _Unknown:
    """A value larkc cannot read statically (an argument computed at run time)."""

    def __repr__(self) -> str:
        return "<unknown>"


_UNKNOWN = _Unknown()

_CONV = (
    "in_channels",
    "out_channels",
    "kernel_size",
    "stride",
    "padding",
    "dilation",
    "groups",
    "bias",
    "padding_mode",
)
_CONV_T = (
    "in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "groups", "bias",
    "dilation", "padding_mode",
)  # fmt: skip
_NORM = ("num_features", "eps", "momentum", "affine", "track_running_stats")
#: The constructor signatures of the modules with parameters whose calls larkc reads (torch's positional order).
_SIGNATURES: dict[str, tuple[str, ...]] = {
    "Linear": ("in_features", "out_features", "bias"),
    **{f"Conv{n}d": _CONV for n in (1, 2, 3)},
    **{f"ConvTranspose{n}d": _CONV_T for n in (1, 2, 3)},
    "GroupNorm": ("num_groups", "num_channels", "eps", "affine"),
    "LayerNorm": ("normalized_shape", "eps", "elementwise_affine", "bias"),
    **{f"BatchNorm{n}d": _NORM for n in (1, 2, 3)},
    **{f"InstanceNorm{n}d": _NORM for n in (1, 2, 3)},
}
_CONV_DEFAULTS = {"stride": 1, "padding": 0, "output_padding": 0, "dilation": 1, "groups": 1, "bias": True}
#: Defaults of the constructors' arguments, by class name without its rank (``Conv``, ``ConvTranspose``, ``BatchNorm``).
_DEFAULTS: dict[str, dict[str, object]] = {
    "Linear": {"bias": True},
    "Conv": {**_CONV_DEFAULTS, "padding_mode": "zeros"},
    "ConvTranspose": {**_CONV_DEFAULTS, "padding_mode": "zeros"},
    "GroupNorm": {"eps": 1e-5, "affine": True},
    "LayerNorm": {"eps": 1e-5, "elementwise_affine": True, "bias": True},
    "BatchNorm": {"eps": 1e-5, "momentum": 0.1, "affine": True, "track_running_stats": True},
    "InstanceNorm": {"eps": 1e-5, "momentum": 0.1, "affine": False, "track_running_stats": False},
}
#: Tensor methods that change nothing larkc models: the device and the memory layout (inputs are CUDA
#: tensors; every tensor of a task is a contiguous buffer).
_IDENTITY_METHODS = frozenset({"contiguous", "cuda", "detach"})
#: larkc's element types by torch's names for them.
_TORCH_DTYPE_NAMES = {
    "f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i32": "int32", "i64": "int64",
    "i16": "int16", "i8": "int8", "u8": "uint8", "bool": "bool",
}  # fmt: skip
#: torch's aliases of its element types.
_DTYPE_ALIASES = {
    "float": "float32",
    "half": "float16",
    "double": "float64",
    "int": "int32",
    "long": "int64",
    "short": "int16",
}
_TORCH_DTYPES = frozenset(
    {"float32", "float", "float16", "half", "bfloat16", "float64", "double", "int32", "int", "int64", "long", "bool",
     "int8", "uint8", "int16", "short"}
)  # fmt: skip


def _init_value(module: _Module, env: Mapping[str, object], node: ast.expr, depth: int = 0) -> object:
    """A value ``__init__`` computes from its arguments (``env``), module constants and literals, or raise."""
    if depth > 30:
        raise _unsupported(module.path, "value that is not a constant", node, module.source)

    def rec(n: ast.expr) -> object:
        return _init_value(module, env, n, depth + 1)

    match node:
        case ast.Name(id=name) if name in env:
            return env[name]
        case ast.Constant(value=None):
            return None
        case ast.UnaryOp(op=ast.Not(), operand=x):
            return not rec(x)
        case ast.UnaryOp(op=ast.USub(), operand=x):
            v = rec(x)
            if isinstance(v, int | float):
                return -v
        case ast.BinOp(left=left, op=op, right=right):
            a, b = rec(left), rec(right)
            if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(op, ast.Pow | ast.MatMult):
                if isinstance(op, ast.Div | ast.FloorDiv | ast.Mod) and not b:
                    raise _unsupported(module.path, "division by zero", node, module.source)
                return _arith(op, a, b)
        case ast.Tuple(elts=items) | ast.List(elts=items):
            return [rec(it) for it in items]
        case ast.Compare(left=left, ops=[op], comparators=[right]):
            a, b = rec(left), rec(right)
            if isinstance(op, ast.Is | ast.IsNot) and (a is None or b is None):
                return (a is b) == isinstance(op, ast.Is)
            if isinstance(op, ast.Eq | ast.NotEq):
                return (a == b) == isinstance(op, ast.Eq)
        case ast.IfExp(test=test, body=yes, orelse=no):
            return rec(yes) if rec(test) else rec(no)
        case ast.Call(func=ast.Name(id="isinstance"), args=[x, ast.Name(id="int" | "float" | "tuple" | "list" as t)]):
            v = rec(x)
            kinds = {"int": int, "float": float, "tuple": list, "list": list}  # sequences are read as lists
            return isinstance(v, kinds[t]) and not isinstance(v, bool)
        case ast.Call(func=ast.Name(id="int" | "float" | "tuple" | "bool" as conv), args=[x], keywords=[]):
            v = rec(x)
            match conv:
                case "int" if isinstance(v, int | float):
                    return int(v)
                case "float" if isinstance(v, int | float):
                    return float(v)
                case "bool":
                    return bool(v)
                case "tuple" if isinstance(v, list):
                    return v
    return module.constant(node, depth + 1)


def _arith(op: ast.operator, a: float, b: float) -> float:
    match op:
        case ast.Add():
            return a + b
        case ast.Sub():
            return a - b
        case ast.Mult():
            return a * b
        case ast.Div():
            return a / b
        case ast.FloorDiv():
            return a // b
        case ast.Mod():
            return a % b
    raise LarkcError(f"operator {type(op).__name__}", stage=Stage.FRONTEND)


def _init_attributes(
    module: _Module, init: ast.FunctionDef, extensions: dict[str, Extension], init_args: Sequence[object]
) -> dict[str, object]:
    """What ``__init__`` stores on ``self``: extensions (and their functions), submodules with their
    constructor arguments, parameters (:class:`_Parameter`) and constants; an ``if`` on constants takes
    its branch, one on anything else is read on both (the later assignment wins)."""
    params = [a.arg for a in init.args.args[1:]]
    env: dict[str, object] = dict(zip(params, init_args, strict=False))
    defaults = init.args.defaults
    for i, p in enumerate(params):
        if p not in env and i >= len(params) - len(defaults):
            try:
                env[p] = _init_value(module, env, defaults[i - (len(params) - len(defaults))])
            except LarkcError:
                continue
    out: dict[str, object] = {}

    def submodule(cls: str, call: ast.Call) -> _Submodule:
        names = _SIGNATURES.get(cls, ())
        given: dict[str, ast.expr] = {k.arg: k.value for k in call.keywords if k.arg is not None}
        for name, a in zip(names, call.args, strict=False):
            given.setdefault(name, a)
        if not names:  # a module without parameters: its arguments in order, then by keyword
            given = {**{str(i): a for i, a in enumerate(call.args)}, **given}
        values: list[tuple[str, object]] = []
        for k, v in given.items():
            try:
                values.append((k, _init_value(module, env, v)))
            except LarkcError:
                values.append((k, _UNKNOWN))
        return _Submodule(cls, tuple(values), _span(module.path, call))

    def assign(t: ast.Attribute, v: ast.expr) -> None:
        while (  # nn.Linear(...).cuda(), .to(device): the same module
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr in ("cuda", "to")
            and isinstance(v.func.value, ast.Call)
            and _nn_class(v.func.value.func) is not None
        ):
            v = v.func.value
        cls = _nn_class(v.func) if isinstance(v, ast.Call) else None
        if isinstance(v, ast.Name) and v.id in extensions:
            out[t.attr] = extensions[v.id]
        elif isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id in extensions:
            out[t.attr] = _ExtFunction(extensions[v.value.id], v.attr)
        elif cls == "Parameter":
            out[t.attr] = _Parameter()
        elif cls is not None and isinstance(v, ast.Call):
            out[t.attr] = submodule(cls, v)
        else:
            try:
                out[t.attr] = _init_value(module, env, v)
            except LarkcError:
                out[t.attr] = _UNKNOWN  # an error only where forward reads it

    def block(stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                try:
                    taken = bool(_init_value(module, env, stmt.test))
                except LarkcError:
                    block(stmt.body)
                    block(stmt.orelse)
                    continue
                block(stmt.body if taken else stmt.orelse)
                continue
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        assign(t, stmt.value)
                    elif isinstance(t, ast.Name):
                        try:
                            env[t.id] = _init_value(module, env, stmt.value)
                        except LarkcError:
                            env.pop(t.id, None)
                continue
            if (  # self.register_parameter("bias", None)
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Attribute)
                and stmt.value.func.attr == "register_parameter"
                and len(stmt.value.args) == 2
                and isinstance(stmt.value.args[0], ast.Constant)
                and isinstance(stmt.value.args[1], ast.Constant)
                and stmt.value.args[1].value is None
            ):
                out[str(stmt.value.args[0].value)] = None
                continue
            match stmt:  # self.eval(), self.train(False), self.bn.eval(): the mode forward then runs in
                case ast.Expr(value=ast.Call(func=ast.Attribute(value=owner, attr="eval" | "train" as mode)) as call):
                    if isinstance(owner, ast.Name) and owner.id == "self":
                        out["training"] = _mode(module, env, mode, call)
                    elif (  # a module's own mode: not modelled, an error where forward uses the module
                        isinstance(owner, ast.Attribute)
                        and isinstance(owner.value, ast.Name)
                        and owner.value.id == "self"
                    ):
                        out[owner.attr] = _UNKNOWN
                    continue
            for child in ast.iter_child_nodes(stmt):  # loops, with, try: their assignments, both ways
                if isinstance(child, ast.stmt):
                    block([child])

    block(init.body)
    return out


def _mode(module: _Module, env: dict[str, object], mode: str, call: ast.Call) -> object:
    """``self.training`` after ``self.eval()`` (false) or ``self.train(mode=True)``; unknown if not a constant."""
    if mode == "eval":
        return False if not call.args and not call.keywords else _UNKNOWN
    args = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    if not args:
        return True
    try:
        value = _init_value(module, env, args[0])
    except LarkcError:
        return _UNKNOWN
    return value if isinstance(value, bool) and len(args) == 1 else _UNKNOWN


def _nn_class(node: ast.expr) -> str | None:
    """The class name of ``nn.X`` / ``torch.nn.X`` (``X``), or ``None``."""
    if isinstance(node, ast.Attribute):
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id == "nn") or (
            isinstance(owner, ast.Attribute) and owner.attr == "nn"
        ):
            return node.attr
    return None


def _imports(tree: ast.Module) -> dict[str, str]:
    """Module-level names of torch's modules and of ``math``, by the dotted path they stand for
    (``F`` -> ``torch.nn.functional``)."""
    out = {"torch": "torch", "math": "math"}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.name == "torch" or a.name.startswith("torch.") or a.name == "math":
                    out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.module is not None and stmt.module.startswith("torch"):
            for a in stmt.names:
                out[a.asname or a.name] = f"{stmt.module}.{a.name}"
    return out


#: The name of placeholder ``k`` in a lowered expression (a tensor of forward).
_PLACEHOLDER = "__larkc_v"


@dataclass(frozen=True, slots=True)
class _Size:
    """A local holding a size (``batch = x.shape[0]``, ``h, w = x.shape[2:]``): its lowered expression,
    used where the local is (inside PyTorch steps)."""

    node: ast.expr


class _ForwardReader:
    """``ModelNew.forward`` read statement by statement into steps.

    Each expression is *lowered*: the tensors it names become placeholders (``__larkc_v<k>``, bound to
    a forward parameter, a parameter of ``ModelNew`` or an earlier step's result), attributes of
    ``self`` their constants, module calls their functional form (``self.conv(x)`` is
    ``torch.nn.functional.conv2d(x, w, b, ...)``), extension calls steps of their own; what is left is
    a constant (``self.alpha * 2``), a tensor (an alias), a size (``x.size(0)``) or a computation that
    becomes a :class:`TorchOp`.
    """

    def __init__(
        self,
        module: _Module,
        out: ModelNewFile,
        extensions: dict[str, Extension],
        attributes: dict[str, object],
        imports: dict[str, str],
        kinds: dict[str, tuple[int, str]],
    ) -> None:
        self.module, self.path, self.source = module, module.path, module.source
        self.kinds = kinds  # forward parameter -> its rank and element type
        self.out = out
        self.extensions = extensions
        self.attributes = attributes
        self.imports = imports
        self.env: dict[str, object] = {p: p for p in out.params}  # local -> Argument, constant or _Size
        self.values: list[Argument] = []  # placeholder k -> the tensor it stands for
        self.noncontiguous: set[Argument] = set()  # step results that are views PyTorch may lay out otherwise
        self.names: list[str] = []  # placeholder k -> a readable name for it

    # -- values -----------------------------------------------------------------------------------

    def error(self, what: str, node: ast.AST) -> LarkcError:
        return _unsupported(self.path, what, node, self.source)

    def placeholder(self, value: Argument, name: str) -> ast.Name:
        if value in self.values:
            k = self.values.index(value)
        else:
            k = len(self.values)
            self.values.append(value)
            self.names.append(re.sub(r"\W", "_", name))
        return ast.Name(id=f"{_PLACEHOLDER}{k}", ctx=ast.Load())

    def bound(self, node: ast.expr) -> Argument | None:
        """The tensor a lowered expression is, when it is one placeholder."""
        if isinstance(node, ast.Name) and node.id.startswith(_PLACEHOLDER):
            return self.values[int(node.id.removeprefix(_PLACEHOLDER))]
        return None

    @staticmethod
    def constant(node: ast.expr) -> tuple[bool, object]:
        """``(True, value)`` for a lowered expression without tensors that evaluates to a constant."""
        if any(isinstance(n, ast.Name) for n in ast.walk(node)):
            return False, None
        try:
            return True, ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        try:  # arithmetic of literals (``2 * 3``, ``1.0 / 4``)
            return True, eval(compile(ast.Expression(node), "<forward>", "eval"), {"__builtins__": {}})
        except Exception:
            return False, None

    @staticmethod
    def literal(value: object, node: ast.AST) -> ast.expr:
        if isinstance(value, NamedInt):  # kept (its text is the number's): passed on, it is its size
            return ast.copy_location(ast.Constant(value), node)
        return ast.copy_location(ast.parse(repr(value), mode="eval").body, node)

    def param_ref(self, path: str, node: ast.AST) -> ast.expr:
        return self.placeholder(ParamRef(path, _span(self.path, node)), path)

    # -- lowering ---------------------------------------------------------------------------------

    def lower(self, e: ast.expr) -> ast.expr:
        """``e`` lowered, its constant parts folded (``self.conv.stride[0]`` is ``2``)."""
        lowered = self.lower_parts(e)
        if isinstance(lowered, ast.BinOp | ast.UnaryOp | ast.Subscript):
            known, value = self.constant(lowered)
            if known and (value is None or isinstance(value, int | float | bool | tuple | str)):
                return self.literal(value, e)
        return lowered

    def lower_parts(self, e: ast.expr) -> ast.expr:
        match e:
            case ast.Constant():
                return e
            case ast.Name(id=name) if name in self.env:
                v = self.env[name]
                if isinstance(v, _Size):
                    return v.node
                if isinstance(v, str | CallResult | Allocation | EmptyTensor | View | ParamRef):
                    return self.placeholder(v, name)
                return self.literal(v, e)
            case ast.Name(id=name) if name in self.imports:
                dotted: ast.expr = ast.Name(id=self.imports[name].split(".")[0], ctx=ast.Load())
                for part in self.imports[name].split(".")[1:]:
                    dotted = ast.Attribute(value=dotted, attr=part, ctx=ast.Load())
                return dotted
            case ast.Name(id=name) if name in self.module.values:
                try:
                    return self.literal(self.module.constant(e), e)
                except LarkcError:
                    raise self.error("module-level value in ModelNew.forward", e) from None
            case ast.Name(id="None" | "True" | "False"):
                return e
            case ast.Attribute(value=ast.Name(id="self"), attr=attr):
                return self.self_attribute(attr, e)
            case ast.Attribute(value=ast.Attribute(value=ast.Name(id="self"), attr=owner), attr=attr) if isinstance(
                self.attributes.get(owner), _Submodule
            ):
                return self.submodule_attribute(owner, attr, e)
            case ast.Attribute(value=owner, attr="dtype" | "ndim" as what) if self.kind(owner) is not None:
                rank, dtype = self.kind(owner) or (0, "")
                if what == "ndim":
                    return ast.copy_location(ast.Constant(rank), e)
                return ast.copy_location(ast.parse(f"torch.{_TORCH_DTYPE_NAMES[dtype]}", mode="eval").body, e)
            case ast.Call(func=ast.Attribute(value=owner, attr="dim"), args=[], keywords=[]) if self.kind(owner):
                return ast.copy_location(ast.Constant((self.kind(owner) or (0, ""))[0]), e)
            case ast.Attribute(value=owner, attr="is_cuda"):
                self.lower(owner)
                return ast.copy_location(ast.Constant(True), e)  # forward runs on CUDA tensors
            case ast.Attribute(value=owner, attr=attr):
                return ast.copy_location(ast.Attribute(value=self.lower(owner), attr=attr, ctx=ast.Load()), e)
            case ast.Call():
                return self.call(e)
            case ast.BinOp(left=left, op=op, right=right):
                return ast.copy_location(ast.BinOp(left=self.lower(left), op=op, right=self.lower(right)), e)
            case ast.UnaryOp(op=op, operand=x):
                return ast.copy_location(ast.UnaryOp(op=op, operand=self.lower(x)), e)
            case ast.BoolOp() | ast.Compare():
                truth = self.truth(e)
                if truth is None:
                    raise self.error("condition in ModelNew.forward (not decided for CUDA tensors)", e)
                return ast.copy_location(ast.Constant(truth), e)
            case ast.IfExp(test=test, body=yes, orelse=no):
                truth = self.truth(test)
                if truth is None:
                    raise self.error("condition in ModelNew.forward (not decided for CUDA tensors)", test)
                return self.lower(yes if truth else no)
            case ast.Subscript(value=value, slice=index):
                return ast.copy_location(
                    ast.Subscript(value=self.lower(value), slice=self.lower(index), ctx=ast.Load()), e
                )
            case ast.Slice(lower=lo, upper=hi, step=st):
                return ast.Slice(
                    lower=self.lower(lo) if lo else None,
                    upper=self.lower(hi) if hi else None,
                    step=self.lower(st) if st else None,
                )
            case ast.Tuple(elts=items):
                return ast.copy_location(ast.Tuple(elts=[self.lower(i) for i in items], ctx=ast.Load()), e)
            case ast.List(elts=items):
                return ast.copy_location(ast.List(elts=[self.lower(i) for i in items], ctx=ast.Load()), e)
            case ast.Starred(value=v):
                return ast.copy_location(ast.Starred(value=self.lower(v), ctx=ast.Load()), e)
        raise self.error("computation in ModelNew.forward", e)

    def kind(self, e: ast.expr) -> tuple[int, str] | None:
        """The rank and element type of a forward parameter ``e`` names (not reassigned), if known."""
        if isinstance(e, ast.Name) and isinstance(self.env.get(e.id), str):
            k = self.kinds.get(str(self.env[e.id]))
            if k is not None and k[1] in _TORCH_DTYPE_NAMES:
                return k
        return None

    def self_attribute(self, attr: str, e: ast.expr) -> ast.expr:
        if attr == "training" and attr not in self.attributes:
            # KernelBench's harness never calls .eval(): ModelNew runs in training mode, as Model is traced
            return ast.copy_location(ast.Constant(True), e)
        v = self.attributes.get(attr, _Parameter())  # an attribute __init__ does not show is a parameter
        match v:
            case _Parameter():
                return self.param_ref(attr, e)
            case Extension() | _ExtFunction() | _Submodule():
                raise self.error("use of a module of ModelNew other than a call", e)
            case _Unknown():
                raise self.error("attribute of ModelNew that is not a constant", e)
        return self.literal(v, e)

    def submodule_attribute(self, owner: str, attr: str, e: ast.expr) -> ast.expr:
        """``self.conv.weight``, ``self.conv.bias`` (``None`` without one), ``self.conv.kernel_size``."""
        sub = self.attributes[owner]
        assert isinstance(sub, _Submodule)
        if attr == "weight" and _has_weight(sub):
            return self.param_ref(f"{owner}.weight", e)
        if attr == "bias":
            return self.param_ref(f"{owner}.bias", e) if _has_bias(sub) else ast.copy_location(ast.Constant(None), e)
        if attr in ("running_mean", "running_var") and sub.cls.startswith("BatchNorm"):
            # a batch norm's statistics are buffers, bound to Model's (task inputs: the reference, traced in
            # training mode, reads none of them, so a kernel applying them is refuted)
            return self.param_ref(f"{owner}.{attr}", e)
        v = _hyperparameter(sub, attr)
        if isinstance(v, _Unknown):
            raise self.error(f"attribute {attr} of nn.{sub.cls}", e)
        return self.literal(v, e)

    def call(self, e: ast.Call) -> ast.expr:
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr in ("data_ptr", "storage", "untyped_storage", "storage_offset"):
            # a buffer's address says nothing of its values (a cache keyed on it returns stale results)
            raise self.error("use of a tensor's address in ModelNew.forward", e)
        match e:
            case ast.Call(func=ast.Name(id="hasattr"), args=[ast.Name(id="self"), ast.Constant(value=str(name))]):
                return ast.copy_location(ast.Constant(name in self.attributes), e)
            case ast.Call(func=ast.Name(id="float" | "int" | "bool" as conv), args=[x], keywords=[]):
                known, value = self.constant(self.lower(x))
                if known and isinstance(value, int | float | bool):
                    return self.literal({"float": float, "int": int, "bool": bool}[conv](value), e)
        ext = self.extension_of(f)
        if ext is not None:
            return self.placeholder(self.extension_call(ext[0], ext[1], e), f"t{len(self.out.steps) - 1}")
        empty = self.empty_tensor(e)
        if empty is not None:
            return self.placeholder(empty, "empty")
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            sub = self.attributes.get(f.attr)
            if isinstance(sub, _Submodule):
                return self.module_call(f.attr, sub, e)
        if isinstance(f, ast.Attribute) and not e.keywords:
            if f.attr == "contiguous" and not e.args:
                inner = self.lower(f.value)
                bound = self.bound(inner)
                if bound is not None and bound in self.noncontiguous:  # a copy in row-major order
                    copy = ast.Call(
                        func=ast.Attribute(value=inner, attr="contiguous", ctx=ast.Load()), args=[], keywords=[]
                    )
                    result = self.torch_step(ast.copy_location(copy, e), e)
                    return self.placeholder(result, f"t{result.index}")
                if bound is None and _may_be_noncontiguous(inner, self):
                    return ast.copy_location(
                        ast.Call(
                            func=ast.Attribute(value=inner, attr="contiguous", ctx=ast.Load()), args=[], keywords=[]
                        ),
                        e,
                    )
                return inner
            if f.attr in _IDENTITY_METHODS and not e.args:
                return self.lower(f.value)
            if f.attr == "is_contiguous" and not e.args:
                inner = self.lower(f.value)
                bound = self.bound(inner)
                if (bound is not None and bound in self.noncontiguous) or (
                    bound is None and _may_be_noncontiguous(inner, self)
                ):  # a view: contiguous or not by its sizes (B.t() of a (K, 1) B is), not decided here
                    raise self.error("is_contiguous() of a view, which depends on its sizes", e)
                return ast.copy_location(ast.Constant(True), e)
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "to"
            and not any(self.is_dtype(a) for a in e.args)
            and not any(k.arg in ("dtype", None) or self.is_dtype(k.value) for k in e.keywords)
        ):
            return self.lower(f.value)  # .to(device), .to(x.device), .to("cuda")
        return ast.copy_location(
            ast.Call(
                func=self.lower(f),
                args=[self.lower(a) for a in e.args],
                keywords=[ast.keyword(arg=k.arg, value=self.lower(k.value)) for k in e.keywords],
            ),
            e,
        )

    def empty_tensor(self, e: ast.Call) -> EmptyTensor | None:
        """``torch.empty(0, ...)``, ``torch.zeros((0,), ...)``: a tensor of no elements (its ``device`` is
        CUDA's, as every tensor's here); any other size or keyword is not one."""
        f = e.func
        if not (
            isinstance(f, ast.Attribute)
            and f.attr in ("empty", "zeros")
            and isinstance(f.value, ast.Name)
            and self.imports.get(f.value.id, f.value.id) == "torch"
            and len(e.args) == 1
        ):
            return None
        known, size = self.constant(self.lower(e.args[0]))
        if not known or size not in (0, (0,), [0]) or isinstance(size, bool):
            return None
        dtype = "f32"
        for k in e.keywords:
            match k.arg:
                case "device" | "requires_grad":
                    continue
                case "dtype":
                    name = _dtype_name(self.lower(k.value))
                    short = [t for t, n in _TORCH_DTYPE_NAMES.items() if n == name]
                    if not short:
                        return None
                    dtype = short[0]
                case _:
                    return None
        return EmptyTensor(dtype)

    def is_dtype(self, node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr in _TORCH_DTYPES) or (
            isinstance(node, ast.Attribute) and node.attr == "dtype"
        )

    def extension_of(self, f: ast.expr) -> tuple[Extension, str] | None:
        """The extension and function ``f`` names: ``ext.fn``, ``self.ext.fn``, ``self.fn`` (stored)."""
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            stored = self.attributes.get(f.attr)
            return (stored.extension, stored.function) if isinstance(stored, _ExtFunction) else None
        if not isinstance(f, ast.Attribute):
            return None
        owner = f.value
        ext: object = None
        if isinstance(owner, ast.Name) and owner.id in self.extensions and owner.id not in self.env:
            ext = self.extensions[owner.id]
        elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
            ext = self.attributes.get(owner.attr)
        return (ext, f.attr) if isinstance(ext, Extension) else None

    def extension_call(self, ext: Extension, function: str, e: ast.Call) -> CallResult:
        if function not in ext.functions:
            raise self.error(f"call of a function {ext.variable} does not export", e)
        if e.keywords:
            raise self.error("keyword arguments of the CUDA function", e)
        arguments = tuple(self.argument(a) for a in e.args)
        call = ForwardCall(ext, function, arguments, _span(self.path, e))
        self.out.calls.append(call)
        self.out.steps.append(call)
        return CallResult(len(self.out.steps) - 1)

    def argument(self, a: ast.expr) -> Argument:
        """An argument of an extension call: a tensor (a computed one becomes a PyTorch step first), or a constant."""
        seen = self.view(a)
        if seen is not None:
            return seen
        lowered = self.lower(a)
        tensor = self.bound(lowered)
        if tensor is None and not _may_be_noncontiguous(lowered, self):
            known, value = self.constant(lowered)
            if known and isinstance(value, int | float | bool):
                return value
        else:
            known, value = False, None
        if tensor is None and not known and not _is_size(lowered):
            tensor = self.torch_step(lowered, a)
        if tensor is not None:
            if tensor in self.noncontiguous:
                raise self.error(
                    "tensor passed to the CUDA function that may not be contiguous (a view such as a transpose"
                    " keeps the layout of what it views, which a kernel reading data_ptr() does not see; call"
                    " .contiguous())",
                    a,
                )
            return tensor
        if known:
            if value is None:  # an absent optional tensor: the host function's parameter must take one
                return None
            if isinstance(value, list | tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                return tuple(int(v) for v in value)  # [self.stride, self.stride], self.kernel_size: integers
            raise self.error("argument of the CUDA function (a tensor or a number)", a)
        if _is_size(lowered) and not isinstance(lowered, ast.Tuple | ast.List):
            used = sorted(
                {n.id for n in ast.walk(lowered) if isinstance(n, ast.Name) and n.id.startswith(_PLACEHOLDER)}
            )
            return SizeArg(ast.unparse(lowered), tuple(used), tuple(self.bound(_name(n)) for n in used))
        if _is_size(lowered):
            raise self.error("argument of the CUDA function computed from sizes", a)
        return self.torch_step(lowered, a)

    def view(self, a: ast.expr) -> View | None:
        """``p.view(...)``, ``p.reshape(...)``, ``p.flatten()`` of a forward parameter ``p``, passed to an
        extension as the same buffer seen with another shape."""
        while isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr in _IDENTITY_METHODS:
            if a.args or a.keywords:
                return None
            a = a.func.value
        if not (isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and not a.keywords):
            return None
        owner, method = a.func.value, a.func.attr
        if not (isinstance(owner, ast.Name) and isinstance(self.env.get(owner.id), str)):
            return None
        param = self.env[owner.id]
        assert isinstance(param, str)
        if method == "flatten":
            return View(param, (-1,)) if not a.args else None
        if method not in ("view", "reshape"):
            return None
        items = list(a.args[0].elts) if len(a.args) == 1 and isinstance(a.args[0], ast.Tuple | ast.List) else a.args
        dims: list[int | tuple[str, int]] = []
        for d in items:
            match d:
                case ast.Call(func=ast.Attribute(value=ast.Name(id=q), attr="size"), args=[ast.Constant(value=int(k))]):
                    if q != owner.id:
                        return None
                    dims.append(("size", k))
                case ast.Subscript(
                    value=ast.Attribute(value=ast.Name(id=q), attr="shape"), slice=ast.Constant(value=int(k))
                ):
                    if q != owner.id:
                        return None
                    dims.append(("size", k))
                case _:
                    try:
                        v = self.module.constant(d)
                    except LarkcError:
                        return None
                    if not isinstance(v, int) or isinstance(v, bool):
                        return None
                    dims.append(v)
        return View(param, tuple(dims))

    def module_call(self, attr: str, sub: _Submodule, e: ast.Call) -> ast.expr:
        """``self.conv(x)``: the module's functional form over the call's input and the module's parameters."""
        if len(e.args) != 1 or e.keywords:
            raise self.error(f"call of nn.{sub.cls} (one tensor argument)", e)
        x = self.lower(e.args[0])
        xt = "__larkc_x"
        weight = f"{_PLACEHOLDER}{self.index(self.param_ref(f'{attr}.weight', e))}" if _has_weight(sub) else "None"
        bias = f"{_PLACEHOLDER}{self.index(self.param_ref(f'{attr}.bias', e))}" if _has_bias(sub) else "None"
        if sub.cls in _DROPOUTS and _dropout_p(sub) != 0.0:
            raise self.error(
                f"call of nn.{sub.cls} with p > 0 (KernelBench's harness runs ModelNew in training mode, "
                "where dropout is random)",
                e,
            )
        text = _functional(sub, xt, weight, bias)
        if text is None:
            known = sub.cls in _SIGNATURES or sub.cls in _PARAMETERLESS
            unknown = next((k for k, v in sub.arguments if isinstance(v, _Unknown)), None) if known else None
            what = f" (argument {unknown} not read as a constant)" if unknown is not None else ""
            raise self.error(f"call of nn.{sub.cls}{what}", e)
        lowered = ast.parse(text, mode="eval").body

        class _Put(ast.NodeTransformer):
            def visit_Name(self, node: ast.Name) -> ast.expr:
                return x if node.id == xt else node

        put: ast.expr = _Put().visit(lowered)
        return ast.copy_location(put, e)

    def index(self, placeholder: ast.expr) -> int:
        assert isinstance(placeholder, ast.Name)
        return int(placeholder.id.removeprefix(_PLACEHOLDER))

    def torch_step(self, lowered: ast.expr, node: ast.expr) -> CallResult:
        """A :class:`TorchOp` computing ``lowered``; its result is the step's."""
        used: list[int] = []
        for n in ast.walk(lowered):
            if isinstance(n, ast.Name) and n.id.startswith(_PLACEHOLDER):
                k = int(n.id.removeprefix(_PLACEHOLDER))
                if k not in used:
                    used.append(k)
        used.sort()
        names: dict[int, str] = {}
        for k in used:
            base = self.names[k] if self.names[k].isidentifier() and not self.names[k].startswith("_") else "t"
            name = base
            while name in names.values() or name in ("torch", "math"):
                name = f"{base}_{len(names)}"
            names[k] = name

        class _Name(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name) -> ast.expr:
                if n.id.startswith(_PLACEHOLDER):
                    return ast.Name(id=names[int(n.id.removeprefix(_PLACEHOLDER))], ctx=ast.Load())
                return n

        text = ast.unparse(_Name().visit(_copy(lowered)))
        label = " ".join((ast.get_source_segment(self.source, node) or text).split())
        step = TorchOp(
            tuple(names[k] for k in used), tuple(self.values[k] for k in used), text, label, _span(self.path, node)
        )
        self.out.steps.append(step)
        result = CallResult(len(self.out.steps) - 1)
        if _may_be_noncontiguous(lowered, self):
            self.noncontiguous.add(result)
        return result

    def tensor(self, e: ast.expr) -> Argument:
        """The tensor ``e`` is: an alias of one, or a PyTorch step computing it."""
        lowered = self.lower(e)
        bound = self.bound(lowered)
        if bound is not None:
            return bound
        known, _ = self.constant(lowered)
        if known or _is_size(lowered):
            raise self.error("value in ModelNew.forward where a tensor is expected", e)
        return self.torch_step(lowered, e)

    # -- conditions -------------------------------------------------------------------------------

    def truth(self, e: ast.expr) -> bool | None:
        """A condition decided for CUDA tensors and ``__init__``'s constants, or ``None``."""
        match e:
            case ast.BoolOp(op=op, values=items):
                parts = [self.truth(i) for i in items]
                if isinstance(op, ast.And):
                    return False if False in parts else (None if None in parts else True)
                return True if True in parts else (None if None in parts else False)
            case ast.UnaryOp(op=ast.Not(), operand=x):
                t = self.truth(x)
                return None if t is None else not t
            case ast.Compare(left=left, ops=[ast.Is() | ast.IsNot() as op], comparators=[right]):
                a, b = self.lower(left), self.lower(right)
                none_a = isinstance(a, ast.Constant) and a.value is None
                none_b = isinstance(b, ast.Constant) and b.value is None
                tensor = self.bound(a) is not None or self.bound(b) is not None
                if (none_a or none_b) and (tensor or (none_a and none_b)):
                    return (none_a and none_b) == isinstance(op, ast.Is)
                return None
        if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], ast.Eq | ast.NotEq):
            da, db = _dtype_name(self.lower(e.left)), _dtype_name(self.lower(e.comparators[0]))
            if da is not None and db is not None:  # x.dtype == torch.float32
                return (da == db) == isinstance(e.ops[0], ast.Eq)
        lowered = self.lower(e) if not isinstance(e, ast.BoolOp | ast.Compare) else self.lower_compare(e)
        if lowered is None:
            return None
        if self.bound(lowered) is not None:
            return None  # the truth of a tensor is its value's
        known, value = self.constant(lowered)
        return bool(value) if known else None

    def lower_compare(self, e: ast.expr) -> ast.expr | None:
        if not isinstance(e, ast.Compare):
            return None
        return ast.copy_location(
            ast.Compare(left=self.lower(e.left), ops=e.ops, comparators=[self.lower(c) for c in e.comparators]), e
        )

    # -- statements -------------------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt]) -> bool:
        """Read statements; ``True`` once one returned."""
        return any(self.statement(stmt) for stmt in body)

    def statement(self, stmt: ast.stmt) -> bool:
        match stmt:
            case ast.Expr(value=ast.Constant()) | ast.Pass():
                return False
            case ast.Assign(targets=[ast.Name(id=name)], value=value):
                alloc = _allocation(name, value, self.env)
                if alloc is not None:
                    self.env[name] = alloc
                    return False
                self.env[name] = self.value(value, stmt)
                return False
            case ast.Assign(targets=targets, value=value) if len(targets) > 1 and all(
                isinstance(t, ast.Name) for t in targets
            ):
                v = self.value(value, stmt)
                for t in targets:
                    assert isinstance(t, ast.Name)
                    self.env[t.id] = v
                return False
            case ast.AnnAssign(target=ast.Name(id=name), value=value) if value is not None:
                self.env[name] = self.value(value, stmt)
                return False
            case ast.Assign(targets=[ast.Tuple(elts=names) | ast.List(elts=names)], value=value) if all(
                isinstance(n, ast.Name) for n in names
            ):
                lowered = self.lower(value)
                if not _is_size(lowered):
                    raise self.error("unpacking in ModelNew.forward (of sizes: x.shape)", stmt)
                for k, n in enumerate(names):
                    assert isinstance(n, ast.Name)
                    item = ast.Subscript(value=lowered, slice=ast.Constant(k), ctx=ast.Load())
                    self.env[n.id] = _Size(item)
                return False
            case ast.AugAssign(target=ast.Name(id=name), op=op, value=value) if name in self.env:
                combined = ast.copy_location(
                    ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=op, right=value), stmt
                )
                self.env[name] = self.value(combined, stmt)
                return False
            case ast.Expr(value=ast.Call() as call) if self.extension_of(call.func) is not None:
                self.lower(call)  # self.ext.f(x, out): fills a tensor forward allocated
                return False
            case ast.If(test=test, body=yes, orelse=no):
                truth = self.truth(test)
                if truth is None:
                    raise self.error("condition in ModelNew.forward (not decided for CUDA tensors)", test)
                return self.block(yes if truth else no)
            case ast.Assert(test=test):
                if self.truth(test) is not True:
                    raise self.error("assertion in ModelNew.forward (not decided for CUDA tensors)", stmt)
                return False
            case ast.Return(value=value) if value is not None:
                self.ret(value, stmt)
                return True
        raise self.error("statement in ModelNew.forward", stmt)

    def value(self, e: ast.expr, stmt: ast.stmt) -> object:
        """What a local is assigned: a tensor, a constant or a size."""
        lowered = self.lower(e)
        bound = self.bound(lowered)
        if bound is not None:
            return bound
        known, value = self.constant(lowered)
        if known:
            return value
        if _is_size(lowered):
            return _Size(lowered)
        return self.torch_step(lowered, e)

    def ret(self, value: ast.expr, stmt: ast.Return) -> None:
        like = _shaped_like(value, self.env)
        if like is not None:
            inner = self.lower(like[0])
            result = self.bound(inner)
            if isinstance(result, CallResult) and isinstance(self.out.steps[result.index], ForwardCall):
                self.out.result, self.out.result_like = result, like[1]  # r.view_as(x): the kernel's buffer
                return
        result = self.tensor(value)
        if isinstance(result, Allocation):
            if not any(result in c.arguments for c in self.out.calls):
                raise self.error("return of a tensor no CUDA call is given", stmt)
            self.out.returns = result
        elif not isinstance(result, CallResult):
            raise self.error("return of a tensor ModelNew.forward does not compute (an input or a parameter)", stmt)
        self.out.result = result


def _dtype_name(node: ast.expr) -> str | None:
    """``torch.float32`` (also ``torch.float``): ``float32``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        name = _DTYPE_ALIASES.get(node.attr, node.attr)
        return name if name in _TORCH_DTYPE_NAMES.values() else None
    return None


def _copy(node: ast.expr) -> ast.expr:
    copied = ast.parse(ast.unparse(node), mode="eval").body
    return copied


def _allocation(name: str, e: ast.expr, env: Mapping[str, object]) -> Allocation | None:
    """``torch.empty_like(x)`` / ``torch.zeros_like(x)`` of a forward parameter: a tensor to fill."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and len(e.args) == 1):
        return None
    owner, fn = e.func.value, e.func.attr
    if not (isinstance(owner, ast.Name) and owner.id == "torch" and fn in ("empty_like", "zeros_like")):
        return None
    like = e.args[0]
    if not (isinstance(like, ast.Name) and isinstance(env.get(like.id), str)) or e.keywords:
        return None
    param = env[like.id]
    assert isinstance(param, str)
    return Allocation(name, param, "zeros" if fn == "zeros_like" else "empty")


def _shaped_like(e: ast.expr, env: Mapping[str, object]) -> tuple[ast.expr, str] | None:
    """``r.view_as(p)``, ``r.view(p.shape)``, ``r.reshape(p.shape)``: ``r`` and the forward parameter ``p``."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and len(e.args) == 1):
        return None
    a, method = e.args[0], e.func.attr
    if method == "view_as" and isinstance(a, ast.Name) and isinstance(env.get(a.id), str):
        return e.func.value, str(env[a.id])
    if (
        method in ("view", "reshape")
        and isinstance(a, ast.Attribute)
        and a.attr == "shape"
        and isinstance(a.value, ast.Name)
        and isinstance(env.get(a.value.id), str)
    ):
        return e.func.value, str(env[a.value.id])
    return None


#: Tensor methods (and torch functions) whose result views its input with other strides: not contiguous.
_STRIDED_VIEWS = frozenset(
    {"t", "transpose", "permute", "expand", "expand_as", "narrow", "select", "diagonal", "unfold", "as_strided",
     "swapaxes", "swapdims", "movedim", "moveaxis", "T", "mT", "H", "mH", "chunk", "split", "unbind"}
)  # fmt: skip


def _may_be_noncontiguous(node: ast.expr, reader: _ForwardReader) -> bool:
    """Whether a lowered expression may be a view that is not contiguous (``B.t()``, ``x[:, 0]``)."""
    match node:
        case ast.Attribute(attr=attr) if attr in _STRIDED_VIEWS:
            return True
        case ast.Call(func=ast.Attribute(attr=attr)) if attr in _STRIDED_VIEWS:
            return True
        case ast.Subscript(value=value):
            return not _is_size(value)
        case ast.Call(func=ast.Attribute(value=owner, attr="view" | "reshape" | "view_as" | "squeeze" | "unsqueeze")):
            return _may_be_noncontiguous(owner, reader)  # a view of a strided view stays strided
        case ast.Name():
            bound = reader.bound(node)
            return bound is not None and bound in reader.noncontiguous
    return False


def _name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Load())


def _is_size(node: ast.expr) -> bool:
    """Whether a lowered expression computes sizes only (``x.shape[0] * 2``, ``x.size()``, ``x.dim()``)."""
    match node:
        case ast.Constant(value=v):
            return isinstance(v, int | float) or v is None
        case ast.Attribute(attr="shape"):
            return True
        case ast.Call(func=ast.Attribute(attr="size" | "dim" | "numel" | "stride" | "element_size"), args=args):
            return all(_is_size(a) for a in args)
        case ast.Call(func=ast.Name(id="len" | "int"), args=[x]):
            return _is_size(x)
        case ast.Subscript(value=value, slice=index):
            return _is_size(value) and (_is_size(index) or isinstance(index, ast.Slice))
        case ast.BinOp(left=left, right=right):
            return _is_size(left) and _is_size(right)
        case ast.UnaryOp(operand=x):
            return _is_size(x)
        case ast.Tuple(elts=items) | ast.List(elts=items):
            return all(_is_size(i) for i in items)
    return False


def _has_weight(sub: _Submodule) -> bool:
    if sub.cls.startswith(("Conv", "Linear")):
        return True
    if sub.cls == "LayerNorm":
        return sub.get("elementwise_affine") is True
    if sub.cls in _SIGNATURES:
        return sub.get("affine") is True
    return False


def _has_bias(sub: _Submodule) -> bool:
    if sub.cls.startswith(("Conv", "Linear")):
        return sub.get("bias") is not False
    if sub.cls == "LayerNorm":
        return sub.get("elementwise_affine") is True and sub.get("bias") is not False
    return _has_weight(sub)


def _rank(sub: _Submodule) -> int:
    return int(sub.cls[-2]) if sub.cls[-2:-1].isdigit() else 1


def _hyperparameter(sub: _Submodule, name: str) -> object:
    """An attribute of the module as torch stores it: conv sizes as tuples of the module's rank."""
    v = sub.get(name)
    if sub.cls.startswith("Conv") and name in ("kernel_size", "stride", "padding", "dilation", "output_padding"):
        if isinstance(v, int) and not isinstance(v, bool):
            return (v,) * _rank(sub)
        if isinstance(v, list):
            return tuple(v)
    if isinstance(v, list):
        return tuple(v)
    return v


def _functional(sub: _Submodule, x: str, weight: str, bias: str) -> str | None:
    """Python text computing ``sub``'s forward on ``x`` with its parameters ``weight`` and ``bias``
    (names, or ``None``), as PyTorch's module does in training mode (KernelBench's harness never calls
    ``.eval()``); ``None`` where an argument is unknown."""
    cls = sub.cls

    def args(*names: str) -> list[object] | None:
        values = [_hyperparameter(sub, n) for n in names]
        return None if any(isinstance(v, _Unknown) for v in values) else values

    fn = "torch.nn.functional"
    if cls == "Linear":
        return f"{fn}.linear({x}, {weight}, {bias})"
    if cls.startswith("Conv") and cls in _SIGNATURES:
        if sub.get("padding_mode") != "zeros":
            return None
        rank = _rank(sub)
        if cls.startswith("ConvTranspose"):
            v = args("stride", "padding", "output_padding", "groups", "dilation")
            if v is None:
                return None
            s, p, op, g, d = v
            return (
                f"{fn}.conv_transpose{rank}d({x}, {weight}, {bias}, stride={s!r}, padding={p!r},"
                f" output_padding={op!r}, groups={g!r}, dilation={d!r})"
            )
        v = args("stride", "padding", "dilation", "groups")
        if v is None:
            return None
        s, p, d, g = v
        return f"{fn}.conv{rank}d({x}, {weight}, {bias}, stride={s!r}, padding={p!r}, dilation={d!r}, groups={g!r})"
    if cls == "GroupNorm":
        v = args("num_groups", "eps")
        return None if v is None else f"{fn}.group_norm({x}, {v[0]!r}, {weight}, {bias}, {v[1]!r})"
    if cls == "LayerNorm":
        v = args("normalized_shape", "eps")
        if v is None:
            return None
        shape, eps = v
        k = len(shape) if isinstance(shape, tuple) else 1
        return f"{fn}.layer_norm({x}, {x}.shape[-{k}:], {weight}, {bias}, {eps!r})"
    if cls.startswith("BatchNorm"):
        v = args("eps", "track_running_stats")
        if v is None:
            return None
        eps, running = v
        if not running:  # no running statistics: the batch's, in eval mode too
            return f"{fn}.batch_norm({x}, None, None, {weight}, {bias}, True, 0.0, {eps!r})"
        # training mode, as KernelBench's harness runs ModelNew (and the reference stage traces Model): the
        # batch's statistics; the running ones it updates are never read by this forward
        return f"{fn}.batch_norm({x}, None, None, {weight}, {bias}, True, 0.0, {eps!r})"
    if cls.startswith("InstanceNorm"):
        v = args("eps", "track_running_stats")
        if v is None or v[1]:
            return None
        return f"{fn}.instance_norm({x}, None, None, {weight}, {bias}, True, 0.0, {v[0]!r})"
    if cls in _PARAMETERLESS:
        if any(isinstance(v, _Unknown) for _, v in sub.arguments):
            return None
        positional = [repr(v if not isinstance(v, list) else tuple(v)) for k, v in sub.arguments if k.isdigit()]
        keywords = [f"{k}={v!r}" for k, v in sub.arguments if not k.isdigit()]
        return f"torch.nn.{cls}({', '.join(positional + keywords)})({x})"
    return None


#: Dropout modules: random in training mode (KernelBench's) unless ``p`` is 0.
_DROPOUTS = frozenset({"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"})


def _dropout_p(sub: _Submodule) -> object:
    """The module's ``p`` as read (positional or keyword; torch's default 0.5)."""
    for k, v in sub.arguments:
        if k in ("0", "p"):
            return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
    return 0.5


#: Modules without parameters whose calls are PyTorch steps (constructed with their arguments, in training mode).
_PARAMETERLESS = frozenset(
    {
        "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Dropout2d",
        "Dropout3d", "Identity", "Flatten", "LeakyReLU", "ELU", "SELU", "CELU", "Hardtanh", "Hardsigmoid",
        "Hardswish", "Mish", "Softplus", "Softsign", "Tanhshrink", "MaxPool1d", "MaxPool2d", "MaxPool3d",
        "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
        "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample", "PixelShuffle", "Softmin",
    }
)  # fmt: skip


def _read_forward(
    module: _Module,
    forward: ast.FunctionDef,
    out: ModelNewFile,
    extensions: dict[str, Extension],
    attributes: dict[str, object],
    imports: dict[str, str],
    kinds: dict[str, tuple[int, str]],
) -> None:
    reader = _ForwardReader(module, out, extensions, attributes, imports, kinds)
    if not reader.block(forward.body):
        raise LarkcError("ModelNew.forward returns nothing", _span(module.path, forward), stage=Stage.FRONTEND)


#: torch's factory functions: their sizes are the tensor's dimensions.
_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty", "full", "randint", "normal"})


@dataclass(frozen=True, slots=True)
class InputRead:
    """One value ``get_inputs()`` returns, as written: the names of its dimensions (a module-level name,
    an integer literal, or ``None`` for a size given otherwise; ``()`` for a value that is no tensor or
    cannot be read so), and the name bounding its values from above where it is ``torch.randint(lo, hi,
    ...)`` with ``hi`` a module-level name (``num_classes``)."""

    dims: tuple[str | int | None, ...]
    high: str | None = None


def input_dim_names(path: Path) -> list[list[str | int | None]]:
    """For each value ``get_inputs()`` returns, the names of its dimensions (:func:`read_get_inputs`)."""
    return [list(r.dims) for r in read_get_inputs(path)]


def read_get_inputs(path: Path) -> list[InputRead]:
    """Each value ``get_inputs()`` returns, read as written: ``torch.randn(a, b)``, ``torch.rand((a, b))``,
    ``torch.randint(0, c, (b,))``, a size from a module-level tuple (``torch.rand(b, *shape)``), under
    calls that keep the shape (``torch.tril(torch.rand(n, n))``, ``torch.abs(...)``, ``F.softmax(...)``,
    ``.cuda()``, ``x * 2 - 1``), through local names (``a = torch.rand(m, m); a = torch.tril(a)``);
    ``[]`` where the file cannot be read so. The sizes' values come from running it on meta tensors."""
    try:
        source, tree = _parse(path)
    except LarkcError:
        return []
    module = _Module(path, source, tree)
    fn = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "get_inputs"), None)
    if fn is None:
        return []
    ret = next((s for s in fn.body if isinstance(s, ast.Return)), None)
    if ret is None or not isinstance(ret.value, ast.List | ast.Tuple):
        return []
    local: dict[str, InputRead] = {}
    for s in fn.body:  # straight-line assignments before the return, in order
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            local[s.targets[0].id] = _tensor_read(module, s.value, local, 0)
    return [_tensor_read(module, item, local, 0) for item in ret.value.elts]


def _tensor_read(module: _Module, e: ast.expr, local: Mapping[str, InputRead], depth: int) -> InputRead:
    """What ``e`` in ``get_inputs()`` makes (:class:`InputRead`): a factory call's sizes, or those of the
    tensor a shape-keeping call or arithmetic wraps."""
    unread = InputRead(())
    if depth > 20:
        return unread
    match e:
        case ast.Name(id=name):
            return local.get(name, unread)
        case ast.BinOp(left=left, right=right):  # x * 2 - 1: the tensor operand's shape
            a, b = _tensor_read(module, left, local, depth + 1), _tensor_read(module, right, local, depth + 1)
            return a if a.dims else b
        case ast.UnaryOp(operand=x):
            return _tensor_read(module, x, local, depth + 1)
        case ast.Call(func=ast.Attribute(value=owner, attr=fn)) if fn in _FACTORIES and _is_torch(owner):
            return _factory_read(module, fn, e)
        case ast.Call(func=ast.Attribute(value=owner, attr=_)) if not _is_torch(owner) and not _is_functional(owner):
            return _tensor_read(module, owner, local, depth + 1)  # a method: x.cuda(), x.float(), x.to(...)
        case ast.Call(args=[first, *_]):  # torch.tril(x), torch.abs(x), F.softmax(x, dim=1): the first argument's
            return _tensor_read(module, first, local, depth + 1)
    return unread


def _is_torch(e: ast.expr) -> bool:
    return isinstance(e, ast.Name) and e.id == "torch"


def _is_functional(e: ast.expr) -> bool:
    return (isinstance(e, ast.Name) and e.id in ("F", "nn")) or (
        isinstance(e, ast.Attribute) and e.attr in ("functional", "nn")
    )


def _factory_read(module: _Module, fn: str, call: ast.Call) -> InputRead:
    """The dimensions of ``torch.<fn>(...)`` and, for ``randint``, the name of its upper bound."""
    kw = {k.arg: k.value for k in call.keywords if k.arg is not None}
    args = list(call.args)
    high: str | None = None
    if fn == "randint":  # randint(high, size) or randint(low, high, size)
        if "size" in kw:
            bound = args[-1] if args else kw.get("high")
            args = [kw["size"]]
        else:
            bound = args[-2] if len(args) >= 2 else kw.get("high")
            args = args[-1:]
        high = bound.id if isinstance(bound, ast.Name) else None
    elif fn == "full":
        args = args[:1]
    elif fn == "normal":
        args = [kw["size"]] if "size" in kw else args[2:3]
    elif not args and "size" in kw:
        args = [kw["size"]]
    if len(args) == 1 and isinstance(args[0], ast.Tuple | ast.List):
        args = list(args[0].elts)
    dims: list[str | int | None] = []
    for a in args:
        match a:
            case ast.Starred(value=ast.Name(id=name)) if isinstance(module.values.get(name), ast.Tuple | ast.List):
                # a module-level shape tuple: its names name sizes; its literals are not written here
                shape = module.values[name]
                assert isinstance(shape, ast.Tuple | ast.List)
                dims += [d.id if isinstance(d, ast.Name) else None for d in shape.elts]
            case ast.Starred():
                return InputRead(())
            case ast.Constant(value=int(v)) if not isinstance(v, bool):
                dims.append(v)
            case ast.Name(id=name):
                dims.append(name)
            case _:
                dims.append(None)
    return InputRead(tuple(dims), high)


def init_input_values(path: Path) -> list[object] | None:
    """``get_init_inputs()`` of a problem file if it returns a list of constants, else ``None``."""
    return init_inputs_with(path, lambda module, node: module.constant(node))


def init_inputs_with(path: Path, read: Callable[[_Module, ast.expr], object]) -> list[object] | None:
    """What ``get_init_inputs()`` of a problem file returns, read by ``read`` (the file's module-level
    names and the returned expression), if that is a list; else ``None``."""
    try:
        source, tree = _parse(path)
    except LarkcError:
        return None
    module = _Module(path, source, tree)
    fn = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "get_init_inputs"), None)
    ret = next((s for s in ast.walk(fn) if isinstance(s, ast.Return)), None) if fn is not None else None
    if ret is None or ret.value is None:
        return None
    try:
        v = read(module, ret.value)
    except LarkcError:
        return None
    return v if isinstance(v, list) else None
