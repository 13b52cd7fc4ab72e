"""What ``larkc run`` reports: per output, per shape instance, per task; each renders and serialises."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from larkc.semantics import Diagnosis, LaunchConfig

__all__ = ["InstanceReport", "OutputReport", "RunReport", "launch_json"]


@dataclass(frozen=True, slots=True)
class OutputReport:
    """How one output compares with the reference: the largest errors and the verdict."""

    name: str
    max_abs_err: float
    max_rel_err: float
    ok: bool
    worst_index: tuple[int, ...] | None = None
    unwritten: int = 0

    def render(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        extra = f", {self.unwritten} element(s) never written" if self.unwritten else ""
        return f"{self.name}: max abs err {self.max_abs_err:.3g}, max rel err {self.max_rel_err:.3g}{extra} ({verdict})"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "max_abs_err": _json_float(self.max_abs_err),
            "max_rel_err": _json_float(self.max_rel_err),
            "ok": self.ok,
            "worst_index": list(self.worst_index) if self.worst_index is not None else None,
            "unwritten": self.unwritten,
        }


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


@dataclass(frozen=True, slots=True)
class InstanceReport:
    """The result of one shape instance: diagnoses (mismatches included) and per-output errors."""

    shape: dict[str, int]
    seed: int
    launch: LaunchConfig
    diagnoses: tuple[Diagnosis, ...]
    outputs: tuple[OutputReport, ...]
    seconds: float
    replay: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.diagnoses

    def kinds(self) -> set[str]:
        return {d.kind.value for d in self.diagnoses}

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "seed": self.seed,
            "launch": launch_json(self.launch),
            "ok": self.ok,
            "diagnoses": [d.to_json() for d in self.diagnoses],
            "outputs": [o.to_json() for o in self.outputs],
            "seconds": self.seconds,
            "replay": str(self.replay) if self.replay is not None else None,
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """The result of ``larkc run`` on one task."""

    task: str
    expected_failure: str | None
    instances: tuple[InstanceReport, ...]

    @property
    def ok(self) -> bool:
        return all(i.ok for i in self.instances)

    def kinds(self) -> set[str]:
        return set().union(*(i.kinds() for i in self.instances)) if self.instances else set()

    def render(self) -> str:
        """The human-readable report: per instance a header, the diagnoses, the outputs; then a verdict."""
        lines: list[str] = []
        for inst in self.instances:
            shape = ", ".join(f"{k}={v}" for k, v in inst.shape.items()) or "(no symbols)"
            lines.append(f"== {self.task} {shape}: {inst.launch}, seed {inst.seed}")
            lines.extend(d.render() for d in inst.diagnoses)
            lines.extend(o.render() for o in inst.outputs)
            if inst.replay is not None:
                lines.append(f"replay: larkc run --replay {inst.replay}")
        n = len(self.instances)
        failed = [i for i in self.instances if not i.ok]
        if not failed:
            verdict = f"ok: {n} instance{'s' if n != 1 else ''}, no diagnosis"
            if self.expected_failure is not None:
                verdict += f"; the task expects {self.expected_failure}: NOT found"
        else:
            kinds = ", ".join(sorted(self.kinds()))
            verdict = f"FAILED: {len(failed)} of {n} instance{'s' if n != 1 else ''} ({kinds})"
            if self.expected_failure is not None:
                caught = "found" if self.expected_failure in self.kinds() else "NOT found"
                verdict += f"; the task expects {self.expected_failure}: {caught}"
        lines.append(verdict)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ok": self.ok,
            "expected_failure": self.expected_failure,
            "kinds": sorted(self.kinds()),
            "instances": [i.to_json() for i in self.instances],
        }


def launch_json(launch: LaunchConfig) -> dict[str, Any]:
    """A launch as JSON: grid, block, dynamic shared bytes."""
    return {"grid": list(launch.grid), "block": list(launch.block), "shared_bytes": launch.shared_bytes}
