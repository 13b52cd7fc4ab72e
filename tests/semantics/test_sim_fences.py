"""Happens-before between blocks through fences and atomics (PTX's release and acquire patterns): a
block's writes, then ``__threadfence()`` and an atomic (release), are ordered before the accesses of a
block whose atomic reads that value (or a later one of its release sequence), then ``__threadfence()``
(acquire), then ``__syncthreads()``. Anything less is a race."""

from __future__ import annotations

import pytest
from sim_helpers import Sim

# thread 0 of each block: WRITE; RELEASE; ticket = atomicInc; ACQUIRE; the block with the last ticket
# reads every block's value after a barrier
TEMPLATE = r"""
__global__ void last_block(float* vals, unsigned int* count, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    WRITE
    RELEASE
    unsigned int ticket = atomicInc(count, gridDim.x);
    ACQUIRE
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && threadIdx.x < gridDim.x) {
    out[threadIdx.x] = vals[threadIdx.x];
  }
}
"""
WRITE = "vals[blockIdx.x] = blockIdx.x + 1.0f;"
# thread 0 takes a ticket between two fences; after the barrier, is_last says whether it was the last
TICKET = """  if (threadIdx.x == 0) {
    __threadfence();
    unsigned int ticket = atomicInc(count, gridDim.x);
    __threadfence();
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();"""
FENCE = "__threadfence();"


def _run(sim: Sim, *, write: str = WRITE, release: str = FENCE, acquire: str = FENCE, grid: int = 4):
    src = TEMPLATE.replace("WRITE", write).replace("RELEASE", release).replace("ACQUIRE", acquire)
    buffers = {"vals": ("f32", grid, "empty"), "count": ("u32", 1), "out": ("f32", grid, "empty")}
    result = sim.run(sim.cuda(src), "last_block", grid=grid, block=32, buffers=buffers)
    return sim.kinds(result), result.buffers["out"].tolist(), [d.message for d in result.diagnoses]


def test_release_and_acquire_fences_order_the_last_blocks_reads(sim: Sim) -> None:
    kinds, out, _ = _run(sim)
    assert kinds == set() and out == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("scope", ["__threadfence_system();"])
def test_system_fences_order_them_too(sim: Sim, scope: str) -> None:
    assert _run(sim, release=scope, acquire=scope)[0] == set()


@pytest.mark.parametrize(
    ("write", "release", "acquire"),
    [
        pytest.param(WRITE, "", FENCE, id="no-release-fence"),
        pytest.param(WRITE, FENCE, "", id="no-acquire-fence"),
        pytest.param(WRITE, "__threadfence_block();", FENCE, id="block-scope-release-fence"),
        pytest.param(WRITE, FENCE, "__threadfence_block();", id="block-scope-acquire-fence"),
        pytest.param(f"{FENCE} {WRITE}", "", FENCE, id="write-after-the-release-fence"),
    ],
)
def test_without_both_patterns_the_reads_race(sim: Sim, write: str, release: str, acquire: str) -> None:
    kinds, _, messages = _run(sim, write=write, release=release, acquire=acquire)
    assert "race" in kinds
    assert any("read of global vals[" in m and "no release and acquire pattern orders them" in m for m in messages)


def test_a_fence_by_another_thread_releases_nothing_of_this_threads_writes(sim: Sim) -> None:
    src = r"""
__global__ void other_thread(float* vals, unsigned int* count, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 1) { vals[blockIdx.x] = 1.0f; }
TICKET
  if (is_last && threadIdx.x < gridDim.x) { out[threadIdx.x] = vals[threadIdx.x]; }
}
"""
    buffers = {"vals": ("f32", 2, "empty"), "count": ("u32", 1), "out": ("f32", 2, "empty")}
    result = sim.run(sim.cuda(src.replace("TICKET", TICKET)), "other_thread", grid=2, block=32, buffers=buffers)
    assert "race" in sim.kinds(result)


def test_a_barrier_before_the_fence_releases_the_whole_blocks_writes(sim: Sim) -> None:
    src = r"""
__global__ void whole_block(float* vals, unsigned int* count, float* out) {
  __shared__ bool is_last;
  vals[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
  __syncthreads();
TICKET
  if (is_last) {
    float s = 0.0f;
    for (int b = 0; b < gridDim.x; b++) { s += vals[b * blockDim.x + threadIdx.x]; }
    out[threadIdx.x] = s;
  }
}
"""
    buffers = {"vals": ("f32", 3 * 32, "empty"), "count": ("u32", 1), "out": ("f32", 32, "empty")}
    result = sim.run(sim.cuda(src.replace("TICKET", TICKET)), "whole_block", grid=3, block=32, buffers=buffers)
    assert sim.kinds(result) == set()
    assert result.buffers["out"].tolist() == [3.0 * t for t in range(32)]


