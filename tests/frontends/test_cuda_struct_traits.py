"""Static constants of struct templates without data members (type traits), read in constant contexts through
the definition the instance takes, as flashinfer's norm.cuh reads TensorRT-LLM's ``num_elems<T>::value``: a
primary template only declared, explicit and partial specializations holding ``static constexpr int value``."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import print_module, verify_module
from larkc.ir.types import F16, F32, I32
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

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


# flashinfer's vec2_dtype (vec_dtypes.cuh) and TensorRT-LLM's packed_as: member type aliases of the chosen
# definition, also through an alias template
MEMBER_TYPES = """
#include <cuda_fp16.h>
template <typename T> struct vec2_dtype { using type = T; };
template <> struct vec2_dtype<half> { using type = half2; };
template <typename T> using vec2_dtype_t = typename vec2_dtype<T>::type;
template <typename T, int N> struct packed_as { typedef T type; };
template <int N> struct packed_as<float, N> { typedef float4 type; };
template <> struct packed_as<float, 2> { typedef float2 type; };
__global__ void pairs(const half* x, float* out) {
    vec2_dtype_t<half> h = reinterpret_cast<const vec2_dtype_t<half>*>(x)[threadIdx.x];
    typename packed_as<float, 2>::type f2 = __half22float2(h);
    packed_as<float, 4>::type f4 = make_float4(f2.x, f2.y, 0.f, 0.f);
    vec2_dtype<float>::type s = f4.x + f4.y;
    out[threadIdx.x] = s;
}
"""


def test_member_type_aliases_come_from_the_definition_the_instance_takes() -> None:
    module = parse_cuda(text=MEMBER_TYPES, file="types.cu")
    verify_module(module)
    text = print_module(module)
    assert "let %h: f16x2" in text and "let %f2: f32x2" in text and "let %f4: f32x4" in text and "let %s: f32" in text
    x = torch.arange(8, dtype=torch.float16)
    args = {"x": GlobalBuffer("x", x, F16), "out": GlobalBuffer("out", torch.zeros(4), F32)}
    result = simulate(module, "pairs", LaunchConfig((1, 1, 1), (4, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["out"].tolist() == [1.0, 5.0, 9.0, 13.0]


def test_a_member_the_definition_does_not_declare_is_a_located_error() -> None:
    src = MEMBER_TYPES.replace("vec2_dtype<float>::type s", "vec2_dtype<float>::other s")
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="types.cu")
    assert str(info.value).splitlines()[0].startswith("types.cu:13:5: error: unsupported")


# norm.cuh's generalLayerNorm: `constexpr auto num_elems_T = num_elems<T>::value;`, then an ordinary division
TRAIT_VALUE = """
template <typename T> struct num_elems;
template <> struct num_elems<float> { static constexpr int value = 1; };
template <> struct num_elems<float2> { static constexpr int value = 2; };
template <typename T>
__global__ void per_pack(int* out, int hidden_dim) {
    constexpr auto num_elems_T = num_elems<T>::value;
    int const n_elems = hidden_dim / num_elems_T;
    out[threadIdx.x] = n_elems + num_elems<T>::value * 1000;
}
"""


@pytest.mark.parametrize(
    ("targ", "ir_name", "per"), [("float2", "per_pack<f32x2>", 2), ("float", "per_pack<float>", 1)]
)
def test_a_trait_constant_is_a_value_in_ordinary_expressions(targ: str, ir_name: str, per: int) -> None:
    module = parse_cuda(text=TRAIT_VALUE, file="traits.cu", kernel=f"per_pack<{targ}>")
    verify_module(module)
    out = GlobalBuffer("out", torch.zeros(1, dtype=torch.int32), I32)
    args: dict[str, KernelArg] = {"out": out, "hidden_dim": 96}
    result = simulate(module, ir_name, LaunchConfig((1, 1, 1), (1, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["out"].tolist() == [96 // per + per * 1000]


def test_a_trait_value_no_specialization_defines_is_a_located_error() -> None:
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=TRAIT_VALUE, file="traits.cu", kernel="per_pack<int>")
    first = str(info.value).splitlines()[0]
    assert first == (
        "traits.cu:7:34: error: num_elems<int> is declared but never defined (no specialization for these arguments)"
    )


# norm.cuh's generalLayerNorm: the local constant is a template argument of a member type alias
LOCAL_TEMPLATE_ARGUMENT = """
#include <cuda_fp16.h>
template <typename T> struct num_elems;
template <> struct num_elems<float> { static constexpr int value = 1; };
template <> struct num_elems<half2> { static constexpr int value = 2; };
template <typename T, int N> struct packed_as { typedef T type; };
template <> struct packed_as<float, 2> { typedef float2 type; };
template <typename T>
__global__ void widen(float* out) {
    constexpr auto num_elems_T = num_elems<T>::value;
    using float_packed_t = typename packed_as<float, num_elems_T>::type;
    out[threadIdx.x] = sizeof(float_packed_t) * 10 + num_elems_T;
}
"""


@pytest.mark.parametrize(
    ("targ", "ir_name", "want"), [("half2", "widen<f16x2>", 82.0), ("float", "widen<float>", 41.0)]
)
def test_a_local_constant_is_a_template_argument(targ: str, ir_name: str, want: float) -> None:
    module = parse_cuda(text=LOCAL_TEMPLATE_ARGUMENT, file="traits.cu", kernel=f"widen<{targ}>")
    verify_module(module)
    out = GlobalBuffer("out", torch.zeros(1), F32)
    result = simulate(module, ir_name, LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": out})
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["out"].tolist() == [want]
