"""Measure larkc's CUDA frontend and ``larkc run`` on real kernels: parse rate, run rate, error categories.

The audit set is ``benchmarks/audit/manifest.json``: files of public repositories (repository, commit,
path, include dirs, defines) and their kernels (template arguments read off the host launch sites, and
for some a launch read off the host code at small sizes). The sources are not in this repository: they
live under ``--root`` as ``ROOT/<owner>+<name>/<path>``; ``--materialise`` fills that folder from local
git mirrors (``/work/.mirror/<owner>+<name>/repo``) with ``git archive``. A path ending in ``.py`` is a
KernelBench-style solution: its CUDA source strings (those holding ``__global__``) are written beside
it as ``<path>.cu`` (all of them, joined) and that file is audited.

Every kernel is parsed, and run when it has a launch, in a worker process with a time limit, so one
kernel cannot hang the audit. ``--stubs`` puts empty stand-ins for the manifest's ``system_headers``
(``<omp.h>``, ``<unistd.h>``, ``<nvtx3/...>``: headers of host code that larkc's preprocessor does not know)
on the include path. Usage::

    .venv/bin/python benchmarks/cuda_audit.py --root /work/audit --materialise --stubs --json audit.json
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import inspect
import json
import multiprocessing
import multiprocessing.connection
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "audit" / "manifest.json"
DEFAULT_ROOT = Path("/work/audit")
DEFAULT_MIRRORS = Path("/work/.mirror")
REPLAY_DIR = "/tmp/larkc-audit-replay"  # where `larkc run` writes the failing launches' replay files
#: what ``--materialise`` copies out of a mirror: sources and headers, not documents or data
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl", ".c", ".cc", ".cpp", ".py")


# ---- the manifest


@dataclass(frozen=True, slots=True)
class Launch:
    """One concrete launch, in ``larkc run``'s command-line form."""

    grid: str
    block: str
    buffers: tuple[str, ...] = ()
    scalars: tuple[str, ...] = ()
    shared_bytes: int = 0


@dataclass(frozen=True, slots=True)
class KernelEntry:
    name: str
    template_args: tuple[str, ...] = ()
    launch: Launch | None = None


@dataclass(frozen=True, slots=True)
class FileEntry:
    source: str  # a short name of the source library, for the per-source rates
    repository: str
    commit: str
    path: str
    include_dirs: tuple[str, ...]
    defines: dict[str, str]
    kernels: tuple[KernelEntry, ...]
    #: other files of the repository the audit needs (headers read from a different commit)
    headers: tuple[str, ...] = ()
    #: the file that includes this header, for a header that compiles only after that file's other includes
    #: (exllamav2's q_mlp_softmax.cuh uses qdq_util.cuh's types, which q_mlp.cu includes before it)
    included_from: str | None = None

    @property
    def audited_path(self) -> str:
        """The path of the CUDA file audited: the file itself, the file that includes it, or the ``.cu``
        extracted from a ``.py``."""
        if self.included_from is not None:
            return self.included_from
        return self.path + ".cu" if self.path.endswith(".py") else self.path


