"""Launch validity is an obligation (issue 19, red-team class A), decided for every size the task allows.

A launch CUDA refuses (too many threads for the block or for the kernel's ``__launch_bounds__``, a grid
dimension past 65535, more shared memory than any GPU gives a block) never runs the kernel: the other
obligations are about valid launches, and the ``launch`` obligation shows that every launch the task's
constraints allow is one. z3 searches the allowed sizes for an invalid launch: none is a proof for all
sizes; the smallest one found is evaluated concretely, which shows the violation exactly (a confirmed
refutation). The task's own instances stay bad input when they cannot launch (``larkc run``'s "bad
launch").

The kernels are written here as library code is, one file per test (``tmp_path``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc import Task
from larkc.errors import LarkcError
from larkc.frontends import parse_task
from larkc.pipeline.verify import obligations_of, verify_task
from larkc.provers import Budget, CounterexampleKind, Obligation, ObligationKind, ScopeKind, Status, Verdict
from larkc.provers.parametric import prove_parametric, prove_parametric_family

LAUNCH = Obligation(ObligationKind.LAUNCH)

#: A row sum staging its row in dynamic shared memory (one float per column), one block per row.
ROW_SUM_STAGED = """
#include <cuda_runtime.h>

__global__ void row_sum_staged(const float* __restrict__ x, float* __restrict__ out, int d) {
    extern __shared__ float buf[];
    const float* row = x + (size_t)blockIdx.x * d;
    for (int c = threadIdx.x; c < d; c += blockDim.x) buf[c] = row[c];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += buf[c];
        out[blockIdx.x] = s;
    }
}
"""

#: A row max tuned for 128 threads per block; the host sizes blocks by the row, up to 256 threads.
ROW_MAX_BOUNDED = """
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) row_max(const float* __restrict__ x, float* __restrict__ out, int d) {
    float m = -3.4e38f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * d + c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}
"""

#: An elementwise scale over a 2-D grid of 64 x 16 tiles: blockIdx.y walks the rows in groups of 16.
SCALE_2D = """
#include <cuda_runtime.h>

__global__ void scale_2d(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * 16 + threadIdx.y;
    if (r < rows && c < cols) y[(size_t)r * cols + c] = 2.0f * x[(size_t)r * cols + c];
}
"""

#: A Triton row-wise scale: axis 0 tiles a row, axis 1 is the row.
TRITON_ROWS = """import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + row * n + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n + offs, x * 2.0, mask=mask)
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _staged(tmp_path: Path, max_d: int) -> Task:
    return Task(
        source=_write(tmp_path, "staged.cu", ROW_SUM_STAGED), kernel="row_sum_staged",
        reference=lambda x: x.sum(dim=1), inputs={"x": "f32[rows, d]"}, outputs={"out": "f32[rows]"},
        symbols=["rows", "d"], constraints=[f"d <= {max_d}", "rows <= 1024"],
        instances=[{"rows": 2, "d": 5}, {"rows": 1, "d": 40}],
        grid=["rows"], block=[32], shared_bytes="4 * d", tolerance={"rtol": 1e-4, "atol": 1e-4},
    )  # fmt: skip


def _bounded(tmp_path: Path) -> Task:
    return Task(
        source=_write(tmp_path, "rowmax.cu", ROW_MAX_BOUNDED), kernel="row_max",
        reference=lambda x: x.amax(dim=1), inputs={"x": "f32[rows, d]"}, outputs={"out": "f32[rows]"},
        symbols=["rows", "d"], constraints=["d <= 4096", "rows <= 1024"],
        instances=[{"rows": 2, "d": 5}, {"rows": 1, "d": 100}],
        grid=["rows"], block=["max(32, min(next_pow2(d), 256))"],
    )  # fmt: skip


def _scale_2d(tmp_path: Path) -> Task:
    return Task(
        source=_write(tmp_path, "scale.cu", SCALE_2D), kernel="scale_2d",
        reference=lambda x: 2.0 * x, inputs={"x": "f32[rows, cols]"}, outputs={"y": "f32[rows, cols]"},
        symbols=["rows", "cols"], constraints=["rows <= 2097152", "cols <= 1024"],
        instances=[{"rows": 3, "cols": 5}, {"rows": 17, "cols": 300}],
        grid=["cdiv(cols, 64)", "cdiv(rows, 16)"], block=[64, 16],
    )  # fmt: skip


def _triton_rows(tmp_path: Path, max_rows: int) -> Task:
    return Task(
        source=_write(tmp_path, "rows.py", TRITON_ROWS), kernel="scale_rows",
        reference=lambda x: 2.0 * x, inputs={"x": "f32[rows, n]"}, outputs={"y": "f32[rows, n]"},
        bindings={"x_ptr": "x", "y_ptr": "y", "n": "n", "BLOCK": 64},
        symbols=["rows", "n"], constraints=[f"rows <= {max_rows}", "n <= 4096"],
        instances=[{"rows": 3, "n": 5}, {"rows": 2, "n": 100}],
        grid=["cdiv(n, 64)", "rows"], block=[1],
    )  # fmt: skip


def _launch(task: Task) -> object:
    module = parse_task(task)
    [r] = prove_parametric(module, task.kernel, task, [LAUNCH], Budget())
    return r


