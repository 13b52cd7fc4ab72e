"""Reading the printed form of the kernel IR back into nodes.

:func:`parse_module` is the inverse of :func:`larkc.ir.printer.print_module`: for a verified module
``m``, ``parse_module(print_module(m)) == m`` (spans aside) and printing the result gives the same text.
Hand-written IR files (tests, golden corpora, reproductions of frontend bugs) are read the same way.

The grammar is ``grammars/kernel_ir.lark`` (LALR). Lark only builds a parse tree; this module walks it
top-down, because types depend on context: a variable's type comes from its declaration in an
enclosing scope and a builtin's from the function's level. Nodes whose printed form leaves the type
implicit (operators, math calls, ``ptradd``, ``extract``...) get it from the typing rules
(:func:`larkc.ir.verify.expected_type`), so the parser and the verifier cannot disagree.

The parser does not verify: it builds whatever is well formed enough to type, and
:func:`larkc.ir.verify.verify_module` checks the rest. Malformed text raises
:class:`~larkc.errors.UserSyntaxError`; a use of an undeclared variable or an operator applied to
operands its rule rejects raises :class:`~larkc.errors.TypeCheckError`. Both carry the location.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import TypeVar

import lark
from lark import Token, Tree

from larkc._resources import grammar_path
from larkc.errors import SourceCache, Span, Stage, TypeCheckError, UserSyntaxError
from larkc.ir.nodes import (
    Alloc,
    Arange,
    Assert,
    AssertKind,
    Assign,
    Assume,
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
    Combine,
    CombineKind,
    Const,
    Continue,
    Decl,
    Dim,
    Dot,
    DoWhile,
    Expr,
    Extract,
    Fence,
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
    VoteKind,
    While,
)
from larkc.ir.printer import format_var
from larkc.ir.types import (
    I32,
    SCALARS,
    VOID,
    AddressSpace,
    ArrayType,
    BlockType,
    PointerType,
    ScalarType,
    Type,
    VectorType,
)
from larkc.ir.verify import builtin_type, expected_type

__all__ = ["parse_module"]

_Node = Tree[Token] | Token
_K = TypeVar("_K", BarrierScope, MemScope, ShuffleKind, VoteKind, AtomicOp, MemoryOrder)
_E = TypeVar("_E", Unary, Binary, Select, MathCall, PtrAdd, Insert, Reduce, Combine)
_B = TypeVar("_B", Arange, Splat, Broadcast, Reshape, Permute, Scan, Dot)

_VECTOR = re.compile(r"([a-z0-9]+?)x(\d+)(?:align(\d+))?")
_INTEGER = re.compile(r"-?\d+")
_ESCAPE = re.compile(r"\\(u\{([0-9a-fA-F]{1,6})\}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}

#: How syntax errors name the terminals the parser expected (string terminals are quoted instead).
_TERMINAL_NAMES = {
    "VAR": "a variable (%name)",
    "FUNC": "a function name (@name)",
    "CONST": "a constant (e.g. 1:i32)",
    "BOOL_LIT": "true or false",
    "BUILTIN": "a builtin (e.g. threadIdx.x)",
    "CALLEE": "an operation name (e.g. select, sqrt)",
    "UNOP": "a unary operator",
    "BINOP": "a binary operator",
    "SCALAR": "a type",
    "VECTOR": "a type",
    "INT": "an integer",
    "DIMS": "a shape (e.g. 64x32)",
    "FKIND": "kernel or device",
    "LEVEL": "thread or block",
    "SPACE": "an address space",
    "BARRIER": "barrier.<scope>",
    "FENCE": "fence.<scope>",
    "SHFL": "shfl.<kind>",
    "VOTE": "vote.<kind>",
    "ATOMIC": "atomic.<op>",
    "$END": "end of input",
}


@cache
def _lark() -> lark.Lark:
    return lark.Lark(
        grammar_path("kernel_ir.lark").read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
    )


def parse_module(text: str, file: str = "<ir>") -> Module:
    """Parse the printed IR ``text`` (read from ``file``, used in spans and diagnostics) into a module.

    Raises :class:`UserSyntaxError` for malformed text and :class:`TypeCheckError` where a node cannot
    be typed; does not verify the module (see :func:`larkc.ir.verify.verify_module`).
    """
    SourceCache.register(file, text)
    try:
        tree = _lark().parse(text)
    except lark.exceptions.UnexpectedInput as err:
        raise _syntax_error(err, text, file) from None
    except lark.exceptions.LarkError as err:  # not raised by an LALR parse, kept as a safety net
        raise UserSyntaxError(f"malformed IR: {err}", stage=Stage.IR) from None
    try:
        return _Builder(file).module(tree)
    except RecursionError:
        raise UserSyntaxError("IR nested too deeply to parse", Span.point(file, 1, 1), stage=Stage.IR) from None


def _syntax_error(err: lark.exceptions.UnexpectedInput, text: str, file: str) -> UserSyntaxError:
    """A one-line located message for a Lark parse failure."""
    expected: set[str] = set()
    if isinstance(err, lark.exceptions.UnexpectedToken) and err.token.type != "$END":
        tok = err.token
        span = Span(file, tok.line or 1, tok.column or 1, tok.end_line or 1, tok.end_column or 1)
        found = f"{str(tok)!r}"
        expected = err.expected
    elif isinstance(err, lark.exceptions.UnexpectedCharacters):
        span = Span.point(file, err.line, err.column)
        found = f"character {text[err.pos_in_stream or 0]!r}"
        expected = err.allowed or set()
    else:  # the end of the input (UnexpectedEOF, or an UnexpectedToken at $END)
        body = text.rstrip()
        line = body.count("\n") + 1
        col = len(body) - (body.rfind("\n") + 1) + 1
        span = Span.point(file, line, col)
        found = "end of input"
        if isinstance(err, lark.exceptions.UnexpectedToken | lark.exceptions.UnexpectedEOF):
            expected = set(err.expected)
    names = sorted({_terminal_name(t) for t in expected})
    message = f"unexpected {found}" + (f"; expected {', '.join(names)}" if names else "")
    return UserSyntaxError(message, span, stage=Stage.IR)


def _terminal_name(name: str) -> str:
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    try:
        pattern = _lark().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return f"'{pattern.value}'" if isinstance(pattern, lark.lexer.PatternStr) else name.lower()


def _unquote(text: str, span: Span) -> str:
    """A name as printed after its sigil: bare, or double-quoted with backslash escapes."""
    if not text.startswith('"'):
        return text

    def unescape(m: re.Match[str]) -> str:
        if m.group(2) is not None:
            code = int(m.group(2), 16)
            if code > 0x10FFFF:
                raise UserSyntaxError(f"invalid escape \\u{{{m.group(2)}}} in name {text}", span, stage=Stage.IR)
            return chr(code)
        if m.group(1) in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[m.group(1)]
        raise UserSyntaxError(f"invalid escape \\{m.group(1)} in name {text}", span, stage=Stage.IR)

    return _ESCAPE.sub(unescape, text[1:-1])


@dataclass(frozen=True, slots=True)
class _Build:
    """On the parser's stack: build an expression from the last ``count`` expressions built."""

    build: Callable[[list[Expr]], Expr]
    count: int


