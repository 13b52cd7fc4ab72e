"""``larkc run``: simulate a task's kernel and its PyTorch reference on random inputs, and compare.

For each concrete shape instance of a task, :func:`run_instance` draws inputs from a seeded generator
(:mod:`larkc.pipeline.inputs`), runs the simulated kernel (:func:`larkc.semantics.simulate`) and the
reference on the same inputs, and compares each output with a dtype-aware tolerance
(:mod:`larkc.pipeline.compare`). :func:`run_task` does so for every instance and writes each failing
one to a replay file (:mod:`larkc.pipeline.replay`).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import assert_never

import torch

from larkc.errors import TaskError
from larkc.frontends import parse_task, specialised_per_instance
from larkc.ir.nodes import Function, Module
from larkc.pipeline.compare import compare_output, reference_outputs
from larkc.pipeline.inputs import init_of, kernel_args, kernel_function, make_inputs
from larkc.pipeline.replay import default_replay_dir, write_replay_file
from larkc.pipeline.reports import InstanceReport, OutputReport, RunReport
from larkc.semantics import Diagnosis, DiagnosisKind, LaunchConfig, SimLimits, SimResult, simulate
from larkc.semantics.interpreter import StepLimitExceeded, WriteLog
from larkc.tasks import Task

__all__ = ["DEFAULT_SEEDS", "InputDistribution", "run_instance", "run_task"]


class InputDistribution(enum.Enum):
    """How the inputs of one run are drawn: the seeded draw of :mod:`larkc.pipeline.inputs`, transformed.

    One seed of standard normal inputs misses bugs that only some values reveal (a running max started at
    ``0.0f`` instead of ``-INFINITY`` is right on every row with a positive element), so ``larkc run``
    tries each distribution. Floats are transformed in float32 and rounded to their dtype.
    """

    NORMAL = "normal"  # floats standard normal, integers uniform in their range (pipeline.inputs)
    NEGATIVE = "negative"  # floats -|x|: every value negative (a max started at 0, a relu mistaken for abs)
    LARGE = "large"  # floats x * 100: large magnitudes (exp overflow of an unshifted softmax, lost precision)
    NEAR_CONSTANT = "near-constant"  # floats 2 + x / 100: rows nearly constant (cancellation, epsilons)
    EDGES = "edges"  # integers at the two ends of their range (first and last index), floats normal

    def changes(self, task: Task) -> bool:
        """Whether this distribution draws other inputs than ``NORMAL`` for ``task``."""
        kinds = {
            "float" if spec.dtype.is_float else "int" if spec.dtype.is_int else "bool"
            for name, spec in task.inputs.items()
            if init_of(task, name, spec) == "random"
        }
        match self:
            case InputDistribution.NORMAL:
                return True
            case InputDistribution.NEGATIVE | InputDistribution.LARGE | InputDistribution.NEAR_CONSTANT:
                return "float" in kinds
            case InputDistribution.EDGES:
                return "int" in kinds
            case _:
                assert_never(self)

    def apply(self, task: Task, tensors: dict[str, torch.Tensor], env: Mapping[str, int], seed: int) -> None:
        """Transform the random inputs in ``tensors`` (drawn with ``seed``) in place."""
        gen = torch.Generator().manual_seed(seed + 7919)  # another stream than the inputs' own
        for name, spec in task.inputs.items():
            t = tensors[name]
            if init_of(task, name, spec) != "random" or t.numel() == 0:
                continue
            if t.is_floating_point():
                x = t.to(torch.float32)
                match self:
                    case InputDistribution.NORMAL | InputDistribution.EDGES:
                        continue
                    case InputDistribution.NEGATIVE:
                        x = -x.abs()
                    case InputDistribution.LARGE:
                        x = x * 100.0
                    case InputDistribution.NEAR_CONSTANT:
                        x = 2.0 + x / 100.0
                    case _:
                        assert_never(self)
                t.copy_(x.to(t.dtype))
            elif self is InputDistribution.EDGES and t.dtype != torch.bool:
                # The range pipeline.inputs draws integers from: the spec's, else [0, smallest symbol).
                low, high = spec.value_range(dict(env)) or (0, max(1, min(env.values(), default=1)))
                top = torch.randint(0, 2, t.shape, generator=gen).to(torch.bool)
                t.copy_(torch.where(top, torch.full_like(t, high - 1), torch.full_like(t, low)))


#: How many seeds ``larkc run`` tries by default, each with every input distribution.
DEFAULT_SEEDS = 3


def run_instance(
    task: Task,
    module: Module,
    instance: Mapping[str, int],
    seed: int,
    *,
    limits: SimLimits | None = None,
    inputs: Mapping[str, Mapping[int, float]] | None = None,
    strict: bool = False,
    distribution: InputDistribution = InputDistribution.NORMAL,
) -> tuple[InstanceReport, SimResult]:
    """Simulate and compare one shape instance of ``task`` (no replay file).

    The random inputs are drawn with ``seed`` and transformed by ``distribution``; ``inputs`` sets chosen
    input elements (tensor name to ``{flat index: value}``) over them: the witness of a counterexample.
    ``strict``: warnings (``race (same value)``) fail the instance.
    """
    env = task.shape_env(instance)
    grid, block, shared = task.launch.concrete(env)
    launch = LaunchConfig(grid, block, shared)
    f = kernel_function(task, module)
    tensors = make_inputs(task, env, seed)
    distribution.apply(task, tensors, env, seed)
    overrides = {t: dict(v) for t, v in (inputs or {}).items()}
    for name, values in overrides.items():
        if name not in task.inputs:
            raise TaskError(f"task {task.name}: explicit values for {name}, which is not an input")
        flat = tensors[name].view(-1)
        for i, v in values.items():
            if not 0 <= i < flat.numel():
                raise TaskError(f"task {task.name}: explicit value for {name}[{i}], past its {flat.numel()} elements")
            flat[i] = v
    args = kernel_args(task, f, tensors, env)
    try:
        result = simulate(
            module, f.name, launch, args, limits=limits, same_value_races=True, record_writers=tuple(task.outputs)
        )
    except StepLimitExceeded as e:
        # A loop that does not end within the bound is a verdict on the kernel, like a divergent barrier.
        stop = Diagnosis(
            DiagnosisKind.NONTERMINATION,
            f"{e.message}; the bound is {e.bound} iterations per loop execution: raise it with --max-steps N "
            f"(Python: limits=SimLimits(max_loop_iterations=N)) if the loop is meant to run longer"
            + "".join(f"; {note}" for note in e.notes),
            e.span,
        )
        result = SimResult((*e.diagnoses, stop), {}, {}, launch, 0, 0.0, 0, aborted=True)
    diagnoses = list(result.diagnoses)
    outputs: list[OutputReport] = []
    if result.aborted:
        pass  # the launch stopped at a divergent barrier: its outputs mean nothing, compare none
    elif task.reference is not None and task.outputs:
        low, wide = reference_outputs(task, tensors, seed)
        for i, (name, spec) in enumerate(task.outputs.items()):
            got = result.buffers[name]
            rep = compare_output(
                task, name, spec, got, low[i], wide[i] if wide is not None else None, result.written.get(name)
            )
            outputs.append(rep)
            if not rep.ok:
                ref = low[i] if wide is None else wide[i]
                diagnoses.append(_mismatch(task, f, rep, got, ref, result.writers.get(name)))
    elif task.outputs:
        for name in task.outputs:
            w = result.written.get(name)
            if w is not None and not bool(w.all()):
                diagnoses.append(
                    Diagnosis(
                        DiagnosisKind.MISMATCH,
                        f"output {name}: {int((~w).sum())} element(s) never written",
                        f.span,
                        buffer=name,
                    )
                )
    report = InstanceReport(
        dict(env), seed, launch, tuple(diagnoses), tuple(outputs), result.seconds, inputs=overrides, strict=strict,
        distribution=distribution.value,
    )  # fmt: skip
    return report, result


def _threads(task: Task, instance: Mapping[str, int]) -> int:
    grid, block, _ = task.launch.concrete(task.shape_env(instance))
    return math.prod(grid) * math.prod(block)


def _mismatch(
    task: Task, f: Function, rep: OutputReport, got: torch.Tensor, ref: torch.Tensor, writers: WriteLog | None
) -> Diagnosis:
    """The mismatch of output ``rep.name``, located at the store that last wrote its worst element (at the
    kernel when no thread wrote it)."""
    idx = rep.worst_index or ()
    where = f"{rep.name}[{', '.join(str(i) for i in idx)}]" if idx else rep.name
    flat = 0
    for i, d in zip(idx, got.shape, strict=True):
        flat = flat * d + i
    g = got.reshape(-1)[flat].item() if got.numel() else None
    r = ref.reshape(-1)[flat].item() if ref.numel() else None
    if rep.unwritten:
        message = f"output {rep.name}: {rep.unwritten} element(s) never written (first differing: {where})"
    else:
        message = (
            f"output {rep.name} differs from the reference: max abs err {rep.max_abs_err:.3g}, "
            f"max rel err {rep.max_rel_err:.3g}; at {where} the kernel gives {g!r}, the reference {r!r}"
        )
    last = writers.last(flat) if writers is not None and idx else None
    if last is None:
        return Diagnosis(DiagnosisKind.MISMATCH, message, f.span, buffer=rep.name, index=flat)
    message += f"; {where} was last written by {last.who} at {last.span.location()}{last.where}"
    return Diagnosis(DiagnosisKind.MISMATCH, message, last.span, last.block, last.thread, rep.name, flat)


def run_task(
    task: Task,
    *,
    instances: Sequence[Mapping[str, int]] | None = None,
    seed: int = 0,
    replay_dir: Path | None = None,
    write_replay: bool = True,
    limits: SimLimits | None = None,
    module: Module | None = None,
    inputs: Mapping[str, Mapping[int, float]] | None = None,
    strict: bool = False,
    seeds: int = DEFAULT_SEEDS,
    distributions: Sequence[InputDistribution] = tuple(InputDistribution),
) -> RunReport:
    """Run every instance of ``task`` (or ``instances``); failing ones get a replay file.

    The instance with the fewest threads runs on ``seeds`` seeds from ``seed`` on, each with every one of
    ``distributions`` that changes the task's inputs, until one run fails; the others run ``seed`` with the
    first distribution. An instance's report is its failing run, or else its first (``tried`` counts the
    runs). With explicit ``inputs`` (a witness) only ``seed`` and the first distribution run.

    ``module`` is the kernel's IR if the caller has it already (else the task's kernel is parsed);
    replay files go to ``replay_dir`` (default :func:`~larkc.pipeline.replay.default_replay_dir`);
    ``strict`` makes warnings (``race (same value)``) fail an instance.
    """
    # A Triton kernel whose specialisation depends on the shapes is lowered for each instance.
    per_instance = module is None and specialised_per_instance(task)
    if module is None:
        module = parse_task(task)
    chosen = list(instances) if instances is not None else list(task.instances)
    reports: list[InstanceReport] = []
    if seeds < 1 or not distributions:
        raise TaskError(f"task {task.name}: nothing to run ({seeds} seed(s), {len(distributions)} distribution(s))")
    if inputs:
        seeds, distributions = 1, distributions[:1]
    chosen_distributions = [d for d in distributions if d.changes(task) or d is distributions[0]]
    every_set = [(s, d) for d in chosen_distributions for s in range(seed, seed + seeds)]
    # Every input set on the instance of fewest threads (the cheapest: data-dependent bugs rarely need
    # size), the first on the others, so that the default run stays about as fast as one seed was.
    smallest = min(range(len(chosen)), key=lambda i: (_threads(task, chosen[i]), i), default=0)
    for k, inst in enumerate(chosen):
        tries: list[InstanceReport] = []
        mod = parse_task(task, inst) if per_instance else module
        for s, d in every_set if k == smallest else every_set[:1]:
            rep, _ = run_instance(task, mod, inst, s, limits=limits, inputs=inputs, strict=strict, distribution=d)
            tries.append(rep)
            if not rep.ok:
                break
        rep = dataclasses.replace(tries[-1] if not tries[-1].ok else tries[0], tried=len(tries))
        if not rep.ok and write_replay:
            path = write_replay_file(task, rep, replay_dir or default_replay_dir())
            rep = dataclasses.replace(rep, replay=path)
        reports.append(rep)
    return RunReport(task.name, task.expected_failure, tuple(reports), strict=strict)
