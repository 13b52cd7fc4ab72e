"""Triton inputs the frontend must reject, each with its exact located message (the first lines of each
``invalid/*_invalid.py`` give the parameter types, constexprs and the expected error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.errors import LarkcError
from larkc.frontends.triton import parse_triton
from larkc.ir.types import AddressSpace, PointerType, Type
from larkc.tasks import parse_dtype

INVALID = Path(__file__).parent / "invalid"
CASES = sorted(p.name for p in INVALID.glob("*_invalid.py"))


def _header(text: str) -> tuple[dict[str, Type], dict[str, int], str]:
    lines = text.splitlines()
    params: dict[str, Type] = {}
    consts: dict[str, int] = {}
    error = ""
    for line in lines[:3]:
        key, _, rest = line.removeprefix("# ").partition(":")
        items = [x.strip() for x in rest.split(",") if x.strip()]
        match key:
            case "params":
                for item in items:
                    name, _, t = item.partition("=")
                    scalar = parse_dtype(t.rstrip("*"))
                    params[name] = PointerType(scalar, AddressSpace.GLOBAL) if t.endswith("*") else scalar
            case "constexprs":
                for item in items:
                    name, _, v = item.partition("=")
                    consts[name] = int(v)
            case "error":
                error = rest.strip()
    return params, consts, error


def test_every_invalid_case_has_a_header() -> None:
    assert len(CASES) >= 10
    for name in CASES:
        assert _header((INVALID / name).read_text())[2], name


@pytest.mark.parametrize("name", CASES)
def test_invalid_triton_is_rejected_at_the_construct(name: str) -> None:
    path = INVALID / name
    params, consts, error = _header(path.read_text())
    with pytest.raises(LarkcError) as info:
        parse_triton(path, kernel="k", params=params, constexprs=consts)
    got = str(info.value).replace(str(INVALID) + "/", "")
    assert got == error
