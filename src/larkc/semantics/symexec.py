"""Symbolic execution: the simulator's statement interpreter over exact terms.

:func:`execute_symbolic` runs one launch of a kernel with every input element a real symbol
(``elem("x", i)``) and returns, for every buffer, the exact term of every element after the launch,
together with the diagnoses of the simulator's checks on the same accesses. It is the simulator
(:class:`~larkc.semantics.interpreter.Interpreter`) with a second value domain
(:mod:`larkc.semantics.symvalues`): statements, control flow, barriers, warps and the memory checks are
the simulator's own code, so ``larkc run`` and ``larkc verify`` cannot disagree about what a statement
means; only the expression rules and the contents of memory differ.

What one run establishes, for the shape instance and launch it ran:

* **Outputs** as terms over the inputs. Floating-point arithmetic is exact (rounding and casts between
  float formats vanish); an output term is the kernel's value for every input.
* **Safety.** When control flow and addresses never depended on input data (the common case: they are
  concrete in every lane), the accesses of this run are the accesses of every run of this launch, so the
  checks' silence is a proof of bounds, race freedom, barrier uniformity and initialised reads for the
  instance. ``data_dependent`` lists where that was not so: a branch on data is *if-converted* (both arms
  run for the lanes whose condition is symbolic, values merge with ``select``, and a store in an arm is
  guarded: the element becomes ``select(condition, stored, old)``; arms with atomics, barriers, warp
  exchanges, loops or control transfers are not allowed), and a load through an address computed from an
  index tensor reads ``Read(tensor, index)`` with its bounds checked over the declared value range.
  Accesses are then over-approximated, so a clean run still proves safety, but a diagnosis needs
  confirmation on concrete inputs.
* Whatever the domain cannot model stops the run with :class:`SymbolicUnsupported` (the reason and the
  source span), or, where a value need not be known to continue, makes that value *opaque*.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, assert_never

import torch

from larkc.errors import LimitExceeded, Span
from larkc.ir.nodes import (
    Alloc,
    Assert,
    Assume,
    Atomic,
    AtomicOp,
    Barrier,
    Binary,
    BinaryOp,
    Break,
    Call,
    Cast,
    CastKind,
    Const,
    Continue,
    Dot,
    DoWhile,
    Expr,
    Fence,
    For,
    Function,
    If,
    Load,
    MakeVector,
    MathCall,
    Module,
    PtrAdd,
    Reduce,
    ReduceOp,
    Return,
    Select,
    Shuffle,
    Stmt,
    Store,
    Unary,
    UnaryOp,
    Vote,
    While,
)
from larkc.ir.types import BOOL, I64, U64, PointerType, ScalarType, Type, size_of
from larkc.ir.walk import walk_stmts
from larkc.semantics.diagnostics import Diagnosis
from larkc.semantics.geometry import LaunchConfig
from larkc.semantics.interpreter import (
    GlobalBuffer,
    Interpreter,
    KernelArg,
    SimLimits,
    _elem,
    _evaluated_operands,
    _Frame,
    _is_pointer,
    _pointer_of,
    _trailing,
    bind_arguments,
    kernel_of,
)
from larkc.semantics.memory import REGION_SHIFT, RegionKind, wrapping_step
from larkc.semantics.numerics import UndefinedOps, apply_binary, convert_value, mem_dtype, wrap
from larkc.semantics.symmemory import SymbolicMemory
from larkc.semantics.symvalues import (
    FALSE_ID,
    ID_DTYPE,
    NAN,
    NEG_INF,
    OPAQUE,
    POS_INF,
    TRUE_ID,
    UNDEF,
    NumericNote,
    SymbolicDomain,
    SymbolicUnsupported,
    is_sym,
)
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import RangeCondition
from larkc.symbolic.terms import Poly, Term

__all__ = [
    "OutputValue",
    "SymbolicArg",
    "SymbolicBuffer",
    "SymbolicRun",
    "SymbolicUnsupported",
    "execute_symbolic",
]


#: An element of a buffer after the run: its exact term, or one of ``"undef"``, ``"+inf"``, ``"-inf"``,
#: ``"nan"``.
OutputValue = Term | str


@dataclass(frozen=True, slots=True)
class SymbolicBuffer:
    """A kernel buffer of a symbolic run: its tensor name, shape, element type and initial contents.

    ``init``: ``"input"`` (element ``i`` is the symbol ``elem(name, i)``), ``"zeros"``, ``"empty"``
    (never written: reading it is ``uninit``, an element never written holds :data:`UNDEF`), or
    ``"terms"``: element ``i`` is ``terms[i]``, what an earlier launch left there (``"undef"`` where it is
    still unwritten: reading it is ``uninit``).
    """

    name: str
    shape: tuple[int, ...]
    dtype: ScalarType
    init: Literal["input", "zeros", "empty", "terms"]
    terms: tuple[OutputValue, ...] = ()


#: A kernel argument of a symbolic run: a buffer, or a scalar (floats are read exactly: a Fraction or
#: the exact binary value of a float).
SymbolicArg = SymbolicBuffer | bool | int | float | Fraction

_SPECIAL_TEXT = {UNDEF: "undef", POS_INF: "+inf", NEG_INF: "-inf", NAN: "nan"}
_SPECIAL_ID = {text: i for i, text in _SPECIAL_TEXT.items()}


@dataclass(frozen=True, slots=True)
class SymbolicRun:
    """The outcome of :func:`execute_symbolic` (see the module docstring).

    ``buffers`` maps every buffer name to its elements (row-major) after the launch, or is empty when the
    run stopped at ``unsupported``. ``data_dependent`` and ``opaque`` map a reason to the span where it
    first happened; ``notes`` are the float-specific readings the verdict lists. ``unknowns`` counts the
    fresh unknown values (opaque or undefined) the run made: when it is 0 no term of the run holds one.
    """

    launch: LaunchConfig
    diagnoses: tuple[Diagnosis, ...]
    buffers: dict[str, tuple[OutputValue, ...]]
    unsupported: SymbolicUnsupported | None
    data_dependent: dict[str, Span | None]
    opaque: dict[str, Span | None]
    notes: tuple[NumericNote, ...]
    aborted: bool
    threads: int
    statements: int
    terms: int
    seconds: float
    unknowns: int = 0
    written: frozenset[str] = frozenset()  # the buffers stored to or updated atomically
    #: operations on data defined only for part of the inputs (float-to-integer conversions, signed
    #: overflow): what the ``defined`` obligation must prove beyond the simulator's own checks
    range_conditions: tuple[RangeCondition, ...] = ()

    @property
    def control_concrete(self) -> bool:
        """Whether control flow and addresses were concrete in every lane (exhaustive safety checks)."""
        return not self.data_dependent


class _Step(enum.Enum):
    """What :meth:`_Interp._eval` does with an expression popped from its stack."""

    OPEN = "open"  # evaluate its operands (a ternary's arms under their conditions), then it
    THEN = "then"  # a ternary's condition is evaluated: its first arm starts
    ELSE = "else"  # its first arm is evaluated: the second starts
    LEAVE = "leave"  # both arms are evaluated
    APPLY = "apply"  # its operands are evaluated: compute it


class _Interp(Interpreter):
    """The simulator's interpreter over the symbolic value domain."""

    def __init__(
        self, module: Module, kernel: Function, launch: LaunchConfig, limits: SimLimits, domain: SymbolicDomain
    ) -> None:
        super().__init__(module, kernel, launch, limits)
        self.dom = domain
        self.smem = SymbolicMemory(self.space, self.log, self.sites, domain, self._atomic_combine)
        self.smem.track_non_coherent = self.mem.track_non_coherent
        self.mem = self.smem
        self.data_dependent: dict[str, Span | None] = {}
        self.symbolic_reads: dict[int, Span] = {}  # region id -> first data-dependent read
        self.derived: set[int] = set()  # regions that start with an earlier launch's terms
        self._pure_cache: dict[int, bool] = {}
        #: the indices of the opaque values that stand for what atomics returned (:meth:`_atomic`)
        self._schedule_values: set[int] = set()
        self.deadline = math.inf  # perf_counter time after which the run stops (a budget)
        self.max_terms = 1 << 30  # distinct terms after which the run stops (a budget)
        # the narrowest float type of the task's tensors: a conversion of data to a narrower one rounds
        # below the reference's precision, which exact arithmetic cannot stand for
        self.narrowest_float: ScalarType | None = None
        #: the conditions of the ternary arms being evaluated, innermost last (truth ids; see :meth:`_eval`)
        self._arm_guards: list[torch.Tensor | None] = []

    # -- registers -------------------------------------------------------------------------------------

    def _poison(self, t: Type) -> torch.Tensor:
        if not isinstance(t, PointerType) and _elem(t).is_float:
            v = self._poisons.get(t)
            if v is None:
                trailing = _trailing(t)
                v = torch.zeros((1, *trailing), dtype=ID_DTYPE).expand(self.n, *trailing)
                self._poisons[t] = v
            return v
        return super()._poison(t)

    def _lift(self, v: torch.Tensor, t: Type) -> torch.Tensor:
        """``v`` as ids, read as values of ``t`` (a scalar, vector, block or pointer type)."""
        if is_sym(v):
            return v
        st = I64 if _is_pointer(t) else _elem(t)
        if st == U64 and bool((v < 0).any()):
            raise SymbolicUnsupported("a 64-bit unsigned value of 2^63 or more mixed with data-dependent values")
        return self.dom.lift(v, st)

    def _as_reg(self, value: torch.Tensor, like: torch.Tensor, t: Type) -> torch.Tensor:
        if is_sym(value) or is_sym(like):
            return value
        return value.to(like.dtype)

    def _where(self, cond: torch.Tensor, a: torch.Tensor, b: torch.Tensor, t: Type) -> torch.Tensor:
        if is_sym(a) or is_sym(b):
            return torch.where(cond, self._lift(a, t), self._lift(b, t))
        return torch.where(cond, a, b)

    def _scatter(self, flat: torch.Tensor, on: torch.Tensor, values: torch.Tensor, t: Type) -> torch.Tensor:
        if is_sym(flat) or is_sym(values):
            new = self._lift(flat, t).clone()
            new[on] = self._lift(values, t)
            return new
        return super()._scatter(flat, on, values, t)

    def _assign_rows(self, frame: _Frame, name: str, idx: torch.Tensor, rows: torch.Tensor, mask: torch.Tensor) -> None:
        t = frame.types[name]
        if mask is self.full:
            frame.vars[name] = rows if is_sym(rows) else self._lift(rows, t)
            return
        old = frame.vars.get(name)
        base = self._poison(t) if old is None else old
        new = self._lift(base, t).clone()
        new[idx] = self._lift(rows, t)
        frame.vars[name] = new

    def param_value(self, name: str, t: Type, value: KernelArg, pointers: Mapping[str, int]) -> torch.Tensor:
        if isinstance(t, ScalarType) and t.is_float and not isinstance(value, GlobalBuffer):
            return torch.tensor([self.dom.id(tm.const(Fraction(float(value))))], dtype=ID_DTYPE)
        return super().param_value(name, t, value, pointers)

    def _concrete(self, v: torch.Tensor, what: str, span: Span, active: torch.Tensor | None) -> torch.Tensor:
        if not is_sym(v):
            return v
        c = self._concrete_on(v, active)
        if c is not None:
            return c
        raise SymbolicUnsupported(f"the {what} depends on input data", span)

    def _concrete_on(self, v: torch.Tensor, active: torch.Tensor | None) -> torch.Tensor | None:
        """``v`` (ids) as concrete truth values or integers where ``active`` holds; inactive threads, whose
        values never matter, read false/0. ``None`` if an active thread's value is symbolic."""
        if active is not None and active is not self.full and v.dim() >= 1 and v.shape[0] == self.n:
            keep = self._bmask(active, v)
            filler = torch.full_like(v, FALSE_ID)
            v = torch.where(keep, v, filler)
        for t in (BOOL, I64):
            c = self.dom.concrete(v, t)
            if c is not None:
                return c
        if active is not None:
            zero = torch.full_like(v, self.dom.id(tm.ZERO))
            v = torch.where(v == FALSE_ID, zero, v)
            c = self.dom.concrete(v, I64)
            if c is not None:
                return c
        return None

    def _concrete_or_none(self, v: torch.Tensor, t: ScalarType) -> torch.Tensor:
        """``v`` concrete when all its terms are constants, else ``v`` itself (ids)."""
        if not is_sym(v) or t.is_float:
            return v
        c = self.dom.concrete(v, t)
        return v if c is None else c

    # -- statements ------------------------------------------------------------------------------------

    def _stmt(self, s: Stmt, mask: torch.Tensor) -> torch.Tensor:
        self.dom.span = s.span
        if time.perf_counter() > self.deadline:
            raise SymbolicUnsupported(
                "the symbolic run reached the wall-clock safety net (--seconds): this verdict depends on machine load",
                s.span,
            )
        if self.dom.table.weight > self.max_terms:
            raise SymbolicUnsupported(f"the term budget ({self.max_terms} distinct terms) was exhausted", s.span)
        if isinstance(s, If):
            ub = UndefinedOps(mask)
            cond = self._eval(s.cond, ub)
            if is_sym(cond) and self._concrete_on(self._widen(cond), mask) is None:
                self._report_ub(ub, s.span)
                decided = self._concrete_on(self._decide_by_sign(self._widen(cond)), mask)
                if decided is None:
                    return self._if_convert(s, mask, cond)
                # every thread's condition has one value whatever the inputs: the branch as on concrete data
                then_mask = self._narrow(mask, decided.to(torch.bool))
                else_mask = self._narrow(mask, ~decided.to(torch.bool))
                after_then = self._stmts(s.then_body, then_mask) if s.then_body else then_mask
                after_else = self._stmts(s.else_body, else_mask) if s.else_body else else_mask
                return self._union(mask, after_then, after_else)
        if isinstance(s, Load):
            ub = UndefinedOps(mask)
            pv = self._eval(s.ptr, ub)
            if is_sym(pv) and self._concrete_on(self._widen(pv), mask) is None:
                self._symbolic_load(s, mask, pv)
                self._report_ub(ub, s.span)
                return mask
        return super()._stmt(s, mask)

    def _decide_by_sign(self, c: torch.Tensor) -> torch.Tensor:
        """The truth ids ``c`` with each comparison the sign oracle decides for every input replaced by its
        value: vLLM's ``value >= 0 ? atomicMax(...) : atomicMin(...)`` on a max of absolute values takes one
        arm (exact arithmetic, as every rule here)."""
        if c.dim() > 1 or c.numel() == 0:
            return c

        def decide(i: int) -> int:
            if i in (TRUE_ID, FALSE_ID):
                return i
            value = self.dom.decided(i)
            return i if value is None else (TRUE_ID if value else FALSE_ID)

        uniq, inv = torch.unique(c, return_inverse=True)
        return torch.tensor([decide(int(i)) for i in uniq.tolist()], dtype=c.dtype)[inv]

    def _if_convert(self, s: If, mask: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        """Both arms for the lanes whose condition is symbolic; values merge with ``select``."""
        c = self._decide_by_sign(self._widen(cond))  # the lanes the sign oracle decides run one arm
        bad = next((b for b in map(self._impure, (s.then_body, s.else_body)) if b is not None), None)
        stores = any(isinstance(t, Store) for t in walk_stmts([*s.then_body, *s.else_body]))
        if bad is not None or stores:
            sym_ids = c[mask]
            sym_ids = sym_ids[(sym_ids != TRUE_ID) & (sym_ids != FALSE_ID)]
            scheduled = self._on_schedule(sym_ids)
            if scheduled is not None:
                # which thread's atomic returns what is the schedule's choice, and the choices are not
                # independent (exactly one program draws the last ticket): guarded stores would merge arms
                # no execution combines (the total never written because no program is the last)
                raise SymbolicUnsupported(
                    f"a branch on an atomic's result (condition {_clipped(scheduled)}) around "
                    f"{bad or 'a store'}: which arm runs depends on the schedule",
                    s.span,
                )
            if bad is not None:
                example = _clipped(str(self.dom.term(int(sym_ids[0])))) if sym_ids.numel() else "?"
                raise SymbolicUnsupported(f"a branch on input data ({example}) around {bad}", s.span)
        self.data_dependent.setdefault("a branch on input data (both arms run, values merged)", s.span)
        if c.dim() > 1:
            raise SymbolicUnsupported("a branch on a block of data-dependent values", s.span)
        is_true = mask & (c == TRUE_ID)
        is_false = mask & (c == FALSE_ID)
        sym = mask & ~is_true & ~is_false
        frame = self._frames[-1]
        before = dict(frame.vars)
        outer = self.smem.guard
        if outer is not None and stores:
            # guards would be conjunctions, whose selects do not resolve against each other: an element
            # stored in every arm would keep a spurious unwritten case
            raise SymbolicUnsupported("a store under nested branches on input data", s.span)
        # stores of an arm take effect where the thread's condition holds
        self.smem.guard = c
        try:
            self._stmts(s.then_body, is_true | sym)
        finally:
            self.smem.guard = outer
        after_then = dict(frame.vars)
        for name, old in before.items():
            new = after_then.get(name)
            if new is not None and new is not old:
                frame.vars[name] = self._where(self._bmask(sym, new), old, new, frame.types[name])
        self.smem.guard = self.dom.bool_not(c)
        try:
            self._stmts(s.else_body, is_false | sym)
        finally:
            self.smem.guard = outer
        after_else = frame.vars
        for name, then_v in after_then.items():
            if name not in before:
                continue  # declared in the arm: not visible after it
            else_v = after_else[name]
            if then_v is before[name] and else_v is before[name]:
                continue
            t = frame.types[name]
            tv, ev = self._lift(then_v, t), self._lift(else_v, t)
            cc = c if tv.dim() == 1 else c.view(-1, *([1] * (tv.dim() - 1)))
            merged = self.dom.select(cc.expand_as(tv) if cc.shape[0] == tv.shape[0] else cc, tv, ev)
            frame.vars[name] = torch.where(self._bmask(sym, merged), merged, self._lift(else_v, t))
        return mask

    def _on_schedule(self, conditions: torch.Tensor) -> str | None:
        """The first of ``conditions`` (truth ids) that depends on a value an atomic returned, as text;
        ``None`` when none does."""
        if not self._schedule_values:
            return None
        for i in torch.unique(conditions).tolist():
            term = self.dom.table.peek(int(i))
            if term is None:
                continue
            if not self._schedule_values.isdisjoint(tm.elements_of([term], OPAQUE)):
                return str(term)
        return None

    def _impure(self, body: Sequence[Stmt]) -> str | None:
        """The first statement of ``body`` (or of a function it calls) that an if-converted arm may not
        contain: atomics, synchronisation, warp exchanges, control transfers out of the arm (stores are
        guarded, see :meth:`_if_convert`)."""
        for s in walk_stmts(body):
            match s:
                case Store():
                    pass
                case Atomic():
                    return "an atomic update"
                case Barrier() | Fence() | Shuffle() | Vote():
                    return "a synchronisation or warp exchange"
                case Return() | Break() | Continue():
                    return "a control transfer out of the branch"
                case Alloc():
                    return "an allocation"
                case Assert():
                    return "an assertion"
                case Assume():
                    return "a precondition"
                case For() | While() | DoWhile():
                    return "a loop"
                case Call():
                    callee = self.module.function(s.func)
                    if callee is None:
                        return "a call of an unknown function"
                    key = id(callee)
                    if key not in self._pure_cache:
                        self._pure_cache[key] = True  # recursion: assume pure while checking
                        self._pure_cache[key] = _calls_pure(callee, self)
                    if not self._pure_cache[key]:
                        return f"a call of {callee.name}, which writes memory or synchronises"
                case _:
                    pass
        return None

    def _symbolic_load(self, s: Load, mask: torch.Tensor, pv: torch.Tensor) -> None:
        """A load through an address computed from input data: ``Read(tensor, index)`` for each element.
        A block load (a gather: Triton's ``tl.load(w + row * d + cols, mask=cols < d, other=0.0)`` with
        ``row`` loaded from an index tensor) reads every element its mask enables and takes ``other``
        elsewhere; the mask itself must not depend on input data."""
        vt, lanes, _ = self._access_type(s.ptr.type)
        if lanes:
            raise SymbolicUnsupported("a data-dependent address of a vector load", s.span)
        if s.nc:
            # its read-only requirement is checked on concrete addresses only
            what = "a read through the read-only cache (__ldg) at an address computed from input data"
            raise SymbolicUnsupported(what, s.span)
        ub = UndefinedOps(mask)
        frame = self._frames[-1]
        idx = self._indices(mask)
        ptrs = self._widen(pv)[idx]
        k = math.prod(ptrs.shape[1:])
        enabled: torch.Tensor | None = None
        if s.mask is not None:
            mv = self._widen(self._concrete(self._eval(s.mask, ub), "mask", s.mask.span, mask))[idx]
            if mv.dim() == 1 and k > 1:
                mv = mv[:, None].expand(-1, k)
            enabled = mv.reshape(-1).to(torch.bool)
        self.data_dependent.setdefault("an address computed from input data", s.span)
        flat = ptrs.reshape(-1)
        on = flat if enabled is None else flat[enabled]
        values = torch.zeros(on.numel(), dtype=ID_DTYPE)
        uniq, inv = torch.unique(on, return_inverse=True)
        results = [self._read_at(u, vt, s.span) for u in uniq.tolist()]
        if results:
            values = torch.tensor(results, dtype=ID_DTYPE)[inv]
        dst_t = frame.types[s.dst]
        per_thread = (idx.numel(), *_trailing(dst_t))
        if enabled is None:
            result = values.reshape(per_thread)
        else:
            # masked-off elements take `other` (a value of the loaded type, or one element of a block)
            if s.other is not None:
                fill = self._widen(self._eval(s.other, ub))[idx]
            else:
                fill = self._poison(dst_t)[: idx.numel()]
            if fill.dim() < len(per_thread):
                fill = fill.reshape(fill.shape[0], *([1] * (len(per_thread) - 1)))
            whole = fill.expand(per_thread).reshape(-1).clone()
            result = self._scatter(whole, enabled, values, dst_t).reshape(per_thread)
        self._assign_rows(frame, s.dst, idx, result, mask)
        self._report_ub(ub, s.span)

    def _read_at(self, ptr_id: int, vt: ScalarType, span: Span) -> int:
        term = self.dom.poly(ptr_id)
        base_const = int(term.const)
        offset_base = 1 << (REGION_SHIFT - 1)
        region_id = (base_const + offset_base) >> REGION_SHIFT
        region = self.mem.regions.get(region_id)
        if region is None or region.kind is not RegionKind.GLOBAL:
            raise SymbolicUnsupported("a data-dependent address outside the kernel's buffers", span)
        if region.id in self.smem.written:
            raise SymbolicUnsupported(f"a data-dependent read of buffer {region.name}, which the kernel writes", span)
        if region.id in self.derived:
            what = f"a data-dependent read of buffer {region.name}, which an earlier launch wrote"
            raise SymbolicUnsupported(what, span)
        offset = tm.sub(term, tm.const(region_id << REGION_SHIFT))
        size = vt.size
        if vt != region.elem:
            raise SymbolicUnsupported(f"a data-dependent read of buffer {region.name} as {vt}", span)
        index = tm.div(offset, tm.const(size))
        if index.const.denominator != 1 or any(k.denominator != 1 for _, k in index.terms):
            raise SymbolicUnsupported(f"a data-dependent address {offset} not a multiple of {size} bytes", span)
        lo, hi = self.dom.int_range(index)
        n = region.nbytes // size
        if lo < 0 or hi > n - 1:
            raise SymbolicUnsupported(
                f"a data-dependent index {index} into {region.name} ({n} elements) that the declared value "
                f"ranges do not keep in bounds (range [{lo:g}, {hi:g}])",
                span,
            )
        self.symbolic_reads.setdefault(region.id, span)
        return self.dom.id(tm.read(region.name, index))

    # -- expressions -----------------------------------------------------------------------------------

    def _const(self, e: Const) -> torch.Tensor:
        if e.type.is_float:
            return torch.tensor([self.dom.float_const(float(e.value), e.type)], dtype=ID_DTYPE)
        return super()._const(e)

    def _unary(self, e: Unary, v: torch.Tensor) -> torch.Tensor:
        t = _elem(e.type)
        if t.is_float:
            return self.dom.float_unary_neg(v)
        if not is_sym(v):
            return super()._unary(e, v)
        match e.op:
            case UnaryOp.NOT:
                return self._concrete_or_none(self.dom.bool_not(v), BOOL)
            case UnaryOp.NEG:
                return self._concrete_or_none(self.dom.int_neg(v, t), t)
            case UnaryOp.BITNOT:
                c = self.dom.concrete(v, t)
                if c is None:
                    raise SymbolicUnsupported("bitwise complement of a data-dependent integer", e.span)
                return super()._unary(e, c)

    def _binary(self, e: Binary, a: torch.Tensor, b: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        if _is_pointer(e.lhs.type):
            if is_sym(a) or is_sym(b):
                a, b = self._concrete_or_none(a, I64), self._concrete_or_none(b, I64)
                if is_sym(a) or is_sym(b):
                    raise SymbolicUnsupported("pointer arithmetic on data-dependent addresses", e.span)
            return super()._binary(e, a, b, ub)
        t = _elem(e.lhs.type)
        if t.is_float:
            out = self.dom.float_binary(e.op, self._lift(a, t), self._lift(b, t), t)
            return self._concrete_or_none(out, BOOL) if e.op.is_comparison else out
        if not is_sym(a) and not is_sym(b):
            return super()._binary(e, a, b, ub)
        ca, cb = self._concrete_or_none(a, t), self._concrete_or_none(b, t)
        if not is_sym(ca) and not is_sym(cb):
            return super()._binary(e, ca, cb, ub)
        la, lb = self._lift(a, e.lhs.type), self._lift(b, e.rhs.type)
        if t.is_bool:
            return self._concrete_or_none(self.dom.bool_binary(e.op, la, lb), BOOL)
        out = self.dom.int_binary(e.op, la, lb, t, self._active_of(ub))
        return self._concrete_or_none(out, BOOL if e.op.is_comparison else t)

    def _active_of(self, ub: UndefinedOps) -> torch.Tensor | None:
        """The threads whose values matter for the expression being evaluated (``None``: all of them)."""
        active = ub.active
        return active if active.dim() == 1 and active.shape[0] == self.n else None

    def _select(self, e: Select, c: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if is_sym(c):
            cc = self.dom.concrete(c, BOOL)
            if cc is not None:
                c = cc
        t = e.type
        if not is_sym(c):
            if is_sym(x) or is_sym(y):
                if c.dim() < x.dim():
                    c = c.view(c.shape[0], *([1] * (x.dim() - 1)))
                return torch.where(c, self._lift(x, t), self._lift(y, t))
            return super()._select(e, c, x, y)
        lx, ly = self._lift(x, t), self._lift(y, t)
        if c.dim() < lx.dim():
            c = c.view(c.shape[0], *([1] * (lx.dim() - 1)))
        out = self.dom.select(c, lx, ly)
        st = I64 if _is_pointer(t) else _elem(t)
        return self._concrete_or_none(out, st)

    def _cast(self, e: Cast, v: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        src, dst = e.operand.type, e.type
        if _is_pointer(src) or _is_pointer(dst):
            if is_sym(v) and e.kind is CastKind.BITCAST:
                return v  # an address keeps its value; only the static type changes
            return super()._cast(e, v, ub)
        s_el, d_el = _elem(src), _elem(dst)
        if not is_sym(v) and not s_el.is_float and not d_el.is_float:
            return super()._cast(e, v, ub)
        if e.kind is CastKind.BITCAST:
            return self._bitcast(e, v, ub)
        if s_el.is_float and d_el.is_float:
            low = self.narrowest_float
            if is_sym(v) and low is not None and d_el.size < min(s_el.size, low.size):
                # a precision downgrade (an f32 task computed in f16): its rounding is no exact real value
                why = f"a rounding of {s_el} data to {d_el}, below the task's {low} (a precision downgrade)"
                return self.dom.opaque(tuple(v.shape), why)
            return v
        if s_el.is_float:
            if d_el.is_bool:
                return self._concrete_or_none(self.dom.to_bool(v), BOOL)
            out = self.dom.float_to_int(v, d_el, self._active_of(ub))
            c = self.dom.concrete(out, d_el)
            if c is None:
                return out
            lo, hi = _full_range(d_el)
            if bool(((c < lo) | (c > hi)).any()) and not (d_el == U64 and bool((c >= -(2**63)).all())):
                raise SymbolicUnsupported(f"a float-to-{d_el} conversion of an out-of-range constant", e.span)
            return c
        if d_el.is_float:
            if not is_sym(v):
                # a concrete bool converts to the number 0 or 1 (``mask.to(tl.float32)``), not a truth value
                return self.dom.lift(v.to(torch.int64), I64) if s_el.is_bool else self.dom.lift(v, s_el)
            return self.dom.from_bool(v) if s_el.is_bool else v
        # integer <-> integer / bool, symbolic
        if d_el.is_bool:
            return self._concrete_or_none(self.dom.to_bool(v), BOOL)
        if s_el.is_bool:
            return self._concrete_or_none(self.dom.from_bool(v), d_el)
        return self.dom.fitting(v, d_el, "integer conversion")

    def _bitcast(self, e: Cast, v: torch.Tensor, ub: UndefinedOps) -> torch.Tensor:
        s_el = _elem(e.operand.type)
        d_el = _elem(e.type)
        c = self.dom.concrete(v, s_el) if is_sym(v) else v
        if c is None:
            s_dims, d_dims = tuple(_trailing(e.operand.type)), tuple(_trailing(e.type))
            if s_el.size == d_el.size and s_dims == d_dims:
                return self.dom.bits_view(v, s_el, d_el)
            lead = tuple(v.shape[: v.dim() - len(s_dims)])
            s_lanes, d_lanes = (s_dims or (1,))[0], (d_dims or (1,))[0]
            if len(s_dims) <= 1 and len(d_dims) <= 1 and s_lanes * s_el.size == d_lanes * d_el.size:
                # other lanes (bf16x8 <-> i32x4, bf16x2 <-> u32): the lanes packed or unpacked, exactly
                if d_el.size % s_el.size == 0:
                    k = d_el.size // s_el.size
                    return self.dom.pack(v.reshape(*lead, d_lanes, k), s_el, d_el).reshape(*lead, *d_dims)
                if s_el.size % d_el.size == 0:
                    k = s_el.size // d_el.size
                    return self.dom.unpack_all(v, d_el, k).reshape(*lead, *d_dims)
            return self.dom.opaque((*lead, *d_dims), f"a bit reinterpretation of {s_el} as {d_el}")
        if s_el.is_float:
            c = c.to(_float_dtype(s_el))
        out = super()._cast(e, c, ub)
        return self.dom.lift(out, d_el) if d_el.is_float else out

    def _eval(self, e: Expr, ub: UndefinedOps) -> torch.Tensor:
        """:meth:`Interpreter._eval`, with each arm of a ternary ``c ? x : y`` (``tl.where``) evaluated under
        its condition (:attr:`_arm_guards`): both arms are computed, but a partial function of an arm needs
        its domain only where the arm is taken (``v > 0 ? logf(v) : 0`` needs nothing)."""
        if not isinstance(e, Select) and not _evaluated_operands(e):
            return self._apply(e, [], ub)
        values: list[torch.Tensor] = []
        pending: list[tuple[Expr, _Step]] = [(e, _Step.OPEN)]
        depth = len(self._arm_guards)
        try:
            while pending:
                x, step = pending.pop()
                match step:
                    case _Step.OPEN:
                        if isinstance(x, Select):
                            # popped in reverse: the condition, its arm guard, the first arm, ...
                            pending += [(x, _Step.APPLY), (x, _Step.LEAVE), (x.if_false, _Step.OPEN)]
                            pending += [(x, _Step.ELSE), (x.if_true, _Step.OPEN), (x, _Step.THEN), (x.cond, _Step.OPEN)]
                            continue
                        ops = _evaluated_operands(x)
                        if ops:
                            pending.append((x, _Step.APPLY))
                            pending.extend((o, _Step.OPEN) for o in reversed(ops))
                            continue
                        values.append(self._apply(x, [], ub))
                    case _Step.THEN:
                        self._arm_guards.append(self._arm_guard(values[-1], negate=False))
                    case _Step.ELSE:
                        self._arm_guards.pop()
                        self._arm_guards.append(self._arm_guard(values[-2], negate=True))
                    case _Step.LEAVE:
                        self._arm_guards.pop()
                    case _Step.APPLY:
                        n = len(_evaluated_operands(x))
                        args = values[len(values) - n :]
                        del values[len(values) - n :]
                        values.append(self._apply(x, args, ub))
                    case _:
                        assert_never(step)
        finally:
            del self._arm_guards[depth:]
        return values[0]

    def _arm_guard(self, c: torch.Tensor, *, negate: bool) -> torch.Tensor | None:
        """The truth ids of ``c`` (or of ``!c``) and of the enclosing arm's condition, per thread (and lane);
        ``None`` (no guard: every condition recorded, never unsound) where the shapes do not combine."""
        ids = c if is_sym(c) else torch.where(c.to(torch.bool), TRUE_ID, FALSE_ID).to(ID_DTYPE)
        if negate:
            ids = self.dom.bool_not(ids)
        outer = self._arm_guards[-1] if self._arm_guards else None
        if outer is None:
            return ids if not self._arm_guards else None
        if outer.dim() != ids.dim():
            return None
        return self.dom.bool_binary(BinaryOp.LAND, outer, ids)

    def _domain_guard(self) -> torch.Tensor | None:
        """The condition under which the partial function being evaluated is used: the if-arm's (per
        thread) and the ternary arms' (:meth:`_eval`), both of them where both apply."""
        branch = self.smem.guard
        if not self._arm_guards:
            return branch
        arm = self._arm_guards[-1]
        if arm is None or branch is None:
            return arm if branch is None else branch
        if arm.dim() > 1:
            branch = branch.reshape(-1, *([1] * (arm.dim() - 1)))
        return self.dom.bool_binary(BinaryOp.LAND, branch, arm)

    def _math(self, e: MathCall, args: list[torch.Tensor], ub: UndefinedOps) -> torch.Tensor:
        t = _elem(e.args[0].type)
        if t.is_float:
            lifted = [self._lift(a, t) for a in args]
            self.dom.require_defined(e.fn, lifted, self._active_of(ub), self._domain_guard())
            out = self.dom.float_math(e.fn, lifted, t)
            rt = _elem(e.type)
            return out if rt.is_float else self._concrete_or_none(out, rt)
        if not any(is_sym(a) for a in args):
            return super()._math(e, args, ub)
        concrete = [self._concrete_or_none(a, t) for a in args]
        if not any(is_sym(a) for a in concrete):
            return super()._math(e, concrete, ub)
        raise SymbolicUnsupported(f"{e.fn.value} of a data-dependent integer", e.span)

    def _ptradd(self, e: PtrAdd, base: torch.Tensor, off: torch.Tensor) -> torch.Tensor:
        if not is_sym(base) and not is_sym(off):
            return super()._ptradd(e, base, off)
        off_t = _elem(e.offset.type)
        off = self._concrete_or_none(off, off_t)
        base = self._concrete_or_none(base, I64)
        if not is_sym(base) and not is_sym(off):
            return super()._ptradd(e, base, off)
        size = _pointee_size(e.base.type)
        lb, lo = self._lift(base, I64), self._lift(off, off_t)
        scaled = self.dom.int_binary(
            BinaryOp.MUL, lo, self.dom.lift(torch.tensor([size]), I64), I64, c_arithmetic=False
        )
        return self.dom.int_binary(BinaryOp.ADD, lb, scaled, I64, c_arithmetic=False)

    def _stack(self, e: MakeVector, parts: list[torch.Tensor]) -> torch.Tensor:
        if any(is_sym(p) for p in parts):
            parts = [self._lift(p, _elem(e.type)) for p in parts]
        return super()._stack(e, parts)

    def _reduce(self, e: Reduce, v: torch.Tensor) -> torch.Tensor:
        t = _elem(e.operand.type)
        if not is_sym(v) and not t.is_float:
            return super()._reduce(e, v)
        ids = self._lift(v, e.operand.type)
        dim = e.axis + 1
        moved = ids.movedim(dim, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        out = []
        for row in flat.tolist():
            out.append(self._reduce_row(e.op, row, t, e.span))
        result = torch.tensor(out, dtype=ID_DTYPE).reshape(moved.shape[:-1])
        return result if t.is_float else self._concrete_or_none(result, t)

    def _reduce_row(self, op: ReduceOp, row: list[int], t: ScalarType, span: Span) -> int:
        dom = self.dom
        match op:
            case ReduceOp.SUM:
                if t.is_float and any(x in (UNDEF, NAN, POS_INF, NEG_INF) for x in row):
                    acc = row[0]
                    for x in row[1:]:
                        acc = int(dom.float_binary(BinaryOp.ADD, _one(acc), _one(x), t)[0])
                    return acc
                total = dom.id(tm.add(*(dom.poly(x) for x in row)))
                if not t.is_float:
                    return int(dom.fitting(torch.tensor([total], dtype=ID_DTYPE), t, "sum")[0])
                return total
            case ReduceOp.PROD:
                if not t.is_float:
                    raise SymbolicUnsupported("a product reduction of data-dependent integers", span)
                acc = row[0]
                for x in row[1:]:
                    acc = int(dom.float_binary(BinaryOp.MUL, _one(acc), _one(x), t)[0])
                return acc
            case ReduceOp.MAX | ReduceOp.MIN:
                bop = BinaryOp.MAX if op is ReduceOp.MAX else BinaryOp.MIN
                acc = row[0]
                for x in row[1:]:
                    res = (
                        dom.float_binary(bop, _one(acc), _one(x), t)
                        if t.is_float
                        else dom.int_binary(bop, _one(acc), _one(x), t)
                    )
                    acc = int(res[0])
                return acc

    def _dot(self, e: Dot, ub: UndefinedOps) -> torch.Tensor:
        """``lhs @ rhs (+ acc)``: every output element the exact sum over ``K`` of the products (the
        conversion of float operands to the output type vanishes, as every float cast does); integer
        products of concrete operands are the simulator's, data-dependent ones are unsupported."""
        out_t, src_t = _elem(e.type), _elem(e.lhs.type)
        if not out_t.is_float:
            if src_t.is_float:
                raise SymbolicUnsupported(f"tl.dot of {src_t} blocks into {out_t}", e.span)
            a = self._concrete_or_none(self._eval(e.lhs, ub), src_t)
            b = self._concrete_or_none(self._eval(e.rhs, ub), src_t)
            acc = None if e.acc is None else self._concrete_or_none(self._eval(e.acc, ub), out_t)
            if is_sym(a) or is_sym(b) or (acc is not None and is_sym(acc)):
                raise SymbolicUnsupported("tl.dot of data-dependent integer blocks", e.span)
            a, b = convert_value(a, src_t, out_t), convert_value(b, src_t, out_t)
            prod = wrap((a[..., :, :, None] * b[..., None, :, :]).sum(dim=-2), out_t)
            return prod if acc is None else apply_binary(BinaryOp.ADD, prod, acc, out_t)
        if not src_t.is_float:
            raise SymbolicUnsupported(f"tl.dot of {src_t} blocks into {out_t}", e.span)
        a = self._lift(self._eval(e.lhs, ub), e.lhs.type)
        b = self._lift(self._eval(e.rhs, ub), e.rhs.type)
        products = self.dom.float_binary(BinaryOp.MUL, a[..., :, :, None], b[..., None, :, :], out_t)
        moved = products.movedim(-2, -1)
        rows = [
            self._reduce_row(ReduceOp.SUM, row, out_t, e.span) for row in moved.reshape(-1, moved.shape[-1]).tolist()
        ]
        out = torch.tensor(rows, dtype=ID_DTYPE).reshape(moved.shape[:-1])
        if e.acc is None:
            return out
        acc_ids = self._lift(self._eval(e.acc, ub), e.acc.type)
        return self.dom.float_binary(BinaryOp.ADD, acc_ids, out, out_t)

    # -- atomics ---------------------------------------------------------------------------------------

    def _atomic_combine(
        self, op: AtomicOp, vt: ScalarType, cur: torch.Tensor, v: torch.Tensor, cmp: torch.Tensor | None
    ) -> torch.Tensor:
        dom = self.dom
        if op is AtomicOp.EXCH:
            return v
        if op is AtomicOp.CAS:
            assert cmp is not None
            if vt.is_float:
                raise SymbolicUnsupported("atomicCAS on a floating-point location")
            same = dom.int_binary(BinaryOp.EQ, cur, cmp, vt)
            return dom.select(same, v, cur)
        if op in (AtomicOp.INC, AtomicOp.DEC):
            cc, cv = dom.concrete(cur, vt), dom.concrete(v, vt)
            if cc is None or cv is None:
                raise SymbolicUnsupported(f"atomic.{op.value} on a symbolic value")
            return dom.lift(wrapping_step(op, cc, cv, vt), vt)
        bop = {
            AtomicOp.ADD: BinaryOp.ADD,
            AtomicOp.SUB: BinaryOp.SUB,
            AtomicOp.MIN: BinaryOp.MIN,
            AtomicOp.MAX: BinaryOp.MAX,
            AtomicOp.AND: BinaryOp.BITAND,
            AtomicOp.OR: BinaryOp.BITOR,
            AtomicOp.XOR: BinaryOp.BITXOR,
        }[op]
        if vt.is_float:
            return dom.float_binary(bop, cur, v, vt)
        cc, cv = dom.concrete(cur, vt), dom.concrete(v, vt)
        if cc is not None and cv is not None:
            return dom.lift(apply_binary(bop, cc, cv, vt), vt)
        return dom.int_binary(bop, cur, v, vt, c_arithmetic=False)  # atomics wrap (the simulator's rule)

    def _atomic(self, s: Atomic, frame: _Frame, mask: torch.Tensor) -> None:
        super()._atomic(s, frame, mask)
        if s.dst is not None:
            # the value an atomic returns depends on the order of the threads: never a proof's input
            old = frame.vars[s.dst]
            first = self.dom.unknowns
            opaque = self.dom.opaque(tuple(old.shape), "the value an atomic returns (it depends on the schedule)")
            self._schedule_values.update(range(first + 1, self.dom.unknowns + 1))
            frame.vars[s.dst] = torch.where(self._bmask(mask, opaque), opaque, self._lift(old, frame.types[s.dst]))


def _clipped(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _one(i: int) -> torch.Tensor:
    return torch.tensor([i], dtype=ID_DTYPE)


def _float_dtype(t: ScalarType) -> torch.dtype:
    return mem_dtype(t)


def _pointee_size(t: Type) -> int:
    return size_of(_pointer_of(t).pointee)


def _calls_pure(f: Function, interp: _Interp) -> bool:
    return interp._impure(f.body) is None


# --------------------------------------------------------------------------------------------------
# The entry point


def execute_symbolic(
    module: Module,
    kernel: str,
    launch: LaunchConfig,
    args: Mapping[str, SymbolicArg],
    *,
    constant_reader: Callable[[float, ScalarType], tuple[Poly, str | None]] | None = None,
    int_ranges: Mapping[str, tuple[int, int]] | None = None,
    limits: SimLimits | None = None,
    seconds: float = math.inf,
    max_terms: int = 1 << 30,
    narrowest_float: ScalarType | None = None,
) -> SymbolicRun:
    """Run ``kernel`` on ``launch`` with symbolic inputs; see the module docstring.

    ``args`` binds every kernel parameter to a :class:`SymbolicBuffer` or a scalar (integers concrete,
    floats exact). ``constant_reader`` gives the exact reading of a float constant of the kernel (default:
    its exact binary value, no assumption); ``int_ranges`` the inclusive ranges of integer input tensors'
    elements (default: their types' ranges). ``seconds`` and ``max_terms`` bound the run: past them it stops
    as unsupported, with the reason. ``narrowest_float`` is the narrowest float type of the task's
    tensors: a conversion of data to a narrower float type makes an opaque value (its rounding is a
    precision downgrade, not an exact real). A launch that cannot run raises
    :class:`~larkc.errors.SimulationError` as :func:`~larkc.semantics.simulate` does.
    """
    start = time.perf_counter()
    limits = limits or SimLimits()
    f = kernel_of(module, kernel)
    reader = constant_reader or _exact_constant
    ranges = dict(int_ranges or {})
    for v in args.values():
        if isinstance(v, SymbolicBuffer) and v.dtype.is_int and v.name not in ranges:
            lo, hi = _full_range(v.dtype)
            ranges[v.name] = (lo, hi)
        if isinstance(v, SymbolicBuffer) and v.dtype.is_bool:
            ranges[v.name] = (0, 1)
    domain = SymbolicDomain(reader, ranges)
    interp = _Interp(module, f, launch, limits, domain)
    interp.deadline = start + seconds
    interp.max_terms = max_terms
    interp.narrowest_float = narrowest_float
    sim_args: dict[str, KernelArg] = {}
    buffers: dict[str, SymbolicBuffer] = {}
    for name, v in args.items():
        if isinstance(v, SymbolicBuffer):
            data = torch.zeros(v.shape, dtype=mem_dtype(v.dtype))
            initialised: bool | torch.Tensor = v.init != "empty"
            if v.init == "terms":
                if len(v.terms) != math.prod(v.shape):
                    raise ValueError(f"buffer {v.name}: {len(v.terms)} terms for shape {v.shape}")
                initialised = torch.tensor([t != "undef" for t in v.terms], dtype=torch.bool).reshape(v.shape)
            sim_args[name] = GlobalBuffer(v.name, data, v.dtype, initialised=initialised)
            buffers[v.name] = v
        elif isinstance(v, Fraction):
            sim_args[name] = float(v)  # the register is built from the exact value below
        else:
            sim_args[name] = v
    exact_floats = {n: v for n, v in args.items() if isinstance(v, Fraction)}
    unsupported: SymbolicUnsupported | None = None
    out: dict[str, tuple[OutputValue, ...]] = {}
    with tm.gc_paused(), tm.products_memoised():
        regions, _, values = bind_arguments(interp, f, sim_args)
        for name, frac in exact_floats.items():
            values[name] = torch.tensor([domain.id(tm.const(frac))], dtype=ID_DTYPE)
        for bname, region in regions.items():
            spec = buffers[bname]
            n = math.prod(spec.shape)
            if spec.init == "input":
                ids = [domain.id(_input_elem(spec, i)) for i in range(n)]
                interp.smem.fill(region, torch.tensor(ids, dtype=ID_DTYPE), spec.dtype)
            elif spec.init == "zeros":
                zero = domain.id(tm.FALSE if spec.dtype.is_bool else tm.ZERO)
                interp.smem.fill(region, torch.full((n,), zero, dtype=ID_DTYPE), spec.dtype)
            elif spec.init == "terms":
                ids = [_SPECIAL_ID[t] if isinstance(t, str) else domain.id(t) for t in spec.terms]
                interp.smem.fill(region, torch.tensor(ids, dtype=ID_DTYPE), spec.dtype)
                interp.derived.add(region.id)
        try:
            interp.run(values)
            for rid, span in interp.symbolic_reads.items():
                if rid in interp.smem.written:
                    name = interp.mem.regions[rid].name
                    raise SymbolicUnsupported(f"a data-dependent read of buffer {name}, which the kernel writes", span)
        except SymbolicUnsupported as e:
            unsupported = e
            if e.span is None:
                e.span = domain.span
        except LimitExceeded as e:  # e.g. a loop that does not end: nothing is decided on this instance
            unsupported = SymbolicUnsupported(e.message, e.span or domain.span)
        if unsupported is None:
            for bname, region in regions.items():
                spec = buffers[bname]
                ids = interp.smem.contents(region, spec.dtype).tolist()
                out[bname] = tuple(_SPECIAL_TEXT[i] if i in _SPECIAL_TEXT else domain.term(i) for i in ids)
    return SymbolicRun(
        launch=launch,
        diagnoses=interp.diagnoses(),
        buffers=out,
        unsupported=unsupported,
        data_dependent=dict(interp.data_dependent),
        opaque=dict(domain.opaque_reasons),
        notes=tuple(domain.notes.values()),
        aborted=interp.aborted,
        threads=interp.n,
        statements=interp.statements,
        terms=len(domain.table),
        seconds=time.perf_counter() - start,
        unknowns=domain.unknowns,
        written=frozenset(b for b, region in regions.items() if region.id in interp.smem.written),
        range_conditions=tuple(domain.range_conditions.values()),
    )


def _input_elem(spec: SymbolicBuffer, i: int) -> Term:
    e = tm.elem(spec.name, i)
    return tm.compare("!=", e, tm.ZERO) if spec.dtype.is_bool else e


def _exact_constant(value: float, t: ScalarType) -> tuple[Poly, str | None]:
    return tm.const(value), None


def _full_range(t: ScalarType) -> tuple[int, int]:
    if t.is_unsigned:
        return (0, 2**t.bits - 1)
    return (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1)
