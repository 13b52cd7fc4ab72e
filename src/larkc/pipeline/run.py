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
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import assert_never

import torch

from larkc.errors import PreconditionError, Span, TaskError
from larkc.frontends import parse_task, specialised_per_instance, task_configs
from larkc.frontends.triton.values import ConstValue
from larkc.ir.nodes import Function, Module
from larkc.pipeline.compare import compare_output, reference_outputs
from larkc.pipeline.inputs import (
    bind_null_pointers,
    init_of,
    kernel_args,
    kernel_function,
    make_inputs,
    with_preconditions,
)
from larkc.pipeline.memory import Engine, MemoryBudgetExceeded, current_budget, memory_budget, refused_run
from larkc.pipeline.preconditions import describe, noting_instance, preconditions
from larkc.pipeline.replay import default_replay_dir, write_replay_file
from larkc.pipeline.reports import InputWrite, InstanceReport, OutputReport, RunReport
from larkc.pipeline.torch_steps import run_torch_step, step_span
from larkc.semantics import Diagnosis, DiagnosisKind, KernelArg, LaunchConfig, SimLimits, SimResult, simulate
from larkc.semantics.interpreter import StepLimitExceeded, WriteLog
from larkc.tasks import KernelLaunch, Task, TorchStep
from larkc.tasks.preconditions import violation

__all__ = [
    "DEFAULT_SEEDS",
    "Configs",
    "InputDistribution",
    "LaunchModules",
    "config_label",
    "config_values",
    "run_instance",
    "run_task",
]

#: One autotune configuration per launch (constexpr values by name; empty for a kernel not autotuned).
Configs = tuple[Mapping[str, ConstValue], ...]


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
        distinct = {p.tensor for p in task.preconditions}  # the extremes would repeat: keep the permutation
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
                t.copy_(with_preconditions(spec, x.to(t.dtype)))  # 2 + x / 100 keeps no zero triangle
            elif self is InputDistribution.EDGES and t.dtype != torch.bool and name not in distinct:
                # The range pipeline.inputs draws integers from: the spec's, else [0, smallest symbol).
                low, high = spec.value_range(dict(env)) or (0, max(1, min(env.values(), default=1)))
                top = torch.randint(0, 2, t.shape, generator=gen).to(torch.bool)
                t.copy_(torch.where(top, torch.full_like(t, high - 1), torch.full_like(t, low)))


#: How many seeds ``larkc run`` tries by default, each with every input distribution.
DEFAULT_SEEDS = 3


