"""Build the Lean library and emitted projects with a real Lean toolchain (tier ``lean``).

Skipped where no ``lake`` is on the PATH (every machine of ours): these are the tests that turn the
library's "written without a compiler" status into "compiled" when someone runs them with Lean. The
first build downloads Mathlib's cache (``lake exe cache get``), which needs the network and minutes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from larkc.pipeline.emit import check_project, emit_task, write_project
from larkc.tasks import load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"

pytestmark = [pytest.mark.lean, pytest.mark.slow]


def _lake(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    lake = shutil.which("lake")
    assert lake is not None
    return subprocess.run([lake, *args], cwd=cwd, capture_output=True, text=True, timeout=7200, check=False)


def test_library_builds() -> None:
    _lake("exe", "cache", "get", cwd=ROOT / "lean")
    r = _lake("build", cwd=ROOT / "lean")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]


@pytest.mark.parametrize("name", ["vector_add", "row_sum_shared", "matmul_tiled", "softmax_online"])
def test_emitted_project_builds(name: str, tmp_path: Path) -> None:
    out = tmp_path / name
    write_project(emit_task(load_task(EXAMPLES / name / "task.py"), out), out)
    _lake("exe", "cache", "get", cwd=out)
    result = check_project(out)
    # the theorems are `sorry`: warnings, not errors
    assert result.status == "ok", "\n".join(result.messages)
