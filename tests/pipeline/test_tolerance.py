"""The comparison's absolute term is relative to the output's own scale: an all-zero (or constant) kernel
does not pass for a problem whose true outputs are tiny (open issue 11, the tolerance cheat)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from larkc.pipeline.compare import compare_output
from larkc.pipeline.run import run_task
from larkc.tasks import Task, TensorSpec, load_task

CASE = Path(__file__).resolve().parent / "tiny_outputs" / "task.py"


def _task(kernel: str) -> Task:
    return dataclasses.replace(load_task(CASE), kernel=kernel)


def test_the_kernel_computing_tiny_outputs_passes(tmp_path: Path) -> None:
    report = run_task(_task("scale_tiny"), seeds=1, replay_dir=tmp_path)
    assert report.ok, report.render()


def test_an_all_zero_kernel_for_tiny_outputs_is_a_mismatch(tmp_path: Path) -> None:
    report = run_task(_task("zeros_instead"), seeds=1, replay_dir=tmp_path)
    assert not report.ok and report.kinds() == {"mismatch"}, report.render()


def _compare(got: torch.Tensor, ref: torch.Tensor) -> bool:
    task = _task("scale_tiny")
    spec = TensorSpec.of("f32[n]", "y")
    return compare_output(task, "y", spec, got, ref.to(torch.float32), ref, None).ok


def test_a_constant_output_fails_where_the_true_one_varies_at_a_small_scale() -> None:
    ref = (torch.linspace(1.0, 2.0, 64, dtype=torch.float64) * 1e-6).to(torch.float64)
    mean = torch.full((64,), float(ref.mean()), dtype=torch.float32)
    assert not _compare(mean, ref)
    assert _compare(ref.to(torch.float32), ref)  # the float32 rounding of the truth passes


def test_an_all_zero_reference_accepts_zeros_only_up_to_rounding() -> None:
    ref = torch.zeros(8, dtype=torch.float64)
    assert _compare(torch.zeros(8), ref)
    assert not _compare(torch.full((8,), 1e-6), ref)
