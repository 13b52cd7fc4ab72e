"""The deterministic text form of the kernel IR.

The printed form is what ``larkc parse`` shows users, what golden tests pin, and what
:mod:`larkc.ir.parser` reads back: for every module accepted by :func:`larkc.ir.verify.verify_module`,
``parse_module(print_module(m)) == m`` and printing the result reproduces the text byte for byte.

It prints just enough types for the parser to rebuild every node: constants carry their type
(``1:i32``), declarations and parameters name theirs, casts and vector/block constructors spell the
target (``convert<f32>(%x)``, ``splat<128>(%x)``), and everything else (operators, math calls, loads)
gets its type from the typing rules. A sketch (``docs/ir.md`` describes every form)::

    kernel @add(%x: ptr<global const f32>, %out: ptr<global f32>, %n: i32) level thread {
      let %i: i32 = convert<i32>(threadIdx.x);
      if (%i < %n) {
        let %t: f32;
        %t = load [ptradd(%x, %i)];
        store [ptradd(%out, %i)], %t;
      }
    }

Names that are not plain identifiers (``warp_sum<float>``, renamed locals with odd characters) are
quoted: ``@"warp_sum<float>"``. Plain names may contain dots (``%i.1``).
"""

from __future__ import annotations

import re
from typing import assert_never

from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    AssertKind,
    Assign,
    Assume,
    Atomic,
    Barrier,
    Binary,
    BinaryOp,
    Break,
    Broadcast,
    Builtin,
    Call,
    Cast,
    Combine,
    Const,
    Continue,
    Decl,
    Dot,
    DoWhile,
    Expr,
    Extract,
    Fence,
    For,
    Function,
    If,
    Insert,
    Load,
    MakeVector,
    MathCall,
    MemoryOrder,
    MemScope,
    Module,
    Permute,
    PtrAdd,
    Reduce,
    Reshape,
    Return,
    Scan,
    Select,
    Shuffle,
    Splat,
    Stmt,
    Store,
    Unary,
    VarRef,
    Vote,
    While,
)
from larkc.ir.types import BOOL, Type, VoidType
from larkc.ir.walk import fold_expr

__all__ = [
    "format_func",
    "format_name",
    "format_var",
    "print_expr",
    "print_function",
    "print_module",
    "print_stmt",
    "print_type",
]

_INDENT = "  "
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
# The escapes the parser understands inside quoted names; anything else non-printable becomes \u{hex}.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def format_name(name: str) -> str:
    """``name`` as written after a ``%`` or ``@`` sigil: bare if an identifier (dots allowed), else quoted."""
    if _PLAIN_NAME.fullmatch(name):
        return name
    out = []
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif not ch.isprintable():
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def format_var(name: str) -> str:
    """A local variable, parameter or allocation name: ``%i``, ``%"a b"``."""
    return "%" + format_name(name)


def format_func(name: str) -> str:
    """A function name: ``@vector_add``, ``@"warp_sum<float>"``."""
    return "@" + format_name(name)


def print_type(t: Type) -> str:
    """A type as the IR spells it (``f32``, ``f16x2``, ``ptr<global const f32>``, ``block<64x32 x f32>``)."""
    return str(t)


def print_const(c: Const) -> str:
    """``1:i32``, ``0.5:f32``, ``-inf:f32``, ``nan:f64``, ``true``; floats use ``repr`` so they round-trip."""
    v = c.value
    if isinstance(v, bool):
        text = "true" if v else "false"
        if c.type == BOOL:
            return text
    elif isinstance(v, int):
        text = int.__repr__(v)
    else:  # a float (anything else is an ill-typed constant, printed for diagnosis only)
        text = float.__repr__(v) if isinstance(v, float) else repr(v)
    return f"{text}:{c.type}"


def print_expr(e: Expr) -> str:
    """One expression on one line, binary operators fully parenthesised."""
    return fold_expr(e, _print_node)


