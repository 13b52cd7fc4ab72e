"""Tasks of several kernel launches, in-place tensors, computed scalars and null pointer bindings."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from larkc.errors import TaskError
from larkc.tasks import (
    BufferArg,
    KernelLaunch,
    NullArg,
    ScalarArg,
    ScalarExpr,
    ShapeArg,
    Task,
)


def _two_launches(**kw: object) -> Task:
    args: dict[str, object] = {
        "source": "k.cu",
        "launches": (
            KernelLaunch(kernel="partial", grid=["cdiv(n, 256)"], block=[256], bindings={"out": "part"}),
            KernelLaunch(kernel="total", grid=[1], block=[256], bindings={"m": "cdiv(n, 256)", "scale": 0.5}),
        ),
        "inputs": {"x": "f32[n]"},
        "outputs": {"y": "f32[1]"},
        "scratch": {"part": "f32[cdiv(n, 256)]"},
        "symbols": ["n"],
        "instances": [{"n": 300}],
    }
    args.update(kw)
    return Task(**args)  # type: ignore[arg-type]


def test_launches_run_in_order_and_resolve_their_bindings() -> None:
    task = _two_launches()
    assert [x.kernel for x in task.launches] == ["partial", "total"]
    assert task.name == "partial + total"
    assert task.binding("out", 0) == BufferArg("part")
    assert task.binding("out", 1) is None  # launch 2 binds no "out" and there is no tensor of that name
    assert task.binding("m", 1) == ShapeArg("cdiv(n, 256)")
    assert task.binding("scale", 1) == ScalarArg(0.5)
    assert task.binding("x", 1) == BufferArg("x")
    assert task.launch_label(1) == "launch 2 (kernel total)"


def test_a_task_of_one_launch_keeps_its_single_launch_fields() -> None:
    task = Task(
        source="k.cu", kernel="k", grid=["n"], block=[64], bindings={"n": "n"}, symbols=["n"], instances=[{"n": 2}]
    )
    (only,) = task.launches
    assert only.kernel == task.kernel == "k" and only.grid == task.grid and only.block == task.block
    assert task.launch_task(0) is task and task.launch_label(0) == ""
    one = (KernelLaunch(kernel="k", grid=["n"], block=[64]),)
    same = Task(source="k.cu", launches=one, symbols=["n"], instances=[{"n": 2}])
    assert same.kernel == "k" and same.launches == (KernelLaunch(kernel="k", grid=["n"], block=[64]),)


def test_the_single_launch_view_of_a_launch() -> None:
    view = _two_launches().launch_task(1)
    assert view.kernel == "total" and len(view.launches) == 1
    assert view.bindings["m"] == ShapeArg("cdiv(n, 256)")
    assert view.scratch == _two_launches().scratch


def test_the_single_launch_fields_of_several_launches_raise() -> None:
    task = _two_launches()
    with pytest.raises(TaskError, match=r"has 2 launches \(partial, total\): this needs one launch"):
        _ = task.launch


def test_giving_both_forms_is_an_error() -> None:
    with pytest.raises(TaskError, match=r"give either launches=.* or the one launch's kernel, grid, block, not both"):
        _two_launches(kernel="partial", grid=[1], block=[1])
    with pytest.raises(TaskError, match="or the one launch's bindings, not both"):
        _two_launches(bindings={"n": "n"})
    with pytest.raises(TaskError, match="no kernel, grid, block"):
        Task(source="k.cu")
    with pytest.raises(TaskError, match="one or more KernelLaunch"):
        _two_launches(launches=())
    with pytest.raises(TaskError, match="a sequence of KernelLaunch"):
        _two_launches(launches=KernelLaunch(kernel="k", grid=[1], block=[1]))


def test_replace_keeps_the_launches_and_refuses_single_launch_changes() -> None:
    task = _two_launches()
    other = dataclasses.replace(task, defines={"A": "1"})
    assert other.launches == task.launches and other.defines == {"A": "1"}
    with pytest.raises(TaskError, match=r"has 2 launches: change them with launches=\.\.\., not kernel"):
        dataclasses.replace(task, kernel="total")
    single = Task(source="k.cu", kernel="k", grid=[1], block=[1])
    assert dataclasses.replace(single, kernel="q").launches[0].kernel == "q"


def test_each_launch_is_checked_and_named() -> None:
    bad = (
        KernelLaunch(kernel="partial", grid=[1], block=[1]),
        KernelLaunch(kernel="total", grid=["m"], block=[1]),
    )
    with pytest.raises(TaskError, match=r"launch 2 \(kernel total\): grid uses undeclared symbol\(s\) m"):
        _two_launches(launches=bad)
    unknown = (
        KernelLaunch(kernel="a", grid=[1], block=[1]),
        KernelLaunch(kernel="b", grid=[1], block=[1], bindings={"p": BufferArg("q")}),
    )
    with pytest.raises(TaskError, match=r"launch 2 \(kernel b\): parameter 'p' is bound to unknown tensor 'q'"):
        _two_launches(launches=unknown)
    with pytest.raises(TaskError, match="kernel must be the kernel's name"):
        KernelLaunch(kernel="not a name", grid=[1], block=[1])
    with pytest.raises(TaskError, match="grid must have 1 to 3 dimensions"):
        KernelLaunch(kernel="k", grid=[1, 1, 1, 1], block=[1])


def _one(**kw: object) -> Task:
    return Task(source="k.cu", kernel="k", grid=[1], block=[1], symbols=["n"], instances=[{"n": 4}], **kw)  # type: ignore[arg-type]


def test_an_inplace_tensor_is_an_input_and_an_output_of_one_spec() -> None:
    task = _one(inputs={"x": "f32[n]", "y": "f32[n]"}, outputs={"y": "f32[n]", "z": "f32[n]"})
    assert task.inplace == ("y",)
    assert list(task.tensors) == ["x", "y", "z"]
    with pytest.raises(TaskError, match=r"in-place tensor 'y' is f32\[n\] as an input and f16\[n\] as an output"):
        _one(inputs={"y": "f32[n]"}, outputs={"y": "f16[n]"})
    with pytest.raises(TaskError, match="tensor names used twice: y"):
        _one(inputs={"y": "f32[n]"}, scratch={"y": "f32[n]"})


def test_scalar_expressions_are_exact_where_rational() -> None:
    e = ScalarExpr("1 / sqrt(d)")
    assert e.symbols() == {"d"}
    assert e.value({"d": 64}).exact == Fraction(1, 8)
    assert e.value({"d": 64}).approx == 0.125
    irrational = e.value({"d": 32})
    assert irrational.exact is None and irrational.approx == pytest.approx(32**-0.5, rel=1e-15)
    assert ScalarExpr("1.0 / n").value({"n": 3}).exact == Fraction(1, 3)
    assert ScalarExpr("d ** -0.5").value({"d": 16}).exact == Fraction(1, 4)
    assert ScalarExpr("rsqrt(d) * 2 - -1").value({"d": 4}).exact == Fraction(2)
    assert ScalarExpr("max(a, 2 * b) + min(a, b)").value({"a": 3, "b": 2}).exact == Fraction(6)
    assert ScalarExpr("0.1").value({}).exact == Fraction(0.1)  # the binary64 value, as a Python reference has it
    assert ScalarExpr("exp(0) + log(1)").value({}).exact == Fraction(1)
    assert ScalarExpr("exp(1)").value({}).exact is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 / ", "invalid scalar expression"),
        ("foo(d)", "unknown function 'foo'"),
        ("sqrt(d, 2)", "sqrt takes 1 argument"),
        ("d if d else 1", "unsupported"),
        ("True", "booleans are not numbers"),
    ],
)
def test_invalid_scalar_expressions(text: str, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        ScalarExpr(text)


def test_scalar_bindings_are_checked_on_every_instance() -> None:
    def task(binding: str, instances: list[dict[str, int]]) -> Task:
        return Task(
            source="k.cu", kernel="k", grid=[1], block=[1], bindings={"s": ScalarExpr(binding)}, symbols=["d"],
            instances=instances,
        )  # fmt: skip

    assert task("1 / d", [{"d": 3}]).binding("s") == ScalarExpr("1 / d")
    with pytest.raises(TaskError, match=r"binding of 's' uses undeclared symbol\(s\) e"):
        task("1 / e", [{"d": 3}])
    with pytest.raises(TaskError, match="division by zero"):
        task("1 / (d - 2)", [{"d": 2}])
    with pytest.raises(TaskError, match="square root of a negative number"):
        task("sqrt(1 - d)", [{"d": 3}])


def test_none_and_nullarg_bind_the_null_pointer() -> None:
    task = Task(source="k.cu", kernel="k", grid=[1], block=[1], bindings={"bias": None, "w": NullArg()})
    assert task.binding("bias") == NullArg() and task.binding("w") == NullArg()
