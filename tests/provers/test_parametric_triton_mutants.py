"""Soundness of the parametric prover on block-level kernels, against the simulator: mutated Triton
examples (a mask dropped from a load or store, a comparison made strict or loose, an integer constant
moved by one). When the simulator reports an out-of-bounds access or a race at an instance of the
mutant's specialisation, the prover must not have proved that obligation; and every refutation at sizes
small enough to simulate is reproduced by the simulator (test_parametric_mutants.py does the same for
CUDA kernels, and lends its mutations and its simulator run).
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from test_parametric_mutants import MUTATIONS, WORD, Mutation, simulated_failures

from larkc import load_task
from larkc.errors import LarkcError
from larkc.frontends import parse_task
from larkc.ir import verify_module
from larkc.ir.nodes import Load, Module, Store
from larkc.ir.testing import count_nodes, replace_node
from larkc.provers import Budget, Obligation, ObligationKind, Status
from larkc.provers.parametric import prove_parametric
from larkc.tasks import Task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triton"
KINDS = (ObligationKind.BOUNDS, ObligationKind.RACE)
BUDGET = Budget(seconds=20, solver_ms=2000)
#: Examples whose kernel is one specialisation at every instance (their constexprs are constants), cheap
#: to prove and to simulate: 1-D tiles, rows in column tiles, 2-D tiles, an atomic, a combine.
SUBJECTS = ("vector_add", "geglu", "row_bias_overflow_free", "row_sum_atomic", "transpose", "welford", "swiglu")


def _is_masked(x: object) -> bool:
    return isinstance(x, Load | Store) and x.mask is not None


def _drop_mask(x: object) -> object:
    if isinstance(x, Load):
        return Load(x.dst, x.ptr, None, None, x.span)
    assert isinstance(x, Store)
    return Store(x.ptr, x.value, None, x.span)


TRITON_MUTATIONS: list[Mutation] = [(_is_masked, _drop_mask), (_is_masked, _drop_mask), *MUTATIONS[:3]]


@cache
def subject(name: str) -> tuple[Task, Module]:
    task = load_task(EXAMPLES / name)
    return task, parse_task(task)


def mutants(seed: int, count: int) -> list[tuple[str, str, Module]]:
    rng = random.Random(seed)
    out: list[tuple[str, str, Module]] = []
    while len(out) < count:
        name = rng.choice(SUBJECTS)
        _, module = subject(name)
        pred, fn = rng.choice(TRITON_MUTATIONS)
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


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_prover_never_proves_what_the_simulator_refutes(seed: int) -> None:
    for name, what, module in mutants(seed, 6):
        task, _ = subject(name)
        results = prove_parametric(module, task.kernel, task, [Obligation(k) for k in KINDS], BUDGET)
        by_kind = {r.obligation.kind: r for r in results}
        for inst in task.instances:
            failures = simulated_failures(task, module, dict(inst))
            if failures is None:
                continue
            for kind in KINDS:
                if WORD[kind] in failures:
                    r = by_kind[kind]
                    assert r.status is not Status.PROVED, f"{name} {what}: {kind.value} proved, simulator: {failures}"
        for kind, r in by_kind.items():
            if r.status is not Status.REFUTED or r.counterexample is None:
                continue
            inst = dict(r.counterexample.instance)
            if any(v > 4096 for v in inst.values()):
                continue
            failures = simulated_failures(task, module, inst)
            if failures is not None:
                assert WORD[kind] in failures, f"{name} {what}: {r.detail}; simulator at {inst}: {failures}"


def test_dropping_a_mask_is_caught_for_all_sizes() -> None:
    """The one mutation of every masked example that must be refuted: vector_add without the store's mask."""
    task, module = subject("vector_add")
    stores = count_nodes(module, lambda x: isinstance(x, Store) and x.mask is not None)
    m = replace_node(module, lambda x: isinstance(x, Store) and x.mask is not None, stores - 1, _drop_mask)
    (r,) = prove_parametric(m, task.kernel, task, [Obligation(ObligationKind.BOUNDS)], BUDGET)
    assert r.status is Status.REFUTED, r.detail
    assert r.counterexample is not None
    failures = simulated_failures(task, m, dict(r.counterexample.instance))
    assert failures is not None and "oob" in failures