def run_instance(
    task: Task,
    module: Module | Sequence[Module],
    instance: Mapping[str, int],
    seed: int,
    *,
    limits: SimLimits | None = None,
    inputs: Mapping[str, Mapping[int, float]] | None = None,
    strict: bool = False,
    distribution: InputDistribution = InputDistribution.NORMAL,
    config: Configs | None = None,
) -> tuple[InstanceReport, SimResult]:
    """Simulate and compare one shape instance of ``task`` (no replay file).

    ``module`` holds the kernels: one module for every launch, or one per launch. The launches run in
    order on the task's tensors: what one writes, the next reads (initialised). The random inputs are
    drawn with ``seed`` and transformed by ``distribution``; ``inputs`` sets chosen input elements (tensor
    name to ``{flat index: value}``) over them: the witness of a counterexample. The reference runs on
    the inputs as drawn, whatever the kernel does to them. ``strict``: warnings (``race (same value)``)
    fail the instance. ``config`` is the autotune configuration (one per launch) ``module`` was lowered for:
    its integer constexprs complete the launch's grid (:meth:`~larkc.tasks.Task.with_launch_constants`),
    and the report names it. Returns the report and the simulation of the last launch that ran.
    """
    env = task.shape_env(instance)
    n = len(task.launches)
    if n == 0:
        raise TaskError(f"task {task.name}: every step is PyTorch: there is no kernel to run")
    task = task.with_launch_constants(config if config is not None else tuple({} for _ in task.launches))
    modules = [module] * n if isinstance(module, Module) else list(module)
    if len(modules) != n:
        raise TaskError(f"task {task.name}: {len(modules)} module(s) for {n} launch(es)")
    refused = refused_run(task, modules, env, Engine.SIMULATOR)  # before a byte of it is allocated
    if refused is not None:
        shown = ", ".join(f"{k}={v}" for k, v in env.items()) or "no symbols"
        raise MemoryBudgetExceeded(f"task {task.name}, instance {shown}: {refused}")
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
        tri = task.inputs[name].triangular
        shape = tuple(tensors[name].shape)
        outside = [i for i, v in values.items() if v != 0 and tri is not None and tri.zero_at(i, shape)]
        if outside:
            raise PreconditionError(
                f"task {task.name}: explicit value {values[outside[0]]} for {name}[{outside[0]}], which the"
                f" input's precondition makes 0 ({name} is {tri})"
            )
    for p in task.preconditions:
        why = violation(p, tensors[p.tensor])
        if why is not None:
            raise PreconditionError(
                f"task {task.name}: the inputs violate a precondition of the task: {why}", task.precondition_span(p)
            )
    with noting_instance(task.name, env, f", seed {seed}"):
        runs = _run_launches(task, modules, tensors, env, limits)
    diagnoses = list(runs.diagnoses)
    f = runs.kernels[-1]
    outputs: list[OutputReport] = []
    if runs.aborted:
        pass  # a launch stopped at a divergent barrier: its outputs mean nothing, compare none
    elif task.reference is not None and task.outputs:
        low, wide = reference_outputs(task, tensors, seed)  # ``tensors`` are the inputs as drawn
        for i, (name, spec) in enumerate(task.outputs.items()):
            got = runs.state[name]
            rep = compare_output(
                task, name, spec, got, low[i], wide[i] if wide is not None else None, runs.written.get(name)
            )
            outputs.append(rep)
            if not rep.ok:
                ref = low[i] if wide is None else wide[i]
                found = _mismatch(f, rep, got, ref, runs.writers.get(name, []))
                if name in runs.computed_by:  # a PyTorch step after the kernels filled the output from their work
                    label, where = runs.computed_by[name]
                    found = dataclasses.replace(
                        found, message=f"{found.message}; {name} was computed by {label} from what the kernels wrote",
                        span=where or found.span,
                    )  # fmt: skip
                diagnoses.append(found)
    elif task.outputs:
        for name in task.outputs:
            w = runs.written.get(name)
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
        dict(env), seed, runs.configs[0], tuple(diagnoses), tuple(outputs), runs.seconds, inputs=overrides,
        strict=strict, distribution=distribution.value, input_writes=tuple(_input_writes(task, runs)),
        launches=tuple(runs.configs) if n > 1 else (), config=config_label(task, config) if config else "",
        config_values=tuple(dict(c) for c in config) if config and any(config) else (),
    )  # fmt: skip
    assert runs.last is not None
    return report, runs.last


@dataclasses.dataclass(slots=True)
class _Launches:
    """What the launches of one instance did, in order (see :func:`_run_launches`)."""

    state: dict[str, torch.Tensor]  # every buffer's contents after the last launch that ran
    written: dict[str, torch.Tensor]  # per "empty" buffer, which elements some launch wrote
    writers: dict[str, list[tuple[str, WriteLog]]]  # per buffer, (launch label, its last writers) in order
    diagnoses: list[Diagnosis]
    configs: list[LaunchConfig]
    kernels: list[Function]
    last: SimResult | None = None  # the last kernel launch's simulation
    seconds: float = 0.0
    aborted: bool = False
    #: the buffers a PyTorch step wrote last: the step's label and where its function is
    computed_by: dict[str, tuple[str, Span | None]] = dataclasses.field(default_factory=dict)


