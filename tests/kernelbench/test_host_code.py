"""Host functions written as generation agents write them (issue 20, host code; ``docs/kernelbench.md``).

Each candidate below is a ``load_inline`` ``ModelNew`` in one pattern that real KernelBench candidates
use in their host function: ``dim3 block(bx, by);`` (C++'s most vexing parse), CUDA guards and the
current stream, raw pointer variables, torch calls (``contiguous``, ``defined``, ``sizes().vec()``,
``zero_``), loops over the dimensions with a trip count known at derivation time, and variables used
before they are given a value. Each is verified (or refuted, or refused with a located error, as its
test says) from the model file and the candidate alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


# -- problems ----------------------------------------------------------------------------------------

SCALED_RELU = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU, then doubled."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * 2.0


rows = 64
cols = 96


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
'''

SUM_OVER_DIM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Sum over one dimension of a 3-D tensor."""

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim)


batch = 8
length = 24
width = 40


def get_inputs():
    return [torch.randn(batch, length, width)]


def get_init_inputs():
    return [1]
'''

ROW_SUM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """The sum of each row."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


rows = 16
cols = 64


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
'''

LINEAR_RELU = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer, then ReLU."""

    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


batch = 8
in_features = 32
out_features = 16


def get_inputs():
    return [torch.randn(batch, in_features)]


def get_init_inputs():
    return [in_features, out_features]
'''

MSE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean squared error."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.mean((predictions - targets) ** 2)


n = 4096


def get_inputs():
    return [torch.randn(n), torch.randn(n)]


def get_init_inputs():
    return []
'''


def _candidate(cuda: str, function: str, init: str = "", params: str = "", forward: str = "", inputs: str = "x") -> str:
    """A ``model_new.py`` as agents write them: the CUDA text, one extension, and a ``ModelNew`` whose
    forward returns the extension function's result on forward's arguments."""
    forward = forward or f"return self.ext.{function}(x)"
    return f'''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
{cuda}
"""

cpp_source = "torch::Tensor {function}(torch::Tensor x);"

