"""Every ``*_invalid.cu`` input fails cleanly: exit status 2 and the pinned, located error line.

Each file's first line is ``// expect: LINE:COL: error: MESSAGE``; ``--update-golden`` rewrites it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from larkc.cli import main

INVALID = sorted((Path(__file__).parent / "invalid").glob("*_invalid.cu"))
PREFIX = "// expect: "


def test_there_are_enough_invalid_cases() -> None:
    assert len(INVALID) >= 20


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_input_is_rejected_with_a_located_error(
    path: Path, capsys: pytest.CaptureFixture[str], update_golden: bool
) -> None:
    lines = path.read_text().splitlines(keepends=True)
    assert lines[0].startswith(PREFIX), f"{path.name} must start with '{PREFIX}LINE:COL: error: ...'"
    status = main(["parse", str(path)])
    err = capsys.readouterr().err
    assert status == 2
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:"), first
    got = first[len(f"{path}:") :]
    if update_golden:
        path.write_text(PREFIX + got + "\n" + "".join(lines[1:]))
        return
    assert got == lines[0][len(PREFIX) :].rstrip("\n")
    assert "Traceback" not in err
    # the diagnostic quotes the source line and puts a caret under the construct
    assert len(err.splitlines()) >= 3 and "^" in err.splitlines()[2]


def test_cli_reports_an_error_without_a_traceback_in_a_subprocess() -> None:
    path = INVALID[0]
    proc = subprocess.run(
        [sys.executable, "-m", "larkc.cli", "parse", str(path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{path}:")
