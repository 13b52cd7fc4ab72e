"""The Triton examples in larkc's simulator against their PyTorch references (no Triton needed): the
correct kernels compute the reference's values, the seeded bugs do not, or are caught by a check."""

from __future__ import annotations

import pytest
import torch
from cases import CASES, WRONG
from harness import Launch, reference_outputs, run_larkc

from larkc.semantics import SimResult


def _close(launch: Launch, sim: SimResult, name: str, want: torch.Tensor) -> bool:
    got = sim.buffers[name]
    if not got.dtype.is_floating_point:
        return torch.equal(got, want.to(got.dtype))
    rtol, atol = max(launch.rtol, 1e-4), max(launch.atol, 1e-4)
    return torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", sorted(CASES))
def test_example_computes_the_reference(case: str) -> None:
    launch, _ = CASES[case]
    assert launch.reference is not None, "every example has a reference"
    sim, _ = run_larkc(launch)
    assert sim.ok, [d.message for d in sim.diagnoses]
    for name, want in reference_outputs(launch).items():
        assert _close(launch, sim, name, want), name


@pytest.mark.parametrize("case", sorted(WRONG))
def test_seeded_bug_differs_from_the_reference(case: str) -> None:
    launch, _ = WRONG[case]
    sim, _ = run_larkc(launch)
    assert sim.ok, [d.message for d in sim.diagnoses]
    ref = reference_outputs(launch)
    assert not all(_close(launch, sim, name, want) for name, want in ref.items())


def test_missing_store_mask_is_an_out_of_bounds_write() -> None:
    n = 1000

    def make(g: torch.Generator) -> dict[str, torch.Tensor | int | float]:
        return {
            "x_ptr": torch.randn(n, generator=g),
            "y_ptr": torch.randn(n, generator=g),
            "out_ptr": torch.zeros(n),
            "n_elements": n,
        }

    launch = Launch("vector_add_bug_no_mask", "add_kernel", ((n + 63) // 64,), make, {"BLOCK": 64})
    sim, _ = run_larkc(launch)
    kinds = {d.kind.value for d in sim.diagnoses}
    assert kinds == {"oob"}, [d.message for d in sim.diagnoses]
    message = sim.diagnoses[0].message
    assert "out_ptr" in message
    lines = launch.path.read_text().splitlines()
    store = next(i for i, line in enumerate(lines, 1) if "tl.store(" in line)
    assert sim.diagnoses[0].span.line == store