def load_manifest(path: Path) -> tuple[list[FileEntry], list[str]]:
    """The manifest's file entries and its list of system headers to stub; a malformed entry is an error."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = []
    for i, f in enumerate(data["files"]):
        where = f"{path}: files[{i}] ({f.get('path', '?')})"
        if not re.fullmatch(r"[0-9a-f]{40}", f.get("commit", "")):
            raise SystemExit(f"{where}: commit must be 40 hex digits")
        kernels = []
        for k in f["kernels"]:
            launch = None
            if "launch" in k:
                lk = k["launch"]
                launch = Launch(
                    grid=str(lk["grid"]),
                    block=str(lk["block"]),
                    buffers=tuple(lk.get("buffers", ())),
                    scalars=tuple(lk.get("scalars", ())),
                    shared_bytes=int(lk.get("shared_bytes", 0)),
                )
            kernels.append(KernelEntry(k["name"], tuple(str(a) for a in k.get("template_args", ())), launch))
        entries.append(
            FileEntry(
                source=f["source"],
                repository=f["repository"],
                commit=f["commit"],
                path=f["path"],
                include_dirs=tuple(f.get("include_dirs", ())),
                defines=dict(f.get("defines", {})),
                kernels=tuple(kernels),
                headers=tuple(f.get("headers", ())),
                included_from=f.get("included_from"),
            )
        )
    return entries, list(data.get("system_headers", ()))


def write_stubs(folder: Path, headers: Sequence[str]) -> Path:
    """Empty files named like the system headers (``<omp.h>``, ``<nvtx3/nvToolsExt.h>``) that the frontend
    does not know: on the include path they stand for headers of which the kernels use nothing."""
    for h in headers:
        stub = folder / h
        stub.parent.mkdir(parents=True, exist_ok=True)
        if not stub.exists():
            stub.write_text("// empty stand-in for a system header (benchmarks/cuda_audit.py --stubs)\n")
    return folder


def repo_dir(root: Path, repository: str) -> Path:
    return root / repository.replace("/", "+")


# ---- materialising the sources


def materialise(entries: Sequence[FileEntry], root: Path, mirrors: Path) -> list[str]:
    """Fill ``root`` from the local git mirrors; returns one line per file that could not be had."""
    missing: list[str] = []
    by_commit: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for e in entries:
        paths = by_commit[(e.repository, e.commit)]
        paths.add(e.path)
        paths.update(e.headers)
        folder = str(Path(e.path).parent)
        paths.add(folder)  # quoted includes are found beside the file
        paths.update(e.include_dirs)
    for (repository, commit), paths in sorted(by_commit.items()):
        dest = repo_dir(root, repository)
        git_dir = mirrors / repository.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            missing.extend(
                f"{repository}@{commit[:12]}: {p} (no mirror at {git_dir})"
                for p in sorted(paths)
                if not (dest / p).exists()
            )
            continue
        listing = subprocess.run(
            ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", commit, "--", *sorted(paths)],
            capture_output=True,
            text=True,
            check=False,
        )
        # source files only: a snapshot may lack its large files (documents, data), which would stop git archive
        files = [f for f in listing.stdout.splitlines() if f.endswith(SOURCE_SUFFIXES)]
        absent = [p for p in sorted(paths) if not any(f == p or f.startswith(p.rstrip("/") + "/") for f in files)]
        missing.extend(f"{repository}@{commit[:12]}: {p}: not at that commit" for p in absent)
        files = [f for f in files if not (dest / f).exists()]
        if not files:
            continue
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, "--", *files],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            missing.append(f"{repository}@{commit[:12]}: {archive.stderr.decode().strip()}")
            continue
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    for e in entries:
        if e.path.endswith(".py"):
            py = repo_dir(root, e.repository) / e.path
            if py.exists() and not (repo_dir(root, e.repository) / e.audited_path).exists():
                extract_cuda_strings(py)
    return missing


def extract_cuda_strings(py: Path) -> Path:
    """Write the CUDA source strings of a KernelBench-style solution (``load_inline``) to ``<py>.cu``."""
    tree = ast.parse(py.read_text(encoding="utf-8"))
    parts = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__global__" in node.value
    ]
    out = py.with_name(py.name + ".cu")
    out.write_text("\n".join(parts), encoding="utf-8")
    return out


# ---- one kernel, in a worker


@dataclass(slots=True)
class KernelResult:
    """What the audit found for one kernel: the parse outcome and, when it ran, the run outcome."""

    source: str
    repository: str
    path: str
    kernel: str
    parse: str = "ok"  # "ok" or the first line of the error
    parse_category: str = ""
    run: str = ""  # "", "pass", "fail", "error", "timeout"
    run_detail: str = ""
    run_category: str = ""
    seconds: float = 0.0
    listed: bool = True  # False: a kernel the frontend found that the manifest does not list


@dataclass(frozen=True, slots=True)
class Job:
    file: str
    kernel: str
    template_args: tuple[str, ...]
    defines: dict[str, str]
    include_dirs: tuple[str, ...]
    launch: Launch | None
    stage: str  # "parse" (the frontend alone) or "run" (the command-line task through the simulator)


def first_line(e: BaseException) -> str:
    text = str(e).strip()
    line = text.splitlines()[0] if text else type(e).__name__
    return line if isinstance(e, _larkc_error()) else f"{type(e).__name__}: {line}"


def _larkc_error() -> type[Exception]:
    from larkc import LarkcError

    return LarkcError


def _accepts(fn: Any, name: str) -> bool:
    return name in inspect.signature(fn).parameters


def do_job(job: Job) -> tuple[str, str]:
    """One stage for one kernel: ``("ok" | first error line, "")`` for ``parse``, ``(outcome, detail)``
    for ``run`` (outcome ``pass``, ``fail`` with the first diagnosis, or ``error``); never raises."""
    from larkc import command_line_task, run
    from larkc.frontends.cuda import parse_cuda

    includes = [Path(d) for d in job.include_dirs]
    if job.stage == "parse" or job.launch is None:
        try:
            parse_cuda(
                job.file,
                kernel=job.kernel,
                template_args=list(job.template_args),
                defines=job.defines,
                include_dirs=includes,
            )
        except Exception as e:  # every failure is a result here, internal errors included
            return first_line(e), ""
        return "ok", ""
    launch = job.launch
    extra: dict[str, Any] = {}
    if _accepts(command_line_task, "include_dirs"):  # include paths on tasks are being added
        extra["include_dirs"] = includes
    try:
        task = command_line_task(
            job.file,
            job.kernel,
            grid=[launch.grid],
            block=[launch.block],
            buffers=launch.buffers,
            scalars=launch.scalars,
            shared_bytes=str(launch.shared_bytes),
            template_args=job.template_args,
            defines=job.defines,
            **extra,
        )
        report = run(task, replay_dir=REPLAY_DIR)
    except Exception as e:
        return "error", first_line(e)
    if report.ok:
        return "pass", ""
    diagnoses = [d for inst in report.instances for d in inst.diagnoses]
    return "fail", diagnoses[0].render() if diagnoses else ", ".join(sorted(report.kinds()))


def _worker(conn: multiprocessing.connection.Connection) -> None:
    import torch

    torch.set_num_threads(1)
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(do_job(job))


class Worker:
    """A process that runs jobs one at a time; a job past its time limit kills it (a new one starts)."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("fork")
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._conn: multiprocessing.connection.Connection | None = None

    def _start(self) -> tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]:
        if self._proc is None or self._conn is None or not self._proc.is_alive():
            parent, child = self._ctx.Pipe()
            self._proc = self._ctx.Process(target=_worker, args=(child,), daemon=True)
            self._proc.start()
            self._conn = parent
        return self._proc, self._conn

    def submit(self, job: Job, timeout: float) -> tuple[str, str] | None:
        """The job's result, or ``None`` when it ran past ``timeout`` seconds or the worker died."""
        proc, conn = self._start()
        conn.send(job)
        if conn.poll(timeout):
            try:
                result: tuple[str, str] = conn.recv()
                return result
            except EOFError:
                pass
        proc.kill()
        proc.join()
        self._proc = self._conn = None
        return None

    def close(self) -> None:
        if self._proc is not None and self._conn is not None and self._proc.is_alive():
            self._conn.send(None)
            self._proc.join(5)


