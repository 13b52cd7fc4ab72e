"""Number literals in a KernelBench host function are C's (``larkc.ir.cnumbers``): ``0400`` is octal."""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


MODEL = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


n = 1000


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []
"""

CANDIDATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float staged[256];  // one element per thread of a 256-thread block
    staged[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        y[i] = fmaxf(staged[threadIdx.x], 0.0f);
    }
}

torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 0400;  // 256, in octal
    const int blocks = (n + threads - 1) / threads;
    relu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(
    name="relu_ext",
    cpp_sources="torch::Tensor relu(torch::Tensor x);",
    cuda_sources=relu_source,
    functions=["relu"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x):
        return self.ext.relu(x)
'''


def test_an_octal_block_size(tmp_path: Path) -> None:
    """``const int threads = 0400;`` is 256 threads: the host parser read it as 400.0 (Python's float of
    the text), launched 400 threads, and refuted a kernel whose 256-element tile is right for 256."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "model_new.py").write_text(CANDIDATE)
    task = larkc.candidate_task(tmp_path / "model_new.py", tmp_path / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())
