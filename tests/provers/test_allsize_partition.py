"""The all-size prover on strided partitions (provers/folds.py's partition rule, provers/allsize.py's
termination rule for ``i += blockDim.x`` on an ``int``; issue 21, item 4's first step).

A row taken by a block's threads in stride (``for (int j = threadIdx.x; j < d; j += blockDim.x)``, every
row kernel of llm.c, Apex and vLLM) is ``j = (int)((unsigned)j + blockDim.x)`` in the IR: the termination
rule now accepts the conversions between integer types of one width, so a block-stride elementwise row
kernel is proved for every size. A sum of strided partials ``Σ_{t<S} Σ_{k ≡ t mod S, k < d} x[k]`` is the
row's sum by the partition rule. Size-only wrong twins (a partition dropping the tail, a lane skipped, a
stride that is not the number of parts, a block-stride loop striding twice as far) are each first shown
by the simulator to agree at the instances and to differ at the witness; none is proved, and the sizes the
prover names are where the simulator sees the difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import z3

from larkc import load_task
from larkc.pipeline.api import run
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task
from larkc.provers import Budget
from larkc.provers.allsize import AllSizeAttempt, prove_allsize
from larkc.provers.folds import Fold, FoldOp, FoldTable
from larkc.reference import trace_task
from larkc.tasks import Task

BUDGET = Budget(seconds=60)

# One block per row (as llm.c's and Apex's row kernels are launched), the block's threads striding over the
# row's columns: the loop variable is an `int` stepped by the `unsigned` blockDim.x.
ROW_AFFINE_CU = """\
__global__ void row_affine(const float* __restrict__ x, float* __restrict__ out, int d) {
  const float* xr = x + static_cast<size_t>(blockIdx.x) * d;
  float* outr = out + static_cast<size_t>(blockIdx.x) * d;
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    outr[j] = 2.0f * xr[j] + 1.0f;
  }
}
"""

ROW_AFFINE_TASK = """\
from larkc import Task


def reference(x):
    return 2 * x + 1


task = Task(
    source="kernel.cu",
    kernel="row_affine",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["rows <= 65536", "d <= 8192"],
    instances=[{"rows": 3, "d": 5}, {"rows": 7, "d": 300}],
    grid=["rows"],
    block=[256],
)
"""

# The row's sum as `lanes` interleaved partial sums, lane t taking the columns t, t + lanes, ...: the
# partition a block reduction makes over its threads, here over one thread's loop.
ROW_SUM_LANES_CU = """\
__global__ void row_sum_lanes(const float* __restrict__ x, float* __restrict__ out, int rows, int d, int lanes) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int t = 0; t < lanes; ++t) {
      for (int k = t; k < d; k += lanes) {
        acc += x[row * d + k];
      }
    }
    out[row] = acc;
  }
}
"""

ROW_SUM_LANES_TASK = """\
from larkc import Task


