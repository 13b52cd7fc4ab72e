"""An evaluator for the Lean subset of larkc's spec side: ``lean/Larkc/Tensor.lean``,
``lean/Larkc/Torch.lean`` and the generated ``<Module>/Spec.lean`` files.

No Lean toolchain is needed: the text is tokenised, parsed with Lean's precedences (a Pratt parser;
a token at column 0 ends every term, as the next command starts there), elaborated with the typing
rules of Lean that change a value, and compiled to Python functions:

* numerals take the type they are elaborated at; arithmetic trees (``+ - * / %``, prefix ``-``, and
  the base of ``^``) are elaborated as Lean's ``binop%`` elaborator does: the leaves are elaborated
  alone, the operation type is the largest of their types (``ℕ < ℤ < ℝ``) and of the expected type,
  smaller leaves are coerced; relations (``binrel%``) likewise, without an expected type; numerals
  alone default to ``ℕ``; an application argument of a smaller numeric type is coerced up;
* ``ℕ`` subtraction truncates at 0, ``ℕ`` ``/`` and ``%`` floor (``n / 0 = 0``, ``n % 0 = n``);
  ``ℤ`` ``/`` and ``%`` are Euclidean; ``ℝ`` is float64 with Mathlib's junk values (``x / 0 = 0``,
  ``Real.sqrt`` of a negative is 0, ``Real.log 0 = 0``, ``Real.log x = Real.log |x|``, ``Real.rpow``
  of a negative base, ``0 ^ n = 0`` for a negative ``ℤ`` exponent), ``Nat.floor`` of a negative is 0;
* ``∑ k ∈ Finset.range n, f k`` (body at precedence 67, as Mathlib's notation) sums exactly
  (``math.fsum``) in ``ℝ``;
* definitions by pattern matching (``| 0 => … | n + 1 => …``, ``[]``, ``x :: xs``, pairs, ``_``) take
  the first alternative that matches, as the equation compiler does;
* names resolve as Lean resolves them: locals, then the current namespace and its parents, then the
  ``open`` namespaces; a definition sees only those declared before it (and itself).

Lists are Python tuples, ``Prop`` and ``Bool`` Python bools, ``ℕ``/``ℤ`` Python ints, ``ℝ`` floats,
functions one-argument Python callables (curried). Anything outside the subset (an unknown name, a
construct, a type error, no matching alternative) raises :class:`SpecEvalError`; nothing is skipped.

Entry points: :func:`library` (Tensor.lean and Torch.lean), :func:`load_spec` (those and one
Spec.lean), :meth:`Program.call`, :func:`input_tensor` (a flat buffer read as ``ofFlat``),
:func:`evaluate_output` (every entry of a spec output).
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "Program",
    "SpecEvalError",
    "evaluate_output",
    "input_tensor",
    "library",
    "load_spec",
]

LEAN_DIR = Path(__file__).resolve().parents[2] / "lean" / "Larkc"


class SpecEvalError(Exception):
    """A construct outside the evaluated subset, a type error, or a run-time failure."""


# --------------------------------------------------------------------------------------------------
# tokens


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # num, id, sym, kw, eof
    text: str
    line: int
    col: int


_KEYWORDS = {
    "def", "abbrev", "theorem", "lemma", "namespace", "end", "open", "noncomputable", "section",
    "import", "set_option", "fun", "let", "if", "then", "else", "match", "with", "True", "False",
    "true", "false", "Prop", "instance", "example", "structure", "inductive", "variable", "where",
    "macro", "notation", "syntax", "attribute", "private", "protected", "partial", "mutual",
}  # fmt: skip
_SYMS = sorted(
    [
        ":=", "=>", "::", "++", "||", "&&", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",",
        ":", ";", "|", "+", "-", "*", "/", "%", "^", "=", "≠", "<", "≤", ">", "≥", "↔", "∧", "∨", "¬",
        "×", "ℕ", "ℤ", "ℝ", "→", "∑", "∈", "↑", "⟨", "⟩", "·", "@", "$", "<|", "|>", "←", "⁻¹",
    ],
    key=len,
    reverse=True,
)  # fmt: skip
_ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*")
_NUM_RE = re.compile(r"[0-9]+")


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    i, line, col, n = 0, 1, 0, len(text)

    def adv(k: int) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if text[i] == "\n":
                line, col = line + 1, 0
            else:
                col += 1
            i += 1

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            adv(1)
        elif text.startswith("--", i):
            while i < n and text[i] != "\n":
                adv(1)
        elif text.startswith("/-", i):
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
                raise SpecEvalError(f"line {line}: unterminated comment")
        elif c.isdigit():
            m = _NUM_RE.match(text, i)
            assert m
            if m.end() < n and text[m.end()] in ".eE" and m.end() + 1 < n and text[m.end() + 1].isdigit():
                raise SpecEvalError(f"line {line}: decimal literals are outside the evaluated subset")
            toks.append(Tok("num", m.group(), line, col))
            adv(m.end() - i)
        elif (c.isascii() and c.isalpha()) or c == "_":
            m = _ID_RE.match(text, i)
            assert m
            word = m.group()
            toks.append(Tok("kw" if word in _KEYWORDS else "id", word, line, col))
            adv(len(word))
        else:
            for s in _SYMS:
                if text.startswith(s, i):
                    toks.append(Tok("sym", s, line, col))
                    adv(len(s))
                    break
            else:
                raise SpecEvalError(f"line {line}:{col}: unexpected character {c!r}")
    toks.append(Tok("eof", "", line + 1, 0))
    return toks


# --------------------------------------------------------------------------------------------------
# syntax


@dataclass(slots=True)
class Node:
    # num, var, app, bin, neg, not, ascr, if, list, tuple, fun, let, sum, prop, bool
    kind: str
    args: list[Any] = field(default_factory=list)
    line: int = 0


# Types: "N", "Z", "R", "B" (Bool), "P" (Prop), ("L", T), ("X", A, B), ("F", A, B).
Type = Any
TENSOR: Type = ("F", ("L", "N"), "R")

# trailing operators: symbol -> (precedence, precedence of the right operand)
_INFIX = {
    "∨": (30, 30),
    "||": (30, 31),
    "∧": (35, 35),
    "&&": (35, 36),
    "↔": (20, 21),
    "=": (50, 51),
    "≠": (50, 51),
    "!=": (50, 51),
    "==": (50, 51),
    "<": (50, 51),
    "≤": (50, 51),
    "<=": (50, 51),
    ">": (50, 51),
    "≥": (50, 51),
    ">=": (50, 51),
    "++": (65, 66),
    "+": (65, 66),
    "-": (65, 66),
    "::": (67, 67),
    "*": (70, 71),
    "/": (70, 71),
    "%": (70, 71),
    "^": (75, 75),
}
_NORM = {"<=": "≤", ">=": "≥", "!=": "≠"}
_ARITH = {"+", "-", "*", "/", "%"}
_REL = {"=", "≠", "<", "≤", ">", "≥", "=="}


class Parser:
    def __init__(self, toks: list[Tok], aliases: Callable[[str], Type | None]) -> None:
        self.toks = toks
        self.i = 0
        self.alias = aliases

    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def err(self, msg: str) -> SpecEvalError:
        t = self.tok
        return SpecEvalError(f"line {t.line}:{t.col}: {msg} (at {t.text!r})")

    def eat(self, kind: str, text: str | None = None) -> Tok:
        t = self.tok
        if t.kind != kind or (text is not None and t.text != text):
            raise self.err(f"expected {text or kind}")
        self.i += 1
        return t

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("sym", "kw") and not self.stop()

    def stop(self) -> bool:
        return self.tok.kind == "eof" or self.tok.col == 0

    # types -------------------------------------------------------------------------------------------
    def typ(self) -> Type:
        left = self.typ_prod()
        if self.at("→"):
            self.i += 1
            return ("F", left, self.typ())
        return left

    def typ_prod(self) -> Type:
        left = self.typ_app()
        if self.at("×"):
            self.i += 1
            return ("X", left, self.typ_prod())
        return left

    def typ_app(self) -> Type:
        t = self.tok
        if t.kind == "id" and t.text == "List":
            self.i += 1
            return ("L", self.typ_atom())
        return self.typ_atom()

    def typ_atom(self) -> Type:
        t = self.tok
        if self.stop():
            raise self.err("expected a type")
        if t.text in ("ℕ", "ℤ", "ℝ") and t.kind == "sym":
            self.i += 1
            return {"ℕ": "N", "ℤ": "Z", "ℝ": "R"}[t.text]
        if t.kind == "kw" and t.text == "Prop":
            self.i += 1
            return "P"
        if t.kind == "id" and t.text in ("Bool", "Nat", "Int", "Real"):
            self.i += 1
            return {"Bool": "B", "Nat": "N", "Int": "Z", "Real": "R"}[t.text]
        if t.kind == "id":
            ty = self.alias(t.text)
            if ty is None:
                raise self.err(f"unknown type {t.text}")
            self.i += 1
            return ty
        if t.kind == "sym" and t.text == "(":
            self.i += 1
            ty = self.typ()
            self.eat("sym", ")")
            return ty
        raise self.err("expected a type")

    # terms -------------------------------------------------------------------------------------------
    def term(self, minprec: int = 0) -> Node:
        left = self.leading()
        while True:
            t = self.tok
            if self.stop() or t.kind != "sym" or t.text not in _INFIX:
                break
            prec, rprec = _INFIX[t.text]
            if prec < minprec:
                break
            self.i += 1
            rhs = self.term(rprec)
            left = Node("bin", [_NORM.get(t.text, t.text), left, rhs], t.line)
        return left

    def leading(self) -> Node:
        t = self.tok
        if self.stop():
            raise self.err("unexpected end of term")
        if t.kind == "kw" and t.text == "let":
            self.i += 1
            name = self.eat("id").text
            ty = None
            if self.at(":"):
                self.i += 1
                ty = self.typ()
            self.eat("sym", ":=")
            value = self.term()
            if self.at(";"):
                self.i += 1
            return Node("let", [name, ty, value, self.term()], t.line)
        if t.kind == "kw" and t.text == "if":
            self.i += 1
            c = self.term()
            self.eat("kw", "then")
            a = self.term()
            self.eat("kw", "else")
            return Node("if", [c, a, self.term()], t.line)
        if t.kind == "kw" and t.text == "fun":
            self.i += 1
            binders: list[tuple[str, Type | None]] = []
            while not self.at("=>"):
                if self.at("("):
                    self.i += 1
                    names = []
                    while self.tok.kind == "id":
                        names.append(self.eat("id").text)
                    self.eat("sym", ":")
                    ty = self.typ()
                    self.eat("sym", ")")
                    binders += [(x, ty) for x in names]
                elif self.tok.kind == "id" and "." not in self.tok.text:
                    binders.append((self.eat("id").text, None))
                else:
                    raise self.err("a fun binder outside the subset")
            if not binders:
                raise self.err("fun without binders")
            self.eat("sym", "=>")
            return Node("fun", [binders, self.term()], t.line)
        if t.kind == "kw" and t.text == "match":
            raise self.err("match expressions are outside the evaluated subset")
        if t.kind == "sym" and t.text == "∑":
            self.i += 1
            var = self.eat("id").text
            self.eat("sym", "∈")
            fin = self.term()
            if not (
                fin.kind == "app" and fin.args[0].kind == "var" and fin.args[0].args[0] == "Finset.range"
                and len(fin.args[1]) == 1
            ):  # fmt: skip
                raise SpecEvalError(f"line {t.line}: ∑ over a Finset other than Finset.range n")
            self.eat("sym", ",")
            body = self.term(67)
            return Node("sum", [var, fin.args[1][0], body], t.line)
        if t.kind == "sym" and t.text == "-":
            self.i += 1
            return Node("neg", [self.term(75)], t.line)
        if t.kind == "sym" and t.text == "¬":
            self.i += 1
            return Node("not", [self.term(40)], t.line)
        return self.application()

    def starts_arg(self) -> bool:
        t = self.tok
        if self.stop():
            return False
        if t.kind in ("num", "id"):
            return True
        if t.kind == "kw" and t.text in ("True", "False", "true", "false"):
            return True
        return t.kind == "sym" and t.text in ("(", "[")

    def application(self) -> Node:
        head = self.atom()
        args: list[Node] = []
        while self.starts_arg():
            args.append(self.atom())
        return Node("app", [head, args], head.line) if args else head

    def atom(self) -> Node:
        t = self.tok
        if t.kind == "num":
            self.i += 1
            return Node("num", [int(t.text)], t.line)
        if t.kind == "kw" and t.text in ("True", "False"):
            self.i += 1
            return Node("prop", [t.text == "True"], t.line)
        if t.kind == "kw" and t.text in ("true", "false"):
            self.i += 1
            return Node("bool", [t.text == "true"], t.line)
        if t.kind == "id":
            self.i += 1
            return Node("var", [t.text], t.line)
        if t.kind == "sym" and t.text == "(":
            self.i += 1
            inner = self.term()
            if self.at(":"):
                self.i += 1
                ty = self.typ()
                self.eat("sym", ")")
                return Node("ascr", [inner, ty], t.line)
            if self.at(","):
                items = [inner]
                while self.at(","):
                    self.i += 1
                    items.append(self.term())
                self.eat("sym", ")")
                node = items[-1]
                for item in reversed(items[:-1]):  # (a, b, c) is (a, (b, c))
                    node = Node("tuple", [item, node], t.line)
                return node
            self.eat("sym", ")")
            return inner
        if t.kind == "sym" and t.text == "[":
            self.i += 1
            items = []
            if not self.at("]"):
                items.append(self.term())
                while self.at(","):
                    self.i += 1
                    items.append(self.term())
            self.eat("sym", "]")
            return Node("list", [items], t.line)
        raise self.err("unexpected token")


# --------------------------------------------------------------------------------------------------
# run-time support


def _nsub(a: int, b: int) -> int:
    return a - b if a > b else 0


def _ndiv(a: int, b: int) -> int:
    return 0 if b == 0 else a // b


def _nmod(a: int, b: int) -> int:
    return a if b == 0 else a % b


def _zdiv(a: int, b: int) -> int:  # Int.ediv
    if b == 0:
        return 0
    q = a // abs(b)
    return q if b > 0 else -q


def _zmod(a: int, b: int) -> int:  # Int.emod
    return a - b * _zdiv(a, b)


def _rdiv(a: float, b: float) -> float:
    return 0.0 if b == 0 else a / b


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x > 0 else 0.0


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x: float) -> float:
    return 0.0 if x == 0 else math.log(abs(x))


def _rpow(x: float, y: float) -> float:
    if x == 0:
        return 1.0 if y == 0 else 0.0
    if x < 0:
        return _exp(_log(x) * y) * math.cos(y * math.pi)
    try:
        return x**y
    except OverflowError:
        return math.inf


def _npow(x: Any, n: int) -> Any:
    try:
        return x**n
    except OverflowError:
        return math.inf if x > 0 or n % 2 == 0 else -math.inf


def _zpow(x: Any, n: int) -> Any:
    if n >= 0:
        return _npow(x, n)
    p = _npow(x, -n)
    return 0.0 if p == 0 else 1.0 / p


def _natfloor(x: float) -> int:
    if math.isnan(x) or math.isinf(x):
        raise SpecEvalError(f"Nat.floor of {x} (float64 overflow: ℝ has no such value)")
    return max(0, math.floor(x))


def _intfloor(x: float) -> int:
    if math.isnan(x) or math.isinf(x):
        raise SpecEvalError(f"Int.floor of {x} (float64 overflow: ℝ has no such value)")
    return math.floor(x)


def _fsum(n: int, f: Callable[[int], float]) -> float:
    return math.fsum(f(k) for k in range(n))


def _isum(n: int, f: Callable[[int], int]) -> int:
    return sum(f(k) for k in range(n))


def _curry(fn: Callable, first: tuple, rest: int) -> Callable:
    if rest == 1:
        return lambda a: fn(*first, a)
    return lambda a: _curry(fn, (*first, a), rest - 1)


def _memo_tensor(fn: Callable) -> Callable:
    """``fn`` (a def returning a tensor) with its results shared per arguments, and each result's entries
    computed once: Lean terms are pure, so this changes no value, only the cost."""
    results: dict[tuple, Callable] = {}

    def wrapper(*args: Any) -> Callable:
        t = results.get(args)
        if t is None:
            inner = fn(*args)
            entries: dict[tuple, float] = {}

            def t(idx: tuple) -> float:
                v = entries.get(idx)
                if v is None:
                    v = entries[idx] = inner(idx)
                return v

            results[args] = t
        return t

    return wrapper


def _memo_calls(fn: Callable, table: dict) -> Callable:
    """``fn`` with its results shared per arguments (functions compare by identity): for recursive
    definitions that evaluate a recursive call twice (``rangeArgMax``), which is exponential otherwise."""

    def wrapper(*args: Any) -> Any:
        v = table.get(args, _MISSING)
        if v is _MISSING:
            v = table[args] = fn(*args)
        return v

    return wrapper


_MISSING = object()


def _nomatch(name: str, args: tuple) -> Any:
    raise SpecEvalError(f"{name}: no alternative matches the arguments {args!r}")


_RUNTIME: dict[str, Any] = {
    name: obj for name, obj in dict(globals()).items() if name.startswith("_") and callable(obj) and name != "_curry"
}
_RUNTIME.update({"_curry": _curry, "math": math, "SpecEvalError": SpecEvalError})

# --------------------------------------------------------------------------------------------------
# elaboration

NUM = ("N", "Z", "R")
_RANK = {"N": 0, "Z": 1, "R": 2}

# global functions: name -> (parameter types, result type, python template)
_BUILTINS: dict[str, tuple[list[Type], Type, str]] = {
    "Real.exp": (["R"], "R", "_exp({0})"),
    "Real.log": (["R"], "R", "_log({0})"),
    "Real.sqrt": (["R"], "R", "_sqrt({0})"),
    "Real.rpow": (["R", "R"], "R", "_rpow({0}, {1})"),
    "Real.sin": (["R"], "R", "math.sin({0})"),
    "Real.cos": (["R"], "R", "math.cos({0})"),
    "Real.tanh": (["R"], "R", "math.tanh({0})"),
    "Real.erf": (["R"], "R", "math.erf({0})"),
    "Nat.floor": (["R"], "N", "_natfloor({0})"),
    "Int.floor": (["R"], "Z", "_intfloor({0})"),
    "decide": (["P"], "B", "({0})"),
}
_CONSTANTS: dict[str, tuple[Type, str]] = {"Real.pi": ("R", "math.pi")}


def tshow(t: Type) -> str:
    if t is None:
        return "?"
    if isinstance(t, str):
        return {"N": "ℕ", "Z": "ℤ", "R": "ℝ", "B": "Bool", "P": "Prop"}[t]
    if t[0] == "L":
        return f"List {tshow(t[1])}" if isinstance(t[1], str) else f"List ({tshow(t[1])})"
    if t[0] == "X":
        return f"({tshow(t[1])} × {tshow(t[2])})"
    return f"({tshow(t[1])} → {tshow(t[2])})"


def _fun_type(params: Sequence[Type], ret: Type) -> Type:
    t = ret
    for p in reversed(params):
        t = ("F", p, t)
    return t


@dataclass(slots=True)
class Def:
    name: str  # full name
    params: list[tuple[str, Type]]  # binders, then the matched arguments (named "_m<k>")
    ret: Type
    body: Node | None  # a plain definition
    alts: list[tuple[list[Node], Node]] | None  # a definition by pattern matching
    line: int
    py: str = ""  # the Python function's name
    memo: bool = False


@dataclass(slots=True)
class Scope:
    kind: str  # "namespace" or "section"
    name: str  # the namespace component(s) this scope adds ("" for a section)
    opens: list[str] = field(default_factory=list)


class Program:
    """Lean files, parsed, elaborated and compiled; :meth:`call` runs a definition."""

    def __init__(self, texts: Sequence[tuple[str, str]], memo_prefixes: Sequence[str] = ()) -> None:
        self.defs: dict[str, Def] = {}
        self.aliases: dict[str, Type] = {}
        self.sources: list[str] = []
        self.ns: dict[str, Any] = dict(_RUNTIME)
        self.fresh = 0
        self.types: dict[int, tuple[Node, Type]] = {}
        self.memo_prefixes = tuple(memo_prefixes)
        self.call_tables: list[dict] = []  # the tables of _memo_calls, emptied by clear()
        for label, text in texts:
            self._load(label, text)

    # names ---------------------------------------------------------------------------------------------
    def _namespace(self) -> str:
        return ".".join(s.name for s in self.scopes if s.name)

    def _candidates(self, name: str) -> list[str]:
        ns = self._namespace().split(".") if self._namespace() else []
        out = [".".join([*ns[:k], name]) for k in range(len(ns), -1, -1)]
        for s in self.scopes:
            out += [f"{o}.{name}" for o in s.opens]
        return out

    def resolve(self, name: str) -> str | None:
        """Lean's ``resolveGlobalName``: the matches in every enclosing namespace (innermost first);
        failing those, the name itself at the root and in the ``open`` namespaces. Several matches are
        an ambiguity, which Lean would try to resolve by elaborating each; raised here."""
        if name.startswith("_root_."):
            name = name[len("_root_.") :]
            return name if name in self.defs else None
        ns = self._namespace().split(".") if self._namespace() else []
        found = [f for f in (".".join([*ns[:k], name]) for k in range(len(ns), 0, -1)) if f in self.defs]
        if not found:
            found = [name] if name in self.defs else []
            for s in self.scopes:
                found += [f"{o}.{name}" for o in s.opens if f"{o}.{name}" in self.defs]
        found = list(dict.fromkeys(found))
        if len(found) > 1:
            raise SpecEvalError(f"ambiguous name {name}: {found}")
        return found[0] if found else None

    def _alias(self, name: str) -> Type | None:
        for full in self._candidates(name):
            if full in self.aliases:
                return self.aliases[full]
        return None

    def pyname(self, base: str) -> str:
        self.fresh += 1
        return f"v_{re.sub(r'[^A-Za-z0-9_]', '_', base)}_{self.fresh}"

    # commands ------------------------------------------------------------------------------------------
    def _load(self, label: str, text: str) -> None:
        self.label = label
        self.scopes: list[Scope] = [Scope("section", "")]  # the file's own scope
        p = Parser(tokenize(text), self._alias)
        while p.tok.kind != "eof":
            t = p.tok
            if t.col != 0:
                raise p.err("expected a command at column 0")
            word = t.text
            if word == "import":
                p.i += 1
                p.eat("id")
            elif word == "noncomputable" and p.toks[p.i + 1].text == "section":
                p.i += 2
                self.scopes.append(Scope("section", ""))
                if p.tok.kind == "id" and not p.stop():
                    raise p.err("named sections are outside the subset")
            elif word == "section":
                p.i += 1
                self.scopes.append(Scope("section", ""))
            elif word == "namespace":
                p.i += 1
                self.scopes.append(Scope("namespace", p.eat("id").text))
            elif word == "end":
                p.i += 1
                name = p.eat("id").text if p.tok.kind == "id" and not p.stop() else ""
                if len(self.scopes) < 2 or self.scopes[-1].name != name:
                    raise SpecEvalError(f"{label}:{t.line}: `end {name}` does not close the innermost scope")
                self.scopes.pop()
            elif word == "open":
                p.i += 1
                if p.tok.kind == "id" and p.tok.text == "scoped" and not p.stop():
                    p.i += 1  # `open scoped X`: notations and instances only, no names
                    while not p.stop():
                        p.i += 1
                    continue
                target = self.scopes[-1].opens
                while not p.stop():
                    name = p.eat("id").text
                    full = self._resolve_namespace(name)
                    target.append(full)
            elif word == "abbrev":
                p.i += 1
                name = p.eat("id").text
                p.eat("sym", ":=")
                ty = p.typ()
                if not p.stop():
                    raise p.err("only type abbreviations are in the subset")
                self.aliases[self._full(name)] = ty
            elif word == "def":
                self._def(p)
            elif word in ("theorem", "lemma", "example", "set_option"):
                p.i += 1  # no definitions: skipped to the next command
                while not p.stop():
                    p.i += 1
            else:
                raise p.err(f"the command {word!r} is outside the evaluated subset")
        # scopes still open at the end of a file close there (Lean 4 accepts this)

    def _resolve_namespace(self, name: str) -> str:
        for full in self._candidates(name):
            if any(d == full or d.startswith(full + ".") for d in [*self.defs, *self.aliases]):
                return full
        return name  # a namespace with no definitions yet (e.g. opened before use)

    def _full(self, name: str) -> str:
        ns = self._namespace()
        return f"{ns}.{name}" if ns else name

    def _def(self, p: Parser) -> None:
        t = p.eat("kw", "def")
        name = self._full(p.eat("id").text)
        params: list[tuple[str, Type]] = []
        while p.at("("):
            p.i += 1
            names = []
            while p.tok.kind == "id":
                names.append(p.eat("id").text)
            p.eat("sym", ":")
            ty = p.typ()
            p.eat("sym", ")")
            params += [(x, ty) for x in names]
        if p.at("{") or p.at("["):
            raise p.err("implicit and instance binders are outside the subset")
        p.eat("sym", ":")
        ret = p.typ()
        if name in self.defs:
            raise SpecEvalError(f"{self.label}:{t.line}: {name} defined twice")
        if p.at(":="):
            p.i += 1
            body = p.term()
            d = Def(name, params, ret, body, None, t.line)
        else:
            alts: list[tuple[list[Node], Node]] = []
            while p.at("|"):
                p.i += 1
                pats = [p.term()]
                while p.at(","):
                    p.i += 1
                    pats.append(p.term())
                p.eat("sym", "=>")
                alts.append((pats, p.term()))
            if not alts:
                raise p.err("expected := or | alternatives")
            arity = len(alts[0][0])
            if any(len(ps) != arity for ps, _ in alts):
                raise SpecEvalError(f"{self.label}:{t.line}: {name}: alternatives with different numbers of patterns")
            for k in range(arity):
                if not (isinstance(ret, tuple) and ret[0] == "F"):
                    raise SpecEvalError(f"{self.label}:{t.line}: {name}: more patterns than arrows in its type")
                params.append((f"_m{k}", ret[1]))
                ret = ret[2]
            d = Def(name, params, ret, None, alts, t.line)
        if not p.stop():
            raise p.err("trailing tokens after the definition")
        d.py = self.pyname("D_" + name)
        d.memo = (
            any(name.startswith(pre) for pre in self.memo_prefixes)
            and ret == TENSOR
            and all(ty in ("N", TENSOR) for _, ty in params)
        )
        self.defs[name] = d  # visible in its own body (structural recursion)
        try:
            src = self._compile_def(d)
        except SpecEvalError as e:
            raise SpecEvalError(f"{self.label}:{d.line}: in {name}: {e}") from None
        self.sources.append(src)
        exec(compile(src, f"<{self.label}:{name}>", "exec"), self.ns)
        if d.memo:
            self.ns[d.py] = _memo_tensor(self.ns[d.py])
        elif d.alts is not None and d.ret in NUM:
            table: dict = {}
            self.call_tables.append(table)
            self.ns[d.py] = _memo_calls(self.ns[d.py], table)

    def clear(self) -> None:
        """Forget the shared results of recursive definitions (they keep their arguments alive)."""
        for table in self.call_tables:
            table.clear()

    # definitions ---------------------------------------------------------------------------------------
    def _compile_def(self, d: Def) -> str:
        env: dict[str, tuple[str, Type]] = {}
        pys = []
        for x, ty in d.params:
            py = self.pyname(x)
            pys.append(py)
            if not x.startswith("_m") and x != "_":
                env[x] = (py, ty)
        lines = [f"def {d.py}({', '.join(pys)}):"]
        if d.body is not None:
            code = self.gen(d.body, d.ret, env)
            lines.append(f"    return {code}")
            return "\n".join(lines) + "\n"
        assert d.alts is not None
        nb = len(d.params) - len(d.alts[0][0])
        scrut = list(zip(pys[nb:], [ty for _, ty in d.params[nb:]], strict=True))
        for pats, body in d.alts:
            conds: list[str] = []
            binds: list[tuple[str, str]] = []
            alt_env = dict(env)
            for pat, (code, ty) in zip(pats, scrut, strict=True):
                self._pattern(pat, code, ty, conds, binds, alt_env)
            lines.append(f"    if {' and '.join(conds) or 'True'}:  # line {body.line}")
            for py, code in binds:
                lines.append(f"        {py} = {code}")
            lines.append(f"        return {self.gen(body, d.ret, alt_env)}")
        lines.append(f"    return _nomatch({d.name!r}, ({', '.join(pys)},))")
        return "\n".join(lines) + "\n"

    def _pattern(self, pat: Node, code: str, ty: Type, conds: list[str], binds: list, env: dict) -> None:
        k = pat.kind
        if k == "var" and "." not in pat.args[0]:
            name = pat.args[0]
            if name != "_":
                py = self.pyname(name)
                binds.append((py, code))
                env[name] = (py, ty)
            return
        if k == "num":
            if ty not in ("N", "Z"):
                raise SpecEvalError(f"line {pat.line}: a numeral pattern for {tshow(ty)}")
            conds.append(f"{code} == {pat.args[0]}")
            return
        if k == "bin" and pat.args[0] == "+" and pat.args[2].kind == "num":
            if ty != "N":
                raise SpecEvalError(f"line {pat.line}: an n + k pattern for {tshow(ty)}")
            c = pat.args[2].args[0]
            conds.append(f"{code} >= {c}")
            self._pattern(pat.args[1], f"({code} - {c})", "N", conds, binds, env)
            return
        if k == "bin" and pat.args[0] == "::":
            if not (isinstance(ty, tuple) and ty[0] == "L"):
                raise SpecEvalError(f"line {pat.line}: a :: pattern for {tshow(ty)}")
            conds.append(f"len({code}) >= 1")
            self._pattern(pat.args[1], f"{code}[0]", ty[1], conds, binds, env)
            self._pattern(pat.args[2], f"{code}[1:]", ty, conds, binds, env)
            return
        if k == "list":
            if not (isinstance(ty, tuple) and ty[0] == "L"):
                raise SpecEvalError(f"line {pat.line}: a list pattern for {tshow(ty)}")
            items = pat.args[0]
            conds.append(f"len({code}) == {len(items)}")
            for i, item in enumerate(items):
                self._pattern(item, f"{code}[{i}]", ty[1], conds, binds, env)
            return
        if k == "tuple":
            if not (isinstance(ty, tuple) and ty[0] == "X"):
                raise SpecEvalError(f"line {pat.line}: a pair pattern for {tshow(ty)}")
            self._pattern(pat.args[0], f"{code}[0]", ty[1], conds, binds, env)
            self._pattern(pat.args[1], f"{code}[1]", ty[2], conds, binds, env)
            return
        if k == "bool":
            if ty != "B":
                raise SpecEvalError(f"line {pat.line}: a Bool pattern for {tshow(ty)}")
            conds.append(f"{code} is {pat.args[0]}")
            return
        raise SpecEvalError(f"line {pat.line}: pattern {k} outside the evaluated subset")

    # terms -----------------------------------------------------------------------------------------------
    def err(self, node: Node, msg: str) -> SpecEvalError:
        return SpecEvalError(f"line {node.line}: {msg}")

    def coerce(self, node: Node, code: str, t: Type, want: Type) -> str:
        """The value as ``want``, with the ``ℕ → ℤ → ℝ`` coercions (and ``Bool``/``Prop``) Lean inserts."""
        if want is None or t is None or t == want:
            return code
        if t in NUM and want in NUM and _RANK[t] < _RANK[want]:
            return f"float({code})" if want == "R" else code
        if {t, want} == {"B", "P"}:
            return code
        raise self.err(node, f"type mismatch: {tshow(t)} where {tshow(want)} is expected")

    def infer(self, node: Node, env: dict) -> Type:
        """The type of ``node`` elaborated without an expected type (``None``: a numeral, whose type
        the context decides)."""
        key = id(node)
        if key not in self.types:
            self.types[key] = (node, self.gen_t(node, None, env)[1])  # the node kept alive: ids stay unique
        return self.types[key][1]

    def gen(self, node: Node, want: Type, env: dict) -> str:
        code, t = self.gen_t(node, want, env)
        if t is None and want is None:
            t = "N"
        return self.coerce(node, code, t, want)

    def leaves(self, node: Node, out: list[Node]) -> None:
        if node.kind == "bin" and node.args[0] in _ARITH:
            self.leaves(node.args[1], out)
            self.leaves(node.args[2], out)
        elif node.kind == "bin" and node.args[0] == "^":
            self.leaves(node.args[1], out)  # the exponent is elaborated on its own
        elif node.kind == "neg":
            self.leaves(node.args[0], out)
        else:
            out.append(node)

    def max_type(self, leaves: list[Node], start: Type, env: dict) -> Type:
        mx = start if start in NUM else None
        for leaf in leaves:
            t = self.infer(leaf, env)
            if t is None:
                continue
            if t not in NUM:
                raise self.err(leaf, f"{tshow(t)} in arithmetic")
            if mx is None or _RANK[t] > _RANK[mx]:
                mx = t
        return mx

    def arith(self, node: Node, ty: Type, env: dict) -> str:
        """Code of an arithmetic tree all of whose operations are at ``ty`` (leaves coerced)."""
        if node.kind == "neg":
            if ty == "N":
                raise self.err(node, "negation of a natural number (ℕ has no Neg)")
            return f"(-{self.arith(node.args[0], ty, env)})"
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
            et = self.infer(node.args[2], env) or "N"  # Monoid.npow is the default instance
            e = self.gen(node.args[2], et, env)
            if et == "N":
                return f"_npow({a}, {e})"
            if et == "Z" and ty == "R":
                return f"_zpow({a}, {e})"
            if et == "R" and ty == "R":
                return f"_rpow({a}, {e})"
            raise self.err(node, f"{tshow(ty)} ^ {tshow(et)} outside the subset")
        return self.gen(node, ty, env)

    def gen_t(self, node: Node, want: Type, env: dict) -> tuple[str, Type]:
        """Python code for ``node`` elaborated against ``want`` (``None``: unknown), and its type (the
        wanted one once coerced; ``None`` only for a numeral-like term without an expected type)."""
        k = node.kind
        if k == "num":
            v = node.args[0]
            if want is None:
                return str(v), None
            if want == "R":
                return repr(float(v)), "R"
            if want in ("N", "Z"):
                return str(v), want
            raise self.err(node, f"the numeral {v} where {tshow(want)} is expected")
        if k == "prop":
            return ("True" if node.args[0] else "False"), "P"
        if k == "bool":
            return ("True" if node.args[0] else "False"), "B"
        if (k == "bin" and node.args[0] in _ARITH | {"^"}) or k == "neg":
            if want is not None and want not in NUM:
                raise self.err(node, f"arithmetic where {tshow(want)} is expected")
            leaves: list[Node] = []
            self.leaves(node, leaves)
            mx = self.max_type(leaves, want, env)
            if mx is None:
                if want is None:
                    return self.arith(node, "N", env), None
                mx = want
            return self.arith(node, mx, env), mx
        if k == "bin" and node.args[0] in _REL | {"≠"}:
            return self.relation(node, env)
        if k == "bin" and node.args[0] in ("∧", "∨", "&&", "||", "↔"):
            op = node.args[0]
            ty = "P" if op in ("∧", "∨", "↔") else "B"
            a = self.gen(node.args[1], ty, env)
            b = self.gen(node.args[2], ty, env)
            py = {"∧": "and", "&&": "and", "∨": "or", "||": "or", "↔": "=="}[op]
            return f"({a} {py} {b})", ty
        if k == "not":
            return f"(not {self.gen(node.args[0], 'P', env)})", "P"
        if k == "bin" and node.args[0] == "::":
            lt = self.list_type(node, want, env)
            a = self.gen(node.args[1], lt[1], env)
            b = self.gen(node.args[2], lt, env)
            return f"(({a},) + {b})", lt
        if k == "bin" and node.args[0] == "++":
            lt = self.list_type(node, want, env)
            return f"({self.gen(node.args[1], lt, env)} + {self.gen(node.args[2], lt, env)})", lt
        if k == "list":
            lt = self.list_type(node, want, env)
            items = [self.gen(item, lt[1], env) for item in node.args[0]]
            return "(" + "".join(f"{c}, " for c in items) + ")", lt
        if k == "tuple":
            if want is None:
                want = ("X", self.infer(node.args[0], env) or "N", self.infer(node.args[1], env) or "N")
            if not (isinstance(want, tuple) and want[0] == "X"):
                raise self.err(node, f"a pair where {tshow(want)} is expected")
            a = self.gen(node.args[0], want[1], env)
            b = self.gen(node.args[1], want[2], env)
            return f"({a}, {b})", want
        if k == "ascr":
            inner, ty = node.args
            code = self.gen(inner, ty, env)
            return self.coerce(node, code, ty, want), (ty if want is None else want)
        if k == "if":
            c, a, b = node.args
            cc = self.gen(c, "P", env)
            ty = want
            if ty is None:
                ty = self.infer(a, env) or self.infer(b, env)
            if ty is None:
                return f"({self.gen_t(a, None, env)[0]} if {cc} else {self.gen_t(b, None, env)[0]})", None
            return f"({self.gen(a, ty, env)} if {cc} else {self.gen(b, ty, env)})", ty
        if k == "fun":
            binders, body = node.args
            if want is None:
                raise self.err(node, "fun without an expected type")
            env = dict(env)
            pys, ty = [], want
            for x, bt in binders:
                if not (isinstance(ty, tuple) and ty[0] == "F"):
                    raise self.err(node, f"fun where {tshow(want)} is expected")
                if bt is not None and bt != ty[1]:
                    raise self.err(node, f"fun binder of type {tshow(bt)} where {tshow(ty[1])} is expected")
                py = self.pyname(x)
                pys.append(py)
                if x != "_":
                    env[x] = (py, ty[1])
                ty = ty[2]
            code = self.gen(body, ty, env)
            for py in reversed(pys):
                code = f"(lambda {py}: {code})"
            return code, want
        if k == "let":
            name, ty, value, body = node.args
            if ty is None:
                ty = self.infer(value, env) or "N"
            vcode = self.gen(value, ty, env)
            py = self.pyname(name)
            env = {**env, name: (py, ty)}
            bcode, bt = self.gen_t(body, want, env)
            return f"(lambda {py}: {bcode})({vcode})", bt
        if k == "sum":
            var, n, body = node.args
            ncode = self.gen(n, "N", env)
            py = self.pyname(var)
            env = {**env, var: (py, "N")}
            ty = want if want is not None else (self.infer(body, env) or "N")
            if ty not in NUM:
                raise self.err(node, f"∑ of {tshow(ty)}")
            bcode = self.gen(body, ty, env)
            fn = "_fsum" if ty == "R" else "_isum"
            return f"{fn}({ncode}, lambda {py}: {bcode})", ty
        if k == "var":
            return self.var(node, want, env)
        if k == "app":
            return self.app(node, want, env)
        raise self.err(node, f"construct {k} outside the evaluated subset")

    def list_type(self, node: Node, want: Type, env: dict) -> Type:
        if want is not None:
            if not (isinstance(want, tuple) and want[0] == "L"):
                raise self.err(node, f"a list where {tshow(want)} is expected")
            return want
        if node.kind == "list":
            for item in node.args[0]:
                t = self.infer(item, env)
                if t is not None:
                    return ("L", t)
            return ("L", "N")
        if node.args[0] == "::":
            t = self.infer(node.args[2], env)
            if t is not None:
                return t
            return ("L", self.infer(node.args[1], env) or "N")
        return self.infer(node.args[1], env) or self.infer(node.args[2], env) or ("L", "N")

    def relation(self, node: Node, env: dict) -> tuple[str, Type]:
        op, lhs, rhs = node.args
        leaves: list[Node] = []
        self.leaves(lhs, leaves)
        self.leaves(rhs, leaves)
        types = [self.infer(lf, env) for lf in leaves]
        rt = "B" if op == "==" else "P"
        py = {"=": "==", "==": "==", "≠": "!=", "<": "<", "≤": "<=", ">": ">", "≥": ">="}[op]
        if any(t not in (None, *NUM) for t in types):
            if op not in ("=", "≠", "=="):
                raise self.err(node, "order relation on a non-number")
            ta = self.infer(lhs, env) or self.infer(rhs, env)
            return f"({self.gen(lhs, ta, env)} {py} {self.gen(rhs, ta, env)})", rt
        mx = self.max_type(leaves, None, env) or "N"
        return f"({self.arith(lhs, mx, env)} {py} {self.arith(rhs, mx, env)})", rt

    def var(self, node: Node, want: Type, env: dict) -> tuple[str, Type]:
        name: str = node.args[0]
        if name in env:
            code, t = env[name]
            return self.coerce(node, code, t, want), (t if want is None else want)
        if name in _CONSTANTS:
            t, code = _CONSTANTS[name]
            return self.coerce(node, code, t, want), (t if want is None else want)
        full = self.resolve(name)
        if full is not None:
            d = self.defs[full]
            if not d.params:
                return self.coerce(node, f"{d.py}()", d.ret, want), (d.ret if want is None else want)
            t = _fun_type([ty for _, ty in d.params], d.ret)
            return self.coerce(node, f"_curry({d.py}, (), {len(d.params)})", t, want), t
        if name in _BUILTINS or name in ("max", "min", "abs"):
            raise self.err(node, f"{name} not applied")
        raise self.err(node, f"unknown identifier {name}")

    def apply_rest(self, node: Node, code: str, t: Type, args: list[Node], want: Type, env: dict) -> tuple[str, Type]:
        for a in args:
            if not (isinstance(t, tuple) and t[0] == "F"):
                raise self.err(node, f"a value of type {tshow(t)} applied to an argument")
            code = f"{code}({self.gen(a, t[1], env)})"
            t = t[2]
        return self.coerce(node, code, t, want), (t if want is None else want)

    def app(self, node: Node, want: Type, env: dict) -> tuple[str, Type]:
        head, args = node.args
        if head.kind != "var":
            code, t = self.gen_t(head, None, env)
            return self.apply_rest(node, code, t, args, want, env)
        name: str = head.args[0]
        if name in env:
            code, t = env[name]
            return self.apply_rest(node, code, t, args, want, env)
        if name in ("max", "min", "abs"):
            n = 1 if name == "abs" else 2
            if len(args) != n:
                raise self.err(node, f"{name} applied to {len(args)} arguments")
            alpha = want
            if alpha is None:
                alpha = next((t for t in (self.infer(a, env) for a in args) if t is not None), "N")
            if alpha not in NUM:
                raise self.err(node, f"{name} at {tshow(alpha)}")
            codes = [self.gen(a, alpha, env) for a in args]
            return f"{name}({', '.join(codes)})", alpha
        full = self.resolve(name)
        if full is not None:
            d = self.defs[full]
            m = min(len(args), len(d.params))
            codes = [self.gen(a, ty, env) for a, (_, ty) in zip(args[:m], d.params[:m], strict=True)]
            if m < len(d.params):
                t = _fun_type([ty for _, ty in d.params[m:]], d.ret)
                code = f"_curry({d.py}, ({''.join(c + ', ' for c in codes)}), {len(d.params) - m})"
                return self.coerce(node, code, t, want), t
            return self.apply_rest(node, f"{d.py}({', '.join(codes)})", d.ret, args[m:], want, env)
        if name in _BUILTINS:
            ptypes, rt, tpl = _BUILTINS[name]
            if len(args) < len(ptypes):
                raise self.err(node, f"{name} takes {len(ptypes)} arguments, given {len(args)}")
            codes = [self.gen(a, ty, env) for a, ty in zip(args, ptypes, strict=False)]
            return self.apply_rest(node, tpl.format(*codes), rt, args[len(ptypes) :], want, env)
        raise self.err(node, f"unknown function {name}")

    # entry points --------------------------------------------------------------------------------------
    def function(self, name: str) -> Callable:
        """The compiled definition ``name`` (its full name), taking all its parameters at once."""
        if name not in self.defs:
            raise SpecEvalError(f"no definition {name}")
        return self.ns[self.defs[name].py]

    def call(self, name: str, *args: Any) -> Any:
        """``name args…`` (with more arguments than parameters, the result is applied to the rest)."""
        d = self.defs.get(name)
        if d is None:
            raise SpecEvalError(f"no definition {name}")
        n = len(d.params)
        if len(args) < n:
            raise SpecEvalError(f"{name} takes {n} arguments, given {len(args)}")
        with _deep_recursion():
            out = self.ns[d.py](*args[:n])
            for a in args[n:]:
                out = out(a)
        self.clear()
        return out

    def term(self, text: str, want: Type, values: Mapping[str, Any], types: Mapping[str, Type]) -> Any:
        """The value of the term ``text`` (elaborated at ``want``, at the root namespace with the given
        ``open``s already in effect) with the local variables ``values`` of the given types."""
        p = Parser(tokenize("  " + text), self._alias)  # indented: not a command
        node = p.term()
        if p.tok.kind != "eof":
            raise p.err("trailing tokens after the term")
        env = {x: (self.pyname(x), ty) for x, ty in types.items()}
        self.scopes = [Scope("section", "", list(self.term_opens))]
        code = self.gen(node, want, env)
        fn = eval(f"lambda {', '.join(py for py, _ in env.values())}: {code}", self.ns)
        with _deep_recursion():
            return fn(*(values[x] for x in env))

    term_opens: tuple[str, ...] = ("Larkc",)


@contextmanager
def _deep_recursion(limit: int = 20000) -> Iterator[None]:
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


# --------------------------------------------------------------------------------------------------
# the spec side


@cache
def _library_texts() -> tuple[tuple[str, str], ...]:
    return tuple((f"{n}.lean", (LEAN_DIR / f"{n}.lean").read_text(encoding="utf-8")) for n in ("Tensor", "Torch"))


@cache
def library() -> Program:
    """``Larkc.Tensor`` and ``Larkc.Torch``, compiled."""
    return Program(_library_texts())


def load_spec(spec_text: str, memo: bool = True) -> tuple[Program, str]:
    """The library and one generated Spec.lean, compiled; and the spec's namespace. With ``memo``, each
    spec def's result is shared per arguments and its entries computed once (Lean is pure)."""
    m = re.search(r"^namespace (\S+)$", spec_text, re.M)
    if m is None:
        raise SpecEvalError("the Spec.lean text has no namespace")
    namespace = m.group(1)
    prog = Program((*_library_texts(), ("Spec.lean", spec_text)), memo_prefixes=(namespace + ".",) if memo else ())
    return prog, namespace


