"""KernelBench candidates whose kernel reads parameters of ``ModelNew`` (``self.linear.weight``,
``self.bias``): the task's ``params`` stand for ``Model``'s parameters (``docs/kernelbench.md``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError, TaskError
from larkc.frontends.kernelbench.params import ModuleParam, Opaque, init_sizes, module_params
from larkc.provers import AssumptionKind, Verdict
from larkc.tasks import BufferArg, Task, load_task

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "kernelbench"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_derived_params() -> None:
    """Model's parameters are the task's last inputs, named as the reference stage names them, with
    shapes over the sizes get_init_inputs() names; the kernel's weight buffers are bound to them."""
    problem = CORPUS / "l2_linear_bias_sigmoid"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    assert dict(task.params) == {"gemm_weight": "gemm.weight", "gemm_bias": "gemm.bias", "bias": "bias"}
    assert list(task.inputs) == ["x", "gemm_weight", "gemm_bias", "bias"]
    assert [str(d) for d in task.inputs["gemm_weight"].shape] == ["out_features", "in_features"]
    assert [str(d) for d in task.inputs["bias"].shape] == ["out_features"]
    assert "out_features" in task.symbols
    # ModelNew's fc.weight (passed through a local), fc.bias and bias are Model's gemm.weight, gemm.bias, bias
    assert task.bindings["w"] == BufferArg("gemm_weight")
    assert task.bindings["fc_bias"] == BufferArg("gemm_bias")
    assert task.bindings["extra_bias"] == BufferArg("bias")


def test_spec_takes_the_params_as_inputs() -> None:
    """The spec's terms over the weights are ``elem(<input>, i)`` as the kernel's: no parameter is left
    with the module's own values."""
    from larkc.reference import trace_task

    problem = CORPUS / "l2_linear_relu"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    graph = trace_task(task)
    assert [i.name for i in graph.inputs] == ["x", "linear_weight", "linear_bias"]
    assert graph.params == ()


def test_verified_under_the_assumption() -> None:
    problem = CORPUS / "l2_linear_relu"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())
    (param,) = [a for a in report.assumptions() if a.kind is AssumptionKind.TASK and "ModelNew" in a.text]
    assert "same order under the same seed" in param.text and "linear_weight = linear.weight" in param.text


