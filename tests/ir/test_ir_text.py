"""The printed form of the IR: what each node prints as, and how the parser reads it back (including
the located errors it gives for malformed text)."""

from __future__ import annotations

import contextlib
import math

import pytest

from larkc.errors import LarkcError, Span, TypeCheckError, UserSyntaxError
from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    AssertKind,
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
    MemoryOrder,
    MemScope,
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
from larkc.ir.parser import parse_module
from larkc.ir.printer import format_func, format_var, print_expr, print_function, print_module, print_stmt
from larkc.ir.types import (
    BF16,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    U8,
    U32,
    VOID,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    ScalarType,
    VectorType,
)
from larkc.ir.verify import verify_module

GLOBAL, SHARED = AddressSpace.GLOBAL, AddressSpace.SHARED
PF32 = PointerType(F32, GLOBAL)
F32X4 = VectorType(F32, 4, 16)
B4 = BlockType(F32, (4,))
B4P = BlockType(PF32, (4,))
TRUE = Const(True, BOOL)
ONE = Const(1.0, F32)
N = VarRef("n", I32)
X = VarRef("x", PF32)
V = VarRef("v", F32X4)


# --------------------------------------------------------------------------------------------------
# Printing


@pytest.mark.parametrize(
    ("const", "text"),
    [
        (Const(1, I32), "1:i32"),
        (Const(-128, I64), "-128:i64"),
        (Const(0.5, F32), "0.5:f32"),
        (Const(1e-05, F64), "1e-05:f64"),
        (Const(1.5e300, F64), "1.5e+300:f64"),
        (Const(-0.0, F16), "-0.0:f16"),
        (Const(math.inf, BF16), "inf:bf16"),
        (Const(-math.inf, F32), "-inf:f32"),
        (Const(math.nan, F32), "nan:f32"),
        (Const(True, BOOL), "true"),
        (Const(False, BOOL), "false"),
        (Const(True, I32), "true:i32"),  # ill-typed, still printed faithfully
        (Const(1, F32), "1:f32"),
    ],
)
def test_constants(const: Const, text: str) -> None:
    assert print_expr(const) == text


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("i", "%i"),
        ("i.1", "%i.1"),
        ("_tmp0", "%_tmp0"),
        ("warp_sum<float>", '%"warp_sum<float>"'),
        ("a b", '%"a b"'),
        ('q"\\', '%"q\\"\\\\"'),
        ("line\nbreak\t", '%"line\\nbreak\\t"'),
        ("\x01", '%"\\u{1}"'),
        ("1st", '%"1st"'),
        ("", '%""'),
    ],
)
def test_names(name: str, text: str) -> None:
    assert format_var(name) == text
    assert format_func(name) == "@" + text[1:]


T, B = "thread", "block"
#: Variables the test expressions use, declared as parameters of the kernel they are parsed in.
PARAMS = {
    T: "%n: i32, %x: ptr<global f32>, %v: f32x4",
    B: "%n: i32, %x: ptr<global f32>, %b: block<4 x f32>, %b1: block<1x4 x f32>, %a: block<2x2 x f16>",
}
A = VarRef("a", BlockType(F16, (2, 2)))

