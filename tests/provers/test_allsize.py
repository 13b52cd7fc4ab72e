"""The all-size prover (provers/allsize.py): equivalence of elementwise kernels for every size.

Proofs on the corpus's elementwise CUDA and Triton examples; mutants that differ from them only at sizes
outside the task's instances (a tail skipped when ``n % 256 == 255``, a grid-stride loop without its second
round, an off-by-one bound from some large ``n``, a value bug above an index threshold), each first shown by
the simulator to agree at the instances and to differ at a size outside them, and never proved for all
sizes; the pipeline's upgrade (only of a bounded proof, a contradiction shown as UNKNOWN).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from larkc import load_task
from larkc.pipeline.api import run
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.verify import kernel_function, parse_task, verify_task
from larkc.provers import Budget, Counterexample, Obligation, ObligationKind, ObligationResult, Scope, Status
from larkc.provers.allsize import AllSizeAttempt, prove_allsize, upgrade_equivalence
from larkc.provers.core import CounterexampleKind, ScopeKind
from larkc.reference import trace_task
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUDGET = Budget(seconds=60)


def _attempts(task: Task) -> list[AllSizeAttempt]:
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    return prove_allsize(module, kernel_function(task, module).name, task, graph, BUDGET, chosen)


def _copy(example: str, folder: Path, old: str = "", new: str = "") -> Path:
    """The example copied under ``folder``, its kernel's ``old`` (once) replaced by ``new``."""
    src = EXAMPLES / example
    dst = folder / example
    shutil.copytree(src, dst)
    if old:
        task = load_task(dst)
        kernel = dst / Path(task.source).name
        text = kernel.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {example}"
        kernel.write_text(text.replace(old, new), encoding="utf-8")
    return dst


@pytest.mark.parametrize(
    "example", ["cuda/relu", "cuda/vector_add", "cuda/saxpy", "cuda/grid_stride", "cuda/silu", "triton/vector_add"]
)
def test_elementwise_examples_are_proved_for_every_size(example: str) -> None:
    task = load_task(EXAMPLES / example)
    (a,) = _attempts(task)
    assert a.proved, a.detail
    assert a.covers_instances
    assert any("exact real arithmetic" in x.text for x in a.assumptions)
    assert a.seconds < 10


@pytest.mark.parametrize(
    ("example", "why"),
    [
        ("cuda/gelu_tanh", "gelu"),  # a spec op outside the slice
        ("triton/cumsum", "cumsum"),  # a scan (stopped before any solver work)
        ("triton/softmax", "softmax"),
    ],
)
def test_what_is_outside_the_slice_is_not_proved(example: str, why: str) -> None:
    (a,) = _attempts(load_task(EXAMPLES / example))
    assert not a.proved
    assert why in a.detail


@dataclass(frozen=True, slots=True)
class SizeOnly:
    """A kernel change that shows only at sizes outside the example's instances (``witness``)."""

    key: str
    example: str
    old: str
    new: str
    witness: Mapping[str, int]


