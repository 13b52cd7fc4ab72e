import torch

from larkc import Task


def reference(s: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return s.masked_fill(mask, float("-inf")).softmax(dim=-1)


task = Task(
    source="kernel.py",
    kernel="masked_softmax_kernel",
    reference=reference,
    inputs={"s": "f32[rows, d]", "mask": "bool[rows, d]"},
    outputs={"p": "f32[rows, d]"},
    bindings={"s_ptr": "s", "m_ptr": "mask", "p_ptr": "p", "n_cols": "d", "BLOCK": "next_pow2(d)"},
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 4096"],
    instances=[{"rows": 2, "d": 3}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-6},
)
