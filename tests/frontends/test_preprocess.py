"""Tests of the C preprocessor of the CUDA frontend (larkc.frontends.cuda.preprocess).

Macro semantics are pinned by the examples of the C standard (C11 6.10.3.5), by hand-written cases, by
a comparison with gcc's ``cpp -P`` and by hypothesis; the source map by positions checked by hand; errors
by the exact first line of their rendering. ``pytest --update-golden`` rewrites the golden output file.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from larkc.errors import LarkcError, Span, Stage
from larkc.frontends.cuda import preprocess as preprocess_module
from larkc.frontends.cuda.preprocess import (
    MacroKind,
    Preprocessed,
    evaluate_if,
    preprocess,
    preprocess_file,
)

CASES = Path(__file__).parent / "preprocess_cases"


def pp(text: str, **kwargs: object) -> Preprocessed:
    return preprocess(text, "kernel.cu", **kwargs)  # type: ignore[arg-type]  # kwargs are keyword options


def lines(text: str, **kwargs: object) -> list[str]:
    """The output lines, right-stripped (trailing blanks are where comments and shrunk macros were)."""
    return [line.rstrip() for line in pp(text, **kwargs).text.split("\n")]


def norm(text: str) -> str:
    """Each non-empty line as its tokens separated by single spaces: the code without the layout."""
    return "\n".join(" ".join(tokens(line)) for line in text.split("\n") if line.strip())


def code(text: str, **kwargs: object) -> str:
    """The output of preprocessing ``text``, normalized by :func:`norm`."""
    return norm(pp(text, **kwargs).text)


_TOKEN = re.compile(
    r"""[uUL]?"(?:\\.|[^"\\])*"|[uUL]?'(?:\\.|[^'\\])*'|\.?\d(?:[eEpP][+-]|[\w.])*|\w+"""
    r"""|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\#\#|[-+*/%&|^]=|\S"""
)


def tokens(text: str) -> list[str]:
    """The C tokens of ``text`` (an independent, simple lexer for comparing outputs)."""
    return _TOKEN.findall(text)


def error_line(text: str, **kwargs: object) -> str:
    with pytest.raises(LarkcError) as info:
        pp(text, **kwargs)
    assert info.value.stage is Stage.PREPROCESS
    return info.value.render().splitlines()[0]


# --------------------------------------------------------------------------------------------------
# Macros


def test_object_like_macro_keeps_columns_up_to_the_expansion() -> None:
    out = lines("#define N 4\nint a[N];\nint b = N + N;\n")
    assert out[:3] == ["", "int a[4];", "int b = 4 + 4;"]


def test_function_like_macro() -> None:
    src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n    y = MAX(x[i], 0.0f);\n"
    assert lines(src)[1] == "    y = ((x[i]) > (0.0f) ? (x[i]) : (0.0f));"


def test_function_like_name_without_parenthesis_is_not_expanded() -> None:
    src = "#define f(x) x + 1\nint f;\nint (*g)(int) = f;\nint y = f(2);\n"
    assert lines(src)[1:4] == ["int f;", "int (*g)(int) = f;", "int y = 2 + 1;"]


def test_invocation_spanning_lines_collapses_onto_its_first_line() -> None:
    src = "#define ADD(a, b) ((a) + (b))\nint x = ADD(1,\n            2);\nint y;\n"
    assert lines(src)[1:4] == ["int x = ((1) + (2));", "", "int y;"]


def test_function_like_name_with_parenthesis_on_next_line_is_invoked() -> None:
    assert code("#define f(x) [x]\nf\n\n(1) f\n;\n") == norm("[1] f\n;")


def test_stringify_paste_and_the_order_of_argument_expansion() -> None:
    src = (
        "#define N 4\n"
        "#define S(x) #x\n"
        "#define XS(x) S(x)\n"
        "#define CAT(a, b) a ## b\n"
        'S(N) XS(N) S( a  +  "q\\n" ) CAT(N, 1) CAT(x, N) CAT(,) CAT(a,) CAT(,b) CAT(1, .5e) CAT(<, <=)\n'
    )
    assert tokens(code(src)) == [
        '"N"',
        '"4"',
        '"a + \\"q\\\\n\\""',
        "N1",
        "xN",
        "a",
        "b",
        "1.5e",
        "<<=",
    ]


def test_variadic_macros() -> None:
    src = (
        "#define debug(...) fprintf(stderr, __VA_ARGS__)\n"
        "#define showlist(...) puts(#__VA_ARGS__)\n"
        "#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))\n"
        "#define LOG(fmt, ...) printf(fmt, ## __VA_ARGS__)\n"
        "#define OPT(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)\n"
        "#define NAMED(args...) g(args)\n"
        'debug("X = %d\\n", x);\n'
        "showlist(The first, second, and third items.);\n"
        'report(x>y, "x is %d but y is %d", x, y);\n'
        'LOG("a"); LOG("b", 1, 2);\n'
        "OPT(1) OPT(1, 2, 3) NAMED(p, q)\n"
    )
    assert code(src) == norm(
        "\n".join(
            [
                'fprintf(stderr, "X = %d\\n", x);',
                'puts("The first, second, and third items.");',
                '((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));',
                'printf("a"); printf("b", 1, 2);',
                "f(1) f(1 , 2, 3) g(p, q)",
            ]
        )
    )