EXPRS: list[tuple[Expr, str, str]] = [
    (N, "%n", T),
    (Builtin(BuiltinReg.THREAD_IDX, Dim.Y, U32), "threadIdx.y", T),
    (Builtin(BuiltinReg.GRID_DIM, Dim.Z, I32), "gridDim.z", B),
    (Unary(UnaryOp.NEG, N, I32), "-(%n)", T),
    (Unary(UnaryOp.NEG, Const(1, I32), I32), "-(1:i32)", T),
    (Unary(UnaryOp.NOT, TRUE, BOOL), "!(true)", T),
    (Unary(UnaryOp.BITNOT, N, I32), "~(%n)", T),
    (Binary(BinaryOp.ADD, N, Binary(BinaryOp.MUL, N, N, I32), I32), "(%n + (%n * %n))", T),
    (Binary(BinaryOp.SUB, N, Const(-1, I32), I32), "(%n - -1:i32)", T),
    (Binary(BinaryOp.SHR, N, N, I32), "(%n >> %n)", T),
    (Binary(BinaryOp.REM, N, N, I32), "(%n % %n)", T),
    (Binary(BinaryOp.LE, N, N, BOOL), "(%n <= %n)", T),
    (Binary(BinaryOp.NE, X, X, BOOL), "(%x != %x)", T),
    (Binary(BinaryOp.LOR, TRUE, TRUE, BOOL), "(true || true)", T),
    (Binary(BinaryOp.MIN, N, N, I32), "min(%n, %n)", T),
    (Binary(BinaryOp.GT, VarRef("b", B4), VarRef("b", B4), BlockType(BOOL, (4,))), "(%b > %b)", B),
    (Select(TRUE, N, N, I32), "select(true, %n, %n)", T),
    (Cast(N, F32), "convert<f32>(%n)", T),
    (Cast(X, PointerType(F16, SHARED, True), CastKind.BITCAST), "bitcast<ptr<shared const f16>>(%x)", T),
    (Cast(VarRef("b", B4), BlockType(PF32, (4,)), CastKind.BITCAST), "bitcast<block<4 x ptr<global f32>>>(%b)", B),
    (MathCall(MathFn.FMA, (ONE, ONE, ONE), F32), "fma(1.0:f32, 1.0:f32, 1.0:f32)", T),
    (MathCall(MathFn.EXP2, (ONE,), F32, approx=True), "exp2.approx(1.0:f32)", T),
    (MathCall(MathFn.ISINF, (ONE,), BOOL), "isinf(1.0:f32)", T),
    (MathCall(MathFn.FFS, (N,), I32), "ffs(%n)", T),
    (PtrAdd(X, N, PF32), "ptradd(%x, %n)", T),
    (Extract(V, Const(2, I32), F32), "extract(%v, 2:i32)", T),
    (Insert(V, Const(0, U8), ONE, F32X4), "insert(%v, 0:u8, 1.0:f32)", T),
    (MakeVector((ONE, ONE), VectorType(F32, 2, 16)), "vector<f32x2align16>(1.0:f32, 1.0:f32)", T),
    (Arange(0, 128, BlockType(I32, (128,))), "arange<0, 128>()", B),
    (Arange(-4, 4, BlockType(I32, (8,))), "arange<-4, 4>()", B),
    (Splat(X, B4P), "splat<4>(%x)", B),
    (Broadcast(VarRef("b1", BlockType(F32, (1, 4))), BlockType(F32, (8, 4))), "broadcast<8x4>(%b1)", B),
    (Reshape(VarRef("b", B4), BlockType(F32, (4, 1))), "reshape<4x1>(%b)", B),
    (Reduce(ReduceOp.PROD, VarRef("b", B4), 0, F32), "reduce.prod<0>(%b)", B),
    (Dot(A, A, None, BlockType(F32, (2, 2))), "dot<f32>(%a, %a)", B),
    (
        Dot(A, A, Splat(Const(0, I32), BlockType(I32, (2, 2))), BlockType(I32, (2, 2))),
        "dot<i32>(%a, %a, splat<2x2>(0:i32))",
        B,
    ),
]


@pytest.mark.parametrize(("expr", "text", "level"), EXPRS, ids=[t for _, t, _ in EXPRS])
def test_expressions(expr: Expr, text: str, level: str) -> None:
    assert print_expr(expr) == text


@pytest.mark.parametrize(("expr", "text", "level"), EXPRS, ids=[t for _, t, _ in EXPRS])
def test_expressions_parse_back(expr: Expr, text: str, level: str) -> None:
    """Each printed expression parses to the same node, typed from declarations and the rules."""
    (decl,) = parse_body(f"let %r: {expr.type} = {text};", params=PARAMS[level], level=level)
    assert isinstance(decl, Decl)
    assert decl.init == expr


