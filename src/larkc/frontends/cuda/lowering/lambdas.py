"""Local lambdas: ``auto f = [&](int i) { ... };`` called as ``f(i)``, or ``[&] { ... }()`` called in place.

A lambda is a compile-time value, like a cooperative group: the name is bound to a :class:`Lambda`,
which holds the lambda's syntax and the names visible where it was defined, and each call lowers the
body in place (inlined, as the phase form inlines a device function), its parameters bound to fresh
variables holding the arguments. Captures follow C++:

* by reference (``[&]``, ``[&x]``): the body names the enclosing variable itself, so it reads the value
  the variable has at the call and its writes change the variable;
* by value (``[=]``, ``[x]``): a copy made where the lambda is defined, read only unless the lambda is
  ``mutable`` (a mutable lambda's copies keep their changes from one call to the next, as the closure's
  members do); a local array captured by value is rejected;
* without a default capture, only the names listed are visible, besides what needs no capture
  (constants, ``__shared__`` variables).

A ``return`` other than as the last statement of the body, ``this`` and init captures, generic
(``auto``) parameters, and any use of a lambda other than calling it are located errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import tree_sitter as ts

from larkc.frontends.cuda.lowering.values import Binding
from larkc.frontends.cuda.syntax import node_text

__all__ = ["Captures", "Lambda", "capture_list", "free_identifiers", "misplaced_returns"]


@dataclass(frozen=True, slots=True)
class Lambda:
    """A lambda bound to a local name: its syntax and the names its body sees (captures included)."""

    node: ts.Node  # the lambda_expression
    scopes: tuple[Mapping[str, Binding], ...]  # innermost last, as ``LoweringCore.scopes``
    mutable: bool  # its by-value copies change from call to call (a copy of it would need copies of them)


@dataclass(frozen=True, slots=True)
class Captures:
    """A lambda's capture list: the default (``&``, ``=`` or none) and the names listed explicitly."""

    default: str | None
    by_reference: tuple[ts.Node, ...]
    by_value: tuple[ts.Node, ...]
    #: ``this``, ``*this`` or an init capture ``x = e``: not modelled
    unsupported: tuple[ts.Node, ...]


def capture_list(spec: ts.Node) -> Captures:
    """The captures of a ``lambda_capture_specifier`` (``[&, x]``, ``[=, &y]``, ``[a, &b]``)."""
    default: str | None = None
    by_ref: list[ts.Node] = []
    by_value: list[ts.Node] = []
    other: list[ts.Node] = []
    ampersand = False
    for c in spec.children:
        if c.type == "lambda_default_capture":
            default = node_text(c).strip()
        elif c.type == "&":
            ampersand = True
        elif c.type == "identifier":
            (by_ref if ampersand else by_value).append(c)
            ampersand = False
        elif (c.is_named and c.type != "comment") or c.type in ("this", "*"):
            other.append(c)
    return Captures(default, tuple(by_ref), tuple(by_value), tuple(other))


def _descendants(node: ts.Node, *, nested: bool) -> Iterator[ts.Node]:
    """The nodes below ``node``, entering nested lambdas only when ``nested``."""
    for c in node.children:
        yield c
        if nested or c.type != "lambda_expression":
            yield from _descendants(c, nested=nested)


def misplaced_returns(body: ts.Node) -> list[ts.Node]:
    """The ``return`` statements of a lambda body other than its last statement (the one inlining keeps)."""
    stmts = [c for c in body.named_children if c.type != "comment"]
    last = stmts[-1] if stmts and stmts[-1].type == "return_statement" else None
    return [n for n in _descendants(body, nested=False) if n.type == "return_statement" and n != last]


def free_identifiers(body: ts.Node) -> list[str]:
    """The names a lambda body uses, nested lambdas included (what they use by reference the body must
    capture by copy), in order of first use: a superset of what ``[=]`` captures."""
    seen: dict[str, None] = {}
    for n in _descendants(body, nested=True):
        if n.type == "identifier":
            seen.setdefault(node_text(n), None)
    return list(seen)
