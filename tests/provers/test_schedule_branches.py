"""Branches on an atomic's result (issue 19, red-team class C): which program draws the last ticket of a
counter is the schedule's choice, and the choices of the programs are not independent (exactly one draws
``N - 1``). The symbolic executor models an atomic's return as a fresh unknown per thread; if-converting
a branch on it with guarded stores merged arms no execution combines, and the "last program finishes"
sum came out as "out[0] depends on memory never written" (no program the last), FAILED with ``exact``
evidence the simulator contradicted.

Now the run stops at such a branch (UNKNOWN, "a branch on an atomic's result"), and an equivalence
refutation that is not a difference of values under exact arithmetic (an element never written, a
non-finite value) stands only when a run at the same inputs reproduces it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch

from larkc import Task
from larkc.pipeline.verify import VerifyReport, verify_task
from larkc.provers import Budget, ObligationKind, Status, Verdict

# A one-launch sum the way a CUDA programmer writes it after the threadFenceReduction sample: each block
# reduces its slice, thread 0 publishes the partial, fences, takes a ticket; the block with the last
# ticket adds the partials.
_TICKET_SUM = """
#define BLOCK 64

__global__ void sum_one_pass(const float* __restrict__ in, float* __restrict__ result, float* block_sums,
                             unsigned int* arrivals, int n) {
  __shared__ float buf[BLOCK];
  __shared__ bool finisher;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) buf[threadIdx.x] += buf[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = buf[0];
    __threadfence();
    unsigned int arrived = atomicAdd(arrivals, 1u);
    __threadfence();
    finisher = arrived == COUNT;
  }
  __syncthreads();
  if (finisher && threadIdx.x == 0) {
    float total = 0.0f;
    for (int b = 0; b < gridDim.x; ++b) total += block_sums[b];
    result[0] = total;
  }
}
"""

# The Triton form: each program stores its partial, bumps the counter (acq_rel by default) and the
# program that sees nprog - 1 adds the other programs' partials to its own.
_LAST_PROGRAM = """
import triton
import triton.language as tl


@triton.jit
def sum_last_program(src_ptr, sums_ptr, done_ptr, dst_ptr, size, TILE: tl.constexpr, MAX_TILES: tl.constexpr):
    me = tl.program_id(0)
    tiles = tl.num_programs(0)
    idx = me * TILE + tl.arange(0, TILE)
    mine = tl.sum(tl.load(src_ptr + idx, mask=idx < size, other=0.0), axis=0)
    tl.store(sums_ptr + me, mine)
    seen = tl.atomic_add(done_ptr, 1SEM)
    if seen == LAST:
        t = tl.arange(0, MAX_TILES)
        others = tl.load(sums_ptr + t, mask=(t < tiles) & (t != me), other=0.0)
        tl.store(dst_ptr, tl.sum(others, axis=0) + mine)
"""


def _sum(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


def _cuda_task(tmp_path: Path, count: str, instances: list[dict[str, int]]) -> Task:
    src = tmp_path / "sum_one_pass.cu"
    src.write_text(_TICKET_SUM.replace("COUNT", count))
    return Task(
        source=src, kernel="sum_one_pass", reference=_sum,
        inputs={"in": "f32[n]"}, outputs={"result": "f32[1]"},
        scratch={"block_sums": "f32[cdiv(n, 64)]", "arrivals": (("1",), "u32", "zeros")},
        symbols=["n"], constraints=["n <= 4096"], instances=instances,
        grid=["cdiv(n, 64)"], block=[64], tolerance={"rtol": 1e-4, "atol": 1e-4},
    )  # fmt: skip


def _triton_task(tmp_path: Path, sem: str, last: str, instances: list[dict[str, int]]) -> Task:
    src = tmp_path / "sum_last_program.py"
    src.write_text(_LAST_PROGRAM.replace("SEM", sem).replace("LAST", last))
    return Task(
        source=src, kernel="sum_last_program", reference=_sum,
        inputs={"x": "f32[n]"}, outputs={"out": "f32[1]"},
        scratch={"sums": "f32[cdiv(n, 32)]", "done": (("1",), "i32", "zeros")},
        bindings={"src_ptr": "x", "sums_ptr": "sums", "done_ptr": "done", "dst_ptr": "out", "size": "n",
                  "TILE": 32, "MAX_TILES": 128},
        symbols=["n"], constraints=["n <= 4096"], instances=instances,
        grid=["cdiv(n, 32)"], block=[1], tolerance={"rtol": 1e-4, "atol": 1e-4},
    )  # fmt: skip


def _verify(task: Task, tmp_path: Path) -> VerifyReport:
    return verify_task(task, budget=Budget(seconds=120), replay_dir=tmp_path)


def _equivalence(report: VerifyReport) -> list[Status]:
    return [r.status for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]


def _not_failed(report: VerifyReport) -> None:
    text = "\n".join(report.render())
    assert report.verdict is not Verdict.FAILED, text
    assert Status.REFUTED not in _equivalence(report), text


def test_cuda_last_block_ticket_sum_is_not_failed(tmp_path: Path) -> None:
    """One block (the ticket is 0, the branch always taken) and three: was FAILED at one block."""
    report = _verify(_cuda_task(tmp_path, "gridDim.x - 1", [{"n": 50}, {"n": 150}]), tmp_path)
    _not_failed(report)
    assert any("a branch on an atomic's result" in r.detail for r in report.results), "\n".join(report.render())


def test_triton_last_program_sum_is_not_failed(tmp_path: Path) -> None:
    """One program and four. Besides equivalence, the race check: in lock-step no program's accesses were
    ordered before another's, so the last program's loads of the partials raced the stores the others
    published through the acq_rel ticket; a branch on an atomic's result now runs the programs one at a
    time, ordered by their atomics' release and acquire."""
    report = _verify(_triton_task(tmp_path, "", "tiles - 1", [{"n": 20}, {"n": 100}]), tmp_path)
    _not_failed(report)
    assert any("a branch on an atomic's result" in r.detail for r in report.results), "\n".join(report.render())


