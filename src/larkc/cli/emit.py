"""``larkc emit``: write a task's Lean project (kernel semantics, spec, theorems with ``sorry``).

``larkc emit TASK -o DIR [--check]``. ``--check`` builds the project with ``lake build`` when Lean is
installed and prints Lean's messages with the generated definition (and so the kernel line) they fall
in; without Lean it says so and exits 4 (unknown). Exit codes: 0 written (and checked), 1 Lean
reported errors, 2 bad input or an unsupported construct (located), 4 not checked (no Lean).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from larkc.cli import EXIT_OK, EXIT_VERDICT, add_task_arguments, check_output_dir, task_from_args
from larkc.errors import LarkcError, Stage

if TYPE_CHECKING:
    from larkc.pipeline.emit import LeanCheck

__all__ = ["Emitted", "emit_from_args", "register"]

EXIT_UNKNOWN = 4


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``emit`` subcommand."""
    p = subparsers.add_parser(
        "emit",
        help="write the task's Lean project (statements for every size, proofs left to prove)",
        description="Write a standalone Lake project stating that the kernel equals its reference, "
        "accesses memory in bounds and is race free, for every size satisfying the task's constraints.",
    )
    add_task_arguments(p)
    p.add_argument("-o", "--output", required=True, help="folder to write the project into")
    p.add_argument("--check", action="store_true", help="build the project with `lake build` (needs Lean)")
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    emitted = emit_from_args(args)
    print(f"wrote {len(emitted.files)} files of Lean project {emitted.module} to {emitted.folder}")
    if emitted.check is None:
        return EXIT_OK
    for m in emitted.check.messages:
        print(m, file=sys.stderr if emitted.check.status != "ok" else sys.stdout)
    if emitted.check.status == "unknown":
        return EXIT_UNKNOWN
    return EXIT_OK if emitted.check.status == "ok" else EXIT_VERDICT


@dataclass(frozen=True, slots=True)
class Emitted:
    """What ``larkc emit`` wrote: the project's module name, its folder, the files, and ``lake build``'s
    outcome when ``--check`` asked for it (``None`` otherwise)."""

    module: str
    folder: Path
    files: tuple[Path, ...]
    check: LeanCheck | None


def emit_from_args(args: argparse.Namespace) -> Emitted:
    """``larkc emit``'s work (``args`` as the ``emit`` parser makes them): the output folder checked and the
    task read before anything is written, the project written, and checked with ``--check``; nothing is
    printed. The command and the MCP server's ``emit`` tool share it."""
    from larkc.pipeline.emit import check_project, emit_task, write_project

    out = check_output_dir("-o", args.output)
    assert out is not None  # -o is required
    task = task_from_args(args)
    if task.torch_steps:  # located at the task file's TorchStep(...): PyTorch steps are not emitted
        from larkc.pipeline.api import check_emittable

        check_emittable(task)
    if len(task.launches) > 1:  # the Lean lowering states one kernel's theorems
        kernels = ", ".join(x.kernel for x in task.launches)
        raise LarkcError(
            f"larkc emit: task {task.name} has {len(task.launches)} launches ({kernels}); "
            "the Lean lowering of several launches is not supported yet",
            stage=Stage.CLI,
        )
    project = emit_task(task, out)
    paths = write_project(project, out)
    return Emitted(project.module, out, tuple(paths), check_project(out) if args.check else None)
