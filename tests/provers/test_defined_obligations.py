"""The ``defined`` obligation and the domains of partial operations (issue 19, classes 1, 8 and 10).

Every kernel here is written inline, the way library code is written, and verified against a PyTorch
reference:

* a float-to-integer conversion of data is an obligation: the missing-clamp int8 quantisation and an
  fp32 -> int32 fixed-point conversion are FAILED with a ``ub`` the simulator confirms; with the clamp
  (``fminf(fmaxf(.))``, ``tl.minimum(tl.maximum(.))``, ``tl.clamp``) they are VERIFIED;
* a simplification that holds only on part of the inputs (``exp(2 * log(x)) = x * x`` for ``x > 0``,
  ``x * x / x = x`` for ``x != 0``) is never a silent assumption: it is refuted by an input outside that
  part, unless the reference applies the same partial function (``torch.log(x)``, a division by the same
  sum): then the verdict lists it once, as what it is (``domain``: the inputs where the reference is
  defined), never as ``nonzero``;
* a signed integer accumulation of data that overflows is FAILED (``ub``, as ``larkc run`` reports it).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from larkc.pipeline.reports import VerifyReport
from larkc.pipeline.verify import verify_task
from larkc.provers import AssumptionKind, CounterexampleKind, ObligationKind, Status, Verdict
from larkc.provers.core import ObligationResult
from larkc.tasks import load_task

_TRITON_TASK_HEAD = "import torch\nfrom larkc import Task\n"


def _write(tmp_path: Path, name: str, source_name: str, source: str, task: str) -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / source_name).write_text(textwrap.dedent(source))
    (d / "task.py").write_text(textwrap.dedent(task))
    return d


def _verify(path: Path, tmp_path: Path) -> VerifyReport:
    return verify_task(load_task(path), replay_dir=tmp_path / "replays")


def _result(report: VerifyReport, kind: ObligationKind) -> ObligationResult:
    (r,) = [r for r in report.results if r.obligation.kind is kind]
    return r


# --------------------------------------------------------------------------------------------------
# Class 1: float-to-integer conversions

_QUANT_CUDA = """\
#include <cstdint>

// Per-tensor symmetric int8 quantisation with a fixed inverse scale.
__global__ void quantize_int8(const float* __restrict__ x, int8_t* __restrict__ q, float inv_scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] * inv_scale;
        q[i] = static_cast<int8_t>(%s);
    }
}
"""

_QUANT_TASK = """\
import torch
from larkc import Task

def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x * 16.0, -128.0, 127.0).to(torch.int8)

task = Task(
    source="%s", kernel="quantize_int8", reference=reference,
    inputs={"x": "f32[n]"}, outputs={"q": "i8[n]"},
    bindings={"inv_scale": 16.0%s},
    symbols=["n"], constraints=["n <= 1048576"],
    instances=[{"n": 5}, {"n": 300}],
    grid=[%s], block=[%s],
)
"""


def _cuda_quant(tmp_path: Path, name: str, value: str) -> Path:
    task = _QUANT_TASK % ("kernel.cu", "", '"cdiv(n, 128)"', "128")
    return _write(tmp_path, name, "kernel.cu", _QUANT_CUDA % value, task)


_QUANT_TRITON = """\
import triton
import triton.language as tl


@triton.jit
def quantize_int8(x_ptr, q_ptr, inv_scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0) * inv_scale
    tl.store(q_ptr + offs, (%s).to(tl.int8), mask=mask)
