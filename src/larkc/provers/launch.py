"""The ``launch`` obligation: every launch the task's constraints allow is one CUDA accepts.

A launch past CUDA's limits fails before the kernel runs ("invalid configuration argument", "too many
resources requested for launch"): the kernel never computes its outputs. The other obligations are about
valid launches; this one shows that every size the task allows gives one, so that they are not an
assumption. The limits (compute capability 7.0 and later):

* every grid and block dimension is at least 1; the grid at most 2^31 - 1 x 65535 x 65535, the block at
  most 1024 x 1024 x 64 threads and 1024 threads in all, and at most the kernel's ``__launch_bounds__``;
* a block's static ``__shared__`` arrays and its dynamic shared memory together at most
  :data:`MAX_SHARED_BYTES_PER_BLOCK` (227 KiB, an H100's per-block maximum, the largest of any GPU).

A block-level (Triton) kernel's grid is a grid of programs with CUDA's grid limits; the compiler chooses
its threads and its shared memory, so only the grid is checked (Triton's limit on a block's elements is
checked where the kernel is lowered, for each specialisation).

z3 is asked for sizes under the task's constraints (without the launch facts the other obligations
assume) where some limit is violated: none (unsat) proves the obligation for all sizes; a model is
minimised (the least sum of the symbols) and the launch configuration evaluated at its sizes
concretely, which shows the violation exactly: a confirmed refutation, with no simulation needed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import z3

from larkc.errors import LarkcError
from larkc.ir.nodes import Alloc, Function, FunctionKind, Level, Module
from larkc.ir.types import AddressSpace, size_of
from larkc.ir.walk import walk_stmts
from larkc.provers.core import (
    Assumption,
    AssumptionKind,
    Budget,
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationResult,
    Scope,
    Status,
)
from larkc.provers.zworld import (
    MAX_BLOCK_DIMS,
    MAX_BLOCK_THREADS,
    MAX_GRID_DIMS,
    MAX_SHARED_BYTES_PER_BLOCK,
    Answer,
    Registry,
    Session,
    World,
    Z,
    minimize_sum,
    model_int,
    shape_text,
)
from larkc.tasks import Task

__all__ = ["launch_result", "static_shared_bytes"]

PROVER_NAME = "parametric-z3"

_AXES = ("x", "y", "z")

#: What the limits themselves take for granted (stated with every result of the obligation).
_ASSUMED = (
    "the launch limits are CUDA's for compute capability 7.0 and later, with at most 227 KiB (232448 bytes) of"
    " shared memory per block, an H100's maximum: a GPU with less (an A100 gives 163 KiB), or a host that does"
    " not opt in to more than 48 KiB of dynamic shared memory (cudaFuncSetAttribute), fails launches this"
    " proves valid"
)


def static_shared_bytes(module: Module, kernel: Function) -> int:
    """Bytes of the static ``__shared__`` arrays of ``kernel`` and the module's device functions (each
    device function's arrays counted as if live at once: an upper bound)."""
    total = 0
    for fn in (kernel, *(g for g in module.functions if g.kind is FunctionKind.DEVICE)):
        for s in walk_stmts(fn.body):
            if isinstance(s, Alloc) and s.count is not None and s.space is AddressSpace.SHARED:
                total += s.count * size_of(s.elem)
    return total


