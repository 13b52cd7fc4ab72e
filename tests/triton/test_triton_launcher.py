"""Launches captured from the Python launchers of the examples, and their arguments and grids derived as
shape expressions (the launcher runs with Triton's launches intercepted, so the kernel itself never
runs)."""

from __future__ import annotations

import pytest
import torch
from harness import EXAMPLES, _module

from larkc.errors import LarkcError
from larkc.frontends.triton.launcher import capture_launches, derive_expression, derive_launch

pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")

pytestmark = pytest.mark.triton


def _launcher(example: str, name: str):  # type: ignore[no-untyped-def]
    return getattr(_module(EXAMPLES / example / "kernel.py"), name)


def test_capture_records_the_kernel_grid_and_arguments_without_running_it() -> None:
    x = torch.randn(3, 50)
    y, launches = capture_launches(_launcher("softmax", "softmax"), x)
    (ln,) = launches
    assert ln.kernel == "softmax_kernel" and ln.source.name == "kernel.py"
    assert ln.grid == (3,)
    assert ln.arguments["in_ptr"] is x and ln.arguments["out_ptr"] is y
    assert ln.arguments["n_cols"] == 50 and ln.arguments["BLOCK"] == 64
    assert ln.constexpr_params == ("BLOCK",)


def test_softmax_launch_is_derived_from_its_launcher() -> None:
    instances = [{"r": 3, "d": 50}, {"r": 5, "d": 100}, {"r": 2, "d": 129}, {"r": 7, "d": 64}]
    d = derive_launch(
        _launcher("softmax", "softmax"), lambda i: {"x": torch.randn(i["r"], i["d"])}, ["r", "d"], instances
    )
    assert d.kernel == "softmax_kernel"
    assert d.tensors == {"out_ptr": "out", "in_ptr": "x"}
    assert d.sizes == {
        "in_row_stride": "d",
        "out_row_stride": "d",
        "n_rows": "r",
        "n_cols": "d",
        "BLOCK": "next_pow2(d)",
    }
    assert d.grid == ("r",)
    assert d.output_shapes["out"][0] == ("r", "d")


def test_grid_functions_are_evaluated_and_derived() -> None:
    instances = [{"n": 1000}, {"n": 5000}, {"n": 1024}]
    d = derive_launch(
        _launcher("vector_add", "add"), lambda i: {"x": torch.randn(i["n"]), "y": torch.randn(i["n"])}, ["n"], instances
    )
    assert d.tensors == {"x_ptr": "x", "y_ptr": "y", "out_ptr": "out"}
    assert d.sizes == {"n_elements": "n", "BLOCK": "1024"}
    assert d.grid == ("cdiv(n, 1024)",)


def test_matmul_grid_is_a_product_of_cdivs() -> None:
    instances = [{"m": 40, "n": 48, "k": 40}, {"m": 64, "n": 100, "k": 16}, {"m": 33, "n": 17, "k": 70}]
    d = derive_launch(
        _launcher("matmul", "matmul"),
        lambda i: {"a": torch.randn(i["m"], i["k"]).half(), "b": torch.randn(i["k"], i["n"]).half()},
        ["m", "n", "k"],
        instances,
    )
    assert d.grid == ("cdiv(m, 32) * cdiv(n, 32)",)
    assert d.sizes["stride_am"] == "k" and d.sizes["stride_bk"] == "n" and d.sizes["stride_ak"] == "1"
    assert d.output_shapes["out"] == (("m", "n"), torch.float16)


def test_an_unexplained_argument_is_an_error() -> None:
    def launcher(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        kernel = _module(EXAMPLES / "vector_add" / "kernel.py").add_kernel
        kernel[(1,)](x, x, y, 12345 if x.numel() < 100 else 777, BLOCK=64)
        return y

    with pytest.raises(LarkcError, match="argument n_elements of add_kernel"):
        derive_launch(launcher, lambda i: {"x": torch.randn(i["n"])}, ["n"], [{"n": 10}, {"n": 200}, {"n": 300}])


def test_derive_expression_prefers_the_simplest_fit() -> None:
    insts = [{"a": 3, "b": 5}, {"a": 4, "b": 7}, {"a": 10, "b": 2}]
    assert derive_expression([5, 7, 2], insts, ["a", "b"]) == "b"
    assert derive_expression([15, 28, 20], insts, ["a", "b"]) == "a*b"
    assert derive_expression([1, 1, 1], insts, ["a", "b"]) == "1"
    assert derive_expression([4, 4, 16], insts, ["a", "b"]) == "next_pow2(a)"
    assert derive_expression([1, 1, 3], insts, ["a", "b"], [4]) == "cdiv(a, 4)"
    assert derive_expression([999, 1, 2], insts, ["a", "b"]) is None


def test_an_autotuned_launch_is_derived_without_its_configuration_constexprs() -> None:
    instances = [{"r": 3, "d": 48}, {"r": 5, "d": 100}, {"r": 2, "d": 64}]
    d = derive_launch(
        _launcher("row_sum_autotune", "row_sum"), lambda i: {"x": torch.randn(i["r"], i["d"])}, ["r", "d"], instances
    )
    assert d.kernel == "row_sum_kernel" and d.grid == ("r",)
    assert d.sizes == {"stride": "d", "n_cols": "d"}  # BLOCK_N: each configuration; EVEN_N: the heuristic


def test_a_grid_that_depends_on_the_autotune_configuration_names_its_constexprs() -> None:
    kernel = _module(EXAMPLES / "row_sum_autotune" / "kernel.py").row_sum_kernel

    def launcher(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty(x.shape[0])
        kernel[lambda meta: (x.shape[0] * meta["BLOCK_N"],)](x, out, x.stride(0), x.shape[1])
        return out

    d = derive_launch(launcher, lambda i: {"x": torch.randn(i["r"], 8)}, ["r"], [{"r": 2}, {"r": 3}])
    assert d.grid == ("r*BLOCK_N",)


def test_a_configuration_dependent_grid_no_expression_explains_is_an_error() -> None:
    kernel = _module(EXAMPLES / "row_sum_autotune" / "kernel.py").row_sum_kernel

    def launcher(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty(x.shape[0])
        kernel[lambda meta: (x.shape[0] * meta["BLOCK_N"] ** 2 + 7,)](x, out, x.stride(0), x.shape[1])
        return out

    with pytest.raises(LarkcError, match="depends on the autotune configuration"):
        derive_launch(launcher, lambda i: {"x": torch.randn(i["r"], 8)}, ["r"], [{"r": 2}, {"r": 3}])
