"""The CUDA frontend's lowering rules, one construct at a time, checked on the printed IR."""

from __future__ import annotations

import re

import pytest

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import print_module, verify_module
from larkc.ir.nodes import Function, FunctionKind, Load, Module, Shuffle, Store


def lower(src: str, **kw: object) -> Module:
    m = parse_cuda(text=src, file="test.cu", **kw)  # type: ignore[arg-type]
    verify_module(m)
    return m


def ir(src: str, **kw: object) -> str:
    return print_module(lower(src, **kw))


def body_lines(src: str, **kw: object) -> list[str]:
    """The statements of the last function, one per line, without indentation."""
    text = ir(src, **kw)
    last = text.strip().split("\n\n")[-1]
    return [line.strip() for line in last.splitlines()[1:-1]]


def error(src: str, **kw: object) -> str:
    with pytest.raises(LarkcError) as info:
        lower(src, **kw)
    return str(info.value)


# -- types and conversions -------------------------------------------------------------------------


def test_thread_index_arithmetic_is_unsigned_then_converted() -> None:
    lines = body_lines("__global__ void k(int* a) { int i = blockIdx.x * blockDim.x + threadIdx.x; a[i] = i; }")
    assert lines[0] == "let %i: i32 = convert<i32>(((blockIdx.x * blockDim.x) + threadIdx.x));"


def test_signed_unsigned_comparison_converts_to_unsigned() -> None:
    lines = body_lines("__global__ void k(int* a, unsigned s) { int t = a[0]; if (t < s) a[1] = 1; }")
    assert any("(convert<u32>(%t) < %s)" in line for line in lines)


def test_integer_promotion_of_short_and_bool() -> None:
    lines = body_lines("__global__ void k(int* a, short s, bool b) { a[0] = s + b; }")
    assert "store [ptradd(%a, 0:i32)], (convert<i32>(%s) + convert<i32>(%b));" in lines


def test_int64_and_size_t_offsets() -> None:
    lines = body_lines(
        "__global__ void k(const float* x, float* y, int d) { const float* r = x + (size_t)blockIdx.x * d;"
        " int64_t t = blockIdx.x; y[t] = r[0]; }"
    )
    assert lines[0] == ("let %r: ptr<global const f32> = ptradd(%x, (convert<u64>(blockIdx.x) * convert<u64>(%d)));")
    assert lines[1] == "let %t: i64 = convert<i64>(blockIdx.x);"


def test_literals_are_folded_into_the_operand_type() -> None:
    lines = body_lines("__global__ void k(float* a) { a[0] = a[1] * 2 + 0.5; }")
    # `a[1] * 2` is float; `+ 0.5` is double arithmetic, then converted back to float
    assert lines[-1] == "store [ptradd(%a, 0:i32)], convert<f32>((convert<f64>((%tmp.0 * 2.0:f32)) + 0.5:f64));"


def test_float_literal_is_rounded_to_float() -> None:
    lines = body_lines("__global__ void k(float* a) { a[0] = 0.1f; }")
    assert lines[-1] == "store [ptradd(%a, 0:i32)], 0.10000000149011612:f32;"


def test_hex_literal_types() -> None:
    lines = body_lines("__global__ void k(unsigned* a) { a[0] = 0xffffffff; a[1] = 0x7fffffff; }")
    assert lines == ["store [ptradd(%a, 0:i32)], 4294967295:u32;", "store [ptradd(%a, 1:i32)], 2147483647:u32;"]


def test_half_arithmetic_stays_half_and_mixes_to_float() -> None:
    src = "__global__ void k(__half* a, float* b) { __half h = a[0] * a[1]; b[0] = a[0] * 2.0f; a[2] = h; }"
    lines = body_lines(src)
    assert "let %h: f16 = (%tmp.0 * %tmp.1);" in lines
    assert any(line.startswith("store [ptradd(%b, 0:i32)], (convert<f32>(%tmp.2) * 2.0:f32)") for line in lines)


