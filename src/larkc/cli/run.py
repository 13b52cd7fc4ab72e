"""``larkc run``: the simulator on the command line.

::

    larkc run TASK [--shape n=128[,d=64]] [--seed N] [--seeds N] [--max-steps N] [--strict] [--json]
    larkc run KERNEL.cu --kernel K --grid 8 --block 256 --buffer x=f32[2048] --scalar n=2048
    larkc run --replay FILE

Prints one line per diagnosis, starting with its kind word (``race``, ``oob``, ``divergence``,
``uninit``, ``mismatch``, ``ub``, ``assert``, ``nontermination``), then per output its largest absolute
and relative error. Exit status: 0 when every instance agrees with the reference and no check fired,
1 otherwise (the record of each failing instance is written to a replay file, whose path is printed),
2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from larkc.cli import (
    EXIT_OK,
    EXIT_VERDICT,
    add_memory_argument,
    add_task_arguments,
    check_output_dir,
    display,
    parse_memory,
    task_from_args,
)
from larkc.errors import LarkcError, Stage, TaskError
from larkc.tasks import Task

if TYPE_CHECKING:
    from larkc.pipeline.reports import RunReport

__all__ = ["register", "run_from_args"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``run`` subcommand."""
    p = subparsers.add_parser(
        "run",
        help="simulate a kernel on random inputs and compare it with its PyTorch reference",
        description=(
            "Simulate the kernel of a task for every shape instance on seeded random inputs, check memory "
            "safety, races, barrier divergence and uninitialised reads, and compare the outputs with the "
            "reference. Exit 0 when all agree and no check fired, 1 otherwise (a loop running past --max-steps "
            "included), 2 for bad input."
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
    p.add_argument("--seed", type=int, default=0, help="first seed of the random inputs (default 0)")
    p.add_argument(
        "--seeds",
        type=int,
        default=3,
        metavar="N",
        help="seeds to try per instance, from --seed on, each with every input distribution: normal, negative, "
        "large, near-constant, edges (of integer index ranges); the first failing run is reported (default 3)",
    )
    p.add_argument(
        "--max-steps",
        type=int,
        metavar="N",
        help="iterations one execution of a loop may take before the run reports it as nontermination "
        "(default 100000, SimLimits.max_loop_iterations)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="count warnings against the kernel: write-write races of one value (race (same value)), by default "
        "reported but exit 0",
    )
    p.add_argument("--json", action="store_true", help="print a machine-readable JSON report")
    p.add_argument("--replay", metavar="FILE", help="run the failing instance recorded in a replay file")
    p.add_argument("--replay-dir", metavar="DIR", help="where to write replay files (default: <tmp>/larkc-replay)")
    add_memory_argument(p)
    p.set_defaults(func=_command)


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


def _command(args: argparse.Namespace) -> int:
    """The ``larkc run`` subcommand; returns the exit status."""
    report = run_from_args(args)
    if args.json:
        print(display(json.dumps(report.to_json(), indent=2)))
    else:
        print(display(report.render()))
    sys.stdout.flush()
    return EXIT_OK if report.ok else EXIT_VERDICT


def run_from_args(args: argparse.Namespace, progress: Callable[[str], None] | None = None) -> RunReport:
    """The report of ``larkc run`` (``args`` as the ``run`` parser makes them): the options checked, the task
    (or the replay file's) simulated; nothing is printed (``progress`` receives one line per instance). The
    command and the MCP server's ``run`` and ``explain_counterexample`` tools share it."""
    from larkc.pipeline.replay import load_replay
    from larkc.pipeline.run import InputDistribution, run_task
    from larkc.semantics import SimLimits

    seed: int = args.seed
    replay_dir = check_output_dir("--replay-dir", args.replay_dir)
    memory = parse_memory(args.memory)
    if args.replay is not None:
        if args.target is not None:
            raise LarkcError("give either a task or --replay FILE, not both", stage=Stage.CLI)
        replay = load_replay(Path(args.replay))
        task, seed, inputs = replay.task, replay.seed, replay.inputs
        instances: list[dict[str, int]] | None = [replay.instance]
        try:
            distributions = [InputDistribution(replay.distribution)]
        except ValueError:
            raise LarkcError(f"{args.replay}: unknown input distribution {replay.distribution!r}") from None
        seeds = 1
    else:
        if args.target is None:
            raise LarkcError("larkc run needs a task file or folder, a kernel file, or --replay FILE", stage=Stage.CLI)
        task = task_from_args(args)
        instances = _parse_shapes(task, args.shape) if args.shape else None
        inputs = {}
        distributions, seeds = list(InputDistribution), args.seeds
        if seeds < 1:
            raise LarkcError(f"--seeds {seeds}: expected a positive number of seeds", stage=Stage.CLI)
    limits = SimLimits()
    if args.max_steps is not None:
        if args.max_steps < 1:
            raise LarkcError(f"--max-steps {args.max_steps}: expected a positive number of iterations", stage=Stage.CLI)
        limits = SimLimits(max_loop_iterations=args.max_steps)
    return run_task(
        task,
        instances=instances,
        seed=seed,
        replay_dir=replay_dir,
        inputs=inputs,
        limits=limits,
        strict=args.strict,
        seeds=seeds,
        distributions=distributions,
        memory_bytes=memory,
        progress=progress,
    )
