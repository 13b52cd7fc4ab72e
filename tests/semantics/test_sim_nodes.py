"""Every node of the IR has a semantics in the simulator: small programs, one per family, with their results.

The programs are in the IR text form so that they can use every node (the CUDA frontend produces no
block-level code). ``test_the_programs_cover_every_node`` fails when a node class, or a member of an
enum that selects a statement's behaviour, appears in none of them: adding a node to the IR then
requires a program here, which in turn fails until the interpreter implements it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import typing

import pytest
import torch
from sim_helpers import Sim

from larkc.errors import PreconditionError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import nodes as n
from larkc.ir import parse_module

VEC = """
kernel @vec(%fo: ptr<global f32>, %io: ptr<global i32>) level thread {
  let %t: i32 = convert<i32>(threadIdx.x);
  let %v: f32x4 = vector<f32x4>(1.0:f32, 2.0:f32, 3.0:f32, 4.0:f32);
  %v = insert(%v, %t, 10.0:f32);
  let %e: f32 = (extract(%v, %t) + extract(%v, 3:i32));
  store [ptradd(%fo, %t)], select((%t > 1:i32), sqrt(%e), -(%e));
  let %bits: i32 = bitcast<i32>(1.0:f32);
  store [ptradd(%io, %t)], ((~(%t) & 255:i32) + select(!((%t == 0:i32)), (%bits >> 23:i32), min(%t, -5:i32)));
}
"""

FLOW = """
device @acc(&%s: i32, %x: i32) -> i32 level thread {
  %s = (%s + %x);
  if (%x > 2:i32) {
    return 100:i32;
  }
  return %x;
}