def _print_node(e: Expr, args: list[str]) -> str:
    """``e`` printed, given its operands (:func:`larkc.ir.walk.operands`) printed."""
    match e:
        case Const():
            return print_const(e)
        case VarRef():
            return format_var(e.name)
        case Builtin():
            return f"{e.reg.value}.{e.dim.value}"
        case Unary():
            return f"{e.op.value}({args[0]})"
        case Binary():
            if e.op in (BinaryOp.MIN, BinaryOp.MAX):
                return f"{e.op.value}({args[0]}, {args[1]})"
            return f"({args[0]} {e.op.value} {args[1]})"
        case Select():
            return f"select({', '.join(args)})"
        case Cast():
            return f"{e.kind.value}<{e.type}>({args[0]})"
        case MathCall():
            suffix = ".approx" if e.approx else ""
            return f"{e.fn.value}{suffix}({', '.join(args)})"
        case PtrAdd():
            return f"ptradd({args[0]}, {args[1]})"
        case Extract():
            return f"extract({args[0]}, {args[1]})"
        case Insert():
            return f"insert({', '.join(args)})"
        case MakeVector():
            return f"vector<{e.type}>({', '.join(args)})"
        case Arange():
            return f"arange<{e.start}, {e.end}>()"
        case Splat():
            return f"splat<{_dims(e.type.shape)}>({args[0]})"
        case Broadcast():
            return f"broadcast<{_dims(e.type.shape)}>({args[0]})"
        case Reshape():
            return f"reshape<{_dims(e.type.shape)}>({args[0]})"
        case Permute():
            return f"permute<{_dims(e.perm)}>({args[0]})"
        case Reduce():
            return f"reduce.{e.op.value}<{e.axis}>({args[0]})"
        case Scan():
            reverse = ".reverse" if e.reverse else ""
            return f"scan.{e.op.value}{reverse}<{e.axis}>({args[0]})"
        case Combine():
            reverse = ".reverse" if e.reverse else ""
            statics = f"{format_func(e.func)}, {e.axis}, {e.result}"
            return f"combine.{e.kind.value}{reverse}<{statics}>({', '.join(args)})"
        case Dot():
            return f"dot<{e.type.elem}>({', '.join(args)})"
        case _:
            assert_never(e)


def _exprs(es: tuple[Expr, ...]) -> str:
    return ", ".join(print_expr(x) for x in es)


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in shape)


def print_stmt(s: Stmt, indent: int = 0) -> str:
    """One statement at ``indent`` levels (two spaces each), without a trailing newline."""
    pad = _INDENT * indent
    text = _compound(s, indent)
    if text is None:
        return f"{pad}{_simple(s, indent)};"
    return pad + text


def _body(stmts: tuple[Stmt, ...], indent: int) -> str:
    """``{``, the statements one level deeper, each on its own line(s), and ``}`` at ``indent``."""
    lines = [print_stmt(s, indent + 1) for s in stmts]
    return "{\n" + "".join(line + "\n" for line in lines) + _INDENT * indent + "}"


def _compound(s: Stmt, indent: int) -> str | None:
    """The text of a statement that ends in a ``}`` (no ``;``), or ``None`` for a simple statement."""
    match s:
        case If():
            text = f"if {print_expr(s.cond)} {_body(s.then_body, indent)}"
            if s.else_body:
                text += f" else {_body(s.else_body, indent)}"
            return text
        case For():
            init = ", ".join(_item(x, indent) for x in s.init)
            cond = "" if s.cond is None else " " + print_expr(s.cond)
            step = ", ".join(_item(x, indent) for x in s.step)
            unroll = "" if s.unroll is None else f" unroll {s.unroll}"
            return f"for ({init};{cond};{' ' + step if step else ''}){unroll} {_body(s.body, indent)}"
        case While():
            return f"while {print_expr(s.cond)} {_body(s.body, indent)}"
        case (
            Decl()
            | Assign()
            | Alloc()
            | Load()
            | Store()
            | DoWhile()
            | Break()
            | Continue()
            | Return()
            | Barrier()
            | Fence()
            | Assert()
            | Assume()
            | Shuffle()
            | Vote()
            | Atomic()
            | Call()
        ):
            return None
        case _:
            assert_never(s)


