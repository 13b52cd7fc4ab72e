"""Compiler hints are promises (issue 19, red-team class B).

``tl.multiple_of``, ``tl.max_contiguous``, ``tl.assume``, ``__builtin_assume_aligned`` and
``__builtin_assume`` tell the compiler something it optimises on (vector widths, alignment, dropped code)
and never checks: a false one is undefined behaviour. Each is the ``defined`` obligation where it is
executed: ``larkc run`` reports a false one (``ub``, with its location), the bounded prover refutes it at
an instance, and the parametric prover refutes it for all sizes with the sizes where it is false (the
simulator confirms them). True hints, as the tuned kernels write them, stay VERIFIED.

The kernels are written here as library code is, one file per test (``tmp_path``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from larkc import Task
from larkc.frontends import parse_task
from larkc.ir.nodes import Assert, AssertKind
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_module
from larkc.ir.walk import walk_stmts
from larkc.pipeline.run import run_task
from larkc.pipeline.verify import verify_task
from larkc.provers import CounterexampleKind, ObligationResult, Status, Verdict

TRITON_HEADER = "import triton\nimport triton.language as tl\n\n\n"

#: Row scaling with the alignment hint of the tuned kernels: the row start is declared a multiple of 16
#: elements so that Triton emits 128-bit accesses (true only when n_cols % 16 == 0).
ROW_SCALE = """
@triton.jit
def row_scale(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_start = tl.multiple_of(row * n_cols, 16)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + row_start + cols, x * s, mask=mask)
"""

#: The 1-D elementwise pattern of the Triton tutorials: block starts are multiples of BLOCK and each
#: block is BLOCK consecutive offsets (true for every n).
AXPY = """
@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, a * x + y, mask=m)
"""

#: A gather through a strided index with a contiguity hint that is false: the offsets step by 2.
STRIDED_CONTIGUOUS = """
@triton.jit
def take_even(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    src = tl.max_contiguous(2 * offs, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + src, mask=m, other=0.0), mask=m)
"""

#: Row scaling with the hint on the row pointers themselves (a pointer's divisibility is in bytes):
#: true for the buffer starts, for the rows only when n_cols % 4 == 0.
ROW_SCALE_PTR = """
@triton.jit
def row_scale_ptr(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr = tl.multiple_of(x_ptr, 16)
    x_row = tl.multiple_of(x_ptr + row * n_cols, 16)
    y_row = y_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_row + cols, mask=mask, other=0.0)
    tl.store(y_row + cols, x * tl.load(s_ptr + row), mask=mask)
"""

#: A row copy in CUDA vectorised on a promise: both row pointers declared 16-byte aligned.
CUDA_ROW_COPY = """
#include <cuda_runtime.h>

__global__ void copy_rows(const float* __restrict__ src, float* __restrict__ dst, int cols) {
    const float* in = static_cast<const float*>(__builtin_assume_aligned(src + blockIdx.x * cols, 16));
    float* out = static_cast<float*>(__builtin_assume_aligned(dst + blockIdx.x * cols, 16));
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = in[c];
}
"""

#: A float4 row scale that tells the compiler the row length is a multiple of 4.
CUDA_SCALE4 = """
#include <cuda_runtime.h>

