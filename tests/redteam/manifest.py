"""The red-team corpus: every case of ``cases/`` with the verdict a sound tool must give, and why.

A wrong kernel names the obligations it really violates (``equivalence(<output>)``, ``bounds``,
``race``, ``barrier``, ``init``, ``defined``, ``overflow``, ``inputs``), the sizes where the bug
manifests (a predicate over the shape symbols in the task's shape-expression language), a witness (one
size the task's constraints allow where it manifests) and the one-line reason. A correct kernel must
not be FAILED. Many wrong kernels' tasks list instances that miss the bug on purpose: a sound tool
must then not claim the violated obligation for all sizes.

``issue`` is the class of issue 19 a case exercises, where it is one of the listed ones (a letter for a
new class this corpus found, described in docs/redteam.md); ``xfail``
marks the unsound answers today's larkc gives in a class another helper is fixing (the lead removes
the mark when the fix lands).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field


class Expect(enum.Enum):
    WRONG = "wrong"  # a sound tool must not prove a violated obligation where the bug shows
    CORRECT = "correct"  # a sound tool must not refute anything


@dataclass(frozen=True, slots=True)
class Case:
    name: str  # the folder under cases/; cu_ for CUDA, tr_ for Triton
    expect: Expect
    reason: str
    violates: tuple[str, ...] = ()
    manifests: str = ""
    witness: Mapping[str, int] = field(default_factory=dict)
    issue: int | str | None = None  # a class of issue 19 (1-16), or a new one found here (A, B, ...)
    xfail: str | None = None
    witness_pass: bool = True  # verify at the witness too (off where the witness never terminates)
    xfail_passes: tuple[str, ...] = ("instances", "witness")  # the passes ``xfail`` marks


def wrong(
    name: str,
    violates: str | tuple[str, ...],
    manifests: str,
    witness: Mapping[str, int],
    reason: str,
    issue: int | str | None = None,
    xfail: str | None = None,
    witness_pass: bool = True,
    xfail_passes: tuple[str, ...] = ("instances", "witness"),
) -> Case:
    v = (violates,) if isinstance(violates, str) else violates
    return Case(name, Expect.WRONG, reason, v, manifests, witness, issue, xfail, witness_pass, xfail_passes)


def correct(name: str, reason: str, issue: int | str | None = None, xfail: str | None = None) -> Case:
    return Case(name, Expect.CORRECT, reason, issue=issue, xfail=xfail)


CASES: tuple[Case, ...] = (
    # --- CUDA, wrong -------------------------------------------------------------------------------
    wrong(
        "cu_scale_gridstride_single_step",
        "equivalence(y)",
        "n > 512",
        {"n": 513},
        "grid capped at 4 blocks of 128 but no grid-stride loop: elements past 512 never written",
    ),
    wrong(
        "cu_gelu_stride_const",
        "equivalence(out)",
        "n > 512",
        {"n": 600},
        "grid-stride step hard-coded to 1024 while the launch has 512 threads: [512, 1024) skipped",
    ),
    wrong(
        "cu_add_vec4_tail_rem3",
        "equivalence(out)",
        "n % 4 == 3",
        {"n": 11},
        "the unrolled scalar tail handles n % 4 of 1 and 2, not 3",
    ),
    wrong(
        "cu_rowsum_fourth_warp",
        "equivalence(out)",
        "d > 96",
        {"rows": 1, "d": 97},
        "the final loop adds at most 3 warp partials; a 128-thread block has 4",
    ),
    wrong(
        "cu_rowsum_partials_short",
        "bounds",
        "d > 96",
        {"rows": 1, "d": 97},
        "__shared__ partial[3] written by a fourth warp",
    ),
    wrong(
        "cu_rowmax_partials_no_sync",
        ("race", "equivalence(out)"),
        "d > 32",
        {"rows": 1, "d": 33},
        "warp maxima published in shared memory and read by warp 0 without __syncthreads (>= 2 warps)",
    ),
    wrong(
        "cu_rownorm_tile_barrier_in_guard",
        "barrier",
        "d % 128 != 0",
        {"rows": 1, "d": 100},
        "__syncthreads inside `if (c < d)`: threads past a ragged last tile skip it",
    ),
    wrong(
        "cu_warp_sum_ballot_mask",
        "init",
        "d < 32",
        {"rows": 1, "d": 5},
        "__shfl_down_sync with the ballot mask reads lanes outside the mask (inactive) when d < 32",
    ),
    wrong(
        "cu_count_atomic_block_scope",
        ("race", "equivalence(count)"),
        "n > 256",
        {"n": 257},
        "atomicAdd_block on a counter shared by several blocks",
    ),
    wrong(
        "cu_silu_guard_le",
        "bounds",
        "n % 256 != 0",
        {"n": 300},
        "guard i <= n: thread i == n reads and writes one past the end",
    ),
    wrong(
        "cu_stencil3_halo_short",
        "bounds",
        "n >= 1",
        {"n": 5},
        "shared tile of BLOCK + 1 with a halo cell on each side: tile[BLOCK + 1] is past its end",
    ),
    wrong(
        "cu_shift_right_inplace",
        ("race", "equivalence(x)"),
        "n >= 3",
        {"n": 3},
        "in-place x[i] = x[i-1]: thread i reads what thread i-1 overwrites",
    ),
    wrong(
        "cu_blocksum_uninit_tail",
        ("init", "equivalence(out)"),
        "n % 256 != 0",
        {"n": 300},
        "threads past the end skip their shared store; the tree reads those slots",
    ),
    wrong(
        "cu_reduce_warp_unrolled_no_syncwarp",
        ("race", "equivalence(out)"),
        "n >= 1",
        {"n": 100},
        "warp-synchronous unrolled reduction through volatile without __syncwarp (independent thread scheduling)",
    ),
    wrong(
        "cu_rowmax_zero_init",
        "equivalence(y)",
        "cols >= 1",
        {"rows": 1, "cols": 3},
        "running max starts at 0: wrong for an all-negative row",
    ),
    wrong(
        "cu_l2_normalize_eps_added",
        "equivalence(y)",
        "d >= 1",
        {"rows": 1, "d": 5},
        "x / (||x|| + eps) where F.normalize is x / max(||x||, eps)",
    ),
    wrong(
        "cu_layernorm_unbiased_var",
        "equivalence(y)",
        "d >= 2",
        {"rows": 1, "d": 4},
        "variance divided by d - 1; layer_norm uses the biased variance",
    ),
    wrong(
        "cu_index_overflow_int64_n",
        ("bounds", "overflow"),
        "n > 2147483648",
        {"n": 2147484160},
        "int64_t count but a 32-bit int index: negative past 2^31 elements",
    ),
    wrong(
        "cu_rownorm_float4_misaligned",
        "bounds",
        "d % 4 != 0 and d > 4 and rows >= 2",
        {"rows": 2, "d": 5},
        "float4 loads of rows at x + row * d: misaligned unless d % 4 == 0",
    ),
    wrong(
        "cu_argmax_last_on_ties",
        "equivalence(idx)",
        "d >= 2",
        {"rows": 1, "d": 2},
        ">= in the per-lane scan keeps the last of tied maxima; torch.argmax returns the first",
    ),
    wrong(
        "cu_sqrt_abs_negative",
        "equivalence(y)",
        "n >= 1",
        {"n": 1},
        "copysign(sqrt(x), x) without the abs: NaN for negative x",
        issue=8,
    ),
    wrong(
        "cu_log_no_abs",
        "equivalence(y)",
        "n >= 1",
        {"n": 1},
        "log(1 + x) where the reference is log(1 + |x|): NaN or -inf for x <= -1",
        issue=8,
    ),
    wrong(
        "cu_square_and_log_two_outputs",
        "equivalence(sq)",
        "n >= 1",
        {"n": 1},
        "sq as exp(2 log x): NaN for x < 0 where x * x is not; only the other output's reference needs x > 0",
        issue=8,
    ),
    wrong(
        "cu_hist_shared_nonatomic",
        ("race", "equivalence(hist)"),
        "n >= 2",
        {"n": 2},
        "shared histogram bins incremented with a plain read-modify-write",
    ),
    wrong(
        "cu_warp_sum_xor_from_8",
        "equivalence(out)",
        "d > 16",
        {"rows": 1, "d": 17},
        "butterfly from offset 8 sums half a warp: lanes 16..31 lost once d > 16",
    ),
    wrong(
        "cu_quant_int8_no_clamp",
        ("defined", "equivalence(q)"),
        "n >= 1",
        {"n": 1},
        "float -> int8 conversion of round(x * 64) without the clamp (undefined out of range)",
        issue=1,
    ),
    wrong(
        "cu_rowsum_launch_bounds_exceeded",
        ("launch", "equivalence(out)"),
        "d > 128",
        {"rows": 1, "d": 200},
        "__launch_bounds__(128) but blocks of up to 256 threads: the launch fails for d > 128",
        issue="A",
    ),
    wrong(
        "cu_rowsum_dyn_shared_over_limit",
        ("launch", "bounds", "equivalence(out)"),
        "d > 58112",
        {"rows": 1, "d": 58113},
        "dynamic shared memory 4 * d bytes: over 227 KiB (any GPU's limit) the launch fails",
        issue="A",
    ),
    wrong(
        "cu_seg16_shfl_down_width",
        "equivalence(out)",
        "s >= 1",
        {"s": 1},
        "width-16 __shfl_down_sync from offset 16: the source is outside the segment, the own value doubles",
    ),
    wrong(
        "cu_warp_scan_shfl_up_no_guard",
        "equivalence(y)",
        "d >= 2",
        {"rows": 1, "d": 2},
        "Hillis-Steele scan without `lane >= offset`: __shfl_up_sync returns the own value below the offset",
    ),
    wrong(
        "cu_tree_reduce_non_pow2_block",
        "equivalence(out)",
        "next_pow2(32 * cdiv(d, 32)) != 32 * cdiv(d, 32)",
        {"rows": 1, "d": 90},
        "halving tree over blockDim.x = 32 * cdiv(d, 32): slots are lost unless that is a power of 2",
    ),
    wrong(
        "cu_warp_sum_partial_warp_block",
        ("init", "equivalence(out)"),
        "d % 32 != 0",
        {"rows": 1, "d": 40},
        "block of exactly d threads: the full-mask shuffle reads lanes of a partial warp that do not exist",
    ),
    wrong(
        "cu_rowcopy_assume_aligned_false",
        ("defined", "bounds"),
        "d % 4 != 0 and rows >= 2",
        {"rows": 2, "d": 5},
        "__builtin_assume_aligned(x + row * d, 16) is a promise, false unless d % 4 == 0",
        issue="B",
    ),
    wrong(
        "cu_int_sum_value_overflow",
        ("overflow", "equivalence(total)"),
        "d > 2048",
        {"rows": 1, "d": 2049},
        "int32 sum of up to 4096 counts below 2^20 overflows (signed overflow is undefined)",
        issue=10,
    ),
    wrong(
        "cu_sum_zeroed_in_kernel",
        ("race", "equivalence(out)"),
        "n > 256",
        {"n": 257},
        "block 0 zeroes the accumulator that other blocks atomically add to: unordered across blocks",
    ),
    wrong(
        "cu_template_block_mismatch",
        ("init", "equivalence(out)"),
        "d < 256",
        {"rows": 1, "d": 100},
        "tree over BLOCK = 256 slots while the host launches min(256, next_pow2(d)) threads",
    ),
    wrong(
        "cu_rowscale_builtin_assume_false",
        ("defined", "equivalence(y)"),
        "d % 2 == 1",
        {"rows": 1, "d": 5},
        "__builtin_assume(d % 2 == 0) is a promise, false for odd d (the compiler may drop the tail)",
        issue="B",
    ),
    wrong(
        "cu_conv_transpose_neg_index",
        "bounds",
        "n >= 1",
        {"n": 1},
        "no i - k >= 0 check: C's -2 / 2 == -1 passes `t / 2 < n_in` and x[-1] is read (int division of negatives)",
    ),
    wrong(
        "cu_embedding_bwd_nonatomic",
        ("race", "equivalence(grad_w)"),
        "tokens >= 2",
        {"tokens": 2, "d": 8},
        "plain += into the row of a token id: two tokens with one id race",
    ),
    wrong(
        "cu_quant_int8_cast_like_torch",
        "defined",
        "n >= 1",
        {"n": 1},
        "(int8_t)(int)(x * 64) of an unclamped x: undefined past 2^31 (the reference casts unclamped too)",
        issue=1,
    ),
    wrong(
        "cu_tree_levels_nonterminating",
        ("overflow", "equivalence(out)"),
        "next_pow2(d) != d",
        {"rows": 1, "d": 6},
        "level count by doubling w until w == d: for d not a power of 2 the shift overflows and never ends",
        witness_pass=False,
    ),
    wrong(
        "cu_smooth3_inplace_alias",
        ("race", "equivalence(x)"),
        "n >= 2",
        {"n": 2},
        "in and out bound to one buffer: a thread reads a neighbour another thread overwrites",
    ),
    wrong(
        "cu_ldg_of_written_scratch",
        ("race", "equivalence(y)"),
        "n >= 1",
        {"n": 3},
        "__ldg (read-only, non-coherent cache) of scratch the kernel wrote: the barrier does not order it",
        issue="D",
    ),
    # --- CUDA, correct but tricky ------------------------------------------------------------------
    correct(
        "cu_blocksum_early_return",
        "threads past the end return before __syncthreads: exited threads do not "
        "count at a barrier (docs/semantics.md), and the tree guards i + s < n",
    ),
    correct("cu_seg16_shfl_xor_width", "width-16 butterfly from offset 8 stays inside each segment"),
    correct("cu_warp_scan_shfl_up", "Hillis-Steele warp scan with the lane >= offset guard"),
    correct("cu_conv_transpose", "transposed convolution gathering with t >= 0 checked before t / 2"),
    correct("cu_warp_rotate_shfl_wrap", "__shfl_sync source lane 32 wraps to lane 0 (taken modulo the width)"),
    correct("cu_scale_gridstride", "grid-stride loop over a capped grid"),
    correct("cu_add_vec4_tail_loop", "float4 body plus one tail element per thread for any n % 4"),
    correct("cu_rowmax_partials_sync", "warp maxima through shared memory with the barrier; start -FLT_MAX"),
    correct("cu_warp_sum_zero_fill", "full-mask butterfly with zero-filled lanes past the row"),
    correct("cu_count_atomic_device_scope", "device-scope atomicAdd on a shared counter under a data-dependent branch"),
    correct("cu_stencil3_halo", "shared tile BLOCK + 2 with both halo cells"),
    correct("cu_shift_right_inplace_sync", "in-place shift in one block: all reads, __syncthreads, all writes"),
    correct("cu_reduce_warp_unrolled_syncwarp", "last-warp reduction with __syncwarp between read and write"),
    correct("cu_rowmax_flt_max_init", "max started at -FLT_MAX, below every f32 input"),
    correct("cu_square_powf", "powf(x, 2.0f) is x * x for negative x as well", issue=8),
    correct("cu_log1p_abs", "log(1 + |x|): the argument is >= 1", issue=8),
    correct("cu_masked_softmax_neginf", "masked softmax through -inf, reference masked_fill(-inf)", issue=9),
    correct("cu_quant_int8_clamped", "int8 quantisation with the clamp: every conversion in range", issue=1),
    # --- Triton, wrong ------------------------------------------------------------------------------
    wrong(
        "tr_rowmax_other_zero",
        "equivalence(y)",
        "next_pow2(n) != n",
        {"m": 1, "n": 5},
        "padding lanes load 0.0 into a max: wins over an all-negative row when n is not a power of 2",
    ),
    wrong(
        "tr_rmsnorm_mean_over_block",
        "equivalence(y)",
        "next_pow2(d) != d",
        {"rows": 1, "d": 5},
        "mean of squares divided by BLOCK_SIZE (the padded width) instead of n_cols",
    ),
    wrong(
        "tr_downsample_lane_conflict",
        ("race", "equivalence(out)"),
        "m >= 1",
        {"m": 1},
        "lanes 2j and 2j + 1 of one program store different values to out[j]",
        issue=2,
    ),
    wrong(
        "tr_downsample_odd_lane_conflict",
        ("race", "equivalence(out)"),
        "m >= 1",
        {"m": 1},
        "as above for x[1::2]: the later lane holds the reference's value, the earlier one races",
        issue=2,
    ),
    wrong(
        "tr_reverse_scratch_no_barrier",
        ("race", "equivalence(y)"),
        "d >= 2",
        {"rows": 1, "d": 2},
        "global scratch stored and read back by other lanes without tl.debug_barrier()",
        issue=3,
    ),
    wrong(
        "tr_quant_int8_no_clamp",
        ("defined", "equivalence(q)"),
        "n >= 1",
        {"n": 1},
        "(x * 64).to(tl.int8) without a clamp: undefined for |x * 64| >= 128",
        issue=1,
    ),
    wrong(
        "tr_softmax_unmasked_pow2_block",
        "bounds",
        "next_pow2(d) != d",
        {"rows": 1, "d": 5},
        "unmasked loads and stores of BLOCK_SIZE = next_pow2(d) lanes: past the end unless d is a power of 2",
        issue=4,
    ),
    wrong(
        "tr_persistent_single_tile",
        "equivalence(out)",
        "n > 256",
        {"n": 257},
        "persistent grid of at most 4 programs without the loop over tiles",
    ),
    wrong(
        "tr_persistent_floor_tiles",
        "equivalence(out)",
        "n % 64 != 0",
        {"n": 65},
        "tile count n // BLOCK: the ragged last tile is never done",
    ),
    wrong("tr_layernorm_unbiased_var", "equivalence(y)", "d >= 2", {"rows": 1, "d": 2}, "variance divided by N - 1"),
    wrong(
        "tr_rmsnorm_eps_outside_sqrt",
        "equivalence(y)",
        "d >= 1",
        {"rows": 1, "d": 1},
        "x / (sqrt(mean(x^2)) + eps) where the reference is x * rsqrt(mean(x^2) + eps)",
    ),
    wrong(
        "tr_log1p_no_abs",
        "equivalence(y)",
        "n >= 1",
        {"n": 1},
        "tl.log(1 + x) where the reference takes log(1 + |x|): NaN or -inf for x <= -1",
        issue=8,
    ),
    wrong(
        "tr_add2d_row_mask_only",
        ("bounds", "equivalence(out)"),
        "n % 32 != 0",
        {"m": 1, "n": 5},
        "2-D tile masked on rows only: the column tail is read and written past each row",
    ),
    wrong(
        "tr_total_sum_load_add_store",
        ("race", "equivalence(out)"),
        "n > 128",
        {"n": 129},
        "partial sums added into out[0] by load, add, store from several programs",
    ),
    wrong(
        "tr_row_scale_offset_overflow",
        ("overflow", "bounds"),
        "rows * d > 2147483648",
        {"rows": 2097153, "d": 1024},
        "row * n_cols in int32 wraps past 2^31 elements",
    ),
    wrong(
        "tr_rowsum_chunk_mask_no_offset",
        ("bounds", "equivalence(out)"),
        "d > 64 and d % 64 != 0",
        {"rows": 1, "d": 65},
        "chunk mask compares the lane, not the column, with n_cols",
    ),
    wrong(
        "tr_global_max_atomic_zero_start",
        "equivalence(out)",
        "n >= 1",
        {"n": 1},
        "tl.atomic_max into a zero-filled out[0]: 0 for an all-negative input",
    ),
    wrong(
        "tr_cumsum_no_carry",
        "equivalence(y)",
        "n > 64",
        {"n": 65},
        "per-block tl.cumsum without the carry of earlier blocks",
    ),
    wrong(
        "tr_swiglu_swapped",
        "equivalence(out)",
        "d >= 1",
        {"rows": 1, "d": 1},
        "silu(up) * gate instead of silu(gate) * up",
    ),
    wrong(
        "tr_transpose_out_stride_n",
        ("bounds", "equivalence(out)"),
        "m != n",
        {"m": 3, "n": 5},
        "output row stride N instead of M: right only for square matrices",
    ),
    wrong(
        "tr_rowsum_masked_no_other",
        ("init", "equivalence(out)"),
        "next_pow2(d) != d",
        {"rows": 1, "d": 5},
        "masked load without `other`: padding lanes are unspecified and tl.sum adds them",
    ),
    wrong(
        "tr_rowscale_false_multiple_of",
        ("defined", "bounds"),
        "d % 16 != 0 and rows >= 2",
        {"rows": 2, "d": 5},
        "tl.multiple_of(row * n_cols, 16) is a promise, false unless n_cols % 16 == 0",
        issue="B",
    ),
    wrong(
        "tr_add2d_mask_precedence",
        ("bounds", "equivalence(out)"),
        "n % 32 != 0",
        {"m": 1, "n": 5},
        "(rm < M) & rn < N parses as ((rm < M) & rn) < N: no column mask",
    ),
    wrong(
        "tr_normalize_by_running_total",
        ("race", "equivalence(y)"),
        "n > 128",
        {"n": 129},
        "each program divides by a global total it reads right after its own atomic_add",
    ),
    wrong(
        "tr_heuristic_even_wrong_divisor",
        ("bounds", "equivalence(y)"),
        "n % 128 == 64",
        {"n": 192},
        "heuristic EVEN tests n % 64 while BLOCK = 128: the unmasked path runs past the end",
        issue=4,
    ),
    wrong(
        "tr_last_program_relaxed_counter",
        ("race", "equivalence(out)"),
        "n > 64",
        {"n": 65},
        "partials published through a relaxed atomic counter: the last program's loads race with them",
    ),
    wrong(
        "tr_roll_mod_negative",
        ("bounds", "equivalence(out)"),
        "n >= 1",
        {"n": 5},
        "(offs - 1) % n with Triton's C-style %: -1 at offs = 0 (int division of negatives)",
    ),
    wrong(
        "tr_embedding_bwd_nonatomic",
        ("race", "equivalence(grad_w)"),
        "tokens >= 2",
        {"tokens": 2, "d": 8},
        "load-add-store into the row of a token id: two programs with one id race",
    ),
    wrong(
        "tr_shift_inplace_one_program",
        ("race", "equivalence(x)"),
        "n >= 3",
        {"n": 3},
        "in-place x[i] = x[i - 1] in one program: lanes of other warps may store before a lane loads",
        issue=3,
    ),
    # --- Triton, correct but tricky ------------------------------------------------------------------
    correct("tr_last_program_acq_rel_counter", "partials published through an acq_rel atomic counter"),
    correct("tr_roll_mod_shifted", "(offs + n - 1) % n: a non-negative dividend"),
    correct("tr_rowmax_other_neginf", "padding lanes load -inf, the identity of max"),
    correct("tr_rmsnorm_mean_over_ncols", "padding lanes load 0 and the mean divides by n_cols"),
    correct("tr_downsample_even_lanes", "each lane stores its own output element"),
    correct("tr_reverse_scratch_barrier", "global scratch read back after tl.debug_barrier()", issue=3),
    correct("tr_quant_int8_clamped", "clamped before the int8 conversion", issue=1),
    correct("tr_persistent_tile_loop", "persistent grid striding over cdiv(n, BLOCK) tiles"),
    correct("tr_layernorm_biased_var", "padding lanes' centred values zeroed with tl.where; biased variance"),
    correct("tr_log1p_abs", "tl.log(1 + |x|): argument >= 1", issue=8),
    correct("tr_add2d_full_mask", "2-D tile masked on rows and columns"),
    correct("tr_rowsum_chunk_mask", "chunk mask start + lane < n_cols; per-lane partials summed at the end"),
    correct("tr_cumsum_exclusive", "inclusive tl.cumsum minus the element"),
    correct("tr_transpose", "tile stored with the output's row stride"),
    correct("tr_recip_where_zero", "1 / x computed for zero lanes and discarded by tl.where (IEEE inf)", issue=8),
    correct("tr_logsumexp_neginf", "padding at -inf: exp(-inf) = 0 in the sum", issue=9),
    correct("tr_masked_softmax_neginf", "masked scores at -inf; reference masked_fill(-inf)", issue=9),
    # --- Round 3: partial functions, IEEE specials, the normaliser (docs/redteam.md) --------------------
    wrong(
        "cu_epilogue_alpha_sqrt",
        "equivalence(y)",
        "n >= 1",
        {"n": 1},
        "x + alpha * sqrtf(x) with alpha = 0: 0 * NaN is NaN for x < 0 (the product cancels in the terms)",
        issue="G",
    ),
    wrong(
        "tr_epilogue_alpha_log",
        "equivalence(y)",
        "n >= 1",
        {"n": 1},
        "x + alpha * tl.log(x) with alpha = 0: 0 * NaN (0 * -inf) is NaN for x <= 0",
        issue="G",
    ),
    wrong(
        "cu_l2norm_rsqrt_no_eps",
        "equivalence(y)",
        "rows >= 1",
        {"rows": 1, "d": 1},
        "x * rsqrtf(sum x^2) without eps: a zero row is 0 * inf = NaN, F.normalize returns 0",
        issue=8,
    ),
    wrong(
        "tr_l2norm_rsqrt_no_eps",
        "equivalence(y)",
        "rows >= 1",
        {"rows": 1, "d": 1},
        "x * rsqrt(tl.sum(x * x)) without eps: a zero row is NaN",
        issue=8,
    ),
    wrong(
        "cu_additive_mask_zero_times_inf",
        "equivalence(out)",
        "n >= 1",
        {"n": 1},
        "s + (1 - keep) * -inf: a kept score gets 0 * -inf = NaN",
        issue=9,
    ),
    wrong(
        "tr_additive_mask_zero_times_inf",
        "equivalence(out)",
        "n >= 1",
        {"n": 1},
        "s + (1 - keep) * -inf in Triton: 0 * -inf = NaN where keep is 1",
        issue=9,
    ),
    wrong(
        "cu_rmsnorm_unscale_zero_row",
        "equivalence(y)",
        "rows >= 1",
        {"rows": 1, "d": 1},
        "(x * rsqrtf(ms)) * sqrtf(ms) is x only where ms != 0: a zero row is NaN (the normaliser cancels it)",
        issue=8,
    ),
    wrong(
        "cu_masked_mean_zero_count",
        "equivalence(out)",
        "rows >= 1",
        {"rows": 1, "L": 1},
        "sum(x * m) / sum(m) without clamping the count: an all-false row is 0 / 0 = NaN",
        issue=8,
    ),
    wrong(
        "tr_masked_mean_zero_count",
        "equivalence(out)",
        "rows >= 1",
        {"rows": 1, "L": 1},
        "tl.sum(x * m) / tl.sum(m): an all-false row is 0 / 0 = NaN",
        issue=8,
    ),
    wrong(
        "tr_bce_log_no_clamp",
        "equivalence(out)",
        "n >= 1",
        {"n": 1},
        "binary cross-entropy without the -100 clamp of each log: p = 1, t = 1 gives 0 * -inf = NaN",
        issue=8,
    ),
    correct("cu_sqrt_guarded_if", "sqrtf(v - 1) only in the arm where v > 1", issue="G"),
    correct("tr_sqrt_clamped", "tl.sqrt(tl.maximum(x - 1, 0)): the clamp keeps the argument >= 0", issue="G"),
    correct("cu_fmax_swallows_nan", "fmaxf(sqrtf(x - 1), 0): fmaxf returns 0 where the root is NaN", issue="G"),
    correct("tr_isnan_where_idiom", "tl.where(r != r, 0, r): the NaN test replaces the NaN root", issue="G"),
    correct("cu_abs_via_exp_log", "expf(0.5 * logf(x * x)) is |x|, also at 0 (exp(-inf) = 0)", issue="G"),
)

BY_NAME: dict[str, Case] = {c.name: c for c in CASES}
