"""Hints from outside the engine: loop invariants proposed by a person or an agent (issues 21 and 24).

The all-size prover (``allsize.py``) finds the invariant of an accumulation loop by itself when each
iteration adds (or takes the max/min of) a term free of the loop's floats. Other loops it leaves unknown:
a compensated (Kahan) sum whose two accumulators read each other, a running mean, a loop unrolled by hand
whose partial sums are a fold over another range than its iteration count. A *hint* states what such a loop
computes, and the engine checks it; nothing in a hint is trusted:

* a :class:`LoopInvariant` names a loop by the source line of its keyword (``for``/``while``) and, for
  each float variable the loop changes, its value **after ``iters`` iterations** as an expression over the
  kernel's variables *at the loop's entry* (integers and floats), the task's size symbols, the input
  tensors (``x[i]``: the element of ``x`` at flat index ``i``), ``iters``, and folds
  ``sum(j < E, body)``, ``max(j < E, body)``, ``min(j < E, body)`` (over ``0 <= j < E``);
* :func:`parse_hints` reads them from a small line-based text (the ``--hints`` file, the agent's tool
  arguments); a malformed hint is a :class:`HintError` located at its line and column, never a traceback;
* the prover checks each invariant (:class:`HintCheck`) at the loop: it holds on entry (``iters = 0``), one
  symbolic iteration (the executor's final pass, at an arbitrary iteration ``i`` of the trip count ``T``)
  maps it at ``i`` to it at ``i + 1``, and the loop provably ends without a ``break`` (the automatic
  induction's own conditions); only then is the value after the loop the hint at ``iters = T``. A hint that
  fails a check is reported with the check and z3's model where there is one, and the loop's floats stay
  what the automatic prover makes of them.

The text format, one invariant component per line (``#`` starts a comment)::

    loop 9: sum = sum(j < iters, x[row * d + j])
    loop 9: c = 0

Expressions: numbers, names, ``+ - * /`` (``/`` is exact division of reals), ``%`` (integers),
comparisons, ``&&``, ``||``, ``!``, ``if(c, a, b)``, ``max(a, b)``, ``min(a, b)``, the folds above, and
``x[i]`` for an input tensor ``x``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import assert_never

import z3

from larkc.errors import LarkcError, Span, Stage

__all__ = [
    "ITERS",
    "BuiltFold",
    "Evaluation",
    "HintCheck",
    "HintError",
    "HintExpr",
    "HintStatus",
    "Hints",
    "LoopInvariant",
    "evaluate",
    "format_hints",
    "parse_expr",
    "parse_hints",
]

#: The name of the number of iterations done, in an invariant's expressions.
ITERS = "iters"


class HintError(LarkcError):
    """A hint that does not parse or does not make sense for the kernel (bad input, exit 2)."""

    stage = Stage.PROVER


# -- the expressions ------------------------------------------------------------------------------------


class FoldKind(enum.Enum):
    SUM = "sum"
    MAX = "max"
    MIN = "min"


@dataclass(frozen=True, slots=True)
class Num:
    value: Fraction
    col: int


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    col: int


@dataclass(frozen=True, slots=True)
class Read:
    tensor: str
    index: HintExpr
    col: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "-" or "!"
    arg: HintExpr
    col: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # + - * / % < <= > >= == != && ||
    lhs: HintExpr
    rhs: HintExpr
    col: int


@dataclass(frozen=True, slots=True)
class Cond:
    test: HintExpr
    then: HintExpr
    other: HintExpr
    col: int


@dataclass(frozen=True, slots=True)
class Pick:
    """``max(a, b)`` or ``min(a, b)`` of two values."""

    kind: FoldKind  # MAX or MIN
    lhs: HintExpr
    rhs: HintExpr
    col: int


@dataclass(frozen=True, slots=True)
class FoldExpr:
    """``kind`` of ``body`` over ``var`` in ``[0, hi)``."""

    kind: FoldKind
    var: str
    hi: HintExpr
    body: HintExpr
    col: int


HintExpr = Num | Name | Read | Unary | Binary | Cond | Pick | FoldExpr


@dataclass(frozen=True, slots=True)
class LoopInvariant:
    """The value of one float variable after ``iters`` iterations of the loop at source line ``line``."""

    line: int
    var: str
    expr: HintExpr
    text: str  # the expression as written
    span: Span  # where the hint was written (for messages)


@dataclass(frozen=True, slots=True)
class Hints:
    """The hints for one kernel, and who proposed them (named in the verdict; never trusted)."""

    invariants: tuple[LoopInvariant, ...] = ()
    source: str = "a hints file"

    def for_line(self, line: int) -> tuple[LoopInvariant, ...]:
        return tuple(h for h in self.invariants if h.line == line)

    def text(self) -> str:
        return format_hints(self.invariants)


class HintStatus(enum.Enum):
    CHECKED = "checked"  # every check passed: the invariant was used
    REJECTED = "rejected"  # a check failed (or the hint does not apply): not used


@dataclass(frozen=True, slots=True)
class HintCheck:
    """The engine's verdict on the invariants of one loop (all components together)."""

    line: int
    variables: tuple[str, ...]
    status: HintStatus
    reason: str  # which check failed (or what was proved)
    model: Mapping[str, str] = field(default_factory=dict)  # z3's model of a failed check, where there is one