def _run_launches(
    task: Task, modules: Sequence[Module], tensors: Mapping[str, torch.Tensor], env: Mapping[str, int],
    limits: SimLimits | None,
) -> _Launches:  # fmt: skip
    """Simulate the task's steps in order; each starts from the buffers the previous one left.

    What the earlier launches wrote is initialised for the next (a launch boundary synchronises
    everything): a buffer that started empty is passed with the mask of the elements some launch wrote,
    so an element no launch wrote is still an ``uninit`` read in a later launch. A PyTorch step runs on
    the buffers as they are and fills its outputs whole (:func:`~larkc.pipeline.torch_steps.run_torch_step`).
    """
    state = dict(tensors)
    initialised: dict[str, bool | torch.Tensor] = {
        name: init_of(task, name, spec) != "empty" for name, spec in task.tensors.items()
    }
    runs = _Launches(state, {}, {}, [], [], [])
    kernel_modules = iter(enumerate(modules))
    for i, step in enumerate(task.steps):
        if isinstance(step, TorchStep):
            runs.diagnoses.extend(run_torch_step(task, i, step, state, initialised, env))
            for name in step.outputs:
                initialised[name] = True
                if name in runs.written:
                    runs.written[name] = torch.ones_like(runs.written[name])
                elif init_of(task, name, task.tensors[name]) == "empty":
                    runs.written[name] = torch.ones(state[name].shape, dtype=torch.bool)
                runs.writers[name] = []  # what the kernels stored there is gone
                runs.computed_by[name] = (task.step_label(i), step_span(step))
            continue
        assert isinstance(step, KernelLaunch)
        k, mod = next(kernel_modules)
        view = task.launch_task(k)
        grid, block, shared = view.launch.concrete(dict(env))
        launch = LaunchConfig(grid, block, shared)
        mod, f = bind_null_pointers(view, mod, kernel_function(view, mod))
        args = kernel_args(view, f, state, env, initialised=initialised)
        result = _simulate(mod, f, launch, args, limits, tuple(task.tensors))
        label = task.launch_label(k)
        runs.last = result
        runs.configs.append(launch)
        runs.kernels.append(f)
        runs.seconds += result.seconds
        runs.diagnoses.extend(_in_launch(d, label) for d in result.diagnoses)
        for name, log in result.writers.items():
            runs.writers.setdefault(name, []).append((label, log))
            if initialised[name] is True and name not in runs.written:
                continue  # started defined (an input, zeros): which elements were written does not matter
            # The simulator's byte-exact mask where the buffer started empty; else the elements stored to.
            wrote = result.written.get(name)
            if wrote is None:
                wrote = log.site.reshape(result.buffers[name].shape) >= 0
            runs.written[name] = wrote | runs.written[name] if name in runs.written else wrote
        for name, data in result.buffers.items():
            state[name] = data
            if name in result.writers and bool((result.writers[name].site >= 0).any()):
                runs.computed_by.pop(name, None)  # a kernel wrote it after the PyTorch step
            if name in runs.written:
                initialised[name] = runs.written[name].reshape(data.shape)  # the elements some launch wrote
        if result.aborted:
            runs.aborted = True
            break
    assert runs.last is not None  # run_instance runs tasks of one kernel launch or more
    return runs


def _simulate(
    module: Module, f: Function, launch: LaunchConfig, args: Mapping[str, KernelArg], limits: SimLimits | None,
    record: tuple[str, ...],
) -> SimResult:  # fmt: skip
    try:
        return simulate(module, f.name, launch, args, limits=limits, same_value_races=True, record_writers=record)
    except StepLimitExceeded as e:
        # A loop that does not end within the bound is a verdict on the kernel, like a divergent barrier.
        stop = Diagnosis(
            DiagnosisKind.NONTERMINATION,
            f"{e.message}; the bound is {e.bound} iterations per loop execution: raise it with --max-steps N "
            f"(Python: limits=SimLimits(max_loop_iterations=N)) if the loop is meant to run longer"
            + "".join(f"; {note}" for note in e.notes),
            e.span,
        )
        return SimResult((*e.diagnoses, stop), {}, {}, launch, 0, 0.0, 0, aborted=True)


def _in_launch(d: Diagnosis, label: str) -> Diagnosis:
    """``d`` with the launch it happened in (a task of several launches) before its message."""
    if not label:
        return d
    return dataclasses.replace(d, message=f"{label}: {d.message}")


def _input_writes(task: Task, runs: _Launches) -> list[InputWrite]:
    """The writes of the launches into inputs that are not in-place (see :class:`InputWrite`).

    Only a task with a reference has inputs in that sense: the buffers of a reference-free task (a
    command-line task's ``--buffer``) are the kernel's to read and write."""
    found: list[InputWrite] = []
    if task.reference is None:
        return found
    for name in task.inputs:
        if name in task.inplace:
            continue
        logs = runs.writers.get(name, [])
        wrote = [(label, log) for label, log in logs if bool((log.site >= 0).any())]
        if not wrote:
            continue
        label, log = wrote[0]
        flat = int(torch.nonzero(log.site >= 0)[0, 0])
        count = int(torch.stack([log.site >= 0 for _, log in logs]).any(dim=0).sum())
        last = log.last(flat)
        assert last is not None
        found.append(
            InputWrite(
                name, _unravel_index(flat, tuple(runs.state[name].shape)), count, last.span, last.who, last.where,
                label,
            )
        )  # fmt: skip
    return found


