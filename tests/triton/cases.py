"""The launches of every Triton example used by the agreement tests (sizes chosen so that masks matter:
lengths that are not multiples of the block, rows shorter than the block, padded strides)."""

from __future__ import annotations

from collections.abc import Mapping

import torch
from harness import Launch

G = torch.Generator
Args = Mapping[str, torch.Tensor | int | float]


def _t(a: Args, name: str) -> torch.Tensor:
    v = a[name]
    assert isinstance(v, torch.Tensor)
    return v


def _randn(g: G, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=g).to(dtype)


def _vector_add(n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, n), "y_ptr": _randn(g, n), "out_ptr": torch.zeros(n), "n_elements": n}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": _t(a, "x_ptr") + _t(a, "y_ptr")}

    return Launch("vector_add", "add_kernel", ((n + 63) // 64,), make, {"BLOCK": 64}, reference=ref)


def _softmax(rows: int, cols: int, programs: int, example: str = "softmax") -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        x = _randn(g, rows, cols + 3) * 4
        return {
            "out_ptr": torch.zeros(rows, cols),
            "in_ptr": x,
            "in_row_stride": cols + 3,
            "out_row_stride": cols,
            "n_rows": rows,
            "n_cols": cols,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": torch.softmax(_t(a, "in_ptr")[:, :cols].double(), dim=1)}

    return Launch(example, "softmax_kernel", (programs,), make, {"BLOCK": 64}, reference=ref)


def _layer_norm(rows: int, n: int, example: str = "layer_norm") -> Launch:
    stride = n + 5

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "X": _randn(g, rows, stride) * 3 + 1,
            "Y": torch.zeros(rows, stride),
            "W": _randn(g, n),
            "B": _randn(g, n),
            "Mean": torch.zeros(rows),
            "Rstd": torch.zeros(rows),
            "x_stride": stride,
            "y_stride": stride,
            "N": n,
            "eps": 1e-5,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x = _t(a, "X")[:, :n].double()
        y = torch.zeros(rows, stride, dtype=torch.float64)
        y[:, :n] = torch.nn.functional.layer_norm(x, (n,), _t(a, "W").double(), _t(a, "B").double(), eps=1e-5)
        var = x.var(dim=1, unbiased=False)
        return {"Y": y, "Mean": x.mean(dim=1), "Rstd": 1 / torch.sqrt(var + 1e-5)}

    return Launch(example, "layer_norm_fwd", (rows,), make, {"BLOCK": 32}, rtol=1e-4, atol=1e-5, reference=ref)


def _layer_norm_bwd(rows: int, n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "X": _randn(g, rows, n),
            "DY": _randn(g, rows, n),
            "W": _randn(g, n),
            "Mean": _randn(g, rows) * 0.1,
            "Rstd": torch.rand(rows, generator=g) + 0.5,
            "DX": torch.zeros(rows, n),
            "DW": torch.zeros(n),
            "DB": torch.zeros(n),
            "stride": n,
            "N": n,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x, dy, w = _t(a, "X").double(), _t(a, "DY").double(), _t(a, "W").double()
        xhat = (x - _t(a, "Mean").double()[:, None]) * _t(a, "Rstd").double()[:, None]
        wdy = w * dy
        c1 = (xhat * wdy).mean(dim=-1, keepdim=True)
        c2 = wdy.mean(dim=-1, keepdim=True)
        dx = (wdy - (xhat * c1 + c2)) * _t(a, "Rstd").double()[:, None]
        return {"DX": dx, "DW": (dy * xhat).sum(dim=0), "DB": dy.sum(dim=0)}

    consts = {"BLOCK": 128}
    return Launch("layer_norm_bwd", "layer_norm_bwd", (rows,), make, consts, rtol=1e-4, atol=1e-4, reference=ref)


def _rms_norm(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "x_ptr": _randn(g, rows, cols + 8, dtype=torch.float16),
            "w_ptr": _randn(g, cols, dtype=torch.float16),
            "y_ptr": torch.zeros(rows, cols, dtype=torch.float16),
            "x_stride": cols + 8,
            "y_stride": cols,
            "n_cols": cols,
            "eps": 1e-6,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x = _t(a, "x_ptr")[:, :cols].double()
        y = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-6) * _t(a, "w_ptr").double()
        return {"y_ptr": y}

    return Launch("rms_norm", "rms_norm_kernel", (rows,), make, {"BLOCK": 128}, rtol=1e-3, atol=1e-3, reference=ref)


def _swiglu(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, rows, 2 * cols), "out_ptr": torch.zeros(rows, cols), "n_cols": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x = _t(a, "x_ptr").double()
        return {"out_ptr": torch.nn.functional.silu(x[:, :cols]) * x[:, cols:]}

    return Launch("swiglu", "swiglu_kernel", (rows, (cols + 31) // 32), make, {"BLOCK": 32}, reference=ref)


def _geglu(n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"a_ptr": _randn(g, n) * 2, "b_ptr": _randn(g, n), "out_ptr": torch.zeros(n), "n": n}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": torch.nn.functional.gelu(_t(a, "a_ptr").double()) * _t(a, "b_ptr").double()}

    return Launch("geglu", "geglu_kernel", ((n + 127) // 128,), make, {"BLOCK": 128}, reference=ref)


def _rotary(tokens: int, heads: int, half: int) -> Launch:
    d = 2 * half

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        ang = torch.rand(tokens, half, generator=g) * 6.28
        return {
            "q_ptr": _randn(g, tokens, heads, d),
            "cos_ptr": torch.cos(ang),
            "sin_ptr": torch.sin(ang),
            "out_ptr": torch.zeros(tokens, heads, d),
            "stride_tok": heads * d,
            "stride_head": d,
            "n_heads": heads,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        q = _t(a, "q_ptr").double()
        c = _t(a, "cos_ptr").double()[:, None, :]
        s = _t(a, "sin_ptr").double()[:, None, :]
        x1, x2 = q[..., :half], q[..., half:]
        return {"out_ptr": torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)}

    return Launch("rotary", "rotary_kernel", (tokens,), make, {"HALF": half, "HEADS": 8}, reference=ref)


def _cross_entropy(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "logits_ptr": _randn(g, rows, cols) * 3,
            "target_ptr": torch.randint(0, cols, (rows,), generator=g),
            "loss_ptr": torch.zeros(rows),
            "stride": cols,
            "n_cols": cols,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        loss = torch.nn.functional.cross_entropy(_t(a, "logits_ptr").double(), _t(a, "target_ptr"), reduction="none")
        return {"loss_ptr": loss}

    consts = {"BLOCK": 64}
    return Launch("cross_entropy", "cross_entropy_fwd", (rows,), make, consts, rtol=1e-5, atol=1e-5, reference=ref)


def _matmul(m: int, n: int, k: int) -> Launch:
    bm, bn, bk = 32, 32, 16

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        a = _randn(g, m, k, dtype=torch.float16)
        b = _randn(g, k, n, dtype=torch.float16)
        return {
            "a_ptr": a,
            "b_ptr": b,
            "c_ptr": torch.zeros(m, n, dtype=torch.float16),
            "M": m,
            "N": n,
            "K": k,
            "stride_am": k,
            "stride_ak": 1,
            "stride_bk": n,
            "stride_bn": 1,
            "stride_cm": n,
            "stride_cn": 1,
        }

    grid = (((m + bm - 1) // bm) * ((n + bn - 1) // bn),)
    consts = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 2}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"c_ptr": _t(a, "a_ptr").double() @ _t(a, "b_ptr").double()}

    return Launch("matmul", "matmul_kernel", grid, make, consts, rtol=2e-3, atol=2e-2, reference=ref)


def _matmul_descriptor(m: int, n: int, k: int) -> Launch:
    bm, bn, bk = 32, 32, 16

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "a_ptr": _randn(g, m, k, dtype=torch.float16),
            "b_ptr": _randn(g, k, n, dtype=torch.float16),
            "c_ptr": torch.zeros(m, n),
            "M": m,
            "N": n,
            "K": k,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"c_ptr": _t(a, "a_ptr").double() @ _t(a, "b_ptr").double()}

    grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
    consts = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}
    return Launch("matmul_descriptor", "matmul_desc_kernel", grid, make, consts, rtol=1e-4, atol=1e-4, reference=ref)


def _row_sum_atomic(n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, n), "out_ptr": torch.zeros(1), "n": n}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": _t(a, "x_ptr").double().sum().reshape(1)}

    grid = ((n + 127) // 128,)
    return Launch("row_sum_atomic", "total_sum_kernel", grid, make, {"BLOCK": 128}, rtol=1e-4, atol=1e-4, reference=ref)


def _row_bias(rows: int, cols: int, example: str = "row_bias_overflow_free") -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        x, b = _randn(g, rows, cols), _randn(g, cols)
        return {"x_ptr": x, "b_ptr": b, "out_ptr": torch.zeros(rows, cols), "n_cols": cols, "stride": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": _t(a, "x_ptr").double() + _t(a, "b_ptr").double()}

    return Launch(example, "row_bias_kernel", (rows,), make, {"BLOCK": 32}, reference=ref)


def _row_sum_autotune(rows: int, cols: int, block_n: int) -> Launch:
    """One @triton.autotune configuration of row_sum_autotune, its heuristic evaluated as Triton does."""

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, rows, cols), "out_ptr": torch.zeros(rows), "stride": cols, "n_cols": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": _t(a, "x_ptr").double().sum(dim=1)}

    constexprs = {"BLOCK_N": block_n, "EVEN_N": cols % block_n == 0}
    return Launch("row_sum_autotune", "row_sum_kernel", (rows,), make, constexprs, rtol=1e-5, atol=1e-5, reference=ref)


def _locked_col_sum(rows: int, cols: int) -> Launch:
    block = 1 << (cols - 1).bit_length()

    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {
            "x_ptr": _randn(g, rows, cols),
            "out_ptr": torch.zeros(cols),
            "lock_ptr": torch.zeros(1, dtype=torch.int32),
            "count_ptr": torch.zeros(1, dtype=torch.int32),
            "n_rows": rows,
            "n_cols": cols,
        }

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": _t(a, "x_ptr").double().sum(dim=0).float()}

    grid = ((rows + 3) // 4,)
    consts = {"ROWS": 4, "BLOCK": block}
    return Launch("locked_col_sum", "locked_col_sum_kernel", grid, make, consts, rtol=1e-4, atol=1e-4, reference=ref)


def _argmax(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        x = torch.randint(-5, 5, (rows, cols), generator=g).float()  # ties: the first index wins
        return {"x_ptr": x, "out_ptr": torch.zeros(rows, dtype=torch.int32), "stride": cols, "n_cols": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x = _t(a, "x_ptr")
        first = torch.tensor([int((row == row.max()).nonzero()[0]) for row in x], dtype=torch.int32)
        return {"out_ptr": first}

    return Launch("argmax", "row_argmax_kernel", (rows,), make, {"BLOCK": 64}, reference=ref)


def _cumsum(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, rows, cols), "out_ptr": torch.zeros(rows, cols), "stride": cols, "n_cols": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"out_ptr": torch.cumsum(_t(a, "x_ptr").double(), dim=1)}

    return Launch("cumsum", "row_cumsum_kernel", (rows,), make, {"BLOCK": 64}, rtol=1e-5, atol=1e-5, reference=ref)


def _linear_scan(rows: int, n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        a = torch.rand(rows, n, generator=g) * 1.5 - 0.5
        return {"a_ptr": a, "b_ptr": _randn(g, rows, n), "h_ptr": torch.zeros(rows, n), "stride": n, "seq_len": n}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x, b = _t(a, "a_ptr").double(), _t(a, "b_ptr").double()
        h = torch.zeros_like(b)
        state = torch.zeros(rows, dtype=torch.float64)
        for t in range(n):
            state = x[:, t] * state + b[:, t]
            h[:, t] = state
        return {"h_ptr": h}

    consts = {"BLOCK": 32}
    return Launch("linear_scan", "linear_scan_kernel", (rows,), make, consts, rtol=1e-5, atol=1e-5, reference=ref)


def _welford(rows: int, cols: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        x = _randn(g, rows, cols) * 2 + 3
        return {"x_ptr": x, "mean_ptr": torch.zeros(rows), "var_ptr": torch.zeros(rows), "stride": cols, "n_cols": cols}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        x = _t(a, "x_ptr").double()
        return {"mean_ptr": x.mean(dim=1), "var_ptr": x.var(dim=1, unbiased=False)}

    return Launch("welford", "welford_kernel", (rows,), make, {"BLOCK": 64}, rtol=1e-5, atol=1e-5, reference=ref)


def _transpose(m: int, n: int) -> Launch:
    def make(g: G) -> dict[str, torch.Tensor | int | float]:
        return {"x_ptr": _randn(g, m, n), "y_ptr": torch.zeros(n, m), "M": m, "N": n, "stride_xm": n, "stride_ym": m}

    def ref(a: Args) -> dict[str, torch.Tensor]:
        return {"y_ptr": _t(a, "x_ptr").t()}

    grid = ((m + 15) // 16, (n + 7) // 8)
    return Launch("transpose", "transpose_kernel", grid, make, {"BLOCK_M": 16, "BLOCK_N": 8}, reference=ref)


#: (launch, buffers compared) per case id.
CASES: dict[str, tuple[Launch, tuple[str, ...]]] = {
    "vector_add-1000": (_vector_add(1000), ("out_ptr",)),
    "vector_add-64": (_vector_add(64), ("out_ptr",)),
    "softmax-7x50": (_softmax(7, 50, 3), ("out_ptr",)),
    "softmax-4x64": (_softmax(4, 64, 4), ("out_ptr",)),
    "layer_norm-3x70": (_layer_norm(3, 70), ("Y", "Mean", "Rstd")),
    "layer_norm_bwd-4x100": (_layer_norm_bwd(4, 100), ("DX", "DW", "DB")),
    "rms_norm-5x100": (_rms_norm(5, 100), ("y_ptr",)),
    "swiglu-3x70": (_swiglu(3, 70), ("out_ptr",)),
    "geglu-300": (_geglu(300), ("out_ptr",)),
    "rotary-3x5x8": (_rotary(3, 5, 8), ("out_ptr",)),
    "cross_entropy-4x150": (_cross_entropy(4, 150), ("loss_ptr",)),
    "matmul-40x48x40": (_matmul(40, 48, 40), ("c_ptr",)),
    "matmul_descriptor-40x56x40": (_matmul_descriptor(40, 56, 40), ("c_ptr",)),
    "row_sum_atomic-1000": (_row_sum_atomic(1000), ("out_ptr",)),
    "locked_col_sum-10x20": (_locked_col_sum(10, 20), ("out_ptr",)),
    "argmax-6x50": (_argmax(6, 50), ("out_ptr",)),
    "cumsum-4x50": (_cumsum(4, 50), ("out_ptr",)),
    "linear_scan-3x20": (_linear_scan(3, 20), ("h_ptr",)),
    "welford-5x50": (_welford(5, 50), ("mean_ptr", "var_ptr")),
    "transpose-20x13": (_transpose(20, 13), ("y_ptr",)),
    "row_bias_overflow_free-5x70": (_row_bias(5, 70), ("out_ptr",)),
    **{f"row_sum_autotune-4x48-BLOCK_N{b}": (_row_sum_autotune(4, 48, b), ("out_ptr",)) for b in (16, 32, 64)},
    # the int32 offset wraps only once rows * stride >= 2^31 (larkc verify refutes it): equal here
    "row_bias_bug_offset_overflow-5x70": (_row_bias(5, 70, "row_bias_bug_offset_overflow"), ("out_ptr",)),
}

#: Seeded bugs whose outputs differ from the reference (Triton's interpreter computes the same wrong
#: values, so they are in the agreement test too).
WRONG: dict[str, tuple[Launch, tuple[str, ...]]] = {
    "softmax_bug_other_zero-7x50": (_softmax(7, 50, 7, "softmax_bug_other_zero"), ("out_ptr",)),
    "layer_norm_bug_wrong_stride-3x70": (_layer_norm(3, 70, "layer_norm_bug_wrong_stride"), ("Y", "Mean", "Rstd")),
}