# -- parsing --------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_]\w*)|(?P<op><=|>=|==|!=|&&|\|\||[-+*/%<>!(),\[\]]))"
)


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "num", "name", "op", "end"
    text: str
    col: int  # 0-based within the expression


def _tokens(text: str, err: Callable[[int, str], HintError]) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.lastgroup is None:
            at = pos + (len(text[pos:]) - len(text[pos:].lstrip()))
            raise err(at, f"unexpected character {text[at]!r}")
        out.append(_Tok(m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup)))
        pos = m.end()
    out.append(_Tok("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str, err: Callable[[int, str], HintError]) -> None:
        self.err = err
        self.toks = _tokens(text, err)
        self.i = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self, text: str | None = None) -> _Tok:
        t = self.toks[self.i]
        if text is not None and t.text != text:
            raise self.err(t.col, f"expected {text!r}, found {t.text or 'the end'!r}")
        self.i += 1
        return t

    def at(self, *texts: str) -> bool:
        t = self.peek()
        return t.kind == "op" and t.text in texts

    def whole(self) -> HintExpr:
        e = self.expr()
        t = self.peek()
        if t.kind != "end":
            raise self.err(t.col, f"unexpected {t.text!r} after the expression")
        return e

    def expr(self) -> HintExpr:
        return self.binary(0)

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("||",),
        ("&&",),
        ("<", "<=", ">", ">=", "==", "!="),
        ("+", "-"),
        ("*", "/", "%"),
    )

    def binary(self, level: int) -> HintExpr:
        if level == len(self._LEVELS):
            return self.unary()
        lhs = self.binary(level + 1)
        while self.at(*self._LEVELS[level]):
            op = self.take()
            rhs = self.binary(level + 1)
            lhs = Binary(op.text, lhs, rhs, op.col)
        return lhs

    def unary(self) -> HintExpr:
        if self.at("-", "!"):
            op = self.take()
            return Unary(op.text, self.unary(), op.col)
        return self.primary()

    def primary(self) -> HintExpr:
        t = self.take()
        match t.kind:
            case "num":
                try:
                    value = Fraction(t.text)
                except (ValueError, ZeroDivisionError) as e:  # pragma: no cover - the token's syntax is checked
                    raise self.err(t.col, f"bad number {t.text!r}") from e
                return Num(value, t.col)
            case "name":
                if self.at("("):
                    return self.call(t)
                if self.at("["):
                    self.take("[")
                    index = self.expr()
                    self.take("]")
                    return Read(t.text, index, t.col)
                return Name(t.text, t.col)
            case "op" if t.text == "(":
                inner = self.expr()
                self.take(")")
                return inner
            case _:
                raise self.err(t.col, f"expected a value, found {t.text or 'the end'!r}")

    def call(self, fn: _Tok) -> HintExpr:
        self.take("(")
        match fn.text:
            case "sum" | "max" | "min":
                kind = FoldKind(fn.text)
                var = self.peek()
                if var.kind == "name" and self.toks[self.i + 1].text == "<":
                    self.take()
                    self.take("<")
                    hi = self.expr()
                    self.take(",")
                    body = self.expr()
                    self.take(")")
                    return FoldExpr(kind, var.text, hi, body, fn.col)
                if kind is FoldKind.SUM:
                    raise self.err(var.col, "a sum is written sum(j < bound, body)")
                a = self.expr()
                self.take(",")
                b = self.expr()
                self.take(")")
                return Pick(kind, a, b, fn.col)
            case "if":
                c = self.expr()
                self.take(",")
                a = self.expr()
                self.take(",")
                b = self.expr()
                self.take(")")
                return Cond(c, a, b, fn.col)
            case _:
                raise self.err(fn.col, f"unknown function {fn.text!r} (sum, max, min, if)")


