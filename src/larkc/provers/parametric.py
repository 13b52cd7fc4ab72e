"""The parametric safety and integer-overflow prover (z3): bounds, races, barriers, overflow for all sizes.

:func:`prove_parametric` proves or refutes, for **every** size the task allows (every symbol at least
1, the task's constraints, each tensor at most ``task.max_tensor_bytes`` bytes) and for every thread
and block of the launch the task's ``grid``/``block`` expressions give:

* ``BOUNDS``: every load, store and atomic lies inside its buffer (a task tensor, a shared or local
  array, the dynamic shared memory of ``shared_bytes``) and is aligned for its type;
* ``RACE``: no two distinct threads access one location, one of them with a plain write (or one
  atomically and one plainly), in one barrier interval of a block, or at all from two blocks;
* ``BARRIER``: every ``__syncthreads`` is reached by all live threads of the block together, every
  ``__syncwarp``, shuffle and vote by all live lanes of its mask;
* ``OVERFLOW``: signed index arithmetic never overflows, and no unsigned arithmetic or value-changing
  conversion that feeds an address wraps; sizes bound to integer kernel parameters fit them.
  A refutation gives the *smallest* sizes (by the sum of the symbols) at which it happens.

How: :class:`~larkc.provers.zexec.Executor` runs the kernel symbolically for one generic thread,
recording accesses, synchronisation points and integer operations that may leave their type's range;
this module turns them into z3 queries (instantiating a record for two distinct threads where the
property is about pairs). PROVED means z3 answered ``unsat`` for the negation of the property under
the world's facts; a satisfying model refutes the obligation only when every variable it involves is
*exact* (realised by an execution: no havocked loop value, no loaded data), otherwise the result is
UNKNOWN with the possible violation as its reason. ``docs/provers.md`` has the long form.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import assert_never

import z3

from larkc.errors import LarkcError, Span, UnsupportedError
from larkc.ir.nodes import Cast, CastKind, Function, Level, Module
from larkc.ir.phases import block_intervals, covers, phase_form
from larkc.ir.types import I32, PointerType, ScalarType, Type, VectorType
from larkc.ir.walk import fences_and_atomics, stmt_exprs
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
    ScopeKind,
    Status,
)
from larkc.provers.launch import launch_result
from larkc.provers.zexec import (
    ALL_SAFETY,
    Access,
    AccessKind,
    Executor,
    Hint,
    Issue,
    Site,
    SiteKind,
    Sync,
    SyncKind,
    Trace,
    source_text,
    walk,
)
from larkc.provers.zvalues import BoolV, IntV, OpaqueV, PtrV, Region, RegionKind, Value, trange, wrap
from larkc.provers.zworld import (
    MINIMIZE_RLIMIT,
    Answer,
    Registry,
    Session,
    World,
    Z,
    log2_text,
    minimize_sum,
    model_int,
    shape_text,
)
from larkc.tasks import BufferArg, ScalarArg, ShapeArg, Task, evaluate, free_symbols, resolve_kernel
from larkc.tasks.shape_expr import (
    ArithOp,
    BoolOp,
    CmpOp,
    ShapeArith,
    ShapeBool,
    ShapeCmp,
    ShapeExpr,
    ShapeNot,
    ShapeNum,
)

__all__ = [
    "AUTOTUNE_SCOPE",
    "MAX_SPECIALISATIONS",
    "PROVER_NAME",
    "KernelWorld",
    "KeyKind",
    "ParametricProver",
    "SpecialisationKey",
    "enumerate_specialisations",
    "kernel_world",
    "prove_parametric",
    "prove_parametric_family",
    "specialisation_keys",
]

PROVER_NAME = "parametric-z3"
#: The scope constraint of an autotuned kernel's result: the configuration its module was lowered with
#: (the pipeline, which runs every configuration, replaces it by the list of them).
AUTOTUNE_SCOPE = "the @triton.autotune configuration of this module (one specialisation)"
HANDLED = (
    ObligationKind.BOUNDS,
    ObligationKind.RACE,
    ObligationKind.BARRIER,
    ObligationKind.OVERFLOW,
    ObligationKind.DEFINED,  # compiler hints and integer divisions by sizes only: refuted or unknown, never proved
    ObligationKind.LAUNCH,  # decided from the task's launch and the kernel's limits alone (provers/launch.py)
)
#: A witness fills a tensor with one value (a read from a declared value range) up to this many elements.
FILL_ELEMENTS = 1 << 20


def prove_parametric(
    module: Module,
    kernel: str,
    task: Task,
    obligations: Sequence[Obligation],
    budget: Budget,
    specialised_for: Mapping[str, int] | None = None,
    heuristics: Mapping[str, ShapeExpr] | None = None,
) -> list[ObligationResult]:
    """One result per obligation (in order) for kernel ``kernel`` of ``module`` under ``task``.

    ``kernel`` is the IR function name or the task's kernel name (``row_sum_shared`` finds
    ``row_sum_shared<256>``). Kinds other than bounds, race, barrier, overflow and launch are UNKNOWN.

    A block-level (Triton) kernel is one specialisation: its constexprs are folded into the IR and its
    integer arguments typed by their values. ``specialised_for`` is the shape instance the module was
    lowered for (the task's first instance by default, as ``parse_task`` lowers it); the claims are then
    for the sizes with the same specialisation (the same value of every constexpr bound to a shape
    expression, every size argument fitting the type it has in the IR), stated in the scope: a claim
    for the sizes of one specialisation, not for all sizes (:func:`prove_parametric_family` covers every
    specialisation). ``heuristics``: the ``@triton.heuristics`` constexprs as shape expressions, when
    they have one (then they select the specialisation too, and its models refute).
    """
    return _prove_one(module, kernel, task, obligations, budget, specialised_for, heuristics)[0]


def _prove_one(
    module: Module,
    kernel: str,
    task: Task,
    obligations: Sequence[Obligation],
    budget: Budget,
    specialised_for: Mapping[str, int] | None,
    heuristics: Mapping[str, ShapeExpr] | None,
) -> tuple[list[ObligationResult], list[str]]:
    """:func:`prove_parametric`'s results and the scope constraints that select the specialisation."""
    start = time.monotonic()
    todo = [o for o in obligations if o.kind in HANDLED and o.kind is not ObligationKind.LAUNCH]
    deadline = start + budget.seconds
    analysis: _Analysis | None = None
    fn: Function | None = None
    failure = ""
    if todo or any(o.kind is ObligationKind.LAUNCH for o in obligations):
        try:
            fn = _kernel(module, kernel, task)
        except LarkcError as e:
            failure = e.message
    if todo and fn is not None:
        try:
            analysis = _Analysis(module, fn, task, budget, deadline, specialised_for, heuristics)
        except LarkcError as e:
            failure = f"cannot analyse the kernel: {e.message}"
    scope = Scope.parametric(task.symbols, [shape_text(c) for c in task.constraints])
    results: list[ObligationResult] = []
    for ob in obligations:
        t0 = time.monotonic()
        if ob.kind not in HANDLED:
            results.append(
                ObligationResult(
                    ob,
                    Status.UNKNOWN,
                    scope,
                    PROVER_NAME,
                    f"the parametric prover handles bounds, race, barrier, overflow and launch, not {ob.kind.value}",
                )
            )
            continue
        if ob.kind is ObligationKind.LAUNCH:  # the launch alone: no analysis of the kernel's body needed
            launch = launch_result(module, fn, task, ob, budget) if fn is not None else None
            results.append(launch or ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, failure))
            continue
        if analysis is None:
            results.append(ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, failure))
            continue
        r = analysis.result(ob)
        seconds = time.monotonic() - t0 + (analysis.seconds if ob is todo[0] else 0.0)
        results.append(dataclasses.replace(r, seconds=seconds))
    selecting = [c for c in analysis.spec_text if c != AUTOTUNE_SCOPE] if analysis is not None else []
    return results, selecting


#: The most specialisations of a Triton kernel :func:`prove_parametric_family` proves one by one; a task
#: whose constraints admit more is UNKNOWN for all sizes (``next_pow2(d)`` takes 35 values for
#: ``d <= 2^34``: a constraint on ``d``, as Triton's own limit of 2^20 elements per block, narrows it).
MAX_SPECIALISATIONS = 40


class KeyKind(enum.Enum):
    """What a :class:`SpecialisationKey` decides about the kernel's IR."""

    CONSTEXPR = "constexpr"  # a constexpr parameter bound to a shape expression: its value is folded in
    HEURISTIC = "heuristic"  # a constexpr ``@triton.heuristics`` computes from the arguments
    ARGUMENT_TYPE = "argument type"  # a size argument's type: i32 when the size fits (the condition), else i64


