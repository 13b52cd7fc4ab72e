"""Random single-thread C programs over C's scalar types, run by larkc and by gcc (the oracle).

A generated program is the body of a kernel
``k(const long long* in_i, const double* in_f, long long* out_i, double* out_f)``: it reads its inputs
from ``in_i``/``in_f``, computes with variables of C's scalar types (straight-line code, nested ``if``,
bounded ``for``/``while``/``do`` loops with ``break``/``continue``, calls of small ``__device__``
functions), and writes its results to ``out_i``/``out_f``.
The same body is lowered by the CUDA frontend and run by the simulator on one thread, and compiled by
``g++`` as host C++ (``__global__``/``__device__`` defined empty, the CUDA intrinsics it uses defined
by :data:`HOST_PRELUDE`). The results must agree: integers exactly, floats bit for bit (any NaN agrees
with any NaN: IEEE 754 does not fix the payload of a NaN an operation produces), and the few slots
that hold a transcendental function's result within one unit in the last place.

**The oracle is defined.** Programs avoid what C++ leaves undefined, so gcc's result is the language's:

* signed overflow wraps: ``-fwrapv``, the stand-in value the simulator continues with after reporting it
  as ``ub`` (the comparison sets that report aside);
* ``<<`` of negative values and narrowing integer conversions are defined since C++20 (compiled with
  ``-std=c++20``; gcc gives the same results in C++17, where they are implementation-defined);
* divisors are guarded (``b == 0 || b == -1 ? 3 : b``: no division by zero, no ``INT_MIN / -1``);
* shift amounts are literals in range or masked to ``[0, width)`` of the promoted left operand;
* a float is converted to an integer type only inside a range guard (``x >= L && x <= H ? x : 0``),
  which also maps NaN to 0; bit casts of floats go through ``x == x ? x : 0`` (no NaN payloads);
* ``++``/``--`` in an expression name a variable that the statement does not otherwise mention.

The oracle is built with ``-fsanitize=undefined,float-cast-overflow``: a program that does something
undefined anyway (a generator bug) is reported as such, not compared; one that traps (SIGFPE) is
reported and the batch goes on.

The typing model here (:func:`promote`, :func:`common`, :func:`literal_type`) is the test's own, written
from the C++ standard; it decides only which guards a program needs, and programs carry ``TYPE_CHECK``
lines that gcc turns into ``static_assert``s of it (larkc sees empty statements). The values come from gcc.

:class:`Features` switches constructs on and off: the random batch of the tests leaves out those that
expose a known larkc bug (each is pinned by an explicit case in ``test_c_semantics_gcc.py``).
"""

from __future__ import annotations

import enum
import math
import os
import random
import re
import shutil
import struct
import subprocess
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import F64, I64
from larkc.semantics import GlobalBuffer, LaunchConfig, simulate

__all__ = [
    "GCC_FLAGS",
    "N_IN",
    "N_OUT",
    "GccBuild",
    "GccRun",
    "Outcome",
    "Program",
    "ProgramGenerator",
    "compare",
    "generate",
    "kernel_source",
    "run_gcc",
    "run_larkc",
    "start_gcc",
]

N_IN = 8  # inputs per array (in_i, in_f)
N_OUT = 48  # output slots per array (out_i, out_f)

#: How the oracle is built: exact IEEE arithmetic (no contraction), defined overflow, UB checks.
#: ``-frounding-math`` keeps gcc from folding ``0.0 - (double)i`` into ``-(double)i``, which is -0.0 for
#: ``i == 0`` where IEEE gives +0.0 (gcc 12, even at -O0); the programs never change the rounding mode.
GCC_FLAGS = (
    "-std=c++20",
    "-O0",
    "-fwrapv",
    "-ffp-contract=off",
    "-frounding-math",
    "-fsanitize=undefined,float-cast-overflow",
    "-w",
)


# --------------------------------------------------------------------------------------------------
# C types, as the test models them


class Kind(enum.Enum):
    BOOL = "bool"  # bool: promotes to int
    SIGNED = "signed"  # a signed integer type
    UNSIGNED = "unsigned"  # an unsigned integer type
    FLOAT = "float"  # float or double


@dataclass(frozen=True, slots=True)
class CType:
    """A C scalar type: its spelling in the program, its kind and its width in bits."""

    spelling: str
    kind: Kind
    bits: int
    alias_of: str | None = None  # the type a typedef names on x86-64 Linux (int64_t is long)

    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_int(self) -> bool:
        """Integer or bool (operands of ``%``, ``&``, shifts)."""
        return self.kind is not Kind.FLOAT

    @property
    def canonical(self) -> str:
        """The C++ type this names (``char`` and ``signed char`` are distinct types)."""
        return self.alias_of or self.spelling

    @property
    def key(self) -> tuple[Kind, int]:
        """What the arithmetic sees: ``long`` and ``long long`` (``int64_t`` and ``long long``) agree."""
        return (self.kind, self.bits)


BOOL = CType("bool", Kind.BOOL, 8)
CHAR = CType("char", Kind.SIGNED, 8)  # char is signed on x86-64 Linux, as larkc assumes
SCHAR = CType("signed char", Kind.SIGNED, 8)
UCHAR = CType("unsigned char", Kind.UNSIGNED, 8)
SHORT = CType("short", Kind.SIGNED, 16)
USHORT = CType("unsigned short", Kind.UNSIGNED, 16)
INT = CType("int", Kind.SIGNED, 32)
UINT = CType("unsigned", Kind.UNSIGNED, 32)
LONG = CType("long", Kind.SIGNED, 64)  # LP64
ULONG = CType("unsigned long", Kind.UNSIGNED, 64)
LLONG = CType("long long", Kind.SIGNED, 64)
ULLONG = CType("unsigned long long", Kind.UNSIGNED, 64)
INT64 = CType("int64_t", Kind.SIGNED, 64, "long")
SIZE_T = CType("size_t", Kind.UNSIGNED, 64, "unsigned long")
FLOAT = CType("float", Kind.FLOAT, 32)
DOUBLE = CType("double", Kind.FLOAT, 64)

#: The types of generated variables.
VAR_TYPES = (BOOL, CHAR, SCHAR, UCHAR, SHORT, USHORT, INT, UINT, LLONG, ULLONG, INT64, SIZE_T, FLOAT, DOUBLE)
INT_VAR_TYPES = tuple(t for t in VAR_TYPES if t.is_int)
#: Targets of casts (every variable type, and ``long``/``unsigned long``).
CAST_TYPES = (*VAR_TYPES, LONG, ULONG)


def promote(t: CType) -> CType:
    """Integral promotion: bool, char and short become int."""
    if t.kind is Kind.BOOL or (t.is_int and t.bits < 32):
        return INT
    return t