def input_tensor(prog: Program, shape: Sequence[int], flat: Sequence[float], what: str = "input") -> Callable:
    """``Larkc.ofFlat shape f`` with ``f`` the flat buffer ``flat``, as the emitted theorems read inputs
    (``ofFlat [shape] (globBuf m k)``). A read outside the buffer raises: the memory there is
    arbitrary, so a spec value that depends on it is unspecified."""
    values = [float(v) for v in flat]
    n = len(values)

    def buf(i: int) -> float:
        if not 0 <= i < n:
            raise SpecEvalError(f"{what}: read at flat offset {i}, outside its {n} elements")
        return values[i]

    return prog.call("Larkc.ofFlat", tuple(int(s) for s in shape), buf)


def evaluate_output(
    prog: Program,
    def_name: str,
    symbols: Sequence[int],
    inputs: Sequence[Callable],
    shape: Sequence[int],
) -> list[float]:
    """``def_name symbols… inputs… idx`` at every multi-index ``idx`` of ``shape``, in row-major order."""
    tensor = prog.call(def_name, *(int(s) for s in symbols), *inputs)
    out = []
    with _deep_recursion():
        for idx in itertools.product(*(range(int(s)) for s in shape)):
            v = tensor(tuple(idx))
            prog.clear()
            if not isinstance(v, float):
                raise SpecEvalError(f"{def_name} at {list(idx)} gave {v!r}, not a real")
            out.append(v)
    return out
