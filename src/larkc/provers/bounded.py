"""The built-in symbolic engine: bounded proofs from one symbolic run per shape instance.

The pipeline executes the kernel symbolically for a shape instance (:mod:`larkc.semantics.symexec`) and
evaluates the reference's spec symbolically for the same instance; the facts of that run reach this
module as an :class:`InstanceFacts`. From them, :func:`prove_instance` decides each obligation for that
instance and launch:

* **Equivalence** of an output: every element's kernel term against the spec's term — the same
  interned term (free), equal after full expansion, or equal by z3 (linear and polynomial real
  arithmetic with ``max``/``min``/``select`` as ``If``, functions uninterpreted). Otherwise inputs that
  separate them are searched (:mod:`larkc.provers.witness`); a difference confirmed at high precision
  refutes; nothing found leaves the element UNKNOWN. An element that depends on memory never written
  (or a variable never assigned) refutes; one that depends on a value the executor could not model
  (*opaque*) is UNKNOWN.
* **Inputs left unchanged** (tasks with a reference): every element of every input the task does not
  declare in-place must end as the symbol it started as. Stores never go through a data-dependent
  address and an if-converted arm never stores (:mod:`larkc.semantics.symexec`), so a run that reached
  the end of the launch knows every input element's final term: an identical term proves the element,
  another term is decided against the start as an output element against the spec (a difference found
  refutes). A run with a race leaves it UNKNOWN (the final contents depend on the order of the accesses).
* **Safety** (bounds, races, barriers, initialised reads, defined operations, assertions): the run's
  checks saw every access of the launch when control flow and addresses were concrete, or a superset of
  them when data-dependent branches were if-converted; so no finding proves the obligation for the
  instance. A finding of a run with concrete control refutes (it happens for every input); with
  data-dependent control it is a candidate the pipeline must confirm on concrete inputs.

Every result is bounded: its scope is the instance and its launch. Budgets bound the time spent per
obligation; past them the result is UNKNOWN with the reason.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from larkc.errors import Span
from larkc.ir.types import ScalarType
from larkc.provers.congruence import AtomMatcher, DerivedUnfolder, ExtremaSimplifier
from larkc.provers.core import (
    SAME_ELEMENT_SAME_THREAD,
    Assumption,
    AssumptionKind,
    Budget,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    Status,
)
from larkc.provers.domains import (
    Decision,
    InputSpace,
    ReferenceMatch,
    decide,
    describe,
    env_of_model,
    int_type_range,
    match_reference,
    range_holds,
    reference_domain,
    side_holds,
)
from larkc.provers.witness import Witness, exact_values, find_witness
from larkc.provers.zworld import safety_net_reason
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import RangeCondition, Requirement, SideCondition, side_conditions
from larkc.symbolic.normal import DEFAULT_BUDGET, equal
from larkc.symbolic.signs import discharge
from larkc.symbolic.terms import Elem, Poly, Read, Term

__all__ = ["ElementVerdict", "Finding", "InstanceFacts", "decide_equal", "prove_instance"]

PROVER = "symbolic"

#: Terms larger than this (summands, counted over the whole DAG) are not expanded or sent to z3.
_EXPAND_NODES = 20_000
_Z3_NODES = 4_000
#: z3's budget for one condition on the inputs (a side condition, a range condition), in its resource units
_CONDITION_RLIMIT = 8_000_000


@dataclass(frozen=True, slots=True)
class Finding:
    """A diagnosis of the simulator's checks in the symbolic run, as the provers see it."""

    kind: str  # the diagnosis word: race oob divergence uninit ub assert mismatch
    text: str  # the rendered one-line diagnosis
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class InstanceFacts:
    """What one symbolic run of one shape instance established (built by the pipeline).

    ``kernel_outputs`` holds each output's elements after the launch (a term, or ``"undef"``,
    ``"+inf"``, ``"-inf"``, ``"nan"``); ``spec_outputs`` the spec's terms, or the same words where the
    reference is an infinity or NaN for every input (``None`` for a safety-only
    task); ``input_sizes``/``input_dtypes`` describe the input tensors the terms read (for witnesses);
    ``int_ranges`` the inclusive ranges of integer inputs. ``exhaustive`` says control flow and addresses
    were concrete; ``unsupported`` is the reason the run stopped, if it did. ``inputs_before`` and
    ``inputs_after`` hold the elements of each input the kernel must leave unchanged (for a task with a
    reference: those not in-place that the kernel is passed) as the run started and ended them, and
    ``input_shapes`` their shapes.
    """

    instance: Mapping[str, int]
    launch: str
    findings: tuple[Finding, ...] = ()
    exhaustive: bool = True
    data_dependent: tuple[str, ...] = ()
    unsupported: tuple[str, Span | None] | None = None
    opaque: tuple[str, ...] = ()
    assumptions: tuple[Assumption, ...] = ()
    kernel_outputs: Mapping[str, Sequence[Term | str]] = field(default_factory=dict)
    spec_outputs: Mapping[str, Sequence[Term | str]] | None = None
    output_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    input_sizes: Mapping[str, int] = field(default_factory=dict)
    input_dtypes: Mapping[str, ScalarType] = field(default_factory=dict)
    int_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    aborted: bool = False
    side_conditions: tuple[SideCondition, ...] = ()  # recorded while the kernel's terms were built
    unknowns: bool = True  # False: the run made no opaque or undefined value (no term can hold one)
    inputs_before: Mapping[str, Sequence[Term]] = field(default_factory=dict)
    inputs_after: Mapping[str, Sequence[Term | str]] = field(default_factory=dict)
    input_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    range_conditions: tuple[RangeCondition, ...] = ()  # operations on data defined only in a value range
    # by output: those that output's own reference computation recorded (its domain, not another output's)
    spec_conditions: Mapping[str, tuple[SideCondition, ...]] = field(default_factory=dict)
    block_level: bool = False  # a block-level (Triton) kernel: its race model has SAME_ELEMENT_SAME_THREAD

    @property
    def input_space(self) -> InputSpace:
        return InputSpace(self.input_sizes, self.input_dtypes, self.int_ranges)


