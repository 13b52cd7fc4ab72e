"""Traversals of the kernel IR shared by every stage: statements in program order, and the expressions
of a statement with their sub-expressions."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import assert_never

from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    Assign,
    Atomic,
    Barrier,
    Binary,
    Break,
    Broadcast,
    Builtin,
    Call,
    Cast,
    Const,
    Continue,
    Decl,
    Dot,
    DoWhile,
    Expr,
    Extract,
    Fence,
    For,
    If,
    Insert,
    Load,
    MakeVector,
    MathCall,
    PtrAdd,
    Reduce,
    Reshape,
    Return,
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

__all__ = ["stmt_exprs", "sub_exprs", "walk_stmts"]


def walk_stmts(stmts: Sequence[Stmt]) -> Iterator[Stmt]:
    """Every statement of ``stmts``, nested ones included, in program order (a ``for``: its init, body,
    then step)."""
    for s in stmts:
        yield s
        match s:
            case If(_, then_body, else_body):
                yield from walk_stmts(then_body)
                yield from walk_stmts(else_body)
            case For(init, _, step, body):
                yield from walk_stmts(init)
                yield from walk_stmts(body)
                yield from walk_stmts(step)
            case While(_, body) | DoWhile(body, _):
                yield from walk_stmts(body)
            case _:
                pass


def sub_exprs(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it, outermost first."""
    yield e
    match e:
        case Const() | VarRef() | Builtin() | Arange():
            return
        case Unary(_, a) | Cast(a) | Splat(a) | Broadcast(a) | Reshape(a) | Reduce(_, a):
            yield from sub_exprs(a)
        case Binary(_, a, b) | PtrAdd(a, b) | Extract(a, b):
            yield from sub_exprs(a)
            yield from sub_exprs(b)
        case Select(c, a, b) | Insert(c, a, b):
            for x in (c, a, b):
                yield from sub_exprs(x)
        case MathCall(_, args) | MakeVector(args):
            for x in args:
                yield from sub_exprs(x)
        case Dot(a, b, acc):
            for y in (a, b, acc):
                if y is not None:
                    yield from sub_exprs(y)
        case _:
            assert_never(e)


def stmt_exprs(s: Stmt) -> Iterator[Expr]:
    """Every expression of statement ``s`` (not of the statements nested in it), with sub-expressions."""
    roots: tuple[Expr | None, ...]
    match s:
        case Decl(_, _, init):
            roots = (init,)
        case Assign(_, value):
            roots = (value,)
        case Alloc() | Break() | Continue() | Fence():
            roots = ()
        case Load(_, ptr, mask, other):
            roots = (ptr, mask, other)
        case Store(ptr, value, mask):
            roots = (ptr, value, mask)
        case If(cond):
            roots = (cond,)
        case For(_, cond):
            roots = (cond,)
        case While(cond) | DoWhile(_, cond):
            roots = (cond,)
        case Return(value):
            roots = (value,)
        case Barrier(_, mask):
            roots = (mask,)
        case Assert(cond):
            roots = (cond,)
        case Shuffle(_, _, mask, value, lane, width):
            roots = (mask, value, lane, width)
        case Vote(_, _, mask, pred):
            roots = (mask, pred)
        case Atomic(_, _, ptr, value, compare, mask):
            roots = (ptr, value, compare, mask)
        case Call(_, _, args):
            roots = args
        case _:
            assert_never(s)
    for r in roots:
        if r is not None:
            yield from sub_exprs(r)
