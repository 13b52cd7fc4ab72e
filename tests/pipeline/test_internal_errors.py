"""Internal errors have one shape (issue 19, item 14): a failure of larkc's own invariants is an
:class:`~larkc.errors.InternalError`, never the bad-input :class:`~larkc.errors.LarkcError`, so the CLI
exits 3 with one line and the Python API raises that type. Each site is provoked by breaking larkc
itself: the IR verifier rejecting what a frontend produced, the simulator failing on a statement, a spec
rule disagreeing with torch about a result's type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

import larkc
import larkc.frontends
from larkc.cli import EXIT_INTERNAL, main
from larkc.errors import NO_SPAN, InternalError, LarkcError, TypeCheckError
from larkc.reference.rules import infer_type
from larkc.reference.spec import SpecNode, SpecOp, ValueType
from larkc.semantics.interpreter import Interpreter
from larkc.tasks.shape_expr import ShapeNum
from larkc.tasks.task import Task

_SUFFIX = " (a larkc bug; LARKC_DEBUG=1 shows where)\n"

# A Triton kernel written for these tests: each program clamps one block of a vector into [lo, hi].
_TRITON_KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def clamp_kernel(x_ptr, y_ptr, lo, hi, n, BLOCK: tl.constexpr):
    start = tl.program_id(axis=0) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    in_range = offsets < n
    x = tl.load(x_ptr + offsets, mask=in_range)
    tl.store(y_ptr + offsets, tl.minimum(tl.maximum(x, lo), hi), mask=in_range)
"""

_TRITON_TASK = """\
import torch

from larkc import Task


def reference(x):
    return torch.clamp(x, -1.0, 1.0)


task = Task(
    source="clamp.py",
    kernel="clamp_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "lo": -1.0, "hi": 1.0, "n": "n", "BLOCK": 64},
    symbols=["n"],
    constraints=["n <= 1024"],
    instances=[{"n": 100}],
    grid=["cdiv(n, 64)"],
    block=[1],
)
"""

# A CUDA kernel written for these tests: a bias added to each row of a matrix, one thread per element.
_CUDA_KERNEL = """\
__global__ void add_row_bias(const float* in, const float* bias, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    out[i] = in[i] + bias[i % cols];
  }
}
"""

_CUDA_TASK = """\
from larkc import Task


def reference(inp, bias):
    return inp + bias


task = Task(
    source="bias.cu",
    kernel="add_row_bias",
    reference=reference,
    inputs={"inp": "f32[r, c]", "bias": "f32[c]"},
    outputs={"out": "f32[r, c]"},
    bindings={"in": "inp", "rows": "r", "cols": "c"},
    symbols=["r", "c"],
    constraints=["r <= 64", "c <= 64"],
    instances=[{"r": 3, "c": 5}],
    grid=["cdiv(r * c, 32)"],
    block=[32],
)
"""


def _folder(tmp_path: Path, source: str, kernel: str, task: str) -> Path:
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / source).write_text(kernel)
    (folder / "task.py").write_text(task)
    return folder


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LARKC_DEBUG", raising=False)


def _one_line(err: str, message: str) -> None:
    """``err`` is the one line every internal error has, and it says ``message``."""
    assert err.startswith("error: internal error: "), err
    assert err.endswith(_SUFFIX), err
    assert err.count("\n") == 1, err
    assert message in err, err


# 1. The IR verifier rejects what the Triton frontend produced ----------------------------------------


def _reject_ir(monkeypatch: pytest.MonkeyPatch, *, accepted: int = 0) -> None:
    """The IR verifier accepts the first ``accepted`` modules, then rejects every one."""
    calls = [0]

    def reject(module: object) -> None:
        calls[0] += 1
        if calls[0] > accepted:
            raise TypeCheckError("operands of min have types f32 and f64", NO_SPAN)

    monkeypatch.setattr(larkc.frontends, "verify_module", reject)


