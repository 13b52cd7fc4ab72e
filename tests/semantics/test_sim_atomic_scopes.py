"""Scopes of atomics in the simulator: two atomics to one location are atomic towards each other only
if each one's scope includes the other's thread (PTX's "morally strong"); a block-scoped atomic
(``atomicAdd_block``) from another block races like a plain access."""

from __future__ import annotations

from pathlib import Path

import pytest
from sim_helpers import EXAMPLES, Sim

from larkc.cli import main
from larkc.ir.nodes import Atomic, Fence, MemScope
from larkc.ir.walk import walk_stmts

KERNELS = r"""
__global__ void block_scope(int* c) { atomicAdd_block(c, 1); }
__global__ void device_scope(int* c) { atomicAdd(c, 1); }
__global__ void system_scope(int* c) { atomicAdd_system(c, 1); __threadfence_system(); }
__global__ void mixed(int* c) {
  if (threadIdx.x % 2 == 0) { atomicAdd_block(c, 1); } else { atomicAdd(c, 1); }
}
__global__ void mixed_by_block(int* c) {
  if (blockIdx.x == 0) { atomicAdd_block(c, 1); } else { atomicAdd(c, 1); }
}
__global__ void shared_block_scope(int* out) {
  __shared__ int s;
  if (threadIdx.x == 0) { s = 0; }
  __syncthreads();
  atomicAdd_block(&s, 1);
  __syncthreads();
  if (threadIdx.x == 0) { atomicAdd(out, s); }
}
"""


def _run(sim: Sim, kernel: str, grid: int, block: int = 64) -> tuple[set[str], int, list[str]]:
    name = "out" if kernel == "shared_block_scope" else "c"
    result = sim.run(sim.cuda(KERNELS), kernel, grid=grid, block=block, buffers={name: ("i32", 1)})
    return sim.kinds(result), int(result.buffers[name][0]), [d.message for d in result.diagnoses]


def test_the_frontend_gives_atomics_and_fences_their_scope(sim: Sim) -> None:
    module = sim.cuda(KERNELS)
    scopes = {
        f.name: [(type(s).__name__, s.scope) for s in walk_stmts(f.body) if isinstance(s, Atomic | Fence)]
        for f in module.functions
    }
    assert scopes["block_scope"] == [("Atomic", MemScope.BLOCK)]
    assert scopes["device_scope"] == [("Atomic", MemScope.DEVICE)]
    assert scopes["system_scope"] == [("Atomic", MemScope.SYSTEM), ("Fence", MemScope.SYSTEM)]


def test_block_scoped_atomics_from_two_blocks_on_one_element_race(sim: Sim) -> None:
    kinds, _, messages = _run(sim, "block_scope", grid=2)
    assert kinds == {"race"}
    assert any("block-scoped atomic" in m and "atomic only towards its own block" in m for m in messages)


def test_block_scoped_atomics_within_one_block_do_not_race(sim: Sim) -> None:
    kinds, count, _ = _run(sim, "block_scope", grid=1, block=256)
    assert kinds == set() and count == 256


@pytest.mark.parametrize("kernel", ["device_scope", "system_scope"])
def test_device_and_system_scoped_atomics_across_blocks_do_not_race(sim: Sim, kernel: str) -> None:
    kinds, count, _ = _run(sim, kernel, grid=4)
    assert kinds == set() and count == 4 * 64


def test_block_and_device_scoped_atomics_in_one_block_do_not_race(sim: Sim) -> None:
    kinds, count, _ = _run(sim, "mixed", grid=1)
    assert kinds == set() and count == 64


def test_a_block_scoped_atomic_and_a_device_one_of_another_block_race(sim: Sim) -> None:
    kinds, _, messages = _run(sim, "mixed_by_block", grid=2)
    assert kinds == {"race"}
    assert any("atomic only towards its own block" in m for m in messages)


def test_block_scoped_atomics_on_shared_memory_never_race_between_blocks(sim: Sim) -> None:
    kinds, count, _ = _run(sim, "shared_block_scope", grid=3)
    assert kinds == set() and count == 3 * 64


def test_larkc_run_fails_the_counts_merged_with_block_scoped_atomics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["run", str(EXAMPLES / "channel_positive_count"), "--replay-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert (
        main(["run", str(EXAMPLES / "channel_positive_count_bug_block_scope_global"), "--replay-dir", str(tmp_path)])
        == 1
    )
    out = capsys.readouterr().out
    assert "block-scoped atomic of global counts[" in out and "atomic only towards its own block" in out


PROGRAMS = """
kernel @cta(%c: ptr<global i32>) level block {
  let %o: i32;
  %o = atomic.add.acq_rel.SCOPE [%c], 1:i32;
}
"""


@pytest.mark.parametrize(("scope", "race"), [("block", True), ("system", False)])
def test_a_cta_scoped_triton_atomic_races_with_other_programs(sim: Sim, scope: str, race: bool) -> None:
    # Triton's scope="cta" is the IR's block scope: each program is a CTA of its own
    module = sim.ir(PROGRAMS.replace(".SCOPE", "" if scope == "device" else f".{scope}"))
    result = sim.run(module, "cta", grid=3, block=1, buffers={"c": ("i32", 1)})
    assert ("race" in sim.kinds(result)) is race
    assert int(result.buffers["c"][0]) == 3
