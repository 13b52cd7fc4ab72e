"""The KernelBench vocabulary of the reference frontend (``larkc.reference.aten_nn``): each layer traced
into spec ops and evaluated numerically (float64) against torch on random inputs; references that
torch.export cannot take are located errors."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 - torch's conventional alias
from torch import nn

from larkc.errors import ReferenceError_
from larkc.reference import SpecOp, evaluate, trace_reference


class Fn(nn.Module):
    """A module calling ``fn`` on its inputs (so a case can be a lambda)."""

    def __init__(self, fn: Callable[..., torch.Tensor]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None, z: torch.Tensor | None = None) -> torch.Tensor:
        args = [t for t in (x, y, z) if t is not None]
        return self.fn(*args)


def _shape(s: tuple[int, ...]) -> str:
    return f"f32[{', '.join(map(str, s))}]"


def _check(module: nn.Module, *shapes: tuple[int, ...], positive: bool = False) -> set[SpecOp]:
    """Trace ``module`` at ``shapes``, evaluate the spec in float64 and compare with the module in float64."""
    torch.manual_seed(0)
    module.eval()
    for p in module.parameters():  # non-trivial affine parameters and running statistics
        with torch.no_grad():
            p.add_(torch.rand_like(p))
    for name, b in module.named_buffers():
        if b.is_floating_point():
            with torch.no_grad():
                b.copy_(torch.rand_like(b) + (0.5 if "var" in name else 0.0))
    names = ["x", "y", "z"][: len(shapes)]
    g = trace_reference(module, {k: _shape(s) for k, s in zip(names, shapes, strict=True)})
    args = [torch.randn(*s, dtype=torch.float64) for s in shapes]
    if positive:
        args = [a.abs() + 0.1 for a in args]
    want = copy.deepcopy(module).double()(*args)
    (got,) = evaluate(g, dict(zip(names, args, strict=True)))
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9)
    return set(g.ops())


# Convolutions ---------------------------------------------------------------------------------------

CONVS: dict[str, tuple[nn.Module, tuple[int, ...]]] = {
    "conv1d": (nn.Conv1d(4, 6, 3), (2, 4, 11)),
    "conv1d_strided_dilated_grouped": (nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2), (2, 4, 13)),
    "conv2d": (nn.Conv2d(3, 5, (3, 2), padding=(1, 0), bias=False), (2, 3, 7, 6)),
    "conv2d_depthwise": (nn.Conv2d(4, 4, 3, stride=(2, 1), padding=1, groups=4), (1, 4, 8, 7)),
    "conv3d": (nn.Conv3d(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=(0, 1, 1), dilation=(2, 1, 1)), (1, 2, 6, 7, 5)),
    "conv_transpose1d": (nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), (2, 4, 7)),
    "conv_transpose2d": (
        nn.ConvTranspose2d(3, 4, (3, 2), stride=(2, 3), padding=(1, 0), dilation=(1, 2)),
        (2, 3, 5, 4),
    ),
    "conv_transpose2d_big_padding": (nn.ConvTranspose2d(2, 3, 3, padding=3), (1, 2, 9, 8)),
    "conv_transpose3d": (nn.ConvTranspose3d(2, 2, 2, stride=2, bias=False), (1, 2, 3, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolution_matches_torch(name: str) -> None:
    module, shape = CONVS[name]
    ops = _check(module, shape)
    assert SpecOp.MATMUL in ops


def test_unbatched_conv_and_functional_padding_modes() -> None:
    _check(nn.Conv2d(2, 3, 3, padding=1), (2, 6, 5))
    w = torch.randn(3, 2, 3)
    _check(Fn(lambda x: F.conv1d(x, w.to(x.dtype), padding="valid")), (2, 2, 9))


# Pooling ----------------------------------------------------------------------------------------------

POOLS: dict[str, tuple[nn.Module, tuple[int, ...]]] = {
    "max_pool1d": (nn.MaxPool1d(3, stride=2, padding=1, dilation=2), (2, 3, 12)),
    "max_pool2d": (nn.MaxPool2d(3, stride=2, padding=1), (2, 3, 9, 8)),
    "max_pool2d_ceil": (nn.MaxPool2d(2, stride=2, ceil_mode=True), (1, 2, 7, 9)),
    "max_pool3d": (nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0)), (1, 2, 5, 6, 5)),
    "avg_pool1d": (nn.AvgPool1d(3, stride=2, padding=1), (2, 3, 10)),
    "avg_pool2d_exclude_pad": (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 9, 8)),
    "avg_pool2d_ceil": (nn.AvgPool2d(3, stride=2, ceil_mode=True), (1, 2, 8, 8)),
    "avg_pool2d_divisor": (nn.AvgPool2d(2, divisor_override=3), (1, 2, 6, 4)),
    "avg_pool3d": (nn.AvgPool3d(2, stride=2, padding=1), (1, 2, 5, 6, 4)),
    "adaptive_avg_pool1d": (nn.AdaptiveAvgPool1d(1), (2, 3, 7)),
    "adaptive_avg_pool2d": (nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 8, 9)),
    "adaptive_avg_pool3d": (nn.AdaptiveAvgPool3d(1), (1, 2, 3, 4, 5)),
    "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d(2), (1, 3, 6, 4)),
    "adaptive_max_pool1d": (nn.AdaptiveMaxPool1d(1), (2, 3, 5)),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pooling_matches_torch(name: str) -> None:
    module, shape = POOLS[name]
    _check(module, shape)


def test_adaptive_pool_with_uneven_windows_is_a_located_error() -> None:
    with pytest.raises(ReferenceError_, match="not dividing the input size"):
        trace_reference(nn.AdaptiveAvgPool2d(3), {"x": "f32[1, 2, 7, 8]"})


# Normalisation ------------------------------------------------------------------------------------------

NORMS: dict[str, tuple[nn.Module, tuple[int, ...]]] = {
    "batch_norm_eval": (nn.BatchNorm2d(3), (4, 3, 5, 2)),
    "batch_norm1d_no_affine": (nn.BatchNorm1d(3, affine=False), (5, 3)),
    "batch_norm3d": (nn.BatchNorm3d(2), (2, 2, 3, 2, 2)),
    "batch_norm_training": (Fn(lambda x: F.batch_norm(x, None, None, training=True, eps=1e-3)), (4, 3, 5)),
    "group_norm": (nn.GroupNorm(2, 4), (3, 4, 5, 2)),
    "group_norm_no_affine": (nn.GroupNorm(3, 6, affine=False, eps=1e-3), (2, 6, 7)),
    "instance_norm": (nn.InstanceNorm2d(3), (2, 3, 4, 5)),
    "instance_norm_affine": (nn.InstanceNorm1d(3, affine=True), (2, 3, 6)),
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_normalisation_matches_torch(name: str) -> None:
    module, shape = NORMS[name]
    ops = _check(module, shape)
    assert SpecOp.RSQRT in ops


class _ConvBnRelu(nn.Module):
    """A module whose buffers torch.export functionalises (batch norm): the ``_native_batch_norm_legit``
    forms appear after ``run_decompositions``."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.mul_(1.0)  # an in-place op: the graph is functionalised into core ATen
        return F.relu(self.bn(self.conv(x)))


