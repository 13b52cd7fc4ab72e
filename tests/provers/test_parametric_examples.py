"""The parametric prover on the example corpus: what it proves, refutes and leaves unknown, per example.

For every example: a correct one is never refuted, a seeded bug whose failure is a bounds, race,
barrier or overflow one is never proved, and each refutation small enough to simulate is confirmed by
the simulator at the witness sizes. The examples listed in ``EXPECTED`` (the corpus when the prover was
written) must give exactly the listed statuses: every correct one is proved memory safe, race free,
barrier uniform and free of integer overflow for all sizes its task allows, and every such seeded bug
is refuted.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from larkc import load_task
from larkc.frontends import parse_task
from larkc.pipeline.run import run_instance
from larkc.provers import KIND_OF_FAILURE, Budget, Obligation, ObligationKind, ObligationResult, Status
from larkc.provers.parametric import prove_parametric
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"
TASK_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
KINDS = (ObligationKind.BOUNDS, ObligationKind.RACE, ObligationKind.BARRIER, ObligationKind.OVERFLOW)
BUDGET = Budget(seconds=60, solver_rlimit=20_000_000)
#: Instances the simulator replays: no tensor above this many elements.
SIMULATE_ELEMENTS = 1 << 16

#: Per example, the status of bounds, race, barrier and overflow: Proved, Refuted or Unknown.
EXPECTED = {
    "abs_max": "PPPP",
    "act_and_mul": "PPPP",
    "block_scan": "PPPP",
    "channel_positive_count": "PPPP",
    # atomicAdd_block from every block on one global counter: atomic only within a block
    "channel_positive_count_bug_block_scope_global": "PRPP",
    "dot_product": "PPPP",
    "dot_product_bug_racy_accum": "PRPP",
    "gelu_packed128": "PPPP",
    "gelu_tanh": "PPPP",
    "grid_stride": "PPPP",
    "half_relu": "PPPP",
    "half_scale": "PPPP",
    # The last block is chosen by the ticket an atomic returns (barriers under that condition: unknown);
    # blocks synchronise through fences and atomics, which the model does not order: never refuted.
    "last_block_sum": "PUUP",
    "last_block_sum_bug_no_release_fence": "PUUP",
    "layer_norm": "PPPP",
    "matmul_naive": "PPPP",
    "matmul_naive_bug_transposed_index": "PPPP",  # a mismatch, safe
    "matmul_tiled": "PPPP",
    "matmul_tiled_bug_missing_sync": "PRPP",
    "relu": "PPPP",
    "rms_norm": "PPPP",
    "rms_norm_bf16": "PPPP",
    "rms_norm_bug_eps_outside_sqrt": "PPPP",  # a mismatch, safe
    # The wrapped row offset is negative for the last rows (an out-of-bounds read) and repeats rows.
    "rms_norm_bug_index_overflow": "RRPR",
    "rotary_embedding": "PPPP",
    # The wrapped offset stays inside the buffer (2^32 elements are fewer than the tensor) but repeats.
    "rotary_embedding_bug_index_overflow": "PRPR",
    "row_max_cg": "PPPP",
    "row_sum_shared": "PPPP",
    "row_sum_shared_bug_missing_sync": "PRPP",
    "row_sum_warp": "PPPP",
    # Race freedom within a block is argued by barrier intervals, which need uniform barriers.
    "row_sum_warp_bug_sync_in_branch": "PURP",
    "row_sum_warp_bug_uninit_partials": "PPPP",  # reads of unwritten shared memory are not ours to judge
    "saxpy": "PPPP",
    "silu": "PPPP",
    "silu_and_mul": "PPPP",
    "softmax_online": "PPPP",
    "softmax_three_pass": "PPPP",
    "transpose_shared": "PPPP",
    "vector_add": "PPPP",
    "vector_add_bug_off_by_one": "RPPP",
    "vector_add_float4": "PPPP",
    "vector_add_float4_bug_no_tail": "RPPP",
}
LETTER = {"P": Status.PROVED, "R": Status.REFUTED, "U": Status.UNKNOWN}
SLOW = {"rotary_embedding_bug_index_overflow"}


@cache
def results(name: str) -> tuple[Task, dict[ObligationKind, ObligationResult]]:
    task = load_task(EXAMPLES / name)
    module = parse_task(task)
    out = prove_parametric(module, task.kernel, task, [Obligation(k) for k in KINDS], BUDGET)
    return task, {r.obligation.kind: r for r in out}


def test_the_expected_examples_exist() -> None:
    assert set(EXPECTED) <= {p.name for p in TASK_DIRS}


@pytest.mark.parametrize(
    "name",
    [pytest.param(p.name, marks=pytest.mark.slow) if p.name in SLOW else p.name for p in TASK_DIRS],
)
def test_example(name: str) -> None:
    task, res = results(name)
    got = "".join(res[k].status.value[0].upper() for k in KINDS)
    details = "\n".join(f"{k.value}: {res[k].status.value}: {res[k].detail}" for k in KINDS)
    if name in EXPECTED:
        assert got == EXPECTED[name], details
    failure = task.expected_failure
    if failure is None:
        assert "R" not in got, details  # a correct kernel is never refuted
    elif failure in ("oob", "race", "divergence", "overflow"):
        # A seeded safety bug is never proved, whatever else the prover can say.
        assert res[KIND_OF_FAILURE[failure]].status is not Status.PROVED, details
    for kind, r in res.items():
        if r.status is Status.REFUTED:
            assert r.counterexample is not None
            _confirm(task, kind, r)


def _confirm(task: Task, kind: ObligationKind, r: ObligationResult) -> None:
    """A refutation at sizes the simulator can run is reproduced by it."""
    assert r.counterexample is not None
    env = task.shape_env(r.counterexample.instance)
    sizes = [spec.concrete_shape(env) for spec in task.tensors.values()]
    if kind is ObligationKind.OVERFLOW or any(_count(s) > SIMULATE_ELEMENTS for s in sizes):
        return
    report, _ = run_instance(task, parse_task(task), env, seed=0)
    kinds = {d.kind.value for d in report.diagnoses}
    assert kind.failure_kind in kinds, f"{r.detail}: the simulator reports {kinds or 'nothing'} at {env}"


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def test_overflow_refutations_give_the_smallest_sizes_and_the_expression() -> None:
    _, rms = results("rms_norm_bug_index_overflow")
    r = rms[ObligationKind.OVERFLOW]
    assert r.counterexample is not None
    inst = r.counterexample.instance
    # (num_tokens - 1) * hidden_size + hidden_size - 1 >= 2^31 first, for the least sum of the two sizes.
    assert inst["num_tokens"] * inst["hidden_size"] > 2**31
    assert inst["num_tokens"] + inst["hidden_size"] <= 2 * 46341 + 2
    assert "overflows i32" in r.detail and "rms_norm_bug_index_overflow/kernel.cu:" in r.detail
    assert r.scope.constraints[0] == "hidden_size <= 65536"


@pytest.mark.slow
def test_the_rotary_offset_wraps_u32_with_the_widest_heads() -> None:
    _, rot = results("rotary_embedding_bug_index_overflow")
    r = rot[ObligationKind.OVERFLOW]
    assert r.counterexample is not None
    inst = r.counterexample.instance
    # token * 64 * 256 reaches 2^32 at token 2^18: the smallest sum of the sizes.
    assert (inst["num_tokens"], inst["num_heads"], inst["head_size"]) == (2**18 + 1, 64, 256)
    assert "`blockIdx.x * num_heads * head_size`" in r.detail and "wraps u32" in r.detail
