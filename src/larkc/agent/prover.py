"""The agent prover: a model proposes loop invariants, the engine checks them (issue 24, ``docs/agent.md``).

For a task whose ``equivalence`` the all-size prover leaves unknown, the model gets the kernel (with line
numbers), the reference, the loops the engine summarised and the engine's reason, and tools:

* ``propose_invariant``: loop invariants in the text of ``provers/hints.py``; the engine checks them
  (:func:`larkc.provers.allsize.prove_allsize` with the hints) and answers with each check's outcome and
  whether equivalence is now proved for every size;
* ``simulate``: the simulator at given sizes (does the kernel agree with the reference there);
* ``search_counterexample``: the bounded prover's equivalence verdict at given sizes.

Nothing the model says is trusted: a proposal is a hint the engine checks (invariants.py), and only the
engine's proof counts; a malformed call, an unknown tool or a rejected proposal goes back to the model with
the reason. The run is bounded in turns, tokens, wall time and cost; 429 and 5xx answers are retried with
backoff. Every request and answer is appended to a JSONL transcript (never the key). The outcome's hints
(the last checked proposal that proved the output) can be written to a file and replayed without the model
(``larkc verify --hints FILE``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from larkc.agent.config import AgentConfig
from larkc.errors import LarkcError, Stage
from larkc.frontends import parse_task
from larkc.ir.nodes import For, Function, Module, While
from larkc.ir.walk import walk_stmts
from larkc.pipeline.compare import functional_reference
from larkc.pipeline.inputs import kernel_function
from larkc.provers import Budget, ObligationKind
from larkc.provers.allsize import AllSizeAttempt, prove_allsize
from larkc.provers.hints import HintError, Hints, HintStatus, parse_hints
from larkc.reference import trace_task
from larkc.tasks import Task

__all__ = ["AgentOutcome", "Transcript", "prove_with_agent", "write_hints"]

SYSTEM = """\
You help larkc, a verifier of GPU kernels, prove a kernel equal to its PyTorch reference for EVERY size.
The engine could not find the invariant of some loop by itself. Propose loop invariants with the
propose_invariant tool; the engine checks each one (it holds before the loop, and one iteration preserves
it) and tells you why it rejects one. Nothing you say is trusted: only the engine's checks count.

Invariant syntax, one per line:  loop LINE: VARIABLE = EXPRESSION
  LINE is the source line of the loop's `for`/`while`; VARIABLE a float the loop changes; EXPRESSION its
  value after `iters` iterations, over the kernel's variables at the loop's entry, the size symbols,
  input tensors read by flat element index (x[row * d + j]), + - * / %, comparisons, &&, ||, !,
  if(c, a, b), max(a, b), min(a, b), and folds sum(j < E, body), max(j < E, body), min(j < E, body)
  over 0 <= j < E. Give every float the loop changes an invariant when they depend on each other.
"""

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "propose_invariant",
            "description": "Propose loop invariants (all of them for the kernel, one per line); the engine checks "
            "them and says whether equivalence is now proved for every size.",
            "parameters": {
                "type": "object",
                "properties": {"invariants": {"type": "string", "description": "lines `loop LINE: VAR = EXPR`"}},
                "required": ["invariants"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "simulate",
            "description": "Run the kernel in the simulator at the given sizes on random inputs and compare it "
            "with the reference.",
            "parameters": {
                "type": "object",
                "properties": {"sizes": {"type": "object", "additionalProperties": {"type": "integer"}}},
                "required": ["sizes"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_counterexample",
            "description": "Ask the bounded prover whether the kernel equals the reference at the given sizes "
            "(every input).",
            "parameters": {
                "type": "object",
                "properties": {"sizes": {"type": "object", "additionalProperties": {"type": "integer"}}},
                "required": ["sizes"],
            },
        },
    },
]

#: The most elements a simulate or search_counterexample call may ask for (the engine's time is the run's).
MAX_TOOL_SIZE = 1 << 16


@dataclass(frozen=True, slots=True)
class AgentOutcome:
    """The run: the checked hints that proved the outputs (None if none did) and why it ended."""

    hints: Hints | None
    reason: str
    turns: int
    tokens: int
    cost: float
    rejected: tuple[str, ...]  # the reasons given back to the model, in order


class Transcript:
    """A JSONL file of the run: one object per event (requests' messages, answers, tool results)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")

    def write(self, event: str, **data: object) -> None:
        if self.path is None:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"event": event, "time": time.time(), **data}, default=str) + "\n")


class _Budget(Exception):
    pass


def _client(config: AgentConfig) -> Any:
    try:
        import openai
    except ImportError:
        raise LarkcError("--agent needs the `openai` package: pip install 'larkc[agent]'", stage=Stage.CLI) from None
    # retries are ours (with the backoff and the transcript), not the SDK's
    return openai.OpenAI(base_url=config.base_url, api_key=config.key(), max_retries=0, timeout=config.request_seconds)