# ---- categories


#: (regex on the error line, category): the frontend's to-do list; the first match wins.
CATEGORIES: tuple[tuple[str, str], ...] = (
    (r"include file not found: (<[^>]+>|\"[^\"]+\")", "include not found: {0}"),
    (r"no __global__ function named|no kernel \w+ in", "kernel not found by its name"),
    (r"namespace alias", "namespace alias (namespace cg = cooperative_groups)"),
    (r"no value for template parameter", "template kernel without template arguments"),
    (r"has no member size", "static member through an object (pack.size)"),
    (r"unsupported call of printf", "printf"),
    (r"unknown function: (atomic\w+)", "unknown atomic: {0}"),
    (r"unknown function: (__\w+)", "unknown intrinsic: {0}"),
    (r"unknown function: ([\w:]+)", "unknown function: {0}"),
    (r"anonymous struct", "anonymous struct"),
    (
        r"unsupported function name: [\w:]*<",
        "out-of-class member of a class template specialization (vec_t<T, N>::fill)",
    ),
    (r"unsupported type: ([\w:]+)", "unsupported type: {0}"),
    (r"RecursionError", "internal: recursion"),
)


def categorise(line: str) -> str:
    """A category for one error line: a known one, else the message with names and numbers masked."""
    message = re.sub(r"^.*?\berror: ", "", line)
    for pattern, category in CATEGORIES:
        m = re.search(pattern, line)
        if m:
            return category.format(*m.groups())
    head = message.split(": ")[0] if ": " in message else message
    head = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", head)
    head = re.sub(r"\b\d+\b", "N", head)
    return head[:90]


