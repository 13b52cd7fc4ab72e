"""Memory of a symbolic run: the simulator's regions and checks, holding term ids instead of bytes.

:class:`SymbolicMemory` is the simulator's :class:`~larkc.semantics.memory.Memory` with a second store
per region: for every byte address, the id of the typed value whose first byte is there and a type code
(0: never written; -1: an inner byte of a value that starts earlier; ``k``: a value of
``SCALAR_CODES[k - 1]``). Bounds, alignment, uninitialised reads and races are checked by the inherited
code on the same concrete addresses the simulator would compute, so the symbolic run and ``larkc run``
cannot disagree about which accesses a launch makes.

A store inside an if-converted branch on input data is *guarded*: each thread's store takes effect only
where its condition holds (:attr:`SymbolicMemory.guard`), so the element becomes
``select(condition, new, old)``, exact per element and per address. Where the old contents were never
written, the element is only *maybe* written; a later read of it stops the run (the ``init`` check could
not say whether it reads unwritten memory), and the element's term holds an undefined value.

A read must find a value of exactly its own type starting at its address; anything else (a ``float``
read through an ``int*``, two halves read as one ``half2``) is a *reinterpretation*: exact for
constants, an opaque value otherwise (see :meth:`SymbolicDomain.opaque`).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import torch

from larkc.ir.nodes import AtomicOp, MemScope
from larkc.ir.types import (
    BF16,
    BOOL,
    F8E4M3,
    F8E5M2,
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    ScalarType,
)
from larkc.semantics.diagnostics import DiagnosisLog
from larkc.semantics.geometry import ThreadSpace
from larkc.semantics.memory import AccessKind, Memory, Region, RegionKind, Site
from larkc.semantics.numerics import mem_dtype
from larkc.semantics.symvalues import ID_DTYPE, TRUE_ID, UNDEF, UNDEFINED, SymbolicDomain, SymbolicUnsupported
from larkc.symbolic import terms as tm

__all__ = ["SCALAR_CODES", "AtomicCombine", "SymbolicMemory"]

SCALAR_CODES: tuple[ScalarType, ...] = (BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, F8E4M3, F8E5M2)
_CODE = {t: i + 1 for i, t in enumerate(SCALAR_CODES)}
_INNER = -1

#: ``(op, type, current ids, operand ids, compare ids or None) -> new ids``: an atomic's update.
AtomicCombine = Callable[[AtomicOp, ScalarType, torch.Tensor, torch.Tensor, torch.Tensor | None], torch.Tensor]


class SymbolicMemory(Memory):
    """The simulator's memory, storing term ids (see the module docstring)."""

    def __init__(
        self,
        space: ThreadSpace,
        log: DiagnosisLog,
        sites: list[Site],
        domain: SymbolicDomain,
        combine: AtomicCombine,
    ) -> None:
        super().__init__(space, log, sites)
        self.domain = domain
        self.combine = combine
        self.ids: dict[int, torch.Tensor] = {}
        self.codes: dict[int, torch.Tensor] = {}
        self.written: set[int] = set()  # regions stored to or updated atomically
        #: per thread, the truth id under which its stores take effect (inside an if-converted branch on
        #: input data); ``None`` outside such branches
        self.guard: torch.Tensor | None = None
        self.maybe_unwritten: dict[int, torch.Tensor] = {}  # region id -> bytes written only under a guard

    def _add(self, region: Region, fill: int = 0) -> Region:
        r = super()._add(region, fill)
        total = r.copies * r.stride
        self.ids[r.id] = torch.zeros(total, dtype=ID_DTYPE)
        self.codes[r.id] = torch.zeros(total, dtype=torch.int8)
        return r

    # -- contents --------------------------------------------------------------------------------------

    def fill(self, region: Region, ids: torch.Tensor, t: ScalarType) -> None:
        """Set the elements of a kernel buffer (element ``i`` at byte ``i * size``) to ``ids``."""
        n = ids.numel()
        slots = torch.arange(n) * t.size
        self._write(region, slots, ids.reshape(-1).to(ID_DTYPE), t)

    def contents(self, region: Region, t: ScalarType) -> torch.Tensor:
        """The ids of the elements of a kernel buffer read as ``t`` (reinterpreted where needed)."""
        n = region.nbytes // t.size
        return self._read(region, torch.arange(n) * t.size, t)

    def _write(self, region: Region, slots: torch.Tensor, ids: torch.Tensor, t: ScalarType) -> None:
        store = self.ids[region.id]
        codes = self.codes[region.id]
        store[slots] = ids
        codes[slots] = _CODE[t]
        for k in range(1, t.size):
            codes[slots + k] = _INNER
        # a value packing narrower ones (an int4 lane holding two bf16 values) is stored as what it packs,
        # so that a read of the narrower type, or of the packed one again, gives them back exactly
        if not self.domain.has_packs:
            return
        for slot, i in zip(slots.tolist(), ids.tolist(), strict=True):
            packed = self.domain.packed(int(i))
            if packed is None or len(packed[0]) * packed[1].size != t.size:
                continue
            parts, src = packed
            for j, part in enumerate(parts):
                at = slot + j * src.size
                store[at] = part
                codes[at] = _CODE[src]
                codes[at + 1 : at + src.size] = _INNER

    def _read(self, region: Region, slots: torch.Tensor, t: ScalarType) -> torch.Tensor:
        store = self.ids[region.id]
        codes = self.codes[region.id]
        out = store[slots].clone()
        head = codes[slots]
        ok = head == _CODE[t]
        never = head == 0
        for k in range(1, t.size):
            inner = codes[slots + k]
            ok &= inner == _INNER
            never &= inner == 0
        out[never] = UNDEF
        bad = ~(ok | never)
        if bool(bad.any()):
            out[bad] = self._reinterpret(region, slots[bad], t)
        return out

    def _reinterpret(self, region: Region, slots: torch.Tensor, t: ScalarType) -> torch.Tensor:
        """Values read as ``t`` over bytes written as other types: exact for constants, a bit view of one
        value of the same size, else opaque."""
        out = []
        codes = self.codes[region.id]
        store = self.ids[region.id]
        for slot in slots.tolist():
            raw = self._constant_bytes(region, slot, t.size)
            head = int(codes[slot])
            if raw is None and head > 0 and SCALAR_CODES[head - 1].size == t.size:
                src = SCALAR_CODES[head - 1]
                whole = all(int(codes[slot + k]) == _INNER for k in range(1, t.size))
                if whole:
                    out.append(int(self.domain.bits_view(store[slot : slot + 1], src, t)[0]))
                    continue
            parts = self._whole_values(region, slot, t.size) if raw is None else None
            if parts is not None:  # narrower values read as one wider value: their pack
                ids = torch.tensor(parts[0], dtype=ID_DTYPE)
                out.append(int(self.domain.pack(ids[None, :], parts[1], t)[0]))
                continue
            if raw is None:
                out.append(int(self.domain.opaque((1,), f"memory written as one type and read as {t}")[0]))
                continue
            if t == BF16:
                value = np.frombuffer(b"\0\0" + raw, dtype=np.float32)[0]
            elif t in _FP8:  # numpy has no fp8: torch reads the byte
                value = torch.frombuffer(bytearray(raw), dtype=mem_dtype(t)).float()[0].item()
            else:
                value = np.frombuffer(raw, dtype=_NUMPY[t])[0]
            if t.is_float:
                out.append(self.domain.float_const(float(value), t))
            elif t.is_bool:
                out.append(self.domain.id(tm.TRUE if bool(value) else tm.FALSE))
            else:
                out.append(self.domain.id(tm.const(int(value))))
        return torch.tensor(out, dtype=ID_DTYPE)

    def _whole_values(self, region: Region, start: int, size: int) -> tuple[list[int], ScalarType] | None:
        """The ids of two or more whole values of one type that fill bytes ``[start, start + size)``."""
        codes = self.codes[region.id]
        head = int(codes[start])
        if head <= 0:
            return None
        src = SCALAR_CODES[head - 1]
        if src.size >= size or size % src.size:
            return None
        parts = []
        for at in range(start, start + size, src.size):
            if int(codes[at]) != head or any(int(codes[at + k]) != _INNER for k in range(1, src.size)):
                return None
            parts.append(int(self.ids[region.id][at]))
        return parts, src

    def _constant_bytes(self, region: Region, start: int, size: int) -> bytes | None:
        """The bytes ``[start, start + size)`` when every value overlapping them is a known constant."""
        codes = self.codes[region.id]
        store = self.ids[region.id]
        first = start
        while first > 0 and int(codes[first]) == _INNER:
            first -= 1
        buf = bytearray()
        pos = first
        while pos < start + size:
            code = int(codes[pos])
            if code <= 0:
                return None
            vt = SCALAR_CODES[code - 1]
            term = self.domain.table.peek(int(store[pos]))
            if not isinstance(term, tm.Poly | tm.BoolConst):
                return None
            if isinstance(term, tm.BoolConst):
                value: Fraction | bool = term.value
            elif not term.is_const:
                return None
            else:
                value = term.const
            try:
                buf += _to_bytes(value, vt)
            except (OverflowError, ValueError):
                return None
            pos += vt.size
        offset = start - first
        return bytes(buf[offset : offset + size])

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
        n = threads.numel()
        width = max(lanes, 1)
        out = torch.zeros((n, width), dtype=ID_DTYPE)
        for r in self._resolve(threads, ptrs, vt, lanes, align, site, AccessKind.READ, elements):
            self._check(r, AccessKind.READ, vt.size * width, align, site, nc=nc)
            slots = r.base[:, None] + torch.arange(width)[None, :] * vt.size
            maybe = self.maybe_unwritten.get(r.region.id)
            if maybe is not None and bool(maybe[slots.reshape(-1)].any()):
                raise SymbolicUnsupported(
                    f"a read of {r.region.name}, written there only under a condition on input data"
                )
            got = self._read(r.region, slots.reshape(-1), vt).reshape(-1, width)
            if r.whole:
                return got
            out[r.sel] = got
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
        width = max(lanes, 1)
        ids = self.domain.lift(values, vt).reshape(-1, width)
        for r in self._resolve(threads, ptrs, vt, lanes, align, site, AccessKind.WRITE, elements):
            self._check(r, AccessKind.WRITE, vt.size * width, align, site)
            self.written.add(r.region.id)
            slots = r.base[:, None] + torch.arange(width)[None, :] * vt.size
            mine = ids if r.whole else ids[r.sel]
            if self.guard is not None:
                mine = self._guarded(r.region, slots, mine, self.guard[threads if r.whole else threads[r.sel]], vt)
            self._write(r.region, slots.reshape(-1), mine.reshape(-1), vt)
            if self.fences is not None and r.region.kind is RegionKind.GLOBAL:
                self.fences.overwritten(r.region, r.base)

    def _guarded(
        self, region: Region, slots: torch.Tensor, ids: torch.Tensor, guard: torch.Tensor, vt: ScalarType
    ) -> torch.Tensor:
        """``select(guard, ids, old)`` per element (``[m, width]``; ``guard`` per row): the values of a
        store that takes effect only where its thread's guard holds."""
        g = guard[:, None].expand_as(ids).reshape(-1)
        flat_slots = slots.reshape(-1)
        new = ids.reshape(-1).clone()
        conditional = g != TRUE_ID
        if not bool(conditional.any()):
            return ids
        old = self._read(region, flat_slots[conditional], vt)
        new[conditional] = self.domain.select(g[conditional], new[conditional], old)
        maybe = self.maybe_unwritten.get(region.id)
        if maybe is None:
            maybe = self.maybe_unwritten[region.id] = torch.zeros(self.codes[region.id].numel(), dtype=torch.bool)
        # maybe unwritten: the value still holds the unknown a never-written element stands for (the other
        # arm's store, under the negated condition, completes it); a store under a true guard clears it
        maybe[flat_slots[~conditional]] = False
        partial = {u: self._holds_undefined(u) for u in torch.unique(new[conditional]).tolist()}
        maybe[flat_slots[conditional]] = torch.tensor([partial[u] for u in new[conditional].tolist()], dtype=torch.bool)
        return new.reshape(ids.shape)

    def _holds_undefined(self, i: int) -> bool:
        if i == UNDEF:
            return True
        term = self.domain.table.peek(i)
        return term is not None and UNDEFINED in tm.tensors_of([term])

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
        """Atomics one after the other in thread order (the simulator's order); returns the old ids."""
        n = threads.numel()
        old = torch.zeros(n, dtype=ID_DTYPE)
        v_ids = self.domain.lift(values, vt).reshape(-1)
        c_ids = self.domain.lift(compare, vt).reshape(-1) if compare is not None else None
        kind = AccessKind.BLOCK_ATOMIC if scope is MemScope.BLOCK else AccessKind.ATOMIC
        for r in self._resolve(threads, ptrs, vt, 0, vt.size, site, kind, elements):
            self._check(r, kind, vt.size, vt.size, site)
            self.written.add(r.region.id)
            slots = r.base
            sel = r.sel
            sorted_slots, order = torch.sort(slots, stable=True)
            m = slots.numel()
            starts = torch.ones(m, dtype=torch.bool)
            starts[1:] = sorted_slots[1:] != sorted_slots[:-1]
            pos = torch.arange(m)
            group_start = torch.cummax(torch.where(starts, pos, torch.zeros_like(pos)), dim=0).values
            rank = torch.empty_like(pos)
            rank[order] = pos - group_start
            for k in range(int(rank.max()) + 1 if m else 0):
                pick = (rank == k).nonzero().squeeze(1)
                s = slots[pick]
                cur = self._read(r.region, s, vt)
                cmp = c_ids[sel[pick]] if c_ids is not None else None
                new = self.combine(op, vt, cur, v_ids[sel[pick]], cmp)
                self._write(r.region, s, new.to(ID_DTYPE), vt)
                old[sel[pick]] = cur
        return old


