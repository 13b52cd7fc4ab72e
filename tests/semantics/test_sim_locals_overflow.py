"""The simulator's checks of uninitialised local variables and signed integer overflow (issue 10, item 5g)."""

from __future__ import annotations

import pytest
import torch
from sim_helpers import Sim


def _uninit(r: object) -> list[str]:
    return [d.render() for d in r.diagnoses if d.kind.value == "uninit"]  # type: ignore[attr-defined]


def test_read_of_a_variable_never_assigned_is_uninit(sim: Sim) -> None:
    src = """
__global__ void k(float* out, int n) {
  float acc;
  if (threadIdx.x < n) {
    acc = 1.0f;
  }
  out[threadIdx.x] = acc;
}
"""
    r = sim.cuda_run(src, "k", block=8, buffers={"out": ("f32", 8)}, scalars={"n": 3})
    lines = _uninit(r)
    assert len(lines) == 1, lines
    d = next(d for d in r.diagnoses if d.kind.value == "uninit")
    assert d.span is not None and (d.span.line, d.span.col) == (7, 22)  # the read of acc
    assert "read of variable acc by block (0,0,0) thread (3,0,0)" in d.message
    assert "declared without a value at line 3:" in d.message and d.count == 5  # threads 3..7
    assert sim.cuda_run(src, "k", block=8, buffers={"out": ("f32", 8)}, scalars={"n": 8}).ok


def test_variables_assigned_on_every_path_are_not_uninit(sim: Sim) -> None:
    src = """
__device__ void set(float& v, float x) { v = x; }

__global__ void k(float* out, const float* in, int n) {
  float a;
  float b;
  float c;
  int i;
  if (threadIdx.x % 2 == 0) { a = 1.0f; } else { a = 2.0f; }
  b = in[threadIdx.x];
  set(c, 3.0f);
  for (i = 0; i < n; ++i) { a += 1.0f; }
  out[threadIdx.x] = a + b + c + (float)i;
}
"""
    r = sim.cuda_run(src, "k", block=8, buffers={"out": ("f32", 8), "in": torch.ones(8)}, scalars={"n": 2})
    assert r.ok, [d.render() for d in r.diagnoses]
    assert r.buffers["out"].tolist() == [9.0, 10.0] * 4


def test_loop_condition_reading_an_unset_variable_is_uninit(sim: Sim) -> None:
    src = """
__global__ void k(int* out) {
  int limit;
  int s = 0;
  for (int i = 0; i < limit; ++i) { s += i; }
  out[threadIdx.x] = s;
}
"""
    r = sim.cuda_run(src, "k", block=4, buffers={"out": ("i32", 4)})
    lines = _uninit(r)
    assert lines and "read of variable limit" in lines[0] and ":5:" in lines[0]


@pytest.mark.parametrize(
    ("expr", "bad"),
    [
        ("a + b", {"a": 2147483647, "b": 1}),
        ("a - b", {"a": -2147483647, "b": 2}),
        ("a * b", {"a": 65536, "b": 65536}),
    ],
    ids=["add", "sub", "mul"],
)
def test_signed_int32_overflow_is_ub(sim: Sim, expr: str, bad: dict[str, int]) -> None:
    src = f"__global__ void k(int* out, int a, int b) {{ out[threadIdx.x] = {expr}; }}"
    m = sim.cuda(src)
    r = sim.run(m, "k", block=2, buffers={"out": ("i32", 2)}, scalars=bad)
    assert {d.kind.value for d in r.diagnoses} == {"ub"}
    d = r.diagnoses[0]
    assert "signed integer overflow" in d.message and d.count == 2 and d.span is not None and d.span.line == 1
    assert sim.run(m, "k", block=2, buffers={"out": ("i32", 2)}, scalars={"a": 1000, "b": 7}).ok


@pytest.mark.parametrize(
    ("expr", "a", "b"),
    [
        ("a + b", 2**62, 2**62),
        ("a - b", -(2**62), 2**62 + 1),
        ("a * b", 2**32, 2**31),
        ("a * b", -1, -(2**63)),
    ],
    ids=["add", "sub", "mul", "mul-min"],
)
def test_signed_int64_overflow_is_ub(sim: Sim, expr: str, a: int, b: int) -> None:
    src = f"__global__ void k(long long* out, long long a, long long b) {{ out[threadIdx.x] = {expr}; }}"
    m = sim.cuda(src)
    r = sim.run(m, "k", block=1, buffers={"out": ("i64", 1)}, scalars={"a": a, "b": b})
    assert {d.kind.value for d in r.diagnoses} == {"ub"} and "signed integer overflow" in r.diagnoses[0].message
    ok = sim.run(m, "k", block=1, buffers={"out": ("i64", 1)}, scalars={"a": 2**40, "b": -(2**20)})
    assert ok.ok


def test_unsigned_arithmetic_wraps_without_ub(sim: Sim) -> None:
    src = "__global__ void k(unsigned* out, unsigned a, unsigned b) { out[threadIdx.x] = a * b + a; }"
    r = sim.cuda_run(src, "k", block=1, buffers={"out": ("u32", 1)}, scalars={"a": 2**31, "b": 4})
    assert r.ok
    assert int(r.buffers["out"][0]) & 0xFFFFFFFF == 2**31
