"""Verify a mutant with ``larkc verify``, and check what it proved against the simulator.

A mutant is verified on the instances where the original example verifies (its smallest one or two).
Whatever the verdict, every obligation the verifier PROVED is checked against simulation: the mutant
runs on seeded random inputs at those instances (and at every instance of the task for obligations
proved for all sizes), and a diagnosis that the original does not show on the same inputs (an
out-of-bounds access, a race, a mismatch with the reference, ...) contradicts the proof of the
obligation it refutes. A VERIFIED mutant is further compared with the original, output by output, on
several seeds and on adversarial inputs (:data:`PATTERNS`); any difference beyond float rounding,
any new diagnosis, is a **soundness bug**. Otherwise the mutant is an *equivalent mutant* on those
instances, with the runs as evidence.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from mutate import Mutant, walk

from larkc import load_task
from larkc.errors import LarkcError
from larkc.frontends import parse_task
from larkc.ir import verify_module
from larkc.ir.nodes import Alloc, Module
from larkc.ir.types import F64, ArrayType, PointerType, ScalarType, Type, VectorType
from larkc.pipeline.compare import tolerance_for
from larkc.pipeline.reports import VerifyReport
from larkc.pipeline.run import run_instance
from larkc.pipeline.verify import verify_task
from larkc.provers import KIND_OF_FAILURE, Budget, ObligationKind, ObligationResult, ScopeKind, Status, Verdict
from larkc.semantics import SimLimits, SimResult
from larkc.tasks import Task, TensorSpec

__all__ = [
    "BUDGET",
    "PATTERNS",
    "MutantResult",
    "Subject",
    "check_mutant",
    "compare_runs",
    "load_subject",
    "overflow_only",
    "pattern_inputs",
]

#: The prover budget for one mutant: short, the instances are small.
BUDGET = Budget(seconds=8, solver_rlimit=4_000_000)
#: Simulation limits: a mutated loop that no longer ends stops here (a simulation error, not a hang).
LIMITS = SimLimits(max_loop_iterations=20_000)
#: Seeds of the random-input runs of a VERIFIED mutant (the first is also the one run for every mutant).
SEEDS = (0, 1, 2)
#: A difference from the original beyond this many times the output dtype's tolerance is not rounding.
ROUNDING_FACTOR = 16.0

Instance = dict[str, int]


# --------------------------------------------------------------------------------------------------
# Subjects: an example prepared for mutation


@dataclass(frozen=True, slots=True)
class Subject:
    """An example, its IR, and the instances its mutants are verified on (where the original verifies)."""

    name: str
    task: Task
    module: Module
    instances: tuple[Instance, ...]
    #: what the original's verification gave on each candidate instance tried, smallest first
    baseline: tuple[tuple[Instance, str], ...]


def _size(task: Task, inst: Mapping[str, int]) -> int:
    env = task.shape_env(inst)
    return sum(math.prod(s.concrete_shape(env)) for s in task.tensors.values())


def load_subject(
    example: Path, count: int = 2, budget: Budget = BUDGET, instances: Sequence[Instance] | None = None
) -> Subject:
    """The example at ``example`` with its ``count`` smallest instances (by total tensor elements) on
    which the original verifies; when fewer verify, the smallest ones that do not fail or crash.

    Given ``instances``, those are used as they are (no verification of the original).
    """
    task = load_task(example)
    module = parse_task(task)
    if instances is not None:
        return Subject(example.name, task, module, tuple(dict(i) for i in instances), ())
    candidates = sorted((dict(i) for i in task.instances), key=lambda i: _size(task, i))
    baseline: list[tuple[Instance, str]] = []
    for inst in candidates:
        try:
            v = verify_task(task, module=module, instances=[inst], budget=budget, replay_dir=_replays()).verdict.value
        except Exception as e:  # a crash of the verifier on the original: the instance is not usable
            v = f"error: {type(e).__name__}: {e}"
        baseline.append((inst, v))
        if sum(1 for _, b in baseline if b == Verdict.VERIFIED.value) == count:
            break
    chosen = [i for i, v in baseline if v == Verdict.VERIFIED.value]
    if not chosen:
        chosen = [i for i, v in baseline if v == Verdict.UNKNOWN.value][:count]
    return Subject(example.name, task, module, tuple(chosen), tuple(baseline))


def _replays() -> Path:
    return Path(tempfile.gettempdir()) / "larkc-mutation-replays"


# --------------------------------------------------------------------------------------------------
# Inputs


#: Values of one input tensor from a generator, its shape, and the dtype's "large" scale.
Maker = Callable[[torch.Generator, tuple[int, ...], float], torch.Tensor]


def _near_constant(g: torch.Generator, shape: tuple[int, ...], scale: float) -> torch.Tensor:
    rows = (*shape[:-1], 1) if shape else ()
    level = 1.0 + torch.randn(rows, generator=g).abs() * 2
    return level + 1e-3 * level * torch.randn(shape, generator=g)


#: Adversarial inputs for every float input tensor, by name. Integer inputs (indices) keep their
#: seeded random values.
PATTERNS: tuple[tuple[str, Maker], ...] = (
    ("negative", lambda g, s, big: -(torch.randn(s, generator=g).abs() + 0.5)),
    ("near-constant", _near_constant),
    ("zeros", lambda g, s, big: torch.zeros(s)),
    ("tiny", lambda g, s, big: torch.randn(s, generator=g) / big),
    ("huge", lambda g, s, big: torch.randn(s, generator=g) * big),
    ("ties", lambda g, s, big: torch.randint(-2, 3, s, generator=g).to(torch.float32)),
)

_LARGE = {"f32": 1e4, "f64": 1e4, "f16": 1e2, "bf16": 1e2}


def pattern_inputs(task: Task, inst: Mapping[str, int], pattern: str) -> dict[str, dict[int, float]]:
    """Explicit values of every float input element for ``pattern`` (see :data:`PATTERNS`)."""
    make = dict(PATTERNS)[pattern]
    env = task.shape_env(inst)
    g = torch.Generator().manual_seed(1000 + [p for p, _ in PATTERNS].index(pattern))
    out: dict[str, dict[int, float]] = {}
    for name, spec in task.inputs.items():
        if not spec.dtype.is_float:
            continue
        shape = tuple(spec.concrete_shape(env))
        values = make(g, shape, _LARGE.get(str(spec.dtype), 1e4)).reshape(-1)
        out[name] = {i: float(v) for i, v in enumerate(values.tolist())}
    return out


# --------------------------------------------------------------------------------------------------
# Simulation and comparison


@dataclass(frozen=True, slots=True)
class Run:
    """One simulated launch: which inputs, the diagnosis words and the outputs that mismatch the
    reference, the outputs (``None``: a simulation error or an aborted launch)."""

    label: str
    kinds: frozenset[str]
    mismatched: frozenset[str]
    buffers: Mapping[str, torch.Tensor] | None
    written: Mapping[str, torch.Tensor | None]
    error: str | None = None


def simulate(task: Task, module: Module, inst: Instance, seed: int, pattern: str | None) -> Run:
    shape = ", ".join(f"{k}={v}" for k, v in inst.items())
    label = f"{shape} seed {seed}" + (f" inputs {pattern}" if pattern else "")
    inputs = pattern_inputs(task, inst, pattern) if pattern else None
    try:
        rep, res = run_instance(task, module, inst, seed, limits=LIMITS, inputs=inputs)
    except LarkcError as e:
        return Run(label, frozenset(), frozenset(), None, {}, f"{type(e).__name__}: {e}")
    kinds = frozenset(rep.kinds())
    mismatched = frozenset(d.buffer for d in rep.diagnoses if d.kind.value == "mismatch" and d.buffer)
    return Run(label, kinds, mismatched, _outputs(task, res), {n: res.written.get(n) for n in task.outputs})


def _outputs(task: Task, res: SimResult) -> Mapping[str, torch.Tensor] | None:
    return None if res.aborted else {n: res.buffers[n] for n in task.outputs}


def compare_runs(task: Task, original: Run, mutant: Run) -> list[str]:
    """How the mutant's run differs from the original's on the same inputs (empty: no difference).

    Differences: a simulation error or new diagnosis words, an output element written by one and not
    the other, or an output element that differs beyond :data:`ROUNDING_FACTOR` times the dtype's
    tolerance (NaNs equal NaNs, infinities equal themselves).
    """
    out: list[str] = []
    if mutant.error and not original.error:
        out.append(f"{mutant.label}: the mutant's simulation fails: {mutant.error}")
    new = mutant.kinds - original.kinds
    if new:
        out.append(f"{mutant.label}: diagnoses the original does not have: {', '.join(sorted(new))}")
    if original.buffers is None or mutant.buffers is None:
        return out
    for name, spec in task.outputs.items():
        a, b = original.buffers[name].reshape(-1), mutant.buffers[name].reshape(-1)
        wa, wb = original.written.get(name), mutant.written.get(name)
        if wa is not None and wb is not None and not torch.equal(wa, wb):
            i = int((wa != wb).reshape(-1).nonzero()[0])
            who = "the original" if bool(wa.reshape(-1)[i]) else "the mutant"
            out.append(f"{mutant.label}: {name}[{i}] written by {who} only")
            continue
        mask = wa.reshape(-1) if wa is not None else torch.ones_like(a, dtype=torch.bool)
        a64, b64, bad = _differing(task, spec.dtype, a, b, mask)
        if bool(bad.any()):
            j = int(bad.nonzero()[0])
            flat = int(mask.nonzero()[j])
            out.append(
                f"{mutant.label}: {name}[{flat}] is {b64[j].item()!r} in the mutant, {a64[j].item()!r} in the original "
                f"({int(bad.sum())} element(s) differ)"
            )
    return out


def _differing(
    task: Task, dtype: ScalarType, a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The written elements of ``a`` and ``b`` as float64, and which of them differ beyond rounding."""
    a64, b64 = a.to(torch.float64)[mask], b.to(torch.float64)[mask]
    same = (a64 == b64) | (torch.isnan(a64) & torch.isnan(b64))
    tol = tolerance_for(task, dtype)
    finite = torch.isfinite(a64)
    scale = max(1.0, float(a64[finite].pow(2).mean().sqrt())) if bool(finite.any()) else 1.0
    allowed = ROUNDING_FACTOR * (tol.atol * scale + tol.rtol * a64.abs())
    diff = (a64 - b64).abs()
    return a64, b64, ~same & ~(diff <= allowed)


