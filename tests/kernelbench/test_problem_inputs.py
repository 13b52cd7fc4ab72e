"""A problem's ``get_inputs()`` read without drawing its tensors, and the preconditions it puts on them
(``docs/kernelbench.md``, "Shapes: symbols and instances" and "Input preconditions")."""

from __future__ import annotations

import resource
import textwrap
import time
from pathlib import Path

import pytest
import torch

from larkc.frontends.kernelbench.candidate import read_get_inputs
from larkc.pipeline.candidates import derive_candidate, problem_inputs
from larkc.pipeline.inputs import make_inputs
from larkc.reference.problem_inputs import call_get_inputs
from larkc.tasks.input_facts import Triangular

HERE = Path(__file__).resolve().parent
TRIL = HERE / "preconditions" / "tril_matmul"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def _problem(tmp_path: Path, get_inputs: str, sizes: str = "") -> Path:
    path = tmp_path / "model.py"
    path.write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
        "class Model(nn.Module):\n    def forward(self, *xs):\n        return xs[0]\n\n\n"
        + textwrap.dedent(sizes)
        + "\n\ndef get_inputs():\n"
        + textwrap.indent(textwrap.dedent(get_inputs).strip(), "    ")
        + "\n\n\ndef get_init_inputs():\n    return []\n",
        encoding="utf-8",
    )
    return path


