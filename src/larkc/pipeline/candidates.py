"""KernelBench-style candidates in the pipeline: the problem file's example inputs (from the reference
stage) handed to the derivation of the ``ModelNew`` task (:mod:`larkc.frontends.kernelbench`)."""

from __future__ import annotations

from pathlib import Path

from larkc.frontends.kernelbench import DerivedCandidate, ProblemInput, derive_task, init_input_values

__all__ = ["candidate_task", "problem_inputs"]


def problem_inputs(reference: str | Path) -> tuple[list[ProblemInput], list[object]]:
    """What the problem file's ``get_inputs()`` returns, by reference parameter, and its
    ``get_init_inputs()`` (read as constants from the file; empty when it is not plain)."""
    import torch

    from larkc.dtypes import scalar_type_of
    from larkc.reference import load_reference

    loaded = load_reference(str(reference))
    if loaded.example_args is None:
        from larkc.errors import ReferenceError_

        raise ReferenceError_(f"{reference} is no KernelBench-style problem file (no get_inputs())", loaded.span)
    names = [p.name for p in loaded.params if p.kind is not p.VAR_KEYWORD]
    out = []
    for i, v in enumerate(loaded.example_args):
        name = (
            names[i] if i < len(names) and loaded.params[i].kind is not loaded.params[i].VAR_POSITIONAL else f"arg{i}"
        )
        if isinstance(v, torch.Tensor):
            out.append(ProblemInput(name, tuple(int(d) for d in v.shape), str(scalar_type_of(v.dtype))))
        else:
            out.append(ProblemInput(name, None, None, v))
    return out, list(init_input_values(Path(reference)) or [])


def candidate_task(
    model_new: str | Path, reference: str | Path, *, cuda_file: str | Path | None = None
) -> DerivedCandidate:
    """The task verifying the ``ModelNew`` of ``model_new`` against the problem file ``reference``."""
    problem, init_args = problem_inputs(reference)
    return derive_task(model_new, reference, problem, init_args=init_args, cuda_file=cuda_file)
