"""Segment rules of the all-size prover: what a block's threads compute together (issue 21, item 4).

The all-size executor (``allsize.ValueExecutor``) follows one arbitrary thread. A block reduction combines
the values of *every* thread of the block through shared memory, which one thread's execution does not
see. A **segment rule** states what a phase of the kernel leaves in shared memory, in terms of the value
each thread contributed, under side conditions checked on the phase as the executor runs it:

**The shared-memory tree** (:class:`SharedTree`). Three segments, in program order, outside every loop:

1. *contribution*: ``sh[tid] = v`` by every thread (the path condition free of the thread index: every
   thread of the 1-D block stores), ``v`` a followed value; then a block barrier before the next access of
   ``sh``. The array then holds ``A0(t) = v[tid := t]`` for ``t < B`` (``B = blockDim.x``), the thread's
   value for another thread ``t``: its per-thread variables (``threadIdx.x``, its loops' trip counts) are
   renamed for ``t``, with their facts, so ``A0(t)`` is exactly what thread ``t`` stored.
2. *levels*: a loop the executor unrolls (the block size is a constant), each of whose iterations (a
   *level*) ends with a block barrier and stores ``sh[tid] = A(tid) + A(tid + s)`` exactly where ``tid <
   c`` (``A`` the array before the level: a fresh function per level, read by every load of ``sh`` in it,
   so a level that read its own store would not match), for constants ``s >= 1`` and ``c`` (z3: the
   store's path condition is ``tid < c``, its value that sum), with ``c <= s`` so that the slots a level
   reads above its own are not stored in it. The halving tree has ``c = s``; the guarded one for a block
   that is not a power of two, ``if (tid < s && tid + s < B)``, has ``c = B - s`` where that is smaller.
   The levels are then replayed on the lanes: each slot holds a multiset of the contributions ``t < B``,
   and ``sh[0]`` must end holding each exactly once (a level that reads past ``B``, a skipped level, a
   lane added twice: not matched).
3. *result*: a load of ``sh[0]`` after the levels is ``Σ_{t<B} A0(t)``, a :class:`~folds.Fold` over the
   renamed thread index, which the partition rule (``folds.py``) matches against the reference's row sum
   when ``A0(t)`` is the thread's strided partial sum. Without levels (the sequential combine: thread 0
   loops over the slots), a load of ``sh[e]`` after the barrier, with ``0 <= e < B`` proved on its path,
   is ``A0(e)``: the contribution renamed with the thread index ``e``.

Any other access of the array (a store outside the three segments, a load other than ``sh[0]`` after the
levels, a level that does not match, a loop summarised instead of unrolled) leaves it *unknown*: its
loads are not followed, and the attempt is refused if it stores. The barriers are checked here; that no
two threads race on the array (the levels' loads of ``A(tid + s)`` read what the previous level left) is
the race obligation's, proved for every size by the parametric prover, and part of the kernel's verdict
(a kernel with a race is FAILED whatever this rule says). Exact real arithmetic makes the order of the
additions irrelevant (as for every fold).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import z3

from larkc.provers.folds import FoldOp, FoldTable
from larkc.provers.zworld import Registry, VarInfo, VarLevel, Z

__all__ = ["Level", "SharedTree", "ThreadRenamer", "WarpChain", "WarpSums", "applications_of"]


class ThreadRenamer:
    """Terms of one thread rewritten for another thread ``t`` of the same block: every per-thread variable
    renamed (registered with its facts, renamed alike), every fold rebuilt over the renamed terms."""

    def __init__(self, reg: Registry, folds: FoldTable) -> None:
        self.reg = reg
        self.folds = folds
        self._ids = itertools.count()

    def rename(self, term: Z, tag: str, at: tuple[Z, Z] | None = None) -> tuple[Z, dict[str, Z]]:
        """``term`` for thread instance ``tag``, and the renamed variables by their original names; with
        ``at = (tid, e)``, the thread index ``tid`` becomes the term ``e`` (the thread that stored slot
        ``e``) instead of a fresh variable, in the term and in the renamed variables' facts."""
        names = self._thread_names(term)
        pairs: dict[str, Z] = {}
        for n in sorted(names):
            pairs[n] = self.reg.renamed(n, tag)
        if at is not None:
            tid_name = at[0].decl().name()
            pairs.pop(tid_name, None)
            subst = [(self.reg.decls[n], v) for n, v in pairs.items()] + [(at[0], at[1])]
        else:
            subst = [(self.reg.decls[n], v) for n, v in pairs.items()]
        for n, v in pairs.items():
            info = self.reg.info(n)
            facts = [z3.substitute(f, *subst) for f in info.all_facts()]
            name = v.decl().name()
            self.reg.vars[name] = VarInfo(name, info.level, info.exact, info.data, info.what, facts)
            self.reg.decls[name] = v
        return self._subst(term, subst, {}), pairs

    def _thread_names(self, term: Z) -> set[str]:
        """The per-thread variables of ``term``, of its folds and of their facts, transitively."""
        out: set[str] = set()
        todo = [term]
        while todo:
            t = todo.pop()
            for f in self.folds.folds_in(t):
                todo.extend([f.hi, f.body, *f.hyps])
            for n in self.reg.free(t):
                info = self.reg.info(n)
                if info.level is VarLevel.THREAD and n not in out and not z3.is_func_decl(self.reg.decls[n]):
                    out.add(n)
                    todo.extend(info.all_facts())
        return out

    def _subst(self, term: Z, subst: Sequence[tuple[Z, Z]], memo: dict[str, Z]) -> Z:
        pairs: list[tuple[Z, Z]] = list(subst)
        for f in self.folds.folds_in(term, deep=False):
            name = f.const.decl().name()
            new = memo.get(name)
            if new is None:
                body = self._subst(f.body, subst, memo)
                hyps = [self._subst(h, subst, memo) for h in f.hyps[2:]]  # the range facts are remade
                hi = self._subst(f.hi, subst, memo)
                new = self.folds.make(f.op, f.var, hi, body, hyps, f"{f.origin}, for another thread")
                memo[name] = new
            pairs.append((f.const, new))
        return z3.substitute(term, *pairs) if pairs else term