@pytest.mark.parametrize(
    "wrong", ["l2_linear_relu/wrong_weight_transposed", "l2_linear_bias_sigmoid/wrong_extra_bias_ignored"]
)
def test_verify_refutes_wrong_weights(wrong: str) -> None:
    path = CORPUS / f"{wrong}.py"
    task = larkc.candidate_task(path, path.parent / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and report.kinds() == {"mismatch"}, "\n".join(report.render())


def test_task_file_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``larkc task`` prints ``params``; the task file loads as the derived task and runs."""
    problem = CORPUS / "l2_linear_relu"
    out = tmp_path / "derived" / "task.py"
    assert main(["task", str(problem / "model_new.py"), "--reference", str(problem / "model.py"), "-o", str(out)]) == 0
    assert "params={'linear_weight': 'linear.weight', 'linear_bias': 'linear.bias'}," in out.read_text()
    loaded = load_task(out)
    derived = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    for f in dataclasses.fields(derived):
        if f.name not in ("source", "reference", "task_file"):
            assert getattr(loaded, f.name) == getattr(derived, f.name), f.name
    capsys.readouterr()
    assert main(["run", str(out), "--seeds", "1"]) == 0
    assert "no diagnosis" in capsys.readouterr().out


def test_params_are_the_last_inputs(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(const float* w, const float* x, float* y) {}\n")
    common = {"source": src, "kernel": "k", "grid": [1], "block": [1], "outputs": {"y": "f32[4]"}}
    with pytest.raises(TaskError, match="must be the last inputs"):
        Task(inputs={"w": "f32[4]", "x": "f32[4]"}, params={"w": "linear.weight"}, **common)  # type: ignore[arg-type]
    task = Task(inputs={"x": "f32[4]", "w": "f32[4]"}, params={"w": "linear.weight"}, **common)  # type: ignore[arg-type]
    assert dict(task.params) == {"w": "linear.weight"}


def test_reference_without_that_parameter(tmp_path: Path) -> None:
    problem = CORPUS / "l2_linear_relu"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    bad = dataclasses.replace(task, params={"linear_weight": "linear.weight", "linear_bias": "fc.bias"})
    with pytest.raises(LarkcError, match=r"has no parameter 'fc\.bias'"):
        larkc.run(bad, instances=[task.instances[-1]])


def test_module_params_read(tmp_path: Path) -> None:
    """Shapes of nn.Conv2d (groups, a kernel size pair, no bias), nn.LayerNorm and nn.Parameter from
    get_init_inputs(), in creation order; a module larkc does not know is opaque."""
    path = tmp_path / "model.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self, c_in, c_out, k, shape):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Conv2d(c_in, c_out, (k, 5), groups=2, bias=False)\n"
        "        self.act = nn.ReLU()\n"
        "        self.norm = nn.LayerNorm(shape)\n"
        "        self.scale = nn.Parameter(torch.ones(c_out, 1, 1) * 2.0)\n"
        "        self.rnn = nn.GRU(c_out, c_out)\n\n\n"
        "channels = 8\nout_channels = 16\nkernel = 3\nshape = (out_channels, 4)\n\n\n"
        "def get_init_inputs():\n    return [channels, out_channels, kernel, shape]\n"
    )
    sizes = init_sizes(path)
    assert sizes is not None
    got = module_params(path, "Model", sizes)
    params = [(p.path, p.kind, [(d.value, d.name) for d in p.shape]) for p in got if isinstance(p, ModuleParam)]
    assert params == [
        ("conv.weight", "Conv2d.weight", [(16, "out_channels"), (4, None), (3, None), (5, None)]),
        ("norm.weight", "LayerNorm.weight", [(16, "out_channels"), (4, None)]),
        ("norm.bias", "LayerNorm.bias", [(16, "out_channels"), (4, None)]),
        ("scale", "Parameter(torch.ones(...) * 2.0)", [(16, "out_channels"), (1, None), (1, None)]),
    ]
    assert [p.what for p in got if isinstance(p, Opaque)] == ["nn.GRU(c_out, c_out)"]


_CANDIDATE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

src = """
__global__ void scale_rows(const float* x, const float* s, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s[0];
}

torch::Tensor scale(torch::Tensor x, torch::Tensor s) {
    auto y = torch::empty_like(x);
    scale_rows<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), s.data_ptr<float>(), y.data_ptr<float>(),
                                                  x.numel());
    return y;
}
"""

ext = load_inline(name="ext", cpp_sources="", cuda_sources=src, functions=["scale"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
{init}

    def forward(self, x):
        return ext.scale(x, {arg})
'''

#: ModelNew's __init__ (one statement per line), the parameter forward passes, the line of the error
#: (counted in ``init``), and what the error says; against l2_linear_bias_sigmoid's Model (gemm.weight
#: (512, 256), gemm.bias (512,), bias (512,) = randn * 0.02).
_MISMATCHES = {
    "only_in_model_new": (
        [
            "self.gemm = nn.Linear(in_features, out_features)",
            "self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)",
            "self.shift = nn.Parameter(torch.zeros(out_features))",
        ],
        "self.shift",
        2,
        "shift (Parameter(torch.zeros(...)) of shape [512]) has no counterpart in Model, which creates 3",
    ),
    "reinitialised_before": (
        [
            "self.gemm = nn.Linear(in_features, out_features)",
            "nn.init.zeros_(self.gemm.bias)",
            "self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)",
        ],
        "self.bias",
        1,
        "unsupported parameters in ModelNew.__init__ before parameter bias",
    ),
    "random_draw_before": (
        ["self.noise = torch.randn(4)", "self.gemm = nn.Linear(in_features, out_features)"],
        "self.gemm.weight",
        0,
        "before parameter gemm.weight (larkc reads nn.Linear, nn.Conv*d, nn.ConvTranspose*d, the norms",
    ),
    "unknown_module_before": (
        ["self.rnn = nn.GRU(in_features, out_features)", "self.gemm = nn.Linear(in_features, out_features)"],
        "self.gemm.weight",
        0,
        "unsupported parameters in ModelNew.__init__ before parameter gemm.weight",
    ),
}


@pytest.mark.parametrize("case", sorted(_MISMATCHES))
def test_params_mismatch(case: str, tmp_path: Path) -> None:
    """A parameter the kernel reads that is not Model's in its place is an error at ModelNew's line."""
    init, arg, line, message = _MISMATCHES[case]
    path = tmp_path / "model_new.py"
    path.write_text(_CANDIDATE.replace("{init}", "\n".join(f"        {s}" for s in init)).replace("{arg}", arg))
    with pytest.raises(LarkcError) as e:
        larkc.candidate_task(path, CORPUS / "l2_linear_bias_sigmoid" / "model.py")
    assert message in e.value.message
    assert e.value.span is not None and e.value.span.file == str(path)
    assert e.value.span.line == _CANDIDATE.split("\n").index("{init}") + 1 + line


def test_emit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The Lean spec takes the weights as arguments, as the other inputs."""
    problem = CORPUS / "l2_linear_relu"
    out = tmp_path / "lean"
    assert main(["emit", str(problem / "model_new.py"), "--reference", str(problem / "model.py"), "-o", str(out)]) == 0
    capsys.readouterr()
    (spec,) = out.glob("*/Spec.lean")
    assert "(x linear_weight linear_bias : Larkc.Tensor)" in spec.read_text()