def _call(client: Any, config: AgentConfig, messages: list[dict[str, Any]], log: Transcript, deadline: float) -> Any:
    """One chat completion, retried with backoff on 429, 5xx and connection errors."""
    import openai

    delay = config.backoff
    for attempt in range(config.retries + 1):
        try:
            return client.chat.completions.create(model=config.model, messages=messages, tools=TOOLS)
        except openai.APIStatusError as e:
            retry = e.status_code == 429 or e.status_code >= 500
            log.write("http_error", status=e.status_code, attempt=attempt, retry=retry)
            if not retry or attempt == config.retries:
                raise _Budget(f"the endpoint answered {e.status_code}") from None
        except openai.APIConnectionError as e:
            log.write("connection_error", error=type(e).__name__, attempt=attempt)
            if attempt == config.retries:
                raise _Budget("the endpoint could not be reached") from None
        if time.monotonic() + delay > deadline:
            raise _Budget(f"the wall-time budget ({config.max_seconds:g} s) ran out while retrying")
        time.sleep(delay)
        delay *= 2
    raise AssertionError("unreachable")  # pragma: no cover


class _Session:
    """The task, the engine's state and the tools the model may call."""

    def __init__(self, task: Task, budget: Budget, source: str) -> None:
        self.task = task
        self.budget = budget
        self.source = source
        self.graph = trace_task(functional_reference(task))
        self.chosen = [task.shape_env(i) for i in task.instances]
        self.module: Module = parse_task(task, self.chosen[0], None)
        self.fn: Function = kernel_function(task, self.module)

    def attempt(self, hints: Hints | None) -> list[AllSizeAttempt]:
        return prove_allsize(self.module, self.fn.name, self.task, self.graph, self.budget, self.chosen, hints)

    def loops(self) -> list[str]:
        out = []
        for s in walk_stmts(self.fn.body):
            if isinstance(s, For | While):
                out.append(f"line {s.span.line}: {type(s).__name__.lower()} loop")
        return out

    def propose(self, text: str) -> tuple[str, Hints | None]:
        try:
            hints = parse_hints(text, "invariants", self.source)
        except HintError as e:
            return f"rejected: {e}", None
        if not hints.invariants:
            return "rejected: no invariant given", None
        attempts = self.attempt(hints)
        lines = []
        checks = {c.line: c for a in attempts for c in a.hint_checks}
        for c in checks.values():
            model = f" (z3's model: {', '.join(f'{k}={v}' for k, v in c.model.items())})" if c.model else ""
            lines.append(f"loop {c.line} ({', '.join(c.variables)}): {c.status.value}: {c.reason}{model}")
        proved = all(a.proved for a in attempts)
        ok = proved and any(c.status is HintStatus.CHECKED for c in checks.values())
        for a in attempts:
            lines.append(
                f"equivalence({a.output}) for every size: {'PROVED' if a.proved else 'not proved'}: {a.detail}"
            )
        return "\n".join(lines), hints if ok else None

    def sizes(self, raw: object) -> dict[str, int]:
        if not isinstance(raw, dict) or set(raw) != set(self.task.symbols):
            raise ValueError(f"sizes must give every symbol: {', '.join(self.task.symbols)}")
        sizes = {str(k): v for k, v in raw.items()}
        if not all(isinstance(v, int) and 1 <= v <= MAX_TOOL_SIZE for v in sizes.values()):
            raise ValueError(f"each size must be an integer in [1, {MAX_TOOL_SIZE}]")
        env = self.task.shape_env(sizes)
        return dict(env)

    def simulate(self, raw: object) -> str:
        from larkc.pipeline.run import run_task

        sizes = self.sizes(raw)
        report = run_task(self.task, instances=[sizes])
        return "agrees with the reference" if report.ok else report.render()[:4000]

    def search(self, raw: object) -> str:
        from larkc.pipeline.verify import verify_task

        sizes = self.sizes(raw)
        report = verify_task(self.task, instances=[sizes], budget=self.budget)
        eq = [r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE]
        return "\n".join(f"{r.obligation.name}: {r.status.value}: {r.detail}" for r in eq)[:4000]


