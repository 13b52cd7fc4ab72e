"""CUDA constructs from the audit's CUDA samples, llm.c and exllamav2 kernels (docs/cuda-audit.md), each on
a snippet shaped like the real kernel it came from, lowered, verified and simulated against values
computed in Python."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- cg::thread_group parameters and variables (simpleCooperativeGroups, dxtc) ---------------------------

CG_THREAD_GROUP = """
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int sum_ranks(thread_group g, int* x, int val) {
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i) val += x[lane + i];
        g.sync();
    }
    if (g.thread_rank() == 0) return val;
    else return -1;
}

__global__ void groups_kernel(int* out) {
    thread_block block = this_thread_block();
    __shared__ int workspace[64];
    int total = sum_ranks(block, workspace, block.thread_rank());
    if (block.thread_rank() == 0) out[0] = total;
    block.sync();
    thread_block_tile<16> tile16 = tiled_partition<16>(block);
    int offset = block.thread_rank() - tile16.thread_rank();
    total = sum_ranks(tile16, workspace + offset, 2 * tile16.thread_rank());
    if (tile16.thread_rank() == 0) out[1 + block.thread_rank() / 16] = total;
    block.sync();
    namespace cg = cooperative_groups;
    cg::thread_group tile8 = cg::tiled_partition(block, 8);
    offset = block.thread_rank() - tile8.thread_rank();
    total = sum_ranks(tile8, workspace + offset, 1);
    if (tile8.thread_rank() == 0) out[5 + block.thread_rank() / 8] = total;
}
"""


def test_thread_group_parameters_take_the_block_and_tiles(cuda: Cuda) -> None:
    r = cuda.run(CG_THREAD_GROUP, "groups_kernel", block=64, buffers={"out": ("i32", 13)})
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [sum(range(64))] + [2 * sum(range(16))] * 4 + [8] * 8


def test_a_tile_given_to_a_thread_block_parameter_is_a_type_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__device__ int rank(cg::thread_block g) { return g.thread_rank(); }\n"
        "__global__ void k(int* o) {\n"
        "    auto t = cg::tiled_partition<16>(cg::this_thread_block());\n"
        "    o[0] = rank(t);\n"
        "}\n"
    )
    assert cuda.error(src) == "2:21: error: a tile16 group where the type is cg::thread_block"


def test_a_tile_of_another_size_is_a_type_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* o) {\n"
        "    cg::thread_block b = cg::this_thread_block();\n"
        "    cg::thread_block_tile<8> t = cg::tiled_partition(b, 16);\n"
        "    o[0] = t.thread_rank();\n"
        "}\n"
    )
    assert cuda.error(src) == "4:5: error: a tile16 group where the type is thread_block_tile<8>"


TILE_TEMPLATE = """
namespace cg = cooperative_groups;
template <int N>
__device__ int rank_plus(cg::thread_block_tile<N> g) { return g.thread_rank() + N; }
__global__ void k(int* o) {
    auto t = cg::tiled_partition<16>(cg::this_thread_block());
    o[threadIdx.x] = rank_plus<SIZE>(t);
}
"""


def test_a_tile_parameter_sized_by_a_template_argument(cuda: Cuda) -> None:
    r = cuda.run(TILE_TEMPLATE.replace("SIZE", "16"), "k", block=32, buffers={"o": ("i32", 32)})
    assert r.ok, r.diagnoses
    assert r.buffers["o"].tolist() == [lane % 16 + 16 for lane in range(32)]
    error = cuda.error(TILE_TEMPLATE.replace("SIZE", "8"))
    assert error == "4:26: error: a tile16 group where the type is cg::thread_block_tile<N>"


# the samples' reduction_kernel.cu: `template <typename T, typename Group> T cg_reduce_n(T in, Group& threads)`
GROUP_DEDUCED = """
namespace cg = cooperative_groups;
template <typename T, typename Group> __device__ T reduce_in(T in, Group &threads) {
  return cg::reduce(threads, in, cg::plus<T>());
}
template <typename Group, typename T> __device__ T rank_plus(Group &g, T v) { return v + (T)g.thread_rank(); }
__global__ void tile_sums(const int *in, int *out) {
  using T = int;
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  cg::thread_block_tile<8> small = cg::tiled_partition<8>(cta);
  T v = in[cta.thread_rank()];
  out[cta.thread_rank()] = reduce_in(v, tile) + 1000 * reduce_in(v, small) + 100000 * rank_plus(cta, v);
}
"""


def test_a_template_type_parameter_deduced_from_a_group_argument(cuda: Cuda) -> None:
    x = torch.arange(64, dtype=torch.int32) % 7
    r = cuda.run(GROUP_DEDUCED, "tile_sums", block=64, buffers={"in": x, "out": ("i32", 64)})
    assert r.ok, r.diagnoses
    warp = x.reshape(2, 32).sum(1).repeat_interleave(32)
    eight = x.reshape(8, 8).sum(1).repeat_interleave(8)
    assert r.buffers["out"].tolist() == (warp + 1000 * eight + 100000 * (x + torch.arange(64))).tolist()
    explicit = GROUP_DEDUCED.replace("reduce_in(v, small)", "reduce_in<T, float>(v, small)")
    assert cuda.error(explicit).endswith("error: a tile8 group passed where the type is Group")


# the samples' bisect_util.cu: a `T&` parameter bound to a `__shared__` flag, cleared with atomicExch(&ref, 0)
SHARED_REFERENCE = """
__device__ void mark(const float* x, unsigned int& not_converged, float& last) {
  if (x[blockIdx.x * blockDim.x + threadIdx.x] > 0.5f) {
    atomicExch(&not_converged, 0);
  }
  last = x[blockIdx.x * blockDim.x + threadIdx.x];
}
__global__ void converge(const float* x, unsigned int* out, float* lasts) {
  __shared__ unsigned int all_converged;
  float last = 0.f;
  if (threadIdx.x == 0) all_converged = 1;
  __syncthreads();
  mark(x, all_converged, last);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = all_converged;
  lasts[blockIdx.x * blockDim.x + threadIdx.x] = last * 2.f;
}
"""


def test_a_reference_to_shared_memory_whose_address_is_taken_is_that_address(cuda: Cuda) -> None:
    x = torch.zeros(96)
    x[40] = 0.75  # block 1 only
    r = cuda.run(
        SHARED_REFERENCE, "converge", block=32, grid=3, buffers={"x": x, "out": ("u32", 3), "lasts": ("f32", 96)}
    )
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [1, 0, 1]
    assert torch.equal(r.buffers["lasts"], x * 2)
    # bound to a local the reference is the local itself, and its address is not modelled
    local = SHARED_REFERENCE.replace("__shared__ unsigned int all_converged;", "unsigned int all_converged;")
    assert cuda.error(local) == "4:16: error: unsupported address of a local variable: &not_converged"


# the samples' eigenvalues/util.h defines `template <class T> T max(const T&, const T&)`; bisect_util.cu calls
# max(MIN_ABS_INTERVAL, t1) with a double and a float, which only CUDA's max(double, float) takes
USER_MAX = """
template <class T> __device__ T max(const T &lhs, const T &rhs) { return (lhs < rhs) ? rhs : lhs; }
__global__ void widths(const float* x, float* out, int* at_least) {
  float t1 = x[threadIdx.x];
  out[threadIdx.x] = max(5.0e-37, t1) > 0.25 ? 1.f : 0.f;
  at_least[threadIdx.x] = max(3, (int)threadIdx.x);
}
"""


def test_cuda_s_function_is_called_where_no_user_template_can_take_the_arguments(cuda: Cuda) -> None:
    x = torch.tensor([0.0, 0.5, -1.0, 0.3, 0.25, 1e-38])
    r = cuda.run(USER_MAX, "widths", block=6, buffers={"x": x, "out": ("f32", 6), "at_least": ("i32", 6)})
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert r.buffers["at_least"].tolist() == [3, 3, 3, 3, 4, 5]
    # a user template whose deduction fails and no function of CUDA's of that name: its error
    other = USER_MAX.replace("max", "biggest")
    assert cuda.error(other).endswith("error: conflicting deductions for T: f64 and f32")


def test_a_dynamic_tile_size_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* o, int n) {\n"
        "    cg::thread_group t = cg::tiled_partition(cg::this_thread_block(), n);\n"
        "    o[0] = t.thread_rank();\n"
        "}\n"
    )
    assert cuda.error(src) == "3:71: error: unsupported tiled_partition size (a power of two up to 32): n"


# -- local lambdas (llm.c attention_backward.cu softmax_autoregressive_backward_kernel5) -----------------

LAMBDAS = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void weighted_rows(float* out, const float* in, int T) {
    constexpr int U = 4;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float acc[U] = {};
    float w[U];
    for (int k = 0; k < U; ++k) w[k] = k + 1;
    const float* row = in + blockIdx.x * T;
    // by reference: the body reads and updates the enclosing arrays
    auto step = [&](int j) {
        float p = row[j];
        for (int k = 0; k < U; ++k) {
            acc[k] += p * w[k];
        }
    };
    int j = warp.thread_rank();
    for (; j < T; j += warp.size()) {
        step(j);
    }
    // by value: the copy is made where the lambda is defined
    int scale = 3;
    auto scaled = [=](float v) -> float { return v * scale; };
    scale = 5;
    // mutable: the copy keeps its changes from one call to the next
    int calls = 10;
    auto count = [calls]() mutable { calls += 1; return calls; };
    count();
    int counted = count();
    // explicit lists, a reference parameter, and a lambda called where it is defined
    float bias = 0.5f;
    auto add_bias = [&acc, bias](int k, float& total) { total += acc[k] + bias; };
    float total = 0.0f;
    for (int k = 0; k < U; ++k) add_bias(k, total);
    int base = (blockIdx.x * 32 + threadIdx.x) * (U + 2);
    for (int k = 0; k < U; ++k) out[base + k] = scaled(acc[k]);
    out[base + U] = total;
    [&] { out[base + U + 1] = counted + scale; }();
}
"""


