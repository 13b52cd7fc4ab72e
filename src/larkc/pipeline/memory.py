"""Memory budgets: what a simulation or a symbolic run of one instance needs, estimated before it starts.

The simulator holds every thread of a launch as one lane of a vector, and the symbolic engine a term per
tensor element and per thread's variable: both grow with the instance, and a size the task allows (a
solver's witness at ``n = 2^31``, a forgotten ``cdiv`` making ``2^31`` threads) can need more memory
than the machine has. Each run is therefore estimated first, from the launch and the tensors, and a run
past the budget (:data:`DEFAULT_MEMORY_BYTES`, ``--memory``; ``Budget.memory_bytes`` for ``verify``, which
sets it for every run it starts) is not started: ``larkc run`` says so as an error, ``larkc verify``
leaves that instance (or that confirmation of a witness) UNKNOWN with the estimate as its reason, or
keeps the solver's model as its evidence.

The estimates are upper-bound-minded, from measurements of the engines (``docs/verify.md``, "Memory"):
per thread, the simulator keeps its coordinates, masks and a vector entry per variable (a few hundred
bytes); the symbolic engine a few kilobytes of terms per thread and per element.

A kernel that could not launch on any GPU is an error, not a budget question: a block's static
``__shared__`` arrays past the 48 KiB that CUDA compiles (ptxas: "uses too much shared data"), or static
and dynamic shared memory together past the 227 KiB an H100 (the largest of any GPU) gives one block.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from larkc.errors import LarkcError, SimulationError, Span, Stage
from larkc.ir.nodes import Alloc, Decl, Function, FunctionKind, Level, Module
from larkc.ir.types import AddressSpace, BlockType, size_of
from larkc.ir.walk import walk_stmts
from larkc.provers import Obligation, ObligationResult, Scope, Status
from larkc.provers.core import DEFAULT_MEMORY_BYTES
from larkc.provers.zworld import MAX_SHARED_BYTES_PER_BLOCK
from larkc.semantics.geometry import LaunchConfig, check_launch
from larkc.tasks import Launch, Task

__all__ = [
    "DEFAULT_MEMORY_BYTES",
    "MAX_SHARED_BYTES_PER_BLOCK",
    "MAX_STATIC_SHARED_BYTES",
    "Engine",
    "MemoryBudgetExceeded",
    "MemoryEstimate",
    "check_instance_launches",
    "current_budget",
    "estimate_run",
    "format_bytes",
    "instance_refused",
    "memory_budget",
    "over_budget",
    "refused_run",
    "simulation_refused",
]

_BUDGET: contextvars.ContextVar[int] = contextvars.ContextVar("larkc_memory_budget", default=DEFAULT_MEMORY_BYTES)


@contextlib.contextmanager
def memory_budget(budget_bytes: int) -> Iterator[None]:
    """Runs started inside hold to ``budget_bytes`` (:attr:`~larkc.provers.Budget.memory_bytes`; the
    default budget is 4 GiB, well under a developer machine or a CI runner, so that a run past it is
    refused before it starts rather than killed by the system)."""
    if budget_bytes < 1:
        raise LarkcError(f"memory budget {budget_bytes}: expected a positive number of bytes")
    token = _BUDGET.set(budget_bytes)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def current_budget() -> int:
    """The memory budget of the runs started now (see :func:`memory_budget`)."""
    return _BUDGET.get()


def refused_run(
    task: Task,
    modules: Module | Sequence[Module],
    env: Mapping[str, int],
    engine: Engine,
    kernels: Sequence[Function] | None = None,
) -> str | None:
    """Why a run of ``engine`` on the instance ``env`` is not started under the current budget (``None``:
    it fits); raises for a launch no GPU could run (:func:`estimate_run`)."""
    return over_budget(estimate_run(task, modules, env, engine, kernels), current_budget())


#: The most static ``__shared__`` memory a CUDA kernel may declare (ptxas refuses more: 0xc000 bytes).
MAX_STATIC_SHARED_BYTES = 48 * 1024


class Engine(enum.Enum):
    """The engine a run is estimated for."""

    SIMULATOR = "simulation"  # larkc run, and the confirmation of a counterexample (torch vectors)
    SYMBOLIC = "symbolic execution"  # larkc verify on an instance (a term per element and variable)


# Bytes per unit, measured (docs/verify.md, "Memory") and rounded up: the simulator's per-thread
# coordinates and masks, plus one vector entry (8 bytes, twice: value and temporaries) per variable; a
# tensor element's copies (inputs, state, the reference at the task's dtypes and in float64, masks, the
# write log); the symbolic engine's terms.
_SIM_THREAD_BYTES = 256
_SIM_VARIABLE_BYTES = 16
_SIM_ELEMENT_BYTES = 32
_SIM_ELEMENT_COPIES = 4
_SIM_SHARED_FACTOR = 8  # per byte of shared memory: its data, init mask and race clocks per granule
_SYMBOLIC_THREAD_BYTES = 4096
_SYMBOLIC_ELEMENT_BYTES = 4096
_SYMBOLIC_VARIABLE_BYTES = 64


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    """The estimated peak memory of one run, in bytes, with its parts (``threads``, ``tensors``, ...)."""

    engine: Engine
    parts: tuple[tuple[str, int], ...]

    @property
    def bytes(self) -> int:
        return sum(b for _, b in self.parts)

    def describe(self) -> str:
        """``about 17.2 GiB (threads 16.0 GiB for 2147483648 threads, tensors 1.2 GiB)``."""
        shown = ", ".join(f"{what} {format_bytes(b)}" for what, b in self.parts if b)
        return f"about {format_bytes(self.bytes)} ({shown})"


class MemoryBudgetExceeded(LarkcError):
    """A run that would need more memory than the budget: not started (bad input for ``larkc run``)."""

    stage = Stage.SEMANTICS


def format_bytes(n: int) -> str:
    """``4 GiB``, ``1.5 MiB``, ``512 bytes``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def estimate_run(
    task: Task,
    modules: Module | Sequence[Module],
    env: Mapping[str, int],
    engine: Engine,
    kernels: Sequence[Function] | None = None,
) -> MemoryEstimate:
    """The memory a run of ``engine`` on the instance ``env`` of ``task`` needs, before it starts.

    ``modules`` holds each launch's kernel (one module for all, or one per launch) and ``kernels`` the
    kernel of each (else each launch's kernel is looked up by name). The largest launch counts (they run
    one after the other) and every tensor (they live through all launches). Raises a located
    :class:`~larkc.errors.SimulationError` for a launch that no GPU could run (see the module docstring).
    """
    from larkc.pipeline.inputs import kernel_function

    mods = [modules] * len(task.launches) if isinstance(modules, Module) else list(modules)
    elements = tensor_bytes = 0
    for spec in task.tensors.values():
        count = math.prod(max(0, d) for d in spec.concrete_shape(dict(env)))
        elements += count
        if engine is Engine.SIMULATOR:  # the element's copies at its own width, and their bookkeeping
            tensor_bytes += count * (_SIM_ELEMENT_BYTES + _SIM_ELEMENT_COPIES * spec.dtype.size)
        else:
            tensor_bytes += count * _SYMBOLIC_ELEMENT_BYTES
    per_byte = _SIM_SHARED_FACTOR if engine is Engine.SIMULATOR else _SYMBOLIC_ELEMENT_BYTES  # of arrays
    worst: tuple[int, int, int, int] = (0, 0, 0, 0)  # thread bytes, threads, shared bytes, local bytes
    for k, mod in enumerate(mods):
        view = task.launch_task(k)
        f = kernels[k] if kernels is not None else kernel_function(view, mod)
        grid, block, dynamic = view.launch.concrete(dict(env))
        blocks = math.prod(grid)
        threads = blocks * (math.prod(block) if f.level is Level.THREAD else 1)
        static, local, variables, site = _allocations(mod, f)
        check_launchable(f, static, dynamic, site)
        per_thread = (
            _SIM_THREAD_BYTES + _SIM_VARIABLE_BYTES * variables
            if engine is Engine.SIMULATOR
            else _SYMBOLIC_THREAD_BYTES + _SYMBOLIC_VARIABLE_BYTES * variables
        )
        shared = blocks * (static + dynamic) * per_byte
        locals_ = threads * local * per_byte
        launch = (threads * per_thread, threads, shared, locals_)
        if sum(launch) - launch[1] > sum(worst) - worst[1]:
            worst = launch
    thread_bytes, threads, shared, local = worst
    parts = (
        (f"threads ({threads} of them)", thread_bytes),
        (f"tensors ({elements} elements)", tensor_bytes),
        ("shared memory", shared),
        ("local arrays", local),
    )
    return MemoryEstimate(engine, parts)


