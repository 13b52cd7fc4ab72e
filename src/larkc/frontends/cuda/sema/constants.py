"""Constant expressions of the CUDA frontend: number literals and compile-time folding.

Folding serves the places where C requires a constant (array sizes, template arguments, ``#pragma
unroll`` counts, enumerators, ``constexpr`` values); ordinary expressions are lowered, not folded.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import tree_sitter as ts

from larkc.errors import LarkcError
from larkc.frontends.cuda import builtins as lib
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.cnumbers import parse_number, shift, trunc_div, trunc_rem
from larkc.ir.types import BOOL, F64, I64, U64, ScalarType, Type, size_of
from larkc.ir.values import convert_value

if TYPE_CHECKING:
    from larkc.frontends.cuda.sema.unit import TemplateEnv, TranslationUnit

__all__ = ["fold_binary", "fold_constant", "try_resolve_type"]


def try_resolve_type(tu: TranslationUnit, type_node: ts.Node, env: TemplateEnv, ctx: ts.Node) -> Type | None:
    """The type ``type_node`` names, or ``None`` where it names none (``(a * (b)) - c`` parses as a cast).

    The one place the frontend asks whether a node is a type by trying: ``TranslationUnit.resolve_type``
    reports why a type does not resolve by raising, and has no form that answers ``None``.
    """
    try:
        return tu.resolve_type(type_node, env, ctx)
    except LarkcError:
        return None


def fold_constant(
    tu: TranslationUnit, node: ts.Node | None, env: TemplateEnv, consts: Mapping[str, bool | int | float]
) -> bool | int | float | None:
    """The value of a C constant expression, or ``None`` if it is not one we can fold."""
    if node is None:
        return None
    t = node.type
    if t == "number_literal":
        # tree-sitter lexes a leading sign into the literal: the literal is the magnitude (`-010` is -8)
        text = node_text(node)
        lit = parse_number(text.lstrip("+-").lstrip())
        return None if lit is None else -lit[0] if text.startswith("-") else lit[0]
    if t in ("true", "false"):
        return t == "true"
    if t == "parenthesized_expression":
        return fold_constant(tu, node.named_children[0], env, consts)
    if t in ("identifier", "type_identifier"):
        name = node_text(node)
        bound = env.get(name)
        if isinstance(bound, int):
            return bound
        if name in consts:
            return consts[name]
        key = tu.find(name, node, tu.constants)
        if key is not None:
            return tu.constants[key][1]
        if name in lib.CONSTANTS:
            return lib.CONSTANTS[name][1]
        return None
    if t == "sizeof_expression":
        target = node.child_by_field_name("type") or node.child_by_field_name("value")
        if target is None:
            return None
        if target.type == "parenthesized_expression":
            target = target.named_children[0]
        sized = consts.get(_SIZEOF + node_text(target))  # the size of a constexpr function parameter
        if sized is not None:
            return sized
        sized_type = try_resolve_type(tu, target, env, node)
        if sized_type is None:
            return None
        try:
            return size_of(sized_type)
        except ValueError:  # a type without a size (void)
            return None
    if t == "unary_expression":
        op = node_text(node.child_by_field_name("operator"))
        v = fold_constant(tu, node.child_by_field_name("argument"), env, consts)
        if v is None:
            return None
        if op == "-":
            return -v
        if op == "+":
            return v
        if op == "!":
            return not v
        if op == "~" and isinstance(v, int):
            return ~v
        return None
    if t == "binary_expression":
        op = node_text(node.child_by_field_name("operator"))
        a = fold_constant(tu, node.child_by_field_name("left"), env, consts)
        b = fold_constant(tu, node.child_by_field_name("right"), env, consts)
        if a is None or b is None:
            return None
        return fold_binary(op, a, b)
    if t == "conditional_expression":
        c = fold_constant(tu, node.child_by_field_name("condition"), env, consts)
        if c is None:
            return None
        branch = node.child_by_field_name("consequence" if c else "alternative")
        return fold_constant(tu, branch, env, consts)
    if t in ("qualified_identifier", "template_function"):
        trait = _type_trait(tu, node, env)
        if trait is not None:
            return trait
        key = tu.find(node_text(node), node, tu.constants)
        if key is not None:
            return tu.constants[key][1]
        scope = node.child_by_field_name("scope")  # `S::size`: a static constexpr member of a struct
        info = tu.struct_info(scope, env, node) if scope is not None else None
        member = node_text(node.child_by_field_name("name"))
        if info is not None and member in info.constants:
            return info.constants[member][1]
        static = tu.static_constant(scope, member, env) if scope is not None else None  # `num_elems<T>::value`
        return static[1] if static is not None else None
    if t == "call_expression":
        return _fold_constexpr_call(tu, node, env, consts)
    if t == "cast_expression":
        v = fold_constant(tu, node.child_by_field_name("value"), env, consts)
        tnode = node.child_by_field_name("type")
        if v is None or tnode is None:
            return None
        ty = try_resolve_type(tu, tnode, env, node)
        if isinstance(ty, ScalarType):
            src = BOOL if isinstance(v, bool) else (I64 if isinstance(v, int) else F64)
            try:
                return convert_value(v, src, ty)
            except OverflowError:
                return None
        return None
    return None


def fold_binary(op: str, a: bool | int | float, b: bool | int | float) -> bool | int | float | None:
    both_int = isinstance(a, int) and isinstance(b, int)
    try:
        match op:
            case "+":
                return a + b
            case "-":
                return a - b
            case "*":
                return a * b
            case "/":
                if b == 0:
                    return None
                return trunc_div(int(a), int(b)) if both_int else a / b
            case "%":
                return trunc_rem(int(a), int(b)) if both_int and b != 0 else None
            case "<<" | ">>" if both_int:
                # The operands' types are not tracked here: shift in 64 bits (unsigned for a value that is
                # not negative, so `1ull << 63` keeps its value), and a count outside [0, 64) gives no
                # constant (it was computed: `1 << 100000000000` ran out of memory).
                return shift(op == "<<", int(a), int(b), U64 if a >= 0 else I64)
            case "&":
                return int(a) & int(b) if both_int else None
            case "|":
                return int(a) | int(b) if both_int else None
            case "^":
                return int(a) ^ int(b) if both_int else None
            case "&&":
                return bool(a) and bool(b)
            case "||":
                return bool(a) or bool(b)
            case "==":
                return a == b
            case "!=":
                return a != b
            case "<":
                return a < b
            case "<=":
                return a <= b
            case ">":
                return a > b
            case ">=":
                return a >= b
    except (TypeError, OverflowError):
        return None
    return None


_TRAITS = {"is_same", "is_floating_point", "is_integral", "is_signed", "is_unsigned"}


def _type_trait(tu: TranslationUnit, node: ts.Node, env: TemplateEnv) -> bool | None:
    """``std::is_same<A, B>::value``, ``std::is_same_v<A, B>`` and a few other type traits."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("template_type", "template_function"):
            name = node_text(n.child_by_field_name("name")).removesuffix("_v")
            args = n.child_by_field_name("arguments")
            if name not in _TRAITS or args is None:
                return None
            types: list[Type] = []
            for a in args.named_children:
                resolved = try_resolve_type(tu, a, env, node)
                if resolved is None:
                    return None
                types.append(resolved)
            if name == "is_same":
                return len(types) == 2 and types[0] == types[1]
            if len(types) != 1 or not isinstance(types[0], ScalarType):
                return False if len(types) == 1 else None
            t = types[0]
            return {
                "is_floating_point": t.is_float,
                "is_integral": t.is_int or t.is_bool,
                "is_signed": t.is_signed or t.is_float,
                "is_unsigned": t.is_unsigned or t.is_bool,
            }[name]
        stack.extend(n.named_children)
    return None


