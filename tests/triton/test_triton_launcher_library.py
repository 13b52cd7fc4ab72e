"""Launchers written as Triton libraries write them (``launchers/liger_style.py``,
``launchers/unsloth_style.py``) captured without a GPU: in-place launchers (their outputs are the inputs
the kernel writes), ``None`` pointer arguments, strides like ``2 * N``, block sizes like
``next_power_of_2(D // 2)``, internal copies of inputs, ``torch.cuda`` calls (stubbed and said), and
grids checked beyond the task's instances (``cdiv(M, 100)`` on sizes below 100)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.triton.launcher import capture_launches, derive_launch, probe_instances, task_from_launcher
from larkc.pipeline.verify import verify_task
from larkc.provers import Status, Verdict
from larkc.tasks import BufferArg, NullArg, ShapeArg, Task

triton = pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")

pytestmark = pytest.mark.triton

HERE = Path(__file__).resolve().parent
ROWS = [{"r": 3, "d": 50}, {"r": 5, "d": 100}, {"r": 2, "d": 129}]
ROPE = [{"b": 2, "s": 3, "h": 5, "hd": 8}, {"b": 1, "s": 5, "h": 3, "hd": 12}, {"b": 3, "s": 2, "h": 9, "hd": 20}]


def _task(spec: str, **kwargs: Any) -> Task:
    return task_from_launcher(f"launchers/{spec}", base=HERE, **kwargs)  # type: ignore[no-any-return]


def _bindings(task: Task) -> dict[str, str]:
    out = {}
    for k, b in task.bindings.items():
        match b:
            case BufferArg(name):
                out[k] = name
            case ShapeArg(expr):
                out[k] = str(expr)
            case NullArg():
                out[k] = "None"
            case _:
                out[k] = repr(b)
    return out


def _residual_reference(x: torch.Tensor, res: torch.Tensor) -> None:
    x.add_(res)


def test_an_in_place_launcher_has_the_inputs_it_writes_as_outputs() -> None:
    task = _task(
        "liger_style.py:residual_add_",
        reference=_residual_reference,
        inputs={"x": "f32[r, d]", "res": "f32[r, d]"},
        symbols=["r", "d"],
        instances=ROWS,
    )
    assert list(task.outputs) == ["x"] and task.outputs["x"] == task.inputs["x"]
    assert task.inplace == ("x",) or list(task.inplace) == ["x"]
    assert _bindings(task)["X_ptr"] == "x" and _bindings(task)["R_ptr"] == "res"


def test_an_in_place_launcher_verifies_against_a_reference_that_updates_its_argument(tmp_path: Path) -> None:
    task = _task(
        "liger_style.py:residual_add_",
        reference=_residual_reference,
        inputs={"x": "f32[r, d]", "res": "f32[r, d]"},
        symbols=["r", "d"],
        constraints=["d <= 65536", "r <= 2147483647"],
        instances=ROWS,
    )
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_an_in_place_launcher_verifies_against_a_reference_that_returns_the_new_value(tmp_path: Path) -> None:
    task = _task(
        "liger_style.py:residual_add_",
        reference=lambda x, res: x + res,
        inputs={"x": "f32[r, d]", "res": "f32[r, d]"},
        symbols=["r", "d"],
        constraints=["d <= 65536", "r <= 2147483647"],
        instances=ROWS,
    )
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_a_wrong_in_place_kernel_is_refuted_on_the_input_it_writes(tmp_path: Path) -> None:
    task = _task(
        "liger_style.py:residual_add_wrong_",
        reference=_residual_reference,
        inputs={"x": "f32[r, d]", "res": "f32[r, d]"},
        symbols=["r", "d"],
        constraints=["d <= 65536", "r <= 2147483647"],
        instances=ROWS,
    )
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
    refuted = [r.obligation.name for r in report.results if r.status is Status.REFUTED]
    assert "equivalence(x)" in refuted


def test_a_none_pointer_argument_binds_none_and_its_constexpr_flag(capsys: pytest.CaptureFixture[str]) -> None:
    task = _task(
        "liger_style.py:layer_norm_forward",
        inputs={"x": "f32[r, d]", "w": "f32[d]"},
        symbols=["r", "d"],
        instances=ROWS,
    )
    b = _bindings(task)
    assert b["B_ptr"] == "None" and b["Y_ptr"] == "out" and b["BLOCK_SIZE"] == "next_pow2(d)"
    assert "False" in b["HAS_BIAS"]
    # the launch runs under torch.cuda.device(X.device), X on the CPU during the capture: stubbed, and said
    err = capsys.readouterr().err
    assert "layer_norm_forward captured without a GPU: torch.cuda.device(...) was an empty context" in err


def test_a_stride_of_twice_a_size_is_derived() -> None:
    task = _task("liger_style.py:gated_silu_forward", inputs={"ab": "f32[r, 2*d]"}, symbols=["r", "d"], instances=ROWS)
    b = _bindings(task)
    assert b["stride"] == "(2 * d)" and b["out_stride"] == "d" and b["a_ptr"] == "ab"
    assert [str(s) for s in task.outputs["out"].shape] == ["r", "d"]


def test_an_unsloth_rope_launcher_is_captured(capsys: pytest.CaptureFixture[str]) -> None:
    """In place on Q (the launcher returns Q's view), BLOCK_SIZE = next_power_of_2(head_dim // 2), a 2-D grid
    of heads in groups of 4, torch.cuda.current_device() and a torch.cuda.device alias made at import."""
    task = _task(
        "unsloth_style.py:fast_rope_embedding",
        inputs={"q": "f32[b, s, h, hd]", "cos": "f32[s, hd // 2]", "sin": "f32[s, hd // 2]"},
        symbols=["b", "s", "h", "hd"],
        constraints=["hd % 2 == 0"],
        instances=ROPE,
    )
    b = _bindings(task)
    assert list(task.outputs) == ["q"]
    assert b["BLOCK_SIZE"] == "next_pow2((hd // 2))" and b["Q_row_stride"] == "(h * hd)"
    assert [str(g) for g in task.grid] == ["(b * s)", "cdiv(h, 4)"]
    if not torch.cuda.is_available():
        err = capsys.readouterr().err
        assert "torch.cuda.current_device() gave 0" in err and "torch.cuda.device(...) was an empty context" in err


def test_a_grid_that_fits_the_instances_by_coincidence_is_checked_at_probe_sizes() -> None:
    """cdiv(m, 100) is 1 on every instance (m < 100): the probes (instances scaled by 7 and 13) tell it from 1."""
    task = _task(
        "liger_style.py:row_scale",
        inputs={"x": "f32[m, d]"},
        symbols=["m", "d"],
        instances=[{"m": 3, "d": 50}, {"m": 5, "d": 10}, {"m": 50, "d": 7}],
    )
    assert [str(g) for g in task.grid] == ["cdiv(m, 100)"]


def test_probe_instances_scale_every_symbol_and_keep_the_constraints() -> None:
    probes = probe_instances([{"m": 3, "d": 4}, {"m": 5, "d": 2}], lambda i: i["d"] <= 40)
    assert probes == [{"m": 21, "d": 28}, {"m": 35, "d": 14}, {"m": 65, "d": 26}, {"m": 291, "d": 4}]


def test_a_grid_over_a_size_far_below_its_divisor_is_checked_with_one_symbol_scaled() -> None:
    """LightLLM's silu_and_mul grid, cdiv(M, 128): M below 128 at every instance and every probe scaled by 7
    and 13; the probe with M alone scaled by 97 tells it from 1 (and 128, passed on every instance alike, is
    the divisor, not a size of one instance)."""
    from harness import _module

    kernel = _module(HERE / "launchers" / "liger_style.py")._row_scale_kernel

    def launcher(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        kernel[(triton.cdiv(n_rows, 128),)](x, y, n_rows, n_cols, 2.0, ROWS=128, BLOCK_SIZE=128)
        return y

    d = derive_launch(launcher, lambda i: {"x": torch.randn(i["r"], i["d"])}, ["r", "d"], ROWS)
    assert d.grid == ("cdiv(r, 128)",)


def test_a_value_no_expression_explains_at_the_probes_is_an_error() -> None:
    from harness import EXAMPLES, _module

    kernel = _module(EXAMPLES / "vector_add" / "kernel.py").add_kernel

    def launcher(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        kernel[(1 if x.numel() < 100 else 17,)](x, x, y, x.numel(), BLOCK=64)  # 1 on the instances only
        return y

    message = r"grid dimension 0 \(1 at n=10; 1 at n=20; 1 at n=30; 1 at n=70; 17 at n=140; .*\) is no shape expression"
    with pytest.raises(LarkcError, match=message):
        derive_launch(launcher, lambda i: {"x": torch.randn(i["n"])}, ["n"], [{"n": 10}, {"n": 20}, {"n": 30}])


def test_a_rearranged_internal_copy_of_an_input_is_an_error() -> None:
    with pytest.raises(LarkcError, match=r"argument x_ptr holds the values of input x rearranged by the launcher"):
        _task(
            "liger_style.py:row_scale_transposed",
            inputs={"x": "f32[d, m]"},
            symbols=["m", "d"],
            instances=[{"m": 3, "d": 50}, {"m": 5, "d": 10}, {"m": 50, "d": 7}],
        )


def test_a_launcher_that_raises_is_a_located_error() -> None:
    def rms_norm(x: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > 40:
            raise ValueError("bad size")
        return x

    with pytest.raises(LarkcError, match=r"the launcher rms_norm raised ValueError: bad size at r=3, d=50") as e:
        derive_launch(rms_norm, lambda i: {"x": torch.randn(i["r"], i["d"])}, ["r", "d"], ROWS)
    assert e.value.span is not None and e.value.span.line > 0


def test_a_result_initialised_with_an_input_is_that_input_updated_in_place(tmp_path: Path) -> None:
    """y = x.clone(); kernel updates y in place; return y: the kernel's y is x in place, compared with the
    reference's result."""
    task = _task(
        "liger_style.py:residual_add",
        reference=lambda x, res: x + res,
        inputs={"x": "f32[r, d]", "res": "f32[r, d]"},
        symbols=["r", "d"],
        constraints=["d <= 65536", "r <= 2147483647"],
        instances=ROWS,
    )
    assert list(task.outputs) == ["x"] and _bindings(task)["X_ptr"] == "x"
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())