def test_recursive_definitions_are_not_re_expanded() -> None:
    src = (
        "#define foo foo\n"
        "#define a b\n"
        "#define b a\n"
        "#define f(x) x + f(x)\n"
        "#define g(x) f(x) * g\n"
        "foo; a; b; f(1); g(2);\n"
    )
    assert code(src) == norm("foo; a; b; 1 + f(1); 2 + f(2) * g;")


def test_standard_example_of_rescanning() -> None:
    # C11 6.10.3.5 EXAMPLE 3, the classic test of hide sets and argument pre-expansion.
    src = (
        "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n"
        "#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n"
        "#define q(x) x\n#define r(x,y) x ## y\n#define str(x) # x\n"
        "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n"
        "g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n"
        "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n"
        "char c[2][6] = { str(hello), str() };\n"
    )
    expected = (
        "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);\n"
        "f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);\n"
        "int i[] = { 1, 23, 4, 5, };\n"
        'char c[2][6] = { "hello", "" };'
    )
    assert tokens(code(src)) == tokens(expected)


def test_painted_tokens_stay_unexpanded_when_passed_on() -> None:
    # `f` produced by f's own expansion is painted; passing it to another macro does not revive it.
    src = "#define f(x) x f\n#define id(x) x\nid(f(1))(2)\n"
    assert tokens(code(src)) == ["1", "f", "(", "2", ")"]


def test_macros_are_not_expanded_in_strings_comments_or_char_literals() -> None:
    src = "#define N 4\n#define MAX(a,b) a\nprintf(\"N MAX(1,2)\"); // N\nchar c = 'N'; /* MAX(1, 2) */\n"
    out = lines(src)
    assert out[2] == 'printf("N MAX(1,2)");'
    assert out[3] == "char c = 'N';"


def test_predefined_macros_and_dynamic_ones() -> None:
    src = "__CUDACC__ __NVCC__ __CUDA_ARCH__ __cplusplus\n__LINE__ __FILE__\n"
    assert code(src) == norm('1 1 800 201703L\n2 "kernel.cu"')


def test_user_defines_override_and_add() -> None:
    src = "__CUDA_ARCH__ BLOCK EMPTY[SQ(3)]\n#ifdef EMPTY\nyes\n#endif\n"
    defines = {"__CUDA_ARCH__": "700", "BLOCK": "256", "EMPTY": "", "SQ(x)": "((x) * (x))"}
    assert code(src, defines=defines) == norm("700 256 [((3) * (3))]\nyes")


def test_macros_at_end_are_reported() -> None:
    result = pp("#define A 1\n#define B(x, ...) x\n#undef A\n#define C A + 2\n")
    assert "A" not in result.macros
    assert result.macros["B"].kind is MacroKind.FUNCTION
    assert result.macros["B"].params == ("x", "__VA_ARGS__")
    assert result.macros["B"].variadic
    assert result.macros["C"].replacement == "A + 2"
    assert result.macros["C"].span == Span("kernel.cu", 4, 9, 4, 10)
    assert result.macros["__CUDA_ARCH__"].replacement == "800"


def test_output_tokens_that_would_merge_are_separated() -> None:
    src = "#define NEG -x\n#define E\n-NEG a E b +E+ c\n"
    assert tokens(code(src)) == ["-", "-", "x", "a", "b", "+", "+", "c"]


# --------------------------------------------------------------------------------------------------
# Conditionals


def test_conditionals_of_every_kind_with_nesting() -> None:
    src = """\
#define A 1
#if A
a1
#  ifdef B
b
#  elif defined(A) && !defined B
a2
#    ifndef C
c_missing
#    else
c_present
#    endif
#  else
never
#  endif
#elif 1/0
never
#else
never
#endif
#if 0
#  if 1/0
#  error not evaluated
#  garbage directive
#  endif
#elifdef A
elifdef_taken
#elifndef A
never
#endif
"""
    assert code(src) == norm("a1\na2\nc_missing\nelifdef_taken")


def test_skipped_lines_and_directives_become_empty_lines() -> None:
    src = "#if 0\nint a;\n#else\nint b;\n#endif\nint c;\n"
    assert lines(src) == ["", "", "", "int b;", "", "int c;", ""]


def test_skipped_groups_may_hold_unlexable_text() -> None:
    src = "#if 0\nit's not code\n#endif\nok\n"
    assert code(src) == "ok"


