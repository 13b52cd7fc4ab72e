"""Mutants of a kernel's IR, for the mutation test of ``larkc verify``'s soundness (docs/mutation.md).

:func:`enumerate_mutants` walks the kernel of a :class:`~larkc.ir.nodes.Module` and the device
functions it calls, in pre-order, and yields every mutant of every :class:`MutationKind` that still
passes :func:`~larkc.ir.verify.verify_module`. Each mutant changes one place: one node replaced, or one
statement deleted. The order is fixed (functions in module order, nodes in pre-order, kinds in their
declaration order, variants in a fixed order), so a mutant's :attr:`Mutant.key` names it across runs;
:func:`sample_mutants` draws a seeded, kind-balanced sample from that list.

The rules read a few roles off the tree: an *index expression* is an integer expression inside a
``ptradd`` offset or inside the value of an integer variable (indices are computed in ``let``s); an
*accumulation* is ``v = v op e`` (also on a vector lane through ``insert``/``extract``), a store of
``a op b``, or an atomic; a *loop condition* is the condition of a ``for``/``while``/``do``.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace

from larkc.errors import LarkcError
from larkc.ir import verify_module
from larkc.ir.nodes import (
    Assign,
    Atomic,
    AtomicOp,
    Barrier,
    Binary,
    BinaryOp,
    Builtin,
    BuiltinReg,
    Call,
    Cast,
    Const,
    Decl,
    Dim,
    DoWhile,
    Expr,
    Extract,
    For,
    Function,
    FunctionKind,
    If,
    Insert,
    Load,
    MakeVector,
    MathCall,
    MathFn,
    Module,
    PtrAdd,
    Select,
    Store,
    Unary,
    VarRef,
    While,
)
from larkc.ir.printer import print_expr
from larkc.ir.types import BOOL, AddressSpace, PointerType, ScalarType, Type
from larkc.ir.values import round_float

__all__ = [
    "DELETE",
    "AtParent",
    "Mutant",
    "MutationKind",
    "Path",
    "Site",
    "apply_at",
    "enumerate_mutants",
    "kernel_of",
    "reachable_functions",
    "sample_mutants",
    "walk",
]


class MutationKind(enum.Enum):
    """What a mutant changes. The value is the kind's name in result tables."""

    #: a comparison outside loop conditions: < to <=, > to >= (and back), an int constant in it +-1
    GUARD_OFF_BY_ONE = "guard-off-by-one"
    #: an index's roles swapped: X*S + Y to Y*S + X, A - B to B - A, threadIdx/blockIdx .x to .y
    INDEX_SWAP = "index-swap"
    #: a ptradd offset +-1
    INDEX_SHIFT = "index-shift"
    #: a barrier.block or barrier.warp statement removed
    BARRIER_DELETED = "barrier-deleted"
    #: a float constant inside an expression: times 2, plus 1, or 0
    FLOAT_CONSTANT = "float-constant"
    #: an accumulation's + to max, min or -; max to min and min to max (on any float max/min)
    REDUCTION_OP = "reduction-op"
    #: an if condition to true (or to one conjunct), a load/store mask removed, an index select to one branch
    GUARD_DROPPED = "guard-dropped"
    #: a loop step's increment +1 or *2; an index multiplier +-1, +1 or another parameter
    STRIDE = "stride"
    #: a float variable's constant initial value: 0 to -inf or 1, anything else to 0
    INIT = "init"
    #: an added constant or float parameter removed, or moved across the enclosing * or /, or math call
    EPS_MOVED = "eps-moved"
    #: a loop condition's bound +-1, or replaced by another variable of its type
    LOOP_BOUND = "loop-bound"
    #: exp<->exp2, exp10->exp, log<->log2, sqrt<->rsqrt, sin<->cos
    MATH_SWAP = "math-swap"


