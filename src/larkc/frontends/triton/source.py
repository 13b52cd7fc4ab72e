"""Reading a Python file that defines ``@triton.jit`` functions: the functions, the module-level names
they may refer to, and source spans.

Nothing of the file is imported or executed: it is read with :mod:`ast`, and its top level is followed
statement by statement as Python would run it, with every name bound to what larkc knows of it. The
globals a kernel body may use are the Triton modules under their import names (``import
triton.language as tl``, ``from triton.language.extra import libdevice``), functions imported from them
(``from triton.language.extra.libdevice import rsqrt``), other ``@triton.jit`` functions (decorated, or
made by a call: ``f = triton.jit(f)``, ``f = triton.heuristics({...})(f)``), names imported from the
user's own modules (``from .utils import triton_tanh``, ``from pkg.ops.utils import X``: read the same
way when a body uses them), and module-level constants (``BLOCK = 128``, ``DTYPE = tl.float16``, ``X =
tl.constexpr(4)``), evaluated on use.

Module-level ``if``/``try`` statements that choose imports and constants are decided where larkc can
decide them (:func:`decide`): a version check against the installed Triton (``triton.__version__ >=
"2.1.0"``, ``Version(triton.__version__) >= Version("3.0.0")``, Liger's ``compare_version("triton",
operator.ge, "3.0.0")``), ``__name__ == "__main__"`` (false: the module is imported), an ``import`` of a
Triton module in a ``try`` (it succeeds when the installed Triton has that module). Where a test cannot
be decided (``is_npu_available()``, ``DEVICE_TYPE == "xpu"``), a name every branch binds alike keeps that
binding, and a name the branches bind differently is :class:`Undecided`: a located error where a kernel
uses it. :attr:`SourceFile.decisions` says which branch was taken and why.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from larkc.errors import LarkcError, Span, Stage, UserSyntaxError
from larkc.frontends.triton.values import FunctionRef, Namespace, NamespaceKind

__all__ = [
    "Imported",
    "Member",
    "Opaque",
    "SourceFile",
    "decide",
    "installed_triton_version",
    "read_source",
    "resolve_module",
    "span_of",
]


def span_of(node: ast.AST, file: str) -> Span:
    """The span of ``node`` (ast columns are 0-based; spans are 1-based, ``end_col`` one past the end)."""
    line = getattr(node, "lineno", 0)
    col = getattr(node, "col_offset", 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_col = (getattr(node, "end_col_offset", None) or col) + 1
    return Span(file, line, col, end_line, end_col)


#: Module paths whose import binds a namespace. ``triton.language.extra.libdevice`` dispatches to the
#: backend's libdevice (CUDA, HIP, Intel): larkc gives all of them the one semantics of its math functions.
_MODULES = {
    "triton": NamespaceKind.TRITON,
    "triton.language": NamespaceKind.TL,
    "triton.language.math": NamespaceKind.MATH,
    "triton.language.extra.libdevice": NamespaceKind.MATH,
    "triton.language.extra.cuda.libdevice": NamespaceKind.MATH,
    "triton.language.extra.hip.libdevice": NamespaceKind.MATH,
    "triton.language.extra.intel.libdevice": NamespaceKind.MATH,
    "triton.language.extra.cuda": NamespaceKind.MATH,  # only as `... import libdevice`
    "math": NamespaceKind.PYMATH,  # Python's, on compile-time values
}

#: Names of the ``triton`` module that make or wrap a ``@triton.jit`` function.
_JIT = "jit"
_WRAPPERS = ("autotune", "heuristics")


@dataclass(frozen=True, slots=True)
class Member:
    """A function of a Triton module bound to a name (``from triton.language.extra.libdevice import
    rsqrt``, ``triton_tanh = libdevice.tanh``)."""

    kind: NamespaceKind
    name: str


@dataclass(frozen=True, slots=True)
class Imported:
    """A name imported from a module of the user's code (``from .utils import triton_tanh``): ``name`` of
    the file ``path``, read when a body uses it."""

    path: Path
    name: str


@dataclass(frozen=True, slots=True)
class Opaque:
    """A name larkc cannot give a value: imported from a module it does not read (``torch``), a plain
    Python function or class, a name assigned by a loop or ``+=``, or one bound differently on paths it
    cannot choose between. ``why`` completes "name X is ..."; ``span`` is where it was bound or decided."""

    why: str
    span: Span = field(compare=False)
    #: The dotted name of what an import binds (``packaging.version.Version``), None for anything else.
    origin: str | None = None


@dataclass(frozen=True, slots=True)
class _Jit:
    """A ``@triton.jit`` function under its wrappers (``autotune``, ``heuristics``), outermost first."""

    node: ast.FunctionDef = field(compare=False)
    node_id: int
    decorators: tuple[ast.expr, ...] = field(compare=False)
    decorator_text: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Def:
    """A plain Python function of the module (a launcher, a helper building autotune configurations)."""

    node: ast.FunctionDef = field(compare=False)
    node_id: int


@dataclass(frozen=True, slots=True)
class _Const:
    """``NAME = expr``: evaluated as a constexpr when a body uses it."""

    expr: ast.expr = field(compare=False)
    text: str


_Binding = Namespace | Member | Imported | Opaque | _Jit | _Def | _Const


@dataclass
class SourceFile:
    """The ``@triton.jit`` functions of a file and its module-level names."""

    file: str
    text: str
    functions: dict[str, FunctionRef] = field(default_factory=dict)
    #: ``@triton.jit`` functions in the order they appear (kernels and helpers alike).
    order: list[str] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    #: Module-level ``NAME = expr`` assignments (evaluated as constexprs when a body uses them).
    constants: dict[str, ast.expr] = field(default_factory=dict)
    #: Decorators other than ``jit`` per function (``autotune``, ``heuristics``), outermost first.
    decorators: dict[str, list[ast.expr]] = field(default_factory=dict)
    #: Names bound to a function of a Triton module.
    members: dict[str, Member] = field(default_factory=dict)
    #: Names imported from the user's own modules.
    imports: dict[str, Imported] = field(default_factory=dict)
    #: Names without a value larkc can use (an error where a body uses them).
    opaque: dict[str, Opaque] = field(default_factory=dict)
    #: Plain Python functions (helpers that build autotune configurations).
    defs: dict[str, ast.FunctionDef] = field(default_factory=dict)
    #: One line per module-level ``if``/``try`` decided: which branch was taken, and why.
    decisions: list[str] = field(default_factory=list)
    #: Per decorator (``id`` of its node) and per plain function (``id`` of its ``def``, for its defaults):
    #: the names bound differently when it was evaluated than at the end of the module (rebound later,
    #: or not yet bound), with whether they were bound then. A decorator runs at its ``def`` and sees
    #: the names of that moment, which larkc does not keep: its evaluator refuses these.
    stale: dict[int, dict[str, bool]] = field(default_factory=dict)

    def span(self, node: ast.AST) -> Span:
        return span_of(node, self.file)


def _dotted(e: ast.expr) -> str | None:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = _dotted(e.value)
        return None if base is None else f"{base}.{e.attr}"
    return None


# -- the installed Triton ---------------------------------------------------------------------------


@cache
def installed_triton_version() -> str | None:
    """The version of the installed Triton (``"3.9.0"``), None when it is not installed."""
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return None


@cache
def _triton_module_exists(module: str) -> bool | None:
    """Whether the installed Triton has ``module`` (a file or package of that path; nothing is imported),
    None when Triton is not installed."""
    spec = importlib.util.find_spec("triton")  # a top-level package: found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    rel = Path(*module.split(".")[1:])
    return (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()


@cache
def _triton_module_has(module: str, name: str) -> bool | None:
    """Whether ``from <module> import <name>`` finds ``name`` in the installed Triton (nothing is imported):
    True for a submodule or a name the module's file binds at its top level unconditionally (a ``def``,
    ``class``, assignment or import outside any ``if``/``try``) and deletes nowhere; False for a name its
    file never mentions (and binds no names dynamically: ``import *``, ``__getattr__``, ``globals()``);
    None otherwise, or when Triton is not installed."""
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    if _triton_module_exists(f"{module}.{name}"):
        return True
    root = Path(next(iter(spec.submodule_search_locations)))
    rel = Path(*module.split(".")[1:])
    for file in ((root / rel).with_suffix(".py"), root / rel / "__init__.py"):
        if file.is_file():
            break
    else:
        return None
    try:
        text = file.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    deleted = {t.id for n in ast.walk(tree) if isinstance(n, ast.Delete) for t in n.targets if isinstance(t, ast.Name)}
    bound: set[str] = set()
    for st in tree.body:
        match st:
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                bound.add(st.name)
            case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
                bound.update((a.asname or a.name).split(".")[0] for a in aliases if a.name != "*")
            case ast.Assign() | ast.AnnAssign():
                bound.update(_bound_names(st))
    if name in bound and name not in deleted:
        return True
    # `eval(text, dict(...))`: evaluated over a namespace of its own
    own_namespace = {
        id(n.func)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in ("eval", "exec")
        and len(n.args) >= 2
        and (isinstance(n.args[1], ast.Dict) or (isinstance(n.args[1], ast.Call) and _dotted(n.args[1].func) == "dict"))
    }
    if re.search(rf"\b{re.escape(name)}\b", text) or any(
        _binds_dynamically(n) and id(n) not in own_namespace for n in ast.walk(tree)
    ):
        return None
    return False


def _binds_dynamically(n: ast.AST) -> bool:
    """Whether ``n`` may bind a module's names other than by its statements (``import *``, a module
    ``__getattr__``, ``globals()``, ``setattr``, ``exec``, ``sys.modules``, a function's ``__globals__``)."""
    match n:
        case ast.ImportFrom(names=names):
            return any(a.name == "*" for a in names)
        case ast.FunctionDef(name="__getattr__"):
            return True
        case ast.Name(id=name):
            return name in ("globals", "vars", "setattr", "exec", "eval", "__import__", "__builtins__")
        case ast.Attribute(attr=attr):
            return attr in ("modules", "__globals__", "f_globals", "import_module", "__builtins__")
        case _:
            return False


