"""Kernels made and configured as libraries write them (``libs/made_kernels.py``): made by calling
``triton.jit``/``triton.heuristics`` instead of decorating, string constexprs (``reduction="mean"``,
``ACTIVATION="leaky_relu"``) given in ``template_args`` or captured from the launcher, and
``@triton.autotune(configs=get_autotune_config())`` with the configurations built by a helper function
(a comprehension over ``itertools.product``, a loop appending): each configuration is a specialisation."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.triton import parse_triton, read_source
from larkc.frontends.triton.config import autotune_configs
from larkc.frontends.triton.task import specialisations
from larkc.ir.types import F32, I32, AddressSpace, PointerType
from larkc.pipeline.run import run_task
from larkc.tasks import Task

LIBS = Path(__file__).resolve().parent / "libs"
SOURCE = LIBS / "made_kernels.py"
P = PointerType(F32, AddressSpace.GLOBAL)
ROWS = [{"r": 3, "d": 50}, {"r": 5, "d": 100}, {"r": 2, "d": 129}]


def test_a_kernel_made_by_calling_triton_jit_and_heuristics() -> None:
    """`f = triton.jit(f)`, then `f = triton.heuristics({...})(f)`: a jit function with its heuristic."""
    src = read_source(SOURCE)
    assert "_scaled_square" in src.order
    assert [d.func.attr for d in src.decorators["_scaled_square"]] == ["heuristics"]  # type: ignore[attr-defined]
    params = {"Y_ptr": P, "X_ptr": P, "n_cols": I32, "scale": F32}
    module = parse_triton(SOURCE, kernel="_scaled_square", params=params, constexprs={"SCALE": True, "BLOCK_SIZE": 64})
    assert module.functions[-1].name == "_scaled_square"


def test_a_jit_call_on_something_else_is_no_kernel(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text("import triton\n\nk = triton.jit(lambda x: x)\n")
    with pytest.raises(LarkcError, match=r"no @triton\.jit function k"):
        parse_triton(tmp_path / "k.py", kernel="k", params={})


def _row_loss_task(reduction: str) -> Task:
    def reference(x: torch.Tensor) -> torch.Tensor:
        loss = (x * x).sum(-1)
        return loss / x.shape[0] if reduction == "mean" else loss

    return Task(
        source=SOURCE,
        kernel="_row_loss_kernel",
        reference=reference,
        inputs={"x": "f32[r, d]"},
        outputs={"loss": "f32[r]"},
        bindings={"Loss_ptr": "loss", "X_ptr": "x", "n_cols": "d", "n_rows": "r", "BLOCK_SIZE": "next_pow2(d)"},
        template_args={"reduction": reduction},
        symbols=["r", "d"],
        instances=ROWS,
        grid=["r"],
        block=[1],
    )


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_a_string_constexpr_in_template_args(reduction: str) -> None:
    """`if reduction == "mean":` is decided by the string the task gives; the other string's reference
    tells them apart."""
    assert run_task(_row_loss_task(reduction), seeds=1, write_replay=False).ok
    wrong = _row_loss_task(reduction)
    wrong = Task(**{**wrong.__dict__, "template_args": {"reduction": "sum" if reduction == "mean" else "mean"}})
    assert run_task(wrong, seeds=1, write_replay=False).kinds() == {"mismatch"}


def test_autotune_configs_built_by_a_helper_function() -> None:
    src = read_source(SOURCE)
    configs = autotune_configs(src, "_activation_kernel")
    assert [dict(c.constexprs) for c in configs] == [
        {"BLOCK_SIZE": 32},
        {"BLOCK_SIZE": 64},
        {"BLOCK_SIZE": 128},
        {"BLOCK_SIZE": 256},
    ]
    task = Task(
        source=SOURCE,
        kernel="_activation_kernel",
        reference=lambda x: torch.nn.functional.leaky_relu(x, 0.01),
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        bindings={"Y_ptr": "y", "X_ptr": "x", "n_elements": "n"},
        template_args={"ACTIVATION": "leaky_relu"},
        symbols=["n"],
        instances=[{"n": 300}, {"n": 77}],
        grid=["cdiv(n, BLOCK_SIZE)"],
        block=[1],
    )
    assert len(specialisations(task)) == 4
    assert run_task(task, seeds=1, write_replay=False).ok


def test_a_helper_building_configs_outside_the_evaluator_is_located(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\n\n"
        "def configs():\n    while True:\n        pass\n\n"
        "@triton.autotune(configs=configs(), key=[])\n@triton.jit\ndef k(x, B: tl.constexpr):\n    pass\n"
    )
    with pytest.raises(LarkcError, match=r"k.py:5:5: error: unsupported statement in a function building autotune"):
        autotune_configs(read_source(tmp_path / "k.py"), "k")


@pytest.mark.triton
def test_launchers_of_made_kernels_and_string_constexprs_give_tasks() -> None:
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    from larkc.frontends.triton.launcher import task_from_launcher

    spec = importlib.util.spec_from_file_location("made_kernels", SOURCE)
    assert spec is not None and spec.loader is not None
    made_kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(made_kernels)
    task = task_from_launcher(
        "libs/made_kernels.py:scaled_square",
        base=LIBS.parent,
        reference=lambda x: x * x,
        inputs={"x": "f32[r, d]"},
        symbols=["r", "d"],
        instances=ROWS,
    )
    assert task.kernel == "_scaled_square"
    assert run_task(task, seeds=1, write_replay=False).ok
    for reduction in ("mean", "sum"):
        task = task_from_launcher(
            functools.partial(made_kernels.row_loss, reduction=reduction),
            reference=lambda x, r=reduction: (x * x).sum(-1) / (x.shape[0] if r == "mean" else 1),
            inputs={"x": "f32[r, d]"},
            symbols=["r", "d"],
            instances=ROWS,
        )
        assert task.template_args == {"reduction": reduction}
        assert run_task(task, seeds=1, write_replay=False).ok


def test_autotune_configs_from_a_sibling_module_helper() -> None:
    """`triton.autotune(configs=get_scale_configs(), prune_configs_by=...)(_scale_kernel)` with the helper
    in `.autotuning` (defaults from module constants, `is None`, `isinstance`, `dict(...)`): every
    configuration is verified, the pruned ones too (pruning only drops configurations at run time)."""
    kernels = LIBS / "actlib" / "kernels"
    src = read_source(kernels / "scale.py")
    configs = autotune_configs(src, "_autotuned_scale_kernel")
    assert [dict(c.constexprs) for c in configs] == [
        {"BLOCK_SIZE": 32, "USE_FAST": False},
        {"BLOCK_SIZE": 32, "USE_FAST": False},
        {"BLOCK_SIZE": 64, "USE_FAST": False},
        {"BLOCK_SIZE": 64, "USE_FAST": False},
    ]
    task = Task(
        source=kernels / "scale.py",
        kernel="_autotuned_scale_kernel",
        reference=lambda x: 2 * x,
        inputs={"x": "f32[n]"},
        outputs={"y": "f32[n]"},
        bindings={"y": "y", "x": "x", "n_elements": "n"},
        symbols=["n"],
        instances=[{"n": 100}, {"n": 33}],
        grid=["cdiv(n, BLOCK_SIZE)"],
        block=[1],
    )
    assert run_task(task, seeds=1, write_replay=False).ok


def test_one_expression_wrappers_and_jit_imported_by_name(tmp_path: Path) -> None:
    """`k = triton.heuristics({...})(jit(_k))` with `from triton import jit`, and `@tjit` for `from triton
    import jit as tjit`: both are jit functions, the first with its heuristic."""
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\nfrom triton import jit\nfrom triton import jit as tjit\n\n"
        "def _k(x, EVEN: tl.constexpr):\n    tl.store(x, 1.0)\n\n"
        "k = triton.heuristics({'EVEN': lambda args: args['n'] % 2 == 0})(jit(_k))\n\n"
        "@tjit\ndef helper(x):\n    return x\n"
    )
    src = read_source(tmp_path / "k.py")
    assert src.order == ["k", "_k", "helper"]  # by the line of the function, the binding first
    assert [d.func.attr for d in src.decorators["k"]] == ["heuristics"]  # type: ignore[attr-defined]
    assert src.decorators["_k"] == src.decorators["k"]  # the name a launcher records
    module = parse_triton(tmp_path / "k.py", kernel="k", params={"x": P}, constexprs={"EVEN": True})
    assert module.functions[-1].name == "k"