def test_conversion_intrinsics() -> None:
    src = (
        "__global__ void k(const __nv_bfloat16* a, int* b, float* c) {"
        " c[0] = __bfloat162float(a[0]); b[0] = __float2int_rn(c[1]); b[1] = __float_as_int(c[2]); }"
    )
    text = ir(src)
    assert "convert<f32>(%tmp.0)" in text
    assert "convert<i32>(rint(%tmp.1))" in text
    assert "bitcast<i32>(%tmp.2)" in text


# -- memory ----------------------------------------------------------------------------------------


def test_every_read_of_memory_is_a_load_before_the_statement() -> None:
    m = lower("__global__ void k(const float* x, float* y) { y[0] = x[0] + x[1]; }")
    body = m.functions[0].body
    assert [type(s).__name__ for s in body] == ["Decl", "Load", "Decl", "Load", "Store"]
    assert isinstance(body[-1], Store)


def test_short_circuit_guards_the_load() -> None:
    lines = body_lines(
        "__global__ void k(const float* x, int* y, int n) { int i = y[0]; if (i < n && x[i] > 0) y[1] = 1; }"
    )
    # the load of x[i] happens only under `i < n`
    joined = "\n".join(lines)
    assert re.search(r"if %tmp\.\d+ \{\n.*let %tmp\.\d+: f32;\n.*= load \[ptradd\(%x, %i\)\];", joined)


def test_ternary_with_loads_becomes_if() -> None:
    lines = body_lines(
        "__global__ void k(const float* x, float* y, int n) { int t = threadIdx.x; y[t] = t < n ? x[t] : 0.f; }"
    )
    assert "if (%t < %n) {" in lines and "} else {" in lines


def test_pure_ternary_is_a_select() -> None:
    lines = body_lines("__global__ void k(float* y, int n) { int t = threadIdx.x; y[t] = t < n ? 1.f : 0.f; }")
    assert lines[-1] == "store [ptradd(%y, %t)], select((%t < %n), 1.0:f32, 0.0:f32);"


def test_loop_condition_reading_memory_is_evaluated_every_iteration() -> None:
    lines = body_lines("__global__ void k(const float* x, int* c) { int i = 0; while (x[i] > 0) i++; c[0] = i; }")
    text = "\n".join(lines)
    assert "for (;;) {" in text and "break;" in text


def test_shared_arrays_are_flattened_row_major() -> None:
    src = (
        "__global__ void k(float* o) { __shared__ float t[32][33];"
        " t[threadIdx.y][threadIdx.x] = 1.0f; __syncthreads(); o[0] = t[1][2]; }"
    )
    lines = body_lines(src)
    assert lines[0] == "shared %t: [1056 x f32];"
    assert "store [ptradd(ptradd(%t, (threadIdx.y * 33:u32)), threadIdx.x)], 1.0:f32;" in lines
    assert "barrier.block;" in lines


def test_extern_shared_and_reinterpretation() -> None:
    src = (
        "__global__ void k(float* o) { extern __shared__ char smem[];"
        " float* s = reinterpret_cast<float*>(smem); o[0] = s[1]; }"
    )
    lines = body_lines(src)
    assert lines[0] == "shared %smem: [? x i8];"
    assert lines[1] == "let %s: ptr<shared f32> = bitcast<ptr<shared f32>>(%smem);"


def test_shared_scalar_is_a_one_element_array() -> None:
    lines = body_lines(
        "__global__ void k(float* o) { __shared__ float m; if (threadIdx.x == 0) m = o[0]; __syncthreads(); o[1] = m; }"
    )
    assert lines[0] == "shared %m: [1 x f32];"
    assert any(line == "store [%m], %tmp.0;" for line in lines)


def test_local_array_initializer_zero_fills() -> None:
    lines = body_lines("__global__ void k(float* o) { float acc[3] = {1.f}; o[0] = acc[2]; }")
    assert lines[:4] == [
        "local %acc: [3 x f32];",
        "store [ptradd(%acc, 0:i32)], 1.0:f32;",
        "store [ptradd(%acc, 1:i32)], 0.0:f32;",
        "store [ptradd(%acc, 2:i32)], 0.0:f32;",
    ]


