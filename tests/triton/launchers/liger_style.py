# ruff: noqa: N803, N806 - the libraries' own names (X_ptr, BLOCK_SIZE)
"""Launchers written the way Liger-Kernel writes its ops (``src/liger_kernel/ops/*.py``): a
``calculate_settings`` helper for the block size, ``ensure_contiguous`` on the entry point, rows
flattened with ``view(-1, dim)``, strides read from the tensors, ``.to(tl.int64)`` row offsets. Read by
``tests/triton/test_triton_launcher_library.py``; larkc captures them (the kernels never run)."""

import functools

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        def maybe_to_contiguous(x):
            return x.contiguous() if isinstance(x, torch.Tensor) else x

        args = [maybe_to_contiguous(arg) for arg in args]
        kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    return wrapper


@triton.jit
def _residual_add_kernel(X_ptr, X_row_stride, R_ptr, R_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    """X += R, row by row, in place (the residual update of a fused add + norm)."""
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    X_ptr += row_idx * X_row_stride
    R_ptr += row_idx * R_row_stride
    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    R_row = tl.load(R_ptr + col_offsets, mask=mask, other=0)
    tl.store(X_ptr + col_offsets, X_row + R_row, mask=mask)


@ensure_contiguous
def residual_add_(X, R):
    """In place: returns nothing, X holds X + R."""
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    R = R.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _residual_add_kernel[(n_rows,)](X, X.stride(0), R, R.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)


@triton.jit
def _residual_add_kernel_wrong(X_ptr, X_row_stride, R_ptr, R_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    """Seeded bug: the last column is not updated."""
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols - 1
    X_ptr += row_idx * X_row_stride
    R_ptr += row_idx * R_row_stride
    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    R_row = tl.load(R_ptr + col_offsets, mask=mask, other=0)
    tl.store(X_ptr + col_offsets, X_row + R_row, mask=mask)


@ensure_contiguous
def residual_add_wrong_(X, R):
    X = X.view(-1, X.shape[-1])
    R = R.view(-1, R.shape[-1])
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _residual_add_kernel_wrong[(n_rows,)](
        X, X.stride(0), R, R.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
    )


@triton.jit
def _layer_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    B_ptr,
    n_cols,
    eps,
    HAS_BIAS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    mean = tl.sum(X_row, axis=0) / n_cols
    X_centered = tl.where(mask, X_row - mean, 0.0)
    var = tl.sum(X_centered * X_centered, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    Y_row = X_centered * rstd * W_row
    if HAS_BIAS:
        B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0)
        Y_row = Y_row + B_row
    tl.store(Y_ptr + row_idx * Y_row_stride + col_offsets, Y_row, mask=mask)


def layer_norm_forward(X, W, B=None, eps=1e-5):
    """An optional bias: ``B_ptr`` is None and ``HAS_BIAS`` False when there is none."""
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    with torch.cuda.device(X.device):
        _layer_norm_forward_kernel[(n_rows,)](
            Y,
            Y.stride(0),
            X,
            X.stride(0),
            W,
            B,
            n_cols,
            eps,
            HAS_BIAS=B is not None,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return Y.view(*shape)


@triton.jit
def _geglu_forward_kernel(a_ptr, c_ptr, stride, out_stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    """The gate and the up projection side by side in one row of 2 * n_cols: c = gelu_tanh(a) * b."""
    program_id = tl.program_id(0).to(tl.int64)
    a_ptr += program_id * stride
    c_ptr += program_id * out_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(a_ptr + n_cols + col_offsets, mask=mask, other=0)
    c_row = a_row * tl.sigmoid(a_row) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


@ensure_contiguous
def gated_silu_forward(ab):
    n_cols = ab.shape[-1] // 2
    ab = ab.view(-1, 2 * n_cols)
    n_rows = ab.shape[0]
    c = torch.empty((n_rows, n_cols), dtype=ab.dtype, device=ab.device)
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _geglu_forward_kernel[(n_rows,)](
        ab, c, 2 * n_cols, c.stride(0), n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
    )
    return c


ROWS_PER_PROGRAM = 100


@triton.jit
def _row_scale_kernel(x_ptr, y_ptr, n_rows, n_cols, scale, ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    """Each program scales ROWS consecutive rows."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    for i in range(ROWS):
        row = pid * ROWS + i
        mask = (cols < n_cols) & (row < n_rows)
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * n_cols + cols, x * scale, mask=mask)


def row_scale(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE, _ = calculate_settings(n_cols)
    _row_scale_kernel[(triton.cdiv(n_rows, ROWS_PER_PROGRAM),)](
        x, y, n_rows, n_cols, 2.0, ROWS=ROWS_PER_PROGRAM, BLOCK_SIZE=BLOCK_SIZE
    )
    return y


def row_scale_transposed(x):
    """Scales the transpose, through an internal contiguous copy (x.t().contiguous()) and back."""
    xt = x.t().contiguous()
    n_rows, n_cols = xt.shape
    y = torch.empty_like(xt)
    BLOCK_SIZE, _ = calculate_settings(n_cols)
    _row_scale_kernel[(triton.cdiv(n_rows, ROWS_PER_PROGRAM),)](
        xt, y, n_rows, n_cols, 2.0, ROWS=ROWS_PER_PROGRAM, BLOCK_SIZE=BLOCK_SIZE
    )
    return y


@ensure_contiguous
def residual_add(X, R):
    """Out of place through the in-place kernel: a clone of X updated and returned."""
    Y = X.clone()
    Y2 = Y.view(-1, Y.shape[-1])
    R2 = R.view(-1, R.shape[-1])
    n_rows, n_cols = Y2.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _residual_add_kernel[(n_rows,)](
        Y2, Y2.stride(0), R2, R2.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
    )
    return Y


def row_scale_sum(x):
    """A loss-like launcher: the result is computed by PyTorch after the kernel."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE, _ = calculate_settings(n_cols)
    _row_scale_kernel[(triton.cdiv(n_rows, ROWS_PER_PROGRAM),)](
        x, y, n_rows, n_cols, 2.0, ROWS=ROWS_PER_PROGRAM, BLOCK_SIZE=BLOCK_SIZE
    )
    return y.sum()


def row_mean_scale(x):
    """Scales each row by 1 / n_cols (a float argument computed from the sizes)."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE, _ = calculate_settings(n_cols)
    _row_scale_kernel[(triton.cdiv(n_rows, ROWS_PER_PROGRAM),)](
        x, y, n_rows, n_cols, 1.0 / n_cols, ROWS=ROWS_PER_PROGRAM, BLOCK_SIZE=BLOCK_SIZE
    )
    return y
