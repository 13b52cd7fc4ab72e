"""``ModelNew.forward`` read as a program of PyTorch steps and extension calls (issue 20, items 1 and 3).

``forward/<case>/`` holds problems and candidates written for these tests in the patterns generation
agents use: a module of ``ModelNew`` called in forward (``x = self.conv(x)``) before a fused kernel, a
PyTorch op after one, a torch op on an argument (``B.t().contiguous()``), locals and branches, an
extension function stored on ``self``, two ``load_inline`` extensions. The reader's steps are checked
against what was written, each PyTorch step's function against the PyTorch module it stands for on
random tensors, and each step's result shape (traced) against the shape PyTorch computes. Verifying
a task with PyTorch steps needs ``larkc.tasks.TorchStep`` (issue 20's engine); those tests skip without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import larkc
import larkc.tasks
from larkc.errors import LarkcError
from larkc.frontends.kernelbench.candidate import (
    CallResult,
    ForwardCall,
    ParamRef,
    TorchOp,
    init_input_values,
    read_model_new,
)
from larkc.frontends.kernelbench.derive import _compile_step, _pytorch_step, _reference_sizes, _step_text
from larkc.frontends.kernelbench.host import HostTensor
from larkc.reference import trace_reference
from larkc.tasks.shape_expr import ShapeNum, ShapeSym, evaluate

CASES = Path(__file__).resolve().parent / "forward"
HAS_TORCH_STEP = hasattr(larkc.tasks, "TorchStep")
needs_torch_step = pytest.mark.skipif(not HAS_TORCH_STEP, reason="larkc.tasks.TorchStep not in this larkc")

_PRELUDE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

src = """
torch::Tensor fused(torch::Tensor x) { return x; }
"""
ext = load_inline(name="e", cpp_sources="", cuda_sources=src, functions=["fused"])

'''


def _read(case: str, inputs: tuple[tuple[int, str], ...] = ()) -> list[ForwardCall | TorchOp]:
    folder = CASES / case
    return read_model_new(folder / "model_new.py", init_input_values(folder / "model.py") or [], inputs).steps


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "model_new.py"
    path.write_text(_PRELUDE + body, encoding="utf-8")
    return path


def _paths(args: tuple[object, ...]) -> list[object]:
    return [a.path if isinstance(a, ParamRef) else a for a in args]


def test_module_call_before_a_fused_kernel() -> None:
    """``x = self.conv(x)`` is a PyTorch step over the input and the conv's parameters; the kernel reads its result."""
    conv, call = _read("conv_bias_relu")
    assert isinstance(conv, TorchOp) and isinstance(call, ForwardCall)
    assert conv.label == "self.conv(x)" and conv.span.line == 54
    assert conv.parameters == ("x", "conv_weight", "conv_bias")
    assert _paths(conv.arguments) == ["x", "conv.weight", "conv.bias"]
    assert conv.expression == (
        "torch.nn.functional.conv2d(x, conv_weight, conv_bias, stride=(1, 1), padding=(1, 1), dilation=(1, 1),"
        " groups=1)"
    )
    assert call.function == "bias_relu_cuda" and _paths(call.arguments) == [CallResult(0), "bias"]


def test_torch_ops_around_a_stored_extension_function() -> None:
    """``F.linear`` before and ``h.sum(dim=1).view(batch, 1)`` after a kernel stored as ``self.tanh = ext.fn``;
    ``batch = x.size(0)`` is a size, used where it is."""
    linear, call, total = _read("linear_tanh_sum")
    assert isinstance(linear, TorchOp) and isinstance(call, ForwardCall) and isinstance(total, TorchOp)
    assert linear.expression == "torch.nn.functional.linear(x, linear_weight, linear_bias)"
    assert call.function == "tanh_forward" and call.arguments == (CallResult(0),)
    assert total.label == "h.sum(dim=1).view(batch, 1)"
    assert total.arguments == ("x", CallResult(1)) and total.expression == "t1.sum(dim=1).view(x.size(0), 1)"


def test_locals_and_branches_decided_for_cuda_tensors() -> None:
    """``if not A.is_cuda``, ``if not B.is_contiguous()``, ``if self.use_kernel and A.dtype == torch.float32``
    are decided (CUDA float32 inputs, ``__init__``'s default); ``B.t().contiguous()`` is a PyTorch step."""
    transpose, call = _read("matmul_locals", ((2, "f32"), (2, "f32")))
    assert isinstance(transpose, TorchOp) and transpose.expression == "B.t().contiguous()"
    assert transpose.arguments == ("B",)
    assert isinstance(call, ForwardCall) and call.arguments == ("A", CallResult(0))


