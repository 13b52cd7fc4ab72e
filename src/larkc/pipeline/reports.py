"""What ``larkc run`` reports: per output, per shape instance, per task; each renders and serialises."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from larkc.errors import Span
from larkc.provers import (
    Assumption,
    AssumptionKind,
    Counterexample,
    CounterexampleKind,
    ObligationKind,
    ObligationResult,
    ScopeKind,
    Status,
    Verdict,
)
from larkc.provers import verdict as combined_verdict
from larkc.semantics import Diagnosis, LaunchConfig
from larkc.tasks import Task, TorchStep

__all__ = [
    "EVIDENCE",
    "InputWrite",
    "InstanceReport",
    "OutputReport",
    "RunReport",
    "StoppedEarly",
    "VerifyReport",
    "inputs_json",
    "launch_json",
    "task_assumptions",
    "task_steps",
]


@dataclass(frozen=True, slots=True)
class OutputReport:
    """How one output compares with the reference: the largest errors and the verdict."""

    name: str
    max_abs_err: float
    max_rel_err: float
    ok: bool
    worst_index: tuple[int, ...] | None = None
    unwritten: int = 0

    def render(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        extra = f", {self.unwritten} element(s) never written" if self.unwritten else ""
        return f"{self.name}: max abs err {self.max_abs_err:.3g}, max rel err {self.max_rel_err:.3g}{extra} ({verdict})"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "max_abs_err": _json_float(self.max_abs_err),
            "max_rel_err": _json_float(self.max_rel_err),
            "ok": self.ok,
            "worst_index": list(self.worst_index) if self.worst_index is not None else None,
            "unwritten": self.unwritten,
        }


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


@dataclass(frozen=True, slots=True)
class InputWrite:
    """A kernel wrote an input the task does not declare in-place (``input-write``).

    The reference reads its inputs pristine, so a kernel overwriting one breaks the task's contract even
    when its outputs agree (a kernel that stores its result over the input the reference then reads
    agrees with it by construction). ``index`` is the first written element (row-major), ``count`` how
    many elements were written; ``span``, ``who`` and ``where`` say which store, thread and device-function
    calls wrote that element last, and ``launch`` which launch (``""`` for a task of one).
    """

    tensor: str
    index: tuple[int, ...]
    count: int
    span: Span | None
    who: str
    where: str = ""
    launch: str = ""

    KIND = "input-write"

    def render(self) -> str:
        element = f"{self.tensor}[{', '.join(str(i) for i in self.index)}]"
        loc = f"{self.span.location()}: " if self.span is not None and self.span.line else ""
        launch = f"{self.launch}: " if self.launch else ""
        more = f" ({self.count - 1} more element(s) of it written)" if self.count > 1 else ""
        return (
            f"{self.KIND}: {loc}{launch}the kernel writes input {self.tensor}, which the task does not declare "
            f"in-place: {element} written by {self.who}{self.where}{more}; list {self.tensor} among the outputs "
            f"too if the kernel updates it in place"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "location": self.span.location() if self.span is not None and self.span.line else None,
            "tensor": self.tensor,
            "index": list(self.index),
            "count": self.count,
            "thread": self.who,
            "launch": self.launch or None,
            "message": self.render(),
        }


@dataclass(frozen=True, slots=True)
class InstanceReport:
    """The result of one shape instance: diagnoses (mismatches included) and per-output errors."""

    shape: dict[str, int]
    seed: int
    launch: LaunchConfig
    diagnoses: tuple[Diagnosis, ...]
    outputs: tuple[OutputReport, ...]
    seconds: float
    replay: Path | None = None
    #: input elements set to given values over the seeded random inputs (a counterexample's witness)
    inputs: Mapping[str, Mapping[int, float]] = field(default_factory=dict)
    #: warnings (``race (same value)``) count against the kernel too
    strict: bool = False
    #: how the random inputs were drawn (a ``larkc.pipeline.run.InputDistribution`` value)
    distribution: str = "normal"
    #: how many input sets (seeds and distributions) were tried on this instance
    tried: int = 1
    #: writes into inputs the task does not declare in-place
    input_writes: tuple[InputWrite, ...] = ()
    #: every launch in order, for a task of several (``launch`` is the first)
    launches: tuple[LaunchConfig, ...] = ()
    #: the ``@triton.autotune`` configuration the kernel was lowered for (``""``: not autotuned)
    config: str = ""
    #: its constexpr values, one mapping per launch (for the replay file; empty when not autotuned)
    config_values: tuple[Mapping[str, object], ...] = ()

    @property
    def ok(self) -> bool:
        """No diagnosis against the kernel (warnings count only when ``strict``)."""
        return not self.input_writes and all(d.kind.is_warning and not self.strict for d in self.diagnoses)

    def launch_text(self) -> str:
        """The launch, or the launches in order (``grid ... then grid ...``)."""
        return " then ".join(str(x) for x in self.launches) if self.launches else str(self.launch)

    def warnings(self) -> tuple[Diagnosis, ...]:
        """The diagnoses that are warnings (``race (same value)``), whether or not ``strict``."""
        return tuple(d for d in self.diagnoses if d.kind.is_warning)

    def kinds(self) -> set[str]:
        return {d.kind.value for d in self.diagnoses} | ({InputWrite.KIND} if self.input_writes else set())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "shape": self.shape,
            "seed": self.seed,
            "distribution": self.distribution,
            "input_sets": self.tried,
            "launch": launch_json(self.launch),
            "ok": self.ok,
            "diagnoses": [d.to_json() for d in self.diagnoses] + [w.to_json() for w in self.input_writes],
            "outputs": [o.to_json() for o in self.outputs],
            "seconds": self.seconds,
            "replay": str(self.replay) if self.replay is not None else None,
        }
        if self.inputs:
            out["inputs"] = inputs_json(self.inputs)
        if self.launches:
            out["launches"] = [launch_json(x) for x in self.launches]
        if self.config:
            out["config"] = self.config
        return out


@dataclass(frozen=True, slots=True)
class RunReport:
    """The result of ``larkc run`` on one task. ``preconditions`` are the kernels' preconditions
    (``__requires(c) at file:line:col``), which held in every thread of every run (a violated one stops the
    run as bad input)."""

    task: str
    expected_failure: str | None
    instances: tuple[InstanceReport, ...]
    strict: bool = False
    preconditions: tuple[str, ...] = ()
    #: the PyTorch steps of a task that launches no kernel (not a kernel: nothing was run)
    not_a_kernel: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.not_a_kernel and all(i.ok for i in self.instances)

    def assumptions(self) -> tuple[str, ...]:
        """What the verdict takes for granted (choices a stricter reading of CUDA would make otherwise)."""
        if self.strict:
            return ()
        return (
            "write-write races in which every write stores the same value are warnings (race (same value)), "
            "not errors: the result does not depend on the order of the writes; --strict makes them errors",
        )

    def kinds(self) -> set[str]:
        found = set().union(*(i.kinds() for i in self.instances)) if self.instances else set()
        return found | ({ObligationKind.KERNEL.failure_kind} if self.not_a_kernel else set())

    def render(self) -> str:
        """The human-readable report: per instance a header, the diagnoses, the outputs; then a verdict."""
        lines: list[str] = []
        for inst in self.instances:
            shape = ", ".join(f"{k}={v}" for k, v in inst.shape.items()) or "(no symbols)"
            inputs = f", {inst.distribution} inputs" if inst.distribution != "normal" else ""
            tried = f" ({inst.tried} input sets tried)" if inst.tried > 1 else ""
            config = f", autotune configuration {inst.config}" if inst.config else ""
            lines.append(f"== {self.task} {shape}{config}: {inst.launch_text()}, seed {inst.seed}{inputs}{tried}")
            lines.extend(d.render() for d in inst.diagnoses)
            lines.extend(w.render() for w in inst.input_writes)
            lines.extend(o.render() for o in inst.outputs)
            if inst.replay is not None:
                lines.append(f"replay: larkc run --replay {inst.replay}")
        if self.not_a_kernel:
            lines.append(f"FAILED: {not_a_kernel_text(self.not_a_kernel)}")
            if self.expected_failure is not None:
                caught = "found" if self.expected_failure in self.kinds() else "NOT found"
                lines.append(f"the task expects {self.expected_failure}: {caught}")
            return "\n".join(lines)
        n = len(self.instances)
        failed = [i for i in self.instances if not i.ok]
        warned = sum(len(i.warnings()) for i in self.instances)
        # an autotuned kernel runs each instance under each configuration: count the pairs
        noun = "instance" if not any(i.config for i in self.instances) else "(instance, autotune configuration) pair"
        nouns = f"{noun}{'s' if n != 1 else ''}"
        if not failed:
            verdict = f"ok: {n} {nouns}, no diagnosis"
            if warned:
                verdict = f"ok: {n} {nouns}, {warned} warning{'s' if warned != 1 else ''}"
            if self.expected_failure is not None:
                verdict += f"; the task expects {self.expected_failure}: NOT found"
        else:
            kinds = ", ".join(sorted(self.kinds()))
            verdict = f"FAILED: {len(failed)} of {n} {nouns} ({kinds})"
            if self.expected_failure is not None:
                caught = "found" if self.expected_failure in self.kinds() else "NOT found"
                verdict += f"; the task expects {self.expected_failure}: {caught}"
        lines.append(verdict)
        lines.extend(f"precondition held in every run: {p}" for p in self.preconditions)
        if warned:
            lines.extend(f"assumption: {a}" for a in self.assumptions())
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ok": self.ok,
            "expected_failure": self.expected_failure,
            "kinds": sorted(self.kinds()),
            "strict": self.strict,
            "assumptions": list(self.assumptions()),
            "preconditions": list(self.preconditions),
            "instances": [i.to_json() for i in self.instances],
            **({"not_a_kernel": list(self.not_a_kernel)} if self.not_a_kernel else {}),
        }


def not_a_kernel_text(labels: tuple[str, ...]) -> str:
    """What a task whose every step is PyTorch is (KernelBench's fallback check rejects it)."""
    return f"not a kernel: every step is PyTorch ({'; '.join(labels)}), no kernel of the candidate's own runs"


def launch_json(launch: LaunchConfig) -> dict[str, Any]:
    """A launch as JSON: grid, block, dynamic shared bytes."""
    return {"grid": list(launch.grid), "block": list(launch.block), "shared_bytes": launch.shared_bytes}


def inputs_json(inputs: Mapping[str, Mapping[int, float]]) -> dict[str, dict[str, float]]:
    """Explicit input values as JSON: tensor name to ``{"flat index": value}``."""
    return {t: {str(i): float(v) for i, v in sorted(vals.items())} for t, vals in sorted(inputs.items())}


def task_steps(task: Task) -> tuple[tuple[str, str], ...]:
    """:attr:`VerifyReport.steps` of ``task``: which steps are kernels and which PyTorch (none listed for a task
    of kernel launches only)."""
    if not task.torch_steps:
        return ()
    return tuple(("pytorch", x.description) if isinstance(x, TorchStep) else ("kernel", x.kernel) for x in task.steps)


def task_assumptions(task: Task) -> tuple[Assumption, ...]:
    """What a verdict on ``task`` assumes because of how the task is built, beyond the provers' own
    assumptions: inputs standing for the reference module's parameters (``params``) are the kernel's
    weights, that is, the candidate's parameters equal the reference's (KernelBench's harness makes them
    so by construction); and each PyTorch step of the task computes what the reference stage's reading of it
    says (the step is traced and evaluated as a reference is, never checked: trusted)."""
    out = list(_constant_assumptions(task))
    out += [Assumption(AssumptionKind.TRUSTED, text) for text in task.trusted]
    out += [
        Assumption(AssumptionKind.TRUSTED, f"PyTorch computes {x.description}: its semantics are the reference stage's")
        for x in task.torch_steps
    ]
    if not task.params:
        return tuple(out)
    pairs = ", ".join(f"{name} = {path}" for name, path in task.params.items())
    out.append(
        Assumption(
            AssumptionKind.TASK,
            "ModelNew's parameters equal Model's, created in the same order under the same seed, as KernelBench's"
            f" harness constructs them (the kernel's weights are the reference's parameters: {pairs}; proved"
            " for every value of them)",
        )
    )
    return tuple(out)


def _constant_assumptions(task: Task) -> tuple[Assumption, ...]:
    """A CUDA source's initialised ``__constant__`` variables are read as holding their initialisers (no
    ``cudaMemcpyToSymbol`` of the file writes them; host code elsewhere could): a model assumption."""
    if task.source.suffix not in (".cu", ".cuh"):
        return ()
    from larkc.errors import LarkcError
    from larkc.frontends.cuda import constant_initialisers

    try:
        found = constant_initialisers(task.source, defines=task.defines, include_dirs=task.include_dirs)
    except LarkcError:
        return ()  # the kernel was parsed before any verdict: this cannot fail where a verdict exists
    return tuple(
        Assumption(
            AssumptionKind.MODEL,
            f"the __constant__ variable {name} holds its initialiser at the launch (no cudaMemcpyToSymbol of "
            "the file writes it; host code elsewhere could)",
            span,
        )
        for name, span in found.items()
    )


@dataclass(frozen=True, slots=True)
class StoppedEarly:
    """``larkc verify`` stopped at a refuted instance: ``after`` of the ``of`` shape instances were run (of
    the autotune configuration ``configuration``, when the kernel is autotuned), and ``configurations``
    autotune configurations (or combinations of them) were not run at all."""

    after: int
    of: int
    configuration: str = ""
    configurations: int = 0

    def render(self) -> str:
        config = f" (autotune configuration {self.configuration})" if self.configuration else ""
        left = []
        if self.after < self.of:
            left.append("the remaining instances")
        if self.configurations:
            s = "s" if self.configurations != 1 else ""
            left.append(f"{self.configurations} more autotune configuration{s}")
        return (
            f"stopped after instance {self.after} of {self.of}{config}: a refutation decides the verdict; "
            f"{' and '.join(left)} were not run"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "after": self.after,
            "of": self.of,
            "configuration": self.configuration or None,
            "configurations_not_run": self.configurations,
            "message": self.render(),
        }


#: ``VerifyReport.verified_scope`` of a VERIFIED verdict: every obligation proved for every size the task's
#: constraints allow, or some proved only at the shape instances run.
ALL_SIZES = "all sizes"
BOUNDED = "bounded"


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The result of ``larkc verify`` on one task: one combined result per obligation and the verdict.

    ``instances`` lists the shape instances the bounded prover ran: symbol values, launch, seconds.
    ``stopped`` says where the run stopped at a refutation, before every instance was run. ``all_sizes``:
    the caller wants every obligation for all sizes (``--all-sizes``): a VERIFIED verdict of bounded scope
    then exits 4, as UNKNOWN for all sizes.
    """

    task: str
    expected_failure: str | None
    results: tuple[ObligationResult, ...]
    verdict: Verdict
    instances: tuple[tuple[dict[str, int], str, float], ...]
    seconds: float
    task_assumptions: tuple[Assumption, ...] = ()  # of the task itself (:func:`task_assumptions`)
    stopped: StoppedEarly | None = None
    all_sizes: bool = False
    #: the task's steps in order, ``("kernel", name)`` or ``("pytorch", label)``, for a task with PyTorch
    #: steps (empty for one of kernel launches only)
    steps: tuple[tuple[str, str], ...] = ()
    #: the task's findings (:attr:`Task.findings`): each makes the verdict FAILED; ``results`` still say
    #: what was proved of the kernel
    findings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """VERIFIED (for all sizes, under ``all_sizes``): the report's exit status is 0."""
        return self.exit_code == 0

    @property
    def verified_scope(self) -> str | None:
        """For a VERIFIED verdict, ``"all sizes"`` when every obligation is proved for every size the task's
        constraints allow (a parametric scope), else ``"bounded"`` (some only at the shape instances);
        ``None`` for any other verdict."""
        if self.verdict is not Verdict.VERIFIED:
            return None
        return ALL_SIZES if all(r.scope.kind is ScopeKind.PARAMETRIC for r in self.results) else BOUNDED

    @property
    def exit_code(self) -> int:
        """The verdict's exit status; 4 (UNKNOWN for all sizes) for a bounded VERIFIED under ``all_sizes``."""
        if self.all_sizes and self.verified_scope == BOUNDED:
            return Verdict.UNKNOWN.exit_code
        return self.verdict.exit_code

    def kinds(self) -> set[str]:
        """The failure words of the refuted obligations (``mismatch``, ``race``, ...), and ``finding`` for a
        verdict the task's findings decide."""
        kinds = {r.obligation.kind.failure_kind for r in self.results if r.status is Status.REFUTED}
        return kinds | ({"finding"} if self.findings else set())

    def kernel_verdict(self) -> Verdict:
        """The verdict of the kernel's obligations alone (``verdict`` less the task's findings)."""
        return combined_verdict(self.results)

    def assumptions(self) -> tuple[Assumption, ...]:
        """Every assumption of the proved results, once each, in order."""
        seen: dict[tuple[str, str], Assumption] = {}
        for r in self.results:
            if r.status is Status.PROVED:
                for a in r.assumptions:
                    seen.setdefault((a.kind.value, a.text), a)
        if seen:
            for a in self.task_assumptions:
                seen.setdefault((a.kind.value, a.text), a)
        return tuple(seen.values())

    def render(self) -> list[str]:
        """The human-readable report: one line per obligation, then the verdict with its evidence."""
        unique = dict.fromkeys(_shape_text(env) for env, _, _ in self.instances)  # once per autotune config
        n, shapes = len(unique), "; ".join(unique)
        lines = [f"== verify {self.task}: {n} instance{'s' if n != 1 else ''} ({shapes}), {self.seconds:.1f} s"]
        width = max((len(r.obligation.name) for r in self.results), default=0)
        for r in self.results:
            status = r.status.value.upper()
            scope = "parametric" if r.scope.kind is ScopeKind.PARAMETRIC else "bounded"
            detail = f" ({r.detail})" if r.detail and r.status is not Status.REFUTED else ""
            what = r.counterexample.message if r.counterexample is not None else f"{scope} [{r.prover}]{detail}"
            lines.append(f"{r.obligation.name:<{width}}  {status:<8} {what}")
        lines.extend(self._verdict_lines())
        return lines

    def _verdict_lines(self) -> list[str]:
        out: list[str] = []
        match self.verdict:
            case Verdict.VERIFIED:
                out.append(self.headline())
                groups: dict[str, list[str]] = {}
                for r in self.results:
                    groups.setdefault(r.scope.describe(), []).append(r.obligation.name)
                for scope, names in groups.items():
                    out.append(f"  {', '.join(names)}: {scope}")
            case Verdict.FAILED if not any(r.status is Status.REFUTED for r in self.results):
                out.append(self.headline())
                out.extend(f"  finding: {f}" for f in self.findings[1:])
                kernel = self.kernel_verdict()
                out.append(f"  the kernel itself: {kernel.value} (the obligations above)")
            case Verdict.FAILED:
                refuted = sorted(
                    (r for r in self.results if r.status is Status.REFUTED),
                    key=lambda r: _ROOT_CAUSE_ORDER.index(r.obligation.kind.value),
                )
                first = refuted[0]
                cx = first.counterexample
                assert cx is not None
                out.append(self.headline())
                if first.obligation.kind is ObligationKind.KERNEL:  # a property of the task, at no instance
                    out.append("  evidence: the task's steps (its forward launches no kernel)")
                    return out
                out.append(f"  instance: {_shape_text(cx.instance)} ({cx.launch})")
                for tensor, vals in cx.inputs.items():
                    shown = ", ".join(f"{tensor}[{i}]={v:.9g}" for i, v in list(vals.items())[:8])
                    more = f" (+{len(vals) - 8} more)" if len(vals) > 8 else ""
                    out.append(f"  inputs: {shown}{more}")
                evidence = EVIDENCE[cx.kind.value]
                if first.obligation.kind is ObligationKind.LAUNCH and cx.kind is CounterexampleKind.CONFIRMED:
                    evidence = "confirmed: the launch configuration evaluated at these sizes (it cannot run)"
                out.append(f"  evidence: {evidence}")
                if first.obligation.kind is ObligationKind.OVERFLOW and (hint := int32_offset_hint(cx)) is not None:
                    out.append(f"  fix: {hint}")
                if cx.replay:
                    out.append(f"  replay: larkc run --replay {cx.replay}")
                for r in refuted[1:]:
                    out.append(f"  also refuted: {r.obligation.name}")
                out.extend(f"  finding: {f}" for f in self.findings)
            case Verdict.UNKNOWN:
                open_ = [r for r in self.results if r.status is Status.UNKNOWN]
                out.append(self.headline())
                for r in open_:
                    out.append(f"  {r.obligation.name}: {r.detail}")
                    for w in r.witnesses:
                        out.append(f"    possible at {_shape_text(w.instance)} ({w.launch}): not confirmed")
            case _:
                assert_never(self.verdict)
        if self.stopped is not None:
            out.append(f"  {self.stopped.render()}")
        assumptions = self.assumptions()
        if assumptions and not any(r.status is Status.REFUTED for r in self.results):  # what the proofs rest on
            out.append("assumptions:")
            out.extend(f"  [{a.kind.value}] {a.text}" for a in assumptions)
        if self.expected_failure is not None:
            found = "found" if self.expected_failure in self.kinds() else "NOT found"
            out.append(f"the task expects {self.expected_failure}: {found}")
        return out

    def headline(self) -> str:
        """The verdict's first line, which says its scope: ``VERIFIED for all sizes (constraints)``, or
        ``VERIFIED (bounded: equivalence(out), init at 3 shapes; bounds, race for all sizes)`` naming the
        obligations proved only at the shape instances (``UNKNOWN for all sizes (--all-sizes): ...`` in front
        under ``all_sizes``); ``FAILED: obligation: message``; ``UNKNOWN: n obligation(s) ...``."""
        match self.verdict:
            case Verdict.VERIFIED:
                if self.verified_scope == ALL_SIZES:
                    constraints = list(dict.fromkeys(c for r in self.results for c in r.scope.constraints))
                    return f"VERIFIED for all sizes ({' and '.join(constraints) or 'no constraint'})"
                at: dict[int, list[str]] = {}
                every: list[str] = []
                for r in self.results:
                    if r.scope.kind is ScopeKind.PARAMETRIC:
                        every.append(r.obligation.name)
                    else:
                        shapes = len({tuple(sorted(i.items())) for i in r.scope.instances})
                        at.setdefault(shapes, []).append(r.obligation.name)
                parts = [f"{', '.join(names)} at {n} shape{'s' if n != 1 else ''}" for n, names in at.items()]
                if every:
                    parts.append(f"{', '.join(every)} for all sizes")
                text = f"VERIFIED (bounded: {'; '.join(parts)})"
                return f"UNKNOWN for all sizes (--all-sizes): {text}" if self.all_sizes else text
            case Verdict.FAILED if not any(r.status is Status.REFUTED for r in self.results):
                return f"FAILED: {self.findings[0]}"
            case Verdict.FAILED:
                first = self._root_cause()
                assert first.counterexample is not None
                return f"FAILED: {first.obligation.name}: {first.counterexample.message}"
            case Verdict.UNKNOWN:
                n = sum(r.status is Status.UNKNOWN for r in self.results)
                return f"UNKNOWN: {n} obligation(s) neither proved nor refuted"
            case _:
                assert_never(self.verdict)

    def _root_cause(self) -> ObligationResult:
        """The refutation a FAILED verdict shows first (:data:`_ROOT_CAUSE_ORDER`)."""
        refuted = [r for r in self.results if r.status is Status.REFUTED]
        return min(refuted, key=lambda r: _ROOT_CAUSE_ORDER.index(r.obligation.kind.value))

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "verdict": self.verdict.value,
            "findings": list(self.findings),
            "verified_scope": self.verified_scope,
            "all_sizes": self.all_sizes,
            "headline": self.headline(),
            "exit_code": self.exit_code,
            "stopped": self.stopped.to_json() if self.stopped is not None else None,
            "expected_failure": self.expected_failure,
            "instances": [
                {"shape": env, "launch": launch, "seconds": round(sec, 4)} for env, launch, sec in self.instances
            ],
            "obligations": [r.to_json() for r in self.results],
            "assumptions": [a.to_json() for a in self.assumptions()],
            "seconds": round(self.seconds, 4),
            **({"steps": [{"kind": kind, "name": name} for kind, name in self.steps]} if self.steps else {}),
        }


