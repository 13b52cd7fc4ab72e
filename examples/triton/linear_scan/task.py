import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # a loop over the sequence (a constant length): torch.export would fix a symbolic one
    states = []
    state = torch.zeros_like(b[:, 0])
    for t in range(b.shape[1]):
        state = a[:, t] * state + b[:, t]
        states.append(state)
    return torch.stack(states, dim=1)


task = Task(
    source="kernel.py",
    kernel="linear_scan_kernel",
    reference=reference,
    inputs={"a": "f32[r, 20]", "b": "f32[r, 20]"},
    outputs={"h": "f32[r, 20]"},
    bindings={"a_ptr": "a", "b_ptr": "b", "h_ptr": "h", "stride": 20, "seq_len": 20, "BLOCK": 32},
    symbols=["r"],
    constraints=["r <= 65536"],
    instances=[{"r": 3}, {"r": 2}, {"r": 1}],
    grid=["r"],
    block=[1],
)