kernel @flow(%io: ptr<global i32>) level thread {
  let %t: i32 = convert<i32>(threadIdx.x);
  let %s: i32 = 0:i32;
  for (let %i: i32 = 0:i32; (%i < 10:i32); %i = (%i + 1:i32)) {
    if (%i == %t) {
      continue;
    }
    if (%i > (%t + 3:i32)) {
      break;
    }
    %s = (%s + %i);
  }
  let %w: i32 = 0:i32;
  while (%w < %t) {
    %w = (%w + 2:i32);
  }
  do {
    %w = (%w + 1:i32);
  } while (%w < 3:i32);
  let %r: i32;
  %r = call @acc(%s, %t);
  store [ptradd(%io, %t)], (((%s * 1000:i32) + (%w * 10:i32)) + %r);
}
"""

WARP = """
kernel @warp(%x: ptr<global const f32>, %fo: ptr<global f32>, %uo: ptr<global u32>) level thread {
  shared %s: [32 x f32];
  local %l: [2 x f32];
  let %t: i32 = convert<i32>(threadIdx.x);
  let %v: f32;
  %v = load [ptradd(%x, %t)];
  store [ptradd(%l, 1:i32)], %v;
  let %lv: f32;
  %lv = load [ptradd(%l, 1:i32)];
  store [ptradd(%s, %t)], %lv;
  barrier.block;
  fence.block;
  let %n: f32;
  %n = load [ptradd(%s, ((%t + 1:i32) % 32:i32))];
  barrier.warp(4294967295:u32);
  fence.device;
  fence.system;
  let %a: f32;
  %a = shfl.up(4294967295:u32, %n, 1:i32, 32:i32);
  let %b: f32;
  %b = shfl.down(4294967295:u32, %n, 1:i32, 32:i32);
  let %c: f32;
  %c = shfl.idx(4294967295:u32, %n, 0:i32, 32:i32);
  let %d: f32;
  %d = shfl.xor(4294967295:u32, %n, 1:i32, 32:i32);
  store [ptradd(%fo, %t)], (((%a + %b) + %c) + %d);
  let %bal: u32;
  %bal = vote.ballot(4294967295:u32, (%t < 3:i32));
  let %any: i32;
  %any = vote.any(4294967295:u32, (%t == 5:i32));
  let %all: i32;
  %all = vote.all(4294967295:u32, (%t < 31:i32));
  store [ptradd(%uo, %t)], ((%bal + convert<u32>((%any * 16:i32))) + convert<u32>((%all * 32:i32)));
}
"""

ATOM = """
kernel @atom(%io: ptr<global i32>, %fo: ptr<global f32>, %old: ptr<global i32>, %uo: ptr<global u32>) level thread {
  let %t: i32 = convert<i32>(threadIdx.x);
  atomic.add [%io], 1:i32;
  atomic.sub [ptradd(%io, 1:i32)], 2:i32;
  atomic.min [ptradd(%io, 2:i32)], %t;
  atomic.max [ptradd(%io, 3:i32)], %t;
  atomic.and [ptradd(%io, 4:i32)], ~((1:i32 << %t));
  atomic.or [ptradd(%io, 5:i32)], (1:i32 << %t);
  atomic.xor.block [ptradd(%io, 6:i32)], 3:i32;
  let %o: i32;
  %o = atomic.exch [ptradd(%io, 7:i32)], %t;
  let %p: i32;
  %p = atomic.cas [ptradd(%io, 8:i32)], (%t + 1:i32), compare %t;
  store [ptradd(%old, %t)], %p;
  atomic.add.system [%fo], 0.5:f32;
  atomic.inc [%uo], 5:u32;
  atomic.dec [ptradd(%uo, 1:i32)], 5:u32;
}
"""

BLOCK = """
kernel @blk(%x: ptr<global const f32>, %out: ptr<global f32>, %cnt: ptr<global i32>, %n: i32) level block {
  let %r: block<4 x i32> = arange<0, 4>();
  let %c: block<8 x i32> = arange<0, 8>();
  let %rows: block<4x8 x i32> = broadcast<4x8>(reshape<4x1>((%r * splat<4>(8:i32))));
  let %idx: block<4x8 x i32> = (%rows + broadcast<4x8>(reshape<1x8>(%c)));
  let %m: block<4x8 x bool> = (%idx < splat<4x8>((%n + (blockIdx.x * gridDim.x))));
  let %v: block<4x8 x f32>;
  %v = load [ptradd(splat<4x8>(%x), %idx)], mask %m, other 0.0:f32;
  store [ptradd(splat<4>(%out), %r)], reduce.sum<1>(%v);
  store [ptradd(splat<4>(%out), (%r + splat<4>(4:i32)))], reduce.max<1>(%v);
  store [ptradd(splat<4>(%out), (%r + splat<4>(8:i32)))], reduce.min<1>(%v);
  store [ptradd(splat<4>(%out), (%r + splat<4>(12:i32)))], reduce.prod<1>(%v);
  let %d: block<4x4 x f32> = dot<f32>(%v, reshape<8x4>(%v), splat<4x4>(1.0:f32));
  let %drow: block<4x4 x i32> = broadcast<4x4>(reshape<4x1>((%r * splat<4>(4:i32))));
  let %didx: block<4x4 x i32> = ((%drow + broadcast<4x4>(reshape<1x4>(%r))) + splat<4x4>(16:i32));
  store [ptradd(splat<4x4>(%out), %didx)], %d;
  store [ptradd(splat<4x8>(%out), (%idx + splat<4x8>(32:i32)))], (%v * splat<4x8>(2.0:f32)), mask %m;
  atomic.add [splat<4x8>(%cnt)], splat<4x8>(1:i32), mask %m;
}
"""


# Scans, permutes and reductions/scans with a combine function: an (argmax) pair and a running maximum.
SCAN = """
device @argmax_pair(&%av: f32, &%ai: i32, %bv: f32, %bi: i32) level block {
  let %take: bool = ((%bv > %av) || ((%bv == %av) && (%bi < %ai)));
  %av = select(%take, %bv, %av);
  %ai = select(%take, %bi, %ai);
}

device @running_max(&%a: f32, %b: f32) level block {
  %a = max(%a, %b);
}

