"""GPUVerify's contracts end to end: a kernel's ``__requires`` as a precondition that verdicts list and
``larkc run`` enforces on the task's inputs, ``__ensures`` as assertions, and what ``larkc emit`` does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from larkc.cli import main
from larkc.errors import PreconditionError
from larkc.frontends import parse_source, parse_task
from larkc.ir.phases import phase_form
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.pipeline.preconditions import preconditions, thread_dependent, unsimulated
from larkc.provers import (
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    Status,
)
from larkc.semantics import LaunchConfig, simulate
from larkc.semantics.phased import run_phase_form
from larkc.tasks import load_task

CONTRACTS = Path(__file__).resolve().parent / "contracts"
TILE = CONTRACTS / "tile_copy"
INDEX = CONTRACTS / "bounded_index"


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def variant(src: Path, tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the task folder ``src`` with ``edits`` (file name -> (old, new)) applied."""
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    for name, (old, new) in edits.items():
        text = (dst / name).read_text(encoding="utf-8")
        assert old in text
        (dst / name).write_text(text.replace(old, new), encoding="utf-8")
    return dst


def test_a_kernel_safe_only_under_its_precondition_verifies_and_lists_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    code, out, _ = cli(["verify", str(TILE), "--replay-dir", str(tmp_path), "--json", str(report)], capsys)
    assert code == 0, out
    assert "VERIFIED" in out
    assert "bounds            PROVED   parametric" in out  # for every block size the precondition allows
    line = next(x for x in out.splitlines() if "[precondition]" in x)
    assert "__requires(blockDim.x <= 64)" in line and "kernel.cu:4:5" in line
    data = json.loads(report.read_text(encoding="utf-8"))
    pres = [a for a in data["assumptions"] if a["kind"] == "precondition"]
    assert len(pres) == 1 and pres[0]["location"].endswith("kernel.cu:4:5")


