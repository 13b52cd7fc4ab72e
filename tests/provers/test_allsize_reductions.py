"""The all-size prover on reductions (provers/allsize.py, provers/folds.py; issue 21, items 1 and 3).

Kernels whose outputs are folds over a dimension of symbolic extent: one CUDA thread per row with a
sequential loop over the columns, a Triton program that loads a whole row in one masked block and sums it,
the naive matrix product (one thread per output, a loop over the contraction). Their equivalence is proved
for every size, and changes that show only at sizes outside the task's instances (a loop one short past
``d > 1024``, a tail skipped past ``d > 64``, an accumulator not reset per row once a thread takes a second
row, a Triton mask cut at 1000 columns) are not: each mutant is first shown by the simulator to agree at
the instances and to differ at a size outside them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import z3

from larkc import load_task
from larkc.pipeline.api import run
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task, verify_task
from larkc.provers import Budget, ScopeKind, Status
from larkc.provers.allsize import REDUCTION_OPS, AllSizeAttempt, prove_allsize
from larkc.provers.folds import Fold, FoldOp, FoldTable
from larkc.reference import trace_task
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET = Budget(seconds=60)

ROW_SUM_CU = """\
// out[row] = sum of x[row, :]: one thread per row, a sequential loop over the columns.
__global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int k = 0; k < d; ++k) {
      acc += x[row * d + k];
    }
    out[row] = acc;
  }
}
"""

ROW_SUM_TASK = """\
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
    grid=["{grid}"],
    block=[128],
)
"""

MEAN_SQ_CU = """\
// out[row] = 2 * mean(x[row, :]^2): one thread per row.
__global__ void mean_sq(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * d;
  float acc = 0.0f;
  for (int k = 0; k < d; ++k) {
    const float v = xr[k];
    acc += v * v;
  }
  out[row] = acc / d * 2.0f;
}
"""

# rows taken in a grid-stride loop by one block of 128 threads: a thread takes a second row from rows > 128
ROW_SUM_STRIDED_CU = """\
__global__ void row_sum_strided(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int stride = blockDim.x * gridDim.x;
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {
    float acc = 0.0f;
    for (int k = 0; k < d; ++k) {
      acc += x[row * d + k];
    }
    out[row] = acc;
  }
}
"""

ROW_MAX_CU = """\
// out[row] = max of x[row, :]: one thread per row, from -INFINITY.
__global__ void row_max(const float* __restrict__ x, float* __restrict__ out, int rows, int d) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int k = 0; k < d; ++k) {
      m = fmaxf(m, x[row * d + k]);
    }
    out[row] = m;
  }
}
"""

ROW_SUM_PY = """\
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * d + offs, mask=offs < d, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
"""

ROW_SUM_PY_TASK = """\
from larkc import Task


def reference(x):
    return x.sum(dim=-1)


