"""Terms as kernels build them, for the tests and for ``benchmarks/terms.py``: softmax (three-pass, online,
warp-merged) and the variance of layer norm (two-pass, one-pass, Welford), each one ``+`` at a time."""

from __future__ import annotations

from larkc.symbolic import ONE, ZERO, Fn, Poly, add, apply, const, div, maximum, mul, sub


def exp(x: Poly) -> Poly:
    return apply(Fn.EXP, x)


def fold(xs: list[Poly]) -> Poly:
    """``acc = acc + x`` over ``xs``."""
    acc = ZERO
    for x in xs:
        acc = acc + x
    return acc


def three_pass_softmax(row: list[Poly]) -> list[Poly]:
    """Max, then the sum of ``exp(x - max)``, then each ``exp(x - max) / sum``."""
    top = maximum(*row)
    total = add(*(exp(sub(x, top)) for x in row))
    return [div(exp(sub(x, top)), total) for x in row]


def online_pass(row: list[Poly]) -> tuple[Poly, Poly]:
    """The running max and the running sum rescaled by ``exp(m - m')`` whenever the max grows."""
    m, s = row[0], ONE
    for x in row[1:]:
        m_new = maximum(m, x)
        s = add(mul(s, exp(sub(m, m_new))), exp(sub(x, m_new)))
        m = m_new
    return m, s


def online_softmax(row: list[Poly], parts: int = 1) -> list[Poly]:
    """Online softmax over ``parts`` slices of the row, their ``(max, sum)`` pairs merged pairwise as warps
    merge them."""
    k = len(row) // parts
    pairs = [online_pass(row[i * k : (i + 1) * k]) for i in range(parts)]
    while len(pairs) > 1:
        merged = []
        for (m1, s1), (m2, s2) in zip(pairs[::2], pairs[1::2], strict=True):
            m = maximum(m1, m2)
            merged.append((m, add(mul(s1, exp(sub(m1, m))), mul(s2, exp(sub(m2, m))))))
        pairs = merged
    m, s = pairs[0]
    return [div(exp(sub(x, m)), s) for x in row]


def two_pass_variance(xs: list[Poly]) -> tuple[Poly, Poly]:
    """``(sum((x - mean)**2) / D, mean)`` with both sums accumulated."""
    mean = fold(xs) / const(len(xs))
    acc = ZERO
    for x in xs:
        d = x - mean
        acc = acc + d * d
    return acc / const(len(xs)), mean


def one_pass_variance(xs: list[Poly]) -> tuple[Poly, Poly]:
    """``(sum(x*x)/D - mean**2, mean)`` from one pass accumulating the sum and the sum of squares."""
    s, q = ZERO, ZERO
    for x in xs:
        s, q = s + x, q + x * x
    mean = s / const(len(xs))
    return q / const(len(xs)) - mean * mean, mean


def welford_variance(xs: list[Poly]) -> tuple[Poly, Poly]:
    """Welford's recurrence: ``delta = x - mean; mean += delta/n; M2 += delta*(x - mean)``; ``(M2/D, mean)``."""
    mean, m2 = ZERO, ZERO
    for n, x in enumerate(xs, start=1):
        delta = x - mean
        mean = mean + delta / const(n)
        m2 = m2 + delta * (x - mean)
    return m2 / const(len(xs)), mean
