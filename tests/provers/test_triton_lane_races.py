"""Races between the lanes of one Triton program (issue 19, classes 2 and 3).

The elements of a block value are spread over the GPU threads of a program by the compiler's layout, so
two different elements are potentially two threads: two of them storing different values to one address
race, and a store followed by a load (or store) of the same address by another element races unless a
``tl.debug_barrier()`` lies between them in program order. ``larkc run`` reports these races (a same-value
store as the ``race (same value)`` warning, as for CUDA threads), ``larkc verify`` refutes them (confirmed
by the simulator), and the versions with the barrier, or where each element reads back only its own
element, are clean and VERIFIED.

The kernels are written here as library code is, one file per test (`tmp_path`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import torch

from larkc import Task
from larkc.frontends import parse_task
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import _instance_facts, kernel_function, verify_task
from larkc.provers import (
    Budget,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    ScopeKind,
    Status,
    Verdict,
)
from larkc.provers.bounded import prove_instance
from larkc.provers.core import SAME_ELEMENT_SAME_THREAD
from larkc.provers.parametric import prove_parametric

HEADER = "import triton\nimport triton.language as tl\n\n\n"

#: Pooling written as "keep the even elements": lanes 2i and 2i+1 both store to out[i] (different values).
KEEP_EVEN = """
@triton.jit
def keep_even(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs // 2, x, mask=offs < n)
"""

#: A column sum that forgot its tl.sum: every row of the tile is stored onto the same out[cols].
COL_TILE = """
@triton.jit
def col_sum(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK_R)
    cols = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows[:, None] * 0 + cols[None, :], tile, mask=mask)
