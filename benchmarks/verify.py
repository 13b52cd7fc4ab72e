"""Benchmark of ``larkc verify``: time per example at its task's shapes, and growth with the problem size.

    .venv/bin/python benchmarks/verify.py                   # both tables
    .venv/bin/python benchmarks/verify.py --examples-only   # the per-example table
    .venv/bin/python benchmarks/verify.py --growth-only --max-log2 14

Targets (issue 7): median <= 5 s and max <= 30 s per example on 2 cores. Times are wall-clock seconds of
``verify_task``, each example (and growth point) in a fresh forked process, with its peak resident memory
(the ``larkc`` command adds about 2 s of start-up: importing torch).
The growth table verifies one instance of softmax (online and three-pass), layer norm and a naive matmul
(K = 64) at 2^10 .. 2^16 output elements; each point has its own budget (``--budget``), and a point past it
is shown as UNKNOWN with its time.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import resource
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


def _timed_verify(
    example: str, instances: list[dict[str, int]] | None, budget: float | None
) -> tuple[str, int, float, int]:
    """``verify_task`` of one example in a forked child (a fresh process, as a ``larkc verify`` run is: no
    terms left over from earlier measurements): (verdict, instances run, seconds, peak RSS in MiB)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)

    def work() -> None:
        task = load_task(EXAMPLES / example)
        chosen = [task.shape_env({**task.instances[0], **i}) for i in instances] if instances else None
        start = time.perf_counter()
        report = verify_task(task, instances=chosen, budget=Budget(seconds=budget) if budget else None)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        child.send((report.verdict.value, len(report.instances), seconds, peak))

    proc = ctx.Process(target=work)
    proc.start()
    child.close()
    try:
        result: tuple[str, int, float, int] = parent.recv()
    except EOFError:
        result = (f"died ({proc.exitcode})", 0, float("nan"), 0)
    proc.join()
    return result


def _examples_table(names: list[str] | None) -> None:
    dirs = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
    if names:
        dirs = [d for d in dirs if d.name in names]
    times: list[float] = []
    print(f"{'example':<42} {'verdict':<9} {'seconds':>8} {'MiB':>6}  instances")
    for d in dirs:
        verdict, runs, seconds, peak = _timed_verify(d.name, None, None)
        times.append(seconds)
        print(f"{d.name:<42} {verdict:<9} {seconds:8.2f} {peak:6d}  {runs}", flush=True)
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
    print(f"\n{'kernel':<22} {'outputs':>8} {'instance':<34} {'verdict':<9} {'seconds':>8} {'MiB':>6}")
    for label, example, inst in _growth_points(max_log2):
        task = load_task(EXAMPLES / example)
        try:
            env = task.shape_env({**task.instances[0], **inst})
        except Exception as e:  # a constraint the point violates
            print(f"{label:<22} {'-':>8} {inst!s:<34} skipped: {e}")
            continue
        outs = sum(math.prod(s.concrete_shape(env)) for s in task.outputs.values())
        verdict, _, seconds, peak = _timed_verify(example, [inst], budget)
        shape = ", ".join(f"{k}={v}" for k, v in inst.items())
        print(f"{label:<22} {outs:>8} {shape:<34} {verdict:<9} {seconds:8.2f} {peak:6d}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples-only", action="store_true")
    p.add_argument("--growth-only", action="store_true")
    p.add_argument("--example", action="append", default=[], help="only these examples")
    p.add_argument("--max-log2", type=int, default=16, help="largest growth point: 2^N output elements")
    p.add_argument("--budget", type=float, default=300.0, help="seconds per obligation at a growth point")
    args = p.parse_args()
    # import everything a verification uses once, before the children fork: their times are verification
    # alone (a vector add: its terms are few and freed)
    verify_task(load_task(EXAMPLES / "vector_add"), instances=[{"n": 1}])
    if not args.growth_only:
        _examples_table(args.example or None)
    if not args.examples_only:
        _growth_table(args.max_log2, args.budget)


if __name__ == "__main__":
    main()
