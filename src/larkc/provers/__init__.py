"""Prover backends behind one interface (:mod:`larkc.provers.core`): obligations in, results out.

Backends: the built-in symbolic engine (exact terms, bounded per shape instance) and the parametric
z3 engine (safety and integer overflow for all sizes). Later: a Lean tactic portfolio, an LLM agent.
"""

from larkc.provers.core import (
    KIND_OF_FAILURE,
    Assumption,
    AssumptionKind,
    Budget,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Prover,
    Scope,
    ScopeKind,
    Status,
    Verdict,
    combine,
    verdict,
)

__all__ = [
    "KIND_OF_FAILURE",
    "Assumption",
    "AssumptionKind",
    "Budget",
    "Counterexample",
    "CounterexampleKind",
    "Obligation",
    "ObligationKind",
    "ObligationResult",
    "Prover",
    "Scope",
    "ScopeKind",
    "Status",
    "Verdict",
    "combine",
    "verdict",
]
