"""Device writes to ``__constant__`` memory are located errors (nvcc rejects them), however the pointer
gets there: directly, through a local pointer, through a device function, or by an atomic; reads through
any of those are fine."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda_harness import Cuda


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


_HEAD = "__constant__ int table[64];\n__device__ void put(int* q, int v) { q[0] = v; }\n"
_HEAD += "__device__ int get(const int* q) { return q[1]; }\n"
_HEAD += "__device__ int* step(int* q) { return q + 1; }\n"

_CASES = {  # the kernel's statement -> whether it writes to the __constant__ array
    "table[threadIdx.x] = in[threadIdx.x];": True,
    "int* p = &table[2]; p[threadIdx.x] = 1;": True,
    "int* p = in; p = table + 1; *p = 3;": True,
    "put(table + threadIdx.x, 4);": True,
    "put(step(table), 4);": True,
    "atomicAdd(&table[0], 1);": True,
    "int* p = threadIdx.x > 3 ? table : out; p[0] = 1;": True,
    # conservative: the check does not follow control flow, so a later assignment does not clear p
    "int* p = table; p = out; p[threadIdx.x] = 2;": True,
    "out[threadIdx.x] = table[threadIdx.x];": False,
    "const int* p = &table[1]; out[threadIdx.x] = p[threadIdx.x];": False,
    "int* p = &table[1]; out[threadIdx.x] = p[threadIdx.x];": False,
    "out[threadIdx.x] = get(table + threadIdx.x);": False,
}


@pytest.mark.parametrize(("body", "writes"), _CASES.items())
def test_a_write_to_constant_memory_is_a_located_error(cuda: Cuda, body: str, writes: bool) -> None:
    src = _HEAD + f"__global__ void k(int* in, int* out) {{\n  {body}\n  out[0] = table[0];\n}}\n"
    if not writes:
        kernel = next(f for f in cuda.lower(src).functions if f.name == "k")
        assert "table" in [p.name for p in kernel.params]
        return
    error = cuda.error(src)
    assert "unsupported write to __constant__ memory (nvcc rejects device writes to it): table" in error, error
    assert error.split(":")[0] == "6", error  # the kernel's statement (a call that writes: the call)


def test_a_verdict_lists_the_constant_initialisers_it_assumes(tmp_path: Path) -> None:
    import larkc

    src = tmp_path / "k.cu"
    src.write_text(
        "__constant__ float coef[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n__constant__ float given[4];\n"
        "__global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * coef[threadIdx.x % 4]; }\n"
    )
    task = larkc.command_line_task(src, "k", grid=["1"], block=["32"], buffers=["x=f32[32]", "y=f32[32]"])
    report = larkc.verify(task)
    texts = [a["text"] for a in report.to_json()["assumptions"]]
    assert any("__constant__ variable coef holds its initialiser" in t for t in texts), texts
    assert not any("given" in t for t in texts), texts  # no initialiser: an input of the kernel, not assumed
