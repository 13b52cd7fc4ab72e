"""``#include`` as nvcc resolves it: include directories, search order, known headers, located errors.

The headers under ``include_cases/`` are laid out like a serving library's: ``kernels/activation.cu``
includes a configuration header next to it and the library's headers from ``first/`` and ``second/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import larkc
from larkc.errors import LarkcError
from larkc.frontends import kernel_names, parse_cuda, parse_task
from larkc.frontends.cuda.preprocess import preprocess, preprocess_file
from larkc.tasks import Task, command_line_task, load_task

CASES = Path(__file__).parent / "include_cases"
KERNEL = CASES / "kernels" / "activation.cu"
FIRST = CASES / "first"
SECOND = CASES / "second"
DIRS = (FIRST, SECOND)

#: Headers larkc models itself: skipped by name, without an include directory holding them.
KNOWN_HEADERS = (
    "cuda.h",
    "cuda_runtime.h",
    "device_launch_parameters.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cub/cub.cuh",
    "cub/block/block_reduce.cuh",
    "c10/cuda/CUDAException.h",
    "c10/util/Half.h",
    "ATen/cuda/CUDAContext.h",
    "torch/extension.h",
    "cstdint",
    "stdint.h",
    "cmath",
    "math.h",
    "type_traits",
    "limits",
    "algorithm",
    "cstdio",
    "iostream",
    "vector",
)


def error_text(source: str, file: Path, dirs: tuple[Path, ...] = DIRS) -> str:
    with pytest.raises(LarkcError) as info:
        preprocess(source, str(file), include_dirs=dirs)
    return str(info.value)


def test_quoted_includes_look_next_to_the_including_file_first() -> None:
    result = preprocess_file(KERNEL, include_dirs=DIRS)
    assert result.macros["DEMO_SCALE"].replacement == "2.0f"  # kernels/local_config.h, not first/'s
    assert Path(result.macros["DEMO_SCALE"].span.file) == KERNEL.parent / "local_config.h"
    # "compat.h" is included by first/demo/activation.cuh: found next to that header
    assert Path(result.macros["DEMO_LDG"].span.file) == FIRST / "demo" / "compat.h"


def test_angle_includes_search_the_include_directories_in_order() -> None:
    result = preprocess_file(KERNEL, include_dirs=DIRS)
    files = {Path(line.file) for line in result.source_map.lines}
    assert FIRST / "demo" / "activation.cuh" in files  # second/ has one too (an #error): never read
    assert SECOND / "demo" / "activation.cuh" not in files
    assert Path(result.macros["DEMO_EXTRA"].span.file) == SECOND / "demo" / "extra.cuh"
    # In the other order, second/'s copy is found first.
    assert "second/demo/activation.cuh was read" in error_text(KERNEL.read_text(), KERNEL, (SECOND, FIRST))


def test_quoted_includes_fall_back_to_the_include_directories() -> None:
    result = preprocess('#include "demo/extra.cuh"\n', str(KERNEL), include_dirs=DIRS)
    assert result.macros["DEMO_EXTRA"].replacement == "7"


def test_angle_includes_do_not_look_next_to_the_including_file() -> None:
    assert error_text("#include <local_config.h>\n", KERNEL, (SECOND,)) == (
        f"{KERNEL}:1:10: error: include file not found: <local_config.h> (searched: {SECOND})"
    )


def test_a_missing_header_is_a_located_error_naming_the_directories_searched() -> None:
    text = KERNEL.read_text()
    line = text.splitlines().index("#include <demo/activation.cuh>") + 1
    assert error_text(text, KERNEL, ()) == (
        f"{KERNEL}:{line}:10: error: include file not found: <demo/activation.cuh>"
        " (no include directories: add one with -I or include_dirs)"
    )
    assert error_text("int a;\n#include <demo/missing.cuh>\n", KERNEL) == (
        f"{KERNEL}:2:10: error: include file not found: <demo/missing.cuh> (searched: {FIRST}, {SECOND})"
    )
    assert error_text('#include "missing.h"\n', KERNEL) == (
        f'{KERNEL}:1:10: error: include file not found: "missing.h" (searched: {KERNEL.parent}, {FIRST}, {SECOND})'
    )


def test_a_header_missing_from_a_header_is_located_in_that_header(tmp_path: Path) -> None:
    header = tmp_path / "outer.cuh"
    header.write_text("#pragma once\n\n#include <inner/missing.cuh>\n", encoding="utf-8")
    assert error_text("#include <outer.cuh>\n", KERNEL, (tmp_path,)) == (
        f"{header}:3:10: error: include file not found: <inner/missing.cuh> (searched: {tmp_path})"
    )


def test_the_rendered_error_quotes_the_include_line() -> None:
    with pytest.raises(LarkcError) as info:
        preprocess("#include <missing.h>\n", "kernel.cu")
    assert info.value.render().splitlines()[1:] == ["    1 | #include <missing.h>", "      |          ^~~~~~~~~~~"]


@pytest.mark.parametrize("header", KNOWN_HEADERS)
def test_headers_larkc_models_are_skipped_by_name(header: str) -> None:
    for spelled in (f"<{header}>", f'"{header}"'):
        result = preprocess(f"#include {spelled}\nint x;\n", "kernel.cu")
        assert result.system_includes == (header,)
        assert result.text == "\nint x;\n"


def test_an_include_directory_that_does_not_exist_is_an_error() -> None:
    assert error_text("int a;\n", KERNEL, (FIRST, CASES / "nope")) == (
        f"error: include directory not found: {CASES / 'nope'}"
    )


def test_parse_cuda_takes_include_dirs() -> None:
    module = parse_cuda(KERNEL, kernel="scaled_silu_kernel", include_dirs=[str(FIRST), SECOND])
    assert [f.name for f in module.functions] == ["demo::silu", "demo::scaled_silu_kernel"]
    silu = module.function("demo::silu")
    assert silu is not None and Path(silu.span.file) == FIRST / "demo" / "activation.cuh"
    assert kernel_names(KERNEL, include_dirs=DIRS) == ["demo::scaled_silu_kernel"]
    with pytest.raises(LarkcError, match=r"include file not found: <demo/activation.cuh>"):
        parse_cuda(KERNEL, kernel="scaled_silu_kernel")


def test_task_include_dirs_are_resolved_against_the_task_file() -> None:
    task = load_task(CASES / "kernels")
    assert task.include_dirs == (CASES / "kernels" / "../first", CASES / "kernels" / "../second")
    assert [f.name for f in parse_task(task).kernels] == ["demo::scaled_silu_kernel"]


def test_task_include_dirs_must_be_a_list() -> None:
    with pytest.raises(LarkcError, match="include_dirs must be a list of directories"):
        Task(source=KERNEL, kernel="k", grid=[1], block=[1], include_dirs="include")


def test_a_task_with_include_dirs_runs_end_to_end() -> None:
    report = larkc.run(CASES / "kernels")
    assert report.ok, report.render()
    assert [r.shape for r in report.instances] == [{"n": 1}, {"n": 300}]


def test_has_include_searches_as_include_does() -> None:
    source = (
        "#if __has_include(<demo/extra.cuh>)\nint lib;\n#endif\n"
        '#if __has_include("local_config.h")\nint local;\n#endif\n'
        "#if __has_include(<cub/cub.cuh>)\nint known;\n#endif\n"
    )
    assert preprocess(source, str(KERNEL), include_dirs=DIRS).text.split() == [
        "int",
        "lib;",
        "int",
        "local;",
        "int",
        "known;",
    ]
    assert preprocess(source, str(KERNEL)).text.split() == ["int", "local;", "int", "known;"]


def test_a_command_line_task_takes_include_dirs() -> None:
    task = command_line_task(
        KERNEL, "demo::scaled_silu_kernel", grid=["2"], block=["64"], buffers=["x=f32[100]", "out=f32[100]"],
        scalars=["n=100"], include_dirs=[str(FIRST), str(SECOND)],
    )  # fmt: skip
    assert task.include_dirs == DIRS
    report = larkc.run(task)
    assert report.ok, report.render()