def _parse_version(text: object) -> object:
    """``packaging.version.Version(text)`` (PEP 440: ``3.9.0 == 3.9.0.0``, ``3.0.0rc1 < 3.0.0``), compared
    as packaging compares; :data:`UNKNOWN` for a text it does not parse, or without packaging."""
    if not isinstance(text, str):
        return UNKNOWN
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return UNKNOWN
    try:
        return Version(text)
    except InvalidVersion:
        return UNKNOWN


class _Unknown:
    """A value larkc cannot know at reading time."""

    def __repr__(self) -> str:
        return "unknown"


UNKNOWN = _Unknown()

#: What an import must bind for a call of it to be read as packaging's version parsing.
_VERSION_FUNCTIONS = {"packaging.version.Version", "packaging.version.parse", "pkg_resources.parse_version"}
_OPERATORS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "eq": "==", "ne": "!="}
_COMPARE = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.GtE: ">=",
    ast.Gt: ">",
    ast.LtE: "<=",
    ast.Lt: "<",
    ast.Eq: "==",
    ast.NotEq: "!=",
}


def decide(e: ast.expr, env: Mapping[str, _Binding], depth: int = 0) -> object:
    """The value of a module-level test, or :data:`UNKNOWN`. Knows literals, constants of the module,
    ``triton.__version__`` (the installed Triton's), ``Version(...)``/``version.parse(...)`` of a string,
    Liger's ``compare_version("triton", operator.ge, "3.0.0")``, ``__name__`` (never ``"__main__"``), and
    ``and``/``or``/``not``/comparisons over them (``False and unknown`` is ``False``)."""
    if depth > 50:
        return UNKNOWN
    match e:
        case ast.Constant(value=c):
            return c
        case ast.Name(id="__name__"):
            return "<imported module>"
        case ast.Name(id=name):
            bound = env.get(name)
            return decide(bound.expr, env, depth + 1) if isinstance(bound, _Const) else UNKNOWN
        case ast.Attribute(value=ast.Name(id=base), attr="__version__"):
            if env.get(base) == Namespace(NamespaceKind.TRITON):
                v = installed_triton_version()
                return UNKNOWN if v is None else v
            return UNKNOWN
        case ast.Call(func=func, args=[arg], keywords=[]) if _origin(func, env) in _VERSION_FUNCTIONS:
            return _parse_version(decide(arg, env, depth + 1))
        case ast.Call(
            func=ast.Name(id="compare_version"),
            args=[ast.Constant(value="triton"), ast.Attribute(value=ast.Name(id="operator"), attr=op), target],
            keywords=[],
        ) if op in _OPERATORS:
            have, want = _parse_version(installed_triton_version()), _parse_version(decide(target, env, depth + 1))
            if have is UNKNOWN or want is UNKNOWN:
                return UNKNOWN
            return _COMPARE[_OPERATORS[op]](have, want)
        case ast.UnaryOp(op=ast.Not(), operand=operand):
            inner = decide(operand, env, depth + 1)
            return UNKNOWN if inner is UNKNOWN else not inner
        case ast.BoolOp(op=op, values=values):
            is_and = isinstance(op, ast.And)
            unknown = False
            for x in values:
                item = decide(x, env, depth + 1)
                if item is UNKNOWN:
                    unknown = True
                elif bool(item) != is_and:  # False in an `and`, True in an `or`: decided
                    return item
            return UNKNOWN if unknown else is_and
        case ast.Compare(left=left, ops=ops, comparators=rights) if all(type(o) in _CMP_TEXT for o in ops):
            lhs = decide(left, env, depth + 1)
            for o, r in zip(ops, rights, strict=True):
                rhs = decide(r, env, depth + 1)
                if lhs is UNKNOWN or rhs is UNKNOWN:
                    return UNKNOWN
                try:
                    if not _COMPARE[_CMP_TEXT[type(o)]](lhs, rhs):
                        return False
                except TypeError:
                    return UNKNOWN
                lhs = rhs
            return True
        case _:
            return UNKNOWN


