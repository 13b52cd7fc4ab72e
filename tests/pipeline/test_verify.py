"""``larkc verify`` end to end: verdicts, the command line, JSON, replays of counterexamples, budgets."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import larkc
from larkc.cli import main
from larkc.ir.types import BF16, F16, F32
from larkc.pipeline.verify import ConstantReader, obligations_of
from larkc.provers import Budget, ObligationKind, Status, Verdict
from larkc.symbolic import terms as tm
from larkc.tasks import command_line_task, load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["verify", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------------
# Reading float literals


def test_a_literal_is_read_as_the_reference_constant_it_rounds_from() -> None:
    eps = tm.const(1e-5)
    reader = ConstantReader([tm.add(tm.elem("x", 0), eps)], [])
    f32_eps = float(__import__("numpy").float32(1e-5))
    term, note = reader.read(f32_eps, F32)
    assert term is eps and note is not None and "1e-05" in note
    term, note = reader.read(-f32_eps, F32)
    assert term is tm.neg(eps)
    # exact binary values and integers stay as they are, without a note
    assert reader.read(0.5, F32) == (tm.const(Fraction(1, 2)), None)
    assert reader.read(3.0, F16) == (tm.const(3), None)


def test_a_literal_is_read_as_a_reference_fraction_that_is_no_binary_value() -> None:
    # hardswish's `x * t * 0.16666666666666666f` against the reference's `/ 6`: 1/6 rounded to float32 was
    # one bit short (round_to_format), so the literal matched nothing and a correct kernel was FAILED
    sixth = tm.const(Fraction(1, 6))
    reader = ConstantReader([tm.mul(tm.elem("x", 0), sixth)], [])
    term, note = reader.read(float(__import__("numpy").float32(1 / 6)), F32)
    assert term is sixth and note is not None and "1/6" in note


def test_a_literal_of_a_named_constant_is_read_as_it() -> None:
    reader = ConstantReader([], [])
    term, note = reader.read(1.4426950408889634, F32)
    assert note is not None and "log2(e)" in note
    assert tm.mul(term, tm.LN2) is tm.ONE
    # an unrelated literal keeps its exact value
    assert reader.read(0.3, BF16)[1] is None


# --------------------------------------------------------------------------------------------------
# Obligations and verdicts on small tasks


def test_obligations_of_a_task_with_and_without_reference() -> None:
    task = load_task(EXAMPLES / "vector_add")
    kinds = [o.kind for o in obligations_of(task)]
    assert kinds[:2] == [ObligationKind.EQUIVALENCE, ObligationKind.INPUTS] and ObligationKind.OVERFLOW in kinds
    # every kind once but ``kernel``, which only a task with PyTorch steps has (tests/pipeline/test_torch_steps.py)
    every = [k for k in ObligationKind if k is not ObligationKind.KERNEL]
    assert sorted(k.value for k in kinds) == sorted(k.value for k in every)
    safety = command_line_task(
        EXAMPLES / "vector_add" / "kernel.cu", "vector_add", grid=["4"], block=["256"],
        buffers=["x=f32[1000]", "y=f32[1000]", "out=f32[1000]"], scalars=["n=1000"],
    )  # fmt: skip
    safety_kinds = [o.kind for o in obligations_of(safety)]
    assert ObligationKind.EQUIVALENCE not in safety_kinds and ObligationKind.INPUTS not in safety_kinds
    assert len(safety_kinds) == len(every) - 2


def test_a_failed_verdict_can_order_every_obligation_kind() -> None:
    from larkc.pipeline.reports import _ROOT_CAUSE_ORDER

    assert sorted(_ROOT_CAUSE_ORDER) == sorted(k.value for k in ObligationKind)


def test_vector_add_is_verified_with_scopes_and_assumptions(tmp_path: Path) -> None:
    lines: list[str] = []
    report = larkc.verify(EXAMPLES / "vector_add", progress=lines.append, replay_dir=tmp_path)
    assert report.verdict is Verdict.VERIFIED and report.exit_code == 0 and report.ok
    by_name = {r.obligation.name: r for r in report.results}
    # an elementwise kernel: the all-size prover upgrades the bounded proof (provers/allsize.py)
    assert by_name["equivalence(out)"].scope.kind.value == "parametric"
    assert by_name["inputs"].scope.kind.value == "bounded"
    assert by_name["overflow"].scope.kind.value == "parametric"
    assert any("exact real arithmetic" in a.text for a in report.assumptions())
    assert any("instance 3/3" in line for line in lines)  # progress on long runs
    text = "\n".join(report.render())
    assert "VERIFIED" in text and "equivalence(out)" in text and "assumptions:" in text


def test_a_data_dependent_branch_around_a_loop_is_unknown_with_its_reason(tmp_path: Path) -> None:
    # (stores under a branch on data are guarded exactly now: tests/provers/test_data_branches.py)
    src = tmp_path / "k.cu"
    src.write_text(
        "__global__ void k(const float* x, float* out, int n) {\n"
        "  int i = threadIdx.x;\n"
        "  if (i < n) { if (x[i] > 0.0f) { for (int r = 0; r < 2; ++r) out[i] = x[i]; } else out[i] = 0.0f; }\n"
        "}\n",
        encoding="utf-8",
    )
    task = larkc.Task(
        source=src, kernel="k", reference=lambda x: x.clamp(min=0), inputs={"x": "f32[n]"},
        outputs={"out": "f32[n]"}, symbols=["n"], constraints=["n <= 32"], instances=[{"n": 8}], grid=[1],
        block=[32],
    )  # fmt: skip
    report = larkc.verify(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.UNKNOWN and report.exit_code == 4
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    assert eq.status is Status.UNKNOWN and "branch on input data" in eq.detail and "k.cu:3" in eq.detail


def test_budget_exhaustion_is_unknown_never_a_hang(tmp_path: Path) -> None:
    report = larkc.verify(EXAMPLES / "matmul_naive", budget=Budget(seconds=0.05), replay_dir=tmp_path)
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    assert eq.status is Status.UNKNOWN and "safety net" in eq.detail  # seconds are the outer safety net only
    assert report.verdict is Verdict.UNKNOWN


# --------------------------------------------------------------------------------------------------
# Counterexamples


def test_a_counterexample_is_replayed_with_its_witness_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the zero-initialised row max is right on most random inputs: the witness is an all-negative row
    report = larkc.verify(EXAMPLES / "row_max_bug_zero_init", replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED and "mismatch" in report.kinds()
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    cx = eq.counterexample
    assert cx is not None and cx.kind.value == "confirmed" and cx.replay is not None
    assert cx.inputs["x"] and all(v < 0 for v in cx.inputs["x"].values())
    assert cx.kernel_value == 0.0 and cx.reference_value is not None and cx.reference_value < 0
    record = json.loads(Path(cx.replay).read_text())
    assert record["inputs"]["x"]
    code = main(["run", "--replay", cx.replay])
    out = capsys.readouterr().out
    assert code == 1 and "mismatch" in out


def test_an_eps_in_the_wrong_place_is_found_on_near_constant_rows(tmp_path: Path) -> None:
    report = larkc.verify(EXAMPLES / "layer_norm_bug_eps_in_division", replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED
    eq = next(r for r in report.results if r.obligation.kind is ObligationKind.EQUIVALENCE)
    # found by z3's model of the difference (checked exactly) or by the near-constant search
    assert eq.counterexample is not None and eq.counterexample.kind.value == "confirmed"
    assert "z3 found" in eq.counterexample.message or "near-constant" in eq.counterexample.message


def test_an_overflow_at_sizes_no_simulator_allocates_is_a_static_counterexample(tmp_path: Path) -> None:
    report = larkc.verify(EXAMPLES / "rms_norm_bug_index_overflow", replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED and "overflow" in report.kinds()
    ov = next(r for r in report.results if r.obligation.kind is ObligationKind.OVERFLOW)
    assert ov.counterexample is not None and ov.counterexample.kind.value == "static"
    assert ov.counterexample.instance["num_tokens"] * ov.counterexample.instance["hidden_size"] >= 2**31
    assert "FAILED: overflow" in "\n".join(report.render())  # the cause is shown before its consequences


# --------------------------------------------------------------------------------------------------
# The command line


def test_cli_exit_codes_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "r.json"
    code, out, _ = run_cli([str(EXAMPLES / "relu"), "--json", str(out_json), "--replay-dir", str(tmp_path)], capsys)
    assert code == 0 and "VERIFIED" in out
    data = json.loads(out_json.read_text())
    assert data["verdict"] == "VERIFIED" and data["exit_code"] == 0
    assert {o["obligation"] for o in data["obligations"]} >= {"equivalence(out)", "bounds", "race", "overflow"}
    for o in data["obligations"]:
        assert o["status"] in ("proved", "refuted", "unknown") and "scope" in o and "prover" in o
    code, out, _ = run_cli(
        [str(EXAMPLES / "vector_add_bug_off_by_one"), "--json", "-", "--replay-dir", str(tmp_path)], capsys
    )
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "FAILED" and data["expected_failure"] == "oob"
    refuted = [o for o in data["obligations"] if o["status"] == "refuted"]
    assert refuted and refuted[0]["counterexample"]["message"]


def test_cli_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(tmp_path / "missing")], capsys)
    assert code == 2 and "error:" in err


def test_cli_safety_only_task_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        [
            str(EXAMPLES / "vector_add" / "kernel.cu"), "--kernel", "vector_add", "--grid", "4", "--block", "256",
            "--buffer", "x=f32[1000]", "--buffer", "y=f32[1000]", "--buffer", "out=f32[1000]", "--scalar", "n=1000",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0 and "VERIFIED" in out and "equivalence" not in out
