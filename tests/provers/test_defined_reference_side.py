"""The reference's domain is recorded when it is evaluated, guarded by the ``where`` that uses it, and a
kernel's ternary arms are guarded by their condition (issue 19, the reference-side gaps).

* ``2 * x + 0 * torch.sqrt(x - 1)`` is NaN for ``x < 1``; the term constructors cancel ``0 * sqrt(..)`` on
  the spot, and the reference's domain was read from its final terms only, so a kernel computing ``2 * x``
  was VERIFIED with no ``[domain]`` assumption. The condition ``x - 1 >= 0`` is now recorded as the sqrt is
  evaluated and listed.
* ``torch.where(x >= 0, torch.sqrt(x), 0)`` needs ``x >= 0`` only where it takes the sqrt, i.e. nowhere:
  read unguarded from the final terms, ``x >= 0`` excused a kernel that takes ``sqrtf`` of every element
  (NaN at ``x < 0`` where the reference is 0; UNKNOWN before, now FAILED).
* ``v > 0 ? logf(v) : 0`` (CUDA) and ``tl.where(x > 0, tl.log(x), 0)`` (Triton) evaluate both arms, but the
  log's ``v > 0`` is needed only where the arm is taken: the correct kernels are VERIFIED with no domain
  assumption.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import larkc
from larkc.pipeline.reports import VerifyReport
from larkc.provers import AssumptionKind, ObligationKind, Status, Verdict
from larkc.tasks import Task

_CUDA = """
// A fused elementwise map, y = f(x).
__global__ void pointwise(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        %s
    }
}
"""

_TRITON = """
import triton
import triton.language as tl


