"""``larkc trace``: print the spec IR of a task's reference or of a reference file.

``larkc trace TARGET [--shape n=128 ...] [--terms]`` where TARGET is a task file or folder, a
KernelBench-style file (``class Model``, ``get_inputs``, ``get_init_inputs``) or a Python file defining a
function ``reference`` and ``inputs`` (and ``symbols`` if the shapes are symbolic). ``--shape`` gives the
example size a symbol is traced with; ``--terms`` also prints every output element as a symbolic term for
those sizes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from larkc.errors import LarkcError, Stage

if TYPE_CHECKING:
    from larkc.reference import SpecGraph

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``trace`` subcommand."""
    p = subparsers.add_parser(
        "trace",
        help="print the spec IR traced from a PyTorch reference",
        description="Trace a task's PyTorch reference (or a reference file) and print its spec IR.",
    )
    p.add_argument("target", help="a task file or folder, a KernelBench-style file, or a file defining `reference`")
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="size of a symbol to trace with (and to print terms for)",
    )
    p.add_argument("--terms", action="store_true", help="also print each output element as a symbolic term")
    p.set_defaults(func=_command)


def _parse_shapes(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        try:
            size = int(value)
        except ValueError:
            size = -1
        if not sep or not name.isidentifier() or size < 1:
            raise LarkcError(
                f"invalid --shape {item!r}: expected NAME=SIZE with SIZE >= 1, e.g. n=128", stage=Stage.CLI
            )
        out[name] = size
    return out


def _is_task(path: Path) -> bool:
    if path.is_dir() or path.name == "task.py":
        return True
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "Task(" in text and "class Model" not in text


def _command(args: argparse.Namespace) -> int:
    """Trace and print; returns the exit status."""
    from larkc.cli import EXIT_OK
    from larkc.pipeline import api
    from larkc.reference import print_spec, trace_reference
    from larkc.tasks import load_task

    target = Path(args.target)
    if not target.exists():
        raise LarkcError(f"no such file or folder: {target}", stage=Stage.CLI)
    shapes = _parse_shapes(args.shape)
    if _is_task(target):
        task = load_task(target)
        unknown = sorted(set(shapes) - set(task.symbols))
        if task.reference is not None and unknown:
            raise LarkcError(f"--shape names unknown symbol(s) {', '.join(unknown)}", stage=Stage.CLI)
        graph = api.trace(task, shapes=shapes)
    else:
        graph = trace_reference(str(target), example_shapes=shapes or None)
    print(print_spec(graph), end="")
    if args.terms:
        _print_terms(graph, shapes)
    return EXIT_OK


def _print_terms(graph: SpecGraph, shapes: dict[str, int]) -> None:
    from larkc.reference import evaluate_symbolic

    missing = [s for s in graph.symbols if s not in shapes]
    if missing:
        raise LarkcError(f"--terms needs --shape for {', '.join(missing)}", stage=Stage.CLI)
    for name, tensor in zip(graph.outputs, evaluate_symbolic(graph, shapes), strict=True):
        print(f"terms %{name}: {tensor.dtype}{list(tensor.shape)}")
        for i, term in enumerate(tensor.elems):
            print(f"  [{i}] {term}")