@dataclass(frozen=True, slots=True)
class SpecialisationKey:
    """A shape expression over the symbols whose value selects a specialisation of a Triton kernel."""

    kind: KeyKind
    name: str  # the kernel parameter
    expr: ShapeExpr

    @property
    def condition(self) -> bool:
        """Whether ``expr`` is a condition (its value a bool), not a number."""
        return self.kind is KeyKind.ARGUMENT_TYPE or (self.kind is KeyKind.HEURISTIC and _is_condition(self.expr))

    def text(self, value: int | bool) -> str:
        """The key at ``value``, as a specialisation's name shows it."""
        match self.kind:
            case KeyKind.CONSTEXPR:
                return f"{shape_text(self.expr)} = {value}"
            case KeyKind.HEURISTIC:
                return f"{self.name} = {value}"
            case KeyKind.ARGUMENT_TYPE:
                return f"{self.name} as {'i32' if value else 'i64'}"
            case _:
                assert_never(self.kind)


def specialisation_keys(
    task: Task, fn: Function, heuristics: Mapping[str, ShapeExpr] | None = None
) -> list[SpecialisationKey]:
    """What selects the specialisation of block-level kernel ``fn`` (one lowering of the task's kernel):
    every constexpr bound to a shape expression over the symbols (they are folded into the IR), every
    ``@triton.heuristics`` constexpr in ``heuristics``, and whether each size bound to an integer argument
    fits i32 (Triton passes it as i32 then, as i64 otherwise)."""
    params = {p.name: p for p in fn.params}
    keys: list[SpecialisationKey] = []
    for name, bound in task.bindings.items():
        if name not in params and isinstance(bound, ShapeArg) and free_symbols(bound.expr):
            keys.append(SpecialisationKey(KeyKind.CONSTEXPR, name, bound.expr))
    for name, expr in (heuristics or {}).items():
        if free_symbols(expr):
            keys.append(SpecialisationKey(KeyKind.HEURISTIC, name, expr))
    for name, p in params.items():
        b = task.binding(name)
        if isinstance(b, ShapeArg) and free_symbols(b.expr) and isinstance(p.type, ScalarType) and p.type.is_int:
            fits = ShapeBool(
                BoolOp.AND,
                (
                    ShapeCmp(CmpOp.GE, ShapeArith(ArithOp.ADD, b.expr, ShapeNum(2**31)), ShapeNum(0)),
                    ShapeCmp(CmpOp.LE, b.expr, ShapeNum(2**31 - 1)),
                ),
            )
            keys.append(SpecialisationKey(KeyKind.ARGUMENT_TYPE, name, fits))
    return keys


def _is_condition(e: ShapeExpr) -> bool:
    return isinstance(e, ShapeCmp | ShapeBool | ShapeNot)


def enumerate_specialisations(
    task: Task, keys: Sequence[SpecialisationKey], budget: Budget, limit: int = MAX_SPECIALISATIONS
) -> tuple[list[dict[str, int]], str]:
    """One shape instance of every specialisation the task's constraints admit (each a combination of the
    keys' values), and why the list may be incomplete (empty when it is complete).

    z3 is asked for sizes allowed by the task (its constraints, the tensor size limit, the launch
    limits) whose keys take a combination not seen yet, until there is none: ``next_pow2(d)`` under
    ``d <= 4096`` gives the 13 powers of two, each with a ``d`` of its own."""
    deadline = time.monotonic() + budget.seconds
    reg = Registry()
    world = World(task, reg, None, programs=True)
    terms = [world.cond(k.expr) if k.condition else world.int(k.expr) for k in keys]
    session = Session([*world.facts, *world.launch_facts], budget.solver_rlimit, deadline, budget.seconds)
    found: list[dict[str, int]] = []
    blocked: list[Z] = []
    while True:
        out = session.check(blocked)
        if out.answer is Answer.UNSAT:
            return found, ""
        if out.answer is Answer.UNKNOWN:
            return found, f"the enumeration of the kernel's specialisations did not finish ({out.reason})"
        if len(found) >= limit:
            return found, f"the constraints admit more than {limit} specialisations of the kernel"
        # the values of the model itself: every symbol is >= 1 in the world's facts and the model is completed,
        # so each is a size the constraints allow (a value replaced by another could name a specialisation the
        # blocking clause below never excludes, or one the constraints do not admit)
        read = {name: model_int(out.model, v) for name, v in world.syms.items()}
        inst = {name: v for name, v in read.items() if v is not None and v >= 1}
        if len(inst) != len(read):
            return found, "the enumeration of the kernel's specialisations got a model without sizes"
        env = task.shape_env(inst)
        values = [evaluate(k.expr, env) for k in keys]
        found.append(inst)
        blocked.append(
            z3.Or(
                *[t != (z3.BoolVal(bool(v)) if k.condition else v) for t, k, v in zip(terms, keys, values, strict=True)]
            )
            if keys
            else z3.BoolVal(False)
        )


def prove_parametric_family(
    task: Task,
    kernel: str,
    lower: Callable[[Mapping[str, int]], Module],
    obligations: Sequence[Obligation],
    budget: Budget,
    *,
    heuristics: Mapping[str, ShapeExpr] | None = None,
    heuristics_unknown: str = "",
) -> list[ObligationResult]:
    """One result per obligation, for every size the task allows, of a block-level (Triton) kernel whose
    IR is a family of specialisations (``lower(instance)``: the module lowered at those sizes).

    Each specialisation the constraints admit (:func:`enumerate_specialisations` over
    :func:`specialisation_keys`) is lowered at one of its instances and proved for its sizes
    (:func:`prove_parametric`). An obligation refuted in one specialisation is refuted (the witness lies
    in it, so it is confirmed against that specialisation's kernel); it is proved for all sizes only when
    every specialisation is proved and the enumeration is complete, else UNKNOWN: a proof of one
    specialisation is never stated for all sizes. ``heuristics``: the ``@triton.heuristics`` constexprs as
    shape expressions; ``heuristics_unknown``: why they have none (then nothing is proved for all sizes).
    """
    first = dict(task.instances[0]) if task.instances else None
    try:
        module = lower(first or {})
        fn = _kernel(module, kernel, task)
    except LarkcError as e:
        scope = Scope.parametric(task.symbols, [shape_text(c) for c in task.constraints])
        return [ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, e.message) for ob in obligations]
    if fn.level is Level.THREAD:
        return prove_parametric(module, kernel, task, obligations, budget)
    if any(ob.kind is ObligationKind.LAUNCH for ob in obligations):
        # the grid is the same shape expression for every specialisation: decided once, for all sizes
        rest = [ob for ob in obligations if ob.kind is not ObligationKind.LAUNCH]
        others = iter(
            prove_parametric_family(
                task, kernel, lower, rest, budget, heuristics=heuristics, heuristics_unknown=heuristics_unknown
            )
            if rest
            else []
        )
        return [
            launch_result(module, fn, task, ob, budget) if ob.kind is ObligationKind.LAUNCH else next(others)
            for ob in obligations
        ]
    keys = specialisation_keys(task, fn, heuristics)
    instances, incomplete = enumerate_specialisations(task, keys, budget)
    if heuristics_unknown:
        incomplete = heuristics_unknown
    chosen = instances or ([first] if first is not None else [])
    values = [tuple(evaluate(k.expr, task.shape_env(i)) for k in keys) for i in chosen]
    order = sorted(range(len(chosen)), key=lambda n: tuple(int(v) for v in values[n]))
    # a specialisation is named by the keys that tell it from the others
    varying = [j for j in range(len(keys)) if len({v[j] for v in values}) > 1]
    per_spec: list[tuple[str, list[ObligationResult], list[str]]] = []
    for n in order:
        inst = chosen[n]
        label = ", ".join(keys[j].text(values[n][j]) for j in varying) or "the one specialisation"
        try:
            mod = lower(inst)
        except LarkcError as e:
            scope = Scope.parametric(task.symbols, [shape_text(c) for c in task.constraints])
            failed = [ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, e.message) for ob in obligations]
            per_spec.append((label, failed, []))
            continue
        results, selecting = _prove_one(mod, kernel, task, obligations, budget, inst, heuristics)
        per_spec.append((label, results, selecting))
    labels = [label for label, _, _ in per_spec]
    if len(varying) == 1 and not keys[varying[0]].condition:  # next_pow2(d) = 1, 2, 4, ..., 4096
        key = keys[varying[0]]
        shown = [str(values[n][varying[0]]) for n in order]
        shown = shown if len(shown) <= 6 else [*shown[:3], "...", shown[-1]]
        summary = f"{shape_text(key.expr)} = {', '.join(shown)}"
    else:
        summary = "; ".join(labels if len(labels) <= 5 else [*labels[:3], "...", labels[-1]])
    return [_over_specialisations(k, ob, per_spec, summary, incomplete) for k, ob in enumerate(obligations)]


