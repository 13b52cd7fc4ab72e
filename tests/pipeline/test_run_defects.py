"""Defects of ``larkc run`` found by using it as a new user would (issue 10, item 5), one test each."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from larkc.cli import main
from larkc.pipeline.compare import compare_output
from larkc.pipeline.inputs import make_inputs
from larkc.pipeline.replay import load_replay
from larkc.pipeline.reports import OutputReport
from larkc.pipeline.run import DEFAULT_SEEDS, InputDistribution, run_task
from larkc.tasks import Task, command_line_task, load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"
VECTOR_ADD = EXAMPLES / "vector_add" / "kernel.cu"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------------
# a. A command-line task needs its launch


@pytest.mark.parametrize(
    ("given", "missing"),
    [([], "--grid and --block"), (["--grid", "4"], "--block"), (["--block", "256"], "--grid")],
)
def test_command_line_task_without_launch_is_refused(
    given: list[str], missing: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--buffer", "x=f32[1024]", "--replay-dir", str(tmp_path)]
    code, out, err = run_cli([*args, *given], capsys)
    assert code == 2 and out == ""
    assert f"needs {missing}" in err and "Traceback" not in err


def test_command_line_task_with_launch_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--grid", "4", "--block", "256"]
    args += ["--buffer", "x=f32[1024]", "--buffer", "y=f32[1024]", "--buffer", "out=f32[1024]", "--scalar", "n=1000"]
    code, out, _ = run_cli([*args, "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert "grid 4x1x1, block 256x1x1" in out.splitlines()[0]


# --------------------------------------------------------------------------------------------------
# b. Options that name what the kernel or the task does not have


def test_kernel_option_must_match_the_task_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli([str(EXAMPLES / "saxpy"), "--kernel", "vector_add", "--replay-dir", str(tmp_path)], capsys)
    assert code == 2
    assert "--kernel vector_add differs from the kernel of task saxpy (saxpy)" in err


@pytest.mark.parametrize("option", [["--grid", "4"], ["--block", "64"], ["--buffer", "x=f32[8]"], ["--scalar", "n=3"]])
def test_launch_options_with_a_task_file_are_refused(
    option: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run_cli([str(EXAMPLES / "saxpy"), *option, "--replay-dir", str(tmp_path)], capsys)
    assert code == 2
    assert f"{option[0]}: only for a kernel source file" in err


@pytest.mark.parametrize(
    ("option", "name"), [("--scalar", "count=5"), ("--buffer", "z=f32[1024]")], ids=["scalar", "buffer"]
)
def test_options_naming_no_parameter_are_refused(
    option: str, name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [str(VECTOR_ADD), "--kernel", "vector_add", "--grid", "4", "--block", "256", "--buffer", "x=f32[1024]"]
    code, out, err = run_cli([*args, option, name, "--replay-dir", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    param = name.split("=", maxsplit=1)[0]
    assert f"{option} {param}: kernel vector_add has no parameter {param} (parameters: x, y, out, n)" in err


# --------------------------------------------------------------------------------------------------
# f. NaN agrees with NaN at the same element


def _compare(got: list[float], ref: list[float]) -> OutputReport:
    task = load_task(EXAMPLES / "relu")
    spec = task.outputs["out"]
    low = torch.tensor(ref, dtype=torch.float32)
    return compare_output(task, "out", spec, torch.tensor(got), low, low.to(torch.float64), None)


def test_nan_in_kernel_and_reference_at_one_element_agrees() -> None:
    nan = math.nan
    assert _compare([1.0, nan, 3.0], [1.0, nan, 3.0]).ok
    assert _compare([nan, nan], [nan, nan]).ok
    assert _compare([math.inf, -math.inf], [math.inf, -math.inf]).ok


def test_nan_on_one_side_only_is_a_mismatch() -> None:
    nan = math.nan
    rep = _compare([1.0, nan, 3.0], [1.0, 2.0, 3.0])
    assert not rep.ok and rep.worst_index == (1,)
    rep = _compare([1.0, 2.0, 3.0], [1.0, nan, 3.0])
    assert not rep.ok and rep.worst_index == (1,)
    assert not _compare([nan, 1.0], [1.0, nan]).ok


# --------------------------------------------------------------------------------------------------
# d. Replay files of different tasks of one name do not overwrite each other

OOB_KERNEL = """
__global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 1.0f;
}
"""


def test_replay_files_of_same_named_tasks_are_distinct(tmp_path: Path) -> None:
    src = tmp_path / "fill.cu"
    src.write_text(OOB_KERNEL)
    replays = tmp_path / "replays"
    paths = []
    for size in (100, 200):
        task = command_line_task(src, "fill", grid=["1"], block=["256"], buffers=[f"out=f32[{size}]"], scalars=["n=1"])
        report = run_task(task, replay_dir=replays)
        assert not report.ok and report.instances[0].replay is not None
        paths.append(report.instances[0].replay)
    assert paths[0] != paths[1]
    assert sorted(p.name for p in replays.iterdir()) == sorted(p.name for p in paths)
    for size, path in zip((100, 200), paths, strict=True):
        assert str(load_replay(path).task.inputs["out"]) == f"f32[{size}]"


# --------------------------------------------------------------------------------------------------
# h. A loop past the step bound is a verdict on the kernel

LOOP_KERNEL = """
__global__ void loop(float* out, int n) {
  int i = 0;
  while (i < n) {
    i = i * 2;  // stays 0
  }
  out[threadIdx.x] = 1.0f;
}

