"""libcu++'s ``cuda::fast_mod_div<T>`` (``<cuda/cmath>``), as flashinfer's ``uint_fastdiv`` (fastdiv.cuh) holds it:
modelled by its documented semantics, a divisor of type ``T`` whose ``/`` and ``%`` are exact division and
remainder, for unsigned ``T``; a zero divisor is the simulator's division by zero."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import U32
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

FASTDIV = """
#include <cstdint>
#include <cuda/cmath>
__device__ __forceinline__ void divmod(uint32_t n, cuda::fast_mod_div<uint32_t> d, uint32_t& q, uint32_t& r) {
    q = n / d;
    r = n - q * static_cast<uint32_t>(d);
}
__global__ void split(uint32_t* q, uint32_t* r, uint32_t* m, const uint32_t* n, uint32_t page_size) {
    cuda::fast_mod_div<uint32_t> d(page_size ? page_size : 1);
    uint32_t i = threadIdx.x;
    divmod(n[i], d, q[i], r[i]);
    m[i] = n[i] % d;
}
"""


def simulate_split(n: torch.Tensor, page_size: int) -> dict[str, torch.Tensor]:
    module = parse_cuda(text=FASTDIV, file="fastdiv.cu")
    verify_module(module)
    zeros = torch.zeros(len(n), dtype=torch.uint32)
    args: dict[str, KernelArg] = {k: GlobalBuffer(k, zeros.clone(), U32) for k in ("q", "r", "m")}
    args["n"] = GlobalBuffer("n", n.to(torch.uint32), U32)
    args["page_size"] = page_size
    result = simulate(module, "split", LaunchConfig((1, 1, 1), (len(n), 1, 1), 0), args)
    assert not result.diagnoses, result.diagnoses
    return {k: v.to(torch.int64) for k, v in result.buffers.items()}


@pytest.mark.parametrize("page_size", [1, 3, 16, 4294967295])
def test_division_and_remainder_by_a_fast_mod_div_are_exact(page_size: int) -> None:
    n = torch.tensor([0, 1, 2, 15, 16, 17, 1000, 4294967295], dtype=torch.int64)
    out = simulate_split(n, page_size)
    assert out["q"].tolist() == (n // page_size).tolist()
    assert out["r"].tolist() == (n % page_size).tolist()
    assert out["m"].tolist() == (n % page_size).tolist()


def test_zero_page_size_takes_the_divisor_one_as_flashinfer_guards_it() -> None:
    n = torch.tensor([5, 7], dtype=torch.int64)
    assert simulate_split(n, 0)["q"].tolist() == [5, 7]


def test_fast_mod_div_of_a_signed_type_is_a_located_error() -> None:
    src = FASTDIV.replace("cuda::fast_mod_div<uint32_t> d(page_size", "cuda::fast_mod_div<int> d(page_size")
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="fastdiv.cu")
    first = str(info.value).splitlines()[0]
    assert first.startswith("fastdiv.cu:9:23: error: unsupported cuda::fast_mod_div other than of an unsigned integer")
    assert first.endswith(": <int>")


def test_a_zero_divisor_is_reported_as_division_by_zero() -> None:
    # the contract requires divisor > 0; without flashinfer's guard a zero page size is a finding
    module = parse_cuda(text=FASTDIV.replace("d(page_size ? page_size : 1)", "d{page_size}"), file="fastdiv.cu")
    n = torch.tensor([5], dtype=torch.uint32)
    args: dict[str, KernelArg] = {k: GlobalBuffer(k, torch.zeros(1, dtype=torch.uint32), U32) for k in ("q", "r", "m")}
    args["n"] = GlobalBuffer("n", n, U32)
    args["page_size"] = 0
    result = simulate(module, "split", LaunchConfig((1, 1, 1), (1, 1, 1), 0), args)
    assert result.diagnoses
    assert "division by zero" in str(result.diagnoses[0])
