"""CUDA constructs the kernel audit (docs/cuda-audit.md) found missing, each on a snippet shaped like the
real kernel it came from, lowered, verified and simulated against values computed in torch."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda

from larkc.errors import LarkcError
from larkc.frontends import parse_source
from larkc.ir import verify_module
from larkc.ir.nodes import Module
from larkc.ir.types import BF16, F32
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate
from larkc.tasks import parse_dtype


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- cg::reduce with operator objects built by `{}` (llm.c attention_backward.cu kernel 7) ------------

CG_REDUCE_BRACES = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

constexpr int BlockSize = 64;

__global__ void softmax_backward_row(float* dpreatt, const float* datt, const float* att, int T, float scale) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float block_acc[32];
    int t = blockIdx.x;
    const float* att_bth = att + t * T;
    const float* datt_bth = datt + t * T;
    if (warp.meta_group_rank() == 0) {
        block_acc[warp.thread_rank()] = 0;
    }
    block.sync();
    float local_sum = 0;
    for (int t2 = block.thread_rank(); t2 <= t; t2 += BlockSize) {
        local_sum += att_bth[t2] * datt_bth[t2];
    }
    float warp_sum = cg::reduce(warp, local_sum, cg::plus<float>{});
    if (warp.thread_rank() == 0) block_acc[warp.meta_group_rank()] = warp_sum;
    block.sync();
    local_sum = cg::reduce(warp, block_acc[warp.thread_rank()], cg::plus<float>{});
    float biggest = cg::reduce(warp, att_bth[warp.thread_rank()], cg::greater<float>{});
    for (int t3 = block.thread_rank(); t3 <= t; t3 += BlockSize) {
        dpreatt[t * T + t3] = scale * att_bth[t3] * (datt_bth[t3] - local_sum) + 0.f * biggest;
    }
    if (block.thread_rank() == 0) dpreatt[T * T + t] = biggest;
}
"""


def test_cg_reduce_with_brace_constructed_operators(cuda: Cuda) -> None:
    t_len = 40
    att = torch.rand(t_len, t_len)
    datt = torch.randn(t_len, t_len)
    r = cuda.run(
        CG_REDUCE_BRACES,
        "softmax_backward_row",
        block=64,
        grid=t_len,
        buffers={"dpreatt": ("f32", t_len * t_len + t_len), "datt": datt.flatten(), "att": att.flatten()},
        scalars={"T": t_len, "scale": 0.5},
    )
    assert r.ok, r.diagnoses
    out = r.buffers["dpreatt"]
    for t in range(t_len):
        # the simulator's butterfly adds in its own order: compare with a tolerance, the maxima exactly
        s = float((att[t, : t + 1].double() * datt[t, : t + 1].double()).sum())
        want = 0.5 * att[t, : t + 1].double() * (datt[t, : t + 1].double() - s)
        assert torch.allclose(out[t * t_len : t * t_len + t + 1].double(), want, atol=1e-5)
        assert out[t_len * t_len + t] == att[t, :32].max()


def test_a_reduce_operator_with_arguments_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(float* a) {\n"
        "    auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "    a[0] = cg::reduce(w, a[1], cg::plus<float>{1});\n"
        "}\n"
    )
    assert cuda.error(src) == (
        "4:32: error: unsupported reduce operator (use cg::plus, cg::greater, cg::less, cg::bit_*): cg::plus<float>{1}"
    )


# -- using namespace cooperative_groups, then unqualified names ---------------------------------------

CG_UNQUALIFIED = """
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int sum_tile(thread_block_tile<16> g, int v) {
    for (int i = g.size() / 2; i > 0; i /= 2) v += g.shfl_down(v, i);
    return v;
}

__global__ void cgkernel(int* out, const int* in) {
    thread_block block = this_thread_block();
    auto tile = tiled_partition<16>(block);
    int v = in[block.thread_rank()];
    int s = sum_tile(tile, v);
    int m = reduce(tile, v, greater<int>());
    sync(block);
    if (tile.thread_rank() == 0) {
        out[2 * tile.meta_group_rank()] = s;
        out[2 * tile.meta_group_rank() + 1] = m;
    }
}
"""


def test_unqualified_cooperative_groups_names_after_using_namespace(cuda: Cuda) -> None:
    x = torch.randint(-100, 100, (64,), dtype=torch.int32)
    r = cuda.run(CG_UNQUALIFIED, "cgkernel", block=64, buffers={"out": ("i32", 8), "in": x})
    assert r.ok, r.diagnoses
    tiles = x.reshape(4, 16)
    assert r.buffers["out"].reshape(4, 2).tolist() == [[int(t.sum()), int(t.max())] for t in tiles]


def test_a_user_function_named_like_a_cooperative_groups_function_hides_it(cuda: Cuda) -> None:
    src = """using namespace cooperative_groups;
    __device__ float reduce(float a, float b, float c) { return a + b + c; }
    __global__ void k(float* o) { o[0] = reduce(o[1], o[2], o[3]); }
    """
    r = cuda.run(src, "k", block=1, buffers={"o": torch.tensor([0.0, 1.0, 2.0, 4.0])})
    assert r.ok and r.buffers["o"][0] == 7.0


def test_unqualified_names_need_the_using_directive(cuda: Cuda) -> None:
    src = "__global__ void k(float* o) {\n    auto b = this_thread_block();\n    o[0] = 1.f;\n}\n"
    assert cuda.error(src).startswith("2:14: error: unsupported call of unknown function: this_thread_block()")


# -- reference parameters bound to array elements (the CUDA samples' bitonic sorts) --------------------

BITONIC = """
#define SHARED_SIZE_LIMIT 64U
typedef unsigned int uint;

inline __device__ void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint arrowDir) {
    uint t;
    if ((keyA > keyB) == arrowDir) {
        t = keyA;
        keyA = keyB;
        keyB = t;
        t = valA;
        valA = valB;
        valB = t;
    }
}

__global__ void bitonicSortShared(uint *d_DstKey, uint *d_DstVal, uint *d_SrcKey, uint *d_SrcVal,
                                  uint arrayLength, uint dir) {
    __shared__ uint s_key[SHARED_SIZE_LIMIT];
    __shared__ uint s_val[SHARED_SIZE_LIMIT];
    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x + 0] = d_SrcKey[0];
    s_val[threadIdx.x + 0] = d_SrcVal[0];
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
    s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];
    for (uint size = 2; size < arrayLength; size <<= 1) {
        uint ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);
        }
    }
    for (uint stride = arrayLength / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
    }
    __syncthreads();
    d_DstKey[0] = s_key[threadIdx.x + 0];
    d_DstVal[0] = s_val[threadIdx.x + 0];
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
    d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}
"""


