"""``larkc run``: simulate a task's kernel and its PyTorch reference on random inputs, and compare.

For each concrete shape instance of a task the runner draws inputs from a seeded generator, runs the
simulated kernel (:func:`larkc.semantics.simulate`) and the reference on the same inputs, and compares
each output with a dtype-aware tolerance. A failing instance is written to a *replay file* (JSON:
task, instance, seed, launch, diagnoses) that ``larkc run --replay FILE`` runs again.

**Inputs.** Floating tensors are standard normal, drawn in float32 and rounded to their dtype; integer
tensors are uniform in their ``TensorSpec`` value range (``"i64[n] in [0, max_pos)"``), or else in
``[0, m)`` with ``m`` the instance's smallest symbol value (integer inputs of kernels are nearly always
indices, and the smallest dimension is a bound every index respects); bools are fair coins. Outputs
and scratch start as their ``TensorSpec.init`` says (``empty`` by default: unspecified bytes whose
reads are ``uninit``). The generator is fresh per instance, seeded with the seed, so an instance is
reproducible alone.

**Reference and tolerance.** The reference runs twice on copies of the inputs: at the task's dtypes,
and with every floating input promoted to float64 (an ``nn.Module`` is converted with ``.double()``).
The float64 result is the yardstick; the kernel's output ``y`` agrees with it where::

    |y - ref64| <= atol * scale + rtol * |ref64| + 8 * |ref_task_dtype - ref64|

``scale`` is ``max(1, rms(ref64))`` (the magnitude of the output, so that sums that happen to be near
zero are judged against the size of what was summed), ``atol``/``rtol`` depend on the output dtype
(float32: 1e-5, half: 2e-3, bfloat16: 1.6e-2, i.e. about two units in the last place of a rounded
result) and the last term allows the kernel as much rounding error as PyTorch's own computation at
the task's precision makes, with a safety factor (reductions of long rows). ``task.tolerance`` can
override ``atol`` and ``rtol``. Integer and boolean outputs must be equal. If the reference cannot run
in float64, the task-precision result is the yardstick without the last term.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from larkc.dtypes import torch_dtype
from larkc.errors import LarkcError, ReferenceError_, TaskError
from larkc.ir.nodes import Function, Module, Param
from larkc.ir.types import PointerType, ScalarType, VoidType, scalar_of
from larkc.semantics.diagnostics import Diagnosis, DiagnosisKind
from larkc.semantics.geometry import LaunchConfig
from larkc.semantics.interpreter import GlobalBuffer, KernelArg, SimLimits, SimResult, simulate
from larkc.tasks import BufferArg, ScalarArg, ShapeArg, Task, TensorSpec, command_line_task, evaluate, load_task

__all__ = [
    "InstanceReport",
    "OutputReport",
    "RunReport",
    "Tolerance",
    "compare_output",
    "kernel_args",
    "kernel_function",
    "load_replay",
    "make_inputs",
    "reference_outputs",
    "run_instance",
    "run_task",
    "tolerance_for",
    "write_replay_file",
]

REPLAY_VERSION = 1


@dataclass(frozen=True, slots=True)
class Tolerance:
    """Absolute (times the output's scale) and relative tolerance of one output."""

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
    base = _DEFAULT_TOLERANCE.get(str(dtype), Tolerance(0.0, 0.0))
    return Tolerance(task.tolerance.get("atol", base.atol), task.tolerance.get("rtol", base.rtol))


@dataclass(frozen=True, slots=True)
class OutputReport:
    """How one output compares with the reference: the largest errors and the verdict."""

    name: str
    max_abs_err: float
    max_rel_err: float
    ok: bool
    worst_index: tuple[int, ...] | None = None
    unwritten: int = 0

    def render(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        extra = f", {self.unwritten} element(s) never written" if self.unwritten else ""
        return f"{self.name}: max abs err {self.max_abs_err:.3g}, max rel err {self.max_rel_err:.3g}{extra} ({verdict})"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "max_abs_err": _json_float(self.max_abs_err),
            "max_rel_err": _json_float(self.max_rel_err),
            "ok": self.ok,
            "worst_index": list(self.worst_index) if self.worst_index is not None else None,
            "unwritten": self.unwritten,
        }


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


@dataclass(frozen=True, slots=True)
class InstanceReport:
    """The result of one shape instance: diagnoses (mismatches included) and per-output errors."""

    shape: dict[str, int]
    seed: int
    launch: LaunchConfig
    diagnoses: tuple[Diagnosis, ...]
    outputs: tuple[OutputReport, ...]
    seconds: float
    replay: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.diagnoses

    def kinds(self) -> set[str]:
        return {d.kind.value for d in self.diagnoses}

    def to_json(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "seed": self.seed,
            "launch": _launch_json(self.launch),
            "ok": self.ok,
            "diagnoses": [d.to_json() for d in self.diagnoses],
            "outputs": [o.to_json() for o in self.outputs],
            "seconds": self.seconds,
            "replay": str(self.replay) if self.replay is not None else None,
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """The result of ``larkc run`` on one task."""

    task: str
    expected_failure: str | None
    instances: tuple[InstanceReport, ...]

    @property
    def ok(self) -> bool:
        return all(i.ok for i in self.instances)

    def kinds(self) -> set[str]:
        return set().union(*(i.kinds() for i in self.instances)) if self.instances else set()

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "ok": self.ok,
            "expected_failure": self.expected_failure,
            "kinds": sorted(self.kinds()),
            "instances": [i.to_json() for i in self.instances],
        }


def _launch_json(launch: LaunchConfig) -> dict[str, Any]:
    return {"grid": list(launch.grid), "block": list(launch.block), "shared_bytes": launch.shared_bytes}


# --------------------------------------------------------------------------------------------------
# Inputs and arguments


def make_inputs(task: Task, env: Mapping[str, int], seed: int) -> dict[str, torch.Tensor]:
    """Every tensor of the task for one instance: inputs random, outputs and scratch per their init.

    Tensors that start ``empty`` are returned zero-filled; the simulator treats them as unspecified.
    """
    gen = torch.Generator().manual_seed(seed)
    index_bound = max(1, min(env.values(), default=1))
    out: dict[str, torch.Tensor] = {}
    for name, spec in task.tensors.items():
        shape = spec.concrete_shape(dict(env))
        if any(d < 0 for d in shape):
            raise TaskError(f"task {task.name}: tensor {name} has a negative size {shape} at {dict(env)}")
        dtype = torch_dtype(spec.dtype)
        init = _init_of(task, name, spec)
        if init == "random":
            if dtype.is_floating_point:
                t = torch.randn(shape, generator=gen, dtype=torch.float32).to(dtype)
            elif dtype == torch.bool:
                t = torch.randint(0, 2, shape, generator=gen).to(torch.bool)
            else:
                low, high = spec.value_range(dict(env)) or (0, index_bound)
                t = torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(dtype)
        else:
            t = torch.zeros(shape, dtype=dtype)
        out[name] = t
    return out


def _init_of(task: Task, name: str, spec: TensorSpec) -> str:
    if spec.init is not None:
        return spec.init
    return "random" if name in task.inputs else "empty"


def kernel_function(task: Task, module: Module) -> Function:
    """The kernel of ``module`` that ``task`` names (template kernels are named ``kernel<args>``)."""
    for f in module.kernels:
        if f.name == task.kernel:
            return f
    matches = [f for f in module.kernels if f.name.startswith(task.kernel + "<")]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(f.name for f in module.kernels) or "none"
    raise TaskError(f"task {task.name}: no kernel {task.kernel} in {task.source} (kernels: {names})")


def kernel_args(
    task: Task, f: Function, tensors: Mapping[str, torch.Tensor], env: Mapping[str, int]
) -> dict[str, KernelArg]:
    """The argument of every kernel parameter, from the task's bindings."""
    args: dict[str, KernelArg] = {}
    for p in f.params:
        b = task.binding(p.name)
        match b:
            case BufferArg():
                spec = task.tensors[b.name]
                _check_pointee(task, p, b.name, spec)
                args[p.name] = GlobalBuffer(
                    b.name, tensors[b.name], spec.dtype, _init_of(task, b.name, spec) != "empty"
                )
            case ShapeArg():
                args[p.name] = int(evaluate(b.expr, dict(env)))
            case ScalarArg():
                args[p.name] = b.value
            case None:
                raise TaskError(
                    f"task {task.name}: kernel parameter {p.name} has no binding (name a tensor or symbol "
                    f"{p.name}, or bind it in bindings=...)"
                )
    return args


def _check_pointee(task: Task, p: Param, tensor: str, spec: TensorSpec) -> None:
    """A pointer parameter must point to the tensor's element type (or view it as bytes or as a vector).

    Integer types of one width may alias (``int`` data through ``unsigned*``), as C allows.
    """
    t = p.type
    if not isinstance(t, PointerType):
        raise TaskError(f"task {task.name}: parameter {p.name} of type {t} is bound to tensor {tensor}", p.span)
    elem = scalar_of(t.pointee) if not isinstance(t.pointee, VoidType | PointerType) else None
    if elem is None or elem == spec.dtype or elem.size == 1:
        return
    if elem.is_int and spec.dtype.is_int and elem.size == spec.dtype.size:
        return
    raise TaskError(
        f"task {task.name}: kernel parameter {p.name} points to {elem} but tensor {tensor} is {spec.dtype}", p.span
    )


# --------------------------------------------------------------------------------------------------
# The reference


def _load_reference(task: Task) -> Callable[..., Any]:
    """The reference as a callable, loaded exactly as the reference frontend traces it (same seed, eval mode)."""
    from larkc.reference import load_reference

    if task.reference is None:
        raise TaskError(f"task {task.name} has no reference")
    file = str(task.task_file) if task.task_file is not None else None
    return load_reference(task.reference, task.init_inputs, file).target


def _call_reference(ref: Callable[..., Any], inputs: Sequence[torch.Tensor], task: Task) -> list[torch.Tensor]:
    try:
        with torch.no_grad():
            result = ref(*inputs)
    except Exception as e:
        raise ReferenceError_(f"reference of task {task.name} raised {type(e).__name__}: {e}") from None
    outs = list(result) if isinstance(result, tuple | list) else [result]
    if len(outs) != len(task.outputs):
        raise ReferenceError_(
            f"reference of task {task.name} returned {len(outs)} value(s), "
            f"the task declares {len(task.outputs)} output(s)"
        )
    for o, name in zip(outs, task.outputs, strict=True):
        if not isinstance(o, torch.Tensor):
            raise ReferenceError_(f"reference of task {task.name} returned {type(o).__name__} for output {name}")
    return outs


def reference_outputs(
    task: Task, tensors: Mapping[str, torch.Tensor], seed: int
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """``(at the task's precision, in float64 or None)`` reference outputs for the inputs in ``tensors``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)  # modules with random parameters get the same ones in both runs
        ref = _load_reference(task)
    inputs = [tensors[n].clone() for n in task.inputs]
    low = _call_reference(ref, inputs, task)
    wide_inputs = [t.clone().to(torch.float64) if t.is_floating_point() else t.clone() for t in inputs]
    wide_ref: Callable[..., Any] = ref
    if isinstance(ref, torch.nn.Module):
        wide_ref = copy.deepcopy(ref).double()
    try:
        wide = _call_reference(wide_ref, wide_inputs, task)
    except LarkcError:
        wide = None  # a reference tied to its dtypes (float32 constants, dtype checks)
    return low, wide


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
        scale = max(1.0, float(r64[finite].pow(2).mean().sqrt())) if bool(finite.any()) else 1.0
        allowed = tol.atol * scale + tol.rtol * r64.abs()
        if wide is not None:
            lo64 = low.reshape(-1).to(torch.float64)
            gap = (lo64 - r64).abs()
            allowed = allowed + _REFERENCE_SLACK * torch.where(torch.isfinite(gap), gap, torch.zeros_like(gap))
        same_special = (torch.isnan(g64) & torch.isnan(r64)) | ((g64 == r64) & ~finite)
        diff = (g64 - r64).abs()
        diff = torch.where(same_special, torch.zeros_like(diff), diff)
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
        ok_elems = diff <= allowed
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


# --------------------------------------------------------------------------------------------------
# Running


def run_instance(
    task: Task,
    module: Module,
    instance: Mapping[str, int],
    seed: int,
    *,
    limits: SimLimits | None = None,
) -> tuple[InstanceReport, SimResult]:
    """Simulate and compare one shape instance of ``task`` (no replay file)."""
    env = task.shape_env(instance)
    grid, block, shared = task.launch.concrete(env)
    launch = LaunchConfig(grid, block, shared)
    f = kernel_function(task, module)
    tensors = make_inputs(task, env, seed)
    args = kernel_args(task, f, tensors, env)
    result = simulate(module, f.name, launch, args, limits=limits)
    diagnoses = list(result.diagnoses)
    outputs: list[OutputReport] = []
    if result.aborted:
        pass  # the launch stopped at a divergent barrier: its outputs mean nothing, compare none
    elif task.reference is not None and task.outputs:
        low, wide = reference_outputs(task, tensors, seed)
        for i, (name, spec) in enumerate(task.outputs.items()):
            got = result.buffers[name]
            rep = compare_output(
                task, name, spec, got, low[i], wide[i] if wide is not None else None, result.written.get(name)
            )
            outputs.append(rep)
            if not rep.ok:
                diagnoses.append(_mismatch(task, f, rep, got, low[i] if wide is None else wide[i]))
    elif task.outputs:
        for name in task.outputs:
            w = result.written.get(name)
            if w is not None and not bool(w.all()):
                diagnoses.append(
                    Diagnosis(
                        DiagnosisKind.MISMATCH,
                        f"output {name}: {int((~w).sum())} element(s) never written",
                        f.span,
                        buffer=name,
                    )
                )
    report = InstanceReport(dict(env), seed, launch, tuple(diagnoses), tuple(outputs), result.seconds)
    return report, result


def _mismatch(task: Task, f: Function, rep: OutputReport, got: torch.Tensor, ref: torch.Tensor) -> Diagnosis:
    idx = rep.worst_index or ()
    where = f"{rep.name}[{', '.join(str(i) for i in idx)}]" if idx else rep.name
    flat = 0
    for i, d in zip(idx, got.shape, strict=True):
        flat = flat * d + i
    g = got.reshape(-1)[flat].item() if got.numel() else None
    r = ref.reshape(-1)[flat].item() if ref.numel() else None
    if rep.unwritten:
        message = f"output {rep.name}: {rep.unwritten} element(s) never written (first differing: {where})"
    else:
        message = (
            f"output {rep.name} differs from the reference: max abs err {rep.max_abs_err:.3g}, "
            f"max rel err {rep.max_rel_err:.3g}; at {where} the kernel gives {g!r}, the reference {r!r}"
        )
    return Diagnosis(DiagnosisKind.MISMATCH, message, f.span, buffer=rep.name, index=flat)


def default_replay_dir() -> Path:
    return Path(tempfile.gettempdir()) / "larkc-replay"


def run_task(
    task: Task,
    *,
    instances: Sequence[Mapping[str, int]] | None = None,
    seed: int = 0,
    replay_dir: Path | None = None,
    write_replay: bool = True,
    limits: SimLimits | None = None,
    module: Module | None = None,
) -> RunReport:
    """Run every instance of ``task`` (or ``instances``); failing ones get a replay file."""
    if module is None:
        from larkc.frontends import parse_task

        module = parse_task(task)
    chosen = list(instances) if instances is not None else list(task.instances)
    reports: list[InstanceReport] = []
    for inst in chosen:
        rep, _ = run_instance(task, module, inst, seed, limits=limits)
        if not rep.ok and write_replay:
            path = write_replay_file(task, rep, replay_dir or default_replay_dir())
            rep = dataclasses.replace(rep, replay=path)
        reports.append(rep)
    return RunReport(task.name, task.expected_failure, tuple(reports))


# --------------------------------------------------------------------------------------------------
# Replay files


def _command_line_record(task: Task) -> dict[str, Any]:
    """The arguments that rebuild a command-line (reference-free) task."""
    return {
        "source": str(Path(task.source).resolve()),
        "kernel": task.kernel,
        "grid": [str(d) for d in task.grid],
        "block": [str(d) for d in task.block],
        "shared_bytes": str(task.shared_bytes),
        "buffers": [f"{n}={s}" for n, s in task.inputs.items()],
        "scalars": [f"{n}={b.value}" for n, b in task.bindings.items() if isinstance(b, ScalarArg)],
        "template_args": [
            str(a)
            for a in (task.template_args.values() if isinstance(task.template_args, Mapping) else task.template_args)
        ],
        "defines": dict(task.defines),
    }


def write_replay_file(task: Task, rep: InstanceReport, folder: Path) -> Path:
    """Write the replay record of a failing instance; returns its path."""
    record: dict[str, Any] = {
        "larkc_replay": REPLAY_VERSION,
        "task": task.name,
        "task_file": str(task.task_file.resolve()) if task.task_file is not None else None,
        "command_line": None if task.task_file is not None else _command_line_record(task),
        "defines": dict(task.defines),
        "kernel": task.kernel,
        "instance": rep.shape,
        "seed": rep.seed,
        "launch": _launch_json(rep.launch),
        "diagnoses": [d.to_json() for d in rep.diagnoses],
    }
    folder.mkdir(parents=True, exist_ok=True)
    shape = "-".join(f"{k}{v}" for k, v in rep.shape.items()) or "launch"
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{task.name}-{shape}-seed{rep.seed}")
    path = folder / f"{safe}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def load_replay(path: Path) -> tuple[Task, dict[str, int], int]:
    """The task, instance and seed recorded in a replay file."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TaskError(f"cannot read replay file {path}: {e}") from None
    if not isinstance(record, dict) or record.get("larkc_replay") != REPLAY_VERSION:
        raise TaskError(f"{path} is not a larkc replay file (version {REPLAY_VERSION})")
    try:
        if record.get("task_file"):
            task = load_task(record["task_file"])
            if record.get("defines"):
                task = dataclasses.replace(task, defines={**task.defines, **record["defines"]})
        else:
            cl = record["command_line"]
            task = command_line_task(
                cl["source"], cl["kernel"], grid=cl["grid"], block=cl["block"], buffers=cl["buffers"],
                scalars=cl["scalars"], shared_bytes=cl["shared_bytes"], template_args=cl["template_args"],
                defines=cl["defines"],
            )  # fmt: skip
        instance = {str(k): int(v) for k, v in record["instance"].items()}
        seed = int(record["seed"])
    except (KeyError, TypeError, ValueError) as e:
        raise TaskError(f"malformed replay file {path}: {e}") from None
    check_launch_matches(task, instance, record.get("launch"))
    return task, instance, seed


def check_launch_matches(task: Task, instance: Mapping[str, int], recorded: Mapping[str, Any] | None) -> None:
    """Raise if the task now computes another launch than the replay file recorded."""
    if recorded is None:
        return
    grid, block, shared = task.launch.concrete(task.shape_env(instance))
    now = {"grid": list(grid), "block": list(block), "shared_bytes": shared}
    if now != recorded:
        raise TaskError(f"the task now launches {now}, the replay file recorded {recorded}: it has changed")
