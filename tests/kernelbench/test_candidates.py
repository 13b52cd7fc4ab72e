"""KernelBench ``ModelNew`` files verified with no task file (``docs/kernelbench.md``).

The corpus is ``examples/kernelbench/<problem>/``: ``model.py`` (the problem), ``model_new.py`` (a
correct candidate) and ``wrong_*.py`` (wrong or cheating candidates, whose first line says what
``larkc run`` reports: ``# expect: <kind>``). ``invalid/*.py`` are candidates whose host code larkc
cannot derive; their first line pins the located error.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError
from larkc.tasks import ShapeArg, load_task

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "kernelbench"
INVALID = Path(__file__).resolve().parent / "invalid"
PROBLEMS = sorted(p.parent for p in CORPUS.glob("*/model_new.py"))
WRONG = sorted(p for p in CORPUS.glob("*/wrong_*.py") if "triton" not in p.name)  # Triton ones: below

#: Correct candidates verified from the command line here (the others through the Python API below).
VERIFY_CLI = ("l1_relu", "l1_softmax")


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Derived CUDA and task files go to a temporary cache, not the user's."""
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def _expected(path: Path, key: str) -> str:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    m = re.fullmatch(rf"# {key}: (.*)", first)
    assert m is not None, f"{path}: the first line must be '# {key}: ...'"
    return m.group(1)


