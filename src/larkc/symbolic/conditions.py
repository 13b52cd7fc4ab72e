"""Side conditions: what a simplification of the term language assumed about the values it simplified.

The constructors of :mod:`larkc.symbolic.terms` simplify as a field would: ``x*y / y`` is ``x``, ``1/exp(a)``
is ``exp(-a)``, ``sqrt(v)**2`` is ``v``. Some of these steps are only valid on part of the domain: ``x*y/y``
equals ``x`` only where ``y != 0``, ``sqrt(v)**2`` equals ``v`` only where ``v >= 0``, ``exp(log(v))`` equals
``v`` only where ``v > 0``. Inside ``with side_conditions() as sc:`` every such step appends its condition to
``sc``:

* every inversion of a non-constant factor (``recip``, ``div``, negative ``power``): ``factor != 0`` for each
  atom or factored sum inverted, except atoms that are positive by construction (``exp(.)``, ``pi``, ``ln2``,
  ``sqrt`` of a positive constant);
* every cancellation of an inverted factor by a product (``(x/y) * y``), so a term built *outside* the context
  and cancelled inside it is still accounted for;
* ``sqrt(v)**2 -> v`` (``v >= 0``), ``exp(k*log(v)) -> v**k`` (``v > 0``), and the cancellations the normal
  form of :mod:`larkc.symbolic.normal` performs.

Conditions are recorded *per call*, not per new node: the nodes are interned, so building ``x*y/y`` a second
time returns the node built the first time, but the second call still runs ``recip(y)`` and records ``y != 0``
again. Computations that are memoised on a node (:func:`~larkc.symbolic.normal.normal_form`) store the
conditions they recorded beside their result and replay them on every later use, so a collector sees the
conditions of every term built or normalised inside it, whenever the work was first done. Each collector keeps
one copy of each condition (by the identity of the interned term and the requirement); recording costs a
dictionary lookup, and nothing at all when no collector is active. Nested collectors each receive every
condition recorded inside them.

What the conditions mean for a verdict: a kernel term proved equal to a spec term under conditions ``C``
means equal at every input where all of ``C`` hold. :func:`larkc.symbolic.signs.discharge` proves the ones
that follow from syntax (``exp(.) > 0``, squares ``>= 0``, ``sum + eps > 0``); the rest are assumptions of the
verdict.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from larkc.errors import Span

if TYPE_CHECKING:
    from larkc.symbolic.terms import BoolTerm, Poly

__all__ = ["RangeCondition", "Requirement", "SideCondition", "SideConditions", "absorbed_log", "side_conditions"]


class Requirement(enum.Enum):
    """What a side condition requires of its term. The value is the printed relation to zero."""

    NONZERO = "!= 0"  # a divisor
    NONNEGATIVE = ">= 0"  # the argument of a square root squared away
    POSITIVE = "> 0"  # the argument of a logarithm exponentiated away


@dataclass(frozen=True, slots=True)
class SideCondition:
    """``term`` (an interned :class:`~larkc.symbolic.terms.Poly`) satisfies ``requirement``."""

    term: Poly
    requirement: Requirement

    def as_bool(self) -> BoolTerm:
        """The condition as a truth-valued term (``term != 0``, ``term >= 0`` or ``term > 0``)."""
        from larkc.symbolic import terms

        op = {Requirement.NONZERO: "!=", Requirement.NONNEGATIVE: ">=", Requirement.POSITIVE: ">"}[self.requirement]
        return terms.compare(op, self.term, terms.ZERO)

    def __str__(self) -> str:
        return f"{self.term} {self.requirement.value}"


@dataclass(frozen=True, slots=True)
class RangeCondition:
    """An operation of the kernel on a data-dependent value that C defines only when ``low < value < high``
    (open bounds): a float-to-integer conversion (``value`` the float converted, before truncation) or a
    signed integer ``+ - *`` (``value`` its exact result). ``what`` names the operation (``float-to-i8
    conversion``, ``i32 +``); ``proved`` says the input value ranges already bound ``value`` (the interval
    reading of :meth:`SymbolicDomain.int_range`), so no solver is needed."""

    value: Poly
    low: Fraction
    high: Fraction
    what: str
    span: Span | None
    proved: bool

    def text(self) -> str:
        return f"{self.what} of {_short(self.value)} needs a value in ({self.low}, {self.high})"


def _short(p: Poly) -> str:
    text = str(p)
    return text if len(text) <= 80 else text[:72] + " ..."


class SideConditions:
    """The conditions recorded inside one :func:`side_conditions` block, each once, in the order first seen."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[tuple[int, Requirement], SideCondition] = {}

    def add(self, condition: SideCondition) -> None:
        """Record ``condition`` unless an identical one (same interned term, same requirement) is recorded."""
        self._seen.setdefault((id(condition.term), condition.requirement), condition)

    def extend(self, conditions: Iterator[SideCondition] | tuple[SideCondition, ...]) -> None:
        for c in conditions:
            self.add(c)

    @property
    def conditions(self) -> tuple[SideCondition, ...]:
        return tuple(self._seen.values())

    def __iter__(self) -> Iterator[SideCondition]:
        return iter(tuple(self._seen.values()))

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, condition: object) -> bool:
        if not isinstance(condition, SideCondition):
            return False
        return (id(condition.term), condition.requirement) in self._seen

    def __repr__(self) -> str:
        return f"SideConditions([{', '.join(str(c) for c in self._seen.values())}])"


