"""The agent prover against a scripted model endpoint on the loopback (no network; issue 24).

The endpoint speaks the real wire protocol (the ``openai`` client talks to it over HTTP) and plays scripted
turns. The kernels are ``tests/provers/hint_kernels.py``'s, whose all-size equivalence the automatic prover
leaves unknown: with the right invariants proposed by the scripted model, the engine checks them and they
are proved for every size; wrong invariants, malformed calls, unknown tools, proposals about another loop
or variable are rejected with the reason and never upgrade the verdict; 429 and 500 are retried; a budget
that runs out ends UNKNOWN with the reason. The checked invariants replay without the model.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from scripted_endpoint import endpoint, says, tool_call

from larkc.agent import AgentConfig, prove_with_agent, write_hints
from larkc.cli import main
from larkc.pipeline.verify import verify_task
from larkc.provers import Budget, ScopeKind, Status
from larkc.provers.hints import parse_hints

pytest.importorskip("openai")


def _load_kernels() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "provers" / "hint_kernels.py"
    spec = importlib.util.spec_from_file_location("hint_kernels_for_agent", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


KERNELS = _load_kernels().HINT_KERNELS
BUDGET = Budget(seconds=60)


def _config(url: str, **kw: object) -> AgentConfig:
    return AgentConfig(url, "scripted-model", key_env="LARKC_TEST_AGENT_KEY", backoff=0.01, **kw)  # type: ignore[arg-type]


def _propose(text: str, call_id: str = "call_1") -> dict[str, object]:
    return tool_call("propose_invariant", {"invariants": text}, call_id)


def _equivalence(report: object) -> object:
    (eq,) = [r for r in report.results if r.obligation.name == "equivalence(out)"]  # type: ignore[attr-defined]
    return eq


@pytest.mark.parametrize("key", list(KERNELS))
def test_the_scripted_agent_gets_the_kernel_proved_for_every_size(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LARKC_TEST_AGENT_KEY", "sk-secret-do-not-log")
    k = KERNELS[key]
    task = k.write(tmp_path / "task")

    def second(request: dict[str, object]) -> dict[str, object]:
        # the engine's rejection of the first proposal came back to the model with its reason
        last = request["messages"][-1]  # type: ignore[index]
        assert last["role"] == "tool" and "rejected" in last["content"], last
        return says(_propose(k.hints, "call_2"))(request)

    transcript = tmp_path / "run.jsonl"
    with endpoint([says(_propose(k.wrong)), second]) as ep:
        outcome = prove_with_agent(task, _config(ep.url), transcript=transcript, budget=BUDGET)
    assert outcome.hints is not None, outcome
    assert outcome.turns == 2
    assert len(outcome.rejected) == 1
    assert ep.headers[0]["authorization"] == "Bearer sk-secret-do-not-log"  # the key reaches the endpoint only
    assert "sk-secret" not in transcript.read_text(encoding="utf-8")
    events = [json.loads(line)["event"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert events[0] == "start" and events[-1] == "end" and "tool" in events
    eq = _equivalence(verify_task(task, budget=BUDGET, hints=outcome.hints))
    assert eq.status is Status.PROVED  # type: ignore[attr-defined]
    assert eq.scope.kind is ScopeKind.PARAMETRIC  # type: ignore[attr-defined]
    assert "proposed by the agent (scripted-model at http://127.0.0.1:" in eq.detail  # type: ignore[attr-defined]
    assert "checked by the engine" in eq.detail  # type: ignore[attr-defined]
    # replayed without the model: the cached invariants are checked again
    cached = tmp_path / "larkc.hints"
    write_hints(outcome, cached)
    again = parse_hints(cached.read_text(encoding="utf-8"), str(cached))
    assert _equivalence(verify_task(task, budget=BUDGET, hints=again)).scope.kind is ScopeKind.PARAMETRIC  # type: ignore[attr-defined]


def test_bad_proposals_are_rejected_with_the_reason_and_never_upgrade(tmp_path: Path) -> None:
    k = KERNELS["kahan"]
    task = k.write(tmp_path / "task")
    turns = [
        says(
            tool_call("propose_invariant", "{not json", "c1"),
            tool_call("prove_it_for_me", {}, "c2"),
            tool_call("submit_lean_proof", {"proof": "theorem equivalence : True := by sorry"}, "c3"),
            tool_call("propose_invariant", {"invariants": 3}, "c4"),
        ),
        says(
            _propose("loop 9: sum = sum(j < iters, x[row * d + j])", "c5"),  # another line: not a loop
            _propose("loop 8: k = iters", "c6"),  # the loop counter: not a float it changes
            _propose("loop 8: sum = sum(j < iters, x[row * d + j]) +", "c7"),  # malformed
            _propose(k.wrong, "c8"),  # false
        ),
        says(content="I believe the kernel is correct."),  # a claim without a proof counts for nothing
    ]
    with endpoint(turns) as ep:
        outcome = prove_with_agent(task, _config(ep.url), budget=BUDGET)
    assert outcome.hints is None
    assert outcome.reason == "the model stopped without a checked proof"
    text = "\n".join(outcome.rejected)
    for reason in (
        "not JSON",
        "unknown tool 'prove_it_for_me'",
        "unknown tool 'submit_lean_proof'",
        "`invariants` must be a string",
        "no loop summarised at line 9",
        "k is not a float that the loop changes",
        "invariants:1:47: error: bad hint: expected a value",
        "not preserved by one iteration",
    ):
        assert reason in text, (reason, text)
    tool_messages = [m for m in ep.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == 8  # every call got its answer
    eq = _equivalence(verify_task(task, budget=BUDGET, hints=None))
    assert eq.scope.kind is ScopeKind.BOUNDED  # type: ignore[attr-defined]


def test_429_and_500_are_retried(tmp_path: Path) -> None:
    k = KERNELS["running mean"]
    task = k.write(tmp_path / "task")
    with endpoint([429, 500, says(_propose(k.hints))]) as ep:
        outcome = prove_with_agent(task, _config(ep.url), budget=BUDGET)
    assert outcome.hints is not None, outcome.reason
    assert len(ep.requests) == 3


def test_an_endpoint_that_keeps_failing_ends_unknown(tmp_path: Path) -> None:
    task = KERNELS["running mean"].write(tmp_path / "task")
    with endpoint([503] * 5) as ep:
        outcome = prove_with_agent(task, _config(ep.url, retries=2), budget=BUDGET)
    assert outcome.hints is None
    assert outcome.reason == "no answer from the model: the endpoint answered 503"
    assert len(ep.requests) == 3


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"max_turns": 2}, "budget exhausted: 2 turns without a checked proof"),
        ({"max_tokens": 150}, "budget exhausted: 200 tokens (limit 150)"),
        ({"max_cost": 0.0015, "price_in": 10.0, "price_out": 10.0}, "budget exhausted: cost 0.0020 (limit 0.0015)"),
    ],
)
def test_a_budget_exhausted_ends_unknown_with_the_reason(
    limits: dict[str, object], reason: str, tmp_path: Path
) -> None:
    k = KERNELS["kahan"]
    task = k.write(tmp_path / "task")
    with endpoint([says(_propose(k.wrong))] * 3, usage=100) as ep:
        outcome = prove_with_agent(task, _config(ep.url, **limits), budget=BUDGET)
    assert outcome.hints is None
    assert outcome.reason == reason
    assert len(ep.requests) == 2


def test_the_cli_asks_the_agent_and_caches_the_checked_invariants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    k = KERNELS["unrolled by four"]
    k.write(tmp_path / "task")
    with endpoint([says(_propose(k.hints))]) as ep:
        monkeypatch.setenv("LARKC_AGENT_BASE_URL", ep.url)
        monkeypatch.setenv("LARKC_AGENT_MODEL", "scripted-model")
        monkeypatch.setenv("LARKC_AGENT_KEY_ENV", "MY_KEY")
        monkeypatch.setenv("MY_KEY", "sk-cli-secret")
        report = tmp_path / "report.json"
        assert main(["verify", str(tmp_path / "task"), "--agent", "--json", str(report)]) == 0
        assert ep.headers[0]["authorization"] == "Bearer sk-cli-secret"
    out = capsys.readouterr()
    assert "equivalence(out)  PROVED   parametric [allsize-z3" in out.out
    cached = tmp_path / "task" / "larkc.hints"
    transcript = tmp_path / "report.agent.jsonl"
    assert cached.exists() and transcript.exists()
    for f in (cached, transcript, report):
        assert "sk-cli-secret" not in f.read_text(encoding="utf-8")
    # CI replays the cache without an endpoint
    monkeypatch.setenv("LARKC_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["verify", str(tmp_path / "task"), "--hints", str(cached)]) == 0
    assert "parametric [allsize-z3" in capsys.readouterr().out


def test_agent_without_the_openai_package_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    KERNELS["kahan"].write(tmp_path / "task")
    monkeypatch.setitem(sys.modules, "openai", None)  # import openai raises ImportError
    monkeypatch.setenv("LARKC_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LARKC_AGENT_MODEL", "m")
    assert main(["verify", str(tmp_path / "task"), "--agent"]) == 2
    assert "--agent needs the `openai` package" in capsys.readouterr().err


def test_agent_without_an_endpoint_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    KERNELS["kahan"].write(tmp_path / "task")
    monkeypatch.delenv("LARKC_AGENT_BASE_URL", raising=False)
    assert main(["verify", str(tmp_path / "task"), "--agent"]) == 2
    assert "no endpoint" in capsys.readouterr().err


def test_simulate_and_search_counterexample_answer_at_the_sizes_asked(tmp_path: Path) -> None:
    k = KERNELS["running mean"]
    task = k.write(tmp_path / "task")
    turns = [
        says(
            tool_call("simulate", {"sizes": {"rows": 2, "d": 7}}, "s1"),
            tool_call("search_counterexample", {"sizes": {"rows": 1, "d": 3}}, "s2"),
            tool_call("simulate", {"sizes": {"rows": 2}}, "s3"),  # a symbol missing
            tool_call("simulate", {"sizes": {"rows": 2, "d": 10**9}}, "s4"),  # too large
        ),
        says(_propose(k.hints, "s5")),
    ]
    with endpoint(turns) as ep:
        outcome = prove_with_agent(task, _config(ep.url), budget=BUDGET)
    assert outcome.hints is not None
    answers = {m["tool_call_id"]: m["content"] for m in ep.requests[-1]["messages"] if m["role"] == "tool"}
    assert answers["s1"] == "agrees with the reference"
    assert answers["s2"].startswith("equivalence(out): proved"), answers["s2"]
    assert answers["s3"] == "rejected: sizes must give every symbol: rows, d"
    assert answers["s4"].startswith("rejected: each size must be an integer in [1, 65536]")


def test_agent_and_hints_are_not_for_batch_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for option in (["--agent"], ["--hints", str(tmp_path / "h")]):
        argv = ["verify", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "--reference", str(tmp_path / "m.py")]
        assert main([*argv, *option]) == 2
        assert f"{option[0]}: not in batch mode" in capsys.readouterr().err