@triton.jit
def pointwise(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    %s
    tl.store(y_ptr + offs, y, mask=mask)
"""

Reference = Callable[[torch.Tensor], torch.Tensor]


def _cuda(tmp_path: Path, body: str, reference: Reference) -> Task:
    (tmp_path / "kernel.cu").write_text(_CUDA % body, encoding="utf-8")
    return Task(
        name="pointwise",
        source=str(tmp_path / "kernel.cu"),
        kernel="pointwise",
        reference=reference,
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        symbols=["n"],
        constraints=["n <= 1048576"],
        instances=[{"n": 6}],
        grid=["cdiv(n, 32)"],
        block=[32],
    )


def _triton(tmp_path: Path, body: str, reference: Reference) -> Task:
    (tmp_path / "kernel.py").write_text(_TRITON % body, encoding="utf-8")
    return Task(
        name="pointwise",
        source=str(tmp_path / "kernel.py"),
        kernel="pointwise",
        reference=reference,
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        bindings={"x_ptr": "x", "y_ptr": "y", "BLOCK": 8},
        symbols=["n"],
        constraints=["n <= 1048576"],
        instances=[{"n": 6}],
        grid=["cdiv(n, 8)"],
        block=[1],
    )


def _show(report: VerifyReport) -> str:
    return "\n".join(report.render())


def _domain_texts(report: VerifyReport) -> list[str]:
    return [a.text for r in report.results for a in r.assumptions if a.kind is AssumptionKind.DOMAIN]


def test_a_cancelled_partial_function_of_the_reference_is_its_domain(tmp_path: Path) -> None:
    report = larkc.verify(_cuda(tmp_path, "y[i] = 2.0f * v;", lambda x: 2 * x + 0 * torch.sqrt(x - 1)))
    assert report.verdict is Verdict.VERIFIED, _show(report)
    texts = _domain_texts(report)
    assert any("x[0] - 1 >= 0" in t for t in texts), _show(report)


@pytest.mark.parametrize(
    ("body", "reference"),
    [
        ("y[i] = sqrtf(v);", lambda x: torch.where(x >= 0, torch.sqrt(x), 0)),
        ("y[i] = 1.0f / v;", lambda x: torch.where(x != 0, 1 / x, 0)),
    ],
    ids=["sqrt", "reciprocal"],
)
def test_a_where_guards_the_domain_of_its_arms(tmp_path: Path, body: str, reference: Reference) -> None:
    """The kernel skips the guard: NaN (inf) where the reference takes its other arm."""
    report = larkc.verify(_cuda(tmp_path, body, reference))
    assert report.verdict is Verdict.FAILED, _show(report)
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.REFUTED, _show(report)


def _guarded_log(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, torch.log(x), 0)


@pytest.mark.parametrize(
    "body",
    [
        "y[i] = v > 0.0f ? logf(v) : 0.0f;",
        "y[i] = v <= 0.0f ? 0.0f : logf(v);",
        "float r = 0.0f;\n        if (v > 0.0f) r = logf(v);\n        y[i] = r;",
    ],
    ids=["ternary", "ternary-else-arm", "if-arm"],
)
def test_cuda_ternary_arms_need_their_domain_only_where_taken(tmp_path: Path, body: str) -> None:
    report = larkc.verify(_cuda(tmp_path, body, _guarded_log))
    assert report.verdict is Verdict.VERIFIED, _show(report)
    assert not _domain_texts(report), _show(report)


def test_cuda_ternary_arm_taken_outside_the_domain_is_failed(tmp_path: Path) -> None:
    """The condition is off by one: ``logf(v)`` is taken at ``v = 0`` (-inf, the reference is 0)."""
    report = larkc.verify(_cuda(tmp_path, "y[i] = v >= 0.0f ? logf(v) : 0.0f;", _guarded_log))
    assert report.verdict is Verdict.FAILED, _show(report)


def test_triton_where_arms_need_their_domain_only_where_taken(tmp_path: Path) -> None:
    report = larkc.verify(_triton(tmp_path, "y = tl.where(x > 0, tl.log(x), 0.0)", _guarded_log))
    assert report.verdict is Verdict.VERIFIED, _show(report)
    assert not _domain_texts(report), _show(report)


# --------------------------------------------------------------------------------------------------
# A log the reference bounds below is defined at 0 (IEEE: log(0) = -inf, max(-inf, -100) = -100)


def test_a_log_bounded_below_needs_only_a_nonnegative_argument() -> None:
    from larkc.provers.domains import reference_domain
    from larkc.reference import evaluate_symbolic_with_conditions, trace_reference
    from larkc.symbolic.conditions import Requirement

    references: list[Reference] = [
        lambda p: torch.clamp(torch.log(p), min=-100),
        lambda p: torch.log(p).clamp(min=-100.0, max=0.0),
        lambda p: torch.relu(torch.log(p)),
    ]
    for reference in references:
        graph = trace_reference(reference, {"p": "f32[n]"}, symbols=["n"])
        ((terms, conditions),) = evaluate_symbolic_with_conditions(graph, {"n": 2})
        needs = {c.requirement for c in conditions}
        assert needs == {Requirement.NONNEGATIVE}, conditions
        elems = [t for t in terms.elems if not isinstance(t, str)]
        walked = {c.requirement for c in reference_domain(elems).values()}  # type: ignore[arg-type]
        assert walked == {Requirement.NONNEGATIVE}, walked


@pytest.mark.parametrize(
    ("body", "wrong"),
    [("y[i] = logf(v);", True), ("y[i] = fmaxf(logf(v), -100.0f);", False)],
    ids=["clamp-forgotten", "clamped"],
)
def test_bce_log_clamp_is_not_excused_at_zero(tmp_path: Path, body: str, wrong: bool) -> None:
    """BCE's ``clamp(log(p), min=-100)`` at ``p = 0`` is -100; a kernel without the clamp gives -inf. Neither
    kernel may be VERIFIED under a ``p > 0`` assumption the reference does not need; the correct one is not
    FAILED (UNKNOWN: the terms cannot say what either computes at 0)."""
    report = larkc.verify(_cuda(tmp_path, body, lambda p: torch.clamp(torch.log(p), min=-100)))
    assert report.verdict is not Verdict.VERIFIED, _show(report)
    if not wrong:
        assert report.verdict is not Verdict.FAILED, _show(report)
