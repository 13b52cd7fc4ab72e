"""The CUDA frontend's constants, folded with C's arithmetic and literals (``larkc.ir.cnumbers``):
each kernel reads its constants into a buffer, and the simulated values are C's."""

from __future__ import annotations

from pathlib import Path

from cuda_harness import Cuda

CONSTANTS = """
constexpr int kOctal = -010;                   // a signed octal literal: -8
constexpr int kQuot = -7 / 2;                  // truncates toward zero: -3
constexpr int kRem = -7 % 2;                   // the dividend's sign: -1
constexpr unsigned long long kTop = 1ull << 63;
constexpr int kHigh = (int)(kTop >> 62);       // 2
constexpr long long kHex = 0x1p4 + 0x10;       // 32
constexpr int kRows = kOctal == -8 && kQuot == -3 && kRem == -1 ? 4 : 1;

__global__ void read_constants(long long* out) {
    __shared__ long long seen[kRows];          // (an array size needs every constant folded)
    if (threadIdx.x < kRows) {
        seen[threadIdx.x] = threadIdx.x == 0 ? kOctal : threadIdx.x == 1 ? kQuot : threadIdx.x == 2 ? kRem : kHigh;
    }
    __syncthreads();
    out[threadIdx.x] = threadIdx.x < kRows ? seen[threadIdx.x] : kHex;
}
"""


def test_constants_are_folded_as_c_folds_them(tmp_path: Path) -> None:
    """``-010`` was folded as -10 (the sign was read with the digits, as decimal), so the array had one
    row and the kernel read past it."""
    result = Cuda(tmp_path).run(CONSTANTS, "read_constants", block=8, buffers={"out": ("i64", 8)})
    assert result.buffers["out"].tolist() == [-8, -3, -1, 2, 32, 32, 32, 32]


def test_a_shift_by_a_negative_count_is_no_constant(tmp_path: Path) -> None:
    """``1 << -1`` is undefined in C: no constant, a located error where one is needed (it was Python's
    ``ValueError: negative shift count``, an internal error)."""
    source = """
constexpr int kBad = 1 << -1;
__global__ void k(int* out) {
    __shared__ int buf[kBad];
    buf[0] = 1;
    out[0] = buf[0];
}
"""
    assert Cuda(tmp_path).error(source) == "4:24: error: unsupported array size that is not a positive constant: kBad"


def test_a_shift_past_the_width_is_no_constant(tmp_path: Path) -> None:
    source = """
constexpr unsigned long long kBad = 1ull << 64;
__global__ void k(int* out) {
    __shared__ int buf[kBad == 0 ? 1 : 2];
    out[0] = sizeof(buf);
}
"""
    assert Cuda(tmp_path).error(source).startswith("4:24: error: unsupported array size")


def test_integer_literals_in_code(tmp_path: Path) -> None:
    source = """
__global__ void k(unsigned long long* out) {
    out[0] = 010;
    out[1] = 0b1010;
    out[2] = 0x80000000 >> 31;       // unsigned int
    out[3] = -1u;                    // 4294967295u
    out[4] = 18446744073709551615ull;
    out[5] = (unsigned long long)(-010 / 3);
}
"""
    result = Cuda(tmp_path).run(source, "k", block=1, buffers={"out": ("u64", 6)})
    got = [x % 2**64 for x in result.buffers["out"].tolist()]
    assert got == [8, 10, 1, 4294967295, 2**64 - 1, 2**64 - 2]


def test_character_literals_with_escapes_are_their_values(tmp_path: Path) -> None:
    """Only a one-character body was read (``'\\n'`` was an unsupported character literal); escapes are
    decoded as the preprocessor's ``#if`` decodes them, and a plain char is signed."""
    source = r"""
__global__ void chars(int* out) {
    const int table[6] = {'a', '\n', '\0', '\x7f', '\377', '\\'};
    out[threadIdx.x] = table[threadIdx.x];
}
"""
    result = Cuda(tmp_path).run(source, "chars", block=6, buffers={"out": ("i32", 6)})
    assert result.buffers["out"].tolist() == [97, 10, 0, 127, -1, 92]


def test_a_character_literal_with_a_bad_escape_is_unsupported(tmp_path: Path) -> None:
    source = r"""
__global__ void chars(int* out) {
    out[0] = '\q';
}
"""
    assert "unsupported character literal" in Cuda(tmp_path).error(source)
