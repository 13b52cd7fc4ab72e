"""The command's own promises (issue 19, items 11, 12 and 14), tried with hostile input.

* Exit 0 means a printed VERIFIED: code of the user's that calls ``sys.exit`` (a task file, a helper it
  imports, a reference) is bad input, exit 2 with its location, on every command and in the Python API.
* Tasks are validated, never silently reinterpreted: a binding naming no kernel parameter, an empty or
  negative dimension, a constraint that is a number, a tolerance of the wrong type, sign or name, a
  budget that is not a positive number: each a located exit 2. ``f32[]`` is a 0-d tensor.
* Results are never lost: output paths are checked before the work; a write that fails after it prints
  the verdict first and exits 2; internal errors have one shape.
"""

from __future__ import annotations

import pathlib
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.errors import LarkcError

# A kernel written for these tests: one thread per element, guarded by the element count.
_KERNEL = """\
// Multiplies every element by a constant factor, one element per thread.
__global__ void scale_kernel(const float* __restrict__ src, float* __restrict__ dst, float factor, int count) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < count) dst[idx] = src[idx] * factor;
}
"""


def _task_folder(
    tmp_path: Path,
    *,
    prelude: str = "",
    reference: str = "return src * 3.0",
    src: str = '"f32[n]"',
    dst: str = '"f32[n]"',
    bindings: str = '"factor": 3.0, "count": "n"',
    constraints: str = '"n <= 4096"',
    extra: str = "",
) -> Path:
    folder = tmp_path / "task"
    folder.mkdir(exist_ok=True)
    (folder / "scale.cu").write_text(_KERNEL)
    lines = [
        "from larkc import Task",
        prelude,
        "",
        "",
        "def reference(src):",
        f"    {reference}",
        "",
        "",
        "task = Task(",
        '    source="scale.cu",',
        '    kernel="scale_kernel",',
        "    reference=reference,",
        f'    inputs={{"src": {src}}},',
        f'    outputs={{"dst": {dst}}},',
        f"    bindings={{{bindings}}},",
        '    symbols=["n"],',
        f"    constraints=[{constraints}],",
        '    instances=[{"n": 5}, {"n": 300}],',
        '    grid=["cdiv(n, 128)"],',
        f"    block=[128],{extra}",
        ")",
    ]
    (folder / "task.py").write_text("\n".join(lines) + "\n")
    return folder