def test_a_dtype_branch_needs_the_inputs_element_types() -> None:
    with pytest.raises(LarkcError, match=r"model_new.py:57:12: error: unsupported condition in ModelNew.forward"):
        _read("matmul_locals")
    steps = _read("matmul_locals", ((2, "f16"), (2, "f16")))  # the other branch: all PyTorch
    assert [type(s) for s in steps] == [TorchOp] and isinstance(steps[0], TorchOp)
    assert steps[0].expression == "torch.matmul(A, B)"


def test_statements_of_forward(tmp_path: Path) -> None:
    """Attributes of submodules, ``bias if ... else`` on ``__init__``'s choices, ``.to(device)``, shapes
    unpacked, in-place ``+=``, ``if self.bias is not None``."""
    path = _write(
        tmp_path,
        """
class ModelNew(nn.Module):
    def __init__(self, c, k, with_bias=False):
        super().__init__()
        self.conv = nn.Conv1d(c, c, k, stride=2, bias=False)
        self.bias = nn.Parameter(torch.zeros(c)) if with_bias else None
        self.k = self.conv.kernel_size
        self.fn = ext.fused

    def forward(self, x):
        x = x.to(x.device)
        bias = self.conv.bias if self.conv.bias is not None else torch.zeros(x.size(1), device=x.device)
        n, c, length = x.shape
        y = self.fn(self.conv(x))
        if self.bias is not None:
            y += self.bias.view(1, -1, 1)
        y += bias.view(1, c, 1)
        return y * self.conv.stride[0] / (self.conv.kernel_size[0] + length)
""",
    )
    steps = read_model_new(path, [4, 3]).steps
    assert [type(s).__name__ for s in steps] == ["TorchOp", "TorchOp", "ForwardCall", "TorchOp", "TorchOp"]
    zeros, conv, call, add, scale = steps
    assert isinstance(zeros, TorchOp) and zeros.expression == "torch.zeros(x.size(1), device=x.device)"
    assert isinstance(conv, TorchOp) and conv.expression.startswith("torch.nn.functional.conv1d(x, conv_weight, None,")
    assert "stride=(2,)" in conv.expression
    assert isinstance(call, ForwardCall) and call.arguments == (CallResult(1),)
    assert isinstance(add, TorchOp) and add.expression == "t2 + bias.view(1, x.shape[1], 1)"
    assert isinstance(scale, TorchOp) and scale.expression == "y * 2 / (3 + x.shape[2])"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (
            "if x.sum() > 0:\n            x = ext.fused(x)\n        return ext.fused(x)",
            "10:12: error: unsupported condition",
        ),
        ("for _ in range(2):\n            x = ext.fused(x)\n        return x", "10:9: error: unsupported statement"),
        ("return self.seq(x)", "10:16: error: unsupported call of nn.Sequential: self.seq(x)"),
        ("return ext.fused(x, self.seq)", "10:29: error: unsupported use of a module of ModelNew other than a call"),
        ("return self.norm(x)", "10:16: error: unsupported call of nn.LayerNorm (argument normalized_shape not read"),
    ],
)
def test_what_forward_cannot_do_is_a_located_error(tmp_path: Path, body: str, error: str) -> None:
    path = _write(
        tmp_path,
        f"""
class ModelNew(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(c, c))
        self.norm = nn.LayerNorm(unknown_size)

    def forward(self, x):
        {body}
""",
    )
    with pytest.raises(LarkcError) as e:
        read_model_new(path, [4])
    first = path.read_text(encoding="utf-8").splitlines().index("    def forward(self, x):") + 2  # body's first line
    line, col = error.split(":")[:2]
    assert str(e.value).startswith(f"{path}:{first + int(line) - 10}:{col}: error: ")
    assert error.split(": ", 1)[1] in str(e.value)


