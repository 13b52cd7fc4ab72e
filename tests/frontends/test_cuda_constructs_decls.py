"""Declaration- and type-level CUDA constructs that real kernels use (issue 10 item 4), each on a snippet
shaped like the code it comes from (llm.c, vLLM, exllamav2, flashinfer, the CUDA samples), checked on the
IR and, where the construct changes what the kernel computes, in the simulator."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import parse_module, print_module, verify_module
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


# -- 3. member functions defined outside their struct, *this ----------------------------------------

FLASHINFER_VEC = """
#include <cuda_fp16.h>
template <typename float_t, size_t vec_size>
struct vec_t {
    float_t data[vec_size];
    __device__ void fill(float_t val);
    __device__ float_t sum() const;
    __device__ vec_t& scale(float_t s);
    static __device__ int lanes();
};
template <typename float_t, size_t vec_size>
__device__ void vec_t<float_t, vec_size>::fill(float_t val) {
#pragma unroll
    for (size_t i = 0; i < vec_size; ++i) data[i] = val;
}
template <typename float_t, size_t vec_size>
__device__ float_t vec_t<float_t, vec_size>::sum() const {
    float_t s = 0;
    for (size_t i = 0; i < vec_size; ++i) s += data[i];
    return s;
}
template <typename float_t, size_t vec_size>
__device__ vec_t<float_t, vec_size>& vec_t<float_t, vec_size>::scale(float_t s) {
    for (size_t i = 0; i < vec_size; ++i) data[i] *= s;
    return *this;
}
template <typename float_t, size_t vec_size>
__device__ int vec_t<float_t, vec_size>::lanes() { return vec_size; }

// an explicit specialization whose members are defined outside it (flashinfer's vec_t<float, 1>)
template <>
struct vec_t<float, 1> {
    float data[1];
    __device__ void fill(float val);
    __device__ float sum() const;
};
__device__ void vec_t<float, 1>::fill(float val) { data[0] = val + 100.0f; }
__device__ float vec_t<float, 1>::sum() const { return data[0]; }

__global__ void fill_sum(float* out, const float* in) {
    vec_t<float, 4> v;
    v.fill(in[threadIdx.x]);
    v.scale(2.0f);
    vec_t<float, 1> w;
    w.fill(in[threadIdx.x]);
    out[threadIdx.x] = v.sum() + w.sum() + vec_t<float, 4>::lanes();
}
"""


def test_out_of_class_members_of_a_template_and_of_an_explicit_specialization() -> None:
    x = torch.arange(32, dtype=torch.float32)
    r = run(FLASHINFER_VEC, "fill_sum", {"out": (torch.zeros(32), F32), "in": (x, F32)})
    # v: four lanes of 2x; w (the specialization's own fill): x + 100; lanes(): 4
    assert out(r, "out").tolist() == (8 * x + x + 100 + 4).tolist()


def test_star_this_copies_the_object_in_a_member_function() -> None:
    src = """
struct Pack {
    float v[2];
    __device__ Pack doubled() const { Pack p = *this; p.v[0] *= 2.0f; p.v[1] *= 2.0f; return p; }
};
__global__ void k(float* a) {
    Pack p; p.v[0] = a[0]; p.v[1] = a[1];
    Pack q = p.doubled();
    a[2] = q.v[0] + q.v[1] + p.v[0];
}
"""
    r = run(src, "k", {"a": (torch.tensor([1.0, 2.0, 0.0]), F32)}, block=1)
    assert out(r, "a").tolist() == [1.0, 2.0, 7.0]


def test_out_of_class_member_of_a_non_template_struct_is_lowered_once_per_struct() -> None:
    src = """
