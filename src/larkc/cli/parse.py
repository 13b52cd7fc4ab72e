"""``larkc parse``: print the kernel IR of a task's kernel or of a source file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``parse`` subcommand."""
    p = subparsers.add_parser(
        "parse",
        help="print the kernel IR of a task or a kernel source file",
        description="Parse a CUDA or Triton kernel (from a task file or folder, or a CUDA source file) and print "
        "its IR (a Triton kernel is specialised for the task's first shape instance).",
    )
    p.add_argument("target", help="a task file (task.py), a folder holding one, or a kernel source file")
    p.add_argument("--kernel", help="kernel to lower (default: the task's kernel, or every kernel of a file)")
    p.add_argument("--define", "-D", action="append", default=[], metavar="K[=V]", help="preprocessor define")
    p.add_argument("--template-arg", action="append", default=[], metavar="ARG", help="template argument, in order")
    p.add_argument(
        "--include-dir", "-I", dest="include_dir", action="append", default=[], metavar="DIR",
        help="search DIR for #include files",
    )  # fmt: skip
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from larkc.cli import EXIT_OK, _is_task_file, _same_kernel, parse_defines
    from larkc.errors import LarkcError, Stage
    from larkc.frontends import parse_source
    from larkc.ir.printer import print_module
    from larkc.pipeline import api
    from larkc.tasks import load_task

    target = Path(args.target)
    defines = parse_defines(args.define)
    if target.is_dir() or target.name == "task.py" or (target.suffix == ".py" and _is_task_file(target)):
        task = load_task(target)
        if args.kernel is not None and not _same_kernel(args.kernel, task.kernel):
            raise LarkcError(f"--kernel {args.kernel} differs from the task's kernel {task.kernel}", stage=Stage.CLI)
        if args.include_dir:
            import dataclasses

            task = dataclasses.replace(task, include_dirs=(*task.include_dirs, *map(Path, args.include_dir)))
        module = api.parse(task, template_args=args.template_arg or None, defines=defines)
    elif target.is_file():
        module = parse_source(
            target, kernel=args.kernel, template_args=args.template_arg, defines=defines, include_dirs=args.include_dir
        )
    else:
        raise LarkcError(f"no such file or folder: {target}", stage=Stage.CLI)
    text = print_module(module)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK
