"""Declaration- and type-level CUDA constructs that real kernels use (issue 10 item 4), each on a snippet
shaped like the code it comes from (llm.c, vLLM, exllamav2, flashinfer, the CUDA samples), checked on the
IR and, where the construct changes what the kernel computes, in the simulator."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import print_module, verify_module
from larkc.ir.nodes import Module
from larkc.ir.types import F16, F32, U32, ScalarType, VectorType
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimResult, simulate


def lower(src: str) -> Module:
    m = parse_cuda(text=src, file="test.cu")
    verify_module(m)
    return m


def error(src: str) -> str:
    with pytest.raises(LarkcError) as info:
        lower(src)
    return str(info.value)


def run(
    src: str,
    kernel: str,
    buffers: dict[str, tuple[torch.Tensor, ScalarType | VectorType]],
    scalars: dict[str, int | float] | None = None,
    *,
    grid: int = 1,
    block: int = 32,
) -> SimResult:
    """Simulate ``kernel`` of ``src`` on one launch; a buffer is (tensor, element type)."""
    args: dict[str, KernelArg] = {n: GlobalBuffer(n, t, et) for n, (t, et) in buffers.items()}
    args.update(scalars or {})
    result = simulate(lower(src), kernel, LaunchConfig((grid, 1, 1), (block, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    return result


def out(result: SimResult, name: str) -> torch.Tensor:
    return result.buffers[name]


# -- 1. namespace aliases and using directives inside function bodies -----------------------------

CG_LOCAL_ALIAS = """
#include <cooperative_groups.h>
__global__ void scale(float* out, const float* in, int n) {
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);
    if (warp.thread_rank() == 0) out[blockIdx.x] = v;
}
"""


def test_namespace_alias_in_a_kernel_body_names_cooperative_groups() -> None:
    x = torch.arange(64, dtype=torch.float32)
    r = run(CG_LOCAL_ALIAS, "scale", {"out": (torch.zeros(2), F32), "in": (x, F32)}, {"n": 64}, grid=2)
    assert out(r, "out").tolist() == [float(x[:32].sum()), float(x[32:].sum())]


def test_namespace_alias_is_visible_only_after_it_and_inside_its_block() -> None:
    src = """
#include <cooperative_groups.h>
__device__ void helper() { cg::this_thread_block().sync(); }
__global__ void k(float* a) { namespace cg = cooperative_groups; helper(); a[0] = 1.0f; }
"""
    assert "cg::this_thread_block" in error(src)


USING_IN_BODY = """
namespace act {
__device__ __forceinline__ float silu(float x) { return x / (1.0f + expf(-x)); }
typedef float acc_t;
}
namespace math { __device__ float twice(float x) { return 2.0f * x; } }
__global__ void silu_kernel(float* out, const float* in, int n) {
    using namespace act;
    using math::twice;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { acc_t v = in[i]; out[i] = twice(silu(v)); }
}
"""


def test_using_directive_and_using_declaration_in_a_kernel_body() -> None:
    x = torch.linspace(-3, 3, 32)
    r = run(USING_IN_BODY, "silu_kernel", {"out": (torch.zeros(32), F32), "in": (x, F32)}, {"n": 32})
    torch.testing.assert_close(out(r, "out"), 2 * x * torch.sigmoid(x))


def test_using_directive_in_one_function_does_not_leak_into_another() -> None:
    src = """
namespace act { __device__ float relu(float x) { return x > 0.0f ? x : 0.0f; } }
__device__ float f(float x) { using namespace act; return relu(x); }
__global__ void k(float* a) { a[0] = relu(a[0]); }
"""
    assert "relu" in error(src)


def test_namespace_alias_of_a_user_namespace_in_a_body_for_types_and_calls() -> None:
    src = """
namespace flashinfer { namespace math { typedef float real; __device__ real sq(real x) { return x * x; } } }
__global__ void k(float* a) {
    namespace fm = flashinfer::math;
    fm::real v = a[threadIdx.x];
    a[threadIdx.x] = fm::sq(v);
}
"""
    x = torch.arange(32, dtype=torch.float32)
    r = run(src, "k", {"a": (x.clone(), F32)})
    assert out(r, "a").tolist() == (x * x).tolist()


# -- 2. unions used for type punning --------------------------------------------------------------

EXL_UNION = """
#include <cuda_fp16.h>
union half2_uint32 {
    uint32_t as_uint32;
    half2 as_half2;
    __device__ half2_uint32(uint32_t val) : as_uint32(val) {}
    __device__ half2_uint32(half2 val) : as_half2(val) {}
};
// dequantise 4-bit pairs the exllamav2 way: OR the nibbles into the mantissa of 1024.0h, subtract 1024
__global__ void dequant(const uint32_t* q, half2* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint32_t c0 = 0x64006400;
    half2_uint32 q0((q[i] & 0x000f000f) | c0);
    const half2 z = __halves2half2(__float2half(1024.0f), __float2half(1024.0f));
    out[i] = __hsub2(q0.as_half2, z);
}
"""


def test_union_constructor_and_member_read_are_a_bitcast() -> None:
    text = print_module(lower(EXL_UNION))
    assert "bitcast<f16x2>(%q0)" in text


def test_exllama_style_union_dequantises_nibbles_in_the_simulator() -> None:
    lo, hi = torch.arange(8), torch.arange(8, 16)
    q = lo | (hi << 16) | 0x00A000B0  # bits above the low nibbles are masked off
    half2 = VectorType(F16, 2, 4)
    buffers = {"q": (q.to(torch.int32), U32), "out": (torch.zeros(8, 2, dtype=torch.float16), half2)}
    r = run(EXL_UNION, "dequant", buffers, {"n": 8}, block=8)
    got = out(r, "out").reshape(8, 2).float()
    assert got[:, 0].tolist() == lo.float().tolist()
    assert got[:, 1].tolist() == hi.float().tolist()


def test_union_member_written_then_another_read() -> None:
    src = """
typedef union { float f; unsigned int u; } fbits;
__global__ void sign_flip(float* x, int n) {
    int i = threadIdx.x;
    if (i < n) { fbits b; b.f = x[i]; b.u ^= 0x80000000u; x[i] = b.f; }
}
"""
    x = torch.tensor([1.5, -2.0, 0.0, 3.25])
    r = run(src, "sign_flip", {"x": (x.clone(), F32)}, {"n": 4}, block=4)
    assert out(r, "x").tolist() == [-1.5, 2.0, -0.0, -3.25]


def test_union_with_members_of_different_sizes_is_a_located_error() -> None:
    src = """
union U { float f; double d; };
__global__ void k(float* x) { U u; u.f = x[0]; x[1] = u.f; }
"""
    assert error(src) == "test.cu:2:1: error: unsupported union with members of different sizes: U"
