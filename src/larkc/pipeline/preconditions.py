"""A kernel's preconditions (IR :class:`~larkc.ir.nodes.Assume`, GPUVerify's ``__requires``) in verdicts.

A precondition restricts the executions a verdict is about, so every result ``larkc verify`` proves for
a kernel that has one lists it among its assumptions (:func:`with_preconditions`). Inputs that violate
one are bad input: the simulator and the symbolic run stop with a
:class:`~larkc.errors.PreconditionError` (``larkc run`` and ``larkc verify`` exit 2). A counterexample
must satisfy every thread's preconditions: a parametric model only constrains the threads a check
pairs, so a refutation is kept only when the simulator reproduces it (which checks every thread's) or
when every precondition reads only what is the same for all threads (:func:`thread_dependent`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping

from larkc.errors import PreconditionError, SourceCache, Span
from larkc.ir.nodes import Assume, Builtin, BuiltinReg, Call, Function, Module, VarRef
from larkc.ir.printer import print_expr
from larkc.ir.walk import sub_exprs, walk_stmts
from larkc.provers import (
    Assumption,
    AssumptionKind,
    Counterexample,
    CounterexampleKind,
    ObligationResult,
    ScopeKind,
    Status,
)
from larkc.tasks import Task


def preconditions(module: Module, kernel: Function) -> tuple[Assume, ...]:
    """Every :class:`Assume` of ``kernel`` and of the functions it calls, in order, once each."""
    seen: set[str] = set()
    out: list[Assume] = []

    def visit(f: Function) -> None:
        if f.name in seen:
            return
        seen.add(f.name)
        for s in walk_stmts(f.body):
            if isinstance(s, Assume):
                out.append(s)
            elif isinstance(s, Call) and (callee := module.function(s.func)) is not None:
                visit(callee)

    visit(kernel)
    return tuple(out)


def _text(s: Assume) -> str:
    """The precondition as written in the source (one line), else as IR text."""
    span = s.span
    if span.line > 0 and span.line == span.end_line:
        line = SourceCache.line(span.file, span.line)
        if line is not None and 1 <= span.col < span.end_col <= len(line) + 1:
            text = " ".join(line[span.col - 1 : span.end_col - 1].split())
            if text:
                return text
    return f"assume {print_expr(s.cond)}"


def _where(span: Span) -> str:
    return f" at {span.location()}" if span.line > 0 else ""


def describe(s: Assume) -> str:
    """``__requires(n <= 1024) at k.cu:3:5``: the precondition as written, and where."""
    return f"{_text(s)}{_where(s.span)}"


def assumption_of(s: Assume) -> Assumption:
    """The assumption a result proved under the precondition ``s`` lists."""
    text = f"the kernel's precondition {describe(s)} holds (larkc run checks it on the task's inputs)"
    return Assumption(AssumptionKind.PRECONDITION, text, s.span)


def with_preconditions(results: list[ObligationResult], pres: tuple[Assume, ...]) -> list[ObligationResult]:
    """``results`` with every precondition among the assumptions of each proof (refutations and unknowns
    are left as they are: a confirmed counterexample satisfies them, an unknown claims nothing)."""
    if not pres:
        return results
    extra = tuple(assumption_of(s) for s in pres)
    return [
        dataclasses.replace(r, assumptions=tuple(dict.fromkeys((*r.assumptions, *extra))))
        if r.status is Status.PROVED
        else r
        for r in results
    ]


def with_task_preconditions(results: list[ObligationResult], task: Task) -> list[ObligationResult]:
    """``results`` with every precondition the task states (``distinct(dest_loc)``) among the assumptions of
    each proof: the provers assume them of the inputs, so a proof holds only for inputs that satisfy them
    (``larkc run`` draws such inputs and refuses others)."""
    if not task.preconditions:
        return results
    extra = tuple(
        Assumption(AssumptionKind.TASK, f"{p.describe()}; larkc run checks it", task.precondition_span(p))
        for p in task.preconditions
    )
    return [
        dataclasses.replace(r, assumptions=tuple(dict.fromkeys((*r.assumptions, *extra))))
        if r.status is Status.PROVED
        else r
        for r in results
    ]


def thread_dependent(pres: tuple[Assume, ...], kernel: Function) -> Assume | None:
    """The first precondition that may differ between threads, if any. The others read only the kernel's
    parameters, constants, ``blockDim`` and ``gridDim`` and sit among the kernel's first statements
    (before any parameter can be assigned): one truth value for every thread, so a model that
    satisfies one thread's satisfies all of them."""
    params = {p.name for p in kernel.params}
    leading = _leading(kernel)
    for s in pres:
        if not any(s is x for x in leading):
            return s
        for e in sub_exprs(s.cond):
            match e:
                case Builtin(reg=BuiltinReg.THREAD_IDX | BuiltinReg.BLOCK_IDX):
                    return s
                case VarRef(name=name) if name not in params:
                    return s
                case _:
                    pass
    return None


def _leading(kernel: Function) -> list[Assume]:
    """The preconditions among the kernel's first statements (before anything else runs)."""
    out: list[Assume] = []
    for s in kernel.body:
        if not isinstance(s, Assume):
            break
        out.append(s)
    return out


def outside_contract(r: ObligationResult, e: PreconditionError) -> ObligationResult:
    """A refutation whose counterexample, run through the simulator, violates a precondition: UNKNOWN
    (the solver's model satisfied the preconditions of the threads it paired, not of every thread, or of
    the values the task gives rather than those the kernel receives)."""
    where = _where(e.span) if e.span is not None else ""
    why = (
        f"the counterexample ({r.detail}) is outside the kernel's precondition{where}: the simulator, which "
        "checks it in every thread, rejects its inputs"
    )
    return ObligationResult(
        r.obligation, Status.UNKNOWN, r.scope, r.prover, why, r.assumptions, None, r.seconds, possible(r)
    )


def possible(r: ObligationResult) -> tuple[Counterexample, ...]:
    """A parametric refutation that is not upheld kept as a possible violation (a witness that blocks a
    bounded proof from standing for all sizes, :func:`larkc.provers.combine`); none from a bounded one."""
    if r.counterexample is None or r.scope.kind is not ScopeKind.PARAMETRIC:
        return ()
    return (dataclasses.replace(r.counterexample, kind=CounterexampleKind.POSSIBLE),)


def unsimulated(r: ObligationResult, module: Module, kernel: Function) -> ObligationResult:
    """A refutation the simulator could not check (sizes too large): kept when the kernel's preconditions
    hold for every thread as soon as for one (:func:`thread_dependent`), else UNKNOWN."""
    dependent = thread_dependent(preconditions(module, kernel), kernel)
    if r.status is not Status.REFUTED or dependent is None:
        return r
    where = _where(dependent.span)
    why = (
        f"a model of the paired threads ({r.detail}) that the simulator cannot check against every thread's "
        f"precondition (the one{where} depends on the thread)"
    )
    return ObligationResult(
        r.obligation, Status.UNKNOWN, r.scope, r.prover, why, r.assumptions, None, r.seconds, possible(r)
    )


@contextlib.contextmanager
def noting_instance(task: str, env: Mapping[str, int], more: str = "") -> Iterator[None]:
    """A :class:`PreconditionError` raised inside gets a note naming the task's instance that violates it."""
    try:
        yield
    except PreconditionError as e:
        shape = ", ".join(f"{s}={v}" for s, v in env.items()) or "no symbols"
        e.notes = (*e.notes, f"task {task}, instance {shape}{more}")
        raise
