"""GPUVerify's CUDA test suite as a verdict benchmark for larkc: parse rate, agreement, disagreements.

GPUVerify (github mc-imperial/gpuverify) ships ``testsuite/CUDA``: one ``kernel.cu`` per test whose first
lines say what GPUVerify must answer, in the format its runner ``gvtester.py`` reads:

* line 1: ``//pass`` or ``//xfail:CODE`` (case-insensitive; ``CODE`` one of GPUVerify's exit codes, e.g.
  ``NOT_ALL_VERIFIED`` for a race, barrier divergence or failed assertion, ``CLANG_ERROR`` or
  ``BUGLE_ERROR`` for input GPUVerify rejects);
* line 2: ``//`` then GPUVerify's command line (``--blockDim=64 --gridDim=[2,2] -DWIDTH=256 --no-inline``);
* following lines that start with ``//`` and hold more than ``//``: regular expressions GPUVerify's output
  must match (``//error: possible write-write race on``, ``//x = 185``); the first other line ends them.

This script reads each test's header and runs ``larkc verify`` reference-free on every kernel of the
file at GPUVerify's launch, as a GPUVerify user would run ``larkc verify kernel.cu --grid .. --block ..``
(the command-line task, :func:`larkc.command_line_task`). GPUVerify reasons about every buffer size and
every scalar value; a larkc command-line task is one concrete launch, so the script chooses them
(documented in ``docs/gpuverify-suite.md``):

* a pointer parameter to a scalar type is a buffer of ``max(1024, 4 * threads)`` elements (``threads``: the
  launch's thread count); when larkc refutes ``bounds`` at that size the kernel is verified once more with
  buffers 64 times larger (at most ``2**24`` elements), since GPUVerify treats such arrays as unbounded;
* an integer scalar parameter is tried at two values, the launch's thread count and then 1, each clamped
  into its type and into the bounds the kernel's ``__requires(NAME op INTEGER)`` put on it (a kernel is
  verified once per assignment; the first refutation stands); a float one is ``1.0``,
  a ``bool`` ``true``; any other parameter (a struct by value, a pointer to a struct or to a pointer)
  cannot be given on larkc's command line: the kernel is ``unbound``.

Each test is then put in one category comparing larkc's verdict with GPUVerify's expected outcome
(:func:`compare`); ``weaker`` (GPUVerify expects a failure, larkc verifies) is the one to investigate
first: a potential soundness problem, or the concrete sizes and values chosen above.

The tests are not in this repository: ``--materialise`` copies the files ``benchmarks/gpuverify/manifest.json``
lists (repository, commit, paths) from the local git mirror into ``--root``. Usage::

    .venv/bin/python benchmarks/gpuverify_suite.py --materialise --json /tmp/gv.json \
        > benchmarks/results/gpuverify-suite.txt
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import multiprocessing
import multiprocessing.connection
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cuda_audit import _short as short_line  # noqa: E402  (a script beside this one)
from cuda_audit import categorise, first_line, git_head, pct  # noqa: E402

DEFAULT_MANIFEST = HERE / "gpuverify" / "manifest.json"
DEFAULT_ROOT = Path("/work/audit-gpuverify")
DEFAULT_MIRRORS = Path("/work/.mirror")
REPLAY_DIR = "/tmp/larkc-gpuverify-replay"
MIN_ELEMENTS = 1024  # the smallest buffer, in elements
THREADS_FACTOR = 4  # buffers hold this many elements per thread of the launch
RETRY_FACTOR = 64  # after a bounds refutation, buffers this many times larger
MAX_ELEMENTS = 2**24

T = TypeVar("T")


# ---- the test header, as gvtester.py reads it


class HeaderError(ValueError):
    """A test file whose first lines are not a gvtester header."""


@dataclass(frozen=True, slots=True)
class Header:
    """What a test expects of GPUVerify and how it launches the kernel."""

    expected: str  # "PASS" or the xfail code: NOT_ALL_VERIFIED, CLANG_ERROR, BUGLE_ERROR, ...
    grid: tuple[int, ...]
    block: tuple[int, ...]
    defines: tuple[tuple[str, str], ...] = ()
    options: tuple[str, ...] = ()  # the other GPUVerify options: --no-inline, --warp-sync=32, ...
    patterns: tuple[str, ...] = ()  # regular expressions GPUVerify's output must match

    @property
    def threads(self) -> int:
        n = 1
        for d in (*self.grid, *self.block):
            n *= d
        return n

    @property
    def expected_kinds(self) -> frozenset[str]:
        """The larkc obligations that correspond to the failures the patterns name (see :data:`KINDS`)."""
        return frozenset(k for p in self.patterns if (k := pattern_kind(p)) is not None)


_OUTCOME = re.compile(r"^//(pass|xfail:([A-Z_]+))", re.IGNORECASE)
_DIM = re.compile(r"^--(blockDim|gridDim)=(\[?[\d, ]+\]?)$")


def parse_header(text: str) -> Header:
    """The header of a test file; :class:`HeaderError` when line 1 or 2 is not as gvtester requires."""
    lines = text.splitlines()
    if not lines or (m := _OUTCOME.match(lines[0])) is None:
        raise HeaderError('line 1 should say "//pass" or "//xfail:<ERROR_CODE>"')
    expected = "PASS" if m.group(1).lower() == "pass" else m.group(2).upper()
    if len(lines) < 2 or not lines[1].startswith("//"):
        raise HeaderError('line 2 should start with "//" and then GPUVerify\'s arguments')
    dims: dict[str, tuple[int, ...]] = {}
    defines: list[tuple[str, str]] = []
    options: list[str] = []
    for arg in lines[1][2:].split():
        if (d := _DIM.match(arg)) is not None:
            dims[d.group(1)] = tuple(int(x) for x in d.group(2).strip("[]").split(",") if x.strip())
        elif arg.startswith("-D") and len(arg) > 2:
            name, _, value = arg[2:].partition("=")
            defines.append((name, value or "1"))
        else:
            options.append(arg)
    for name in ("blockDim", "gridDim"):
        if not dims.get(name) or len(dims[name]) > 3:
            raise HeaderError(f"line 2 gives no --{name}=N or --{name}=[X,Y(,Z)]")
    patterns = []
    for line in lines[2:]:
        if not (line.startswith("//") and len(line) > 2):
            break
        patterns.append(line[2:])
    return Header(expected, dims["gridDim"], dims["blockDim"], tuple(defines), tuple(options), tuple(patterns))


#: (regular expression on a header pattern, larkc obligation): the failure GPUVerify is expected to report,
#: in larkc's words; the first match wins, ``None`` names text that is not a failure ("race-free").
KINDS: tuple[tuple[str, str | None], ...] = (
    (r"race-free|not-racy", None),
    (r"\brace\b|\bracy\b|(Write|Read) by thread", "race"),
    (r"barrier|divergence", "barrier"),
    (r"assert|invariant|postcondition|precondition", "assert"),
    (r"null pointer|0-sized|out of bounds", "bounds"),
    (r"constant memory", "constant-write"),
)


def pattern_kind(pattern: str) -> str | None:
    for regex, kind in KINDS:
        if re.search(regex, pattern, re.IGNORECASE):
            return kind
    return None


# ---- the manifest and the sources


@dataclass(frozen=True, slots=True)
class Manifest:
    repository: str
    commit: str
    paths: tuple[str, ...]


def load_manifest(path: Path) -> Manifest:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not re.fullmatch(r"[0-9a-f]{40}", data.get("commit", "")):
        raise SystemExit(f"{path}: commit must be 40 hex digits")
    return Manifest(data["repository"], data["commit"], tuple(data["paths"]))


def mirror_dir(mirrors: Path, repository: str) -> Path:
    return mirrors / repository.replace("/", "+") / "repo"


def list_tests(git_dir: Path, commit: str, folder: str = "testsuite/CUDA") -> list[str]:
    """The ``.cu`` files under ``folder`` at ``commit`` of a mirror."""
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", commit, "--", folder],
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(p for p in out.stdout.splitlines() if p.endswith(".cu"))


def materialise(manifest: Manifest, root: Path, mirrors: Path) -> Path:
    """Copy the manifest's files out of the mirror into ``root/<owner>+<name>``; returns that folder."""
    dest = root / manifest.repository.replace("/", "+")
    dest.mkdir(parents=True, exist_ok=True)
    git_dir = mirror_dir(mirrors, manifest.repository)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", manifest.commit, "--", *manifest.paths],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


