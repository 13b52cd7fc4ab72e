"""``larkc verify``: prove a task's kernel equal to its reference, in bounds, race free; or refute it.

::

    larkc verify TASK [--shape n=128[,d=64]] [--json FILE] [--seconds S] [--progress] [--replay-dir DIR]
                      [--all-sizes]
    larkc verify KERNEL.cu --kernel K --grid 8 --block 256 --buffer x=f32[2048] --scalar n=2048

Prints one line per obligation (``PROVED``, ``REFUTED`` with the counterexample, ``UNKNOWN`` with the
reason) and the verdict, whose first line says its scope: ``VERIFIED for all sizes (...)`` or ``VERIFIED
(bounded: ... at 3 shapes; ... for all sizes)``, then the scope of each group of obligations and the
assumptions; ``FAILED`` with the counterexample (the instance, the inputs that matter, the two values, a
replay file); or ``UNKNOWN``. Exit status: 0 verified (either scope), 1 failed, 2 bad input, 3 internal
error, 4 unknown; with ``--all-sizes`` a bounded VERIFIED exits 4 (unknown for all sizes). ``--json FILE``
also writes the report as JSON (``-`` for standard output instead of the text); ``docs/verify.md``
documents the schema.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from larkc.cli import (
    add_memory_argument,
    add_task_arguments,
    check_output_dir,
    check_output_file,
    display,
    parse_memory,
    task_from_args,
    write_output,
)
from larkc.cli.run import _parse_shapes
from larkc.errors import LarkcError, Stage

if TYPE_CHECKING:
    from collections.abc import Callable

    from larkc.pipeline.reports import VerifyReport
    from larkc.pipeline.verify import Progress
    from larkc.provers import Budget
    from larkc.provers.hints import Hints
    from larkc.tasks import Task

__all__ = ["check_seconds", "read_hints", "register", "verify_from_args"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``verify`` subcommand."""
    p = subparsers.add_parser(
        "verify",
        help="prove the kernel equal to its reference, in bounds and race free (or refute it)",
        description=(
            "Prove every obligation of a task (functional equivalence with the reference under exact "
            "arithmetic, bounds, races, barrier uniformity, initialised reads, defined operations, assertions, "
            "integer overflow) or refute one with a counterexample. Exit 0 verified (for all sizes or at the "
            "shape instances: the verdict's first line says which), 1 failed, 2 bad input, 3 internal error, "
            "4 unknown (with --all-sizes: also verified only at the instances)."
        ),
    )
    add_task_arguments(p, many=True)
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="SYM=N[,SYM=N...]",
        help="verify this shape instance instead of the task's (repeatable)",
    )
    p.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE ('-': standard output)")
    p.add_argument(
        "--seconds",
        type=float,
        default=300.0,
        help="wall-clock safety net per obligation and instance (default 300); solver work is bounded in "
        "machine-independent units, and a verdict the safety net decided says so",
    )
    add_memory_argument(p)
    p.add_argument("--progress", action="store_true", help="report progress on standard error")
    p.add_argument("--replay-dir", metavar="DIR", help="where to write replay files (default: <tmp>/larkc-replay)")
    p.add_argument(
        "--jsonl",
        action="store_true",
        help="batch mode (implied by several targets): with --reference, verify each ModelNew file in this "
        "process and print one JSON line per candidate; results are cached by file contents",
    )
    p.add_argument("--no-cache", action="store_true", help="batch mode: neither read nor write the result cache")
    p.add_argument(
        "--all-sizes",
        action="store_true",
        help="exit 0 only when every obligation is proved for all sizes: a VERIFIED verdict that holds only at "
        "the shape instances (bounded) exits 4, as unknown for all sizes",
    )
    p.add_argument(
        "--hints",
        metavar="FILE",
        help="loop invariants for the all-size prover (`loop LINE: VAR = EXPR` per line, docs/agent.md); each is "
        "checked by the engine before it is used, never trusted",
    )
    p.add_argument(
        "--agent",
        action="store_true",
        help="where the all-size prover leaves equivalence unknown, ask a model endpoint (OpenAI-compatible; "
        "LARKC_AGENT_BASE_URL, LARKC_AGENT_MODEL, the key in $LARKC_AGENT_API_KEY or the variable "
        "LARKC_AGENT_KEY_ENV names) for loop invariants, each checked by the engine (docs/agent.md)",
    )
    p.add_argument("--agent-base-url", metavar="URL", help="--agent: the endpoint (overrides LARKC_AGENT_BASE_URL)")
    p.add_argument("--agent-model", metavar="NAME", help="--agent: the model (overrides LARKC_AGENT_MODEL)")
    p.add_argument(
        "--hints-file",
        metavar="FILE",
        help="--agent: where to write the checked invariants, replayable without the model with --hints "
        "(default: larkc.hints beside the task)",
    )
    p.add_argument(
        "--agent-transcript",
        metavar="FILE",
        help="--agent: the JSONL transcript of the run (default: beside the --json report, else "
        "larkc-agent.jsonl beside the task)",
    )
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    check_seconds(args.seconds)
    memory = parse_memory(args.memory)
    if len(args.target) > 1 or args.jsonl:
        return _batch(args, memory)
    args.target = args.target[0]
    show = args.progress or sys.stderr.isatty()

    def progress(line: str) -> None:
        if show:
            print(f"larkc verify: {display(line)}", file=sys.stderr, flush=True)

    report, json_file = verify_from_args(args, progress)
    if args.json == "-":
        print(display(json.dumps(report.to_json(), indent=2)))
    else:
        print(display("\n".join(report.render())))
    sys.stdout.flush()
    if json_file is not None:  # after the verdict is printed: a failed write loses nothing
        write_output("--json", json_file, display(json.dumps(report.to_json(), indent=2)) + "\n")
    return report.exit_code


