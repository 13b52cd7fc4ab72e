"""Run one Triton kernel launch two ways — larkc's frontend and simulator, and Triton's interpreter — on
the same inputs, and compare every buffer afterwards."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import torch

from larkc.dtypes import scalar_type_of
from larkc.frontends.triton import parse_triton
from larkc.ir.nodes import Module
from larkc.ir.types import F32, I32, I64, AddressSpace, PointerType, Type
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimResult, simulate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "triton"


@dataclass
class Launch:
    """One launch: the kernel of an example, its grid, arguments in order (tensors or scalars), constexprs.

    ``make`` builds the arguments from a seed (so both runs see the same inputs)."""

    example: str
    kernel: str
    grid: tuple[int, ...]
    make: Callable[[torch.Generator], dict[str, torch.Tensor | int | float]]
    constexprs: Mapping[str, int | float | bool | str] = field(default_factory=dict)
    rtol: float = 1e-5
    atol: float = 1e-6
    #: What PyTorch computes for the compared buffers, from the arguments (before the launch).
    reference: Callable[[Mapping[str, torch.Tensor | int | float]], dict[str, torch.Tensor]] | None = None

    @property
    def path(self) -> Path:
        return EXAMPLES / self.example / "kernel.py"


def _module(path: Path) -> ModuleType:
    name = f"larkc_triton_example_{path.parent.name}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def param_types(args: Mapping[str, torch.Tensor | int | float]) -> dict[str, Type]:
    """The IR type of each run-time argument, as Triton specialises it."""
    out: dict[str, Type] = {}
    for k, v in args.items():
        if isinstance(v, torch.Tensor):
            out[k] = PointerType(scalar_type_of(v.dtype), AddressSpace.GLOBAL)
        elif isinstance(v, bool):
            from larkc.ir.types import BOOL

            out[k] = BOOL
        elif isinstance(v, int):
            out[k] = I32 if -(2**31) <= v < 2**31 else I64
        else:
            out[k] = F32
    return out


def lower(launch: Launch, args: Mapping[str, torch.Tensor | int | float]) -> Module:
    return parse_triton(launch.path, kernel=launch.kernel, params=param_types(args), constexprs=launch.constexprs)


def run_larkc(launch: Launch, seed: int = 0) -> tuple[SimResult, dict[str, torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    args = launch.make(g)
    module = lower(launch, args)
    kargs: dict[str, KernelArg] = {}
    for k, v in args.items():
        if isinstance(v, torch.Tensor):
            kargs[k] = GlobalBuffer(k, v.clone(), scalar_type_of(v.dtype))
        else:
            kargs[k] = v
    grid = (*launch.grid, 1, 1)[:3]
    result = simulate(module, launch.kernel, LaunchConfig((grid[0], grid[1], grid[2]), (1, 1, 1)), kargs)
    return result, {k: v for k, v in args.items() if isinstance(v, torch.Tensor)}


def reference_outputs(launch: Launch, seed: int = 0) -> dict[str, torch.Tensor]:
    """The reference's values of the compared buffers, on the inputs of ``seed``."""
    assert launch.reference is not None
    g = torch.Generator().manual_seed(seed)
    return launch.reference(launch.make(g))


def run_triton(launch: Launch, seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    args = launch.make(g)
    from triton.runtime import Autotuner, Heuristics

    fn = getattr(_module(launch.path), launch.kernel)
    while isinstance(fn, Autotuner | Heuristics):  # the launch gives the configuration's and the
        fn = fn.fn  # heuristics' constexprs itself
    fn[launch.grid](*args.values(), **launch.constexprs)
    return {k: v for k, v in args.items() if isinstance(v, torch.Tensor)}


def compare(launch: Launch, sim: SimResult, ref: Mapping[str, torch.Tensor], names: Sequence[str]) -> list[str]:
    """Differences between the simulator's final buffers and Triton's, for the buffers ``names``."""
    problems = []
    for k in names:
        got, want = sim.buffers[k], ref[k]
        if got.dtype.is_floating_point:
            ok = torch.allclose(got.double(), want.double(), rtol=launch.rtol, atol=launch.atol, equal_nan=True)
        else:
            ok = torch.equal(got, want)
        if not ok:
            diff = (got.double() - want.double()).abs()
            i = int(torch.nan_to_num(diff, nan=math.inf).argmax())
            problems.append(
                f"{k}: element {i}: larkc {got.reshape(-1)[i].item()} vs triton {want.reshape(-1)[i].item()}"
            )
    return problems
