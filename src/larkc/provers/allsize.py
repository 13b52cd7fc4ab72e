"""Equivalence for every size: the all-size prover (first slice, elementwise kernels; issue 21).

:func:`prove_allsize` proves an output's ``equivalence`` for **every** size the task allows, not just at its
instances, for kernels where each output element is a pointwise function of input elements: one thread per
element (``i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = f(x[i])``), grid-stride loops, and
Triton's ``offs = pid * BLOCK + tl.arange(0, BLOCK)`` with a mask. It reuses the parametric prover's world
(symbolic sizes under the task's constraints, the launch as terms over them) and its executor for one
arbitrary thread (:class:`~larkc.provers.zexec.Executor`), which it extends with *values*: every float is a
z3 real (floats are exact reals in larkc's equivalence), an input element is ``X(e)`` for an uninterpreted
function ``X`` per input tensor, and ``exp``, ``log``, ``tanh``, ... are uninterpreted functions shared by
kernel and spec.

For every output ``out`` with ``N`` elements, two obligations over the executor's records, each a z3 query
under the world's facts:

(a) **every element is written**: one store record and a *witness* thread for each index ``j`` (the
    thread, block, iteration and element index peeled from ``j`` by the address's coefficients), such that
    for every ``0 <= j < N`` the witness is a thread of the launch that reaches that store (its path
    condition holds; every variable it involves is *exact*: realised by an execution) and stores to ``j``;
(c) **every store stores the spec's element**: for every store record reaching ``out``, its value equals the
    reference's element at the index it stores to (the spec evaluated at a symbolic index, a term over the
    same ``X``), for every input, size and thread.

(b), at most one store per element, is implied: every store to ``j`` stores the spec's element, so all of
them store the same value and the last one leaves it. That the value is a function of the inputs as they
were at the start needs the inputs unchanged during the launch: the attempt is refused when the kernel
writes anything but its outputs, reads an output, uses atomics, shared or local memory, or the executor
met a construct it cannot model. Everything else (reductions, loops over data, other spec ops) is *not
handled*: the bounded proof stands. ``docs/allsize.md`` has the design and what comes next.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, assert_never

import z3

from larkc.errors import LarkcError
from larkc.ir.nodes import (
    Assign,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Break,
    Broadcast,
    CastKind,
    Const,
    DoWhile,
    Expr,
    Extract,
    For,
    Function,
    Insert,
    Load,
    MakeVector,
    MathFn,
    Module,
    Permute,
    PtrAdd,
    Reduce,
    ReduceOp,
    Reshape,
    Return,
    Select,
    Shuffle,
    ShuffleKind,
    Stmt,
    Store,
    UnaryOp,
    VarRef,
    While,
)
from larkc.ir.types import BlockType, ScalarType, Type
from larkc.provers.core import (
    Assumption,
    AssumptionKind,
    Budget,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    ScopeKind,
    Status,
    combine,
)
from larkc.provers.folds import FoldOp, FoldTable
from larkc.provers.hints import HintCheck, Hints, HintStatus
from larkc.provers.invariants import check_invariants
from larkc.provers.segments import (
    WARP,
    Level,
    SharedTree,
    ThreadRenamer,
    WarpChain,
    WarpSums,
    applications_of,
    match_levels,
    mentions_function,
    partner_term,
    replay_chain,
    tree_fold,
    two_level,
)
from larkc.provers.zexec import Access, AccessKind, Executor, LoopCtx, State, conj, walk
from larkc.provers.zvalues import BoolV, IntV, OpaqueV, PtrV, Region, RegionKind, Value
from larkc.provers.zworld import Answer, Registry, Session, VarLevel, World, Z, minimize_sum, model_int
from larkc.tasks import ScalarArg, Task
from larkc.tasks.shape_expr import CmpOp, ShapeCmp, ShapeExpr, ShapeNum

if TYPE_CHECKING:
    from larkc.reference.spec import SpecGraph, SpecNode

__all__ = ["PROVER_NAME", "AllSizeAttempt", "prove_allsize", "upgrade_equivalence"]

PROVER_NAME = "allsize-z3"
EXACT_REALS = Assumption(
    AssumptionKind.MODEL,
    "exact real arithmetic (floats as reals; exp, log, ... as functions shared by kernel and reference)",
)

#: The spec ops :class:`_SpecElements` evaluates at a symbolic index (by :class:`SpecOp` value).
ELEMENTWISE_OPS = frozenset(
    [
        "add",
        "sub",
        "mul",
        "div",
        "maximum",
        "minimum",
        "neg",
        "abs",
        "reciprocal",
        "relu",
        "clamp",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "tanh",
        "erf",
        "sin",
        "cos",
        "sigmoid",
        "silu",
        "pow",
        "cast",
    ]
)

#: The most seconds one attempt may take (of the task's budget): it only ever upgrades a bounded proof.
ATTEMPT_SECONDS = 15.0

#: A block size that is a term over the sizes is proved one value at a time (each value a constant block
#: whose tree levels and warps unroll): at most this many values, else the attempt is refused.
MAX_BLOCK_CASES = 32
#: The most seconds the cases of one block-size split take together (each case is one attempt).
BLOCK_CASES_SECONDS = 60.0

#: The reductions :class:`_SpecElements` evaluates at a symbolic index, as folds over the reduced dimension.
REDUCTION_OPS = frozenset(["sum", "mean", "amax", "amin", "matmul", "mm"])

#: The inputs a value reads are unchanged by the launch because no store reaches them: distinct buffers.
NO_ALIASING = Assumption(AssumptionKind.MODEL, "distinct tensors of the task are distinct buffers (no aliasing)")


class _NotHandled(Exception):
    """The kernel or the spec is outside what this prover handles (the bounded result stands)."""


@dataclass(frozen=True, slots=True, eq=False)
class RealV(OpaqueV):
    """A float value the prover tracks: ``r`` is a z3 real term over input reads ``X(e)`` and sizes."""

    r: Z


@dataclass(frozen=True, slots=True, eq=False)
class NegInfV(OpaqueV):
    """The float ``-inf``: not a real, so unknown to every operation; only the initial value of a ``max``
    accumulator reads it (``max(-inf, F) = F`` over a non-empty range)."""


@dataclass(frozen=True, slots=True)
class AllSizeAttempt:
    """One all-size attempt on one output: ``proved`` with ``scope`` (constraints) or why not (``detail``)."""

    output: str
    proved: bool
    detail: str
    constraints: tuple[str, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    seconds: float = 0.0
    #: every instance the bounded prover ran lies inside ``constraints`` (the upgrade then covers them)
    covers_instances: bool = False
    #: sizes at which the kernel may differ (z3's smallest model of a failed query), for the pipeline to check
    candidate: Mapping[str, int] | None = None
    #: the engine's checks of the loop invariants given from outside (the last check of each loop)
    hint_checks: tuple[HintCheck, ...] = ()
    #: who proposed the invariants that were checked and used (empty when none was used)
    hint_source: str = ""


# -- values shared by the two sides ---------------------------------------------------------------------


class _Vocabulary:
    """The uninterpreted functions both sides use: one per input tensor, one per math function."""

    def __init__(self, constants: Sequence[float]) -> None:
        self._tensors: dict[str, Z] = {}
        self._fns: dict[tuple[str, int], Z] = {}
        self._fresh = itertools.count()
        self._arbitrary: list[Z] = []
        self.constants = [c for c in constants if isinstance(c, float)]
        self.readings: list[Assumption] = []

    def tensor(self, name: str) -> Z:
        f = self._tensors.get(name)
        if f is None:
            f = z3.Function(f"allsize.in.{name}", z3.IntSort(), z3.RealSort())
            self._tensors[name] = f
        return f

    def fn(self, name: str, *args: Z) -> Z:
        key = (name, len(args))
        f = self._fns.get(key)
        if f is None:
            f = z3.Function(f"allsize.fn.{name}", *([z3.RealSort()] * (len(args) + 1)))
            self._fns[key] = f
        return f(*args)

    def applications(self, name: str, term: Z) -> list[Z]:
        """The applications of the math function ``name`` inside ``term``."""
        f = self._fns.get((name, 1))
        return [] if f is None else applications_of(term, f)

    def arbitrary(self, what: str) -> Z:
        """A real about which nothing is known (a masked-off lane without ``other``)."""
        a = z3.Real(f"allsize.any.{what}.{next(self._fresh)}")
        self._arbitrary.append(a)
        return a

    def mentions_arbitrary(self, term: Z) -> bool:
        """Whether ``term`` mentions a value made by :meth:`arbitrary`."""
        return bool(self._arbitrary) and _mentions(term, self._arbitrary)

    def literal(self, value: float, t: ScalarType) -> Z | None:
        """The exact value of a float literal (or bound scalar) of type ``t``: the reference's constant when
        the literal is its rounding at ``t`` (a numeric assumption), else the rounded value itself."""
        rounded = _round(value, t)
        if rounded is None or not math.isfinite(rounded):
            return None  # an infinity or NaN: not a real
        for c in self.constants:
            if _round(c, t) == rounded and Fraction(c) != Fraction(rounded):
                text = f"the {t} constant {rounded!r} read as the reference's {c!r}"
                self.readings.append(Assumption(AssumptionKind.NUMERIC, text))
                return _real(Fraction(c))
        return _real(Fraction(rounded))


def _round(value: float, t: ScalarType) -> float | None:
    """``value`` rounded to the float type ``t`` (``None`` for a type this module does not round)."""
    match t.bits:
        case 64:
            return float(value)
        case 32:
            return float(struct.unpack("f", struct.pack("f", value))[0])
        case 16 if "bf" not in str(t):
            try:
                return float(struct.unpack("e", struct.pack("e", value))[0])
            except OverflowError:
                return None
        case _:
            return None


def _real(q: Fraction) -> Z:
    return z3.RealVal(f"{q.numerator}/{q.denominator}")


def _scalar(t: Type) -> Type:
    return t.elem if isinstance(t, BlockType) else t


def _min(a: Z, b: Z) -> Z:
    return z3.If(a <= b, a, b)


def _max(a: Z, b: Z) -> Z:
    return z3.If(a >= b, a, b)


# -- the kernel side: the parametric executor with values ------------------------------------------------


class ValueExecutor(Executor):
    """:class:`Executor` that also tracks float values as z3 reals (:class:`RealV`) and records, for every
    store, the value it stores. A value it cannot follow stays a plain :class:`OpaqueV` (unknown)."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        task: Task,
        world: World,
        reg: Registry,
        session: Session,
        param_values: dict[str, Value],
        vocabulary: _Vocabulary,
        folds: FoldTable,
        hints: Hints | None = None,
    ) -> None:
        super().__init__(module, fn, task, world, reg, session, param_values)
        self.vocab = vocabulary
        self.folds = folds
        self.hints = hints
        self.hint_checks: list[HintCheck] = []  # in the order the loops were summarised
        #: per loop being summarised (innermost last): its body, and the state before and after the final
        #: pass of it (the body at an arbitrary iteration ``k``)
        self._passes: list[tuple[Sequence[Stmt], list[tuple[State, State]]]] = []
        self.stored: dict[int, tuple[Access, Value]] = {}
        #: shared arrays by region key, along the tree reduction's segments (segments.py)
        self.trees: dict[str, SharedTree] = {}
        self._levels_of: tuple[Sequence[Stmt], SharedTree] | None = None  # the tree's loop body, while it runs
        self._renamer = ThreadRenamer(reg, folds)
        self._slot_tags = itertools.count()
        self.chains: list[WarpChain] = []  # registers reduced across a warp by shuffles (segments.py)
        self.warp_sums: list[WarpSums] = []  # per-warp results of a chain (a two-level block reduce's first)
        self.float_reads: list[tuple[str, Z, tuple[Z, ...], int]] = []  # tensor, byte offset, pc, elem size

    # statements

    def exec_stmt(self, s: Stmt, st: State) -> State:
        match s:
            case Load(dst, ptr, mask, other):
                out = super().exec_stmt(s, st)
                t = _scalar(self._pointee(ptr))
                if not (isinstance(t, ScalarType) and t.is_float) or out.dead:
                    return out
                p = self.eval(ptr, st)
                r = p.region if isinstance(p, PtrV) else None
                if isinstance(p, PtrV) and r is not None and r.kind is RegionKind.SHARED and mask is None:
                    shared = self._shared_load(r, p.off, t, st)
                    if shared is not None:
                        out = out.copy()
                        out.env[self.key(dst)] = shared
                    return out
                spec = self.task.tensors.get(r.tensor or "") if r is not None else None
                if r is None or r.kind is not RegionKind.GLOBAL or spec is None or spec.dtype != t:
                    return out
                assert isinstance(p, PtrV) and r.tensor is not None
                on, cond = self.masked(st, mask)
                if on.dead:
                    return out
                self.float_reads.append((r.tensor, p.off, on.pc, t.size))
                value = self.vocab.tensor(r.tensor)(_exact_div(p.off, t.size))
                if cond is not None:
                    ov = self.eval(other, st) if other is not None else None
                    alt = ov.r if isinstance(ov, RealV) else self.vocab.arbitrary("masked")
                    value = z3.If(cond, value, alt)
                out = out.copy()
                out.env[self.key(dst)] = RealV(t, value)
                return out
            case Store(_, value, _):
                before = len(self.trace.accesses)
                out = super().exec_stmt(s, st)
                if len(self.trace.accesses) > before:
                    acc = self.trace.accesses[-1]
                    to_shared = acc.region.kind is RegionKind.SHARED
                    self.stored[id(acc)] = (acc, self._warp_result(self.eval(value, st), acc.pc, to_shared))
                    if acc.region.kind is RegionKind.SHARED:
                        self._shared_store(acc, self.stored[id(acc)][1])
                return out
            case Shuffle(dst, kind, _, value, _, _):
                out = super().exec_stmt(s, st)
                if out.dead:
                    return out
                got = self._shuffled(s, kind, self.eval(value, st), st)
                if got is not None:
                    out = out.copy()
                    out.env[self.key(dst)] = got
                return out
            case _:
                return super().exec_stmt(s, st)

    # warp shuffles: a register reduced across the lanes of a one-warp block (segments.py)

    def _constant(self, e: Expr, st: State) -> int | None:
        cp = self.trace.checkpoint()
        try:
            v = self.eval(e, st)
        finally:
            self.trace.rollback(cp)
        x = z3.simplify(v.e) if isinstance(v, IntV) else None
        return x.as_long() if x is not None and z3.is_int_value(x) else None

    def _shuffled(self, s: Shuffle, kind: ShuffleKind, v: Value, st: State) -> Value | None:
        """The value a shuffle returns when it is a step of a warp reduction, else None (unknown)."""
        mentioned = [c for c in self.chains if isinstance(v, RealV) and mentions_function(v.r, c.values)]
        tid = self.tid[0]
        block = [z3.simplify(b) for b in self.world.block]
        o = self._constant(s.lane, st)
        why = ""
        if kind not in (ShuffleKind.DOWN, ShuffleKind.XOR) or not isinstance(v, RealV):
            why = "a shuffle that is not a down or xor step of a followed value"
        elif not (
            all(z3.is_int_value(b) for b in block)
            and [b.as_long() for b in block[1:]] == [1, 1]
            and block[0].as_long() % WARP == 0
        ):
            why = "a shuffle in a block that is not 1-D with a constant multiple of 32 threads (a partial warp)"
        elif self._constant(s.mask, st) != 0xFFFFFFFF or self._constant(s.width, st) not in (32, None):
            why = "a shuffle with a partial mask or a width other than 32"
        elif o is None or o < 1 or o >= 32 or (kind is ShuffleKind.XOR and o & (o - 1)):
            why = "a shuffle by an offset that is not a constant in [1, 32) (a power of two for xor)"
        elif self.iter_ctx or not self._warp_uniform(st.pc):
            why = "a shuffle in a loop or on a path only some lanes of a warp take"
        elif len(mentioned) > 1 or any(c.broken for c in mentioned):
            why = "a shuffle of a value that mixes warp reductions"
        if why:
            for c in mentioned:
                c.broken = c.broken or why
            return None
        assert isinstance(v, RealV) and o is not None
        step = (kind.value, o)
        if not mentioned:
            term, renamed = self._renamer.rename(v.r, f"warp{len(self.chains)}")
            lane = renamed.get(tid.decl().name(), z3.FreshInt("allsize.lane"))
            chain = WarpChain(term, lane, tuple(st.pc), block[0].as_long())
            self.chains.append(chain)
        else:
            chain = mentioned[0]
            if not self._chain_step_holds(chain, v.r, st.pc):
                chain.broken = "a shuffle's operand is not the previous operand plus what the previous shuffle returned"
                return None
        w = z3.Function(f"allsize.warp.{len(self.chains)}.{len(chain.values)}", z3.IntSort(), z3.RealSort())
        chain.values.append(w)
        chain.partners.append(step)
        chain.selves.append(v.r)
        return RealV(v.t, w(partner_term(step[0], step[1], tid)))

    def _chain_step_holds(self, chain: WarpChain, term: Z, pc: Sequence[Z]) -> bool:
        """``term`` is the chain's last operand plus what its last shuffle returned (for every lane)."""
        kind, o = chain.partners[-1]
        got = chain.values[-1](partner_term(kind, o, self.tid[0]))
        return self.prove(pc, term == chain.selves[-1] + got).answer is Answer.UNSAT

    def _warp_uniform(self, pc: Sequence[Z]) -> bool:
        """Every lane of a warp takes the path ``pc`` when one does: no per-thread variable but ``threadIdx.x``
        in it, and it holds at ``32 * (tid / 32) + j`` for every lane ``j`` when it holds at ``tid`` (z3)."""
        tid = self.tid[0]
        cond = conj(pc)
        others = {n for n in self.reg.free(cond) if self.reg.info(n).level is VarLevel.THREAD}
        if not others:
            return True
        if others != {tid.decl().name()}:
            return False
        j = z3.FreshInt("allsize.lane_in_warp")
        moved = z3.substitute(cond, (tid, WARP * (tid / WARP) + j))
        return self.prove([*pc, j >= 0, j < WARP], moved).answer is Answer.UNSAT

    def _fixed_lane(self, pc: Sequence[Z], lanes: int) -> tuple[int | None, int | None]:
        """(r, t): the path condition fixes the lane ``tid % 32 == r``, and the thread ``tid == t`` when it
        does (None where it does not)."""
        tid = self.tid[0]
        r = next((r for r in range(WARP) if self.prove(pc, tid % WARP == r).answer is Answer.UNSAT), None)
        if r is None:
            return None, None
        w = next((w for w in range(lanes // WARP) if self.prove(pc, tid / WARP == w).answer is Answer.UNSAT), None)
        return r, (None if w is None else WARP * w + r)

    def _warp_result(self, v: Value, pc: Sequence[Z], shared: bool = False) -> Value:
        """A stored value: a warp reduction's result where it is one, unknown where it mentions a chain
        otherwise, else ``v``. Stored by one thread: ``Σ_{t<B}`` of the contributions when its register holds
        each thread's once (a one-warp block, or the second level of a two-level block reduce reading the
        first level's per-warp sums); stored to shared memory by lane ``r`` (of every warp, or of the one warp
        of the block): that warp's sum (a :class:`~larkc.provers.segments.WarpSums`, ``P(tid / 32)``), which
        only a per-warp store follows. A value computed from the register's final value (``total / d``) has
        that subterm (the executor's last operand plus the last shuffle's result, as built) replaced by the
        sum, where no other mention of a chain remains."""
        if not isinstance(v, RealV) or not any(mentions_function(v.r, c.values) for c in self.chains):
            return v
        every = [w for c in self.chains for w in c.values]
        for c in self.chains:
            if c.broken or not mentions_function(v.r, c.values[-1:]):
                continue
            whole = self._chain_step_holds(c, v.r, pc)
            kind, o = c.partners[-1]
            final = c.selves[-1] + c.values[-1](partner_term(kind, o, self.tid[0]))
            marker = z3.FreshReal("allsize.register")
            around = z3.substitute(v.r, (final, marker))
            if not whole and (shared or mentions_function(around, every) or not _mentions(around, [marker])):
                continue
            r, lane = self._fixed_lane(pc, c.lanes)
            if r is None:
                return OpaqueV(v.t)
            if whole and (lane is None or shared):
                fn = z3.Function(f"allsize.warpsum.{len(self.warp_sums)}", z3.IntSort(), z3.RealSort())
                self.warp_sums.append(WarpSums(fn, c, r))
                return RealV(v.t, fn(self.tid[0] / WARP))
            if lane is None:
                return OpaqueV(v.t)  # lane r of every warp: only a per-warp store follows it
            if not mentions_function(c.contribution, [s.fn for s in self.warp_sums]):
                if replay_chain(c, lane):
                    return OpaqueV(v.t)
                base = c
            else:
                got, _why = two_level(c, lane, self.warp_sums)
                if got is None:
                    return OpaqueV(v.t)
                base = got
            if self.reg.has_level(conj(base.contribution_pc), VarLevel.THREAD):
                return OpaqueV(v.t)  # the contributions' path would need renaming per thread too
            fold = self.folds.make(
                FoldOp.SUM, base.lane, z3.IntVal(base.lanes), base.contribution, base.contribution_pc, "a block sum"
            )
            return RealV(v.t, fold if whole else z3.substitute(around, (marker, fold)))
        return OpaqueV(v.t)

    # shared memory: the tree reduction's segments (segments.py)

    def _shared_store(self, acc: Access, value: Value) -> None:
        tree = self.trees.get(acc.region.key)
        if self._levels_of is not None and self._levels_of[1] is tree and tree.levels:
            tree.levels[-1].stores.append((acc.offset, value.r if isinstance(value, RealV) else None, acc.pc))
            return
        if tree is not None:
            tree.forget(f"`{acc.text}` stores to {acc.region.name} outside its tree reduction")
            return
        tree = SharedTree(acc.region.key, acc.size, 0, unknown="")
        self.trees[acc.region.key] = tree
        sums = self._warp_sums_in(value)
        if sums is not None:
            why = self._per_warp_store(acc, sums)
            if why:
                tree.forget(why)
            else:
                tree.sums, tree.sums_pc = sums, tuple(p for p in acc.pc if not self._thread_level(p))
                tree.lanes = sums.chain.lanes
            return
        lanes = [z3.simplify(b) for b in self.world.block]
        tid = self.tid[0]
        if not all(z3.is_int_value(b) for b in lanes) or any(b.as_long() != 1 for b in lanes[1:]):
            tree.forget("the block is not a 1-D block of a constant size")
        elif self.iter_ctx or not isinstance(value, RealV):
            tree.forget(f"`{acc.text}` is in a loop or stores a value not followed")
        elif (
            self.reg.has_level(conj(acc.pc), VarLevel.THREAD)
            or self.prove(acc.pc, acc.offset == tid * acc.size).answer is not Answer.UNSAT
        ):
            tree.forget(f"`{acc.text}` is not a store of every thread to its own slot")
        else:
            tree.lanes = lanes[0].as_long()
            term, renamed = self._renamer.rename(value.r, f"lane{len(self.trees)}")
            tree.contribution = term
            tree.stored = value.r
            tree.lane = renamed.get(tid.decl().name(), z3.FreshInt("allsize.lane"))
            tree.contribution_pc = tuple(acc.pc)

    def _warp_sums_in(self, value: Value) -> WarpSums | None:
        """The per-warp sums ``value`` is (``P(tid / 32)``), if it is one."""
        if not isinstance(value, RealV) or not z3.is_app(value.r) or value.r.num_args() != 1:
            return None
        return next((s for s in self.warp_sums if s.fn.eq(value.r.decl())), None)

    def _thread_level(self, p: Z) -> bool:
        return self.reg.has_level(p, VarLevel.THREAD)

    def _per_warp_store(self, acc: Access, sums: WarpSums) -> str:
        """ "" when ``acc`` is ``shared[tid / 32] = P(tid / 32)`` by lane ``r`` of every warp: outside loops,
        the path's per-thread part exactly ``tid % 32 == r``, the rest the same for the whole block."""
        tid = self.tid[0]
        value = self.stored[id(acc)][1]
        assert isinstance(value, RealV)
        uniform = [p for p in acc.pc if not self._thread_level(p)]
        guard = conj([p for p in acc.pc if self._thread_level(p)])
        if self.iter_ctx:
            return f"`{acc.text}` stores a warp's sum in a loop"
        own_slot = z3.And(acc.offset == (tid / WARP) * acc.size, value.r.arg(0) == tid / WARP)
        if self.prove(acc.pc, own_slot).answer is not Answer.UNSAT:
            return f"`{acc.text}` does not store each warp's sum to the slot of its warp (tid / 32)"
        if self.prove(uniform, guard == (tid % WARP == sums.r)).answer is not Answer.UNSAT:
            return f"`{acc.text}` is not stored by lane {sums.r} of every warp"
        if self.reg.has_level(conj(uniform), VarLevel.THREAD):
            return f"`{acc.text}` is on a path that depends on the thread"
        return ""

    def _shared_load(self, r: Region, off: Z, t: Type, st: State) -> Value | None:
        tree = self.trees.get(r.key)
        if tree is None or tree.unknown or not isinstance(t, ScalarType) or t.size != tree.elem_size:
            return None
        if tree.sums is not None:
            # the second level of a two-level block reduce: slot e < B / 32 holds warp e's sum, once every
            # warp has stored it (a barrier since) and on a path where the stores ran
            e = _exact_div(off, t.size)
            in_range = z3.And(e >= 0, e < tree.lanes // WARP, *tree.sums_pc)
            if tree.synced and self.prove(st.pc, in_range).answer is Answer.UNSAT:
                return RealV(t, tree.sums.fn(e))
            return None
        if self._levels_of is not None and self._levels_of[1] is tree and tree.levels:
            level = tree.levels[-1]
            level.loads_after_store = level.loads_after_store or bool(level.stores)
            return RealV(t, level.before(_exact_div(off, t.size)))
        at_zero = tree.result is not None and tree.synced and not self.iter_ctx
        if at_zero and tree.result is not None and self.prove(st.pc, off == 0).answer is Answer.UNSAT:
            return RealV(t, tree.result)
        if tree.synced and tree.stored is not None and tree.levels is None and tree.finished is None:
            # before any level (the sequential combine): slot e holds thread e's contribution
            e = _exact_div(off, t.size)
            if tree.result is None and self.prove(st.pc, z3.And(e >= 0, e < tree.lanes)).answer is Answer.UNSAT:
                tag = f"slot{next(self._slot_tags)}"
                term, _ = self._renamer.rename(tree.stored, tag, (self.tid[0], e))
                return RealV(t, term)
        return None

    def exec_barrier(self, st: State, scope: BarrierScope, mask: Expr | None, s: Stmt) -> State:
        if scope is BarrierScope.BLOCK:
            for tree in self.trees.values():
                tree.synced = True
        return super().exec_barrier(st, scope, mask, s)

    def exec_loop(self, st: State, s: For | While | DoWhile) -> State:
        tree = self._tree_for(s)
        if tree is None:
            return super().exec_loop(st, s)
        tree.levels = []
        self._levels_of = (s.body, tree)
        try:
            out = super().exec_loop(st, s)
        finally:
            self._levels_of = None
        levels, tree.levels = tree.levels, None
        if tree.unknown or levels is None:
            return out
        tree.finished = list(levels)
        why = match_levels(tree, levels, self.tid[0], lambda goal, *h: self.prove(h, goal).answer is Answer.UNSAT)
        if why:
            tree.forget(why)
        else:
            tree.result = tree_fold(tree, self.folds, f"the tree reduction at {_where(s)}")
        return out

    def _tree_for(self, s: Stmt) -> SharedTree | None:
        """The shared array whose tree levels the loop ``s`` may be: one with a contribution, synced, no
        levels yet, that the loop stores to; outside every loop."""
        if not isinstance(s, For) or self.iter_ctx:
            return None
        names = {
            x.ptr.base.name
            for x in walk(s.body)
            if isinstance(x, Store) and isinstance(x.ptr, PtrAdd) and isinstance(x.ptr.base, VarRef)
        }
        for tree in self.trees.values():
            if tree.unknown or tree.contribution is None or tree.result is not None:
                continue
            if tree.region.split(":")[-1] in names:
                if not tree.synced:
                    tree.forget("no __syncthreads() between the contributions and the tree")
                    return None
                return tree
        return None

    def run_body(self, st: State, body: Sequence[Stmt], step: Sequence[Stmt]) -> tuple[State, LoopCtx]:
        level = self._levels_of is not None and self._levels_of[0] is body
        if level and self._levels_of is not None and self._levels_of[1].levels is not None:
            fresh = z3.Function(f"allsize.shared.{len(self._levels_of[1].levels)}", z3.IntSort(), z3.RealSort())
            self._levels_of[1].levels.append(Level(fresh, tuple(st.pc)))
        out = super().run_body(st, body, step)
        if level and self._levels_of is not None and self._levels_of[1].levels:
            last = body[-1] if body else None
            self._levels_of[1].levels[-1].barrier_last = isinstance(last, Barrier) and last.scope is BarrierScope.BLOCK
        if self._passes and self._passes[-1][0] is body:
            self._passes[-1][1].append((st, out[0]))  # the executor's last pass is the final one
        return out

    def summarize(
        self, st: State, cond: Expr | None, step: Sequence[Stmt], body: Sequence[Stmt], do_first: bool, loop: Stmt
    ) -> State:
        """A loop at an arbitrary iteration: the executor havocs only the integers it changes. A float the
        loop changes is an *accumulator* when the loop provably ends and the body maps every value ``a`` of it
        to ``a + f(k)`` (``f`` free of every accumulator): by induction over the iterations (the invariant
        ``acc = acc0 + Σ_{t<k} f(t)`` holds at entry and one symbolic iteration preserves it) it is ``acc0 +
        Σ_{k<T} f(k)`` after the loop, ``T`` the trip count (a :class:`~larkc.provers.folds.Fold`). Any other
        float the loop changes is unknown inside the body and after the loop (an unrolled loop runs its
        iterations and needs nothing)."""
        if self._levels_of is not None and self._levels_of[0] is body:
            self._levels_of[1].forget("the tree's loop is not unrolled (a block size that is not a constant)")
        why = self._not_shown_to_terminate(st, cond, step, body, do_first)
        if why:
            # the executor takes the state after a loop as reached: a store behind a loop that never ends at
            # some sizes would count as covering its elements there
            self.issue(
                frozenset({ObligationKind.EQUIVALENCE}),
                f"a loop not shown to end for every size ({why})",
                loop.span,
            )
        entry = st
        changed = {self.key(n) for n in self.assigned_names((*body, *step))}
        # a break or return leaves the trip count and the values at the exit unsummarised
        foldable = not why and not any(isinstance(x, Break | Return) for x in walk(body))
        accs: dict[str, tuple[RealV | NegInfV, Z]] = {}
        hinted_here = self.hints is not None and bool(self.hints.for_line(loop.span.line))
        if hinted_here and not foldable:
            vs = tuple(h.var for h in self.hints.for_line(loop.span.line)) if self.hints is not None else ()
            reason = why or "the loop has a break or return"
            self.hint_checks.append(HintCheck(loop.span.line, vs, HintStatus.REJECTED, f"not used: {reason}"))
        if any(isinstance(v, RealV | NegInfV) for k, v in st.env.items() if k in changed):
            st = st.copy()
            for k in sorted(changed):
                v = st.env.get(k)
                if isinstance(v, RealV | NegInfV):
                    if foldable:
                        a = z3.FreshReal(f"allsize.acc.{k}")  # the accumulator at the head of iteration k
                        accs[k] = (v, a)
                        st.env[k] = RealV(v.t, a)
                    else:
                        st.env[k] = OpaqueV(v.t)
        passes: list[tuple[State, State]] = []
        self._passes.append((body, passes))
        before = set(self.stored)
        try:
            out = super().summarize(st, cond, step, body, do_first, loop)
        finally:
            self._passes.pop()
        if accs:
            out = out.copy()
            final = passes[-1] if passes else None
            heads: list[tuple[Z, Z]] = []
            # invariants given from outside, checked here (hints.py); a rejected one leaves the automatic rule
            hinted = self.hints.for_line(loop.span.line) if self.hints is not None else ()
            by_hint = check_invariants(self, hinted, entry, accs, final, loop) if hinted else {}
            for k, (after, head) in by_hint.items():
                out.env[k] = after
                heads.append((accs[k][1], head))
            for k, (v0, a) in accs.items():
                if k in by_hint:
                    continue
                after, head = self._accumulated(k, v0, a, final, [x for _, x in accs.values()], loop)
                out.env[k] = after
                if head is not None:
                    heads.append((a, head))
            # a store in the body sees the accumulator at the head of iteration k: acc0 + Σ_{t<k} f(t) (the
            # invariant); where the induction failed, the placeholder stays free (the store is not proved)
            for key in set(self.stored) - before:
                rec, v = self.stored[key]
                if heads and isinstance(v, RealV):
                    self.stored[key] = (rec, RealV(v.t, z3.substitute(v.r, *heads)))
        return out

    def _accumulated(
        self,
        k: str,
        v0: RealV | NegInfV,
        a: Z,
        final: tuple[State, State] | None,
        placeholders: Sequence[Z],
        loop: Stmt,
    ) -> tuple[Value, Z | None]:
        """The value of accumulator ``k`` after the loop (``v0`` before it, ``a`` its value at the head of the
        final pass) and its value at the head of the final pass's iteration; unknown and None when the body
        does not add a term free of the accumulators to it."""
        unknown = (OpaqueV(v0.t), None)
        if final is None:
            return unknown
        head, end = final
        new = end.env.get(k)
        if end.dead or not isinstance(new, RealV) or len(head.pc) < 1 or len(end.pc) != len(head.pc):
            return unknown
        if not all(x.eq(y) for x, y in zip(head.pc, end.pc, strict=True)):
            return unknown  # the body's path narrowed: not every iteration adds its term
        last = head.pc[-1]  # `k < T`: the final pass is at iteration k of T (a loop without break)
        if not (z3.is_lt(last) and z3.is_const(last.arg(0)) and last.arg(0).decl().name() in self.reg.vars):
            return unknown
        it, trips = last.arg(0), last.arg(1)
        if self.reg.info(it.decl().name()).level is not VarLevel.ITER:
            return unknown
        op, delta = _step_of(new.r, a)
        if delta is None or _mentions(delta, placeholders):
            return unknown  # the term depends on an accumulator: not a fold of the iterations
        if self.prove(end.pc, new.r == _combine(op, a, delta)).answer is not Answer.UNSAT:
            return unknown
        origin = f"the loop at {_where(loop)}"
        fold = self.folds.make(op, it, trips, delta, head.pc, origin)
        # the iterations before the final pass's: their own iteration counter, under the same path condition
        t = z3.FreshInt("allsize.t")
        prefix = self.folds.make(
            op, t, it, z3.substitute(delta, (it, t)), [z3.substitute(h, (it, t)) for h in head.pc], origin
        )
        if isinstance(v0, NegInfV):
            # max(-inf, F) is F over a non-empty range (-inf itself is no real: the loop must run); a store in
            # the body sees -inf at the first iteration, so it stays unknown there
            if op is not FoldOp.MAX or self.prove(head.pc[:-2], trips >= 1).answer is not Answer.UNSAT:
                return unknown
            return RealV(v0.t, fold), None
        return RealV(v0.t, _combine(op, v0.r, fold)), _combine(op, v0.r, prefix)

    def _not_shown_to_terminate(
        self, st: State, cond: Expr | None, step: Sequence[Stmt], body: Sequence[Stmt], do_first: bool
    ) -> str:
        """ "" when the loop provably ends for every size: ``for (...; v < E; v += S)`` (or ``<=``, or the
        comparison mirrored) with ``E`` and ``S`` unchanged by the loop, ``v`` changed only by the step, and
        ``S >= 1`` on the path (a wrap of ``v`` is the overflow obligation's); else why not."""
        if do_first or cond is None:
            return "a do-while loop or one without a condition"
        match cond:
            case Binary(op=BinaryOp.LT | BinaryOp.LE, lhs=VarRef(name=v), rhs=bound):
                pass
            case Binary(op=BinaryOp.GT | BinaryOp.GE, lhs=bound, rhs=VarRef(name=v)):
                pass
            case _:
                return "its condition is not `v < bound`"
        assigned = set(self.assigned_names((*body, *step)))
        if v in self.assigned_names(body) or _names(bound) & assigned:
            return f"{v} changes in the body or the bound changes in the loop"
        match step:
            case [Assign(name=w, value=value)] if w == v:
                pass
            case _:
                return f"its step is not `{v} += S`"
        match _same_width_converts(value):
            case Binary(op=BinaryOp.ADD, lhs=lhs, rhs=inc) if _is_var(_same_width_converts(lhs), v):
                pass
            case Binary(op=BinaryOp.ADD, lhs=inc, rhs=rhs) if _is_var(_same_width_converts(rhs), v):
                pass
            case _:
                return f"its step is not `{v} += S`"
        if _names(inc) & assigned:
            return "its stride changes in the loop"
        cp = self.trace.checkpoint()
        try:
            stride = self.eval(inc, st)
        finally:
            self.trace.rollback(cp)
        if not isinstance(stride, IntV) or self.prove(st.pc, stride.e >= 1).answer is not Answer.UNSAT:
            return "its stride is not provably at least 1"
        return ""

    def merge(self, states: Sequence[State]) -> State:
        out = super().merge(states)
        live = [s for s in states if not s.dead]
        if len(live) < 2:
            return out
        n = 0
        first = live[0].pc
        while n < len(first) and all(n < len(s.pc) and s.pc[n].eq(first[n]) for s in live):
            n += 1
        guards = [conj(s.pc[n:]) if len(s.pc) > n else z3.BoolVal(True) for s in live]
        for k, merged in list(out.env.items()):
            vals = [s.env[k] for s in live]
            if not any(isinstance(v, OpaqueV) for v in vals) or all(v is vals[0] for v in vals):
                continue
            tracked = [v for v in vals if isinstance(v, RealV)]
            if len(tracked) == len(vals):
                r = tracked[-1].r
                for g, x in zip(reversed(guards[:-1]), reversed(tracked[:-1]), strict=True):
                    r = z3.If(g, x.r, r)
                out.env[k] = RealV(tracked[0].t, r)
            else:
                out.env[k] = _strip(merged)
        return out

    # expressions

    def eval(self, e: Expr, st: State) -> Value:
        match e:
            case Const(value, t) if t.is_float:
                if float(value) == -math.inf:
                    return NegInfV(t)
                r = self.vocab.literal(float(value), t)
                return RealV(t, r) if r is not None else OpaqueV(t)
            case Select(c, a, b):
                av, bv = self.eval(a, st), self.eval(b, st)
                if not (isinstance(av, OpaqueV) or isinstance(bv, OpaqueV)):
                    return super().eval(e, st)
                if isinstance(av, RealV) and isinstance(bv, RealV):
                    cv = self.cond_of(self.eval(c, st), st)
                    return RealV(av.t, z3.If(cv, av.r, bv.r))
                return OpaqueV(_scalar(e.type))
            case Broadcast(a, t) | Reshape(a, t):
                v = super().eval(e, st)
                src = _shape(a.type)
                if isinstance(v, RealV) and not (src == t.shape or all(d == 1 for d in src)):
                    return OpaqueV(v.t)  # a block reindexed: its term's element indices are not substituted here
                return _strip(v) if not isinstance(v, RealV) else v
            case Permute(a, perm, _):
                v = super().eval(e, st)
                if isinstance(v, RealV) and tuple(perm) != tuple(range(len(perm))):
                    return OpaqueV(v.t)
                return v if isinstance(v, RealV) else _strip(v)
            case Extract() | Insert() | MakeVector():
                return _strip(super().eval(e, st))
            case Reduce(op, a, axis, t):
                v = self.eval(a, st)
                out = super().eval(e, st)  # the operand's integer checks; a fresh value
                src = _shape(a.type)
                if not isinstance(v, RealV) or op is not ReduceOp.SUM or len(src) != 1 or axis != 0:
                    return _strip(out)
                lane = self.elem_index(0, src[0])
                lanes = {x.decl().name() for x, _ in self.elem_indices()}
                if z3.is_int_value(lane) or (self.reg.free_all(st.pc) & lanes):
                    return _strip(out)
                if (self.reg.free(v.r) & lanes) - {lane.decl().name()}:
                    return _strip(out)  # the block's term depends on another block's lanes
                if self.vocab.mentions_arbitrary(v.r):
                    # a masked-off lane without a real `other` (absent, -inf) is no real: arithmetic on it
                    # (`0 * v`) would be cancelled by z3 where the GPU computes NaN into the sum
                    return _strip(out)
                fold = self.folds.make(FoldOp.SUM, lane, z3.IntVal(src[0]), v.r, st.pc, f"the sum at {_where(e)}")
                return RealV(_scalar(t), fold)
            case VarRef() | Binary() | Const():
                return super().eval(e, st)
            case _:
                v = super().eval(e, st)
                # Unary, Cast, MathCall come back through the overrides below; anything else that kept a
                # tracked value unchanged (a reduction, a shuffle of lanes) did not compute it: unknown.
                if isinstance(v, RealV) and not _computes_values(e):
                    return OpaqueV(v.t)
                return v

    def binary(self, op: BinaryOp, a: Value, b: Value, node: Binary, st: State) -> Value:
        if not (isinstance(a, OpaqueV) or isinstance(b, OpaqueV)):
            return super().binary(op, a, b, node, st)
        t = _scalar(node.type)
        if not (isinstance(a, RealV) and isinstance(b, RealV)):
            v = super().binary(op, a, b, node, st)
            return _strip(v)
        x, y = a.r, b.r
        match op:
            case BinaryOp.ADD:
                return RealV(t, x + y)
            case BinaryOp.SUB:
                return RealV(t, x - y)
            case BinaryOp.MUL:
                return RealV(t, x * y)
            case BinaryOp.DIV:
                return self._quotient(t, x, y, st)
            case BinaryOp.MIN:
                return RealV(t, _min(x, y))
            case BinaryOp.MAX:
                return RealV(t, _max(x, y))
            case BinaryOp.LT:
                return BoolV(x < y)
            case BinaryOp.LE:
                return BoolV(x <= y)
            case BinaryOp.GT:
                return BoolV(x > y)
            case BinaryOp.GE:
                return BoolV(x >= y)
            case BinaryOp.EQ:
                return BoolV(x == y)
            case BinaryOp.NE:
                return BoolV(x != y)
            case _:
                return _strip(super().binary(op, a, b, node, st))

    def _quotient(self, t: Type, x: Z, y: Z, st: State) -> Value:
        """``x / y`` where ``y != 0`` is proved on the path; otherwise unknown. z3's real division is
        total (``x / 0`` is some real), so ``0 * (1 / (d - d))`` would vanish where the GPU computes
        ``0 * inf = NaN``."""
        positive = [e > 0 for e in self.vocab.applications("exp", y)]  # 1 + exp(-v): silu, sigmoid
        if self.prove([*st.pc, *positive], y != 0).answer is not Answer.UNSAT:
            return OpaqueV(t)
        return RealV(t, x / y)

    def unary(self, op: UnaryOp, a: Value, t: Type, node: Expr, st: State) -> Value:
        if isinstance(a, RealV) and op is UnaryOp.NEG:
            return RealV(a.t, -a.r)
        return _strip(super().unary(op, a, t, node, st))

    def cast(self, a: Value, t: Type, kind: CastKind, node: Expr, st: State) -> Value:
        if isinstance(t, ScalarType) and t.is_float:
            if isinstance(a, RealV):
                return RealV(t, a.r)  # casts between float formats vanish under exact arithmetic
            if isinstance(a, IntV):
                return RealV(t, z3.ToReal(a.e))
            if isinstance(a, BoolV):
                return RealV(t, z3.If(a.e, z3.RealVal(1), z3.RealVal(0)))
        return _strip(super().cast(a, t, kind, node, st))

    def math(self, fn: MathFn, args: list[Value], t: Type, node: Expr, st: State) -> Value:
        if args and all(isinstance(a, RealV) for a in args) and isinstance(t, ScalarType) and t.is_float:
            rs = [a.r for a in args if isinstance(a, RealV)]
            if fn is MathFn.DIV and len(rs) == 2:
                return self._quotient(t, rs[0], rs[1], st)
            r = _math(fn, rs, self.vocab)
            if r is not None:
                return RealV(t, r)
        return _strip(super().math(fn, args, t, node, st))


def _math(fn: MathFn, rs: list[Z], vocab: _Vocabulary) -> Z | None:
    """A math function over exact reals: piecewise ones exactly, transcendental ones as shared functions."""
    match fn, len(rs):
        case MathFn.ABS, 1:
            return z3.If(rs[0] >= 0, rs[0], -rs[0])
        case MathFn.FMA, 3:
            return rs[0] * rs[1] + rs[2]
        case ((MathFn.EXP | MathFn.TANH | MathFn.ERF | MathFn.SIN | MathFn.COS), 1):
            return vocab.fn(fn.value, rs[0])
        case _:
            # sqrt, rsqrt, log and pow are partial (NaN outside their domain): as total functions they would
            # let `0 * sqrt(v - 1)` vanish where the kernel computes NaN; unknown here (the bounded result stands)
            return None


def _step_of(new: Z, a: Z) -> tuple[FoldOp, Z | None]:
    """How one iteration changes accumulator ``a`` into ``new``: ``a + f`` (then ``f = new[a := 0]``) or
    ``max(a, f)`` / ``min(a, f)`` as :func:`_max` / :func:`_min` build them; the caller proves it."""
    if z3.is_app_of(new, z3.Z3_OP_ITE):
        c, x, y = new.children()
        if x.eq(a) and z3.is_app_of(c, z3.Z3_OP_GE) and c.arg(0).eq(a) and c.arg(1).eq(y):
            return FoldOp.MAX, y
        if x.eq(a) and z3.is_app_of(c, z3.Z3_OP_LE) and c.arg(0).eq(a) and c.arg(1).eq(y):
            return FoldOp.MIN, y
    return FoldOp.SUM, z3.simplify(z3.substitute(new, (a, z3.RealVal(0))))


def _combine(op: FoldOp, x: Z, y: Z) -> Z:
    match op:
        case FoldOp.SUM:
            return x + y
        case FoldOp.MAX:
            return _max(x, y)
        case FoldOp.MIN:
            return _min(x, y)
        case _:
            assert_never(op)


def _mentions(term: Z, consts: Sequence[Z]) -> bool:
    """Whether one of the constants ``consts`` occurs in ``term``."""
    names = {c.decl().name() for c in consts}
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().name() in names:
            return True
        stack.extend(t.children())
    return False


def _monomials(e: Z) -> list[tuple[int, list[Z]]]:
    """``e`` as a sum of monomials ``coefficient * factors`` (z3's sum-of-monomials form)."""
    e = z3.simplify(e, som=True)
    terms = e.children() if z3.is_add(e) else [e]
    out = []
    for t in terms:
        coeff, factors, stack = 1, [], [t]
        while stack:
            x = stack.pop()
            if z3.is_mul(x):
                stack.extend(x.children())
            elif z3.is_int_value(x):
                coeff *= x.as_long()
            else:
                factors.append(x)
        out.append((coeff, factors))
    return out


def _split(e: Z, stride: int | Z) -> tuple[Z, Z]:
    """``(hi, lo)`` with ``e == hi * stride + lo`` as polynomials: the monomials with the factor ``stride``
    (or a coefficient it divides) divided by it, and the others. ``lo`` may be anything: whether it lies in
    ``[0, stride)`` is the caller's to prove."""
    hi: list[Z] = []
    lo: list[Z] = []
    for coeff, factors in _monomials(e):
        if isinstance(stride, int):
            if coeff % stride == 0:
                hi.append(_product(coeff // stride, factors))
            else:
                lo.append(_product(coeff, factors))
            continue
        at = next((i for i, f in enumerate(factors) if f.eq(stride)), None)
        if at is None:
            lo.append(_product(coeff, factors))
        else:
            hi.append(_product(coeff, factors[:at] + factors[at + 1 :]))
    return z3.simplify(z3.Sum(*hi) if hi else z3.IntVal(0)), z3.simplify(z3.Sum(*lo) if lo else z3.IntVal(0))


def _product(coeff: int, factors: Sequence[Z]) -> Z:
    out: Z = z3.IntVal(coeff)
    for f in factors:
        out = out * f
    return out


def _exact_div(e: Z, size: int) -> Z:
    """``e / size`` as the polynomial quotient when every monomial of ``e`` is a multiple of ``size`` (an
    element index from a byte offset, which z3 then compares without integer division), else ``e / size``."""
    hi, lo = _split(e, size)
    return hi if z3.is_int_value(lo) and lo.as_long() == 0 else e / size


def _where(node: Stmt | Expr) -> str:
    span = node.span
    return f"{span.line}:{span.col}" if span.line else "?"


def _computes_values(e: Expr) -> bool:
    from larkc.ir.nodes import Cast, MathCall, Splat, Unary

    return isinstance(e, Unary | Cast | MathCall | Splat)


def _same_width_converts(e: Expr) -> Expr:
    """``e`` without conversions between integer types of one width: `i += blockDim.x` on an ``int`` is
    ``i = (int)((unsigned)i + blockDim.x)``, the same addition where it does not wrap (a conversion out of
    range is an overflow site of the executor: the overflow obligation's). Any other conversion stays."""
    from larkc.ir.nodes import Cast

    while (
        isinstance(e, Cast)
        and e.kind is CastKind.CONVERT
        and isinstance(e.type, ScalarType)
        and isinstance(e.operand.type, ScalarType)
        and e.type.is_int
        and e.operand.type.is_int
        and e.type.bits == e.operand.type.bits
    ):
        e = e.operand
    return e


def _is_var(e: Expr, name: str) -> bool:
    return isinstance(e, VarRef) and e.name == name


def _names(e: Expr) -> set[str]:
    """The variables ``e`` reads."""
    from larkc.ir.walk import sub_exprs

    return {x.name for x in sub_exprs(e) if isinstance(x, VarRef)}


def _strip(v: Value) -> Value:
    """``v`` with every tracked float forgotten (a value computed by code this module does not follow)."""
    from larkc.provers.zvalues import VecV

    if isinstance(v, RealV | NegInfV):
        return OpaqueV(v.t)
    if isinstance(v, VecV):
        return VecV(tuple(_strip(x) for x in v.lanes), v.t)
    return v


def _shape(t: Type) -> tuple[int, ...]:
    return t.shape if isinstance(t, BlockType) else ()


# -- the spec side: an output's element at a symbolic index ---------------------------------------------


class _SpecElements:
    """The reference's elements at symbolic indices, as real terms over the inputs' functions."""

    def __init__(
        self,
        graph: SpecGraph,
        task: Task,
        world: World,
        vocab: _Vocabulary,
        prove: Callable[..., bool],
        folds: FoldTable,
    ) -> None:

        self.folds = folds
        self._memo: dict[tuple[str, tuple[str, ...]], Z] = {}
        self.graph = graph
        self.task = task
        self.world = world
        self.vocab = vocab
        self.prove = prove
        self.inputs = {i.name: i for i in graph.inputs}
        self.nodes: dict[str, SpecNode] = {n.name: n for n in graph.nodes}
        self.types = graph.types()

    def same_layout(self, name: str, tensor: str) -> None:
        """The spec's value ``name`` has the shape of task tensor ``tensor`` (so both flatten alike)."""
        ours = self.types[name].shape
        theirs = self.task.tensors[tensor].shape
        if len(ours) != len(theirs) or not all(
            a == b or self.prove(self.world.int(a) == self.world.int(b)) for a, b in zip(ours, theirs, strict=True)
        ):
            raise _NotHandled(f"the reference's {name} does not have the shape of tensor {tensor}")

    def dims(self, shape: Sequence[ShapeExpr]) -> list[Z]:
        return [self.world.int(d) for d in shape]

    def element(self, name: str, flat: Z, hyps: Sequence[Z] = ()) -> Z:
        """The element of value ``name`` at row-major index ``flat`` (where ``hyps`` hold)."""
        dims = self.dims(self.types[name].shape)
        idx: list[Z] = []
        rest = flat
        for k in range(len(dims) - 1, 0, -1):
            # `flat` split as a polynomial `hi * d + lo` with `0 <= lo < d` proved: then lo is flat % d and hi
            # is flat / d (Euclidean division is unique), without z3's nonlinear integer division
            d = dims[k]
            stride = d.as_long() if z3.is_int_value(d) else d
            hi, lo = _split(rest, stride) if z3.is_int_value(d) or z3.is_const(d) else (rest / d, rest % d)
            if not (z3.is_int_value(d) or z3.is_const(d)) or not self.prove(z3.And(lo >= 0, lo < d), *hyps):
                hi, lo = rest / d, rest % d
            idx.append(lo)
            rest = hi
        idx.append(rest)
        return self.at(name, list(reversed(idx)) if dims else [])

    def at(self, name: str, idx: Sequence[Z]) -> Z:
        from larkc.reference.spec import Absent, Ref, Scalar, SpecOp

        if name in self.inputs:
            inp = self.inputs[name]
            if not inp.type.dtype.is_float or name not in self.task.tensors:
                raise _NotHandled(f"the reference reads {name}, which is not a float input of the task")
            self.same_layout(name, name)
            dims = self.dims(inp.type.shape)
            flat: Z = z3.IntVal(0)
            for d, i in zip(dims, idx, strict=True):
                flat = flat * d + i
            return self.vocab.tensor(name)(flat)
        node = self.nodes.get(name)
        if node is None:
            raise _NotHandled(f"the reference's value {name} is a parameter, not handled for all sizes")
        out_shape = node.type.shape

        def operand(k: int) -> Z | None:
            a = node.args[k]
            match a:
                case Ref(ref):
                    return self.at(ref, self.broadcast(self.types[ref].shape, out_shape, idx))
                case Scalar(v):
                    if isinstance(v, bool):
                        return z3.RealVal(int(v))
                    if isinstance(v, int | float):
                        return _real(Fraction(v))
                    return z3.ToReal(self.world.int(v))
                case Absent():
                    return None
            raise _NotHandled(f"operand {a} of {node.op.value}")

        def arg(k: int) -> Z:
            v = operand(k)
            if v is None:
                raise _NotHandled(f"an absent operand of {node.op.value}")
            return v

        if not node.type.dtype.is_float:
            raise _NotHandled(f"{node.op.value} of type {node.type.dtype}")
        op = node.op
        match op:
            case SpecOp.ADD:
                return arg(0) + arg(1)
            case SpecOp.SUB:
                return arg(0) - arg(1)
            case SpecOp.MUL:
                return arg(0) * arg(1)
            case SpecOp.DIV:
                return arg(0) / arg(1)
            case SpecOp.MAXIMUM:
                return _max(arg(0), arg(1))
            case SpecOp.MINIMUM:
                return _min(arg(0), arg(1))
            case SpecOp.NEG:
                return -arg(0)
            case SpecOp.ABS:
                x = arg(0)
                return z3.If(x >= 0, x, -x)
            case SpecOp.RECIPROCAL:
                return 1 / arg(0)
            case SpecOp.RELU:
                return _max(arg(0), z3.RealVal(0))
            case SpecOp.CLAMP:
                x = arg(0)
                lo, hi = operand(1), operand(2)
                if lo is not None:
                    x = _max(x, lo)
                if hi is not None:
                    x = _min(x, hi)
                return x
            case SpecOp.EXP | SpecOp.LOG | SpecOp.SQRT | SpecOp.TANH | SpecOp.ERF | SpecOp.SIN | SpecOp.COS:
                return self.vocab.fn(op.value, arg(0))
            case SpecOp.RSQRT:
                return 1 / self.vocab.fn("sqrt", arg(0))
            case SpecOp.SIGMOID:
                return 1 / (1 + self.vocab.fn("exp", -arg(0)))
            case SpecOp.SILU:
                x = arg(0)
                return x / (1 + self.vocab.fn("exp", -x))
            case SpecOp.POW:
                e = node.args[1]
                power = e.value if isinstance(e, Scalar) and type(e.value) is int else -1
                if 0 <= power <= 4:  # a small integer power is a product (x ** 2 = x * x)
                    x = arg(0)
                    r: Z = z3.RealVal(1)
                    for _ in range(power):
                        r = r * x
                    return r
                return self.vocab.fn("pow", arg(0), arg(1))
            case SpecOp.CAST:
                return arg(0)  # float to float: exact under real arithmetic (the dtype was checked above)
            case SpecOp.SUM | SpecOp.MEAN | SpecOp.AMAX | SpecOp.AMIN | SpecOp.MATMUL | SpecOp.MM:
                # by the index terms' text: a z3 AST id may be reused once its term is freed
                key = (name, tuple(z3.simplify(i).sexpr() for i in idx))
                hit = self._memo.get(key)
                if hit is None:
                    hit = self._reduction(node, idx)
                    self._memo[key] = hit
                return hit
            case _:
                raise _NotHandled(f"the reference's {op.value} (not an elementwise op this prover handles)")

    def _reduction(self, node: SpecNode, idx: Sequence[Z]) -> Z:
        """A reduction's element at ``idx``: a fold over the reduced dimension (one dimension, or the
        contraction of a 2-D matrix product), the operand read at the fold's index."""
        from larkc.reference.spec import Ref, SpecOp

        refs = [a.name for a in node.args if isinstance(a, Ref)]
        k = z3.FreshInt("allsize.k")
        if node.op in (SpecOp.MATMUL, SpecOp.MM):
            if len(refs) != 2 or len(idx) != 2 or any(len(self.types[r].shape) != 2 for r in refs):
                raise _NotHandled(f"{node.op.value} of operands that are not two matrices")
            a, b = refs
            n = self.world.int(self.types[a].shape[1])
            body = self.at(a, [idx[0], k]) * self.at(b, [k, idx[1]])
            return self.folds.make(FoldOp.SUM, k, n, body, (), f"the reference's {node.name}")
        attrs = dict(node.attrs)
        dims, keepdim = attrs.get("dims"), attrs.get("keepdim")
        if len(refs) != 1 or not isinstance(dims, tuple) or len(dims) != 1 or not isinstance(dims[0], int):
            raise _NotHandled(f"{node.op.value} over other than one dimension")
        src = self.types[refs[0]].shape
        d = dims[0] % len(src) if src else 0
        inner = list(idx)
        if keepdim:
            inner[d] = k
        else:
            inner.insert(d, k)
        if len(inner) != len(src):
            raise _NotHandled(f"{node.op.value} whose result's rank does not match its keepdim")
        n = self.world.int(src[d])
        op = {SpecOp.AMAX: FoldOp.MAX, SpecOp.AMIN: FoldOp.MIN}.get(node.op, FoldOp.SUM)
        fold = self.folds.make(op, k, n, self.at(refs[0], inner), (), f"the reference's {node.name}")
        return fold / z3.ToReal(n) if node.op is SpecOp.MEAN else fold

    def broadcast(self, shape: Sequence[ShapeExpr], out: Sequence[ShapeExpr], idx: Sequence[Z]) -> list[Z]:
        """The index into an operand of ``shape`` broadcast to ``out`` at ``idx`` (trailing alignment)."""
        if len(shape) > len(out):
            raise _NotHandled("an operand of higher rank than its result")
        lead = len(out) - len(shape)
        res: list[Z] = []
        for k, d in enumerate(shape):
            o = out[lead + k]
            dz, oz = self.world.int(d), self.world.int(o)
            if z3.is_int_value(z3.simplify(dz)) and z3.simplify(dz).as_long() == 1:
                res.append(z3.IntVal(0))
            elif d == o or self.prove(dz == oz):
                res.append(idx[lead + k])
            else:
                raise _NotHandled("a broadcast whose sizes are not provably equal or 1")
        return res


# -- the prover -----------------------------------------------------------------------------------------


def prove_allsize(
    module: Module,
    kernel: str,
    task: Task,
    graph: SpecGraph,
    budget: Budget,
    instances: Sequence[Mapping[str, int]] = (),
    hints: Hints | None = None,
) -> list[AllSizeAttempt]:
    """One attempt per task output (in order): proved for every size the task allows, or why not.

    ``hints`` are loop invariants from outside (hints.py): each is checked where its loop is summarised and
    used only if it holds (:attr:`AllSizeAttempt.hint_checks` says which were).

    A block-level (Triton) kernel is the specialisation lowered for ``instances[0]``: the constraints that
    select it are part of the scope, and ``covers_instances`` says whether every instance satisfies them."""
    specialised_for = instances[0] if instances else None
    from larkc.provers.parametric import kernel_world  # the parametric prover's world and bindings

    start = time.monotonic()
    outputs = list(task.outputs)

    def refused(why: str) -> list[AllSizeAttempt]:
        took = time.monotonic() - start
        return [AllSizeAttempt(o, False, why, seconds=took) for o in outputs]

    if len(graph.outputs) != len(outputs):
        return refused("the reference's outputs do not match the task's")
    outside = sorted({n.op.value for n in graph.nodes} - ELEMENTWISE_OPS - REDUCTION_OPS)
    if outside:  # before any solver work: most tasks stop here
        return refused(f"the reference's {', '.join(outside)} (not an op this prover handles)")
    unfollowed = _unfollowed_construct(module)
    if unfollowed:  # before the world is built (for a Triton matmul that alone takes about a minute)
        return refused(f"the kernel computes with {unfollowed}, whose values this prover does not follow")
    budget = dataclasses.replace(budget, seconds=min(budget.seconds, ATTEMPT_SECONDS))
    try:
        kw = kernel_world(module, kernel, task, budget, start + budget.seconds, specialised_for)
    except LarkcError as e:
        return refused(f"cannot analyse the kernel: {e.message}")
    fn = kw.fn
    if kw.specialisation:
        # A proof would be about the sizes of this one specialisation (a constexpr or heuristic of the sizes),
        # which the verdict's "for all sizes" would not say clearly: every specialisation is future work.
        return refused(f"the kernel is lowered for one specialisation of the sizes ({kw.specialisation[0]})")
    cases = _block_cases(kw.world)
    if cases is None:
        return refused(f"the block size {kw.world.block[0]} takes more than {MAX_BLOCK_CASES} values")
    if cases:
        return _per_block_size(
            module, kernel, task, graph, budget, instances, kw.world, kw.facts, kw.constraints, cases, start, hints
        )
    constants = _constants(graph, task)
    vocab = _Vocabulary(constants)
    values = dict(kw.param_values)
    for p in fn.params:
        b = task.binding(p.name)
        if isinstance(b, ScalarArg) and isinstance(p.type, ScalarType) and p.type.is_float:
            r = vocab.literal(float(b.value), p.type)
            if r is not None:
                values[p.name] = RealV(p.type, r)
    checker = _Checker(kw.world, kw.reg, kw.session)
    folds = FoldTable(checker.valid)
    ex = ValueExecutor(
        module, fn, task, kw.world, kw.reg, kw.session, values, vocabulary=vocab, folds=folds, hints=hints
    )
    trace = ex.run()
    last = {c.line: c for c in ex.hint_checks}
    checks = tuple(last.values())
    unmatched = sorted({h.line for h in hints.invariants} - set(last)) if hints is not None else []
    nowhere = "no loop summarised at line {} (or none of its floats is followed before it)"
    checks += tuple(
        HintCheck(n, tuple(h.var for h in hints.for_line(n)), HintStatus.REJECTED, nowhere.format(n))
        for n in unmatched
        if hints is not None
    )
    used = hints.source if hints is not None and any(c.status is HintStatus.CHECKED for c in checks) else ""
    constraints = kw.constraints
    inside = bool(instances) and all(_holds_at(kw.world, kw.facts, env) for env in instances)
    why = _refusal(ex, task, fn)
    if why:
        return [dataclasses.replace(a, hint_checks=checks) for a in refused(why)]
    spec = _SpecElements(graph, task, kw.world, vocab, checker.valid, folds)
    attempts: list[AllSizeAttempt] = []
    for name, spec_out in zip(outputs, graph.outputs, strict=True):
        t0 = time.monotonic()
        checker.candidates.clear()
        try:
            ok, detail = _prove_output(ex, checker, spec, task, name, spec_out, trace.accesses)
        except _NotHandled as e:
            ok, detail = False, str(e)
        except z3.Z3Exception as e:  # a term this module built that z3 rejects: its own limit, not a verdict
            ok, detail = False, f"z3 rejected a query: {e}"
        launch = Assumption(AssumptionKind.MODEL, kw.world.launch_text)
        assumptions = (EXACT_REALS, launch, NO_ALIASING, *dict.fromkeys(vocab.readings))
        candidate = checker.candidates[0] if checker.candidates and not ok else None
        took = time.monotonic() - t0
        if ok and used:
            lines = ", ".join(str(c.line) for c in checks if c.status is HintStatus.CHECKED)
            detail += f"; with the loop invariant(s) at line {lines} proposed by {used}, checked by the engine"
        attempts.append(
            AllSizeAttempt(
                name, ok, detail, constraints, assumptions, took, inside, candidate, checks, used if ok else ""
            )
        )
    return attempts


def _block_cases(world: World) -> list[tuple[int, dict[str, int]]] | None:
    """The values ``blockDim.x`` takes over the allowed sizes when it is a term over them (``32 * min(cdiv(d,
    32), 8)``), each with sizes where it takes that value: [] when it is a constant (or another dimension is
    not), None past :data:`MAX_BLOCK_CASES`. The values are every model z3 finds under the world's facts
    and the launch's, one blocked at a time, so the list is exhaustive: each allowed size has one of them."""
    block = [z3.simplify(b) for b in world.block]
    if z3.is_int_value(block[0]) or not all(z3.is_int_value(b) for b in block[1:]):
        return []
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*world.facts, *world.launch_facts)
    values: list[tuple[int, dict[str, int]]] = []
    while len(values) <= MAX_BLOCK_CASES:
        match solver.check():
            case z3.sat:
                m = solver.model()
                v = m.eval(block[0], model_completion=True).as_long()
                sizes = {n: m.eval(x, model_completion=True).as_long() for n, x in world.syms.items()}
                values.append((v, sizes))
                solver.add(block[0] != v)
            case z3.unsat:
                return sorted(values, key=lambda c: c[0])
            case _:
                return None  # not known to be exhaustive
    return None


def _per_block_size(
    module: Module,
    kernel: str,
    task: Task,
    graph: SpecGraph,
    budget: Budget,
    instances: Sequence[Mapping[str, int]],
    world: World,
    facts: Sequence[Z],
    constraints: tuple[str, ...],
    cases: Sequence[tuple[int, dict[str, int]]],
    start: float,
    hints: Hints | None,
) -> list[AllSizeAttempt]:
    """One attempt per output, each the conjunction of the attempts for every value ``blockDim.x`` takes (a
    task whose block is ``block[0] == v`` added to its constraints, the block the constant ``v``): proved
    when every case is, for the task's own constraints (the cases are exhaustive); else the first case that
    is not, named, with its candidate sizes."""
    per_case: list[list[AllSizeAttempt]] = []
    for v, sizes in cases:
        left = BLOCK_CASES_SECONDS - (time.monotonic() - start)
        if left <= 0:
            why = f"out of time for the block-size cases ({BLOCK_CASES_SECONDS:.0f} s) before blockDim.x = {v}"
            per_case.append([AllSizeAttempt(o, False, why) for o in task.outputs])
            break
        case = dataclasses.replace(
            task,
            block=(ShapeNum(v), *task.block[1:]),
            constraints=(*task.constraints, ShapeCmp(CmpOp.EQ, task.block[0], ShapeNum(v))),
            instances=(sizes,),  # sizes of this case (the task's own may have other block sizes)
        )
        case_budget = dataclasses.replace(budget, seconds=min(budget.seconds, left))
        got = prove_allsize(module, kernel, case, graph, case_budget, (), hints)
        per_case.append(got)
        if not all(a.proved for a in got):
            break
    took = time.monotonic() - start
    inside = bool(instances)  # every instance has one of the exhaustive block sizes
    inside = inside and all(_holds_at(world, facts, env) or _admitted(world, facts, env) for env in instances)
    values = ", ".join(str(v) for v, _ in cases)
    out: list[AllSizeAttempt] = []
    for k, name in enumerate(task.outputs):
        failed = next(((c[0], got[k]) for c, got in zip(cases, per_case, strict=False) if not got[k].proved), None)
        if failed is not None or len(per_case) < len(cases):
            v, a = failed if failed is not None else (cases[len(per_case) - 1][0], per_case[-1][k])
            detail = f"at blockDim.x = {v} (one of the block sizes {values}): {a.detail}"
            out.append(
                AllSizeAttempt(name, False, detail, seconds=took, candidate=a.candidate, hint_checks=a.hint_checks)
            )
            continue
        first = per_case[0][k]
        detail = f"for each block size the constraints admit (blockDim.x = {values}), {first.detail}"
        assumptions = tuple(dict.fromkeys(x for got in per_case for x in got[k].assumptions))
        checks, source = first.hint_checks, first.hint_source
        out.append(AllSizeAttempt(name, True, detail, constraints, assumptions, took, inside, None, checks, source))
    return out


def _unfollowed_construct(module: Module) -> str:
    """A construct of the module whose values :class:`ValueExecutor` never tracks (a product of blocks, a
    scan, a reduction with a combine function), which makes every attempt fail: "" when there is none."""
    from larkc.ir.nodes import Combine, Dot, Scan
    from larkc.ir.walk import stmt_exprs, sub_exprs

    for f in module.functions:
        for st in walk(f.body):
            for top in stmt_exprs(st):
                for x in sub_exprs(top):
                    if isinstance(x, Dot | Scan | Combine):
                        return type(x).__name__.lower()
    return ""


def _holds_at(world: World, facts: Sequence[Z], env: Mapping[str, int]) -> bool:
    """Whether every fact is true at the sizes ``env`` (a fact that does not simplify to true says no)."""
    pairs = [(v, z3.IntVal(env[s])) for s, v in world.syms.items() if s in env]
    return all(z3.is_true(z3.simplify(z3.substitute(f, *pairs) if pairs else f)) for f in facts)


def _admitted(world: World, facts: Sequence[Z], env: Mapping[str, int]) -> bool:
    """Whether the facts are satisfiable at the sizes ``env``: for facts whose other variables are functions
    of the sizes (``next_pow2(d)``'s power, defined by its facts), that they hold there."""
    solver = z3.Solver()
    solver.set("timeout", 5000)
    solver.add(*facts, *(v == env[s] for s, v in world.syms.items() if s in env))
    return bool(solver.check() == z3.sat)


def _constants(graph: SpecGraph, task: Task) -> list[float]:
    from larkc.reference.spec import Scalar

    out = [a.value for n in graph.nodes for a in n.args if isinstance(a, Scalar) and isinstance(a.value, float)]
    out += [float(b.value) for b in (task.binding(p) for p in task.bindings) if isinstance(b, ScalarArg)]
    return out


def _refusal(ex: ValueExecutor, task: Task, fn: Function) -> str:
    """Why the kernel is outside this slice ("" when it is inside)."""
    trace = ex.trace
    if trace.issues:
        return f"the executor could not model the kernel: {trace.issues[0].reason}"
    outputs = set(task.outputs)
    if outputs & set(task.inputs):
        return "an output is also an input (in place)"
    for a in trace.accesses:
        r = a.region
        if a.kind in (AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC):
            return f"an atomic ({a.text})"
        if r.kind is RegionKind.SHARED and r.key in ex.trees:
            tree = ex.trees[r.key]
            if tree.unknown:
                return f"{r.name}: {tree.unknown}"
            continue  # a tree reduction's array (segments.py): its loads are followed only where it is matched
        if r.kind is not RegionKind.GLOBAL:
            return f"an access to {r.name} ({a.text}): only elementwise kernels over global memory are handled"
        if a.kind is AccessKind.WRITE and r.tensor not in outputs:
            return f"a store to {r.name}, not an output ({a.text})"
        if a.kind is AccessKind.READ and r.tensor in outputs:
            return f"a read of output {r.tensor} ({a.text})"
    return ""


class _Checker:
    """Validity checks under the world's facts (z3 ``unsat`` of the negation; unknown is not valid)."""

    def __init__(self, world: World, reg: Registry, session: Session) -> None:
        self.world = world
        self.reg = reg
        self.session = session
        self.candidates: list[dict[str, int]] = []  # the sizes :meth:`sizes_against` found, in order

    def valid(self, goal: Z, *hyps: Z, instantiated: bool = False) -> bool:
        return self.answer(goal, *hyps, instantiated=instantiated) is Answer.UNSAT

    def answer(self, goal: Z, *hyps: Z, instantiated: bool = False) -> Answer:
        """z3's answer to ``hyps and not goal`` with the domain facts of every variable in them, or, when
        ``instantiated`` (``hyps`` already hold the per-thread facts at a witness), of the global ones only."""
        names = self.reg.free_all([goal, *hyps])
        if instantiated:
            names = frozenset(v for v in names if self.reg.info(v).level is VarLevel.GLOBAL)
        facts = self.reg.facts(names)
        return self.session.check([*facts, *hyps, z3.Not(goal)], want_model=False).answer

    def sizes_against(self, goal: Z, *hyps: Z, instantiated: bool = False) -> dict[str, int] | None:
        """The smallest sizes (least sum of the symbols) of a model of ``hyps and not goal``, or None: a
        *candidate* only (a model may rest on a guessed witness or on values no execution reaches)."""
        names = self.reg.free_all([goal, *hyps])
        if instantiated:
            names = frozenset(v for v in names if self.reg.info(v).level is VarLevel.GLOBAL)
        conjuncts = [*self.reg.facts(names), *hyps, z3.Not(goal)]
        out = self.session.check(conjuncts)
        if out.answer is not Answer.SAT or out.model is None or not self.world.syms:
            return None
        syms = list(self.world.syms.values())
        model = minimize_sum(self.session, syms, conjuncts, out.model)
        sizes = {s: model_int(model, v) for s, v in self.world.syms.items()}
        found = {s: v for s, v in sizes.items() if v is not None}
        self.candidates.append(found)
        return found


def _prove_output(
    ex: ValueExecutor,
    checker: _Checker,
    spec: _SpecElements,
    task: Task,
    name: str,
    spec_out: str,
    accesses: Sequence[Access],
) -> tuple[bool, str]:
    """Obligations (a) and (c) for output ``name``: proved, and how; or not, and why."""
    ts = task.tensors[name]
    es = ts.dtype.size
    n = checker.world.tensor_elems[name]
    spec.same_layout(spec_out, name)
    stores = [a for a in accesses if a.kind is AccessKind.WRITE and a.region.tensor == name]
    if not stores:
        return False, f"no store to {name}"
    # The inputs a value reads must be aligned elements (an unaligned read would mix two elements' bytes).
    for tensor, off, pc, size in ex.float_reads:
        if not checker.valid(off % size == 0, *pc):
            return False, f"a read of {tensor} at an offset not provably a multiple of {size} bytes"
    # (c) every store stores the reference's element at its index
    for a in stores:
        hit = ex.stored.get(id(a))
        value = hit[1] if hit is not None and hit[0] is a else None
        if not isinstance(value, RealV):
            return False, f"the value stored by `{a.text}` is not followed (not an elementwise computation)"
        if a.size != es or (a.shape and len(a.shape) > 1):
            return False, f"`{a.text}` stores {a.size} bytes, not one element of {name}"
        if not checker.valid(a.offset % es == 0, *a.pc):
            return False, f"`{a.text}` may store at an offset that is not a whole element"
        j = _exact_div(a.offset, es)
        where = (*a.pc, j >= 0, j < n)
        # the reference's folds become the kernel's where they are provably equal (folds.py); the others
        # stay free: the comparison then holds only if it does for every value of them
        spec.folds.failures.clear()
        goal = value.r == spec.folds.unify(value.r, spec.element(spec_out, j, where), where)
        where = (*where, *spec.folds.facts(goal))
        # a store outside the output is the bounds obligation's (refuted there), not an element's value
        answer = checker.answer(goal, *where)
        if answer is not Answer.UNSAT:
            how = "differs at some sizes or inputs" if answer is Answer.SAT else "could not be decided"
            # where two folds failed to match, a model of their side condition is where to look (a free fold
            # makes any size a model of the comparison itself)
            failed = spec.folds.failures[0] if spec.folds.failures else (goal, where)
            at = checker.sizes_against(failed[0], *failed[1]) if answer is Answer.SAT else None
            return False, f"the value `{a.text}` stores {how} from the reference's element{_candidate(at)}"
    # (a) every element is written: one store whose witness thread reaches it for each index
    reasons = []
    for a in stores:
        why = _covers(checker, a, n, es)
        if not why:
            return True, (
                f"for every size: each of the {name} elements is stored by `{a.text}` and every store stores "
                f"the reference's element (z3, {len(stores)} store(s))"
            )
        reasons.append(why)
    return False, f"cannot show every element of {name} is written: {'; '.join(reasons)}"


def _is_coordinate(reg: Registry, name: str) -> bool:
    """A launch coordinate (``threadIdx``, ``blockIdx``), a loop's iteration counter or a block's element
    index: the variables that say which store instance is meant."""
    info = reg.info(name)
    match info.level:
        case VarLevel.ITER:
            return True
        case VarLevel.BLOCK:
            return info.what.startswith("blockIdx")
        case VarLevel.THREAD:
            return info.what.startswith(("threadIdx", "element index"))
        case VarLevel.GLOBAL:
            return False
        case _:
            assert_never(info.level)


def _peel_rank(reg: Registry, name: str) -> tuple[int, str]:
    info = reg.info(name)
    base = reg.base_name(name).split("#", 1)[0]
    if info.level is VarLevel.ITER:  # loops in the order they were met: the outermost first
        return (0, name.rsplit("#", 1)[-1].zfill(12))
    if base.startswith("blockIdx"):
        return (1, str("zyx".index(base[-1])))
    if base.startswith("threadIdx"):
        return (2, str("zyx".index(base[-1])))
    return (3, base)


def _covers(checker: _Checker, a: Access, n: Z, es: int) -> str:
    """ "" when every element ``0 <= j < n`` is stored by store record ``a`` of some real thread; else why not.

    The witness peels the coordinates in the order of their kind (iterations, blocks, threads, element
    indices); where that fails, in the order of their coefficients in the address (a 2-D grid of 2-D blocks
    over a row-major matrix: ``blockIdx.y``, ``threadIdx.y``, ``blockIdx.x``, ``threadIdx.x``). A wrong
    order only makes the proof fail."""
    why = _covers_in(checker, a, n, es, by_coefficient=False)
    if why and not _covers_in(checker, a, n, es, by_coefficient=True, quiet=True):
        return ""
    return why


def _covers_in(checker: _Checker, a: Access, n: Z, es: int, *, by_coefficient: bool, quiet: bool = False) -> str:
    """:func:`_covers` with one peeling order (``quiet``: no candidate sizes are recorded)."""
    reg = checker.reg
    free = reg.free_all([a.offset, *a.pc])
    # The coordinates of a store instance: which thread, block, iteration and block element makes it. Only
    # they get a witness; every other variable (a loop's trip count) is a function of them, left free under
    # its facts at the witness. Substituting a guess for such a variable would make its facts false at the
    # guess, and so the query vacuous.
    coords = sorted((v for v in free if _is_coordinate(reg, v)), key=lambda v: _peel_rank(reg, v))
    if not reg.all_exact(free):
        inexact = ", ".join(i.what for i in reg.inexact(free))
        return f"`{a.text}` depends on {inexact}, whose values no execution is known to reach"
    if any(z3.is_func_decl(reg.decls[v]) for v in coords):
        return f"`{a.text}` depends on a function of the thread"
    j = z3.Int(f"allsize.j.{id(a)}")
    target = j * es
    zero = [(reg.decls[v], z3.IntVal(0)) for v in coords]
    base = z3.simplify(z3.substitute(a.offset, *zero)) if zero else z3.simplify(a.offset)
    if by_coefficient:
        coords.sort(key=lambda v: _coefficient_rank(a.offset, reg.decls[v], zero, base), reverse=True)
    rest: Z = target - base
    witness: list[tuple[Z, Z]] = []
    for v in coords:
        var = reg.decls[v]
        unit = [(var, z3.IntVal(1))] + [p for p in zero if not p[0].eq(var)]
        coeff = z3.simplify(z3.substitute(a.offset, *unit) - base)
        if z3.is_int_value(coeff) and coeff.as_long() == 0:
            w: Z = z3.IntVal(0)
        else:
            w = rest / coeff
            rest = rest - w * coeff
        witness.append((var, w))
    in_range = [z3.And(j >= 0, j < n)]
    own = [f for v in coords for f in reg.info(v).facts]  # each coordinate's own domain (lo/hi)
    w_own = [z3.substitute(f, *witness) for f in own] if witness else own
    in_launch = z3.And(*w_own) if w_own else z3.BoolVal(True)
    if not checker.valid(in_launch, *in_range, instantiated=True):
        at = None if quiet else checker.sizes_against(in_launch, *in_range, instantiated=True)
        return f"`{a.text}`: the witness thread for an index is not always a thread of the launch{_candidate(at)}"
    # with the witness a real thread, the other variables' facts (a loop's trip count, ...) hold at it
    others = [f for v in sorted(reg.free_all([a.offset, *a.pc])) if v not in coords for f in reg.info(v).all_facts()]
    # (a coordinate's own slot facts, invariants at a reached iteration, are not taken: reaching is the goal)
    hyps = [*in_range, *w_own, *(z3.substitute(f, *witness) if witness else f for f in others)]
    goal = z3.And(
        *(z3.substitute(c, *witness) if witness else c for c in a.pc), z3.substitute(a.offset, *witness) == target
    )
    if not checker.valid(goal, *hyps, instantiated=True):
        at = None if quiet else checker.sizes_against(goal, *hyps, instantiated=True)
        return f"`{a.text}` does not provably reach every index{_candidate(at)}"
    return ""


def _coefficient_rank(offset: Z, var: Z, zero: Sequence[tuple[Z, Z]], base: Z) -> tuple[int, int]:
    """How large ``var``'s coefficient in ``offset`` is: its number of symbolic factors, then its number."""
    unit = [(var, z3.IntVal(1))] + [p for p in zero if not p[0].eq(var)]
    coeff = z3.simplify(z3.substitute(offset, *unit) - base)
    monos = _monomials(coeff)
    if len(monos) != 1:
        return (0, 0)
    c, factors = monos[0]
    return (len(factors), abs(c))


def _candidate(sizes: Mapping[str, int] | None) -> str:
    """The sizes of a model, as a candidate for the pipeline's simulator (never a refutation here)."""
    if not sizes:
        return ""
    return " (a candidate, not confirmed: " + ", ".join(f"{s}={v}" for s, v in sizes.items()) + ")"


# -- the verdict: an upgrade of the bounded result ------------------------------------------------------


def upgrade_equivalence(
    task: Task,
    module: Module,
    kernel: Function,
    graph: object | None,
    per_ob: dict[Obligation, list[ObligationResult]],
    budget: Budget,
    chosen: Sequence[Mapping[str, int]],
    config: object | None = None,
    settle: Callable[[ObligationResult], ObligationResult] | None = None,
    hints: Hints | None = None,
) -> dict[Obligation, list[ObligationResult]]:
    """The equivalence results with each bounded proof upgraded to every size where :func:`prove_allsize`
    proves it too (one combined result then); a refutation or unknown of the bounded prover stands, and a
    bounded refutation the all-size proof contradicts becomes UNKNOWN naming both (a defect of one side).

    Where the attempt fails with candidate sizes, ``settle`` (the pipeline's check of a possible violation:
    the simulator, then the bounded prover, at those sizes) is given an UNKNOWN carrying them as a witness:
    a REFUTED answer refutes the obligation at those sizes; any other answer leaves the bounded proof, with
    what was found in its detail. Called once per specialisation by the pipeline; anything outside the slice
    leaves ``per_ob`` as it is."""
    from larkc.reference.spec import SpecGraph

    eq = [ob for ob in per_ob if ob.kind is ObligationKind.EQUIVALENCE and per_ob[ob]]
    if not eq or not isinstance(graph, SpecGraph) or config or not chosen or task.torch_steps:
        return per_ob
    attempts = {a.output: a for a in prove_allsize(module, kernel.name, task, graph, budget, chosen, hints)}
    out = dict(per_ob)
    for ob in eq:
        a = attempts.get(ob.subject)
        bounded = combine(per_ob[ob])
        if a is None:
            continue
        if not a.proved:
            if bounded.status is Status.PROVED and bounded.scope.kind is ScopeKind.BOUNDED:
                note = f"for all sizes unknown ({PROVER_NAME}): {a.detail}"
                if settle is not None and a.candidate:
                    scope = Scope.parametric(task.symbols, a.constraints)
                    sizes = ", ".join(f"{s}={v}" for s, v in a.candidate.items())
                    message = f"possible difference at {sizes}"
                    w = Counterexample(CounterexampleKind.POSSIBLE, message, a.candidate, _launch(task, a.candidate))
                    possible = ObligationResult(
                        ob, Status.UNKNOWN, scope, PROVER_NAME, a.detail, a.assumptions, None, a.seconds, (w,)
                    )
                    settled = settle(possible)
                    if settled.status is Status.REFUTED:
                        out[ob] = [settled]
                        continue
                    note = f"for all sizes unknown ({PROVER_NAME}): {settled.detail}"
                detail = f"{bounded.detail}; {note}" if bounded.detail else note
                out[ob] = [
                    ObligationResult(
                        ob,
                        bounded.status,
                        bounded.scope,
                        bounded.prover,
                        detail,
                        bounded.assumptions,
                        None,
                        bounded.seconds + a.seconds,
                    )
                ]
            continue
        if not a.covers_instances:
            continue  # the proof is about another specialisation than some instance's: nothing to upgrade
        if bounded.status is Status.REFUTED:
            detail = (
                f"internal inconsistency: {PROVER_NAME} proved equivalence({ob.subject}) for every size but the "
                f"bounded prover refuted it ({bounded.detail or 'counterexample'}): a defect of one of them"
            )
            out[ob] = [
                ObligationResult(
                    ob,
                    Status.UNKNOWN,
                    bounded.scope,
                    f"{bounded.prover}+{PROVER_NAME}",
                    detail,
                    bounded.assumptions,
                    None,
                    bounded.seconds + a.seconds,
                )
            ]
            continue
        if bounded.status is not Status.PROVED:
            continue  # only an upgrade of a bounded proof
        scope = Scope.parametric(task.symbols, a.constraints)
        seen = dict.fromkeys((*bounded.assumptions, *a.assumptions))
        detail = f"{a.detail}; bounded: {bounded.detail}" if bounded.detail else a.detail
        out[ob] = [
            ObligationResult(
                ob,
                Status.PROVED,
                scope,
                f"{PROVER_NAME}+{bounded.prover}",
                detail,
                tuple(seen),
                None,
                bounded.seconds + a.seconds,
            )
        ]
    return out


def _launch(task: Task, sizes: Mapping[str, int]) -> str:
    """The launch text at ``sizes`` (as the parametric prover writes it; empty when it has none there)."""
    try:
        grid, block, shared = task.launch.concrete(dict(sizes))
    except LarkcError:
        return ""
    text = f"grid {grid[0]}x{grid[1]}x{grid[2]}, block {block[0]}x{block[1]}x{block[2]}"
    return text + (f", {shared} bytes of dynamic shared memory" if shared else "")