def test_vector_loads_lanes_and_stores() -> None:
    src = (
        "__global__ void k(const float* x, float* y) { float4 v = reinterpret_cast<const float4*>(x)[threadIdx.x];"
        " v.y += v.w; reinterpret_cast<float4*>(y)[threadIdx.x] = v; }"
    )
    lines = body_lines(src)
    assert "%tmp.0 = load [ptradd(bitcast<ptr<global const f32x4>>(%x), threadIdx.x)];" in lines
    assert "%v = insert(%v, 1:i32, (extract(%v, 1:i32) + extract(%v, 3:i32)));" in lines


def test_struct_as_packed_vector() -> None:
    src = """
    template <typename T, int N> struct alignas(sizeof(T) * N) Vec { T val[N]; };
    __global__ void k(const __half* x, float* y) {
      Vec<__half, 8> p = reinterpret_cast<const Vec<__half, 8>*>(x)[0];
      float s = 0.f;
      for (int i = 0; i < 8; ++i) s += __half2float(p.val[i]);
      y[0] = s;
    }"""
    text = ir(src)
    assert "let %p: f16x8 = %tmp.0;" in text
    assert "bitcast<ptr<global const f16x8>>(%x)" in text
    assert "extract(%p, %i)" in text


def test_const_pointer_store_is_an_error() -> None:
    assert "assignment through a pointer to const" in error("__global__ void k(const float* x) { x[0] = 1.f; }")


# -- control flow and calls ------------------------------------------------------------------------


def test_pragma_unroll_and_shadowing() -> None:
    src = (
        "__global__ void k(float* o) { int i = 1;\n#pragma unroll 4\n"
        " for (int i = 0; i < 8; ++i) o[i] = 0.f; o[i] = 1.f; }"
    )
    text = ir(src)
    assert "for (let %i.1: i32 = 0:i32; (%i.1 < 8:i32); %i.1 = (%i.1 + 1:i32)) unroll 4 {" in text
    assert "store [ptradd(%o, %i)], 1.0:f32;" in text


def test_early_return_break_continue_do_while() -> None:
    src = """__global__ void k(int* a, int n) {
      int i = threadIdx.x;
      if (i >= n) return;
      do { i--; if (i == 3) continue; if (i == 1) break; } while (i > 0);
      a[0] = i;
    }"""
    text = ir(src)
    for piece in ("return;", "continue;", "break;", "} while (%i > 0:i32);"):
        assert piece in text


def test_device_function_template_deduction_and_reference_parameter() -> None:
    src = """
    template <typename T> __device__ __forceinline__ T warp_sum(T v) {
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
      return v;
    }
    __device__ void acc(float& s, float v) { s += v; }
    __global__ void k(const float* x, float* y) {
      float s = 0.f;
      acc(s, x[threadIdx.x]);
      y[0] = warp_sum(s);
    }"""
    m = lower(src, kernel="k")
    names = [f.name for f in m.functions]
    assert names == ["acc", "warp_sum<float>", "k"]
    acc = m.function("acc")
    assert acc is not None and acc.params[0].by_ref
    ws = m.function("warp_sum<float>")
    assert ws is not None and any(isinstance(s, Shuffle) for f in [ws] for s in _walk(f))


def test_overloads_resolve_by_argument_type() -> None:
    src = """
    __device__ float to_float(float v) { return v; }
    __device__ float to_float(__half v) { return __half2float(v); }
    __global__ void k(const __half* h, const float* f, float* o) { o[0] = to_float(h[0]) + to_float(f[0]); }
    """
    m = lower(src, kernel="k")
    assert sorted(f.name for f in m.functions) == ["k", "to_float(f16)", "to_float(f32)"]


def test_ambiguous_overload_is_an_error() -> None:
    src = """
    __device__ float f(float x) { return x; }
    __device__ double f(double x) { return x; }
    __global__ void k(float* a, int n) { a[0] = f(n); }"""
    assert "ambiguous call of overloaded function f" in error(src)


def test_template_kernel_instantiation_by_name_and_position() -> None:
    src = "template <typename T, int B> __global__ void k(T* a) { a[threadIdx.x] = T(B); }"
    by_name = lower(src, kernel="k", template_args={"T": "float", "B": 4})
    by_pos = lower(src, kernel="k", template_args=("float", 4))
    assert by_name == by_pos
    assert by_name.functions[0].name == "k<float, 4>"
    assert "4.0:f32" in print_module(by_name)


