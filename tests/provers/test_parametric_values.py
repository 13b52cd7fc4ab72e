"""The parametric prover's integer semantics over z3 agree with the simulator's (the definition), exactly.

On 8-bit operands (every edge value against every other, and a thousand random pairs) and on sampled
32/64-bit ones: every operator encoding of :mod:`larkc.provers.zvalues`, evaluated by z3 on constants,
equals :func:`apply_binary` of the simulator's numerics.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import torch
import z3

from larkc.ir.nodes import BinaryOp, UnaryOp
from larkc.ir.types import I8, I16, I32, I64, U8, U16, U32, U64, ScalarType
from larkc.provers.zvalues import bitop, shl_factor, tdiv, tdiv_unsigned, trange, trem, trem_unsigned, wrap
from larkc.semantics.numerics import apply_binary, apply_unary, convert_value

X, Y = z3.Ints("x y")


def encoding(op: BinaryOp, t: ScalarType) -> z3.ArithRef:
    """The executor's value of ``x op y`` (wrapped where the operation may leave the type)."""
    match op:
        case BinaryOp.ADD:
            return wrap(X + Y, t)
        case BinaryOp.SUB:
            return wrap(X - Y, t)
        case BinaryOp.MUL:
            return wrap(X * Y, t)
        case BinaryOp.DIV:
            return wrap(tdiv(X, Y), t) if t.is_signed else tdiv_unsigned(X, Y)
        case BinaryOp.REM:
            return trem(X, Y) if t.is_signed else trem_unsigned(X, Y)
        case BinaryOp.SHL:
            return wrap(X * shl_factor(Y, t.bits), t)
        case BinaryOp.SHR:
            return X / shl_factor(Y, t.bits)
        case BinaryOp.BITAND:
            return bitop("&", X, Y, t)
        case BinaryOp.BITOR:
            return bitop("|", X, Y, t)
        case BinaryOp.BITXOR:
            return bitop("^", X, Y, t)
        case _:
            raise ValueError(op)


OPS = [BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV, BinaryOp.REM, BinaryOp.SHL, BinaryOp.SHR]
BITOPS = [BinaryOp.BITAND, BinaryOp.BITOR, BinaryOp.BITXOR]


def simulator(op: BinaryOp, t: ScalarType, xs: list[int], ys: list[int]) -> list[int]:
    a = torch.tensor([_reg(x, t) for x in xs], dtype=torch.int64)
    b = torch.tensor([_reg(y, t) for y in ys], dtype=torch.int64)
    out = apply_binary(op, a, b, t).tolist()
    return [v % 2**64 if t == U64 else v for v in out]


def _reg(v: int, t: ScalarType) -> int:
    """The simulator's register holds u64 values as their bit pattern in an int64."""
    return v - 2**64 if t == U64 and v >= 2**63 else v


def ours(e: z3.ArithRef, x: int, y: int) -> int:
    v = z3.simplify(z3.substitute(e, (X, z3.IntVal(x)), (Y, z3.IntVal(y))))
    assert z3.is_int_value(v), v
    return int(v.as_long())


def check(op: BinaryOp, t: ScalarType, pairs: list[tuple[int, int]], keep: Callable[[int, int], bool]) -> None:
    pairs = [(x, y) for x, y in pairs if keep(x, y)]
    want = simulator(op, t, [p[0] for p in pairs], [p[1] for p in pairs])
    e = encoding(op, t)
    for (x, y), w in zip(pairs, want, strict=True):
        assert ours(e, x, y) == w, f"{x} {op.value} {y} in {t}: {ours(e, x, y)} != simulator {w}"


@pytest.mark.parametrize("t", [I8, U8], ids=str)
@pytest.mark.parametrize("op", OPS + BITOPS, ids=lambda o: o.name)
def test_exhaustively_on_8_bits(op: BinaryOp, t: ScalarType) -> None:
    lo, hi = trange(t)
    rng = random.Random(op.name + str(t))
    edges = sorted({lo, lo + 1, -2, -1, 0, 1, 2, 3, 7, 31, 32, 64, hi - 1, hi} & set(range(lo, hi + 1)))
    pairs = [(x, y) for x in edges for y in edges]
    pairs += [(rng.randint(lo, hi), rng.randint(lo, hi)) for _ in range(1000)]
    if op in BITOPS:  # every constant of the table form, against every small and edge value
        pairs += [(x, y) for x in range(max(lo, -40), 40) for y in range(32)]
    check(op, t, pairs, lambda x, y: True)  # shift amounts outside [0, bits) too: both take them mod bits


@pytest.mark.parametrize("t", [I32, U32, I64, U64], ids=str)
@pytest.mark.parametrize("op", OPS + BITOPS, ids=lambda o: o.name)
def test_sampled_on_wide_types(op: BinaryOp, t: ScalarType) -> None:
    lo, hi = trange(t)
    rng = random.Random(f"{op.name}{t}")
    edges = [lo, lo + 1, -1, 0, 1, 2, 31, hi - 1, hi]
    values = [v for v in edges if lo <= v <= hi] + [rng.randint(lo, hi) for _ in range(12)]
    small = [0, 1, 3, 5, 16, 31]
    pairs = [(x, y) for x in values for y in values + small if lo <= y <= hi]
    check(op, t, pairs, lambda x, y: True)  # shift amounts outside [0, bits) too: both take them mod bits


INT_TYPES = [I8, U8, I16, U16, I32, U32, I64, U64]


@pytest.mark.parametrize("src", INT_TYPES, ids=str)
def test_integer_conversions_wrap_as_the_simulator_converts(src: ScalarType) -> None:
    lo, hi = trange(src)
    rng = random.Random(str(src))
    values = [lo, lo + 1, -1, 0, 1, 127, 128, 255, 256, 2**31 - 1, 2**31, hi - 1, hi]
    values = [v for v in values if lo <= v <= hi] + [rng.randint(lo, hi) for _ in range(20)]
    for dst in INT_TYPES:
        regs = torch.tensor([_reg(v, src) for v in values], dtype=torch.int64)
        want = convert_value(regs, src, dst).tolist()
        for v, w in zip(values, want, strict=True):
            w = w % 2**64 if dst == U64 else w
            got = z3.simplify(wrap(z3.IntVal(v), dst)).as_long()
            assert got == w, f"convert<{dst}>({v}: {src}) = {got}, simulator {w}"


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_negation_and_complement(t: ScalarType) -> None:
    lo, hi = trange(t)
    values = [v for v in (lo, lo + 1, -5, -1, 0, 1, 5, hi - 1, hi) if lo <= v <= hi]
    regs = torch.tensor([_reg(v, t) for v in values], dtype=torch.int64)
    neg = apply_unary(UnaryOp.NEG, regs, t).tolist()
    inv = apply_unary(UnaryOp.BITNOT, regs, t).tolist()
    for v, n, c in zip(values, neg, inv, strict=True):
        n, c = (n % 2**64, c % 2**64) if t == U64 else (n, c)
        assert z3.simplify(wrap(z3.IntVal(-v), t)).as_long() == n
        assert (-v - 1 if t.is_signed else hi - v) == c  # the executor's complement, never out of range