struct Acc { float s[1]; __device__ void add(float x); };
__device__ void Acc::add(float x) { s[0] += x; }
__global__ void k(float* a) { Acc c; c.s[0] = 0.0f; c.add(a[0]); c.add(a[1]); a[2] = c.s[0]; }
"""
    text = print_module(lower(src))
    assert text.count('device @"Acc::add"') == 1
    r = run(src, "k", {"a": (torch.tensor([1.5, 2.0, 0.0]), F32)}, block=1)
    assert out(r, "a").tolist() == [1.5, 2.0, 3.5]


# -- 4. static members read through an object -----------------------------------------------------

LLMC_PACKED = """
template <class ElementType>
struct alignas(16) Packed128 {
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
    __device__ ElementType& operator[](int index) { return payload[index]; }
};
typedef Packed128<float> f128;
__global__ void scale_kernel(float* out, const float* inp, float s) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
    f128 packed = *reinterpret_cast<const f128*>(inp + i);
    f128 result;
    for (int k = 0; k < packed.size; ++k) result[k] = packed[k] * s;
    *reinterpret_cast<f128*>(out + i) = result;
    const f128* in4 = reinterpret_cast<const f128*>(inp);
    if (i == 0) out[0] = in4[1].size + result.size;
}
"""


def test_static_member_through_an_object_is_its_constant_and_reads_nothing() -> None:
    text = print_module(lower(LLMC_PACKED))
    assert "(convert<u64>(%k) < 4:u64)" in text  # size_t size = 4
    assert text.count("load ") == 1  # `in4[1].size` does not read in4[1]


def test_static_member_through_an_object_in_the_simulator() -> None:
    x = torch.arange(64, dtype=torch.float32)
    r = run(LLMC_PACKED, "scale_kernel", {"out": (torch.zeros(64), F32), "inp": (x, F32)}, {"s": 0.5}, block=16)
    assert out(r, "out").tolist() == [8.0, *(0.5 * x[1:]).tolist()]


# -- 5. anonymous typedef structs, function-pointer typedefs, 2-D array parameters ---------------

SAMPLES_QUAT = """
typedef struct { float x, y, z, w; } quat_t;
typedef float (*unary_fn)(float);
__device__ float negate(float x) { return -x; }
template <unary_fn F>
__global__ void apply(float* a) { a[threadIdx.x] = F(a[threadIdx.x]); }