def test_template_kernel_without_arguments_is_an_error() -> None:
    src = "template <int B> __global__ void k(float* a) { a[0] = B; }"
    assert "no value for template parameter B" in error(src, kernel="k")


def test_atomics_shuffles_votes() -> None:
    src = """__global__ void k(float* s, unsigned* m, int* c) {
      float v = s[threadIdx.x];
      v += __shfl_down_sync(0xffffffff, v, 1);
      unsigned b = __ballot_sync(0xffffffff, v > 0.f);
      atomicAdd(s, v);
      int old = atomicCAS(c, 0, 1);
      m[0] = b + old;
    }"""
    text = ir(src)
    assert "= shfl.down(4294967295:u32, %v, 1:i32, 32:i32);" in text
    assert "= vote.ballot(4294967295:u32, (%v > 0.0:f32));" in text
    assert "atomic.add [%s], %v;" in text
    assert "= atomic.cas [%c], 1:i32, compare 0:i32;" in text


def test_launch_bounds_and_constexpr() -> None:
    src = "constexpr int kThreads = 128; __global__ void __launch_bounds__(kThreads) k(float* a) { a[0] = kThreads; }"
    f = lower(src).functions[0]
    assert f.max_threads == 128
    assert isinstance(f, Function) and f.kind is FunctionKind.KERNEL


def test_host_code_is_ignored() -> None:
    src = """__global__ void k(float* a) { a[0] = 1.f; }
    void launch(float* a) { k<<<1, 1>>>(a); }"""
    m = lower(src)
    assert [f.name for f in m.functions] == ["k"]


def test_macros_and_conditionals_reach_the_frontend() -> None:
    src = """#define BLOCK 64
    #define SQ(x) ((x) * (x))
    #ifdef FAST
    #define EXP __expf
    #else
    #define EXP expf
    #endif
    __global__ void k(float* a) { __shared__ float s[BLOCK]; s[0] = EXP(SQ(a[0])); a[1] = s[0]; }"""
    slow = ir(src)
    fast = ir(src, defines={"FAST": "1"})
    assert "shared %s: [64 x f32];" in slow
    # the macro argument is evaluated twice, as C does
    assert "exp((%tmp.0 * %tmp.1))" in slow
    assert "exp.approx(" in fast and "exp.approx(" not in slow


def test_error_spans_point_into_the_original_source_through_macros() -> None:
    src = "#define BAD(x) goto x\n__global__ void k(float* a) {\n  BAD(done);\n}\n"
    with pytest.raises(LarkcError) as info:
        lower(src)
    assert info.value.span is not None
    assert (info.value.span.line, info.value.span.col) == (3, 3)


def _walk(f: Function) -> list[object]:
    out: list[object] = []

    def go(stmts: tuple[object, ...]) -> None:
        for s in stmts:
            out.append(s)
            for attr in ("then_body", "else_body", "body", "init", "step"):
                sub = getattr(s, attr, None)
                if isinstance(sub, tuple):
                    go(sub)

    go(f.body)
    return out


def test_walk_helper_sees_nested_loads() -> None:
    m = lower("__global__ void k(const float* x, float* y) { for (int i = 0; i < 2; ++i) if (i) y[i] = x[i]; }")
    assert any(isinstance(s, Load) for s in _walk(m.functions[0]))


def test_syntax_errors_inside_host_functions_are_ignored() -> None:
    src = "void host() { int y = ; }\n__global__ void k(float* a) { a[0] = 1.f; }\n"
    assert [f.name for f in lower(src).functions] == ["k"]
    assert "syntax error" in error("__device__ void d() { int y = ; }\n")