@pytest.mark.parametrize("direction", [0, 1])
def test_reference_arguments_that_are_shared_array_elements_sort(cuda: Cuda, direction: int) -> None:
    keys = torch.randperm(128, dtype=torch.int64).to(torch.uint32)
    vals = torch.arange(128, dtype=torch.int64).to(torch.uint32)
    r = cuda.run(
        BITONIC,
        "bitonicSortShared",
        block=32,
        grid=2,
        buffers={"d_DstKey": ("u32", 128), "d_DstVal": ("u32", 128), "d_SrcKey": keys, "d_SrcVal": vals},
        scalars={"arrayLength": 64, "dir": direction},
    )
    assert r.ok, r.diagnoses
    for b in range(2):
        k = keys[64 * b : 64 * (b + 1)].to(torch.int64)
        want, order = torch.sort(k, descending=direction == 0)
        got_k = r.buffers["d_DstKey"][64 * b : 64 * (b + 1)].to(torch.int64)
        got_v = r.buffers["d_DstVal"][64 * b : 64 * (b + 1)].to(torch.int64)
        assert torch.equal(got_k, want)
        assert torch.equal(got_v, order + 64 * b)  # each value travelled with its key


def test_reference_arguments_that_are_lanes_or_global_elements(cuda: Cuda) -> None:
    src = """
    __device__ void minmax(float& lo, float& hi) { float a = fminf(lo, hi); hi = fmaxf(lo, hi); lo = a; }
    __device__ void bump(int& counter, int by) { counter += by; }
    __global__ void k(float2* pairs, int* counts) {
        float2 p = pairs[threadIdx.x];
        minmax(p.x, p.y);
        pairs[threadIdx.x] = p;
        int i = threadIdx.x;
        bump(counts[i], i);  // the index is fixed before the call
    }
    """
    x = torch.randn(8, 2)
    counts = torch.arange(8, dtype=torch.int32) * 10
    r = cuda.run(src, "k", block=8, buffers={"pairs": x.flatten(), "counts": counts.clone()})
    # float2 buffers are bound as f32 elements: two per pair
    assert r.ok, r.diagnoses
    got = r.buffers["pairs"].reshape(8, 2)
    assert torch.equal(got[:, 0], x.min(dim=1).values) and torch.equal(got[:, 1], x.max(dim=1).values)
    assert r.buffers["counts"].tolist() == [11 * i for i in range(8)]


def test_a_reference_to_memory_for_a_function_that_touches_memory_is_rejected(cuda: Cuda) -> None:
    src = (
        "__device__ void add_next(float& a, const float* x) { a += x[1]; }\n"
        "__global__ void k(float* x) {\n"
        "    add_next(x[0], x);\n"
        "}\n"
    )
    assert cuda.error(src) == (
        "3:14: error: unsupported reference argument in memory to a function that accesses memory or synchronises: x[0]"
    )


def test_a_reference_to_const_memory_is_a_type_error(cuda: Cuda) -> None:
    src = "__device__ void inc(float& a) { a += 1.f; }\n__global__ void k(const float* x) {\n    inc(x[0]);\n}\n"
    assert "3:9: error: reference parameter a bound to memory through a pointer to const" in cuda.error(src)


# -- overloads on T& and const T& (llm.c attention_forward.cu's vec_at) -----------------------------

VEC_AT = """
__device__ float& vec_at(float4& vec, int index) {
    return reinterpret_cast<float*>(&vec)[index];
}

__device__ float vec_at(const float4& vec, int index) {
    return reinterpret_cast<const float*>(&vec)[index] + 100.f;  // tells the two apart in the test
}

__global__ void softmax_forward_kernel5(float* out, float inv_temperature, const float* inp, int T) {
    const float4* x_vec = reinterpret_cast<const float4*>(inp + blockIdx.x * T);
    float maxval = -INFINITY;
    float sumval = 0.0f;
    for (int i = threadIdx.x; i < T / 4; i += blockDim.x) {
        float4 v = x_vec[i];
        for (int k = 0; k < 4; ++k) {
            maxval = fmaxf(maxval, vec_at(v, k));
        }
        for (int k = 0; k < 4; ++k) {
            sumval += expf(inv_temperature * (vec_at(v, k) - maxval));
        }
    }
    const float4 c = make_float4(1.f, 2.f, 3.f, 4.f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sumval + vec_at(c, 0) + vec_at(make_float4(0.f, 0.f, 0.f, 0.f), 0);
}
"""


def test_a_non_const_reference_overload_wins_for_an_lvalue(cuda: Cuda) -> None:
    x = torch.randn(2, 8)
    r = cuda.run(
        VEC_AT,
        "softmax_forward_kernel5",
        block=2,
        grid=2,
        buffers={"out": ("f32", 4), "inp": x.flatten()},
        scalars={"inv_temperature": 1.0, "T": 8},
    )
    assert r.ok, r.diagnoses
    got = r.buffers["out"].reshape(2, 2)
    for row in range(2):
        for t in range(2):
            v = x[row, 4 * t : 4 * t + 4]
            # the const overload (+100) reads the const local and the temporary, `float&` reads v
            want = torch.exp(v - v.max()).sum() + 101.0 + 100.0
            assert torch.allclose(got[row, t], want)


def test_overloads_on_a_value_and_a_reference_stay_ambiguous(cuda: Cuda) -> None:
    src = (
        "__device__ float f(float4& v) { return v.x; }\n"
        "__device__ float f(float4 v) { return v.y; }\n"
        "__global__ void k(float* o) {\n"
        "    float4 v = make_float4(o[0], o[1], o[2], o[3]);\n"
        "    o[0] = f(v);\n"
        "}\n"
    )
    assert cuda.error(src) == "5:12: error: ambiguous call of overloaded function f"


# -- exllamav2's q_mlp_softmax.cuh: union constructors from int, default constructors, f[] = {...} ---

