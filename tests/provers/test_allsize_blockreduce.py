"""The all-size prover on the two-level block reduce (``blockReduceSum``: provers/segments.py, issue 21 item 4).

Each warp of a multi-warp block folds its lanes' strided partials with shuffles, lane 0 of every warp parks
its warp's sum in ``shared[warp]``, a barrier, and a warp reads ``lane < num_warps ? shared[lane] : 0`` and
folds again. The first level's per-warp results are a function ``P(w)`` (lane 0 of warp ``w`` after the
chain), the per-warp store is checked to be ``shared[tid / 32] = P(tid / 32)`` exactly where ``tid % 32 ==
0``, and the second level is replayed on the block's threads: the storing thread must hold every thread's
partial exactly once, which the partition rule matches against the row. A block size that is a term over the
sizes (``32 * min(cdiv(d, 32), 8)``, ``max(32, min(1024, next_pow2(d)))``) is proved once for each of the
finitely many values the constraints admit (z3 enumerates them, so the cases are exhaustive).

The kernels are written the way vLLM / FasterTransformer (xor butterfly, every warp reducing again) and Apex
(``__shfl_down_sync``, only warp 0 reducing again) write theirs. Wrong twins are never proved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc import load_task
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task
from larkc.provers import Budget
from larkc.provers.allsize import AllSizeAttempt, prove_allsize
from larkc.reference import trace_task
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET = Budget(seconds=120)

# vLLM / FasterTransformer style: a butterfly in every warp, and every warp reduces the parked sums again
# (warps other than the first read zeros), thread 0 writing the row's result.
BUTTERFLY_CU = """\
#define FINAL_MASK 0xffffffffu

template <typename T>
__device__ __forceinline__ T warpReduceSum(T val) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) val += __shfl_xor_sync(FINAL_MASK, val, mask, 32);
  return val;
}

template <typename T>
__device__ __forceinline__ T blockReduceSum(T val) {
  static __shared__ T shared[32];
  const int lane = threadIdx.x & 0x1f;
  const int wid = threadIdx.x >> 5;
  val = warpReduceSum<T>(val);
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = (threadIdx.x < (blockDim.x + 31) / 32) ? shared[lane] : (T)0.0f;
  val = warpReduceSum<T>(val);
  return val;
}

template <int THREADS>
__global__ void row_reduce_kernel(float* __restrict__ out, const float* __restrict__ input, const int hidden) {
  const float* row = input + (size_t)blockIdx.x * hidden;
  float partial = 0.0f;
  for (int idx = threadIdx.x; idx < hidden; idx += THREADS) partial += row[idx];
  const float total = blockReduceSum<float>(partial);
  if (threadIdx.x == 0) out[blockIdx.x] = total / hidden;
}
"""

BUTTERFLY_TASK = """\
from larkc import Task


def reference(x):
    return x.mean(dim=-1)


task = Task(
    source="kernel.cu",
    kernel="row_reduce_kernel",
    template_args={"THREADS": 256},
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 65536"],
    instances=[{"rows": 2, "d": 1}, {"rows": 3, "d": 300}],
    grid=["rows"],
    block=[256],
    bindings={"out": "out", "input": "x", "hidden": "d"},
)
"""

# Apex style: shuffles down, only warp 0 folds the parked sums; the block follows the row length.
DOWN_CU = """\
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void row_sumsq(const float* __restrict__ x, float* __restrict__ out, int cols) {
  __shared__ float partials[32];
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int warps = blockDim.x >> 5;
  const float* src = x + (size_t)blockIdx.x * cols;
  float acc = 0.0f;
  for (int c = tid; c < cols; c += blockDim.x) {
    const float v = src[c];
    acc += v * v;
  }
  acc = warp_sum(acc);
  if (lane == 0) partials[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = (lane < warps) ? partials[lane] : 0.0f;
    acc = warp_sum(acc);
    if (lane == 0) out[blockIdx.x] = acc;
  }
}
"""

DOWN_TASK = """\
from larkc import Task


def reference(x):
    return (x * x).sum(dim=-1)


