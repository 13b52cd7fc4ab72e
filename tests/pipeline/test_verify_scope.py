"""What a verdict's scope says: a violation the parametric prover finds possible at sizes beyond the
instances is confirmed (FAILED at those sizes), dismissed, or keeps the obligation UNKNOWN; the headline
says whether VERIFIED holds for all sizes or only at the instances (``--all-sizes`` exits 4 for the
latter); and a verify that stops at a refuted instance says so (issue 19, class 5 and item 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.pipeline.reports import StoppedEarly, VerifyReport
from larkc.provers import (
    Counterexample,
    CounterexampleKind,
    Obligation,
    ObligationKind,
    ObligationResult,
    Scope,
    ScopeKind,
    Status,
    Verdict,
)
from larkc.tasks import KernelLaunch, Task

SCOPE = Path(__file__).resolve().parent / "scope"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cuda"


def _result(report: VerifyReport, name: str) -> ObligationResult:
    return next(r for r in report.results if r.obligation.name == name)


def test_a_race_z3_finds_possible_past_the_instances_is_confirmed_there(tmp_path: Path) -> None:
    # Every instance has one tile (k <= 128) and races nowhere; z3's model of the race (which involves the
    # tile loop's iteration, a loop that may exit early) is at r=1, k=129, where the simulator sees it.
    report = larkc.verify(SCOPE / "row_sum_tiles_bug_missing_sync", replay_dir=tmp_path)
    text = "\n".join(report.render())
    assert report.verdict is Verdict.FAILED and report.kinds() == {"race"}, text
    race = _result(report, "race")
    cx = race.counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED
    assert cx.instance["k"] > 128 and cx.replay is not None and Path(cx.replay).is_file()
    assert "tile" in cx.message
    # the witness was found before the instances: the first instance runs, then verify stops (item 15)
    assert report.stopped == StoppedEarly(1, 2)
    assert (
        "stopped after instance 1 of 2: a refutation decides the verdict; the remaining instances were not run" in text
    )
    assert report.to_json()["stopped"]["after"] == 1 and report.to_json()["verified_scope"] is None


def test_without_a_witness_race_freedom_is_bounded_and_the_headline_says_so(tmp_path: Path) -> None:
    # The correct kernel: the parametric prover cannot decide race freedom (no model, only a loop it cannot
    # follow), so the instances' proof stands, and the headline names it as bounded.
    report = larkc.verify(SCOPE / "row_sum_tiles", replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED, "\n".join(report.render())
    race = _result(report, "race")
    assert race.status is Status.PROVED and race.scope.kind is ScopeKind.BOUNDED and not race.witnesses
    assert report.verified_scope == "bounded" and report.exit_code == 0 and report.stopped is None
    headline = (
        "VERIFIED (bounded: equivalence(out), inputs, race, init, defined, assert at 2 shapes;"
        " bounds, barrier, overflow, launch for all sizes)"
    )
    lines = report.render()
    assert headline in lines, lines
    assert lines.index(headline) == len(report.results) + 1  # the verdict's first line, after the obligations
    j = report.to_json()
    assert j["verdict"] == "VERIFIED" and j["verified_scope"] == "bounded" and j["exit_code"] == 0
    assert j["headline"] == headline


def test_a_witness_is_dismissed_where_the_bounded_prover_proves_its_sizes(tmp_path: Path) -> None:
    # The do-while loop's column offset is havocked: z3 finds an out-of-bounds read and overflowing offsets
    # possible. The read's sizes (r=1, k=1) are proved in bounds by the bounded prover (dismissed: bounds
    # stands at the instances); overflow is z3's alone, so its witnesses stay and the verdict is UNKNOWN.
    report = larkc.verify(SCOPE / "row_sum_tiles_do_while", replay_dir=tmp_path)
    assert report.verdict is Verdict.UNKNOWN, "\n".join(report.render())
    bounds = _result(report, "bounds")
    assert bounds.status is Status.PROVED and bounds.scope.kind is ScopeKind.BOUNDED, bounds.detail
    assert "dismissed" in bounds.detail
    overflow = _result(report, "overflow")
    assert overflow.status is Status.UNKNOWN and overflow.witnesses, overflow.detail
    assert all(w.kind is CounterexampleKind.POSSIBLE and w.instance for w in overflow.witnesses)
    lines = report.render()
    assert any(line.startswith("    possible at r=") for line in lines), lines
    assert next(o for o in report.to_json()["obligations"] if o["obligation"] == "overflow")["witnesses"]


# -- the headline, from reports built by hand ----------------------------------------------------------

_BOUNDED = Scope.bounded([{"n": 1}, {"n": 300}], ["grid 1x1x1, block 256x1x1", "grid 2x1x1, block 256x1x1"])
_EVERY = Scope.parametric(["n"], ["n <= 4096"])


def _report(scopes: dict[ObligationKind, Scope], *, all_sizes: bool = False) -> VerifyReport:
    results = tuple(ObligationResult(Obligation(k), Status.PROVED, s, "p") for k, s in scopes.items())
    instances = tuple((dict(i), launch, 0.1) for i, launch in zip(_BOUNDED.instances, _BOUNDED.launches, strict=True))
    return VerifyReport("t", None, results, Verdict.VERIFIED, instances, 1.0, all_sizes=all_sizes)


def test_the_headline_of_a_verdict_for_all_sizes() -> None:
    report = _report({ObligationKind.BOUNDS: _EVERY, ObligationKind.RACE: _EVERY})
    assert report.verified_scope == "all sizes"
    assert report.headline() == "VERIFIED for all sizes (n <= 4096)"
    assert report.exit_code == 0 and dataclass_replace(report, all_sizes=True).exit_code == 0
    assert report.to_json()["verified_scope"] == "all sizes"


def test_the_headline_of_a_bounded_verdict_names_the_bounded_obligations() -> None:
    report = _report(
        {ObligationKind.EQUIVALENCE: _BOUNDED, ObligationKind.BOUNDS: _EVERY, ObligationKind.INIT: _BOUNDED}
    )
    assert report.headline() == "VERIFIED (bounded: equivalence, init at 2 shapes; bounds for all sizes)"
    assert report.exit_code == 0 and report.ok
    strict = dataclass_replace(report, all_sizes=True)
    assert strict.exit_code == 4 and not strict.ok
    assert strict.headline() == (
        "UNKNOWN for all sizes (--all-sizes): VERIFIED (bounded: equivalence, init at 2 shapes; bounds for all sizes)"
    )
    j = strict.to_json()
    assert (j["verdict"], j["verified_scope"], j["exit_code"], j["all_sizes"]) == ("VERIFIED", "bounded", 4, True)


def test_the_stop_message_names_what_was_not_run() -> None:
    assert StoppedEarly(2, 4).render() == (
        "stopped after instance 2 of 4: a refutation decides the verdict; the remaining instances were not run"
    )
    assert StoppedEarly(3, 3, "BLOCK=64", 2).render() == (
        "stopped after instance 3 of 3 (autotune configuration BLOCK=64): a refutation decides the verdict; "
        "2 more autotune configurations were not run"
    )


def dataclass_replace(report: VerifyReport, **changes: object) -> VerifyReport:
    import dataclasses

    return dataclasses.replace(report, **changes)  # type: ignore[arg-type]


# -- the command line ----------------------------------------------------------------------------------


def test_all_sizes_makes_a_bounded_verdict_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    assert main(["verify", str(EXAMPLES / "vector_add"), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    # equivalence(out) holds for every size (the all-size prover); inputs and the rest stay bounded
    assert "\nVERIFIED (bounded: inputs, init, defined, assert at " in text, text
    assert json.loads(out.read_text())["verified_scope"] == "bounded"
    assert main(["verify", str(EXAMPLES / "vector_add"), "--all-sizes", "--json", str(out)]) == 4
    assert "\nUNKNOWN for all sizes (--all-sizes): VERIFIED (bounded: " in capsys.readouterr().out
    j = json.loads(out.read_text())
    assert (j["verdict"], j["exit_code"], j["all_sizes"]) == ("VERIFIED", 4, True)


def test_all_sizes_does_not_change_a_failed_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", str(EXAMPLES / "vector_add_bug_off_by_one"), "--all-sizes", "--replay-dir", str(tmp_path)])
    assert code == 1
    assert "\nFAILED: " in capsys.readouterr().out


# -- several launches ----------------------------------------------------------------------------------

_SCALE_THEN_COPY = """
__global__ void scale(const float* x, float* buf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[i] = 3.0f * x[i];
}
__global__ void copy(const float* buf, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = buf[i];
}
"""


def _twice(x: object) -> object:
    return 2 * x  # type: ignore[operator]  # the kernels compute 3 x: every instance is refuted


def test_several_launches_say_where_they_stopped(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text(_SCALE_THEN_COPY)
    launches = tuple(KernelLaunch(kernel=k, grid=["cdiv(n, 64)"], block=[64]) for k in ("scale", "copy"))
    task = Task(
        source=src, launches=launches, inputs={"x": "f32[n]"}, outputs={"out": "f32[n]"},
        scratch={"buf": "f32[n]"}, symbols=["n"], constraints=["n <= 4096"],
        instances=[{"n": 5}, {"n": 100}, {"n": 700}], reference=_twice,
    )  # fmt: skip
    report = larkc.verify(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED and report.kinds() == {"mismatch"}, report.render()
    assert report.stopped == StoppedEarly(1, 3)
    assert f"  {StoppedEarly(1, 3).render()}" in report.render()


def test_a_witness_of_one_launch_is_confirmed_on_the_whole_sequence(tmp_path: Path) -> None:
    # the racy row sum as the second launch, after a copy: z3's witness for that launch (k = 129) is run
    # through both launches and confirmed there
    kernel = (SCOPE / "row_sum_tiles_bug_missing_sync" / "kernel.cu").read_text()
    copy = (
        "__global__ void copy_rows(const float* __restrict__ x, float* __restrict__ y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = x[i];\n"
        "}\n"
    )
    src = tmp_path / "k.cu"
    src.write_text(kernel + copy)
    copy_bindings = {"y": "buf", "n": "r * k"}
    task = Task(
        source=src,
        launches=(
            KernelLaunch(kernel="copy_rows", grid=["cdiv(r * k, 256)"], block=[256], bindings=copy_bindings),
            KernelLaunch(kernel="row_sum_tiles", grid=["r"], block=[128], bindings={"x": "buf"}),
        ),
        inputs={"x": "f32[r, k]"}, outputs={"out": "f32[r]"}, scratch={"buf": "f32[r, k]"},
        symbols=["r", "k"], constraints=["r <= 4096", "k <= 8192"], instances=[{"r": 2, "k": 100}],
        reference=lambda x: x.sum(dim=1),
    )  # fmt: skip
    report = larkc.verify(task, replay_dir=tmp_path / "replay")
    assert report.verdict is Verdict.FAILED and report.kinds() == {"race"}, "\n".join(report.render())
    cx = _result(report, "race").counterexample
    assert cx is not None and cx.kind is CounterexampleKind.CONFIRMED and cx.instance["k"] > 128


def test_a_possible_witness_is_never_a_refutation() -> None:
    w = Counterexample(CounterexampleKind.POSSIBLE, "possible violation", {"n": 3})
    with pytest.raises(ValueError):
        ObligationResult(Obligation(ObligationKind.BOUNDS), Status.PROVED, _EVERY, "p", witnesses=(w,))


# -- KernelBench candidates ----------------------------------------------------------------------------


def test_batch_mode_carries_the_scope_and_all_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problem = Path(__file__).resolve().parents[2] / "examples" / "kernelbench" / "l1_relu"
    candidate, reference = problem / "model_new.py", problem / "model.py"
    (plain,) = larkc.verify_many([candidate], reference, cache_dir=tmp_path)
    (strict,) = larkc.verify_many([candidate], reference, cache_dir=tmp_path, all_sizes=True)
    assert (plain.status, plain.verified_scope, plain.exit_code) == ("VERIFIED", "bounded", 0)
    assert (strict.status, strict.verified_scope, strict.exit_code, strict.cached) == ("VERIFIED", "bounded", 4, False)
    assert strict.report is not None and strict.report["exit_code"] == 4
    # the command line: one JSON line with the scope, exit 4 under --all-sizes
    code = main(["verify", str(candidate), "--reference", str(reference), "--jsonl", "--all-sizes", "--no-cache"])
    line = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert code == 4 and (line["status"], line["verified_scope"], line["exit_code"]) == ("VERIFIED", "bounded", 4)