def test_defined_forms_and_defined_from_a_macro() -> None:
    src = (
        "#define X\n#define HAS_X defined(X)\n"
        "#if defined X && defined(X) && HAS_X && !defined Y && __has_include(<cuda_runtime.h>)\nyes\n#endif\n"
    )
    assert code(src) == "yes"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("1 << 2 + 1", 8),
        ("6 & 3 == 3", 0),  # == binds tighter than &
        ("1 | 2 ^ 3 & 4", 3),
        ("1 || 0 && 0", 1),
        ("0 ? 1 : 2 ? 3 : 4", 3),
        ("-7 / 2", -3),
        ("-7 % 2", -1),
        ("7 % -2", 1),
        ("!5 + ~0", -1),
        ("0x1F + 010 + 0b11 + 1'000", 1042),
        ("10u + 5ul + 7LL + 3ULL + 1lu", 26),
        ("-1 < 0u", 0),  # -1 converts to 2**64 - 1
        ("-1 > 0u", 1),
        ("(1 ? -1 : 0u) > 0", 1),  # the unevaluated branch's type still counts
        ("18446744073709551615", 2**64 - 1),
        ("9223372036854775807 + 1", -(2**63)),  # wraps, as gcc does (with a warning)
        ("-1 >> 1", -1),
        ("1 << 63", -(2**63)),
        ("1u << 63", 2**63),
        ("'a' + '\\n' + '\\x41' + '\\101'", 97 + 10 + 65 + 65),
        ("UNKNOWN + 3", 3),
        ("true + false", 1),
        ("0 && 1 / 0", 0),
        ("1 || 1 % 0", 1),
        ("1 ? 2 : 1 / 0", 2),
        ("(1, 2)", 2),
        ("defined(__CUDACC__) + defined __NVCC__", 2),
        ("__CUDA_ARCH__ >= 800", 1),
        ("defined(__has_builtin) && __has_builtin(__builtin_expect)", 0),
    ],
)
def test_if_expression_values(expression: str, value: int) -> None:
    assert evaluate_if(expression) == value


def test_if_expressions_in_directives() -> None:
    src = "#if (1 ? -1 : 0u) > 0 && 2 * 3 == 6\nyes\n#else\nno\n#endif\n"
    assert code(src) == "yes"


# --------------------------------------------------------------------------------------------------
# Includes and pragmas


def test_includes_guards_once_and_system_headers() -> None:
    src = (
        '#include "common.cuh"\n'
        '#include "common.cuh"\n'
        '#include "once.cuh"\n'
        '#include "sub/inner.cuh"\n'
        "#include <cuda_runtime.h>\n"
        "#include <cooperative_groups/reduce.h>\n"
        "#include <cstring>\n"
        '#include "cuda_fp16.h"\n'
        "int n = WARP_SIZE * INNER + ONCE_VALUE;\n"
    )
    result = preprocess(src, str(CASES / "main.cu"))
    text = result.text
    assert text.count("__device__ inline float relu") == 1
    assert text.count("int once_decl;") == 1
    assert "int inner_decl;" in text
    assert "int n = 32 * 7 + 1;" in text.split("\n")
    assert result.system_includes == (
        "cuda_runtime.h",
        "cuda_runtime.h",
        "cooperative_groups/reduce.h",
        "cstring",
        "cuda_fp16.h",
    )


def test_included_lines_follow_the_include_line() -> None:
    result = preprocess('int a;\n#include "once.cuh"\nint b;\n', str(CASES / "main.cu"))
    mapped = [(Path(line.file).name, line.line, line.text) for line in result.source_map.lines]
    assert mapped == [
        ("main.cu", 1, "int a;"),
        ("main.cu", 2, ""),
        ("once.cuh", 1, ""),
        ("once.cuh", 2, ""),
        ("once.cuh", 3, "int once_decl;"),
        ("main.cu", 3, "int b;"),
    ]


def test_guarded_include_cycle_terminates() -> None:
    text = preprocess('#include "guard_a.cuh"\n', str(CASES / "main.cu")).text
    assert norm(text) == norm("int from_b;\nint from_a;")


def test_include_dirs_and_computed_includes() -> None:
    src = '#define HEADER "lib.cuh"\n#include HEADER\n#include <lib.cuh>\nint v = LIB_VALUE;\n'
    text = preprocess(src, "main.cu", include_dirs=[CASES / "incdir"]).text
    assert "int v = 42;" in text.split("\n")


def test_preprocess_file_names_spans_by_path() -> None:
    result = preprocess_file(CASES / "once.cuh")
    assert result.source_map.point(3, 5) == Span.point(str(CASES / "once.cuh"), 3, 5)


def test_pragmas_are_kept_and_unroll_arguments_expanded() -> None:
    src = (
        "#define UNROLL 4\n"
        '#define PRAGMA_UNROLL _Pragma("unroll")\n'
        "#pragma unroll\n"
        "  #pragma unroll UNROLL\n"
        "#pragma nv_diag_suppress 177 // why\n"
        "#pragma once\n"
        "PRAGMA_UNROLL for (;;) {}\n"
    )
    out = lines(src)
    assert [line.strip() for line in out[2:9]] == [
        "#pragma unroll",
        "#pragma unroll 4",
        "#pragma nv_diag_suppress 177",
        "",
        "#pragma unroll",
        "for (;;) {}",
        "",
    ]
    assert out[3] == "  #pragma unroll 4"


def test_push_and_pop_macro() -> None:
    src = '#define X 1\n#pragma push_macro("X")\n#undef X\n#define X 2\nX\n#pragma pop_macro("X")\nX\n'
    assert code(src) == norm("2\n1")


def test_warning_is_ignored() -> None:
    assert code("#warning this is fine\nint a;\n") == norm("int a;")


# --------------------------------------------------------------------------------------------------
# Lexical details


def test_comments_become_spaces_and_keep_the_layout() -> None:
    src = "int a; /* one\n two */ int b; // three\n/**/int c;\n"
    assert pp(src).text == "int a;" + " " * 7 + "\n" + " " * 8 + "int b;" + " " * 9 + "\n    int c;\n"