task = Task(
    source="kernel.cu",
    kernel="row_sumsq",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 65536"],
    instances=[{"rows": 2, "d": 1}, {"rows": 3, "d": 300}],
    grid=["rows"],
    block=["BLOCK"],
    bindings={"cols": "d"},
)
"""

NEXT_POW2 = "max(32, min(1024, next_pow2(d)))"


def _write(folder: Path, cu: str, task: str, edits: tuple[tuple[str, str], ...], block: str = "") -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    for old, new in edits:
        assert cu.count(old) == 1, old
        cu = cu.replace(old, new)
    if block:
        task = task.replace('"BLOCK"', f'"{block}"').replace("[256]", f"[{block}]").replace(": 256", f": {block}")
    (folder / "kernel.cu").write_text(cu, encoding="utf-8")
    (folder / "task.py").write_text(task, encoding="utf-8")
    return load_task(folder)


def _attempt(task: Task) -> AllSizeAttempt:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    (a,) = prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen)
    return a


def test_the_butterfly_block_reduce_is_proved_for_every_size(tmp_path: Path) -> None:
    a = _attempt(_write(tmp_path, BUTTERFLY_CU, BUTTERFLY_TASK, ()))
    assert a.proved, a.detail
    assert a.covers_instances


@pytest.mark.parametrize("block", [NEXT_POW2, "32 * min(cdiv(d, 32), 16)"], ids=["next_pow2", "warps"])
def test_the_down_block_reduce_is_proved_for_every_block_size_the_sizes_give(block: str, tmp_path: Path) -> None:
    a = _attempt(_write(tmp_path, DOWN_CU, DOWN_TASK, (), block))
    assert a.proved, a.detail
    assert "for each block size the constraints admit" in a.detail
    assert a.covers_instances


def test_the_warp_example_is_proved_for_every_size() -> None:
    a = _attempt(load_task(EXAMPLES / "cuda/row_sum_warp"))
    assert a.proved, a.detail
    assert "blockDim.x = 32, 64, 96, 128, 160, 192, 224, 256" in a.detail


BUTTERFLY_TWINS: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    # only the first warp's lane 0 parks its sum: the other slots are never written
    "first warp only": ((("if (lane == 0) shared[wid]", "if (threadIdx.x == 0) shared[wid]"),), "256"),
    "no barrier between the levels": ((("  __syncthreads();\n", ""),), "256"),
    # every lane reads a slot, past the warps that stored one
    "unguarded second level": (
        (("(threadIdx.x < (blockDim.x + 31) / 32) ? shared[lane] : (T)0.0f", "shared[lane]"),),
        "256",
    ),
    # a block of 200 threads: the warp count by floor drops the partial warp (and its shuffles are undefined)
    "floor warp count, partial warp": ((("(blockDim.x + 31) / 32", "blockDim.x / 32"),), "200"),
    # lane 0 of every warp stores, but only the first warp read the parked sums (the others hold 0)
    "every warp stores the result": (
        (("if (threadIdx.x == 0) out[blockIdx.x]", "if ((threadIdx.x & 31) == 0) out[blockIdx.x]"),),
        "256",
    ),
    "half the warps read": ((("(blockDim.x + 31) / 32", "blockDim.x / 64"),), "256"),
    "first level from 8": ((("mask = 16;", "mask = 8;"),), "256"),
}


@pytest.mark.parametrize("key", sorted(BUTTERFLY_TWINS))
def test_wrong_twins_of_the_butterfly_block_reduce_are_never_proved(key: str, tmp_path: Path) -> None:
    edits, block = BUTTERFLY_TWINS[key]
    a = _attempt(_write(tmp_path, BUTTERFLY_CU, BUTTERFLY_TASK, edits, block))
    assert not a.proved, f"{key}: proved for every size: {a.detail}"


DOWN_TWINS: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    # blocks of 1 to 16 threads for short rows: a partial warp under full-mask shuffles
    "next_pow2 without the floor of 32": ((), "min(1024, next_pow2(d))"),
    # right for every block up to 512 threads (the rows the instances have), short by half the warps at 1024
    "warp count capped at 16": (
        (("const int warps = blockDim.x >> 5;", "const int warps = min(16, blockDim.x >> 5);"),),
        NEXT_POW2,
    ),
    # lane 1 of a down chain holds only lanes 1..31 of its warp (with xor every lane holds the warp's sum)
    "lane 1 parks": ((("if (lane == 0) partials[warp]", "if (lane == 1) partials[warp]"),), NEXT_POW2),
    # the second level reads its own partial instead of the parked sums
    "second level from the register": (
        (("acc = (lane < warps) ? partials[lane] : 0.0f;", "acc = (lane < warps) ? acc : 0.0f;"),),
        NEXT_POW2,
    ),
}


@pytest.mark.parametrize("key", sorted(DOWN_TWINS))
def test_wrong_twins_of_the_down_block_reduce_are_never_proved(key: str, tmp_path: Path) -> None:
    edits, block = DOWN_TWINS[key]
    a = _attempt(_write(tmp_path, DOWN_CU, DOWN_TASK, edits, block))
    assert not a.proved, f"{key}: proved for every size: {a.detail}"
