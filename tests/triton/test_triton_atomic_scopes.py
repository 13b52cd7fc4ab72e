"""Triton's ``scope=`` on ``tl.atomic_*``: ``"cta"`` is the IR's block scope (atomic only towards the
program itself), ``"gpu"`` (the default) the device scope, ``"sys"`` the system scope."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from larkc.errors import UnsupportedError
from larkc.frontends.triton import parse_triton
from larkc.ir.nodes import Atomic, MemoryOrder, MemScope
from larkc.ir.types import I32, AddressSpace, PointerType
from larkc.ir.walk import walk_stmts

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(c_ptr):
    tl.atomic_add(c_ptr, 1{args})
"""


def _atomic(tmp_path: Path, args: str) -> Atomic:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL.format(args=args), encoding="utf-8")
    module = parse_triton(path, kernel="k", params={"c_ptr": PointerType(I32, AddressSpace.GLOBAL)}, constexprs={})
    (atomic,) = [s for f in module.functions for s in walk_stmts(f.body) if isinstance(s, Atomic)]
    return atomic


@pytest.mark.parametrize(
    ("args", "order", "scope"),
    [
        ("", MemoryOrder.ACQ_REL, MemScope.DEVICE),
        (', scope="gpu"', MemoryOrder.ACQ_REL, MemScope.DEVICE),
        (', scope="cta"', MemoryOrder.ACQ_REL, MemScope.BLOCK),
        (', sem="relaxed", scope="sys"', MemoryOrder.RELAXED, MemScope.SYSTEM),
    ],
)
def test_scope_and_sem_reach_the_ir(tmp_path: Path, args: str, order: MemoryOrder, scope: MemScope) -> None:
    atomic = _atomic(tmp_path, args)
    assert (atomic.order, atomic.scope) == (order, scope)


def test_an_unknown_scope_is_a_located_error(tmp_path: Path) -> None:
    expected = re.escape("kernel.py:8:5: error: unsupported memory scope: 'warp'")
    with pytest.raises(UnsupportedError, match=expected) as info:
        _atomic(tmp_path, ', scope="warp"')
    assert info.value.span is not None and info.value.span.line == 8
