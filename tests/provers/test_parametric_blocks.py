"""The parametric prover on block-level (Triton) kernels, written in the IR: element indices through
arange, splat, broadcast, reshape and permute; masks of loads and stores; races between programs;
int32 offset overflow; what stays UNKNOWN; the specialisation a Triton module stands for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from larkc.ir import parse_module
from larkc.provers import Budget, Obligation, ObligationKind, ObligationResult, Status
from larkc.provers.parametric import prove_parametric
from larkc.tasks import Task

BOUNDS, RACE, OVERFLOW = ObligationKind.BOUNDS, ObligationKind.RACE, ObligationKind.OVERFLOW
KINDS = (BOUNDS, RACE, ObligationKind.BARRIER, OVERFLOW)
BUDGET = Budget(seconds=60, solver_rlimit=20_000_000)


def prove(tmp_path: Path, ir: str, **task: Any) -> dict[ObligationKind, ObligationResult]:
    module = parse_module(ir)
    t = Task(source=tmp_path / "k.py", kernel="k", block=[1], **task)
    results = prove_parametric(module, "k", t, [Obligation(k) for k in KINDS], BUDGET)
    return {r.obligation.kind: r for r in results}


# One program per tile of 64 elements: offs = pid * 64 + arange(64), masked by offs < n.
VECTOR = """kernel @k(%x: ptr<global f32>, %y: ptr<global f32>, %n: i32) level block {
  let %pid: i32 = blockIdx.x;
  let %offs: block<64 x i32> = (splat<64>((%pid * 64:i32)) + arange<0, 64>());
  let %v: block<64 x f32>;
  %v = load [ptradd(splat<64>(%x), %offs)], mask (%offs < splat<64>(%n));
  store [ptradd(splat<64>(%y), %offs)], %v%s;
}
"""
VECTOR_TASK: dict[str, Any] = {
    "inputs": {"x": "f32[n]"},
    "outputs": {"y": "f32[n]"},
    "symbols": ["n"],
    "constraints": ["n <= 16777216"],
    "grid": ["cdiv(n, 64)"],
    "instances": [{"n": 100}],
}


def test_masked_tiles_are_proved_for_all_sizes(tmp_path: Path) -> None:
    res = prove(tmp_path, VECTOR.replace("%s", ", mask (%offs < splat<64>(%n))"), **VECTOR_TASK)
    for kind in KINDS:
        assert res[kind].status is Status.PROVED, res[kind].detail
    assert "for all sizes" in res[BOUNDS].detail


def test_a_missing_mask_is_refuted_with_the_program_and_the_element(tmp_path: Path) -> None:
    res = prove(tmp_path, VECTOR.replace("%s", ""), **VECTOR_TASK)
    r = res[BOUNDS]
    assert r.status is Status.REFUTED
    assert r.counterexample is not None
    assert "program (" in r.counterexample.message and "element index 0 = " in r.counterexample.message
    assert res[RACE].status is Status.PROVED  # the tiles of two programs never overlap


def test_every_program_writing_one_tile_is_a_race(tmp_path: Path) -> None:
    ir = VECTOR.replace("(splat<64>((%pid * 64:i32)) + arange<0, 64>())", "arange<0, 64>()").replace("%s", "")
    res = prove(tmp_path, ir, **{**VECTOR_TASK, "constraints": ["n <= 64"], "grid": [2], "instances": [{"n": 64}]})
    assert res[BOUNDS].status is Status.REFUTED  # n < 64: the unmasked store runs past the end
    assert res[RACE].status is Status.REFUTED
    assert res[RACE].counterexample is not None and "programs never synchronise" in res[RACE].counterexample.message


# A tile of rows x columns: offsets row * stride + col through reshape (expand_dims) and broadcast.
TILE = """kernel @k(%x: ptr<global f32>, %m: i32, %n: i32) level block {
  let %rows: block<8 x i32> = (splat<8>((blockIdx.x * 8:i32)) + arange<0, 8>());
  let %cols: block<16 x i32> = (splat<16>((blockIdx.y * 16:i32)) + arange<0, 16>());
  let %offs: block<8x16 x i32> = (broadcast<8x16>((reshape<8x1>(%rows) * splat<8x1>(%n)))
    + broadcast<8x16>(reshape<1x16>(%cols)));
  let %mask: block<8x16 x bool> = (broadcast<8x16>((reshape<8x1>(%rows) < splat<8x1>(%m)))
    & broadcast<8x16>((reshape<1x16>(%cols) < splat<1x16>(%COLBOUND))));
  store [ptradd(splat<8x16>(%x), %offs)], splat<8x16>(0.0:f32), mask %mask;
}
"""
TILE_TASK: dict[str, Any] = {
    "outputs": {"x": "f32[m, n]"},
    "symbols": ["m", "n"],
    "constraints": ["m <= 4096", "n <= 4096"],
    "grid": ["cdiv(m, 8)", "cdiv(n, 16)"],
    "instances": [{"m": 10, "n": 20}],
}


def test_two_dimensional_tiles_are_proved_and_a_wrong_column_mask_refuted(tmp_path: Path) -> None:
    good = prove(tmp_path, TILE.replace("%COLBOUND", "%n"), **TILE_TASK)
    assert good[BOUNDS].status is Status.PROVED, good[BOUNDS].detail
    assert good[RACE].status is Status.PROVED, good[RACE].detail
    assert good[OVERFLOW].status is Status.PROVED, good[OVERFLOW].detail
    bad = prove(tmp_path, TILE.replace("%COLBOUND", "%m"), **TILE_TASK)  # columns masked by the row count
    assert bad[BOUNDS].status is Status.REFUTED
    assert bad[RACE].status is Status.REFUTED  # a row's spill-over is the next row's start


def test_permute_exchanges_the_element_indices(tmp_path: Path) -> None:
    # the transpose of a 16 x 8 tile of column offsets is the 8 x 16 tile of TILE
    ir = TILE.replace(
        "broadcast<8x16>(reshape<1x16>(%cols))", "permute<1x0>(broadcast<16x8>(reshape<16x1>(%cols)))"
    ).replace("%COLBOUND", "%n")
    res = prove(tmp_path, ir, **TILE_TASK)
    assert res[BOUNDS].status is Status.PROVED, res[BOUNDS].detail
    assert res[RACE].status is Status.PROVED, res[RACE].detail


ROWS = """kernel @k(%x: ptr<global f32>, %stride: i32, %d: i32) level block {
  let %row: %ROW = %ROWEXPR;
  let %cols: block<32 x i32> = arange<0, 32>();
  let %p: ptr<global f32> = ptradd(%x, (%row * %STRIDE));
  store [ptradd(splat<32>(%p), %cols)], splat<32>(0.0:f32), mask (%cols < splat<32>(%d));
}
"""
ROWS_TASK: dict[str, Any] = {
    "outputs": {"x": "f32[r, d]"},
    "bindings": {"stride": "d"},
    "symbols": ["r", "d"],
    "constraints": ["d <= 32"],
    "grid": ["r"],
    "instances": [{"r": 3, "d": 20}],
}


def test_an_int32_row_offset_overflows_at_large_shapes_and_int64_does_not(tmp_path: Path) -> None:
    bug = ROWS.replace("%ROWEXPR", "blockIdx.x").replace("%ROW", "i32").replace("%STRIDE", "%stride")
    res = prove(tmp_path, bug, **ROWS_TASK)
    r = res[OVERFLOW]
    assert r.status is Status.REFUTED
    assert r.counterexample is not None and "overflows i32" in r.counterexample.message
    assert r.counterexample.instance is not None
    rows, d = r.counterexample.instance["r"], r.counterexample.instance["d"]
    assert (rows - 1) * d >= 2**31  # a real witness: the last row's offset
    fixed = ROWS.replace("%ROWEXPR", "convert<i64>(blockIdx.x)").replace("%ROW", "i64")
    fixed = fixed.replace("%STRIDE", "convert<i64>(%stride)")
    res = prove(tmp_path, fixed, **ROWS_TASK)
    for kind in KINDS:
        assert res[kind].status is Status.PROVED, res[kind].detail


def test_an_address_from_a_reduction_is_unknown_never_proved(tmp_path: Path) -> None:
    ir = """kernel @k(%x: ptr<global i32>, %y: ptr<global f32>) level block {
  let %v: block<16 x i32>;
  %v = load [ptradd(splat<16>(%x), arange<0, 16>())];
  store [ptradd(%y, reduce.max<0>(%v))], 0.0:f32;
}
"""
    res = prove(tmp_path, ir, inputs={"x": "i32[16]"}, outputs={"y": "f32[16]"}, grid=[1])
    assert res[BOUNDS].status is Status.UNKNOWN, res[BOUNDS].detail


def test_an_integer_sum_reduction_leaves_overflow_unknown(tmp_path: Path) -> None:
    ir = """kernel @k(%x: ptr<global i32>, %y: ptr<global i32>) level block {
  let %v: block<16 x i32>;
  %v = load [ptradd(splat<16>(%x), arange<0, 16>())];
  store [%y], reduce.sum<0>(%v);
}
"""
    res = prove(tmp_path, ir, inputs={"x": "i32[16]"}, outputs={"y": "i32[1]"}, grid=[1])
    assert res[OVERFLOW].status is Status.UNKNOWN
    assert "sum reduction" in res[OVERFLOW].detail
    assert res[BOUNDS].status is Status.PROVED


def test_a_size_dependent_constexpr_narrows_the_scope_to_its_specialisation(tmp_path: Path) -> None:
    # BLOCK = next_pow2(d) was 32 when this module was lowered (instance d = 20)
    ir = ROWS.replace("%ROWEXPR", "convert<i64>(blockIdx.x)").replace("%ROW", "i64")
    ir = ir.replace("%STRIDE", "convert<i64>(%stride)")
    task = {
        **ROWS_TASK,
        "bindings": {"stride": "d", "BLOCK": "next_pow2(d)"},
        "constraints": [],  # d up to 2^34 (max_tensor_bytes): beyond int32
        "instances": [{"r": 3, "d": 20}],
    }
    res = prove(tmp_path, ir, **task)
    r = res[BOUNDS]
    assert r.status is Status.PROVED, r.detail
    assert "next_pow2(d) = 32 (constexpr BLOCK of this specialisation)" in r.scope.constraints
    # an i32 size argument: larger sizes are another specialisation, not an overflow of this one
    assert any("(Triton passes stride as i32 at these sizes)" in c for c in res[OVERFLOW].scope.constraints)


def test_heuristic_constexprs_never_refute(tmp_path: Path) -> None:
    # the IR is one specialisation of a kernel whose EVEN constexpr @triton.heuristics computes from the
    # sizes: an unmasked tile is wrong only where Triton would run the other specialisation
    (tmp_path / "k.py").write_text(
        "import triton\n\n\n@triton.heuristics({'EVEN': lambda a: a['n'] % 64 == 0})\n@triton.jit\n"
        "def k(x, y, n, EVEN: tl.constexpr):\n    pass\n"
    )
    res = prove(tmp_path, VECTOR.replace("%s", ""), **VECTOR_TASK)
    r = res[BOUNDS]
    assert r.status is Status.UNKNOWN, r.detail
    assert "@triton.heuristics" in r.detail
    assert any("@triton.heuristics constexprs as at n=100" in c for c in r.scope.constraints)
    assert res[RACE].status is Status.PROVED  # proofs hold for every size of this specialisation