@dataclass(frozen=True, slots=True)
class ElementVerdict:
    """The decision for one output element: ``equal`` True (proved), False (refuted), None (unknown)."""

    equal: bool | None
    how: str
    witness: Witness | None = None
    #: a refutation that is a difference of values under exact arithmetic (see ``Counterexample.arithmetic``)
    arithmetic: bool = True


def _contains(term: Term, tensor: str) -> bool:
    return any(isinstance(n, Elem | Read) and n.tensor == tensor for n in tm._post_order([term]))


def _size(term: Term) -> int:
    n = 0
    for _ in tm._post_order([term]):
        n += 1
        if n > _EXPAND_NODES:
            break
    return n


def decide_equal(
    kernel: Term | str,
    spec: Term | str,
    facts: InstanceFacts,
    *,
    deadline: float,
    solver_rlimit: int = 40_000_000,
    work: int | None = DEFAULT_BUDGET,
    matcher: AtomMatcher | None = None,
    simplifier: ExtremaSimplifier | None = None,
    unfolder: DerivedUnfolder | None = None,
    unknowns: bool = True,
) -> ElementVerdict:
    """Decide ``kernel == spec`` for all inputs (see the module docstring for the procedures tried).

    ``unknowns=False`` says the caller knows ``kernel`` reads no opaque or undefined value.

    A reference value that is an infinity or NaN for every input (``spec`` a word) is matched by the same
    word only, as ``larkc run`` compares: NaN agrees with NaN (a fully masked softmax row is NaN in torch,
    and a kernel that writes 0 there differs from it)."""
    if isinstance(spec, str):
        return _decide_nonfinite(kernel, spec, facts, unknowns)
    if isinstance(kernel, str):
        if kernel == "undef":
            return ElementVerdict(False, "never written (or computed from a value never assigned)", arithmetic=False)
        return ElementVerdict(False, f"the kernel's value is {kernel}, the reference's a real number", arithmetic=False)
    if kernel is spec:
        return ElementVerdict(True, "identical normal forms")
    if unknowns and _contains(kernel, "<undef>"):
        return ElementVerdict(False, "depends on memory never written or a variable never assigned", arithmetic=False)
    if unknowns and _contains(kernel, "<opaque>"):
        why = "; ".join(facts.opaque[:3]) or "unknown"
        return ElementVerdict(None, f"depends on a value the symbolic executor cannot model ({why})")
    if isinstance(kernel, Poly) != isinstance(spec, Poly):
        return ElementVerdict(None, "a number compared with a truth value")
    if unfolder is not None:
        kernel, spec = unfolder.simplify(kernel), unfolder.simplify(spec)
        if kernel is spec:
            return ElementVerdict(True, "equal after normalisation")
    if matcher is not None:
        if matcher.match(kernel, spec):
            return ElementVerdict(True, "equal after normalisation")
        kernel = matcher.rewrite(kernel)  # sub-terms already proved equal to the spec's, substituted
    if simplifier is not None:
        k2, s2 = simplifier.simplify(kernel), simplifier.simplify(spec)
        if k2 is not kernel or s2 is not spec:
            if k2 is s2 or (matcher is not None and matcher.match(k2, s2)):
                return ElementVerdict(True, "equal after dropping dominated constants of max/min")
            kernel, spec = k2, s2
    try:
        same = equal(kernel, spec, work)
    except (ValueError, ZeroDivisionError, RecursionError, TypeError, KeyError, IndexError):
        same = None  # a procedure that cannot handle these terms proves nothing
    if same is True:
        return ElementVerdict(True, "equal after normalisation")
    w: Witness | None = None
    if same is None and time.perf_counter() <= deadline and _size(kernel) <= _Z3_NODES and _size(spec) <= _Z3_NODES:
        z, w = _z3_equal(kernel, spec, solver_rlimit, deadline, facts.input_space)
        if z is True:
            return ElementVerdict(True, "z3: no input separates them")
        if w is not None:
            return ElementVerdict(False, "differ at inputs z3 found (its model, checked exactly)", w)
    w = find_witness(kernel, spec, facts.input_sizes, facts.input_dtypes, facts.int_ranges)
    if w is not None:
        return ElementVerdict(False, f"differ at inputs found by search ({w.strategy})", w)
    if same is False:
        return ElementVerdict(False, "differ at small integer inputs (exact rational evaluation)")
    if time.perf_counter() > deadline:
        return ElementVerdict(None, "the wall-clock safety net (--seconds) was reached: the verdict depends on load")
    return ElementVerdict(None, "normal forms differ and neither a proof nor a counterexample was found")


