"""Memory of a simulated launch: buffers, pointers, and the checks made on every access.

**Regions and pointers.** Every buffer is a :class:`Region`: a kernel buffer (one copy), a static
``__shared__`` array or the dynamic shared memory (one copy per block), or a local array (one copy per
thread). A region's bytes live in a ``uint8`` tensor, so any access type can be laid over them (a
``float4`` load of a ``float`` buffer, a ``half2`` load of a ``half`` buffer, an ``atomicMax`` on the
``int`` view of a float). A pointer value is one int64, ``region_id * 2**44 + byte_offset``: region
bases are thus 2^44-aligned (alignment tests on ``(uintptr_t)p`` behave as on a GPU, whose allocations
are 256-byte aligned), pointer arithmetic and comparison are integer arithmetic, and region 0 is the
null pointer. A shared or local pointer designates the copy of the thread that dereferences it, as
in CUDA.

**Checks on each access** (all vectorised over the threads that execute the statement):

* ``oob``: the pointer's region does not exist, the access is not entirely within the region's bytes
  (for dynamic shared memory: the launch's ``shared_bytes``), or it is not aligned for its type.
* ``uninit``: a read (or atomic) of bytes of a shared, local or ``empty`` buffer never written before.
* ``race``: two accesses to one location by different threads, at least one a plain write or one an
  atomic and the other plain, that no synchronisation orders. Within a block, a barrier orders the
  accesses before it with those after it (and ``__syncwarp`` the lanes of a warp); between blocks
  nothing does. The shadow state per location summarises the accesses of each kind (read, write,
  atomic) since the last synchronisation by their least and greatest thread number (threads of a block
  and lanes of a warp are consecutive numbers, so this says whether another thread, another warp or
  another block is involved) with the barrier phase, plus the same summary over the whole launch for
  conflicts between blocks. Atomics do not conflict with atomics, except that a block-scoped atomic
  (``atomicAdd_block``, Triton's ``scope="cta"``) is atomic only towards the threads of its own block: with
  an atomic of another block to the same location it conflicts as a plain access would.
* Between the *elements* (lanes) of one program of a block-level (Triton) kernel: the compiler spreads
  a block's elements over the program's GPU threads, so two different elements may be two threads.
  Each access of a block-level kernel carries its element's identity (:meth:`Memory.element_ids`: the
  block's shape and the flat index in it); two accesses of one program to one location conflict (as
  above: a plain write and anything, an atomic and a plain access) when their elements differ and no
  ``tl.debug_barrier()`` of the program lies between them (the program's barrier phase, advanced by the
  interpreter). One element of one shape is taken to be one thread from statement to statement.
* Between the programs of a block-level kernel run one at a time (:class:`ProgramClocks`, a kernel with
  a spin lock), accesses are ordered by happens-before instead: each program has a vector clock; an
  atomic with release order stores the program's clock with the location (joined with what earlier
  releases stored there: a read-modify-write continues a release sequence), and then advances the
  program's own clock; one with acquire order joins what is stored with the location into the program's
  clock; a plain store to the location ends the release sequence (forgets what is stored). Each
  granule keeps, per access kind, the clock of each program's latest access; an access conflicts with
  another program's access unless that access's clock is within the accessing program's clock.

Shadow state is kept per *granule*: the element size of the region's type, refined to smaller
granules on the first access of a smaller type (so two threads writing the two halves of a ``half2``
do not conflict). Regions the interpreter proves read-only (bound only to ``const`` pointers in a
kernel that never casts ``const`` away) skip the read records entirely: reads never conflict.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import assert_never

import torch

from larkc.errors import SimulationError, Span
from larkc.ir.nodes import AtomicOp, BinaryOp, MemoryOrder, MemScope
from larkc.ir.types import ScalarType
from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind, DiagnosisLog
from larkc.semantics.geometry import ThreadSpace
from larkc.semantics.numerics import apply_binary, dense, from_mem, mem_dtype, to_mem

__all__ = [
    "NULL",
    "REGION_SHIFT",
    "AccessKind",
    "FenceClocks",
    "Memory",
    "ProgramClocks",
    "Region",
    "RegionKind",
    "Site",
    "decode_pointer",
    "encode_pointer",
]

REGION_SHIFT = 44  # a region spans 2^44 bytes of the simulated address space (offsets are signed, 43 bits)
_OFFSET_BIAS = 1 << (REGION_SHIFT - 1)
NULL = 0  # the null pointer: region 0, offset 0
_PAD = 16  # region copies are padded to a multiple of 16 bytes, so every scalar view of them is legal
_EMPTY_BYTE = 0xFF  # what an "empty" buffer holds: NaN for every float type, -1 for integers

_INT_MAX = 2**31 - 1
#: the most clock entries (locations x programs) one access kind of one buffer may keep (256 MiB)
_MAX_CLOCK_CELLS = 1 << 26
#: an element identity of a block-level access is ``shape number << _ELEMENT_BITS | flat index``
#: (Triton's blocks hold at most 2^20 elements)
_ELEMENT_BITS = 21


def encode_pointer(region: int, offset: int) -> int:
    return (region << REGION_SHIFT) + offset


def decode_pointer(p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(region id, byte offset)`` of encoded pointers."""
    region = torch.bitwise_right_shift(p + _OFFSET_BIAS, REGION_SHIFT)
    return region, p - torch.bitwise_left_shift(region, REGION_SHIFT)


class RegionKind(enum.Enum):
    """Where a region lives and how many copies of it a launch has."""

    GLOBAL = "global"  # a kernel buffer: one copy shared by every block
    SHARED = "shared"  # a static __shared__ array: one copy per block
    DYNAMIC_SHARED = "dynamic shared"  # extern __shared__ memory of shared_bytes: one copy per block
    LOCAL = "local"  # a local array: one copy per thread


class AccessKind(enum.Enum):
    """The kinds of access the race check distinguishes."""

    READ = "read"  # a plain load
    WRITE = "write"  # a plain store
    ATOMIC = "atomic"  # an atomic read-modify-write of device (or system) scope
    BLOCK_ATOMIC = "block-scoped atomic"  # an atomic read-modify-write atomic only towards its own block


#: Which earlier access kinds an access of each kind conflicts with.
_CONFLICTS = {
    AccessKind.READ: (AccessKind.WRITE, AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC),
    AccessKind.WRITE: (AccessKind.READ, AccessKind.WRITE, AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC),
    AccessKind.ATOMIC: (AccessKind.READ, AccessKind.WRITE, AccessKind.BLOCK_ATOMIC),
    AccessKind.BLOCK_ATOMIC: (AccessKind.READ, AccessKind.WRITE, AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC),
}

#: Pairs of kinds that conflict only between blocks: two atomics are atomic towards each other when each
#: one's scope includes the other's thread (PTX's "morally strong"); a block scope includes its block only.
_ACROSS_ONLY = {
    (AccessKind.ATOMIC, AccessKind.BLOCK_ATOMIC),
    (AccessKind.BLOCK_ATOMIC, AccessKind.ATOMIC),
    (AccessKind.BLOCK_ATOMIC, AccessKind.BLOCK_ATOMIC),
}


@dataclass(frozen=True, slots=True)
class Site:
    """A memory statement of the kernel, for diagnoses: its span, what it does (``load``...) and, in a
    device function, the calls that led there (`` (in device function f called at kernel.cu:12:5)``)."""

    span: Span
    what: str
    where: str = ""


@dataclass(eq=False, slots=True)
class _Shadow:
    """Summary of the accesses of one kind to each granule (see the module docstring).

    ``lo``/``hi``: least and greatest thread number since the window opened (``lo = INT_MAX``,
    ``hi = -1`` when empty); ``phase``/``wphase``: barrier phase of the block and of the warp then;
    ``stmt``: site of the latest access; ``xlo``/``xhi``/``xstmt``: the same over the whole launch.
    """

    lo: torch.Tensor
    hi: torch.Tensor
    phase: torch.Tensor
    wphase: torch.Tensor
    stmt: torch.Tensor
    xlo: torch.Tensor
    xhi: torch.Tensor
    xstmt: torch.Tensor

    @staticmethod
    def empty(n: int) -> _Shadow:
        def full(v: int) -> torch.Tensor:
            return torch.full((n,), v, dtype=torch.int32)

        return _Shadow(full(_INT_MAX), full(-1), full(0), full(0), full(0), full(_INT_MAX), full(-1), full(0))

    def refined(self, factor: int) -> _Shadow:
        return _Shadow(*(t.repeat_interleave(factor) for t in self._fields()))

    def _fields(self) -> Iterator[torch.Tensor]:
        yield from (self.lo, self.hi, self.phase, self.wphase, self.stmt, self.xlo, self.xhi, self.xstmt)


