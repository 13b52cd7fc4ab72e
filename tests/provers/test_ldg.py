"""``__ldg`` reads through the non-coherent read-only data cache (issue 19, red-team class D).

The cache is not kept coherent with the launch's own stores: the memory ``__ldg`` (or the PTX idiom
``ld.global.nc``) reads must be read-only for the whole kernel. A read through it of a location that any
thread of the launch writes during the kernel, before or after, in any block, with or without a barrier
between, is a race: ``larkc run`` reports it, the bounded prover refutes it at an instance, and the
parametric prover refutes it for all sizes. ``__ldg`` of the inputs a kernel only reads stays VERIFIED.

The kernels are written here as library code is, one file per test (``tmp_path``).
"""

from __future__ import annotations

from pathlib import Path

import torch

from larkc import Task
from larkc.frontends import parse_task
from larkc.ir.nodes import Load
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_module
from larkc.ir.walk import walk_stmts
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import kernel_function, verify_task
from larkc.provers import Budget, Obligation, ObligationKind, ObligationResult, Status, Verdict
from larkc.provers.parametric import prove_parametric

#: The bias-add-and-GELU of an MLP forward, llm.c style: weights and inputs are read through __ldg.
BIAS_GELU = """
#include <cuda_runtime.h>

__global__ void bias_gelu_forward(float* out, const float* inp, const float* bias, int N, int OC) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N * OC) {
        float x = __ldg(&inp[idx]) + __ldg(&bias[idx % OC]);
        out[idx] = x > 0.0f ? x : 0.0f;
    }
}
"""

#: A stencil that first stages its input into scratch, then reads neighbours back through __ldg after a
#: barrier (the barrier orders coherent loads only).
STAGED_STENCIL = """
#include <cuda_runtime.h>

__global__ void smooth_staged(const float* __restrict__ x, float* stage, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage[i] = x[i];
    __syncthreads();
    if (i < n) {
        float left = i > 0 ? __ldg(&stage[i - 1]) : 0.0f;
        y[i] = left + __ldg(&stage[i]);
    }
}
"""

#: In place through the read-only cache: each thread reads its element with __ldg, then overwrites it
#: (the read comes first, and still the buffer is not read-only during the kernel).
INPLACE_SCALE = """
#include <cuda_runtime.h>

__global__ void scale_inplace(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * __ldg(&x[i]);
}
"""

#: A gather of rows through the PTX idiom of a hand-tuned kernel (ld.global.nc), of a read-only table.
ROW_GATHER_PTX = """
#include <cuda_runtime.h>

__device__ __forceinline__ float load_nc(const float* p) {
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void copy_nc(const float* __restrict__ src, float* __restrict__ dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = load_nc(src + i);
}
"""


def _source(tmp_path: Path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    return str(path)


def _bias_gelu(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, BIAS_GELU, "bias_gelu.cu"), kernel="bias_gelu_forward",
        reference=lambda inp, bias: torch.relu(inp + bias),
        inputs={"inp": "f32[rows, oc]", "bias": "f32[oc]"}, outputs={"out": "f32[rows, oc]"},
        bindings={"N": "rows", "OC": "oc"},
        symbols=["rows", "oc"], constraints=["rows <= 1024", "oc <= 1024"],
        instances=[{"rows": 2, "oc": 3}, {"rows": 3, "oc": 40}], grid=["cdiv(rows * oc, 128)"], block=[128],
    )  # fmt: skip


def _staged(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, STAGED_STENCIL, "smooth.cu"), kernel="smooth_staged",
        reference=lambda x: x + torch.cat([torch.zeros(1), x[:-1]]),
        inputs={"x": "f32[n]"}, outputs={"y": "f32[n]"}, scratch={"stage": "f32[n]"},
        symbols=["n"], constraints=["n <= 256"], instances=[{"n": 5}, {"n": 100}], grid=[1], block=[256],
    )  # fmt: skip


def _inplace(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, INPLACE_SCALE, "scale.cu"), kernel="scale_inplace",
        reference=lambda x: 3.0 * x,
        inputs={"x": "f32[n]"}, outputs={"x": "f32[n]"}, bindings={"a": 3.0},
        symbols=["n"], constraints=["n <= 65536"], instances=[{"n": 5}, {"n": 300}],
        grid=["cdiv(n, 128)"], block=[128],
    )  # fmt: skip


def _gather(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, ROW_GATHER_PTX, "copy_nc.cu"), kernel="copy_nc",
        reference=lambda src: src.clone(),
        inputs={"src": "f32[n]"}, outputs={"dst": "f32[n]"},
        symbols=["n"], constraints=["n <= 65536"], instances=[{"n": 5}, {"n": 300}],
        grid=["cdiv(n, 128)"], block=[128],
    )  # fmt: skip


def _race(results: tuple[ObligationResult, ...] | list[ObligationResult]) -> ObligationResult:
    (r,) = [r for r in results if r.obligation.name == "race"]
    return r


def _race_lines(task: Task, tmp_path: Path, instance: dict[str, int]) -> list[str]:
    report = run_task(task, instances=[instance], replay_dir=tmp_path / "replay", seeds=1)
    return [d.render() for inst in report.instances for d in inst.diagnoses if d.kind.value == "race"]


def test_ldg_is_a_non_coherent_load_in_the_ir_and_its_printed_form(tmp_path: Path) -> None:
    module = parse_task(_bias_gelu(tmp_path), {"rows": 2, "oc": 3})
    loads = [s for f in module.functions for s in walk_stmts(f.body) if isinstance(s, Load)]
    assert [ld.nc for ld in loads] == [True, True]
    text = print_module(module)
    assert text.count("load.nc [") == 2
    assert print_module(parse_module(text)) == text


def test_ldg_of_read_only_inputs_is_verified(tmp_path: Path) -> None:
    report = verify_task(_bias_gelu(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    assert _race(report.results).status is Status.PROVED


def test_ptx_non_coherent_load_of_a_read_only_table_is_verified(tmp_path: Path) -> None:
    report = verify_task(_gather(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_ldg_of_scratch_written_before_a_barrier_is_a_race(tmp_path: Path) -> None:
    task = _staged(tmp_path)
    lines = _race_lines(task, tmp_path, {"n": 5})
    assert any("smooth.cu:" in line and "read-only cache" in line for line in lines), lines
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert _race(report.results).status is Status.REFUTED


def test_parametric_prover_refutes_ldg_of_written_memory_for_all_sizes(tmp_path: Path) -> None:
    for task in (_staged(tmp_path), _inplace(tmp_path)):
        module = parse_task(task)
        f = kernel_function(task, module)
        (r,) = prove_parametric(module, f.name, task, [Obligation(ObligationKind.RACE)], Budget())
        assert r.status is Status.REFUTED and r.counterexample is not None, r.detail
        assert "read-only cache" in r.counterexample.message


def test_parametric_prover_proves_ldg_of_read_only_inputs(tmp_path: Path) -> None:
    task = _bias_gelu(tmp_path)
    module = parse_task(task)
    f = kernel_function(task, module)
    (r,) = prove_parametric(module, f.name, task, [Obligation(ObligationKind.RACE)], Budget())
    assert r.status is Status.PROVED, r.detail


def test_ldg_of_an_element_the_same_thread_overwrites_later_is_a_race(tmp_path: Path) -> None:
    task = _inplace(tmp_path)
    assert _race_lines(task, tmp_path, {"n": 5}), "run does not report the write after the __ldg"
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert _race(report.results).status is Status.REFUTED
