"""Run a phase form on concrete inputs: the meaning the Lean machine model gives a kernel.

Phase by phase, every thread (block-major, thread numbers linear in a block) runs its code of the
phase *sequentially* on the memory from before the phase plus its own writes, as
``Larkc.Phase.run`` does; the phase's writes are then merged, and two threads that conflict (one writes
bytes the other reads or writes; a location updated atomically and accessed plainly by another
thread) are reported as a race, and so are conflicts between blocks over the whole run (barriers do
not order blocks: ``Larkc.RaceFreeAcrossBlocksRun``; besides, a block-scoped atomic conflicts with an
atomic of another block to the same bytes, which the Lean model does not state: ``larkc emit`` rejects
block-scoped atomics on global memory). Atomics update memory at once, in thread order, and the phase
keeps their result. A warp exchange reads each lane's source value as it stood at the end of the
previous phase. Registers stay with their thread across phases (the Lean lowering keeps them in
``Loc.reg`` locations or recomputes them; that choice does not change values).

Scalar arithmetic is the simulator's (:mod:`larkc.semantics.numerics`), so on a kernel free of races
the results equal the simulator's bit for bit, up to the order of atomic floating-point additions:
the tests check that on every example, which is what ties the phase form to the IR's definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

import torch

from larkc.errors import SimulationError, Span, Stage, UnsupportedError
from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    Assign,
    Assume,
    Atomic,
    AtomicOp,
    Barrier,
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
    MemScope,
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
from larkc.ir.phases import Phase, PhaseForm, PhaseItem, PhaseLoop, const_int
from larkc.ir.types import BOOL, I64, AddressSpace, BlockType, PointerType, ScalarType, Type, VectorType, size_of
from larkc.semantics.interpreter import (
    SCAN_STEP,
    GlobalBuffer,
    KernelArg,
    combine_step,
    combine_values,
    param_register,
    precondition_violated,
    scan_values,
)
from larkc.semantics.memory import wrapping_step
from larkc.semantics.numerics import (
    UndefinedOps,
    apply_binary,
    apply_math,
    apply_unary,
    bitcast_value,
    convert_value,
    from_mem,
    mem_dtype,
    poison,
    reg_dtype,
    scalar_tensor,
    to_mem,
    wrap,
)

__all__ = ["PhaseRun", "run_phase_form"]

WARP = 32
Pointer = tuple[Any, int]  # (region key, byte offset)
# A block of pointers (block-level kernels) is (region key, byte offsets as a [1, *shape] int64 tensor).


@dataclass(slots=True)
class PhaseRun:
    """The outcome: final buffer contents by buffer name, and the races and errors found."""

    buffers: dict[str, torch.Tensor]
    races: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    phases_run: int = 0


class _Exit(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass(slots=True)
class _Thread:
    block: int
    tid: int
    coords: tuple[int, int, int, int, int, int]  # threadIdx xyz, blockIdx xyz
    env: dict[str, Any]
    exited: bool = False
    # per phase:
    overlay: dict[tuple[Any, int], int] = field(default_factory=dict)
    reads: set[tuple[Any, int]] = field(default_factory=set)
    atoms: set[tuple[Any, int]] = field(default_factory=set)
    block_atoms: set[tuple[Any, int]] = field(default_factory=set)  # the atoms updated by block-scoped atomics


def _elem(t: Type) -> ScalarType:
    match t:
        case ScalarType():
            return t
        case VectorType():
            return t.elem
        case PointerType():
            return I64
        case BlockType():
            return t.elem if isinstance(t.elem, ScalarType) else I64
        case _:
            raise AssertionError(t)


def _bytes_of(x: torch.Tensor) -> bytes:
    """The bytes of ``x``'s elements in order (a size-1 tensor may carry any stride: reset it first)."""
    y = x.reshape(-1)
    if y.numel() == 1:
        y = y.as_strided((1,), (1,))
    return bytes(y.contiguous().view(torch.uint8).numpy().tobytes())