def test_corpus_size() -> None:
    assert len(PROBLEMS) >= 6
    assert len(WRONG) >= 8


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_run_correct(problem: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(problem)
    assert main(["run", "model_new.py", "--reference", "model.py", "--seeds", "1"]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "no diagnosis" in out


@pytest.mark.parametrize("problem", [p for p in PROBLEMS if p.name in VERIFY_CLI], ids=lambda p: p.name)
def test_verify_correct_cli(problem: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(problem)
    assert main(["verify", "model_new.py", "--reference", "model.py"]) == 0, capsys.readouterr()
    assert "VERIFIED" in capsys.readouterr().out


@pytest.mark.parametrize("problem", [p for p in PROBLEMS if p.name not in VERIFY_CLI], ids=lambda p: p.name)
def test_verify_correct_api(problem: Path) -> None:
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])  # the smallest, no multiple of a block
    assert report.exit_code == 0, "\n".join(report.render())


@pytest.mark.parametrize("wrong", WRONG, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_run_wrong(wrong: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kind = _expected(wrong, "expect")
    monkeypatch.chdir(wrong.parent)
    assert main(["run", wrong.name, "--reference", "model.py", "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if not line.startswith(("==", " ", "out:")))
    assert first.startswith(f"{kind}: {wrong.name}:"), out  # located in the candidate file


#: Wrong candidates that ``larkc verify`` refutes (checked from the command line, the fast ones).
VERIFY_WRONG = ("l1_relu/wrong_shape_specific", "l1_relu/wrong_unwritten", "l1_softmax/wrong_zeros")


@pytest.mark.parametrize("name", VERIFY_WRONG)
def test_verify_wrong_cli(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = CORPUS / f"{name}.py"
    monkeypatch.chdir(wrong.parent)
    assert main(["verify", wrong.name, "--reference", "model.py"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_verify_refutes_input_write() -> None:
    wrong = CORPUS / "l1_relu" / "wrong_writes_input.py"
    task = larkc.candidate_task(wrong, wrong.parent / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and report.kinds() == {"input-write"}, "\n".join(report.render())
    (inputs,) = [r for r in report.results if r.counterexample is not None]
    assert inputs.counterexample is not None and inputs.counterexample.tensor == "x"
    assert inputs.counterexample.span is not None and inputs.counterexample.span.line == 16  # the store into x


def test_verify_refutes_a_candidate_that_launches_nothing() -> None:
    """A host function returning an unwritten ``empty_like`` runs as an empty launch: every output element
    keeps the ``empty`` buffer's undefined contents, which refutes equivalence (as for a kernel that
    writes nothing), confirmed by ``larkc run``."""
    wrong = CORPUS / "l1_tanh" / "wrong_no_launch.py"
    task = larkc.candidate_task(wrong, wrong.parent / "model.py")
    report = larkc.verify(task, instances=[task.instances[-1]])
    assert report.exit_code == 1 and report.kinds() == {"mismatch"}, "\n".join(report.render())
    (eq,) = [r for r in report.results if r.counterexample is not None]
    assert eq.counterexample is not None and "never written" in eq.counterexample.message
    assert eq.counterexample.kind.value == "confirmed" and eq.counterexample.tensor == "out"


@pytest.mark.parametrize("case", sorted(INVALID.glob("*.py")), ids=lambda p: p.stem)
def test_invalid(case: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _expected(case, "error")
    monkeypatch.chdir(INVALID)
    second = case.read_text(encoding="utf-8").split("\n")[1]  # "# reference: <problem>", else l1_relu
    problem = second.removeprefix("# reference: ") if second.startswith("# reference: ") else "l1_relu"
    reference = str(CORPUS / problem / "model.py")
    assert main(["run", case.name, "--reference", reference]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == expected
    with pytest.raises(LarkcError):
        larkc.candidate_task(case.name, reference)


@pytest.mark.parametrize("name", ["l1_matmul", "l2_gemm_divide_sum"])
def test_task_file_round_trip(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problem = CORPUS / name
    out = tmp_path / "derived" / "task.py"
    assert main(["task", str(problem / "model_new.py"), "--reference", str(problem / "model.py"), "-o", str(out)]) == 0
    loaded = load_task(out)
    derived = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    assert loaded.source == out.parent / "model_new.cu"
    assert loaded.source.read_text() == derived.source.read_text()
    assert Path(str(loaded.reference)).resolve() == (problem / "model.py").resolve()
    same = ("source", "reference", "task_file")
    for f in dataclasses.fields(derived):
        if f.name not in same:
            assert getattr(loaded, f.name) == getattr(derived, f.name), f.name
    text = out.read_text()
    assert "grid=['cdiv(N, 16)', 'cdiv(M, 16)']" in text or "grid=['cdiv(out_features, 16)'," in text
    capsys.readouterr()
    assert main(["run", str(out), "--seeds", "1"]) == 0
    assert "no diagnosis" in capsys.readouterr().out


def test_derived_chain() -> None:
    """Two calls in forward: two launches, the first call's result a scratch tensor the second reads."""
    problem = CORPUS / "l2_gemm_divide_sum"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    assert [x.kernel for x in task.launches] == ["matmul_kernel", "divide_row_sum_kernel"]
    assert list(task.scratch) == ["C"] and list(task.outputs) == ["out"]  # named as the host code names it
    assert task.launches[0].bindings["C"] == task.launches[1].bindings["x"]
    assert [str(d) for d in task.outputs["out"].shape] == ["batch_size", "1"]


def test_derived_matmul() -> None:
    """The launch, bindings and shapes of the tiled matmul, as functions of the sizes."""
    problem = CORPUS / "l1_matmul"
    task = larkc.candidate_task(problem / "model_new.py", problem / "model.py")
    assert task.symbols == ("M", "K", "N")
    assert [str(d) for d in task.inputs["A"].shape] == ["M", "K"]
    assert [str(d) for d in task.outputs["out"].shape] == ["M", "N"]
    assert task.outputs["out"].init == "zeros"  # torch::zeros
    assert task.bindings["K"] == ShapeArg("K")
    # ratios kept (M != N), one instance one more than a power of two
    assert task.instances[0] == {"M": 8, "K": 32, "N": 16}
    assert {"M": 9, "K": 33, "N": 17} in task.instances


def _candidate(tmp_path: Path, host: str, kernel: str = "") -> Path:
    kernel = kernel or (
        "__global__ void k(const float* x, float* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = x[i];\n"
        "}\n"
    )
    text = (
        "from torch.utils.cpp_extension import load_inline\nimport torch.nn as nn\n\n"
        f'src = """\n#include <torch/extension.h>\n{kernel}\n{host}\n"""\n\n'
        'ext = load_inline(name="e", cpp_sources="", cuda_sources=src, functions=["f"])\n\n\n'
        "class ModelNew(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return ext.f(x)\n"
    )
    path = tmp_path / "model_new.py"
    path.write_text(text)
    return path


def _problem(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, x):\n        return torch.relu(x)\n\n\n"
        "rows = 8\ncols = 1024\n\n\ndef get_inputs():\n    return [torch.randn(rows, cols)]\n\n\n"
        "def get_init_inputs():\n    return []\n"
    )
    return path


def test_host_checks_become_constraints(tmp_path: Path) -> None:
    host = (
        "torch::Tensor f(torch::Tensor x) {\n"
        '    TORCH_CHECK(x.size(1) % 4 == 0, "cols must be a multiple of 4");\n'
        "    auto y = torch::empty({x.size(0), x.size(1)}, x.options());\n"
        "    int n = x.numel();\n"
        "    k<<<dim3((n + 127) / 128), dim3(128), 0>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);\n"
        "    return y;\n"
        "}\n"
    )
    task = larkc.candidate_task(_candidate(tmp_path, host), _problem(tmp_path))
    assert str(task.constraints[0]) == "((cols % 4) == 0)"
    assert all(inst["cols"] % 4 == 0 for inst in task.instances)  # instances that break a check are left out
    assert [str(g) for g in task.grid] == ["cdiv((rows * cols), 128)"]


def test_kernel_span_in_candidate(tmp_path: Path) -> None:
    """A kernel diagnosis names the line of the candidate file."""
    kernel = "__global__ void k(const float* x, float* y, int n) {\n    int i = threadIdx.x;\n    y[i] = x[i];\n}\n"
    host = (
        "torch::Tensor f(torch::Tensor x) {\n    auto y = torch::empty_like(x);\n"
        "    k<<<1, 1024>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());\n    return y;\n}\n"
    )
    path = _candidate(tmp_path, host, kernel)
    task = larkc.candidate_task(path, _problem(tmp_path))
    report = larkc.run(task, instances=[{"rows": 2, "cols": 100}])  # 200 elements, 1024 threads
    assert not report.ok
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "y[i] = x[i];" in t)
    rendered = report.render()
    assert f"{task.source}:{line}:" in rendered  # the written CUDA file has the candidate's line numbers


def test_verify_many_and_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch mode: one result per candidate, a candidate that cannot be derived is an ERROR result, and a
    second pass comes from the cache (keyed by the files' contents)."""
    from larkc.pipeline import candidates

    monkeypatch.setattr(candidates, "_code_stamp", lambda: "fixed")  # others may edit larkc meanwhile
    problem = CORPUS / "l1_relu"
    files = [problem / "wrong_unwritten.py", INVALID / "branch_on_size.py"]
    first = list(larkc.verify_many(files, problem / "model.py", cache_dir=tmp_path))
    assert [(r.status, r.exit_code, r.cached) for r in first] == [("FAILED", 1, False), ("ERROR", 2, False)]
    assert first[1].error is not None and "unsupported branch on sizes" in first[1].error
    again = list(larkc.verify_many(files, problem / "model.py", cache_dir=tmp_path))
    assert [(r.status, r.cached) for r in again] == [("FAILED", True), ("ERROR", True)]
    assert again[0].report == first[0].report
    assert first[0].refuted_by == "verify" and "mismatch" in first[0].kinds


def test_verify_many_refutes_by_simulation(tmp_path: Path) -> None:
    """Where the provers leave a candidate unknown (here: a budget too small for the symbolic run), the
    simulator's diagnosis fails it; with the budget they refute it themselves (two launches)."""
    problem = CORPUS / "l1_frobenius_norm"
    (wrong,) = larkc.verify_many([problem / "wrong_zeros.py"], problem / "model.py", cache_dir="", seconds=0.001)
    assert (wrong.status, wrong.exit_code, wrong.refuted_by, wrong.kinds) == ("FAILED", 1, "run", ("mismatch",))
    assert wrong.report is not None and wrong.report["verdict"] == "UNKNOWN"
    (wrong,) = larkc.verify_many([problem / "wrong_zeros.py"], problem / "model.py", cache_dir="")
    assert (wrong.status, wrong.exit_code, wrong.refuted_by, wrong.kinds) == ("FAILED", 1, "verify", ("mismatch",))


def test_verify_batch_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(CORPUS / "l1_relu")
    code = main(["verify", "wrong_unwritten.py", str(INVALID / "host_helper_call.py"), "--reference", "model.py"])
    assert code == 1  # a failed candidate outranks one that cannot be derived
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(d["candidate"], d["status"]) for d in lines] == [
        ("wrong_unwritten.py", "FAILED"),
        (str(INVALID / "host_helper_call.py"), "ERROR"),
    ]


def test_emit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    relu, frob = CORPUS / "l1_relu", CORPUS / "l1_frobenius_norm"
    assert main(["emit", str(relu / "model_new.py"), "--reference", str(relu / "model.py"), "-o", str(tmp_path)]) == 0
    assert (tmp_path / "lakefile.toml").is_file()
    out = tmp_path / "frob"
    assert main(["emit", str(frob / "model_new.py"), "--reference", str(frob / "model.py"), "-o", str(out)]) == 2
    assert "2 launches (sum_squares_kernel, normalize_kernel)" in capsys.readouterr().err


def test_host_int_overflow(tmp_path: Path) -> None:
    """A 32-bit host integer that cannot hold a size at the problem's shape is an error at its declaration."""
    host = (
        "torch::Tensor f(torch::Tensor x) {\n    auto y = torch::empty_like(x);\n"
        "    int n = x.numel() * 1048576;\n"
        "    k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);\n    return y;\n}\n"
    )
    with pytest.raises(
        LarkcError, match=r"int rows \* cols \* 1048576 overflows at the problem's shape \(8589934592\)"
    ):
        larkc.candidate_task(_candidate(tmp_path, host), _problem(tmp_path))


def test_positional_load_inline(tmp_path: Path) -> None:
    host = (
        "torch::Tensor f(torch::Tensor x) {\n    auto y = torch::empty_like(x);\n"
        "    k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());\n"
        "    return y;\n}\n"
    )
    path = _candidate(tmp_path, host)
    path.write_text(
        path.read_text().replace('load_inline(name="e", cpp_sources="", cuda_sources=src,', 'load_inline("e", "", src,')
    )
    task = larkc.candidate_task(path, _problem(tmp_path))
    assert task.kernel == "k" and [str(g) for g in task.grid] == ["cdiv((rows * cols), 256)"]


def test_replay_of_a_candidate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failing run's replay file finds the derived task again (it is written as a task file in the cache)."""
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(CORPUS / "l1_relu")
    replays = tmp_path / "replays"
    assert (
        main(["run", "wrong_unwritten.py", "--reference", "model.py", "--seeds", "1", "--replay-dir", str(replays)])
        == 1
    )
    capsys.readouterr()
    replay = sorted(replays.glob("*.json"))[0]
    assert main(["run", "--replay", str(replay)]) == 1
    assert "never written" in capsys.readouterr().out


@pytest.mark.triton
def test_triton_candidate(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Triton ModelNew: the launch forward makes is captured (not run) and generalised to the shapes."""
    problem = CORPUS / "l1_relu"
    task = larkc.candidate_task(problem / "model_new_triton.py", problem / "model.py")
    assert task.language == "triton" and task.kernel == "relu_kernel"
    assert [str(g) for g in task.grid] == ["cdiv((batch_size * dim), 1024)"]  # not cdiv(b, 4), which fits 3 shapes
    assert larkc.verify(task, instances=[task.instances[-1]]).exit_code == 0
    monkeypatch.chdir(problem)
    assert main(["run", "wrong_triton_no_mask.py", "--reference", "model.py", "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "oob: wrong_triton_no_mask.py:16:9: read of 4 bytes (f32)" in out


def test_host_idioms(tmp_path: Path) -> None:
    """File-level constexpr, negative size indices, sizes()[i], torch::dtype(...).device(...), const dim3 from
    dim3(...), a stream argument, launch checks, a list of CUDA sources, forward's x = x.contiguous()."""
    src = (
        "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\nconstexpr int BLOCK = 128;\n"
        "__global__ void k(const float* x, float* y, int64_t n) {\n"
        "    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n    if (i < n) y[i] = fmaxf(x[i], 0.0f);\n}\n"
        "torch::Tensor f(torch::Tensor x) {\n"
        '    TORCH_CHECK(x.scalar_type() == torch::kFloat, "float only");\n'
        "    const auto n = x.size(-1) * x.sizes()[0];\n"
        "    auto y = torch::empty({x.size(0), x.size(1)}, torch::dtype(torch::kFloat32).device(x.device()));\n"
        "    const dim3 grid = dim3((n + BLOCK - 1) / BLOCK);\n"
        "    k<<<grid, BLOCK, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);\n"
        "    C10_CUDA_KERNEL_LAUNCH_CHECK();\n    return y;\n}\n"
    )
    path = tmp_path / "model_new.py"
    path.write_text(
        "import torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n"
        f"src = {src!r}\n"
        'ext = load_inline(name="e", cpp_sources="", cuda_sources=[src], functions=["f"], with_cuda=True)\n'
        "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.ext = ext\n"
        "    def forward(self, x):\n        x = x.contiguous()\n        out = self.ext.f(x)\n        return out\n"
    )
    task = larkc.candidate_task(path, _problem(tmp_path))
    assert [str(g) for g in task.grid] == ["cdiv((cols * rows), 128)"] and [str(b) for b in task.block] == ["128"]
    assert larkc.run(task).ok


def test_views_in_forward(tmp_path: Path) -> None:
    """forward passes x.view(-1) (a 1-D view of the input) and returns the result .view_as(x)."""
    host = (
        "torch::Tensor f(torch::Tensor x) {\n    TORCH_CHECK(x.dim() == 1);\n    auto y = torch::empty_like(x);\n"
        "    k<<<(x.size(0) + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(0));\n"
        "    return y;\n}\n"
    )
    kernel = (
        "__global__ void k(const float* x, float* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = fmaxf(x[i], 0.0f);\n}\n"
    )
    path = _candidate(tmp_path, host, kernel)
    path.write_text(path.read_text().replace("return ext.f(x)", "return ext.f(x.view(-1)).view_as(x)"))
    task = larkc.candidate_task(path, _problem(tmp_path))
    assert [str(d) for d in task.outputs["out"].shape] == ["rows", "cols"]
    assert [str(g) for g in task.grid] == ["cdiv((rows * cols), 256)"]
    assert larkc.run(task).ok
