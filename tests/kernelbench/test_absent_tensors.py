"""``None`` passed from ``ModelNew.forward`` for an optional tensor (``self.linear.bias`` of a layer built
with ``bias=False``): the host function's ``c10::optional<torch::Tensor>`` has no value, the pointer it
passes is null (``NullArg``), and a kernel dereferencing it fails (``docs/kernelbench.md``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError
from larkc.tasks import NullArg, ScalarArg, load_task

HERE = Path(__file__).resolve().parent / "optional_bias"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_absent_bias_is_a_null_pointer_and_verified() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    assert task.bindings["b"] == NullArg() and task.bindings["has_bias"] == ScalarArg(False)
    assert list(task.inputs) == ["x", "linear_weight"]
    assert task.task_file is not None and load_task(task.task_file).bindings["b"] == NullArg()
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_reading_the_absent_bias_fails() -> None:
    task = larkc.candidate_task(HERE / "wrong_bias_read.py", HERE / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and "oob" in report.kinds(), "\n".join(report.render())


def test_none_for_a_tensor_parameter_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """pybind11 refuses None for a ``torch::Tensor`` parameter: the call raises, so it is bad input."""
    text = (HERE / "model_new.py").read_text().replace("c10::optional<torch::Tensor> bias", "torch::Tensor bias")
    text = text.replace("bias.has_value()", "bias.defined()").replace("bias.value()", "bias")
    path = tmp_path / "model_new.py"
    path.write_text(text)
    with pytest.raises(LarkcError, match=r"None passed as parameter bias of type torch::Tensor"):
        larkc.candidate_task(path, HERE / "model.py")
    assert main(["verify", str(path), "--reference", str(HERE / "model.py")]) == 2
    assert "error: None passed as parameter bias" in capsys.readouterr().err
