"""Counterexample search: inputs at which two terms differ, checked at high precision.

When the normal forms of a kernel term and a spec term differ and no procedure proves them equal, the
terms are evaluated on inputs chosen to separate them: standard normal values at several scales (an
epsilon placed wrongly shows at small scales), near-constant values (a variance near zero), values of
one sign (a max reduction started at 0 instead of -inf), zeros, and the integers of the declared ranges.
The candidate with the largest relative difference in float64 is re-evaluated exactly enough to be sure
(:mod:`mpmath` at 60 significant digits, inputs being exact binary values): a difference there is a
refutation under exact arithmetic, whatever rounding would do.

Input values are rounded to each tensor's dtype first, so the simulator can replay the witness exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from larkc.ir.types import ScalarType
from larkc.symbolic import terms as tm
from larkc.symbolic.terms import (
    And,
    App,
    BoolConst,
    Cmp,
    CmpOp,
    Elem,
    Fn,
    Max,
    Min,
    Or,
    Poly,
    Read,
    Select,
    Term,
)

__all__ = ["Witness", "exact_values", "find_witness", "round_to"]

_DIGITS = 60


@dataclass(frozen=True, slots=True)
class Witness:
    """Input values (tensor name to full row-major values) at which two terms differ, and the two
    values there (computed at high precision)."""

    inputs: Mapping[str, np.ndarray[Any, Any]]
    kernel_value: float
    reference_value: float
    strategy: str

    def relevant(self, terms: Iterable[Term]) -> dict[str, dict[int, float]]:
        """The input elements the terms read, with their values (what a report shows)."""
        out: dict[str, dict[int, float]] = {}
        for node in _nodes(terms):
            if isinstance(node, Elem) and node.tensor in self.inputs:
                out.setdefault(node.tensor, {})[node.index] = float(self.inputs[node.tensor][node.index])
            elif isinstance(node, Read) and node.tensor in self.inputs:
                out.setdefault(node.tensor, {})
        return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def _nodes(terms: Iterable[Term]) -> Iterable[object]:
    return tm._post_order(terms)


def round_to(values: np.ndarray[Any, Any], dtype: ScalarType) -> np.ndarray[Any, Any]:
    """``values`` rounded to the nearest values of ``dtype`` (as float64; integers truncated)."""
    if dtype.is_float:
        if dtype.bits == 64:
            return values.astype(np.float64)
        if str(dtype) == "bf16":
            import torch

            as_bf16 = torch.tensor(values, dtype=torch.float32).to(torch.bfloat16)
            rounded: np.ndarray[Any, Any] = as_bf16.double().numpy()
            return rounded
        holder = np.float16 if dtype.bits == 16 else np.float32
        return values.astype(holder).astype(np.float64)
    out: np.ndarray[Any, Any] = (values != 0).astype(np.float64) if dtype.is_bool else np.trunc(values)
    return out.astype(np.float64)


def _strategies(rng: np.random.Generator) -> list[tuple[str, Callable[[int], np.ndarray[Any, Any]]]]:
    return [
        ("standard normal", rng.standard_normal),
        ("small values (x 1e-3)", lambda n: rng.standard_normal(n) * 1e-3),
        ("tiny values (x 1e-6)", lambda n: rng.standard_normal(n) * 1e-6),
        ("large values (x 1e3)", lambda n: rng.standard_normal(n) * 1e3),
        ("all negative", lambda n: -np.abs(rng.standard_normal(n)) - 0.5),
        ("all positive", lambda n: np.abs(rng.standard_normal(n)) + 0.5),
        ("near-constant", lambda n: 3.0 + rng.standard_normal(n) * 1e-4),
        ("zeros", np.zeros),
        ("integers", lambda n: rng.integers(-4, 5, n).astype(np.float64)),
        ("uniform (0, 1)", lambda n: rng.uniform(0.05, 1.0, n)),
    ]


def find_witness(
    kernel: Term,
    spec: Term,
    sizes: Mapping[str, int],
    dtypes: Mapping[str, ScalarType],
    int_ranges: Mapping[str, tuple[int, int]],
    *,
    seed: int = 0,
    rounds: int = 3,
) -> Witness | None:
    """Inputs at which ``kernel`` and ``spec`` differ (exactly), or ``None`` if none was found.

    ``sizes`` gives each input tensor's element count, ``dtypes`` its element type, ``int_ranges`` the
    inclusive value ranges of integer tensors.
    """
    names = sorted({n.tensor for n in _nodes([kernel, spec]) if isinstance(n, Elem | Read)})
    if any(n not in sizes for n in names):
        return None
    rng = np.random.default_rng(seed)
    best: tuple[float, dict[str, np.ndarray[Any, Any]], str] | None = None
    for _ in range(rounds):
        for label, draw in _strategies(rng):
            env: dict[str, np.ndarray[Any, Any]] = {}
            for name in names:
                dt = dtypes.get(name)
                n = sizes[name]
                if dt is not None and (dt.is_int or dt.is_bool):
                    lo, hi = int_ranges.get(name, (0, 1 if dt.is_bool else 7))
                    env[name] = rng.integers(lo, hi + 1, n).astype(np.float64)
                else:
                    env[name] = round_to(draw(n), dt) if dt is not None else draw(n)
            try:
                vk, vs = tm.evaluate([kernel, spec], env)
            except (KeyError, IndexError, ValueError, OverflowError, ZeroDivisionError):
                continue
            diff = _rel_diff(float(vk), float(vs))
            if diff is not None and (best is None or diff > best[0]):
                best = (diff, env, label)
    if best is None or best[0] < 1e-9:
        return None
    _, env, label = best
    exact = exact_values([kernel, spec], env)
    if exact is None:
        return None
    ek, es = exact
    if not _exactly_different(ek, es):
        return None
    return Witness(env, float(ek), float(es), label)


def _rel_diff(a: float, b: float) -> float | None:
    if math.isnan(a) or math.isnan(b):
        return None
    if math.isinf(a) or math.isinf(b):
        return None if a == b else math.inf
    return abs(a - b) / max(1.0, abs(a), abs(b))


def _exactly_different(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) != bool(b)
    scale = max(mpmath.mpf(1), abs(a), abs(b))
    return bool(abs(a - b) > scale * mpmath.mpf(10) ** (-(_DIGITS // 2)))


def exact_values(terms: Sequence[Term], env: Mapping[str, np.ndarray[Any, Any]]) -> list[Any] | None:
    """The values of ``terms`` at ``env`` with 60 significant digits (``None`` where undefined)."""
    memo: dict[int, Any] = {}
    with mpmath.workdps(_DIGITS):
        try:
            for node in _nodes(terms):
                memo[id(node)] = _exact_node(node, memo, env)
        except (ValueError, ZeroDivisionError, IndexError, KeyError, TypeError):
            return None
        return [memo[id(t)] for t in terms]


def _mp(q: Fraction) -> Any:
    return mpmath.mpf(q.numerator) / q.denominator


_MP_FN: dict[Fn, Callable[..., Any]] = {
    Fn.EXP: mpmath.exp,
    Fn.LOG: mpmath.log,
    Fn.SQRT: mpmath.sqrt,
    Fn.TANH: mpmath.tanh,
    Fn.ERF: mpmath.erf,
    Fn.SIN: mpmath.sin,
    Fn.COS: mpmath.cos,
    Fn.POW: mpmath.power,
    Fn.TRUNC: lambda x: mpmath.floor(x) if x >= 0 else mpmath.ceil(x),
    Fn.PI: lambda: mpmath.pi,
    Fn.LN2: lambda: mpmath.ln2,
    Fn.EXP2: lambda x: mpmath.power(2, x),
    Fn.LOG2: lambda x: mpmath.log(x, 2),
}


def _exact_node(node: object, memo: Mapping[int, Any], env: Mapping[str, np.ndarray[Any, Any]]) -> Any:
    match node:
        case Poly():
            total = _mp(node.const)
            for mono, k in node.terms:
                prod = _mp(k)
                for atom, e in mono.factors:
                    v = memo[id(atom)]
                    if e < 0 and v == 0:
                        raise ZeroDivisionError
                    prod = prod * v**e
                total += prod
            return total
        case Elem():
            return mpmath.mpf(float(env[node.tensor][node.index]))
        case Read():
            idx = memo[id(node.index)]
            if idx != mpmath.floor(idx):
                raise ValueError("non-integer index")
            i = int(idx)
            values = env[node.tensor]
            if not 0 <= i < len(values):
                raise IndexError(i)
            return mpmath.mpf(float(values[i]))
        case App():
            fn = _MP_FN.get(node.fn)
            if fn is None:
                raise ValueError(f"no exact rule for {node.fn}")
            out = fn(*(memo[id(a)] for a in node.args))
            if isinstance(out, mpmath.mpc):
                raise ValueError("complex value")
            return out
        case Max():
            return max(memo[id(a)] for a in node.args)
        case Min():
            return min(memo[id(a)] for a in node.args)
        case Select():
            return memo[id(node.then)] if memo[id(node.cond)] else memo[id(node.other)]
        case BoolConst():
            return node.value
        case Cmp():
            v = memo[id(node.lhs)]
            return {CmpOp.EQ: v == 0, CmpOp.NE: v != 0, CmpOp.LT: v < 0, CmpOp.LE: v <= 0}[node.op]
        case And():
            return all(memo[id(a)] for a in node.args)
        case Or():
            return any(memo[id(a)] for a in node.args)
        case _:
            raise TypeError(f"not a term node: {node!r}")