ext = load_inline(
    name="{function}_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["{function}"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self{params}):
        super(ModelNew, self).__init__()
        self.ext = ext
{init}
    def forward(self, {inputs}):
        {forward}
'''


def _write(tmp_path: Path, reference: str, candidate: str) -> tuple[Path, Path]:
    model = tmp_path / "model.py"
    model.write_text(reference)
    model_new = tmp_path / "model_new.py"
    model_new.write_text(candidate)
    return model_new, model


def _verify(tmp_path: Path, reference: str, candidate: str) -> larkc.VerifyReport:
    model_new, model = _write(tmp_path, reference, candidate)
    task = larkc.candidate_task(model_new, model)
    return larkc.verify(task, instances=[task.instances[-1]])  # the smallest, no multiple of a block


def _refusal(tmp_path: Path, reference: str, candidate: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The located error ``larkc run`` prints for a candidate it cannot derive (exit 2)."""
    model_new, model = _write(tmp_path, reference, candidate)
    assert main(["run", str(model_new), "--reference", str(model)]) == 2
    with pytest.raises(LarkcError):
        larkc.candidate_task(model_new, model)
    return capsys.readouterr().err.splitlines()[0]


# -- 1. dim3 with names as arguments (the most vexing parse) -----------------------------------------

RELU_2D_KERNEL = """
__global__ void scaled_relu_2d(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        float v = x[r * cols + c];
        y[r * cols + c] = v > 0.0f ? 2.0f * v : 0.0f;
    }
}
"""

DIM3_FROM_NAMES = (
    RELU_2D_KERNEL
    + """
torch::Tensor scaled_relu(torch::Tensor x) {
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto y = torch::empty_like(x);
    const int block_size_x = 32;
    const int block_size_y = 8;
    dim3 block(block_size_x, block_size_y);
    int grid_x = (cols + block_size_x - 1) / block_size_x;
    int grid_y = (rows + block_size_y - 1) / block_size_y;
    dim3 grid(grid_x, grid_y);
    scaled_relu_2d<<<grid, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""
)


def test_dim3_declared_with_names_is_an_object(tmp_path: Path) -> None:
    """``dim3 block(block_size_x, block_size_y);`` is a function declaration to tree-sitter (and to a C++
    grammar without name lookup): with names of values in scope as arguments it defines a ``dim3``."""
    report = _verify(tmp_path, SCALED_RELU, _candidate(DIM3_FROM_NAMES, "scaled_relu"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_dim3_of_a_product_of_names(tmp_path: Path) -> None:
    """``dim3 grid(grid_x, grid_y * one);`` parses as a function declaration whose second "parameter" is a
    pointer ``one`` to "type" ``grid_y``: it is the product of two values in scope."""
    cuda = DIM3_FROM_NAMES.replace(
        "dim3 grid(grid_x, grid_y);", "const int one = 1;\n    dim3 grid(grid_x, grid_y * one);"
    )
    report = _verify(tmp_path, SCALED_RELU, _candidate(cuda, "scaled_relu"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_dim3_assigned_by_component(tmp_path: Path) -> None:
    """``dim3 grid; grid.x = ...; grid.y = ...;`` (a default ``dim3`` is 1, 1, 1)."""
    cuda = DIM3_FROM_NAMES.replace(
        "dim3 grid(grid_x, grid_y);", "dim3 grid;\n    grid.x = grid_x;\n    grid.y = grid_y;"
    )
    report = _verify(tmp_path, SCALED_RELU, _candidate(cuda, "scaled_relu"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_dim3_with_the_wrong_grid_is_refuted(tmp_path: Path) -> None:
    """Read as an object, the ``dim3`` is the launch's: a grid one block short in y leaves rows unwritten."""
    cuda = DIM3_FROM_NAMES.replace(
        "int grid_y = (rows + block_size_y - 1) / block_size_y;", "int grid_y = rows / block_size_y;"
    )
    report = _verify(tmp_path, SCALED_RELU, _candidate(cuda, "scaled_relu"))
    assert report.exit_code == 1, "\n".join(report.render())


# -- 2. guards, the current stream, synchronisation --------------------------------------------------

GUARDED = (
    RELU_2D_KERNEL
    + """
torch::Tensor scaled_relu(torch::Tensor x) {
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    at::cuda::CUDAGuard guard(x.device());
    c10::cuda::CUDAGuard other_guard(x.device());
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto y = torch::empty_like(x);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    scaled_relu_2d<<<grid, block, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    auto current = at::cuda::getCurrentCUDAStream().stream();
    scaled_relu_2d<<<grid, block, 0, current>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    cudaStreamSynchronize(stream);
    cudaDeviceSynchronize();
    return y;
}
"""
)


def test_guards_and_the_current_stream(tmp_path: Path) -> None:
    """CUDA guards change nothing on one device; launches on the current stream run in order."""
    report = _verify(tmp_path, SCALED_RELU, _candidate(GUARDED, "scaled_relu"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_a_launch_on_an_uninitialised_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = GUARDED.replace("cudaStream_t stream = at::cuda::getCurrentCUDAStream();", "cudaStream_t stream;")
    err = _refusal(tmp_path, SCALED_RELU, _candidate(cuda, "scaled_relu"), capsys)
    assert err.endswith(
        ":30:38: error: host variable stream is used before it is initialised (declared without a value at line 27)"
    )


# -- 3. raw pointer variables ------------------------------------------------------------------------

POINTERS = (
    RELU_2D_KERNEL
    + """
torch::Tensor scaled_relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* __restrict__ in_ptr = x.data_ptr<float>();
    auto* out_ptr = y.data_ptr<float>();
    float* raw;
    raw = (float*)y.data_ptr();
    int rows = x.size(0), cols = x.size(1);
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    scaled_relu_2d<<<grid, block>>>(in_ptr, out_ptr, rows, cols);
    scaled_relu_2d<<<grid, block>>>(in_ptr, raw, rows, cols);
    return y;
}
"""
)


def test_raw_pointer_variables(tmp_path: Path) -> None:
    report = _verify(tmp_path, SCALED_RELU, _candidate(POINTERS, "scaled_relu"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_a_pointer_of_another_element_type_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = POINTERS.replace("auto* out_ptr = y.data_ptr<float>();", "double* out_ptr = y.data_ptr<float>();")
    err = _refusal(tmp_path, SCALED_RELU, _candidate(cuda, "scaled_relu"), capsys)
    assert err.endswith("error: a f32 tensor read as f64 elements"), err


# -- 4. torch calls in host code ---------------------------------------------------------------------

LINEAR_RELU_CUDA = """
__global__ void linear_relu_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ b, float* __restrict__ y,
                                   int batch, int in_features, int out_features) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y;
    if (o < out_features && n < batch) {
        float acc = b != nullptr ? b[o] : 0.0f;
        for (int k = 0; k < in_features; ++k) {
            acc += x[n * in_features + k] * w[o * in_features + k];
        }
        y[n * out_features + o] = acc > 0.0f ? acc : 0.0f;
    }
}

torch::Tensor linear_relu(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    auto input = x.contiguous();
    auto w = weight.contiguous();
    TORCH_CHECK(input.sizes() == x.sizes(), "contiguous() keeps the shape");
    TORCH_CHECK(w.size(1) == input.size(1), "weight must be (out_features, in_features)");
    const int batch = input.size(0);
    const int in_features = input.size(1);
    const int out_features = w.size(0);
    auto out_sizes = input.sizes().vec();
    out_sizes[1] = out_features;
    auto y = torch::empty(out_sizes, input.options());
    const float* bias_ptr = bias.defined() ? bias.data_ptr<float>() : nullptr;
    const int threads = 64;
    dim3 grid((out_features + threads - 1) / threads, batch);
    linear_relu_kernel<<<grid, threads>>>(input.data_ptr<float>(), w.data_ptr<float>(), bias_ptr,
                                          y.data_ptr<float>(), batch, in_features, out_features);
    return y;
}
"""

LINEAR_INIT = """        self.fc = nn.Linear(in_features, out_features)
"""


@pytest.mark.parametrize(
    ("bias_type", "bias_ptr"),
    [
        ("torch::Tensor", "bias.defined() ? bias.data_ptr<float>() : nullptr"),
        ("c10::optional<torch::Tensor>", "bias.has_value() ? bias.value().data_ptr<float>() : nullptr"),
    ],
    ids=["defined", "optional"],
)
def test_contiguous_defined_and_sizes_vec(bias_type: str, bias_ptr: str, tmp_path: Path) -> None:
    """``weight.contiguous()`` is the weight, ``bias.defined()`` of a passed tensor is true (the bias
    pointer is the bias's data; so is ``has_value()`` of an optional tensor parameter given one),
    ``x.sizes().vec()`` is a list of sizes that ``out_sizes[1] = n`` edits."""
    cuda = LINEAR_RELU_CUDA.replace("torch::Tensor bias)", f"{bias_type} bias)").replace(
        "bias.defined() ? bias.data_ptr<float>() : nullptr", bias_ptr
    )
    candidate = _candidate(
        cuda,
        "linear_relu",
        init=LINEAR_INIT,
        params=", in_features, out_features",
        forward="return self.ext.linear_relu(x, self.fc.weight, self.fc.bias)",
    )
    report = _verify(tmp_path, LINEAR_RELU, candidate)
    assert report.exit_code == 0, "\n".join(report.render())


ROW_SUM_CUDA = """
__global__ void row_sum_kernel(const float* x, float* out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        atomicAdd(&out[i / cols], x[i]);
    }
}

torch::Tensor row_sum(torch::Tensor x) {
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto out = torch::empty({rows}, x.options());
    out.zero_();
    const int threads = 128;
    const int blocks = (rows * cols + threads - 1) / threads;
    row_sum_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""


@pytest.mark.parametrize(
    "zeroing",
    ["out.zero_();", "out.fill_(0);", "cudaMemset(out.data_ptr<float>(), 0, rows * sizeof(float));"],
    ids=["zero_", "fill_", "cudaMemset"],
)
def test_zeroed_before_the_launch(zeroing: str, tmp_path: Path) -> None:
    """An ``empty`` buffer zeroed (``zero_``, ``fill_(0)``, ``cudaMemset`` of all its bytes) before the
    launch that accumulates into it starts as zeros."""
    cuda = ROW_SUM_CUDA.replace("out.zero_();", zeroing)
    report = _verify(tmp_path, ROW_SUM, _candidate(cuda, "row_sum"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_allocated_then_moved_to_the_device(tmp_path: Path) -> None:
    """``torch::zeros({rows}, torch::kFloat32).to(x.device())``: the tensor itself (larkc's are CUDA tensors)."""
    cuda = ROW_SUM_CUDA.replace(
        "auto out = torch::empty({rows}, x.options());\n    out.zero_();",
        "auto out = torch::zeros({rows}, torch::kFloat32).to(x.device());",
    )
    assert cuda != ROW_SUM_CUDA
    report = _verify(tmp_path, ROW_SUM, _candidate(cuda, "row_sum"))
    assert report.exit_code == 0, "\n".join(report.render())


def test_not_zeroed_is_refuted(tmp_path: Path) -> None:
    report = _verify(tmp_path, ROW_SUM, _candidate(ROW_SUM_CUDA.replace("out.zero_();", ""), "row_sum"))
    assert report.exit_code == 1, "\n".join(report.render())


def test_a_partial_memset_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = ROW_SUM_CUDA.replace("out.zero_();", "cudaMemset(out.data_ptr<float>(), 0, rows);")
    err = _refusal(tmp_path, ROW_SUM, _candidate(cuda, "row_sum"), capsys)
    assert "error: unsupported cudaMemset of rows bytes of a tensor of rows * 4: cudaMemset(" in err, err


MSE_CUDA = """
__global__ void squared_diff_kernel(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float d = a[i] - b[i];
        out[i] = d * d;
    }
}

torch::Tensor mse_cuda(torch::Tensor predictions, torch::Tensor targets) {
    int n = predictions.numel();
    auto squared = torch::empty_like(predictions);
    squared_diff_kernel<<<(n + 255) / 256, 256>>>(predictions.data_ptr<float>(), targets.data_ptr<float>(),
                                                   squared.data_ptr<float>(), n);
    return squared.mean();
}
"""


def test_a_host_side_reduction_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``squared.mean()`` after the launch computes the result with torch: not modelled yet, and the
    error names the torch call at its place in ``model_new.py``."""
    candidate = _candidate(MSE_CUDA, "mse_cuda", forward="return self.ext.mse_cuda(x, y)", inputs="x, y")
    err = _refusal(tmp_path, MSE, candidate, capsys)
    assert err.startswith("model_new.py:") or "model_new.py:" in err, err
    assert ":24:12: error: unsupported torch method mean() on a tensor in host code" in err, err


# -- 5. loops over the dimensions --------------------------------------------------------------------

SUM_DIM_CUDA = """
__global__ void sum_dim_kernel(const float* x, float* out, int64_t reduce, int64_t inner, int64_t total) {
    int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < total) {
        int64_t o = idx / inner;
        int64_t i = idx % inner;
        float acc = 0.0f;
        for (int64_t r = 0; r < reduce; ++r) {
            acc += x[(o * reduce + r) * inner + i];
        }
        out[idx] = acc;
    }
}

torch::Tensor sum_dim(torch::Tensor x, int64_t dim) {
    if (dim < 0) dim += x.dim();
    auto sizes = x.sizes().vec();
    int64_t reduce = sizes[dim];
    int64_t outer = 1;
    for (int64_t i = 0; i < dim; ++i) {
        outer *= sizes[i];
    }
    int64_t inner = 1;
    for (int64_t i = dim + 1; i < (int64_t)sizes.size(); i++) inner *= x.size(i);
    sizes.erase(sizes.begin() + dim);
    auto out = torch::empty(sizes, x.options());
    const int64_t total = outer * inner;
    const int threads = 256;
    const int blocks = (total + threads - 1) / threads;
    sum_dim_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), reduce, inner, total);
    return out;
}
"""

SUM_DIM_INIT = """        self.dim = dim
"""


def _sum_dim(cuda: str) -> str:
    return _candidate(
        cuda, "sum_dim", init=SUM_DIM_INIT, params=", dim", forward="return self.ext.sum_dim(x, self.dim)"
    ).replace("torch::Tensor sum_dim(torch::Tensor x);", "torch::Tensor sum_dim(torch::Tensor x, int64_t dim);")


def test_loops_over_the_dimensions_are_unrolled(tmp_path: Path) -> None:
    """``for (i = 0; i < dim; ++i) outer *= sizes[i];``: the trip count is known (``dim`` is the problem's),
    so the loop is unrolled and ``outer`` is ``batch``, ``inner`` is ``width``."""
    report = _verify(tmp_path, SUM_OVER_DIM, _sum_dim(SUM_DIM_CUDA))
    assert report.exit_code == 0, "\n".join(report.render())


def test_a_loop_over_the_wrong_dimensions_is_refuted(tmp_path: Path) -> None:
    cuda = SUM_DIM_CUDA.replace("for (int64_t i = 0; i < dim; ++i) {", "for (int64_t i = 0; i <= dim; ++i) {")
    report = _verify(tmp_path, SUM_OVER_DIM, _sum_dim(cuda))
    assert report.exit_code == 1, "\n".join(report.render())


def test_a_range_loop_with_break_and_continue(tmp_path: Path) -> None:
    cuda = SUM_DIM_CUDA.replace(
        """    int64_t inner = 1;
    for (int64_t i = dim + 1; i < (int64_t)sizes.size(); i++) inner *= x.size(i);""",
        """    int64_t inner = 1;
    int64_t position = 0;
    for (auto s : x.sizes()) {
        position++;
        if (position <= dim + 1) continue;
        inner *= s;
        if (position == 100) break;
    }""",
    )
    report = _verify(tmp_path, SUM_OVER_DIM, _sum_dim(cuda))
    assert report.exit_code == 0, "\n".join(report.render())


def test_a_loop_over_sizes_is_refused_at_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = SUM_DIM_CUDA.replace("for (int64_t i = 0; i < dim; ++i) {", "for (int64_t i = 0; i < reduce; ++i) {")
    err = _refusal(tmp_path, SUM_OVER_DIM, _sum_dim(cuda), capsys)
    assert ":29:5: error: unsupported loop in host code whose trip count depends on the sizes" in err, err


def test_a_loop_past_the_unrolling_cap_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = SUM_DIM_CUDA.replace(
        "for (int64_t i = 0; i < dim; ++i) {\n        outer *= sizes[i];",
        "for (int64_t i = 0; i < 1000; ++i) {\n        if (i < dim) outer *= sizes[i];",
    )
    err = _refusal(tmp_path, SUM_OVER_DIM, _sum_dim(cuda), capsys)
    assert ":29:5: error: host loop runs more than 64 iterations" in err, err


# -- 6. host variables used before they are initialised ----------------------------------------------


def test_a_host_variable_used_before_initialisation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``int64_t outer;`` then ``outer *= ...``: a finding at the read, naming the declaration, not a crash."""
    cuda = SUM_DIM_CUDA.replace("int64_t outer = 1;", "int64_t outer;")
    err = _refusal(tmp_path, SUM_OVER_DIM, _sum_dim(cuda), capsys)
    assert err.endswith(
        ":30:9: error: host variable outer is used before it is initialised (declared without a value at line 28)"
    ), err


def test_a_variable_assigned_after_its_declaration(tmp_path: Path) -> None:
    cuda = SUM_DIM_CUDA.replace("int64_t outer = 1;", "int64_t outer;\n    outer = 1;")
    report = _verify(tmp_path, SUM_OVER_DIM, _sum_dim(cuda))
    assert report.exit_code == 0, "\n".join(report.render())


# -- a launch clamped at a constant (`std::min(1024, inner)` threads) ---------------------------------

WIDE_SUM = (
    SUM_OVER_DIM.replace("width = 40", "width = 2048")
    .replace("length = 24", "length = 8")
    .replace("batch = 8", "batch = 4")
)

CLAMPED_CUDA = """
__global__ void sum_dim_kernel(const float* x, float* out, int reduce, int inner) {
    int o = blockIdx.x;
    for (int i = threadIdx.x; i < inner; i += blockDim.x) {
        float acc = 0.0f;
        for (int r = 0; r < reduce; ++r) {
            acc += x[(o * reduce + r) * inner + i];
        }
        out[o * inner + i] = acc;
    }
}

torch::Tensor sum_dim(torch::Tensor x, int64_t dim) {
    auto sizes = x.sizes().vec();
    int reduce = sizes[dim];
    int outer = 1;
    for (int i = 0; i < dim; ++i) outer *= sizes[i];
    int inner = 1;
    for (int i = dim + 1; i < x.dim(); ++i) inner *= sizes[i];
    sizes.erase(sizes.begin() + dim);
    auto out = torch::zeros(sizes, x.options());
    const int threads = std::min(1024, inner);
    sum_dim_kernel<<<outer, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), reduce, inner);
    return out;
}
"""


@pytest.mark.parametrize(
    ("correct", "threads"),
    [(True, "std::min(1024, inner)"), (False, "std::min(1024, inner)"), (False, "inner > 1024 ? 1024 : inner")],
    ids=["strided", "one_thread_per_column", "one_thread_per_column_ternary"],
)
def test_a_launch_clamped_at_a_constant_is_checked_past_the_clamp(correct: bool, threads: str, tmp_path: Path) -> None:
    """``threads = std::min(1024, inner)`` (or ``inner > 1024 ? 1024 : inner``) with one thread per column
    (no stride) leaves the columns past 1024 unwritten: right at every scaled-down instance (``width`` at
    most 1024 there), wrong at the problem's ``width = 2048``. The derived instances include one past the
    clamp (``width = 1025``)."""
    cuda = CLAMPED_CUDA.replace("std::min(1024, inner)", threads)
    if not correct:
        cuda = cuda.replace("for (int i = threadIdx.x; i < inner; i += blockDim.x) {", "{ int i = threadIdx.x;")
    model_new, model = _write(tmp_path, WIDE_SUM, _sum_dim(cuda))
    task = larkc.candidate_task(model_new, model)
    past = [i for i in task.instances if i["width"] > 1024]
    assert [i["width"] for i in past] == [1025]
    report = larkc.verify(task, instances=past)
    assert report.exit_code == (0 if correct else 1), "\n".join(report.render())