def _line_of(path: Path, text: str) -> int:
    return next(k for k, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# 11. Exit 0 means a printed VERIFIED ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["verify", "run", "parse", "trace", "emit"])
def test_task_file_calling_sys_exit_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    folder = _task_folder(tmp_path, prelude="import sys\nsys.exit(0)")
    extra = ["-o", str(tmp_path / "lean")] if command == "emit" else []
    assert main([command, str(folder), *extra]) == 2
    err = capsys.readouterr().err
    line = _line_of(folder / "task.py", "sys.exit(0)")
    assert f"task.py:{line}:1: error: task file called sys.exit(0)" in err


def test_helper_module_calling_sys_exit_is_located_at_its_statement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prelude = "import pathlib, sys\nsys.path.insert(0, str(pathlib.Path(__file__).parent))\nimport shapes_helper"
    folder = _task_folder(tmp_path, prelude=prelude)
    (folder / "shapes_helper.py").write_text("import sys\n\nif True:\n    sys.exit()\n")
    assert main(["verify", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "shapes_helper.py:4:5: error: task file called sys.exit()" in err


def test_reference_calling_sys_exit_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path, prelude="import sys", reference="sys.exit(0)")
    assert main(["verify", str(folder)]) == 2
    err = capsys.readouterr().err
    line = _line_of(folder / "task.py", "sys.exit(0)")
    assert f"task.py:{line}:" in err
    assert "called sys.exit(0)" in err


def test_reference_file_calling_sys_exit_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path)
    (folder / "model.py").write_text("import sys\nimport torch\n\nsys.exit(3)\n")
    text = (folder / "task.py").read_text().replace("reference=reference,", 'reference="model.py",')
    (folder / "task.py").write_text(text)
    assert main(["verify", str(folder)]) == 2
    assert "model.py:4:1: error: loading the reference called sys.exit(3)" in capsys.readouterr().err


def test_api_raises_larkc_error_not_system_exit(tmp_path: Path) -> None:
    folder = _task_folder(tmp_path, prelude="import sys\nsys.exit(0)")
    with pytest.raises(LarkcError, match=r"called sys\.exit\(0\)"):
        larkc.verify(folder)
    with pytest.raises(LarkcError, match=r"called sys\.exit\(0\)"):
        larkc.load_task(folder)


# 12. Tasks are validated -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "located", "message"),
    [
        ({"bindings": '"factor": 3.0, "cuont": "n"'}, '"cuont"', "binding 'cuont' names no parameter of kernel"),
        ({"src": '"f32[n,,]"'}, '"src"', "an empty dimension"),
        ({"src": '"f32[-5]"'}, '"src"', "dimension -5 is negative"),
        ({"src": '"f32[n - 10]"'}, '"src"', "dimension (n - 10) of tensor 'src' is negative (-5)"),
        ({"src": '"f32[n < 4]"'}, '"src"', "is a condition, not a size"),
        ({"constraints": '"n + 1"'}, '"n + 1"', "is a number, not a condition"),
        ({"constraints": "4096"}, "4096", "is not a condition"),
        ({"extra": '\n    tolerance={"atol": -1.0},'}, '"atol"', "tolerance atol must be a finite number >= 0"),
        ({"extra": '\n    tolerance={"atol": "1e-3"},'}, '"atol"', "tolerance atol must be a number"),
        ({"extra": '\n    tolerance={"atol": float("nan")},'}, '"atol"', "finite number"),
        ({"extra": '\n    tolerance={"rtoll": 1e-3},'}, '"rtoll"', "did you mean 'rtol'?"),
    ],
)
def test_bad_task_fields_are_located_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, str], located: str, message: str
) -> None:
    folder = _task_folder(tmp_path, **changes)
    assert main(["verify", str(folder)]) == 2
    err = capsys.readouterr().err
    line = _line_of(folder / "task.py", located)
    col = (folder / "task.py").read_text().splitlines()[line - 1].index(located) + 1
    assert f"task.py:{line}:{col}: error:" in err
    assert message in err
    assert "internal error" not in err


def test_binding_typo_suggests_the_parameter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path, bindings='"factor": 3.0, "cuont": "n"')
    assert main(["run", str(folder)]) == 2
    assert "(did you mean 'count'?)" in capsys.readouterr().err


def test_zero_dimensional_tensor_spec(tmp_path: Path) -> None:
    folder = _task_folder(
        tmp_path, src='"f32[]"', dst='"f32[]"', bindings='"factor": 3.0, "count": 1', constraints='"n <= 4096"'
    )
    assert larkc.load_task(folder).inputs["src"].shape == ()
    assert main(["run", str(folder)]) == 0
    assert main(["verify", str(folder), "--seconds", "60"]) == 0


@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf"])
def test_seconds_must_be_positive_and_finite(tmp_path: Path, capsys: pytest.CaptureFixture[str], seconds: str) -> None:
    folder = _task_folder(tmp_path)
    assert main(["verify", str(folder), "--seconds", seconds]) == 2
    assert "--seconds" in capsys.readouterr().err


