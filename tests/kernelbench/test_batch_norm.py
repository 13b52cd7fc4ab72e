"""Batch norm in KernelBench problems: the harness runs Model in training mode (batch statistics), so
a kernel normalising by the batch's statistics is verified and one using the running statistics (the
inference formula) is refuted (``tests/kernelbench/batch_norm/``, written for these tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.tasks import BufferArg

HERE = Path(__file__).resolve().parent / "batch_norm"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_batch_statistics_verified() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    # the running statistics are inputs too (the reference updates them, at the instance's sizes)
    assert dict(task.params) == {
        "bn_weight": "bn.weight",
        "bn_bias": "bn.bias",
        "bn_running_mean": "bn.running_mean",
        "bn_running_var": "bn.running_var",
    }
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_running_statistics_refuted() -> None:
    task = larkc.candidate_task(HERE / "wrong_running_stats.py", HERE / "model.py")
    assert task.bindings["mean"] == BufferArg("bn_running_mean")
    assert task.bindings["var"] == BufferArg("bn_running_var")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and "mismatch" in report.kinds(), "\n".join(report.render())


def test_registered_buffers_and_plain_parameters(tmp_path: Path) -> None:
    """ModelNew holding the norm as plain parameters (ones, zeros) and registered buffers (zeros, ones):
    bound to Model's batch norm's by value and shape; the inference formula is still refuted."""
    text = (HERE / "wrong_running_stats.py").read_text()
    module = "        self.bn = nn.BatchNorm1d(num_features)\n"
    plain = (
        "        self.gamma = nn.Parameter(torch.ones(num_features))\n"
        "        self.beta = nn.Parameter(torch.zeros(num_features))\n"
        '        self.register_buffer("mean", torch.zeros(num_features))\n'
        '        self.register_buffer("var", torch.ones(num_features))\n'
    )
    call = "self.bn.weight, self.bn.bias, self.bn.running_mean, self.bn.running_var"
    assert module in text and call in text
    path = tmp_path / "model_new.py"
    path.write_text(text.replace(module, plain).replace(call, "self.gamma, self.beta, self.mean, self.var"))
    task = larkc.candidate_task(path, HERE / "model.py")
    assert task.findings == ()
    assert [task.bindings[k] for k in ("w", "b", "mean", "var")] == [
        BufferArg("bn_weight"),
        BufferArg("bn_bias"),
        BufferArg("bn_running_mean"),
        BufferArg("bn_running_var"),
    ]
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and "mismatch" in report.kinds(), "\n".join(report.render())
