"""``benchmarks/gpuverify_suite.py``: the gvtester header parser, the comparison, and one tiny test run end to
end (kernels written here, in the suite's format; no GPUVerify file)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("larkc_bench_gpuverify_suite", BENCHMARKS / "gpuverify_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


gv = _load()


def test_header_pass_with_launch_defines_and_options() -> None:
    h = gv.parse_header("//pass\n//--blockDim=[8,4] --gridDim=16 -DWIDTH=256 -DFLAG --no-inline\n\n__global__ ...")
    assert h.expected == "PASS"
    assert (h.grid, h.block, h.threads) == ((16,), (8, 4), 512)
    assert h.defines == (("WIDTH", "256"), ("FLAG", "1"))
    assert h.options == ("--no-inline",) and h.patterns == () and h.expected_kinds == frozenset()


def test_header_xfail_patterns_end_at_the_first_other_line() -> None:
    text = (
        "//XFAIL:not_all_verified\n"
        "//--gridDim=1 --blockDim=512\n"
        "//kernel.cu: error: possible write-write race on B\n"
        "//x = 185\n"
        "//\n"
        "//this assertion might not hold\n"
    )
    h = gv.parse_header(text)
    assert h.expected == "NOT_ALL_VERIFIED"
    assert h.patterns == ("kernel.cu: error: possible write-write race on B", "x = 185")
    assert h.expected_kinds == frozenset({"race"})


@pytest.mark.parametrize(
    ("pattern", "kind"),
    [
        ("error: possible read-write race on A", "race"),
        ("Write by thread .+kernel.cu:8:4:", "race"),
        ("This kernel is racy.", "race"),
        ("This kernel is race-free.", None),
        ("barrier may be reached by non-uniform control flow", "barrier"),
        ("this assertion might not hold", "assert"),
        ("kernel.cu:57:21: error: loop invariant might not be maintained", "assert"),
        ("error: possible null pointer access", "bounds"),
        ("possible attempt to modify constant memory", "constant-write"),
        ("a = 12", None),
    ],
)
def test_pattern_kinds(pattern: str, kind: str | None) -> None:
    assert gv.pattern_kind(pattern) == kind


@pytest.mark.parametrize(
    "text",
    [
        "",
        "// pass\n//--blockDim=2 --gridDim=1\n",  # gvtester's regex allows no space after //
        "//pass\n--blockDim=2 --gridDim=1\n",
        "//pass\n//--blockDim=2\n",
        "//pass\n//--blockDim=[1,2,3,4] --gridDim=1\n",
    ],
)
def test_bad_headers_are_refused(text: str) -> None:
    with pytest.raises(gv.HeaderError):
        gv.parse_header(text)


def _result(expected: str, larkc: str, kinds: tuple[str, ...] = (), refuted: tuple[str, ...] = ()) -> object:
    r = gv.TestResult("t/kernel.cu", expected=expected, expected_kinds=kinds, larkc=larkc)
    r.kernels = [gv.KernelOutcome("k", larkc.split(" (", maxsplit=1)[0], refuted=refuted)]
    if larkc == "rejected":
        r.parse = "t/kernel.cu:1:1: error: unsupported x"
    return r


@pytest.mark.parametrize(
    ("expected", "larkc", "kinds", "refuted", "category"),
    [
        ("PASS", "VERIFIED", (), (), "agree"),
        ("PASS", "FAILED (race)", (), ("race",), "stricter"),
        ("NOT_ALL_VERIFIED", "VERIFIED", ("race",), (), "weaker"),
        ("NOT_ALL_VERIFIED", "FAILED (race)", ("race",), ("race",), "agree"),
        ("NOT_ALL_VERIFIED", "FAILED (bounds)", ("race",), ("bounds",), "agree, other kind"),
        ("NOT_ALL_VERIFIED", "FAILED (bounds)", (), ("bounds",), "agree"),
        ("NOT_ALL_VERIFIED", "UNKNOWN", (), (), "unknown"),
        ("PASS", "rejected", (), (), "not parsed"),
        ("CLANG_ERROR", "rejected", (), (), "both reject"),
        ("BUGLE_ERROR", "VERIFIED", (), (), "larkc accepts (VERIFIED)"),
        ("BUGLE_ERROR", "VERIFIED", ("race",), (), "weaker"),
    ],
)
def test_compare(expected: str, larkc: str, kinds: tuple[str, ...], refuted: tuple[str, ...], category: str) -> None:
    assert gv.compare(_result(expected, larkc, kinds, refuted)) == category


RACY = """//xfail:NOT_ALL_VERIFIED
//--blockDim=4 --gridDim=1 --no-inline
//error: possible write-write race on A

