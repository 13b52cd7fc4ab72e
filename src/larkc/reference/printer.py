"""The deterministic text form of a spec graph (what ``larkc trace`` prints).

::

    spec rms_norm  # task.py:7
      symbols rows, d
      input %x: f32[rows, d]
      input %weight: f32[d]
      %pow_1 = pow(%x, 2) : f32[rows, d]  # task.py:8
      ...
      return %mul_1

Each node line is ``%name = op(operands) {attributes} : dtype[shape]`` followed by the reference line
that produced it (file name and line; the full path is in the node's span).
"""

from __future__ import annotations

import math
from pathlib import Path

from larkc.errors import Span
from larkc.reference.shapes import fmt
from larkc.reference.spec import AttrValue, SpecGraph, SpecNode

__all__ = ["format_attr", "print_spec"]


def format_attr(value: AttrValue) -> str:
    """An attribute value: ``true``, ``1e-05``, ``"tanh"``, ``[0, 1]``, shape expressions as such."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(format_attr(v) for v in value) + "]"
    return fmt(value)


def _where(span: Span) -> str:
    if span.line <= 0:
        return ""
    return f"  # {Path(span.file).name}:{span.line}"


def _node_line(node: SpecNode) -> str:
    args = ", ".join(str(a) for a in node.args)
    attrs = ", ".join(f"{k}={format_attr(v)}" for k, v in node.attrs)
    attr_text = f" {{{attrs}}}" if attrs else ""
    return f"  %{node.name} = {node.op.value}({args}){attr_text} : {node.type}{_where(node.span)}"


def print_spec(graph: SpecGraph) -> str:
    """The text form of ``graph``; equal graphs print identically."""
    lines = [f"spec {graph.name}{_where(graph.span)}"]
    if graph.symbols:
        lines.append(f"  symbols {', '.join(graph.symbols)}")
    lines.extend(f"  assume {fmt(a)}" for a in graph.assumptions)
    lines.extend(
        f"  input %{i.name}: {i.type}"
        + (f" in [{i.value_range[0]}, {i.value_range[1]})" if i.value_range is not None else "")
        for i in graph.inputs
    )
    lines.extend(f"  {p.kind.value} %{p.name}: {p.type}" for p in graph.params)
    lines.extend(_node_line(n) for n in graph.nodes)
    lines.append(f"  return {', '.join('%' + o for o in graph.outputs)}")
    return "\n".join(lines) + "\n"
