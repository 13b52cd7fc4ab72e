"""The mutation engine: every kind finds the node it targets and changes it, deterministically.

A small kernel holds one instance of every construct a kind targets (a guard, an index ``X*S + Y``, a
strided loop, an accumulation, a barrier, an epsilon under a square root, ...). For each kind, the
mutants it yields must be well-typed, differ from the original at their path (or delete the statement
there), and include the expected textual change.
"""

from __future__ import annotations

import pytest
from mutate import DELETE, MutationKind, apply_at, enumerate_mutants, reachable_functions, sample_mutants, walk

from larkc.ir import verify_module
from larkc.ir.nodes import Barrier, Function, Module
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_module

SOURCE = """
device @warp_sum(%v: f32) -> f32 level thread {
  for (let %o: i32 = 16:i32; (%o > 0:i32); %o = (%o >> 1:i32)) {
    let %t: f32;
    %t = shfl.xor(4294967295:u32, %v, %o, 32:i32);
    %v = (%v + %t);
  }
  return %v;
}

device @unused(%v: f32) -> f32 level thread {
  return exp(%v);
}

kernel @k(%x: ptr<global const f32>, %out: ptr<global f32>, %eps: f32, %n: i32, %d: i32) level thread {
  shared %s: [256 x f32];
  let %i: i32 = convert<i32>(((blockIdx.x * blockDim.x) + threadIdx.x));
  let %sum: f32 = 0.0:f32;
  for (let %j: i32 = %i; (%j < %n); %j = (%j + 256:i32)) {
    let %a: f32;
    %a = load [ptradd(%x, ((%j * %d) + %i))];
    %sum = (%sum + exp(%a));
  }
  let %r: f32;
  %r = call @warp_sum(%sum);
  store [ptradd(%s, threadIdx.x)], %r;
  barrier.block;
  if (%i < %n) {
    let %b: f32;
    %b = load [ptradd(%s, (%i - 1:i32))];
    store [ptradd(%out, %i)], (rsqrt(((%b / 2.0:f32) + %eps)) * 0.5:f32);
  }
}
"""


def module() -> Module:
    m = parse_module(SOURCE, "mutants.ir")
    verify_module(m)
    return m


#: Per kind, texts that some mutant of that kind contains and the original does not.
EXPECTED: dict[MutationKind, list[str]] = {
    MutationKind.GUARD_OFF_BY_ONE: ["if (%i <= %n)"],
    MutationKind.INDEX_SWAP: ["((%i * %d) + %j)", "(1:i32 - %i)", "blockIdx.y"],
    MutationKind.INDEX_SHIFT: ["ptradd(%out, (%i + 1:i32))", "ptradd(%out, (%i - 1:i32))", "((%i - 1:i32) + 1:i32)"],
    MutationKind.BARRIER_DELETED: [],  # checked by the statement count below
    MutationKind.FLOAT_CONSTANT: ["* 1.0:f32)", "* 1.5:f32)", "(%b / 3.0:f32)", "(%b / 0.0:f32)"],
    MutationKind.REDUCTION_OP: ["%sum = max(%sum, exp(%a))", "%sum = min(%sum", "%sum = (%sum - exp", "%v = max(%v"],
    MutationKind.GUARD_DROPPED: ["if true {"],
    MutationKind.STRIDE: ["%j = (%j + 257:i32)", "%j = (%j + 512:i32)", "(%j * (%d + 1:i32))", "(%j * %n)"],
    MutationKind.INIT: ["let %sum: f32 = -inf:f32", "let %sum: f32 = 1.0:f32"],
    MutationKind.EPS_MOVED: [
        "rsqrt((%b / 2.0:f32))",
        "rsqrt((%b / (2.0:f32 + %eps)))",
        "(rsqrt((%b / 2.0:f32)) + %eps)",
    ],
    MutationKind.LOOP_BOUND: ["(%j < (%n + 1:i32))", "(%j < (%n - 1:i32))", "(%j < %d)", "(%o > 1:i32)"],
    MutationKind.MATH_SWAP: ["exp2(%a)", "(sqrt(((%b"],
}


@pytest.mark.parametrize("kind", list(MutationKind), ids=lambda k: k.value)
def test_each_kind_finds_and_changes_its_target(kind: MutationKind) -> None:
    m = module()
    original = print_module(m)
    mutants = enumerate_mutants(m, "k", [kind])
    assert mutants, f"no {kind.value} mutant"
    texts = []
    for mu in mutants:
        assert mu.kind is kind
        verify_module(mu.module)
        text = print_module(mu.module)
        assert text != original, mu.key
        f = m.function(mu.function)
        g = mu.module.function(mu.function)
        assert f is not None and g is not None and f != g, f"{mu.key}: the function is unchanged"
        assert _at(g, mu.path) != _at(f, mu.path), f"{mu.key}: nothing changed at {mu.path}"
        texts.append(text)
    for snippet in EXPECTED[kind]:
        assert snippet not in original
        assert any(snippet in t for t in texts), f"no {kind.value} mutant contains {snippet!r}"


def _at(f: Function, path: tuple[str | int, ...]) -> object:
    x: object = f
    for step in path:
        if isinstance(step, int):
            assert isinstance(x, tuple)
            x = x[step] if step < len(x) else None
        else:
            x = getattr(x, step)
    return x


def test_a_deleted_barrier_is_gone() -> None:
    m = module()
    (mu,) = enumerate_mutants(m, "k", [MutationKind.BARRIER_DELETED])
    assert sum(isinstance(s.node, Barrier) for s in walk(m.functions)) == 1
    assert not any(isinstance(s.node, Barrier) for s in walk(mu.module.functions))


def test_apply_at_deletes_from_a_tuple_and_replaces_elsewhere() -> None:
    assert apply_at((1, 2, 3), (1,), DELETE) == (1, 3)
    assert apply_at((1, (2, 3)), (1, 0), 9) == (1, (9, 3))


def test_only_the_kernel_and_what_it_calls_are_mutated() -> None:
    m = module()
    assert [f.name for f in reachable_functions(m, "k")] == ["warp_sum", "k"]
    assert {mu.function for mu in enumerate_mutants(m, "k")} == {"warp_sum", "k"}


def test_enumeration_is_deterministic_and_unique() -> None:
    first = enumerate_mutants(module(), "k")
    second = enumerate_mutants(module(), "k")
    assert [mu.key for mu in first] == [mu.key for mu in second]
    assert len({mu.key for mu in first}) == len(first)
    assert len({mu.module for mu in first}) == len(first)


def test_sampling_is_seeded_and_balanced() -> None:
    mutants = enumerate_mutants(module(), "k")
    a = sample_mutants(mutants, 24, seed=3)
    assert [mu.key for mu in a] == [mu.key for mu in sample_mutants(mutants, 24, seed=3)]
    assert [mu.key for mu in a] != [mu.key for mu in sample_mutants(mutants, 24, seed=4)]
    assert {mu.kind for mu in a} == set(MutationKind)  # 24 >= 12 kinds: every kind is drawn
    assert len(sample_mutants(mutants, 10_000, seed=0)) == len(mutants)