def test_ill_typed_triton_ir_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, "clamp.py", _TRITON_KERNEL, _TRITON_TASK)
    assert main(["parse", str(folder)]) == 0
    _reject_ir(monkeypatch)
    capsys.readouterr()
    assert main(["parse", str(folder)]) == EXIT_INTERNAL
    _one_line(capsys.readouterr().err, "the frontend produced ill-typed IR: error: operands of min have types f32")
    with pytest.raises(InternalError) as info:
        larkc.parse(folder)
    assert not isinstance(info.value, LarkcError)


def test_ill_typed_triton_ir_aborts_verify_rather_than_an_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the first lowering passes; the all-sizes prover lowers the kernel again per specialisation and
    # took a LarkcError there for a reason to say UNKNOWN: a bug of larkc is no verdict about the kernel
    folder = _folder(tmp_path, "clamp.py", _TRITON_KERNEL, _TRITON_TASK)
    _reject_ir(monkeypatch, accepted=1)
    assert main(["verify", str(folder)]) == EXIT_INTERNAL
    out, err = capsys.readouterr()
    assert "UNKNOWN" not in out
    _one_line(err, "the frontend produced ill-typed IR")


# 2. The simulator fails on a statement ----------------------------------------------------------------


def _break_store(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Interpreter, s: object, mask: object) -> None:
        raise IndexError("index 40 is out of bounds for dimension 0 with size 15")

    monkeypatch.setattr(Interpreter, "_store", broken)


def test_a_simulator_failure_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, "bias.cu", _CUDA_KERNEL, _CUDA_TASK)
    _break_store(monkeypatch)
    assert main(["run", str(folder)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    # located at the statement, said once although the store is nested in an `if`
    _one_line(err, "bias.cu:4:5: the simulator failed: IndexError: index 40 is out of bounds")
    assert err.count("the simulator failed") == 1
    with pytest.raises(InternalError) as info:
        larkc.run(folder)
    assert not isinstance(info.value, LarkcError)


def test_a_simulator_failure_aborts_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, "bias.cu", _CUDA_KERNEL, _CUDA_TASK)
    _break_store(monkeypatch)
    assert main(["verify", str(folder)]) == EXIT_INTERNAL
    out, err = capsys.readouterr()
    assert "VERIFIED" not in out and "UNKNOWN" not in out
    _one_line(err, "the simulator failed: IndexError")
    with pytest.raises(InternalError):
        larkc.verify(folder)


# 3. A spec rule disagrees with torch ------------------------------------------------------------------


def test_a_spec_rule_torch_contradicts_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, "bias.cu", _CUDA_KERNEL, _CUDA_TASK)

    def wrong_add(node: SpecNode, types: Mapping[str, ValueType]) -> ValueType:
        typ = infer_type(node, types)
        if node.op is SpecOp.ADD:  # a rule that forgets to broadcast: one dimension too many
            return dataclasses.replace(typ, shape=(*typ.shape, ShapeNum(2)))
        return typ

    monkeypatch.setattr("larkc.reference.trace.infer_type", wrong_add)
    assert main(["trace", str(folder)]) == EXIT_INTERNAL
    _one_line(capsys.readouterr().err, "the spec rule of aten.add")
    with pytest.raises(InternalError) as info:
        larkc.trace(folder)
    assert not isinstance(info.value, LarkcError)


# 4. Inside the user's code ----------------------------------------------------------------------------


def test_an_internal_error_inside_a_task_file_is_not_the_files_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a task file runs larkc's own code (Task's checks): what that raises as larkc's failure is not
    # "the task file raised ..." (bad input, exit 2)
    folder = _folder(tmp_path, "bias.cu", _CUDA_KERNEL, _CUDA_TASK)

    def broken(self: Task) -> None:
        raise InternalError("a Task check failed")

    monkeypatch.setattr(Task, "_check", broken)
    assert main(["parse", str(folder)]) == EXIT_INTERNAL
    _one_line(capsys.readouterr().err, "error: internal error: a Task check failed")
    with pytest.raises(InternalError):
        larkc.load_task(folder)


# The shape itself -------------------------------------------------------------------------------------


def test_larkc_debug_shows_the_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, "clamp.py", _TRITON_KERNEL, _TRITON_TASK)
    _reject_ir(monkeypatch)
    monkeypatch.setenv("LARKC_DEBUG", "1")
    with pytest.raises(InternalError):
        main(["parse", str(folder)])