SOFTMAX8_TOPK = """
#include <cuda_fp16.h>
union half2_uint32
{
    uint32_t as_uint32;
    half2 as_half2;
    __device__ half2_uint32(uint32_t val) : as_uint32(val) {}
    __device__ half2_uint32(half2 val) : as_half2(val) {}
    __device__ half2_uint32() : as_uint32(0) {}
};

__global__ void softmax8_kernel(half* __restrict__ x, const int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int4* row_ptr = (int4*) (x + row * 8);
    int4 logits_int4 = row_ptr[0];
    half2_uint32 l01(logits_int4.x);
    half2_uint32 l23(logits_int4.y);
    half2_uint32 l45(logits_int4.z);
    half2_uint32 l67(logits_int4.w);
    float f[] =
    {
        __low2float(l01.as_half2), __high2float(l01.as_half2),
        __low2float(l23.as_half2), __high2float(l23.as_half2),
        __low2float(l45.as_half2), __high2float(l45.as_half2),
        __low2float(l67.as_half2), __high2float(l67.as_half2)
    };
    float maxf = -INFINITY;
    for (int i = 0; i < sizeof(f) / sizeof(f[0]); i++) maxf = fmaxf(maxf, f[i]);
    float sum = 0;
    for (int i = 0; i < 8; i++) { f[i] = expf(f[i] - maxf); sum += f[i]; }
    half2_uint32 zero;
    for (int i = 0; i < 8; i += 2) {
        half2_uint32 pair(__floats2half2_rn(f[i] / sum, f[i + 1] / sum));
        ((half2*) (x + row * 8))[i / 2] = __hadd2(pair.as_half2, zero.as_half2);
    }
}
"""


def test_union_constructors_and_arrays_sized_by_their_initializer(cuda: Cuda) -> None:
    x = torch.randn(4, 8).to(torch.float16)
    r = cuda.run(SOFTMAX8_TOPK, "softmax8_kernel", block=8, buffers={"x": x.flatten().clone()}, scalars={"rows": 4})
    assert r.ok, r.diagnoses
    want = torch.softmax(x.float(), dim=1).to(torch.float16)
    assert torch.allclose(r.buffers["x"].reshape(4, 8).float(), want.float(), atol=1e-3)


def test_other_union_default_constructors_are_located_errors(cuda: Cuda) -> None:
    src = (
        "union bits {\n"
        "    unsigned int u;\n"
        "    float f;\n"
        "    __device__ bits() : u(0) { u = 1; }\n"
        "};\n"
        "__global__ void k(float* o) { bits b; o[0] = b.f; }\n"
    )
    assert cuda.error(src).startswith(
        "4:5: error: unsupported union constructor (other than U(T v) : member(v) {} and U() : member(constant) {})"
    )


def test_an_empty_initializer_does_not_size_an_array(cuda: Cuda) -> None:
    src = "__global__ void k(float* o) {\n    float f[] = {};\n    o[0] = 0.f;\n}\n"
    assert cuda.error(src) == "2:11: error: unsupported array sized by its initializer: f[] = {}"


# -- a pointer variable holding the address of a local (exllamav2's cache_q.cuh Hadamard step) ---------

HADAMARD = """
#include <cuda_fp16.h>
__global__ void hadamard_signs(half2* x, float* out) {
    int t = threadIdx.x;
    half2 w2 = x[t];
    for (int i = 1; i < 32; i <<= 1) {
        half2 pw2 = __shfl_xor_sync(0xffffffff, w2, i);
        uint32_t* w2i = reinterpret_cast<uint32_t*>(&w2);
        int32_t sfm = -static_cast<int32_t>(t & i) >> 31;
        *w2i ^= (sfm & 0x80008000);
        w2 = __hadd2(w2, pw2);
    }
    x[t] = w2;
    float4 v = make_float4(1.f, 2.f, 3.f, 4.f);
    float* p = (float*)&v;
    float4* whole = &v;
    p[t % 4] += 10.f;
    out[t] = p[3 - t % 4] + (*whole).x;
}
"""


def test_a_pointer_to_a_local_that_never_changes_is_a_view_of_it(cuda: Cuda) -> None:
    x = (torch.randn(32, 2) * 4).round().to(torch.float16)  # small integers: the sums are exact
    r = cuda.run(HADAMARD, "hadamard_signs", block=32, buffers={"x": x.flatten().clone(), "out": ("f32", 32)})
    assert r.ok, r.diagnoses
    want = x.float().clone()
    i = 1
    while i < 32:
        signs = torch.tensor([-1.0 if t & i else 1.0 for t in range(32)]).unsqueeze(1)
        want = want * signs + want[[t ^ i for t in range(32)]]
        i <<= 1
    assert torch.equal(r.buffers["x"].reshape(32, 2).float(), want)
    base = [1.0, 2.0, 3.0, 4.0]
    expect = []
    for t in range(32):
        v = list(base)
        v[t % 4] += 10.0
        expect.append(v[3 - t % 4] + v[0])
    assert r.buffers["out"].tolist() == expect


def test_a_pointer_to_a_local_that_is_moved_or_passed_on_is_rejected(cuda: Cuda) -> None:
    moved = (
        "__global__ void k(float* o) {\n"
        "    float4 v = make_float4(1.f, 2.f, 3.f, 4.f);\n"
        "    float* p = (float*)&v;\n"
        "    p++;\n"
        "    o[0] = *p;\n"
        "}\n"
    )
    assert cuda.error(moved) == "3:24: error: unsupported address of a local variable: &v"
    passed = (
        "__device__ float first(const float* q) { return q[0]; }\n"
        "__global__ void k(float* o) {\n"
        "    float v = 1.f;\n"
        "    float* p = &v;\n"
        "    o[0] = first(p);\n"
        "}\n"
    )
    assert (
        cuda.error(passed) == "5:18: error: unsupported use of a pointer to a local variable other than *p and p[i]: p"
    )


# -- llm.c's llmc/: specializations of a declared template, __builtin_assume_aligned, p ? p + k : NULL ----

CAST_VALUE = """
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template<typename Td, typename Ts>
__device__ Td cast_value(Ts val);

template<>
__device__ float cast_value<float, float>(float val) {
    return val;
}

template<>
__device__ float cast_value<float, __nv_bfloat16>(__nv_bfloat16 val) {
    return __bfloat162float(val);
}

template<typename Td, typename Ts>
__global__ void copy_and_cast_kernel(Td* dst, const Ts* src, size_t n, ptrdiff_t stride_dst, ptrdiff_t stride_src) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        dst[idx + stride_dst * blockIdx.y] = cast_value<Td, Ts>(src[idx + stride_src * blockIdx.y]);
    }
}
"""


def _cast_kernel(tmp_path: Path, source_type: str) -> Module:
    path = tmp_path / "cast_value.cu"
    path.write_text(CAST_VALUE, encoding="utf-8")
    module = parse_source(path, kernel="copy_and_cast_kernel", template_args=["float", source_type])
    verify_module(module)
    return module


def test_explicit_specializations_of_a_declared_template_are_called(tmp_path: Path) -> None:
    src = torch.randn(16).to(torch.bfloat16)
    args: dict[str, KernelArg] = {
        "dst": GlobalBuffer("dst", torch.zeros(16), F32),
        "src": GlobalBuffer("src", src, BF16),
        "n": 16,
        "stride_dst": 0,
        "stride_src": 0,
    }
    module = _cast_kernel(tmp_path, "__nv_bfloat16")
    launch = LaunchConfig((1, 1, 1), (16, 1, 1), 0)
    r = simulate(module, "copy_and_cast_kernel<float, __nv_bfloat16>", launch, args)
    assert r.ok, r.diagnoses
    assert torch.equal(r.buffers["dst"], src.float())