def _decide_nonfinite(kernel: Term | str, spec: str, facts: InstanceFacts, unknowns: bool) -> ElementVerdict:
    """``kernel == spec`` where the reference is the non-finite value ``spec`` for every input."""
    if kernel == spec:
        return ElementVerdict(True, f"both {spec}")
    if isinstance(kernel, str):
        what = "never written" if kernel == "undef" else kernel
        return ElementVerdict(False, f"the kernel's value is {what}, the reference's {spec}", arithmetic=False)
    if unknowns and _contains(kernel, "<opaque>"):
        why = "; ".join(facts.opaque[:3]) or "unknown"
        return ElementVerdict(None, f"depends on a value the symbolic executor cannot model ({why})")
    # every other kernel term is a real number (an undefined value included) for every input
    return ElementVerdict(False, f"the kernel's value is a real number for every input, the reference's {spec}")


def _z3_equal(
    a: Term, b: Term, solver_rlimit: int, deadline: float, space: InputSpace
) -> tuple[bool | None, Witness | None]:
    """Whether z3 proves ``a == b`` for every input (integer inputs integral and in their declared ranges):
    ``(True, None)``. Where z3 finds inputs that separate them, its model, rounded to the inputs' dtypes and
    checked at 60 digits, is a witness: ``(None, witness)`` (a difference only at particular values, such as
    ``v == 0.5f``, that a random search never draws). ``(None, None)`` otherwise."""
    import z3

    conv = tm.Z3Converter()
    try:
        conv.prepare([a, b])
        za, zb = conv.convert(a), conv.convert(b)
    except (ValueError, TypeError, RecursionError):
        return None, None
    s = z3.Solver()
    s.set("rlimit", solver_rlimit)  # z3's own steps: the answer does not depend on the machine's load
    s.set("timeout", max(1, int(min((deadline - time.perf_counter()) * 1000, 2**31 - 1))))  # the safety net
    elems: list[Elem] = []
    for node in tm._post_order([a, b]):
        if isinstance(node, Elem):
            elems.append(node)
            dt = space.dtypes.get(node.tensor)
            if dt is None or not (dt.is_int or dt.is_bool):
                continue
            v = conv.convert(tm.elem(node.tensor, node.index))
            s.add(z3.IsInt(v))
            lo, hi = space.int_ranges.get(node.tensor, int_type_range(dt))
            s.add(v >= lo, v <= hi)
    s.add(za != zb)
    r = s.check()
    if r == z3.unsat:
        return True, None
    if r != z3.sat:
        return None, None
    names = sorted({e.tensor for e in elems})
    if any(n not in space.sizes for n in names):
        return None, None
    env = env_of_model(s.model(), conv, elems, space, names)
    exact = exact_values([a, b], env) if env is not None else None
    if env is None or exact is None or not _apart(exact[0], exact[1]):
        return None, None  # functions z3 does not interpret, or a value the rounding moved
    return None, Witness(env, float(exact[0]), float(exact[1]), "z3 model")


