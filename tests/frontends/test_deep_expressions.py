"""Expressions thousands of levels deep (a sum of 3,000 terms) through every stage of the public API.

Every IR walker, the printer, the IR text parser, the verifier and the simulator's expression
evaluation are iterative, and the CUDA lowering lowers a left-nested chain in a loop: a long sum must
parse, verify, print, read back and simulate with Python's default recursion limit. A nesting the
lowering cannot follow is a located error, never a ``RecursionError``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import larkc
from larkc.errors import UnsupportedError
from larkc.ir.nodes import Binary, BinaryOp, Decl, Load
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_module
from larkc.ir.verify import verify_module
from larkc.ir.walk import stmt_exprs, walk_stmts

TERMS = 3000


def _kernel(path: Path, init: str) -> Path:
    path.write_text(
        "__global__ void deep_sum(const float* x, float* out) {\n"
        f"    float s = {init};\n"
        "    out[threadIdx.x] = s;\n"
        "}\n",
        encoding="utf-8",
    )
    return path


def _task(source: Path) -> larkc.Task:
    def reference(x: torch.Tensor) -> torch.Tensor:
        return x.sum().reshape(1)

    return larkc.Task(
        source=source,
        kernel="deep_sum",
        reference=reference,
        inputs={"x": f"f32[{TERMS}]"},
        outputs={"out": (("1",), "f32", "zeros")},
        grid=[1],
        block=[1],
    )


@pytest.fixture
def default_recursion_limit() -> object:
    """Run with Python's default limit, whatever an earlier test or the CLI set."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(old)


@pytest.mark.usefixtures("default_recursion_limit")
def test_sum_of_3000_terms_parses_verifies_prints_and_simulates(tmp_path: Path) -> None:
    task = _task(_kernel(tmp_path / "deep.cu", " + ".join(f"x[{i}]" for i in range(TERMS))))
    module = larkc.parse(task)
    verify_module(module)
    (kernel,) = module.functions
    loads = [s for s in walk_stmts(kernel.body) if isinstance(s, Load)]
    assert len(loads) == TERMS  # one load per term, in order
    (decl,) = [s for s in walk_stmts(kernel.body) if isinstance(s, Decl) and s.init is not None]
    adds = [e for e in stmt_exprs(decl) if isinstance(e, Binary) and e.op is BinaryOp.ADD]
    assert len(adds) == TERMS - 1
    text = print_module(module)
    assert text.count(" + ") == TERMS - 1
    assert print_module(parse_module(text)) == text
    report = larkc.run(task)
    assert report.ok, report.render()


@pytest.mark.usefixtures("default_recursion_limit")
def test_too_deep_a_nesting_is_a_located_error(tmp_path: Path) -> None:
    init = "x[0]"
    for i in range(1, 8000):  # right-nested through parentheses: the lowering recurses on it
        init = f"x[{i % TERMS}] + ({init})"
    task = _task(_kernel(tmp_path / "right.cu", init))
    with pytest.raises(UnsupportedError) as info:
        larkc.parse(task)
    assert "expression nested this deeply" in info.value.message
    assert info.value.span is not None and (info.value.span.line, info.value.span.col) == (2, 5)
