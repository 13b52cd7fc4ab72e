"""Run the red-team corpus and print one line per case (or a markdown table with --markdown).

PYTHONPATH=src python tests/redteam/run_corpus.py [--markdown] [--json FILE] [NAME_PREFIX ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import Outcome, at_witness, judge
from manifest import CASES


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", nargs="*")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--witness", action="store_true", help="verify each wrong case at its witness alone")
    args = ap.parse_args()
    rows = []
    bad = 0
    for case in CASES:
        if args.prefix and not any(case.name.startswith(p) for p in args.prefix):
            continue
        if args.witness and not at_witness(case):
            continue
        j = judge(case, witness=args.witness)
        bad += j.outcome is not Outcome.SOUND
        row = {
            "name": case.name,
            "expect": case.expect.value,
            "violates": list(case.violates),
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
        rows.append(row)
        print(
            f"{case.name:42} {case.expect.value:8} {j.verdict[:40]:40} {j.outcome.value:14} {j.seconds:6.1f}s  {j.why}",
            flush=True,
        )
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    print(f"{len(rows)} cases, {bad} unsound")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