def launch_result(module: Module, fn: Function, task: Task, ob: Obligation, budget: Budget) -> ObligationResult:
    """Decide ``ob`` (a ``launch`` obligation) for kernel ``fn`` of ``module`` under ``task``'s
    constraints, for all sizes (see the module docstring)."""
    t0 = time.monotonic()
    reg = Registry()
    threads_level = fn.level is Level.THREAD
    try:
        world = World(task, reg, fn.max_threads, programs=not threads_level)
    except LarkcError as e:
        scope = Scope.parametric(task.symbols, [shape_text(c) for c in task.constraints])
        return ObligationResult(ob, Status.UNKNOWN, scope, PROVER_NAME, e.message)
    static = static_shared_bytes(module, fn) if threads_level else 0
    limits = _limits(world, static, threads_level)
    scope = Scope.parametric(task.symbols, world.scope)
    assumptions = (Assumption(AssumptionKind.MODEL, _ASSUMED),)
    session = Session(world.facts, budget.solver_rlimit, t0 + budget.seconds, budget.seconds)
    violated = z3.Or(*[z3.Not(ok) for ok in limits])
    out = session.check([violated])

    def result(status: Status, detail: str, cx: Counterexample | None = None) -> ObligationResult:
        secs = time.monotonic() - t0
        return ObligationResult(ob, status, scope, PROVER_NAME, detail, assumptions, cx, secs)

    if out.answer is Answer.UNSAT:
        what = "grid, block and shared memory" if threads_level else "grid"
        return result(Status.PROVED, f"z3: the launch's {what} within CUDA's limits for all sizes")
    if out.answer is Answer.UNKNOWN:
        return result(Status.UNKNOWN, f"whether every allowed launch is valid: {out.reason}")
    model = minimize_sum(session, list(world.syms.values()), [violated], out.model)
    inst = {name: model_int(model, v) or 1 for name, v in world.syms.items()}
    sizes = ", ".join(f"{k}={v}" for k, v in inst.items()) or "the launch"
    try:
        env = task.shape_env(inst)
        grid, block, dynamic = task.launch.concrete(env)
    except (LarkcError, ValueError, ZeroDivisionError) as e:
        return result(Status.UNKNOWN, f"z3 found a possibly invalid launch at {sizes}, not evaluable there: {e}")
    why = _violation(grid, block, static, dynamic, fn, threads_level)
    if why is None:  # the encoding and the evaluation disagree: never refute on the model alone
        return result(Status.UNKNOWN, f"z3 found a possibly invalid launch at {sizes}, valid when evaluated there")
    shared = f", {dynamic} shared bytes" if dynamic else ""
    launch = f"grid {'x'.join(map(str, grid))}, block {'x'.join(map(str, block))}{shared}"
    message = (
        f"at {sizes} {why}: the launch fails before the kernel runs (the launch configuration evaluated at"
        " these sizes, the smallest by their sum)"
    )
    cx = Counterexample(CounterexampleKind.CONFIRMED, message, inst, launch, fn.span)
    return result(Status.REFUTED, message, cx)


def _limits(world: World, static: int, threads_level: bool) -> list[Z]:
    """Each limit as a formula over the sizes that holds when the launch respects it."""
    out: list[Z] = []
    for i in range(3):
        out += [world.grid[i] >= 1, world.grid[i] <= MAX_GRID_DIMS[i]]
        if threads_level:
            out += [world.block[i] >= 1, world.block[i] <= MAX_BLOCK_DIMS[i]]
    if threads_level:  # world.max_threads: 1024, or the kernel's __launch_bounds__ when lower
        out.append(world.block[0] * world.block[1] * world.block[2] <= world.max_threads)
        out.append(static + world.shared_bytes <= MAX_SHARED_BYTES_PER_BLOCK)
    return out


def _violation(
    grid: Sequence[int], block: Sequence[int], static: int, dynamic: int, fn: Function, threads_level: bool
) -> str | None:
    """The first limit the concrete launch violates, as text (``None``: it is valid)."""
    what = "gridDim" if threads_level else "the grid's axis"
    for i, axis in enumerate(_AXES):
        name = f"gridDim.{axis}" if threads_level else f"the grid's axis {i}"
        if grid[i] < 1:
            return f"{name} is {grid[i]}; every grid dimension must be at least 1"
        if grid[i] > MAX_GRID_DIMS[i]:
            most = "2^31 - 1" if i == 0 else str(MAX_GRID_DIMS[i])
            return f"{name} is {grid[i]}; CUDA allows at most {most} ({what} {axis})"
    if not threads_level:
        return None
    for i, axis in enumerate(_AXES):
        if block[i] < 1:
            return f"blockDim.{axis} is {block[i]}; every block dimension must be at least 1"
        if block[i] > MAX_BLOCK_DIMS[i]:
            return f"blockDim.{axis} is {block[i]}; CUDA allows at most {MAX_BLOCK_DIMS[i]}"
    threads = block[0] * block[1] * block[2]
    if threads > MAX_BLOCK_THREADS:
        return f"the block has {threads} threads; CUDA allows at most {MAX_BLOCK_THREADS}"
    if fn.max_threads is not None and threads > fn.max_threads:
        return f"the block has {threads} threads; the kernel's __launch_bounds__ allows at most {fn.max_threads}"
    if static + dynamic > MAX_SHARED_BYTES_PER_BLOCK:
        parts = f" ({static} static, {dynamic} dynamic)" if static else ""
        return (
            f"the block needs {static + dynamic} bytes of shared memory{parts}; no GPU allows more than"
            f" {MAX_SHARED_BYTES_PER_BLOCK} (227 KiB, an H100's per-block maximum)"
        )
    return None
