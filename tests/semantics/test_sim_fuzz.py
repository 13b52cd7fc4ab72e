"""Random well-typed modules (``larkc.ir.testing``) never crash the simulator.

Whatever a generated kernel does (out-of-bounds pointers, races, divergent barriers, undefined
operations, loops that do not end), simulating it gives a result with diagnoses or a
:class:`~larkc.errors.LarkcError`, never another exception; and every diagnosis renders as one line
starting with its kind word.
"""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from larkc.dtypes import torch_dtype
from larkc.errors import LarkcError
from larkc.ir.nodes import Function, Module
from larkc.ir.testing import modules
from larkc.ir.types import U8, PointerType, ScalarType, scalar_of, size_of
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, SimLimits, simulate
from larkc.semantics.diagnostics import DiagnosisKind

KIND_WORDS = {k.value for k in DiagnosisKind}


def arguments(f: Function, seed: int) -> dict[str, KernelArg]:
    """Small buffers for pointer parameters (half of them "empty"), small numbers for scalars."""
    gen = torch.Generator().manual_seed(seed)
    args: dict[str, KernelArg] = {}
    for i, p in enumerate(f.params):
        t = p.type
        if isinstance(t, PointerType):
            elem = scalar_of(t.pointee) or U8
            count = 64 * size_of(t.pointee) // elem.size if not isinstance(t.pointee, PointerType) else 64
            data = torch.randint(0, 5, (count,), generator=gen).to(torch_dtype(elem))
            args[p.name] = GlobalBuffer(f"b{i}", data, elem, initialised=i % 2 == 0)
        elif isinstance(t, ScalarType) and t.is_bool:
            args[p.name] = True
        else:
            args[p.name] = 1.5 if isinstance(t, ScalarType) and t.is_float else 3
    return args


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(
    module=modules(),
    grid=st.sampled_from([(1, 1, 1), (2, 1, 1)]),
    block=st.sampled_from([(64, 1, 1), (8, 2, 1), (33, 1, 1)]),
)
def test_random_modules_simulate_without_crashing(
    module: Module, grid: tuple[int, int, int], block: tuple[int, int, int]
) -> None:
    limits = SimLimits(max_loop_iterations=200)
    for k in module.kernels:
        try:
            result = simulate(module, k.name, LaunchConfig(grid, block, 64), arguments(k, 0), limits=limits)
        except LarkcError as e:
            assert "internal error" not in e.message, e.render()
            assert e.render().count("error:") == 1
            continue
        for d in result.diagnoses:
            assert d.render().split(":", 1)[0] in KIND_WORDS
            assert "\n" not in d.render()
        for name, t in result.buffers.items():
            assert isinstance(t, torch.Tensor), name
