"""``@triton.autotune`` configurations and ``@triton.heuristics``, read from the decorators' source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from larkc.errors import LarkcError, UnsupportedError
from larkc.frontends.triton.config import (
    apply_heuristics,
    autotune_configs,
    heuristic_names,
    heuristic_shape_exprs,
)
from larkc.frontends.triton.source import read_source
from larkc.tasks.shape_expr import ShapeNum, evaluate, parse_shape_expr

SOURCE = """
import triton
import triton.language as tl

SIZES = [64, 128]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b, "SPLIT": s}, num_warps=w) for b in SIZES for s in (1, 2) for w in [4]]
    + [triton.Config({"BLOCK": 512, "SPLIT": 1}, num_stages=3)],
    key=["n"],
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
                    "LAST": lambda args: triton.next_power_of_2(args["n"]) if args["EVEN"] else 0})
@triton.jit
def k(x, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr, EVEN: tl.constexpr, LAST: tl.constexpr):
    pass


@triton.jit
def plain(x):
    pass


@triton.autotune(configs=[triton.Config(make_config())], key=[])
@triton.jit
def dynamic(x):
    pass


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0 and not args["m"] < 2 * args["n"],
                    "CHUNKS": lambda args: triton.cdiv(args["n"], args["BLOCK"]) + min(args["m"], 4) // 2,
                    "WIDE": lambda a: a["EVEN"] or 1 <= a["CHUNKS"] < 8})
@triton.jit
def shaped(x, n, m, BLOCK: tl.constexpr, EVEN: tl.constexpr, CHUNKS: tl.constexpr, WIDE: tl.constexpr):
    pass


@triton.heuristics({"EVEN": lambda args: args["n"] % 16 == 0, "ODD": lambda args: args["x"] is None})
@triton.jit
def untranslatable(x, n, EVEN: tl.constexpr, ODD: tl.constexpr):
    pass
"""


def _src(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "k.py"
    path.write_text(SOURCE, encoding="utf-8")
    return read_source(path)


def test_autotune_configs_are_every_specialisation(tmp_path: Path) -> None:
    configs = autotune_configs(_src(tmp_path), "k")
    assert [dict(c.constexprs) for c in configs] == [
        {"BLOCK": 64, "SPLIT": 1},
        {"BLOCK": 64, "SPLIT": 2},
        {"BLOCK": 128, "SPLIT": 1},
        {"BLOCK": 128, "SPLIT": 2},
        {"BLOCK": 512, "SPLIT": 1},
    ]
    assert autotune_configs(_src(tmp_path), "plain") == []


def test_heuristics_see_the_arguments_and_earlier_heuristics(tmp_path: Path) -> None:
    src = _src(tmp_path)
    assert heuristic_names(src, "k") == ["EVEN", "LAST"]
    assert apply_heuristics(src, "k", {"n": 1000, "BLOCK": 64})["EVEN"] is False
    out = apply_heuristics(src, "k", {"n": 1024, "BLOCK": 64})
    assert out["EVEN"] is True and out["LAST"] == 1024


def test_a_config_computed_by_a_function_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(LarkcError, match=r"k.py:25:41: error: unsupported expression in a Triton decorator"):
        autotune_configs(_src(tmp_path), "dynamic")


def test_heuristics_translate_to_shape_expressions(tmp_path: Path) -> None:
    # args["n"] and args["m"] are bound to shape expressions, BLOCK is a configuration's constexpr; a later
    # heuristic sees the earlier ones' expressions
    src = _src(tmp_path)
    bound = {"n": parse_shape_expr("d"), "m": parse_shape_expr("r * d"), "BLOCK": ShapeNum(64)}
    exprs = heuristic_shape_exprs(src, "shaped", bound)
    assert list(exprs) == ["EVEN", "CHUNKS", "WIDE"]
    assert exprs["EVEN"] == parse_shape_expr("d % 64 == 0 and not r * d < 2 * d")
    assert exprs["CHUNKS"] == parse_shape_expr("cdiv(d, 64) + min(r * d, 4) // 2")
    even, chunks = exprs["EVEN"], exprs["CHUNKS"]
    assert str(exprs["WIDE"]) == f"({even} or ((1 <= {chunks}) and ({chunks} < 8)))"
    # the expressions agree with what the heuristics compute at run time
    for r in (1, 2, 3):
        for d in (1, 63, 64, 128, 500, 512):
            run = apply_heuristics(src, "shaped", {"n": d, "m": r * d, "BLOCK": 64})
            for name, e in exprs.items():
                assert evaluate(e, {"r": r, "d": d}) == run[name], (name, r, d)


def test_a_heuristic_outside_the_shape_language_is_a_located_error(tmp_path: Path) -> None:
    src = _src(tmp_path)
    bound = {"n": parse_shape_expr("d"), "BLOCK": ShapeNum(64)}
    # a conditional expression (k's LAST) and an identity test of an argument are not shape expressions
    with pytest.raises(UnsupportedError, match=r"k.py:14:42: error: unsupported heuristic for larkc emit"):
        heuristic_shape_exprs(src, "k", bound)
    with pytest.raises(UnsupportedError, match=r"k.py:39:83: error: unsupported heuristic for larkc emit \(outside"):
        heuristic_shape_exprs(src, "untranslatable", bound)
    # nor is an argument bound to no shape expression
    with pytest.raises(UnsupportedError, match=r"m is not bound to a shape expression"):
        heuristic_shape_exprs(src, "shaped", bound)


def test_and_or_give_the_deciding_operand(tmp_path: Path) -> None:
    """`scale or 2` is 2 when scale is None, as in Python (it was read as True, so MULT 1)."""
    path = tmp_path / "k.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "def get_configs(scale=None, width=64):\n"
        "    return [triton.Config({'MULT': scale or 2, 'W': width and 3, 'Z': 0 and 5, 'O': 4 or 0,"
        " 'L': None or 0 or 7})]\n\n"
        "@triton.autotune(configs=get_configs(), key=['n'])\n@triton.jit\ndef k(x, n, MULT: tl.constexpr):\n"
        "    pass\n",
        encoding="utf-8",
    )
    (config,) = autotune_configs(read_source(path), "k")
    assert dict(config.constexprs) == {"MULT": 2, "W": 3, "Z": 0, "O": 4, "L": 7}
    assert apply_heuristics(read_source(path), "k", {}) == {}


LATE = """
import triton
import triton.language as tl

