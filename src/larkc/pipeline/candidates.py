"""KernelBench-style candidates in the pipeline: the problem file's example inputs (from the reference
stage) handed to the derivation of the ``ModelNew`` task (:mod:`larkc.frontends.kernelbench`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from larkc.frontends.kernelbench import DerivedCandidate, ProblemInput, ProblemParam, derive_task, init_input_values
from larkc.provers.core import DEFAULT_MEMORY_BYTES
from larkc.tasks import Task

__all__ = ["CandidateResult", "candidate_task", "derive_candidate", "problem_inputs", "verify_many"]


def problem_inputs(reference: str | Path) -> tuple[list[ProblemInput], list[object]]:
    """What the problem file's ``get_inputs()`` returns, by reference parameter, and its
    ``get_init_inputs()`` (read as constants from the file; empty when it is not plain)."""
    inputs, init_args, _ = _problem(reference)
    return inputs, init_args


def _problem(reference: str | Path) -> tuple[list[ProblemInput], list[object], list[ProblemParam]]:
    """:func:`problem_inputs` and the parameters of the problem's ``Model`` (constructed as the reference
    stage constructs it), in creation order."""
    import torch

    from larkc.dtypes import scalar_type_of
    from larkc.errors import ReferenceError_
    from larkc.reference import load_reference

    loaded = load_reference(str(reference))
    if loaded.example_args is None:
        raise ReferenceError_(f"{reference} is no KernelBench-style problem file (no get_inputs())", loaded.span)
    names = [p.name for p in loaded.params if p.kind is not p.VAR_KEYWORD]
    out = []
    facts = loaded.input_facts or (None,) * len(loaded.example_args)
    for i, (v, f) in enumerate(zip(loaded.example_args, facts, strict=True)):
        positional = i < len(names) and loaded.params[i].kind is not loaded.params[i].VAR_POSITIONAL
        name = names[i] if positional else f"arg{i}"
        if isinstance(v, torch.Tensor):
            out.append(ProblemInput(name, tuple(int(d) for d in v.shape), str(scalar_type_of(v.dtype)), facts=f))
        else:
            out.append(ProblemInput(name, None, None, v))
    module = loaded.target
    params = (
        [
            ProblemParam(path, tuple(int(d) for d in p.shape), str(scalar_type_of(p.dtype)))
            for path, p in module.named_parameters()
        ]
        if isinstance(module, torch.nn.Module)
        else []
    )
    return out, list(init_input_values(Path(reference)) or []), params


def derive_candidate(
    model_new: str | Path, reference: str | Path, *, cuda_file: str | Path | None = None
) -> DerivedCandidate:
    """The task verifying the ``ModelNew`` of ``model_new`` against the problem file ``reference``, with
    the CUDA file written for it (``cuda_file``, by default in larkc's cache)."""
    problem, init_args, params = _problem(reference)
    from larkc.reference import trace_reference

    return derive_task(
        model_new, reference, problem, init_args=init_args, cuda_file=cuda_file, params=params, tracer=trace_reference
    )


def candidate_task(model_new: str | Path, reference: str | Path) -> Task:
    """The :class:`~larkc.tasks.Task` of a KernelBench ``ModelNew`` file against its problem file, for
    ``larkc.run``/``larkc.verify``/``larkc.emit``; raises a located :class:`~larkc.errors.LarkcError` for
    host code larkc cannot derive."""
    return derive_candidate(model_new, reference).task


# -- batch mode ------------------------------------------------------------------------------------

#: Bumped when what a cached result means changes (its JSON, or what the derivation gives).
_CACHE_FORMAT = 5  # 3: inputs obligation, counterexample tensor in the report; 4: verified scope; 5: launch


@dataclass(frozen=True)
class CandidateResult:
    """The outcome of verifying one candidate: ``status`` is ``VERIFIED``, ``FAILED``, ``UNKNOWN`` or
    ``ERROR`` (the candidate could not be derived or read: ``error`` holds the located message);
    ``exit_code`` 0, 1, 4 or 2 accordingly; ``refuted_by`` says what found a failure: ``verify`` (a
    refuted obligation) or ``run`` (where the provers left the verdict unknown, the simulator's
    diagnosis, as ``larkc run`` reports it: a race, an out-of-bounds access, outputs differing beyond the
    tolerances, ...); ``kinds`` the failure words; ``report`` the verify report's JSON; ``cached``
    whether it came from the result cache; ``verified_scope`` is the report's for a VERIFIED candidate
    (``"all sizes"`` or ``"bounded"``), and under ``all_sizes`` a bounded one has exit code 4."""

    candidate: str
    status: str
    exit_code: int
    seconds: float
    report: dict[str, Any] | None = None
    error: str | None = None
    cached: bool = False
    refuted_by: str | None = None
    kinds: tuple[str, ...] = ()
    verified_scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "status": self.status,
            "verified_scope": self.verified_scope,
            "exit_code": self.exit_code,
            "refuted_by": self.refuted_by,
            "kinds": list(self.kinds),
            "seconds": round(self.seconds, 3),
            "cached": self.cached,
            "error": self.error,
            "report": self.report,
        }