def _unravel_index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    idx = []
    for d in reversed(shape):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx)) or (flat,)


def _threads(task: Task, instance: Mapping[str, int]) -> int:
    env = task.shape_env(instance)
    total = 0
    for k in range(len(task.launches)):
        grid, block, _ = task.launch_task(k).launch.concrete(env)
        total += math.prod(grid) * math.prod(block)
    return total


def _mismatch(
    f: Function, rep: OutputReport, got: torch.Tensor, ref: torch.Tensor, writers: Sequence[tuple[str, WriteLog]]
) -> Diagnosis:
    """The mismatch of output ``rep.name``, located at the store that last wrote its worst element (at the
    last launch's kernel ``f`` when no thread wrote it)."""
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
    # The latest launch that wrote the element wrote its final value.
    label, last = "", None
    for lb, w in reversed(writers if idx else []):
        label, last = lb, w.last(flat)
        if last is not None:
            break
    if last is None:
        return Diagnosis(DiagnosisKind.MISMATCH, message, f.span, buffer=rep.name, index=flat)
    launch = f" in {label}" if label else ""
    message += f"; {where} was last written by {last.who}{launch} at {last.span.location()}{last.where}"
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
    memory_bytes: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> RunReport:
    """Run every instance of ``task`` (or ``instances``); failing ones get a replay file.

    The instance with the fewest threads runs on ``seeds`` seeds from ``seed`` on, each with every one of
    ``distributions`` that changes the task's inputs, until one run fails; the others run ``seed`` with the
    first distribution. An instance's report is its failing run, or else its first (``tried`` counts the
    runs). With explicit ``inputs`` (a witness) only ``seed`` and the first distribution run.

    ``module`` is the kernels' IR if the caller has it already (else each launch's kernel is parsed);
    replay files go to ``replay_dir`` (default :func:`~larkc.pipeline.replay.default_replay_dir`);
    ``strict`` makes warnings (``race (same value)``) fail an instance. ``memory_bytes`` bounds the
    memory of one instance's simulation, estimated before it starts (default: the current budget of
    :func:`~larkc.pipeline.memory.memory_budget`, 4 GiB): an instance past it is a
    :class:`~larkc.pipeline.memory.MemoryBudgetExceeded` error, never a run killed for its memory.
    ``progress`` receives one line as each instance starts.
    """
    with memory_budget(memory_bytes if memory_bytes is not None else current_budget()):
        return _run_task(
            task, instances=instances, seed=seed, replay_dir=replay_dir, write_replay=write_replay, limits=limits,
            module=module, inputs=inputs, strict=strict, seeds=seeds, distributions=distributions,
            progress=progress or (lambda _line: None),
        )  # fmt: skip


def _run_task(
    task: Task,
    *,
    instances: Sequence[Mapping[str, int]] | None,
    seed: int,
    replay_dir: Path | None,
    write_replay: bool,
    limits: SimLimits | None,
    module: Module | None,
    inputs: Mapping[str, Mapping[int, float]] | None,
    strict: bool,
    seeds: int,
    distributions: Sequence[InputDistribution],
    progress: Callable[[str], None],
) -> RunReport:
    if not task.launches:  # all PyTorch: nothing of the candidate's own to run
        labels = tuple(x.description for x in task.torch_steps)
        return RunReport(task.name, task.expected_failure, (), strict=strict, not_a_kernel=labels)
    chosen = list(instances) if instances is not None else list(task.instances)
    parsed = LaunchModules(task, chosen)
    configs: list[Configs | None] = [None]
    if module is None:
        configs = list(parsed.configs())
        for cfg in configs:
            parsed.modules(None, cfg)  # a kernel that does not parse is bad input before any instance runs
    reports: list[InstanceReport] = []
    if seeds < 1 or not distributions:
        raise TaskError(f"task {task.name}: nothing to run ({seeds} seed(s), {len(distributions)} distribution(s))")
    if inputs:
        seeds, distributions = 1, distributions[:1]
    chosen_distributions = [d for d in distributions if d.changes(task) or d is distributions[0]]
    every_set = [(s, d) for d in chosen_distributions for s in range(seed, seed + seeds)]
    # Every input set on the instance of fewest threads (the cheapest: data-dependent bugs rarely need
    # size), the first on the others, so that the default run stays about as fast as one seed was.
    sizing = task.with_launch_constants(configs[0] or tuple({} for _ in task.launches))  # grids of the first
    smallest = min(range(len(chosen)), key=lambda i: (_threads(sizing, chosen[i]), i), default=0)
    checked: dict[str, None] = {}  # the kernels' preconditions, which every run checks in every thread
    for k, inst in enumerate(chosen):
        shape = ", ".join(f"{name}={value}" for name, value in inst.items()) or "no symbols"
        progress(f"instance {k + 1}/{len(chosen)} ({shape}): simulation")
        for cfg in configs:  # every autotune configuration is a specialisation the task must hold for
            tries: list[InstanceReport] = []
            mods = [module] * len(task.launches) if module is not None else parsed.modules(inst, cfg)
            for j, mod in enumerate(mods):
                checked.update((describe(s), None) for s in preconditions(mod, kernel_function(task, mod, j)))
            for s, d in every_set if k == smallest else every_set[:1]:
                rep, _ = run_instance(
                    task, mods, inst, s, limits=limits, inputs=inputs, strict=strict, distribution=d, config=cfg
                )
                tries.append(rep)
                if not rep.ok:
                    break
            rep = dataclasses.replace(tries[-1] if not tries[-1].ok else tries[0], tried=len(tries))
            if not rep.ok and write_replay:
                path = write_replay_file(task, rep, replay_dir or default_replay_dir())
                rep = dataclasses.replace(rep, replay=path)
            reports.append(rep)
    return RunReport(task.name, task.expected_failure, tuple(reports), strict=strict, preconditions=tuple(checked))


