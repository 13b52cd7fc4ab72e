"""Constructs real CUDA libraries use (issue 22, item 3), each on a kernel written in its library's style:

* ``local_view_transpose/``: LeetCUDA's ``FLOAT4(value)`` over ``&(value)`` of a local ``float4`` and lanes
  of a local through ``reinterpret_cast<float *>(&smem_val)[j]`` (mat-transpose/mat_transpose.cu);
* ``enable_if_overloads/``: vLLM's two ``__global__`` overloads of one template chosen by ``enable_if`` in the
  return type (fused_add_rms_norm_kernel), with ``auto* __restrict__`` local pointers;
* ``enum_template/``: template parameters of enum type, a user ``enum class`` under ``if constexpr`` and
  ``cub::BlockScanAlgorithm`` (TensorRT-LLM's cumsum);
* ``member_template_vec/``: member function templates deduced from the call (flashinfer's
  ``v.cast_load(ptr)``) on a vec_t of our own.

Each has its ``larkc run`` and ``larkc verify`` verdicts and a seeded-bug twin; every kernel compiles with
nvcc at the task's template arguments (skipped where nvcc is absent). Textures are located errors
(``tests/frontends/invalid/texture*_invalid.cu``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import larkc
from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir.types import F32
from larkc.semantics import GlobalBuffer, LaunchConfig, simulate

HERE = Path(__file__).resolve().parent

#: (task file, what `larkc run` finds (empty: ok), verify's verdict)
CASES = [
    ("local_view_transpose/task.py", set(), "VERIFIED"),
    ("local_view_transpose/task_bug_untransposed.py", {"mismatch"}, "FAILED"),
    ("enable_if_overloads/task_vectorised.py", set(), "VERIFIED"),
    ("enable_if_overloads/task_generic.py", set(), "VERIFIED"),
    ("enable_if_overloads/task_bug_past_the_row.py", {"oob", "race", "race (same value)"}, "FAILED"),
    ("enum_template/task_inclusive.py", set(), "VERIFIED"),
    ("enum_template/task_exclusive.py", set(), "VERIFIED"),
    ("enum_template/task_bug_exclusive_for_inclusive.py", {"mismatch"}, "FAILED"),
    ("member_template_vec/task.py", set(), "VERIFIED"),
    ("member_template_vec/task_bug_row_offset_weight.py", {"mismatch", "oob"}, "FAILED"),
]


@pytest.mark.parametrize(("task", "found", "verdict"), CASES, ids=[c[0] for c in CASES])
def test_run_and_verify(task: str, found: set[str], verdict: str, tmp_path: Path) -> None:
    path = HERE / task
    result = larkc.run(path, replay_dir=tmp_path)
    assert result.kinds() == found, result
    report = larkc.verify(path, replay_dir=tmp_path)
    assert report.verdict.value == verdict, report.render()


# the constructs one at a time -------------------------------------------------------------------------


def test_address_of_a_parenthesised_local_is_the_local_reinterpreted() -> None:
    """``FLOAT4(x_val)`` expands to ``reinterpret_cast<float4 *>(&(x_val))[0]``: it was "unsupported address
    of a local variable: &(x_val)" for the parentheses."""
    module = parse_cuda(
        text="#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])\n"
        "__global__ void k(float* y) {\n"
        "  float4 v = make_float4(1.f, 2.f, 3.f, 4.f);\n"
        "  FLOAT4(y[0]) = FLOAT4(v);\n"
        "  y[4] = reinterpret_cast<float *>(&((v)))[2];\n"
        "}\n",
        file="view.cu",
    )
    assert [f.name for f in module.functions] == ["k"]


ENABLE_IF_RETURN = """
#include <type_traits>
template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> k(T* out) { out[threadIdx.x] = T(width); }
template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> k(T* out) { out[threadIdx.x] = T(-1); }
template <typename T>
__device__ typename std::enable_if<sizeof(T) == 4, T>::type twice(T x) { return x + x; }
__global__ void d(float* out) { out[0] = twice(out[0]); }
"""


@pytest.mark.parametrize(("width", "value"), [(4, 4.0), (0, -1.0)])
def test_enable_if_in_the_return_type_chooses_the_kernel_overload(width: int, value: float) -> None:
    module = parse_cuda(text=ENABLE_IF_RETURN, file="ei.cu", kernel="k", template_args=["float", width])
    out = GlobalBuffer("out", torch.zeros(2), F32)
    result = simulate(module, module.functions[0].name, LaunchConfig((1, 1, 1), (2, 1, 1), 0), {"out": out})
    assert result.buffers["out"].tolist() == [value, value]