#: Modules whose calls are PyTorch steps: each called on ``x`` of the given shape; the step's function
#: (with the module's parameters as arguments) must compute what the module computes (in training mode, as
#: KernelBench runs it; dropout only with p = 0 there: any other is random).
MODULES = [
    ("nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=1, groups=1)", (2, 3, 9, 11)),
    ("nn.Conv2d(4, 8, (3, 5), padding=(1, 2), groups=2, bias=False)", (2, 4, 7, 9)),
    ("nn.Conv1d(3, 6, 5, stride=3)", (2, 3, 20)),
    ("nn.Conv3d(2, 4, 3, padding=1)", (1, 2, 5, 6, 7)),
    ("nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)", (2, 4, 5, 6)),
    ("nn.ConvTranspose3d(3, 2, kernel_size=2, stride=2)", (1, 3, 3, 4, 5)),
    ("nn.ConvTranspose1d(3, 4, 4, stride=2, groups=1, bias=False, dilation=2)", (2, 3, 9)),
    ("nn.Linear(12, 5)", (3, 12)),
    ("nn.Linear(12, 5, bias=False)", (3, 7, 12)),
    ("nn.GroupNorm(2, 6, eps=1e-3)", (2, 6, 4, 4)),
    ("nn.LayerNorm((5, 6))", (3, 5, 6)),
    ("nn.LayerNorm(6, elementwise_affine=False)", (3, 6)),
    ("nn.BatchNorm2d(6)", (4, 6, 3, 3)),
    ("nn.BatchNorm1d(6, track_running_stats=False)", (4, 6)),
    ("nn.InstanceNorm2d(6, eps=1e-4)", (2, 6, 5, 5)),
    ("nn.MaxPool2d(kernel_size=2, stride=2)", (2, 3, 8, 9)),
    ("nn.AvgPool3d(2)", (1, 2, 4, 4, 6)),
    ("nn.AdaptiveAvgPool2d((1, 1))", (2, 3, 5, 7)),
    ("nn.Softmax(dim=1)", (3, 7)),
    ("nn.Dropout(0.0)", (4, 9)),
    ("nn.GELU()", (4, 9)),
    ("nn.Hardtanh(min_val=-0.5, max_val=0.5)", (4, 9)),
]


@pytest.mark.parametrize(("ctor", "shape"), MODULES, ids=[c for c, _ in MODULES])
def test_module_step_computes_the_module(tmp_path: Path, ctor: str, shape: tuple[int, ...]) -> None:
    path = _write(
        tmp_path,
        f"""
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {ctor}

    def forward(self, x):
        return ext.fused(self.m(x))
""",
    )
    op, _call = read_model_new(path).steps
    assert isinstance(op, TorchOp) and op.label == "self.m(x)"
    torch.manual_seed(0)
    module = eval(ctor, {"nn": torch.nn}).train()
    for p in module.parameters():  # trained values, not the initial ones (ones and zeros hide swapped roles)
        p.data = torch.randn_like(p)
    x = torch.randn(shape)
    params = dict(module.named_parameters())
    args = [params[a.path.removeprefix("m.")] if isinstance(a, ParamRef) else x for a in op.arguments]
    assert [a.path for a in op.arguments if isinstance(a, ParamRef)] == [f"m.{n}" for n in params]
    fn = _compile_step(_step_text(op, "_step0"), "_step0", op.span)
    with torch.no_grad():
        torch.testing.assert_close(fn(*args), module(x), rtol=1e-5, atol=1e-5)


def _host(name: str, *dims: str | int) -> HostTensor:
    return HostTensor(name, tuple(ShapeNum(d) if isinstance(d, int) else ShapeSym(d) for d in dims), "f32")


@pytest.mark.parametrize(
    ("ctor", "expected"),
    [
        ("nn.Conv2d(3, 8, 3, padding=1)", ("n", 8, "h", "w")),
        ("nn.Conv2d(3, 8, 3)", ("n", 8, "(h - 2)", "(w - 2)")),
        ("nn.ConvTranspose2d(3, 8, 3, stride=2, padding=1, output_padding=1)", ("n", 8, "(2 * h)", "(2 * w)")),
        ("nn.MaxPool2d(2)", ("n", 3, "(h // 2)", "(w // 2)")),
    ],
)
def test_step_result_shape_is_traced_exactly(tmp_path: Path, ctor: str, expected: tuple[object, ...]) -> None:
    """The result shape of a step is the reference tracer's shape expression over the task's symbols, and
    equals the shape PyTorch computes at other sizes too."""
    path = _write(
        tmp_path,
        f"""
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {ctor}

    def forward(self, x):
        return ext.fused(self.m(x))
""",
    )
    op, _ = read_model_new(path).steps
    assert isinstance(op, TorchOp)
    module = eval(ctor, {"nn": torch.nn})
    tensors = {"x": _host("x", "n", 3, "h", "w")}
    for name, p in module.named_parameters():
        tensors[f"m_{name}"] = _host(f"m_{name}", *p.shape)
    inputs = [tensors["x"] if a == "x" else tensors[a.path.replace(".", "_")] for a in op.arguments]  # type: ignore[union-attr]
    given = {"n": 4, "h": 16, "w": 20}
    step, (out,), assumptions = _pytorch_step(op, 0, inputs, given, {"x": tensors["x"]}, {}, trace_reference)
    assert tuple(str(d) if not isinstance(d, ShapeNum) else d.value for d in out.shape) == expected
    computed = [str(d) for d in out.shape if not isinstance(d, ShapeNum | ShapeSym)]
    assert [str(c) for c in assumptions] == [f"({d} >= 1)" for d in computed]  # sizes stay at least 1
    for sizes in ({"n": 2, "h": 9, "w": 13}, {"n": 3, "h": 32, "w": 6}):
        x = torch.randn(sizes["n"], 3, sizes["h"], sizes["w"])
        got = tuple(int(evaluate(d, sizes)) for d in out.shape)
        assert got == tuple(module(x).shape)
    assert step.inputs == tuple(inputs) and step.label == "self.m(x)"