"""


def _triton_quant(tmp_path: Path, name: str, value: str) -> Path:
    task = _QUANT_TASK % ("kernel.py", ', "x_ptr": "x", "q_ptr": "q", "BLOCK": 64', '"cdiv(n, 64)"', "1")
    return _write(tmp_path, name, "kernel.py", _QUANT_TRITON % value, task)


def _assert_ub_refuted(report: VerifyReport) -> None:
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    defined = _result(report, ObligationKind.DEFINED)
    assert defined.status is Status.REFUTED, defined.detail
    cx = defined.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED, cx
    assert cx.inputs, "the witness names the input values that make the conversion undefined"


def test_cuda_quantisation_without_clamp_is_failed(tmp_path: Path) -> None:
    report = _verify(_cuda_quant(tmp_path, "noclamp", "v"), tmp_path)
    _assert_ub_refuted(report)
    assert "float-to-i8" in _result(report, ObligationKind.DEFINED).counterexample.message  # type: ignore[union-attr]


def test_cuda_quantisation_with_clamp_is_verified(tmp_path: Path) -> None:
    report = _verify(_cuda_quant(tmp_path, "clamp", "fminf(fmaxf(v, -128.0f), 127.0f)"), tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    assert "float-to-i8 conversion" in _result(report, ObligationKind.DEFINED).detail


def test_triton_quantisation_without_clamp_is_failed(tmp_path: Path) -> None:
    _assert_ub_refuted(_verify(_triton_quant(tmp_path, "noclamp", "v"), tmp_path))


def test_triton_quantisation_with_clamp_is_verified(tmp_path: Path) -> None:
    report = _verify(_triton_quant(tmp_path, "clamp", "tl.minimum(tl.maximum(v, -128.0), 127.0)"), tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_fixed_point_conversion_is_failed(tmp_path: Path) -> None:
    """``(int)(x * 2^24)`` against the reference doing the same conversion in torch: the conversion is
    undefined for |x| >= 128 in the kernel (CUDA), whatever torch does with it."""
    src = """\
    __global__ void to_fixed24(const float* x, int* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = (int)(x[i] * 16777216.0f);
    }
    """
    task = """\
    import torch
    from larkc import Task

    def reference(x: torch.Tensor) -> torch.Tensor:
        return (x * 16777216.0).to(torch.int32)

    task = Task(
        source="kernel.cu", kernel="to_fixed24", reference=reference,
        inputs={"x": "f32[n]"}, outputs={"out": "i32[n]"},
        symbols=["n"], constraints=["n <= 1048576"], instances=[{"n": 7}],
        grid=["cdiv(n, 64)"], block=[64],
    )
    """
    _assert_ub_refuted(_verify(_write(tmp_path, "fixed", "kernel.cu", src, task), tmp_path))


def test_conversion_of_an_int_input_in_its_declared_range_is_verified(tmp_path: Path) -> None:
    """A float computed from an index input of declared range converts back in range: proved from the
    task's range, not assumed."""
    src = """\
    __global__ void halve_index(const int* idx, int* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = (int)((float)idx[i] * 0.5f);
    }
    """
    task = """\
    import torch
    from larkc import Task

    def reference(idx: torch.Tensor) -> torch.Tensor:
        return (idx.to(torch.float32) * 0.5).to(torch.int32)

    task = Task(
        source="kernel.cu", kernel="halve_index", reference=reference,
        inputs={"idx": "i32[n] in [0, 4096)"}, outputs={"out": "i32[n]"},
        symbols=["n"], constraints=["n <= 1048576"], instances=[{"n": 9}],
        grid=["cdiv(n, 64)"], block=[64],
    )
    """
    report = _verify(_write(tmp_path, "halve", "kernel.cu", src, task), tmp_path)
    assert _result(report, ObligationKind.DEFINED).status is Status.PROVED
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


# --------------------------------------------------------------------------------------------------
# Class 8: domains of math functions and division

_ELEMENTWISE_TASK = """\
import torch
from larkc import Task

def reference(x: torch.Tensor) -> torch.Tensor:
    return %s

task = Task(
    source="kernel.cu", kernel="%s", reference=reference,
    inputs={"x": "f32[n]"}, outputs={"y": "f32[n]"},
    symbols=["n"], constraints=["n <= 1048576"], instances=[{"n": 40}],
    grid=["cdiv(n, 32)"], block=[32],
)
"""


