"""The process that does one MCP tool call's work: ``python -m larkc.mcp.worker``.

The server runs each call in a fresh worker (``python -m larkc.mcp.worker SERVER_PID``) so that cancelling a
call is real (the server kills the worker's process group: the CPU-bound provers stop at once, whatever they
are doing), a crash or a memory kill of the work cannot take the server down, and nothing the work prints
reaches the server's standard output, which in stdio mode is the protocol channel. A worker whose server is
gone (killed before it could kill its workers) ends within a second. It does not import the MCP SDK.

Protocol: the request (:func:`~larkc.mcp.requests.request_to_json`) as one JSON object on standard input;
then JSON lines on standard output, each an event:

* ``{"event": "progress", "message": LINE}``: a step of the work (an instance started, an obligation phase);
* ``{"event": "result", "structured": OBJECT, "text": TEXT}``: the tool's result, last;
* ``{"event": "error", "message": TEXT, "exit_code": 2 | 3}``: bad input (the located message ``larkc``
  prints, exit code 2) or an internal error of larkc (its one line, 3), last.

Standard output is the worker's own channel: file descriptor 1 is pointed at standard error before any
work, so that a reference or a task file that prints cannot corrupt it. Each tool imports what it needs
when it runs (torch only for the work that needs it), as the command line does.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, assert_never

from larkc.cli import EXIT_ERROR, EXIT_INTERNAL, build_parser, display, internal_error_text, stray_exit
from larkc.errors import LarkcError, Stage
from larkc.mcp.requests import EmitRequest, ExplainRequest, Request, RunRequest, VerifyRequest, request_from_json

__all__ = ["Outcome", "main", "perform"]

#: The structured result and the short text of a tool call.
Outcome = tuple[dict[str, Any], str]


def _json(obj: object) -> Any:
    """``obj`` (a report's JSON) with the CUDA files written for candidates named by the candidate files, as the
    command line prints them."""
    return json.loads(display(json.dumps(obj)))


def _verify(request: VerifyRequest, progress: Callable[[str], None]) -> Outcome:
    from larkc.cli import write_output
    from larkc.cli.verify import verify_from_args

    args = build_parser("verify").parse_args(request.argv())
    args.target = args.target[0]  # one target: the batch mode is the command line's
    report, json_file = verify_from_args(args, lambda line: progress(display(line)))
    structured = _json(report.to_json())
    if json_file is not None:
        write_output("--json", json_file, json.dumps(structured, indent=2) + "\n")
    lines = report.render()[1 + len(report.results) :]  # the verdict, without the line per obligation
    verdict_lines = lines[: lines.index("assumptions:")] if "assumptions:" in lines else lines
    text = "\n".join([*verdict_lines, f"exit code {report.exit_code}"])
    return structured, display(text)


def _run(request: RunRequest, progress: Callable[[str], None]) -> Outcome:
    from larkc.cli.run import run_from_args

    report = run_from_args(build_parser("run").parse_args(request.argv()), lambda line: progress(display(line)))
    verdict = display(report.render()).splitlines()[-1:]
    return _json(report.to_json()), "\n".join([*verdict, f"exit code {0 if report.ok else 1}"])


def _emit(request: EmitRequest) -> Outcome:
    from larkc.cli.emit import emit_from_args

    emitted = emit_from_args(build_parser("emit").parse_args(request.argv()))
    check = emitted.check
    structured = {
        "module": emitted.module,
        "folder": str(emitted.folder),
        "files": [str(p) for p in emitted.files],
        "check": {"status": check.status, "messages": list(check.messages)} if check is not None else None,
    }
    text = f"wrote {len(emitted.files)} files of Lean project {emitted.module} to {emitted.folder}"
    if check is not None:
        text += f"; lake build: {check.status}" + "".join(f"\n{m}" for m in check.messages)
    return structured, text


def _explain(request: ExplainRequest, progress: Callable[[str], None]) -> Outcome:
    from larkc.cli.run import run_from_args
    from larkc.mcp.explain import check_report, explain, replay_of

    report: Mapping[str, Any]
    if request.verify is not None:
        report, _ = _verify(request.verify, progress)
    elif request.report_path is not None:
        path = Path(request.report_path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as err:
            raise LarkcError(f"report_path {path}: cannot read: {err.strerror or err}", stage=Stage.CLI) from None
        except json.JSONDecodeError as err:
            raise LarkcError(f"{path}:{err.lineno}:{err.colno}: error: not JSON: {err.msg}", stage=Stage.CLI) from None
        report = check_report(data, str(path))
    else:
        report = check_report(request.report, "report")
    report = check_report(report, "report")
    replayed = None
    replay = replay_of(report)
    if replay is not None and Path(replay).is_file():
        progress(f"replaying the counterexample in the simulator ({replay})")
        run = run_from_args(build_parser("run").parse_args(["run", "--replay", replay]))
        replayed = _json(run.to_json())
    explanation = explain(report, replayed)
    return explanation.to_json(), "\n".join(explanation.lines)


def perform(request: Request, progress: Callable[[str], None]) -> Outcome:
    """Do ``request``'s work; bad input raises :class:`~larkc.errors.LarkcError`."""
    match request:
        case VerifyRequest():
            return _verify(request, progress)
        case RunRequest():
            return _run(request, progress)
        case EmitRequest():
            return _emit(request)
        case ExplainRequest():
            return _explain(request, progress)
        case _:
            assert_never(request)


def _exit_with_parent(parent: int) -> None:
    """End this process when the server that started it, process ``parent``, ends (killed, say, with no chance to
    kill its workers): the work is the server's call's, and nobody would read its result. The server passes its
    process id: one read here could already be init's, if the server ended while this process started."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)  # reparented: the server is gone

    threading.Thread(target=watch, name="larkc-mcp-parent-watch", daemon=True).start()


def main() -> int:
    """Read one request from standard input, write its events to standard output; the exit status is 0
    when a result or an error event was written. The one argument, if given, is the server's process id."""
    if len(sys.argv) > 1:
        _exit_with_parent(int(sys.argv[1]))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))  # as the command line: deep IR trees
    channel: IO[str] = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # what the work prints goes to standard error

    def send(event: Mapping[str, Any]) -> None:
        channel.write(json.dumps(event) + "\n")
        channel.flush()

    try:
        try:
            request = request_from_json(json.loads(sys.stdin.read()))
        except (TypeError, ValueError) as e:  # not JSON, or fields that are not the tool's
            raise LarkcError(f"bad request: {e}", stage=Stage.CLI) from None
        try:
            structured, text = perform(request, lambda line: send({"event": "progress", "message": line}))
        except SystemExit as e:  # code of the user's that larkc ran, past the loaders' own checks
            raise stray_exit(e) from None
        send({"event": "result", "structured": structured, "text": text})
    except LarkcError as e:
        send({"event": "error", "message": display(e.render()), "exit_code": EXIT_ERROR})
    except RecursionError:
        send({"event": "error", "message": "error: input nests too deeply", "exit_code": EXIT_ERROR})
    except Exception as e:  # a bug in larkc: its one line (LARKC_DEBUG=1 adds the traceback on standard error)
        if os.environ.get("LARKC_DEBUG"):
            import traceback

            traceback.print_exc()
        send({"event": "error", "message": internal_error_text(e), "exit_code": EXIT_INTERNAL})
    return 0


if __name__ == "__main__":
    sys.exit(main())