def _origin(e: ast.expr, env: Mapping[str, _Binding]) -> str | None:
    """The dotted name ``e`` refers to through an import (``Version`` after ``from packaging.version import
    Version``, ``version.parse`` after ``from packaging import version``), None when it is not one."""
    match e:
        case ast.Name(id=name):
            b = env.get(name)
            return b.origin if isinstance(b, Opaque) else None
        case ast.Attribute(value=base, attr=attr):
            prefix = _origin(base, env)
            return None if prefix is None else f"{prefix}.{attr}"
        case _:
            return None


# -- modules of the user's code ----------------------------------------------------------------------


def _package_root(file: Path) -> Path:
    """The folder above the top package holding ``file`` (its own folder when that is no package)."""
    d = file.resolve().parent
    while (d / "__init__.py").is_file() and d.parent != d:
        d = d.parent
    return d


def resolve_module(file: Path, module: str | None, level: int) -> Path | None:
    """The file of the module ``from <level dots><module> import ...`` names in ``file``: a module or a
    package's ``__init__.py`` of the user's code, None when it is not there (``torch``)."""
    parts = module.split(".") if module else []
    if level > 0:
        base = file.resolve().parent
        for _ in range(level - 1):
            base = base.parent
    else:
        base = _package_root(file)
    target = base.joinpath(*parts) if parts else base
    for candidate in (target.with_suffix(".py") if parts else None, target / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


# -- following the top level ---------------------------------------------------------------------------


class _TopLevel:
    """Runs a module's top-level statements over bindings (what each name is), as far as larkc knows."""

    def __init__(self, src: SourceFile, path: Path | None, tree: ast.Module | None = None) -> None:
        self.src = src
        self.path = path
        self.jit_names = {"triton.jit", "jit"}
        #: Names a function (or class body) declares ``global``: it may rebind them whenever it runs.
        self.declared_global: dict[str, ast.Global] = {}
        #: The first construct in a function that may rebind any module name (``globals()[...] = ...``).
        self.function_dynamic: ast.AST | None = None
        #: The names as they were when a decorator (or a plain function's defaults) ran, by node ``id``.
        self.scopes: dict[int, dict[str, _Binding]] = {}
        #: The first store into a Triton module (``tl.sum = tl.max``, ``setattr(tl, ...)``), anywhere.
        self.triton_patched: ast.AST | None = None
        if tree is not None:
            self.triton_patched = _triton_patch(tree)
            top = {id(st) for st in tree.body}
            for n in ast.walk(tree):
                if isinstance(n, ast.Global) and id(n) not in top:
                    for name in n.names:
                        self.declared_global.setdefault(name, n)
                if self.function_dynamic is None and isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    for b in n.body if isinstance(n.body, list) else [n.body]:
                        self.function_dynamic = self.function_dynamic or _dynamic_namespace(b, into_functions=True)

    def unknowable(self, env: Mapping[str, _Binding]) -> dict[str, _Binding]:
        """``env`` with every name a function may rebind as an :class:`Opaque` (all of them where a function
        may rebind any name)."""
        out = dict(env)
        dyn = self.function_dynamic
        patch = self.triton_patched
        for name, b in env.items():
            if patch is not None and isinstance(b, Namespace | Member):
                line = ast.unparse(patch).splitlines()[0]
                out[name] = Opaque(f"a name of Triton, whose modules the file modifies (`{line}`)", self.span(patch))
            elif dyn is not None:
                line = ast.unparse(dyn).splitlines()[0]
                out[name] = Opaque(f"possibly rebound by `{line}` in a function", self.span(dyn))
            elif name in self.declared_global and not isinstance(b, Opaque):
                g = self.declared_global[name]
                out[name] = Opaque(
                    f"declared `global` in a function (line {g.lineno}), which may rebind it", self.span(g)
                )
        return out

    def span(self, node: ast.AST) -> Span:
        return self.src.span(node)

    def run(self, stmts: Sequence[ast.stmt], env: dict[str, _Binding]) -> None:
        for s in stmts:
            self.stmt(s, env)

    def stmt(self, s: ast.stmt, env: dict[str, _Binding]) -> None:
        self.statement(s, env)
        own = _own_parts(s)
        for part in own:  # `(NAME := ...)` at module level binds NAME
            for n in _module_scope(part, into_classes=False):
                if isinstance(n, ast.NamedExpr):
                    self.rebinding(n.target.id, s, env)
                    env[n.target.id] = Opaque(f"assigned by `{ast.unparse(n)}`", self.span(n))
        dyn = next((d for part in own if (d := _dynamic_namespace(part, into_functions=False)) is not None), None)
        if dyn is not None:  # `globals()[...] = ...`, `setattr(sys.modules[__name__], ...)`: any name may change
            line = ast.unparse(dyn).splitlines()[0]
            for name in env:
                env[name] = Opaque(f"possibly rebound by `{line}`", self.span(dyn))
        for name in self.declared_global.keys() & env.keys():
            env[name] = self.unknowable({name: env[name]})[name]

    def statement(self, s: ast.stmt, env: dict[str, _Binding]) -> None:
        if isinstance(s, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef):
            for name in _bound_names(s, nested=False):
                self.rebinding(name, s, env)
        match s:
            case ast.Import(names=names):
                for a in names:
                    kind = _MODULES.get(a.name)
                    if kind is not None and (a.asname is not None or a.name == "math"):
                        env[a.asname or a.name] = Namespace(kind)
                    elif a.name.split(".")[0] == "triton" and a.asname is None:
                        env["triton"] = Namespace(NamespaceKind.TRITON)
                    else:
                        bound = a.asname or a.name.split(".")[0]
                        origin = a.name if a.asname else bound
                        env[bound] = Opaque(f"the module {a.name}, which larkc does not read", self.span(s), origin)
            case ast.ImportFrom(module=module, names=names, level=level):
                for a in names:
                    if a.name == "*":
                        # the names it binds are unknown to larkc: "not defined" where used, and any name
                        # bound before may be rebound by it
                        line = ast.unparse(s).splitlines()[0]
                        for name in env:
                            env[name] = Opaque(f"possibly rebound by `{line}`", self.span(s))
                        continue
                    env[a.asname or a.name] = self.imported(module, a.name, level, s)
            case ast.FunctionDef(name=fname, decorator_list=decos):
                is_jit = [self.is_jit_decorator(d, env) for d in decos]
                if any(is_jit):
                    kept = [d for d, j in zip(decos, is_jit, strict=True) if not j]
                    scope = dict(env)
                    self.scopes.update((id(d), scope) for d in kept)
                    env[fname] = _Jit(s, id(s), tuple(kept), tuple(ast.dump(d) for d in kept))
                else:
                    self.scopes[id(s)] = dict(env)
                    env[fname] = _Def(s, id(s))
            case ast.ClassDef(name=cname):
                env[cname] = Opaque("a class", self.span(s))
            case ast.Assign(targets=[ast.Name(id=target)], value=value):
                self.rebinding(target, s, env)
                env[target] = self.assigned(value, env)
            case ast.AnnAssign(target=ast.Name(id=target), value=value) if value is not None:
                self.rebinding(target, s, env)
                env[target] = self.assigned(value, env)
            case ast.If(test=test, body=body, orelse=orelse):
                self.branch(test, body, orelse, env, s)
            case ast.Try(body=body, handlers=handlers, orelse=orelse, finalbody=final):
                self.try_(s, body, handlers, orelse, env)
                self.run(final, env)
            case ast.Expr() | ast.Pass() | ast.Assert():
                pass
            case _:
                # anything else that binds names (a loop, `x += 1`, `with ... as x`, `a, b = ...`): no value
                for name in _bound_names(s):
                    env[name] = Opaque(f"assigned by `{ast.unparse(s).splitlines()[0]}`", self.span(s))

    def rebinding(self, name: str, s: ast.stmt, env: dict[str, _Binding]) -> None:
        """``name`` is bound again by ``s``. Constants are kept as expressions and evaluated where a body
        uses them, over the module's final names; one computed from ``name`` before this rebinding held the
        old value (``A = 1; X = A; A = 2`` leaves ``X == 1``), so it gets no value rather than the new one."""
        if name not in env:
            return
        for key, b in list(env.items()):
            if isinstance(b, _Const) and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(b.expr)):
                stmt = ast.unparse(s).splitlines()[0]
                env[key] = Opaque(f"computed from {name} before `{stmt}` rebinds it", self.span(s))

    def imported(self, module: str | None, name: str, level: int, s: ast.stmt) -> _Binding:
        if level == 0 and module is not None:
            full = f"{module}.{name}"
            kind = _MODULES.get(full)
            if kind is not None:
                return Namespace(kind)
            kind = _MODULES.get(module)
            if kind is not None and module != "triton.language.extra.cuda":
                if kind is NamespaceKind.TRITON and name == _JIT:
                    return Member(kind, _JIT)
                return Member(kind, name)
            if module.split(".")[0] == "triton":
                return Opaque(f"imported from {module}, which larkc does not model", self.span(s))
        if self.path is not None:
            path = resolve_module(self.path, module, level)
            if path is not None:
                return Imported(path, name)
            if level == 0 and module is not None:
                # `from pkg.helpers import f` where `pkg.helpers` is a module of the user's package
                sub = resolve_module(self.path, f"{module}.{name}", level)
                if sub is not None:
                    return Opaque(f"the module {module}.{name} (use its names directly)", self.span(s))
        where = "." * level + (module or "")
        origin = f"{module}.{name}" if level == 0 and module is not None else None
        return Opaque(f"imported from {where}, which larkc does not read", self.span(s), origin)

    def static_ref(self, e: ast.expr, env: Mapping[str, _Binding]) -> Namespace | Member | None:
        """A name or attribute chain that names a Triton module or a function of one (``libdevice.tanh``,
        ``tl.extra.intel.libdevice.tanh``, ``tl.cast``), else None."""
        match e:
            case ast.Name(id=name):
                b = env.get(name)
                return b if isinstance(b, Namespace | Member) else None
            case ast.Attribute(value=base, attr=attr):
                path = _module_path(base, env)
                if path is not None:
                    full = f"{path}.{attr}"
                    if full in _MODULES and full != "triton.language.extra.cuda":
                        return Namespace(_MODULES[full])
                    if path in _MODULES and path != "triton.language.extra.cuda":
                        return Member(_MODULES[path], attr)
                return None
            case _:
                return None

    def jit_made(self, e: ast.expr, env: Mapping[str, _Binding]) -> _Jit | None:
        """``triton.jit(f)``, ``jit(f)``, ``triton.heuristics({...})(g)``, ``triton.autotune(...)(g)`` with
        ``g`` a ``@triton.jit`` function or itself such a call: the jit function under its wrappers."""
        if not isinstance(e, ast.Call) or e.keywords or len(e.args) != 1:
            return None
        (arg,) = e.args
        inner: _Jit | None
        if isinstance(arg, ast.Name):
            b = env.get(arg.id)
            inner = b if isinstance(b, _Jit) else None
        else:
            inner = self.jit_made(arg, env)
        fname = _dotted(e.func)
        if fname in self.jit_names or self.is_member(e.func, env, _JIT):
            b = env.get(arg.id) if isinstance(arg, ast.Name) else None
            if isinstance(b, _Def):
                return _Jit(b.node, b.node_id, (), ())
            return inner
        if (
            isinstance(e.func, ast.Call)
            and any(self.is_member(e.func.func, env, w) for w in _WRAPPERS)
            and inner is not None
        ):
            decorators = (e.func, *inner.decorators)
            self.scopes[id(e.func)] = dict(env)
            return _Jit(inner.node, inner.node_id, decorators, tuple(ast.dump(d) for d in decorators))
        return None

    def is_jit_decorator(self, d: ast.expr, env: Mapping[str, _Binding]) -> bool:
        """``@triton.jit``, ``@jit``, ``@triton.jit(...)`` (options), ``@tjit`` (``from triton import jit as tjit``)."""
        f = d.func if isinstance(d, ast.Call) else d
        return _dotted(f) in self.jit_names or self.is_member(f, env, _JIT)

    def is_member(self, e: ast.expr, env: Mapping[str, _Binding], name: str) -> bool:
        return self.static_ref(e, env) == Member(NamespaceKind.TRITON, name)

    def assigned(self, value: ast.expr, env: Mapping[str, _Binding]) -> _Binding:
        made = self.jit_made(value, env)
        if made is not None:
            return made
        ref = self.static_ref(value, env)
        if ref is not None:
            return ref
        if isinstance(value, ast.Name) and isinstance(env.get(value.id), Imported | Opaque | _Jit | _Def):
            b = env[value.id]
            assert b is not None
            return b
        return _Const(value, ast.dump(value))

    def branch(
        self, test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt], env: dict[str, _Binding], s: ast.stmt
    ) -> None:
        v = decide(test, self.unknowable(env))
        where = f"{self.src.file}:{s.lineno}"
        text = ast.unparse(test)
        if v is not UNKNOWN:
            taken = bool(v)
            why = self.why(test)
            self.src.decisions.append(f"{where}: `{text}` is {taken}{why}: {'the if' if taken else 'the else'} branch")
            self.run(body if taken else orelse, env)
            return
        a, b = dict(env), dict(env)
        self.run(body, a)
        self.run(orelse, b)
        differ = self.merge(env, a, b, f"by `{text}` (line {s.lineno}), which larkc cannot decide", s)
        note = f"; bound differently, so unusable: {', '.join(sorted(differ))}" if differ else ""
        self.src.decisions.append(f"{where}: `{text}` cannot be decided: names both branches bind alike kept{note}")

    def why(self, test: ast.expr) -> str:
        if "__version__" in ast.unparse(test) or "compare_version" in ast.unparse(test):
            v = installed_triton_version()
            return f" (Triton {v} installed)" if v else ""
        return ""

    def merge(
        self, env: dict[str, _Binding], a: dict[str, _Binding], b: dict[str, _Binding], why: str, s: ast.stmt
    ) -> set[str]:
        differ: set[str] = set()
        for name in set(a) | set(b):
            x, y = a.get(name), b.get(name)
            if x == y and x is not None:
                env[name] = x
            else:
                env[name] = Opaque(f"bound differently {why}", self.span(s))
                differ.add(name)
        return differ

    def try_(
        self,
        s: ast.Try,
        body: list[ast.stmt],
        handlers: list[ast.ExceptHandler],
        orelse: list[ast.stmt],
        env: dict[str, _Binding],
    ) -> None:
        where = f"{self.src.file}:{s.lineno}"
        outcome = self.imports_succeed(body)
        if outcome is True:
            version = installed_triton_version()
            self.src.decisions.append(f"{where}: the try's imports exist in Triton {version}: the try branch")
            self.run(body, env)
            self.run(orelse, env)
            return
        if isinstance(outcome, tuple):
            ran, error = outcome
            handler = _handler(handlers, error)
            if handler is not None:
                version = installed_triton_version()
                self.src.decisions.append(
                    f"{where}: a try import fails ({error}: not in Triton {version}): the except branch"
                )
                self.run(ran, env)  # what the try body bound before the failing import stays bound
                if handler.name:
                    env.pop(handler.name, None)  # `except E as e` unbinds e at the handler's end
                self.run(handler.body, env)
                return
        a, b = dict(env), dict(env)
        self.run([*body, *orelse], a)
        for h in handlers:
            if h.name:
                b[h.name] = Opaque("an exception", self.span(h))
            self.run(h.body, b)
        differ = self.merge(env, a, b, f"by the try at line {s.lineno}, whose outcome larkc cannot decide", s)
        note = f"; bound differently, so unusable: {', '.join(sorted(differ))}" if differ else ""
        self.src.decisions.append(
            f"{where}: the try's outcome cannot be decided: names bound alike both ways kept{note}"
        )

    def imports_succeed(self, body: list[ast.stmt]) -> bool | tuple[list[ast.stmt], str] | None:
        """Whether a ``try`` body of Triton imports succeeds with the installed Triton: True, or the
        statements that run before the failing import (a ``from`` import binds its names one by one) and
        the exception it raises (``ModuleNotFoundError`` for a missing module, ``ImportError`` for a name a
        module lacks); None when that cannot be told (not only such imports, a name larkc cannot find in
        the module's file either way, Triton not installed)."""
        for i, st in enumerate(body):
            match st:
                case ast.ImportFrom(module=module, level=0) if module is not None and module.split(".")[0] == "triton":
                    exists = _triton_module_exists(module)
                    if exists is None:
                        return None
                    if not exists:
                        return body[:i], "ModuleNotFoundError"
                    for k, a in enumerate(st.names):
                        has = False if a.name == "*" else _triton_module_has(module, a.name)
                        if a.name == "*" or has is None:
                            return None
                        if not has:
                            partial = ast.ImportFrom(module=module, names=st.names[:k], level=0)
                            ast.copy_location(partial, st)
                            return [*body[:i], partial], "ImportError"
                case ast.Import(names=names) if all(a.name.split(".")[0] == "triton" for a in names):
                    for k, a in enumerate(names):
                        exists = _triton_module_exists(a.name)
                        if exists is None:
                            return None
                        if not exists:
                            partial_import = ast.copy_location(ast.Import(names=names[:k]), st)
                            return [*body[:i], partial_import], "ModuleNotFoundError"
                case _:
                    return None
        return True