def test_user_defined_operators_are_called_where_used() -> None:
    ops = "__device__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, 0.f, 0.f, 0.f); }\n"
    unused = ops + "__global__ void k(float* a) { a[0] = 1.f; }\n"
    assert [f.name for f in lower(unused).functions] == ["k"]
    used = ops + "__global__ void k(float4* a) { a[0] = a[1] + a[2]; }\n"
    assert sorted(f.name for f in lower(used).functions) == ["k", "operator+"]
    scalars = ops + "__global__ void k(float4* a) { a[0].x = a[1].x + a[2].x; }\n"  # C's own + on floats
    assert [f.name for f in lower(scalars).functions] == ["k"]
    named = "__device__ float operator_scale(float x) { return 2.f * x; }\n__global__ void operatorK(float* a) {}\n"
    assert sorted(f.name for f in lower(named).functions) == ["operatorK", "operator_scale"]  # not operators


def test_null_pointers_and_pointer_truth_values() -> None:
    src = """__global__ void k(float* out, float* mean, int n) {
      float* p = 0;
      if (mean != nullptr) mean[0] = 1.f;
      if (out) out[0] = 2.f;
      if (NULL == mean) out[1] = 3.f;
    }"""
    text = ir(src)
    assert "let %p: ptr<generic f32> = bitcast<ptr<generic f32>>(0:u64);" in text
    assert "if (%mean != bitcast<ptr<global f32>>(0:u64)) {" in text
    assert "if (%out != bitcast<ptr<global f32>>(0:u64)) {" in text
    assert "if (bitcast<ptr<global f32>>(0:u64) == %mean) {" in text


def test_globals_are_rejected_only_where_device_code_uses_them() -> None:
    src = "extern int host_counter;\n__device__ float g;\n__global__ void k(float* a) { a[0] = 1.f; }\n"
    assert [f.name for f in lower(src).functions] == ["k"]
    assert "unsupported global variable: g" in error("float g;\n__global__ void k(float* a) { a[0] = g; }")


def test_namespaces_extern_c_and_qualified_names() -> None:
    src = """namespace util { typedef float real; constexpr int kTwo = 2;
      __device__ float twice(float x) { return kTwo * x; }
      template <typename T> __device__ T thrice(T x) { return x + x + x; } }
    namespace cg = cooperative_groups;
    extern "C" __global__ void k(util::real* out, const float* in) {
      out[threadIdx.x] = util::twice(in[0]) + util::thrice<float>(1.0f) + ::tanhf(1.0f) + std::exp(in[1])
                         + util::kTwo;
    }"""
    m = lower(src)
    assert sorted(f.name for f in m.functions) == ["k", "util::thrice<float>", "util::twice"]
    text = print_module(m)
    assert "tanh(1.0:f32)" in text and "exp(%tmp." in text and "2.0:f32" in text


def test_if_constexpr_lowers_only_the_taken_branch() -> None:
    src = """template <typename T> __device__ float to_f(T v) {
      if constexpr (std::is_same<T, float>::value) { return v; }
      else if constexpr (sizeof(T) == 2) { return __half2float(v); }
      else { return v.x; }
    }
    template <typename T> __global__ void k(float* out, const T* in) { out[threadIdx.x] = to_f(in[threadIdx.x]); }"""
    as_float = print_module(lower(src, kernel="k", template_args=["float"]))
    as_half = print_module(lower(src, kernel="k", template_args=["__half"]))
    assert "return %v;" in as_float and "convert<f32>(%v)" not in as_float
    assert "return convert<f32>(%v);" in as_half


def test_constexpr_functions_fold_in_constant_contexts() -> None:
    src = """__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
    template <int N> __device__ float scale(float x) { return x * N; }
    __global__ void k(float* out) { float buf[cdiv(100, 32)]; buf[0] = scale<cdiv(7, 2)>(1.0f); out[0] = buf[0]; }"""
    text = ir(src)
    assert "local %buf: [4 x f32];" in text and '@"scale<4>"' in text


def test_default_arguments_and_explicit_specializations() -> None:
    src = """__device__ float scale(float x, float s = 2.0f, int n = 3) { return x * s * n; }
    template <typename T> __device__ T twice(T v) { return v + v; }
    template <> __device__ int twice<int>(int v) { return v << 1; }
    __global__ void k(float* out, int* o) { out[0] = scale(1.0f) + scale(1.0f, 4.0f); o[0] = twice(o[1]); }"""
    text = ir(src)
    assert "call @scale(1.0:f32, 2.0:f32, 3:i32)" in text and "call @scale(1.0:f32, 4.0:f32, 3:i32)" in text
    assert "return (%v << 1:i32);" in text  # the specialization, not the primary template


