"""Soundness of the parametric prover on block-level kernels, against the simulator: mutated Triton
examples (a mask dropped from a load or store, a comparison made strict or loose, an integer constant
moved by one). When the simulator reports an out-of-bounds access or a race at an instance of the
mutant's specialisation, the prover must not have proved that obligation; and every refutation at sizes
small enough to simulate is reproduced by the simulator (test_parametric_mutants.py does the same for
CUDA kernels, and lends its mutations and its simulator run).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_parametric_mutants import MUTATIONS, Mutation, check_against_simulator, loader, mutants, simulated_failures

from larkc.ir.nodes import Load, Store
from larkc.ir.testing import count_nodes, replace_node
from larkc.provers import Budget, Obligation, ObligationKind, Status
from larkc.provers.parametric import prove_parametric

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "triton"
KINDS = (ObligationKind.BOUNDS, ObligationKind.RACE)
BUDGET = Budget(seconds=20, solver_rlimit=8_000_000)
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


subject = loader(EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_prover_never_proves_what_the_simulator_refutes(seed: int) -> None:
    check_against_simulator(mutants(seed, 6, SUBJECTS, TRITON_MUTATIONS, subject), subject, KINDS, 4096)


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
