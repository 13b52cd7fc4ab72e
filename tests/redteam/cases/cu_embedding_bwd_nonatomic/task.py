import torch

from larkc import Task


def reference(ids: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    onehot = (ids[:, None] == torch.arange(16)).to(grad_out.dtype)
    return onehot.t() @ grad_out


task = Task(
    source="kernel.cu",
    kernel="embedding_backward_kernel",
    reference=reference,
    inputs={"ids": "i64[tokens] in [0, 16)", "grad_out": "f32[tokens, d]"},
    outputs={"grad_w": (("16", "d"), "f32", "zeros")},
    symbols=["tokens", "d"],
    constraints=["tokens <= 4096", "d <= 1024"],
    instances=[{"tokens": 1, "d": 8}],
    grid=["tokens"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