@dataclass(slots=True)
class Level:
    """One level of a tree: the array before it (``before``), the stores it made (offset, value, pc)."""

    before: Z  # a z3 function Int -> Real
    entry_pc: tuple[Z, ...]
    stores: list[tuple[Z, Z | None, tuple[Z, ...]]] = field(default_factory=list)
    loads_after_store: bool = False
    barrier_last: bool = False


@dataclass(slots=True)
class SharedTree:
    """One shared array's state along the three segments (see the module)."""

    region: str
    elem_size: int
    lanes: int  # B, the block's threads along x (a constant)
    contribution: Z | None = None  # A0(t), a real term over the thread variable ``lane``
    stored: Z | None = None  # the contribution as the storing thread computed it (before renaming)
    lane: Z | None = None  # the renamed thread index ``t``
    contribution_pc: tuple[Z, ...] = ()
    synced: bool = False  # a block barrier since the contribution (or the last level)
    levels: list[Level] | None = None  # while the levels' loop runs
    finished: list[Level] | None = None
    result: Z | None = None  # Σ_{t<B} A0(t), once the levels are matched
    unknown: str = ""  # why the array's contents are not followed ("" while they are)
    #: the first level of a two-level block reduce: slot w holds ``sums.fn(w)`` for w < B / 32, stored by
    #: lane ``sums.r`` of every warp on the block-uniform path ``sums_pc``
    sums: WarpSums | None = None
    sums_pc: tuple[Z, ...] = ()

    def forget(self, why: str) -> None:
        if not self.unknown:
            self.unknown = why
        self.result = None
        self.levels = None


