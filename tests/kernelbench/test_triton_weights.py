"""Triton candidates whose kernel reads ``ModelNew``'s parameters, whose launcher asserts CUDA tensors,
and which compute with PyTorch in forward (``tests/kernelbench/triton_weights/``, written for these tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import larkc
from larkc.cli import main
from larkc.errors import LarkcError
from larkc.frontends.kernelbench.derive import _scaled
from larkc.frontends.kernelbench.params import Size
from larkc.tasks import BufferArg

HERE = Path(__file__).resolve().parent / "triton_weights"

pytestmark = pytest.mark.triton
_AVAILABLE = torch.cuda.is_available


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def _nothing_leaked() -> None:
    assert torch.randn(2).is_cuda is False
    assert torch.randn(2).device.type == "cpu"
    assert torch._C._len_torch_function_stack() == 0
    assert torch.cuda.is_available is _AVAILABLE


def test_weights_are_the_reference_parameters() -> None:
    """ModelNew is built at each instance's sizes (not get_init_inputs()' full ones), its nn.Linear's
    weight and bias are the task's inputs standing for Model's, and the launcher's CUDA asserts pass."""
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    _nothing_leaked()
    assert dict(task.params) == {"fc_weight": "fc.weight", "fc_bias": "fc.bias"}
    assert list(task.inputs) == ["x", "fc_weight", "fc_bias"]
    assert [str(d) for d in task.inputs["fc_weight"].shape] == ["out_features", "in_features"]
    assert task.bindings["w_ptr"] == BufferArg("fc_weight")
    assert task.bindings["b_ptr"] == BufferArg("fc_bias")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_bias_ignored_is_refuted(capsys: pytest.CaptureFixture[str]) -> None:
    task = larkc.candidate_task(HERE / "wrong_no_bias.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and "mismatch" in report.kinds(), "\n".join(report.render())


def test_pytorch_computing_in_forward_is_refused_at_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    """x = self.fc(x) before the launch: the kernel would read a tensor the task cannot describe."""
    with pytest.raises(LarkcError, match=r"computes linear with PyTorch besides its Triton launch") as e:
        larkc.candidate_task(HERE / "torch_in_forward.py", HERE / "model.py")
    assert e.value.span is not None and e.value.span.line == 28
    _nothing_leaked()
    code = main(["verify", str(HERE / "torch_in_forward.py"), "--reference", str(HERE / "model.py")])
    assert code == 2
    assert "torch_in_forward.py:28:" in capsys.readouterr().err


def test_init_inputs_follow_the_instance() -> None:
    sizes: list[object] = [Size(512, "in_features"), [Size(1024, "out_features")], Size(3, None), 0.5]
    values: list[object] = [512, (1024,), 3, 0.5]
    assert _scaled(values, sizes, {"in_features": 16, "out_features": 32}) == [16, (32,), 3, 0.5]
