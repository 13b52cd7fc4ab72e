"""Conditions on the input values, decided: proved for every input, refuted with inputs, or left open.

Two kinds of condition reach this module from one symbolic run:

* **Range conditions** of the ``defined`` obligation (:class:`~larkc.semantics.symvalues.RangeCondition`):
  a float-to-integer conversion or a signed ``+ - *`` of data is defined in C only when its exact value
  lies in an open interval.
* **Side conditions** of the term language (:mod:`larkc.symbolic.conditions`): a simplification the terms
  made that holds only on part of the inputs (``exp(2 * log(x)) = x ** 2`` for ``x > 0``, ``x * y / y = x``
  for ``y != 0``). A kernel term proved equal to the reference's under such a condition is equal only
  where the condition holds.

:func:`decide` proves a condition with z3 (the inputs' declared ranges and dtypes as hypotheses, ``exp``
positive and ``sqrt`` non-negative, other functions uninterpreted), or finds inputs violating it (a z3
model, else a search over the usual input families) and checks the violation exactly (60 digits) before
it is reported: a model of uninterpreted functions proves nothing. What neither happens to is ``None``.

:func:`reference_domain` reads, from the reference's own terms, the conditions under which the reference
is defined (every ``log`` argument positive, every ``sqrt`` argument non-negative, every divisor nonzero):
inputs outside them are no counterexample, since the reference has no value there either.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from larkc.ir.types import ScalarType
from larkc.provers.witness import exact_values, round_to
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import Requirement, SideCondition, absorbed_log
from larkc.symbolic.terms import App, BoolTerm, Elem, Fn, Max, Poly, Read, Select, Term

__all__ = [
    "Decision",
    "InputSpace",
    "ReferenceMatch",
    "absorbed_log",
    "decide",
    "describe",
    "implied_by",
    "int_type_range",
    "match_reference",
    "range_holds",
    "reference_domain",
    "side_holds",
]

#: Wall-clock safety net of one z3 call (its work is bounded by the rlimit it is given).
_SAFETY_NET_MS = 30_000

#: The largest finite value of each float dtype (by its name): an input z3 picks must be representable.
_FLOAT_MAX = {
    "f16": 65504.0,
    "bf16": 3.3895313892515355e38,
    "f32": 3.4028234663852886e38,
    "f64": 1.7976931348623157e308,
}


@dataclass(frozen=True, slots=True)
class InputSpace:
    """The inputs a condition ranges over: each tensor's element count, dtype and (integers) declared
    inclusive value range."""

    sizes: Mapping[str, int]
    dtypes: Mapping[str, ScalarType]
    int_ranges: Mapping[str, tuple[int, int]]


@dataclass(frozen=True, slots=True)
class Decision:
    """``holds`` True (proved for every input), False (``witness``: full input values at which it fails,
    checked exactly) or None (``how`` says why)."""

    holds: bool | None
    how: str
    witness: Mapping[str, np.ndarray[Any, Any]] | None = None

    def relevant(self, terms: Iterable[Term]) -> dict[str, dict[int, float]]:
        """The witness's values of the input elements ``terms`` read."""
        out: dict[str, dict[int, float]] = {}
        if self.witness is None:
            return out
        for node in tm._post_order(terms):
            if isinstance(node, Elem) and node.tensor in self.witness:
                out.setdefault(node.tensor, {})[node.index] = float(self.witness[node.tensor][node.index])
        return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def range_holds(value: Poly, low: Fraction, high: Fraction) -> tuple[BoolTerm, list[BoolTerm]]:
    """``low < value < high``, and the violations to try first (well outside the interval, so that float
    rounding cannot bring the value back in)."""
    holds = tm.logical_and(tm.compare(">", value, tm.const(low)), tm.compare("<", value, tm.const(high)))
    far = tm.logical_or(tm.compare(">=", value, tm.const(high + 1)), tm.compare("<=", value, tm.const(low - 1)))
    return holds, [far]


def side_holds(c: SideCondition) -> tuple[BoolTerm, list[BoolTerm]]:
    """A side condition as a truth term, and its violations to try first: a negative value before zero
    (``log(0)`` is ``-inf`` in floating point, which an ``exp`` may turn back into the right value)."""
    holds = c.as_bool()
    match c.requirement:
        case Requirement.POSITIVE | Requirement.NONNEGATIVE:
            return holds, [tm.compare("<=", c.term, tm.const(-1)), tm.compare("<", c.term, tm.ZERO)]
        case Requirement.NONZERO:
            return holds, []
    raise AssertionError(c.requirement)


