"""Page of each token relative to a sliding-window start: a reference with floor division (``//``) of
integers that are negative before the window."""

import torch

from larkc import ScalarArg, Task

WINDOW_START = 1000
PAGE_SIZE = 16


def reference(positions: torch.Tensor) -> torch.Tensor:
    return ((positions - WINDOW_START) // PAGE_SIZE).to(torch.int32)


task = Task(
    name="floor_bucket",
    source="kernel.cu",
    kernel="window_page_kernel",
    reference=reference,
    inputs={"positions": "i32[num_tokens] in [0, 4096)"},
    outputs={"pages": "i32[num_tokens]"},
    bindings={"window_start": ScalarArg(WINDOW_START), "page_size": ScalarArg(PAGE_SIZE)},
    symbols=["num_tokens"],
    constraints=["num_tokens <= 65536"],
    instances=[{"num_tokens": 1}, {"num_tokens": 37}, {"num_tokens": 300}],
    grid=["cdiv(num_tokens, 128)"],
    block=[128],
)
