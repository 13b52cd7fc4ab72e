"""The parameters a KernelBench module creates in ``__init__``, read with ``ast`` (``docs/kernelbench.md``).

KernelBench's harness seeds the random generator alike before ``Model(*get_init_inputs())`` and before
``ModelNew(*get_init_inputs())``, so a parameter of ``ModelNew`` equals ``Model``'s when both create
their parameters in the same order, with the same shapes and initialisers. This module lists what
``__init__`` creates, in order, with each shape as the sizes of ``get_init_inputs()`` it is made of
(their values and the problem file's names for them, which become the task's symbols):

- ``nn.Linear(in, out, bias=True)``: ``weight`` ``(out, in)``, ``bias`` ``(out,)``; ``nn.Bilinear``;
- ``nn.Conv1d/2d/3d(in, out, kernel_size, ..., groups=1, bias=True)``: ``weight``
  ``(out, in / groups, *kernel)``, ``bias`` ``(out,)``; ``nn.ConvTranspose1d/2d/3d``: ``weight``
  ``(in, out / groups, *kernel)``;
- ``nn.LayerNorm``, ``nn.RMSNorm``, ``nn.BatchNorm1d/2d/3d``, ``nn.GroupNorm``, ``nn.InstanceNorm1d/2d/3d``
  (``affine=True``): ``weight`` ones and ``bias`` zeros (running statistics are buffers, not parameters);
  ``nn.PReLU`` (``weight`` filled with ``init``); ``nn.Embedding`` (``weight`` drawn ``normal(0, 1)``);
- ``nn.Parameter(torch.randn(...))`` (``rand``, ``zeros``, ``ones``, ``empty``, ``full``, possibly times a
  constant);
- modules without parameters (``nn.ReLU()``, ``nn.Dropout(p)``, ...) create nothing; any other module
  is an :class:`Opaque` entry: what it creates (and how it draws from the generator) is unknown.

Each parameter says whether creating it draws from the generator (``Linear``/``Conv``/``Embedding``
weights and biases, ``randn``, ``rand``) or sets a fixed value (norms' ones and zeros, ``torch.zeros``):
a fixed one equals any other of the same value and shape wherever it is created, a drawn one another
drawn alike from the same state, that is after the same draws (:meth:`ModuleParam.same_initial_value`).
"""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from larkc.errors import LarkcError, Span, Stage
from larkc.frontends.kernelbench.candidate import _Module, _parse, _span, init_inputs_with

__all__ = ["ModuleParam", "Opaque", "Size", "group_norms", "init_sizes", "module_buffers", "module_params"]


@dataclass(frozen=True, slots=True)
class Size:
    """An integer of ``get_init_inputs()`` and the problem file's module-level name it was read
    through (``None``: a literal or a value computed from others)."""

    value: int
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ModuleParam:
    """A parameter ``__init__`` creates: its path (``linear.weight``), how it is created (``Linear.weight``,
    ``Parameter(torch.randn)``), its shape, and the line creating it."""

    path: str
    kind: str
    shape: tuple[Size, ...]
    span: Span = field(compare=False)
    #: the initial value where it is fixed (``"ones"``, ``"zeros"``, ``"full(0.25)"``, ``"ones * 2.0"``):
    #: such a parameter draws nothing from the random generator; ``None``: it is drawn (``Linear.weight``,
    #: ``Parameter(torch.randn(...))``), from the generator's state when it is created
    constant: str | None = None
    #: what else the drawn values depend on besides the kind and shape (a bias's bound ``1/sqrt(fan_in)``)
    detail: str = ""
    #: the one draw that makes a drawn parameter's values, where larkc knows it exactly: ``uniform_(lo, hi)``
    #: with the bounds as Python computes them (``repr`` of the floats); two parameters of the same shape
    #: and law drawn from the same generator state are equal, however they were created (``nn.Linear``'s
    #: weight and ``torch.empty`` then ``nn.init.kaiming_uniform_(w, a=math.sqrt(5))``); ``""``: the kind
    #: and detail decide
    law: str = ""

    def describe(self) -> str:
        return f"{self.path} ({self.kind} of shape [{', '.join(str(d.value) for d in self.shape)}])"

    @property
    def draws(self) -> bool:
        """Whether creating this parameter draws from the random generator."""
        return self.constant is None

    def same_initial_value(self, other: ModuleParam) -> bool:
        """Whether ``other`` starts with this parameter's values, given that both are created from the
        same generator state where they draw (fixed values: the same value and shape; ``torch.empty``
        is uninitialised, equal to nothing)."""
        shape = [d.value for d in self.shape] == [d.value for d in other.shape]
        if self.constant is not None or other.constant is not None:
            return shape and self.constant == other.constant and self.constant != "empty"
        return shape and self.draw_key()[1:] == other.draw_key()[1:]

    def draw_key(self) -> tuple[object, ...]:
        """What decides a drawn parameter's values given the generator's state: its shape and its law
        (:attr:`law`), else its kind and detail; a draw of one key leaves the generator in one state."""
        shape = tuple(d.value for d in self.shape)
        return (shape, self.law) if self.law else (shape, self.kind, self.detail)


