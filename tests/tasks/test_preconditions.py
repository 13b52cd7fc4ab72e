"""Task-level preconditions (``Task(preconditions=["distinct(dest_loc)"])``): their syntax, the located
errors of a precondition that cannot mean anything, and how ``larkc run`` draws and checks inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from larkc import Task, load_task
from larkc.errors import TaskError
from larkc.pipeline.inputs import make_inputs
from larkc.tasks import Distinct, parse_precondition
from larkc.tasks.preconditions import violation


def make(**kw: object) -> Task:
    base: dict[str, object] = {
        "source": "k.py",
        "kernel": "copy_rows",
        "inputs": {"x": "f32[tokens, d]", "dest": "i64[tokens] in [0, slots)", "cache": "f32[slots, d]"},
        "outputs": {"cache": "f32[slots, d]"},
        "preconditions": ["distinct(dest)"],
        "symbols": ["tokens", "slots", "d"],
        "constraints": ["tokens <= slots"],
        "instances": [{"tokens": 5, "slots": 5, "d": 2}, {"tokens": 3, "slots": 40, "d": 2}],
        "grid": ["tokens"],
        "block": [1],
    }
    base.update(kw)
    return Task(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["distinct(dest)", 'distinct("dest")', " distinct ( 'dest' ) "])
def test_distinct_is_read_in_each_spelling(text: str) -> None:
    assert parse_precondition(text) == Distinct("dest")
    assert make(preconditions=[text]).preconditions == (Distinct("dest"),)
    assert str(Distinct("dest")) == "distinct(dest)"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["distinct(dst)"], "precondition distinct(dst) names no input of the task (inputs: x, dest, cache)"),
        (["distinct(x)"], "precondition distinct(x) needs an integer tensor; x is f32[tokens, d]"),
        (["distinct(cache)"], "needs an integer tensor"),
        (["sorted(dest)"], "unknown precondition sorted(...)"),
        (["distinct(dest, x)"], "expected the form distinct(tensor)"),
        ("distinct(dest)", "preconditions must be a list"),
    ],
)
def test_a_precondition_that_means_nothing_is_an_error(given: object, message: str) -> None:
    with pytest.raises(TaskError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        make(preconditions=given)


def test_distinct_needs_room_in_its_value_range() -> None:
    with pytest.raises(TaskError, match=r"cannot hold at instance .*6 entries, 5 values in \[0, 5\)"):
        make(constraints=[], instances=[{"tokens": 6, "slots": 5, "d": 2}])


def test_the_error_points_at_the_precondition_in_the_task_file(tmp_path: Path) -> None:
    (tmp_path / "task.py").write_text(
        "from larkc import Task\n"
        "task = Task(\n"
        "    source='k.py', kernel='k', grid=['n'], block=[1],\n"
        "    inputs={'x': 'f32[n]', 'idx': 'i32[n] in [0, n)'}, outputs={'out': 'f32[n]'},\n"
        "    preconditions=['distinct(idx)', 'distinct(ids)'],\n"
        "    symbols=['n'], instances=[{'n': 4}],\n"
        ")\n"
    )
    with pytest.raises(TaskError) as info:
        load_task(tmp_path / "task.py")
    assert "task.py:5:37: error:" in str(info.value)
    assert "precondition distinct(ids) names no input" in str(info.value)


def test_run_draws_distinct_values_from_the_range() -> None:
    task = make()
    for inst in task.instances:
        env = task.shape_env(inst)
        for seed in range(20):
            dest = make_inputs(task, env, seed)["dest"]
            assert dest.unique().numel() == dest.numel() == env["tokens"]
            assert int(dest.min()) >= 0 and int(dest.max()) < env["slots"]
            assert violation(Distinct("dest"), dest) is None
    # without the precondition, 5 draws from [0, 5) repeat a value for some seed (the test can fail)
    plain = make(preconditions=[])
    env = plain.shape_env({"tokens": 5, "slots": 5, "d": 2})
    assert any(make_inputs(plain, env, s)["dest"].unique().numel() < 5 for s in range(20))


def test_violation_names_two_equal_entries() -> None:
    assert violation(Distinct("dest"), torch.tensor([3, 1, 3])) == (
        "dest[0] == dest[2] == 3, but the task declares distinct(dest)"
    )
