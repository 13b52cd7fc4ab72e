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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from larkc.errors import LarkcError, SourceCache, Span, Stage, UnsupportedError

__all__ = [
    "Allocation",
    "CallResult",
    "CudaText",
    "Extension",
    "ForwardCall",
    "InputRead",
    "ModelNewFile",
    "ParamRef",
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
    """An argument that is the result of an earlier extension call of forward (by its index)."""

    index: int


@dataclass(frozen=True, slots=True)
class Allocation:
    """A tensor forward allocates and passes to the extension to fill (``out = torch.empty_like(x)``):
    its local name, the forward parameter it is shaped like, and how it starts."""

    name: str
    like: str
    init: Literal["empty", "zeros"]


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


#: An argument of an extension call: a forward parameter (by name), a constant, an earlier call's result,
#: a tensor forward allocated, a forward parameter seen with another shape, or a parameter of ModelNew.
Argument = int | float | bool | str | CallResult | Allocation | View | ParamRef


@dataclass(frozen=True, slots=True)
class ForwardCall:
    """``self.ext.fn(a, b, self.alpha)`` in ``ModelNew.forward``: the extension, the function, and each
    argument as the forward parameter it passes (by index) or a constant."""

    extension: Extension
    function: str
    arguments: tuple[Argument, ...]
    span: Span


@dataclass
class ModelNewFile:
    """What ``ModelNew`` does: the forward parameters (after ``self``), the extension calls it makes in
    order (each on forward's arguments, constants and earlier calls' results), and the call whose result
    forward returns (the last)."""

    path: Path
    params: list[str] = field(default_factory=list)
    calls: list[ForwardCall] = field(default_factory=list)
    returns: Allocation | None = None  # forward returns a tensor it allocated (and an extension filled)
    result_like: str | None = None  # forward returns the result seen with this parameter's shape (view_as)


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


def read_model_new(path: Path, init_args: Sequence[object] = ()) -> ModelNewFile:
    """Read ``ModelNew`` of ``path``: its extensions and the calls its ``forward`` makes.

    ``init_args`` are ``ModelNew.__init__``'s arguments in order (the problem's ``get_init_inputs()``),
    for attributes such as ``self.alpha = alpha`` that forward passes on.
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
    out = ModelNewFile(path, [a.arg for a in forward.args.args[1:]])
    if forward.args.vararg is not None or forward.args.kwonlyargs:
        raise _unsupported(path, "forward signature", forward, source)
    _read_forward(module, forward, out, extensions, attributes)
    return out


def _init_attributes(
    module: _Module, init: ast.FunctionDef, extensions: dict[str, Extension], init_args: Sequence[object]
) -> dict[str, object]:
    params = [a.arg for a in init.args.args[1:]]
    values = dict(zip(params, init_args, strict=False))
    defaults = init.args.defaults
    env: dict[str, object] = {}
    for i, p in enumerate(params):
        if p in values:
            env[p] = values[p]
        elif i >= len(params) - len(defaults):
            d = defaults[i - (len(params) - len(defaults))]
            try:
                env[p] = module.constant(d)
            except LarkcError:
                continue
    out: dict[str, object] = {}
    for stmt in ast.walk(init):
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        t = stmt.targets[0]
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
            continue
        v = stmt.value
        if isinstance(v, ast.Name) and v.id in extensions:
            out[t.attr] = extensions[v.id]
        elif isinstance(v, ast.Name) and v.id in env:
            out[t.attr] = env[v.id]
        else:
            try:
                out[t.attr] = module.constant(v)
            except LarkcError:
                continue  # an attribute forward never passes to the extension needs no value
    return out


def _read_forward(
    module: _Module,
    forward: ast.FunctionDef,
    out: ModelNewFile,
    extensions: dict[str, Extension],
    attributes: dict[str, object],
) -> None:
    path, source = module.path, module.source
    locals_: dict[str, str] = {p: p for p in out.params}  # local name -> the forward parameter it is
    results: dict[str, int] = {}  # local name -> the call whose result it holds
    allocations: dict[str, Allocation] = {}  # local name -> a tensor forward allocated
    weights: dict[str, ParamRef] = {}  # local name -> a parameter of ModelNew (w = self.linear.weight)
    body = [s for s in forward.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]

    def allocation(name: str, e: ast.expr) -> Allocation | None:
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and len(e.args) == 1):
            return None
        owner, fn = e.func.value, e.func.attr
        if not (isinstance(owner, ast.Name) and owner.id == "torch" and fn in ("empty_like", "zeros_like")):
            return None
        like = e.args[0]
        if not (isinstance(like, ast.Name) and like.id in locals_) or e.keywords:
            return None
        return Allocation(name, locals_[like.id], "zeros" if fn == "zeros_like" else "empty")

    def view(a: ast.expr) -> View | None:
        """``p.view(...)``, ``p.reshape(...)``, ``p.flatten()`` of a forward parameter ``p``."""
        if not (isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and not a.keywords):
            return None
        owner, method = a.func.value, a.func.attr
        if not (isinstance(owner, ast.Name) and owner.id in locals_ and method in ("view", "reshape", "flatten")):
            return None
        if method == "flatten":
            return View(locals_[owner.id], (-1,)) if not a.args else None
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
                        v = module.constant(d)
                    except LarkcError:
                        return None
                    if not isinstance(v, int) or isinstance(v, bool):
                        return None
                    dims.append(v)
        return View(locals_[owner.id], tuple(dims))

    def shaped_like(e: ast.expr) -> tuple[ast.expr, str] | None:
        """``r.view_as(p)``, ``r.view(p.shape)``, ``r.reshape(p.shape)``: ``r`` and the forward parameter ``p``."""
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and len(e.args) == 1):
            return None
        a, method = e.args[0], e.func.attr
        if method == "view_as" and isinstance(a, ast.Name) and a.id in locals_:
            return e.func.value, locals_[a.id]
        if (
            method in ("view", "reshape")
            and isinstance(a, ast.Attribute)
            and a.attr == "shape"
            and isinstance(a.value, ast.Name)
            and a.value.id in locals_
        ):
            return e.func.value, locals_[a.value.id]
        return None

    def argument(a: ast.expr) -> Argument:
        while isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr in ("contiguous", "cuda"):
            if a.args or a.keywords:
                break
            a = a.func.value
        seen = view(a)
        if seen is not None:
            return seen
        match a:
            case ast.Name(id=name) if name in locals_:
                return locals_[name]
            case ast.Name(id=name) if name in results:
                return CallResult(results[name])
            case ast.Name(id=name) if name in allocations:
                return allocations[name]
            case ast.Name(id=name) if name in weights:
                return weights[name]
            case ast.Attribute(value=ast.Name(id="self"), attr=attr) if attr in attributes:
                v = attributes[attr]
                if isinstance(v, int | float | bool):
                    return v
            case ast.Constant(value=v) if isinstance(v, int | float | bool):
                return v
            case ast.Attribute(value=ast.Name(id="self"), attr=attr) if attr not in attributes:
                return ParamRef(attr, _span(path, a))  # self.weight
            case ast.Attribute(value=ast.Attribute(value=ast.Name(id="self"), attr=owner), attr=attr) if (
                owner not in attributes
            ):
                return ParamRef(f"{owner}.{attr}", _span(path, a))  # self.linear.weight
        raise _unsupported(path, "argument of the CUDA function (a forward argument or a constant)", a, source)

    def extension_call(e: ast.expr) -> ForwardCall | None:
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute)):
            return None
        owner = e.func.value
        ext: object = None
        if isinstance(owner, ast.Name) and owner.id in extensions:
            ext = extensions[owner.id]
        elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
            ext = attributes.get(owner.attr)
        if not isinstance(ext, Extension):
            return None
        if e.func.attr not in ext.functions:
            raise _unsupported(path, f"call of a function {ext.variable} does not export", e, source)
        if e.keywords:
            raise _unsupported(path, "keyword arguments of the CUDA function", e, source)
        return ForwardCall(ext, e.func.attr, tuple(argument(a) for a in e.args), _span(path, e))

    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            call = extension_call(stmt.value)
            if call is not None:
                out.calls.append(call)
                results[name] = len(out.calls) - 1
                locals_.pop(name, None)
                continue
            alloc = allocation(name, stmt.value)
            if alloc is not None:
                allocations[name] = alloc
                locals_.pop(name, None)
                results.pop(name, None)
                continue
            try:
                src = argument(stmt.value)
            except LarkcError:
                raise _unsupported(
                    path, "computation in ModelNew.forward besides the CUDA call", stmt, source
                ) from None
            if isinstance(src, str):
                locals_[name] = src
                results.pop(name, None)
                continue
            if isinstance(src, Allocation):
                allocations[name] = src
                continue
            if isinstance(src, CallResult):
                results[name] = src.index
                locals_.pop(name, None)
                continue
            if isinstance(src, ParamRef):
                weights[name] = src
                locals_.pop(name, None)
                results.pop(name, None)
                continue
        if isinstance(stmt, ast.Expr):  # self.ext.f(x, out): fills a tensor forward allocated
            call = extension_call(stmt.value)
            if call is not None:
                out.calls.append(call)
                continue
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and stmt.value.id in allocations:
            alloc = allocations[stmt.value.id]
            if not any(alloc in c.arguments for c in out.calls):
                raise _unsupported(path, "return of a tensor no CUDA call is given", stmt, source)
            out.returns = alloc
            return
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            like = shaped_like(stmt.value)
            if like is not None:
                stmt = ast.Return(value=like[0], lineno=stmt.lineno, col_offset=stmt.col_offset)
                out.result_like = like[1]
            assert stmt.value is not None
            call = extension_call(stmt.value)
            if call is not None:
                out.calls.append(call)
                return
            if isinstance(stmt.value, ast.Name) and results.get(stmt.value.id) == len(out.calls) - 1:
                return
        raise _unsupported(path, "statement in ModelNew.forward (expected calls of the CUDA extension)", stmt, source)
    raise LarkcError("ModelNew.forward returns nothing", _span(path, forward), stage=Stage.FRONTEND)


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