#: The exceptions an import failure is caught by, by the exception's name.
_CATCHES = {
    "ModuleNotFoundError": {"ModuleNotFoundError", "ImportError", "Exception", "BaseException"},
    "ImportError": {"ImportError", "Exception", "BaseException"},
}
_EXCEPTIONS = {"ModuleNotFoundError", "ImportError", "Exception", "BaseException"}


def _handler(handlers: list[ast.ExceptHandler], error: str) -> ast.ExceptHandler | None:
    """The handler that catches ``error`` (Python tries them in order), None when one before it names an
    exception larkc does not know or none catches it (the import's error leaves the module)."""
    for h in handlers:
        if h.type is None:
            return h
        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        names = [_dotted(t) for t in types]
        if not all(n in _EXCEPTIONS for n in names):
            return None
        if any(n in _CATCHES[error] for n in names):
            return h
    return None


def _triton_patch(tree: ast.Module) -> ast.AST | None:
    """The first construct of the file that stores into (or deletes from) a module of Triton: an
    attribute or item of a name an import of Triton binds, or ``setattr``/``delattr`` on one."""
    roots = {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
        if ((n.module or "") if isinstance(n, ast.ImportFrom) else a.name).split(".")[0] == "triton"
    }

    def root(e: ast.expr) -> str | None:
        while isinstance(e, ast.Attribute | ast.Subscript):
            e = e.value
        return e.id if isinstance(e, ast.Name) else None

    for n in ast.walk(tree):
        match n:
            case ast.Attribute(ctx=ast.Store() | ast.Del()) | ast.Subscript(ctx=ast.Store() | ast.Del()):
                if root(n) in roots:
                    return n
            case ast.Call(func=ast.Name(id="setattr" | "delattr"), args=[target, *_]) if root(target) in roots:
                return n
    return None


