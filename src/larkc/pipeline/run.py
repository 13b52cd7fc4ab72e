"""``larkc run``: simulate a task's kernel and its PyTorch reference on random inputs, and compare.

For each concrete shape instance of a task, :func:`run_instance` draws inputs from a seeded generator
(:mod:`larkc.pipeline.inputs`), runs the simulated kernel (:func:`larkc.semantics.simulate`) and the
reference on the same inputs, and compares each output with a dtype-aware tolerance
(:mod:`larkc.pipeline.compare`). :func:`run_task` does so for every instance and writes each failing
one to a replay file (:mod:`larkc.pipeline.replay`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from larkc.errors import TaskError
from larkc.frontends import parse_task
from larkc.ir.nodes import Function, Module
from larkc.pipeline.compare import compare_output, reference_outputs
from larkc.pipeline.inputs import kernel_args, kernel_function, make_inputs
from larkc.pipeline.replay import default_replay_dir, write_replay_file
from larkc.pipeline.reports import InstanceReport, OutputReport, RunReport
from larkc.semantics import Diagnosis, DiagnosisKind, LaunchConfig, SimLimits, SimResult, simulate
from larkc.tasks import Task

__all__ = ["run_instance", "run_task"]


def run_instance(
    task: Task,
    module: Module,
    instance: Mapping[str, int],
    seed: int,
    *,
    limits: SimLimits | None = None,
    inputs: Mapping[str, Mapping[int, float]] | None = None,
) -> tuple[InstanceReport, SimResult]:
    """Simulate and compare one shape instance of ``task`` (no replay file).

    ``inputs`` sets chosen input elements (tensor name to ``{flat index: value}``) over the seeded random
    inputs: the witness of a counterexample.
    """
    env = task.shape_env(instance)
    grid, block, shared = task.launch.concrete(env)
    launch = LaunchConfig(grid, block, shared)
    f = kernel_function(task, module)
    tensors = make_inputs(task, env, seed)
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
    result = simulate(module, f.name, launch, args, limits=limits)
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
                diagnoses.append(_mismatch(task, f, rep, got, low[i] if wide is None else wide[i]))
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
        dict(env), seed, launch, tuple(diagnoses), tuple(outputs), result.seconds, inputs=overrides
    )
    return report, result


def _mismatch(task: Task, f: Function, rep: OutputReport, got: torch.Tensor, ref: torch.Tensor) -> Diagnosis:
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
    return Diagnosis(DiagnosisKind.MISMATCH, message, f.span, buffer=rep.name, index=flat)


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
) -> RunReport:
    """Run every instance of ``task`` (or ``instances``); failing ones get a replay file.

    ``module`` is the kernel's IR if the caller has it already (else the task's kernel is parsed);
    replay files go to ``replay_dir`` (default :func:`~larkc.pipeline.replay.default_replay_dir`).
    """
    if module is None:
        module = parse_task(task)
    chosen = list(instances) if instances is not None else list(task.instances)
    reports: list[InstanceReport] = []
    for inst in chosen:
        rep, _ = run_instance(task, module, inst, seed, limits=limits, inputs=inputs)
        if not rep.ok and write_replay:
            path = write_replay_file(task, rep, replay_dir or default_replay_dir())
            rep = dataclasses.replace(rep, replay=path)
        reports.append(rep)
    return RunReport(task.name, task.expected_failure, tuple(reports))