def match_levels(
    tree: SharedTree,
    levels: Sequence[Level],
    tid: Z,
    valid: Callable[..., bool],
) -> str:
    """ "" when ``levels`` reduce the contributions of the ``tree.lanes`` threads into slot 0, each once
    (the module's step 2); else why not."""
    lanes = tree.lanes
    slots: list[Counter[int]] = [Counter({t: 1}) for t in range(lanes)]
    es = tree.elem_size
    for n, lv in enumerate(levels):
        if not lv.barrier_last:
            return f"level {n} of the tree does not end with __syncthreads()"
        if lv.loads_after_store:
            return f"level {n} of the tree reads the array after storing to it"
        if len(lv.stores) != 1:
            return f"level {n} of the tree stores {len(lv.stores)} times to the array, not once"
        off, value, pc = lv.stores[0]
        if value is None or not valid(off == tid * es, *lv.entry_pc, *pc):
            return f"level {n} of the tree does not store a followed value to the thread's own slot"
        a = lv.before
        args = [x.arg(0) for x in applications_of(value, a)]
        shifts = {z3.simplify(x - tid) for x in args}
        s_vals = [x.as_long() for x in shifts if z3.is_int_value(x) and x.as_long() > 0]
        if len(s_vals) != 1:
            return f"level {n} of the tree does not add one other slot to the thread's own"
        s = s_vals[0]
        if not valid(value == a(tid) + a(tid + s), *lv.entry_pc, *pc):
            return f"level {n} of the tree does not store sh[tid] + sh[tid + {s}]"
        guard = z3.And(*pc[len(lv.entry_pc) :]) if len(pc) > len(lv.entry_pc) else z3.BoolVal(True)
        # c <= s: the slots a level reads above its own (t + s >= s >= c) are not stored in that level
        bound = next((c for c in (s, lanes - s) if 0 <= c <= s and valid(guard == (tid < c), *lv.entry_pc)), None)
        if bound is None:
            return f"level {n} of the tree is not guarded by tid < {s} (or tid + {s} < {lanes})"
        if bound + s > lanes:
            return f"level {n} of the tree reads slots past the block's {lanes} threads"
        for t in range(bound):
            slots[t] = slots[t] + slots[t + s]
    if slots[0] != Counter({t: 1 for t in range(lanes)}):
        missing = sorted(set(range(lanes)) - set(slots[0]))
        twice = sorted(t for t, c in slots[0].items() if c > 1)
        return f"the tree leaves slot 0 without threads {missing[:4]} or with threads {twice[:4]} twice"
    return ""


def tree_fold(tree: SharedTree, folds: FoldTable, origin: str) -> Z:
    """``Σ_{t<B} A0(t)``: the fold the matched tree leaves in slot 0."""
    assert tree.contribution is not None and tree.lane is not None
    return folds.make(FoldOp.SUM, tree.lane, z3.IntVal(tree.lanes), tree.contribution, tree.contribution_pc, origin)


def applications_of(term: Z, f: Z) -> list[Z]:
    """The applications of the function ``f`` inside ``term`` (each distinct subterm once)."""
    out: list[Z] = []
    seen: set[int] = set()
    stack = [term]
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_app(e):
            if e.decl().eq(f):
                out.append(e)
            stack.extend(e.children())
    return out


@dataclass(slots=True)
class WarpChain:
    """A register reduced across the lanes of each warp by shuffles (``v += __shfl_down_sync(full, v, o)``,
    or ``__shfl_xor_sync``), in a block of ``lanes`` threads (a constant multiple of 32: every warp full).

    ``values[l]`` is the function ``W_l``: thread ``t``'s value of the register at the ``l``-th shuffle;
    ``W_0(t)`` is the contribution for thread ``t`` (the first operand, renamed for ``t``). The executor's
    term for the arbitrary thread at shuffle ``l + 1`` must be its term at shuffle ``l`` plus what shuffle
    ``l`` returned, ``W_l(partner_l(tid))`` (z3, for every ``tid``): every lane of a warp runs the same code
    (the path condition is the same for the 32 lanes of a warp), so ``W_{l+1}(t) = W_l(t) + W_l(partner_l(t))``
    for every lane of a warp that runs the chain. A value stored by lane ``r`` (its path condition gives
    ``tid == r``) that is the last term plus the last shuffle's result is replayed on the lanes like the
    tree (:func:`chain_multiset`): the sum of the contributions, each once, is ``Σ_{t<B} W_0(t)``; a value
    stored by lane ``r`` of *every* warp (``tid % 32 == r``) is a :class:`WarpSums` slot; anything else with a
    ``W`` in it is not followed."""

    contribution: Z
    lane: Z
    contribution_pc: tuple[Z, ...]
    lanes: int = 32  # B, the block's threads (a multiple of 32)
    values: list[Z] = field(default_factory=list)  # W_0, W_1, ...
    partners: list[tuple[str, int]] = field(default_factory=list)  # ("down" | "xor", o) per shuffle
    selves: list[Z] = field(default_factory=list)  # the executor's operand term at each shuffle
    broken: str = ""