__global__ void scale_rows4(const float* __restrict__ x, float* __restrict__ y, float a, int cols) {
    __builtin_assume(cols % 4 == 0);
    const float4* in = reinterpret_cast<const float4*>(x + blockIdx.x * cols);
    float4* out = reinterpret_cast<float4*>(y + blockIdx.x * cols);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
        float4 v = in[c];
        out[c] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
}
"""


def _source(tmp_path: Path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    return str(path)


def _row_scale(tmp_path: Path, constraints: list[str]) -> Task:
    return Task(
        source=_source(tmp_path, TRITON_HEADER + ROW_SCALE, "row_scale.py"), kernel="row_scale",
        reference=lambda x, s: x * s[:, None],
        inputs={"x": "f32[rows, d]", "s": "f32[rows]"}, outputs={"y": "f32[rows, d]"},
        bindings={"x_ptr": "x", "s_ptr": "s", "y_ptr": "y", "n_cols": "d", "BLOCK": 128},
        symbols=["rows", "d"], constraints=["d <= 128", "rows <= 4096", *constraints],
        instances=[{"rows": 2, "d": 16}, {"rows": 3, "d": 64}], grid=["rows"], block=[1],
    )  # fmt: skip


def _axpy(tmp_path: Path, body: str = AXPY, kernel: str = "axpy") -> Task:
    return Task(
        source=_source(tmp_path, TRITON_HEADER + body, f"{kernel}.py"), kernel=kernel,
        reference=lambda x, y: 2.0 * x + y,
        inputs={"x": "f32[n]", "y": "f32[n]"}, outputs={"out": "f32[n]"},
        bindings={"x_ptr": "x", "y_ptr": "y", "out_ptr": "out", "a": 2.0, "n": "n", "BLOCK": 64},
        symbols=["n"], constraints=["n <= 1048576"], instances=[{"n": 5}, {"n": 200}],
        grid=["cdiv(n, 64)"], block=[1],
    )  # fmt: skip


def _take_even(tmp_path: Path) -> Task:
    return Task(
        source=_source(tmp_path, TRITON_HEADER + STRIDED_CONTIGUOUS, "take_even.py"), kernel="take_even",
        reference=lambda x: x[::2],
        inputs={"x": "f32[2 * n]"}, outputs={"out": "f32[n]"},
        bindings={"x_ptr": "x", "out_ptr": "out", "n": "n", "BLOCK": 16},
        symbols=["n"], constraints=["n <= 65536"], instances=[{"n": 5}, {"n": 40}],
        grid=["cdiv(n, 16)"], block=[1],
    )  # fmt: skip


def _copy_rows(tmp_path: Path, constraints: list[str], instances: list[dict[str, int]]) -> Task:
    return Task(
        source=_source(tmp_path, CUDA_ROW_COPY, "copy_rows.cu"), kernel="copy_rows",
        reference=lambda x: x.clone(),
        inputs={"x": "f32[rows, d]"}, outputs={"y": "f32[rows, d]"},
        bindings={"src": "x", "dst": "y", "cols": "d"},
        symbols=["rows", "d"], constraints=["d <= 4096", "rows <= 4096", *constraints],
        instances=instances, grid=["rows"], block=[64],
    )  # fmt: skip


def _scale4(tmp_path: Path, constraints: list[str]) -> Task:
    return Task(
        source=_source(tmp_path, CUDA_SCALE4, "scale_rows4.cu"), kernel="scale_rows4",
        reference=lambda x: 3.0 * x,
        inputs={"x": "f32[rows, d]"}, outputs={"y": "f32[rows, d]"},
        bindings={"x": "x", "y": "y", "a": 3.0, "cols": "d"},
        symbols=["rows", "d"], constraints=["d <= 4096", "rows <= 4096", *constraints],
        instances=[{"rows": 2, "d": 8}, {"rows": 1, "d": 64}], grid=["rows"], block=[32],
    )  # fmt: skip


def _defined(results: tuple[ObligationResult, ...] | list[ObligationResult]) -> ObligationResult:
    (r,) = [r for r in results if r.obligation.name == "defined"]
    return r


def _ub_lines(task: Task, tmp_path: Path, instance: dict[str, int]) -> list[str]:
    report = run_task(task, instances=[instance], replay_dir=tmp_path / "replay", seeds=1)
    return [d.render() for inst in report.instances for d in inst.diagnoses if d.kind.value == "ub"]


# -- the IR -----------------------------------------------------------------------------------------


def test_a_hint_is_a_hint_assertion_that_survives_the_printed_form(tmp_path: Path) -> None:
    task = _copy_rows(tmp_path, [], [{"rows": 2, "d": 8}])
    module = parse_task(task, {"rows": 2, "d": 8})
    hints = [s for f in module.functions for s in walk_stmts(f.body) if isinstance(s, Assert)]
    assert [h.kind for h in hints] == [AssertKind.HINT, AssertKind.HINT]
    text = print_module(module)
    assert text.count("assert.hint ") == 2
    assert print_module(parse_module(text)) == text


# -- Triton -----------------------------------------------------------------------------------------


def test_false_multiple_of_is_reported_by_run_with_its_location(tmp_path: Path) -> None:
    lines = _ub_lines(_row_scale(tmp_path, []), tmp_path, {"rows": 2, "d": 5})
    assert lines and "row_scale.py:9:17:" in lines[0] and "compiler hint false" in lines[0], lines


def test_multiple_of_without_the_constraint_fails_for_all_sizes(tmp_path: Path) -> None:
    report = verify_task(_row_scale(tmp_path, []), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    r = _defined(report.results)
    assert r.status is Status.REFUTED and r.counterexample is not None
    assert "tl.multiple_of(row * n_cols, 16)" in r.counterexample.message
    assert r.counterexample.instance["d"] % 16 != 0 and r.counterexample.instance["rows"] >= 2
    assert r.counterexample.kind is CounterexampleKind.CONFIRMED


def test_multiple_of_with_the_row_length_constrained_is_verified(tmp_path: Path) -> None:
    report = verify_task(_row_scale(tmp_path, ["d % 16 == 0"]), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    assert _defined(report.results).status is Status.PROVED


def test_false_multiple_of_at_one_instance_is_refuted_by_the_bounded_prover(tmp_path: Path) -> None:
    report = verify_task(_row_scale(tmp_path, []), instances=[{"rows": 2, "d": 5}], replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())


def test_tutorial_block_hints_are_verified(tmp_path: Path) -> None:
    report = verify_task(_axpy(tmp_path), replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    assert _ub_lines(_axpy(tmp_path), tmp_path, {"n": 200}) == []


def test_false_max_contiguous_is_refuted(tmp_path: Path) -> None:
    task = _take_even(tmp_path)
    assert _ub_lines(task, tmp_path, {"n": 5}), "run does not report the false contiguity hint"
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert _defined(report.results).status is Status.REFUTED


def test_tl_assume_is_an_obligation_not_a_hypothesis(tmp_path: Path) -> None:
    promise = "tl.assume(n_cols % 16 == 0)\n    row_start = row * n_cols"
    body = ROW_SCALE.replace("row_start = tl.multiple_of(row * n_cols, 16)", promise)
    task = _row_scale(tmp_path, [])
    task = dataclasses.replace(task, source=_source(tmp_path, TRITON_HEADER + body, "assume.py"))
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert _defined(report.results).status is Status.REFUTED


def test_multiple_of_on_pointers_is_about_their_byte_addresses(tmp_path: Path) -> None:
    def task(constraints: list[str]) -> Task:
        base = _row_scale(tmp_path, constraints)
        source = _source(tmp_path, TRITON_HEADER + ROW_SCALE_PTR, "row_scale_ptr.py")
        return dataclasses.replace(base, source=source, kernel="row_scale_ptr")

    wrong = verify_task(task([]), replay_dir=tmp_path / "replay")
    assert wrong.verdict is Verdict.FAILED, "\n".join(wrong.render())
    r = _defined(wrong.results)
    assert r.status is Status.REFUTED and r.counterexample is not None
    assert "x_ptr + row * n_cols" in r.counterexample.message and r.counterexample.instance["d"] % 4 != 0
    right = verify_task(task(["d % 4 == 0"]), replay_dir=tmp_path / "replay")
    assert right.verdict is Verdict.VERIFIED, "\n".join(right.render())


# -- CUDA -------------------------------------------------------------------------------------------


def test_false_assume_aligned_fails_for_all_sizes(tmp_path: Path) -> None:
    task = _copy_rows(tmp_path, [], [{"rows": 2, "d": 8}, {"rows": 3, "d": 64}])
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    r = _defined(report.results)
    assert r.status is Status.REFUTED and r.counterexample is not None
    assert r.counterexample.instance["d"] % 4 != 0
    assert r.counterexample.kind is CounterexampleKind.CONFIRMED


def test_false_assume_aligned_at_its_only_instance_fails(tmp_path: Path) -> None:
    task = _copy_rows(tmp_path, [], [{"rows": 2, "d": 5}])
    assert any("copy_rows.cu:4:" in line for line in _ub_lines(task, tmp_path, {"rows": 2, "d": 5}))
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())


def test_assume_aligned_with_rows_of_whole_vectors_is_verified(tmp_path: Path) -> None:
    task = _copy_rows(tmp_path, ["d % 4 == 0"], [{"rows": 2, "d": 8}, {"rows": 3, "d": 64}])
    report = verify_task(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_builtin_assume_is_checked(tmp_path: Path) -> None:
    wrong = verify_task(_scale4(tmp_path, []), replay_dir=tmp_path / "replay")
    assert wrong.verdict is Verdict.FAILED, "\n".join(wrong.render())
    assert _defined(wrong.results).status is Status.REFUTED
    right = verify_task(_scale4(tmp_path, ["d % 4 == 0"]), replay_dir=tmp_path / "replay")
    assert right.verdict is Verdict.VERIFIED, "\n".join(right.render())
