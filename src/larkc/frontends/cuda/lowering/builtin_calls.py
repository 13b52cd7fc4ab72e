"""Calls of the device library, dispatched through a table from function name to handler.

Barriers and fences, warp shuffles, votes and reductions, atomics, cache-hinted loads and stores, the
math library (through the rule tables of :mod:`larkc.frontends.cuda.builtins`), conversion and
half-precision intrinsics, ``make_<vector>``, ``assert`` and ``memcpy``. ``_INTRINSICS`` is looked up
first; a host function of the file shadows only the names of ``_C_LIBRARY``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda import builtins as lib
from larkc.frontends.cuda.lowering.contracts import RETURN_VALUES, UNMODELLED, Contracts, in_loop_condition
from larkc.frontends.cuda.lowering.cooperative import linear_thread_index
from larkc.frontends.cuda.lowering.values import FULL_MASK, LValue, MemLV, Val, VarLV
from larkc.frontends.cuda.sema.constants import fold_constant, numeric_limit
from larkc.frontends.cuda.sema.ctypes import BUILTIN_TYPES, CArray, integer_promote, vector
from larkc.frontends.cuda.sema.unit import is_type_arg
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import (
    Assert,
    AssertKind,
    Assign,
    Atomic,
    AtomicOp,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Cast,
    CastKind,
    Const,
    Expr,
    Extract,
    Fence,
    Load,
    MakeVector,
    MathCall,
    MathFn,
    MemScope,
    PtrAdd,
    Select,
    Shuffle,
    ShuffleKind,
    Unary,
    VarRef,
    Vote,
    VoteKind,
)
from larkc.ir.types import (
    BF16,
    BOOL,
    F8E4M3,
    F8E5M2,
    F16,
    F32,
    F64,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    VoidType,
    size_of,
)
from larkc.ir.values import FP8_OVERFLOW

_SHUFFLES = {
    "__shfl_sync": ShuffleKind.IDX,
    "__shfl_up_sync": ShuffleKind.UP,
    "__shfl_down_sync": ShuffleKind.DOWN,
    "__shfl_xor_sync": ShuffleKind.XOR,
}

_VOTES = {"__any_sync": VoteKind.ANY, "__all_sync": VoteKind.ALL, "__ballot_sync": VoteKind.BALLOT}

_ATOMICS = {
    "atomicAdd": AtomicOp.ADD,
    "atomicSub": AtomicOp.SUB,
    "atomicMin": AtomicOp.MIN,
    "atomicMax": AtomicOp.MAX,
    "atomicExch": AtomicOp.EXCH,
    "atomicCAS": AtomicOp.CAS,
    "atomicAnd": AtomicOp.AND,
    "atomicOr": AtomicOp.OR,
    "atomicXor": AtomicOp.XOR,
    "atomicInc": AtomicOp.INC,
    "atomicDec": AtomicOp.DEC,
}

#: The scope of each atomic by its name's suffix: ``atomicAdd_block`` is atomic only towards its block.
_ATOMIC_SCOPES = dict.fromkeys(_ATOMICS, MemScope.DEVICE)
for _n, _op in list(_ATOMICS.items()):
    for _scope_suffix, _scope in (("_block", MemScope.BLOCK), ("_system", MemScope.SYSTEM)):
        _ATOMICS[_n + _scope_suffix] = _op
        _ATOMIC_SCOPES[_n + _scope_suffix] = _scope

#: `__reduce_<op>_sync(mask, v)` (integers, sm_80): the binary operator each combines with.
_WARP_REDUCES = {
    "__reduce_add_sync": "+",
    "__reduce_min_sync": "min",
    "__reduce_max_sync": "max",
    "__reduce_and_sync": "&",
    "__reduce_or_sync": "|",
    "__reduce_xor_sync": "^",
}

_LOADS = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"}

_STORES = {"__stwb", "__stcg", "__stcs", "__stwt"}

_SHUFFLE_TYPES = {"i32", "u32", "i64", "u64", "f32", "f64", "f16", "bf16"}

#: Inline PTX larkc recognises, by its exact text (whitespace collapsed): what it does, the output
#: operands' constraints and the input operands' constraints (``"r|f"``: either letter, for a ``.b32``
#: operand that moves bits, whose value is shuffled as the type the letter gives). Any other asm is
#: unsupported.
_ASM_IDIOMS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "mov.u32 %0, %%laneid;": ("laneid", ("=r",), ()),
    "cvt.rn.f16.f32 %0, %1;": ("f32_to_f16_bits", ("=h",), ("f",)),
    "cvt.f32.f16 %0, %1;": ("f16_bits_to_f32", ("=f",), ("h",)),
    "ld.global.nc.f32 %0, [%1];": ("load_f32", ("=f",), ("l",)),
    "ld.global.nc.b32 %0, [%1];": ("load_u32", ("=r",), ("l",)),
    "ld.global.nc.u32 %0, [%1];": ("load_u32", ("=r",), ("l",)),
    "shfl.sync.bfly.b32 %0, %1, %2, %3, %4;": ("shfl_bfly", ("=r|=f",), ("r|f", "r", "r", "r")),
    # the clamp 0x1f (the whole warp) and the mask 0xffffffff written in the text (flashinfer's math.cuh)
    "shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;": ("shfl_bfly_warp", ("=r|=f",), ("r|f", "r")),
    # programmatic dependent launch (sm_90): it orders this grid against the previous/next launch in the
    # stream; within one launch, what larkc simulates, it orders nothing
    "griddepcontrol.wait;": ("nop", (), ()),
    "griddepcontrol.launch_dependents;": ("nop", (), ()),
    "trap;": ("trap", (), ()),
}

#: The ``.approx`` math instructions: the IR's math function each computes (``rcp``: ``1 / x``, as the
#: approximate division ``div.approx``) and its types: ``.f32`` in ``f`` registers, ``.f16``/``.bf16``
#: as their bits in ``h`` registers, ``.f16x2``/``.bf16x2`` as a pair packed in an ``r`` register
#: (lane 0 in the low half). ``.ftz`` (flush subnormal inputs and results to zero) is not modelled,
#: as the larger error of the approximation is not (docs/semantics.md).
_ASM_APPROX_FNS = {
    "ex2": MathFn.EXP2,
    "lg2": MathFn.LOG2,
    "rsqrt": MathFn.RSQRT,
    "rcp": MathFn.DIV,
    "tanh": MathFn.TANH,
}
_ASM_APPROX_TYPES: dict[str, tuple[str, ScalarType | VectorType]] = {
    "f32": ("f", F32),
    "f16": ("h", F16),
    "bf16": ("h", BF16),
    "f16x2": ("r", vector(F16, 2)),
    "bf16x2": ("r", vector(BF16, 2)),
}
_ASM_APPROX_FORMS = [
    *(f"{op}.approx{ftz}.f32" for op in ("ex2", "lg2", "rsqrt", "rcp") for ftz in ("", ".ftz")),
    "tanh.approx.f32",
    "ex2.approx.f16",
    "ex2.approx.f16x2",
    "ex2.approx.ftz.bf16",
    "ex2.approx.ftz.bf16x2",
    "tanh.approx.f16",
    "tanh.approx.f16x2",
    "tanh.approx.bf16",
    "tanh.approx.bf16x2",
]
for _form in _ASM_APPROX_FORMS:
    _letter = _ASM_APPROX_TYPES[_form.rsplit(".", 1)[1]][0]
    _ASM_IDIOMS[f"{_form} %0, %1;"] = (f"approx {_form}", (f"={_letter}",), (_letter,))


def _constraints_match(got: Sequence[str], want: Sequence[str]) -> bool:
    """Whether the operands' constraints are those of an idiom (``"r|f"``: either)."""
    return len(got) == len(want) and all(g in w.split("|") for g, w in zip(got, want, strict=True))


