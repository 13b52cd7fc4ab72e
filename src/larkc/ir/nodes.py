"""The nodes of the kernel IR: expressions, statements, functions and modules.

Design, in brief (``docs/ir.md`` has the long form):

* **Expressions are pure.** Memory, synchronisation and calls are statements, so an expression can be
  evaluated, duplicated or reasoned about without looking at the state of memory. The frontends flatten
  ``y[i] = x[i] + x[i + 1]`` into two loads and a store.
* **Explicitly typed.** Every expression carries its type; operands of a binary operator have equal
  types; conversions are :class:`Cast` nodes. :mod:`larkc.ir.verify` checks all of this.
* **Variables are mutable and declared once.** A function declares each local name exactly once
  (:class:`Decl` or :class:`Alloc`), so names are unique per function; frontends rename shadowed names.
* **Arrays are memory.** Shared and local arrays are allocations (:class:`Alloc`) whose name is a
  pointer; indexing is :class:`PtrAdd` and a :class:`Load`/:class:`Store`, exactly like global buffers.
  Multi-dimensional arrays are flattened by the frontends (row-major, as C lays them out).
* **One family for two levels.** A :class:`Function` of :attr:`Level.THREAD` is a CUDA program run by
  every thread; :attr:`Level.BLOCK` is a Triton program run once per program id whose values may be
  blocks (:class:`~larkc.ir.types.BlockType`). Elementwise nodes work on both; block-only nodes
  (:class:`Arange`, :class:`Splat`, :class:`Broadcast`, :class:`Reshape`, :class:`Permute`,
  :class:`Reduce`, :class:`Scan`, :class:`Combine`, :class:`Dot`) and thread-only statements
  (:class:`Shuffle`, :class:`Vote`) are checked by the verifier.

Every node carries a :class:`~larkc.errors.Span`, excluded from equality, so that two programs that
differ only in where they came from compare equal (the round-trip tests rely on this).
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field

from larkc.errors import NO_SPAN, Span
from larkc.ir.types import AddressSpace, BlockType, ScalarType, Type

__all__ = [
    "Alloc",
    "Arange",
    "Assert",
    "AssertKind",
    "Assign",
    "Assume",
    "Atomic",
    "AtomicOp",
    "Barrier",
    "BarrierScope",
    "Binary",
    "BinaryOp",
    "Break",
    "Broadcast",
    "Builtin",
    "BuiltinReg",
    "Call",
    "Cast",
    "CastKind",
    "Combine",
    "CombineKind",
    "Const",
    "Continue",
    "Decl",
    "Dim",
    "DoWhile",
    "Dot",
    "Expr",
    "Extract",
    "Fence",
    "FenceScope",
    "For",
    "Function",
    "FunctionKind",
    "If",
    "Insert",
    "Level",
    "Load",
    "MakeVector",
    "MathCall",
    "MathFn",
    "MemScope",
    "MemoryOrder",
    "Module",
    "Param",
    "Permute",
    "PtrAdd",
    "Reduce",
    "ReduceOp",
    "Reshape",
    "Return",
    "Scan",
    "Select",
    "Shuffle",
    "ShuffleKind",
    "Splat",
    "Stmt",
    "Store",
    "Unary",
    "UnaryOp",
    "VarRef",
    "Vote",
    "VoteKind",
    "While",
]


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


# --------------------------------------------------------------------------------------------------
# Closed operator enums. The value of each member is its spelling in the printed IR.


class UnaryOp(enum.Enum):
    NEG = "-"  # arithmetic negation (integers wrap, floats flip the sign bit)
    NOT = "!"  # logical not of a bool
    BITNOT = "~"  # bitwise complement of an integer


class BinaryOp(enum.Enum):
    ADD = "+"  # integers wrap modulo 2^bits; floats round to nearest even
    SUB = "-"
    MUL = "*"
    DIV = "/"  # integers truncate toward zero (C semantics); floats are IEEE division
    REM = "%"  # integers only, sign of the dividend (C semantics)
    SHL = "<<"  # integers only; shift amounts >= bits are undefined behaviour, flagged by the simulator
    SHR = ">>"  # arithmetic for signed, logical for unsigned
    BITAND = "&"  # integers or bools
    BITOR = "|"
    BITXOR = "^"
    LAND = "&&"  # bools only; both sides are pure, so no short-circuit is needed
    LOR = "||"
    EQ = "=="  # comparisons produce bool (or a block of bool)
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    MIN = "min"  # integer min, or IEEE minNum for floats (a NaN operand yields the other operand)
    MAX = "max"  # integer max, or IEEE maxNum for floats (fmaxf)

    @property
    def is_comparison(self) -> bool:
        return self in _COMPARISONS

    @property
    def is_logical(self) -> bool:
        return self in (BinaryOp.LAND, BinaryOp.LOR)


_COMPARISONS = frozenset({BinaryOp.EQ, BinaryOp.NE, BinaryOp.LT, BinaryOp.LE, BinaryOp.GT, BinaryOp.GE})


class CastKind(enum.Enum):
    CONVERT = "convert"  # value conversion as C does it: float->int truncates, narrowing floats round to nearest even
    BITCAST = "bitcast"  # same bits, new type (equal sizes), or pointer reinterpretation / address-space cast


class MathFn(enum.Enum):
    """Math intrinsics over floating-point values (unless noted). The value is the printed name."""

    EXP = "exp"
    EXP2 = "exp2"
    EXP10 = "exp10"
    EXPM1 = "expm1"
    LOG = "log"
    LOG2 = "log2"
    LOG10 = "log10"
    LOG1P = "log1p"
    SQRT = "sqrt"
    RSQRT = "rsqrt"  # 1 / sqrt(x)
    CBRT = "cbrt"
    SIN = "sin"
    COS = "cos"
    TAN = "tan"
    ASIN = "asin"
    ACOS = "acos"
    ATAN = "atan"
    ATAN2 = "atan2"  # two arguments (y, x)
    SINH = "sinh"
    COSH = "cosh"
    TANH = "tanh"
    ERF = "erf"
    ERFC = "erfc"
    POW = "pow"  # two arguments
    FMOD = "fmod"  # two arguments, C fmodf
    DIV = "div"  # two arguments; only as `approx` (`__fdividef`); plain division is BinaryOp.DIV
    FMA = "fma"  # three arguments, a * b + c with one rounding
    ABS = "abs"  # floats or signed integers
    FLOOR = "floor"
    CEIL = "ceil"
    TRUNC = "trunc"
    ROUND = "round"  # half away from zero (roundf)
    RINT = "rint"  # half to even (rintf, __float2int_rn before conversion)
    COPYSIGN = "copysign"  # two arguments
    ISNAN = "isnan"  # bool result
    ISINF = "isinf"  # bool result
    ISFINITE = "isfinite"  # bool result
    SIGNBIT = "signbit"  # bool result
    POPC = "popc"  # integers: number of set bits (i32 result)
    CLZ = "clz"  # integers: count of leading zeros (i32 result)
    FFS = "ffs"  # integers: 1-based index of the least significant set bit, 0 if none (i32 result)


class BuiltinReg(enum.Enum):
    THREAD_IDX = "threadIdx"  # index of the thread within its block (CUDA)
    BLOCK_IDX = "blockIdx"  # index of the block in the grid (CUDA), the program id (Triton)
    BLOCK_DIM = "blockDim"  # threads per block (CUDA)
    GRID_DIM = "gridDim"  # blocks in the grid (CUDA), number of programs (Triton)


class Dim(enum.Enum):
    X = "x"
    Y = "y"
    Z = "z"

    @property
    def index(self) -> int:
        return ("x", "y", "z").index(self.value)


class ReduceOp(enum.Enum):
    """The built-in combining operators of :class:`Reduce` and :class:`Scan` (as the binary operators)."""

    SUM = "sum"  # +
    MAX = "max"  # max
    MIN = "min"  # min
    PROD = "prod"  # *


class CombineKind(enum.Enum):
    """What a :class:`Combine` computes with its combine function."""

    REDUCE = "reduce"  # a left fold along the axis: the axis is removed from the shape
    SCAN = "scan"  # the running left folds along the axis (inclusive scan): the shape is kept


class BarrierScope(enum.Enum):
    BLOCK = "block"  # __syncthreads(): every thread of the block, uniformly
    WARP = "warp"  # __syncwarp(mask): the lanes named by the mask


class MemScope(enum.Enum):
    """The threads a fence or an atomic synchronises with (PTX's ``.cta``/``.gpu``/``.sys`` scopes).

    Two atomics to one location are atomic towards each other only if each one's scope includes the
    other's thread (PTX's *morally strong*): a block-scoped atomic from another block is a plain access.
    """

    BLOCK = "block"  # the thread's block: __threadfence_block(), atomicAdd_block, Triton scope="cta"
    DEVICE = "device"  # the launch's device: __threadfence(), atomicAdd, Triton scope="gpu" (the default)
    SYSTEM = "system"  # the device, the host and peer devices: __threadfence_system(), atomicAdd_system


#: the scope of a :class:`Fence` (one enum with the scopes of atomics)
FenceScope = MemScope


class ShuffleKind(enum.Enum):
    IDX = "idx"  # __shfl_sync: read lane `lane`
    UP = "up"  # __shfl_up_sync: read lane - delta (own value if below the segment start)
    DOWN = "down"  # __shfl_down_sync: read lane + delta (own value if past the segment end)
    XOR = "xor"  # __shfl_xor_sync: read lane ^ mask


class VoteKind(enum.Enum):
    ANY = "any"  # __any_sync: i32, non-zero if any active lane's predicate holds
    ALL = "all"  # __all_sync: i32, non-zero if every active lane's predicate holds
    BALLOT = "ballot"  # __ballot_sync: u32 bit mask of the lanes whose predicate holds


class AtomicOp(enum.Enum):
    ADD = "add"
    SUB = "sub"
    MIN = "min"
    MAX = "max"
    EXCH = "exch"
    CAS = "cas"  # compare-and-swap: writes `value` if the old value equals `compare`
    AND = "and"
    OR = "or"
    XOR = "xor"
    INC = "inc"  # unsigned wrap-around increment: `old >= value ? 0 : old + 1` (CUDA atomicInc)
    DEC = "dec"  # unsigned wrap-around decrement: `old == 0 || old > value ? value : old - 1` (atomicDec)


class MemoryOrder(enum.Enum):
    """The memory ordering of an :class:`Atomic` towards other programs (C++/PTX semantics)."""

    RELAXED = "relaxed"  # atomic, orders nothing (CUDA's atomicAdd..., Triton's sem="relaxed")
    ACQUIRE = "acquire"  # later accesses of the program follow the release whose value it reads
    RELEASE = "release"  # earlier accesses of the program precede an acquire that reads its value
    ACQ_REL = "acq_rel"  # both (Triton's default for every atomic)


class Level(enum.Enum):
    THREAD = "thread"  # CUDA: the body runs once per thread; values are scalars and short vectors
    BLOCK = "block"  # Triton: the body runs once per program; values may be blocks


class FunctionKind(enum.Enum):
    KERNEL = "kernel"  # a launchable entry point (`__global__`, `@triton.jit` launched from the host)
    DEVICE = "device"  # a function called from kernels (`__device__`)


# --------------------------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True, slots=True, eq=False)
class Const:
    """A literal of a scalar type (a Python ``bool``, ``int`` or ``float`` exactly representable in it).

    Constants compare by type and bit pattern, so ``-0.0`` differs from ``0.0`` and NaN equals NaN.
    """

    value: bool | int | float
    type: ScalarType
    span: Span = _span()

    def _key(self) -> tuple[object, ...]:
        v = self.value
        if isinstance(v, float):
            return (self.type, "f", struct.pack("<d", v))
        return (self.type, type(v).__name__, v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True, slots=True)
class VarRef:
    """The current value of a parameter, local variable, or allocation (whose value is its pointer)."""

    name: str
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Builtin:
    """A launch register component such as ``threadIdx.x``: u32 in CUDA, i32 in Triton."""

    reg: BuiltinReg
    dim: Dim
    type: ScalarType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Unary:
    op: UnaryOp
    operand: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Binary:
    """``lhs op rhs`` with operands of equal type; comparisons yield bool of the operands' shape."""

    op: BinaryOp
    lhs: Expr
    rhs: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Select:
    """``cond ? if_true : if_false``; both branches are evaluated (they are pure)."""

    cond: Expr
    if_true: Expr
    if_false: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Cast:
    operand: Expr
    type: Type
    kind: CastKind = CastKind.CONVERT
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MathCall:
    """A math intrinsic; ``approx`` marks the fast variants (``__expf``, ``__fdividef``)."""

    fn: MathFn
    args: tuple[Expr, ...]
    type: Type
    approx: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class PtrAdd:
    """``base + offset`` where ``offset`` counts elements of the pointee type, as in C."""

    base: Expr
    offset: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Extract:
    """Lane ``index`` of a vector (``v.x`` is lane 0, ``v.w`` lane 3)."""

    vector: Expr
    index: Expr
    type: ScalarType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Insert:
    """A copy of ``vector`` with lane ``index`` replaced by ``value`` (how ``v.y = e`` is expressed)."""

    vector: Expr
    index: Expr
    value: Expr
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MakeVector:
    """A vector from its lanes (``make_float4``, ``__floats2half2_rn``)."""

    elems: tuple[Expr, ...]
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Arange:
    """Block-level: the 1-D block ``[start, start + 1, ..., end - 1]`` (``tl.arange``)."""

    start: int
    end: int
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Splat:
    """Block-level: a block with every element equal to the scalar ``operand``."""

    operand: Expr
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Broadcast:
    """Block-level: ``operand`` stretched along its size-1 dimensions to ``type.shape``."""

    operand: Expr
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Reshape:
    """Block-level: the same elements in row-major order with a new shape (also ``x[:, None]``)."""

    operand: Expr
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Reduce:
    """Block-level: reduce ``operand`` along ``axis`` (the axis is removed from the shape)."""

    op: ReduceOp
    operand: Expr
    axis: int
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Permute:
    """Block-level: ``operand`` with its dimensions reordered; dimension ``i`` of the result is
    dimension ``perm[i]`` of the operand (``tl.permute``; ``tl.trans`` of a 2-D block is ``(1, 0)``)."""

    operand: Expr
    perm: tuple[int, ...]
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Scan:
    """Block-level: the inclusive scan of ``operand`` along ``axis`` with ``op`` (``tl.cumsum``,
    ``tl.cumprod``): element ``k`` is ``x[0] op x[1] op ... op x[k]``, combined left to right, or with
    ``reverse`` ``x[k] op ... op x[n-1]`` combined from the right. The type is the operand's."""

    op: ReduceOp
    operand: Expr
    axis: int
    reverse: bool
    type: BlockType
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Combine:
    """Block-level: component ``result`` of a reduction or scan of the blocks ``args`` (one shape)
    along ``axis`` with the combine function ``func`` (``tl.reduce``, ``tl.associative_scan``).

    ``func`` is a block-level device function of the module with ``2n`` scalar parameters for ``n``
    arguments: the accumulator ``a1..an``, passed by reference, then the next elements ``b1..bn`` of
    the arguments' element types. Its body is straight-line (``let`` and assignments of scalars) and
    leaves ``combine(a, b)`` in ``a1..an``. The combination order is Triton's interpreter's, a left
    fold: ``acc = x[0]``, then ``acc = combine(acc, x[k])`` for ``k = 1 .. n-1``; a scan yields every
    ``acc``; ``reverse`` (scans only) folds from the last element to the first. A reduction's type is
    that of ``args[result]`` without the axis (a scalar for a 1-D block); a scan's is that of
    ``args[result]``. The tuple results of one reduction are ``n`` nodes that differ in ``result``.
    """

    kind: CombineKind
    func: str
    args: tuple[Expr, ...]
    result: int
    axis: int
    reverse: bool
    type: Type
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Dot:
    """Block-level: matrix product of an ``M x K`` and a ``K x N`` block, plus ``acc`` if given."""

    lhs: Expr
    rhs: Expr
    acc: Expr | None
    type: BlockType
    span: Span = _span()


