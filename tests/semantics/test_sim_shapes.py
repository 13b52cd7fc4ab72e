"""Hypothesis-drawn shapes for the elementwise and reduction examples: the kernel agrees with its
reference, with no diagnosis, at every shape its task's constraints allow (within test-sized bounds).

Sizes are drawn to hit the edges kernels get wrong: 1, tails that do not fill a block, a warp, a vector
or a tile, and sizes around the block size.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sim_helpers import EXAMPLES

from larkc.errors import TaskError
from larkc.frontends import parse_task
from larkc.ir.nodes import Module
from larkc.pipeline.run import run_instance
from larkc.tasks import Task, load_task


def sizes(hi: int) -> st.SearchStrategy[int]:
    """Sizes in [1, hi], biased toward 1 and the neighbours of powers of two and of 32."""
    edges = [1, 2, 3, 31, 32, 33, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025]
    return st.one_of(st.sampled_from([e for e in edges if e <= hi]), st.integers(1, hi))


ONE_D = {"n": sizes(5000)}
ROWS = {"rows": st.integers(1, 5), "d": sizes(3000)}

#: Example -> strategy per symbol.
SHAPES: dict[str, dict[str, st.SearchStrategy[int]]] = {
    "vector_add": ONE_D,
    "saxpy": ONE_D,
    "relu": ONE_D,
    "gelu_tanh": ONE_D,
    "silu": ONE_D,
    "grid_stride": ONE_D,
    "vector_add_float4": ONE_D,
    "half_relu": ONE_D,
    "half_scale": {"n": st.integers(1, 600).map(lambda k: 8 * k)},
    "silu_and_mul": {"tokens": st.integers(1, 4), "d": sizes(2000)},
    "row_sum_shared": ROWS,
    "row_sum_warp": ROWS,
    "softmax_three_pass": ROWS,
    "softmax_online": ROWS,
    "layer_norm": ROWS,
    "rms_norm": {"num_tokens": st.integers(1, 5), "hidden_size": sizes(3000)},
    "rms_norm_bf16": {"tokens": st.integers(1, 5), "hidden_size": sizes(3000)},
    "dot_product": ONE_D,
    "abs_max": ONE_D,
    "matmul_naive": {"M": sizes(40), "N": sizes(40), "K": sizes(40)},
    "matmul_tiled": {"M": sizes(40), "N": sizes(40), "K": sizes(40)},
}

_MODULES: dict[str, tuple[Task, Module]] = {}


def task_and_module(name: str) -> tuple[Task, Module]:
    if name not in _MODULES:
        task = load_task(EXAMPLES / name)
        _MODULES[name] = (task, parse_task(task))
    return _MODULES[name]


def check(name: str, draw: Callable[[st.SearchStrategy[int]], int]) -> None:
    task, module = task_and_module(name)
    instance = {sym: draw(strategy) for sym, strategy in SHAPES[name].items()}
    try:
        task.shape_env(instance)
    except TaskError:
        assume(False)
    report, _ = run_instance(task, module, instance, seed=instance_seed(instance))
    assert report.ok, f"{name} {instance}:\n" + "\n".join(d.render() for d in report.diagnoses)


def instance_seed(instance: dict[str, int]) -> int:
    return sum(v * (i + 1) for i, v in enumerate(instance.values())) % 1000


def test_every_listed_example_exists_and_its_symbols_are_drawn() -> None:
    for name, strategies in SHAPES.items():
        task = load_task(EXAMPLES / name)
        assert set(strategies) == set(task.symbols), name


@pytest.mark.parametrize("name", sorted(SHAPES))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much], derandomize=True)
@given(data=st.data())
def test_random_shapes_agree_with_the_reference(name: str, data: st.DataObject) -> None:
    check(name, data.draw)