def test_block_comment_continues_a_directive() -> None:
    src = "#define X 1 /* a comment\n that spans lines */ + 2\nX\n"
    assert lines(src) == ["", "", "1 + 2", ""]


def test_line_splicing_in_directives_and_text() -> None:
    src = "#define LONG(a) \\\n  ((a) + 1)\nint x = LONG(2);\nint ab\\\ncd = 1;\n"
    assert lines(src) == ["", "", "int x = ((2) + 1);", "int abcd = 1;", "", ""]


def test_string_literals_are_untouched() -> None:
    src = '#define A B\nconst char* s = "A \\" // A /* A */";\nchar q = \'"\'; A\n'
    out = lines(src)
    assert out[1] == 'const char* s = "A \\" // A /* A */";'
    assert out[2] == "char q = '\"'; B"


def test_output_line_count_matches_the_input_without_includes() -> None:
    src = "#define M(x, y) x\n#if 1\nM(1\n,2)\n#endif\n/* a\nb */\nint z;"
    result = pp(src)
    assert len(result.text.split("\n")) == len(src.split("\n"))
    assert not result.text.endswith("\n")


# --------------------------------------------------------------------------------------------------
# Source map


def _col(text: str, needle: str) -> int:
    return text.index(needle) + 1


def test_source_map_of_expanded_and_untouched_tokens() -> None:
    src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n  float y = MAX(x, 0.0f) + z;\nint w = 1;\n"
    result = pp(src)
    out = result.text.split("\n")
    assert out[1] == "  float y = ((x) > (0.0f) ? (x) : (0.0f)) + z;"
    invocation = Span("kernel.cu", 2, 13, 2, 25)
    smap = result.source_map
    # Every character of the expansion maps to the whole invocation `MAX(x, 0.0f)`.
    assert smap.point(2, _col(out[1], "((x)")) == invocation
    assert smap.point(2, _col(out[1], "0.0f")) == invocation
    assert smap.span(2, _col(out[1], "0.0f"), 2, _col(out[1], "0.0f") + 4) == invocation
    # Tokens before and after it map to themselves.
    assert smap.point(2, _col(out[1], "float")) == Span.point("kernel.cu", 2, 3)
    assert smap.point(2, _col(out[1], "z")) == Span.point("kernel.cu", 2, 28)
    assert smap.span(2, _col(out[1], "float"), 2, len(out[1]) + 1) == Span("kernel.cu", 2, 3, 2, 30)
    # An untouched line maps 1:1, even one past its end.
    assert smap.point(3, 5) == Span.point("kernel.cu", 3, 5)
    assert smap.span(3, 1, 3, 11) == Span("kernel.cu", 3, 1, 3, 11)
    # A directive line maps to itself; out-of-range queries are clamped, never raise.
    assert smap.point(1, 7) == Span.point("kernel.cu", 1, 1)
    assert smap.point(99, 99).file == "kernel.cu"
    assert smap.point(0, 0) == Span.point("kernel.cu", 1, 1)


def test_source_map_of_multi_line_and_nested_invocations() -> None:
    src = "#define ADD(a, b) ((a) + (b))\n#define TWICE(x) ADD(x, x)\nint v = ADD(1,\n  TWICE(2));\n"
    result = pp(src)
    assert result.text.split("\n")[2] == "int v = ((1) + (((2) + (2))));"
    assert result.source_map.point(3, 18) == Span("kernel.cu", 3, 9, 4, 12)
    assert result.source_map.point(3, 30) == Span.point("kernel.cu", 4, 12)


def test_source_map_of_an_object_like_macro_whose_expansion_is_invoked_later() -> None:
    src = "#define F G\n#define G(x) [x]\nF (1) ;\n"
    result = pp(src)
    assert result.text.split("\n")[2] == "[1] ;"
    assert result.source_map.point(3, 2) == Span("kernel.cu", 3, 1, 3, 6)


def test_source_map_of_included_tokens() -> None:
    result = preprocess('#include "common.cuh"\nint main_decl;\n', str(CASES / "main.cu"))
    smap = result.source_map
    out = result.text.split("\n")
    row = next(k for k, line in enumerate(out, 1) if "relu" in line)
    header = str(CASES / "common.cuh")
    assert smap.point(row, _col(out[row - 1], "relu")) == Span.point(header, 9, 25)
    assert smap.span(row, 1, row, 11) == Span(header, 9, 1, 9, 11)
    last = len(out) - 1
    assert out[last - 1] == "int main_decl;"
    assert smap.point(last, 5) == Span.point(str(CASES / "main.cu"), 2, 5)


def test_source_map_across_splices_and_of_tree_sitter_points() -> None:
    src = 'int ab\\\ncd = 1;\nconst char* s = "é"; int k = N;\n'
    result = pp(src, defines={"N": "3"})
    smap = result.source_map
    assert smap.point(1, 5) == Span("kernel.cu", 1, 5, 2, 3)  # `abcd` spans the splice
    line = result.text.split("\n")[2]
    byte_col = line.encode().index(b"k")
    assert smap.span_of_points((2, byte_col), (2, byte_col + 1)) == Span.point("kernel.cu", 3, 26)