def run_category(result: KernelResult) -> str:
    if result.run == "fail":
        return result.run_detail.split(":")[0]  # the diagnosis kind: race, oob, uninit, ...
    if result.run == "error":
        return categorise(result.run_detail)
    return result.run


# ---- the audit


def kernel_names(file: Path, entry: FileEntry, include_dirs: Sequence[str]) -> list[str] | str:
    """The kernels the frontend finds in ``file``, or the first line of its error."""
    from larkc.frontends.cuda import cuda_kernel_names

    extra: dict[str, Any] = {}
    if _accepts(cuda_kernel_names, "include_dirs"):
        extra["include_dirs"] = [Path(d) for d in include_dirs]
    try:
        return list(cuda_kernel_names(file, defines=entry.defines, **extra))
    except Exception as e:
        return first_line(e)


def _short_name(kernel: str) -> str:
    """``RMSNormKernel`` for ``flashinfer::norm::RMSNormKernel`` (and for ``...::RMSNormKernel<8, half>``)."""
    return kernel.split("<", maxsplit=1)[0].rsplit("::", maxsplit=1)[-1]


def defines_kernel(text: str, name: str) -> bool:
    """Whether ``text`` itself defines the kernel ``name`` (not a header it includes)."""
    return re.search(r"__global__[^;{]*\b" + re.escape(name.rsplit("::", maxsplit=1)[-1]) + r"\s*\(", text) is not None


def audit(
    entries: Sequence[FileEntry],
    root: Path,
    *,
    run: bool,
    timeout: float,
    only: str | None,
    stubs: Path | None = None,
) -> Iterator[KernelResult]:
    """Each kernel's result, file by file: parsed, then (with ``run``) simulated at its manifest launch."""
    worker = Worker()
    try:
        for entry in entries:
            if only is not None and only not in (entry.source, entry.repository) and only not in entry.path:
                continue
            base = repo_dir(root, entry.repository)
            file = base / entry.audited_path
            listed = {k.name for k in entry.kernels}
            if not file.exists():
                for k in entry.kernels:
                    line = f"source missing: {file} (run with --materialise)"
                    yield KernelResult(entry.source, entry.repository, entry.path, k.name, line, "source missing")
                continue
            include_dirs = [str(base / d) for d in entry.include_dirs] + ([str(stubs)] if stubs else [])
            found = kernel_names(file, entry, include_dirs)
            own_path = base / (entry.path if entry.included_from is not None else entry.audited_path)
            own = own_path.read_text(encoding="utf-8", errors="replace")
            # kernels of this file the manifest does not list; those of included headers are audited with theirs.
            # The manifest names a namespaced kernel by its short name (`RMSNormKernel` is flashinfer::norm::...).
            extra = (
                []
                if isinstance(found, str)
                else [n for n in found if n not in listed and _short_name(n) not in listed and defines_kernel(own, n)]
            )
            kernels = [*entry.kernels, *(KernelEntry(n) for n in extra)]
            for k in kernels:
                job = Job(
                    file=str(file),
                    kernel=k.name,
                    template_args=k.template_args,
                    defines=entry.defines,
                    include_dirs=tuple(include_dirs),
                    launch=k.launch,
                    stage="parse",
                )
                start = time.monotonic()
                result = KernelResult(entry.source, entry.repository, entry.path, k.name, listed=k.name in listed)
                parsed = worker.submit(job, timeout)
                result.parse = parsed[0] if parsed is not None else f"timeout: no parse within {timeout:g} s"
                if result.parse != "ok":
                    result.parse_category = categorise(result.parse)
                elif run and k.launch is not None:
                    ran = worker.submit(replace(job, stage="run"), timeout)
                    result.run, result.run_detail = (
                        ran if ran is not None else ("timeout", f"no result in {timeout:g} s")
                    )
                    result.run_category = run_category(result)
                result.seconds = round(time.monotonic() - start, 2)
                yield result
    finally:
        worker.close()


# ---- the report


@dataclass(slots=True)
class Summary:
    """Counts over the results: kernels, parsed, launched (parsed and with a launch), passed."""

    kernels: int = 0
    parsed: int = 0
    launches: int = 0
    passed: int = 0
    per_source: dict[str, list[int]] = field(default_factory=dict)  # source -> [kernels, parsed, launches, passed]