def common(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (C++ [expr.arith.conv]), for the widths of LP64."""
    if a.is_float or b.is_float:
        return DOUBLE if DOUBLE.key in (a.key, b.key) else FLOAT
    a, b = promote(a), promote(b)
    if a.key == b.key:
        return a
    if a.kind is b.kind:
        return a if a.bits > b.bits else b
    s, u = (a, b) if a.kind is Kind.SIGNED else (b, a)
    if u.bits >= s.bits:
        return u
    return s


def conditional_type(a: CType, b: CType) -> CType:
    """The type of ``c ? a : b`` for arithmetic operands (same type: that type, else the conversions)."""
    return a if a.canonical == b.canonical else common(a, b)


def int_range(t: CType) -> tuple[int, int]:
    """The values of an integer type."""
    if t.kind is Kind.BOOL:
        return 0, 1
    if t.kind is Kind.SIGNED:
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


#: Float bounds L, H (double literals) such that a float x with L <= x <= H (or L < x for the "open"
#: lower bound of unsigned types) converts to the integer type without undefined behaviour, even
#: after rint/floor/ceil.
def float_bounds(t: CType) -> tuple[str, str]:
    match t.key:
        case (Kind.SIGNED, 8):
            return "-128.0", "127.0"
        case (Kind.UNSIGNED, 8):
            return "0.0", "255.0"
        case (Kind.SIGNED, 16):
            return "-32768.0", "32767.0"
        case (Kind.UNSIGNED, 16):
            return "0.0", "65535.0"
        case (Kind.SIGNED, 32):
            return "-2147483648.0", "2147483647.0"
        case (Kind.UNSIGNED, 32):
            return "0.0", "4294967295.0"
        case (Kind.SIGNED, 64):
            return "-9.2e18", "9.2e18"
        case (Kind.UNSIGNED, 64):
            return "0.0", "1.8e19"
    raise AssertionError(t)


# --------------------------------------------------------------------------------------------------
# Programs


@dataclass(frozen=True, slots=True)
class Program:
    """One generated program: its body, its inputs, and how its float outputs are compared.

    ``in_f`` holds the float64 inputs as bit patterns (so ``-0.0`` and NaN are exact); ``ulp_slots``
    maps an ``out_f`` slot that holds a transcendental function's result to the function's width in
    bits (32 or 64): those slots agree within one unit in the last place of that width.
    """

    index: int
    body: str
    in_i: tuple[int, ...]
    in_f: tuple[int, ...]
    ulp_slots: dict[int, int] = field(default_factory=dict)
    functions: str = ""  # __device__ functions the body calls (names unique across a batch)


def kernel_source(p: Program) -> str:
    """The program as the CUDA kernel ``k`` larkc lowers."""
    return (
        f"{p.functions}"
        "__global__ void k(const long long* in_i, const double* in_f, long long* out_i, double* out_f) {\n"
        f"{p.body}}}\n"
    )


@dataclass(frozen=True, slots=True)
class Expr:
    """A generated expression: its text (parenthesised as needed), its type, and its properties.

    ``pure``: no side effect, so the text may be repeated (guards evaluate their operand twice).
    ``const``: built from literals and constants only (a C constant expression).
    """

    text: str
    type: CType
    pure: bool = True
    const: bool = False


@dataclass(slots=True)
class Var:
    """A variable in scope; ``mutable`` is false for loop counters and ``const`` locals."""

    name: str
    type: CType
    mutable: bool = True
    const: bool = False


@dataclass(slots=True)
class _Statement:
    """What the statement being generated may do: the one variable it may ``++``/``--`` in an expression."""

    update_var: Var | None = None
    update_used: bool = False


_FLOAT_LITERALS = (
    "0.0", "0.5", "1.0", "1.5", "2.5", "3.0", "-0.0", "0.1", "0.2", "0.3", "1e-3", "1e10", "3.5e38",
    "1e-40", "16777216.0", "16777217.0", "2147483648.0", "4294967296.0", "9.3e18", "1e300", "0.7",
    "123.456", "1e-7", "65504.0", "0.33333333333333331", "6.02e23",
)  # fmt: skip
_INT_VALUES = (
    0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 100, 127, 128, 200, 255, 256, 1000, 4096, 32767, 32768,
    65535, 65536, 1 << 24, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1,
    0x7F7F7F7F, 0xDEADBEEF, 123456789, 0x123456789AB,
)  # fmt: skip
_INPUT_INTS = (
    0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 127, 128, -128, -129, 255, 256, 1000, -1000, 32767, 32768,
    -32768, 65535, 65536, 2**31 - 1, -(2**31), 2**31, 2**32 - 1, 2**32, 2**63 - 1, -(2**63), 12345678901,
    -9876543210, 0x5555555555555555, -0x5555555555555556,
    2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**53 + 1, 2**63 - 2**39 - 1, 16777217, 2**31 + 2**7 + 1,
)  # fmt: skip
_INPUT_FLOATS = (
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 0.1, 1e-3, 100.25, -1000.75, 65504.0,
    16777217.0, 3e9, -3e9, 1e20, -1e20, 1e-40, 1e-310, 3.5e38, 1e300, math.inf, -math.inf, math.nan, 1e-7,
    2147483647.5, -2147483648.5, 4294967296.0, 0.333333333333333, 123456.789,
    1.0000000596046448, 0.49999997, 8388609.5, 1.401298464324817e-45, 3.4028235677973366e38, 0.5 + 2**-25,
)  # fmt: skip

_CHAR_LITERALS = ("'a'", "'0'", "' '", "'z'", "'A'")

_INT_SUFFIXES = ("", "", "", "u", "U", "l", "L", "ll", "LL", "ul", "UL", "ull", "ULL", "llu", "LLU", "lu")

#: One-argument float functions: name -> exact (computed exactly by IEEE rules).
_FLOAT_FNS_1 = ("fabsf", "sqrtf", "floorf", "ceilf", "truncf", "rintf", "roundf", "nearbyintf")
_OVERLOADED_FNS_1 = ("fabs", "sqrt", "floor", "ceil", "trunc", "rint", "round", "nearbyint")
#: Transcendental functions (compared within one ulp, written straight to an out_f slot).
_ULP_FNS_F = ("expf", "logf", "sinf", "cosf", "tanhf", "exp2f", "log2f", "atanf", "cbrtf", "erff")
#: (glibc's cbrt and tanh are off by up to 4 and 2 ulp: the oracle is not good enough for them)
_ULP_FNS_D = ("exp", "log", "sin", "cos", "exp2", "log2", "atan", "erf")


@dataclass(frozen=True, slots=True)
class Features:
    """Which constructs the generator uses. A construct that exposes a known, unfixed larkc bug is
    switched off for the random batch (and pinned by an explicit xfail case instead)."""

    const_decls: bool = True  # ``const T c = <literal or constant>;``
    const_expressions: bool = True  # ``const T c = <constant expression with operators>;`` (folded)
    float_const_decls: bool = True  # ... of float types
    fmin_fmax: bool = True  # fminf/fmaxf/fmin/fmax/min/max on floats
    minmax_signed_zeros: bool = True  # ... of -0.0 and +0.0 (C leaves the result's sign unspecified)
    assignment_values: bool = True  # the value of "(b = e)" and "(b op= e)" inside an expression
    intrinsics: bool = True  # __float2int_rn and friends, __int_as_float, __fadd_rn, ...
    transcendental: bool = True  # expf & co into out_f slots compared within one ulp
    signed_literals: bool = True  # "-LIT" for every literal spelling (hex, octal, suffixes, 2147483648)
    cast_lookalikes: bool = True  # "(a * (b)) - c", "(f(a * b)) - c": tree-sitter parses them as casts
    round_signed_zero: bool = True  # round(x) for -0.5 < x <= -0.0 (must be -0.0)
    double_sqrt: bool = True  # sqrt of a double (must be correctly rounded)
    double_fma: bool = True  # fma of doubles (whose exact result may overflow)
    device_functions: bool = True  # calls of __device__ functions (argument and return conversions)
    sized_functional_casts: bool = True  # "(short(x))", "(long(x) - y)", "(unsigned(x))": syntax errors


class ProgramGenerator:
    """Generates :class:`Program` values from a seeded :class:`random.Random`."""

    def __init__(self, rng: random.Random, features: Features = Features()) -> None:
        self.rng = rng
        self.features = features
        self.scopes: list[list[Var]] = []
        self.lines: list[str] = []
        self.indent = 1
        self.names = 0
        self.out_i = 0
        self.out_f = 0
        self.ulp_slots: dict[int, int] = {}
        self.loop_depth = 0
        self.stmt = _Statement()
        self.functions: list[tuple[str, CType, tuple[CType, ...]]] = []
        self.in_function = False

    # -- programs -----------------------------------------------------------------------------------

    def program(self, index: int) -> Program:
        rng = self.rng
        self.scopes = [[]]
        self.lines = []
        self.indent = 1
        self.names = 0
        self.out_i = 0
        self.out_f = 0
        self.ulp_slots = {}
        self.loop_depth = 0
        self.functions = []
        functions = ""
        if self.features.device_functions:
            functions = "".join(self.device_function(f"f{index}_{n}") for n in range(rng.randint(0, 2)))
        in_i = tuple(rng.choice(_INPUT_INTS) if rng.random() < 0.8 else rng.randint(-300, 300) for _ in range(N_IN))
        in_f = tuple(
            _f64_bits(rng.choice(_INPUT_FLOATS) if rng.random() < 0.8 else round(rng.uniform(-50, 50), 3))
            for _ in range(N_IN)
        )
        for _ in range(rng.randint(3, 7)):
            self.declaration(top=True)
        for _ in range(rng.randint(4, 12)):
            self.statement(depth=0)
        for v in self.scopes[0]:
            self.write_out(Expr(v.name, v.type))
        return Program(index, "".join(self.lines), in_i, in_f, dict(self.ulp_slots), functions)

    def device_function(self, name: str) -> str:
        """A ``__device__`` function of 1-3 by-value parameters that may change them, then returns."""
        rng = self.rng
        ret = rng.choice(VAR_TYPES)
        params = tuple(rng.choice(VAR_TYPES) for _ in range(rng.randint(1, 3)))
        saved = (self.scopes, self.lines, self.indent, self.in_function)
        self.scopes = [[Var(f"p{i}", t) for i, t in enumerate(params)]]
        self.lines = []
        self.indent = 1
        self.in_function = True
        try:
            for _ in range(rng.randint(0, 2)):
                rng.choice((self.assignment, self.compound_assignment, self.update_statement))()
            with self.statement_context(None):
                e = self.value_for(ret, 3)
            self.emit(f"return {e.text};")
            body = "".join(self.lines)
        finally:
            self.scopes, self.lines, self.indent, self.in_function = saved
        self.functions.append((name, ret, params))
        signature = ", ".join(f"{t.spelling} p{i}" for i, t in enumerate(params))
        return f"__device__ {ret.spelling} {name}({signature}) {{\n{body}}}\n"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line + "\n")

    def check_type(self, e: Expr) -> None:
        """Sometimes, a ``TYPE_CHECK`` that gcc turns into a ``static_assert`` of the model's type of ``e``
        (larkc sees an empty statement): the guards against undefined behaviour rely on that model."""
        if self.rng.random() < 0.3:
            code = {Kind.BOOL: 0, Kind.SIGNED: 1, Kind.UNSIGNED: 2, Kind.FLOAT: 3}[e.type.kind]
            self.emit(f"TYPE_CHECK({e.text}, {e.type.bits}, {code});")

    def fresh(self, prefix: str = "v") -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    @contextmanager
    def block(self) -> Iterator[None]:
        self.scopes.append([])
        self.indent += 1
        try:
            yield
        finally:
            self.indent -= 1
            self.scopes.pop()

    def visible(self) -> list[Var]:
        return [v for scope in self.scopes for v in scope]

    # -- statements ---------------------------------------------------------------------------------

    def declaration(self, *, top: bool = False) -> None:
        rng = self.rng
        if self.features.const_decls and rng.random() < 0.2:
            self.const_declaration()
            return
        t = rng.choice(VAR_TYPES)
        name = self.fresh()
        r = rng.random()
        if (r < 0.55 or (top and r < 0.8)) and not self.in_function:
            # from an input, converted implicitly or by a cast
            j = rng.randrange(N_IN)
            if t.is_float:
                src = f"in_f[{j}]" if rng.random() < 0.7 else f"in_i[{j}]"
            elif t.kind is Kind.BOOL:
                src = rng.choice((f"in_i[{j}]", f"in_i[{j}] != 0", f"in_i[{j}] > 0"))
            elif rng.random() < 0.8:
                src = f"in_i[{j}]" if rng.random() < 0.6 else f"({t.spelling})in_i[{j}]"
            else:
                src = self.to_int(Expr(f"in_f[{j}]", DOUBLE), t).text
            init = src
        else:
            with self.statement_context(None):
                init = self.convert_for(self.expr(2), t).text
        self.emit(f"{t.spelling} {name} = {init};")
        self.scopes[-1].append(Var(name, t))

    def const_declaration(self) -> None:
        rng = self.rng
        types = VAR_TYPES if self.features.float_const_decls else INT_VAR_TYPES
        t = rng.choice(types)
        name = self.fresh("c")
        depth = rng.randint(1, 3) if self.features.const_expressions else 0
        with self.statement_context(None):
            e = self.convert_for(self.expr(depth, const=True), t)
        self.emit(f"const {t.spelling} {name} = {e.text};")
        self.scopes[-1].append(Var(name, t, mutable=False, const=True))

    def statement(self, depth: int) -> None:
        rng = self.rng
        choices = ["assign"] * 6 + ["compound"] * 4 + ["update"] * 2 + ["out"] * 3 + ["decl"] * 2
        if depth < 2:
            choices += ["if"] * 2 + ["for"] * 2 + ["while"]
        if self.loop_depth > 0:
            choices += ["jump"]
        if self.features.transcendental:
            choices += ["ulp"]
        match rng.choice(choices):
            case "assign":
                self.assignment()
            case "compound":
                self.compound_assignment()
            case "update":
                self.update_statement()
            case "out":
                with self.statement_context(self.pick_update_var(None)):
                    self.write_out(self.expr(3))
            case "decl":
                self.declaration()
            case "if":
                self.if_statement(depth)
            case "for":
                self.for_statement(depth)
            case "while":
                self.while_statement(depth)
            case "jump":
                with self.statement_context(None):
                    cond = self.expr(2)
                self.emit(f"if ({cond.text}) {rng.choice(('break', 'continue'))};")
            case "ulp":
                self.transcendental()

    def mutable_vars(self, *, no_bool: bool = False) -> list[Var]:
        return [v for v in self.visible() if v.mutable and not (no_bool and v.type.kind is Kind.BOOL)]

    def pick_update_var(self, target: Var | None) -> Var | None:
        """The variable this statement may ``++``/``--`` inside an expression (never the target)."""
        if self.rng.random() < 0.5:
            return None
        cands = [v for v in self.mutable_vars(no_bool=True) if v is not target]
        return self.rng.choice(cands) if cands else None

    @contextmanager
    def statement_context(self, update_var: Var | None) -> Iterator[None]:
        saved = self.stmt
        self.stmt = _Statement(update_var)
        try:
            yield
        finally:
            self.stmt = saved

    def assignment(self) -> None:
        targets = self.mutable_vars()
        if not targets:
            self.declaration()
            return
        v = self.rng.choice(targets)
        with self.statement_context(self.pick_update_var(v)):
            e = self.value_for(v.type, 3)
        self.check_type(e)
        self.emit(f"{v.name} = {e.text};")

    def compound_assignment(self) -> None:
        rng = self.rng
        targets = self.mutable_vars()
        if not targets:
            self.declaration()
            return
        v = rng.choice(targets)
        t = v.type
        with self.statement_context(self.pick_update_var(v)):
            if t.is_float:
                op = rng.choice(("+=", "-=", "*=", "/="))
                rhs = self.expr(2)
            else:
                op = rng.choice(("+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="))
                if op in ("/=", "%="):
                    rhs = self.guard_divisor(self.expr(2, want="int", pure=True))
                elif op in ("<<=", ">>="):
                    rhs = self.shift_amount(promote(t))
                else:
                    rhs = self.expr(2, want="int")
        self.emit(f"{v.name} {op} {rhs.text};")

    def update_statement(self) -> None:
        targets = self.mutable_vars(no_bool=True)
        if not targets:
            self.declaration()
            return
        v = self.rng.choice(targets)
        self.emit(self.rng.choice((f"{v.name}++;", f"++{v.name};", f"{v.name}--;", f"--{v.name};")))

    def write_out(self, e: Expr) -> None:
        """``out_i[k] = e`` (integers, clamped floats) or ``out_f[k] = e`` (floats), on fresh slots."""
        self.check_type(e)
        if e.type.is_float and self.out_f < N_OUT and (self.rng.random() < 0.85 or not e.pure):
            self.emit(f"out_f[{self.out_f}] = {e.text};")
            self.out_f += 1
        elif self.out_i < N_OUT and (e.type.is_int or e.pure):
            self.emit(f"out_i[{self.out_i}] = {self.to_int(e, LLONG).text if e.type.is_float else e.text};")
            self.out_i += 1

    def transcendental(self) -> None:
        if self.out_f >= N_OUT:
            return
        rng = self.rng
        with self.statement_context(None):
            arg = self.expr(2, pure=True)
        if rng.random() < 0.5:
            fn = rng.choice(_ULP_FNS_F)
            bits = 32
        else:
            fn = rng.choice(_ULP_FNS_D)
            bits = 64
            if arg.type == FLOAT:
                arg = Expr(f"(double){paren(arg.text)}", DOUBLE)
        self.emit(f"out_f[{self.out_f}] = {fn}({arg.text});")
        self.ulp_slots[self.out_f] = bits
        self.out_f += 1

    def if_statement(self, depth: int) -> None:
        with self.statement_context(self.pick_update_var(None)):
            cond = self.expr(3)
        self.check_type(cond)
        self.emit(f"if ({cond.text}) {{")
        with self.block():
            for _ in range(self.rng.randint(1, 3)):
                self.statement(depth + 1)
        if self.rng.random() < 0.5:
            self.emit("} else {")
            with self.block():
                for _ in range(self.rng.randint(1, 3)):
                    self.statement(depth + 1)
        self.emit("}")

    def for_statement(self, depth: int) -> None:
        rng = self.rng
        name = self.fresh("i")
        t = rng.choice((INT, INT, UINT, LLONG, SIZE_T, SHORT, UCHAR))
        n = rng.randint(0, 4)
        form = rng.randrange(4)
        if form == 0:
            header = f"for ({t.spelling} {name} = 0; {name} < {n}; ++{name})"
        elif form == 1:
            header = f"for ({t.spelling} {name} = {n}; {name} > 0; {name}--)"
        elif form == 2:
            header = f"for ({t.spelling} {name} = 1; {name} <= {n * 2}; {name} += 2)"
        else:
            header = f"for ({t.spelling} {name} = {n}; {name}-- > 0;)"
        self.emit(header + " {")
        self.loop_depth += 1
        with self.block():
            self.scopes[-1].append(Var(name, t, mutable=False))
            for _ in range(rng.randint(1, 3)):
                self.statement(depth + 1)
        self.loop_depth -= 1
        self.emit("}")

    def while_statement(self, depth: int) -> None:
        rng = self.rng
        name = self.fresh("w")
        self.emit(f"int {name} = {rng.randint(0, 4)};")
        self.scopes[-1].append(Var(name, INT, mutable=False))
        if rng.random() < 0.5:
            self.emit(f"while ({name}-- > 0) {{")
            tail = None
        else:
            # the condition has no side effect: larkc does not lower one in a do-while condition
            self.emit("do {")
            self.emit(f"  --{name};")
            tail = f"}} while ({name} >= 0);"
        self.loop_depth += 1
        with self.block():
            for _ in range(rng.randint(1, 3)):
                self.statement(depth + 1)
        self.loop_depth -= 1
        self.emit(tail or "}")

    # -- expressions --------------------------------------------------------------------------------

    def expr(self, depth: int, *, want: str | None = None, pure: bool = False, const: bool = False) -> Expr:
        """A random expression of at most ``depth`` levels; ``want`` is "int", "float" or None (any).

        ``pure``: no ``++``/``--`` (the caller repeats the text); ``const``: literals and ``const``
        variables only.
        """
        rng = self.rng
        if want is None:
            want = "int" if rng.random() < 0.6 else "float"
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf(want, pure=pure, const=const)
        forms = ["arith"] * 4 + ["div"] * 2 + ["unary", "cast", "cast", "ternary", "paren"]
        if want == "int":
            forms += ["rem", "bitwise", "bitwise", "shift", "shift", "compare", "compare", "logical", "not"]
            forms += ["minmax", "abs"]
            if not const:
                forms += ["classify"]
            if not const and self.features.intrinsics:
                forms += ["int_intrinsic"]
        else:
            forms += ["math", "math"]
            if self.features.fmin_fmax:
                forms += ["fminmax"]
            if not const and self.features.intrinsics:
                forms += ["float_intrinsic"]
        callees = [f for f in self.functions if f[1].is_float == (want == "float")]
        if not const and not self.in_function and callees:
            forms += ["user_call", "user_call"]
        form = rng.choice(forms)
        sub = depth - 1

        def operand(w: str | None = None, p: bool = pure) -> Expr:
            return self.expr(sub, want=w, pure=p, const=const)

        match form:
            case "paren":
                e = operand(want)
                return Expr(f"({e.text})", e.type, e.pure, e.const)
            case "arith" | "div":
                if want == "int":
                    a, b = operand("int"), operand("int", pure or form == "div")
                else:
                    a, b = operand("float"), operand(None, pure or form == "div")
                    if rng.random() < 0.5:
                        a, b = b, a
                t = common(a.type, b.type)
                if form == "div":
                    if t.is_int:
                        b = self.guard_divisor(b)
                    return self.binary(a, "/", b, t)
                return self.binary(a, rng.choice(("+", "-", "*")), b, t)
            case "rem":
                a, b = operand("int"), self.guard_divisor(operand("int", True))
                return self.binary(a, "%", b, common(a.type, b.type))
            case "bitwise":
                a, b = operand("int"), operand("int")
                return self.binary(a, rng.choice(("&", "|", "^")), b, common(a.type, b.type))
            case "shift":
                a = operand("int")
                t = promote(a.type)
                b = self.shift_amount(t, const=const, pure=pure)
                return self.binary(a, rng.choice(("<<", ">>")), b, t)
            case "compare":
                a, b = operand(), operand()
                return self.binary(a, rng.choice(("==", "!=", "<", "<=", ">", ">=")), b, BOOL)
            case "logical":
                a, b = operand(), operand()
                return self.binary(a, rng.choice(("&&", "||")), b, BOOL)
            case "not":
                a = operand()
                return Expr(f"!{paren(a.text)}", BOOL, a.pure, a.const)
            case "unary":
                a = operand(want)
                ops = ("-", "+", "~") if a.type.is_int else ("-", "+")
                op = rng.choice(ops)
                t = promote(a.type) if a.type.is_int else a.type
                # "- -x" would lex as "--x"
                return Expr(f"{op}{paren(a.text, always=True)}", t, a.pure, a.const)
            case "cast":
                target = rng.choice([t for t in CAST_TYPES if t.is_float == (want == "float")])
                a = operand(None, pure or not target.is_float)
                if a.type.is_float and target.is_int and target.kind is not Kind.BOOL:
                    a = self.clamp_float(a, target)
                style = rng.random()
                if style < 0.5:
                    text = f"({target.spelling}){paren(a.text, always=True)}"
                elif (
                    style < 0.65
                    and " " not in target.spelling
                    and (self.features.sized_functional_casts or target.spelling not in ("short", "long", "unsigned"))
                ):
                    text = f"{target.spelling}({a.text})"
                else:
                    text = f"static_cast<{target.spelling}>({a.text})"
                return Expr(text, target, a.pure, a.const)
            case "ternary":
                c = operand()
                x, y = operand(want), operand(want)
                t = conditional_type(x.type, y.type)
                text = f"({paren(c.text)} ? {paren(x.text)} : {paren(y.text)})"
                return Expr(text, t, c.pure and x.pure and y.pure, c.const and x.const and y.const)
            case "minmax":
                a, b = operand("int"), operand("int")
                fn = rng.choice(("min", "max"))
                return call(fn, (a, b), common(a.type, b.type))
            case "abs":
                a = operand("int", True)
                t = promote(a.type)
                if t.kind is not Kind.SIGNED:
                    return a
                lo = "(-2147483647 - 1)" if t.bits == 32 else "(-9223372036854775807LL - 1)"
                guarded = Expr(f"({paren(a.text)} == {lo} ? 0 : {paren(a.text)})", t, a.pure, a.const)
                return call("abs", (guarded,), t)
            case "math":
                return self.math_call(sub, pure, const)
            case "fminmax":
                a, b = operand("float"), operand(None)
                if rng.random() < 0.5:
                    fn = rng.choice(("fminf", "fmaxf"))
                    return call(fn, (self.no_negative_zero(a, FLOAT), self.no_negative_zero(b, FLOAT)), FLOAT)
                a, b = self.no_negative_zero(a, a.type), self.no_negative_zero(b, b.type)
                if rng.random() < 0.5:
                    fn = rng.choice(("fmin", "fmax"))
                    t = FLOAT if a.type == FLOAT and b.type == FLOAT else DOUBLE
                    return call(fn, (a, b), t)
                return call(rng.choice(("min", "max")), (a, b), common(a.type, b.type))
            case "classify":
                a = self.expr(sub, want="float", pure=True)
                fn = rng.choice(("isnan", "isinf", "isfinite", "signbit"))
                if fn == "signbit":
                    at = paren(a.text)
                    a = Expr(f"({at} == {at} ? {at} : 0.0f)", conditional_type(a.type, FLOAT), a.pure)
                return call(fn, (a,), BOOL)
            case "user_call":
                name, ret, params = rng.choice(callees)
                args = tuple(self.convert_for(self.expr(sub, pure=True), t) for t in params)
                return call(name, args, ret)
            case "int_intrinsic":
                return self.int_intrinsic(sub, pure)
            case "float_intrinsic":
                return self.float_intrinsic(sub, pure)
        raise AssertionError(form)

    def binary(self, a: Expr, op: str, b: Expr, t: CType) -> Expr:
        return binary(a, op, b, t, self.features)

    def assignment_value(self, v: Var) -> Expr:
        """``(v = e)`` or ``(v op= e)`` used as a value; ``e`` may read ``v`` (sequenced before the store)."""
        rng = self.rng
        with self.statement_context(None):
            if v.type.is_float:
                op = rng.choice(("=", "+=", "-=", "*=", "/="))
                rhs = self.expr(2)
            else:
                op = rng.choice(("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="))
                if op == "=":
                    rhs = self.convert_for(self.expr(2, pure=True), v.type)
                elif op in ("/=", "%="):
                    rhs = self.guard_divisor(self.expr(2, want="int", pure=True))
                elif op in ("<<=", ">>="):
                    rhs = self.shift_amount(promote(v.type))
                else:
                    rhs = self.expr(2, want="int")
        return Expr(f"({v.name} {op} {rhs.text})", v.type, pure=False)

    def no_negative_zero(self, e: Expr, t: CType) -> Expr:
        """``e`` as an argument of type ``t`` of a float min/max, with -0.0 made +0.0 (``x + 0.0``) unless
        signed zeros are on: C leaves the sign of ``fmin(-0.0, +0.0)`` unspecified."""
        if self.features.minmax_signed_zeros or not e.type.is_float:
            return e
        if t == FLOAT and e.type == DOUBLE:
            e = Expr(f"(float){paren(e.text, always=True)}", FLOAT, e.pure, e.const)
        zero = "0.0f" if e.type == FLOAT else "0.0"
        return Expr(f"({operand_text(e, self.features)} + {zero})", e.type, e.pure, e.const)

    def leaf(self, want: str, *, pure: bool, const: bool) -> Expr:
        rng = self.rng
        st = self.stmt
        vars_ = [
            v
            for v in self.visible()
            if v.type.is_float == (want == "float") and v is not st.update_var and (v.const or not const)
        ]
        r = rng.random()
        if not const and not pure and st.update_var is not None and not st.update_used and r < 0.15:
            v = st.update_var
            if v.type.is_float == (want == "float"):
                st.update_used = True
                if self.features.assignment_values and rng.random() < 0.4:
                    return self.assignment_value(v)
                text = rng.choice((f"{v.name}++", f"++{v.name}", f"{v.name}--", f"--{v.name}"))
                return Expr(f"({text})", v.type, pure=False)
        if vars_ and r < 0.6:
            v = rng.choice(vars_)
            return Expr(v.name, v.type, const=v.const)
        if not const and not self.in_function and r < 0.7:
            j = rng.randrange(N_IN)
            return Expr(f"in_i[{j}]", LLONG) if want == "int" else Expr(f"in_f[{j}]", DOUBLE)
        return self.literal(want)

    def literal(self, want: str) -> Expr:
        """A literal of any spelling; sometimes written with a minus sign right before it."""
        e = self.unsigned_literal(want)
        if self.rng.random() < 0.15 and e.type.kind is not Kind.BOOL and e.text[0] != "'":
            # "-LIT" lexes as one number literal in tree-sitter's C grammar: both spellings must mean -(LIT)
            decimal_int = e.type.is_int and e.text[0] in "123456789" and "u" not in e.text.lower()
            decimal_float = e.type.is_float and not e.text.lower().startswith("0x")
            if self.features.signed_literals or decimal_float or (decimal_int and e.text != "2147483648"):
                t = promote(e.type) if e.type.is_int else e.type
                return Expr(f"(-{e.text})", t, const=True)
        return e

    def unsigned_literal(self, want: str) -> Expr:
        rng = self.rng
        if want == "float":
            value = float(rng.choice(_FLOAT_LITERALS))
            f = rng.random() < 0.5 and abs(value) < 3.4e38
            text = repr(abs(value)) if rng.random() < 0.8 else f"{abs(value):e}"
            if rng.random() < 0.15:
                text = float.hex(abs(float(struct.unpack("f", struct.pack("f", value))[0]) if f else abs(value)))
            negative = value < 0 or (value == 0 and math.copysign(1, value) < 0)
            if negative and text.startswith("0x") and not self.features.signed_literals:
                text = repr(abs(value))
            text += "f" if f else ""
            if negative or (value == 0 and math.copysign(1, value) < 0):
                return Expr(f"(-{text})", FLOAT if f else DOUBLE, const=True)
            return Expr(text, FLOAT if f else DOUBLE, const=True)
        r = rng.random()
        if r < 0.05:
            return Expr(rng.choice(("true", "false")), BOOL, const=True)
        if r < 0.1:
            return Expr(rng.choice(_CHAR_LITERALS), CHAR, const=True)
        if r < 0.13:
            return Expr(f"sizeof({rng.choice(CAST_TYPES).spelling})", SIZE_T, const=True)
        while True:
            value = rng.choice(_INT_VALUES) if rng.random() < 0.7 else rng.randint(0, 300)
            suffix = rng.choice(_INT_SUFFIXES)
            radix = rng.choice(("dec", "dec", "hex", "oct")) if value else "dec"
            t = literal_type(value, suffix, radix != "dec")
            if t is None:
                continue
            digits = {"dec": str(value), "hex": hex(value), "oct": "0" + oct(value)[2:]}[radix]
            if radix == "hex" and rng.random() < 0.5:
                digits = "0X" + digits[2:].upper()
            return Expr(digits + suffix, t, const=True)

    def convert_for(self, e: Expr, t: CType) -> Expr:
        """``e`` (pure if it is a float) made safe to convert implicitly to ``t`` (clamped for integers)."""
        if e.type.is_float and t.is_int and t.kind is not Kind.BOOL:
            return self.clamp_float(e, t)
        return e

    def value_for(self, t: CType, depth: int) -> Expr:
        """An expression to store in a variable of type ``t`` (a float one is pure if ``t`` is an integer)."""
        e = self.expr(depth)
        if e.type.is_float and t.is_int and not e.pure:
            self.stmt.update_used = False
            e = self.expr(depth, pure=True)
        return self.convert_for(e, t)

    def to_int(self, e: Expr, t: CType) -> Expr:
        """``(t)`` of a pure float expression, within ``t``'s range."""
        c = self.clamp_float(e, t)
        return Expr(f"({t.spelling}){paren(c.text, always=True)}", t, c.pure, c.const)

    def clamp_float(self, e: Expr, t: CType) -> Expr:
        """``e`` (pure, float) if it converts to integer type ``t`` without UB, else 0 of ``e``'s type."""
        assert e.pure, e
        lo, hi = float_bounds(t)
        x = paren(e.text)
        zero = "0.0f" if e.type == FLOAT else "0.0"
        lower = f"{x} > -1.0" if t.kind is Kind.UNSIGNED and self.rng.random() < 0.5 else f"{x} >= {lo}"
        return Expr(f"({lower} && {x} <= {hi} ? {x} : {zero})", e.type, True, e.const)

    def guard_divisor(self, b: Expr) -> Expr:
        """A pure integer divisor made nonzero and different from -1."""
        assert b.pure, b
        x = paren(b.text)
        return Expr(f"({x} == 0 || {x} == -1 ? 3 : {x})", common(INT, b.type), True, b.const)

    def shift_amount(self, left: CType, *, const: bool = False, pure: bool = False) -> Expr:
        """A shift amount in ``[0, bits of left)``: a literal, or an expression masked into range."""
        width = left.bits
        if self.rng.random() < 0.4:
            return Expr(str(self.rng.randrange(width)), INT, const=True)
        a = self.expr(1, want="int", pure=pure, const=const)
        return Expr(f"({operand_text(a, self.features)} & {width - 1})", common(a.type, INT), a.pure, a.const)

    def float_arg(self, sub: int, pure: bool, t: CType = FLOAT) -> Expr:
        """A float-typed (``t``) argument: doubles are cast, so the argument conversion is exact."""
        a = self.expr(sub, want="float", pure=pure)
        if a.type != t:
            a = Expr(f"({t.spelling}){paren(a.text, always=True)}", t, a.pure)
        return a

    def math_call(self, sub: int, pure: bool, const: bool) -> Expr:
        rng = self.rng
        if const:
            # calls are not constant expressions for larkc's folder: use an arithmetic form instead
            a = self.expr(sub, want="float", pure=pure, const=True)
            return Expr(f"-{paren(a.text, always=True)}", a.type, a.pure, a.const)
        r = rng.random()
        if r < 0.4:
            fn = rng.choice(_FLOAT_FNS_1)
            a = self.expr(sub, pure=pure)
            return self.rounded(call(fn, (a,), FLOAT))
        if r < 0.75:
            fn = rng.choice(_OVERLOADED_FNS_1)
            a = self.expr(sub, pure=pure)
            if fn == "sqrt" and a.type != FLOAT and not self.features.double_sqrt:
                a = as_float(a)
            return self.rounded(call(fn, (a,), FLOAT if a.type == FLOAT else DOUBLE))
        if r < 0.85:
            args = tuple(self.expr(sub, pure=pure) for _ in range(3))
            return call("fmaf", args, FLOAT)
        if r < 0.92:
            args = tuple(self.expr(sub, pure=pure) for _ in range(3))
            if not self.features.double_fma:
                args = tuple(as_float(a) for a in args)
            return call("fma", args, FLOAT if all(a.type == FLOAT for a in args) else DOUBLE)
        args = tuple(self.expr(sub, pure=pure) for _ in range(2))
        if rng.random() < 0.3:
            # copysign(x, NaN) depends on the NaN's sign bit, which IEEE leaves open
            y = self.expr(sub, want="float", pure=True)
            yt = paren(y.text)
            zero = "0.0f" if y.type == FLOAT else "0.0"
            sign = Expr(f"({yt} == {yt} ? {yt} : {zero})", y.type)
            if rng.random() < 0.5:
                return call("copysignf", (args[0], sign), FLOAT)
            return call("copysign", (args[0], sign), FLOAT if args[0].type == FLOAT and y.type == FLOAT else DOUBLE)
        if rng.random() < 0.5:
            return call("fmodf", args, FLOAT)
        return call("fmod", args, FLOAT if all(a.type == FLOAT for a in args) else DOUBLE)

    def rounded(self, e: Expr) -> Expr:
        """``e``; a ``round``/``roundf`` call plus ``0.0`` (-0.0 becomes +0.0) unless ``round_signed_zero``."""
        if self.features.round_signed_zero or not e.text.startswith("round"):
            return e
        zero = "0.0f" if e.type == FLOAT else "0.0"
        return Expr(f"({e.text} + {zero})", e.type, e.pure)

    def int_intrinsic(self, sub: int, pure: bool) -> Expr:
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            name, t = rng.choice(
                (
                    ("__float2int_rn", INT),
                    ("__float2int_rz", INT),
                    ("__float2int_rd", INT),
                    ("__float2int_ru", INT),
                    ("__float2uint_rn", UINT),
                    ("__float2uint_rz", UINT),
                    ("__float2ll_rn", LLONG),
                    ("__float2ll_rz", LLONG),
                )
            )
            a = self.float_arg(sub, True)
            lo, hi = float_bounds(t)
            x = paren(a.text)
            return call(name, (Expr(f"({x} >= {lo} && {x} <= {hi} ? {x} : 0.0f)", FLOAT),), t)
        if r < 0.65:
            a = self.float_arg(sub, True, DOUBLE)
            lo, hi = float_bounds(INT)
            x = paren(a.text)
            name = rng.choice(("__double2int_rn", "__double2int_rz"))
            return call(name, (Expr(f"({x} >= {lo} && {x} <= {hi} ? {x} : 0.0)", DOUBLE),), INT)
        # bit casts of NaN-free floats
        if rng.random() < 0.6:
            a = self.float_arg(sub, True)
            x = paren(a.text)
            name, t = rng.choice((("__float_as_int", INT), ("__float_as_uint", UINT)))
            return call(name, (Expr(f"({x} == {x} ? {x} : 0.0f)", FLOAT),), t)
        a = self.float_arg(sub, True, DOUBLE)
        x = paren(a.text)
        return call("__double_as_longlong", (Expr(f"({x} == {x} ? {x} : 0.0)", DOUBLE),), LLONG)

    def float_intrinsic(self, sub: int, pure: bool) -> Expr:
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            name, t = rng.choice(
                (
                    ("__int2float_rn", FLOAT),
                    ("__uint2float_rn", FLOAT),
                    ("__ll2float_rn", FLOAT),
                    ("__int2double_rn", DOUBLE),
                    ("__int_as_float", FLOAT),
                    ("__uint_as_float", FLOAT),
                    ("__longlong_as_double", DOUBLE),
                )
            )
            return call(name, (self.expr(sub, want="int", pure=pure),), t)
        if r < 0.7:
            name, t, n = rng.choice(
                (
                    ("__fadd_rn", FLOAT, 2),
                    ("__fsub_rn", FLOAT, 2),
                    ("__fmul_rn", FLOAT, 2),
                    ("__fdiv_rn", FLOAT, 2),
                    ("__dadd_rn", DOUBLE, 2),
                    ("__dmul_rn", DOUBLE, 2),
                    ("__fmaf_rn", FLOAT, 3),
                    ("__fma_rn", DOUBLE, 3),
                )
            )
            if name == "__fma_rn" and not self.features.double_fma:
                name, t = "__fmaf_rn", FLOAT
            return call(name, tuple(self.expr(sub, pure=pure) for _ in range(n)), t)
        name, t = rng.choice(
            (
                ("__fsqrt_rn", FLOAT),
                ("__dsqrt_rn", DOUBLE),
                ("__saturatef", FLOAT),  # fminf(fmaxf(x, 0), 1): signed zeros as min/max
                ("__frcp_rn", FLOAT),
                ("__drcp_rn", DOUBLE),
            )
        )
        if name == "__dsqrt_rn" and not self.features.double_sqrt:
            name, t = "__fsqrt_rn", FLOAT
        arg = self.expr(sub, pure=pure)
        if name == "__saturatef":
            arg = self.no_negative_zero(arg, FLOAT)
        return call(name, (arg,), t)


def literal_type(value: int, suffix: str, non_decimal: bool) -> CType | None:
    """The type of an integer literal (C++ [lex.icon], LP64), ``None`` if none can hold it."""
    s = suffix.lower()
    unsigned = "u" in s
    longs = s.count("l")
    cands: list[CType]
    if unsigned:
        cands = [ULONG] if longs else [UINT, ULONG]
    elif longs == 1:
        cands = [LONG, ULONG] if non_decimal else [LONG]
    elif longs == 2:
        cands = [LLONG, ULLONG] if non_decimal else [LLONG]
    else:
        cands = [INT, UINT, LONG, ULONG] if non_decimal else [INT, LONG]
    if longs == 2 and unsigned:
        cands = [ULLONG]
    for t in cands:
        lo, hi = int_range(t)
        if lo <= value <= hi:
            return t
    return None


def paren(text: str, *, always: bool = False) -> str:
    """``text`` in parentheses unless it is an identifier, a literal or already parenthesised."""
    if not always and (re.fullmatch(r"[\w.]+", text) or _is_parenthesised(text)):
        return text
    if always and _is_parenthesised(text):
        return text
    return f"({text})"


def _is_parenthesised(text: str) -> bool:
    if not (text.startswith("(") and text.endswith(")")):
        return False
    level = 0
    for i, ch in enumerate(text):
        level += ch == "("
        level -= ch == ")"
        if level == 0 and i < len(text) - 1:
            return False
    return True


def operand_text(e: Expr, features: Features) -> str:
    """The text of ``e`` as the left operand of a binary operator.

    tree-sitter's C grammar reads "(a * (b)) - c", "(f(a & b)) + c" or "(static_cast<T>((a & b))) - c"
    as a cast of "-c" to a type named "a"; with ``cast_lookalikes`` off, such operands get a second
    pair of parentheses (never a type) or, for a call, none.
    """
    text = paren(e.text)
    if features.cast_lookalikes:
        return text
    if re.fullmatch(r"[A-Za-z_]\w*\(.*\)", e.text) and _is_parenthesised(e.text[e.text.index("(") :]):
        return e.text
    if re.match(r"\([A-Za-z_]", text):
        return f"({text})"
    return text


def as_float(e: Expr) -> Expr:
    """``(float)(e)`` (``e`` itself if it is a float)."""
    if e.type == FLOAT:
        return e
    return Expr(f"(float){paren(e.text, always=True)}", FLOAT, e.pure, e.const)


def binary(a: Expr, op: str, b: Expr, t: CType, features: Features) -> Expr:
    left, right = operand_text(a, features), paren(b.text)
    return Expr(f"({left} {op} {right})", t, a.pure and b.pure, a.const and b.const)


def call(fn: str, args: Sequence[Expr], t: CType) -> Expr:
    text = f"{fn}({', '.join(a.text for a in args)})"
    return Expr(text, t, all(a.pure for a in args), False)


def _f64_bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def generate(seed: int, count: int, features: Features = Features()) -> list[Program]:
    """``count`` programs from ``seed`` (the same list on every run and platform)."""
    gen = ProgramGenerator(random.Random(seed), features)
    return [gen.program(i) for i in range(count)]


# --------------------------------------------------------------------------------------------------
# Running: larkc (frontend + simulator) and gcc


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run of a program wrote: ``out_i`` values and ``out_f`` bit patterns, or why it failed."""

    out_i: tuple[int, ...] = ()
    out_f: tuple[int, ...] = ()
    error: str | None = None


#: Macros for larkc: a type check is gcc's business.
LARKC_DEFINES = {"TYPE_CHECK(e, bits, kind)": ""}


def run_larkc(p: Program) -> Outcome:
    """Lower ``p`` with the CUDA frontend and simulate it on one thread."""
    try:
        module = parse_cuda(text=kernel_source(p), file=f"gen{p.index}.cu", kernel="k", defines=LARKC_DEFINES)
        verify_module(module)
        args = {
            "in_i": GlobalBuffer("in_i", torch.tensor(p.in_i, dtype=torch.int64), I64),
            "in_f": GlobalBuffer("in_f", torch.tensor(p.in_f, dtype=torch.int64).view(torch.float64), F64),
            "out_i": GlobalBuffer("out_i", torch.zeros(N_OUT, dtype=torch.int64), I64),
            "out_f": GlobalBuffer("out_f", torch.zeros(N_OUT, dtype=torch.float64), F64),
        }
        result = simulate(module, "k", LaunchConfig((1, 1, 1), (1, 1, 1), 0), args)
    except LarkcError as e:
        return Outcome(error=e.render())
    except Exception:  # a crash is a finding too: bad input must give a LarkcError
        return Outcome(error="larkc crashed (not a LarkcError):\n" + traceback.format_exc(limit=-6))
    # The oracle defines signed overflow as wrapping (-fwrapv); the simulator reports it as `ub` and goes
    # on with the wrapped value, so for this comparison the report is set aside and the value compared.
    diagnoses = [d for d in result.diagnoses if "signed integer overflow" not in d.message]
    if diagnoses:
        return Outcome(error="\n".join(d.render() for d in diagnoses))
    out_i = tuple(int(x) for x in result.buffers["out_i"].tolist())
    out_f = tuple(int(x) for x in result.buffers["out_f"].view(torch.int64).tolist())
    return Outcome(out_i, out_f)


#: Host definitions of what the generated programs use beyond <math.h>: CUDA's ``min``/``max``
#: overloads (the usual arithmetic conversions; floats go through fmin/fmax, as CUDA's do) and the
#: intrinsics, each as its documented IEEE operation.
HOST_PRELUDE = r"""
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <signal.h>
#include <type_traits>
#define __global__
#define __device__
// kind: 0 bool, 1 signed integer, 2 unsigned integer, 3 floating point
template <class T> constexpr bool larkc_type_is(int bits, int kind) {
  return sizeof(T) * 8 == bits &&
         (kind == 0   ? std::is_same_v<T, bool>
          : kind == 1 ? std::is_integral_v<T> && std::is_signed_v<T>
          : kind == 2 ? std::is_unsigned_v<T> && !std::is_same_v<T, bool>
                      : std::is_floating_point_v<T>);
}
#define TYPE_CHECK(e, bits, kind) static_assert(larkc_type_is<std::remove_cvref_t<decltype((e))>>(bits, kind), #e)

// a program that traps (integer division by zero: a generator bug) must not end the batch
static sigjmp_buf larkc_jump;
static void larkc_on_signal(int sig) { siglongjmp(larkc_jump, sig); }

template <class A, class B> static auto min(A a, B b) -> decltype(a + b) {
  using T = decltype(a + b);
  T x = a, y = b;
  if constexpr (std::is_floating_point_v<T>) return fmin(x, y); else return y < x ? y : x;
}
template <class A, class B> static auto max(A a, B b) -> decltype(a + b) {
  using T = decltype(a + b);
  T x = a, y = b;
  if constexpr (std::is_floating_point_v<T>) return fmax(x, y); else return x < y ? y : x;
}
static int __float2int_rn(float x) { return (int)rintf(x); }
static int __float2int_rz(float x) { return (int)x; }
static int __float2int_rd(float x) { return (int)floorf(x); }
static int __float2int_ru(float x) { return (int)ceilf(x); }
static unsigned __float2uint_rn(float x) { return (unsigned)rintf(x); }
static unsigned __float2uint_rz(float x) { return (unsigned)x; }
static long long __float2ll_rn(float x) { return (long long)rintf(x); }
static long long __float2ll_rz(float x) { return (long long)x; }
static int __double2int_rn(double x) { return (int)rint(x); }
static int __double2int_rz(double x) { return (int)x; }
static float __int2float_rn(int x) { return (float)x; }
static float __uint2float_rn(unsigned x) { return (float)x; }
static float __ll2float_rn(long long x) { return (float)x; }
static double __int2double_rn(int x) { return (double)x; }
static int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
static float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
static float __uint_as_float(unsigned x) { float r; memcpy(&r, &x, 4); return r; }
static long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
static float __fadd_rn(float a, float b) { return a + b; }
static float __fsub_rn(float a, float b) { return a - b; }
static float __fmul_rn(float a, float b) { return a * b; }
static float __fdiv_rn(float a, float b) { return a / b; }
static double __dadd_rn(double a, double b) { return a + b; }
static double __dmul_rn(double a, double b) { return a * b; }
static float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static float __fsqrt_rn(float x) { return sqrtf(x); }
static double __dsqrt_rn(double x) { return sqrt(x); }
static float __saturatef(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
static float __frcp_rn(float x) { return 1.0f / x; }
static double __drcp_rn(double x) { return 1.0 / x; }
"""


@dataclass(frozen=True, slots=True)
class GccRun:
    """The oracle's outcome for each program of a batch, by index."""

    outcomes: dict[int, Outcome]


def host_source(programs: Sequence[Program]) -> tuple[str, dict[int, int]]:
    """One C++ file running every program; and the first source line of each program (for UB reports)."""
    parts = [HOST_PRELUDE]
    starts: dict[int, int] = {}
    line = HOST_PRELUDE.count("\n") + 1
    for p in programs:
        ints = ", ".join(f"{v}LL" if v != -(2**63) else "(-9223372036854775807LL - 1)" for v in p.in_i)
        floats = ", ".join(f"{v & (2**64 - 1)}ULL" for v in p.in_f)
        text = (
            f"{p.functions}"
            f"static void prog{p.index}("
            "const long long* in_i, const double* in_f, long long* out_i, double* out_f) {\n"
            f"{p.body}}}\n"
            f"static const long long I{p.index}[] = {{{ints}}};\n"
            f"static const unsigned long long F{p.index}[] = {{{floats}}};\n"
        )
        starts[p.index] = line
        parts.append(text)
        line += text.count("\n")
    main = [
        "int main() {",
        f"  long long oi[{N_OUT}]; double of[{N_OUT}]; double fin[{N_IN}];",
        "  signal(SIGFPE, larkc_on_signal); signal(SIGSEGV, larkc_on_signal);",
    ]
    for p in programs:
        main += [
            f"  memset(oi, 0, sizeof oi); memset(of, 0, sizeof of); memcpy(fin, F{p.index}, sizeof fin);",
            "  if (int sig = sigsetjmp(larkc_jump, 1)) {",
            f'    printf("E {p.index} %d\\n", sig); fflush(stdout);',
            "  } else {",
            f"    prog{p.index}(I{p.index}, fin, oi, of);",
            f'    printf("P {p.index}");',
            f'    for (int j = 0; j < {N_OUT}; ++j) printf(" %lld", oi[j]);',
            f'    for (int j = 0; j < {N_OUT}; ++j) {{ long long b; memcpy(&b, &of[j], 8); printf(" %lld", b); }}',
            '    printf("\\n"); fflush(stdout);',
            "  }",
        ]
    main += ["  return 0;", "}"]
    parts.append("\n".join(main) + "\n")
    return "".join(parts), starts


class GccBuild:
    """One executable running a batch of programs, compiled in the background (:func:`start_gcc`)."""

    def __init__(self, programs: Sequence[Program], workdir: Path, compiler: str | None = None) -> None:
        cxx = compiler or os.environ.get("CXX") or shutil.which("g++") or "g++"
        src, self.starts = host_source(programs)
        self.indices = [p.index for p in programs]
        self.cpp = workdir / "programs.cpp"
        self.exe = workdir / "programs"
        self.cpp.write_text(src, encoding="utf-8")
        self.proc = subprocess.Popen(
            [cxx, *GCC_FLAGS, str(self.cpp), "-o", str(self.exe)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def results(self) -> GccRun:
        """Wait for the compiler, run the executable, read every program's outputs.

        A program that does something undefined (the sanitizer reports it) gets an ``error``.
        """
        _, err = self.proc.communicate(timeout=600)
        if self.proc.returncode != 0:
            raise RuntimeError(f"g++ failed on {self.cpp}:\n{err[-4000:]}")
        env = {**os.environ, "UBSAN_OPTIONS": "print_stacktrace=0:halt_on_error=0"}
        ran = subprocess.run([str(self.exe)], capture_output=True, text=True, check=False, env=env, timeout=120)
        outcomes: dict[int, Outcome] = {}
        for text in ran.stdout.splitlines():
            fields = text.split()
            if len(fields) == 3 and fields[0] == "E":
                outcomes[int(fields[1])] = Outcome(error=f"the program died of signal {fields[2]} (a generator bug)")
                continue
            if not fields or fields[0] != "P":
                continue
            nums = [int(x) for x in fields[2:]]
            outcomes[int(fields[1])] = Outcome(tuple(nums[:N_OUT]), tuple(nums[N_OUT:]))
        order = sorted(self.starts.items(), key=lambda kv: kv[1])
        for m in re.finditer(r"programs\.cpp:(\d+):\d+: runtime error: (.*)", ran.stderr):
            lineno = int(m.group(1))
            owner = [i for i, start in order if start <= lineno]
            if owner:
                message = f"undefined behaviour (a generator bug): {m.group(2)} at line {lineno}"
                outcomes[owner[-1]] = Outcome(error=message)
        for i in self.indices:
            if i not in outcomes:
                outcomes[i] = Outcome(error=f"the host program stopped (exit {ran.returncode}): {ran.stderr[-500:]}")
        return GccRun(outcomes)


def start_gcc(programs: Sequence[Program], workdir: Path, *, compiler: str | None = None) -> GccBuild:
    """Start compiling ``programs`` into one executable with :data:`GCC_FLAGS` (``results()`` waits)."""
    return GccBuild(programs, workdir, compiler)


def run_gcc(programs: Sequence[Program], workdir: Path, *, compiler: str | None = None) -> GccRun:
    """Compile ``programs`` into one executable, run it, and read the results."""
    return start_gcc(programs, workdir, compiler=compiler).results()


def _is_nan(bits: int) -> bool:
    b = bits & (2**64 - 1)
    return (b >> 52) & 0x7FF == 0x7FF and b & ((1 << 52) - 1) != 0


def _f32_ordinal(bits64: int) -> int:
    """The float32 value held in a float64 bit pattern, as a monotone integer (for ulp distances)."""
    x = struct.unpack("<d", struct.pack("<q", bits64))[0]
    b = int(struct.unpack("<i", struct.pack("<f", x))[0])
    return b if b >= 0 else -(b & 0x7FFFFFFF)


def _f64_ordinal(bits64: int) -> int:
    return bits64 if bits64 >= 0 else -(bits64 & 0x7FFFFFFFFFFFFFFF)


def _f64(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])


def compare(p: Program, gcc: Outcome, larkc: Outcome) -> list[str]:
    """The differences between the two runs, one line each (empty: they agree)."""
    if gcc.error is not None:
        return [f"gcc: {gcc.error}"]
    if larkc.error is not None:
        return [f"larkc: {larkc.error}"]
    diffs = []
    for k, (g, m) in enumerate(zip(gcc.out_i, larkc.out_i, strict=True)):
        if g != m:
            diffs.append(f"out_i[{k}]: gcc {g}, larkc {m}")
    for k, (g, m) in enumerate(zip(gcc.out_f, larkc.out_f, strict=True)):
        if g == m or (_is_nan(g) and _is_nan(m)):
            continue
        bits = p.ulp_slots.get(k)
        if bits is not None and not _is_nan(g) and not _is_nan(m):
            dist = abs(_f32_ordinal(g) - _f32_ordinal(m)) if bits == 32 else abs(_f64_ordinal(g) - _f64_ordinal(m))
            if dist <= 1:
                continue
        diffs.append(f"out_f[{k}]: gcc {_f64(g)!r}, larkc {_f64(m)!r}")
    return diffs
