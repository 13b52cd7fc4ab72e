"""Every example kernel lowers, passes the IR verifier, round-trips through the printed form, and
matches its golden IR snapshot (``tests/frontends/golden/<example>.ir``, rewritten only with
``--update-golden``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc import load_task
from larkc.cli import main
from larkc.frontends import parse_task
from larkc.ir import parse_module, print_module, verify_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.parent for p in (ROOT / "examples" / "cuda").glob("*/task.py"))
GOLDEN = Path(__file__).parent / "golden"


def test_the_corpus_is_there() -> None:
    assert len(EXAMPLES) >= 21


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_lowers_verifies_round_trips_and_matches_golden(example: Path, update_golden: bool) -> None:
    task = load_task(example)
    module = parse_task(task)
    verify_module(module)
    text = print_module(module)
    assert parse_module(text, file=f"{example.name}.ir") == module
    assert print_module(parse_module(text)) == text
    golden = GOLDEN / f"{example.name}.ir"
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden IR for {example.name}: run pytest --update-golden"
    assert text == golden.read_text(), f"IR of {example.name} changed; inspect, then pytest --update-golden"


@pytest.mark.parametrize("example", EXAMPLES[:3], ids=lambda p: p.name)
def test_cli_parse_prints_the_ir(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(example)]) == 0
    out = capsys.readouterr().out
    assert out == print_module(parse_task(load_task(example)))
