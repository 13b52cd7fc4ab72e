"""Verification tasks: construction checks, bindings, shape expressions, task files, command-line tasks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from larkc import BufferArg, ScalarArg, ShapeArg, Task, TensorSpec, command_line_task, load_task
from larkc.errors import TaskError
from larkc.ir.types import F16, F32, I64
from larkc.tasks import evaluate, free_symbols, parse_shape_expr


def make(**kw: object) -> Task:
    base: dict[str, object] = {
        "source": "k.cu",
        "kernel": "add",
        "inputs": {"x": "f32[n]"},
        "outputs": {"out": "f32[n]"},
        "symbols": ["n"],
        "instances": [{"n": 10}],
        "grid": ["cdiv(n, 256)"],
        "block": [256],
    }
    base.update(kw)
    return Task(**base)  # type: ignore[arg-type]


def test_defaults_and_bindings_by_name() -> None:
    t = make()
    assert t.name == "add"
    assert t.binding("x") == BufferArg("x")
    assert t.binding("n") == ShapeArg("n")
    assert t.binding("unknown") is None
    assert t.launch.concrete({"n": 1000}) == ((4, 1, 1), (256, 1, 1), 0)
    assert t.language == "cuda"


def test_explicit_bindings_of_every_form() -> None:
    t = make(bindings={"a": "x", "len": "n * 2", "eps": 1e-5, "k": 3, "flag": True, "b": BufferArg("out")})
    assert t.bindings["a"] == BufferArg("x")
    assert t.bindings["len"] == ShapeArg("n * 2")
    assert t.bindings["eps"] == ScalarArg(1e-5)
    assert t.bindings["k"] == ShapeArg(3)
    assert t.bindings["flag"] == ScalarArg(True)


def test_tensor_spec_forms() -> None:
    assert TensorSpec.of("f16[rows, cdiv(d, 2)]", "t").dtype == F16
    spec = TensorSpec.of((("1",), "float32", "zeros"), "t")
    assert spec.dtype == F32 and spec.init == "zeros"
    assert TensorSpec.of(((4,), "int64"), "t").dtype == I64
    assert str(TensorSpec.of("f32[n, d]", "t")) == "f32[n, d]"


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"symbols": []}, "uses undeclared symbol(s) n"),
        ({"instances": [{"n": 0}]}, "symbol n must be a positive integer"),
        ({"instances": [{}]}, "gives no value to n"),
        ({"instances": [{"n": 3, "m": 1}]}, "names unknown symbols m"),
        ({"constraints": ["n % 8 == 0"]}, "violates constraint ((n % 8) == 0)"),
        ({"scratch": {"x": "f32[n]"}}, "tensor names used twice: x"),
        ({"outputs": {"x": "f32[n + 1]"}}, "in-place tensor 'x' is f32[n] as an input and f32[(n + 1)]"),
        ({"inputs": {"n": "f32[4]"}}, "names are both tensors and symbols: n"),
        ({"bindings": {"p": BufferArg("nope")}}, "bound to unknown tensor 'nope'"),
        ({"expected_failure": "crash"}, "expected_failure must be one of"),
        ({"kernel": "not a name"}, "kernel must be the kernel's name"),
        ({"grid": [1, 2, 3, 4]}, "grid must have 1 to 3 dimensions"),
        ({"inputs": {"x": "f33[n]"}}, "unknown dtype 'f33'"),
        ({"inputs": {"x": "f32(n)"}}, "expected e.g. 'f32[n, d]'"),
        ({"grid": ["n / 2"]}, "use // for integer division"),
        ({"block": ["foo(n)"]}, "unknown function 'foo'"),
    ],
)
def test_inconsistent_tasks_are_rejected(kw: dict[str, object], message: str) -> None:
    with pytest.raises(TaskError) as info:
        make(**kw)
    assert message in str(info.value)


def test_shape_env_checks_instances() -> None:
    t = make(constraints=["n <= 100"])
    assert t.shape_env({"n": 100}) == {"n": 100}
    with pytest.raises(TaskError):
        t.shape_env({"n": 101})
    assert t.with_instances([{"n": 5}]).instances == ({"n": 5},)


def test_load_task_resolves_paths(tmp_path: Path) -> None:
    (tmp_path / "kernel.cu").write_text("__global__ void add(float* x) {}\n")
    (tmp_path / "task.py").write_text(
        "from larkc import Task\n"
        "task = Task(source='kernel.cu', kernel='add', reference='model.py', grid=[1], block=[1])\n"
    )
    t = load_task(tmp_path)
    assert t.source == tmp_path / "kernel.cu"
    assert t.reference == str(tmp_path / "model.py")
    assert t.task_file == tmp_path / "task.py"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("x = 1\n", "a task file must define `task = Task(...)`"),
        ("raise ValueError('boom')\n", "task.py:1:1: error: task file raised ValueError: boom"),
        (
            "from larkc import Task\ntask = Task(source='k.cu', kernel='k', grid=[1], block=['m'])\n",
            "undeclared symbol",
        ),
    ],
)
def test_bad_task_files(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "task.py").write_text(body)
    with pytest.raises(TaskError) as info:
        load_task(tmp_path / "task.py")
    assert message in str(info.value)


def test_missing_task_file(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no task file"):
        load_task(tmp_path)


def test_command_line_task() -> None:
    t = command_line_task(
        "k.cu",
        "reduce",
        grid=["8"],
        block=["16,16"],
        buffers=["x=f32[2048]", "out=f16[8, 2]"],
        scalars=["n=2048", "eps=1e-5"],
        template_args=["float", "256"],
    )
    assert t.reference is None
    assert t.launch.concrete({}) == ((8, 1, 1), (16, 16, 1), 0)
    assert t.tensors["out"].concrete_shape({}) == (8, 2)
    assert t.bindings["n"] == ScalarArg(2048) and t.bindings["eps"] == ScalarArg(1e-5)
    assert t.template_args == ("float", 256)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"buffers": ["x:f32[4]"]}, "expected NAME=DTYPE[SIZE]"),
        ({"scalars": ["n=abc"]}, "VALUE must be a number"),
        ({"grid": ["a"]}, "expected integers"),
    ],
)
def test_bad_command_line_tasks(kw: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"grid": ["1"], "block": ["1"]}
    args.update(kw)
    with pytest.raises(TaskError) as info:
        command_line_task("k.cu", "k", **args)  # type: ignore[arg-type]
    assert message in str(info.value)


# -- shape expressions -----------------------------------------------------------------------------

_ops = st.sampled_from(["+", "-", "*", "//", "%"])


@st.composite
def _exprs(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 3 or draw(st.booleans()):
        return draw(st.sampled_from(["a", "b", "c"]) | st.integers(1, 50).map(str))
    kind = draw(st.sampled_from(["op", "cdiv", "min", "max", "paren"]))
    lhs, rhs = draw(_exprs(depth + 1)), draw(_exprs(depth + 1))
    if kind == "op":
        return f"{lhs} {draw(_ops)} {rhs}"
    if kind == "paren":
        return f"({lhs})"
    return f"{kind}({lhs}, {rhs})"


@settings(max_examples=200, deadline=None)
@given(_exprs(), st.integers(1, 100), st.integers(1, 100), st.integers(1, 100))
def test_shape_expressions_evaluate_like_python(text: str, a: int, b: int, c: int) -> None:
    env = {"a": a, "b": b, "c": c}
    py = text.replace("cdiv(", "_cdiv(")
    try:
        expected = eval(py, {"_cdiv": lambda x, y: -(-x // y), "min": min, "max": max}, dict(env))
    except ZeroDivisionError:
        with pytest.raises(TaskError, match="division by zero"):
            evaluate(parse_shape_expr(text), env)
        return
    e = parse_shape_expr(text)
    assert evaluate(e, env) == expected
    # printing then parsing gives the same expression
    assert parse_shape_expr(str(e)) == e
    assert free_symbols(e) <= {"a", "b", "c"}


def test_shape_expression_functions_and_logic() -> None:
    env = {"d": 24, "n": 1000}
    assert evaluate(parse_shape_expr("next_pow2(n)"), env) == 1024
    assert evaluate(parse_shape_expr("pow2(3) * d"), env) == 192
    assert evaluate(parse_shape_expr("d % 8 == 0 and not d > 32 or n < 0"), env) is True
    assert math.isclose(evaluate(parse_shape_expr("-d + 30"), env), 6)


def test_integer_value_ranges() -> None:
    t = make(inputs={"x": "f32[n]", "pos": "i64[n] in [0, n // 2)"})
    spec = t.inputs["pos"]
    assert spec.value_range({"n": 10}) == (0, 5)
    assert str(spec) == "i64[n] in [0, (n // 2))"
    with pytest.raises(TaskError, match="leaves tensor 'pos' no values"):
        t.shape_env({"n": 1})
    with pytest.raises(TaskError, match="needs an integer dtype"):
        make(inputs={"x": "f32[n] in [0, 4)"})
    with pytest.raises(TaskError, match="undeclared symbol"):
        make(inputs={"pos": "i32[n] in [0, vocab)"})