OWN_READ = r"""
__global__ void own_read(float* vals, unsigned int* count, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    vals[blockIdx.x] = blockIdx.x + 1.0f;
    __threadfence();
    unsigned int ticket = atomicInc(count, gridDim.x);
    __threadfence();
    is_last = ticket == gridDim.x - 1;
    if (READER) {
      float s = 0.0f;
      for (int b = 0; b < gridDim.x; b++) { s += vals[b]; }
      out[0] = s;
    }
  }
}
"""


@pytest.mark.parametrize(
    ("reader", "race"),
    [("ticket == gridDim.x - 1", False), ("ticket == 0", True)],
    ids=["last-ticket", "first-ticket"],
)
def test_the_acquiring_thread_knows_at_once_what_it_acquired(sim: Sim, reader: str, race: bool) -> None:
    # the thread that took the last ticket reads right after its acquire fence, with no barrier: ordered;
    # the one that took the first ticket acquired nothing
    buffers = {"vals": ("f32", 3, "empty"), "count": ("u32", 1), "out": ("f32", 1, "empty")}
    result = sim.run(sim.cuda(OWN_READ.replace("READER", reader)), "own_read", grid=3, block=32, buffers=buffers)
    assert ("race" in sim.kinds(result)) is race
    if not race:
        assert result.buffers["out"].tolist() == [6.0]


RESET = r"""
__global__ void reset(float* vals, unsigned int* count, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    vals[blockIdx.x] = 1.0f;
    __threadfence();
    unsigned int ticket = ATOMIC;
    __threadfence();
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && threadIdx.x == RESETTER) {
    out[0] = vals[0];
    *count = 0;
  }
}
"""


@pytest.mark.parametrize(
    ("atomic", "resetter", "race"),
    [
        pytest.param("atomicInc(count, gridDim.x)", "0", False, id="by-the-thread-that-read-the-chain"),
        pytest.param("atomicInc(count, gridDim.x)", "1", False, id="by-its-block-after-the-barrier"),
        pytest.param(
            "blockIdx.x == 1 ? atomicInc_block(count, gridDim.x) : atomicInc(count, gridDim.x)",
            "0",
            True,
            id="chain-broken-by-a-block-scoped-atomic",
        ),
    ],
)
def test_a_plain_reset_after_reading_the_counter_atomically(sim: Sim, atomic: str, resetter: str, race: bool) -> None:
    # Every other block's atomicInc precedes the last one in PTX's observation order (a chain of
    # read-modify-writes), so the last block's plain reset of the counter is ordered after them
    src = RESET.replace("ATOMIC", atomic).replace("RESETTER", resetter)
    buffers = {"vals": ("f32", 3, "empty"), "count": ("u32", 1), "out": ("f32", 1, "empty")}
    result = sim.run(sim.cuda(src), "reset", grid=3, block=32, buffers=buffers)
    messages = [d.message for d in result.diagnoses if d.message.startswith("write of global count[0]")]
    assert bool(messages) is race, messages
    assert result.buffers["count"].tolist() == [0]


CHAIN = r"""
__global__ void chain(float* vals, unsigned int* first, unsigned int* second, float* out) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) { vals[0] = 1.0f; }
    __threadfence();
    if (blockIdx.x < 2) { atomicAdd(first, 1u); }
    MIDDLE
    if (blockIdx.x >= 1) {
      unsigned int seen = atomicAdd(second, 1u);
      __threadfence();
      if (blockIdx.x == 2 && seen == 1u) { out[0] = vals[0]; }
    }
  }
}
"""


@pytest.mark.parametrize(("middle", "race"), [("__threadfence();", False), ("", True)], ids=["fence", "no-fence"])
def test_happens_before_is_transitive_through_a_middle_block(sim: Sim, middle: str, race: bool) -> None:
    # block 0 releases on `first`; block 1 acquires it (atomic, then fence) and releases on `second`
    # (that fence, then an atomic); block 2 acquires `second` only: it knows block 0's write through
    # block 1, if block 1's middle fence makes both patterns
    buffers = {"vals": ("f32", 1, "empty"), "first": ("u32", 1), "second": ("u32", 1), "out": ("f32", 1, "empty")}
    result = sim.run(sim.cuda(CHAIN.replace("MIDDLE", middle)), "chain", grid=3, block=32, buffers=buffers)
    assert ("race" in sim.kinds(result)) is race, [d.message for d in result.diagnoses]
    assert result.buffers["out"].tolist() == [1.0]
