"""Traversals of the kernel IR shared by every stage: statements in program order, the expressions of a
statement with their sub-expressions, and a bottom-up fold of an expression.

All are iterative (explicit stacks): a frontend may produce expressions thousands of levels deep (a
sum of thousands of terms), deeper than Python's recursion limit."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import TypeVar, assert_never

from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    Assign,
    Assume,
    Atomic,
    Barrier,
    Binary,
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
    If,
    Insert,
    Load,
    MakeVector,
    MathCall,
    MemScope,
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

__all__ = ["fences_and_atomics", "fold_expr", "operands", "post_order", "stmt_exprs", "sub_exprs", "walk_stmts"]

_T = TypeVar("_T")


def walk_stmts(stmts: Sequence[Stmt]) -> Iterator[Stmt]:
    """Every statement of ``stmts``, nested ones included, in program order (a ``for``: its init, body,
    then step)."""
    pending: list[Iterator[Stmt]] = [iter(stmts)]  # an explicit stack: nesting depth is unbounded
    while pending:
        s = next(pending[-1], None)
        if s is None:
            pending.pop()
            continue
        yield s
        match s:
            case If(_, then_body, else_body):
                pending.append(chain(then_body, else_body))
            case For(init, _, step, body):
                pending.append(chain(init, body, step))
            case While(_, body) | DoWhile(body, _):
                pending.append(iter(body))
            case _:
                pass


def fences_and_atomics(stmts: Sequence[Stmt]) -> bool:
    """Whether ``stmts`` (a body, nested statements included) have a fence and an atomic of device or
    system scope: the parts of PTX's release pattern (a fence, then an atomic write) and acquire pattern
    (an atomic read, then a fence), through which the blocks of a CUDA launch may synchronise."""
    found = [s for s in walk_stmts(stmts) if isinstance(s, Fence | Atomic) and s.scope is not MemScope.BLOCK]
    return any(isinstance(s, Fence) for s in found) and any(isinstance(s, Atomic) for s in found)


def operands(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``e``, in printed order."""
    match e:
        case Const() | VarRef() | Builtin() | Arange():
            return ()
        case Unary() | Cast() | Splat() | Broadcast() | Reshape() | Permute() | Reduce() | Scan():
            return (e.operand,)
        case Combine():
            return e.args
        case Binary():
            return (e.lhs, e.rhs)
        case Select():
            return (e.cond, e.if_true, e.if_false)
        case MathCall():
            return e.args
        case PtrAdd():
            return (e.base, e.offset)
        case Extract():
            return (e.vector, e.index)
        case Insert():
            return (e.vector, e.index, e.value)
        case MakeVector():
            return e.elems
        case Dot():
            return (e.lhs, e.rhs) if e.acc is None else (e.lhs, e.rhs, e.acc)
        case _:
            assert_never(e)


def sub_exprs(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it, outermost first (operands left to right)."""
    pending = [e]  # an explicit stack: a sum of thousands of terms nests thousands deep
    while pending:
        x = pending.pop()
        yield x
        pending.extend(reversed(operands(x)))


def post_order(e: Expr) -> Iterator[Expr]:
    """Every expression inside ``e``, then ``e``: each after its operands (left to right)."""
    pending: list[tuple[Expr, bool]] = [(e, False)]
    while pending:
        x, expanded = pending.pop()
        if expanded:
            yield x
            continue
        pending.append((x, True))
        pending.extend((o, False) for o in reversed(operands(x)))


def fold_expr(e: Expr, combine: Callable[[Expr, list[_T]], _T]) -> _T:
    """``combine(x, results of x's operands)`` for every ``x`` inside ``e``, operands first: the value of
    a recursive evaluation of ``e``, computed without recursion."""
    results: list[_T] = []
    for x in post_order(e):
        n = len(operands(x))
        args = results[len(results) - n :]
        del results[len(results) - n :]
        results.append(combine(x, args))
    assert len(results) == 1
    return results[0]


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
        case Assert(cond) | Assume(cond):
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