def test_pragma_from_operator_maps_to_the_operator() -> None:
    result = pp('#define U _Pragma("unroll")\n  U for (;;) {}\n')
    assert result.text.split("\n")[1:3] == ["#pragma unroll", "    for (;;) {}"]
    assert result.source_map.point(2, 3) == Span("kernel.cu", 2, 3, 2, 4)
    assert result.source_map.point(3, 5) == Span.point("kernel.cu", 2, 5)


# --------------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("int a;\n\n#if 1\nint b;\n", "kernel.cu:3:2: error: unterminated #if"),
        ("#ifdef X\n#if 0\n#endif\n", "kernel.cu:1:2: error: unterminated #ifdef"),
        ("#line 10\n", "kernel.cu:1:2: error: unsupported preprocessor directive: #line 10"),
        ("#foo bar\n", "kernel.cu:1:2: error: invalid preprocessing directive #foo"),
        (
            "#define MAX(a, b) a\nint x = MAX(1);\n",
            "kernel.cu:2:9: error: macro MAX expects 2 arguments, got 1",
        ),
        ("#define F(a) a\nF(1, 2)\n", "kernel.cu:2:1: error: macro F expects 1 argument, got 2"),
        (
            "#define V(a, b, ...) a\nV(1)\n",
            "kernel.cu:2:1: error: macro V expects at least 2 arguments, got 1",
        ),
        (
            "#define MAX(a, b) a\nint x = MAX(1,\n",
            "kernel.cu:2:9: error: unterminated argument list invoking macro MAX",
        ),
        (
            "#define MAX(a, b) a\nint x = MAX(1,\n#ifdef X\n2\n#endif\n);\n",
            "kernel.cu:3:1: error: unsupported preprocessor directive inside macro arguments: #ifdef X",
        ),
        (
            "#if __CUDA_ARCH__ < 900\n#error this kernel needs sm_90\n#endif\n",
            "kernel.cu:2:2: error: #error this kernel needs sm_90",
        ),
        ('#include "missing.cuh"\n', 'kernel.cu:1:10: error: include file not found: "missing.cuh" (searched: .)'),
        ("#include missing\n", 'kernel.cu:1:10: error: #include expects "FILENAME" or <FILENAME>'),
        ("#else\n", "kernel.cu:1:2: error: #else without #if"),
        ("#endif\n", "kernel.cu:1:2: error: #endif without #if"),
        ("#elif 1\n", "kernel.cu:1:2: error: #elif without #if"),
        ("#if 1\n#else\n#elif 1\n#endif\n", "kernel.cu:3:2: error: #elif after #else"),
        ("#if 1\n#else\n#else\n#endif\n", "kernel.cu:3:2: error: #else after #else"),
        ("#if 1 / (2 - 2)\n#endif\n", "kernel.cu:1:7: error: division by zero in #if"),
        ("#if 0\n#elif 5 % 0\n#endif\n", "kernel.cu:2:9: error: division by zero in #elif"),
        ("#if (1 + 2\n#endif\n", "kernel.cu:1:5: error: missing ')' in #if expression"),
        ("#if 1 2\n#endif\n", 'kernel.cu:1:7: error: missing binary operator before token "2"'),
        ("#if 1 +\n#endif\n", 'kernel.cu:1:7: error: missing operand after "+" in #if expression'),
        ("#if 1 ? 2\n#endif\n", "kernel.cu:1:7: error: '?' without following ':'"),
        ("#if\n#endif\n", "kernel.cu:1:2: error: #if with no expression"),
        ("#if 1.5\n#endif\n", "kernel.cu:1:5: error: floating constant in #if expression"),
        ('#if "s"\n#endif\n', 'kernel.cu:1:5: error: token ""s"" is not valid in #if expressions'),
        ("#if FOO(1)\n#endif\n", "kernel.cu:1:5: error: function-like macro FOO is not defined"),
        ("#if defined(X\n#endif\n", "kernel.cu:1:5: error: missing ')' after \"defined\""),
        ("#if defined\n#endif\n", 'kernel.cu:1:5: error: operator "defined" requires an identifier'),
        ("#ifdef\n#endif\n", "kernel.cu:1:2: error: no macro name given in #ifdef directive"),
        ("#define 3 x\n", "kernel.cu:1:9: error: macro names must be identifiers"),
        ("#define\n", "kernel.cu:1:2: error: no macro name given in #define directive"),
        ("#define F(a, a) a\n", 'kernel.cu:1:14: error: duplicate macro parameter "a"'),
        ("#define F(a b) a\n", "kernel.cu:1:13: error: expected ',' or ')' in macro parameter list, found \"b\""),
        ("#define F(a\n", "kernel.cu:1:10: error: missing ')' in macro parameter list"),
        ("#define S(a) #b\n", "kernel.cu:1:14: error: '#' is not followed by a macro parameter"),
        ("#define P(a) ## a\n", "kernel.cu:1:14: error: '##' cannot appear at either end of a macro expansion"),
        (
            "#define V __VA_ARGS__\n",
            "kernel.cu:1:11: error: __VA_ARGS__ can only appear in the expansion of a variadic macro",
        ),
        (
            "#define CAT(a, b) a ## b\nCAT(x, +)\n",
            'kernel.cu:2:1: error: pasting "x" and "+" does not give a valid preprocessing token',
        ),
        ("int a; /* never closed\nint b;\n", "kernel.cu:1:8: error: unterminated comment"),
        ('const char* s = "open;\n', 'kernel.cu:1:17: error: missing terminating " character'),
        ("#define Q 'x\n", "kernel.cu:1:11: error: missing terminating ' character"),
        ("#define U _Pragma(unroll)\nU\n", "kernel.cu:2:1: error: _Pragma takes a parenthesized string literal"),
    ],
)
def test_error_messages(source: str, expected: str) -> None:
    assert error_line(source) == expected