def test_a_template_without_the_specialization_asked_for_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(LarkcError) as info:
        _cast_kernel(tmp_path, "__half")
    assert "21:46: error: no specialization of cast_value for these template arguments" in str(info.value)


ALIGNED_COPY = """
__global__ void scaled_copy(float* out, const float* x, float* master, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const float* x_aligned = reinterpret_cast<const float*>(__builtin_assume_aligned(x, 16));
    float* m = master ? master + blockIdx.y * n : NULL;
    if (idx < n) {
        out[idx] = x_aligned[idx] * 2.f;
        if (m != NULL) m[idx] = x_aligned[idx];
    }
}
"""


def test_assume_aligned_and_a_conditional_null_pointer(cuda: Cuda) -> None:
    x = torch.randn(8)
    buffers = {"out": ("f32", 8), "x": x, "master": ("f32", 8)}
    r = cuda.run(ALIGNED_COPY, "scaled_copy", block=8, buffers=buffers, scalars={"n": 8})
    assert r.ok, r.diagnoses
    assert torch.equal(r.buffers["out"], x * 2) and torch.equal(r.buffers["master"], x)


# -- flashinfer's vec_dtypes.cuh: fp8 specializations beside the ones a kernel uses --------------------

VEC_T_FP8 = """
#include <cuda_fp8.h>
template <typename float_t, size_t vec_size>
struct vec_t {
  __device__ void fill(float_t val);
  template <typename T>
  __device__ void cast_from(const vec_t<T, vec_size>& src);
};

template <>
struct vec_t<__nv_fp8_e4m3, 1> {
  __nv_fp8_e4m3 data;
  __device__ void fill(__nv_fp8_e4m3 val);
};

__device__ void vec_t<__nv_fp8_e4m3, 1>::fill(__nv_fp8_e4m3 val) { data = val; }

template <>
struct vec_t<float, 2> {
  float data[2];
  __device__ void fill(float val);
};

__device__ void vec_t<float, 2>::fill(float val) { data[0] = val; data[1] = val; }

__global__ void fill_kernel(float* out, float v) {
  vec_t<float, 2> x;
  x.fill(v * 2.f);
  out[2 * threadIdx.x] = x.data[0];
  out[2 * threadIdx.x + 1] = x.data[1];
}

__global__ void fp8_kernel(float* out) {
  vec_t<__nv_fp8_e4m3, 1> x;
  out[0] = 0.f;
}
"""


def test_fp8_specializations_do_not_stop_the_ones_a_kernel_uses(cuda: Cuda, tmp_path: Path) -> None:
    path = tmp_path / "vec_t.cu"
    path.write_text(VEC_T_FP8, encoding="utf-8")
    module = parse_source(path, kernel="fill_kernel")
    verify_module(module)
    args: dict[str, KernelArg] = {"out": GlobalBuffer("out", torch.zeros(8), F32), "v": 1.5}
    r = simulate(module, "fill_kernel", LaunchConfig((1, 1, 1), (4, 1, 1), 0), args)
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [3.0] * 8
    fp8 = parse_source(path, kernel="fp8_kernel")  # the fp8 specialization itself is modelled too
    verify_module(fp8)
    r = simulate(
        fp8, "fp8_kernel", LaunchConfig((1, 1, 1), (1, 1, 1), 0), {"out": GlobalBuffer("out", torch.ones(1), F32)}
    )
    assert r.ok and r.buffers["out"].tolist() == [0.0], r.diagnoses


# -- exllamav2's matrix_view.cuh: structs with members of different types as local objects ----------

MATRIX_VIEW = """
#include <cuda_fp16.h>
class MatrixView_half
{
public:
    const half* data;
    const int height;
    const int width;

    __device__ __forceinline__ MatrixView_half(const half* data, const int height, const int width)
        : data(data), height(height), width(width)
    { }

    __device__ __forceinline__ half item(int row, int column) const { return data[row * width + column]; }
    __device__ __forceinline__ half2 item_half2(int row, int column) const
    {
        return ((half2*)data)[(row * width + column) / 2];
    }
    __device__ __forceinline__ const half* item_ptr(int row, int column) const { return &data[row * width + column]; }

    __device__ __forceinline__ void item4_f(float (&items)[4], int row, int column) const
    {
        half2* ptr = (half2*)item_ptr(row, column);
        half2 i01 = ptr[0];
        half2 i23 = ptr[1];
        items[0] = __half2float(__low2half(i01));
        items[1] = __half2float(__high2half(i01));
        items[2] = __half2float(__low2half(i23));
        items[3] = __half2float(__high2half(i23));
    }
};

class MatrixView_half_rw
{
public:
    half* data;
    const int height;
    const int width;

    __device__ __forceinline__ MatrixView_half_rw(half* data, const int height, const int width)
        : data(data), height(height), width(width)
    { }

    __device__ __forceinline__ half* item_ptr(int row, int column) { return &data[row * width + column]; }
    __device__ __forceinline__ void set_half2(int row, int column, half2 value)
    {
        ((half2*)data)[(row * width + column) / 2] = value;
    }
};

const int MAX_ROWS = 32768;

__global__ void view_kernel(half* __restrict__ dest, const half* __restrict__ source, const int height, const int width)
{
    MatrixView_half_rw dest_(dest, MAX_ROWS, width);
    MatrixView_half source_(source, 1, width);
    int offset_x = threadIdx.x * 4;
    if (offset_x >= width) return;
    half2 v = source_.item_half2(0, offset_x);
    float f[4];
    source_.item4_f(f, 0, offset_x);
    for (int y = 0; y < height; ++y)
    {
        half2* ptr = (half2*) dest_.item_ptr(y, offset_x);
        *ptr = __hadd2(v, *ptr);
        half2 w = __lowhigh2highlow(__floats2half2_rn(f[2], f[3]));
        dest_.set_half2(y, offset_x + 2, __hmul2(w, h2rcp(__float2half2_rn(2.f))));
    }
    if (threadIdx.x == 0 && source_.height == 1) dest[0] = __int2half_rn(__half2int_rn(source_.item(0, 1)));
}
"""