def _apart(a: Any, b: Any) -> bool:
    """Whether two values computed at 60 digits differ by a relative ``1e-9`` or more, the gate the
    witness search applies too (:func:`~larkc.provers.witness.find_witness`). Equal reals computed through
    irrational functions differ in their last digits, and a reference's binary64 constant stands for the
    irrational it rounds (``e / math.sqrt(2.0)`` against a kernel's exact ``rsqrt(2.0) * e`` differ by
    1e-16): neither is a difference in the kernel. Below the gate the element stays undecided."""
    import mpmath

    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) != bool(b)
    scale = max(mpmath.mpf(1), abs(a), abs(b))
    return bool(abs(a - b) >= scale * mpmath.mpf(10) ** -9)


def _scope(facts: InstanceFacts) -> Scope:
    return Scope.bounded([facts.instance], [facts.launch])


def prove_instance(facts: InstanceFacts, obligations: Sequence[Obligation], budget: Budget) -> list[ObligationResult]:
    """One result per obligation for the instance of ``facts`` (see the module docstring)."""
    out: list[ObligationResult] = []
    for ob in obligations:
        start = time.perf_counter()
        match ob.kind:
            case ObligationKind.EQUIVALENCE:
                r = _equivalence(facts, ob, budget)
            case ObligationKind.INPUTS:
                r = _inputs(facts, ob, budget)
            case ObligationKind.OVERFLOW:
                r = ObligationResult(
                    ob, Status.UNKNOWN, _scope(facts), PROVER, "integer overflow is decided by the parametric prover"
                )
            case ObligationKind.DEFINED:
                r = _safety(facts, ob)
                if r.status is Status.PROVED:
                    r = _defined_on_data(facts, r, budget)
            case ObligationKind.LAUNCH:  # an instance that runs is a valid launch; one that is not, bad input
                r = ObligationResult(
                    ob, Status.UNKNOWN, _scope(facts), PROVER, "launch validity is decided by the parametric prover"
                )
            case ObligationKind.KERNEL:  # a property of the task's steps, not of an instance
                r = ObligationResult(ob, Status.UNKNOWN, _scope(facts), PROVER, "decided from the task's steps")
            case (
                ObligationKind.BOUNDS
                | ObligationKind.RACE
                | ObligationKind.BARRIER
                | ObligationKind.INIT
                | ObligationKind.ASSERT
            ):
                r = _safety(facts, ob)
            case _:
                assert_never(ob.kind)
        out.append(_timed(r, time.perf_counter() - start))
    return out


def _timed(r: ObligationResult, seconds: float) -> ObligationResult:
    return ObligationResult(
        r.obligation, r.status, r.scope, r.prover, r.detail, r.assumptions, r.counterexample, seconds
    )


_MODEL = Assumption(AssumptionKind.MODEL, "distinct tensors of the task are distinct buffers (no aliasing)")
_EXACT = Assumption(AssumptionKind.MODEL, "exact real arithmetic (rounding and float format conversions not modelled)")


def _stopped(facts: InstanceFacts, ob: Obligation) -> ObligationResult | None:
    """UNKNOWN when the run did not reach the end of the launch (an unsupported construct, a budget, a
    barrier divergence): its memory then says nothing about the kernel's; ``None`` when it did."""
    if facts.unsupported is not None:
        reason, span = facts.unsupported
        where = f" at {span.location()}" if span is not None and span.line > 0 else ""
        why = f"symbolic execution stopped{where}: {reason}"
    elif facts.aborted:
        why = "the launch stopped early (barrier divergence)"
    else:
        return None
    return ObligationResult(ob, Status.UNKNOWN, _scope(facts), PROVER, why)