def decide(
    holds: BoolTerm, prefer: Sequence[BoolTerm], space: InputSpace, *, solver_rlimit: int, seed: int = 0
) -> Decision:
    """Prove ``holds`` for every input of ``space``, or find inputs where it fails (see the module doc);
    ``solver_rlimit`` bounds each z3 call in its resource units; 0 skips z3 (the search alone)."""
    names = sorted({n.tensor for n in tm._post_order([holds]) if isinstance(n, Elem | Read)})
    if any(n not in space.sizes for n in names):
        return Decision(None, "reads a value that is not an input of the task")
    if solver_rlimit > 0:
        z = _z3_decide(holds, prefer, space, names, solver_rlimit)
    else:
        z = Decision(None, "too large a term for z3")
    if z.holds is not None:
        return z
    found = _search(holds, space, names, seed)
    return found if found is not None else z


def _z3_decide(
    holds: BoolTerm, prefer: Sequence[BoolTerm], space: InputSpace, names: Sequence[str], solver_rlimit: int
) -> Decision:
    import z3

    conv = tm.Z3Converter()
    try:
        conv.prepare([holds, *prefer])
        goal = conv.convert(holds)
        preferred = [conv.convert(p) for p in prefer]
    except (ValueError, TypeError, RecursionError) as e:
        return Decision(None, f"not expressible for z3 ({e})")
    s = z3.Solver()
    s.set("rlimit", solver_rlimit)  # z3's own steps: the answer does not depend on the machine's load
    s.set("timeout", _SAFETY_NET_MS)
    elems: list[Elem] = []
    for node in tm._post_order([holds, *prefer]):
        if isinstance(node, Elem):
            elems.append(node)
            v = conv.convert(tm.elem(node.tensor, node.index))
            dt = space.dtypes.get(node.tensor)
            if dt is None:
                continue
            if dt.is_int or dt.is_bool:
                lo, hi = space.int_ranges.get(node.tensor, int_type_range(dt))
                s.add(z3.IsInt(v), v >= lo, v <= hi)
            elif (m := _FLOAT_MAX.get(str(dt))) is not None:
                s.add(v >= -m, v <= m)
        elif isinstance(node, App):
            a = conv.convert(tm._atom_poly(node))
            if node.fn in (Fn.EXP, Fn.EXP2):
                s.add(a > 0)
            elif node.fn is Fn.SQRT:
                arg = conv.convert(node.args[0])
                s.add(a >= 0, z3.Implies(arg >= 0, a * a == arg))
            elif node.fn in (Fn.TANH, Fn.ERF):
                s.add(a > -1, a < 1)
    s.add(z3.Not(goal))
    r = s.check()
    if r == z3.unsat:
        return Decision(True, "z3: holds for every input in its declared range")
    if r != z3.sat:
        return Decision(None, f"z3: {s.reason_unknown() or 'unknown'}")
    models = []
    for p in preferred:
        s.push()
        s.add(p)
        if s.check() == z3.sat:
            models.append(s.model())
        s.pop()
    s.check()
    models.append(s.model())
    for m in models:
        env = env_of_model(m, conv, elems, space, names)
        if env is not None and fails_exactly(holds, env):
            return Decision(False, "z3's model, checked exactly", env)
    return Decision(None, "z3 found no violation that holds exactly (functions it does not interpret)")


def env_of_model(
    model: Any, conv: tm.Z3Converter, elems: Sequence[Elem], space: InputSpace, names: Sequence[str]
) -> dict[str, np.ndarray[Any, Any]] | None:
    """The input values of a z3 model (each input element read, rounded to its tensor's dtype; the others
    0), for an exact check: ``None`` where a value is not a rational."""
    env = {name: np.zeros(space.sizes[name], dtype=np.float64) for name in names}
    for e in elems:
        v = model.eval(conv.convert(tm.elem(e.tensor, e.index)), model_completion=True)
        try:
            q = Fraction(v.as_fraction()) if hasattr(v, "as_fraction") else Fraction(str(v))
        except (ValueError, ZeroDivisionError):
            return None
        env[e.tensor][e.index] = float(q)
    for name in names:
        dt = space.dtypes.get(name)
        if dt is not None:
            env[name] = round_to(env[name], dt)
    return env