def test_lambdas_capture_by_reference_and_by_value(cuda: Cuda) -> None:
    rows, t_len = 2, 40
    x = torch.randn(rows, t_len)
    r = cuda.run(
        LAMBDAS,
        "weighted_rows",
        block=32,
        grid=rows,
        buffers={"out": ("f32", rows * 32 * 6), "in": x.flatten()},
        scalars={"T": t_len},
    )
    assert r.ok, r.diagnoses
    out = r.buffers["out"].reshape(rows, 32, 6).double()
    for b in range(rows):
        for lane in range(32):
            s = float(x[b, lane::32].double().sum())
            acc = [s * (k + 1) for k in range(4)]
            want = [3 * a for a in acc] + [sum(acc) + 4 * 0.5, 12 + 5]
            assert out[b, lane].tolist() == pytest.approx(want, rel=1e-5, abs=1e-5)


NESTED_LAMBDAS = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void nested(int* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int x = 1;
    // the inner lambda takes x by reference from the outer one, which copied it: it sees the copy
    auto outer = [=]() {
        auto inner = [&]() { return x * 10 + (int)warp.thread_rank(); };
        return inner();
    };
    x = 2;
    auto twice = [=](int v) { return outer() + v; };
    out[threadIdx.x] = twice(x);
}
"""


def test_nested_lambdas_copy_what_the_inner_ones_use(cuda: Cuda) -> None:
    r = cuda.run(NESTED_LAMBDAS, "nested", block=32, buffers={"out": ("i32", 32)})
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [10 + lane + 2 for lane in range(32)]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (
            "auto f = [&](int i) { if (i > 0) return i; return 0; }; o[0] = f(n);",
            "3:38: error: unsupported return other than as the last statement of a lambda: return i;",
        ),
        ("auto f = [n]() { return o[0]; }; o[1] = f();", "3:29: error: use of undeclared identifier o"),
        (
            "auto f = [=]() { return n; }; o[0] = f; ",
            "3:42: error: unsupported use of a lambda other than calling it: f",
        ),
        ("auto f = [m = n]() { return m; }; o[0] = f();", "3:15: error: unsupported lambda capture: m = n"),
        (
            "float a[2] = {}; auto f = [a]() { return a[0]; }; o[0] = f();",
            "3:32: error: unsupported capture by value of a (a copy of a local other than a variable): a",
        ),
        ("for (;;) { auto f = [&]() { break; }; f(); }", "3:33: error: unsupported break outside a loop: break;"),
        ("auto f = [&](int k) { n += k; }; f(1.0f, 2);", "3:38: error: lambda takes 1 arguments, got 2"),
        ("auto f = [=]() { n = 1; }; f();", "3:22: error: assignment to a const variable"),
        (
            "int c = 0; auto f = [c]() mutable { return ++c; }; auto g = [=]() { return f(); }; o[0] = g();",
            "3:71: error: unsupported capture by value of f (a copy of a local other than a variable): { return f(); }",
        ),
    ],
)
def test_lambda_constructs_outside_the_model_are_located_errors(cuda: Cuda, body: str, error: str) -> None:
    src = "__global__ void k(float* o, int n) {\n    // a lambda\n    " + body + "\n}\n"
    assert cuda.error(src) == error


# -- brace lists as arguments and returned values, cg::reduce with a device function ----------------------
# (llm.c softmax_forward.cu softmax_forward_online_kernel2)

ONLINE_SOFTMAX = """
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