def _elementwise(tmp_path: Path, name: str, body: str, reference: str) -> Path:
    src = f"""\
    __global__ void {name}(const float* __restrict__ x, float* __restrict__ y, int n) {{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {{
            float v = x[i];
            y[i] = {body};
        }}
    }}
    """
    return _write(tmp_path, name, "kernel.cu", src, _ELEMENTWISE_TASK % (reference, name))


def _no_nonzero_label(report: VerifyReport) -> None:
    for r in report.results:
        for a in r.assumptions:
            assert a.kind.value != "nonzero", a


def test_square_through_exp_log_is_failed(tmp_path: Path) -> None:
    """``expf(2 * logf(x))`` equals ``x * x`` only for x > 0: a negative input separates them (NaN)."""
    report = _verify(_elementwise(tmp_path, "square_explog", "expf(2.0f * logf(v))", "x * x"), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    eq = _result(report, ObligationKind.EQUIVALENCE)
    assert eq.status is Status.REFUTED and eq.counterexample is not None
    assert eq.counterexample.kind is CounterexampleKind.CONFIRMED
    assert any(v <= 0 for vals in eq.counterexample.inputs.values() for v in vals.values())


def test_cancelled_division_is_failed(tmp_path: Path) -> None:
    """``x * x / x`` is ``x`` only where x != 0; the reference is defined at 0."""
    report = _verify(_elementwise(tmp_path, "cancel_div", "(v * v) / v", "x.clone()"), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    eq = _result(report, ObligationKind.EQUIVALENCE)
    assert eq.status is Status.REFUTED and eq.counterexample is not None
    assert eq.counterexample.kind is CounterexampleKind.CONFIRMED


def test_log_of_raw_input_against_torch_log_is_verified(tmp_path: Path) -> None:
    report = _verify(_elementwise(tmp_path, "log_raw", "logf(v)", "torch.log(x)"), tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    _no_nonzero_label(report)


def test_same_partial_simplification_in_the_reference_is_a_domain_assumption(tmp_path: Path) -> None:
    """The kernel squares through exp/log, and so does the reference: the inputs where the reference is
    undefined are no counterexample; the verdict says so once, as a ``domain`` assumption."""
    report = _verify(
        _elementwise(tmp_path, "square_both", "expf(2.0f * logf(v))", "torch.exp(2.0 * torch.log(x))"), tmp_path
    )
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    _no_nonzero_label(report)
    eq = _result(report, ObligationKind.EQUIVALENCE)
    domain = [a for a in eq.assumptions if a.kind is AssumptionKind.DOMAIN]
    assert len(domain) <= 2, domain  # one statement (and at most a count), never one per element


_LOG_STATS_TRITON = """\
import triton
import triton.language as tl


@triton.jit
def log_stats(x_ptr, sq_ptr, lg_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    lg = tl.log(x)
    tl.store(lg_ptr + offs, lg, mask=mask)
    tl.store(sq_ptr + offs, tl.exp(2.0 * lg), mask=mask)
"""

_LOG_STATS_TASK = """\
import torch
from larkc import Task

def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return %s, torch.log(x)

task = Task(
    source="kernel.py", kernel="log_stats", reference=reference,
    inputs={"x": "f32[n]"}, outputs={"sq": "f32[n]", "lg": "f32[n]"},
    bindings={"x_ptr": "x", "sq_ptr": "sq", "lg_ptr": "lg", "BLOCK": 32},
    symbols=["n"], constraints=["n <= 65536"], instances=[{"n": 5}],
    grid=["cdiv(n, 32)"], block=[1],
)
"""


def test_another_outputs_reference_domain_excuses_nothing(tmp_path: Path) -> None:
    """Two outputs: ``lg`` (the reference's ``torch.log(x)``, defined for x > 0) and ``sq`` (the reference's
    ``x * x``, defined everywhere), the kernel's ``sq`` being ``exp(2 * log(x))``. Only ``lg``'s reference
    needs x > 0: ``sq`` must not assume it (it did, when the domain was read from every output at once)."""
    path = _write(tmp_path, "log_stats_sq", "kernel.py", _LOG_STATS_TRITON, _LOG_STATS_TASK % "x * x")
    report = _verify(path, tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    eqs = {r.obligation.subject: r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE}
    assert eqs["sq"].status is Status.REFUTED and eqs["sq"].counterexample is not None
    assert eqs["sq"].counterexample.kind is CounterexampleKind.CONFIRMED
    assert eqs["lg"].status is Status.PROVED


def test_each_output_assumes_its_own_reference_domain(tmp_path: Path) -> None:
    """The same kernel against a reference whose ``sq`` is itself ``exp(2 * log(x))``: each output's
    equivalence rests on its own reference's domain, and the kernel is VERIFIED."""
    path = _write(
        tmp_path, "log_stats_both", "kernel.py", _LOG_STATS_TRITON, _LOG_STATS_TASK % "torch.exp(2.0 * torch.log(x))"
    )
    report = _verify(path, tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    for r in report.results:
        if r.obligation.kind is ObligationKind.EQUIVALENCE and r.obligation.subject == "sq":
            assert [a for a in r.assumptions if a.kind is AssumptionKind.DOMAIN], r.assumptions


_ROW_TASK = """\
import torch
from larkc import Task

def reference(x: torch.Tensor) -> torch.Tensor:
    %s

task = Task(
    source="kernel.cu", kernel="%s", reference=reference,
    inputs={"x": "f32[r, d]"}, outputs={"y": "f32[r, d]"},
    bindings={"d": "d"},
    symbols=["r", "d"], constraints=["r <= 4096", "d <= 4096"], instances=[{"r": 2, "d": 37}],
    grid=["r"], block=[32],
)
"""


def _row_kernel(tmp_path: Path, name: str, reduce_: str, finish: str, reference: str) -> Path:
    src = f"""\
    // One block (one warp) per row.
    __global__ void {name}(const float* __restrict__ x, float* __restrict__ y, int d) {{
        const float* row = x + blockIdx.x * d;
        float acc = 0.0f;
        for (int j = threadIdx.x; j < d; j += 32) {{
            float v = row[j];
            acc += {reduce_};
        }}
        for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
        for (int j = threadIdx.x; j < d; j += 32) {{
            float v = row[j];
            y[blockIdx.x * d + j] = {finish};
        }}
    }}
    """
    return _write(tmp_path, name, "kernel.cu", src, _ROW_TASK % (reference, name))


def test_rms_norm_with_eps_is_verified_without_domain_assumption(tmp_path: Path) -> None:
    path = _row_kernel(
        tmp_path,
        "rms_eps",
        "v * v",
        "v * rsqrtf(acc / d + 1e-6f)",
        "return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)",
    )
    report = _verify(path, tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    eq = _result(report, ObligationKind.EQUIVALENCE)
    assert not [a for a in eq.assumptions if a.kind is AssumptionKind.DOMAIN]


def test_rms_norm_without_eps_against_the_same_reference_lists_the_domain(tmp_path: Path) -> None:
    path = _row_kernel(
        tmp_path,
        "rms_noeps",
        "v * v",
        "v * rsqrtf(acc / d)",
        "return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True))",
    )
    report = _verify(path, tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    _no_nonzero_label(report)


def test_log_softmax_of_a_positive_sum_is_verified(tmp_path: Path) -> None:
    path = _row_kernel(
        tmp_path,
        "log_softmax_nomax",
        "expf(v)",
        "v - logf(acc)",
        "return x - torch.log(torch.exp(x).sum(-1, keepdim=True))",
    )
    report = _verify(path, tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    _no_nonzero_label(report)


def test_mean_normalisation_dividing_by_the_row_sum_is_not_assumed(tmp_path: Path) -> None:
    """``v / sum(row)`` against a reference that never divides: the sum can be zero, and the kernel's
    ``(v * d / acc) * (acc / d)`` cancellation is no identity there."""
    path = _row_kernel(
        tmp_path,
        "rescale_cancel",
        "v",
        "(v * d / acc) * (acc / d)",
        "return x.clone()",
    )
    report = _verify(path, tmp_path)
    assert report.verdict is not Verdict.VERIFIED, "\n".join(report.render())
    _no_nonzero_label(report)


# --------------------------------------------------------------------------------------------------
# Class 10: signed integer accumulation of data


def test_int32_row_sum_that_overflows_is_failed(tmp_path: Path) -> None:
    src = """\
    __global__ void row_sum_i32(const int* __restrict__ x, int* __restrict__ out, int d) {
        int r = blockIdx.x * blockDim.x + threadIdx.x;
        int acc = 0;
        for (int j = 0; j < d; ++j) acc += x[r * d + j];
        out[r] = acc;
    }
    """
    task = """\
    import torch
    from larkc import Task

    def reference(x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1).to(torch.int32)

    task = Task(
        source="kernel.cu", kernel="row_sum_i32", reference=reference,
        inputs={"x": "i32[r, d] in [0, 2147483647)"}, outputs={"out": "i32[r]"},
        bindings={"d": "d"},
        symbols=["r", "d"], constraints=["r <= 64", "d <= 64"], instances=[{"r": 1, "d": 4}],
        grid=[1], block=["r"],
    )
    """
    report = _verify(_write(tmp_path, "rowsum", "kernel.cu", src, task), tmp_path)
    _assert_ub_refuted(report)


def test_int32_row_sum_in_range_is_verified(tmp_path: Path) -> None:
    src = """\
    __global__ void row_sum_i32(const int* __restrict__ x, int* __restrict__ out, int d) {
        int r = blockIdx.x * blockDim.x + threadIdx.x;
        int acc = 0;
        for (int j = 0; j < d; ++j) acc += x[r * d + j];
        out[r] = acc;
    }
    """
    task = """\
    import torch
    from larkc import Task

    def reference(x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1).to(torch.int32)

    task = Task(
        source="kernel.cu", kernel="row_sum_i32", reference=reference,
        inputs={"x": "i32[r, d] in [-1000, 1000)"}, outputs={"out": "i32[r]"},
        bindings={"d": "d"},
        symbols=["r", "d"], constraints=["r <= 64", "d <= 64"], instances=[{"r": 2, "d": 5}],
        grid=[1], block=["r"],
    )
    """
    report = _verify(_write(tmp_path, "rowsum_ok", "kernel.cu", src, task), tmp_path)
    assert _result(report, ObligationKind.DEFINED).status is Status.PROVED


# --------------------------------------------------------------------------------------------------
# Class 8, sizes: an integer division by a size expression is decided for every size

_RESIZE = """\
// Nearest-neighbour resize of each row with align_corners=True: output column j samples input column
// j * (w_in - 1) / (w_out - 1), so that the first and last columns line up.
__global__ void resize_nearest_align(const float* __restrict__ x, float* __restrict__ y, int w_in, int w_out) {
    int row = blockIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < w_out) {
        int src = j * (w_in - 1) / (w_out - 1);
        y[row * w_out + j] = x[row * w_in + src];
    }
}
"""

_RESIZE_TASK = """\
from larkc import Task

task = Task(
    source="kernel.cu", kernel="resize_nearest_align",
    inputs={"x": "f32[r, w_in]"}, outputs={"y": "f32[r, w_out]"},
    bindings={"w_in": "w_in", "w_out": "w_out"},
    symbols=["r", "w_in", "w_out"], constraints=["r <= 1024", "w_in <= 4096", "w_out <= 4096"%s],
    instances=[{"r": 2, "w_in": 9, "w_out": 5}, {"r": 1, "w_in": 100, "w_out": 33}],
    grid=["cdiv(w_out, 64)", "r"], block=[64],
)
"""


def test_division_by_a_size_that_may_be_zero_is_refuted_with_the_sizes(tmp_path: Path) -> None:
    """``/ (w_out - 1)`` divides by zero at w_out = 1, which no instance has: the parametric prover refutes
    ``defined`` with the smallest such sizes, confirmed by the simulator."""
    report = _verify(_write(tmp_path, "resize", "kernel.cu", _RESIZE, _RESIZE_TASK % ""), tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    defined = _result(report, ObligationKind.DEFINED)
    assert defined.status is Status.REFUTED and defined.counterexample is not None
    assert defined.counterexample.instance["w_out"] == 1
    assert defined.counterexample.kind is CounterexampleKind.CONFIRMED


def test_division_by_a_size_the_constraints_keep_nonzero_is_not_refuted(tmp_path: Path) -> None:
    task = _RESIZE_TASK % ', "w_out >= 2"'
    report = _verify(_write(tmp_path, "resize_ok", "kernel.cu", _RESIZE, task), tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    defined = _result(report, ObligationKind.DEFINED)
    assert "never by zero for all sizes" in defined.detail  # decided for all sizes, proved at the instances


def test_triton_int32_row_sum_that_overflows_is_failed(tmp_path: Path) -> None:
    src = """\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sum_i32(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.int32)
        for start in range(0, d, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + row * d + cols, mask=cols < d, other=0)
        tl.store(out_ptr + row, tl.sum(acc, axis=0))
    """
    task = """\
    import torch
    from larkc import Task

    def reference(x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1).to(torch.int32)

    task = Task(
        source="kernel.py", kernel="row_sum_i32", reference=reference,
        inputs={"x": "i32[r, d] in [0, 2147483647)"}, outputs={"out": "i32[r]"},
        bindings={"x_ptr": "x", "out_ptr": "out", "d": "d", "BLOCK": 4},
        symbols=["r", "d"], constraints=["r <= 64", "d <= 64"], instances=[{"r": 2, "d": 8}],
        grid=["r"], block=[1],
    )
    """
    _assert_ub_refuted(_verify(_write(tmp_path, "rowsum_tl", "kernel.py", src, task), tmp_path))


_HALVE_TO_INT8 = """\
__global__ void halve_to_int8(const int* idx, signed char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (signed char)((float)idx[i] * 0.5f);
}
"""

_HALVE_TO_INT8_TASK = """\
import torch
from larkc import Task

def reference(idx: torch.Tensor) -> torch.Tensor:
    return (idx.to(torch.float32) * 0.5).to(torch.int8)

task = Task(
    source="kernel.cu", kernel="halve_to_int8", reference=reference,
    inputs={"idx": "i32[n] in [%d, 256)"}, outputs={"out": "i8[n]"},
    symbols=["n"], constraints=["n <= 1048576"], instances=[{"n": 9}],
    grid=["cdiv(n, 64)"], block=[64],
)
"""


def test_conversion_range_is_exact_for_truncation(tmp_path: Path) -> None:
    """A C cast truncates toward zero: -128.5 and 127.5 become -128 and 127, inside int8, so values in
    [-128.5, 127.5] are defined (proved, not refuted) and the detail and assumptions say the value decided
    is the exact one (its float rounding is not modelled); -129 is not (refuted, confirmed by the simulator)."""
    path = _write(tmp_path, "in_range", "kernel.cu", _HALVE_TO_INT8, _HALVE_TO_INT8_TASK % -257)
    report = _verify(path, tmp_path)
    defined = _result(report, ObligationKind.DEFINED)
    assert defined.status is Status.PROVED, defined.detail
    assert "truncated toward zero" in defined.detail and "float rounding" in defined.detail, defined.detail
    assert any("exact real arithmetic" in a.text for a in defined.assumptions), defined.assumptions
    path = _write(tmp_path, "past", "kernel.cu", _HALVE_TO_INT8, _HALVE_TO_INT8_TASK % -258)
    _assert_ub_refuted(_verify(path, tmp_path))
