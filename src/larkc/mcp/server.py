"""``larkc mcp``: larkc's commands as Model Context Protocol tools, over stdio or streamable HTTP on loopback.

Tools: ``verify``, ``run``, ``emit``, ``explain_counterexample``. Each returns the JSON report the matching
command writes (``larkc verify --json``, ``larkc run --json``; docs/verify.md has the schema) as structured
content and a short text; bad input is a tool error (``is_error``) whose text is the located message ``larkc``
prints, never a crash of the server. Each call runs in its own worker process (:mod:`larkc.mcp.worker`): its
progress lines become progress notifications, and a cancelled call (``notifications/cancelled``, or a client
that goes away) kills the worker's process group, so the provers stop at once. The server itself only reads
and writes the protocol: in stdio mode its standard output is the protocol channel, and every log goes to
standard error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from typing import Annotated, Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from larkc import __version__
from larkc.cli import EXIT_ERROR, EXIT_INTERNAL
from larkc.errors import LarkcError
from larkc.mcp.requests import EmitRequest, ExplainRequest, Request, RunRequest, VerifyRequest, request_to_json

__all__ = ["build_server", "serve"]

_log = logging.getLogger(__name__)

#: The largest event line a worker writes (a report of many obligations and witnesses is far smaller).
_MAX_EVENT_BYTES = 1 << 28

_INSTRUCTIONS = """\
larkc formally verifies a CUDA or Triton GPU kernel against its PyTorch reference. `verify` proves every \
obligation (equivalence with the reference under exact arithmetic, bounds, races, barriers, initialised reads, \
defined operations, integer overflow, launch limits) or refutes one with a counterexample. Its verdict: \
VERIFIED (verified_scope "all sizes", or "bounded": some obligations hold only at the task's shape \
instances; all_sizes=true makes a bounded VERIFIED exit code 4), FAILED (a counterexample: \
explain_counterexample says it in words), UNKNOWN (nothing refuted, not everything proved; each open \
obligation has its reason). Targets: a task folder or task.py, or a KernelBench ModelNew file with its \
problem file as `reference`. Relative paths are read from the server's working directory."""

Target = Annotated[
    str,
    Field(
        description="a task folder or task.py, a kernel source file, or a KernelBench ModelNew file (with "
        "`reference`); relative to the server's working directory"
    ),
]
Reference = Annotated[str | None, Field(description="the KernelBench problem file (model.py) of a ModelNew target")]
Shapes = Annotated[
    list[dict[str, int]] | None,
    Field(description='shape instances to use instead of the task\'s, e.g. [{"n": 128}]'),
]
Memory = Annotated[str, Field(description="memory budget of one instance's run, e.g. 4G, 512M")]
Seconds = Annotated[float, Field(gt=0, description="wall-clock safety net per obligation and instance, in seconds")]
AllSizes = Annotated[
    bool,
    Field(description="exit code 0 only when every obligation holds for all sizes (a bounded VERIFIED exits 4)"),
]


async def _perform(request: Request, ctx: Context) -> CallToolResult:
    """Run ``request`` in a worker process, relaying its progress; the tool's result."""
    process = await anyio.open_process(
        [sys.executable, "-m", "larkc.mcp.worker", str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=None,  # the worker's own messages go where the server's go: standard error
        start_new_session=True,  # its own process group, killed whole on cancellation
    )
    tool = request_to_json(request)["tool"]
    try:
        _log.info("larkc %s: worker process %d", tool, process.pid)
        # the first step names the worker, whose process group a cancellation kills
        await ctx.report_progress(0, None, f"larkc {tool}: worker process {process.pid} started")
        assert process.stdin is not None and process.stdout is not None
        await process.stdin.send(json.dumps(request_to_json(request)).encode())
        await process.stdin.aclose()
        events = BufferedByteReceiveStream(process.stdout)
        steps = 0
        while True:
            try:
                line = await events.receive_until(b"\n", _MAX_EVENT_BYTES)
            except (anyio.IncompleteRead, anyio.EndOfStream):
                break
            event: Mapping[str, Any] = json.loads(line)
            match event.get("event"):
                case "progress":
                    steps += 1
                    await ctx.report_progress(steps, None, str(event.get("message")))
                case "result":
                    text = TextContent(type="text", text=str(event["text"]))
                    return CallToolResult(content=[text], structured_content=event["structured"])
                case "error":
                    return _error(str(event["message"]), int(event["exit_code"]))
        status = await process.wait()
        return _error(
            f"error: internal error: the {tool} worker (pid {process.pid}) ended with status {status} without a "
            "result (killed, or a larkc bug; its standard error is the server's)",
            EXIT_INTERNAL,
        )
    finally:
        await _stop(process)


def _error(message: str, exit_code: int) -> CallToolResult:
    """A tool error: the message ``larkc`` would print, and the exit code it would exit with (2 bad input, 3
    internal error)."""
    return CallToolResult(
        content=[TextContent(type="text", text=message)],
        structured_content={"error": message, "exit_code": exit_code},
        is_error=True,
    )


async def _stop(process: Process) -> None:
    """Kill ``process``'s group unless it has ended (a cancelled call's work stops here), and reap it."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # ended since
                os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        await process.aclose()


def build_server() -> MCPServer:
    """The server with larkc's four tools."""
    server: MCPServer = MCPServer("larkc", version=__version__, instructions=_INSTRUCTIONS, log_level="WARNING")
    reads = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=reads)
    async def verify(
        target: Target,
        ctx: Context,
        reference: Reference = None,
        all_sizes: AllSizes = False,
        seconds: Seconds = 300.0,
        memory: Memory = "4G",
        shapes: Shapes = None,
        json_path: Annotated[str | None, Field(description="also write the JSON report to this file")] = None,
        replay_dir: Annotated[str | None, Field(description="where to write replay files")] = None,
    ) -> CallToolResult:
        """Prove the kernel equal to its PyTorch reference, in bounds, race free (every obligation), or refute
        it with a counterexample; the structured result is the `larkc verify --json` report (verdict,
        verified_scope, headline, exit_code, obligations with counterexamples). Exit codes: 0 VERIFIED, 1 FAILED,
        4 UNKNOWN (or a bounded VERIFIED with all_sizes)."""
        request = VerifyRequest(
            target, reference, all_sizes, seconds, memory, tuple(shapes or ()), json_path, replay_dir
        )
        return await _perform(request, ctx)

    @server.tool(annotations=reads)
    async def run(
        target: Target,
        ctx: Context,
        reference: Reference = None,
        shapes: Shapes = None,
        seed: Annotated[int, Field(description="first seed of the random inputs")] = 0,
        seeds: Annotated[int, Field(ge=1, description="seeds to try on the smallest instance")] = 3,
        strict: Annotated[bool, Field(description="count same-value races against the kernel")] = False,
        memory: Memory = "4G",
        replay_dir: Annotated[str | None, Field(description="where to write replay files")] = None,
    ) -> CallToolResult:
        """Simulate the kernel on the task's shape instances with seeded random inputs, checking bounds, races,
        barriers, uninitialised reads and undefined operations, and compare with the reference (evidence, not a
        proof); the structured result is the `larkc run --json` report."""
        request = RunRequest(target, reference, tuple(shapes or ()), seed, seeds, strict, memory, replay_dir)
        return await _perform(request, ctx)

    @server.tool(annotations=reads)
    async def emit(
        target: Target,
        output: Annotated[str, Field(description="the folder to write the Lean project into (checked first)")],
        ctx: Context,
        reference: Reference = None,
        check: Annotated[bool, Field(description="build it with `lake build` (needs Lean)")] = False,
    ) -> CallToolResult:
        """Write the task's Lean project (the kernel's phases, the reference, theorems for every size with their
        proofs left `sorry`) into `output`; the structured result lists the files (and `lake build`'s outcome)."""
        return await _perform(EmitRequest(target, output, reference, check), ctx)

    @server.tool(annotations=reads)
    async def explain_counterexample(
        ctx: Context,
        report: Annotated[
            dict[str, Any] | None, Field(description="a verify report (the structured result of `verify`)")
        ] = None,
        report_path: Annotated[str | None, Field(description="a file holding a `larkc verify --json` report")] = None,
        target: Annotated[str | None, Field(description="a task to verify first (as `verify`'s target)")] = None,
        reference: Reference = None,
        all_sizes: AllSizes = False,
        seconds: Seconds = 300.0,
    ) -> CallToolResult:
        """The counterexample of a FAILED verify report in words: the inputs that matter, the differing element
        with the kernel's and the reference's values, where in the source, the launch coordinates (block and
        thread, from the counterexample or the simulator's replay of it) and how it was established; for
        UNKNOWN, the open obligations and their reasons. Give one of report, report_path or target."""
        verify_request = VerifyRequest(target, reference, all_sizes, seconds) if target is not None else None
        try:
            request = ExplainRequest(report, report_path, verify_request)
        except LarkcError as e:
            return _error(e.render(), EXIT_ERROR)
        return await _perform(request, ctx)

    return server


def serve(http_port: int | None = None) -> None:
    """Serve over stdio, or with ``http_port`` over streamable HTTP on 127.0.0.1 (path ``/mcp``)."""
    server = build_server()
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=http_port)