def _safety(facts: InstanceFacts, ob: Obligation) -> ObligationResult:
    scope = _scope(facts)
    word = ob.kind.failure_kind
    hits = [f for f in facts.findings if f.kind == word]
    if hits:
        first = hits[0]
        kind = CounterexampleKind.CONFIRMED if facts.exhaustive else CounterexampleKind.EXACT
        cx = Counterexample(kind, first.text, dict(facts.instance), facts.launch, first.span)
        if facts.exhaustive:
            return ObligationResult(ob, Status.REFUTED, scope, PROVER, "found on every input", (_MODEL,), cx)
        return ObligationResult(
            ob, Status.UNKNOWN, scope, PROVER,
            f"possible {word} on a data-dependent path (needs confirmation on concrete inputs): {first.text}",
        )  # fmt: skip
    if (stopped := _stopped(facts, ob)) is not None:
        return stopped
    how = (
        "every access checked: control flow and addresses do not depend on input data"
        if facts.exhaustive
        else "a superset of the accesses checked (" + "; ".join(facts.data_dependent) + ")"
    )
    same_thread = (SAME_ELEMENT_SAME_THREAD,) if ob.kind is ObligationKind.RACE and facts.block_level else ()
    return ObligationResult(ob, Status.PROVED, scope, PROVER, how, (_MODEL, *same_thread))


def _defined_on_data(facts: InstanceFacts, proved: ObligationResult, budget: Budget) -> ObligationResult:
    """``defined`` beyond the simulator's checks: every range condition of the run (a float-to-integer
    conversion or a signed ``+ - *`` of data, defined in C only inside the type's range) proved for every
    input (by the operands' value ranges, or by z3 from the inputs' declared ranges), or refuted with inputs
    that put it outside (checked exactly; the pipeline confirms them with the simulator), or UNKNOWN."""
    conditions = facts.range_conditions
    if not conditions:
        return proved
    ob, scope = proved.obligation, proved.scope
    deadline = time.perf_counter() + budget.seconds
    by_ranges = by_z3 = 0
    open_: list[tuple[RangeCondition, str]] = []
    for c in conditions:
        if c.proved:
            by_ranges += 1
            continue
        if time.perf_counter() > deadline:
            open_.append((c, f"time budget of {budget.seconds:g} s exhausted"))
            continue
        holds, prefer = range_holds(c.value, c.low, c.high)
        use_z3 = not open_ and _size(c.value) <= _Z3_NODES  # once one is open, only refutations matter
        d = decide(
            holds,
            prefer,
            facts.input_space,
            solver_rlimit=min(budget.solver_rlimit, _CONDITION_RLIMIT) if use_z3 else 0,
        )
        if d.holds is True:
            by_z3 += 1
        elif d.holds is False:
            return _range_refuted(facts, proved, c, d)
        else:
            open_.append((c, d.how))
    if open_:
        c, why = open_[0]
        where = f" at {c.span.location()}" if c.span is not None and c.span.line > 0 else ""
        more = f" (and {len(open_) - 1} more)" if len(open_) > 1 else ""
        detail = f"{c.text()}{where}: neither proved nor refuted ({why}){more}"
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, detail)
    what = ", ".join(dict.fromkeys(c.what for c in conditions))
    ways = [f"{by_ranges} by the operands' value ranges"] if by_ranges else []
    ways += [f"{by_z3} by z3 from the inputs' declared ranges"] if by_z3 else []
    how = f"{proved.detail}; {len(conditions)} operation(s) on data in range ({what}): {', '.join(ways)}"
    assumptions = proved.assumptions
    if any(c.what.startswith("float-to-") for c in conditions):
        # The interval is exact for C's truncation toward zero (and Triton's .to): a value v converts to an
        # integer type [lo, hi] iff lo - 1 < v < hi + 1. It is decided on the exact value of the
        # expression converted: the float rounding of that value (127.99999 computed as 128.0f) is not.
        how += (
            "; each conversion decided on the exact value converted, truncated toward zero (defined strictly"
            " between lo - 1 and hi + 1), not on its float rounding"
        )
        assumptions = tuple(dict.fromkeys((*assumptions, _EXACT)))
    return ObligationResult(ob, Status.PROVED, scope, PROVER, how, assumptions)


def _range_refuted(facts: InstanceFacts, proved: ObligationResult, c: RangeCondition, d: Decision) -> ObligationResult:
    inputs = d.relevant([c.value])
    assert d.witness is not None
    values = exact_values([c.value], d.witness)
    shown = ""
    if values is not None:
        v = values[0]
        shown = f" = {int(v)}" if v == int(v) else f" = {float(v):.9g}"
    where = f" at {c.span.location()}" if c.span is not None and c.span.line > 0 else ""
    message = f"{c.what}{where} is undefined: {_short(c.value)}{shown}, not strictly between {c.low} and {c.high}"
    if not facts.exhaustive:
        why = f"possible ub on a data-dependent path (needs confirmation on concrete inputs): {message}"
        return ObligationResult(proved.obligation, Status.UNKNOWN, proved.scope, PROVER, why)
    cx = Counterexample(CounterexampleKind.EXACT, message, dict(facts.instance), facts.launch, c.span, inputs=inputs)
    return ObligationResult(proved.obligation, Status.REFUTED, proved.scope, PROVER, d.how, (_MODEL,), cx)


