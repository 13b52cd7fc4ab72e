"""The z3 world of a parametric proof: a task's sizes, tensors and launch as integer facts.

Everything the parametric prover (:mod:`larkc.provers.parametric`) reasons about is a z3 term over
*registered variables*:

* the task's **symbols** (unbounded integers, each at least 1), with the task's constraints, every
  tensor at most ``task.max_tensor_bytes`` bytes and the shape expressions defined (no division by
  zero); launch dimensions are terms over them;
* per-block and per-thread variables (``blockIdx``, ``threadIdx``), iteration counters of loops and
  fresh values (loaded data, havocked loop values). Each has a :class:`VarLevel` saying which threads
  share it, so that a formula about "one generic thread" can be instantiated for two distinct threads
  (:meth:`Registry.instance`), and an ``exact`` flag saying whether a solver's value for it is realised
  by an actual execution (so that a satisfying model is a genuine counterexample, not an artefact of
  an over-approximation).

:class:`Session` wraps one z3 solver with the world's facts, a resource limit per call (z3's
``rlimit``: machine-independent) and a wall-clock deadline as a safety net; either is an ``unknown``
answer, never a proof.
"""

from __future__ import annotations

import enum
import itertools
import math
import operator
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

import z3

from larkc.tasks import Task
from larkc.tasks.shape_expr import (
    ArithOp,
    BoolOp,
    CmpOp,
    ShapeArith,
    ShapeBool,
    ShapeCall,
    ShapeCmp,
    ShapeExpr,
    ShapeNot,
    ShapeNum,
    ShapeSym,
)

__all__ = [
    "Answer",
    "Registry",
    "Session",
    "VarInfo",
    "VarLevel",
    "World",
    "Z",
    "floor_div",
    "shape_text",
]

#: A z3 term (z3 ships no type information, so every term is ``Any`` to the type checker).
Z = Any

#: CUDA's launch limits (compute capability 3.0 and later).
MAX_BLOCK_THREADS = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2**31 - 1, 65535, 65535)
#: The most shared memory one block may have on any GPU: 227 KiB on an H100 (the opt-in maximum of
#: compute capability 9.0, ``cudaDevAttrMaxSharedMemoryPerBlockOptin``); a launch asking more fails.
MAX_SHARED_BYTES_PER_BLOCK = 227 * 1024
#: The first attempt of each solver configuration, in z3 resource units (``rlimit``), before the full
#: limit of the call (:attr:`~larkc.provers.Budget.solver_rlimit`). Resource units count z3's own steps:
#: the same formulas get the same answer on any machine and under any load (about 1 to 5 million a
#: second on a 2025 core).
QUICK_RLIMIT = 2_000_000


def rlimit_count(solver: Z) -> int:
    """z3's resource counter (cumulative over the process's z3 context): what a call used is the
    difference of two readings."""
    stats = solver.statistics()
    names = list(stats.keys())  # z3's Statistics iterates by position, not by name
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in names else 0


def safety_net_reason(seconds: float) -> str:
    """Why a solver or normaliser stopped at the wall-clock safety net: unlike a resource limit, this
    depends on the machine and its load, and the reason says so."""
    return f"wall-clock safety net of {seconds:g} s reached: this verdict depends on machine load (--seconds)"


class VarLevel(enum.Enum):
    """Which threads share the value of a registered variable."""

    GLOBAL = "global"  # every thread of the launch: symbols, launch dimensions, functions of them
    BLOCK = "block"  # every thread of one block: blockIdx
    ITER = "iter"  # a loop's iteration counter: per thread, but a value it alone determines is uniform
    THREAD = "thread"  # one thread: threadIdx, values read from memory, havocked loop values