def test_function_pointer_and_enum_template_parameters() -> None:
    src = """template <typename T> __device__ T silu(const T& x) { return x / (1.0f + expf(-x)); }
    enum class Mode { kCopy = 0, kScale = 1 };
    template <typename scalar_t, scalar_t (*ACT)(const scalar_t&), Mode M>
    __global__ void k(scalar_t* out, const scalar_t* in) {
      out[threadIdx.x] = M == Mode::kScale ? ACT(in[threadIdx.x]) * 2 : in[threadIdx.x];
    }"""
    m = lower(src, kernel="k", template_args={"scalar_t": "float", "ACT": "silu<float>", "M": "Mode::kScale"})
    assert [f.name for f in m.functions] == ["silu<float>", "k<float, silu<float>, 1>"]
    assert "needs a device function" in error(src, kernel="k", template_args=["float", "3", "Mode::kCopy"])


def test_parenthesized_casts_and_template_errors_only_on_use() -> None:
    src = """typedef float real;
    template <class F, class... Args> float time_it(F f, Args... args) { return 0.0f; }
    using reduce_fn = float (*)(float);
    template <reduce_fn F> __device__ float apply(float v) { return F(v); }
    template <typename T> __global__ void k(T* out, const float* in) {
      out[threadIdx.x] = (T)(in[0] * 2) + (real)(in[1]);
    }"""
    text = ir(src, kernel="k", template_args=["float"])
    assert "convert<f32>" not in text.split("store")[-1]  # (T)(float) and (real)(float) are no-ops here
    assert "(%tmp.0 * 2.0:f32)" in text


def test_long_expressions_lower() -> None:
    terms = " + ".join(f"in[{i}]" for i in range(300))
    m = lower(f"__global__ void k(float* out, const float* in) {{ out[0] = {terms} + INT32_MAX; }}")
    assert sum(isinstance(s, Load) for s in m.functions[0].body) == 300


def test_namespaces_are_scopes_not_flattened() -> None:
    same_name = """namespace fast { __device__ float act(float x) { return x; } }
    namespace exact { __device__ float act(double x) { return (float)(x * 2.0); } }
    namespace ex = exact;
    __global__ void k(float* out, const float* in) { out[0] = exact::act(in[0]) + ex::act(in[1]); }"""
    text = ir(same_name, kernel="k")
    assert '@"exact::act"' in text and '@"fast::act"' not in text
    leak = """namespace approx { __device__ float exp(float x) { return 1.0f + x; } }
    __global__ void k(float* out, const float* in) { out[0] = exp(in[0]); }"""
    assert "approx" not in ir(leak, kernel="k")  # `exp` here is the library's, approx:: is not in scope
    inside = """namespace ops { __device__ float twice(float x) { return 2.f * x; }
      __global__ void k(float* out) { out[0] = twice(1.f); } }
    using namespace ops;
    __global__ void k2(float* out) { out[0] = twice(2.f); }"""
    assert [f.name for f in lower(inside, kernel="ops::k").functions] == ["ops::twice", "ops::k"]
    assert [f.name for f in lower(inside, kernel="k2").functions] == ["ops::twice", "k2"]


def test_bool_template_parameters_instantiations_and_constexpr_template_arguments() -> None:
    src = """constexpr int next_pow2(int n) { return n <= 1 ? 1 : 2 * next_pow2((n + 1) / 2); }
    template <int N> __device__ float red(float v) { return v * N; }
    template <typename T, bool kNeox = true>
    __global__ void k(T* out, const T* in) { out[0] = kNeox ? red<next_pow2(5)>(in[0]) : in[1]; }
    template <> __global__ void k<double, false>(double* out, const double* in) { out[0] = 1.0; }
    template __global__ void k<float, true>(float*, const float*);"""
    default = print_module(lower(src, kernel="k", template_args=["float"]))
    assert '@"red<8>"' in default and "select" not in default
    assert "if true {" in default
    special = print_module(lower(src, kernel="k", template_args=["double", "false"]))
    assert special.count("store") == 1 and "1.0:f64" in special