# Each float type's largest finite value, smallest normal value and epsilon (std::numeric_limits).
_FLOAT_LIMITS: dict[str, tuple[float, float, float]] = {
    "f32": (float.fromhex("0x1.fffffep+127"), float.fromhex("0x1p-126"), float.fromhex("0x1p-23")),
    "f64": (float.fromhex("0x1.fffffffffffffp+1023"), float.fromhex("0x1p-1022"), 2.0**-52),
    "f16": (65504.0, 2.0**-14, 2.0**-10),
    "bf16": (float.fromhex("0x1.fep+127"), float.fromhex("0x1p-126"), 2.0**-7),
    # c10::Float8_e4m3fn / __nv_fp8_e4m3 (no infinity) and Float8_e5m2 / __nv_fp8_e5m2
    "f8e4m3": (448.0, 2.0**-6, 2.0**-3),
    "f8e5m2": (57344.0, 2.0**-14, 2.0**-2),
}


def numeric_limit(t: ScalarType, member: str) -> int | float | None:
    """``std::numeric_limits<t>::member()``, or ``None`` for a member larkc does not know (or ``t`` lacks:
    e4m3fn has no infinity, its ``has_infinity`` is false and c10 defines none)."""
    if t.is_float:
        big, small, eps = _FLOAT_LIMITS[str(t)]
        table: dict[str, int | float] = {
            "max": big,
            "lowest": -big,
            "min": small,
            "epsilon": eps,
            "quiet_NaN": math.nan,
        }
        if str(t) != "f8e4m3":
            table["infinity"] = math.inf
    else:
        lo = -(2 ** (t.bits - 1)) if t.is_signed else 0
        hi = 2 ** (t.bits - 1) - 1 if t.is_signed else 2**t.bits - 1
        table = {"max": hi, "min": lo, "lowest": lo}
    return table.get(member)


_LIMITS_CALL = re.compile(r"std::numeric_limits<(.+)>::(\w+)")


