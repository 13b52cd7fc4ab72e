import torch
import torch.nn.functional as F

from larkc import Task


def reference(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return F.embedding(ids, weight)


task = Task(
    source="kernel.py",
    kernel="embedding_forward_kernel",
    reference=reference,
    inputs={"ids": "i64[tokens] in [0, vocab)", "weight": "f32[vocab, d]"},
    outputs={"out": "f32[tokens, d]"},
    bindings={
        "ids_ptr": "ids",
        "weight_ptr": "weight",
        "out_ptr": "out",
        "n_embd": "d",
        "stride_w": "d",
        "stride_o": "d",
        "BLOCK_D": "next_pow2(d)",
    },
    symbols=["tokens", "vocab", "d"],
    constraints=["tokens <= 65536", "vocab <= 65536", "d <= 64"],
    instances=[{"tokens": 3, "vocab": 5, "d": 3}, {"tokens": 4, "vocab": 2, "d": 8}],
    grid=["tokens"],
    block=[1],
)