def test_structs_with_members_of_different_types_as_local_objects(cuda: Cuda) -> None:
    height, width = 3, 16
    dest = (torch.randn(height, width) * 8).round().to(torch.float16)
    source = (torch.randn(width) * 8).round().to(torch.float16)
    r = cuda.run(
        MATRIX_VIEW,
        "view_kernel",
        block=4,
        buffers={"dest": dest.flatten().clone(), "source": source.clone()},
        scalars={"height": height, "width": width},
    )
    assert r.ok, r.diagnoses
    want = dest.float().clone()
    s = source.float()
    for x in range(0, width, 4):
        want[:, x : x + 2] += s[x : x + 2]
        want[:, x + 2] = s[x + 3] / 2
        want[:, x + 3] = s[x + 2] / 2
    want[0, 0] = torch.round(s[1])
    assert torch.equal(r.buffers["dest"].reshape(height, width).float(), want)


def test_a_member_function_assigning_a_member_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "struct Cursor {\n"
        "    float* data;\n"
        "    int pos;\n"
        "    __device__ Cursor(float* d) : data(d), pos(0) {}\n"
        "    __device__ void next() { pos = pos + 1; }\n"
        "};\n"
        "__global__ void k(float* x) { Cursor c(x); c.next(); x[c.pos] = 1.f; }\n"
    )
    assert cuda.error(src) == (
        "5:30: error: unsupported assignment to a member in a member function of this struct: pos = pos + 1"
    )


def test_a_const_local_is_not_assigned_but_a_pointer_to_const_is(cuda: Cuda) -> None:
    src = (
        "__global__ void k(const float* x, float* o) {\n"
        "    const float* p = x;\n"
        "    p += 1;\n"
        "    const float c = o[0];\n"
        "    c = *p;\n"
        "}\n"
    )
    assert cuda.error(src) == "5:5: error: assignment to a const variable"


def test_a_union_constructed_from_a_wider_integer_takes_the_integer_constructor(cuda: Cuda) -> None:
    src = """
    #include <cuda_fp16.h>
    union half_uint16
    {
        uint16_t as_uint16;
        half as_half;
        __device__ half_uint16(uint16_t val) : as_uint16(val) {}
        __device__ half_uint16(half val) : as_half(val) {}
    };
    __global__ void k(const unsigned int* bits, float* out) {
        half_uint16 h(bits[threadIdx.x] >> 16);
        out[threadIdx.x] = __half2float(h.as_half);
    }
    """
    values = torch.tensor([1.5, -2.0, 0.25, 65504.0], dtype=torch.float16)
    packed = (values.view(torch.int16).to(torch.int64) & 0xFFFF) << 16
    r = cuda.run(src, "k", block=4, buffers={"bits": packed.to(torch.uint32), "out": ("f32", 4)})
    assert r.ok, r.diagnoses
    assert torch.equal(r.buffers["out"], values.float())


# -- __constant__ arrays the host writes (the CUDA samples' convolutionSeparable) ----------------------

CONVOLUTION_ROWS = """
#define KERNEL_RADIUS 2
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
__constant__ float c_Kernel[KERNEL_LENGTH];

extern "C" void setConvolutionKernel(float *h_Kernel) {
    cudaMemcpyToSymbol(c_Kernel, h_Kernel, KERNEL_LENGTH * sizeof(float));
}

__global__ void convolutionRowsKernel(float *d_Dst, float *d_Src, int imageW) {
    int x = threadIdx.x;
    float sum = 0;
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
        int xs = min(max(x + j, 0), imageW - 1);
        sum += c_Kernel[KERNEL_RADIUS - j] * d_Src[blockIdx.x * imageW + xs];
    }
    d_Dst[blockIdx.x * imageW + x] = sum;
}
"""


def test_constant_memory_the_host_writes_is_a_read_only_kernel_input(cuda: Cuda) -> None:
    src = torch.randint(-8, 8, (2, 16)).float()
    weights = torch.tensor([1.0, 2.0, 4.0, 2.0, 1.0])
    r = cuda.run(
        CONVOLUTION_ROWS,
        "convolutionRowsKernel",
        block=16,
        grid=2,
        buffers={"d_Dst": ("f32", 32), "d_Src": src.flatten(), "c_Kernel": weights},
        scalars={"imageW": 16},
    )
    assert r.ok, r.diagnoses
    padded = torch.cat([src[:, :1], src[:, :1], src, src[:, -1:], src[:, -1:]], dim=1)
    want = sum(weights[2 - j] * padded[:, 2 + j : 18 + j] for j in range(-2, 3))
    assert torch.equal(r.buffers["d_Dst"].reshape(2, 16), want)


# -- __device__ variables (the CUDA samples' threadFenceReduction) ------------------------------------

BLOCK_SUMS = """
__device__ unsigned int blocksDone = 0;
__device__ float total;

__global__ void reduceBlocks(const float* g_idata, unsigned int n) {
    __shared__ float sdata[32];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? g_idata[i] : 0.f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(&total, sdata[0]);
        atomicInc(&blocksDone, gridDim.x * 2);
    }
}
"""


def test_device_variables_are_buffers_every_block_shares(cuda: Cuda) -> None:
    x = torch.randint(-4, 4, (128,)).float()
    r = cuda.run(
        BLOCK_SUMS,
        "reduceBlocks",
        block=32,
        grid=4,
        buffers={
            "g_idata": x,
            "total": torch.tensor([0.5]),
            "blocksDone": torch.ones(1, dtype=torch.int64).to(torch.uint32),
        },
        scalars={"n": 128},
    )
    assert r.ok, r.diagnoses
    assert r.buffers["total"].tolist() == [float(x.sum()) + 0.5]
    assert r.buffers["blocksDone"].tolist() == [5]


def test_a_device_variable_in_a_device_function_is_a_located_error(cuda: Cuda) -> None:
    src = "__device__ int counter;\n__device__ void bump() { counter += 1; }\n__global__ void k(float* o) { bump(); }\n"
    assert cuda.error(src) == "2:26: error: unsupported __device__ variable, in a device function: counter"


# -- cub's BlockReduce and BlockScan --------------------------------------------------------------

CUB_ROWS = """
#include <cub/cub.cuh>
__global__ void row_stats(const float* x, float* sums, float* maxima, int* prefix, int* totals, int n) {
    typedef cub::BlockReduce<float, 64> BlockReduce;
    using BlockScan = cub::BlockScan<int, 64>;
    __shared__ typename BlockReduce::TempStorage temp_storage;
    __shared__ typename BlockScan::TempStorage scan_storage;
    int row = blockIdx.x;
    float v = threadIdx.x < n ? x[row * n + threadIdx.x] : 0.f;
    float s = BlockReduce(temp_storage).Sum(v);
    __syncthreads();
    float m = BlockReduce(temp_storage).Reduce(v, cub::Max(), n);
    int flag = v > 0.f ? 1 : 0;
    int before;
    BlockScan(scan_storage).ExclusiveSum(flag, before);
    __syncthreads();
    int upto;
    BlockScan(scan_storage).InclusiveSum(flag, upto);
    if (threadIdx.x == 0) {
        sums[row] = s;
        maxima[row] = m;
    }
    if (threadIdx.x < n) prefix[row * n + threadIdx.x] = before;
    if (threadIdx.x == 63) totals[row] = upto;
}
"""


