"""Every Triton example, lowered by larkc's frontend and run by larkc's simulator, against Triton's own
interpreter (``TRITON_INTERPRET=1``) on the same inputs: the final buffers must agree and the
simulator must report nothing."""

from __future__ import annotations

import pytest
from cases import CASES, WRONG
from harness import compare, run_larkc, run_triton

pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")

pytestmark = pytest.mark.triton


@pytest.mark.parametrize("case", sorted(CASES) + sorted(WRONG))
def test_simulator_agrees_with_triton_interpreter(case: str) -> None:
    launch, outputs = CASES[case] if case in CASES else WRONG[case]
    sim, _ = run_larkc(launch)
    assert sim.ok, [d.message for d in sim.diagnoses]
    ref = run_triton(launch)
    assert compare(launch, sim, ref, outputs) == []