def test_runaway_constexpr_recursion_is_a_located_error() -> None:
    src = "constexpr int f(int n) { return f(n + 1); }\n__global__ void k(float* o) { float b[f(1)]; o[0] = b[0]; }"
    assert "unsupported array size that is not a positive constant: f(1)" in error(src)


def test_cooperative_groups_lower_to_indices_barriers_and_shuffles() -> None:
    src = """namespace cg = cooperative_groups;
    __global__ void k(float* out, unsigned* bits) {
      auto block = cg::this_thread_block();
      cg::thread_block_tile<16> t = cg::tiled_partition<16>(block);
      float v = out[block.thread_rank()];
      v = cg::reduce(t, v, cg::plus<float>());
      t.sync();
      bits[t.meta_group_rank()] = t.ballot(v > 0.f);
      block.sync();
    }"""
    text = ir(src)
    assert text.count("shfl.xor(") == 4  # log2(16) butterfly steps
    assert ", 16:i32);" in text  # shuffles of a 16-thread tile have width 16
    assert "barrier.warp((65535:u32 << " in text  # the tile's own lanes
    assert text.count("barrier.block;") == 1
    assert "vote.ballot(" in text and ">> " in text  # a tile's ballot numbers its lanes from 0


def test_unsupported_cooperative_groups_are_located_errors() -> None:
    grid = "namespace cg = cooperative_groups;\n__global__ void k(float* o) { auto g = cg::this_grid(); g.sync(); }"
    assert "unsupported grid-wide cooperative group (a barrier across all blocks" in error(grid)
    big = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(float* o) { auto t = cg::tiled_partition<64>(cg::this_thread_block()); }"
    )
    assert "tiled_partition size" in error(big)


def test_cast_lookalikes_are_read_as_binary_expressions() -> None:
    src = """__global__ void k(float* out, const float* x, int a, int b) {
      float v = x[0];
      out[0] = (v * (v)) - 1.0f;
      out[1] = (sqrtf(v * v)) - 1.0f;
      out[2] = (float)(a) - v;
    }"""
    lines = body_lines(src)
    assert "store [ptradd(%out, 0:i32)], ((%v * %v) - 1.0:f32);" in lines
    assert "store [ptradd(%out, 1:i32)], (sqrt((%v * %v)) - 1.0:f32);" in lines
    assert "store [ptradd(%out, 2:i32)], (convert<f32>(%a) - %v);" in lines


def test_cooperative_group_parameters_and_sync_function() -> None:
    src = """namespace cg = cooperative_groups;
    __device__ float tile_sum(float v, const cg::thread_block_tile<32>& tile) {
      for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);
      return v;
    }
    __device__ void publish(float v, float* out, const cg::thread_block& cta) {
      auto tile = cg::tiled_partition<32>(cta);
      float s = tile_sum(v, tile);
      if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = s;
      cg::sync(cta);
    }
    __global__ void k(const float* x, float* out) {
      cg::thread_block cta = cg::this_thread_block();
      publish(x[cta.thread_rank()], out, cta);
    }"""
    m = lower(src)
    assert [f.name for f in m.functions] == ["tile_sum[tile=tile32]", "publish[cta=block]", "k"]
    assert "barrier.block;" in print_module(m)


def test_template_arguments_may_call_constexpr_functions_of_local_constants() -> None:
    src = """constexpr int next_pow2(int n) { return n <= 1 ? 1 : 2 * next_pow2((n + 1) / 2); }
    template <int N> __device__ float scale(float x) { return x * N; }
    __global__ void k(float* out) { constexpr int lanes = 5; out[0] = scale<next_pow2(lanes)>(1.0f); }"""
    assert '@"scale<8>"' in ir(src)


