"""Infinite constants in references (issue 19, class 9): ``masked_fill(mask, float("-inf"))`` before a
softmax, ``torch.where(..., float("-inf"))``, ``F.pad(..., value=float("inf"))``.

The spec evaluates over extended reals with IEEE 754's rules (``exp(-inf) = 0``, ``max(x, -inf) = x``,
``inf - inf = nan``); an element the reference computes as NaN for every input (a fully masked softmax row)
must be NaN in the kernel too, as ``larkc run`` compares. Kernels are task folders under ``masked/``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F  # noqa: N812

from larkc.errors import LarkcError
from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, Verdict
from larkc.reference import evaluate, evaluate_symbolic, trace_reference
from larkc.symbolic import terms as tm
from larkc.symbolic.extended import NonFinite, Undecided, ext_add, ext_apply, ext_extremum, ext_mul
from larkc.tasks import load_task

HERE = Path(__file__).resolve().parent / "masked"

CORRECT = ("causal_softmax_triton", "causal_softmax_cuda", "strict_causal_nan_row", "pad_inf_row_min")
WRONG = ("causal_softmax_triton_bug_zero_fill", "causal_softmax_cuda_bug_zero_fill", "strict_causal_bug_zero_row")


@pytest.mark.parametrize("name", CORRECT)
def test_kernel_against_a_reference_with_infinities_verifies(name: str, tmp_path: Path) -> None:
    report = verify_task(load_task(HERE / name), budget=Budget(seconds=120), replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


@pytest.mark.parametrize("name", WRONG)
def test_kernel_that_fills_masked_positions_with_zero_fails(name: str, tmp_path: Path) -> None:
    report = verify_task(load_task(HERE / name), budget=Budget(seconds=120), replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    assert report.kinds() == {"mismatch"}


# -- the extended-real rules ----------------------------------------------------------------------------

X = tm.elem("x", 0)


def test_ieee_rules_of_the_extended_reals() -> None:
    inf, ninf, nan = NonFinite.POS_INF, NonFinite.NEG_INF, NonFinite.NAN
    assert ext_apply(tm.Fn.EXP, ninf) is tm.ZERO
    assert ext_extremum([X, ninf], True) is X and ext_extremum([X, inf], False) is X
    assert ext_extremum([ninf, ninf], True) is ninf and ext_extremum([X, nan], True) is nan
    assert ext_add(X, ninf) is ninf and ext_add(inf, ninf) is nan
    assert ext_mul(ninf, tm.const(2)) is ninf and ext_mul(inf, tm.const(-1)) is ninf
    assert ext_mul(inf, tm.ZERO) is nan
    assert ext_mul(ninf, ext_apply(tm.Fn.EXP, X)) is ninf  # exp(x) > 0 for every x
    with pytest.raises(Undecided):
        ext_mul(inf, X)  # 0 * inf is NaN, any other product an infinity: it depends on x


def _terms(reference: object, inputs: dict[str, str], sizes: dict[str, int]) -> list[object]:
    graph = trace_reference(reference, inputs, symbols=sorted(sizes))
    (out,) = evaluate_symbolic(graph, sizes)
    return list(out.elems)


def test_causal_masked_softmax_terms_drop_the_masked_positions() -> None:
    def causal(x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        return torch.softmax(x.masked_fill(mask, float("-inf")), dim=-1)

    elems = _terms(causal, {"x": "f32[n, n]"}, {"n": 3})
    assert elems[0] is tm.ONE and elems[1] is tm.ZERO and elems[2] is tm.ZERO
    assert all(isinstance(e, tm.Poly) for e in elems)
    assert elems[5] is tm.ZERO


def test_fully_masked_row_is_nan_and_where_with_arange_masks_works() -> None:
    def masked(x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        i = torch.arange(n)
        return torch.where(i[None, :] < i[:, None], x, float("-inf")).log_softmax(-1)

    elems = _terms(masked, {"x": "f32[n, n]"}, {"n": 3})
    assert elems[:3] == [NonFinite.NAN] * 3
    assert elems[3] is tm.ZERO and elems[4] is NonFinite.NEG_INF


def test_pad_with_infinity_and_full_of_minus_infinity() -> None:
    def padded(x: torch.Tensor) -> torch.Tensor:
        return torch.maximum(F.pad(x, (1, 0), value=float("inf")), torch.full((2, 4), float("-inf")))

    elems = _terms(padded, {"x": "f32[2, 3]"}, {})
    assert elems[0] is NonFinite.POS_INF and elems[1] is tm.elem("x", 0)
    x = torch.randn(2, 3, dtype=torch.float64)
    graph = trace_reference(padded, {"x": "f32[2, 3]"})
    (numeric,) = evaluate(graph, {"x": x})
    assert math.isinf(float(numeric[0, 0])) and torch.equal(numeric[:, 1:], x)


def test_an_infinity_chosen_by_input_data_is_a_located_error() -> None:
    def padding_mask(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x.masked_fill(~keep, float("-inf")), dim=-1)

    graph = trace_reference(padding_mask, {"x": "f32[2, 3]", "keep": "bool[2, 3]"})
    with pytest.raises(LarkcError) as info:
        evaluate_symbolic(graph, {})
    err = info.value
    assert err.span is not None and err.span.line > 0 and "test_infinities.py" in str(err.span.file)
    assert "depends on input data" in err.message


def test_an_infinity_times_an_input_is_a_located_error() -> None:
    def scaled(x: torch.Tensor) -> torch.Tensor:
        return x * float("inf")

    graph = trace_reference(scaled, {"x": "f32[3]"})
    with pytest.raises(LarkcError) as info:
        evaluate_symbolic(graph, {})
    assert info.value.span is not None and "unknown sign" in info.value.message
