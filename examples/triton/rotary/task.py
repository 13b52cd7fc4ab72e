import torch

from larkc import Task


def reference(q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = cos.shape[-1]
    c, s = cos[:, None, :], sin[:, None, :]
    x1, x2 = q[..., :half], q[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


task = Task(
    source="kernel.py",
    kernel="rotary_kernel",
    reference=reference,
    inputs={"q": "f32[t, h, 16]", "cos": "f32[t, 8]", "sin": "f32[t, 8]"},
    outputs={"out": "f32[t, h, 16]"},
    bindings={
        "q_ptr": "q",
        "cos_ptr": "cos",
        "sin_ptr": "sin",
        "out_ptr": "out",
        "stride_tok": "h * 16",
        "stride_head": 16,
        "n_heads": "h",
        "HALF": 8,
        "HEADS": 8,
    },
    symbols=["t", "h"],
    # int32 offsets: tok * h * 16 + head * 16 + d stays below 2^31 for the heads that exist (the offsets of
    # the masked-off heads may wrap: no access reads them)
    constraints=["h <= 8", "t * h * 16 <= 2147483647"],
    instances=[{"t": 3, "h": 5}, {"t": 2, "h": 8}, {"t": 1, "h": 1}],
    grid=["t"],
    block=[1],
)