def _own_parts(s: ast.stmt) -> list[ast.AST]:
    """The parts of a module-level statement that run in the module's scope and are not statements
    :meth:`_TopLevel.run` follows on its own (an ``if``'s test, not its branches)."""
    match s:
        case ast.If(test=test):
            return [test]
        case ast.Try(handlers=handlers):
            return [h.type for h in handlers if h.type is not None]
        case _:
            return [s]


def _module_scope(root: ast.AST, into_classes: bool = True) -> Iterator[ast.AST]:
    """The nodes of ``root`` that run in its scope: not the bodies of functions and lambdas (their
    decorators, defaults and annotations are), nor a class body unless ``into_classes``."""
    yield root
    match root:
        case ast.FunctionDef() | ast.AsyncFunctionDef():
            parts: list[ast.AST] = [*root.decorator_list, *root.args.defaults]
            parts += [d for d in root.args.kw_defaults if d is not None]
            parts += [
                a.annotation for a in (*root.args.posonlyargs, *root.args.args, *root.args.kwonlyargs) if a.annotation
            ]
            parts += [root.returns] if root.returns is not None else []
        case ast.Lambda():
            parts = [*root.args.defaults, *(d for d in root.args.kw_defaults if d is not None)]
        case ast.ClassDef() if not into_classes:
            parts = [*root.decorator_list, *root.bases, *root.keywords]
        case _:
            parts = list(ast.iter_child_nodes(root))
    for p in parts:
        yield from _module_scope(p, into_classes)