VECTOR_ADD_GUARD = "if (i < n) {\n    out[i] = x[i] + y[i];"
SIZE_ONLY = (
    SizeOnly(
        "tail skipped when n % 256 == 255",
        "cuda/vector_add",
        "if (i < n) {",
        "if (i < n - (n % 256 == 255 ? 1 : 0)) {",
        {"n": 511},
    ),
    SizeOnly(
        "off-by-one bound from n > 4500",
        "cuda/vector_add",
        "if (i < n) {",
        "if (i < (n > 4500 ? n - 1 : n)) {",
        {"n": 4600},
    ),
    SizeOnly(
        "value bug above index 4200",
        "cuda/vector_add",
        "out[i] = x[i] + y[i];",
        "out[i] = i > 4200 ? x[i] - y[i] : x[i] + y[i];",
        {"n": 4300},
    ),
    SizeOnly(
        "grid-stride loop without its second round",
        "cuda/grid_stride",
        "i < n; i += stride)",
        "i < n && (i < stride || n <= 3001); i += stride)",
        {"n": 3100},
    ),
    SizeOnly(
        "grid-stride loop stepping twice the grid from n > 3001",
        "cuda/grid_stride",
        "i < n; i += stride)",
        "i < n; i += (n > 3001 ? 2 * stride : stride))",
        {"n": 3100},
    ),
    SizeOnly(
        "Triton mask short by one when n % 256 == 255",
        "triton/vector_add",
        "mask = offsets < n_elements",
        "mask = offsets < n_elements - (n_elements % 256 == 255)",
        {"n": 511},
    ),
    SizeOnly(
        "Triton value bug above offset 4200",
        "triton/vector_add",
        "tl.store(out_ptr + offsets, x + y, mask=mask)",
        "tl.store(out_ptr + offsets, tl.where(offsets > 4200, x - y, x + y), mask=mask)",
        {"n": 4300},
    ),
)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", SIZE_ONLY, ids=[m.key for m in SIZE_ONLY])
def test_size_only_mutants_are_never_proved_for_every_size(mutant: SizeOnly, tmp_path: Path) -> None:
    task = load_task(_copy(mutant.example, tmp_path, mutant.old, mutant.new))
    # the mutant is what it claims: quiet at the task's instances, wrong at the witness (the simulator)
    assert run(task).ok, f"{mutant.key}: not quiet at the instances"
    loud = run(task, instances=[dict(mutant.witness)])
    assert not loud.ok, f"{mutant.key}: the simulator sees no difference at {mutant.witness}"
    (a,) = _attempts(task)
    assert not a.proved, f"{mutant.key}: proved for every size: {a.detail}"
    if a.candidate is not None:  # the sizes z3 found are where the simulator sees the mutant fail
        assert not run(task, instances=[dict(a.candidate)]).ok, f"{mutant.key}: nothing at {a.candidate}"


def test_a_failed_attempt_names_the_smallest_sizes_it_may_fail_at(tmp_path: Path) -> None:
    mutant = SIZE_ONLY[0]  # the tail skipped when n % 256 == 255
    (a,) = _attempts(load_task(_copy(mutant.example, tmp_path, mutant.old, mutant.new)))
    assert a.candidate == {"n": 255}
    assert "a candidate, not confirmed: n=255" in a.detail


def test_a_merged_branch_keeps_both_values(tmp_path: Path) -> None:
    """The executor's merge keeps one arm of an untracked (float) value; the prover's must not: a ReLU
    written with a branch is proved, and the same with a wrong else value is not."""
    body = "const T v = x[i];\n    out[i] = v > T(0) ? v : T(0);"
    branch = "T v = T(0);\n    if (x[i] > T(0)) {\n      v = x[i];\n    }\n    out[i] = v;"
    good = load_task(_copy("cuda/relu", tmp_path / "good", body, branch))
    (a,) = _attempts(good)
    assert a.proved, a.detail
    bad = load_task(_copy("cuda/relu", tmp_path / "bad", body, branch.replace("T v = T(0);", "T v = T(1);")))
    (b,) = _attempts(bad)
    assert not b.proved
    assert "differs" in b.detail


def test_a_float_changed_by_a_summarised_loop_is_unknown(tmp_path: Path) -> None:
    """The executor keeps a float the loop changes at its value before the loop (it tracks no floats);
    the prover must not: ReLU plus one per doubling of ``k`` up to ``n`` is not ReLU (for ``n > 1``)."""
    body = "const T v = x[i];\n    out[i] = v > T(0) ? v : T(0);"
    looped = (
        "T v = x[i] > T(0) ? x[i] : T(0);\n    for (int k = 1; k < n; k *= 2) {\n      v = v + T(1);\n    }\n"
        "    out[i] = v;"
    )
    (a,) = _attempts(load_task(_copy("cuda/relu", tmp_path, body, looped)))
    assert not a.proved, a.detail


def test_a_kernel_of_one_specialisation_is_not_claimed_for_every_size() -> None:
    """Red-team tr_heuristic_even_wrong_divisor: its heuristic constexpr depends on n, the IR is the
    specialisation at the first instance, and the kernel is wrong exactly outside it (at n = 192)."""
    redteam = Path(__file__).resolve().parents[1] / "redteam" / "cases" / "tr_heuristic_even_wrong_divisor"
    (a,) = _attempts(load_task(redteam))
    assert not a.proved
    assert "specialisation" in a.detail