// rows of 4 through 2-D array parameters, as the CUDA samples' matrix kernels declare them
__global__ void quat_rows(const quat_t* q, float out[][4], const float bias[][4], int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    quat_t v = q[i];
    out[i][0] = v.x + bias[i][0];
    out[i][1] = v.y + bias[i][1];
    out[i][2] = v.z + bias[i][2];
    out[i][3] = v.w * bias[i][3];
}
"""


def test_anonymous_typedef_struct_and_two_dimensional_array_parameters() -> None:
    m = lower(SAMPLES_QUAT)
    kernel = next(f for f in m.functions if f.name == "quat_rows")
    assert [str(p.type) for p in kernel.params][1:3] == ["ptr<global f32>", "ptr<global const f32>"]
    q = torch.arange(16, dtype=torch.float32)
    bias = torch.full((16,), 2.0)
    quat = VectorType(F32, 4, 4)
    buffers = {"q": (q.reshape(4, 4), quat), "out": (torch.zeros(16), F32), "bias": (bias, F32)}
    r = simulate(
        lower(SAMPLES_QUAT),
        "quat_rows",
        LaunchConfig((1, 1, 1), (4, 1, 1), 0),
        {**{n: GlobalBuffer(n, t, et) for n, (t, et) in buffers.items()}, "n": 4},
    )
    assert not r.diagnoses
    expected = q.reshape(4, 4) + 2.0
    expected[:, 3] = q.reshape(4, 4)[:, 3] * 2.0
    assert r.buffers["out"].tolist() == expected.flatten().tolist()


def test_function_pointer_typedef_as_a_template_parameter() -> None:
    m = parse_cuda(text=SAMPLES_QUAT, file="test.cu", kernel="apply", template_args={"F": "negate"})
    verify_module(m)
    r = simulate(
        m,
        "apply<negate>",
        LaunchConfig((1, 1, 1), (4, 1, 1), 0),
        {"a": GlobalBuffer("a", torch.tensor([1.0, -2.0, 0.5, 3.0]), F32)},
    )
    assert r.buffers["a"].tolist() == [-1.0, 2.0, -0.5, -3.0]


# -- 6. file-scope __constant__ and __shared__ variables -----------------------------------------

SAMPLES_BLUR = """
#define RADIUS 2
__constant__ float c_gauss[2 * RADIUS + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant__ int c_radius = RADIUS;
__shared__ float s_tile[32 + 2 * RADIUS];
__global__ void blur(float* out, const float* in) {
    int i = threadIdx.x;
    s_tile[i + RADIUS] = in[i];
    if (i < RADIUS) { s_tile[i] = 0.0f; s_tile[i + 32 + RADIUS] = 0.0f; }
    __syncthreads();
    float acc = 0.0f;
    for (int k = -c_radius; k <= c_radius; ++k) acc += c_gauss[k + c_radius] * s_tile[i + RADIUS + k];
    out[i] = acc;
}
"""


def test_constant_table_and_file_scope_shared_tile_in_the_simulator() -> None:
    x = torch.rand(32)
    r = run(SAMPLES_BLUR, "blur", {"out": (torch.zeros(32), F32), "in": (x, F32)})
    w = torch.tensor([0.0625, 0.25, 0.375, 0.25, 0.0625])
    padded = torch.nn.functional.pad(x, (2, 2))
    expected = torch.stack([(padded[i : i + 5] * w).sum() for i in range(32)])
    torch.testing.assert_close(out(r, "out"), expected)


def test_constant_table_is_declared_only_in_the_kernels_that_use_it() -> None:
    src = SAMPLES_BLUR + "__global__ void copy(float* a, const float* b) { a[threadIdx.x] = b[threadIdx.x]; }\n"
    text = print_module(lower(src))
    blur, copy = text.split("kernel @copy")
    assert "local %c_gauss: [5 x f32];" in blur and "c_gauss" not in copy
    assert "shared %s_tile: [36 x f32];" in blur and "s_tile" not in copy


def test_constant_without_initialiser_is_an_input_of_the_kernel() -> None:
    src = "__constant__ float c_w[8];\n__global__ void k(float* a) { a[0] = c_w[1]; }\n"
    text = print_module(lower(src))
    assert "kernel @k(%a: ptr<global f32>, %c_w: ptr<global f32>)" in text


# -- 8. device functions declared but never defined ----------------------------------------------


def test_device_function_declared_but_never_defined_is_named() -> None:
    src = """
namespace vllm { __device__ float silu(float x); }
__global__ void act(float* out) { out[threadIdx.x] = vllm::silu(out[threadIdx.x]); }
"""
    assert error(src) == "test.cu:3:54: error: device function vllm::silu is declared but never defined"


def test_device_function_declared_before_its_definition_is_called() -> None:
    src = """
__device__ float twice(float x);
__global__ void k(float* a) { a[threadIdx.x] = twice(a[threadIdx.x]); }
__device__ float twice(float x) { return 2.0f * x; }
"""
    r = run(src, "k", {"a": (torch.tensor([1.0, 2.5]), F32)}, block=2)
    assert out(r, "a").tolist() == [2.0, 5.0]


# -- 7. template arguments: local constexpr values, suffixed integers ----------------------------

VEC_SUM = """
template <int N>
__device__ float sum_n(const float* x) { float s = 0.0f; for (int i = 0; i < N; ++i) s += x[i]; return s; }
template <unsigned K>
__global__ void partial_sums(float* out, const float* in) {
    constexpr int kVec = 4;
    constexpr int kTwice = kVec * 2;
    out[0] = sum_n<kVec>(in);
    out[1] = sum_n<kTwice>(in);
    out[2] = sum_n<K>(in);
}
"""


def test_local_constexpr_values_and_a_suffixed_kernel_template_argument() -> None:
    m = parse_cuda(text=VEC_SUM, file="test.cu", kernel="partial_sums<3U>")
    verify_module(m)
    assert {f.name for f in m.functions} == {"partial_sums<3>", "sum_n<4>", "sum_n<8>", "sum_n<3>"}
    x = torch.arange(8, dtype=torch.float32)
    args: dict[str, KernelArg] = {"out": GlobalBuffer("out", torch.zeros(3), F32), "in": GlobalBuffer("in", x, F32)}
    r = simulate(m, "partial_sums<3>", LaunchConfig((1, 1, 1), (1, 1, 1), 0), args)
    assert r.buffers["out"].tolist() == [6.0, 28.0, 3.0]


@pytest.mark.parametrize("spelled", ["0x10", "16u", "16ULL", "16"])
def test_integer_template_arguments_are_read_as_cuda_literals(spelled: str) -> None:
    m = parse_cuda(text=VEC_SUM, file="test.cu", kernel="partial_sums", template_args={"K": spelled})
    assert "sum_n<16>" in {f.name for f in m.functions}


# -- 7. unnamed tag parameters --------------------------------------------------------------------

LLMC_BIAS = """
#include <type_traits>
template <int N>
__device__ float scaled(float x, std::integral_constant<int, 2>) { return N * 2.0f * x; }
template <typename OutFloat, bool UseAuxBuffer>
__global__ void bias_kernel(OutFloat* dbias, const float* dout, int OC, std::bool_constant<UseAuxBuffer>) {
    int oc = threadIdx.x;
    if (oc >= OC) return;
    float v = scaled<3>(dout[oc], std::integral_constant<int, 2>{});
    if constexpr (UseAuxBuffer) {
        dbias[oc] = v;
    } else {
        dbias[oc] += v;
    }
}
"""


@pytest.mark.parametrize("aux", [True, False])
def test_bool_constant_tag_parameter_of_a_kernel_has_no_ir_parameter(aux: bool) -> None:
    targs = {"OutFloat": "float", "UseAuxBuffer": "true" if aux else "false"}
    m = parse_cuda(text=LLMC_BIAS, file="test.cu", kernel="bias_kernel", template_args=targs)
    verify_module(m)
    kernel = m.functions[-1]
    assert [p.name for p in kernel.params] == ["dbias", "dout", "OC"]
    dout = torch.tensor([1.0, 2.0, 3.0])
    args: dict[str, KernelArg] = {
        "dbias": GlobalBuffer("dbias", torch.ones(3), F32),
        "dout": GlobalBuffer("dout", dout, F32),
        "OC": 3,
    }
    r = simulate(m, kernel.name, LaunchConfig((1, 1, 1), (4, 1, 1), 0), args)
    assert r.buffers["dbias"].tolist() == (6 * dout + (0 if aux else 1)).tolist()


def test_tag_dispatch_picks_the_overload_of_the_tag_type() -> None:
    src = """
#include <type_traits>
__device__ float pick(float x, std::true_type) { return x; }
__device__ float pick(float x, std::false_type) { return -x; }
template <bool Neg>
__device__ float apply(float x) { return pick(x, std::bool_constant<!Neg>{}); }
__global__ void k(float* a) {
    a[1] = pick(a[0], std::false_type{});
    a[2] = pick(a[0], std::bool_constant<true>{});
    a[3] = apply<true>(a[0]);
}
"""
    r = run(src, "k", {"a": (torch.tensor([2.0, 0.0, 0.0, 0.0]), F32)}, block=1)
    assert out(r, "a").tolist() == [2.0, -2.0, 2.0, -2.0]


# -- 5. parameter structs of pointers -------------------------------------------------------------

VLLM_PARAMS = """
template <typename T>
struct RotaryParams {
    const T* __restrict__ query;
    T* out;
    const float* cos_sin;
    int head_size;
    float scale;
};
template <typename T>
__global__ void rotary(RotaryParams<T> params) {
    int i = threadIdx.x;
    if (i < params.head_size) {
        params.out[i] = params.query[i] * params.cos_sin[i] * params.scale;
    }
}
"""


def test_parameter_struct_of_pointers_is_one_ir_parameter_per_member() -> None:
    m = parse_cuda(text=VLLM_PARAMS, file="test.cu", kernel="rotary", template_args={"T": "float"})
    verify_module(m)
    kernel = m.functions[-1]
    assert [(p.name, str(p.type)) for p in kernel.params] == [
        ("params.query", "ptr<global const restrict f32>"),
        ("params.out", "ptr<global f32>"),
        ("params.cos_sin", "ptr<global const f32>"),
        ("params.head_size", "i32"),
        ("params.scale", "f32"),
    ]
    q, cs = torch.arange(8, dtype=torch.float32), torch.full((8,), 0.5)
    args: dict[str, KernelArg] = {
        "params.query": GlobalBuffer("params.query", q, F32),
        "params.out": GlobalBuffer("params.out", torch.zeros(8), F32),
        "params.cos_sin": GlobalBuffer("params.cos_sin", cs, F32),
        "params.head_size": 6,
        "params.scale": 4.0,
    }
    r = simulate(m, kernel.name, LaunchConfig((1, 1, 1), (8, 1, 1), 0), args)
    assert r.buffers["params.out"].tolist() == [*(2 * q[:6]).tolist(), 0.0, 0.0]


def test_parameter_struct_printed_ir_reads_back() -> None:
    m = parse_cuda(text=VLLM_PARAMS, file="test.cu", kernel="rotary", template_args={"T": "float"})
    text = print_module(m)
    assert print_module(parse_module(text, file="t.ir")) == text


# -- 7. enable_if-selected (SFINAE) kernel overloads and device functions --------------------------

SFINAE_KERNELS = """
#include <type_traits>
template <int N, typename = std::enable_if_t<(N % 2 == 0)>>
__device__ float half_or_not(float x) { return x / 2.0f; }
template <int N, typename = std::enable_if_t<(N % 2 != 0)>, typename = void>
__device__ float half_or_not(float x) { return x; }

template <typename T, int VEC, typename std::enable_if<(VEC > 1), int>::type = 0>
__global__ void copy_vec(T* out, const T* in) {
    for (int k = 0; k < VEC; ++k) out[threadIdx.x * VEC + k] = half_or_not<VEC>(in[threadIdx.x * VEC + k]);
}
template <typename T, int VEC, std::enable_if_t<(VEC <= 1), int> = 0>
__global__ void copy_vec(T* out, const T* in) {
    out[threadIdx.x] = half_or_not<VEC>(in[threadIdx.x]) + 100.0f;
}
"""


@pytest.mark.parametrize(("vec", "expected"), [(2, [0.5, 1.0, 1.5, 2.0]), (1, [101.0, 102.0, 103.0, 104.0])])
def test_enable_if_selects_the_kernel_overload_and_the_device_function(vec: int, expected: list[float]) -> None:
    m = parse_cuda(text=SFINAE_KERNELS, file="test.cu", kernel=f"copy_vec<float, {vec}>")
    verify_module(m)
    args: dict[str, KernelArg] = {
        "out": GlobalBuffer("out", torch.zeros(4), F32),
        "in": GlobalBuffer("in", torch.tensor([1.0, 2.0, 3.0, 4.0]), F32),
    }
    r = simulate(m, m.functions[-1].name, LaunchConfig((1, 1, 1), (4 // vec, 1, 1), 0), args)
    assert r.buffers["out"].tolist() == expected


def test_kernel_overloads_without_a_condition_that_chooses_stay_an_error() -> None:
    src = """
template <int N> __global__ void k(float* a) { a[0] = N; }
template <int N> __global__ void k(float* a) { a[1] = N; }
"""
    with pytest.raises(LarkcError, match="unsupported overloaded __global__ function: k"):
        parse_cuda(text=src, file="test.cu", kernel="k<1>")


# -- 3. member function templates -----------------------------------------------------------------

MEMBER_TEMPLATE = """
template <typename T, int N>
struct alignas(16) Vec {
    T v[N];
    template <int K>
    __device__ T get() const { return v[K]; }
    template <typename U>
    __device__ void set_all(U x) { for (int i = 0; i < N; ++i) v[i] = static_cast<T>(x); }
};
template <typename T>
__global__ void pick(T* out, const T* in) {
    Vec<T, 4> a;
    a.template set_all<int>(7);
    Vec<T, 4> b = *reinterpret_cast<const Vec<T, 4>*>(in);
    out[0] = b.get<3>() + b.template get<0>() + a.get<2>();
}
"""


def test_member_function_templates_with_explicit_arguments() -> None:
    m = parse_cuda(text=MEMBER_TEMPLATE, file="test.cu", kernel="pick", template_args={"T": "float"})
    verify_module(m)
    names = {f.name for f in m.functions}
    assert {"Vec<float, 4>::get<3>", "Vec<float, 4>::get<0>", "Vec<float, 4>::set_all<int>"} <= names
    args: dict[str, KernelArg] = {
        "out": GlobalBuffer("out", torch.zeros(1), F32),
        "in": GlobalBuffer("in", torch.tensor([1.0, 2.0, 3.0, 4.0]), F32),
    }
    r = simulate(m, "pick<float>", LaunchConfig((1, 1, 1), (1, 1, 1), 0), args)
    assert r.buffers["out"].tolist() == [12.0]