def prove_with_agent(
    task: Task,
    config: AgentConfig,
    *,
    transcript: Path | None = None,
    budget: Budget | None = None,
    client: Any = None,
) -> AgentOutcome:
    """Ask the model for invariants until the engine proves every output for every size or the budget ends."""
    start = time.monotonic()
    deadline = start + config.max_seconds
    log = Transcript(transcript)
    source = f"the agent ({config.model} at {config.base_url})"
    session = _Session(task, budget or Budget(seconds=60), source)
    first = session.attempt(None)
    log.write("start", model=config.model, base_url=config.base_url, task=task.name)
    if all(a.proved for a in first):
        log.write("end", reason="proved without the agent")
        return AgentOutcome(None, "proved for every size without the agent", 0, 0, 0.0, ())
    client = client if client is not None else _client(config)
    kernel = Path(task.source).read_text(encoding="utf-8")
    numbered = "\n".join(f"{n:4d} | {line}" for n, line in enumerate(kernel.splitlines(), start=1))
    reference = _reference_text(task)
    why = "; ".join(f"equivalence({a.output}): {a.detail}" for a in first if not a.proved)
    user = (
        f"Kernel `{task.kernel}` ({task.source}):\n{numbered}\n\nReference:\n{reference}\n\n"
        f"Sizes: {', '.join(task.symbols)} (constraints: {', '.join(map(str, task.constraints)) or 'none'}).\n"
        f"Loops: {'; '.join(session.loops()) or 'none'}.\n"
        f"The engine, without invariants: {why}\n"
    )
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    turns = tokens = 0
    cost = 0.0
    rejected: list[str] = []

    def out(hints: Hints | None, reason: str) -> AgentOutcome:
        log.write("end", reason=reason, turns=turns, tokens=tokens, cost=cost)
        return AgentOutcome(hints, reason, turns, tokens, cost, tuple(rejected))

    while True:
        if turns >= config.max_turns:
            return out(None, f"budget exhausted: {config.max_turns} turns without a checked proof")
        if tokens >= config.max_tokens:
            return out(None, f"budget exhausted: {tokens} tokens (limit {config.max_tokens})")
        if cost >= config.max_cost:
            return out(None, f"budget exhausted: cost {cost:.4f} (limit {config.max_cost:g})")
        if time.monotonic() >= deadline:
            return out(None, f"budget exhausted: {config.max_seconds:g} s of wall time")
        log.write("request", turn=turns, messages=messages[-1:] if turns else messages)
        try:
            answer = _call(client, config, messages, log, deadline)
        except _Budget as e:
            return out(None, f"no answer from the model: {e}")
        turns += 1
        usage = getattr(answer, "usage", None)
        if usage is not None:
            tokens += int(usage.total_tokens or 0)
            cost += config.cost(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0))
        message = answer.choices[0].message if answer.choices else None
        if message is None:
            return out(None, "the model gave no answer")
        calls = list(message.tool_calls or [])
        log.write("answer", turn=turns, content=message.content, tool_calls=[_call_json(c) for c in calls])
        messages.append(
            {
                "role": "assistant",
                "content": message.content or "",
                **({"tool_calls": [_call_json(c) for c in calls]} if calls else {}),
            }
        )
        if not calls:
            return out(None, "the model stopped without a checked proof")
        proved: Hints | None = None
        for c in calls:
            result, hints = _dispatch(session, c)
            if hints is not None:
                proved = hints
            elif result.startswith("rejected") or "rejected" in result or "not proved" in result:
                rejected.append(result)
            log.write("tool", turn=turns, id=c.id, name=c.function.name, result=result)
            messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
        if proved is not None:
            return out(proved, f"proved for every size with the invariants the agent proposed (turn {turns})")


def _dispatch(session: _Session, call: Any) -> tuple[str, Hints | None]:
    """The result of one tool call (the reason where it is rejected), and the hints when they proved it."""
    name = call.function.name
    try:
        args = json.loads(call.function.arguments or "{}")
    except json.JSONDecodeError as e:
        return f"rejected: the arguments of {name} are not JSON ({e.msg} at {e.pos})", None
    if not isinstance(args, dict):
        return f"rejected: the arguments of {name} are not an object", None
    try:
        match name:
            case "propose_invariant":
                text = args.get("invariants")
                if not isinstance(text, str):
                    return "rejected: `invariants` must be a string of lines `loop LINE: VAR = EXPR`", None
                return session.propose(text)
            case "simulate":
                return session.simulate(args.get("sizes")), None
            case "search_counterexample":
                return session.search(args.get("sizes")), None
            case _:
                known = ", ".join(t["function"]["name"] for t in TOOLS)
                return f"rejected: unknown tool {name!r} (the tools are {known})", None
    except (ValueError, LarkcError) as e:
        return f"rejected: {e}", None


def _call_json(c: Any) -> dict[str, Any]:
    return {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}


def _reference_text(task: Task) -> str:
    import inspect

    if task.reference is None or isinstance(task.reference, str):
        return str(task.reference or "(none)")
    try:
        return inspect.getsource(task.reference)
    except (OSError, TypeError):
        return getattr(task.reference, "__name__", "(the reference)")


def write_hints(outcome: AgentOutcome, path: Path) -> None:
    """The checked hints, replayable with ``larkc verify --hints`` (the engine checks them again)."""
    if outcome.hints is None:
        return
    header = f"# checked invariants proposed by {outcome.hints.source}; re-checked by the engine on every use\n"
    path.write_text(header + outcome.hints.text(), encoding="utf-8")
