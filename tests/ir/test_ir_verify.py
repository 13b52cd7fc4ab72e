"""Unit tests of the IR verifier: for each typing rule a minimal valid case and invalid ones whose
message text is pinned. IR is built directly from the node classes."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from larkc.errors import NO_SPAN, Span, TypeCheckError
from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assign,
    Atomic,
    AtomicOp,
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
    Const,
    Continue,
    Decl,
    Dim,
    Dot,
    DoWhile,
    Expr,
    Extract,
    Fence,
    FenceScope,
    For,
    Function,
    FunctionKind,
    If,
    Insert,
    Level,
    Load,
    MakeVector,
    MathCall,
    MathFn,
    Module,
    Param,
    PtrAdd,
    Reduce,
    ReduceOp,
    Reshape,
    Return,
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
    VoteKind,
    While,
)
from larkc.ir.types import (
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I8,
    I32,
    I64,
    U8,
    U32,
    U64,
    VOID,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    Type,
    VectorType,
)
from larkc.ir.verify import verify_function, verify_module

THREAD, BLOCK = Level.THREAD, Level.BLOCK
GLOBAL, SHARED, LOCAL = AddressSpace.GLOBAL, AddressSpace.SHARED, AddressSpace.LOCAL
PF32 = PointerType(F32, GLOBAL)
CPF32 = PointerType(F32, GLOBAL, const=True)
F32X4 = VectorType(F32, 4, 16)
F32X2 = VectorType(F32, 2, 8)
F16X2 = VectorType(F16, 2, 4)
B4 = BlockType(F32, (4,))
B4B = BlockType(BOOL, (4,))
B4I = BlockType(I32, (4,))
B4P = BlockType(PF32, (4,))


def c(value: bool | int | float, t: Type = I32) -> Const:
    assert isinstance(t, type(I32))
    return Const(value, t)  # type: ignore[arg-type]


def v(name: str, t: Type) -> VarRef:
    return VarRef(name, t)


TRUE = Const(True, BOOL)
ONE_F = Const(1.0, F32)
ZERO = Const(0, I32)
FULL = Const(0xFFFFFFFF, U32)


def kernel(
    *body: Stmt, params: tuple[Param, ...] = (), level: Level = THREAD, name: str = "k", **kw: object
) -> Function:
    return Function(name, FunctionKind.KERNEL, level, params, VOID, body, **kw)  # type: ignore[arg-type]


def device(
    *body: Stmt, params: tuple[Param, ...] = (), ret: Type = VOID, level: Level = THREAD, name: str = "d"
) -> Function:
    return Function(name, FunctionKind.DEVICE, level, params, ret, body)


def mod(*fs: Function) -> Module:
    return Module(fs)


def let(e: Expr, name: str = "r") -> Decl:
    return Decl(name, e.type, e)


def thread(*body: Stmt, params: tuple[Param, ...] = ()) -> Module:
    return mod(kernel(*body, params=params))


def block(*body: Stmt, params: tuple[Param, ...] = ()) -> Module:
    return mod(kernel(*body, params=params, level=BLOCK))


def expr_t(e: Expr, *params: Param) -> Module:
    """``let %r = e`` in a thread-level kernel."""
    return thread(let(e), params=params)


def expr_b(e: Expr, *params: Param) -> Module:
    """``let %r = e`` in a block-level kernel."""
    return block(let(e), params=params)


P_X = Param("x", PF32)
P_CX = Param("cx", CPF32)
P_N = Param("n", I32)
P_F = Param("f", F32)
P_V = Param("v", F32X4)
P_B = Param("b", B4)
P_PB = Param("pb", B4P)
P_OFF = Param("off", B4I)
P_M = Param("m", B4B)

DEV_F = device(Return(v("a", F32)), params=(Param("a", F32),), ret=F32)
DEV_REF = device(Assign("a", ONE_F), params=(Param("a", F32, by_ref=True),), name="dr")


# --------------------------------------------------------------------------------------------------
# Valid IR: one case per rule (and a few corners), each must verify.

VALID: dict[str, Callable[[], Module]] = {
    "const_extremes": lambda: thread(
        let(c(2**31 - 1), "a"),
        let(c(-(2**63), I64), "b"),
        let(c(2**64 - 1, U64), "c"),
        let(c(-0.0, F16), "d"),
        let(c(math.inf, F32), "e"),
        let(c(math.nan, BF16), "f"),
        let(c(1.5, BF16), "g"),
        let(c(0.1, F64), "h"),
        let(c(True, BOOL), "i"),
    ),
    "for_init_visible_in_cond_step_body": lambda: thread(
        For(
            (Decl("i", I32, ZERO),),
            Binary(BinaryOp.LT, v("i", I32), c(4), BOOL),
            (Assign("i", Binary(BinaryOp.ADD, v("i", I32), c(1), I32)),),
            (let(v("i", I32), "t"), If(TRUE, (Break(),)), Continue()),
            unroll=4,
        )
    ),
    "builtin_thread_u32": lambda: expr_t(Builtin(BuiltinReg.THREAD_IDX, Dim.X, U32)),
    "builtin_block_i32": lambda: expr_b(Builtin(BuiltinReg.BLOCK_IDX, Dim.Y, I32)),
    "unary_each": lambda: thread(
        let(Unary(UnaryOp.NEG, v("v", F32X4), F32X4), "a"),
        let(Unary(UnaryOp.NOT, TRUE, BOOL), "b"),
        let(Unary(UnaryOp.BITNOT, c(3, U8), U8), "c"),
        params=(P_V,),
    ),
    "binary_pointer_eq_and_bool_bitand": lambda: thread(
        let(Binary(BinaryOp.EQ, v("x", PF32), v("x", PF32), BOOL), "a"),
        let(Binary(BinaryOp.BITXOR, TRUE, TRUE, BOOL), "b"),
        let(Binary(BinaryOp.ADD, v("v", F32X4), v("v", F32X4), F32X4), "c"),
        let(Binary(BinaryOp.SHL, c(1, U64), c(3, U64), U64), "d"),
        params=(P_X, P_V),
    ),
    "binary_block_compare": lambda: expr_b(Binary(BinaryOp.LT, v("b", B4), v("b", B4), B4B), P_B),
    "select_block_with_scalar_cond": lambda: expr_b(Select(TRUE, v("b", B4), v("b", B4), B4), P_B),
    "select_block_with_block_cond": lambda: expr_b(Select(v("m", B4B), v("b", B4), v("b", B4), B4), P_B, P_M),
    "casts": lambda: thread(
        let(Cast(TRUE, F32), "a"),
        let(Cast(v("v", F32X4), VectorType(I32, 4, 16)), "b"),
        let(Cast(ONE_F, U32, CastKind.BITCAST), "c"),
        let(Cast(Const(1.0, F32), F16X2, CastKind.BITCAST), "d"),
        let(Cast(v("x", PF32), PointerType(I8, SHARED, True), CastKind.BITCAST), "e"),
        let(Cast(v("x", PF32), U64, CastKind.BITCAST), "f"),
        let(Cast(c(0, I64), PF32, CastKind.BITCAST), "g"),
        params=(P_X, P_V),
    ),
    "block_casts": lambda: block(
        let(Cast(v("b", B4), B4I), "a"),
        let(Cast(v("b", B4), B4I, CastKind.BITCAST), "b2"),
        let(Cast(v("pb", B4P), BlockType(I64, (4,)), CastKind.BITCAST), "c"),
        params=(P_B, P_PB),
    ),
    "math_calls": lambda: thread(
        let(MathCall(MathFn.POPC, (c(5, U64),), I32), "a"),
        let(MathCall(MathFn.ABS, (c(-5),), I32), "b"),
        let(MathCall(MathFn.ISNAN, (ONE_F,), BOOL), "c"),
        let(MathCall(MathFn.EXP, (v("v", F32X4),), F32X4, approx=True), "d"),
        let(MathCall(MathFn.DIV, (ONE_F, ONE_F), F32, approx=True), "e"),
        let(MathCall(MathFn.FMA, (ONE_F, ONE_F, ONE_F), F32), "f"),
        params=(P_V,),
    ),
    "math_block_predicate": lambda: expr_b(MathCall(MathFn.SIGNBIT, (v("b", B4),), B4B), P_B),
    "ptradd": lambda: expr_t(PtrAdd(v("x", PF32), c(3, U8), PF32), P_X),
    "ptradd_block": lambda: expr_b(PtrAdd(v("pb", B4P), v("off", B4I), B4P), P_PB, P_OFF),
    "vectors": lambda: thread(
        let(Extract(v("v", F32X4), c(3), F32), "a"),
        let(Extract(v("v", F32X4), v("n", I32), F32), "b"),
        let(Insert(v("v", F32X4), c(0, U32), ONE_F, F32X4), "c"),
        let(MakeVector((ONE_F, ONE_F), F32X2), "d"),
        params=(P_V, P_N),
    ),
    "block_ops": lambda: block(
        let(Arange(-2, 2, B4I), "a"),
        let(Splat(v("x", PF32), B4P), "s"),
        let(Broadcast(Reshape(v("b", B4), BlockType(F32, (1, 4))), BlockType(F32, (3, 4))), "c"),
        let(Reduce(ReduceOp.SUM, v("b", B4), 0, F32), "d"),
        let(Reduce(ReduceOp.MAX, v("c", BlockType(F32, (3, 4))), 1, BlockType(F32, (3,))), "e"),
        params=(P_B, P_X),
    ),
    "dot_with_accumulator": lambda: block(
        Decl("a", BlockType(F16, (4, 8))),
        Decl("b", BlockType(F16, (8, 2))),
        Decl("acc", BlockType(F32, (4, 2))),
        let(
            Dot(
                v("a", BlockType(F16, (4, 8))),
                v("b", BlockType(F16, (8, 2))),
                v("acc", BlockType(F32, (4, 2))),
                BlockType(F32, (4, 2)),
            )
        ),
    ),
    "alloc_load_store": lambda: thread(
        Alloc("s", F32, 256, SHARED),
        Alloc("dyn", F32X4, None, SHARED),
        Alloc("l", PF32, 4, LOCAL),
        Decl("t", F32),
        Load("t", PtrAdd(v("s", PointerType(F32, SHARED)), c(1), PointerType(F32, SHARED))),
        Store(v("s", PointerType(F32, SHARED)), v("t", F32)),
        Decl("q", PF32),
        Load("q", v("l", PointerType(PF32, LOCAL))),
        Load("t", v("cx", CPF32), mask=TRUE, other=ONE_F),
        params=(P_CX,),
    ),
    "block_masked_load_store": lambda: block(
        Decl("t", B4),
        Load("t", v("pb", B4P), mask=v("m", B4B), other=ONE_F),
        Load("t", v("pb", B4P), mask=TRUE, other=v("t", B4)),
        Store(v("pb", B4P), v("t", B4), mask=v("m", B4B)),
        Decl("s", F32),
        Load("s", v("x", PF32)),
        params=(P_PB, P_M, P_X),
    ),
    "loops_and_scopes": lambda: thread(
        While(TRUE, (Decl("a", I32), If(TRUE, (Continue(),), (Break(),)))),
        DoWhile((Decl("b", I32), Break()), TRUE),
        If(TRUE, (Decl("c", I32),), (Decl("d", I32), Return())),
    ),
    "device_return": lambda: mod(device(Return(ONE_F), ret=F32)),
    "barriers_fences": lambda: thread(
        Barrier(BarrierScope.BLOCK),
        Barrier(BarrierScope.WARP),
        Barrier(BarrierScope.WARP, FULL),
        Fence(FenceScope.BLOCK),
        Fence(FenceScope.DEVICE),
    ),
    "shuffles_and_votes": lambda: thread(
        Decl("h", F16X2),
        Shuffle("h", ShuffleKind.XOR, FULL, v("h", F16X2), c(1), c(32)),
        Decl("u", U64),
        Shuffle("u", ShuffleKind.UP, FULL, v("u", U64), c(1), c(32)),
        Decl("a", I32),
        Vote("a", VoteKind.ANY, FULL, TRUE),
        Decl("b", U32),
        Vote("b", VoteKind.BALLOT, FULL, TRUE),
    ),
    "atomics": lambda: thread(
        Decl("o", I32),
        Atomic("o", AtomicOp.CAS, v("p", PointerType(I32, GLOBAL)), c(1), compare=c(0)),
        Atomic(None, AtomicOp.XOR, v("p", PointerType(I32, GLOBAL)), c(1)),
        Atomic(None, AtomicOp.ADD, v("x", PF32), ONE_F),
        params=(Param("p", PointerType(I32, GLOBAL)), P_X),
    ),
    "block_atomic": lambda: block(
        Decl("o", B4),
        Atomic("o", AtomicOp.MAX, v("pb", B4P), v("b", B4), mask=v("m", B4B)),
        Atomic(None, AtomicOp.ADD, v("x", PF32), ONE_F, mask=TRUE),
        params=(P_PB, P_B, P_M, P_X),
    ),
    "calls": lambda: mod(
        DEV_F,
        DEV_REF,
        kernel(
            Decl("t", F32),
            Call("t", "d", (ONE_F,)),
            Call(None, "d", (ONE_F,)),
            Call(None, "dr", (v("t", F32),)),
            Call(None, "dr", (v("f", F32),)),
            params=(P_F,),
        ),
    ),
    "by_ref_param_forwarded": lambda: mod(
        DEV_REF, device(Call(None, "dr", (v("a", F32),)), params=(Param("a", F32, by_ref=True),), name="d2")
    ),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid(name: str) -> None:
    verify_module(VALID[name]())


# --------------------------------------------------------------------------------------------------
# Invalid IR: the first violation's message is pinned.

B44 = BlockType(F32, (4, 4))

INVALID: dict[str, tuple[Callable[[], Module], str]] = {
    # types and levels
    "block_in_thread": (lambda: thread(Decl("b", B4)), "block type block<4 x f32> in a thread-level function"),
    "vector_in_block": (lambda: block(Decl("v", F32X4)), "vector type f32x4 in a block-level function"),
    "bool_vector": (
        lambda: thread(Decl("v", VectorType(BOOL, 2, 2))),
        "vector type boolx2 must have an integer or float element",
    ),
    "vector_alignment": (
        lambda: thread(Decl("v", VectorType(F32, 4, 2))),
        "vector type f32x4align2 must have a power-of-two alignment of at least 4",
    ),
    "block_zero_dim": (
        lambda: block(Decl("b", BlockType(F32, (0,)))),
        "block type block<0 x f32> must have a non-empty shape of positive sizes",
    ),
    "decl_void": (
        lambda: thread(Decl("r", VOID)),
        "variable %r must have a scalar, vector, pointer or block type, got void",
    ),
    "pointer_to_block": (
        lambda: block(Decl("p", PointerType(B4, GLOBAL))),
        "pointer type ptr<global block<4 x f32>> cannot point to a block",
    ),
    # constants
    "const_u8_range": (lambda: expr_t(c(300, U8)), "constant 300 does not fit in u8"),
    "const_u32_negative": (lambda: expr_t(c(-1, U32)), "constant -1 does not fit in u32"),
    "const_i8_range": (lambda: expr_t(c(-129, I8)), "constant -129 does not fit in i8"),
    "const_f16_inexact": (lambda: expr_t(c(0.1, F16)), "constant 0.1 is not exactly representable in f16"),
    "const_f32_inexact": (lambda: expr_t(c(0.1, F32)), "constant 0.1 is not exactly representable in f32"),
    "const_bf16_inexact": (
        lambda: expr_t(c(1.0 + 2**-10, BF16)),
        "constant 1.0009765625 is not exactly representable in bf16",
    ),
    "const_f32_overflow": (lambda: expr_t(c(1e300, F32)), "constant 1e+300 is not exactly representable in f32"),
    "const_int_for_float": (lambda: expr_t(c(1, F32)), "constant 1 of type f32 must be a float"),
    "const_int_for_bool": (lambda: expr_t(c(1, BOOL)), "constant 1 of type bool must be true or false"),
    "const_bool_for_int": (lambda: expr_t(c(True, I32)), "constant True of type i32 must be an integer"),
    "const_float_for_int": (lambda: expr_t(c(2.0, I32)), "constant 2.0 of type i32 must be an integer"),
    # variables
    "use_undeclared": (lambda: expr_t(v("t", F32)), "use of undeclared variable %t"),
    "use_out_of_scope": (
        lambda: thread(If(TRUE, (Decl("t", F32),)), let(v("t", F32))),
        "use of %t outside its scope",
    ),
    "use_for_body_decl_in_step": (
        lambda: thread(For((), None, (let(v("b", I32)),), (Decl("b", I32),))),
        "use of %b outside its scope",
    ),
    "use_before_decl": (lambda: thread(let(v("a", I32), "b"), Decl("a", I32)), "use of undeclared variable %a"),
    "varref_type": (
        lambda: expr_t(v("n", F32), P_N),
        "variable %n has type f32 but is declared as i32",
    ),
    "quoted_name_in_message": (lambda: expr_t(v("i<1>", F32)), 'use of undeclared variable %"i<1>"'),
    # builtins
    "builtin_thread_type": (
        lambda: expr_t(Builtin(BuiltinReg.THREAD_IDX, Dim.X, I32)),
        "builtin threadIdx.x has type i32, expected u32",
    ),
    "builtin_block_reg": (
        lambda: expr_b(Builtin(BuiltinReg.THREAD_IDX, Dim.X, I32)),
        "builtin threadIdx.x is not available in block-level functions",
    ),
    "builtin_block_type": (
        lambda: expr_b(Builtin(BuiltinReg.GRID_DIM, Dim.X, U32)),
        "builtin gridDim.x has type u32, expected i32",
    ),
    # unary
    "neg_bool": (lambda: expr_t(Unary(UnaryOp.NEG, TRUE, BOOL)), "operand of - must be numeric, got bool"),
    "not_int": (lambda: expr_t(Unary(UnaryOp.NOT, ZERO, I32)), "operand of ! must be a bool, got i32"),
    "bitnot_float": (lambda: expr_t(Unary(UnaryOp.BITNOT, ONE_F, F32)), "operand of ~ must be an integer, got f32"),
    "unary_type": (lambda: expr_t(Unary(UnaryOp.NEG, ZERO, I64)), "result of - has type i64, expected i32"),
    # binary
    "binary_different_types": (
        lambda: expr_t(Binary(BinaryOp.ADD, ZERO, c(0, U32), I32)),
        "operands of + have different types i32 and u32",
    ),
    "rem_float": (lambda: expr_t(Binary(BinaryOp.REM, ONE_F, ONE_F, F32)), "operands of % must be integers, got f32"),
    "land_int": (lambda: expr_t(Binary(BinaryOp.LAND, ZERO, ZERO, I32)), "operands of && must be bools, got i32"),
    "add_bool": (lambda: expr_t(Binary(BinaryOp.ADD, TRUE, TRUE, BOOL)), "operands of + must be numeric, got bool"),
    "bitand_float": (
        lambda: expr_t(Binary(BinaryOp.BITAND, ONE_F, ONE_F, F32)),
        "operands of & must be integers or bools, got f32",
    ),
    "lt_vectors": (
        lambda: expr_t(Binary(BinaryOp.LT, v("v", F32X4), v("v", F32X4), BOOL), P_V),
        "operands of < must be numeric, bool or pointer scalars or blocks, got f32x4",
    ),
    "eq_vectors": (
        lambda: expr_t(Binary(BinaryOp.EQ, v("v", F32X4), v("v", F32X4), BOOL), P_V),
        "operands of == must be numeric, bool or pointer scalars or blocks, got f32x4",
    ),
    "add_pointers": (
        lambda: expr_t(Binary(BinaryOp.ADD, v("x", PF32), v("x", PF32), PF32), P_X),
        "operands of + must be numeric, got ptr<global f32>",
    ),
    "comparison_type": (
        lambda: expr_t(Binary(BinaryOp.LT, ZERO, ZERO, I32)),
        "result of < has type i32, expected bool",
    ),
    "block_comparison_type": (
        lambda: expr_b(Binary(BinaryOp.LT, v("b", B4), v("b", B4), BOOL), P_B),
        "result of < has type bool, expected block<4 x bool>",
    ),
    "min_type": (lambda: expr_t(Binary(BinaryOp.MIN, ZERO, ZERO, I64)), "result of min has type i64, expected i32"),
    # select
    "select_cond_int": (lambda: expr_t(Select(ZERO, ONE_F, ONE_F, F32)), "condition of select must be bool, got i32"),
    "select_branches": (
        lambda: expr_t(Select(TRUE, ONE_F, ZERO, F32)),
        "branches of select have different types f32 and i32",
    ),
    "select_block_cond_shape": (
        lambda: expr_b(Select(Splat(TRUE, BlockType(BOOL, (8,))), v("b", B4), v("b", B4), B4), P_B),
        "condition of select must be bool or block<4 x bool>, got block<8 x bool>",
    ),
    "select_type": (lambda: expr_t(Select(TRUE, ONE_F, ONE_F, F64)), "result of select has type f64, expected f32"),
    # casts
    "convert_lanes": (lambda: expr_t(Cast(v("v", F32X4), F32X2), P_V), "cannot convert f32x4 to f32x2"),
    "convert_vector_to_scalar": (lambda: expr_t(Cast(v("v", F32X4), F32), P_V), "cannot convert f32x4 to f32"),
    "convert_pointer": (lambda: expr_t(Cast(v("x", PF32), I64), P_X), "cannot convert ptr<global f32> to i64"),
    "bitcast_sizes": (lambda: expr_t(Cast(ONE_F, F64, CastKind.BITCAST)), "cannot bitcast f32 to f64"),
    "bitcast_pointer_i32": (
        lambda: expr_t(Cast(v("x", PF32), I32, CastKind.BITCAST), P_X),
        "cannot bitcast ptr<global f32> to i32",
    ),
    "convert_block_shape": (
        lambda: expr_b(Cast(v("b", B4), BlockType(I32, (8,))), P_B),
        "cannot convert block<4 x f32> to block<8 x i32>",
    ),
    # math calls
    "math_arity_1": (lambda: expr_t(MathCall(MathFn.SQRT, (ONE_F, ONE_F), F32)), "sqrt takes 1 argument, got 2"),
    "math_arity_3": (lambda: expr_t(MathCall(MathFn.FMA, (ONE_F, ONE_F), F32)), "fma takes 3 arguments, got 2"),
    "math_args_differ": (
        lambda: expr_t(MathCall(MathFn.POW, (ONE_F, c(1.0, F64)), F32)),
        "arguments of pow have different types f32 and f64",
    ),
    "math_int_arg": (lambda: expr_t(MathCall(MathFn.SQRT, (ZERO,), I32)), "sqrt needs float arguments, got i32"),
    "abs_unsigned": (
        lambda: expr_t(MathCall(MathFn.ABS, (c(1, U32),), U32)),
        "abs needs float or signed integer arguments, got u32",
    ),
    "approx_missing": (
        lambda: expr_t(MathCall(MathFn.ERF, (ONE_F,), F32, approx=True)),
        "erf has no approximate variant",
    ),
    "div_not_approx": (
        lambda: expr_t(MathCall(MathFn.DIV, (ONE_F, ONE_F), F32)),
        "div is only available as div.approx (use / otherwise)",
    ),
    "isnan_type": (
        lambda: expr_t(MathCall(MathFn.ISNAN, (ONE_F,), F32)),
        "result of isnan has type f32, expected bool",
    ),
    "isnan_vector": (
        lambda: expr_t(MathCall(MathFn.ISNAN, (v("v", F32X4),), BOOL), P_V),
        "isnan needs float scalar or block arguments, got f32x4",
    ),
    "popc_float": (
        lambda: expr_t(MathCall(MathFn.POPC, (ONE_F,), I32)),
        "popc needs integer scalar or block arguments, got f32",
    ),
    "clz_type": (lambda: expr_t(MathCall(MathFn.CLZ, (c(1, U64),), U64)), "result of clz has type u64, expected i32"),
    # ptradd
    "ptradd_base": (lambda: expr_t(PtrAdd(ZERO, ZERO, I32)), "base of ptradd must be a pointer, got i32"),
    "ptradd_offset": (
        lambda: expr_t(PtrAdd(v("x", PF32), ONE_F, PF32), P_X),
        "offset of ptradd must be an integer, got f32",
    ),
    "ptradd_void": (
        lambda: expr_t(
            PtrAdd(v("p", PointerType(VOID, GLOBAL)), ZERO, PointerType(VOID, GLOBAL)),
            Param("p", PointerType(VOID, GLOBAL)),
        ),
        "pointer arithmetic on ptr<global void> (void has no size)",
    ),
    "ptradd_block_scalar_offset": (
        lambda: expr_b(PtrAdd(v("pb", B4P), ZERO, B4P), P_PB),
        "offset of ptradd must be an integer block of shape 4, got i32",
    ),
    "ptradd_type": (
        lambda: expr_t(PtrAdd(v("x", PF32), ZERO, CPF32), P_X),
        "result of ptradd has type ptr<global const f32>, expected ptr<global f32>",
    ),
    # vectors
    "extract_scalar": (lambda: expr_t(Extract(ONE_F, ZERO, F32)), "extract needs a vector operand, got f32"),
    "extract_range": (lambda: expr_t(Extract(v("v", F32X4), c(4), F32), P_V), "lane index 4 out of range for f32x4"),
    "extract_index_type": (
        lambda: expr_t(Extract(v("v", F32X4), ONE_F, F32), P_V),
        "lane index of extract must be an integer scalar, got f32",
    ),
    "extract_type": (
        lambda: expr_t(Extract(v("v", F32X4), ZERO, F64), P_V),
        "result of extract has type f64, expected f32",
    ),
    "extract_in_block": (
        lambda: expr_b(Extract(ONE_F, ZERO, F32)),
        "extract is only allowed in thread-level functions",
    ),
    "insert_value": (
        lambda: expr_t(Insert(v("v", F32X4), ZERO, c(1.0, F64), F32X4), P_V),
        "inserted value has type f64, expected f32",
    ),
    "insert_range": (
        lambda: expr_t(Insert(v("v", F32X4), c(-1), ONE_F, F32X4), P_V),
        "lane index -1 out of range for f32x4",
    ),
    "make_vector_count": (
        lambda: expr_t(MakeVector((ONE_F, ONE_F, ONE_F), F32X4)),
        "vector<f32x4> needs 4 elements, got 3",
    ),
    "make_vector_elem": (
        lambda: expr_t(MakeVector((ONE_F, c(1.0, F64)), F32X2)),
        "element 1 of vector<f32x2> has type f64, expected f32",
    ),
    # block operations
    "arange_empty": (lambda: expr_b(Arange(4, 4, BlockType(I32, (1,)))), "arange needs end > start, got 4 and 4"),
    "arange_type": (
        lambda: expr_b(Arange(0, 8, B4I)),
        "result of arange has type block<4 x i32>, expected block<8 x i32>",
    ),
    "arange_in_thread": (
        lambda: thread(Decl("a", I32, Reduce(ReduceOp.SUM, Arange(0, 4, B4I), 0, I32))),
        "arange is only allowed in block-level functions",
    ),
    "splat_block": (
        lambda: expr_b(Splat(v("b", B4), BlockType(F32, (4, 4))), P_B),
        "splat needs a scalar or pointer operand, got block<4 x f32>",
    ),
    "splat_elem": (
        lambda: expr_b(Splat(ONE_F, B4I)),
        "result of splat has type block<4 x i32>, expected block<4 x f32>",
    ),
    "broadcast_rank": (lambda: expr_b(Broadcast(v("b", B4), B44), P_B), "cannot broadcast block<4 x f32> to shape 4x4"),
    "broadcast_dim": (
        lambda: block(Decl("a", BlockType(F32, (2, 4))), let(Broadcast(v("a", BlockType(F32, (2, 4))), B44))),
        "cannot broadcast block<2x4 x f32> to shape 4x4",
    ),
    "broadcast_elem": (
        lambda: expr_b(Broadcast(v("b", B4), BlockType(I32, (4,))), P_B),
        "result of broadcast has type block<4 x i32>, expected block<4 x f32>",
    ),
    "reshape_count": (
        lambda: expr_b(Reshape(v("b", B4), BlockType(F32, (2, 4))), P_B),
        "cannot reshape block<4 x f32> to shape 2x4",
    ),
    "reduce_axis": (
        lambda: expr_b(Reduce(ReduceOp.SUM, v("b", B4), 1, F32), P_B),
        "axis 1 of reduce.sum out of range for block<4 x f32>",
    ),
    "reduce_bool": (
        lambda: expr_b(Reduce(ReduceOp.MAX, v("m", B4B), 0, BOOL), P_M),
        "reduce.max needs a numeric block operand, got block<4 x bool>",
    ),
    "reduce_type": (
        lambda: expr_b(Reduce(ReduceOp.SUM, v("b", B4), 0, B4), P_B),
        "result of reduce.sum has type block<4 x f32>, expected f32",
    ),
    "dot_rank": (
        lambda: block(
            Decl("a", BlockType(F16, (4,))),
            Decl("c", BlockType(F16, (4, 4))),
            let(Dot(v("a", BlockType(F16, (4,))), v("c", BlockType(F16, (4, 4))), None, B44)),
        ),
        "operands of dot must be 2-D numeric blocks, got block<4 x f16> and block<4x4 x f16>",
    ),
    "dot_elems": (
        lambda: block(
            Decl("a", BlockType(F16, (4, 4))),
            let(Dot(v("a", BlockType(F16, (4, 4))), Splat(ONE_F, B44), None, B44)),
        ),
        "operands of dot have different element types f16 and f32",
    ),
    "dot_inner": (
        lambda: block(
            Decl("a", BlockType(F16, (4, 8))),
            Decl("b", BlockType(F16, (4, 4))),
            let(Dot(v("a", BlockType(F16, (4, 8))), v("b", BlockType(F16, (4, 4))), None, B44)),
        ),
        "inner dimensions of dot differ: block<4x8 x f16> and block<4x4 x f16>",
    ),
    "dot_acc": (
        lambda: block(
            Decl("a", BlockType(F16, (4, 4))),
            let(
                Dot(
                    v("a", BlockType(F16, (4, 4))),
                    v("a", BlockType(F16, (4, 4))),
                    Splat(c(1.0, F16), BlockType(F16, (4, 4))),
                    B44,
                )
            ),
        ),
        "accumulator of dot has type block<4x4 x f16>, expected block<4x4 x f32>",
    ),
    "dot_shape": (
        lambda: block(
            Decl("a", BlockType(F16, (4, 4))),
            let(Dot(v("a", BlockType(F16, (4, 4))), v("a", BlockType(F16, (4, 4))), None, BlockType(F32, (4, 8)))),
        ),
        "result of dot has type block<4x8 x f32>, expected block<4x4 x f32>",
    ),
    # declarations and assignments
    "redeclaration": (lambda: thread(Decl("r", I32), Decl("r", I32)), "redeclaration of %r"),
    "redeclaration_in_other_scope": (
        lambda: thread(If(TRUE, (Decl("r", I32),)), Decl("r", F32)),
        "redeclaration of %r",
    ),
    "decl_shadows_param": (lambda: thread(Decl("n", I32), params=(P_N,)), "redeclaration of %n"),
    "decl_init_type": (lambda: thread(Decl("r", F32, ZERO)), "initializer of %r has type i32, expected f32"),
    "assign_undeclared": (lambda: thread(Assign("z", ZERO)), "assignment to undeclared variable %z"),
    "assign_alloc": (
        lambda: thread(Alloc("s", F32, 4, SHARED), Assign("s", v("s", PointerType(F32, SHARED)))),
        "cannot assign to allocation %s",
    ),
    "assign_type": (
        lambda: thread(Assign("n", ONE_F), params=(P_N,)),
        "value assigned to %n has type f32, expected i32",
    ),
    "assign_out_of_scope": (
        lambda: thread(While(TRUE, (Decl("t", I32),)), Assign("t", ZERO)),
        "assignment to %t outside its scope",
    ),
    # allocations
    "alloc_in_block": (
        lambda: block(Alloc("s", F32, 4, SHARED)),
        "allocation %s is only allowed in thread-level functions",
    ),
    "alloc_global": (
        lambda: thread(Alloc("s", F32, 4, GLOBAL)),
        "allocation %s must be in shared or local memory, not global",
    ),
    "alloc_count": (lambda: thread(Alloc("s", F32, 0, SHARED)), "allocation %s needs a positive count, got 0"),
    "alloc_local_extern": (
        lambda: thread(Alloc("s", F32, None, LOCAL)),
        "allocation %s of unknown size must be shared",
    ),
    "alloc_array_elem": (
        lambda: thread(Alloc("s", ArrayType(F32, 4), 2, LOCAL)),
        "element of allocation %s must be a scalar, vector or pointer, got [4 x f32]",
    ),
    "alloc_redeclared": (lambda: thread(Decl("s", I32), Alloc("s", F32, 4, SHARED)), "redeclaration of %s"),
    # loads and stores
    "load_dst_type": (
        lambda: thread(Decl("t", F64), Load("t", v("x", PF32)), params=(P_X,)),
        "destination %t of load has type f64, expected f32",
    ),
    "load_not_pointer": (lambda: thread(Decl("t", I32), Load("t", ZERO)), "load needs a pointer, got i32"),
    "load_void": (
        lambda: thread(
            Decl("t", I32),
            Load("t", v("p", PointerType(VOID, GLOBAL))),
            params=(Param("p", PointerType(VOID, GLOBAL)),),
        ),
        "load through ptr<global void> (it points to a non-value type)",
    ),
    "load_mask": (
        lambda: thread(Decl("t", F32), Load("t", v("x", PF32), mask=ZERO), params=(P_X,)),
        "mask of load must be bool, got i32",
    ),
    "load_other_without_mask": (
        lambda: thread(Decl("t", F32), Load("t", v("x", PF32), other=ONE_F), params=(P_X,)),
        "other of load needs a mask",
    ),
    "load_other_type": (
        lambda: block(Decl("t", B4), Load("t", v("pb", B4P), mask=TRUE, other=c(0.0, F64)), params=(P_PB,)),
        "other of load has type f64, expected block<4 x f32> or f32",
    ),
    "load_into_alloc": (
        lambda: thread(
            Alloc("s", PF32, 1, LOCAL),
            Load("s", v("l", PointerType(PF32, GLOBAL))),
            params=(Param("l", PointerType(PF32, GLOBAL)),),
        ),
        "cannot assign to allocation %s",
    ),
    "load_block_into_scalar": (
        lambda: block(Decl("t", F32), Load("t", v("pb", B4P)), params=(P_PB,)),
        "destination %t of load has type f32, expected block<4 x f32>",
    ),
    "store_const": (
        lambda: thread(Store(v("cx", CPF32), ONE_F), params=(P_CX,)),
        "store through a const pointer ptr<global const f32>",
    ),
    "store_value": (
        lambda: thread(Store(v("x", PF32), ZERO), params=(P_X,)),
        "stored value has type i32, expected f32",
    ),
    "store_mask_shape": (
        lambda: block(Store(v("pb", B4P), Splat(ONE_F, B4), mask=Splat(TRUE, BlockType(BOOL, (8,)))), params=(P_PB,)),
        "mask of store must be bool or block<4 x bool>, got block<8 x bool>",
    ),
    # control flow
    "if_cond": (lambda: thread(If(ZERO, ())), "condition of if must be bool, got i32"),
    "while_cond": (lambda: thread(While(ONE_F, ())), "condition of while must be bool, got f32"),
    "for_cond": (lambda: thread(For((), ZERO, (), ())), "condition of for must be bool, got i32"),
    "do_while_cond": (lambda: thread(DoWhile((), ZERO)), "condition of do-while must be bool, got i32"),
    "do_while_cond_scope": (
        lambda: thread(DoWhile((Decl("b", BOOL, TRUE),), v("b", BOOL))),
        "use of %b outside its scope",
    ),
    "block_level_cond": (
        lambda: block(If(v("m", B4B), ()), params=(P_M,)),
        "condition of if must be bool, got block<4 x bool>",
    ),
    "break_outside": (lambda: thread(Break()), "break outside a loop"),
    "break_in_if": (lambda: thread(If(TRUE, (Break(),))), "break outside a loop"),
    "continue_in_for_step": (lambda: thread(For((), None, (Continue(),), ())), "continue outside a loop"),
    "unroll_negative": (lambda: thread(For((), None, (), (), unroll=-1)), "unroll count must be non-negative, got -1"),
    "return_value_in_void": (lambda: thread(Return(ZERO)), "return with a value in a function returning void"),
    "return_missing_value": (
        lambda: mod(device(Return(), ret=F32)),
        "return without a value in a function returning f32",
    ),
    "return_type": (lambda: mod(device(Return(ZERO), ret=F32)), "returned value has type i32, expected f32"),
    # synchronisation
    "barrier_block_mask": (lambda: thread(Barrier(BarrierScope.BLOCK, FULL)), "barrier.block takes no mask"),
    "barrier_warp_mask": (
        lambda: thread(Barrier(BarrierScope.WARP, ZERO)),
        "mask of barrier.warp has type i32, expected u32",
    ),
    "barrier_warp_block": (
        lambda: block(Barrier(BarrierScope.WARP)),
        "barrier.warp is only allowed in thread-level functions",
    ),
    "shfl_block_level": (
        lambda: block(Decl("d", F32), Shuffle("d", ShuffleKind.XOR, Const(1, U32), ONE_F, c(1), c(32))),
        "shfl.xor is only allowed in thread-level functions",
    ),
    "shfl_vector": (
        lambda: thread(Decl("d", F32X4), Shuffle("d", ShuffleKind.IDX, FULL, v("d", F32X4), c(1), c(32))),
        "shfl.idx cannot exchange a value of type f32x4",
    ),
    "shfl_bool": (
        lambda: thread(Decl("d", BOOL), Shuffle("d", ShuffleKind.IDX, FULL, TRUE, c(1), c(32))),
        "shfl.idx cannot exchange a value of type bool",
    ),
    "shfl_i8": (
        lambda: thread(Decl("d", I8), Shuffle("d", ShuffleKind.IDX, FULL, c(1, I8), c(1), c(32))),
        "shfl.idx cannot exchange a value of type i8",
    ),
    "shfl_lane": (
        lambda: thread(Decl("d", F32), Shuffle("d", ShuffleKind.DOWN, FULL, ONE_F, c(1, U32), c(32))),
        "lane of shfl.down has type u32, expected i32",
    ),
    "shfl_width": (
        lambda: thread(Decl("d", F32), Shuffle("d", ShuffleKind.DOWN, FULL, ONE_F, c(1), c(32, U32))),
        "width of shfl.down has type u32, expected i32",
    ),
    "shfl_mask": (
        lambda: thread(Decl("d", F32), Shuffle("d", ShuffleKind.XOR, ZERO, ONE_F, c(1), c(32))),
        "mask of shfl.xor has type i32, expected u32",
    ),
    "shfl_dst": (
        lambda: thread(Decl("d", F64), Shuffle("d", ShuffleKind.XOR, FULL, ONE_F, c(1), c(32))),
        "destination %d of shfl.xor has type f64, expected f32",
    ),
    "vote_pred": (
        lambda: thread(Decl("d", I32), Vote("d", VoteKind.ANY, FULL, ZERO)),
        "predicate of vote.any must be bool, got i32",
    ),
    "vote_ballot_dst": (
        lambda: thread(Decl("d", I32), Vote("d", VoteKind.BALLOT, FULL, TRUE)),
        "destination %d of vote.ballot has type i32, expected u32",
    ),
    "vote_all_dst": (
        lambda: thread(Decl("d", U32), Vote("d", VoteKind.ALL, FULL, TRUE)),
        "destination %d of vote.all has type u32, expected i32",
    ),
    "vote_block_level": (
        lambda: block(Decl("d", I32), Vote("d", VoteKind.ALL, c(1, U32), TRUE)),
        "vote.all is only allowed in thread-level functions",
    ),
    # atomics
    "atomic_const": (
        lambda: thread(Atomic(None, AtomicOp.ADD, v("cx", CPF32), ONE_F), params=(P_CX,)),
        "atomic.add through a const pointer ptr<global const f32>",
    ),
    "atomic_local": (
        lambda: thread(Alloc("l", F32, 4, LOCAL), Atomic(None, AtomicOp.ADD, v("l", PointerType(F32, LOCAL)), ONE_F)),
        "atomic.add needs global, shared or generic memory, got ptr<local f32>",
    ),
    "atomic_and_float": (
        lambda: thread(Atomic(None, AtomicOp.AND, v("x", PF32), ONE_F), params=(P_X,)),
        "atomic.and needs an integer pointee, got ptr<global f32>",
    ),
    "atomic_vector": (
        lambda: thread(
            Atomic(None, AtomicOp.ADD, v("p", PointerType(F32X4, GLOBAL)), v("v", F32X4)),
            params=(Param("p", PointerType(F32X4, GLOBAL)), P_V),
        ),
        "atomic.add needs a pointer to an integer or float scalar, got ptr<global f32x4>",
    ),
    "atomic_not_pointer": (
        lambda: thread(Atomic(None, AtomicOp.ADD, ZERO, ZERO)),
        "atomic.add needs a pointer, got i32",
    ),
    "atomic_cas_compare": (
        lambda: thread(Atomic(None, AtomicOp.CAS, v("x", PF32), ONE_F), params=(P_X,)),
        "atomic.cas needs a compare value",
    ),
    "atomic_compare_not_cas": (
        lambda: thread(Atomic(None, AtomicOp.ADD, v("x", PF32), ONE_F, compare=ONE_F), params=(P_X,)),
        "compare value is only allowed for atomic.cas, not atomic.add",
    ),
    "atomic_cas_compare_type": (
        lambda: thread(Atomic(None, AtomicOp.CAS, v("x", PF32), ONE_F, compare=ZERO), params=(P_X,)),
        "compare value of atomic.cas has type i32, expected f32",
    ),
    "atomic_value": (
        lambda: thread(Atomic(None, AtomicOp.ADD, v("x", PF32), c(1.0, F64)), params=(P_X,)),
        "value of atomic.add has type f64, expected f32",
    ),
    "atomic_mask_thread": (
        lambda: thread(Atomic(None, AtomicOp.ADD, v("x", PF32), ONE_F, mask=TRUE), params=(P_X,)),
        "mask of atomic.add is only allowed in block-level functions",
    ),
    "atomic_dst": (
        lambda: thread(Decl("o", I32), Atomic("o", AtomicOp.ADD, v("x", PF32), ONE_F), params=(P_X,)),
        "destination %o of atomic.add has type i32, expected f32",
    ),
    # calls
    "call_undefined": (lambda: thread(Call(None, "nope", ())), "call to undefined function @nope"),
    "call_kernel": (
        lambda: mod(kernel(name="k0"), kernel(Call(None, "k0", ()))),
        "call to kernel @k0 (only device functions can be called)",
    ),
    "call_arity": (lambda: mod(DEV_F, kernel(Call(None, "d", ()))), "@d takes 1 argument, got 0"),
    "call_by_ref_expr": (
        lambda: mod(DEV_REF, kernel(Call(None, "dr", (ONE_F,)))),
        "argument 1 of @dr must be a variable (parameter %a is passed by reference)",
    ),
    "call_by_ref_alloc": (
        lambda: mod(
            device(params=(Param("a", PointerType(F32, SHARED), by_ref=True),), name="dp"),
            kernel(Alloc("s", F32, 4, SHARED), Call(None, "dp", (v("s", PointerType(F32, SHARED)),))),
        ),
        "argument 1 of @dp cannot be allocation %s (parameter %a is passed by reference)",
    ),
    "call_arg_type": (
        lambda: mod(DEV_F, kernel(Call(None, "d", (ZERO,)))),
        "argument 1 of @d has type i32, expected f32",
    ),
    "call_void_dst": (
        lambda: mod(DEV_REF, kernel(Decl("r", F32), Call("r", "dr", (v("r", F32),)))),
        "@dr returns void; its result cannot be assigned to %r",
    ),
    "call_dst_type": (
        lambda: mod(DEV_F, kernel(Decl("r", I32), Call("r", "d", (ONE_F,)))),
        "destination %r of call to @d has type i32, expected f32",
    ),
    "call_level": (
        lambda: mod(device(level=BLOCK), kernel(Call(None, "d", ()))),
        "call from a thread-level function to block-level @d",
    ),
    # functions and modules
    "kernel_ret": (
        lambda: mod(Function("k", FunctionKind.KERNEL, THREAD, (), F32, ())),
        "kernel @k must return void, not f32",
    ),
    "kernel_by_ref": (
        lambda: thread(params=(Param("a", F32, by_ref=True),)),
        "kernel parameter %a cannot be passed by reference",
    ),
    "kernel_shared_pointer": (
        lambda: thread(params=(Param("p", PointerType(F32, SHARED)),)),
        "kernel parameter %p must point to global memory, got ptr<shared f32>",
    ),
    "duplicate_param": (lambda: mod(device(params=(Param("a", F32), Param("a", I32)))), "duplicate parameter %a"),
    "param_void": (
        lambda: mod(device(params=(Param("a", VOID),))),
        "parameter %a must have a scalar, vector, pointer or block type, got void",
    ),
    "max_threads": (lambda: mod(kernel(max_threads=0)), "max_threads of @k must be positive, got 0"),
    "duplicate_function": (lambda: mod(kernel(), kernel()), "duplicate function @k"),
    "quoted_function_name": (lambda: thread(Call(None, "f<float>", ())), 'call to undefined function @"f<float>"'),
}


def test_enough_invalid_cases() -> None:
    assert len(INVALID) >= 30


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid(name: str) -> None:
    build, message = INVALID[name]
    with pytest.raises(TypeCheckError) as info:
        verify_module(build())
    assert info.value.message == message


# --------------------------------------------------------------------------------------------------
# Locations and notes


def test_error_is_located_at_the_offending_expression() -> None:
    bad = Binary(BinaryOp.ADD, ZERO, c(0, U32), I32, span=Span("k.ir", 3, 14, 3, 20))
    stmt = Decl("r", I32, bad, span=Span("k.ir", 3, 3, 3, 21))
    with pytest.raises(TypeCheckError) as info:
        verify_module(thread(stmt))
    assert str(info.value) == "k.ir:3:14: error: operands of + have different types i32 and u32"
    assert info.value.notes == ("in kernel @k",)


def test_error_without_a_span_falls_back_to_the_statement() -> None:
    stmt = Decl("r", I32, Binary(BinaryOp.ADD, ZERO, c(0, U32), I32), span=Span("k.ir", 7, 3, 7, 30))
    with pytest.raises(TypeCheckError) as info:
        verify_module(thread(stmt))
    assert info.value.span == Span("k.ir", 7, 3, 7, 30)


def test_error_in_a_device_function_names_it() -> None:
    with pytest.raises(TypeCheckError) as info:
        verify_module(mod(device(Break(), name="helper")))
    assert info.value.notes == ("in device function @helper",)
    assert info.value.span is not None and info.value.span == NO_SPAN


def test_verify_function_uses_the_module_for_calls() -> None:
    caller = kernel(Call(None, "d", (ONE_F,)))
    verify_function(caller, mod(DEV_F, caller))
    with pytest.raises(TypeCheckError, match="call to undefined function @d"):
        verify_function(caller, mod(caller))


def test_first_violation_wins() -> None:
    """Operands are checked before the node, statements in order."""
    m = thread(let(Binary(BinaryOp.ADD, v("u", I32), c(0, U32), I32)), Break())
    with pytest.raises(TypeCheckError, match="use of undeclared variable %u"):
        verify_module(m)


def test_every_operator_has_a_typing_rule() -> None:
    """A new operator must be given an operand class (the tables are looked up without a default)."""
    from larkc.ir import verify

    assert set(verify._UNARY_OPERANDS) == set(UnaryOp)
    assert set(verify._BINARY_OPERANDS) == set(BinaryOp)
    assert set(verify._MATH_SIG) == set(MathFn) == set(verify._MATH_ARITY)