#: A place in a function: field names and tuple indices from the :class:`Function` down to the node.
Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Site:
    """A node of a function, where it is, and the nodes enclosing it (the function first)."""

    node: object
    path: Path
    parents: tuple[object, ...]

    @property
    def parent(self) -> object:
        return self.parents[-1]

    @property
    def role(self) -> str:
        """The field of the parent that holds the node (``elems`` for a tuple element)."""
        for step in reversed(self.path):
            if isinstance(step, str):
                return step
        raise AssertionError("a site below a function has a field name in its path")


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutation of a module: its kind, where, what it does, and the mutated module."""

    kind: MutationKind
    function: str
    path: Path
    description: str
    module: Module

    @property
    def key(self) -> str:
        """A stable name: the same mutant of the same module gets the same key in every run."""
        where = ".".join(str(p) for p in self.path)
        return f"{self.kind.value}|{self.function}|{where}|{self.description}"


# --------------------------------------------------------------------------------------------------
# Walking and rewriting


def _is_node(x: object) -> bool:
    return is_dataclass(x) and not isinstance(x, type) and type(x).__module__ == "larkc.ir.nodes"


def walk(x: object, path: Path = (), parents: tuple[object, ...] = ()) -> Iterator[Site]:
    """Every node below ``x`` (``x`` included), in pre-order, with its path and enclosing nodes."""
    if isinstance(x, tuple):
        for i, item in enumerate(x):
            yield from walk(item, (*path, i), parents)
        return
    if not _is_node(x):
        return
    yield Site(x, path, parents)
    for f in fields(x):  # type: ignore[arg-type]  # _is_node checked it is a dataclass instance
        if f.name != "span":
            yield from walk(getattr(x, f.name), (*path, f.name), (*parents, x))


class _Delete:
    """The replacement that removes a statement from its tuple."""


DELETE = _Delete()


@dataclass(frozen=True, slots=True)
class AtParent:
    """A replacement of the site's parent rather than of the site (moving a term across its parent)."""

    node: object