# ---- running one step in a forked process, with a time limit


def _child(conn: multiprocessing.connection.Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as e:  # every failure is a result here, internal errors included
        conn.send(("error", first_line(e)))


def in_fork(fn: Callable[..., T], args: tuple[Any, ...], timeout: float) -> tuple[str, T | str]:
    """``("ok", fn(*args))``, ``("error", first line)`` or ``("timeout", "")``: ``fn`` runs in a forked
    process (the parent has imported larkc, so a fork starts at once) that is killed past ``timeout``."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args), daemon=True)
    proc.start()
    child.close()
    result: tuple[str, Any] = ("timeout", "")
    if parent.poll(timeout):
        try:
            result = parent.recv()
        except EOFError:
            result = ("error", f"the worker died (exit code {proc.exitcode})")
    if proc.is_alive():
        proc.kill()
    proc.join()
    parent.close()
    return result


# ---- one test


@dataclass(frozen=True, slots=True)
class Binding:
    """How the harness binds one kernel parameter: a buffer, a scalar, or nothing it can give."""

    kind: str  # "buffer", "scalar", "unbound"
    name: str
    text: str  # "f32" for a buffer (the size is added per attempt), the type of a scalar, why not bound
    values: tuple[str, ...] = ()  # a scalar's values, one per assignment tried (the last one repeats)


def kernel_bindings(file: str, defines: dict[str, str], threads: int) -> dict[str, list[Binding]]:
    """Each kernel of the file and how its parameters are bound (see the module docstring)."""
    from larkc.frontends import kernel_names, parse_source
    from larkc.ir.types import ArrayType, PointerType, ScalarType
    from larkc.tasks import resolve_kernel

    text = Path(file).read_text(encoding="utf-8", errors="replace")
    out: dict[str, list[Binding]] = {}
    for name in kernel_names(file, defines=defines):
        module = parse_source(file, kernel=name, defines=defines)
        kernel = resolve_kernel(module, name, file)
        required = required_ranges(kernel_text(text, name))
        bindings = []
        for p in kernel.params:
            t = p.type
            if isinstance(t, PointerType) and isinstance(t.pointee, ScalarType):
                bindings.append(Binding("buffer", p.name, str(t.pointee)))
            elif isinstance(t, ScalarType):
                values = scalar_values(t, threads, required.get(p.name, (None, None)))
                bindings.append(Binding("scalar", p.name, str(t), values))
            else:
                what = "array" if isinstance(t, ArrayType) else str(t)
                bindings.append(Binding("unbound", p.name, f"parameter {p.name} of type {what}"))
        out[name] = bindings
    return out


Range = tuple[int | None, int | None]  # lowest and highest value, None: no bound

_REQUIRES = re.compile(r"__requires\s*\(\s*(\w+)\s*(==|>=|<=|>|<)\s*(-?\d+)\s*\)")


def kernel_text(text: str, kernel: str) -> str:
    """The source of ``kernel`` in ``text``: from its ``__global__`` to the next one (or the end)."""
    short = kernel.split("<", maxsplit=1)[0].rsplit("::", maxsplit=1)[-1]
    m = re.search(r"__global__[^;{]*\b" + re.escape(short) + r"\s*\(", text)
    if m is None:
        return ""
    end = text.find("__global__", m.end())
    return text[m.start() : end if end >= 0 else len(text)]


def required_ranges(text: str) -> dict[str, Range]:
    """The bounds ``__requires(NAME op INTEGER)`` lines of a kernel put on its parameters (``op`` one of
    ``== >= > <= <``); other preconditions are not read."""
    ranges: dict[str, Range] = {}
    for name, op, number in _REQUIRES.findall(text):
        lo, hi = ranges.get(name, (None, None))
        v = int(number)
        if op in ("==", ">=", ">"):
            low = v + 1 if op == ">" else v
            lo = low if lo is None else max(lo, low)
        if op in ("==", "<=", "<"):
            high = v - 1 if op == "<" else v
            hi = high if hi is None else min(hi, high)
        ranges[name] = (lo, hi)
    return ranges


def scalar_values(t: Any, threads: int, required: Range = (None, None)) -> tuple[str, ...]:
    """The values tried for a scalar parameter of type ``t``: an integer is the thread count, then 1, each
    clamped into the type and into what its ``__requires`` allow (``required``); a float 1.0; a bool true."""
    if t.is_float:
        return ("1.0",)
    if t.is_bool:
        return ("1",)
    lo = -(2 ** (t.bits - 1)) if t.is_signed else 0
    hi = 2 ** (t.bits - 1) - 1 if t.is_signed else 2**t.bits - 1
    lo = lo if required[0] is None else max(lo, required[0])
    hi = hi if required[1] is None else min(hi, required[1])
    return tuple(dict.fromkeys(str(max(lo, min(v, hi))) for v in (threads, 1)))


def assignments(bindings: Sequence[Binding]) -> list[tuple[str, ...]]:
    """The scalar assignments tried, as ``NAME=VALUE`` lists: the i-th takes each scalar's i-th value (its
    last where it has fewer); one (empty) assignment for a kernel without scalars."""
    scalars = [b for b in bindings if b.kind == "scalar"]
    count = max((len(b.values) for b in scalars), default=1)
    return [tuple(f"{b.name}={b.values[min(i, len(b.values) - 1)]}" for b in scalars) for i in range(count)]


@dataclass(slots=True)
class KernelOutcome:
    """larkc's answer on one kernel: ``verdict`` VERIFIED, FAILED, UNKNOWN, or ``error``, ``timeout``,
    ``unbound``; the refuted and unknown obligations; the first counterexample or reason."""

    kernel: str
    verdict: str
    refuted: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    detail: str = ""
    elements: int = 0  # the buffer size of the attempt reported
    scalars: str = ""  # the scalar assignment of the attempt reported
    seconds: float = 0.0


def verify_kernel(
    file: str,
    kernel: str,
    header: Header,
    bindings: Sequence[Binding],
    scalars: Sequence[str],
    elements: int,
    seconds: float,
) -> KernelOutcome:
    """``larkc verify`` on one kernel at the header's launch, with buffers of ``elements`` elements and the
    scalar assignment ``scalars``."""
    from larkc import command_line_task, verify
    from larkc.provers import Budget
    from larkc.provers.core import Status

    task = command_line_task(
        file,
        kernel,
        grid=[",".join(map(str, header.grid))],
        block=[",".join(map(str, header.block))],
        buffers=[f"{b.name}={b.text}[{elements}]" for b in bindings if b.kind == "buffer"],
        scalars=scalars,
        defines=dict(header.defines),
    )
    report = verify(task, budget=Budget(seconds=seconds), replay_dir=REPLAY_DIR)
    refuted = [r for r in report.results if r.status is Status.REFUTED]
    unknown = [r for r in report.results if r.status is Status.UNKNOWN]
    detail = ""
    if refuted and refuted[0].counterexample is not None:
        detail = refuted[0].counterexample.message
    elif unknown:
        detail = f"{unknown[0].obligation.name}: {unknown[0].detail}"
    return KernelOutcome(
        kernel,
        report.verdict.value,
        tuple(r.obligation.kind.value for r in refuted),
        tuple(r.obligation.kind.value for r in unknown),
        detail,
        elements,
        ", ".join(scalars),
    )


@dataclass(slots=True)
class TestResult:
    """One test file: its header, larkc's answer per kernel, and the comparison's category."""

    path: str
    expected: str = ""
    expected_kinds: tuple[str, ...] = ()
    launch: str = ""
    options: tuple[str, ...] = ()
    parse: str = "ok"  # "ok" or the first error line (a bad header, the frontend's error, a timeout)
    parse_category: str = ""
    kernels: list[KernelOutcome] = field(default_factory=list)
    larkc: str = ""  # VERIFIED, FAILED (kinds), UNKNOWN, not run (why), rejected
    category: str = ""
    seconds: float = 0.0


def run_test(path: str, file: Path, *, timeout: float, seconds: float) -> TestResult:
    """Header, kernels and bindings, then ``larkc verify`` per kernel (each step in a fork with a limit)."""
    start = time.monotonic()
    result = TestResult(path)
    try:
        header = parse_header(file.read_text(encoding="utf-8", errors="replace"))
    except HeaderError as e:
        result.parse, result.category = f"bad header: {e}", "bad header"
        return result
    result.expected, result.expected_kinds = header.expected, tuple(sorted(header.expected_kinds))
    result.options = header.options
    result.launch = f"grid {'x'.join(map(str, header.grid))}, block {'x'.join(map(str, header.block))}"
    status, found = in_fork(kernel_bindings, (str(file), dict(header.defines), header.threads), timeout)
    if status != "ok" or isinstance(found, str):
        result.parse = found if status == "error" and isinstance(found, str) else f"timeout: no parse in {timeout:g} s"
        result.parse_category = parse_category(result.parse)
    else:
        for kernel, bindings in found.items():
            result.kernels.append(verify_all(str(file), kernel, header, bindings, timeout, seconds))
    result.larkc = larkc_verdict(result)
    result.category = compare(result)
    result.seconds = round(time.monotonic() - start, 2)
    return result


#: The first words of larkc's error for a task whose values violate a precondition (``__requires``).
PRECONDITION_VIOLATED = "violate this precondition of the kernel"


def verify_all(
    file: str, kernel: str, header: Header, bindings: list[Binding], timeout: float, seconds: float
) -> KernelOutcome:
    """The kernel verified at each scalar assignment: the first FAILED outcome, else the first that is not
    VERIFIED, else VERIFIED (with the seconds of all attempts)."""
    unbound = [b.text for b in bindings if b.kind == "unbound"]
    if unbound:
        return KernelOutcome(kernel, "unbound", detail="; ".join(unbound))
    outcomes = []
    outside = None  # an assignment a __requires of the kernel rules out: not a verdict, skipped
    for scalars in assignments(bindings):
        outcome = _verify_with_retry(file, kernel, header, bindings, scalars, timeout, seconds)
        if outcome.verdict == "FAILED":
            return outcome
        if outcome.verdict == "error" and PRECONDITION_VIOLATED in outcome.detail:
            outside = outcome
            continue
        outcomes.append(outcome)
    if not outcomes:
        assert outside is not None
        return outside  # every value tried is outside the kernel's contract: not run (error)
    chosen = next((o for o in outcomes if o.verdict != "VERIFIED"), outcomes[-1])
    chosen.seconds = round(sum(o.seconds for o in outcomes), 2)
    return chosen


def _verify_with_retry(
    file: str,
    kernel: str,
    header: Header,
    bindings: list[Binding],
    scalars: tuple[str, ...],
    timeout: float,
    seconds: float,
) -> KernelOutcome:
    elements = max(MIN_ELEMENTS, THREADS_FACTOR * header.threads)
    while True:
        start = time.monotonic()
        args = (file, kernel, header, bindings, scalars, elements, seconds)
        status, got = in_fork(verify_kernel, args, timeout)
        if isinstance(got, KernelOutcome):
            outcome = got
        else:
            why = f"no verdict in {timeout:g} s" if status == "timeout" else str(got)
            outcome = KernelOutcome(kernel, status, detail=why, elements=elements, scalars=", ".join(scalars))
        outcome.seconds = round(time.monotonic() - start, 2)
        bigger = elements * RETRY_FACTOR
        has_buffer = any(b.kind == "buffer" for b in bindings)
        if "bounds" not in outcome.refuted or not has_buffer or bigger > MAX_ELEMENTS:
            return outcome
        elements = bigger


# ---- comparing with GPUVerify


#: (regular expression on a parse error, category) for errors this suite has many of, before
#: ``cuda_audit.categorise``'s table: GPUVerify's tests declare device functions without a body as
#: uninterpreted functions (``nondet()``), which the audit's table would split by name.
SUITE_CATEGORIES: tuple[tuple[str, str], ...] = (
    (r"device function \w+ is declared but never defined", "device function declared but never defined"),
    (r"unsupported type: curandState", "unsupported type: curand state"),
)


def parse_category(line: str) -> str:
    for regex, category in SUITE_CATEGORIES:
        if re.search(regex, line):
            return category
    return categorise(line)


def larkc_verdict(result: TestResult) -> str:
    """larkc's answer on the whole file: FAILED if a kernel failed, VERIFIED if all verified, ..."""
    if result.parse != "ok":
        return "rejected"
    verdicts = [k.verdict for k in result.kernels]
    if not verdicts:
        return "no kernel"
    if "FAILED" in verdicts:
        return "FAILED (" + ", ".join(sorted({r for k in result.kernels for r in k.refuted})) + ")"
    if all(v == "VERIFIED" for v in verdicts):
        return "VERIFIED"
    for why in ("error", "unbound"):
        if why in verdicts:
            return f"not run ({why})"
    return "UNKNOWN (timeout)" if "timeout" in verdicts else "UNKNOWN"