def parse_expr(text: str, span: Span) -> HintExpr:
    """The expression ``text``, written at ``span`` (its column is the text's first character)."""

    def err(col: int, message: str) -> HintError:
        at = Span.point(span.file, span.line, span.col + col) if span.line else None
        return HintError(f"bad hint: {message}", at)

    return _Parser(text, err).whole()


_LINE = re.compile(r"\s*loop\s+(?P<line>\d+)\s*:\s*(?P<var>[A-Za-z_]\w*)\s*=\s*(?P<expr>.*?)\s*$")


def parse_hints(text: str, file: str = "<hints>", source: str = "") -> Hints:
    """The hints of ``text`` (the format of the module docstring); a malformed line is a located error."""
    out: list[LoopInvariant] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        m = _LINE.match(line)
        if m is None:
            col = len(line) - len(line.lstrip()) + 1
            raise HintError("bad hint: expected `loop LINE: VARIABLE = EXPRESSION`", Span.point(file, n, col))
        if not m.group("expr"):
            raise HintError("bad hint: the expression is empty", Span.point(file, n, m.start("expr") + 1))
        at = Span(file, n, m.start("expr") + 1, n, m.end("expr") + 1)
        expr = parse_expr(m.group("expr"), at)
        out.append(LoopInvariant(int(m.group("line")), m.group("var"), expr, m.group("expr"), at))
    return Hints(tuple(out), source or file)


def format_hints(invariants: Sequence[LoopInvariant]) -> str:
    """The text :func:`parse_hints` reads back."""
    return "".join(f"loop {h.line}: {h.var} = {h.text}\n" for h in invariants)


# -- evaluation to z3 terms -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BuiltFold:
    """A fold the evaluation made (in the order of the expression), for the prover's step facts."""

    kind: FoldKind
    var: z3.ArithRef
    hi: z3.ArithRef
    body: z3.ArithRef
    const: z3.ArithRef


@dataclass
class Evaluation:
    """What :func:`evaluate` needs of the kernel: values of names, input tensors, a maker of folds."""

    names: Mapping[str, z3.ExprRef]  # kernel variables at the loop's entry, sizes, ``iters``
    tensor: Callable[[str], z3.FuncDeclRef | None]  # the function of an input tensor, None if not an input
    fold: Callable[[FoldKind, z3.ArithRef, z3.ArithRef, z3.ArithRef], z3.ArithRef]
    span: Span
    built: list[BuiltFold] = field(default_factory=list)


def _err(ev: Evaluation, col: int, message: str) -> HintError:
    at = Span.point(ev.span.file, ev.span.line, ev.span.col + col) if ev.span.line else None
    return HintError(f"bad hint: {message}", at)


def evaluate(e: HintExpr, ev: Evaluation) -> z3.ExprRef:
    """The z3 term of ``e`` (an integer, real or boolean term); a name or tensor the kernel does not have,
    or a value of the wrong kind, is a located :class:`HintError`."""
    return _eval(e, ev, {})


def _real(x: z3.ExprRef) -> z3.ArithRef:
    if z3.is_int(x):
        return z3.ToReal(x)
    assert isinstance(x, z3.ArithRef)
    return x


def _int(e: HintExpr, ev: Evaluation, bound: Mapping[str, z3.ExprRef], what: str) -> z3.ArithRef:
    x = _eval(e, ev, bound)
    if not z3.is_int(x):
        raise _err(ev, e.col, f"{what} must be an integer")
    assert isinstance(x, z3.ArithRef)
    return x


def _num(e: HintExpr, ev: Evaluation, bound: Mapping[str, z3.ExprRef]) -> z3.ArithRef:
    x = _eval(e, ev, bound)
    if not z3.is_arith(x):
        raise _err(ev, e.col, "expected a number, found a condition")
    assert isinstance(x, z3.ArithRef)
    return x


