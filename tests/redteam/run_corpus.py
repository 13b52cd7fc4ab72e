"""Run the red-team corpus: one line per case, or the table of docs/redteam.md with ``--markdown``.

    PYTHONPATH=src python tests/redteam/run_corpus.py [--witness] [--markdown] [--json FILE] [PREFIX ...]

Without ``--witness`` each case is verified on its task's instances; with it, each wrong case on its
witness alone; ``--markdown`` does both and prints the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import Judgement, Outcome, at_witness, judge
from manifest import CASES, Case, Expect


def _line(j: Judgement) -> str:
    c = j.case
    return f"{c.name:38} {c.expect.value:8} {j.verdict[:32]:32} {j.outcome.value:14} {j.seconds:6.1f}s  {j.why}"


def _row(case: Case, task: Judgement, witness: Judgement | None) -> str:
    lang = "CUDA" if case.name.startswith("cu_") else "Triton"
    if case.expect is Expect.WRONG:
        expected = f"wrong: {', '.join(case.violates)} at `{case.manifests}`"
    else:
        expected = "correct: not FAILED"
    cells = [task.verdict.split(":")[0] + _mark(task)]
    cells.append(witness.verdict.split(":")[0] + _mark(witness) if witness else "")
    unsound = [j for j in (task, witness) if j is not None and j.outcome is not Outcome.SOUND]
    klass = ""
    if unsound:
        klass = f"{case.issue}" if case.issue is not None else "?"
    return f"| `{case.name}` | {lang} | {expected} | {cells[0]} | {cells[1]} | {klass} |"


def _mark(j: Judgement) -> str:
    return "" if j.outcome is Outcome.SOUND else f" (**{j.outcome.value}**)"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", nargs="*")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--witness", action="store_true", help="verify each wrong case at its witness alone")
    ap.add_argument("--markdown", action="store_true", help="both passes, as the table of docs/redteam.md")
    args = ap.parse_args()
    rows: list[dict[str, object]] = []
    table: list[str] = []
    bad = 0
    for case in CASES:
        if args.prefix and not any(case.name.startswith(p) for p in args.prefix):
            continue
        passes: list[Judgement] = []
        if args.markdown or not args.witness:
            passes.append(judge(case))
        if (args.markdown or args.witness) and at_witness(case):
            passes.append(judge(case, witness=True))
        for k, j in enumerate(passes):
            bad += j.outcome is not Outcome.SOUND
            print(_line(j), flush=True, file=sys.stderr if args.markdown else sys.stdout)
            rows.append(
                {
                    "name": case.name,
                    "pass": "witness" if (args.witness and not args.markdown) or k == 1 else "instances",
                    "verdict": j.verdict,
                    "outcome": j.outcome.value,
                    "seconds": round(j.seconds, 1),
                    "why": j.why,
                    "results": [
                        f"{r.obligation.name}={r.status.value}/{r.scope.kind.value}"
                        + (f": {r.counterexample.message}" if r.counterexample else "")
                        for r in j.results
                    ],
                }
            )
        if args.markdown and passes:
            table.append(_row(case, passes[0], passes[1] if len(passes) > 1 else None))
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    if args.markdown:
        print("| case | | expected | verdict (task's instances) | verdict (witness alone) | class |")
        print("|---|---|---|---|---|---|")
        print("\n".join(table))
    print(f"{len(rows)} verifications, {bad} unsound", file=sys.stderr if args.markdown else sys.stdout)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