def apply_at(x: object, path: Path, new: object) -> object:
    """``x`` with the node at ``path`` replaced by ``new`` (removed from its tuple if ``new`` is DELETE)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        assert isinstance(x, tuple)
        if not rest and new is DELETE:
            return x[:head] + x[head + 1 :]
        return (*x[:head], apply_at(x[head], rest, new), *x[head + 1 :])
    changed: dict[str, object] = {head: apply_at(getattr(x, head), rest, new)}
    return replace(x, **changed)  # type: ignore[type-var]  # x is a node (a dataclass instance)


def reachable_functions(module: Module, kernel: str) -> list[Function]:
    """The kernel and the device functions it calls, directly or not, in module order."""
    names = {kernel}
    todo = [kernel]
    while todo:
        f = module.function(todo.pop())
        if f is None:
            continue
        for site in walk(f.body):
            if isinstance(site.node, Call) and site.node.func not in names:
                names.add(site.node.func)
                todo.append(site.node.func)
    return [f for f in module.functions if f.name in names]


# --------------------------------------------------------------------------------------------------
# Small helpers over expressions


def _scalar(t: Type) -> ScalarType | None:
    return t if isinstance(t, ScalarType) else None


def _is_int(t: Type) -> bool:
    s = _scalar(t)
    return s is not None and s.is_int


def _is_float(t: Type) -> bool:
    s = _scalar(t)
    return s is not None and s.is_float


def _type_of(e: object) -> Type:
    t = getattr(e, "type", None)
    assert t is not None, f"{type(e).__name__} has no type"
    return t  # type: ignore[no-any-return]


def _plus(e: Expr, k: int) -> Expr:
    """``e + k`` for an int expression: a constant folded, anything else as ``(e + k)`` / ``(e - |k|)``."""
    t = _type_of(e)
    assert isinstance(t, ScalarType)
    if isinstance(e, Const) and isinstance(e.value, int):
        return Const(e.value + k, t, e.span)
    op = BinaryOp.ADD if k > 0 else BinaryOp.SUB
    return Binary(op, e, Const(abs(k), t), t, e.span)


def _times(e: Expr, k: int) -> Expr:
    t = _type_of(e)
    assert isinstance(t, ScalarType)
    if isinstance(e, Const) and isinstance(e.value, int):
        return Const(e.value * k, t, e.span)
    return Binary(BinaryOp.MUL, e, Const(k, t), t, e.span)


def _with_side(e: Binary, side: str, new: Expr) -> Binary:
    """``e`` with its ``side`` operand (``"lhs"`` or ``"rhs"``) replaced by ``new``."""
    return replace(e, lhs=new) if side == "lhs" else replace(e, rhs=new)


def _uncast(e: Expr) -> Expr:
    while isinstance(e, Cast):
        e = e.operand
    return e


def _mentions(e: object, name: str) -> bool:
    return any(isinstance(s.node, VarRef) and s.node.name == name for s in walk(e))


def _show(e: Expr) -> str:
    return print_expr(e)


def _visible(site: Site, f: Function) -> list[tuple[str, Type]]:
    """The variables in scope at ``site``: by-value parameters, then the declarations of every
    enclosing statement list before the statement that holds the site, outermost first."""
    out: list[tuple[str, Type]] = [(p.name, p.type) for p in f.params if not p.by_ref]
    x: object = f
    for step in site.path:
        if isinstance(step, int):
            assert isinstance(x, tuple)
            out += [(d.name, d.type) for d in x[:step] if isinstance(d, Decl)]
            x = x[step]
        else:
            if isinstance(x, For) and step != "init":
                out += [(d.name, d.type) for d in x.init if isinstance(d, Decl)]
            x = getattr(x, step)
    return out


def _in_index(site: Site) -> bool:
    """Whether the node is part of an index: a ptradd offset, or the value of an integer variable."""
    for parent, step in zip(reversed(site.parents), _field_steps(site), strict=False):
        if isinstance(parent, PtrAdd) and step == "offset":
            return True
        if isinstance(parent, Decl) and step == "init" and _is_int(parent.type):
            return True
        if isinstance(parent, Assign) and step == "value" and _is_int(_type_of(parent.value)):
            return True
        if not isinstance(parent, Binary | Cast | Unary | Select):
            return False  # an index is built from arithmetic only
    return False


def _field_steps(site: Site) -> list[str]:
    """The field names of ``site.path``, innermost first (one per enclosing node)."""
    return [p for p in reversed(site.path) if isinstance(p, str)]


def _in_loop_condition(site: Site) -> bool:
    for parent, step in zip(reversed(site.parents), _field_steps(site), strict=False):
        if isinstance(parent, For | While | DoWhile):
            return step == "cond"
        if not isinstance(parent, Binary | Cast | Unary):
            return False
    return False


def _whole_value(site: Site) -> bool:
    """Whether the node is the whole value given to a variable (or a lane of a vector so given)."""
    parent = site.parent
    if (isinstance(parent, Decl) and site.role == "init") or (isinstance(parent, Assign) and site.role == "value"):
        return True
    if isinstance(parent, MakeVector) and len(site.parents) >= 2:
        grand = site.parents[-2]
        return isinstance(grand, Decl | Assign)
    return False


_FLIP = {BinaryOp.LT: BinaryOp.LE, BinaryOp.LE: BinaryOp.LT, BinaryOp.GT: BinaryOp.GE, BinaryOp.GE: BinaryOp.GT}
_MATH_SWAP: dict[MathFn, tuple[MathFn, ...]] = {
    MathFn.EXP: (MathFn.EXP2,),
    MathFn.EXP2: (MathFn.EXP,),
    MathFn.EXP10: (MathFn.EXP,),
    MathFn.LOG: (MathFn.LOG2,),
    MathFn.LOG2: (MathFn.LOG,),
    MathFn.SQRT: (MathFn.RSQRT,),
    MathFn.RSQRT: (MathFn.SQRT,),
    MathFn.SIN: (MathFn.COS,),
    MathFn.COS: (MathFn.SIN,),
}

#: A variant of a site: what it does (in words) and the replacement node (or DELETE, or AtParent).
Variant = tuple[str, object]
Rule = Callable[[Site, Function], Iterator[Variant]]


# --------------------------------------------------------------------------------------------------
# The rules, one per kind


def _guard_off_by_one(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if not isinstance(e, Binary) or e.op not in _FLIP or _in_loop_condition(site):
        return
    yield f"{e.op.value} to {_FLIP[e.op].value}", replace(e, op=_FLIP[e.op])
    for side in ("lhs", "rhs"):
        c = getattr(e, side)
        if isinstance(c, Const) and _is_int(c.type):
            for k in (1, -1):
                yield f"{side} constant {c.value} to {c.value + k}", _with_side(e, side, _plus(c, k))


def _index_swap(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if isinstance(e, Builtin) and e.reg in (BuiltinReg.THREAD_IDX, BuiltinReg.BLOCK_IDX) and _in_index(site):
        dim = {Dim.X: Dim.Y, Dim.Y: Dim.X}.get(e.dim)
        if dim is not None:
            yield f"{e.reg.value}.{e.dim.value} to .{dim.value}", replace(e, dim=dim)
        return
    if not isinstance(e, Binary) or not _is_int(e.type) or not _in_index(site):
        return
    if e.op is BinaryOp.SUB:
        yield "operands of - swapped", replace(e, lhs=e.rhs, rhs=e.lhs)
    if e.op is BinaryOp.ADD:
        for prod, other, side in ((e.lhs, e.rhs, "lhs"), (e.rhs, e.lhs, "rhs")):
            if isinstance(prod, Binary) and prod.op is BinaryOp.MUL and prod.lhs != other:
                moved = replace(prod, lhs=other)
                new = replace(e, lhs=moved, rhs=prod.lhs) if side == "lhs" else replace(e, lhs=prod.lhs, rhs=moved)
                yield f"X*S + Y to Y*S + X ({_show(prod.lhs)} and {_show(other)})", new


def _index_shift(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if isinstance(e, PtrAdd):
        for k in (1, -1):
            yield f"offset {k:+d}", replace(e, offset=_plus(e.offset, k))


def _barrier_deleted(site: Site, f: Function) -> Iterator[Variant]:
    if isinstance(site.node, Barrier):
        yield f"barrier.{site.node.scope.value} removed", DELETE


def _float_variants(c: Const, t: ScalarType) -> Iterator[tuple[str, float]]:
    v = c.value
    assert isinstance(v, float)
    for what, new in (("times 2", v * 2), ("plus 1", v + 1), ("to 0", 0.0)):
        r = round_float(new, t)
        if not math.isnan(r) and Const(r, t) != c:
            yield f"{v!r} {what}", r


def _float_constant(site: Site, f: Function) -> Iterator[Variant]:
    c = site.node
    if not isinstance(c, Const) or not isinstance(c.type, ScalarType) or not c.type.is_float or _whole_value(site):
        return
    for what, r in _float_variants(c, c.type):
        yield what, Const(r, c.type, c.span)


def _accumulated(e: Binary, target: str | None, lane: Expr | None) -> bool:
    """Whether one operand of ``e`` is the variable ``target`` (or its lane ``lane``)."""
    for x in (e.lhs, e.rhs):
        if lane is None and isinstance(x, VarRef) and x.name == target:
            return True
        if (
            lane is not None
            and isinstance(x, Extract)
            and isinstance(x.vector, VarRef)
            and x.vector.name == target
            and x.index == lane
        ):
            return True
    return False


_REDUCE_TO = {
    BinaryOp.ADD: (BinaryOp.MAX, BinaryOp.MIN, BinaryOp.SUB),
    BinaryOp.MAX: (BinaryOp.MIN,),
    BinaryOp.MIN: (BinaryOp.MAX,),
}
_ATOMIC_TO = {AtomicOp.ADD: (AtomicOp.MAX, AtomicOp.MIN), AtomicOp.MAX: (AtomicOp.MIN,), AtomicOp.MIN: (AtomicOp.MAX,)}


def _reduction_op(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if isinstance(e, Atomic):
        for aop in _ATOMIC_TO.get(e.op, ()):
            yield f"atomic.{e.op.value} to atomic.{aop.value}", replace(e, op=aop)
        return
    if not isinstance(e, Binary) or not _is_float(e.type) or e.op not in _REDUCE_TO:
        return
    parent = site.parent
    accumulation = False
    if isinstance(parent, Assign) and site.role == "value":
        accumulation = _accumulated(e, parent.name, None)
    elif isinstance(parent, Insert) and site.role == "value" and isinstance(parent.vector, VarRef):
        accumulation = _accumulated(e, parent.vector.name, parent.index)
    elif isinstance(parent, Store) and site.role == "value":
        ptr = _type_of(parent.ptr)  # a tree reduction step in shared memory: s[i] = s[i] op s[i + k]
        accumulation = isinstance(ptr, PointerType) and ptr.space is AddressSpace.SHARED
    if accumulation or e.op is not BinaryOp.ADD:  # every float max/min is a reduction operator
        for op in _REDUCE_TO[e.op]:
            yield f"{e.op.value} to {op.value}", replace(e, op=op)


def _guard_dropped(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    true = Const(True, BOOL)
    if isinstance(e, If) and e.cond != true:
        yield "if condition to true", replace(e, cond=true)
        if isinstance(e.cond, Binary) and e.cond.op is BinaryOp.LAND:
            yield "if condition to its first conjunct", replace(e, cond=e.cond.lhs)
            yield "if condition to its second conjunct", replace(e, cond=e.cond.rhs)
    elif isinstance(e, Load | Store | Atomic) and e.mask is not None:
        yield "mask removed", replace(e, mask=None, other=None) if isinstance(e, Load) else replace(e, mask=None)
    elif isinstance(e, Select) and _in_index(site):
        yield "index select's condition to true", replace(e, cond=true)


def _stride(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if isinstance(e, For):
        yield from _loop_step(e)
    elif isinstance(e, Binary) and e.op is BinaryOp.MUL and _is_int(e.type) and _in_index(site):
        side = "lhs" if isinstance(e.lhs, Const) and not isinstance(e.rhs, Const) else "rhs"
        s: Expr = getattr(e, side)
        if isinstance(s, Const) and isinstance(s.value, int):
            for k in (1, -1):
                if s.value + k > 0:
                    yield f"multiplier {s.value} to {s.value + k}", _with_side(e, side, _plus(s, k))
            return
        yield f"multiplier {_show(s)} plus 1", _with_side(e, side, _plus(s, 1))
        other = getattr(e, "lhs" if side == "rhs" else "rhs")
        for name, t in [(p.name, p.type) for p in f.params if not p.by_ref]:
            if t == s.type and not _mentions(s, name) and not _mentions(other, name):
                yield f"multiplier {_show(s)} to %{name}", _with_side(e, side, VarRef(name, t))
                break


_STEP_OPS = (BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV, BinaryOp.SHR)


def _loop_step(loop: For) -> Iterator[Variant]:
    """Variants of a for loop whose step is ``i = op(i, s)`` (through casts): ``s`` made +1 or *2."""
    for k, st in enumerate(loop.step):
        if not isinstance(st, Assign):
            continue
        for site in walk(st.value, ("step", k, "value")):
            b = site.node
            if not isinstance(b, Binary) or b.op not in _STEP_OPS:
                continue
            if not _mentions(_uncast(b.lhs), st.name) or _mentions(b.rhs, st.name):
                continue
            done: set[object] = set()
            for what, new in (("plus 1", _plus(b.rhs, 1)), ("times 2", _times(b.rhs, 2))):
                if new not in done:
                    done.add(new)
                    yield f"step {_show(b.rhs)} {what}", apply_at(loop, (*site.path, "rhs"), new)
            return


def _init(site: Site, f: Function) -> Iterator[Variant]:
    c = site.node
    if not isinstance(c, Const) or not isinstance(c.type, ScalarType) or not c.type.is_float or not _whole_value(site):
        return
    targets = (-math.inf, 1.0) if c.value == 0.0 else (0.0,)
    for v in targets:
        yield f"initial value {c.value!r} to {v!r}", Const(v, c.type, c.span)


def _is_eps(e: Expr, f: Function) -> bool:
    """A non-zero float constant, or a float parameter that ``f`` never assigns (a task's ``eps``)."""
    if isinstance(e, Const):
        return _is_float(e.type) and e.value != 0.0
    if isinstance(e, VarRef) and _is_float(e.type) and any(p.name == e.name for p in f.params):
        return not any(isinstance(s.node, Assign) and s.node.name == e.name for s in walk(f.body))
    return False


def _eps_moved(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if not isinstance(e, Binary) or e.op is not BinaryOp.ADD or not _is_float(e.type):
        return
    for eps, rest in ((e.rhs, e.lhs), (e.lhs, e.rhs)):
        if not _is_eps(eps, f) or _is_eps(rest, f):
            continue
        name = _show(eps)
        yield f"{name} removed", rest

        def plus(x: Expr, eps: Expr = eps) -> Expr:
            return Binary(BinaryOp.ADD, x, eps, e.type, e.span)

        if isinstance(rest, Binary) and rest.op in (BinaryOp.MUL, BinaryOp.DIV):
            yield f"{name} moved into the {rest.op.value}'s right operand", replace(rest, rhs=plus(rest.rhs))
            yield f"{name} moved into the {rest.op.value}'s left operand", replace(rest, lhs=plus(rest.lhs))
        if isinstance(rest, MathCall) and len(rest.args) == 1:
            yield f"{name} moved inside {rest.fn.value}", replace(rest, args=(plus(rest.args[0]),))
        parent = site.parent
        if isinstance(parent, Binary) and parent.op in (BinaryOp.MUL, BinaryOp.DIV):
            if site.role == "lhs":
                moved = replace(parent, lhs=rest, rhs=plus(parent.rhs))
            else:
                moved = replace(parent, lhs=plus(parent.lhs), rhs=rest)
            yield f"{name} moved to the other operand of the {parent.op.value}", AtParent(moved)
        if isinstance(parent, MathCall) and len(parent.args) == 1:
            yield f"{name} moved outside {parent.fn.value}", AtParent(plus(replace(parent, args=(rest,))))
        return


def _loop_bound(site: Site, f: Function) -> Iterator[Variant]:
    loop = site.node
    if not isinstance(loop, For | While | DoWhile) or loop.cond is None:
        return
    cond = loop.cond
    if not isinstance(cond, Binary) or not cond.op.is_comparison:
        return
    counters = {s.name for s in loop.init if isinstance(s, Decl)} if isinstance(loop, For) else set()
    side = "lhs" if any(_mentions(cond.rhs, c) for c in counters) else "rhs"
    bound: Expr = getattr(cond, side)
    t = _type_of(bound)
    if not _is_int(t):
        return
    for k in (1, -1):
        yield f"bound {_show(bound)} {k:+d}", replace(loop, cond=_with_side(cond, side, _plus(bound, k)))
    others = [(n, vt) for n, vt in _visible(site, f) if vt == t and n not in counters and not _mentions(bound, n)]
    for name, vt in others[:2]:
        yield f"bound {_show(bound)} to %{name}", replace(loop, cond=_with_side(cond, side, VarRef(name, vt)))


def _math_swap(site: Site, f: Function) -> Iterator[Variant]:
    e = site.node
    if isinstance(e, MathCall):
        for fn in _MATH_SWAP.get(e.fn, ()):
            yield f"{e.fn.value} to {fn.value}", replace(e, fn=fn)


RULES: dict[MutationKind, Rule] = {
    MutationKind.GUARD_OFF_BY_ONE: _guard_off_by_one,
    MutationKind.INDEX_SWAP: _index_swap,
    MutationKind.INDEX_SHIFT: _index_shift,
    MutationKind.BARRIER_DELETED: _barrier_deleted,
    MutationKind.FLOAT_CONSTANT: _float_constant,
    MutationKind.REDUCTION_OP: _reduction_op,
    MutationKind.GUARD_DROPPED: _guard_dropped,
    MutationKind.STRIDE: _stride,
    MutationKind.INIT: _init,
    MutationKind.EPS_MOVED: _eps_moved,
    MutationKind.LOOP_BOUND: _loop_bound,
    MutationKind.MATH_SWAP: _math_swap,
}


# --------------------------------------------------------------------------------------------------
# Enumeration and sampling


def enumerate_mutants(module: Module, kernel: str, kinds: Sequence[MutationKind] | None = None) -> list[Mutant]:
    """Every mutant of ``kernel`` (and the device functions it calls) that passes ``verify_module``.

    Mutants that leave the module unchanged, or that equal an earlier mutant, are left out.
    """
    wanted = list(kinds) if kinds is not None else list(MutationKind)
    out: list[Mutant] = []
    seen: set[Module] = {module}
    for f in reachable_functions(module, kernel):
        fi = module.functions.index(f)
        for site in walk(f.body, ("body",), (f,)):
            for kind in wanted:
                for description, new in RULES[kind](site, f):
                    path = site.path
                    if isinstance(new, AtParent):
                        path, new = path[: _parent_depth(path)], new.node
                    g = apply_at(f, path, new)
                    assert isinstance(g, Function)
                    m = replace(module, functions=(*module.functions[:fi], g, *module.functions[fi + 1 :]))
                    if m in seen or not _verifies(m):
                        continue
                    seen.add(m)
                    out.append(Mutant(kind, f.name, path, description, m))
    return out


def _parent_depth(path: Path) -> int:
    """The length of the path of a node's parent (a tuple element's parent is the tuple's owner)."""
    i = len(path) - 1
    while isinstance(path[i], int):
        i -= 1
    return i


def _verifies(m: Module) -> bool:
    try:
        verify_module(m)
    except LarkcError:
        return False
    return True


def sample_mutants(mutants: Sequence[Mutant], count: int, seed: int) -> list[Mutant]:
    """Up to ``count`` mutants, balanced across kinds: each kind's list shuffled by ``seed``, then
    taken round-robin (kinds in declaration order); the result is in enumeration order."""
    rng = random.Random(seed)
    by_kind: dict[MutationKind, list[Mutant]] = {k: [] for k in MutationKind}
    for m in mutants:
        by_kind[m.kind].append(m)
    for ms in by_kind.values():
        rng.shuffle(ms)
    chosen: list[Mutant] = []
    while len(chosen) < count and any(by_kind.values()):
        for k in MutationKind:
            if by_kind[k] and len(chosen) < count:
                chosen.append(by_kind[k].pop())
    order = {id(m): i for i, m in enumerate(mutants)}
    return sorted(chosen, key=lambda m: order[id(m)])


def kernel_of(module: Module, name: str) -> Function:
    """The kernel ``name`` of ``module`` (a template kernel ``name<...>`` if that is the only match)."""
    for f in module.functions:
        if f.kind is FunctionKind.KERNEL and (f.name == name or f.name.startswith(name + "<")):
            return f
    raise KeyError(name)
