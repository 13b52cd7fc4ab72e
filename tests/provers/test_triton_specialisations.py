"""A Triton kernel is a family of specialisations (constexprs such as ``BLOCK = next_power_of_2(n_cols)``
folded in, integer arguments typed i32 or i64 by their values): a claim "for all sizes" must hold for
every specialisation the task's constraints admit, a counterexample is confirmed at its own
specialisation, an overflow on masked-off lanes whose value is never used is no overflow, and a declared
index range that reaches past a table refutes (issue 19, classes 4, 6, 7 and 10).

The kernels are written the way Triton tutorials and libraries write them, from scratch.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import torch

from larkc.frontends import parse_task
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import kernel_function, verify_task
from larkc.provers import Budget, CounterexampleKind, Obligation, ObligationKind, ScopeKind, Status, Verdict
from larkc.provers.parametric import prove_parametric
from larkc.tasks import Task, parse_shape_expr

BOUNDS, OVERFLOW = ObligationKind.BOUNDS, ObligationKind.OVERFLOW
BUDGET = Budget(seconds=60, solver_rlimit=20_000_000)

# A row softmax as the Triton tutorial writes it, one program per row, BLOCK_SIZE the next power of two
# of the row length; the load forgets its mask (the store keeps it).
SOFTMAX = """
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    row = tl.load(input_ptrs%LOADMASK)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)
"""
MASKED_LOAD = ', mask=col_offsets < n_cols, other=-float("inf")'


def _softmax_reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def _softmax_task(tmp_path: Path, load_mask: str, instances: list[dict[str, int]]) -> Task:
    src = tmp_path / "softmax.py"
    src.write_text(SOFTMAX.replace("%LOADMASK", load_mask))
    return Task(
        source=src,
        kernel="softmax_kernel",
        reference=_softmax_reference,
        inputs={"x": "f32[r, d]"},
        outputs={"y": "f32[r, d]"},
        bindings={
            "output_ptr": "y",
            "input_ptr": "x",
            "input_row_stride": "d",
            "output_row_stride": "d",
            "n_cols": "d",
            "BLOCK_SIZE": "next_pow2(d)",
        },
        symbols=["r", "d"],
        constraints=["d <= 1024", "r <= 4096"],
        instances=instances,
        grid=["r"],
        block=[1],
    )


def test_an_unmasked_load_past_every_row_of_non_power_of_two_length_fails(tmp_path: Path) -> None:
    # every instance has a power-of-two row length, where the missing mask does no harm: only a proof
    # that covers every specialisation BLOCK_SIZE = next_pow2(d) the constraints admit finds the bug
    task = _softmax_task(tmp_path, "", [{"r": 2, "d": 1}, {"r": 3, "d": 64}])
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.status is Status.REFUTED
    cx = bounds.counterexample
    assert cx is not None and cx.instance["d"] & (cx.instance["d"] - 1), cx.instance  # not a power of two
    # confirmed by the simulator at the witness's own specialisation (BLOCK_SIZE = next_pow2(d) there)
    assert cx.kind is CounterexampleKind.CONFIRMED, cx.message


def test_the_masked_softmax_is_verified_for_every_specialisation(tmp_path: Path) -> None:
    task = _softmax_task(tmp_path, MASKED_LOAD, [{"r": 2, "d": 1}, {"r": 3, "d": 5}])
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.scope.kind is ScopeKind.PARAMETRIC
    # for all sizes: no constraint pins BLOCK_SIZE to the value of one instance
    assert not any("next_pow2(d) =" in c for c in bounds.scope.constraints), bounds.scope.constraints
    assert "11 specialisations" in bounds.detail, bounds.detail  # next_pow2(d) in 1, 2, ..., 1024


def test_a_correct_kernel_is_not_refuted_at_another_specialisation(tmp_path: Path) -> None:
    # rows are a power of two long (the task says so), so the unmasked load is in bounds: a witness of the
    # BLOCK_SIZE = 64 module at d = 1 is not an execution (Triton runs BLOCK_SIZE = 1 there)
    task = _softmax_task(tmp_path, "", [{"r": 2, "d": 64}])
    task = dataclasses.replace(task, constraints=(*task.constraints, parse_shape_expr("d == next_pow2(d)")))
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_one_specialisation_is_not_all_sizes(tmp_path: Path) -> None:
    # the prover given one module (BLOCK_SIZE = 1, lowered at d = 1) proves bounds for the sizes of that
    # specialisation only, and its scope must say so
    task = _softmax_task(tmp_path, "", [{"r": 2, "d": 1}])
    module = parse_task(task)
    f = kernel_function(task, module)
    (r,) = prove_parametric(module, f.name, task, [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.PROVED, r.detail
    assert "next_pow2(d) = 1 (constexpr BLOCK_SIZE of this specialisation)" in r.scope.constraints
    assert "for all sizes of this specialisation" in r.detail, r.detail
    # a model of this specialisation has next_pow2(d) = 1: d = 1 (the fact constrains d, it is not vacuous)
    task64 = _softmax_task(tmp_path, "", [{"r": 2, "d": 64}])
    module = parse_task(task64)
    (r,) = prove_parametric(module, f.name, task64, [Obligation(BOUNDS)], BUDGET)
    assert r.status is Status.REFUTED, r.detail
    assert r.counterexample is not None and 33 <= r.counterexample.instance["d"] < 64, r.counterexample.instance


def test_shape_instances_choose_the_specialisation(tmp_path: Path) -> None:
    # the task's instance has d = 2 (BLOCK_SIZE = 2); verified at d = 3 the kernel must be lowered with
    # BLOCK_SIZE = 4, not run with the task's first specialisation (two columns of three)
    task = _softmax_task(tmp_path, MASKED_LOAD, [{"r": 2, "d": 2}])
    report = verify_task(task, instances=[{"r": 2, "d": 3}], budget=BUDGET, replay_dir=tmp_path)
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.PROVED, eq.detail
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_shape_instances_choose_the_specialisation_of_larkc_run(tmp_path: Path) -> None:
    task = _softmax_task(tmp_path, MASKED_LOAD, [{"r": 2, "d": 2}])
    report = run_task(task, instances=[{"r": 2, "d": 3}], seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()


# Rotary embedding over (tokens, heads, head_dim) with the heads of a token in one block of HEADS rows:
# the rows past n_heads are masked off, but their offsets are computed (and may exceed int32) all the same.
ROTARY = """
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, sin_ptr, out_ptr, stride_tok, stride_head, n_heads,
                HALF: tl.constexpr, HEADS: tl.constexpr):
    tok = tl.program_id(0)
    h = tl.arange(0, HEADS)
    d = tl.arange(0, HALF)
    c = tl.load(cos_ptr + tok * HALF + d)
    s = tl.load(sin_ptr + tok * HALF + d)
    offs = tok * stride_tok + h[:, None] * stride_head + d[None, :]
    hmask = (h < n_heads)[:, None]
    x1 = tl.load(q_ptr + offs, mask=hmask, other=0.0)
    x2 = tl.load(q_ptr + offs + HALF, mask=hmask, other=0.0)
    tl.store(out_ptr + offs, x1 * c[None, :] - x2 * s[None, :], mask=hmask)
    tl.store(out_ptr + offs + HALF, x2 * c[None, :] + x1 * s[None, :], mask=hmask)
