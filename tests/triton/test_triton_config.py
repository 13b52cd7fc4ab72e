"""``@triton.autotune`` configurations and ``@triton.heuristics``, read from the decorators' source."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.errors import LarkcError
from larkc.frontends.triton.config import apply_heuristics, autotune_configs, heuristic_names
from larkc.frontends.triton.source import read_source

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
