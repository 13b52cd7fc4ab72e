"""The KV-cache write of one decoding step, safety only (reference None): the reference
``cache[dest_loc] = k`` (aten.index_put with an integer index) is not an op the reference stage traces yet.
The memory manager hands out distinct slots: ``distinct(dest_loc)`` is what makes the copy race-free."""

from larkc import Task

task = Task(
    source="kernel.py",
    kernel="_fwd_kernel_destindex_copy_kv",
    reference=None,
    inputs={"k": "f32[tokens, heads, dim]", "dest_loc": "i64[tokens] in [0, slots)", "cache": "f32[slots, heads, dim]"},
    outputs={"cache": "f32[slots, heads, dim]"},
    preconditions=["distinct(dest_loc)"],
    bindings={
        "K": "k",
        "Dest_loc": "dest_loc",
        "Out": "cache",
        "stride_k_bs": "heads * dim",
        "stride_k_h": "dim",
        "stride_k_d": 1,
        "stride_o_bs": "heads * dim",
        "stride_o_h": "dim",
        "stride_o_d": 1,
        "head_num": "heads",
        "head_dim": "dim",
        "BLOCK_DMODEL": "next_pow2(dim)",
        "BLOCK_HEAD": "next_pow2(heads)",
    },
    symbols=["tokens", "slots", "heads", "dim"],
    constraints=["tokens <= slots", "slots <= 65536", "heads <= 4", "dim <= 64"],
    instances=[{"tokens": 3, "slots": 8, "heads": 2, "dim": 4}, {"tokens": 5, "slots": 5, "heads": 3, "dim": 8}],
    grid=["tokens"],
    block=[1],
)
