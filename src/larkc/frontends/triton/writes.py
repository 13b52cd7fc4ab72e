"""Which pointer parameters a lowered Triton kernel writes through.

A launcher that updates its inputs in place (``kernel[grid](x, y, n); return None``) has no results to
name its outputs by: the inputs it writes are its outputs. The kernel's lowered IR says which: a
parameter is written when a store or an atomic goes through a pointer computed from it (Triton inlines
helper functions and has no pointer variables in memory, so following assignments within the kernel is
enough). Conservative: any expression naming a pointer derived from the parameter counts as derived,
so a parameter is reported written whenever some store may go through it (over-reporting only makes an
input that is never written an in-place output compared with its unchanged value).
"""

from __future__ import annotations

from larkc.ir.nodes import Assign, Atomic, Decl, Expr, Function, Store, VarRef
from larkc.ir.types import PointerType
from larkc.ir.walk import sub_exprs, walk_stmts

__all__ = ["written_pointer_params"]


def _names(e: Expr | None) -> set[str]:
    return set() if e is None else {x.name for x in sub_exprs(e) if isinstance(x, VarRef)}


def written_pointer_params(kernel: Function) -> tuple[str, ...]:
    """The pointer parameters of ``kernel`` that a store or an atomic may write through, in parameter order."""
    roots = {p.name for p in kernel.params if isinstance(p.type, PointerType)}
    origin: dict[str, set[str]] = {r: {r} for r in roots}  # variable -> the parameters it may derive from
    changed = True
    while changed:  # a fixed point: loops assign variables before their uses in program order
        changed = False
        for s in walk_stmts(kernel.body):
            match s:
                case Decl(name, _, init) | Assign(name, init):
                    got = set().union(*(origin.get(n, set()) for n in _names(init)))
                    if not got <= origin.get(name, set()):
                        origin[name] = origin.get(name, set()) | got
                        changed = True
                case _:
                    pass
    written: set[str] = set()
    for s in walk_stmts(kernel.body):
        match s:
            case Store(ptr, _, _) | Atomic(_, _, ptr, _):
                for n in _names(ptr):
                    written |= origin.get(n, set())
            case _:
                pass
    return tuple(p.name for p in kernel.params if p.name in written)
