"""A verify report's counterexample in words, for an agent that reads text (the ``explain_counterexample`` tool).

It reads the JSON report ``larkc verify --json`` writes (docs/verify.md, "The JSON report"), so that a report
kept from an earlier run explains as well as a fresh one, and says what ``larkc verify`` says of the refutation
its verdict shows first: the instance and launch, the inputs that matter, the differing element with the
kernel's and the reference's values, where in the source, and how it was established. The launch coordinates
(block and thread, or Triton program) come from the counterexample's own message where it names them (an
out-of-bounds access, a race), else from the simulator's replay of it (``larkc run --replay``: which thread
last wrote the differing element), passed in as the run report's JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from larkc.errors import LarkcError, Stage
from larkc.pipeline.reports import EVIDENCE
from larkc.provers import ObligationKind

__all__ = ["Explanation", "check_report", "explain", "replay_of"]

#: ``block (x,y,z) thread (x,y,z)`` (CUDA) or ``program (x,y,z)`` (Triton) in a message.
_COORDINATES = re.compile(
    r"\b(?P<unit>block|program) \((?P<b>\d+), ?(\d+), ?(\d+)\)(?: thread \((?P<t>\d+), ?(\d+), ?(\d+)\))?"
)


@dataclass(frozen=True, slots=True)
class Explanation:
    """The explanation of one report. ``obligation`` and ``counterexample`` (the report's own JSON object) are
    those of the refutation the verdict shows first (``None`` unless FAILED with one); ``coordinates`` the launch
    coordinates (``{"block": [x, y, z], "thread": [x, y, z], "source": ...}``, ``{"program": ...}`` for Triton;
    ``None`` where neither the counterexample nor the replay names them); ``simulator`` the replay's diagnosis
    (the run report's JSON object) that reproduces it; ``lines`` all of it in words."""

    verdict: str
    headline: str
    obligation: str | None
    counterexample: Mapping[str, Any] | None
    coordinates: Mapping[str, Any] | None
    simulator: Mapping[str, Any] | None
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "headline": self.headline,
            "obligation": self.obligation,
            "counterexample": self.counterexample,
            "coordinates": self.coordinates,
            "simulator": self.simulator,
            "explanation": list(self.lines),
        }


def check_report(report: object, origin: str) -> Mapping[str, Any]:
    """``report`` if it is a verify JSON report (a verdict, a headline and obligations), else a located error
    naming ``origin`` (where it came from)."""
    if (
        not isinstance(report, Mapping)
        or report.get("verdict") not in ("VERIFIED", "FAILED", "UNKNOWN")
        or not isinstance(report.get("headline"), str)
        or not isinstance(report.get("obligations"), list)
        or not all(isinstance(o, Mapping) for o in report["obligations"])
    ):
        raise LarkcError(
            f"{origin}: not a larkc verify JSON report (an object with verdict, headline and obligations, as "
            "`larkc verify --json` writes)",
            stage=Stage.CLI,
        )
    return report


def _root_cause(report: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The refuted obligation the verdict's headline shows (``FAILED: <obligation>: ...``), else the first."""
    refuted = [o for o in report["obligations"] if o.get("status") == "refuted" and o.get("counterexample")]
    shown: list[Mapping[str, Any]] = [
        o for o in refuted if str(report["headline"]).startswith(f"FAILED: {o.get('obligation')}: ")
    ]
    return (shown or refuted or [None])[0]


def replay_of(report: Mapping[str, Any]) -> str | None:
    """The replay file of the counterexample :func:`explain` shows, if it has one."""
    first = _root_cause(report)
    replay = first["counterexample"].get("replay") if first is not None else None
    return replay if isinstance(replay, str) else None


def _value(v: object) -> str:
    return f"{v:.9g}" if isinstance(v, float) else str(v)


def _shape(env: object) -> str:
    if not isinstance(env, Mapping):
        return "?"
    return ", ".join(f"{k}={v}" for k, v in env.items()) or "no symbols"


def _coordinates(text: str, source: str) -> dict[str, Any] | None:
    m = _COORDINATES.search(text)
    if m is None:
        return None
    first = [int(m.group(i)) for i in (2, 3, 4)]
    if m["unit"] == "program":
        return {"program": first, "source": source}
    thread = [int(m.group(i)) for i in (5, 6, 7)] if m["t"] is not None else None
    return {"block": first, "thread": thread, "source": source}


def _coordinates_text(c: Mapping[str, Any]) -> str:
    if "program" in c:
        return "program ({},{},{})".format(*c["program"])
    block = "block ({},{},{})".format(*c["block"])
    return f"{block} thread ({','.join(map(str, c['thread']))})" if c.get("thread") else block


def _diagnosis(run_report: Mapping[str, Any] | None, word: str) -> Mapping[str, Any] | None:
    """The replay's first diagnosis of the kind ``word`` (``mismatch``, ``oob``, ...)."""
    if run_report is None:
        return None
    for instance in run_report.get("instances", ()):
        for d in instance.get("diagnoses", ()):
            if d.get("kind") == word:
                return dict(d)
    return None


def explain(report: Mapping[str, Any], replayed: Mapping[str, Any] | None = None) -> Explanation:
    """The explanation of ``report`` (checked by :func:`check_report`); ``replayed`` is the JSON of ``larkc run
    --replay`` on its counterexample's replay file, where one was run."""
    verdict, headline = str(report["verdict"]), str(report["headline"])
    lines = [headline]
    if verdict == "VERIFIED":
        scope = report.get("verified_scope")
        lines.append(f"no counterexample: every obligation is proved ({scope})")
        if scope == "bounded":
            lines.append("  bounded: some obligations hold only at the shape instances run (see the headline)")
        return Explanation(verdict, headline, None, None, None, None, tuple(lines))
    if verdict == "UNKNOWN":
        lines.append("no counterexample: nothing was refuted; these obligations are open:")
        for o in report["obligations"]:
            if o.get("status") == "unknown":
                lines.append(f"  {o.get('obligation')}: {o.get('detail')}")
                for w in o.get("witnesses") or ():
                    lines.append(
                        f"    possible at {_shape(w.get('instance'))} ({w.get('launch')}): {w.get('message')} "
                        "(a solver's model, not confirmed: not a refutation)"
                    )
        return Explanation(verdict, headline, None, None, None, None, tuple(lines))
    first = _root_cause(report)
    if first is None:  # FAILED by the task's findings, with no refuted obligation
        lines.extend(f"finding: {f}" for f in report.get("findings") or ())
        return Explanation(verdict, headline, None, None, None, None, tuple(lines))
    cx: Mapping[str, Any] = first["counterexample"]
    name = str(first.get("obligation"))
    evidence = EVIDENCE.get(str(cx.get("kind")), str(cx.get("kind")))
    lines.append(f"refuted: {name} ({evidence})")
    if cx.get("instance") or cx.get("launch"):
        lines.append(f"instance: {_shape(cx.get('instance'))} ({cx.get('launch')})")
    for tensor, values in (cx.get("inputs") or {}).items():
        shown = ", ".join(f"{tensor}[{i}]={_value(v)}" for i, v in list(values.items())[:8])
        more = f" (+{len(values) - 8} more)" if len(values) > 8 else ""
        lines.append(f"inputs: {shown}{more}")
    element = cx.get("element")
    if cx.get("tensor") and element is not None:
        at = f"{cx['tensor']}[{', '.join(map(str, element))}]"
        kernel, reference = cx.get("kernel_value"), cx.get("reference_value")
        if first.get("kind") == ObligationKind.INPUTS.value:  # the element's value after and before the launch
            values = [f"input changed by the kernel from {_value(reference)} to {_value(kernel)}"]
        else:  # a value is missing where there is none (an element never written)
            values = [f"the kernel gives {_value(kernel)}"] if kernel is not None else []
            values += [f"the reference {_value(reference)}"] if reference is not None else []
        lines.append(f"element: {at}" + (f": {', '.join(values)}" if values else ""))
    if cx.get("location"):
        lines.append(f"at: {cx['location']}")
    kind = first.get("kind")
    word = ObligationKind(kind).failure_kind if kind in {k.value for k in ObligationKind} else ""
    simulator = _diagnosis(replayed, word)
    coordinates = _coordinates(str(cx.get("message", "")), "counterexample")
    if coordinates is None and simulator is not None:
        coordinates = _coordinates(str(simulator.get("message", "")), "replay")
        if coordinates is None and simulator.get("block") is not None:
            coordinates = {"block": simulator["block"], "thread": simulator.get("thread"), "source": "replay"}
    if coordinates is not None:
        via = "" if coordinates["source"] == "counterexample" else " (the simulator's replay)"
        lines.append(f"launch coordinates: {_coordinates_text(coordinates)}{via}")
    if simulator is not None:
        loc = f"{simulator['location']}: " if simulator.get("location") else ""
        lines.append(f"simulator: {simulator.get('kind')}: {loc}{simulator.get('message')}")
    elif replayed is not None:
        lines.append(f"simulator: the replay did not report {word or 'it'} (the refutation is of the exact claim)")
    if cx.get("replay"):
        lines.append(f"replay: larkc run --replay {cx['replay']}")
    also: Sequence[Mapping[str, Any]] = [
        o for o in report["obligations"] if o.get("status") == "refuted" and o is not first
    ]
    lines.extend(f"also refuted: {o.get('obligation')}" for o in also)
    return Explanation(verdict, headline, name, cx, coordinates, simulator, tuple(lines))
