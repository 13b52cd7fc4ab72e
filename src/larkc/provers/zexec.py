"""Symbolic execution of a CUDA kernel for one generic thread, over z3 (the parametric prover's core).

:class:`Executor` runs a thread-level kernel once for an arbitrary thread of an arbitrary block of the
task's launch, with every size symbolic, and records in a :class:`Trace`:

* every memory access (:class:`Access`: kind, buffer, byte offset, size, alignment, the path
  condition under which it happens and the number of block and warp barriers the thread has passed);
* every synchronisation point (:class:`Sync`: ``__syncthreads``, ``__syncwarp``, shuffles, votes) with
  its path condition and the condition under which the thread has already exited;
* every integer operation that may leave its type's range (:class:`Site`), and every construct the
  prover cannot model (:class:`Issue`), with the obligations it makes unknown.

A record is a formula over *base* variables; :meth:`Registry.instance` instantiates it for two
distinct threads, which is how the race and barrier checks of :mod:`larkc.provers.parametric` pair
threads. Memory contents are not tracked: a load yields a fresh value (within the declared value range
of a read-only index tensor), which over-approximates every execution.

**Control flow.** ``if`` runs both arms under the branch condition and merges the states (values
become ``If`` terms); ``return``, ``break`` and ``continue`` leave their paths. **Loops** are unrolled
when their condition is a constant at every iteration (tree reductions over a constant block size,
fixed tiles), up to :data:`UNROLL_LIMIT` iterations. Other loops are *summarised* at an arbitrary
iteration ``k`` (a fresh iteration counter):

* a variable the loop changes by a loop-invariant amount ``D`` on every iteration (checked by the
  solver, including that the step does not wrap) is the closed form ``init + k * D`` (strided and
  grid-stride loops);
* any other variable the loop changes is *havocked*: a fresh value constrained by the invariants,
  among ``v >= init``, ``v <= init``, ``v >= 0``, ``v >= 1``, that the solver proves inductive. If its
  value is the same for every thread of a block at a given iteration (its start and its updates
  mention no per-thread value), it is the term ``f(blockIdx, k)`` of an uninterpreted function, so two
  threads of a block at the same iteration agree on it (``s >>= 1`` over a symbolic block size);
* barriers per iteration must be a constant ``b``: the barrier count at iteration ``k`` is
  ``count0 + k * b + ...``, after the loop ``count0 + T * b`` for the trip count ``T``.

The iteration counter of a loop is *exact* (a model's value of it is an iteration some thread really
reaches) when the loop has no exit, every value its condition reads has a closed form and the
condition, once false, stays false (checked by the solver); otherwise models over it only ever give
UNKNOWN, never REFUTED.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import assert_never

import z3

from larkc.errors import NO_SPAN, SourceCache, Span
from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    AssertKind,
    Assign,
    Assume,
    Atomic,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Break,
    Broadcast,
    Builtin,
    BuiltinReg,
    Call,
    Cast,
    CastKind,
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
    MathFn,
    MemScope,
    Module,
    Permute,
    PtrAdd,
    Reduce,
    ReduceOp,
    Reshape,
    Return,
    Scan,
    Select,
    Shuffle,
    Splat,
    Stmt,
    Store,
    Unary,
    UnaryOp,
    VarRef,
    Vote,
    While,
)
from larkc.ir.printer import print_expr
from larkc.ir.types import (
    BOOL,
    I32,
    U32,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    align_of,
    size_of,
)
from larkc.ir.walk import stmt_exprs, sub_exprs
from larkc.provers.core import Assumption, AssumptionKind, ObligationKind
from larkc.provers.zvalues import (
    BoolV,
    IntV,
    OpaqueV,
    PtrV,
    Region,
    RegionKind,
    Value,
    VecV,
    bitop,
    ite,
    shl_factor,
    tdiv,
    tdiv_unsigned,
    trange,
    trem,
    trem_unsigned,
    wrap,
)
from larkc.provers.zworld import Answer, Outcome, Registry, Session, VarLevel, World, Z, shape_text
from larkc.tasks import ShapeExpr, Task

#: z3's resource units for proving one lemma about a quotient or remainder (a small query).
LEMMA_RLIMIT = 1_000_000

__all__ = [
    "ALL_SAFETY",
    "Access",
    "AccessKind",
    "Executor",
    "Issue",
    "Site",
    "SiteKind",
    "Sync",
    "SyncKind",
    "Trace",
    "source_text",
    "walk",
]

#: The most iterations a loop with constant bounds is unrolled to.
UNROLL_LIMIT = 64
#: Probe passes over a summarised loop's body before giving up on its invariants.
MAX_PASSES = 5
#: Calls nest at most this deep (inlining).
MAX_CALL_DEPTH = 32

ALL_SAFETY = frozenset(
    {
        ObligationKind.BOUNDS,
        ObligationKind.RACE,
        ObligationKind.BARRIER,
        ObligationKind.OVERFLOW,
        ObligationKind.DEFINED,  # only the compiler hints (:class:`Hint`) of it
    }
)
#: What ``cudaMalloc`` aligns every buffer to (docs/trusted-base.md): the start address of a task tensor
#: is an unknown multiple of it when a compiler hint asks about the address.
BUFFER_ALIGNMENT = 256


class AccessKind(enum.Enum):
    READ = "read"
    WRITE = "write"
    ATOMIC = "atomic"  # of device or system scope
    BLOCK_ATOMIC = "block-scoped atomic"  # atomic only towards the threads of its own block


@dataclass(frozen=True, slots=True, eq=False)
class Access:
    """One load, store or atomic: ``size`` bytes at ``offset`` bytes into ``region``, needing ``align``.

    ``pc``: the path condition (conjuncts); ``count``/``wcount``: block and warp barriers passed.
    In a block-level kernel, ``shape`` is the shape of the block of pointers (``()``: a scalar access) and
    ``elements`` the element index of each of its dimensions: which element of the program accesses.
    """

    kind: AccessKind
    region: Region
    offset: Z
    size: int
    align: int
    pc: tuple[Z, ...]
    count: Z
    wcount: Z
    sites: frozenset[int]
    span: Span
    text: str
    shape: tuple[int, ...] = ()
    elements: tuple[Z, ...] = ()
    #: a read through the non-coherent read-only cache (``__ldg``): no thread may write its bytes during
    #: the launch, whatever orders the two
    nc: bool = False


class SyncKind(enum.Enum):
    BLOCK = "barrier"  # __syncthreads(): every live thread of the block
    WARP = "syncwarp"  # __syncwarp(mask): every live lane of the mask
    COLLECTIVE = "warp collective"  # a shuffle or vote: every live lane of the mask


@dataclass(frozen=True, slots=True, eq=False)
class Sync:
    """A synchronisation point reached under ``pc``; ``exited``: the thread has exited before it."""

    kind: SyncKind
    mask: int | None
    pc: tuple[Z, ...]
    exited: Z
    span: Span
    text: str


class SiteKind(enum.Enum):
    SIGNED = "signed"  # signed arithmetic: overflow is undefined behaviour in C
    UNSIGNED = "unsigned"  # unsigned arithmetic: wraps modulo 2^bits
    CONVERT = "conversion"  # an integer conversion that may change the value
    PARAM = "parameter"  # a size bound to an integer kernel parameter that may not fit its type
    DIVISOR = "divisor"  # the divisor of an integer / or % that may be zero (undefined in C); ``exact`` is it


@dataclass(slots=True, eq=False)
class Site:
    """An integer operation whose exact result may leave its type's range on some path.

    ``answer``: the solver's answer to "out of range on this path" (SAT or UNKNOWN; proved-safe
    operations are not sites). ``exact`` is the mathematical result, ``pc`` the path condition.
    """

    id: int
    kind: SiteKind
    t: ScalarType
    exact: Z
    pc: tuple[Z, ...]
    answer: Answer
    reason: str
    span: Span
    text: str
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Issue:
    """A construct the prover cannot model soundly for ``kinds`` (those obligations become UNKNOWN)."""

    kinds: frozenset[ObligationKind]
    reason: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Hint:
    """A compiler hint's promise (``tl.multiple_of``, ``__builtin_assume_aligned``, ...) reached under
    ``pc``: ``cond`` must hold there (the ``defined`` obligation)."""

    cond: Z
    pc: tuple[Z, ...]
    span: Span
    text: str


@dataclass
class Trace:
    """Everything one symbolic execution recorded (see the module docstring)."""

    accesses: list[Access] = field(default_factory=list)
    syncs: list[Sync] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    exits: list[Z] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    assumptions: dict[str, Assumption] = field(default_factory=dict)
    count_unreliable: list[str] = field(default_factory=list)
    #: Overflow site id -> the conditions under which its (possibly wrapped) result is used: an access's
    #: address (under the access's mask), a condition, a stored value, a conversion to floating point, an
    #: operand of a reduction... A result reaching a use through a loop-carried value is used under
    #: ``True``. A site with no entry was never seen used.
    uses: dict[int, list[Z]] = field(default_factory=dict)
    #: Overflow sites of the update of a loop counter (``++k`` on an ``unsigned char k``: C computes
    #: ``k + 1`` in ``int`` and converts it back). Their wrap is an overflow whether or not the counter
    #: reaches an address: the summary's closed form ``start + step * iteration`` does not wrap, so a
    #: counter that does makes the loop something else (endless for ``k < d`` with ``d >= 256``).
    counter_sites: set[int] = field(default_factory=set)

    def checkpoint(self) -> tuple[int, int, int, int, int, int, int]:
        return (
            len(self.accesses),
            len(self.syncs),
            len(self.sites),
            len(self.issues),
            len(self.exits),
            len(self.count_unreliable),
            len(self.hints),
        )

    def rollback(self, cp: tuple[int, int, int, int, int, int, int]) -> None:
        del self.accesses[cp[0] :]
        del self.syncs[cp[1] :]
        del self.sites[cp[2] :]
        del self.issues[cp[3] :]
        del self.exits[cp[4] :]
        del self.count_unreliable[cp[5] :]
        del self.hints[cp[6] :]


def source_text(span: Span) -> str | None:
    """The source text a one-line span covers, if the file can be read."""
    if span == NO_SPAN or span.line != span.end_line:
        return None
    line = SourceCache.line(span.file, span.line)
    if line is None or span.end_col - 1 > len(line) or span.col < 1:
        return None
    text = line[span.col - 1 : span.end_col - 1].strip()
    return text or None


FALSE = z3.BoolVal(False)
TRUE = z3.BoolVal(True)


def conj(pc: Sequence[Z]) -> Z:
    return z3.And(*pc) if len(pc) != 1 else pc[0]


@dataclass(eq=False)
class State:
    """The state of the generic thread: path condition (conjuncts), variables, barriers passed."""

    pc: tuple[Z, ...]
    env: dict[str, Value]
    count: Z
    wcount: Z

    @property
    def dead(self) -> bool:
        return any(z3.is_false(c) for c in self.pc)

    def copy(self) -> State:
        return State(self.pc, dict(self.env), self.count, self.wcount)

    def killed(self) -> State:
        return State((FALSE,), {}, self.count, self.wcount)


@dataclass
class FnCtx:
    name: str
    frame: str
    kernel: bool
    returns: list[State] = field(default_factory=list)
    loops: list[LoopCtx] = field(default_factory=list)


@dataclass
class LoopCtx:
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)


class _Unsupported(Exception):
    """Internal: a construct outside what the executor models; becomes an :class:`Issue`."""

    def __init__(self, reason: str, kinds: frozenset[ObligationKind] = ALL_SAFETY) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kinds = kinds


def _strip_converts(e: Expr) -> Expr:
    while isinstance(e, Cast) and e.kind is CastKind.CONVERT:
        e = e.operand
    return e


def _var_refs(e: Expr) -> Iterator[str]:
    return (x.name for x in sub_exprs(e) if isinstance(x, VarRef))


def walk(stmts: Sequence[Stmt]) -> Iterator[Stmt]:
    """Every statement of ``stmts``, nested ones included, in program order."""
    return _walk(stmts)


def _children(s: Stmt) -> tuple[Stmt, ...]:
    match s:
        case If():
            return s.then_body + s.else_body
        case For():
            return s.init + s.step + s.body
        case While() | DoWhile():
            return s.body
        case _:
            return ()


def _walk(stmts: Sequence[Stmt]) -> Iterator[Stmt]:
    for s in stmts:
        yield s
        yield from _walk(_children(s))


class Executor:
    """Symbolic execution of ``fn`` (a thread-level kernel of ``module``) for one generic thread."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        task: Task,
        world: World,
        reg: Registry,
        session: Session,
        param_values: dict[str, Value],
    ) -> None:
        self.module = module
        self.fn = fn
        self.task = task
        self.world = world
        self.reg = reg
        self.session = session
        self.trace = Trace()
        self.starts: dict[str, Z] = {}  # buffer_start of each region that needed one
        self.fn_stack: list[FnCtx] = []
        self.iter_ctx: list[Z] = []
        self.frames = 0
        self.site_ids = 0
        self.counter_steps: set[int] = set()  # ids of the expressions that update a summarised counter
        self.param_values = param_values
        self.tid = tuple(
            reg.int_var(
                f"threadIdx.{d}", VarLevel.THREAD, exact=True, lo=0, hi=world.block[i] - 1, what=f"threadIdx.{d}"
            )
            for i, d in enumerate("xyz")
        )
        self.bid = tuple(
            reg.int_var(f"blockIdx.{d}", VarLevel.BLOCK, exact=True, lo=0, hi=world.grid[i] - 1, what=f"blockIdx.{d}")
            for i, d in enumerate("xyz")
        )
        self._prove_cache: dict[tuple[int, ...], tuple[Outcome, tuple[Z, ...]]] = {}
        self._shared: dict[str, Region] = {}
        self._local_allocs = 0
        self._elem_idx: dict[tuple[int, int], Z] = {}
        self.ops = 0  # integer operations whose range was checked
        #: The variables of values read from a tensor with a declared value range, and the tensor: any
        #: value in the range is possible, so a model is realised by the tensor filled with that value
        #: when every read of it agrees.
        self.range_reads: dict[str, str] = {}
        #: Per tensor under a ``distinct(...)`` precondition: its contents by byte offset, and the inverse.
        self._distinct_fns: dict[str, tuple[Z, Z]] = {}
        self.divisions = 0  # integer divisions whose divisor was checked (proved nonzero or a site)
        #: ``x / y`` and ``x % y`` over sizes, by the ids of ``x`` and ``y``: their quotient and remainder
        #: variables (``_quotient_remainder``), shared by every division of ``x`` by ``y``.
        self._divisions: dict[tuple[int, int], tuple[Z, Z, Z, Z]] = {}
        self._upper: dict[int, tuple[Z, Z]] = {}  # a remainder variable's id: it, and its divisor

    # -- entry ---------------------------------------------------------------------------------------

    def run(self) -> Trace:
        frame = self._new_frame()
        ctx = FnCtx(self.fn.name, frame, kernel=True)
        self.fn_stack.append(ctx)
        env = {f"{frame}:{p.name}": v for p, v in ((p, self.param_values[p.name]) for p in self.fn.params)}
        st = State((), env, z3.IntVal(0), z3.IntVal(0))
        try:
            self.exec_block(self.fn.body, st)
        except _Unsupported as e:
            self.issue(e.kinds, e.reason, self.fn.span)
        self.fn_stack.pop()
        return self.trace

    # -- helpers -------------------------------------------------------------------------------------

    @property
    def ctx(self) -> FnCtx:
        return self.fn_stack[-1]

    def key(self, name: str) -> str:
        return f"{self.ctx.frame}:{name}"

    def _new_frame(self) -> str:
        self.frames += 1
        return f"f{self.frames}"

    def issue(self, kinds: frozenset[ObligationKind], reason: str, span: Span) -> None:
        self.trace.issues.append(Issue(kinds, reason, span))

    def use(self, v: Value, pc: Sequence[Z]) -> None:
        """Record that ``v`` is used on the path ``pc`` (for the overflow sites it carries): where its
        value leaves the tracked integer values (see :attr:`Trace.uses`)."""
        direct = self._direct_sites(v)
        indirect = set()
        for n in self._free_of(v):
            indirect |= self.reg.info(n).sites
        when = conj(pc) if pc else TRUE
        for sid in direct - indirect:
            self.trace.uses.setdefault(sid, []).append(when)
        for sid in indirect:
            self.trace.uses.setdefault(sid, []).append(TRUE)

    def _direct_sites(self, v: Value) -> set[int]:
        match v:
            case IntV() | BoolV() | PtrV():
                return set(v.sites)
            case OpaqueV():
                return set()
            case VecV():
                return set().union(*(self._direct_sites(x) for x in v.lanes))
            case _:
                assert_never(v)

    def prove(self, pc: Sequence[Z], goal: Z) -> Outcome:
        """Whether ``goal`` holds on every execution satisfying ``pc``: UNSAT means proved."""
        if z3.is_true(goal):
            return Outcome(Answer.UNSAT)
        names = self.reg.free_all([*pc, goal])
        facts = self.reg.facts(names)
        # The facts are part of the key: a loop's candidate invariants change between probe passes.
        key = (*(c.get_id() for c in pc), -1, goal.get_id(), -1, *sorted(f.get_id() for f in facts))
        hit = self._prove_cache.get(key)
        if hit is not None:
            return hit[0]
        out = self.session.check([*pc, *facts, z3.Not(goal)], want_model=False)
        self._prove_cache[key] = (out, (*pc, goal, *facts))  # keep the terms alive: their ids stay unique
        return out

    def buffer_start(self, region: Region) -> Z:
        """The start address of a task tensor's buffer: ``BUFFER_ALIGNMENT * k`` for an unknown ``k``."""
        if region.key not in self.starts:
            k = self.reg.int_var(f"start of {region.name} / {BUFFER_ALIGNMENT}", VarLevel.GLOBAL, exact=True, lo=0)
            self.starts[region.key] = BUFFER_ALIGNMENT * k
        return self.starts[region.key]

    def fresh(self, t: Type, what: str, *, data: bool = True, level: VarLevel = VarLevel.THREAD) -> Value:
        """A value about which nothing is known but its type."""
        match t:
            case ScalarType():
                if t.is_float:
                    return OpaqueV(t)
                if t.is_bool:
                    return BoolV(self.reg.bool_var(what, level, exact=False, data=data))
                lo, hi = trange(t)
                return IntV(self.reg.int_var(what, level, exact=False, data=data, lo=lo, hi=hi), t)
            case VectorType():
                return VecV(tuple(self.fresh(t.elem, what, data=data, level=level) for _ in range(t.lanes)), t)
            case PointerType():
                return PtrV(None, z3.IntVal(0), t, why=f"it is {what}")
            case BlockType():
                return self.fresh(t.elem, what, data=data, level=level)
            case ArrayType() | VoidType():
                return OpaqueV(t)
            case _:
                assert_never(t)

    def new_site(self, kind: SiteKind, t: ScalarType, exact: Z, pc: tuple[Z, ...], out: Outcome, node: Expr) -> int:
        self.site_ids += 1
        self.trace.sites.append(
            Site(
                self.site_ids,
                kind,
                t,
                exact,
                pc,
                out.answer,
                out.reason,
                node.span,
                print_expr(node),
                source_text(node.span),
            )
        )
        if id(node) in self.counter_steps:
            self.trace.counter_sites.add(self.site_ids)
        return self.site_ids

    def in_type(self, st: State, exact: Z, t: ScalarType, kind: SiteKind, node: Expr, sites: frozenset[int]) -> IntV:
        """The value of an operation of type ``t`` whose exact result is ``exact``: ``exact`` itself when
        the solver proves it in range on this path, else the wrapped value and a new site."""
        self.ops += 1
        lo, hi = trange(t)
        if z3.is_int_value(exact):
            v = exact.as_long()
            if lo <= v <= hi:
                return IntV(exact, t, sites)
            sid = self.new_site(kind, t, exact, st.pc, Outcome(Answer.SAT), node)
            return IntV(wrap(exact, t), t, sites | {sid})
        out = self.prove(st.pc, z3.And(exact >= lo, exact <= hi))
        if out.answer is Answer.UNSAT:
            return IntV(exact, t, sites)
        sid = self.new_site(kind, t, exact, st.pc, out, node)
        if id(node) in self.counter_steps:
            # a loop counter's update: its wrap is the overflow obligation of this site (Trace.counter_sites);
            # the loop goes on as its closed form says, which is what it does wherever that obligation holds
            return IntV(exact, t, sites | {sid})
        return IntV(wrap(exact, t), t, sites | {sid})

    # -- blocks and statements -----------------------------------------------------------------------

    def exec_block(self, stmts: Sequence[Stmt], st: State) -> State:
        for s in stmts:
            if st.dead:
                return st
            try:
                st = self.exec_stmt(s, st)
            except _Unsupported as e:
                self.issue(e.kinds, e.reason, s.span)
                st = self.havoc_effects(s, st)
        return st

    def havoc_effects(self, s: Stmt, st: State) -> State:
        """After an unsupported statement: every variable it may write becomes unknown."""
        st = st.copy()
        for name in self.assigned_names([s]):
            k = self.key(name)
            if k in st.env:
                old = st.env[k]
                st.env[k] = self.fresh(self._type_of(old), f"unknown {name}")
        return st

    @staticmethod
    def _type_of(v: Value) -> Type:
        match v:
            case IntV():
                return v.t
            case BoolV():
                return BOOL
            case PtrV():
                return v.t
            case OpaqueV():
                return v.t
            case VecV():
                return v.t
            case _:
                assert_never(v)

    def exec_stmt(self, s: Stmt, st: State) -> State:
        match s:
            case Decl(name, t, init):
                st = st.copy()
                st.env[self.key(name)] = (
                    self.eval(init, st) if init is not None else self.fresh(t, f"uninitialised {name}")
                )
                return st
            case Assign(name, value):
                v = self.eval(value, st)
                st = st.copy()
                st.env[self.key(name)] = v
                return st
            case Alloc(name, elem, count, space):
                return self.exec_alloc(s, st, name, elem, count, space)
            case Load(dst, ptr, mask, other):
                p = self.eval(ptr, st)
                t = self._pointee(ptr)
                on, cond = self.masked(st, mask)
                loaded = None if on.dead else self.access(on, AccessKind.READ, p, t, s)
                if loaded is not None and cond is not None:
                    # masked-off lanes read `other` (unknown when not given), never memory
                    ov = self.eval(other, st) if other is not None else self.fresh(t, "a masked-off lane")
                    loaded = ite(cond, loaded, ov) if isinstance(ov, type(loaded)) else None
                st = st.copy()
                st.env[self.key(dst)] = (
                    loaded if loaded is not None else self.fresh(t, f"the value loaded at {_loc(s.span)}")
                )
                return st
            case Store(ptr, value, mask):
                p = self.eval(ptr, st)
                stored = self.eval(value, st)
                on, _ = self.masked(st, mask)
                if not on.dead:
                    self.use(stored, on.pc)
                    self.access(on, AccessKind.WRITE, p, self._pointee(ptr), s)
                return st
            case Atomic(dst, _, ptr, value, compare, mask):
                p = self.eval(ptr, st)
                operands = [self.eval(value, st)]
                if compare is not None:
                    operands.append(self.eval(compare, st))
                t = self._pointee(ptr)
                on, _ = self.masked(st, mask)
                if not on.dead:
                    for used in operands:
                        self.use(used, on.pc)
                    kind = AccessKind.BLOCK_ATOMIC if s.scope is MemScope.BLOCK else AccessKind.ATOMIC
                    self.access(on, kind, p, t, s)
                if dst is None:
                    return st
                st = st.copy()
                st.env[self.key(dst)] = self.fresh(t, f"the atomic's old value at {_loc(s.span)}")
                return st
            case If(cond, then_body, else_body):
                return self.exec_if(st, cond, then_body, else_body)
            case For() | While() | DoWhile():
                return self.exec_loop(st, s)
            case Break():
                if not self.ctx.loops:
                    raise _Unsupported("break outside a loop")
                self.ctx.loops[-1].breaks.append(st)
                return st.killed()
            case Continue():
                if not self.ctx.loops:
                    raise _Unsupported("continue outside a loop")
                self.ctx.loops[-1].continues.append(st)
                return st.killed()
            case Return(value):
                if self.ctx.kernel:
                    self.trace.exits.append(conj(st.pc) if st.pc else TRUE)
                    return st.killed()
                st = st.copy()
                if value is not None:
                    st.env[self.key("$ret")] = self.eval(value, st)
                self.ctx.returns.append(st)
                return st.killed()
            case Barrier(scope, mask):
                return self.exec_barrier(st, scope, mask, s)
            case Fence():
                return st
            case Assert(cond, _, AssertKind.HINT):
                # an obligation at this point, not a hypothesis: the thread goes on whether it holds or not
                c = self.cond_of(self.eval(cond, st), st)
                self.trace.hints.append(Hint(c, st.pc, s.span, source_text(s.span) or "a compiler hint"))
                return st
            case Assert(cond):
                c = self.cond_of(self.eval(cond, st), st)
                self.trace.exits.append(conj((*st.pc, z3.Not(c))))
                st = st.copy()
                st.pc = (*st.pc, c)
                return st
            case Assume(cond):
                # a precondition: every later record of this thread holds under it (only for the threads
                # a check pairs: a weaker hypothesis than every thread's, so proofs stay sound). A thread
                # for which it fails goes no further, as if it had left: outside the executions the verdict
                # is about, and then not a thread another one waits for at a barrier.
                c = self.cond_of(self.eval(cond, st), st)
                self.trace.exits.append(conj((*st.pc, z3.Not(c))))
                st = st.copy()
                st.pc = (*st.pc, c)
                return st
            case Shuffle(dst, _, mask, value, lane, width):
                for operand in (value, lane, width):
                    self.use(self.eval(operand, st), st.pc)
                self.collective(st, mask, s, "shuffle")
                st = st.copy()
                st.env[self.key(dst)] = self.fresh(value.type, f"the shuffled value at {_loc(s.span)}")
                return st
            case Vote(dst, kind, mask, pred):
                self.use(self.eval(pred, st), st.pc)
                self.collective(st, mask, s, f"vote.{kind.value}")
                st = st.copy()
                t = U32 if kind.value == "ballot" else I32
                st.env[self.key(dst)] = self.fresh(t, f"the vote at {_loc(s.span)}")
                return st
            case Call(dst, func, args):
                return self.exec_call(st, dst, func, args, s.span)
            case _:
                assert_never(s)

    def masked(self, st: State, mask: Expr | None) -> tuple[State, Z | None]:
        """The state of the lanes a block access's ``mask`` keeps (masked-off lanes never touch memory),
        and the mask's condition (``None`` without a mask)."""
        if mask is None:
            return st, None
        c = self.cond_of(self.eval(mask, st), st)
        cs = z3.simplify(c)
        if z3.is_true(cs):
            return st, None
        on = st.copy()
        on.pc = (*st.pc, c)
        return on, c

    def _pointee(self, ptr: Expr) -> Type:
        t = _scalar_of(ptr.type)
        if not isinstance(t, PointerType):
            raise _Unsupported(f"access through {t}, not a pointer")
        return t.pointee

    def exec_alloc(self, s: Alloc, st: State, name: str, elem: Type, count: int | None, space: AddressSpace) -> State:
        pt = PointerType(elem, space)
        esize = size_of(elem)
        if space is AddressSpace.SHARED:
            if count is None:
                region = Region("dynamic", RegionKind.DYNAMIC, "dynamic shared memory", self.world.shared_bytes, elem)
            else:
                key = f"shared:{self.ctx.name}:{name}"
                region = self._shared.get(key) or Region(
                    key, RegionKind.SHARED, f"shared {name}", z3.IntVal(count * esize), elem
                )
                self._shared[key] = region
        elif space is AddressSpace.LOCAL and count is not None:
            self._local_allocs += 1
            region = Region(
                f"local:{self.ctx.frame}:{name}:{self._local_allocs}",
                RegionKind.LOCAL,
                f"local {name}",
                z3.IntVal(count * esize),
                elem,
            )
        else:
            raise _Unsupported(f"allocation of {name} in {space.value} memory")
        st = st.copy()
        st.env[self.key(name)] = PtrV(region, z3.IntVal(0), pt)
        return st

    def access(self, st: State, kind: AccessKind, p: Value, t: Type, s: Stmt) -> Value | None:
        """Record an access of type ``t`` through ``p``; for a load, return the loaded value when the
        buffer's declared value range gives it one."""
        if not isinstance(p, PtrV):
            raise _Unsupported("an access through a value that is not a pointer")
        text = _stmt_text(s)
        self.use(p, st.pc)  # the address, on the lanes the access's mask keeps
        if p.region is None:
            self.issue(
                frozenset({ObligationKind.BOUNDS, ObligationKind.RACE}),
                f"cannot tell which buffer `{text}` accesses: {p.why or 'unknown pointer'}",
                s.span,
            )
            return None
        size, align = size_of(t), align_of(t)
        shape = _shape_of(s.ptr.type) if isinstance(s, Load | Store | Atomic) else ()
        elements = tuple(self.elem_index(d, n) for d, n in enumerate(shape))
        self.trace.accesses.append(
            Access(
                kind,
                p.region,
                p.off,
                size,
                align,
                st.pc,
                st.count,
                st.wcount,
                p.sites,
                s.span,
                text,
                shape,
                elements,
                isinstance(s, Load) and s.nc,
            )
        )
        r = p.region
        if kind is AccessKind.READ and r.value_range is not None and isinstance(t, ScalarType) and t.is_int:
            spec = self.task.tensors.get(r.tensor or "")
            if spec is not None and spec.dtype == t:
                lo, hi = r.value_range
                v = self.reg.int_var(f"{r.name}[...]", VarLevel.THREAD, exact=False, lo=lo, hi=hi - 1)
                text_range = f"{r.tensor}[i] in [{_shape(spec.low)}, {_shape(spec.high)}) for every i"
                self.trace.assumptions.setdefault(text_range, Assumption(AssumptionKind.TASK, text_range))
                if not self._distinct_read(v, r.tensor or "", p.off, size):
                    self.range_reads[v.decl().name()] = r.tensor or ""
                return IntV(v, t)
        return None

    def _distinct_read(self, v: Z, tensor: str, off: Z, size: int) -> bool:
        """Whether ``v``, read at byte offset ``off`` of ``tensor``, is under the task's ``distinct(tensor)``
        precondition; if so, ties it to the tensor's contents: ``v == F(off)`` for one uninterpreted
        function ``F`` per tensor, injective on element offsets (``G(F(off)) == off`` with ``G`` its
        inverse), so two reads at different elements, by any two threads, give different values. Such a
        read is not a fill witness (filling every element with one value violates the precondition)."""
        if not any(p.tensor == tensor for p in self.task.preconditions):
            return False
        fns = self._distinct_fns.get(tensor)
        if fns is None:
            what = f"the contents of {tensor} (pairwise distinct)"
            fns = (
                self.reg.function(f"{tensor}_values", 1, exact=False, sort=z3.IntSort(), what=what),
                self.reg.function(f"{tensor}_position", 1, exact=False, sort=z3.IntSort(), what=what),
            )
            self._distinct_fns[tensor] = fns
        values, position = fns
        info = self.reg.info(v.decl().name())
        info.facts.append(v == values(off))
        info.facts.append(z3.Implies(off % size == 0, position(values(off)) == off))
        return True

    def exec_if(self, st: State, cond: Expr, then_body: Sequence[Stmt], else_body: Sequence[Stmt]) -> State:
        c = self.cond_of(self.eval(cond, st), st)
        cs = z3.simplify(c)
        if z3.is_true(cs):
            return self.exec_block(then_body, st)
        if z3.is_false(cs):
            return self.exec_block(else_body, st)
        a = st.copy()
        a.pc = (*st.pc, c)
        b = st.copy()
        b.pc = (*st.pc, z3.Not(c))
        a = self.exec_block(then_body, a)
        b = self.exec_block(else_body, b)
        return self.merge([a, b])

    def cond_of(self, v: Value, st: State) -> Z:
        self.use(v, st.pc)
        if isinstance(v, BoolV):
            return v.e
        if isinstance(v, IntV):
            return v.e != 0
        raise _Unsupported("a branch condition that is not a boolean")

    def merge(self, states: Sequence[State]) -> State:
        live = [s for s in states if not s.dead]
        if not live:
            return states[0].killed() if states else State((FALSE,), {}, z3.IntVal(0), z3.IntVal(0))
        if len(live) == 1:
            return live[0]
        n = 0
        first = live[0].pc
        while n < len(first) and all(n < len(s.pc) and s.pc[n].eq(first[n]) for s in live):
            n += 1
        prefix = first[:n]
        guards = [conj(s.pc[n:]) if len(s.pc) > n else TRUE for s in live]
        if any(z3.is_true(g) for g in guards) or (len(guards) == 2 and _complementary(guards[0], guards[1])):
            pc = prefix
        else:
            pc = (*prefix, z3.Or(*guards))
        keys = set(live[0].env)
        for s in live[1:]:
            keys &= set(s.env)
        env: dict[str, Value] = {}
        for k in live[0].env:
            if k not in keys:
                continue
            vals = [s.env[k] for s in live]
            v = vals[-1]
            for g, x in zip(reversed(guards[:-1]), reversed(vals[:-1]), strict=True):
                v = ite(g, x, v)
            env[k] = v
        count = live[-1].count
        wcount = live[-1].wcount
        for g, s in zip(reversed(guards[:-1]), reversed(live[:-1]), strict=True):
            count = count if s.count.eq(count) else z3.If(g, s.count, count)
            wcount = wcount if s.wcount.eq(wcount) else z3.If(g, s.wcount, wcount)
        return State(pc, env, count, wcount)

    # -- synchronisation -------------------------------------------------------------------------------

    def exited_now(self) -> Z:
        return z3.Or(*self.trace.exits) if self.trace.exits else FALSE

    def exec_barrier(self, st: State, scope: BarrierScope, mask: Expr | None, s: Stmt) -> State:
        text = _stmt_text(s)
        if scope is BarrierScope.BLOCK:
            self.trace.syncs.append(Sync(SyncKind.BLOCK, None, st.pc, self.exited_now(), s.span, text))
            st = st.copy()
            st.count = st.count + 1
            return st
        m = 0xFFFFFFFF
        if mask is not None:
            mv = self.eval(mask, st)
            self.use(mv, st.pc)
            ms = z3.simplify(mv.e) if isinstance(mv, IntV) else None
            if ms is None or not z3.is_int_value(ms):
                raise _Unsupported(
                    "__syncwarp with a mask that is not a constant",
                    frozenset({ObligationKind.RACE, ObligationKind.BARRIER}),
                )
            m = ms.as_long()
        if m != 0xFFFFFFFF:
            # Lanes outside the mask are not synchronised with the others, but pass no __syncwarp:
            # counting warp barriers would order them. Races within a warp are then not decided.
            self.trace.count_unreliable.append(f"__syncwarp with a partial mask at {_loc(s.span)}")
        self.trace.syncs.append(Sync(SyncKind.WARP, m, st.pc, self.exited_now(), s.span, text))
        st = st.copy()
        st.wcount = st.wcount + 1
        return st

    def collective(self, st: State, mask: Expr, s: Stmt, what: str) -> None:
        mv = self.eval(mask, st)
        self.use(mv, st.pc)
        ms = z3.simplify(mv.e) if isinstance(mv, IntV) else None
        if ms is None or not z3.is_int_value(ms):
            self.issue(frozenset({ObligationKind.BARRIER}), f"a {what} with a mask that is not a constant", s.span)
            return
        self.trace.syncs.append(
            Sync(SyncKind.COLLECTIVE, ms.as_long(), st.pc, self.exited_now(), s.span, _stmt_text(s))
        )

    # -- calls ---------------------------------------------------------------------------------------

    def exec_call(self, st: State, dst: str | None, func: str, args: Sequence[Expr], span: Span) -> State:
        f = self.module.function(func)
        if f is None:
            raise _Unsupported(f"call of unknown function {func}")
        if any(c.name == f.name for c in self.fn_stack) or len(self.fn_stack) > MAX_CALL_DEPTH:
            raise _Unsupported(f"recursive or too deeply nested call of {func} (not inlined)")
        vals = [self.eval(a, st) for a in args]
        caller = self.ctx
        frame = self._new_frame()
        callee = FnCtx(f.name, frame, kernel=False)
        inner = st.copy()
        for p, v in zip(f.params, vals, strict=True):
            inner.env[f"{frame}:{p.name}"] = v
        self.fn_stack.append(callee)
        try:
            end = self.exec_block(f.body, inner)
        finally:
            self.fn_stack.pop()
        out = self.merge([end, *callee.returns])
        st2 = out.copy()
        for p, a in zip(f.params, args, strict=True):
            if p.by_ref and isinstance(a, VarRef):
                k = f"{frame}:{p.name}"
                if k in out.env:
                    st2.env[f"{caller.frame}:{a.name}"] = out.env[k]
        if dst is not None:
            rk = f"{frame}:$ret"
            if rk in out.env:
                st2.env[f"{caller.frame}:{dst}"] = out.env[rk]
            else:
                st2.env[f"{caller.frame}:{dst}"] = self.fresh(f.ret, f"result of {func}")
        for k in [k for k in st2.env if k.startswith(f"{frame}:")]:
            del st2.env[k]
        return st2

    # -- loops ---------------------------------------------------------------------------------------

    def exec_loop(self, st: State, s: For | While | DoWhile) -> State:
        match s:
            case For(init, cond, step, body):
                st = self.exec_block(init, st)
                do_first = False
            case While(cond, body):
                step = ()
                do_first = False
            case DoWhile(body, cond):
                step = ()
                do_first = True
            case _:
                assert_never(s)
        if st.dead:
            return st
        out = self.try_unroll(st, cond, step, body, do_first)
        if out is not None:
            return out
        return self.summarize(st, cond, step, body, do_first, s)

    def loop_cond(self, st: State, cond: Expr | None) -> Z:
        if cond is None:
            return TRUE
        return self.cond_of(self.eval(cond, st), st)

    def run_body(self, st: State, body: Sequence[Stmt], step: Sequence[Stmt]) -> tuple[State, LoopCtx]:
        lc = LoopCtx()
        self.ctx.loops.append(lc)
        try:
            after = self.exec_block(body, st)
        finally:
            self.ctx.loops.pop()
        cont = self.merge([after, *lc.continues])
        if not cont.dead:
            cont = self.exec_block(step, cont)
        return cont, lc

    def try_unroll(
        self, st: State, cond: Expr | None, step: Sequence[Stmt], body: Sequence[Stmt], do_first: bool
    ) -> State | None:
        cp = self.trace.checkpoint()
        exits: list[State] = []
        cur = st
        for it in range(UNROLL_LIMIT + 1):
            if not (do_first and it == 0):
                c = z3.simplify(self.loop_cond(cur, cond))
                if z3.is_false(c):
                    exits.append(cur)
                    break
                if not z3.is_true(c) or it == UNROLL_LIMIT:
                    self.trace.rollback(cp)
                    return None
            cur, lc = self.run_body(cur, body, step)
            exits.extend(lc.breaks)
            if cur.dead:
                break
        return self.merge(exits)

    def assigned_names(self, stmts: Sequence[Stmt]) -> list[str]:
        """Variables of the current frame that ``stmts`` may write (in order of first write)."""
        out: dict[str, None] = {}
        for s in _walk(stmts):
            match s:
                case Assign(name) | Load(name) | Shuffle(name) | Vote(name):
                    out[name] = None
                case Atomic(dst) if dst is not None:
                    out[dst] = None
                case Call(dst, func, args):
                    if dst is not None:
                        out[dst] = None
                    f = self.module.function(func)
                    if f is not None:
                        for p, a in zip(f.params, args, strict=False):
                            if p.by_ref and isinstance(a, VarRef):
                                out[a.name] = None
                case _:
                    pass
        return list(out)

    def increment(self, name: str, stmts: Sequence[Stmt], st: State, assigned: set[str]) -> IntV | None:
        """The loop-invariant amount a loop adds to ``name`` each iteration, if the loop writes it by
        exactly one ``name = name + e`` (possibly through conversions) or ``name = ptradd(name, e)``."""
        writes = [s for s in _walk(stmts) if name in self.assigned_names([s]) and not _children(s)]
        if len(writes) != 1 or not isinstance(writes[0], Assign):
            return None
        e = _strip_converts(writes[0].value)
        if isinstance(e, PtrAdd) and isinstance(e.base, VarRef) and e.base.name == name:
            other, sign = e.offset, 1
        elif isinstance(e, Binary) and e.op in (BinaryOp.ADD, BinaryOp.SUB):
            lhs, rhs = _strip_converts(e.lhs), _strip_converts(e.rhs)
            if isinstance(lhs, VarRef) and lhs.name == name:
                other, sign = e.rhs, (1 if e.op is BinaryOp.ADD else -1)
            elif isinstance(rhs, VarRef) and rhs.name == name and e.op is BinaryOp.ADD:
                other, sign = e.lhs, 1
            else:
                return None
        else:
            return None
        if set(_var_refs(other)) & assigned:
            return None
        d = self.eval(other, st)
        if not isinstance(d, IntV):
            return None
        cur = st.env.get(self.key(name))
        if isinstance(cur, PtrV) and isinstance(cur.t, PointerType):
            return IntV(d.e * size_of(cur.t.pointee) * sign, d.t, d.sites)
        return IntV(d.e * sign, d.t, d.sites)

    def summarize(
        self,
        st: State,
        cond: Expr | None,
        step: Sequence[Stmt],
        body: Sequence[Stmt],
        do_first: bool,
        loop: Stmt,
    ) -> State:
        """The loop at an arbitrary iteration ``k`` (see the module docstring), then the state after it."""
        where = _loc(loop.span)
        stmts = (*body, *step)
        declared_inside = {s.name for s in _walk(body) if isinstance(s, Decl | Alloc)}
        assigned_all = set(self.assigned_names(stmts))
        names = [
            n
            for n in self.assigned_names(stmts)
            if n not in declared_inside and self.key(n) in st.env and _tracked(st.env[self.key(n)])
        ]
        exits_inside = any(isinstance(s, Break | Return | Assert | Assume) for s in _walk(body)) or self._calls_trap(
            body
        )
        # With a break (or a do-while) the trip count and the values at exit are not summarised.
        simple_exit = not do_first and not any(isinstance(s, Break) for s in _walk(body))
        k = self.reg.int_var("k", VarLevel.ITER, exact=False, lo=0, what=f"iteration of the loop at {where}")
        k_name = k.decl().name()
        ctx_args = [*self.bid, *self.iter_ctx]
        lv = _LoopVars(self, st, names, where, ctx_args, k)
        if not do_first:
            for n in names:
                d = self.increment(n, stmts, st, assigned_all)
                if d is not None and isinstance(lv.entry[n], IntV | PtrV):
                    lv.affine[n] = d
        for s in _walk(stmts):
            if isinstance(s, Assign) and s.name in lv.affine:
                self.counter_steps.add(id(s.value))
        lv.uniform = {
            n
            for n in names
            if n not in lv.affine
            and isinstance(lv.entry[n], IntV | BoolV | PtrV)
            and not self._thread_dependent(lv.entry[n])
        }
        for n in names:
            if n not in lv.affine:
                lv.reset_facts(n)

        self.iter_ctx.append(k)
        try:
            bpi, wbpi = self._probe(lv, st, cond, body, step, do_first)
            b = bpi if bpi is not None else 0
            wb = wbpi if wbpi is not None else 0
            if bpi is None:
                self.trace.count_unreliable.append(f"the loop at {where} passes a varying number of barriers")
            if wbpi is None:
                self.trace.count_unreliable.append(f"the loop at {where} passes a varying number of __syncwarp")
            # The trip count is the same for a block's threads when the loop condition is.
            cp = self.trace.checkpoint()
            c_probe = TRUE if do_first else self.loop_cond(lv.head_state(z3.IntVal(0), z3.IntVal(0)), cond)
            self.trace.rollback(cp)
            trips_fn = None
            if simple_exit and not self.reg.has_level(c_probe, VarLevel.THREAD):
                trips_fn = self.reg.function(
                    f"trips@{where}",
                    len(ctx_args),
                    exact=False,
                    sort=z3.IntSort(),
                    what=f"trip count of the loop at {where}",
                )
                trips = trips_fn(*ctx_args)
            else:
                trips = self.reg.int_var(
                    "T", VarLevel.THREAD, exact=False, lo=0, what=f"trip count of the loop at {where}"
                )
            # The final pass: the records of the body at iteration k.
            hs = lv.head_state(st.count + k * b, st.wcount + k * wb)
            c_head = TRUE if do_first else self.loop_cond(hs, cond)
            hs.pc = (*hs.pc, c_head, *([k < trips] if simple_exit else []))
            end, _lc = self.run_body(hs, body, step)
        finally:
            self.iter_ctx.pop()

        # Exact iteration counter: no exit, a condition over exact closed forms, false forever once false.
        free_c = self.reg.free(c_head) - {k_name}
        if not exits_inside and not do_first and self.reg.all_exact(free_c) and set(names) == set(lv.affine):
            j = self.reg.int_var("j", VarLevel.ITER, exact=False, lo=0)
            mono = self.prove((*st.pc, j <= k, c_head), z3.substitute(c_head, (k, j)))
            self.reg.info(k_name).exact = mono.answer is Answer.UNSAT
        exact = self.reg.info(k_name).exact
        self.reg.info(trips_fn.name() if trips_fn is not None else trips.decl().name()).exact = exact
        # Overflow sites (and data) that the havocked values may carry.
        for n in names:
            lv.carry(n, end.env.get(self.key(n)))

        out = st.copy()
        pcs: list[Z] = list(st.pc)
        if exits_inside:
            # A thread may have left inside the loop: the state after it is reached only if it did not.
            alive = self._alive(where)
            pcs.append(alive)
            self.trace.exits.append(conj((*st.pc, z3.Not(alive))))
        if not simple_exit:
            for n in names:
                v = lv.fresh_like(n, f"{n} after the loop at {where}")
                self._carry(v, end.env.get(self.key(n)))
                out.env[self.key(n)] = v
            if b or wb:
                self.trace.count_unreliable.append(f"the loop at {where} passes barriers and may exit early")
            out.pc = tuple(pcs)
            return out
        for n in names:
            v = lv.value(n, trips, "T")
            if n not in lv.affine and n not in lv.uniform:
                self._carry(v, end.env.get(self.key(n)))
            out.env[self.key(n)] = v
        # What defines the trip count T: the condition is false at T and, for an exact loop, true at
        # T - 1. These are facts of T's variable, not path conditions: every thread satisfies them.
        cp = self.trace.checkpoint()
        t_facts = [trips >= 0, z3.Not(self.loop_cond(out, cond))]
        if exact:
            prev = st.copy()
            for n in names:
                prev.env[self.key(n)] = lv.value(n, trips - 1, "T-1")
            t_facts.append(z3.Or(trips == 0, self.loop_cond(prev, cond)))
        self.trace.rollback(cp)
        t_name = trips_fn.name() if trips_fn is not None else trips.decl().name()
        self.reg.info(t_name).slots["exit"] = t_facts
        out.pc = tuple(pcs)
        out.count = st.count + trips * b
        out.wcount = st.wcount + trips * wb
        return out

    def _alive(self, where: str) -> Z:
        """A fresh condition standing for "the thread did not exit inside the loop" (inexact)."""
        return self.reg.bool_var("alive", VarLevel.THREAD, exact=False, what=f"no exit in the loop at {where}")

    def _probe(
        self,
        lv: _LoopVars,
        st: State,
        cond: Expr | None,
        body: Sequence[Stmt],
        step: Sequence[Stmt],
        do_first: bool,
    ) -> tuple[int | None, int | None]:
        """Run the body from the summarised head until the closed forms, the uniform values and the
        invariants are all confirmed inductive; returns the block and warp barriers per iteration."""
        bpi: Z | None = None
        wbpi: Z | None = None
        for _ in range(MAX_PASSES):
            cp = self.trace.checkpoint()
            hs = lv.head_state(z3.IntVal(0), z3.IntVal(0))
            c_head = TRUE if do_first else self.loop_cond(hs, cond)
            hs.pc = (*hs.pc, c_head)
            end, _lc = self.run_body(hs, body, step)
            self.trace.rollback(cp)
            if bpi is None:
                bpi, wbpi = z3.simplify(end.count), z3.simplify(end.wcount)
            if end.dead or not lv.refine(end):
                break
        else:
            lv.give_up()
        b = bpi.as_long() if bpi is not None and z3.is_int_value(bpi) else None
        wb = wbpi.as_long() if wbpi is not None and z3.is_int_value(wbpi) else None
        return b, wb

    def _calls_trap(self, stmts: Sequence[Stmt], depth: int = 0) -> bool:
        if depth > MAX_CALL_DEPTH:
            return True
        for s in _walk(stmts):
            if isinstance(s, Call):
                f = self.module.function(s.func)
                if f is None:
                    return True
                if any(isinstance(x, Assert | Assume) for x in _walk(f.body)) or self._calls_trap(f.body, depth + 1):
                    return True
        return False

    def _carry(self, hv: Value, v: Value | None) -> None:
        """Record on the variables of ``hv`` the overflow sites and data that ``v`` may carry."""
        if v is None:
            return
        sites = set(self._sites_of(v))
        data = self.reg.any_data(self._free_of(v))
        for name in self._free_of(hv):
            info = self.reg.info(name)
            info.sites |= sites
            info.data = info.data or data

    def _sites_of(self, v: Value) -> frozenset[int]:
        direct: frozenset[int]
        match v:
            case IntV() | BoolV() | PtrV():
                direct = v.sites
            case OpaqueV():
                direct = frozenset()
            case VecV():
                direct = frozenset().union(*(self._sites_of(x) for x in v.lanes))
            case _:
                assert_never(v)
        out = set(direct)
        for n in self._free_of(v):
            out |= self.reg.info(n).sites
        return frozenset(out)

    def _free_of(self, v: Value) -> frozenset[str]:
        match v:
            case IntV() | BoolV():
                return self.reg.free(v.e)
            case PtrV():
                return self.reg.free(v.off)
            case OpaqueV():
                return frozenset()
            case VecV():
                return frozenset().union(*(self._free_of(x) for x in v.lanes))
            case _:
                assert_never(v)

    def _thread_dependent(self, v: Value) -> bool:
        return any(self.reg.info(n).level is VarLevel.THREAD for n in self._free_of(v))

    def _from_term(self, v0: Value, term: Z) -> Value:
        match v0:
            case IntV():
                return IntV(term, v0.t)
            case BoolV():
                return BoolV(term)
            case PtrV():
                return PtrV(v0.region, term, v0.t, why=v0.why)
            case _:
                raise _Unsupported("a loop-carried value of an untracked kind")

    def _range_facts(self, v: Value) -> list[Z]:
        if isinstance(v, IntV):
            lo, hi = trange(v.t)
            return [v.e >= lo, v.e <= hi]
        return []

    @staticmethod
    def _num(v: Value) -> Z | None:
        if isinstance(v, IntV):
            return v.e
        if isinstance(v, PtrV):
            return v.off
        return None

    def _fact(self, v: Value, v0: Value, c: str) -> Z:
        x, x0 = self._num(v), self._num(v0)
        assert x is not None and x0 is not None
        match c:
            case "ge":
                return x >= x0
            case "le":
                return x <= x0
            case "ge0":
                return x >= 0
            case "ge1":
                return x >= 1
            case _:
                raise ValueError(c)

    def _fact_base(self, st: State, v0: Value, c: str) -> bool:
        if c in ("ge", "le"):
            return True
        return self.prove(st.pc, self._fact(v0, v0, c)).answer is Answer.UNSAT

    def _fact_holds(self, end: State, v: Value, v0: Value, c: str) -> bool:
        if self._num(v) is None:
            return False
        if isinstance(v, PtrV) and (not isinstance(v0, PtrV) or v.region != v0.region or v.region is None):
            return False
        return self.prove(end.pc, self._fact(v, v0, c)).answer is Answer.UNSAT

    def _affine_ok(self, end: State, v0: Value, v: Value | None, d: IntV, k: Z) -> bool:
        if v is None:
            return False
        if isinstance(v0, PtrV):
            if not isinstance(v, PtrV) or v.region is None or v.region != v0.region:
                return False
            goal = v.off == v0.off + (k + 1) * d.e
        elif isinstance(v0, IntV) and isinstance(v, IntV):
            goal = v.e == v0.e + (k + 1) * d.e
        else:
            return False
        return self.prove(end.pc, goal).answer is Answer.UNSAT

    # -- expressions ---------------------------------------------------------------------------------

    def eval(self, e: Expr, st: State) -> Value:
        match e:
            case Const(value, t):
                if t.is_float:
                    return OpaqueV(t)
                if t.is_bool:
                    return BoolV(z3.BoolVal(bool(value)))
                return IntV(z3.IntVal(int(value)), t)
            case VarRef(name):
                v = st.env.get(self.key(name))
                if v is None:
                    raise _Unsupported(f"variable %{name} has no value here")
                return v
            case Builtin(reg, dim):
                i = dim.index
                # Triton's program_id and num_programs are i32, CUDA's registers u32
                bt = e.type if e.type.is_int else U32
                match reg:
                    case BuiltinReg.THREAD_IDX:
                        return IntV(self.tid[i], bt)
                    case BuiltinReg.BLOCK_IDX:
                        return IntV(self.bid[i], bt)
                    case BuiltinReg.BLOCK_DIM:
                        return IntV(self.world.block[i], bt)
                    case BuiltinReg.GRID_DIM:
                        return IntV(self.world.grid[i], bt)
                    case _:
                        assert_never(reg)
            case Unary(op, a, t):
                return self.unary(op, self.eval(a, st), _scalar_of(t), e, st)
            case Binary(op, a, b, t):
                return self.binary(op, self.eval(a, st), self.eval(b, st), e, st)
            case Select(c, a, b):
                cv = self.cond_of(self.eval(c, st), st)
                return ite(cv, self.eval(a, st), self.eval(b, st))
            case Cast(a, t, kind):
                return self.cast(self.eval(a, st), _scalar_of(t), kind, e, st)
            case MathCall(fn, args, t):
                return self.math(fn, [self.eval(a, st) for a in args], _scalar_of(t), e, st)
            case PtrAdd(base, off, bt):
                p = self.eval(base, st)
                o = self.eval(off, st)
                t = _scalar_of(bt)
                if not isinstance(p, PtrV) or not isinstance(o, IntV) or not isinstance(t, PointerType):
                    raise _Unsupported("pointer arithmetic on a value that is not a pointer")
                return PtrV(p.region, p.off + o.e * size_of(t.pointee), p.t, p.sites | o.sites, p.why)
            case Extract(vec, idx):
                v = self.eval(vec, st)
                iv = self.eval(idx, st)
                if not isinstance(v, VecV) or not isinstance(iv, IntV):
                    raise _Unsupported("extract from a value that is not a vector")
                self.use(iv, st.pc)
                return self.lane(v, iv)
            case Insert(vec, idx, val):
                v = self.eval(vec, st)
                iv = self.eval(idx, st)
                x = self.eval(val, st)
                if not isinstance(v, VecV) or not isinstance(iv, IntV):
                    raise _Unsupported("insert into a value that is not a vector")
                self.use(iv, st.pc)
                n = len(v.lanes)
                ic = z3.simplify(iv.e)
                if z3.is_int_value(ic):
                    j = int(ic.as_long()) % n
                    return VecV(tuple(x if m == j else v.lanes[m] for m in range(n)), v.t)
                return VecV(tuple(ite(iv.e % n == m, x, v.lanes[m]) for m in range(n)), v.t)
            case MakeVector(elems, t):
                assert isinstance(t, VectorType)
                return VecV(tuple(self.eval(x, st) for x in elems), t)
            case Arange(start, end, t):
                return IntV(z3.IntVal(start) + self.elem_index(0, end - start), _int_elem(t))
            case Splat(a):
                return self.eval(a, st)
            case Broadcast(a, t) | Reshape(a, t):
                return self.reindex(self.eval(a, st), _shape_of(a.type), t.shape, isinstance(e, Broadcast))
            case Permute(a, perm, t):
                src = _shape_of(a.type)
                pairs = [(self.elem_index(p, src[p]), self.elem_index(i, t.shape[i])) for i, p in enumerate(perm)]
                return _subst(self.eval(a, st), [(x, y) for x, y in pairs if not x.eq(y)])
            case Reduce() | Scan() | Combine() | Dot():
                return self.combined(e, st)
            case _:
                assert_never(e)

    # -- block-level (Triton) values -----------------------------------------------------------------
    #
    # A block value is the value of its element at the *element indices* of its shape: one variable
    # per (dimension, size), ``0 <= i < size`` (a dimension of size 1 has index 0). Elementwise
    # operations are then the scalar ones, and broadcast, reshape and permute substitute indices.
    # An access through a block of pointers is one access per element: the indices are per-thread
    # variables, so the race check pairs any element of one program with any element of another.

    def elem_index(self, d: int, size: int) -> Z:
        """The element index of dimension ``d`` of a block whose dimension ``d`` has ``size`` elements."""
        if size == 1:
            return z3.IntVal(0)
        v = self._elem_idx.get((d, size))
        if v is None:
            v = self.reg.int_var(
                f"i{d}_{size}", VarLevel.THREAD, exact=True, lo=0, hi=size - 1, what=f"element index {d} (of {size})"
            )
            self._elem_idx[(d, size)] = v
        return v

    def elem_indices(self) -> list[tuple[Z, str]]:
        """The element index variables made so far, with what each stands for."""
        return [(v, f"element index {d}") for (d, _), v in self._elem_idx.items()]

    def reindex(self, v: Value, src: tuple[int, ...], dst: tuple[int, ...], broadcast: bool) -> Value:
        """``v`` (a block of shape ``src``, a scalar when ``src`` is empty) read as a block of shape ``dst``:
        broadcast (right-aligned, dimensions of size 1 stretched) or reshaped (row-major order)."""
        if not src:
            return v
        pairs: list[tuple[Z, Z]] = []
        if broadcast:
            off = len(dst) - len(src)
            for d, n in enumerate(src):
                if n != 1:
                    pairs.append((self.elem_index(d, n), self.elem_index(d + off, dst[d + off])))
        elif [n for n in src if n != 1] == [n for n in dst if n != 1]:
            news = [self.elem_index(d, n) for d, n in enumerate(dst) if n != 1]
            olds = [self.elem_index(d, n) for d, n in enumerate(src) if n != 1]
            pairs = list(zip(olds, news, strict=True))
        else:
            linear: Z = z3.IntVal(0)
            for d, n in enumerate(dst):
                linear = linear * n + self.elem_index(d, n)
            stride = 1
            for d in range(len(src) - 1, -1, -1):
                if src[d] != 1:
                    pairs.append((self.elem_index(d, src[d]), (linear / stride) % src[d]))
                stride *= src[d]
        return _subst(v, [(x, y) for x, y in pairs if not x.eq(y)])

    def combined(self, e: Reduce | Scan | Combine | Dot, st: State) -> Value:
        """A reduction, scan or matrix product: its operands are evaluated (their integer operations are
        checked), its value is not tracked (a fresh value of its type: it is data, never exact)."""
        match e:
            case Reduce(op, a) | Scan(op, a):
                self.use(self.eval(a, st), st.pc)
                wraps = op in (ReduceOp.SUM, ReduceOp.PROD)
            case Combine(_, func, args):
                for a in args:
                    self.use(self.eval(a, st), st.pc)
                f = self.module.function(func)
                wraps = f is None or any(
                    isinstance(x, Binary) and x.op in _WRAPPING and _int_elem_or_none(x.type) is not None
                    for stmt in walk(f.body)
                    for top in stmt_exprs(stmt)
                    for x in sub_exprs(top)
                )
            case Dot(lhs, rhs, acc):
                for operand in (lhs, rhs, acc):
                    if operand is not None:
                        self.use(self.eval(operand, st), st.pc)
                wraps = True
            case _:
                assert_never(e)
        t = _scalar_of(e.type)
        if wraps and isinstance(t, ScalarType) and t.is_int:
            kinds = frozenset({ObligationKind.OVERFLOW})
            self.issue(kinds, f"integer {_what(e)} of data (its overflow is not modelled)", e.span)
        return self.fresh(t, f"the {_what(e)} at {_loc(e.span)}")

    def lane(self, v: VecV, i: IntV) -> Value:
        n = len(v.lanes)
        ic = z3.simplify(i.e)
        if z3.is_int_value(ic):
            return v.lanes[int(ic.as_long()) % n]
        out = v.lanes[n - 1]
        for m in range(n - 2, -1, -1):
            out = ite(i.e % n == m, v.lanes[m], out)
        return out

    def unary(self, op: UnaryOp, a: Value, t: Type, node: Expr, st: State) -> Value:
        if isinstance(a, VecV):
            assert isinstance(t, VectorType)
            return VecV(tuple(self.unary(op, x, t.elem, node, st) for x in a.lanes), t)
        match op:
            case UnaryOp.NOT:
                if isinstance(a, BoolV):
                    return BoolV(z3.Not(a.e), a.sites)
                raise _Unsupported("! of a value that is not a bool")
            case UnaryOp.NEG:
                if isinstance(a, IntV):
                    kind = SiteKind.SIGNED if a.t.is_signed else SiteKind.UNSIGNED
                    return self.in_type(st, -a.e, a.t, kind, node, a.sites)
                return a if isinstance(a, OpaqueV) else self.fresh(t, "negation")
            case UnaryOp.BITNOT:
                if isinstance(a, IntV):
                    hi = trange(a.t)[1]
                    return IntV(-a.e - 1 if a.t.is_signed else hi - a.e, a.t, a.sites)
                if isinstance(a, BoolV):
                    return BoolV(z3.Not(a.e), a.sites)
                return self.fresh(t, "complement")
            case _:
                assert_never(op)

    def binary(self, op: BinaryOp, a: Value, b: Value, node: Binary, st: State) -> Value:
        t = _scalar_of(node.type)
        if isinstance(a, VecV) and isinstance(b, VecV):
            et = t.elem if isinstance(t, VectorType) else BOOL
            return VecV(
                tuple(self._binary1(op, x, y, et, node, st) for x, y in zip(a.lanes, b.lanes, strict=True)),
                t if isinstance(t, VectorType) else a.t,
            )
        assert isinstance(t, ScalarType | PointerType)
        return self._binary1(op, a, b, t, node, st)

    def _binary1(self, op: BinaryOp, a: Value, b: Value, t: Type, node: Expr, st: State) -> Value:
        if op.is_comparison:
            out = self.compare(op, a, b)
            if not (isinstance(out, BoolV) and out.sites >= self._direct_sites(a) | self._direct_sites(b)):
                self.use(a, st.pc)
                self.use(b, st.pc)
            return out
        if isinstance(a, BoolV) and isinstance(b, BoolV):
            match op:
                case BinaryOp.BITAND | BinaryOp.LAND:
                    return BoolV(z3.And(a.e, b.e), a.sites | b.sites)
                case BinaryOp.BITOR | BinaryOp.LOR:
                    return BoolV(z3.Or(a.e, b.e), a.sites | b.sites)
                case BinaryOp.BITXOR:
                    return BoolV(z3.Xor(a.e, b.e), a.sites | b.sites)
                case _:
                    raise _Unsupported(f"operator {op.value} on booleans")
        if not (isinstance(a, IntV) and isinstance(b, IntV)):
            self.use(a, st.pc)
            self.use(b, st.pc)
            return OpaqueV(t) if isinstance(t, ScalarType) and t.is_float else self.fresh(t, f"{op.value} result")
        it = a.t
        sites = a.sites | b.sites
        signed = it.is_signed
        kind = SiteKind.SIGNED if signed else SiteKind.UNSIGNED
        x, y = a.e, b.e
        match op:
            case BinaryOp.ADD:
                return self.in_type(st, _fold(x + y, x, y, int.__add__), it, kind, node, sites)
            case BinaryOp.SUB:
                return self.in_type(st, _fold(x - y, x, y, int.__sub__), it, kind, node, sites)
            case BinaryOp.MUL:
                return self.in_type(st, _fold(x * y, x, y, int.__mul__), it, kind, node, sites)
            case BinaryOp.DIV | BinaryOp.REM:
                self._divisor(st, y, it, node)
                if self._natural_division(st, x, y, signed):
                    named = self._quotient_remainder(x, y)
                    if named is not None:
                        return IntV(named[1] if op is BinaryOp.REM else named[0], it, sites)
                    if op is BinaryOp.REM:
                        return IntV(_fold(x % y, x, y, int.__mod__), it, sites)
                    self._division_lemmas(st, x, y)
                    return IntV(_fold(x / y, x, y, int.__floordiv__), it, sites)
                if op is BinaryOp.REM:
                    return IntV(trem(x, y) if signed else trem_unsigned(x, y), it, sites)
                if signed:
                    q = tdiv(x, y)
                    if z3.is_int_value(y) and y.as_long() != -1:
                        return IntV(q, it, sites)
                    return self.in_type(st, q, it, kind, node, sites)
                return IntV(tdiv_unsigned(x, y), it, sites)
            case BinaryOp.SHL:
                return self.in_type(st, x * shl_factor(y, it.bits), it, kind, node, sites)
            case BinaryOp.SHR:
                f = shl_factor(y, it.bits)
                if z3.is_int_value(f) and z3.is_int_value(x):
                    return IntV(z3.IntVal(x.as_long() // f.as_long()), it, sites)
                return IntV(x / f, it, sites)
            case BinaryOp.BITAND:
                return IntV(bitop("&", x, y, it), it, sites)
            case BinaryOp.BITOR:
                return IntV(bitop("|", x, y, it), it, sites)
            case BinaryOp.BITXOR:
                return IntV(bitop("^", x, y, it), it, sites)
            case BinaryOp.MIN:
                return IntV(z3.If(x <= y, x, y), it, sites)
            case BinaryOp.MAX:
                return IntV(z3.If(x >= y, x, y), it, sites)
            case BinaryOp.LAND | BinaryOp.LOR:
                raise _Unsupported(f"{op.value} on integers")
            case _:
                raise _Unsupported(f"operator {op.value}")

    def _divisor(self, st: State, y: Z, t: ScalarType, node: Expr) -> None:
        """A site for the divisor ``y`` of an integer division unless it is nonzero on this path (C leaves
        a division by zero undefined; the ``defined`` obligation decides the sites for every size)."""
        self.divisions += 1
        if z3.is_int_value(y):
            if y.as_long() != 0:
                return
            out = Outcome(Answer.SAT)
        else:
            out = self.prove(st.pc, y != 0)
            if out.answer is Answer.UNSAT:
                return
        self.new_site(SiteKind.DIVISOR, t, y, st.pc, out, node)

    def _natural_division(self, st: State, x: Z, y: Z, signed: bool) -> bool:
        """Whether ``x / y`` is a division of a non-negative by a positive value on this path (then C's
        truncation is z3's floor division and the encoding needs no case split on signs)."""
        if z3.is_int_value(y):
            if y.as_long() <= 0:
                return False
        elif self.prove(st.pc, y > 0).answer is not Answer.UNSAT:
            return False
        if not signed or (z3.is_int_value(x) and x.as_long() >= 0):
            return True
        return self.prove(st.pc, x >= 0).answer is Answer.UNSAT

    def _quotient_remainder(self, x: Z, y: Z) -> tuple[Z, Z] | None:
        """For ``x / y`` and ``x % y`` with ``x >= 0`` and a symbolic ``y > 0`` on this path (the caller
        proved both), variables ``q`` and ``r`` defined by the linear facts ``x = q*y + r, 0 <= r < y``
        instead of z3's ``div``/``mod``, whose axioms make the solver's search hard (the grouped
        program ordering of the Triton matmul tutorial). The facts define ``q`` and ``r`` uniquely
        wherever ``y > 0``, so nothing is dropped or assumed (the path condition proved ``x >= 0``,
        ``y > 0``; the facts guard on them so that they are tautologies as well). Only for ``x`` and
        ``y`` over sizes and block indices (GLOBAL and BLOCK variables, no functions, no data): those
        are never substituted (a loop counter or a Triton element index is), so ``q`` and ``r`` stay
        tied to the values they name; the variables take the level of ``x`` and ``y`` so that the race
        check's renaming of a block renames them with it. ``None``: keep z3's operators."""
        if z3.is_int_value(y):
            return None  # a division by a constant is linear for z3 already
        names = self.reg.free_all([x, y])
        level = VarLevel.GLOBAL
        for n in names:
            info = self.reg.info(n)
            if info.data or z3.is_func_decl(self.reg.decls[n]) or info.level not in (VarLevel.GLOBAL, VarLevel.BLOCK):
                return None
            if info.level is VarLevel.BLOCK:
                level = VarLevel.BLOCK
        key = (x.get_id(), y.get_id())
        hit = self._divisions.get(key)
        if hit is not None:
            return hit[0], hit[1]
        exact = self.reg.all_exact(names)
        q = self.reg.int_var("q", level, exact=exact, what="the quotient of an integer division by a size")
        r = self.reg.int_var("r", level, exact=exact, what="the remainder of an integer division by a size")
        # Guarded by x >= 0 and y > 0 (which the path proved): then the facts are theorems of z3's
        # floor division, and a fact never constrains an execution where the guard is false.
        guard = z3.And(x >= 0, y > 0)
        defining = z3.Implies(guard, z3.And(x == q * y + r, r >= 0, r < y, q >= 0))
        self.reg.info(q.decl().name()).facts.append(defining)
        self.reg.info(r.decl().name()).facts.append(defining)
        self._divisions[key] = (q, r, x, y)  # x and y kept alive: their ids stay unique
        self._upper[r.get_id()] = (r, y)
        # Linear bounds of q and r, each proved by z3 from the definition alone (a small query) and then
        # a fact: the queries of the obligations, where the definition's product q*y sits among all
        # the other facts, need them and do not find them within their resource limit.
        for lemma in self._division_candidates(q, r, x, y):
            claim = z3.Implies(guard, lemma)
            facts = self.reg.facts(self.reg.free_all([claim]))
            out = self.session.check([*facts, z3.Not(claim)], want_model=False, rlimit=LEMMA_RLIMIT)
            if out.answer is Answer.UNSAT:
                self.reg.info(q.decl().name()).facts.append(claim)
        return q, r

    def _division_candidates(self, q: Z, r: Z, x: Z, y: Z) -> list[Z]:
        """Bounds of ``q = x / y`` and ``r = x % y`` to try as lemmas: ``q <= x``, ``r <= x``, and, for
        each upper bound ``x < P * F`` of ``x`` (a fact of its variable, or the divisor of the division
        that made it a remainder) where ``y = c * P`` (``P`` a product of the bound's factors, ``c`` a
        constant), ``c * q < F``: the program ordering's ``group_id * GROUP_M < num_pid_m`` from
        ``pid < num_pid_m * num_pid_n`` and ``num_pid_in_group = GROUP_M * num_pid_n``. Candidates only:
        each is proved before it is used."""
        out = [q <= x, r <= x]
        c, ys = _factors(y)
        for bound in self._upper_bounds(x):
            k, fs = _factors(bound)
            rest = list(fs)
            for f in ys:
                hit = next((i for i, g in enumerate(rest) if g.eq(f)), None)
                if hit is None:
                    break
                del rest[hit]
            else:
                if c >= 1:
                    cofactor: Z = z3.IntVal(k)
                    for g in rest:
                        cofactor = cofactor * g
                    out.append(c * q < cofactor)
        return out

    def _upper_bounds(self, x: Z) -> list[Z]:
        """Exclusive upper bounds ``x < B`` read off the facts of ``x`` when it is a variable."""
        if not z3.is_const(x) or z3.is_int_value(x):
            return []
        hit = self._upper.get(x.get_id())
        if hit is not None:
            return [hit[1]]
        name = x.decl().name()
        if name not in self.reg.vars:
            return []
        out = []
        for f in self.reg.info(name).facts:
            if z3.is_le(f) and f.arg(0).eq(x):
                out.append(_plus_one(f.arg(1)))
            elif z3.is_lt(f) and f.arg(0).eq(x):
                out.append(f.arg(1))
        return out

    def _division_lemmas(self, st: State, x: Z, y: Z) -> None:
        """For ``q = x / y`` by a symbolic ``y > 0``: where the path says ``x < y * c`` (``x <= y * c``),
        the valid lemma ``q < c`` (``q <= c``), which z3's nonlinear reasoning does not find alone
        (``i < heads * dim`` gives ``i / dim < heads``). Lemmas are tautologies: facts of ``x``'s
        variables, included wherever those appear."""
        if z3.is_int_value(y):
            return
        owners = sorted(self.reg.free(x))
        if not owners:
            return
        q = x / y
        lemmas = []
        for c in st.pc:
            strict = True
            if z3.is_not(c) and z3.is_ge(c.arg(0)):
                lhs, rhs = c.arg(0).arg(0), c.arg(0).arg(1)
            elif z3.is_lt(c):
                lhs, rhs = c.arg(0), c.arg(1)
            elif z3.is_le(c):
                lhs, rhs, strict = c.arg(0), c.arg(1), False
            else:
                continue
            if not lhs.eq(x) or not z3.is_mul(rhs):
                continue
            factors = list(rhs.children())
            for i, f in enumerate(factors):
                if f.eq(y):
                    rest = factors[:i] + factors[i + 1 :]
                    other = rest[0] if len(rest) == 1 else z3.Product(*rest)
                    bound = q < other if strict else q <= other
                    lemmas.append(z3.Implies(z3.And(c, y > 0), bound))
                    break
        if lemmas:
            info = self.reg.info(owners[0])
            info.slots.setdefault("lemmas", []).extend(lemmas)

    def compare(self, op: BinaryOp, a: Value, b: Value) -> Value:
        if isinstance(a, IntV) and isinstance(b, IntV):
            x, y, s = a.e, b.e, a.sites | b.sites
        elif isinstance(a, BoolV) and isinstance(b, BoolV):
            x, y, s = z3.If(a.e, 1, 0), z3.If(b.e, 1, 0), a.sites | b.sites
        elif isinstance(a, PtrV) and isinstance(b, PtrV) and a.region is not None and a.region == b.region:
            x, y, s = a.off, b.off, a.sites | b.sites
        else:
            return BoolV(self.reg.bool_var("comparison", VarLevel.THREAD, exact=False, data=True))
        match op:
            case BinaryOp.EQ:
                r = x == y
            case BinaryOp.NE:
                r = x != y
            case BinaryOp.LT:
                r = x < y
            case BinaryOp.LE:
                r = x <= y
            case BinaryOp.GT:
                r = x > y
            case BinaryOp.GE:
                r = x >= y
            case _:
                raise ValueError(op)
        return BoolV(r, s)

    def cast(self, a: Value, t: Type, kind: CastKind, node: Expr, st: State) -> Value:
        out = self._cast(a, t, kind, node, st)
        if not self._direct_sites(out) >= self._direct_sites(a):
            self.use(a, st.pc)  # the value leaves the tracked integers (a float, a pointer from an integer)
        return out

    def _cast(self, a: Value, t: Type, kind: CastKind, node: Expr, st: State) -> Value:
        if isinstance(t, PointerType):
            if isinstance(a, PtrV):
                return PtrV(a.region, a.off, t, a.sites, a.why)
            return PtrV(None, z3.IntVal(0), t, why="it is made from an integer")
        if isinstance(t, VectorType):
            if isinstance(a, VecV) and kind is CastKind.CONVERT and len(a.lanes) == t.lanes:
                return VecV(tuple(self.cast(x, t.elem, kind, node, st) for x in a.lanes), t)
            return self.fresh(t, "reinterpreted vector", data=True)
        if not isinstance(t, ScalarType):
            return OpaqueV(t)
        if t.is_float:
            return OpaqueV(t)
        if isinstance(a, PtrV):
            if a.region is not None and a.region.kind is RegionKind.GLOBAL:
                # the address: the buffer's start, an unknown multiple of BUFFER_ALIGNMENT, plus the offset
                return IntV(self.buffer_start(a.region) + a.off, t, a.sites)
            return self.fresh(t, "pointer converted to an integer", data=True)
        if isinstance(a, BoolV):
            if t.is_bool:
                return a
            return IntV(z3.If(a.e, 1, 0), t, a.sites)
        if isinstance(a, IntV):
            if t.is_bool:
                return BoolV(a.e != 0, a.sites)
            if a.t == t:
                return a
            lo, hi = trange(t)
            slo, shi = trange(a.t)
            if lo <= slo and shi <= hi:
                return IntV(a.e, t, a.sites)
            return self.in_type(st, a.e, t, SiteKind.CONVERT, node, a.sites)
        return self.fresh(t, "integer computed from floating point", data=True)

    def math(self, fn: MathFn, args: list[Value], t: Type, node: Expr, st: State) -> Value:
        if fn is MathFn.ABS and len(args) == 1 and isinstance(args[0], IntV):
            a = args[0]
            return self.in_type(st, z3.If(a.e < 0, -a.e, a.e), a.t, SiteKind.SIGNED, node, a.sites)
        for x in args:
            self.use(x, st.pc)
        if fn in (MathFn.POPC, MathFn.CLZ, MathFn.FFS):
            bits = 64
            if args and isinstance(args[0], IntV):
                bits = args[0].t.bits
            v = self.reg.int_var(fn.value, VarLevel.THREAD, exact=False, data=True, lo=0, hi=bits)
            return IntV(v, I32)
        if isinstance(t, ScalarType) and t.is_bool:
            return BoolV(self.reg.bool_var(fn.value, VarLevel.THREAD, exact=False, data=True))
        if isinstance(t, VectorType) and t.elem.is_bool:
            return self.fresh(t, fn.value)
        return OpaqueV(t) if not isinstance(t, VectorType) else VecV(tuple(OpaqueV(t.elem) for _ in range(t.lanes)), t)


#: The integer operators that may leave their type's range.
_WRAPPING = (BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.SHL)


def _factors(e: Z) -> tuple[int, list[Z]]:
    """``e`` as a constant times a list of factors (each simplified, so that two spellings of one size
    compare equal): ``2 * ((n + 31) / 32)`` is ``(2, [(31 + n) / 32])``."""
    const = 1
    out: list[Z] = []
    todo = [e]
    while todo:
        t = todo.pop()
        if z3.is_mul(t):
            todo.extend(t.children())
        elif z3.is_int_value(t):
            const *= t.as_long()
        else:
            out.append(z3.simplify(t))
    return const, out


def _plus_one(e: Z) -> Z:
    """``e + 1``, with ``a - 1 + 1`` read as ``a`` (an inclusive bound ``grid - 1`` as the exclusive ``grid``)."""
    if z3.is_sub(e) and e.num_args() == 2 and z3.is_int_value(e.arg(1)) and e.arg(1).as_long() == 1:
        return e.arg(0)
    if z3.is_add(e) and z3.is_int_value(e.arg(e.num_args() - 1)) and e.arg(e.num_args() - 1).as_long() == -1:
        args = [e.arg(i) for i in range(e.num_args() - 1)]
        return args[0] if len(args) == 1 else z3.Sum(*args)
    return e + 1


def _scalar_of(t: Type) -> Type:
    """The element type of a block type, any other type itself."""
    return t.elem if isinstance(t, BlockType) else t


def _shape_of(t: Type) -> tuple[int, ...]:
    return t.shape if isinstance(t, BlockType) else ()


def _int_elem_or_none(t: Type) -> ScalarType | None:
    st = _scalar_of(t)
    return st if isinstance(st, ScalarType) and st.is_int else None


def _int_elem(t: Type) -> ScalarType:
    st = _int_elem_or_none(t)
    assert st is not None, t
    return st


def _what(e: Reduce | Scan | Combine | Dot) -> str:
    match e:
        case Reduce():
            return f"{e.op.value} reduction"
        case Scan():
            return f"{e.op.value} scan"
        case Combine():
            return f"{e.kind.value} with {e.func}"
        case Dot():
            return "tl.dot"
        case _:
            assert_never(e)


def _subst(v: Value, pairs: list[tuple[Z, Z]]) -> Value:
    """``v`` with the element indices of ``pairs`` replaced."""
    if not pairs:
        return v
    match v:
        case IntV():
            return IntV(z3.substitute(v.e, *pairs), v.t, v.sites)
        case BoolV():
            return BoolV(z3.substitute(v.e, *pairs), v.sites)
        case PtrV():
            return PtrV(v.region, z3.substitute(v.off, *pairs), v.t, v.sites, v.why)
        case OpaqueV():
            return v
        case VecV():
            return VecV(tuple(_subst(x, pairs) for x in v.lanes), v.t)
        case _:
            assert_never(v)


def _fold(e: Z, x: Z, y: Z, op: object) -> Z:
    if z3.is_int_value(x) and z3.is_int_value(y) and callable(op):
        return z3.IntVal(op(x.as_long(), y.as_long()))
    return e


def _tracked(v: Value) -> bool:
    match v:
        case IntV() | BoolV() | PtrV():
            return True
        case OpaqueV():
            return False
        case VecV():
            return any(_tracked(x) for x in v.lanes)
        case _:
            assert_never(v)


def _complementary(a: Z, b: Z) -> bool:
    return bool((z3.is_not(b) and b.arg(0).eq(a)) or (z3.is_not(a) and a.arg(0).eq(b)))


def _loc(span: Span) -> str:
    return f"{span.line}:{span.col}" if span != NO_SPAN else "?"


def _shape(e: ShapeExpr | None) -> str:
    return shape_text(e) if e is not None else "?"


def _stmt_text(s: Stmt) -> str:
    match s:
        case Load(dst, ptr):
            return f"%{dst} = load [{print_expr(ptr)}]"
        case Store(ptr):
            return f"store [{print_expr(ptr)}]"
        case Atomic(_, op, ptr):
            return f"atomic.{op.value} [{print_expr(ptr)}]"
        case Barrier(scope):
            return f"barrier.{scope.value}"
        case Shuffle(_, kind):
            return f"shfl.{kind.value}"
        case Vote(_, kind):
            return f"vote.{kind.value}"
        case _:
            return type(s).__name__.lower()


class _LoopVars:
    """The variables a summarised loop changes, and how each is represented at iteration ``k``.

    ``affine``: closed form ``init + k * D`` (``D`` the value in ``affine``); ``uniform``: the term
    ``f(blockIdx, enclosing iterations, k)`` of an uninterpreted function; the others: a fresh
    per-thread value. ``facts`` are the candidate invariants still believed inductive.
    """

    FACTS = ("ge", "le", "ge0", "ge1")

    def __init__(self, ex: Executor, st: State, names: list[str], where: str, ctx_args: list[Z], k: Z) -> None:
        self.ex = ex
        self.st = st
        self.names = names
        self.where = where
        self.ctx_args = ctx_args
        self.k = k
        self.entry: dict[str, Value] = {n: st.env[ex.key(n)] for n in names}
        self.affine: dict[str, IntV] = {}
        self.uniform: set[str] = set()
        self.facts: dict[str, list[str]] = {}
        self.funcs: dict[str, Z] = {}
        self.havoc: dict[str, Value] = {}

    def reset_facts(self, n: str) -> None:
        v0 = self.entry[n]
        if isinstance(v0, IntV | PtrV):
            self.facts[n] = [c for c in self.FACTS if self.ex._fact_base(self.st, v0, c)]

    def fresh_like(self, n: str, what: str) -> Value:
        """A fresh value of ``n``'s kind (a pointer keeps its buffer, with an unknown offset)."""
        v0 = self.entry[n]
        if isinstance(v0, PtrV) and v0.region is not None:
            off = self.ex.reg.int_var(f"offset of {n}", VarLevel.THREAD, exact=False, what=what)
            return PtrV(v0.region, off, v0.t)
        return self.ex.fresh(Executor._type_of(v0), what, data=False)

    def value(self, n: str, at: Z, slot: str = "k") -> Value:
        """The value of ``n`` at the head of iteration ``at``; what is known of it (its range, the
        invariants) becomes facts of its variable (or function) under ``slot``."""
        v0 = self.entry[n]
        if n in self.affine:
            d = self.affine[n]
            if isinstance(v0, PtrV):
                return PtrV(v0.region, v0.off + at * d.e, v0.t, v0.sites | d.sites, v0.why)
            assert isinstance(v0, IntV)
            return IntV(v0.e + at * d.e, v0.t, v0.sites | d.sites)
        if n in self.uniform:
            f = self.funcs.get(n)
            if f is None:
                f = self.ex.reg.function(
                    f"{n}@{self.where}",
                    len(self.ctx_args) + 1,
                    exact=False,
                    sort=z3.BoolSort() if isinstance(v0, BoolV) else z3.IntSort(),
                    what=f"value of {n} in the loop at {self.where}",
                )
                self.funcs[n] = f
            v = self.ex._from_term(v0, f(*self.ctx_args, at))
            owner = f.name()
            facts = self.ex._range_facts(v)
        else:
            if slot == "k":
                hv = self.havoc.get(n)
                if hv is None:
                    hv = self.fresh_like(n, f"{n} in the loop at {self.where}")
                    self.havoc[n] = hv
                v = hv
            else:
                v = self.fresh_like(n, f"{n} after the loop at {self.where}")
            names = self.ex._free_of(v)
            if not names:
                return v
            owner = next(iter(names))
            facts = []
        facts += [self.ex._fact(v, v0, c) for c in self.facts.get(n, [])]
        self.ex.reg.info(owner).slots[f"{n}@{slot}"] = facts
        return v

    def head_state(self, count: Z, wcount: Z) -> State:
        hs = self.st.copy()
        for n in self.names:
            hs.env[self.ex.key(n)] = self.value(n, self.k)
        hs.count = count
        hs.wcount = wcount
        return hs

    def refine(self, end: State) -> bool:
        """Drop what the state at the end of an iteration refutes; whether anything changed."""
        ex = self.ex
        changed = False
        for n in list(self.affine):
            if not ex._affine_ok(end, self.entry[n], end.env.get(ex.key(n)), self.affine[n], self.k):
                del self.affine[n]
                if not ex._thread_dependent(self.entry[n]):
                    self.uniform.add(n)
                self.reset_facts(n)
                changed = True
        for n in list(self.uniform):
            v = end.env.get(ex.key(n))
            if v is None or ex._thread_dependent(v):
                self.uniform.discard(n)
                changed = True
        for n, cs in self.facts.items():
            v = end.env.get(ex.key(n))
            keep = [c for c in cs if v is not None and ex._fact_holds(end, v, self.entry[n], c)]
            if keep != cs:
                self.facts[n] = keep
                changed = True
        return changed

    def give_up(self) -> None:
        """No inductive description found: every changed variable is a fresh per-thread value."""
        self.affine.clear()
        self.uniform.clear()
        self.facts.clear()

    def carry(self, n: str, v_end: Value | None) -> None:
        """Record on ``n``'s fresh variables (or function) the sites and data its updates carry."""
        if n in self.havoc:
            self.ex._carry(self.havoc[n], v_end)
        f = self.funcs.get(n)
        if f is not None and v_end is not None:
            info = self.ex.reg.info(f.name())
            info.sites |= set(self.ex._sites_of(v_end))
            info.data = info.data or self.ex.reg.any_data(self.ex._free_of(v_end))