def test_decomposed_forms_of_conv_and_batch_norm() -> None:
    _check(_ConvBnRelu(), (2, 2, 6, 5))


# Activations and composites --------------------------------------------------------------------------

ACTIVATIONS: dict[str, Callable[..., torch.Tensor]] = {
    "mish": F.mish,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "elu": lambda x: F.elu(x, alpha=0.7),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=1.5),
    "logsumexp": lambda x: torch.logsumexp(x, dim=1),
    "logsumexp_keepdim": lambda x: torch.logsumexp(x, dim=(0, 2), keepdim=True),
    "transpose_T": lambda x: x.T,
    "multiply": lambda x: torch.multiply(x, x + 1),
    "pad": lambda x: F.pad(x, (1, 2, 0, 3), value=0.5),
    "pad_negative": lambda x: F.pad(x, (-1, 2)),
    "flip": lambda x: torch.flip(x, dims=(0, 2)),
    "roll": lambda x: torch.roll(x, shifts=(2, -1), dims=(1, 2)),
    "roll_flat": lambda x: torch.roll(x, 7),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_torch(name: str) -> None:
    _check(Fn(ACTIVATIONS[name]), (3, 4, 5))


def test_mish_keeps_softplus_threshold_exact() -> None:
    # large inputs take softplus's linear branch (threshold 20)
    g = trace_reference(Fn(F.mish), {"x": "f32[4]"})
    x = torch.tensor([-30.0, -1.0, 25.0, 100.0], dtype=torch.float64)
    (got,) = evaluate(g, {"x": x})
    torch.testing.assert_close(got, F.mish(x), rtol=1e-12, atol=1e-12)