def test_error_rendering_quotes_the_line_with_a_caret() -> None:
    with pytest.raises(LarkcError) as info:
        pp("#define MAX(a, b) a\nint x = MAX(1);\n")
    assert info.value.render().splitlines() == [
        "kernel.cu:2:9: error: macro MAX expects 2 arguments, got 1",
        "    2 | int x = MAX(1);",
        "      |         ^~~~~~",
    ]


def test_error_in_a_paste_notes_the_macro_definition() -> None:
    with pytest.raises(LarkcError) as info:
        pp("#define CAT(a, b) a ## b\nCAT(x, +)\n")
    assert info.value.notes == ("in expansion of macro CAT defined at kernel.cu:1:9",)


def test_error_in_an_included_file_points_into_it() -> None:
    with pytest.raises(LarkcError) as info:
        preprocess('#include "sub/bad.cuh"\n', str(CASES / "main.cu"), include_dirs=[])
    assert str(info.value) == (
        f'{CASES / "main.cu"}:1:10: error: include file not found: "sub/bad.cuh" (searched: {CASES})'
    )
    with pytest.raises(LarkcError) as info:
        preprocess("#include <lib.cuh>\n#if LIB_VALUE / 0\n#endif\n", "m.cu", include_dirs=[CASES / "incdir"])
    assert str(info.value) == "m.cu:2:15: error: division by zero in #if"


def test_unguarded_include_cycle_is_an_error() -> None:
    with pytest.raises(LarkcError) as info:
        preprocess('#include "cycle_a.cuh"\n', str(CASES / "main.cu"))
    message = info.value.message
    assert message.startswith("#include cycle: ")
    assert re.search(r"cycle_a\.cuh -> \S*cycle_b\.cuh -> \S*cycle_a\.cuh$", message)
    assert message.count("cycle_b.cuh") == 1  # the cycle is named once, not unrolled to the depth limit
    assert info.value.span is not None and info.value.span.file.endswith("cycle_b.cuh")


def test_bad_user_define_is_located_on_the_command_line() -> None:
    assert error_line("int a;\n", defines={"1X": "2"}) == "<command line>:1:9: error: macro names must be identifiers"


def test_runaway_inputs_give_errors_not_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "#if " + "(" * 500 + "1" + ")" * 500 + "\n#endif\n"
    assert error_line(deep) == "kernel.cu:1:69: error: #if expression nested too deeply"
    monkeypatch.setattr(preprocess_module, "_MAX_EXPANSION", 10_000)  # the real limit takes seconds
    exponential = "#define X0 x\n" + "".join(f"#define X{k + 1} X{k} X{k}\n" for k in range(30)) + "X30\n"
    assert error_line(exponential) == "kernel.cu:32:1: error: macro expansion too large (more than 10000 tokens)"
    nested = "#define F(x) x\n" + "F(" * 200 + "1" + ")" * 200 + "\n"
    assert error_line(nested).endswith("error: macro arguments nested too deeply")


# --------------------------------------------------------------------------------------------------
# Golden output of a realistic kernel


def test_golden_softmax_kernel(update_golden: bool) -> None:
    result = preprocess_file(CASES / "softmax.cu")
    golden = CASES / "softmax.cu.expected"
    if update_golden:
        golden.write_text(result.text, encoding="utf-8")
    assert result.text == golden.read_text(encoding="utf-8")
    assert result.system_includes == ("cuda_runtime.h", "cfloat", "cuda_runtime.h")


# --------------------------------------------------------------------------------------------------
# Comparison with gcc's preprocessor

_CPP = shutil.which("cpp")

_CPP_SNIPPETS = [
    # C11 6.10.3.5 EXAMPLE 4 (without the #include).
    r"""#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
""",
    # C11 6.10.3.5 EXAMPLE 5 and 7.
    r"""#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };
#define OBJ_LIKE (1-1)
#define FUNC_LIKE(a) ( a )
#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
OBJ_LIKE FUNC_LIKE(OBJ_LIKE)
""",
    # Kernel-style helpers.
    r"""#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) MIN(MAX(x, lo), hi)
#define TILE 16
#define SMEM(name, r, c) __shared__ float name[r][c + 1]
#define LOAD(dst, src, k) dst[threadIdx.y][threadIdx.x] = src[(k) * TILE + threadIdx.x]
#define ACC_T(T) T##_acc_t
#define DECLARE(T, n) ACC_T(T) acc_##n = (ACC_T(T))0
#if TILE * TILE > 128 && defined(CEIL_DIV)
#  define BIG 1
#else
#  define BIG 0
#endif
__global__ void k(const float* a, float* out, int n) {
  SMEM(tile, TILE, TILE);
  CUDA_KERNEL_LOOP(idx, n) {
    LOAD(tile, a, idx / TILE);
    out[idx] = CLAMP(a[idx], -1.0f, MAX(1.0f, a[0])) * CEIL_DIV(n, TILE) + BIG;
    DECLARE(float, 0); DECLARE(double, TILE);
  }
}
""",
    # Rescanning corner cases.
    r"""#define f(a) a*g
#define g(a) f(a)
f(2)(9)
#define AA BB
#define BB AA
AA BB
#define id(x) x
#define LPAREN (
#define call(F) F LPAREN 1 )
id(id)(3) call(id)
#define EMPTY
#define DEFER(x) x EMPTY
DEFER(id)(4)
#define CAT(a, b) a ## b
#define XCAT(a, b) CAT(a, b)
CAT(TI, LE) XCAT(AA, BB) CAT(1, e5) CAT(., 5) CAT(-, =) CAT(&, &)
#define LOG(fmt, ...) printf(fmt, ## __VA_ARGS__)
LOG("x") LOG("y", 1, id(2))
#define OPT(a, ...) h(a __VA_OPT__(,) __VA_ARGS__)
OPT(1) OPT(1, 2)
""",
]