# 14. Results are never lost --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--json", "{tmp}/missing/report.json"], "no such folder"),
        (["--json", "{tmp}"], "is a folder, not a file"),
        (["--replay-dir", "{tmp}/task/scale.cu"], "is not a folder"),
    ],
)
def test_output_paths_are_checked_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    folder = _task_folder(tmp_path, reference="raise AssertionError('the reference ran')")
    given = [o.replace("{tmp}", str(tmp_path)) for o in option]
    assert main(["verify", str(folder), *given]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "the reference ran" not in err  # refused before any work


def test_emit_output_is_checked_before_the_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path)
    assert main(["emit", str(folder), "-o", str(folder / "scale.cu")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_failed_json_write_prints_the_verdict_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _task_folder(tmp_path)
    target = tmp_path / "report.json"
    real_write = pathlib.Path.write_text

    def full_disk(self: Path, *args: object, **kwargs: object) -> int:
        if self == target:
            raise OSError(28, "No space left on device")
        return real_write(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pathlib.Path, "write_text", full_disk)
    assert main(["verify", str(folder), "--json", str(target)]) == 2
    out, err = capsys.readouterr()
    assert "VERIFIED" in out
    assert f"--json {target}: cannot write: No space left on device" in err


def test_internal_errors_have_one_shape(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import larkc.cli.parse as parse_command

    def broken(args: object) -> int:
        raise RuntimeError("first line\nsecond line")

    monkeypatch.delenv("LARKC_DEBUG", raising=False)
    monkeypatch.setattr(parse_command, "_command", broken)
    assert main(["parse", "anything.cu"]) == 3
    err = capsys.readouterr().err
    expected = "error: internal error: RuntimeError: first line second line (a larkc bug; LARKC_DEBUG=1 shows where)"
    assert err == expected + "\n"


# 13. Bounded memory ----------------------------------------------------------------------------------


def test_forgotten_cdiv_witness_is_not_simulated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # grid=["n"] with 1024 threads a block: the overflow witness n = 2^21 + 1 is 2^31 threads, which the
    # simulator would hold as vectors of 2^31 lanes (16 GiB each); the solver's model is the evidence
    folder = _task_folder(tmp_path, constraints='"n <= 1073741824"')
    text = (folder / "task.py").read_text().replace('grid=["cdiv(n, 128)"]', 'grid=["n"]')
    (folder / "task.py").write_text(text.replace("block=[128]", "block=[1024]"))
    assert main(["verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "FAILED: overflow" in out
    assert "evidence: a solver's model" in out


def test_huge_instance_is_refused_before_it_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path, constraints='"n <= 2000000000"')
    text = (folder / "task.py").read_text().replace('{"n": 300}', '{"n": 1000000000}')
    (folder / "task.py").write_text(text)
    assert main(["run", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "instance n=1000000000: simulation of this instance would need about" in err
    assert "over the memory budget of 4 GiB (--memory): not started" in err
    assert main(["verify", str(folder), "--seconds", "30"]) == 4
    out = capsys.readouterr().out
    assert "symbolic execution of this instance would need about" in out


def test_memory_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path)
    assert main(["run", str(folder), "--memory", "16K"]) == 2
    assert "over the memory budget of 16 KiB" in capsys.readouterr().err
    assert main(["run", str(folder), "--memory=-3G"]) == 2
    assert "--memory -3G: expected a positive amount" in capsys.readouterr().err


def test_shared_memory_beyond_any_gpu_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _task_folder(tmp_path)
    (folder / "scale.cu").write_text(
        "__global__ void scale_kernel(const float* src, float* dst, float factor, int count) {\n"
        "  __shared__ float stage[1 << 28];\n"
        "  int idx = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (idx < count) stage[threadIdx.x] = src[idx];\n"
        "  __syncthreads();\n"
        "  if (idx < count) dst[idx] = stage[threadIdx.x] * factor;\n"
        "}\n"
    )
    assert main(["run", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "scale.cu:2:" in err
    assert "1073741824 bytes of static __shared__ memory, more than the 49152 bytes" in err


def test_triton_block_beyond_triton_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kern.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def scale_kernel(src, dst, factor, count, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < count\n"
        "    tl.store(dst + offs, tl.load(src + offs, mask=mask) * factor, mask=mask)\n"
    )
    (tmp_path / "task.py").write_text(
        "from larkc import Task\n\n"
        "task = Task(source='kern.py', kernel='scale_kernel', reference=lambda src: src * 3.0,\n"
        "    inputs={'src': 'f32[n]'}, outputs={'dst': 'f32[n]'},\n"
        "    bindings={'factor': 3.0, 'count': 'n', 'BLOCK': 1 << 26}, symbols=['n'],\n"
        "    constraints=['n <= 4096'], instances=[{'n': 5}], grid=['cdiv(n, 67108864)'], block=[1])\n"
    )
    assert main(["run", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "kern.py:7:" in err
    assert "end - start must be less than or equal to TRITON_MAX_TENSOR_NUMEL = 1048576" in err
