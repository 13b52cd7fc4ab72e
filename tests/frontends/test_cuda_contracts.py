"""GPUVerify's contracts in CUDA (``lowering/contracts.py``): ``__requires``, ``__ensures`` and the functions
used in them, on snippets shaped like GPUVerify's test suite (larkc's own code)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from cuda_harness import Cuda

from larkc.errors import PreconditionError
from larkc.ir import print_module
from larkc.ir.nodes import Assert, Assume, Return
from larkc.ir.walk import walk_stmts


@pytest.fixture
def cuda(tmp_path: Path) -> Cuda:
    return Cuda(tmp_path)


# -- __requires --------------------------------------------------------------------------------------------

OFFSET_COPY = """
__global__ void offset_copy(int* A, const int* B, int offset) {
    __requires(offset >= 0);
    __requires(__implies(__enabled(), offset < 32));
    A[threadIdx.x] = B[(threadIdx.x + offset) % 32];
}
"""


def test_a_kernel_precondition_is_an_assume_statement(cuda: Cuda) -> None:
    text = print_module(cuda.lower(OFFSET_COPY))
    assert "assume (%offset >= 0:i32);" in text
    assert "assume (!(true) || (%offset < 32:i32));" in text  # __implies(a, b) is !a || b; __enabled() is true


def test_a_kernel_run_on_inputs_satisfying_its_precondition_runs(cuda: Cuda) -> None:
    b = torch.arange(32, dtype=torch.int32)
    r = cuda.run(OFFSET_COPY, "offset_copy", buffers={"A": ("i32", 32), "B": b}, scalars={"offset": 5})
    assert r.ok, r.diagnoses
    assert r.buffers["A"].tolist() == [(i + 5) % 32 for i in range(32)]


@pytest.mark.parametrize(("offset", "line"), [(-1, 3), (32, 4)])
def test_inputs_violating_a_precondition_are_bad_input_located_at_it(cuda: Cuda, offset: int, line: int) -> None:
    with pytest.raises(PreconditionError) as info:
        cuda.run(OFFSET_COPY, "offset_copy", buffers={"A": ("i32", 32), "B": ("i32", 32)}, scalars={"offset": offset})
    e = info.value
    assert e.span is not None and (e.span.line, e.span.col) == (line, 5)
    assert "violate this precondition of the kernel (false in block (0,0,0) thread (0,0,0))" in e.message
    assert "__requires" in e.render()  # the caret line quotes it


CONTRACT = """
__device__ void bar(int* out) {
    __requires(threadIdx.x == 3);
    out[0] = 1;
}

__global__ void foo(int* out) {
    if (threadIdx.x == GUARD) {
        bar(out);
    }
}
"""


def test_a_device_function_precondition_is_asserted_at_its_entry(cuda: Cuda) -> None:
    module = cuda.lower(CONTRACT.replace("GUARD", "3"))
    bar = module.function("bar")
    assert bar is not None and isinstance(bar.body[0], Assert)  # the caller must establish it
    r = cuda.run(CONTRACT.replace("GUARD", "3"), "foo", buffers={"out": ("i32", 1)})
    assert r.ok, r.diagnoses


def test_a_call_that_does_not_establish_the_callee_precondition_is_an_assert_failure(cuda: Cuda) -> None:
    r = cuda.run(CONTRACT.replace("GUARD", "threadIdx.x"), "foo", buffers={"out": ("i32", 1)})
    assert not r.ok
    assert {d.kind.value for d in r.diagnoses} == {"assert"}
    assert all(d.span is not None and d.span.line == 3 for d in r.diagnoses)


# -- __ensures ---------------------------------------------------------------------------------------------

CLAMP = """
__device__ int clamp_index(int i, int n) {
    __requires(n > 0);
    __ensures(__return_val_int() >= 0);
    __ensures(__return_val_int() < n);
    if (i < 0) {
        return 0;
    }
    if (i >= n) {
        return LAST;
    }
    return i;
}

