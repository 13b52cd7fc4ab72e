"""``larkc emit`` and the scopes of atomics: the Lean model's atomics are atomic towards every thread, so
a block-scoped atomic on memory other blocks reach is a located error, never a race-freedom theorem that
could be false; on shared memory (the block's own) and with device or system scope it is emitted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from larkc.errors import UnsupportedError
from larkc.pipeline.emit import emit_task
from larkc.tasks import Task, load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"
ATOMIC = "atomicAdd(out, cache[0]);"
SHARED_ADD = "cache[threadIdx.x] += cache[threadIdx.x + s];"


def _dot_product(tmp_path: Path, old: str, new: str) -> Task:
    """examples/cuda/dot_product with ``old`` replaced by ``new``."""
    base = load_task(EXAMPLES / "dot_product")
    text = base.source.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "kernel.cu"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return replace(base, source=path)


def test_a_block_scoped_atomic_on_global_memory_is_a_located_error(tmp_path: Path) -> None:
    task = _dot_product(tmp_path, ATOMIC, "atomicAdd_block(out, cache[0]);")
    with pytest.raises(UnsupportedError, match="block-scoped atomic in Lean lowering") as info:
        emit_task(task, tmp_path / "out")
    assert info.value.span is not None and info.value.span.line == 23
    assert "kernel.cu:23:" in info.value.render()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (ATOMIC, "atomicAdd_system(out, cache[0]);"),
        (SHARED_ADD, "atomicAdd_block(&cache[threadIdx.x], cache[threadIdx.x + s]);"),
    ],
    ids=["system-scope", "block-scope-on-shared"],
)
def test_device_system_and_shared_block_scoped_atomics_are_emitted(tmp_path: Path, old: str, new: str) -> None:
    project = emit_task(_dot_product(tmp_path, old, new), tmp_path / "out")
    assert any(rel.endswith("Theorems.lean") for rel, _ in project.files)


FENCED_TICKET = r"""
__global__ void ticket(const float* x, float* partials, unsigned int* count, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = x[blockIdx.x];
    __threadfence();
    unsigned int t = atomicInc(count, gridDim.x);
    __threadfence();
    is_last = t == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    float s = 0.0f;
    for (int b = 0; b < gridDim.x; b++) {
      s += partials[b];
    }
    out[0] = s;
  }
}
"""


def test_a_kernel_synchronising_blocks_through_fences_is_a_located_error(tmp_path: Path) -> None:
    # The simulator orders the last block's reads after the other blocks' writes (release and acquire
    # patterns); the Lean model orders nothing between blocks: its race-freedom theorem would be false.
    path = tmp_path / "kernel.cu"
    path.write_text(FENCED_TICKET, encoding="utf-8")
    task = Task(
        source=str(path),
        kernel="ticket",
        reference=lambda x: x.sum().reshape(1),
        inputs={"x": "f32[g]"},
        outputs={"out": "f32[1]"},
        scratch={"partials": "f32[g]", "count": (("1",), "u32", "zeros")},
        symbols=["g"],
        constraints=["g <= 64"],
        instances=[{"g": 4}],
        grid=["g"],
        block=[32],
    )
    with pytest.raises(UnsupportedError, match="fence with atomics between blocks in Lean lowering") as info:
        emit_task(task, tmp_path / "out")
    assert info.value.span is not None and info.value.span.line == 6
