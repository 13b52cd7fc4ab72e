"""Each dynamic check of the simulator on minimal kernels: it fires on the bug, not on the fix.

Every diagnosis carries its kind, the kernel source location, the block and thread, the buffer and
the element index; the first test of each check pins those fields.
"""

from __future__ import annotations

import torch
from sim_helpers import Sim

# --------------------------------------------------------------------------------------------------
# oob


def test_read_past_the_end_is_oob_with_location_thread_buffer_and_index(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) {
    out[i] = x[i];
  }
}
"""
    r = sim.cuda_run(src, "k", grid=2, block=64, buffers={"x": ("f32", 100), "out": ("f32", 101)}, scalars={"n": 100})
    assert sim.kinds(r) == {"oob"}
    (d,) = r.diagnoses
    assert d.span is not None and (d.span.line, d.span.col) == (5, 14)
    assert d.block == (1, 0, 0) and d.thread == (36, 0, 0)
    assert d.buffer == "x" and d.index == 100
    assert d.render().startswith("oob: ")
    assert "x[100]" in d.message and "past the end" in d.message


def test_guarded_access_is_clean(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * x[i];
}
"""
    x = torch.randn(100)
    r = sim.cuda_run(src, "k", grid=2, block=64, buffers={"x": x, "out": ("f32", 100)}, scalars={"n": 100})
    assert r.ok
    assert torch.equal(r.buffers["out"], 2 * x)


def test_negative_index_is_oob(sim: Sim) -> None:
    src = "__global__ void k(float* out) { out[(int)threadIdx.x - 1] = 1.0f; }"
    r = sim.cuda_run(src, "k", block=4, buffers={"out": ("f32", 4)})
    assert sim.kinds(r) == {"oob"}
    assert "before the start" in r.diagnoses[0].message and r.diagnoses[0].thread == (0, 0, 0)


def test_misaligned_vector_access_is_oob(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out) {
  const float4* p = reinterpret_cast<const float4*>(x + 1);
  out[threadIdx.x] = p[threadIdx.x].x;
}
"""
    r = sim.cuda_run(src, "k", block=4, buffers={"x": ("f32", 32), "out": ("f32", 4)})
    assert sim.kinds(r) == {"oob"}
    assert "misaligned" in r.diagnoses[0].message


def test_shared_array_overflow_is_oob(sim: Sim) -> None:
    src = """