def one_specialisation(
    task: Task,
    fn: Function,
    results: Sequence[ObligationResult],
    instances: Sequence[Mapping[str, int]],
    launches: Sequence[str],
    heuristics: Mapping[str, ShapeExpr] | None,
    *,
    heuristics_unknown: bool = False,
) -> list[ObligationResult]:
    """``results`` of :func:`prove_parametric` on one given lowering ``fn`` of a block-level (Triton)
    kernel, whose specialisations were not enumerated (``verify_task(module=...)``): where the IR depends
    on the sizes (:func:`specialisation_keys`), a proof covers only the sizes of that one specialisation,
    which are not known here, so it is stated for the ``instances`` the module is verified at (a bounded
    scope, the one the symbolic engine's results on that module have, with their ``launches``), never for
    all sizes (``heuristics_unknown``: the ``@triton.heuristics`` may depend on the sizes, never all sizes).
    Refutations and unknowns are kept."""
    keys = specialisation_keys(task, fn, heuristics)
    if not keys and not heuristics_unknown:
        return list(results)  # the IR is the same at every size: its proof is for all sizes
    shown = ", ".join(k.text(evaluate(k.expr, task.shape_env(instances[0]))) for k in keys) if instances else ""
    scope = Scope.bounded(instances, launches)
    out = []
    for r in results:
        # the launch's validity is the grid's, the same shape expression in every specialisation
        launch = r.obligation.kind is ObligationKind.LAUNCH
        if r.status is Status.PROVED and r.scope.kind is ScopeKind.PARAMETRIC and not launch:
            detail = (
                f"{r.detail}; single specialisation (the module given, e.g. {shown}): the specialisations the"
                " sizes select were not enumerated, so this holds at the instances, not for all sizes"
            )
            r = dataclasses.replace(r, scope=scope, detail=detail)
        out.append(r)
    return out


def _over_specialisations(
    index: int,
    ob: Obligation,
    per_spec: Sequence[tuple[str, list[ObligationResult], list[str]]],
    summary: str,
    incomplete: str,
) -> ObligationResult:
    """One obligation's result over every specialisation (see :func:`prove_parametric_family`)."""
    results = [(label, rs[index], selecting) for label, rs, selecting in per_spec]
    refuted = [r for _, r, _ in results if r.status is Status.REFUTED]
    if refuted:
        return min(refuted, key=lambda r: sum(r.counterexample.instance.values()) if r.counterexample else 0)
    label0, r0, selecting0 = results[0]
    constraints = [c for c in r0.scope.constraints if c not in selecting0]
    scope = Scope.parametric(r0.scope.symbols, constraints)
    seconds = sum(r.seconds for _, r, _ in results)
    if len(results) == 1 and not selecting0 and not incomplete:
        return r0  # the kernel's IR does not depend on the sizes: its one proof is for all sizes
    open_ = [(label, r) for label, r, _ in results if r.status is not Status.PROVED]
    if open_ or incomplete:
        # specialisations left open for one reason are named together (40 Triton specialisations of a
        # constexpr size each said "specialisation d = k: " with the same, often empty, reason)
        reasons: dict[str, list[str]] = {}
        for label, r in open_:
            reasons.setdefault(r.detail or "not decided (the prover gave no reason)", []).append(label)
        why = [f"{_specialisation_labels(labels)}: {reason}" for reason, labels in reasons.items()]
        if incomplete:
            proved = len(results) - len(open_)
            why.append(f"{incomplete}: the parametric proof covers {proved} of them, not every size")
        witnesses = tuple(w for _, r in open_ for w in r.witnesses)  # each at its own specialisation's sizes
        return ObligationResult(
            ob, Status.UNKNOWN, scope, PROVER_NAME, "; ".join(why), r0.assumptions, None, seconds, witnesses
        )
    detail = (
        f"each of the {len(results)} specialisations the constraints admit ({summary}) proved, e.g."
        f" {label0}: {r0.detail}"
        if len(results) > 1
        else f"{r0.detail} (the one specialisation the constraints admit)"
    )
    assumptions = tuple({a: None for _, r, _ in results for a in r.assumptions})
    return ObligationResult(ob, Status.PROVED, scope, PROVER_NAME, detail, assumptions, None, seconds)


def _specialisation_labels(labels: Sequence[str]) -> str:
    """``specialisation d = 3``, ``specialisations d = 1, d = 2``, or ``specialisations d = 1 ... d = 40 (40
    of them)``."""
    if len(labels) == 1:
        return f"specialisation {labels[0]}"
    if len(labels) <= 3:
        return f"specialisations {', '.join(labels)}"
    return f"specialisations {labels[0]} ... {labels[-1]} ({len(labels)} of them)"


class ParametricProver:
    """:func:`prove_parametric` behind the :class:`~larkc.provers.core.Prover` protocol."""

    name = PROVER_NAME

    def __init__(self, module: Module, kernel: str, task: Task) -> None:
        self.module = module
        self.kernel = kernel
        self.task = task

    def prove(self, obligations: Sequence[Obligation], budget: Budget) -> list[ObligationResult]:
        return prove_parametric(self.module, self.kernel, self.task, obligations, budget)


def _kernel(module: Module, kernel: str, task: Task) -> Function:
    """The kernel ``kernel`` names, else the task's kernel; the error is about ``kernel``."""
    try:
        return resolve_kernel(module, kernel)
    except LarkcError as e:
        try:
            return resolve_kernel(module, task.kernel)
        except LarkcError:
            raise e from None


@dataclass(frozen=True, slots=True)
class KernelWorld:
    """The parametric prover's view of a kernel, for provers that build on it (the all-size prover): the
    world (sizes as z3 integers under the constraints, the launch as terms over them), its registry and
    solver session, the values the kernel's parameters are bound to, and the scope it is valid in."""

    fn: Function
    world: World
    reg: Registry
    session: Session
    #: the value of each kernel parameter (tensors as pointers to their regions, sizes as integer terms)
    param_values: Mapping[str, Value]
    #: the facts of the scope: the task's constraints, the size parameters' fits, the specialisation's sizes
    facts: tuple[Z, ...]
    #: the same facts as text, in the scope's words
    constraints: tuple[str, ...]
    #: the specialisation's facts as text (a Triton constexpr or heuristic of the sizes); empty when none
    specialisation: tuple[str, ...]


def kernel_world(
    module: Module,
    kernel: str,
    task: Task,
    budget: Budget,
    deadline: float,
    specialised_for: Mapping[str, int] | None = None,
) -> KernelWorld:
    """The world of kernel ``kernel`` of ``module`` for ``task`` (a block-level kernel's specialisation as
    lowered for ``specialised_for``); raises :class:`LarkcError` when the kernel cannot be analysed."""
    fn = _kernel(module, kernel, task)
    a = _Analysis(module, fn, task, budget, deadline, specialised_for, None)
    return KernelWorld(
        fn,
        a.world,
        a.reg,
        a.session,
        dict(a.ex.param_values),
        (*a.world.facts, *a.fits, *a.spec),
        (*a.world.scope, *a.fits_text, *a.spec_text),
        tuple(a.spec_text),
    )


@dataclass
class _Finding:
    """What the checks of one obligation found: refutations (exact models), doubts (the reasons)."""

    refuted: list[tuple[tuple[int, int], Counterexample]] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)
    #: sizes at which the possible violations among the doubts happen, each site possible at one of them
    witnesses: list[Counterexample] = field(default_factory=list)
    checked: int = 0
    best: int | None = None  # the least sum of the symbols of a refutation so far