def test_cub_block_reduce_and_scan_by_their_documented_semantics(cuda: Cuda) -> None:
    n = 50
    x = torch.randint(-8, 8, (3, n)).float()
    r = cuda.run(
        CUB_ROWS,
        "row_stats",
        block=64,
        grid=3,
        buffers={
            "x": x.flatten(),
            "sums": ("f32", 3),
            "maxima": ("f32", 3),
            "prefix": ("i32", 3 * n),
            "totals": ("i32", 3),
        },
        scalars={"n": n},
    )
    assert r.ok, r.diagnoses
    assert r.buffers["sums"].tolist() == x.sum(dim=1).tolist()
    assert r.buffers["maxima"].tolist() == x.max(dim=1).values.tolist()
    flags = (x > 0).to(torch.int32)
    assert r.buffers["prefix"].reshape(3, n).tolist() == (torch.cumsum(flags, dim=1) - flags).tolist()
    assert r.buffers["totals"].tolist() == flags.sum(dim=1).tolist()


def _one_row(threads: int) -> dict[str, torch.Tensor | tuple[str, int]]:
    return {
        "x": torch.ones(threads),
        "sums": ("f32", 1),
        "maxima": ("f32", 1),
        "prefix": ("i32", threads),
        "totals": ("i32", 1),
    }


def test_reusing_cub_storage_without_a_barrier_is_a_race(cuda: Cuda) -> None:
    first = "    float s = BlockReduce(temp_storage).Sum(v);\n"
    src = CUB_ROWS.replace(first + "    __syncthreads();\n", first)
    r = cuda.run(src, "row_stats", block=64, buffers=_one_row(64), scalars={"n": 64})
    assert [d.kind.value for d in r.diagnoses] == ["race"] and r.diagnoses[0].buffer == "temp_storage"


def test_a_cub_block_size_other_than_the_launch_is_an_assertion(cuda: Cuda) -> None:
    r = cuda.run(CUB_ROWS, "row_stats", block=32, buffers=_one_row(32), scalars={"n": 32})
    assert r.diagnoses and r.diagnoses[0].kind.value == "assert"


def test_other_cub_collectives_are_located_errors(cuda: Cuda) -> None:
    src = "#include <cub/cub.cuh>\n__global__ void k(float* o) {\n    typedef cub::BlockRadixSort<int, 128, 4> S;\n}\n"
    want = "3:13: error: unsupported cub::BlockRadixSort (larkc models BlockReduce, BlockScan, WarpReduce, BlockLoad"
    assert cuda.error(src) == want + ", BlockStore): cub::BlockRadixSort<int, 128, 4>"


def test_a_two_dimensional_constant_table_and_zero_initialised_vector_arrays(cuda: Cuda) -> None:
    src = """
    #include <cuda_fp16.h>
    __constant__ unsigned int c_Table[3][8];
    __global__ void k(float* out) {
        unsigned int* dimBase = &c_Table[threadIdx.y][0];
        half2 acc[2][2] = {};
        acc[1][1] = __floats2half2_rn(1.f, 2.f);
        out[threadIdx.y * 8 + threadIdx.x] = dimBase[threadIdx.x] + __low2float(acc[0][1]) + __high2float(acc[1][1]);
    }
    """
    table = torch.arange(24, dtype=torch.int64).to(torch.uint32)
    module = cuda.lower(src)
    args: dict[str, KernelArg] = {
        "out": GlobalBuffer("out", torch.zeros(24), F32),
        "c_Table": GlobalBuffer("c_Table", table, parse_dtype("u32")),
    }
    r = simulate(module, "k", LaunchConfig((1, 1, 1), (8, 3, 1), 0), args)
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [float(i) + 2.0 for i in range(24)]


def test_atomic_add_of_a_half_pair_adds_each_half_atomically(cuda: Cuda) -> None:
    src = """
    #include <cuda_fp16.h>
    __global__ void accumulate(half2* c, const half2* parts, half2* olds) {
        half2 old = atomicAdd(c + threadIdx.x % 2, parts[threadIdx.x]);
        if (threadIdx.x == 0) olds[0] = old;
        atomicAdd(c + 2, parts[threadIdx.x]);
    }
    """
    parts = torch.randint(-4, 4, (8, 2)).to(torch.float16)
    r = cuda.run(
        src,
        "accumulate",
        block=8,
        buffers={"c": torch.zeros(6, dtype=torch.float16), "parts": parts.flatten(), "olds": ("f16", 2)},
    )
    assert r.ok, r.diagnoses
    c = r.buffers["c"].reshape(3, 2).float()
    assert torch.equal(c[0], parts[0::2].float().sum(dim=0)) and torch.equal(c[1], parts[1::2].float().sum(dim=0))
    assert torch.equal(c[2], parts.float().sum(dim=0))


# -- the address of a local passed to a pointer parameter (llm.c's encoder.cuh) -------------------------

STOCHASTIC_ROUNDING = """
#include <cuda_bf16.h>
template <class T> struct alignas(16) Packed128 {
    __device__ T& operator[](int index) { return payload[index]; }
    static constexpr const int size = sizeof(int4) / sizeof(T);
    T payload[size];
};
__device__ __forceinline__ void stochastic_rounding(float in, __nv_bfloat16 *out, unsigned int seed) {
    unsigned int float_bits = __float_as_uint(in);
    unsigned int rounded_bits = float_bits & 0x0000FFFF;
    float_bits = (rounded_bits > (seed & 0xFFFF)) ? (float_bits | 0xFFFF) : (float_bits & ~0xFFFF);
    *out = __float2bfloat16_rn(__uint_as_float(float_bits));
}
__device__ __forceinline__ void stochastic_rounding(float in, float *out, unsigned int seed) {
    out[0] = in;
}
__global__ void wte_backward(__nv_bfloat16* dwte, const float* accum, float* plain, unsigned int seed) {
    Packed128<__nv_bfloat16> packed_in_out;
    for (int k = 0; k < 8; k++) packed_in_out[k] = dwte[threadIdx.x * 8 + k];
    for (int k = 0; k < 8; k++) {
        stochastic_rounding(accum[k] + (float)packed_in_out[k], &packed_in_out[k], seed + k);
    }
    for (int k = 0; k < 8; k++) dwte[threadIdx.x * 8 + k] = packed_in_out[k];
    float f = 0.f;
    stochastic_rounding(accum[0] * 2.f, &f, seed);
    plain[threadIdx.x] = f;
}
"""