@dataclass
class VarInfo:
    """What the prover knows about one registered variable (or uninterpreted function).

    ``exact``: any value a model gives it (within its facts) is realised by some execution, so a model
    over exact variables only is a genuine counterexample. ``data``: it stands for memory contents or
    a floating-point computation, not for sizes or indices. ``facts``: its domain (in base variables).
    ``sites``: overflow sites whose (possibly wrapped) result may flow into it.
    """

    name: str
    level: VarLevel
    exact: bool
    data: bool
    what: str
    facts: list[Z] = field(default_factory=list)
    sites: set[int] = field(default_factory=set)
    slots: dict[str, list[Z]] = field(default_factory=dict)

    def all_facts(self) -> list[Z]:
        """The domain facts plus the facts set per slot (a loop's invariants at iteration k, at exit)."""
        out = list(self.facts)
        for fs in self.slots.values():
            out += fs
        return out


class Registry:
    """The variables and uninterpreted functions of one analysis, and operations over their terms."""

    def __init__(self) -> None:
        self.vars: dict[str, VarInfo] = {}
        self.decls: dict[str, Z] = {}
        self._counter = itertools.count()
        # By AST id; the term is kept so that its id is never reused for another term.
        self._free: dict[int, tuple[Z, frozenset[str]]] = {}
        self._renamed: dict[tuple[str, str], Z] = {}

    def _name(self, base: str) -> str:
        return f"{base}#{next(self._counter)}"

    def int_var(
        self,
        base: str,
        level: VarLevel,
        *,
        exact: bool,
        data: bool = False,
        lo: int | Z | None = None,
        hi: int | Z | None = None,
        what: str = "",
        exact_name: bool = False,
    ) -> Z:
        """A fresh integer variable with ``lo <= v <= hi`` (bounds optional) as its domain facts."""
        name = base if exact_name else self._name(base)
        v = z3.Int(name)
        facts = []
        if lo is not None:
            facts.append(v >= lo)
        if hi is not None:
            facts.append(v <= hi)
        self.vars[name] = VarInfo(name, level, exact, data, what or base, facts)
        self.decls[name] = v
        return v

    def bool_var(self, base: str, level: VarLevel, *, exact: bool, data: bool = False, what: str = "") -> Z:
        name = self._name(base)
        v = z3.Bool(name)
        self.vars[name] = VarInfo(name, level, exact, data, what or base)
        self.decls[name] = v
        return v

    def function(self, base: str, arity: int, *, exact: bool, sort: Z, what: str = "") -> Z:
        """A fresh uninterpreted function of ``arity`` integer arguments (registered at GLOBAL level:
        its arguments carry the block and iteration it is applied to)."""
        name = self._name(base)
        f = z3.Function(name, *([z3.IntSort()] * arity), sort)
        self.vars[name] = VarInfo(name, VarLevel.GLOBAL, exact, False, what or base)
        self.decls[name] = f
        return f

    def info(self, name: str) -> VarInfo:
        return self.vars[name]

    def free(self, e: Z) -> frozenset[str]:
        """The registered variables and functions occurring in ``e``."""
        key = e.get_id()
        hit = self._free.get(key)
        if hit is not None:
            return hit[1]
        out: set[str] = set()
        stack = [e]
        seen: set[int] = set()
        while stack:
            t = stack.pop()
            tid = t.get_id()
            if tid in seen:
                continue
            seen.add(tid)
            cached = self._free.get(tid)
            if cached is not None:
                out |= cached[1]
                continue
            if z3.is_app(t):
                d = t.decl()
                if d.kind() == z3.Z3_OP_UNINTERPRETED:
                    n = d.name()
                    if n in self.vars:
                        out.add(n)
                stack.extend(t.children())
            elif z3.is_quantifier(t):  # never built by the prover; kept total
                stack.append(t.body())
        result = frozenset(out)
        self._free[key] = (e, result)
        return result

    def free_all(self, es: Iterable[Z]) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for e in es:
            out |= self.free(e)
        return out

    def facts(self, names: Iterable[str]) -> list[Z]:
        """The domain facts of ``names`` and of every variable those facts mention, transitively."""
        todo = sorted(names)  # in name order: z3's search depends on the order of facts
        done: set[str] = set()
        out: list[Z] = []
        while todo:
            n = todo.pop()
            if n in done:
                continue
            done.add(n)
            for f in self.vars[n].all_facts():
                out.append(f)
                todo.extend(sorted(self.free(f) - done))
        return out

    def all_exact(self, names: Iterable[str]) -> bool:
        return all(self.vars[n].exact for n in names)

    def inexact(self, names: Iterable[str]) -> list[VarInfo]:
        return [self.vars[n] for n in sorted(names) if not self.vars[n].exact]

    def any_data(self, names: Iterable[str]) -> bool:
        return any(self.vars[n].data for n in names)

    def has_level(self, e: Z, level: VarLevel) -> bool:
        return any(self.vars[n].level is level for n in self.free(e))

    def renamed(self, name: str, tag: str) -> Z:
        key = (name, tag)
        hit = self._renamed.get(key)
        if hit is None:
            v = self.decls[name]
            hit = z3.Const(f"{name}!{tag}", v.sort())
            self._renamed[key] = hit
        return hit

    def instance(self, es: Sequence[Z], thread: str, block: str, iteration: str) -> list[Z]:
        """``es`` with every THREAD variable renamed for thread instance ``thread``, every BLOCK
        variable for block instance ``block`` and every ITER variable for ``iteration`` (two threads
        of one block share ``block``; the barrier check lets two threads share ``iteration``)."""
        names = sorted(self.free_all(es))  # a set's order varies between processes (string hashing)
        pairs = []
        for n in names:
            info = self.vars[n]
            if n not in self.decls or z3.is_func_decl(self.decls[n]):
                continue
            match info.level:
                case VarLevel.GLOBAL:
                    continue
                case VarLevel.BLOCK:
                    tag = block
                case VarLevel.ITER:
                    tag = iteration
                case VarLevel.THREAD:
                    tag = thread
                case _:
                    assert_never(info.level)
            pairs.append((self.decls[n], self.renamed(n, tag)))
        if not pairs:
            return list(es)
        return [z3.substitute(e, *pairs) for e in es]

    def base_name(self, renamed: str) -> str:
        return renamed.split("!", 1)[0]


