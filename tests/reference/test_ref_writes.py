"""References that write into tensors they created (issue 22, item 4): ``torch.empty``/``empty_like``
followed by slice assignment, ``copy_`` and ``fill``; ``bincount`` at a bounded instance; floor division.

Each traced reference is evaluated against torch; one that reads an element nothing wrote, or whose size
depends on values, is a located error (exit 2 from the CLI).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from larkc.cli import main
from larkc.errors import ReferenceError_
from larkc.reference import SpecOp, evaluate, evaluate_symbolic, trace_reference

NUM_EXPERTS = 8


def _split_scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    out[:, :2] = x[:, :2] * 2
    out[:, 2:] = x[:, 2:]
    return out


def _rows(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(3, x.shape[0])
    out[0] = x
    out[1] = x * 2
    out[-1] = -x
    return out


def _copied(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    out.copy_(x * 3)
    return out


def _filled(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], 4)
    out[:, 1:] = 1.0
    out[:, :1] = x.unsqueeze(1)
    return out


def _moe_counts(topk_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    counts = torch.bincount(topk_ids.flatten(), minlength=NUM_EXPERTS).to(torch.int32)
    cumsum = torch.zeros(NUM_EXPERTS + 1, dtype=torch.int32)
    cumsum[1:] = torch.cumsum(counts, 0)
    return counts, cumsum


def _floor_pages(positions: torch.Tensor) -> torch.Tensor:
    return torch.div(positions - 10, 4, rounding_mode="floor")


TRACED: list[tuple[Callable[..., Any], dict[str, str]]] = [
    (_split_scale, {"x": "f32[n, d]"}),
    (_rows, {"x": "f32[n]"}),
    (_copied, {"x": "f32[n, d]"}),
    (_filled, {"x": "f32[n]"}),
    (_moe_counts, {"topk_ids": "i32[n, 2] in [0, 8)"}),
    (_floor_pages, {"positions": "i64[n] in [0, 32)"}),
]


def _example(spec: str) -> torch.Tensor:
    shape = (5, 7) if "n, d" in spec else ((5, 2) if "n, 2" in spec else (5,))
    if spec.startswith("f"):
        return torch.randn(shape, dtype=torch.float64)
    high = 8 if "8)" in spec else 32
    return torch.randint(0, high, shape, dtype=torch.int32 if spec.startswith("i32") else torch.int64)


@pytest.mark.parametrize("case", TRACED, ids=lambda c: c[0].__name__)
def test_written_tensors_trace_and_equal_torch(case: tuple[Callable[..., Any], dict[str, str]]) -> None:
    fn, inputs = case
    graph = trace_reference(fn, inputs, symbols=["n", "d"])
    graph.verify()
    assert SpecOp.FULL not in graph.ops() or fn is not _copied  # copy_ overwrites all of the empty tensor
    args = {name: _example(spec) for name, spec in inputs.items()}
    got = evaluate(graph, args)
    want = fn(*args.values())
    for g, w in zip(got, want if isinstance(want, tuple) else (want,), strict=True):
        # float32 buffers (torch.empty(3, n)) round in torch; the spec is evaluated in float64
        torch.testing.assert_close(g.double(), w.double(), rtol=1e-6, atol=1e-6)


def test_bincount_is_a_scatter_add_of_ones() -> None:
    graph = trace_reference(_moe_counts, {"topk_ids": "i32[n, 2] in [0, 8)"}, symbols=["n"])
    assert SpecOp.SCATTER_ADD in graph.ops() and SpecOp.CUMSUM in graph.ops()
    assert [str(t) for t in graph.output_types()] == ["i32[8]", "i32[9]"]


def _partial(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    out[:, :2] = x[:, :2] * 2
    return out


def _read_before_written(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], 4)
    out[:, 1:] = 1.0
    return out.sum(1)


def _bincount_unbounded(ids: torch.Tensor) -> torch.Tensor:
    return torch.bincount(ids, minlength=8)


def _trunc_div(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 3, rounding_mode="trunc")


@pytest.mark.parametrize(
    ("fn", "inputs", "message"),
    [
        (
            _partial,
            {"x": "f32[n, d]"},
            "reads uninitialised memory (torch.empty): along dim 1 only [0, 2) were written",
        ),
        (_read_before_written, {"x": "f32[n]"}, "reads uninitialised memory (torch.empty): along dim 1 only [1, 4)"),
        (_bincount_unbounded, {"ids": "i64[n]"}, "data-dependent output shape in reference"),
        (_bincount_unbounded, {"ids": "i64[n] in [0, 9)"}, "values in [0, minlength), minlength 8"),
        (_trunc_div, {"x": "i64[n]"}, "rounding_mode='trunc'"),
    ],
    ids=["partly_written", "read_before_written", "bincount_unbounded", "bincount_range_too_wide", "trunc_div"],
)
def test_what_cannot_be_traced_is_a_located_error(fn: Callable[..., Any], inputs: dict[str, str], message: str) -> None:
    with pytest.raises(ReferenceError_) as err:
        trace_reference(fn, inputs, symbols=["n", "d"])
    assert message in str(err.value)
    assert err.value.span.line > 0 and Path(err.value.span.file).name == Path(__file__).name


def test_uninitialised_read_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ref.py"
    path.write_text(
        "import torch\n\n"
        "def reference(x):\n"
        "    out = torch.empty_like(x)\n"
        "    out[:4] = x[:4]\n"
        "    return out\n\n"
        'inputs = {"x": "f32[n]"}\n'
        'symbols = ["n"]\n'
    )
    assert main(["trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert "ref.py:5:5: error: the reference reads uninitialised memory (torch.empty)" in err


def _merge_states(
    v_a: torch.Tensor, lse_a: torch.Tensor, v_b: torch.Tensor, lse_b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # attention-state merge as serving frameworks' tests write it: +inf marks an empty state
    lse_a[lse_a == torch.inf] = -torch.inf
    lse_b[lse_b == torch.inf] = -torch.inf
    m = torch.maximum(lse_a, lse_b)
    ea, eb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    s = ea + eb
    return v_a * (ea / s).unsqueeze(2) + v_b * (eb / s).unsqueeze(2), torch.log(s) + m


def test_bool_mask_assignment_is_a_where() -> None:
    """``x[x == inf] = -inf`` (functionalised ``index_put`` with a bool mask) traces as ``where``; it was an
    unsupported op. Terms are finite, so the mask is false everywhere in the symbolic evaluation."""
    inputs = {"v_a": "f32[t, h, d]", "lse_a": "f32[t, h]", "v_b": "f32[t, h, d]", "lse_b": "f32[t, h]"}
    graph = trace_reference(_merge_states, inputs, symbols=["t", "h", "d"])
    assert SpecOp.WHERE in graph.ops()
    lse_a = torch.randn(3, 2, dtype=torch.float64)
    lse_a[0, 1] = torch.inf
    args = {
        "v_a": torch.randn(3, 2, 4, dtype=torch.float64),
        "lse_a": lse_a,
        "v_b": torch.randn(3, 2, 4, dtype=torch.float64),
        "lse_b": torch.randn(3, 2, dtype=torch.float64),
    }
    got = evaluate(graph, {k: v.clone() for k, v in args.items()})
    want = _merge_states(*(v.clone() for v in args.values()))
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
    terms = evaluate_symbolic(graph, {"t": 1, "h": 1, "d": 2})
    assert all(t.dtype.is_float for t in terms)


def test_other_index_put_is_a_located_error() -> None:
    def scatter_rows(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        x[idx] = 0.0
        return x

    with pytest.raises(ReferenceError_, match=r"unsupported op aten.index_put \(other than x\[bool mask\] = scalar\)"):
        trace_reference(scatter_rows, {"x": "f32[n]", "idx": "i64[k] in [0, n)"}, symbols=["n", "k"])