kernel @scans(%x: ptr<global const f32>, %out: ptr<global f32>, %iout: ptr<global i32>) level block {
  let %r: block<4 x i32> = arange<0, 4>();
  let %c: block<8 x i32> = arange<0, 8>();
  let %rows: block<4x8 x i32> = broadcast<4x8>(reshape<4x1>((%r * splat<4>(8:i32))));
  let %idx: block<4x8 x i32> = (%rows + broadcast<4x8>(reshape<1x8>(%c)));
  let %v: block<4x8 x f32>;
  %v = load [ptradd(splat<4x8>(%x), %idx)];
  store [ptradd(splat<4x8>(%out), %idx)], scan.sum<1>(%v);
  store [ptradd(splat<4x8>(%out), (%idx + splat<4x8>(32:i32)))], scan.prod.reverse<1>(%v);
  let %t: block<8x4 x f32> = permute<1x0>(%v);
  store [ptradd(splat<8x4>(%out), (permute<1x0>(%idx) + splat<8x4>(64:i32)))], scan.max<0>(%t);
  store [ptradd(splat<4x8>(%out), (%idx + splat<4x8>(96:i32)))], scan.min.reverse<0>(%v);
  let %cols: block<4x8 x i32> = broadcast<4x8>(reshape<1x8>(%c));
  store [ptradd(splat<4>(%out), (%r + splat<4>(128:i32)))], combine.reduce<@argmax_pair, 1, 0>(%v, %cols);
  store [ptradd(splat<4>(%iout), %r)], combine.reduce<@argmax_pair, 1, 1>(%v, %cols);
  store [ptradd(splat<4x8>(%out), (%idx + splat<4x8>(132:i32)))], combine.scan<@running_max, 1, 0>(%v);
  store [ptradd(splat<4x8>(%out), (%idx + splat<4x8>(164:i32)))], combine.scan.reverse<@running_max, 1, 0>(%v);
}
"""

ASSERT = """
kernel @checked(%io: ptr<global i32>, %limit: i32) level thread {
  assume (%limit <= 8:i32);
  let %t: i32 = convert<i32>(threadIdx.x);
  assert (%t < %limit);
  store [ptradd(%io, %t)], %t;
}
"""

PROGRAMS = {"vec": VEC, "flow": FLOW, "warp": WARP, "atom": ATOM, "blk": BLOCK, "scans": SCAN, "assert": ASSERT}

#: Enums whose members select what a statement or expression does; each member needs a program.
COVERED_ENUMS = (
    n.AtomicOp,
    n.ShuffleKind,
    n.VoteKind,
    n.ReduceOp,
    n.CombineKind,
    n.CastKind,
    n.BarrierScope,
    n.FenceScope,
    n.UnaryOp,
)


def _walk(x: object, classes: set[type], members: set[enum.Enum]) -> None:
    if isinstance(x, enum.Enum):
        members.add(x)
    elif isinstance(x, tuple):
        for y in x:
            _walk(y, classes, members)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        classes.add(type(x))
        for f in dataclasses.fields(x):
            _walk(getattr(x, f.name), classes, members)


def test_the_programs_cover_every_node() -> None:
    classes: set[type] = set()
    members: set[enum.Enum] = set()
    for text in PROGRAMS.values():
        _walk(parse_module(text), classes, members)
    node_classes = set(typing.get_args(n.Expr)) | set(typing.get_args(n.Stmt))
    missing = sorted(c.__name__ for c in node_classes - classes)
    assert not missing, f"no simulator test program uses {missing}"
    for e in COVERED_ENUMS:
        missing_members = [m.name for m in e if m not in members]
        assert not missing_members, f"no simulator test program uses {e.__name__}.{missing_members}"


def test_vectors_casts_select_and_unary_operators(sim: Sim) -> None:
    r = sim.run(sim.ir(VEC), "vec", block=4, buffers={"fo": ("f32", 4), "io": ("i32", 4)})
    assert r.ok
    want = [-14.0, -14.0, float(torch.tensor(14.0).sqrt()), float(torch.tensor(20.0).sqrt())]
    assert r.buffers["fo"].tolist() == want
    assert r.buffers["io"].tolist() == [250, 381, 380, 379]


def test_loops_break_continue_calls_and_reference_parameters(sim: Sim) -> None:
    r = sim.run(sim.ir(FLOW), "flow", block=4, buffers={"io": ("i32", 4)})
    assert r.ok
    assert r.buffers["io"].tolist() == [6030, 10031, 15032, 21150]


def test_memory_barriers_shuffles_and_votes(sim: Sim) -> None:
    x = torch.arange(32, dtype=torch.float32)
    r = sim.run(sim.ir(WARP), "warp", block=32, buffers={"x": x, "fo": ("f32", 32), "uo": ("u32", 32)})
    assert r.ok
    nxt = (torch.arange(32) + 1) % 32
    lane = torch.arange(32)
    a = torch.where(lane == 0, nxt, nxt[(lane - 1).clamp(min=0)])
    b = torch.where(lane == 31, nxt, nxt[(lane + 1).clamp(max=31)])
    c = nxt[0].expand(32)
    d = nxt[lane ^ 1]
    assert r.buffers["fo"].tolist() == (a + b + c + d).float().tolist()
    assert r.buffers["uo"].tolist() == [7 + 16] * 32


def test_atomics_apply_in_thread_order(sim: Sim) -> None:
    io = torch.zeros(9, dtype=torch.int32)
    io[2], io[4] = 100, -1
    uo = torch.zeros(2, dtype=torch.uint32)
    r = sim.run(sim.ir(ATOM), "atom", block=8, buffers={"io": io, "fo": torch.zeros(1), "old": ("i32", 8), "uo": uo})
    assert r.ok
    assert r.buffers["io"].tolist() == [8, -16, 0, 7, -256, 255, 0, 7, 8]
    assert r.buffers["old"].tolist() == list(range(8))  # each CAS sees the previous thread's value
    assert r.buffers["fo"].item() == 4.0
    assert r.buffers["uo"].tolist() == [2, 4]  # inc wraps 5 -> 0 after five steps; dec wraps 0 -> 5 first


def test_block_level_programs(sim: Sim) -> None:
    x = torch.randn(32)
    n_valid = 29
    r = sim.run(
        sim.ir(BLOCK), "blk", grid=1,
        buffers={"x": x, "out": ("f32", 64, "empty"), "cnt": torch.zeros(1, dtype=torch.int32)},
        scalars={"n": n_valid},
    )  # fmt: skip
    assert r.ok
    v = torch.where(torch.arange(32) < n_valid, x, torch.zeros(32)).reshape(4, 8)
    out = r.buffers["out"]
    assert torch.allclose(out[0:4], v.sum(1))
    assert torch.equal(out[4:8], v.amax(1)) and torch.equal(out[8:12], v.amin(1))
    assert torch.allclose(out[12:16], v.prod(1))
    assert torch.allclose(out[16:32], (v @ v.reshape(8, 4) + 1).reshape(-1), atol=1e-5)
    assert torch.equal(out[32 : 32 + n_valid], 2 * x[:n_valid])
    assert not bool(r.written["out"][32 + n_valid :].any())  # masked-off elements are not stored
    assert r.buffers["cnt"].item() == n_valid
    assert not math.isnan(float(out[:32].sum()))


def test_scans_permutes_and_combine_functions(sim: Sim) -> None:
    x = torch.randn(32)
    x[9] = x[12] = 5.0  # a tie in row 1: the first index wins
    r = sim.run(sim.ir(SCAN), "scans", grid=1, buffers={"x": x, "out": ("f32", 196), "iout": ("i32", 4)})
    assert r.ok, r.diagnoses
    v = x.reshape(4, 8)
    out = r.buffers["out"]
    running = v.clone()
    for k in range(1, 8):
        running[:, k] = running[:, k - 1] + v[:, k]  # left to right, one float32 addition per step
    assert torch.equal(out[0:32], running.reshape(-1))
    assert torch.allclose(out[32:64], v.flip(1).cumprod(1).flip(1).reshape(-1))
    assert torch.equal(out[64:96], v.t().cummax(0).values.t().reshape(-1))
    assert torch.equal(out[96:128], v.flip(0).cummin(0).values.flip(0).reshape(-1))
    assert torch.equal(out[128:132], v.amax(1))
    assert r.buffers["iout"].tolist() == v.argmax(1).tolist() and r.buffers["iout"][1].item() == 1
    assert torch.equal(out[132:164], v.cummax(1).values.reshape(-1))
    assert torch.equal(out[164:196], v.flip(1).cummax(1).values.flip(1).reshape(-1))


def test_assertions_trap_the_threads_that_fail_them(sim: Sim) -> None:
    passing = sim.run(sim.ir(ASSERT), "checked", block=4, buffers={"io": ("i32", 4)}, scalars={"limit": 4})
    assert passing.ok and passing.buffers["io"].tolist() == [0, 1, 2, 3]
    failing = sim.run(sim.ir(ASSERT), "checked", block=4, buffers={"io": ("i32", 4)}, scalars={"limit": 2})
    assert sim.kinds(failing) == {"assert"}
    (d,) = failing.diagnoses
    assert d.span.line == 5 and d.thread == (2, 0, 0)
    assert failing.buffers["io"].tolist()[:2] == [0, 1]  # the threads whose assertion held went on


def test_a_false_precondition_is_bad_input_not_a_diagnosis(sim: Sim) -> None:
    with pytest.raises(PreconditionError) as info:
        sim.run(sim.ir(ASSERT), "checked", block=4, buffers={"io": ("i32", 4)}, scalars={"limit": 9})
    assert info.value.span is not None and info.value.span.line == 3
    assert "false in block (0,0,0) thread (0,0,0)" in info.value.message


def test_cuda_assert_and_trap_lower_to_assertions(sim: Sim) -> None:
    src = """__global__ void k(int* io, int n) {
      int t = threadIdx.x;
      assert(t < n);
      if (t > 100) __trap();
      io[t] = t;
    }"""
    r = sim.cuda_run(src, "k", block=8, buffers={"io": ("i32", 8)}, scalars={"n": 6})
    assert sim.kinds(r) == {"assert"}


def test_relational_pointer_comparisons(sim: Sim) -> None:
    src = """__global__ void k(float* out, const float* x, int n) {
      float s = 0.0f;
      for (const float* p = x; p < x + n; ++p) s += *p;
      out[threadIdx.x] = s;
    }"""
    x = torch.arange(8, dtype=torch.float32)
    r = sim.cuda_run(src, "k", block=2, buffers={"out": ("f32", 2), "x": x}, scalars={"n": 5})
    assert r.ok and r.buffers["out"].tolist() == [10.0, 10.0]


def test_warp_reduce_intrinsics(sim: Sim) -> None:
    src = """__global__ void k(int* out, unsigned* uo) {
      int t = threadIdx.x;
      out[t] = __reduce_add_sync(0xffffffff, t) + __reduce_max_sync(0xffffffff, t - 40);
      uo[t] = __reduce_or_sync(0xffffffffu, 1u << (t % 4));
    }"""
    r = sim.cuda_run(src, "k", block=32, buffers={"out": ("i32", 32), "uo": ("u32", 32)})
    assert r.ok
    assert r.buffers["out"].tolist() == [sum(range(32)) + (31 - 40)] * 32
    assert r.buffers["uo"].tolist() == [15] * 32


def test_shared_memory_proxy_struct_of_the_cuda_samples(sim: Sim) -> None:
    src = """template <class T> struct SharedMemory {
      __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
      __device__ inline operator const T *() const { extern __shared__ int __smem[]; return (T *)__smem; }
    };
    template <> struct SharedMemory<double> {
      __device__ inline operator double *() { extern __shared__ double __smem_d[]; return (double *)__smem_d; }
    };
    template <class T> __global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
      T *sdata = SharedMemory<T>();
      unsigned int tid = threadIdx.x;
      unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
      sdata[tid] = (i < n) ? g_idata[i] : 0;
      __syncthreads();
      for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
      }
      if (tid == 0) g_odata[blockIdx.x] = sdata[0];
    }
    template __global__ void reduce0<float>(float*, float*, unsigned int);"""
    x = torch.arange(128, dtype=torch.float32)
    m = parse_cuda(text=src, file="reduce.cu", kernel="reduce0", template_args=["float"])
    r = sim.run(
        m,
        "reduce0<float>",
        grid=2,
        block=64,
        shared_bytes=256,
        buffers={"g_idata": x, "g_odata": ("f32", 2)},
        scalars={"n": 100},
    )
    assert r.ok and r.buffers["g_odata"].tolist() == [float(sum(range(64))), float(sum(range(64, 100)))]


def test_threads_that_trap_in_a_callee_do_nothing_more_in_the_caller(sim: Sim) -> None:
    """A barrier after a call in which every thread trapped is not a divergence (nor an internal error):
    the trapped threads have left the caller's mask."""
    src = """
device @fails() -> i16 level thread {
  assert false;
  return 0:i16;
}

kernel @k(%io: ptr<global i32>) level thread {
  let %v: i16;
  %v = call @fails();
  barrier.block;
  store [ptradd(%io, threadIdx.x)], 1:i32;
}
"""
    r = sim.run(sim.ir(src), "k", block=4, buffers={"io": ("i32", 4)})
    assert sim.kinds(r) == {"assert"}
    assert r.buffers["io"].tolist() == [0, 0, 0, 0]
