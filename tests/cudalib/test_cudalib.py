"""Real CUDA library patterns (issue 22): llm.c's Packed128 of bf16 lanes through int4, vLLM's fp8 scale
reduction with ``std::numeric_limits`` of an fp8 type, and every simulator failure as one internal error.

The kernels (``packed128_bf16/``, ``fp8_absmax/``) are written the way those libraries write them; each has a
seeded-bug task beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import larkc
from larkc.cli import EXIT_INTERNAL, main
from larkc.errors import InternalError, LarkcError
from larkc.frontends import parse_source
from larkc.ir.types import F32
from larkc.semantics import GlobalBuffer, LaunchConfig, simulate
from larkc.semantics.interpreter import Interpreter

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LARKC_DEBUG", raising=False)


def _status(report: larkc.VerifyReport, obligation: str) -> str:
    return next(r.status.value for r in report.results if r.obligation.name == obligation)


# 1. Packed128<bf16>: eight bf16 lanes read and written as an int4 --------------------------------------


def test_packed128_of_bf16_verifies(tmp_path: Path) -> None:
    """The symbolic run packs eight bf16 lanes into four i32 ones and back (it failed with a shape mismatch
    of the store, [2048] against [1024], and the loads read opaque values)."""
    task = HERE / "packed128_bf16" / "task.py"
    assert larkc.run(task, replay_dir=tmp_path).ok
    report = larkc.verify(task, replay_dir=tmp_path)
    assert report.verdict.value == "VERIFIED", report.render()
    assert _status(report, "equivalence(out)") == "proved"


def test_packed128_with_swapped_halves_fails(tmp_path: Path) -> None:
    task = HERE / "packed128_bf16" / "task_bug_swapped_halves.py"
    assert larkc.run(task, replay_dir=tmp_path).kinds() == {"mismatch"}
    report = larkc.verify(task, replay_dir=tmp_path)
    assert report.verdict.value == "FAILED", report.render()
    assert _status(report, "equivalence(out)") == "refuted"


# 2. fp8: numeric_limits of the fp8 types --------------------------------------------------------------

_LIMITS = """
#include <c10/util/Float8_e4m3fn.h>
#include <cuda_fp8.h>
using FP8_TYPE = c10::Float8_e4m3fn;
template <typename T>
__device__ float largest() { return (float)std::numeric_limits<T>::max(); }
__global__ void limits(float* out) {
  out[0] = (float)std::numeric_limits<FP8_TYPE>::max();
  out[1] = (float)std::numeric_limits<c10::Float8_e4m3fn>::lowest();
  out[2] = (float)std::numeric_limits<__nv_fp8_e4m3>::min();
  out[3] = (float)std::numeric_limits<__nv_fp8_e4m3>::epsilon();
  out[4] = (float)std::numeric_limits<__nv_fp8_e5m2>::max();
  out[5] = (float)std::numeric_limits<__nv_fp8_e5m2>::infinity();
  out[6] = largest<FP8_TYPE>();
}
"""


def test_numeric_limits_of_fp8_types(tmp_path: Path) -> None:
    """They were a KeyError ('f8e4m3', exit 3), and an alias of an fp8 type was not resolved."""
    path = tmp_path / "limits.cu"
    path.write_text(_LIMITS)
    module = parse_source(path)
    out = torch.zeros(7)
    result = simulate(module, "limits", LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": GlobalBuffer("out", out, F32)})
    got = result.buffers["out"].tolist()
    assert got == [448.0, -448.0, 2.0**-6, 0.125, 57344.0, float("inf"), 448.0]


def test_a_file_scope_constexpr_auto_of_numeric_limits(tmp_path: Path) -> None:
    """vLLM's ``C10_HOST_DEVICE constexpr auto FP8_E4M3_MAX = std::numeric_limits<FP8_TYPE>::max();``: a
    constant of type ``FP8_TYPE`` (it was "global constant that is not a scalar constant expression")."""
    path = tmp_path / "scale.cu"
    path.write_text(
        "#include <c10/util/Float8_e4m3fn.h>\n"
        "using FP8_TYPE = c10::Float8_e4m3fn;\n"
        "__host__ __device__ constexpr auto FP8_E4M3_MAX = std::numeric_limits<FP8_TYPE>::max();\n"
        "constexpr int BIG = std::numeric_limits<int>::max();\n"
        "__global__ void scale(float* out, const float* in) {\n"
        "  out[threadIdx.x] = in[threadIdx.x] / FP8_E4M3_MAX + (BIG == 2147483647 ? 1.0f : 0.0f);\n"
        "}\n"
    )
    x = torch.tensor([448.0, -896.0, 1.0, 0.0])
    buffers = {"out": GlobalBuffer("out", torch.zeros(4), F32), "in": GlobalBuffer("in", x, F32)}
    result = simulate(parse_source(path), "scale", LaunchConfig((1, 1, 1), (4, 1, 1), 0), buffers)
    want = torch.tensor([2.0, -1.0, 1.0 + 1.0 / 448.0, 1.0], dtype=torch.float32)
    assert torch.equal(result.buffers["out"], want)


def test_e4m3_has_no_infinity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "inf.cu"
    path.write_text(
        "#include <c10/util/Float8_e4m3fn.h>\n"
        "__global__ void k(float* out) {\n"
        "  out[0] = (float)std::numeric_limits<c10::Float8_e4m3fn>::infinity();\n"
        "}\n"
    )
    code = main(["run", str(path), "--kernel", "k", "--grid", "1", "--block", "1", "--buffer", "out=f32[1]"])
    assert code == 2
    assert "inf.cu:3:19: error: unsupported numeric_limits member infinity" in capsys.readouterr().err


def test_fp8_scale_reduction_runs_and_its_seeded_bug_is_found(tmp_path: Path) -> None:
    """vLLM's segmented_max_reduction pattern. ``value >= 0 ? atomicMax(...) : atomicMin(...)`` on a max of
    absolute values started at 0 takes one arm (the sign oracle decides it): the symbolic run goes past it
    (it stopped there, every obligation but the parametric ones UNKNOWN), and the bug is refuted."""
    good = HERE / "fp8_absmax" / "task.py"
    bad = HERE / "fp8_absmax" / "task_bug_quarter_tree.py"
    assert larkc.run(good, replay_dir=tmp_path).ok
    assert larkc.run(bad, replay_dir=tmp_path).kinds() == {"mismatch"}
    report = larkc.verify(bad, replay_dir=tmp_path)
    assert report.verdict.value == "FAILED", report.render()
    assert _status(report, "equivalence(scale)") == "refuted"
    report = larkc.verify(good, replay_dir=tmp_path)
    assert report.verdict.value != "FAILED", report.render()
    assert _status(report, "inputs") == "proved"
    assert _status(report, "init") == "proved"


# 3. Every exception a simulator rule raises is one internal error at its statement ---------------------

_KERNEL = "__global__ void k(float* out) {\n  out[threadIdx.x] = 1.0f;\n}\n"


@pytest.mark.parametrize("exc", [KeyError("f8e4m3"), AttributeError("no lanes"), ZeroDivisionError("x")])
def test_any_simulator_failure_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], exc: Exception
) -> None:
    path = tmp_path / "k.cu"
    path.write_text(_KERNEL)

    def broken(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr(Interpreter, "_store", broken)
    argv = ["run", str(path), "--kernel", "k", "--grid", "1", "--block", "4", "--buffer", "out=f32[4]"]
    assert main(argv) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("error: internal error: ") and err.count("\n") == 1, err
    assert f"k.cu:2:3: the simulator failed: {type(exc).__name__}" in err, err
    with pytest.raises(InternalError) as info:
        simulate(
            parse_source(path),
            "k",
            LaunchConfig((1, 1, 1), (4, 1, 1), 0),
            {"out": GlobalBuffer("out", torch.zeros(4), F32)},
        )
    assert not isinstance(info.value, LarkcError)