__global__ void racy(int *A, int n) {
  A[threadIdx.x % 2] = n;
}
"""

SAFE = """//pass
//--blockDim=[2,2] --gridDim=2 -DWIDTH=3

__global__ void safe(float *A, float scale) {
  unsigned tid = threadIdx.y * blockDim.x + threadIdx.x + blockIdx.x * 4;
  for (int i = 0; i < WIDTH; i++) {
    A[tid * WIDTH + i] = scale;
  }
}
"""


SHIFTED = """//xfail:NOT_ALL_VERIFIED
//--blockDim=4 --gridDim=1
//possible read-write race

__global__ void shifted(int *A, int offset) {
  A[threadIdx.x] = A[threadIdx.x + offset];
}
"""


def test_scalar_assignments() -> None:
    from larkc.ir.types import BOOL, F32, I8, I32

    assert gv.scalar_values(I32, 4096) == ("4096", "1")
    assert gv.scalar_values(I8, 4096) == ("127", "1")
    assert gv.scalar_values(I32, 1) == ("1",)
    assert gv.scalar_values(F32, 64) == ("1.0",) and gv.scalar_values(BOOL, 64) == ("1",)
    assert gv.scalar_values(I32, 512, (0, 999)) == ("512", "1")
    assert gv.scalar_values(I32, 512, (12, 12)) == ("12",)
    assert gv.scalar_values(I32, 512, (None, 99)) == ("99", "1")
    n = gv.Binding("scalar", "n", "i32", ("64", "1"))
    eps = gv.Binding("scalar", "eps", "f32", ("1.0",))
    assert gv.assignments([gv.Binding("buffer", "A", "f32"), n, eps]) == [("n=64", "eps=1.0"), ("n=1", "eps=1.0")]
    assert gv.assignments([gv.Binding("buffer", "A", "f32")]) == [()]


def test_requires_bounds_of_a_kernel() -> None:
    text = (
        "__device__ void f(int x) { __requires(x > 0); }\n"
        "__global__ void a(int x, unsigned b) { __requires(x >= 0); __requires(x < 1000); __requires(b == 36); }\n"
        "__global__ void other(int x) { __requires(x <= 5); }\n"
    )
    body = gv.kernel_text(text, "a")
    assert body.startswith("__global__ void a(") and "other" not in body and "x > 0" not in body
    assert gv.required_ranges(body) == {"x": (0, 999), "b": (36, 36)}
    assert gv.required_ranges(gv.kernel_text(text, "ns::other")) == {"x": (None, 5)}
    assert gv.kernel_text(text, "missing") == ""


def test_a_failure_at_the_second_scalar_value_is_found(tmp_path: Path) -> None:
    # offset = 4 (the thread count) reads past what the block writes; offset = 1 races
    (tmp_path / "shifted.cu").write_text(SHIFTED)
    r = gv.run_test("shifted.cu", tmp_path / "shifted.cu", timeout=60, seconds=10)
    assert (r.larkc, r.category) == ("FAILED (race)", "agree")
    assert r.kernels[0].scalars == "offset=1"


def test_one_tiny_suite_end_to_end(tmp_path: Path) -> None:
    (tmp_path / "racy.cu").write_text(RACY)
    (tmp_path / "safe.cu").write_text(SAFE)
    racy = gv.run_test("racy.cu", tmp_path / "racy.cu", timeout=60, seconds=10)
    assert (racy.expected, racy.larkc, racy.category) == ("NOT_ALL_VERIFIED", "FAILED (race)", "agree")
    assert racy.kernels[0].elements == gv.MIN_ELEMENTS
    safe = gv.run_test("safe.cu", tmp_path / "safe.cu", timeout=60, seconds=10)
    assert (safe.expected, safe.larkc, safe.category) == ("PASS", "VERIFIED", "agree"), safe.kernels


def test_parse_categories_of_the_suite() -> None:
    line = "k.cu:9:9: error: device function nondet is declared but never defined"
    assert gv.parse_category(line) == "device function declared but never defined"
    curand = "k.cu:7:29: error: unsupported type: curandStateMtgp32_t"
    assert gv.parse_category(curand) == "unsupported type: curand state"
    assert gv.parse_category("k.cu:3:1: error: unsupported call of printf") == "printf"  # cuda_audit's table


def test_a_parse_error_is_categorised(tmp_path: Path) -> None:
    (tmp_path / "bad.cu").write_text("//pass\n//--blockDim=2 --gridDim=1\n__global__ void k(int *A) { A[0] = foo; }\n")
    r = gv.run_test("bad.cu", tmp_path / "bad.cu", timeout=60, seconds=10)
    assert r.larkc == "rejected" and r.category == "not parsed" and r.parse_category and "bad.cu:3" in r.parse