def _item(s: Stmt, indent: int) -> str:
    """A statement inside a ``for (...)`` header: simple ones without their ``;``."""
    text = _compound(s, indent)
    return _simple(s, indent) if text is None else text


def _mask(mask: Expr | None) -> str:
    return "" if mask is None else f", mask {print_expr(mask)}"


def _simple(s: Stmt, indent: int) -> str:
    """The text of a statement that the printer ends with ``;`` (not including it)."""
    match s:
        case Decl():
            init = "" if s.init is None else f" = {print_expr(s.init)}"
            return f"let {format_var(s.name)}: {s.type}{init}"
        case Assign():
            return f"{format_var(s.name)} = {print_expr(s.value)}"
        case Alloc():
            count = "?" if s.count is None else str(s.count)
            return f"{s.space.value} {format_var(s.name)}: [{count} x {s.elem}]"
        case Load():
            other = "" if s.other is None else f", other {print_expr(s.other)}"
            op = "load.nc" if s.nc else "load"
            return f"{format_var(s.dst)} = {op} [{print_expr(s.ptr)}]{_mask(s.mask)}{other}"
        case Store():
            return f"store [{print_expr(s.ptr)}], {print_expr(s.value)}{_mask(s.mask)}"
        case DoWhile():
            return f"do {_body(s.body, indent)} while {print_expr(s.cond)}"
        case Break():
            return "break"
        case Continue():
            return "continue"
        case Return():
            return "return" if s.value is None else f"return {print_expr(s.value)}"
        case Barrier():
            mask = "" if s.mask is None else f"({print_expr(s.mask)})"
            return f"barrier.{s.scope.value}{mask}"
        case Fence():
            return f"fence.{s.scope.value}"
        case Assert():
            op = "assert" if s.kind is AssertKind.ASSERT else f"assert.{s.kind.value}"
            return f"{op} {print_expr(s.cond)}"
        case Assume():
            return f"assume {print_expr(s.cond)}"
        case Shuffle():
            args = _exprs((s.mask, s.value, s.lane, s.width))
            return f"{format_var(s.dst)} = shfl.{s.kind.value}({args})"
        case Vote():
            return f"{format_var(s.dst)} = vote.{s.kind.value}({_exprs((s.mask, s.pred))})"
        case Atomic():
            dst = "" if s.dst is None else f"{format_var(s.dst)} = "
            compare = "" if s.compare is None else f", compare {print_expr(s.compare)}"
            value = print_expr(s.value)
            order = "" if s.order is MemoryOrder.RELAXED else f".{s.order.value}"
            scope = "" if s.scope is MemScope.DEVICE else f".{s.scope.value}"
            return f"{dst}atomic.{s.op.value}{order}{scope} [{print_expr(s.ptr)}], {value}{compare}{_mask(s.mask)}"
        case Call():
            dst = "" if s.dst is None else f"{format_var(s.dst)} = "
            return f"{dst}call {format_func(s.func)}({_exprs(s.args)})"
        case If() | For() | While():
            raise AssertionError("compound statements are printed by _compound")
        case _:
            assert_never(s)


def print_function(f: Function) -> str:
    """A function: its header line, its body, and a closing ``}`` line (ends with a newline)."""
    params = ", ".join(f"{'&' if p.by_ref else ''}{format_var(p.name)}: {p.type}" for p in f.params)
    ret = "" if isinstance(f.ret, VoidType) else f" -> {f.ret}"
    bounds = "" if f.max_threads is None else f" max_threads {f.max_threads}"
    header = f"{f.kind.value} {format_func(f.name)}({params}){ret} level {f.level.value}{bounds} "
    return header + _body(f.body, 0) + "\n"


def print_module(m: Module) -> str:
    """Every function of ``m`` in order, separated by blank lines (empty for an empty module)."""
    return "\n".join(print_function(f) for f in m.functions)
