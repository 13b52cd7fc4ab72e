"""Soundness of the parametric prover against the simulator, on mutated example kernels.

Each mutant changes one node of an example's IR (a comparison made strict or loose, an integer
constant moved by one, a barrier removed). The simulator runs the mutant on the task's instances: when
it reports an out-of-bounds access, a race or a divergent barrier, the prover must not have proved that
obligation; and every refutation the prover gives at simulable sizes is reproduced by the simulator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import pytest

from larkc import load_task
from larkc.errors import LarkcError
from larkc.frontends import parse_task
from larkc.ir import verify_module
from larkc.ir.nodes import Barrier, BarrierScope, Binary, BinaryOp, Const, Fence, FenceScope, Module
from larkc.ir.testing import count_nodes, replace_node
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.provers import Budget, Obligation, ObligationKind, Status
from larkc.provers.parametric import prove_parametric
from larkc.semantics import LaunchConfig, SimLimits, simulate
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"

KINDS = (ObligationKind.BOUNDS, ObligationKind.RACE, ObligationKind.BARRIER)
WORD = {ObligationKind.BOUNDS: "oob", ObligationKind.RACE: "race", ObligationKind.BARRIER: "divergence"}
BUDGET = Budget(seconds=20, solver_rlimit=8_000_000)
#: Examples cheap to prove and to simulate, covering guards, strided loops, shared tiles and reductions.
SUBJECTS = (
    "vector_add",
    "half_relu",
    "vector_add_float4",
    "grid_stride",
    "row_sum_shared",
    "matmul_tiled",
    "transpose_shared",
    "softmax_three_pass",
    "block_scan",
)
FLIP = {BinaryOp.LT: BinaryOp.LE, BinaryOp.LE: BinaryOp.LT, BinaryOp.GT: BinaryOp.GE, BinaryOp.GE: BinaryOp.GT}

Mutation = tuple[Callable[[object], bool], Callable[[object], object]]


def _is_flippable(x: object) -> bool:
    return isinstance(x, Binary) and x.op in FLIP


def _flip(x: object) -> object:
    assert isinstance(x, Binary)
    return Binary(FLIP[x.op], x.lhs, x.rhs, x.type, x.span)


def _is_small_int(x: object) -> bool:
    return isinstance(x, Const) and x.type.is_int and isinstance(x.value, int) and 0 < x.value < 4096


def _bump(delta: int) -> Callable[[object], object]:
    def go(x: object) -> object:
        assert isinstance(x, Const) and isinstance(x.value, int)
        return Const(x.value + delta, x.type, x.span)

    return go


def _is_barrier(x: object) -> bool:
    return isinstance(x, Barrier) and x.scope is BarrierScope.BLOCK


def _drop_barrier(x: object) -> object:
    assert isinstance(x, Barrier)
    return Fence(FenceScope.BLOCK, x.span)


MUTATIONS: list[Mutation] = [
    (_is_flippable, _flip),
    (_is_small_int, _bump(1)),
    (_is_small_int, _bump(-1)),
    (_is_barrier, _drop_barrier),
]


def loader(examples: Path) -> Callable[[str], tuple[Task, Module]]:
    """The example of ``examples`` by name, as its task and its IR (each loaded once)."""

    @cache
    def load(name: str) -> tuple[Task, Module]:
        task = load_task(examples / name)
        return task, parse_task(task)

    return load


subject = loader(EXAMPLES)


def mutants(
    seed: int,
    count: int,
    subjects: Sequence[str] = SUBJECTS,
    mutations: Sequence[Mutation] = MUTATIONS,
    load: Callable[[str], tuple[Task, Module]] = subject,
) -> list[tuple[str, str, Module]]:
    """``count`` well-typed mutants of ``subjects``, each one node changed by one of ``mutations``."""
    rng = random.Random(seed)
    out: list[tuple[str, str, Module]] = []
    while len(out) < count:
        name = rng.choice(subjects)
        _, module = load(name)
        pred, fn = rng.choice(mutations)
        n = count_nodes(module, pred)
        if n == 0:
            continue
        i = rng.randrange(n)
        m = replace_node(module, pred, i, fn)
        try:
            verify_module(m)
        except LarkcError:
            continue
        out.append((name, f"{getattr(fn, '__name__', 'mutation')} #{i}", m))
    return out


def simulated_failures(task: Task, module: Module, instance: dict[str, int]) -> set[str] | None:
    env = task.shape_env(instance)
    grid, block, shared = task.launch.concrete(env)
    f = kernel_function(task, module)
    args = kernel_args(task, f, make_inputs(task, env, 0), env)
    try:
        result = simulate(
            module, f.name, LaunchConfig(grid, block, shared), args, limits=SimLimits(max_loop_iterations=64)
        )
    except LarkcError:
        return None  # e.g. a loop that no longer terminates within the simulator's limits
    return {d.kind.value for d in result.diagnoses}


def check_against_simulator(
    mutated: Sequence[tuple[str, str, Module]],
    load: Callable[[str], tuple[Task, Module]],
    kinds: Sequence[ObligationKind],
    largest: int,
) -> None:
    """No obligation of ``kinds`` the simulator refutes on a mutant is proved, and every refutation at sizes
    up to ``largest`` is reproduced by the simulator."""
    for name, what, module in mutated:
        task, _ = load(name)
        results = prove_parametric(module, task.kernel, task, [Obligation(k) for k in kinds], BUDGET)
        by_kind = {r.obligation.kind: r for r in results}
        for inst in task.instances:
            failures = simulated_failures(task, module, dict(inst))
            if failures is None:
                continue
            for kind in kinds:
                if WORD[kind] in failures:
                    r = by_kind[kind]
                    assert r.status is not Status.PROVED, f"{name} {what}: {kind.value} proved, simulator: {failures}"
        for kind, r in by_kind.items():
            if r.status is not Status.REFUTED or r.counterexample is None:
                continue
            inst = dict(r.counterexample.instance)
            if any(v > largest for v in inst.values()):
                continue
            failures = simulated_failures(task, module, inst)
            if failures is not None:
                assert WORD[kind] in failures, f"{name} {what}: {r.detail}; simulator at {inst}: {failures}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_prover_never_proves_what_the_simulator_refutes(seed: int) -> None:
    check_against_simulator(mutants(seed, 6), subject, KINDS, 512)