def _ask_agent(args: argparse.Namespace, task: Task, budget: Budget, progress: Callable[[str], None]) -> Hints | None:
    """``--agent``: the invariants the model proposed and the engine checked (None when there are none)."""
    from larkc.agent import from_environment, prove_with_agent, write_hints

    config = from_environment(base_url=args.agent_base_url, model=args.agent_model)
    folder = task.source.parent
    if args.agent_transcript:
        transcript = Path(args.agent_transcript)
    elif args.json and args.json != "-":
        transcript = Path(args.json).with_suffix(".agent.jsonl")
    else:
        transcript = folder / "larkc-agent.jsonl"
    outcome = prove_with_agent(task, config, transcript=transcript, budget=budget)
    progress(f"agent: {outcome.reason} ({outcome.turns} turns, {outcome.tokens} tokens)")
    print(f"agent: {outcome.reason}; transcript {transcript}", file=sys.stderr)
    if outcome.hints is not None:
        target = Path(args.hints_file) if args.hints_file else folder / "larkc.hints"
        write_hints(outcome, target)
        print(f"agent: checked invariants written to {target} (replay: larkc verify --hints {target})", file=sys.stderr)
    return outcome.hints


def read_hints(path: str) -> Hints:
    """``--hints FILE``: the file's invariants (a located error for a malformed line, exit 2)."""
    from larkc.provers.hints import parse_hints

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise LarkcError(f"--hints {path}: cannot read it ({e.strerror or e})", stage=Stage.CLI) from e
    return parse_hints(text, path, f"the hints file {path}")


def verify_from_args(args: argparse.Namespace, progress: Progress) -> tuple[VerifyReport, Path | None]:
    """The report of ``larkc verify`` on one target (``args`` as the ``verify`` parser makes them, with
    ``args.target`` one path), and the ``--json`` file to write it to (``None``: none, or ``-``). Every option
    and output path is checked before the work; nothing is printed but the agent's lines (``progress`` receives
    the steps). The command and the MCP server's ``verify`` tool share it."""
    from larkc.pipeline import api
    from larkc.provers import Budget

    seconds = check_seconds(args.seconds)
    memory = parse_memory(args.memory)
    json_file = check_output_file("--json", args.json)
    replay_dir = check_output_dir("--replay-dir", args.replay_dir)
    task = task_from_args(args)
    instances = _parse_shapes(task, args.shape) if args.shape else None
    hints = read_hints(args.hints) if args.hints else None
    if args.agent:
        if hints is not None:
            raise LarkcError("give one of --agent and --hints", stage=Stage.CLI)
        hints = _ask_agent(args, task, Budget(seconds=min(seconds, 60.0), memory_bytes=memory), progress)
    report = api.verify(
        task,
        instances=instances,
        budget=Budget(seconds=seconds, memory_bytes=memory),
        progress=progress,
        replay_dir=replay_dir,
        all_sizes=args.all_sizes,
        hints=hints,
    )
    return report, json_file


def check_seconds(seconds: float) -> float:
    """``--seconds S``: a positive, finite number of seconds (bad input otherwise, before any work)."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise LarkcError(f"--seconds {seconds}: expected a positive number of seconds", stage=Stage.CLI)
    return seconds


def _batch(args: argparse.Namespace, memory: int) -> int:
    """``larkc verify A B C --reference model.py``: one JSON line per candidate on standard output.

    Exit 1 if some candidate failed, else 2 if one could not be derived, else 4 if one is unknown, else 0.
    """
    from larkc.pipeline.candidates import verify_many

    if args.reference is None:
        raise LarkcError(
            "several targets (batch mode) are ModelNew files: give their problem with --reference", stage=Stage.CLI
        )
    refused = [f"--{o}" for o in ("shape", "json", "replay_dir", "hints", "agent") if getattr(args, o)]
    if refused:
        raise LarkcError(f"{', '.join(refused)}: not in batch mode", stage=Stage.CLI)
    show = args.progress or sys.stderr.isatty()

    def progress(line: str) -> None:
        if show:
            print(f"larkc verify: {line}", file=sys.stderr, flush=True)

    codes = set()
    for result in verify_many(
        args.target,
        args.reference,
        seconds=args.seconds,
        cache_dir="" if args.no_cache else None,
        progress=progress,
        all_sizes=args.all_sizes,
        memory_bytes=memory,
    ):
        codes.add(result.exit_code)
        print(json.dumps(result.to_json()), flush=True)
    for code in (1, 2, 4):
        if code in codes:
            return code
    return 0