struct MaxSum {
    float top;
    float total;
};

__device__ MaxSum merge(MaxSum a, MaxSum b) {
    bool a_first = a.top > b.top;
    MaxSum hi = a_first ? a : b;
    MaxSum lo = a_first ? b : a;
    MaxSum out;
    out.top = hi.top;
    out.total = hi.total + lo.total * expf(lo.top - hi.top);
    return out;
}

__device__ MaxSum empty() { return {-INFINITY, 0.0f}; }

__global__ void online_softmax(float* out, const float* inp, int N, int C) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= N) return;
    const float* x = inp + row * C;
    MaxSum part = empty();
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        part = merge(part, { x[i], 1.0f });
    }
    MaxSum all = cg::reduce(warp, part, merge);
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        out[row * C + i] = expf(x[i] - all.top) / all.total;
    }
}
"""


def test_brace_arguments_and_a_reduce_by_a_device_function(cuda: Cuda) -> None:
    n, c = 4, 100
    x = torch.randn(n, c) * 3
    r = cuda.run(
        ONLINE_SOFTMAX,
        "online_softmax",
        block=64,
        grid=2,
        buffers={"out": ("f32", n * c), "inp": x.flatten()},
        scalars={"N": n, "C": c},
    )
    assert r.ok, r.diagnoses
    torch.testing.assert_close(r.buffers["out"].reshape(n, c), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


TILE_REDUCE_BY_FUNCTION = """
namespace cg = cooperative_groups;
struct ArgMax { int value; int index; };
__device__ ArgMax better(ArgMax a, ArgMax b) {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index < b.index ? a : b;
}
__global__ void argmax8(int* out, const int* in) {
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    int i = threadIdx.x;
    ArgMax best = cg::reduce(tile, ArgMax{in[i], i}, better);
    out[2 * i] = best.value;
    out[2 * i + 1] = best.index;
}
"""


def test_a_reduce_by_a_function_over_tiles_of_eight(cuda: Cuda) -> None:
    x = torch.randint(0, 5, (32,), dtype=torch.int32)
    r = cuda.run(TILE_REDUCE_BY_FUNCTION, "argmax8", block=32, buffers={"out": ("i32", 64), "in": x})
    assert r.ok, r.diagnoses
    want = []
    for i in range(32):
        tile = x[i // 8 * 8 : i // 8 * 8 + 8].tolist()
        top = max(tile)
        want += [top, i // 8 * 8 + tile.index(top)]
    assert r.buffers["out"].tolist() == want


def test_a_reduce_by_a_function_of_another_shape_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__device__ float add3(float a, float b, float c) { return a + b + c; }\n"
        "__global__ void k(float* o) {\n"
        "    auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "    o[0] = cg::reduce(w, o[1], add3);\n"
        "}\n"
    )
    assert cuda.error(src) == "5:32: error: unsupported reduce operator function other than T f(T, T): add3"


def test_a_brace_list_for_an_overloaded_function_stays_a_located_error(cuda: Cuda) -> None:
    src = (
        "struct P { float a; float b; };\n"
        "__device__ float f(P p) { return p.a; }\n"
        "__device__ float f(float2 p) { return p.y; }\n"
        "__global__ void k(float* o) { o[0] = f({o[1], 2.0f}); }\n"
    )
    assert cuda.error(src) == "4:40: error: unsupported initializer list here: {o[1], 2.0f}"


# -- members that are several lanes of a struct (exllamav2 h_add.cu cuda_vector_add_int4_kernel) ---------

HALF8 = """
#include <cuda_fp16.h>
typedef struct __align__(16) {
    half2 lo;
    half2 mid1;
    half2 mid2;
    half2 hi;
} half_x8;