@dataclass(frozen=True, slots=True)
class Opaque:
    """A module whose parameters larkc does not know (``self.bn = nn.BatchNorm2d(c)``), or a parameter
    it cannot read (an initialiser or size it does not know): ``what`` is the text creating it."""

    path: str
    what: str
    span: Span = field(compare=False)


#: Modules that create no parameters (and draw nothing from the random generator).
_PARAMETERLESS = frozenset(
    {
        "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Identity",
        "Flatten", "LeakyReLU", "ELU", "Hardtanh", "Hardsigmoid", "Hardswish", "Mish", "Softplus", "Softsign",
        "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
        "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "SELU", "CELU", "GLU", "LogSigmoid",
        "Softmin", "Softmax2d", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "Dropout1d", "Dropout2d",
        "Dropout3d", "AlphaDropout", "Unflatten", "PixelShuffle", "PixelUnshuffle", "ZeroPad1d", "ZeroPad2d",
        "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "CosineSimilarity", "PairwiseDistance",
        "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
        "TripletMarginLoss", "MarginRankingLoss",
    }
)  # fmt: skip
#: Initialisers of ``nn.Parameter(torch.<fn>(shape))``.
_INITIALISERS = frozenset({"randn", "rand", "zeros", "ones", "empty"})


def _sized(module: _Module, node: ast.expr, name: str | None = None, depth: int = 0) -> object:
    """A constant with its integers as :class:`Size` named by the module-level name they were read through."""
    if depth > 20:
        return module.constant(node)
    match node:
        case ast.Name(id=n) if n in module.values:
            return _sized(module, module.values[n], n, depth + 1)
        case ast.Tuple(elts=items) | ast.List(elts=items):
            return [_sized(module, it, None, depth + 1) for it in items]
    v = module.constant(node)
    if isinstance(v, int) and not isinstance(v, bool):
        return Size(v, name)
    return v


def init_sizes(path: Path) -> list[object] | None:
    """``get_init_inputs()`` of a problem file with its integers as :class:`Size` (``None`` where it is
    not a list of constants)."""
    return init_inputs_with(path, _sized)


def _is_nn(node: ast.expr, name: str | None = None) -> str | None:
    """The class name of ``nn.X`` / ``torch.nn.X`` (``X``), or ``None``."""
    if isinstance(node, ast.Attribute):
        owner = node.value
        if (isinstance(owner, ast.Name) and owner.id == "nn") or (
            isinstance(owner, ast.Attribute) and owner.attr == "nn"
        ):
            return node.attr if name is None or node.attr == name else None
    return None