__global__ void count(float* out, int n) {
  int i = 0;
  while (i < n) {
    i = i + 1;
  }
  out[threadIdx.x] = (float)i;
}
"""


def _loop_args(tmp_path: Path, kernel: str, n: int) -> list[str]:
    src = tmp_path / "loop.cu"
    src.write_text(LOOP_KERNEL)
    return [str(src), "--kernel", kernel, "--grid", "1", "--block", "4", "--buffer", "out=f32[4]", "--scalar", f"n={n}"]


def test_loop_past_the_step_bound_is_nontermination(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = _loop_args(tmp_path, "loop", 10)
    code, out, err = run_cli([*args, "--max-steps", "50", "--replay-dir", str(tmp_path)], capsys)
    assert code == 1, err
    line = next(x for x in out.splitlines() if x.startswith("nontermination: "))
    assert "loop.cu:4:3:" in line
    assert "after 50 iterations" in line and "the bound is 50" in line and "--max-steps N" in line


def test_max_steps_raises_the_bound(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = _loop_args(tmp_path, "count", 300)
    code, out, _ = run_cli([*args, "--max-steps", "299", "--replay-dir", str(tmp_path)], capsys)
    assert code == 1 and "nontermination: " in out
    code, out, _ = run_cli([*args, "--max-steps", "301", "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    code, _, err = run_cli([*args, "--max-steps", "0"], capsys)
    assert code == 2 and "--max-steps 0" in err


# --------------------------------------------------------------------------------------------------
# j. `larkc --help` and `larkc parse FILE.cu` do not import torch

_IMPORTS_TORCH = """
import contextlib, io, sys
from larkc.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:  # --help
        code = e.code
print(code, "torch" in sys.modules)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["verify", "--help"],
        ["parse", str(VECTOR_ADD)],
        ["parse", str(VECTOR_ADD), "-D", "X=1"],
    ],
    ids=["help", "run-help", "verify-help", "parse-cu", "parse-cu-define"],
)
def test_help_and_parse_of_a_source_file_do_not_import_torch(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS_TORCH, *argv], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    code, imported = done.stdout.split()
    assert code in ("0", "None") and imported == "False", done.stdout


# --------------------------------------------------------------------------------------------------
# k. Write-write races of one value are warnings unless --strict

SAME_VALUE_KERNELS = """
__global__ void zero_all(float* out, int n) {
  out[0] = 0.0f;
}

__global__ void one_twice(float* out, int n) {
  if (threadIdx.x == 0) out[1] = 1.0f;
  if (threadIdx.x == 1) out[1] = 1.0f;
}

__global__ void own_index(float* out, int n) {
  out[0] = (float)threadIdx.x;
}

__global__ void two_values(float* out, int n) {
  if (threadIdx.x == 0) out[1] = 1.0f;
  if (threadIdx.x == 1) out[1] = 2.0f;
}
"""


def _race_args(tmp_path: Path, kernel: str, grid: str = "1") -> list[str]:
    src = tmp_path / "races.cu"
    src.write_text(SAME_VALUE_KERNELS)
    return [str(src), "--kernel", kernel, "--grid", grid, "--block", "64", "--buffer", "out=f32[4]", "--scalar", "n=4"]


