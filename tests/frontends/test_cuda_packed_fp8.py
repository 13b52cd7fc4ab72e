"""cuda_fp8.h's packed fp8 classes (``__nv_fp8x2_e4m3``, ``__nv_fp8x4_e4m3``, ``__nv_fp8x2_e5m2``,
``__nv_fp8x4_e5m2``): vectors of the IR's ``f8e4m3``/``f8e5m2`` of their storage's size and alignment, built
from ``float2``/``float4`` (also ``double``, ``__half2``, ``__nv_bfloat162`` where cuda_fp8.h has the
constructor) lane by lane as the scalar constructors do (round to nearest even, saturating), and converted
back to ``float2``/``float4`` exactly. Checked bit for bit against torch's conversions of the clamped value
(torch's own e4m3 conversion saturates; its e5m2 one overflows to infinity, cuda_fp8.h's saturates)."""

from __future__ import annotations

import math

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.frontends.cuda.sema.ctypes import BUILTIN_TYPES, vector
from larkc.ir import verify_module
from larkc.ir.types import F8E4M3, F8E5M2, F16, F32, U32
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

# a quantisation kernel in the shape of the fp8 KV-cache writers: pairs and quads packed, stored, read back
PACK = """
#include <cuda_fp8.h>
__global__ void pack(const float2* x, __nv_fp8x2_e4m3* q2, float2* back2, const float4* y, __nv_fp8x4_e5m2* q4,
                     float4* back4, __half2* halves) {
    int i = threadIdx.x;
    __nv_fp8x2_e4m3 p = static_cast<__nv_fp8x2_e4m3>(x[i]);
    q2[i] = p;
    back2[i] = static_cast<float2>(p);
    halves[i] = static_cast<__half2>(p);
    __nv_fp8x4_e5m2 p4 = (__nv_fp8x4_e5m2)y[i];
    q4[i] = p4;
    back4[i] = (float4)p4;
}
"""

X = [[1.0, 0.3], [17.0, 19.0], [500.0, -1e6], [math.nan, 2.0**-10], [-0.0, 3 * 2.0**-10], [464.0, 464.5]]
Y = [[1.0, 0.3, 17.0, 19.0], [60000.0, -1e6, math.inf, 2.0**-17], [0.1, 0.2, 0.3, 0.4], [-0.0, 1e-30, 3.0, 57344.0]]


def packed_buffers() -> dict[str, KernelArg]:
    """The inputs X and Y and zeroed packed outputs q2 (e4m3 pairs) and q4 (e5m2 quads), one per thread."""
    x, y = torch.tensor(X), torch.tensor(Y + Y[:2])
    n = len(X)
    return {
        "x": GlobalBuffer("x", x, vector(F32, 2)),
        "q2": GlobalBuffer("q2", torch.zeros(n, 2, dtype=torch.float8_e4m3fn), vector(F8E4M3, 2)),
        "y": GlobalBuffer("y", y, vector(F32, 4)),
        "q4": GlobalBuffer("q4", torch.zeros(n, 4, dtype=torch.float8_e5m2), vector(F8E5M2, 4)),
    }


def assert_packed(buffers: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """q2 and q4 hold X and Y rounded and saturated lane by lane; returns the wanted values."""
    want2 = torch.tensor(X).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)  # nan stays nan
    want4 = torch.tensor(Y + Y[:2]).clamp(-57344.0, 57344.0).to(torch.float8_e5m2)  # cuda_fp8.h saturates e5m2
    assert buffers["q2"].view(torch.uint8).tolist() == want2.view(torch.uint8).tolist()
    assert buffers["q4"].view(torch.uint8).tolist() == want4.view(torch.uint8).tolist()
    return want2, want4