class _Init:
    """The names of one ``__init__`` bound to the values of ``get_init_inputs()``."""

    def __init__(self, module: _Module, init: ast.FunctionDef, sizes: Sequence[object]) -> None:
        self.module = module
        params = [a.arg for a in init.args.args[1:]]
        self.env: dict[str, object] = dict(zip(params, sizes, strict=False))
        defaults = init.args.defaults
        for i, p in enumerate(params):
            if p not in self.env and i >= len(params) - len(defaults):
                try:
                    self.env[p] = _sized(module, defaults[i - (len(params) - len(defaults))])
                except LarkcError:
                    continue

    def value(self, node: ast.expr) -> object:
        match node:
            case ast.Name(id=n) if n in self.env:
                return self.env[n]
            case ast.Attribute(value=ast.Name(id="self"), attr=name) if f"self.{name}" in self.env:
                return self.env[f"self.{name}"]  # an attribute set earlier in __init__: self.hidden = 2 * n
            case ast.Tuple(elts=items) | ast.List(elts=items):
                return [self.value(it) for it in items]
            case ast.Subscript(value=seq, slice=index) if not isinstance(index, ast.Slice):
                whole, at = self.value(seq), self.value(index)  # kernel_size[0] of a tuple argument
                k = at.value if isinstance(at, Size) else at
                if isinstance(whole, list) and isinstance(k, int) and -len(whole) <= k < len(whole):
                    return whole[k]
            case ast.BinOp(left=left, op=op, right=right):
                a, b = self.value(left), self.value(right)
                x = a.value if isinstance(a, Size) else a
                y = b.value if isinstance(b, Size) else b
                if isinstance(x, int) and isinstance(y, int) and type(op) in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv):
                    ops = {ast.Add: x + y, ast.Sub: x - y, ast.Mult: x * y, ast.FloorDiv: x // y if y else 0}
                    return Size(ops[type(op)])
        v = _sized(self.module, node)
        return v

    def size(self, node: ast.expr) -> Size:
        v = self.value(node)
        if isinstance(v, Size):
            return v
        raise _error(self.module, node, "size")

    def shape(self, args: Sequence[ast.expr]) -> tuple[Size, ...]:
        """The shape of ``torch.randn(a, b)``, ``torch.randn((a, b))`` or ``torch.randn(shape)``."""
        if len(args) == 1:
            v = self.value(args[0])
            if isinstance(v, list):
                if not all(isinstance(d, Size) for d in v):
                    raise _error(self.module, args[0], "shape")
                return tuple(d for d in v if isinstance(d, Size))
        return tuple(self.size(a) for a in args)

    def dims(self, node: ast.expr, rank: int) -> tuple[Size, ...]:
        """A kernel size: one integer for every dimension, or one per dimension."""
        v = self.value(node)
        if isinstance(v, Size):
            return (v,) * rank
        if isinstance(v, list) and len(v) == rank and all(isinstance(d, Size) for d in v):
            return tuple(d for d in v if isinstance(d, Size))
        raise _error(self.module, node, "kernel size")


def _error(module: _Module, node: ast.expr, what: str) -> LarkcError:
    text = ast.get_source_segment(module.source, node) or what
    return LarkcError(
        f"unsupported {what} of a parameter (not read from get_init_inputs() or constants): {text}",
        _span(module.path, node),
        stage=Stage.FRONTEND,
    )


def _arguments(call: ast.Call, names: Sequence[str]) -> dict[str, ast.expr]:
    out = {k.arg: k.value for k in call.keywords if k.arg is not None}
    for name, a in zip(names, call.args, strict=False):
        out.setdefault(name, a)
    return out


def _flag(env: _Init, args: dict[str, ast.expr], key: str) -> bool:
    if key not in args:
        return True
    v = env.value(args[key])
    if not isinstance(v, bool):
        raise _error(env.module, args[key], key)
    return v


def _fan_in(*dims: Size) -> str:
    """The fan-in a bias's bound ``1 / sqrt(fan_in)`` is computed from (the weight's sizes past the first two
    times its second), as a text to compare."""
    n = 1
    for d in dims:
        n *= d.value
    return f"fan_in={n}"


#: the slope ``a`` of the modules' own ``kaiming_uniform_(weight, a=math.sqrt(5))``
_SQRT5 = math.sqrt(5)


def _kaiming_bound(fan: int, a: float, nonlinearity: str = "leaky_relu") -> float:
    """The bound of ``nn.init.kaiming_uniform_(w, a, mode, nonlinearity)`` for a fan of ``fan``, computed as
    torch computes it (so that equal bounds are equal floats)."""
    gain = torch.nn.init.calculate_gain(nonlinearity, a)  # type: ignore[arg-type]  # (torch's stub: Optional[int])
    std = gain / math.sqrt(fan)
    return math.sqrt(3.0) * std


def _bias_bound(fan_in: int) -> float:
    """The bound of a ``Linear``'s or a convolution's bias, ``1 / math.sqrt(fan_in)`` (0 for no fan-in)."""
    return 1 / math.sqrt(fan_in) if fan_in > 0 else 0


def _uniform(bound: float) -> str:
    """The law of ``w.uniform_(-bound, bound)`` (:attr:`ModuleParam.law`)."""
    return f"uniform_({-bound!r}, {bound!r})"


def _per_group(env: _Init, args: dict[str, ast.expr], channels: Size) -> Size:
    groups = env.size(args["groups"]).value if "groups" in args else 1
    return channels if groups == 1 else Size(channels.value // groups)


def _norm(attr: str, cls: str, shape: tuple[Size, ...], span: Span, weight: bool, bias: bool) -> list[ModuleParam]:
    """A normalisation's affine parameters: weight ones, bias zeros (no draw from the generator)."""
    out = []
    if weight:
        out.append(ModuleParam(f"{attr}.weight", f"{cls}.weight", shape, span, constant="ones"))
    if bias:
        out.append(ModuleParam(f"{attr}.bias", f"{cls}.bias", shape, span, constant="zeros"))
    return out


def _parameter(env: _Init, attr: str, value: ast.Call, span: Span) -> list[ModuleParam | Opaque]:
    """``nn.Parameter(torch.randn(shape) * c)`` and the other initialisers of :data:`_INITIALISERS`."""
    module = env.module
    if not value.args:
        raise _error(module, value, "initialiser")
    init = value.args[0]
    scale = ""
    if isinstance(init, ast.BinOp) and isinstance(init.op, ast.Mult | ast.Div):
        scale = f" {'*' if isinstance(init.op, ast.Mult) else '/'} {ast.unparse(init.right)}"
        init = init.left
    fn = init.func if isinstance(init, ast.Call) else None
    if not (
        isinstance(init, ast.Call)
        and isinstance(fn, ast.Attribute)
        and isinstance(fn.value, ast.Name)
        and fn.value.id == "torch"
        and (fn.attr in _INITIALISERS or fn.attr == "full")
    ):
        raise _error(module, value.args[0], "initialiser")
    kind = f"Parameter(torch.{fn.attr}(...){scale})"
    if fn.attr == "full":  # torch.full(shape, value)
        if len(init.args) != 2 or not isinstance(fill := env.value(init.args[1]), int | float | Size):
            raise _error(module, init, "initialiser")
        number = fill.value if isinstance(fill, Size) else fill
        return [ModuleParam(attr, kind, env.shape(init.args[:1]), span, constant=f"full({float(number)!r}){scale}")]
    constant = None if fn.attr in ("randn", "rand") else f"{fn.attr}{scale}"
    return [ModuleParam(attr, kind, env.shape(init.args), span, constant=constant)]


def _created(env: _Init, attr: str, value: ast.expr, span: Span) -> list[ModuleParam | Opaque]:
    """What ``self.<attr> = <value>`` creates, in torch's order (each module's ``reset_parameters``)."""
    module = env.module
    out: list[ModuleParam | Opaque]
    if not isinstance(value, ast.Call):
        return []
    cls = _is_nn(value.func)
    if cls is None:
        return []
    if cls == "Parameter":
        return _parameter(env, attr, value, span)
    if cls == "Linear":  # weight kaiming-uniform, bias uniform(+-1/sqrt(in)): both drawn
        a = _arguments(value, ("in_features", "out_features", "bias"))
        if "in_features" not in a or "out_features" not in a:
            raise _error(module, value, "nn.Linear")
        n_in, n_out = env.size(a["in_features"]), env.size(a["out_features"])
        law = _uniform(_kaiming_bound(n_in.value, _SQRT5))
        out = [ModuleParam(f"{attr}.weight", "Linear.weight", (n_out, n_in), span, law=law)]
        if _flag(env, a, "bias"):
            law = _uniform(_bias_bound(n_in.value))
            out.append(ModuleParam(f"{attr}.bias", "Linear.bias", (n_out,), span, detail=_fan_in(n_in), law=law))
        return out
    if cls == "Bilinear":  # weight and bias uniform(+-1/sqrt(in1)): both drawn
        a = _arguments(value, ("in1_features", "in2_features", "out_features", "bias"))
        if not all(k in a for k in ("in1_features", "in2_features", "out_features")):
            raise _error(module, value, "nn.Bilinear")
        n1, n2, n_out = (env.size(a[k]) for k in ("in1_features", "in2_features", "out_features"))
        law = _uniform(1 / math.sqrt(n1.value))
        out = [ModuleParam(f"{attr}.weight", "Bilinear.weight", (n_out, n1, n2), span, detail=_fan_in(n1), law=law)]
        if _flag(env, a, "bias"):
            out.append(ModuleParam(f"{attr}.bias", "Bilinear.bias", (n_out,), span, detail=_fan_in(n1), law=law))
        return out
    if cls in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        rank = int(cls[-2])
        transposed = cls.startswith("ConvTranspose")
        names: tuple[str, ...] = ("in_channels", "out_channels", "kernel_size", "stride", "padding")
        names += ("output_padding", "groups", "bias", "dilation") if transposed else ("dilation", "groups", "bias")
        a = _arguments(value, names)
        if not all(k in a for k in names[:3]):
            raise _error(module, value, f"nn.{cls}")
        c_in, c_out = env.size(a["in_channels"]), env.size(a["out_channels"])
        # a kernel size is no shape symbol (the reference's convolution needs it concrete; the instances
        # scale the channels and the inputs, not the window): its dimensions are unnamed constants
        kernel = tuple(Size(d.value) for d in env.dims(a["kernel_size"], rank))
        # weight (out, in / groups, *kernel), transposed (in, out / groups, *kernel); the bias's bound is
        # 1/sqrt(weight.size(1) * prod(kernel))
        first, second = (c_in, _per_group(env, a, c_out)) if transposed else (c_out, _per_group(env, a, c_in))
        fan = math.prod(d.value for d in (second, *kernel))
        law = _uniform(_kaiming_bound(fan, _SQRT5))
        out = [ModuleParam(f"{attr}.weight", f"{cls}.weight", (first, second, *kernel), span, law=law)]
        if _flag(env, a, "bias"):
            detail, law = _fan_in(second, *kernel), _uniform(_bias_bound(fan))
            out.append(ModuleParam(f"{attr}.bias", f"{cls}.bias", (c_out,), span, detail=detail, law=law))
        return out
    if cls in ("LayerNorm", "RMSNorm"):
        a = _arguments(value, ("normalized_shape", "eps", "elementwise_affine", "bias"))
        if "normalized_shape" not in a:
            raise _error(module, value, f"nn.{cls}")
        shape = env.shape([a["normalized_shape"]])
        affine = _flag(env, a, "elementwise_affine")
        return list(_norm(attr, cls, shape, span, affine, affine and cls == "LayerNorm" and _flag(env, a, "bias")))
    if cls in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
        # running statistics are buffers, not parameters; affine: True for batch norm, False for instance norm
        a = _arguments(value, ("num_features", "eps", "momentum", "affine", "track_running_stats"))
        if "num_features" not in a:
            raise _error(module, value, f"nn.{cls}")
        channels = env.size(a["num_features"])
        affine = _flag(env, a, "affine") if cls.startswith("Batch") or "affine" in a else False
        return list(_norm(attr, cls, (channels,), span, affine, affine))
    if cls == "GroupNorm":
        a = _arguments(value, ("num_groups", "num_channels", "eps", "affine"))
        if "num_channels" not in a:
            raise _error(module, value, "nn.GroupNorm")
        affine = _flag(env, a, "affine")
        return list(_norm(attr, cls, (env.size(a["num_channels"]),), span, affine, affine))
    if cls == "PReLU":  # weight filled with init (0.25): no draw
        a = _arguments(value, ("num_parameters", "init"))
        count = env.size(a["num_parameters"]) if "num_parameters" in a else Size(1)
        fill = env.value(a["init"]) if "init" in a else 0.25
        number = fill.value if isinstance(fill, Size) else fill
        if not isinstance(number, int | float):
            raise _error(module, a["init"], "nn.PReLU init")
        return [ModuleParam(f"{attr}.weight", "PReLU.weight", (count,), span, constant=f"full({float(number)!r})")]
    if cls == "Embedding":  # weight normal(0, 1), the padding row zeroed: drawn
        a = _arguments(value, ("num_embeddings", "embedding_dim", "padding_idx"))
        if "num_embeddings" not in a or "embedding_dim" not in a:
            raise _error(module, value, "nn.Embedding")
        rows, dim = env.size(a["num_embeddings"]), env.size(a["embedding_dim"])
        pad = env.value(a["padding_idx"]) if "padding_idx" in a else None
        detail = "" if pad is None else f"padding_idx={pad.value if isinstance(pad, Size) else pad}"
        return [ModuleParam(f"{attr}.weight", "Embedding.weight", (rows, dim), span, detail=detail)]
    if cls in _PARAMETERLESS:
        return []
    return [Opaque(attr, ast.get_source_segment(module.source, value) or f"nn.{cls}", span)]


def module_params(path: Path, class_name: str, sizes: Sequence[object]) -> list[ModuleParam | Opaque]:
    """The parameters ``class_name.__init__`` of ``path`` creates, in order, with ``sizes`` its
    arguments (``get_init_inputs()`` read by :func:`init_sizes`)."""
    source, tree = _parse(path)
    module = _Module(path, source, tree)
    cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None)
    init = (
        next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if cls is not None
        else None
    )
    if init is None:
        return []
    env = _Init(module, init, sizes)
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef)} if cls is not None else {}
    out: list[ModuleParam | Opaque] = []
    _read_body(env, init.body, out, methods, {}, 0)
    return out