STMTS: list[tuple[Stmt, str]] = [
    (Decl("t", F32), "let %t: f32;"),
    (Decl("t", F32X4, V), "let %t: f32x4 = %v;"),
    (Assign("n", N), "%n = %n;"),
    (Alloc("s", F32, 256, SHARED), "shared %s: [256 x f32];"),
    (Alloc("d", F32, None, SHARED), "shared %d: [? x f32];"),
    (Alloc("acc", F32X4, 4, AddressSpace.LOCAL), "local %acc: [4 x f32x4];"),
    (Load("t", X), "%t = load [%x];"),
    (Load("t", VarRef("p", B4P), TRUE, ONE), "%t = load [%p], mask true, other 1.0:f32;"),
    (Load("t", X, nc=True), "%t = load.nc [%x];"),
    (Assert(TRUE), "assert true;"),
    (Assert(TRUE, kind=AssertKind.HINT), "assert.hint true;"),
    (Store(X, ONE), "store [%x], 1.0:f32;"),
    (Store(X, ONE, TRUE), "store [%x], 1.0:f32, mask true;"),
    (Break(), "break;"),
    (Continue(), "continue;"),
    (Return(), "return;"),
    (Return(N), "return %n;"),
    (Barrier(BarrierScope.BLOCK), "barrier.block;"),
    (Barrier(BarrierScope.WARP, Const(3, U32)), "barrier.warp(3:u32);"),
    (Fence(FenceScope.DEVICE), "fence.device;"),
    (Fence(MemScope.SYSTEM), "fence.system;"),
    (
        Shuffle("t", ShuffleKind.DOWN, Const(1, U32), ONE, Const(1, I32), Const(32, I32)),
        "%t = shfl.down(1:u32, 1.0:f32, 1:i32, 32:i32);",
    ),
    (Vote("b", VoteKind.BALLOT, Const(1, U32), TRUE), "%b = vote.ballot(1:u32, true);"),
    (Atomic(None, AtomicOp.ADD, X, ONE), "atomic.add [%x], 1.0:f32;"),
    (Atomic("o", AtomicOp.CAS, X, ONE, ONE), "%o = atomic.cas [%x], 1.0:f32, compare 1.0:f32;"),
    (Atomic(None, AtomicOp.MAX, X, ONE, mask=TRUE), "atomic.max [%x], 1.0:f32, mask true;"),
    (Atomic(None, AtomicOp.ADD, X, ONE, scope=MemScope.BLOCK), "atomic.add.block [%x], 1.0:f32;"),
    (
        Atomic(None, AtomicOp.EXCH, X, ONE, order=MemoryOrder.RELEASE, scope=MemScope.SYSTEM),
        "atomic.exch.release.system [%x], 1.0:f32;",
    ),
    (Call(None, "f<1>", (N, ONE)), 'call @"f<1>"(%n, 1.0:f32);'),
    (Call("r", "g", ()), "%r = call @g();"),
    (If(TRUE, (Break(),)), "if true {\n  break;\n}"),
    (If(TRUE, (), (Break(),)), "if true {\n} else {\n  break;\n}"),
    (While(Binary(BinaryOp.LT, N, N, BOOL), (Continue(),)), "while (%n < %n) {\n  continue;\n}"),
    (DoWhile((Break(),), TRUE), "do {\n  break;\n} while true;"),
    (For((), None, (), ()), "for (;;) {\n}"),
    (
        For(
            (Decl("i", I32, Const(0, I32)), Decl("j", I32)),
            Binary(BinaryOp.LT, VarRef("i", I32), N, BOOL),
            (Assign("i", N), Assign("j", N)),
            (Break(),),
            unroll=4,
        ),
        "for (let %i: i32 = 0:i32, let %j: i32; (%i < %n); %i = %n, %j = %n) unroll 4 {\n  break;\n}",
    ),
]


@pytest.mark.parametrize(("stmt", "text"), STMTS, ids=[t.split("\n")[0] for _, t in STMTS])
def test_statements(stmt: Stmt, text: str) -> None:
    assert print_stmt(stmt) == text


@pytest.mark.parametrize(
    ("order", "scope"), [(o, s) for o in MemoryOrder for s in MemScope], ids=lambda m: str(m.value)
)
def test_atomic_order_and_scope_parse_back(order: MemoryOrder, scope: MemScope) -> None:
    suffix = ("" if order is MemoryOrder.RELAXED else f".{order.value}") + (
        "" if scope is MemScope.DEVICE else f".{scope.value}"
    )
    stmt_a, stmt_f = parse_body(f"atomic.add{suffix} [%x], 1.0:f32;", f"fence.{scope.value};", params=PARAMS[T])
    assert isinstance(stmt_a, Atomic) and (stmt_a.order, stmt_a.scope) == (order, scope)
    assert stmt_f == Fence(scope)


def test_nested_statements_are_indented() -> None:
    s = If(TRUE, (While(TRUE, (DoWhile((Break(),), TRUE),)),))
    assert print_stmt(s, 1) == (
        "  if true {\n    while true {\n      do {\n        break;\n      } while true;\n    }\n  }"
    )


def test_function_headers() -> None:
    k = Function(
        "add", FunctionKind.KERNEL, Level.THREAD, (Param("x", PF32), Param("n", I32)), VOID, (), max_threads=256
    )
    assert print_function(k) == "kernel @add(%x: ptr<global f32>, %n: i32) level thread max_threads 256 {\n}\n"
    d = Function("warp_sum<float>", FunctionKind.DEVICE, Level.BLOCK, (Param("v", F32, by_ref=True),), F32, ())
    assert print_function(d) == 'device @"warp_sum<float>"(&%v: f32) -> f32 level block {\n}\n'
    assert print_module(Module((k, d))) == print_function(k) + "\n" + print_function(d)
    assert print_module(Module(())) == ""


# --------------------------------------------------------------------------------------------------
# Parsing


