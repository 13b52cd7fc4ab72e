#!/usr/bin/env python3
"""Mutation test of ``larkc verify``'s soundness: verify mutants of the example kernels, check every proof.

For every correct example (no ``_bug_`` in its name) this script enumerates mutants of the kernel's IR
(``tests/mutation/mutate.py``: twelve kinds, from off-by-one guards to moved epsilons), verifies each on
the example's smallest instances where the original verifies, and checks the proofs against the
simulator (``tests/mutation/mutation_check.py``): a VERIFIED mutant must behave like the original on
several seeds and adversarial inputs, and no PROVED obligation may be contradicted by a simulated run.
Each mutant runs in a forked child with a time limit; one JSON line per mutant is appended to the
results file as soon as it is known, so an interrupted run resumes where it stopped.

Usage (from the repository root, with the project's virtual environment active)::

    nice python scripts/mutants.py                                   # every example, every mutant
    nice python scripts/mutants.py --examples vector_add,layer_norm --limit 20
    python scripts/mutants.py --summary                              # tables for docs/mutation.md
    python scripts/mutants.py --summary --out benchmarks/results/mutation.jsonl.gz   # the recorded run

Options: ``--examples A,B`` (default: every correct example), ``--limit N`` mutants per example (a
kind-balanced sample drawn with ``--seed``; default: all), ``--kinds K1,K2``, ``--out FILE`` (default
``benchmarks/results/mutation.jsonl``), ``--timeout S`` per mutant (default 240), ``--seconds S`` the
prover budget per obligation (default 8), ``--quick`` (compare VERIFIED mutants on seed 0 only),
``--redo C1,C2`` (run the mutants classified so again, e.g. ``timeout``), ``--revision`` (the
commit to record when the run is not made from a git checkout), ``--recheck`` (verify the ``equivalent``
and ``float-overflow`` mutants of ``--out`` again at every shape instance of their task, as ``larkc
verify`` does by default; use ``--seconds 60``).

Exit status: 0 when no soundness bug is in the results file, 1 otherwise.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "mutation"))

import torch  # noqa: E402
from mutate import Mutant, MutationKind, enumerate_mutants, kernel_of, sample_mutants  # noqa: E402
from mutation_check import BUDGET, Subject, check_mutant, load_subject  # noqa: E402

from larkc import load_task  # noqa: E402
from larkc.provers import Budget  # noqa: E402

EXAMPLES = ROOT / "examples" / "cuda"
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "mutation.jsonl"
CLASSES = ("killed", "unknown", "equivalent", "float-overflow", "error", "timeout", "soundness-bug")


def revision() -> str:
    """The larkc commit the results are for (``+dirty`` when ``src/`` has uncommitted changes)."""
    git = ["git", "-C", str(ROOT)]
    try:
        head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        dirty = subprocess.run([*git, "status", "--porcelain", "src"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def correct_examples() -> list[str]:
    return sorted(p.name for p in EXAMPLES.iterdir() if (p / "task.py").is_file() and "_bug_" not in p.name)


def done_keys(out: Path, record: str = "mutant") -> set[tuple[str, str]]:
    """The ``(example, key)`` of the rows of kind ``record`` already in ``out``."""
    return {(r["example"], r["key"]) for r in _records(out, record)}


def drop(out: Path, classes: set[str]) -> int:
    """Remove the mutant rows of ``classes`` from ``out`` (so that they run again); how many."""
    if not out.exists() or not classes:
        return 0
    lines = out.read_text().splitlines()
    kept = [x for x in lines if json.loads(x).get("classification") not in classes]
    out.write_text("".join(x + "\n" for x in kept))
    return len(lines) - len(kept)


def append(out: Path, row: dict[str, Any]) -> None:
    with out.open("a") as f:
        f.write(json.dumps(row) + "\n")


def _child(conn: Connection, subject: Subject, mutant: Mutant, budget: Budget, full: bool) -> None:
    conn.send(check_mutant(subject, mutant, budget, full).to_json())
    conn.close()


def run_one(subject: Subject, mutant: Mutant, budget: Budget, full: bool, timeout: float) -> dict[str, Any]:
    """``check_mutant`` in a forked child: a mutant that hangs or exhausts memory cannot stop the run."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    proc = ctx.Process(target=_child, args=(child, subject, mutant, budget, full))
    proc.start()
    child.close()
    row: dict[str, Any] | None = None
    try:
        if parent.poll(timeout):
            row = parent.recv()
    except EOFError:
        row = None
    if proc.is_alive():
        proc.kill()
    proc.join()
    if row is None:
        what = "timeout" if time.perf_counter() - t0 >= timeout else "error"
        row = {
            "example": subject.name,
            "key": mutant.key,
            "kind": mutant.kind.value,
            "function": mutant.function,
            "path": ".".join(str(p) for p in mutant.path),
            "description": mutant.description,
            "instances": [dict(i) for i in subject.instances],
            "verdict": what,
            "classification": what,
            "error": f"no result after {time.perf_counter() - t0:.0f} s (exit code {proc.exitcode})",
            "seconds": time.perf_counter() - t0,
        }
    row["record"] = "mutant"
    return row