def test_two_extensions_verified() -> None:
    """Two ``load_inline`` extensions, one call each: their CUDA is one file, each text at its lines."""
    folder = CASES / "two_extensions"
    task = larkc.candidate_task(folder / "model_new.py", folder / "model.py")
    assert [x.kernel for x in task.launches] == ["relu_kernel", "scale_kernel"]
    report = larkc.verify(task)
    assert report.exit_code == 0, "\n".join(report.render())


def test_two_extensions_defining_one_name(tmp_path: Path) -> None:
    text = (CASES / "two_extensions" / "model_new.py").read_text(encoding="utf-8")
    clash = tmp_path / "model_new.py"
    clash.write_text(text.replace("scale_kernel", "relu_kernel"), encoding="utf-8")
    with pytest.raises(LarkcError, match=r"relu_kernel is defined by two load_inline extensions"):
        larkc.candidate_task(clash, CASES / "two_extensions" / "model.py")


@needs_torch_step
@pytest.mark.parametrize("case", ["conv_bias_relu", "linear_tanh_sum", "matmul_locals"])
def test_candidates_with_pytorch_steps_verified(case: str) -> None:
    folder = CASES / case
    task = larkc.candidate_task(folder / "model_new.py", folder / "model.py")
    steps = getattr(task, "steps", task.launches)
    labels = [x.label for x in steps if not isinstance(x, larkc.tasks.KernelLaunch)]
    assert labels, "a PyTorch step"
    report = larkc.verify(task)
    assert report.exit_code == 0, "\n".join(report.render())


@needs_torch_step
def test_kernel_ignoring_the_bias_after_a_pytorch_conv_refuted() -> None:
    folder = CASES / "conv_bias_relu"
    task = larkc.candidate_task(folder / "wrong_bias_ignored.py", folder / "model.py")
    report = larkc.verify(task)
    assert report.exit_code == 1, "\n".join(report.render())


def test_running_statistics_training_and_builtins(tmp_path: Path) -> None:
    """``self.bn.running_mean`` is the batch norm's buffer (bound to Model's), ``self.training`` is true
    (KernelBench runs both modules in training mode), ``hasattr(self, ...)`` is decided,
    ``float(self.scale)`` folded, ``h = w = 5`` binds both; ``None`` for an optional tensor is an error at it."""
    path = _write(
        tmp_path,
        """
class ModelNew(nn.Module):
    def __init__(self, c, scale):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)
        self.scale = scale
        self.bias = None

    def forward(self, x):
        if not self.training or not hasattr(self, "bn"):
            return self.bn(x)
        h = w = 5
        mean = self.bn.running_mean
        return ext.fused(x, mean, self.bn.running_var, float(self.scale) * h)
""",
    )
    (call,) = read_model_new(path, [4, 2]).steps
    assert isinstance(call, ForwardCall) and (call.arguments[0], call.arguments[3]) == ("x", 10.0)
    assert _paths(call.arguments[1:3]) == ["bn.running_mean", "bn.running_var"]
    path.write_text(path.read_text(encoding="utf-8").replace("float(self.scale) * h", "self.bias"), encoding="utf-8")
    (call,) = read_model_new(path, [4, 2]).steps
    assert isinstance(call, ForwardCall) and call.arguments[3] is None


