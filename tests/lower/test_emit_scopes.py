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
