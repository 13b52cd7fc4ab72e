"""Tasks of several kernel launches: larkc run runs them in order on shared buffers, verify proves them
(safety per launch for all sizes, everything on the instances by running the launches symbolically in
order), emit says it cannot yet."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import larkc
from larkc.errors import LarkcError, UnsupportedError
from larkc.pipeline.api import emit
from larkc.pipeline.replay import load_replay
from larkc.pipeline.run import LaunchModules, run_instance, run_task
from larkc.provers import Status, Verdict
from larkc.tasks import KernelLaunch, Task, load_task

PIPELINES = Path(__file__).resolve().parents[2] / "examples" / "pipelines"


def test_the_two_pass_sum_runs_its_launches_in_order(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "two_pass_sum")
    report = run_task(task, instances=[{"n": 1}, {"n": 4099}], seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()
    large = report.instances[1]
    assert [str(x) for x in large.launches] == ["grid 17x1x1, block 256x1x1", "grid 1x1x1, block 256x1x1"]
    assert "grid 17x1x1, block 256x1x1 then grid 1x1x1, block 256x1x1" in report.render()
    assert large.outputs[0].ok and large.to_json()["launches"][1]["grid"] == [1, 1, 1]


def test_the_seeded_bug_of_the_second_launch_is_named(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "two_pass_sum_bug_one_partial_short")
    report = run_task(task, instances=[{"n": 300}], seeds=1, replay_dir=tmp_path)
    assert report.kinds() == {"mismatch"} and task.expected_failure == "mismatch"
    (d,) = report.instances[0].diagnoses
    assert "in launch 2 (kernel sum_partials) at" in d.message
    assert d.span is not None and d.span.line == 38  # out[0] = total, in sum_partials
    # The replay file records both launches and runs the same failure again.
    replay = load_replay(report.instances[0].replay)  # type: ignore[arg-type]
    record = json.loads(Path(report.instances[0].replay).read_text())  # type: ignore[arg-type]
    assert len(record["launches"]) == 2 and record["kernel"] == "block_partial_sums + sum_partials"
    again = run_task(replay.task, instances=[replay.instance], seed=replay.seed, seeds=1, write_replay=False)
    assert again.kinds() == {"mismatch"}


def test_the_compute_then_normalise_pipeline_agrees(tmp_path: Path) -> None:
    task = load_task(PIPELINES / "rms_norm_two_kernels")
    report = run_task(task, instances=[{"rows": 3, "d": 100}], seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()


_KERNELS = """
__global__ void fill(float* buf, int n, int upto) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < upto) buf[i] = 2.0f * i;
}
__global__ void copy(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i];
}
__global__ void bad_index(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i + 1];
}
"""


def _fill_then(second: str, tmp_path: Path, *, upto: str = "n", first: str = "fill") -> Task:
    src = tmp_path / "k.cu"
    src.write_text(_KERNELS)
    launches = [KernelLaunch(kernel=second, grid=["cdiv(n, 64)"], block=[64])]
    if first:
        launches.insert(0, KernelLaunch(kernel=first, grid=["cdiv(n, 64)"], block=[64], bindings={"upto": upto}))
    return Task(
        source=src, launches=tuple(launches), outputs={"out": "f32[n]"}, scratch={"buf": "f32[n]"},
        symbols=["n"], instances=[{"n": 100}],
    )  # fmt: skip


def test_a_buffer_a_launch_wrote_is_initialised_for_the_next(tmp_path: Path) -> None:
    report = run_task(_fill_then("copy", tmp_path), seeds=1, write_replay=False)
    assert report.ok, report.render()


def test_a_buffer_no_launch_wrote_is_still_empty(tmp_path: Path) -> None:
    # Two launches of copy: the scratch buffer is never written, so the reads of the first launch (and
    # of the second, which the first did not initialise either) are uninit, named by their launch.
    task = _fill_then("copy", tmp_path, first="")
    task = Task(
        source=task.source, launches=(task.launches[0], task.launches[0]), outputs=task.outputs,
        scratch=task.scratch, symbols=task.symbols, instances=task.instances,
    )  # fmt: skip
    report = run_task(task, seeds=1, write_replay=False)
    messages = [d.render() for d in report.instances[0].diagnoses]
    assert any(m.startswith("uninit: ") and "launch 1 (kernel copy): " in m for m in messages), messages
    assert any(m.startswith("uninit: ") and "launch 2 (kernel copy): " in m for m in messages), messages


def test_a_diagnosis_of_a_later_launch_names_it(tmp_path: Path) -> None:
    report = run_task(_fill_then("bad_index", tmp_path), seeds=1, write_replay=False)
    oob = [d for d in report.instances[0].diagnoses if d.kind.value == "oob"]
    assert oob and oob[0].message.startswith("launch 2 (kernel bad_index): "), report.render()


def test_a_partly_written_buffer_keeps_its_unwritten_elements_uninitialised(tmp_path: Path) -> None:
    # fill writes only buf[0 .. 49]; copy reads all of it: the reads of the unwritten half are uninit in
    # launch 2 (the written mask travels between launches), and the written half is copied.
    task = _fill_then("copy", tmp_path, upto="50")
    report, last = run_instance(task, LaunchModules(task).modules(None), {"n": 100}, 0)
    uninit = [d for d in report.diagnoses if d.kind.value == "uninit"]
    assert len(uninit) == 1 and uninit[0].buffer == "buf" and uninit[0].index == 50, report.diagnoses
    assert uninit[0].message.startswith("launch 2 (kernel copy): ") and uninit[0].count == 50
    out = last.buffers["out"]
    assert out[:50].tolist() == [2.0 * i for i in range(50)]


def test_a_buffer_written_in_two_launches_is_initialised_where_either_wrote(tmp_path: Path) -> None:
    # fill writes buf[0 .. 49], then fill again up to n: every element is written before copy reads it.
    task = _fill_then("copy", tmp_path, upto="50")
    again = KernelLaunch(kernel="fill", grid=["cdiv(n, 64)"], block=[64], bindings={"upto": "n"})
    task = dataclasses.replace(task, launches=(task.launches[0], again, task.launches[1]))
    report = run_task(task, seeds=1, write_replay=False)
    assert report.ok, report.render()


def test_verify_of_several_launches_proves_safety_per_launch_and_equivalence_on_the_instances() -> None:
    report = larkc.verify(PIPELINES / "two_pass_sum")
    assert report.verdict is Verdict.VERIFIED and report.exit_code == 0, report.render()
    scope = {r.obligation.name: r.scope.kind.value for r in report.results}
    assert scope == {
        "equivalence(out)": "bounded", "inputs": "bounded", "bounds": "parametric", "race": "parametric",
        "barrier": "parametric", "init": "bounded", "defined": "bounded", "assert": "bounded",
        "overflow": "parametric", "launch": "parametric",
    }  # fmt: skip
    bounds = next(r for r in report.results if r.obligation.name == "bounds")
    assert bounds.detail.startswith("launch 1 (kernel block_partial_sums): z3: ")
    assert "; launch 2 (kernel sum_partials): z3: " in bounds.detail
    eq = report.results[0]
    launches = eq.scope.launches[-1]
    assert "launch 1 (kernel block_partial_sums): grid 274x1x1" in launches, launches
    assert "launch 2 (kernel sum_partials): grid 1x1x1" in launches, launches


def test_verify_refutes_the_seeded_bug_of_the_second_launch_and_confirms_it(tmp_path: Path) -> None:
    report = larkc.verify(PIPELINES / "two_pass_sum_bug_one_partial_short", replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, report.render()
    eq = report.results[0]
    assert eq.obligation.name == "equivalence(out)" and eq.status is Status.REFUTED
    assert eq.counterexample is not None and eq.counterexample.replay is not None
    assert eq.counterexample.kind.value == "confirmed"


def test_verify_finds_a_read_of_what_no_earlier_launch_wrote(tmp_path: Path) -> None:
    # fill writes buf[0 .. 49], copy reads all of it: the reads of buf[50 ..] are uninitialised.
    report = larkc.verify(_fill_then("copy", tmp_path, upto="50"), replay_dir=tmp_path / "replay")
    init = next(r for r in report.results if r.obligation.name == "init")
    assert init.status is Status.REFUTED, report.render()
    assert "launch 2 (kernel copy)" in init.detail + (init.counterexample.message if init.counterexample else "")


_SCALE_THEN_COPY = """
__global__ void scale(const float* x, float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = 2.0f * x[i];
}
__global__ void add_one(float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = buf[i] + 1.0f;
}
__global__ void copy(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i];
}
"""


def _scale_add_copy(x: object) -> object:
    return 2 * x + 1  # type: ignore[operator]


@pytest.mark.parametrize(
    ("kernels", "verdict"), [(("scale", "add_one", "copy"), Verdict.VERIFIED), (("scale", "copy"), Verdict.FAILED)]
)
def test_verify_starts_each_launch_from_what_the_earlier_ones_left(
    tmp_path: Path, kernels: tuple[str, ...], verdict: Verdict
) -> None:
    # out = 2 x + 1 holds only through the three launches in order, each starting from the terms the
    # earlier ones left in buf; without add_one the sequence computes 2 x, which is refuted.
    src = tmp_path / "k.cu"
    src.write_text(_SCALE_THEN_COPY)
    launches = tuple(KernelLaunch(kernel=k, grid=["cdiv(n, 64)"], block=[64]) for k in kernels)
    task = Task(
        source=src, launches=launches, inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"},
        scratch={"buf": "f32[n]"}, symbols=["n"], constraints=["n <= 4096"], instances=[{"n": 100}],
        reference=_scale_add_copy,
    )  # fmt: skip
    report = larkc.verify(task, replay_dir=tmp_path / "replay")
    assert report.verdict is verdict, report.render()
    eq = report.results[0]
    assert eq.obligation.name == "equivalence(out)"
    assert eq.status is (Status.PROVED if verdict is Verdict.VERIFIED else Status.REFUTED)


def test_verify_of_several_launches_refutes_a_later_launch(tmp_path: Path) -> None:
    task = _fill_then("bad_index", tmp_path)
    task = Task(
        source=task.source, launches=task.launches, outputs=task.outputs, scratch=task.scratch,
        symbols=task.symbols, constraints=["n <= 4096"], instances=task.instances,
    )  # fmt: skip
    report = larkc.verify(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED and report.kinds() == {"oob"}, report.render()
    bounds = next(r for r in report.results if r.obligation.name == "bounds")
    assert bounds.counterexample is not None and bounds.counterexample.replay is not None
    assert "read `buf[i + 1]`" in bounds.counterexample.message


def test_verify_of_several_launches_still_parses_every_kernel(tmp_path: Path) -> None:
    task = _fill_then("no_such_kernel", tmp_path)
    with pytest.raises(LarkcError, match="no_such_kernel"):
        larkc.verify(task)


def test_emit_of_several_launches_is_unsupported(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError) as info:
        emit(PIPELINES / "two_pass_sum", tmp_path / "out")
    text = info.value.render()
    assert "unsupported task of several launches in larkc emit: block_partial_sums, sum_partials" in text
    assert info.value.span is not None and info.value.span.line == 15  # launches=( in the task file
    assert not (tmp_path / "out").exists()


def test_parse_of_several_launches_holds_every_kernel_once() -> None:
    module = larkc.parse(PIPELINES / "two_pass_sum")
    assert [f.name for f in module.functions] == ["block_sum", "block_partial_sums", "sum_partials"]
    with pytest.raises(LarkcError, match="has 2 launches: change them with launches="):
        larkc.parse(PIPELINES / "two_pass_sum", template_args=["float"])


def test_the_frontends_parse_a_task_of_several_launches_per_launch() -> None:
    from larkc.frontends import parse_task

    task = load_task(PIPELINES / "two_pass_sum" / "task.py")
    module = parse_task(task)  # not "invalid kernel name ''": each launch's kernel, once
    assert [f.name for f in module.functions] == ["block_sum", "block_partial_sums", "sum_partials"]
    with pytest.raises(LarkcError, match="an autotune configuration is one launch's"):
        parse_task(task, None, {"BLOCK": 64})


def test_a_triton_kernel_launched_twice_with_other_constexprs() -> None:
    # x + y, then (x + y) + y with another BLOCK: one kernel, two specialisations, one buffer between them.
    source = Path(__file__).resolve().parents[2] / "examples" / "triton" / "vector_add" / "kernel.py"
    # (The second launch covers all of out only if it is lowered with its own BLOCK, not the first's.)
    first = {"x_ptr": "x", "y_ptr": "y", "out_ptr": "mid", "n_elements": "n", "BLOCK": 64}
    second = {"x_ptr": "mid", "y_ptr": "y", "out_ptr": "out", "n_elements": "n", "BLOCK": 256}
    task = Task(
        source=source,
        launches=(
            KernelLaunch(kernel="add_kernel", grid=["cdiv(n, 64)"], block=[1], bindings=first),
            KernelLaunch(kernel="add_kernel", grid=["cdiv(n, 256)"], block=[1], bindings=second),
        ),
        reference=lambda x, y: x + 2 * y,
        inputs={"x": "f32[n]", "y": "f32[n]"}, outputs={"out": "f32[n]"}, scratch={"mid": "f32[n]"},
        symbols=["n"], instances=[{"n": 1}, {"n": 300}],
    )  # fmt: skip
    report = run_task(task, seeds=1, write_replay=False)
    assert report.ok, report.render()
    wrong = dataclasses.replace(task, reference=lambda x, y: x + y)
    assert run_task(wrong, seeds=1, write_replay=False).kinds() == {"mismatch"}


def test_memory_takes_a_buffer_initialised_in_part(tmp_path: Path) -> None:
    # What a launch after one that wrote buf[0:50] should see (Memory.add_global with a mask): reads of
    # buf[50:] are uninit (larkc run passes the written mask so: see the test above).
    import torch

    from larkc.frontends import parse_task
    from larkc.ir.types import F32
    from larkc.semantics import GlobalBuffer, LaunchConfig, simulate

    task = _fill_then("copy", tmp_path, first="")
    module = parse_task(task.launch_task(0))
    data = torch.arange(100, dtype=torch.float32)
    mask = torch.arange(100) < 50
    args = {
        "buf": GlobalBuffer("buf", data, F32, mask),
        "out": GlobalBuffer("out", torch.zeros(100), F32, False),
        "n": 100,
    }
    result = simulate(module, "copy", LaunchConfig((2, 1, 1), (64, 1, 1), 0), args)
    (uninit,) = result.diagnoses
    assert uninit.kind.value == "uninit" and uninit.buffer == "buf" and uninit.index == 50 and uninit.count == 50
    assert result.buffers["out"][:50].tolist() == data[:50].tolist()
    assert result.written["buf"].tolist() == mask.tolist()  # nothing wrote buf: what was initialised stays so


def test_replay_files_of_several_launches_check_every_launch(tmp_path: Path) -> None:
    task = _fill_then("bad_index", tmp_path)
    report = run_task(task, seeds=1, replay_dir=tmp_path / "replay")
    path = report.instances[0].replay
    assert path is not None
    with pytest.raises(LarkcError, match="records a task without a task file"):
        load_replay(path)  # a task of several launches built in Python has no command line to rebuild it
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "k.cu").write_text(_KERNELS)
    text = """from larkc.tasks import KernelLaunch, Task
