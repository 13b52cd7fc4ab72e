"""Red team of the KernelBench-candidate path (issue 19, "go looking for the next class"; issue 20's
features): candidates in ``redteam2/<problem>/``, each WRONG in one way generation agents get wrong
(``wrong_*.py``) or correct but written in a tricky way (``correct_*.py``), the first line of each saying
which. Every candidate's verdict from ``larkc verify`` (batch mode, as a generation loop calls it) is
pinned here; no wrong candidate may be VERIFIED. docs/redteam.md ("KernelBench candidates, second
round") lists the classes found and what was fixed:

* training mode: KernelBench's harness never calls ``.eval()``, so ``self.training`` is true in
  ``ModelNew.forward`` (it was read as false: dropout after the kernel and a training-only branch were
  VERIFIED) unless ``__init__`` calls ``self.eval()`` (a training arm checked where the eval arm runs was
  VERIFIED), a dropout module or ``F.dropout`` with ``p > 0`` is refused (random), and a batch norm
  module kept in PyTorch normalises by the batch's statistics (it was the inference formula: a correct
  candidate FAILED);
* size thresholds the instances never pass: a kernel's comparison of a size with a constant
  (``if (size > 4096)``) gets an instance past it, as a clamp does (a vectorised path wrong above 4096
  elements was VERIFIED); a clamp no one size takes past its constant is passed by moving all its sizes.
  A grid clamped at 512 blocks without a grid-stride loop, whose clamp only an instance of 131073
  elements passes (past the 65536 an extra instance may have), was VERIFIED within its bounded scope;
  the all-size prover (``larkc.provers.allsize``) now finds the sizes past the clamp and the simulator
  confirms the unwritten elements there (FAILED);
* ``x.is_contiguous()`` of a view was decided true (now an error: it depends on the sizes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc

HERE = Path(__file__).resolve().parent / "redteam2"

#: Verdicts that refuse or refute (never VERIFIED): a wrong candidate must get one of them.
NOT_VERIFIED = ("FAILED", "ERROR", "UNKNOWN")

#: problem -> candidate -> (statuses allowed, text the error or the failure kinds must contain)
EXPECTED: dict[str, dict[str, tuple[tuple[str, ...], str]]] = {
    "relu": {
        "correct_dropout_zero": (("VERIFIED",), ""),
        "correct_dtype_branch": (("VERIFIED",), ""),
        "correct_grid_clamp_stride": (("VERIFIED",), ""),
        "correct_memset_bytes": (("VERIFIED",), ""),
        "correct_row_clamp_loop": (("VERIFIED",), ""),
        "wrong_dropout_functional": (("ERROR",), "unsupported op aten.dropout in training mode"),
        "wrong_dropout_module": (("ERROR",), "unsupported call of nn.Dropout with p > 0"),
        "wrong_eval_in_init": (("FAILED",), "launch"),
        "wrong_ext_rebound": (("FAILED",), "mismatch"),
        "wrong_fill_one": (("ERROR",), "unsupported fill_ with a value other than 0"),
        "wrong_grid_clamp": (("FAILED",), "mismatch"),
        "wrong_host_chunk_loop": (("ERROR",), "unsupported operands in host code: x.data_ptr<float>() + c * half"),
        "wrong_kernel_size_threshold": (("FAILED",), "mismatch"),
        "wrong_memset_elements": (("ERROR",), "unsupported cudaMemset of batch_size * dim bytes"),
        "wrong_memset_ones": (("ERROR",), "unsupported cudaMemset in host code"),
        "wrong_noise_step": (("ERROR",), "unsupported op aten.randn_like.default in reference"),
        "wrong_row_clamp": (("FAILED",), "mismatch"),
        "wrong_size_branch": (("ERROR",), "unsupported condition in ModelNew.forward"),
        "wrong_training_branch": (("FAILED",), "launch"),
        "wrong_two_ext_same_name": (("FAILED",), "launch"),
    },
    "linear_scale_bias": {
        "correct_fused": (("VERIFIED",), ""),
        "correct_module_then_kernel": (("VERIFIED",), ""),
        "wrong_init_order": (("FAILED",), "finding"),
        "wrong_linear_bias_for_bias": (("FAILED",), "mismatch"),
        "wrong_step_result_ignored": (("ERROR",), "output 'out' is declared f32[batch_size, in_features]"),
        "wrong_swapped_scale_bias": (("FAILED",), "mismatch"),
        "wrong_weight_transposed": (("FAILED",), "mismatch"),
    },
    "two_linear": {
        "correct_layers_kept": (("VERIFIED",), ""),
        "correct_layers_renamed": (("VERIFIED",), ""),
        "wrong_layers_declared_swapped": (("FAILED",), "mismatch"),
    },
    "bn_relu": {
        "correct_bn_module_then_kernel": (("VERIFIED",), ""),
        "correct_fused": (("VERIFIED",), ""),
        "wrong_bn_eval_in_init": (("ERROR",), "unsupported attribute of ModelNew that is not a constant: self.bn"),
        "wrong_eps": (("FAILED",), "mismatch"),
        "wrong_running_stats_step": (("FAILED",), "mismatch"),
        "wrong_unbiased_variance": (("FAILED",), "mismatch"),
    },
    "scale_residual": {
        "correct_scratch": (("VERIFIED",), ""),
        "wrong_inplace_input": (("FAILED",), "input-write"),
        "wrong_inplace_scratch": (("FAILED",), "mismatch"),
    },
    "matmul": {
        "correct_transposed_copy": (("VERIFIED",), ""),
        "correct_view_is_contiguous_branch": (("ERROR",), "unsupported is_contiguous() of a view"),
        "wrong_mT_view": (("ERROR",), "unsupported tensor passed to the CUDA function that may not be contiguous"),
        "wrong_transpose_view": (
            ("ERROR",),
            "unsupported tensor passed to the CUDA function that may not be contiguous",
        ),
    },
    "tril_a": {
        "correct_skips_zero_triangle": (("VERIFIED",), ""),
        "wrong_assumes_b_triangular": (("FAILED",), "mismatch"),
    },
    "relu_large": {
        "correct_int64": (("VERIFIED",), ""),
        "wrong_int_index": (("FAILED",), "overflow"),
        "wrong_int_size_parameter": (("FAILED",), "overflow"),
    },
    "masked_softmax": {
        "correct_masked": (("UNKNOWN", "VERIFIED"), ""),
        "wrong_fully_masked_row_zero": (("UNKNOWN", "FAILED"), ""),
    },
}


#: Wrong candidates VERIFIED within the bounded scope the verdict states (right at every instance it
#: lists; wrong only at sizes no instance reaches): gaps of the instances, not false proofs.
BOUNDED_GAPS: frozenset[tuple[str, str]] = frozenset()


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LARKC_CACHE_DIR", str(tmp_path_factory.mktemp("larkc-cache")))


def test_every_candidate_is_pinned() -> None:
    found = {p.name: {f.stem for f in p.glob("*.py") if f.stem != "model"} for p in HERE.iterdir() if p.is_dir()}
    found = {k: v for k, v in found.items() if v}
    assert found == {k: set(v) for k, v in EXPECTED.items()}
    for problem, cases in EXPECTED.items():
        for name, (statuses, _) in cases.items():
            first = (HERE / problem / f"{name}.py").read_text(encoding="utf-8").splitlines()[1]
            kind = "wrong" if name.startswith("wrong_") else "correct"
            assert first.startswith(f"# {kind}"), f"{problem}/{name}: {first}"
            if kind == "wrong" and (problem, name) not in BOUNDED_GAPS:
                assert "VERIFIED" not in statuses, f"{problem}/{name} may be VERIFIED"


@pytest.mark.parametrize("problem", sorted(EXPECTED))
def test_verdicts(problem: str) -> None:
    folder = HERE / problem
    files = sorted(folder / f"{name}.py" for name in EXPECTED[problem])
    got = {Path(r.candidate).stem: r for r in larkc.verify_many(files, folder / "model.py", seconds=60, cache_dir="")}
    for name, (statuses, text) in EXPECTED[problem].items():
        r = got[name]
        shown = r.error or " ".join(r.kinds)
        assert r.status in statuses and text in shown, f"{problem}/{name}: {r.status} {shown}"
        if r.status == "VERIFIED" and name.startswith("wrong_"):
            assert (problem, name) in BOUNDED_GAPS and r.verified_scope == "bounded", f"{problem}/{name}"
