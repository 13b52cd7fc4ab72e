"""Cooperative groups: the thread-block and tiled-partition subset, lowered to existing IR operations.

Kernels written with ``namespace cg = cooperative_groups`` use group objects instead of raw indices
and intrinsics. A group is a compile-time value here (no IR variable): the frontend binds the name of
a group variable to a :class:`Group` and lowers each method to what it means:

==========================================  ===================================================
``cg::this_thread_block()``                  the block (size ``blockDim.x * blockDim.y * blockDim.z``)
``cg::tiled_partition<S>(block)``            consecutive tiles of ``S`` threads (``S`` a power of two <= 32)
``cg::tiled_partition(block, S)``            the same tiles (``S`` a constant), as a ``thread_group``
``cg::thread_group g``                       a variable or parameter holding the block or a tile
``g.thread_rank()``                          linear thread index in the block, modulo ``S`` for a tile
``g.size()`` / ``num_threads()``             the block size, or ``S``
``tile.meta_group_rank()`` / ``_size()``     the tile's index in the block / the number of tiles
``g.sync()``                                 ``__syncthreads()``, or ``__syncwarp`` of the tile's lanes
``tile.shfl(v, i)``, ``shfl_up/down/xor``    the matching ``__shfl_*_sync`` with the tile's lanes, width ``S``
``tile.any/all/ballot(p)``                   the matching vote over the tile's lanes
``cg::reduce(tile, v, cg::plus<T>())``       ``log2 S`` butterfly steps; also ``cg::greater`` (max), ``cg::less`` (min)
``cg::reduce(tile, v, f)``                   the same steps calling a device function ``T f(T, T)`` (a struct
                                             ``T`` is shuffled lane by lane)
==========================================  ===================================================

Everything else of the library (grid groups: :data:`GRID_GROUPS_UNMODELLED`; ``coalesced_threads``,
``memcpy_async``) is rejected.
After ``using namespace cooperative_groups;`` the names of :data:`CG_NAMES` are also read unqualified
(``this_thread_block()``, ``reduce(tile, v, plus<float>())``) where no variable or user function hides them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CG_NAMES", "GRID_GROUPS_UNMODELLED", "GRID_GROUP_NAMES", "GROUP_PARAM", "REDUCE_OPS", "Group"]


@dataclass(frozen=True, slots=True)
class Group:
    """A thread group: the whole block (``tile`` is ``None``) or tiles of ``tile`` consecutive threads."""

    tile: int | None = None

    @property
    def is_block(self) -> bool:
        return self.tile is None

    def __str__(self) -> str:
        return "block" if self.tile is None else f"tile{self.tile}"


#: The grid-wide groups and their factories: a cooperative launch's barrier across all blocks, which the IR
#: does not have; they are refused with :data:`GRID_GROUPS_UNMODELLED`.
GRID_GROUP_NAMES = frozenset({"this_grid", "grid_group", "this_multi_grid", "multi_grid_group"})
GRID_GROUPS_UNMODELLED = "grid-wide cooperative group (a barrier across all blocks, which larkc does not model)"

#: Prefix of the environment entries that bind a device function's group parameters.
GROUP_PARAM = "cg:"


#: ``cg::plus<T>()`` and friends: the binary operator each names.
REDUCE_OPS = {"plus": "+", "greater": "max", "less": "min", "bit_and": "&", "bit_or": "|", "bit_xor": "^"}


#: The library's names read unqualified after ``using namespace cooperative_groups;`` (the ones larkc
#: models, and the ones it rejects by name).
CG_NAMES = frozenset(
    {
        "this_thread_block",
        "tiled_partition",
        "thread_block",
        "thread_block_tile",
        "thread_group",
        "reduce",
        "sync",
        "this_grid",
        "grid_group",
        "coalesced_threads",
        "coalesced_group",
        "block_tile_memory",
        *REDUCE_OPS,
    }
)
