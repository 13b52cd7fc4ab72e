"""The C preprocessor of the CUDA frontend, with a map from its output back to the user's source.

tree-sitter-cuda parses CUDA C++ but does not expand macros, so this pass runs first. It implements the
part of the C preprocessor that real kernels use: line splicing, comments, object-like and function-like
macros (``#``, ``##``, variadic, ``__VA_OPT__``, hide sets), conditionals with a C constant-expression
evaluator, quoted includes, and pragmas, which it keeps for the frontend.

The output keeps the layout of the input so that diagnostics stay readable:

* a line without directives or macro invocations is emitted unchanged (comments become spaces), so
  output line L column C is input line L column C in the common case;
* a directive line, and every line of a skipped conditional group, becomes an empty line;
* a line with expansions is rebuilt from its tokens, each token at its original column where possible;
  the characters an expansion produced map to the span of the whole invocation (``MAX(a, b)``);
* a function-like invocation that spans several lines is emitted on its first line, followed by
  empty lines for the others;
* ``#include "file"`` becomes an empty line followed by the lines of that file, mapped to that file.

:class:`SourceMap` maps any output position back to a :class:`~larkc.errors.Span` of the source.
Columns are 1-based character (not byte) columns, end-exclusive, like :class:`~larkc.errors.Span`.

Includes are searched as nvcc searches them: ``#include "h"`` in the directory of the including file,
then in the include directories (``-I``, :attr:`~larkc.tasks.Task.include_dirs`) in order;
``#include <h>`` in the include directories only. A header larkc models itself (:data:`SYSTEM_HEADERS`:
the C and C++ standard headers, the CUDA toolkit's, PyTorch's) is known by name and skipped; a
header found in no include directory is looked for among the headers of the machine larkc does not model
(the CUDA toolkit's include directory, OpenMP, THC, POSIX: :mod:`~larkc.frontends.cuda.headers`), skipped
and recorded if it is one; any other is a located error naming the directories searched.
"""

from __future__ import annotations

import bisect
import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Final, NamedTuple, assert_never

from larkc.errors import LarkcError, SourceCache, Span, Stage, UnsupportedError
from larkc.frontends.cuda.headers import SkippedHeader, host_library
from larkc.ir.cnumbers import (
    FloatLiteral,
    IntLiteral,
    LiteralProblem,
    char_values,
    parse_literal,
    shift,
    trunc_div,
    trunc_rem,
)
from larkc.ir.types import I64, U64

__all__ = [
    "SYSTEM_HEADERS",
    "Macro",
    "MacroKind",
    "OutputLine",
    "PPToken",
    "Preprocessed",
    "Segment",
    "SourceMap",
    "TokenKind",
    "evaluate_if",
    "preprocess",
    "preprocess_file",
]

# --------------------------------------------------------------------------------------------------
# Public data


class TokenKind(enum.Enum):
    """The kind of a preprocessing token (C11 6.4, C++17 [lex.pptoken])."""

    IDENT = "ident"  # identifier or keyword: the only kind a macro name can have
    NUMBER = "number"  # preprocessing number: 12, 0x1Fu, 1.5e-3f, 1'000 (C++14 digit separators)
    STRING = "string"  # string literal, quotes and encoding prefix included
    CHAR = "char"  # character literal, quotes and encoding prefix included
    PUNCT = "punct"  # punctuator: + ## ... <<= ->
    OTHER = "other"  # any other character (@, `, \), or an unterminated quote and the rest of its line
    PLACEMARKER = "placemarker"  # the empty token of an empty argument next to ## (never in the output)


@dataclass(frozen=True, slots=True)
class PPToken:
    """A preprocessing token and the source it stands for.

    ``span`` is the token itself for a token read from a file, and the whole macro invocation for a token
    an expansion produced. ``exact`` says the text is a verbatim copy of ``span`` (one line, one column per
    character), so that each character maps to its own column. ``space`` says whitespace preceded the
    token (it matters to ``#`` and to the spacing of the output); ``hide`` is the hide set of C's
    rescanning rule: the macros that must not be expanded again at this token.
    """

    kind: TokenKind
    text: str
    span: Span = field(compare=False)
    exact: bool = field(default=False, compare=False)
    space: bool = field(default=False, compare=False)
    hide: frozenset[str] = field(default=frozenset(), compare=False)


class MacroKind(enum.Enum):
    """How a macro is expanded."""

    OBJECT = "object"  # `#define NAME body`: every occurrence of NAME is replaced by body
    FUNCTION = "function"  # `#define NAME(params) body`: replaced only where NAME is followed by `(`
    LINE = "line"  # `__LINE__`: the line number of the invocation
    FILE = "file"  # `__FILE__`: the name of the file of the invocation, as a string literal


@dataclass(frozen=True, slots=True)
class Macro:
    """A macro definition.

    ``params`` are the parameter names of a function-like macro; when ``variadic`` the last one names
    the variable arguments (``__VA_ARGS__``, or ``args`` for GNU's ``args...``). ``span`` is the name in
    the ``#define`` (file ``<built-in>`` or ``<command line>`` for predefined and user defines).
    """

    name: str
    kind: MacroKind
    params: tuple[str, ...]
    variadic: bool
    body: tuple[PPToken, ...]
    span: Span = field(compare=False)

    @property
    def replacement(self) -> str:
        """The replacement list as text, tokens separated by single spaces where the source had space."""
        return _spell(self.body)


@dataclass(frozen=True, slots=True)
class Segment:
    """Output columns ``[start, end)`` of one line and the source they come from.

    When ``exact``, output column ``start + k`` is column ``span.col + k`` of ``span.line``; otherwise
    every column of the segment stands for the whole of ``span`` (a macro invocation).
    """

    start: int
    end: int
    span: Span
    exact: bool

    def at(self, col: int) -> Span:
        """The source of output column ``col`` (extrapolated along the line past an exact segment)."""
        if self.exact:
            return Span.point(self.span.file, self.span.line, self.span.col + (col - self.start))
        if col >= self.end:
            return Span.point(self.span.file, self.span.end_line, self.span.end_col)
        return self.span


