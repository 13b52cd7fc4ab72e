"""The all-size prover on block reductions: shared memory and warp shuffles (provers/segments.py; issue 21,
item 4).

One block per row, each thread a strided partial sum of the row, the partials combined by a shared-memory
tree, thread 0 storing ``sh[0]``: the tree's levels are matched as they run (each ``sh[tid] += sh[tid +
s]`` where ``tid < c``, a barrier after), replayed on the lanes, and slot 0 is ``Σ_{t<B}`` of the
threads' partials, which the partition rule matches against the reference's row sum. Proved for every
size: ``examples/cuda/row_sum_shared`` (a power-of-two block) and a guarded tree for a block of 96 threads.
Wrong twins (a tree that skips its last level or its first, a non-power-of-two block under the unguarded
tree, a level that adds the wrong slot, a barrier missing, a partition that drops the tail) are never
proved.

A warp per row (a block of 32 threads) whose lanes' strided partials are folded by `__shfl_down_sync` or
the `__shfl_xor_sync` butterfly: each shuffle's operand must be the previous one plus what the previous
shuffle returned (z3, for every lane), and the chain is replayed on the lanes for the lane that stores.
Wrong twins (the loop starting at 8, lane 1 storing the down-reduction) are never proved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from larkc import load_task
from larkc.pipeline.api import run
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task
from larkc.provers import Budget
from larkc.provers.allsize import AllSizeAttempt, prove_allsize
from larkc.reference import trace_task
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET = Budget(seconds=60)

# A block of any number of threads (a template constant, here 96): the tree's first stride is the largest
# power of two below it, and each level is guarded so that no thread reads past the block.
ANY_BLOCK_CU = """\
template <int THREADS>
__global__ void row_sum_any_block(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ float buf[THREADS];
  const int t = threadIdx.x;
  const float* src = x + (size_t)blockIdx.x * d;
  float s = 0.0f;
  for (int c = t; c < d; c += THREADS) s += src[c];
  buf[t] = s;
  __syncthreads();
  int top = 1;
  while (top * 2 < THREADS) top *= 2;
  for (int h = top; h > 0; h >>= 1) {
    if (t < h && t + h < THREADS) buf[t] += buf[t + h];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
"""

ANY_BLOCK_TASK = """\
from larkc import Task


def reference(x):
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_any_block",
    template_args={"THREADS": 96},
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 65536"],
    instances=[{"rows": 2, "d": 1}, {"rows": 3, "d": 200}],
    grid=["rows"],
    block=[96],
)
"""


def _any_block(folder: Path, old: str = "", new: str = "") -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    text = ANY_BLOCK_CU
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (folder / "kernel.cu").write_text(text, encoding="utf-8")
    (folder / "task.py").write_text(ANY_BLOCK_TASK, encoding="utf-8")
    return load_task(folder)


def _example(name: str, folder: Path, edits: tuple[tuple[str, str, str], ...] = ()) -> Task:
    dst = folder / name
    shutil.copytree(EXAMPLES / "cuda" / name, dst)
    for file, old, new in edits:
        text = (dst / file).read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        (dst / file).write_text(text.replace(old, new), encoding="utf-8")
    return load_task(dst)


def _attempt(task: Task) -> AllSizeAttempt:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    (a,) = prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen)
    return a


def test_the_shared_memory_tree_example_is_proved_for_every_size(tmp_path: Path) -> None:
    a = _attempt(load_task(EXAMPLES / "cuda/row_sum_shared"))
    assert a.proved, a.detail
    assert a.covers_instances
    assert a.seconds < 10


def test_a_guarded_tree_over_a_block_that_is_not_a_power_of_two_is_proved(tmp_path: Path) -> None:
    task = _any_block(tmp_path)
    assert run(task).ok
    a = _attempt(task)
    assert a.proved, a.detail


SHARED = "row_sum_shared"
WRONG_TWINS = {
    # (example edits, or None for the any-block kernel's edit), what the detail names
    "the tree skips its last level": (
        ((("kernel.cu", "stride > 0", "stride > 1"),), None),
        "without threads",
    ),
    "the tree skips its first level": (
        ((("kernel.cu", "stride = BLOCK / 2;", "stride = BLOCK / 4;"),), None),
        "without threads",
    ),
    "a block of 96 under the unguarded halving tree": (
        (
            (
                ("task.py", '"BLOCK": 256', '"BLOCK": 96'),
                ("task.py", "block=[256]", "block=[96]"),
            ),
            None,
        ),
        "without threads",
    ),
    "a level adds its own slot once more past d > 4096": (
        (
            (
                (
                    "kernel.cu",
                    "partial[tid] += partial[tid + stride];",
                    "partial[tid] += partial[tid + stride] + (d > 4096 ? partial[tid] : 0.0f);",
                ),
            ),
            None,
        ),
        "does not store",
    ),
    "the partition drops the tail when d > 4096 and d is odd": (
        ((("kernel.cu", "j < d; j += BLOCK", "j < (d > 4096 && d % 2 == 1 ? d - 1 : d); j += BLOCK"),), None),
        "differs",
    ),
    "the guarded tree starts one level too low": (
        ((), ("while (top * 2 < THREADS) top *= 2;", "while (top * 4 < THREADS) top *= 2;")),
        "without threads",
    ),
    "the guard of the 96-thread tree dropped": (
        ((), ("if (t < h && t + h < THREADS)", "if (t < h)")),
        "past the block",
    ),
}


@pytest.mark.parametrize("key", list(WRONG_TWINS))
def test_wrong_twins_of_the_tree_are_never_proved(key: str, tmp_path: Path) -> None:
    (edits, any_block), expected = WRONG_TWINS[key]
    task = _any_block(tmp_path, *any_block) if any_block else _example(SHARED, tmp_path, edits)
    a = _attempt(task)
    assert not a.proved, f"{key}: proved for every size: {a.detail}"
    assert expected in a.detail, a.detail


def test_a_missing_barrier_leaves_the_tree_unmatched() -> None:
    """Whether the levels race is the race obligation's; without the barrier the rule does not apply."""
    a = _attempt(load_task(EXAMPLES / "cuda/row_sum_shared_bug_missing_sync"))
    assert not a.proved
    assert "__syncthreads" in a.detail, a.detail


def test_the_partition_mutant_differs_where_the_prover_says(tmp_path: Path) -> None:
    """The dropped tail is quiet at the instances and seen by the simulator at the candidate sizes."""
    edit = ("kernel.cu", "j < d; j += BLOCK", "j < (d > 4096 && d % 2 == 1 ? d - 1 : d); j += BLOCK")
    task = _example(SHARED, tmp_path, (edit,))
    assert run(task).ok
    a = _attempt(task)
    assert not a.proved and a.candidate is not None, a.detail
    assert not run(task, instances=[dict(a.candidate)]).ok, a.candidate


WARP_CU = """\
__device__ __forceinline__ float warp_reduce_sum(float val) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    val += __shfl_down_sync(0xffffffffu, val, offset);
  }
  return val;
}

__global__ void row_sum_warp32(const float* __restrict__ x, float* __restrict__ out, int d) {
  const int lane = threadIdx.x;
  const float* xr = x + (size_t)blockIdx.x * d;
  float partial = 0.0f;
  for (int i = lane; i < d; i += 32) {
    partial += xr[i];
  }
  const float total = warp_reduce_sum(partial);
  if (lane == 0) {
    out[blockIdx.x] = total;
  }
}
"""

WARP_TASK = """\
from larkc import Task


def reference(x):
    return x.sum(dim=-1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_warp32",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 65536"],
    instances=[{"rows": 2, "d": 1}, {"rows": 3, "d": 100}],
    grid=["rows"],
    block=[32],
)
"""


def _warp(folder: Path, *edits: tuple[str, str]) -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    text = WARP_CU
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (folder / "kernel.cu").write_text(text, encoding="utf-8")
    (folder / "task.py").write_text(WARP_TASK, encoding="utf-8")
    return load_task(folder)


XOR = ("__shfl_down_sync", "__shfl_xor_sync")


@pytest.mark.parametrize("edits", [(), (XOR,)], ids=["down", "xor butterfly"])
def test_a_warp_shuffle_reduction_is_proved_for_every_size(edits: tuple[tuple[str, str], ...], tmp_path: Path) -> None:
    task = _warp(tmp_path, *edits)
    assert run(task).ok
    a = _attempt(task)
    assert a.proved, a.detail
    assert a.covers_instances


WARP_TWINS = {
    "down from 8": (("offset = 16", "offset = 8"),),
    "xor from 8": (XOR, ("offset = 16", "offset = 8")),
    "lane 1 stores the down reduction": (("if (lane == 0)", "if (lane == 1)"),),
    "one shuffle of another value": (
        (
            "val += __shfl_down_sync(0xffffffffu, val, offset);",
            "val += __shfl_down_sync(0xffffffffu, val * 2.0f, offset);",
        ),
    ),
}


@pytest.mark.parametrize("key", list(WARP_TWINS))
def test_wrong_twins_of_the_warp_reduction_are_never_proved(key: str, tmp_path: Path) -> None:
    task = _warp(tmp_path, *WARP_TWINS[key])
    assert not run(task).ok  # each is wrong at the instances already: the rule must not prove them anyway
    a = _attempt(task)
    assert not a.proved, f"{key}: proved for every size: {a.detail}"


def test_a_multi_warp_block_reduction_with_a_shuffle_stored_by_one_lane_is_not_claimed(tmp_path: Path) -> None:
    """In a block of several warps, lane 0 of warp 0 holds its own warp's sum only: storing it as the row's
    sum is not proved (the two-level block reduce is test_allsize_blockreduce.py's)."""
    _warp(tmp_path, ("i += 32", "i += 64"))
    text = (tmp_path / "task.py").read_text(encoding="utf-8").replace("block=[32]", "block=[64]")
    (tmp_path / "task.py").write_text(text, encoding="utf-8")
    a = _attempt(load_task(tmp_path))
    assert not a.proved


# Thread 0 adds the parked partials in order (the sequential combine).
SEQUENTIAL_CU = """\
template <int BLOCK>
__global__ void row_sum_shared(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ float partial[BLOCK];
  const float* row = x + (size_t)blockIdx.x * d;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < d; j += BLOCK) acc += row[j];
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int t = 0; t < BLOCK; ++t) total += partial[t];
    out[blockIdx.x] = total;
  }
}
"""


def _sequential(folder: Path, old: str = "", new: str = "") -> Task:
    _example(SHARED, folder)  # the example's task (BLOCK = 256, block 256), this kernel
    text = SEQUENTIAL_CU
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (folder / SHARED / "kernel.cu").write_text(text, encoding="utf-8")
    return load_task(folder / SHARED)


def test_the_sequential_combine_is_proved_for_every_size(tmp_path: Path) -> None:
    task = _sequential(tmp_path)
    assert run(task).ok
    a = _attempt(task)
    assert a.proved, a.detail


SEQUENTIAL_TWINS = {
    "the last slot skipped": ("t < BLOCK; ++t", "t < BLOCK - 1; ++t"),
    "the first slot skipped": ("int t = 0;", "int t = 1;"),
    "every other slot read twice": ("total += partial[t]", "total += partial[t / 2 * 2]"),
    "no barrier before the combine": ("  __syncthreads();\n", ""),
}


@pytest.mark.parametrize("key", list(SEQUENTIAL_TWINS))
def test_wrong_twins_of_the_sequential_combine_are_never_proved(key: str, tmp_path: Path) -> None:
    a = _attempt(_sequential(tmp_path, *SEQUENTIAL_TWINS[key]))
    assert not a.proved, f"{key}: proved for every size: {a.detail}"