__global__ void k(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""
    r = sim.cuda_run(src, "k", block=40, buffers={"out": ("f32", 40)})
    assert sim.kinds(r) == {"oob"}
    d = r.diagnoses[0]
    assert d.buffer == "s" and d.index == 32 and d.thread == (32, 0, 0)


def test_dynamic_shared_memory_is_bounded_by_the_launch(sim: Sim) -> None:
    src = """
__global__ void k(float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""
    m = sim.cuda(src)
    assert sim.run(m, "k", block=32, shared_bytes=128, buffers={"out": ("f32", 32)}).ok
    r = sim.run(m, "k", block=32, shared_bytes=64, buffers={"out": ("f32", 32)})
    assert sim.kinds(r) == {"oob"}
    assert r.diagnoses[0].index == 16


def test_local_array_overflow_is_oob(sim: Sim) -> None:
    src = """
__global__ void k(float* out, int n) {
  float a[4];
  for (int i = 0; i < n; ++i) a[i] = i;
  out[threadIdx.x] = a[0];
}
"""
    m = sim.cuda(src)
    assert sim.run(m, "k", block=2, buffers={"out": ("f32", 2)}, scalars={"n": 4}).ok
    r = sim.run(m, "k", block=2, buffers={"out": ("f32", 2)}, scalars={"n": 5})
    assert sim.kinds(r) == {"oob"} and r.diagnoses[0].buffer == "a"


def test_null_pointer_is_oob(sim: Sim) -> None:
    # The CUDA frontend rejects null pointer constants, so the kernel is written in the IR text form.
    m = sim.ir("""
kernel @k(%out: ptr<global f32>) level thread {
  let %p: ptr<global f32> = bitcast<ptr<global f32>>(0:u64);
  let %v: f32;
  %v = load [%p];
  store [%out], %v;
}
""")
    r = sim.run(m, "k", block=1, buffers={"out": ("f32", 1)})
    assert sim.kinds(r) == {"oob"}
    assert "points into no buffer" in r.diagnoses[0].message
    assert r.diagnoses[0].span is not None and r.diagnoses[0].span.line == 5


# --------------------------------------------------------------------------------------------------
# race

TREE = """
__global__ void k(const float* x, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * 64 + t];
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    SYNC
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
"""


def test_missing_barrier_in_a_tree_reduction_is_a_race(sim: Sim) -> None:
    x = torch.randn(128)
    r = sim.cuda_run(TREE.replace("SYNC", ""), "k", grid=2, block=64, buffers={"x": x, "out": ("f32", 2)})
    assert sim.kinds(r) == {"race"}
    d = r.diagnoses[0]
    assert d.buffer == "s" and d.block == (0, 0, 0)
    assert "in the same barrier interval" in d.message
    assert d.span is not None and d.span.line == 8


def test_tree_reduction_with_barriers_is_clean(sim: Sim) -> None:
    x = torch.randn(128)
    r = sim.cuda_run(
        TREE.replace("SYNC", "__syncthreads();"), "k", grid=2, block=64, buffers={"x": x, "out": ("f32", 2)}
    )
    assert r.ok
    assert torch.allclose(r.buffers["out"], x.reshape(2, 64).sum(1), atol=1e-5)


def test_write_write_in_one_statement_is_a_race(sim: Sim) -> None:
    src = "__global__ void k(int* out) { out[0] = threadIdx.x; }"
    r = sim.cuda_run(src, "k", block=8, buffers={"out": ("i32", 1)})
    assert sim.kinds(r) == {"race"}
    assert "write of global out[0]" in r.diagnoses[0].message


def test_conflict_between_blocks_is_a_race_even_in_different_phases(sim: Sim) -> None:
    src = """
__global__ void k(float* data) {
  if (blockIdx.x == 0 && threadIdx.x == 0) data[0] = 1.0f;
  __syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 0) data[1] = data[0];
}
"""
    r = sim.cuda_run(src, "k", grid=2, block=32, buffers={"data": ("f32", 2)})
    assert sim.kinds(r) == {"race"}
    d = r.diagnoses[0]
    assert d.block == (1, 0, 0) and "different blocks never synchronise" in d.message


def test_barrier_orders_global_accesses_within_a_block(sim: Sim) -> None:
    src = """
__global__ void k(float* data) {
  if (threadIdx.x == 0) data[blockIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 5) data[blockIdx.x] += 1.0f;
}
"""
    r = sim.cuda_run(src, "k", grid=2, block=32, buffers={"data": ("f32", 2)})
    assert r.ok
    assert r.buffers["data"].tolist() == [2.0, 2.0]


def test_atomics_do_not_race_but_mixed_with_plain_accesses_they_do(sim: Sim) -> None:
    src = """
