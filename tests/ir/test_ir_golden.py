"""Golden IR files: ``tests/ir/golden/*.ir`` parse, verify and re-print byte for byte;
``*_invalid.ir`` files fail with the error pinned (rendered first line) in the adjacent ``.err`` file.

Run pytest with ``--update-golden`` (see ``tests/conftest.py``) to rewrite the ``.err`` files from the
current messages, then review the diff: golden files change only on purpose.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.errors import LarkcError
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_module
from larkc.ir.verify import verify_module

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
VALID = sorted(p for p in GOLDEN.glob("*.ir") if not p.stem.endswith("_invalid"))
INVALID = sorted(GOLDEN.glob("*_invalid.ir"))


def relative(path: Path) -> str:
    """The name diagnostics use: the path from the repository root, the same on every machine."""
    return path.relative_to(ROOT).as_posix()


def test_the_corpus_is_not_empty() -> None:
    assert len(VALID) >= 3 and len(INVALID) >= 3


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_files_verify_and_reprint_identically(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    m = parse_module(text, relative(path))
    verify_module(m)
    assert print_module(m) == text
    assert parse_module(print_module(m)) == m


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_files_fail_with_the_pinned_error(path: Path, update_golden: bool) -> None:
    err_path = path.with_suffix(".err")
    with pytest.raises(LarkcError) as info:
        verify_module(parse_module(path.read_text(encoding="utf-8"), relative(path)))
    first_line = info.value.render().splitlines()[0]
    if update_golden:
        err_path.write_text(first_line + "\n", encoding="utf-8")
    assert first_line == err_path.read_text(encoding="utf-8").strip()


def test_every_err_file_has_an_invalid_input() -> None:
    assert {p.with_suffix(".ir") for p in GOLDEN.glob("*.err")} == set(INVALID)


def test_the_example_in_the_docs_is_canonical() -> None:
    """The printed-form example of ``docs/ir.md`` verifies and is exactly what the printer writes."""
    doc = (ROOT / "docs" / "ir.md").read_text(encoding="utf-8")
    section = doc.split("## The printed form", 1)[1]
    example = section.split("```\n", 2)[1]
    m = parse_module(example, "docs/ir.md")
    verify_module(m)
    assert print_module(m) == example