def _short(p: Term) -> str:
    text = str(p)
    return text if len(text) <= 80 else text[:72] + " ..."


def _equivalence(facts: InstanceFacts, ob: Obligation, budget: Budget) -> ObligationResult:
    scope = _scope(facts)
    name = ob.subject
    if facts.spec_outputs is None:
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, "the task has no reference")
    if (stopped := _stopped(facts, ob)) is not None:
        return stopped
    kernel = facts.kernel_outputs.get(name)
    spec = facts.spec_outputs.get(name)
    if kernel is None or spec is None or len(kernel) != len(spec):
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, f"no terms for output {name}")
    deadline = time.perf_counter() + budget.seconds
    unknown: list[tuple[int, str]] = []
    hows: dict[str, int] = {}
    matcher = AtomMatcher(budget.term_size, deadline)
    unknowns = False
    if facts.unknowns:  # a walk over every output term: only when the run made unknown values at all
        read = tm.tensors_of([t for t in kernel if not isinstance(t, str)])
        unknowns = "<undef>" in read or "<opaque>" in read
    simplifier = ExtremaSimplifier()
    unfolder = DerivedUnfolder()
    undecided: dict[str, int] = {}  # the shape of each element left UNKNOWN -> its index
    with side_conditions() as sc:
        for i, (k, s) in enumerate(zip(kernel, spec, strict=True)):
            if time.perf_counter() > deadline:
                unknown.append((i, f"{safety_net_reason(budget.seconds)}, at element {i} of {len(kernel)}"))
                break
            shape = _element_shape(k, s) if undecided else None
            if shape is not None and shape in undecided:
                # the same pair of terms as an element already left UNKNOWN, up to which input elements
                # they read: not decided again (an UNKNOWN is never unsound; 5,000 elements of one
                # elementwise kernel took 54 ms each to end UNKNOWN for the same reason)
                unknown.append((i, f"as element {undecided[shape]} (the same terms of other input elements)"))
                continue
            v = decide_equal(
                k,
                s,
                facts,
                deadline=deadline,
                solver_rlimit=budget.solver_rlimit,
                work=budget.term_size,
                matcher=matcher,
                simplifier=simplifier,
                unfolder=unfolder,
                unknowns=unknowns,
            )
            if v.equal is False:
                return _refuted(facts, ob, (name, facts.output_shapes.get(name, ())), i, k, s, v)
            if v.equal is None:
                unknown.append((i, v.how))
                undecided.setdefault(shape if shape is not None else _element_shape(k, s), i)
                continue
            hows[v.how] = hows.get(v.how, 0) + 1
    own_spec = facts.spec_conditions.get(name, ())
    domain = _side_conditions(facts, ob, (*facts.side_conditions, *own_spec, *sc.conditions), budget, deadline)
    if isinstance(domain, ObligationResult):
        if not unknown or domain.status is Status.REFUTED:
            return domain
        domain = []
    assumptions = (_EXACT, _MODEL, *facts.assumptions, *domain)
    if unknown:
        i, why = unknown[0]
        more = f" (and {len(unknown) - 1} more element(s))" if len(unknown) > 1 else ""
        idx = _unravel(i, facts.output_shapes.get(name, (len(kernel),)))
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, f"{name}{list(idx)}: {why}{more}", assumptions)
    detail = "every element: " + ", ".join(h for h, _ in sorted(hows.items(), key=lambda kv: -kv[1]))
    return ObligationResult(ob, Status.PROVED, scope, PROVER, detail, assumptions)


_ELEMENT = re.compile(r"\b([A-Za-z_][\w.]*)\[(\d+)\]")


def _element_shape(kernel: Term | str, spec: Term | str) -> str:
    """``kernel == spec`` as text with the input elements renamed in order of first appearance
    (``x[7] * w[7] == x[7]`` and ``x[9] * w[9] == x[9]`` have one shape): pairs of one shape are one
    question about different elements of the same tensors."""
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        key = m.group(0)
        if key not in names:
            names[key] = f"{m.group(1)}[#{len(names)}]"
        return names[key]

    return _ELEMENT.sub(rename, f"{kernel} == {spec}")


#: The start of the detail of an equivalence refuted by inputs outside the part of the domain where the
#: kernel's terms are its values: the pipeline keeps such a refutation only when the simulator confirms it.
DOMAIN_REFUTATION = "the kernel's terms equal the reference's only where"