@dataclass(eq=False, slots=True)
class _ElementShadow:
    """The accesses of one kind to each granule by the elements of one program (block-level kernels).

    ``program``: the program that made them (-1: none); ``phase``: its barrier phase then; ``lo``/``hi``:
    the least and greatest element identity (:meth:`Memory.element_ids`) among them; ``stmt``: the site
    of the latest one.
    """

    program: torch.Tensor
    phase: torch.Tensor
    lo: torch.Tensor
    hi: torch.Tensor
    stmt: torch.Tensor

    @staticmethod
    def empty(n: int) -> _ElementShadow:
        def full(v: int, dtype: torch.dtype = torch.int32) -> torch.Tensor:
            return torch.full((n,), v, dtype=dtype)

        return _ElementShadow(full(-1), full(0), full(_I64_MAX, torch.int64), full(-1, torch.int64), full(0))

    def refined(self, factor: int) -> _ElementShadow:
        return _ElementShadow(
            *(t.repeat_interleave(factor) for t in (self.program, self.phase, self.lo, self.hi, self.stmt))
        )


@dataclass(eq=False)
class Region:
    """A buffer of the launch. ``nbytes`` is the size of one copy; ``stride`` its padded size."""

    id: int
    name: str
    kind: RegionKind
    elem: ScalarType  # the element type used to print indices (a tensor's dtype, an array's scalar)
    elem_size: int  # bytes per printed index (an array of float2 counts in 8-byte elements)
    nbytes: int
    copies: int
    shape: tuple[int, ...] = ()  # the tensor shape of a kernel buffer, to print multi-dimensional indices
    track_init: bool = False
    track_races: bool = True
    read_only: bool = False
    stride: int = 0
    data: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.uint8))
    granule: int = 1
    init: torch.Tensor | None = None
    shadows: dict[AccessKind, _Shadow] = field(default_factory=dict)
    scratch: torch.Tensor | None = None
    #: per element (of ``elem_size`` bytes), the site and thread of the last store or atomic to it (-1:
    #: none); kept only for the buffers :meth:`Memory.track_writers` names (a run's outputs)
    writers: tuple[torch.Tensor, torch.Tensor] | None = None
    #: per access kind, ``[granules, programs]``: the clock of each program's latest access (0: none);
    #: kept only when the launch has :class:`ProgramClocks`
    clocks: dict[AccessKind, torch.Tensor] = field(default_factory=dict)
    #: per access kind, ``[granules, blocks]`` each: the stamp of each block's latest access (0: none), the
    #: block's barrier interval then (its starting stamp), and the one thread of the block that made the
    #: interval's accesses (-1: several); kept only when the launch has :class:`FenceClocks`
    stamps: dict[AccessKind, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    #: per access kind, the accesses of the elements of one program since its last barrier (block-level
    #: kernels only)
    elements: dict[AccessKind, _ElementShadow] = field(default_factory=dict)
    #: per granule, ``program << 32 | element`` of a write of the running statement (block-level kernels)
    element_scratch: torch.Tensor | None = None
    #: per byte of ``data``, read through the non-coherent read-only cache (``__ldg``) during the launch,
    #: and written (or updated atomically) during the launch; kept only when the kernel has such loads
    nc_read: torch.Tensor | None = None
    launch_written: torch.Tensor | None = None

    @property
    def space_name(self) -> str:
        return {
            RegionKind.GLOBAL: "global",
            RegionKind.SHARED: "shared",
            RegionKind.DYNAMIC_SHARED: "shared",
            RegionKind.LOCAL: "local",
        }[self.kind]

    @property
    def num_granules(self) -> int:
        return self.copies * self.stride // self.granule

    def shadow(self, kind: AccessKind) -> _Shadow:
        s = self.shadows.get(kind)
        if s is None:
            s = _Shadow.empty(self.num_granules)
            self.shadows[kind] = s
        return s

    def refine(self, size: int) -> None:
        """Make the granule divide ``size`` (an access of ``size``-byte elements)."""
        g = math.gcd(self.granule, size)
        if g == self.granule:
            return
        factor = self.granule // g
        self.granule = g
        if self.init is not None:
            self.init = self.init.repeat_interleave(factor)
        for k, s in list(self.shadows.items()):
            self.shadows[k] = s.refined(factor)
        for k, c in list(self.clocks.items()):
            self.clocks[k] = c.repeat_interleave(factor, dim=0)
        for k, st in list(self.stamps.items()):
            a, b, c = (x.repeat_interleave(factor, dim=0) for x in st)
            self.stamps[k] = (a, b, c)
        for k, e in list(self.elements.items()):
            self.elements[k] = e.refined(factor)
        self.scratch = None
        self.element_scratch = None

    def index_text(self, byte_offset: int) -> str:
        """``name[i]`` (or ``name[i, j]`` for a multi-dimensional buffer) of the element at ``byte_offset``."""
        i = byte_offset // self.elem_size
        exact = byte_offset % self.elem_size == 0
        if len(self.shape) > 1 and 0 <= i < math.prod(self.shape) and exact:
            idx = []
            rest = i
            for d in reversed(self.shape):
                idx.append(rest % d)
                rest //= d
            return f"{self.name}[{', '.join(str(x) for x in reversed(idx))}]"
        if not exact:
            return f"{self.name}[{i}] (byte {byte_offset % self.elem_size} of it)"
        return f"{self.name}[{i}]"

    def describe_size(self) -> str:
        n = self.nbytes // self.elem_size
        return f"{n} element{'s' if n != 1 else ''} of {self.elem}"


@dataclass(eq=False, slots=True)
class ProgramClocks:
    """Happens-before between the programs of a block-level launch run one program at a time.

    ``vc[p]`` is program ``p``'s vector clock (``vc[p, p]`` its own time, starting at 1);
    ``released`` maps a location (region id, byte address) to the clock its release sequence carries;
    ``program`` is the program running now.
    """

    vc: torch.Tensor
    program: int = 0
    released: dict[tuple[int, int], torch.Tensor] = field(default_factory=dict)

    @staticmethod
    def start(programs: int) -> ProgramClocks:
        if programs * programs > _MAX_CLOCK_CELLS:
            raise SimulationError(
                f"happens-before between {programs} programs needs {programs * programs} clocks, more than "
                f"the limit of {_MAX_CLOCK_CELLS}: simulate a smaller instance"
            )
        return ProgramClocks(torch.eye(programs, dtype=torch.int32))

    def synchronise(self, region: Region, bases: torch.Tensor, order: MemoryOrder) -> None:
        """The effect of atomics of the running program with ``order`` at byte addresses ``bases``."""
        match order:
            case MemoryOrder.RELAXED:
                return
            case MemoryOrder.ACQUIRE | MemoryOrder.RELEASE | MemoryOrder.ACQ_REL:
                pass
            case _:
                assert_never(order)
        p = self.program
        acquire = order in (MemoryOrder.ACQUIRE, MemoryOrder.ACQ_REL)
        release = order in (MemoryOrder.RELEASE, MemoryOrder.ACQ_REL)
        for b in bases.tolist():
            key = (region.id, int(b))
            stored = self.released.get(key)
            if acquire and stored is not None:
                self.vc[p] = torch.maximum(self.vc[p], stored)
            if release:
                self.released[key] = self.vc[p].clone() if stored is None else torch.maximum(stored, self.vc[p])
        if release:
            self.vc[p, p] += 1

    def overwritten(self, region: Region, bases: torch.Tensor) -> None:
        """A plain store at ``bases``: it ends the release sequences there."""
        if self.released:
            for b in bases.tolist():
                self.released.pop((region.id, int(b)), None)


@dataclass(frozen=True, slots=True)
class _Known:
    """What happened before, per block ``b``: every access of ``b`` stamped below ``full[b]``, and the
    accesses of ``b`` by thread ``thread[b]`` (-1: none) stamped at most ``upto[b]``."""

    full: torch.Tensor
    thread: torch.Tensor
    upto: torch.Tensor

    @staticmethod
    def nothing(blocks: int) -> _Known:
        return _Known(
            torch.zeros(blocks, dtype=torch.int32),
            torch.full((blocks,), -1, dtype=torch.int32),
            torch.zeros(blocks, dtype=torch.int32),
        )

    def join(self, other: _Known | None) -> _Known:
        """Both: one thread's entry per block is kept, the one reaching the later stamp (forgetting the
        other entry forgets an order, never invents one)."""
        if other is None:
            return self
        later = other.upto > self.upto
        return _Known(
            torch.maximum(self.full, other.full),
            torch.where(later, other.thread, self.thread),
            torch.maximum(self.upto, other.upto),
        )


@dataclass(eq=False, slots=True)
class FenceClocks:
    """Happens-before between the blocks of a CUDA launch through fences and atomics (PTX's release and
    acquire patterns; see the module docstring).

    Each block has a logical time (``stamp``), advanced at each of its barriers and fences; accesses are
    recorded with it. ``full``/``thread``/``upto`` (``[blocks, blocks]``) say what each block knows to
    have happened before its current barrier interval (rows are :class:`_Known`).
    """

    space: ThreadSpace
    stamp: torch.Tensor
    phase_start: torch.Tensor
    full: torch.Tensor
    thread: torch.Tensor
    upto: torch.Tensor
    #: per thread: what its latest device-scope fence releases (the release half of a pattern)
    fenced: dict[int, _Known] = field(default_factory=dict)
    #: per thread: what its atomics read since its latest fence (the acquire half, completed by a fence)
    acquired: dict[int, _Known] = field(default_factory=dict)
    #: per block: what fences of its threads acquired, known to the whole block after its next barrier
    pending: dict[int, _Known] = field(default_factory=dict)
    #: per thread that acquired since its block's last barrier: what it knows (its block's knowledge too)
    own: dict[int, _Known] = field(default_factory=dict)
    #: per location (region id, byte address): what its release sequence carries
    released: dict[tuple[int, int], _Known] = field(default_factory=dict)
    #: per location: the stamp of each block's latest device-scope atomic on it ([blocks]); every atomic
    #: on it precedes a later atomic on it in PTX's observation order (a chain of read-modify-writes),
    #: hence what follows that later atomic in its thread, and in its block after a barrier
    chain: dict[tuple[int, int], torch.Tensor] = field(default_factory=dict)
    #: locations a plain store or a block-scoped atomic broke the chain of (for the rest of the launch)
    broken: set[tuple[int, int]] = field(default_factory=set)
    #: per thread, then per block: per location, the stamps of the atomics on it observed (as ``chain``)
    observed: dict[int, dict[tuple[int, int], torch.Tensor]] = field(default_factory=dict)
    block_observed: dict[int, dict[tuple[int, int], torch.Tensor]] = field(default_factory=dict)

    @staticmethod
    def start(space: ThreadSpace) -> FenceClocks:
        b = space.num_blocks
        if b * b > _MAX_CLOCK_CELLS:
            raise SimulationError(
                f"happens-before between {b} blocks needs {b * b} clocks, more than the limit of "
                f"{_MAX_CLOCK_CELLS}: simulate a smaller instance"
            )
        one = torch.ones(b, dtype=torch.int32)
        none = _Known.nothing(b)
        return FenceClocks(
            space, one.clone(), one.clone(), none.full.repeat(b, 1), none.thread.repeat(b, 1), none.upto.repeat(b, 1)
        )

    def known(self, block: int) -> _Known:
        return _Known(self.full[block], self.thread[block], self.upto[block])

    def fence(self, threads: torch.Tensor) -> None:
        """Device- or system-scope fences of ``threads``: each completes the acquire patterns of the
        thread's atomics since its last fence, and starts a release pattern covering what precedes it."""
        blocks = self.space.block_of(threads)
        for t, b in zip(threads.tolist(), blocks.tolist(), strict=True):
            acquired = self.acquired.pop(t, None)
            if acquired is not None:
                self.pending[b] = acquired.join(self.pending.get(b))
                self.own[t] = self.known(b).join(acquired).join(self.own.get(t))
            own = _Known.nothing(self.full.shape[0])
            own.full[b] = self.phase_start[b]
            own.thread[b] = t
            own.upto[b] = self.stamp[b]
            self.fenced[t] = self.known(b).join(self.own.get(t)).join(own)
        for b in torch.unique(blocks).tolist():
            self.stamp[b] += 1  # the thread's later accesses are not released by this fence

    def atomic(self, region: Region, threads: torch.Tensor, bases: torch.Tensor, *, strong: bool = True) -> None:
        """Atomics of ``threads`` (in the order they were applied) at byte addresses ``bases``: each reads
        what the location's release sequence carries, then continues it, with its thread's release if the
        thread fenced before; and it observes the earlier atomics on the location. A block-scoped atomic
        (not ``strong``: not morally strong towards other blocks) ends the release sequence and the chain."""
        blocks = self.space.block_of(threads).tolist()
        for t, base, b in zip(threads.tolist(), bases.tolist(), blocks, strict=True):
            key = (region.id, int(base))
            if not strong:
                self.released.pop(key, None)
                self.chain.pop(key, None)
                self.broken.add(key)
                continue
            if key not in self.broken:
                seen = self.chain.get(key)
                if seen is None:
                    seen = self.chain[key] = torch.zeros_like(self.stamp)
                else:
                    mine = self.observed.setdefault(t, {})
                    mine[key] = seen.clone() if key not in mine else torch.maximum(mine[key], seen)
                seen[b] = self.stamp[b]
            carried = self.released.get(key)
            if carried is not None:
                self.acquired[t] = carried.join(self.acquired.get(t))
            release = self.fenced.get(t)
            if release is not None:
                self.released[key] = release.join(carried)

    def overwritten(self, region: Region, bases: torch.Tensor) -> None:
        """A plain store at ``bases``: it ends the release sequences and the chains there."""
        for b in bases.tolist():
            key = (region.id, int(b))
            self.released.pop(key, None)
            if self.chain.pop(key, None) is not None:
                self.broken.add(key)

    def observed_by(self, thread: int, block: int, key: tuple[int, int]) -> torch.Tensor | None:
        """The stamps of the atomics on ``key`` that ``thread`` (of ``block``) knows precede it."""
        a = self.observed.get(thread, {}).get(key)
        c = self.block_observed.get(block, {}).get(key)
        return c if a is None else a if c is None else torch.maximum(a, c)

    def barrier(self, passed: torch.Tensor) -> None:
        """The blocks ``passed`` (a bool per block) pass a barrier: what their threads' fences acquired is
        known to all their threads from now on."""
        for b in passed.nonzero().reshape(-1).tolist():
            got = self.pending.pop(b, None)
            if got is not None:
                k = self.known(b).join(got)
                self.full[b], self.thread[b], self.upto[b] = k.full, k.thread, k.upto
        self.stamp += passed.to(torch.int32)
        self.phase_start = torch.where(passed, self.stamp, self.phase_start)
        if self.own:
            blocks = self.space.block_of(torch.tensor(list(self.own)))
            for t, b in zip(list(self.own), blocks.tolist(), strict=True):
                if bool(passed[b]):
                    del self.own[t]  # the block knows it now
        if self.observed:
            blocks = self.space.block_of(torch.tensor(list(self.observed)))
            for t, b in zip(list(self.observed), blocks.tolist(), strict=True):
                if bool(passed[b]):
                    into = self.block_observed.setdefault(b, {})
                    for key, v in self.observed.pop(t).items():
                        into[key] = v if key not in into else torch.maximum(into[key], v)

    def rows(self, threads: torch.Tensor, blocks: torch.Tensor) -> _Known:
        """What each of ``threads`` (of ``blocks``) knows: its block's knowledge, and what it acquired
        itself since the block's last barrier (rows of ``[len(threads), blocks]`` tensors)."""
        full, thread, upto = self.full[blocks], self.thread[blocks], self.upto[blocks]
        if self.own:
            mine = [(i, k) for i, t in enumerate(threads.tolist()) if (k := self.own.get(t)) is not None]
            if mine:
                full, thread, upto = full.clone(), thread.clone(), upto.clone()
                for i, k in mine:
                    full[i], thread[i], upto[i] = k.full, k.thread, k.upto
        return _Known(full, thread, upto)


@dataclass(slots=True)
class _Resolved:
    """The accesses of one statement that land in one region, after the bounds check."""

    region: Region
    sel: torch.Tensor  # positions among the statement's accesses
    whole: bool  # every access of the statement is here (sel is 0 .. N-1)
    threads: torch.Tensor
    offset: torch.Tensor  # byte offset within the copy
    base: torch.Tensor  # byte address within the region's data (copy * stride + offset)
    elements: torch.Tensor | None = None  # the accessing elements of a block-level kernel (element_ids)


class Memory:
    """The regions of one launch and the checked accesses to them.

    ``phases``/``warp_phases`` are the barrier phase counters per block and per warp, advanced by the
    interpreter at each barrier; the race check reads them. With ``same_value`` set, a write-write race
    in which both writes store the same bits is reported as ``race (same value)``.
    """

    def __init__(self, space: ThreadSpace, log: DiagnosisLog, sites: list[Site]) -> None:
        self.space = space
        self.log = log
        self.sites = sites
        self.regions: dict[int, Region] = {}
        self.phases = torch.zeros(space.num_blocks, dtype=torch.int32)
        self.warp_phases = torch.zeros(space.num_warps, dtype=torch.int32)
        self._next_id = 1
        #: happens-before between programs run one at a time (a block-level kernel with a spin lock);
        #: ``None``: different blocks never synchronise
        self.clocks: ProgramClocks | None = None
        #: happens-before between the blocks of a CUDA launch through fences and atomics; ``None``:
        #: different blocks never synchronise
        self.fences: FenceClocks | None = None
        #: report write-write races whose writes store the same bits as ``race (same value)`` (else ``race``)
        self.same_value = False
        #: the block shapes of the block-level accesses so far, by number (see :meth:`element_ids`)
        self.block_shapes: list[tuple[int, ...]] = []
        #: the kernel reads through the non-coherent read-only cache (``__ldg``): every global location
        #: such a load reads must not be written during the launch (see :meth:`_non_coherent`)
        self.track_non_coherent = False

    # -- creating regions ------------------------------------------------------------------------------

    def _add(self, region: Region, fill: int = 0) -> Region:
        region.stride = max(_PAD, -(-region.nbytes // _PAD) * _PAD)
        total = region.copies * region.stride
        if total > 2**33:
            from larkc.errors import SimulationError

            raise SimulationError(
                f"{region.space_name} buffer {region.name} needs {total} bytes: too large to simulate"
            )
        region.data = torch.full((total,), fill, dtype=torch.uint8)
        region.granule = region.elem.size
        if region.track_init:
            region.init = torch.zeros(region.num_granules, dtype=torch.bool)
        self.regions[region.id] = region
        return region

    def new_id(self) -> int:
        rid = self._next_id
        self._next_id += 1
        return rid

    def add_global(
        self, name: str, tensor: torch.Tensor, elem: ScalarType, *, initialised: bool | torch.Tensor, read_only: bool
    ) -> Region:
        """A kernel buffer holding ``tensor``'s bytes.

        ``initialised``: ``True`` (defined contents), ``False`` (it starts "empty": reading an element
        before writing it is ``uninit``) or a bool mask of ``tensor``'s shape saying which elements hold
        defined values, the others starting empty (a buffer an earlier launch wrote in part).
        """
        flat = dense(tensor.detach()).reshape(-1)
        raw = flat.view(torch.uint8) if flat.numel() else torch.zeros(0, dtype=torch.uint8)
        mask: torch.Tensor | None = None
        if isinstance(initialised, torch.Tensor):
            mask = initialised.detach().reshape(-1).to(torch.bool)
            if mask.numel() != flat.numel() or raw.numel() != flat.numel() * elem.size:
                from larkc.errors import SimulationError

                raise SimulationError(
                    f"the initialised mask of buffer {name} does not match its {flat.numel()} elements"
                )
            if bool(mask.all()):
                mask = None
                initialised = True
            elif not bool(mask.any()):
                mask = None
                initialised = False
        full = mask is None and bool(initialised)
        region = Region(
            id=self.new_id(), name=name, kind=RegionKind.GLOBAL, elem=elem, elem_size=elem.size,
            nbytes=raw.numel(), copies=1, shape=tuple(tensor.shape), track_init=not full,
            read_only=read_only,
        )  # fmt: skip
        self._add(region, fill=0 if full else _EMPTY_BYTE)
        if full:
            region.data[: raw.numel()] = raw
        elif mask is not None:
            # A new region's granule is its element: the mask is its initialisation state as it stands.
            assert region.init is not None and region.granule == elem.size
            data = region.data[: raw.numel()].view(-1, elem.size)
            data[mask] = raw.view(-1, elem.size)[mask]
            region.init[: mask.numel()] = mask
        return region

    def add_array(self, name: str, kind: RegionKind, elem: ScalarType, elem_size: int, nbytes: int) -> Region:
        """A shared (per block) or local (per thread) array of ``nbytes`` bytes per copy, uninitialised."""
        copies = self.space.num_threads if kind is RegionKind.LOCAL else self.space.num_blocks
        region = Region(
            id=self.new_id(), name=name, kind=kind, elem=elem, elem_size=elem_size, nbytes=nbytes,
            copies=copies, track_init=True, track_races=kind is not RegionKind.LOCAL,
        )  # fmt: skip
        return self._add(region, fill=_EMPTY_BYTE)

    def reset_local(self, region: Region, threads: torch.Tensor) -> None:
        """A local array's declaration executed again: its contents are undefined once more."""
        if region.init is None or threads.numel() == 0:
            return
        per_copy = region.stride // region.granule
        idx = threads[:, None] * per_copy + torch.arange(per_copy)[None, :]
        region.init[idx.reshape(-1)] = False

    def track_writers(self, region: Region) -> None:
        """Record the last writer (site, thread) of every element of ``region`` from now on."""
        n = region.nbytes // region.elem_size
        region.writers = (torch.full((n,), -1, dtype=torch.int32), torch.full((n,), -1, dtype=torch.int32))

    def _record_writers(self, r: _Resolved, size: int, site: int) -> None:
        """The accesses ``r`` of ``size`` bytes each wrote their elements (of a region tracking writers)."""
        assert r.region.writers is not None
        sites, threads = r.region.writers
        per = max(1, size // r.region.elem_size)
        first = torch.div(r.offset, r.region.elem_size, rounding_mode="floor")
        idx = first if per == 1 else (first[:, None] + torch.arange(per)[None, :]).reshape(-1)
        th = r.threads if per == 1 else r.threads.repeat_interleave(per)
        keep = idx < sites.numel()
        sites[idx[keep]] = site
        threads[idx[keep]] = th[keep].to(torch.int32)

    def tensor_of(self, region: Region, dtype: torch.dtype) -> torch.Tensor:
        """The current contents of a kernel buffer as a tensor of ``dtype`` and the buffer's shape."""
        raw = region.data[: region.nbytes].clone()
        return raw.view(dtype).reshape(region.shape)

    def written_mask(self, region: Region) -> torch.Tensor | None:
        """Per element of a buffer that started empty, whether every byte of it has been written."""
        if region.init is None:
            return None
        n_elems = region.nbytes // region.elem_size
        per = region.elem_size // region.granule
        if per == 0:  # granule larger than the element cannot happen: granules divide the elem size
            return None
        g = region.init[: n_elems * per].reshape(n_elems, per)
        return g.all(dim=1).reshape(region.shape)

    def element_ids(self, shape: tuple[int, ...], flat: torch.Tensor) -> torch.Tensor:
        """The identities of the elements ``flat`` (row-major indices) of a block of ``shape`` accessing
        memory in a block-level kernel (``()`` for a scalar access): ``shape number << 21 | index``.

        Two accesses of one program are made by one GPU thread only when they have one identity: the same
        element of blocks of the same shape (the compiler lays a block's elements out over the threads as
        it likes, but the same way for blocks of one shape, an assumption: docs/semantics.md)."""
        if shape not in self.block_shapes:
            self.block_shapes.append(shape)
        number = self.block_shapes.index(shape)
        return torch.bitwise_left_shift(torch.tensor(number, dtype=torch.int64), _ELEMENT_BITS) | flat.to(torch.int64)

    def element_text(self, element: int) -> str:
        """``element [1, 3] (of a [4, 16] block)`` (or ``the scalar access``) of an element identity."""
        shape = self.block_shapes[element >> _ELEMENT_BITS]
        flat = element & ((1 << _ELEMENT_BITS) - 1)
        if not shape:
            return "the scalar access"
        idx = []
        for d in reversed(shape):
            idx.append(flat % d)
            flat //= d
        dims = ", ".join(str(d) for d in shape)
        return f"element [{', '.join(str(i) for i in reversed(idx))}] (of a [{dims}] block)"

    # -- accesses --------------------------------------------------------------------------------------

    def load(
        self,
        vt: ScalarType,
        lanes: int,
        align: int,
        threads: torch.Tensor,
        ptrs: torch.Tensor,
        site: int,
        elements: torch.Tensor | None = None,
        nc: bool = False,
    ) -> torch.Tensor:
        """Values read by ``threads`` through ``ptrs``: ``[N, max(lanes,1)]`` registers of ``vt``.

        ``lanes`` is 0 for a scalar access; ``align`` the alignment in bytes the access type needs;
        ``elements`` the identity of each access's element in a block-level kernel (:meth:`element_ids`);
        ``nc`` a read through the non-coherent read-only cache (``__ldg``).
        Accesses that fail a memory-safety check read NaN/0 and are reported.
        """
        n = threads.numel()
        width = max(lanes, 1)
        out = torch.empty((n, width), dtype=from_mem(torch.zeros(1, dtype=mem_dtype(vt)), vt).dtype)
        out.fill_(math.nan if vt.is_float else 0)
        for r in self._resolve(threads, ptrs, vt, lanes, align, site, AccessKind.READ, elements):
            eidx = self._elem_index(r, vt, width)
            self._check(r, AccessKind.READ, vt.size * width, align, site, nc=nc)
            view = r.region.data.view(mem_dtype(vt))
            if r.whole:
                return from_mem(view[eidx], vt)
            out[r.sel] = from_mem(view[eidx], vt)
        return out

    def store(
        self,
        vt: ScalarType,
        lanes: int,
        align: int,
        threads: torch.Tensor,
        ptrs: torch.Tensor,
        values: torch.Tensor,
        site: int,
        elements: torch.Tensor | None = None,
    ) -> None:
        """``threads`` write ``values`` (``[N, max(lanes,1)]`` registers of ``vt``) through ``ptrs``."""
        width = max(lanes, 1)
        for r in self._resolve(threads, ptrs, vt, lanes, align, site, AccessKind.WRITE, elements):
            eidx = self._elem_index(r, vt, width)
            new = to_mem(values if r.whole else values[r.sel], vt)
            self._check(r, AccessKind.WRITE, vt.size * width, align, site, written=new if self.same_value else None)
            view = r.region.data.view(mem_dtype(vt))
            view[eidx] = new
            if self.clocks is not None and r.region.kind is RegionKind.GLOBAL:
                self.clocks.overwritten(r.region, r.base)
            if self.fences is not None and r.region.kind is RegionKind.GLOBAL:
                self.fences.overwritten(r.region, r.base)
            if r.region.writers is not None:
                self._record_writers(r, vt.size * width, site)

    def atomic(
        self,
        op: AtomicOp,
        vt: ScalarType,
        threads: torch.Tensor,
        ptrs: torch.Tensor,
        values: torch.Tensor,
        compare: torch.Tensor | None,
        site: int,
        scope: MemScope = MemScope.DEVICE,
        elements: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Atomic read-modify-writes in thread order; returns the old value each thread saw."""
        n = threads.numel()
        old = torch.zeros(n, dtype=values.dtype)
        kind = AccessKind.BLOCK_ATOMIC if scope is MemScope.BLOCK else AccessKind.ATOMIC
        for r in self._resolve(threads, ptrs, vt, 0, vt.size, site, kind, elements):
            eidx = self._elem_index(r, vt, 1).reshape(-1)
            self._check(r, kind, vt.size, vt.size, site)
            view = r.region.data.view(mem_dtype(vt))
            cmp = compare[r.sel] if compare is not None else None
            old[r.sel] = _atomic_rmw(view, eidx, values[r.sel], cmp, op, vt)
            if r.region.writers is not None:
                self._record_writers(r, vt.size, site)
        return old

    def _in_globals(self, ptrs: torch.Tensor) -> Iterator[tuple[Region, torch.Tensor, torch.Tensor]]:
        """Per kernel buffer, the positions of ``ptrs`` inside it and their byte offsets (accesses outside
        every global buffer, already reported, are left out)."""
        region_ids, offsets = decode_pointer(ptrs)
        for rid in torch.unique(region_ids).tolist():
            region = self.regions.get(int(rid))
            if region is None or region.kind is not RegionKind.GLOBAL:
                continue
            sel = (region_ids == rid) & (offsets >= 0) & (offsets < region.nbytes)
            yield region, sel, offsets[sel]

    def synchronise(self, ptrs: torch.Tensor, order: MemoryOrder) -> None:
        """The happens-before effect of the running program's atomics with ``order`` at ``ptrs`` (after
        :meth:`atomic`)."""
        if self.clocks is not None:
            for region, _, offsets in self._in_globals(ptrs):
                self.clocks.synchronise(region, offsets, order)

    def fence(self, threads: torch.Tensor) -> None:
        """Device- or system-scope fences by ``threads`` (happens-before between blocks, if tracked)."""
        if self.fences is not None and threads.numel():
            self.fences.fence(threads)

    def fenced_atomic(self, threads: torch.Tensor, ptrs: torch.Tensor, *, strong: bool) -> None:
        """The release, acquire and observation effects of atomics of ``threads`` at ``ptrs`` (after
        :meth:`atomic`, in the same order); ``strong``: of device or system scope, else block-scoped."""
        if self.fences is not None:
            for region, sel, offsets in self._in_globals(ptrs):
                self.fences.atomic(region, threads[sel], offsets, strong=strong)

    # -- resolution and bounds -------------------------------------------------------------------------

    def _resolve(
        self,
        threads: torch.Tensor,
        ptrs: torch.Tensor,
        vt: ScalarType,
        lanes: int,
        align: int,
        site: int,
        kind: AccessKind,
        elements: torch.Tensor | None = None,
    ) -> Iterator[_Resolved]:
        """Group the accesses by region, report and drop those that fail the bounds and alignment checks."""
        if threads.numel() == 0:
            return
        size = vt.size * max(lanes, 1)
        region_ids, offsets = decode_pointer(ptrs)
        first = int(region_ids[0])
        if bool((region_ids == first).all()):
            groups: list[tuple[int, torch.Tensor | None]] = [(first, None)]
        else:
            groups = [(int(u), (region_ids == u).nonzero().squeeze(1)) for u in torch.unique(region_ids)]
        for rid, sel_or_none in groups:
            whole = sel_or_none is None
            sel = sel_or_none if sel_or_none is not None else torch.arange(threads.numel())
            th = threads if sel_or_none is None else threads[sel]
            off = offsets if sel_or_none is None else offsets[sel]
            el = elements if elements is None or sel_or_none is None else elements[sel]
            region = self.regions.get(rid)
            if region is None:
                t0 = int(th[0])
                self._report(
                    DiagnosisKind.OOB, site, t0, th.numel(),
                    f"{kind.value} through a pointer that points into no buffer (null or invalid) by "
                    f"{self.space.describe(t0)}",
                    key="nobuf",
                )  # fmt: skip
                continue
            limit = region.nbytes
            bad_bounds = (off < 0) | (off + size > limit)
            bad_align = (off % align) != 0
            bad = bad_bounds | bad_align
            if bool(bad.any()):
                self._report_bounds(region, th, off, bad_bounds, bad_align, size, align, vt, lanes, site, kind)
                keep = ~bad
                sel, th, off = sel[keep], th[keep], off[keep]
                el = el[keep] if el is not None else None
                whole = False
                if sel.numel() == 0:
                    continue
            if region.kind is RegionKind.GLOBAL:
                base = off
            elif region.kind is RegionKind.LOCAL:
                base = th * region.stride + off
            else:
                base = self.space.block_of(th) * region.stride + off
            yield _Resolved(region, sel, whole, th, off, base, el)

    def _report_bounds(
        self,
        region: Region,
        th: torch.Tensor,
        off: torch.Tensor,
        bad_bounds: torch.Tensor,
        bad_align: torch.Tensor,
        size: int,
        align: int,
        vt: ScalarType,
        lanes: int,
        site: int,
        kind: AccessKind,
    ) -> None:
        what = f"{vt}x{lanes}" if lanes else str(vt)
        if bool(bad_bounds.any()):
            i = int(bad_bounds.nonzero()[0])
            t0, o = int(th[i]), int(off[i])
            where = "before the start" if o < 0 else "past the end"
            self._report(
                DiagnosisKind.OOB, site, t0, int(bad_bounds.sum()),
                f"{kind.value} of {size} bytes ({what}) at {region.index_text(o)} by {self.space.describe(t0)} is "
                f"{where} of {region.space_name} buffer {region.name} ({region.describe_size()})",
                region=region, offset=o, key="bounds",
            )  # fmt: skip
        align_only = bad_align & ~bad_bounds
        if bool(align_only.any()):
            i = int(align_only.nonzero()[0])
            t0, o = int(th[i]), int(off[i])
            self._report(
                DiagnosisKind.OOB, site, t0, int(align_only.sum()),
                f"misaligned {kind.value} of {what} at byte offset {o} of {region.space_name} buffer "
                f"{region.name} by {self.space.describe(t0)} (needs {align}-byte alignment)",
                region=region, offset=o, key="align",
            )  # fmt: skip

    def _elem_index(self, r: _Resolved, vt: ScalarType, width: int) -> torch.Tensor:
        """Indices into the region's data viewed as ``vt`` elements: ``[n, width]``."""
        first = torch.div(r.base, vt.size, rounding_mode="floor")
        if width == 1:
            return first[:, None]
        return first[:, None] + torch.arange(width)[None, :]

    # -- checks ----------------------------------------------------------------------------------------

    def _check(
        self,
        r: _Resolved,
        kind: AccessKind,
        size: int,
        align: int,
        site: int,
        *,
        written: torch.Tensor | None = None,
        nc: bool = False,
    ) -> None:
        """The uninit and race checks of accesses of ``size`` bytes at ``align``-aligned addresses.

        ``written`` (a plain write's values, ``[N, lanes]`` of the memory dtype, not yet stored) lets the
        race check tell write-write races of one value (``race (same value)``) from the others. ``nc``: a
        read through the non-coherent read-only cache.
        """
        region = r.region
        if self.track_non_coherent and region.kind is RegionKind.GLOBAL and (nc or kind is not AccessKind.READ):
            self._non_coherent(r, kind, size, site, nc)
        if kind is not AccessKind.READ and region.read_only:
            region.read_only = False  # written after all (const cast away): track from now on
        needs_races = region.track_races and not region.read_only
        if region.init is None and not needs_races:
            return
        region.refine(math.gcd(size, align))  # granules must tile every access exactly
        g = region.granule
        per = size // g
        gstart = torch.div(r.base, g, rounding_mode="floor")
        elements = r.elements
        if per == 1:
            gi = gstart
            th = r.threads
            rows = torch.arange(r.threads.numel())
        else:
            gi = (gstart[:, None] + torch.arange(per)[None, :]).reshape(-1)
            th = r.threads.repeat_interleave(per)
            rows = torch.arange(r.threads.numel()).repeat_interleave(per)
            elements = elements.repeat_interleave(per) if elements is not None else None
        if region.init is not None:
            if kind is not AccessKind.WRITE:
                missing = ~region.init[gi]
                if bool(missing.any()):
                    i = int(missing.nonzero()[0])
                    t0 = int(th[i])
                    o = int(r.offset[int(rows[i])])
                    count = int(torch.unique(rows[missing]).numel())
                    origin = "the buffer starts empty" if region.kind is RegionKind.GLOBAL else "uninitialised"
                    self._report(
                        DiagnosisKind.UNINIT, site, t0, count,
                        f"{kind.value} of {region.space_name} {region.index_text(o)} by {self.space.describe(t0)} "
                        f"before any write ({origin})",
                        region=region, offset=o, key=region.name,
                    )  # fmt: skip
            if kind is not AccessKind.READ:
                region.init[gi] = True
        if needs_races:
            self._races(region, kind, gi, th, rows, r.offset, site, written)
            if elements is not None:
                self._element_races(region, kind, gi, th, elements, rows, r.offset, site, written)

    def _non_coherent(self, r: _Resolved, kind: AccessKind, size: int, site: int, nc: bool) -> None:
        """A read through the non-coherent read-only data cache (``__ldg``, ``ld.global.nc``) is defined only
        on memory that no thread writes during the launch: the cache is not kept coherent with the launch's
        own stores, so no barrier or fence orders them. Such a read of a byte written earlier in the launch,
        or a write (or atomic) of a byte such a read read, by any thread, is a race."""
        region = r.region
        nbytes = region.data.numel()
        at = (r.base[:, None] + torch.arange(size)[None, :]).clamp(0, max(nbytes - 1, 0))
        if nc:
            other, mine = region.launch_written, "nc_read"
        else:
            other, mine = region.nc_read, "launch_written"
        if other is not None:
            hit = other[at].any(dim=1)
            if bool(hit.any()):
                i = int(hit.nonzero()[0])
                t0 = int(r.threads[i])
                o = int(r.offset[i])
                what = (
                    f"read of {region.space_name} {region.index_text(o)} through the read-only cache (__ldg) "
                    f"by {self.space.describe(t0)}, which the kernel writes during the launch"
                    if nc
                    else f"{kind.value} of {region.space_name} {region.index_text(o)} by {self.space.describe(t0)}, "
                    "which the kernel reads through the read-only cache (__ldg)"
                )
                self._report(
                    DiagnosisKind.RACE, site, t0, int(hit.sum()),
                    f"{what}: the non-coherent cache needs memory read-only for the whole kernel",
                    region=region, offset=o, key=f"nc:{region.name}",
                )  # fmt: skip
        mark = getattr(region, mine)
        if mark is None:
            mark = torch.zeros(nbytes, dtype=torch.bool)
            setattr(region, mine, mark)
        mark[at.reshape(-1)] = True

    def _races(
        self,
        region: Region,
        kind: AccessKind,
        gi: torch.Tensor,
        th: torch.Tensor,
        rows: torch.Tensor,
        offsets: torch.Tensor,
        site: int,
        written: torch.Tensor | None = None,
    ) -> None:
        space = self.space
        cross = region.kind is RegionKind.GLOBAL
        bits: list[torch.Tensor] = []  # the written granules' bits, computed on the first write-write conflict

        def new_bits() -> torch.Tensor:
            assert written is not None
            if not bits:
                bits.append(_pack(dense(written).view(torch.uint8).reshape(-1, region.granule)))
            return bits[0]

        def report(
            conflict: torch.Tensor, other: AccessKind, others: torch.Tensor, other_sites: torch.Tensor, *, across: bool
        ) -> None:
            """Report the first access of ``conflict`` (``others``/``other_sites``: the earlier access's thread
            and site per access); a write over a write of the same bits separately."""
            parts = [(conflict, False)]
            if kind is AccessKind.WRITE and other is AccessKind.WRITE and written is not None:
                same = new_bits() == _pack(region.data[(gi * region.granule)[:, None] + _arange(region.granule)])
                parts = [(conflict & ~same, False), (conflict & same, True)]
            for part, same_value in parts:
                if bool(part.any()):
                    i = int(part.nonzero()[0])
                    self._report_race(
                        region, kind, other, int(th[i]), int(others[i]), int(other_sites[i]),
                        int(offsets[int(rows[i])]), site, int(part.sum()), across_blocks=across, same_value=same_value,
                    )  # fmt: skip

        # Thread numbers fit in int32 (launches are at most 2^24 threads): compute in int32 throughout.
        t32 = th.to(torch.int32)
        blk = space.block_of(t32)
        wrp = space.warp_of(t32)
        bp = self.phases[blk]
        wp = self.warp_phases[wrp]
        # Earlier accesses of conflicting kinds.
        for other in _CONFLICTS[kind]:
            sh = region.shadows.get(other)
            if sh is None:
                continue
            lo, hi = sh.lo[gi], sh.hi[gi]
            nonempty = hi >= 0
            conflict = torch.zeros_like(nonempty)
            other_t = lo
            if (kind, other) not in _ACROSS_ONLY and bool(nonempty.any()):
                lo_c = torch.where(nonempty, lo, 0)
                hi_c = torch.where(nonempty, hi, 0)
                blo, bhi = space.block_of(lo_c), space.block_of(hi_c)
                wlo, whi = space.warp_of(lo_c), space.warp_of(hi_c)
                stale = (sh.phase[gi] < bp) | ((wlo == whi) & (wlo == wrp) & (sh.wphase[gi] < wp))
                same_block = (blo == blk) & (bhi == blk)
                conflict = nonempty & same_block & ~stale & ((lo != t32) | (hi != t32))
                other_t = torch.where(lo != t32, lo, hi)
            if bool(conflict.any()):
                report(conflict, other, other_t, sh.stmt[gi], across=False)
            if cross and self.clocks is not None:
                self._unordered(region, other, gi, sh.xstmt[gi], report)
            elif cross and self.fences is not None:
                self._unfenced(region, other, gi, t32, blk, sh.xstmt[gi], report)
            elif cross:
                xlo, xhi = sh.xlo[gi], sh.xhi[gi]
                xnon = xhi >= 0
                if bool(xnon.any()):
                    bxlo = space.block_of(torch.where(xnon, xlo, 0))
                    bxhi = space.block_of(torch.where(xnon, xhi, 0))
                    xconf = xnon & ((bxlo != blk) | (bxhi != blk))
                    if bool(xconf.any()):
                        report(xconf, other, torch.where(bxlo != blk, xlo, xhi), sh.xstmt[gi], across=True)
        # Block-scoped atomics of different blocks to one granule in this very statement.
        if kind is AccessKind.BLOCK_ATOMIC and cross and th.numel() > 1:
            self._split_block_atomics(region, gi, t32, blk, rows, offsets, site)
        # Plain writes by different threads in this very statement.
        if kind is AccessKind.WRITE and th.numel() > 1:
            if region.scratch is None:
                region.scratch = torch.zeros(region.num_granules, dtype=torch.int32)
            region.scratch[gi] = t32
            winner = region.scratch[gi]
            dup = winner != t32
            if bool(dup.any()):
                parts = [(dup, False)]
                if written is not None:
                    # One value if every writer of the granule in this statement writes the same bits.
                    b = new_bits()
                    lo = torch.full((region.num_granules,), _I64_MAX, dtype=torch.int64).scatter_reduce_(
                        0, gi, b, reduce="amin"
                    )
                    hi = torch.full((region.num_granules,), _I64_MIN, dtype=torch.int64).scatter_reduce_(
                        0, gi, b, reduce="amax"
                    )
                    same = lo[gi] == hi[gi]
                    parts = [(dup & ~same, False), (dup & same, True)]
                for part, same_value in parts:
                    if bool(part.any()):
                        i = int(part.nonzero()[0])
                        a, w = int(th[i]), int(winner[i])
                        self._report_race(
                            region, kind, AccessKind.WRITE, a, w, site, int(offsets[int(rows[i])]), site,
                            int(part.sum()), across_blocks=a // space.block_size != w // space.block_size,
                            same_value=same_value,
                        )  # fmt: skip
        # Record this access.
        sh = region.shadow(kind)
        lo, hi = sh.lo[gi], sh.hi[gi]
        nonempty = hi >= 0
        if bool(nonempty.any()):
            lo_c = torch.where(nonempty, lo, 0)
            hi_c = torch.where(nonempty, hi, 0)
            blo, bhi = space.block_of(lo_c), space.block_of(hi_c)
            wlo, whi = space.warp_of(lo_c), space.warp_of(hi_c)
            stale = (sh.phase[gi] < bp) | ((wlo == whi) & (wlo == wrp) & (sh.wphase[gi] < wp))
            reset = nonempty & (stale | (blo != blk) | (bhi != blk))
            if bool(reset.any()):
                sh.lo[gi[reset]] = _INT_MAX
                sh.hi[gi[reset]] = -1
        sh.lo.scatter_reduce_(0, gi, t32, reduce="amin")
        sh.hi.scatter_reduce_(0, gi, t32, reduce="amax")
        sh.phase[gi] = bp
        sh.wphase[gi] = wp
        sh.stmt[gi] = site
        if cross and self.clocks is not None:
            c = region.clocks.get(kind)
            if c is None:
                cells = region.num_granules * self.space.num_blocks
                if cells > _MAX_CLOCK_CELLS:
                    raise SimulationError(
                        f"happens-before between {self.space.num_blocks} programs on buffer {region.name} "
                        f"({region.num_granules} locations) needs {cells} clocks, more than the limit of "
                        f"{_MAX_CLOCK_CELLS}: simulate a smaller instance"
                    )
                c = torch.zeros((region.num_granules, self.space.num_blocks), dtype=torch.int32)
                region.clocks[kind] = c
            p = self.clocks.program
            c[gi, p] = self.clocks.vc[p, p]
        if cross and self.fences is not None:
            self._record_stamps(region, kind, gi, t32, blk)
        if cross:
            sh.xlo.scatter_reduce_(0, gi, t32, reduce="amin")
            sh.xhi.scatter_reduce_(0, gi, t32, reduce="amax")
            sh.xstmt[gi] = site

    def _element_races(
        self,
        region: Region,
        kind: AccessKind,
        gi: torch.Tensor,
        th: torch.Tensor,
        elements: torch.Tensor,
        rows: torch.Tensor,
        offsets: torch.Tensor,
        site: int,
        written: torch.Tensor | None,
    ) -> None:
        """The race check between the elements of one program of a block-level kernel (the module
        docstring): the accesses of this statement against the program's accesses since its last
        ``tl.debug_barrier()`` by other elements, and the writes of this statement among themselves.
        ``th`` are the programs, ``elements`` the element identities (:meth:`element_ids`), per granule
        access ``gi``."""
        t32 = th.to(torch.int32)
        phase = self.phases[self.space.block_of(t32)]
        bits: list[torch.Tensor] = []

        def new_bits() -> torch.Tensor:
            assert written is not None
            if not bits:
                bits.append(_pack(dense(written).view(torch.uint8).reshape(-1, region.granule)))
            return bits[0]

        def report(
            part: torch.Tensor, other: AccessKind, others: torch.Tensor, sites: torch.Tensor, same: bool
        ) -> None:
            i = int(part.nonzero()[0])
            self._report_element_race(
                region, kind, other, int(th[i]), int(elements[i]), int(others[i]), int(sites[i]),
                int(offsets[int(rows[i])]), site, int(part.sum()), same_value=same,
            )  # fmt: skip

        # Earlier accesses of the program by other elements, since its last barrier.
        for other in _CONFLICTS[kind]:
            if (kind, other) in _ACROSS_ONLY:
                continue  # atomics of one program (one CTA) are atomic towards each other
            sh = region.elements.get(other)
            if sh is None:
                continue
            lo, hi = sh.lo[gi], sh.hi[gi]
            ours = (sh.program[gi] == t32) & (sh.phase[gi] == phase) & (hi >= 0)
            conflict = ours & ((lo != elements) | (hi != elements))
            if not bool(conflict.any()):
                continue
            others = torch.where(lo != elements, lo, hi)
            parts = [(conflict, False)]
            if kind is AccessKind.WRITE and other is AccessKind.WRITE and written is not None:
                same = new_bits() == _pack(region.data[(gi * region.granule)[:, None] + _arange(region.granule)])
                parts = [(conflict & ~same, False), (conflict & same, True)]
            for part, same_value in parts:
                if bool(part.any()):
                    report(part, other, others, sh.stmt[gi], same_value)
        # Writes of this statement by two elements of one program to one granule.
        if kind is AccessKind.WRITE and th.numel() > 1:
            if region.element_scratch is None:
                region.element_scratch = torch.zeros(region.num_granules, dtype=torch.int64)
            key = torch.bitwise_left_shift(th.to(torch.int64), 32) | elements
            region.element_scratch[gi] = key
            winner = region.element_scratch[gi]
            dup = (winner != key) & (torch.bitwise_right_shift(winner, 32) == th)
            if bool(dup.any()):
                parts = [(dup, False)]
                if written is not None:
                    b = new_bits()
                    n = region.num_granules
                    lo_b = torch.full((n,), _I64_MAX, dtype=torch.int64).scatter_reduce_(0, gi, b, reduce="amin")
                    hi_b = torch.full((n,), _I64_MIN, dtype=torch.int64).scatter_reduce_(0, gi, b, reduce="amax")
                    same = lo_b[gi] == hi_b[gi]
                    parts = [(dup & ~same, False), (dup & same, True)]
                winners = winner & ((1 << 32) - 1)
                here = torch.full_like(t32, site)
                for part, same_value in parts:
                    if bool(part.any()):
                        report(part, AccessKind.WRITE, winners, here, same_value)
        # Record this access.
        sh = region.elements.get(kind)
        if sh is None:
            sh = _ElementShadow.empty(region.num_granules)
            region.elements[kind] = sh
        stale = (sh.program[gi] != t32) | (sh.phase[gi] != phase)
        if bool(stale.any()):
            g = gi[stale]
            sh.lo[g] = _I64_MAX
            sh.hi[g] = -1
        sh.lo.scatter_reduce_(0, gi, elements, reduce="amin")
        sh.hi.scatter_reduce_(0, gi, elements, reduce="amax")
        sh.program[gi] = t32
        sh.phase[gi] = phase
        sh.stmt[gi] = site

    def _split_block_atomics(
        self,
        region: Region,
        gi: torch.Tensor,
        t32: torch.Tensor,
        blk: torch.Tensor,
        rows: torch.Tensor,
        offsets: torch.Tensor,
        site: int,
    ) -> None:
        """Report the granules that block-scoped atomics of one statement from several blocks update."""
        n = region.num_granules

        def reduce(v: torch.Tensor, start: int, how: str) -> torch.Tensor:
            return torch.full((n,), start, dtype=torch.int32).scatter_reduce_(0, gi, v, reduce=how)[gi]

        bmin, bmax = reduce(blk, _INT_MAX, "amin"), reduce(blk, -1, "amax")
        split = bmin != bmax
        if bool(split.any()):
            # Threads are numbered block by block: the least thread is in the least block.
            others = torch.where(blk != bmin, reduce(t32, _INT_MAX, "amin"), reduce(t32, -1, "amax"))
            i = int(split.nonzero()[0])
            self._report_race(
                region, AccessKind.BLOCK_ATOMIC, AccessKind.BLOCK_ATOMIC, int(t32[i]), int(others[i]), site,
                int(offsets[int(rows[i])]), site, int(split.sum()), across_blocks=True,
            )  # fmt: skip

    def _record_stamps(
        self, region: Region, kind: AccessKind, gi: torch.Tensor, t32: torch.Tensor, blk: torch.Tensor
    ) -> None:
        """Record accesses of ``kind`` at granules ``gi`` by threads ``t32`` of blocks ``blk`` for
        :meth:`_unfenced`."""
        fences = self.fences
        assert fences is not None
        nb = self.space.num_blocks
        st = region.stamps.get(kind)
        if st is None:
            cells = region.num_granules * nb
            if cells > _MAX_CLOCK_CELLS:
                raise SimulationError(
                    f"happens-before between {nb} blocks on buffer {region.name} ({region.num_granules} "
                    f"locations) needs {cells} clocks, more than the limit of {_MAX_CLOCK_CELLS}: simulate a "
                    "smaller instance"
                )
            shape = (region.num_granules, nb)
            st = (
                torch.zeros(shape, dtype=torch.int32),
                torch.zeros(shape, dtype=torch.int32),
                torch.full(shape, -1, dtype=torch.int32),
            )
            region.stamps[kind] = st
        stamp, interval, owner = st
        cell = gi.to(torch.int64) * nb + blk.to(torch.int64)
        cells, inv = torch.unique(cell, return_inverse=True)
        lo = torch.full((cells.numel(),), _INT_MAX, dtype=torch.int32).scatter_reduce_(0, inv, t32, reduce="amin")
        hi = torch.full((cells.numel(),), -1, dtype=torch.int32).scatter_reduce_(0, inv, t32, reduce="amax")
        g, b = cells // nb, cells % nb
        start = fences.phase_start[b]
        one = torch.where(lo == hi, lo, -1)
        same_interval = (stamp[g, b] > 0) & (interval[g, b] == start)
        keep = same_interval & (owner[g, b] != one)
        owner[g, b] = torch.where(keep, torch.full_like(one, -1), one)
        stamp[g, b] = fences.stamp[b]
        interval[g, b] = start

    def _unfenced(
        self,
        region: Region,
        other: AccessKind,
        gi: torch.Tensor,
        t32: torch.Tensor,
        blk: torch.Tensor,
        other_sites: torch.Tensor,
        report: Callable[..., None],
    ) -> None:
        """Report accesses by threads ``t32`` of blocks ``blk`` that nothing they know orders after another
        block's latest access of kind ``other`` to the same granule."""
        fences = self.fences
        assert fences is not None
        st = region.stamps.get(other)
        if st is None:
            return
        stamp, _, owner = st
        rs, ro = stamp[gi], owner[gi]
        b = blk.to(torch.int64)
        k = fences.rows(t32, b)
        ordered = (rs < k.full) | ((ro >= 0) & (ro == k.thread) & (rs <= k.upto))
        if other is AccessKind.ATOMIC and (fences.observed or fences.block_observed):
            # device-scope atomics that a later atomic of this thread (or of its block, before its last
            # barrier) read through the chain precede its accesses (PTX's causality order: observation
            # order, then program order and barriers)
            for i, (t, bb, g) in enumerate(zip(t32.tolist(), blk.tolist(), gi.tolist(), strict=True)):
                seen = fences.observed_by(t, bb, (region.id, g * region.granule))
                if seen is not None:
                    ordered[i] |= rs[i] <= seen
        later = (rs > 0) & ~ordered
        later[torch.arange(gi.numel()), b] = False
        conflict = later.any(dim=1)
        if bool(conflict.any()):
            ob = later.to(torch.int32).argmax(dim=1)
            who = ro.gather(1, ob[:, None].to(torch.int64)).squeeze(1)
            others = torch.where(who >= 0, who, ob * self.space.block_size)
            report(conflict, other, others, other_sites, across=True)

    def _unordered(
        self,
        region: Region,
        other: AccessKind,
        gi: torch.Tensor,
        other_sites: torch.Tensor,
        report: Callable[..., None],
    ) -> None:
        """Report accesses of the running program that no happens-before orders after another program's
        latest access of kind ``other`` to the same granule."""
        assert self.clocks is not None
        c = region.clocks.get(other)
        if c is None:
            return
        p = self.clocks.program
        later = c[gi] > self.clocks.vc[p][None, :]
        later[:, p] = False
        conflict = later.any(dim=1)
        if bool(conflict.any()):
            report(conflict, other, later.to(torch.int32).argmax(dim=1), other_sites, across=True)

    # -- reporting -------------------------------------------------------------------------------------

    def _report_race(
        self,
        region: Region,
        kind: AccessKind,
        other: AccessKind,
        t: int,
        other_t: int,
        other_site: int,
        offset: int,
        site: int,
        count: int,
        *,
        across_blocks: bool,
        same_value: bool = False,
    ) -> None:
        across = across_blocks
        here = self.sites[site].span if 0 <= site < len(self.sites) else None
        where = self.sites[other_site].span if 0 <= other_site < len(self.sites) else None
        at = ""
        if where is not None and where.line > 0:
            same_file = here is not None and here.file == where.file
            at = f" at line {where.line}:{where.col}" if same_file else f" at {where.location()}"
        if across and AccessKind.BLOCK_ATOMIC in (kind, other):
            other_who = self.space.describe(other_t)
            why = " (a block-scoped atomic is atomic only towards its own block)"
        elif across and self.clocks is not None:
            other_who = self.space.describe(other_t)
            why = " (no atomic release and acquire order them)"
        elif across and self.fences is not None:
            other_who = self.space.describe(other_t)
            why = (
                " (no release and acquire pattern orders them: the writer's __threadfence() then an atomic, the"
                " reader's atomic reading its value then __threadfence(), then __syncthreads() for its block)"
            )
        elif across:
            other_who = self.space.describe(other_t)
            why = " (different blocks never synchronise)"
        else:
            other_who = self.space.describe(other_t, with_block=False)
            pair = self.space.warp_of(torch.tensor([t, other_t]))
            same_warp = int(pair[0]) == int(pair[1]) and other_site != site
            why = " in the same barrier interval" + (" (same warp, no __syncwarp between)" if same_warp else "")
        both = " (both write the same value)" if same_value else ""
        self._report(
            DiagnosisKind.RACE_SAME_VALUE if same_value else DiagnosisKind.RACE, site, t, count,
            f"{kind.value} of {region.space_name} {region.index_text(offset)} by {self.space.describe(t)} conflicts "
            f"with {other.value} by {other_who}{at}{why}{both}",
            region=region, offset=offset, key=f"{region.name}:{other.value}",
        )  # fmt: skip

    def _report_element_race(
        self,
        region: Region,
        kind: AccessKind,
        other: AccessKind,
        t: int,
        element: int,
        other_element: int,
        other_site: int,
        offset: int,
        site: int,
        count: int,
        *,
        same_value: bool,
    ) -> None:
        """A race between two elements of program ``t`` of a block-level kernel."""
        here = self.sites[site].span if 0 <= site < len(self.sites) else None
        where = self.sites[other_site].span if 0 <= other_site < len(self.sites) else None
        if other_site == site:
            at = " in the same statement"
            why = " (the elements of a block may be held by different GPU threads: which write lands is undefined)"
        else:
            at = ""
            if where is not None and where.line > 0:
                same_file = here is not None and here.file == where.file
                at = f" at line {where.line}:{where.col}" if same_file else f" at {where.location()}"
            why = (
                " with no tl.debug_barrier() between (the elements of a block may be held by different GPU"
                " threads; Triton orders global memory between them only at a barrier)"
            )
        both = " (both write the same value)" if same_value else ""
        self._report(
            DiagnosisKind.RACE_SAME_VALUE if same_value else DiagnosisKind.RACE, site, t, count,
            f"{kind.value} of {region.space_name} {region.index_text(offset)} by {self.element_text(element)} of "
            f"{self.space.describe(t)} conflicts with {other.value} by {self.element_text(other_element)} of the "
            f"same program{at}{why}{both}",
            region=region, offset=offset, key=f"{region.name}:{other.value}:elements",
        )  # fmt: skip

    def _report(
        self,
        kind: DiagnosisKind,
        site: int,
        t: int,
        count: int,
        message: str,
        *,
        region: Region | None = None,
        offset: int | None = None,
        key: str = "",
    ) -> None:
        block, thread = self.space.coords(t)
        span = self.sites[site].span if 0 <= site < len(self.sites) else None
        index = offset // region.elem_size if region is not None and offset is not None else None
        self.log.add(
            Diagnosis(kind, message, span, block, thread, region.name if region is not None else None, index),
            key=key,
            occurrences=count,
        )


_I64_MAX = 2**63 - 1
_I64_MIN = -(2**63)


def _arange(n: int) -> torch.Tensor:
    return torch.arange(n, dtype=torch.int64)


def _pack(granules: torch.Tensor) -> torch.Tensor:
    """The bytes of each row of ``granules`` (``[N, g]`` uint8, ``g <= 8``) as one int64 per row."""
    shifts = 8 * _arange(granules.shape[1])
    return torch.bitwise_left_shift(granules.to(torch.int64), shifts).sum(dim=1)


# --------------------------------------------------------------------------------------------------
# Atomics


def _atomic_new(
    op: AtomicOp, old: torch.Tensor, v: torch.Tensor, cmp: torch.Tensor | None, vt: ScalarType
) -> torch.Tensor:
    """The value an atomic ``op`` leaves in memory given the ``old`` value (registers of ``vt``)."""
    match op:
        case AtomicOp.ADD:
            return apply_binary(BinaryOp.ADD, old, v, vt)
        case AtomicOp.SUB:
            return apply_binary(BinaryOp.SUB, old, v, vt)
        case AtomicOp.MIN:
            return apply_binary(BinaryOp.MIN, old, v, vt)
        case AtomicOp.MAX:
            return apply_binary(BinaryOp.MAX, old, v, vt)
        case AtomicOp.EXCH:
            return v
        case AtomicOp.CAS:
            assert cmp is not None
            # atomicCAS compares bit patterns (a float CAS goes through the integer view).
            old_bits = dense(to_mem(old, vt)).view(torch.uint8).reshape(old.shape[0], -1)
            cmp_bits = dense(to_mem(cmp, vt)).view(torch.uint8).reshape(cmp.shape[0], -1)
            same = old_bits == cmp_bits
            return torch.where(same.all(dim=1), v, old)
        case AtomicOp.AND:
            return apply_binary(BinaryOp.BITAND, old, v, vt)
        case AtomicOp.OR:
            return apply_binary(BinaryOp.BITOR, old, v, vt)
        case AtomicOp.XOR:
            return apply_binary(BinaryOp.BITXOR, old, v, vt)
        case AtomicOp.INC | AtomicOp.DEC:
            return wrapping_step(op, old, v, vt)
        case _:
            assert_never(op)


def wrapping_step(op: AtomicOp, old: torch.Tensor, v: torch.Tensor, vt: ScalarType) -> torch.Tensor:
    """What atomicInc (``op`` INC) or atomicDec (DEC) with bound ``v`` leaves where ``old`` was (unsigned ``vt``)."""
    one = torch.ones_like(old)
    if op is AtomicOp.INC:
        past = apply_binary(BinaryOp.GE, old, v, vt)
        return torch.where(past, torch.zeros_like(old), apply_binary(BinaryOp.ADD, old, one, vt))
    past = (old == 0) | apply_binary(BinaryOp.GT, old, v, vt)
    return torch.where(past, v, apply_binary(BinaryOp.SUB, old, one, vt))


def _atomic_rmw(
    view: torch.Tensor, eidx: torch.Tensor, v: torch.Tensor, cmp: torch.Tensor | None, op: AtomicOp, vt: ScalarType
) -> torch.Tensor:
    """Apply the atomics to ``view`` one after the other in the given (thread) order; return old values.

    Atomics to distinct addresses are independent, so they run together: round ``k`` applies, for each
    address, its ``k``-th atomic. The number of rounds is the largest number of atomics on one address.
    """
    n = eidx.numel()
    old = torch.empty(n, dtype=v.dtype)
    if n == 0:
        return old
    sorted_idx, order = torch.sort(eidx, stable=True)
    starts = torch.ones(n, dtype=torch.bool)
    starts[1:] = sorted_idx[1:] != sorted_idx[:-1]
    if bool(starts.all()):
        cur = from_mem(view[eidx], vt)
        view[eidx] = to_mem(_atomic_new(op, cur, v, cmp, vt), vt)
        return cur
    pos = torch.arange(n)
    group_start = torch.cummax(torch.where(starts, pos, torch.zeros_like(pos)), dim=0).values
    rank_sorted = pos - group_start
    rank = torch.empty_like(rank_sorted)
    rank[order] = rank_sorted
    for k in range(int(rank_sorted.max()) + 1):
        sel = (rank == k).nonzero().squeeze(1)
        idx = eidx[sel]
        cur = from_mem(view[idx], vt)
        view[idx] = to_mem(_atomic_new(op, cur, v[sel], cmp[sel] if cmp is not None else None, vt), vt)
        old[sel] = cur
    return old