#: ModelNew's __init__ and forward for l2_linear_bias_sigmoid, initialised otherwise than Model, and the
#: findings (a kernel that is right for every weight value)
_INIT_DIFFERS = {
    "scale_dropped": (
        {"torch.randn(bias_shape) * 0.02)": "torch.randn(bias_shape))"},
        [
            "ModelNew's parameter bias (Parameter(torch.randn(...)) of shape [512]) is initialised otherwise than"
            " Model's bias (Parameter(torch.randn(...) * 0.02) of shape [512])"
        ],
    ),
    "created_in_another_order": (
        {
            "        self.fc = nn.Linear(in_features, out_features)\n"
            "        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)": (
                "        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)\n"
                "        self.fc = nn.Linear(in_features, out_features)"
            )
        },
        [
            "ModelNew's parameter fc.weight (Linear.weight of shape [512, 256]) is drawn from another state of the"
            " random generator (other draws come before it) than Model's gemm.weight",
            "ModelNew's parameter fc.bias (Linear.bias of shape [512]) is drawn from another state of the random"
            " generator (other draws come before it) than Model's gemm.bias",
            "ModelNew's parameter bias (Parameter(torch.randn(...) * 0.02) of shape [512]) is drawn from another"
            " state of the random generator (other draws come before it) than Model's bias",
        ],
    ),
    "randn_for_linear": (
        {
            "self.fc = nn.Linear(in_features, out_features)": "self.fc_weight = nn.Parameter(torch.randn(out_features,"
            " in_features))\n        self.fc_bias = nn.Parameter(torch.randn(out_features))",
            "w = self.fc.weight": "w = self.fc_weight",
            "self.fc.bias": "self.fc_bias",
        },
        [
            "ModelNew's parameter fc_weight (Parameter(torch.randn(...)) of shape [512, 256]) is initialised otherwise"
            " than Model's gemm.weight (Linear.weight of shape [512, 256])",
            "ModelNew's parameter fc_bias (Parameter(torch.randn(...)) of shape [512]) is initialised otherwise than"
            " Model's gemm.bias (Linear.bias of shape [512])",
            "ModelNew's parameter bias (Parameter(torch.randn(...) * 0.02) of shape [512]) is drawn from another state"
            " of the random generator (other draws come before it) than Model's bias",
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(_INIT_DIFFERS))
def test_initialised_otherwise_is_a_finding(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A parameter of ModelNew in Model's one's role, initialised otherwise: the kernel is still proved
    for every value of the weights, and the verdict is FAILED with the finding (KernelBench's harness,
    seeding both constructions alike, gives the two different values)."""
    edits, findings = _INIT_DIFFERS[case]
    problem = CORPUS / "l2_linear_bias_sigmoid"
    text = (problem / "model_new.py").read_text()
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "model_new.py"
    path.write_text(text)
    task = larkc.candidate_task(path, problem / "model.py")
    assert len(task.findings) == len(findings)
    for got, want in zip(task.findings, findings, strict=True):
        assert got.startswith(want), got
        assert "under KernelBench's seeded construction their values differ" in got
    assert dict(task.params) == {"gemm_weight": "gemm.weight", "gemm_bias": "gemm.bias", "bias": "bias"}
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and report.kinds() == {"finding"}
    assert report.kernel_verdict() is Verdict.VERIFIED
    assert report.headline() == f"FAILED: {task.findings[0]}"
    assert report.to_json()["findings"] == list(task.findings)
    assert "the kernel itself: VERIFIED" in "\n".join(report.render())
    # the finding survives the task file (larkc task), and the command line exits 1
    assert load_task(task.task_file).findings == task.findings if task.task_file is not None else True
    assert main(["verify", str(path), "--reference", str(problem / "model.py")]) == 1
    assert f"FAILED: {task.findings[0]}" in capsys.readouterr().out


INIT_AFTER = Path(__file__).resolve().parent / "init_after_creation"


def test_parameters_initialised_after_creation_are_bound() -> None:
    """``nn.Parameter(torch.empty(...))`` and a ``reset_parameters()`` mimicking ``nn.Linear``'s
    (``kaiming_uniform_(a=math.sqrt(5))``, a bias in ``1/sqrt(fan_in)`` under ``if self.bias is not None``)
    give ``Model``'s values: bound as equal, and verified; a bias drawn with another bound is a finding."""
    task = larkc.candidate_task(INIT_AFTER / "model_new.py", INIT_AFTER / "model.py")
    assert task.findings == ()
    assert task.bindings["w"] == BufferArg("linear_weight") and task.bindings["b"] == BufferArg("linear_bias")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 0, "\n".join(report.render())
    wrong = larkc.candidate_task(INIT_AFTER / "wrong_bias_bound.py", INIT_AFTER / "model.py")
    (finding,) = wrong.findings
    assert finding.startswith("ModelNew's parameter bias (Parameter(torch.empty(...)) then nn.init.uniform_(")
    assert "initialised otherwise than Model's linear.bias" in finding
    assert larkc.verify(wrong, instances=[wrong.instances[-1]]).exit_code == 1
