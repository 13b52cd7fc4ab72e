#!/usr/bin/env python3
"""Wall time of the term language on the workloads of issue 7: accumulation, softmax, variance.

Usage (from the repository root, with the project's virtual environment active)::

    python benchmarks/terms.py                    # everything
    python benchmarks/terms.py --only fold        # one group: fold, softmax, variance
    python benchmarks/terms.py --sizes 128 256    # the variance rows' sizes
    python benchmarks/terms.py --json

Groups:

* ``fold``: ``acc = acc + x_i`` one ``+`` at a time, 2048 and 16384 summands (and ``acc + a_i*b_i``).
* ``softmax``: online softmax (running max and rescaled running sum, one pass; and four partial passes
  merged pairwise as warps do) against three-pass softmax, rows of 256 and 4096: the time to build each
  and the time for :func:`~larkc.symbolic.equal` to prove every output element equal.
* ``variance``: the layer-norm forms against the spec's ``(sum(x**2) - sum(x)**2/D)/D`` at D = 128 ... 1024:
  two-pass variance, one-pass sum/sum-of-squares, Welford's recurrence, and the layer-norm output
  ``(x - mean) * rsqrt(var + eps)`` against the spec's ``x*r - mean*r`` for every element; the full
  :func:`~larkc.symbolic.normal_form` of the textbook variance for comparison (quadratic in D).

Every measurement uses input tensors of its own, so no interned node is reused across rows. The objects
that exist after the imports (torch's, sympy's) are frozen out of the cyclic garbage collector first
(``gc.freeze()``): otherwise each full collection rescans them and adds about 0.1 s to whichever row it
falls in; ``--gc-paused`` measures inside :func:`~larkc.symbolic.gc_paused` instead, as
``evaluate_symbolic`` builds terms. Targets
(issue 7): the 2048-term fold well under 0.1 s, the 16384-term fold under 1 s (the folds are timed with the
collector running and paused; the targets apply to the term language's own work, paused), the variance forms at
D = 128 under 1 s each. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from larkc.reference.symbolic import _var_of

# the kernel-style term builders are shared with the tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "symbolic"))
from kernel_forms import (
    fold,
    one_pass_variance,
    online_softmax,
    three_pass_softmax,
    two_pass_variance,
    welford_variance,
)

from larkc.symbolic import (
    ZERO,
    Fn,
    Poly,
    add,
    apply,
    const,
    div,
    elem,
    equal,
    gc_paused,
    mul,
    normal_form,
    recip,
    sub,
)

FOLD_TARGETS_S = {2048: 0.1, 16384: 1.0}
VARIANCE_TARGET_S = 1.0
VARIANCE_TARGET_D = 128

_names = (f"t{i}" for i in itertools.count())


def _row(n: int) -> list[Poly]:
    """``n`` input elements of a tensor no other measurement uses."""
    name = next(_names)
    return [elem(name, i) for i in range(n)]


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


# Accumulation -------------------------------------------------------------------------------------------


def _dot_fold(xs: list[Poly], ys: list[Poly]) -> Poly:
    acc = ZERO
    for x, y in zip(xs, ys, strict=True):
        acc = acc + x * y
    return acc


def bench_fold() -> list[dict[str, Any]]:
    rows = []
    for paused in (False, True) if gc.isenabled() else (True,):
        how = "collector paused" if paused else "collector running"
        for n in (2048, 16384):
            xs = _row(n)
            with gc_paused() if paused else contextlib.nullcontext():
                acc, seconds = _timed(lambda xs=xs: fold(xs))
            target = FOLD_TARGETS_S[n] if paused else None
            rows.append({"what": f"left fold of {n} terms ({how})", "seconds": seconds, "target": target})
            assert acc is add(*xs)
        xs, ys = _row(2048), _row(2048)
        with gc_paused() if paused else contextlib.nullcontext():
            _, seconds = _timed(lambda xs=xs, ys=ys: _dot_fold(xs, ys))
        rows.append({"what": f"left fold of 2048 products a_i*b_i ({how})", "seconds": seconds})
    return rows


# Softmax ------------------------------------------------------------------------------------------------


def bench_softmax() -> list[dict[str, Any]]:
    rows = []
    for n in (256, 4096):
        row = _row(n)
        spec, built = _timed(lambda row=row: three_pass_softmax(row))
        rows.append({"what": f"softmax {n}: build three-pass", "seconds": built})
        for parts, label in ((1, "online"), (4, "online, 4 parts merged")):
            kernel, built = _timed(lambda row=row, parts=parts: online_softmax(row, parts))
            rows.append({"what": f"softmax {n}: build {label}", "seconds": built})
            verdicts, seconds = _timed(
                lambda kernel=kernel, spec=spec: [equal(k, s) for k, s in zip(kernel, spec, strict=True)]
            )
            rows.append(
                {
                    "what": f"softmax {n}: {label} == three-pass, all {n} elements",
                    "seconds": seconds,
                    "result": "proved" if all(v is True for v in verdicts) else f"NOT proved: {set(verdicts)}",
                }
            )
    return rows


# Variance -----------------------------------------------------------------------------------------------


def bench_variance(sizes: Sequence[int]) -> list[dict[str, Any]]:
    rows = []
    eps = const(1e-5)
    for d in sizes:
        forms: list[tuple[str, Callable[[list[Poly]], tuple[Poly, Poly]]]] = [
            ("two-pass", two_pass_variance),
            ("one-pass", one_pass_variance),
            ("Welford", welford_variance),
        ]
        for label, form in forms:
            xs = _row(d)
            spec = _var_of(list(xs), 0)
            (var, _), built = _timed(lambda form=form, xs=xs: form(xs))
            verdict, seconds = _timed(lambda var=var, spec=spec: equal(var, spec))
            target = VARIANCE_TARGET_S if d == VARIANCE_TARGET_D else None
            rows.append(
                {
                    "what": f"variance D={d}: {label} == spec",
                    "build": built,
                    "seconds": seconds,
                    "target": target,
                    "result": "proved" if verdict is True else f"NOT proved: {verdict}",
                }
            )
        xs = _row(d)
        spec_var = _var_of(list(xs), 0)
        var, mean = two_pass_variance(xs)
        r = recip(apply(Fn.SQRT, add(var, eps)))
        kernel = [mul(sub(x, mean), r) for x in xs]
        spec_mean = div(add(*xs), const(d))
        rs = recip(apply(Fn.SQRT, add(spec_var, eps)))
        spec = [sub(mul(x, rs), mul(spec_mean, rs)) for x in xs]
        verdicts, seconds = _timed(
            lambda kernel=kernel, spec=spec: [equal(k, s) for k, s in zip(kernel, spec, strict=True)]
        )
        rows.append(
            {
                "what": f"layer norm D={d}: (x - mean)*rsqrt(var + eps) == x*r - mean*r, all {d} elements",
                "seconds": seconds,
                "target": VARIANCE_TARGET_S if d == VARIANCE_TARGET_D else None,
                "result": "proved" if all(v is True for v in verdicts) else f"NOT proved: {set(verdicts)}",
            }
        )
        if d <= 512:
            xs = _row(d)
            var, _ = two_pass_variance(xs)
            nf, seconds = _timed(lambda var=var: normal_form(var, budget=None))
            rows.append(
                {
                    "what": f"variance D={d}: full normal form of two-pass ({len(nf.terms)} monomials)",
                    "seconds": seconds,
                }
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["fold", "softmax", "variance"], action="append")
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512, 1024])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--gc-paused", action="store_true", help="pause the cyclic garbage collector throughout")
    args = parser.parse_args(argv)
    gc.freeze()
    if args.gc_paused:
        gc.disable()
    groups = args.only or ["fold", "softmax", "variance"]
    rows: list[dict[str, Any]] = []
    for group in groups:
        match group:
            case "fold":
                rows += bench_fold()
            case "softmax":
                rows += bench_softmax()
            case "variance":
                rows += bench_variance(args.sizes)
    missed = [r for r in rows if r.get("target") is not None and r["seconds"] > r["target"]]
    missed += [r for r in rows if str(r.get("result", "proved")) != "proved"]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            extra = f"  (built in {r['build']:.3f} s)" if "build" in r else ""
            target = f"  [target {r['target']} s]" if r.get("target") is not None else ""
            result = f"  {r['result']}" if "result" in r else ""
            print(f"{r['seconds']:9.3f} s  {r['what']}{result}{extra}{target}")
        if missed:
            print(f"{len(missed)} target(s) missed", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