def _code_stamp() -> str:
    """larkc's own sources as of now (names and modification times): a result that other sources of larkc
    (an edited development checkout) computed is not reused."""
    package = Path(__file__).resolve().parents[1]
    return str(sorted((str(p.relative_to(package)), p.stat().st_mtime_ns) for p in package.rglob("*.py")))


def _cache_key(model_new: Path, reference: Path, seconds: float, all_sizes: bool, memory_bytes: int) -> str:
    import importlib.metadata

    try:
        version = importlib.metadata.version("larkc")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    stamp = _code_stamp()
    h = hashlib.sha256()
    for part in (
        f"{_CACHE_FORMAT}\0{version}\0{stamp}\0{seconds}\0{all_sizes}\0{memory_bytes}\0".encode(),
        model_new.read_bytes(),
        b"\0",
        reference.read_bytes(),
    ):
        h.update(part)
    return h.hexdigest()


def verify_many(
    candidates: Sequence[str | Path],
    reference: str | Path,
    *,
    seconds: float = 60.0,
    cache_dir: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    all_sizes: bool = False,
    memory_bytes: int = DEFAULT_MEMORY_BYTES,
) -> Iterator[CandidateResult]:
    """Verify each ``ModelNew`` file of ``candidates`` against the problem file ``reference`` in this
    process, yielding one :class:`CandidateResult` per candidate as it finishes.

    Results are cached by the content of the candidate and of the problem file (and larkc's version,
    ``seconds``, the budget per obligation, and ``memory_bytes``, that of one instance's run) under
    ``cache_dir`` (default: larkc's cache folder,
    ``$LARKC_CACHE_DIR`` or ``~/.cache/larkc``); ``cache_dir=""`` disables it.
    A candidate larkc cannot derive is an ``ERROR`` result, not an exception. ``all_sizes``: a candidate
    VERIFIED only at the shape instances (``verified_scope`` ``"bounded"``) has exit code 4, as for
    ``larkc verify --all-sizes``.
    """
    from larkc.errors import LarkcError
    from larkc.frontends.kernelbench import cache_root
    from larkc.pipeline.run import run_task
    from larkc.pipeline.verify import verify_task
    from larkc.provers import Budget, Verdict

    ref = Path(reference)
    folder = None if cache_dir == "" else (Path(cache_dir) if cache_dir is not None else cache_root() / "results")
    for c in candidates:
        path = Path(c)
        start = time.monotonic()
        key = (
            _cache_key(path, ref, seconds, all_sizes, memory_bytes)
            if folder is not None and path.is_file() and ref.is_file()
            else None
        )
        hit = folder / f"{key}.json" if folder is not None and key is not None else None
        if hit is not None and hit.is_file():
            data = json.loads(hit.read_text(encoding="utf-8"))
            yield CandidateResult(
                str(c),
                data["status"],
                data["exit_code"],
                data["seconds"],
                data["report"],
                data["error"],
                cached=True,
                refuted_by=data["refuted_by"],
                kinds=tuple(data["kinds"]),
                verified_scope=data["verified_scope"],
            )
            continue
        try:
            task = candidate_task(path, ref)
            if progress is not None:
                progress(f"{c}: verifying {', '.join(x.kernel for x in task.launches)}")
            budget = Budget(seconds=seconds, memory_bytes=memory_bytes)
            report = dataclasses.replace(verify_task(task, budget=budget), all_sizes=all_sizes)
            status, code, by, kinds = report.verdict.value, report.exit_code, "verify", sorted(report.kinds())
            if report.verdict is Verdict.UNKNOWN:  # what the provers leave open, the simulator may refute
                run = run_task(task, write_replay=False, memory_bytes=memory_bytes)
                if not run.ok:
                    status, code, by, kinds = Verdict.FAILED.value, 1, "run", sorted(run.kinds())
            result = CandidateResult(
                str(c),
                status,
                code,
                time.monotonic() - start,
                report.to_json(),
                refuted_by=by if status == Verdict.FAILED.value else None,
                kinds=tuple(kinds),
                verified_scope=report.verified_scope,
            )
        except LarkcError as e:
            result = CandidateResult(str(c), "ERROR", 2, time.monotonic() - start, error=e.render())
        if hit is not None:
            hit.parent.mkdir(parents=True, exist_ok=True)
            hit.write_text(json.dumps(result.to_json()), encoding="utf-8")
        yield result