"""


def _rotary_task(tmp_path: Path, source: str, constraint: str) -> Task:
    src = tmp_path / "rope.py"
    src.write_text(source)
    return Task(
        source=src,
        kernel="rope_kernel",
        inputs={"q": "f32[t, h, 16]", "cos": "f32[t, 8]", "sin": "f32[t, 8]"},
        outputs={"out": "f32[t, h, 16]"},
        bindings={
            "q_ptr": "q",
            "cos_ptr": "cos",
            "sin_ptr": "sin",
            "out_ptr": "out",
            "stride_tok": "h * 16",
            "stride_head": 16,
            "n_heads": "h",
            "HALF": 8,
            "HEADS": 8,
        },
        symbols=["t", "h"],
        # the offsets of the heads that exist stay below 2^31; those of masked-off heads may not
        constraints=["h <= 8", constraint],
        instances=[{"t": 2, "h": 3}],
        grid=["t"],
        block=[1],
    )


def _parametric(task: Task, kinds: tuple[ObligationKind, ...]) -> dict[ObligationKind, Any]:
    module = parse_task(task)
    f = kernel_function(task, module)
    results = prove_parametric(module, f.name, task, [Obligation(k) for k in kinds], BUDGET)
    return {r.obligation.kind: r for r in results}


def test_overflow_on_masked_off_lanes_is_no_overflow(tmp_path: Path) -> None:
    task = _rotary_task(tmp_path, ROTARY, "t * h * 16 <= 2147483647")
    res = _parametric(task, (BOUNDS, OVERFLOW))
    assert res[BOUNDS].status is Status.PROVED, res[BOUNDS].detail
    assert res[OVERFLOW].status is Status.PROVED, res[OVERFLOW].detail


def test_overflow_used_by_a_mask_is_still_an_overflow(tmp_path: Path) -> None:
    # the mask is computed from the overflowing offsets themselves: a wrapped offset is negative, passes
    # the mask, and is loaded
    source = ROTARY.replace("hmask = (h < n_heads)[:, None]", "hmask = offs < n_heads * stride_head * (tok + 1)")
    task = _rotary_task(tmp_path, source, "t * h * 16 <= 2147483647")
    res = _parametric(task, (OVERFLOW,))
    assert res[OVERFLOW].status is Status.REFUTED, res[OVERFLOW].detail


# An embedding lookup: one program per token gathers its row of the table.
EMBEDDING = """
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(ids_ptr, weight_ptr, out_ptr, dim, BLOCK_D: tl.constexpr):
    tok = tl.program_id(0)
    idx = tl.load(ids_ptr + tok)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < dim
    row = tl.load(weight_ptr + idx * dim + cols, mask=mask)
    tl.store(out_ptr + tok * dim + cols, row, mask=mask)
