"""CUDA constructs from the audit's CUDA samples, llm.c and exllamav2 kernels (docs/cuda-audit.md), each on
a snippet shaped like the real kernel it came from, lowered, verified and simulated against values
computed in Python."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuda_harness import Cuda


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- cg::thread_group parameters and variables (simpleCooperativeGroups, dxtc) ---------------------------

CG_THREAD_GROUP = """
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int sum_ranks(thread_group g, int* x, int val) {
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i) val += x[lane + i];
        g.sync();
    }
    if (g.thread_rank() == 0) return val;
    else return -1;
}

__global__ void groups_kernel(int* out) {
    thread_block block = this_thread_block();
    __shared__ int workspace[64];
    int total = sum_ranks(block, workspace, block.thread_rank());
    if (block.thread_rank() == 0) out[0] = total;
    block.sync();
    thread_block_tile<16> tile16 = tiled_partition<16>(block);
    int offset = block.thread_rank() - tile16.thread_rank();
    total = sum_ranks(tile16, workspace + offset, 2 * tile16.thread_rank());
    if (tile16.thread_rank() == 0) out[1 + block.thread_rank() / 16] = total;
    block.sync();
    namespace cg = cooperative_groups;
    cg::thread_group tile8 = cg::tiled_partition(block, 8);
    offset = block.thread_rank() - tile8.thread_rank();
    total = sum_ranks(tile8, workspace + offset, 1);
    if (tile8.thread_rank() == 0) out[5 + block.thread_rank() / 8] = total;
}
"""


def test_thread_group_parameters_take_the_block_and_tiles(cuda: Cuda) -> None:
    r = cuda.run(CG_THREAD_GROUP, "groups_kernel", block=64, buffers={"out": ("i32", 13)})
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [sum(range(64))] + [2 * sum(range(16))] * 4 + [8] * 8


def test_a_tile_given_to_a_thread_block_parameter_is_a_type_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__device__ int rank(cg::thread_block g) { return g.thread_rank(); }\n"
        "__global__ void k(int* o) {\n"
        "    auto t = cg::tiled_partition<16>(cg::this_thread_block());\n"
        "    o[0] = rank(t);\n"
        "}\n"
    )
    assert cuda.error(src) == "2:21: error: a tile16 group where the type is cg::thread_block"


def test_a_tile_of_another_size_is_a_type_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* o) {\n"
        "    cg::thread_block b = cg::this_thread_block();\n"
        "    cg::thread_block_tile<8> t = cg::tiled_partition(b, 16);\n"
        "    o[0] = t.thread_rank();\n"
        "}\n"
    )
    assert cuda.error(src) == "4:5: error: a tile16 group where the type is thread_block_tile<8>"


def test_a_dynamic_tile_size_is_a_located_error(cuda: Cuda) -> None:
    src = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* o, int n) {\n"
        "    cg::thread_group t = cg::tiled_partition(cg::this_thread_block(), n);\n"
        "    o[0] = t.thread_rank();\n"
        "}\n"
    )
    assert cuda.error(src) == "3:71: error: unsupported tiled_partition size (a power of two up to 32): n"