def compare(result: TestResult) -> str:
    """The test's category: how larkc's answer relates to the outcome GPUVerify's header expects.

    ``agree``: the same answer (for an expected failure, larkc refutes an obligation of the kind the header
    names, or any when it names none); ``agree, other kind``: larkc refutes, but not the named kind;
    ``weaker``: GPUVerify expects a failure, larkc verifies (a potential soundness problem); ``stricter``:
    GPUVerify expects ``pass``, larkc refutes; ``unknown``; ``not parsed``; ``not run``: a parameter the
    harness cannot bind, or larkc's error after parsing. A test GPUVerify itself rejects (``CLANG_ERROR``,
    ``BUGLE_ERROR``, ...) is ``both reject`` when larkc's frontend rejects it too, else ``larkc accepts``
    (``weaker`` when its header names a failure and larkc verifies). ``no kernel``: the file has device
    functions only.
    """
    verdict = result.larkc
    if verdict == "no kernel":
        return "no kernel"  # a file of device functions only: larkc verifies kernels
    rejected_by_gpuverify = result.expected not in ("PASS", "NOT_ALL_VERIFIED")
    if verdict == "rejected":
        return "both reject" if rejected_by_gpuverify else "not parsed"
    if rejected_by_gpuverify:
        if verdict == "VERIFIED" and set(result.expected_kinds) - {"constant-write"}:
            return "weaker"  # GPUVerify cannot translate it, its header says it is wrong, larkc verifies
        return f"larkc accepts ({verdict.split(' (')[0]})"
    if verdict.startswith("not run") or verdict == "no kernel":
        return "not run"
    if verdict.startswith("UNKNOWN"):
        return "unknown"
    failed = verdict.startswith("FAILED")
    if result.expected == "PASS":
        return "stricter" if failed else "agree"
    if not failed:
        return "weaker"
    refuted = {r for k in result.kernels for r in k.refuted}
    if not result.expected_kinds or refuted & set(result.expected_kinds):
        return "agree"
    return "agree, other kind"