class _Executor:
    def __init__(
        self,
        form: PhaseForm,
        grid: Sequence[int],
        block: Sequence[int],
        args: Mapping[str, KernelArg],
        shared_bytes: int = 0,
    ):
        self.form = form
        self.shared_bytes = shared_bytes
        #: per block, on global memory: bytes written, read, updated atomically, updated by block-scoped atomics
        self.block_footprint: dict[int, tuple[set[Any], set[Any], set[Any], set[Any]]] = {}
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.block = tuple(block) + (1,) * (3 - len(block))
        self.mem: dict[Any, bytearray] = {}
        self.out = PhaseRun({})
        self.names: dict[str, Any] = {}
        nb = self.grid[0] * self.grid[1] * self.grid[2]
        bs = self.block[0] * self.block[1] * self.block[2]
        self.threads: list[_Thread] = []
        params: dict[str, Any] = {}
        for p in form.kernel.params:
            v = args[p.name]
            if isinstance(v, GlobalBuffer):
                key = ("glob", v.name)
                if key not in self.mem:
                    self.mem[key] = bytearray(v.data.contiguous().view(torch.uint8).reshape(-1).numpy().tobytes())
                    self.names[v.name] = (key, v.data)
                params[p.name] = (key, 0)
            else:
                params[p.name] = param_register(p.name, p.type, v, {})
        for b in range(nb):
            bx, by, bz = b % self.grid[0], (b // self.grid[0]) % self.grid[1], b // (self.grid[0] * self.grid[1])
            for t in range(bs):
                tx, ty, tz = (
                    t % self.block[0],
                    (t // self.block[0]) % self.block[1],
                    t // (self.block[0] * self.block[1]),
                )
                self.threads.append(_Thread(b, t, (tx, ty, tz, bx, by, bz), dict(params)))

    # -- memory -----------------------------------------------------------------------------------------

    def region(self, key: Any, size: int) -> None:
        if key not in self.mem:
            self.mem[key] = bytearray(size)

    def _bytes(self, th: _Thread, ptr: Pointer, n: int, span: Span) -> bytes:
        key, off = ptr
        buf = self.mem.get(key)
        if buf is None or off < 0 or off + n > len(buf):
            raise SimulationError(f"out-of-bounds read of {n} bytes at offset {off} of {key}", span)
        out = bytearray(buf[off : off + n])
        for i in range(n):
            k = (key, off + i)
            th.reads.add(k)
            if k in th.overlay:
                out[i] = th.overlay[k]
        return bytes(out)

    def load(self, th: _Thread, ptr: Pointer, t: Type, span: Span) -> Any:
        if isinstance(t, PointerType):
            raise UnsupportedError("pointer load", str(t), span, stage=Stage.LOWER)
        el = _elem(t)
        n = size_of(t)
        raw = torch.frombuffer(bytearray(self._bytes(th, ptr, n, span)), dtype=mem_dtype(el))
        v = from_mem(raw.clone(), el)
        return v.reshape(1, -1) if isinstance(t, VectorType) else v.reshape(1)

    def store(self, th: _Thread, ptr: Pointer, t: Type, value: Any, span: Span) -> None:
        key, off = ptr
        el = _elem(t)
        raw = _bytes_of(to_mem(value.reshape(-1), el))
        buf = self.mem.get(key)
        if buf is None or off < 0 or off + len(raw) > len(buf):
            raise SimulationError(f"out-of-bounds write of {len(raw)} bytes at offset {off} of {key}", span)
        for i, byte in enumerate(raw):
            th.overlay[(key, off + i)] = byte

    # -- expressions ------------------------------------------------------------------------------------

    def eval(self, th: _Thread, e: Expr) -> Any:
        match e:
            case Const(value, t):
                return scalar_tensor(value, t)
            case VarRef(name):
                if name not in th.env:
                    raise SimulationError(f"variable {name} read before it is set", e.span)
                return th.env[name]
            case Builtin(reg, dim):
                k = dim.index
                match reg:
                    case BuiltinReg.THREAD_IDX:
                        v = th.coords[k]
                    case BuiltinReg.BLOCK_IDX:
                        v = th.coords[3 + k]
                    case BuiltinReg.BLOCK_DIM:
                        v = self.block[k]
                    case BuiltinReg.GRID_DIM:
                        v = self.grid[k]
                    case _:
                        assert_never(reg)
                return scalar_tensor(v, e.type)
            case Unary(op, operand):
                return apply_unary(op, self.eval(th, operand), _elem(e.type))
            case Binary(op, lhs, rhs):
                a, b = self.eval(th, lhs), self.eval(th, rhs)
                if isinstance(a, tuple) or isinstance(b, tuple):
                    return self._ptr_compare(op, a, b, e.span)
                ub = UndefinedOps(torch.ones(1, dtype=torch.bool))
                return apply_binary(op, a, b, _elem(lhs.type), ub)
            case Select(c, x, y) if isinstance(e.type, BlockType):
                if isinstance(e.type.elem, PointerType):
                    raise UnsupportedError("select of pointers", str(e.type), e.span, stage=Stage.LOWER)
                cv, xv, yv = self.eval(th, c), self.eval(th, x), self.eval(th, y)
                if cv.dim() < xv.dim():
                    cv = cv.view(cv.shape[0], *([1] * (xv.dim() - 1)))
                return torch.where(cv, xv, yv)
            case Select(c, x, y):
                cv = self.eval(th, c)
                if cv.numel() > 1:  # scalar code of a combine function, run on whole slices of blocks
                    return torch.where(cv, self.eval(th, x), self.eval(th, y))
                return self.eval(th, x) if bool(cv.reshape(-1)[0]) else self.eval(th, y)
            case Cast(operand=operand, kind=kind):
                v = self.eval(th, operand)
                src, dst = operand.type, e.type
                if isinstance(src, PointerType) or isinstance(dst, PointerType):
                    if isinstance(v, tuple) and isinstance(dst, PointerType):
                        return v
                    raise UnsupportedError("pointer conversion", f"{src} to {dst}", e.span, stage=Stage.LOWER)
                if kind is CastKind.CONVERT:
                    return convert_value(v, _elem(src), _elem(dst))
                if isinstance(src, BlockType) or isinstance(dst, BlockType):
                    return from_mem(to_mem(v, _elem(src)).contiguous().view(mem_dtype(_elem(dst))), _elem(dst))
                s_l = src.lanes if isinstance(src, VectorType) else 0
                d_l = dst.lanes if isinstance(dst, VectorType) else 0
                return bitcast_value(v, _elem(src), s_l, _elem(dst), d_l)
            case MathCall(fn, args):
                vals = [self.eval(th, a) for a in args]
                return apply_math(fn, vals, _elem(args[0].type))
            case PtrAdd(base, offset):
                p = self.eval(th, base)
                size = size_of(_pointee(base.type))
                off_v = self.eval(th, offset)
                if isinstance(base.type, BlockType) or isinstance(offset.type, BlockType):
                    return (p[0], p[1] + off_v.to(torch.int64) * size)
                return (p[0], p[1] + int(off_v.reshape(-1)[0]) * size)
            case Extract(vector, index):
                v = self.eval(th, vector)
                return v[:, int(self.eval(th, index).reshape(-1)[0])]
            case Insert(vector, index, value):
                v = self.eval(th, vector).clone()
                v[:, int(self.eval(th, index).reshape(-1)[0])] = self.eval(th, value).reshape(-1)[0]
                return v
            case MakeVector(elems):
                return torch.stack([self.eval(th, x).reshape(1) for x in elems], dim=-1)
            case Arange(start, end):
                return torch.arange(start, end, dtype=torch.int64)[None, :]
            case Splat(operand, t):
                v = self.eval(th, operand)
                return _on_block(v, lambda x: x.reshape(1, *([1] * len(t.shape))).expand(1, *t.shape))
            case Broadcast(operand, t):
                return _on_block(self.eval(th, operand), lambda x: x.expand(1, *t.shape))
            case Reshape(operand, t):
                return _on_block(self.eval(th, operand), lambda x: x.reshape(1, *t.shape))
            case Reduce(op, operand, axis):
                return _reduce(op, self.eval(th, operand), axis + 1, _elem(operand.type))
            case Permute(operand, perm):
                return self.eval(th, operand).permute(0, *(p + 1 for p in perm))
            case Scan(op, operand, axis, reverse):
                step, elem_t = SCAN_STEP[op], _elem(e.type)
                ub = UndefinedOps(torch.ones(1, dtype=torch.bool))
                return scan_values(
                    self.eval(th, operand), axis + 1, reverse, lambda a, x: apply_binary(step, a, x, elem_t, ub)
                )
            case Combine(func=func, args=args):
                f = self.form.combiners[func]
                values = [self.eval(th, a) for a in args]
                return combine_values(e, f, values, lambda a, x: self.combine_step(th, f, a, x))
            case Dot(lhs, rhs, acc, t):
                return self.dot(th, lhs, rhs, acc, t)
            case _:
                raise UnsupportedError("expression", type(e).__name__, e.span, stage=Stage.LOWER)

    def combine_step(self, th: _Thread, f: Function, acc: list[torch.Tensor], xs: list[torch.Tensor]) -> list[Any]:
        """``f(acc, xs)``: the straight-line body of a combine function on whole slices."""

        def evaluate(e: Expr, env: dict[str, torch.Tensor]) -> torch.Tensor:
            frame = _Thread(th.block, th.tid, th.coords, dict(env))
            out: torch.Tensor = self.eval(frame, e)
            return out

        return combine_step(f, acc, xs, evaluate)

    def dot(self, th: _Thread, lhs: Expr, rhs: Expr, acc: Expr | None, t: BlockType) -> torch.Tensor:
        out_t = _elem(t)
        src_t = _elem(lhs.type)
        a = convert_value(self.eval(th, lhs), src_t, out_t)
        b = convert_value(self.eval(th, rhs), src_t, out_t)
        if out_t.is_int:
            prod = wrap((a[..., :, :, None] * b[..., None, :, :]).sum(dim=-2), out_t)
        else:
            prod = torch.matmul(a, b)
        if acc is None:
            return prod
        ub = UndefinedOps(torch.ones(1, dtype=torch.bool))
        return apply_binary(BinaryOp.ADD, prod, self.eval(th, acc), out_t, ub)

    @staticmethod
    def _ptr_compare(op: BinaryOp, a: Any, b: Any, span: Span) -> torch.Tensor:
        if not (isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0]):
            raise UnsupportedError("pointer comparison", op.value, span, stage=Stage.LOWER)
        r = {BinaryOp.EQ: a[1] == b[1], BinaryOp.NE: a[1] != b[1], BinaryOp.LT: a[1] < b[1]}.get(op)
        if r is None:
            raise UnsupportedError("pointer comparison", op.value, span, stage=Stage.LOWER)
        return torch.tensor([r])

    def truth(self, th: _Thread, e: Expr) -> bool:
        return bool(self.eval(th, e).reshape(-1)[0])

    # -- statements -------------------------------------------------------------------------------------

    def stmts(self, th: _Thread, stmts: Sequence[Stmt]) -> None:
        for s in stmts:
            self.stmt(th, s)

    def stmt(self, th: _Thread, s: Stmt) -> None:
        match s:
            case Decl(name, t, init):
                if init is not None:
                    th.env[name] = self.eval(th, init)
                elif isinstance(t, ScalarType | VectorType):
                    # an uninitialised variable holds the simulator's poison value until it is set
                    th.env[name] = poison(_elem(t), (1, t.lanes) if isinstance(t, VectorType) else (1,))
                elif isinstance(t, BlockType) and isinstance(t.elem, ScalarType):
                    th.env[name] = poison(t.elem, (1, *t.shape))
            case Assign(name, value):
                th.env[name] = self.eval(th, value)
            case Alloc(name, elem, count, space):
                n = size_of(elem) * count if count is not None else self.shared_bytes
                # every extern __shared__ array starts at the same address, as in CUDA
                shared_name = name if count is not None else "<dynamic>"
                key = (
                    ("shr", th.block, shared_name) if space is AddressSpace.SHARED else ("lcl", th.block, th.tid, name)
                )
                self.region(key, n)
                th.env[name] = (key, 0)
            case Load(dst, ptr, mask) if isinstance(ptr.type, BlockType) or mask is not None:
                th.env[dst] = self.masked_load(th, s)
            case Load(dst, ptr):
                assert isinstance(ptr.type, PointerType)
                th.env[dst] = self.load(th, self.eval(th, ptr), ptr.type.pointee, s.span)
            case Store(ptr, value, mask) if isinstance(ptr.type, BlockType) or mask is not None:
                self.masked_store(th, s)
            case Store(ptr, value):
                assert isinstance(ptr.type, PointerType)
                self.store(th, self.eval(th, ptr), ptr.type.pointee, self.eval(th, value), s.span)
            case If(c, t, e):
                self.stmts(th, t if self.truth(th, c) else e)
            case For(init, cond, step, body):
                self.stmts(th, init)
                n = 0
                while cond is None or self.truth(th, cond):
                    n += 1
                    if n > 1_000_000:
                        raise SimulationError("loop runs past 1000000 iterations", s.span)
                    try:
                        self.stmts(th, body)
                    except _Break:
                        break
                    except _Continue:
                        pass
                    self.stmts(th, step)
            case While(c, body):
                while self.truth(th, c):
                    try:
                        self.stmts(th, body)
                    except _Break:
                        break
                    except _Continue:
                        pass
            case DoWhile(body, c):
                while True:
                    try:
                        self.stmts(th, body)
                    except _Break:
                        break
                    except _Continue:
                        pass
                    if not self.truth(th, c):
                        break
            case Break():
                raise _Break
            case Continue():
                raise _Continue
            case Return():
                raise _Exit
            case Fence():
                pass
            case Assert(c):
                if not self.truth(th, c):
                    self.out.errors.append(
                        f"{s.span.location()}: assertion fails in thread {th.tid} of block {th.block}"
                    )
            case Assume(c):
                if not self.truth(th, c):
                    raise precondition_violated(s, f"thread {th.tid} of block {th.block}")
            case Atomic():
                self.atomic(th, s)
            case Barrier() | Shuffle() | Vote() | Call():
                raise AssertionError(f"{type(s).__name__} inside a phase's code")
            case _:
                assert_never(s)

    def lanes(self, th: _Thread, ptr: Expr, mask: Expr | None) -> tuple[Any, list[int], list[bool], tuple[int, ...]]:
        """A (block of) pointers as its region, the byte offset of every element in row-major order, the
        elements the mask enables, and the block's shape (``()`` for a scalar pointer)."""
        key, offs = self.eval(th, ptr)
        shape = ptr.type.shape if isinstance(ptr.type, BlockType) else ()
        flat = [int(x) for x in offs.reshape(-1)] if shape else [int(offs)]
        if mask is None:
            on = [True] * len(flat)
        else:
            m = self.eval(th, mask)
            on = [bool(x) for x in m.expand(1, *shape).reshape(-1)] if shape else [bool(m.reshape(-1)[0])]
        return key, flat, on, shape

    def masked_load(self, th: _Thread, s: Load) -> torch.Tensor:
        """A load through a block of pointers, or with a mask: masked-off elements take ``other`` (the
        simulator's poison value without one) and touch no memory."""
        el = _elem(_pointee(s.ptr.type))
        n = size_of(el)
        key, flat, on, shape = self.lanes(th, s.ptr, s.mask)
        out_shape = (1, *shape)
        fill: torch.Tensor
        if s.other is not None:
            fill = self.eval(th, s.other).to(reg_dtype(el)).expand(out_shape).reshape(-1).clone()
        else:
            fill = poison(el, out_shape).reshape(-1).clone()
        for j, off in enumerate(flat):
            if on[j]:
                raw = torch.frombuffer(bytearray(self._bytes(th, (key, off), n, s.span)), dtype=mem_dtype(el))
                fill[j] = from_mem(raw.clone(), el)[0]
        return fill.reshape(out_shape)

    def masked_store(self, th: _Thread, s: Store) -> None:
        """A store through a block of pointers, or with a mask: only the enabled elements are written,
        in row-major order."""
        el = _elem(_pointee(s.ptr.type))
        key, flat, on, shape = self.lanes(th, s.ptr, s.mask)
        value = self.eval(th, s.value).expand(1, *shape).reshape(-1)
        for j, off in enumerate(flat):
            if on[j]:
                self.store(th, (key, off), el, value[j : j + 1], s.span)

    def atomic(self, th: _Thread, s: Atomic) -> None:
        el = _elem(_pointee(s.ptr.type))
        key, flat, on, shape = self.lanes(th, s.ptr, s.mask)
        value = self.eval(th, s.value).expand(1, *shape).reshape(-1)
        compare = self.eval(th, s.compare).expand(1, *shape).reshape(-1) if s.compare is not None else None
        olds = poison(el, (len(flat),))
        for j, off in enumerate(flat):
            if on[j]:
                cmp = compare[j : j + 1] if compare is not None else None
                olds[j] = self.atomic_at(th, s, key, off, el, value[j : j + 1], cmp)[0]
        if s.dst is not None:
            th.env[s.dst] = olds.reshape(1, *shape) if shape else olds

    def atomic_at(
        self, th: _Thread, s: Atomic, key: Any, off: int, el: ScalarType, v: torch.Tensor, cmp: torch.Tensor | None
    ) -> torch.Tensor:
        """One element's atomic update at byte ``off`` of region ``key``; the old value."""
        n = size_of(el)
        buf = self.mem[key]
        if off < 0 or off + n > len(buf):
            raise SimulationError(f"out-of-bounds atomic at offset {off} of {key}", s.span)
        old = from_mem(torch.frombuffer(bytearray(buf[off : off + n]), dtype=mem_dtype(el)).clone(), el).reshape(1)
        ub = UndefinedOps(torch.ones(1, dtype=torch.bool))
        match s.op:
            case AtomicOp.ADD:
                new = apply_binary(BinaryOp.ADD, old, v, el, ub)
            case AtomicOp.SUB:
                new = apply_binary(BinaryOp.SUB, old, v, el, ub)
            case AtomicOp.MIN:
                new = apply_binary(BinaryOp.MIN, old, v, el, ub)
            case AtomicOp.MAX:
                new = apply_binary(BinaryOp.MAX, old, v, el, ub)
            case AtomicOp.EXCH:
                new = v
            case AtomicOp.AND:
                new = apply_binary(BinaryOp.BITAND, old, v, el, ub)
            case AtomicOp.OR:
                new = apply_binary(BinaryOp.BITOR, old, v, el, ub)
            case AtomicOp.XOR:
                new = apply_binary(BinaryOp.BITXOR, old, v, el, ub)
            case AtomicOp.CAS:
                assert cmp is not None
                new = v if bool((old == cmp).all()) else old
            case AtomicOp.INC | AtomicOp.DEC:
                new = wrapping_step(s.op, old, v, el)
            case _:
                assert_never(s.op)
        buf[off : off + n] = _bytes_of(to_mem(new.reshape(-1), el))
        for i in range(n):
            th.atoms.add((key, off + i))
            if s.scope is MemScope.BLOCK:
                th.block_atoms.add((key, off + i))
        return old

    # -- phases -----------------------------------------------------------------------------------------

    def items(self, items: Sequence[PhaseItem]) -> None:
        for it in items:
            if isinstance(it, Phase):
                self.phase(it)
            else:
                self.loop(it)

    def loop(self, lp: PhaseLoop) -> None:
        th0 = next((t for t in self.threads if not t.exited), None)
        if th0 is None:
            return
        i = int(self.eval(th0, lp.start).reshape(-1)[0])
        bound = int(self.eval(th0, lp.bound).reshape(-1)[0])
        while bool(const_int(Binary(lp.cmp, Const(i, I64), Const(bound, I64), BOOL), {})):
            for th in self.threads:
                th.env[lp.var] = scalar_tensor(i, lp.type)
            self.items(lp.body)
            i = i >> 1 if lp.halving else i + lp.step

    def phase(self, ph: Phase) -> None:
        self.out.phases_run += 1
        if ph.exchange is not None:
            self.exchange(ph)
            return
        for th in self.threads:
            th.overlay, th.reads, th.atoms, th.block_atoms = {}, set(), set(), set()
            if th.exited:
                continue
            try:
                for piece in ph.pieces:
                    if all(self.truth(th, g) for g in piece.guards):
                        self.stmts(th, piece.stmts)
            except _Exit:
                th.exited = True
        self.merge(ph)

    def merge(self, ph: Phase) -> None:
        for th in self.threads:
            # the run-long footprint of each block on global memory (barriers do not order blocks)
            fp = self.block_footprint.setdefault(th.block, (set(), set(), set(), set()))
            fp[0].update(k for k in th.overlay if k[0][0] == "glob")
            fp[1].update(k for k in th.reads if k[0][0] == "glob")
            fp[2].update(k for k in th.atoms if k[0][0] == "glob")
            fp[3].update(k for k in th.block_atoms if k[0][0] == "glob")
        writer: dict[tuple[Any, int], _Thread] = {}
        for th in self.threads:
            for k in th.overlay:
                other = writer.get(k)
                if other is not None and other is not th:
                    self._race(ph, k, other, th, "both write")
                writer[k] = th
        for th in self.threads:
            for k in th.reads:
                w = writer.get(k)
                if w is not None and w is not th:
                    self._race(ph, k, w, th, "one writes what the other reads")
            for k in th.atoms:
                w = writer.get(k)
                if w is not None and w is not th:
                    self._race(ph, k, w, th, "one writes what the other updates atomically")
        atoms: dict[tuple[Any, int], _Thread] = {k: th for th in self.threads for k in th.atoms}
        for th in self.threads:
            for k in th.reads:
                a = atoms.get(k)
                if a is not None and a is not th:
                    self._race(ph, k, a, th, "one reads what the other updates atomically")
        for th in self.threads:
            for (key, i), byte in th.overlay.items():
                self.mem[key][i] = byte

    def _race(self, ph: Phase, k: tuple[Any, int], a: _Thread, b: _Thread, why: str) -> None:
        if len(self.out.races) < 20:
            self.out.races.append(
                f"phase {ph.index} (ends {ph.span.location()}): threads {a.tid} of block {a.block} and "
                f"{b.tid} of block {b.block}: {why} byte {k[1]} of {k[0]}"
            )

    def exchange(self, ph: Phase) -> None:
        ex = ph.exchange
        assert ex is not None
        s = ex.stmt
        bs = self.block[0] * self.block[1] * self.block[2]
        active = [(not th.exited) and all(self.truth(th, g) for g in ex.guards) for th in self.threads]
        results: dict[int, Any] = {}
        for n, th in enumerate(self.threads):
            if not active[n]:
                continue
            lane = th.tid % WARP
            base = n - lane
            if isinstance(s, Shuffle):
                b = int(self.eval(th, s.lane).reshape(-1)[0]) & 31
                w = int(self.eval(th, s.width).reshape(-1)[0])
                segmask = (WARP - w) & 31
                min_lane = lane & segmask
                max_lane = min_lane | (31 & ~segmask)
                match s.kind:
                    case ShuffleKind.UP:
                        j, ok = lane - b, lane - b >= min_lane
                    case ShuffleKind.DOWN:
                        j, ok = lane + b, lane + b <= max_lane
                    case ShuffleKind.XOR:
                        j, ok = lane ^ b, (lane ^ b) <= max_lane
                    case ShuffleKind.IDX:
                        j = min_lane | (b & ~segmask & 31)
                        ok = j <= max_lane
                    case _:
                        assert_never(s.kind)
                if not ok:
                    j = lane
                src = base + j
                if (th.tid - lane + j) >= bs or not active[src]:
                    self.out.errors.append(f"{s.span.location()}: shuffle reads lane {j}, which does not take part")
                    src = n
                results[n] = self.eval(self.threads[src], s.value)
            else:
                m = int(self.eval(th, s.mask).reshape(-1)[0])
                lanes = [
                    base + j for j in range(WARP) if (m >> j) & 1 and (th.tid - lane + j) < bs and active[base + j]
                ]
                preds = {q: self.truth(self.threads[q], s.pred) for q in lanes}
                match s.kind:
                    case VoteKind.BALLOT:
                        r = sum(1 << (q - base) for q, p in preds.items() if p)
                    case VoteKind.ANY:
                        r = int(any(preds.values()))
                    case VoteKind.ALL:
                        r = int(all(preds.values()))
                    case _:
                        assert_never(s.kind)
                results[n] = torch.tensor([r], dtype=torch.int64)
        for n, v in results.items():
            self.threads[n].env[s.dst] = v

    def across_blocks(self) -> None:
        """Conflicts between blocks over the whole run, as ``Larkc.RaceFreeAcrossBlocksRun`` states them."""
        owner: dict[tuple[Any, int], int] = {}
        for b, (writes, _, _, _) in sorted(self.block_footprint.items()):
            for k in writes:
                if owner.setdefault(k, b) != b:
                    self._block_race(k, owner[k], b, "both write")
        for b, (_, reads, atoms, _) in sorted(self.block_footprint.items()):
            for k in sorted(reads | atoms, key=repr):
                w = owner.get(k)
                if w is not None and w != b:
                    self._block_race(k, w, b, "one writes what the other reads or updates atomically")
        atom_owner: dict[tuple[Any, int], int] = {}
        for b, (_, _, atoms, _) in sorted(self.block_footprint.items()):
            for k in atoms:
                atom_owner.setdefault(k, b)
        for b, (_, reads, _, _) in sorted(self.block_footprint.items()):
            for k in reads:
                a = atom_owner.get(k)
                if a is not None and a != b:
                    self._block_race(k, a, b, "one reads what the other updates atomically")
        # A block-scoped atomic is atomic only towards its own block: with another block's atomic, a race.
        atom_blocks: dict[tuple[Any, int], set[int]] = {}
        for b, (_, _, atoms, _) in sorted(self.block_footprint.items()):
            for k in atoms:
                atom_blocks.setdefault(k, set()).add(b)
        for b, (_, _, _, block_atoms) in sorted(self.block_footprint.items()):
            for k in sorted(block_atoms, key=repr):
                others = atom_blocks[k] - {b}
                if others:
                    why = "one updates with a block-scoped atomic what the other updates atomically"
                    self._block_race(k, min(others), b, why)

    def _block_race(self, k: tuple[Any, int], a: int, b: int, why: str) -> None:
        if len(self.out.races) < 20:
            self.out.races.append(f"blocks {a} and {b} (over the whole run): {why} byte {k[1]} of {k[0]}")

    def run(self) -> PhaseRun:
        self.items(self.form.items)
        self.across_blocks()
        for name, (key, like) in self.names.items():
            data = torch.frombuffer(bytearray(self.mem[key]), dtype=torch.uint8).clone()
            self.out.buffers[name] = data.view(like.dtype).reshape(like.shape)
        return self.out


def _pointee(t: Type) -> Type:
    """What a pointer, or a block of pointers, points to."""
    if isinstance(t, BlockType):
        t = t.elem
    assert isinstance(t, PointerType), t
    return t.pointee


def _on_block(v: Any, fn: Any) -> Any:
    """``fn`` applied to a block value, or to the offsets of a (block of) pointers."""
    if isinstance(v, tuple):
        key, off = v
        offs = off if isinstance(off, torch.Tensor) else torch.tensor([off], dtype=torch.int64)
        return (key, fn(offs))
    return fn(v)


#: The torch reduction of each ``reduce.<op>``, as the simulator computes it (integer results wrap).
_REDUCERS: Mapping[ReduceOp, Any] = {
    ReduceOp.SUM: torch.sum,
    ReduceOp.PROD: torch.prod,
    ReduceOp.MAX: torch.amax,
    ReduceOp.MIN: torch.amin,
}


def _reduce(op: ReduceOp, v: torch.Tensor, dim: int, t: ScalarType) -> torch.Tensor:
    """``reduce.<op>`` of ``v`` along ``dim``."""
    r: torch.Tensor = _REDUCERS[op](v, dim=dim)
    return wrap(r, t) if t.is_int and op in (ReduceOp.SUM, ReduceOp.PROD) else r


def run_phase_form(
    form: PhaseForm,
    grid: Sequence[int],
    block: Sequence[int],
    args: Mapping[str, KernelArg],
    shared_bytes: int = 0,
) -> PhaseRun:
    """Run ``form`` on a launch of ``grid`` x ``block`` with ``args`` (parameter name to buffer or scalar)
    and ``shared_bytes`` of dynamic shared memory per block.

    Out-of-bounds accesses raise :class:`~larkc.errors.SimulationError`; races are listed in the result.
    """
    return _Executor(form, grid, block, args, shared_bytes).run()
