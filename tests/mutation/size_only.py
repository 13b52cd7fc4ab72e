"""Size-only mutants: changes to example kernels that alter behaviour only at sizes the instances they are
verified on do not reach.

The mutants of ``mutate.py`` change a kernel everywhere, so the task's instances catch most of them. A
bug that shows only at some sizes (a grid-stride loop made a single step, a tail bound off by one for
``n % 4 == 3``, a shared array too small for a fourth warp) slips past every instance that misses those
sizes: a bounded proof there is honest, a claim "for all sizes" is not. Each :class:`SizeOnlyMutant`
is a textual rewrite of an example's kernel as an author would get it wrong, the instances on which it
behaves exactly like the original (``quiet``), a size where it does not (``witness``, with the failure
``larkc run`` reports there) and the obligations the change violates. The check
(:func:`check_size_only`) verifies the mutant on its quiet instances and fails if one of those
obligations is PROVED for all sizes; it first confirms with the simulator that the mutant is what it
claims (silent at the quiet instances, failing at the witness), so that the test cannot pass vacuously.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from larkc import load_task
from larkc.pipeline.api import run
from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, ObligationResult, ScopeKind, Status

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET = Budget(seconds=20, solver_rlimit=16_000_000)

Instance = Mapping[str, int]


@dataclass(frozen=True, slots=True)
class SizeOnlyMutant:
    key: str  # example|what
    example: str  # folder under examples/ (cuda/... or triton/...)
    old: str  # text of the kernel replaced (exactly once)
    new: str
    quiet: tuple[Instance, ...]  # where the mutant behaves like the original
    witness: Instance  # where it does not
    failure: str  # what larkc run reports at the witness: mismatch, oob, race, ...
    violates: tuple[str, ...]  # obligations (report names) the change violates at the witness
    xfail: str | None = None  # issue 19 class whose fix makes this pass


MUTANTS: tuple[SizeOnlyMutant, ...] = (
    SizeOnlyMutant(
        "grid_stride|single step",
        "cuda/grid_stride",
        "i < n; i += stride)",
        "i < n; i += n)",
        ({"n": 1}, {"n": 511}),
        {"n": 600},
        "mismatch",
        ("equivalence(out)",),
    ),
    SizeOnlyMutant(
        "grid_stride|stride 1024 for blockDim.x * gridDim.x",
        "cuda/grid_stride",
        "const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;",
        "const size_t stride = 1024;",
        ({"n": 1}, {"n": 511}),
        {"n": 700},
        "mismatch",
        ("equivalence(out)",),
    ),
    SizeOnlyMutant(
        "vector_add_float4|tail bound short when n % 4 == 3",
        "cuda/vector_add_float4",
        "for (int i = n4 * 4 + idx; i < n; i += blockDim.x * gridDim.x)",
        "for (int i = n4 * 4 + idx; i < n - (n % 4 == 3); i += blockDim.x * gridDim.x)",
        ({"n": 1}, {"n": 4}, {"n": 4102}),
        {"n": 1027},
        "mismatch",
        ("equivalence(out)",),
    ),
    SizeOnlyMutant(
        "vector_add_float4|tail bound past the end when n % 4 == 3",
        "cuda/vector_add_float4",
        "for (int i = n4 * 4 + idx; i < n; i += blockDim.x * gridDim.x)",
        "for (int i = n4 * 4 + idx; i <= n - 1 + (n % 4 == 3); i += blockDim.x * gridDim.x)",
        ({"n": 1}, {"n": 4}, {"n": 4102}),
        {"n": 1027},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "vector_add|guard rounded up to even",
        "cuda/vector_add",
        "if (i < n) {",
        "if (i < ((n + 1) & ~1)) {",
        ({"n": 1000}, {"n": 4096}),
        {"n": 1001},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "row_max|four warp slots",
        "cuda/row_max",
        "__shared__ float warp_max[WARP_SIZE];",
        "__shared__ float warp_max[4];",
        ({"rows": 1, "d": 1}, {"rows": 4, "d": 100}),
        {"rows": 1, "d": 200},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "row_max|at most four warp partials",
        "cuda/row_max",
        "m = lane < blockDim.x / WARP_SIZE ? warp_max[lane] : -INFINITY;",
        "m = lane < blockDim.x / WARP_SIZE && lane < 4 ? warp_max[lane] : -INFINITY;",
        ({"rows": 1, "d": 1}, {"rows": 4, "d": 100}),
        {"rows": 1, "d": 200},
        "mismatch",
        ("equivalence(out)",),
    ),
    SizeOnlyMutant(
        "row_max|barrier only for wide blocks",
        "cuda/row_max",
        "  __syncthreads();\n  if (warp == 0) {",
        "  if (blockDim.x > 128) __syncthreads();\n  if (warp == 0) {",
        ({"rows": 1, "d": 1}, {"rows": 3, "d": 1000}),
        {"rows": 1, "d": 100},
        "race",
        ("race",),
    ),
    SizeOnlyMutant(
        "triton/softmax|one row per program",
        "triton/softmax",
        "for row in tl.range(start, n_rows, step):",
        "for row in tl.range(start, start + 1, step):",
        ({"r": 3, "d": 50}, {"r": 4, "d": 64}),
        {"r": 5, "d": 50},
        "mismatch",
        ("equivalence(y)",),
    ),
    SizeOnlyMutant(
        "triton/softmax|mask by the block",
        "triton/softmax",
        "mask = cols < n_cols",
        "mask = cols < BLOCK",
        ({"r": 4, "d": 64}, {"r": 2, "d": 128}),
        {"r": 2, "d": 50},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "triton/softmax|mask by the block, one specialisation verified",
        "triton/softmax",
        "mask = cols < n_cols",
        "mask = cols < BLOCK",
        ({"r": 4, "d": 64},),
        {"r": 2, "d": 50},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "triton/rms_norm|unmasked loads, one specialisation verified",
        "triton/rms_norm",
        "x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)",
        "x = tl.load(x_ptr + row * x_stride + cols).to(tl.float32)",
        ({"m": 2, "n": 128},),
        {"m": 1, "n": 100},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "triton/vector_add|mask rounded up to even",
        "triton/vector_add",
        "mask = offsets < n_elements",
        "mask = offsets < (n_elements + 1) // 2 * 2",
        ({"n": 1000}, {"n": 4096}),
        {"n": 1001},
        "oob",
        ("bounds",),
    ),
    SizeOnlyMutant(
        "matmul_naive|contraction one short when K > 64",
        "cuda/matmul_naive",
        "k < K; ++k",
        "k < (K > 64 ? K - 1 : K); ++k",
        ({"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 33, "K": 9}, {"M": 64, "N": 64, "K": 64}),
        {"M": 1, "N": 1, "K": 65},
        "mismatch",
        ("equivalence(c)",),
    ),
    SizeOnlyMutant(
        "matmul_naive|odd tail of the contraction dropped when K > 64",
        "cuda/matmul_naive",
        "k < K; ++k",
        "k < (K > 64 ? K / 2 * 2 : K); ++k",
        ({"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 33, "K": 9}, {"M": 64, "N": 64, "K": 64}),
        {"M": 2, "N": 3, "K": 65},
        "mismatch",
        ("equivalence(c)",),
    ),
    SizeOnlyMutant(
        "triton/rms_norm|mean over the padded block",
        "triton/rms_norm",
        "ms = tl.sum(x * x, axis=0) / n_cols",
        "ms = tl.sum(x * x, axis=0) / BLOCK",
        ({"m": 2, "n": 128},),
        {"m": 1, "n": 100},
        "mismatch",
        ("equivalence(y)",),
    ),
)


def materialise(mutant: SizeOnlyMutant, folder: Path) -> Path:
    """A copy of the mutant's example under ``folder`` (with CUDA's shared ``common`` headers), its kernel
    rewritten; returns the copy's task folder."""
    src = EXAMPLES / mutant.example
    dst = folder / mutant.example
    shutil.copytree(src, dst)
    common = src.parent / "common"
    if common.is_dir() and not (dst.parent / "common").exists():
        shutil.copytree(common, dst.parent / "common")
    task = load_task(dst)
    kernel = Path(task.source) if Path(task.source).is_absolute() else dst / Path(task.source).name
    text = kernel.read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, f"{mutant.key}: {mutant.old!r} occurs {text.count(mutant.old)} times"
    kernel.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
    return dst


@dataclass(frozen=True, slots=True)
class SizeOnlyResult:
    mutant: SizeOnlyMutant
    verdict: str
    false_claims: tuple[ObligationResult, ...]  # violated obligations PROVED for all sizes


def check_size_only(mutant: SizeOnlyMutant, folder: Path) -> SizeOnlyResult:
    """Confirm the mutant is size-only with the simulator, then verify it on its quiet instances."""
    where = materialise(mutant, folder)
    task = load_task(where)
    quiet = run(task, instances=[dict(i) for i in mutant.quiet])
    assert quiet.ok, f"{mutant.key}: not quiet at {mutant.quiet}: {quiet.kinds()}"
    loud = run(task, instances=[dict(mutant.witness)])
    assert mutant.failure in loud.kinds(), f"{mutant.key}: at {mutant.witness} run reports {loud.kinds()}"
    report = verify_task(task, instances=[dict(i) for i in mutant.quiet], budget=BUDGET)
    false = tuple(
        r
        for r in report.results
        if r.obligation.name in mutant.violates and r.status is Status.PROVED and r.scope.kind is ScopeKind.PARAMETRIC
    )
    return SizeOnlyResult(mutant, report.verdict.value, false)
