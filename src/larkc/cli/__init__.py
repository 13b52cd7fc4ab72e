"""The ``larkc`` command line: the top layer, above :mod:`larkc.pipeline`.

This package owns argument parsing, error rendering and exit codes, and the argument helpers the
commands share; each subcommand is one module of this package with ``register(subparsers)``, listed in
:data:`COMMANDS`. Exit codes: 0 success, 1 a verdict against the kernel (mismatch, race, ...), 2 bad
input (a located ``error:`` line on stderr, never a traceback), 3 an internal error of larkc.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from larkc import __version__
from larkc.errors import InternalError, LarkcError, Span, Stage
from larkc.tasks import Task

__all__ = [
    "COMMANDS",
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_VERDICT",
    "add_memory_argument",
    "add_task_arguments",
    "build_parser",
    "candidate_from_args",
    "check_output_dir",
    "check_output_file",
    "display",
    "internal_error",
    "internal_error_text",
    "main",
    "parse_defines",
    "parse_memory",
    "stray_exit",
    "task_from_args",
    "write_output",
]

#: Subcommand -> the module that registers it (``register(subparsers)``), in help order. A new
#: subcommand is a module of this package and a line here. Only the module of the command being run
#: is imported, so ``larkc parse`` does not pay for importing torch.
COMMANDS = {
    "parse": "larkc.cli.parse",
    "trace": "larkc.cli.trace",
    "run": "larkc.cli.run",
    "verify": "larkc.cli.verify",
    "emit": "larkc.cli.emit",
    "task": "larkc.cli.task",
    "mcp": "larkc.cli.mcp",
}

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_ERROR = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # argparse's returns NoReturn
        raise LarkcError(message, stage=Stage.CLI)


def add_task_arguments(p: argparse.ArgumentParser, *, target_required: bool = True, many: bool = False) -> None:
    """Arguments that name a task: a task file or folder, or a kernel file with launch arguments.

    With ``target_required=False`` the target may be omitted (``args.target`` is then ``None``), for
    commands that can take their task from elsewhere (``larkc run --replay FILE``); with ``many``,
    ``args.target`` is a list of one or more targets (``larkc verify A B C --reference model.py``).
    """
    target_help = "a task file (task.py), a folder holding one, or a kernel source file"
    if many:
        p.add_argument("target", nargs="+", help=target_help + " (several: ModelNew files with --reference)")
    elif target_required:
        p.add_argument("target", help=target_help)
    else:
        p.add_argument("target", nargs="?", default=None, help=target_help)
    p.add_argument("--kernel", help="kernel name (required for a source file with several kernels)")
    p.add_argument("--define", "-D", action="append", default=[], metavar="K[=V]", help="preprocessor define")
    p.add_argument(
        "--include-dir",
        "-I",
        dest="include_dir",
        action="append",
        default=[],
        metavar="DIR",
        help="search DIR for #include files (in the order given, after a task file's own include_dirs)",
    )
    p.add_argument("--template-arg", action="append", default=[], metavar="ARG", help="template argument, in order")
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="X[,Y,Z]",
        help="grid dimensions (required for a kernel source file)",
    )
    p.add_argument(
        "--block",
        action="append",
        default=[],
        metavar="X[,Y,Z]",
        help="block dimensions (required for a kernel source file)",
    )
    p.add_argument("--buffer", action="append", default=[], metavar="NAME=DTYPE[SIZE]", help="buffer, e.g. x=f32[1024]")
    p.add_argument("--scalar", action="append", default=[], metavar="NAME=VALUE", help="scalar argument")
    p.add_argument("--shared-bytes", default="0", help="dynamic shared memory in bytes")
    p.add_argument(
        "--reference",
        metavar="MODEL.py",
        help="the KernelBench-style problem file of a ModelNew candidate given as the target: the task is "
        "derived from the candidate's load_inline CUDA and host code (docs/kernelbench.md)",
    )


def parse_defines(items: Sequence[str]) -> dict[str, str]:
    """``--define`` arguments (``NAME`` or ``NAME=VALUE``) as a mapping; ``NAME`` alone defines 1."""
    out = {}
    for d in items:
        k, sep, v = d.partition("=")
        if not k.strip().isidentifier():
            raise LarkcError(f"invalid --define {d!r}: expected NAME or NAME=VALUE", stage=Stage.CLI)
        out[k.strip()] = v if sep else "1"
    return out


def task_from_args(args: argparse.Namespace) -> Task:
    """The :class:`~larkc.tasks.Task` named by :func:`add_task_arguments` arguments.

    A task file gets ``--define`` merged into its defines (``--kernel`` must name its kernel, and the
    launch options, which a task file declares itself, are refused); a kernel source file becomes a
    reference-free command-line task, which needs ``--grid`` and ``--block`` (and ``--kernel`` unless
    the file has one kernel), and whose ``--buffer``/``--scalar`` must name parameters of the kernel.
    """
    from larkc.tasks import command_line_task, load_task

    target = Path(args.target)
    defines = parse_defines(args.define)
    if getattr(args, "reference", None) is not None:
        return candidate_from_args(args)
    if target.is_dir() or target.name == "task.py" or (target.suffix == ".py" and _is_task_file(target)):
        task = load_task(target)
        if args.kernel is not None and not _same_kernel(args.kernel, task.kernel):
            raise LarkcError(
                f"--kernel {args.kernel} differs from the kernel of task {task.name} ({task.kernel})", stage=Stage.CLI
            )
        given = [f"--{o}" for o in ("grid", "block", "buffer", "scalar") if getattr(args, o)]
        if args.shared_bytes != "0":
            given.append("--shared-bytes")
        if given:
            raise LarkcError(
                f"{', '.join(given)}: only for a kernel source file; task {task.name} declares its launch and "
                f"tensors in its task file",
                stage=Stage.CLI,
            )
        if defines:
            task = dataclasses.replace(task, defines={**task.defines, **defines})
        if args.include_dir:
            task = dataclasses.replace(task, include_dirs=(*task.include_dirs, *map(Path, args.include_dir)))
        return task
    if not target.is_file():
        raise LarkcError(f"no such file or folder: {target}", stage=Stage.CLI)
    missing = [f"--{o}" for o in ("grid", "block") if not getattr(args, o)]
    if missing:
        raise LarkcError(
            f"{target}: a kernel source file needs {' and '.join(missing)} (the launch, e.g. --grid 8 --block 256)",
            stage=Stage.CLI,
        )
    kernel = args.kernel
    if kernel is None:
        from larkc.frontends import kernel_names

        names = kernel_names(target, defines=defines, include_dirs=args.include_dir)
        if len(names) != 1:
            listed = ", ".join(names) if names else "none"
            raise LarkcError(f"{target}: name the kernel with --kernel (kernels: {listed})", stage=Stage.CLI)
        kernel = names[0]
    task = command_line_task(
        target,
        kernel,
        grid=args.grid,
        block=args.block,
        buffers=args.buffer,
        scalars=args.scalar,
        shared_bytes=args.shared_bytes,
        template_args=args.template_arg,
        defines=defines,
        include_dirs=args.include_dir,
    )
    _check_parameters(task)
    return task


#: Files larkc writes for a derived candidate task -> the file whose lines they mirror, so that output
#: names ``model_new.py`` where the kernel's diagnoses stand (see :func:`display`).
_DISPLAY_NAMES: dict[str, str] = {}


def candidate_from_args(args: argparse.Namespace) -> Task:
    """The task derived for a KernelBench ``ModelNew`` file (``args.target``) and its problem file
    (``args.reference``); the launch options are refused (the host code gives the launch)."""
    from larkc.pipeline.candidates import derive_candidate

    target, reference = Path(args.target), Path(args.reference)
    given = [
        f"--{o.replace('_', '-')}" for o in ("grid", "block", "buffer", "scalar", "template_arg") if getattr(args, o)
    ]
    if args.shared_bytes != "0":
        given.append("--shared-bytes")
    if given:
        raise LarkcError(
            f"{', '.join(given)}: not with --reference (the launch is derived from the candidate's host code)",
            stage=Stage.CLI,
        )
    for p in (target, reference):
        if not p.is_file():
            raise LarkcError(f"no such file: {p}", stage=Stage.CLI)
    derived = derive_candidate(target, reference)
    if derived.aligned:
        _DISPLAY_NAMES[str(derived.cuda_file)] = str(target)
    task = derived.task
    if args.kernel is not None and not _same_kernel(args.kernel, task.kernel):
        raise LarkcError(
            f"--kernel {args.kernel} differs from the kernel {target} launches ({task.kernel})", stage=Stage.CLI
        )
    if defines := parse_defines(args.define):
        task = dataclasses.replace(task, defines={**task.defines, **defines})
    if args.include_dir:
        task = dataclasses.replace(task, include_dirs=(*task.include_dirs, *map(Path, args.include_dir)))
    return task


def display(text: str) -> str:
    """``text`` with the CUDA files written for candidates named by the candidate files they mirror."""
    for written, shown in _DISPLAY_NAMES.items():
        text = text.replace(written, shown)
    return text


def _same_kernel(given: str, declared: str) -> bool:
    """Whether ``--kernel given`` denotes the task's kernel ``declared`` (``act`` and ``vllm::act`` do)."""
    from larkc.errors import TaskError
    from larkc.tasks import choose_kernel

    for name, other in ((given, declared), (declared, given)):  # a short name denotes a qualified one
        try:
            choose_kernel(name, [other], "the task")
        except TaskError:
            continue
        return True
    return given == declared


