"""An evaluator for the Lean subset that larkc's kernel lowering generates (``<Module>/Kernel.lean``).

No Lean toolchain is needed: the text is tokenised and parsed (a Pratt parser for the term language,
honouring Lean's column rule for application arguments), elaborated with Lean's typing rules where they
change the value (``ℕ``/``ℤ``/``ℝ`` numerals and coercions as the ``binop%``/``binrel%`` elaborators insert
them: the expected type is the initial "maximal type" of an arithmetic tree, leaves of a smaller type are
coerced), compiled to Python functions and run with the semantics of ``Larkc.Machine``:

* ``ℕ`` subtraction truncates at 0, ``ℕ`` ``/`` and ``%`` floor (``n / 0 = 0``, ``n % 0 = n``);
* ``ℤ`` ``/`` and ``%`` are Euclidean (``Int.ediv``/``Int.emod``; ``x / 0 = 0``);
* ``ℝ`` is float64; ``x / 0 = 0``, ``Real.sqrt`` of a negative is 0, ``Real.log 0 = 0``;
* a thread's ``TState`` is persistent (a log with a fast path for linear use), so a translation that
  drops a state or reuses an old one is evaluated as Lean would evaluate it;
* ``Phase.run``: every thread starts from the same snapshot; a written location takes its writer's final
  view value (the first writer in launch order when several write it: ``Classical.choose`` is arbitrary),
  other locations keep their value; atomic contributions are summed on top.

Constructs outside the subset raise :class:`LeanEvalError`; nothing is skipped silently.

Entry points: :func:`run_kernel` (final memory) and :func:`run_kernel_report` (final memory and, per
phase, the conflicts that make ``Phase.RaceFree`` false and the ``ℕ`` subtractions that truncated).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

__all__ = ["LeanEvalError", "Report", "parse_kernel", "run_kernel", "run_kernel_report"]


class LeanEvalError(Exception):
    """A construct outside the evaluated subset, a type error, or a run-time failure."""


# --------------------------------------------------------------------------------------------------
# tokens


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # num, id, sym, kw, proj, eof
    text: str
    line: int
    col: int


_KEYWORDS = {
    "let",
    "if",
    "then",
    "else",
    "fun",
    "def",
    "True",
    "False",
    "Prop",
    "TState",
    "List",
    "Phase",
    "namespace",
    "end",
    "open",
    "noncomputable",
    "section",
    "set_option",
    "import",
    "theorem",
    "lemma",
    "abbrev",
    "structure",
    "inductive",
    "instance",
    "example",
    "variable",
}
_COMMANDS = {
    "def",
    "namespace",
    "end",
    "open",
    "noncomputable",
    "section",
    "set_option",
    "import",
    "theorem",
    "lemma",
    "abbrev",
    "structure",
    "inductive",
    "instance",
    "example",
    "variable",
}
_SYMS = sorted(
    [
        ":=",
        "=>",
        "++",
        "<=",
        ">=",
        "!=",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        ";",
        "+",
        "-",
        "*",
        "/",
        "%",
        "^",
        "=",
        "≠",
        "<",
        "≤",
        ">",
        "≥",
        "↔",
        "∧",
        "∨",
        "¬",
        "×",
        "ℕ",
        "ℤ",
        "ℝ",
        "→",
        "↑",
    ],
    key=len,
    reverse=True,
)
_ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*")
_NUM_RE = re.compile(r"[0-9]+")


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    i, line, col = 0, 1, 0
    n = len(text)

    def adv(k: int) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if text[i] == "\n":
                line += 1
                col = 0
            else:
                col += 1
            i += 1

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            adv(1)
            continue
        if text.startswith("--", i):
            while i < n and text[i] != "\n":
                adv(1)
            continue
        if text.startswith("/-", i):
            depth = 0
            while i < n:
                if text.startswith("/-", i):
                    depth += 1
                    adv(2)
                elif text.startswith("-/", i):
                    depth -= 1
                    adv(2)
                    if depth == 0:
                        break
                else:
                    adv(1)
            else:
                raise LeanEvalError(f"unterminated comment at line {line}")
            continue
        if c.isdigit():
            m = _NUM_RE.match(text, i)
            assert m
            if m.end() < n and text[m.end()] == "." and m.end() + 1 < n and text[m.end() + 1].isdigit():
                raise LeanEvalError(f"line {line}: decimal literals are outside the evaluated subset")
            toks.append(Tok("num", m.group(), line, col))
            adv(m.end() - i)
            continue
        if c == "." and i + 1 < n and text[i + 1].isdigit() and toks and toks[-1].kind in ("id", "proj", "sym"):
            m = _NUM_RE.match(text, i + 1)
            assert m
            if toks[-1].kind == "sym" and toks[-1].text != ")":
                raise LeanEvalError(f"line {line}: unexpected '.'")
            toks.append(Tok("proj", m.group(), line, col))
            adv(m.end() - i)
            continue
        if (c.isalpha() and c.isascii()) or c == "_":
            m = _ID_RE.match(text, i)
            assert m
            word = m.group()
            toks.append(Tok("kw" if word in _KEYWORDS else "id", word, line, col))
            adv(len(word))
            continue
        for s in _SYMS:
            if text.startswith(s, i):
                toks.append(Tok("sym", s, line, col))
                adv(len(s))
                break
        else:
            raise LeanEvalError(f"line {line}:{col}: unexpected character {c!r}")
    toks.append(Tok("eof", "", line + 1, 0))
    return toks


# --------------------------------------------------------------------------------------------------
# syntax


@dataclass(slots=True)
class Node:
    kind: str  # num, var, app, bin, neg, not, ascr, if, list, tuple, struct, fun, lets, proj, bool
    args: list[Any] = field(default_factory=list)
    line: int = 0


_BINOPS = {  # symbol: (precedence, right-assoc)
    "∨": (30, True),
    "∧": (35, True),
    "↔": (20, False),
    "=": (50, False),
    "≠": (50, False),
    "!=": (50, False),
    "<": (50, False),
    "≤": (50, False),
    "<=": (50, False),
    ">": (50, False),
    "≥": (50, False),
    ">=": (50, False),
    "++": (65, False),
    "+": (65, False),
    "-": (65, False),
    "*": (70, False),
    "/": (70, False),
    "%": (70, False),
    "^": (75, True),
}
_NORM = {"<=": "≤", ">=": "≥", "!=": "≠"}


class Parser:
    def __init__(self, toks: list[Tok], i: int = 0) -> None:
        self.toks = toks
        self.i = i
        self.pos = -1  # column of the innermost `withPosition` (application arguments must be right of it)

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def err(self, msg: str) -> LeanEvalError:
        t = self.tok
        return LeanEvalError(f"line {t.line}:{t.col}: {msg} (at {t.text!r})")

    def eat(self, kind: str, text: str | None = None) -> Tok:
        t = self.tok
        if t.kind != kind or (text is not None and t.text != text):
            raise self.err(f"expected {text or kind}")
        self.i += 1
        return t

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("sym", "kw")

    def stop(self) -> bool:
        """A column-0 token ends every term (it starts the next command)."""
        return self.tok.kind == "eof" or self.tok.col == 0

    # types -----------------------------------------------------------------------------------------
    def typ(self) -> Any:
        left = self.typ_atom()
        if self.at("×"):
            self.i += 1
            return ("X", left, self.typ())
        if self.at("→"):
            self.i += 1
            return ("F", [left], self.typ())
        return left

    def typ_atom(self) -> Any:
        t = self.tok
        if t.text in ("ℕ", "ℤ", "ℝ"):
            self.i += 1
            return {"ℕ": "N", "ℤ": "Z", "ℝ": "R"}[t.text]
        if t.text == "Prop":
            self.i += 1
            return "P"
        if t.text == "TState":
            self.i += 1
            return "S"
        if t.text == "Loc":
            self.i += 1
            return _LOC
        if t.text == "Larkc.Block.Blk":
            self.i += 1
            return ("F", ["N"], self.typ_atom())
        if t.text == "List":
            self.i += 1
            inner = self.typ_atom()
            if inner == "R":
                return "VL"
            if inner == "PH":
                return "LPH"
            raise self.err("only List ℝ and List Phase are in the subset")
        if t.text == "Phase":
            self.i += 1
            return "PH"
        if t.text == "(":
            self.i += 1
            ty = self.typ()
            self.eat("sym", ")")
            return ty
        raise self.err("unknown type")

    # terms -----------------------------------------------------------------------------------------
    def term(self, minprec: int = 0) -> Node:
        left = self.leading()
        while True:
            t = self.tok
            if self.stop() or t.kind != "sym" or t.text not in _BINOPS:
                break
            prec, right = _BINOPS[t.text]
            if prec < minprec:
                break
            self.i += 1
            op = _NORM.get(t.text, t.text)
            rhs = self.term(prec if right else prec + 1)
            left = Node("bin", [op, left, rhs], t.line)
            if prec == 50 and self.tok.kind == "sym" and _BINOPS.get(self.tok.text, (0,))[0] == 50:
                raise self.err("chained relation")
        return left

    def leading(self) -> Node:
        t = self.tok
        if self.stop():
            raise self.err("unexpected end of term")
        if t.kind == "kw" and t.text == "let":
            return self.lets()
        if t.kind == "kw" and t.text == "if":
            self.i += 1
            c = self.term()
            self.eat("kw", "then")
            a = self.term()
            self.eat("kw", "else")
            b = self.term()
            return Node("if", [c, a, b], t.line)
        if t.kind == "kw" and t.text == "fun":
            self.i += 1
            binders: list[tuple[str, Any]] = []
            while self.at("("):
                self.i += 1
                names = []
                while self.tok.kind == "id":
                    names.append(self.eat("id").text)
                self.eat("sym", ":")
                ty = self.typ()
                self.eat("sym", ")")
                binders += [(x, ty) for x in names]
            if not binders:
                raise self.err("fun binders must be typed, (x : T)")
            self.eat("sym", "=>")
            body = self.term()
            return Node("fun", [binders, body], t.line)
        if t.kind == "sym" and t.text == "-":
            self.i += 1
            return Node("neg", [self.term(75)], t.line)
        if t.kind == "sym" and t.text == "¬":
            self.i += 1
            return Node("not", [self.term(40)], t.line)
        return self.application()

    def lets(self) -> Node:
        """A chain of ``let``s (kept flat, so that long phases do not recurse deeply)."""
        decls: list[tuple[str, Any, Node, int]] = []
        while self.tok.kind == "kw" and self.tok.text == "let" and not self.stop():
            lt = self.eat("kw", "let")
            name = self.eat("id").text
            ty = None
            if self.at(":"):
                self.i += 1
                ty = self.typ()
            self.eat("sym", ":=")
            saved = self.pos
            self.pos = lt.col
            value = self.term()
            self.pos = saved
            if self.at(";"):
                self.i += 1
            decls.append((name, ty, value, lt.line))
        body = self.term()
        return Node("lets", [decls, body], decls[0][3])

    def starts_arg(self) -> bool:
        t = self.tok
        if self.stop() or t.col <= self.pos:
            return False
        if t.kind in ("num", "id"):
            return True
        if t.kind == "kw" and t.text in ("True", "False"):
            return True
        return t.kind == "sym" and t.text in ("(", "[", "{", "ℕ", "ℤ", "ℝ")

    def application(self) -> Node:
        head = self.atom()
        args: list[Node] = []
        while self.starts_arg():
            if self.tok.kind == "sym" and self.tok.text in ("ℕ", "ℤ", "ℝ"):
                raise self.err("a type as an argument")
            args.append(self.atom())
        if args:
            return Node("app", [head, args], head.line)
        return head

    def atom(self) -> Node:
        t = self.tok
        if t.kind == "num":
            self.i += 1
            node = Node("num", [int(t.text)], t.line)
        elif t.kind == "kw" and t.text in ("True", "False"):
            self.i += 1
            node = Node("bool", [t.text == "True"], t.line)
        elif t.kind == "id":
            self.i += 1
            node = Node("var", [t.text], t.line)
        elif t.kind == "sym" and t.text == "(":
            self.i += 1
            saved = self.pos
            self.pos = -1
            inner = self.term()
            if self.at(":"):
                self.i += 1
                ty = self.typ()
                self.eat("sym", ")")
                node = Node("ascr", [inner, ty], t.line)
            elif self.at(","):
                items = [inner]
                while self.at(","):
                    self.i += 1
                    items.append(self.term())
                self.eat("sym", ")")
                node = Node("tuple", [items], t.line)
            else:
                self.eat("sym", ")")
                node = inner
            self.pos = saved
        elif t.kind == "sym" and t.text == "[":
            self.i += 1
            saved = self.pos
            self.pos = -1
            items = []
            if not self.at("]"):
                items.append(self.term())
                while self.at(","):
                    self.i += 1
                    items.append(self.term())
            self.eat("sym", "]")
            self.pos = saved
            node = Node("list", [items], t.line)
        elif t.kind == "sym" and t.text == "{":
            self.i += 1
            saved = self.pos
            self.pos = -1
            fields: dict[str, Node] = {}
            while True:
                name = self.eat("id").text
                self.eat("sym", ":=")
                fields[name] = self.term()
                if self.at(","):
                    self.i += 1
                    continue
                break
            self.eat("sym", "}")
            self.pos = saved
            node = Node("struct", [fields], t.line)
        else:
            raise self.err("unexpected token")
        while self.tok.kind == "proj":
            node = Node("proj", [node, int(self.tok.text)], self.tok.line)
            self.i += 1
        return node


@dataclass(slots=True)
class Def:
    name: str
    binders: list[tuple[str, Any]]
    ret: Any
    body: Node
    line: int


def parse_kernel(text: str) -> dict[str, Def]:
    """The ``def``s of a Kernel.lean file (other commands are skipped: they carry no definitions)."""
    toks = tokenize(text)
    p = Parser(toks)
    defs: dict[str, Def] = {}
    while p.tok.kind != "eof":
        t = p.tok
        if t.col != 0 or t.text not in _COMMANDS:
            raise p.err("expected a command at column 0")
        if t.text != "def":
            p.i += 1
            while not p.stop():
                p.i += 1
            continue
        p.i += 1
        name = p.eat("id").text
        binders: list[tuple[str, Any]] = []
        while p.at("("):
            p.i += 1
            names = []
            while p.tok.kind == "id":
                names.append(p.eat("id").text)
            p.eat("sym", ":")
            ty = p.typ()
            p.eat("sym", ")")
            binders += [(x, ty) for x in names]
        p.eat("sym", ":")
        ret = p.typ()
        p.eat("sym", ":=")
        p.pos = 0
        body = p.term()
        p.pos = -1
        if not p.stop():
            raise p.err("trailing tokens after the definition")
        if name in defs:
            raise LeanEvalError(f"line {t.line}: {name} defined twice")
        defs[name] = Def(name, binders, ret, body, t.line)
    return defs


# --------------------------------------------------------------------------------------------------
# run-time support

_MISSING = object()


class _Thread:
    """The shared part of one thread's states: the log of its operations and the view after the last."""

    __slots__ = ("adds", "log", "mem", "view")

    def __init__(self, mem: Mapping[tuple, float], log: list | None = None) -> None:
        self.mem = mem
        self.log: list[tuple] = [] if log is None else log
        self.view: dict[tuple, float] = {}
        for e in self.log:
            if e[0] == "w":
                self.view[e[1]] = e[2]


