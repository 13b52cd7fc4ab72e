"""What each MCP tool is asked to do, as data the server hands to its worker process.

A request is the tool's arguments, checked for their types by the server (the SDK validates them against the
tool's input schema) and for their meaning by the worker, which turns it into the command line of the
``larkc`` command it mirrors (:meth:`VerifyRequest.argv`, ...) and reads that with the command's own parser:
the options mean what they mean on the command line, and bad ones get the command's own errors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from larkc.errors import LarkcError, Stage

__all__ = [
    "EmitRequest",
    "ExplainRequest",
    "Request",
    "RunRequest",
    "VerifyRequest",
    "request_from_json",
    "request_to_json",
]


def _task_argv(target: str, reference: str | None) -> list[str]:
    return [target, *(["--reference", reference] if reference is not None else [])]


def _shape_argv(shapes: Sequence[Mapping[str, int]]) -> list[str]:
    return [a for shape in shapes for a in ("--shape", ",".join(f"{k}={v}" for k, v in shape.items()))]


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    """``larkc verify TARGET [--reference MODEL.py] [--all-sizes] [--seconds S] [--memory M] [--shape ...]
    [--json FILE] [--replay-dir DIR]``."""

    target: str
    reference: str | None = None
    all_sizes: bool = False
    seconds: float = 300.0
    memory: str = "4G"
    shapes: tuple[Mapping[str, int], ...] = ()
    json_path: str | None = None
    replay_dir: str | None = None

    def argv(self) -> list[str]:
        return [
            "verify",
            *_task_argv(self.target, self.reference),
            *(["--all-sizes"] if self.all_sizes else []),
            *("--seconds", repr(float(self.seconds)), "--memory", self.memory),
            *_shape_argv(self.shapes),
            *(["--json", self.json_path] if self.json_path is not None else []),
            *(["--replay-dir", self.replay_dir] if self.replay_dir is not None else []),
        ]


@dataclass(frozen=True, slots=True)
class RunRequest:
    """``larkc run TARGET [--reference MODEL.py] [--shape ...] [--seed N] [--seeds N] [--strict] [--memory M]
    [--replay-dir DIR]``."""

    target: str
    reference: str | None = None
    shapes: tuple[Mapping[str, int], ...] = ()
    seed: int = 0
    seeds: int = 3
    strict: bool = False
    memory: str = "4G"
    replay_dir: str | None = None

    def argv(self) -> list[str]:
        return [
            "run",
            *_task_argv(self.target, self.reference),
            *_shape_argv(self.shapes),
            *("--seed", str(self.seed), "--seeds", str(self.seeds), "--memory", self.memory),
            *(["--strict"] if self.strict else []),
            *(["--replay-dir", self.replay_dir] if self.replay_dir is not None else []),
        ]


@dataclass(frozen=True, slots=True)
class EmitRequest:
    """``larkc emit TARGET [--reference MODEL.py] -o OUTPUT [--check]``."""

    target: str
    output: str
    reference: str | None = None
    check: bool = False

    def argv(self) -> list[str]:
        return [
            "emit",
            *_task_argv(self.target, self.reference),
            "-o",
            self.output,
            *(["--check"] if self.check else []),
        ]


@dataclass(frozen=True, slots=True)
class ExplainRequest:
    """The counterexample of a verify report in words: the report itself (``report``, the object ``larkc verify
    --json`` writes), a file holding one (``report_path``), or a task to verify first (``verify``)."""

    report: Mapping[str, Any] | None = None
    report_path: str | None = None
    verify: VerifyRequest | None = None

    def __post_init__(self) -> None:
        given = [n for n in ("report", "report_path", "verify") if getattr(self, n) is not None]
        if len(given) != 1:
            raise LarkcError(
                "explain_counterexample: give exactly one of report (a verify JSON report), report_path (a file "
                f"holding one) or target (a task to verify); got {', '.join(given) or 'none'}",
                stage=Stage.CLI,
            )


#: A tool's request.
Request: TypeAlias = VerifyRequest | RunRequest | EmitRequest | ExplainRequest

_TOOLS: dict[str, type[VerifyRequest | RunRequest | EmitRequest]] = {
    "verify": VerifyRequest,
    "run": RunRequest,
    "emit": EmitRequest,
}


def request_to_json(request: Request) -> dict[str, Any]:
    """``request`` as a JSON object: ``{"tool": name, ...its fields}``."""
    match request:
        case VerifyRequest():
            return {"tool": "verify", **dataclasses.asdict(request)}
        case RunRequest():
            return {"tool": "run", **dataclasses.asdict(request)}
        case EmitRequest():
            return {"tool": "emit", **dataclasses.asdict(request)}
        case ExplainRequest(report=report, report_path=path, verify=verify):
            inner = request_to_json(verify) if verify is not None else None
            return {"tool": "explain_counterexample", "report": report, "report_path": path, "verify": inner}


def request_from_json(data: Mapping[str, Any]) -> Request:
    """The request :func:`request_to_json` wrote."""
    fields = {k: v for k, v in data.items() if k != "tool"}
    if "shapes" in fields:
        fields["shapes"] = tuple(fields["shapes"])
    tool = data.get("tool")
    if tool == "explain_counterexample":
        verify = fields.get("verify")
        inner = request_from_json(verify) if verify is not None else None
        assert inner is None or isinstance(inner, VerifyRequest)
        return ExplainRequest(fields.get("report"), fields.get("report_path"), inner)
    if not isinstance(tool, str) or tool not in _TOOLS:
        raise LarkcError(f"unknown tool {tool!r}", stage=Stage.CLI)
    return _TOOLS[tool](**fields)
