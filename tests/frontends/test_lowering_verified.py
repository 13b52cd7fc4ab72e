"""The CUDA lowering checks each function it produces with the IR verifier: ill-typed IR is a bug of
larkc, raised as an internal error (exit status 3 from the CLI), never passed on to later stages."""

from __future__ import annotations

from pathlib import Path

import pytest

from larkc.cli import EXIT_INTERNAL, EXIT_OK, main
from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.frontends.cuda.lower import IllTypedLowering
from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.ir.nodes import Expr
from larkc.ir.types import ScalarType

SOURCE = """\
__device__ float scale(int n) { return n * 0.5f; }

__global__ void k(float* out, int n) {
    out[0] = scale(n);
}
"""


def _no_conversions(self: Conversions, e: Expr, src: ScalarType, dst: ScalarType, span: object) -> Expr:
    return e  # a lowering bug: C's arithmetic conversions forgotten (an i32 operand of an f32 multiply)


def test_the_kernel_lowers_when_the_lowering_is_right(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE, encoding="utf-8")
    assert [f.name for f in parse_cuda(path).functions] == ["scale", "k"]


def test_ill_typed_lowering_is_an_internal_error_naming_the_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE, encoding="utf-8")
    monkeypatch.setattr(Conversions, "cast_scalar", _no_conversions)
    with pytest.raises(IllTypedLowering) as info:
        parse_cuda(path)
    assert not isinstance(info.value, LarkcError)
    assert info.value.function == "scale"
    assert "device function scale produced ill-typed IR" in str(info.value)
    assert info.value.error.span is not None and info.value.error.span.line == 1


def test_the_cli_reports_ill_typed_lowering_as_internal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE, encoding="utf-8")
    assert main(["parse", str(path)]) == EXIT_OK
    monkeypatch.setattr(Conversions, "cast_scalar", _no_conversions)
    capsys.readouterr()
    assert main(["parse", str(path)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error" in err and "ill-typed IR" in err and "scale" in err
