"""Kernels whose all-size equivalence the automatic prover leaves UNKNOWN for want of a loop invariant, with
a hand-written invariant that the engine checks (provers/hints.py, provers/invariants.py; issues 21 and 24).

Shared by ``tests/provers/test_hints_loop_invariants.py`` and the scripted agent's tests (``tests/agent``).
Each is written as a library author writes it; the line numbers in the hints are the lines of their loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from larkc import Task, load_task

#: Compensated (Kahan) summation: the two floats of the loop read each other, so neither is `a + f(k)`.
KAHAN_CU = """\
// Compensated (Kahan) row sum: one thread per row; c carries the low-order bits lost by each add.
__global__ void row_sum_kahan(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * d;
  float sum = 0.0f;
  float c = 0.0f;
  for (int k = 0; k < d; ++k) {
    const float y = xr[k] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  out[row] = sum;
}
"""

#: A running mean: the update reads the accumulator (`m += (v - m) / (k + 1)`), no fold of the iterations.
RUNNING_MEAN_CU = """\
// Row mean by a running (incremental) mean, which never holds the full sum: one thread per row.
__global__ void row_mean_running(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * d;
  float mean = 0.0f;
  for (int k = 0; k < d; ++k) {
    mean += (xr[k] - mean) / (float)(k + 1);
  }
  out[row] = mean;
}
"""

#: Unrolled by four by hand, then the tail: the automatic folds are over the iterations (four terms each),
#: not over the columns, and do not compose into the reference's sum.
UNROLLED_CU = """\
// Row sum unrolled by four by hand, then the tail: one thread per row.
__global__ void row_sum_unroll4(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * d;
  float acc = 0.0f;
  int k = 0;
  for (; k <= d - 4; k += 4) {
    acc += xr[k] + xr[k + 1] + xr[k + 2] + xr[k + 3];
  }
  for (; k < d; ++k) {
    acc += xr[k];
  }
  out[row] = acc;
}
"""

TASK = """\
from larkc import Task


def reference(x):
    return {expr}


task = Task(
    source="kernel.cu",
    kernel="{kernel}",
    reference=reference,
    inputs={{"x": "f32[rows, d]"}},
    outputs={{"out": "f32[rows]"}},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 4096"],
    instances=[{{"rows": 3, "d": 5}}, {{"rows": 100, "d": 33}}],
    grid=["cdiv(rows, 128)"],
    block=[128],
)
"""


@dataclass(frozen=True, slots=True)
class HintKernel:
    key: str
    source: str
    kernel: str
    expr: str  # the reference
    hints: str  # the right invariants (hints.py's text)
    wrong: str  # an invariant that is false (not preserved by an iteration)

    def write(self, folder: Path, old: str = "", new: str = "") -> Task:
        folder.mkdir(parents=True, exist_ok=True)
        source = self.source
        if old:
            assert source.count(old) == 1, old
            source = source.replace(old, new)
        (folder / "kernel.cu").write_text(source, encoding="utf-8")
        (folder / "task.py").write_text(TASK.format(expr=self.expr, kernel=self.kernel), encoding="utf-8")
        return load_task(folder)


HINT_KERNELS = {
    k.key: k
    for k in (
        HintKernel(
            "kahan",
            KAHAN_CU,
            "row_sum_kahan",
            "x.sum(dim=-1)",
            "loop 8: sum = sum(j < iters, x[row * d + j])\nloop 8: c = 0\n",
            "loop 8: sum = sum(j < iters, x[row * d + j + 1])\nloop 8: c = 0\n",
        ),
        HintKernel(
            "running mean",
            RUNNING_MEAN_CU,
            "row_mean_running",
            "x.mean(dim=-1)",
            "loop 7: mean = if(iters == 0, 0, sum(j < iters, x[row * d + j]) / iters)\n",
            "loop 7: mean = if(iters == 0, 0, sum(j < iters, x[row * d + j]) / (iters + 1))\n",
        ),
        HintKernel(
            "unrolled by four",
            UNROLLED_CU,
            "row_sum_unroll4",
            "x.sum(dim=-1)",
            "loop 8: acc = sum(j < 4 * iters, x[row * d + j])\nloop 11: acc = sum(j < k + iters, x[row * d + j])\n",
            "loop 8: acc = sum(j < 4 * iters, x[row * d + j])\nloop 11: acc = sum(j < k + iters, x[row * d + j + 1])\n",
        ),
    )
}
