"""``larkc mcp`` spoken to by the MCP SDK's own client, over stdio (the server spawned as ``python -m larkc.cli
mcp``) and streamable HTTP on loopback: every tool, its structured result (the JSON report of the matching
command), its errors (tool errors with the located message, the server alive after them), progress
notifications and a cancelled call (the worker process killed)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP Python SDK is not installed (pip install 'larkc[mcp]')")

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"
#: the keys of `larkc verify --json`'s report (docs/verify.md, "The JSON report")
VERIFY_REPORT_KEYS = {
    "task", "verdict", "findings", "verified_scope", "all_sizes", "headline", "exit_code", "stopped",
    "expected_failure", "instances", "obligations", "assumptions", "seconds",
}  # fmt: skip
Progress = list[tuple[float, str]]


def _environment() -> dict[str, str]:
    """The server's environment: this checkout's larkc first (the client passes only a few variables on)."""
    paths = [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(paths)}


def _session(body: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``body`` against a fresh ``larkc mcp`` over stdio, started in the repository root."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "larkc.cli", "mcp"], env=_environment(), cwd=str(ROOT)
    )

    async def main() -> None:
        async with Client(server) as client:
            await body(client)

    anyio.run(main)


async def _call(
    client: Client, tool: str, arguments: dict[str, Any], progress: Progress | None = None
) -> CallToolResult:
    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        if progress is not None:
            progress.append((value, message or ""))

    return await client.call_tool(tool, arguments, progress_callback=on_progress)


def _text(result: CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def test_verify_a_verified_kernel_with_progress(tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"verify", "run", "emit", "explain_counterexample"}
        assert {"target", "reference", "all_sizes", "seconds"} <= set(tools["verify"].input_schema["properties"])
        progress: Progress = []
        arguments = {"target": "examples/cuda/relu", "all_sizes": True, "replay_dir": str(tmp_path)}
        result = await _call(client, "verify", arguments, progress)
        assert not result.is_error, _text(result)
        report = result.structured_content
        assert report is not None and set(report) == VERIFY_REPORT_KEYS
        # relu's inputs, init, defined and assert hold at its 3 instances only: VERIFIED, bounded, and under
        # all_sizes exit code 4 (unknown for all sizes), as `larkc verify --all-sizes` says
        assert (report["verdict"], report["verified_scope"], report["all_sizes"], report["exit_code"]) == (
            "VERIFIED", "bounded", True, 4,
        )  # fmt: skip
        assert all(o["status"] == "proved" for o in report["obligations"])
        assert _text(result).startswith("UNKNOWN for all sizes (--all-sizes): VERIFIED (bounded: ")
        assert _text(result).endswith("exit code 4")
        messages = [m for _, m in progress]
        assert re.fullmatch(r"larkc verify: worker process \d+ started", messages[0])
        assert any(m.startswith("parametric proof of ") for m in messages), messages
        assert "all-size proof of equivalence(out) (z3)" in messages
        assert [m for m in messages if m.startswith("instance ")] == [
            "instance 1/3 (n=3): symbolic execution",
            "instance 2/3 (n=1023): symbolic execution",
            "instance 3/3 (n=2500): symbolic execution",
        ]
        assert [v for v, _ in progress] == sorted(v for v, _ in progress)  # progress only increases

    _session(body)


def test_a_failed_verdict_and_its_counterexample_explained(tmp_path: Path) -> None:
    json_path = tmp_path / "report.json"

    async def body(client: Client) -> None:
        arguments = {"target": "examples/cuda/row_max_bug_zero_init", "json_path": str(json_path)}
        result = await _call(client, "verify", {**arguments, "replay_dir": str(tmp_path)})
        assert not result.is_error, _text(result)  # a verdict against the kernel is a result, not a tool error
        report = result.structured_content
        assert report is not None and (report["verdict"], report["exit_code"]) == ("FAILED", 1)
        assert json.loads(json_path.read_text(encoding="utf-8")) == report  # --json FILE, the same report
        assert _text(result).startswith("FAILED: equivalence(out): out[0] differ")

        explained = await _call(client, "explain_counterexample", {"report": report})
        assert not explained.is_error, _text(explained)
        words = explained.structured_content
        assert words is not None
        assert (words["verdict"], words["obligation"]) == ("FAILED", "equivalence(out)")
        refuted = next(o for o in report["obligations"] if o["status"] == "refuted")
        assert words["counterexample"] == refuted["counterexample"]  # the report's own object
        cx = words["counterexample"]
        assert cx["kernel_value"] == 0.0 and cx["reference_value"] < 0  # all negative: the zero start wins
        # which thread wrote the wrong element: the simulator's replay of the counterexample says
        assert words["coordinates"] == {"block": [0, 0, 0], "thread": [0, 0, 0], "source": "replay"}
        assert words["simulator"]["kind"] == "mismatch"
        text = _text(explained)
        assert "refuted: equivalence(out) (confirmed by the simulator at the task's dtypes)" in text
        assert "instance: rows=1, d=1 (grid 1x1x1, block 32x1x1)" in text
        assert re.search(r"^inputs: x\[0\]=-[0-9.]+$", text, re.MULTILINE), text
        assert re.search(r"^element: out\[0\]: the kernel gives 0, the reference -[0-9.]+$", text, re.MULTILINE)
        assert "launch coordinates: block (0,0,0) thread (0,0,0) (the simulator's replay)" in text
        assert "kernel.cu:25:7" in text  # where the element was last written

        from_file = await _call(client, "explain_counterexample", {"report_path": str(json_path)})
        assert from_file.structured_content == words

    _session(body)


def test_a_kernelbench_candidate_with_its_reference() -> None:
    problem = "examples/kernelbench/l1_relu"

    async def body(client: Client) -> None:
        # explain_counterexample verifies the candidate itself (the verify tool's arguments), then explains
        arguments = {"target": f"{problem}/wrong_unwritten.py", "reference": f"{problem}/model.py"}
        explained = await _call(client, "explain_counterexample", arguments)
        assert not explained.is_error, _text(explained)
        words = explained.structured_content
        assert words is not None and (words["verdict"], words["obligation"]) == ("FAILED", "equivalence(out)")
        assert words["counterexample"]["element"] == [2, 0]
        text = _text(explained)
        assert "element: out[2, 0]\n" in text  # never written: no kernel value to show
        # the simulator's diagnosis names the candidate's file, not the CUDA file larkc derived from it
        written = "output out: 512 element(s) never written"
        assert f"simulator: mismatch: {problem}/wrong_unwritten.py:12:1: {written}" in text, text

    _session(body)


def test_an_unknown_verdict_says_why() -> None:
    async def body(client: Client) -> None:
        result = await _call(client, "verify", {"target": str(CASES / "abs_bits")})
        assert not result.is_error, _text(result)
        report = result.structured_content
        assert report is not None and (report["verdict"], report["exit_code"]) == ("UNKNOWN", 4)
        open_ = {o["obligation"]: o["detail"] for o in report["obligations"] if o["status"] == "unknown"}
        assert "operator & on data-dependent i32 values" in open_["equivalence(y)"]
        explained = await _call(client, "explain_counterexample", {"report": report})
        assert explained.structured_content is not None and explained.structured_content["counterexample"] is None
        assert "no counterexample: nothing was refuted" in _text(explained)
        assert "equivalence(y): symbolic execution stopped at" in _text(explained)

    _session(body)


def test_bad_input_is_a_tool_error_and_the_server_lives_on(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("", encoding="utf-8")

    async def body(client: Client) -> None:
        missing = await _call(client, "verify", {"target": "examples/cuda/no_such_task"})
        assert missing.is_error
        assert _text(missing) == "error: no such file or folder: examples/cuda/no_such_task"
        assert missing.structured_content == {"error": _text(missing), "exit_code": 2}

        goto = await _call(client, "verify", {"target": str(CASES / "clamp_goto")})
        assert goto.is_error
        located = "tests/mcp/cases/clamp_goto/kernel.cu:5:15: error: unsupported goto statement: goto done;"
        assert _text(goto).splitlines()[0].endswith(located), _text(goto)
        assert "^~~~" in _text(goto)  # the caret under the construct, as the command line prints it

        emit = await _call(client, "emit", {"target": "examples/cuda/relu", "output": str(not_a_folder)})
        assert emit.is_error and _text(emit) == f"error: -o {not_a_folder}: it is not a folder"

        none = await _call(client, "explain_counterexample", {})
        assert none.is_error and "give exactly one of report" in _text(none)
        junk = await _call(client, "explain_counterexample", {"report": {"verdict": "maybe"}})
        assert junk.is_error and "report: not a larkc verify JSON report" in _text(junk)

        wrong_type = await _call(client, "run", {"target": "examples/cuda/relu", "seeds": 0})
        assert wrong_type.is_error  # the tool's input schema (seeds >= 1), checked by the SDK

        assert len((await client.list_tools()).tools) == 4  # the server is alive

    _session(body)


def test_run_and_emit(tmp_path: Path) -> None:
    async def body(client: Client) -> None:
        progress: Progress = []
        arguments = {"target": "examples/cuda/vector_add_bug_off_by_one", "seeds": 1, "replay_dir": str(tmp_path)}
        run = await _call(client, "run", arguments, progress)
        assert not run.is_error, _text(run)
        report = run.structured_content
        assert report is not None and report["ok"] is False and "oob" in report["kinds"]
        assert set(report) >= {"task", "ok", "kinds", "instances"}  # `larkc run --json`'s report
        assert _text(run).endswith("exit code 1")
        assert "instance 1/3 (n=1): simulation" in [m for _, m in progress]

        out = tmp_path / "lean"
        emit = await _call(client, "emit", {"target": "examples/cuda/relu", "output": str(out)})
        assert not emit.is_error, _text(emit)
        emitted = emit.structured_content
        assert emitted is not None and emitted["check"] is None and emitted["folder"] == str(out)
        assert emitted["files"] and all(Path(f).is_file() for f in emitted["files"])
        assert any(f.endswith(".lean") for f in emitted["files"])

    _session(body)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see the worker process")
def test_a_cancelled_call_kills_its_worker() -> None:
    async def body(client: Client) -> None:
        pid: int | None = None
        working = anyio.Event()

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            nonlocal pid
            if m := re.search(r"worker process (\d+) started", message or ""):
                pid = int(m[1])
            elif pid is not None:  # a phase of the work: the provers are running
                working.set()

        async def call() -> None:  # softmax_online's proof takes tens of seconds: it is cancelled long before
            await client.call_tool("verify", {"target": "examples/cuda/softmax_online"}, progress_callback=on_progress)
            raise AssertionError("the call was not cancelled")

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            with anyio.fail_after(240):
                await working.wait()
            assert pid is not None and _alive(pid)
            group.cancel_scope.cancel()  # the client sends notifications/cancelled
        with anyio.fail_after(30):
            while _alive(pid):
                await anyio.sleep(0.1)
        missing = await _call(client, "verify", {"target": "examples/cuda/no_such_task"})
        assert missing.is_error  # the server serves on

    _session(body)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening_addresses(port: int) -> set[str]:
    """The local addresses listening on TCP ``port`` (IPv4 and IPv6), from /proc/net."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="utf-8").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").is_file(), reason="reads /proc/net/tcp to see the bound address")
def test_streamable_http_on_loopback_only() -> None:
    port = _free_port()
    env = {**os.environ, **_environment()}
    server = subprocess.Popen(
        [sys.executable, "-m", "larkc.cli", "mcp", "--http", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _listening_addresses(port):
            assert server.poll() is None, "the server exited"
            assert time.monotonic() < deadline, "the server did not listen"
            time.sleep(0.2)
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else

        async def main() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                assert len((await client.list_tools()).tools) == 4
                missing = await _call(client, "verify", {"target": "examples/cuda/no_such_task"})
                assert missing.is_error and missing.structured_content == {
                    "error": "error: no such file or folder: examples/cuda/no_such_task",
                    "exit_code": 2,
                }

        anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=30)
