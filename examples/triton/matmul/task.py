import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float()).half()


task = Task(
    source="kernel.py",
    kernel="matmul_kernel",
    reference=reference,
    inputs={"a": "f16[m, k]", "b": "f16[k, n]"},
    outputs={"c": "f16[m, n]"},
    bindings={
        "a_ptr": "a",
        "b_ptr": "b",
        "c_ptr": "c",
        "M": "m",
        "N": "n",
        "K": "k",
        "stride_am": "k",
        "stride_ak": 1,
        "stride_bk": "n",
        "stride_bn": 1,
        "stride_cm": "n",
        "stride_cn": 1,
        "BLOCK_M": 32,
        "BLOCK_N": 32,
        "BLOCK_K": 16,
        "GROUP_M": 2,
    },
    symbols=["m", "n", "k"],
    constraints=["m <= 8192", "n <= 8192", "k <= 8192"],
    instances=[{"m": 40, "n": 48, "k": 40}, {"m": 32, "n": 32, "k": 16}, {"m": 70, "n": 17, "k": 3}],
    grid=["cdiv(m, 32) * cdiv(n, 32)"],
    block=[1],
    tolerance={"rtol": 2e-3, "atol": 2e-2},
)