def test_a_kernel_through_shared_memory_is_refused(tmp_path: Path) -> None:
    """Memory other than the inputs and outputs may carry values between threads: not this slice."""
    body = "const T v = x[i];"
    staged = "__shared__ T buf[512];\n    buf[threadIdx.x] = x[i];\n    const T v = buf[threadIdx.x];"
    (a,) = _attempts(load_task(_copy("cuda/relu", tmp_path, body, staged)))
    assert not a.proved
    assert "shared" in a.detail


def test_a_store_outside_the_output_is_not_an_elements_value(tmp_path: Path) -> None:
    """An element never written is not proved: the mutant stores to ``out[i + 1]``, leaving ``out[0]``."""
    task = load_task(
        _copy("cuda/vector_add", tmp_path, "out[i] = x[i] + y[i];", "if (i + 1 < n) out[i + 1] = x[i + 1] + y[i + 1];")
    )
    (a,) = _attempts(task)
    assert not a.proved
    assert "written" in a.detail


@pytest.mark.slow
def test_the_pipeline_upgrades_a_bounded_proof_and_only_then() -> None:
    report = verify_task(load_task(EXAMPLES / "cuda/vector_add"), budget=BUDGET)
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.PROVED
    assert eq.scope.kind is ScopeKind.PARAMETRIC
    assert "allsize-z3" in eq.prover and "symbolic" in eq.prover


@pytest.mark.slow
def test_the_pipeline_refutes_a_size_only_mutant_at_the_sizes_found(tmp_path: Path) -> None:
    """Proved at every instance, but the all-size attempt's sizes are checked by the simulator: refuted."""
    mutant = SIZE_ONLY[0]
    task = load_task(_copy(mutant.example, tmp_path, mutant.old, mutant.new))
    report = verify_task(task, budget=BUDGET, replay_dir=tmp_path / "replay")
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.REFUTED
    assert eq.counterexample is not None
    assert dict(eq.counterexample.instance) == {"n": 255}
    assert eq.counterexample.kind is CounterexampleKind.CONFIRMED


def test_an_unconfirmed_candidate_leaves_the_bounded_proof(tmp_path: Path) -> None:
    mutant = SIZE_ONLY[0]
    task = load_task(_copy(mutant.example, tmp_path, mutant.old, mutant.new))
    seen: list[ObligationResult] = []

    def settle(r: ObligationResult) -> ObligationResult:  # the pipeline's check, deciding nothing
        seen.append(r)
        return r

    r = _upgrade(Status.PROVED, task, settle)
    assert [dict(w.instance) for w in seen[0].witnesses] == [{"n": 255}]
    assert r.status is Status.PROVED and r.scope.kind is ScopeKind.BOUNDED
    assert "for all sizes unknown (allsize-z3)" in r.detail


def _bounded(ob: Obligation, status: Status) -> ObligationResult:
    scope = Scope.bounded([{"n": 1}], ["grid 1x1x1, block 256x1x1"])
    if status is Status.REFUTED:
        cx = Counterexample(CounterexampleKind.EXACT, "out[0] differs", {"n": 1})
        return ObligationResult(ob, status, scope, "symbolic", "differs", (), cx)
    return ObligationResult(ob, status, scope, "symbolic", "why")


def _upgrade(
    status: Status, task: Task | None = None, settle: Callable[[ObligationResult], ObligationResult] | None = None
) -> ObligationResult:
    task = task or load_task(EXAMPLES / "cuda/vector_add")
    graph = trace_task(functional_reference(task))
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    ob = Obligation(ObligationKind.EQUIVALENCE, "out")
    per_ob = {ob: [_bounded(ob, status)]}
    out = upgrade_equivalence(task, module, kernel_function(task, module), graph, per_ob, BUDGET, chosen, settle=settle)
    (r,) = out[ob]
    return r


def test_a_contradiction_between_the_provers_is_unknown_with_both() -> None:
    r = _upgrade(Status.REFUTED)
    assert r.status is Status.UNKNOWN
    assert "internal inconsistency" in r.detail and "allsize-z3" in r.detail


def test_an_unknown_bounded_result_is_not_upgraded() -> None:
    r = _upgrade(Status.UNKNOWN)
    assert r.status is Status.UNKNOWN
    assert r.scope.kind is ScopeKind.BOUNDED


