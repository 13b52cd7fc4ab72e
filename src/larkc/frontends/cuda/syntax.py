"""Small helpers over tree-sitter nodes shared by the CUDA frontend's modules."""

from __future__ import annotations

import tree_sitter as ts

__all__ = ["node_text", "type_words"]


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