__global__ void gather(int* out, const int* x, int n) {
    out[threadIdx.x] = x[clamp_index((int)threadIdx.x - 4, n)];
}
"""


def test_postconditions_are_asserted_before_every_return(cuda: Cuda) -> None:
    f = cuda.lower(CLAMP.replace("LAST", "n - 1")).function("clamp_index")
    assert f is not None
    stmts = list(walk_stmts(f.body))
    returns = [k for k, s in enumerate(stmts) if isinstance(s, Return)]
    assert len(returns) == 3
    for k in returns:  # each return is preceded by the two postconditions, reading the value it returns
        assert isinstance(stmts[k - 1], Assert) and isinstance(stmts[k - 2], Assert)
        assert {s.span.line for s in stmts[k - 2 : k]} == {4, 5}
    assert sum(isinstance(s, Assume) for s in stmts) == 0


def test_a_function_meeting_its_postcondition_runs(cuda: Cuda) -> None:
    x = torch.arange(8, dtype=torch.int32) * 10
    r = cuda.run(
        CLAMP.replace("LAST", "n - 1"), "gather", block=16, buffers={"out": ("i32", 16), "x": x}, scalars={"n": 8}
    )
    assert r.ok, r.diagnoses
    assert r.buffers["out"].tolist() == [int(x[min(max(i - 4, 0), 7)]) for i in range(16)]


def test_a_postcondition_that_fails_is_an_assert_diagnosis_at_the_ensures(cuda: Cuda) -> None:
    x = torch.arange(8, dtype=torch.int32)
    r = cuda.run(CLAMP.replace("LAST", "n"), "gather", block=16, buffers={"out": ("i32", 16), "x": x}, scalars={"n": 8})
    assert not r.ok
    asserts = [d for d in r.diagnoses if d.kind.value == "assert"]
    assert asserts and all(d.span is not None and d.span.line == 5 for d in asserts)  # `< n` fails for i >= n


VOID_ENSURES = """
__device__ void set_flag(int* flag, int v) {
    __ensures(v != 0);
    if (v < 0) {
        return;
    }
    flag[0] = v;
}

__global__ void k(int* flag, int v) {
    set_flag(flag, v);
}
"""


def test_a_void_function_checks_its_postcondition_at_each_return_and_at_its_end(cuda: Cuda) -> None:
    f = cuda.lower(VOID_ENSURES).function("set_flag")
    assert f is not None
    assert sum(isinstance(s, Assert) for s in walk_stmts(f.body)) == 2
    assert isinstance(f.body[-1], Assert)
    assert cuda.run(VOID_ENSURES, "k", block=1, buffers={"flag": ("i32", 1)}, scalars={"v": -2}).ok
    r = cuda.run(VOID_ENSURES, "k", block=1, buffers={"flag": ("i32", 1)}, scalars={"v": 0})
    assert [d.kind.value for d in r.diagnoses] == ["assert"]


def test_implies_reads_memory_only_when_its_antecedent_holds(cuda: Cuda) -> None:
    src = """
__global__ void k(int* a, const int* b, int n) {
    __requires(__implies(n > 0, b[0] > 0));
    if (n > 0) a[0] = b[0];
}
"""
    # with n = 0 the buffer b is empty: reading b[0] would be out of bounds
    r = cuda.run(src, "k", block=1, buffers={"a": ("i32", 1), "b": ("i32", 0)}, scalars={"n": 0})
    assert r.ok, r.diagnoses
    with pytest.raises(PreconditionError):
        cuda.run(src, "k", block=1, buffers={"a": ("i32", 1), "b": torch.zeros(1, dtype=torch.int32)}, scalars={"n": 1})


# -- loop invariants in the loop's condition (GPUVerify's usual form) --------------------------------------

DOUBLING = """
__global__ void doubling(int* out, int limit) {
    int d = 1;
    while (__invariant(d == 1 | d == 2 | d == 4 | d == 8 | d == 16 | d == 32 | d == 64), d < limit) {
        d <<= 1;
    }
    out[threadIdx.x] = d;
}
"""


def test_an_invariant_in_a_loop_condition_is_checked_at_every_evaluation_of_it(cuda: Cuda) -> None:
    text = print_module(cuda.lower(DOUBLING))
    assert text.count("assert ") == 1 and "for (;;) {\n    assert " in text  # before the exit test
    r = cuda.run(DOUBLING, "doubling", block=2, buffers={"out": ("i32", 2)}, scalars={"limit": 64})
    assert r.ok and r.buffers["out"].tolist() == [64, 64]
    # limit 100: d = 128 fails the invariant at the condition evaluation that would leave the loop
    r = cuda.run(DOUBLING, "doubling", block=2, buffers={"out": ("i32", 2)}, scalars={"limit": 100})
    assert {d.kind.value for d in r.diagnoses} == {"assert"}
    assert all(d.span is not None and d.span.line == 4 for d in r.diagnoses)


def test_invariants_in_for_and_do_while_conditions(cuda: Cuda) -> None:
    src = """
