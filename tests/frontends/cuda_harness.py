"""A harness for CUDA construct tests: lower a snippet written to a temporary directory (IR verified),
simulate one launch, or read the located error it raises."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

import pytest
import torch

from larkc.dtypes import scalar_type_of, torch_dtype
from larkc.errors import LarkcError
from larkc.frontends import parse_source
from larkc.ir import verify_module
from larkc.ir.nodes import Module
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimResult, simulate
from larkc.tasks import parse_dtype

__all__ = ["Cuda"]

_counter = itertools.count()


class Cuda:
    """Lowers CUDA snippets written to a temporary directory and simulates one launch."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path

    def lower(self, source: str) -> Module:
        path = self.tmp_path / f"k{next(_counter)}.cu"
        path.write_text(source, encoding="utf-8")
        module = parse_source(path)
        verify_module(module)
        return module

    def run(
        self,
        source: str,
        kernel: str,
        *,
        block: int = 32,
        grid: int = 1,
        buffers: Mapping[str, torch.Tensor | tuple[str, int]] | None = None,
        scalars: Mapping[str, bool | int | float] | None = None,
    ) -> SimResult:
        args: dict[str, KernelArg] = {}
        for name, b in (buffers or {}).items():
            if isinstance(b, torch.Tensor):
                args[name] = GlobalBuffer(name, b, scalar_type_of(b.dtype))
            else:
                t = parse_dtype(b[0])
                args[name] = GlobalBuffer(name, torch.zeros(b[1], dtype=torch_dtype(t)), t)
        args.update(scalars or {})
        return simulate(self.lower(source), kernel, LaunchConfig((grid, 1, 1), (block, 1, 1), 0), args)

    def error(self, source: str) -> str:
        """The first line of the located error lowering ``source`` raises (without the file name)."""
        with pytest.raises(LarkcError) as info:
            self.lower(source)
        first = str(info.value).splitlines()[0]
        return first.split(":", 1)[1]
