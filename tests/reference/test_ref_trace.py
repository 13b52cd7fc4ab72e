"""Tracing references into the spec IR: sources of references, spans, functionalisation, symbolic shapes,
KernelBench files, the ``*_invalid`` corpus with its pinned errors, golden spec texts and the CLI."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 - torch's conventional alias
from hypothesis import example, given, settings
from hypothesis import strategies as st

from larkc.cli.trace import register
from larkc.errors import LarkcError, ReferenceError_
from larkc.reference import (
    ParamKind,
    SpecGraph,
    SpecOp,
    ValueType,
    choose_sizes,
    evaluate,
    evaluate_symbolic,
    print_spec,
    trace_reference,
    trace_task,
)
from larkc.reference.shapes import assuming, fmt, same
from larkc.tasks import Task, parse_shape_expr
from larkc.tasks import evaluate as eval_shape

CASES = Path(__file__).parent / "cases"
GOLDEN = Path(__file__).parent / "golden"

_CACHE: dict[str, SpecGraph] = {}


def _cached(key: str, make: Callable[[], SpecGraph]) -> SpecGraph:
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def _line_of(fn: Callable[..., Any], marker: str) -> int:
    """The line number of the line of ``fn``'s source ending with ``# <marker>``."""
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if text.rstrip().endswith(f"# {marker}"):
            return start + i
    raise AssertionError(f"no marker {marker}")


# References used below -----------------------------------------------------------------------------


ATTENTION = CASES / "ref_attention.py"


def _attention() -> SpecGraph:
    return _cached("attention", lambda: trace_reference(str(ATTENTION)))


