"""Helpers for the simulator tests: run a CUDA snippet or an IR text on one launch (the ``sim`` fixture)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

import torch

from larkc.dtypes import torch_dtype
from larkc.frontends import parse_source
from larkc.ir import parse_module, verify_module
from larkc.ir.nodes import Module
from larkc.ir.types import ScalarType
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimResult, simulate
from larkc.tasks import parse_dtype

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"

_counter = itertools.count()

BufferInit = torch.Tensor | tuple[str, int] | tuple[str, int, str]


def _dim3(d: int | tuple[int, ...]) -> tuple[int, int, int]:
    dims = (d,) if isinstance(d, int) else tuple(d)
    x, y, z = (*dims, 1, 1, 1)[:3]
    return (x, y, z)


class Sim:
    """Builds a kernel from CUDA or IR text and simulates it (the ``sim`` fixture)."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path

    def cuda(self, source: str) -> Module:
        path = self.tmp_path / f"k{next(_counter)}.cu"
        path.write_text(source, encoding="utf-8")
        return parse_source(path)

    def ir(self, text: str) -> Module:
        module = parse_module(text, file="test.ir")
        verify_module(module)
        return module

    def run(
        self,
        module: Module,
        kernel: str,
        *,
        grid: int | tuple[int, ...] = 1,
        block: int | tuple[int, ...] = 32,
        shared_bytes: int = 0,
        buffers: Mapping[str, BufferInit] | None = None,
        scalars: Mapping[str, bool | int | float] | None = None,
    ) -> SimResult:
        """Simulate ``kernel``; a buffer is a tensor (initialised) or ``(dtype, n[, "empty"])``."""
        args: dict[str, KernelArg] = {}
        for name, b in (buffers or {}).items():
            if isinstance(b, torch.Tensor):
                args[name] = GlobalBuffer(name, b, _scalar_of(b.dtype))
            else:
                t = parse_dtype(b[0])
                empty = len(b) == 3 and b[2] == "empty"
                args[name] = GlobalBuffer(name, torch.zeros(b[1], dtype=torch_dtype(t)), t, initialised=not empty)
        args.update(scalars or {})
        launch = LaunchConfig(_dim3(grid), _dim3(block), shared_bytes)
        return simulate(module, kernel, launch, args)

    def cuda_run(self, source: str, kernel: str, **kw: object) -> SimResult:
        return self.run(self.cuda(source), kernel, **kw)  # type: ignore[arg-type]

    @staticmethod
    def kinds(result: SimResult) -> set[str]:
        """The kind words of the diagnoses of ``result``."""
        return {d.kind.value for d in result.diagnoses}


def _scalar_of(dtype: torch.dtype) -> ScalarType:
    name = str(dtype).removeprefix("torch.")
    return parse_dtype(name)