EINSUMS = {
    "ij,jk->ik": ((3, 4), (4, 5)),
    "bij,bjk->bik": ((2, 3, 4), (2, 4, 5)),
    "ij,ij->": ((3, 4), (3, 4)),
    "bhqd,bhkd->bhqk": ((2, 2, 3, 4), (2, 2, 5, 4)),
    "i,j->ji": ((3,), (4,)),
    "ijk->kj": ((2, 3, 4),),
}


@pytest.mark.parametrize("equation", sorted(EINSUMS))
def test_einsum_matches_torch(equation: str) -> None:
    _check(Fn(lambda *ts: torch.einsum(equation, *ts)), *EINSUMS[equation])


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention_matches_torch(causal: bool) -> None:
    fn = Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    ops = _check(fn, (2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 6))
    assert SpecOp.SOFTMAX in ops


def test_attention_with_float_mask_and_scale() -> None:
    mask = torch.randn(5, 7)
    fn = Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.dtype), scale=0.3))
    _check(fn, (2, 5, 4), (2, 7, 4), (2, 7, 3))


LOSSES: dict[str, Callable[..., torch.Tensor]] = {
    "smooth_l1": lambda x, y: F.smooth_l1_loss(x, y, beta=0.7),
    "smooth_l1_beta0": lambda x, y: F.smooth_l1_loss(x, y, beta=0.0, reduction="sum"),
    "huber": lambda x, y: F.huber_loss(x, y, delta=0.6, reduction="none"),
    "kl_div_batchmean": lambda x, y: F.kl_div(torch.log(x), y, reduction="batchmean"),
    "kl_div_log_target": lambda x, y: F.kl_div(x, torch.log(y), reduction="sum", log_target=True),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_matches_torch(name: str) -> None:
    _check(Fn(LOSSES[name]), (6, 5), (6, 5), positive=name.startswith("kl"))


def test_kl_div_zero_target_is_xlogy() -> None:
    g = trace_reference(Fn(lambda x, y: F.kl_div(x, y, reduction="none")), {"x": "f32[3]", "y": "f32[3]"})
    x, y = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64), torch.tensor([0.0, 0.25, 1.0], dtype=torch.float64)
    (got,) = evaluate(g, {"x": x, "y": y})
    torch.testing.assert_close(got, F.kl_div(x, y, reduction="none"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_matches_torch(swap: bool) -> None:
    fn = Fn(lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, p=3, swap=swap))
    _check(fn, (4, 6), (4, 6), (4, 6))


# Located errors --------------------------------------------------------------------------------------


class _Counter(nn.Module):
    """Mutates its own buffer in forward."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1  # counter-line
        return x * self.calls


def _line_of(marker: str) -> int:
    return next(i for i, t in enumerate(Path(__file__).read_text().splitlines(), 1) if t.endswith(f"# {marker}"))


def test_module_mutating_its_buffer_is_a_located_error() -> None:
    with pytest.raises(ReferenceError_, match="reference updates its buffer 'calls' in place") as info:
        trace_reference(_Counter(), {"x": "f32[4]"})
    assert Path(info.value.span.file).name == "test_kernelbench_vocab.py"
    assert info.value.span.line == _line_of("counter-line")


class _TrainingBatchNorm(nn.Module):
    """Batch norm in training mode: updates its running statistics, which the output does not read."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(3))
        self.register_buffer("var", torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.mean, self.var, training=True, momentum=0.5)


def test_stats_update_nothing_reads_is_dropped() -> None:
    g = trace_reference(_TrainingBatchNorm(), {"x": "f32[5, 3]"})
    x = torch.randn(5, 3, dtype=torch.float64)
    (got,) = evaluate(g, {"x": x})
    want = F.batch_norm(x, None, None, training=True)
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9)


def test_reflect_padding_is_a_located_error() -> None:
    with pytest.raises(ReferenceError_, match="mode='reflect'"):
        trace_reference(Fn(lambda x: F.pad(x, (1, 1), mode="reflect")), {"x": "f32[2, 3, 5]"})


class _HeldState(nn.Module):
    """Updates a plain tensor attribute (not a registered buffer) in place, as KernelBench's RNN does."""

    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.zeros(2, 3)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        self.hidden.copy_(h)  # held-state-line
        return torch.tanh(x + self.hidden)


def test_module_updating_a_held_tensor_is_a_located_error() -> None:
    with pytest.raises(ReferenceError_, match="reference updates 'hidden' in place") as info:
        trace_reference(_HeldState(), {"x": "f32[2, 3]", "h": "f32[2, 3]"})
    assert info.value.span.line == _line_of("held-state-line")