Expr = (
    Const
    | VarRef
    | Builtin
    | Unary
    | Binary
    | Select
    | Cast
    | MathCall
    | PtrAdd
    | Extract
    | Insert
    | MakeVector
    | Arange
    | Splat
    | Broadcast
    | Reshape
    | Permute
    | Reduce
    | Scan
    | Combine
    | Dot
)


# --------------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True, slots=True)
class Decl:
    """Declare the local variable ``name`` of ``type``, initialised to ``init`` when given."""

    name: str
    type: Type
    init: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Assign:
    """``name = value`` for a declared variable or parameter."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Alloc:
    """An array in shared or local memory; ``name`` is then a pointer to its first element.

    ``count`` is the number of ``elem`` elements, or ``None`` for ``extern __shared__`` arrays whose
    size is the launch's dynamic shared memory. All dynamic shared arrays of a kernel start at the same
    address, as in CUDA.
    """

    name: str
    elem: Type
    count: int | None
    space: AddressSpace
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Load:
    """``dst = *ptr``; with ``mask`` (block level), masked-off elements take ``other`` (or stay undefined).

    ``nc``: a load through the non-coherent read-only data cache (CUDA's ``__ldg``, PTX ``ld.global.nc``).
    It is defined only on memory that no thread of the launch writes during the kernel: the cache is not
    kept coherent with the launch's own stores, whatever barriers or fences separate them.
    """

    dst: str
    ptr: Expr
    mask: Expr | None = None
    other: Expr | None = None
    span: Span = _span()
    nc: bool = False


@dataclass(frozen=True, slots=True)
class Store:
    """``*ptr = value``; with ``mask`` only the enabled elements are written."""

    ptr: Expr
    value: Expr
    mask: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class If:
    cond: Expr
    then_body: tuple[Stmt, ...]
    else_body: tuple[Stmt, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class For:
    """C's ``for (init; cond; step) body``; ``continue`` runs ``step``. ``unroll`` records the pragma."""

    init: tuple[Stmt, ...]
    cond: Expr | None
    step: tuple[Stmt, ...]
    body: tuple[Stmt, ...]
    unroll: int | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class While:
    cond: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DoWhile:
    body: tuple[Stmt, ...]
    cond: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Break:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Continue:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Return:
    """Return from the function; in a kernel, the thread (or program) exits early."""

    value: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Barrier:
    """``__syncthreads()`` (block scope) or ``__syncwarp(mask)`` (warp scope, ``mask`` a u32)."""

    scope: BarrierScope
    mask: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Fence:
    """A memory fence (``__threadfence``): orders this thread's accesses; synchronises nothing."""

    scope: FenceScope
    span: Span = _span()


class AssertKind(enum.Enum):
    """What a false :class:`Assert` is."""

    ASSERT = "assert"  # ``assert(cond)``: the thread traps and the launch fails
    # A compiler hint (``tl.multiple_of``, ``tl.max_contiguous``, ``tl.assume``, ``__builtin_assume``,
    # ``__builtin_assume_aligned``): a promise the compiler optimises on and never checks; a false one
    # is undefined behaviour (the ``defined`` obligation).
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class Assert:
    """``assert(cond)``: a thread for which ``cond`` is false traps, and the launch fails.

    A kernel's assertions are obligations: verifying the kernel includes proving they hold. With
    ``kind`` :attr:`AssertKind.HINT` the statement is a compiler hint's promise, also an obligation
    (never a hypothesis, unlike :class:`Assume`): a false one is undefined behaviour.
    """

    cond: Expr
    span: Span = _span()
    kind: AssertKind = AssertKind.ASSERT


@dataclass(frozen=True, slots=True)
class Assume:
    """A precondition (GPUVerify's ``__requires`` of a kernel): the verdict is about the executions in
    which ``cond`` holds at this point.

    Not an obligation but a hypothesis: the provers add it to the path condition, the simulator checks
    it on its concrete inputs and reports a violated one as inputs outside the kernel's contract (bad
    input, never a verdict against the kernel), and every verdict lists it among its assumptions.
    """

    cond: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Shuffle:
    """``dst = __shfl_<kind>_sync(mask, value, lane_or_delta, width)``."""

    dst: str
    kind: ShuffleKind
    mask: Expr
    value: Expr
    lane: Expr
    width: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Vote:
    """``dst = __<kind>_sync(mask, pred)``."""

    dst: str
    kind: VoteKind
    mask: Expr
    pred: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Atomic:
    """An atomic read-modify-write of ``*ptr``; ``dst`` (if given) receives the old value.

    ``order`` says what it orders between programs (after ``span`` so that positional constructions
    keep their meaning; relaxed by default, as CUDA's atomics are); ``scope`` which threads it is
    atomic towards and synchronises with (device by default, as CUDA's ``atomicAdd`` is).
    """

    dst: str | None
    op: AtomicOp
    ptr: Expr
    value: Expr
    compare: Expr | None = None
    mask: Expr | None = None
    span: Span = _span()
    order: MemoryOrder = MemoryOrder.RELAXED
    scope: MemScope = MemScope.DEVICE


@dataclass(frozen=True, slots=True)
class Call:
    """``dst = func(args)``. Arguments for by-reference parameters are variables, copied in and out."""

    dst: str | None
    func: str
    args: tuple[Expr, ...]
    span: Span = _span()


Stmt = (
    Decl
    | Assign
    | Alloc
    | Load
    | Store
    | If
    | For
    | While
    | DoWhile
    | Break
    | Continue
    | Return
    | Barrier
    | Fence
    | Assert
    | Assume
    | Shuffle
    | Vote
    | Atomic
    | Call
)


# --------------------------------------------------------------------------------------------------
# Functions and modules


@dataclass(frozen=True, slots=True)
class Param:
    """A function parameter. ``by_ref`` marks a C++ reference parameter (``float& acc``)."""

    name: str
    type: Type
    by_ref: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Function:
    """A kernel or device function. Kernels return ``void``; their pointer parameters are global."""

    name: str
    kind: FunctionKind
    level: Level
    params: tuple[Param, ...]
    ret: Type
    body: tuple[Stmt, ...]
    max_threads: int | None = None  # __launch_bounds__ first argument, if declared
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Module:
    """The functions obtained from one source file (device functions before the kernels that call them)."""

    functions: tuple[Function, ...]
    span: Span = _span()

    def function(self, name: str) -> Function | None:
        for f in self.functions:
            if f.name == name:
                return f
        return None

    @property
    def kernels(self) -> tuple[Function, ...]:
        return tuple(f for f in self.functions if f.kind is FunctionKind.KERNEL)