def test_enable_if_return_type_of_a_device_function_is_its_second_argument() -> None:
    module = parse_cuda(text=ENABLE_IF_RETURN, file="ei.cu", kernel="d")
    twice = next(f for f in module.functions if f.name.startswith("twice"))
    assert str(twice.ret) == "f32"


def test_a_kernel_overload_no_enable_if_condition_selects_is_still_an_error() -> None:
    with pytest.raises(LarkcError, match="unsupported overloaded __global__ function: k"):
        parse_cuda(text=ENABLE_IF_RETURN, file="ei.cu", kernel="k", template_args=["float", -1])


def test_cub_algorithm_template_argument_of_another_enum_is_an_error() -> None:
    src = (
        "#include <cub/cub.cuh>\n"
        "template <int A>\n"
        "__global__ void k(int* out) {\n"
        "  typedef cub::BlockScan<int, 32, (cub::BlockScanAlgorithm)A> S;\n"
        "  __shared__ typename S::TempStorage t;\n"
        "  int r; S(t).InclusiveSum(out[threadIdx.x], r); out[threadIdx.x] = r;\n"
        "}\n"
    )
    parse_cuda(text=src, file="scan.cu", kernel="k", template_args=[2])
    with pytest.raises(LarkcError, match="cub::BlockScan algorithm other than a cub::BlockScanAlgorithm"):
        parse_cuda(text=src, file="scan.cu", kernel="k", template_args=[7])


def test_a_member_template_argument_that_no_argument_gives_is_a_located_error() -> None:
    src = (
        "template <typename float_t> struct box { float_t v[2];\n"
        "  template <typename T> __device__ T get() const { return static_cast<T>(v[0]); }\n"
        "  template <typename T> __device__ void put(T* p) const { p[0] = static_cast<T>(v[1]); } };\n"
        "__global__ void k(int* out) { box<float> b; b.v[0] = 1.f; b.v[1] = 2.f; b.put(out); out[1] = b.get(); }\n"
    )
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="box.cu")
    first = str(info.value).splitlines()[0]
    assert first.startswith("box.cu:4:94: error: cannot deduce template parameter T of box<float>::get"), first


# nvcc: the kernels are CUDA -----------------------------------------------------------------------------


def _template_suffix(task: larkc.Task) -> str:
    args = task.template_args
    values = list(args.values()) if isinstance(args, dict) else list(args)
    return "<" + ", ".join(str(v) for v in values) + ">" if values else ""


KERNEL_DIRS = sorted({c[0].split("/")[0] for c in CASES})


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("kernel_dir", KERNEL_DIRS)
def test_kernels_compile_with_nvcc(kernel_dir: str, tmp_path: Path) -> None:
    """The wrapper takes the address of each task's kernel at its template arguments, so nvcc instantiates
    (and, for the enable_if overloads, chooses) every body the tasks verify; one nvcc run per kernel file."""
    tasks = [larkc.load_task(HERE / c[0]) for c in CASES if c[0].startswith(kernel_dir + "/")]
    lines = [f'#include "{tasks[0].source.resolve()}"']
    lines += [f"void* larkc_inst{i} = (void*)&{t.kernel}{_template_suffix(t)};" for i, t in enumerate(tasks)]
    wrapper = tmp_path / "inst.cu"
    wrapper.write_text("\n".join(lines) + "\n")
    cmd = ["nvcc", "-c", "-std=c++17", "-arch=sm_80", "-o", str(tmp_path / "k.o"), str(wrapper)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"


def test_an_enable_if_return_type_whose_condition_is_false_is_never_read() -> None:
    """A struct's member function templates are chosen by arity, not by SFINAE: one whose enable_if return
    type is false for the call is a located error, never lowered as if the condition held."""
    src = (
        "#include <type_traits>\n"
        "template <typename float_t> struct box { float_t v[2];\n"
        "  template <typename T> __device__ std::enable_if_t<sizeof(T) == 2, T> get() const { return T(v[0]); }\n"
        "  template <typename T> __device__ std::enable_if_t<sizeof(T) == 4, T> get() const { return T(v[1]); }\n"
        "};\n"
        "__global__ void k(float* out) { box<float> b; b.v[0] = 1.f; b.v[1] = 2.f; out[0] = b.get<float>(); }\n"
    )
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="box.cu")
    first = str(info.value).splitlines()[0]
    assert "unsupported enable_if type whose condition sizeof(T) == 2 is false here" in first, first
