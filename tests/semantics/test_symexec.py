"""Symbolic execution: the simulator's interpreter over exact terms.

The central property: for every example and instance, the kernel's output terms, evaluated at the inputs
``larkc run`` draws, agree with what the simulator computes on those inputs, and both runs report the
same kinds of diagnoses. The prover and the simulator cannot disagree about what a statement means.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch
from sim_helpers import EXAMPLES, Sim

from larkc.frontends import parse_task
from larkc.ir.types import F32, I32, I64
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.pipeline.verify import symbolic_args
from larkc.semantics import LaunchConfig, SimLimits, simulate
from larkc.semantics.symexec import SymbolicBuffer, SymbolicRun, execute_symbolic
from larkc.symbolic import terms as tm
from larkc.tasks import load_task

TRITON_EXAMPLES = EXAMPLES.parent / "triton"
# the Triton examples (block-level kernels: tl.dot, reductions, scans, combines, masks) too; tasks taken
# from a launcher need Triton to load, and are left to tests/provers/test_triton_verify.py
TASK_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/task.py")) + sorted(
    p.parent for p in TRITON_EXAMPLES.glob("*/task.py") if not p.parent.name.endswith("_from_launcher")
)


def _launch(grid: int = 1, block: int = 32) -> LaunchConfig:
    return LaunchConfig((grid, 1, 1), (block, 1, 1), 0)


def _sym(sim: Sim, src: str, kernel: str, args: dict[str, object], *, grid: int = 1, block: int = 32) -> SymbolicRun:
    module = sim.cuda(src)
    return execute_symbolic(module, kernel, _launch(grid, block), args)  # type: ignore[arg-type]


@pytest.fixture
def sim(tmp_path: Path) -> Sim:
    return Sim(tmp_path)


def x(i: int) -> tm.Poly:
    return tm.elem("x", i)


def test_vector_add_gives_exact_sums(sim: Sim) -> None:
    src = """
    __global__ void add(const float* x, const float* y, float* out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = x[i] + y[i];
    }"""
    run = _sym(
        sim,
        src,
        "add",
        {
            "x": SymbolicBuffer("x", (5,), F32, "input"),
            "y": SymbolicBuffer("y", (5,), F32, "input"),
            "out": SymbolicBuffer("out", (5,), F32, "empty"),
            "n": 5,
        },
        block=8,
    )
    assert run.unsupported is None and run.control_concrete and not run.diagnoses
    assert run.buffers["out"] == tuple(x(i) + tm.elem("y", i) for i in range(5))


def test_unwritten_elements_are_undef_and_rounding_vanishes(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      int i = threadIdx.x;
      if (i < 2) out[i] = (float)(double)x[i] * 0.5f + 1.0f;
    }"""
    run = _sym(
        sim, src, "k", {"x": SymbolicBuffer("x", (3,), F32, "input"), "out": SymbolicBuffer("out", (3,), F32, "empty")}
    )
    assert run.buffers["out"][:2] == (x(0) * Fraction(1, 2) + 1, x(1) * Fraction(1, 2) + 1)
    assert run.buffers["out"][2] == "undef"