def over_budget(estimate: MemoryEstimate, budget_bytes: int) -> str | None:
    """Why a run of ``estimate`` is not started under ``budget_bytes`` (``None``: it fits)."""
    if estimate.bytes <= budget_bytes:
        return None
    return (
        f"{estimate.engine.value} of this instance would need {estimate.describe()}, over the memory budget "
        f"of {format_bytes(budget_bytes)} (--memory): not started"
    )


def check_launchable(f: Function, static_shared: int, dynamic_shared: int, site: Span | None = None) -> None:
    """A located error (at ``site``, the largest shared array, else the kernel) for a kernel whose shared
    memory no GPU gives a block (see the module docstring)."""
    if f.level is not Level.THREAD:
        return
    if static_shared > MAX_STATIC_SHARED_BYTES:
        raise SimulationError(
            f"kernel {f.name} declares {static_shared} bytes of static __shared__ memory, more than the "
            f"{MAX_STATIC_SHARED_BYTES} bytes (48 KiB) CUDA compiles (ptxas: uses too much shared data): it "
            f"cannot be built or launched on any GPU",
            site or f.span,
        )
    if static_shared + dynamic_shared > MAX_SHARED_BYTES_PER_BLOCK:
        raise SimulationError(
            f"kernel {f.name} asks {static_shared + dynamic_shared} bytes of shared memory per block "
            f"({static_shared} static, {dynamic_shared} dynamic), more than the {MAX_SHARED_BYTES_PER_BLOCK} "
            f"bytes (227 KiB) any GPU gives a block: the launch fails",
            f.span,
        )


