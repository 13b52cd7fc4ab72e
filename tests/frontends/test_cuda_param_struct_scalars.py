"""A kernel's by-value parameter struct of scalars of different types (flashinfer's
``RopeQuantizeAppendPagedKVCacheParams``: ``uint32_t`` counts, ``size_t`` strides, ``float`` scales): one IR
parameter per member, named ``params.member``, as for parameter structs with pointers."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import F32, U32, U64
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

PARAMS = """
#include <cstdint>
struct RopeParams {
  uint32_t nnz;
  size_t stride_n;
  float quant_scale;
};
__global__ void scale_rows(float* out, const float* in, const RopeParams params) {
  const uint32_t nnz = params.nnz;
  for (uint32_t i = threadIdx.x; i < nnz; i += blockDim.x) {
    out[i] = in[i * params.stride_n] * params.quant_scale;
  }
}
"""


def test_parameter_struct_of_scalars_of_different_types_is_one_parameter_per_member() -> None:
    module = parse_cuda(text=PARAMS, file="params.cu")
    verify_module(module)
    kernel = next(f for f in module.functions if f.name == "scale_rows")
    assert [(p.name, p.type) for p in kernel.params][2:] == [
        ("params.nnz", U32),
        ("params.stride_n", U64),
        ("params.quant_scale", F32),
    ]
    x = torch.arange(12, dtype=torch.float32)
    args: dict[str, KernelArg] = {
        "out": GlobalBuffer("out", torch.zeros(6), F32),
        "in": GlobalBuffer("in", x, F32),
        "params.nnz": 5,
        "params.stride_n": 2,
        "params.quant_scale": 0.5,
    }
    result = simulate(module, "scale_rows", LaunchConfig((1, 1, 1), (4, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["out"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 0.0]


def test_such_a_struct_as_a_device_function_parameter_is_a_located_error() -> None:
    src = PARAMS + "__device__ float first(RopeParams p) { return p.quant_scale; }\n"
    src += "__global__ void k(float* out, RopeParams p) { out[0] = first(p); }\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="params.cu", kernel="k")
    first = str(info.value).splitlines()[0]
    assert first == "params.cu:15:62: error: unsupported use of a parameter struct other than reading its members: p"


def test_a_local_object_of_scalars_of_different_types_with_a_constructor_and_member_functions() -> None:
    src = """
struct Acc {
    float s; int n;
    __device__ Acc(float a, int c) : s(a), n(c) {}
    __device__ float mean() const { return s / n; }
};
__global__ void k(float* x) { Acc a(x[0], 4); x[1] = a.mean(); }
"""
    module = parse_cuda(text=src, file="acc.cu")
    verify_module(module)
    x = GlobalBuffer("x", torch.tensor([10.0, 0.0]), F32)
    result = simulate(module, "k", LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"x": x})
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["x"].tolist() == [10.0, 2.5]