# The collectors of the enclosing ``side_conditions`` blocks, innermost last. A list (not a context variable)
# because terms are built on one thread; the constructors test it for emptiness on every recording site.
_ACTIVE: list[SideConditions] = []


@contextmanager
def side_conditions() -> Iterator[SideConditions]:
    """Collect the side conditions of every simplification performed inside the block (see the module doc)."""
    collector = SideConditions()
    _ACTIVE.append(collector)
    try:
        yield collector
    finally:
        _ACTIVE.remove(collector)


@contextmanager
def isolated() -> Iterator[SideConditions]:
    """Collect the conditions of the block *instead of* the enclosing collectors (for an attempt whose
    conditions count only if it succeeds: :func:`replay` them then)."""
    saved = _ACTIVE[:]
    _ACTIVE.clear()
    collector = SideConditions()
    _ACTIVE.append(collector)
    try:
        yield collector
    finally:
        _ACTIVE[:] = saved


def record(term: Poly, requirement: Requirement) -> None:
    """Append ``term requirement`` to every active collector (callers test ``_ACTIVE`` first when hot)."""
    if _ACTIVE:
        condition = SideCondition(term, requirement)
        for collector in _ACTIVE:
            collector.add(condition)


def replay(conditions: tuple[SideCondition, ...]) -> None:
    """Append conditions memoised with an earlier result to every active collector."""
    if _ACTIVE and conditions:
        for collector in _ACTIVE:
            for c in conditions:
                collector.add(c)


def absorbed_log(p: Poly) -> Poly | None:
    """``t`` when ``p`` is ``log(t)`` (or ``log2``), the operand of a maximum with a finite constant
    (``torch.clamp(torch.log(p), min=-100)``, BCE's own convention): IEEE's ``log(0) = -inf`` is absorbed
    (``max(-inf, -100) = -100``), so the reference is defined at ``t = 0`` and needs only ``t >= 0`` (a
    negative ``t`` is NaN, which the maximum propagates). One rule for every finite lower bound: clamp's
    ``min``, ``maximum`` with a constant, ``relu``."""
    from larkc.symbolic import terms as tm  # terms imports this module

    if p.const or len(p.terms) != 1:
        return None
    mono, k = p.terms[0]
    if k != 1 or len(mono.factors) != 1 or mono.factors[0][1] != 1:
        return None
    atom = mono.factors[0][0]
    if isinstance(atom, tm.App) and atom.fn in (tm.Fn.LOG, tm.Fn.LOG2):
        return atom.args[0]
    return None