# ---- the report


def render(results: Sequence[TestResult], manifest: Manifest, *, seconds: float, timeout: float) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parsed = sum(1 for r in results if r.parse == "ok")
    kernels = [k for r in results for k in r.kernels]
    lines = [
        f"larkc on GPUVerify's CUDA test suite at commit {git_head()}, {now}",
        f"{manifest.repository}@{manifest.commit[:12]}: {len(results)} tests, {len(kernels)} kernels run"
        f" (larkc verify, {seconds:g} s per obligation, {timeout:g} s per step)",
        "",
        f"parse: {pct(parsed, len(results))} of the test files",
        "",
        "expected outcome (GPUVerify) x larkc's answer:",
    ]
    table = collections.Counter((r.expected, r.larkc.split(" (")[0]) for r in results)
    answers = sorted({a for _, a in table})
    lines.append(f"  {'expected':<22}" + "".join(f"{a:>10}" for a in answers))
    for expected in sorted({e for e, _ in table}):
        lines.append(f"  {expected:<22}" + "".join(f"{table[(expected, a)]:>10}" for a in answers))
    lines += ["", "categories:"]
    for cat, n in collections.Counter(r.category for r in results).most_common():
        lines.append(f"  {n:>4}  {cat}")
    lines += ["", "parse errors by category:"]
    for cat, n in collections.Counter(r.parse_category for r in results if r.parse_category).most_common():
        example = next(r for r in results if r.parse_category == cat)
        lines.append(f"  {n:>4}  {cat}")
        lines.append(f"        e.g. {example.path}: {_short(example.parse)}")
    for title, cats in (
        ("weaker (GPUVerify expects a failure, larkc verifies)", ("weaker",)),
        ("stricter (GPUVerify expects pass, larkc refutes)", ("stricter",)),
        ("agree, other kind", ("agree, other kind",)),
        ("unknown and not run", ("unknown", "not run")),
    ):
        chosen = [r for r in results if r.category in cats]
        lines += ["", f"{title}: {len(chosen)}"]
        for r in chosen:
            lines.append(f"  {r.path}  expected {r.expected}{_kinds(r)}  larkc {r.larkc}  [{r.launch}]")
            for k in r.kernels:
                if k.verdict != "VERIFIED":
                    at = [k.scalars] if k.scalars else []
                    at += [f"buffers of {k.elements}"] if k.elements else []
                    where = f" [{'; '.join(at)}]" if at else ""
                    lines.append(f"      {k.kernel}{where}: {k.verdict}: {_short(k.detail)}")
    lines += ["", "tests:"]
    for r in results:
        opts = f" {' '.join(r.options)}" if r.options else ""
        where = _short(r.parse_category, 90) if r.parse != "ok" else r.larkc
        lines.append(f"  {r.path}: expected {r.expected}{_kinds(r)}; larkc {where} -> {r.category}  [{r.launch}{opts}]")
    return "\n".join(lines)