def _read_body(
    env: _Init,
    body: Sequence[ast.stmt],
    out: list[ModuleParam | Opaque],
    methods: dict[str, ast.FunctionDef],
    local: dict[str, object],
    depth: int,
) -> None:
    """Append what the statements ``body`` of ``__init__`` create to ``out``, in order: ``self.<method>()``
    (``self.reset_parameters()``) is read where it is called, an ``if`` on what is known (``if bias:``,
    ``if self.bias is not None:``) takes its branch, and ``nn.init`` of a parameter created without values
    (``torch.empty``) makes its values (see :func:`_initialised`); ``local`` holds ``__init__``'s plain
    names with a known number (``fan_in``, ``bound``)."""
    module = env.module
    path, source = module.path, module.source
    for stmt in body:
        span = _span(path, stmt)
        text = ast.get_source_segment(source, stmt) or "statement"
        match stmt:
            case ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name(id="self"), attr=name), args=[])) if (
                name in methods and depth < 4 and len(methods[name].args.args) == 1
            ):
                _read_body(env, methods[name].body, out, methods, {}, depth + 1)  # self.reset_parameters()
                continue
            case ast.Expr(
                value=ast.Call(
                    func=ast.Attribute(value=ast.Name(id="self"), attr="register_parameter"),
                    args=[ast.Constant(value=str(name)), ast.Constant(value=None)],
                )
            ):
                env.env[f"self.{name}"] = None  # self.register_parameter("bias", None): no parameter
                continue
            case ast.If(test=test, body=then, orelse=orelse):
                decided = _condition(env, test, out, local)
                if decided is not None:
                    _read_body(env, then if decided else orelse, out, methods, local, depth)
                    continue
            case ast.Assign(targets=[ast.Name(id=name)], value=value) if not _draws(stmt):
                number = _number(env, value, out, local)
                if number is None:
                    local.pop(name, None)
                else:
                    local[name] = number
                continue
            case ast.Assign(targets=[ast.Tuple(elts=[ast.Name(id=a), ast.Name(id=b)])], value=ast.Call() as call) if (
                fans := _fans(call, out)
            ) is not None:
                local[a], local[b] = fans  # fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
                continue
            case ast.Expr(value=ast.Call() as call) if _initialised(env, call, out, local, span):
                continue
        if _inert(stmt):
            continue
        t = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
            out.append(Opaque("", text, span))  # self.linear.weight.data = ..., nn.init.zeros_(...), a loop
            continue
        assert isinstance(stmt, ast.Assign)
        try:
            made = _created(env, t.attr, stmt.value, span)
        except LarkcError:  # read as unknown: an error only where it matters (before a parameter read)
            made = [Opaque(t.attr, ast.get_source_segment(source, stmt.value) or "module", span)]
        if not made and _draws(stmt.value):  # self.noise = torch.randn(...): draws from the generator
            made = [Opaque(t.attr, text, span)]
        if not made:  # self.hidden = 2 * n: a size later parameters may be made of
            try:
                env.env[f"self.{t.attr}"] = env.value(stmt.value)
            except LarkcError:
                env.env.pop(f"self.{t.attr}", None)
        out += made