def reference(x):
    return x.sum(dim=-1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_lanes",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d", "lanes"],
    constraints=["rows <= 65536", "d <= 4096", "1 <= lanes", "lanes <= 64"],
    instances=[{"rows": 3, "d": 5, "lanes": 4}, {"rows": 100, "d": 33, "lanes": 7}],
    grid=["cdiv(rows, 128)"],
    block=[128],
)
"""

KERNELS = {
    "block-stride row loop": {"kernel.cu": ROW_AFFINE_CU, "task.py": ROW_AFFINE_TASK},
    "interleaved partial sums": {"kernel.cu": ROW_SUM_LANES_CU, "task.py": ROW_SUM_LANES_TASK},
}


def _write(key: str, folder: Path, old: str = "", new: str = "") -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in KERNELS[key].items():
        if old and name == "kernel.cu":
            assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {key}"
            text = text.replace(old, new)
        (folder / name).write_text(text, encoding="utf-8")
    return load_task(folder)


def _attempt(task: Task) -> AllSizeAttempt:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    (a,) = prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen)
    return a


@pytest.mark.parametrize("key", list(KERNELS))
def test_strided_row_kernels_are_proved_for_every_size(key: str, tmp_path: Path) -> None:
    task = _write(key, tmp_path)
    assert run(task).ok  # right at its instances (the simulator)
    a = _attempt(task)
    assert a.proved, a.detail
    assert a.covers_instances
    assert a.seconds < 10


@dataclass(frozen=True, slots=True)
class SizeOnly:
    key: str
    kernel: str
    old: str
    new: str
    witness: dict[str, int]


SIZE_ONLY = (
    SizeOnly(
        "partition dropping the tail when d > 64 and d % lanes == 1",
        "interleaved partial sums",
        "k < d; k += lanes",
        "k < (d > 64 && d % lanes == 1 ? d - 1 : d); k += lanes",
        {"rows": 1, "d": 65, "lanes": 2},
    ),
    SizeOnly(
        "the last lane skipped when d > 64",
        "interleaved partial sums",
        "t < lanes; ++t",
        "t < (d > 64 ? lanes - 1 : lanes); ++t",
        {"rows": 1, "d": 65, "lanes": 2},
    ),
    SizeOnly(
        "lanes striding by twice their number when d > 64",
        "interleaved partial sums",
        "k += lanes",
        "k += (d > 64 ? lanes + lanes : lanes)",
        {"rows": 1, "d": 65, "lanes": 1},
    ),
    SizeOnly(
        "lanes overlapping (stride 1) when d > 64",
        "interleaved partial sums",
        "k += lanes",
        "k += (d > 64 ? 1 : lanes)",
        {"rows": 1, "d": 65, "lanes": 2},
    ),
    SizeOnly(
        "block-stride loop striding twice as far when d > 4096",
        "block-stride row loop",
        "j += blockDim.x",
        "j += (d > 4096 ? 2 * blockDim.x : blockDim.x)",
        {"rows": 1, "d": 4097},
    ),
)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", SIZE_ONLY, ids=[m.key for m in SIZE_ONLY])
def test_size_only_partition_mutants_are_never_proved(mutant: SizeOnly, tmp_path: Path) -> None:
    task = _write(mutant.kernel, tmp_path, mutant.old, mutant.new)
    assert run(task).ok, f"{mutant.key}: not quiet at the instances"
    assert not run(task, instances=[mutant.witness]).ok, f"{mutant.key}: no difference at {mutant.witness}"
    a = _attempt(task)
    assert not a.proved, f"{mutant.key}: proved for every size: {a.detail}"
    assert a.candidate is not None, a.detail
    assert not run(task, instances=[dict(a.candidate)]).ok, f"{mutant.key}: nothing at {a.candidate}"


def test_a_narrowing_step_is_not_a_stride(tmp_path: Path) -> None:
    """Only conversions between integer types of one width are looked through: `j = (short)(j + S)` wraps
    at 32768, where the loop would not end (d <= 65536)."""
    task = _write("block-stride row loop", tmp_path, "j += blockDim.x", "j = (short)(j + blockDim.x)")
    a = _attempt(task)
    assert not a.proved
    assert "not shown to end" in a.detail, a.detail


def _table(*facts: z3.BoolRef) -> FoldTable:
    def valid(goal: z3.ExprRef, *hyps: z3.ExprRef) -> bool:
        s = z3.Solver()
        s.add(*facts, *hyps, z3.Not(goal))
        return bool(s.check() == z3.unsat)

    return FoldTable(valid)


def _by_origin(table: FoldTable) -> dict[str, Fold]:
    return {f.origin: f for f in table.folds.values()}


def test_the_partition_rule_and_its_side_conditions() -> None:
    """Σ_{t<4} Σ_{i<T(t)} x(t + 4i) is Σ_{k<n} x(k), T(t) the trip count of `for (k = t; k < n; k += 4)`;
    not with a dropped tail, a missing lane, another stride or another body."""
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    trips = z3.Function("T", z3.IntSort(), z3.IntSort())
    t, i, k, n = z3.Ints("t i k n")
    # what defines T(t), as the executor's exit facts of a trip count do (for the lane t in question)
    exits = (z3.Not(t + trips(t) * 4 < n), z3.Or(trips(t) == 0, t + (trips(t) - 1) * 4 < n), trips(t) >= 0)
    table = _table(*exits)
    table.make(FoldOp.SUM, k, n, x(k), (), "spec")

    def nested(origin: str, lanes: int, body: z3.ArithRef, cond: z3.BoolRef) -> Fold:
        inner = table.make(FoldOp.SUM, i, trips(t), body, (cond,), f"{origin}, inner")
        table.make(FoldOp.SUM, t, z3.IntVal(lanes), inner, (), origin)
        return _by_origin(table)[origin]

    g = _by_origin(table)["spec"]
    assert table.equal(nested("partition", 4, x(t + 4 * i), t + i * 4 < n), g, [n >= 0])
    assert not table.equal(nested("tail dropped", 4, x(t + 4 * i), t + i * 4 < n - 1), g, [n >= 0])
    assert not table.equal(nested("a lane missing", 3, x(t + 4 * i), t + i * 4 < n), g, [n >= 0])
    assert not table.equal(nested("another body", 4, x(t + 4 * i + 1), t + i * 4 < n), g, [n >= 0])
    assert not table.equal(nested("stride 1", 4, x(t + i), t + i * 4 < n), g, [n >= 0])