#: Known functions outside the supported subset, and what the error calls them.
_UNSUPPORTED = {
    **{n: f"call of {n}" for n in ("__brkpt", "malloc", "free", "clock", "clock64")},
    "__activemask": "__activemask",
}


class BuiltinCalls(Contracts):
    """The device library: a handler per function, looked up by name."""

    def builtin_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A call of the device library function ``name``, dispatched through the table of handlers.

        The CUDA intrinsics come first; a host function of the file may shadow only the C library
        names (``assert``, ``memcpy``, ``printf``, ...), which are looked up after it.
        """
        handler = _INTRINSICS.get(name)
        if handler is None:
            if name in self.tu.host_functions:
                raise self.type_error(f"call of host function {name} from device code", node)
            handler = _C_LIBRARY.get(name)
        if handler is None:
            raise self.unknown_name(name, self.unsupported("call of unknown function", node), node)
        return handler(self, name, arg_nodes, node, want_value)

    def no_result(self, name: str, node: ts.Node, want_value: bool) -> Val | None:
        """What a call of a function returning nothing gives: nothing, or an error where a value is used."""
        return None if not want_value else self.no_value(name, node)

    # -- handlers, each (name, argument nodes, call node, whether the value is used) -> value --------

    def sync_threads(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__syncthreads()``: a block barrier."""
        self.expect_args(name, arg_nodes, (0,), node)
        self.emit(Barrier(BarrierScope.BLOCK, None, self.span(node)))
        return self.no_result(name, node, want_value)

    def sync_warp(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__syncwarp(mask)``: a barrier of the warp's lanes in ``mask`` (all of them by default)."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (0, 1), node)
        mask: Expr = Const(FULL_MASK, U32, span)
        if arg_nodes:
            mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        self.emit(Barrier(BarrierScope.WARP, mask, span))
        return self.no_result(name, node, want_value)

    def thread_fence(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__threadfence_block()``, ``__threadfence()``, ``__threadfence_system()``: a memory fence."""
        self.expect_args(name, arg_nodes, (0,), node)
        scope = {"__threadfence_block": MemScope.BLOCK, "__threadfence_system": MemScope.SYSTEM}.get(
            name, MemScope.DEVICE
        )
        self.emit(Fence(scope, self.span(node)))
        return self.no_result(name, node, want_value)

    def vote(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__any_sync``, ``__all_sync``, ``__ballot_sync``."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (2,), node)
        vmask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        pred = self.to_bool(self.rvalue(arg_nodes[1]), arg_nodes[1]).expr
        vote = _VOTES[name]
        rt = U32 if vote is VoteKind.BALLOT else I32
        dst = self.tmp(rt, node)
        self.emit(Vote(dst, vote, vmask, pred, span))
        return Val(VarRef(dst, rt, span), rt)

    def cached_load(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__ldg(p)`` and the other cache-hinted loads: a read of ``*p``. ``__ldg`` reads through the
        non-coherent read-only data cache (a :class:`Load` with ``nc``: defined only on memory the launch
        never writes); the other hints (``__ldcg``, ``__ldcv``, ...) choose a coherent caching policy and
        do not change what is read."""
        self.expect_args(name, arg_nodes, (1,), node)
        pv = self.decay(self.rvalue(arg_nodes[0]))
        if not isinstance(pv.ctype, PointerType) or isinstance(pv.ctype.pointee, VoidType):
            raise self.type_error(f"{name} needs a pointer argument", node)
        if name == "__ldg":
            return self.read_non_coherent(pv.expr, pv.ctype.pointee, node)
        return self.read(MemLV(pv.expr, pv.ctype.pointee, True), node)

    def read_non_coherent(self, ptr: Expr, t: Type, node: ts.Node) -> Val:
        """``*ptr`` through the read-only data cache (``__ldg``, ``ld.global.nc``)."""
        dst = self.tmp(t, node)
        self.emit(Load(dst, ptr, None, None, self.span(node), nc=True))
        return Val(VarRef(dst, t, self.span(node)), t)

    def cached_store(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__stwb(p, v)`` and the other cache-hinted stores: ``*p = v``."""
        self.expect_args(name, arg_nodes, (2,), node)
        pv = self.decay(self.rvalue(arg_nodes[0]))
        if not isinstance(pv.ctype, PointerType) or isinstance(pv.ctype.pointee, VoidType):
            raise self.type_error(f"{name} needs a pointer argument", node)
        v = self.convert(self.rvalue(arg_nodes[1]), pv.ctype.pointee, node)
        self.write(MemLV(pv.expr, pv.ctype.pointee, pv.ctype.const), v, node)
        return self.no_result(name, node, want_value)

    def math_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A function of :data:`larkc.frontends.cuda.builtins.MATH_FUNCTIONS` (``expf``, ``__popc``, ...)."""
        span = self.span(node)
        fn, policy, approx = lib.MATH_FUNCTIONS[name]
        arity = {MathFn.ATAN2: 2, MathFn.POW: 2, MathFn.FMOD: 2, MathFn.DIV: 2, MathFn.COPYSIGN: 2, MathFn.FMA: 3}
        self.expect_args(name, arg_nodes, (arity.get(fn, 1),), node)
        vals = self.args(arg_nodes)
        exprs, t = self.policy_args(policy, vals, name, node)
        if fn in (MathFn.POPC, MathFn.CLZ, MathFn.FFS):
            if not isinstance(t, ScalarType) or not t.is_int:
                raise self.type_error(f"{name} needs an integer argument", node)
            return Val(MathCall(fn, tuple(exprs), I32, approx, span), I32)
        if fn is MathFn.ABS and isinstance(t, ScalarType) and t.is_int:
            if t.is_unsigned:
                return Val(exprs[0], t)
            return Val(MathCall(fn, tuple(exprs), t, approx, span), t)
        if fn in (MathFn.ISNAN, MathFn.ISINF, MathFn.ISFINITE, MathFn.SIGNBIT):
            return Val(MathCall(fn, tuple(exprs), BOOL, approx, span), BOOL)
        if isinstance(t, ScalarType) and not t.is_float:
            raise self.type_error(f"{name} of {t}", node)
        return Val(MathCall(fn, tuple(exprs), t, approx, span), t)

    def binary_function(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A function that is an IR binary operator (``fminf``, ``__hadd``, ``max``, ...)."""
        op, policy = lib.BINARY_FUNCTIONS[name]
        self.expect_args(name, arg_nodes, (2,), node)
        exprs, t = self.policy_args(policy, self.args(arg_nodes), name, node)
        return Val(Binary(op, exprs[0], exprs[1], t, self.span(node)), t)

    def integer_multiply(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__mul24``/``__umul24`` (the low 32 bits of the product of the operands' low 24 bits, signed
        ones sign-extended) and ``__mulhi``/``__umulhi`` (the high 32 bits of the 64-bit product)."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (2,), node)
        signed = name in ("__mul24", "__mulhi")
        t, wide = (I32, I64) if signed else (U32, U64)
        operands: list[Expr] = []
        for v, n in zip(self.args(arg_nodes), arg_nodes, strict=True):
            e: Expr = Cast(self.convert(v, t, n).expr, wide, CastKind.CONVERT, span)
            if name.endswith("24"):
                e = Binary(BinaryOp.BITAND, e, Const(0xFFFFFF, wide, span), wide, span)
                if signed:  # sign-extend bit 23: (x ^ 2^23) - 2^23
                    flipped = Binary(BinaryOp.BITXOR, e, Const(0x800000, wide, span), wide, span)
                    e = Binary(BinaryOp.SUB, flipped, Const(0x800000, wide, span), wide, span)
            operands.append(e)
        product: Expr = Binary(BinaryOp.MUL, operands[0], operands[1], wide, span)
        if name.endswith("hi"):
            product = Binary(BinaryOp.SHR, product, Const(32, wide, span), wide, span)
        return Val(Cast(product, t, CastKind.CONVERT, span), t)

    def inline_asm(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``asm volatile("..." : outputs : inputs)`` whose text is one of :data:`_ASM_IDIOMS`."""
        span = self.span(node)
        code = node.child_by_field_name("assembly_code")
        assert code is not None
        parts = (
            [c for c in code.named_children if c.type == "string_literal"] if code.type != "string_literal" else [code]
        )
        text = " ".join(
            "".join(node_text(c) for c in p.named_children).replace("\\n", " ").replace("\\t", " ") for p in parts
        )
        idiom = _ASM_IDIOMS.get(" ".join(text.split()))
        if idiom is None:
            raise self.unsupported("inline asm (not one of the recognised PTX idioms)", code)
        kind, out_constraints, in_constraints = idiom
        outs, ins = self.asm_operands(node, "output_operands"), self.asm_operands(node, "input_operands")
        if not _constraints_match([c for c, _ in outs], out_constraints) or not _constraints_match(
            [c for c, _ in ins], in_constraints
        ):
            raise self.unsupported(f"inline asm operands other than {out_constraints} : {in_constraints}", node)
        args = [v for _, v in ins]
        match kind.split(" ")[0]:
            case "nop":
                return None
            case "trap":
                self.emit(Assert(Const(False, BOOL, span), span))
                return None
            case "laneid":
                result = Val(Binary(BinaryOp.BITAND, linear_thread_index(span), Const(31, U32, span), U32, span), U32)
            case "f32_to_f16_bits":
                half = Cast(self.convert(self.rvalue(args[0]), F32, args[0]).expr, F16, CastKind.CONVERT, span)
                result = Val(Cast(half, U16, CastKind.BITCAST, span), U16)
            case "f16_bits_to_f32":
                bits = self.asm_register("h", args[0]).expr
                result = Val(Cast(Cast(bits, F16, CastKind.BITCAST, span), F32, CastKind.CONVERT, span), F32)
            case "load_f32" | "load_u32":
                pv = self.decay(self.rvalue(args[0]))
                if not isinstance(pv.ctype, PointerType):
                    raise self.unsupported("ld.global.nc from an address that is not a pointer", args[0])
                t = F32 if kind == "load_f32" else U32
                pt = PointerType(t, pv.ctype.space, True)
                ptr = pv.expr if pv.ctype.pointee == t else Cast(pv.expr, pt, CastKind.BITCAST, span)
                result = self.read_non_coherent(ptr, t, node)
            case "shfl_bfly" | "shfl_bfly_warp":
                width: int | Expr = 32
                mask: Expr = Const(FULL_MASK, U32, span)
                if kind == "shfl_bfly":
                    clamp = fold_constant(self.tu, args[2], self.env, self.const_scope())
                    if not isinstance(clamp, int) or clamp & 0xFF != 0x1F or not 0 <= 32 - (clamp >> 8) <= 32:
                        raise self.unsupported(
                            "shfl.sync clamp operand other than a constant ((32 - width) << 8) | 0x1f", args[2]
                        )
                    width, mask = 32 - (clamp >> 8), self.convert(self.rvalue(args[3]), U32, args[3]).expr
                # a .b32 shuffle moves the register's bits: a float ("f") is shuffled as the float
                v = self.asm_register(ins[0][0], args[0])
                lane = self.convert(self.rvalue(args[1]), I32, args[1]).expr
                result = self.emit_shuffle(ShuffleKind.XOR, mask, v, lane, width, node)
                out_t = F32 if outs[0][0] == "=f" else U32
                if out_t != result.ctype:  # the other register kind: the same bits
                    result = Val(Cast(result.expr, out_t, CastKind.BITCAST, span), out_t)
            case "approx":
                result = self.asm_approx(kind.split(" ")[1], args[0], span)
            case _:
                raise AssertionError(kind)
        out_node = outs[0][1]
        lv = self.lvalue(out_node)
        if isinstance(lv, Val):
            raise self.type_error("inline asm output that is not a variable or memory", out_node)
        if outs[0][0] in ("=h", "=r") and not (isinstance(lv.type, ScalarType) and lv.type.is_int):
            raise self.unsupported(f"inline asm output of type {lv.type} in an integer register", out_node)
        self.write(lv, self.convert(result, lv.type, out_node), out_node)
        return None

    def asm_register(self, letter: str, arg: ts.Node) -> Val:
        """An input operand in an ``f`` (``float``), ``h`` (16-bit) or ``r`` (32-bit) register. An integer
        register takes only integers (converted, as C converts them): the bits of a float value in one
        would be a reinterpretation, which larkc does not guess."""
        v = self.decay(self.rvalue(arg))
        if letter != "f" and not (isinstance(v.ctype, ScalarType) and v.ctype.is_int):
            raise self.unsupported(f"inline asm operand of type {v.ctype} in an integer register", arg)
        return self.convert(v, {"f": F32, "h": U16, "r": U32}[letter], arg)

    def asm_approx(self, form: str, arg: ts.Node, span: Span) -> Val:
        """``<op>.approx[.ftz].<type> %0, %1;`` (:data:`_ASM_APPROX_FNS`): the approximate math call of the
        operand's value; ``.f16``/``.bf16`` and the packed pairs take and give the values' bits (the
        operand is converted to ``u16``/``u32`` first, as the register it is passed in)."""
        op, type_name = form.split(".", maxsplit=1)[0], form.rsplit(".", 1)[1]
        letter, t = _ASM_APPROX_TYPES[type_name]
        bits_t = {"f": F32, "h": U16, "r": U32}[letter]
        x = self.asm_register(letter, arg).expr
        if letter != "f":
            x = Cast(x, t, CastKind.BITCAST, span)
        fn = _ASM_APPROX_FNS[op]
        operands: tuple[Expr, ...] = (x,)
        if fn is MathFn.DIV:
            one: Expr = Const(1.0, F32, span)
            operands = (one, x)
        y: Expr = MathCall(fn, operands, t, True, span)
        if letter != "f":
            y = Cast(y, bits_t, CastKind.BITCAST, span)
        return Val(y, bits_t)

    def asm_operands(self, node: ts.Node, field: str) -> list[tuple[str, ts.Node]]:
        """The ``(constraint, value node)`` of each operand in an asm operand list."""
        operand_list = node.child_by_field_name(field)
        out: list[tuple[str, ts.Node]] = []
        for op in operand_list.named_children if operand_list is not None else []:
            constraint, value = op.child_by_field_name("constraint"), op.child_by_field_name("value")
            if constraint is None or value is None:
                raise self.unsupported("inline asm operand", op)
            out.append((node_text(constraint).strip('"'), value))
        return out

    def ignored_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``printf(...)``: output larkc does not model; its arguments are evaluated, the call writes no memory
        and, where its value is used, returns 0 (as if nothing was printed)."""
        for a in arg_nodes:
            if a.type not in ("string_literal", "concatenated_string"):
                self.rvalue(a)
        return Val(Const(0, I32, self.span(node)), I32) if want_value else None

    def assume_aligned(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__builtin_assume_aligned(p, n[, offset])``: ``p`` itself, with the promise that the address
        ``p - offset`` is a multiple of ``n`` bytes, a hint obligation (:attr:`AssertKind.HINT`): the
        compiler vectorises on it, so a false one is undefined behaviour. It keeps ``p``'s type, where C
        gives ``void*``."""
        self.expect_args(name, arg_nodes, (2, 3), node)
        span = self.span(node)
        pv = self.decay(self.rvalue(arg_nodes[0]))
        if not isinstance(pv.ctype, PointerType):
            raise self.type_error(f"{name} needs a pointer argument", node)
        align = fold_constant(self.tu, arg_nodes[1], self.env, self.const_scope())
        if not isinstance(align, int) or align <= 0 or align & (align - 1):
            raise self.type_error(f"{name} needs a constant power-of-two alignment", arg_nodes[1])
        address: Expr = Cast(pv.expr, U64, CastKind.BITCAST, span)
        if len(arg_nodes) == 3:
            offset = self.convert(self.rvalue(arg_nodes[2]), U64, arg_nodes[2]).expr
            address = Binary(BinaryOp.SUB, address, offset, U64, span)
        rem = Binary(BinaryOp.BITAND, address, Const(align - 1, U64, span), U64, span)
        self.emit(Assert(Binary(BinaryOp.EQ, rem, Const(0, U64, span), BOOL, span), span, AssertKind.HINT))
        return pv

    def assume_hint(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__builtin_assume(cond)`` (clang, nvcc): the promise that ``cond`` holds here, which the compiler
        optimises on and never checks: a hint obligation (:attr:`AssertKind.HINT`), never a hypothesis."""
        self.expect_args(name, arg_nodes, (1,), node)
        cond = self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr
        self.emit(Assert(cond, self.span(node), AssertKind.HINT))
        return self.no_result(name, node, want_value)

    def compare_function(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A half-precision comparison (``__hlt``, ``__heq``, ...)."""
        self.expect_args(name, arg_nodes, (2,), node)
        exprs, _ = self.policy_args(lib.ArgPolicy.HALF, self.args(arg_nodes), name, node)
        return Val(Binary(lib.COMPARE_FUNCTIONS[name], exprs[0], exprs[1], BOOL, self.span(node)), BOOL)

    def unary_function(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A function that is an IR unary operator (``__hneg``, ...)."""
        uop, policy = lib.UNARY_FUNCTIONS[name]
        self.expect_args(name, arg_nodes, (1,), node)
        exprs, t = self.policy_args(policy, self.args(arg_nodes), name, node)
        return Val(Unary(uop, exprs[0], t, self.span(node)), t)

    def conversion(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A conversion intrinsic (``__float2int_rn``, ``__float_as_int``, ``__half2float``, ...)."""
        span = self.span(node)
        src, dst_t, kind, rounding = lib.CONVERSIONS[name]
        self.expect_args(name, arg_nodes, (1,), node)
        v = self.rvalue(arg_nodes[0])
        e = self.convert(v, src, node).expr if src is not None else self.scalar(v, node)[0]
        if rounding is not None:
            assert src is not None
            if src.is_float and src.bits == 16:  # `__half2int_rn`: round the value exactly widened to float
                e, src = Cast(e, F32, CastKind.CONVERT, span), F32
            e = MathCall(rounding, (e,), src, False, span)
        return Val(
            Cast(e, dst_t, kind, span) if kind is CastKind.BITCAST else self.cast_any(e, src, dst_t, span), dst_t
        )

    def saturate(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__saturatef(x)``: ``x`` clamped to [0, 1]."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (1,), node)
        e = self.convert(self.rvalue(arg_nodes[0]), F32, node).expr
        lo = Binary(BinaryOp.MAX, e, Const(0.0, F32, span), F32, span)
        return Val(Binary(BinaryOp.MIN, lo, Const(1.0, F32, span), F32, span), F32)

    def fp8_conversion(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """cuda_fp8.h's conversions to and from fp8 bits (``__nv_fp8_storage_t``, a byte):
        ``__nv_cvt_float_to_fp8(x, saturate, fmt)`` (likewise ``double``, ``halfraw``, ``bfloat16raw``),
        ``__nv_cvt_float2_to_fp8x2(xy, saturate, fmt)`` (two bytes, ``x`` in the low one) and
        ``__nv_cvt_fp8_to_halfraw(bits, fmt)`` (the exact half value). ``saturate`` and ``fmt`` must be
        the constants ``__NV_SATFINITE``/``__NV_NOSAT`` and ``__NV_E4M3``/``__NV_E5M2``."""
        span = self.span(node)
        if name == "__nv_cvt_fp8_to_halfraw":
            self.expect_args(name, arg_nodes, (2,), node)
            fmt = self.fp8_format(arg_nodes[1])
            bits = self.convert(self.rvalue(arg_nodes[0]), U8, node).expr
            return Val(Cast(Cast(bits, fmt, CastKind.BITCAST, span), F16, CastKind.CONVERT, span), F16)
        self.expect_args(name, arg_nodes, (3,), node)
        saturate = self.enum_constant(arg_nodes[1], lib.FP8_SATURATION, "__NV_SATFINITE or __NV_NOSAT")
        fmt = self.fp8_format(arg_nodes[2])
        v = self.rvalue(arg_nodes[0])
        if name == "__nv_cvt_float2_to_fp8x2":
            pair = self.convert(v, vector(F32, 2), node).expr
            lo, hi = (
                self.fp8_bits(Extract(pair, Const(lane, I32, span), F32, span), F32, fmt, saturate, span)
                for lane in (0, 1)
            )
            wide = (Cast(b, U16, CastKind.CONVERT, span) for b in (lo, hi))
            lo16, hi16 = wide
            shifted = Binary(BinaryOp.SHL, hi16, Const(8, U16, span), U16, span)
            return Val(Binary(BinaryOp.BITOR, shifted, lo16, U16, span), U16)
        src = lib.FP8_SOURCES[name]
        return Val(self.fp8_bits(self.convert(v, src, node).expr, src, fmt, saturate, span), U8)

    def fp8_bits(self, x: Expr, src: ScalarType, fmt: ScalarType, saturate: bool, span: Span) -> Expr:
        """The fp8 bits of float ``x``: rounded to nearest even; beyond the largest finite value
        (infinity included) saturated, or without ``saturate`` NaN (e4m3) or infinity (e5m2), signed."""
        bits: Expr = Cast(Cast(x, fmt, CastKind.CONVERT, span), U8, CastKind.BITCAST, span)  # (saturates)
        if saturate:
            return bits
        limit, inclusive = FP8_OVERFLOW[fmt]
        op = BinaryOp.GE if inclusive else BinaryOp.GT
        special = 0x7F if fmt == F8E4M3 else 0x7C  # NaN for e4m3 (it has no infinities), infinity for e5m2
        over = Binary(op, MathCall(MathFn.ABS, (x,), src, False, span), Const(limit, src, span), BOOL, span)
        negative = MathCall(MathFn.SIGNBIT, (x,), BOOL, False, span)
        signed = Select(negative, Const(special | 0x80, U8, span), Const(special, U8, span), U8, span)
        return Select(over, signed, bits, U8, span)

    def fp8_format(self, arg: ts.Node) -> ScalarType:
        return F8E5M2 if self.enum_constant(arg, lib.FP8_FORMATS, "__NV_E4M3 or __NV_E5M2") else F8E4M3

    def enum_constant(self, arg: ts.Node, names: dict[str, bool], what: str) -> bool:
        """The value of an enumerator of cuda_fp8.h named by ``arg`` (which must name one of ``names``)."""
        text = node_text(arg).removeprefix("::")
        if text not in names:
            raise self.unsupported(f"argument other than {what}", arg)
        return names[text]

    def reciprocal(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__frcp_rn(x)``, ``__drcp_rn(x)``, ``hrcp(h)``, ``h2rcp(h2)``: ``1 / x`` (lane by lane), rounded to
        nearest as the IR's division of that type is."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (1,), node)
        t: ScalarType | VectorType = {"__frcp_rn": F32, "__drcp_rn": F64, "hrcp": F16}.get(name, vector(F16, 2))
        e = self.convert(self.rvalue(arg_nodes[0]), t, node).expr
        one: Expr = Const(1.0, F16 if isinstance(t, VectorType) else t, span)
        if isinstance(t, VectorType):
            one = MakeVector((one, one), t, span)
        return Val(Binary(BinaryOp.DIV, one, e, t, span), t)

    def make_vector(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``make_float4(x, y, z, w)`` and the like: a vector from its lanes."""
        vt = BUILTIN_TYPES[name.removeprefix("make_")]
        assert isinstance(vt, VectorType)  # only vector types are registered
        self.expect_args(name, arg_nodes, (vt.lanes,), node)
        lanes = [self.convert(v, vt.elem, node).expr for v in self.args(arg_nodes)]
        return Val(MakeVector(tuple(lanes), vt, self.span(node)), vt)

    def assert_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``assert(c)``: an :class:`Assert` (a verification condition)."""
        self.expect_args(name, arg_nodes, (1,), node)
        self.emit(Assert(self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr, self.span(node)))
        return self.no_result(name, node, want_value)

    def loop_invariant(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """GPUVerify's ``__invariant(c)`` as a statement of a loop body: an :class:`Assert` at that point,
        so checked at the start of every iteration that runs (not when the loop exits); as the left operand
        of a comma in the loop's condition (``while (__invariant(c), i < n)``, GPUVerify's usual form): an
        :class:`Assert` each time the condition is evaluated, the last (failing) evaluation included."""
        statement = node.parent
        body = statement.parent if statement is not None else None
        loop = body.parent if body is not None else None
        loops = ("for_statement", "while_statement", "do_statement")
        in_body = statement is not None and statement.type == "expression_statement" and loop is not None
        if not (in_body and loop is not None and loop.type in loops) and not in_loop_condition(node):
            raise self.unsupported("__invariant other than as a statement of a loop body or in its condition", node)
        return self.assert_call(name, arg_nodes, node, want_value)

    def trap(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """An unconditional trap (what assert macros expand to under their failing branch)."""
        span = self.span(node)
        self.emit(Assert(Const(False, BOOL, span), span))
        return self.no_result(name, node, want_value)

    def sincos(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``sincosf(x, &s, &c)`` (``sincos`` in double, ``__sincosf`` approximate): ``*s = sinf(x)`` and
        ``*c = cosf(x)``. An output is ``&lvalue`` (a local, an array element, memory) or a pointer."""
        span = self.span(node)
        self.expect_args(name, arg_nodes, (3,), node)
        t = F64 if name == "sincos" else F32
        x = self.convert(self.rvalue(arg_nodes[0]), t, arg_nodes[0]).expr
        targets = [self.sincos_output(name, a, t) for a in arg_nodes[1:]]
        for fn, (lv, a) in zip((MathFn.SIN, MathFn.COS), zip(targets, arg_nodes[1:], strict=True), strict=True):
            value = Val(MathCall(fn, (x,), t, name == "__sincosf", span), t)
            self.write(lv, self.convert(value, lv.type, a), a)
        return self.no_result(name, node, want_value)

    def sincos_output(self, name: str, arg: ts.Node, t: ScalarType) -> LValue:
        """Where an output argument of ``sincosf`` points: the lvalue of ``&lvalue``, else ``*p``."""
        if arg.type == "pointer_expression" and node_text(arg.child_by_field_name("operator")) == "&":
            target = arg.child_by_field_name("argument")
            assert target is not None
            lv = self.lvalue(target)
            if isinstance(lv, Val) or lv.type != t:
                raise self.type_error(f"{name} needs a pointer to {t} as its output argument", arg)
            return lv
        pv = self.decay(self.rvalue(arg))
        if not isinstance(pv.ctype, PointerType) or pv.ctype.pointee != t or pv.ctype.const:
            raise self.type_error(f"{name} needs a pointer to {t} as its output argument, got {pv.ctype}", arg)
        return MemLV(pv.expr, t, False)

    def memcpy_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``memcpy(&a, &b, sizeof(a))``."""
        self.memcpy(arg_nodes, node)
        return self.no_result(name, node, want_value)

    def unsupported_call(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A known function outside the supported subset: an error naming it."""
        raise self.unsupported(_UNSUPPORTED[name], node)

    def numeric_limits(self, type_text: str, member: str, node: ts.Node, type_node: ts.Node | None = None) -> Val:
        """``std::numeric_limits<T>::member()`` as a constant; ``type_node`` is ``T``'s type descriptor
        (a type alias or a template parameter resolves as any type does)."""
        t: Type | None = BUILTIN_TYPES.get(type_text)
        bound = self.env.get(type_text)
        if bound is not None and is_type_arg(bound):
            t = bound
        if t is None and type_node is not None:
            t = self.resolve_type(type_node, node)
        if not isinstance(t, ScalarType):
            raise self.unsupported("numeric_limits of this type", node)
        value = numeric_limit(t, member)
        if value is None:
            raise self.unsupported(f"numeric_limits member {member}", node)
        return Val(Const(value, t, self.span(node)), t)

    def args(self, arg_nodes: Sequence[ts.Node]) -> list[Val]:
        return [self.decay(self.rvalue(a)) for a in arg_nodes]

    def policy_args(self, policy: lib.ArgPolicy, vals: list[Val], name: str, node: ts.Node) -> tuple[list[Expr], Type]:
        span = self.span(node)
        if policy in (lib.ArgPolicy.F32, lib.ArgPolicy.F64):
            t = F32 if policy is lib.ArgPolicy.F32 else F64
            return [self.convert(v, t, node).expr for v in vals], t
        if policy is lib.ArgPolicy.OVERLOAD:
            types = [v.ctype for v in vals]
            if any(isinstance(x, VectorType) for x in types):
                raise self.type_error(f"{name} of a vector", node)
            all_float = all(isinstance(x, ScalarType) and x.is_float and x != F64 for x in types)
            t = F32 if all_float else F64
            return [self.convert(v, t, node).expr for v in vals], t
        if policy is lib.ArgPolicy.SAME:
            if len(vals) == 1:
                e, st = self.scalar(vals[0], node)
                rt = integer_promote(st) if not st.is_float else st
                return [self.cast_scalar(e, st, rt, span)], rt
            acc = vals[0]
            assert not isinstance(acc.ctype, CArray)  # arguments are decayed
            out_t: Type = acc.ctype
            for v in vals[1:]:
                _, _, out_t = self.arith_operands(acc, v, node)
                acc = Val(acc.expr, out_t)
            return [self.convert(v, out_t, node).expr for v in vals], out_t
        if policy is lib.ArgPolicy.HALF:
            t0 = vals[0].ctype
            if t0 not in (F16, vector(F16, 1)) and not (
                isinstance(t0, ScalarType) and t0.kind.value in ("f16", "bf16")
            ):
                raise self.type_error(f"{name} needs __half or __nv_bfloat16 arguments, got {t0}", node)
            assert isinstance(t0, ScalarType)
            return [self.convert(v, t0, node).expr for v in vals], t0
        if policy is lib.ArgPolicy.HALF2:
            t0 = vals[0].ctype
            if not (isinstance(t0, VectorType) and t0.lanes == 2 and t0.elem.kind.value in ("f16", "bf16")):
                raise self.type_error(f"{name} needs __half2 or __nv_bfloat162 arguments, got {t0}", node)
            for v in vals:
                if v.ctype != t0:
                    raise self.type_error(f"{name}: arguments of types {t0} and {v.ctype}", node)
            return [v.expr for v in vals], t0
        raise AssertionError(policy)

    def pair_function(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A function building or taking apart a half pair (``__halves2half2``, ``__low2half``, ...)."""
        kind, elem = lib.PAIR_FUNCTIONS[name]
        assert elem is not None
        span = self.span(node)
        pair = vector(elem, 2)
        f2 = vector(F32, 2)
        if kind == "make2":
            self.expect_args(name, arg_nodes, (2,), node)
            lanes = [self.convert(v, elem, node).expr for v in self.args(arg_nodes)]
            return Val(MakeVector(tuple(lanes), pair, span), pair)
        self.expect_args(name, arg_nodes, (1,), node)
        v = self.decay(self.rvalue(arg_nodes[0]))
        if kind == "dup":
            e = self.convert(v, elem, node).expr
            return Val(MakeVector((e, e), pair, span), pair)
        if kind == "from_f2":
            e = self.convert(v, f2, node).expr
            lanes = [self.cast_scalar(Extract(e, Const(i, I32, span), F32, span), F32, elem, span) for i in (0, 1)]
            return Val(MakeVector(tuple(lanes), pair, span), pair)
        e = self.convert(v, pair, node).expr
        if kind in ("low", "high"):
            return Val(Extract(e, Const(0 if kind == "low" else 1, I32, span), elem, span), elem)
        if kind in ("low_f", "high_f"):
            lane = Extract(e, Const(0 if kind == "low_f" else 1, I32, span), elem, span)
            return Val(Cast(lane, F32, CastKind.CONVERT, span), F32)
        if kind == "to_f2":
            return Val(Cast(e, f2, CastKind.CONVERT, span), f2)
        if kind == "swap":
            lanes = [Extract(e, Const(i, I32, span), elem, span) for i in (1, 0)]
            return Val(MakeVector(tuple(lanes), pair, span), pair)
        raise AssertionError(kind)

    def shuffle(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__shfl*_sync(mask, v, lane[, width])``."""
        self.expect_args(name, arg_nodes, (3, 4), node)
        mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        v = self.shuffle_operand(self.rvalue(arg_nodes[1]), name, arg_nodes[1])
        lane = self.convert(self.rvalue(arg_nodes[2]), I32, arg_nodes[2]).expr
        width: Expr | int = 32
        if len(arg_nodes) == 4:
            width = self.convert(self.rvalue(arg_nodes[3]), I32, arg_nodes[3]).expr
        return self.emit_shuffle(_SHUFFLES[name], mask, v, lane, width, node)

    def shuffle_operand(self, v: Val, name: str, node: ts.Node) -> Val:
        """A value shuffles as a 32/64-bit scalar, a half, or a half pair; narrower integers promote."""
        v = self.decay(v)
        vt = v.ctype
        assert not isinstance(vt, CArray)  # decayed above
        if isinstance(vt, ScalarType):
            if str(vt) not in _SHUFFLE_TYPES:
                return self.convert(v, integer_promote(vt) if not vt.is_float else vt, node)
            return v
        if not (isinstance(vt, VectorType) and vt.lanes == 2 and vt.elem.kind.value in ("f16", "bf16")):
            raise self.type_error(f"{name} of a value of type {vt}", node)
        return v

    def emit_shuffle(self, kind: ShuffleKind, mask: Expr, v: Val, lane: Expr, width: Expr | int, node: ts.Node) -> Val:
        """A :class:`Shuffle` of ``v`` into a fresh temporary, returned as a value."""
        span = self.span(node)
        vt = v.ctype
        assert not isinstance(vt, CArray)
        w = Const(width, I32, span) if isinstance(width, int) else width
        dst = self.tmp(vt, node)
        self.emit(Shuffle(dst, kind, mask, v.expr, lane, w, span))
        return Val(VarRef(dst, vt, span), vt)

    def warp_reduce(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__reduce_<op>_sync(0xffffffff, v)``: every lane gets op over the warp (a butterfly of xor
        shuffles; integer + & | ^ min max are associative and commutative, so the order is immaterial)."""
        self.expect_args(name, arg_nodes, (2,), node)
        mask = self.convert(self.rvalue(arg_nodes[0]), U32, arg_nodes[0]).expr
        if not (isinstance(mask, Const) and mask.value == FULL_MASK):
            raise self.unsupported(f"{name} with a mask other than 0xffffffff", arg_nodes[0])
        v = self.decay(self.rvalue(arg_nodes[1]))
        if not isinstance(v.ctype, ScalarType) or not v.ctype.is_int:
            raise self.type_error(f"{name} needs an integer value, got {v.ctype}", arg_nodes[1])
        vt = U32 if v.ctype.is_unsigned else I32
        return self.butterfly(self.convert(v, vt, arg_nodes[1]), vt, _WARP_REDUCES[name], mask, 32, node)

    def butterfly(self, v: Val, vt: Type, op: str, mask: Expr, width: int, node: ts.Node) -> Val:
        """``op`` over ``width`` lanes, left in every lane: ``log2 width`` xor-shuffle exchange steps."""
        span = self.span(node)
        acc = self.tmp(vt, node)
        self.emit(Assign(acc, v.expr, span))
        current = Val(VarRef(acc, vt, span), vt)
        offset = width // 2
        while offset >= 1:
            other = self.emit_shuffle(ShuffleKind.XOR, mask, current, Const(offset, I32, span), width, node)
            combined = (
                self.minmax(op, current, other, node)
                if op in ("max", "min")
                else self.apply_binary(op, current, other, node)
            )
            self.emit(Assign(acc, self.convert(combined, vt, node).expr, span))
            offset //= 2
        return current

    def minmax(self, which: str, a: Val, b: Val, node: ts.Node) -> Val:
        ae, be, t = self.arith_operands(a, b, node)
        op = BinaryOp.MAX if which == "max" else BinaryOp.MIN
        return Val(Binary(op, ae, be, t, self.span(node)), t)

    def atomic(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        span = self.span(node)
        op = _ATOMICS[name]
        self.expect_args(name, arg_nodes, (3,) if op is AtomicOp.CAS else (2,), node)
        pv = self.decay(self.rvalue(arg_nodes[0]))
        pair = pv.ctype.pointee if isinstance(pv.ctype, PointerType) else None
        if op is AtomicOp.ADD and isinstance(pair, VectorType) and pair.lanes == 2 and pair.elem in (F16, BF16):
            return self.atomic_add_pair(pv, pair, arg_nodes, node, want_value, _ATOMIC_SCOPES[name])
        if not isinstance(pv.ctype, PointerType) or not isinstance(pv.ctype.pointee, ScalarType):
            raise self.type_error(f"{name} needs a pointer to a scalar, got {pv.ctype}", arg_nodes[0])
        if pv.ctype.const:
            raise self.type_error(f"{name} through a pointer to const", arg_nodes[0])
        t = pv.ctype.pointee
        if op is AtomicOp.CAS:
            cmp = self.convert(self.rvalue(arg_nodes[1]), t, arg_nodes[1]).expr
            val = self.convert(self.rvalue(arg_nodes[2]), t, arg_nodes[2]).expr
        else:
            cmp = None
            val = self.convert(self.rvalue(arg_nodes[1]), t, arg_nodes[1]).expr
        if op in (AtomicOp.AND, AtomicOp.OR, AtomicOp.XOR) and not t.is_int:
            raise self.type_error(f"{name} on {t}", node)
        if op in (AtomicOp.INC, AtomicOp.DEC) and t != U32:
            raise self.type_error(f"{name} needs an unsigned int pointer, got {pv.ctype}", arg_nodes[0])
        dst = self.tmp(t, node) if want_value else None
        self.emit(Atomic(dst, op, pv.expr, val, cmp, None, span, scope=_ATOMIC_SCOPES[name]))
        if dst is None:
            return None
        return Val(VarRef(dst, t, span), t)

    def atomic_add_pair(
        self, pv: Val, pair: VectorType, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool, scope: MemScope
    ) -> Val | None:
        """``atomicAdd(half2* p, half2 v)``: as CUDA documents it, atomic for each of the two halves
        separately (not for the pair as one access): an atomic add per lane; the old value is the pair of
        the old lanes."""
        span = self.span(node)
        assert isinstance(pv.ctype, PointerType)
        if pv.ctype.const:
            raise self.type_error("atomicAdd through a pointer to const", arg_nodes[0])
        val = self.convert(self.rvalue(arg_nodes[1]), pair, arg_nodes[1]).expr
        lane_ptr_t = PointerType(pair.elem, pv.ctype.space)
        lanes = Cast(pv.expr, lane_ptr_t, CastKind.BITCAST, span)
        olds: list[Expr] = []
        for k in (0, 1):
            dst = self.tmp(pair.elem, node) if want_value else None
            at = PtrAdd(lanes, Const(k, I32, span), lane_ptr_t, span)
            part = Extract(val, Const(k, I32, span), pair.elem, span)
            self.emit(Atomic(dst, AtomicOp.ADD, at, part, None, None, span, scope=scope))
            if dst is not None:
                olds.append(VarRef(dst, pair.elem, span))
        return Val(MakeVector(tuple(olds), pair, span), pair) if want_value else None

    def memcpy(self, arg_nodes: Sequence[ts.Node], node: ts.Node) -> None:
        """``memcpy(&a, &b, sizeof(a))`` between two whole values of equal size: a reinterpretation."""
        self.expect_args("memcpy", arg_nodes, (3,), node)
        dst_node, src_node, n_node = arg_nodes
        places: list[LValue | Val] = []
        for a in (dst_node, src_node):
            if a.type != "pointer_expression" or node_text(a.child_by_field_name("operator")) != "&":
                raise self.unsupported("memcpy other than between two whole variables (&a, &b)", a)
            target = a.child_by_field_name("argument")
            assert target is not None
            places.append(self.lvalue(target))
        dst, src = places
        if not isinstance(dst, VarLV):
            raise self.unsupported("memcpy into something other than a local variable", dst_node)
        src_val = src if isinstance(src, Val) else self.read(src, src_node)
        src_t = src_val.ctype
        n = fold_constant(self.tu, n_node, self.env, self.const_scope())
        if n is None:
            n = self.sizeof_value(n_node) if n_node.type == "sizeof_expression" else None
        if isinstance(src_t, CArray) or not isinstance(n, int) or n != size_of(dst.type) or n != size_of(src_t):
            raise self.unsupported("memcpy whose size is not the size of both variables", node)
        value = src_val.expr if src_t == dst.type else Cast(src_val.expr, dst.type, CastKind.BITCAST, self.span(node))
        self.emit(Assign(dst.name, value, self.span(node)))


#: A handler lowers a call of one device library function: (lowering, name, argument nodes, call node,
#: whether the call's value is used) -> its value (``None`` for a call made for its effect).
BuiltinHandler = Callable[[BuiltinCalls, str, Sequence[ts.Node], ts.Node, bool], Val | None]


def _table(*groups: tuple[Iterable[str], BuiltinHandler]) -> dict[str, BuiltinHandler]:
    """A table from function name to handler; a name listed in two groups goes to the first."""
    table: dict[str, BuiltinHandler] = {}
    for names, handler in groups:
        for name in names:
            table.setdefault(name, handler)
    return table


#: The CUDA intrinsics and device math library (a host function of the same name does not shadow them).
_INTRINSICS = _table(
    (["__syncthreads"], BuiltinCalls.sync_threads),
    (["__syncwarp"], BuiltinCalls.sync_warp),
    (["__threadfence", "__threadfence_block", "__threadfence_system"], BuiltinCalls.thread_fence),
    (_SHUFFLES, BuiltinCalls.shuffle),
    (_WARP_REDUCES, BuiltinCalls.warp_reduce),
    (_VOTES, BuiltinCalls.vote),
    (_ATOMICS, BuiltinCalls.atomic),
    (_LOADS, BuiltinCalls.cached_load),
    (_STORES, BuiltinCalls.cached_store),
    (lib.MATH_FUNCTIONS, BuiltinCalls.math_call),
    (lib.BINARY_FUNCTIONS, BuiltinCalls.binary_function),
    (lib.COMPARE_FUNCTIONS, BuiltinCalls.compare_function),
    (lib.UNARY_FUNCTIONS, BuiltinCalls.unary_function),
    (lib.CONVERSIONS, BuiltinCalls.conversion),
    (lib.PAIR_FUNCTIONS, BuiltinCalls.pair_function),
    (["__saturatef"], BuiltinCalls.saturate),
    (["__mul24", "__umul24", "__mulhi", "__umulhi"], BuiltinCalls.integer_multiply),
    (["__frcp_rn", "__drcp_rn", "hrcp", "h2rcp"], BuiltinCalls.reciprocal),
    ([*lib.FP8_SOURCES, "__nv_cvt_float2_to_fp8x2", "__nv_cvt_fp8_to_halfraw"], BuiltinCalls.fp8_conversion),
    (["__builtin_assume_aligned"], BuiltinCalls.assume_aligned),
    (["__builtin_assume"], BuiltinCalls.assume_hint),
    (["sincosf", "sincos", "__sincosf"], BuiltinCalls.sincos),
    (
        [f"make_{t}" for t, vt in BUILTIN_TYPES.items() if isinstance(vt, VectorType) and re.fullmatch(r"\w+\d", t)],
        BuiltinCalls.make_vector,
    ),
)

#: The C library functions device code may call (looked up after the file's host functions).
_C_LIBRARY = _table(
    (["assert"], BuiltinCalls.assert_call),
    (["__assert"], BuiltinCalls.assert_call),  # GPUVerify's annotation
    (["__invariant"], BuiltinCalls.loop_invariant),
    (["__trap", "__assert_fail", "__assertfail"], BuiltinCalls.trap),
    (["memcpy", "std::memcpy", "::memcpy"], BuiltinCalls.memcpy_call),
    (["printf"], BuiltinCalls.ignored_call),
    (["asm"], BuiltinCalls.inline_asm),  # `asm` is a keyword: the expression lowering passes asm statements here
    (
        ["__brkpt", "malloc", "free", "clock", "clock64", "__activemask"],
        BuiltinCalls.unsupported_call,
    ),
    # GPUVerify's contracts (lowering/contracts.py)
    (["__requires"], BuiltinCalls.requires),
    (["__ensures"], BuiltinCalls.ensures),
    (["__requires_fresh_array"], BuiltinCalls.fresh_array),
    (RETURN_VALUES, BuiltinCalls.return_value),
    (["__implies"], BuiltinCalls.implies),
    (["__enabled"], BuiltinCalls.enabled),
    (UNMODELLED, BuiltinCalls.unmodelled),
)