@pytest.mark.parametrize(("kernel", "grid"), [("zero_all", "1"), ("zero_all", "3"), ("one_twice", "1")])
def test_same_value_race_is_a_warning(
    kernel: str, grid: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [*_race_args(tmp_path, kernel, grid), "--replay-dir", str(tmp_path)]
    code, out, _ = run_cli(args, capsys)
    assert code == 0, out
    lines = out.splitlines()
    warning = next(x for x in lines if x.startswith("race (same value): "))
    assert "races.cu:" in warning and "(both write the same value)" in warning
    assert not any(x.startswith("race: ") for x in lines)
    assert any(x.startswith("ok: 1 instance, ") and "warning" in x for x in lines)
    assert any(x.startswith("assumption: write-write races in which every write stores the same value") for x in lines)
    code, out, _ = run_cli([*args, "--strict"], capsys)
    assert code == 1 and "race (same value): " in out and out.splitlines()[-1].startswith("FAILED: ")


@pytest.mark.parametrize("kernel", ["own_index", "two_values"])
def test_race_of_different_values_stays_an_error(
    kernel: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_cli([*_race_args(tmp_path, kernel), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert any(x.startswith("race: ") for x in out.splitlines())
    assert "race (same value)" not in out


# --------------------------------------------------------------------------------------------------
# i. Several seeds and input distributions by default


def test_zero_init_max_is_caught_by_default(tmp_path: Path) -> None:
    task = load_task(EXAMPLES / "row_max_bug_zero_init")
    report = run_task(task, replay_dir=tmp_path)
    assert not report.ok and "mismatch" in report.kinds()
    failing = [i for i in report.instances if not i.ok]
    assert failing[0].distribution == "negative" and failing[0].replay is not None
    # One seed of normal inputs, the old default, misses it: the distributions are what catch it.
    assert run_task(task, replay_dir=tmp_path, seeds=1, distributions=[InputDistribution.NORMAL]).ok


def test_replay_reruns_the_failing_distribution(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli([str(EXAMPLES / "row_max_bug_zero_init"), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert any(x.startswith("== row_max_bug_zero_init ") and ", negative inputs (" in x for x in out.splitlines())
    path = Path(next(x for x in out.splitlines() if x.startswith("replay: ")).split()[-1])
    assert "-negative-" in path.name
    code, out, _ = run_cli(["--replay", str(path), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1 and any(x.startswith("mismatch: ") for x in out.splitlines())


def test_edges_puts_integers_at_the_ends_of_their_range() -> None:
    task = load_task(EXAMPLES / "rotary_embedding")
    env = task.shape_env({**task.instances[-1], "num_tokens": 64})
    tensors = make_inputs(task, env, 0)
    low, high = task.inputs["positions"].value_range(dict(env)) or (0, 0)
    InputDistribution.EDGES.apply(task, tensors, env, 0)
    assert set(tensors["positions"].tolist()) == {low, high - 1}
    assert InputDistribution.EDGES.changes(task)
    assert not InputDistribution.EDGES.changes(load_task(EXAMPLES / "row_max"))


def test_floats_follow_their_distribution() -> None:
    task = load_task(EXAMPLES / "row_max")
    env = task.shape_env(task.instances[-1])
    normal = make_inputs(task, env, 0)["x"]
    for dist, check in [
        (InputDistribution.NEGATIVE, lambda x: bool((x <= 0).all())),
        (InputDistribution.LARGE, lambda x: float(x.abs().max()) > 100.0),
        (InputDistribution.NEAR_CONSTANT, lambda x: float((x - 2.0).abs().max()) < 0.1),
    ]:
        tensors = make_inputs(task, env, 0)
        dist.apply(task, tensors, env, 0)
        assert check(tensors["x"]), dist
        assert not torch.equal(tensors["x"], normal)


def test_seeds_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from larkc.cli import build_parser

    assert build_parser("run").parse_args(["run", "x"]).seeds == DEFAULT_SEEDS
    code, _, err = run_cli([str(EXAMPLES / "row_max"), "--seeds", "0"], capsys)
    assert code == 2 and "--seeds 0" in err
    code, out, _ = run_cli([str(EXAMPLES / "row_max"), "--seeds", "2", "--replay-dir", str(tmp_path)], capsys)
    assert code == 0 and "(8 input sets tried)" in out  # 2 seeds x normal, negative, large, near-constant


# --------------------------------------------------------------------------------------------------
# e. A mismatch names the store that last wrote the element; diagnoses in device functions their calls

DEVICE_STORE = """
__device__ void put(float* out, int i, float v) {
  out[i] = v + 1.0f;
}

__device__ void relay(float* out, int i, float v) {
  put(out, i, v);
}

__global__ void k(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    relay(out, i, v);
  }
}
"""


def _copy_reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


def test_mismatch_names_the_store_and_thread_that_wrote_the_element(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(DEVICE_STORE)
    task = Task(
        name="copy",
        source=src,
        kernel="k",
        reference=_copy_reference,
        inputs={"x": "f32[n]"},
        outputs={"out": "f32[n]"},
        symbols=["n"],
        instances=[{"n": 100}],
        grid=["cdiv(n, 32)"],
        block=[32],
    )
    report = run_task(task, replay_dir=tmp_path, seeds=1, distributions=[InputDistribution.NORMAL])
    (d,) = [d for d in report.instances[0].diagnoses if d.kind.value == "mismatch"]
    assert d.span is not None and (d.span.line, d.span.col) == (3, 3), d.render()  # the store in put
    assert d.index is not None and d.block is not None and d.thread is not None
    assert d.block[0] * 32 + d.thread[0] == d.index  # the thread that computes element i wrote it
    assert (
        f"was last written by block ({d.block[0]},0,0) thread ({d.thread[0]},0,0) at {src}:3:3 "
        f"(in device function put called at {src}:7:3, in device function relay called at {src}:14:5)"
    ) in d.message


def test_diagnoses_in_device_functions_show_the_calls(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(DEVICE_STORE)
    task = command_line_task(src, "k", grid=["1"], block=["32"], buffers=["x=f32[32]", "out=f32[8]"], scalars=["n=32"])
    report = run_task(task, replay_dir=tmp_path)
    (d,) = [d for d in report.instances[0].diagnoses if d.kind.value == "oob"]
    assert d.span is not None and d.span.line == 3
    assert d.message.endswith(
        f"(in device function put called at {src}:7:3, in device function relay called at {src}:14:5)"
    )