def fold_limits_call(tu: TranslationUnit, node: ts.Node, env: TemplateEnv) -> tuple[ScalarType, int | float] | None:
    """``std::numeric_limits<T>::member()`` (``node`` the call) as ``(T, value)``, or ``None``."""
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None or args is None or args.named_children or fn.type != "qualified_identifier":
        return None
    m = _LIMITS_CALL.fullmatch("".join(node_text(fn).split()))
    if m is None:
        return None
    stack = [fn]
    type_node = None
    while stack and type_node is None:
        n = stack.pop()
        if n.type == "template_argument_list":
            type_node = next((c for c in n.named_children if c.type == "type_descriptor"), None)
        stack.extend(n.named_children)
    t = try_resolve_type(tu, type_node, env, node) if type_node is not None else None
    if not isinstance(t, ScalarType):
        return None
    value = numeric_limit(t, m.group(2))
    return None if value is None else (t, value)


def _fold_constexpr_call(
    tu: TranslationUnit, node: ts.Node, env: TemplateEnv, consts: Mapping[str, bool | int | float]
) -> bool | int | float | None:
    """A call of a ``constexpr`` function with constant arguments, or of a foldable builtin.

    The body may be a sequence of ``if (c) return e;`` and ``return e;`` statements (what helpers such
    as ``next_pow2`` look like); anything else is not folded.
    """
    limit = fold_limits_call(tu, node, env)
    if limit is not None:
        return limit[1]
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None or args is None or fn.type != "identifier":
        return None
    values = [fold_constant(tu, a, env, consts) for a in args.named_children]
    if any(v is None for v in values):
        return None
    builtin = _BUILTINS.get(node_text(fn))
    if builtin is not None:
        return builtin(*[int(v) for v in values if v is not None]) if len(values) == 1 else None
    key = tu.find(node_text(fn), fn, tu.constexpr_functions)
    if key is None:
        return None
    definition = tu.constexpr_functions[key]
    decl = definition.child_by_field_name("declarator")
    body = definition.child_by_field_name("body")
    params = decl.child_by_field_name("parameters") if decl is not None else None
    if body is None or params is None:
        return None
    names = [node_text(p.child_by_field_name("declarator")) for p in params.named_children]
    if len(names) != len(values):
        return None
    inner: dict[str, bool | int | float] = {}
    for p, name, v in zip(params.named_children, names, values, strict=True):
        assert v is not None
        inner[name] = v
        ptype = p.child_by_field_name("type")
        if ptype is not None:
            with contextlib.suppress(LarkcError, ValueError):  # sizeof(param) then stays unfoldable
                inner[_SIZEOF + name] = size_of(tu.resolve_type(ptype, env, ptype))
    if _nesting.depth >= _MAX_CONSTEXPR_DEPTH:
        return None  # runaway recursion: not a constant we can fold (the caller reports where)
    _nesting.depth += 1
    try:
        return _fold_body(tu, [c for c in body.named_children if c.type != "comment"], env, inner)
    finally:
        _nesting.depth -= 1


def _fold_body(
    tu: TranslationUnit, statements: list[ts.Node], env: TemplateEnv, consts: Mapping[str, bool | int | float]
) -> bool | int | float | None:
    for st in statements:
        if st.type == "return_statement":
            return fold_constant(tu, st.named_children[0], env, consts) if st.named_children else None
        if st.type == "if_statement" and st.child_by_field_name("alternative") is None:
            cond = st.child_by_field_name("condition")
            value = cond.child_by_field_name("value") if cond is not None else None
            taken = fold_constant(tu, value, env, consts)
            if taken is None:
                return None
            if taken:
                branch = st.child_by_field_name("consequence")
                if branch is None:
                    return None
                inner = (
                    [c for c in branch.named_children if c.type != "comment"]
                    if branch.type == "compound_statement"
                    else [branch]
                )
                return _fold_body(tu, inner, env, consts)
            continue
        return None
    return None


def _clz(bits: int) -> Callable[[int], int]:
    def count(x: int) -> int:
        x &= (1 << bits) - 1
        return bits - x.bit_length()  # __builtin_clz(0) is undefined in C; here it is the width

    return count


#: Builtins folded in constant expressions (one integer argument).
_BUILTINS: dict[str, Callable[[int], int]] = {
    "__builtin_clz": _clz(32),
    "__builtin_clzl": _clz(64),
    "__builtin_clzll": _clz(64),
    "__builtin_popcount": lambda x: bin(x & 0xFFFFFFFF).count("1"),
    "__builtin_popcountll": lambda x: bin(x & 0xFFFFFFFFFFFFFFFF).count("1"),
}

#: Prefix of the entries of ``consts`` that give the size of a constexpr function's parameter.
_SIZEOF = "sizeof "


class _Nesting:
    """How deeply constexpr calls are nested in the fold under way."""

    depth = 0


#: How deeply constexpr calls may nest while folding (C++ compilers allow 512).
_MAX_CONSTEXPR_DEPTH = 256
_nesting = _Nesting()
