"""Locations of the data directories that ship beside the package (grammars, Lean templates, Lean library).

In a source checkout (the supported way to install larkc, ``pip install -e .``) they sit at the repository
root; a wheel installs them under ``<prefix>/share/larkc``.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

__all__ = ["data_dir", "grammar_path"]


@cache
def data_dir(name: str) -> Path:
    """The directory ``name`` (``grammars``, ``lean_templates`` or ``lean``)."""
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    installed = Path(sys.prefix) / "share" / "larkc" / name
    if installed.is_dir():
        return installed
    raise FileNotFoundError(f"larkc data directory {name!r} not found (looked in {checkout} and {installed})")


def grammar_path(name: str) -> Path:
    """The Lark grammar file ``grammars/<name>``."""
    return data_dir("grammars") / name
