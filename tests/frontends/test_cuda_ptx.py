"""Inline PTX idioms of flashinfer (include/flashinfer/math.cuh, cascade.cuh, pos_enc.cuh), each on a kernel
shaped like its real use: the ``.approx`` math instructions as the IR's approximate math calls, the
butterfly shuffle with its clamp and mask written in the text, ``griddepcontrol`` (no effect within one
launch), ``trap;`` (a failing assertion), and ``__sincosf`` with pointer outputs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda

from larkc.ir import print_module


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- .approx math in f32 registers -----------------------------------------------------------------------

#: flashinfer's wrappers, each ``float name(float x) { float y; asm volatile("<instruction> %0, %1;" ...``
F32_WRAPPERS = {
    "ptx_exp2": "ex2.approx.ftz.f32",
    "ptx_log2": "lg2.approx.ftz.f32",
    "ptx_rcp": "rcp.approx.ftz.f32",
    "rsqrt": "rsqrt.approx.ftz.f32",
    "tanh": "tanh.approx.f32",
}

PTX_MATH_F32 = (
    "namespace math {\n"
    + "".join(
        f"__forceinline__ __device__ float {name}(float x) {{\n  float y;\n"
        f'  asm volatile("{instruction} %0, %1;" : "=f"(y) : "f"(x));\n  return y;\n}}\n'
        for name, instruction in F32_WRAPPERS.items()
    )
    + "}  // namespace math\n"
    + """
__global__ void ptx_math(const float* x, float* e, float* l, float* r, float* s, float* t) {
  int i = threadIdx.x;
  float v = x[i];
  e[i] = math::ptx_exp2(v);
  l[i] = math::ptx_log2(v);
  r[i] = math::ptx_rcp(v);
  s[i] = math::rsqrt(v);
  t[i] = math::tanh(v);
}
"""
)


def test_approx_f32_instructions_compute_their_functions(cuda: Cuda) -> None:
    x = torch.rand(32) * 4 + 0.25
    out = {k: ("f32", 32) for k in "elrst"}
    r = cuda.run(PTX_MATH_F32, "ptx_math", block=32, buffers={"x": x, **out})
    assert r.ok, r.diagnoses
    xd = x.double()
    expected = {"e": 2**xd, "l": torch.log2(xd), "r": 1 / xd, "s": torch.rsqrt(xd), "t": torch.tanh(xd)}
    for k, want in expected.items():
        assert torch.allclose(r.buffers[k].double(), want, rtol=1e-6), k


def test_approx_instructions_are_approximate_math_calls_in_the_ir(cuda: Cuda) -> None:
    text = print_module(cuda.lower(PTX_MATH_F32))
    for call in ("exp2.approx(", "log2.approx(", "div.approx(", "rsqrt.approx(", "tanh.approx("):
        assert call in text, call


# -- .approx math on halves and half pairs (bits in h and r registers) -----------------------------------

#: flashinfer's half and half-pair wrappers of ``ex2.approx`` and ``tanh.approx`` (``ushort`` there: a
#: glibc typedef the frontend does not know)
HALF_WRAPPER = """
__forceinline__ __device__ half2 NAME(half2 x) {
  uint32_t y_u32;
  uint32_t x_u32 = half2_as_uint32(x);
  asm volatile("OP.f16x2 %0, %1;" : "=r"(y_u32) : "r"(x_u32));
  return uint32_as_half2(y_u32);
}
__forceinline__ __device__ half NAME(half x) {
  unsigned short y_u16;
  asm volatile("OP.f16 %0, %1;" : "=h"(y_u16) : "h"(__half_as_ushort(x)));
  return __ushort_as_half(y_u16);
}
"""

PTX_MATH_F16 = (
    """
#include <cuda_fp16.h>
#include <cstdint>
__forceinline__ __device__ uint32_t half2_as_uint32(half2 x) { return *(uint32_t*)&x; }
__forceinline__ __device__ half2 uint32_as_half2(uint32_t x) { return *(half2*)&x; }
"""
    + "".join(
        HALF_WRAPPER.replace("NAME", n).replace("OP", op)
        for n, op in (("ptx_exp2", "ex2.approx"), ("tanh", "tanh.approx"))
    )
    + """
