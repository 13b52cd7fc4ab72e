"""Static constants of struct templates without data members (type traits), read in constant contexts through
the definition the instance takes, as flashinfer's norm.cuh reads TensorRT-LLM's ``num_elems<T>::value``: a
primary template only declared, explicit and partial specializations holding ``static constexpr int value``."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import F32
from larkc.semantics import GlobalBuffer, LaunchConfig, simulate

TRAITS = """
#include <cuda_fp16.h>
template <typename T> struct num_elems;
template <> struct num_elems<float> { static constexpr int value = 1; };
template <> struct num_elems<float2> { static constexpr int value = 2; };
template <typename T, int N> struct bytes_of { static constexpr int value = N * sizeof(T); };
template <int N> struct bytes_of<half, N> { static constexpr int value = N * 100; };
template <int K> __device__ float scaled(float x) { return x * K; }
template <typename T>
__global__ void k(float* out) {
    float buf[num_elems<T>::value];                       // an array size
    buf[0] = 1.0f;
    if constexpr (num_elems<T>::value == 2) {             // an if constexpr condition
        buf[1] = 2.0f;
        out[0] = scaled<num_elems<T>::value>(buf[0] + buf[1]) + scaled<bytes_of<half, 3>::value>(1.0f);
    } else {
        out[0] = scaled<bytes_of<float, 3>::value>(buf[0]);  // template arguments
    }
}
"""


@pytest.mark.parametrize(
    ("targ", "ir_name", "want"), [("float2", "k<f32x2>", 2 * 3.0 + 300.0), ("float", "k<float>", 12.0)]
)
def test_trait_constants_come_from_the_specialization_the_instance_takes(targ: str, ir_name: str, want: float) -> None:
    module = parse_cuda(text=TRAITS, file="traits.cu", kernel=f"k<{targ}>")
    verify_module(module)
    out = GlobalBuffer("out", torch.zeros(1), F32)
    result = simulate(module, ir_name, LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": out})
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["out"].tolist() == [want]


def test_an_instance_of_a_declared_only_primary_template_is_a_located_error() -> None:
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=TRAITS, file="traits.cu", kernel="k<int>")
    assert str(info.value).splitlines()[0].startswith("traits.cu:11:15: error: ")


def test_laying_out_a_declared_only_primary_template_says_it_is_never_defined() -> None:
    src = TRAITS + "__global__ void g(float* out) { num_elems<int> n; out[0] = 1.0f; }\n"
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="traits.cu", kernel="g")
    first = str(info.value).splitlines()[0]
    assert first == (
        "traits.cu:20:33: error: num_elems<int> is declared but never defined (no specialization for these arguments)"
    )