__global__ void atomics(float* sum) { atomicAdd(sum, 1.0f); }
__global__ void mixed(float* sum) {
  atomicAdd(sum, 1.0f);
  if (blockIdx.x == 1 && threadIdx.x == 0) sum[0] = 0.0f;
}
"""
    m = sim.cuda(src)
    r = sim.run(m, "atomics", grid=3, block=64, buffers={"sum": torch.zeros(1)})
    assert r.ok and r.buffers["sum"].item() == 192.0
    r = sim.run(m, "mixed", grid=3, block=64, buffers={"sum": torch.zeros(1)})
    assert sim.kinds(r) == {"race"}
    assert "conflicts with atomic" in r.diagnoses[0].message


def test_reads_never_conflict(sim: Sim) -> None:
    src = "__global__ void k(const float* x, float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = x[0]; }"
    r = sim.cuda_run(src, "k", grid=4, block=32, buffers={"x": torch.ones(1), "out": ("f32", 128)})
    assert r.ok


def test_syncwarp_orders_the_lanes_of_a_warp(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out) {
  __shared__ float s[32];
  int l = threadIdx.x;
  s[l] = x[l];
  __syncwarp();
  float v = s[(l + 1) % 32];
  SYNC
  s[l] = v;
  out[l] = s[l];
}
"""
    x = torch.randn(32)
    ok = sim.cuda_run(src.replace("SYNC", "__syncwarp();"), "k", block=32, buffers={"x": x, "out": ("f32", 32)})
    assert ok.ok and torch.equal(ok.buffers["out"], x.roll(-1))
    bad = sim.cuda_run(src.replace("SYNC", ""), "k", block=32, buffers={"x": x, "out": ("f32", 32)})
    assert sim.kinds(bad) == {"race"} and "no __syncwarp" in bad.diagnoses[0].message


def test_bytes_of_one_word_written_by_different_threads_do_not_conflict(sim: Sim) -> None:
    src = """
__global__ void k(unsigned int* words) {
  unsigned char* bytes = reinterpret_cast<unsigned char*>(words);
  bytes[threadIdx.x] = (unsigned char)(threadIdx.x + 1);
}
"""
    r = sim.cuda_run(src, "k", block=8, buffers={"words": torch.zeros(2, dtype=torch.int32)})
    assert r.ok
    assert r.buffers["words"].tolist() == [0x04030201, 0x08070605]


# --------------------------------------------------------------------------------------------------
# divergence


def test_barrier_inside_a_divergent_branch_is_divergence(sim: Sim) -> None:
    src = """
__global__ void k(float* out) {
  __shared__ float s[64];
  if (threadIdx.x < 32) {
    s[threadIdx.x] = 1.0f;
    __syncthreads();
  }
  out[threadIdx.x] = 0.0f;
}
"""
    r = sim.cuda_run(src, "k", grid=2, block=64, buffers={"out": ("f32", 64)})
    assert sim.kinds(r) == {"divergence"}
    d = r.diagnoses[0]
    assert d.span is not None and d.span.line == 6
    assert d.block == (0, 0, 0) and d.thread == (32, 0, 0)
    assert "32 of the 64 live threads" in d.message


def test_barrier_in_a_loop_with_thread_dependent_trip_count_is_divergence(sim: Sim) -> None:
    src = """
__global__ void k(float* out) {
  for (int i = 0; i <= threadIdx.x % 2; ++i) __syncthreads();
  out[threadIdx.x] = 1.0f;
}
"""
    r = sim.cuda_run(src, "k", block=32, buffers={"out": ("f32", 32)})
    assert sim.kinds(r) == {"divergence"}


def test_block_uniform_branches_and_exited_threads_are_not_divergence(sim: Sim) -> None:
    src = """
__global__ void k(float* out, int n) {
  __shared__ float s[64];
  int t = threadIdx.x;
  if (t >= n) return;
  if (blockIdx.x == 0) {
    s[t] = 1.0f;
    __syncthreads();
  } else {
    s[t] = 2.0f;
    __syncthreads();
  }
  out[blockIdx.x * 64 + t] = s[(t + 1) % n];
}
"""
    r = sim.cuda_run(src, "k", grid=2, block=64, buffers={"out": ("f32", 128)}, scalars={"n": 40})
    assert r.ok
    assert r.buffers["out"][:40].tolist() == [1.0] * 40
    assert r.buffers["out"][64:104].tolist() == [2.0] * 40


def test_shuffle_with_a_full_mask_in_a_divergent_branch_is_divergence(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  if (threadIdx.x < 16) v += __shfl_xor_sync(0xffffffff, v, 1);
  out[threadIdx.x] = v;
}
"""
    r = sim.cuda_run(src, "k", block=32, buffers={"x": torch.randn(32), "out": ("f32", 32)})
    assert "divergence" in sim.kinds(r)


# --------------------------------------------------------------------------------------------------
# uninit


def test_read_of_shared_memory_never_written_is_uninit(sim: Sim) -> None:
    src = """