def fails_exactly(holds: BoolTerm, env: Mapping[str, np.ndarray[Any, Any]]) -> bool:
    """Whether ``holds`` is false at ``env``, evaluated at 60 digits (``False`` where undefined)."""
    values = exact_values([holds], env)
    return values is not None and values[0] is False


def _search(holds: BoolTerm, space: InputSpace, names: Sequence[str], seed: int) -> Decision | None:
    """Inputs of the usual families (normal at several scales, one sign, zeros, integers in range) at which
    ``holds`` is false, exactly."""
    rng = np.random.default_rng(seed)
    for scale in (1.0, 1e3, 1e6, 1e9, -1.0, -1e3):
        for _ in range(2):
            env: dict[str, np.ndarray[Any, Any]] = {}
            for name in names:
                dt = space.dtypes.get(name)
                n = space.sizes[name]
                if dt is not None and (dt.is_int or dt.is_bool):
                    lo, hi = space.int_ranges.get(name, (0, 1) if dt.is_bool else int_type_range(dt))
                    lo, hi = max(lo, -(2**62)), min(hi, 2**62)  # numpy draws int64
                    env[name] = rng.integers(lo, hi, n, endpoint=True).astype(np.float64)
                else:
                    draw = np.abs(rng.standard_normal(n)) * scale if scale < 0 else rng.standard_normal(n) * scale
                    env[name] = round_to(draw, dt) if dt is not None else draw
                    if not np.isfinite(env[name]).all():
                        break
            try:
                (value,) = tm.evaluate([holds], env)
            except (KeyError, IndexError, ValueError, OverflowError, ZeroDivisionError):
                continue
            if value is False and fails_exactly(holds, env):
                return Decision(False, f"inputs found by search (scale {scale:g}), checked exactly", env)
    return None


def int_type_range(t: ScalarType) -> tuple[int, int]:
    """The values of integer type ``t`` (an input element of no declared range)."""
    if t.is_bool:
        return (0, 1)
    if t.is_unsigned:
        return (0, 2**t.bits - 1)
    return (-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1)


# --------------------------------------------------------------------------------------------------
# The reference's domain


#: The most ``(arm, guard)`` walks :func:`reference_domain` makes: past it, the conditions under the arms
#: not yet walked are left out (a smaller domain assumed is sound: fewer inputs excused).
_MAX_GUARDED_WALKS = 4096


def reference_domain(spec_terms: Iterable[Term]) -> dict[tuple[int, Requirement], SideCondition]:
    """The conditions under which the reference's terms are defined, keyed by (term id, requirement): the
    argument of every ``log``/``log2`` and the base of every ``pow`` positive, the argument of every ``sqrt``
    non-negative, every atom raised to a negative power nonzero. Inside an arm of a ``select`` the condition
    is needed only where the arm is taken: ``select(guard, arg, 1)`` (``where(x > 0, log(x), 0)`` needs
    nothing; an unguarded ``x > 0`` would excuse a kernel that takes the log at every ``x``)."""
    out: dict[tuple[int, Requirement], SideCondition] = {}
    walks: list[tuple[list[Term], BoolTerm]] = [(list(spec_terms), tm.TRUE)]
    walked: set[tuple[int, int]] = set()

    def add(p: Poly, r: Requirement, guard: BoolTerm) -> None:
        if guard is not tm.TRUE:
            p = tm.select(guard, p, tm.ONE)
        out.setdefault((id(p), r), SideCondition(p, r))

    def children(node: object) -> Iterable[object]:
        if isinstance(node, Select):
            return (node.cond,)
        if isinstance(node, Max) and any(a.is_const for a in node.args):
            # max(log(t), c): the log's argument is walked, the log is not (see absorbed_log)
            return tuple(t if (t := absorbed_log(a)) is not None else a for a in node.args)
        return tm._children(node)

    while walks and len(walked) <= _MAX_GUARDED_WALKS:
        roots, guard = walks.pop()
        for node in tm._post_order(roots, children):
            if isinstance(node, Select):
                for arm, g in ((node.then, node.cond), (node.other, tm.logical_not(node.cond))):
                    arm_guard = g if guard is tm.TRUE else tm.logical_and(guard, g)
                    if arm_guard is tm.FALSE or (id(arm), id(arm_guard)) in walked:
                        continue
                    walked.add((id(arm), id(arm_guard)))
                    walks.append(([arm], arm_guard))
            elif isinstance(node, Max) and any(a.is_const for a in node.args):
                for a in node.args:
                    if (t := absorbed_log(a)) is not None:
                        add(t, Requirement.NONNEGATIVE, guard)
            elif isinstance(node, App):
                if node.fn in (Fn.LOG, Fn.LOG2):
                    add(node.args[0], Requirement.POSITIVE, guard)
                elif node.fn is Fn.SQRT:
                    add(node.args[0], Requirement.NONNEGATIVE, guard)
                elif node.fn is Fn.POW:
                    add(node.args[0], Requirement.POSITIVE, guard)
            elif isinstance(node, Poly) and node._terms is not None:
                for mono, _ in node.terms:
                    for atom, e in mono.factors:
                        if e < 0:
                            add(tm._atom_poly(atom), Requirement.NONZERO, guard)
    return out