def test_pairs_and_quads_round_and_saturate_lane_by_lane_and_convert_back_exactly() -> None:
    module = parse_cuda(text=PACK, file="pack.cu")
    verify_module(module)
    n = len(X)
    args = packed_buffers() | {
        "back2": GlobalBuffer("back2", torch.zeros(n, 2), vector(F32, 2)),
        "halves": GlobalBuffer("halves", torch.zeros(n, 2, dtype=torch.float16), vector(F16, 2)),
        "back4": GlobalBuffer("back4", torch.zeros(n, 4), vector(F32, 4)),
    }
    result = simulate(module, "pack", LaunchConfig((1, 1, 1), (n, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    want2, want4 = assert_packed(result.buffers)
    assert result.buffers["back2"].nan_to_num(7.0).tolist() == want2.float().nan_to_num(7.0).tolist()
    assert result.buffers["back4"].tolist() == want4.float().tolist()
    assert result.buffers["halves"].nan_to_num(7.0).tolist() == want2.half().nan_to_num(7.0).tolist()


# the same quantisation written with the constructors: a functional cast and a direct-initialisation
PACK_CONSTRUCTED = """
#include <cuda_fp8.h>
__global__ void pack_constructed(const float2* x, __nv_fp8x2_e4m3* q2, const float4* y, __nv_fp8x4_e5m2* q4,
                                 const float* s, float* scaled) {
    int i = threadIdx.x;
    q2[i] = __nv_fp8x2_e4m3(x[i]);
    __nv_fp8x4_e5m2 p4(y[i]);
    q4[i] = p4;
    float f(s[i]);
    double d(i);
    scaled[i] = f * (float)d;
}
"""


def test_functional_casts_and_direct_initialisations_build_packed_values_as_static_cast_does() -> None:
    module = parse_cuda(text=PACK_CONSTRUCTED, file="pack.cu")
    verify_module(module)
    n = len(X)
    args = packed_buffers() | {
        "s": GlobalBuffer("s", torch.arange(n, dtype=torch.float32) + 0.5, F32),
        "scaled": GlobalBuffer("scaled", torch.zeros(n), F32),
    }
    result = simulate(module, "pack_constructed", LaunchConfig((1, 1, 1), (n, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    assert_packed(result.buffers)
    assert result.buffers["scaled"].tolist() == [(i + 0.5) * i for i in range(n)]


def test_a_direct_initialisation_from_a_value_cuda_fp8_h_cannot_convert_is_a_located_error() -> None:
    src = "#include <cuda_fp8.h>\n__global__ void k(const int2* y) {\n    __nv_fp8x2_e4m3 p(y[threadIdx.x]);\n}\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="bad.cu")
    assert str(info.value).splitlines()[0] == (
        "bad.cu:3:21: error: cannot convert i32x2 to f8e4m3x2 (cuda_fp8.h has no such conversion)"
    )


def test_a_packed_type_has_the_size_of_its_storage() -> None:
    src = """
#include <cuda_fp8.h>
__global__ void sizes(unsigned int* out) {
    out[0] = sizeof(__nv_fp8x2_e4m3);
    out[1] = sizeof(__nv_fp8x4_e5m2);
    out[2] = sizeof(__nv_fp8x4_e4m3);
}
"""
    module = parse_cuda(text=src, file="sizes.cu")
    out = GlobalBuffer("out", torch.zeros(3, dtype=torch.uint32), U32)
    result = simulate(module, "sizes", LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": out})
    assert result.buffers["out"].tolist() == [2, 4, 4]
    assert BUILTIN_TYPES["__nv_fp8x4_e4m3"] == vector(F8E4M3, 4, 4)  # aligned as __nv_fp8x4_storage_t


@pytest.mark.parametrize(
    ("conversion", "message"),
    [
        ("static_cast<__nv_fp8x2_e4m3>(make_int2(1, 2))", "cannot convert i32x2 to f8e4m3x2"),
        ("static_cast<int2>(static_cast<__nv_fp8x2_e4m3>(make_float2(1.f, 2.f)))", "cannot convert f8e4m3x2 to i32x2"),
        ("static_cast<__nv_fp8x2_e5m2>(static_cast<__nv_fp8x2_e4m3>(make_float2(1.f, 2.f)))", "to f8e5m2x2"),
        ("__nv_fp8x2_e4m3 v = make_float2(1.f, 2.f)", "cannot convert f32x2 to f8e4m3x2"),
    ],
)
def test_conversions_cuda_fp8_h_does_not_define_are_located_errors(conversion: str, message: str) -> None:
    src = f"#include <cuda_fp8.h>\n__global__ void k() {{\n    {conversion};\n}}\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="bad.cu")
    first = str(info.value).splitlines()[0]
    assert first.startswith("bad.cu:3:"), first
    assert message in first


def test_specializations_for_fp4_types_are_skipped_not_an_error() -> None:
    # flashinfer's vec_dtypes.cuh specializes vec_t for __nv_fp4x2_e2m1, a type larkc does not model
    src = """
template <typename T, int N> struct vec_t { T data[N]; };
template <> struct vec_t<__nv_fp4x2_e2m1, 1> { unsigned char data[1]; __device__ void fill(float v); };
__device__ void vec_t<__nv_fp4x2_e2m1, 1>::fill(float v) { }
template <int N> struct vec_t<__nv_fp4x2_e2m1, N> { unsigned char data[N]; };
__global__ void k(float* out) {
    vec_t<float, 1> v;
    v.data[0] = 2.0f;
    out[0] = v.data[0];
}
"""
    out = GlobalBuffer("out", torch.zeros(1), F32)
    result = simulate(parse_cuda(text=src, file="fp4.cu"), "k", LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": out})
    assert result.buffers["out"].tolist() == [2.0]
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src.replace("vec_t<float, 1> v;", "vec_t<__nv_fp4x2_e2m1, 1> v;"), file="fp4.cu")
    assert "unsupported narrow float type" in str(info.value)


def test_arithmetic_on_packed_fp8_values_is_a_located_error() -> None:
    # cuda_fp8.h's packed classes have no operators: nvcc rejects `q[0] + q[1]`
    src = "#include <cuda_fp8.h>\n__global__ void k(__nv_fp8x2_e4m3* q) {\n    q[0] = q[0] * q[1];\n}\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="op.cu")
    assert str(info.value).splitlines()[0] == "op.cu:3:12: error: no operator * on f8e4m3x2 (cuda_fp8.h's packed types)"
