"""How many KernelBench problems larkc's reference frontend traces, and what stops the rest.

    .venv/bin/python benchmarks/kernelbench_trace.py --root /work/kb/KernelBench
    .venv/bin/python benchmarks/kernelbench_trace.py --root ... --levels 1 2 --json out.json --out table.txt

Every ``level{N}/*.py`` file under ``--root`` is traced with ``trace_reference(path)`` (its own
``get_inputs()`` sizes) in a forked child with a wall-clock timeout and an address-space cap. Outcomes:

* ``traced``: a verified spec graph;
* ``unsupported``: an ATen op without a handler (the op is counted in the top-missing table);
* ``export``: torch.export rejected the reference (a located error);
* ``error``: another located :class:`~larkc.errors.LarkcError` (an unsupported operand or dtype, ...);
* ``memory``: the problem's ``get_inputs()``/``get_init_inputs()`` tensors do not fit under the cap, even
  shrunk (below).
* ``timeout``: the child ran past ``--timeout``;
* ``crash``: anything else (a Python traceback: a bug of larkc's, to be fixed).

With ``--shrink auto`` (the default) a problem whose tensors do not fit is traced again from a shrunk
copy (in a temporary folder): every module-level integer constant (or tuple or list of them) of at least 256 is halved
while it is even and at least 256, which keeps the ops and the divisibility of the sizes. ``--shrink always`` traces
the shrunk copy of every problem that has such constants (much faster: KernelBench's inputs are up to
gigabytes of random numbers); ``never`` traces only the problems' own sizes. A problem traced from a copy
is counted under ``shrunk`` in the table (the ops are the same; the sizes are not the problem's).

The KernelBench files are read from ``--root`` (a checkout outside this repository); none is copied.
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import json
import multiprocessing
import multiprocessing.connection
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402

from larkc.errors import LarkcError  # noqa: E402
from larkc.reference import trace_reference  # noqa: E402

OUTCOMES = ("traced", "unsupported", "export", "error", "memory", "timeout", "crash")
_UNSUPPORTED_RE = re.compile(r"unsupported op (\S+)")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of tracing one problem file."""

    level: int
    file: str
    outcome: str  # one of OUTCOMES
    detail: str  # the first line of the error, or the number of spec nodes
    op: str | None  # the missing ATen op of an ``unsupported`` outcome
    seconds: float
    shrunk: bool = False  # traced from a copy with smaller module-level sizes


def _classify(e: BaseException) -> tuple[str, str, str | None]:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if isinstance(e, MemoryError) or "DefaultCPUAllocator" in str(e) or "not enough memory" in str(e):
        return "memory", text[:200], None
    if isinstance(e, LarkcError):
        message = getattr(e, "message", text)
        m = _UNSUPPORTED_RE.search(message)
        if m:
            return "unsupported", message.splitlines()[0][:200], m.group(1).rstrip(":")
        if "torch.export" in message or "export" in message.split(":")[0]:
            return "export", message.splitlines()[0][:200], None
        if "MemoryError" in message or "DefaultCPUAllocator" in message or "not enough memory" in message:
            return "memory", message.splitlines()[0][:200], None
        return "error", message.splitlines()[0][:200], None
    return "crash", f"{type(e).__name__}: {text}"[:200], None


def _child(path: str, mem_bytes: int, conn: multiprocessing.connection.Connection) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    torch.set_num_threads(1)
    try:
        graph = trace_reference(path)
        conn.send(("traced", f"{len(graph.nodes)} nodes", None))
    except BaseException as e:  # every failure is classified and reported
        conn.send(_classify(e))
    finally:
        conn.close()