def attention_like(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return torch.exp(torch.softmax(q @ k.transpose(0, 1), dim=-1)) * 0.5


def _file_line(path: Path, marker: str) -> int:
    for i, text in enumerate(path.read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# {marker}"):
            return i
    raise AssertionError(f"no marker {marker}")


def mutating(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.add_(y)  # add-inplace
    v = x.view(-1)
    v.mul_(2.0)  # mul-through-view
    return x.relu_()  # relu-inplace


class Block(torch.nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(d, d)
        self.register_buffer("shift", torch.arange(d, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._act(self.fc(x)) + self.shift  # block-forward

    def _act(self, h: torch.Tensor) -> torch.Tensor:
        return F.silu(h)  # block-act


# Tests ---------------------------------------------------------------------------------------------


def test_spans_point_at_reference_lines_including_helpers() -> None:
    g = _attention()
    by_op = {n.op: n for n in g.nodes}
    assert by_op[SpecOp.MATMUL].span.line == _file_line(ATTENTION, "scores")
    assert by_op[SpecOp.SOFTMAX].span.line == _file_line(ATTENTION, "softmax")
    assert by_op[SpecOp.EXP].span.line == _file_line(ATTENTION, "helper-exp")
    assert by_op[SpecOp.EXP].span.file == str(ATTENTION)
    assert g.span.line == _file_line(ATTENTION, "scores") - 1  # the def line
    g.verify()


def test_symbolic_shapes_are_printed_and_evaluated_at_any_size() -> None:
    g = _attention()
    assert g.symbols == ("m", "n", "d")
    assert str(g.node(g.outputs[0]).type) == "f32[m, n]"
    for m, n, d in [(1, 1, 1), (2, 5, 3), (7, 3, 16)]:
        q, k = torch.randn(m, d, dtype=torch.float64), torch.randn(n, d, dtype=torch.float64)
        (out,) = evaluate(g, {"q": q, "k": k})
        torch.testing.assert_close(out, attention_like(q, k), rtol=1e-12, atol=1e-12)


def test_inplace_ops_are_functionalised() -> None:
    g = trace_reference(mutating, {"x": "f32[n, d]", "y": "f32[d]"}, symbols=["n", "d"])
    assert {n.op for n in g.nodes} == {SpecOp.ADD, SpecOp.MUL, SpecOp.RELU, SpecOp.RESHAPE}
    x, y = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    (out,) = evaluate(g, {"x": x, "y": y})
    torch.testing.assert_close(out, mutating(x.clone(), y), rtol=0, atol=0)
    assert g.node(g.outputs[0]).span.line == _line_of(mutating, "relu-inplace")


def test_module_class_with_init_inputs_holds_parameters() -> None:
    g = trace_reference(Block, {"x": "f32[n, 6]"}, symbols=["n"], init_inputs=[6])
    kinds = {p.name: p.kind for p in g.params}
    assert kinds == {"fc_weight": ParamKind.PARAMETER, "fc_bias": ParamKind.PARAMETER, "shift": ParamKind.BUFFER}
    assert g.node(g.outputs[0]).span.line == _line_of(Block.forward, "block-forward")
    silu = next(n for n in g.nodes if n.op is SpecOp.SILU)
    assert silu.span.line == _line_of(Block._act, "block-act")
    torch.manual_seed(0)
    model = Block(6)  # the tracer builds the module with seed 0: the same weights
    x = torch.randn(5, 6)
    (out,) = evaluate(g, {"x": x})
    torch.testing.assert_close(out, model.double()(x.double()), rtol=1e-12, atol=1e-12)
    # a parameter can be overridden by name
    (zeroed,) = evaluate(g, {"x": x, "fc_weight": torch.zeros(6, 6), "fc_bias": torch.zeros(6)})
    torch.testing.assert_close(zeroed, torch.arange(6.0, dtype=torch.float64).expand(5, 6))


def test_module_instance_and_symbolic_parameters() -> None:
    torch.manual_seed(1)
    block = Block(3)
    g = trace_reference(block, {"x": "f32[n, 3]"}, symbols=["n"])
    (terms,) = evaluate_symbolic(g, {"n": 1})
    assert {"fc_weight", "fc_bias", "shift", "x"} >= {name for name in ("x", "fc_weight")}
    env = {p.name: p.value.double().reshape(-1).numpy() for p in g.params}
    x = torch.randn(1, 3, dtype=torch.float64)
    env["x"] = x.reshape(-1).numpy()
    torch.testing.assert_close(torch.from_numpy(terms.evaluate(env)), block.double()(x), rtol=1e-12, atol=1e-12)


def test_inputs_match_by_position_when_names_differ() -> None:
    g = trace_reference(lambda a, b: a - b, {"x": "f32[n]", "y": "f32[n]"}, symbols=["n"])
    assert [i.name for i in g.inputs] == ["x", "y"]
    (out,) = evaluate(g, {"x": torch.ones(2), "y": torch.full((2,), 3.0)})
    assert out.tolist() == [-2.0, -2.0]


def test_reference_file_with_derived_dims() -> None:
    g = _cached("silu_and_mul", lambda: trace_reference(str(CASES / "ref_silu_and_mul.py")))
    assert str(g.inputs[0].type) == "f32[tokens, 2*d]"
    assert str(g.output_types()[0]) == "f32[tokens, d]"
    x = torch.randn(3, 10, dtype=torch.float64)
    (out,) = evaluate(g, {"x": x})  # d = 5 is solved from 2*d = 10
    torch.testing.assert_close(out, F.silu(x[:, :5]) * x[:, 5:], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["kb_matmul_gelu", "kb_linear_layernorm", "kb_softmax_loss"])
def test_kernelbench_files_trace_with_their_inputs(name: str) -> None:
    path = CASES / f"{name}.py"
    g = _cached(name, lambda: trace_reference(str(path)))
    assert g.symbols == ()
    g.verify()
    from larkc.reference.trace import load_reference

    loaded = load_reference(str(path))
    assert isinstance(loaded.target, torch.nn.Module) and loaded.example_args is not None
    model = loaded.target.double()
    from larkc.reference.problem_inputs import draw

    # get_inputs() ran on meta tensors (shapes only): values drawn as it guarantees them
    drawn = draw(loaded.example_args, loaded.input_facts)
    args = [a.double() if a.dtype.is_floating_point else a for a in drawn]
    want = model(*args)
    got = evaluate(g, {i.name: a for i, a in zip(g.inputs, args, strict=True)})
    for o, w in zip(got, want if isinstance(want, tuple) else (want,), strict=True):
        torch.testing.assert_close(o, w, rtol=1e-10, atol=1e-10)


def test_kernelbench_file_traced_with_symbolic_inputs() -> None:
    g = trace_reference(str(CASES / "kb_matmul_gelu.py"), {"a": "f32[m, k]", "b": "f32[k, n]"}, symbols=["m", "k", "n"])
    assert str(g.output_types()[0]) == "f32[m, n]"
    assert [n.op for n in g.nodes] == [SpecOp.MATMUL, SpecOp.GELU, SpecOp.MUL]


INVALID = sorted(CASES.glob("*_invalid.py"))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_references_give_the_pinned_error(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# ERROR: ")
    with pytest.raises(ReferenceError_) as info:
        trace_reference(str(path))
    assert str(info.value) == f"{path}:{first.removeprefix('# ERROR: ')}"
    rendered = info.value.render()
    assert "^" in rendered  # the source line is quoted with a caret


def test_errors_for_bad_arguments() -> None:
    with pytest.raises(ReferenceError_, match="undeclared symbol"):
        trace_reference(lambda x: x, {"x": "f32[n]"})
    with pytest.raises(ReferenceError_, match="have no input"):
        trace_reference(lambda x, y: x + y, {"x": "f32[4]"})
    with pytest.raises(ReferenceError_, match="non-tensor value"):
        trace_reference(lambda x: x.shape[0], {"x": "f32[n]"}, symbols=["n"])
    with pytest.raises(ReferenceError_, match=r"broadcast a dimension of length 24.* broadcastable to \[16\]") as info:
        trace_reference(lambda x, y: x + y, {"x": "f32[n]", "y": "f32[d]"}, symbols=["n", "d"])
    assert info.value.notes == ("traced with example sizes n=16, d=24",)
    with pytest.raises(ReferenceError_, match=r"requires n == d"):  # equal sizes: torch merges the symbols
        trace_reference(
            lambda x, y: x + y, {"x": "f32[n]", "y": "f32[d]"}, symbols=["n", "d"], example_shapes={"n": 16, "d": 16}
        )
    with pytest.raises(ReferenceError_, match="no inputs given"):
        trace_reference(lambda x: x)
    with pytest.raises(ReferenceError_, match="a reference is a function"):
        trace_reference(42, {"x": "f32[2]"})


def test_task_constraints_are_assumptions_and_decide_shape_equality() -> None:
    def rotate_half(x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return torch.cat([-x[..., half:], x[..., :half]], dim=-1) * x

    task = Task(
        source="kernel.cu",
        kernel="k",
        grid=[1],
        block=[1],
        reference=rotate_half,
        inputs={"x": "f32[n, r]"},
        symbols=["n", "r"],
        constraints=["r % 2 == 0", "n <= 64"],
        instances=[{"n": 1, "r": 2}, {"n": 3, "r": 8}],
    )
    g = trace_task(task)
    assert [fmt(a) for a in g.assumptions][:2] == ["r % 2 == 0", "n <= 64"]
    assert "assume r % 2 == 0" in print_spec(g)
    x = torch.randn(3, 8, dtype=torch.float64)
    (out,) = evaluate(g, {"x": x})
    torch.testing.assert_close(out, rotate_half(x), rtol=0, atol=0)
    r = parse_shape_expr("r")
    assert not same(parse_shape_expr("r - r // 2"), parse_shape_expr("r // 2"))
    with assuming([parse_shape_expr("r % 2 == 0")]):
        assert same(parse_shape_expr("r - r // 2"), parse_shape_expr("r // 2"))
        assert same(parse_shape_expr("2*(r // 2)"), r)


def test_verify_rejects_a_wrong_recorded_type() -> None:
    g = _attention()
    node = g.nodes[0]
    bad = dataclasses.replace(node, type=ValueType(node.type.shape[::-1], node.type.dtype))
    broken = dataclasses.replace(g, nodes=(bad, *g.nodes[1:]))
    with pytest.raises(ReferenceError_, match="rule gives") as info:
        broken.verify()
    assert info.value.span == node.span
    with pytest.raises(ReferenceError_, match="not defined before use"):
        dataclasses.replace(g, nodes=g.nodes[1:]).verify()


def test_choose_sizes() -> None:
    sizes = choose_sizes(["n", "d"], [parse_shape_expr("d % 4 == 0"), parse_shape_expr("d <= 64")], [{"n": 1, "d": 4}])
    assert sizes["n"] >= 2 and sizes["d"] % 4 == 0 and sizes["n"] != sizes["d"]
    assert choose_sizes(["n", "d"], [], [{"n": 5, "d": 7}]) == {"n": 5, "d": 7}
    assert choose_sizes(["m", "n"], [parse_shape_expr("m == n")]) == {"m": 16, "n": 16}
    assert choose_sizes(["n", "d"], [], fixed={"d": 40})["d"] == 40
    assert choose_sizes(["n", "d"], [], fixed={"d": 1})["d"] >= 2  # size 1 cannot stay symbolic
    with pytest.raises(ReferenceError_):
        choose_sizes(["n"], [parse_shape_expr("n < 2")])


def _golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / f"{name}.spec"
    if update:
        path.write_text(text)
    assert path.exists(), f"missing golden {path} (run pytest with --update-golden)"
    assert text == path.read_text()


def test_golden_spec_texts(update_golden: bool) -> None:
    silu = _cached("silu_and_mul", lambda: trace_reference(str(CASES / "ref_silu_and_mul.py")))
    linear = _cached("kb_linear_layernorm", lambda: trace_reference(str(CASES / "kb_linear_layernorm.py")))
    _golden("ref_silu_and_mul", print_spec(silu), update_golden)
    _golden("kb_linear_layernorm", print_spec(linear), update_golden)
    _golden("ref_attention", print_spec(_attention()), update_golden)


def test_printing_is_deterministic() -> None:
    first = print_spec(trace_reference(str(CASES / "kb_softmax_loss.py")))
    assert first == print_spec(trace_reference(str(CASES / "kb_softmax_loss.py")))


_SHAPE_TEXTS = st.recursive(
    st.sampled_from(["n", "d", "1", "2", "3"]),
    lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    ),
    max_leaves=6,
)


@settings(max_examples=80, deadline=None)
@given(_SHAPE_TEXTS, st.integers(1, 9), st.integers(1, 9))
@example("(n * ((d // n) * n))", 2, 1)  # was printed n*d // n*n, which is ((n*d) // n)*n
def test_shape_expressions_print_with_the_fewest_parentheses_and_same_value(text: str, n: int, d: int) -> None:
    e = parse_shape_expr(text)
    env = {"n": n, "d": d}
    try:
        want = eval_shape(e, env)
    except LarkcError:
        return  # division by zero
    assert eval_shape(parse_shape_expr(fmt(e)), env) == want


# CLI --------------------------------------------------------------------------------------------------


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="larkc")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_cli_prints_the_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["trace", str(CASES / "ref_silu_and_mul.py")]) == 0
    out = capsys.readouterr().out
    assert out == print_spec(_cached("silu_and_mul", lambda: trace_reference(str(CASES / "ref_silu_and_mul.py"))))


def test_cli_terms(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["trace", str(CASES / "ref_silu_and_mul.py"), "--shape", "tokens=1", "--shape", "d=1", "--terms"]) == 0
    out = capsys.readouterr().out
    assert "terms %mul" in out
    assert "[0] x[0]*x[1]*(exp(-x[0]) + 1)^-1" in out


def test_cli_errors_are_located(capsys: pytest.CaptureFixture[str]) -> None:
    from larkc.cli import main

    path = CASES / "unsupported_op_invalid.py"
    assert main(["trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:8:5: error: unsupported op aten.sort.default in reference")
    assert "^~~~" in err
    with pytest.raises(LarkcError, match="invalid --shape"):
        _cli(["trace", str(path), "--shape", "n=zero"])


def test_sizes_used_as_numbers() -> None:
    def mean_rows(x: torch.Tensor) -> torch.Tensor:
        return x.sum(1) / x.shape[1] + (x.shape[0] - 1)

    g = trace_reference(mean_rows, {"x": "f32[n, d]"}, symbols=["n", "d"])
    assert "size(d)" in print_spec(g)
    x = torch.randn(3, 5, dtype=torch.float64)
    (out,) = evaluate(g, {"x": x})
    torch.testing.assert_close(out, mean_rows(x), rtol=1e-12, atol=1e-12)
    (terms,) = evaluate_symbolic(g, {"n": 1, "d": 2})
    assert str(terms.elems[0]) == "1/2*x[0] + 1/2*x[1]"


def _task(reference: Callable[..., Any], **kwargs: Any) -> Task:
    return Task(source="kernel.cu", kernel="k", grid=[1], block=[1], reference=reference, **kwargs)


def test_trace_task_checks_the_declared_outputs() -> None:
    good = _task(torch.relu, inputs={"x": "f32[n]"}, outputs={"y": "f32[n]"}, symbols=["n"], instances=[{"n": 4}])
    assert trace_task(good).output_types()[0].dtype.kind.value == "f32"
    wrong = _task(torch.relu, inputs={"x": "f32[n]"}, outputs={"y": "f32[n, n]"}, symbols=["n"], instances=[{"n": 4}])
    with pytest.raises(ReferenceError_, match=r"output 'y' is declared f32\[n, n\] but the reference returns f32\[n\]"):
        trace_task(wrong)
    with pytest.raises(ReferenceError_, match="returns 1 tensor"):
        trace_task(_task(torch.relu, inputs={"x": "f32[4]"}, outputs={"y": "f32[4]", "z": "f32[4]"}))
    with pytest.raises(ReferenceError_, match="has no reference"):
        trace_task(Task(source="kernel.cu", kernel="k", grid=[1], block=[1]))


def test_evaluate_checks_its_inputs() -> None:
    g = _attention()
    with pytest.raises(ReferenceError_, match="no value for input"):
        evaluate(g, {"q": torch.ones(2, 3)})
    with pytest.raises(ReferenceError_, match="expected rank 2"):
        evaluate(g, {"q": torch.ones(2, 3), "k": torch.ones(3)})
    with pytest.raises(ReferenceError_, match=r"symbol d is 3 by one input and 4"):
        evaluate(g, {"q": torch.ones(2, 3), "k": torch.ones(5, 4)})
    with pytest.raises(ReferenceError_, match="no value for symbol"):
        evaluate_symbolic(g, {"m": 1})
    (out32,) = evaluate(g, {"q": torch.ones(2, 3), "k": torch.ones(5, 3)}, dtype=torch.float32)
    assert out32.dtype == torch.float32


@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss], ids=lambda f: f.__name__)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_pointwise_losses_broadcast_their_operands(loss: Callable[..., torch.Tensor], reduction: str) -> None:
    g = trace_reference(
        lambda x, y: loss(x, y, reduction=reduction), {"x": "f32[n, d]", "y": "f32[d]"}, symbols=["n", "d"]
    )
    x, y = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    (out,) = evaluate(g, {"x": x, "y": y})
    torch.testing.assert_close(out, loss(x, y.expand(3, 4), reduction=reduction), rtol=1e-12, atol=1e-12)


def test_causal_attention_with_an_infinite_mask() -> None:
    def causal(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        t = q.shape[-2]
        scores = q @ k.transpose(-2, -1) / 4.0
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
        return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)

    g = trace_reference(causal, {"q": "f32[t, 16]", "k": "f32[t, 16]"}, symbols=["t"])
    assert "where(%bitwise_not, -inf, %div)" in print_spec(g)
    q, k = torch.randn(5, 16, dtype=torch.float64), torch.randn(5, 16, dtype=torch.float64)
    (out,) = evaluate(g, {"q": q, "k": k})
    torch.testing.assert_close(out, causal(q, k), rtol=1e-12, atol=1e-12)
    # extended reals: the masked score is -inf, its exponential 0, so row 0 is exactly (1, 0)
    (sym,) = evaluate_symbolic(g, {"t": 2})
    assert str(sym[(0, 0)]) == "1" and str(sym[(0, 1)]) == "0"