def _decorators(source: object, kernel: str) -> set[str]:
    """The names of the decorators of Python function ``kernel`` in file ``source`` (``heuristics`` for
    ``@triton.heuristics({...})``); empty when the file is not Python or cannot be read. The provers do
    not import the Triton frontend: this is the one fact of the source they need (which specialisation
    conditions the IR does not carry)."""
    try:
        tree = ast.parse(Path(str(source)).read_text())
    except (OSError, SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                if isinstance(target, ast.Attribute):
                    names.add(target.attr)
                elif isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def _casts_away_const(module: Module) -> bool:
    """Whether some function makes a writable pointer out of a const pointer or an integer."""
    for f in module.functions:
        for s in walk(f.body):
            for e in stmt_exprs(s):
                if isinstance(e, Cast) and e.kind is CastKind.BITCAST and isinstance(e.type, PointerType):
                    if e.type.const:
                        continue
                    src = e.operand.type
                    if not isinstance(src, PointerType) or src.const:
                        return True
    return False


class _Analysis:
    """One symbolic execution of the kernel and the checks of each obligation kind over its trace."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        task: Task,
        budget: Budget,
        deadline: float,
        specialised_for: Mapping[str, int] | None = None,
        heuristics: Mapping[str, ShapeExpr] | None = None,
    ) -> None:
        t0 = time.monotonic()
        self.module = module
        self.fn = fn
        self.task = task
        # A Triton kernel is one program per block: its launch's "threads" are its programs.
        self.block_level = fn.level is not Level.THREAD
        self.spec: list[Z] = []  # the sizes of this specialisation (block-level kernels)
        self.spec_text: list[str] = []
        self.spec_held_back = ""  # why no model refutes (a specialisation whose conditions are unknown)
        self.budget = budget
        self.deadline = deadline
        self.reg = Registry()
        self.world = World(task, self.reg, fn.max_threads, programs=fn.level is not Level.THREAD)
        base = [*self.world.facts, *self.world.launch_facts]
        self.base_session = Session(base, budget.solver_rlimit, deadline, budget.seconds)
        self.param_sites: list[tuple[Site, str]] = []
        self.size_params = 0
        self.fits: list[Z] = []
        self.fits_text: list[str] = []
        self.issues_pre: list[tuple[str, Span]] = []
        values = self._bind(fn)
        if self.block_level:
            self._specialisation(fn, specialised_for, heuristics)
            base = [*base, *self.spec]
            self.base_session = Session(base, budget.solver_rlimit, deadline, budget.seconds)
        self.session = Session([*base, *self.fits], budget.solver_rlimit, deadline, budget.seconds)
        self.ex = Executor(module, fn, task, self.world, self.reg, self.session, values)
        self.trace: Trace = self.ex.run()
        self.ex.trace.sites.extend(s for s, _ in self.param_sites)
        self._check_ranges()
        self.seconds = time.monotonic() - t0
        self._barrier: ObligationResult | None = None

    # -- parameters ----------------------------------------------------------------------------------

    def _bind(self, fn: Function) -> dict[str, Value]:
        task = self.task
        trusted_const = not _casts_away_const(self.module)
        writers: dict[str, bool] = {}
        for p in fn.params:
            b = task.binding(p.name)
            if isinstance(b, BufferArg):
                # Triton has no const pointers: a tensor with a declared value range is taken as read-only,
                # and a write to it, or an access the executor cannot attribute, makes the results UNKNOWN
                # (_check_ranges)
                const = isinstance(p.type, PointerType) and p.type.const and trusted_const
                ro = const or self.block_level
                writers[b.name] = writers.get(b.name, False) or not ro
        regions: dict[str, Region] = {}
        values: dict[str, Value] = {}
        for p in fn.params:
            b = task.binding(p.name)
            t = p.type
            match b:
                case BufferArg(name):
                    if not isinstance(t, PointerType):
                        raise LarkcError(f"parameter {p.name} of type {t} is bound to tensor {name}", p.span)
                    spec = task.tensors[name]
                    r = regions.get(name)
                    if r is None:
                        vr = None
                        if spec.low is not None and spec.high is not None and not writers.get(name, True):
                            vr = (self.world.int(spec.low), self.world.int(spec.high))
                        r = Region(
                            f"global:{name}",
                            RegionKind.GLOBAL,
                            f"tensor {name}",
                            self.world.tensor_bytes[name],
                            spec.dtype,
                            name,
                            vr,
                        )
                        regions[name] = r
                    values[p.name] = PtrV(r, z3.IntVal(0), t)
                case ShapeArg(expr):
                    v = self.world.int(expr)
                    if not isinstance(t, ScalarType):
                        raise LarkcError(f"parameter {p.name} of type {t} is bound to a size", p.span)
                    if t.is_float:
                        values[p.name] = OpaqueV(t)
                    elif t.is_bool:
                        values[p.name] = BoolV(v != 0)
                    else:
                        values[p.name] = self._size_param(p.name, t, v, shape_text(expr), p.span)
                case ScalarArg(value):
                    if not isinstance(t, ScalarType):
                        raise LarkcError(f"parameter {p.name} of type {t} is bound to a scalar", p.span)
                    if t.is_float:
                        values[p.name] = OpaqueV(t)
                    elif t.is_bool:
                        values[p.name] = BoolV(z3.BoolVal(bool(value)))
                    else:
                        values[p.name] = IntV(wrap(z3.IntVal(int(value)), t), t)
                case None:
                    raise LarkcError(f"kernel parameter {p.name} has no binding", p.span)
                case _:
                    if isinstance(t, ScalarType) and t.is_float:
                        values[p.name] = OpaqueV(t)
                    else:
                        raise LarkcError(f"the binding of kernel parameter {p.name} is not modelled", p.span)
        return values

    def _specialisation(
        self, fn: Function, instance: Mapping[str, int] | None, heuristics: Mapping[str, ShapeExpr] | None
    ) -> None:
        """The facts that select the sizes a block-level kernel's IR is the specialisation of: every
        constexpr bound to a shape expression, and every ``@triton.heuristics`` constexpr given as a shape
        expression in ``heuristics``, has its value at ``instance``. Without ``heuristics``, constexprs
        that ``@triton.heuristics`` compute from the arguments have no such fact: models then never refute
        (``spec_held_back``), and the scope says which specialisation was proved."""
        params = {p.name for p in fn.params}
        inst = instance if instance is not None else (self.task.instances[0] if self.task.instances else None)
        decorators = _decorators(self.task.source, fn.name.split("<")[0]) | _decorators(
            self.task.source, self.task.kernel
        )
        at = ", ".join(f"{k}={v}" for k, v in (inst or {}).items())
        if heuristics is not None and inst is not None:
            env = self.task.shape_env(inst)
            for name, expr in heuristics.items():
                value = evaluate(expr, env)
                self._fix(
                    expr, value, f"{shape_text(expr)} is {value} (@triton.heuristics {name} of this specialisation)"
                )
        elif "heuristics" in decorators:
            self.spec_text.append(f"the @triton.heuristics constexprs as at {at} (this specialisation)")
            self.spec_held_back = (
                "the kernel's @triton.heuristics constexprs are fixed at their values for this specialisation"
                f" ({at}): at these sizes Triton may run another one"
            )
        if "autotune" in decorators:
            self.spec_text.append(AUTOTUNE_SCOPE)
        for name, b in self.task.bindings.items():
            if name in params or not isinstance(b, ShapeArg) or not free_symbols(b.expr):
                continue
            if inst is None:
                raise LarkcError(f"constexpr {name} depends on the sizes and no instance says which specialisation")
            value = int(evaluate(b.expr, self.task.shape_env(inst)))
            self._fix(b.expr, value, f"{shape_text(b.expr)} = {value} (constexpr {name} of this specialisation)")

    def _fix(self, expr: ShapeExpr, value: int | bool, text: str) -> None:
        """Add the fact that shape expression ``expr`` has ``value`` (a specialisation's), with the facts
        that define its auxiliary variables (``next_pow2``'s power of two): without them the fact would
        constrain a fresh variable, not the sizes."""
        before = len(self.world.facts)
        if isinstance(value, bool):
            c = self.world.cond(expr)
            fact = c if value else z3.Not(c)
        else:
            fact = self.world.int(expr) == value
        self.spec += [*self.world.facts[before:], fact]
        self.spec_text.append(text)

    def _size_param(self, name: str, t: ScalarType, v: Z, text: str, span: Span) -> Value:
        """The value of an integer parameter bound to a size; a site when the size may not fit."""
        self.size_params += 1
        lo, hi = trange(t)
        fits = z3.And(v >= lo, v <= hi)
        if self.block_level and t.is_signed and t.bits > 32:
            # Triton passes an integer argument as i64 only when it does not fit i32: the sizes where
            # it does are the i32 specialisation, another module
            lo32, hi32 = trange(I32)
            fits32 = z3.And(v >= lo32, v <= hi32)
            if self.base_session.check([fits32], want_model=False).answer is not Answer.UNSAT:
                self.spec.append(z3.Not(fits32))
                self.spec_text.append(f"{text} does not fit i32 (Triton passes {name} as {t} at these sizes)")
        out = self.base_session.check([z3.Not(fits)], want_model=False)
        if out.answer is Answer.UNSAT:
            return IntV(v, t)
        below = self.base_session.check([v < lo], want_model=False).answer is not Answer.UNSAT
        above = self.base_session.check([v > hi], want_model=False).answer is not Answer.UNSAT
        bound = f"{lo} <= {text} <= {hi}" if below and above else f"{text} >= {lo}" if below else f"{text} <= {hi}"
        if self.block_level:
            # Triton types an integer argument by its value (i32 when it fits): larger sizes are
            # another specialisation of the kernel, not an overflow of this one.
            self.spec.append(fits)
            self.spec_text.append(f"{bound} (Triton passes {name} as {t} at these sizes)")
            return IntV(v, t)
        site = Site(
            -len(self.param_sites) - 1,
            SiteKind.PARAM,
            t,
            v,
            (),
            out.answer,
            out.reason,
            span,
            f"{text} passed as kernel parameter {name}: {t}",
        )
        self.param_sites.append((site, name))
        self.fits.append(fits)
        self.fits_text.append(f"{bound} (fits kernel parameter {name}: {t})")
        return IntV(v, t)

    def _check_ranges(self) -> None:
        if self.block_level and any(a.region.value_range is not None for a in self.trace.accesses):
            lost = [i for i in self.trace.issues if i.reason.startswith("cannot tell which buffer")]
            for i in lost:
                reason = f"value ranges of tensors are assumed read-only, but an access is not attributed: {i.reason}"
                self.trace.issues.append(Issue(ALL_SAFETY, reason, i.span))
        for a in self.trace.accesses:
            if a.kind is not AccessKind.READ and a.region.value_range is not None:
                self.trace.issues.append(
                    Issue(
                        ALL_SAFETY,
                        f"tensor {a.region.name} has a declared value range but the kernel writes it",
                        a.span,
                    )
                )

    # -- results -------------------------------------------------------------------------------------

    def scope(self, kind: ObligationKind) -> Scope:
        cons = [*self.world.scope, *self.spec_text]
        if kind is not ObligationKind.OVERFLOW:
            cons += self.fits_text
        return Scope.parametric(self.task.symbols, cons)

    def assumptions(self, kind: ObligationKind) -> tuple[Assumption, ...]:
        out = [Assumption(AssumptionKind.MODEL, self.world.launch_text)]
        if kind in (ObligationKind.BOUNDS, ObligationKind.RACE):
            out.append(
                Assumption(AssumptionKind.MODEL, "distinct tensors of the task are distinct buffers (no aliasing)")
            )
        if kind is ObligationKind.RACE and self.block_level:
            out.append(SAME_ELEMENT_SAME_THREAD)
        if kind is ObligationKind.BOUNDS:
            out.append(
                Assumption(
                    AssumptionKind.MODEL,
                    "every buffer starts at an address aligned for every access to it (cudaMalloc aligns to 256 bytes)",
                )
            )
        if kind is not ObligationKind.OVERFLOW:
            for (site, pname), text in zip(self.param_sites, self.fits_text, strict=True):
                why = (
                    f"only sizes with {text.split(' (')[0]} are covered: kernel parameter {pname} receives"
                    " other sizes changed (the overflow obligation refutes them)"
                )
                out.append(Assumption(AssumptionKind.TASK, why, site.span))
        out.extend(self.trace.assumptions.values())
        out.append(Assumption(AssumptionKind.TRUSTED, "the frontend's translation of the kernel source to the IR"))
        return tuple(out)

    def result(self, ob: Obligation) -> ObligationResult:
        t0 = time.monotonic()
        # Each obligation gets the whole time budget for its own checks.
        self.session.deadline = self.base_session.deadline = t0 + self.budget.seconds
        match ob.kind:
            case ObligationKind.BOUNDS:
                f = self.check_bounds()
                what = f"{f.checked} accesses in bounds and aligned"
            case ObligationKind.RACE:
                f = self.check_races()
                agreed = self.check_intervals(f)
                what = f"{f.checked} pairs of accesses free of races"
                if agreed:
                    what += f" (barrier intervals of {agreed} accesses agree with the phase form)"
            case ObligationKind.BARRIER:
                f = self.check_barriers()
                what = f"{f.checked} synchronisation points reached uniformly"
            case ObligationKind.OVERFLOW:
                f = self.check_overflow()
                what = f"{self.ex.ops} integer operations and {self.size_params} size parameters free of overflow"
            case ObligationKind.DEFINED:
                hints, divisors = self.check_hints(), self.check_divisors()
                f = _Finding(
                    [*hints.refuted, *divisors.refuted],
                    [*hints.doubts, *divisors.doubts],
                    [*hints.witnesses, *divisors.witnesses],
                    hints.checked + divisors.checked,
                )
                data = [
                    s
                    for s in self.trace.sites
                    if s.kind is SiteKind.DIVISOR and self.reg.any_data(self.reg.free(s.exact))
                ]
                n = self.ex.divisions - len(data)  # a divisor read from data is decided per instance
                parts = [f"{hints.checked} compiler hints hold"] if hints.checked else []
                parts += [f"{n} integer division(s) by sizes never by zero"] if n > 0 else []
                what = " and ".join(parts)
            case _:
                raise ValueError(ob.kind)
        for issue in self.trace.issues:
            if ob.kind in issue.kinds:
                f.doubts.append(f"{issue.reason} at {issue.span.location()}")
        scope = self.scope(ob.kind)
        assumptions = self.assumptions(ob.kind)
        secs = time.monotonic() - t0
        if f.refuted:
            f.refuted.sort(key=lambda x: x[0])  # the smallest witness (overflow), else the first found
            cex = f.refuted[0][1]
            more = f" ({len(f.refuted) - 1} more such operations)" if len(f.refuted) > 1 else ""
            return ObligationResult(ob, Status.REFUTED, scope, PROVER_NAME, cex.message + more, assumptions, cex, secs)
        if f.doubts:
            detail = "; ".join(dict.fromkeys(f.doubts))
            witnesses = tuple(f.witnesses)
            return ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, detail, assumptions, None, secs, witnesses)
        sizes = "all sizes of this specialisation" if set(self.spec_text) - {AUTOTUNE_SCOPE} else "all sizes"
        detail = f"z3: {what} for {sizes} ({self.session.calls + self.base_session.calls} solver calls)"
        if ob.kind is ObligationKind.DEFINED:
            # only compiler hints and divisions by sizes are decided here: the other undefined operations
            # (conversions and arithmetic of data, shifts) are the bounded prover's, per instance, so nothing
            # is proved for all sizes (with neither: nothing to say, the per-instance proof's detail stands)
            detail = f"z3: {what} for {sizes}; the rest per instance" if what else ""
            return ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, detail, assumptions, None, secs)
        return ObligationResult(ob, Status.PROVED, scope, PROVER_NAME, detail, assumptions, None, secs)

    # -- queries -------------------------------------------------------------------------------------

    def _exact(self, parts: Sequence[Z]) -> list[str]:
        """The inexact variables the formulas mention (by what they stand for); empty when exact."""
        names = self.reg.free_all(parts)
        return sorted({i.what for i in self.reg.inexact(names)})

    def _minimize(self, session: Session, conjuncts: Sequence[Z], model: Z) -> Z:
        """A model with the least sum of the symbols (:func:`~larkc.provers.zworld.minimize_sum`, within its
        deterministic budget of solver work: the witness never depends on the machine's load)."""
        return minimize_sum(session, list(self.world.syms.values()), conjuncts, model)

    def _below(self, session: Session, conjuncts: Sequence[Z], bound: int) -> bool:
        """Whether some model has a smaller sum of the symbols than ``bound`` (quick, best effort)."""
        syms = list(self.world.syms.values())
        if not syms:
            return False
        out = session.check([*conjuncts, z3.Sum(*syms) < bound], want_model=False, rlimit=MINIMIZE_RLIMIT)
        return out.answer is Answer.SAT

    def _instance(self, model: Z) -> dict[str, int]:
        return {s: model_int(model, v) or 0 for s, v in self.world.syms.items()}

    def _launch(self, inst: dict[str, int]) -> str:
        try:
            grid, block, shared = self.task.launch.concrete(inst)
        except LarkcError:
            return ""
        text = f"grid {grid[0]}x{grid[1]}x{grid[2]}, block {block[0]}x{block[1]}x{block[2]}"
        return text + (f", {shared} bytes of dynamic shared memory" if shared else "")

    def _thread(self, model: Z, tag: str | None, parts: Sequence[Z] = ()) -> str:
        """The thread of a model (``tag``: of the pair), or for a block-level kernel the program and the
        element indices ``parts`` (formulas in base variables) mention."""

        def get(v: Z) -> int:
            e = v if tag is None else self.reg.renamed(v.decl().name(), tag)
            return model_int(model, e) or 0

        b = ",".join(str(get(v)) for v in self.ex.bid)
        if self.block_level:
            free = self.reg.free_all(parts)
            elems = [(v, what) for v, what in self.ex.elem_indices() if v.decl().name() in free]
            at = ", ".join(f"{what} = {get(v)}" for v, what in elems)
            return f"program ({b})" + (f", {at}" if at else "")
        t = ",".join(str(get(v)) for v in self.ex.tid)
        return f"block ({b}) thread ({t})"

    def _inst_text(self, inst: dict[str, int]) -> str:
        return ", ".join(f"{k}={log2_text(v)}" for k, v in inst.items()) or "the launch"

    # -- deciding one check ---------------------------------------------------------------------------

    def _decide(
        self,
        f: _Finding,
        key: tuple[int, int],
        session: Session,
        conjuncts: Sequence[Z],
        base: Sequence[Z],
        where: str,
        message: Callable[[Z, dict[str, int]], str | None],
        span: Span,
        *,
        held_back: str = "",
        minimize: bool = True,
    ) -> None:
        """Decide one possible violation (``conjuncts``, satisfiable when it happens).

        Unsatisfiable: nothing to do. Unknown: a doubt. Satisfiable: a refutation if every variable of
        ``base`` (the formulas in base variables the query was built from) is exact and nothing is
        ``held_back`` (a reason the model may not be realisable); else a doubt naming why. ``message``
        renders the (minimised) model, or returns None when the model turns out not to be realisable.
        """
        out = session.check(conjuncts)
        if out.answer is Answer.UNSAT:
            return
        if out.answer is Answer.UNKNOWN:
            f.doubts.append(f"{where}: {out.reason}")
            return
        held_back = held_back or self.spec_held_back
        inexact = self._exact(base)
        filled: dict[str, Z] = {}
        if inexact and not held_back:
            filled, conjuncts = self._filled(conjuncts, base)
            if filled:
                out = session.check(conjuncts)
                if out.answer is Answer.SAT:
                    inexact = []
        if inexact or held_back:
            why = f"the model involves {', '.join(inexact)}" if inexact else held_back
            f.doubts.append(f"possible violation: {where} ({why})")
            self._witness(f, session, conjuncts, out.model, f"possible violation: {where}", span)
            return
        model = out.model
        if minimize and (key[0] == 0 or f.best is None or self._below(session, conjuncts, f.best)):
            model = self._minimize(session, conjuncts, model)
        inst = self._instance(model)
        msg = message(model, inst)
        if msg is None:
            f.doubts.append(f"{where}: the solver's model is not realisable")
            return
        inputs: dict[str, dict[int, float]] = {}
        for tensor, v in filled.items():
            value = model_int(model, v) or 0
            msg += f", with every element of {tensor} equal to {value} (in its declared range)"
            inputs[tensor] = self._fill(tensor, value, inst)
        total = sum(inst.values())
        f.best = total if f.best is None else min(f.best, total)
        order_key = (total if key[0] else 0, key[1])
        cx = Counterexample(CounterexampleKind.STATIC, msg, inst, self._launch(inst), span, inputs=inputs)
        f.refuted.append((order_key, cx))

    def _filled(self, conjuncts: Sequence[Z], base: Sequence[Z]) -> tuple[dict[str, Z], list[Z]]:
        """When the only inexact variables of ``base`` are values read from tensors with a declared value
        range (and ``conjuncts`` mention them unrenamed): ``conjuncts`` with every such read of one tensor
        equal, and one variable per tensor. A model of that is realised by filling each tensor with its
        value: the task allows any value of the range in every element. Else nothing."""
        names = self.reg.free_all(base)
        inexact = {i.name for i in self.reg.inexact(names)}
        reads = self.ex.range_reads
        if not inexact or not inexact <= set(reads) or not inexact <= self.reg.free_all(conjuncts):
            return {}, list(conjuncts)
        per_tensor: dict[str, list[Z]] = {}
        for n in sorted(inexact):
            per_tensor.setdefault(reads[n], []).append(self.reg.decls[n])
        same = [v == vs[0] for vs in per_tensor.values() for v in vs[1:]]
        return {t: vs[0] for t, vs in per_tensor.items()}, [*conjuncts, *same]

    def _fill(self, tensor: str, value: int, inst: dict[str, int]) -> dict[int, float]:
        """Every element of ``tensor`` at ``inst`` set to ``value`` (none when it is too large to list)."""
        spec = self.task.tensors.get(tensor)
        try:
            n = math.prod(spec.concrete_shape(self.task.shape_env(inst))) if spec is not None else 0
        except LarkcError:
            return {}
        return {i: float(value) for i in range(n)} if n <= FILL_ELEMENTS else {}

    def _witness(self, f: _Finding, session: Session, conjuncts: Sequence[Z], model: Z, what: str, span: Span) -> None:
        """Keep sizes at which the possible violation ``conjuncts`` happens, for the pipeline to try to
        confirm (simulate there) or dismiss: sizes already kept when it is possible there too (a check at
        those sizes covers every site), else the smallest the solver finds."""
        syms = self.world.syms
        for w in f.witnesses:
            at = [v == w.instance[s] for s, v in syms.items()]
            if session.check([*conjuncts, *at], want_model=False, rlimit=MINIMIZE_RLIMIT).answer is Answer.SAT:
                return
        inst = self._instance(self._minimize(session, conjuncts, model))
        message = f"{what}, at {self._inst_text(inst)}"
        f.witnesses.append(Counterexample(CounterexampleKind.POSSIBLE, message, inst, self._launch(inst), span))

    def _single(self, parts: Sequence[Z]) -> list[Z]:
        """``parts`` (in base variables, one thread) with the domain facts of their variables."""
        return [*parts, *self.reg.facts(self.reg.free_all([*parts, *self.ex.tid, *self.ex.bid]))]

    def _pair(
        self, a: Sequence[Z], b: Sequence[Z], same_block: bool, shared_iteration: bool
    ) -> tuple[list[Z], list[Z]]:
        """Formulas ``a`` for thread A and ``b`` for thread B (each with its domain facts): B is in A's
        block when ``same_block``, and at A's iterations when ``shared_iteration``."""
        tb = ("B", "A" if same_block else "B", "A" if shared_iteration else "B")
        fa = self.reg.instance([*a, *self._domain(a)], "A", "A", "A")
        fb = self.reg.instance([*b, *self._domain(b)], *tb)
        return fa[: len(a)] + fb[: len(b)], fa[len(a) :] + fb[len(b) :]

    def _domain(self, parts: Sequence[Z]) -> list[Z]:
        return self.reg.facts(self.reg.free_all([*parts, *self.ex.tid, *self.ex.bid]))

    # -- bounds --------------------------------------------------------------------------------------

    def check_bounds(self) -> _Finding:
        f = _Finding()
        for order, a in enumerate(self.trace.accesses):
            if f.refuted:
                break  # one counterexample refutes the obligation
            f.checked += 1
            r = a.region
            parts = [*a.pc, z3.Not(_performed(a, a.offset))]

            def message(model: Z, inst: dict[str, int], a: Access = a) -> str | None:
                off = model_int(model, a.offset) or 0
                size = model_int(model, a.region.size) or 0
                if not -(2**63) <= off < 2**63:
                    return None  # the hardware's 64-bit address arithmetic would wrap
                problem = _bounds_problem(a, off, size)
                where = self._thread(model, None, [a.offset, *a.pc])
                return f"{_access_text(a)} is {problem} at {self._inst_text(inst)}, {where}"

            self._decide(
                f, (0, order), self.session, self._single(parts), [*parts, r.size], _access_text(a), message, a.span
            )
        return f

    # -- compiler hints ------------------------------------------------------------------------------

    def check_hints(self) -> _Finding:
        """Every compiler hint's promise holds wherever it is reached (``defined``): a model of the path
        condition with the promise false refutes, at its sizes."""
        f = _Finding()
        for order, h in enumerate(self.trace.hints):
            if f.refuted:
                break
            f.checked += 1
            parts = [*h.pc, z3.Not(h.cond)]
            where = f"the compiler hint `{h.text}` at {h.span.location()}"

            def message(model: Z, inst: dict[str, int], h: Hint = h, where: str = where) -> str:
                return (
                    f"{where} is false at {self._inst_text(inst)}, {self._thread(model, None, [h.cond, *h.pc])}"
                    " (undefined behaviour: the compiler optimises on it)"
                )

            self._decide(f, (0, order), self.session, self._single(parts), parts, where, message, h.span)
        return f

    # -- races ---------------------------------------------------------------------------------------

    def check_races(self) -> _Finding:
        f = _Finding()
        accs = [a for a in self.trace.accesses if a.region.kind is not RegionKind.LOCAL]
        barrier_ok = self._block_sync_uniform()
        has_warp_sync = any(s.kind is SyncKind.WARP for s in self.trace.syncs)
        order = 0
        for i, a in enumerate(accs):
            for b in accs[i:]:
                if f.refuted:
                    break  # one counterexample refutes the obligation
                if a.region != b.region:
                    continue
                within = _conflict(a.kind, b.kind, across=False)
                across = a.region.kind is RegionKind.GLOBAL and _conflict(a.kind, b.kind, across=True)
                if not (within or across):
                    continue
                order += 1
                f.checked += 1
                if within:
                    self._race_same_block(f, order, a, b, barrier_ok, has_warp_sync)
                if across and not f.refuted:
                    self._race_cross_block(f, order, a, b)
                if (a.nc or b.nc) and AccessKind.READ in (a.kind, b.kind) and a.kind is not b.kind and not f.refuted:
                    self._race_non_coherent(f, order, a, b)
        if self.trace.count_unreliable:
            f.doubts.extend(self.trace.count_unreliable)
        return f

    def check_intervals(self, f: _Finding) -> int:
        """Cross-check the barrier interval of each access (block barriers passed on its path, which
        the race queries compare) against the phase form (:mod:`larkc.ir.phases`, what the Lean model
        and ``larkc emit`` run): a disagreement is a defect of one of them, so race freedom is not
        claimed (a doubt). Returns how many accesses were compared; accesses the phase form does not
        place (after a loop of barriers, or with a count depending on two loops) are not."""
        if self.block_level:
            # the phase form of a block-level kernel is one phase of programs, each one thread of the
            # Lean model: it drops tl.debug_barrier(), which orders the elements of one program only
            return 0
        block = [int(str(d)) if str(d).isdigit() else None for d in self.task.launch.block]
        try:
            places = block_intervals(phase_form(self.module, self.fn, block))
        except UnsupportedError:
            return 0
        if places is None:
            return 0
        compared = 0
        for a in self.trace.accesses:
            at = places.get(a.span)
            counts = _progression(a.count)
            if not at or counts is None:
                continue
            compared += 1
            if not covers(at, *counts):
                start, period = counts
                said = f"{start} + {period}k" if period else str(start)
                f.doubts.append(
                    f"internal inconsistency: {_access_text(a)} is after {said} barriers by symbolic execution"
                    f" but the phase form places it at {sorted(at)} (start, period); race freedom is not claimed"
                )
        return compared

    def _overlap(self, a: Access, a_off: Z, b: Access, b_off: Z) -> Z:
        """The two accesses touch a common byte, both being performed: the simulator (the definition)
        does not perform an out-of-bounds or misaligned access (the bounds obligation reports it)."""
        return z3.And(
            a_off < b_off + b.size,
            b_off < a_off + a.size,
            _performed(a, a_off),
            _performed(b, b_off),
        )

    def _distinct_threads(self, shared_iteration: bool = False) -> Z:
        ta = self.reg.instance(list(self.ex.tid), "A", "A", "A")
        tb = self.reg.instance(list(self.ex.tid), "B", "A", "A" if shared_iteration else "B")
        return z3.Or(*[x != y for x, y in zip(ta, tb, strict=True)])

    def _linear(self, tag: str) -> Z:
        tx, ty, tz = self.reg.instance(list(self.ex.tid), tag, "A", tag)
        bx, by, _ = self.world.block
        return tx + bx * (ty + by * tz)

    def _race_same_block(
        self, f: _Finding, order: int, a: Access, b: Access, barrier_ok: str, has_warp_sync: bool
    ) -> None:
        if z3.is_int_value(a.count) and z3.is_int_value(b.count) and a.count.as_long() != b.count.as_long():
            return
        pa = [*a.pc, a.offset, a.count, a.wcount, *a.elements]
        pb = [*b.pc, b.offset, b.count, b.wcount, *b.elements]
        inst, facts = self._pair(pa, pb, same_block=True, shared_iteration=False)
        na, ea = len(a.pc), len(a.elements)
        off_a, cnt_a, wc_a = inst[na : na + 3]
        nb, start_b = len(b.pc), na + 3 + ea
        off_b, cnt_b, wc_b = inst[start_b + nb : start_b + nb + 3]
        if self.block_level:
            # the two accesses are one program's (block size 1): they race when made by two different
            # elements, potentially two GPU threads, with no tl.debug_barrier() between (equal counts)
            distinct = _distinct_elements(a, inst[na + 3 : start_b], b, inst[start_b + nb + 3 :])
        else:
            distinct = self._distinct_threads()
        phase = cnt_a == cnt_b
        if has_warp_sync:
            same_warp = self._linear("A") / 32 == self._linear("B") / 32
            phase = z3.And(phase, z3.Or(z3.Not(same_warp), wc_a == wc_b))
        parts = [
            *inst[:na],
            *inst[start_b : start_b + nb],
            distinct,
            self._overlap(a, off_a, b, off_b),
            phase,
            *facts,
        ]
        where = f"{_pair_text(a, b)} in one {'program' if self.block_level else 'block'}"
        # Barrier intervals are counted in barriers passed: meaningful only when barriers are uniform.
        before_barriers = z3.is_int_value(a.count) and a.count.as_long() == 0
        held_back = f"barrier uniformity is not proved: {barrier_ok}" if barrier_ok and not before_barriers else ""
        refuted = len(f.refuted)
        doubts = len(f.doubts)

        def message(model: Z, inst_: dict[str, int]) -> str:
            if self.block_level:
                return (
                    f"race on {a.region.name}: {_access_text(a)} by {self._thread(model, 'A', pa)} and "
                    f"{_access_text(b)} by {self._elements_text(model, b, 'B')} of the same program, with no "
                    f"tl.debug_barrier() between (two elements of a block may be two GPU threads), at "
                    f"{self._inst_text(inst_)}"
                )
            return (
                f"race on {a.region.name}: {_access_text(a)} by {self._thread(model, 'A')} and "
                f"{_access_text(b)} by thread ({self._tid_text(model, 'B')}) of the same block, in one barrier"
                f" interval, at {self._inst_text(inst_)}"
            )

        self._decide(f, (0, order), self.session, parts, [*pa, *pb], where, message, a.span, held_back=held_back)
        if barrier_ok and len(f.refuted) == refuted and len(f.doubts) == doubts:
            f.doubts.append(f"race freedom of {where} relies on barrier uniformity: {barrier_ok}")

    def _elements_text(self, model: Z, a: Access, tag: str) -> str:
        """``element [3, 0] (of a [4, 16] block)`` of access ``a`` in a model (``tag``: of the pair)."""
        if not a.shape:
            return "its scalar access"
        idx = [model_int(model, self.reg.instance([e], tag, "A", tag)[0]) or 0 for e in a.elements]
        dims = ", ".join(str(n) for n in a.shape)
        return f"element [{', '.join(str(i) for i in idx)}] (of a [{dims}] block)"

    @property
    def _units(self) -> str:
        return "programs" if self.block_level else "blocks"

    def _tid_text(self, model: Z, tag: str) -> str:
        return ",".join(str(model_int(model, self.reg.renamed(v.decl().name(), tag)) or 0) for v in self.ex.tid)

    def _race_cross_block(self, f: _Finding, order: int, a: Access, b: Access) -> None:
        pa = [*a.pc, a.offset]
        pb = [*b.pc, b.offset]
        inst, facts = self._pair(pa, pb, same_block=False, shared_iteration=False)
        ba = self.reg.instance(list(self.ex.bid), "A", "A", "A")
        bb = self.reg.instance(list(self.ex.bid), "B", "B", "B")
        na = len(pa)
        parts = [
            *inst[: na - 1],
            *inst[na:-1],
            z3.Or(*[x != y for x, y in zip(ba, bb, strict=True)]),
            self._overlap(a, inst[na - 1], b, inst[-1]),
            *facts,
        ]

        why = (
            "a block-scoped atomic is atomic only towards its own block"
            if AccessKind.BLOCK_ATOMIC in (a.kind, b.kind) and AccessKind.READ not in (a.kind, b.kind)
            else f"{self._units} never synchronise"
        )

        def message(model: Z, inst_: dict[str, int]) -> str:
            return (
                f"race on {a.region.name}: {_access_text(a)} by {self._thread(model, 'A', pa)} and "
                f"{_access_text(b)} by {self._thread(model, 'B', pb)} ({why}) at {self._inst_text(inst_)}"
            )

        where = f"{_pair_text(a, b)} in two blocks"
        # The model has blocks never synchronise; a kernel with device fences and atomics may order
        # them through release and acquire patterns (the simulator's definition): no refutation then.
        held_back = "blocks may synchronise through fences and atomics, which this model does not order"
        held_back = held_back if fences_and_atomics([st for fn in self.module.functions for st in fn.body]) else ""
        self._decide(f, (0, order), self.session, parts, [*pa, *pb], where, message, a.span, held_back=held_back)

    def _race_non_coherent(self, f: _Finding, order: int, a: Access, b: Access) -> None:
        """A read through the non-coherent read-only cache (``__ldg``) and a write or atomic of one byte by
        any two threads of the launch (one thread too), whatever barriers or fences lie between: the cache
        is not coherent with the launch's own stores, so the memory it reads must be read-only."""
        read, write = (a, b) if a.nc else (b, a)
        pr = [*read.pc, read.offset]
        pw = [*write.pc, write.offset]
        inst, facts = self._pair(pr, pw, same_block=False, shared_iteration=False)
        nr = len(pr)
        parts = [*inst[: nr - 1], *inst[nr:-1], self._overlap(read, inst[nr - 1], write, inst[-1]), *facts]

        def message(model: Z, inst_: dict[str, int]) -> str:
            return (
                f"race on {read.region.name}: {_access_text(read)} through the read-only cache (__ldg) by "
                f"{self._thread(model, 'A', pr)} and {_access_text(write)} by {self._thread(model, 'B', pw)} at "
                f"{self._inst_text(inst_)}: the non-coherent cache needs memory the kernel never writes"
            )

        where = f"{_pair_text(read, write)} (a read through the read-only cache)"
        self._decide(f, (0, order), self.session, parts, [*pr, *pw], where, message, read.span)

    # -- barriers ------------------------------------------------------------------------------------

    def _block_sync_uniform(self) -> str:
        """Empty when every block and warp barrier is proved uniform; else why not."""
        f = self.check_barriers(kinds=(SyncKind.BLOCK, SyncKind.WARP))
        issues = [i.reason for i in self.trace.issues if ObligationKind.RACE in i.kinds and "__syncwarp" in i.reason]
        reasons = [c.message for _, c in f.refuted] + f.doubts + issues
        return "; ".join(reasons)

    def check_barriers(self, kinds: tuple[SyncKind, ...] = tuple(SyncKind)) -> _Finding:
        f = _Finding()
        for order, s in enumerate(self.trace.syncs):
            if s.kind not in kinds or f.refuted:
                continue
            f.checked += 1
            self._sync_uniform(f, order, s)
            if s.kind is SyncKind.WARP and s.mask is not None and s.mask != 0xFFFFFFFF:
                self._sync_own_lane(f, order, s)
        return f

    def _lane_in(self, lane: Z, mask: int) -> Z:
        if mask == 0xFFFFFFFF:
            return z3.BoolVal(True)
        return z3.Or(*[lane == i for i in range(32) if mask >> i & 1]) if mask else z3.BoolVal(False)

    def _sync_uniform(self, f: _Finding, order: int, s: Sync) -> None:
        # Thread B shares A's iterations: "B does not reach s at A's iteration though it has not exited".
        pc_b = [*s.pc, s.exited]
        inst, facts = self._pair(s.pc, pc_b, same_block=True, shared_iteration=True)
        n = len(s.pc)
        reach_b = z3.And(*inst[n:-1]) if n else z3.BoolVal(True)
        parts = [*inst[:n], z3.Not(reach_b), z3.Not(inst[-1]), self._distinct_threads(shared_iteration=True)]
        group = "block"
        if s.kind is not SyncKind.BLOCK:
            la, lb = self._linear("A"), self._linear("B")
            parts += [la / 32 == lb / 32, self._lane_in(lb % 32, s.mask if s.mask is not None else 0xFFFFFFFF)]
            group = "warp"
        where = f"{s.kind.value} `{_src(s.span) or s.text}` at {s.span.location()}"

        def message(model: Z, inst_: dict[str, int]) -> str:
            return (
                f"divergence: {where} is reached by {self._thread(model, 'A')} but not by thread"
                f" ({self._tid_text(model, 'B')}) of the same {group}, which has not exited, at"
                f" {self._inst_text(inst_)}"
            )

        self._decide(f, (0, order), self.session, [*parts, *facts], [*s.pc, s.exited], where, message, s.span)

    def _sync_own_lane(self, f: _Finding, order: int, s: Sync) -> None:
        inst, facts = self._pair(s.pc, [], same_block=True, shared_iteration=True)
        lane = self._linear("A") % 32
        parts = [*inst, z3.Not(self._lane_in(lane, s.mask or 0)), *facts]
        where = f"`{s.text}` at {s.span.location()}"

        def message(model: Z, inst_: dict[str, int]) -> str:
            return f"divergence: {where} is executed by {self._thread(model, 'A')}, a lane outside its mask"

        self._decide(f, (0, order), self.session, parts, s.pc, where, message, s.span)

    # -- overflow ------------------------------------------------------------------------------------

    def _feeding(self) -> set[int]:
        """The sites whose result may flow into the address of some access."""
        out: set[int] = set()
        for a in self.trace.accesses:
            out |= a.sites
            for n in self.reg.free(a.offset):
                out |= self.reg.info(n).sites
        return out

    def check_overflow(self) -> _Finding:
        f = _Finding()
        feeding = self._feeding()
        params = {s.id for s, _ in self.param_sites}
        for order, s in enumerate(self.trace.sites):
            data = self.reg.any_data(self.reg.free(s.exact)) if s.kind is not SiteKind.PARAM else False
            counter = s.id in self.trace.counter_sites
            relevant = s.id in params or s.id in feeding or counter or (s.kind is SiteKind.SIGNED and not data)
            if not relevant:
                continue
            f.checked += 1
            where = f"`{s.source or s.text}` at {s.span.location()}"
            if s.answer is Answer.UNKNOWN:
                f.doubts.append(f"{where}: {s.reason}")
                continue
            session = self.base_session if s.id in params else self.session
            lo, hi = trange(s.t)
            parts = [*s.pc, z3.Or(s.exact < lo, s.exact > hi)]
            used = self.trace.uses.get(s.id)
            if self.block_level and used and not any(z3.is_true(u) for u in used):
                # Triton's integers wrap: a result that overflows on lanes no use reads (masked off by
                # every access it addresses) changes nothing; where it is used, it is an overflow
                parts.append(z3.Or(*used))

            def message(model: Z, inst: dict[str, int], s: Site = s) -> str:
                return self._overflow_text(s, model_int(model, s.exact) or 0, inst, model)

            self._decide(f, (1, order), session, self._single(parts), parts, f"{where} may overflow", message, s.span)
        return f

    def check_divisors(self) -> _Finding:
        """Integer divisions whose divisor depends only on sizes, launch values and thread indices (not on
        data: those are decided per instance): refuted at the smallest sizes where the divisor is zero."""
        f = _Finding()
        for order, s in enumerate(self.trace.sites):
            if s.kind is not SiteKind.DIVISOR or self.reg.any_data(self.reg.free(s.exact)):
                continue
            f.checked += 1
            where = f"`{s.source or s.text}` at {s.span.location()}"
            if s.answer is Answer.UNKNOWN:
                f.doubts.append(f"{where}: {s.reason}")
                continue
            parts = [*s.pc, s.exact == 0]

            def message(model: Z, inst: dict[str, int], s: Site = s) -> str:
                thread = self._thread(model, None, [s.exact, *s.pc])
                return (
                    f"`{s.source or s.text}` at {s.span.location()} divides by zero at {self._inst_text(inst)},"
                    f" {thread} (smallest sizes by their sum)"
                )

            self._decide(
                f, (1, order), self.session, self._single(parts), parts, f"{where} may divide by zero", message, s.span
            )
        return f

    def _overflow_text(self, s: Site, v: int, inst: dict[str, int], model: Z) -> str:
        lo, hi = trange(s.t)
        bound = f"{log2_text(hi + 1)} - 1" if v > hi and hi + 1 >= 1024 else str(hi) if v > hi else str(lo)
        cmp = ">" if v > hi else "<"
        match s.kind:
            case SiteKind.SIGNED:
                verb = f"overflows {s.t}"
            case SiteKind.UNSIGNED:
                verb = f"wraps {s.t}"
            case SiteKind.CONVERT:
                verb = f"changes value in the conversion to {s.t}"
            case SiteKind.PARAM:
                return (
                    f"{s.text} does not fit: {v} {cmp} {bound} at {self._inst_text(inst)} (smallest sizes by their sum)"
                )
            case SiteKind.DIVISOR:
                raise AssertionError("a divisor is not an overflow site")
        if s.id in self.trace.counter_sites:
            verb += f" ({COUNTER_WRAP}: the loop does not run as written)"
        ir = f" (IR `{s.text}`)" if s.source and s.source != s.text else ""
        return (
            f"`{s.source or s.text}`{ir} at {s.span.location()} {verb}: its value {log2_text(v)} {cmp} {bound}"
            f" at {self._inst_text(inst)}, {self._thread(model, None, [s.exact, *s.pc])} (smallest sizes by their sum)"
        )


#: Said by the refutation of a loop counter's update (:attr:`~larkc.provers.zexec.Trace.counter_sites`):
#: the simulator cannot run it (the loop does not end, or revisits), and the exact model is its evidence.
COUNTER_WRAP = "the update of a loop counter of a narrow type wraps"


def _progression(count: Z) -> tuple[int, int] | None:
    """``count`` as ``(start, period)`` meaning ``start + period * k`` (``k >= 0`` its one variable, a
    loop's iteration or trip count), or ``None`` when it is not of that form."""
    count = z3.simplify(count)
    if z3.is_int_value(count):
        return count.as_long(), 0
    names: dict[int, Z] = {}
    stack = [count]
    while stack:
        e = stack.pop()
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            names[e.get_id()] = e
        stack.extend(e.children())
    if len(names) != 1:
        return None
    (k,) = names.values()
    values = [z3.simplify(z3.substitute(count, (k, z3.IntVal(i)))) for i in range(3)]
    if not all(z3.is_int_value(v) for v in values):
        return None
    a, b, c = (v.as_long() for v in values)
    if b - a != c - b or b < a:
        return None
    return a, b - a


def _conflict(a: AccessKind, b: AccessKind, *, across: bool) -> bool:
    """Whether accesses of kinds ``a`` and ``b`` by two threads conflict (of two blocks: ``across``).

    Atomics are atomic towards each other when each one's scope includes the other's thread (PTX's
    morally strong): a block-scoped atomic is a plain access to an atomic of another block.
    """
    if AccessKind.WRITE in (a, b):
        return True
    if AccessKind.READ in (a, b):
        return a is not b
    return across and AccessKind.BLOCK_ATOMIC in (a, b)


def _performed(a: Access, off: Z) -> Z:
    """Access ``a`` at byte offset ``off`` (an instance of its offset) is inside its buffer and aligned."""
    inside = z3.And(off >= 0, off + a.size <= a.region.size)
    return inside if a.align <= 1 else z3.And(inside, off % a.align == 0)


def _bounds_problem(a: Access, off: int, size: int) -> str:
    """What is wrong with an access of ``a.size`` bytes at byte ``off`` of a ``size``-byte buffer."""
    r = a.region
    esize = _size(r.elem)
    if off >= 0 and off + a.size <= size:
        return f"misaligned: a {a.size}-byte access at byte {off} of {r.name} needs {a.align}-byte alignment"
    if esize and off % esize == 0 and a.size == esize:
        n = size // esize
        return f"out of bounds: element {off // esize} of {r.name}, which has {n} element{'s' * (n != 1)}"
    return f"out of bounds: bytes [{off}, {off + a.size}) of {r.name}, which has {size} bytes"


def _size(t: Type | None) -> int:
    if isinstance(t, ScalarType | VectorType):
        return t.size
    return 0


def _src(span: Span) -> str | None:
    return source_text(span)


def _access_text(a: Access) -> str:
    return f"{a.kind.value} `{_src(a.span) or a.text}` at {a.span.location()}"


def _distinct_elements(a: Access, ea: Sequence[Z], b: Access, eb: Sequence[Z]) -> Z:
    """Accesses ``a`` and ``b`` of one program are made by different elements of their blocks (``ea``,
    ``eb``: their element indices, instantiated for the pair). Blocks of different shapes are laid out
    over the program's threads independently, so any two of their elements may be two threads; two scalar
    accesses are the program's own."""
    if a.shape != b.shape:
        return z3.BoolVal(True)
    if not a.shape:
        return z3.BoolVal(False)
    return z3.Or(*[x != y for x, y in zip(ea, eb, strict=True)])


def _pair_text(a: Access, b: Access) -> str:
    return f"{_access_text(a)} and {_access_text(b)}"
