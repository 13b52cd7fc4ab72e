"""The prover interface: obligations in, results out.

A verification problem (a kernel, its task and, unless the task is safety-only, the reference's spec)
is split into :class:`Obligation` values, one per property to establish: functional equivalence of
each output, inputs left unchanged, in-bounds accesses, race freedom, barrier uniformity, initialised
reads, defined operations, assertions, and integer overflow freedom. A prover backend (the built-in symbolic engine,
the parametric z3 engine, later a Lean tactic portfolio or an LLM agent) takes obligations and returns
one :class:`ObligationResult` each:

* ``PROVED`` — with the exact :class:`Scope` it covers (which shape instances and launches, or every
  size satisfying which constraints) and every :class:`Assumption` the proof rests on;
* ``REFUTED`` — with a :class:`Counterexample` (the shape, the launch, the inputs that matter, the
  two values, a replay file when the simulator confirmed it);
* ``UNKNOWN`` — with the reason (an unsupported construct, a data-dependent branch, a time or size
  bound reached), and the ``witnesses`` of any violation a prover found possible but could not confirm
  (a solver's model over values it does not track exactly). Unknown is an honest answer; it is never
  turned into PROVED.

:func:`combine` merges the results several backends gave for one obligation, and :func:`verdict` the
results of all obligations into the overall verdict (``VERIFIED``, ``FAILED``, ``UNKNOWN``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, assert_never

from larkc.errors import Span

__all__ = [
    "KIND_OF_FAILURE",
    "SAME_ELEMENT_SAME_THREAD",
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


class ObligationKind(enum.Enum):
    """A property of the kernel to establish. The value is the word reports use."""

    EQUIVALENCE = "equivalence"  # an output equals the reference's output under exact arithmetic
    INPUTS = "inputs"  # every input the task does not declare in-place ends as it started (tasks with a reference)
    BOUNDS = "bounds"  # every load, store and atomic is inside its buffer and aligned
    RACE = "race"  # no two unsynchronised conflicting accesses, within a block or across blocks
    BARRIER = "barrier"  # every barrier is reached by all live threads of its block (warp) together
    INIT = "init"  # no read of memory before it is written (shared, local, "empty" buffers, inactive lanes)
    DEFINED = "defined"  # no undefined operation (integer division by zero, shift out of range, ...)
    ASSERT = "assert"  # every assert() holds
    OVERFLOW = "overflow"  # signed index arithmetic never overflows, unsigned never wraps into an address
    LAUNCH = "launch"  # every launch the task's constraints allow is one CUDA accepts (grid, block, shared memory)
    KERNEL = "kernel"  # a task with PyTorch steps launches a kernel of its own (one that is all PyTorch is no kernel)

    @property
    def failure_kind(self) -> str:
        """The word a refutation of this obligation reports (the task's ``expected_failure`` words)."""
        return _FAILURE_WORD[self]


_FAILURE_WORD = {
    ObligationKind.EQUIVALENCE: "mismatch",
    ObligationKind.INPUTS: "input-write",
    ObligationKind.BOUNDS: "oob",
    ObligationKind.RACE: "race",
    ObligationKind.BARRIER: "divergence",
    ObligationKind.INIT: "uninit",
    ObligationKind.DEFINED: "ub",
    ObligationKind.ASSERT: "assert",
    ObligationKind.OVERFLOW: "overflow",
    ObligationKind.LAUNCH: "launch",
    ObligationKind.KERNEL: "not-a-kernel",
}

#: The obligation kind a diagnosis word refutes (the inverse of :attr:`ObligationKind.failure_kind`).
KIND_OF_FAILURE = {v: k for k, v in _FAILURE_WORD.items()}


@dataclass(frozen=True, slots=True)
class Obligation:
    """One property to establish. ``subject`` is the output name for ``EQUIVALENCE`` and ``""`` for
    properties of the whole kernel; ``span`` the kernel construct it is about, where there is one."""

    kind: ObligationKind
    subject: str = ""
    span: Span | None = None

    @property
    def name(self) -> str:
        """``equivalence(out)``, ``bounds``, ...: how reports name the obligation."""
        return f"{self.kind.value}({self.subject})" if self.subject else self.kind.value


class ScopeKind(enum.Enum):
    """How far a result reaches."""

    BOUNDED = "bounded"  # exactly the listed shape instances and their launches
    PARAMETRIC = "parametric"  # every size satisfying the listed constraints (and the launch they give)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a result covers.

    Bounded: ``instances`` (symbol values) with ``launches`` (one text per instance, e.g.
    ``grid 4x1x1, block 256x1x1``). Parametric: every assignment of the task's ``symbols`` satisfying
    ``constraints`` (the task's, plus what the prover added, such as kernel parameter ranges).
    """

    kind: ScopeKind
    instances: tuple[Mapping[str, int], ...] = ()
    launches: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()

    @staticmethod
    def bounded(instances: Sequence[Mapping[str, int]], launches: Sequence[str]) -> Scope:
        return Scope(ScopeKind.BOUNDED, tuple(dict(i) for i in instances), tuple(launches))

    @staticmethod
    def parametric(symbols: Sequence[str], constraints: Sequence[str]) -> Scope:
        return Scope(ScopeKind.PARAMETRIC, symbols=tuple(symbols), constraints=tuple(constraints))

    def merge(self, other: Scope) -> Scope:
        """The union of two scopes of one obligation (a parametric scope covers every bounded one)."""
        if self.kind is ScopeKind.PARAMETRIC:
            return self
        if other.kind is ScopeKind.PARAMETRIC:
            return other
        pairs = list(zip(self.instances, self.launches, strict=True))
        for inst, launch in zip(other.instances, other.launches, strict=True):
            if (inst, launch) not in pairs:
                pairs.append((inst, launch))
        return Scope.bounded([p[0] for p in pairs], [p[1] for p in pairs])

    def describe(self) -> str:
        match self.kind:
            case ScopeKind.BOUNDED:
                parts = []
                for inst, launch in zip(self.instances, self.launches, strict=True):
                    shape = ", ".join(f"{k}={v}" for k, v in inst.items()) or "no symbols"
                    parts.append(f"{shape} ({launch})")
                return "for " + "; ".join(parts) if parts else "for no instance"
            case ScopeKind.PARAMETRIC:
                cons = " and ".join(self.constraints) if self.constraints else "no constraint"
                syms = ", ".join(self.symbols) if self.symbols else "the launch"
                return f"for all {syms} with {cons}"
            case _:
                assert_never(self.kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "instances": [dict(i) for i in self.instances],
            "launches": list(self.launches),
            "symbols": list(self.symbols),
            "constraints": list(self.constraints),
        }


class AssumptionKind(enum.Enum):
    """Where an assumption comes from. Every verdict lists its assumptions; none is silent."""

    MODEL = "model"  # the verification model itself (exact arithmetic, no aliasing, the task's launch)
    TASK = "task"  # something the task declares (value ranges of index tensors, constraints)
    NUMERIC = "numeric"  # a float-specific step (a literal read as a named constant, a sentinel max start)
    DOMAIN = "domain"  # the inputs lie where the reference is defined (its log arguments positive, its
    # divisors nonzero): a kernel that simplifies the same partial function is not refuted outside it
    TRUSTED = "trusted"  # a component trusted without a check (the frontend's reading of the source)
    PRECONDITION = "precondition"  # a precondition of the kernel (GPUVerify's __requires): the verdict is
    # about the executions that satisfy it


@dataclass(frozen=True, slots=True)
class Assumption:
    """A statement a result holds under. Equal texts are one assumption."""

    kind: AssumptionKind
    text: str
    span: Span | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "text": self.text, "location": self.span.location() if self.span else None}


#: The race model of a block-level (Triton) kernel rests on this, bounded or parametric
#: (docs/trusted-base.md, "Triton elements and threads").
SAME_ELEMENT_SAME_THREAD = Assumption(
    AssumptionKind.MODEL,
    "an element of a Triton block is held by the same GPU thread from statement to statement for blocks of one"
    " shape (a program reading back its own elements needs no tl.debug_barrier(); Triton does not promise"
    " it: triton-lang/triton#10924)",
)


class CounterexampleKind(enum.Enum):
    """How a refutation was established."""

    CONFIRMED = "confirmed"  # the simulator, at the kernel's dtypes, reproduces the failure
    EXACT = "exact"  # kernel and reference differ under exact arithmetic; in floating point the difference
    # is within rounding (or the simulator does not see it): still a refutation, of the exact claim
    STATIC = "static"  # a solver's model (e.g. sizes at which an index overflows), too large to simulate
    POSSIBLE = "possible"  # a solver's model that may not be realisable (it involves values the prover does not
    # track exactly: a havocked loop value, loaded data); never a refutation, only an UNKNOWN's witness


@dataclass(frozen=True, slots=True)
class Counterexample:
    """Evidence that an obligation fails.

    ``instance`` gives the symbol values, ``launch`` the launch text, ``message`` the one-line
    description (the element and the two values, the two racing accesses, the overflowing
    expression), ``inputs`` the input values that matter (tensor name to ``{flat index: value}``),
    ``replay`` the path of a replay file that ``larkc run --replay`` runs. ``tensor`` names the tensor
    ``element`` is of: the output that differs, or the input that changes (its two values are then the
    element's value after and before the launch).
    """

    kind: CounterexampleKind
    message: str
    instance: Mapping[str, int] = field(default_factory=dict)
    launch: str = ""
    span: Span | None = None
    element: tuple[int, ...] | None = None
    kernel_value: float | None = None
    reference_value: float | None = None
    inputs: Mapping[str, Mapping[int, float]] = field(default_factory=dict)
    replay: str | None = None
    tensor: str = ""
    #: True: the values differ under exact arithmetic, which float rounding may hide (so a simulator that
    #: sees no difference does not contradict it: :attr:`CounterexampleKind.EXACT`); False: a claim about
    #: what the kernel computes at all (an element never written, a non-finite value), which a run at the
    #: same inputs either reproduces or contradicts
    arithmetic: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "instance": dict(self.instance),
            "launch": self.launch,
            "location": self.span.location() if self.span else None,
            "tensor": self.tensor or None,
            "element": list(self.element) if self.element is not None else None,
            "kernel_value": self.kernel_value,
            "reference_value": self.reference_value,
            "inputs": {t: {str(i): v for i, v in vals.items()} for t, vals in self.inputs.items()},
            "replay": self.replay,
        }


class Status(enum.Enum):
    """The outcome of one obligation."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ObligationResult:
    """What one prover established about one obligation.

    ``detail`` says how (``"terms equal after normalisation"``, ``"z3: unsat in 0.1 s"``) for a proof
    and why for an unknown; ``prover`` names the backend; ``seconds`` its time on this obligation.
    ``witnesses`` (an unknown only) are the possible violations a prover found and nobody confirmed or
    dismissed, each with the sizes it is at: the obligation may fail there, so a proof at other instances
    does not cover it (:func:`combine`). An unknown without witnesses is one the prover could not model.
    """

    obligation: Obligation
    status: Status
    scope: Scope
    prover: str
    detail: str = ""
    assumptions: tuple[Assumption, ...] = ()
    counterexample: Counterexample | None = None
    seconds: float = 0.0
    witnesses: tuple[Counterexample, ...] = ()

    def __post_init__(self) -> None:
        if (self.status is Status.REFUTED) != (self.counterexample is not None):
            raise ValueError("a refutation carries a counterexample, and only a refutation")
        if self.witnesses and self.status is not Status.UNKNOWN:
            raise ValueError("witnesses of a possible violation belong to an unknown result only")

    def to_json(self) -> dict[str, Any]:
        return {
            "obligation": self.obligation.name,
            "kind": self.obligation.kind.value,
            "subject": self.obligation.subject or None,
            "status": self.status.value,
            "scope": self.scope.to_json(),
            "scope_text": self.scope.describe(),
            "prover": self.prover,
            "detail": self.detail,
            "assumptions": [a.to_json() for a in self.assumptions],
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "witnesses": [w.to_json() for w in self.witnesses],
            "seconds": round(self.seconds, 4),
        }


#: The default of :attr:`Budget.memory_bytes`: 4 GiB, well under a developer machine or a CI runner.
DEFAULT_MEMORY_BYTES = 4 * 2**30


@dataclass(frozen=True, slots=True)
class Budget:
    """Bounds on the effort of a prover: past one, the obligation is UNKNOWN with the reason.

    ``seconds``: wall time per obligation (per shape instance for bounded provers), a safety net only:
    its expiry is reported as such (the verdict then depends on the machine's load); ``term_size``: the
    largest term (summands) a normaliser may build; ``solver_rlimit``: the work of one solver call, in
    z3's resource units (``rlimit``: the same on any machine; about 1 to 5 million a second);
    ``memory_bytes``: the most memory one simulation or symbolic run of an instance may need, estimated
    before it starts (:mod:`larkc.pipeline.memory`): a run past it is not started (UNKNOWN, or the
    solver's model kept as the evidence of a counterexample).
    """

    seconds: float = 300.0
    term_size: int = 2_000_000
    solver_rlimit: int = 40_000_000
    memory_bytes: int = DEFAULT_MEMORY_BYTES


class Prover(Protocol):
    """A prover backend. ``prove`` returns one result per obligation, in order, and never raises for a
    property of the kernel (an unsupported construct is an UNKNOWN result, not an exception)."""

    name: str

    def prove(self, obligations: Sequence[Obligation], budget: Budget) -> list[ObligationResult]: ...


def combine(results: Iterable[ObligationResult]) -> ObligationResult:
    """One result for one obligation from the results of several provers (or instances).

    A refutation wins (the first one); otherwise the obligation is proved when a parametric proof covers
    it (it covers every bounded instance), or when some results prove it and none of the bounded ones is
    unknown: the scopes and assumptions of the proofs are merged, and the proof is bounded. A parametric
    attempt that ended unknown because it could not model the kernel then does not block the bounded
    proof (the bounded scope says what was proved) but its reason stays in the detail; one that carries
    ``witnesses`` (a violation it found possible at some sizes, neither confirmed nor dismissed) does: a
    proof at other sizes says nothing about those. Otherwise it is unknown, with every reason and witness.
    """
    items = list(results)
    if not items:
        raise ValueError("no results to combine")
    ob = items[0].obligation
    for r in items:
        if r.obligation != ob:
            raise ValueError(f"results of different obligations: {ob.name} and {r.obligation.name}")
        if r.status is Status.REFUTED:
            return r
    proofs = [r for r in items if r.status is Status.PROVED]
    unknown = [r for r in items if r.status is Status.UNKNOWN]
    parametric = [r for r in proofs if r.scope.kind is ScopeKind.PARAMETRIC]
    if parametric:
        best = parametric[0]
        return best
    witnesses = tuple(w for r in unknown for w in r.witnesses)
    if proofs and not witnesses and all(r.scope.kind is ScopeKind.PARAMETRIC for r in unknown):
        scope = proofs[0].scope
        for r in proofs[1:]:
            scope = scope.merge(r.scope)
        details = [r.detail for r in proofs if r.detail]
        details += [f"for all sizes unknown: {r.detail}" for r in unknown if r.detail]
        return ObligationResult(
            ob,
            Status.PROVED,
            scope,
            "+".join(dict.fromkeys(r.prover for r in proofs)),
            "; ".join(dict.fromkeys(details)),
            _merge_assumptions(r.assumptions for r in proofs),
            None,
            sum(r.seconds for r in items),
        )
    reasons = "; ".join(dict.fromkeys(r.detail for r in unknown if r.detail))
    scope = unknown[0].scope
    for r in unknown[1:]:
        scope = scope.merge(r.scope)
    return ObligationResult(
        ob,
        Status.UNKNOWN,
        scope,
        "+".join(dict.fromkeys(r.prover for r in items)),
        reasons,
        _merge_assumptions(r.assumptions for r in items),
        None,
        sum(r.seconds for r in items),
        witnesses,
    )


def _merge_assumptions(groups: Iterable[Iterable[Assumption]]) -> tuple[Assumption, ...]:
    seen: dict[tuple[AssumptionKind, str], Assumption] = {}
    for g in groups:
        for a in g:
            seen.setdefault((a.kind, a.text), a)
    return tuple(seen.values())


class Verdict(enum.Enum):
    """The overall answer of ``larkc verify``, with its exit status."""

    VERIFIED = "VERIFIED"  # every obligation proved
    FAILED = "FAILED"  # some obligation refuted
    UNKNOWN = "UNKNOWN"  # nothing refuted, not everything proved

    @property
    def exit_code(self) -> int:
        return {Verdict.VERIFIED: 0, Verdict.FAILED: 1, Verdict.UNKNOWN: 4}[self]


def verdict(results: Iterable[ObligationResult]) -> Verdict:
    """FAILED if any result is refuted, VERIFIED if all are proved, UNKNOWN otherwise (and for none)."""
    items = list(results)
    if any(r.status is Status.REFUTED for r in items):
        return Verdict.FAILED
    if items and all(r.status is Status.PROVED for r in items):
        return Verdict.VERIFIED
    return Verdict.UNKNOWN