class TS:
    """A ``TState``: the thread's log up to ``n`` entries (entries are ('w', loc, v), ('r', loc), ('a', loc, v))."""

    __slots__ = ("n", "th")

    def __init__(self, th: _Thread, n: int) -> None:
        self.th = th
        self.n = n

    def entries(self) -> list[tuple]:
        return self.th.log[: self.n]


def _get(s: TS, loc: tuple) -> float:
    if type(s) is not TS:
        raise LeanEvalError(f"s.get on {type(s).__name__}, not a TState")
    th = s.th
    if s.n == len(th.log):
        v = th.view.get(loc, _MISSING)
    else:  # an older state: read its own prefix of the log
        v = _MISSING
        for e in reversed(th.log[: s.n]):
            if e[0] == "w" and e[1] == loc:
                v = e[2]
                break
    if v is _MISSING:
        return th.mem.get(loc, 0.0)
    return v  # type: ignore[return-value]


def _extend(s: TS, entry: tuple) -> TS:
    if type(s) is not TS:
        raise LeanEvalError(f"a TState operation on {type(s).__name__}")
    th = s.th
    if s.n != len(th.log):  # branching from an older state: fork its log
        th = _Thread(th.mem, th.log[: s.n])
    th.log.append(entry)
    if entry[0] == "w":
        th.view[entry[1]] = entry[2]
    return TS(th, s.n + 1)


