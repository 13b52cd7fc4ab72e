"""``larkc verify``: prove a task's obligations, or refute them with a counterexample.

For a task, :func:`verify_task` builds the obligations (equivalence of every output, and inputs left
unchanged, when the task has a reference; bounds, races, barrier uniformity, initialised reads, defined
operations, assertions and integer overflow always) and asks the provers:

1. **Bounded, per shape instance** (:mod:`larkc.provers.bounded`): the kernel is executed symbolically
   on the instance (:func:`larkc.semantics.symexec.execute_symbolic`, the simulator's own statement
   interpreter over exact terms) and the reference's spec is evaluated symbolically on it
   (:func:`larkc.reference.evaluate_symbolic`); each output element is decided, and the run's checks
   decide the safety obligations for that instance and launch.
2. **Refutations are confirmed** on concrete inputs: the witness of a difference is run through the
   simulator and the reference at the task's dtypes (``larkc run`` with those inputs). Confirmed, the
   counterexample gets a replay file; a difference that rounding hides stays a refutation under exact
   arithmetic and says so.

Results of one obligation over several instances (and provers) are combined
(:func:`larkc.provers.combine`); the verdict is VERIFIED, FAILED or UNKNOWN.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TypeAlias

from larkc.errors import LarkcError, PreconditionError, TaskError
from larkc.frontends import parse_task, specialisation_heuristics, specialised_per_instance, task_configs
from larkc.frontends.triton.values import ConstValue
from larkc.ir.nodes import Assume, Function, Level, Module
from larkc.ir.types import ScalarType
from larkc.pipeline.inputs import bind_null_pointers, check_float_param, check_pointee, init_of, kernel_function
from larkc.pipeline.memory import (
    Engine,
    MemoryBudgetExceeded,
    check_instance_launches,
    instance_refused,
    memory_budget,
    refused_run,
    simulation_refused,
)
from larkc.pipeline.preconditions import (
    noting_instance,
    outside_contract,
    possible,
    preconditions,
    unsimulated,
    with_preconditions,
    with_task_preconditions,
)
from larkc.pipeline.replay import default_replay_dir, write_replay_file
from larkc.pipeline.reports import (
    InputWrite,
    InstanceReport,
    StoppedEarly,
    VerifyReport,
    task_assumptions,
    task_steps,
)
from larkc.pipeline.run import Configs, LaunchModules, config_label, run_instance
from larkc.pipeline.torch_steps import UNDEF, step_span, symbolic_torch_step, trace_step, uninit_inputs
from larkc.provers import (
    Assumption,
    AssumptionKind,
    Budget,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Status,
    Verdict,
    combine,
    verdict,
)
from larkc.provers.allsize import upgrade_equivalence
from larkc.provers.bounded import DOMAIN_REFUTATION, Finding, InstanceFacts, prove_instance
from larkc.provers.hints import Hints
from larkc.provers.parametric import (
    AUTOTUNE_SCOPE,
    COUNTER_WRAP,
    one_specialisation,
    prove_parametric,
    prove_parametric_family,
)
from larkc.reference.symbolic import InfinityChosenByData
from larkc.semantics import LaunchConfig
from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind
from larkc.semantics.symexec import OutputValue, SymbolicArg, SymbolicBuffer, SymbolicRun, execute_symbolic
from larkc.semantics.symvalues import DATA_CHOSEN_NONFINITE
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import SideCondition, side_conditions
from larkc.symbolic.constants import match_named_constant, round_to_format
from larkc.symbolic.extended import NonFinite
from larkc.symbolic.terms import Poly, Term
from larkc.tasks import (
    BufferArg,
    KernelLaunch,
    NullArg,
    ScalarArg,
    ScalarExpr,
    ShapeArg,
    Task,
    TensorSpec,
    TorchStep,
    evaluate,
)
from larkc.tasks.shape_expr import ShapeExpr

__all__ = ["Progress", "obligations_of", "verify_task"]

#: Called with one line of progress (an instance started, an obligation decided).
Progress = Callable[[str], None]


def obligations_of(task: Task) -> list[Obligation]:
    """Equivalence of every output and inputs left unchanged (when the task has a reference: only then are
    its tensors inputs the caller still holds, as for ``larkc run``'s ``input-write``), then the safety
    properties; for a task with PyTorch steps, first that it launches a kernel of its own."""
    obs = [Obligation(ObligationKind.KERNEL)] if task.torch_steps else []
    if not task.launches:  # all PyTorch: nothing else is the candidate's
        return obs
    if task.reference:
        obs = [Obligation(ObligationKind.EQUIVALENCE, name) for name in task.outputs]
        obs.append(Obligation(ObligationKind.INPUTS))
    obs += [
        Obligation(kind)
        for kind in (
            ObligationKind.BOUNDS,
            ObligationKind.RACE,
            ObligationKind.BARRIER,
            ObligationKind.INIT,
            ObligationKind.DEFINED,
            ObligationKind.ASSERT,
            ObligationKind.OVERFLOW,
            ObligationKind.LAUNCH,
        )
    ]
    return obs


def verify_task(
    task: Task,
    *,
    instances: Sequence[Mapping[str, int]] | None = None,
    budget: Budget | None = None,
    progress: Progress | None = None,
    replay_dir: Path | None = None,
    module: Module | None = None,
    hints: Hints | None = None,
) -> VerifyReport:
    """Prove or refute every obligation of ``task`` (see the module docstring). Every simulation and
    symbolic run it starts is estimated first against ``budget.memory_bytes`` (the one memory budget of a
    verification; :func:`~larkc.pipeline.memory.memory_budget` hands it to the engines). ``hints`` are loop
    invariants from outside for the all-size prover (provers/hints.py), each checked before it is used."""
    budget = budget or Budget()
    with memory_budget(budget.memory_bytes):
        return _verify_task(task, instances, budget, progress, replay_dir, module, hints)


def _verify_task(
    task: Task,
    instances: Sequence[Mapping[str, int]] | None,
    budget: Budget,
    progress: Progress | None,
    replay_dir: Path | None,
    module: Module | None,
    hints: Hints | None = None,
) -> VerifyReport:
    start = time.perf_counter()
    say = progress or (lambda _line: None)
    if not task.launches:
        return _not_a_kernel(task, start)
    if len(task.launches) > 1 or task.torch_steps:
        return _several_launches(task, instances, budget, say, replay_dir, start)
    graph = None
    if task.reference is not None:
        from larkc.pipeline.compare import functional_reference
        from larkc.reference import trace_task

        graph = trace_task(functional_reference(task))
    obligations = obligations_of(task)
    chosen = [task.shape_env(i) for i in (instances if instances is not None else task.instances)]
    # Every @triton.autotune configuration is a specialisation the task must hold for.
    configs: list[Mapping[str, ConstValue] | None] = [None] if module is not None else list(task_configs(task))
    raw: list[tuple[str, dict[Obligation, list[ObligationResult]]]] = []
    runs: list[tuple[dict[str, int], str, float]] = []
    stopped: StoppedEarly | None = None
    for cfg in configs:
        label = config_label(task, (cfg,)) if cfg else ""
        if label:
            say(f"autotune configuration {label}")
        per_ob, cfg_runs = _verify_specialisation(
            task, module, cfg, graph, obligations, chosen, budget, say, replay_dir, hints
        )
        if stopped is None and len(cfg_runs) < len(chosen):
            stopped = StoppedEarly(len(cfg_runs), len(chosen), label)
        raw.append((label, per_ob))
        runs += [
            (env, f"{launch}, autotune configuration {label}" if label else launch, t) for env, launch, t in cfg_runs
        ]
    if len(raw) == 1:
        per_ob = raw[0][1]
        combined = tuple(combine(per_ob[ob]) if per_ob[ob] else _not_run(ob) for ob in obligations)
    else:
        combined = tuple(_across_configs(ob, [(label, per_ob[ob]) for label, per_ob in raw]) for ob in obligations)
    return VerifyReport(
        task=task.name,
        expected_failure=task.expected_failure,
        results=combined,
        verdict=Verdict.FAILED if task.findings else verdict(combined),
        instances=tuple(runs),
        seconds=time.perf_counter() - start,
        task_assumptions=task_assumptions(task),
        steps=task_steps(task),
        stopped=stopped,
        findings=task.findings,
    )


def _verify_specialisation(
    task: Task,
    module: Module | None,
    config: Mapping[str, ConstValue] | None,
    graph: object | None,
    obligations: Sequence[Obligation],
    chosen: Sequence[dict[str, int]],
    budget: Budget,
    say: Progress,
    replay_dir: Path | None,
    hints: Hints | None = None,
) -> tuple[dict[Obligation, list[ObligationResult]], list[tuple[dict[str, int], str, float]]]:
    """The results of every prover on every obligation for one autotune configuration (``None``: the
    kernel as given, or its only specialisation), not yet combined; and the instances run."""
    # The instances chosen (the task's, or --shape's) decide the specialisations run, not the task's first.
    per_instance = module is None and specialised_per_instance(task, chosen)
    cfgs = (config,) if config else None
    task = task.with_launch_constants((config or {},))  # a Triton grid may name the configuration's constexprs
    lower = _lowering(task, config) if module is None and task.language == "triton" else None
    if module is None:
        module = parse_task(task, chosen[0] if chosen else None, config)
    module, f = bind_null_pointers(task, module, kernel_function(task, module))
    # An instance of the task itself that cannot launch is bad input (as for larkc run), whatever the order
    # the instances would run in; other sizes that cannot launch refute the launch obligation.
    check_instance_launches(task, module, [f], chosen)
    for p in f.params:
        if isinstance(b := task.binding(p.name), ScalarExpr):
            check_float_param(task, p, b)  # before the parametric prover reads the bindings
    per_ob: dict[Obligation, list[ObligationResult]] = {ob: [] for ob in obligations}
    runs: list[tuple[dict[str, int], str, float]] = []
    # Parametric first: safety and overflow for every size, where the kernel's indexing allows it.
    parametric_obs = [ob for ob in obligations if ob.kind in PARAMETRIC_KINDS]
    say(f"parametric proof of {', '.join(ob.name for ob in parametric_obs)} (z3, all sizes)")

    def at(env: Mapping[str, int]) -> tuple[Module, Function]:
        # A witness's sizes may select another specialisation than the task's instances do (a Triton
        # constexpr or heuristic of the sizes): it is simulated and decided with the kernel lowered there.
        return (module, f) if lower is None else _specialised(task, env, config)

    def simulate(env: Mapping[str, int]) -> InstanceReport:
        return run_instance(task, at(env)[0], env, 0, config=cfgs)[0]

    def bounded(ob: Obligation, env: dict[str, int]) -> ObligationResult:
        # An equivalence candidate (the all-size prover's sizes where a stored value may differ) is decided
        # against the reference there: a difference only at particular input values (``v == 0.5f`` past an
        # index) is one random data never shows the simulator, and without the spec the bounded prover
        # could only answer "no reference". The other obligations need no spec terms.
        spec = graph if ob.kind is ObligationKind.EQUIVALENCE else None
        mod, fn = at(env)
        _check_symbolic_memory(task, mod, env, [fn])
        with tm.gc_paused(), noting_instance(task.name, env):
            facts = _instance_facts(task, mod, fn, spec, env, budget)
            return _confirm(task, mod, prove_instance(facts, [ob], budget)[0], env, replay_dir, cfgs)

    pres = preconditions(module, f)
    for r in _parametric(task, module, f, lower, config, parametric_obs, budget, chosen):
        r = _launch_outside_contract(r, pres)
        r = _confirm_static(task, module, r, replay_dir, cfgs, lower)
        per_ob[r.obligation].append(_settle_witnesses(task, r, simulate, bounded, replay_dir, say))
    bounded_obs = [ob for ob in obligations if ob.kind not in PARAMETRIC_ONLY]
    for k, env in enumerate(chosen):
        shape = ", ".join(f"{s}={v}" for s, v in env.items()) or "no symbols"
        say(f"instance {k + 1}/{len(chosen)} ({shape}): symbolic execution")
        t0 = time.perf_counter()
        # A Triton kernel whose specialisation depends on the shapes is lowered for each instance.
        mod, fn = (module, f) if not per_instance else _specialised(task, env, config)
        if (refused := refused_run(task, mod, env, Engine.SYMBOLIC, [fn])) is not None:
            for r in instance_refused(task, bounded_obs, env, refused):
                per_ob[r.obligation].append(r)
            continue
        with tm.gc_paused():  # terms die by reference counting; collections would rescan them all
            by_cases = f"instance {k + 1}/{len(chosen)}: infinities chosen by input data; by cases over the masks"
            try:
                results, launch, by_data = _decide_instance(
                    task, mod, fn, graph, env, budget, bounded_obs, replay_dir, cfgs
                )
            except InfinityChosenByData as e:
                if not _mask_inputs(task, env):
                    raise  # a choice by other data: no case split covers it (located at the reference line)
                say(by_cases)
                results, launch = _by_cases(task, mod, fn, graph, env, budget, bounded_obs, replay_dir, cfgs, e)
            else:
                undecided = not any(r.status is Status.REFUTED for r in results)
                if by_data and undecided and _mask_inputs(task, env):  # the kernel's choice, not the reference's
                    say(by_cases)
                    cased, cased_launch = _by_cases(task, mod, fn, graph, env, budget, bounded_obs, replay_dir, cfgs)
                    if cased:  # else more cases than the limit: the first run's unknowns stand
                        results, launch = cased, cased_launch
        runs.append((env, launch, time.perf_counter() - t0))
        for r in results:
            per_ob[r.obligation].append(r)
        if any(r.status is Status.REFUTED for rs in per_ob.values() for r in rs):
            break  # a refutation decides the verdict; later instances would only repeat it
    # Equivalence for every size where the all-size prover proves what the bounded one proved (an upgrade only).
    if outputs := [ob.name for ob, rs in per_ob.items() if ob.kind is ObligationKind.EQUIVALENCE and rs]:
        say(f"all-size proof of {', '.join(outputs)} (z3)")
    per_ob = upgrade_equivalence(
        task, module, f, graph, per_ob, budget, chosen, config,
        settle=lambda r: _settle_witnesses(task, r, simulate, bounded, replay_dir, say), hints=hints,
    )  # fmt: skip
    return {ob: with_task_preconditions(with_preconditions(rs, pres), task) for ob, rs in per_ob.items()}, runs


#: Fixed values of some inputs (flat, row-major; a ``bool`` as 0 or 1): one case of a split.
Fixed: TypeAlias = Mapping[str, tuple[int, ...]]


def _decide_instance(
    task: Task,
    module: Module,
    f: Function,
    graph: object | None,
    env: dict[str, int],
    budget: Budget,
    obligations: Sequence[Obligation],
    replay_dir: Path | None,
    cfgs: Configs | None,
    fixed: Fixed | None = None,
) -> tuple[list[ObligationResult], str, bool]:
    """The results of ``obligations`` on the instance ``env`` (``fixed``: one case of the ``bool`` inputs,
    see :func:`_by_bool_cases`), each refutation confirmed by the simulator; the launch text; and whether
    the kernel chose between a non-finite value and another by input data (an opaque value)."""
    with noting_instance(task.name, env):
        facts = _instance_facts(task, module, f, graph, env, budget, fixed)
    results = prove_instance(facts, obligations, budget)
    results = _inexact_scalars(task, f, env, results)
    results = [_confirm(task, module, r, env, replay_dir, cfgs, fixed) for r in results]
    return results, facts.launch, DATA_CHOSEN_NONFINITE in facts.opaque


#: The most cases a split of one instance enumerates (each a symbolic run): ``2**MAX_CASE_BITS``.
MAX_CASE_BITS = 8


def _by_cases(
    task: Task,
    module: Module,
    f: Function,
    graph: object | None,
    env: dict[str, int],
    budget: Budget,
    obligations: Sequence[Obligation],
    replay_dir: Path | None,
    cfgs: Configs | None,
    why: LarkcError | None = None,
) -> tuple[list[ObligationResult], str]:
    """The results of ``obligations`` on ``env`` for a reference (``why``: its error) or a kernel that
    chooses between an infinity and a number by input data: decided once for every value of the task's
    inputs with few values (:func:`_mask_inputs`: ``bool`` ones, and integer ones declared in a range of
    two values, a 0/1 mask as ``uint8``), which then are constants on both sides, so the reference's
    choices and the kernel's selects are decided. The cases cover every value those inputs can hold, so an
    obligation proved in each is proved on the instance; a refutation in one is a refutation (its witness
    carries the case's values); otherwise unknown, naming the case. Beyond ``2**MAX_CASE_BITS`` cases the
    instance is unknown for a reference's choice (``[]`` for a kernel's: its first results stand)."""
    masks = _mask_inputs(task, env)
    cases = math.prod((hi - lo) ** n for n, lo, hi in masks.values())
    names = " and ".join(masks)
    if cases > 1 << MAX_CASE_BITS:
        if why is None:
            return [], ""
        reason = (
            f"{why.message}: deciding it by cases over the values of {names} takes {cases} symbolic runs, more "
            f"than the 2^{MAX_CASE_BITS} an instance may take (choose a smaller instance)"
        )
        # the other obligations do not read the reference: one run without it decides them
        equivalence = [ob for ob in obligations if ob.kind is ObligationKind.EQUIVALENCE]
        others = [ob for ob in obligations if ob.kind is not ObligationKind.EQUIVALENCE]
        results, launch, _ = _decide_instance(task, module, f, None, env, budget, others, replay_dir, cfgs)
        return instance_refused(task, equivalence, env, reason) + results, launch
    per_ob: dict[Obligation, list[ObligationResult]] = {ob: [] for ob in obligations}
    launch = ""
    for code in range(cases):
        fixed: dict[str, tuple[int, ...]] = {}
        for name, (n, lo, hi) in masks.items():
            values = []
            for _ in range(n):
                code, v = divmod(code, hi - lo)
                values.append(lo + v)
            fixed[name] = tuple(values)
        results, launch, _ = _decide_instance(task, module, f, graph, env, budget, obligations, replay_dir, cfgs, fixed)
        for r in results:
            per_ob[r.obligation].append(_in_case(r, fixed))
        if any(r.status is Status.REFUTED for r in results):
            break  # a refutation decides the verdict
    split = f"by cases over the {cases} values of {names}"
    out = []
    for rs in per_ob.values():
        refuted = [r for r in rs if r.status is Status.REFUTED]
        unknown = [r for r in rs if r.status is Status.UNKNOWN]
        if refuted or unknown:
            out.append((refuted or unknown)[0])
            continue
        details = list(dict.fromkeys(r.detail for r in rs if r.detail))
        shown = "; ".join(details[:3]) + ("; ..." if len(details) > 3 else "")
        out.append(dataclasses.replace(rs[0], detail=f"{split}: {shown}" if shown else split))
    return out, launch


def _mask_inputs(task: Task, env: Mapping[str, int]) -> dict[str, tuple[int, int, int]]:
    """The inputs of ``task`` a case split enumerates, each as ``(elements, low, high)`` at ``env``: the
    ``bool`` inputs (values 0 and 1) and the integer ones declared in a range of at most two values."""
    out = {}
    for name, spec in task.inputs.items():
        n = math.prod(spec.concrete_shape(dict(env)))
        if spec.dtype.is_bool:
            out[name] = (n, 0, 2)
        elif not spec.dtype.is_float and (r := spec.value_range(dict(env))) is not None and r[1] - r[0] <= 2:
            out[name] = (n, r[0], r[1])
    return out


def _fixed_terms(dtype: ScalarType, values: Sequence[int]) -> tuple[Term, ...]:
    """The terms of fixed input values: truth constants for a ``bool`` tensor, integers otherwise."""
    if dtype.is_bool:
        return tuple(tm.TRUE if v else tm.FALSE for v in values)
    return tuple(tm.const(v) for v in values)


def _in_case(r: ObligationResult, fixed: Fixed) -> ObligationResult:
    """``r`` of one case of a split, its detail saying which when it is not a proof."""
    if r.status is Status.PROVED:
        return r
    values = "; ".join(f"{name} = {' '.join(str(v) for v in vs)}" for name, vs in fixed.items())
    return dataclasses.replace(r, detail=f"with {values} (flat, row-major): {r.detail}")


def _launch_outside_contract(r: ObligationResult, pres: Sequence[Assume]) -> ObligationResult:
    """A launch refutation of a kernel with preconditions is UNKNOWN: the launch obligation does not read
    them, and one may exclude the sizes (``__requires(blockDim.x <= 64)``: the verdict is about the
    launches that satisfy it)."""
    if r.obligation.kind is not ObligationKind.LAUNCH or r.status is not Status.REFUTED or not pres:
        return r
    why = (
        f"{r.detail}; unless a precondition of the kernel excludes these sizes (the launch obligation does not"
        " read preconditions)"
    )
    return dataclasses.replace(r, status=Status.UNKNOWN, detail=why, counterexample=None)  # sizes in the detail


def _across_configs(
    ob: Obligation, per_config: Sequence[tuple[str, list[ObligationResult]]], *, combinations: bool = False
) -> ObligationResult:
    """One result for ``ob`` from the results of every autotune configuration (each named by its label).

    A refutation in any configuration refutes (its detail names the configuration). The obligation is
    proved only for what every configuration proved: for all sizes when each has a parametric proof
    (under the conditions of all of them), else for the shape instances that each proved bounded.
    Anything less is UNKNOWN with every configuration's reason.
    """
    from larkc.provers import Scope, ScopeKind

    combined = [(label, combine(rs) if rs else _not_run(ob)) for label, rs in per_config]
    for label, r in combined:
        if r.status is Status.REFUTED and r.counterexample is not None:
            where = f"{r.counterexample.launch}, " if r.counterexample.launch else ""
            cx = dataclasses.replace(r.counterexample, launch=f"{where}autotune configuration {label}")
            return dataclasses.replace(r, detail=f"autotune configuration {label}: {r.detail}", counterexample=cx)
    if combinations:  # several launches: a label names one configuration of each autotuned launch
        labels = " | ".join(label for label, _ in combined)
        every = f"every combination of the launches' @triton.autotune configurations ({labels})"
        short = "every combination of the launches' autotune configurations"
    else:
        labels = "; ".join(label for label, _ in combined)
        every = f"every @triton.autotune configuration ({labels})"
        short = "every autotune configuration"
    if any(r.status is not Status.PROVED for _, r in combined):
        why = "; ".join(
            f"autotune configuration {label}: {r.detail or 'unknown'}"
            for label, r in combined
            if r.status is not Status.PROVED
        )
        first = combined[0][1]
        witnesses = tuple(
            dataclasses.replace(w, launch=", ".join(x for x in (w.launch, f"autotune configuration {label}") if x))
            for label, r in combined
            for w in r.witnesses
        )
        return ObligationResult(ob, Status.UNKNOWN, first.scope, "pipeline", why, witnesses=witnesses)
    proofs = [r for _, r in combined]
    details = "; ".join(f"autotune configuration {label}: {r.detail}" for label, r in combined if r.detail)
    assumptions = tuple({a: None for r in proofs for a in r.assumptions})
    seconds = sum(r.seconds for r in proofs)
    prover = "+".join(dict.fromkeys(r.prover for r in proofs))
    if all(r.scope.kind is ScopeKind.PARAMETRIC for r in proofs):
        constraints = [every]
        for r in proofs:
            constraints += [c for c in r.scope.constraints if c != AUTOTUNE_SCOPE and c not in constraints]
        symbols = list(dict.fromkeys(s for r in proofs for s in r.scope.symbols))
        scope = Scope.parametric(symbols, constraints)
        return ObligationResult(ob, Status.PROVED, scope, prover, details, assumptions, None, seconds)
    # Some configuration holds for its instances only: the instances every configuration proved.
    proved_at: list[list[tuple[dict[str, int], str]]] = []
    for _, rs in per_config:
        pairs = []
        for r in rs:
            if r.status is Status.PROVED and r.scope.kind is ScopeKind.BOUNDED:
                pairs += [(dict(i), x) for i, x in zip(r.scope.instances, r.scope.launches, strict=True)]
        proved_at.append(pairs)
    common = [(i, x) for i, x in proved_at[0] if all(any(i == j for j, _ in other) for other in proved_at[1:])]
    unique = list({repr(i): (i, x) for i, x in common}.values())
    if not unique:
        why = f"no shape instance is proved for {every}: {details}"
        return ObligationResult(ob, Status.UNKNOWN, proofs[0].scope, "pipeline", why)
    scope = Scope.bounded([i for i, _ in unique], [f"{x}, {short}" for _, x in unique])
    detail = f"for {every}; {details}"
    return ObligationResult(ob, Status.PROVED, scope, prover, detail, assumptions, None, seconds)


#: The obligations the parametric prover decides for all sizes (the bounded prover for its instances).
PARAMETRIC_KINDS = (
    ObligationKind.BOUNDS,
    ObligationKind.RACE,
    ObligationKind.BARRIER,
    ObligationKind.OVERFLOW,
    ObligationKind.DEFINED,  # hints, divisions by sizes: refuted or unknown for all sizes (proved per instance)
    ObligationKind.LAUNCH,
)
#: ... and those only it decides: no instance checks overflow, and an instance that runs is a valid launch
#: (one that is not is bad input, as for ``larkc run``), so the launch obligation is about all sizes alone.
PARAMETRIC_ONLY = (ObligationKind.OVERFLOW, ObligationKind.LAUNCH)


#: A parametric counterexample is run in the simulator when no tensor of its instance exceeds this.
_SIMULABLE_ELEMENTS = 1 << 22


def _specialised(
    task: Task, env: Mapping[str, int], config: Mapping[str, ConstValue] | None
) -> tuple[Module, Function]:
    module = parse_task(task, env, config)
    return bind_null_pointers(task, module, kernel_function(task, module))


def _lowering(task: Task, config: Mapping[str, ConstValue] | None) -> Callable[[Mapping[str, int]], Module]:
    """The Triton kernel of ``task`` lowered at given sizes (its specialisation there), null pointers bound."""
    return lambda env: _specialised(task, env, config)[0]


def _parametric(
    task: Task,
    module: Module,
    f: Function,
    lower: Callable[[Mapping[str, int]], Module] | None,
    config: Mapping[str, ConstValue] | None,
    obligations: Sequence[Obligation],
    budget: Budget,
    chosen: Sequence[Mapping[str, int]],
) -> list[ObligationResult]:
    """The parametric results: of a Triton kernel, over every specialisation the constraints admit (each
    lowered by ``lower``); of any other kernel, of ``module``. A Triton ``module`` given by the caller
    (``lower`` None) is one specialisation: its proofs are stated at the ``chosen`` instances only."""
    if lower is None:
        results = prove_parametric(module, f.name, task, obligations, budget)
        if f.level is Level.THREAD:
            return results
        given: dict[str, ShapeExpr] | None = None
        unknown_heuristics = False
        try:
            given = specialisation_heuristics(task, config)
        except LarkcError:
            unknown_heuristics = True  # they may select the specialisation by the sizes
        launches = [str(LaunchConfig(*task.launch.concrete(dict(env)))) for env in chosen]
        return one_specialisation(task, f, results, chosen, launches, given, heuristics_unknown=unknown_heuristics)
    unknown = ""
    heuristics: dict[str, ShapeExpr] | None
    try:
        heuristics = specialisation_heuristics(task, config)
    except LarkcError as e:
        heuristics = None
        unknown = f"the @triton.heuristics constexprs are not shape expressions ({e.message})"
    return prove_parametric_family(
        task, f.name, lower, obligations, budget, heuristics=heuristics, heuristics_unknown=unknown
    )


def _several_launches(
    task: Task,
    instances: Sequence[Mapping[str, int]] | None,
    budget: Budget,
    say: Progress,
    replay_dir: Path | None,
    start: float,
) -> VerifyReport:
    """A task of several launches: bounds, races, barriers and overflow per launch, for all sizes; every
    obligation on the task's shape instances by executing the launches in order, symbolically.

    A launch boundary synchronises everything, so those four properties of the sequence are those of each
    launch, and the parametric prover decides them for a launch whatever its buffers hold (it reads
    loaded values as unknowns; the value ranges of tensors other than the inputs, which an earlier launch
    may have written, are dropped). On each instance the symbolic engine runs the launches one after the
    other, each starting from the terms the earlier ones left in the buffers (:func:`_chain_facts`), and
    the bounded prover decides every obligation from the whole sequence. A refutation is confirmed by
    running the whole sequence.
    """
    from larkc.pipeline.run import config_values

    chosen = [task.shape_env(i) for i in (instances if instances is not None else task.instances)]
    graph = None
    if task.reference is not None:
        from larkc.pipeline.compare import functional_reference
        from larkc.reference import trace_task

        graph = trace_task(functional_reference(task))
    parsed = LaunchModules(task, chosen)
    obligations = [ob for ob in obligations_of(task) if ob.kind is not ObligationKind.KERNEL]
    step_graphs = _step_graphs(task)
    configs = parsed.configs()
    parametric_obs = [ob for ob in obligations if ob.kind in PARAMETRIC_KINDS]
    bounded_obs = [ob for ob in obligations if ob.kind not in PARAMETRIC_ONLY]
    per_config: list[tuple[str, dict[Obligation, list[ObligationResult]]]] = []
    runs: list[tuple[dict[str, int], str, float]] = []
    stopped: StoppedEarly | None = None
    for c, cfg in enumerate(configs):  # every combination of the launches' autotune configurations
        bound: list[Module] = []
        per_launch: dict[Obligation, list[tuple[str, ObligationResult]]] = {ob: [] for ob in parametric_obs}
        configured = task.with_launch_constants(cfg)  # a Triton grid may name the configuration's constexprs
        for k, mod in enumerate(parsed.modules(None, cfg)):
            view = _without_written_ranges(configured.launch_task(k), k)
            mod_k, f_k = bind_null_pointers(view, mod, kernel_function(view, mod))
            check_instance_launches(view, mod_k, [f_k], chosen)  # bad input, as in _verify_specialisation
            bound.append(mod_k)
            label = task.launch_label(k) + (f" (autotune configuration {config_values(cfg[k])})" if cfg[k] else "")
            say(f"{label}: parametric proof of {', '.join(ob.name for ob in parametric_obs)}")
            pres = preconditions(mod_k, f_k)
            lower = _launch_lowering(task, view, k, cfg[k]) if view.language == "triton" else None
            results = _parametric(view, mod_k, f_k, lower, cfg[k], parametric_obs, budget, chosen)
            for r in with_task_preconditions(with_preconditions(results, pres), task):
                per_launch[r.obligation].append((label, r))
        per_ob: dict[Obligation, list[ObligationResult]] = {ob: [] for ob in obligations}

        def witness_modules(env: Mapping[str, int], cfg: Configs = cfg, configured: Task = configured) -> list[Module]:
            return _bound_modules(configured, parsed.modules(env, cfg, own=True))  # the witness's specialisation

        per_instance = any(parsed.per_instance)
        runs_before = len(runs)

        at_sizes = _SequenceAt(task, configured, witness_modules, cfg, budget, replay_dir, step_graphs)
        for ob, launch_results in per_launch.items():
            r = _per_launch_result(task, ob, launch_results, witness_modules, chosen, replay_dir, cfg)
            settled = _settle_witnesses(configured, r, at_sizes.simulate, at_sizes.bounded, replay_dir, say)
            per_ob[ob].append(settled)
        for n, env in enumerate(chosen):
            shape = ", ".join(f"{s}={v}" for s, v in env.items()) or "no symbols"
            steps = f" and {len(task.torch_steps)} PyTorch step(s)" if task.torch_steps else ""
            say(f"instance {n + 1}/{len(chosen)} ({shape}): symbolic execution of {len(task.launches)} launches{steps}")
            t0 = time.perf_counter()
            mods = bound if not per_instance else _bound_modules(configured, parsed.modules(env, cfg))
            if (refused := refused_run(configured, mods, env, Engine.SYMBOLIC)) is not None:
                for r in instance_refused(configured, bounded_obs, env, refused):
                    per_ob[r.obligation].append(r)
                continue
            with tm.gc_paused():
                facts = _chain_facts(configured, mods, graph, env, budget, step_graphs)
                results = prove_instance(facts, bounded_obs, budget)
                for k, mod in enumerate(mods):
                    view = configured.launch_task(k)
                    results = _inexact_scalars(view, kernel_function(view, mod), env, results)
                results = [_confirm(task, mods, r, env, replay_dir, cfg) for r in results]
                launch = facts.launch
                del facts
            label = config_label(task, cfg)
            named = f"{launch}, autotune configuration {label}" if label else launch
            runs.append((env, named, time.perf_counter() - t0))
            for r in results:
                per_ob[r.obligation].append(r)
            if any(r.status is Status.REFUTED for rs in per_ob.values() for r in rs):
                break  # a refutation decides the verdict; later instances would only repeat it
        per_config.append((config_label(task, cfg), per_ob))
        if any(r.status is Status.REFUTED for rs in per_ob.values() for r in rs):
            ran = len(runs) - runs_before
            left = len(configs) - c - 1
            if ran < len(chosen) or left:
                stopped = StoppedEarly(ran, len(chosen), config_label(task, cfg), left)
            break
    if len(per_config) == 1:
        per_ob = per_config[0][1]
        combined = tuple(combine(per_ob[ob]) if per_ob[ob] else _not_run(ob) for ob in obligations)
    else:
        combined = tuple(
            _across_configs(ob, [(label, per_ob[ob]) for label, per_ob in per_config], combinations=True)
            for ob in obligations
        )
    if task.torch_steps:
        combined = (_kernel_result(task), *combined)
    return VerifyReport(
        task=task.name,
        expected_failure=task.expected_failure,
        results=combined,
        verdict=Verdict.FAILED if task.findings else verdict(combined),
        instances=tuple(runs),
        seconds=time.perf_counter() - start,
        task_assumptions=task_assumptions(task),
        steps=task_steps(task),
        stopped=stopped,
        findings=task.findings,
    )


def _launch_lowering(
    task: Task, view: Task, k: int, config: Mapping[str, ConstValue] | None
) -> Callable[[Mapping[str, int]], Module]:
    """Launch ``k``'s Triton kernel lowered at given sizes (its specialisation there), null pointers bound
    as ``view`` (the launch's task) binds them."""

    def lower(env: Mapping[str, int]) -> Module:
        module = parse_task(task.launch_task(k), env, config)
        return bind_null_pointers(view, module, kernel_function(view, module))[0]

    return lower


@dataclass(frozen=True, slots=True)
class _SequenceAt:
    """A task of several launches run at the sizes of a possible violation, under one combination ``cfg`` of
    the launches' autotune configurations (``configured``: the task with its constexprs); ``modules``: the
    launches' modules at the witness's sizes (a Triton launch lowered there: its constexprs and heuristics
    may differ from the task's instances')."""

    task: Task
    configured: Task
    modules: Callable[[Mapping[str, int]], list[Module]]  # the launches' modules lowered at given sizes
    cfg: Configs
    budget: Budget
    replay_dir: Path | None
    step_graphs: Mapping[int, object]

    def simulate(self, env: Mapping[str, int]) -> InstanceReport:
        return run_instance(self.task, self.modules(env), env, 0, config=self.cfg)[0]

    def bounded(self, ob: Obligation, env: dict[str, int]) -> ObligationResult:
        mods = self.modules(env)
        _check_symbolic_memory(self.configured, mods, env)
        with tm.gc_paused(), noting_instance(self.task.name, env):
            facts = _chain_facts(self.configured, mods, None, env, self.budget, self.step_graphs)
            r = prove_instance(facts, [ob], self.budget)[0]
        return _confirm(self.task, mods, r, env, self.replay_dir, self.cfg)


def _check_symbolic_memory(
    task: Task, modules: Module | Sequence[Module], env: Mapping[str, int], kernels: Sequence[Function] | None = None
) -> None:
    """Raises :class:`MemoryBudgetExceeded` when a symbolic run at ``env`` (a witness's sizes) is past the
    memory budget: the witness is then kept, unchecked (:func:`_settle_witnesses`)."""
    if (refused := refused_run(task, modules, env, Engine.SYMBOLIC, kernels)) is not None:
        raise MemoryBudgetExceeded(f"task {task.name}, instance {_sizes_text(env)}: {refused}")


def _bound_modules(task: Task, modules: Sequence[Module]) -> list[Module]:
    """Each launch's module with its null pointers bound (see :func:`bind_null_pointers`)."""
    out = []
    for k, mod in enumerate(modules):
        view = task.launch_task(k)
        out.append(bind_null_pointers(view, mod, kernel_function(view, mod))[0])
    return out


def _per_launch_result(
    task: Task,
    ob: Obligation,
    launch_results: Sequence[tuple[str, ObligationResult]],
    modules_at: Callable[[Mapping[str, int]], list[Module]],
    chosen: Sequence[Mapping[str, int]],
    replay_dir: Path | None,
    cfg: Configs,
) -> ObligationResult:
    """One parametric result for ``ob`` from its result in each launch: refuted if one launch is (the
    refutation confirmed on the whole sequence, each launch's kernel of the witness's specialisation:
    ``modules_at``), proved for all sizes if every launch is, else unknown."""
    from larkc.provers import Scope

    refuted = next(((label, r) for label, r in launch_results if r.status is Status.REFUTED), None)
    if refuted is not None and ob.kind is ObligationKind.LAUNCH:  # confirmed by its evaluation: no run
        label, r = refuted
        cx = r.counterexample
        where = dataclasses.replace(cx, launch=f"{label}: {cx.launch}") if cx is not None else None
        return dataclasses.replace(r, detail=f"{label}: {r.detail}", counterexample=where)
    if refuted is not None:
        return _confirm_sequence(task, modules_at, refuted[1], chosen, replay_dir, cfg)
    if all(r.status is Status.PROVED for _, r in launch_results):
        first = launch_results[0][1]
        detail = "; ".join(f"{label}: {r.detail}" for label, r in launch_results)
        assumptions = {a: None for _, r in launch_results for a in r.assumptions}
        return dataclasses.replace(first, detail=detail, assumptions=tuple(assumptions))
    why = "; ".join(
        f"{label}: {r.detail or r.status.value}" for label, r in launch_results if r.status is not Status.PROVED
    )
    scope = launch_results[0][1].scope if launch_results else Scope.bounded([], [])
    witnesses = tuple(
        dataclasses.replace(w, message=f"{label}: {w.message}") for label, r in launch_results for w in r.witnesses
    )
    return ObligationResult(ob, Status.UNKNOWN, scope, "pipeline", why, witnesses=witnesses)


def _without_written_ranges(view: Task, index: int) -> Task:
    """``view`` without the value ranges of tensors an earlier launch may have written (outputs and
    scratch; in-place tensors after the first launch): only the inputs' ranges are promised by the task."""
    drop = (set(view.outputs) | set(view.scratch)) - (set(view.inplace) if index == 0 else set())

    def strip(specs: Mapping[str, TensorSpec]) -> dict[str, TensorSpec]:
        return {n: dataclasses.replace(s, low=None, high=None) if n in drop else s for n, s in specs.items()}

    return dataclasses.replace(
        view, inputs=strip(view.inputs), outputs=strip(view.outputs), scratch=strip(view.scratch)
    )


def _unsimulated_launches(task: Task, modules: Sequence[Module], r: ObligationResult) -> ObligationResult:
    """A refutation of one launch of a sequence that the simulator did not reproduce: UNKNOWN when a
    launch's kernel has a precondition that may differ between threads (:func:`unsimulated`)."""
    for k, mod in enumerate(modules):
        r = unsimulated(r, mod, kernel_function(task, mod, k))
    return r


def _confirm_sequence(
    task: Task,
    modules_at: Callable[[Mapping[str, int]], list[Module]],
    r: ObligationResult,
    chosen: Sequence[Mapping[str, int]],
    replay_dir: Path | None,
    config: Configs | None = None,
) -> ObligationResult:
    """A parametric refutation of one launch, run through the whole sequence at its sizes when they are
    small enough (as :func:`_confirm_static` does for one launch), under the autotune ``config``, with the
    kernels ``modules_at`` gives at its sizes."""
    cx = r.counterexample
    if cx is None or not cx.instance:
        return r
    try:
        env = task.shape_env(cx.instance)
        sizes = [math.prod(s.concrete_shape(env)) for s in task.tensors.values()]
        modules = modules_at(env)
    except (LarkcError, ValueError):
        return r
    if max(sizes, default=0) > _SIMULABLE_ELEMENTS or simulation_refused(task, modules, env) is not None:
        return _unsimulated_launches(task, modules, r)
    try:
        rep, _ = run_instance(task, modules, env, 0, config=config)
    except PreconditionError as e:
        return outside_contract(r, e)
    word = r.obligation.kind.failure_kind
    if word not in rep.kinds() and _reported(rep, word) is None:
        if r.obligation.kind not in _UNSEEN_BY_SIMULATOR:
            return _possible(r, _RAN_CLEAN)
        return _unsimulated_launches(task, modules, r)
    replay = str(write_replay_file(task, rep, replay_dir or default_replay_dir()))
    return dataclasses.replace(
        r, counterexample=dataclasses.replace(cx, kind=CounterexampleKind.CONFIRMED, replay=replay)
    )


def _inexact_scalars(
    task: Task, f: Function, env: Mapping[str, int], results: Sequence[ObligationResult]
) -> list[ObligationResult]:
    """Equivalence is not decided on an instance where a computed scalar argument is irrational.

    The symbolic engine takes exact rational scalars; an irrational value (``1 / sqrt(d)`` at ``d = 32``)
    reaches it as its binary64 rounding, which differs from the reference's exact constant: a proof or a
    refutation of equivalence from it would be about another kernel argument. Safety obligations keep
    their results (they are decided with the value the kernel is given)."""
    inexact = [
        f"{p.name} = {b.text} = {b.value(dict(env)).approx!r}"
        for p in f.params
        if isinstance(b := task.binding(p.name), ScalarExpr) and b.value(dict(env)).exact is None
    ]
    if not inexact:
        return list(results)
    reason = (
        f"the scalar argument {'; '.join(inexact)} is irrational at this instance: the symbolic engine "
        f"takes rational scalars only, so equivalence is not decided here"
    )
    return _equivalence_unknown(results, env, reason)


def _equivalence_unknown(
    results: Sequence[ObligationResult], env: Mapping[str, int], reason: str
) -> list[ObligationResult]:
    """``results`` with the equivalence results of this instance UNKNOWN for ``reason``."""
    from larkc.provers import Scope

    launch = " ".join(r.scope.launches[0] for r in results[:1] if r.scope.launches)
    return [
        ObligationResult(r.obligation, Status.UNKNOWN, Scope.bounded([dict(env)], [launch]), "pipeline", reason)
        if r.obligation.kind is ObligationKind.EQUIVALENCE
        else r
        for r in results
    ]


def _confirm_static(
    task: Task,
    module: Module,
    r: ObligationResult,
    replay_dir: Path | None,
    config: Configs | None = None,
    lower: Callable[[Mapping[str, int]], Module] | None = None,
) -> ObligationResult:
    """Run a parametric refutation's sizes through the simulator when they are small enough, with the
    kernel of the witness's own specialisation (``lower``: a Triton kernel lowered at the witness's
    sizes, whose constexprs and argument types may differ from ``module``'s)."""
    cx = r.counterexample
    if r.status is not Status.REFUTED or cx is None or not cx.instance:
        return r
    if r.obligation.kind is ObligationKind.LAUNCH:  # the launch evaluated at the sizes confirms it already
        return r
    if r.obligation.kind is ObligationKind.OVERFLOW and COUNTER_WRAP in cx.message:
        # a loop that does not end (or revisits) is nothing the simulator can show; the model is exact
        return unsimulated(r, module, kernel_function(task, module))
    try:
        env = task.shape_env(cx.instance)
        sizes = [math.prod(s.concrete_shape(env)) for s in task.tensors.values()]
    except (TaskError, ValueError):
        return r
    if lower is not None:
        try:
            module = lower(env)
        except LarkcError as e:  # never simulated with another specialisation's kernel
            return _possible(r, f"the kernel cannot be lowered at these sizes ({e.message})")
    if max(sizes, default=0) > _SIMULABLE_ELEMENTS or simulation_refused(task, module, env) is not None:
        # sizes no simulator can allocate: the solver's model is the evidence (if it is for every thread)
        return unsimulated(r, module, kernel_function(task, module))
    confirmed = _confirm(task, module, r, env, replay_dir, config)
    cx = confirmed.counterexample
    if cx is not None and cx.kind is not CounterexampleKind.CONFIRMED:
        if confirmed.status is Status.REFUTED and r.obligation.kind not in _UNSEEN_BY_SIMULATOR:
            return _possible(r, _RAN_CLEAN)
        return unsimulated(confirmed, module, kernel_function(task, module))
    return confirmed


#: The parametric refutations the simulator cannot reproduce (it does not check integer overflow), so that a
#: run at the witness's sizes that does not report them is no evidence against them.
_UNSEEN_BY_SIMULATOR = (ObligationKind.OVERFLOW, ObligationKind.LAUNCH)
#: Why a parametric refutation the simulator ran at its sizes is only a possible violation: the solver's
#: model of the paired threads is not realised by the kernel's execution there (a model that abstracts a
#: value, an ordering the simulator rules out). It stays a witness that blocks a bounded proof for all sizes
#: (UNKNOWN then, never FAILED on evidence the execution contradicts, nor VERIFIED past it).
_RAN_CLEAN = "not confirmed: the simulator at these sizes runs without reporting it"


def _reported(rep: InstanceReport, word: str) -> Diagnosis | None:
    """The first diagnosis of ``rep`` that refutes the obligation whose failure word is ``word``. A race of
    writes storing one value (``race (same value)``, a warning of ``larkc run``) refutes ``race`` as well:
    ``verify``'s race obligation, as its solver's model, has no values (docs/verify.md)."""
    for d in rep.diagnoses:
        if d.kind.value == word or (word == "race" and d.kind is DiagnosisKind.RACE_SAME_VALUE):
            return d
    return None


def _possible(r: ObligationResult, why: str) -> ObligationResult:
    """A parametric refutation not upheld: UNKNOWN with it as a possible violation (:func:`possible`), which
    :func:`_settle_witnesses` then checks further or keeps."""
    return ObligationResult(
        r.obligation, Status.UNKNOWN, r.scope, r.prover, f"{r.detail} ({why})", r.assumptions, None, r.seconds,
        possible(r),
    )  # fmt: skip


#: A possible violation's sizes are simulated when no tensor exceeds _SIMULABLE_ELEMENTS and the launch has
#: at most this many threads (a forgotten cdiv makes billions).
_SIMULABLE_THREADS = 1 << 20
#: ... and run through the bounded prover (when the simulation saw nothing) at most these many elements per
#: tensor and threads: a symbolic run costs what an instance of the task costs.
_SYMBOLIC_ELEMENTS = 1 << 14
_SYMBOLIC_THREADS = 1 << 14


def _settle_witnesses(
    task: Task,
    r: ObligationResult,
    simulate: Callable[[Mapping[str, int]], InstanceReport],
    bounded: Callable[[Obligation, dict[str, int]], ObligationResult],
    replay_dir: Path | None,
    say: Progress,
) -> ObligationResult:
    """A parametric UNKNOWN with witnesses (violations z3 found possible at some sizes, in a model that may
    not be realisable): each witness is

    * **confirmed** when the simulator at its sizes reports the violation (or the bounded prover refutes
      the obligation there): the result is REFUTED, at those sizes;
    * **dismissed** when the bounded prover proves the obligation at its sizes: the model is not realisable
      there, and what is left is an unknown the prover could not model (a bounded proof may stand in);
    * **kept** otherwise (sizes too large to check, or a check that decides nothing): the result stays
      UNKNOWN with it, which no proof at other sizes covers (:func:`larkc.provers.combine`).

    ``simulate`` runs the kernel at a witness's sizes (its own specialisation), ``bounded`` decides one
    obligation there with the bounded prover (a refutation confirmed)."""
    if r.status is not Status.UNKNOWN or not r.witnesses:
        return r
    ob = r.obligation
    word = ob.kind.failure_kind
    kept: list[Counterexample] = []
    dismissed: list[str] = []
    for w in r.witnesses:
        if ob.kind is ObligationKind.OVERFLOW:  # neither the simulator nor the bounded prover checks it
            kept.append(dataclasses.replace(w, message=f"{w.message} (integer overflow is decided by z3 alone)"))
            continue
        try:
            env = task.shape_env(w.instance)
            elements = max((math.prod(s.concrete_shape(env)) for s in task.tensors.values()), default=0)
            threads = max(_threads(task.launch_task(k), env) for k in range(len(task.launches)))
        except (TaskError, ValueError) as e:
            kept.append(dataclasses.replace(w, message=f"{w.message} (not checked: {e})"))
            continue
        shape = _sizes_text(w.instance)
        why = "too large to simulate"
        if elements <= _SIMULABLE_ELEMENTS and threads <= _SIMULABLE_THREADS:
            say(f"{ob.name}: simulating the possible violation at {shape}")
            try:
                rep = simulate(env)
            except PreconditionError as e:
                kept.append(dataclasses.replace(w, message=f"{w.message} (outside the kernel's precondition: {e})"))
                continue
            except LarkcError as e:  # not lowerable or over the memory budget there: kept, never a crash
                kept.append(dataclasses.replace(w, message=f"{w.message} (not checked: {e.message})"))
                continue
            found = _reported(rep, word)
            if found is not None:
                replay = str(write_replay_file(task, rep, replay_dir or default_replay_dir()))
                cx = Counterexample(
                    CounterexampleKind.CONFIRMED, found.render(), dict(w.instance), w.launch, found.span, replay=replay
                )
                detail = f"z3's {w.message}; the simulator confirms it at those sizes"
                return ObligationResult(ob, Status.REFUTED, r.scope, r.prover, detail, r.assumptions, cx, r.seconds)
            why = "the simulator at those sizes runs clean"
        if elements <= _SYMBOLIC_ELEMENTS and threads <= _SYMBOLIC_THREADS:
            say(f"{ob.name}: the bounded prover at the possible violation's sizes {shape}")
            try:
                b = bounded(ob, env)
            except LarkcError as e:
                kept.append(dataclasses.replace(w, message=f"{w.message} (not checked: {e.message})"))
                continue
            if b.status is Status.REFUTED:
                return dataclasses.replace(
                    b, detail=f"z3's {w.message}; the bounded prover refutes it there: {b.detail}"
                )
            if b.status is Status.PROVED:
                dismissed.append(f"{w.message}: not realisable (the bounded prover proves {ob.name} at {shape})")
                continue
            why += f", and the bounded prover decides nothing there ({b.detail})"
        kept.append(dataclasses.replace(w, message=f"{w.message} (not confirmed: {why})"))
    notes = [f"unconfirmed {w.message}" for w in kept] + [f"dismissed {d}" for d in dismissed]
    detail = "; ".join([r.detail, *notes]) if r.detail else "; ".join(notes)
    return dataclasses.replace(r, detail=detail, witnesses=tuple(kept))


def _threads(task: Task, env: Mapping[str, int]) -> int:
    """How many threads (programs) the launch of the single-launch ``task`` has at ``env``."""
    grid, block, _ = task.launch.concrete(dict(env))
    return math.prod(grid) * math.prod(block)


def _sizes_text(env: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items()) or "no symbols"


def _not_run(ob: Obligation) -> ObligationResult:
    from larkc.provers import Scope

    return ObligationResult(ob, Status.UNKNOWN, Scope.bounded([], []), "pipeline", "no instance was run")


# --------------------------------------------------------------------------------------------------
# One instance: symbolic execution and the spec's terms


def _instance_facts(
    task: Task,
    module: Module,
    f: Function,
    graph: object | None,
    env: dict[str, int],
    budget: Budget,
    fixed: Fixed | None = None,
) -> InstanceFacts:
    """The facts of one symbolic run of ``f`` on the instance ``env``, with the spec's terms when the task
    has a reference (``graph``); ``fixed`` gives some inputs fixed values on both sides (a case of
    :func:`_by_cases`)."""
    grid, block, shared = task.launch.concrete(env)
    launch = LaunchConfig(grid, block, shared)
    args = symbolic_args(task, f, env)
    for p, a in list(args.items()):
        # a fixed input starts as given contents, like an earlier launch's: a read of it at an index that
        # depends on data stops the run (it would read the symbolic tensor, not the case's values)
        if isinstance(a, SymbolicBuffer) and fixed and a.name in fixed:
            args[p] = dataclasses.replace(a, init="terms", terms=_fixed_terms(a.dtype, fixed[a.name]))
    ranges = _int_ranges(task, env)
    # the spec's conditions are kept per output (each output's equivalence may assume only its own
    # reference's domain); the kernel run's are not attributable to an output and go to every one
    spec_terms, spec_conditions, reader = _spec_side(task, graph, env, fixed)
    with side_conditions() as conditions:
        run = execute_symbolic(
            module,
            f.name,
            launch,
            args,
            constant_reader=reader,
            int_ranges=ranges,
            seconds=budget.seconds,
            max_terms=budget.term_size,
            narrowest_float=narrowest_float(task),
        )
    passed = {a.name for a in args.values() if isinstance(a, SymbolicBuffer)}
    facts = _facts(task, env, run, spec_terms, ranges, passed, fixed)
    return dataclasses.replace(
        facts,
        side_conditions=conditions.conditions,
        spec_conditions=spec_conditions,
        block_level=f.level is not Level.THREAD,
    )


def _spec_side(
    task: Task, graph: object | None, env: dict[str, int], fixed: Fixed | None = None
) -> tuple[
    dict[str, tuple[OutputValue, ...]] | None,
    dict[str, tuple[SideCondition, ...]],
    Callable[[float, ScalarType], tuple[Poly, str | None]],
]:
    """The spec's output terms on the instance ``env`` (``None`` without a reference), the side conditions
    each output's own computation recorded, and the reader of the kernel's float constants they imply. An
    element the reference computes as an infinity or NaN for every input is spelled as the kernel's run
    spells it (``"+inf"``, ``"-inf"``, ``"nan"``)."""
    if graph is None:
        return None, {}, _exact_constant
    from larkc.reference import SpecGraph, evaluate_symbolic_with_conditions

    assert isinstance(graph, SpecGraph)
    outs = evaluate_symbolic_with_conditions(graph, env, fixed, zeros=zero_elements(task, env))
    spec_terms = {
        name: tuple(e.value if isinstance(e, NonFinite) else e for e in tt.elems)
        for name, (tt, _) in zip(task.outputs, outs, strict=True)
    }
    conditions = {name: cs for name, (_, cs) in zip(task.outputs, outs, strict=True)}
    terms = [t for tt, _ in outs for t in tt.elems if not isinstance(t, NonFinite)]
    return spec_terms, conditions, ConstantReader(terms, _scalar_values(task, env)).read


def _chain_facts(
    task: Task,
    modules: Sequence[Module],
    graph: object | None,
    env: dict[str, int],
    budget: Budget,
    step_graphs: Mapping[int, object] | None = None,
) -> InstanceFacts:
    """The facts of the steps of ``task`` run symbolically in order on the instance ``env``.

    Each launch starts from what the earlier steps left: a buffer an earlier step wrote starts with those
    terms (``"undef"`` where no step wrote it yet), the others as the task declares them. A PyTorch step's
    spec graph (``step_graphs``, by step index: :func:`_step_graphs`) is evaluated on the terms its input
    buffers hold, and its results are its output buffers' terms (:func:`symbolic_torch_step`); one that
    reads an element no step wrote is an ``uninit`` finding, and its outputs stay unwritten. The facts are
    those of the sequence: every launch's diagnoses (named by their launch), the final contents of every
    buffer, and the union of what made a run inexact. A launch that stops (unsupported) stops the chain.
    """
    from larkc.pipeline.run import _in_launch

    graphs = step_graphs if step_graphs is not None else _step_graphs(task)
    ranges = _int_ranges(task, env)
    contents: dict[str, tuple[OutputValue, ...]] = {}  # buffers some step wrote, as it left them
    runs: list[SymbolicRun] = []
    diagnoses = []
    passed: set[str] = set()
    kernel_modules = iter(enumerate(modules))
    block_level = False  # some launch is of a block-level (Triton) kernel
    spec_terms, spec_conditions, reader = _spec_side(task, graph, env)
    # the steps' conditions, as in _instance_facts: a PyTorch step's too, since it computes a part of the
    # kernel's side (where its simplifications do not hold it has no such value, and no output's
    # reference is excused by that unless the output's own reference needs the same condition)
    with side_conditions() as conditions:
        for i, step in enumerate(task.steps):
            if isinstance(step, TorchStep):
                passed |= {*step.inputs, *step.outputs}
                current = {n: contents.get(n) or _initial_contents(task, n, env) for n in step.inputs}
                unwritten = {n: sum(1 for t in terms if t == UNDEF) for n, terms in current.items()}
                if any(unwritten.values()):
                    total = {n: len(terms) for n, terms in current.items()}
                    diagnoses += uninit_inputs(task, i, step, unwritten, total)
                    for n in step.outputs:
                        contents[n] = (UNDEF,) * math.prod(task.tensors[n].concrete_shape(env))
                    continue
                contents.update(symbolic_torch_step(task, i, step, graphs[i], env, current))
                continue
            assert isinstance(step, KernelLaunch)
            k, mod = next(kernel_modules)
            view = task.launch_task(k)
            f = kernel_function(view, mod)
            block_level = block_level or f.level is not Level.THREAD
            grid, block, shared = view.launch.concrete(env)
            args = symbolic_args(view, f, env)
            for p, a in list(args.items()):
                if isinstance(a, SymbolicBuffer):
                    passed.add(a.name)
                    if a.name in contents:
                        args[p] = dataclasses.replace(a, init="terms", terms=contents[a.name])
            run = execute_symbolic(
                mod,
                f.name,
                LaunchConfig(grid, block, shared),
                args,
                constant_reader=reader,
                int_ranges=ranges,
                seconds=budget.seconds,
                max_terms=budget.term_size,
                narrowest_float=narrowest_float(task),
            )
            runs.append(run)
            diagnoses += [_in_launch(d, task.launch_label(k)) for d in run.diagnoses]
            if run.unsupported is not None:
                label = task.launch_label(k)
                run.unsupported.reason = f"{label}: {run.unsupported.reason}"
                break
            contents.update({name: run.buffers[name] for name in run.written})
    last = runs[-1]
    final: dict[str, tuple[OutputValue, ...]] = {}
    if last.unsupported is None:
        for name in passed:
            start = _initial_contents(task, name, env)
            final[name] = contents.get(name, start)
    merged = dataclasses.replace(
        last,
        diagnoses=tuple(diagnoses),
        buffers=final,
        data_dependent={k: v for r in runs for k, v in r.data_dependent.items()},
        opaque={k: v for r in runs for k, v in r.opaque.items()},
        notes=tuple({n: None for r in runs for n in r.notes}),
        aborted=any(r.aborted for r in runs),
        unknowns=sum(r.unknowns for r in runs),
        written=frozenset(contents),
        range_conditions=tuple(c for r in runs for c in r.range_conditions),
    )
    facts = _facts(task, env, merged, spec_terms, ranges, passed)
    launch = "; ".join(f"{task.launch_label(k)}: {r.launch}" for k, r in enumerate(runs))
    return dataclasses.replace(
        facts,
        launch=launch,
        side_conditions=conditions.conditions,
        spec_conditions=spec_conditions,
        block_level=block_level,
    )


def _step_graphs(task: Task) -> dict[int, object]:
    """The spec graph of each PyTorch step of ``task``, by its index in :attr:`Task.steps`."""
    return {i: trace_step(task, i, x) for i, x in enumerate(task.steps) if isinstance(x, TorchStep)}


def _steps_text(task: Task) -> str:
    """Which steps are the candidate's kernels and which PyTorch, in order."""
    return ", then ".join(
        f"PyTorch {x.description}" if isinstance(x, TorchStep) else f"kernel {x.kernel}" for x in task.steps
    )


def _kernel_result(task: Task) -> ObligationResult:
    """The ``kernel`` obligation of a task with PyTorch steps: proved when it launches a kernel (for every
    size: the steps do not depend on sizes), refuted when every step is PyTorch (not a kernel)."""
    from larkc.pipeline.reports import not_a_kernel_text
    from larkc.provers import Scope

    ob = Obligation(ObligationKind.KERNEL)
    if task.launches:
        scope = Scope.parametric(task.symbols, [])
        return ObligationResult(ob, Status.PROVED, scope, "pipeline", f"steps: {_steps_text(task)}")
    first = task.torch_steps[0]
    cx = Counterexample(
        CounterexampleKind.CONFIRMED, not_a_kernel_text(tuple(x.description for x in task.torch_steps)),
        span=step_span(first),
    )  # fmt: skip
    return ObligationResult(ob, Status.REFUTED, Scope.parametric(task.symbols, []), "pipeline", cx.message, (), cx)


def _not_a_kernel(task: Task, start: float) -> VerifyReport:
    """The report on a task whose every step is PyTorch: FAILED, not a kernel (KernelBench's fallback check
    rejects such a candidate); nothing else is the candidate's to check."""
    result = _kernel_result(task)
    return VerifyReport(
        task=task.name,
        expected_failure=task.expected_failure,
        results=(result,),
        verdict=verdict((result,)),
        instances=(),
        seconds=time.perf_counter() - start,
        task_assumptions=task_assumptions(task),
        steps=task_steps(task),
    )


def _initial_contents(
    task: Task, name: str, env: Mapping[str, int], fixed: Fixed | None = None
) -> tuple[Term | str, ...]:
    """The elements tensor ``name`` holds before the launch, as the symbolic run starts it: an input element
    the symbol ``elem(x, i)`` (a bool one ``elem(x, i) != 0``; its value in ``fixed`` if there), zeros, or
    ``"undef"`` (an ``empty`` buffer)."""
    spec = task.tensors[name]
    if fixed and name in fixed:
        return _fixed_terms(spec.dtype, fixed[name])
    n = math.prod(spec.concrete_shape(dict(env)))
    init = init_of(task, name, spec)
    if init == "random":
        if spec.dtype.is_bool:
            return tuple(tm.compare("!=", tm.elem(name, i), tm.ZERO) for i in range(n))
        zeros = zero_elements(task, env).get(name, frozenset())
        return tuple(tm.ZERO if i in zeros else tm.elem(name, i) for i in range(n))
    if init == "zeros":
        return (tm.FALSE if spec.dtype.is_bool else tm.ZERO,) * n
    return ("undef",) * n


def _kept_inputs(
    task: Task, env: Mapping[str, int], run: SymbolicRun, fixed: Fixed | None = None
) -> tuple[dict[str, tuple[Term, ...]], dict[str, tuple[Term | str, ...]]]:
    """The inputs the kernel must leave unchanged, as the run started and ended them: for a task with a
    reference (as for ``larkc run``'s ``input-write``), each input not in-place that the kernel is passed.
    Empty when the run stopped (its memory says nothing then)."""
    before: dict[str, tuple[Term, ...]] = {}
    after: dict[str, tuple[Term | str, ...]] = {}
    if task.reference is None or run.unsupported is not None:
        return before, after
    for name in task.inputs:
        if name in task.inplace or name not in run.buffers:
            continue
        start = _initial_contents(task, name, env, fixed)
        before[name] = tuple(t for t in start if not isinstance(t, str))
        after[name] = run.buffers[name]
        if len(before[name]) != len(start):  # an input declared empty: no start value to keep
            del before[name], after[name]
    return before, after


def symbolic_args(task: Task, f: Function, env: Mapping[str, int]) -> dict[str, SymbolicArg]:
    """The symbolic argument of every kernel parameter, from the task's bindings."""
    args: dict[str, SymbolicArg] = {}
    for p in f.params:
        b = task.binding(p.name)
        match b:
            case BufferArg():
                spec = task.tensors[b.name]
                check_pointee(task, p, b.name, spec)
                init = init_of(task, b.name, spec)
                kind = {"random": "input", "zeros": "zeros", "empty": "empty"}[init]
                shape = spec.concrete_shape(dict(env))
                if kind == "input" and spec.triangular is not None:  # its zero triangle is 0, not a symbol
                    terms = _initial_contents(task, b.name, env)
                    args[p.name] = SymbolicBuffer(b.name, shape, spec.dtype, "terms", terms)
                    continue
                args[p.name] = SymbolicBuffer(b.name, shape, spec.dtype, kind)  # type: ignore[arg-type]
            case ShapeArg():
                args[p.name] = int(evaluate(b.expr, dict(env)))
            case ScalarArg():
                v = b.value
                args[p.name] = Fraction(v) if isinstance(v, float) else v
            case ScalarExpr():
                check_float_param(task, p, b)
                # Exact where rational; else the binary64 value the kernel is given (see _inexact_scalars).
                value = b.value(dict(env))
                args[p.name] = value.exact if value.exact is not None else Fraction(value.approx)
            case NullArg():
                raise TaskError(
                    f"task {task.name}: kernel parameter {p.name} is bound to the null pointer: the kernel "
                    f"takes it through bind_null_pointers, not as an argument",
                    p.span,
                )
            case None:
                raise TaskError(
                    f"task {task.name}: kernel parameter {p.name} has no binding (name a tensor or symbol "
                    f"{p.name}, or bind it in bindings=...)"
                )
    return args


def narrowest_float(task: Task) -> ScalarType | None:
    """The narrowest float type of the task's tensors (the reference's precision), if any is float."""
    floats = [spec.dtype for spec in task.tensors.values() if spec.dtype.is_float]
    return min(floats, key=lambda t: t.size) if floats else None


def zero_elements(task: Task, env: Mapping[str, int]) -> dict[str, frozenset[int]]:
    """The elements of each input that are 0 by its precondition (the zero triangle of a ``triangular``
    input, as the problem's ``torch.tril(...)`` draws it), by row-major index at the instance ``env``."""
    out: dict[str, frozenset[int]] = {}
    for name, spec in task.inputs.items():
        if spec.triangular is None or name in task.inplace:
            continue
        shape = spec.concrete_shape(dict(env))
        out[name] = frozenset(i for i in range(math.prod(shape)) if spec.triangular.zero_at(i, shape))
    return out


def _int_ranges(task: Task, env: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    out = {}
    for name, spec in task.inputs.items():
        r = spec.value_range(dict(env))
        if r is not None:
            out[name] = (r[0], r[1] - 1)
    return out


def _scalar_values(task: Task, env: Mapping[str, int]) -> list[float]:
    """The float scalars the task binds (constants, and computed ones at ``env``)."""
    out = []
    for b in task.bindings.values():
        if isinstance(b, ScalarArg) and isinstance(b.value, float):
            out.append(float(b.value))
        elif isinstance(b, ScalarExpr):
            out.append(b.value(dict(env)).approx)
    return out


def _facts(
    task: Task,
    env: dict[str, int],
    run: SymbolicRun,
    spec_terms: dict[str, tuple[OutputValue, ...]] | None,
    ranges: Mapping[str, tuple[int, int]],
    passed: set[str],
    fixed: Fixed | None = None,
) -> InstanceFacts:
    """The facts of ``run`` for the provers. An output the kernel is not passed (``passed``: the buffers it
    is) keeps what it held before the launch: the empty kernel standing for a host function that launches
    none leaves its outputs unwritten."""
    findings = tuple(Finding(d.kind.value, d.render(), d.span) for d in run.diagnoses)
    unsupported = None
    if run.unsupported is not None:
        unsupported = (run.unsupported.reason, run.unsupported.span)
    assumptions = [Assumption(AssumptionKind.NUMERIC, n.text, n.span) for n in run.notes]
    for name, (lo, hi) in ranges.items():
        assumptions.append(Assumption(AssumptionKind.TASK, f"every element of {name} is in [{lo}, {hi}]"))
    for name, spec in task.inputs.items():
        if spec.triangular is not None and name not in task.inplace:
            assumptions.append(Assumption(AssumptionKind.TASK, f"input {name} is {spec.triangular}"))
    shapes = {name: spec.concrete_shape(dict(env)) for name, spec in task.tensors.items()}
    outputs = {name: run.buffers[name] for name in task.outputs if name in run.buffers}
    if run.unsupported is None:
        outputs.update({name: _initial_contents(task, name, env) for name in task.outputs if name not in passed})
    before, after = _kept_inputs(task, env, run, fixed)
    return InstanceFacts(
        instance=dict(env),
        launch=str(run.launch),
        findings=findings,
        exhaustive=run.control_concrete,
        data_dependent=tuple(run.data_dependent),
        unsupported=unsupported,
        opaque=tuple(run.opaque),
        assumptions=tuple(assumptions),
        kernel_outputs=outputs,
        spec_outputs=spec_terms,
        output_shapes={name: shapes[name] for name in task.outputs},
        input_sizes={name: math.prod(shapes[name]) for name in task.inputs},
        input_dtypes={name: spec.dtype for name, spec in task.inputs.items()},
        int_ranges=dict(ranges),
        aborted=run.aborted,
        unknowns=run.unknowns > 0,
        inputs_before=before,
        inputs_after=after,
        input_shapes={name: shapes[name] for name in before},
        range_conditions=run.range_conditions,
    )


# --------------------------------------------------------------------------------------------------
# Reading the kernel's float constants


def _exact_constant(value: float, t: ScalarType) -> tuple[Poly, str | None]:
    named = match_named_constant(value, str(t)) if Fraction(value).denominator != 1 else None
    if named is not None:
        return named[0], f"the literal {value!r} ({t}) is read as {named[1]}"
    return tm.const(value), None


class ConstantReader:
    """Reads a float literal of the kernel as the constant it stands for.

    Under exact arithmetic, the kernel's ``1e-5f`` (a float32) and the reference's ``1e-5`` (a binary64)
    are different numbers. Casts and rounding vanish in the model, so a literal that is the rounding, at
    its own type, of a constant of the reference (or of a scalar the task binds) is read as that
    constant, and otherwise a literal that is the rounding of a named irrational constant (``log2(e)``,
    ``sqrt(2/pi)``) is read as that constant; the verdict lists each reading. A literal exactly equal to a
    constant of the reference, or matching none (or several), keeps its exact value.
    """

    def __init__(self, spec_terms: Sequence[Term], scalars: Sequence[float]) -> None:
        self._constants: set[Fraction] = set()
        for node in tm._post_order(spec_terms):
            if isinstance(node, Poly):
                if node.const:
                    self._constants.add(abs(node.const))
                for _, k in node.terms:
                    self._constants.add(abs(k))
        for v in scalars:
            if math.isfinite(v) and v:
                self._constants.add(abs(Fraction(v)))
        self._by_type: dict[ScalarType, dict[Fraction, list[Fraction]]] = {}

    def _table(self, t: ScalarType) -> dict[Fraction, list[Fraction]]:
        table = self._by_type.get(t)
        if table is None:
            table = {}
            for c in self._constants:
                table.setdefault(round_to_format(c, str(t)), []).append(c)
            self._by_type[t] = table
        return table

    def read(self, value: float, t: ScalarType) -> tuple[Poly, str | None]:
        exact = Fraction(value)
        if exact == 0 or exact.denominator == 1:
            return tm.const(exact), None
        sign = -1 if exact < 0 else 1
        cands = self._table(t).get(abs(exact), [])
        if abs(exact) in cands:
            return tm.const(exact), None
        if len(set(cands)) == 1:
            chosen = sign * cands[0]
            return tm.const(chosen), f"the literal {value!r} ({t}) is read as the reference's constant {_show(chosen)}"
        named = match_named_constant(value, str(t))
        if named is not None:
            term, name = named
            return term, f"the literal {value!r} ({t}) is read as {name}"
        return tm.const(exact), None


def _show(q: Fraction) -> str:
    f = float(q)
    return repr(f) if Fraction(f) == q else f"{q.numerator}/{q.denominator}"


# --------------------------------------------------------------------------------------------------
# Confirming refutations on concrete inputs


def _confirm(
    task: Task,
    module: Module | Sequence[Module],
    r: ObligationResult,
    env: Mapping[str, int],
    replay_dir: Path | None,
    config: Configs | None = None,
    fixed: Fixed | None = None,
) -> ObligationResult:
    """Run a refutation's witness through the simulator and the reference (``module``: the kernel lowered
    for the autotune configuration ``config``; ``fixed``: the values of the inputs the refutation was
    found with in a case split, part of its witness); attach a replay file."""
    if r.status is not Status.REFUTED or r.counterexample is None:
        return r
    cx = r.counterexample
    if fixed:
        chosen = {name: {i: float(v) for i, v in enumerate(vs)} for name, vs in fixed.items()}
        cx = dataclasses.replace(cx, inputs={**cx.inputs, **chosen})
    inputs = {t: dict(v) for t, v in cx.inputs.items() if t in task.inputs}
    try:
        rep, _ = run_instance(task, module, env, 0, inputs=inputs, config=config)
    except PreconditionError as e:
        return outside_contract(r, e)
    word = r.obligation.kind.failure_kind
    seen = word in rep.kinds() or _reported(rep, word) is not None
    replay: str | None = None
    if not rep.ok:
        replay = str(write_replay_file(task, rep, replay_dir or default_replay_dir()))
    if seen:
        cx = dataclasses.replace(cx, kind=CounterexampleKind.CONFIRMED, replay=replay)
        if r.obligation.kind is ObligationKind.INPUTS:
            cx = _with_store(cx, rep.input_writes)
    elif r.obligation.kind is ObligationKind.EQUIVALENCE and r.detail.startswith(DOMAIN_REFUTATION):
        # inputs outside the part of the domain where the kernel's terms are its values: only the simulator
        # shows what the kernel computes there, and it computed the reference's values (within tolerance)
        why = f"{r.detail}; at these inputs the simulator's output matches the reference, so nothing is refuted"
        return ObligationResult(r.obligation, Status.UNKNOWN, r.scope, r.prover, why, (), None, r.seconds)
    elif not cx.arithmetic:
        # not a difference that rounding hides but a claim about what the kernel computes at all (an element
        # never written, a non-finite value): a run at the same inputs that does not see it contradicts the
        # symbolic run, which took a path or a memory state no execution reaches (an arm of a branch whose
        # condition it could not decide)
        why = (
            f"not confirmed: the symbolic run finds {cx.message}, but the simulator at the same inputs does not "
            f"(the symbolic value rests on a path no execution may take)"
        )
        return ObligationResult(r.obligation, Status.UNKNOWN, r.scope, r.prover, why, r.assumptions, seconds=r.seconds)
    elif r.obligation.kind is ObligationKind.EQUIVALENCE:
        note = " (under exact arithmetic; at the task's dtypes the simulator's output is within tolerance)"
        cx = dataclasses.replace(cx, kind=CounterexampleKind.EXACT, message=cx.message + note)
    return dataclasses.replace(r, counterexample=cx)


def _with_store(cx: Counterexample, writes: Sequence[InputWrite]) -> Counterexample:
    """A confirmed input change with the store ``larkc run`` saw write that input (its location, the element
    it wrote first and the thread that wrote it)."""
    w = next((w for w in writes if w.tensor == cx.tensor), None)
    if w is None or w.span is None or not w.span.line:
        return cx
    element = f"{w.tensor}[{', '.join(str(i) for i in w.index)}]"
    note = f"; larkc run: the store at {w.span.location()} writes {element} ({w.who}{w.where})"
    return dataclasses.replace(cx, message=cx.message + note, span=w.span)
