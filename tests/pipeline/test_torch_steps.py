"""Tasks with PyTorch steps (``TorchStep``): part of the computation left to PyTorch, the rest in kernels.

The task files in ``torch_steps/`` are the KernelBench level-2 pattern written by hand: a convolution (or a
linear layer) PyTorch computes, then a fused CUDA or Triton epilogue, against a reference doing it all.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import torch
from torch.nn import functional

from larkc.cli import main
from larkc.errors import LarkcError, TaskError
from larkc.ir.types import F32
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, ObligationKind, Status, Verdict
from larkc.reference import evaluate_symbolic, trace_reference
from larkc.symbolic import terms as tm
from larkc.tasks import KernelLaunch, Task, TorchStep, load_task, step_output_constraints

HERE = Path(__file__).resolve().parent / "torch_steps"


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _conv(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return functional.conv1d(x, w)


def _relu_task(**changes: object) -> Task:
    """conv1d in PyTorch (``t0``), then the CUDA bias + ReLU kernel (``out``)."""
    fields: dict[str, object] = {
        "source": HERE / "fused.cu",
        "launches": (
            TorchStep(function=_conv, inputs=("x", "w"), outputs=("t0",), label="self.conv(x)"),
            KernelLaunch(
                kernel="bias_relu_kernel",
                grid=[1],
                block=[64],
                bindings={"t": "t0", "total": "c * (l - 2)", "channels": "c", "hw": "l - 2"},
            ),
        ),
        "reference": lambda x, w, bias: torch.relu(functional.conv1d(x, w) + bias.view(1, -1, 1)),
        "inputs": {"x": "f32[1, 2, l]", "w": "f32[c, 2, 3]", "bias": "f32[c]"},
        "outputs": {"out": "f32[1, c, l - 2]"},
        "scratch": {"t0": "f32[1, c, l - 2]"},
        "symbols": ["c", "l"],
        "constraints": ["l >= 3", "c <= 8", "l <= 16"],
        "instances": [{"c": 2, "l": 5}],
    }
    fields.update(changes)
    return Task(**fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------
# The task


def test_a_task_holds_its_steps_in_order_and_its_kernel_launches_apart() -> None:
    task = _relu_task()
    assert [type(x).__name__ for x in task.steps] == ["TorchStep", "KernelLaunch"]
    assert [x.kernel for x in task.launches] == ["bias_relu_kernel"]
    assert [x.label for x in task.torch_steps] == ["self.conv(x)"]
    assert task.step_label(0) == "PyTorch step 1 (self.conv(x))"
    view = task.launch_task(0)  # the one-kernel view the kernel stages take
    assert view.kernel == "bias_relu_kernel" and not view.torch_steps
    again = dataclasses.replace(task, instances=({"c": 3, "l": 4},))
    assert again.steps == task.steps and again.instances == ({"c": 3, "l": 4},)
    with pytest.raises(TaskError, match="PyTorch"):
        _ = task.launch  # a task with PyTorch steps is never the single-launch form


def test_sizes_that_empty_a_step_s_output_are_none_of_the_task_s() -> None:
    # conv1d of an input shorter than its kernel is an error in PyTorch: l = 2 is no size of the task, so the
    # kernel's launch over nothing there (a grid of 0 blocks) is no finding of the launch obligation
    task = _relu_task(constraints=["c <= 8", "l <= 16"])
    assert [str(c) for c in task.constraints] == ["(c <= 8)", "(l <= 16)", "((l - 2) >= 1)"]
    assert dataclasses.replace(task, instances=({"c": 1, "l": 3},)).constraints == task.constraints  # once
    with pytest.raises(TaskError, match=r"violates constraint .*\(a PyTorch step's output would be empty"):
        task.shape_env({"c": 1, "l": 2})
    assert [str(c) for c in step_output_constraints(task.steps, task.tensors)] == ["((l - 2) >= 1)"]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (TorchStep(function=_conv, inputs=("x", "nope"), outputs=("t0",)), "reads unknown tensor 'nope'"),
        (TorchStep(function=_conv, inputs=("x", "w"), outputs=("t9",)), "writes unknown tensor 't9'"),
        (TorchStep(function=_conv, inputs=("x", "w"), outputs=("bias",)), "writes input 'bias'"),
    ],
)
def test_a_step_reads_task_tensors_and_fills_scratch_or_outputs(step: TorchStep, message: str) -> None:
    launch = KernelLaunch(kernel="bias_relu_kernel", grid=[1], block=[64], bindings={"t": "t0"})
    with pytest.raises(TaskError, match=message):
        _relu_task(launches=(step, launch))


def test_a_step_is_a_callable_filling_some_tensors() -> None:
    with pytest.raises(TaskError, match="callable"):
        TorchStep(function="functional.conv1d", inputs=("x",), outputs=("t0",))  # type: ignore[arg-type]
    with pytest.raises(TaskError, match="none"):
        TorchStep(function=_conv, inputs=("x",), outputs=())
    with pytest.raises(TaskError, match="twice"):
        TorchStep(function=_conv, inputs=("x",), outputs=("t0", "t0"))


def test_a_task_file_error_in_a_step_points_at_it(tmp_path: Path) -> None:
    text = (HERE / "task_bias_relu.py").read_text()
    text = text.replace('inputs=("x", "conv_weight", "conv_bias")', 'inputs=("x", "w")')
    (tmp_path / "fused.cu").write_text((HERE / "fused.cu").read_text())
    (tmp_path / "task.py").write_text(text)
    with pytest.raises(TaskError) as e:
        load_task(tmp_path / "task.py")
    assert "PyTorch step 1 (self.conv(x)) reads unknown tensor 'w'" in e.value.message
    assert e.value.span is not None and "TorchStep(" in text.splitlines()[e.value.span.line - 1]


def test_the_symbolic_spec_takes_given_input_terms() -> None:
    graph = trace_reference(lambda a: a * 2 + 1, {"a": "f32[2]"})
    given = [tm.add(tm.elem("x", 0), tm.elem("y", 1)), tm.const(3)]
    (out,) = evaluate_symbolic(graph, {}, inputs={"a": given})
    assert out.dtype == F32
    assert out.elems[0] is tm.add(tm.mul(given[0], tm.const(2)), tm.const(1))
    assert out.elems[1] is tm.const(7)
    (fresh,) = evaluate_symbolic(graph, {})  # without them, the input's own leaves
    assert fresh.elems[1] is tm.add(tm.mul(tm.elem("a", 1), tm.const(2)), tm.const(1))


# --------------------------------------------------------------------------------------------------
# larkc run and larkc verify


def test_conv_in_pytorch_then_a_fused_kernel_is_verified(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    task = str(HERE / "task_bias_relu.py")
    code, out, _ = cli(["run", task], capsys)
    assert code == 0, out
    report = tmp_path / "v.json"
    code, out, _ = cli(["verify", task, "--json", str(report)], capsys)
    assert code == 0, out
    assert "[trusted] PyTorch computes self.conv(x): its semantics are the reference stage's" in out
    assert "steps: PyTorch self.conv(x), then kernel bias_relu_kernel" in out
    data = json.loads(report.read_text())
    assert data["verdict"] == "VERIFIED"
    kernel = {"kind": "kernel", "name": "bias_relu_kernel"}
    assert data["steps"] == [{"kind": "pytorch", "name": "self.conv(x)"}, kernel]


def test_a_fused_kernel_missing_the_bias_fails_and_run_reproduces_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "v.json"
    code, out, _ = cli(["verify", str(HERE / "task_bug_no_bias.py"), "--json", str(report)], capsys)
    assert code == 1, out
    data = json.loads(report.read_text())
    (refuted,) = [o for o in data["obligations"] if o["status"] == "refuted"]
    assert refuted["obligation"].startswith("equivalence")
    cx = refuted["counterexample"]
    assert cx["kind"] == "confirmed" and cx["replay"]
    code, out, _ = cli(["run", "--replay", cx["replay"]], capsys)
    assert code == 1 and "mismatch" in out, out


def test_a_wrong_clamp_bound_after_pytorch_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["verify", str(HERE / "task_bug_clamp.py")], capsys)
    assert code == 1, out
    assert "FAILED: equivalence(out)" in out and "the task expects mismatch: found" in out
    code, out, _ = cli(["verify", str(HERE / "task_scale_clamp.py")], capsys)
    assert code == 0, out


def test_a_pytorch_step_after_the_kernel_is_verified(capsys: pytest.CaptureFixture[str]) -> None:
    task = str(HERE / "task_sum_after.py")
    code, out, _ = cli(["run", task], capsys)
    assert code == 0, out
    code, out, _ = cli(["verify", task], capsys)
    assert code == 0, out
    assert "[trusted] PyTorch computes x.sum(dim=1)" in out


def test_a_kernel_after_a_pytorch_step_that_is_wrong_is_located_at_the_step_that_computed_the_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    task = load_task(HERE / "task_sum_after.py")
    wrong = TorchStep(function=lambda y: y.sum(dim=1) * 2, inputs=("t1",), outputs=("out",), label="x.sum(dim=1)")
    bad = dataclasses.replace(task, launches=(*task.steps[:2], wrong))  # type: ignore[call-arg]
    rep = run_task(bad, write_replay=False, seeds=1)
    assert not rep.ok
    (d,) = rep.instances[0].diagnoses
    assert "out was computed by PyTorch step 3 (x.sum(dim=1))" in d.message


@pytest.mark.triton
def test_a_triton_kernel_after_a_pytorch_linear_layer_is_verified(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(["verify", str(HERE / "task_triton_silu.py")], capsys)
    assert code == 0, out
    assert "[trusted] PyTorch computes self.fc(x)" in out


def test_a_task_that_is_all_pytorch_is_not_a_kernel(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    task = str(HERE / "task_all_pytorch.py")
    code, out, _ = cli(["run", task], capsys)
    assert code == 1, out
    assert "FAILED: not a kernel: every step is PyTorch (self.conv(x); torch.relu(x))" in out
    report = tmp_path / "v.json"
    code, out, _ = cli(["verify", task, "--json", str(report)], capsys)
    assert code == 1, out
    assert "FAILED: kernel: not a kernel: every step is PyTorch" in out
    data = json.loads(report.read_text())
    assert data["verdict"] == "FAILED" and [o["obligation"] for o in data["obligations"]] == ["kernel"]
    assert data["steps"] == [{"kind": "pytorch", "name": "self.conv(x)"}, {"kind": "pytorch", "name": "torch.relu(x)"}]


def test_a_step_returning_another_shape_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(["run", str(HERE / "task_bad_shape.py")], capsys)
    assert code == 2
    assert "task_bad_shape.py:12:1: error:" in err
    assert "PyTorch step 1 (self.conv(x)) returned float32[1, 2, 1, 1] for tensor t0, declared f32[1, c, h, w]" in err
    code, _, err = cli(["verify", str(HERE / "task_bad_shape.py")], capsys)
    assert code == 2 and "PyTorch step 1 (self.conv(x))" in err


def test_the_symbolic_engine_checks_a_step_s_shape_at_each_instance() -> None:
    def flipped(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return functional.conv1d(x, w).transpose(1, 2)  # [1, l - 2, c] for [1, c, l - 2]

    step = TorchStep(function=flipped, inputs=("x", "w"), outputs=("t0",), label="self.conv(x)")
    task = _relu_task(launches=(step, *_relu_task().steps[1:]))
    with pytest.raises(LarkcError, match=r"PyTorch step 1 \(self.conv\(x\)\) returns f32\[1, 3, 2\] for tensor t0"):
        verify_task(task, budget=Budget(seconds=20))


def test_an_exception_in_a_step_is_located_bad_input() -> None:
    def broken(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        raise ValueError("no conv today")

    step = TorchStep(function=broken, inputs=("x", "w"), outputs=("t0",), label="self.conv(x)")
    task = _relu_task(launches=(step, *_relu_task().steps[1:]))
    with pytest.raises(TaskError, match=r"PyTorch step 1 .* raised ValueError: no conv today") as e:
        run_task(task, write_replay=False, seeds=1)
    assert e.value.span is not None and e.value.span.file == __file__


def test_a_step_reading_a_buffer_no_step_wrote_is_uninit() -> None:
    early = TorchStep(function=lambda t: t * 1.0, inputs=("t0",), outputs=("t1",), label="t0.clone()")
    task = _relu_task(
        launches=(early, *_relu_task().steps), scratch={"t0": "f32[1, c, l - 2]", "t1": "f32[1, c, l - 2]"}
    )
    rep = run_task(task, write_replay=False, seeds=1)
    assert "uninit" in rep.kinds()
    report = verify_task(task, budget=Budget(seconds=20))
    assert report.verdict is Verdict.FAILED
    init = next(r for r in report.results if r.obligation.kind is ObligationKind.INIT)
    assert init.status is Status.REFUTED
    assert "PyTorch step 1 (t0.clone()) reads t0" in (init.counterexample.message if init.counterexample else "")


def test_emit_refuses_pytorch_steps(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(["emit", str(HERE / "task_bias_relu.py"), "-o", str(tmp_path / "lean")], capsys)
    assert code == 2
    assert "PyTorch steps are not emitted" in err and "task_bias_relu.py:21:9" in err
    assert not (tmp_path / "lean").exists()