#: Names whose use may bind a module's names other than by its statements.
_DYNAMIC_NAMES = {"globals", "vars", "exec", "eval", "__builtins__", "locals"}
#: Attributes that reach a module's namespace (``sys.modules[__name__]``, ``f.__globals__``).
_DYNAMIC_ATTRS = {"__globals__", "f_globals", "f_locals", "__builtins__"}
#: Names that may give a module's own name (``importlib.import_module(__name__)`` is the module).
_OWN_NAME = {"__name__", "__spec__", "__package__", "__file__"}
#: Methods of ``globals()`` that only read it.
_READS = {"get", "keys", "values", "items", "copy", "__contains__", "__getitem__"}


def _dynamic_namespace(root: ast.AST, into_functions: bool) -> ast.AST | None:
    """The first construct in ``root`` that may bind or rebind a module's names other than by assigning
    them (``globals()['X'] = 1``, ``globals().update(...)``, ``vars()``, ``exec(text)``,
    ``setattr(sys.modules[__name__], 'X', 1)``, ``f.__globals__``), None when there is none. Reads
    (``globals()[name]``, ``globals().get(name)``, ``name in globals()``) and ``eval``/``exec`` over a
    namespace of their own (``eval(text, {...})``) are not. Function bodies are searched only where
    ``into_functions``."""
    nodes = list(ast.walk(root)) if into_functions else list(_module_scope(root))
    parent: dict[int, ast.AST] = {}
    for n in nodes:
        for c in ast.iter_child_nodes(n):
            parent[id(c)] = n
    for n in nodes:
        match n:
            case ast.Name(id=name) if name in _DYNAMIC_NAMES:
                call = parent.get(id(n))
                if not (isinstance(call, ast.Call) and call.func is n):
                    return n
                if name in ("eval", "exec"):
                    own = len(call.args) >= 2 and (
                        isinstance(call.args[1], ast.Dict)
                        or (isinstance(call.args[1], ast.Call) and _dotted(call.args[1].func) == "dict")
                    )
                    if not own:
                        return call
                    continue
                if name in ("globals", "vars", "locals") and not call.args:
                    use = parent.get(id(call))
                    reads = (
                        (isinstance(use, ast.Subscript) and use.value is call and isinstance(use.ctx, ast.Load))
                        or (isinstance(use, ast.Attribute) and use.attr in _READS)
                        or (
                            isinstance(use, ast.Compare)
                            and call in use.comparators
                            and all(isinstance(o, ast.In | ast.NotIn) for o in use.ops)
                        )
                    )
                    if reads:
                        continue
                return call
            case ast.Attribute(attr=attr) if attr in _DYNAMIC_ATTRS or _dotted(n) == "sys.modules":
                return n
            case ast.Call(func=func, args=args) if (_dotted(func) or "").split(".")[-1] in (
                "__import__",
                "import_module",
            ):
                if any(isinstance(x, ast.Name) and x.id in _OWN_NAME for a in args for x in ast.walk(a)):
                    return n
    return None


