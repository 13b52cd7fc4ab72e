"""``torch.empty(0, device=x.device, dtype=x.dtype)`` passed for an absent bias to a ``torch::Tensor``
parameter (which takes no ``None``), the host code testing ``bias.numel() > 0``: a task tensor of no
elements (before, a PyTorch step the tracer refused: ``unsupported op aten.empty.memory_format``). A
kernel that reads it all the same reads out of bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.tasks import BufferArg

HERE = Path(__file__).resolve().parent / "empty_bias"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_an_empty_tensor_for_an_absent_bias_is_verified() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    assert task.launches[0].bindings["b"] == BufferArg("empty_f32")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_reading_the_empty_bias_fails() -> None:
    task = larkc.candidate_task(HERE / "bias_read_anyway.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1, "\n".join(report.render())
    assert any("empty_f32" in line and "out of bounds" in line for line in report.render())