"""

#: Every lane of a program marks its row's flag: many lanes, one address, one value.
FLAG_ROWS = """
@triton.jit
def flag_rows(x_ptr, flags_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(flags_ptr + row + cols * 0, 1.0, mask=cols < n_cols)
"""

#: A two-stage row kernel: scale into a global scratch row, then read the scratch row back reversed.
#: ``{sync}`` is replaced by nothing (the race) or by ``tl.debug_barrier()`` (correct).
REVERSE_VIA_SCRATCH = """
@triton.jit
def reverse_rows(x_ptr, w_ptr, tmp_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(tmp_ptr + row * n_cols + cols, x * w, mask=mask)
    {sync}
    back = n_cols - 1 - cols
    y = tl.load(tmp_ptr + row * n_cols + back, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)
"""

#: The same two stages, each element reading back only its own element: no barrier needed.
OWN_ELEMENT_VIA_SCRATCH = """
@triton.jit
def scale_rows(x_ptr, w_ptr, tmp_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(tmp_ptr + row * n_cols + cols, x * w, mask=mask)
    y = tl.load(tmp_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, y + 1.0, mask=mask)
"""

#: A forward difference through scratch: element i reads element i + 1 of what the program just stored.
DIFF_VIA_SCRATCH = """
@triton.jit
def diff_rows(x_ptr, tmp_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(tmp_ptr + row * n_cols + cols, x * x, mask=cols < n_cols)
    {sync}
    nxt = tl.load(tmp_ptr + row * n_cols + cols + 1, mask=cols + 1 < n_cols, other=0.0)
    tl.store(out_ptr + row * (n_cols - 1) + cols, nxt - x * x, mask=cols + 1 < n_cols)
"""

#: An in-place shift left by one: element i reads x[i + 1] while element i + 1 overwrites it.
SHIFT_IN_PLACE = """
@triton.jit
def shift_left(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    nxt = tl.load(x_ptr + offs + 1, mask=offs + 1 < n, other=0.0)
    tl.store(x_ptr + offs, nxt, mask=offs + 1 < n)
"""

#: A weighted histogram written with tl.store where tl.atomic_add was meant: duplicate bins collide.
BIN_WEIGHTS = """
@triton.jit
def bin_weights(idx_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(idx_ptr + offs, mask=m, other=0)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    tl.{op}(out_ptr + b, w, mask=m)
"""


def _source(tmp_path: Path, body: str, name: str = "kernel.py") -> str:
    path = tmp_path / name
    path.write_text(HEADER + body.lstrip("\n"), encoding="utf-8")
    return str(path)


def _keep_even(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, KEEP_EVEN), kernel="keep_even", reference=lambda x: x[::2],
        inputs={"x": "f32[2 * h]"}, outputs={"out": "f32[h]"},
        bindings={"x_ptr": "x", "out_ptr": "out", "n": "2 * h", "BLOCK": 64},
        symbols=["h"], constraints=["h <= 65536"], instances=[{"h": 5}, {"h": 40}],
        grid=["cdiv(2 * h, 64)"], block=[1],
    )  # fmt: skip


def _col_tile(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, COL_TILE), kernel="col_sum", reference=lambda x: x.sum(dim=0),
        inputs={"x": "f32[4, c]"}, outputs={"out": "f32[c]"},
        bindings={"x_ptr": "x", "out_ptr": "out", "n_rows": 4, "n_cols": "c", "BLOCK_R": 4, "BLOCK_C": 16},
        symbols=["c"], constraints=["c <= 65536"], instances=[{"c": 5}, {"c": 20}],
        grid=["cdiv(c, 16)"], block=[1],
    )  # fmt: skip


def _flag_rows(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, FLAG_ROWS), kernel="flag_rows",
        reference=lambda x: torch.ones(x.shape[0]),
        inputs={"x": "f32[r, d]"}, outputs={"flags": "f32[r]"},
        bindings={"x_ptr": "x", "flags_ptr": "flags", "n_cols": "d", "BLOCK": 32},
        symbols=["r", "d"], constraints=["d <= 32", "r <= 4096"], instances=[{"r": 3, "d": 5}, {"r": 2, "d": 32}],
        grid=["r"], block=[1],
    )  # fmt: skip


def _reverse(tmp_path: Path, sync: str) -> Task:
    return Task(
        source=_source(tmp_path, REVERSE_VIA_SCRATCH.replace("{sync}", sync)), kernel="reverse_rows",
        reference=lambda x, w: (x * w).flip(1),
        inputs={"x": "f32[r, d]", "w": "f32[d]"}, outputs={"out": "f32[r, d]"}, scratch={"tmp": "f32[r, d]"},
        bindings={"x_ptr": "x", "w_ptr": "w", "tmp_ptr": "tmp", "out_ptr": "out", "n_cols": "d", "BLOCK": 32},
        symbols=["r", "d"], constraints=["d <= 32", "r <= 4096"], instances=[{"r": 2, "d": 5}, {"r": 3, "d": 32}],
        grid=["r"], block=[1],
    )  # fmt: skip


def _own_element(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, OWN_ELEMENT_VIA_SCRATCH), kernel="scale_rows",
        reference=lambda x, w: x * w + 1.0,
        inputs={"x": "f32[r, d]", "w": "f32[d]"}, outputs={"out": "f32[r, d]"}, scratch={"tmp": "f32[r, d]"},
        bindings={"x_ptr": "x", "w_ptr": "w", "tmp_ptr": "tmp", "out_ptr": "out", "n_cols": "d", "BLOCK": 32},
        symbols=["r", "d"], constraints=["d <= 32", "r <= 4096"], instances=[{"r": 2, "d": 5}, {"r": 3, "d": 32}],
        grid=["r"], block=[1],
    )  # fmt: skip


def _diff(tmp_path: Path, sync: str) -> Task:
    return Task(
        source=_source(tmp_path, DIFF_VIA_SCRATCH.replace("{sync}", sync)), kernel="diff_rows",
        reference=lambda x: x[:, 1:] * x[:, 1:] - x[:, :-1] * x[:, :-1],
        inputs={"x": "f32[r, d + 1]"}, outputs={"out": "f32[r, d]"}, scratch={"tmp": "f32[r, d + 1]"},
        bindings={"x_ptr": "x", "tmp_ptr": "tmp", "out_ptr": "out", "n_cols": "d + 1", "BLOCK": 32},
        symbols=["r", "d"], constraints=["d <= 31", "r <= 4096"], instances=[{"r": 2, "d": 4}, {"r": 3, "d": 31}],
        grid=["r"], block=[1],
    )  # fmt: skip


def _shift(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, SHIFT_IN_PLACE), kernel="shift_left",
        reference=lambda x: torch.cat([x[1:], x[-1:]]),
        inputs={"x": "f32[n]"}, outputs={"x": "f32[n]"},
        bindings={"x_ptr": "x", "n": "n", "BLOCK": 32},
        symbols=["n"], constraints=["n <= 32"], instances=[{"n": 5}, {"n": 32}],
        grid=[1], block=[1],
    )  # fmt: skip


def _bin_weights(tmp_path: Path, op: str) -> Task:
    return Task(
        source=_source(tmp_path, BIN_WEIGHTS.replace("{op}", op)), kernel="bin_weights",
        reference=lambda idx, w: ((idx[:, None] == torch.arange(4)[None, :]).to(w.dtype) * w[:, None]).sum(0),
        inputs={"idx": "i64[n] in [0, 4)", "w": "f32[n]"}, outputs={"out": (("4",), "f32", "zeros")},
        bindings={"idx_ptr": "idx", "w_ptr": "w", "out_ptr": "out", "n": "n", "BLOCK": 64},
        symbols=["n"], constraints=["n <= 64"], instances=[{"n": 9}, {"n": 64}],
        grid=[1], block=[1],
    )  # fmt: skip


def _reverse_racy(tmp_path: Path) -> Task:
    return _reverse(tmp_path, "")


def _reverse_synced(tmp_path: Path) -> Task:
    return _reverse(tmp_path, "tl.debug_barrier()")


def _diff_racy(tmp_path: Path) -> Task:
    return _diff(tmp_path, "")


def _diff_synced(tmp_path: Path) -> Task:
    return _diff(tmp_path, "tl.debug_barrier()")


MakeTask = Callable[[Path], Task]
RACY: list[MakeTask] = [_keep_even, _col_tile, _reverse_racy, _diff_racy, _shift]
CORRECT: list[MakeTask] = [_own_element, _reverse_synced, _diff_synced]


def _name(make: MakeTask) -> str:
    return make.__name__.strip("_")


def _race_lines(task: Task, tmp_path: Path, instances: list[Mapping[str, int]] | None = None) -> list[str]:
    report = run_task(task, instances=instances, replay_dir=tmp_path / "replay", seeds=1)
    return [d.render() for inst in report.instances for d in inst.diagnoses if d.kind.value.startswith("race")]


# -- larkc run ------------------------------------------------------------------------------------------


def test_run_reports_two_lanes_storing_different_values_to_one_address(tmp_path: Path) -> None:
    lines = _race_lines(_keep_even(tmp_path), tmp_path)
    assert lines, "keep_even: lanes 2i and 2i+1 store to out[i]"
    first = lines[0]
    assert first.startswith("race:") and "write of global out[" in first, first
    assert "program (0,0,0)" in first and "element" in first, first
    assert "(both write the same value)" not in first


def test_run_reports_broadcast_rows_colliding(tmp_path: Path) -> None:
    lines = _race_lines(_col_tile(tmp_path), tmp_path)
    assert any(line.startswith("race:") and "out[" in line for line in lines), lines


def test_run_warns_lanes_storing_one_value(tmp_path: Path) -> None:
    task = _flag_rows(tmp_path)
    report = run_task(task, replay_dir=tmp_path / "replay", seeds=1)
    lines = [d.render() for inst in report.instances for d in inst.diagnoses if d.kind.value.startswith("race")]
    assert lines and all(line.startswith("race (same value)") for line in lines), lines
    assert report.ok  # a warning, as for CUDA threads storing one value


def test_run_reports_scratch_read_back_by_other_lanes_without_barrier(tmp_path: Path) -> None:
    lines = _race_lines(_reverse(tmp_path, ""), tmp_path)
    assert any("read of global tmp[" in line and "tl.debug_barrier()" in line for line in lines), lines


def test_run_reports_neighbour_read_through_scratch(tmp_path: Path) -> None:
    lines = _race_lines(_diff(tmp_path, ""), tmp_path)
    assert any("read of global tmp[" in line for line in lines), lines


def test_run_reports_in_place_shift_between_lanes(tmp_path: Path) -> None:
    lines = _race_lines(_shift(tmp_path), tmp_path)
    assert any("global x[" in line for line in lines), lines


def test_run_reports_a_histogram_stored_instead_of_added(tmp_path: Path) -> None:
    lines = _race_lines(_bin_weights(tmp_path, "store"), tmp_path)
    assert any(line.startswith("race:") and "write of global out[" in line for line in lines), lines
    report = run_task(_bin_weights(tmp_path, "atomic_add"), replay_dir=tmp_path / "replay", seeds=1)
    assert "race" not in report.kinds(), report.render()  # atomics of one program never race


@pytest.mark.parametrize("make", CORRECT, ids=_name)
def test_run_is_clean_with_a_barrier_or_own_elements(tmp_path: Path, make: MakeTask) -> None:
    report = run_task(make(tmp_path), replay_dir=tmp_path / "replay", seeds=1)
    assert report.ok and not report.kinds(), report.render()


# -- larkc verify ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", RACY, ids=_name)
def test_verify_refutes_lane_races_confirmed_by_the_simulator(tmp_path: Path, make: MakeTask) -> None:
    report = verify_task(make(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    refuted = [r for r in report.results if r.obligation.kind is ObligationKind.RACE and r.status is Status.REFUTED]
    assert refuted, "\n".join(report.render())
    cx = refuted[0].counterexample
    assert cx is not None and cx.kind in (CounterexampleKind.CONFIRMED, CounterexampleKind.STATIC), cx
    if cx.kind is CounterexampleKind.CONFIRMED:
        assert cx.replay is not None and Path(cx.replay).is_file()


def test_verify_never_proves_data_dependent_collisions(tmp_path: Path) -> None:
    """The bins come from data: the symbolic run cannot follow a store through them and the parametric
    prover's collision involves loaded values, so the race stays open (never PROVED); the atomic version
    has no race to prove."""
    report = verify_task(_bin_weights(tmp_path, "store"), replay_dir=tmp_path / "replay")
    assert report.verdict is not Verdict.VERIFIED, "\n".join(report.render())
    race = [r for r in report.results if r.obligation.kind is ObligationKind.RACE]
    assert race and all(r.status is not Status.PROVED for r in race), "\n".join(report.render())


def test_verify_fails_one_value_stored_by_many_lanes_as_for_cuda(tmp_path: Path) -> None:
    """``larkc run`` warns (race (same value)); ``larkc verify`` treats it as CUDA threads storing one value
    are treated: the race obligation is refuted (its model has no values)."""
    report = verify_task(_flag_rows(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())


@pytest.mark.parametrize("make", CORRECT, ids=_name)
def test_verify_proves_the_correct_versions(tmp_path: Path, make: MakeTask) -> None:
    report = verify_task(make(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    race = [r for r in report.results if r.obligation.kind is ObligationKind.RACE]
    assert race and all(r.status is Status.PROVED for r in race)
    # proved for every size, not only at the instances: the barrier is modelled, not dropped
    assert all(r.scope.kind is ScopeKind.PARAMETRIC for r in race), [r.detail for r in race]


# -- the parametric prover (every size) -------------------------------------------------------------------


def _parametric_race(task: Task) -> ObligationResult:
    module = parse_task(task)
    f = kernel_function(task, module)
    (r,) = prove_parametric(module, f.name, task, [Obligation(ObligationKind.RACE)], Budget())
    return r


@pytest.mark.parametrize("make", [*RACY, _flag_rows], ids=_name)
def test_parametric_prover_refutes_lane_races(tmp_path: Path, make: MakeTask) -> None:
    r = _parametric_race(make(tmp_path))
    assert r.status is Status.REFUTED, r.detail
    assert r.counterexample is not None and "of the same program" in r.counterexample.message


@pytest.mark.parametrize("make", CORRECT, ids=_name)
def test_parametric_prover_proves_the_correct_versions_for_all_sizes(tmp_path: Path, make: MakeTask) -> None:
    r = _parametric_race(make(tmp_path))
    assert r.status is Status.PROVED, r.detail
    assert r.scope.kind is ScopeKind.PARAMETRIC, r.scope


def test_a_bounded_race_proof_lists_the_same_element_assumption(tmp_path: Path) -> None:
    """The race model of a Triton program (an element held by one GPU thread from statement to statement,
    triton-lang/triton#10924) is an assumption of a bounded proof as of a parametric one."""
    task = _own_element(tmp_path)
    module = parse_task(task)
    f = kernel_function(task, module)
    facts = _instance_facts(task, module, f, None, task.shape_env(task.instances[0]), Budget())
    (r,) = prove_instance(facts, [Obligation(ObligationKind.RACE)], Budget())
    assert r.status is Status.PROVED and r.scope.kind is ScopeKind.BOUNDED, r.detail
    assert SAME_ELEMENT_SAME_THREAD in r.assumptions, r.assumptions
    # a CUDA kernel's threads are its threads: no such assumption
    (r,) = prove_instance(dataclasses.replace(facts, block_level=False), [Obligation(ObligationKind.RACE)], Budget())
    assert SAME_ELEMENT_SAME_THREAD not in r.assumptions