def _module_path(e: ast.expr, env: Mapping[str, _Binding]) -> str | None:
    """The dotted Triton module ``e`` names (``tl.extra.intel`` → ``triton.language.extra.intel``)."""
    match e:
        case ast.Name(id=name):
            b = env.get(name)
            if isinstance(b, Namespace):
                return {
                    NamespaceKind.TRITON: "triton",
                    NamespaceKind.TL: "triton.language",
                    NamespaceKind.MATH: "triton.language.extra.libdevice",
                    NamespaceKind.PYMATH: "math",
                }[b.kind]
            return None
        case ast.Attribute(value=base, attr=attr):
            path = _module_path(base, env)
            return None if path is None else f"{path}.{attr}"
        case _:
            return None


def _bound_names(s: ast.stmt, nested: bool = True) -> Iterator[str]:
    """The names ``s`` binds (with ``nested``, also those its nested blocks and functions bind)."""
    if not nested:
        match s:
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
                yield name
            case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
                yield from ((a.asname or a.name).split(".")[0] for a in aliases if a.name != "*")
        return
    for node in ast.walk(s):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and node is not s:
            yield node.name
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".")[0]


def read_source(path: Path | None, text: str | None = None, file: str | None = None) -> SourceFile:
    """Read the jit functions and module-level names of a Python file (or ``text``)."""
    if text is None:
        assert path is not None
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise LarkcError(f"cannot read {path}: {e.strerror or e}", stage=Stage.FRONTEND) from None
    name = file or (str(path) if path is not None else "<string>")
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as e:
        span = Span.point(name, e.lineno or 1, e.offset or 1)
        raise UserSyntaxError(f"Python syntax error: {e.msg}", span) from None
    src = SourceFile(name, text)
    env: dict[str, _Binding] = {}
    top = _TopLevel(src, path if path is not None else (Path(file) if file is not None else None), tree)
    top.run(tree.body, env)
    env = top.unknowable(env)
    for node_id, scope in top.scopes.items():
        src.stale[node_id] = {n: n in scope for n, b in env.items() if scope.get(n) != b}
    jit_order: list[tuple[int, str]] = []
    by_def: dict[str, list[_Jit]] = {}
    for key, b in env.items():
        match b:
            case Namespace():
                src.namespaces[key] = b
            case Member():
                src.members[key] = b
            case Imported():
                src.imports[key] = b
            case Opaque():
                src.opaque[key] = b
            case _Const(expr=expr):
                src.constants[key] = expr
            case _Def(node=node):
                src.defs[key] = node
            case _Jit(node=node, decorators=decorators):
                src.functions[key] = FunctionRef(key, node, name)
                src.decorators[key] = list(decorators)
                jit_order.append((node.lineno, key))
                by_def.setdefault(node.name, []).append(b)
    # a launcher names a kernel made by a call (`kernel = triton.jit(_impl)`) by its function's own name
    for def_name, made in by_def.items():
        if def_name in src.functions or len({m.decorator_text for m in made}) != 1:
            continue
        src.functions[def_name] = FunctionRef(def_name, made[0].node, name)
        src.decorators[def_name] = list(made[0].decorators)
        src.defs.pop(def_name, None)
        jit_order.append((made[0].node.lineno, def_name))
    src.order = [k for _, k in sorted(jit_order, key=lambda t: t[0])]
    return src