def _put(s: TS, loc: tuple, v: float) -> TS:
    return _extend(s, ("w", loc, v))


def _note(s: TS, loc: tuple) -> TS:
    return _extend(s, ("r", loc))


def _add(s: TS, loc: tuple, v: float) -> TS:
    return _extend(s, ("a", loc, v))


def _amax(s: TS, loc: tuple, v: float) -> TS:
    return _extend(s, ("m", loc, v))


def _check(s: TS, ok: bool) -> TS:
    """``TState.check``: an assertion, recorded with its outcome (``ok`` stays true while all hold)."""
    return _extend(s, ("c", ("assert",), bool(ok)))


class _Counters:
    nat_truncations = 0


def _nsub(a: int, b: int) -> int:
    d = a - b
    if d < 0:
        _Counters.nat_truncations += 1
        return 0
    return d


def _ndiv(a: int, b: int) -> int:
    return 0 if b == 0 else a // b


def _nmod(a: int, b: int) -> int:
    return a if b == 0 else a % b


def _zdiv(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = a // abs(b)
    return q if b > 0 else -q


def _zmod(a: int, b: int) -> int:
    return a - b * _zdiv(a, b)


def _rdiv(a: float, b: float) -> float:
    return 0.0 if b == 0 else a / b


def _to_nat(a: int) -> int:
    return a if a > 0 else 0


def _trip_up(start: int, stop: int, step: int) -> int:
    return _to_nat(_zdiv(stop - start + step - 1, step)) if start < stop else 0


def _trip_down(start: int, stop: int, step: int) -> int:
    return _to_nat(_zdiv(start - stop + step - 1, step)) if stop < start else 0


def _halvings(start: int) -> int:
    x = fuel = _to_nat(start)
    k = 0
    while fuel > 0 and x != 0:
        x //= 2
        fuel -= 1
        k += 1
    return k


def _for_loop(start: int, step: int, count: int, init: Any, body: Callable) -> Any:
    s = init
    for k in range(count):
        s = body(start + k * step, s)
    return s


def _tdiv(a: int, b: int) -> int:
    if a >= 0:
        return _zdiv(a, b) if b >= 0 else -_zdiv(a, -b)
    return -_zdiv(-a, b) if b >= 0 else _zdiv(-a, -b)


def _trem(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


def _shl(a: int, k: int) -> int:
    return a * 2 ** _to_nat(k)


def _shr(a: int, k: int) -> int:
    return _zdiv(a, 2 ** _to_nat(k))


def _bxor(a: int, b: int) -> int:
    return _to_nat(a) ^ _to_nat(b)


def _lane(xs: tuple, k: int) -> float:
    return xs[k] if k < len(xs) else 0.0


def _set_lane(xs: tuple, k: int, v: float) -> tuple:
    if k >= len(xs):
        return xs
    return (*xs[:k], v, *xs[k + 1 :])


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x > 0 else 0.0


def _rsqrt(x: float) -> float:
    return _rdiv(1.0, _sqrt(x))


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x: float) -> float:
    return 0.0 if x == 0 else math.log(abs(x))


def _logb(b: float, x: float) -> float:
    return _rdiv(_log(x), _log(b))


def _rpow(x: float, y: float) -> float:
    if x == 0:
        return 1.0 if y == 0 else 0.0
    if x < 0:
        return _exp(_log(x) * y) * math.cos(y * math.pi)
    try:
        return x**y
    except OverflowError:
        return math.inf


def _floor(x: float) -> int:
    if isinstance(x, int):
        return x
    if math.isnan(x) or math.isinf(x):
        raise LeanEvalError(f"Int.floor of {x} (float64 overflow: ℝ has no such value)")
    return math.floor(x)


def _next_pow2(n: int) -> int:
    fuel, p = n, 1
    while fuel > 0 and not n <= p:
        p *= 2
        fuel -= 1
    return p


def _launch(g: int, n: int) -> list[tuple[int, int]]:
    return [(b, t) for b in range(g) for t in range(n)]


def _loop_phases(body: Callable, n: int) -> list:
    out: list = []
    for k in range(n):
        out += body(k)
    return out


def _float(x: Any) -> float:
    return float(x)


# Blocks (``Larkc.Block``): functions of the row-major index, memoised (each element computed once)


def _memo(f: Callable[[int], Any]) -> Callable[[int], Any]:
    cache: dict[int, Any] = {}

    def g(i: int) -> Any:
        v = cache.get(i, _MISSING)
        if v is _MISSING:
            v = cache[i] = f(i)
        return v

    return g


def _b_arange(start: int) -> Callable[[int], Any]:
    return lambda i: start + i


def _b_splat(v: Any) -> Callable[[int], Any]:
    return lambda i: v


def _b_map(f: Callable, *xs: Callable[[int], Any]) -> Callable[[int], Any]:
    return _memo(lambda i: f(*(x(i) for x in xs)))


def _b_bcast(n: int, inner: int, x: Callable[[int], Any]) -> Callable[[int], Any]:
    return lambda i: x(i // (n * inner) * inner + i % inner)


def _b_reindex(f: Callable[[int], int], x: Callable[[int], Any]) -> Callable[[int], Any]:
    return lambda i: x(f(i))


def _b_along(n: int, inner: int, x: Callable[[int], Any], o: int, r: int) -> Any:
    return x(o // inner * (n * inner) + r * inner + o % inner)


def _b_pos(n: int, inner: int, o: int) -> int:
    return o // inner % n if inner and n else 0


def _b_line_at(n: int, inner: int, x: Callable[[int], Any], o: int, r: int) -> Any:
    return x(o // (n * inner) * (n * inner) + r * inner + o % inner)


def _b_fold(op: str, values: list) -> Any:
    acc = values[0]
    for v in values[1:]:
        acc = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "max": max, "min": min}[op](acc, v)
    return acc


def _b_reduce(op: str, n: int, inner: int, x: Callable[[int], Any]) -> Callable[[int], Any]:
    return _memo(lambda o: _b_fold(op, [_b_along(n, inner, x, o, r) for r in range(n)]))


def _b_scan(op: str, reverse: bool, n: int, inner: int, x: Callable[[int], Any]) -> Callable[[int], Any]:
    def at(o: int) -> Any:
        p = _b_pos(n, inner, o)
        rs = range(p, n) if reverse else range(p + 1)
        return _b_fold(op, [_b_line_at(n, inner, x, o, r) for r in rs])

    return _memo(at)


def _b_dot(k: int, n: int, a: Callable[[int], float], b: Callable[[int], float]) -> Callable[[int], float]:
    return _memo(lambda o: sum((a(o // n * k + j) * b(j * n + o % n) for j in range(k)), 0.0))


def _b_globs(buf: int, off: Callable[[int], int]) -> Callable[[int], tuple]:
    return lambda i: ("glob", buf, off(i))


def _b_load(s: TS, mask: Callable, loc: Callable, other: Callable) -> Callable[[int], float]:
    return _memo(lambda i: _get(s, loc(i)) if mask(i) else other(i))


def _b_each(op: Callable, s: TS, n: int, mask: Callable, loc: Callable, v: Callable | None = None) -> TS:
    for i in range(n):
        if mask(i):
            s = op(s, loc(i)) if v is None else op(s, loc(i), v(i))
    return s


def _foldl(f: Callable, init: Any, xs: list) -> Any:
    acc = init
    for x in xs:
        acc = f(acc, x)
    return acc


_RUNTIME = {name: obj for name, obj in globals().items() if name.startswith("_") and callable(obj)}
_RUNTIME.update({"math": math, "LeanEvalError": LeanEvalError})

# --------------------------------------------------------------------------------------------------
# elaboration and compilation

NUM = ("N", "Z", "R")
_RANK = {"N": 0, "Z": 1, "R": 2}
_LOC = "LOC"

# global functions: name -> (parameter types, result type, python template)
_FUNS: dict[str, tuple[list[Any], Any, str]] = {
    "Loc.glob": (["N", "Z"], _LOC, "('glob', {0}, {1})"),
    "Loc.shr": (["N", "N", "Z"], _LOC, "('shr', {0}, {1}, {2})"),
    "Loc.lcl": (["N", "N", "N", "Z"], _LOC, "('lcl', {0}, {1}, {2}, {3})"),
    "Loc.reg": (["N", "N", "N"], _LOC, "('reg', {0}, {1}, {2})"),
    "Larkc.Cuda.tripUp": (["Z", "Z", "Z"], "N", "_trip_up({0}, {1}, {2})"),
    "Larkc.Cuda.tripDown": (["Z", "Z", "Z"], "N", "_trip_down({0}, {1}, {2})"),
    "Larkc.Cuda.halvings": (["Z"], "N", "_halvings({0})"),
    "Larkc.Cuda.tdiv": (["Z", "Z"], "Z", "_tdiv({0}, {1})"),
    "Larkc.Cuda.trem": (["Z", "Z"], "Z", "_trem({0}, {1})"),
    "Larkc.Cuda.shl": (["Z", "Z"], "Z", "_shl({0}, {1})"),
    "Larkc.Cuda.shr": (["Z", "Z"], "Z", "_shr({0}, {1})"),
    "Larkc.Cuda.bxor": (["Z", "Z"], "Z", "_bxor({0}, {1})"),
    "Larkc.Cuda.lane": (["VL", "N"], "R", "_lane({0}, {1})"),
    "Larkc.Cuda.setLane": (["VL", "N", "R"], "VL", "_set_lane({0}, {1}, {2})"),
    "Larkc.Cuda.rsqrt": (["R"], "R", "_rsqrt({0})"),
    "Larkc.Cuda.fma": (["R", "R", "R"], "R", "({0} * {1} + {2})"),
    "Larkc.nextPow2": (["N"], "N", "_next_pow2({0})"),
    "Larkc.Block.arange": (["Z"], ("F", ["N"], "Z"), "_b_arange({0})"),
    "Larkc.Block.dot": (
        ["N", "N", ("F", ["N"], "R"), ("F", ["N"], "R")],
        ("F", ["N"], "R"),
        "_b_dot({0}, {1}, {2}, {3})",
    ),
    "Larkc.Block.globs": (["N", ("F", ["N"], "Z")], ("F", ["N"], _LOC), "_b_globs({0}, {1})"),
    "Larkc.Block.load": (
        ["S", ("F", ["N"], "P"), ("F", ["N"], _LOC), ("F", ["N"], "R")],
        ("F", ["N"], "R"),
        "_b_load({0}, {1}, {2}, {3})",
    ),
    "Larkc.Block.noteAll": (
        ["S", "N", ("F", ["N"], "P"), ("F", ["N"], _LOC)],
        "S",
        "_b_each(_note, {0}, {1}, {2}, {3})",
    ),
    "Larkc.Block.putAll": (
        ["S", "N", ("F", ["N"], "P"), ("F", ["N"], _LOC), ("F", ["N"], "R")],
        "S",
        "_b_each(_put, {0}, {1}, {2}, {3}, {4})",
    ),
    "Larkc.Block.addAll": (
        ["S", "N", ("F", ["N"], "P"), ("F", ["N"], _LOC), ("F", ["N"], "R")],
        "S",
        "_b_each(_add, {0}, {1}, {2}, {3}, {4})",
    ),
    "Larkc.Block.amaxAll": (
        ["S", "N", ("F", ["N"], "P"), ("F", ["N"], _LOC), ("F", ["N"], "R")],
        "S",
        "_b_each(_amax, {0}, {1}, {2}, {3}, {4})",
    ),
    "Larkc.Block.pos": (["N", "N", "N"], "N", "_b_pos({0}, {1}, {2})"),
    "List.range": (["N"], "LN", "list(range({0}))"),
    "Nat.xor": (["N", "N"], "N", "({0} ^ {1})"),
    "Real.exp": (["R"], "R", "_exp({0})"),
    "Real.log": (["R"], "R", "_log({0})"),
    "Real.logb": (["R", "R"], "R", "_logb({0}, {1})"),
    "Real.sqrt": (["R"], "R", "_sqrt({0})"),
    "Real.rpow": (["R", "R"], "R", "_rpow({0}, {1})"),
    "Real.sin": (["R"], "R", "math.sin({0})"),
    "Real.cos": (["R"], "R", "math.cos({0})"),
    "Real.tan": (["R"], "R", "math.tan({0})"),
    "Real.sinh": (["R"], "R", "math.sinh({0})"),
    "Real.cosh": (["R"], "R", "math.cosh({0})"),
    "Real.tanh": (["R"], "R", "math.tanh({0})"),
    "Real.erf": (["R"], "R", "math.erf({0})"),
    "Int.floor": (["R"], "Z", "_floor({0})"),
    "launch": (["N", "N"], "THR", "_launch({0}, {1})"),
    "Larkc.launch": (["N", "N"], "THR", "_launch({0}, {1})"),
    "loopPhases": ([("F", ["N"], "LPH"), "N"], "LPH", "_loop_phases({0}, {1})"),
    "Larkc.loopPhases": ([("F", ["N"], "LPH"), "N"], "LPH", "_loop_phases({0}, {1})"),
}
_METHODS = {  # TState methods: name -> (parameter types after s, result, template with {s})
    "get": ([_LOC], "R", "_get({s}, {0})"),
    "note": ([_LOC], "S", "_note({s}, {0})"),
    "put": ([_LOC, "R"], "S", "_put({s}, {0}, {1})"),
    "add": ([_LOC, "R"], "S", "_add({s}, {0}, {1})"),
    "amax": ([_LOC, "R"], "S", "_amax({s}, {0}, {1})"),
    "check": (["P"], "S", "_check({s}, {0})"),
}
_ARITH = {"+", "-", "*", "/", "%"}
_REL = {"=", "≠", "<", "≤", ">", "≥"}


def _tshow(t: Any) -> str:
    names = {
        "N": "ℕ",
        "Z": "ℤ",
        "R": "ℝ",
        "P": "Prop",
        "S": "TState",
        "VL": "List ℝ",
        "LPH": "List Phase",
        "PH": "Phase",
        "THR": "List (ℕ × ℕ)",
        _LOC: "Loc",
        None: "?",
    }
    if isinstance(t, tuple) and t[0] == "X":
        return f"({_tshow(t[1])} × {_tshow(t[2])})"
    if isinstance(t, tuple) and t[0] == "F":
        return "(" + " → ".join(_tshow(a) for a in t[1]) + f" → {_tshow(t[2])})"
    return names.get(t, str(t))


class Compiler:
    def __init__(self, defs: dict[str, Def]) -> None:
        self.defs = defs
        self.lines: list[str] = []
        self.ind = 1
        self.fresh = 0
        self.types: dict[int, Any] = {}  # leaf types by node (each node has one environment)

    # helpers ---------------------------------------------------------------------------------------
    def name(self, base: str) -> str:
        self.fresh += 1
        return f"{re.sub(r'[^A-Za-z0-9_]', '_', base)}__{self.fresh}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.ind + line)

    def err(self, node: Node, msg: str) -> LeanEvalError:
        return LeanEvalError(f"line {node.line}: {msg}")

    def coerce(self, node: Node, code: str, t: Any, want: Any) -> str:
        """``ensureHasType``: the value as ``want``, inserting the ``ℕ → ℤ → ℝ`` coercions Lean inserts."""
        if want is None or t == want:
            return code
        if t in NUM and want in NUM and _RANK[t] < _RANK[want]:
            return f"_float({code})" if want == "R" else code
        raise self.err(node, f"type mismatch: {_tshow(t)} where {_tshow(want)} is expected")

    def scratch(self, fn: Callable[[], Any]) -> tuple[list[str], Any]:
        saved = self.lines
        self.lines = []
        try:
            r = fn()
            return self.lines, r
        finally:
            self.lines = saved

    # the arithmetic trees of binop% / binrel% ---------------------------------------------------------
    def leaves(self, node: Node, out: list[Node]) -> None:
        if node.kind == "bin" and node.args[0] in _ARITH:
            self.leaves(node.args[1], out)
            self.leaves(node.args[2], out)
        elif node.kind == "bin" and node.args[0] == "^":
            self.leaves(node.args[1], out)  # rightact%: the exponent is elaborated on its own
        elif node.kind == "neg":
            self.leaves(node.args[0], out)
        else:
            out.append(node)

    def leaf_type(self, node: Node, env: dict) -> Any:
        """The type ``node`` elaborates to without an expected type (``None``: a bare numeral)."""
        if node.kind == "num":
            return None
        key = id(node)
        if key not in self.types:
            _, (_, t) = self.scratch(lambda: self.compile(node, None, env))
            self.types[key] = t
        return self.types[key]

    def max_type(self, node: Node, leaves: list[Node], start: Any, env: dict) -> Any:
        mx = start if start in NUM else None
        for leaf in leaves:
            t = self.leaf_type(leaf, env)
            if t is None:
                continue
            if t not in NUM:
                raise self.err(leaf, f"{_tshow(t)} in arithmetic")
            if mx is None or _RANK[t] > _RANK[mx]:
                mx = t
        return mx

    def arith(self, node: Node, ty: Any, env: dict) -> str:
        """Code of an arithmetic tree all of whose operations are at type ``ty`` (leaves coerced)."""
        if node.kind == "neg":
            a = self.arith(node.args[0], ty, env)
            if ty == "N":
                raise self.err(node, "negation of a natural number")
            return f"(-{a})"
        if node.kind == "bin" and node.args[0] in _ARITH:
            op = node.args[0]
            a = self.arith(node.args[1], ty, env)
            b = self.arith(node.args[2], ty, env)
            if op in ("+", "*"):
                return f"({a} {op} {b})"
            if op == "-":
                return f"_nsub({a}, {b})" if ty == "N" else f"({a} - {b})"
            if op == "/":
                return {"N": "_ndiv", "Z": "_zdiv", "R": "_rdiv"}[ty] + f"({a}, {b})"
            if ty == "R":
                raise self.err(node, "% on reals")
            return {"N": "_nmod", "Z": "_zmod"}[ty] + f"({a}, {b})"
        if node.kind == "bin" and node.args[0] == "^":
            a = self.arith(node.args[1], ty, env)
            e, et = self.compile(node.args[2], None, env)
            if et is None:
                e, et = self.compile(node.args[2], "N", env)
            if et != "N":
                raise self.err(node, "only ℕ exponents are in the subset")
            return f"({a} ** {e})"
        code, t = self.compile(node, ty, env)
        return self.coerce(node, code, t, ty)

    # terms -------------------------------------------------------------------------------------------
    def compile(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        """Python code for ``node`` elaborated against the expected type ``want`` (``None``: unknown).
        Returns the code and the type (``None`` only for a numeral with no expected type)."""
        k = node.kind
        if k == "num":
            v = node.args[0]
            if want is None:
                return str(v), None
            if want == "R":
                return repr(float(v)), "R"
            if want in ("N", "Z"):
                return str(v), want
            raise self.err(node, f"numeral where {_tshow(want)} is expected")
        if k == "bool":
            return ("True" if node.args[0] else "False"), self.ensure(node, "P", want)
        if (k == "bin" and node.args[0] in _ARITH | {"^"}) or k == "neg":
            leaves: list[Node] = []
            self.leaves(node, leaves)
            mx = self.max_type(node, leaves, want, env)
            if mx is None:
                mx = "N"  # default instance of numerals
            if want in NUM and _RANK[mx] > _RANK[want]:
                raise self.err(node, f"type mismatch: {_tshow(mx)} arithmetic where {_tshow(want)} is expected")
            if want is not None and want not in NUM:
                raise self.err(node, f"arithmetic where {_tshow(want)} is expected")
            return self.arith(node, mx, env), mx
        if k == "bin" and node.args[0] in _REL:
            op = node.args[0]
            lhs, rhs = node.args[1], node.args[2]
            leaves = []
            self.leaves(lhs, leaves)
            self.leaves(rhs, leaves)
            nonnum = [lf for lf in leaves if self.leaf_type(lf, env) not in (None, *NUM)]
            if nonnum:
                if op not in ("=", "≠"):
                    raise self.err(node, "order relation on a non-number")
                a, ta = self.compile(lhs, None, env)
                b, _ = self.compile(rhs, ta, env)
                py = "==" if op == "=" else "!="
                return f"({a} {py} {b})", self.ensure(node, "P", want)
            mx = self.max_type(node, leaves, None, env) or "N"
            a = self.arith(lhs, mx, env)
            b = self.arith(rhs, mx, env)
            py = {"=": "==", "≠": "!=", "<": "<", "≤": "<=", ">": ">", "≥": ">="}[op]
            return f"({a} {py} {b})", self.ensure(node, "P", want)
        if k == "bin" and node.args[0] in ("∧", "∨", "↔"):
            a, _ = self.compile(node.args[1], "P", env)
            b, _ = self.compile(node.args[2], "P", env)
            py = {"∧": "and", "∨": "or", "↔": "=="}[node.args[0]]
            if py == "==":
                return f"(bool({a}) == bool({b}))", self.ensure(node, "P", want)
            return f"({a} {py} {b})", self.ensure(node, "P", want)
        if k == "not":
            a, _ = self.compile(node.args[0], "P", env)
            return f"(not {a})", self.ensure(node, "P", want)
        if k == "bin" and node.args[0] == "++":
            a, ta = self.compile(node.args[1], want, env)
            b, _ = self.compile(node.args[2], ta, env)
            if ta not in ("LPH", "VL"):
                raise self.err(node, f"++ on {_tshow(ta)}")
            return f"({a} + {b})", self.ensure(node, ta, want)
        if k == "ascr":
            inner, ty = node.args
            code, t = self.compile(inner, ty, env)
            if t is None:
                code, t = self.compile(inner, ty, env)
            code = self.coerce(node, code, t, ty)
            return self.coerce(node, code, ty, want), (ty if want is None or want == ty else want)
        if k == "var":
            return self.var(node, want, env)
        if k == "proj":
            code, t = self.compile(node.args[0], None, env)
            return self.project(node, code, t, node.args[1], want)
        if k == "app":
            return self.app(node, want, env)
        if k == "if":
            return self.ite(node, want, env)
        if k == "lets":
            return self.lets(node, want, env)
        if k == "tuple":
            items = node.args[0]
            wants: list[Any] = []
            w = want
            for i in range(len(items)):
                if i == len(items) - 1:
                    wants.append(w)
                elif isinstance(w, tuple) and w[0] == "X":
                    wants.append(w[1])
                    w = w[2]
                elif w is None:
                    wants.append(None)
                else:
                    raise self.err(node, f"tuple where {_tshow(want)} is expected")
            codes, types = [], []
            for item, wi in zip(items, wants, strict=True):
                c, t = self.compile(item, wi, env)
                if t is None:
                    c, t = self.compile(item, "N", env)
                codes.append(self.coerce(item, c, t, wi))
                types.append(wi if wi is not None else t)
            code, ty = codes[-1], types[-1]
            for c, t in zip(reversed(codes[:-1]), reversed(types[:-1]), strict=True):
                code, ty = f"({c}, {code})", ("X", t, ty)
            return code, ty
        if k == "list":
            items = node.args[0]
            elem = {"VL": "R", "LPH": "PH"}.get(want) if want is not None else None
            if want is not None and elem is None:
                raise self.err(node, f"list where {_tshow(want)} is expected")
            codes = []
            for item in items:
                c, t = self.compile(item, elem, env)
                if elem is None:
                    if t in NUM:
                        elem = "R"
                    elif t == "PH":
                        elem = "PH"
                    elif t is None:
                        elem = "R"
                        c, t = self.compile(item, "R", env)
                    else:
                        raise self.err(item, f"list of {_tshow(t)}")
                codes.append(self.coerce(item, c, t, elem))
            if elem is None:
                raise self.err(node, "empty list of unknown type")
            ty = "VL" if elem == "R" else "LPH"
            code = "(" + "".join(c + ", " for c in codes) + ")" if ty == "VL" else "[" + ", ".join(codes) + "]"
            return code, ty
        if k == "struct":
            fields = node.args[0]
            if set(fields) != {"threads", "prog"}:
                raise self.err(node, f"structure with fields {sorted(fields)}")
            th, _ = self.compile(fields["threads"], "THR", env)
            pr, _ = self.compile(fields["prog"], ("F", ["N", "N", "S"], "S"), env)
            return f"({th}, {pr})", self.ensure(node, "PH", want)
        if k == "fun":
            return self.fun(node, want, env)
        raise self.err(node, f"construct {k} outside the evaluated subset")

    def ensure(self, node: Node, t: Any, want: Any) -> Any:
        if want is not None and want != t:
            raise self.err(node, f"type mismatch: {_tshow(t)} where {_tshow(want)} is expected")
        return t

    def project(self, node: Node, code: str, t: Any, idx: int, want: Any) -> tuple[str, Any]:
        if not (isinstance(t, tuple) and t[0] == "X") or idx not in (1, 2):
            raise self.err(node, f".{idx} of {_tshow(t)}")
        ty = t[1] if idx == 1 else t[2]
        return self.coerce(node, f"{code}[{idx - 1}]", ty, want), (ty if want is None else want)

    def var(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        name: str = node.args[0]
        if name in env:
            code, t = env[name]
            return self.coerce(node, code, t, want), (t if want is None else want)
        parts = name.split(".")
        if parts[0] in env and len(parts) > 1:
            raise self.err(node, f"field {name} outside the subset (only s.get/note/put/add applied)")
        if name in self.defs or name in _FUNS:
            raise self.err(node, f"{name} not applied")
        raise self.err(node, f"unknown identifier {name}")

    def apply(self, node: Node, code: str, t: Any, args: list[Node], want: Any, env: dict) -> tuple[str, Any]:
        """``code`` (of function type ``t``) applied to ``args``."""
        if not (isinstance(t, tuple) and t[0] == "F" and len(t[1]) == len(args)):
            raise self.err(node, f"{_tshow(t)} applied to {len(args)} arguments")
        codes = [self.arg(a, pt, env) for a, pt in zip(args, t[1], strict=True)]
        return self.coerce(node, f"{code}({', '.join(codes)})", t[2], want), (t[2] if want is None else want)

    def block_app(self, node: Node, name: str, args: list[Node], want: Any, env: dict) -> tuple[str, Any]:
        """The polymorphic functions of ``Larkc.Block`` (the element type comes from the arguments or the
        expected type), ``List.foldl``, and a block applied to an index (one argument past the arity)."""
        arity = _BLOCK_POLY.get(name, 3)
        if len(args) > arity:
            code, t = self.block_app(node, name, args[:arity], None, env)
            return self.apply(node, code, t, args[arity:], want, env)
        if len(args) != arity:
            raise self.err(node, f"{name} takes {arity} arguments, given {len(args)}")
        elem = want[2] if isinstance(want, tuple) and want[0] == "F" and want[1] == ["N"] else None
        short = name.rsplit(".", 1)[-1]
        if name == "List.foldl":
            init, sigma = self.compile(args[1], want, env)
            if sigma is None:
                raise self.err(node, "foldl of unknown type")
            f = self.arg(args[0], ("F", [sigma, "N"], sigma), env)
            xs = self.arg(args[2], "LN", env)
            return f"_foldl({f}, {init}, {xs})", sigma
        if short == "splat":
            v, t = self.compile(args[0], elem, env)
            if t is None:
                v, t = self.compile(args[0], "N", env)
            return f"_b_splat({v})", ("F", ["N"], t)
        if short.startswith("map"):
            codes, elems = [], []
            for a in args[1:]:
                c, t = self.compile(a, None, env)
                if not (isinstance(t, tuple) and t[0] == "F" and t[1] == ["N"]):
                    raise self.err(a, f"{name} of {_tshow(t)}")
                codes.append(c)
                elems.append(t[2])
            f, ft = self.compile(args[0], ("F", elems, elem), env)
            return f"_b_map({f}, {', '.join(codes)})", ("F", ["N"], ft[2])
        if short in ("along", "lineAt"):
            n, inner = self.arg(args[0], "N", env), self.arg(args[1], "N", env)
            x, t = self.compile(args[2], ("F", ["N"], want) if want is not None else None, env)
            o, r = self.arg(args[3], "N", env), self.arg(args[4], "N", env)
            fn = "_b_along" if short == "along" else "_b_line_at"
            return f"{fn}({n}, {inner}, {x}, {o}, {r})", t[2]
        if short == "reindex":
            f = self.arg(args[0], ("F", ["N"], "N"), env)
            x, t = self.compile(args[1], want, env)
            return f"_b_reindex({f}, {x})", t
        n, inner = self.arg(args[0], "N", env), self.arg(args[1], "N", env)
        x, t = self.compile(args[2], want, env)
        if short == "bcast":
            return f"_b_bcast({n}, {inner}, {x})", t
        if short.startswith("reduce"):
            return f"_b_reduce({short[6:].lower()!r}, {n}, {inner}, {x})", t
        rev = short.endswith("Rev")
        op = short[4:].removesuffix("Rev").lower()
        return f"_b_scan({op!r}, {rev}, {n}, {inner}, {x})", t

    def app(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        head, args = node.args
        if head.kind == "fun":  # a lambda applied (a combine fold's element function)
            binders = head.args[0]
            code, t = self.compile(head, ("F", [bt for _, bt in binders], None), env)
            return self.apply(node, code, t, args, want, env)
        if head.kind == "app":  # a block applied to an index: ((Larkc.Block.reduceSum n 1 x) 0)
            code, t = self.compile(head, None, env)
            return self.apply(node, code, t, args, want, env)
        if head.kind != "var":
            raise self.err(node, "application of a non-constant")
        name: str = head.args[0]
        parts = name.split(".")
        if len(parts) == 2 and parts[0] in env:  # s.get L, s.put L v, ...
            s_code, s_t = env[parts[0]]
            if s_t != "S" or parts[1] not in _METHODS:
                raise self.err(node, f"{name}: only TState.get/note/put/add are in the subset")
            ptypes, rt, tpl = _METHODS[parts[1]]
            codes = self.args(node, args, ptypes, env, name)
            return self.coerce(node, tpl.format(*codes, s=s_code), rt, want), (rt if want is None else want)
        if name in ("min", "max"):
            if len(args) != 2:
                raise self.err(node, f"{name} takes 2 arguments")
            alpha = want
            if alpha is None:
                alpha = self.leaf_type(args[0], env) or self.leaf_type(args[1], env) or "N"
            if alpha not in NUM:
                raise self.err(node, f"{name} at {_tshow(alpha)}")
            a = self.arg(args[0], alpha, env)
            b = self.arg(args[1], alpha, env)
            return f"{name}({a}, {b})", alpha
        if name == "abs":
            if len(args) != 1:
                raise self.err(node, "abs takes 1 argument")
            alpha = want or self.leaf_type(args[0], env) or "N"
            return f"abs({self.arg(args[0], alpha, env)})", alpha
        if head.kind == "var" and (name in _BLOCK_POLY or name == "List.foldl"):
            return self.block_app(node, name, args, want, env)
        if name in _FUNS and isinstance(_FUNS[name][1], tuple) and len(args) > len(_FUNS[name][0]):
            # a block applied to an index: element `i` of the block the first arguments build
            k = len(_FUNS[name][0])
            inner = Node("app", [head, args[:k]], node.line)
            code, t = self.compile(inner, None, env)
            return self.apply(node, code, t, args[k:], want, env)
        if name in _FUNS:
            ptypes, rt, tpl = _FUNS[name]
            if len(args) != len(ptypes):
                raise self.err(node, f"{name} takes {len(ptypes)} arguments, given {len(args)}")
            codes = self.args(node, args, ptypes, env, name)
            return self.coerce(node, tpl.format(*codes), rt, want), (rt if want is None else want)
        if name == "Larkc.Cuda.forLoop":
            if len(args) != 5:
                raise self.err(node, "forLoop takes 5 arguments")
            start = self.arg(args[0], "Z", env)
            step = self.arg(args[1], "Z", env)
            count = self.arg(args[2], "N", env)
            init, sigma = self.compile(args[3], want, env)
            if sigma is None:
                raise self.err(node, "forLoop state of unknown type")
            body = self.arg(args[4], ("F", ["Z", sigma], sigma), env)
            return f"_for_loop({start}, {step}, {count}, {init}, {body})", sigma
        if name in self.defs:
            d = self.defs[name]
            if len(args) > len(d.binders):
                raise self.err(node, f"{name} applied to too many arguments")
            codes = self.args(node, args, [t for _, t in d.binders[: len(args)]], env, name)
            rest = [t for _, t in d.binders[len(args) :]]
            fn = f"D_{name}"
            if not rest:
                return self.coerce(node, f"{fn}({', '.join(codes)})", d.ret, want), (d.ret if want is None else want)
            ty = ("F", rest, d.ret)
            code = f"_partial({fn}, {', '.join(codes)})" if codes else fn
            return code, self.ensure(node, ty, want)
        raise self.err(node, f"unknown function {name}")

    def arg(self, node: Node, ty: Any, env: dict) -> str:
        code, t = self.compile(node, ty, env)
        return self.coerce(node, code, t, ty)

    def args(self, node: Node, args: list[Node], ptypes: list[Any], env: dict, name: str) -> list[str]:
        if len(args) != len(ptypes):
            raise self.err(node, f"{name} takes {len(ptypes)} arguments, given {len(args)}")
        return [self.arg(a, t, env) for a, t in zip(args, ptypes, strict=True)]

    def ite(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        c, a, b = node.args
        cc = self.arg(c, "P", env)
        alpha = want
        if alpha is None:
            alpha = self.leaf_type(a, env) or self.leaf_type(b, env) or "N"  # both numerals: ℕ
        la, (ca_code, _) = self.scratch(lambda: self.compile_in_block(a, alpha, env))
        lb, (cb_code, _) = self.scratch(lambda: self.compile_in_block(b, alpha, env))
        ty = alpha
        if not la and not lb:
            return f"({ca_code} if {cc} else {cb_code})", ty
        tmp = self.name("ite")
        self.emit(f"if {cc}:")
        self.lines += la
        self.emit(f"    {tmp} = {ca_code}")
        self.emit("else:")
        self.lines += lb
        self.emit(f"    {tmp} = {cb_code}")
        return tmp, ty

    def compile_in_block(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        self.ind += 1
        try:
            code, t = self.compile(node, want, env)
            if t is None:
                raise self.err(node, "numeral of unknown type")
            return self.coerce(node, code, t, want), (t if want is None else want)
        finally:
            self.ind -= 1

    def lets(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        decls, body = node.args
        env = dict(env)
        for name, ty, value, line in decls:
            code, t = self.compile(value, ty, env)
            if t is None:
                code, t = self.compile(value, ty or "N", env)
            if ty is not None:
                code, t = self.coerce(value, code, t, ty), ty
            py = self.name(name)
            self.emit(f"{py} = {code}  # line {line}")
            env[name] = (py, t)
        return self.compile(body, want, env)

    def fun(self, node: Node, want: Any, env: dict) -> tuple[str, Any]:
        binders, body = node.args
        if not (isinstance(want, tuple) and want[0] == "F"):
            raise self.err(node, f"fun where {_tshow(want)} is expected")
        ptypes, rt = want[1], want[2]
        if [t for _, t in binders] != list(ptypes):
            raise self.err(
                node, f"fun binders {[_tshow(t) for _, t in binders]} where {[_tshow(t) for t in ptypes]} are expected"
            )
        env = dict(env)
        pys = []
        for x, t in binders:
            py = self.name(x)
            env[x] = (py, t)
            pys.append(py)
        fn = self.name("fun")
        self.emit(f"def {fn}({', '.join(pys)}):")
        code, t = self.compile_in_block(body, rt, env)
        self.emit(f"    return {code}")
        return fn, ("F", ptypes, rt if rt is not None else t)

    def definition(self, d: Def) -> str:
        env = {}
        pys = []
        for x, t in d.binders:
            py = self.name(x)
            env[x] = (py, t)
            pys.append(py)
        self.lines = []
        self.ind = 1
        code, t = self.compile(d.body, d.ret, env)
        code = self.coerce(d.body, code, t, d.ret)
        head = f"def D_{d.name}({', '.join(pys)}):"
        return "\n".join([head, *self.lines, f"    return {code}"])


#: The polymorphic functions of ``Larkc.Block`` and their arities (see ``Compiler.block_app``).
_BLOCK_POLY = {
    **{f"Larkc.Block.{f}": 1 for f in ("splat",)},
    "Larkc.Block.map": 2,
    "Larkc.Block.map2": 3,
    "Larkc.Block.map3": 4,
    "Larkc.Block.bcast": 3,
    "Larkc.Block.reindex": 2,
    "Larkc.Block.along": 5,
    "Larkc.Block.lineAt": 5,
    **{f"Larkc.Block.reduce{op}": 3 for op in ("Sum", "Prod", "Max", "Min")},
    **{f"Larkc.Block.scan{op}{rev}": 3 for op in ("Sum", "Prod", "Max", "Min") for rev in ("", "Rev")},
}


def _partial(fn: Callable, *first: Any) -> Callable:
    return lambda *rest: fn(*first, *rest)


_RUNTIME["_partial"] = _partial


def compile_kernel(text: str) -> tuple[dict[str, Def], dict[str, Callable], str]:
    """The definitions of a Kernel.lean text, compiled to Python (and the Python source, for debugging)."""
    defs = parse_kernel(text)
    comp = Compiler(defs)
    sources = [comp.definition(d) for d in defs.values()]
    src = "\n\n".join(sources) + "\n"
    ns: dict[str, Any] = dict(_RUNTIME)
    exec(compile(src, "<kernel.lean>", "exec"), ns)
    return defs, {name: ns[f"D_{name}"] for name in defs}, src


# --------------------------------------------------------------------------------------------------
# running


@dataclass
class Report:
    """What a run saw besides the final memory."""

    phases: int = 0
    races: list[tuple[int, tuple, str]] = field(default_factory=list)  # (phase, location, kind)
    nat_truncations: int = 0
    out_of_bounds: list[tuple[int, tuple, str]] = field(default_factory=list)  # (phase, location, access)
    assert_failures: list[tuple[int, tuple]] = field(default_factory=list)  # (phase, thread): `ok` false
    source: str = ""


def run_kernel_report(
    kernel_lean: str,
    shapes: Mapping[str, int],
    memory: Mapping[tuple, float],
    ninf: float | None = None,
    races: bool = True,
    max_races: int = 20,
    glob_sizes: Mapping[int, int] | None = None,
) -> tuple[dict[tuple, float], Report]:
    """``runAll (kernelPhases shapes… [ninf]) memory``, and a :class:`Report`.

    ``glob_sizes`` (element counts of the global buffers) makes the report list the global locations
    outside them that a thread reads, writes or updates (``Phase.InBounds`` for global buffers)."""
    defs, fns, src = compile_kernel(kernel_lean)
    if "kernelPhases" not in defs:
        raise LeanEvalError("no kernelPhases definition")
    kp = defs["kernelPhases"]
    args: list[Any] = []
    for x, t in kp.binders:
        if t == "N":
            if x not in shapes:
                raise LeanEvalError(f"no value for the shape symbol {x}")
            args.append(int(shapes[x]))
        elif t == "R" and x == "ninf":
            if ninf is None:
                raise LeanEvalError("the kernel takes ninf: pass a value below every input")
            args.append(float(ninf))
        else:
            raise LeanEvalError(f"kernelPhases binder {x} : {_tshow(t)} outside the subset")
    if ninf is not None and not any(x == "ninf" for x, _ in kp.binders):
        raise LeanEvalError("ninf given, but the kernel has no sentinel")
    _Counters.nat_truncations = 0
    phases = fns["kernelPhases"](*args)
    mem: dict[tuple, float] = dict(memory)
    rep = Report(phases=len(phases), source=src)
    for k, (threads, prog) in enumerate(phases):
        if len(set(threads)) != len(threads):
            rep.races.append((k, (), "a thread listed twice"))
        writes: dict[tuple, float] = {}
        writer: dict[tuple, tuple] = {}
        adds: dict[tuple, float] = {}
        maxes: dict[tuple, float] = {}
        readers: dict[tuple, tuple] = {}  # a reader of each location, and whether it has a second
        atom_by: dict[tuple, tuple] = {}
        for bt in threads:
            b, t = bt
            s = prog(b, t, TS(_Thread(mem), 0))
            if type(s) is not TS:
                raise LeanEvalError(f"phase {k} returned {type(s).__name__}, not a TState")
            wrote: dict[tuple, float] = {}
            mine_atom: set = set()
            mine_read: set = set()
            for e in s.entries():
                if e[0] == "c":
                    if not e[2] and len(rep.assert_failures) < max_races:
                        rep.assert_failures.append((k, bt))
                    continue
                if glob_sizes is not None and e[1][0] == "glob":
                    loc = e[1]
                    if not (0 <= loc[2] < glob_sizes.get(loc[1], 0)) and len(rep.out_of_bounds) < max_races:
                        rep.out_of_bounds.append(
                            (k, loc, {"w": "write", "r": "read", "a": "atomic", "m": "atomic"}[e[0]])
                        )
                if e[0] == "w":
                    wrote[e[1]] = e[2]
                elif e[0] == "a":
                    adds[e[1]] = adds.get(e[1], 0.0) + e[2]
                    mine_atom.add(e[1])
                elif e[0] == "m":  # TState.amax: offered to the phase's atomic maximum at the location
                    maxes[e[1]] = max(maxes[e[1]], e[2]) if e[1] in maxes else e[2]
                    mine_atom.add(e[1])
                else:
                    mine_read.add(e[1])
            for loc, v in wrote.items():
                if loc in writer:
                    if races and len(rep.races) < max_races:
                        rep.races.append((k, loc, f"written by {writer[loc]} and {bt}"))
                else:
                    writer[loc] = bt
                    writes[loc] = v  # the thread's final view at loc: its last write there
            if races:
                for loc in mine_read:
                    r = readers.get(loc)
                    if r is None:
                        readers[loc] = (bt, None)
                    elif r[1] is None and r[0] != bt:
                        readers[loc] = (r[0], bt)
                for loc in mine_atom:
                    r = atom_by.get(loc)
                    if r is None:
                        atom_by[loc] = (bt, None)
                    elif r[1] is None and r[0] != bt:
                        atom_by[loc] = (r[0], bt)
        if races:
            for loc, w in writer.items():
                for table, what in ((readers, "read"), (atom_by, "updated atomically")):
                    r = table.get(loc)
                    if r is not None and (r[0] != w or r[1] is not None) and len(rep.races) < max_races:
                        other = r[0] if r[0] != w else r[1]
                        rep.races.append((k, loc, f"written by {w} and {what} by {other}"))
            for loc, a in atom_by.items():
                r = readers.get(loc)
                conflict = r is not None and (r[0] != a[0] or r[1] is not None or a[1] is not None)
                if conflict and len(rep.races) < max_races:
                    rep.races.append((k, loc, "updated atomically and read by another thread"))
        mem.update(writes)
        for loc, v in adds.items():
            mem[loc] = mem.get(loc, 0.0) + v
        for loc, v in maxes.items():  # Phase.run: maxAt applied after the writes and additions
            mem[loc] = max(mem.get(loc, 0.0), v)
    rep.nat_truncations = _Counters.nat_truncations
    return mem, rep


def run_kernel(
    kernel_lean: str, shapes: dict[str, int], memory: dict[tuple, float], ninf: float | None = None
) -> dict[tuple, float]:
    """``runAll (kernelPhases shapes… [ninf]) memory``: the final memory (absent locations read 0)."""
    mem, _ = run_kernel_report(kernel_lean, shapes, memory, ninf, races=False)
    return mem


_ = Fraction  # exact literals are folded by float division of numerals (correctly rounded)
