"""The phase form against the simulator, on every example.

The phase form is what the Lean model runs (snapshot semantics per phase); the simulator is the
definition of the IR. On every instance small enough to run quickly, both run on the same inputs: a
race-free kernel must give the same bytes (atomics aside, whose float additions may be reordered), a
race the simulator sees must be a race between threads of one phase, and an out-of-bounds access
must be one in both.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import pytest
import torch

from larkc.errors import SimulationError, UnsupportedError
from larkc.frontends import parse_task, specialised_per_instance
from larkc.ir.nodes import Atomic, Barrier, Module
from larkc.ir.phases import PhaseForm, PhaseLoop, iter_phases, phase_form
from larkc.ir.walk import walk_stmts
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.semantics import LaunchConfig, simulate
from larkc.semantics.phased import run_phase_form
from larkc.tasks import Task, load_task

ROOT = Path(__file__).resolve().parents[2] / "examples"
EXAMPLES = ROOT / "cuda"
TASKS = sorted(p.parent.name for p in EXAMPLES.glob("*/task.py"))
# Triton examples, by "triton/<name>": each program is one thread of the phase form
TRITON = sorted(f"triton/{p.parent.name}" for p in (ROOT / "triton").glob("*/task.py"))
MAX_THREADS = 2048

# Examples whose phase form is not built yet, with the construct that stops it (a test fails when one
# of them starts working, so that the list shrinks).
UNSUPPORTED = {
    "triton/locked_col_sum": "spin loop",
    "triton/locked_col_sum_bug_lock_race": "spin loop",
    "last_block_sum": "synchronisation under this condition",
    "last_block_sum_bug_no_release_fence": "synchronisation under this condition",
}


@cache
def _load(name: str) -> tuple[Task, Module]:
    task = load_task((ROOT / name if name.startswith("triton/") else EXAMPLES / name) / "task.py")
    return task, parse_task(task)


def _constant_block(task: Task) -> list[int | None]:
    return [int(str(d)) if str(d).isdigit() else None for d in task.launch.block]


def _form(name: str) -> PhaseForm:
    task, module = _load(name)
    return phase_form(module, kernel_function(task, module), _constant_block(task))


@pytest.mark.parametrize("name", TASKS + TRITON)
def test_phase_form_matches_simulator(name: str) -> None:
    task, module = _load(name)
    if name in UNSUPPORTED:
        with pytest.raises(UnsupportedError, match=UNSUPPORTED[name][:30]):
            _form(name)
        return
    form = _form(name)
    f = kernel_function(task, module)
    ran = 0
    for inst in task.instances:
        env = task.shape_env(inst)
        grid, block, shared = task.launch.concrete(env)
        if math.prod(grid) * math.prod(block) > MAX_THREADS:
            continue
        ran += 1
        if specialised_per_instance(task):  # a Triton kernel lowered for each instance
            module = parse_task(task, inst)
            f = kernel_function(task, module)
            form = phase_form(module, f, _constant_block(task))
        atomics = any(isinstance(s, Atomic) for s in walk_stmts(form.kernel.body))
        tensors = make_inputs(task, env, 0)
        args = kernel_args(task, f, tensors, env)
        sim = simulate(module, f.name, LaunchConfig(grid, block, shared), args)
        kinds = {d.kind.value for d in sim.diagnoses}
        try:
            got = run_phase_form(form, grid, block, args, shared)
        except SimulationError as e:
            assert "out-of-bounds" in str(e) and "oob" in kinds, (str(e), kinds)
            continue
        assert ("race" in kinds) == bool(got.races), (inst, kinds, got.races[:3])
        if kinds:
            continue
        for buf, data in got.buffers.items():
            ref = sim.buffers[buf]
            if atomics and data.is_floating_point():
                torch.testing.assert_close(data, ref, rtol=1e-5, atol=1e-6)
            else:
                assert torch.equal(
                    data.reshape(-1).view(torch.uint8), ref.contiguous().reshape(-1).view(torch.uint8)
                ), (
                    inst,
                    buf,
                )
    assert ran, f"no instance of {name} has at most {MAX_THREADS} threads"


def test_unsupported_names_exist() -> None:
    assert set(UNSUPPORTED) <= set(TASKS + TRITON)


def test_phases_cut_at_barriers() -> None:
    form = _form("row_sum_shared")
    phases = list(iter_phases(form.items))
    # one phase before the first barrier, one per tree step (BLOCK=256: 8 steps), one after
    assert len(phases) == 10
    assert not any(isinstance(s, Barrier) for p in phases for piece in p.pieces for s in walk_stmts(piece.stmts))


def test_symbolic_loop_of_phases() -> None:
    form = _form("matmul_tiled")
    loops = [it for it in form.items if isinstance(it, PhaseLoop)]
    assert len(loops) == 1 and loops[0].step == 1
    assert [p.ends.value for p in iter_phases(loops[0].body)] == ["block", "block"]


CASES = Path(__file__).resolve().parent / "cases"


@pytest.mark.parametrize("name", sorted(p.parent.name for p in CASES.glob("*/task.py")))
def test_phase_form_of_a_case_matches_simulator(name: str) -> None:
    task = load_task(CASES / name / "task.py")
    module = parse_task(task)
    f = kernel_function(task, module)
    form = phase_form(module, f, _constant_block(task))
    for inst in task.instances:
        env = task.shape_env(inst)
        grid, block, shared = task.launch.concrete(env)
        tensors = make_inputs(task, env, 0)
        args = kernel_args(task, f, tensors, env)
        sim = simulate(module, f.name, LaunchConfig(grid, block, shared), args)
        assert not sim.diagnoses, sim.diagnoses
        got = run_phase_form(form, grid, block, args, shared)
        assert not got.races
        for buf, data in got.buffers.items():
            assert torch.equal(data, sim.buffers[buf]), (inst, buf)


def test_early_return_before_a_barrier_guards_later_phases() -> None:
    task = load_task(CASES / "early_exit" / "task.py")
    module = parse_task(task)
    form = phase_form(module, kernel_function(task, module), _constant_block(task))
    phases = list(iter_phases(form.items))
    assert len(phases) == 2
    assert any(g for piece in phases[1].pieces for g in piece.guards), "the phase after the barrier is not guarded"


def test_block_level_kernel_is_one_phase_without_barriers() -> None:
    """A Triton program is one thread of the phase form: one phase, its debug barriers dropped."""
    task = load_task(CASES / "triton_scale_max" / "task.py")
    module = parse_task(task)
    f = kernel_function(task, module)
    assert any(isinstance(s, Barrier) for s in walk_stmts(f.body))
    form = phase_form(module, f, _constant_block(task))
    (phase,) = iter_phases(form.items)
    assert phase.ends.value == "end" and not form.carried
    assert not any(isinstance(s, Barrier) for piece in phase.pieces for s in walk_stmts(piece.stmts))