def test_reparsed_expressions_keep_their_place_and_namespace() -> None:
    # the file starts with blank lines (a dropped #include) and the helpers live in a namespace
    src = """#include <climits>

namespace ops {
static constexpr int next_pow2(unsigned int num) {
  if (num <= 1) return num;
  return 1 << (CHAR_BIT * sizeof(num) - __builtin_clz(num - 1));
}
template <typename T, int N> __device__ T red(T v) { return v * N; }
template <typename T, int B = 1024> __device__ T block_red(T val) {
  constexpr int lanes = (B + 31) / 32;
  return red<T, next_pow2(lanes)>(val);
}
}
__global__ void k(float* out, const float* x) {
  float v = x[0];
  out[0] = ops::block_red<float, 256>(1.0f);
  out[1] = (v * (v)) - 1.0f;
  out[2] = v < (v * (v)) - 1.0f;  // `<` binds less tightly than `-`: the grouping is C's
}"""
    text = ir(src)
    assert '@"ops::red<float, 8>"' in text
    assert "store [ptradd(%out, 1:i32)], ((%v * %v) - 1.0:f32);" in text
    assert "store [ptradd(%out, 2:i32)], convert<f32>((%v < ((%v * %v) - 1.0:f32)));" in text


def test_cast_lookalikes_that_tree_sitter_groups_differently_are_errors() -> None:
    # C: (a + (v * v)) - 1; tree-sitter: a + ((v * (v)) -1): reading it in place would re-associate
    src = "__global__ void k(float* out, float a) { float v = a; out[0] = a + (v * (v)) - 1.0f; }"
    assert "expression tree-sitter misreads as a cast (add parentheses)" in error(src)


PACKED = """template <class T> struct alignas(16) Pack {
  Pack() = default;
  __device__ explicit Pack(int4 bits) { memcpy(&data, &bits, sizeof(bits)); }
  __device__ T& operator[](int i) { return data[i]; }
  __device__ int4 bits() const { int4 b; memcpy(&b, &data, sizeof(b)); return b; }
  __device__ void scale(T s) { for (int k = 0; k < size; ++k) data[k] *= s; }
  __device__ static Pack fill(T v) { Pack r; for (int k = 0; k < size; ++k) r.data[k] = v; return r; }
  static constexpr const size_t size = sizeof(int4) / sizeof(T);
  T data[size];
};
typedef Pack<float> f128;
"""


def test_struct_member_functions_constructors_and_static_members() -> None:
    src = (
        PACKED
        + """__global__ void k(float* out, const float* in) {
      f128 x = f128{*reinterpret_cast<const int4*>(in)};
      f128 y = Pack<float>::fill(1.0f);
      x.scale(2.0f);
      float buf[f128::size];
      buf[0] = x[0] + y[1];
      *reinterpret_cast<int4*>(out) = x.bits();
      out[4] = buf[0];
    }"""
    )
    m = lower(src)
    names = [f.name for f in m.functions]
    assert names == ["Pack<float>::Pack", "Pack<float>::fill", "Pack<float>::scale", "Pack<float>::bits", "k"]
    by_name = {f.name: f for f in m.functions}
    assert by_name["Pack<float>::scale"].params[0].by_ref  # a non-const member function changes `this`
    assert not by_name["Pack<float>::bits"].params[0].by_ref  # a const one takes it by value
    text = print_module(m)
    assert "%this = bitcast<f32x4>(%bits);" in text  # memcpy between whole values: a reinterpretation
    assert "local %buf: [4 x f32];" in text  # f128::size folds


def test_unusual_subscript_operators_are_rejected() -> None:
    src = """struct P { float v[4]; __device__ float& operator[](int i) { return v[(i + 1) % 4]; } };
    __global__ void k(float* out) { P p; p.v[0] = 1.f; out[0] = p[0]; }"""
    assert "operator[] other than" in error(src)


def test_pytorch_half_types_and_accumulation_traits() -> None:
    src = """template <typename scalar_t> __global__ void k(scalar_t* out, const scalar_t* in) {
      using opmath_t = at::opmath_type<scalar_t>;
      opmath_t acc = static_cast<opmath_t>(in[0]) * opmath_t(2);
      out[0] = static_cast<scalar_t>(acc);
    }"""
    text = ir(src, kernel="k", template_args=["c10::Half"])
    assert "let %acc: f32 = (convert<f32>(%tmp.0) * 2.0:f32);" in text
    assert "store [ptradd(%out, 0:i32)], convert<f16>(%acc);" in text