def test_scored_shape_of_2_33_elements_is_read_in_seconds_with_no_memory(tmp_path: Path) -> None:
    # 2^33 float32 elements are 32 GiB: drawn, they would take minutes and more memory than there is
    path = _problem(
        tmp_path, "return [torch.tril(torch.rand(M, K)), torch.randn(K, M).cuda()]", "M = 65536\nK = 131072"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    inputs, _ = problem_inputs(path)
    assert time.monotonic() - start < 20
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 1 << 20  # KiB: under 1 GiB more
    assert [(p.shape, p.dtype) for p in inputs] == [((65536, 131072), "f32"), ((131072, 65536), "f32")]
    assert inputs[0].facts is not None and inputs[0].facts.triangular() == Triangular("lower", 0)


@pytest.mark.parametrize(
    ("expr", "dims", "high"),
    [
        ("torch.tril(torch.rand(N, N))", ("N", "N"), None),
        ("torch.randint(0, C, (B,))", ("B",), "C"),
        ("torch.randint(C, size=(B, 2))", ("B", 2), "C"),
        ("torch.abs(torch.randn(B, D))", ("B", "D"), None),
        ("F.softmax(torch.randn(B, C), dim=1)", ("B", "C"), None),
        ("torch.randn(B, D).cuda()", ("B", "D"), None),
        ("torch.randint(0, 2, (B,)).float() * 2 - 1", ("B",), None),
        ("torch.rand(B, *SHAPE)", ("B", "C", None), None),
    ],
)
def test_sizes_under_wrapping_calls_keep_their_names(
    tmp_path: Path, expr: str, dims: tuple[object, ...], high: str | None
) -> None:
    path = _problem(tmp_path, f"x = {expr}\nreturn [x, 0.5]", "N = 8\nB = 4\nC = 3\nD = 5\nSHAPE = (C, 7)")
    read = read_get_inputs(path)
    assert [(r.dims, r.high) for r in read] == [(dims, high), ((), None)]


def test_local_reassignment_keeps_the_names(tmp_path: Path) -> None:
    path = _problem(tmp_path, "A = torch.rand(M, M)\nA = torch.tril(A)\nreturn [A]", "M = 16")
    assert [r.dims for r in read_get_inputs(path)] == [("M", "M")]


def _facts(fn: object) -> list[list[str]]:
    _, facts = call_get_inputs(fn)  # type: ignore[arg-type]
    return [f.describe() for f in facts]


def test_preconditions_derived_from_get_inputs() -> None:
    def get_inputs() -> list[object]:
        return [
            torch.tril(torch.rand(64, 64)),
            torch.triu(torch.randn(8, 8), diagonal=1),
            torch.randint(0, 10, (32,)),
            torch.abs(torch.randn(4, 4)),
            torch.nn.functional.softmax(torch.randn(4, 5), dim=1),
            torch.randint(0, 2, (16,)).float() * 2 - 1,
            torch.randn(3, 3),
            2.5,
        ]

    assert _facts(get_inputs) == [
        ["lower-triangular (zero above the diagonal)", "in [0, 1]"],
        ["upper-triangular (zero below the diagonal offset by 1)"],
        ["integers in [0, 10)"],
        ["in [0, inf]"],
        ["in [0, 1]"],
        ["integers in [-1, 2)"],
        [],
        [],
    ]


def test_no_precondition_survives_an_in_place_update_keywords_or_two_tensors() -> None:
    def in_place() -> list[object]:
        a = torch.tril(torch.rand(8, 8))
        a[0, 7] = 1.0  # through a view or an index: the triangle is gone
        return [a]

    def keywords() -> list[object]:
        x = torch.rand(4, 4)
        return [torch.sub(x, 1, alpha=3), torch.div(x - 0.5, 2, rounding_mode="floor"), torch.add(x, 1)]

    def two_tensors() -> list[object]:
        a = torch.tril(torch.rand(8, 8))
        return [a + torch.rand(8, 8), (a + a.T) / 2]

    assert _facts(in_place) == [[]]
    assert _facts(keywords) == [[], [], ["in [1, 2]"]]
    assert _facts(two_tensors) == [[], []]


def test_get_inputs_needing_values_runs_as_written() -> None:
    def get_inputs() -> list[object]:
        n = int(torch.tensor(6).item())  # needs a value: not on meta tensors
        return [torch.tril(torch.rand(n, n))]

    values, facts = call_get_inputs(get_inputs)
    assert values[0].device.type == "cpu" and tuple(values[0].shape) == (6, 6)
    assert not facts[0].known


def test_derived_task_carries_the_preconditions_and_run_draws_them() -> None:
    derived = derive_candidate(TRIL / "model_new.py", TRIL / "model.py")
    task = derived.task
    assert task.symbols == ("N",)  # torch.tril(A) of A = torch.rand(N, N): one symbol, not four
    assert {k: s.triangular for k, s in task.inputs.items()} == {
        "a": Triangular("lower", 0),
        "b": Triangular("lower", 0),
    }
    env = dict(task.instances[0])
    tensors = make_inputs(task, env, seed=0)
    for name in ("a", "b"):
        t = tensors[name]
        assert torch.equal(t, torch.tril(t)) and bool((torch.tril(t) != 0).any())


def test_randint_targets_range_is_tied_to_the_class_count(tmp_path: Path) -> None:
    from larkc.frontends.kernelbench.derive import _preconditions
    from larkc.tasks.shape_expr import ShapeNum, ShapeSym

    path = _problem(
        tmp_path,
        "return [torch.randn(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]",
        "batch_size = 4096\nnum_classes = 10\ninput_shape = (num_classes,)",
    )
    inputs, _ = problem_inputs(path)
    assert [(p.shape, p.dtype) for p in inputs] == [((4096, 10), "f32"), ((4096,), "i64")]
    given = {"batch_size": 4096, "num_classes": 10}
    assert _preconditions(inputs, path, given) == {
        inputs[1].name: {"low": ShapeNum(0), "high": ShapeSym("num_classes")}
    }


@pytest.mark.parametrize(
    ("candidate", "verdict"), [("model_new.py", "VERIFIED"), ("wrong_skips_diagonal.py", "FAILED")]
)
def test_lower_triangular_matmul_verified_under_its_precondition(candidate: str, verdict: str) -> None:
    # the candidate skips the upper triangles, which the problem's get_inputs() zeroes: correct on
    # every input the problem can draw, and refuted (before the fix) by inputs with entries above the diagonal
    import larkc
    from larkc.provers import Budget

    task = derive_candidate(TRIL / candidate, TRIL / "model.py").task
    report = larkc.verify(task, budget=Budget(seconds=20))
    text = "\n".join(report.render())
    assert report.verdict.value == verdict, text
    if verdict == "VERIFIED":
        assert "input a is lower-triangular (zero above the diagonal)" in text


def test_explicit_value_in_the_zero_triangle_is_outside_the_precondition() -> None:
    # a witness (or a replay) that sets a[0, 1] of a lower-triangular input is no input the problem draws
    import larkc
    from larkc.errors import PreconditionError

    task = derive_candidate(TRIL / "model_new.py", TRIL / "model.py").task
    env = dict(task.instances[0])
    with pytest.raises(PreconditionError, match=r"a\[1\], which the input's precondition makes 0"):
        larkc.run(task, instances=[env], inputs={"a": {1: 2.0}}, replay_dir=None)
    assert larkc.run(task, instances=[env], inputs={"a": {env["N"]: 2.0}}).ok  # a[1, 0]: below the diagonal


def test_tracing_at_a_shape_that_fits_no_memory_is_a_located_error(tmp_path: Path) -> None:
    # 2^40 elements: get_inputs() itself costs nothing now; tracing at that shape needs tensors of it
    from larkc.errors import ReferenceError_
    from larkc.reference import trace_reference

    path = _problem(tmp_path, "return [torch.rand(N, N)]", "N = 1 << 20")
    with pytest.raises(ReferenceError_, match=r"input 'arg0' .* \(1048576x1048576\) does not fit in memory"):
        trace_reference(str(path))