def run(args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.redo:
        print(f"{drop(out, set(args.redo.split(',')))} result(s) dropped to run again", flush=True)
    done = done_keys(out) | done_keys(out, "subject")  # a resumed run writes no second subject row
    kinds = [MutationKind(k) for k in args.kinds.split(",")] if args.kinds else None
    budget = Budget(seconds=args.seconds, solver_rlimit=BUDGET.solver_rlimit)
    names = args.examples.split(",") if args.examples else correct_examples()
    for name in names:
        t0 = time.perf_counter()
        subject = load_subject(EXAMPLES / name, budget=budget)
        mutants = enumerate_mutants(subject.module, kernel_of(subject.module, subject.task.kernel).name, kinds)
        chosen = sample_mutants(mutants, args.limit, args.seed) if args.limit else mutants
        todo = [m for m in chosen if (name, m.key) not in done]
        print(
            f"== {name}: {len(mutants)} mutants, {len(chosen)} chosen, {len(todo)} to run; instances "
            f"{list(subject.instances)} ({time.perf_counter() - t0:.1f} s)",
            flush=True,
        )
        if (name, "subject") not in done:
            append(
                out,
                {
                    "record": "subject",
                    "example": name,
                    "key": "subject",
                    "instances": list(subject.instances),
                    "baseline": [[i, v] for i, v in subject.baseline],
                    "mutants": len(mutants),
                    "by_kind": dict(Counter(m.kind.value for m in mutants)),
                    "revision": args.revision or revision(),
                },
            )
        for m in todo:
            row = run_one(subject, m, budget, not args.quick, args.timeout)
            append(out, row)
            flag = "  <-- SOUNDNESS BUG" if row["classification"] == "soundness-bug" else ""
            print(f"  {row['seconds']:6.1f}s {row['classification']:13s} {m.key}{flag}", flush=True)


def recheck(args: argparse.Namespace) -> None:
    """Verify every ``equivalent`` or ``float-overflow`` mutant of ``--out`` again, on every shape instance
    of its task (what ``larkc verify`` does by default) with the ``--seconds`` budget, and check its proofs
    as before; one ``recheck`` row per mutant is appended to ``--out``."""
    torch.set_num_threads(1)
    out: Path = args.out
    _, rows = rows_of(out)
    done = done_keys(out, "recheck")
    todo: dict[str, list[str]] = {}
    for r in rows:
        if r["classification"] in ("equivalent", "float-overflow") and (r["example"], r["key"]) not in done:
            todo.setdefault(r["example"], []).append(r["key"])
    names = set(args.examples.split(",")) if args.examples else None
    budget = Budget(seconds=args.seconds, solver_rlimit=BUDGET.solver_rlimit)
    for name, keys in todo.items():
        if names is not None and name not in names:
            continue
        task = load_task(EXAMPLES / name)
        subject = load_subject(EXAMPLES / name, instances=[dict(i) for i in task.instances])
        by_key = {m.key: m for m in enumerate_mutants(subject.module, kernel_of(subject.module, task.kernel).name)}
        print(f"== {name}: {len(keys)} mutants on {len(subject.instances)} instances", flush=True)
        for key in keys:
            row = run_one(subject, by_key[key], budget, not args.quick, args.timeout)
            row["record"] = "recheck"
            append(out, row)
            flag = "  <-- SOUNDNESS BUG" if row["classification"] == "soundness-bug" else ""
            print(f"  {row['seconds']:6.1f}s {row['classification']:13s} {key}{flag}", flush=True)


# --------------------------------------------------------------------------------------------------
# The summary


def _records(out: Path, record: str) -> list[dict[str, Any]]:
    if not out.exists():
        return []
    text = gzip.decompress(out.read_bytes()).decode() if out.suffix == ".gz" else out.read_text()
    return [r for r in (json.loads(line) for line in text.splitlines() if line.strip()) if r.get("record") == record]


def rows_of(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    return _records(out, "subject"), _records(out, "mutant")


def table(header: list[str], rows: Iterable[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def summary(out: Path) -> tuple[str, int]:
    subjects, mutants = rows_of(out)
    parts: list[str] = []
    per_kind: dict[str, Counter[str]] = {k.value: Counter() for k in MutationKind}
    for r in mutants:
        per_kind[r["kind"]][r["classification"]] += 1
    total: Counter[str] = Counter(r["classification"] for r in mutants)
    parts.append(f"{len(mutants)} mutants of {len(subjects)} examples.\n")
    parts.append(
        table(
            ["kind", "mutants", *CLASSES],
            [[k, sum(c.values()), *(c[x] for x in CLASSES)] for k, c in per_kind.items()]
            + [["**all**", len(mutants), *(total[x] for x in CLASSES)]],
        )
    )
    per_example: dict[str, Counter[str]] = {s["example"]: Counter() for s in subjects}
    for r in mutants:
        per_example.setdefault(r["example"], Counter())[r["classification"]] += 1
    inst = {
        s["example"]: "; ".join(", ".join(f"{k}={v}" for k, v in i.items()) for i in s["instances"]) for s in subjects
    }
    parts.append(
        "\n"
        + table(
            ["example", "instances", "mutants", *CLASSES],
            [[e, inst.get(e, ""), sum(c.values()), *(c[x] for x in CLASSES)] for e, c in per_example.items()],
        )
    )
    rechecked = _records(out, "recheck")
    bugs = [r for r in mutants + rechecked if r["classification"] == "soundness-bug"]
    parts.append(f"\n### Soundness bugs ({len(bugs)})\n")
    for r in bugs:
        evidence = (r.get("contradicted") or []) + (r.get("differences") or [])
        parts.append(f"* `{r['example']}` `{r['key']}` ({r['verdict']}): " + "; ".join(evidence[:3]))
    eq = [r for r in mutants if r["classification"] == "equivalent"]
    parts.append(f"\n### Equivalent VERIFIED mutants ({len(eq)})\n")
    parts.append(
        table(
            ["example", "kind", "where", "mutation", "runs compared"],
            [
                [r["example"], r["kind"], f"`{r['function']}` {r['path']}", r["description"], r["runs_compared"]]
                for r in eq
            ],
        )
    )
    over = [r for r in mutants if r["classification"] == "float-overflow"]
    parts.append(f"\n### VERIFIED mutants that overflow where the original does not ({len(over)})\n")
    parts.append(
        table(
            ["example", "kind", "where", "mutation", "evidence"],
            [
                [
                    r["example"],
                    r["kind"],
                    f"`{r['function']}` {r['path']}",
                    r["description"],
                    (r.get("overflow") or [""])[0],
                ]
                for r in over
            ],
        )
    )
    if rechecked:
        again: Counter[str] = Counter(r["classification"] for r in rechecked)
        parts.append(
            f"\n### Equivalent and float-overflow mutants verified again at every instance of the task "
            f"({len(rechecked)})\n"
        )
        parts.append(table(list(CLASSES), [[again[x] for x in CLASSES]]))
        killed = [r for r in rechecked if r["classification"] != "equivalent"]
        parts.append("")
        parts.append(
            table(
                ["example", "mutation", "at every instance", "why"],
                [
                    [
                        r["example"],
                        f"`{r['function']}` {r['path']}: {r['description']}",
                        r["classification"],
                        (r.get("refuted") or r.get("overflow") or [r.get("error") or r["verdict"]])[0][:160],
                    ]
                    for r in killed
                ],
            )
        )
    errors = [r for r in mutants if r["classification"] in ("error", "timeout")]
    parts.append(f"\n### Errors and timeouts ({len(errors)})\n")
    by_error = Counter(r.get("error") or "" for r in errors)
    parts.append(table(["count", "error"], [[n, f"`{e[:160]}`"] for e, n in by_error.most_common()]))
    return "\n".join(parts) + "\n", len(bugs)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--examples", default="", help="comma-separated example names (default: every correct example)")
    p.add_argument("--limit", type=int, default=0, help="mutants per example, a kind-balanced sample (0: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample")
    p.add_argument("--kinds", default="", help="comma-separated mutation kinds (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSON Lines results file (appended to)")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per mutant before it is killed")
    p.add_argument("--seconds", type=float, default=BUDGET.seconds, help="prover budget per obligation")
    p.add_argument("--quick", action="store_true", help="compare VERIFIED mutants on seed 0 only")
    p.add_argument("--redo", default="", help="comma-separated classifications to run again (e.g. error,timeout)")
    p.add_argument("--revision", default="", help="the larkc commit to record (default: git rev-parse HEAD)")
    p.add_argument("--summary", action="store_true", help="print the Markdown summary of --out and exit")
    p.add_argument(
        "--recheck",
        action="store_true",
        help="verify the equivalent and float-overflow mutants of --out again at every instance of their task",
    )
    args = p.parse_args()
    if args.recheck:
        recheck(args)
    elif not args.summary:
        run(args)
    text, bugs = summary(args.out)
    if args.summary:
        print(text)
    else:
        print(f"{bugs} soundness bug(s); summary: python scripts/mutants.py --summary --out {args.out}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