def _check_parameters(task: Task) -> None:
    """Every ``--buffer`` and ``--scalar`` of a command-line task must name a parameter of its kernel."""
    from larkc.frontends import parse_task
    from larkc.tasks import ScalarArg, resolve_kernel

    module = parse_task(task)
    kernel = resolve_kernel(module, task.kernel, str(task.source))
    params = [p.name for p in kernel.params]
    given = [("--buffer", n) for n in task.inputs]
    given += [("--scalar", n) for n, b in task.bindings.items() if isinstance(b, ScalarArg)]
    for option, name in given:
        if name not in params:
            listed = ", ".join(params) or "none"
            raise LarkcError(
                f"{option} {name}: kernel {kernel.name} has no parameter {name} (parameters: {listed})",
                kernel.span,
                stage=Stage.CLI,
            )


def _is_task_file(path: Path) -> bool:
    """A ``.py`` file that builds a Task (and is not a Triton kernel file)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "Task(" in text and "@triton.jit" not in text


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``command``, only that subcommand's module is imported and registered."""
    parser = _Parser(prog="larkc", description="Formal verification of GPU kernels against PyTorch references.")
    parser.add_argument("--version", action="version", version=f"larkc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in [command] if command in COMMANDS else list(COMMANDS):
        importlib.import_module(COMMANDS[name]).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 verdict against the kernel, 2 bad input)."""
    # Deeply nested source expressions make deep IR trees; every stage walks them recursively.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    try:
        arguments = list(sys.argv[1:] if argv is None else argv)
        command = next((a for a in arguments if not a.startswith("-")), None)
        parser = build_parser(command)
        args = parser.parse_args(arguments)
        if getattr(args, "func", None) is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        try:
            return int(args.func(args))
        except SystemExit as e:  # code of the user's that larkc ran, past the loaders' own checks
            raise stray_exit(e) from None
    except LarkcError as e:
        print(display(e.render()), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`larkc run ... | head`): stop quietly, as Unix tools do
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 141
    except RecursionError:
        print("error: input nests too deeply", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # a bug in larkc: say so in one line (LARKC_DEBUG=1 shows the traceback)
        if os.environ.get("LARKC_DEBUG"):
            raise
        return internal_error(e)


def internal_error(e: BaseException) -> int:
    """Report ``e``, a bug in larkc, in the one shape every internal error has: one line on standard
    error (``LARKC_DEBUG=1`` raises instead, for the traceback); returns :data:`EXIT_INTERNAL`. An
    :class:`~larkc.errors.InternalError` (larkc's own check failed) says what failed; any other exception
    is named by its type."""
    print(internal_error_text(e), file=sys.stderr)
    return EXIT_INTERNAL


def internal_error_text(e: BaseException) -> str:
    """The one line :func:`internal_error` prints for ``e``."""
    text = " ".join(str(e).split())
    if isinstance(e, InternalError):
        detail = text
    else:
        detail = f"{type(e).__name__}: {text}" if text else type(e).__name__
    return f"error: internal error: {detail} (a larkc bug; LARKC_DEBUG=1 shows where)"


def stray_exit(e: SystemExit) -> LarkcError:
    """The error for a ``sys.exit`` that code of the user's called while larkc ran it (a reference, a
    launcher): bad input, located at the call, never larkc's own exit status."""
    from larkc.tasks.user_code import describe_user_exception, user_frame

    frame = user_frame(e)
    span = Span(frame[0], frame[1], 1, frame[1], 2) if frame else None
    return LarkcError(f"code larkc ran {describe_user_exception(e)}", span, stage=Stage.CLI)


