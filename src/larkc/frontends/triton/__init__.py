"""The Triton frontend: ``@triton.jit`` kernels (read with Python's :mod:`ast`) to block-level kernel IR.

:func:`parse_triton` lowers one kernel specialised as Triton specialises it at launch: the values of its
``tl.constexpr`` parameters and the IR types of the others (a tensor argument is a ``ptr<global T>``, an
integer ``i32`` or ``i64``, a float ``f32``). Helpers it calls are inlined. The file is never imported
or run. ``docs/triton-support.md`` lists the supported constructs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from larkc.errors import LarkcError, Stage, TaskError
from larkc.frontends.triton.lower import KernelLowering
from larkc.frontends.triton.source import SourceFile, kernel_source, note_decisions, read_source
from larkc.frontends.triton.values import DTYPES, ConstValue, DType
from larkc.ir.nodes import Module
from larkc.ir.types import Type

__all__ = ["DType", "SourceFile", "constexpr_params", "parse_triton", "read_source", "triton_kernel_names"]


def triton_kernel_names(path: str | Path) -> list[str]:
    """The ``@triton.jit`` functions of a file, in order (kernels and helpers alike)."""
    return list(read_source(Path(path)).order)


def constexpr_params(src: SourceFile, kernel: str) -> list[str]:
    """The names of ``kernel``'s ``tl.constexpr`` parameters."""
    from larkc.frontends.triton.lower import _is_constexpr_annotation

    src = kernel_source(src, kernel)
    fn = src.functions[kernel].node
    return [a.arg for a in fn.args.args if _is_constexpr_annotation(a.annotation)]


def parse_triton(
    path: str | Path | None = None,
    *,
    text: str | None = None,
    file: str | None = None,
    kernel: str,
    params: Mapping[str, Type],
    constexprs: Mapping[str, ConstValue | str] | None = None,
) -> Module:
    """Lower the ``@triton.jit`` function ``kernel`` of a Python file (or ``text``) to an IR module.

    ``params`` gives the IR type of every run-time parameter, ``constexprs`` the value of every
    ``tl.constexpr`` parameter (a dtype may be given by name: ``"float16"``). Raises
    :class:`~larkc.errors.LarkcError` for anything unsupported, located in the file.
    """
    src = kernel_source(read_source(Path(path) if path is not None else None, text, file), kernel)
    note_decisions(src)
    if kernel not in src.functions:
        names = ", ".join(src.order) or "none"
        raise TaskError(f"no @triton.jit function {kernel} in {src.file} (functions: {names})")
    values: dict[str, ConstValue] = {}
    for k, v in (constexprs or {}).items():
        if isinstance(v, str) and v.removeprefix("tl.") in DTYPES:
            values[k] = DType(DTYPES[v.removeprefix("tl.")])
        else:
            values[k] = v
    lowering = KernelLowering(src, kernel, params, values)
    try:
        fn = lowering.function()
    except RecursionError:
        raise LarkcError(f"{src.file}: expression nested too deeply", stage=Stage.FRONTEND) from None
    from larkc.ir.verify import verify_module

    module = Module((*lowering.functions, fn), fn.span)  # combine functions first
    verify_module(module)
    return module
