"""The domain of a partial function of the kernel is recorded when it is evaluated (issue 19, the bounded
``defined`` gap).

``sqrtf(v - 1)`` is NaN for ``v < 1`` on a GPU, and ``0 * NaN`` is NaN: a kernel storing ``2 * v + 0 *
sqrtf(v - 1)`` is wrong against ``2 * x``. The term language cancels ``0 * sqrt(v - 1)`` (and ``t - t``,
``alpha * t`` with ``alpha`` bound to 0) the moment the product is built, so a condition recorded only by
later simplifications vanished with it, and the bounded prover VERIFIED such kernels. Every ``sqrt``,
``rsqrt``, logarithm and ``pow`` of a symbolic argument now records its condition as it is evaluated, for
the threads that evaluate it (an if-converted arm guards it with its condition); the condition is decided
as a reference's are: proved by the sign facts or z3, or refuted by inputs the simulator confirms (FAILED),
or the obligation is UNKNOWN. The correct twins (a clamp, an epsilon, an arm taken only where the argument
is in the domain, an integer input of declared range) stay VERIFIED.

Each kernel is written inline, the way library code is written (a fused elementwise epilogue with a
scale the host sets to 0, a correction recomputed and subtracted, a guarded square root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.pipeline.reports import VerifyReport
from larkc.provers import CounterexampleKind, ObligationKind, Status, Verdict
from larkc.tasks import Task

_CUDA = """
// Fused elementwise epilogue: y = f(x) per element.
__global__ void epilogue(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
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
def epilogue(x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    %s
    tl.store(y_ptr + offs, y, mask=mask)
"""


def _cuda(tmp_path: Path, body: str, reference: object, alpha: float = 0.0) -> Task:
    (tmp_path / "kernel.cu").write_text(_CUDA % body, encoding="utf-8")
    return Task(
        name="epilogue",
        source=str(tmp_path / "kernel.cu"),
        kernel="epilogue",
        reference=reference,
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        bindings={"alpha": alpha},
        symbols=["n"],
        constraints=["n <= 1048576"],
        instances=[{"n": 40}],
        grid=["cdiv(n, 32)"],
        block=[32],
    )


def _triton(tmp_path: Path, body: str, reference: object, alpha: float = 0.0) -> Task:
    (tmp_path / "kernel.py").write_text(_TRITON % body, encoding="utf-8")
    return Task(
        name="epilogue",
        source=str(tmp_path / "kernel.py"),
        kernel="epilogue",
        reference=reference,
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        bindings={"x_ptr": "x", "y_ptr": "y", "alpha": alpha, "BLOCK": 32},
        symbols=["n"],
        constraints=["n <= 1048576"],
        instances=[{"n": 40}],
        grid=["cdiv(n, 32)"],
        block=[1],
    )


def _show(report: VerifyReport) -> str:
    return "\n".join(report.render())


def _assert_failed_by_domain(report: VerifyReport) -> None:
    assert report.verdict is Verdict.FAILED, _show(report)
    (eq,) = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
    assert eq.status is Status.REFUTED, _show(report)
    cx = eq.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED, _show(report)


def _twice(x: object) -> object:
    return 2 * x  # type: ignore[operator]


def _same(x: object) -> object:
    return x * 1.0  # type: ignore[operator]


# --------------------------------------------------------------------------------------------------
# Wrong: the partial function's subterm cancels, its NaN does not


@pytest.mark.parametrize(
    "body",
    [
        "y[i] = 2.0f * v + 0.0f * sqrtf(v - 1.0f);",
        "y[i] = 2.0f * v + alpha * sqrtf(v - 1.0f);",  # a scale the host sets to 0
        "float r = logf(v);\n        y[i] = 2.0f * v + r - logf(v);",  # a correction recomputed, subtracted
        "y[i] = 2.0f * v + alpha * rsqrtf(v);",
        "y[i] = 2.0f * v + alpha * powf(v, 0.75f);",
        "y[i] = 2.0f * v + alpha * log1pf(v);",
    ],
    ids=["zero-times-sqrt", "alpha-sqrt", "log-minus-log", "alpha-rsqrt", "alpha-pow", "alpha-log1p"],
)
def test_cuda_cancelled_partial_function_is_failed(tmp_path: Path, body: str) -> None:
    _assert_failed_by_domain(larkc.verify(_cuda(tmp_path, body, _twice)))


@pytest.mark.parametrize(
    "body",
    [
        "y = 2.0 * x + 0.0 * tl.sqrt(x - 1.0)",
        "y = 2.0 * x + alpha * tl.log(x)",
        "y = 2.0 * x + alpha * tl.math.rsqrt(x)",
    ],
    ids=["zero-times-sqrt", "alpha-log", "alpha-rsqrt"],
)
def test_triton_cancelled_partial_function_is_failed(tmp_path: Path, body: str) -> None:
    _assert_failed_by_domain(larkc.verify(_triton(tmp_path, body, _twice)))


# --------------------------------------------------------------------------------------------------
# Correct twins: the argument is in the domain for every input (or every input that takes the arm)


@pytest.mark.parametrize(
    "body",
    [
        "y[i] = 2.0f * v + alpha * sqrtf(fmaxf(v - 1.0f, 0.0f));",  # clamped
        "y[i] = 2.0f * v + alpha * rsqrtf(v * v + 1e-6f);",  # an epsilon
        "y[i] = 2.0f * v + alpha * logf(expf(v) + 1.0f);",  # softplus: a positive argument
        "if (v > 1.0f) {\n            y[i] = 2.0f * v + alpha * sqrtf(v - 1.0f);\n"
        "        } else {\n            y[i] = 2.0f * v;\n        }",  # the arm runs where v - 1 > 0
    ],
    ids=["clamp", "eps", "softplus", "guarded-arm"],
)
def test_cuda_partial_function_in_its_domain_is_verified(tmp_path: Path, body: str) -> None:
    report = larkc.verify(_cuda(tmp_path, body, _twice))
    assert report.verdict is Verdict.VERIFIED, _show(report)


@pytest.mark.parametrize(
    "body",
    [
        "y = 2.0 * x + alpha * tl.sqrt(tl.maximum(x - 1.0, 0.0))",
        "y = 2.0 * x + alpha * tl.math.rsqrt(x * x + 1e-6)",
    ],
    ids=["clamp", "eps"],
)
def test_triton_partial_function_in_its_domain_is_verified(tmp_path: Path, body: str) -> None:
    report = larkc.verify(_triton(tmp_path, body, _twice))
    assert report.verdict is Verdict.VERIFIED, _show(report)


def test_an_integer_input_in_its_declared_range_is_proved_in_the_domain(tmp_path: Path) -> None:
    """``sqrtf((float)(idx - 1))`` with ``idx`` declared in ``[1, 4096)``: z3 proves the argument
    nonnegative from the task's range (no assumption), and the cancelled term is harmless."""
    src = """
__global__ void shifted(const int* __restrict__ idx, float* __restrict__ y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)idx[i];
        y[i] = v + alpha * sqrtf(v - 1.0f);
    }
}
"""
    (tmp_path / "kernel.cu").write_text(src, encoding="utf-8")

    def task(low: int) -> Task:
        return Task(
            name="shifted",
            source=str(tmp_path / "kernel.cu"),
            kernel="shifted",
            reference=lambda idx: idx.to(dtype=__import__("torch").float32),
            inputs={"idx": f"i32[n] in [{low}, 4096)"},
            outputs={"y": "f32[n]"},
            bindings={"alpha": 0.0},
            symbols=["n"],
            constraints=["n <= 1048576"],
            instances=[{"n": 40}],
            grid=["cdiv(n, 32)"],
            block=[32],
        )

    report = larkc.verify(task(1))
    assert report.verdict is Verdict.VERIFIED, _show(report)
    _assert_failed_by_domain(larkc.verify(task(0)))


def test_the_same_partial_function_in_the_reference_is_its_domain(tmp_path: Path) -> None:
    """The kernel's ``sqrtf(v)`` against the reference's ``torch.sqrt(x)``: inputs outside the
    reference's domain are no counterexample (a ``domain`` assumption), as for a reference's conditions."""
    report = larkc.verify(_cuda(tmp_path, "y[i] = sqrtf(v) + alpha * logf(v);", lambda x: x.sqrt()))
    # the kernel's log needs v > 0, the reference's sqrt only v >= 0: v = 0 separates them (log(0) = -inf)
    assert report.verdict is not Verdict.VERIFIED, _show(report)
    report = larkc.verify(_cuda(tmp_path, "y[i] = sqrtf(v) + alpha * sqrtf(v);", lambda x: x.sqrt()))
    assert report.verdict is Verdict.VERIFIED, _show(report)