_NOTED: set[str] = set()


def note_decisions(src: SourceFile) -> None:
    """Print (once per process) on stderr which branch of each module-level ``if``/``try`` larkc took."""
    for line in src.decisions:
        if line not in _NOTED:
            _NOTED.add(line)
            print(f"larkc: {line}", file=sys.stderr)


def kernel_source(src: SourceFile, kernel: str) -> SourceFile:
    """The file that defines the ``@triton.jit`` function ``kernel`` of ``src``: ``src`` itself, or the
    module a re-export names (a package ``__init__`` with ``from .kernels import add_kernel as k``),
    followed through further re-exports, with ``kernel`` added as a name of the function there. ``src``
    when ``kernel`` is neither (the caller reports it missing); a located error when ``kernel`` is a name
    larkc cannot give a value (a kernel defined differently under an ``if`` it cannot decide)."""
    seen: set[tuple[str, str]] = set()
    home, name = src, kernel
    while name not in home.functions and name in home.imports and (home.file, name) not in seen:
        seen.add((home.file, name))
        imp = home.imports[name]
        home, name = read_source(imp.path), imp.name
    if name not in home.functions and name in home.opaque:
        o = home.opaque[name]  # a kernel defined differently in branches larkc cannot choose between
        raise LarkcError(f"the kernel {kernel} is {o.why}", o.span, stage=Stage.FRONTEND)
    if home is src or name not in home.functions:
        return src
    home.functions[kernel] = home.functions[name]
    home.decorators[kernel] = home.decorators[name]
    return home