task = Task(
    source="k.cu",
    launches=(
        KernelLaunch(kernel="fill", grid=["cdiv(n, 64)"], block=[64], bindings={"upto": "n"}),
        KernelLaunch(kernel="bad_index", grid=["cdiv(n, BLOCK)"], block=[64]),
    ),
    outputs={"out": "f32[n]"}, scratch={"buf": "f32[n]"}, symbols=["n"], instances=[{"n": 100}],
)
"""
    (folder / "task.py").write_text(text.replace("BLOCK", "64"))
    report = run_task(load_task(folder), seeds=1, replay_dir=tmp_path / "replay")
    replay = load_replay(report.instances[0].replay)  # type: ignore[arg-type]
    assert len(replay.task.launches) == 2 and replay.instance == {"n": 100}
    (folder / "task.py").write_text(text.replace("BLOCK", "32"))  # the second launch's grid changes
    with pytest.raises(LarkcError, match=r"the task now launches .* the replay file recorded .*: it has changed"):
        load_replay(report.instances[0].replay)  # type: ignore[arg-type]


_GATHER = """
__global__ void scale(const float* x, float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = 2.0f * x[i];
}
__global__ void gather(const float* buf, const int* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[idx[i]];
}
"""


def test_a_data_dependent_read_of_what_an_earlier_launch_wrote_is_unknown(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(_GATHER)
    launches = tuple(KernelLaunch(kernel=k, grid=["cdiv(n, 64)"], block=[64]) for k in ("scale", "gather"))
    task = Task(
        source=src, launches=launches, inputs={"x": "f32[n]", "idx": "i32[n] in [0, n)"}, outputs={"out": "f32[n]"},
        scratch={"buf": "f32[n]"}, symbols=["n"], constraints=["n <= 4096"], instances=[{"n": 100}],
        reference=_gather_reference,
    )  # fmt: skip
    report = larkc.verify(task)
    eq = report.results[0]
    assert eq.status is Status.UNKNOWN, report.render()
    assert "launch 2 (kernel gather): a data-dependent read of buffer buf, which an earlier launch wrote" in eq.detail


def _gather_reference(x: object, idx: object) -> object:
    return (2 * x)[idx.long()]  # type: ignore[operator, union-attr, index]


def test_an_instance_of_several_launches_past_the_memory_budget_is_not_run(tmp_path: Path) -> None:
    """The symbolic run of a sequence is estimated before it starts, as a single launch's is, against the
    budget ``verify`` is given (``Budget.memory_bytes``, what ``--memory`` sets): past it, the instance's
    obligations are UNKNOWN with the estimate, and nothing is proved from it."""
    from larkc.pipeline.verify import verify_task
    from larkc.provers import Budget

    filled = _fill_then("copy", tmp_path)
    task = Task(
        source=filled.source, launches=filled.launches, outputs=filled.outputs, scratch=filled.scratch,
        symbols=filled.symbols, constraints=["n <= 4096"], instances=filled.instances,
    )  # fmt: skip
    report = verify_task(task, budget=Budget(memory_bytes=256 * 1024), replay_dir=tmp_path)
    assert report.verdict is Verdict.UNKNOWN, "\n".join(report.render())
    eq = [r for r in report.results if r.obligation.name in {"equivalence(out)", "init"}]
    assert eq and all(r.status is Status.UNKNOWN for r in eq), [r.detail for r in eq]
    assert all("symbolic execution of this instance would need about" in r.detail for r in eq), [r.detail for r in eq]
    assert all("over the memory budget of 256 KiB (--memory): not started" in r.detail for r in eq)
    # the same task under the default budget runs (the estimate, not the task, refused it)
    assert verify_task(task, replay_dir=tmp_path).verdict is Verdict.VERIFIED


def test_the_memory_budget_is_part_of_a_cached_result(tmp_path: Path) -> None:
    """A candidate's cached verdict depends on the memory budget it ran under (an instance refused under a
    small one is UNKNOWN): the cache key holds it."""
    from larkc.pipeline.candidates import _cache_key

    model, problem = tmp_path / "model_new.py", tmp_path / "model.py"
    model.write_text("class ModelNew: ...\n")
    problem.write_text("class Model: ...\n")
    assert _cache_key(model, problem, 60.0, False, 1 << 20) != _cache_key(model, problem, 60.0, False, 1 << 32)
