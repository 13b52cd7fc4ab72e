"""The ``sim`` fixture of the simulator tests (helpers in ``sim_helpers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sim_helpers import Sim


@pytest.fixture
def sim(tmp_path: Path) -> Sim:
    return Sim(tmp_path)
