"""``larkc run``: the simulator on the command line.

::

    larkc run TASK [--shape n=128[,d=64]] [--seed N] [--json] [--replay-dir DIR]
    larkc run KERNEL.cu --kernel K --grid 8 --block 256 --buffer x=f32[2048] --scalar n=2048
    larkc run --replay FILE

Prints one line per diagnosis, starting with its kind word (``race``, ``oob``, ``divergence``,
``uninit``, ``mismatch``, ``ub``), then per output its largest absolute and relative error. Exit
status: 0 when every instance agrees with the reference and no check fired, 1 otherwise (the record
of each failing instance is written to a replay file, whose path is printed), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from larkc.errors import LarkcError, Stage, TaskError
from larkc.semantics.runner import RunReport, load_replay, run_task
from larkc.tasks import Task

__all__ = ["format_report", "register"]


def register(subparsers: Any) -> None:
    """Add the ``run`` subcommand to the ``larkc`` command line."""
    from larkc.cli import add_task_arguments

    p = subparsers.add_parser(
        "run",
        help="simulate a kernel on random inputs and compare it with its PyTorch reference",
        description=(
            "Simulate the kernel of a task for every shape instance on seeded random inputs, check memory "
            "safety, races, barrier divergence and uninitialised reads, and compare the outputs with the "
            "reference. Exit 0 when all agree and no check fired, 1 otherwise, 2 for bad input."
        ),
    )
    add_task_arguments(p, target_required=False)  # `--replay FILE` needs no target
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="SYM=N[,SYM=N...]",
        help="run this shape instance instead of the task's (repeatable; missing symbols come from the "
        "task's first instance)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--json", action="store_true", help="print a machine-readable JSON report")
    p.add_argument("--replay", metavar="FILE", help="run the failing instance recorded in a replay file")
    p.add_argument("--replay-dir", metavar="DIR", help="where to write replay files (default: <tmp>/larkc-replay)")
    p.set_defaults(func=run_command)


def _parse_shapes(task: Task, items: list[str]) -> list[dict[str, int]]:
    base = dict(task.instances[0]) if task.instances else {}
    out = []
    for item in items:
        inst = dict(base)
        for part in item.split(","):
            if not part.strip():
                continue
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or not name.isidentifier():
                raise LarkcError(f"invalid --shape {item!r}: expected SYM=N, e.g. n=128", stage=Stage.CLI)
            if name not in task.symbols:
                known = ", ".join(task.symbols) or "none"
                raise TaskError(f"--shape {item!r}: task {task.name} has no symbol {name} (symbols: {known})")
            try:
                inst[name] = int(value, 0)
            except ValueError:
                raise LarkcError(f"invalid --shape {item!r}: {value!r} is not an integer", stage=Stage.CLI) from None
        task.shape_env(inst)  # checks the constraints, with a located TaskError
        out.append(inst)
    return out


def run_command(args: argparse.Namespace) -> int:
    """The ``larkc run`` subcommand; returns the exit status."""
    from larkc.cli import task_from_args

    seed: int = args.seed
    if args.replay is not None:
        if args.target is not None:
            raise LarkcError("give either a task or --replay FILE, not both", stage=Stage.CLI)
        task, instance, seed = load_replay(Path(args.replay))
        instances: list[dict[str, int]] | None = [instance]
    else:
        if args.target is None:
            raise LarkcError("larkc run needs a task file or folder, a kernel file, or --replay FILE", stage=Stage.CLI)
        task = task_from_args(args)
        instances = _parse_shapes(task, args.shape) if args.shape else None
    replay_dir = Path(args.replay_dir) if args.replay_dir else None
    report = run_task(task, instances=instances, seed=seed, replay_dir=replay_dir)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print("\n".join(format_report(report)))
    sys.stdout.flush()
    return 0 if report.ok else 1


def format_report(report: RunReport) -> list[str]:
    """The human-readable report: per instance a header, the diagnoses, the outputs; then a verdict."""
    lines: list[str] = []
    for inst in report.instances:
        shape = ", ".join(f"{k}={v}" for k, v in inst.shape.items()) or "(no symbols)"
        lines.append(f"== {report.task} {shape}: {inst.launch}, seed {inst.seed}")
        lines.extend(d.render() for d in inst.diagnoses)
        lines.extend(o.render() for o in inst.outputs)
        if inst.replay is not None:
            lines.append(f"replay: larkc run --replay {inst.replay}")
    n = len(report.instances)
    failed = [i for i in report.instances if not i.ok]
    if not failed:
        verdict = f"ok: {n} instance{'s' if n != 1 else ''}, no diagnosis"
        if report.expected_failure is not None:
            verdict += f"; the task expects {report.expected_failure}: NOT found"
        lines.append(verdict)
    else:
        kinds = ", ".join(sorted(report.kinds()))
        verdict = f"FAILED: {len(failed)} of {n} instance{'s' if n != 1 else ''} ({kinds})"
        if report.expected_failure is not None:
            caught = "found" if report.expected_failure in report.kinds() else "NOT found"
            verdict += f"; the task expects {report.expected_failure}: {caught}"
        lines.append(verdict)
    return lines
