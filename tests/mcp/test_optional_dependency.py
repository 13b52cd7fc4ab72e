"""The MCP SDK is an optional dependency: only ``larkc.mcp.server`` imports it, and ``larkc mcp`` without it is
bad input (exit 2) that says how to install it. These tests run whether or not the SDK is installed."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def test_only_the_server_module_imports_the_sdk() -> None:
    importers = []
    for file in sorted((SRC / "larkc").rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            match node:
                case ast.Import(names=names) if any(a.name.split(".")[0] == "mcp" for a in names):
                    importers.append(file.relative_to(SRC).as_posix())
                case ast.ImportFrom(module=module, level=0) if module and module.split(".")[0] == "mcp":
                    importers.append(file.relative_to(SRC).as_posix())
    assert sorted(set(importers)) == ["larkc/mcp/server.py"]


def test_larkc_mcp_without_the_sdk_says_how_to_install_it() -> None:
    hide = "import sys; sys.modules['mcp'] = None; from larkc.cli import main; sys.exit(main(['mcp']))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", hide], env=env, capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.strip() == (
        "error: larkc mcp needs the MCP Python SDK, which is not installed: pip install 'larkc[mcp]' "
        "(or pip install 'mcp>=2.3')"
    )
