"""How many candidates of larkc's KernelBench corpus ``larkc verify`` verifies, refutes or leaves unknown,
and the time per candidate (issue 11 item 5).

    .venv/bin/python benchmarks/kernelbench_corpus.py [--seconds 60] [--out benchmarks/results/kernelbench-corpus.txt]

Every ``examples/kernelbench/<problem>/`` holds ``model.py``, a correct ``model_new.py`` (and maybe other
correct ones, ``model_new_*.py``: a Triton one) and wrong or cheating ``wrong_*.py`` candidates. Each
problem's candidates go through :func:`larkc.verify_many` in this one process (batch mode, the result
cache off), with every shape instance the derivation gives. A correct candidate should be VERIFIED
(UNKNOWN is honest: the table says why), a wrong one FAILED (the table says with which failure words,
and whether a prover refuted it or, where the provers left it unknown, the simulator). Time per
candidate is wall clock on this machine, deriving the task included; the commit is the one checked out
when the run started.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "kernelbench"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="budget per obligation (default 60)")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    parser.add_argument("--only", nargs="*", default=[], help="problems to run (default: all)")
    args = parser.parse_args()

    import larkc

    rows: list[tuple[str, str, str, float, str]] = []
    git = ["git", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(git, capture_output=True, text=True, cwd=ROOT, check=False).stdout.strip()
    start = time.monotonic()
    for problem in sorted(p for p in CORPUS.iterdir() if (p / "model.py").is_file()):
        if args.only and problem.name not in args.only:
            continue
        files = [problem / "model_new.py", *sorted(problem.glob("model_new_*.py")), *sorted(problem.glob("wrong_*.py"))]
        results = larkc.verify_many(files, problem / "model.py", seconds=args.seconds, cache_dir="")
        for f, r in zip(files, results, strict=True):
            expected = "FAILED" if f.name.startswith("wrong_") else "VERIFIED"
            why = ""
            if r.status == "UNKNOWN" and r.report is not None:
                details = {o["detail"] for o in r.report["obligations"] if o["status"] == "unknown"}
                why = "; ".join(sorted(details))[:100]
            elif r.status == "ERROR":
                why = (r.error or "").splitlines()[0][:100]
            elif r.status == "FAILED":
                why = f"{', '.join(r.kinds)} (by larkc {r.refuted_by})"
            rows.append((f"{problem.name}/{f.name}", expected, r.status, r.seconds, why))
            print(f"{problem.name}/{f.name}: {r.status} ({r.seconds:.1f} s) {why}", file=sys.stderr, flush=True)
    total = time.monotonic() - start
    table = render(rows, total, args.seconds, commit)
    print(table)
    if args.out is not None:
        args.out.write_text(table + "\n", encoding="utf-8")
    return 0


def render(rows: list[tuple[str, str, str, float, str]], total: float, seconds: float, commit: str) -> str:
    out = [
        f"# larkc verify on examples/kernelbench ({datetime.date.today()}, commit {commit}, --seconds {seconds:g})",
        "",
        "| candidate | expected | larkc verify | seconds | failure kinds, or why unknown |",
        "|---|---|---|---|---|",
    ]
    out += [f"| {c} | {e} | {s} | {t:.1f} | {w} |" for c, e, s, t, w in rows]
    counts = Counter(s for _, _, s, _, _ in rows)
    right = sum(1 for _, e, s, _, _ in rows if e == s)
    correct = [r for r in rows if r[1] == "VERIFIED"]
    wrong = [r for r in rows if r[1] == "FAILED"]
    out += [
        "",
        f"{len(rows)} candidates ({len(correct)} correct, {len(wrong)} wrong): "
        + ", ".join(f"{counts[k]} {k.lower()}" for k in ("VERIFIED", "FAILED", "UNKNOWN", "ERROR") if counts[k])
        + f"; {right} as expected",
        f"correct verified: {sum(1 for r in correct if r[2] == 'VERIFIED')}/{len(correct)}; "
        f"wrong refuted: {sum(1 for r in wrong if r[2] == 'FAILED')}/{len(wrong)}",
        f"time: {total:.0f} s in all, {total / max(1, len(rows)):.1f} s per candidate on average, "
        f"median {sorted(t for _, _, _, t, _ in rows)[len(rows) // 2] if rows else 0:.1f} s",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