class _Builder:
    """Walks the parse tree of one file, tracking the scopes that give variables their types."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.level = Level.THREAD
        self.scopes: list[dict[str, Type]] = []
        self.seen: dict[str, Type] = {}  # every declaration so far in the function, for out-of-scope uses

    # -- helpers ------------------------------------------------------------------------------------

    def span(self, node: _Node) -> Span:
        if isinstance(node, Token):
            return Span(self.file, node.line or 0, node.column or 0, node.end_line or 0, node.end_column or 0)
        meta = node.meta
        if meta.empty:
            return Span(self.file, 0, 0, 0, 0)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def error(self, message: str, node: _Node) -> UserSyntaxError:
        return UserSyntaxError(message, self.span(node), stage=Stage.IR)

    def name(self, tok: _Node) -> str:
        assert isinstance(tok, Token)
        return _unquote(str(tok)[1:], self.span(tok))

    def declare(self, name: str, t: Type) -> None:
        self.scopes[-1][name] = t
        self.seen[name] = t

    def lookup(self, tok: Token) -> Type:
        name = self.name(tok)
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.seen:  # out of scope: type it anyway so that the verifier reports the misuse
            return self.seen[name]
        raise TypeCheckError(f"use of undeclared variable {format_var(name)}", self.span(tok))

    def typed(self, e: _E) -> _E:
        """``e`` with the type its rule gives (the placeholder ``type`` it was built with is ignored)."""
        return replace(e, type=expected_type(e, self.level))

    def typed_block(self, e: _B) -> _B:
        """A block-building ``e`` with its full type (its placeholder ``type`` carries a shape or elem)."""
        t = expected_type(e, self.level)
        assert isinstance(t, BlockType)  # the rules of these nodes always give blocks
        return replace(e, type=t)

    def kind(self, tok: Token, enum_type: type[_K], what: str) -> _K:
        """The member of ``enum_type`` spelled after the dot of ``tok`` (``barrier.block``)."""
        text = str(tok).partition(".")[2]
        for member in enum_type:
            if member.value == text:
                return member
        raise self.error(f"unknown {what} {str(tok)!r}", tok)

    # -- module and functions -----------------------------------------------------------------------

    def module(self, tree: Tree[Token]) -> Module:
        functions = tuple(self.function(c) for c in tree.children if isinstance(c, Tree))
        span = self.span(tree) if not tree.meta.empty else Span.point(self.file, 1, 1)
        return Module(functions, span)

    def function(self, tree: Tree[Token]) -> Function:
        ch = tree.children
        kind_tok, name_tok, *params_ch, ret_ch, level_tok, bound_tok, body_ch = ch
        assert isinstance(kind_tok, Token) and isinstance(level_tok, Token) and isinstance(body_ch, Tree)
        self.level = Level(str(level_tok))
        self.scopes = [{}]
        self.seen = {}
        params = tuple(self.param(p) for p in params_ch if isinstance(p, Tree))
        ret = VOID if ret_ch is None else self.type(ret_ch)
        bound = None if bound_tok is None else self.integer(bound_tok)
        body = self.body(body_ch)
        return Function(
            self.name(name_tok),
            FunctionKind(str(kind_tok)),
            self.level,
            params,
            ret,
            body,
            bound,
            self.span(tree),
        )

    def param(self, tree: Tree[Token]) -> Param:
        by_ref, name_tok, type_ch = tree.children
        name = self.name(name_tok)
        t = self.type(type_ch)
        self.declare(name, t)
        return Param(name, t, by_ref is not None, self.span(tree))

    def integer(self, tok: _Node) -> int:
        text = str(tok)
        if not _INTEGER.fullmatch(text):
            raise self.error(f"expected an integer, got {text!r}", tok)
        return self.digits(text, tok)

    def digits(self, text: str, node: _Node) -> int:
        """``int(text)``, reporting the integers Python refuses to convert (over 4300 digits)."""
        try:
            return int(text)
        except ValueError:
            raise self.error(f"integer literal {text[:20]}... is too long", node) from None

    # -- types --------------------------------------------------------------------------------------

    def type(self, node: _Node | None) -> Type:
        assert isinstance(node, Tree)
        ch = node.children
        match node.data:
            case "scalar_type":
                return SCALARS[str(ch[0])]
            case "vector_type":
                m = _VECTOR.fullmatch(str(ch[0]))
                assert m is not None  # the terminal's pattern guarantees the shape
                lane = SCALARS[m.group(1)]
                lanes = self.digits(m.group(2), node)
                align = lane.size * lanes if m.group(3) is None else self.digits(m.group(3), node)
                return VectorType(lane, lanes, align)
            case "pointer_type":
                space, const, restrict, pointee = ch
                return PointerType(
                    self.type(pointee), AddressSpace(str(space)), const is not None, restrict is not None
                )
            case "array_type":
                length, elem_ch = ch
                return ArrayType(self.type(elem_ch), self.integer(length))
            case "block_type":
                dims, elem_ch = ch
                elem = self.type(elem_ch)
                if not isinstance(elem, ScalarType | PointerType):
                    raise TypeCheckError(f"block element must be a scalar or pointer, got {elem}", self.span(node))
                return BlockType(elem, () if dims is None else self.dims(dims))
            case "void_type":
                return VOID
            case other:
                raise AssertionError(f"unknown type rule {other}")

    def dims(self, tok: _Node) -> tuple[int, ...]:
        if not isinstance(tok, Token) or tok.type != "DIMS":
            raise self.error("expected a shape such as 64x32", tok)
        return tuple(self.digits(d, tok) for d in str(tok).split("x"))

    # -- statements ---------------------------------------------------------------------------------

    def body(self, tree: Tree[Token] | None) -> tuple[Stmt, ...]:
        """A braced body in a new scope (``None``, an absent ``else``, is empty)."""
        if tree is None:
            return ()
        self.scopes.append({})
        try:
            return tuple(self.stmt(c) for c in tree.children if isinstance(c, Tree))
        finally:
            self.scopes.pop()

    def items(self, tree: _Node) -> tuple[Stmt, ...]:
        """The comma-separated statements of a ``for`` header, in the current scope."""
        assert isinstance(tree, Tree)
        return tuple(self.stmt(c) for c in tree.children if isinstance(c, Tree))

    def opt(self, node: _Node | None) -> Expr | None:
        return None if node is None else self.expr(node)

    def stmt(self, tree: Tree[Token]) -> Stmt:
        ch = tree.children
        span = self.span(tree)
        match tree.data:
            case "decl":
                name_tok, type_ch, init_ch = ch
                name, t = self.name(name_tok), self.type(type_ch)
                init = self.opt(init_ch)
                self.declare(name, t)
                return Decl(name, t, init, span)
            case "assign":
                return Assign(self.name(ch[0]), self.expr(ch[1]), span)
            case "load":
                dst, load_op, ptr, mask, other = ch
                nc = str(load_op) == "load.nc"
                return Load(self.name(dst), self.expr(ptr), self.opt(mask), self.opt(other), span, nc)
            case "store":
                ptr, value, mask = ch
                return Store(self.expr(ptr), self.expr(value), self.opt(mask), span)
            case "alloc":
                space_tok, name_tok, count_tok, elem_ch = ch
                name, elem = self.name(name_tok), self.type(elem_ch)
                space = AddressSpace(str(space_tok))
                count = None if str(count_tok) == "?" else self.integer(count_tok)
                self.declare(name, PointerType(elem, space))
                return Alloc(name, elem, count, space, span)
            case "do_while":
                body_ch, cond = ch
                assert isinstance(body_ch, Tree)
                return DoWhile(self.body(body_ch), self.expr(cond), span)
            case "break_stmt":
                return Break(span)
            case "continue_stmt":
                return Continue(span)
            case "return_stmt":
                return Return(self.opt(ch[0]), span)
            case "barrier":
                scope_tok, mask = ch
                assert isinstance(scope_tok, Token)
                return Barrier(self.kind(scope_tok, BarrierScope, "barrier"), self.opt(mask), span)
            case "fence":
                assert isinstance(ch[0], Token)
                return Fence(self.kind(ch[0], MemScope, "fence"), span)
            case "assert_stmt":
                assert_kind = AssertKind.HINT if str(ch[0]) == "assert.hint" else AssertKind.ASSERT
                return Assert(self.expr(ch[1]), span, assert_kind)
            case "assume_stmt":
                return Assume(self.expr(ch[0]), span)
            case "shuffle":
                dst, kind_tok, mask, value, lane, width = ch
                assert isinstance(kind_tok, Token)
                kind = self.kind(kind_tok, ShuffleKind, "shuffle")
                operands = (self.expr(mask), self.expr(value), self.expr(lane), self.expr(width))
                return Shuffle(self.name(dst), kind, *operands, span)
            case "vote":
                dst, kind_tok, mask, pred = ch
                assert isinstance(kind_tok, Token)
                kind_v = self.kind(kind_tok, VoteKind, "vote")
                return Vote(self.name(dst), kind_v, self.expr(mask), self.expr(pred), span)
            case "atomic":
                dst, op_tok, ptr, value, compare, mask = ch
                assert isinstance(op_tok, Token)
                op_text, *suffixes = str(op_tok).removeprefix("atomic.").split(".")
                op = self.kind(op_tok.update(value=f"atomic.{op_text}"), AtomicOp, "atomic operation")
                order, scope = MemoryOrder.RELAXED, MemScope.DEVICE
                if suffixes and (len(suffixes) == 2 or suffixes[0] in {m.value for m in MemScope}):
                    scope = self.kind(op_tok.update(value=f"scope.{suffixes.pop()}"), MemScope, "memory scope")
                if suffixes:
                    order = self.kind(op_tok.update(value=f"order.{suffixes[0]}"), MemoryOrder, "memory order")
                dst_name = None if dst is None else self.name(dst)
                ptr_e, value_e = self.expr(ptr), self.expr(value)
                c, m = self.opt(compare), self.opt(mask)
                return Atomic(dst_name, op, ptr_e, value_e, c, m, span, order, scope)
            case "call":
                dst, func, *args = ch
                dst_name = None if dst is None else self.name(dst)
                return Call(dst_name, self.name(func), tuple(self.expr(a) for a in args if a is not None), span)
            case "if_stmt":
                cond, then_ch, else_ch = ch
                assert isinstance(then_ch, Tree) and (else_ch is None or isinstance(else_ch, Tree))
                return If(self.expr(cond), self.body(then_ch), self.body(else_ch), span)
            case "while_stmt":
                cond, body_ch = ch
                assert isinstance(body_ch, Tree)
                return While(self.expr(cond), self.body(body_ch), span)
            case "for_stmt":
                return self.for_stmt(tree)
            case other:
                raise AssertionError(f"unknown statement rule {other}")

    def for_stmt(self, tree: Tree[Token]) -> For:
        init_ch, cond_ch, step_ch, unroll_tok, body_ch = tree.children
        assert isinstance(body_ch, Tree)
        # the same scopes as the verifier: init visible in cond, step and body; body and step apart
        self.scopes.append({})
        try:
            init = self.items(init_ch)
            cond = self.opt(cond_ch)
            self.scopes.append({})
            try:
                step = self.items(step_ch)
            finally:
                self.scopes.pop()
            body = self.body(body_ch)
        finally:
            self.scopes.pop()
        unroll = None if unroll_tok is None else self.integer(unroll_tok)
        return For(init, cond, step, body, unroll, self.span(tree))

    # -- expressions --------------------------------------------------------------------------------

    def expr(self, node: _Node | None) -> Expr:
        """The expression ``node`` spells, its operands built first, left to right.

        An explicit stack instead of recursion: a sum of thousands of terms nests thousands deep.
        """
        built: list[Expr] = []
        pending: list[_Node | _Build | None] = [node]
        while pending:
            item = pending.pop()
            if isinstance(item, _Build):
                args = built[len(built) - item.count :]
                del built[len(built) - item.count :]
                built.append(item.build(args))
                continue
            build, operands = self.expr_rule(item)
            pending.append(_Build(build, len(operands)))
            pending.extend(reversed(operands))
        assert len(built) == 1
        return built[0]

    def expr_rule(self, node: _Node | None) -> tuple[Callable[[list[Expr]], Expr], list[_Node]]:
        """How to build the expression ``node`` from its operands, and the operand nodes; what can be
        checked before the operands are parsed (names, static arguments, counts) is checked here."""
        assert isinstance(node, Tree)
        ch = node.children
        span = self.span(node)
        match node.data:
            case "const":
                leaf: Expr = self.const(ch[0], span)
            case "bool_lit":
                leaf = Const(str(ch[0]) == "true", SCALARS["bool"], span)
            case "var":
                tok = ch[0]
                assert isinstance(tok, Token)
                leaf = VarRef(self.name(tok), self.lookup(tok), span)
            case "builtin":
                reg, _, dim = str(ch[0]).partition(".")
                leaf = Builtin(BuiltinReg(reg), Dim(dim), builtin_type(self.level), span)
            case "unary":
                op_tok, operand = ch
                uop = UnaryOp(str(op_tok))
                return (lambda a: self.typed(Unary(uop, a[0], VOID, span))), [operand]
            case "binary":
                lhs, op_tok, rhs = ch
                bop = BinaryOp(str(op_tok))
                return (lambda a: self.typed(Binary(bop, a[0], a[1], VOID, span))), [lhs, rhs]
            case "call_expr":
                callee, statics_ch, *args_ch = ch
                assert isinstance(callee, Token) and (statics_ch is None or isinstance(statics_ch, Tree))
                statics = [] if statics_ch is None else list(statics_ch.children)
                operands = [a for a in args_ch if a is not None]
                return self.call_expr(callee, statics, operands, span), operands
            case other:
                raise AssertionError(f"unknown expression rule {other}")
        return (lambda _: leaf), []

    def const(self, tok: _Node, span: Span) -> Const:
        value_text, _, type_text = str(tok).rpartition(":")
        t = SCALARS[type_text]
        value: bool | int | float
        if value_text in ("true", "false"):
            value = value_text == "true"
        elif _INTEGER.fullmatch(value_text):
            value = self.digits(value_text, tok)
        elif value_text == "nan":
            value = math.nan  # one shared object, so that equal modules compare equal (nan != nan)
        else:
            value = float(value_text)
        return Const(value, t, span)

    def call_expr(
        self, callee: Token, statics: list[_Node], operands: list[_Node], span: Span
    ) -> Callable[[list[Expr]], Expr]:
        """How to build a prefix form ``name<statics>(operands)`` (an operator, a cast, a constructor or
        a math call) from its operands.

        The name and the static arguments are checked now, before the operands are parsed, so that a
        misspelt operation is reported as such rather than as an error inside its operands.
        """
        name = str(callee)
        head, _, suffix = name.partition(".")

        def expect(n_statics: int, *n_args: int) -> None:
            """Check the counts of static arguments and operands (any operand count if none given)."""
            if suffix and head not in ("reduce", "scan", "combine"):
                raise self.error(f"unknown operation {name!r}", callee)
            if len(statics) != n_statics:
                raise self.error(f"{name} takes {n_statics} static argument(s) in <...>, got {len(statics)}", callee)
            if n_args and len(operands) not in n_args:
                wanted = " or ".join(str(c) for c in n_args)
                raise self.error(f"{name} takes {wanted} operand(s), got {len(operands)}", callee)

        match head:
            case "min" | "max":
                expect(0, 2)
                minmax = BinaryOp(head)
                return lambda a: self.typed(Binary(minmax, a[0], a[1], VOID, span))
            case "select":
                expect(0, 3)
                return lambda a: self.typed(Select(a[0], a[1], a[2], VOID, span))
            case "convert" | "bitcast":
                expect(1, 1)
                target = self.static_type(statics[0])
                kind = CastKind(head)
                return lambda a: Cast(a[0], target, kind, span)
            case "ptradd":
                expect(0, 2)
                return lambda a: self.typed(PtrAdd(a[0], a[1], VOID, span))
            case "extract":
                expect(0, 2)
                return lambda a: self.extract(a[0], a[1], span)
            case "insert":
                expect(0, 3)
                return lambda a: self.typed(Insert(a[0], a[1], a[2], VOID, span))
            case "vector":
                expect(1)
                vector_type = self.static_type(statics[0])
                return lambda a: MakeVector(tuple(a), vector_type, span)
            case "arange":
                expect(2, 0)
                start, end = self.static_int(statics[0]), self.static_int(statics[1])
                return lambda _: self.typed_block(Arange(start, end, BlockType(I32, ()), span))
            case "splat" | "broadcast" | "reshape":
                expect(1, 1)
                shape = BlockType(I32, self.dims(statics[0]))  # the element comes from the operand
                if head == "splat":
                    return lambda a: self.typed_block(Splat(a[0], shape, span))
                if head == "broadcast":
                    return lambda a: self.typed_block(Broadcast(a[0], shape, span))
                return lambda a: self.typed_block(Reshape(a[0], shape, span))
            case "reduce":
                expect(1, 1)
                op = next((r for r in ReduceOp if r.value == suffix), None)
                if op is None:
                    raise self.error(f"unknown reduction {name!r}", callee)
                reduce_op = op
                axis = self.static_int(statics[0])
                return lambda a: self.typed(Reduce(reduce_op, a[0], axis, VOID, span))
            case "permute":
                expect(1, 1)
                perm = self.dims(statics[0])
                return lambda a: self.typed_block(Permute(a[0], perm, BlockType(I32, ()), span))
            case "scan":
                expect(1, 1)
                op_name, _, rev = suffix.partition(".")
                scan_op = next((r for r in ReduceOp if r.value == op_name), None)
                if scan_op is None or rev not in ("", "reverse"):
                    raise self.error(f"unknown scan {name!r}", callee)
                scan_axis = self.static_int(statics[0])
                op_of_scan = scan_op
                placeholder = BlockType(I32, ())
                return lambda a: self.typed_block(
                    Scan(op_of_scan, a[0], scan_axis, rev == "reverse", placeholder, span)
                )
            case "combine":
                expect(3)
                kind_name, _, rev = suffix.partition(".")
                combine_of = next((k for k in CombineKind if k.value == kind_name), None)
                if combine_of is None or rev not in ("", "reverse"):
                    raise self.error(f"unknown operation {name!r}", callee)
                func_tok = statics[0]
                if not (isinstance(func_tok, Token) and func_tok.type == "FUNC"):
                    raise self.error("expected a function name (@name)", func_tok)
                func = self.name(func_tok)
                combine_axis, result = self.static_int(statics[1]), self.static_int(statics[2])
                combine_kind = combine_of
                return lambda a: self.typed(
                    Combine(combine_kind, func, tuple(a), result, combine_axis, rev == "reverse", VOID, span)
                )
            case "dot":
                expect(1, 2, 3)
                elem = self.static_type(statics[0])
                if not isinstance(elem, ScalarType):
                    raise TypeCheckError(f"result of dot must have a numeric element, got {elem}", span)
                dot_type = BlockType(elem, ())
                return lambda a: self.typed_block(Dot(a[0], a[1], a[2] if len(a) > 2 else None, dot_type, span))
            case _:
                fn = next((f for f in MathFn if f.value == head), None)
                if fn is None or suffix not in ("", "approx"):
                    raise self.error(f"unknown operation {name!r}", callee)
                if statics:
                    raise self.error(f"{name} takes no static arguments", callee)
                math_fn = fn
                return lambda a: self.typed(MathCall(math_fn, tuple(a), VOID, suffix == "approx", span))

    def extract(self, vector: Expr, index: Expr, span: Span) -> Extract:
        """``extract(vector, index)``, typed as the vector's element."""
        extract = Extract(vector, index, I32, span)
        lane_type = expected_type(extract, self.level)
        assert isinstance(lane_type, ScalarType)  # the rule gives the vector's element
        return replace(extract, type=lane_type)

    def static_type(self, node: _Node) -> Type:
        if isinstance(node, Token):
            raise self.error(f"expected a type, got {str(node)!r}", node)
        return self.type(node)

    def static_int(self, node: _Node) -> int:
        if isinstance(node, Tree):
            raise self.error("expected an integer", node)
        return self.integer(node)