def floor_div(a: Z, b: Z) -> Z:
    """Python's ``a // b`` (floor) over z3 integers; z3's ``/`` is floor division for ``b > 0``."""
    if z3.is_int_value(b):
        bv = b.as_long()
        return a / bv if bv > 0 else (-a) / (-bv)
    return z3.If(b > 0, a / b, (-a) / (-b))


def _strip(text: str) -> str:
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(text) - 1:
                return text
        return text[1:-1]
    return text


def shape_text(e: ShapeExpr) -> str:
    """A shape expression as text, without its outermost parentheses."""
    return _strip(str(e))


class World:
    """The facts every size the task allows satisfies, and the launch as terms over its symbols.

    ``facts`` hold for every allowed size (the scope's constraints); ``launch_facts`` state that the
    launch is one CUDA accepts (larger launches fail before the kernel runs; the launch obligation shows
    that every allowed size gives one, so the other obligations may take them);
    ``scope`` is the text of the constraints, ``launch_text`` of the launch assumption.
    """

    def __init__(self, task: Task, reg: Registry, max_threads: int | None, programs: bool = False) -> None:
        self.task = task
        self.reg = reg
        self.facts: list[Z] = []
        self.scope: list[str] = []
        self.syms: dict[str, Z] = {}
        for s in task.symbols:
            self.syms[s] = reg.int_var(s, VarLevel.GLOBAL, exact=True, lo=1, what=f"symbol {s}", exact_name=True)
            self.facts.append(self.syms[s] >= 1)
        for c in task.constraints:
            self.facts.append(self.cond(c))
            self.scope.append(shape_text(c))
        self.tensor_bytes: dict[str, Z] = {}
        self.tensor_elems: dict[str, Z] = {}
        for name, spec in task.tensors.items():
            elems: Z = z3.IntVal(1)
            for d in spec.shape:
                dim = self.int(d)
                self.facts.append(dim >= 0)
                elems = elems * dim
            nbytes = elems * spec.dtype.size
            self.tensor_elems[name] = elems
            self.tensor_bytes[name] = nbytes
            self.facts.append(nbytes <= task.max_tensor_bytes)
            dims = " * ".join(_paren(shape_text(d)) for d in spec.shape) or "1"
            self.scope.append(f"{spec.dtype.size} * {dims} <= {task.max_tensor_bytes} (bytes of {name})")
            if spec.low is not None and spec.high is not None:
                self.facts.append(self.int(spec.low) < self.int(spec.high))
        self.grid = self._dims(task.grid)
        self.block = self._dims(task.block)
        self.shared_bytes = self.int(task.shared_bytes)
        self.facts.append(self.shared_bytes >= 0)
        self.max_threads = min(MAX_BLOCK_THREADS, max_threads or MAX_BLOCK_THREADS)
        lf = []
        for i in range(3):
            lf += [self.grid[i] >= 1, self.grid[i] <= MAX_GRID_DIMS[i]]
            lf += [self.block[i] >= 1, self.block[i] <= MAX_BLOCK_DIMS[i]]
        lf.append(self.block[0] * self.block[1] * self.block[2] <= self.max_threads)
        self.launch_facts = lf
        bound = "__launch_bounds__ " if max_threads and max_threads < MAX_BLOCK_THREADS else ""
        # The other obligations are about launches that run; the launch obligation (provers/launch.py)
        # decides for every allowed size that the launch is one, so these facts are justified, not assumed.
        if programs:  # a block-level (Triton) kernel: the grid's limits are CUDA's, blocks are programs
            self.launch_text = (
                "the other obligations are about valid launches (the launch obligation): the grid has at most"
                " 2^31 - 1 programs along axis 0 and 65535 along axes 1 and 2"
            )
        else:
            self.launch_text = (
                "the other obligations are about valid launches (the launch obligation): 1 <= blockDim.x *"
                f" blockDim.y * blockDim.z <= {self.max_threads} ({bound}limit), gridDim.x <= 2^31 - 1,"
                " gridDim.y, gridDim.z <= 65535"
            )

    def _dims(self, dims: tuple[ShapeExpr, ...]) -> tuple[Z, Z, Z]:
        vals = [self.int(d) for d in dims] + [z3.IntVal(1)] * (3 - len(dims))
        return vals[0], vals[1], vals[2]

    # -- shape expressions --------------------------------------------------------------------------

    def int(self, e: ShapeExpr) -> Z:
        """An arithmetic shape expression as a z3 integer term (definedness facts are recorded)."""
        v = self._shape(e)
        return z3.If(v, 1, 0) if z3.is_bool(v) else v

    def cond(self, e: ShapeExpr) -> Z:
        """A boolean shape expression (a constraint) as a z3 formula."""
        v = self._shape(e)
        return v if z3.is_bool(v) else v != 0

    def _shape(self, e: ShapeExpr) -> Z:
        match e:
            case ShapeNum(value):
                return z3.IntVal(value)
            case ShapeSym(name):
                return self.syms[name]
            case ShapeArith(op, lhs, rhs):
                a, b = self.int(lhs), self.int(rhs)
                match op:
                    case ArithOp.ADD:
                        return a + b
                    case ArithOp.SUB:
                        return a - b
                    case ArithOp.MUL:
                        return a * b
                    case ArithOp.FLOORDIV:
                        self._nonzero(b)
                        return floor_div(a, b)
                    case ArithOp.MOD:
                        self._nonzero(b)
                        return a - b * floor_div(a, b)
                    case _:
                        assert_never(op)
            case ShapeCall(fn, args):
                vals = [self.int(a) for a in args]
                if fn == "cdiv":
                    self._nonzero(vals[1])
                    return -floor_div(-vals[0], vals[1])
                if fn in ("min", "max"):
                    out = vals[0]
                    for v in vals[1:]:
                        out = z3.If(v < out, v, out) if fn == "min" else z3.If(v > out, v, out)
                    return out
                if fn == "pow2":
                    return self._pow2(vals[0])
                if fn == "next_pow2":
                    return self._next_pow2(vals[0])
                raise ValueError(f"unknown shape function {fn}")
            case ShapeCmp(op, lhs, rhs):
                return _COMPARE[op](self.int(lhs), self.int(rhs))
            case ShapeBool(op, args):
                parts = [self.cond(a) for a in args]
                return z3.And(*parts) if op is BoolOp.AND else z3.Or(*parts)
            case ShapeNot(operand):
                return z3.Not(self.cond(operand))
            case _:
                assert_never(e)

    def _nonzero(self, b: Z) -> None:
        if not (z3.is_int_value(b) and b.as_long() != 0):
            self.facts.append(b != 0)

    def _pow2(self, a: Z) -> Z:
        a = z3.simplify(a)
        if z3.is_int_value(a) and a.as_long() >= 0:
            return z3.IntVal(2 ** a.as_long())
        p = self.reg.int_var("pow2", VarLevel.GLOBAL, exact=True, what="pow2(...)")
        self.facts.append(z3.Or(*[z3.And(a == i, p == 2**i) for i in range(64)]))
        return p

    def _next_pow2(self, a: Z) -> Z:
        a = z3.simplify(a)
        if z3.is_int_value(a):
            n, p = a.as_long(), 1
            while p < n:
                p *= 2
            return z3.IntVal(p)
        p = self.reg.int_var("next_pow2", VarLevel.GLOBAL, exact=True, what="next_pow2(...)")
        self.facts.append(z3.Or(*[p == 2**i for i in range(64)]))
        self.facts.append(p >= a)
        self.facts.append(z3.Or(p == 1, p < 2 * a))
        return p


