"""Shared pytest configuration: the golden-file update flag and tier markers' skips."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (IR snapshots, pinned error texts) from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tiers whose tools are absent, with the reason."""
    have_lean = shutil.which("lake") is not None or shutil.which("lean") is not None
    have_nvcc = shutil.which("nvcc") is not None
    for item in items:
        if "lean" in item.keywords and not have_lean:
            item.add_marker(pytest.mark.skip(reason="no Lean toolchain (lake/lean) on PATH"))
        if "nvcc" in item.keywords and not have_nvcc:
            item.add_marker(pytest.mark.skip(reason="nvcc is not on PATH"))
        if "gpu" in item.keywords:
            try:
                import torch

                has_gpu = torch.cuda.is_available()
            except ImportError:
                has_gpu = False
            if not has_gpu:
                item.add_marker(pytest.mark.skip(reason="no CUDA GPU"))
