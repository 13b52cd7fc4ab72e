#!/usr/bin/env python3
"""Simulation wall time of every example at its default shapes, and of a 1M-element elementwise kernel.

Usage (from the repository root, with the project's virtual environment active)::

    python benchmarks/simulate.py                 # every example under examples/cuda/
    python benchmarks/simulate.py examples/cuda/softmax_online --repeat 3
    python benchmarks/simulate.py --json

For each example it prints, per shape instance of its task, the wall time of the simulation alone
(building inputs, the reference and the comparison are not counted) and the total per example; then
the time to simulate ``vector_add`` on 2^20 elements. Targets (issue 3): every example under 2 s in
total on a 2-core machine, the 1M-element elementwise kernel under 5 s. The exit status is 1 when a
target is missed, so the script can guard performance in CI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from larkc.frontends import parse_task
from larkc.pipeline.run import run_instance
from larkc.tasks import load_task

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "cuda"

EXAMPLE_TARGET_S = 2.0
ELEMENTWISE_TARGET_S = 5.0
ELEMENTWISE_SIZE = 1 << 20


def bench_example(folder: Path, repeat: int) -> list[tuple[str, float, str]]:
    """``(instance, best simulation seconds, verdict)`` for each instance of the example's task."""
    task = load_task(folder)
    module = parse_task(task)
    rows = []
    for inst in task.instances:
        best = float("inf")
        verdict = ""
        for _ in range(repeat):
            report, result = run_instance(task, module, inst, seed=0)
            best = min(best, result.seconds)
            verdict = "ok" if report.ok else ",".join(sorted(report.kinds()))
        shape = ", ".join(f"{k}={v}" for k, v in inst.items()) or "-"
        rows.append((shape, best, verdict))
    return rows


def bench_elementwise(repeat: int) -> float:
    task = load_task(EXAMPLES / "vector_add")
    module = parse_task(task)
    best = float("inf")
    for _ in range(repeat):
        _, result = run_instance(task, module, {"n": ELEMENTWISE_SIZE}, seed=0)
        best = min(best, result.seconds)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Simulation wall time per example.")
    ap.add_argument("examples", nargs="*", help="example folders (default: every examples/cuda/*/)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per instance; the best time is kept")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ap.add_argument("--no-elementwise", action="store_true", help="skip the 1M-element run")
    args = ap.parse_args(argv)

    folders = [Path(p) for p in args.examples] or sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
    results: list[dict[str, object]] = []
    missed = []
    for folder in folders:
        rows = bench_example(folder, args.repeat)
        total = sum(s for _, s, _ in rows)
        results.append({"example": folder.name, "instances": rows, "total_s": total})
        if total >= EXAMPLE_TARGET_S:
            missed.append(f"{folder.name} ({total:.2f} s)")
    elementwise = None if args.no_elementwise else bench_elementwise(args.repeat)
    if elementwise is not None and elementwise >= ELEMENTWISE_TARGET_S:
        missed.append(f"elementwise 1M ({elementwise:.2f} s)")

    if args.json:
        print(json.dumps({"examples": results, "elementwise_1m_s": elementwise, "missed": missed}, indent=2))
    else:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
        print(f"{'example':38s} {'instance':44s} {'sim s':>8s}  verdict")
        for r in results:
            instances = r["instances"]
            assert isinstance(instances, list)
            for shape, seconds, verdict in instances:
                print(f"{r['example']!s:38s} {shape:44s} {seconds:8.3f}  {verdict}")
            print(f"{'':38s} {'total':44s} {r['total_s']:8.3f}")
        if elementwise is not None:
            print(f"{'vector_add':38s} {'n=' + str(ELEMENTWISE_SIZE):44s} {elementwise:8.3f}  (target < 5 s)")
        print("targets met" if not missed else "targets MISSED: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