task = Task(
    source="kernel.py",
    kernel="row_sum_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"out": "f32[r]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "d": "d", "BLOCK": 1024},
    symbols=["r", "d"],
    constraints=["d <= 1024", "r <= 65536"],
    instances=[{"r": 3, "d": 50}, {"r": 2, "d": 999}],
    grid=["r"],
    block=[1],
)
"""


@dataclass(frozen=True, slots=True)
class Kernel:
    key: str
    files: dict[str, str]


KERNELS = {
    k.key: k
    for k in (
        Kernel(
            "cuda row sum",
            {
                "kernel.cu": ROW_SUM_CU,
                "task.py": ROW_SUM_TASK.format(expr="x.sum(dim=-1)", kernel="row_sum", grid="cdiv(rows, 128)"),
            },
        ),
        Kernel(
            "cuda 2 * mean of squares",
            {
                "kernel.cu": MEAN_SQ_CU,
                "task.py": ROW_SUM_TASK.format(expr="(x * x).mean(-1) * 2", kernel="mean_sq", grid="cdiv(rows, 128)"),
            },
        ),
        Kernel(
            "cuda row sum, rows in a grid-stride loop",
            {
                "kernel.cu": ROW_SUM_STRIDED_CU,
                "task.py": ROW_SUM_TASK.format(expr="x.sum(dim=-1)", kernel="row_sum_strided", grid="1"),
            },
        ),
        Kernel(
            "cuda row max",
            {
                "kernel.cu": ROW_MAX_CU,
                "task.py": ROW_SUM_TASK.format(expr="x.amax(dim=-1)", kernel="row_max", grid="cdiv(rows, 128)"),
            },
        ),
        Kernel("triton masked row sum", {"kernel.py": ROW_SUM_PY, "task.py": ROW_SUM_PY_TASK}),
    )
}


def _write(kernel: Kernel, folder: Path, old: str = "", new: str = "") -> Task:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in kernel.files.items():
        if old and name.startswith("kernel"):
            assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {kernel.key}"
            text = text.replace(old, new)
        (folder / name).write_text(text, encoding="utf-8")
    return load_task(folder)


def _attempts(task: Task) -> list[AllSizeAttempt]:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    return prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen)


@pytest.mark.parametrize("key", list(KERNELS))
def test_reductions_are_proved_for_every_size(key: str, tmp_path: Path) -> None:
    task = _write(KERNELS[key], tmp_path)
    assert run(task).ok  # the kernel is right at its instances (the simulator)
    (a,) = _attempts(task)
    assert a.proved, a.detail
    assert a.covers_instances
    assert a.seconds < 10


def test_the_naive_matrix_product_is_proved_for_every_size() -> None:
    """One thread per output on a 2-D grid of 2-D blocks, a loop over K: Σ_{k<K} a[i, k] * b[k, j]."""
    (a,) = _attempts(load_task(EXAMPLES / "cuda/matmul_naive"))
    assert a.proved, a.detail
    assert a.covers_instances


def test_the_pipeline_reports_a_reduction_for_every_size(tmp_path: Path) -> None:
    task = _write(KERNELS["cuda row sum"], tmp_path)
    report = verify_task(task, budget=BUDGET)
    (eq,) = [r for r in report.results if r.obligation.name == "equivalence(out)"]
    assert eq.status is Status.PROVED
    assert eq.scope.kind is ScopeKind.PARAMETRIC, eq.detail


@dataclass(frozen=True, slots=True)
class SizeOnly:
    """A change of one of :data:`KERNELS` (or of an example) that shows only at sizes outside its instances."""

    key: str
    kernel: str  # a key of KERNELS, or an example folder
    old: str
    new: str
    witness: dict[str, int]


SIZE_ONLY = (
    SizeOnly(
        "row loop one short when d > 1024",
        "cuda row sum",
        "k < d; ++k",
        "k < (d > 1024 ? d - 1 : d); ++k",
        {"rows": 1, "d": 1025},
    ),
    SizeOnly(
        "tail of the row skipped when d > 64 and d % 32 != 0",
        "cuda row sum",
        "k < d; ++k",
        "k < (d > 64 && d % 32 != 0 ? d / 32 * 32 : d); ++k",
        {"rows": 1, "d": 65},
    ),
    SizeOnly(
        "mean over d + 1 when d > 1000",
        "cuda 2 * mean of squares",
        "acc / d * 2.0f",
        "acc / (d > 1000 ? d + 1 : d) * 2.0f",
        {"rows": 1, "d": 1001},
    ),
    SizeOnly(
        "accumulator not reset per row (a thread's second row from rows > 128)",
        "cuda row sum, rows in a grid-stride loop",
        "  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {\n    float acc = 0.0f;",
        "  float acc = 0.0f;\n  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {",
        {"rows": 129, "d": 3},
    ),
    SizeOnly(
        "row max of halved values when d > 1024",
        "cuda row max",
        "m = fmaxf(m, x[row * d + k]);",
        "m = fmaxf(m, d > 1024 ? 0.5f * x[row * d + k] : x[row * d + k]);",
        {"rows": 1, "d": 1025},
    ),
    SizeOnly(
        "Triton mask cut at 1000 columns",
        "triton masked row sum",
        "mask=offs < d,",
        "mask=(offs < d) & (offs < 1000),",
        {"r": 1, "d": 1001},
    ),
    SizeOnly(
        "matmul: contraction one short when K > 64",
        "cuda/matmul_naive",
        "k < K; ++k",
        "k < (K > 64 ? K - 1 : K); ++k",
        {"M": 1, "N": 1, "K": 65},
    ),
)


def _mutant(m: SizeOnly, folder: Path) -> Task:
    if m.kernel in KERNELS:
        return _write(KERNELS[m.kernel], folder, m.old, m.new)
    dst = folder / m.kernel
    shutil.copytree(EXAMPLES / m.kernel, dst)
    task = load_task(dst)
    source = dst / Path(task.source).name
    text = source.read_text(encoding="utf-8")
    assert text.count(m.old) == 1
    source.write_text(text.replace(m.old, m.new), encoding="utf-8")
    return load_task(dst)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", SIZE_ONLY, ids=[m.key for m in SIZE_ONLY])
def test_size_only_reduction_mutants_are_never_proved(mutant: SizeOnly, tmp_path: Path) -> None:
    task = _mutant(mutant, tmp_path)
    # the mutant is what it claims: quiet at the task's instances, wrong at the witness (the simulator)
    assert run(task).ok, f"{mutant.key}: not quiet at the instances"
    assert not run(task, instances=[mutant.witness]).ok, f"{mutant.key}: no difference at {mutant.witness}"
    (a,) = _attempts(task)
    assert not a.proved, f"{mutant.key}: proved for every size: {a.detail}"
    # the sizes z3 found (where two folds fail to match, or the comparison itself) are where it fails
    assert a.candidate is not None, a.detail
    assert not run(task, instances=[dict(a.candidate)]).ok, f"{mutant.key}: nothing at {a.candidate}"


def test_the_pipeline_refutes_a_size_only_reduction_mutant_at_the_sizes_found(tmp_path: Path) -> None:
    """The bounded proof at the instances is not the verdict: the candidate sizes, confirmed by the
    simulator, refute equivalence there."""
    m = SIZE_ONLY[0]  # the row loop one short when d > 1024
    report = verify_task(_mutant(m, tmp_path), budget=BUDGET)
    (eq,) = [r for r in report.results if r.obligation.name == "equivalence(out)"]
    assert eq.status is Status.REFUTED, eq.detail
    assert eq.counterexample is not None and "1025" in str(eq.counterexample), eq.counterexample


def test_the_reduction_ops_are_spec_ops() -> None:
    from larkc.reference.spec import SpecOp

    assert {op.value for op in SpecOp} >= REDUCTION_OPS


def test_a_kernel_whose_values_are_never_followed_is_refused_before_any_solver_work() -> None:
    """A Triton matmul (``tl.dot``): building the world alone took about a minute; the attempt stops first."""
    (a,) = _attempts(load_task(EXAMPLES / "triton/matmul"))
    assert not a.proved
    assert "dot" in a.detail
    assert a.seconds < 1


# -- folds (provers/folds.py) ------------------------------------------------------------------------


def _table() -> FoldTable:
    def valid(goal: z3.ExprRef, *hyps: z3.ExprRef) -> bool:
        s = z3.Solver()
        s.add(*hyps, z3.Not(goal))
        return bool(s.check() == z3.unsat)

    return FoldTable(valid)


def _by_origin(table: FoldTable) -> dict[str, Fold]:
    return {f.origin: f for f in table.folds.values()}


def test_fold_equality_needs_equal_bounds_and_bodies() -> None:
    table = _table()
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    d, e, k, t = z3.Ints("d e k t")
    spec = table.make(FoldOp.SUM, k, d, x(k), (), "spec")
    same = table.make(FoldOp.SUM, t, d, x(t), (), "kernel")
    short = table.make(FoldOp.SUM, t, d - 1, x(t), (), "kernel, one short")
    shifted = table.make(FoldOp.SUM, t, d, x(t + 1), (), "kernel, shifted")
    other_bound = table.make(FoldOp.SUM, t, e, x(t), (), "kernel, another bound")
    by = _by_origin(table)
    g = by["spec"]
    assert table.equal(by["kernel"], g, [d >= 0])
    assert not table.equal(by["kernel, one short"], g, [d >= 1])
    assert not table.equal(by["kernel, shifted"], g, [d >= 1])
    assert not table.equal(by["kernel, another bound"], g, [d >= 1])
    assert table.equal(by["kernel, another bound"], g, [d >= 1, e == d])
    assert table.unify(same, spec, [d >= 0]).eq(same)
    assert table.unify(short + shifted + other_bound, spec, [d >= 1]).eq(spec)  # none is equal: it stays


def test_a_masked_block_sum_is_the_sum_below_its_bound_only_with_a_zero_tail() -> None:
    table = _table()
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    d, k, lane = z3.Ints("d k lane")
    block = 1024
    table.make(FoldOp.SUM, k, d, x(k), (), "spec")
    table.make(FoldOp.SUM, lane, z3.IntVal(block), z3.If(lane < d, x(lane), 0), (), "other=0")
    table.make(FoldOp.SUM, lane, z3.IntVal(block), z3.If(lane < d, x(lane), z3.Real("any")), (), "no other")
    by = _by_origin(table)
    assert table.equal(by["other=0"], by["spec"], [d >= 0, d <= block])
    assert not table.equal(by["other=0"], by["spec"], [d >= 0, d <= 2 * block])  # d may exceed the block
    assert not table.equal(by["no other"], by["spec"], [d >= 0, d <= block])
    assert table.failures  # where to look for sizes that differ


def test_max_folds_are_equal_over_equal_ranges_only() -> None:
    table = _table()
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    d, k, lane = z3.Ints("d k lane")
    table.make(FoldOp.MAX, k, d, x(k), (), "spec")
    table.make(FoldOp.MAX, lane, z3.IntVal(64), z3.If(lane < d, x(lane), 0), (), "zero tail")
    table.make(FoldOp.SUM, lane, d, x(lane), (), "a sum")
    by = _by_origin(table)
    assert not table.equal(by["zero tail"], by["spec"], [d >= 1, d <= 64])  # 0 is no identity of max
    assert not table.equal(by["a sum"], by["spec"], [d >= 1])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("acc += x[row * d + k];", "acc = acc * 2.0f + x[row * d + k];"),  # not a sum of the iterations
        ("acc += x[row * d + k];", "acc += x[row * d + k];\n      if (k == 7) break;"),  # an early exit
        ("for (int k = 0; k < d; ++k) {", "for (int k = 0; k < d; k += (d > 100 ? 2 : 1)) {"),  # a stride of d
    ],
    ids=["scaled accumulator", "break", "stride depending on d"],
)
def test_a_loop_that_is_not_an_accumulation_is_not_proved(old: str, new: str, tmp_path: Path) -> None:
    (a,) = _attempts(_write(KERNELS["cuda row sum"], tmp_path, old, new))
    assert not a.proved, a.detail


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # 0 * (1 / 0) is NaN on a GPU, past sizes the instances reach; z3's real division is total
        (
            "    out[row] = acc;",
            "    const float z = (float)d - (float)d;\n    out[row] = d > 2048 ? acc + 0.0f * (1.0f / z) : acc;",
        ),
        ("acc += x[row * d + k];", "const float v = x[row * d + k];\n      acc += d > 2048 ? v + 0.0f / (v - v) : v;"),
    ],
    ids=["after the loop", "in the loop"],
)
def test_a_division_by_a_value_not_shown_nonzero_is_not_followed(old: str, new: str, tmp_path: Path) -> None:
    (a,) = _attempts(_write(KERNELS["cuda row sum"], tmp_path, old, new))
    assert not a.proved, a.detail


def test_a_masked_block_without_other_is_not_a_row_sum(tmp_path: Path) -> None:
    (a,) = _attempts(_write(KERNELS["triton masked row sum"], tmp_path, "mask=offs < d, other=0.0)", "mask=offs < d)"))
    assert not a.proved, a.detail


def test_each_reduction_op_is_evaluated_and_odd_attributes_are_not_handled() -> None:
    """Every op of REDUCTION_OPS gives a fold at a symbolic index; a reduction whose attributes this prover
    does not read (no ``keepdim`` while its result keeps the dimension) is *not handled*, never a crash."""
    from larkc.provers.allsize import _NotHandled, _SpecElements, _Vocabulary
    from larkc.provers.zworld import Registry, World
    from larkc.reference.spec import Ref, SpecGraph, SpecInput, SpecNode, SpecOp, ValueType
    from larkc.tasks.shape_expr import ShapeNum, ShapeSym

    task = load_task(EXAMPLES / "cuda/matmul_naive")
    f32 = task.tensors["a"].dtype
    mk, kn, mn = (ValueType((ShapeSym(x), ShapeSym(y)), f32) for x, y in (("M", "K"), ("K", "N"), ("M", "N")))
    world = World(task, Registry(), None)
    inputs = (SpecInput("a", mk), SpecInput("b", kn))

    def spec_of(node: SpecNode) -> _SpecElements:
        graph = SpecGraph("g", ("M", "N", "K"), inputs, (), (node,), ("r",))
        return _SpecElements(graph, task, world, _Vocabulary([]), lambda *_: True, FoldTable(lambda *_: True))

    for name in sorted(REDUCTION_OPS):
        op = SpecOp(name)
        if op in (SpecOp.MATMUL, SpecOp.MM):
            node = SpecNode("r", op, (Ref("a"), Ref("b")), (), mn)
        else:
            node = SpecNode(
                "r", op, (Ref("a"),), (("dims", (1,)), ("keepdim", False)), ValueType((ShapeSym("M"),), f32)
            )
        spec = spec_of(node)
        assert spec.folds.folds_in(spec.element("r", z3.Int("j"))), name
    kept = ValueType((ShapeSym("M"), ShapeNum(1)), f32)
    spec = spec_of(SpecNode("r", SpecOp.SUM, (Ref("a"),), (("dims", (1,)),), kept))
    with pytest.raises(_NotHandled):
        spec.element("r", z3.Int("j"))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("float m = -INFINITY;", "float m = 0.0f;"),  # the zero-initialised row max: wrong for negative rows
        ("float m = -INFINITY;", "float m = -INFINITY;\n    if (d > 5) m = 0.0f;"),  # -inf on one branch only
        ("k < d; ++k", "k < d - 1; ++k"),  # may not run: -inf itself would be stored (at d = 1)
        ("m = fmaxf(m, x[row * d + k]);", "m = fmaxf(m, x[row * d + k]) + 0.0f * m;"),  # -inf * 0 is NaN
    ],
    ids=["zero init", "-inf on one branch", "may not run", "-inf in arithmetic"],
)
def test_a_max_from_minus_infinity_is_not_proved_where_it_is_not_the_row_max(
    old: str, new: str, tmp_path: Path
) -> None:
    (a,) = _attempts(_write(KERNELS["cuda row max"], tmp_path, old, new))
    assert not a.proved, a.detail


def test_a_tail_is_zero_only_by_selection_not_by_real_arithmetic() -> None:
    """``(v / v) * 0`` is 0 over the reals but NaN on the GPU where a masked lane's ``v`` is 0 (or ``-inf``):
    a longer fold's tail must select the literal 0."""
    table = _table()
    x = z3.Function("x", z3.IntSort(), z3.RealSort())
    d, k, lane = z3.Ints("d k lane")
    v = z3.If(lane < d, x(lane), 0)
    table.make(FoldOp.SUM, k, d, x(k), (), "spec")
    table.make(FoldOp.SUM, lane, z3.IntVal(64), v + (v / v) * 0, (), "arithmetic tail")
    table.make(FoldOp.SUM, lane, z3.IntVal(64), z3.If(lane < d, x(lane) + (v / v) * 0, 0), (), "selected tail")
    by = _by_origin(table)
    hyps = [d >= 1, d <= 64]
    assert not table.equal(by["arithmetic tail"], by["spec"], hyps)
    assert table.equal(by["selected tail"], by["spec"], hyps)  # inside the row, reals are the model


def test_a_sum_over_masked_lanes_that_are_not_reals_is_not_proved(tmp_path: Path) -> None:
    """``other=-inf``: the masked-off lanes are ``-inf``, and ``x * 0.0`` there is NaN on the GPU; the sum of
    ``where(mask, 1, 0) + x * 0`` is NaN, not ``d``, and must not be proved equal to it."""
    kernel = Kernel(
        "triton sum over -inf lanes",
        {
            "kernel.py": ROW_SUM_PY.replace("other=0.0)", 'other=-float("inf"))').replace(
                "tl.sum(x, axis=0)", "tl.sum(tl.where(offs < d, 1.0, 0.0) + x * 0.0, axis=0)"
            ),
            "task.py": ROW_SUM_PY_TASK.replace("return x.sum(dim=-1)", "return (x * 0 + 1).sum(dim=-1)"),
        },
    )
    (a,) = _attempts(_write(kernel, tmp_path))
    assert not a.proved, a.detail