__global__ void k(int* a, int x) {
    for (int i = 0; __invariant(i >= 0), __invariant(i <= x), i < x; i++) {
        a[i] = 1;
    }
    int d = 3;
    do {
        d--;
    } while (__invariant(d >= 0), d > 0);
}
"""
    assert print_module(cuda.lower(src)).count("assert ") == 3
    assert cuda.run(src, "k", block=1, buffers={"a": ("i32", 4)}, scalars={"x": 4}).ok


# -- __requires_fresh_array -------------------------------------------------------------------------------


def test_a_fresh_array_precondition_adds_nothing_to_the_no_aliasing_model(cuda: Cuda) -> None:
    """GPUVerify's fresh_arrays tests: the pointer aliases no other buffer, which every verdict already
    assumes of the task's distinct tensors (a listed model assumption)."""
    src = """
struct s {
    float* p;
};

__global__ void foo(s q, float* r) {
    __requires_fresh_array(q.p);
    __requires_fresh_array(r);
    q.p[threadIdx.x] = r[threadIdx.x];
}
"""
    text = print_module(cuda.lower(src))
    assert "assume" not in text and "assert" not in text
    r = cuda.run(src, "foo", block=4, buffers={"q.p": ("f32", 4), "r": torch.ones(4)})
    assert r.ok and r.buffers["q.p"].tolist() == [1.0] * 4


# -- located errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "__global__ void k(int* a, int n) {\n    a[0] = n;\n    __requires(n > 0);\n}\n",
            "3:5: error: unsupported __requires other than among the first statements of a function: __requires(n > 0)",
        ),
        (
            "__global__ void k(int* a, int n) {\n    if (n > 0) { __ensures(n > 1); }\n}\n",
            "2:18: error: unsupported __ensures other than among the first statements of a function: __ensures(n > 1)",
        ),
        (
            "__device__ int f(int x) {\n    __ensures(__return_val_float() > 0.0f);\n    return x;\n}\n"
            "__global__ void k(int* a) { a[0] = f(1); }\n",
            "2:15: error: __return_val_float in a function returning i32",
        ),
        (
            "__device__ char f(int x) {\n    __ensures(__return_val_int() == x * 2);\n    return x * 2;\n}\n"
            "__global__ void k(char* a) { a[0] = f(1); }\n",
            "2:15: error: __return_val_int in a function returning i8",
        ),
        (
            "__global__ void k(int* a) {\n    a[0] = __return_val_int();\n}\n",
            "2:12: error: unsupported __return_val_int outside the __ensures of a function returning a value: "
            "__return_val_int()",
        ),
        (
            "__device__ int f(int x) {\n    __ensures(__return_val_int() > x);\n    x = x + 1;\n    return x;\n}\n"
            "__global__ void k(int* a) { a[0] = f(1); }\n",
            "2:36: error: unsupported __ensures reading parameter x, which the function changes: x",
        ),
        (
            "__device__ int f(int x) {\n    __ensures(__return_val_int() > __old_int(x));\n    return x + 1;\n}\n"
            "__global__ void k(int* a) { a[0] = f(1); }\n",
            "2:36: error: unsupported __old_int (GPUVerify's value at the function's entry): __old_int(x)",
        ),
        (
            "__global__ void k(float* A) {\n    __requires(__write_offset_bytes(A) == 0);\n    A[0] = 1.0f;\n}\n",
            "2:16: error: unsupported __write_offset_bytes (GPUVerify's memory access predicates are not modelled): "
            "__write_offset_bytes(A)",
        ),
        (
            "__global__ void k(int* a, int x) {\n    __requires(__uniform_int(x));\n    a[0] = x;\n}\n",
            "2:16: error: unsupported __uniform_int (GPUVerify's uniformity predicate): __uniform_int(x)",
        ),
        (
            "__global__ void k(float* p) {\n    __requires_fresh_array(p + 1);\n    p[0] = 1.0f;\n}\n",
            "2:28: error: unsupported __requires_fresh_array of other than a pointer parameter of the kernel: p + 1",
        ),
    ],
    ids=[
        "requires-late",
        "ensures-nested",
        "return-val-type",
        "return-val-char",
        "return-val-outside",
        "ensures-param-changed",
        "old",
        "access-predicate",
        "uniform",
        "fresh-array",
    ],
)
def test_contracts_outside_the_modelled_subset_are_located_errors(cuda: Cuda, source: str, message: str) -> None:
    assert cuda.error(source) == message
