"""The shape of a launch: which threads exist, in which block and warp, and how to name them.

The simulator numbers the threads of a launch ``0 .. T-1``, block by block, and within a block with
``threadIdx.x`` fastest (CUDA's linear thread index). So the threads of a block, and the 32 lanes of
a warp, are consecutive numbers; the checks rely on that to summarise sets of threads by their least
and greatest number. A block-level (Triton) function runs one program per grid point: the program
plays the role of a block of one thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from larkc.errors import SimulationError
from larkc.ir.nodes import Level

__all__ = ["WARP_SIZE", "LaunchConfig", "ThreadSpace", "check_launch", "format_dim3"]

WARP_SIZE = 32

Dim3 = tuple[int, int, int]

#: CUDA's limits on a launch (compute capability 7.0 and later).
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2**31 - 1, 65535, 65535)


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    """Grid and block dimensions (three each) and dynamic shared memory in bytes per block."""

    grid: Dim3
    block: Dim3
    shared_bytes: int = 0

    def __str__(self) -> str:
        g = "x".join(str(d) for d in self.grid)
        b = "x".join(str(d) for d in self.block)
        extra = f", {self.shared_bytes} shared bytes" if self.shared_bytes else ""
        return f"grid {g}, block {b}{extra}"


def check_launch(launch: LaunchConfig, level: Level, max_threads: int | None = None) -> None:
    """Raise a "bad launch" :class:`~larkc.errors.SimulationError` for a launch CUDA refuses: a dimension
    below 1, past CUDA's limits (thread-level kernels), or more threads per block than 1024 or the
    kernel's ``__launch_bounds__`` (``max_threads``). Shared memory is checked with the kernel's arrays
    (``larkc.pipeline.memory.check_launchable``)."""
    for what, dims, limits in (("grid", launch.grid, MAX_GRID_DIMS), ("block", launch.block, MAX_BLOCK_DIMS)):
        for d, lim in zip(dims, limits, strict=True):
            if d < 1:
                raise SimulationError(f"bad launch: {what} dimensions must be positive, got {dims}")
            if level is Level.THREAD and d > lim:
                raise SimulationError(f"bad launch: {what} dimensions {dims} exceed CUDA's limits {limits}")
    if launch.shared_bytes < 0:
        raise SimulationError(f"bad launch: negative dynamic shared memory {launch.shared_bytes}")
    if level is Level.THREAD:
        threads = math.prod(launch.block)
        if threads > MAX_THREADS_PER_BLOCK:
            raise SimulationError(
                f"bad launch: {threads} threads per block exceed CUDA's limit of {MAX_THREADS_PER_BLOCK}"
            )
        if max_threads is not None and threads > max_threads:
            raise SimulationError(
                f"bad launch: {threads} threads per block exceed the kernel's __launch_bounds__ of {max_threads}"
            )


class ThreadSpace:
    """Per-thread coordinates of a launch, as tensors over the thread numbers ``0 .. T-1``."""

    def __init__(self, launch: LaunchConfig, level: Level, *, max_threads: int | None = None) -> None:
        self.launch = launch
        self.level = level
        check_launch(launch, level, max_threads)
        self.num_blocks = math.prod(launch.grid)
        self.block_size = math.prod(launch.block) if level is Level.THREAD else 1
        self.num_threads = self.num_blocks * self.block_size
        bs = self.block_size
        self._block_shift = bs.bit_length() - 1 if bs & (bs - 1) == 0 else None
        self.warps_per_block = -(-self.block_size // WARP_SIZE)
        self.num_warps = self.num_blocks * self.warps_per_block

        t = torch.arange(self.num_threads, dtype=torch.int64)
        self.tid = t
        self.block = t // self.block_size
        self.local = t % self.block_size
        self.warp = self.block * self.warps_per_block + self.local // WARP_SIZE
        self.lane = self.local % WARP_SIZE
        bx, by, _ = launch.block if level is Level.THREAD else (1, 1, 1)
        gx, gy, _ = launch.grid
        self.thread_idx = (self.local % bx, (self.local // bx) % by, self.local // (bx * by))
        self.block_idx = (self.block % gx, (self.block // gx) % gy, self.block // (gx * gy))
        # Lanes that exist in each warp (the last warp of a block may be partial).
        w = torch.arange(self.num_warps, dtype=torch.int64)
        first_local = (w % self.warps_per_block) * WARP_SIZE
        self.warp_lanes = torch.clamp(self.block_size - first_local, max=WARP_SIZE)
        self.warp_first = (w // self.warps_per_block) * self.block_size + first_local

    # -- naming threads --------------------------------------------------------------------------------

    def block_coords(self, b: int) -> Dim3:
        gx, gy, _ = self.launch.grid
        return (b % gx, (b // gx) % gy, b // (gx * gy))

    def thread_coords(self, t: int) -> Dim3:
        if self.level is Level.BLOCK:
            return (0, 0, 0)
        bx, by, _ = self.launch.block
        local = t % self.block_size
        return (local % bx, (local // bx) % by, local // (bx * by))

    def coords(self, t: int) -> tuple[Dim3, Dim3 | None]:
        """``(blockIdx, threadIdx)`` of thread ``t``; Triton programs have no thread index."""
        b = self.block_coords(t // self.block_size)
        return b, (self.thread_coords(t) if self.level is Level.THREAD else None)

    def describe(self, t: int, *, with_block: bool = True) -> str:
        """``block (1,0,0) thread (3,0,0)``, ``thread (3,0,0)`` or ``program (2,0,0)``."""
        b, th = self.coords(t)
        if th is None:
            return f"program {_fmt(b)}"
        return f"block {_fmt(b)} thread {_fmt(th)}" if with_block else f"thread {_fmt(th)}"

    def block_of(self, t: torch.Tensor) -> torch.Tensor:
        """The block number of thread numbers ``t`` (non-negative), in ``t``'s dtype."""
        if self._block_shift is not None:
            return torch.bitwise_right_shift(t, self._block_shift)
        return torch.div(t, self.block_size, rounding_mode="floor")

    def warp_of(self, t: torch.Tensor) -> torch.Tensor:
        """The warp number of thread numbers ``t`` (warps are numbered across the launch)."""
        if self.block_size % WARP_SIZE == 0:
            return torch.bitwise_right_shift(t, 5)  # warps never straddle blocks: t // 32
        local = t % self.block_size
        return self.block_of(t) * self.warps_per_block + torch.div(local, WARP_SIZE, rounding_mode="floor")


def format_dim3(d: Dim3) -> str:
    """``(x,y,z)``, the way diagnoses print block and thread coordinates."""
    return f"({d[0]},{d[1]},{d[2]})"


_fmt = format_dim3
