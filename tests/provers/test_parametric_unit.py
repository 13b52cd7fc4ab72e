"""The parametric prover on small hand-written kernels: each obligation kind proved and refuted.

Every refutation with a small witness is replayed in the simulator, which must report the same kind of
failure at the witness sizes (a parametric refutation is a claim about a real execution).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from larkc.frontends import parse_source
from larkc.ir import parse_module
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.provers import (
    AssumptionKind,
    Budget,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    ScopeKind,
    Status,
)
from larkc.provers.parametric import prove_parametric
from larkc.semantics import LaunchConfig, simulate
from larkc.tasks import Task

BOUNDS, RACE, BARRIER, OVERFLOW = (
    ObligationKind.BOUNDS,
    ObligationKind.RACE,
    ObligationKind.BARRIER,
    ObligationKind.OVERFLOW,
)
KINDS = (BOUNDS, RACE, BARRIER, OVERFLOW)
BUDGET = Budget(seconds=60, solver_rlimit=20_000_000)
#: The diagnosis of the simulator that confirms a refutation of each kind.
DIAGNOSIS = {BOUNDS: "oob", RACE: "race", BARRIER: "divergence"}


def prove(tmp_path: Path, src: str, kernel: str, **task: Any) -> dict[ObligationKind, ObligationResult]:
    """Prove the four safety obligations of ``kernel`` in CUDA source ``src`` under a task."""
    t = make_task(tmp_path, src, kernel, **task)
    module = parse_source(t.source, kernel=kernel)
    results = prove_parametric(module, kernel, t, [Obligation(k) for k in KINDS], BUDGET)
    out = {r.obligation.kind: r for r in results}
    for r in results:
        assert r.scope.kind is ScopeKind.PARAMETRIC and r.scope.symbols == tuple(t.symbols)
        assert r.prover == "parametric-z3" and r.seconds >= 0
        if r.status is Status.REFUTED:
            cex = r.counterexample
            assert cex is not None and cex.kind is CounterexampleKind.STATIC
            assert set(cex.instance) == set(t.symbols) and cex.message
            _confirm(t, module, r)
    return out


def make_task(tmp_path: Path, src: str, kernel: str, **task: Any) -> Task:
    """The task of ``src`` written to ``tmp_path/kernel.cu``; one instance with every symbol 1."""
    path = tmp_path / "kernel.cu"
    path.write_text(src)
    task.setdefault("instances", [dict.fromkeys(task.get("symbols", ()), 1)])
    return Task(source=path, kernel=kernel, **task)


def _confirm(task: Task, module: Any, r: ObligationResult) -> None:
    """Replay a refutation with a small witness in the simulator."""
    word = DIAGNOSIS.get(r.obligation.kind)
    cex = r.counterexample
    assert cex is not None
    env = task.shape_env(cex.instance)
    if word is None or any(v > 4096 for v in env.values()):
        return
    grid, block, shared = task.launch.concrete(env)
    f = kernel_function(task, module)
    args = kernel_args(task, f, make_inputs(task, env, 0), env)
    result = simulate(module, f.name, LaunchConfig(grid, block, shared), args)
    kinds = {d.kind.value for d in result.diagnoses}
    assert word in kinds, f"{r.detail}\nthe simulator reports {kinds or 'nothing'} at {env}"


def statuses(res: Mapping[ObligationKind, ObligationResult]) -> tuple[str, ...]:
    return tuple(res[k].status.value for k in KINDS)


# --------------------------------------------------------------------------------------------------
# Bounds


COPY = """
__global__ void copy(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i %s n) out[i] = x[i];
}
"""
COPY_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    grid=["cdiv(n, 256)"],
    block=[256],
)


def test_guarded_access_is_proved_with_its_scope_and_assumptions(tmp_path: Path) -> None:
    res = prove(tmp_path, COPY % "<", "copy", **COPY_TASK)
    assert statuses(res) == ("proved", "proved", "proved", "proved")
    r = res[BOUNDS]
    assert "n <= 16777216" in r.scope.constraints
    assert any("bytes of x" in c for c in r.scope.constraints)
    texts = [a.text for a in r.assumptions]
    assert any("valid launches" in t for t in texts)  # justified by the launch obligation, not assumed
    assert any(a.kind is AssumptionKind.MODEL and "aligned" in a.text for a in r.assumptions)
    assert "for all sizes" in r.detail


def test_off_by_one_guard_is_refuted_at_the_smallest_size(tmp_path: Path) -> None:
    res = prove(tmp_path, COPY % "<=", "copy", **COPY_TASK)
    r = res[BOUNDS]
    assert r.status is Status.REFUTED
    assert r.counterexample is not None and r.counterexample.instance == {"n": 1}
    assert "out of bounds: element 1 of tensor x" in r.detail and "thread (1,0,0)" in r.detail
    assert r.counterexample.launch == "grid 1x1x1, block 256x1x1"
    assert res[RACE].status is Status.PROVED


MISALIGNED = """
__global__ void load4(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 4 <= n) {
    float4 v = *reinterpret_cast<const float4*>(x + 4 * i + %s);
    out[i] = v.x + v.y + v.z + v.w;
  }
}
"""
MISALIGNED_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216", "n % 4 == 0"],
    instances=[{"n": 4}],
    grid=["cdiv(n, 256)"],
    block=[256],
)


def test_vector_access_alignment(tmp_path: Path) -> None:
    assert prove(tmp_path, MISALIGNED % "0", "load4", **MISALIGNED_TASK)[BOUNDS].status is Status.PROVED
    r = prove(tmp_path, MISALIGNED % "1", "load4", **MISALIGNED_TASK)[BOUNDS]
    assert r.status is Status.REFUTED
    assert "out of bounds" in r.detail or "misaligned" in r.detail


# --------------------------------------------------------------------------------------------------
# Strided loops


ROWS = """
__global__ void row_scale(const float* x, float* out, int d) {
  const size_t row = blockIdx.x;
  for (int j = threadIdx.x; j %s d; j += blockDim.x) {
    out[row * d + j] = 2.0f * x[row * d + j];
  }
}
"""
ROWS_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536"],
    grid=["rows"],
    block=["min(next_pow2(d), 256)"],
)


def test_block_strided_loop_over_a_symbolic_block_size_is_proved(tmp_path: Path) -> None:
    assert statuses(prove(tmp_path, ROWS % "<", "row_scale", **ROWS_TASK)) == ("proved",) * 4


def test_block_strided_loop_past_the_row_is_refuted(tmp_path: Path) -> None:
    res = prove(tmp_path, ROWS % "<=", "row_scale", **ROWS_TASK)
    assert res[BOUNDS].status is Status.REFUTED
    assert res[BOUNDS].counterexample is not None
    assert res[BOUNDS].counterexample.instance == {"rows": 1, "d": 1}


GRID_STRIDE = """
__global__ void scale(const float* x, float* out, size_t n) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
    out[i] = 3.0f * x[i];
  }
}
"""


def test_grid_stride_loop_with_a_fixed_grid_is_proved_for_all_n(tmp_path: Path) -> None:
    res = prove(
        tmp_path,
        GRID_STRIDE,
        "scale",
        inputs={"x": "f32[n]"},
        outputs={"out": "f32[n]"},
        symbols=["n"],
        grid=[8],
        block=[128],
    )
    assert statuses(res) == ("proved",) * 4
    assert res[BOUNDS].scope.constraints == ("4 * n <= 68719476736 (bytes of x)", "4 * n <= 68719476736 (bytes of out)")


# --------------------------------------------------------------------------------------------------
# Races and barriers


SHARED_SWAP = """
__global__ void swap_pairs(const float* x, float* out) {
  __shared__ float s[128];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * 128;
  s[t] = x[base + t];
  %s
  out[base + t] = s[t ^ 1];
}
"""
SWAP_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[rows, 128]"},
    outputs={"out": "f32[rows, 128]"},
    symbols=["rows"],
    grid=["rows"],
    block=[128],
)


def test_shared_memory_exchange_needs_its_barrier(tmp_path: Path) -> None:
    good = prove(tmp_path, SHARED_SWAP % "__syncthreads();", "swap_pairs", **SWAP_TASK)
    assert statuses(good) == ("proved",) * 4
    bad = prove(tmp_path, SHARED_SWAP % "", "swap_pairs", **SWAP_TASK)
    r = bad[RACE]
    assert r.status is Status.REFUTED
    assert "race on shared s" in r.detail and "of the same block" in r.detail
    assert r.counterexample is not None and r.counterexample.instance == {"rows": 1}


TILES = """
__global__ void tiles(const float* x, float* out, int ntiles) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < %s; ++k) {
    s[t] = x[(size_t)k * 64 + t];
    __syncthreads();
    acc += s[63 - t];
    %s
  }
  out[t] = acc;
}
"""
TILES_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[ntiles, 64]"},
    outputs={"out": "f32[64]"},
    symbols=["ntiles"],
    constraints=["ntiles <= 100000"],
    grid=[1],
    block=[64],
)


def test_barriers_in_a_loop_with_a_uniform_trip_count(tmp_path: Path) -> None:
    good = prove(tmp_path, TILES % ("ntiles", "__syncthreads();"), "tiles", **TILES_TASK)
    assert statuses(good) == ("proved",) * 4
    # Without the second barrier, iteration k + 1 overwrites what a slower thread still reads.
    bad = prove(tmp_path, TILES % ("ntiles", ""), "tiles", **TILES_TASK)
    assert bad[RACE].status is Status.REFUTED
    assert bad[RACE].counterexample is not None and bad[RACE].counterexample.instance == {"ntiles": 2}
    assert bad[BARRIER].status is Status.PROVED


def test_barrier_in_a_loop_whose_trip_count_depends_on_the_thread(tmp_path: Path) -> None:
    res = prove(tmp_path, TILES % ("ntiles - (t & 1)", "__syncthreads();"), "tiles", **TILES_TASK)
    assert res[BARRIER].status is Status.REFUTED
    assert "divergence" in res[BARRIER].detail


BRANCH_BARRIER = """
__global__ void branch(float* out, int n) {
  __shared__ float s[256];
  if (%s) return;
  if (%s) {
    s[threadIdx.x] = 1.0f;
    __syncthreads();
  }
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}
"""
BRANCH_TASK: dict[str, Any] = dict(
    outputs={"out": "f32[blocks, 256]"},
    inputs={},
    bindings={"n": "blocks"},
    symbols=["blocks"],
    constraints=["blocks <= 1024"],
    grid=["blocks"],
    block=[256],
)


@pytest.mark.parametrize(
    ("exit_cond", "cond", "expected"),
    [
        ("false", "blockIdx.x % 2 == 0", Status.PROVED),  # the same for every thread of a block
        ("false", "threadIdx.x < 32", Status.REFUTED),  # divergent
        ("threadIdx.x >= 32", "threadIdx.x < 32", Status.PROVED),  # the other threads have exited
        ("threadIdx.x >= 64", "threadIdx.x < 32", Status.REFUTED),  # threads 32..63 wait elsewhere
    ],
)
def test_barrier_uniformity(tmp_path: Path, exit_cond: str, cond: str, expected: Status) -> None:
    res = prove(tmp_path, BRANCH_BARRIER % (exit_cond, cond), "branch", **BRANCH_TASK)
    assert res[BARRIER].status is expected, res[BARRIER].detail


REDUCE = """
__global__ void reduce(const float* x, float* out, int d) {
  extern __shared__ float red[];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int j = t; j < d; j += blockDim.x) acc += x[(size_t)blockIdx.x * d + j];
  red[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    %s
  }
  if (t == 0) out[blockIdx.x] = red[0];
}
"""
REDUCE_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536"],
    grid=["rows"],
    block=["min(next_pow2(d), 256)"],
    shared_bytes="4 * min(next_pow2(d), 256)",
)


def test_tree_reduction_over_a_symbolic_power_of_two_block(tmp_path: Path) -> None:
    good = prove(tmp_path, REDUCE % "__syncthreads();", "reduce", **REDUCE_TASK)
    assert statuses(good) == ("proved",) * 4
    bad = prove(tmp_path, REDUCE % "", "reduce", **REDUCE_TASK)
    assert bad[RACE].status is not Status.PROVED
    assert bad[BOUNDS].status is Status.PROVED


ATOMICS = """
__global__ void total(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
  %s
}
"""
ATOMICS_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    grid=["cdiv(n, 256)"],
    block=[256],
)


def test_atomics_do_not_race_with_atomics_but_with_plain_accesses(tmp_path: Path) -> None:
    assert prove(tmp_path, ATOMICS % "", "total", **ATOMICS_TASK)[RACE].status is Status.PROVED
    res = prove(tmp_path, ATOMICS % "if (i == 0) out[0] = 0.0f;", "total", **ATOMICS_TASK)
    assert res[RACE].status is Status.REFUTED


WARP = """
__global__ void warp_sum(const float* x, float* out) {
  float v = x[blockIdx.x * 64 + threadIdx.x];
  if (%s) v += __shfl_xor_sync(0xffffffffu, v, 1);
  out[blockIdx.x * 64 + threadIdx.x] = v;
}
"""
WARP_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[rows, 64]"},
    outputs={"out": "f32[rows, 64]"},
    symbols=["rows"],
    constraints=["rows <= 65536"],
    grid=["rows"],
    block=[64],
)


def test_warp_shuffles_must_be_reached_by_every_lane_of_their_mask(tmp_path: Path) -> None:
    assert prove(tmp_path, WARP % "threadIdx.x / 32 == 0", "warp_sum", **WARP_TASK)[BARRIER].status is Status.PROVED
    bad = prove(tmp_path, WARP % "threadIdx.x < 16", "warp_sum", **WARP_TASK)[BARRIER]
    assert bad.status is Status.REFUTED and "of the same warp" in bad.detail


# --------------------------------------------------------------------------------------------------
# Integer overflow


ROW_INDEX = """
__global__ void fill(float* out, int d) {
  %s i = %s + threadIdx.x;
  out[i] = 1.0f;
}
"""
ROW_INDEX_TASK: dict[str, Any] = dict(
    inputs={},
    outputs={"out": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 1024"],
    grid=["rows"],
    block=["d"],
)


def test_int32_row_offset_overflow_is_refuted_with_the_smallest_witness(tmp_path: Path) -> None:
    res = prove(tmp_path, ROW_INDEX % ("int", "blockIdx.x * d"), "fill", **ROW_INDEX_TASK)
    r = res[OVERFLOW]
    assert r.status is Status.REFUTED
    cex = r.counterexample
    assert cex is not None and cex.kind is CounterexampleKind.STATIC
    # blockIdx.x * d + threadIdx.x first exceeds 2^31 - 1 at (rows - 1) * d + d - 1 = 2^31, smallest
    # rows + d with d <= 1024: d = 1024, rows = 2^21 + 1.
    assert cex.instance == {"rows": 2**21 + 1, "d": 1024}
    assert "i32" in r.detail and "kernel.cu:3:" in r.detail
    assert cex.launch == "grid 2097153x1x1, block 1024x1x1"
    assert r.scope.constraints[0] == "d <= 1024"


def test_64_bit_row_offset_is_proved(tmp_path: Path) -> None:
    res = prove(tmp_path, ROW_INDEX % ("size_t", "(size_t)blockIdx.x * d"), "fill", **ROW_INDEX_TASK)
    assert statuses(res) == ("proved",) * 4


def test_narrowing_conversion_feeding_an_address_is_refuted(tmp_path: Path) -> None:
    res = prove(tmp_path, ROW_INDEX % ("int", "(long long)blockIdx.x * d"), "fill", **ROW_INDEX_TASK)
    r = res[OVERFLOW]
    assert r.status is Status.REFUTED and "conversion to i32" in r.detail


HASH = """
__global__ void hash(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = (unsigned)i * 2654435761u;
  if (i < n) out[i] = (float)(h >> 16);
}
"""


def test_unsigned_wrap_that_feeds_no_address_is_not_an_overflow(tmp_path: Path) -> None:
    res = prove(tmp_path, HASH, "hash", **{**COPY_TASK, "inputs": {}})
    assert res[OVERFLOW].status is Status.PROVED


def test_a_size_that_does_not_fit_its_int_parameter(tmp_path: Path) -> None:
    res = prove(tmp_path, COPY % "<", "copy", **{**COPY_TASK, "constraints": []})
    r = res[OVERFLOW]
    assert r.status is Status.REFUTED
    assert "passed as kernel parameter n: i32 does not fit" in r.detail
    assert r.counterexample is not None and r.counterexample.instance == {"n": 2**31}
    # The other obligations are proved for the sizes that fit, and say so.
    b = res[BOUNDS]
    assert b.status is Status.PROVED
    assert "n <= 2147483647 (fits kernel parameter n: i32)" in b.scope.constraints
    assert any(a.kind is AssumptionKind.TASK and "kernel parameter n" in a.text for a in b.assumptions)
    assert not any("fits kernel parameter" in c for c in r.scope.constraints)


# --------------------------------------------------------------------------------------------------
# Data-dependent addresses, unknowns and budgets


GATHER = """
__global__ void gather(const int* idx, const float* table, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[idx[i]];
}
"""


def test_index_tensor_ranges_are_assumed_and_listed(tmp_path: Path) -> None:
    base: dict[str, Any] = dict(
        outputs={"out": "f32[n]"},
        symbols=["n", "m"],
        constraints=["n <= 16777216", "m <= 16777216"],
        grid=["cdiv(n, 256)"],
        block=[256],
    )
    ranged = prove(tmp_path, GATHER, "gather", inputs={"idx": "i32[n] in [0, m)", "table": "f32[m]"}, **base)
    r = ranged[BOUNDS]
    assert r.status is Status.PROVED
    assert any(a.kind is AssumptionKind.TASK and a.text == "idx[i] in [0, m) for every i" for a in r.assumptions)
    free = prove(tmp_path, GATHER, "gather", inputs={"idx": "i32[n]", "table": "f32[m]"}, **base)
    u = free[BOUNDS]
    assert u.status is Status.UNKNOWN
    assert "read `table[idx[i]]`" in u.detail and "the value loaded at 4:" in u.detail


def test_other_obligation_kinds_are_unknown(tmp_path: Path) -> None:
    task = make_task(tmp_path, COPY % "<", "copy", **COPY_TASK)
    module = parse_source(task.source, kernel="copy")
    obs = [Obligation(ObligationKind.EQUIVALENCE, "out"), Obligation(ObligationKind.INIT), Obligation(BOUNDS)]
    results = prove_parametric(module, "copy", task, obs, BUDGET)
    assert [r.obligation for r in results] == obs
    assert results[0].status is Status.UNKNOWN and "not equivalence" in results[0].detail
    assert results[1].status is Status.UNKNOWN
    assert results[2].status is Status.PROVED


def test_an_exhausted_budget_is_unknown_never_proved(tmp_path: Path) -> None:
    task = make_task(tmp_path, ROWS % "<", "row_scale", **ROWS_TASK)
    module = parse_source(task.source, kernel="row_scale")
    results = prove_parametric(module, "row_scale", task, [Obligation(k) for k in KINDS], Budget(seconds=0.0))
    for r in results:
        if r.obligation.kind is BARRIER:
            assert r.status is Status.PROVED  # no barrier, nothing to decide
            continue
        assert r.status is Status.UNKNOWN, r
        assert "wall-clock safety net" in r.detail or "budget" in r.detail


def test_block_level_kernels_are_analysed(tmp_path: Path) -> None:
    # one program per element: in bounds, and with one program more, out of bounds (block-level
    # kernels in detail: test_parametric_blocks.py)
    module = parse_module(
        "kernel @k(%x: ptr<global f32>) level block {\n  store [ptradd(%x, blockIdx.x)], 0.0:f32;\n}\n"
    )
    task = Task(source=tmp_path / "k.py", kernel="k", outputs={"x": "f32[4]"}, grid=[4], block=[1])
    (r,) = prove_parametric(module, "k", task, [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.PROVED, r.detail
    task = Task(source=tmp_path / "k.py", kernel="k", outputs={"x": "f32[4]"}, grid=[5], block=[1])
    (r,) = prove_parametric(module, "k", task, [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.REFUTED, r.detail


def test_a_missing_kernel_is_unknown(tmp_path: Path) -> None:
    task = make_task(tmp_path, COPY % "<", "copy", **COPY_TASK)
    module = parse_source(task.source, kernel="copy")
    (r,) = prove_parametric(module, "nope", task.with_instances([{"n": 1}]), [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.PROVED  # the task's kernel name finds it
    (r,) = prove_parametric(module, "nope", _renamed(task, "other"), [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.UNKNOWN and "no kernel nope" in r.detail


def _renamed(task: Task, kernel: str) -> Task:
    import dataclasses

    t = dataclasses.replace(task)
    object.__setattr__(t, "kernel", kernel)
    return t


SYNCWARP = """
__global__ void warp_exchange(const float* x, float* out) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  s[t] = x[blockIdx.x * 64 + t];
  %s
  out[blockIdx.x * 64 + t] = s[t ^ 1];
}
"""


def test_syncwarp_orders_the_lanes_of_a_warp(tmp_path: Path) -> None:
    good = prove(tmp_path, SYNCWARP % "__syncwarp();", "warp_exchange", **WARP_TASK)
    assert statuses(good) == ("proved",) * 4
    bad = prove(tmp_path, SYNCWARP % "", "warp_exchange", **WARP_TASK)
    assert bad[RACE].status is Status.REFUTED
    partial = prove(tmp_path, SYNCWARP % "__syncwarp(0x0000ffffu);", "warp_exchange", **WARP_TASK)
    assert partial[RACE].status is Status.UNKNOWN and "partial mask" in partial[RACE].detail
    assert partial[BARRIER].status is Status.REFUTED  # lanes 16..31 never reach it


LOOPS = """
__global__ void loops(const float* x, float* out, int n) {
  %s
}
"""
LOOPS_TASK: dict[str, Any] = dict(
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    grid=[4],
    block=[128],
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a while loop whose increment is in its body
        (
            "int i = blockIdx.x * blockDim.x + threadIdx.x;"
            " while (i < n) { out[i] = x[i]; i += blockDim.x * gridDim.x; }",
            ("proved",) * 4,
        ),
        # a data-dependent break leaves the closed form of i intact
        (
            "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"
            " { if (x[i] < 0.0f) break; out[i] = x[i]; }",
            ("proved",) * 4,
        ),
        # an early exit of the threads past the end
        ("int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; out[i] = x[i];", ("proved",) * 4),
        # a grid-stride loop that forgot gridDim: the blocks write each other's elements
        (
            "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) out[i] = x[i];",
            ("proved", "refuted", "proved", "proved"),
        ),
    ],
)
def test_loop_forms(tmp_path: Path, body: str, expected: tuple[str, ...]) -> None:
    res = prove(tmp_path, LOOPS % body, "loops", **LOOPS_TASK)
    assert statuses(res) == expected, [r.detail for r in res.values()]


def test_the_prover_protocol(tmp_path: Path) -> None:
    from larkc.provers import Prover
    from larkc.provers.parametric import ParametricProver

    task = make_task(tmp_path, COPY % "<", "copy", **COPY_TASK)
    prover: Prover = ParametricProver(parse_source(task.source, kernel="copy"), "copy", task)
    (r,) = prover.prove([Obligation(RACE)], BUDGET)
    assert r.status is Status.PROVED and r.prover == prover.name


_ROW_SCALE = """\
__global__ void rowscale(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        int at = r * cols + c;
        y[at] = 2.0f * x[at];
    }
}
"""


def test_the_witness_does_not_depend_on_the_machines_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search for the smallest witness is bounded in z3's resource units, not in seconds: a machine so
    loaded that every clock reading is 1000 s after the last gets the witness a quiet one gets (which
    sizes a witness has decides whether it can be simulated, and so may decide the verdict)."""
    import itertools
    import time

    src = tmp_path / "rowscale.cu"
    src.write_text(_ROW_SCALE)
    task = Task(
        source=src, kernel="rowscale", inputs={"x": "f32[rows, cols]"}, outputs={"y": "f32[rows, cols]"},
        symbols=["rows", "cols"], constraints=["rows <= 65536", "cols <= 65536", "cols % 3 == 1"],
        instances=[{"rows": 2, "cols": 4}], grid=["rows"], block=[128],
    )  # fmt: skip
    module = parse_source(src)

    def witness() -> Mapping[str, int]:
        (r,) = prove_parametric(module, "rowscale", task, [Obligation(ObligationKind.OVERFLOW)], Budget())
        assert r.status is Status.REFUTED and r.counterexample is not None, r.detail
        return r.counterexample.instance

    quiet = witness()
    real = time.perf_counter
    ticks = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: real() + 1000.0 * next(ticks))
    assert witness() == quiet
    assert sum(quiet.values()) < 65536 + 32770  # minimised (the search ran), not z3's first model
