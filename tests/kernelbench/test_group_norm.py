"""A group norm's channels stay a multiple of its groups at every instance (PyTorch refuses others), and
the reference stage's tracer knows it: ``x.view(batch, self.num_groups, -1)`` in a PyTorch step and
``nn.GroupNorm``'s own reshape of ``C`` into ``G x C // G`` are exact (no remainder). Before, the scaled
instances broke the divisibility (``RuntimeError: Expected number of channels in input to be divisible
by num_groups``) and the tracer refused the reshape (``cannot reshape [batch_size, out_features] to
[batch_size, 12, out_features // 12]: sizes differ``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.frontends.kernelbench.derive import _instances
from larkc.tasks.shape_expr import ShapeSym

HERE = Path(__file__).resolve().parent / "group_norm"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_instances_keep_the_channels_a_multiple_of_the_groups() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    assert "((out_features % 12) == 0)" in [str(c) for c in task.constraints]
    assert task.instances
    assert all(i["out_features"] % 12 == 0 for i in task.instances)


def test_a_group_normalisation_over_a_view_is_verified() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_an_unbiased_variance_fails() -> None:
    task = larkc.candidate_task(HERE / "unbiased_variance.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1, "\n".join(report.render())


def test_instances_keep_two_channels_per_group() -> None:
    """Where the problem has two channels per group or more, so do the instances: torch specialises a
    size of 1 when it traces (``C // G`` at ``C = G``), and the reference's trace then held at that
    instance only (a real candidate: ``the reference fixes the symbolic size out_channels (dim 0 of
    input 'conv_weight') at its example value 8``)."""
    given = {"batch_size": 128, "out_channels": 32, "height": 256, "width": 256}
    shape = tuple(ShapeSym(s) for s in given)
    instances = _instances(given, [shape], [], {"out_channels": 8})
    assert instances
    assert all(i["out_channels"] % 8 == 0 and i["out_channels"] >= 16 for i in instances), instances
