import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a.float() @ b.float()


task = Task(
    source="kernel.py",
    kernel="matmul_desc_kernel",
    reference=reference,
    inputs={"a": "f16[m, k]", "b": "f16[k, n]"},
    outputs={"c": "f32[m, n]"},
    bindings={
        "a_ptr": "a",
        "b_ptr": "b",
        "c_ptr": "c",
        "M": "m",
        "N": "n",
        "K": "k",
        "BLOCK_M": 32,
        "BLOCK_N": 32,
        "BLOCK_K": 16,
    },
    symbols=["m", "n", "k"],
    # 16-byte aligned rows, as tensor descriptors need; sizes whose int32 loop bound k + BLOCK_K does not wrap
    constraints=["k % 8 == 0", "n % 8 == 0", "m <= 8192", "n <= 8192", "k <= 8192"],
    instances=[{"m": 40, "n": 56, "k": 40}, {"m": 32, "n": 32, "k": 16}, {"m": 7, "n": 8, "k": 24}],
    grid=["cdiv(m, 32)", "cdiv(n, 32)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