_NUMPY = {
    BOOL: np.bool_,
    I8: np.int8,
    I16: np.int16,
    I32: np.int32,
    I64: np.int64,
    U8: np.uint8,
    U16: np.uint16,
    U32: np.uint32,
    U64: np.uint64,
    F16: np.float16,
    F32: np.float32,
    F64: np.float64,
}


_FP8 = (F8E4M3, F8E5M2)


def _to_bytes(value: Fraction | bool, t: ScalarType) -> bytes:
    """The object representation of a constant of type ``t`` (bf16: the top half of the f32 bits)."""
    if t in _FP8:  # numpy has no fp8: torch converts, and the value must survive the round trip
        f = float(value)
        byte = torch.tensor([f], dtype=torch.float32).to(mem_dtype(t))
        if float(byte.float()[0]) != f:
            raise ValueError(f"{value} is not a {t} value")
        return bytes(byte.view(torch.uint8).tolist())
    if t.is_float:
        f = float(value)
        holder = np.float32 if t == BF16 else _NUMPY[t]
        arr: np.ndarray[Any, Any] = np.array([f], dtype=holder)
        if float(arr[0]) != f or (t == BF16 and int(arr.view(np.uint32)[0]) & 0xFFFF):
            raise ValueError(f"{value} is not a {t} value")
        return arr.tobytes()[2:4] if t == BF16 else arr.tobytes()
    if t.is_bool:
        return np.array([bool(value)], dtype=np.bool_).tobytes()
    if isinstance(value, Fraction) and value.denominator != 1:
        raise ValueError(f"{value} is not an integer")
    iv = int(value)
    info = np.iinfo(_NUMPY[t])
    if not info.min <= iv <= info.max:
        raise OverflowError(iv)
    return np.array([iv], dtype=_NUMPY[t]).tobytes()