def test_launch_is_an_obligation_of_every_task(tmp_path: Path) -> None:
    kinds = [ob.kind for ob in obligations_of(_staged(tmp_path, 32768))]
    assert ObligationKind.LAUNCH in kinds
    assert ObligationKind.LAUNCH.failure_kind == "launch"


def test_dynamic_shared_memory_past_any_gpu_is_refuted_at_the_smallest_size(tmp_path: Path) -> None:
    r = _launch(_staged(tmp_path, 65536))
    assert r.status is Status.REFUTED, r.detail
    cx = r.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED
    assert dict(cx.instance) == {"rows": 1, "d": 58113}  # 4 * 58113 = 232452 > 232448 (227 KiB)
    assert "232452 bytes of shared memory" in cx.message and "232448" in cx.message


def test_dynamic_shared_memory_within_the_limit_is_proved_for_all_sizes(tmp_path: Path) -> None:
    r = _launch(_staged(tmp_path, 32768))
    assert r.status is Status.PROVED, r.detail
    assert r.scope.kind is ScopeKind.PARAMETRIC


def test_blocks_past_the_launch_bounds_are_refuted(tmp_path: Path) -> None:
    r = _launch(_bounded(tmp_path))
    assert r.status is Status.REFUTED, r.detail
    cx = r.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED
    assert dict(cx.instance) == {"rows": 1, "d": 129}  # next_pow2(129) = 256 threads > 128
    assert "256 threads" in cx.message and "__launch_bounds__" in cx.message


def test_grid_y_past_65535_is_refuted(tmp_path: Path) -> None:
    r = _launch(_scale_2d(tmp_path))
    assert r.status is Status.REFUTED, r.detail
    cx = r.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED
    # cdiv(rows, 16) = 65536 first at rows = 65535 * 16 + 1
    assert dict(cx.instance) == {"rows": 1048561, "cols": 1}
    assert "gridDim.y" in cx.message and "65536" in cx.message


def test_triton_grid_axis_1_past_65535_is_refuted(tmp_path: Path) -> None:
    task = _triton_rows(tmp_path, 1 << 20)
    [r] = prove_parametric_family(task, task.kernel, lambda env: parse_task(task, env), [LAUNCH], Budget())
    assert r.status is Status.REFUTED, r.detail
    assert r.counterexample is not None and dict(r.counterexample.instance) == {"rows": 65536, "n": 1}


def test_triton_grid_within_the_limits_is_proved(tmp_path: Path) -> None:
    task = _triton_rows(tmp_path, 65535)
    [r] = prove_parametric_family(task, task.kernel, lambda env: parse_task(task, env), [LAUNCH], Budget())
    assert r.status is Status.PROVED, r.detail


def test_verify_fails_a_kernel_whose_allowed_sizes_cannot_launch(tmp_path: Path) -> None:
    report = verify_task(_staged(tmp_path, 65536), instances=[{"rows": 2, "d": 5}])
    assert report.verdict is Verdict.FAILED
    [launch] = [r for r in report.results if r.obligation.kind is ObligationKind.LAUNCH]
    assert launch.status is Status.REFUTED
    assert "launch" in report.kinds()


def test_verify_proves_the_launch_of_a_kernel_within_the_limits(tmp_path: Path) -> None:
    report = verify_task(_staged(tmp_path, 32768), instances=[{"rows": 2, "d": 5}])
    [launch] = [r for r in report.results if r.obligation.kind is ObligationKind.LAUNCH]
    assert launch.status is Status.PROVED and launch.scope.kind is ScopeKind.PARAMETRIC


def test_an_instance_of_the_task_that_cannot_launch_stays_bad_input(tmp_path: Path) -> None:
    # the second instance is bad input even though the launch refutation would stop after the first
    with pytest.raises(LarkcError, match="bad launch: 256 threads per block exceed the kernel's __launch_bounds__"):
        verify_task(_bounded(tmp_path), instances=[{"rows": 2, "d": 5}, {"rows": 1, "d": 200}])


#: A copy in tiles of at most 64 threads, the limit stated as the kernel's precondition (GPUVerify style).
TILE_COPY_REQUIRES = """
#include <cuda_runtime.h>

__global__ void tile_copy(const float* __restrict__ x, float* __restrict__ out, int n) {
    __requires(blockDim.x <= 64);
    __shared__ float tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[threadIdx.x] = x[i];
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x];
}
"""


def test_a_launch_refutation_a_precondition_may_exclude_is_unknown(tmp_path: Path) -> None:
    task = Task(
        source=_write(tmp_path, "tile.cu", TILE_COPY_REQUIRES), kernel="tile_copy",
        reference=lambda x: x.clone(), inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"},
        symbols=["n", "b"], constraints=["n <= 4096"], instances=[{"n": 70, "b": 32}],
        grid=["cdiv(n, b)"], block=["b"],
    )  # fmt: skip
    report = verify_task(task)
    [launch] = [r for r in report.results if r.obligation.kind is ObligationKind.LAUNCH]
    assert launch.status is Status.UNKNOWN and "b=1025" in launch.detail and "precondition" in launch.detail
    assert report.verdict is Verdict.UNKNOWN
