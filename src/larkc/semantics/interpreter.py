"""The interpreter: the executable semantics of the kernel IR on one concrete launch.

**Execution model.** Every thread of the launch (every block at once) is one lane of a vector: each IR
variable is a tensor whose first dimension runs over the ``T`` threads of the launch, and a statement
executes once for all threads under an *active mask*. Control flow is SIMT: ``if`` runs its
``then`` arm for the active threads whose condition holds and its ``else`` arm for the others; a loop
runs its body while any thread is still iterating; ``break``, ``continue`` and ``return`` remove
threads from the mask until the end of the loop body, the loop, or the function. Threads of a block,
and blocks, thus advance in lock-step, one statement at a time.

Lock-step is one legal schedule of a CUDA program, and the checks do not depend on it: the race check
records every access of a barrier interval (see :mod:`larkc.semantics.memory`) and reports any two
conflicting ones, whatever their order in this schedule; a program free of races, divergence and
reads of uninitialised memory computes the same results under every schedule, so those results are
the program's results.

**Barriers.** ``__syncthreads()`` must be reached by every thread of a block that has not exited,
together. At a barrier, each block has either no active thread (it is elsewhere, e.g. both arms of a
block-uniform ``if`` have a barrier) or all its live threads; anything else is ``divergence`` and the
simulation stops (the GPU would hang or misbehave). Passing a barrier advances the block's phase,
which is what orders memory accesses for the race check. ``__syncwarp(mask)`` does the same for the
lanes of a warp.

**Warps** are 32 consecutive threads of a block (``threadIdx.x`` fastest). A shuffle reads the value
its source lane holds at the shuffle; reading an inactive lane or one outside the mask is ``uninit``,
and a lane named by the mask that is alive but does not take part is ``divergence``.

**Elements of a Triton program.** A block-level program is one "thread" of the launch, but the elements
of its blocks are spread over GPU threads by the compiler: every memory access passes the identity of
its element (:meth:`~larkc.semantics.memory.Memory.element_ids`) so that the race check can tell two
elements of one program apart, and ``tl.debug_barrier()`` advances the program's barrier phase, which
orders its elements' accesses before and after it.

**Spin locks between programs.** A block-level (Triton) kernel with a ``while`` loop that executes an
atomic (:func:`spins`: ``while tl.atomic_cas(lock, 0, 1) == 1: pass``) cannot run in lock-step: the program
holding the lock would only release it after every program left the loop. Its programs run one at a
time instead, in program-id order, each to its end (the schedule of Triton's interpreter), and the race
check orders their accesses by the happens-before of their atomics' memory orders
(:class:`~larkc.semantics.memory.ProgramClocks`) rather than not at all. So do the programs of a kernel
that branches on an atomic's result (:func:`branches_on_atomics`: a ticket, "the last program adds the
partials up"), whose acq_rel ticket orders the other programs' partials before the last one's loads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import assert_never

import torch

from larkc.errors import InternalError, LarkcError, LimitExceeded, PreconditionError, SimulationError, Span
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
    CombineKind,
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
    FunctionKind,
    If,
    Insert,
    Level,
    Load,
    MakeVector,
    MathCall,
    MemoryOrder,
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
    ShuffleKind,
    Splat,
    Stmt,
    Store,
    Unary,
    VarRef,
    Vote,
    VoteKind,
    While,
)
from larkc.ir.types import (
    F64,
    I64,
    U64,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    size_of,
)
from larkc.ir.walk import fences_and_atomics, operands, stmt_exprs, sub_exprs, walk_stmts
from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind, DiagnosisLog, Dim3
from larkc.semantics.geometry import WARP_SIZE, LaunchConfig, ThreadSpace, format_dim3
from larkc.semantics.memory import FenceClocks, Memory, ProgramClocks, Region, RegionKind, Site, encode_pointer
from larkc.semantics.numerics import (
    UndefinedOps,
    UndefinedReason,
    apply_binary,
    apply_math,
    apply_unary,
    bitcast_value,
    broadcast,
    convert_value,
    dense,
    from_mem,
    mem_dtype,
    poison,
    reg_dtype,
    scalar_tensor,
    to_mem,
    wrap,
)

__all__ = [
    "SCAN_STEP",
    "CombineStep",
    "GlobalBuffer",
    "Interpreter",
    "KernelArg",
    "LastWrite",
    "SimLimits",
    "SimResult",
    "StepLimitExceeded",
    "WriteLog",
    "bind_arguments",
    "combine_step",
    "combine_values",
    "kernel_of",
    "param_register",
    "scan_values",
    "simulate",
]


@dataclass(frozen=True, slots=True)
class SimLimits:
    """Bounds that keep a simulation finite. Exceeding one is a :class:`SimulationError` (a loop past
    ``max_loop_iterations``: :class:`StepLimitExceeded`)."""

    max_threads: int = 1 << 24  # threads in one launch
    max_loop_iterations: int = 100_000  # iterations of one execution of one loop
    max_call_depth: int = 64  # nested device-function calls
    max_diagnoses: int = 20  # distinct diagnosis lines kept


@dataclass(frozen=True, slots=True)
class GlobalBuffer:
    """A kernel buffer: its name (in diagnoses), its contents, and its element type.

    ``initialised=False`` marks a buffer whose contents are unspecified before the launch (a task's
    ``empty`` outputs): reading an element before writing it is ``uninit``. A bool tensor of ``data``'s
    shape says which elements hold defined values, the others starting empty (a buffer an earlier launch
    wrote in part).
    """

    name: str
    data: torch.Tensor
    dtype: ScalarType
    initialised: bool | torch.Tensor = True


KernelArg = GlobalBuffer | bool | int | float


@dataclass(frozen=True, slots=True)
class SimResult:
    """The outcome of one simulated launch.

    ``buffers`` holds the final contents of every kernel buffer (new tensors, same shape and dtype);
    ``written`` says, for buffers that started empty, which elements the kernel wrote.
    """

    diagnoses: tuple[Diagnosis, ...]
    buffers: dict[str, torch.Tensor]
    written: dict[str, torch.Tensor]
    launch: LaunchConfig
    threads: int
    seconds: float
    statements: int
    aborted: bool = False  # stopped early (barrier divergence): the buffers hold no meaningful result
    #: per buffer named by ``simulate(record_writers=...)``, who wrote each element last
    writers: dict[str, WriteLog] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.diagnoses


@dataclass(frozen=True, slots=True)
class LastWrite:
    """The store (or atomic) that last wrote an element: its span, the device-function calls that led to
    it (`` (in device function f called at kernel.cu:12:5)``, or ``""``) and the thread that executed it."""

    span: Span
    where: str
    block: Dim3
    thread: Dim3 | None
    who: str  # "block (0,0,0) thread (3,0,0)"


@dataclass(frozen=True, slots=True)
class WriteLog:
    """The last writer of each element of one buffer: a site (index into ``sites``) and thread number."""

    site: torch.Tensor
    thread: torch.Tensor
    sites: tuple[Site, ...]
    space: ThreadSpace

    def last(self, flat: int) -> LastWrite | None:
        """Who wrote element ``flat`` (row-major, in elements of the buffer's type) last; ``None``: nobody."""
        if not 0 <= flat < self.site.numel() or int(self.site[flat]) < 0:
            return None
        site = self.sites[int(self.site[flat])]
        t = int(self.thread[flat])
        block, thread = self.space.coords(t)
        return LastWrite(site.span, site.where, block, thread, self.space.describe(t))


class StepLimitExceeded(LimitExceeded):
    """A loop ran more iterations than :attr:`SimLimits.max_loop_iterations` (``bound``) in one execution.

    :func:`simulate` sets ``diagnoses`` to what the run found before; ``larkc run`` reports the loop as
    a ``nontermination`` diagnosis of the kernel rather than as an error of its input.
    """

    def __init__(self, message: str, span: Span | None, *, bound: int) -> None:
        super().__init__(message, span)
        self.bound = bound
        self.diagnoses: tuple[Diagnosis, ...] = ()


# What a failing rule of the simulator raises (torch's shape errors, a table without an entry, ...): each
# becomes one InternalError at the statement. Not SymbolicUnsupported (a reason for UNKNOWN), not _Abort.
_SIMULATOR_BUGS = (ArithmeticError, AssertionError, AttributeError, LookupError, RuntimeError, TypeError, ValueError)


class _Abort(Exception):
    """Raised to stop a launch after a diagnosis that leaves no meaningful continuation (divergence)."""


@dataclass(slots=True)
class _Loop:
    broken: torch.Tensor
    continued: torch.Tensor


@dataclass(slots=True)
class _Frame:
    func: Function
    vars: dict[str, torch.Tensor]
    types: dict[str, Type]
    ret: torch.Tensor | None
    loops: list[_Loop] = field(default_factory=list)
    #: variables declared without a value: the threads for which they are not assigned yet, and the
    #: declaration's span (only while ``Interpreter.check_locals``)
    unset: dict[str, tuple[torch.Tensor, Span]] = field(default_factory=dict)


def _trailing(t: Type) -> tuple[int, ...]:
    """The per-thread shape of a value of type ``t`` (a vector's lanes, a block's shape)."""
    match t:
        case VectorType():
            return (t.lanes,)
        case BlockType():
            return t.shape
        case ScalarType() | PointerType():
            return ()
        case ArrayType() | VoidType():
            raise SimulationError(f"a value of type {t} cannot be held in a variable")
        case _:
            assert_never(t)


def _elem(t: Type) -> ScalarType:
    """The scalar element of a value type; pointers are 64-bit integers to the arithmetic."""
    match t:
        case ScalarType():
            return t
        case VectorType():
            return t.elem
        case BlockType():
            return t.elem if isinstance(t.elem, ScalarType) else U64
        case PointerType():
            return U64
        case ArrayType() | VoidType():
            raise SimulationError(f"{t} has no scalar element")
        case _:
            assert_never(t)


def _is_pointer(t: Type) -> bool:
    return isinstance(t, PointerType) or (isinstance(t, BlockType) and isinstance(t.elem, PointerType))


def _pointer_of(t: Type) -> PointerType:
    if isinstance(t, PointerType):
        return t
    if isinstance(t, BlockType) and isinstance(t.elem, PointerType):
        return t.elem
    raise SimulationError(f"expected a pointer, got {t}")


class Interpreter:
    """Runs one kernel of a module on one launch; see the module docstring for the semantics."""

    def __init__(self, module: Module, kernel: Function, launch: LaunchConfig, limits: SimLimits) -> None:
        self.module = module
        self.kernel = kernel
        self.level = kernel.level
        self.limits = limits
        self.space = ThreadSpace(launch, kernel.level, max_threads=kernel.max_threads)
        n = self.space.num_threads
        if n > limits.max_threads:
            raise SimulationError(f"launch of {n} threads is too large to simulate (limit {limits.max_threads})")
        self.n = n
        self.log = DiagnosisLog(limit=limits.max_diagnoses)
        self.sites: list[Site] = []
        self._site_ids: dict[tuple[int, str], int] = {}
        self._calls: list[tuple[str, Span]] = []  # the device functions being executed and their call sites
        self.mem = Memory(self.space, self.log, self.sites)
        self.mem.track_non_coherent = any(
            isinstance(s, Load) and s.nc for f in module.functions for s in walk_stmts(f.body)
        )
        if self.level is Level.BLOCK and (spins(module) or branches_on_atomics(module)):
            self.mem.clocks = ProgramClocks.start(n)
        elif (
            self.level is Level.THREAD
            and self.space.num_blocks > 1
            and any(fences_and_atomics(f.body) for f in module.functions)
        ):
            self.mem.fences = FenceClocks.start(self.space)
        #: the scalar atomics of a block-level kernel whose result is used (:func:`broadcast_atomics`)
        self._broadcasts = broadcast_atomics(module) if self.level is Level.BLOCK else frozenset()
        self.full = torch.ones(n, dtype=torch.bool)
        self.none = torch.zeros(n, dtype=torch.bool)
        self.exited = self.none
        self._live_per_block: torch.Tensor | None = None
        self._consts: dict[int, torch.Tensor] = {}
        self._poisons: dict[Type, torch.Tensor] = {}
        self._live_bits: torch.Tensor | None = None
        self._regions: dict[int, Region] = {}
        self._dynamic_shared: Region | None = None
        self._frames: list[_Frame] = []
        self.statements = 0
        self.aborted = False
        self._builtins = self._make_builtins()
        #: report reads of local variables declared without a value and not assigned on the thread's path
        #: (``uninit``); :func:`simulate` turns it on
        self.check_locals = False
        self._reads: dict[int, dict[str, Span]] = {}

    # -- entry -----------------------------------------------------------------------------------------

    def run(self, args: Mapping[str, torch.Tensor]) -> None:
        """Execute the kernel body for every thread with parameter values ``args`` (register tensors)."""
        frame = self._frame(self.kernel, args)
        self._frames.append(frame)
        try:
            if self.mem.clocks is None:
                self._stmts(self.kernel.body, self.full)
            else:
                for p in range(self.n):  # one program at a time, in program-id order
                    self.mem.clocks.program = p
                    one = self.none.clone()
                    one[p] = True
                    self._stmts(self.kernel.body, one)
        except _Abort:
            self.aborted = True
        finally:
            self._frames.pop()

    def _frame(self, f: Function, args: Mapping[str, torch.Tensor]) -> _Frame:
        types: dict[str, Type] = {p.name: p.type for p in f.params}
        variables = {p.name: self._widen(args[p.name]) for p in f.params}
        ret = None if isinstance(f.ret, VoidType) else self._poison(f.ret)
        return _Frame(f, variables, types, ret)

    # -- helpers ---------------------------------------------------------------------------------------

    def _make_builtins(self) -> dict[tuple[BuiltinReg, int], torch.Tensor]:
        s = self.space
        launch = s.launch
        out: dict[tuple[BuiltinReg, int], torch.Tensor] = {}
        for d in range(3):
            out[(BuiltinReg.THREAD_IDX, d)] = s.thread_idx[d]
            out[(BuiltinReg.BLOCK_IDX, d)] = s.block_idx[d]
            out[(BuiltinReg.BLOCK_DIM, d)] = torch.tensor([launch.block[d]], dtype=torch.int64)
            out[(BuiltinReg.GRID_DIM, d)] = torch.tensor([launch.grid[d]], dtype=torch.int64)
        return out

    def _poison(self, t: Type) -> torch.Tensor:
        """The value of an unassigned variable of type ``t`` for every thread: a shared read-only view."""
        v = self._poisons.get(t)
        if v is None:
            trailing = _trailing(t)
            v = poison(_elem(t), (1, *trailing)).expand(self.n, *trailing)
            self._poisons[t] = v
        return v

    def _widen(self, v: torch.Tensor) -> torch.Tensor:
        """``v`` with its thread dimension expanded to all threads (a view, no copy)."""
        if v.shape[0] == self.n:
            return v
        return v.expand(self.n, *v.shape[1:])

    @staticmethod
    def _bmask(mask: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
        """``mask`` shaped to broadcast against ``like`` along its trailing dimensions."""
        if like.dim() <= 1:
            return mask
        return mask.view(mask.shape[0], *([1] * (like.dim() - 1)))

    # Value-domain hooks. The simulator's registers are tensors of concrete values; a second value domain
    # (the symbolic executor of larkc.semantics.symbolic) overrides these few methods and the expression
    # rules, and reuses every statement rule of this class unchanged.

    def _as_reg(self, value: torch.Tensor, like: torch.Tensor, t: Type) -> torch.Tensor:
        """``value`` in the register representation of ``like`` (a variable of IR type ``t``)."""
        return value.to(like.dtype)

    def _where(self, cond: torch.Tensor, a: torch.Tensor, b: torch.Tensor, t: Type) -> torch.Tensor:
        """``a`` where ``cond`` (a concrete bool tensor, broadcast) holds, else ``b``; both of IR type ``t``."""
        return torch.where(cond, a, b)

    def _scatter(self, flat: torch.Tensor, on: torch.Tensor, values: torch.Tensor, t: Type) -> torch.Tensor:
        """``flat`` (a fresh tensor) with the elements selected by ``on`` replaced by ``values``; both hold
        values of ``t`` (the IR type of the variable they end up in)."""
        flat[on] = values.to(flat.dtype)
        return flat

    def param_value(self, name: str, t: Type, value: KernelArg, pointers: Mapping[str, int]) -> torch.Tensor:
        """The register value of kernel parameter ``name`` of type ``t`` bound to ``value``."""
        return param_register(name, t, value, pointers)

    def diagnoses(self) -> tuple[Diagnosis, ...]:
        """The diagnoses of the run, with a last line counting those beyond the log's limit."""
        diags = list(self.log.entries)
        if self.log.dropped:
            diags.append(Diagnosis(diags[-1].kind, f"... and {self.log.dropped} more finding(s) not shown", None))
        return tuple(diags)

    def _concrete(self, v: torch.Tensor, what: str, span: Span, active: torch.Tensor | None) -> torch.Tensor:
        """``v`` as concrete values: control (conditions, masks, lanes, widths) and addresses must be.

        ``active`` is the mask of the threads whose value matters (``None``: all of them)."""
        return v

    def _merge(self, mask: torch.Tensor, new: torch.Tensor, old: torch.Tensor, t: Type) -> torch.Tensor:
        """``new`` where ``mask`` holds, ``old`` elsewhere (values of IR type ``t``)."""
        if mask is self.full:
            return new if new.shape[0] == self.n else new.expand(self.n, *new.shape[1:])
        return self._where(self._bmask(mask, new if new.dim() >= old.dim() else old), new, old, t)

    def _assigned(self, frame: _Frame, name: str, mask: torch.Tensor) -> None:
        """``name`` now holds a value for the threads of ``mask``."""
        entry = frame.unset.get(name)
        if entry is None:
            return
        if mask is self.full:
            del frame.unset[name]
        else:
            frame.unset[name] = (entry[0] & ~mask, entry[1])

    def _check_reads(self, key: object, exprs: Iterator[Expr], frame: _Frame, mask: torch.Tensor) -> None:
        """Report the variables that ``exprs`` (the expressions of one statement, ``key``) read while some
        thread of ``mask`` has not assigned them since their declaration without a value (``uninit``)."""
        reads = self._reads.get(id(key))
        if reads is None:
            reads = {}
            for e in exprs:
                if isinstance(e, VarRef):
                    reads.setdefault(e.name, e.span)
            self._reads[id(key)] = reads
        for name, span in reads.items():
            entry = frame.unset.get(name)
            if entry is None:
                continue
            unset, declared = entry
            bad = unset & mask
            if not bool(bad.any()):
                continue
            idx = bad.expand(self.n) if bad.shape[0] != self.n else bad
            t0 = int(idx.nonzero()[0])
            block, thread = self.space.coords(t0)
            self.log.add(
                Diagnosis(
                    DiagnosisKind.UNINIT,
                    f"read of variable {name} by {self.space.describe(t0)}, which was declared without a value "
                    f"at line {declared.line}:{declared.col} and not assigned on this thread's path",
                    span if span.line > 0 else declared,
                    block,
                    thread,
                ),
                key=f"var:{name}",
                occurrences=int(idx.sum()),
            )
            self._assigned(frame, name, mask)  # reported once per thread: what it computes next follows from it

    def _read_exprs(self, s: Stmt) -> Iterator[Expr]:
        """The expressions statement ``s`` reads: all of them but a variable passed by reference."""
        if isinstance(s, Call):
            callee = self.module.function(s.func)
            if callee is not None:
                by_ref = {i for i, p in enumerate(callee.params) if p.by_ref}
                for i, a in enumerate(s.args):
                    if not (i in by_ref and isinstance(a, VarRef)):
                        yield from sub_exprs(a)
                return
        yield from stmt_exprs(s)

    def _set(self, frame: _Frame, name: str, value: torch.Tensor, mask: torch.Tensor) -> None:
        self._assigned(frame, name, mask)
        t = frame.types[name]
        old = frame.vars.get(name)
        if old is None:
            old = self._poison(t)
        frame.vars[name] = self._merge(mask, self._as_reg(value, old, t), old, t)

    def _indices(self, mask: torch.Tensor) -> torch.Tensor:
        if mask is self.full:
            return self.space.tid
        return mask.nonzero().squeeze(1)

    def _narrow(self, mask: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        """``mask & cond``, returning ``mask`` itself when nothing is removed (keeps the full mask fast)."""
        m = mask & cond
        if m.shape != mask.shape:
            m = m.expand_as(mask)
        return mask if torch.equal(m, mask) else m

    def _union(self, whole: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """``a | b`` for sub-masks of ``whole``, returning ``whole`` itself when they cover it."""
        if a is whole or b is whole:
            return whole
        m = a | b
        return whole if torch.equal(m, whole) else m

    def _site(self, s: Stmt, what: str) -> int:
        key = (id(s), self.log.where)  # one site per statement and chain of calls leading to it
        sid = self._site_ids.get(key)
        if sid is None:
            sid = len(self.sites)
            self.sites.append(Site(s.span, what, self.log.where))
            self._site_ids[key] = sid
        return sid

    def _report_ub(self, ub: UndefinedOps, fallback: Span) -> None:
        for reason, bad, span in ub.found:
            idx = bad.expand(self.n) if bad.shape[0] != self.n else bad
            nz = idx.nonzero()
            t0 = int(nz[0]) if nz.numel() else 0
            block, thread = self.space.coords(t0)
            self.log.add(
                Diagnosis(
                    DiagnosisKind.UB,
                    f"{reason.value} by {self.space.describe(t0)}",
                    span if span is not None and span.line > 0 else fallback,
                    block,
                    thread,
                ),
                key=reason.name,
                occurrences=int(idx.sum()),
            )

    def _live_counts(self) -> torch.Tensor:
        if self._live_per_block is None:
            live = ~self.exited
            self._live_per_block = torch.bincount(self.space.block[live], minlength=self.space.num_blocks)
        return self._live_per_block

    # -- statements ------------------------------------------------------------------------------------

    def _stmts(self, stmts: Sequence[Stmt], mask: torch.Tensor) -> torch.Tensor:
        """Execute ``stmts`` for the threads of ``mask``; returns the threads that reach the end."""
        for s in stmts:
            if mask is not self.full and not bool(mask.any()):
                return mask
            try:
                mask = self._stmt(s, mask)
            except _Abort:
                raise
            except LarkcError as err:
                raise err.with_span(s.span) from None
            except _SIMULATOR_BUGS as err:
                # A bug of the simulator, not of the kernel: said at the statement, and not a LarkcError (no
                # caller may take it for bad input or a reason for UNKNOWN). Not caught again by the
                # enclosing statements' _stmts: an InternalError is none of these types.
                raise InternalError(f"the simulator failed: {type(err).__name__}: {err}", s.span) from err
        return mask

    def _stmt(self, s: Stmt, mask: torch.Tensor) -> torch.Tensor:
        self.statements += 1
        frame = self._frames[-1]
        if frame.unset and not isinstance(s, For | While | DoWhile):  # a loop checks its condition per iteration
            self._check_reads(s, self._read_exprs(s), frame, mask)
        match s:
            case Decl():
                frame.types[s.name] = s.type
                if s.init is None and self.check_locals and isinstance(s.type, ScalarType):
                    # C: the variable's value is indeterminate (again, on each execution of the declaration)
                    old_unset = frame.unset.get(s.name)
                    unset = mask if old_unset is None or mask is self.full else old_unset[0] | mask
                    frame.unset[s.name] = (unset, s.span)
                else:
                    self._assigned(frame, s.name, mask)
                ub = UndefinedOps(mask)
                value = self._eval(s.init, ub) if s.init is not None else self._poison(s.type)
                old = frame.vars.get(s.name)
                if old is None or mask is self.full:
                    base = self._poison(s.type)
                    frame.vars[s.name] = self._merge(mask, self._as_reg(value, base, s.type), base, s.type)
                else:
                    frame.vars[s.name] = self._merge(mask, self._as_reg(value, old, s.type), old, s.type)
                self._report_ub(ub, s.span)
                return mask
            case Assign():
                ub = UndefinedOps(mask)
                self._set(frame, s.name, self._eval(s.value, ub), mask)
                self._report_ub(ub, s.span)
                return mask
            case Alloc():
                self._alloc(s, frame, mask)
                return mask
            case Load():
                self._load(s, frame, mask)
                return mask
            case Store():
                self._store(s, mask)
                return mask
            case If():
                ub = UndefinedOps(mask)
                cond = self._concrete(self._eval(s.cond, ub), "branch condition", s.cond.span, mask)
                self._report_ub(ub, s.span)
                then_mask = self._narrow(mask, cond)
                else_mask = self.none if then_mask is mask else self._narrow(mask, ~cond)
                after_then = self._stmts(s.then_body, then_mask) if s.then_body else then_mask
                after_else = self._stmts(s.else_body, else_mask) if s.else_body else else_mask
                return self._union(mask, after_then, after_else)
            case For():
                mask = self._stmts(s.init, mask)
                return self._loop(s.cond, s.body, s.step, mask, s.span, test_first=True)
            case While():
                return self._loop(s.cond, s.body, (), mask, s.span, test_first=True)
            case DoWhile():
                return self._loop(s.cond, s.body, (), mask, s.span, test_first=False)
            case Break():
                loop = frame.loops[-1]
                loop.broken = loop.broken | mask
                return self.none
            case Continue():
                loop = frame.loops[-1]
                loop.continued = loop.continued | mask
                return self.none
            case Return():
                if s.value is not None and frame.ret is not None:
                    ub = UndefinedOps(mask)
                    value = self._eval(s.value, ub)
                    rt = frame.func.ret
                    frame.ret = self._merge(mask, self._as_reg(value, frame.ret, rt), frame.ret, rt)
                    self._report_ub(ub, s.span)
                if frame.func.kind is FunctionKind.KERNEL and len(self._frames) == 1:
                    self.exited = self.exited | mask
                    self._live_per_block = None
                    self._live_bits = None
                return self.none
            case Barrier():
                self._barrier(s, mask)
                return mask
            case Fence(scope):
                # Lock-step execution already orders each thread's accesses; a fence of device or system
                # scope also makes release and acquire patterns with atomics between blocks.
                if scope is not MemScope.BLOCK and self.mem.fences is not None:
                    self.mem.fence(mask.nonzero().reshape(-1))
                return mask
            case Assert():
                ub = UndefinedOps(mask)
                cond = self._concrete(self._eval(s.cond, ub), "assertion", s.cond.span, mask)
                self._report_ub(ub, s.span)
                failed = mask & ~cond
                if bool(failed.any()):
                    idx = failed.expand(self.n) if failed.shape[0] != self.n else failed
                    t0 = int(idx.nonzero()[0])
                    block, thread = self.space.coords(t0)
                    hint = s.kind is AssertKind.HINT  # a false compiler hint: undefined behaviour, no trap
                    kind, key = (DiagnosisKind.UB, "hint") if hint else (DiagnosisKind.ASSERT, "assert")
                    what = "compiler hint false" if hint else "assertion failed"
                    more = " (the compiler optimises on it)" if hint else ""
                    text = f"{what} in {self.space.describe(t0)}{more}"
                    self.log.add(Diagnosis(kind, text, s.span, block, thread), key=key, occurrences=int(idx.sum()))
                    if not hint:
                        self.exited = self.exited | idx  # a trapping thread does nothing more
                    self._live_per_block = None
                    self._live_bits = None
                    return self._narrow(mask, cond)
                return mask
            case Assume():
                ub = UndefinedOps(mask)
                cond = self._concrete(self._eval(s.cond, ub), "precondition", s.cond.span, mask)
                self._report_ub(ub, s.span)
                violated = mask & ~cond
                if bool(violated.any()):
                    idx = violated.expand(self.n) if violated.shape[0] != self.n else violated
                    raise precondition_violated(s, self.space.describe(int(idx.nonzero()[0])))
                return mask
            case Shuffle():
                self._shuffle(s, frame, mask)
                return mask
            case Vote():
                self._vote(s, frame, mask)
                return mask
            case Atomic():
                self._atomic(s, frame, mask)
                return mask
            case Call():
                self._call(s, frame, mask)
                return self._narrow(mask, ~self.exited)  # threads that trapped in the callee do nothing more
            case _:
                assert_never(s)

    def _loop(
        self,
        cond: Expr | None,
        body: Sequence[Stmt],
        step: Sequence[Stmt],
        mask: torch.Tensor,
        span: Span,
        *,
        test_first: bool,
    ) -> torch.Tensor:
        """A C loop in SIMT form; returns the threads that leave it normally or by ``break``."""
        frame = self._frames[-1]
        running = mask
        done = self.none
        first = True
        for _ in range(self.limits.max_loop_iterations):
            if cond is not None and (test_first or not first):
                if frame.unset:
                    self._check_reads(cond, sub_exprs(cond), frame, running)
                ub = UndefinedOps(running)
                c = self._concrete(self._eval(cond, ub), "loop condition", cond.span, running)
                self._report_ub(ub, span)
                staying = self._narrow(running, c)
                if staying is not running:
                    done = self._union(mask, done, running & ~staying)
                running = staying
            first = False
            if running is not mask and not bool(running.any()):
                return done
            loop = _Loop(self.none, self.none)
            frame.loops.append(loop)
            try:
                end = self._stmts(body, running)
            finally:
                frame.loops.pop()
            if loop.broken is not self.none:
                done = self._union(mask, done, loop.broken)
            nxt = self._union(running, end, loop.continued) if loop.continued is not self.none else end
            if step and (nxt is mask or bool(nxt.any())):
                nxt = self._stmts(step, nxt)
            running = nxt
            if running is not mask and not bool(running.any()):
                return done
        schedule = (
            "; the programs run one at a time in program-id order, so a program waiting for a later one waits forever"
            if self.mem.clocks is not None
            else ""
        )
        raise StepLimitExceeded(
            f"loop did not terminate after {self.limits.max_loop_iterations} iterations "
            f"(a spin-wait on another block, or an infinite loop{schedule})",
            span,
            bound=self.limits.max_loop_iterations,
        )

    # -- memory statements -----------------------------------------------------------------------------

    def _alloc(self, s: Alloc, frame: _Frame, mask: torch.Tensor) -> None:
        elem_t = s.elem
        frame.types[s.name] = PointerType(elem_t, s.space)
        region = self._regions.get(id(s))
        if s.count is None:
            region = self._dynamic_shared
            if region is None:
                scalar = _elem(elem_t)
                region = self.mem.add_array(
                    s.name, RegionKind.DYNAMIC_SHARED, scalar, size_of(elem_t), self.space.launch.shared_bytes
                )
                self._dynamic_shared = region
        elif region is None:
            kind = RegionKind.LOCAL if s.space is AddressSpace.LOCAL else RegionKind.SHARED
            region = self.mem.add_array(s.name, kind, _elem(elem_t), size_of(elem_t), s.count * size_of(elem_t))
            self._regions[id(s)] = region
        elif region.kind is RegionKind.LOCAL:
            self.mem.reset_local(region, self._indices(mask))
        frame.vars[s.name] = torch.tensor([encode_pointer(region.id, 0)], dtype=torch.int64).expand(self.n)

    def _targets(
        self, ptr: Expr, mask: torch.Tensor, elem_mask: Expr | None, ub: UndefinedOps
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None, tuple[int, ...]]:
        """The accesses a memory statement makes: ``(thread indices, threads, pointers, enabled, shape)``.

        ``thread indices`` are the active threads ``[A]``; ``threads``/``pointers`` are per accessed
        element (``[A * prod(shape)]`` for a block of pointers), restricted to the enabled elements;
        ``enabled`` is the flat element mask (``None`` when every element is enabled).
        """
        idx = self._indices(mask)
        pv = self._concrete(self._eval(ptr, ub), "address", ptr.span, mask)
        shape = tuple(pv.shape[1:])
        k = math.prod(shape)
        pv = self._widen(pv)[idx].reshape(-1)
        threads = idx if k == 1 else idx.repeat_interleave(k)
        enabled: torch.Tensor | None = None
        if elem_mask is not None:
            mv = self._widen(self._concrete(self._eval(elem_mask, ub), "mask", elem_mask.span, mask))[idx]
            if mv.dim() == 1 and k > 1:
                mv = mv[:, None].expand(-1, k)
            enabled = mv.reshape(-1)
            threads, pv = threads[enabled], pv[enabled]
        return idx, threads, pv, enabled, shape

    @staticmethod
    def _access_type(ptr_type: Type) -> tuple[ScalarType, int, int]:
        """``(scalar type, lanes (0 for a scalar), alignment)`` of an access through ``ptr_type``."""
        pointee = _pointer_of(ptr_type).pointee
        match pointee:
            case ScalarType():
                return pointee, 0, pointee.size
            case VectorType():
                return pointee.elem, pointee.lanes, pointee.align
            case PointerType():
                return U64, 0, 8
            case ArrayType() | BlockType() | VoidType():
                raise SimulationError(f"cannot access memory through {ptr_type}")
            case _:
                assert_never(pointee)

    def _elements(self, idx: torch.Tensor, shape: tuple[int, ...], enabled: torch.Tensor | None) -> torch.Tensor | None:
        """The element identity of each access of a block-level memory statement (``None`` for a
        thread-level kernel): the race check between a program's elements needs them."""
        if self.level is not Level.BLOCK:
            return None
        flat = torch.arange(math.prod(shape), dtype=torch.int64).repeat(idx.numel())
        return self.mem.element_ids(shape, flat if enabled is None else flat[enabled])

    def _load(self, s: Load, frame: _Frame, mask: torch.Tensor) -> None:
        ub = UndefinedOps(mask)
        vt, lanes, align = self._access_type(s.ptr.type)
        idx, threads, ptrs, enabled, shape = self._targets(s.ptr, mask, s.mask, ub)
        site = self._site(s, "load")
        values = self.mem.load(vt, lanes, align, threads, ptrs, site, self._elements(idx, shape, enabled), nc=s.nc)
        dst_t = frame.types[s.dst]
        per_thread = (idx.numel(), *_trailing(dst_t))
        if enabled is None:
            result = values.reshape(per_thread)
        else:
            # Masked-off elements take `other` (a value of the loaded type, or one element of a block).
            if s.other is not None:
                fill = self._widen(self._eval(s.other, ub))[idx]
            else:
                fill = self._poison(dst_t)[: idx.numel()]
            if fill.dim() < len(per_thread):
                fill = fill.reshape(fill.shape[0], *([1] * (len(per_thread) - 1)))
            flat = fill.expand(per_thread).reshape(-1).clone()
            width = max(lanes, 1)
            on = enabled if width == 1 else enabled.repeat_interleave(width)
            flat = self._scatter(flat, on, values.reshape(-1), dst_t)
            result = flat.reshape(per_thread)
        self._assign_rows(frame, s.dst, idx, result, mask)
        self._report_ub(ub, s.span)

    def _assign_rows(self, frame: _Frame, name: str, idx: torch.Tensor, rows: torch.Tensor, mask: torch.Tensor) -> None:
        """Set ``name`` for the threads ``idx`` (the active ones) to ``rows``."""
        self._assigned(frame, name, mask)
        t = frame.types[name]
        if mask is self.full:
            frame.vars[name] = rows.to(reg_dtype(_elem(t)))
            return
        old = frame.vars.get(name)
        new = (self._poison(t) if old is None else old).clone()  # variables may be shared read-only views
        new[idx] = rows.to(new.dtype)
        frame.vars[name] = new

    def _store(self, s: Store, mask: torch.Tensor) -> None:
        ub = UndefinedOps(mask)
        vt, lanes, align = self._access_type(s.ptr.type)
        idx, threads, ptrs, enabled, shape = self._targets(s.ptr, mask, s.mask, ub)
        value = self._widen(self._eval(s.value, ub))[idx]
        flat = value.reshape(-1, max(lanes, 1))
        if enabled is not None:
            flat = flat[enabled]
        self._report_ub(ub, s.span)
        elements = self._elements(idx, shape, enabled)
        self.mem.store(vt, lanes, align, threads, ptrs, flat, self._site(s, "store"), elements)

    def _atomic(self, s: Atomic, frame: _Frame, mask: torch.Tensor) -> None:
        ub = UndefinedOps(mask)
        vt, _, _ = self._access_type(s.ptr.type)
        idx, threads, ptrs, enabled, shape = self._targets(s.ptr, mask, s.mask, ub)
        k = math.prod(shape)

        def operand(e: Expr) -> torch.Tensor:
            v = self._widen(self._eval(e, ub))[idx]
            if k > 1 and v.dim() == 1:
                v = v[:, None].expand(-1, k)
            v = v.reshape(-1)
            return v[enabled] if enabled is not None else v

        value = operand(s.value)
        compare = operand(s.compare) if s.compare is not None else None
        self._report_ub(ub, s.span)
        site = self._site(s, f"atomic.{s.op.value}")
        elements = self._elements(idx, shape, enabled)
        old = self.mem.atomic(s.op, vt, threads, ptrs, value, compare, site, s.scope, elements)
        # A block-scoped atomic synchronises only its own block: another program never acquires its release.
        self.mem.synchronise(ptrs, MemoryOrder.RELAXED if s.scope is MemScope.BLOCK else s.order)
        self.mem.fenced_atomic(threads, ptrs, strong=s.scope is not MemScope.BLOCK)
        if s.dst is not None:
            dst_t = frame.types[s.dst]
            if enabled is not None:
                flat = self._poison(dst_t)[: idx.numel()].reshape(-1).clone()
                flat = self._scatter(flat, enabled, old, dst_t)
                old = flat
            self._assign_rows(frame, s.dst, idx, old.reshape(idx.numel(), *_trailing(dst_t)), mask)
            if not shape and id(s) in self._broadcasts:
                # Triton lowers a scalar atomic whose result is used as one thread's atomic, the result
                # stored to shared memory, a barrier, and every thread's load of it: that barrier orders
                # the program's elements' accesses before the atomic with those after it
                self.mem.phases += mask.to(torch.int32)

    # -- synchronisation and warps ---------------------------------------------------------------------

    def _barrier(self, s: Barrier, mask: torch.Tensor) -> None:
        if self.level is Level.BLOCK:
            # tl.debug_barrier(): the GPU threads of each program executing it synchronise, which orders
            # the accesses of its elements before it with those after it; nothing across programs
            self.mem.phases += mask.to(torch.int32)
            return
        space = self.space
        match s.scope:
            case BarrierScope.BLOCK:
                active = torch.bincount(space.block[mask], minlength=space.num_blocks)
                live = self._live_counts()
                bad = (active > 0) & (active != live)
                if bool(bad.any()):
                    b = int(bad.nonzero()[0])
                    missing = (~self.exited) & ~mask & (space.block == b)
                    t_missing = int(missing.nonzero()[0])
                    n_missing = int(missing.sum())
                    t_here = int((mask & (space.block == b)).nonzero()[0])
                    others = f" and {n_missing - 1} other thread{'s' if n_missing > 2 else ''}" if n_missing > 1 else ""
                    self.log.add(
                        Diagnosis(
                            DiagnosisKind.DIVERGENCE,
                            f"__syncthreads() reached by {int(active[b])} of the {int(live[b])} live threads of "
                            f"block {format_dim3(space.block_coords(b))}: "
                            f"{space.describe(t_here, with_block=False)} waits here but "
                            f"{space.describe(t_missing, with_block=False)}{others} did not reach this barrier",
                            s.span,
                            space.block_coords(b),
                            space.thread_coords(t_missing),
                        ),
                        occurrences=int(bad.sum()),
                    )
                    raise _Abort
                passed = active > 0
                if self.mem.fences is not None:
                    self.mem.fences.barrier(passed)
                self.mem.phases += passed.to(torch.int32)
                self.mem.warp_phases += passed.repeat_interleave(space.warps_per_block).to(torch.int32)
            case BarrierScope.WARP:
                ub = UndefinedOps(mask)
                m = (
                    self._widen(self._concrete(self._eval(s.mask, ub), "barrier mask", s.mask.span, mask))
                    if s.mask is not None
                    else None
                )
                self._report_ub(ub, s.span)
                self._warp_participation(s.span, "__syncwarp", m, mask)
                warps = torch.unique(space.warp[mask])
                self.mem.warp_phases[warps] += 1
            case _:
                assert_never(s.scope)

    def _ballot(self, bits_of: torch.Tensor) -> torch.Tensor:
        """Per warp, the lane bit mask of the threads where ``bits_of`` holds (int64 over warps)."""
        space = self.space
        contrib = torch.where(bits_of, torch.bitwise_left_shift(torch.ones_like(space.lane), space.lane), 0)
        out = torch.zeros(space.num_warps, dtype=torch.int64)
        return out.index_add_(0, space.warp, contrib)

    def _warp_participation(self, span: Span, what: str, m: torch.Tensor | None, mask: torch.Tensor) -> None:
        """Check that each active thread is in the mask and that every live lane of the mask takes part."""
        space = self.space
        full = torch.full((1,), 0xFFFFFFFF, dtype=torch.int64)
        mv = m if m is not None else full.expand(self.n)
        active_bits = self._ballot(mask)[space.warp]
        if self._live_bits is None:
            self._live_bits = self._ballot(~self.exited)[space.warp]
        live_bits = self._live_bits
        own = (torch.bitwise_right_shift(mv, space.lane) & 1) == 1
        not_in_mask = mask & ~own
        if bool(not_in_mask.any()):
            t0 = int(not_in_mask.nonzero()[0])
            block, thread = space.coords(t0)
            self.log.add(
                Diagnosis(
                    DiagnosisKind.DIVERGENCE,
                    f"{what} by {space.describe(t0)} with mask {int(mv[t0]):#010x}, which does not name its own "
                    f"lane {int(space.lane[t0])}",
                    span,
                    block,
                    thread,
                ),
                key="own-lane",
                occurrences=int(not_in_mask.sum()),
            )
        absent = mask & ((mv & live_bits & ~active_bits) != 0)
        if bool(absent.any()):
            t0 = int(absent.nonzero()[0])
            missing_bits = int(mv[t0]) & int(live_bits[t0]) & ~int(active_bits[t0])
            lane = (missing_bits & -missing_bits).bit_length() - 1
            block, thread = space.coords(t0)
            self.log.add(
                Diagnosis(
                    DiagnosisKind.DIVERGENCE,
                    f"{what} by {space.describe(t0)} with mask {int(mv[t0]):#010x}, but lane {lane} of its warp "
                    f"is alive and does not take part",
                    span,
                    block,
                    thread,
                ),
                key="absent",
                occurrences=int(absent.sum()),
            )

    def _shuffle(self, s: Shuffle, frame: _Frame, mask: torch.Tensor) -> None:
        space = self.space
        ub = UndefinedOps(mask)
        m = self._widen(self._concrete(self._eval(s.mask, ub), "shuffle mask", s.mask.span, mask))
        value = self._widen(self._eval(s.value, ub))
        b = self._widen(self._concrete(self._eval(s.lane, ub), "shuffle lane", s.lane.span, mask))
        w = self._widen(self._concrete(self._eval(s.width, ub), "shuffle width", s.width.span, mask))
        bad_width = (w < 1) | (w > WARP_SIZE) | ((w & (w - 1)) != 0)
        self._report_ub(ub, s.span)
        if bool((bad_width & mask).any()):
            t0 = int((bad_width & mask).nonzero()[0])
            block, thread = space.coords(t0)
            self.log.add(
                Diagnosis(
                    DiagnosisKind.UB,
                    f"shuffle width {int(w[t0])} by {space.describe(t0)} is not a power of two in [1, 32]",
                    s.span,
                    block,
                    thread,
                ),
                key="width",
            )
            w = torch.where(bad_width, torch.full_like(w, WARP_SIZE), w)
        self._warp_participation(s.span, f"__shfl_{s.kind.value}_sync", m, mask)
        lane = space.lane
        segmask = (WARP_SIZE - w) & 31  # PTX's segment mask: the lane bits that select the segment
        bval = b & 31
        min_lane = lane & segmask
        match s.kind:
            case ShuffleKind.UP:
                max_lane = min_lane
                j = lane - bval
                valid = j >= max_lane
            case ShuffleKind.DOWN:
                max_lane = min_lane | (31 & ~segmask)
                j = lane + bval
                valid = j <= max_lane
            case ShuffleKind.XOR:
                max_lane = min_lane | (31 & ~segmask)
                j = lane ^ bval
                valid = j <= max_lane
            case ShuffleKind.IDX:
                max_lane = min_lane | (31 & ~segmask)
                j = min_lane | (bval & ~segmask & 31)
                valid = j <= max_lane
            case _:
                assert_never(s.kind)
        j = torch.where(valid, j, lane)
        src = space.tid - lane + j
        exists = j < space.warp_lanes[space.warp]
        src_c = torch.where(exists, src, space.tid)
        src_ok = exists & mask[src_c] & ((torch.bitwise_right_shift(m, j) & 1) == 1)
        bad = mask & ~src_ok & (j != lane)
        result = value[src_c]
        if bool(bad.any()):
            t0 = int(bad.nonzero()[0])
            block, thread = space.coords(t0)
            why = "does not exist" if not bool(exists[t0]) else "is inactive or not in the mask"
            self.log.add(
                Diagnosis(
                    DiagnosisKind.UNINIT,
                    f"__shfl_{s.kind.value}_sync by {space.describe(t0)} reads lane {int(j[t0])} of its warp, "
                    f"which {why} (mask {int(m[t0]):#010x}): the value is undefined",
                    s.span,
                    block,
                    thread,
                ),
                key="shfl",
                occurrences=int(bad.sum()),
            )
            result = self._where(self._bmask(bad, result), self._poison(s.value.type), result, s.value.type)
        self._set(frame, s.dst, result, mask)

    def _vote(self, s: Vote, frame: _Frame, mask: torch.Tensor) -> None:
        space = self.space
        ub = UndefinedOps(mask)
        m = self._widen(self._concrete(self._eval(s.mask, ub), "vote mask", s.mask.span, mask))
        pred = self._widen(self._concrete(self._eval(s.pred, ub), "vote predicate", s.pred.span, mask))
        self._report_ub(ub, s.span)
        self._warp_participation(s.span, f"__{s.kind.value}_sync", m, mask)
        in_mask = (torch.bitwise_right_shift(m, space.lane) & 1) == 1
        # Each lane votes over the lanes of its own mask; lanes with equal masks see the same result.
        yes = self._ballot(mask & in_mask & pred)[space.warp] & m
        part = self._ballot(mask & in_mask)[space.warp] & m
        match s.kind:
            case VoteKind.BALLOT:
                result = yes
            case VoteKind.ANY:
                result = (yes != 0).to(torch.int64)
            case VoteKind.ALL:
                result = (yes == part).to(torch.int64)
            case _:
                assert_never(s.kind)
        self._set(frame, s.dst, result, mask)

    # -- calls -----------------------------------------------------------------------------------------

    def _call(self, s: Call, frame: _Frame, mask: torch.Tensor) -> None:
        callee = self.module.function(s.func)
        if callee is None:
            raise SimulationError(f"call to undefined function {s.func}", s.span)
        if len(self._frames) >= self.limits.max_call_depth:
            raise LimitExceeded(f"calls nest deeper than {self.limits.max_call_depth} (recursion?)", s.span)
        ub = UndefinedOps(mask)
        args = {p.name: self._eval(a, ub) for p, a in zip(callee.params, s.args, strict=True)}
        self._report_ub(ub, s.span)
        inner = self._frame(callee, args)
        self._frames.append(inner)
        self._calls.append((callee.name, s.span))
        outer_where = self.log.where
        self.log.where = (
            " ("
            + ", ".join(f"in device function {n} called at {sp.location()}" for n, sp in reversed(self._calls))
            + ")"
        )
        try:
            self._stmts(callee.body, mask)
        except LarkcError as err:
            err.notes = (*err.notes, f"in {callee.name}, called at {s.span.location()}")
            raise
        finally:
            self._frames.pop()
            self._calls.pop()
            self.log.where = outer_where
        for p, a in zip(callee.params, s.args, strict=True):
            if p.by_ref and isinstance(a, VarRef):
                self._set(frame, a.name, inner.vars[p.name], mask)
        if s.dst is not None and inner.ret is not None:
            self._set(frame, s.dst, inner.ret, mask)

    # -- expressions -----------------------------------------------------------------------------------

    def _eval(self, e: Expr, ub: UndefinedOps) -> torch.Tensor:
        """The value of ``e`` for every thread: ``[T or 1, *per-thread shape]``.

        Operands are evaluated before the expression that uses them, left to right, on an explicit
        stack: a sum of thousands of terms nests deeper than Python's recursion limit.
        """
        if not _evaluated_operands(e):
            return self._apply(e, [], ub)
        values: list[torch.Tensor] = []
        pending: list[tuple[Expr, bool]] = [(e, False)]
        while pending:
            x, ready = pending.pop()
            ops = _evaluated_operands(x)
            if ops and not ready:
                pending.append((x, True))
                pending.extend((o, False) for o in reversed(ops))
                continue
            n = len(ops)
            args = values[len(values) - n :]
            del values[len(values) - n :]
            values.append(self._apply(x, args, ub))
        return values[0]

    def _apply(self, e: Expr, args: list[torch.Tensor], ub: UndefinedOps) -> torch.Tensor:
        """The value of ``e`` given the values of its :func:`_evaluated_operands` (``args``, in order)."""
        match e:
            case Const():
                c = self._consts.get(id(e))
                if c is None:
                    c = self._const(e)
                    self._consts[id(e)] = c
                return c
            case VarRef():
                try:
                    return self._frames[-1].vars[e.name]
                except KeyError:
                    raise SimulationError(f"use of undeclared variable {e.name}", e.span) from None
            case Builtin():
                return self._builtins[(e.reg, e.dim.index)]
            case Unary():
                return self._unary(e, args[0])
            case Binary():
                a, b = args
                ub.span = e.span
                return self._binary(e, a, b, ub)
            case Select():
                c, x, y = args
                return self._select(e, c, x, y)
            case Cast():
                return self._cast(e, args[0], ub)
            case MathCall():
                ub.span = e.span
                return self._math(e, args, ub)
            case PtrAdd():
                return self._ptradd(e, args[0], args[1])
            case Extract():
                v = args[0]
                if isinstance(e.index, Const):
                    return v[:, int(e.index.value)]
                i = self._lane(e.index, v.shape[1], ub, e.span).reshape(-1, 1)
                rows = max(v.shape[0], i.shape[0])
                return v.expand(rows, -1).gather(1, i.expand(rows, 1))[:, 0]
            case Insert():
                v, x = args
                lanes = v.shape[1]
                if isinstance(e.index, Const):
                    sel = torch.arange(lanes) == int(e.index.value)
                    return self._where(sel[None, :], x.reshape(-1, 1), v, e.type)
                i = self._lane(e.index, lanes, ub, e.span)
                sel = torch.arange(lanes)[None, :] == i.reshape(-1, 1)
                return self._where(sel, x.reshape(-1, 1), v, e.type)
            case MakeVector():
                return self._stack(e, args)
            case Arange():
                return torch.arange(e.start, e.end, dtype=torch.int64)[None, :]
            case Splat():
                v = args[0]
                k = len(e.type.shape)
                return v.reshape(v.shape[0], *([1] * k)).expand(v.shape[0], *e.type.shape)
            case Broadcast():
                v = args[0]
                return v.expand(v.shape[0], *e.type.shape)
            case Reshape():
                v = args[0]
                return v.reshape(v.shape[0], *e.type.shape)
            case Permute():
                return args[0].permute(0, *(p + 1 for p in e.perm))
            case Reduce():
                return self._reduce(e, args[0])
            case Scan():
                return self._scan(e, args[0], ub)
            case Combine():
                return self._combine(e, args, ub)
            case Dot():
                return self._dot(e, ub)
            case _:
                assert_never(e)

    # -- expression rules (what a second value domain overrides) ------------------------------------------

    def _const(self, e: Const) -> torch.Tensor:
        return scalar_tensor(e.value, e.type)

    def _unary(self, e: Unary, v: torch.Tensor) -> torch.Tensor:
        return apply_unary(e.op, v, _elem(e.type))

    def _binary(self, e: Binary, a: torch.Tensor, b: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        t = I64 if _is_pointer(e.lhs.type) else _elem(e.lhs.type)
        return apply_binary(e.op, a, b, t, ub)

    def _select(self, e: Select, c: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if c.dim() < x.dim():
            c = c.view(c.shape[0], *([1] * (x.dim() - 1)))
        return torch.where(c, x, y)

    def _math(self, e: MathCall, args: list[torch.Tensor], ub: UndefinedOps) -> torch.Tensor:
        return apply_math(e.fn, args, _elem(e.args[0].type), ub)

    def _ptradd(self, e: PtrAdd, base: torch.Tensor, off: torch.Tensor) -> torch.Tensor:
        return base + off * size_of(_pointer_of(e.base.type).pointee)

    def _stack(self, e: MakeVector, parts: list[torch.Tensor]) -> torch.Tensor:
        """The lanes of a vector value (``vector<T>(...)``) stacked along a last dimension."""
        return torch.stack(broadcast(*parts), dim=-1)

    def _lane(self, index: Expr, lanes: int, ub: UndefinedOps, span: Span) -> torch.Tensor:
        i = self._concrete(self._eval(index, ub), "vector lane index", index.span, None)
        ub.span = span
        ub.check(UndefinedReason.LANE_RANGE, (i < 0) | (i >= lanes))
        return i % lanes

    def _cast(self, e: Cast, v: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        src, dst = e.operand.type, e.type
        ub.span = e.span
        match e.kind:
            case CastKind.CONVERT:
                return convert_value(v, _elem(src), _elem(dst), ub)
            case CastKind.BITCAST:
                if _is_pointer(src) or _is_pointer(dst):
                    return v  # pointers are int64 addresses; only the static type changes
                if isinstance(src, BlockType) or isinstance(dst, BlockType):
                    s_el, d_el = _elem(src), _elem(dst)
                    return from_mem(dense(to_mem(v, s_el)).view(mem_dtype(d_el)), d_el)
                s_lanes = src.lanes if isinstance(src, VectorType) else 0
                d_lanes = dst.lanes if isinstance(dst, VectorType) else 0
                return bitcast_value(v, _elem(src), s_lanes, _elem(dst), d_lanes)
            case _:
                assert_never(e.kind)

    def _reduce(self, e: Reduce, v: torch.Tensor) -> torch.Tensor:
        t = _elem(e.operand.type)
        dim = e.axis + 1
        match e.op:
            case ReduceOp.SUM:
                return wrap(v.sum(dim=dim), t) if t.is_int else v.sum(dim=dim, dtype=v.dtype)
            case ReduceOp.PROD:
                return wrap(v.prod(dim=dim), t) if t.is_int else v.prod(dim=dim, dtype=v.dtype)
            case ReduceOp.MAX:
                return v.amax(dim=dim)
            case ReduceOp.MIN:
                return v.amin(dim=dim)
            case _:
                assert_never(e.op)

    def _scan(self, e: Scan, v: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        """``e``'s running combination, one binary operation per step (:func:`scan_values`), through this
        value domain's binary rule."""
        elem = _elem(e.type)
        op = Binary(SCAN_STEP[e.op], VarRef("acc", elem), VarRef("x", elem), elem, e.span)

        def step(acc: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            ub.span = e.span
            return self._binary(op, acc, x, ub)

        return scan_values(v, e.axis + 1, e.reverse, step)

    def _combine(self, e: Combine, args: list[torch.Tensor], ub: UndefinedOps) -> torch.Tensor:
        """Component ``e.result`` of the fold of ``args`` with the combine function (:func:`combine_values`),
        its body evaluated by this value domain on whole slices in a frame of its own."""
        f = self.module.function(e.func)
        if f is None:
            raise SimulationError(f"combine with undefined function {e.func}", e.span)
        frame = _Frame(f, {}, {}, None)

        def evaluate(x: Expr, env: dict[str, torch.Tensor]) -> torch.Tensor:
            frame.vars = env
            return self._eval(x, ub)

        self._frames.append(frame)
        try:
            return combine_values(e, f, args, lambda acc, xs: combine_step(f, acc, xs, evaluate))
        finally:
            self._frames.pop()

    def _dot(self, e: Dot, ub: UndefinedOps) -> torch.Tensor:
        a = self._eval(e.lhs, ub)
        b = self._eval(e.rhs, ub)
        out_t = e.type.elem
        assert isinstance(out_t, ScalarType)
        src_t = _elem(e.lhs.type)
        a = convert_value(a, src_t, out_t)
        b = convert_value(b, src_t, out_t)
        if out_t.is_int:
            prod = wrap((a[..., :, :, None] * b[..., None, :, :]).sum(dim=-2), out_t)
        else:
            prod = torch.matmul(a, b)
        if e.acc is not None:
            acc = self._eval(e.acc, ub)
            return apply_binary(BinaryOp.ADD, prod, acc, out_t)
        return prod


#: The binary operator one step of a :class:`Scan` applies.
SCAN_STEP = {
    ReduceOp.SUM: BinaryOp.ADD,
    ReduceOp.PROD: BinaryOp.MUL,
    ReduceOp.MAX: BinaryOp.MAX,
    ReduceOp.MIN: BinaryOp.MIN,
}


def scan_values(
    v: torch.Tensor, dim: int, reverse: bool, step: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
) -> torch.Tensor:
    """The inclusive scan of ``v`` along ``dim``: ``acc = v[0]``, then ``acc = step(acc, v[k])`` for each
    next ``k``, left to right (from the right with ``reverse``), each ``acc`` kept. The order of Triton's
    interpreter, one step at a time, so that any value domain (concrete or symbolic) can supply ``step``."""
    length = v.shape[dim]
    outs: list[torch.Tensor] = [v.select(dim, 0)] * length
    acc: torch.Tensor | None = None
    for k in reversed(range(length)) if reverse else range(length):
        x = v.select(dim, k)
        acc = x if acc is None else step(acc, x)
        outs[k] = acc
    return torch.stack(broadcast(*outs), dim=dim)


CombineStep = Callable[[list[torch.Tensor], list[torch.Tensor]], list[torch.Tensor]]


def combine_values(e: Combine, f: Function, args: Sequence[torch.Tensor], step: CombineStep) -> torch.Tensor:
    """The value of ``e`` given the values of its operands ``args`` (``[rows, *block shape]``) and the
    combine function ``f`` applied by ``step(acc, xs)`` to whole slices: the left fold ``acc = x[0]``,
    ``acc = combine(acc, x[k])`` along the axis (from the last element with ``reverse``); component
    ``e.result`` of the final ``acc`` (a reduction) or of every ``acc`` (a scan)."""
    dim = e.axis + 1
    values = broadcast(*args)
    length = values[0].shape[dim]
    outs: list[torch.Tensor] = [values[e.result].select(dim, 0)] * length
    acc: list[torch.Tensor] | None = None
    for k in reversed(range(length)) if e.reverse else range(length):
        xs = [v.select(dim, k) for v in values]
        acc = xs if acc is None else step(acc, xs)
        outs[k] = acc[e.result]
    assert acc is not None  # blocks are never empty
    match e.kind:
        case CombineKind.REDUCE:
            return acc[e.result]
        case CombineKind.SCAN:
            return torch.stack(broadcast(*outs), dim=dim)
        case _:
            assert_never(e.kind)


def combine_step(
    f: Function,
    acc: list[torch.Tensor],
    xs: list[torch.Tensor],
    evaluate: Callable[[Expr, dict[str, torch.Tensor]], torch.Tensor],
) -> list[torch.Tensor]:
    """``f(acc, xs)`` for a combine function ``f`` (straight-line, checked by the verifier): its body run
    over the environment of its parameters, each expression computed by ``evaluate(expr, env)`` on whole
    slices (every element of a slice is one application); the new ``acc`` is what ``f`` leaves in its
    first parameters."""
    n = len(acc)
    env = {p.name: v for p, v in zip(f.params, [*acc, *xs], strict=True)}
    for st in f.body:
        match st:
            case Decl():
                if st.init is not None:
                    env[st.name] = evaluate(st.init, env)
                else:
                    env[st.name] = poison(_elem(st.type), tuple(acc[0].shape))
            case Assign():
                env[st.name] = evaluate(st.value, env)
            case _:
                raise SimulationError(f"combine function {f.name} is not straight-line code", st.span)
    results = [env[p.name] for p in f.params[:n]]
    return broadcast(*results, *acc, *xs)[:n]  # a constant result has no thread or block dimensions


def _evaluated_operands(e: Expr) -> tuple[Expr, ...]:
    """The operands :meth:`Interpreter._eval` evaluates before ``e``, in order: all of them, except a
    lane index (evaluated, and range-checked, by ``_lane`` after the vector and the inserted value) and
    a dot's (evaluated by ``_dot``, which a second value domain overrides)."""
    match e:
        case Dot():
            return ()
        case Extract():
            return (e.vector,)
        case Insert():
            return (e.vector, e.value)
        case _:
            return operands(e)


# --------------------------------------------------------------------------------------------------
# The entry point


def spins(module: Module) -> bool:
    """Whether a ``while`` (or ``do``-``while``) loop of the module executes an atomic: a spin-wait on a
    lock or flag, e.g. ``while tl.atomic_cas(lock, 0, 1) == 1``. Then the programs of a block-level
    kernel run one at a time with happens-before between them (see the module docstring). A ``for``
    loop (Triton's ``range``: a bounded count) with atomics, e.g. split-K's ``tl.atomic_add`` per
    tile, cannot wait for another program and keeps the lock-step schedule."""
    for f in module.functions:
        for s in walk_stmts(f.body):
            if isinstance(s, While | DoWhile) and any(isinstance(x, Atomic) for x in walk_stmts(s.body)):
                return True
    return False


def branches_on_atomics(module: Module) -> bool:
    """Whether a branch or loop condition of the module reads what an atomic returned, directly or through
    assignments: a ticket, ``if tl.atomic_add(count, 1) == nprog - 1`` ("the last program finishes").
    Then, as for :func:`spins`, the programs of a block-level kernel run one at a time with happens-before
    between them: in lock-step no program's accesses would be ordered before another's, and the last
    program's loads of the partials the others published through an acq_rel ticket would be a race."""
    for f in module.functions:
        body = walk_stmts(f.body)
        tainted = {s.dst for s in walk_stmts(f.body) if isinstance(s, Atomic) and s.dst is not None}
        if not tainted:
            continue
        grew = True
        while grew:  # names assigned from a tainted name, to a fixpoint
            grew = False
            for s in walk_stmts(f.body):
                match s:
                    case Decl(name, _, init) if init is not None and name not in tainted and _reads(init, tainted):
                        tainted.add(name)
                        grew = True
                    case Assign(name, value) if name not in tainted and _reads(value, tainted):
                        tainted.add(name)
                        grew = True
                    case _:
                        pass
        for s in body:
            match s:
                case If(cond) | While(cond) | DoWhile(_, cond) if _reads(cond, tainted):
                    return True
                case _:
                    pass
    return False


def broadcast_atomics(module: Module) -> frozenset[int]:
    """The ``id`` of every atomic whose result a branch condition, a store or another atomic reads,
    directly or through assignments and loads (a use Triton's dead-code elimination keeps; a load alone
    is not one). Triton broadcasts the result of such an atomic on a scalar to the program's threads
    through shared memory behind a barrier (:meth:`Interpreter._atomic`)."""
    out: set[int] = set()
    for f in module.functions:
        for a in walk_stmts(f.body):
            if not isinstance(a, Atomic) or a.dst is None:
                continue
            tainted = {a.dst}
            grew = True
            while grew:
                grew = False
                for s in walk_stmts(f.body):
                    match s:
                        case Decl(name, _, init) if init is not None and name not in tainted and _reads(init, tainted):
                            tainted.add(name)
                            grew = True
                        case Assign(name, value) if name not in tainted and _reads(value, tainted):
                            tainted.add(name)
                            grew = True
                        case Load(name, ptr, m, other) if name not in tainted and any(
                            e is not None and _reads(e, tainted) for e in (ptr, m, other)
                        ):
                            tainted.add(name)
                            grew = True
                        case _:
                            pass
            for s in walk_stmts(f.body):
                match s:
                    case If(cond) | While(cond) | DoWhile(_, cond) if _reads(cond, tainted):
                        out.add(id(a))
                    case Store() | Atomic() if any(_reads(e, tainted) for e in stmt_exprs(s)):
                        out.add(id(a))
                    case _:
                        pass
    return frozenset(out)


def _reads(e: Expr, names: Collection[str]) -> bool:
    return any(isinstance(x, VarRef) and x.name in names for x in sub_exprs(e))


def _bodies(module: Module) -> tuple[Stmt, ...]:
    """The statements of every function of ``module``, one sequence."""
    return tuple(s for f in module.functions for s in f.body)


def casts_away_const(module: Module) -> bool:
    """Whether some function makes a writable pointer out of a ``const`` pointer or an integer."""
    for f in module.functions:
        for e in (x for st in walk_stmts(f.body) for x in stmt_exprs(st)):
            if isinstance(e, Cast) and e.kind is CastKind.BITCAST and _is_pointer(e.type):
                dst = _pointer_of(e.type)
                if dst.const:
                    continue
                if not _is_pointer(e.operand.type) or _pointer_of(e.operand.type).const:
                    return True
    return False


def param_register(param_name: str, t: Type, value: KernelArg, pointers: Mapping[str, int]) -> torch.Tensor:
    """The register value of a kernel parameter of type ``t`` bound to ``value``."""
    if isinstance(value, GlobalBuffer):
        if not isinstance(t, PointerType):
            raise SimulationError(f"kernel parameter {param_name} has type {t} but is bound to buffer {value.name}")
        return torch.tensor([pointers[value.name]], dtype=torch.int64)
    if not isinstance(t, ScalarType):
        raise SimulationError(f"kernel parameter {param_name} of type {t} needs a buffer, got {value!r}")
    if t.is_float:
        return convert_value(torch.tensor([float(value)], dtype=torch.float64), F64, t)
    if t.is_bool:
        return torch.tensor([bool(value)])
    if isinstance(value, float) and not value.is_integer():
        raise SimulationError(f"kernel parameter {param_name} of type {t} cannot take the value {value}")
    return wrap(torch.tensor([int(value)], dtype=torch.int64), t) if t.bits < 64 else scalar_tensor(int(value), t)


def kernel_of(module: Module, kernel: str) -> Function:
    """The kernel function named ``kernel``; a :class:`SimulationError` names the kernels otherwise."""
    f = module.function(kernel)
    if f is None:
        names = ", ".join(k.name for k in module.kernels) or "none"
        raise SimulationError(f"no kernel {kernel} in the module (kernels: {names})")
    if f.kind is not FunctionKind.KERNEL:
        raise SimulationError(f"{kernel} is a device function, not a kernel")
    return f


def bind_arguments(
    interp: Interpreter, f: Function, args: Mapping[str, KernelArg]
) -> tuple[dict[str, Region], dict[str, torch.dtype], dict[str, torch.Tensor]]:
    """Create a region per distinct buffer of ``args`` and the register value of every parameter.

    Returns ``(regions by buffer name, torch dtype by buffer name, parameter values)``.
    """
    missing = [p.name for p in f.params if p.name not in args]
    if missing:
        raise SimulationError(f"no argument for kernel parameter(s) {', '.join(missing)}", f.span)
    # Read-only buffers: bound only to const pointers, in a module that never casts const away.
    const_safe = not casts_away_const(interp.module)
    writers: dict[str, bool] = {}
    for p in f.params:
        v = args[p.name]
        if isinstance(v, GlobalBuffer):
            writable = not (isinstance(p.type, PointerType) and p.type.const and const_safe)
            writers[v.name] = writers.get(v.name, False) or writable
    regions: dict[str, Region] = {}
    dtypes: dict[str, torch.dtype] = {}
    pointers: dict[str, int] = {}
    for p in f.params:
        v = args[p.name]
        if isinstance(v, GlobalBuffer) and v.name not in regions:
            region = interp.mem.add_global(
                v.name, v.data, v.dtype, initialised=v.initialised, read_only=not writers[v.name]
            )
            regions[v.name] = region
            dtypes[v.name] = v.data.dtype
            pointers[v.name] = encode_pointer(region.id, 0)
    values = {p.name: interp.param_value(p.name, p.type, args[p.name], pointers) for p in f.params}
    return regions, dtypes, values


def simulate(
    module: Module,
    kernel: str,
    launch: LaunchConfig,
    args: Mapping[str, KernelArg],
    *,
    limits: SimLimits | None = None,
    same_value_races: bool = False,
    record_writers: Collection[str] = (),
) -> SimResult:
    """Run ``kernel`` of ``module`` on ``launch`` with ``args`` (parameter name to buffer or scalar).

    ``same_value_races``: report write-write races whose writes store the same bits as ``race (same
    value)`` (a warning to ``larkc run``) rather than ``race``. ``record_writers`` names the buffers (a
    run's outputs) whose elements' last writers ``SimResult.writers`` records.

    Buffers are copied: the tensors given in ``args`` are not modified; the result holds the final
    contents. A launch that cannot run (bad dimensions, a missing argument) raises
    :class:`~larkc.errors.SimulationError`; what the kernel does wrong is in ``diagnoses``.
    """
    limits = limits or SimLimits()
    f = kernel_of(module, kernel)
    start = time.perf_counter()
    interp = Interpreter(module, f, launch, limits)
    interp.mem.same_value = same_value_races
    interp.check_locals = True
    regions, dtypes, values = bind_arguments(interp, f, args)
    for name in record_writers:
        if name in regions:
            interp.mem.track_writers(regions[name])
    try:
        interp.run(values)
    except StepLimitExceeded as e:
        e.diagnoses = interp.diagnoses()
        raise
    buffers = {name: interp.mem.tensor_of(r, dtypes[name]) for name, r in regions.items()}
    written: dict[str, torch.Tensor] = {}
    for name, r in regions.items():
        w = interp.mem.written_mask(r)
        if w is not None:
            written[name] = w
    return SimResult(
        diagnoses=interp.diagnoses(),
        buffers=buffers,
        written=written,
        launch=launch,
        threads=interp.n,
        seconds=time.perf_counter() - start,
        statements=interp.statements,
        aborted=interp.aborted,
        writers={
            name: WriteLog(r.writers[0], r.writers[1], tuple(interp.sites), interp.space)
            for name, r in regions.items()
            if r.writers is not None
        },
    )


def precondition_violated(s: Assume, who: str) -> PreconditionError:
    """The error for inputs under which the precondition ``s`` is false (in ``who``, a thread or program)."""
    return PreconditionError(
        f"the task's inputs violate this precondition of the kernel (false in {who}): they are outside the "
        "kernel's contract, so there is nothing to verify or run",
        s.span,
    )
