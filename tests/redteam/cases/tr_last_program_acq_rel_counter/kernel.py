"""Sum in one launch ("last program finishes"): each program stores its partial sum, bumps a counter,
and the program that sees the counter at nprog - 1 adds the partials up. The increment is acq_rel
(Triton's default): each partial store happens before the last program's loads."""

import triton
import triton.language as tl


@triton.jit
def one_pass_sum_kernel(x_ptr, partial_ptr, count_ptr, out_ptr, n, BLOCK: tl.constexpr, MAX_PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))
    ticket = tl.atomic_add(count_ptr, 1)  # acq_rel: publishes the partial, sees the others
    if ticket == nprog - 1:
        p = tl.arange(0, MAX_PROGRAMS)
        parts = tl.load(partial_ptr + p, mask=p < nprog, other=0.0)
        tl.store(out_ptr, tl.sum(parts, axis=0))