__global__ void ptx_half_math(const half* x, half* e1, half* e2, half* t1, half* t2) {
  int i = threadIdx.x;
  half2 pair = __halves2half2(x[2 * i], x[2 * i + 1]);
  half2 e = ptx_exp2(pair);
  half2 t = tanh(pair);
  e2[2 * i] = __low2half(e);
  e2[2 * i + 1] = __high2half(e);
  t2[2 * i] = __low2half(t);
  t2[2 * i + 1] = __high2half(t);
  e1[2 * i] = ptx_exp2(x[2 * i]);
  e1[2 * i + 1] = ptx_exp2(x[2 * i + 1]);
  t1[2 * i] = tanh(x[2 * i]);
  t1[2 * i + 1] = tanh(x[2 * i + 1]);
}
"""
)


def test_approx_f16_and_f16x2_instructions_compute_lane_by_lane(cuda: Cuda) -> None:
    x = (torch.rand(64) * 6 - 3).to(torch.float16)
    out = {k: ("f16", 64) for k in ("e1", "e2", "t1", "t2")}
    r = cuda.run(PTX_MATH_F16, "ptx_half_math", block=32, buffers={"x": x, **out})
    assert r.ok, r.diagnoses
    xd = x.double()
    exp2, tanh = (2**xd).to(torch.float16), torch.tanh(xd).to(torch.float16)
    assert torch.equal(r.buffers["e1"], exp2) and torch.equal(r.buffers["e2"], exp2)
    assert torch.equal(r.buffers["t1"], tanh) and torch.equal(r.buffers["t2"], tanh)


# -- the butterfly shuffle with clamp and mask in the text (warp reductions of flashinfer) ---------------

WARP_SUM = """
__forceinline__ __device__ float shfl_xor_sync(float x, int lane_mask) {
  float y;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
               : "=f"(y)
               : "f"(x), "r"(lane_mask));
  return y;
}

__global__ void warp_sum(const float* x, float* sums, float* partner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  partner[i] = shfl_xor_sync(v, 5);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    v += shfl_xor_sync(v, offset);
  }
  sums[i] = v;
}
"""


def test_butterfly_shuffle_with_constant_clamp_and_mask_moves_float_values(cuda: Cuda) -> None:
    x = torch.arange(64, dtype=torch.float32) * 0.5 - 7.25  # exact sums
    r = cuda.run(WARP_SUM, "warp_sum", block=64, buffers={"x": x, "sums": ("f32", 64), "partner": ("f32", 64)})
    assert r.ok, r.diagnoses
    assert r.buffers["partner"].tolist() == [x[(t // 32) * 32 + ((t % 32) ^ 5)].item() for t in range(64)]
    warp_sums = [x[:32].sum().item(), x[32:].sum().item()]
    assert r.buffers["sums"].tolist() == [warp_sums[t // 32] for t in range(64)]


def test_butterfly_shuffle_of_float_bits_into_an_integer_register_keeps_the_bits(cuda: Cuda) -> None:
    src = """
__global__ void k(const float* x, unsigned* bits) {
  unsigned y;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "f"(x[threadIdx.x]), "r"(1));
  bits[threadIdx.x] = y;
}
"""
    x = torch.tensor([1.5, -2.0, 0.1, 3.0] * 8, dtype=torch.float32)
    r = cuda.run(src, "k", block=32, buffers={"x": x, "bits": ("u32", 32)})
    assert r.ok, r.diagnoses
    swapped = x[[t ^ 1 for t in range(32)]]
    assert (
        r.buffers["bits"].to(torch.int64).tolist() == (swapped.view(torch.int32).to(torch.int64) & 0xFFFFFFFF).tolist()
    )


# -- griddepcontrol (programmatic dependent launch) and trap ---------------------------------------------

MERGE_STATES = """
__global__ void merge_states(const float* v, const float* s, float* v_merged, int num_index_sets) {
#if (__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))
  asm volatile("griddepcontrol.wait;");
#endif
  asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = threadIdx.x;
  float acc = 0.f;
  for (int k = 0; k < num_index_sets; ++k) acc += v[k * blockDim.x + i] * s[k];
  v_merged[i] = acc;
  asm volatile("griddepcontrol.launch_dependents;");
}
"""


def test_griddepcontrol_has_no_effect_within_a_launch(cuda: Cuda) -> None:
    v = torch.arange(12, dtype=torch.float32)
    s = torch.tensor([1.0, 2.0, -1.0])
    r = cuda.run(
        MERGE_STATES,
        "merge_states",
        block=4,
        buffers={"v": v, "s": s, "v_merged": ("f32", 4)},
        scalars={"num_index_sets": 3},
    )
    assert r.ok, r.diagnoses
    assert torch.equal(r.buffers["v_merged"], (v.view(3, 4) * s[:, None]).sum(0))
    assert "griddepcontrol" not in print_module(cuda.lower(MERGE_STATES))


TRAP = """
__device__ unsigned to_e4m3_pair(float a, float b) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)
  return 0;
#elif defined(__CUDA_ARCH__)
  asm volatile("trap;");
  return 0;
#else
  return 0;
#endif
}