"""


def _embedding_task(tmp_path: Path, ids: str) -> Task:
    src = tmp_path / "embedding.py"
    src.write_text(EMBEDDING)
    return Task(
        source=src,
        kernel="embedding_kernel",
        inputs={"ids": ids, "weight": "f32[v, 16]"},
        outputs={"out": "f32[t, 16]"},
        bindings={"ids_ptr": "ids", "weight_ptr": "weight", "out_ptr": "out", "dim": 16, "BLOCK_D": 16},
        symbols=["t", "v"],
        constraints=["t <= 4096", "v <= 65536"],
        instances=[{"t": 4, "v": 160}],
        grid=["t"],
        block=[1],
    )


def test_an_index_range_one_past_the_table_fails(tmp_path: Path) -> None:
    # "in [16, v + 1)": the top of the declared range, v, is one row past the table
    task = _embedding_task(tmp_path, "i32[t] in [16, v + 1)")
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.status is Status.REFUTED, bounds.detail
    cx = bounds.counterexample
    assert cx is not None
    # the witness: every id at the top of the declared range, v, one row past the table of v rows
    top = cx.instance["v"]
    assert f"every element of ids equal to {top}" in cx.message, cx.message
    assert cx.kind is CounterexampleKind.CONFIRMED, cx.message  # larkc run reads past the table


def test_an_index_range_inside_the_table_is_in_bounds(tmp_path: Path) -> None:
    task = _embedding_task(tmp_path, "i32[t] in [16, v)")
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is not Verdict.FAILED, "\n".join(report.render())
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.status is Status.PROVED and bounds.scope.kind is ScopeKind.PARAMETRIC, bounds.detail


# The same lookup in CUDA, one thread per token and feature.
CUDA_EMBEDDING = """
__global__ void embedding(const int* ids, const float* weight, float* out, int n_tokens, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_tokens * dim) {
    int tok = i / dim;
    out[i] = weight[ids[tok] * dim + i % dim];
  }
}
"""


def test_a_cuda_index_range_one_past_the_table_fails(tmp_path: Path) -> None:
    src = tmp_path / "embedding.cu"
    src.write_text(CUDA_EMBEDDING)
    task = Task(
        source=src,
        kernel="embedding",
        inputs={"ids": "i32[t] in [16, v + 1)", "weight": "f32[v, 16]"},
        outputs={"out": "f32[t, 16]"},
        bindings={"n_tokens": "t", "dim": 16},
        symbols=["t", "v"],
        constraints=["t <= 4096", "v <= 65536"],
        instances=[{"t": 4, "v": 160}],
        grid=["cdiv(t * 16, 128)"],
        block=[128],
    )
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.status is Status.REFUTED and bounds.counterexample is not None, bounds.detail
    assert f"every element of ids equal to {bounds.counterexample.instance['v']}" in bounds.counterexample.message


def test_a_given_module_is_one_specialisation_not_all_sizes(tmp_path: Path) -> None:
    # verify_task(module=...) (the mutation harness) lowers nothing itself, so it does not enumerate the
    # specialisations: the parametric proofs of the module given (BLOCK_SIZE = 8, lowered at d = 5) hold
    # for that specialisation's sizes only and are stated at the instances, never for all sizes
    task = _softmax_task(tmp_path, MASKED_LOAD, [{"r": 2, "d": 5}])
    report = verify_task(task, module=parse_task(task), budget=BUDGET, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    safety = [r for r in report.results if r.obligation.kind in (BOUNDS, ObligationKind.RACE, OVERFLOW)]
    assert safety and all(r.status is Status.PROVED for r in safety), "\n".join(report.render())
    assert all(r.scope.kind is ScopeKind.BOUNDED for r in safety), [(r.obligation.name, r.scope) for r in safety]
    assert any("single specialisation" in r.detail for r in safety), [r.detail for r in safety]
    # the same task lowered by verify_task itself is proved for every specialisation
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path)
    (bounds,) = [r for r in report.results if r.obligation.kind is BOUNDS]
    assert bounds.scope.kind is ScopeKind.PARAMETRIC, bounds.detail


def test_specialisations_left_open_for_one_reason_are_named_together() -> None:
    from larkc.provers.core import Obligation, ObligationKind, ObligationResult, Scope
    from larkc.provers.parametric import _over_specialisations

    ob = Obligation(ObligationKind.DEFINED)
    scope = Scope.parametric(["d"], [])
    per_spec = [
        (f"d = {k}", [ObligationResult(ob, Status.UNKNOWN if k < 40 else Status.PROVED, scope, "p", "")], [])
        for k in range(1, 41)
    ]
    per_spec[2] = ("d = 3", [ObligationResult(ob, Status.UNKNOWN, scope, "p", "z3 timed out")], [])
    r = _over_specialisations(0, ob, per_spec, "d = 1 .. 40", "")
    assert r.status is Status.UNKNOWN
    assert r.detail == (
        "specialisations d = 1 ... d = 39 (38 of them): not decided (the prover gave no reason);"
        " specialisation d = 3: z3 timed out"
    ), r.detail