#: Comparisons of shape expressions as z3 formulas (z3 overloads Python's comparison operators).
_COMPARE = {
    CmpOp.EQ: operator.eq,
    CmpOp.NE: operator.ne,
    CmpOp.LT: operator.lt,
    CmpOp.LE: operator.le,
    CmpOp.GT: operator.gt,
    CmpOp.GE: operator.ge,
}


def _paren(text: str) -> str:
    return text if text.replace("_", "").isalnum() else f"({text})"


class Answer(enum.Enum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass
class Outcome:
    """One solver call: the answer, the model when satisfiable, why it is unknown, its duration."""

    answer: Answer
    model: Z = None
    reason: str = ""
    seconds: float = 0.0


class Session:
    """Two z3 solvers holding the world's facts; ``check`` decides a conjunction of extra formulas.

    z3's default arithmetic solver handles the nonlinear terms of index arithmetic well but can miss
    modular reasoning over linear terms (``128 * b + t + 512 * k``); its older simplex-based solver
    (``smt.arith.solver=2``) is the reverse. A call tries each for at most :data:`QUICK_RLIMIT` resource
    units, then each again with the full ``rlimit``, and answers unknown only when all attempts do.

    The work of a call is bounded in z3's resource units (``rlimit``, set per call: z3 counts it from
    the call's start), so that its answer does not depend on the machine or its load. ``deadline``
    (``time.monotonic()``, from the budget's seconds) is only a safety net: a call running into it
    answers unknown with a reason that says the verdict depends on the load (:func:`safety_net_reason`).

    Consecutive calls share the longest common prefix of their conjunctions on a solver's stack (path
    conditions grow by appending, so most calls only push their last few formulas).
    """

    def __init__(self, facts: Sequence[Z], rlimit: int, deadline: float, seconds: float = 0.0) -> None:
        self.rlimit = max(1, int(rlimit))
        self.deadline = deadline
        self.budget_seconds = seconds  # the safety net's length, for its reason
        self._solvers: list[Z] = []
        self._stacks: list[list[int]] = []
        for arith in (None, 2):
            solver = z3.Solver()
            if arith is not None:
                solver.set("smt.arith.solver", arith)
            for f in facts:
                solver.add(f)
            self._solvers.append(solver)
            self._stacks.append([])
        self.calls = 0
        self.seconds = 0.0
        self.units = 0  # z3's resource units the calls used (deterministic: the machine's load changes none)

    def _load(self, i: int, conjuncts: Sequence[Z]) -> Z:
        solver, stack = self._solvers[i], self._stacks[i]
        ids = [c.get_id() for c in conjuncts]
        common = 0
        while common < min(len(ids), len(stack)) and ids[common] == stack[common]:
            common += 1
        if common < len(stack):
            solver.pop(len(stack) - common)
            del stack[common:]
        for c, cid in zip(conjuncts[common:], ids[common:], strict=True):
            solver.push()
            solver.add(c)
            stack.append(cid)
        return solver

    def check(self, conjuncts: Sequence[Z], *, want_model: bool = True, rlimit: int | None = None) -> Outcome:
        """Decide the conjunction; ``rlimit`` (at most the session's) for a best-effort call that tries
        each solver once."""
        t0 = time.monotonic()
        self.calls += 1
        why = ""
        if rlimit is not None:
            limit = max(1, min(rlimit, self.rlimit))
            attempts = [(0, limit), (1, limit)]
        else:
            quick = min(QUICK_RLIMIT, self.rlimit)
            attempts = [(0, quick), (1, quick)]
            if self.rlimit > quick:
                attempts += [(0, self.rlimit), (1, self.rlimit)]
        for i, units in attempts:
            remaining_ms = (self.deadline - time.monotonic()) * 1000
            if remaining_ms <= 0:
                why = safety_net_reason(self.budget_seconds)
                break
            solver = self._load(i, conjuncts)
            solver.set("rlimit", units)
            solver.set("timeout", max(1, int(min(remaining_ms, 2**31 - 1))))
            before = rlimit_count(solver)
            r = solver.check()
            self.units += rlimit_count(solver) - before
            if r == z3.sat:
                self.seconds += time.monotonic() - t0
                return Outcome(Answer.SAT, solver.model() if want_model else None, seconds=time.monotonic() - t0)
            if r == z3.unsat:
                self.seconds += time.monotonic() - t0
                return Outcome(Answer.UNSAT, seconds=time.monotonic() - t0)
            reason = solver.reason_unknown()
            if rlimit_count(solver) - before >= units:
                why = f"z3 reached its resource limit of {units} units (rlimit)"
            elif "timeout" in reason or "canceled" in reason:
                why = safety_net_reason(self.budget_seconds)
                break
            elif not why:
                why = f"z3 answered unknown ({reason})"
        self.seconds += time.monotonic() - t0
        return Outcome(Answer.UNKNOWN, reason=why, seconds=time.monotonic() - t0)


def model_int(model: Z, e: Z) -> int | None:
    """The integer value of ``e`` in ``model`` (completing the model), or None if it is not a number."""
    v = model.eval(e, model_completion=True)
    return v.as_long() if z3.is_int_value(v) else None


#: Steps of the search for the smallest model (each one solver call of at most MINIMIZE_RLIMIT units), and
#: the z3 resource units the whole search may use: a deterministic budget, so that the witness a search
#: returns (and whether its sizes can be simulated, which can decide the verdict) does not depend on the
#: machine's load. The session's wall-clock safety net still applies to each call.
MINIMIZE_STEPS = 40
MINIMIZE_RLIMIT = 4_000_000
MINIMIZE_UNITS = 10 * MINIMIZE_RLIMIT


def minimize_sum(
    session: Session, syms: Sequence[Z], conjuncts: Sequence[Z], model: Z, max_units: int = MINIMIZE_UNITS
) -> Z:
    """A model of ``conjuncts`` with the least sum of ``syms`` (binary search from ``model``, best effort: a
    step that does not decide, or ``max_units`` of z3's resource units spent, ends the search with the best
    model so far)."""
    if not syms:
        return model
    total = z3.Sum(*syms)
    best = model_int(model, total)
    if best is None:
        return model
    lo = len(syms)
    start = session.units
    for _ in range(MINIMIZE_STEPS):
        if lo >= best or session.units - start >= max_units:
            break
        mid = (lo + best) // 2
        out = session.check([*conjuncts, total <= mid], rlimit=MINIMIZE_RLIMIT)
        if out.answer is Answer.SAT:
            model = out.model
            best = model_int(model, total) or mid
        elif out.answer is Answer.UNSAT:
            lo = mid + 1
        else:
            break
    return model


def log2_text(v: int) -> str:
    """``2^k`` when ``v`` is a power of two, else the number."""
    if v > 0 and v & (v - 1) == 0 and v >= 1024:
        return f"2^{int(math.log2(v))}"
    return str(v)
