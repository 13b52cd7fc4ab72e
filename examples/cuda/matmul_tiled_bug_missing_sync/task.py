"""Seeded bug: matmul_tiled without the barrier before the tiles are reloaded (a race when K > TILE)."""

from larkc import Task

task = Task(
    name="matmul_tiled_bug_missing_sync",
    source="kernel.cu",
    kernel="matmul_tiled",
    defines={"TILE": "16"},
    reference="model.py",
    inputs={"a": "f32[M, K]", "b": "f32[K, N]"},
    outputs={"c": "f32[M, N]"},
    symbols=["M", "N", "K"],
    constraints=["M <= 4096", "N <= 4096", "K <= 4096"],
    instances=[
        {"M": 1, "N": 1, "K": 1},
        {"M": 17, "N": 20, "K": 33},
        {"M": 64, "N": 40, "K": 48},
        {"M": 64, "N": 64, "K": 64},
    ],
    grid=["cdiv(N, 16)", "cdiv(M, 16)"],
    block=[16, 16],
    expected_failure="race",
)