def _stochastic_round(x: float, seed: int) -> float:
    bits = int(torch.tensor([x], dtype=torch.float32).view(torch.int32).item()) & 0xFFFFFFFF
    bits = (bits | 0xFFFF) if (bits & 0xFFFF) > (seed & 0xFFFF) else (bits & ~0xFFFF & 0xFFFFFFFF)
    as_float = torch.tensor([bits], dtype=torch.int64).to(torch.int32).view(torch.float32)
    return float(as_float.to(torch.bfloat16).item())


def test_the_address_of_a_local_for_a_pointer_parameter_is_the_local_itself(cuda: Cuda) -> None:
    dwte = torch.randn(16).to(torch.bfloat16)
    accum = torch.randn(8)
    seed = 0x1234
    r = cuda.run(
        STOCHASTIC_ROUNDING,
        "wte_backward",
        block=2,
        buffers={"dwte": dwte.clone(), "accum": accum, "plain": ("f32", 2)},
        scalars={"seed": seed},
    )
    assert r.ok, r.diagnoses
    for t in range(2):
        for k in range(8):
            want = _stochastic_round(float(accum[k]) + float(dwte[t * 8 + k]), seed + k)
            assert float(r.buffers["dwte"][t * 8 + k]) == want
    assert r.buffers["plain"].tolist() == [float(accum[0] * 2)] * 2


def test_a_pointer_parameter_given_a_local_and_moved_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "__device__ void next(float* p) { p++; *p = 1.f; }\n"
        "__global__ void k(float* o) {\n"
        "    float f = 0.f;\n"
        "    next(&f);\n"
        "    o[0] = f;\n"
        "}\n"
    )
    assert cuda.error(src).startswith(
        "1:32: error: unsupported pointer parameter given the address of a local and changed"
    )


# -- unions with array members ------------------------------------------------------------------------

UNION_ARRAYS = """
#include <cuda_fp16.h>
union Pack {
    float4 v;
    float f[4];
    unsigned int u[4];
};
__global__ void scale_lanes(float4* x, unsigned int* signs) {
    Pack p;
    p.v = x[threadIdx.x];
    for (int i = 0; i < 4; i++) p.f[i] *= (float)(i + 1);
    p.f[threadIdx.x % 4] += 0.5f;
    signs[threadIdx.x] = p.u[0] >> 31;
    x[threadIdx.x] = p.v;
}
"""


def test_union_array_members_are_lanes_of_the_unions_bits(cuda: Cuda) -> None:
    x = torch.randn(4, 4)
    r = cuda.run(UNION_ARRAYS, "scale_lanes", block=4, buffers={"x": x.flatten(), "signs": ("u32", 4)})
    assert r.ok, r.diagnoses
    want = x * torch.tensor([1.0, 2.0, 3.0, 4.0])
    for t in range(4):
        want[t, t % 4] += 0.5
    assert torch.equal(r.buffers["x"].reshape(4, 4), want)
    assert r.buffers["signs"].tolist() == [int(v < 0) for v in want[:, 0].tolist()]


def test_a_union_array_of_vectors_is_a_located_error(cuda: Cuda) -> None:
    src = "union U {\n    float4 v;\n    half2 h[4];\n};\n__global__ void k(float* o) { U u; o[0] = 0.f; }\n"
    assert cuda.error(src).startswith(
        "3:5: error: unsupported union member (a scalar, a vector or an array of scalars): half2 h[4];"
    )


CUB_WARPS = """
#include <cub/cub.cuh>
__global__ void warp_sums(const int* x, int* sums, int* maxima) {
    typedef cub::WarpReduce<int> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp_storage[2];
    int warp_id = threadIdx.x / 32;
    int v = x[threadIdx.x];
    int s = WarpReduce(temp_storage[warp_id]).Sum(v);
    int m = WarpReduce(temp_storage[warp_id]).Reduce(v, cub::Max());
    if (threadIdx.x % 32 == 0) {
        sums[warp_id] = s;
        maxima[warp_id] = m;
    }
}
"""


def test_cub_warp_reduce_by_its_documented_semantics(cuda: Cuda) -> None:
    x = torch.randint(-50, 50, (64,), dtype=torch.int32)
    buffers = {"x": x, "sums": ("i32", 2), "maxima": ("i32", 2)}
    r = cuda.run(CUB_WARPS, "warp_sums", block=64, buffers=buffers)
    assert r.ok, r.diagnoses
    assert r.buffers["sums"].tolist() == x.reshape(2, 32).sum(dim=1).tolist()
    assert r.buffers["maxima"].tolist() == x.reshape(2, 32).max(dim=1).values.tolist()
    partial = cuda.run(CUB_WARPS, "warp_sums", block=48, buffers={**buffers, "x": x[:48].clone()})
    assert not partial.ok  # cub requires every lane of the warp: the shuffles read lanes that do not exist


CUB_LOAD_STORE = """
#include <cub/cub.cuh>
__global__ void reverse_items(const float* in, float* out, int valid) {
    typedef cub::BlockLoad<float, 32, 4, cub::BLOCK_LOAD_DIRECT> BlockLoad;
    typedef cub::BlockStore<float, 32, 4> BlockStore;
    __shared__ typename BlockLoad::TempStorage load_storage;
    __shared__ typename BlockStore::TempStorage store_storage;
    float items[4];
    BlockLoad(load_storage).Load(in + blockIdx.x * 128, items, valid, -1.f);
    float flipped[4] = {items[3], items[2], items[1], items[0]};
    BlockStore(store_storage).Store(out + blockIdx.x * 128, flipped, valid);
}
"""


def test_cub_block_load_and_store_in_the_blocked_arrangement(cuda: Cuda) -> None:
    x = torch.randn(256)
    out = torch.full((256,), 7.0)
    r = cuda.run(
        CUB_LOAD_STORE, "reverse_items", block=32, grid=2, buffers={"in": x, "out": out}, scalars={"valid": 126}
    )
    assert r.ok, r.diagnoses
    padded = x.reshape(2, 128).clone()
    padded[:, 126:] = -1.0
    want = padded.reshape(2, 32, 4).flip(dims=[2]).reshape(2, 128)
    want[:, 126:] = 7.0  # not stored
    assert torch.equal(r.buffers["out"].reshape(2, 128), want)