def test_the_elementwise_ops_are_spec_ops_and_each_is_evaluated() -> None:
    """Every op the early filter lets through is one the spec side evaluates (none falls to "not handled")."""
    import z3

    from larkc.provers.allsize import ELEMENTWISE_OPS, _SpecElements, _Vocabulary
    from larkc.provers.folds import FoldTable
    from larkc.reference.spec import Ref, Scalar, SpecGraph, SpecInput, SpecNode, SpecOp, ValueType
    from larkc.tasks.shape_expr import ShapeSym

    assert {op.value for op in SpecOp} >= ELEMENTWISE_OPS
    task = load_task(EXAMPLES / "cuda/vector_add")
    f32 = task.tensors["x"].dtype
    vt = ValueType((ShapeSym("n"),), f32)
    from larkc.provers.zworld import Registry, World

    world = World(task, Registry(), None)
    for name in sorted(ELEMENTWISE_OPS):
        op = SpecOp(name)
        args: tuple[Ref | Scalar, ...] = (Ref("x"),)
        if op in (SpecOp.ADD, SpecOp.SUB, SpecOp.MUL, SpecOp.DIV, SpecOp.MAXIMUM, SpecOp.MINIMUM):
            args = (Ref("x"), Ref("y"))
        elif op is SpecOp.POW:
            args = (Ref("x"), Scalar(2))
        elif op is SpecOp.CLAMP:
            args = (Ref("x"), Scalar(-1.0), Scalar(1.0))
        node = SpecNode("r", op, args, (), vt)
        graph = SpecGraph("g", ("n",), (SpecInput("x", vt), SpecInput("y", vt)), (), (node,), ("r",))
        spec = _SpecElements(graph, task, world, _Vocabulary([]), lambda *_: True, FoldTable(lambda *_: True))
        assert isinstance(spec.element("r", z3.Int("j")), z3.ExprRef), name


RELU_BODY = "const T v = x[i];\n    out[i] = v > T(0) ? v : T(0);"


@pytest.mark.parametrize(
    "body",
    [
        # a loop that never ends once n > 5000, before the store (the executor takes the state after a loop
        # as reached: the store counted as covering its elements at every n)
        "while (n > 5000) {\n    }\n    const T v = x[i];\n    out[i] = v > T(0) ? v : T(0);",
        # the same spelled as a for loop whose stride may be 0
        "for (int j = 0; j < n; j += n / 5001) {\n    }\n    const T v = x[i];\n    out[i] = v > T(0) ? v : T(0);",
    ],
    ids=["while", "zero-stride"],
)
def test_a_store_behind_a_loop_not_shown_to_end_is_not_proved(tmp_path: Path, body: str) -> None:
    (a,) = _attempts(load_task(_copy("cuda/relu", tmp_path, RELU_BODY, body)))
    assert not a.proved and "a loop not shown to end for every size" in a.detail, a.detail


def test_a_grid_stride_loop_ends(tmp_path: Path) -> None:
    """``for (i = tid; i < n; i += blockDim.x * gridDim.x)`` provably ends: the example is proved."""
    (a,) = _attempts(load_task(_copy("cuda/grid_stride", tmp_path)))
    assert a.proved, a.detail


def test_a_partial_function_is_not_total_here(tmp_path: Path) -> None:
    """``0 * sqrt(v - 1)`` is NaN for ``v < 1`` on a GPU: as a total function it would vanish, so a value
    through ``sqrt`` (``log``, ``pow``, ``rsqrt``) is not followed and nothing is proved for all sizes."""
    body = "const T v = x[i];\n    out[i] = (v > T(0) ? v : T(0)) + T(0) * sqrtf(v - T(1));"
    (a,) = _attempts(load_task(_copy("cuda/relu", tmp_path, RELU_BODY, body)))
    assert not a.proved, a.detail


def test_the_parametric_world_is_used_through_its_public_facade() -> None:
    """allsize.py builds on ``parametric.kernel_world``, not on the parametric prover's private classes."""
    import inspect

    from larkc.provers import allsize
    from larkc.provers.parametric import kernel_world

    src = inspect.getsource(allsize)
    assert "_Analysis" not in src and "import _kernel" not in src
    task = load_task(EXAMPLES / "cuda/vector_add")
    chosen = [task.shape_env(i) for i in task.instances]
    module = parse_task(task, chosen[0], None)
    kw = kernel_world(module, kernel_function(task, module).name, task, BUDGET, 1e18, chosen[0])
    assert set(kw.param_values) == {p.name for p in kw.fn.params}
    assert not kw.specialisation and kw.constraints