def _side_conditions(
    facts: InstanceFacts,
    ob: Obligation,
    conditions: Sequence[SideCondition],
    budget: Budget,
    deadline: float,
) -> list[Assumption] | ObligationResult:
    """The side conditions of an equivalence proof (where the terms' simplifications hold), decided.

    Those the sign facts prove, and those z3 proves from the inputs' declared ranges, are proved. Those the
    reference's own terms need to be defined (the reference applies the same partial function to the same
    argument, or its construction recorded the same condition) become one ``domain`` assumption: inputs
    outside the reference's domain are no counterexample. The reference is that of the obligation's own
    output (``ob.subject``): another output's ``log(x)`` does not excuse this one's. Any other is refuted
    with inputs that violate it (the simulator must then show the kernel's output differ), or leaves the
    obligation UNKNOWN."""
    _, remaining = discharge(dict.fromkeys(conditions))
    if not remaining:
        return []
    own = (facts.spec_outputs or {}).get(ob.subject, ())
    ref = reference_domain([t for t in own if not isinstance(t, str)])
    for c in facts.spec_conditions.get(ob.subject, ()):
        ref.setdefault((id(c.term), c.requirement), c)
    legit: list[SideCondition] = []
    kernel_only: list[SideCondition] = []
    for c in remaining:
        match match_reference(c, ref, budget.term_size):
            case ReferenceMatch.DOMAIN:
                legit.append(c)
            case ReferenceMatch.NONE:
                kernel_only.append(c)
            case ReferenceMatch.PROVED:
                pass
    scope = _scope(facts)
    open_: list[tuple[SideCondition, str]] = []
    for c in kernel_only:
        if time.perf_counter() > deadline:
            open_.append((c, f"time budget of {budget.seconds:g} s exhausted"))
            break
        if c.requirement is Requirement.POSITIVE and (id(c.term), Requirement.NONNEGATIVE) in ref:
            # the reference is defined at 0 (a log it bounds below: clamp(log(p), min=-100) is -100 there) and
            # the kernel's terms only above 0: what the kernel computes at 0 (-inf, or the clamp's bound)
            # is not in the terms, and a run at such inputs is no judge either (the random other elements
            # fall outside the reference's domain, where it is NaN): left open
            open_.append((c, "the reference is defined at 0 in IEEE arithmetic, the kernel's terms are not"))
            continue
        holds, prefer = side_holds(c)
        # once one condition is open the obligation is UNKNOWN anyway: the others are only searched for a
        # refutation (z3 is for proofs, which can no longer change the answer)
        use_z3 = not open_ and _size(c.term) <= _Z3_NODES
        d = decide(
            holds,
            prefer,
            facts.input_space,
            solver_rlimit=min(budget.solver_rlimit, _CONDITION_RLIMIT) if use_z3 else 0,
        )
        if d.holds is True:
            continue
        if d.holds is False:
            inputs = d.relevant([c.term])
            message = (
                f"{DOMAIN_REFUTATION} {describe([c])}, a condition the reference does not need (a simplification, "
                f"or the domain of a partial function of the kernel); these inputs violate it"
            )
            cx = Counterexample(
                CounterexampleKind.EXACT, message, dict(facts.instance), facts.launch, None, inputs=inputs,
                tensor=ob.subject,
            )  # fmt: skip
            return ObligationResult(ob, Status.REFUTED, scope, PROVER, message, (), cx)
        open_.append((c, d.how))
    if open_:
        c, why = open_[0]
        more = f" (and {len(open_) - 1} more such conditions)" if len(open_) > 1 else ""
        detail = (
            f"{ob.subject}: the kernel's terms equal the reference's only where {describe([c])}{more}, "
            f"a condition the reference does not need and that is neither proved nor refuted ({why})"
        )
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, detail)
    legit = [c for i, c in enumerate(legit) if i >= _GUARDED_TRIES or not _guard_proves(c, facts.input_space, budget)]
    if not legit:
        return []
    text = f"inputs in the domain of the reference (where it is defined): {describe(legit)}"
    return [Assumption(AssumptionKind.DOMAIN, text)]


#: The most guarded domain conditions :func:`_guard_proves` gives to z3 in one obligation.
_GUARDED_TRIES = 64


