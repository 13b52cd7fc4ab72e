"""``nn.Parameter(torch.randn(out, in, k))`` in the place of ``nn.ConvTranspose1d``'s ``(in, out, k)``
weight: a convolution's layout, which agents write for a transposed convolution's weight. The kernel is
checked reading ``Model``'s weight with dims 0 and 1 swapped (a PyTorch copy, trusted), for every value
of it; the values differ under KernelBench's seeded construction (the draws fill other elements), a
finding: FAILED, with the kernel's own verdict below it. Before, an error: ``is not Model's in its
place``."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.provers import Verdict

HERE = Path(__file__).resolve().parent / "transposed_weight"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_a_weight_in_a_convolutions_layout_is_read_swapped() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    assert dict(task.params) == {"conv_transpose1d_weight": "conv_transpose1d.weight"}
    assert len(task.findings) == 1
    assert "with dims 0 and 1 swapped" in task.findings[0]
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and report.kinds() == {"finding"}, "\n".join(report.render())
    assert report.kernel_verdict() is Verdict.VERIFIED


def test_a_kernel_reading_its_weight_in_the_other_layout_fails() -> None:
    task = larkc.candidate_task(HERE / "layout_mixed.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1, "\n".join(report.render())
    assert report.kernel_verdict() is Verdict.FAILED