MULT = 2
KEPT = 4


def get_configs(scale=MULT):
    return [triton.Config({"MULT": MULT, "S": scale})]


def kept_configs():
    return [triton.Config({"K": KEPT})]


@triton.autotune(configs=[triton.Config({"MULT": MULT})], key=["n"])
@triton.jit
def direct(x, n, MULT: tl.constexpr):
    pass


@triton.autotune(configs=get_configs(), key=["n"])
@triton.jit
def helper(x, n, MULT: tl.constexpr):
    pass


@triton.autotune(configs=kept_configs() + [triton.Config({"K": LATER})], key=["n"])
@triton.jit
def later(x, n, K: tl.constexpr):
    pass


@triton.autotune(configs=kept_configs(), key=["n"])
@triton.jit
def kept(x, n, K: tl.constexpr):
    pass


MULT = 1
LATER = 3
"""


def test_configs_see_the_names_of_their_def_not_the_final_ones(tmp_path: Path) -> None:
    """A decorator runs at its def: MULT is 2 there, 1 at the module's end (it was read as 1, and a kernel
    wrong for MULT=2 VERIFIED). larkc keeps only the final names, so one rebound later is a located error,
    in the decorator, in a helper it calls, in a helper's default (evaluated at the helper's def)."""
    path = tmp_path / "k.py"
    path.write_text(LATE, encoding="utf-8")
    src = read_source(path)
    rebound = "name MULT is rebound after the decorator of {} (line {}) runs: larkc knows only its final value"
    with pytest.raises(LarkcError, match=re.escape("k.py:17:50: error: " + rebound.format("direct", 17))):
        autotune_configs(src, "direct")
    with pytest.raises(LarkcError, match=r"k.py:9:23: error: name MULT is rebound after the def of get_configs"):
        autotune_configs(src, "helper")
    with pytest.raises(LarkcError, match=r"k.py:29:64: error: name LATER is not yet defined when the decorator"):
        autotune_configs(src, "later")
    assert [dict(c.constexprs) for c in autotune_configs(src, "kept")] == [{"K": 4}]
    # a helper's body runs at the call: a name rebound between the helper's def and the decorator is fine
    path.write_text(LATE.replace("MULT = 1\n", "").replace("(scale=MULT)", "(scale=3)").replace("KEPT = 4\n", ""))
    path.write_text(
        path.read_text().replace(
            "@triton.autotune(configs=[triton", "KEPT = 5\n\n\n@triton.autotune(configs=[triton", 1
        )
    )
    src = read_source(path)
    assert [dict(c.constexprs) for c in autotune_configs(src, "helper")] == [{"MULT": 2, "S": 3}]
    assert [dict(c.constexprs) for c in autotune_configs(src, "kept")] == [{"K": 5}]


def test_options_that_change_what_the_launch_computes_are_located_errors(tmp_path: Path) -> None:
    """A Config's pre_hook (run on the launch's arguments) or ir_override, autotune's reset_to_zero or
    pre_hook: each changes the launch (they were ignored: a pre_hook doubling the input VERIFIED)."""
    path = tmp_path / "k.py"
    for options, config in [
        ("", "pre_hook=lambda nargs: nargs['x'].mul_(2)"),
        ("", "ir_override='k.ttgir'"),
        (", reset_to_zero=['x']", ""),
        (", pre_hook=lambda kwargs, reset_only=False: None", ""),
    ]:
        path.write_text(
            "import triton\nimport triton.language as tl\n\n"
            f"@triton.autotune(configs=[triton.Config({{'B': 4}}, {config})], key=['n']{options})\n"
            "@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n",
            encoding="utf-8",
        )
        with pytest.raises(UnsupportedError, match=r"k.py:4:\d+: error: unsupported (triton.Config|@triton.autotune)"):
            autotune_configs(read_source(path), "k")
    path.write_text(
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune(configs=[triton.Config({'B': 4}, num_warps=2, pre_hook=None)],\n"
        "                 key=['n'], reset_to_zero=None)\n"
        "@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n",
        encoding="utf-8",
    )
    assert [dict(c.constexprs) for c in autotune_configs(read_source(path), "k")] == [{"B": 4}]
