"""Struct members that are arrays of a vector type (flashinfer's ``vec_t<half, N>`` holds ``int4 data[N / 8]``):
the struct is a packed vector of the elements' scalar lanes; ``data[i]`` is the vector of element ``i``'s
lanes (read, assigned, ``data[i].x`` one lane), and ``operator[]`` written as ``return ((half*)data)[i];`` is
element ``i`` of the struct's bits viewed as ``half``."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import F16, F32
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

# the shape of flashinfer's vec_t specializations and of a norm kernel using them
VEC = """
#include <cuda_fp16.h>
template <typename float_t, size_t vec_size>
struct vec_t {};
template <size_t vec_size>
struct vec_t<half, vec_size> {
  static_assert(vec_size % 8 == 0, "Invalid vector size");
  int4 data[vec_size / 8];
  __device__ half& operator[](size_t i) { return ((half*)data)[i]; }
  __device__ const half& operator[](size_t i) const { return ((const half*)data)[i]; }
  __device__ void load(const half* ptr) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 8; ++i) {
      data[i] = ((int4*)ptr)[i];
    }
  }
  __device__ void fill(half val) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 8; ++i) {
      *(half2*)(&(data[i].x)) = make_half2(val, val);
      *(half2*)(&(data[i].y)) = make_half2(val, val);
      *(half2*)(&(data[i].z)) = make_half2(val, val);
      *(half2*)(&(data[i].w)) = make_half2(val, val);
    }
  }
  __device__ void store(half* ptr) const {
#pragma unroll
    for (size_t i = 0; i < vec_size / 8; ++i) {
      ((int4*)ptr)[i] = data[i];
    }
  }
};
template <size_t vec_size>
struct vec_t<float, vec_size> {
  float4 data[vec_size / 4];
  __device__ float& operator[](size_t i) { return ((float*)(&data))[i]; }
  __device__ void fill(float val) {
    for (size_t i = 0; i < vec_size / 4; ++i) {
      data[i] = make_float4(val, val, val, val);
    }
  }
  __device__ void bump_first_lanes() {
    for (size_t i = 0; i < vec_size / 4; ++i) {
      data[i].x += 1.f;
    }
  }
  __device__ void store(float* p) const {
    for (size_t i = 0; i < vec_size / 4; ++i) {
      ((float4*)p)[i] = data[i];
    }
  }
};
__global__ void scale_rows(const half* in, half* out, float* acc_out, float s) {
  vec_t<half, 16> v;
  vec_t<float, 16> acc;
  acc.fill(0.5f);
  acc.bump_first_lanes();
  v.load(in + blockIdx.x * 16);
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    acc[j] += float(v[j]) * s;
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    v[j] = __float2half(acc[j]);
  }
  v.store(out + blockIdx.x * 16);
  acc.store(acc_out + blockIdx.x * 16);
  acc.data[1].w = (float)(v.data[0].y & 0xFFFF);  // the bits of v[2]
  acc_out[blockIdx.x * 16 + 7] = acc.data[1].w;
  vec_t<half, 16> ones;
  ones.fill(0.75f);
  *(half2*)(&(ones.data[1].z)) = __floats2half2_rn(2.f, 4.f);
  half2 h = *(half2*)(&(ones.data[1].y));
  half2 g = *(half2*)(&(ones.data[1].z));
  acc_out[blockIdx.x * 16 + 3] = __half2float(h.x) + __half2float(h.y) + __half2float(g.x) * __half2float(g.y);
}
"""


def test_elements_of_vector_array_members_and_a_reinterpreting_subscript_operator() -> None:
    module = parse_cuda(text=VEC, file="vec.cu")
    verify_module(module)
    names = {f.name for f in module.functions}
    assert {"vec_t<half, 16>::store", "vec_t<float, 16>::store"} <= names  # one function per instance
    x = torch.randn(3, 16).to(torch.float16)
    args: dict[str, KernelArg] = {
        "in": GlobalBuffer("in", x.flatten(), F16),
        "out": GlobalBuffer("out", torch.zeros(48, dtype=torch.float16), F16),
        "acc_out": GlobalBuffer("acc_out", torch.zeros(48), F32),
        "s": 2.0,
    }
    result = simulate(module, "scale_rows", LaunchConfig((3, 1, 1), (1, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    start = torch.full((3, 16), 0.5)
    start[:, ::4] += 1.0  # data[i].x += 1 on every float4 element
    acc = start + x.float() * 2.0
    assert torch.equal(result.buffers["out"].reshape(3, 16), acc.to(torch.float16))
    acc[:, 7] = acc[:, 2].to(torch.float16).view(torch.int16).to(torch.int32).bitwise_and(0xFFFF).float()
    acc[:, 3] = 0.75 + 0.75 + 2.0 * 4.0  # fill wrote every half2; the last store one of them
    assert torch.equal(result.buffers["acc_out"].reshape(3, 16), acc)


@pytest.mark.parametrize(
    ("struct", "use", "message"),
    [
        # the array does not fill the struct: a dynamic index could reach the other member
        ("struct S { int4 data[2]; int tail; };", "S s; s.data[0] = make_int4(1, 2, 3, 4);", "unsupported array of"),
        # a lane reinterpreted as a vector of another size
        (
            "struct S { int2 data[2]; };",
            "S s; *(float2*)(&(s.data[1].x)) = make_float2(1.f, 2.f);",
            "unsupported reinterpretation",
        ),
        # an element read as a lane that int2 does not have
        ("struct S { int2 data[2]; };", "S s; s.data[1].z = 1;", "i32x2 has no member z"),
        # operator[] that is neither a lane nor a view of the whole struct's bits
        (
            "struct S { int4 data[1]; __device__ int& operator[](int i) { return ((int*)data)[i + 1]; } };",
            "S s; s[0] = 1;",
            "unsupported operator[] other than",
        ),
    ],
)
def test_accesses_larkc_does_not_model_are_located_errors(struct: str, use: str, message: str) -> None:
    src = f"{struct}\n__global__ void k() {{\n    {use}\n}}\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="bad.cu")
    first = str(info.value).splitlines()[0]
    assert first.startswith("bad.cu:3:"), first
    assert message in first, first
