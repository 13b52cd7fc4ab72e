"""Partial specializations of struct templates (C++ [temp.spec.partial]), on code shaped like flashinfer's
``vec_t`` (include/flashinfer/vec_dtypes.cuh): a member-less primary template, explicit specializations for
small sizes, partial specializations ``vec_t<half, vec_size>`` / ``vec_t<float, vec_size>`` for the rest, and
members defined outside the struct. Each test tells the definitions apart by what the kernel computes."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.nodes import Module
from larkc.ir.types import F32, I32, ScalarType
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimResult, simulate


def lower(src: str) -> Module:
    """The module of ``src`` (as file ``partial.cu``), checked by the IR verifier."""
    module = parse_cuda(text=src, file="partial.cu")
    verify_module(module)
    return module


def error(src: str) -> str:
    """The located error ``src`` is rejected with."""
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="partial.cu")
    return str(info.value)


def run(src: str, kernel: str, buffers: dict[str, tuple[torch.Tensor, ScalarType]], *, block: int = 4) -> SimResult:
    """Simulate one block of ``kernel``; each buffer is (tensor, element type); no diagnosis is expected."""
    args: dict[str, KernelArg] = {n: GlobalBuffer(n, t, et) for n, (t, et) in buffers.items()}
    result = simulate(lower(src), kernel, LaunchConfig((1, 1, 1), (block, 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    return result


# flashinfer's layout: the primary template only declares the interface (it has no data members, so laying
# it out in place of a specialization would be an error, never a silent wrong layout); `vec_t<float, 1>` is an
# explicit specialization, `vec_t<float, N>` and `vec_t<half, N>` partial ones, with members in and out of class.
VEC_T = """
#include <cuda_fp16.h>
template <typename float_t, size_t vec_size>
struct vec_t {
    __device__ void fill(float_t val);
    __device__ float sum() const;
};

template <>
struct vec_t<float, 1> {
    float data;
    __device__ void fill(float val);
    __device__ float sum() const { return data + 1000.0f; }
};
__device__ void vec_t<float, 1>::fill(float val) { data = val; }

template <size_t vec_size>
struct vec_t<float, vec_size> {
    float data[vec_size];
    __device__ void fill(float val);
    __device__ float sum() const {
        float s = 0.0f;
#pragma unroll
        for (size_t i = 0; i < vec_size; ++i) s += data[i];
        return s;
    }
};
template <size_t N>
__device__ void vec_t<float, N>::fill(float val) {
#pragma unroll
    for (size_t i = 0; i < N; ++i) data[i] = val * (i + 1);
}

template <size_t vec_size>
struct vec_t<half, vec_size> {
    half data[vec_size];
    __device__ void fill(half val) {
#pragma unroll
        for (size_t i = 0; i < vec_size; ++i) data[i] = val;
    }
    __device__ float sum() const;
};
template <size_t vec_size>
__device__ float vec_t<half, vec_size>::sum() const {
    float s = 0.0f;
    for (size_t i = 0; i < vec_size; ++i) s += __half2float(data[i]);
    return -s;
}