def parse_memory(value: str) -> int:
    """``--memory`` as bytes: ``4G``, ``512M``, ``2GiB``, ``1000000`` (bytes); a positive amount."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", value, re.IGNORECASE)
    amount = int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " ")) if m else 0
    if amount < 1:
        raise LarkcError(
            f"--memory {value}: expected a positive amount of memory, e.g. 4G, 512M or a number of bytes",
            stage=Stage.CLI,
        )
    return amount


def add_memory_argument(p: argparse.ArgumentParser) -> None:
    """``--memory SIZE``: the memory one simulation or symbolic run of an instance may need."""
    p.add_argument(
        "--memory",
        default="4G",
        metavar="SIZE",
        help="memory budget of one instance's simulation or symbolic run, estimated before it starts "
        "(default 4G): a run past it is not started",
    )


def check_output_file(option: str, value: str | None) -> Path | None:
    """The file an output option (``--json FILE``, ``-o TASK.py``) names, checked before any work: its
    folder exists (or can be made) and is writable, and the path is not a folder. ``None`` and ``-``
    (standard output) pass through as ``None``."""
    if value is None or value == "-":
        return None
    path = Path(value)
    if path.is_dir():
        raise LarkcError(f"{option} {value}: is a folder, not a file", stage=Stage.CLI)
    folder = path.parent
    if not folder.is_dir():
        raise LarkcError(f"{option} {value}: no such folder {folder} to write it in", stage=Stage.CLI)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise LarkcError(f"{option} {value}: folder {folder} is not writable", stage=Stage.CLI)
    if path.exists() and not os.access(path, os.W_OK):
        raise LarkcError(f"{option} {value}: the file is not writable", stage=Stage.CLI)
    return path


def check_output_dir(option: str, value: str | None, *, make: bool = False) -> Path | None:
    """The folder an output option (``--replay-dir DIR``, ``emit -o DIR``) names, checked before any
    work: a folder, writable; a missing one must be creatable (its nearest existing parent a writable
    folder) and is made only with ``make`` (otherwise by whoever writes into it, after the work: bad input
    leaves nothing behind)."""
    if value is None:
        return None
    path = Path(value)
    prefix = f"{option} {value}: it"
    if path.exists() and not path.is_dir():
        raise LarkcError(f"{prefix} is not a folder", stage=Stage.CLI)
    if not path.exists():
        parent = path.absolute().parent
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise LarkcError(f"{prefix} cannot be made: {parent} is not a writable folder", stage=Stage.CLI)
        if not make:
            return path
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise LarkcError(f"{prefix} cannot be made: {err.strerror or err}", stage=Stage.CLI) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise LarkcError(f"{prefix} is not writable", stage=Stage.CLI)
    return path


def write_output(option: str, path: Path, text: str) -> None:
    """Write an output file after the work, reporting a failure as bad input (exit 2) with the message,
    never as an internal error: the caller has printed its result before."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise LarkcError(f"{option} {path}: cannot write: {err.strerror or err}", stage=Stage.CLI) from None
