"""Imports the way Triton libraries write them (``libs/normlib``, in Liger-Kernel's layout; ``libs/actlib``,
in Unsloth's): libdevice functions chosen by module-level ``if``/``try`` on the Triton version and the
device, helpers imported from sibling modules by relative and absolute paths, kernels re-exported by a
package ``__init__``. The files are read, never imported; what cannot be decided is a located error
(``invalid/undecided_invalid.py``, ``invalid/augassign_invalid.py``, ``invalid/unread_import_invalid.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.triton import parse_triton
from larkc.frontends.triton.source import installed_triton_version, read_source
from larkc.ir.printer import print_module
from larkc.ir.types import F32, I32, AddressSpace, PointerType
from larkc.pipeline.run import run_task
from larkc.tasks import ScalarArg, Task

LIBS = Path(__file__).resolve().parent / "libs"
P = PointerType(F32, AddressSpace.GLOBAL)
RMS_PARAMS = {"Y_ptr": P, "X_ptr": P, "W_ptr": P, "stride": I32, "n_cols": I32, "eps": F32}
GEGLU_PARAMS = {"e": P, "g": P, "h": P, "n_elements": I32}
TRITON = installed_triton_version()
needs_triton = pytest.mark.skipif(TRITON is None, reason="version checks are decided against an installed Triton")


def test_liger_style_version_and_device_checks_give_libdevice_rsqrt() -> None:
    """`if compare_version(...) and not is_npu_available(): try: from ...libdevice import rsqrt except
    ...: from ...cuda.libdevice import rsqrt else: from triton.language.math import rsqrt`: the device
    check cannot be decided, but every branch binds rsqrt to the same function."""
    path = LIBS / "normlib" / "ops" / "rms_norm.py"
    module = parse_triton(path, kernel="_rms_norm_forward_kernel", params=RMS_PARAMS, constexprs={"BLOCK_SIZE": 64})
    assert "rsqrt" in print_module(module)
    decisions = read_source(path).decisions
    assert any(
        "is_npu_available()" in d and "cannot be decided: names both branches bind alike kept" in d for d in decisions
    )
    # the DTensor fallback differs between its ways, and no kernel uses it
    assert any("unusable: _DTensor" in d for d in decisions)


@needs_triton
def test_version_checks_are_decided_against_the_installed_triton() -> None:
    path = LIBS / "actlib" / "kernels" / "utils.py"
    decisions = read_source(path).decisions
    test = "`Version(triton.__version__) >= Version('3.0.0')`"
    assert decisions[0].endswith(f"utils.py:13: {test} is True (Triton {TRITON} installed): the if branch")
    assert "`DEVICE_TYPE == 'xpu'` cannot be decided" in decisions[1]
    rms = read_source(LIBS / "normlib" / "ops" / "rms_norm.py").decisions
    assert any(d.endswith(f"rms_norm.py:14: the try's imports exist in Triton {TRITON}: the try branch") for d in rms)


@needs_triton
def test_a_kernel_defined_under_a_version_check(tmp_path: Path) -> None:
    """LightLLM defines its ViT attention kernel under `if triton.__version__ >= "2.1.0":` (compared as
    strings, as Python does); `if __name__ == "__main__":` blocks are never taken (the module is imported)."""
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\n\nBLOCK = 16\n"
        "if triton.__version__ >= '2.1.0':\n\n    @triton.jit\n    def k(x):\n"
        "        tl.store(x + tl.arange(0, BLOCK), 1.0)\n\n"
        "if __name__ == '__main__':\n    BLOCK = 3\n"
    )
    module = parse_triton(tmp_path / "k.py", kernel="k", params={"x": P})
    assert "16" in print_module(module)
    decisions = read_source(tmp_path / "k.py").decisions
    assert decisions == [
        f"{tmp_path}/k.py:5: `triton.__version__ >= '2.1.0'` is True (Triton {TRITON} installed): the if branch",
        f"{tmp_path}/k.py:11: `__name__ == '__main__'` is False: the else branch",
    ]


@needs_triton
def test_a_try_import_missing_from_the_installed_triton_takes_the_except_branch(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\n"
        "try:\n    from triton.language.extra.nosuchbackend.libdevice import tanh\n"
        "except ModuleNotFoundError:\n    from triton.language.extra.cuda.libdevice import tanh\n\n"
        "@triton.jit\ndef k(x):\n    tl.store(x, tanh(tl.load(x)))\n"
    )
    module = parse_triton(tmp_path / "k.py", kernel="k", params={"x": P})
    assert "tanh" in print_module(module)
    assert read_source(tmp_path / "k.py").decisions == [
        f"{tmp_path}/k.py:3: a try import fails (ModuleNotFoundError: not in Triton {TRITON}): the except branch"
    ]


def test_a_sibling_helper_uses_the_names_of_its_own_module() -> None:
    """`from normlib.ops.utils import gelu_tanh_approx`: the helper's `tanh` is the one its own file
    binds (here a module constant the kernel's file does not have)."""
    module = parse_triton(
        LIBS / "normlib" / "ops" / "gelu.py",
        kernel="gelu_kernel",
        params={"Y_ptr": P, "X_ptr": P, "n": I32},
        constexprs={"BLOCK_SIZE": 32},
    )
    assert "tanh" in print_module(module)


def test_a_kernel_re_exported_by_its_package() -> None:
    """`normlib/__init__.py`: `from .ops.rms_norm import _rms_norm_forward_kernel as rms_norm_kernel`."""
    module = parse_triton(
        LIBS / "normlib" / "__init__.py", kernel="rms_norm_kernel", params=RMS_PARAMS, constexprs={"BLOCK_SIZE": 64}
    )
    assert module.functions[-1].name == "rms_norm_kernel"  # the name it is asked by
    assert module.functions[-1].span.file.endswith("rms_norm.py")


def _rms_reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def test_the_liger_style_kernel_runs_from_its_package() -> None:
    task = Task(
        source=LIBS / "normlib" / "__init__.py",
        kernel="rms_norm_kernel",
        reference=_rms_reference,
        inputs={"x": "f32[r, d]", "w": "f32[d]"},
        outputs={"y": "f32[r, d]"},
        bindings={
            "Y_ptr": "y",
            "X_ptr": "x",
            "W_ptr": "w",
            "stride": "d",
            "n_cols": "d",
            "eps": ScalarArg(1e-6),
            "BLOCK_SIZE": "next_pow2(d)",
        },
        symbols=["r", "d"],
        instances=[{"r": 3, "d": 50}, {"r": 2, "d": 129}],
        grid=["r"],
        block=[1],
    )
    assert run_task(task, seeds=1, write_replay=False).ok


def _geglu_reference(e: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(e, approximate="tanh") * g


@needs_triton
def test_the_unsloth_style_kernel_made_by_calling_triton_jit_runs() -> None:
    """`actlib/kernels/geglu.py`: `triton_tanh`, `triton_cast` from `.utils` and `..kernels.utils` (chosen
    there by the Triton version and the device type), the kernel made by `triton.jit(f)`, re-exported."""
    task = Task(
        source=LIBS / "actlib" / "kernels" / "__init__.py",
        kernel="geglu_approx_forward_kernel",
        reference=_geglu_reference,
        inputs={"e": "f32[n]", "g": "f32[n]"},
        outputs={"h": "f32[n]"},
        bindings={"e": "e", "g": "g", "h": "h", "n_elements": "n", "BLOCK_SIZE": 64},
        symbols=["n"],
        instances=[{"n": 50}, {"n": 129}],
        grid=["cdiv(n, 64)"],
        block=[1],
    )
    assert run_task(task, seeds=1, write_replay=False).ok


def test_a_name_only_one_undecided_branch_binds_is_an_error_where_used() -> None:
    with pytest.raises(LarkcError, match="name libdevice is bound differently by `DEVICE_TYPE == 'xpu'`"):
        parse_triton(
            text="import triton\nimport triton.language as tl\nfrom .device_type import DEVICE_TYPE\n"
            "if DEVICE_TYPE == 'xpu':\n    pass\nelse:\n    from triton.language.extra import libdevice\n"
            "@triton.jit\ndef k(x):\n    tl.store(x, libdevice.tanh(tl.load(x)))\n",
            file="k.py",
            kernel="k",
            params={"x": P},
        )


def _gelu_and_mul_reference(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[1] // 2
    return torch.nn.functional.gelu(x[:, :n], approximate="tanh") * x[:, n:]


def test_python_math_on_compile_time_values() -> None:
    """LightLLM's `_kAlpha = triton.language.constexpr(math.sqrt(2.0 / math.pi))`: Python's math module
    computes module constants (in double precision, as at import)."""
    task = Task(
        source=LIBS / "gelu_and_mul.py",
        kernel="_gelu_and_mul_kernel",
        reference=_gelu_and_mul_reference,
        inputs={"x": "f32[m, 2 * n]"},
        outputs={"y": "f32[m, n]"},
        bindings={
            "input_ptr": "x",
            "output_ptr": "y",
            "stride_m": "2 * n",
            "size_m": "m",
            "size_n": "n",
            "BLOCK_M": 8,
            "BLOCK_N": 16,
        },
        symbols=["m", "n"],
        instances=[{"m": 3, "n": 20}, {"m": 9, "n": 33}],
        grid=["cdiv(m, 8)", "cdiv(n, 16)"],
        block=[1],
    )
    assert run_task(task, seeds=1, write_replay=False).ok


def test_python_math_on_a_run_time_value_is_located() -> None:
    with pytest.raises(LarkcError, match=r"k.py:6:17: error: unsupported math.sqrt\(\) on run-time values"):
        parse_triton(
            text="import math\nimport triton\nimport triton.language as tl\n@triton.jit\n"
            "def k(x):\n    tl.store(x, math.sqrt(tl.load(x)))\n",
            file="k.py",
            kernel="k",
            params={"x": P},
        )


def test_a_kernel_defined_differently_under_an_undecided_test_is_located() -> None:
    with pytest.raises(LarkcError, match=r"^k.py:4:1: error: the kernel k is bound differently by `is_hip\(\)`"):
        parse_triton(
            text="import triton\nimport triton.language as tl\nfrom .utils import is_hip\nif is_hip():\n"
            "    @triton.jit\n    def k(x):\n        tl.store(x, 1.0)\nelse:\n"
            "    @triton.jit\n    def k(x):\n        tl.store(x, 2.0)\n",
            file="k.py",
            kernel="k",
            params={"x": P},
        )


@needs_triton
@pytest.mark.parametrize(
    ("test", "expected"),
    [
        # packaging's semantics: trailing zeros are equal, a pre-release is before its release
        (f"Version(triton.__version__) < Version('{TRITON}.0')", "False"),
        (f"Version(triton.__version__) == Version('{TRITON}.0.0')", "True"),
        (f"Version(triton.__version__) > Version('{TRITON}rc1')", "True"),
        (f"version.parse(triton.__version__) >= version.parse('{TRITON}.post1')", "False"),
        # not a version packaging parses, and a `Version` that is not packaging's: undecided
        ("Version(triton.__version__) < Version('3.x')", None),
        ("MyVersion(triton.__version__) < MyVersion('99.0')", None),
    ],
)
def test_version_comparisons_are_packagings(tmp_path: Path, test: str, expected: str | None) -> None:
    (tmp_path / "k.py").write_text(
        "import triton\nfrom packaging.version import Version\nfrom packaging import version\n"
        "def MyVersion(s):\n    return s\n"
        f"if {test}:\n    X = 1\nelse:\n    X = 2\n"
    )
    (decision,) = read_source(tmp_path / "k.py").decisions
    if expected is None:
        assert "cannot be decided" in decision
    else:
        assert f"is {expected} (Triton {TRITON} installed)" in decision


@needs_triton
def test_a_try_importing_a_name_the_module_lacks_takes_the_except_branch(tmp_path: Path) -> None:
    """`from triton.language import no_such_name` raises ImportError although the module exists (it took
    the try branch, and a wrong kernel was VERIFIED); names the body bound before it stay bound."""
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\n"
        "try:\n    from triton.language import max as red\n    from triton.language import sum as red, no_such_xyz\n"
        "except ImportError:\n    pass\n\n"
        "@triton.jit\ndef k(x):\n    tl.store(x, red(tl.load(x + tl.arange(0, 4)), axis=0))\n"
    )
    assert "sum" in print_module(parse_triton(tmp_path / "k.py", kernel="k", params={"x": P}))
    assert read_source(tmp_path / "k.py").decisions == [
        f"{tmp_path}/k.py:3: a try import fails (ImportError: not in Triton {TRITON}): the except branch"
    ]
    # a missing name raises ImportError, which `except ModuleNotFoundError` does not catch: undecided
    (tmp_path / "m.py").write_text(
        "import triton\ntry:\n    from triton.language import no_such_xyz\nexcept ModuleNotFoundError:\n    pass\n"
    )
    (decision,) = read_source(tmp_path / "m.py").decisions
    assert "cannot be decided" in decision


def test_module_names_rebound_other_than_by_assignment_have_no_value(tmp_path: Path) -> None:
    """A function that may rebind any module name (`globals().update`, `setattr(sys.modules[__name__],
    ...)`, called or not) leaves every name without a value; reading globals() does not; a walrus in a
    module-level comprehension binds the module's name."""
    head = "import sys\nimport triton\nBLOCK = 64\n"
    for body in ("def f(d):\n    globals().update(d)\n", "def f():\n    setattr(sys.modules[__name__], 'BLOCK', 2)\n"):
        (tmp_path / "k.py").write_text(head + body)
        src = read_source(tmp_path / "k.py")
        assert not src.constants and "possibly rebound" in src.opaque["BLOCK"].why
    (tmp_path / "k.py").write_text(head + "def f(n):\n    return globals()[n], globals().get(n), n in globals()\n")
    assert "BLOCK" in read_source(tmp_path / "k.py").constants
    (tmp_path / "k.py").write_text(head + "_ = [(BLOCK := b) for b in (1, 2)]\n")
    assert "assigned by" in read_source(tmp_path / "k.py").opaque["BLOCK"].why
