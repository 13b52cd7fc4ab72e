"""Spin locks between Triton programs: the one-program-at-a-time schedule, happens-before through the
atomics' memory orders (``sem``/``scope``), and the lock races the simulator reports."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from larkc.errors import LarkcError, SimulationError
from larkc.frontends import parse_source
from larkc.frontends.triton import parse_triton
from larkc.ir import parse_module, verify_module
from larkc.ir.nodes import Atomic, MemoryOrder, Module
from larkc.ir.printer import print_module
from larkc.ir.types import F32, I32, AddressSpace, PointerType
from larkc.ir.walk import walk_stmts
from larkc.semantics import GlobalBuffer, LaunchConfig, SimLimits, simulate
from larkc.semantics.interpreter import Interpreter, StepLimitExceeded, spins

#: A counter incremented under a lock; ``{acquire}`` and ``{release}`` are replaced by each case.
KERNEL = """
import triton
import triton.language as tl


@triton.jit
def k(lock_ptr, acc_ptr):
    while {acquire} == 1:
        pass
{body}
"""

ACQUIRE = "tl.atomic_cas(lock_ptr, 0, 1)"
UPDATE = "    tl.store(acc_ptr, tl.load(acc_ptr) + 1.0)"
RELEASE = "    tl.atomic_xchg(lock_ptr, 0)"


def _module(tmp_path: Path, body: str, acquire: str = ACQUIRE) -> Module:
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL.format(acquire=acquire, body=body), encoding="utf-8")
    params = {"lock_ptr": PointerType(I32, AddressSpace.GLOBAL), "acc_ptr": PointerType(F32, AddressSpace.GLOBAL)}
    return parse_triton(path, kernel="k", params=params, constexprs={})


def _run(module: Module, programs: int = 4, limits: SimLimits | None = None) -> tuple[set[str], float, list[str]]:
    args = {
        "lock_ptr": GlobalBuffer("lock", torch.zeros(1, dtype=torch.int32), I32),
        "acc_ptr": GlobalBuffer("acc", torch.zeros(1), F32),
    }
    r = simulate(module, "k", LaunchConfig((programs, 1, 1), (1, 1, 1)), args, limits=limits)
    return {d.kind.value for d in r.diagnoses}, float(r.buffers["acc"][0]), [d.message for d in r.diagnoses]


def test_a_correct_lock_terminates_and_orders_the_protected_accesses(tmp_path: Path) -> None:
    kinds, acc, _ = _run(_module(tmp_path, f"{UPDATE}\n{RELEASE}"))
    assert kinds == set()
    assert acc == 4.0  # every program's update, one after the other


def test_explicit_acquire_and_release_orders_suffice(tmp_path: Path) -> None:
    acquire = 'tl.atomic_cas(lock_ptr, 0, 1, sem="acquire")'
    release = '    tl.atomic_xchg(lock_ptr, 0, sem="release", scope="gpu")'
    assert _run(_module(tmp_path, f"{UPDATE}\n{release}", acquire))[0] == set()


@pytest.mark.parametrize(
    ("body", "acquire"),
    [
        pytest.param(f"{RELEASE}\n{UPDATE}", ACQUIRE, id="store-after-release"),
        pytest.param(f'{UPDATE}\n    tl.atomic_xchg(lock_ptr, 0, sem="relaxed")', ACQUIRE, id="relaxed-release"),
        pytest.param(f'{UPDATE}\n    tl.atomic_xchg(lock_ptr, 0, sem="acquire")', ACQUIRE, id="acquire-only-release"),
        pytest.param(f"{UPDATE}\n    tl.store(lock_ptr, 0)", ACQUIRE, id="plain-store-release"),
        pytest.param(f'{UPDATE}\n    tl.atomic_xchg(lock_ptr, 0, scope="cta")', ACQUIRE, id="cta-scope-release"),
        pytest.param(f"{UPDATE}\n{RELEASE}", 'tl.atomic_cas(lock_ptr, 0, 1, sem="relaxed")', id="relaxed-acquire"),
    ],
)
def test_a_lock_that_does_not_order_the_protected_writes_is_a_race(tmp_path: Path, body: str, acquire: str) -> None:
    kinds, _, messages = _run(_module(tmp_path, body, acquire))
    assert "race" in kinds
    assert any("no atomic release and acquire order them" in m for m in messages)


def test_a_lock_never_released_is_reported_as_nontermination(tmp_path: Path) -> None:
    with pytest.raises(StepLimitExceeded) as info:
        _run(_module(tmp_path, UPDATE), programs=2, limits=SimLimits(max_loop_iterations=50))
    assert "one at a time in program-id order" in str(info.value)


def test_triton_atomics_default_to_acq_rel_and_round_trip_through_the_text(tmp_path: Path) -> None:
    module = _module(tmp_path, f"{UPDATE}\n{RELEASE}")
    orders = [s.order for f in module.functions for s in walk_stmts(f.body) if isinstance(s, Atomic)]
    assert orders == [MemoryOrder.ACQ_REL, MemoryOrder.ACQ_REL]
    text = print_module(module)
    assert "atomic.cas.acq_rel" in text and "atomic.exch.acq_rel" in text
    again = parse_module(text, file="k.ir")
    verify_module(again)
    assert again == module


def test_an_unknown_memory_semantic_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(LarkcError) as info:
        _module(tmp_path, f'{UPDATE}\n    tl.atomic_xchg(lock_ptr, 0, sem="seq_cst")')
    assert "kernel.py:" in info.value.render() and "seq_cst" in str(info.value)


def test_an_unknown_order_in_the_ir_text_is_a_syntax_error() -> None:
    text = "kernel @k(%p: ptr<global i32>) level block {\n  atomic.add.sloppy [%p], 1:i32;\n}\n"
    with pytest.raises(LarkcError) as info:
        parse_module(text, file="k.ir")
    assert str(info.value).startswith("k.ir:2:3: error: unknown memory order")


def test_too_many_clocks_is_an_error_not_a_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("larkc.semantics.memory._MAX_CLOCK_CELLS", 5)  # 2 programs: 4 clocks
    with pytest.raises(SimulationError, match="happens-before between 2 programs on buffer lock"):
        _run(_module(tmp_path, f"{UPDATE}\n{RELEASE}"), programs=2)


def test_cuda_atomics_are_relaxed_and_cuda_kernels_keep_lock_step(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(
        "__global__ void k(int *lock) { while (atomicCAS(lock, 0, 1) == 1) {} atomicExch(lock, 0); }\n",
        encoding="utf-8",
    )
    module = parse_source(path)
    orders = {s.order for f in module.functions for s in walk_stmts(f.body) if isinstance(s, Atomic)}
    assert orders == {MemoryOrder.RELAXED}
    text = (
        "kernel @k(%lock: ptr<global i32>) level thread {\n  while true {\n    let %old: i32;\n"
        "    %old = atomic.cas [%lock], 1:i32, compare 0:i32;\n    break;\n  }\n}\n"
    )
    module = parse_module(text, file="k.ir")
    verify_module(module)
    assert spins(module)  # a spin loop, but CUDA threads run in lock-step without happens-before
    launch = LaunchConfig((2, 1, 1), (32, 1, 1))
    assert Interpreter(module, module.functions[0], launch, SimLimits()).mem.clocks is None


def test_atomics_in_a_for_loop_keep_the_lock_step_schedule(tmp_path: Path) -> None:
    path = tmp_path / "split.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(lock_ptr, acc_ptr):\n"
        "    for i in range(3):\n        tl.atomic_add(acc_ptr, 1.0)\n",
        encoding="utf-8",
    )
    params = {"lock_ptr": PointerType(I32, AddressSpace.GLOBAL), "acc_ptr": PointerType(F32, AddressSpace.GLOBAL)}
    module = parse_triton(path, kernel="k", params=params, constexprs={})
    assert not spins(module)
    kinds, acc, _ = _run(module)
    assert kinds == set() and acc == 12.0
    assert spins(_module(tmp_path, f"{UPDATE}\n{RELEASE}"))


def test_too_many_programs_for_the_clocks_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("larkc.semantics.memory._MAX_CLOCK_CELLS", 15)
    with pytest.raises(SimulationError, match="happens-before between 4 programs needs 16 clocks"):
        _run(_module(tmp_path, f"{UPDATE}\n{RELEASE}"))
