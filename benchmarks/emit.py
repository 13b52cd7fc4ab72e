"""Benchmark of ``larkc emit``: time and output size per example.

    .venv/bin/python benchmarks/emit.py            # print the table
    .venv/bin/python benchmarks/emit.py --write    # also write benchmarks/results/emit-examples.txt

Each example's project is generated (``emit_task``: parse, phase form, Lean lowering, reference trace,
spec lowering, templates) in a fresh forked process; the table gives wall-clock seconds, the number of
phase definitions and the bytes of Lean written. No target is set by the issue; the numbers are here so
that a change that makes emission slow or the output explode shows up.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from larkc.errors import LarkcError  # noqa: E402
from larkc.pipeline.emit import emit_task  # noqa: E402
from larkc.tasks import load_task  # noqa: E402

EXAMPLES = ROOT / "examples" / "cuda"


def _measure(example: str) -> tuple[str, float, int, int]:
    start = time.perf_counter()
    try:
        project = emit_task(load_task(EXAMPLES / example / "task.py"))
    except LarkcError as e:
        return (f"error: {e}", time.perf_counter() - start, 0, 0)
    seconds = time.perf_counter() - start
    lean = [text for rel, text in project.files if rel.endswith(".lean")]
    phases = sum(text.count("\ndef phase") for text in lean)
    return ("ok", seconds, phases, sum(len(t.encode()) for t in lean))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write benchmarks/results/emit-examples.txt")
    args = ap.parse_args()
    names = sorted(p.parent.name for p in EXAMPLES.glob("*/task.py"))
    ctx = multiprocessing.get_context("fork")
    lines = [f"{'example':40s} {'status':8s} {'seconds':>8s} {'phases':>7s} {'Lean bytes':>11s}"]
    times = []
    for name in names:
        with ctx.Pool(1) as pool:
            status, seconds, phases, size = pool.apply(_measure, (name,))
        times.append(seconds)
        lines.append(f"{name:40s} {status[:8]:8s} {seconds:8.2f} {phases:7d} {size:11d}")
        print(lines[-1], flush=True)
    lines.append(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s over {len(times)} examples")
    print(lines[-1])
    if args.write:
        out = ROOT / "benchmarks" / "results" / "emit-examples.txt"
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
