"""Expression- and library-level CUDA constructs, each on a snippet shaped like a real kernel.

Each construct is lowered (and the IR verified) and, where the semantics matter, simulated and
compared with values computed in Python or torch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda

from larkc.ir import print_module


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- 1. atomicInc / atomicDec -------------------------------------------------------------------------

RING_PUSH = """
__global__ void ring_push(unsigned int* head, float* ring, const float* x, unsigned int capacity) {
    unsigned int slot = atomicInc(head, capacity - 1);
    ring[slot] = x[threadIdx.x];
}
"""


def test_atomic_inc_hands_out_ring_slots_and_wraps(cuda: Cuda) -> None:
    x = torch.arange(4, dtype=torch.float32) + 0.5
    head = torch.tensor([2], dtype=torch.uint32)
    r = cuda.run(
        RING_PUSH, "ring_push", block=4, buffers={"head": head, "ring": ("f32", 4), "x": x}, scalars={"capacity": 4}
    )
    assert r.ok
    # threads take slots in thread order: 2, 3, 0, 1
    want, h = [0.0] * 4, 2
    for t in range(4):
        want[h] = float(x[t])
        h = 0 if h >= 3 else h + 1
    assert r.buffers["ring"].tolist() == want
    assert r.buffers["head"].tolist() == [h]
    assert want == [2.5, 3.5, 0.5, 1.5] and h == 2


LAST_BLOCK = """
__global__ void last_block_done(unsigned int* remaining, int* last, unsigned int* wrapped) {
    __shared__ unsigned int before;
    if (threadIdx.x == 0) {
        before = atomicDec(remaining, 0xffffffffu);
        atomicDec(wrapped, 3u);
    }
    __syncthreads();
    if (threadIdx.x == 0 && before == 1) {
        *last = blockIdx.x;
    }
}
"""


def test_atomic_dec_counts_down_and_wraps_from_zero_to_the_bound(cuda: Cuda) -> None:
    remaining = torch.tensor([5], dtype=torch.uint32)
    wrapped = torch.tensor([1], dtype=torch.uint32)
    last = torch.tensor([-1], dtype=torch.int32)
    r = cuda.run(
        LAST_BLOCK,
        "last_block_done",
        block=4,
        grid=5,
        buffers={"remaining": remaining, "last": last, "wrapped": wrapped},
    )
    assert r.ok
    assert r.buffers["remaining"].tolist() == [0]
    assert r.buffers["last"].tolist() == [4]
    w = 1
    for _ in range(5):
        w = 3 if w == 0 or w > 3 else w - 1
    assert r.buffers["wrapped"].tolist() == [w]  # 1 -> 0 -> 3 -> 2 -> 1 -> 0


def test_atomic_inc_prints_as_its_own_atomic(cuda: Cuda) -> None:
    text = print_module(cuda.lower(RING_PUSH))
    assert "atomic.inc [%head]" in text


def test_atomic_inc_on_a_signed_counter_is_a_type_error(cuda: Cuda) -> None:
    src = "__global__ void k(int* c) { atomicInc(c, 10u); }\n"
    assert cuda.error(src) == "1:39: error: atomicInc needs an unsigned int pointer, got ptr<global i32>"


# -- 2. 24-bit and high-half multiplies, printf ---------------------------------------------------------

MUL_INTRINSICS = """
__global__ void index_math(const int* a, const int* b, int* lo24, unsigned int* ulo24, int* hi, unsigned int* uhi) {
    int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    lo24[i] = __mul24(a[i], b[i]);
    ulo24[i] = __umul24((unsigned int)a[i], (unsigned int)b[i]);
    hi[i] = __mulhi(a[i], b[i]);
    uhi[i] = __umulhi((unsigned int)a[i], (unsigned int)b[i]);
}
"""


def _wrap32(x: int, signed: bool) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if signed and x >= 1 << 31 else x


def _sext24(x: int) -> int:
    x &= 0xFFFFFF
    return x - (1 << 24) if x >= 1 << 23 else x


def test_mul24_and_mulhi_match_their_cuda_definitions(cuda: Cuda) -> None:
    a = [3, -7, 0x00FFFFFF, 0x7FFFFFFF, -(2**31), 0x00812345, 123456789, -1]
    b = [5, 11, 2, 0x7FFFFFFF, -(2**31), 0x00800001, -987654321, -1]
    n = len(a)
    r = cuda.run(
        MUL_INTRINSICS,
        "index_math",
        block=4,
        grid=2,
        buffers={
            "a": torch.tensor(a, dtype=torch.int32),
            "b": torch.tensor(b, dtype=torch.int32),
            "lo24": ("i32", n),
            "ulo24": ("u32", n),
            "hi": ("i32", n),
            "uhi": ("u32", n),
        },
    )
    assert r.ok
    ua = [x & 0xFFFFFFFF for x in a]
    ub = [x & 0xFFFFFFFF for x in b]
    assert r.buffers["lo24"].tolist() == [_wrap32(_sext24(x) * _sext24(y), True) for x, y in zip(a, b, strict=True)]
    assert r.buffers["ulo24"].tolist() == [
        ((x & 0xFFFFFF) * (y & 0xFFFFFF)) & 0xFFFFFFFF for x, y in zip(ua, ub, strict=True)
    ]
    assert r.buffers["hi"].tolist() == [(x * y) >> 32 for x, y in zip(a, b, strict=True)]
    assert r.buffers["uhi"].tolist() == [(x * y) >> 32 for x, y in zip(ua, ub, strict=True)]


DEBUG_PRINT = """
__global__ void scale(float* out, const float* x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        printf("scale=%f n=%d first=%f\\n", s, n, x[0]);
    }
    int printed = printf("");
    if (i < n) out[i] = x[i] * s + printed;
}
"""


def test_printf_is_accepted_and_writes_nothing(cuda: Cuda) -> None:
    x = torch.randn(8)
    r = cuda.run(DEBUG_PRINT, "scale", block=8, buffers={"out": ("f32", 8), "x": x}, scalars={"s": 2.0, "n": 8})
    assert r.ok
    assert torch.equal(r.buffers["out"], x * 2.0)
    assert "printf" not in print_module(cuda.lower(DEBUG_PRINT))


# -- 4. members of vector array elements: y[i].x = v, y[i].x ----------------------------------------------

ROW_STATS = """
__global__ void row_stats(float2* stats, const float4* x, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = x[row].x + x[row].y + x[row].z + x[row].w;
    float mean = s / 4.0f;
    stats[row].x = mean;
    stats[row].y = 0.0f;
    stats[row].y += x[row].w - mean;
}
"""


def test_members_of_vector_elements_are_read_and_written_in_place(cuda: Cuda) -> None:
    x = torch.randn(6, 4)
    r = cuda.run(ROW_STATS, "row_stats", block=8, buffers={"stats": ("f32", 12), "x": x.flatten()}, scalars={"rows": 6})
    assert r.ok
    stats = r.buffers["stats"].reshape(6, 2)
    mean = (((x[:, 0] + x[:, 1]) + x[:, 2]) + x[:, 3]) / 4.0
    assert torch.equal(stats[:, 0], mean)
    assert torch.equal(stats[:, 1], x[:, 3] - mean)


LANE_SPLIT = """
__global__ void split_lanes(float2* pairs, const float* x) {
    int t = threadIdx.x;
    if (t % 2 == 0) pairs[t / 2].x = x[t];
    else pairs[t / 2].y = x[t];
}
"""


def test_threads_writing_different_members_of_one_element_do_not_race(cuda: Cuda) -> None:
    x = torch.randn(8)
    r = cuda.run(LANE_SPLIT, "split_lanes", block=8, buffers={"pairs": ("f32", 8), "x": x})
    assert r.ok, r.diagnoses
    assert torch.equal(r.buffers["pairs"], x)


# -- 5. the address of a local, reinterpreted -------------------------------------------------------------

PUN_LOCALS = """
__global__ void pun_locals(float* out, const float4* x, unsigned int* bits, unsigned int* packed) {
    int i = threadIdx.x;
    float4 v = x[i];
    float2 lo = *(float2*)&v;
    float2 hi = reinterpret_cast<float2*>(&v)[1];
    reinterpret_cast<float*>(&v)[3] = lo.x + hi.x;
    float m = v.w;
    bits[i] = *reinterpret_cast<unsigned int*>(&m) >> 31;
    __half2 h = __floats2half2_rn(lo.x, lo.y);
    packed[i] = *(unsigned int*)&h;
    out[2 * i] = lo.y * hi.y;
    out[2 * i + 1] = v.w;
}
"""


def test_locals_reinterpreted_through_their_address_are_bitcasts(cuda: Cuda) -> None:
    x = torch.randn(4, 4)
    r = cuda.run(
        PUN_LOCALS,
        "pun_locals",
        block=4,
        buffers={"out": ("f32", 8), "x": x.flatten(), "bits": ("u32", 4), "packed": ("u32", 4)},
    )
    assert r.ok
    w = x[:, 0] + x[:, 2]
    out = r.buffers["out"].reshape(4, 2)
    assert torch.equal(out[:, 0], x[:, 1] * x[:, 3])
    assert torch.equal(out[:, 1], w)
    assert r.buffers["bits"].tolist() == [int(v < 0) for v in w.tolist()]
    halves = x[:, :2].to(torch.float16).contiguous().view(torch.int16).to(torch.int64) & 0xFFFF
    assert r.buffers["packed"].to(torch.int64).tolist() == (halves[:, 0] | (halves[:, 1] << 16)).tolist()


def test_the_address_of_a_local_kept_in_a_pointer_is_a_view_of_it(cuda: Cuda) -> None:
    src = (
        "__global__ void k(float* a) {\n"
        "    float4 v = {1.f, 2.f, 3.f, 4.f};\n"
        "    float* p = (float*)&v;\n"
        "    a[0] = p[1];\n"
        "}\n"
    )
    r = cuda.run(src, "k", block=1, buffers={"a": ("f32", 1)})
    assert r.ok and r.buffers["a"].tolist() == [2.0]


def test_a_write_through_a_narrower_view_of_other_bits_is_rejected(cuda: Cuda) -> None:
    src = (
        "__global__ void k(unsigned int* a) {\n"
        "    float f = 1.f;\n"
        "    ((__half*)&f)[1] = __float2half(0.f);\n"
        "    a[0] = *(unsigned int*)&f;\n"
        "}\n"
    )
    assert cuda.error(src) == "3:5: error: assignment to something that is not a variable or memory"


# -- 6. fp8 -------------------------------------------------------------------------------------------------

FP8_BYTES = """
__global__ void copy_fp8_bytes(__nv_fp8_storage_t* out, const __nv_fp8x4_storage_t* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_fp8x4_storage_t four = in[i];
        out[i] = (__nv_fp8_storage_t)(four >> 8);
    }
}
"""


def test_fp8_storage_types_are_their_unsigned_bits(cuda: Cuda) -> None:
    words = torch.tensor([0x11223344, 0xA0B0C0D0, 0x7F00FF01], dtype=torch.uint32)
    r = cuda.run(FP8_BYTES, "copy_fp8_bytes", block=4, buffers={"out": ("u8", 3), "in": words}, scalars={"n": 3})
    assert r.ok
    assert r.buffers["out"].tolist() == [(w >> 8) & 0xFF for w in words.tolist()]


@pytest.mark.parametrize(("name", "packed"), [("__nv_fp8x2_e4m3", "f8e4m3x2"), ("__nv_fp8x4_e5m2", "f8e5m2x4")])
def test_a_packed_fp8_value_built_from_a_scalar_is_a_located_error(cuda: Cuda, name: str, packed: str) -> None:
    # cuda_fp8.h builds its packed classes from float2/float4 (and a few other vectors), never from a float
    src = f"__global__ void k({name}* out, const float* x) {{ out[0] = {name}(x[0]); }}\n"
    assert cuda.error(src) == f"1:{len(name) + 53}: error: cannot convert f32 to {packed}"


# -- 7. inline PTX idioms -------------------------------------------------------------------------------

PTX_IDIOMS = """
__device__ __forceinline__ unsigned int lane_id() {
    unsigned int lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__device__ __forceinline__ float load_nc(const float* p) {
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void ptx_idioms(const float* x, unsigned short* half_bits, float* back,
                           unsigned int* swapped, unsigned int* lanes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = load_nc(x + i);
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    half_bits[i] = h;
    asm("cvt.f32.f16 %0, %1;" : "=f"(back[i]) : "h"(h));
    unsigned int lane = lane_id();
    unsigned int other;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;"
                 : "=r"(other) : "r"(lane * 10u), "r"(3), "r"(0x1f), "r"(0xffffffffu));
    swapped[i] = other;
    lanes[i] = lane;
}
"""


def test_recognised_ptx_idioms_lower_to_their_meaning(cuda: Cuda) -> None:
    x = torch.randn(64) * 100
    r = cuda.run(
        PTX_IDIOMS,
        "ptx_idioms",
        block=(64),
        buffers={"x": x, "half_bits": ("u16", 64), "back": ("f32", 64), "swapped": ("u32", 64), "lanes": ("u32", 64)},
    )
    assert r.ok
    halves = x.to(torch.float16)
    assert (
        r.buffers["half_bits"].to(torch.int64).tolist() == (halves.view(torch.int16).to(torch.int64) & 0xFFFF).tolist()
    )
    assert torch.equal(r.buffers["back"], halves.to(torch.float32))
    assert r.buffers["lanes"].tolist() == [t % 32 for t in range(64)]
    assert r.buffers["swapped"].tolist() == [((t % 32) ^ 3) * 10 for t in range(64)]


def test_other_inline_asm_is_unsupported_showing_the_asm_string(cuda: Cuda) -> None:
    src = (
        "__global__ void k(float* a) {\n"
        "    float r;\n"
        '    asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(a[0]));\n'
        "    a[0] = r;\n"
        "}\n"
    )
    assert cuda.error(src) == (
        '3:9: error: unsupported inline asm (not one of the recognised PTX idioms): "sin.approx.f32 %0, %1;"'
    )


def test_a_recognised_idiom_with_other_operands_is_unsupported(cuda: Cuda) -> None:
    src = (
        "__global__ void k(double* a) {\n"
        "    double r;\n"
        '    asm("ld.global.nc.f32 %0, [%1];" : "=d"(r) : "l"(a));\n'
        "    a[0] = r;\n"
        "}\n"
    )
    assert cuda.error(src).startswith("3:5: error: unsupported inline asm operands other than ('=f',) : ('l',)")


# -- 8. GPUVerify annotations -----------------------------------------------------------------------------

TREE_SUM = """
__global__ void tree_sum(int* data) {
    unsigned int tid = threadIdx.x;
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        __invariant(s < blockDim.x);
        __invariant((s & (s - 1)) == 0);
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    __assert(tid < blockDim.x);
}
"""


def test_gpuverify_invariants_and_asserts_hold_on_a_power_of_two_block(cuda: Cuda) -> None:
    data = torch.arange(8, dtype=torch.int32) * 3
    r = cuda.run(TREE_SUM, "tree_sum", block=8, buffers={"data": data.clone()})
    assert r.ok, r.diagnoses
    assert r.buffers["data"][0].item() == int(data.sum())
    assert print_module(cuda.lower(TREE_SUM)).count("assert ") == 3


def test_a_loop_invariant_that_fails_at_an_iteration_head_is_an_assert_diagnosis(cuda: Cuda) -> None:
    r = cuda.run(TREE_SUM, "tree_sum", block=6, buffers={"data": torch.zeros(6, dtype=torch.int32)})
    assert not r.ok
    assert {d.kind.value for d in r.diagnoses} == {"assert"}
    assert all(d.span is not None and d.span.line == 6 for d in r.diagnoses)  # s = 3 is not a power of two


def test_an_invariant_outside_a_loop_body_is_rejected(cuda: Cuda) -> None:
    src = "__global__ void k(int* a) {\n    __invariant(a != 0);\n}\n"
    assert (
        cuda.error(src)
        == "2:5: error: unsupported __invariant other than as a statement of a loop body or in its condition: "
        "__invariant(a != 0)"
    )


# (``__requires``/``__ensures`` and the functions used in them: tests/frontends/test_cuda_contracts.py)


# -- 3. comma expressions ---------------------------------------------------------------------------------

COMMA = """
__global__ void strided_pairs(float* out, const float* x, int n) {
    int i = threadIdx.x, j = 0;
    float acc = 0.0f, last = 0.0f;
    for (int k = i, m = n; k < m; k += blockDim.x, ++j) acc += x[k];
    int steps = (j++, j - 1);
    if ((last = x[i], last > 0.0f)) acc = (acc += 1.0f, acc * 2.0f);
    out[i] = acc + (float)steps;
}
"""


def test_comma_expressions_evaluate_left_to_right_and_yield_the_right_operand(cuda: Cuda) -> None:
    n, block = 10, 4
    x = torch.randn(n)
    r = cuda.run(COMMA, "strided_pairs", block=block, buffers={"out": ("f32", block), "x": x}, scalars={"n": n})
    assert r.ok
    want = []
    for i in range(block):
        acc, steps = torch.tensor(0.0), 0
        for k in range(i, n, block):
            acc = acc + x[k]
            steps += 1
        if x[i] > 0:
            acc = (acc + 1.0) * 2.0
        want.append(float(acc + steps))
    assert r.buffers["out"].tolist() == want