def kernel_text(*lines: str, params: str = "", level: str = "thread") -> str:
    body = "".join(f"  {line}\n" for line in lines)
    return f"kernel @k({params}) level {level} {{\n{body}}}\n"


def parse_body(*lines: str, params: str = "", level: str = "thread") -> tuple[Stmt, ...]:
    return parse_module(kernel_text(*lines, params=params, level=level)).functions[0].body


def test_spans_come_from_the_text() -> None:
    text = kernel_text("let %t: i32 = (%n + 1:i32);", params="%n: i32")
    m = parse_module(text, "add.ir")
    f = m.functions[0]
    decl = f.body[0]
    assert isinstance(decl, Decl) and isinstance(decl.init, Binary)
    assert f.span == Span("add.ir", 1, 1, 3, 2)
    assert f.params[0].span == Span("add.ir", 1, 11, 1, 18)
    assert decl.span == Span("add.ir", 2, 3, 2, 29)
    assert decl.init.span == Span("add.ir", 2, 17, 2, 29)
    assert decl.init.rhs.span == Span("add.ir", 2, 23, 2, 28)


def test_types_of_variables_come_from_scopes() -> None:
    body = parse_body(
        "let %a: f32x2align16;",
        "if true {",
        "  let %b: ptr<shared const restrict [4 x f32]> = bitcast<ptr<shared const restrict [4 x f32]>>(0:i64);",
        "  %a = %a;",
        "}",
        "shared %s: [8 x bf16];",
        "store [%s], 1.0:bf16;",
    )
    assert isinstance(body[1], If)
    inner = body[1].then_body
    assert isinstance(inner[0], Decl)
    assert inner[0].type == PointerType(ArrayType(F32, 4), SHARED, True, True)
    assert isinstance(inner[1], Assign) and inner[1].value == VarRef("a", VectorType(F32, 2, 16))
    assert isinstance(body[3], Store) and body[3].ptr == VarRef("s", PointerType(BF16, SHARED))


def test_builtin_type_follows_the_level() -> None:
    (t,) = parse_body("let %p: i32 = blockIdx.x;", level="block")
    assert isinstance(t, Decl) and t.init == Builtin(BuiltinReg.BLOCK_IDX, Dim.X, I32)
    (u,) = parse_body("let %p: u32 = blockIdx.z;")
    assert isinstance(u, Decl) and u.init == Builtin(BuiltinReg.BLOCK_IDX, Dim.Z, U32)


def test_comments_and_whitespace_are_ignored() -> None:
    text = "// a kernel\nkernel @k()   level thread {  // body\n\n  return ;\n}"
    assert parse_module(text) == Module((Function("k", FunctionKind.KERNEL, Level.THREAD, (), VOID, (Return(),)),))


def test_nan_constants_compare_equal_after_parsing() -> None:
    text = kernel_text("let %a: f32 = nan:f32;")
    assert parse_module(text) == parse_module(text)


def test_use_out_of_scope_parses_and_the_verifier_rejects_it() -> None:
    m = parse_module(kernel_text("if true {", "  let %t: f32;", "}", "let %u: f32 = %t;"), "scope.ir")
    with pytest.raises(TypeCheckError) as info:
        verify_module(m)
    assert str(info.value) == "scope.ir:5:17: error: use of %t outside its scope"


