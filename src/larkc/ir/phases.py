"""The phase form: a thread-level kernel cut at its synchronisation points.

The Lean machine model (``lean/Larkc/Machine.lean``) runs a kernel as a list of *phases*; every
thread runs its code of a phase on the memory from before the phase plus its own writes (snapshot
semantics), and a race-free kernel computes the same under snapshot semantics as under every
interleaving. This module computes that decomposition from the kernel IR; :mod:`larkc.semantics.phased`
runs it on concrete inputs (tests compare it with the simulator on every example), and
:mod:`larkc.lower.kernel` prints it as Lean.

Construction:

1. Device-function calls are inlined (callee variables renamed apart, by-reference parameters bound to
   the caller's variables, ``return`` turned into an assignment of the result with the rest of the
   body moved under ``if``/``else``).
2. A kernel's early ``return`` clears a flag (:data:`LIVE`), and the code after a statement that may
   return runs under it, so that an exited thread takes no part in later phases (as on the GPU, where
   an exited thread no longer counts for a barrier). Returns inside loops are unsupported.
3. The body is cut at every block barrier (``__syncthreads``), warp barrier (``__syncwarp``) and
   warp exchange (shuffle, vote): an exchange is a phase of its own, in which each lane reads its
   source lane's value as it was at the end of the previous phase.
4. Synchronisation inside control flow: an ``if`` whose condition is *rematerialisable* (see below), or
   the :data:`LIVE` flag,
   contributes its arms' phases guarded by the condition (``then`` arm first); a loop whose control
   is a compile-time constant is unrolled (the loop variable becomes a constant in each copy); a loop
   ``for (i = a; i < b; i += c)`` with uniform ``a``, ``b`` and constant ``c`` (or a halving loop
   ``for (s = a; s > 0; s >>= 1)``) becomes a :class:`PhaseLoop` over the iteration number. When its
   body ends with a synchronisation, the code before the loop must touch no memory (so the cut at the
   loop's entry adds no ordering the program does not have); when the body ends after its last
   synchronisation, each iteration's tail runs in one phase with the next iteration's head, the first
   head with the code before the loop and the last tail with the code after it
   (``_Builder.rotated``). Anything else with a synchronisation inside is unsupported, with its
   location.

A block-level (Triton) kernel has nothing to cut: it is one phase, every program a thread of its own
(:func:`_block_phase_form`).

A variable is *rematerialisable* when it is defined once, by a declaration with an initialiser over
constants, parameters, launch registers and rematerialisable variables: its value is the same
wherever it is recomputed, so later phases (and guards) may recompute it instead of keeping it in a
register. Other variables used in more than one phase are *carried*: the Lean lowering keeps them in
``Loc.reg`` locations across phase boundaries.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from larkc.errors import LarkcError, Span, Stage, UnsupportedError
from larkc.ir.cnumbers import trunc_div, trunc_rem
from larkc.ir.nodes import (
    Alloc,
    Assign,
    Atomic,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Break,
    Builtin,
    BuiltinReg,
    Call,
    Cast,
    CastKind,
    Combine,
    Const,
    Continue,
    Decl,
    DoWhile,
    Expr,
    For,
    Function,
    If,
    Level,
    Load,
    Module,
    Return,
    Shuffle,
    Stmt,
    Store,
    Unary,
    UnaryOp,
    VarRef,
    Vote,
    While,
)
from larkc.ir.types import BOOL, ScalarType
from larkc.ir.walk import walk_stmts

__all__ = [
    "Exchange",
    "Interval",
    "Phase",
    "PhaseForm",
    "PhaseItem",
    "PhaseLoop",
    "Piece",
    "SyncKind",
    "block_intervals",
    "covers",
    "iter_phases",
    "phase_form",
]


class SyncKind(enum.Enum):
    """What ends a phase."""

    BLOCK = "block"  # __syncthreads(): every thread of the block
    WARP = "warp"  # __syncwarp(), or the warp exchange that follows
    EXCHANGE = "exchange"  # the phase is a warp exchange (shuffle or vote) itself
    LOOP = "loop"  # the entry or exit of a PhaseLoop (no memory access crosses it)
    END = "end"  # the end of the kernel


@dataclass(frozen=True, slots=True)
class Piece:
    """Synchronisation-free thread code that runs where every guard holds."""

    guards: tuple[Expr, ...]
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Exchange:
    """A warp exchange (``Shuffle`` or ``Vote``) by the lanes where every guard holds."""

    guards: tuple[Expr, ...]
    stmt: Shuffle | Vote


@dataclass(frozen=True, slots=True)
class Phase:
    """One phase: ``pieces`` in order (a code phase), or a single warp ``exchange``.

    ``index`` numbers the phases of a kernel in program order (a :class:`PhaseLoop`'s body once);
    ``ends`` says what ends it and ``span`` where (the barrier or exchange), for messages.
    """

    index: int
    pieces: tuple[Piece, ...]
    exchange: Exchange | None
    ends: SyncKind
    span: Span


@dataclass(frozen=True, slots=True)
class PhaseLoop:
    """``for (var = start; var <cmp> bound; var += step)`` around phases, with uniform control.

    ``start`` and ``bound`` are rematerialisable expressions that do not depend on the thread;
    ``step`` is a non-zero constant; ``cmp`` is ``<``, ``<=``, ``>`` or ``>=``. A *halving* loop is
    ``for (var = start; var > 0; var >>= 1)`` (or ``/= 2``): ``cmp`` is ``>``, ``bound`` 0, ``step`` 0.
    """

    var: str
    type: ScalarType
    start: Expr
    cmp: BinaryOp
    bound: Expr
    step: int
    body: tuple[PhaseItem, ...]
    span: Span
    halving: bool = False


PhaseItem = Phase | PhaseLoop


@dataclass(frozen=True, slots=True)
class PhaseForm:
    """A kernel as phases. ``kernel`` is the kernel with calls inlined (what the phases' code comes from);
    ``remat`` maps each rematerialisable variable to its declaration; ``carried`` lists the other
    variables that more than one phase uses, in first-use order; ``combiners`` the combine functions
    of the kernel's :class:`~larkc.ir.nodes.Combine` nodes (block level), by name."""

    kernel: Function
    items: tuple[PhaseItem, ...]
    remat: Mapping[str, Decl]
    carried: tuple[str, ...]
    combiners: Mapping[str, Function] = dataclasses.field(default_factory=dict)


def iter_phases(items: Sequence[PhaseItem]) -> Iterator[Phase]:
    """Every phase of ``items`` once, in program order (loop bodies once)."""
    for it in items:
        if isinstance(it, Phase):
            yield it
        else:
            yield from iter_phases(it.body)


def _unsupported(what: str, span: Span, why: str) -> UnsupportedError:
    return UnsupportedError(what, why, span, stage=Stage.LOWER)


# --------------------------------------------------------------------------------------------------
# Generic IR rewriting (the IR is frozen dataclasses; a rewrite rebuilds what changes)


def _map_node(node: Any, expr_fn: Callable[[Expr], Expr | None], name_fn: Callable[[str], str] | None) -> Any:
    """Rebuild ``node`` bottom-up: ``expr_fn`` may replace an expression (``None`` keeps it), ``name_fn``
    renames the variable names statements define or use."""
    if isinstance(node, tuple):
        return tuple(_map_node(x, expr_fn, name_fn) for x in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        if f.name in ("name", "dst") and isinstance(v, str) and name_fn is not None:
            nv: Any = name_fn(v)
        elif isinstance(v, tuple) or dataclasses.is_dataclass(v):
            nv = _map_node(v, expr_fn, name_fn)
        else:
            nv = v
        if nv is not v:
            changes[f.name] = nv
    out = dataclasses.replace(node, **changes) if changes else node
    if _is_expr(out):
        rep = expr_fn(out)  # type: ignore[arg-type]  # an expression node, by _is_expr
        if rep is not None:
            return rep
    return out


def _is_expr(node: object) -> bool:
    return type(node) in _EXPR_TYPES


_EXPR_TYPES = frozenset(typing.get_args(Expr))


def substitute(stmts: tuple[Stmt, ...], values: Mapping[str, Expr]) -> tuple[Stmt, ...]:
    """``stmts`` with every read of a variable in ``values`` replaced by its expression."""

    def rep(e: Expr) -> Expr | None:
        if isinstance(e, VarRef) and e.name in values:
            return values[e.name]
        return None

    out: tuple[Stmt, ...] = _map_node(stmts, rep, None)
    return out


def substitute_expr(e: Expr, values: Mapping[str, Expr]) -> Expr:
    """``e`` with every variable in ``values`` replaced by its expression."""

    def rep(x: Expr) -> Expr | None:
        return values.get(x.name) if isinstance(x, VarRef) else None

    out: Expr = _map_node(e, rep, None)
    return out


def rename(stmts: tuple[Stmt, ...], names: Mapping[str, str]) -> tuple[Stmt, ...]:
    """``stmts`` with the variables of ``names`` renamed wherever defined or used."""

    out: tuple[Stmt, ...] = _map_node(stmts, lambda e: None, lambda n: names.get(n, n))
    return out


def walk_exprs(node: Any) -> Iterator[Expr]:
    """Every expression inside ``node`` (a statement, expression or tuple of them), outermost first."""
    if isinstance(node, tuple):
        for x in node:
            yield from walk_exprs(x)
        return
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return
    if _is_expr(node):
        yield node  # type: ignore[misc]  # an expression node, by _is_expr
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        if isinstance(v, tuple) or dataclasses.is_dataclass(v):
            yield from walk_exprs(v)


def _is_sync(s: Stmt) -> bool:
    return isinstance(s, Barrier | Shuffle | Vote)


def has_sync(stmts: Sequence[Stmt]) -> bool:
    """Whether ``stmts`` contain a barrier or a warp exchange (after inlining)."""
    return any(_is_sync(s) for s in walk_stmts(stmts))


# --------------------------------------------------------------------------------------------------
# Inlining


class _Inliner:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.counter = itertools.count()

    def stmts(self, stmts: tuple[Stmt, ...], depth: int) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for s in stmts:
            out.extend(self.stmt(s, depth))
        return tuple(out)

    def stmt(self, s: Stmt, depth: int) -> list[Stmt]:
        match s:
            case Call():
                return self.call(s, depth)
            case If(c, t, e, span):
                return [If(c, self.stmts(t, depth), self.stmts(e, depth), span)]
            case For(init, cond, step, body, unroll, span):
                return [
                    For(self.stmts(init, depth), cond, self.stmts(step, depth), self.stmts(body, depth), unroll, span)
                ]
            case While(c, body, span):
                return [While(c, self.stmts(body, depth), span)]
            case DoWhile(body, c, span):
                return [DoWhile(self.stmts(body, depth), c, span)]
            case _:
                return [s]

    def call(self, s: Call, depth: int) -> list[Stmt]:
        f = self.module.function(s.func)
        if f is None:
            raise _unsupported("call", s.span, f"{s.func} (no body)")
        if depth > 32:
            raise _unsupported("recursive call", s.span, s.func)
        k = next(self.counter)
        local = {n for n in _defined_names(f.body)} | {p.name for p in f.params}
        base = _short_name(f.name)
        names = {n: f"{base}.{k}.{n}" for n in sorted(local)}
        out: list[Stmt] = []
        for p, a in zip(f.params, s.args, strict=True):
            if p.by_ref:
                if not isinstance(a, VarRef):
                    raise _unsupported("by-reference argument", a.span, "not a variable")
                names[p.name] = a.name
            else:
                out.append(Decl(names[p.name], p.type, a, s.span))
        body = rename(f.body, names)
        ret = f"{base}.{k}.ret"
        if s.dst is not None:
            out.append(Decl(ret, f.ret, None, s.span))
        body = _returns_to_assign(body, ret if s.dst is not None else None, s.span)
        out.extend(self.stmts(body, depth + 1))
        if s.dst is not None:
            out.append(Assign(s.dst, VarRef(ret, f.ret, s.span), s.span))
        return out


def _short_name(name: str) -> str:
    """A device function's name without template arguments and signature (``store_float(ptr, f32)``)."""
    return name.split("<", maxsplit=1)[0].split("(", maxsplit=1)[0]


def _defined_names(stmts: Sequence[Stmt]) -> Iterator[str]:
    for s in walk_stmts(stmts):
        match s:
            case Decl(name) | Alloc(name):
                yield name
            case _:
                pass


def _has_return(stmts: Sequence[Stmt]) -> bool:
    return any(isinstance(s, Return) for s in walk_stmts(stmts))


def _returns_to_assign(stmts: tuple[Stmt, ...], ret: str | None, span: Span) -> tuple[Stmt, ...]:
    """A function body with its returns replaced by assignments of ``ret``; code after a return that
    may be taken moves under the ``else`` of the ``if`` holding it (returns inside loops: unsupported)."""
    out: list[Stmt] = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1 :]
        match s:
            case Return(value):
                if value is not None and ret is not None:
                    out.append(Assign(ret, value, s.span))
                return tuple(out)
            case If(c, t, e, sp) if _has_return(t) or _has_return(e):
                out.append(If(c, _returns_to_assign(t + rest, ret, span), _returns_to_assign(e + rest, ret, span), sp))
                return tuple(out)
            case For() | While() | DoWhile() if _has_return((s,)):
                raise _unsupported("return inside a loop", s.span, "in an inlined device function")
            case _:
                out.append(s)
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# Rematerialisable variables


def _remat(f: Function) -> dict[str, Decl]:
    assigned: dict[str, int] = {}
    decls: dict[str, Decl] = {}
    in_loop: set[str] = set()

    def visit(stmts: Sequence[Stmt], loop: bool) -> None:
        for s in stmts:
            match s:
                case Decl(name, _, init):
                    assigned[name] = assigned.get(name, 0) + (1 if init is not None else 0)
                    decls[name] = s
                    if loop:
                        in_loop.add(name)
                case Assign(name) | Load(name) | Shuffle(name) | Vote(name):
                    assigned[name] = assigned.get(name, 0) + 2
                case Atomic(dst) if dst is not None:
                    assigned[dst] = assigned.get(dst, 0) + 2
                case Call(dst) if dst is not None:
                    assigned[dst] = assigned.get(dst, 0) + 2
                case Alloc(name):
                    assigned[name] = assigned.get(name, 0) + 2
                case If(_, t, e):
                    visit(t, loop)
                    visit(e, loop)
                case For(init, _, step, body):
                    visit(init, loop)
                    visit(body, True)
                    visit(step, True)
                case While(_, body) | DoWhile(body, _):
                    visit(body, True)
                case _:
                    pass

    visit(f.body, False)
    params = {p.name for p in f.params} | {s.name for s in walk_stmts(f.body) if isinstance(s, Alloc)}
    remat: dict[str, Decl] = {}
    changed = True
    while changed:
        changed = False
        for name, d in decls.items():
            if name in remat or assigned.get(name) != 1 or d.init is None or name in in_loop:
                continue
            if all(_pure_leaf(e, params, remat) for e in walk_exprs(d.init)):
                remat[name] = d
                changed = True
    return remat


def _pure_leaf(e: Expr, params: set[str], remat: Mapping[str, Decl]) -> bool:
    if isinstance(e, VarRef):
        return e.name in params or e.name in remat
    return True


# --------------------------------------------------------------------------------------------------
# Constant evaluation of loop control (C integer semantics)


def const_int(e: Expr, env: Mapping[str, int]) -> int | None:
    """The value of integer expression ``e`` if it is a compile-time constant given ``env``."""
    match e:
        case Const(value) if isinstance(value, int | bool):
            return int(value)
        case VarRef(name) if name in env:
            return env[name]
        case Cast(kind=CastKind.CONVERT, operand=op, type=t) if isinstance(t, ScalarType) and t.is_int:
            return const_int(op, env)
        case Unary(UnaryOp.NEG, op):
            v = const_int(op, env)
            return None if v is None else -v
        case Binary(op, lhs, rhs):
            a, b = const_int(lhs, env), const_int(rhs, env)
            if a is None or b is None:
                return None
            return _c_binary(op, a, b)
        case _:
            return None


def _c_binary(op: BinaryOp, a: int, b: int) -> int | None:
    match op:
        case BinaryOp.ADD:
            return a + b
        case BinaryOp.SUB:
            return a - b
        case BinaryOp.MUL:
            return a * b
        case BinaryOp.DIV:
            return None if b == 0 else trunc_div(a, b)
        case BinaryOp.REM:
            return None if b == 0 else trunc_rem(a, b)
        case BinaryOp.SHL:
            return a << b if 0 <= b < 64 else None
        case BinaryOp.SHR:
            return a >> b if 0 <= b < 64 else None
        case BinaryOp.BITAND:
            return a & b
        case BinaryOp.BITOR:
            return a | b
        case BinaryOp.BITXOR:
            return a ^ b
        case BinaryOp.LAND:
            return int(bool(a) and bool(b))
        case BinaryOp.LOR:
            return int(bool(a) or bool(b))
        case BinaryOp.EQ:
            return int(a == b)
        case BinaryOp.NE:
            return int(a != b)
        case BinaryOp.LT:
            return int(a < b)
        case BinaryOp.LE:
            return int(a <= b)
        case BinaryOp.GT:
            return int(a > b)
        case BinaryOp.GE:
            return int(a >= b)
        case BinaryOp.MIN:
            return min(a, b)
        case BinaryOp.MAX:
            return max(a, b)
        case _:
            assert_never(op)


_MAX_UNROLL = 4096


def unrolled_values(s: For) -> list[int] | None:
    """The loop variable's values if ``s`` is ``for (T v = c0; cond; v = f(v))`` with constant control."""
    if len(s.init) != 1 or not isinstance(s.init[0], Decl) or s.init[0].init is None or s.cond is None:
        return None
    var = s.init[0].name
    if len(s.step) != 1 or not isinstance(s.step[0], Assign) or s.step[0].name != var:
        return None
    if any(isinstance(x, Assign) and x.name == var for x in walk_stmts(s.body)):
        return None
    if any(isinstance(x, Break | Continue | Return) for x in walk_stmts(s.body)):
        return None
    v = const_int(s.init[0].init, {})
    values: list[int] = []
    while v is not None:
        c = const_int(s.cond, {var: v})
        if c is None:
            return None
        if not c:
            return values
        values.append(v)
        if len(values) > _MAX_UNROLL:
            return None
        v = const_int(s.step[0].value, {var: v})
    return None


# --------------------------------------------------------------------------------------------------
# Cutting the body into phases


class _Builder:
    def __init__(self, remat: Mapping[str, Decl], params: set[str], counter: itertools.count[int]) -> None:
        self.items: list[PhaseItem] = []
        self.pieces: list[Piece] = []
        self.remat = remat
        self.params = params
        self.counter = counter

    def add(self, guards: tuple[Expr, ...], s: Stmt) -> None:
        if self.pieces and self.pieces[-1].guards == guards:
            last = self.pieces[-1]
            self.pieces[-1] = Piece(guards, (*last.stmts, s))
        else:
            self.pieces.append(Piece(guards, (s,)))

    def close(self, ends: SyncKind, span: Span) -> None:
        self.items.append(Phase(next(self.counter), tuple(self.pieces), None, ends, span))
        self.pieces = []

    def exchange(self, guards: tuple[Expr, ...], s: Shuffle | Vote) -> None:
        self.close(SyncKind.WARP, s.span)
        self.items.append(Phase(next(self.counter), (), Exchange(guards, s), SyncKind.EXCHANGE, s.span))

    def rematerialisable(self, e: Expr, loop_vars: frozenset[str]) -> bool:
        for x in walk_exprs(e):
            if isinstance(x, VarRef) and not (x.name in self.params or x.name in self.remat or x.name in loop_vars):
                return False
        return True

    def uniform(self, e: Expr, loop_vars: frozenset[str]) -> bool:
        """Rematerialisable and independent of the thread (no threadIdx, directly or through variables)."""
        if not self.rematerialisable(e, loop_vars):
            return False
        for x in walk_exprs(e):
            if isinstance(x, Builtin) and x.reg.value == "threadIdx":
                return False
            if isinstance(x, VarRef) and x.name in self.remat:
                init = self.remat[x.name].init
                if init is not None and not self.uniform(init, loop_vars):
                    return False
        return True

    def split(self, stmts: Sequence[Stmt], guards: tuple[Expr, ...], loop_vars: frozenset[str]) -> None:
        for s in stmts:
            if not has_sync((s,)):
                self.add(guards, s)
                continue
            match s:
                case Barrier(scope):
                    self.close(SyncKind.BLOCK if scope is BarrierScope.BLOCK else SyncKind.WARP, s.span)
                case Shuffle() | Vote():
                    self.exchange(guards, s)
                case If(c, t, e):
                    if not (self.rematerialisable(c, loop_vars) or _is_live_flag(c)):
                        raise _unsupported(
                            "synchronisation under this condition",
                            s.span,
                            "the condition depends on values computed by the thread (guards must be "
                            "recomputable from parameters and thread ids)",
                        )
                    self.split(t, (*guards, c), loop_vars)
                    if e:
                        self.split(e, (*guards, Unary(UnaryOp.NOT, c, BOOL, c.span)), loop_vars)
                case For():
                    self.loop(s, guards, loop_vars)
                case While() | DoWhile():
                    raise _unsupported("synchronisation in a while loop", s.span, "loop control is not a counted for")
                case _:
                    raise _unsupported("synchronisation here", s.span, type(s).__name__)

    def loop(self, s: For, guards: tuple[Expr, ...], loop_vars: frozenset[str]) -> None:
        values = unrolled_values(s)
        if values is not None:
            init = s.init[0]
            assert isinstance(init, Decl)
            for v in values:
                body = substitute(s.body, {init.name: Const(v, _scalar(init.type), init.span)})
                self.split(body, guards, loop_vars)
            return
        control = _counted(s) or _halving(s)
        if control is None:
            raise _unsupported(
                "synchronisation in this loop",
                s.span,
                "loop control must be constant or `for (i = a; i < b; i += c)` with a constant step",
            )
        var, t, start, cmp, bound, step = control
        if not (self.uniform(start, loop_vars) and self.uniform(bound, loop_vars)):
            raise _unsupported("synchronisation in this loop", s.span, "its bounds differ between threads")
        inner = _Builder(self.remat, self.params, self.counter)
        inner.split(s.body, guards, loop_vars | {var})
        if not inner.pieces or not any(x.stmts for x in inner.pieces):
            # the cut at the loop's entry must not separate memory accesses the program does not order
            if any(_touches_memory(x) for p in self.pieces for x in walk_stmts(p.stmts)):
                raise _unsupported(
                    "synchronisation in this loop",
                    s.span,
                    "memory is accessed between the last synchronisation and the loop (insert __syncthreads())",
                )
            self.close(SyncKind.LOOP, s.span)
            self.items.append(PhaseLoop(var, t, start, cmp, bound, step, tuple(inner.items), s.span, halving=step == 0))
            return
        self.rotated(s, inner, var, t, start, cmp, bound, step)

    def rotated(
        self,
        s: For,
        inner: _Builder,
        var: str,
        t: ScalarType,
        start: Expr,
        cmp: BinaryOp,
        bound: Expr,
        step: int,
    ) -> None:
        """A loop of phases whose body ends with code after its last synchronisation: that tail runs in
        one phase with the next iteration's head (or, after the last iteration, with the code after the
        loop). The phases are the head of the first iteration (with the code before the loop), a loop
        over every iteration but the last (its middle phases, then its tail with the next head), and the
        last iteration's middle phases and tail, each guarded by the loop running at all."""
        head, *middle = inner.items
        if cmp not in (BinaryOp.LT, BinaryOp.LE) or step <= 0 or not isinstance(head, Phase) or head.exchange:
            raise _unsupported(
                "synchronisation in this loop", s.span, "a counting-down loop whose body does not end with a barrier"
            )
        if any(not isinstance(m, Phase) for m in middle):
            raise _unsupported(
                "synchronisation in this loop", s.span, "nested loops in a loop not ending with a barrier"
            )
        tail = inner.pieces
        it = Const(step, t, s.span)
        one = Const(1, t, s.span)
        bound_lt = bound if cmp is BinaryOp.LT else Binary(BinaryOp.ADD, bound, one, t, s.span)
        runs = Binary(BinaryOp.LT, start, bound_lt, BOOL, s.span)
        # the last value: start + ((bound - start - 1) / step) * step, where the loop runs
        span_e = Binary(BinaryOp.SUB, Binary(BinaryOp.SUB, bound_lt, start, t, s.span), one, t, s.span)
        last = Binary(
            BinaryOp.ADD,
            start,
            Binary(BinaryOp.MUL, Binary(BinaryOp.DIV, span_e, it, t, s.span), it, t, s.span),
            t,
            s.span,
        )
        nxt = Binary(BinaryOp.ADD, VarRef(var, t, s.span), it, t, s.span)

        def at(pieces: Sequence[Piece], value: Expr, extra: tuple[Expr, ...]) -> list[Piece]:
            return [
                Piece(
                    (*extra, *(substitute_expr(g, {var: value}) for g in p.guards)),
                    substitute(p.stmts, {var: value}),
                )
                for p in pieces
            ]

        def phase_at(ph: Phase, value: Expr, extra: tuple[Expr, ...]) -> Phase:
            ex = ph.exchange
            if ex is not None:
                (stmt,) = substitute((ex.stmt,), {var: value})
                assert isinstance(stmt, Shuffle | Vote)
                ex = Exchange((*extra, *(substitute_expr(g, {var: value}) for g in ex.guards)), stmt)
            return Phase(next(self.counter), tuple(at(ph.pieces, value, extra)), ex, ph.ends, ph.span)

        # 1. the code before the loop with the first head
        self.pieces.extend(at(head.pieces, start, (runs,)))
        self.close(head.ends, head.span)
        # 2. every iteration but the last: its middle phases, then its tail with the next head
        body: list[PhaseItem] = [phase_at(m, VarRef(var, t, s.span), ()) for m in middle if isinstance(m, Phase)]
        joined = [*tail, *at(head.pieces, nxt, ())]
        body.append(Phase(next(self.counter), tuple(joined), None, head.ends, head.span))
        bound_body = Binary(BinaryOp.SUB, bound_lt, it, t, s.span)
        self.items.append(PhaseLoop(var, t, start, BinaryOp.LT, bound_body, step, tuple(body), s.span))
        # 3. the last iteration's middle phases; its tail stays open, to run with the code after the loop
        for m in middle:
            if isinstance(m, Phase):
                self.items.append(phase_at(m, last, (runs,)))
        self.pieces.extend(at(tail, last, (runs,)))


def _halving(s: For) -> tuple[str, ScalarType, Expr, BinaryOp, Expr, int] | None:
    """``for (T v = start; v > 0; v >>= 1)`` (or ``v /= 2``) as ``(v, T, start, >, 0, 0)``."""
    if len(s.init) != 1 or not isinstance(s.init[0], Decl) or s.init[0].init is None or s.cond is None:
        return None
    d = s.init[0]
    if not isinstance(d.type, ScalarType) or not d.type.is_int:
        return None
    c = s.cond
    if not (isinstance(c, Binary) and c.op is BinaryOp.GT and isinstance(_strip_int_casts(c.lhs), VarRef)):
        return None
    lhs = _strip_int_casts(c.lhs)
    if not (isinstance(lhs, VarRef) and lhs.name == d.name and const_int(c.rhs, {}) == 0):
        return None
    if len(s.step) != 1 or not isinstance(s.step[0], Assign) or s.step[0].name != d.name:
        return None
    st = _strip_int_casts(s.step[0].value)
    if not (isinstance(st, Binary) and isinstance(_strip_int_casts(st.lhs), VarRef)):
        return None
    if not (
        (st.op is BinaryOp.SHR and const_int(st.rhs, {}) == 1) or (st.op is BinaryOp.DIV and const_int(st.rhs, {}) == 2)
    ):
        return None
    if any(isinstance(x, Assign) and x.name == d.name for x in walk_stmts(s.body)):
        return None
    if any(isinstance(x, Break | Continue | Return) for x in walk_stmts(s.body)):
        return None
    assert d.init is not None
    return d.name, d.type, d.init, BinaryOp.GT, c.rhs, 0


def _scalar(t: object) -> ScalarType:
    assert isinstance(t, ScalarType)
    return t


def _touches_memory(s: Stmt) -> bool:
    return isinstance(s, Load | Store | Atomic)


def counted_loop(s: For, *, constant_step: bool = True) -> tuple[str, ScalarType, Expr, BinaryOp, Expr, Expr] | None:
    """``(var, type, start, cmp, bound, step)`` if ``s`` is ``for (T var = start; var <cmp> bound; var ±= step)``
    counting up with ``+=`` and ``<``/``<=`` or down with ``-=`` and ``>``/``>=``, with ``var`` assigned
    nowhere else and no ``break``/``continue``/``return`` in the body. ``step`` is the magnitude; with
    ``constant_step`` it must be a positive constant."""
    if len(s.init) != 1 or not isinstance(s.init[0], Decl) or s.init[0].init is None or s.cond is None:
        return None
    d = s.init[0]
    if not isinstance(d.type, ScalarType) or not d.type.is_int:
        return None
    if not (isinstance(s.cond, Binary) and isinstance(s.cond.lhs, VarRef) and s.cond.lhs.name == d.name):
        return None
    if s.cond.op not in (BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE):
        return None
    if len(s.step) != 1 or not isinstance(s.step[0], Assign) or s.step[0].name != d.name:
        return None
    st = _strip_int_casts(s.step[0].value)
    if not (isinstance(st, Binary) and isinstance(_strip_int_casts(st.lhs), VarRef)):
        return None
    lhs = _strip_int_casts(st.lhs)
    if not (isinstance(lhs, VarRef) and lhs.name == d.name) or st.op not in (BinaryOp.ADD, BinaryOp.SUB):
        return None
    if (st.op is BinaryOp.ADD) != (s.cond.op in (BinaryOp.LT, BinaryOp.LE)):
        return None
    c = const_int(st.rhs, {})
    if (constant_step or c is not None) and (c is None or c <= 0):
        return None
    names = {x.name for x in walk_exprs((s.cond.rhs, st.rhs)) if isinstance(x, VarRef)} | {d.name}
    if any(isinstance(x, Assign | Decl) and x.name in names for x in walk_stmts(s.body)):
        return None
    if any(isinstance(x, Break | Continue | Return) for x in walk_stmts(s.body)):
        return None
    assert d.init is not None
    return d.name, d.type, d.init, s.cond.op, s.cond.rhs, st.rhs


def _strip_int_casts(e: Expr) -> Expr:
    """``e`` without integer-to-integer conversions around it (exact in the models that use this: their
    wrap-around is outside them, and larkc's prover checks it does not happen)."""
    while (
        isinstance(e, Cast)
        and e.kind is CastKind.CONVERT
        and isinstance(e.type, ScalarType)
        and e.type.is_int
        and isinstance(e.operand.type, ScalarType)
        and e.operand.type.is_int
    ):
        e = e.operand
    return e


def _counted(s: For) -> tuple[str, ScalarType, Expr, BinaryOp, Expr, int] | None:
    control = counted_loop(s)
    if control is None:
        return None
    var, t, start, cmp, bound, step = control
    c = const_int(step, {})
    assert c is not None
    return var, t, start, cmp, bound, c if cmp in (BinaryOp.LT, BinaryOp.LE) else -c


def _carried(
    items: Sequence[PhaseItem], remat: Mapping[str, Decl], params: set[str], arrays: set[str]
) -> tuple[str, ...]:
    """Variables some phase reads without declaring them itself (so they come from an earlier phase)."""
    order: list[str] = []
    seen: set[str] = set()
    for ph in iter_phases(items):
        nodes: list[Any] = list(ph.pieces)
        if ph.exchange is not None:
            nodes.append(ph.exchange)
        declared = {s.name for p in ph.pieces for s in walk_stmts(p.stmts) if isinstance(s, Decl)}
        for n in nodes:
            for e in walk_exprs(n):
                name = e.name if isinstance(e, VarRef) else None
                if name is None or name in declared or name in remat or name in params or name in arrays:
                    continue
                if name not in seen:
                    seen.add(name)
                    order.append(name)
            stmts = n.stmts if isinstance(n, Piece) else ()
            for s in walk_stmts(stmts):
                if isinstance(s, Assign) and s.name not in declared and s.name not in seen:
                    seen.add(s.name)
                    order.append(s.name)
    return tuple(order)


def phase_form(module: Module, kernel: Function, block: Sequence[int | None] = ()) -> PhaseForm:
    """The phase form of ``kernel`` (a kernel of ``module``; a block-level kernel is one phase run by
    every program, see :func:`_block_phase_form`).

    ``block`` gives the launch's block dimensions (x, y, z) where they are constants (``None`` where
    they depend on the shapes): loops over them with synchronisation inside can then be unrolled.

    Raises :class:`UnsupportedError` (stage ``lower``) with the location of a construct it cannot cut.
    """
    if kernel.level is Level.BLOCK:
        return _block_phase_form(module, kernel)
    try:
        body = _Inliner(module).stmts(kernel.body, 0)
        body = _fold_block_dims(body, block)
        body = _early_exits(body, kernel.span)
        inlined = dataclasses.replace(kernel, body=body)
        remat = _remat(inlined)
        params = {p.name for p in kernel.params}
        b = _Builder(remat, params, itertools.count())
        b.split(body, (), frozenset())
        b.close(SyncKind.END, kernel.span)
    except LarkcError:
        raise
    arrays = {s.name for s in walk_stmts(body) if isinstance(s, Alloc)} | set(_loop_vars(b.items))
    return PhaseForm(inlined, tuple(b.items), remat, _carried(b.items, remat, params, arrays))


def _block_phase_form(module: Module, kernel: Function) -> PhaseForm:
    """The phase form of a block-level (Triton) kernel: one phase, in which every program runs its
    whole body as one thread of its own (block ``pid``, thread 0, block size 1).

    A Triton program is sequential code over blocks of values: nothing in it synchronises with another
    program, so there is nothing to cut at. ``tl.debug_barrier()`` orders the GPU threads that carry
    one program between themselves; at the level of the program's values it is a no-op, and it is
    dropped. Calls are inlined and early returns clear :data:`LIVE`, as at thread level.
    """
    body = _Inliner(module).stmts(kernel.body, 0)
    for s in walk_stmts(body):
        if isinstance(s, While | DoWhile) and any(isinstance(t, Atomic) for t in walk_stmts(s.body)):
            # programs that wait for each other (a spin lock): their meaning is the simulator's schedule
            # and happens-before through atomics, which one phase of independent programs does not state
            raise _unsupported("spin loop", s.span, "a while loop around an atomic (programs waiting for each other)")
    body = _drop_barriers(body)
    body = _early_exits(body, kernel.span)
    inlined = dataclasses.replace(kernel, body=body)
    remat = _remat(inlined)
    phase = Phase(0, (Piece((), body),) if body else (), None, SyncKind.END, kernel.span)
    combiners: dict[str, Function] = {}
    for e in walk_exprs(body):
        if isinstance(e, Combine) and e.func not in combiners:
            f = module.function(e.func)
            if f is None:
                raise _unsupported("combine", e.span, f"{e.func} (no body)")
            combiners[e.func] = f
    return PhaseForm(inlined, (phase,), remat, (), combiners)


def _drop_barriers(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """``stmts`` without block barriers, at every depth (see :func:`_block_phase_form`)."""
    out: list[Stmt] = []
    for s in stmts:
        match s:
            case Barrier():
                continue
            case If(c, t, e, span):
                out.append(If(c, _drop_barriers(t), _drop_barriers(e), span))
            case For(init, cond, step, body, unroll, span):
                out.append(For(init, cond, step, _drop_barriers(body), unroll, span))
            case While(c, body, span):
                out.append(While(c, _drop_barriers(body), span))
            case DoWhile(body, c, span):
                out.append(DoWhile(_drop_barriers(body), c, span))
            case _:
                out.append(s)
    return tuple(out)


#: The flag an early ``return`` of a kernel clears: the thread's later code (and phases) run under it.
LIVE = "thread.live"


def _is_live_flag(e: Expr) -> bool:
    return isinstance(e, VarRef) and e.name == LIVE


def _early_exits(body: tuple[Stmt, ...], span: Span) -> tuple[Stmt, ...]:
    """``body`` with the kernel's ``return``s replaced by clearing :data:`LIVE`, the code after a
    statement that may return guarded by it (returns inside loops: unsupported)."""
    if not _has_return(body):
        return body
    for s in walk_stmts(body):
        if isinstance(s, For | While | DoWhile) and _has_return((s,)):
            raise _unsupported("return inside a loop", s.span, "in a kernel (use a flag or restructure)")
    live = VarRef(LIVE, BOOL, span)

    def conv(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for i, st in enumerate(stmts):
            rest = stmts[i + 1 :]
            match st:
                case Return():
                    out.append(Assign(LIVE, Const(False, BOOL, st.span), st.span))
                    return tuple(out)
                case If(c, t, e, sp) if _has_return(t) or _has_return(e):
                    out.append(If(c, conv(t), conv(e), sp))
                    if rest:
                        out.append(If(live, conv(rest), (), sp))
                    return tuple(out)
                case _:
                    out.append(st)
        return tuple(out)

    return (Decl(LIVE, BOOL, Const(True, BOOL, span), span), *conv(body))


def _loop_vars(items: Sequence[PhaseItem]) -> Iterator[str]:
    for it in items:
        if isinstance(it, PhaseLoop):
            yield it.var
            yield from _loop_vars(it.body)


def _fold_block_dims(body: tuple[Stmt, ...], block: Sequence[int | None]) -> tuple[Stmt, ...]:
    """``blockDim.x/y/z`` replaced by the launch's constants where known."""

    def rep(e: Expr) -> Expr | None:
        if isinstance(e, Builtin) and e.reg is BuiltinReg.BLOCK_DIM:
            k = e.dim.index
            value = block[k] if k < len(block) else None
            if value is not None:
                return Const(value, e.type, e.span)
            if k >= len(block) and block:
                return Const(1, e.type, e.span)
        return None

    out: tuple[Stmt, ...] = _map_node(body, rep, None)
    return out


#: Block barriers passed before a statement: ``(start, period)`` stands for ``start + period * k`` for
#: every iteration ``k >= 0`` of the loop of phases holding it (``period`` 0 outside loops).
Interval = tuple[int, int]


def block_intervals(form: PhaseForm) -> dict[Span, frozenset[Interval]] | None:
    """Where the phase form places each statement, counted in block barriers passed before it.

    Maps the span of every statement of a phase up to the end of the first top-level
    :class:`PhaseLoop` (a loop of phases without nested loops of phases) to the barrier counts of the
    phases holding it: several where a loop was unrolled, a function inlined twice, or a loop rotated
    (its head runs before the loop and with the previous iteration's tail). This is the barrier
    interval that a thread-level analysis counting barriers along one path must find for an access of
    that statement; the parametric prover checks its own counts against it (see :func:`covers`).

    ``None`` when the counts are not comparable: a block barrier under a condition other than the live
    flag puts the phases of both arms in sequence, so a path through one arm passes fewer barriers than
    the phase numbering says.
    """
    for s in walk_stmts(form.kernel.body):
        if isinstance(s, If) and not _is_live_flag(s.cond) and _has_block_barrier((s,)):
            return None
    out: dict[Span, set[Interval]] = {}

    def record(ph: Phase, start: int, period: int) -> None:
        for piece in ph.pieces:
            for s in walk_stmts(piece.stmts):
                out.setdefault(s.span, set()).add((start, period))

    count = 0
    for it in form.items:
        if isinstance(it, Phase):
            record(it, count, 0)
            count += it.ends is SyncKind.BLOCK
            continue
        if any(isinstance(x, PhaseLoop) for x in it.body):
            break
        per_iteration = sum(x.ends is SyncKind.BLOCK for x in it.body if isinstance(x, Phase))
        offset = 0
        for x in it.body:
            assert isinstance(x, Phase)
            record(x, count + offset, per_iteration)
            offset += x.ends is SyncKind.BLOCK
        break  # after a loop of barriers the count depends on its trip count
    return {k: frozenset(v) for k, v in out.items()}


def covers(places: frozenset[Interval], start: int, period: int) -> bool:
    """Whether the counts ``start + period * k`` (every ``k >= 0``; just ``start`` when ``period`` is 0)
    all lie in ``places`` (from :func:`block_intervals`). A rotated loop's head is placed once before
    the loop and then periodically, so one leading count may be covered on its own."""

    def on(c: int, s: int, p: int) -> bool:  # c is one of s + p*k, k >= 0
        return c == s if p == 0 else c >= s and (c - s) % p == 0

    def periodic(c: int) -> bool:  # c + period*k lies on a progression of the same period, for every k
        return any(p == period and on(c, s, p) for s, p in places)

    if period == 0:
        return any(on(start, s, p) for s, p in places)
    return periodic(start) or (any(on(start, s, p) for s, p in places) and periodic(start + period))


def _has_block_barrier(stmts: Sequence[Stmt]) -> bool:
    return any(isinstance(s, Barrier) and s.scope is BarrierScope.BLOCK for s in walk_stmts(stmts))