def trace_one(level: int, path: Path, timeout: float, mem_gib: float) -> Outcome:
    """Trace ``path`` in a forked child; never raises."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    mem = int(_vm_size() + mem_gib * 2**30)
    proc = ctx.Process(target=_child, args=(str(path), mem, send))
    start = time.monotonic()
    proc.start()
    send.close()
    result: tuple[str, str, str | None] | None = None
    if recv.poll(timeout):
        try:
            result = recv.recv()
        except EOFError:
            result = None
    proc.join(5 if result is not None else 0)
    if proc.is_alive():
        proc.kill()
        proc.join()
    seconds = time.monotonic() - start
    if result is None:
        if seconds >= timeout:
            result = ("timeout", f"no result after {timeout:.0f} s", None)
        else:
            result = ("crash", f"child exited with code {proc.exitcode}", None)
    return Outcome(level, path.name, result[0], result[1], result[2], round(seconds, 2))


def trace_problem(level: int, path: Path, timeout: float, mem_gib: float, shrink: str = "auto") -> Outcome:
    """Trace ``path`` (``shrink``: see the module docstring)."""
    small = shrink_source(path.read_text()) if shrink != "never" else None
    first: Outcome | None = None
    if small is None or shrink == "auto":
        first = trace_one(level, path, timeout, mem_gib)
        if small is None or first.outcome != "memory":
            return first
    with tempfile.TemporaryDirectory(prefix="kb-shrunk-") as tmp:
        copy = Path(tmp) / path.name
        copy.write_text(small)
        second = trace_one(level, copy, timeout, mem_gib)
    detail = second.detail.replace(str(copy), str(path))
    seconds = second.seconds + (first.seconds if first else 0.0)
    return Outcome(level, path.name, second.outcome, detail, second.op, round(seconds, 2), True)


def _small(value: int) -> int:
    while value >= 256 and value % 2 == 0:
        value //= 2
    return value


def _shrunk(node: ast.expr) -> ast.expr | None:
    """The shrunk literal of an integer constant expression (or a tuple of them), None if unchanged."""
    if isinstance(node, ast.Tuple | ast.List):
        items = [_shrunk(e) for e in node.elts]
        if all(i is None for i in items):
            return None
        elts = [i if i is not None else e for i, e in zip(items, node.elts, strict=True)]
        if isinstance(node, ast.List):
            return ast.copy_location(ast.List(elts=elts, ctx=ast.Load()), node)
        return ast.copy_location(ast.Tuple(elts=elts, ctx=ast.Load()), node)
    arithmetic = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)
    if not all(isinstance(n, arithmetic) for n in ast.walk(node)):
        return None
    try:  # arithmetic on literals only (checked above)
        value = eval(compile(ast.Expression(node), "<size>", "eval"), {"__builtins__": {}})
    except ArithmeticError:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and _small(value) != value:
        return ast.copy_location(ast.Constant(_small(value)), node)
    return None


def shrink_source(text: str) -> str | None:
    """``text`` with its module-level integer constants (``batch = 4096``, ``dim = 16384 * 2``,
    ``shape = (4096,)``, ``layers = [4096, 4096]``) of 256 or more halved while even and >= 256; ``None``
    when there is none."""
    tree = ast.parse(text)
    changed = False
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
            continue
        small = _shrunk(stmt.value)
        if small is not None:
            stmt.value = small
            changed = True
    return ast.unparse(tree) if changed else None


def _vm_size() -> int:
    """This process's virtual size in bytes (the cap is on top of what importing torch mapped)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _problem_key(path: Path) -> tuple[int, str]:
    head = path.name.split("_", 1)[0]
    return (int(head) if head.isdigit() else 10**6, path.name)


def render(outcomes: list[Outcome], header: str) -> str:
    """The per-level table and the top missing ops, as text."""
    lines = [header, ""]
    levels = sorted({o.level for o in outcomes})
    cols = ["level", "files", *OUTCOMES, "shrunk", "traced %"]
    lines.append(" | ".join(f"{c:>11}" for c in cols))
    for level in levels:
        mine = [o for o in outcomes if o.level == level]
        counts = collections.Counter(o.outcome for o in mine)
        row = [str(level), str(len(mine)), *(str(counts[k]) for k in OUTCOMES)]
        row.append(str(sum(o.shrunk for o in mine)))
        row.append(f"{100 * counts['traced'] / max(len(mine), 1):.0f}%")
        lines.append(" | ".join(f"{c:>11}" for c in row))
    missing = collections.Counter(o.op for o in outcomes if o.op)
    lines += ["", "top missing ATen ops (problems stopped by each, first missing op only):"]
    for op, count in missing.most_common(25):
        where = collections.Counter(o.level for o in outcomes if o.op == op)
        per = ", ".join(f"L{k}: {v}" for k, v in sorted(where.items()))
        lines.append(f"  {count:4d}  {op}  ({per})")
    lines += [
        "",
        "shrunk: traced from a copy with module-level sizes >= 256 halved (--shrink always, or the problem's",
        "own tensors did not fit in the address-space cap); counted in the other columns by that copy's outcome.",
        "",
        "other failures:",
    ]
    for o in outcomes:
        if o.outcome not in ("traced", "unsupported"):
            lines.append(f"  L{o.level} {o.file}: {o.outcome}: {o.detail}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="the KernelBench folder holding level1/ ...")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per problem")
    parser.add_argument("--mem-gib", type=float, default=6.0, help="address space per problem, above torch's")
    parser.add_argument("--shrink", choices=("auto", "always", "never"), default="auto")
    parser.add_argument("--match", default="", help="only files whose name contains this")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    parser.add_argument("--out", type=Path, help="write the table here (first line: commit and date)")
    parser.add_argument("--render", type=Path, nargs="+", help="no tracing: the table of these --json files")
    args = parser.parse_args(argv)
    outcomes: list[Outcome] = []
    for saved in args.render or []:
        outcomes += [Outcome(**o) for o in json.loads(saved.read_text())]
    for level in args.levels if not args.render else []:
        files = sorted((args.root / f"level{level}").glob("*.py"), key=_problem_key)
        for path in files:
            if args.match not in path.name:
                continue
            o = trace_problem(level, path, args.timeout, args.mem_gib, args.shrink)
            mark = " [shrunk]" if o.shrunk else ""
            print(f"L{o.level} {o.file}: {o.outcome}{mark} {o.op or o.detail} ({o.seconds:.1f} s)", flush=True)
            outcomes.append(o)
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    settings = f"--shrink {args.shrink}, --timeout {args.timeout:g} s, --mem-gib {args.mem_gib:g}"
    if args.render:
        settings = "outcomes of " + ", ".join(p.name for p in args.render)
    header = f"larkc {commit or '?'} ({now}): KernelBench reference tracing, torch {torch.__version__}, {settings}"
    table = render(outcomes, header)
    print(table)
    if args.out:
        args.out.write_text(table)
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