def _bool(e: HintExpr, ev: Evaluation, bound: Mapping[str, z3.ExprRef]) -> z3.BoolRef:
    x = _eval(e, ev, bound)
    if not z3.is_bool(x):
        raise _err(ev, e.col, "expected a condition")
    assert isinstance(x, z3.BoolRef)
    return x


def _eval(e: HintExpr, ev: Evaluation, bound: Mapping[str, z3.ExprRef]) -> z3.ExprRef:
    match e:
        case Num(value=v):
            return z3.IntVal(v.numerator) if v.denominator == 1 else z3.RealVal(v)
        case Name(name=n, col=col):
            x = bound.get(n, ev.names.get(n))
            if x is None:
                known = ", ".join(sorted(ev.names)) or "none"
                raise _err(ev, col, f"unknown name {n!r} (known at the loop's entry: {known})")
            return x
        case Read(tensor=t, index=i, col=col):
            f = ev.tensor(t)
            if f is None:
                raise _err(ev, col, f"{t!r} is not an input tensor of the task")
            return f(_int(i, ev, bound, "an index"))
        case Unary(op=op, arg=a):
            return -_num(a, ev, bound) if op == "-" else z3.Not(_bool(a, ev, bound))
        case Binary(op="&&" | "||" as op, lhs=a, rhs=b):
            x, y = _bool(a, ev, bound), _bool(b, ev, bound)
            return z3.And(x, y) if op == "&&" else z3.Or(x, y)
        case Binary(op="%", lhs=a, rhs=b):
            return _int(a, ev, bound, "an operand of %") % _int(b, ev, bound, "an operand of %")
        case Binary(op=op, lhs=a, rhs=b):
            x, y = _num(a, ev, bound), _num(b, ev, bound)
            if op == "/" or not (z3.is_int(x) and z3.is_int(y)):
                x, y = _real(x), _real(y)
            return _arith(op, x, y)
        case Cond(test=c, then=a, other=b):
            x, y = _num(a, ev, bound), _num(b, ev, bound)
            if not (z3.is_int(x) and z3.is_int(y)):
                x, y = _real(x), _real(y)
            return z3.If(_bool(c, ev, bound), x, y)
        case Pick(kind=kind, lhs=a, rhs=b):
            x, y = _num(a, ev, bound), _num(b, ev, bound)
            if not (z3.is_int(x) and z3.is_int(y)):
                x, y = _real(x), _real(y)
            return z3.If(x >= y, x, y) if kind is FoldKind.MAX else z3.If(x <= y, x, y)
        case FoldExpr(kind=kind, var=name, hi=hi, body=body):
            top = _int(hi, ev, bound, "a fold's bound")
            var = z3.FreshInt(f"hint.{name}")
            b = _real(_num(body, ev, {**bound, name: var}))
            const = ev.fold(kind, var, top, b)
            ev.built.append(BuiltFold(kind, var, top, b, const))
            return const
        case _:
            assert_never(e)


def _arith(op: str, x: z3.ArithRef, y: z3.ArithRef) -> z3.ExprRef:
    match op:
        case "+":
            return x + y
        case "-":
            return x - y
        case "*":
            return x * y
        case "/":
            return x / y
        case "<":
            return x < y
        case "<=":
            return x <= y
        case ">":
            return x > y
        case ">=":
            return x >= y
        case "==":
            return x == y
        case "!=":
            return x != y
        case _:  # pragma: no cover - the parser makes no other operator
            raise AssertionError(op)


def names_of(e: HintExpr) -> Iterator[str]:
    """The free names of ``e`` (not the fold variables it binds)."""
    match e:
        case Num():
            return
        case Name(name=n):
            yield n
        case Read(index=i):
            yield from names_of(i)
        case Unary(arg=a):
            yield from names_of(a)
        case Binary(lhs=a, rhs=b) | Pick(lhs=a, rhs=b):
            yield from names_of(a)
            yield from names_of(b)
        case Cond(test=c, then=a, other=b):
            yield from names_of(c)
            yield from names_of(a)
            yield from names_of(b)
        case FoldExpr(var=v, hi=hi, body=body):
            yield from names_of(hi)
            yield from (n for n in names_of(body) if n != v)
        case _:
            assert_never(e)