def summarise(results: Sequence[KernelResult]) -> Summary:
    s = Summary()
    for r in results:
        row = s.per_source.setdefault(r.source, [0, 0, 0, 0])
        s.kernels += 1
        row[0] += 1
        if r.parse == "ok":
            s.parsed += 1
            row[1] += 1
        if r.run:
            s.launches += 1
            row[2] += 1
        if r.run == "pass":
            s.passed += 1
            row[3] += 1
    return s


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def git_head() -> str:
    out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, check=False)
    return out.stdout.decode().strip() or "unknown"


def render(results: Sequence[KernelResult], *, stubs: bool = False) -> str:
    s = summarise(results)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    files = len({(r.repository, r.path) for r in results})
    lines = [
        f"larkc CUDA audit at commit {git_head()}, {now}" + (" (stub system headers on the include path)" * stubs),
        f"{files} files, {s.kernels} kernels from {len(s.per_source)} sources"
        f" ({sum(1 for r in results if not r.listed)} found by the frontend but not in the manifest)",
        "",
        f"parse: {pct(s.parsed, s.kernels)}    run (kernels with a launch): {pct(s.passed, s.launches)} pass",
        "",
        f"{'source':<14} {'kernels':>7} {'parsed':>14} {'launches':>8} {'run pass':>14}",
    ]
    for source, (k, p, launches, passed) in sorted(s.per_source.items()):
        lines.append(f"{source:<14} {k:>7} {pct(p, k):>14} {launches:>8} {pct(passed, launches):>14}")
    lines += ["", "parse errors by category:"]
    cats = collections.Counter(r.parse_category for r in results if r.parse != "ok")
    for cat, n in cats.most_common():
        example = next(r for r in results if r.parse_category == cat)
        lines.append(f"  {n:>4}  {cat}")
        lines.append(f"        e.g. {example.repository}/{example.path} {example.kernel}: {_short(example.parse)}")
    lines += ["", "run results by category:"]
    rcats = collections.Counter(r.run_category for r in results if r.run)
    for cat, n in rcats.most_common():
        lines.append(f"  {n:>4}  {cat}")
    lines += ["", "kernels:"]
    for r in results:
        status = "ok" if r.parse == "ok" else f"PARSE {r.parse_category}"
        run = f"  run {r.run}" + (f": {_short(r.run_detail)}" if r.run_detail else "") if r.run else ""
        mark = "" if r.listed else " [unlisted]"
        lines.append(f"  {r.source:<10} {Path(r.path).name}:{r.kernel}{mark}  {status}{run}")
    return "\n".join(lines)


def _short(text: str, width: int = 160) -> str:
    text = text.replace(str(DEFAULT_ROOT) + "/", "")
    return text if len(text) <= width else text[: width - 1] + "…"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="where the sources are (OWNER+NAME/PATH)")
    parser.add_argument("--materialise", action="store_true", help="fill --root from the git mirrors first")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="OWNER+NAME/repo git directories")
    parser.add_argument("--json", type=Path, help="write the per-kernel results here")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per kernel (parse and run)")
    parser.add_argument("--no-run", action="store_true", help="parse only")
    parser.add_argument("--only", help="only files of this source, repository or path substring")
    parser.add_argument(
        "--stubs",
        action="store_true",
        help="put empty stand-ins for the manifest's system_headers (omp.h, nvtx3, ...) on the include path",
    )
    args = parser.parse_args(argv)

    entries, system_headers = load_manifest(args.manifest)
    stubs = write_stubs(args.root / "_stubs", system_headers) if args.stubs else None
    if args.materialise:
        for line in materialise(entries, args.root, args.mirrors):
            print(f"not materialised: {line}", file=sys.stderr)
    results = []
    for r in audit(entries, args.root, run=not args.no_run, timeout=args.timeout, only=args.only, stubs=stubs):
        results.append(r)
        print(f"{r.source}: {Path(r.path).name}:{r.kernel}: {r.parse_category or 'ok'} {r.run}", file=sys.stderr)
    print(render(results, stubs=stubs is not None))
    if args.json is not None:
        s = summarise(results)
        args.json.write_text(
            json.dumps(
                {
                    "commit": git_head(),
                    "kernels": s.kernels,
                    "parsed": s.parsed,
                    "launches": s.launches,
                    "passed": s.passed,
                    "per_source": s.per_source,
                    "results": [asdict(r) for r in results],
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