def test_tree_reduction_in_shared_memory_is_the_sum(sim: Sim) -> None:
    src = """
    __global__ void rsum(const float* x, float* out) {
      __shared__ float s[64];
      s[threadIdx.x] = x[threadIdx.x];
      __syncthreads();
      for (int k = 32; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
      }
      if (threadIdx.x == 0) out[0] = s[0];
    }"""
    run = _sym(
        sim,
        src,
        "rsum",
        {"x": SymbolicBuffer("x", (64,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "empty")},
        block=64,
    )
    assert run.buffers["out"][0] is tm.add(*(x(i) for i in range(64)))
    assert not run.diagnoses


def test_warp_shuffle_reduction_is_the_sum(sim: Sim) -> None:
    src = """
    __global__ void wsum(const float* x, float* out) {
      float v = x[threadIdx.x];
      for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
      if (threadIdx.x == 0) out[0] = v;
    }"""
    run = _sym(
        sim,
        src,
        "wsum",
        {"x": SymbolicBuffer("x", (32,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "empty")},
    )
    assert run.buffers["out"][0] is tm.add(*(x(i) for i in range(32)))


def test_max_from_minus_infinity_and_sentinel_starts(sim: Sim) -> None:
    src = """
    #include <cfloat>
    __global__ void mx(const float* x, float* a, float* b) {
      float m = -INFINITY, s = -FLT_MAX;
      for (int i = 0; i < 4; ++i) { m = fmaxf(m, x[i]); s = fmaxf(s, x[i]); }
      a[0] = m; b[0] = s;
    }"""
    run = _sym(
        sim, src, "mx",
        {"x": SymbolicBuffer("x", (4,), F32, "input"), "a": SymbolicBuffer("a", (1,), F32, "empty"),
         "b": SymbolicBuffer("b", (1,), F32, "empty")},
        block=1,
    )  # fmt: skip
    want = tm.maximum(*(x(i) for i in range(4)))
    assert run.buffers["a"][0] is want and run.buffers["b"][0] is want
    assert any("sentinel" in n.text for n in run.notes)  # -FLT_MAX as -inf is an assumption, listed


def test_data_dependent_branch_is_if_converted(sim: Sim) -> None:
    src = """
    __global__ void relu(const float* x, float* out) {
      float v = x[threadIdx.x];
      float r = 0.0f;
      if (v > 0.0f) { r = v; }
      out[threadIdx.x] = r;
    }"""
    run = _sym(
        sim,
        src,
        "relu",
        {"x": SymbolicBuffer("x", (4,), F32, "input"), "out": SymbolicBuffer("out", (4,), F32, "empty")},
        block=4,
    )
    assert run.unsupported is None and not run.control_concrete
    assert run.buffers["out"] == tuple(tm.maximum(x(i), tm.ZERO) for i in range(4))


def test_a_store_under_a_branch_on_data_is_guarded_by_its_condition(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      if (x[threadIdx.x] > 0.0f) out[threadIdx.x] = 1.0f;
    }"""
    run = _sym(
        sim,
        src,
        "k",
        {"x": SymbolicBuffer("x", (4,), F32, "input"), "out": SymbolicBuffer("out", (4,), F32, "zeros")},
        block=4,
    )
    assert run.unsupported is None and not run.control_concrete
    assert run.buffers["out"] == tuple(tm.select(tm.compare(">", x(i), tm.ZERO), tm.ONE, tm.ZERO) for i in range(4))


def test_stores_in_both_arms_merge_exactly_and_nested_branches_with_stores_stop(sim: Sim) -> None:
    both = """
    __global__ void k(const float* x, float* out) {
      int i = threadIdx.x;
      if (x[i] > 0.0f) { out[i] = x[i]; out[i] = 2.0f * x[i]; } else { out[i] = 0.0f; }
    }"""
    bufs = {"x": SymbolicBuffer("x", (2,), F32, "input"), "out": SymbolicBuffer("out", (2,), F32, "empty")}
    run = _sym(sim, both, "k", bufs, block=2)
    assert run.unsupported is None
    assert run.buffers["out"] == tuple(tm.maximum(tm.mul(tm.const(2), x(i)), tm.ZERO) for i in range(2))
    nested = """
    __global__ void k(const float* x, float* out) {
      int i = threadIdx.x;
      if (x[i] > 0.0f) {
        if (x[i] > 1.0f) out[i] = 1.0f; else out[i] = x[i];
      } else {
        out[i] = 0.0f;
      }
    }"""
    run = _sym(sim, nested, "k", bufs, block=2)
    assert run.unsupported is not None and "nested" in run.unsupported.reason


def test_an_atomic_under_a_branch_on_data_is_unsupported(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      if (x[threadIdx.x] > 0.0f) atomicAdd(out, 1.0f);
    }"""
    run = _sym(
        sim,
        src,
        "k",
        {"x": SymbolicBuffer("x", (4,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "zeros")},
        block=4,
    )
    assert run.unsupported is not None and "atomic" in run.unsupported.reason
    assert run.unsupported.span is not None and run.unsupported.span.line == 3


def test_index_tensor_reads_are_read_terms_checked_against_the_value_range(sim: Sim) -> None:
    src = """
    __global__ void gather(const long* idx, const float* table, float* out) {
      out[threadIdx.x] = table[idx[threadIdx.x] * 3 + 1];
    }"""
    module = sim.cuda(src)
    args = {
        "idx": SymbolicBuffer("idx", (2,), I64, "input"),
        "table": SymbolicBuffer("table", (12,), F32, "input"),
        "out": SymbolicBuffer("out", (2,), F32, "empty"),
    }
    ok = execute_symbolic(module, "gather", _launch(1, 2), args, int_ranges={"idx": (0, 3)})  # type: ignore[arg-type]
    assert ok.unsupported is None
    assert ok.buffers["out"][1] is tm.read("table", tm.elem("idx", 1) * 3 + 1)
    bad = execute_symbolic(module, "gather", _launch(1, 2), args, int_ranges={"idx": (0, 4)})  # type: ignore[arg-type]
    assert bad.unsupported is not None and "in bounds" in bad.unsupported.reason


def test_race_and_oob_are_the_simulators_checks(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      __shared__ float s[32];
      s[threadIdx.x] = x[threadIdx.x + 1];
      out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
    }"""
    run = _sym(
        sim,
        src,
        "k",
        {"x": SymbolicBuffer("x", (32,), F32, "input"), "out": SymbolicBuffer("out", (32,), F32, "empty")},
    )
    assert {d.kind.value for d in run.diagnoses} == {"oob", "race"}


def test_atomic_adds_sum_in_any_order_and_returned_values_are_opaque(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out, float* olds) {
      float old = atomicAdd(out, x[threadIdx.x]);
      olds[threadIdx.x] = old;
    }"""
    run = _sym(
        sim, src, "k",
        {"x": SymbolicBuffer("x", (8,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "zeros"),
         "olds": SymbolicBuffer("olds", (8,), F32, "empty")},
        block=8,
    )  # fmt: skip
    assert run.buffers["out"][0] is tm.add(*(x(i) for i in range(8)))
    assert all("<opaque>" in str(t) for t in run.buffers["olds"])


def test_float_to_int_bitcast_of_data_is_opaque_but_of_constants_exact(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, int* a, int* b) {
      a[0] = __float_as_int(x[0]);
      b[0] = __float_as_int(1.0f);
    }"""
    run = _sym(
        sim, src, "k",
        {"x": SymbolicBuffer("x", (1,), F32, "input"), "a": SymbolicBuffer("a", (1,), I32, "empty"),
         "b": SymbolicBuffer("b", (1,), I32, "empty")},
        block=1,
    )  # fmt: skip
    assert "<opaque>" in str(run.buffers["a"][0])
    assert run.buffers["b"][0] is tm.const(0x3F800000)


def test_data_dependent_integers_that_may_wrap_become_opaque(sim: Sim) -> None:
    src = """
    __global__ void k(const int* i, int* out) {
      out[0] = i[0] * 65536;
      out[1] = i[1] + 1;
    }"""
    module = sim.cuda(src)
    args = {"i": SymbolicBuffer("i", (2,), I32, "input"), "out": SymbolicBuffer("out", (2,), I32, "empty")}
    run = execute_symbolic(module, "k", _launch(1, 1), args, int_ranges={"i": (0, 1000)})  # type: ignore[arg-type]
    assert run.buffers["out"][0] is tm.elem("i", 0) * 65536
    assert run.buffers["out"][1] is tm.elem("i", 1) + 1
    wide = execute_symbolic(module, "k", _launch(1, 1), args)  # type: ignore[arg-type]
    assert "<opaque>" in str(wide.buffers["out"][0]) and "<opaque>" in str(wide.buffers["out"][1])


def test_time_budget_stops_the_run_with_a_reason(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      float a = 0.0f;
      for (int i = 0; i < 100000; ++i) a += x[i % 8];
      out[0] = a;
    }"""
    module = sim.cuda(src)
    args = {"x": SymbolicBuffer("x", (8,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "empty")}
    run = execute_symbolic(module, "k", _launch(1, 1), args, seconds=0.2)  # type: ignore[arg-type]
    assert run.unsupported is not None and "wall-clock safety net" in run.unsupported.reason


def test_a_loop_that_does_not_end_stops_the_run_with_a_reason(sim: Sim) -> None:
    src = """
    __global__ void k(const float* x, float* out) {
      float a = 0.0f;
      for (int o = 16; o > -1; o >>= 1) a += x[o % 8];
      out[0] = a;
    }"""
    module = sim.cuda(src)
    args = {"x": SymbolicBuffer("x", (8,), F32, "input"), "out": SymbolicBuffer("out", (1,), F32, "empty")}
    run = execute_symbolic(module, "k", _launch(1, 1), args, limits=SimLimits(max_loop_iterations=50))  # type: ignore[arg-type]
    assert run.unsupported is not None and "did not terminate after 50 iterations" in run.unsupported.reason
    assert run.unsupported.span is not None and run.unsupported.span.line == 4


def test_math_of_constants_outside_the_domain_gives_the_ieee_special(sim: Sim) -> None:
    """``rsqrtf(0)`` is +inf, ``logf(0)`` -inf, ``sqrtf(-1)`` and ``rsqrtf(-inf)`` NaN: the simulator's values,
    not an error or an opaque value."""
    src = """
    __global__ void k(const float* x, float* out) {
      float z = x[0] - x[0];
      out[0] = rsqrtf(z);
      out[1] = logf(z);
      out[2] = sqrtf(z - 1.0f);
      out[3] = log1pf(z - 1.0f);
      out[4] = rsqrtf(z - 2.0f);
      out[5] = rsqrtf(-INFINITY);
      out[6] = logf(-INFINITY);
      out[7] = erfcf(-INFINITY);
    }"""
    args = {"x": SymbolicBuffer("x", (1,), F32, "input"), "out": SymbolicBuffer("out", (8,), F32, "empty")}
    run = _sym(sim, src, "k", args, block=1)
    assert run.unsupported is None and not run.opaque
    assert run.buffers["out"] == ("+inf", "-inf", "nan", "-inf", "nan", "nan", "nan", tm.const(2))


# --------------------------------------------------------------------------------------------------
# Agreement with the simulator on every example


def _largest_small_instances(limit: int = 2048) -> list[tuple[Path, int]]:
    """Per example, ``(example, instance index)`` of its largest instance whose tensors have at most
    ``limit`` elements each (quick enough, and not a trivial size)."""
    out = []
    for d in TASK_DIRS:
        task = load_task(d)
        best: tuple[int, int] | None = None
        for k, inst in enumerate(task.instances):
            env = task.shape_env(inst)
            sizes = [math.prod(s.concrete_shape(env)) for s in task.tensors.values()]
            if all(n <= limit for n in sizes) and (best is None or sum(sizes) > best[0]):
                best = (sum(sizes), k)
        if best is not None:
            out.append((d, best[1]))
    return out


CASES = _largest_small_instances()


@pytest.mark.parametrize(("example", "k"), CASES, ids=[f"{d.parent.name}/{d.name}-{k}" for d, k in CASES])
def test_symbolic_outputs_evaluate_to_the_simulators(example: Path, k: int) -> None:
    task = load_task(example)
    env = task.shape_env(task.instances[k])
    module = parse_task(task, env)  # a Triton kernel is specialised per instance
    f = kernel_function(task, module)
    grid, block, shared = task.launch.concrete(env)
    launch = LaunchConfig(grid, block, shared)
    tensors = make_inputs(task, env, seed=0)
    ranges = {}
    for name, spec in task.inputs.items():
        r = spec.value_range(env)
        if r is not None:
            ranges[name] = (r[0], r[1] - 1)
    run = execute_symbolic(module, f.name, launch, symbolic_args(task, f, env), int_ranges=ranges)
    concrete = simulate(module, f.name, launch, kernel_args(task, f, tensors, env))
    sym_kinds = {d.kind.value for d in run.diagnoses}
    sim_kinds = {d.kind.value for d in concrete.diagnoses}
    if run.unsupported is not None:
        pytest.skip(f"symbolic execution unsupported here: {run.unsupported.reason}")
    if run.control_concrete:
        assert sym_kinds == sim_kinds
    else:
        assert sim_kinds <= sym_kinds  # data-dependent branches: a superset of the accesses
    if run.aborted or concrete.aborted:
        return
    env_values = {name: tensors[name].to(torch.float64).reshape(-1).numpy() for name in task.inputs}
    unknown = np.full(run.terms + 1, np.nan)  # opaque and undefined values evaluate to NaN
    env_values["<opaque>"] = env_values["<undef>"] = unknown
    checked = opaque = 0
    for name in task.outputs:
        got = concrete.buffers[name].to(torch.float64).reshape(-1).numpy()
        terms = run.buffers[name]
        numbers = [(i, t) for i, t in enumerate(terms) if not isinstance(t, str)]
        values = tm.evaluate([t for _, t in numbers], env_values)  # one pass over the shared DAG
        finite = got[np.isfinite(got)]
        scale = max(1.0, float(np.sqrt(np.mean(finite**2)))) if finite.size else 1.0
        tol = {"bf16": 3e-2, "f16": 4e-3}.get(str(task.outputs[name].dtype), 1e-4)
        for (i, _), value in zip(numbers, values, strict=True):
            if not math.isfinite(float(value)):
                opaque += 1
                continue
            assert abs(float(value) - got[i]) <= tol * scale + tol * abs(got[i]), f"{name}[{i}]: {value} vs {got[i]}"
            checked += 1
        for i, t in enumerate(terms):
            if t == "undef":
                written = concrete.written.get(name)
                assert (written is not None and not bool(written.reshape(-1)[i])) or np.isnan(got[i])
    assert checked or not task.outputs or sym_kinds or (opaque and run.opaque)