def _kinds(r: TestResult) -> str:
    return f" ({', '.join(r.expected_kinds)})" if r.expected_kinds else ""


def _short(text: str, width: int = 200) -> str:
    return short_line(text.replace(str(DEFAULT_ROOT) + "/", ""), width)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="where the tests are (OWNER+NAME/PATH)")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="OWNER+NAME/repo git directories")
    parser.add_argument("--materialise", action="store_true", help="copy the manifest's tests from the mirror first")
    parser.add_argument(
        "--write-manifest", metavar="COMMIT", help="list the mirror's testsuite/CUDA at COMMIT into --manifest, exit"
    )
    parser.add_argument("--json", type=Path, help="write the per-test results here")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per step (parse; verify of a kernel)")
    parser.add_argument("--seconds", type=float, default=8.0, help="larkc verify's budget per obligation")
    parser.add_argument("--only", help="only tests whose path contains this")
    args = parser.parse_args(argv)

    if args.write_manifest:
        repository = "mc-imperial/gpuverify"
        git_dir = mirror_dir(args.mirrors, repository)
        commit = subprocess.run(
            ["git", f"--git-dir={git_dir}", "rev-parse", args.write_manifest],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        data = {"repository": repository, "commit": commit, "paths": list_tests(git_dir, commit)}
        args.manifest.parent.mkdir(parents=True, exist_ok=True)
        args.manifest.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return 0
    manifest = load_manifest(args.manifest)
    base = args.root / manifest.repository.replace("/", "+")
    if args.materialise:
        materialise(manifest, args.root, args.mirrors)
    import torch

    import larkc.pipeline.verify  # noqa: F401  (imported once here, so that each fork starts warm)

    torch.set_num_threads(1)
    results = []
    for path in manifest.paths:
        if args.only is not None and args.only not in path:
            continue
        file = base / path
        if not file.exists():
            raise SystemExit(f"{file}: missing (run with --materialise)")
        r = run_test(path, file, timeout=args.timeout, seconds=args.seconds)
        results.append(r)
        print(f"{path}: {r.expected} -> {r.larkc}: {r.category} ({r.seconds:.1f} s)", file=sys.stderr, flush=True)
    print(render(results, manifest, seconds=args.seconds, timeout=args.timeout))
    if args.json is not None:
        args.json.write_text(
            json.dumps({"commit": git_head(), "results": [asdict(r) for r in results]}, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
