"""In-place tensors, writes into inputs that are not in-place, computed scalars and null pointers."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import larkc
from larkc.errors import ReferenceError_, TaskError, UnsupportedError
from larkc.pipeline.api import emit
from larkc.pipeline.compare import functional_reference, task_outputs
from larkc.pipeline.run import run_task
from larkc.provers import CounterexampleKind, ObligationKind, Status, Verdict
from larkc.tasks import ScalarExpr, Task, load_task

PIPELINES = Path(__file__).resolve().parents[2] / "examples" / "pipelines"


@pytest.mark.parametrize("name", ["axpy_inplace", "sgd_step_inplace"])
def test_inplace_examples_agree_with_their_reference(name: str, tmp_path: Path) -> None:
    task = load_task(PIPELINES / name)
    assert task.inplace
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()


_AXPY = """
__global__ void axpy(const float* x, float* y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += alpha * x[i];
}
__global__ void axpy_skips_last(const float* x, float* y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) y[i] += alpha * x[i];
}
__global__ void axpy_into_x(float* x, float* y, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] += alpha * x[i]; x[i] = 0.0f; }
}
"""

_SEEN: list[torch.Tensor] = []


def _mutating(x: torch.Tensor, y: torch.Tensor) -> None:
    _SEEN.append(x.clone())
    y.add_(2.0 * x)


def _axpy_task(tmp_path: Path, kernel: str, **kw: object) -> Task:
    src = tmp_path / "axpy.cu"
    src.write_text(_AXPY)
    args: dict[str, object] = {
        "source": src, "kernel": kernel, "reference": _mutating, "inputs": {"x": "f32[n]", "y": "f32[n]"},
        "outputs": {"y": "f32[n]"}, "bindings": {"alpha": 2.0}, "symbols": ["n"], "instances": [{"n": 70}],
        "grid": ["cdiv(n, 32)"], "block": [32],
    }  # fmt: skip
    args.update(kw)
    return Task(**args)  # type: ignore[arg-type]


def test_an_inplace_tensor_starts_random_and_is_compared_with_the_reference(tmp_path: Path) -> None:
    assert run_task(_axpy_task(tmp_path, "axpy"), seeds=1, write_replay=False).ok
    report = run_task(_axpy_task(tmp_path, "axpy_skips_last"), seeds=1, write_replay=False)
    assert report.kinds() == {"mismatch"}
    assert "y[69]" in report.instances[0].diagnoses[0].message


def test_a_write_into_an_input_is_a_finding_and_the_reference_sees_it_pristine(tmp_path: Path) -> None:
    _SEEN.clear()
    report = run_task(_axpy_task(tmp_path, "axpy_into_x"), seeds=1, write_replay=False)
    inst = report.instances[0]
    assert report.kinds() == {"input-write"} and not report.ok
    (w,) = inst.input_writes
    assert w.tensor == "x" and w.index == (0,) and w.count == 70 and w.who == "block (0,0,0) thread (0,0,0)"
    assert w.span is not None and w.span.line == 12  # x[i] = 0.0f
    text = w.render()
    assert text.startswith(f"input-write: {w.span.location()}: the kernel writes input x")
    assert "list x among the outputs too" in text and "x[0] written by block (0,0,0) thread (0,0,0)" in text
    assert inst.to_json()["diagnoses"][-1]["kind"] == "input-write"
    # The reference ran on the inputs as drawn, not on the zeros the kernel left in x.
    assert _SEEN and all(bool((seen != 0).all()) for seen in _SEEN)
    assert all(o.ok for o in inst.outputs)  # y itself is right: only the input-write finds the bug


def test_the_seeded_input_write_example_is_found(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "vector_add_bug_writes_input")
    report = run_task(task, instances=[{"n": 1000}], seeds=1, replay_dir=tmp_path)
    assert task.expected_failure in report.kinds() and report.kinds() == {"input-write"}
    assert "x[0] written by block (0,0,0) thread (0,0,0) (999 more element(s) of it written)" in report.render()


def test_a_reference_free_task_may_write_its_buffers(tmp_path: Path) -> None:
    task = _axpy_task(tmp_path, "axpy_into_x", reference=None, outputs={})
    assert run_task(task, seeds=1, write_replay=False).ok


def test_reference_outputs_of_inplace_tasks(tmp_path: Path) -> None:
    task = _axpy_task(tmp_path, "axpy", outputs={"y": "f32[n]", "z": "f32[n]"})
    x, y, z = torch.ones(3), torch.zeros(3), torch.full((3,), 5.0)
    assert task_outputs(task, [x, y], z) == [y, z]  # y left in the argument, z returned
    assert task_outputs(task, [x, y], (x, z)) == [x, z]  # both returned
    with pytest.raises(
        ReferenceError_, match=r"returned 0 value\(s\), the task declares 2 output\(s\) \(or 1, leaving"
    ):
        task_outputs(task, [x, y], None)


def test_a_mutating_reference_is_traced_as_a_function_returning_its_outputs(tmp_path: Path) -> None:
    task = _axpy_task(tmp_path, "axpy")
    functional = functional_reference(task).reference
    assert callable(functional) and functional is not _mutating
    x, y = torch.ones(4), torch.zeros(4)
    out = functional(x, y)
    assert out.tolist() == [2.0] * 4 and y.tolist() == [0.0] * 4  # the argument is left alone
    assert functional_reference(_axpy_task(tmp_path, "axpy", outputs={"z": "f32[n]"})).reference is _mutating


def test_verify_proves_an_inplace_update() -> None:
    report = larkc.verify(load_task(PIPELINES / "axpy_inplace").with_instances([{"n": 300}]))
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    assert eq.obligation.subject == "y" and eq.status is Status.PROVED, report.render()


# --------------------------------------------------------------------------------------------------
# Computed scalars


def test_a_computed_scalar_is_passed_at_each_instance(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "scale_by_rsqrt_d")
    report = run_task(task, seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()
    wrong = Task(
        source=task.source, kernel=task.kernel, reference=task.reference, inputs=task.inputs, outputs=task.outputs,
        bindings={**task.bindings, "scale": ScalarExpr("1 / d")}, symbols=task.symbols,
        instances=[{"rows": 2, "d": 32}], grid=task.grid, block=task.block,
    )  # fmt: skip
    assert run_task(wrong, seeds=1, write_replay=False).kinds() == {"mismatch"}


def test_verify_decides_equivalence_only_where_the_scalar_is_rational() -> None:
    task = load_task(PIPELINES / "scale_by_rsqrt_d")
    exact = larkc.verify(task.with_instances([{"rows": 3, "d": 16}]))
    assert exact.verdict is Verdict.VERIFIED, exact.render()
    irrational = larkc.verify(task.with_instances([{"rows": 2, "d": 32}]))
    eq = irrational.results[0]
    assert eq.obligation.kind is ObligationKind.EQUIVALENCE and eq.status is Status.UNKNOWN
    assert "scale = 1 / sqrt(d) = 0.1767766952966368" in eq.detail and "irrational" in eq.detail
    assert all(r.status is Status.PROVED for r in irrational.results[1:]), irrational.render()


# --------------------------------------------------------------------------------------------------
# Null pointers


def test_a_checked_null_pointer_takes_the_other_branch(tmp_path: Path) -> None:
    report = run_task(load_task(PIPELINES / "bias_add_optional"), seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()


def test_a_dereferenced_null_pointer_is_out_of_bounds(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "bias_add_bug_null_deref")
    report = run_task(task, instances=[{"rows": 3, "d": 100}], seeds=1, replay_dir=tmp_path)
    assert task.expected_failure in report.kinds()
    oob = next(d for d in report.instances[0].diagnoses if d.kind.value == "oob")
    assert "points into no buffer (null or invalid)" in oob.message and oob.span is not None and oob.span.line == 9


def test_verify_with_a_null_pointer() -> None:
    ok = larkc.verify(load_task(PIPELINES / "bias_add_optional").with_instances([{"rows": 3, "d": 100}]))
    assert ok.verdict is Verdict.VERIFIED, ok.render()
    bug = larkc.verify(load_task(PIPELINES / "bias_add_bug_null_deref").with_instances([{"rows": 3, "d": 100}]))
    assert bug.verdict is Verdict.FAILED and "oob" in bug.kinds(), bug.render()


def test_null_binds_only_pointers(tmp_path: Path) -> None:
    task = _axpy_task(tmp_path, "axpy", bindings={"alpha": None})
    with pytest.raises(TaskError, match="kernel parameter alpha of type f32 is bound to None"):
        run_task(task, seeds=1, write_replay=False)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bias_add_optional", "unsupported null pointer binding in larkc emit: bias = None"),
        ("scale_by_rsqrt_d", r"unsupported computed scalar binding in larkc emit: scale = 1 / sqrt\(d\)"),
    ],
)
def test_emit_refuses_what_the_lowering_does_not_model(name: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError, match=message):
        emit(PIPELINES / name, tmp_path / "out")


def test_verify_refutes_a_kernel_writing_its_input(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "vector_add_bug_writes_input").with_instances([{"n": 300}])
    report = larkc.verify(task, replay_dir=tmp_path)
    eq, inputs = report.results[:2]
    # out = x + y is right on the inputs as they were: the write into x is the obligation of its own
    assert eq.obligation.kind is ObligationKind.EQUIVALENCE and eq.status is Status.PROVED, report.render()
    assert inputs.obligation.kind is ObligationKind.INPUTS and inputs.status is Status.REFUTED
    cx = inputs.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED and cx.replay is not None
    assert cx.tensor == "x" and cx.element == (0,) and cx.kernel_value != cx.reference_value
    assert cx.message.startswith("the kernel changes input x[0], which the task does not declare in-place")
    assert cx.span is not None and cx.span.line == 9 and "the store at" in cx.message  # x[i] = x[i] + y[i]
    assert report.verdict is Verdict.FAILED and report.kinds() == {"input-write"} == {task.expected_failure}
    assert report.to_json()["obligations"][1]["counterexample"]["tensor"] == "x"


def test_verify_proves_inputs_unchanged_and_keeps_inplace_tensors_out_of_it() -> None:
    report = larkc.verify(load_task(PIPELINES / "axpy_inplace").with_instances([{"n": 300}]))
    inputs = next(r for r in report.results if r.obligation.kind is ObligationKind.INPUTS)
    # y is in-place: the kernel may write it, only x is checked
    assert inputs.status is Status.PROVED and inputs.detail == "every element of x ends as it started (never changed)"


def test_a_computed_scalar_binds_only_float_parameters(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "scale_by_rsqrt_d")
    bad = Task(
        source=task.source, kernel=task.kernel, reference=task.reference, inputs=task.inputs, outputs=task.outputs,
        bindings={**task.bindings, "n": ScalarExpr("rows * d")}, symbols=task.symbols, instances=task.instances,
        grid=task.grid, block=task.block,
    )  # fmt: skip
    message = "kernel parameter n of type i32 is bound to the scalar expression 'rows \\* d'"
    with pytest.raises(TaskError, match=message):
        run_task(bad, seeds=1, write_replay=False)
    with pytest.raises(TaskError, match=message):
        larkc.verify(bad)
