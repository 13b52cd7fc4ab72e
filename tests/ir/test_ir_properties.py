"""Properties of random well-typed IR (from :mod:`larkc.ir.testing`): it verifies, it round-trips
through the printed form exactly, printing is deterministic, and mutations that break one type are
rejected by the verifier."""

from __future__ import annotations

import copy
import enum

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from larkc.errors import LarkcError, TypeCheckError
from larkc.ir import nodes
from larkc.ir.nodes import Binary, Const, Decl, Function, Level, Module, VarRef
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_function, print_module
from larkc.ir.testing import count_nodes, functions, modules, node_classes, replace_node
from larkc.ir.types import I32, I64, Type
from larkc.ir.verify import verify_module

PROPERTY = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def other_type(t: Type) -> Type:
    """A type different from ``t``."""
    return I64 if t != I64 else I32


@PROPERTY
@given(modules())
def test_generated_modules_verify_and_round_trip(m: Module) -> None:
    verify_module(m)
    text = print_module(m)
    parsed = parse_module(text)
    assert parsed == m
    assert print_module(parsed) == text


@PROPERTY
@given(st.sampled_from(tuple(Level)).flatmap(functions))
def test_generated_functions_verify_and_round_trip(f: Function) -> None:
    m = Module((f,))
    verify_module(m)
    text = print_function(f)
    (parsed,) = parse_module(text).functions
    assert parsed == f
    assert print_function(parsed) == text


@PROPERTY
@given(modules(level=Level.BLOCK))
def test_block_level_modules_round_trip(m: Module) -> None:
    verify_module(m)
    assert parse_module(print_module(m)) == m


@PROPERTY
@given(modules())
def test_printing_is_deterministic(m: Module) -> None:
    text = print_module(m)
    assert print_module(m) == text
    assert print_module(copy.deepcopy(m)) == text


@PROPERTY
@given(modules(), st.data())
def test_retyping_a_variable_use_is_rejected(m: Module, data: st.DataObject) -> None:
    uses = count_nodes(m, lambda x: isinstance(x, VarRef))
    if uses == 0:
        return
    index = data.draw(st.integers(0, uses - 1))

    def retype(x: object) -> object:
        assert isinstance(x, VarRef)
        return VarRef(x.name, other_type(x.type))

    with pytest.raises(TypeCheckError):
        verify_module(replace_node(m, lambda x: isinstance(x, VarRef), index, retype))


@PROPERTY
@given(modules(), st.data())
def test_changing_one_operand_type_is_rejected(m: Module, data: st.DataObject) -> None:
    binaries = count_nodes(m, lambda x: isinstance(x, Binary))
    if binaries == 0:
        return
    index = data.draw(st.integers(0, binaries - 1))

    def mutate(x: object) -> object:
        assert isinstance(x, Binary)
        rhs = Const(0, I64 if x.lhs.type != I64 else I32)
        return Binary(x.op, x.lhs, rhs, x.type)

    with pytest.raises(TypeCheckError, match="have different types"):
        verify_module(replace_node(m, lambda x: isinstance(x, Binary), index, mutate))


@PROPERTY
@given(modules(), st.data())
def test_retyping_an_initialised_declaration_is_rejected(m: Module, data: st.DataObject) -> None:
    def initialised(x: object) -> bool:
        return isinstance(x, Decl) and x.init is not None

    decls = count_nodes(m, initialised)
    if decls == 0:
        return
    index = data.draw(st.integers(0, decls - 1))

    def mutate(x: object) -> object:
        assert isinstance(x, Decl)
        return Decl(x.name, other_type(x.type), x.init)

    with pytest.raises(TypeCheckError):
        verify_module(replace_node(m, initialised, index, mutate))


@PROPERTY
@given(modules(), st.data())
def test_corrupted_text_gives_a_located_error_or_a_module(m: Module, data: st.DataObject) -> None:
    """Deleting, duplicating or inserting characters never crashes the parser."""
    text = print_module(m)
    if not text:
        return
    pos = data.draw(st.integers(0, len(text) - 1))
    edit = data.draw(st.sampled_from(("delete", "duplicate", "insert")))
    if edit == "delete":
        bad = text[:pos] + text[pos + 1 :]
    elif edit == "duplicate":
        bad = text[:pos] + text[pos] + text[pos:]
    else:
        bad = text[:pos] + data.draw(st.sampled_from(list("(){}[]<>,;:%@\"'x1.-&|!? \n"))) + text[pos:]
    try:
        parse_module(bad, "corrupt.ir")
    except LarkcError as err:
        assert err.span is not None and err.span.file == "corrupt.ir" and err.span.line >= 1
        assert "\n" not in err.message


def test_generator_covers_every_node_class() -> None:
    all_classes = {
        cls
        for name in nodes.__all__
        if isinstance(cls := getattr(nodes, name), type)
        and not issubclass(cls, enum.Enum)
        and cls.__module__ == nodes.__name__
    }
    seen: set[type] = set()

    # rounds of 400 examples, each from its own fixed seed, until every class was drawn: a rare node
    # (Dot, Combine) missed by one stream of draws (which shifts when the generator draws more) is
    # found by the next; a class no round draws fails the test
    for k in range(5):

        @seed(k)
        @settings(max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(modules())
        def collect(m: Module) -> None:
            seen.update(node_classes(m))

        collect()
        if all_classes <= seen:
            break
    assert all_classes - seen == set()
