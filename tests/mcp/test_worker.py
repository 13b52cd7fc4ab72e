"""The worker process behind each MCP tool call, and the explanation of a counterexample; without the SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from larkc.errors import LarkcError
from larkc.mcp.explain import check_report, explain
from larkc.mcp.requests import (
    EmitRequest,
    ExplainRequest,
    RunRequest,
    VerifyRequest,
    request_from_json,
    request_to_json,
)

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"


def _worker(request: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The events ``python -m larkc.mcp.worker`` writes for ``request``, and its standard error."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "larkc.mcp.worker"],
        input=json.dumps(request), cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


def test_what_the_work_prints_goes_to_standard_error_not_the_channel() -> None:
    events, stderr = _worker(request_to_json(VerifyRequest(str(CASES / "noisy"))))
    assert [e["event"] for e in events] == ["error"]  # one JSON line, nothing else, on standard output
    assert events[0]["exit_code"] == 2
    assert "clamp_goto/kernel.cu:5:15: error: unsupported goto statement" in events[0]["message"]
    assert "loading the clamp task" in stderr


def test_a_bad_request_is_an_error_event() -> None:
    events, _ = _worker({"tool": "verify", "target": "x", "colour": "blue"})
    assert events == [
        {
            "event": "error",
            "message": "error: bad request: VerifyRequest.__init__() got an unexpected keyword argument 'colour'",
            "exit_code": 2,
        }
    ]


@pytest.mark.parametrize(
    "request_",
    [
        VerifyRequest("t", "m.py", True, 12.5, "2G", ({"n": 4, "d": 8},), "r.json", "replays"),
        RunRequest("t", None, ({"n": 3},), 7, 2, True, "1G", None),
        EmitRequest("t", "out", None, True),
        ExplainRequest(report={"verdict": "UNKNOWN"}),
        ExplainRequest(verify=VerifyRequest("t")),
    ],
)
def test_requests_round_trip_through_json(request_: Any) -> None:
    assert request_from_json(json.loads(json.dumps(request_to_json(request_)))) == request_


def test_requests_are_the_command_lines_they_mirror() -> None:
    verify = VerifyRequest("t", "m.py", True, 12.5, "2G", ({"n": 4, "d": 8},), "r.json", "replays")
    assert verify.argv() == [
        "verify", "t", "--reference", "m.py", "--all-sizes", "--seconds", "12.5", "--memory", "2G",
        "--shape", "n=4,d=8", "--json", "r.json", "--replay-dir", "replays",
    ]  # fmt: skip
    assert RunRequest("t", seeds=1).argv() == ["run", "t", "--seed", "0", "--seeds", "1", "--memory", "4G"]
    assert EmitRequest("t", "out", check=True).argv() == ["emit", "t", "-o", "out", "--check"]
    with pytest.raises(LarkcError, match="give exactly one of report"):
        ExplainRequest(report={}, report_path="r.json")


def _report(obligations: list[dict[str, Any]], verdict: str, headline: str) -> dict[str, Any]:
    return {"verdict": verdict, "headline": headline, "obligations": obligations}


def test_the_coordinates_of_an_out_of_bounds_access_come_from_its_counterexample() -> None:
    message = (
        "read `x[i]` at kernel.cu:10:14 is out of bounds: element 1 of tensor x, which has 1 element at n=1, "
        "block (0,0,0) thread (1,0,0)"
    )
    cx = {
        "kind": "confirmed", "message": message, "instance": {"n": 1}, "launch": "grid 1x1x1, block 256x1x1",
        "location": "kernel.cu:10:14", "tensor": None, "element": None, "kernel_value": None,
        "reference_value": None, "inputs": {}, "replay": None,
    }  # fmt: skip
    bounds = {"obligation": "bounds", "kind": "bounds", "status": "refuted", "counterexample": cx}
    proved = {"obligation": "race", "kind": "race", "status": "proved", "counterexample": None}
    words = explain(check_report(_report([proved, bounds], "FAILED", f"FAILED: bounds: {message}"), "r"))
    assert words.obligation == "bounds" and words.counterexample is cx
    assert words.coordinates == {"block": [0, 0, 0], "thread": [1, 0, 0], "source": "counterexample"}
    assert words.lines == (
        f"FAILED: bounds: {message}",
        "refuted: bounds (confirmed by the simulator at the task's dtypes)",
        "instance: n=1 (grid 1x1x1, block 256x1x1)",
        "at: kernel.cu:10:14",
        "launch coordinates: block (0,0,0) thread (1,0,0)",
    )


def test_a_triton_program_and_the_refutation_the_headline_shows() -> None:
    def refuted(name: str, message: str) -> dict[str, Any]:
        cx = {"kind": "exact", "message": message, "instance": {"n": 5}, "launch": "grid 2x1x1", "inputs": {}}
        return {"obligation": name, "kind": name.split("(", maxsplit=1)[0], "status": "refuted", "counterexample": cx}

    race = refuted("race", "lanes 0 and 1 of program (1, 0, 0) store to y[4]")
    equivalence = refuted("equivalence(y)", "y[4] differ")
    words = explain(_report([equivalence, race], "FAILED", "FAILED: race: lanes 0 and 1 of program (1, 0, 0) ..."))
    assert words.obligation == "race"  # the headline's, not the first in the list
    assert words.coordinates == {"program": [1, 0, 0], "source": "counterexample"}
    assert "launch coordinates: program (1,0,0)" in words.lines
    assert words.lines[-1] == "also refuted: equivalence(y)"


def test_an_unknown_report_lists_its_open_obligations_and_witnesses() -> None:
    witness = {"instance": {"k": 129}, "launch": "grid 1x1x1, block 128x1x1", "message": "a race on s[0]"}
    open_ = {"obligation": "race", "status": "unknown", "detail": "possible violation", "witnesses": [witness]}
    words = explain(_report([open_], "UNKNOWN", "UNKNOWN: 1 obligation(s) neither proved nor refuted"))
    assert words.counterexample is None and words.coordinates is None
    assert words.lines[1:] == (
        "no counterexample: nothing was refuted; these obligations are open:",
        "  race: possible violation",
        "    possible at k=129 (grid 1x1x1, block 128x1x1): a race on s[0] (a solver's model, not confirmed: not "
        "a refutation)",
    )


@pytest.mark.parametrize("junk", [[], {"verdict": "VERIFIED"}, {"verdict": "OK", "headline": "", "obligations": []}])
def test_what_is_not_a_verify_report_is_bad_input(junk: object) -> None:
    with pytest.raises(LarkcError, match=r"r\.json: not a larkc verify JSON report"):
        check_report(junk, "r.json")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see the worker process")
def test_a_worker_whose_server_is_gone_stops() -> None:
    # A parent (the server) starts a worker on a long proof and dies without killing it: the worker ends too.
    request = json.dumps(request_to_json(VerifyRequest("examples/cuda/softmax_online")))
    parent = (
        "import os, subprocess, sys\n"
        "worker = subprocess.Popen([sys.executable, '-m', 'larkc.mcp.worker', str(os.getpid())],\n"
        "                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,\n"
        "                          start_new_session=True)\n"
        f"worker.stdin.write({request!r}.encode()); worker.stdin.close()\n"
        "print(worker.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", parent], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    pid = int(proc.stdout)
    deadline = time.monotonic() + 30  # the proof takes minutes; the worker's watch looks every second
    while Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]:
        assert time.monotonic() < deadline, f"worker {pid} still runs without its server"
        time.sleep(0.2)