def check_instance_launches(
    task: Task, modules: Module | Sequence[Module], kernels: Sequence[Function], envs: Sequence[Mapping[str, int]]
) -> None:
    """Raise a "bad launch" error (bad input, as ``larkc run`` reports it) when a launch of one of the
    task's own instances ``envs`` is one CUDA refuses: its grid, block or shared memory past the limits.
    Sizes the constraints allow but no instance has are the ``launch`` obligation's (a refutation)."""
    mods = [modules] * len(task.launches) if isinstance(modules, Module) else list(modules)
    for env in envs:
        for k, (mod, f) in enumerate(zip(mods, kernels, strict=True)):
            grid, block, dynamic = task.launch_task(k).launch.concrete(dict(env))
            static, _, _, site = _allocations(mod, f)
            try:
                check_launch(LaunchConfig(grid, block, dynamic), f.level, f.max_threads)
                check_launchable(f, static, dynamic, site)
            except SimulationError as e:
                sizes = ", ".join(f"{s}={v}" for s, v in env.items()) or "no symbols"
                raise SimulationError(f"{e.message} (the task's instance {sizes})", e.span) from None


def _allocations(module: Module, kernel: Function) -> tuple[int, int, int, Span | None]:
    """Bytes of static shared arrays, bytes of local arrays per thread, variables (a Triton block counts
    its elements), and the span of the
    largest shared array, over ``kernel`` and the module's device functions (each device function's
    arrays counted as if live at once: an upper bound)."""
    static = local = variables = 0
    site: Span | None = None
    largest = 0
    for fn in (kernel, *(g for g in module.functions if g.kind is FunctionKind.DEVICE)):
        for s in walk_stmts(fn.body):
            match s:
                case Alloc(count=count, elem=elem, space=space, span=span) if count is not None:
                    size = count * size_of(elem)
                    if space is AddressSpace.SHARED:
                        static += size
                        if size > largest:
                            largest, site = size, span
                    else:
                        local += size
                case Decl(type=BlockType(shape=shape)):  # a Triton block: an entry per element, per program
                    variables += math.prod(shape)
                case Decl():
                    variables += 1
                case _:
                    pass
    return static, local, variables, site


def simulation_refused(task: Task, modules: Module | Sequence[Module], env: Mapping[str, int]) -> str | None:
    """Why the simulator is not run on ``env`` (a counterexample's sizes) under the current budget, or
    ``None``; a launch no GPU could run is refused too (its error is the reason), since a confirmation
    is optional: the solver's model stays the evidence."""
    try:
        return refused_run(task, modules, env, Engine.SIMULATOR)
    except SimulationError as e:
        return e.message


def instance_refused(
    task: Task, obligations: Sequence[Obligation], env: Mapping[str, int], reason: str
) -> list[ObligationResult]:
    """UNKNOWN on the instance ``env`` for each of ``obligations``: its run was not started for ``reason``."""
    launches = []
    for x in task.launches:
        grid, block, _ = Launch(x.grid, x.block, x.shared_bytes).concrete(dict(env))
        launches.append(f"grid {'x'.join(map(str, grid))}, block {'x'.join(map(str, block))}")
    scope = Scope.bounded([dict(env)], ["; ".join(launches)])
    return [ObligationResult(ob, Status.UNKNOWN, scope, "pipeline", reason) for ob in obligations]