__global__ void k(const float* x, unsigned* out, int n) {
  int i = threadIdx.x;
  if (i >= n) asm volatile("trap;");
  out[i] = (unsigned)x[i];
}
"""


def test_trap_is_an_assertion_that_fails_on_the_threads_reaching_it(cuda: Cuda) -> None:
    x = torch.arange(8, dtype=torch.float32)
    ok = cuda.run(TRAP, "k", block=8, buffers={"x": x, "out": ("u32", 8)}, scalars={"n": 8})
    assert ok.ok, ok.diagnoses
    bad = cuda.run(TRAP, "k", block=8, buffers={"x": x, "out": ("u32", 8)}, scalars={"n": 6})
    assert not bad.ok
    assert {d.kind.value for d in bad.diagnoses} == {"assert"}
    assert all(d.span is not None and d.span.line == 15 for d in bad.diagnoses)


# -- sincosf with pointer outputs (pos_enc.cuh's rotary embedding) --------------------------------------

ROPE = """
__global__ void rope_cos_sin(const float* pos, const float* freq, float* out_sin, float* out_cos,
                             float* fast_sin, float* fast_cos) {
  int i = threadIdx.x;
  float sin[2], cos[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    float embed = pos[i] * freq[j];
    sincosf(embed, &sin[j], &cos[j]);
  }
  float s, c;
  __sincosf(pos[i] * freq[0], &s, &c);
  fast_sin[i] = s;
  fast_cos[i] = c;
  if (i == 2) sincosf(pos[i], out_sin + 2 * blockDim.x, &out_cos[2 * blockDim.x]);
  out_sin[2 * i] = sin[0];
  out_sin[2 * i + 1] = sin[1];
  out_cos[2 * i] = cos[0];
  out_cos[2 * i + 1] = cos[1];
}
"""


def test_sincos_writes_sine_and_cosine_through_its_pointer_arguments(cuda: Cuda) -> None:
    pos = torch.arange(4, dtype=torch.float32)
    freq = torch.tensor([1.0, 0.25])
    bufs = {"pos": pos, "freq": freq, "out_sin": ("f32", 9), "out_cos": ("f32", 9)}
    r = cuda.run(ROPE, "rope_cos_sin", block=4, buffers={**bufs, "fast_sin": ("f32", 4), "fast_cos": ("f32", 4)})
    assert r.ok, r.diagnoses
    angles = (pos[:, None].double() * freq[None, :].double()).flatten()
    assert torch.allclose(r.buffers["out_sin"][:8].double(), torch.sin(angles), atol=1e-7)
    assert torch.allclose(r.buffers["out_cos"][:8].double(), torch.cos(angles), atol=1e-7)
    assert torch.allclose(r.buffers["fast_sin"].double(), torch.sin(pos.double()), atol=1e-7)
    assert torch.allclose(r.buffers["fast_cos"].double(), torch.cos(pos.double()), atol=1e-7)
    assert r.buffers["out_sin"][8].item() == pytest.approx(math.sin(2.0))  # thread 2 through a pointer
    assert r.buffers["out_cos"][8].item() == pytest.approx(math.cos(2.0))
    text = print_module(cuda.lower(ROPE))
    assert "sin.approx(" in text and "cos.approx(" in text and "sin(" in text


def test_sincos_into_a_pointer_to_another_type_is_a_located_error(cuda: Cuda) -> None:
    src = "__global__ void k(double* a) {\n    float c;\n    sincosf(1.0f, a, &c);\n}\n"
    err = cuda.error(src)
    assert err.startswith("3:19: error:") and "sincosf needs a pointer to f32" in err


BF16_PAIR_TANH = """
#include <cuda_bf16.h>
#include <cstdint>
__global__ void k(const __nv_bfloat162* x, __nv_bfloat162* t, __nv_bfloat162* e) {
  int i = threadIdx.x;
  __nv_bfloat162 v = x[i];
  uint32_t x_u32 = *(uint32_t*)&v;
  uint32_t t_u32, e_u32;
  asm volatile("tanh.approx.bf16x2 %0, %1;" : "=r"(t_u32) : "r"(x_u32));
  asm volatile("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(e_u32) : "r"(x_u32));
  t[i] = *(__nv_bfloat162*)&t_u32;
  e[i] = *(__nv_bfloat162*)&e_u32;
}
"""


def test_approx_bf16x2_instructions_compute_lane_by_lane(cuda: Cuda) -> None:
    x = (torch.rand(64) * 6 - 3).to(torch.bfloat16)
    r = cuda.run(BF16_PAIR_TANH, "k", block=32, buffers={"x": x, "t": ("bf16", 64), "e": ("bf16", 64)})
    assert r.ok, r.diagnoses
    xd = x.double()
    assert torch.equal(r.buffers["t"].flatten(), torch.tanh(xd).to(torch.bfloat16))
    assert torch.equal(r.buffers["e"].flatten(), (2**xd).to(torch.bfloat16))


def test_glibc_short_unsigned_typedefs(tmp_path: Path) -> None:
    # flashinfer's math.cuh declares `ushort y_u16;` (sys/types.h): u16, as uint is u32
    src = tmp_path / "k.cu"
    src.write_text(
        "__global__ void k(unsigned short* a, unsigned long long* b) {\n"
        "  ushort s = a[0]; uint u = s; ulong l = u; a[1] = s; b[0] = l;\n}\n"
    )
    from larkc.frontends import parse_source

    text = str(parse_source(src))
    assert "u16" in text and "u64" in text