class LaunchModules:
    """The IR of each launch's kernel, parsed once per kernel (and template arguments) of the task.

    A Triton kernel whose specialisation depends on the shapes is lowered for each instance, and an
    autotuned one for each of its ``@triton.autotune`` configurations (:meth:`configs`).
    """

    def __init__(self, task: Task, instances: Sequence[Mapping[str, int]] | None = None) -> None:
        self.task = task
        self.views = [task.launch_task(k) for k in range(len(task.launches))]
        # the instances that will run (the task's, or --shape's) decide whether one module serves them all
        self.instances = list(instances) if instances is not None else list(task.instances)
        self.per_instance = [specialised_per_instance(v, self.instances) for v in self.views]
        self._cache: dict[tuple[object, ...], Module] = {}

    def configs(self) -> list[Configs]:
        """Every combination of the launches' autotune configurations (one configuration per launch; a
        single ``({},)``-like entry when no kernel is autotuned): each is a specialisation to check."""
        return [tuple(c) for c in itertools.product(*(task_configs(v) for v in self.views))]

    def modules(
        self, instance: Mapping[str, int] | None, config: Configs | None = None, *, own: bool = False
    ) -> list[Module]:
        """One module per launch, for ``instance`` (``None``: the first instance to run) and ``config`` (one
        autotune configuration per launch; ``None``: each launch's first). ``own``: lower every Triton
        kernel at ``instance`` itself (a witness's sizes, which may be none of the instances)."""
        out = []
        first = self.instances[0] if self.instances else None
        for k, (view, per) in enumerate(zip(self.views, self.per_instance, strict=True)):
            x = view.launches[0]
            cfg = config[k] if config is not None else None
            per = per or (own and view.language == "triton")
            at = instance if per and instance is not None else first
            # Triton constexprs come from the bindings: one module per kernel, arguments and bindings.
            key = (x.kernel, repr(x.template_args), repr(x.bindings), repr(at) if per else "", repr(cfg))
            mod = self._cache.get(key)
            if mod is None:
                mod = parse_task(view, at, cfg)
                self._cache[key] = mod
            out.append(mod)
        return out


def config_label(task: Task, config: Configs) -> str:
    """How reports name an autotune configuration: ``BLOCK_N=32`` (``launch 2 (kernel k): BLOCK_N=32``
    for a task of several launches); ``""`` when no launch is autotuned."""
    parts = []
    for k, c in enumerate(config):
        if c:
            values = config_values(c)
            label = task.launch_label(k)
            parts.append(f"{label}: {values}" if label else values)
    return "; ".join(parts)


def config_values(config: Mapping[str, ConstValue]) -> str:
    """One autotune configuration's constexprs: ``BLOCK_N=32, num_stages=2``."""
    return ", ".join(f"{name}={value!r}" for name, value in config.items())
