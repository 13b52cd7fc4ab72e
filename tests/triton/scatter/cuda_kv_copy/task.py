"""The KV-cache write in CUDA (vLLM's reshape_and_cache, flat layout), safety only: distinct slots make
it race-free."""

from larkc import Task

task = Task(
    source="kernel.cu",
    kernel="reshape_and_cache_flat",
    reference=None,
    inputs={"key": "f32[tokens, d]", "slot_mapping": "i64[tokens] in [0, slots)", "key_cache": "f32[slots, d]"},
    outputs={"key_cache": "f32[slots, d]"},
    preconditions=["distinct(slot_mapping)"],
    symbols=["tokens", "slots", "d"],
    constraints=["tokens <= slots", "slots <= 65536", "d <= 1024"],
    instances=[{"tokens": 3, "slots": 8, "d": 5}],
    grid=["tokens"],
    block=[32],
)
