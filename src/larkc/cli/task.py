"""``larkc task``: write the task larkc derives for a KernelBench ``ModelNew`` file, to read and edit.

::

    larkc task model_new.py --reference model.py -o task.py

Writes ``task.py`` and, beside it, the extension's CUDA source (``model_new.cu``, its line numbers those
of ``model_new.py``); ``larkc run|verify task.py`` then does what ``larkc run|verify model_new.py
--reference model.py`` does. Exit 0 written, 2 bad input (a located error naming the host code line
larkc cannot derive).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from larkc.cli import EXIT_OK, check_output_dir, write_output
from larkc.errors import LarkcError, Stage

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``task`` subcommand."""
    p = subparsers.add_parser(
        "task",
        help="write the task derived for a KernelBench ModelNew file (--reference model.py)",
        description="Derive the verification task of a KernelBench-style ModelNew file (CUDA through "
        "load_inline) against its problem file, and write it as a task file with the CUDA source beside it.",
    )
    p.add_argument("target", help="the candidate file defining ModelNew")
    p.add_argument("--reference", required=True, metavar="MODEL.py", help="the problem file (class Model, get_inputs)")
    p.add_argument("-o", "--output", required=True, metavar="TASK.py", help="the task file to write")
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    from larkc.frontends.kernelbench import task_file_text
    from larkc.pipeline.candidates import derive_candidate

    out = Path(args.output)
    if out.suffix != ".py":
        raise LarkcError(f"-o {out}: a task file is a .py file", stage=Stage.CLI)
    for p in (Path(args.target), Path(args.reference)):
        if not p.is_file():
            raise LarkcError(f"no such file: {p}", stage=Stage.CLI)
    if out.is_dir():
        raise LarkcError(f"-o {out}: is a folder, not a file", stage=Stage.CLI)
    check_output_dir("-o", str(out.parent), make=True)  # made if missing, as before
    cuda = out.parent / f"{Path(args.target).stem}.cu"
    derived = derive_candidate(args.target, args.reference, cuda_file=cuda)
    write_output("-o", out, task_file_text(derived, out))
    if derived.task.language == "triton":  # the kernel stays in the candidate file
        print(f"wrote {out}")
    else:
        print(f"wrote {out} and {cuda}")
    return EXIT_OK
