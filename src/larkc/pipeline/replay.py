"""Replay files: the record of a failing instance (JSON: task, instance, seed, launch, diagnoses).

``larkc run`` writes one per failing instance; ``larkc run --replay FILE`` (:func:`load_replay`) runs
the instance again, after checking that the task still computes the recorded launch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from larkc.errors import TaskError
from larkc.pipeline.reports import InstanceReport, inputs_json, launch_json
from larkc.tasks import ScalarArg, Task, command_line_task, load_task

__all__ = [
    "REPLAY_VERSION",
    "Replay",
    "check_launch_matches",
    "check_launches_match",
    "default_replay_dir",
    "load_replay",
    "write_replay_file",
]

REPLAY_VERSION = 1


def default_replay_dir() -> Path:
    """Where replay files go unless told otherwise: ``<tmp>/larkc-replay``."""
    return Path(tempfile.gettempdir()) / "larkc-replay"


def _command_line_record(task: Task) -> dict[str, Any]:
    """The arguments that rebuild a command-line (reference-free) task."""
    return {
        "source": str(Path(task.source).resolve()),
        "kernel": task.kernel,
        "grid": [str(d) for d in task.grid],
        "block": [str(d) for d in task.block],
        "shared_bytes": str(task.shared_bytes),
        "buffers": [f"{n}={s}" for n, s in task.inputs.items()],
        "scalars": [f"{n}={b.value}" for n, b in task.bindings.items() if isinstance(b, ScalarArg)],
        "template_args": [
            str(a)
            for a in (task.template_args.values() if isinstance(task.template_args, Mapping) else task.template_args)
        ],
        "defines": dict(task.defines),
        "include_dirs": [str(Path(d).resolve()) for d in task.include_dirs],
    }


def write_replay_file(task: Task, rep: InstanceReport, folder: Path) -> Path:
    """Write the replay record of a failing instance; returns its path."""
    record: dict[str, Any] = {
        "larkc_replay": REPLAY_VERSION,
        "task": task.name,
        "task_file": str(task.task_file.resolve()) if task.task_file is not None else None,
        # A task of several launches is not a command-line task: it is replayed from its task file only.
        "command_line": None if task.task_file is not None or rep.launches else _command_line_record(task),
        "defines": dict(task.defines),
        "kernel": " + ".join(x.kernel for x in task.launches),
        "instance": rep.shape,
        "seed": rep.seed,
        "distribution": rep.distribution,
        "launch": launch_json(rep.launch),
        "diagnoses": [d.to_json() for d in rep.diagnoses],
    }
    if rep.launches:
        record["launches"] = [launch_json(x) for x in rep.launches]
    if rep.inputs:
        record["inputs"] = inputs_json(rep.inputs)
    if rep.config:
        record["config"] = rep.config  # the autotune configuration that failed (a replay runs every one)
        record["config_values"] = [dict(c) for c in rep.config_values]  # what its launch was computed with
    folder.mkdir(parents=True, exist_ok=True)
    shape = "-".join(f"{k}{v}" for k, v in rep.shape.items()) or "launch"
    # Tasks of one name (two command-line tasks of one kernel file, task files in different folders) get
    # different files: the name ends in a hash of what identifies the task and the run.
    identity = {k: record[k] for k in ("task_file", "command_line", "defines", "kernel", "instance", "seed")}
    if rep.distribution != "normal":
        identity["distribution"] = rep.distribution
    identity["inputs"] = record.get("inputs")
    if rep.config:
        identity["config"] = rep.config
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:10]
    inputs = "" if rep.distribution == "normal" else f"-{rep.distribution}"
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{task.name}-{shape}-seed{rep.seed}{inputs}-{digest}")
    path = folder / f"{safe}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True, slots=True)
class Replay:
    """What a replay file records: the task, the shape instance, the seed and distribution of the random
    inputs, and the input elements set to explicit values over them (a counterexample's witness)."""

    task: Task
    instance: dict[str, int]
    seed: int
    inputs: dict[str, dict[int, float]]
    distribution: str = "normal"


def load_replay(path: Path) -> Replay:
    """The replay recorded in a replay file (checked against the task's current launch)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TaskError(f"cannot read replay file {path}: {e}") from None
    if not isinstance(record, dict) or record.get("larkc_replay") != REPLAY_VERSION:
        raise TaskError(f"{path} is not a larkc replay file (version {REPLAY_VERSION})")
    try:
        if record.get("task_file"):
            task = load_task(record["task_file"])
            if record.get("defines"):
                task = dataclasses.replace(task, defines={**task.defines, **record["defines"]})
        elif record.get("command_line") is None:
            raise TaskError(f"replay file {path} records a task without a task file: it cannot be loaded again")
        else:
            cl = record["command_line"]
            task = command_line_task(
                cl["source"], cl["kernel"], grid=cl["grid"], block=cl["block"], buffers=cl["buffers"],
                scalars=cl["scalars"], shared_bytes=cl["shared_bytes"], template_args=cl["template_args"],
                defines=cl["defines"], include_dirs=cl.get("include_dirs", []),
            )  # fmt: skip
        instance = {str(k): int(v) for k, v in record["instance"].items()}
        seed = int(record["seed"])
        distribution = str(record.get("distribution", "normal"))
        inputs = {str(t): {int(i): float(v) for i, v in vals.items()} for t, vals in record.get("inputs", {}).items()}
    except (KeyError, TypeError, ValueError) as e:
        raise TaskError(f"malformed replay file {path}: {e}") from None
    # The recorded launch was computed with the failing autotune configuration's constexprs (a Triton grid
    # may name them); the replay itself runs every configuration.
    values = record.get("config_values") or [{} for _ in task.launches]
    try:
        checked = task.with_launch_constants(values)
    except (TypeError, AttributeError) as e:
        raise TaskError(f"malformed replay file {path}: {e}") from None
    if record.get("launches") is not None or len(task.launches) > 1:
        check_launches_match(checked, instance, record.get("launches"))
    else:
        check_launch_matches(checked, instance, record.get("launch"))
    return Replay(task, instance, seed, inputs, distribution)


def check_launch_matches(task: Task, instance: Mapping[str, int], recorded: Mapping[str, Any] | None) -> None:
    """Raise if the task now computes another launch than the replay file recorded."""
    if recorded is None:
        return
    grid, block, shared = task.launch_task(0).launch.concrete(task.shape_env(instance))  # PyTorch steps aside
    now = {"grid": list(grid), "block": list(block), "shared_bytes": shared}
    if now != recorded:
        raise TaskError(f"the task now launches {now}, the replay file recorded {recorded}: it has changed")


def check_launches_match(task: Task, instance: Mapping[str, int], recorded: Sequence[Mapping[str, Any]] | None) -> None:
    """Raise if a task of several launches now computes other launches than the replay file recorded."""
    env = task.shape_env(instance)
    now = []
    for k in range(len(task.launches)):
        grid, block, shared = task.launch_task(k).launch.concrete(env)
        now.append({"grid": list(grid), "block": list(block), "shared_bytes": shared})
    if recorded is None or now != list(recorded):
        raise TaskError(f"the task now launches {now}, the replay file recorded {recorded}: it has changed")