__global__ void add_rows(half* __restrict__ dest, const half* __restrict__ source, int width, int height) {
    int col = threadIdx.x * 8;
    if (col >= width) return;
    half_x8 a;
    ((uint4*)&a)[0] = ((const uint4*)(source + col))[0];
    for (int row = 0; row < height; ++row) {
        half_x8* b_ptr = (half_x8*)(dest + row * width + col);
        half_x8 b;
        ((uint4*)&b)[0] = ((uint4*)b_ptr)[0];
        b.lo = __hadd2(b.lo, a.lo);
        b.mid1 = __hadd2(b.mid1, a.mid1);
        b.mid2 += a.mid2;
        b.hi = {__low2half(a.hi), __float2half(1.0f)};
        ((uint4*)b_ptr)[0] = ((uint4*)&b)[0];
    }
}
"""


def test_vector_members_that_are_part_of_a_struct_are_read_and_assigned(cuda: Cuda) -> None:
    width, height = 32, 3
    src = torch.randn(width).half()
    dst = torch.randn(height, width).half()
    r = cuda.run(
        HALF8,
        "add_rows",
        block=4,
        buffers={"dest": dst.flatten(), "source": src},
        scalars={"width": width, "height": height},
    )
    assert r.ok, r.diagnoses
    want = (dst.float() + src.float()).half().reshape(height, width // 8, 8)
    want[:, :, 6] = src.reshape(width // 8, 8)[:, 6]
    want[:, :, 7] = 1.0
    assert torch.equal(r.buffers["dest"].reshape(height, width // 8, 8), want)


def test_an_element_of_an_array_member_that_is_part_of_a_struct_is_not_assigned(cuda: Cuda) -> None:
    src = (
        "struct Pair { float a[2]; float b[2]; };\n"
        "__global__ void k(float* o) {\n"
        "    Pair p = {};\n"
        "    p.b[1] = o[0];\n"
        "    o[1] = p.b[1];\n"
        "}\n"
    )
    assert cuda.error(src) == "4:5: error: assignment to something that is not a variable or memory"


# the samples' dxtc (CudaMath.h, helper_math.h): `void operator+=(float3& a, float3 b)` on shared float3 sums,
# `float3 operator*(float3 a, float b)`
USER_PLUS_ASSIGN = """
inline __device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
inline __device__ float3 operator*(float3 a, float b) { return make_float3(a.x * b, a.y * b, a.z * b); }
__global__ void pair_sums(const float3* colors, float3* out, float* s) {
  __shared__ float3 sums[16];
  const int idx = threadIdx.x;
  sums[idx] = colors[idx];
  __syncthreads();
  float3 mine = sums[idx ^ 1];
  __syncthreads();
  sums[idx] += mine;
  float t = 1.f;
  t += 2.f;  // C's own += and *
  s[idx] = t * 2.f;
  __syncthreads();
  out[idx] = sums[idx] * 0.5f * 4.f;
}
"""


def test_user_operators_on_vectors_are_called(cuda: Cuda) -> None:
    colors = torch.arange(48, dtype=torch.float32)
    r = cuda.run(
        USER_PLUS_ASSIGN, "pair_sums", block=16, buffers={"colors": colors, "out": ("f32", 48), "s": ("f32", 16)}
    )
    assert r.ok, r.diagnoses
    c = colors.reshape(16, 3)
    assert torch.equal(r.buffers["out"].reshape(16, 3), (c + c[torch.arange(16) ^ 1]) * 2)
    assert r.buffers["s"].tolist() == [6.0] * 16
    wrong = USER_PLUS_ASSIGN.replace("float3 mine = sums[idx ^ 1];", "float2 mine = make_float2(1.f, 2.f);")
    wrong = wrong.replace("sums[idx] += mine;", "mine += mine;")
    assert cuda.error(wrong) == "11:3: error: reference parameter a of type f32x3align4 given a f32x2"
