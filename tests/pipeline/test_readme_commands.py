"""Every ``larkc ...`` command shown in a code block of README.md runs and exits as the README says.

A command exits 0 unless its comment starts with ``exit N`` (``# exit 1: ...``). Commands run from a
scratch folder that sees the repository's ``examples/`` (so that ``-o out/`` writes there), through
``python -m larkc.cli`` of this interpreter. The one long command, the demo's proof, is skipped: the
example suite proves the same example.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[tuple[str, int]]:
    """``(command, expected exit status)`` of every line starting with ``larkc `` in a fenced code block."""
    out: list[tuple[str, int]] = []
    inside = False
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if inside and line.startswith("larkc "):
            command, _, comment = line.partition("#")
            m = re.match(r"\s*exit (\d)\b", comment)
            out.append((command.strip(), int(m.group(1)) if m else 0))
    return out


COMMANDS = readme_commands()


def demo_example() -> str:
    """The example ``bash scripts/dev.sh demo`` parses, runs and verifies."""
    m = re.search(r"example=\$\{2:-([^}]+)\}", (ROOT / "scripts" / "dev.sh").read_text(encoding="utf-8"))
    assert m is not None, "scripts/dev.sh names its demo example"
    return m.group(1)


#: The demo's proof takes a minute; tests/pipeline/test_verify_examples.py proves the same example.
LONG_DEMO = f"larkc verify {demo_example()}"


def test_the_readme_shows_commands_of_every_subcommand() -> None:
    shown = {shlex.split(c)[1] for c, _ in COMMANDS}
    assert shown >= {"parse", "trace", "run", "verify", "emit"}, shown
    assert {code for _, code in COMMANDS} >= {0, 1}


@pytest.mark.parametrize(("command", "code"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command_exits_as_documented(command: str, code: int, tmp_path: Path) -> None:
    if command == LONG_DEMO:
        pytest.skip("the demo's proof (a minute): test_verify_examples.py verifies the same example")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    argv = [sys.executable, "-m", "larkc.cli", *shlex.split(command)[1:], "--replay-dir", str(tmp_path / "replays")]
    if shlex.split(command)[1] not in ("run", "verify"):
        argv = argv[:-2]  # only run and verify write replay files
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == code, f"{command}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