#: Which refutation a FAILED verdict shows first: causes before their consequences (an overflowing index
#: before the out-of-bounds access it makes, a race before the wrong output it leaves, an input overwritten
#: before an output computed from what it was overwritten with); an invalid launch first: the kernel never runs.
_ROOT_CAUSE_ORDER = (
    "kernel",
    "launch",
    "overflow",
    "barrier",
    "race",
    "bounds",
    "init",
    "defined",
    "assert",
    "inputs",
    "equivalence",
)

_TRITON_I32_OVERFLOW = re.compile(
    r"^`(?P<expr>[^`]+)` \(IR `[^`]*`\) at \S+\.py:\d+:\d+ overflows i32: its value (?P<value>-?\d+)"
)


def int32_offset_hint(cx: Counterexample) -> str | None:
    """For an int32 overflow refuted in a Triton kernel (a ``.py`` source: Triton passes integers below 2^31 as
    int32, so ``row * stride`` is computed in int32), one line that says at which size it overflows (the
    smallest product of the counterexample's sizes that reaches the overflowing value: the elements of the
    tensor it indexes) and the usual fix, offsets in ``tl.int64``; ``None`` for any other counterexample."""
    m = _TRITON_I32_OVERFLOW.match(cx.message)
    if m is None:
        return None
    expr, value = m["expr"], abs(int(m["value"]))
    sizes = {k: v for k, v in cx.instance.items() if v > 1}
    products = [
        (math.prod(sizes[k] for k in ks), ks)
        for n in range(1, len(sizes) + 1)
        for ks in itertools.combinations(sizes, n)
    ]
    reaching = sorted(p for p in products if p[0] >= value)
    at = ", ".join(f"{k}={v}" for k, v in cx.instance.items())
    if reaching:
        total, ks = reaching[0]
        where = f"once {' * '.join(ks)} reaches 2^31 (at {at}: {' * '.join(ks)} = {total}, the value {value})"
    else:
        where = f"at {at} (the value {value})"
    operand = re.match(r"^\(?([A-Za-z_]\w*)\)? \* (.+)$", expr)
    fix = f"`{operand[1]}.to(tl.int64) * {operand[2]}`" if operand else "an operand cast with `.to(tl.int64)` first"
    return f"`{expr}` overflows int32 {where}; the usual fix: offsets in tl.int64 ({fix})"


#: How a counterexample of each kind (its JSON ``kind``) was established, in words.
EVIDENCE = {
    "possible": "a solver's model that may not be realisable (not a refutation)",
    "confirmed": "confirmed by the simulator at the task's dtypes",
    "exact": "a difference under exact arithmetic (at the task's dtypes rounding hides it or it was not simulated)",
    "static": "a solver's model (sizes too large to simulate)",
}


def _shape_text(env: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items()) or "no symbols"