def _cpp(text: str) -> str:
    assert _CPP is not None
    done = subprocess.run(
        [_CPP, "-P", "-undef", "-nostdinc", "-"], input=text, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(_CPP is None, reason="gcc's cpp is not installed")
@pytest.mark.parametrize("snippet", _CPP_SNIPPETS, ids=["std_example_4", "std_examples_5_7", "kernel", "rescan"])
def test_agrees_with_gcc_cpp(snippet: str) -> None:
    assert tokens(preprocess(snippet, "snippet.c").text) == tokens(_cpp(snippet))


@pytest.mark.skipif(_CPP is None, reason="gcc's cpp is not installed")
def test_if_values_agree_with_gcc_cpp() -> None:
    """Random expressions, unsigned ones included: every value we compute, gcc confirms."""
    rng = random.Random(20240611)
    expressions = [_render(_random_expr(rng, 4, unsigned=True)) for _ in range(300)]
    checks = []
    for k, expression in enumerate(expressions):
        try:
            value = evaluate_if(expression)
        except LarkcError as e:
            assert e.message == "division by zero in #if"
            continue
        literal = f"{value}u" if value >= 2**63 else f"({value + 1} - 1)" if value < 0 else f"{value}"
        checks.append(f"#if ({expression}) == {literal}\nok{k}\n#else\nbad{k}\n#endif\n")
    assert len(checks) > 200
    assert "bad" not in _cpp("".join(checks))


# --------------------------------------------------------------------------------------------------
# Properties


_IDENTIFIERS = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
_NUMBERS = st.from_regex(r"[0-9]{1,4}(\.[0-9]{1,3})?[fuUlL]?", fullmatch=True)
_PUNCTUATORS = st.sampled_from(
    [
        "+",
        "-",
        "*",
        "/",
        "%",
        "<",
        ">",
        "=",
        "==",
        "!=",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ";",
        ",",
        ".",
        "->",
        "&&",
        "||",
        "!",
        "~",
        "?",
        ":",
        "::",
        "<<",
        ">>",
        "&",
        "|",
        "^",
        "#",
        "##",
        "+=",
        "<<=",
        "...",
    ]
)
_STRING_CHARS = st.sampled_from([*"abc XYZ09_#()/*'", "//", "/*", "*/", "\\\\", '\\"', "MAX", "__LINE__", "N"])
_STRINGS = st.lists(_STRING_CHARS, max_size=6).map(lambda cs: '"' + "".join(cs) + '"')
_CHARS = st.sampled_from(["'a'", "'\\n'", "'\"'", "'\\''", "'/'", "'N'"])
_FRAGMENTS = st.one_of(_IDENTIFIERS, _NUMBERS, _PUNCTUATORS, _STRINGS, _CHARS, st.just("\n"))
_SPACES = st.sampled_from(["", "", " ", "  ", "\t"])


@st.composite
def _plain_text(draw: st.DrawFn) -> str:
    """C-like text without directives, comments, splices or uses of the defined macros."""
    parts: list[str] = []
    for fragment in draw(st.lists(_FRAGMENTS, max_size=40)):
        space = draw(_SPACES)
        if parts and parts[-1].endswith("/") and fragment.startswith(("/", "*")) and not space:
            space = " "  # `/` then `/` or `*` would start a comment
        if (
            parts
            and (parts[-1][-1:].isalnum() or parts[-1].endswith("_"))
            and fragment.startswith(("'", '"'))
            and not space
        ):
            space = " "  # `0'a'` (and `0_'a'`) lexes as the pp-number `0'a` (a C++14 digit separator) and a stray `'`
        line_start = not parts or parts[-1] == "\n"
        if line_start and fragment.startswith("#"):
            fragment = "x " + fragment  # a `#` first on a line would make a directive
        parts.append(space + fragment if fragment != "\n" else fragment)
    return "".join(parts) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plain_text())
def test_text_without_directives_or_macros_is_unchanged(text: str) -> None:
    result = preprocess(text, "random.cu", defines={"N": "1", "MAX(a, b)": "a"})
    assert result.text == text
    for row, line in enumerate(text.split("\n"), 1):
        if line:
            assert result.source_map.span(row, 1, row, len(line) + 1) == Span("random.cu", row, 1, row, len(line) + 1)


