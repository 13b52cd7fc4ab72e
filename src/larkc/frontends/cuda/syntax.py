"""Small helpers over tree-sitter nodes shared by the CUDA frontend's modules."""

from __future__ import annotations

import tree_sitter as ts

__all__ = ["cast_operand", "misread_comma", "node_text", "takes_address", "type_words", "unparenthesized"]


def node_text(node: ts.Node | None) -> str:
    """The source text of ``node`` ("" for a missing optional child)."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def type_words(type_node: ts.Node) -> str:
    """The words of a type specifier, normalised (``unsigned  int`` -> ``unsigned int``)."""
    if type_node.type == "sized_type_specifier":
        words = [node_text(c) for c in type_node.children if c.type != "comment"]
        return " ".join(w for w in words if w)
    if type_node.type == "qualified_identifier":
        return "".join(node_text(type_node).split())
    return " ".join(node_text(type_node).split())


def misread_comma(node: ts.Node) -> tuple[ts.Node, ts.Node] | None:
    """``(a = e, b)``, which tree-sitter-cuda reads as ``(a = b)`` with ``e ,`` in an ERROR node: for such
    an assignment node, ``(e, b)`` (the assigned value and the comma's right operand); otherwise ``None``."""
    parent, right = node.parent, node.child_by_field_name("right")
    if node.type != "assignment_expression" or parent is None or parent.type != "parenthesized_expression":
        return None
    errors = [c for c in node.children if c.is_error]
    if right is None or len(errors) != 1:
        return None
    parts = errors[0].children
    if len(parts) != 2 or not parts[0].is_named or parts[1].type != ",":
        return None
    return parts[0], right


def unparenthesized(node: ts.Node) -> ts.Node:
    """``node`` without the parentheses around it (``((x))`` -> ``x``)."""
    while node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    return node


def cast_operand(node: ts.Node) -> tuple[ts.Node, ts.Node, bool] | None:
    """A C cast ``(T*)x`` or ``(T*)(&x)``, parentheses around it or its operand allowed: the type node, ``x``
    (unparenthesized) and whether the operand took its address; ``None`` for anything else."""
    node = unparenthesized(node)
    type_node, value = node.child_by_field_name("type"), node.child_by_field_name("value")
    if node.type != "cast_expression" or type_node is None or value is None:
        return None
    value = unparenthesized(value)
    argument = value.child_by_field_name("argument") if value.type == "pointer_expression" else None
    if argument is not None and node_text(value.child_by_field_name("operator")) == "&":
        return type_node, unparenthesized(argument), True
    return type_node, value, False


def takes_address(body: ts.Node, name: str) -> bool:
    """Whether ``body`` contains ``&name`` (parentheses allowed); a shadowing declaration errs towards yes."""
    pending = [body]
    while pending:
        n = pending.pop()
        if n.type == "pointer_expression" and node_text(n.child_by_field_name("operator")) == "&":
            target = n.child_by_field_name("argument")
            if target is not None and node_text(unparenthesized(target)) == name:
                return True
        pending.extend(n.named_children)
    return False
