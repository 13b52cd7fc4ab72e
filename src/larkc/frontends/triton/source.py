"""Reading a Python file that defines ``@triton.jit`` functions: the functions, the module-level names
they may refer to, and source spans.

Nothing is imported or executed: the file is read with :mod:`ast`. The globals a kernel body may use are
the Triton modules under their import names (``import triton.language as tl``, ``from
triton.language.extra import libdevice``), other ``@triton.jit`` functions of the file, and module-level
constants (``BLOCK = 128``, ``DTYPE = tl.float16``, ``X = tl.constexpr(4)``), evaluated on use.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from larkc.errors import LarkcError, Span, Stage, UserSyntaxError
from larkc.frontends.triton.values import FunctionRef, Namespace, NamespaceKind

__all__ = ["SourceFile", "read_source", "span_of"]


def span_of(node: ast.AST, file: str) -> Span:
    """The span of ``node`` (ast columns are 0-based; spans are 1-based, ``end_col`` one past the end)."""
    line = getattr(node, "lineno", 0)
    col = getattr(node, "col_offset", 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_col = (getattr(node, "end_col_offset", None) or col) + 1
    return Span(file, line, col, end_line, end_col)


#: Module paths whose import binds a namespace.
_MODULES = {
    "triton": NamespaceKind.TRITON,
    "triton.language": NamespaceKind.TL,
    "triton.language.math": NamespaceKind.MATH,
    "triton.language.extra.libdevice": NamespaceKind.MATH,
    "triton.language.extra.cuda.libdevice": NamespaceKind.MATH,
    "triton.language.extra.cuda": NamespaceKind.MATH,  # only as `... import libdevice`
}


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

    def span(self, node: ast.AST) -> Span:
        return span_of(node, self.file)


def _dotted(e: ast.expr) -> str | None:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = _dotted(e.value)
        return None if base is None else f"{base}.{e.attr}"
    return None


def _decorator_name(d: ast.expr) -> str | None:
    return _dotted(d.func if isinstance(d, ast.Call) else d)


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
    jit_names = {"triton.jit", "jit"}
    for node in tree.body:
        match node:
            case ast.Import(names=names):
                for a in names:
                    kind = _MODULES.get(a.name)
                    if kind is not None and a.asname is not None:
                        src.namespaces[a.asname] = Namespace(kind)
                    elif a.name.startswith("triton") and a.asname is None:
                        src.namespaces["triton"] = Namespace(NamespaceKind.TRITON)
            case ast.ImportFrom(module=module, names=names) if module is not None:
                for a in names:
                    full = f"{module}.{a.name}"
                    kind = _MODULES.get(full)
                    if kind is not None:
                        src.namespaces[a.asname or a.name] = Namespace(kind)
                    elif full == "triton.jit":
                        jit_names.add(a.asname or a.name)
            case ast.FunctionDef(name=fname, decorator_list=decos):
                names_ = [_decorator_name(d) for d in decos]
                if any(n in jit_names for n in names_):
                    src.functions[fname] = FunctionRef(fname, node, name)
                    src.order.append(fname)
                    src.decorators[fname] = [d for d, n in zip(decos, names_, strict=True) if n not in jit_names]
            case ast.Assign(targets=[ast.Name(id=target)], value=value):
                src.constants[target] = value
            case ast.AnnAssign(target=ast.Name(id=target), value=value) if value is not None:
                src.constants[target] = value
            case _:
                pass
    return src
