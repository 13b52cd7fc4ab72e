"""An int32 overflow refuted in a Triton kernel's offsets (``row * stride``: Triton passes integers below 2^31
as int32) is reported with one line that says at which size it overflows and the usual fix (offsets in
``tl.int64``), so that a library author can act on it."""

from __future__ import annotations

from pathlib import Path

from larkc.pipeline.reports import int32_offset_hint
from larkc.pipeline.verify import verify_task
from larkc.provers import Counterexample, CounterexampleKind, Verdict
from larkc.tasks import load_task

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _cx(message: str, instance: dict[str, int]) -> Counterexample:
    return Counterexample(CounterexampleKind.STATIC, message, instance)


def test_the_hint_names_the_product_of_sizes_that_reaches_2_to_the_31_and_the_cast() -> None:
    cx = _cx(
        "`row * stride` (IR `(%row * %stride)`) at k.py:17:21 overflows i32: its value 2147488280 > 2^31 - 1 at"
        " r=46341, d=46342, program (46340,0,0) (smallest sizes by their sum)",
        {"r": 46341, "d": 46342},
    )
    assert int32_offset_hint(cx) == (
        "`row * stride` overflows int32 once r * d reaches 2^31 (at r=46341, d=46342: r * d = 2147534622, the"
        " value 2147488280); the usual fix: offsets in tl.int64 (`row.to(tl.int64) * stride`)"
    )


def test_no_hint_for_cuda_or_for_other_counterexamples() -> None:
    cuda = "`i * n` (IR `(%i * %n)`) at k.cu:3:9 overflows i32: its value 2147483648 > 2^31 - 1 at n=65536"
    assert int32_offset_hint(_cx(cuda, {"n": 65536})) is None
    assert int32_offset_hint(_cx("out[0] differs", {"n": 3})) is None


def test_a_composite_operand_gets_the_generic_cast() -> None:
    cx = _cx(
        "`(pid + 1) * BLOCK` (IR `x`) at k.py:5:9 overflows i32: its value 2147483904 > 2^31 - 1 at n=2147483000",
        {"n": 2147483000},
    )
    hint = int32_offset_hint(cx)
    assert hint is not None and "an operand cast with `.to(tl.int64)` first" in hint


def test_the_verdict_on_a_kernel_with_int32_row_offsets_says_the_size_and_the_fix(tmp_path: Path) -> None:
    task = load_task(EXAMPLES / "triton" / "row_bias_bug_offset_overflow" / "task.py")
    report = verify_task(task, replay_dir=tmp_path)
    assert report.verdict is Verdict.FAILED
    lines = report.render()
    (fix,) = [line for line in lines if line.startswith("  fix: ")]
    assert "overflows int32 once r * d reaches 2^31" in fix and "`row.to(tl.int64) * stride`" in fix
