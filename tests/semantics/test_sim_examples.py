"""``larkc run`` on the example corpus: correct kernels pass, seeded bugs fail with their diagnosis.

Also the command line: exit codes, the report's lines, ``--json``, ``--shape``, ``--seed`` and the
replay files that ``larkc run --replay`` runs again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sim_helpers import EXAMPLES

from larkc.cli import main
from larkc.pipeline.run import run_task
from larkc.tasks import load_task

TASK_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/task.py"))
CORRECT = [p for p in TASK_DIRS if "_bug_" not in p.name]

#: Seeded bugs that one seed of normal random inputs misses at the task's instances, which is why they
#: are in the corpus: ``larkc verify`` must catch them (tests/pipeline/test_verify_examples.py), and
#: ``larkc run``'s default input sets (several seeds and distributions: all-negative, near-constant, ...)
#: do (test_default_input_sets_catch_what_one_normal_seed_misses).
MISSED_BY_ONE_NORMAL_SEED = {
    "row_max_bug_zero_init": "a max started at 0 is right on every row with a positive element",
    "layer_norm_bug_eps_in_division": "eps inside the division shifts the output by about eps/d",
}


def _testing_catches(p: Path) -> bool:
    return load_task(p).expected_failure != "overflow"  # overflow: at sizes too large to simulate


BUGS = [p for p in TASK_DIRS if "_bug_" in p.name and _testing_catches(p)]


@pytest.mark.parametrize("name", sorted(MISSED_BY_ONE_NORMAL_SEED))
def test_default_input_sets_catch_what_one_normal_seed_misses(name: str, tmp_path: Path) -> None:
    from larkc.pipeline.run import InputDistribution

    task = load_task(EXAMPLES / name)
    one = run_task(task, replay_dir=tmp_path, seeds=1, distributions=[InputDistribution.NORMAL])
    assert one.ok, "one normal seed should miss this bug (else it no longer shows why verify is needed)"
    assert task.expected_failure in run_task(task, replay_dir=tmp_path).kinds()


def test_the_corpus_has_correct_and_buggy_examples() -> None:
    assert len(CORRECT) >= 20 and len(BUGS) >= 6


@pytest.mark.parametrize("example", CORRECT, ids=[p.name for p in CORRECT])
def test_correct_example_passes(example: Path, tmp_path: Path) -> None:
    report = run_task(load_task(example), replay_dir=tmp_path)
    failures = [d.render() for inst in report.instances for d in inst.diagnoses]
    assert report.ok, "\n".join(failures)
    assert all(o.ok for inst in report.instances for o in inst.outputs)
    assert all(inst.outputs for inst in report.instances), "every instance is compared with the reference"


@pytest.mark.parametrize("example", BUGS, ids=[p.name for p in BUGS])
def test_seeded_bug_is_caught_with_its_diagnosis(example: Path, tmp_path: Path) -> None:
    task = load_task(example)
    assert task.expected_failure is not None
    report = run_task(task, replay_dir=tmp_path)
    assert not report.ok
    assert task.expected_failure in report.kinds()
    # Each failing instance leads with the expected diagnosis (a mismatch may follow from it).
    for inst in report.instances:
        if not inst.ok:
            assert inst.diagnoses[0].kind.value == task.expected_failure, inst.diagnoses[0].render()
            assert inst.replay is not None and inst.replay.is_file()


# --------------------------------------------------------------------------------------------------
# The command line


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_passes_a_correct_example(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli([str(EXAMPLES / "saxpy"), "--replay-dir", str(tmp_path)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("== saxpy n=")
    assert any(line.startswith("out: max abs err ") and line.endswith("(ok)") for line in lines)
    assert lines[-1].startswith("ok: ")


def test_cli_fails_a_race_and_the_replay_reproduces_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    example = EXAMPLES / "row_sum_shared_bug_missing_sync"
    code, out, _ = run_cli([str(example), "--shape", "rows=2,d=300", "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    race_lines = [line for line in out.splitlines() if line.startswith("race: ")]
    assert race_lines and "kernel.cu:" in race_lines[0]
    replay_line = next(line for line in out.splitlines() if line.startswith("replay: "))
    path = Path(replay_line.split()[-1])
    record = json.loads(path.read_text())
    assert record["instance"] == {"rows": 2, "d": 300} and record["seed"] == 0
    assert record["launch"] == {"grid": [2, 1, 1], "block": [256, 1, 1], "shared_bytes": 0}
    assert record["diagnoses"][0]["kind"] == "race"

    code2, out2, _ = run_cli(["--replay", str(path), "--replay-dir", str(tmp_path)], capsys)
    assert code2 == 1
    again = [line for line in out2.splitlines() if line.startswith("race: ")]
    assert [line.split(": ", 2)[2] for line in again] == [line.split(": ", 2)[2] for line in race_lines]


def test_cli_json_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    example = EXAMPLES / "vector_add_bug_off_by_one"
    code, out, _ = run_cli([str(example), "--json", "--seed", "3", "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["ok"] is False and doc["expected_failure"] == "oob" and "oob" in doc["kinds"]
    first = doc["instances"][0]
    assert first["seed"] == 3
    d = first["diagnoses"][0]
    assert d["kind"] == "oob" and d["buffer"] == "x" and d["index"] == first["shape"]["n"]
    assert d["block"] is not None and d["thread"] is not None and d["location"].endswith(":14")


def test_cli_kernel_file_without_a_task(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    kernel = EXAMPLES / "vector_add" / "kernel.cu"
    common = ["--kernel", "vector_add", "--grid", "4", "--block", "256", "--replay-dir", str(tmp_path)]
    buffers = ["--buffer", "x=f32[1000]", "--buffer", "y=f32[1000]", "--buffer", "out=f32[1000]"]
    code, out, _ = run_cli([str(kernel), *common, *buffers, "--scalar", "n=1000"], capsys)
    assert code == 0, out
    code, out, _ = run_cli([str(kernel), *common, *buffers, "--scalar", "n=1001"], capsys)
    assert code == 1 and "oob: " in out
    replay = next(line for line in out.splitlines() if line.startswith("replay: ")).split()[-1]
    code, out, _ = run_cli(["--replay", replay, "--replay-dir", str(tmp_path)], capsys)
    assert code == 1 and "out[1000]" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shape", "m=3"], "has no symbol m"),
        (["--shape", "n=zero"], "is not an integer"),
        (["--shape", "n=0"], "must be a positive integer"),
        (["--seed", "x"], "invalid int value"),
    ],
)
def test_cli_bad_input_exits_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(EXAMPLES / "vector_add"), *args], capsys)
    assert code == 2
    assert "error:" in err and message in err
    assert "Traceback" not in err


def test_cli_replay_needs_a_replay_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bogus = tmp_path / "x.json"
    bogus.write_text("{}")
    code, _, err = run_cli(["--replay", str(bogus)], capsys)
    assert code == 2 and "not a larkc replay file" in err
    code, _, err = run_cli([], capsys)
    assert code == 2 and "needs a task" in err


def test_benchmark_script_reports_times(tmp_path: Path) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "simulate.py"
    spec = importlib.util.spec_from_file_location("larkc_bench_simulate", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = bench.bench_example(EXAMPLES / "vector_add", repeat=1)
    assert [r[0] for r in rows] == ["n=1", "n=1000", "n=4099"]
    assert all(0 < seconds < 2 and verdict == "ok" for _, seconds, verdict in rows)


def test_a_tensor_of_the_wrong_dtype_is_a_located_task_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    task_file = tmp_path / "task.py"
    task_file.write_text(
        "from larkc import Task\n"
        f"task = Task(source={str(EXAMPLES / 'vector_add' / 'kernel.cu')!r}, kernel='vector_add',\n"
        "            reference=lambda x, y: x + y, inputs={'x': 'f16[n]', 'y': 'f32[n]'},\n"
        "            outputs={'out': 'f32[n]'}, symbols=['n'], instances=[{'n': 10}],\n"
        "            grid=['cdiv(n, 256)'], block=[256])\n"
    )
    code, _, err = run_cli([str(task_file)], capsys)
    assert code == 2
    assert "kernel.cu:5:28: error: task vector_add: kernel parameter x points to f32 but tensor x is f16" in err


def test_a_replay_whose_task_changed_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    example = EXAMPLES / "vector_add_bug_off_by_one"
    code, out, _ = run_cli([str(example), "--shape", "n=1000", "--replay-dir", str(tmp_path)], capsys)
    assert code == 1
    path = Path(next(line for line in out.splitlines() if line.startswith("replay: ")).split()[-1])
    record = json.loads(path.read_text())
    record["launch"]["block"] = [128, 1, 1]
    path.write_text(json.dumps(record))
    code, _, err = run_cli(["--replay", str(path)], capsys)
    assert code == 2 and "it has changed" in err