# TensorRT-LLM's cudaTypeUtils.cuh (in flashinfer): explicit specializations spelled without template arguments
SPECIALIZED_ABS = """
#include <cuda_fp16.h>
template <typename T> __device__ inline T cuda_abs(T val) { return val * (T)100; }
template <> __device__ inline float cuda_abs(float val) { return fabs(val); }
template <> __device__ inline half cuda_abs(half val) { return __habs(val); }
__global__ void absolutes(const half* x, half* y, float* z, int* w) {
    y[threadIdx.x] = cuda_abs(x[threadIdx.x]);
    z[threadIdx.x] = cuda_abs(-2.5f);
    w[threadIdx.x] = cuda_abs(-3);
}
"""


def test_a_specialization_without_template_arguments_is_chosen_for_its_types(cuda: Cuda) -> None:
    x = torch.tensor([-1.5, 2.0, -0.25], dtype=torch.float16)
    bufs = {"x": x, "y": ("f16", 3), "z": ("f32", 3), "w": ("i32", 3)}
    r = cuda.run(SPECIALIZED_ABS, "absolutes", block=3, buffers=bufs)
    assert r.ok, r.diagnoses
    assert r.buffers["y"].tolist() == [1.5, 2.0, 0.25]
    assert r.buffers["z"].tolist() == [2.5] * 3
    assert r.buffers["w"].tolist() == [-300] * 3  # the primary template for int


# flashinfer's fastdiv.cuh: uint_fastdiv (libcu++'s cuda::fast_mod_div and the divisor) with a conversion
# operator and free operator/ and operator%, as page.cuh uses paged_kv.page_size
FASTDIV = """
#include <cuda/cmath>
struct uint_fastdiv {
  __host__ __device__ uint_fastdiv() : impl_(1), d_(0) {}
  __host__ uint_fastdiv(uint32_t d) : impl_(d ? d : 1), d_(d) {}
  __host__ __device__ __forceinline__ operator unsigned int() const { return d_; }
  __host__ __device__ __forceinline__ void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    q = n / impl_;
    r = n - q * d_;
  }
 private:
  cuda::fast_mod_div<uint32_t> impl_;
  uint32_t d_;
};
__host__ __device__ __forceinline__ uint32_t operator/(const uint32_t n, const uint_fastdiv& divisor) {
  uint32_t q, r;
  divisor.divmod(n, q, r);
  return q;
}
__host__ __device__ __forceinline__ uint32_t operator%(const uint32_t n, const uint_fastdiv& divisor) {
  uint32_t q, r;
  divisor.divmod(n, q, r);
  return r;
}
__global__ void pages(const unsigned int* words, const int* indptr, unsigned int* out) {
  uint_fastdiv page_size = *reinterpret_cast<const uint_fastdiv*>(words);  // (impl_, d_) as the host built it
  uint32_t x = threadIdx.x;
  out[3 * x] = (indptr[1] - indptr[0]) * page_size + 3;
  out[3 * x + 1] = (x + 7) / page_size;
  out[3 * x + 2] = (x + 7) % page_size;
}
"""


def test_a_struct_converts_by_its_operator_and_user_operators_take_it(cuda: Cuda) -> None:
    words = torch.tensor([5, 5], dtype=torch.int32).view(torch.uint32)
    bufs = {"words": words, "indptr": torch.tensor([2, 6], dtype=torch.int32), "out": ("u32", 24)}
    r = cuda.run(FASTDIV, "pages", block=8, buffers=bufs)
    assert r.ok, r.diagnoses
    want = [v for x in range(8) for v in (4 * 5 + 3, (x + 7) // 5, (x + 7) % 5)]
    assert r.buffers["out"].tolist() == want
    # another struct laid out alike: larkc cannot tell which one converts, a located error
    twin = FASTDIV.replace("__global__ void pages(", "struct twin { uint32_t a, b; };\n__global__ void pages(")
    twin = twin.replace("  uint32_t x = threadIdx.x;\n", "  uint32_t x = threadIdx.x;\n  twin t;\n")
    assert cuda.error(twin) == (
        "30:16: error: unsupported conversion of one of several structs laid out as u32x2align4:"
        " (indptr[1] - indptr[0]) * page_size"
    )


# flashinfer's page.cuh: member functions of a kernel's parameter struct (paged_kv.get_k_ptr(...))
PAGED = """
struct paged_kv_t {
  uint32_t stride_page;
  float* k_data;
  int* indices;
  __device__ __forceinline__ size_t get_elem_offset(size_t page_idx, size_t feat_idx) const {
    return page_idx * stride_page + feat_idx;
  }
  __device__ __forceinline__ float* get_k_ptr(int page_iter, uint32_t feat_idx) const {
    return k_data + get_elem_offset(__ldg(indices + page_iter), feat_idx);
  }
};
__global__ void append(paged_kv_t paged_kv, const float* key) {
  float* k_ptr = paged_kv.get_k_ptr(blockIdx.x, threadIdx.x);
  *k_ptr = key[blockIdx.x * blockDim.x + threadIdx.x];
}
"""


def test_member_functions_of_a_kernel_parameter_struct_take_its_members(cuda: Cuda) -> None:
    key = torch.arange(8, dtype=torch.float32)
    bufs = {"paged_kv.k_data": ("f32", 16), "paged_kv.indices": torch.tensor([2, 0], dtype=torch.int32), "key": key}
    r = cuda.run(PAGED, "append", block=4, grid=2, buffers=bufs, scalars={"paged_kv.stride_page": 5})
    assert r.ok, r.diagnoses
    want = torch.zeros(16)
    want[10:14] = key[0:4]  # block 0 -> page indices[0] = 2, at 2 * stride_page
    want[0:4] = key[4:8]  # block 1 -> page 0
    assert torch.equal(r.buffers["paged_kv.k_data"], want)
    # a member function assigning a member of the (by-value) parameter struct is a located error
    assigning = PAGED.replace("return page_idx * stride_page + feat_idx;", "stride_page = 1; return feat_idx;")
    assert "assignment to a member in a member function of this struct" in cuda.error(assigning)


def test_cuda_fp16_h_typedefs_nv_half_and_nv_half2(cuda: Cuda) -> None:
    src = "__global__ void k(const nv_half2* x, nv_half* y) {\n"
    src += "    y[threadIdx.x] = __hadd(x[threadIdx.x].x, x[threadIdx.x].y);\n}\n"
    x = torch.tensor([1.5, 2.0, -1.0, 0.25], dtype=torch.float16)
    r = cuda.run(src, "k", block=2, buffers={"x": x, "y": ("f16", 2)})
    assert r.ok, r.diagnoses
    assert r.buffers["y"].tolist() == [3.5, -0.75]
