"""The phase form of a kernel as Lean definitions over ``Larkc.Machine`` and ``Larkc.Cuda``.

Each phase becomes a definition ``phaseN (shape symbols) (phase-loop variables) (b t : ℕ) (s : TState)
: TState``: the code of thread ``t`` of block ``b`` as a chain of ``let``s threading the thread state
``s``. The kernel is ``kernelPhases (shape symbols) : List Phase``, every phase run by all threads of the
launch (``Larkc.launch``); a :class:`~larkc.ir.phases.PhaseLoop` becomes ``Larkc.loopPhases``.

Values: IR integers are ``ℤ`` (exact: overflow is outside the model, and checked by larkc's prover),
floating-point values ``ℝ`` (exact arithmetic: rounding is outside the model), booleans ``Prop``
(decided classically). A pointer is a buffer (a global parameter's number, or a shared or local
array's) and an element offset in ``ℤ``; loads and stores are ``TState.get``/``note``/``put`` at
``Loc.glob``/``Loc.shr``/``Loc.lcl`` locations. Rematerialisable variables are recomputed in every
phase that uses them; other variables live across phases in ``Loc.reg`` locations (numbered in
:attr:`KernelLean.registers`). A warp exchange reads the source lane's register.

Block-level (Triton) kernels are one phase whose threads are the programs (``launch G 1``). Their
block values are ``Larkc.Block.Blk`` functions of the row-major index (``lean/Larkc/Block.lean``):
block expressions follow :data:`BLOCK_RULES` (reductions :data:`REDUCE_RULES`, scans
:data:`SCAN_RULES`), elementwise operations are their scalar rule lifted with ``Block.map``/``map2``/
``map3``, a block of pointers is a block of offsets into one buffer, and masked loads, stores and
atomics through it are ``Block.load``/``noteAll``/``putAll``/``addAll``/``amaxAll``. Assertions (both
levels) are ``TState.check``.

Per-op rules: :data:`BINARY_RULES`, :data:`UNARY_RULES`, :data:`MATH_RULES` (a test fails when an IR
operator lacks an entry: ``None`` marks one the lowering rejects with a located error), and the block
tables above (a test fails when a block expression lacks one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from larkc.errors import NO_SPAN, Span, Stage, UnsupportedError
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
    If,
    Insert,
    Level,
    Load,
    MakeVector,
    MathCall,
    MathFn,
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
    UnaryOp,
    VarRef,
    Vote,
    While,
)
from larkc.ir.phases import (
    Phase,
    PhaseForm,
    PhaseItem,
    PhaseLoop,
    const_int,
    counted_loop,
    substitute,
    substitute_expr,
    unrolled_values,
    walk_exprs,
)
from larkc.ir.types import AddressSpace, BlockType, PointerType, ScalarType, Type, VectorType, size_of
from larkc.ir.walk import fences_and_atomics, walk_stmts
from larkc.lower.spec import lean_real

__all__ = [
    "BINARY_RULES",
    "BLOCK_RULES",
    "MATH_RULES",
    "REDUCE_RULES",
    "SCAN_RULES",
    "UNARY_RULES",
    "KernelLean",
    "lower_kernel",
]

#: Lean rendering of each binary operator per operand class ("int", "real"), ``None``: unsupported.
BINARY_RULES: Mapping[BinaryOp, Mapping[str, str | None]] = {
    BinaryOp.ADD: {"int": "({a} + {b})", "real": "({a} + {b})"},
    BinaryOp.SUB: {"int": "({a} - {b})", "real": "({a} - {b})"},
    BinaryOp.MUL: {"int": "({a} * {b})", "real": "({a} * {b})"},
    BinaryOp.DIV: {"int": "(Larkc.Cuda.tdiv {a} {b})", "real": "({a} / {b})"},
    BinaryOp.REM: {"int": "(Larkc.Cuda.trem {a} {b})", "real": None},
    BinaryOp.SHL: {"int": "(Larkc.Cuda.shl {a} {b})", "real": None},
    BinaryOp.SHR: {"int": "(Larkc.Cuda.shr {a} {b})", "real": None},
    BinaryOp.BITAND: {"int": None, "real": None, "bool": "({a} ∧ {b})"},
    BinaryOp.BITOR: {"int": None, "real": None, "bool": "({a} ∨ {b})"},
    BinaryOp.BITXOR: {"int": None, "real": None, "bool": "(¬({a} ↔ {b}))"},
    BinaryOp.LAND: {"bool": "({a} ∧ {b})"},
    BinaryOp.LOR: {"bool": "({a} ∨ {b})"},
    BinaryOp.EQ: {"int": "({a} = {b})", "real": "({a} = {b})", "bool": "({a} ↔ {b})"},
    BinaryOp.NE: {"int": "({a} ≠ {b})", "real": "({a} ≠ {b})", "bool": "(¬({a} ↔ {b}))"},
    BinaryOp.LT: {"int": "({a} < {b})", "real": "({a} < {b})"},
    BinaryOp.LE: {"int": "({a} ≤ {b})", "real": "({a} ≤ {b})"},
    BinaryOp.GT: {"int": "({a} > {b})", "real": "({a} > {b})"},
    BinaryOp.GE: {"int": "({a} ≥ {b})", "real": "({a} ≥ {b})"},
    BinaryOp.MIN: {"int": "(min {a} {b})", "real": "(min {a} {b})"},
    BinaryOp.MAX: {"int": "(max {a} {b})", "real": "(max {a} {b})"},
}

#: Lean rendering of each unary operator per operand class.
UNARY_RULES: Mapping[UnaryOp, Mapping[str, str | None]] = {
    UnaryOp.NEG: {"int": "(-{a})", "real": "(-{a})"},
    UnaryOp.NOT: {"bool": "(¬{a})"},
    UnaryOp.BITNOT: {"int": None},
}

#: Lean rendering of each math intrinsic on reals (arguments ``{a}``, ``{b}``, ``{c}``); ``None``: unsupported.
MATH_RULES: Mapping[MathFn, str | None] = {
    MathFn.EXP: "(Real.exp {a})",
    MathFn.EXP2: "(Real.exp ({a} * Real.log 2))",
    MathFn.EXP10: "(Real.exp ({a} * Real.log 10))",
    MathFn.EXPM1: "(Real.exp {a} - 1)",
    MathFn.LOG: "(Real.log {a})",
    MathFn.LOG2: "(Real.logb 2 {a})",
    MathFn.LOG10: "(Real.logb 10 {a})",
    MathFn.LOG1P: "(Real.log (1 + {a}))",
    MathFn.SQRT: "(Real.sqrt {a})",
    MathFn.RSQRT: "(Larkc.Cuda.rsqrt {a})",
    MathFn.CBRT: None,
    MathFn.SIN: "(Real.sin {a})",
    MathFn.COS: "(Real.cos {a})",
    MathFn.TAN: "(Real.tan {a})",
    MathFn.ASIN: None,
    MathFn.ACOS: None,
    MathFn.ATAN: None,
    MathFn.ATAN2: None,
    MathFn.SINH: "(Real.sinh {a})",
    MathFn.COSH: "(Real.cosh {a})",
    MathFn.TANH: "(Real.tanh {a})",
    MathFn.ERF: "(Real.erf {a})",
    MathFn.ERFC: "(1 - Real.erf {a})",
    MathFn.POW: "(Real.rpow {a} {b})",
    MathFn.FMOD: None,
    MathFn.DIV: "({a} / {b})",
    MathFn.FMA: "(Larkc.Cuda.fma {a} {b} {c})",
    MathFn.ABS: "(abs {a})",
    MathFn.FLOOR: "((Int.floor {a} : ℤ) : ℝ)",
    MathFn.CEIL: None,
    MathFn.TRUNC: None,
    MathFn.ROUND: None,
    MathFn.RINT: None,
    MathFn.COPYSIGN: None,
    MathFn.ISNAN: "False",
    MathFn.ISINF: "False",
    MathFn.ISFINITE: "True",
    MathFn.SIGNBIT: None,
    MathFn.POPC: None,
    MathFn.CLZ: None,
    MathFn.FFS: None,
}


#: Lean rendering of each block-level expression node (``Larkc.Block``; sizes come from the IR types).
#: Elementwise nodes on blocks are their scalar rule lifted with ``Block.map``/``map2``/``map3``.
BLOCK_RULES: Mapping[type, str] = {
    Arange: "(Larkc.Block.arange {start})",
    Splat: "(Larkc.Block.splat {a})",
    Broadcast: "(Larkc.Block.bcast {n} {inner} {a})",  # one per stretched axis, composed
    Reshape: "{a}",  # row-major order is kept: the same function of the flat index
    Reduce: "(Larkc.Block.{fn} {n} {inner} {a})",  # REDUCE_RULES names fn; a scalar result is element 0
    Scan: "(Larkc.Block.{fn} {n} {inner} {a})",  # SCAN_RULES names fn
    Permute: "(Larkc.Block.reindex (fun (el0 : ℕ) => {index}) {a})",  # the source index of each element
    Dot: "(Larkc.Block.dot {k} {n} {a} {b})",  # plus `acc` with Block.map2
    # a left fold of the combine function's body (`let`s over the accumulator tuple `cacc`), element 0
    # of the result for a scalar
    Combine: "(fun (el0 : ℕ) => (List.foldl (fun (cacc : {acc_type}) (ck : ℕ) => {step}) {init} "
    "(List.range {count})){proj})",
}

#: The ``Larkc.Block`` scan of each operator, forward and with ``reverse``.
SCAN_RULES: Mapping[ReduceOp, tuple[str, str]] = {
    ReduceOp.SUM: ("scanSum", "scanSumRev"),
    ReduceOp.PROD: ("scanProd", "scanProdRev"),
    ReduceOp.MAX: ("scanMax", "scanMaxRev"),
    ReduceOp.MIN: ("scanMin", "scanMinRev"),
}

#: The ``Larkc.Block`` reduction of each reduce operator.
REDUCE_RULES: Mapping[ReduceOp, str] = {
    ReduceOp.SUM: "reduceSum",
    ReduceOp.PROD: "reduceProd",
    ReduceOp.MAX: "reduceMax",
    ReduceOp.MIN: "reduceMin",
}


@dataclass(frozen=True, slots=True)
class Buffer:
    """Where a pointer points: ``kind`` is ``glob``, ``shr`` or ``lcl``; ``number`` its Lean number."""

    kind: str
    number: int
    name: str
    elem: Type


@dataclass(frozen=True, slots=True)
class KernelLean:
    """The Lean text of a kernel: ``definitions`` (phase definitions and ``kernelPhases``), the global
    buffers by parameter name with their numbers, shared arrays with their sizes, carried registers."""

    definitions: str
    sentinel: bool  # the kernel uses -inf: its definitions take `ninf : ℝ`, a real standing for it
    globals: tuple[tuple[str, int], ...]
    shared: tuple[tuple[str, int, str], ...]
    registers: tuple[tuple[str, int], ...]
    asserts: bool = False  # the kernel checks assertions (`TState.check`): emit states they hold


def _unsupported(what: str, span: Span, text: str) -> UnsupportedError:
    return UnsupportedError(what, text, span, stage=Stage.LOWER)


def _precondition(s: Assume) -> UnsupportedError:
    """A kernel precondition: the theorems would have to state it as a hypothesis, which the lowering
    does not do yet; emitting them without it would claim more than ``larkc verify`` proves."""
    return _unsupported("precondition (__requires) in Lean lowering", s.span, "a theorem would need it as a hypothesis")


def _device_scope(s: Atomic) -> None:
    """The Lean model's atomics are atomic towards every thread (``Phase.RaceFree`` never counts two atomic
    updates as a conflict): an atomic of a narrower scope (``atomicAdd_block``, Triton's ``scope="cta"``),
    which races with atomics of other blocks, is rejected rather than given a race-freedom theorem that
    could be false. On shared memory, which only the block's own threads reach, the block scope is the
    device scope."""
    pointer = s.ptr.type.elem if isinstance(s.ptr.type, BlockType) else s.ptr.type
    if s.scope is MemScope.BLOCK and not (isinstance(pointer, PointerType) and pointer.space is AddressSpace.SHARED):
        raise _unsupported("block-scoped atomic in Lean lowering", s.span, f"atomic.{s.op.value}.{s.scope.value}")


def _cls(t: Type, span: Span) -> str:
    if isinstance(t, BlockType):
        return "block"
    if isinstance(t, ScalarType):
        if t.is_bool:
            return "bool"
        return "real" if t.is_float else "int"
    if isinstance(t, PointerType):
        return "ptr"
    if isinstance(t, VectorType) and t.elem.is_float:
        return "vec"
    if isinstance(t, VectorType) and t.elem.is_int:
        # an integer vector that only moves float data (`int4` copies of `float4`s): the list of the
        # floats whose bits it holds; arithmetic on it has no rule and is rejected
        return "bits"
    raise _unsupported("value type in Lean lowering", span, str(t))


_LEAN_TYPE = {"int": "ℤ", "real": "ℝ", "bool": "Prop", "vec": "List ℝ", "bits": "List ℝ"}


def _lanes(t: Type) -> int:
    return t.lanes if isinstance(t, VectorType) else 1


def _zero(t: Type, span: Span) -> str:
    if isinstance(t, BlockType):
        return f"(Larkc.Block.splat {_zero(t.elem, span)})"
    c = _cls(t, span)
    if c in ("vec", "bits"):
        return "[" + ", ".join(["(0 : ℝ)"] * _lanes(t)) + "]"
    zero = {"int": "(0 : ℤ)", "real": "(0 : ℝ)", "bool": "False"}.get(c)
    if zero is None:
        raise _unsupported("declaration in Lean lowering", span, str(t))
    return zero


def _real_literal(v: float, span: Span) -> str:
    """A float constant as the real it was written as: the shortest decimal that reads back to it (as
    the spec lowering does), so that ``1e-5f`` in a kernel and ``1e-5`` in a reference are one real."""
    if math.isnan(v) or math.isinf(v):
        raise _unsupported("non-finite constant in Lean lowering", span, repr(v))
    return lean_real(v)


def _is_ptr(t: Type) -> bool:
    """A pointer, or a block of pointers."""
    return isinstance(t, PointerType) or (isinstance(t, BlockType) and isinstance(t.elem, PointerType))


def _shape(t: Type) -> tuple[int, ...]:
    """A block's shape; ``()`` for a scalar."""
    return t.shape if isinstance(t, BlockType) else ()


def _broadcast(term: str, src: Sequence[int], dst: Sequence[int]) -> str:
    """``term`` (a block of shape ``src``) stretched to ``dst``: one ``Block.bcast`` per stretched axis,
    left to right, each with the product of the sizes after its axis at that point."""
    shape = list(src)
    for j, d in enumerate(dst):
        if shape[j] == 1 and d != 1:
            term = BLOCK_RULES[Broadcast].format(n=d, inner=math.prod(shape[j + 1 :]), a=term)
            shape[j] = d
    return term


#: The parameters of an elementwise operation lifted to blocks (``fun (el0 : ℝ) (el1 : ℝ) => …``).
_LIFT_PARAMS = ("el0", "el1", "el2")


def _ident(name: str) -> str:
    out = "".join(c if c.isalnum() else "_" for c in name)
    return "v_" + out


class _Lowerer:
    def __init__(
        self,
        form: PhaseForm,
        symbols: Sequence[str],
        scalars: Mapping[str, str],
        grid: Sequence[str],
        block: Sequence[str],
        dynamic_shared: str | None,
    ) -> None:
        self.form = form
        self.symbols = tuple(symbols)
        self.scalars = scalars  # kernel scalar parameter -> Lean term
        self.grid = tuple(grid) + ("1",) * (3 - len(grid))
        self.block = tuple(block) + ("1",) * (3 - len(block))
        self.buffers: dict[str, Buffer] = {}
        n = 0
        for p in form.kernel.params:
            if isinstance(p.type, PointerType):
                self.buffers[p.name] = Buffer("glob", n, p.name, p.type.pointee)
                n += 1
        self.shared: list[tuple[str, int, str]] = []
        k_sh = k_lcl = 0
        for s in walk_stmts(form.kernel.body):
            if isinstance(s, Alloc):
                if s.count is None and dynamic_shared is None:
                    raise _unsupported("dynamic shared memory in Lean lowering", s.span, s.name)
                if s.space is AddressSpace.SHARED:
                    self.buffers[s.name] = Buffer("shr", k_sh, s.name, s.elem)
                    # offsets count scalar elements: a shared array of structs or vectors has lanes per element
                    lanes = _lanes(s.elem)
                    count = (
                        str(s.count * lanes)
                        if s.count is not None
                        else f"(({dynamic_shared}) / {size_of(s.elem)} * {lanes})"
                    )
                    self.shared.append((s.name, k_sh, count))
                    k_sh += 1
                else:
                    self.buffers[s.name] = Buffer("lcl", k_lcl, s.name, s.elem)
                    k_lcl += 1
        self.registers: dict[str, int] = {}
        self.lane_count: dict[str, int] = {}
        self.kinds: dict[str, str] = {}
        types = _declared_types(form)
        r = 0
        for name in form.carried:
            t = types.get(name)
            if t is None:
                raise _unsupported("variable in Lean lowering", form.kernel.span, f"{name} has no declaration")
            if _cls(t, form.kernel.span) == "ptr":
                raise _unsupported("pointer kept across a barrier in Lean lowering", form.kernel.span, name)
            self.kinds[name] = _cls(t, form.kernel.span)
            self.registers[name] = r
            self.lane_count[name] = _lanes(t)
            r += _lanes(t)
        self.sentinel = any(
            isinstance(x, Const) and isinstance(x.value, float) and x.value == float("-inf")
            for x in walk_exprs(form.kernel.body)
        )
        self.block_level = form.kernel.level is Level.BLOCK
        self.decl_types = types
        self.bound: dict[str, str] = {}  # placeholders of a lifted elementwise operation
        self.source_lane: str | None = None
        self.last_line: tuple[str, int] = ("", 0)
        self.loop_vars: dict[str, str] = {}
        self.ptr_env: dict[str, tuple[Buffer, str, Type]] = {}

    # -- expressions ------------------------------------------------------------------------------------

    def ptr(self, e: Expr) -> tuple[Buffer, str, Type]:
        """The buffer ``e`` points into, the offset in the buffer's elements, and the pointee type seen."""
        match e:
            case VarRef(name) if name in self.buffers:
                b = self.buffers[name]
                return b, "0", b.elem
            case VarRef(name) if name in self.ptr_env:
                return self.ptr_env[name]
            case VarRef(name) if name in self.form.remat:
                init = self.form.remat[name].init
                assert init is not None
                return self.ptr(init)
            case Splat(operand):
                buf, off, view = self.ptr(operand)
                return buf, BLOCK_RULES[Splat].format(a=f"({off} : ℤ)"), view
            case Broadcast(operand, t):
                buf, off, view = self.ptr(operand)
                return buf, _broadcast(off, _shape(operand.type), t.shape), view
            case Reshape(operand):
                return self.ptr(operand)
            case PtrAdd(base, offset) if isinstance(e.type, BlockType):
                buf, off, view = self.ptr(base)
                o = self.expr(offset)
                if not isinstance(base.type, BlockType):
                    off = BLOCK_RULES[Splat].format(a=off)
                if not isinstance(offset.type, BlockType):
                    o = BLOCK_RULES[Splat].format(a=o)
                return buf, f"(Larkc.Block.map2 (fun (el0 : ℤ) (el1 : ℤ) => (el0 + el1)) {off} {o})", view
            case PtrAdd(base, offset):
                buf, off, view = self.ptr(base)
                k = _lanes(view)
                scaled = self.expr(offset) if k == 1 else f"({self.expr(offset)} * {k})"
                return buf, f"({off} + {scaled})", view
            case Cast(operand=op, type=t) if isinstance(t, PointerType):
                buf, off, _ = self.ptr(op)
                view = t.pointee
                elem = view.elem if isinstance(view, VectorType) else view
                bits_view = (
                    isinstance(view, VectorType)
                    and isinstance(elem, ScalarType)
                    and isinstance(buf.elem, ScalarType)
                    and elem.is_int
                    and buf.elem.is_float
                    and elem.size == buf.elem.size
                )
                if elem != buf.elem and not bits_view:
                    raise _unsupported(
                        "pointer reinterpretation in Lean lowering", e.span, f"{buf.elem} buffer as {view}"
                    )
                return buf, off, view
            case _:
                raise _unsupported("pointer expression in Lean lowering", e.span, type(e).__name__)

    def loc(self, e: Expr, lane: int | None = None) -> str:
        buf, off, _ = self.ptr(e)
        if lane:
            off = f"({off} + {lane})"
        match buf.kind:
            case "glob":
                return f"(Loc.glob {buf.number} {off})"
            case "shr":
                return f"(Loc.shr b {buf.number} {off})"
            case _:
                return f"(Loc.lcl b t {buf.number} {off})"

    def expr(self, e: Expr) -> str:
        if isinstance(e.type, BlockType):
            return self.block_expr(e)
        match e:
            case Reduce(op, operand, axis):  # a 1-D block reduced to a scalar: element 0 of the result
                return f"({self.reduce(op, operand, axis)} 0)"
            case Combine(kind=CombineKind.REDUCE):  # the same, with a combine function
                return f"({self.combine(e)} 0)"
            case VarRef(name) if name in self.bound:
                return self.bound[name]
            case Const(value, t):
                c = _cls(t, e.span)
                if c == "bool":
                    return "True" if value else "False"
                if c == "real":
                    if self.sentinel and float(value) == float("-inf"):
                        return "ninf"
                    return _real_literal(float(value), e.span)
                return f"({int(value)} : ℤ)"
            case VarRef(name):
                if self.source_lane is not None:
                    if name in self.registers:
                        return f"({self.reg_read(name, self.source_lane)})"
                    if not (name in self.scalars or name in self.loop_vars):
                        raise _unsupported(
                            "shuffle of this value in Lean lowering", e.span, f"{name} is not kept in a register"
                        )
                if name in self.loop_vars:
                    return self.loop_vars[name]
                if name in self.scalars:
                    return self.scalars[name]
                if isinstance(e.type, PointerType):
                    raise _unsupported("pointer value in Lean lowering", e.span, name)
                return _ident(name)
            case Builtin(reg, dim):
                k = dim.index
                match reg:
                    case BuiltinReg.THREAD_IDX:
                        return self._coord("t", self.block, k)
                    case BuiltinReg.BLOCK_IDX:
                        return self._coord("b", self.grid, k)
                    case BuiltinReg.BLOCK_DIM:
                        return f"(({self.block[k]} : ℕ) : ℤ)"
                    case BuiltinReg.GRID_DIM:
                        return f"(({self.grid[k]} : ℕ) : ℤ)"
                    case _:
                        assert_never(reg)
            case Unary(op, operand) if _cls(operand.type, e.span) == "vec":
                rule = UNARY_RULES[op].get("real")
                if rule is None:
                    raise _unsupported(f"operator {op.value} in Lean lowering", e.span, str(operand.type))
                a = self.expr(operand)
                lanes = range(_lanes(operand.type))
                return "[" + ", ".join(rule.format(a=f"(Larkc.Cuda.lane {a} {k})") for k in lanes) + "]"
            case Binary(op, lhs, rhs) if _cls(lhs.type, e.span) == "vec":
                rule = BINARY_RULES[op].get("real")
                if rule is None or _cls(e.type, e.span) != "vec":
                    raise _unsupported(f"operator {op.value} of vectors in Lean lowering", e.span, str(lhs.type))
                a, b = self.expr(lhs), self.expr(rhs)
                lanes = range(_lanes(lhs.type))
                return (
                    "["
                    + ", ".join(
                        rule.format(a=f"(Larkc.Cuda.lane {a} {k})", b=f"(Larkc.Cuda.lane {b} {k})") for k in lanes
                    )
                    + "]"
                )
            case Binary(BinaryOp.BITAND, lhs, rhs) if _cls(lhs.type, e.span) == "int" and _low_mask(rhs):
                # x & (2^k - 1) is x mod 2^k for every two's-complement x: Lean's `%` on ℤ (Euclidean)
                return f"({self.expr(lhs)} % {_low_mask(rhs) + 1})"
            case Unary(op, operand):
                rule = UNARY_RULES[op].get(_cls(operand.type, e.span))
                if rule is None:
                    raise _unsupported(f"operator {op.value} in Lean lowering", e.span, str(operand.type))
                return rule.format(a=self.expr(operand))
            case Binary(op, lhs, rhs):
                rule = BINARY_RULES[op].get(_cls(lhs.type, e.span))
                if rule is None:
                    raise _unsupported(f"operator {op.value} in Lean lowering", e.span, str(lhs.type))
                return rule.format(a=self.expr(lhs), b=self.expr(rhs))
            case Select(c, x, y):
                return f"(if {self.expr(c)} then {self.expr(x)} else {self.expr(y)})"
            case MakeVector(elems):
                return "[" + ", ".join(self.expr(x) for x in elems) + "]"
            case Extract(vector, index):
                lane = const_int(index, {})
                if lane is None:
                    raise _unsupported("vector lane chosen at run time in Lean lowering", e.span, "lane index")
                return f"(Larkc.Cuda.lane {self.expr(vector)} {lane})"
            case Insert(vector, index, value):
                lane = const_int(index, {})
                if lane is None:
                    raise _unsupported("vector lane chosen at run time in Lean lowering", e.span, "lane index")
                return f"(Larkc.Cuda.setLane {self.expr(vector)} {lane} {self.expr(value)})"
            case Cast(operand=op, type=t, kind=kind):
                src, dst = _cls(op.type, e.span), _cls(t, e.span)
                if src in ("vec", "bits") or dst in ("vec", "bits"):
                    if kind is CastKind.CONVERT and src == dst == "vec" and _lanes(op.type) == _lanes(t):
                        return self.expr(op)
                    if kind is CastKind.BITCAST and {src, dst} <= {"vec", "bits"} and _same_lanes(op.type, t):
                        return self.expr(op)  # the same bits, lane by lane: the same floats
                    raise _unsupported("vector conversion in Lean lowering", e.span, f"{op.type} to {t}")
                if kind is CastKind.BITCAST and src != dst:
                    raise _unsupported("bit reinterpretation in Lean lowering", e.span, f"{op.type} as {t}")
                if src == dst:
                    return self.expr(op)  # integer widths and float formats: exact values (see the module doc)
                if (src, dst) == ("int", "real"):
                    return f"(({self.expr(op)} : ℤ) : ℝ)"
                if (src, dst) == ("bool", "int"):
                    return f"(if {self.expr(op)} then (1 : ℤ) else 0)"
                if (src, dst) == ("bool", "real"):
                    return f"(if {self.expr(op)} then (1 : ℝ) else 0)"
                if (src, dst) == ("int", "bool"):
                    return f"({self.expr(op)} ≠ 0)"
                if (src, dst) == ("real", "bool"):
                    return f"({self.expr(op)} ≠ 0)"
                raise _unsupported("conversion in Lean lowering", e.span, f"{op.type} to {t}")
            case MathCall(fn, args) if any(_cls(a.type, e.span) == "vec" for a in args):
                math_rule = MATH_RULES[fn]
                if math_rule is None or not all(_cls(a.type, e.span) == "vec" for a in args):
                    raise _unsupported(f"{fn.value} of vectors in Lean lowering", e.span, fn.value)
                vals = [self.expr(a) for a in args]
                lanes = range(_lanes(args[0].type))
                return (
                    "["
                    + ", ".join(
                        math_rule.format(**dict(zip("abc", (f"(Larkc.Cuda.lane {v} {k})" for v in vals), strict=False)))
                        for k in lanes
                    )
                    + "]"
                )
            case MathCall(fn, args):
                if any(_cls(a.type, e.span) != "real" for a in args):
                    raise _unsupported(f"{fn.value} of integers in Lean lowering", e.span, fn.value)
                rule = MATH_RULES[fn]
                if rule is None:
                    raise _unsupported(f"{fn.value} in Lean lowering", e.span, fn.value)
                names = dict(zip("abc", (self.expr(a) for a in args), strict=False))
                return rule.format(**names)
            case _:
                raise _unsupported("expression in Lean lowering", e.span, type(e).__name__)

    # -- blocks (block-level kernels) -------------------------------------------------------------------

    def block_expr(self, e: Expr) -> str:
        """A block-valued expression as a ``Larkc.Block.Blk`` term (see :data:`BLOCK_RULES`)."""
        t = e.type
        assert isinstance(t, BlockType)
        if isinstance(t.elem, PointerType):
            raise _unsupported("block of pointers used as a value in Lean lowering", e.span, str(t))
        match e:
            case VarRef(name):
                return _ident(name)
            case Arange(start):
                return BLOCK_RULES[Arange].format(start=f"({start} : ℤ)")
            case Splat(operand):
                return BLOCK_RULES[Splat].format(a=self.expr(operand))
            case Broadcast(operand):
                return _broadcast(self.expr(operand), _shape(operand.type), t.shape)
            case Reshape(operand):
                return BLOCK_RULES[Reshape].format(a=self.expr(operand))
            case Reduce(op, operand, axis):
                return self.reduce(op, operand, axis)
            case Scan(op, operand, axis, reverse):
                shape = _shape(operand.type)
                if _cls(_elem_of(operand.type), operand.span) not in ("int", "real"):
                    raise _unsupported("scan of this type in Lean lowering", operand.span, str(operand.type))
                return BLOCK_RULES[Scan].format(
                    fn=SCAN_RULES[op][reverse],
                    n=shape[axis],
                    inner=math.prod(shape[axis + 1 :]),
                    a=self.expr(operand),
                )
            case Permute(operand, perm):
                src = _shape(operand.type)
                terms = [
                    f"el0 / {math.prod(t.shape[i + 1 :])} % {t.shape[i]} * {math.prod(src[p + 1 :])}"
                    for i, p in enumerate(perm)
                ]
                return BLOCK_RULES[Permute].format(index=" + ".join(terms), a=self.expr(operand))
            case Combine():
                return self.combine(e)
            case Dot(lhs, rhs, acc):
                if any(_cls(_elem_of(x.type), e.span) != "real" for x in (lhs, rhs, e)):
                    raise _unsupported("dot of integers in Lean lowering", e.span, str(t))
                k, n = _shape(lhs.type)[1], t.shape[1]
                prod = BLOCK_RULES[Dot].format(k=k, n=n, a=self.expr(lhs), b=self.expr(rhs))
                if acc is None:
                    return prod
                return f"(Larkc.Block.map2 (fun (el0 : ℝ) (el1 : ℝ) => (el0 + el1)) {prod} {self.expr(acc)})"
            case Unary() | Binary() | Select() | Cast() | MathCall():
                return self.lifted(e)
            case _:
                raise _unsupported("block expression in Lean lowering", e.span, type(e).__name__)

    def combine(self, e: Combine) -> str:
        """``tl.reduce``/``tl.associative_scan`` with a combine function: the left fold of its body (in the
        simulator's order: from element 0, or from the last element for a reverse scan), in exact
        arithmetic, as a function of the element index ``el0`` of the result."""
        f = self.form.combiners[e.func]
        n = len(e.args)
        shape = _shape(e.args[0].type)
        size, inner = shape[e.axis], math.prod(shape[e.axis + 1 :])
        xs = [self.expr(a) for a in e.args]
        accs, nexts = f.params[:n], f.params[n:]
        saved = dict(self.bound)
        names = {p.name: "cv_" + _ident(p.name)[2:] for p in f.params}
        names |= {st.name: "cv_" + _ident(st.name)[2:] for st in f.body if isinstance(st, Decl)}
        types = [_LEAN_TYPE[_cls(p.type, p.span)] for p in accs]

        def proj(j: int) -> str:
            return "" if n == 1 else ".2" * j + (".1" if j < n - 1 else "")

        def tup(vals: Sequence[str]) -> str:
            return vals[0] if n == 1 else "(" + ", ".join(vals) + ")"

        match e.kind:
            case CombineKind.REDUCE:
                count, first, at = f"{size - 1}", "0", "(ck + 1)"
                elem = "Larkc.Block.along"
            case CombineKind.SCAN if e.reverse:
                count = f"({size} - 1 - Larkc.Block.pos {size} {inner} el0)"
                first, at, elem = f"{size - 1}", f"({size} - 2 - ck)", "Larkc.Block.lineAt"
            case CombineKind.SCAN:
                count, first, at = f"(Larkc.Block.pos {size} {inner} el0)", "0", "(ck + 1)"
                elem = "Larkc.Block.lineAt"
            case _:
                assert_never(e.kind)
        lets = [f"let {names[p.name]} := cacc{proj(j)}" for j, p in enumerate(accs)]
        lets += [f"let {names[p.name]} := ({elem} {size} {inner} {x} el0 {at})" for p, x in zip(nexts, xs, strict=True)]
        self.bound = {**saved, **names}
        try:
            for st in f.body:
                match st:
                    case Decl(name, t, init) if init is not None:
                        lets.append(f"let {names[name]} : {self.typ(name, t, st.span)} := {self.expr(init)}")
                    case Assign(name, value):
                        lets.append(f"let {names[name]} := {self.expr(value)}")
                    case _:
                        raise _unsupported("combine function in Lean lowering", st.span, "not straight-line code")
        finally:
            self.bound = saved
        step = "; ".join([*lets, tup([names[p.name] for p in accs])])
        start = tup([f"({elem} {size} {inner} {x} el0 {first})" for x in xs])
        acc_type = " × ".join(types) if n > 1 else types[0]
        return BLOCK_RULES[Combine].format(count=count, acc_type=acc_type, step=step, init=start, proj=proj(e.result))

    def reduce(self, op: ReduceOp, operand: Expr, axis: int) -> str:
        shape = _shape(operand.type)
        if _cls(_elem_of(operand.type), operand.span) not in ("int", "real"):
            raise _unsupported("reduction of this type in Lean lowering", operand.span, str(operand.type))
        return BLOCK_RULES[Reduce].format(
            fn=REDUCE_RULES[op], n=shape[axis], inner=math.prod(shape[axis + 1 :]), a=self.expr(operand)
        )

    def lifted(self, e: Unary | Binary | Select | Cast | MathCall) -> str:
        """An elementwise operation on blocks: its scalar rule on the elements, with ``Block.map``,
        ``map2`` or ``map3`` over its block operands (scalar operands are the same for every element)."""
        operands: tuple[Expr, ...]
        match e:
            case Unary(operand=a) | Cast(operand=a):
                operands = (a,)
            case Binary(lhs=a, rhs=b):
                operands = (a, b)
            case Select(cond=c, if_true=a, if_false=b):
                operands = (c, a, b)
            case MathCall(args=args):
                operands = args
            case _:
                assert_never(e)
        terms: list[str] = []
        binders: list[str] = []
        elems: list[Expr] = []
        saved = dict(self.bound)
        for o in operands:
            if not isinstance(o.type, BlockType):
                elems.append(o)
                continue
            terms.append(self.expr(o))
            k = len(binders)
            placeholder = f"%lift.{k}"
            elems.append(VarRef(placeholder, _elem_of(o.type), o.span))
            binders.append(f"({_LIFT_PARAMS[k]} : {_LEAN_TYPE[_cls(_elem_of(o.type), o.span)]})")
        elem_t = _elem_of(e.type)
        scalar: Expr
        match e:
            case Unary():
                scalar = Unary(e.op, elems[0], elem_t, e.span)
            case Cast():
                scalar = Cast(elems[0], elem_t, e.kind, e.span)
            case Binary():
                scalar = Binary(e.op, elems[0], elems[1], elem_t, e.span)
            case Select():
                scalar = Select(elems[0], elems[1], elems[2], elem_t, e.span)
            case MathCall():
                scalar = MathCall(e.fn, tuple(elems), elem_t, e.approx, e.span)
            case _:
                assert_never(e)
        self.bound = {**saved, **{f"%lift.{k}": _LIFT_PARAMS[k] for k in range(len(binders))}}
        try:
            body = self.expr(scalar)
        finally:
            self.bound = saved
        if len(binders) == 1 and body == _LIFT_PARAMS[0]:
            return terms[0]  # an identity (an integer width or float format change: exact values)
        if not binders:
            return BLOCK_RULES[Splat].format(a=body)
        fn = {1: "Larkc.Block.map", 2: "Larkc.Block.map2", 3: "Larkc.Block.map3"}[len(binders)]
        return f"({fn} (fun {' '.join(binders)} => {body}) {' '.join(terms)})"

    def block_access(self, ptr: Expr, mask: Expr | None, span: Span) -> tuple[int, str, str, Type]:
        """For a memory access through a block of pointers: its element count, its locations and mask
        as ``Block.Blk`` terms, and the pointee type."""
        t = ptr.type
        assert isinstance(t, BlockType) and isinstance(t.elem, PointerType)
        buf, off, _ = self.ptr(ptr)
        if buf.kind != "glob":
            raise _unsupported("block access to this memory in Lean lowering", span, buf.name)
        if mask is None:
            m = BLOCK_RULES[Splat].format(a="True")
        elif isinstance(mask.type, BlockType):
            m = self.expr(mask)
        else:
            m = BLOCK_RULES[Splat].format(a=self.expr(mask))
        return math.prod(t.shape), f"(Larkc.Block.globs {buf.number} {off})", m, t.elem.pointee

    def block_values(self, e: Expr | None, t: Type) -> str:
        """``e`` (a block or a scalar, or nothing: zeros) as a block of reals, as memory holds it."""
        c = _cls(t, NO_SPAN if e is None else e.span)
        if e is None:
            return _zero(BlockType(_scalar_of(t), (1,)), NO_SPAN)
        v = self.expr(e) if isinstance(e.type, BlockType) else BLOCK_RULES[Splat].format(a=self.expr(e))
        if c == "int":
            return f"(Larkc.Block.map (fun (el0 : ℤ) => ((el0 : ℤ) : ℝ)) {v})"
        if c != "real":
            raise _unsupported("block of this type in memory in Lean lowering", e.span, str(t))
        return v

    def block_stmt(self, s: Load | Store | Atomic, ind: str, out: list[str]) -> None:
        """A load, store or atomic through a block of pointers (``Larkc.Block``'s folds of the thread
        operations)."""
        k = len(out)
        n, locs, mask, t = self.block_access(s.ptr, s.mask, s.span)
        out.append(f"{ind}let locs{k} : Larkc.Block.Blk Loc := {locs}")
        out.append(f"{ind}let mask{k} : Larkc.Block.Blk Prop := {mask}")
        match s:
            case Load(dst, _, _, other):
                c = _cls(t, s.span)
                load = f"(Larkc.Block.load s mask{k} locs{k} {self.block_values(other, t)})"
                if c == "int":
                    load = f"(Larkc.Block.map (fun (el0 : ℝ) => (Int.floor el0 : ℤ)) {load})"
                elif c != "real":
                    raise _unsupported("load of this type in Lean lowering", s.span, str(t))
                out.append(f"{ind}let {_ident(dst)} := {load}")
                out.append(f"{ind}let s := Larkc.Block.noteAll s {n} mask{k} locs{k}")
            case Store(_, value):
                out.append(f"{ind}let s := Larkc.Block.putAll s {n} mask{k} locs{k} {self.block_values(value, t)}")
            case Atomic(_, op, _, value):
                fn = {AtomicOp.ADD: "addAll", AtomicOp.MAX: "amaxAll"}.get(op)
                if fn is None or s.compare is not None:
                    raise _unsupported("atomic in Lean lowering", s.span, f"{op.value} (add and max of blocks)")
                out.append(f"{ind}let s := Larkc.Block.{fn} s {n} mask{k} locs{k} {self.block_values(value, t)}")
            case _:
                assert_never(s)

    def scalar_masked(self, s: Load | Store | Atomic, ind: str, out: list[str]) -> None:
        """A load, store or atomic through one pointer under a mask (block level): nothing happens where
        the mask is false, and a load takes ``other`` (0 without one). An atomic may have no mask."""
        m = self.expr(s.mask) if s.mask is not None else None
        loc = self.loc(s.ptr)
        t = _pointee(s.ptr.type)
        c = _cls(t, s.span)
        if c not in ("int", "real"):
            raise _unsupported("masked access of this type in Lean lowering", s.span, str(t))
        match s:
            case Load(dst, _, _, other):
                read = f"s.get {loc}" if c == "real" else f"Int.floor (s.get {loc})"
                fill = self.expr(other) if other is not None else _zero(t, s.span)
                out.append(f"{ind}let {_ident(dst)} := if {m} then {read} else {fill}")
                out.append(f"{ind}let s := if {m} then s.note {loc} else s")
            case Store(_, value):
                v = self.expr(value) if c == "real" else f"(({self.expr(value)} : ℤ) : ℝ)"
                out.append(f"{ind}let s := if {m} then s.put {loc} {v} else s")
            case Atomic(_, op, _, value):
                v = self.expr(value) if c == "real" else f"(({self.expr(value)} : ℤ) : ℝ)"
                fn = {AtomicOp.ADD: "add", AtomicOp.MAX: "amax"}.get(op)
                if fn is None or s.compare is not None or (op is AtomicOp.ADD and c != "real"):
                    raise _unsupported("atomic in Lean lowering", s.span, f"{op.value} (add of floats, max)")
                update = f"s.{fn} {loc} {v}"
                out.append(f"{ind}let s := {update}" if m is None else f"{ind}let s := if {m} then {update} else s")
            case _:
                assert_never(s)

    def unused_result(self, s: Atomic) -> None:
        """A block-level atomic always names its result; the model has no old values, so it must be unused."""
        if s.dst is not None and any(
            isinstance(x, VarRef) and x.name == s.dst for x in walk_exprs(self.form.kernel.body)
        ):
            raise _unsupported("atomic whose old value is used in Lean lowering", s.span, s.op.value)

    @staticmethod
    def _coord(var: str, dims: Sequence[str], k: int) -> str:
        if k == 0:
            return f"((({var} % {dims[0]} : ℕ)) : ℤ)"
        if k == 1:
            return f"(((({var} / {dims[0]}) % {dims[1]} : ℕ)) : ℤ)"
        return f"((({var} / ({dims[0]} * {dims[1]}) : ℕ)) : ℤ)"

    # -- statements -------------------------------------------------------------------------------------

    def typ(self, name: str, t: Type, span: Span) -> str:
        if self.block_level and _is_ptr(t):
            return "ℕ → ℤ" if isinstance(t, BlockType) else "ℤ"  # the offset into its (fixed) buffer
        if isinstance(t, BlockType):
            return f"ℕ → {self.typ(name, t.elem, span)}"
        c = _cls(t, span)
        if c == "ptr":
            raise _unsupported("pointer variable in Lean lowering", span, name)
        return _LEAN_TYPE[c]

    def assigned(self, stmts: Sequence[Stmt]) -> list[tuple[str, str]]:
        """Variables ``stmts`` assign that are declared outside them, with their Lean types."""
        declared = {s.name for s in walk_stmts(stmts) if isinstance(s, Decl)}
        out: dict[str, str] = {}
        for s in walk_stmts(stmts):
            name: str | None = None
            t: Type | None = None
            if isinstance(s, Assign):
                name, t = s.name, s.value.type
            elif isinstance(s, Load):
                name = s.dst
                t = self.decl_types.get(name, _pointee(s.ptr.type))
            if name is not None and t is not None and name not in declared and name not in out:
                out[name] = self.typ(name, t, s.span)
        return sorted(out.items())

    def block_(self, stmts: Sequence[Stmt], ind: str, out: list[str]) -> None:
        for s in stmts:
            self.stmt(s, ind, out)

    def stmt(self, s: Stmt, ind: str, out: list[str]) -> None:
        before = len(out)
        self._stmt(s, ind, out)
        if len(out) > before and s.span.line > 0 and (s.span.file, s.span.line) != self.last_line:
            # where the code comes from: `larkc emit --check` maps Lean's messages back through these
            out.insert(before, f"{ind}-- {s.span.file.split('/')[-1]}:{s.span.line}")
            self.last_line = (s.span.file, s.span.line)

    def _stmt(self, s: Stmt, ind: str, out: list[str]) -> None:
        match s:
            case Decl(name, t, init):
                if name in self.form.remat:
                    return  # recomputed where used (see rematerialise)
                if _is_ptr(t):
                    if init is None:
                        raise _unsupported("pointer declared without a value in Lean lowering", s.span, name)
                    buf, off, view = self.ptr(init)
                    out.append(f"{ind}let {_ident(name)} : {'ℕ → ℤ' if isinstance(t, BlockType) else 'ℤ'} := {off}")
                    self.ptr_env[name] = (buf, _ident(name), view)
                elif init is not None:
                    out.append(f"{ind}let {_ident(name)} : {self.typ(name, t, s.span)} := {self.expr(init)}")
                else:
                    out.append(f"{ind}let {_ident(name)} : {self.typ(name, t, s.span)} := {_zero(t, s.span)}")
            case Assign(name, value) if self.block_level and _is_ptr(value.type) and name in self.ptr_env:
                # a pointer moved within its buffer (Triton's `ptrs += BLOCK * stride`): its offset changes
                buf, off, _ = self.ptr(value)
                if buf != self.ptr_env[name][0]:
                    raise _unsupported("pointer moved to another buffer in Lean lowering", s.span, name)
                out.append(f"{ind}let {_ident(name)} := {off}")
            case Assign(name, value):
                if _is_ptr(value.type):
                    raise _unsupported("pointer assignment in Lean lowering", s.span, name)
                out.append(f"{ind}let {_ident(name)} := {self.expr(value)}")
            case Alloc():
                pass
            case Load(ptr=ptr) if isinstance(ptr.type, BlockType):
                self.block_stmt(s, ind, out)
            case Load(mask=mask) if mask is not None and self.block_level:
                self.scalar_masked(s, ind, out)
            case Store(ptr=ptr) if isinstance(ptr.type, BlockType):
                self.block_stmt(s, ind, out)
            case Store(mask=mask) if mask is not None and self.block_level:
                self.scalar_masked(s, ind, out)
            case Atomic(ptr=ptr) if self.block_level:
                _device_scope(s)
                self.unused_result(s)
                if isinstance(ptr.type, BlockType):
                    self.block_stmt(s, ind, out)
                else:
                    self.scalar_masked(s, ind, out)
            case Load(dst, ptr, mask, _):
                if mask is not None:
                    raise _unsupported("masked load in Lean lowering", s.span, dst)
                assert isinstance(ptr.type, PointerType)
                if s.nc and not ptr.type.const:
                    # the Lean model's loads are coherent: one through the read-only cache is the same only
                    # of memory the launch never writes; a non-const pointer gives no such reason
                    raise _unsupported(
                        "read through the read-only cache (__ldg) of a pointer that is not const in Lean lowering",
                        s.span,
                        dst,
                    )
                t = ptr.type.pointee
                c = _cls(t, s.span)
                if c in ("vec", "bits"):
                    locs = [self.loc(ptr, k) for k in range(_lanes(t))]
                    out.append(f"{ind}let {_ident(dst)} := [" + ", ".join(f"s.get {x}" for x in locs) + "]")
                    for x in locs:
                        out.append(f"{ind}let s := s.note {x}")
                    return
                loc = self.loc(ptr)
                read = {"real": f"s.get {loc}", "int": f"Int.floor (s.get {loc})"}.get(c)
                if read is None:
                    raise _unsupported("load of this type in Lean lowering", s.span, str(t))
                out.append(f"{ind}let {_ident(dst)} := {read}")
                out.append(f"{ind}let s := s.note {loc}")
            case Store(ptr, value, mask):
                if mask is not None:
                    raise _unsupported("masked store in Lean lowering", s.span, "mask")
                c = _cls(value.type, s.span)
                v = self.expr(value)
                if c in ("vec", "bits"):
                    for k in range(_lanes(value.type)):
                        out.append(f"{ind}let s := s.put {self.loc(ptr, k)} (Larkc.Cuda.lane {v} {k})")
                    return
                if c == "int":
                    v = f"(({v} : ℤ) : ℝ)"
                elif c != "real":
                    raise _unsupported("store of this type in Lean lowering", s.span, str(value.type))
                out.append(f"{ind}let s := s.put {self.loc(ptr)} {v}")
            case Atomic(dst, op, ptr, value):
                _device_scope(s)
                if dst is not None:
                    raise _unsupported("atomic whose old value is used in Lean lowering", s.span, op.value)
                float_view = _float_bits_max(op, ptr, value)
                if op is AtomicOp.ADD and _cls(value.type, s.span) == "real":
                    out.append(f"{ind}let s := s.add {self.loc(ptr)} {self.expr(value)}")
                elif float_view is not None:
                    # atomicMax on the integer view of floats orders them as floats when all are
                    # non-negative (a translator rewrite, listed in the trusted base)
                    fptr, fvalue = float_view
                    out.append(f"{ind}let s := s.amax {self.loc(fptr)} {self.expr(fvalue)}")
                elif op is AtomicOp.MAX and _cls(value.type, s.span) == "int":
                    out.append(f"{ind}let s := s.amax {self.loc(ptr)} (({self.expr(value)} : ℤ) : ℝ)")
                else:
                    raise _unsupported(
                        "atomic in Lean lowering",
                        s.span,
                        f"{op.value} (atomicAdd of floats, atomicMax of integers or of non-negative floats' bits)",
                    )
            case If(c, t, e):
                self.if_(s, c, t, e, ind, out)
            case For():
                self.for_(s, ind, out)
            case Fence(scope) if scope is not MemScope.BLOCK and fences_and_atomics(self.form.kernel.body):
                # The simulator orders accesses of different blocks through a fence and an atomic
                # (release and acquire patterns); the Lean model orders nothing between blocks, so its
                # race-freedom theorem would not hold for a kernel that relies on them.
                raise _unsupported("fence with atomics between blocks in Lean lowering", s.span, "__threadfence")
            case Fence():
                pass
            case Assert(c):
                out.append(f"{ind}let s := s.check {self.expr(c)}")
            case Assume():
                raise _precondition(s)
            case While() | DoWhile() | Break() | Continue() | Return():
                raise _unsupported(f"{type(s).__name__.lower()} in Lean lowering", s.span, type(s).__name__)
            case Barrier() | Shuffle() | Vote() | Call():
                raise AssertionError(f"{type(s).__name__} inside a phase")
            case _:
                assert_never(s)

    def _tuple(self, names: Sequence[tuple[str, str]]) -> tuple[str, str]:
        """The Lean tuple of ``names`` and ``s``, and its type."""
        vals = [_ident(n) for n, _ in names] + ["s"]
        # `×` binds tighter than `→`: a block's function type is parenthesised inside a product
        types = [f"({t})" if "→" in t else t for _, t in names] + ["TState"]
        return "(" + ", ".join(vals) + ")", " × ".join(types)

    def _unpack(self, p: str, names: Sequence[tuple[str, str]], ind: str, out: list[str]) -> None:
        k = len(names)
        for i, (n, _) in enumerate(names):
            out.append(f"{ind}let {_ident(n)} := {p}" + ".2" * i + ".1")
        out.append(f"{ind}let s := {p}" + ".2" * k)

    def if_(self, s: Stmt, c: Expr, t: Sequence[Stmt], e: Sequence[Stmt], ind: str, out: list[str]) -> None:
        names = self.assigned((*t, *e))
        tup, _ = self._tuple(names)
        p = f"p{len(out)}"
        out.append(f"{ind}let {p} :=")
        out.append(f"{ind}  if {self.expr(c)} then")
        self.block_(t, ind + "    ", out)
        out.append(f"{ind}    {tup}")
        out.append(f"{ind}  else")
        self.block_(e, ind + "    ", out)
        out.append(f"{ind}    {tup}")
        self._unpack(p, names, ind, out)

    def for_(self, s: For, ind: str, out: list[str]) -> None:
        control = counted_loop(s, constant_step=False)
        lane_by_var = any(
            isinstance(x, Extract | Insert) and const_int(x.index, {}) is None for x in walk_exprs(s.body)
        )
        values = unrolled_values(s) if control is None or lane_by_var else None
        if values is not None:
            init = s.init[0]
            assert isinstance(init, Decl)
            for v in values:
                self.block_(substitute(s.body, {init.name: Const(v, init.type, init.span)}), ind, out)  # type: ignore[arg-type]
            return
        if control is None:
            raise _unsupported("loop in Lean lowering", s.span, "not a counted for (i = a; i < b; i += c)")
        var, _, start, cmp, bound, step_e = control
        step = self.expr(step_e)
        if not _positive(step_e, self.form):
            raise _unsupported("loop step in Lean lowering", s.span, "its sign is not evident")
        lo, hi = self.expr(start), self.expr(bound)
        match cmp:
            case BinaryOp.LT:
                count, stride = f"(Larkc.Cuda.tripUp {lo} {hi} {step})", step
            case BinaryOp.LE:
                count, stride = f"(Larkc.Cuda.tripUp {lo} ({hi} + 1) {step})", step
            case BinaryOp.GT:
                count, stride = f"(Larkc.Cuda.tripDown {lo} {hi} {step})", f"(-{step})"
            case BinaryOp.GE:
                count, stride = f"(Larkc.Cuda.tripDown {lo} ({hi} - 1) {step})", f"(-{step})"
            case _:
                raise AssertionError(cmp)
        names = self.assigned(s.body)
        tup, ty = self._tuple(names)
        p = f"p{len(out)}"
        q = f"q{len(out)}"
        out.append(f"{ind}let {p} := Larkc.Cuda.forLoop {lo} {stride} {count} {tup}")
        out.append(f"{ind}  (fun ({_ident(var)} : ℤ) ({q} : {ty}) =>")
        self._unpack(q, names, ind + "    ", out)
        self.block_(s.body, ind + "    ", out)
        out.append(f"{ind}    {tup})")
        self._unpack(p, names, ind, out)

    # -- phases -----------------------------------------------------------------------------------------

    def remat_lines(self, used: set[str], ind: str) -> list[str]:
        """``let``s recomputing the rematerialisable variables ``used`` needs, in dependency order."""
        need: list[str] = []

        def visit(name: str) -> None:
            if name in need or name not in self.form.remat:
                return
            init = self.form.remat[name].init
            assert init is not None
            for x in walk_exprs(init):
                if isinstance(x, VarRef):
                    visit(x.name)
            need.append(name)

        for n in sorted(used):
            visit(n)
        out = []
        for n in need:
            d = self.form.remat[n]
            if _is_ptr(d.type):
                continue  # pointers are resolved statically by `ptr`
            assert d.init is not None
            out.append(f"{ind}let {_ident(n)} : {self.typ(n, d.type, d.span)} := {self.expr(d.init)}")
        return out

    def phase_def(self, ph: Phase, loop_vars: Sequence[str]) -> str:
        ind = "  "
        self.last_line = ("", 0)
        body: list[str] = []
        nodes: list[object] = list(ph.pieces) if ph.exchange is None else [ph.exchange]
        used = {x.name for n in nodes for x in walk_exprs(n) if isinstance(x, VarRef)}
        declared = {s.name for p in ph.pieces for s in walk_stmts(p.stmts) if isinstance(s, Decl)}
        body += self.remat_lines(used, ind)
        live_in = [n for n in self.form.carried if n in used or self._assigns_in(ph, n)]
        for n in live_in:
            if self._declared_first(ph, n):
                continue
            body.append(f"{ind}let {_ident(n)} := {self.reg_read(n, 't')}")
        if ph.exchange is not None:
            self.exchange(ph, body, ind)
        else:
            for piece in ph.pieces:
                if piece.guards:
                    g = " ∧ ".join(self.expr(x) for x in piece.guards)
                    names = [(n, t) for n, t in self.assigned(piece.stmts)]
                    names += [
                        (d.name, self.typ(d.name, d.type, d.span))
                        for d in walk_stmts(piece.stmts)
                        if isinstance(d, Decl) and d.name in self.registers and d.name not in self.form.remat
                    ]
                    # variables declared under the guard start at 0 where the guard fails
                    decl_types = {d.name: d.type for d in walk_stmts(piece.stmts) if isinstance(d, Decl)}
                    for n, t in names:
                        # a variable declared under the guard needs a value where the guard fails; one
                        # this phase loaded from its register already has it (and must keep it)
                        loaded = n in live_in and not self._declared_first(ph, n)
                        if n in declared and n in decl_types and not loaded:
                            body.append(f"{ind}let {_ident(n)} : {t} := {_zero(decl_types[n], ph.span)}")
                    tup, _ = self._tuple(names)
                    p = f"p{len(body)}"
                    body.append(f"{ind}let {p} :=")
                    body.append(f"{ind}  if {g} then")
                    self.block_(piece.stmts, ind + "    ", body)
                    body.append(f"{ind}    {tup}")
                    body.append(f"{ind}  else {tup}")
                    self._unpack(p, names, ind, body)
                else:
                    self.block_(piece.stmts, ind, body)
        for n in self.form.carried:
            if n in declared or self._assigns_in(ph, n):
                r, k = self.registers[n], self.lane_count[n]
                if k == 1:
                    v = {
                        "int": f"(({_ident(n)} : ℤ) : ℝ)",
                        "bool": f"(if {_ident(n)} then (1 : ℝ) else 0)",
                    }.get(self.kinds[n], _ident(n))
                    body.append(f"{ind}let s := s.put (Loc.reg b t {r}) {v}")
                else:
                    for j in range(k):
                        body.append(f"{ind}let s := s.put (Loc.reg b t {r + j}) (Larkc.Cuda.lane {_ident(n)} {j})")
        body.append(f"{ind}s")
        params = self._params(loop_vars)
        doc = f"Phase {ph.index}: ends at {ph.span.file.split('/')[-1]}:{ph.span.line}:{ph.span.col} ({ph.ends.value})."
        return f"/-- {doc} -/\ndef phase{ph.index}{params} (b t : ℕ) (s : TState) : TState :=\n" + "\n".join(body)

    def _inline_remat(self, e: Expr, span: Span) -> Expr:
        """``e`` with rematerialisable variables replaced by their definitions (a loop's control is
        evaluated outside the phases, where only the shape symbols and enclosing loops are bound)."""
        while True:
            values = {
                x.name: init
                for x in walk_exprs(e)
                if isinstance(x, VarRef) and x.name in self.form.remat
                for init in (self.form.remat[x.name].init,)
                if init is not None
            }
            if not values:
                break
            e = substitute_expr(e, values)
        if any(
            isinstance(x, Builtin) and x.reg in (BuiltinReg.THREAD_IDX, BuiltinReg.BLOCK_IDX) for x in walk_exprs(e)
        ):
            raise _unsupported("loop bound in Lean lowering", span, "depends on blockIdx or threadIdx")
        return e

    def _declared_first(self, ph: Phase, name: str) -> bool:
        """Whether the first statement of ``ph`` that mentions ``name`` declares it without reading it
        (then the phase does not need its value from an earlier phase)."""
        if ph.exchange is not None:
            return False
        for piece in ph.pieces:
            if any(isinstance(x, VarRef) and x.name == name for g in piece.guards for x in walk_exprs(g)):
                return False
            for st in walk_stmts(piece.stmts):
                if isinstance(st, If | For | While | DoWhile):
                    if any(isinstance(x, VarRef) and x.name == name for x in walk_exprs(_control_exprs(st))):
                        return False
                    continue
                reads = any(isinstance(x, VarRef) and x.name == name for x in walk_exprs(st))
                if isinstance(st, Decl) and st.name == name:
                    return not reads
                if reads or (
                    isinstance(st, Assign | Load) and name in (getattr(st, "name", None), getattr(st, "dst", None))
                ):
                    return False
        return False

    def reg_read(self, name: str, thread: str) -> str:
        """The value of carried variable ``name`` of thread ``thread`` (of block ``b``) from its registers."""
        r, k = self.registers[name], self.lane_count[name]
        match self.kinds[name]:
            case "int":
                return f"Int.floor (s.get (Loc.reg b {thread} {r}))"
            case "bool":
                return f"(s.get (Loc.reg b {thread} {r}) ≠ 0)"
            case "real":
                return f"s.get (Loc.reg b {thread} {r})"
        return "[" + ", ".join(f"s.get (Loc.reg b {thread} {r + j})" for j in range(k)) + "]"

    def _assigns_in(self, ph: Phase, name: str) -> bool:
        if ph.exchange is not None:
            return ph.exchange.stmt.dst == name
        for p in ph.pieces:
            for s in walk_stmts(p.stmts):
                if isinstance(s, Assign | Decl) and s.name == name:
                    return True
                if isinstance(s, Load) and s.dst == name:
                    return True
        return False

    def exchange(self, ph: Phase, body: list[str], ind: str) -> None:
        ex = ph.exchange
        assert ex is not None
        s = ex.stmt
        if not isinstance(s, Shuffle):
            raise _unsupported("vote in Lean lowering", s.span, s.kind.value)
        width = const_int(s.width, {})
        delta = const_int(s.lane, {})
        if width != 32 or delta is None:
            raise _unsupported("shuffle in Lean lowering", s.span, "width must be 32 and the lane a constant")
        match s.kind:
            case ShuffleKind.DOWN:
                src = f"(if t % 32 + {delta} < 32 then t + {delta} else t)"
            case ShuffleKind.UP:
                src = f"(if {delta} ≤ t % 32 then t - {delta} else t)"
            case ShuffleKind.XOR:
                src = f"(t - t % 32 + Nat.xor (t % 32) {delta % 32})"
            case ShuffleKind.IDX:
                src = f"(t - t % 32 + {delta % 32})"
            case _:
                assert_never(s.kind)
        self.source_lane = src
        try:
            val = self.expr(s.value)
        finally:
            self.source_lane = None
        read = sorted(
            {
                (self.registers[x.name], self.lane_count[x.name])
                for x in walk_exprs(s.value)
                if isinstance(x, VarRef) and x.name in self.registers
            }
        )
        notes = [f"(Loc.reg b {src} {r + j})" for r, k in read for j in range(k)]
        g = " ∧ ".join(self.expr(x) for x in ex.guards) if ex.guards else None
        dst = _ident(s.dst)
        if g is None:
            body.append(f"{ind}let {dst} := {val}")
            body.extend(f"{ind}let s := s.note {n}" for n in notes)
        else:
            body.append(f"{ind}let {dst} := if {g} then {val} else {self.reg_read(s.dst, 't')}")
            body.extend(f"{ind}let s := if {g} then s.note {n} else s" for n in notes)

    def _params(self, loop_vars: Sequence[str]) -> str:
        out = ""
        if self.symbols:
            out += " (" + " ".join(self.symbols) + " : ℕ)"
        if self.sentinel:
            out += " (ninf : ℝ)"
        if loop_vars:
            out += " (" + " ".join(_ident(v) for v in loop_vars) + " : ℤ)"
        return out

    def args(self, loop_vals: Sequence[str]) -> str:
        sentinel = " ninf" if self.sentinel else ""
        return "".join(f" {s}" for s in self.symbols) + sentinel + "".join(f" {v}" for v in loop_vals)

    def items(self, items: Sequence[PhaseItem], loop_vars: list[str], loop_vals: list[str], defs: list[str]) -> str:
        parts: list[str] = []
        plain: list[str] = []
        g, bl = self.grid, self.block
        threads = f"(launch ({g[0]} * {g[1]} * {g[2]}) ({bl[0]} * {bl[1]} * {bl[2]}))"
        for it in items:
            if isinstance(it, Phase):
                defs.append(self.phase_def(it, loop_vars))
                plain.append(f"{{ threads := {threads}, prog := phase{it.index}{self.args(loop_vals)} }}")
            else:
                if plain:
                    parts.append("[" + ",\n    ".join(plain) + "]")
                    plain = []
                parts.append(self.loop(it, loop_vars, loop_vals, defs))
        if plain:
            parts.append("[" + ",\n    ".join(plain) + "]")
        return " ++\n  ".join(parts) if parts else "[]"

    def loop(self, lp: PhaseLoop, loop_vars: list[str], loop_vals: list[str], defs: list[str]) -> str:
        saved = dict(self.loop_vars)
        start, bound = (
            self.expr(self._inline_remat(lp.start, lp.span)),
            self.expr(self._inline_remat(lp.bound, lp.span)),
        )
        k = f"k{len(loop_vars)}"
        value = f"(Larkc.Cuda.shr {start} ({k} : ℤ))" if lp.halving else f"({start} + ({k} : ℤ) * {lp.step})"
        self.loop_vars[lp.var] = _ident(lp.var)
        step = abs(lp.step)
        match lp.cmp:
            case _ if lp.halving:
                count = f"(Larkc.Cuda.halvings {start})"
            case BinaryOp.LT:
                count = f"(Larkc.Cuda.tripUp {start} {bound} {step})"
            case BinaryOp.LE:
                count = f"(Larkc.Cuda.tripUp {start} ({bound} + 1) {step})"
            case BinaryOp.GT:
                count = f"(Larkc.Cuda.tripDown {start} {bound} {step})"
            case _:
                count = f"(Larkc.Cuda.tripDown {start} ({bound} - 1) {step})"
        inner = self.items(lp.body, [*loop_vars, lp.var], [*loop_vals, value], defs)
        self.loop_vars = saved
        return f"loopPhases (fun ({k} : ℕ) =>\n    {inner}) {count}"


def _elem_of(t: Type) -> Type:
    """A block's element type; any other type itself."""
    return t.elem if isinstance(t, BlockType) else t


def _scalar_of(t: Type) -> ScalarType:
    assert isinstance(t, ScalarType), t
    return t


def _pointee(t: Type) -> Type:
    """What a pointer, or a block of pointers, points to."""
    p = _elem_of(t)
    assert isinstance(p, PointerType), t
    return p.pointee


def _float_bits_max(op: AtomicOp, ptr: Expr, value: Expr) -> tuple[Expr, Expr] | None:
    """``(float pointer, float value)`` if the atomic is ``atomicMax((int*)p, __float_as_int(v))`` with
    ``p`` a float pointer and ``v`` a float of the same width."""
    if op is not AtomicOp.MAX:
        return None
    if not (isinstance(ptr, Cast) and ptr.kind is CastKind.BITCAST and isinstance(ptr.operand.type, PointerType)):
        return None
    if not (isinstance(value, Cast) and value.kind is CastKind.BITCAST):
        return None
    src, dst = ptr.operand.type.pointee, value.operand.type
    if not (isinstance(src, ScalarType) and src.is_float and isinstance(dst, ScalarType) and dst == src):
        return None
    if not (isinstance(value.type, ScalarType) and value.type.is_int and value.type.size == src.size):
        return None
    return ptr.operand, value.operand


def _same_lanes(a: Type, b: Type) -> bool:
    """Vectors of as many lanes of the same width (a bit cast between them maps lane to lane)."""
    return isinstance(a, VectorType) and isinstance(b, VectorType) and a.lanes == b.lanes and a.elem.size == b.elem.size


def _control_exprs(s: Stmt) -> tuple[Expr, ...]:
    """The expressions a compound statement evaluates itself (not those of its body)."""
    match s:
        case If(c) | While(c) | DoWhile(_, c):
            return (c,)
        case For(_, cond):
            return (cond,) if cond is not None else ()
        case _:
            return ()


def _low_mask(e: Expr) -> int:
    """``2^k - 1`` if ``e`` is that constant with ``k >= 1``, else 0."""
    v = const_int(e, {})
    return v if v is not None and v > 0 and (v & (v + 1)) == 0 else 0


def _declared_types(form: PhaseForm) -> dict[str, Type]:
    out: dict[str, Type] = {p.name: p.type for p in form.kernel.params}
    for s in walk_stmts(form.kernel.body):
        if isinstance(s, Decl):
            out[s.name] = s.type
    return out


def _positive(e: Expr, form: PhaseForm) -> bool:
    match e:
        case Const(value):
            return isinstance(value, int) and value > 0
        case Builtin(reg):
            return reg in (BuiltinReg.BLOCK_DIM, BuiltinReg.GRID_DIM)
        case Binary(BinaryOp.MUL | BinaryOp.ADD, a, b):
            return _positive(a, form) and _positive(b, form)
        case Cast(operand=op, kind=CastKind.CONVERT):
            return _positive(op, form)
        case VarRef(name) if name in form.remat:
            init = form.remat[name].init
            return init is not None and _positive(init, form)
        case _:
            return False


def lower_kernel(
    form: PhaseForm,
    symbols: Sequence[str],
    scalars: Mapping[str, str],
    grid: Sequence[str],
    block: Sequence[str],
    dynamic_shared: str | None = None,
) -> KernelLean:
    """The Lean definitions of ``form``: one per phase and ``kernelPhases``.

    ``scalars`` maps each scalar kernel parameter to its Lean value (an ``ℤ`` or ``ℝ`` term over the
    shape symbols); ``grid`` and ``block`` are the launch dimensions as Lean ``ℕ`` terms, and
    ``dynamic_shared`` the launch's dynamic shared memory in bytes (``extern __shared__`` arrays).
    """
    for s in walk_stmts(form.kernel.body):
        if isinstance(s, Assume):
            raise _precondition(s)  # before anything is lowered: no theorem is stated without it
    low = _Lowerer(form, symbols, scalars, grid, block, dynamic_shared)
    defs: list[str] = []
    kernel = low.items(form.items, [], [], defs)
    params = low._params(())
    defs.append(
        "/-- The kernel: its phases in order, each run by every thread of the launch. -/\n"
        f"def kernelPhases{params} : List Phase :=\n  {kernel}"
    )
    globals_ = tuple((b.name, b.number) for b in low.buffers.values() if b.kind == "glob")
    regs = tuple(sorted(low.registers.items(), key=lambda kv: kv[1]))
    asserts = any(isinstance(s, Assert) for s in walk_stmts(form.kernel.body))
    return KernelLean("\n\n".join(defs) + "\n", low.sentinel, globals_, tuple(low.shared), regs, asserts)
