"""fp8 value types (`__nv_fp8_e4m3`, `__nv_fp8_e5m2`, `c10::Float8_e4m3fn`) and cuda_fp8.h's conversions,
each on a snippet shaped like a real quantisation kernel, simulated and compared bit for bit with torch's
conversions or with the saturation rule of cuda_fp8.h where the two differ (e5m2 overflow)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda

from larkc.ir import parse_module, print_module
from larkc.ir.types import F8E4M3, F8E5M2
from larkc.ir.values import round_float
from larkc.tasks import parse_dtype


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


INF = math.inf
NAN = math.nan

#: Inputs at every edge of the e4m3 conversion: saturation (above 464 and infinities), NaN, ties to even
#: (17 -> 16, 19 -> 20, 3 * 2^-10 -> 2^-8), the subnormal tie 2^-10 -> 0, a value just above 464, -0.0.
EDGES = [1.0, 0.3, 17.0, 19.0, 448.0, 464.0, 464.5, 500.0, -1e6, INF, -INF, NAN, 2.0**-10, 3 * 2.0**-10, -0.0, 1e-30]


def bits(t: torch.Tensor) -> list[int]:
    return t.view(torch.uint8).tolist()


# -- 1. per-tensor scaled quantisation and dequantisation ---------------------------------------------

QUANT = """
#include <cuda_fp8.h>
__global__ void quant(const float* __restrict__ x, __nv_fp8_e4m3* __restrict__ out, float inv_scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __nv_fp8_e4m3(x[i] * inv_scale);
}
__global__ void dequant(const __nv_fp8_e4m3* __restrict__ q, float* __restrict__ out, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_cast<float>(q[i]) * scale;
}
"""


def test_quant_matches_torch_float8_e4m3fn_bit_for_bit(cuda: Cuda) -> None:
    x = torch.tensor(EDGES, dtype=torch.float32)
    n = len(EDGES)
    r = cuda.run(
        QUANT, "quant", block=n, buffers={"x": x, "out": ("float8_e4m3fn", n)}, scalars={"inv_scale": 1.0, "n": n}
    )
    assert r.ok, r.diagnoses
    out = r.buffers["out"]
    assert out.dtype == torch.float8_e4m3fn
    assert bits(out) == bits(x.to(torch.float8_e4m3fn))
    assert out.float()[7].item() == 448.0 and out.float()[9].item() == 448.0  # saturated, not NaN
    assert bits(out)[14] == 0x80  # -0.0 keeps its sign


def test_quant_then_dequant_rounds_once_per_step(cuda: Cuda) -> None:
    x = torch.linspace(-3000.0, 3000.0, 64, dtype=torch.float32)
    r = cuda.run(
        QUANT, "quant", block=64, buffers={"x": x, "out": ("f8e4m3", 64)}, scalars={"inv_scale": 0.125, "n": 64}
    )
    assert r.ok, r.diagnoses
    q = r.buffers["out"]
    assert bits(q) == bits((x * 0.125).to(torch.float8_e4m3fn))
    d = cuda.run(QUANT, "dequant", block=64, buffers={"q": q, "out": ("f32", 64)}, scalars={"scale": 8.0, "n": 64})
    assert d.ok, d.diagnoses
    assert torch.equal(d.buffers["out"], q.float() * 8.0)


# -- 2. e5m2 and the other constructors: cuda_fp8.h saturates where torch's e5m2 overflows ----------

CONSTRUCTORS = """
#include <cuda_fp8.h>
#include <cuda_fp16.h>
__global__ void to_e5m2(const float* x, __nv_fp8_e5m2* a, __nv_fp8_e5m2* b, c10::Float8_e4m3fn* c, float* back) {
    int i = threadIdx.x;
    a[i] = __nv_fp8_e5m2(x[i]);
    b[i] = __nv_fp8_e5m2(__float2half(x[i]));
    c[i] = c10::Float8_e4m3fn(x[i]);
    c10::Float8_e4m3fn v = c[i];
    back[i] = float(a[i]) + (float)v;
}
"""


def test_e5m2_constructor_saturates_as_cuda_fp8_does(cuda: Cuda) -> None:
    vals = [1.0, 0.3, 57344.0, 61439.0, 61440.0, 1e6, -INF, NAN, 2.0**-17, 1.5 * 2.0**-16]
    x = torch.tensor(vals, dtype=torch.float32)
    n = len(vals)
    r = cuda.run(
        CONSTRUCTORS,
        "to_e5m2",
        block=n,
        buffers={"x": x, "a": ("f8e5m2", n), "b": ("f8e5m2", n), "c": ("f8e4m3", n), "back": ("f32", n)},
    )
    assert r.ok, r.diagnoses
    a = r.buffers["a"].float().tolist()
    expected = [round_float(v, F8E5M2) for v in x.tolist()]
    assert a[:7] == [1.0, 0.3125, 57344.0, 57344.0, 57344.0, 57344.0, -57344.0] == expected[:7]
    assert math.isnan(a[7]) and a[8:] == expected[8:] == [0.0, 2.0**-15]  # ties to even among subnormals
    torch_e5m2 = x.to(torch.float8_e5m2).float().tolist()
    assert torch_e5m2[4] == INF  # torch overflows where cuda_fp8.h saturates
    assert bits(r.buffers["b"])[:5] == bits(r.buffers["a"])[:5]  # via half: 61439 rounds to 61440 in half
    assert bits(r.buffers["c"]) == bits(x.to(torch.float8_e4m3fn))
    back = r.buffers["back"]
    assert back[0].item() == 2.0 and back[5].item() == 57344.0 + 448.0


# -- 3. cuda_fp8.h's conversion intrinsics on storage bits ------------------------------------------

INTRINSICS = """
#include <cuda_fp8.h>
__global__ void cvt(const float* x, __nv_fp8_storage_t* sat, __nv_fp8_storage_t* nosat,
                    __nv_fp8_storage_t* nosat5, __nv_fp8x2_storage_t* pair, __half* back) {
    int i = threadIdx.x;
    sat[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
    nosat[i] = __nv_cvt_float_to_fp8(x[i], __NV_NOSAT, __NV_E4M3);
    nosat5[i] = __nv_cvt_float_to_fp8(x[i], __NV_NOSAT, __NV_E5M2);
    pair[i] = __nv_cvt_float2_to_fp8x2(make_float2(x[i], -x[i]), __NV_SATFINITE, __NV_E4M3);
    back[i] = __nv_cvt_fp8_to_halfraw(sat[i], __NV_E4M3);
}
"""


def test_conversion_intrinsics_saturate_or_not(cuda: Cuda) -> None:
    vals = [1.0, 464.0, 465.0, -500.0, 61440.0, -1e6, INF, -INF, 0.3]
    x = torch.tensor(vals, dtype=torch.float32)
    n = len(vals)
    r = cuda.run(
        INTRINSICS,
        "cvt",
        block=n,
        buffers={
            "x": x,
            "sat": ("u8", n),
            "nosat": ("u8", n),
            "nosat5": ("u8", n),
            "pair": ("u16", n),
            "back": ("f16", n),
        },
    )
    assert r.ok, r.diagnoses
    sat = r.buffers["sat"].tolist()
    assert sat == bits(x.to(torch.float8_e4m3fn))
    # __NV_NOSAT: above 464 (infinities too) e4m3 gives NaN (0x7F with the sign), e5m2 gives infinity
    assert r.buffers["nosat"].tolist() == [0x38, 0x7E, 0x7F, 0xFF, 0x7F, 0xFF, 0x7F, 0xFF, 0x2A]
    e5m2 = r.buffers["nosat5"].tolist()
    assert e5m2[4:8] == [0x7C, 0xFC, 0x7C, 0xFC] and e5m2[:4] == bits(x[:4].to(torch.float8_e5m2))
    pair = r.buffers["pair"].to(torch.int64).tolist()
    assert [p & 0xFF for p in pair] == sat and [p >> 8 for p in pair] == bits((-x).to(torch.float8_e4m3fn))
    assert torch.equal(r.buffers["back"], x.to(torch.float8_e4m3fn).to(torch.float16))


def test_the_saturation_argument_must_be_an_enumerator(cuda: Cuda) -> None:
    src = """
#include <cuda_fp8.h>
__global__ void k(const float* x, __nv_fp8_storage_t* out, __nv_saturation_t s) {
    out[0] = __nv_cvt_float_to_fp8(x[0], s, __NV_E4M3);
}
"""
    assert "error: unsupported argument other than __NV_SATFINITE or __NV_NOSAT: s" in cuda.error(
        src.replace("__nv_saturation_t", "int")
    )


def test_adding_packed_fp8_values_is_a_located_error(cuda: Cuda) -> None:
    # the packed classes are values (test_cuda_packed_fp8.py) without operators: nvcc rejects `q[0] + q[1]`
    src = "#include <cuda_fp8.h>\n__global__ void k(__nv_fp8x2_e4m3* q) { q[0] = q[0] + q[1]; }\n"
    assert cuda.error(src) == "2:48: error: no operator + on f8e4m3x2 (cuda_fp8.h's packed types)"
    assert cuda.error(src.replace("+", "-")).startswith("2:48: error: no operator - on f8e4m3x2")


# -- 4. the IR text and the task dtype names --------------------------------------------------------


def test_fp8_types_round_trip_through_the_ir_text(cuda: Cuda) -> None:
    module = cuda.lower(QUANT)
    text = print_module(module)
    assert "ptr<global restrict f8e4m3>" in text and "convert<f8e4m3>(" in text
    assert parse_module(text) == module
    assert print_module(parse_module(text.replace("f8e4m3", "f8e5m2"))).count("f8e5m2") == text.count("f8e4m3")


@pytest.mark.parametrize(
    ("name", "t"),
    [("f8e4m3", F8E4M3), ("float8_e4m3fn", F8E4M3), ("torch.float8_e4m3fn", F8E4M3), ("float8_e5m2", F8E5M2)],
)
def test_task_dtype_names(name: str, t: object) -> None:
    assert parse_dtype(name) == t


# -- 5. c10's fp8 operators: fp8 op fp8 computes in float and rounds back ------------------------------

C10_ARITH = """
__global__ void c10_axpy(const c10::Float8_e4m3fn* x, const c10::Float8_e4m3fn* y, c10::Float8_e4m3fn* out,
                         float* wide) {
    int i = threadIdx.x;
    out[i] = x[i] + y[i];
    wide[i] = x[i] * 0.5f + y[i];
}
"""


def test_c10_fp8_sum_rounds_to_fp8_and_a_float_operand_widens(cuda: Cuda) -> None:
    x = torch.tensor([1.0, 448.0, 16.0, -2.0], dtype=torch.float32).to(torch.float8_e4m3fn)
    y = torch.tensor([0.0625, 448.0, 1.0, 0.125], dtype=torch.float32).to(torch.float8_e4m3fn)
    r = cuda.run(C10_ARITH, "c10_axpy", block=4, buffers={"x": x, "y": y, "out": ("f8e4m3", 4), "wide": ("f32", 4)})
    assert r.ok, r.diagnoses
    assert bits(r.buffers["out"]) == bits((x.float() + y.float()).to(torch.float8_e4m3fn))
    assert r.buffers["out"].float().tolist() == [1.0, 448.0, 16.0, -1.875]  # 1 + 1/16 ties to 1; 16 + 1 to 16
    assert r.buffers["wide"].tolist() == (x.float() * 0.5 + y.float()).tolist()


def test_specializations_for_packed_fp8_do_not_stop_other_instances(cuda: Cuda) -> None:
    src = """
#include <cuda_fp8.h>
template <typename float_t, size_t vec_size>
struct vec_t {
  __device__ void fill(float_t val);
};
template <>
struct vec_t<__nv_fp8x2_e4m3, 1> {
  __nv_fp8x2_storage_t data;
  __device__ void fill(__nv_fp8x2_e4m3 val);
};
__device__ void vec_t<__nv_fp8x2_e4m3, 1>::fill(__nv_fp8x2_e4m3 val) { }
template <>
struct vec_t<__nv_fp8_e4m3, 2> {
  __nv_fp8_e4m3 data[2];
  __device__ void fill(__nv_fp8_e4m3 val);
};
__device__ void vec_t<__nv_fp8_e4m3, 2>::fill(__nv_fp8_e4m3 val) { data[0] = val; data[1] = val; }
__global__ void fill_kernel(__nv_fp8_e4m3* out, float v) {
  vec_t<__nv_fp8_e4m3, 2> x;
  x.fill(__nv_fp8_e4m3(v));
  out[2 * threadIdx.x] = x.data[0];
  out[2 * threadIdx.x + 1] = x.data[1];
}
"""
    r = cuda.run(src, "fill_kernel", block=2, buffers={"out": ("f8e4m3", 4)}, scalars={"v": 300.0})
    assert r.ok, r.diagnoses
    assert r.buffers["out"].float().tolist() == [288.0] * 4  # 300 rounds to 288 (spacing 32 above 256)