@dataclass(frozen=True)
class _Expr:
    """An #if expression tree: ``op`` is "num", a unary operator, a binary one, "?:" or ","."""

    op: str
    args: tuple[_Expr, ...] = ()
    value: int = 0
    unsigned: bool = False


_BINARY_PRECEDENCE = {
    "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, "<=": 7, ">": 7, ">=": 7,
    "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
}  # fmt: skip


def _precedence(e: _Expr) -> int:
    if e.op == "num":
        return 12
    if len(e.args) == 1:
        return 11
    if e.op == "?:":
        return 0
    if e.op == ",":
        return -1
    return _BINARY_PRECEDENCE[e.op]


def _render(e: _Expr) -> str:
    """C text with the fewest parentheses C's grammar allows, so that precedence is exercised."""

    def sub(child: _Expr, at_least: int) -> str:
        text = _render(child)
        return f"({text})" if _precedence(child) < at_least else text

    if e.op == "num":
        return f"{e.value}{'u' if e.unsigned else ''}"
    if len(e.args) == 1:
        return f"{e.op} {sub(e.args[0], 11)}"
    if e.op == "?:":
        return f"{sub(e.args[0], 1)} ? {sub(e.args[1], -1)} : {sub(e.args[2], 0)}"
    if e.op == ",":
        return f"{sub(e.args[0], -1)} , {sub(e.args[1], 0)}"
    p = _BINARY_PRECEDENCE[e.op]
    return f"{sub(e.args[0], p)} {e.op} {sub(e.args[1], p + 1)}"


def _random_expr(rng: random.Random, depth: int, *, unsigned: bool) -> _Expr:
    if depth == 0 or rng.random() < 0.25:
        return _Expr("num", value=rng.choice([0, 1, 2, 3, 7, 10, 255, rng.randrange(1000)]),
                     unsigned=unsigned and rng.random() < 0.2)  # fmt: skip
    kind = rng.random()
    if kind < 0.15:
        return _Expr(rng.choice("-!~+"), (_random_expr(rng, depth - 1, unsigned=unsigned),))
    if kind < 0.25:
        return _Expr("?:", tuple(_random_expr(rng, depth - 1, unsigned=unsigned) for _ in range(3)))
    op = rng.choice(list(_BINARY_PRECEDENCE))
    if op in ("<<", ">>"):
        count = _Expr("num", value=rng.randrange(70 if unsigned else 20))
        return _Expr(op, (_random_expr(rng, depth - 1, unsigned=unsigned), count))
    return _Expr(op, (_random_expr(rng, depth - 1, unsigned=unsigned), _random_expr(rng, depth - 1, unsigned=unsigned)))


class _DivisionByZero(Exception):
    pass


def _wrap64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def _c_value(e: _Expr, skip: bool = False) -> int:
    """The value C gives the (signed) expression ``e``: int64 arithmetic, truncating division."""
    ev = _c_value
    match e.op:
        case "num":
            return e.value
        case "-" | "+" | "~" | "!" if len(e.args) == 1:
            v = ev(e.args[0], skip)
            return {"-": _wrap64(-v), "+": v, "~": ~v, "!": int(v == 0)}[e.op]
        case "?:":
            c = ev(e.args[0], skip)
            then, other = ev(e.args[1], skip or c == 0), ev(e.args[2], skip or c != 0)
            return then if c else other
        case "&&":
            a = ev(e.args[0], skip)
            b = ev(e.args[1], skip or a == 0)
            return int(a != 0 and b != 0)
        case "||":
            a = ev(e.args[0], skip)
            b = ev(e.args[1], skip or a != 0)
            return int(a != 0 or b != 0)
        case ",":
            ev(e.args[0], skip)
            return ev(e.args[1], skip)
    a, b = ev(e.args[0], skip), ev(e.args[1], skip)
    if e.op in ("/", "%") and b == 0:
        if skip:
            return 0
        raise _DivisionByZero
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1) if b else 0
    results: dict[str, Callable[[], int]] = {
        "*": lambda: a * b, "/": lambda: quotient, "%": lambda: a - b * quotient, "+": lambda: a + b,
        "-": lambda: a - b, "<<": lambda: a << b, ">>": lambda: a >> b, "<": lambda: int(a < b),
        "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "&": lambda: a & b, "^": lambda: a ^ b,
        "|": lambda: a | b,
    }  # fmt: skip
    return _wrap64(results[e.op]())


@st.composite
def _expressions(draw: st.DrawFn) -> _Expr:
    return _random_expr(random.Random(draw(st.integers(0, 2**32))), draw(st.integers(1, 5)), unsigned=False)


@settings(max_examples=300, deadline=None)
@given(_expressions())
def test_if_evaluator_agrees_with_python(e: _Expr) -> None:
    text = _render(e)
    try:
        expected: int | None = _c_value(e)
    except _DivisionByZero:
        expected = None
    if expected is None:
        with pytest.raises(LarkcError, match="division by zero in #if"):
            evaluate_if(text)
        return
    assert evaluate_if(text) == expected
    src = f"#if {text}\nyes\n#else\nno\n#endif\n#if ({text}) == ({expected + 1} - 1)\nequal\n#endif\n"
    assert code(src) == norm(("yes" if expected else "no") + "\nequal")
