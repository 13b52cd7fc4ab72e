import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    h = torch.zeros_like(b)
    state = torch.zeros_like(b[:, 0])
    for t in range(b.shape[1]):
        state = a[:, t] * state + b[:, t]
        h[:, t] = state
    return h


task = Task(
    source="kernel.py",
    kernel="linear_scan_kernel",
    reference=reference,
    inputs={"a": "f32[r, n]", "b": "f32[r, n]"},
    outputs={"h": "f32[r, n]"},
    bindings={"a_ptr": "a", "b_ptr": "b", "h_ptr": "h", "stride": "n", "seq_len": "n", "BLOCK": "next_pow2(n)"},
    symbols=["r", "n"],
    instances=[{"r": 3, "n": 20}, {"r": 2, "n": 32}, {"r": 1, "n": 7}],
    grid=["r"],
    block=[1],
)