@pytest.mark.parametrize(
    ("body", "steps"),
    [
        ("return ext.fused(B.t())", None),
        ("Bt = B.t()\n        return ext.fused(Bt)", None),
        ("return ext.fused(B[:, 0])", None),
        ("return ext.fused(B.permute(1, 0).view(-1))", None),
        ("return ext.fused(B.t().contiguous())", ["B.t().contiguous()"]),
        ("Bt = B.t()\n        return ext.fused(Bt.contiguous())", ["B.t()", "Bt.contiguous()"]),
        ("return ext.fused(B.view(-1))", []),  # the input's own buffer
    ],
)
def test_a_view_that_may_not_be_contiguous_is_an_error(tmp_path: Path, body: str, steps: list[str] | None) -> None:
    """A kernel reads ``data_ptr()`` in row-major order: a transpose passed without ``.contiguous()`` is
    not the tensor it reads (PyTorch passes the view's storage), so it cannot be a copy larkc makes."""
    path = _write(tmp_path, f"\nclass ModelNew(nn.Module):\n    def forward(self, B):\n        {body}\n")
    if steps is None:
        with pytest.raises(
            LarkcError, match=r"unsupported tensor passed to the CUDA function that may not be contiguous"
        ):
            read_model_new(path)
        return
    got = read_model_new(path).steps
    assert [s.label for s in got if isinstance(s, TorchOp)] == steps


def test_init_values_read_for_forward(tmp_path: Path) -> None:
    """``stride=None`` defaults, ``isinstance`` tests and ``nn.Linear(...).cuda()`` are read in ``__init__``;
    an attribute ``__init__`` computes otherwise is an error where forward reads it, not a parameter."""
    path = _write(
        tmp_path,
        """
class ModelNew(nn.Module):
    def __init__(self, k, stride=None, pad=1):
        super().__init__()
        self.stride = stride if stride is not None else k
        self.pad = pad if isinstance(pad, tuple) else (pad, pad)
        self.fc = nn.Linear(k, k).cuda()
        self.odd = self.helper(k)

    def forward(self, x):
        return ext.fused(self.fc(x), self.stride, self.pad[1])
""",
    )
    fc, call = read_model_new(path, [4]).steps
    assert isinstance(fc, TorchOp) and fc.expression == "torch.nn.functional.linear(x, fc_weight, fc_bias)"
    assert isinstance(call, ForwardCall) and call.arguments == (CallResult(0), 4, 1)
    path.write_text(path.read_text(encoding="utf-8").replace("self.pad[1]", "self.odd"), encoding="utf-8")
    with pytest.raises(LarkcError, match=r"unsupported attribute of ModelNew that is not a constant: self.odd"):
        read_model_new(path, [4])


@needs_torch_step
def test_a_forward_that_never_calls_its_kernel_is_not_a_kernel() -> None:
    folder = CASES / "conv_bias_relu"
    task = larkc.candidate_task(folder / "wrong_all_pytorch.py", folder / "model.py")
    assert task.launches == ()
    report = larkc.verify(task)
    assert report.exit_code == 1, "\n".join(report.render())
    assert any("not a kernel" in line for line in report.render())


def test_sizes_where_the_reference_computes_nothing_are_left_out(tmp_path: Path) -> None:
    """At height 3 a 3x3 convolution gives 1x1 and ``AvgPool2d(2)`` of that is empty (PyTorch refuses it):
    such sizes are no problem size, so a candidate with PyTorch steps is checked where they are not empty."""
    reference = tmp_path / "model.py"
    reference.write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Model(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Conv2d(3, 4, 3)\n"
        "        self.pool = nn.AvgPool2d(2)\n\n"
        "    def forward(self, x):\n"
        "        return self.pool(self.conv(x))\n\n\n"
        "def get_inputs():\n    return [torch.randn(2, 3, 16, 16)]\n\n\n"
        "def get_init_inputs():\n    return []\n",
        encoding="utf-8",
    )
    inputs = {"x": _host("x", "n", 3, "h", "w")}
    weights = {"conv_weight": _host("conv_weight", 4, 3, 3, 3), "conv_bias": _host("conv_bias", 4)}
    paths = {"conv_weight": "conv.weight", "conv_bias": "conv.bias"}
    sizes = _reference_sizes(reference, [], inputs, weights, paths, {"n": 2, "h": 16, "w": 16}, trace_reference)
    assert not all(evaluate(c, {"n": 2, "h": 3, "w": 16}) for c in sizes)  # h = 3: the pooled image is empty
    assert all(evaluate(c, {"n": 2, "h": 4, "w": 5}) for c in sizes)