def _param_of(node: ast.expr, out: Sequence[ModuleParam | Opaque]) -> ModuleParam | None:
    """The parameter ``self.<path>`` (or its ``.data``) names, created before."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not (isinstance(node, ast.Name) and node.id == "self" and parts):
        return None
    parts.reverse()
    if parts[-1] == "data":
        parts.pop()
    name = ".".join(parts)
    return next((p for p in reversed(out) if isinstance(p, ModuleParam) and p.path == name), None)


def _is_init(func: ast.expr) -> str | None:
    """The function ``fn`` of ``nn.init.fn`` / ``torch.nn.init.fn`` / ``init.fn``."""
    if not isinstance(func, ast.Attribute):
        return None
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "init":
        return func.attr
    if isinstance(owner, ast.Attribute) and owner.attr == "init" and _is_nn(ast.Attribute(owner.value, "x")):
        return func.attr
    return None


def _fans(call: ast.Call, out: Sequence[ModuleParam | Opaque]) -> tuple[int, int] | None:
    """``nn.init._calculate_fan_in_and_fan_out(self.w)`` of a parameter of two or more dimensions."""
    if _is_init(call.func) != "_calculate_fan_in_and_fan_out" or len(call.args) != 1 or call.keywords:
        return None
    p = _param_of(call.args[0], out)
    if p is None or len(p.shape) < 2:
        return None
    field = math.prod(d.value for d in p.shape[2:])
    return p.shape[1].value * field, p.shape[0].value * field


def _number(
    env: _Init, node: ast.expr, out: Sequence[ModuleParam | Opaque], local: dict[str, object]
) -> int | float | None:
    """A number ``__init__`` computes as Python does (``1 / math.sqrt(fan_in)``, ``5 ** 0.5``,
    ``in_channels * k * k``, ``self.weight.size(1)``), or ``None``."""
    match node:
        case ast.Constant(value=bool()):
            return None
        case ast.Constant(value=int() | float() as v):
            return v
        case ast.Name(id=n) if n in local:
            known = local[n]
            return known if isinstance(known, int | float) and not isinstance(known, bool) else None
        case ast.Name() | ast.Attribute(value=ast.Name(id="self")):
            try:
                found = env.value(node)
            except LarkcError:
                return None
            if isinstance(found, Size):
                return found.value
            return found if isinstance(found, int | float) and not isinstance(found, bool) else None
        case ast.UnaryOp(op=ast.USub() | ast.UAdd() as op, operand=x):
            a = _number(env, x, out, local)
            return None if a is None else (-a if isinstance(op, ast.USub) else a)
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _number(env, left, out, local), _number(env, right, out, local)
            if a is None or b is None:
                return None
            try:
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
                    case ast.Pow():
                        r = a**b
                        return r if isinstance(r, int | float) else None
            except (ZeroDivisionError, OverflowError):
                return None
            return None
        case ast.IfExp(test=test, body=then, orelse=orelse):
            decided = _condition(env, test, out, local)
            return None if decided is None else _number(env, then if decided else orelse, out, local)
        case ast.Call(func=ast.Attribute(value=ast.Name(id="math"), attr="sqrt"), args=[x], keywords=[]):
            a = _number(env, x, out, local)
            return math.sqrt(a) if a is not None and a >= 0 else None
        case ast.Call(func=ast.Name(id="float" | "int" as cast), args=[x], keywords=[]):
            a = _number(env, x, out, local)
            return None if a is None else (float(a) if cast == "float" else int(a))
        case ast.Call(func=ast.Attribute(value=w, attr="size"), args=[ast.Constant(value=int(k))], keywords=[]):
            p = _param_of(w, out)
            return p.shape[k].value if p is not None and -len(p.shape) <= k < len(p.shape) else None
        case ast.Call(func=func, args=[ast.Constant(value=str(nonlinearity)), *rest], keywords=[]) if (
            _is_init(func) == "calculate_gain" and len(rest) <= 1
        ):
            param = _number(env, rest[0], out, local) if rest else None
            try:
                return torch.nn.init.calculate_gain(nonlinearity, param)  # type: ignore[arg-type]  # (stub: int)
            except ValueError:
                return None
    return None


def _condition(
    env: _Init, test: ast.expr, out: Sequence[ModuleParam | Opaque], local: dict[str, object]
) -> bool | None:
    """``test`` of an ``if`` in ``__init__`` where it is known: a flag of ``get_init_inputs()`` (``bias``),
    ``self.bias is (not) None``, a comparison of numbers (``fan_in > 0``); ``None`` otherwise."""
    match test:
        case ast.UnaryOp(op=ast.Not(), operand=x):
            v = _condition(env, x, out, local)
            return None if v is None else not v
        case ast.Name() | ast.Attribute(value=ast.Name(id="self")) if not isinstance(test, ast.Name) or (
            test.id not in local
        ):
            if isinstance(test, ast.Attribute) and _param_of(test, out) is not None:
                return True
            try:
                flag = env.value(test)
            except LarkcError:
                return None
            return flag if isinstance(flag, bool) else None
        case ast.Compare(left=left, ops=[ast.Is() | ast.IsNot() as op], comparators=[ast.Constant(value=None)]):
            if _param_of(left, out) is not None:
                none = False
            elif isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == "self":
                key = f"self.{left.attr}"
                if key not in env.env or env.env[key] is not None:
                    return None
                none = True
            else:
                return None
            return none if isinstance(op, ast.Is) else not none
        case ast.Compare(left=left, ops=[op], comparators=[right]):
            a, b = _number(env, left, out, local), _number(env, right, out, local)
            if a is None or b is None:
                return None
            match op:
                case ast.Gt():
                    return a > b
                case ast.GtE():
                    return a >= b
                case ast.Lt():
                    return a < b
                case ast.LtE():
                    return a <= b
                case ast.Eq():
                    return a == b
                case ast.NotEq():
                    return a != b
    return None


#: ``nn.init`` functions that fill a tensor with a fixed value
_FIXED_INITS = {"zeros_": "zeros", "ones_": "ones"}


def _initialised(
    env: _Init, call: ast.Call, out: list[ModuleParam | Opaque], local: dict[str, object], span: Span
) -> bool:
    """Read ``nn.init.<fn>(self.<param>, ...)`` of a parameter created without drawing (``torch.empty``,
    ``zeros``) as what makes its values, where larkc knows them exactly: ``kaiming_uniform_``,
    ``xavier_uniform_`` and ``uniform_`` are one ``uniform_(lo, hi)`` draw (:attr:`ModuleParam.law`, with the
    bounds torch computes), ``normal_``, ``kaiming_normal_`` and ``xavier_normal_`` one ``normal_(mean,
    std)`` draw, both drawn here, so the parameter moves to this place in the order of draws; ``zeros_``,
    ``ones_`` and ``constant_`` set a fixed value. Whether it was read (else the statement is left to
    :func:`larkc.frontends.kernelbench.derive._counterpart`, as a change after creation)."""
    fn = _is_init(call.func)
    if fn is None or not call.args:
        return False
    p = _param_of(call.args[0], out)
    if p is None or p.draws:
        return False
    names = {
        "kaiming_uniform_": ("a", "mode", "nonlinearity"),
        "kaiming_normal_": ("a", "mode", "nonlinearity"),
        "xavier_uniform_": ("gain",),
        "xavier_normal_": ("gain",),
        "uniform_": ("a", "b"),
        "normal_": ("mean", "std"),
        "constant_": ("val",),
        "zeros_": (),
        "ones_": (),
    }
    if fn not in names or len(call.args) - 1 > len(names[fn]):
        return False
    args = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if len(args) != len(call.keywords) or any(k not in names[fn] for k in args):
        return False
    args |= dict(zip(names[fn], call.args[1:], strict=False))
    values: dict[str, object] = {}
    for k, v in args.items():
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            values[k] = v.value
        elif (n := _number(env, v, out, local)) is None:
            return False
        else:
            values[k] = n
    fan_in = fan_out = None
    if len(p.shape) >= 2:
        field = math.prod(d.value for d in p.shape[2:])
        fan_in, fan_out = p.shape[1].value * field, p.shape[0].value * field
    text = ast.get_source_segment(env.module.source, call) or fn
    kind = f"{p.kind} then {text}"
    law: str
    try:
        match fn:
            case "zeros_" | "ones_" | "constant_":
                fill = values.get("val")
                if fn == "constant_" and not isinstance(fill, int | float):
                    return False
                constant = _FIXED_INITS[fn] if fn != "constant_" else f"full({float(fill)!r})"  # type: ignore[arg-type]
                out[out.index(p)] = dataclasses.replace(p, kind=kind, constant=constant)
                return True
            case "kaiming_uniform_" | "kaiming_normal_":
                mode, nonlinearity = values.get("mode", "fan_in"), values.get("nonlinearity", "leaky_relu")
                a = values.get("a", 0)
                fan = fan_in if mode == "fan_in" else fan_out if mode == "fan_out" else None
                if fan is None or not isinstance(nonlinearity, str) or not isinstance(a, int | float):
                    return False
                gain = torch.nn.init.calculate_gain(nonlinearity, a)  # type: ignore[arg-type]  # (stub: int)
                std = gain / math.sqrt(fan)
                law = _uniform(math.sqrt(3.0) * std) if fn == "kaiming_uniform_" else _normal(0, std)
            case "xavier_uniform_" | "xavier_normal_":
                scale = values.get("gain", 1.0)
                if fan_in is None or fan_out is None or not isinstance(scale, int | float):
                    return False
                std = scale * math.sqrt(2.0 / float(fan_in + fan_out))
                law = _uniform(math.sqrt(3.0) * std) if fn == "xavier_uniform_" else _normal(0.0, std)
            case "uniform_":
                lo, hi = values.get("a", 0.0), values.get("b", 1.0)
                if not isinstance(lo, int | float) or not isinstance(hi, int | float):
                    return False
                law = f"uniform_({float(lo)!r}, {float(hi)!r})"
            case "normal_":
                mean, sigma = values.get("mean", 0.0), values.get("std", 1.0)
                if not isinstance(mean, int | float) or not isinstance(sigma, int | float):
                    return False
                law = _normal(mean, sigma)
            case _:
                return False
    except (ValueError, ZeroDivisionError):
        return False
    out.remove(p)  # drawn here: its place in the order of draws
    out.append(dataclasses.replace(p, kind=kind, constant=None, detail="", law=law))
    return True


def _normal(mean: float, std: float) -> str:
    """The law of ``w.normal_(mean, std)``."""
    return f"normal_({float(mean)!r}, {float(std)!r})"


def group_norms(path: Path, class_name: str, sizes: Sequence[object]) -> list[tuple[Size, Size]]:
    """``(num_groups, num_channels)`` of each ``nn.GroupNorm`` ``class_name.__init__`` of ``path`` creates
    (anywhere in it), where both are integers larkc reads; ``sizes`` as for :func:`module_params`."""
    source, tree = _parse(path)
    module = _Module(path, source, tree)
    cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None)
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None) if cls else None
    if init is None:
        return []
    env = _Init(module, init, sizes)
    out = []
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and _is_nn(node.func, "GroupNorm") is not None:
            a = _arguments(node, ("num_groups", "num_channels", "eps", "affine"))
            try:
                if "num_groups" in a and "num_channels" in a:
                    out.append((env.size(a["num_groups"]), env.size(a["num_channels"])))
            except LarkcError:
                continue
    return out


def module_buffers(path: Path, class_name: str, sizes: Sequence[object]) -> list[ModuleParam]:
    """The buffers of batch and instance norms ``class_name.__init__`` of ``path`` creates, in order:
    ``running_mean`` (zeros) and ``running_var`` (ones) of the channels where ``track_running_stats``
    (batch norm's default, not instance norm's), and ``self.register_buffer(name, torch.zeros/ones(...))``;
    other buffers are not listed."""
    source, tree = _parse(path)
    module = _Module(path, source, tree)
    cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == class_name), None)
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None) if cls else None
    if init is None:
        return []
    env = _Init(module, init, sizes)
    out: list[ModuleParam] = []
    for stmt in init.body:
        match stmt:  # self.register_buffer("running_mean", torch.zeros(n)): a buffer of a fixed value
            case ast.Expr(
                value=ast.Call(
                    func=ast.Attribute(value=ast.Name(id="self"), attr="register_buffer"),
                    args=[ast.Constant(value=str(name)), ast.Call(func=ast.Attribute(attr=fn), args=shape_args)],
                )
            ) if fn in ("zeros", "ones"):
                try:
                    shape = env.shape(shape_args)
                except LarkcError:
                    continue
                out.append(ModuleParam(name, f"buffer(torch.{fn}(...))", shape, _span(path, stmt), constant=fn))
                continue
        t = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
            continue
        assert isinstance(stmt, ast.Assign)
        value = stmt.value
        cls_name = _is_nn(value.func) if isinstance(value, ast.Call) else None
        if (
            not isinstance(value, ast.Call)
            or cls_name is None
            or not cls_name.startswith(("BatchNorm", "InstanceNorm"))
        ):
            continue
        a = _arguments(value, ("num_features", "eps", "momentum", "affine", "track_running_stats"))
        try:
            tracked = (
                _flag(env, a, "track_running_stats")
                if cls_name.startswith("Batch") or "track_running_stats" in a
                else False
            )
            channels = env.size(a["num_features"]) if "num_features" in a else None
        except LarkcError:
            continue
        if tracked and channels is not None:
            span = _span(path, stmt)
            out.append(
                ModuleParam(f"{t.attr}.running_mean", f"{cls_name}.running_mean", (channels,), span, constant="zeros")
            )
            out.append(
                ModuleParam(f"{t.attr}.running_var", f"{cls_name}.running_var", (channels,), span, constant="ones")
            )
    return out


#: Calls that draw from the random generator or change parameters in place.
_RANDOM = frozenset({"rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "manual_seed"})


def _draws(node: ast.AST) -> bool:
    """Whether ``node`` calls a random function of torch or an ``nn.init`` initialiser."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            owner = n.func.value
            if n.func.attr in _RANDOM or (isinstance(owner, ast.Attribute) and owner.attr == "init"):
                return True
            if n.func.attr.endswith("_") and not n.func.attr.startswith("_"):  # in place: copy_, normal_, ...
                return True
    return False


def _inert(stmt: ast.stmt) -> bool:
    """A docstring, ``super().__init__()``, or an assignment to a plain name that draws nothing."""
    match stmt:
        case ast.Expr(value=ast.Constant()):
            return True
        case ast.Expr(value=ast.Call(func=ast.Attribute(attr="__init__", value=ast.Call(func=ast.Name(id="super"))))):
            return True
        case ast.Assign(targets=[ast.Name()]) | ast.AnnAssign(target=ast.Name()):
            return not _draws(stmt)
    return False