def test_a_result_computed_after_the_launch_is_an_error() -> None:
    with pytest.raises(LarkcError, match=r"writes none of the launcher's inputs and none of its results"):
        _task(
            "liger_style.py:row_scale_sum",
            inputs={"x": "f32[m, d]"},
            symbols=["m", "d"],
            instances=[{"m": 3, "d": 50}, {"m": 5, "d": 10}, {"m": 50, "d": 7}],
        )


def test_uninitialised_allocations_are_marked_during_a_capture() -> None:
    """torch.empty may return memory that held an input freed before (its values would pass for a copy of it):
    during a capture it is filled with a mark."""

    def launcher(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.empty_like(x), torch.empty(3, dtype=torch.int32), x.new_empty(2), torch.empty_strided((2,), (1,))

    (a, b, c, e), launches = capture_launches(launcher, torch.randn(4))
    assert launches == [] and a.isnan().all() and c.isnan().all() and e.isnan().all()
    assert (b == torch.iinfo(torch.int32).max).all()


def test_a_launcher_in_a_package_is_imported_with_its_package(capsys: pytest.CaptureFixture[str]) -> None:
    """``from .utils import calculate_settings`` resolves (the file is imported as rowlib.square), and the
    device query that utils makes at import is stubbed without a GPU, and said."""
    task = _task("rowlib/square.py:square_forward", inputs={"x": "f32[r, d]"}, symbols=["r", "d"], instances=ROWS)
    assert task.kernel == "_square_kernel" and _bindings(task)["BLOCK_SIZE"] == "next_pow2(d)"
    if not torch.cuda.is_available():
        assert "torch.cuda.get_device_capability() gave (9, 0)" in capsys.readouterr().err


def test_a_float_argument_computed_from_the_sizes_is_a_scalar_expression() -> None:
    """Liger's tvd passes scale = 1 / n; attention kernels 1 / sqrt(head_dim)."""
    from larkc.frontends.triton.launcher import derive_scalar_expression
    from larkc.tasks import ScalarExpr

    task = _task(
        "liger_style.py:row_mean_scale",
        inputs={"x": "f32[m, d]"},
        symbols=["m", "d"],
        instances=[{"m": 3, "d": 50}, {"m": 5, "d": 10}, {"m": 50, "d": 7}],
    )
    scale = task.bindings["scale"]
    assert isinstance(scale, ScalarExpr) and scale.value({"m": 3, "d": 50}).approx == 1 / 50
    insts = [{"h": 2, "d": 64}, {"h": 3, "d": 80}]
    assert derive_scalar_expression([64**-0.5, 80**-0.5], insts, ["h", "d"]) == "1 / sqrt(d)"
    assert derive_scalar_expression([0.3, 0.7], insts, ["h", "d"]) is None


def test_the_larger_power_of_two_of_two_sizes_is_derived() -> None:
    """Liger's RoPE: BLOCK_SIZE = max(next_power_of_2(n_q_head), next_power_of_2(n_kv_head))."""
    from larkc.frontends.triton.launcher import derive_expression

    insts = [{"hq": 4, "hk": 2}, {"hq": 6, "hk": 3}, {"hq": 3, "hk": 20}]
    assert derive_expression([4, 8, 32], insts, ["hq", "hk"]) == "max(next_pow2(hq), next_pow2(hk))"


# -- grids that read the autotune configuration (Liger's DyT, the matmul tutorial) -------------------------

TILES = [{"m": 40, "n": 70}, {"m": 33, "n": 17}, {"m": 64, "n": 100}]


def test_a_grid_reading_the_configuration_is_derived_over_its_constexprs(tmp_path: Path) -> None:
    task = _task(
        "autotune_grid_style.py:tanh_affine_fwd",
        reference=lambda x, alpha, gamma, beta: gamma * (2 * torch.sigmoid(2 * alpha * x) - 1) + beta,
        inputs={"x": "f32[r, d]", "alpha": "f32[1]", "gamma": "f32[d]", "beta": "f32[d]"},
        symbols=["r", "d"],
        constraints=["d <= 65536", "r <= 65535"],
        instances=ROWS,
    )
    assert [str(g) for g in task.grid] == ["cdiv(d, BLOCK_N)", "r"]
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    # the launch was read off the launcher's launches at a few sizes: every verdict says so (a launcher that
    # launches otherwise past them, `M + (N > 20000)` rows, is not seen; review of 2026-12-07)
    trusted = [a.text for a in report.task_assumptions if a.kind.value == "trusted"]
    assert any("tanh_affine_fwd launches _tanh_affine_fwd_kernel as derived" in t for t in trusted), trusted
    assert any("as derived for every size" in line for line in report.render())


def test_a_tile_grid_reading_two_constexprs_is_derived() -> None:
    task = _task(
        "autotune_grid_style.py:tile_scale",
        reference=lambda x: x * 0.5,
        inputs={"x": "f32[m, n]"},
        symbols=["m", "n"],
        instances=TILES,
    )
    assert [str(g) for g in task.grid] == ["(cdiv(m, BLOCK_M) * cdiv(n, BLOCK_N))"]


def test_a_grid_short_by_a_tile_row_is_derived_as_written_and_refuted(tmp_path: Path) -> None:
    task = _task(
        "autotune_grid_style.py:tile_scale_short_grid",
        reference=lambda x: x * 0.5,
        inputs={"x": "f32[m, n]"},
        symbols=["m", "n"],
        instances=TILES,
    )
    assert "cdiv(m, BLOCK_M)" not in str(task.grid[0])
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED, "\n".join(report.render())