WARP = 32


def partner_term(kind: str, o: int, tid: Z) -> Z:
    """The thread a shuffle reads, as a term (``down``: ``tid + o``, or the thread itself where its lane
    ``tid % 32`` plus ``o`` is past the warp; ``xor``: ``tid ^ o`` for a power of two ``o < 32``, which stays
    in the warp)."""
    if kind == "down":
        return z3.If(tid % WARP + o < WARP, tid + o, tid)
    return z3.If((tid / o) % 2 == 0, tid + o, tid - o)


def partner_of(kind: str, o: int, t: int) -> int:
    if kind == "down":
        return t + o if t % WARP + o < WARP else t
    return t ^ o


def chain_multiset(chain: WarpChain, lane: int) -> Counter[int]:
    """The contributions (by thread) thread ``lane``'s register holds after the chain's last update."""
    slots: list[Counter[int]] = [Counter({t: 1}) for t in range(chain.lanes)]
    for kind, o in chain.partners:
        slots = [slots[t] + slots[partner_of(kind, o, t)] for t in range(chain.lanes)]
    return slots[lane]


def replay_chain(chain: WarpChain, lane: int) -> str:
    """ "" when lane ``lane``'s value after the chain's last update holds each lane of a one-warp block's
    contribution once."""
    return _each_once(chain_multiset(chain, lane), chain.lanes, f"lane {lane}")


def _each_once(held: Counter[int], lanes: int, who: str) -> str:
    if held != Counter({t: 1 for t in range(lanes)}):
        missing = sorted(set(range(lanes)) - set(held))
        twice = sorted(t for t, c in held.items() if c > 1)
        return f"the shuffles leave {who} without threads {missing[:4]} or with threads {twice[:4]} twice"
    return ""


@dataclass(frozen=True, slots=True)
class WarpSums:
    """``fn(w)`` is chain ``chain``'s register at lane ``r`` of warp ``w`` after its last update: what lane
    ``r`` of each warp holds after a per-warp reduction (the first level of a two-level block reduce,
    ``if (lane == 0) shared[warp] = val``)."""

    fn: Z  # a z3 function Int -> Real
    chain: WarpChain
    r: int


def two_level(chain: WarpChain, lane: int, sums: Sequence[WarpSums]) -> tuple[WarpChain | None, str]:
    """The two-level block reduce (``blockReduceSum``): thread ``lane``'s register after ``chain`` (the second
    level), whose contribution for thread ``t`` reads the first level's per-warp results ``fn(k)`` (a
    :class:`WarpSums`) or is ``0``, replayed on the block's threads with every constant ``t`` substituted
    (``lane < num_warps ? shared[lane] : 0`` is ``fn(t)`` below the warp count and ``0`` above it): the
    base chain (the first level) whose contributions it holds, each exactly once, or None and why not.
    Slot ``k`` is written only for ``k < B / 32`` (one per warp); reading another slot is not matched."""
    held: Counter[int] = Counter()
    base: WarpChain | None = None
    by_name = {s.fn.name(): s for s in sums}
    for t, count in sorted(chain_multiset(chain, lane).items()):
        term = z3.simplify(z3.substitute(chain.contribution, (chain.lane, z3.IntVal(t))))
        if z3.is_rational_value(term) and term.as_fraction() == 0:
            continue  # a lane past the warp count contributes the identity
        s = by_name.get(term.decl().name()) if z3.is_app(term) and term.num_args() == 1 else None
        k = term.arg(0) if s is not None else None
        if s is None or k is None or not z3.is_int_value(k):
            return None, f"lane {t} of the second level reads something other than one warp's sum or 0"
        slot = k.as_long()
        if base is not None and s.chain is not base:
            return None, "the second level reads the sums of two different reductions"
        base = s.chain
        if not 0 <= slot < base.lanes // WARP:
            return None, f"lane {t} of the second level reads slot {slot}, which no warp stored"
        for u, c in chain_multiset(base, WARP * slot + s.r).items():
            held[u] += c * count
    if base is None:
        return None, "the second level reads no warp's sum"
    why = _each_once(held, base.lanes, f"thread {lane} after both levels")
    return (None, why) if why else (base, "")


def mentions_function(term: Z, fs: Sequence[Z]) -> bool:
    return any(applications_of(term, f) for f in fs)