def _guard_proves(c: SideCondition, space: InputSpace, budget: Budget) -> bool:
    """Whether ``c`` is a condition needed only under a guard (``select(x > 0, x, 1) > 0``: a ``where``'s or
    an arm's) that z3 proves from the guard: then it is no assumption about the inputs at all."""
    p = c.term
    if p.const or len(p.terms) != 1 or _size(p) > _Z3_NODES:
        return False
    mono, k = p.terms[0]
    if k != 1 or len(mono.factors) != 1 or not isinstance(mono.factors[0][0], tm.Select):
        return False
    holds, _ = side_holds(c)
    return decide(holds, [], space, solver_rlimit=min(budget.solver_rlimit, _CONDITION_RLIMIT)).holds is True


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for d in reversed(shape):
        out.append(flat % d if d else 0)
        flat = flat // d if d else 0
    return tuple(reversed(out))


def _refuted(
    facts: InstanceFacts,
    ob: Obligation,
    where: tuple[str, tuple[int, ...]],
    i: int,
    k: Term | str,
    s: Term | str,
    v: ElementVerdict,
) -> ObligationResult:
    """The refutation of ``ob`` at element ``i`` of tensor ``where`` (its name and shape): for equivalence an
    output element ``k`` that is not the spec's ``s``; for inputs an input element ``k`` that is not the
    symbol ``s`` it started as (the counterexample's two values are then its value after and before)."""
    name, shape = where
    idx = _unravel(i, shape)
    inputs: dict[str, dict[int, float]] = {}
    kv: float | None = None
    sv: float | None = None
    values = ""
    if v.witness is not None:
        terms: list[Term] = [t for t in (k, s) if not isinstance(t, str)]
        inputs = v.witness.relevant(terms)
        kv, sv = v.witness.kernel_value, v.witness.reference_value
    if ob.kind is ObligationKind.INPUTS:
        if kv is not None and sv is not None:
            values = f": {kv:.9g} after the launch, {sv:.9g} before"
        what = f"input {name}{list(idx)}, which the task does not declare in-place"
        message = f"the kernel changes {what} ({v.how}){values}"
    else:
        if kv is not None and sv is not None:
            values = f": kernel {kv:.9g}, reference {sv:.9g}"
        message = f"{name}{list(idx)} {v.how}{values}"
    cx = Counterexample(
        CounterexampleKind.EXACT,
        message,
        dict(facts.instance),
        facts.launch,
        None,
        idx,
        kv,
        sv,
        inputs,
        tensor=name,
        arithmetic=v.arithmetic,
    )
    return ObligationResult(ob, Status.REFUTED, _scope(facts), PROVER, v.how, (), cx)


def _inputs(facts: InstanceFacts, ob: Obligation, budget: Budget) -> ObligationResult:
    """Every input the kernel must leave unchanged ends as it started (see the module docstring)."""
    scope = _scope(facts)
    if (stopped := _stopped(facts, ob)) is not None:
        return stopped
    races = [f for f in facts.findings if f.kind == ObligationKind.RACE.failure_kind]
    if races:
        why = f"the launch races ({races[0].text}): what memory holds after it depends on the order of the accesses"
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, why)
    deadline = time.perf_counter() + budget.seconds
    unknown: list[str] = []
    exact = False  # some element proved equal to its start only under exact arithmetic
    for name, after in facts.inputs_after.items():
        before = facts.inputs_before[name]
        shape = facts.input_shapes.get(name, (len(before),))
        for i, (a, b) in enumerate(zip(after, before, strict=True)):
            if a is b:
                continue
            if time.perf_counter() > deadline:
                unknown.append(f"{safety_net_reason(budget.seconds)}, at {name}{list(_unravel(i, shape))}")
                break
            v = decide_equal(a, b, facts, deadline=deadline, solver_rlimit=budget.solver_rlimit, work=budget.term_size)
            if v.equal is False:
                return _refuted(facts, ob, (name, shape), i, a, b, v)
            if v.equal is None:
                unknown.append(f"{name}{list(_unravel(i, shape))} is rewritten: {v.how}")
            exact = True
    if unknown:
        more = f" (and {len(unknown) - 1} more element(s))" if len(unknown) > 1 else ""
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER, unknown[0] + more)
    names = ", ".join(facts.inputs_after)
    if not names:
        return ObligationResult(ob, Status.PROVED, scope, PROVER, "the kernel is passed no input it must not change")
    how = "rewritten with equal values" if exact else "never changed"
    detail = f"every element of {names} ends as it started ({how})"
    return ObligationResult(ob, Status.PROVED, scope, PROVER, detail, (_EXACT, _MODEL) if exact else (_MODEL,))
