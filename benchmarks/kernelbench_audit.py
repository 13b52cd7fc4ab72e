"""What ``larkc verify`` makes of real LLM-generated KernelBench candidates (issue 20's measurement).

The audit set is ``benchmarks/kernelbench-audit/manifest.json``: candidates (``ModelNew`` files with
``load_inline`` CUDA or ``@triton.jit`` kernels) that language models wrote in public generation runs,
each with its KernelBench problem file and the correctness label the source's own GPU evaluation gave
(``correct`` / ``incorrect`` / ``unknown``, and where the label came from). Only the manifest is in this
repository: the code is read out of local git snapshots of the source repositories
(``/work/.mirror/<owner>+<name>/repo``, as the session's ``fetch`` tool leaves them; the same mechanism
as ``benchmarks/cuda_audit.py``) with ``git show COMMIT:PATH`` into ``--root`` (default
``/work/audit/kernelbench``, outside the repository)::

    .venv/bin/python benchmarks/kernelbench_audit.py collect            # (re)build the manifest from the mirrors
    .venv/bin/python benchmarks/kernelbench_audit.py run [--sample 80] [--seed 1] [--timeout 120] [--seconds 20]
    .venv/bin/python benchmarks/kernelbench_audit.py report             # re-render the last run's results

``run`` materialises each (``model.py``, ``model_new.py``) pair into ``ROOT/work/<id>/`` and runs
``larkc verify model_new.py --reference model.py --json -`` on it in a subprocess (``nice -n 19``, one
candidate at a time, a wall-clock limit per candidate), with this checkout's ``src`` first on the path.
Each result is appended to ``ROOT/results.jsonl`` (a rerun skips candidates already there unless
``--fresh``); ``report`` prints, and ``--out`` writes: decided (VERIFIED / FAILED / UNKNOWN with the
reasons) against refused (exit 2, grouped by cause: the first line of the error, put in a category by
the regexes of :data:`CAUSES`), exit 3 with the message, timeouts, the median time per candidate, and
every candidate its source labelled incorrect that larkc VERIFIED (there must be none).
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_MANIFEST = HERE / "kernelbench-audit" / "manifest.json"
DEFAULT_ROOT = Path("/work/audit/kernelbench")
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_OUT = HERE / "results" / "kernelbench-audit.txt"
#: the results file of each stage under ``--root``
RESULTS = {"verify": "results.jsonl", "task": "results-task.jsonl"}


# ---- reading the mirrors


def git_dir(mirrors: Path, repository: str) -> Path:
    return mirrors / repository.replace("/", "+") / "repo"


def git(mirrors: Path, repository: str, *args: str) -> str:
    out = subprocess.run(
        ["git", f"--git-dir={git_dir(mirrors, repository)}", *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def show(mirrors: Path, repository: str, commit: str, path: str) -> str:
    return git(mirrors, repository, "show", f"{commit}:{path}")


def resolve_link(mirrors: Path, repository: str, commit: str, path: str) -> str:
    """The file a symbolic link at ``path`` names (some runs link their kernels to another run's), else ``path``."""
    mode = git(mirrors, repository, "ls-tree", commit, "--", path).split(maxsplit=1)[0]
    if mode != "120000":
        return path
    target = show(mirrors, repository, commit, path).strip()
    return os.path.normpath(str(Path(path).parent / target))


def kind_of(text: str) -> str | None:
    """``cuda`` for a ``load_inline`` candidate, ``triton`` for one launching ``@triton.jit`` kernels."""
    if "load_inline" in text and "__global__" in text:
        return "cuda"
    if "triton.jit" in text and "load_inline" not in text:
        return "triton"
    return None


# ---- collecting the audit set (where the candidates come from)

#: a runtime error of KernelBench's evaluation that says the kernel is wrong (not the evaluation machine)
KERNEL_FAULT = re.compile(
    r"illegal memory access|invalid configuration argument|misaligned address|device-side assert|"
    r"unspecified launch failure|too many resources requested|invalid argument|out of bounds|"
    r"shape|size of tensor|must match|expected",
    re.IGNORECASE,
)


def label_from_eval(entry: dict[str, Any]) -> tuple[str, str] | None:
    """KernelBench's ``eval_results.json`` entry as (label, why); None for one that did not compile."""
    if not entry.get("compiled"):
        return None
    if entry.get("correctness"):
        trials = entry.get("metadata", {}).get("correctness_trials", "")
        return "correct", f"compiled, correctness true {trials}".strip()
    md = entry.get("metadata", {})
    if "correctness_issue" in md:
        return "incorrect", f"compiled, correctness false: {str(md['correctness_issue'])[:120]}"
    error = str(md.get("runtime_error", "")).splitlines()[0][:120] if md.get("runtime_error") else ""
    if error and KERNEL_FAULT.search(error):
        return "incorrect", f"compiled, runtime error: {error}"
    return "unknown", f"compiled, correctness false, evaluation error: {error or 'none recorded'}"


@dataclass(frozen=True, slots=True)
class RunSource:
    """A KernelBench ``runs/<run>/`` folder: ``level_L_problem_P_sample_0_kernel.py`` files and maybe labels."""

    repository: str
    run: str
    model: str
    level: int
    labels: str | None  # eval_results.json path, or None (no evaluation published)
    correct: int  # how many labelled correct to draw
    incorrect: int  # how many labelled incorrect to draw
    unlabelled: int = 0  # how many to draw where there is no label
    problems: str = "KernelBench/level{level}"  # the problem files at the same commit


RUN_SOURCES: tuple[RunSource, ...] = (
    RunSource("technoabsurdist/KernelBench", "gemini_level1_run", "gemini", 1, "eval_results.json", 6, 6),
    RunSource("technoabsurdist/KernelBench", "gemini_level2_run", "gemini", 2, "eval_results.json", 6, 6),
    RunSource("technoabsurdist/KernelBench", "qwencoder_level1_run", "qwen-coder", 1, "eval_results.json", 5, 7),
    RunSource("technoabsurdist/KernelBench", "qwencoder_level2_run", "qwen-coder", 2, "eval_results.json", 4, 8),
    RunSource(
        "technoabsurdist/KernelBench",
        "opus4_level2_20250903_065424",
        "claude-opus-4.1",
        2,
        "detailed_results.json",
        6,
        6,
    ),
    RunSource("yenhao-huang/KernelBench", "codex_gpt55_retime_l1", "gpt-5.5 (codex)", 1, "eval_results.json", 6, 6),
    RunSource("yenhao-huang/KernelBench", "codex_gpt55_retime_l2", "gpt-5.5 (codex)", 2, "eval_results.json", 6, 6),
    RunSource("yenhao-huang/KernelBench", "gemma4_retime_l1", "gemma-4", 1, "eval_results.json", 5, 5),
    RunSource("yenhao-huang/KernelBench", "gemma4_retime_l2", "gemma-4", 2, "eval_results.json", 5, 5),
    RunSource(
        "yenhao-huang/KernelBench",
        "openrouter_deepseek_v4_pro_leaderboard_l1",
        "deepseek-v4-pro",
        1,
        "eval_results.json",
        5,
        5,
    ),
    RunSource(
        "yenhao-huang/KernelBench",
        "openrouter_deepseek_v4_pro_leaderboard_l2",
        "deepseek-v4-pro",
        2,
        "eval_results.json",
        5,
        5,
    ),
    RunSource("yenhao-huang/KernelBench", "qwen36_retime_l1", "qwen-3.6", 1, "eval_results.json", 5, 5),
    RunSource("yenhao-huang/KernelBench", "qwen36_retime_l2", "qwen-3.6", 2, "eval_results.json", 5, 5),
    RunSource("hzeng2000/KernelBench", "level_2_backend_cuda_model_Kimi-K2-0905", "kimi-k2", 2, None, 0, 0, 9),
    RunSource(
        "hzeng2000/KernelBench", "level_2_backend_cuda_model_grok-code-fast-1", "grok-code-fast-1", 2, None, 0, 0, 9
    ),
    RunSource("hzeng2000/KernelBench", "level_2_backend_triton_model_Kimi-K2-0905", "kimi-k2", 2, None, 0, 0, 8),
    RunSource(
        "hzeng2000/KernelBench", "level_2_backend_triton_model_grok-code-fast-1", "grok-code-fast-1", 2, None, 0, 0, 8
    ),
)

LEADERBOARD = "anneouyang/KernelBenchLeaderboard"
#: how many of the leaderboard's solutions to draw per level
LEADERBOARD_DRAW = {1: 22, 2: 22}


def read_labels(mirrors: Path, repository: str, commit: str, path: str) -> dict[int, tuple[str, str]]:
    data = json.loads(show(mirrors, repository, commit, path))
    entries: dict[int, Any] = {}
    if isinstance(data, dict) and "results" in data:  # a run script's detailed_results.json
        entries = {int(r["problem_id"]): r.get("eval_result") or {} for r in data["results"]}
    else:
        entries = {int(k): (v[0] if isinstance(v, list) and v else v) for k, v in data.items()}
    labels = {}
    for pid, entry in entries.items():
        label = label_from_eval(entry)
        if label is not None:
            labels[pid] = label
    return labels


def problem_files(mirrors: Path, repository: str, commit: str, folder: str) -> dict[int, str]:
    names = git(mirrors, repository, "ls-tree", "--name-only", commit, folder + "/").split()
    out = {}
    for n in names:
        m = re.match(r"(\d+)_.*\.py$", Path(n).name)
        if m and not n.endswith("_OLD.py"):
            out[int(m.group(1))] = n
    return out


def collect(mirrors: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    candidates: list[dict[str, Any]] = []
    heads: dict[str, str] = {}

    def head(repository: str) -> str:
        if repository not in heads:
            heads[repository] = git(mirrors, repository, "rev-parse", "HEAD").strip()
        return heads[repository]

    for src in RUN_SOURCES:
        commit = head(src.repository)
        folder = f"runs/{src.run}"
        files = git(mirrors, src.repository, "ls-tree", "--name-only", commit, folder + "/").split()
        kernels: dict[int, str] = {}
        for f in files:
            m = re.match(rf"(?:level_{src.level}_)?problem_(\d+)(?:_sample_0)?_kernel\.py$", Path(f).name)
            if m:
                kernels[int(m.group(1))] = resolve_link(mirrors, src.repository, commit, f)
        problems = problem_files(mirrors, src.repository, commit, src.problems.format(level=src.level))
        labels = read_labels(mirrors, src.repository, commit, f"{folder}/{src.labels}") if src.labels else {}
        pools: dict[str, list[int]] = collections.defaultdict(list)
        for pid in sorted(kernels):
            if pid not in problems:
                continue
            kind = kind_of(show(mirrors, src.repository, commit, kernels[pid]))
            if kind is None:
                continue
            label = labels.get(pid, ("unknown", "no evaluation published"))[0] if src.labels else "unlabelled"
            if src.labels and pid not in labels:
                continue  # did not compile: not a candidate a verifier sees in a generation loop's check
            pools[label].append(pid)
        wanted = {"correct": src.correct, "incorrect": src.incorrect, "unlabelled": src.unlabelled}
        for label, count in wanted.items():
            for pid in sorted(rng.sample(pools[label], min(count, len(pools[label])))):
                text = show(mirrors, src.repository, commit, kernels[pid])
                lab, why = labels[pid] if src.labels else ("unknown", "no evaluation published with the run")
                candidates.append(
                    {
                        "id": f"{src.repository.split('/')[0]}-{src.run}-p{pid}",
                        "repository": src.repository,
                        "commit": commit,
                        "path": kernels[pid],
                        "kind": kind_of(text),
                        "model": src.model,
                        "problem": _problem(src.repository, commit, src.level, pid, problems[pid]),
                        "label": lab,
                        "label_source": f"{folder}/{src.labels}: {why}" if src.labels else why,
                    }
                )

    # the leaderboard: solutions that passed KernelBench's correctness check, with their speedups
    commit = head(LEADERBOARD)
    raw = json.loads(show(mirrors, LEADERBOARD, commit, "docs/assets/raw_data.json"))
    listing: dict[str, tuple[int, int]] = {}
    for key, solutions in json.loads(show(mirrors, LEADERBOARD, commit, "docs/assets/data.json")).items():
        m = re.match(r"Level (\d+): (\d+)_", key)
        if m:
            listing.update({s["file"]: (int(m.group(1)), int(m.group(2))) for s in solutions})
    for level, count in LEADERBOARD_DRAW.items():
        pool = [r for r in raw if r["level"] == level and kind_of(r["code"]) is not None]
        for r in sorted(rng.sample(pool, min(count, len(pool))), key=lambda r: (r["problem_id"], r["display_name"])):
            # raw_data.json counts problems from 0: data.json lists the same file under "Level L: <id + 1>_<name>"
            pid = int(r["problem_id"]) + 1
            listed = listing.get(r["file"])
            assert listed is None or listed == (level, pid), (r["file"], listed, level, pid)
            candidates.append(
                {
                    "id": f"leaderboard-l{level}-p{pid}-{r['display_name']}",
                    "repository": LEADERBOARD,
                    "commit": commit,
                    "path": f"docs/assets/solutions/{r['file']}.py",
                    "kind": kind_of(r["code"]),
                    "model": r["display_name"],
                    "problem": _problem(LEADERBOARD, commit, level, pid, f"docs/assets/problems/l{level}_p{pid}.py"),
                    "label": "correct",
                    "label_source": "docs/assets/raw_data.json: on KernelBench's leaderboard (only solutions that "
                    f"passed its correctness check are listed), torch_speedup {r['torch_speedup']:.3g}",
                }
            )
    return {
        "about": "issue 20's audit set: real LLM-generated KernelBench candidates from public generation runs, "
        "with their problem files and the label the source's own GPU evaluation gave. Only this manifest is "
        "in the repository; benchmarks/kernelbench_audit.py reads the files out of local git snapshots "
        "(/work/.mirror/<owner>+<name>/repo, from the session's fetch tool) with git show COMMIT:PATH. "
        "Labels: correct = compiled and passed the source's correctness trials; incorrect = compiled and "
        "failed them (output or shape mismatch, or a kernel fault such as an illegal memory access); "
        "unknown = no evaluation published, or the evaluation failed for a reason of its machine. "
        "Candidates that did not compile are left out.",
        "seed": seed,
        "sources": sorted(
            {(c["repository"], c["commit"]) for c in candidates},
        ),
        "candidates": candidates,
    }


def _problem(repository: str, commit: str, level: int, pid: int, path: str) -> dict[str, Any]:
    return {
        "level": level,
        "id": pid,
        "name": Path(path).stem,
        "repository": repository,
        "commit": commit,
        "path": path,
    }


# ---- materialising and running


def materialise(entry: dict[str, Any], root: Path, mirrors: Path) -> Path:
    """``ROOT/work/<id>/`` with ``model.py`` (the problem) and ``model_new.py`` (the candidate)."""
    work: Path = root / "work" / str(entry["id"])
    if (work / "model.py").is_file() and (work / "model_new.py").is_file():
        return work
    work.mkdir(parents=True, exist_ok=True)
    p = entry["problem"]
    (work / "model.py").write_text(show(mirrors, p["repository"], p["commit"], p["path"]), encoding="utf-8")
    (work / "model_new.py").write_text(
        show(mirrors, entry["repository"], entry["commit"], entry["path"]), encoding="utf-8"
    )
    return work


def run_one(
    entry: dict[str, Any], work: Path, root: Path, timeout: float, seconds: float, stage: str = "verify"
) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["LARKC_CACHE_DIR"] = str(root / "larkc-cache")
    larkc = ["nice", "-n", "19", sys.executable, "-m", "larkc.cli"]
    if stage == "task":  # only reading the candidate: is a task derived (no prover runs)
        cmd = [*larkc, "task", "model_new.py", "--reference", "model.py", "-o", str(work / "derived" / "task.py")]
    else:
        cmd = [
            *larkc, "verify", "model_new.py", "--reference", "model.py", "--json", "-", "--seconds", f"{seconds:g}",
            "--replay-dir", str(root / "replay"),
        ]  # fmt: skip
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"id": entry["id"], "exit": None, "seconds": time.monotonic() - start, "timeout": True}
    result: dict[str, Any] = {"id": entry["id"], "exit": proc.returncode, "seconds": time.monotonic() - start}
    if stage == "task":
        result["stage"] = "task"
    elif proc.returncode in (0, 1, 4):
        try:
            report = json.loads(proc.stdout)
            result["verdict"] = report.get("verdict")
            result["obligations"] = [
                {k: o.get(k) for k in ("obligation", "status", "detail")}
                | {"counterexample": (o.get("counterexample") or {}).get("message")}
                for o in report.get("obligations", [])
                if o.get("status") != "proved"
            ]
        except json.JSONDecodeError:
            result["stdout"] = proc.stdout[-2000:]
    result["stderr"] = proc.stderr[-4000:]
    return result


def load_results(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out[r["id"]] = r
    return out


# ---- classifying refusals

#: (cause, regex on the error message without its location): the first that matches names the cause;
#: the causes follow issue 20's list (what larkc would have to read to take the candidate)
CAUSES: tuple[tuple[str, str], ...] = (
    ("forward: an nn module of ModelNew called in forward", r"besides the CUDA call: \w+ = self\.\w+\("),
    ("forward: a torch op or tensor method in forward", r"besides the CUDA call: .*(\btorch\.|\bF\.|\.\w+\()"),
    ("forward: another computation in forward (attributes, conditionals)", r"besides the CUDA call"),
    ("forward: a statement larkc does not read (if, extension stored under another name)", r"statement in ModelNew"),
    ("forward: an argument computed from attributes or sizes", r"argument of the CUDA function"),
    ("forward: several load_inline extensions", r"second load_inline|load_inline extension"),
    (
        "Triton: an assert of the host code fails in larkc's CPU run (assert x.is_cuda)",
        r"ModelNew\.forward raised AssertionError",
    ),
    (
        "Triton: forward fails at larkc's scaled-down shapes (ModelNew's weights keep the problem's sizes)",
        r"ModelNew\.forward raised RuntimeError: .*(channel|cannot be multiplied|size|shape)",
    ),
    ("Triton: forward raises in larkc's CPU run", r"ModelNew\.forward raised"),
    ("Triton: several kernel launches", r"kernel launches; one is supported"),
    ("Triton: a grid larkc explains by no shape expression", r"grid dimension .* is no shape expression"),
    (
        "inputs: get_inputs' sizes not tied to one symbol (A = torch.tril(A)), the reference fails at example sizes",
        r"reference raised RuntimeError: .*(reduction dim|size|shape)",
    ),
    ("Triton: other", r"triton|launch captured|@triton"),
    (
        "Model side: a module whose parameters larkc does not read (ConvTranspose, norms, ...)",
        r"parameters in Model\.__init__",
    ),
    ("parameters: ModelNew's parameters or attributes", r"parameter|Model\.__init__|ModelNew\.__init__|initiali[sz]er"),
    ("host: a loop", r"loop in host code|unsupported loop"),
    (
        "host: a torch or ATen call, tensor method or option",
        r"tensor method|torch::|at::(?!cuda)|method in host|options",
    ),
    (
        "host: a C++ declaration (dim3 g(a, b), guards, handles, pointers)",
        r"declaration|initialisation of|CUDAGuard|handle|pointer|unsupported dim3",
    ),
    ("host: an operator on tensors or bits (==, &, >>)", r"operands in host code|operator"),
    ("host: a call of another function (cuBLAS, helpers)", r"call of|cublas|function .* host"),
    ("host: other host code", r"host code|host function"),
    ("reference: an op of Model the tracer refuses", r"unsupported op aten\.|tracer|reference"),
    ("inputs: get_inputs / get_init_inputs", r"get_inputs|get_init_inputs|input"),
    ("load_inline: how the CUDA source is given", r"load_inline|CUDA source|cuda_sources"),
)


def first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("Traceback") and not line.startswith("larkc verify:"):
            return line
    return ""


def error_line(stderr: str) -> str:
    """The located error (``file:line:col: error: ...``) if there is one, else the first line."""
    for line in stderr.splitlines():
        if ": error: " in line or line.startswith("error: ") or "error:" in line[:40]:
            return line.strip()
    return first_line(stderr)


def message(line: str) -> str:
    """The error without its location (``model_new.py:12:5: error: ``)."""
    return re.sub(r"^.*?\berror:\s*", "", line)


def categorise(line: str) -> str:
    text = message(line)
    for name, pattern in CAUSES:
        if re.search(pattern, text):
            return name
    return "other"


# ---- what the candidates contain (whatever blocks larkc first)

#: constructs of the CUDA host code, by regex on the candidate's text
HOST_CONSTRUCTS: tuple[tuple[str, str], ...] = (
    (
        "host: dim3 g(a, b) of identifiers only (C++ reads a function declaration)",
        r"\bdim3\s+\w+\s*\(\s*[A-Za-z_]\w*\s*(,\s*[A-Za-z_]\w*\s*)*\)\s*;",
    ),
    ("host: at::cuda::CUDAGuard / OptionalCUDAGuard", r"CUDAGuard"),
    ("host: launch on getCurrentCUDAStream()", r"getCurrentCUDAStream"),
    ("host: cuBLAS / cuBLASLt call", r"\bcublas\w*\("),
    ("kernel: __launch_bounds__", r"__launch_bounds__"),
    ("kernel: half / bfloat16 types", r"\b(__half|half2?|__nv_bfloat16|at::Half|at::BFloat16)\b"),
)


#: the head of a host function (one taking a tensor): ``torch::Tensor f(torch::Tensor x, ...) {``
HOST_FUNCTION = re.compile(
    r"(?:torch::Tensor|at::Tensor|std::vector<(?:torch|at)::Tensor>|void)\s+\w+\s*\([^)]*(?:torch|at)::Tensor[^)]*\)\s*\{"
)


def host_bodies(text: str) -> list[str]:
    """The bodies of the host functions of a candidate's CUDA text (brace matching, strings ignored)."""
    bodies = []
    for m in HOST_FUNCTION.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        bodies.append(text[m.end() : i - 1])
    return bodies


def _init_modules(cls: ast.ClassDef) -> dict[str, str]:
    """``self.x = nn.Conv2d(...)`` in ``__init__``: attribute -> module class name."""
    out: dict[str, str] = {}
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "__init__":
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                    f = node.value.func
                    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "nn":
                        for t in node.targets:
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                                out[t.attr] = f.attr
    return out


def constructs(text: str) -> set[str]:
    """The constructs issue 20 lists that a candidate contains, read off its text (not larkc's view)."""
    found = {name for name, pattern in HOST_CONSTRUCTS if re.search(pattern, text)}
    if any(re.search(r"\b(for|while)\s*\(", body) for body in host_bodies(text)):
        found.add("host: a loop in a host function")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return found | {"python: not valid Python"}
    loads = sum(
        1
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "load_inline"
    )
    if loads > 1:
        found.add("load_inline: two or more extensions")
    if "triton.jit" in text and text.count("@triton.jit") > 1:
        found.add("Triton: two or more @triton.jit kernels")
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"):
        modules = _init_modules(cls)
        for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    f = node.func
                    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                        if f.value.id == "self" and f.attr in modules:
                            found.add(f"forward: nn.{modules[f.attr]} module called")
                        elif f.value.id in ("torch", "F") and not f.attr.startswith(("empty", "zeros", "ones")):
                            found.add("forward: torch.* / F.* op")
                    if isinstance(f, ast.Attribute) and f.attr in ("contiguous", "cuda", "to"):
                        found.add("forward: .contiguous() / .cuda() / .to()")
                if isinstance(node, ast.If):
                    found.add("forward: an if statement")
                if isinstance(node, (ast.For, ast.While)):
                    found.add("forward: a loop")
    return found


# ---- the report


def summarise(entries: Sequence[dict[str, Any]], results: dict[str, dict[str, Any]], args_text: str, root: Path) -> str:
    rows = [(e, results[e["id"]]) for e in entries if e["id"] in results]
    n = len(rows)
    out = [
        f"# larkc verify on real KernelBench candidates ({datetime.date.today()}, commit {git_head()}, {args_text})",
        "",
        f"covers {n} of the manifest's {len(entries)} candidates "
        f"({', '.join(f'{k} {v}' for k, v in sorted(collections.Counter(e['kind'] for e, _ in rows).items()))}; "
        f"level 1 {sum(1 for e, _ in rows if e['problem']['level'] == 1)}, "
        f"level 2 {sum(1 for e, _ in rows if e['problem']['level'] == 2)}; labels "
        f"{', '.join(f'{k} {v}' for k, v in sorted(collections.Counter(e['label'] for e, _ in rows).items()))}; "
        f"{len({e['repository'] for e, _ in rows})} repositories, {len({e['model'] for e, _ in rows})} models)",
        "",
    ]
    outcome: collections.Counter[str] = collections.Counter()
    for _, r in rows:
        outcome[outcome_of(r)] += 1
    decided = outcome["VERIFIED"] + outcome["FAILED"] + outcome["UNKNOWN"]
    out.append("## Outcomes")
    out.append("")
    for k in (
        "read (task derived)",
        "VERIFIED",
        "FAILED",
        "UNKNOWN",
        "refused (exit 2)",
        "internal error (exit 3)",
        "timeout",
        "other exit",
    ):
        if outcome[k]:
            out.append(f"- {k}: {outcome[k]} ({pct(outcome[k], n)})")
    out.append(f"- decided (VERIFIED, FAILED or UNKNOWN): {decided} of {n} ({pct(decided, n)})")
    times = [r["seconds"] for _, r in rows if not r.get("timeout")]
    if times:
        out.append(
            f"- time per candidate: median {statistics.median(times):.1f} s, mean {statistics.mean(times):.1f} s, "
            f"max {max(times):.1f} s (wall clock, nice 19, the larkc process start included)"
        )
    out.append("")
    out.append("## By label")
    out.append("")
    out.append("| label | n | VERIFIED | FAILED | UNKNOWN | refused | exit 3 | timeout |")
    out.append("|---|---|---|---|---|---|---|---|")
    for label in ("correct", "incorrect", "unknown"):
        sub = [r for e, r in rows if e["label"] == label]
        if sub:
            c = collections.Counter(outcome_of(r) for r in sub)
            out.append(
                f"| {label} | {len(sub)} | {c['VERIFIED']} | {c['FAILED']} | {c['UNKNOWN']} | "
                f"{c['refused (exit 2)']} | {c['internal error (exit 3)']} | {c['timeout']} |"
            )
    out.append("")
    out.append("## By source")
    out.append("")
    out.append("| repository | model | level | kind | n | decided | refused |")
    out.append("|---|---|---|---|---|---|---|")
    groups: dict[tuple[str, str, int, str], list[dict[str, Any]]] = collections.defaultdict(list)
    for e, r in rows:
        groups[(e["repository"], e["model"], e["problem"]["level"], e["kind"])].append(r)
    for (repo, model, level, kind), rs in sorted(groups.items()):
        c = collections.Counter(outcome_of(r) for r in rs)
        out.append(
            f"| {repo} | {model} | {level} | {kind} | {len(rs)} | {c['VERIFIED'] + c['FAILED'] + c['UNKNOWN']} | "
            f"{c['refused (exit 2)']} |"
        )

    present: collections.Counter[str] = collections.Counter()
    for e, _ in rows:
        candidate = root / "work" / e["id"] / "model_new.py"
        if candidate.is_file():
            present.update(constructs(candidate.read_text(encoding="utf-8")))
    out += ["", "## What the candidates contain (read off their text, whatever stops larkc first)", ""]
    out += [f"- {name}: {count} ({pct(count, n)})" for name, count in present.most_common()]

    wrong = [(e, r) for e, r in rows if e["label"] == "incorrect" and r.get("verdict") == "VERIFIED"]
    out += ["", "## Labelled incorrect by the source, VERIFIED by larkc (must be none)", ""]
    out += [f"- **{e['id']}** ({e['repository']}:{e['path']}): {e['label_source']}" for e, _ in wrong] or ["none"]

    refused = [(e, r) for e, r in rows if outcome_of(r) == "refused (exit 2)"]
    by_cause: dict[str, list[tuple[dict[str, Any], str]]] = collections.defaultdict(list)
    for e, r in refused:
        line = error_line(r.get("stderr", ""))
        by_cause[categorise(line)].append((e, line))
    out += ["", f"## Refused (exit 2): {len(refused)}, by cause", ""]
    for cause, items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        out.append(f"### {cause}: {len(items)}")
        out.append("")
        messages = collections.Counter(_normalise(message(line)) for _, line in items)
        for text, count in messages.most_common():
            out.append(f"- {count} x {text[:220]}")
        out.append("")

    for title, key in (("Internal errors (exit 3)", "internal error (exit 3)"), ("Timeouts", "timeout")):
        stopped = [(e, r) for e, r in rows if outcome_of(r) == key]
        out += [f"## {title}: {len(stopped)}", ""]
        out += [f"- {e['id']}: {error_line(r.get('stderr', ''))[:300]}" for e, r in stopped] or ["none"]
        out.append("")

    out += ["## Decided candidates", "", "| candidate | label | larkc | why (failed or unknown obligations) | s |"]
    out.append("|---|---|---|---|---|")
    for e, r in rows:
        if outcome_of(r) in ("VERIFIED", "FAILED", "UNKNOWN"):
            why = "; ".join(
                f"{o['obligation']} {o['status']}: {(o.get('counterexample') or o.get('detail') or '')[:90]}"
                for o in r.get("obligations", [])[:3]
            )
            out.append(f"| {e['id']} | {e['label']} | {r['verdict']} | {why} | {r['seconds']:.1f} |")
    return "\n".join(out)


def _normalise(text: str) -> str:
    """One message per construct: numbers, quoted code and long tails folded."""
    text = re.sub(r"\b\d+\b", "N", text)
    return text


def outcome_of(r: dict[str, Any]) -> str:
    if r.get("timeout"):
        return "timeout"
    if r.get("stage") == "task" and r.get("exit") == 0:
        return "read (task derived)"
    match r.get("exit"):
        case 0 | 1 | 4 if r.get("verdict"):
            return str(r["verdict"])
        case 2:
            return "refused (exit 2)"
        case 3:
            return "internal error (exit 3)"
        case _:
            return "other exit"


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def git_head() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False)
    return out.stdout.strip()


# ---- the command line


def select(entries: list[dict[str, Any]], sample: int | None, seed: int, only: Sequence[str]) -> list[dict[str, Any]]:
    # an id given whole selects that candidate only (``...-p2`` is not ``...-p21``); a part, every id with it
    exact = {e["id"] for e in entries} & set(only)
    chosen = [e for e in entries if not only or e["id"] in exact or any(o in e["id"] for o in only if o not in exact)]
    if sample is not None and sample < len(chosen):
        chosen = random.Random(seed).sample(chosen, sample)
    return chosen


def iterate(
    chosen: Sequence[dict[str, Any]], args: argparse.Namespace, done: dict[str, dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    results_path = args.root / RESULTS[args.stage]
    for i, e in enumerate(chosen, 1):
        if e["id"] in done and not args.fresh:
            continue
        work = materialise(e, args.root, args.mirrors)
        r = run_one(e, work, args.root, args.timeout, args.seconds, args.stage)
        with results_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(r) + "\n")
        line = error_line(r.get("stderr", "")) if outcome_of(r) != r.get("verdict") else ""
        print(f"[{i}/{len(chosen)}] {e['id']}: {outcome_of(r)} ({r['seconds']:.1f} s) {line[:160]}", flush=True)
        yield r


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("collect", "run", "report"))
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="where the sources and results go")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="OWNER+NAME/repo git directories")
    parser.add_argument("--seed", type=int, default=20, help="collect: the draw; run: the sample")
    parser.add_argument("--sample", type=int, help="run: this many candidates drawn at random (default: all)")
    parser.add_argument("--only", nargs="*", default=[], help="run/report: candidates whose id contains one of these")
    parser.add_argument("--timeout", type=float, default=120.0, help="run: wall-clock limit per candidate (s)")
    parser.add_argument("--seconds", type=float, default=20.0, help="run: larkc verify's --seconds")
    parser.add_argument(
        "--stage", choices=tuple(RESULTS), default="verify", help="run/report: verify, or only derive the task"
    )
    parser.add_argument("--fresh", action="store_true", help="run: rerun candidates that have a result")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)

    if args.command == "collect":
        manifest = collect(args.mirrors, args.seed)
        args.manifest.parent.mkdir(parents=True, exist_ok=True)
        args.manifest.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        c = collections.Counter((e["label"], e["kind"]) for e in manifest["candidates"])
        print(f"{len(manifest['candidates'])} candidates: {dict(c)}")
        return 0

    entries = json.loads(args.manifest.read_text(encoding="utf-8"))["candidates"]
    args.root.mkdir(parents=True, exist_ok=True)
    done = load_results(args.root / RESULTS[args.stage])
    chosen = select(entries, args.sample, args.seed, args.only)
    if args.command == "run":
        for r in iterate(chosen, args, done):
            done[r["id"]] = r
    scope = f"--seconds {args.seconds:g}, --timeout {args.timeout:g}"
    if args.stage == "task":
        scope = f"larkc task only (reading the candidate, no prover), --timeout {args.timeout:g}"
    if args.sample is not None:
        scope += f", a random sample of {args.sample} (seed {args.seed})"
    text = summarise(chosen, done, scope, args.root)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