def test_cuda_counter_compared_with_the_wrong_count_is_never_verified(tmp_path: Path) -> None:
    """``arrived == gridDim.x`` never holds: ``result`` is never written (UNKNOWN today: the run stops at
    the branch, and no obligation the simulator checks sees an unwritten output of a task with scratch)."""
    report = _verify(_cuda_task(tmp_path, "gridDim.x", [{"n": 50}, {"n": 150}]), tmp_path)
    assert report.verdict is not Verdict.VERIFIED, "\n".join(report.render())


def test_triton_relaxed_counter_races(tmp_path: Path) -> None:
    """A relaxed increment orders no other program's partial before the last program's loads."""
    report = _verify(_triton_task(tmp_path, ', sem="relaxed"', "tiles - 1", [{"n": 100}]), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert "race" in report.kinds()


def test_triton_counter_compared_with_the_wrong_count_is_never_verified(tmp_path: Path) -> None:
    report = _verify(_triton_task(tmp_path, "", "tiles", [{"n": 20}, {"n": 100}]), tmp_path)
    assert report.verdict is not Verdict.VERIFIED, "\n".join(report.render())


# A data branch whose condition always holds but that the symbolic engine cannot decide: the element
# stored in its one arm is, symbolically, select(x*x + 1 > 0, 2x, <never written>).
_ALWAYS_TAKEN = """
__global__ void twice(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (v * v + 1.0f > 0.0f) {
      out[i] = 2.0f * v;
    }
  }
}
"""


def _branch_task(tmp_path: Path, reference: Callable[[torch.Tensor], torch.Tensor]) -> Task:
    src = tmp_path / "twice.cu"
    src.write_text(_ALWAYS_TAKEN)
    return Task(
        source=src, kernel="twice", reference=reference, inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"},
        symbols=["n"], constraints=["n <= 32"], instances=[{"n": 5}], grid=["1"], block=[32],
    )  # fmt: skip


def test_an_unwritten_refutation_the_simulator_contradicts_is_unknown(tmp_path: Path) -> None:
    """The symbolic run says an element may be never written; the simulator writes it: not confirmed,
    UNKNOWN (never ``exact`` evidence, which is for differences rounding hides)."""
    report = _verify(_branch_task(tmp_path, lambda x: 2 * x), tmp_path)
    text = "\n".join(report.render())
    assert report.verdict is not Verdict.FAILED, text
    eq = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq and all(r.status is not Status.REFUTED for r in eq), text


def test_a_value_difference_beside_the_same_branch_still_refutes(tmp_path: Path) -> None:
    """The same kernel against ``3 * x``: the simulator sees the difference, FAILED."""
    report = _verify(_branch_task(tmp_path, lambda x: 3 * x), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())


# The last program reads its own partial back through the block load, as the red-team case does: the
# scalar store (one thread) and the block load (many) are ordered by the barrier Triton puts behind a
# scalar atomic whose result is used. Without a used result there is no barrier, and the read-back of a
# global element another thread wrote races (issue 19, class 3).
_READ_OWN = """
import triton
import triton.language as tl


@triton.jit
def own_partial(src_ptr, sums_ptr, done_ptr, dst_ptr, size, TILE: tl.constexpr, MAX_TILES: tl.constexpr):
    me = tl.program_id(0)
    tiles = tl.num_programs(0)
    idx = me * TILE + tl.arange(0, TILE)
    tl.store(sums_ptr + me, tl.sum(tl.load(src_ptr + idx, mask=idx < size, other=0.0), axis=0))
    TAIL
"""

_TICKET_TAIL = """seen = tl.atomic_add(done_ptr, 1)
    if seen == tiles - 1:
        t = tl.arange(0, MAX_TILES)
        tl.store(dst_ptr, tl.sum(tl.load(sums_ptr + t, mask=t < tiles, other=0.0), axis=0))"""

_NO_TICKET_TAIL = """tl.atomic_add(done_ptr, 1)
    t = tl.arange(0, MAX_TILES)
    tl.store(dst_ptr, tl.sum(tl.load(sums_ptr + t, mask=t < tiles, other=0.0), axis=0))"""


def _own_task(tmp_path: Path, tail: str) -> Task:
    src = tmp_path / "own_partial.py"
    src.write_text(_READ_OWN.replace("TAIL", tail))
    return Task(
        source=src, kernel="own_partial", reference=_sum,
        inputs={"x": "f32[n]"}, outputs={"out": "f32[1]"},
        scratch={"sums": "f32[cdiv(n, 32)]", "done": (("1",), "i32", "zeros")},
        bindings={"src_ptr": "x", "sums_ptr": "sums", "done_ptr": "done", "dst_ptr": "out", "size": "n",
                  "TILE": 32, "MAX_TILES": 128},
        symbols=["n"], constraints=["n <= 32"], instances=[{"n": 20}],
        grid=["cdiv(n, 32)"], block=[1], tolerance={"rtol": 1e-4, "atol": 1e-4},
    )  # fmt: skip


def test_triton_last_program_reading_its_own_partial_is_not_failed(tmp_path: Path) -> None:
    _not_failed(_verify(_own_task(tmp_path, _TICKET_TAIL), tmp_path))


def test_a_scalar_atomic_whose_result_is_unused_orders_no_elements(tmp_path: Path) -> None:
    report = _verify(_own_task(tmp_path, _NO_TICKET_TAIL), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert "race" in report.kinds()