__global__ void sums(float* out, const float* x) {
    float v = x[threadIdx.x];
    vec_t<float, 1> one;
    one.fill(v);
    vec_t<float, 4> four;
    four.fill(v);
    vec_t<half, 2> two;
    two.fill(__float2half(v));
    out[3 * threadIdx.x] = one.sum();
    out[3 * threadIdx.x + 1] = four.sum();
    out[3 * threadIdx.x + 2] = two.sum();
}
"""


def test_flashinfer_vec_t_takes_the_explicit_then_the_partial_specialization() -> None:
    x = torch.tensor([1.0, 2.0, 0.5, -3.0])
    r = run(VEC_T, "sums", {"out": (torch.zeros(12), F32), "x": (x, F32)})
    got = r.buffers["out"].reshape(4, 3)
    assert got[:, 0].tolist() == (x + 1000).tolist()  # the explicit specialization vec_t<float, 1>
    assert got[:, 1].tolist() == (10 * x).tolist()  # vec_t<float, N>: lanes v, 2v, 3v, 4v; fill out of class
    assert got[:, 2].tolist() == (-2 * x).tolist()  # vec_t<half, N>: sum out of class, negated


def test_the_partial_specialization_s_layout_is_the_one_laid_out() -> None:
    text = str(lower(VEC_T))
    assert "f16" in text  # vec_t<half, 2> is laid out from `half data[vec_size]`


ORDERING = """
template <typename T, typename U, int N>
struct Pick { U tag[N]; __device__ float which() const { return 0.0f; } };
template <typename T, int N>
struct Pick<T, float, N> { float tag[1]; __device__ float which() const { return 1.0f; } };
template <int N>
struct Pick<float, float, N> { float tag[2]; __device__ float which() const { return 2.0f + N; } };
template <typename T>
struct Pick<T, T, 7> { float tag[3]; __device__ float which() const { return 3.0f; } };
__global__ void pick(float* out) {
    Pick<int, int, 1> a;       // only the primary template
    Pick<int, float, 1> b;     // Pick<T, float, N>
    Pick<float, float, 5> c;   // both partials match; Pick<float, float, N> is more specialized
    Pick<int, int, 7> d;       // Pick<T, T, 7> (the same T twice)
    Pick<int, double, 7> e;    // T = int and U = double: not Pick<T, T, 7>; the primary
    out[0] = a.which();
    out[1] = b.which();
    out[2] = c.which();
    out[3] = d.which();
    out[4] = e.which();
}
"""


def test_the_more_specialized_partial_specialization_is_chosen() -> None:
    r = run(ORDERING, "pick", {"out": (torch.zeros(5), F32)}, block=1)
    assert r.buffers["out"].tolist() == [0.0, 1.0, 7.0, 3.0, 0.0]


def test_two_partial_specializations_neither_more_specialized_is_an_ambiguity_error() -> None:
    src = ORDERING.replace("Pick<int, double, 7> e;", "Pick<float, float, 7> e;")
    message = error(src)
    # Pick<float, float, N> and Pick<T, T, 7> both match Pick<float, float, 7>; neither is more specialized
    assert message.startswith("partial.cu:15:5: error: ambiguous partial specializations of Pick<float, float, 7>")
    assert message.splitlines()[0].endswith(": Pick<T, float, N>, Pick<float, float, N>, Pick<T, T, 7>")


def test_a_pattern_larkc_cannot_match_is_a_located_error_not_the_primary_template() -> None:
    src = """
template <typename T, int N> struct Box { float v[N]; };
template <typename T, int N> struct Box<T*, N> { float v[N]; float extra[1]; };
__global__ void k(float* out) {
    Box<float, 2> b;
    b.v[0] = 1.0f;
    out[0] = b.v[0];
}
"""
    message = error(src)
    assert message.startswith("partial.cu:5:5: error: unsupported partial specialization argument pattern")
    assert message.splitlines()[0].endswith(": Box<T*, N>")


def test_a_partial_specialization_with_a_differing_fixed_argument_leaves_the_primary_template() -> None:
    src = """
template <typename T, int N> struct Box { T v[N]; };
template <int N> struct Box<double, N> { float v[1]; };
template <typename T> struct Box<T, 3> { float v[1]; };
__global__ void k(float* out, const float* x) {
    Box<float, 2> b;
    b.v[0] = x[0];
    b.v[1] = x[1];
    out[0] = b.v[0] + b.v[1];
}
"""
    r = run(src, "k", {"out": (torch.zeros(1), F32), "x": (torch.tensor([1.5, 2.0]), F32)}, block=1)
    assert r.buffers["out"].tolist() == [3.5]


def test_out_of_class_members_go_to_the_definition_their_scope_spells() -> None:
    # the primary template's member and the partial specialization's have one name; each instance takes its own
    src = """
