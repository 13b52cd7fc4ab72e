"""Sizes and integer lists ``ModelNew.forward`` passes to an extension (``x.size(1)``, ``batch_size`` of
``batch_size, in_features = x.shape``, ``self.linear.weight.size(0)``, ``[self.block, 1]`` for an
``IntArrayRef``): shape expressions over the task's symbols, so they follow every instance."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.tasks import ShapeArg

HERE = Path(__file__).resolve().parent / "forward_sizes"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_sizes_from_forward_are_shape_expressions() -> None:
    task = larkc.candidate_task(HERE / "model_new.py", HERE / "model.py")
    assert task.bindings["batch"] == ShapeArg("batch_size")
    assert task.bindings["in_features"] == ShapeArg("in_features")
    assert task.bindings["out_features"] == ShapeArg("out_features")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_sizes_unpacked_from_a_tuple(tmp_path: Path) -> None:
    """``rows, cols = batch_size, x.size(1)`` (a tuple of sizes unpacked) passes each size."""
    text = (HERE / "model_new.py").read_text()
    old = "        out_features = self.linear.weight.size(0)\n"
    assert old in text
    text = text.replace(old, old + "        rows, cols = batch_size, x.size(1)\n")
    text = text.replace("batch_size, x.size(1), out_features\n", "rows, cols, out_features\n")
    path = tmp_path / "model_new.py"
    path.write_text(text)
    task = larkc.candidate_task(path, HERE / "model.py")
    assert task.bindings["batch"] == ShapeArg("batch_size")
    assert task.bindings["in_features"] == ShapeArg("in_features")


def test_a_wrong_size_passed_fails() -> None:
    task = larkc.candidate_task(HERE / "wrong_size_passed.py", HERE / "model.py")
    assert task.bindings["in_features"] == ShapeArg("out_features")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1, "\n".join(report.render())


def test_a_list_of_integers_for_an_int_array(tmp_path: Path) -> None:
    """``[self.block, 1]`` passed as a ``torch::IntArrayRef``: the host function reads its items."""
    text = (HERE / "model_new.py").read_text()
    for old, new in {
        "int batch, int in_features, int out_features) {": (
            "int batch, int in_features, int out_features, torch::IntArrayRef block_dims) {"
        ),
        "dim3 block(128);": (
            "const int bx = block_dims[0];\n    const int by = block_dims[1];\n    dim3 block(bx, by);"
        ),
        "int batch, int in_features, int out_features);": (
            "int batch, int in_features, int out_features, torch::IntArrayRef block_dims);"
        ),
        "self.linear_relu = linear_relu": "self.linear_relu = linear_relu\n        self.block = 64",
        "x.size(1), out_features\n": "x.size(1), out_features, [self.block, 1]\n",
    }.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "model_new.py"
    path.write_text(text)
    task = larkc.candidate_task(path, HERE / "model.py")
    assert [str(d) for d in task.launches[0].launch.block] == ["64", "1"]
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_a_size_stored_in_init_follows_the_instances(tmp_path: Path) -> None:
    """``self.out_features = out_features`` (a size ``get_init_inputs()`` names) passed on is that size:
    at a scaled-down instance the kernel gets the instance's, as ``ModelNew`` built at that size would."""
    text = (HERE / "model_new.py").read_text()
    for old, new in {
        "self.linear_relu = linear_relu": "self.linear_relu = linear_relu\n        self.out_features = out_features",
        "x.size(1), out_features\n": "x.size(1), self.out_features\n",
    }.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "model_new.py"
    path.write_text(text)
    task = larkc.candidate_task(path, HERE / "model.py")
    assert task.bindings["out_features"] == ShapeArg("out_features")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())


def test_instances_scale_less_where_the_constraints_need_larger_sizes() -> None:
    """A 9x9 window (``width - 8 >= 1``, from the reference's convolution) on a 64-wide image: the
    scaled-down instance keeps a width the reference runs at (it was 8: no instance, or a kernel checked
    at sizes where its output has no columns)."""
    from larkc.frontends.kernelbench.derive import _instances
    from larkc.tasks.shape_expr import parse_shape_expr

    given = {"batch_size": 64, "width": 64}
    shapes = [tuple(parse_shape_expr(d) for d in ("batch_size", "width", "width"))]
    needs = [parse_shape_expr("width - 8 >= 1")]
    plain = _instances(dict(given), shapes, [])
    assert plain[0]["width"] < 9
    instances = _instances(dict(given), shapes, needs)
    assert instances and all(i["width"] >= 9 for i in instances)
    assert instances[0]["width"] < 64