@dataclass(frozen=True, slots=True)
class OutputLine:
    """One line of the output, the source of each of its segments, and the source line it stands for."""

    text: str
    segments: tuple[Segment, ...]
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class SourceMap:
    """Maps positions of the preprocessed text back to the original files.

    Output positions are 1-based (line, character column), as in :class:`~larkc.errors.Span`. Positions
    outside the output are clamped, so a query never fails.
    """

    file: str
    lines: tuple[OutputLine, ...]

    def point(self, line: int, col: int) -> Span:
        """The source of the output character at ``(line, col)``: itself, or the invocation it came from.

        Whitespace between tokens maps to the next token; a column past the end of a line continues the
        last token's line; an empty line (a directive, a skipped line) maps to column 1 of its line.
        """
        if not self.lines:
            return Span.point(self.file, 1, 1)
        out = self.lines[min(max(line, 1), len(self.lines)) - 1]
        segments = out.segments
        if not segments:
            return Span.point(out.file, out.line, 1)
        col = max(col, 1)
        k = bisect.bisect_right(segments, col, key=lambda s: s.start) - 1
        if k >= 0 and col < segments[k].end:
            return segments[k].at(col)
        if k + 1 < len(segments):
            return segments[k + 1].at(segments[k + 1].start)
        return segments[-1].at(col)

    def span(self, line: int, col: int, end_line: int, end_col: int) -> Span:
        """The source of output range ``(line, col)`` to ``(end_line, end_col)``, end-exclusive.

        The result runs from the source of the first character to the source of the last one when both
        are in one file; otherwise (a range crossing an include boundary) it is the first one's source.
        """
        first = self.point(line, col)
        if (end_line, end_col) <= (line, col + 1):
            return first
        if end_col > 1:
            last = self.point(end_line, end_col - 1)
        else:
            prev = min(max(end_line - 1, 1), max(len(self.lines), 1))
            width = len(self.lines[prev - 1].text) if self.lines else 1
            last = self.point(prev, max(width, 1))
        if last.file != first.file:
            return first
        return first.join(last)

    def span_of_points(self, start: tuple[int, int], end: tuple[int, int]) -> Span:
        """:meth:`span` for tree-sitter points: 0-based rows and UTF-8 byte columns, end-exclusive."""
        return self.span(start[0] + 1, self._char_col(start) + 1, end[0] + 1, self._char_col(end) + 1)

    def _char_col(self, point: tuple[int, int]) -> int:
        row, byte_col = point
        if not 0 <= row < len(self.lines):
            return byte_col
        return len(self.lines[row].text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


@dataclass(frozen=True, slots=True)
class Preprocessed:
    """The result of :func:`preprocess`.

    ``system_includes`` are the ``#include`` names that were skipped as known headers
    (:data:`SYSTEM_HEADERS`), in order; ``skipped_headers`` the headers of the machine larkc does not
    model (the toolkit's others, OpenMP's, ...: :mod:`~larkc.frontends.cuda.headers`), in order.
    """

    text: str
    source_map: SourceMap
    macros: Mapping[str, Macro]
    system_includes: tuple[str, ...] = ()
    skipped_headers: tuple[SkippedHeader, ...] = ()


# The C++17 and C++20 standard library headers, and the C standard headers in both spellings: device
# code uses the few std names larkc models as builtins; the rest is host code, which is not verified.
_STD_HEADERS: Final = (  # noqa: SIM905 - word lists read better than one quoted name a line
    "algorithm any array atomic barrier bit bitset charconv chrono codecvt compare complex concepts"
    " condition_variable coroutine deque exception execution filesystem format forward_list fstream"
    " functional future initializer_list iomanip ios iosfwd iostream istream iterator latch limits list"
    " locale map memory memory_resource mutex new numbers numeric optional ostream queue random ranges"
    " ratio regex scoped_allocator semaphore set shared_mutex source_location span sstream stack stdexcept"
    " stop_token streambuf string string_view strstream system_error thread tuple type_traits typeindex"
    " typeinfo unordered_map unordered_set utility valarray variant vector version"
).split()
_C_HEADERS: Final = (  # noqa: SIM905 - as above
    "assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdalign stdarg"
    " stdbool stddef stdint stdio stdlib string tgmath time uchar wchar wctype"
).split()
# The CUDA toolkit's headers that kernels include (larkc models the device functions and types they declare).
_CUDA_HEADERS: Final = (  # noqa: SIM905 - as above
    "cooperative_groups.h cublasLt.h cublas_v2.h cuda.h cuda_awbarrier.h cuda_bf16.h cuda_bf16.hpp cuda_fp16.h"
    " cuda_fp16.hpp cuda_fp8.h cuda_fp8.hpp cuda_pipeline.h cuda_runtime.h cuda_runtime_api.h curand.h"
    " curand_kernel.h device_atomic_functions.h device_functions.h device_launch_parameters.h driver_types.h"
    " math_constants.h math_functions.h mma.h sm_20_atomic_functions.h sm_32_intrinsics.h"
    " sm_60_atomic_functions.h sm_61_intrinsics.h vector_functions.h vector_types.h"
).split()

#: Headers that are known by name and skipped, in ``<...>`` or ``"..."`` form: larkc models their contents.
SYSTEM_HEADERS: Final = frozenset(
    [*_STD_HEADERS, *(f"c{h}" for h in _C_HEADERS), *(f"{h}.h" for h in _C_HEADERS), *_CUDA_HEADERS]
)

# Libraries whose every header is known: the CUDA toolkit's (`<cooperative_groups/reduce.h>`, cub, thrust,
# libcu++) and PyTorch's (`<torch/extension.h>`, `<ATen/cuda/CUDAContext.h>`, `<c10/util/Half.h>`).
_SYSTEM_PREFIXES: Final = ("cooperative_groups/", "cub/", "thrust/", "cuda/", "nv/", "torch/", "ATen/", "c10/")

# Macros every translation unit starts with: what nvcc defines when it compiles device code for sm_80.
_PREDEFINED: Final = (
    ("__CUDACC__", "1"),  # compiled by nvcc's CUDA compiler: kernels take their CUDA paths
    ("__NVCC__", "1"),
    ("__CUDA_ARCH__", "800"),  # the device pass for sm_80 (Ampere), the architecture larkc models
    ("__cplusplus", "201703L"),  # C++17, nvcc's default dialect
)

_NO_DEFINES: Final[Mapping[str, str]] = MappingProxyType({})

# Limits that turn runaway inputs into located errors instead of hangs or Python recursion errors.
_MAX_INCLUDE_DEPTH: Final = 64  # nested #include levels (an unguarded include cycle reaches it)
_MAX_NESTING: Final = 64  # nested parentheses/unary operators in #if, nested macro arguments
_MAX_EXPANSION = 1_000_000  # tokens produced by expansion in one run (~10 s); not Final: tests lower it


def preprocess(
    text: str,
    file: str,
    *,
    defines: Mapping[str, str] = _NO_DEFINES,
    include_dirs: Sequence[str | Path] = (),
    cuda_include: Path | None = None,
) -> Preprocessed:
    """Preprocess CUDA C++ ``text`` read from ``file`` (the name used in spans and for quoted includes).

    ``defines`` are ``-D`` options: ``{"BLOCK": "256"}``; ``""`` defines a macro as empty, and a key such
    as ``"SQ(x)"`` defines a function-like macro. They override the predefined macros. ``include_dirs``
    are searched in order for ``#include <...>``, and after the including file's directory for
    ``#include "..."`` (see the module docstring); each must be a directory. ``cuda_include`` is the CUDA
    toolkit's include directory (:func:`~larkc.frontends.cuda.headers.cuda_include_dir`), where a header
    found in no include directory is looked for last: one there is known and skipped.
    Raises :class:`~larkc.errors.LarkcError` (stage ``preprocess``) for every error in the input.
    """
    normalized = _normalize(text)
    SourceCache.register(file, text)
    dirs = [Path(d) for d in include_dirs]
    missing = [str(d) for d in dirs if not d.is_dir()]
    if missing:
        raise _error(f"include directory not found: {', '.join(missing)}", None)
    pp = _Preprocessor(dirs, cuda_include)
    try:
        pp.predefine(defines)
        pp.run_main(normalized, file)
    except RecursionError:  # a last resort: the explicit limits above should fire first
        raise LarkcError(
            "input nested too deeply to preprocess", Span.point(file, 1, 1), stage=Stage.PREPROCESS
        ) from None
    lines = tuple(pp.output)
    out = "\n".join(line.text for line in lines)
    if normalized.endswith("\n"):
        out += "\n"
    return Preprocessed(
        text=out,
        source_map=SourceMap(file, lines),
        macros=MappingProxyType(dict(pp.macros)),
        system_includes=tuple(pp.system_includes),
        skipped_headers=tuple(pp.skipped_headers),
    )


def evaluate_if(expression: str, *, defines: Mapping[str, str] = _NO_DEFINES, file: str = "<if>") -> int:
    """The value of ``#if expression`` with the predefined macros and ``defines``.

    A negative result is a negative intmax_t; a uintmax_t result is in ``[0, 2**64)``. The expression is
    named ``file`` in errors. Used by tests and tools; :func:`preprocess` evaluates conditionals itself.
    """
    normalized = _normalize(expression)
    SourceCache.register(file, expression)
    pp = _Preprocessor([])
    pp.predefine(defines)
    lines = _logical_lines(normalized, file)
    if len(lines) != 1:
        raise _error("a #if expression must be one line", Span.point(file, 1, 1))
    tokens = lines[0].tokens(_scan_tokens(lines[0].text))
    where = lines[0].span(0, len(lines[0].text))
    if not tokens:
        raise _error("#if with no expression", where)
    try:
        return pp.if_value("if", where, tokens)
    except RecursionError:
        raise _error("input nested too deeply to preprocess", where) from None


def preprocess_file(
    path: Path,
    *,
    defines: Mapping[str, str] = _NO_DEFINES,
    include_dirs: Sequence[str | Path] = (),
    cuda_include: Path | None = None,
) -> Preprocessed:
    """:func:`preprocess` the file at ``path`` (named ``str(path)`` in spans)."""
    return preprocess(_read(Path(path), None), str(path), defines=defines, include_dirs=include_dirs)


# --------------------------------------------------------------------------------------------------
# Errors and small helpers


def _error(message: str, span: Span | None, notes: tuple[str, ...] = ()) -> LarkcError:
    return LarkcError(message, span, stage=Stage.PREPROCESS, notes=notes)


def _read(path: Path, span: Span | None) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _error(f"{path} is not UTF-8 text", span) from None
    except OSError as e:
        raise _error(f"cannot read {path}: {e.strerror or e}", span) from None


def _normalize(text: str) -> str:
    """Unix newlines; a byte-order mark becomes a space so that columns of line 1 stay put."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    return text


def _join(a: Span, b: Span) -> Span:
    """``a`` extended to cover ``b`` when both are in one file (an invocation from name to ``)``)."""
    return a.join(b) if a.file == b.file else a


def _spell(tokens: Sequence[PPToken]) -> str:
    """Tokens as text, separated by one space where whitespace preceded them (the spelling ``#`` uses)."""
    parts: list[str] = []
    for k, tok in enumerate(tokens):
        if k and tok.space:
            parts.append(" ")
        parts.append(tok.text)
    return "".join(parts)


def _is(tok: PPToken | None, punct: str) -> bool:
    return tok is not None and tok.kind is TokenKind.PUNCT and tok.text == punct


def _stringify(tokens: Sequence[PPToken]) -> str:
    """The string literal ``#`` makes of an argument: ``\\`` and ``"`` escaped inside literals only."""
    escaped = [
        replace(t, text=t.text.replace("\\", "\\\\").replace('"', '\\"'))
        if t.kind in (TokenKind.STRING, TokenKind.CHAR)
        else t
        for t in tokens
    ]
    return '"' + _spell(escaped) + '"'


def _quote(text: str) -> str:
    """``text`` as a C string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------------------------------
# Lexing: physical lines -> logical lines (splices joined, comments blanked) -> tokens

_TOKEN_RE: Final = re.compile(
    r"""
    (?P<ws>[ \t\f\v]+)
    |(?P<string>(?:u8|[uUL])?"(?:[^"\\]|\\.)*")
    |(?P<char>(?:u8|[uUL])?'(?:[^'\\]|\\.)*')
    |(?P<unterminated>(?:u8|[uUL])?["'].*)
    |(?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)
    |(?P<ident>[A-Za-z_$][0-9A-Za-z_$]*)
    |(?P<punct>\.\.\.|<<=|>>=|->\*|\#\#|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|::|\.\*
        |[][(){}<>.,;:?~!+\-*/%&|^=\#])
    |(?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_GROUP_KIND: Final = {
    "string": TokenKind.STRING,
    "char": TokenKind.CHAR,
    "unterminated": TokenKind.OTHER,
    "number": TokenKind.NUMBER,
    "ident": TokenKind.IDENT,
    "punct": TokenKind.PUNCT,
    "other": TokenKind.OTHER,
}

# Finds comments in the spliced text of a file. Literals and pp-numbers are matched whole so that `//`
# inside a string, or the `'` of a digit separator, is not mistaken for a comment or a char literal; an
# unterminated literal runs to the end of its line, as in gcc.
_SCAN_RE: Final = re.compile(
    r"""
    (?P<block>/\*)
    |(?P<line>//[^\n]*)
    |(?:u8|[uUL])?"(?:[^"\\\n]|\\[^\n])*"?
    |(?:u8|[uUL])?'(?:[^'\\\n]|\\[^\n])*'?
    |\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*
    |[A-Za-z_$][0-9A-Za-z_$]*
    |[^/"'.0-9A-Za-z_$]+
    |.
    """,
    re.VERBOSE | re.DOTALL,
)


class _Raw(NamedTuple):
    """A token of a logical line before it gets a span: its kind and ``[start, end)`` in the line."""

    kind: TokenKind
    start: int
    end: int
    space: bool


@dataclass(frozen=True, slots=True)
class _Line:
    """A logical line: physical lines joined by backslash-newlines and by block comments that span lines.

    ``text`` has comments replaced by spaces (a newline inside a comment too). ``pieces`` holds the
    offset in ``text`` where each physical line's part starts and that line's number; parts start at
    column 1. ``physical`` are the comment-blanked physical lines, which a line without splices emits
    as they are.
    """

    file: str
    text: str
    offsets: tuple[int, ...]
    numbers: tuple[int, ...]
    physical: tuple[str, ...]
    spliced: bool

    @property
    def first(self) -> int:
        return self.numbers[0]

    @property
    def last(self) -> int:
        return self.numbers[-1]

    @property
    def is_directive(self) -> bool:
        return self.text.lstrip(" \t\f\v").startswith("#")

    def locate(self, offset: int) -> tuple[int, int, int]:
        """Physical line, column and piece index of the character at ``offset`` of ``text``."""
        k = bisect.bisect_right(self.offsets, offset) - 1
        return self.numbers[k], offset - self.offsets[k] + 1, k

    def tokens(self, raws: Sequence[_Raw]) -> list[PPToken]:
        """Tokens with spans; a token that spans a backslash-newline is not exact."""
        out: list[PPToken] = []
        for raw in raws:
            line, col, piece = self.locate(raw.start)
            end_line, end_col, end_piece = self.locate(raw.end - 1)
            span = Span(self.file, line, col, end_line, end_col + 1)
            out.append(PPToken(raw.kind, self.text[raw.start : raw.end], span, piece == end_piece, raw.space))
        return out

    def span(self, start: int, end: int) -> Span:
        """The span of ``text[start:end]`` (a point at ``start`` when empty)."""
        line, col, _ = self.locate(start)
        if end <= start:
            return Span.point(self.file, line, col)
        end_line, end_col, _ = self.locate(end - 1)
        return Span(self.file, line, col, end_line, end_col + 1)


def _scan_tokens(text: str) -> list[_Raw]:
    raws: list[_Raw] = []
    space = False
    for m in _TOKEN_RE.finditer(text):
        group = m.lastgroup
        if group == "ws":
            space = True
            continue
        assert group is not None
        raws.append(_Raw(_GROUP_KIND[group], m.start(), m.end(), space))
        space = False
    return raws


def _lex_one(text: str) -> TokenKind | None:
    """The kind of ``text`` if it is exactly one token (what ``##`` must produce), else None."""
    m = _TOKEN_RE.match(text)
    if m is None or m.end() != len(text) or m.lastgroup in (None, "ws", "unterminated"):
        return None
    kind = _GROUP_KIND[m.lastgroup or ""]
    if kind is TokenKind.OTHER:
        return None
    return kind


def _would_paste(left: str, right: str) -> bool:
    """Whether ``left`` written right before ``right`` would lex differently (``-`` ``-`` is ``--``)."""
    if left.endswith("/") and right.startswith(("/", "*")):
        return True
    m = _TOKEN_RE.match(left + right)
    return m is not None and m.end() > len(left)


def _logical_lines(text: str, file: str) -> list[_Line]:
    """Split normalized ``text`` into logical lines (C translation phases 2 and 3)."""
    physical = text.split("\n")
    if text.endswith("\n"):
        physical.pop()
    # Phase 2: join lines ending in a backslash (trailing blanks after it tolerated, as gcc does).
    chunks: list[str] = []
    starts: list[int] = []
    spliced: set[int] = set()
    pos = 0
    for number, content in enumerate(physical, 1):
        stripped = content.rstrip(" \t")
        if stripped.endswith("\\") and number < len(physical):
            piece = stripped[:-1]
            spliced.add(number)
        else:
            piece = content + "\n"
        starts.append(pos)
        chunks.append(piece)
        pos += len(piece)
    stream = "".join(chunks)

    # Phase 3: comments become spaces; newlines inside block comments stay, marked soft.
    blanked: list[str] = []
    soft: set[int] = set()
    i = 0
    while i < len(stream):
        m = _SCAN_RE.match(stream, i)
        assert m is not None  # the last alternative matches any character
        if m.lastgroup == "block":
            close = stream.find("*/", i + 2)
            if close < 0:
                k = bisect.bisect_right(starts, i) - 1
                raise _error("unterminated comment", Span(file, k + 1, i - starts[k] + 1, k + 1, i - starts[k] + 3))
            comment = stream[i : close + 2]
            blanked.append("".join("\n" if c == "\n" else " " for c in comment))
            soft.update(i + j for j, c in enumerate(comment) if c == "\n")
            i = close + 2
        elif m.lastgroup == "line":
            blanked.append(" " * (m.end() - i))
            i = m.end()
        else:
            blanked.append(m.group())
            i = m.end()
    body = "".join(blanked)

    lines: list[_Line] = []
    start = 0
    for m in re.finditer("\n", body):
        end = m.start()
        if end in soft:
            continue
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, end) - 1
        segment = body[start:end]
        lines.append(
            _Line(
                file=file,
                text=segment.replace("\n", " "),
                offsets=tuple(starts[k] - start for k in range(first, last + 1)),
                numbers=tuple(range(first + 1, last + 2)),
                physical=tuple(segment.split("\n")),
                spliced=any(n in spliced for n in range(first + 1, last + 1)),
            )
        )
        start = end + 1
    return lines


def _render(tokens: Sequence[PPToken], file: str, line: int) -> tuple[str, tuple[Segment, ...]]:
    """Tokens as the text of output line ``line`` of ``file``, and its segments.

    Up to the first expansion (and including its first token), a token from this source line goes to its
    original column, so that columns stay put there; after it, tokens are separated as the source
    separated them, or by a space where they would otherwise lex as one token.
    """
    parts: list[str] = []
    segments: list[Segment] = []
    col = 1
    prev: PPToken | None = None
    expanded = False  # an expansion came before: from here on, columns differ from the source anyway
    for tok in tokens:
        span = tok.span
        anchored = span.file == file and span.line == line and not expanded
        expanded = expanded or not tok.exact
        if anchored and span.col > col:
            pad = span.col - col
        elif prev is not None and (tok.space or _would_paste(prev.text, tok.text)):
            pad = 1
        else:
            pad = 0
        if pad:
            parts.append(" " * pad)
            col += pad
        segments.append(Segment(col, col + len(tok.text), span, tok.exact))
        parts.append(tok.text)
        col += len(tok.text)
        prev = tok
    return "".join(parts), tuple(segments)


# --------------------------------------------------------------------------------------------------
# #if expressions


class _IfOp(enum.Enum):
    """A binary operator of a #if expression; the value is its C precedence (higher binds tighter)."""

    MUL = ("*", 10)  # multiplication, wrapping modulo 2^64
    DIV = ("/", 10)  # division truncating toward zero; by zero is an error where evaluated
    MOD = ("%", 10)  # remainder with the sign of the dividend
    ADD = ("+", 9)  # addition
    SUB = ("-", 9)  # subtraction
    SHL = ("<<", 8)  # left shift: the left operand's type; a negative count shifts right (gcc)
    SHR = (">>", 8)  # arithmetic right shift for signed, logical for unsigned
    LT = ("<", 7)  # comparisons: 0 or 1 of type intmax_t, after the usual conversions
    LE = ("<=", 7)
    GT = (">", 7)
    GE = (">=", 7)
    EQ = ("==", 6)
    NE = ("!=", 6)
    BITAND = ("&", 5)  # bitwise and
    BITXOR = ("^", 4)  # bitwise exclusive or
    BITOR = ("|", 3)  # bitwise or
    AND = ("&&", 2)  # logical and, short-circuit: the right operand is not evaluated after a 0
    OR = ("||", 1)  # logical or, short-circuit

    @property
    def precedence(self) -> int:
        return self.value[1]


_IF_OPS: Final = {op.value[0]: op for op in _IfOp}
_U64: Final = (1 << 64) - 1


class _IntValue(NamedTuple):
    """A value of a #if expression: intmax_t (int64) or, when ``unsigned``, uintmax_t (uint64)."""

    value: int
    unsigned: bool


def _wrap(value: int, unsigned: bool) -> _IntValue:
    value &= _U64
    if not unsigned and value >= 1 << 63:
        value -= 1 << 64
    return _IntValue(value, unsigned)


def _int_literal(tok: PPToken) -> _IntValue:
    """The value of an integer constant in #if (C11 6.4.4.1, with intmax_t/uintmax_t as every type)."""
    lit = parse_literal(tok.text)
    match lit:
        case IntLiteral(value=value, unsigned=unsigned):
            # A constant too large for intmax_t is unsigned, as in gcc.
            return _IntValue(value, unsigned or value >= 1 << 63)
        case FloatLiteral():
            raise _error("floating constant in #if expression", tok.span)
        case LiteralProblem.OCTAL_DIGIT:
            raise _error(f'invalid digit in octal constant "{tok.text}"', tok.span)
        case LiteralProblem.TOO_LARGE:
            raise _error(f'integer constant "{tok.text}" is too large for its type', tok.span)
        case LiteralProblem.NOT_A_NUMBER:
            raise _error(f'invalid integer constant "{tok.text}" in #if expression', tok.span)
        case _:
            assert_never(lit)


def _char_literal(tok: PPToken) -> _IntValue:
    """The value of a character constant in #if: a plain char is signed (as nvcc's x86 host compiler)."""
    text = tok.text
    prefixed = not text.startswith("'")
    values = char_values(text)
    if values is None:
        raise _error(f"invalid escape sequence in character constant {text}", tok.span)
    if not values:
        raise _error("empty character constant", tok.span)
    if prefixed:
        return _IntValue(values[-1], False)
    if len(values) == 1:
        v = values[0] & 0xFF
        return _IntValue(v - 256 if v >= 128 else v, False)
    combined = 0
    for v in values:  # a multi-character constant is an int built from the bytes, as gcc does
        combined = ((combined << 8) | (v & 0xFF)) & 0xFFFFFFFF
    return _IntValue(combined - (1 << 32) if combined >= 1 << 31 else combined, False)


class _IfParser:
    """Parses and evaluates a macro-expanded #if expression in one pass (C11 6.10.1).

    ``skip`` marks operands that C does not evaluate (the right of ``0 &&``, the branch not taken): they
    are parsed and typed, but division by zero there is no error.
    """

    def __init__(self, tokens: Sequence[PPToken], directive: str, where: Span) -> None:
        self._tokens = tokens
        self._directive = directive
        self._where = where
        self._pos = 0
        self._depth = 0

    def evaluate(self) -> int:
        value = self._comma(skip=False)
        if self._pos < len(self._tokens):
            tok = self._tokens[self._pos]
            if _is(tok, ")"):
                raise _error(f"missing '(' in #{self._directive} expression", tok.span)
            if _is(tok, ":"):
                raise _error("':' without preceding '?'", tok.span)
            raise _error(f'missing binary operator before token "{tok.text}"', tok.span)
        return value.value

    def _peek(self) -> PPToken | None:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _comma(self, skip: bool) -> _IntValue:
        value = self._conditional(skip)
        while _is(self._peek(), ","):
            self._pos += 1
            value = self._conditional(skip)
        return value

    def _conditional(self, skip: bool) -> _IntValue:
        cond = self._binary(1, skip)
        question = self._peek()
        if not _is(question, "?"):
            return cond
        assert question is not None
        self._pos += 1
        taken = cond.value != 0
        self._enter(question)
        then = self._comma(skip or not taken)
        if not _is(self._peek(), ":"):
            raise _error("'?' without following ':'", question.span)
        self._pos += 1
        other = self._conditional(skip or taken)
        self._depth -= 1
        return _wrap((then if taken else other).value, then.unsigned or other.unsigned)

    def _binary(self, min_precedence: int, skip: bool) -> _IntValue:
        lhs = self._unary(skip)
        while True:
            tok = self._peek()
            op = _IF_OPS.get(tok.text) if tok is not None and tok.kind is TokenKind.PUNCT else None
            if op is None or op.precedence < min_precedence:
                return lhs
            assert tok is not None
            self._pos += 1
            if op is _IfOp.AND:
                rhs = self._binary(op.precedence + 1, skip or lhs.value == 0)
                lhs = _IntValue(int(lhs.value != 0 and rhs.value != 0), False)
            elif op is _IfOp.OR:
                rhs = self._binary(op.precedence + 1, skip or lhs.value != 0)
                lhs = _IntValue(int(lhs.value != 0 or rhs.value != 0), False)
            else:
                rhs = self._binary(op.precedence + 1, skip)
                lhs = self._apply(op, lhs, rhs, skip, tok)

    def _enter(self, tok: PPToken) -> None:
        self._depth += 1
        if self._depth > _MAX_NESTING:
            raise _error(f"#{self._directive} expression nested too deeply", tok.span)

    def _unary(self, skip: bool) -> _IntValue:
        tok = self._peek()
        if tok is None:
            prev = self._tokens[self._pos - 1] if self._pos else None
            if prev is None:
                raise _error(f"#{self._directive} with no expression", self._where)
            raise _error(f'missing operand after "{prev.text}" in #{self._directive} expression', prev.span)
        self._pos += 1
        if tok.kind is TokenKind.PUNCT and tok.text in ("+", "-", "~", "!", "("):
            self._enter(tok)
            if tok.text == "(":
                value = self._comma(skip)
                if not _is(self._peek(), ")"):
                    raise _error(f"missing ')' in #{self._directive} expression", tok.span)
                self._pos += 1
            else:
                operand = self._unary(skip)
                match tok.text:
                    case "+":
                        value = operand
                    case "-":
                        value = _wrap(-operand.value, operand.unsigned)
                    case "~":
                        value = _wrap(~operand.value, operand.unsigned)
                    case _:
                        value = _IntValue(int(operand.value == 0), False)
            self._depth -= 1
            return value
        match tok.kind:
            case TokenKind.NUMBER:
                return _int_literal(tok)
            case TokenKind.CHAR:
                return _char_literal(tok)
            case TokenKind.IDENT:
                if _is(self._peek(), "("):
                    return self._undefined_call(tok, skip)
                # C++ keeps the meaning of true and false in #if; any other identifier is 0.
                return _IntValue(1 if tok.text == "true" else 0, False)
            case TokenKind.STRING | TokenKind.PUNCT | TokenKind.OTHER | TokenKind.PLACEMARKER:
                raise _error(f'token "{tok.text}" is not valid in #{self._directive} expressions', tok.span)
            case _:
                assert_never(tok.kind)

    def _undefined_call(self, name: PPToken, skip: bool) -> _IntValue:
        """``NAME(...)`` of an undefined NAME: an error where evaluated, 0 in a skipped operand.

        The skipped case lets the usual guard ``defined(__has_builtin) && __has_builtin(x)`` through.
        """
        if not skip:
            raise _error(f"function-like macro {name.text} is not defined", name.span)
        depth = 0
        while self._pos < len(self._tokens):
            tok = self._tokens[self._pos]
            self._pos += 1
            if _is(tok, "("):
                depth += 1
            elif _is(tok, ")"):
                depth -= 1
                if depth == 0:
                    return _IntValue(0, False)
        raise _error(f"missing ')' in #{self._directive} expression", name.span)

    def _apply(self, op: _IfOp, lhs: _IntValue, rhs: _IntValue, skip: bool, tok: PPToken) -> _IntValue:
        if op in (_IfOp.SHL, _IfOp.SHR):
            return _shift(op is _IfOp.SHL, lhs, rhs)
        # The usual arithmetic conversions: unsigned if either operand is.
        unsigned = lhs.unsigned or rhs.unsigned
        x = _wrap(lhs.value, unsigned).value
        y = _wrap(rhs.value, unsigned).value
        match op:
            case _IfOp.MUL:
                return _wrap(x * y, unsigned)
            case _IfOp.DIV | _IfOp.MOD:
                if y == 0:
                    if skip:
                        return _IntValue(0, unsigned)
                    raise _error(f"division by zero in #{self._directive}", tok.span)
                return _wrap(trunc_div(x, y) if op is _IfOp.DIV else trunc_rem(x, y), unsigned)
            case _IfOp.ADD:
                return _wrap(x + y, unsigned)
            case _IfOp.SUB:
                return _wrap(x - y, unsigned)
            case _IfOp.LT:
                return _IntValue(int(x < y), False)
            case _IfOp.LE:
                return _IntValue(int(x <= y), False)
            case _IfOp.GT:
                return _IntValue(int(x > y), False)
            case _IfOp.GE:
                return _IntValue(int(x >= y), False)
            case _IfOp.EQ:
                return _IntValue(int(x == y), False)
            case _IfOp.NE:
                return _IntValue(int(x != y), False)
            case _IfOp.BITAND:
                return _wrap(x & y, unsigned)
            case _IfOp.BITXOR:
                return _wrap(x ^ y, unsigned)
            case _IfOp.BITOR:
                return _wrap(x | y, unsigned)
            case _IfOp.SHL | _IfOp.SHR | _IfOp.AND | _IfOp.OR:
                raise AssertionError(f"{op} is handled by the caller")
            case _:
                assert_never(op)


def _shift(left: bool, lhs: _IntValue, rhs: _IntValue) -> _IntValue:
    """``lhs << rhs`` or ``lhs >> rhs`` as gcc evaluates them: no usual conversions, any count allowed."""
    count = rhs.value
    if count < 0:
        count, left = -count, not left
    if count >= 64:  # what gcc gives for a count C leaves undefined: all bits shifted out
        return _IntValue(-1 if lhs.value < 0 and not left else 0, lhs.unsigned)
    shifted = shift(left, lhs.value, count, U64 if lhs.unsigned else I64)
    assert shifted is not None  # (0 <= count < 64)
    return _IntValue(shifted, lhs.unsigned)


# --------------------------------------------------------------------------------------------------
# The preprocessor


@dataclass(slots=True)
class _Conditional:
    """An open #if/#ifdef/#ifndef of the file being read, and the state of its current group."""

    directive: str  # "if", "ifdef" or "ifndef": named in "unterminated #if"
    span: Span  # the directive name, where unterminated conditionals are reported
    outer_active: bool  # the enclosing group is processed (else every group here is skipped)
    taken: bool  # some group of this conditional has been selected
    active: bool  # the current group is processed
    seen_else: bool = False


# Receives True to peek (take the next line only if it starts with `(`) or False to take the next line.
_More = Callable[[bool], list[PPToken] | None]

_CONDITIONALS: Final = frozenset({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"})
_UNSUPPORTED: Final = frozenset({"line", "ident", "sccs", "assert", "unassert", "include_next", "import"})


class _Preprocessor:
    """The state of one run: macros, the include stack, and the output lines so far."""

    def __init__(self, include_dirs: list[Path], cuda_include: Path | None = None) -> None:
        self.include_dirs = include_dirs
        self.cuda_include = cuda_include
        self.macros: dict[str, Macro] = {}
        self.output: list[OutputLine] = []
        self.system_includes: list[str] = []
        self.skipped_headers: list[SkippedHeader] = []
        self._stack: list[tuple[str, str]] = []  # (resolved key, name) of the files being read
        self._once: set[str] = set()
        self._pushed: dict[str, list[Macro | None]] = {}
        self._produced = 0

    # ---- files

    def predefine(self, defines: Mapping[str, str]) -> None:
        """The predefined macros, then the user's ``defines`` (processed as ``#define`` lines)."""
        for name, kind in (("__LINE__", MacroKind.LINE), ("__FILE__", MacroKind.FILE)):
            self.macros[name] = Macro(name, kind, (), False, (), Span.point("<built-in>", 1, 1))
        builtin = "".join(f"#define {name} {value}\n" for name, value in _PREDEFINED)
        lines: list[str] = []
        for name, value in defines.items():
            if any(c in name + value for c in "\n\r") or value.rstrip().endswith("\\"):
                raise _error(f"invalid define {name}={value!r}: a define must be one line", None)
            lines.append(f"#define {name} {value}\n")
        for file, text in (("<built-in>", builtin), ("<command line>", "".join(lines))):
            SourceCache.register(file, text)
            saved, self.output = self.output, []
            self._process(text, file, file)
            self.output = saved

    def run_main(self, text: str, file: str) -> None:
        self._process(text, file, _file_key(file))

    def _process(self, text: str, file: str, key: str) -> None:
        lines = _logical_lines(text, file)
        conds: list[_Conditional] = []
        self._stack.append((key, file))
        i = 0
        while i < len(lines):
            line = lines[i]
            active = conds[-1].active if conds else True
            if line.is_directive:
                self._directive(line, conds, active)
                i += 1
            elif active:
                i = self._text(lines, i)
            else:
                self._emit_blank(line)
                i += 1
        if conds:
            raise _error(f"unterminated #{conds[-1].directive}", conds[-1].span)
        self._stack.pop()

    # ---- output

    def _emit_blank(self, line: _Line) -> None:
        for number in range(line.first, line.last + 1):
            self.output.append(OutputLine("", (), line.file, number))

    def _emit_verbatim(self, line: _Line, raws: list[_Raw]) -> None:
        if line.spliced:  # a token may span the splice: rebuild the line from its tokens
            self._emit_tokens(line, line.last, line.tokens(raws))
            return
        for number, text in zip(line.numbers, line.physical, strict=True):
            segments = (Segment(1, len(text) + 1, Span(line.file, number, 1, number, len(text) + 1), True),)
            self.output.append(OutputLine(text, segments if text else (), line.file, number))

    def _emit_tokens(self, line: _Line, last: int, tokens: Sequence[PPToken]) -> None:
        """``tokens`` on the first line of ``line``, then empty lines up to source line ``last``.

        A ``_Pragma("...")`` operator (C11 6.10.9), typically from a macro such as
        ``#define UNROLL _Pragma("unroll")``, becomes a ``#pragma`` line of its own, as the frontend
        reads pragmas only as lines: the tokens before and after it go on lines of their own too.
        """
        chunk: list[PPToken] = []
        emitted = False
        i = 0
        while i <= len(tokens):
            tok = tokens[i] if i < len(tokens) else None
            if tok is not None and not (tok.kind is TokenKind.IDENT and tok.text == "_Pragma"):
                chunk.append(tok)
                i += 1
                continue
            if chunk or (tok is None and not emitted):
                text, segments = _render(chunk, line.file, line.first)
                self.output.append(OutputLine(text, segments, line.file, line.first))
                emitted = True
                chunk = []
            if tok is None:
                break
            args = tokens[i + 1 : i + 4]
            if len(args) < 3 or not _is(args[0], "(") or args[1].kind is not TokenKind.STRING or not _is(args[2], ")"):
                raise _error("_Pragma takes a parenthesized string literal", tok.span)
            literal = args[1].text
            content = literal[literal.index('"') + 1 : -1].replace('\\"', '"').replace("\\\\", "\\")
            text = f"#pragma {content}"
            span = _join(tok.span, args[2].span)
            self.output.append(OutputLine(text, (Segment(1, len(text) + 1, span, False),), line.file, line.first))
            emitted = True
            i += 4
        for number in range(line.first + 1, last + 1):
            self.output.append(OutputLine("", (), line.file, number))

    # ---- text lines

    def _text(self, lines: list[_Line], i: int) -> int:
        """Expand the text line ``lines[i]`` (and the lines an invocation spans); the next index."""
        line = lines[i]
        raws = _scan_tokens(line.text)
        _check_quotes(line, raws)
        names = [line.text[r.start : r.end] for r in raws if r.kind is TokenKind.IDENT]
        if not any(name in self.macros or name == "_Pragma" for name in names):
            self._emit_verbatim(line, raws)
            return i + 1
        following = i + 1

        def more(peek: bool) -> list[PPToken] | None:
            nonlocal following
            j = following
            while j < len(lines) and not lines[j].is_directive:
                candidate = lines[j]
                cand_raws = _scan_tokens(candidate.text)
                if peek and not cand_raws:
                    j += 1
                    continue
                if peek and not (cand_raws[0].kind is TokenKind.PUNCT and candidate.text[cand_raws[0].start] == "("):
                    return None
                _check_quotes(candidate, cand_raws)
                following = j + 1
                tokens = candidate.tokens(cand_raws)
                if tokens:  # a newline separates it from what came before
                    tokens[0] = replace(tokens[0], space=True)
                return tokens
            if not peek and j < len(lines):
                # gcc reads directives between macro arguments; larkc does not, and says so.
                directive = lines[j]
                text = directive.text.strip()
                where = directive.span(len(directive.text) - len(directive.text.lstrip()), len(directive.text.rstrip()))
                raise UnsupportedError(
                    "preprocessor directive inside macro arguments", text, where, stage=Stage.PREPROCESS
                )
            return None

        expanded, changed = self._expand(line.tokens(raws), more, 0)
        pragma = any(t.kind is TokenKind.IDENT and t.text == "_Pragma" for t in expanded)
        if not changed and not pragma and following == i + 1:
            self._emit_verbatim(line, raws)
        else:
            self._emit_tokens(line, lines[following - 1].last, expanded)
        return following

    # ---- macro expansion (Prosser's algorithm: hide sets on tokens)

    def _expand(
        self, tokens: list[PPToken], more: _More | None, depth: int, *, in_if: bool = False
    ) -> tuple[list[PPToken], bool]:
        """Fully macro-expand ``tokens``; ``more`` supplies following lines for a multi-line invocation.

        ``in_if``: the tokens are a #if expression, where ``defined X`` keeps X unexpanded.

        Returns the tokens and whether any macro was expanded.
        """
        if depth > _MAX_NESTING:
            raise _error("macro arguments nested too deeply", tokens[0].span if tokens else None)
        stack = tokens[::-1]
        out: list[PPToken] = []
        changed = False
        while stack:
            tok = stack.pop()
            if tok.kind is not TokenKind.IDENT or tok.text in tok.hide:
                out.append(tok)
                continue
            if in_if and tok.text == "defined":
                # The operand of a `defined` that an expansion produced is a name, not to be expanded.
                out.append(tok)
                if _is(stack[-1] if stack else None, "("):
                    out.append(stack.pop())
                if stack and stack[-1].kind is TokenKind.IDENT:
                    out.append(stack.pop())
                continue
            macro = self.macros.get(tok.text)
            if macro is None:
                out.append(tok)
                continue
            match macro.kind:
                case MacroKind.OBJECT:
                    result = self._substitute(
                        macro, [], tok.span, hide=tok.hide | {macro.name}, space=tok.space, depth=depth
                    )
                case MacroKind.FUNCTION:
                    if not _lparen_follows(stack, more):
                        out.append(tok)
                        continue
                    args, rparen = self._collect_args(tok, macro, stack, more)
                    hide = (tok.hide & rparen.hide) | {macro.name}
                    span = _join(tok.span, rparen.span)
                    result = self._substitute(macro, args, span, hide=hide, space=tok.space, depth=depth)
                case MacroKind.LINE:
                    result = [PPToken(TokenKind.NUMBER, str(tok.span.line), tok.span, False, tok.space)]
                case MacroKind.FILE:
                    result = [PPToken(TokenKind.STRING, _quote(tok.span.file), tok.span, False, tok.space)]
                case _:
                    assert_never(macro.kind)
            changed = True
            self._produced += len(result)
            if self._produced > _MAX_EXPANSION:
                raise _error(f"macro expansion too large (more than {_MAX_EXPANSION} tokens)", tok.span)
            stack.extend(reversed(result))
        return out, changed

    def _collect_args(
        self, name: PPToken, macro: Macro, stack: list[PPToken], more: _More | None
    ) -> tuple[list[list[PPToken]], PPToken]:
        """The arguments of an invocation whose ``(`` is on top of ``stack``, and its ``)``."""
        last = stack.pop()
        args: list[list[PPToken]] = [[]]
        nparams = len(macro.params)
        depth = 0
        while True:
            if not stack:
                tokens = more(False) if more is not None else None
                if tokens is None:
                    raise _error(f"unterminated argument list invoking macro {macro.name}", _join(name.span, last.span))
                stack.extend(reversed(tokens))
                continue
            tok = last = stack.pop()
            if tok.kind is TokenKind.PUNCT:
                if tok.text == "(":
                    depth += 1
                elif tok.text == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif tok.text == "," and depth == 0 and not (macro.variadic and len(args) >= nparams):
                    args.append([])
                    continue
            args[-1].append(tok)
        got = 0 if nparams == 0 and len(args) == 1 and not args[0] else len(args)
        span = _join(name.span, last.span)
        if macro.variadic:
            named = nparams - 1
            if got == named:  # the variable arguments may be omitted altogether (C++20, gcc)
                args.append([])
            elif got < named:
                plural = "" if named == 1 else "s"
                raise _error(f"macro {macro.name} expects at least {named} argument{plural}, got {got}", span)
        elif got != nparams:
            plural = "" if nparams == 1 else "s"
            raise _error(f"macro {macro.name} expects {nparams} argument{plural}, got {got}", span)
        if nparams == 0:
            args = []
        return args, last

    def _substitute(
        self,
        macro: Macro,
        args: list[list[PPToken]],
        span: Span,
        *,
        hide: frozenset[str],
        space: bool,
        depth: int,
    ) -> list[PPToken]:
        """The replacement list of one invocation: parameters substituted, ``#`` and ``##`` applied.

        Every resulting token maps to the invocation ``span`` and gets ``hide`` added to its hide set.
        """
        items = _Substitution(self, macro, args, span, depth).run(macro.body)
        result = [
            PPToken(t.kind, t.text, span, False, t.space, t.hide | hide)
            for t in items
            if t.kind is not TokenKind.PLACEMARKER
        ]
        if result:
            result[0] = replace(result[0], space=space)
        return result

    # ---- directives

    def _directive(self, line: _Line, conds: list[_Conditional], active: bool) -> None:
        raws = _scan_tokens(line.text)
        toks = line.tokens(raws)
        if len(toks) < 2:  # the null directive `#`
            self._emit_blank(line)
            return
        name_tok = toks[1]
        name = name_tok.text if name_tok.kind is TokenKind.IDENT else ""
        rest = toks[2:]
        if name in _CONDITIONALS:
            self._emit_blank(line)
            self._conditional(name, name_tok, rest, conds, active)
            return
        if not active:
            self._emit_blank(line)
            return
        if name == "pragma":
            self._pragma(line, toks)
            return
        self._emit_blank(line)
        whole = line.span(raws[1].start, raws[-1].end)
        match name:
            case "define":
                _check_quotes(line, raws)
                self._define(rest, name_tok)
            case "undef":
                self._undef(rest, name_tok)
            case "include":
                self._include(rest, name_tok, line)
            case "error":
                message = line.text[raws[1].end :].strip()
                raise _error(f"#error {message}" if message else "#error", whole)
            case "warning":
                pass  # a warning is no reason to stop, and larkc has no channel for warnings here
            case _ if name in _UNSUPPORTED or name_tok.kind is TokenKind.NUMBER:
                raise UnsupportedError("preprocessor directive", line.text.strip(), whole, stage=Stage.PREPROCESS)
            case _:
                raise _error(f"invalid preprocessing directive #{name_tok.text}", name_tok.span)

    def _conditional(
        self, name: str, name_tok: PPToken, rest: list[PPToken], conds: list[_Conditional], active: bool
    ) -> None:
        match name:
            case "if" | "ifdef" | "ifndef":
                value = active and self._condition(name, name_tok, rest)
                conds.append(_Conditional(name, name_tok.span, active, value, value))
            case "elif" | "elifdef" | "elifndef":
                if not conds:
                    raise _error(f"#{name} without #if", name_tok.span)
                cond = conds[-1]
                if cond.seen_else:
                    raise _error(f"#{name} after #else", name_tok.span)
                # The expression of an #elif after a taken group is not evaluated (it may be invalid).
                cond.active = cond.outer_active and not cond.taken and self._condition(name, name_tok, rest)
                cond.taken = cond.taken or cond.active
            case "else":
                if not conds:
                    raise _error("#else without #if", name_tok.span)
                cond = conds[-1]
                if cond.seen_else:
                    raise _error("#else after #else", name_tok.span)
                cond.seen_else = True
                cond.active = cond.outer_active and not cond.taken
                cond.taken = True
            case "endif":
                if not conds:
                    raise _error("#endif without #if", name_tok.span)
                conds.pop()
            case _:
                raise AssertionError(f"not a conditional directive: #{name}")

    def _condition(self, name: str, name_tok: PPToken, rest: list[PPToken]) -> bool:
        """Whether the group of an #if/#ifdef/#ifndef/#elif/#elifdef/#elifndef is taken."""
        if name in ("ifdef", "ifndef", "elifdef", "elifndef"):
            if not rest:
                raise _error(f"no macro name given in #{name} directive", name_tok.span)
            if rest[0].kind is not TokenKind.IDENT:
                raise _error("macro names must be identifiers", rest[0].span)
            defined = rest[0].text in self.macros or rest[0].text == "__has_include"
            return defined == name.endswith("ifdef")
        directive = "if" if name == "if" else "elif"
        if not rest:
            raise _error(f"#{directive} with no expression", name_tok.span)
        return self.if_value(directive, _join(name_tok.span, rest[-1].span), rest) != 0

    def if_value(self, directive: str, where: Span, tokens: list[PPToken]) -> int:
        """The value of the expression ``tokens`` of an #if or #elif (``directive``) spanning ``where``."""
        for tok in tokens:
            if tok.kind is TokenKind.OTHER and tok.text[:1] in ("'", '"'):
                raise _error(f"missing terminating {tok.text[0]} character", tok.span)
        replaced = self._replace_defined(tokens, where.file)
        expanded, _ = self._expand(replaced, None, 0, in_if=True)
        # `defined` produced by a macro expansion is evaluated too, as gcc does.
        expanded = self._replace_defined(expanded, where.file)
        return _IfParser(expanded, directive, where).evaluate()

    def _replace_defined(self, tokens: list[PPToken], file: str) -> list[PPToken]:
        """``defined X``, ``defined(X)`` and ``__has_include(...)`` replaced by ``1`` or ``0``."""
        out: list[PPToken] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok.kind is not TokenKind.IDENT or tok.text not in ("defined", "__has_include"):
                out.append(tok)
                i += 1
                continue
            if tok.text == "defined":
                j = i + 1
                paren = _is(tokens[j] if j < len(tokens) else None, "(")
                j += paren
                if j >= len(tokens) or tokens[j].kind is not TokenKind.IDENT:
                    raise _error('operator "defined" requires an identifier', tok.span)
                value = tokens[j].text in self.macros or tokens[j].text == "__has_include"
                j += 1
                if paren:
                    if not _is(tokens[j] if j < len(tokens) else None, ")"):
                        raise _error("missing ')' after \"defined\"", tok.span)
                    j += 1
            else:
                value, j = self._has_include(tokens, i, file)
            span = _join(tok.span, tokens[j - 1].span)
            out.append(PPToken(TokenKind.NUMBER, str(int(value)), span, False, tok.space))
            i = j
        return out

    def _has_include(self, tokens: list[PPToken], i: int, file: str) -> tuple[bool, int]:
        """``__has_include("x")`` or ``__has_include(<x>)`` at ``tokens[i]``: its value, the next index."""
        tok = tokens[i]
        close = next((j for j in range(i + 1, len(tokens)) if _is(tokens[j], ")")), None)
        if close is None or not _is(tokens[i + 1], "("):
            raise _error('__has_include expects ("FILENAME") or (<FILENAME>)', tok.span)
        parsed = _header_name(tokens[i + 2 : close])
        if parsed is None:
            raise _error('__has_include expects ("FILENAME") or (<FILENAME>)', tok.span)
        header, quoted = parsed
        found = _is_system_header(header) or self._find_include(header, quoted, file) is not None
        return found, close + 1

    def _define(self, rest: list[PPToken], name_tok: PPToken) -> None:
        if not rest:
            raise _error("no macro name given in #define directive", name_tok.span)
        name = rest[0]
        if name.kind is not TokenKind.IDENT:
            raise _error("macro names must be identifiers", name.span)
        if name.text in ("defined", "__has_include"):
            raise _error(f'"{name.text}" cannot be used as a macro name', name.span)
        params: list[str] = []
        variadic = False
        i = 1
        function_like = len(rest) > 1 and _is(rest[1], "(") and not rest[1].space
        if function_like:
            i = 2
            if _is(rest[i] if i < len(rest) else None, ")"):
                i += 1
            else:
                while True:
                    tok = rest[i] if i < len(rest) else None
                    if tok is None:
                        raise _error("missing ')' in macro parameter list", rest[1].span)
                    if _is(tok, "..."):
                        params.append("__VA_ARGS__")
                        variadic = True
                    elif tok.kind is TokenKind.IDENT:
                        if tok.text in ("__VA_ARGS__", "__VA_OPT__"):
                            raise _error(f"{tok.text} cannot be a macro parameter name", tok.span)
                        if tok.text in params:
                            raise _error(f'duplicate macro parameter "{tok.text}"', tok.span)
                        params.append(tok.text)
                        if _is(rest[i + 1] if i + 1 < len(rest) else None, "..."):  # GNU `args...`
                            variadic = True
                            i += 1
                    else:
                        raise _error(f'expected parameter name, found "{tok.text}"', tok.span)
                    i += 1
                    sep = rest[i] if i < len(rest) else None
                    if sep is None:
                        raise _error("missing ')' in macro parameter list", rest[1].span)
                    i += 1
                    if _is(sep, ")"):
                        break
                    if not _is(sep, ",") or variadic:
                        expected = "')'" if variadic else "',' or ')'"
                        raise _error(f'expected {expected} in macro parameter list, found "{sep.text}"', sep.span)
        body = rest[i:]
        if body:
            body[0] = replace(body[0], space=False)
        _check_body(name.text, body, params if function_like else None, variadic)
        kind = MacroKind.FUNCTION if function_like else MacroKind.OBJECT
        self.macros[name.text] = Macro(name.text, kind, tuple(params), variadic, tuple(body), name.span)

    def _undef(self, rest: list[PPToken], name_tok: PPToken) -> None:
        if not rest:
            raise _error("no macro name given in #undef directive", name_tok.span)
        if rest[0].kind is not TokenKind.IDENT:
            raise _error("macro names must be identifiers", rest[0].span)
        self.macros.pop(rest[0].text, None)

    def _pragma(self, line: _Line, toks: list[PPToken]) -> None:
        """``#pragma``: ``once`` and ``push_macro``/``pop_macro`` are acted on, the others are kept.

        The arguments of ``#pragma unroll`` are macro-expanded, as nvcc does (``#pragma unroll UNROLL``).
        """
        rest = toks[2:]
        head = rest[0].text if rest and rest[0].kind is TokenKind.IDENT else ""
        if head == "once":
            self._once.add(self._stack[-1][0])
            self._emit_blank(line)
            return
        if head in ("push_macro", "pop_macro"):
            self._emit_blank(line)
            self._push_pop(head, rest)
            return
        if head == "unroll":
            expanded, changed = self._expand(rest[1:], None, 0)
            if changed:
                self._emit_tokens(line, line.last, [*toks[:3], *expanded])
                return
        if line.first == line.last:
            self._emit_verbatim(line, [])
        else:  # a pragma continued over lines: the frontend wants it on one line
            self._emit_tokens(line, line.last, toks)

    def _push_pop(self, head: str, rest: list[PPToken]) -> None:
        if len(rest) != 4 or not _is(rest[1], "(") or rest[2].kind is not TokenKind.STRING or not _is(rest[3], ")"):
            raise _error(f'#pragma {head} expects ("NAME")', rest[0].span)
        name = rest[2].text[1:-1]
        if head == "push_macro":
            self._pushed.setdefault(name, []).append(self.macros.get(name))
            return
        saved = self._pushed.get(name)
        if not saved:
            return  # gcc ignores a pop without a push
        macro = saved.pop()
        if macro is None:
            self.macros.pop(name, None)
        else:
            self.macros[name] = macro

    # ---- includes

    def _include(self, rest: list[PPToken], name_tok: PPToken, line: _Line) -> None:
        usage = '#include expects "FILENAME" or <FILENAME>'
        if not rest:
            raise _error(usage, name_tok.span)
        parsed = _header_name(rest)
        if parsed is None:  # a computed include: `#include HEADER`
            expanded, _ = self._expand(rest, None, 0)
            parsed = _header_name(expanded)
            if parsed is None:
                raise _error(usage, _join(rest[0].span, rest[-1].span))
        header, quoted = parsed
        where = _join(rest[0].span, rest[-1].span)
        if _is_system_header(header):
            self.system_includes.append(header)
            return
        found = self._find_include(header, quoted, line.file)
        if found is None:
            skipped = self._machine_header(header, where)
            if skipped is not None:
                self.skipped_headers.append(skipped)
                return
            raise _error(_not_found(header, quoted, self._search_dirs(header, quoted, line.file)), where)
        key = _file_key(str(found))
        if key in self._once:
            return
        if len(self._stack) > _MAX_INCLUDE_DEPTH:
            # Name the cycle when there is one: from the first time this file was entered.
            start = next((j for j, (entered, _) in enumerate(self._stack) if entered == key), 0)
            chain = [name for _, name in self._stack[start:]]
            if len(chain) > 1 and len(set(chain)) < len(chain):
                # a cycle: name it once (a file including itself repeats one name 64 times)
                first = next(i for i, n in enumerate(chain) if chain.count(n) > 1)
                cycle = chain[first : chain.index(chain[first], first + 1) + 1]
                raise _error(f"#include cycle: {' -> '.join(cycle)}", where)
            raise _error(f"#include nested too deeply: {' -> '.join([*chain, str(found)])}", where)
        original = _read(found, where)
        SourceCache.register(str(found), original)
        self._process(_normalize(original), str(found), key)

    def _machine_header(self, header: str, where: Span) -> SkippedHeader | None:
        """``header`` as a header of the machine that larkc does not model (searched after the include
        directories, as nvcc searches the toolkit's and the system's after ``-I``), or ``None``."""
        if Path(header).is_absolute():
            return None
        if self.cuda_include is not None and (self.cuda_include / header).is_file():
            return SkippedHeader(header, where, "the CUDA toolkit", self.cuda_include / header)
        library = host_library(header)
        if library is not None:
            return SkippedHeader(header, where, library.library, None, library.names)
        return None

    def _find_include(self, header: str, quoted: bool, current: str) -> Path | None:
        """The file ``#include "header"`` (``quoted``) or ``<header>`` names, seen from file ``current``."""
        if Path(header).is_absolute():
            return Path(header) if Path(header).is_file() else None
        candidates = (d / header for d in self._search_dirs(header, quoted, current))
        return next((c for c in candidates if c.is_file()), None)

    def _search_dirs(self, header: str, quoted: bool, current: str) -> list[Path]:
        """Where ``header`` is looked for, in order: for a quoted one the directory of the including file
        ``current`` first, then the include directories (nvcc's order; no system directories here)."""
        if Path(header).is_absolute():
            return []
        first = [Path(current).parent] if quoted and not current.startswith("<") else []
        return first + self.include_dirs


class _Substitution:
    """Builds the replacement list of one invocation (C11 6.10.3.1-6.10.3.3)."""

    def __init__(self, pp: _Preprocessor, macro: Macro, args: list[list[PPToken]], span: Span, depth: int) -> None:
        self._pp = pp
        self._macro = macro
        self._args = args
        self._span = span
        self._depth = depth
        self._index = {p: k for k, p in enumerate(macro.params)} if macro.kind is MacroKind.FUNCTION else {}
        self._expanded: dict[int, list[PPToken]] = {}

    def _placemarker(self) -> PPToken:
        return PPToken(TokenKind.PLACEMARKER, "", self._span)

    def _param(self, tok: PPToken) -> int | None:
        return self._index.get(tok.text) if tok.kind is TokenKind.IDENT else None

    def _note(self) -> tuple[str, ...]:
        return (f"in expansion of macro {self._macro.name} defined at {self._macro.span.location()}",)

    def run(self, body: Sequence[PPToken]) -> list[PPToken]:
        out: list[PPToken] = []
        i = 0
        while i < len(body):
            tok = body[i]
            if _is(tok, "##"):
                i = self._paste_next(body, i + 1, out)
                continue
            raw = _is(body[i + 1] if i + 1 < len(body) else None, "##")
            i, operand = self._operand(body, i, raw)
            out.extend(operand)
        return out

    def _operand(self, body: Sequence[PPToken], i: int, raw: bool) -> tuple[int, list[PPToken]]:
        """The tokens ``body[i]`` stands for and the index after it; ``raw``: an operand of ``##``.

        A parameter is replaced by its fully expanded argument, except next to ``#`` or ``##`` where the
        argument is used as written (and an empty one becomes a placemarker).
        """
        tok = body[i]
        if self._index and _is(tok, "#"):
            index = self._param(body[i + 1])
            assert index is not None  # checked by _check_body
            return i + 2, [PPToken(TokenKind.STRING, _stringify(self._args[index]), self._span, False, tok.space)]
        if self._macro.variadic and tok.kind is TokenKind.IDENT and tok.text == "__VA_OPT__":
            close = _matching_paren(body, i + 1)
            assert close is not None  # checked by _check_body
            if not self._args[-1]:
                return close + 1, [self._placemarker()]
            content = self.run(body[i + 2 : close])
            if content:
                content[0] = replace(content[0], space=tok.space)
            return close + 1, content or [self._placemarker()]
        index = self._param(tok)
        if index is None:
            return i + 1, [tok]
        arg = self._args[index]
        if raw:
            tokens = [replace(t, space=tok.space) if k == 0 else t for k, t in enumerate(arg)]
            return i + 1, tokens or [self._placemarker()]
        if index not in self._expanded:
            self._expanded[index] = self._pp._expand(list(arg), None, self._depth + 1)[0]
        tokens = self._expanded[index]
        return i + 1, [replace(t, space=tok.space) if k == 0 else t for k, t in enumerate(tokens)]

    def _paste_next(self, body: Sequence[PPToken], i: int, out: list[PPToken]) -> int:
        """Apply the ``##`` before ``body[i]`` to the last token of ``out``; the index after its operand."""
        lhs = out.pop() if out else self._placemarker()
        index = self._param(body[i])
        if self._macro.variadic and index == len(self._macro.params) - 1 and _is(lhs, ","):
            # GNU `, ## __VA_ARGS__`: the comma goes away when the variable arguments are empty.
            if self._args[index]:
                out.append(lhs)
                out.extend(self._args[index])
            return i + 1
        after, operand = self._operand(body, i, raw=True)
        if not operand:
            operand = [self._placemarker()]
        rhs = operand[0]
        if lhs.kind is TokenKind.PLACEMARKER:
            pasted = rhs
        elif rhs.kind is TokenKind.PLACEMARKER:
            pasted = lhs
        else:
            kind = _lex_one(lhs.text + rhs.text)
            if kind is None:
                raise _error(
                    f'pasting "{lhs.text}" and "{rhs.text}" does not give a valid preprocessing token',
                    self._span,
                    self._note(),
                )
            pasted = PPToken(kind, lhs.text + rhs.text, lhs.span, False, lhs.space, lhs.hide & rhs.hide)
        out.append(pasted)
        out.extend(operand[1:])
        return after


def _lparen_follows(stack: list[PPToken], more: _More | None) -> bool:
    """Whether a ``(`` comes next, taking the next line when the current one is used up."""
    if stack:
        return _is(stack[-1], "(")
    tokens = more(True) if more is not None else None
    if tokens is None:
        return False
    stack.extend(reversed(tokens))
    return True


def _matching_paren(tokens: Sequence[PPToken], i: int) -> int | None:
    """The index of the ``)`` matching the ``(`` at ``tokens[i]``, or None."""
    if not _is(tokens[i] if i < len(tokens) else None, "("):
        return None
    depth = 0
    for j in range(i, len(tokens)):
        if _is(tokens[j], "("):
            depth += 1
        elif _is(tokens[j], ")"):
            depth -= 1
            if depth == 0:
                return j
    return None


def _check_body(name: str, body: list[PPToken], params: list[str] | None, variadic: bool) -> None:
    """The constraints of C11 6.10.3 on a replacement list (``params`` is None for object-like)."""
    if body and (_is(body[0], "##") or _is(body[-1], "##")):
        where = body[0] if _is(body[0], "##") else body[-1]
        raise _error("'##' cannot appear at either end of a macro expansion", where.span)
    for k, tok in enumerate(body):
        if tok.kind is TokenKind.IDENT and tok.text in ("__VA_ARGS__", "__VA_OPT__") and not variadic:
            raise _error(f"{tok.text} can only appear in the expansion of a variadic macro", tok.span)
        if tok.kind is TokenKind.IDENT and tok.text == "__VA_OPT__" and _matching_paren(body, k + 1) is None:
            raise _error("__VA_OPT__ must be followed by a parenthesized replacement", tok.span)
        if params is not None and _is(tok, "#"):
            nxt = body[k + 1] if k + 1 < len(body) else None
            if nxt is None or nxt.kind is not TokenKind.IDENT or nxt.text not in params:
                raise _error("'#' is not followed by a macro parameter", tok.span)


def _check_quotes(line: _Line, raws: Sequence[_Raw]) -> None:
    for raw in raws:
        if raw.kind is TokenKind.OTHER:
            text = line.text[raw.start : raw.end]
            quote = text.lstrip("u8UL")[:1]
            if quote in ("'", '"'):
                raise _error(f"missing terminating {quote} character", line.span(raw.start, raw.start + 1))


def _header_name(tokens: Sequence[PPToken]) -> tuple[str, bool] | None:
    """``"name"`` or ``< name >`` at the start of ``tokens``: the name and whether it was quoted."""
    if not tokens:
        return None
    first = tokens[0]
    if first.kind is TokenKind.STRING and first.text.startswith('"'):
        return first.text[1:-1], True
    if _is(first, "<"):
        close = next((k for k in range(1, len(tokens)) if _is(tokens[k], ">")), None)
        if close is not None and close > 1:
            return _spell(tokens[1:close]), False
    return None


def _not_found(header: str, quoted: bool, searched: Sequence[Path]) -> str:
    """The message for a header found in none of the directories ``searched``."""
    message = "include file not found: " + (f'"{header}"' if quoted else f"<{header}>")
    if Path(header).is_absolute():
        return message
    if not searched:
        return f"{message} (no include directories: add one with -I or include_dirs)"
    return f"{message} (searched: {', '.join(str(d) for d in searched)})"


def _is_system_header(header: str) -> bool:
    return header in SYSTEM_HEADERS or header.startswith(_SYSTEM_PREFIXES)


def _file_key(file: str) -> str:
    """The identity of a file for ``#pragma once`` and include cycles: its resolved path."""
    if file.startswith("<"):
        return file
    try:
        return str(Path(file).resolve())
    except OSError:
        return file
