"""The reference on an instance's inputs, and the comparison of the kernel's outputs with it.

**Reference and tolerance.** The reference runs twice on copies of the inputs: at the task's dtypes,
and with every floating input promoted to float64 (an ``nn.Module`` is converted with ``.double()``).
The float64 result is the yardstick; the kernel's output ``y`` agrees with it where::

    |y - ref64| <= atol * scale + rtol * |ref64| + 8 * |ref_task_dtype - ref64|

``scale`` is ``rms(ref64)`` over its finite elements, floored at the smallest normal number of the
output dtype (the magnitude of the output, so that elements that happen to be near zero are judged
against the size of the output as a whole; the floor only keeps an all-zero reference from asking for
exact zeros). It is the output's own scale, not at least 1: with a floor of 1, an all-zero (or constant)
kernel passed for every problem whose true outputs are below about ``atol`` (``x * 1e-7``, a softmax over
a very long row). ``atol``/``rtol`` depend on the output dtype
(float32: 1e-5, half: 2e-3, bfloat16: 1.6e-2, i.e. about two units in the last place of a rounded
result) and the last term allows the kernel as much rounding error as PyTorch's own computation at
the task's precision makes, with a safety factor (reductions of long rows). ``task.tolerance`` can
override ``atol`` and ``rtol``. Integer and boolean outputs must be equal. If the reference cannot run
in float64, the task-precision result is the yardstick without the last term.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from larkc.dtypes import torch_dtype
from larkc.errors import LarkcError, ReferenceError_, TaskError
from larkc.ir.types import ScalarType
from larkc.pipeline.reports import OutputReport
from larkc.tasks import Task, TensorSpec
from larkc.tasks.user_code import USER_CODE_ERRORS, describe_user_exception

__all__ = ["Tolerance", "compare_output", "functional_reference", "reference_outputs", "task_outputs", "tolerance_for"]


@dataclass(frozen=True, slots=True)
class Tolerance:
    """Absolute (times the output's scale, its root mean square) and relative tolerance of one output."""

    atol: float
    rtol: float


_DEFAULT_TOLERANCE = {
    "f64": Tolerance(1e-12, 1e-12),
    "f32": Tolerance(1e-5, 1e-5),
    "f16": Tolerance(2e-3, 2e-3),
    "bf16": Tolerance(1.6e-2, 1.6e-2),
}
_REFERENCE_SLACK = 8.0  # how many times PyTorch's own rounding error the kernel may make


def tolerance_for(task: Task, dtype: ScalarType) -> Tolerance:
    """The tolerance of an output of ``dtype``: the dtype's default, overridden by ``task.tolerance``."""
    base = _DEFAULT_TOLERANCE.get(str(dtype), Tolerance(0.0, 0.0))
    return Tolerance(task.tolerance.get("atol", base.atol), task.tolerance.get("rtol", base.rtol))


# --------------------------------------------------------------------------------------------------
# The reference


def _load_reference(task: Task) -> Callable[..., Any]:
    """The reference as a callable, loaded exactly as the reference frontend traces it (same seed, eval mode;
    the task's ``params`` taken as arguments after the others)."""
    from larkc.reference import load_reference, with_params  # only tasks with a reference import the tracer

    if task.reference is None:
        raise TaskError(f"task {task.name} has no reference")
    file = str(task.task_file) if task.task_file is not None else None
    return with_params(load_reference(task.reference, task.init_inputs, file), task.params).target


def _call_reference(ref: Callable[..., Any], inputs: Sequence[torch.Tensor], task: Task) -> list[torch.Tensor]:
    try:
        with torch.no_grad():
            result = ref(*inputs)
    except USER_CODE_ERRORS as e:
        raise ReferenceError_(f"reference of task {task.name} {describe_user_exception(e)}") from None
    outs = task_outputs(task, inputs, result)
    for o, name in zip(outs, task.outputs, strict=True):
        if not isinstance(o, torch.Tensor):
            raise ReferenceError_(f"reference of task {task.name} returned {type(o).__name__} for output {name}")
    return outs


def task_outputs(task: Task, inputs: Sequence[Any], result: Any) -> list[Any]:
    """The task's outputs, in order, from what the reference returned for ``inputs`` (its arguments).

    A reference returns every output, or, when the task has in-place tensors, only the others: the new
    value of an in-place tensor is then what the reference left in its argument (``y.add_(x)``)."""
    outs = [] if result is None else list(result) if isinstance(result, tuple | list) else [result]
    fresh = [n for n in task.outputs if n not in task.inputs]
    if len(outs) != len(task.outputs) and task.inplace and len(outs) == len(fresh):
        returned = dict(zip(fresh, outs, strict=True))
        args = dict(zip(task.inputs, inputs, strict=True))
        outs = [returned[n] if n in returned else args[n] for n in task.outputs]
    if len(outs) != len(task.outputs):
        inplace = ""
        if task.inplace:
            inplace = f" (or {len(fresh)}, leaving the in-place tensor(s) {', '.join(task.inplace)} in its arguments)"
        raise ReferenceError_(
            f"reference of task {task.name} returned {len(outs)} value(s), "
            f"the task declares {len(task.outputs)} output(s){inplace}"
        )
    return outs


def functional_reference(task: Task) -> Task:
    """``task`` with a reference function that updates in-place tensors made one that returns every output.

    The tracer reads what a reference returns; a function that updates its argument in place (``y.add_(x)``,
    returning nothing) becomes one that updates a copy and returns it, with the original's signature. Other
    references (modules, files, functions returning every output) are left as they are.
    """
    ref = task.reference
    if not task.inplace or ref is None or isinstance(ref, str | type | torch.nn.Module) or not callable(ref):
        return task
    names = list(task.inputs)

    @functools.wraps(ref)
    def functional(*args: Any) -> Any:
        copies = [
            a.clone() if n in task.inplace and isinstance(a, torch.Tensor) else a
            for n, a in zip(names, args, strict=True)
        ]
        outs = task_outputs(task, copies, ref(*copies))
        return outs[0] if len(outs) == 1 else tuple(outs)

    return dataclasses.replace(task, reference=functional)


def reference_outputs(
    task: Task, tensors: Mapping[str, torch.Tensor], seed: int
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """``(at the task's precision, in float64 or None)`` reference outputs for the inputs in ``tensors``.

    The reference gets copies of the inputs: a reference that updates a tensor in place changes neither
    ``tensors`` nor what the other run sees."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)  # modules with random parameters get the same ones in both runs
        ref = _load_reference(task)
    inputs = [tensors[n].clone() for n in task.inputs]
    low = _call_reference(ref, inputs, task)
    # From the tensors again: a reference updating an in-place tensor has changed its copy in ``inputs``.
    pristine = [tensors[n] for n in task.inputs]
    wide_inputs = [t.clone().to(torch.float64) if t.is_floating_point() else t.clone() for t in pristine]
    wide_ref: Callable[..., Any] = ref
    if isinstance(ref, torch.nn.Module):
        wide_ref = copy.deepcopy(ref).double()
    try:
        wide = _call_reference(wide_ref, wide_inputs, task)
    except LarkcError:
        wide = None  # a reference tied to its dtypes (float32 constants, dtype checks)
    return low, wide


# --------------------------------------------------------------------------------------------------
# The comparison


def compare_output(
    task: Task,
    name: str,
    spec: TensorSpec,
    got: torch.Tensor,
    low: torch.Tensor,
    wide: torch.Tensor | None,
    written: torch.Tensor | None,
) -> OutputReport:
    """Compare the kernel's output ``got`` with the reference (see the module docstring)."""
    ref = wide if wide is not None else low
    if ref.numel() != got.numel():
        raise ReferenceError_(
            f"reference of task {task.name} returned {tuple(ref.shape)} for output {name}, "
            f"the task declares {tuple(got.shape)}"
        )
    unwritten = int((~written).sum()) if written is not None else 0
    g = got.reshape(-1)
    r = ref.reshape(-1)
    if not (spec.dtype.is_float or ref.is_floating_point()):
        diff = (g.to(torch.int64) - r.to(torch.int64)).abs().to(torch.float64)
        ok_elems = diff == 0
        abs_err = diff
        rel_err = diff / r.to(torch.float64).abs().clamp_min(1)
    else:
        g64 = g.to(torch.float64)
        r64 = r.to(torch.float64)
        tol = tolerance_for(task, spec.dtype)
        finite = torch.isfinite(r64)
        floor = torch.finfo(torch_dtype(spec.dtype)).tiny if spec.dtype.is_float else 1.0
        rms = float(r64[finite].pow(2).mean().sqrt()) if bool(finite.any()) else 0.0
        scale = max(floor, rms)
        allowed = tol.atol * scale + tol.rtol * r64.abs()
        if wide is not None:
            lo64 = low.reshape(-1).to(torch.float64)
            gap = (lo64 - r64).abs()
            allowed = allowed + _REFERENCE_SLACK * torch.where(torch.isfinite(gap), gap, torch.zeros_like(gap))
        same_special = (torch.isnan(g64) & torch.isnan(r64)) | ((g64 == r64) & ~finite)
        diff = (g64 - r64).abs()
        diff = torch.where(same_special, torch.zeros_like(diff), diff)
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
        # NaN in both at one element agrees (the NaN reference makes ``allowed`` NaN there: decide it here).
        ok_elems = (diff <= allowed) | same_special
        abs_err = diff
        tiny = torch.finfo(torch_dtype(spec.dtype)).eps if spec.dtype.is_float else 1.0
        rel_err = diff / r64.abs().clamp_min(tiny)
    if written is not None:
        ok_elems = ok_elems & written.reshape(-1)
    ok = bool(ok_elems.all()) if g.numel() else True
    if g.numel() == 0:
        return OutputReport(name, 0.0, 0.0, True)
    worst_flat = int(torch.argmax(torch.where(ok_elems, abs_err, abs_err + math.inf).nan_to_num(math.inf)))
    if ok:
        worst_flat = int(torch.argmax(abs_err))
    worst = _unravel(worst_flat, tuple(got.shape))
    return OutputReport(name, float(abs_err.max()), float(rel_err.max()), ok, worst, unwritten)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-index of row-major element ``flat`` (``torch.unravel_index`` imports sympy: slow)."""
    idx = []
    for d in reversed(shape):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx))
