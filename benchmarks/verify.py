"""Benchmark of ``larkc verify``: time per example at its task's shapes, and growth with the problem size.

    .venv/bin/python benchmarks/verify.py                   # both tables
    .venv/bin/python benchmarks/verify.py --examples-only   # the per-example table
    .venv/bin/python benchmarks/verify.py --growth-only --max-log2 14

Targets (issue 7): median <= 5 s and max <= 30 s per example on 2 cores. Times are wall-clock seconds of
``verify_task`` in one process (the ``larkc`` command adds about 2 s of start-up: importing torch).
The growth table verifies one instance of softmax (online and three-pass), layer norm and a naive matmul
(K = 64) at 2^10 .. 2^16 output elements; each point has its own budget (``--budget``), and a point past it
is shown as UNKNOWN with its time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from larkc.pipeline.verify import verify_task  # noqa: E402
from larkc.provers import Budget  # noqa: E402
from larkc.tasks import load_task  # noqa: E402

EXAMPLES = ROOT / "examples" / "cuda"


def _examples_table(names: list[str] | None) -> None:
    dirs = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
    if names:
        dirs = [d for d in dirs if d.name in names]
    times: list[float] = []
    print(f"{'example':<42} {'verdict':<9} {'seconds':>8}  instances")
    for d in dirs:
        task = load_task(d)
        start = time.perf_counter()
        report = verify_task(task)
        seconds = time.perf_counter() - start
        times.append(seconds)
        print(f"{d.name:<42} {report.verdict.value:<9} {seconds:8.2f}  {len(report.instances)}", flush=True)
    if times:
        print(f"\nmedian {statistics.median(times):.2f} s, max {max(times):.2f} s over {len(times)} examples")
        print("targets: median <= 5 s, max <= 30 s")


def _growth_points(max_log2: int) -> list[tuple[str, str, dict[str, int]]]:
    """(label, example, instance) for 2^10 .. 2^max_log2 output elements."""
    points: list[tuple[str, str, dict[str, int]]] = []
    for k in range(10, max_log2 + 1, 2):
        n = 1 << k
        points.append(("softmax_three_pass", "softmax_three_pass", {"rows": 4, "d": n // 4}))
        points.append(("softmax_online", "softmax_online", {"rows": 4, "d": n // 4}))
        points.append(("layer_norm", "layer_norm", {"rows": 4, "d": n // 4}))
        side = 1 << (k // 2)
        points.append(("matmul_naive (K=64)", "matmul_naive", {"M": side, "N": n // side, "K": 64}))
    return points


def _growth_table(max_log2: int, budget: float) -> None:
    print(f"\n{'kernel':<22} {'outputs':>8} {'instance':<34} {'verdict':<9} {'seconds':>8}")
    for label, example, inst in _growth_points(max_log2):
        task = load_task(EXAMPLES / example)
        try:
            env = task.shape_env({**task.instances[0], **inst})
        except Exception as e:  # a constraint the point violates
            print(f"{label:<22} {'-':>8} {inst!s:<34} skipped: {e}")
            continue
        outs = sum(int(__import__("math").prod(s.concrete_shape(env))) for s in task.outputs.values())
        start = time.perf_counter()
        report = verify_task(task, instances=[env], budget=Budget(seconds=budget))
        seconds = time.perf_counter() - start
        shape = ", ".join(f"{k}={v}" for k, v in inst.items())
        print(f"{label:<22} {outs:>8} {shape:<34} {report.verdict.value:<9} {seconds:8.2f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples-only", action="store_true")
    p.add_argument("--growth-only", action="store_true")
    p.add_argument("--example", action="append", default=[], help="only these examples")
    p.add_argument("--max-log2", type=int, default=16, help="largest growth point: 2^N output elements")
    p.add_argument("--budget", type=float, default=300.0, help="seconds per obligation at a growth point")
    args = p.parse_args()
    if not args.growth_only:
        _examples_table(args.example or None)
    if not args.examples_only:
        _growth_table(args.max_log2, args.budget)


if __name__ == "__main__":
    main()
