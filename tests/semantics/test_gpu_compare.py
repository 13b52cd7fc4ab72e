"""``scripts/gpu_compare.py`` without a GPU: the harnesses it generates, and that they compile.

The comparison itself needs a GPU (``gpu`` tier); here the plain tier checks the generated source and
the instance files, and the ``nvcc`` tier compiles a few harnesses with ``nvcc -c``.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
from sim_helpers import EXAMPLES, ROOT

from larkc.frontends import parse_task
from larkc.pipeline.inputs import kernel_function, make_inputs
from larkc.tasks import load_task


def load_script() -> ModuleType:
    path = ROOT / "scripts" / "gpu_compare.py"
    spec = importlib.util.spec_from_file_location("larkc_gpu_compare", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["larkc_gpu_compare"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script()


def test_harness_names_every_parameter_and_launches_the_instantiated_kernel(script: ModuleType) -> None:
    task = load_task(EXAMPLES / "row_sum_shared")
    kernel = kernel_function(task, parse_task(task))
    src = script.harness_source(task, kernel)
    assert f'#include "{task.source.resolve()}"' in src
    assert 'const char* const kNames[] = {"x", "out", "d"};' in src
    assert "const int kIsBuffer[] = {1, 1, 0};" in src
    assert "row_sum_shared<256><<<dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), shared>>>(" in src


def test_instance_files_hold_the_simulator_inputs(script: ModuleType, tmp_path: Path) -> None:
    task = load_task(EXAMPLES / "layer_norm")
    kernel = kernel_function(task, parse_task(task))
    env = task.shape_env(task.instances[1])
    script.write_instance(task, kernel, env, 7, tmp_path)
    manifest = (tmp_path / "manifest.txt").read_text().splitlines()
    grid, block, _ = task.launch.concrete(env)
    assert manifest[:3] == [
        f"grid {grid[0]} {grid[1]} {grid[2]}",
        f"block {block[0]} {block[1]} {block[2]}",
        "shared 0",
    ]
    assert [line.split()[1] for line in manifest[3:]] == [p.name for p in kernel.params]
    x = make_inputs(task, env, 7)["x"]
    raw = (tmp_path / "x.bin").read_bytes()
    assert torch.equal(torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(x.shape), x)
    assert any(line.startswith("buffer out ") and line.endswith(" empty") for line in manifest)
    assert "scalar eps f 1e-05" in manifest


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("example", ["vector_add_float4", "softmax_three_pass", "rms_norm_bf16"])
def test_harness_compiles_with_nvcc(script: ModuleType, example: str, tmp_path: Path) -> None:
    task = load_task(EXAMPLES / example)
    kernel = kernel_function(task, parse_task(task))
    try:
        obj, _ = script.build_harness(task, kernel, tmp_path, "sm_80", compile_only=True)
    except subprocess.TimeoutExpired:
        pytest.skip("nvcc timed out")
    assert obj.stat().st_size > 0