template <typename T, int N> struct Acc { T v[N]; __device__ T get() const; };
template <typename T, int N> __device__ T Acc<T, N>::get() const { return v[0]; }
template <int M> struct Acc<float, M> { float v[M]; __device__ float get() const; };
template <int K> __device__ float Acc<float, K>::get() const { return v[K - 1] * 10.0f; }
__global__ void k(float* out, const int* x) {
    Acc<int, 2> a;
    a.v[0] = x[0];
    a.v[1] = x[1];
    Acc<float, 2> b;
    b.v[0] = 1.0f;
    b.v[1] = 2.0f;
    out[0] = (float)a.get() + b.get();
}
"""
    r = run(src, "k", {"out": (torch.zeros(1), F32), "x": (torch.tensor([3, 4], dtype=torch.int32), I32)}, block=1)
    assert r.buffers["out"].tolist() == [23.0]


def test_half_instance_is_never_the_member_less_primary() -> None:
    # without the partial specialization, vec_t<half, 2> is the primary template: member-less, an error
    src = (
        VEC_T.split("template <size_t vec_size>\nstruct vec_t<half", maxsplit=1)[0]
        + """
__global__ void h(float* out) {
    vec_t<half, 2> two;
    two.fill(__float2half(1.0f));
}
"""
    )
    assert "unsupported empty struct: vec_t" in error(src)


def test_two_instances_laid_out_alike_with_different_template_arguments_are_an_error() -> None:
    # larkc finds an object's members by its layout: Op<1> and Op<2> (one layout) would share `apply`
    src = """
template <int MODE> struct Op {
    float v[1];
    __device__ float apply() const { if constexpr (MODE == 1) return v[0]; else return -v[0]; }
};
__global__ void k(float* out) {
    Op<1> a;
    a.v[0] = 1.0f;
    Op<2> b;
    b.v[0] = 1.0f;
    out[0] = a.apply() + b.apply();
}
"""
    message = error(src)
    assert message.startswith("partial.cu:9:5: error: unsupported two instances of a struct template with one layout")
    assert message.splitlines()[0].endswith(": Op<2>")


def test_static_assert_in_a_partial_specialization_is_checked_for_the_instance() -> None:
    # flashinfer: `static_assert(vec_size % 8 == 0, "Invalid vector size");` in vec_t<half, vec_size>
    src = """
template <typename T, int N> struct Lanes { T v[N]; };
template <int N> struct Lanes<float, N> {
    static_assert(N % 2 == 0, "Invalid vector size");
    float v[N];
};
__global__ void k(float* out) {
    Lanes<float, SIZE> a;
    a.v[0] = 1.0f;
    out[0] = a.v[0];
}
"""
    run(src.replace("SIZE", "4"), "k", {"out": (torch.zeros(1), F32)}, block=1)
    message = error(src.replace("SIZE", "3"))
    assert message.startswith("partial.cu:4:5: error: static assertion failed: N % 2 == 0")


def test_default_arguments_of_the_primary_template_take_part_in_the_choice() -> None:
    # Acc<float> is Acc<float, 2>: the explicit specialization for <float, 2>, with its out-of-class member
    src = """
namespace fi {
template <typename T, int N = 2> struct Acc { T v[N]; __device__ T get() const { return v[0]; } };
template <> struct Acc<float, 2> { float v[2]; __device__ float get() const; };
__device__ float Acc<float, 2>::get() const { return v[1] * 10.0f; }
template <int N> struct Acc<int, N> { int v[N]; __device__ int get() const { return -v[0]; } };
}
__global__ void k(float* out) {
    fi::Acc<float> a;
    a.v[0] = 1.0f;
    a.v[1] = 2.0f;
    fi::Acc<int> b;
    b.v[0] = 3;
    b.v[1] = 4;
    out[0] = a.get() + (float)b.get();
}
"""
    r = run(src, "k", {"out": (torch.zeros(1), F32)}, block=1)
    assert r.buffers["out"].tolist() == [17.0]


def test_an_explicit_specialization_written_with_the_defaults_left_out_is_chosen_for_the_full_arguments() -> None:
    # `template <> struct Acc<float>` is Acc<float, 2>: an instance spelled Acc<float, 2> takes it too
    src = """
template <typename T, int N = 2> struct Acc { T v[N]; __device__ T get() const { return v[0]; } };
template <> struct Acc<float> { float v[2]; __device__ float get() const { return v[1]; } };
__global__ void k(float* out) {
    Acc<float, 2> a;
    a.v[0] = 1.0f;
    a.v[1] = 2.0f;
    out[0] = a.get();
}
"""
    r = run(src, "k", {"out": (torch.zeros(1), F32)}, block=1)
    assert r.buffers["out"].tolist() == [2.0]