def overflow_only(task: Task, original: Run, mutant: Run) -> bool:
    """Whether every difference of the mutant's run from the original's is an element the original
    computes as a finite number and the mutant as an infinity or NaN (a float overflow: under exact
    arithmetic, which is what ``larkc verify`` proves, there is none), with no new diagnosis but the
    mismatch that such an element causes."""
    if mutant.error or original.buffers is None or mutant.buffers is None:
        return False
    if not mutant.kinds - original.kinds <= {"mismatch"}:
        return False
    for name, spec in task.outputs.items():
        wa, wb = original.written.get(name), mutant.written.get(name)
        if wa is not None and wb is not None and not torch.equal(wa, wb):
            return False
        a = original.buffers[name].reshape(-1)
        mask = wa.reshape(-1) if wa is not None else torch.ones_like(a, dtype=torch.bool)
        a64, b64, bad = _differing(task, spec.dtype, a, mutant.buffers[name].reshape(-1), mask)
        if not bool((torch.isfinite(a64[bad]) & ~torch.isfinite(b64[bad])).all()):
            return False
    return True


# --------------------------------------------------------------------------------------------------
# Float64: is a difference rounding?


def _widen_type(t: Type) -> Type:
    match t:
        case ScalarType() if t.is_float:
            return F64
        case VectorType() if t.elem.is_float:
            return VectorType(F64, t.lanes, t.align * F64.size // t.elem.size)
        case PointerType():
            return dataclasses.replace(t, pointee=_widen_type(t.pointee))
        case ArrayType():
            return ArrayType(_widen_type(t.elem), t.length)
        case _:
            return t


def _widen(x: object) -> object:
    if isinstance(x, tuple):
        return tuple(_widen(i) for i in x)
    if isinstance(x, ScalarType | VectorType | PointerType | ArrayType):
        return _widen_type(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type) and type(x).__module__ == "larkc.ir.nodes":
        changes = {f.name: _widen(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "span"}
        return dataclasses.replace(x, **changes)
    return x


def widen_module(module: Module) -> Module | None:
    """``module`` with every float type (scalars, vector lanes, pointees) made ``f64``; ``None`` when
    that does not type-check (bit casts between floats and integers) or changes memory sizes that the
    launch fixes (dynamic shared memory)."""
    if any(isinstance(s.node, Alloc) and s.node.count is None for s in walk(module.functions)):
        return None
    wide = _widen(module)
    assert isinstance(wide, Module)
    try:
        verify_module(wide)
    except LarkcError:
        return None
    return wide


def widen_task(task: Task) -> Task:
    """``task`` with every float tensor ``f64`` (and the ``f64`` tolerance)."""

    def wide(specs: Mapping[str, TensorSpec]) -> dict[str, TensorSpec]:
        return {n: dataclasses.replace(s, dtype=F64) if s.dtype.is_float else s for n, s in specs.items()}

    return dataclasses.replace(
        task, inputs=wide(task.inputs), outputs=wide(task.outputs), scratch=wide(task.scratch), tolerance={}
    )


def rounding_only(subject: Subject, mutant: Module, inst: Instance, seed: int, pattern: str | None) -> bool | None:
    """Whether the original and ``mutant`` agree on this run when every float is ``f64`` (so the
    difference at the task's precision is rounding); ``None`` when the kernels cannot be widened."""
    wide_original, wide_mutant = widen_module(subject.module), widen_module(mutant)
    if wide_original is None or wide_mutant is None:
        return None
    task = widen_task(subject.task)
    o = simulate(task, wide_original, inst, seed, pattern)
    m = simulate(task, wide_mutant, inst, seed, pattern)
    if o.error or o.buffers is None:
        return None
    return not compare_runs(task, o, m)


# --------------------------------------------------------------------------------------------------
# One mutant


@dataclass(slots=True)
class MutantResult:
    """What verifying and simulating one mutant gave. ``classification`` is one of ``killed`` (FAILED),
    ``unknown``, ``error`` (the verifier raised), ``timeout`` (set by the driver), ``equivalent``
    (VERIFIED, no difference found), ``float-overflow`` (VERIFIED, equal to the original on every seed,
    but on adversarial inputs the mutant overflows to inf/NaN where the original stays finite: equal under
    exact arithmetic, which is the claim, and listed for review) and ``soundness-bug`` (a proof the
    simulator contradicts)."""

    example: str
    key: str
    kind: str
    function: str
    path: str
    description: str
    instances: list[Instance]
    verdict: str = ""
    classification: str = ""
    obligations: dict[str, str] = field(default_factory=dict)
    refuted: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    verify_seconds: float = 0.0
    error: str | None = None
    #: PROVED obligations that a simulation run contradicts, with the run
    contradicted: list[str] = field(default_factory=list)
    #: for VERIFIED mutants: differences from the original (soundness bugs), else the runs compared
    differences: list[str] = field(default_factory=list)
    runs_compared: int = 0
    #: differences at the task's precision that vanish when every float is f64 (not bugs)
    rounding: list[str] = field(default_factory=list)
    #: differences on adversarial inputs where only the mutant overflows to inf/NaN (see overflow_only)
    overflow: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_mutant(subject: Subject, mutant: Mutant, budget: Budget = BUDGET, full: bool = True) -> MutantResult:
    """Verify ``mutant`` on the subject's instances and check the proofs against simulation.

    ``full=False`` skips the adversarial comparison of VERIFIED mutants (only seed 0 is compared).
    """
    t0 = time.perf_counter()
    r = MutantResult(
        subject.name,
        mutant.key,
        mutant.kind.value,
        mutant.function,
        ".".join(str(p) for p in mutant.path),
        mutant.description,
        [dict(i) for i in subject.instances],
    )
    try:
        report = verify_task(
            subject.task, module=mutant.module, instances=subject.instances, budget=budget, replay_dir=_replays()
        )
    except Exception as e:
        r.verdict = r.classification = "error"
        r.error = f"{type(e).__name__}: {e} [{_where(e)}]"
        r.seconds = time.perf_counter() - t0
        return r
    r.verify_seconds = report.seconds
    r.verdict = report.verdict.value
    r.obligations = {x.obligation.name: _status(x) for x in report.results}
    r.refuted = [f"{x.obligation.name}: {x.counterexample.message}" for x in report.results if x.counterexample]
    r.assumptions = [f"[{a.kind.value}] {a.text}" for a in report.assumptions()]
    originals: dict[tuple[str, int, str | None], Run] = {}

    def pair(inst: Instance, seed: int, pattern: str | None) -> tuple[Run, Run]:
        key = (repr(sorted(inst.items())), seed, pattern)
        if key not in originals:
            originals[key] = simulate(subject.task, subject.module, inst, seed, pattern)
        return originals[key], simulate(subject.task, mutant.module, inst, seed, pattern)

    r.contradicted = _contradictions(subject, mutant.module, report, pair)
    if report.verdict is Verdict.VERIFIED:
        plans: list[tuple[Instance, int, str | None]] = [
            (i, s, None) for i in subject.instances for s in (SEEDS if full else SEEDS[:1])
        ]
        if full:
            plans += [(i, 0, p) for i in subject.instances for p, _ in PATTERNS]
        for inst, seed, pattern in plans:
            o, m = pair(inst, seed, pattern)
            found = compare_runs(subject.task, o, m)
            r.runs_compared += 1
            if found and rounding_only(subject, mutant.module, inst, seed, pattern):
                r.rounding += found  # the kernels agree in f64: rounding, amplified
            elif found and pattern is not None and overflow_only(subject.task, o, m):
                r.overflow += found  # the mutant overflows where the original does not: not exact arithmetic
            else:
                r.differences += found
    if r.contradicted or r.differences:
        r.classification = "soundness-bug"
    elif r.overflow:
        r.classification = "float-overflow"
    else:
        r.classification = {
            Verdict.VERIFIED: "equivalent",
            Verdict.FAILED: "killed",
            Verdict.UNKNOWN: "unknown",
        }[report.verdict]
    r.seconds = time.perf_counter() - t0
    return r


def _status(x: ObligationResult) -> str:
    if x.status is Status.PROVED:
        return f"proved ({x.scope.kind.value})"
    return str(x.status.value)


def _where(e: BaseException) -> str:
    frames = traceback.extract_tb(e.__traceback__)
    inner = [f for f in frames if "/larkc/" in f.filename]
    f = (inner or frames)[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"


def _covers(x: ObligationResult, inst: Instance) -> bool:
    if x.scope.kind is ScopeKind.PARAMETRIC:
        return True
    return any(dict(i) == inst for i in x.scope.instances)


def _contradictions(
    subject: Subject,
    mutant: Module,
    report: VerifyReport,
    pair: Callable[[Instance, int, str | None], tuple[Run, Run]],
) -> list[str]:
    """PROVED obligations that a seed-0 simulation of the mutant refutes (the original does not fail so)."""
    proved = [x for x in report.results if x.status is Status.PROVED]
    if not proved:
        return []
    everywhere = any(x.scope.kind is ScopeKind.PARAMETRIC for x in proved)
    instances: Sequence[Instance] = list(subject.instances)
    if everywhere:
        instances = [*instances, *(dict(i) for i in subject.task.instances if dict(i) not in subject.instances)]
    out: list[str] = []
    for inst in instances:
        o, m = pair(inst, 0, None)
        for word in sorted(m.kinds - o.kinds):
            kind = KIND_OF_FAILURE.get(word)
            for x in proved:
                if x.obligation.kind is not kind or not _covers(x, inst):
                    continue
                if kind is ObligationKind.EQUIVALENCE and (
                    x.obligation.subject not in m.mismatched - o.mismatched
                    or rounding_only(subject, mutant, inst, 0, None)
                ):
                    continue  # another output's mismatch, or rounding (the kernels agree in f64)
                out.append(f"{x.obligation.name} proved ({x.scope.describe()}), but {m.label} gives {word}")
    return out