def test_without_the_precondition_the_same_kernel_is_refuted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    task = variant(TILE, tmp_path, {"kernel.cu": ("    __requires(blockDim.x <= 64);\n", "")})
    code, out, _ = cli(["verify", str(task), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert "FAILED: bounds" in out and "element 64 of shared tile" in out
    assert "confirmed by the simulator" in out and "[precondition]" not in out


@pytest.mark.parametrize("command", ["run", "verify"])
def test_a_task_violating_the_precondition_is_bad_input_located_at_it(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = 'instances=[{"n": 100, "b": 64}, {"n": 70, "b": 32}]'
    task = variant(TILE, tmp_path, {"task.py": (old, 'instances=[{"n": 100, "b": 128}]')})
    code, out, err = cli([command, str(task), "--replay-dir", str(tmp_path)], capsys)
    assert code == 2 and "Traceback" not in err
    first = err.splitlines()[0]
    assert first.endswith(
        "kernel.cu:4:5: error: the task's inputs violate this precondition of the kernel (false in block (0,0,0) "
        "thread (0,0,0)): they are outside the kernel's contract, so there is nothing to verify or run"
    )
    assert "note: task tile_copy, instance n=100, b=128" in err
    assert "FAILED" not in out


def test_run_accepts_the_instances_that_satisfy_the_precondition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = cli(["run", str(TILE), "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert out.splitlines()[-1].startswith("precondition held in every run: __requires(blockDim.x <= 64) at ")
    assert out.splitlines()[-1].endswith("kernel.cu:4:5")
    code, out, _ = cli(["run", str(TILE), "--replay-dir", str(tmp_path), "--json"], capsys)
    assert code == 0
    (pre,) = json.loads(out)["preconditions"]
    assert pre.startswith("__requires(blockDim.x <= 64) at ") and pre.endswith("kernel.cu:4:5")


def test_a_postcondition_that_holds_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = cli(["verify", str(INDEX), "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert "assert            PROVED" in out


def test_a_postcondition_that_fails_is_reported_by_run_and_verify(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    task = variant(INDEX, tmp_path, {"task.py": ('defines={"BOUND": "n"}', 'defines={"BOUND": "n - 1"}')})
    code, out, _ = cli(["run", str(task), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert "assert" in out and "kernel.cu:5:5" in out  # the __ensures that fails, for the last element
    code, out, _ = cli(["verify", str(task), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert "FAILED: assert" in out and "kernel.cu:5:5" in out


def test_emit_rejects_a_precondition_rather_than_state_theorems_without_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(["emit", str(TILE), "-o", str(tmp_path / "lean")], capsys)
    assert code == 2
    assert "kernel.cu:4:5: error: unsupported precondition (__requires) in Lean lowering" in err.splitlines()[0]


# --------------------------------------------------------------------------------------------------
# Refutations the simulator cannot check against every thread's precondition


def _source(tmp_path: Path, requires: str) -> Path:
    path = tmp_path / "k.cu"
    path.write_text(
        f"__global__ void k(float* out, int n) {{\n    __requires({requires});\n    out[threadIdx.x] = 1.0f;\n}}\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("requires", "dependent"),
    [("n >= 4 && blockDim.x <= 64", False), ("gridDim.x == 1", False), ("threadIdx.x < n", True)],
)
def test_preconditions_that_may_differ_between_threads_are_told_apart(
    tmp_path: Path, requires: str, dependent: bool
) -> None:
    module = parse_source(_source(tmp_path, requires))
    f = module.kernels[0]
    pres = preconditions(module, f)
    assert len(pres) == 1
    assert (thread_dependent(pres, f) is not None) == dependent


@pytest.mark.parametrize(("requires", "status"), [("n >= 4", Status.REFUTED), ("threadIdx.x < n", Status.UNKNOWN)])
def test_an_unsimulated_refutation_stands_only_when_every_thread_shares_the_precondition(
    tmp_path: Path, requires: str, status: Status
) -> None:
    module = parse_source(_source(tmp_path, requires))
    ob = Obligation(ObligationKind.BOUNDS)
    cx = Counterexample(kind=CounterexampleKind.STATIC, message="out of bounds", instance={"n": 1 << 40})
    refuted = ObligationResult(ob, Status.REFUTED, Scope.bounded([], []), "parametric-z3", "model", (), cx)
    result = unsimulated(refuted, module, module.kernels[0])
    assert result.status is status
    if status is Status.UNKNOWN:
        assert "k.cu:2:5 depends on the thread" in result.detail


# --------------------------------------------------------------------------------------------------
# The phase form (what the Lean model runs) and symbolic execution see the precondition too


@pytest.mark.parametrize(("instance", "holds"), [({"n": 100, "b": 64}, True), ({"n": 100, "b": 128}, False)])
def test_the_phase_form_checks_the_precondition_as_the_simulator_does(instance: dict[str, int], holds: bool) -> None:
    task = load_task(TILE / "task.py")
    module = parse_task(task)
    f = kernel_function(task, module)
    form = phase_form(module, f, [None])
    env = task.shape_env(instance)
    grid, block, shared = task.launch.concrete(env)
    args = kernel_args(task, f, make_inputs(task, env, 0), env)
    if not holds:
        for runner in (
            lambda: simulate(module, f.name, LaunchConfig(grid, block, shared), args),
            lambda: run_phase_form(form, grid, block, args, shared),
        ):
            with pytest.raises(PreconditionError) as info:
                runner()
            assert info.value.span is not None and info.value.span.line == 4
        return
    sim = simulate(module, f.name, LaunchConfig(grid, block, shared), args)
    got = run_phase_form(form, grid, block, args, shared)
    assert not sim.diagnoses and not got.races
    assert torch.equal(got.buffers["out"], sim.buffers["out"])


def test_a_precondition_on_input_data_leaves_the_instance_unknown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Symbolic execution cannot assume a fact about input data: the obligations it decides are unknown
    on that instance, never proved without the hypothesis or refuted outside it."""
    kernel = (
        "__global__ void positive_copy(const float* x, float* out, int n) {\n"
        "    __requires(x[0] > 0.0f);\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) {\n        out[i] = x[i];\n    }\n}\n"
    )
    task = tmp_path / "positive_copy"
    task.mkdir()
    (task / "kernel.cu").write_text(kernel, encoding="utf-8")
    (task / "task.py").write_text(
        (INDEX / "task.py")
        .read_text(encoding="utf-8")
        .replace('name="bounded_index"', 'name="positive_copy"')
        .replace('kernel="copy_clamped"', 'kernel="positive_copy"'),
        encoding="utf-8",
    )
    code, out, _ = cli(["verify", str(task), "--replay-dir", str(tmp_path)], capsys)
    assert code == 4, out
    assert "equivalence(out)  UNKNOWN" in out and "the precondition depends on input data" in out


def test_a_race_the_preconditions_allow_is_refuted_at_a_value_they_allow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The parametric prover finds x = 185 inside 0 <= x < 1000; a model outside the precondition (x = 2^31,
    which the kernel receives as -2^31) is rejected by the simulator and leaves its obligation unknown."""
    code, out, _ = cli(["verify", str(CONTRACTS / "value_causing_race"), "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    assert "FAILED: race" in out and "at x=185" in out and "confirmed by the simulator" in out
    overflow = next(x for x in out.splitlines() if x.startswith("overflow"))
    assert "UNKNOWN" in overflow and "is outside the kernel's precondition at" in overflow
    assert "kernel.cu:4:5" in overflow


def test_emit_states_a_device_function_contract_as_checks_of_the_asserts_theorem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A device function's __requires and __ensures are assertions: `s.check`s of the kernel's phases, which
    the `_asserts` theorem says hold (no hypothesis is needed, unlike a kernel's precondition)."""
    code, _, err = cli(["emit", str(INDEX), "-o", str(tmp_path / "lean")], capsys)
    assert code == 0, err
    kernel = (tmp_path / "lean" / "BoundedIndex" / "Kernel.lean").read_text(encoding="utf-8")
    assert kernel.count("s.check") == 3  # n > 0, and the two postconditions
    assert "theorem bounded_index_asserts" in (tmp_path / "lean" / "BoundedIndex" / "Theorems.lean").read_text()


def test_a_thread_dependent_precondition_before_a_barrier_is_proved_for_all_sizes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A thread whose precondition fails goes no further: the parametric prover does not count it as a
    thread the others wait for at the barrier (that model is outside the contract), so barrier uniformity
    and race freedom are proved for all sizes, not only on the instances."""
    code, out, _ = cli(["verify", str(CONTRACTS / "rotate"), "--replay-dir", str(tmp_path)], capsys)
    assert code == 0, out
    assert "barrier           PROVED   parametric" in out and "race              PROVED   parametric" in out
    assert "__requires(threadIdx.x < n)" in out