__global__ void k(float* out, int n) {
  __shared__ float s[64];
  if (threadIdx.x < n) s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""
    m = sim.cuda(src)
    assert sim.run(m, "k", block=64, buffers={"out": ("f32", 64)}, scalars={"n": 64}).ok
    r = sim.run(m, "k", block=64, buffers={"out": ("f32", 64)}, scalars={"n": 60})
    assert sim.kinds(r) == {"uninit"}
    d = r.diagnoses[0]
    assert d.buffer == "s" and d.index == 60 and d.thread == (60, 0, 0)
    assert d.span is not None and d.span.line == 6


def test_read_of_an_empty_output_before_writing_it_is_uninit(sim: Sim) -> None:
    src = "__global__ void k(float* acc) { acc[threadIdx.x] += 1.0f; }"
    m = sim.cuda(src)
    r = sim.run(m, "k", block=4, buffers={"acc": ("f32", 4, "empty")})
    assert sim.kinds(r) == {"uninit"}
    assert "starts empty" in r.diagnoses[0].message
    assert sim.run(m, "k", block=4, buffers={"acc": torch.zeros(4)}).ok


def test_shuffle_from_an_inactive_lane_is_uninit(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  if (threadIdx.x < 16) v += __shfl_down_sync(0x0000ffff, v, 8);
  out[threadIdx.x] = v;
}
"""
    r = sim.cuda_run(src, "k", block=32, buffers={"x": torch.randn(32), "out": ("f32", 32)})
    assert sim.kinds(r) == {"uninit"}
    d = r.diagnoses[0]
    assert d.thread == (8, 0, 0) and "reads lane 16" in d.message


def test_shuffle_past_a_partial_warp_is_uninit(sim: Sim) -> None:
    src = """
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 16);
  out[threadIdx.x] = v;
}
"""
    r = sim.cuda_run(src, "k", block=24, buffers={"x": torch.randn(24), "out": ("f32", 24)})
    assert sim.kinds(r) == {"uninit"}
    assert "does not exist" in r.diagnoses[0].message


# --------------------------------------------------------------------------------------------------
# ub


def test_undefined_operations_are_ub(sim: Sim) -> None:
    src = """
__global__ void k(int* out, int d, float f) {
  out[threadIdx.x] = threadIdx.x / d + (1 << (d + 33)) + (int)f;
}
"""
    m = sim.cuda(src)
    r = sim.run(m, "k", block=4, buffers={"out": ("i32", 4)}, scalars={"d": 0, "f": 3e9})
    assert sim.kinds(r) == {"ub"}
    messages = " ".join(d.message for d in r.diagnoses)
    assert "division by zero" in messages and "shift amount" in messages and "float-to-integer" in messages
    assert sim.run(m, "k", block=4, buffers={"out": ("i32", 4)}, scalars={"d": -32, "f": 3.0}).ok


def test_triton_programs_writing_the_same_elements_race(sim: Sim) -> None:
    m = sim.ir("""
kernel @k(%out: ptr<global f32>, %stride: i32) level block {
  let %offs: block<4 x i32> = (splat<4>((blockIdx.x * %stride)) + arange<0, 4>());
  store [ptradd(splat<4>(%out), %offs)], splat<4>(1.0:f32);
}
""")
    assert sim.run(m, "k", grid=3, buffers={"out": ("f32", 12)}, scalars={"stride": 4}).ok
    r = sim.run(m, "k", grid=3, buffers={"out": ("f32", 12)}, scalars={"stride": 2})
    assert sim.kinds(r) == {"race"}
    d = r.diagnoses[0]
    assert d.thread is None and d.message.count("program (") == 2  # programs have no thread index
    assert "different blocks never synchronise" in d.message