SYNTAX_ERRORS = [
    (kernel_text("let %x: i32 = 1:i32"), "k.ir:3:1: error: unexpected '}'; expected ')', ',', ';', ']', '{'"),
    (kernel_text("let %x: i32 = $;"), "k.ir:2:17: error: unexpected character '$'"),
    ("kernel @k() level warp {}", "k.ir:1:19: error: unexpected 'warp'; expected thread or block"),
    (kernel_text("barrier.grid;"), "k.ir:2:3: error: unknown barrier 'barrier.grid'"),
    (kernel_text("%x = vote.some(1:u32, true);"), "k.ir:2:8: error: unknown vote 'vote.some'"),
    (kernel_text("atomic.nand [%x], 1:i32;"), "k.ir:2:3: error: unknown atomic operation 'atomic.nand'"),
    (kernel_text("atomic.add.relaxed.warp [%x], 1:i32;"), "k.ir:2:3: error: unknown memory scope 'scope.warp'"),
    (kernel_text("atomic.add.block.relaxed [%x], 1:i32;"), "k.ir:2:3: error: unknown memory scope"),
    (kernel_text("let %x: f32 = frobnicate(1.0:f32);"), "k.ir:2:17: error: unknown operation 'frobnicate'"),
    (kernel_text("let %x: f32 = sqrt.fast(1.0:f32);"), "k.ir:2:17: error: unknown operation 'sqrt.fast'"),
    (kernel_text("let %x: f32 = reduce.avg<0>(%b);"), "k.ir:2:17: error: unknown reduction 'reduce.avg'"),
    (
        kernel_text("let %x: i32 = convert(1:i32);"),
        "k.ir:2:17: error: convert takes 1 static argument(s) in <...>, got 0",
    ),
    (kernel_text("let %x: i32 = select(true, 1:i32);"), "k.ir:2:17: error: select takes 3 operand(s), got 2"),
    (kernel_text("let %x: i32 = splat<f32>(1:i32);"), "k.ir:2:23: error: expected a shape such as 64x32"),
    (kernel_text("let %x: i32 = arange<f32, 4>();"), "k.ir:2:24: error: expected an integer"),
    (kernel_text("let %x: i32 = convert<4>(1:i32);"), "k.ir:2:25: error: expected a type, got '4'"),
    (kernel_text("let %x: i32 = sqrt<f32>(1:i32);"), "k.ir:2:17: error: sqrt takes no static arguments"),
    (kernel_text('let %"a\\qb": i32;'), 'k.ir:2:7: error: invalid escape \\q in name "a\\qb"'),
    (kernel_text("let %x: i32 = 1:i32;\n"), None),  # control: valid
    ("kernel @k() level thread {\n  return;\n", "k.ir:2:10: error: unexpected end of input; expected"),
    ("kernel @k() level thread {} junk", "k.ir:1:29: error: unexpected 'junk'"),
    (kernel_text("let %x: f32 = 1.5.5:f32;"), "k.ir:2:17: error: unexpected"),
]


@pytest.mark.parametrize(("text", "error"), SYNTAX_ERRORS)
def test_syntax_errors(text: str, error: str | None) -> None:
    if error is None:
        parse_module(text, "k.ir")
        return
    with pytest.raises(UserSyntaxError) as info:
        parse_module(text, "k.ir")
    assert str(info.value).startswith(error)
    assert "\n" not in info.value.message


TYPE_ERRORS = [
    (kernel_text("let %x: i32 = %y;"), "k.ir:2:17: error: use of undeclared variable %y"),
    (kernel_text("let %x: i32 = (1:i32 + 1:u32);"), "k.ir:2:17: error: operands of + have different types i32 and u32"),
    (kernel_text("let %x: f32 = sqrt(1:i32);"), "k.ir:2:17: error: sqrt needs float arguments, got i32"),
    (kernel_text("let %x: block<4 x f32x4>;", level="block"), "k.ir:2:11: error: block element must be a scalar"),
    (kernel_text("let %x: f32 = dot<f32x4>(%x, %x);"), "k.ir:2:17: error: result of dot must have a numeric element"),
]


@pytest.mark.parametrize(("text", "error"), TYPE_ERRORS)
def test_typing_errors_while_parsing(text: str, error: str) -> None:
    with pytest.raises(TypeCheckError) as info:
        parse_module(text, "k.ir")
    assert str(info.value).startswith(error)


def test_errors_render_the_source_line() -> None:
    with pytest.raises(LarkcError) as info:
        parse_module(kernel_text("let %x: i32 = (1:i32 + 1:u32);"), "render.ir")
    assert info.value.render().splitlines() == [
        "render.ir:2:17: error: operands of + have different types i32 and u32",
        "    2 |   let %x: i32 = (1:i32 + 1:u32);",
        "      |                 ^~~~~~~~~~~~~~~",
    ]


def test_deep_nesting_is_a_located_error_not_a_crash() -> None:
    depth = 5000
    text = kernel_text("let %x: i32 = " + "-(" * depth + "1:i32" + ")" * depth + ";")
    with contextlib.suppress(LarkcError):  # too deep for the recursive walk: reported, not a traceback
        parse_module(text)


def test_every_scalar_type_round_trips() -> None:
    from larkc.ir.types import SCALARS

    for name, t in SCALARS.items():
        value: bool | int | float = True if t == BOOL else (1 if isinstance(t, ScalarType) and t.is_int else 0.5)
        (d,) = parse_body(f"let %x: {name} = {print_expr(Const(value, t))};")
        assert d == Decl("x", t, Const(value, t))


def test_f64_vectors_and_pointer_to_pointer() -> None:
    (d,) = parse_body("let %p: ptr<generic ptr<global f64x2>>;")
    assert isinstance(d, Decl)
    assert d.type == PointerType(PointerType(VectorType(F64, 2, 16), GLOBAL), AddressSpace.GENERIC)