#: What each requirement is implied by (a positive value is nonzero and non-negative).
_IMPLIED_BY = {
    Requirement.POSITIVE: (Requirement.POSITIVE,),
    Requirement.NONNEGATIVE: (Requirement.NONNEGATIVE, Requirement.POSITIVE),
    Requirement.NONZERO: (Requirement.NONZERO, Requirement.POSITIVE),
}


def implied_by(c: SideCondition, domain: Mapping[tuple[int, Requirement], SideCondition]) -> bool:
    """Whether ``c`` follows from one condition of ``domain`` syntactically (same interned term, a requirement
    at least as strong; a divisor also by its negation)."""
    if any((id(c.term), r) in domain for r in _IMPLIED_BY[c.requirement]):
        return True
    if c.requirement is Requirement.NONZERO:
        negated = tm.neg(c.term)
        return any((id(negated), r) in domain for r in (Requirement.NONZERO,))
    return False


class ReferenceMatch(enum.Enum):
    """How a side condition of the kernel relates to the reference's terms (:func:`match_reference`)."""

    PROVED = "proved"  # its term equals a term of the reference whose sign facts prove the condition
    DOMAIN = "domain"  # it follows from a condition under which the reference is defined
    NONE = "none"


#: Candidate reference conditions compared with one kernel condition by normal forms (the probe filters).
_MAX_EQUAL_TRIES = 4


def match_reference(
    c: SideCondition, domain: Mapping[tuple[int, Requirement], SideCondition], work: int | None
) -> ReferenceMatch:
    """``c`` against the reference's domain: syntactically (:func:`implied_by`), else through a term of the
    reference equal to ``c``'s by normal forms (a layer norm's ``sqrt(E[x^2] - mean^2 + eps)`` and the spec's
    ``sqrt(mean((x - mean)^2) + eps)``). The equality must hold without conditions of its own beyond those
    the sign facts prove. When the reference's term is positive by its sign facts, so is ``c``'s."""
    if implied_by(c, domain):
        return ReferenceMatch.DOMAIN
    from larkc.symbolic.conditions import isolated
    from larkc.symbolic.normal import _close, _probe, equal
    from larkc.symbolic.signs import discharge, sign_of

    try:
        pk = _probe(c.term)
    except (ValueError, OverflowError, ZeroDivisionError, TypeError, KeyError, IndexError):
        return ReferenceMatch.NONE
    tries = 0
    for d in domain.values():
        if d.requirement not in _IMPLIED_BY[c.requirement] or tries >= _MAX_EQUAL_TRIES:
            continue
        try:
            ps = _probe(d.term)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError, KeyError, IndexError):
            continue
        flip = c.requirement is Requirement.NONZERO and _close(pk, -ps) and not _close(pk, ps)
        if not (_close(pk, ps) or flip) or math.isnan(pk) or math.isnan(ps):
            continue
        tries += 1
        with isolated() as sc:
            try:
                same = equal(c.term, tm.neg(d.term) if flip else d.term, work)
            except (ValueError, ZeroDivisionError, RecursionError, TypeError, KeyError, IndexError):
                same = None
        if same is not True or discharge(sc.conditions)[1]:
            continue
        if sign_of(d.term).satisfies(d.requirement):
            return ReferenceMatch.PROVED
        return ReferenceMatch.DOMAIN
    return ReferenceMatch.NONE


def describe(conditions: Sequence[SideCondition]) -> str:
    """A short text of conditions: the first, and how many more."""
    first = str(conditions[0])
    if len(first) > 120:
        first = first[:110] + " ... " + conditions[0].requirement.value
    more = f" (and {len(conditions) - 1} more such conditions)" if len(conditions) > 1 else ""
    return first + more
