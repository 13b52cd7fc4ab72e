"""Device writes to ``__constant__`` memory are rejected, as nvcc rejects them.

A ``__constant__`` array the host writes (``cudaMemcpyToSymbol``) or declares without an initialiser is a
``ptr<global T>`` parameter of each kernel that reads it (:meth:`Statements.constant_inputs`), not
const-qualified because C++ does not make it ``const`` (``unsigned int* p = &c_Table[y][0];`` compiles).
Without this check a store through such a pointer would be simulated and verified like a store to any
buffer, and a kernel nvcc refuses would be reported verified.

The check follows where such a pointer goes, conservatively: a local assigned from an expression naming
one holds one (whatever the expression computes), so does the result of a call given one, and a device
function writes through a parameter when it stores or does an atomic through something derived from it,
passes it on to a parameter it writes through, or stores it to memory. A store or atomic through a
derived pointer, storing one to memory, or passing one to a parameter written through, is a located
error. Over-approximating only rejects more kernels; it never lets a write through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from larkc.errors import Span, UnsupportedError
from larkc.ir.nodes import Assign, Atomic, Call, Decl, Expr, Function, Module, Shuffle, Store, VarRef
from larkc.ir.types import PointerType
from larkc.ir.walk import sub_exprs, walk_stmts

__all__ = ["check_constant_writes"]


def check_constant_writes(module: Module, constants: Iterable[str], source: Mapping[str, Span] | None = None) -> None:
    """Raise :class:`UnsupportedError` where a kernel of ``module`` writes through a parameter named in
    ``constants`` (the ``__constant__`` arrays lowered to parameters), at the store (or the call that
    writes through it in a device function). ``source`` maps a name to its declaration, for the message."""
    names = set(constants)
    functions = {f.name: f for f in module.functions}
    written: dict[str, frozenset[int]] = {}  # device function -> indices of parameters written through
    for f in module.functions:
        roots = {p.name for p in f.params if p.name in names and isinstance(p.type, PointerType)}
        if roots:
            where = _first_write(f, roots, functions, written)
            if where is not None:
                span, name = where
                declared = f" (declared at {source[name].location()})" if source and name in source else ""
                raise UnsupportedError(
                    "write to __constant__ memory (nvcc rejects device writes to it)", f"{name}{declared}", span
                )


def _refs(e: Expr | None, names: set[str]) -> str | None:
    if e is None:
        return None
    for x in sub_exprs(e):
        if isinstance(x, VarRef) and x.name in names:
            return x.name
    return None


def _derived(f: Function, roots: set[str]) -> dict[str, str]:
    """Every variable of ``f`` that may hold a pointer derived from ``roots``, with the root it comes from."""
    out = {r: r for r in roots}
    changed = True
    while changed:
        changed = False
        for s in walk_stmts(f.body):
            match s:
                case Decl(name, _, init) | Assign(name, init) if name not in out:
                    root = _refs(init, set(out))
                case Call(dst, _, args) if dst is not None and dst not in out:
                    name = dst
                    root = next((r for a in args if (r := _refs(a, set(out))) is not None), None)
                case Shuffle(dst, _, _, value) if dst not in out:
                    name, root = dst, _refs(value, set(out))
                case _:
                    continue
            if root is not None:
                out[name] = out[root]
                changed = True
    return out


def _first_write(
    f: Function, roots: set[str], functions: Mapping[str, Function], written: dict[str, frozenset[int]]
) -> tuple[Span, str] | None:
    """The first statement of ``f`` that writes through (or leaks) a pointer derived from ``roots``."""
    derived = _derived(f, roots)
    names = set(derived)
    for s in walk_stmts(f.body):
        match s:
            case Store(ptr, value, _):
                hit = _refs(ptr, names) or (_refs(value, names) if isinstance(value.type, PointerType) else None)
            case Atomic(_, _, ptr, value):
                hit = _refs(ptr, names)
            case Call(_, func, args) if func in functions:
                through = _written_params(functions[func], functions, written)
                hit = next((r for i, a in enumerate(args) if i in through and (r := _refs(a, names))), None)
            case _:
                hit = None  # other statements only read through pointers
        if hit is not None:
            return s.span, derived[hit]
    return None


def _written_params(
    g: Function, functions: Mapping[str, Function], written: dict[str, frozenset[int]]
) -> frozenset[int]:
    """The indices of ``g``'s parameters that ``g`` writes through (memoised; the call graph has no cycles:
    recursion is rejected by the frontend)."""
    if g.name not in written:
        out = set()
        for i, p in enumerate(g.params):
            if isinstance(p.type, PointerType) and _first_write(g, {p.name}, functions, written) is not None:
                out.add(i)
        written[g.name] = frozenset(out)
    return written[g.name]
