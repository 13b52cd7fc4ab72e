"""The Lean lowering of spec graphs (``larkc.lower.spec``) and the Lean library it targets.

Every op has a rule; every example's reference lowers deterministically to definitions that name only
operations ``lean/Larkc/Torch.lean`` defines; the library and the lowered text pass the Lean linter of
``../shared/tools``; small hand-built graphs lower to pinned text; and what Lean cannot express is an
``UnsupportedError`` at the node's span.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from larkc.errors import Span, UnsupportedError
from larkc.ir.types import BOOL, F16, F32, I64, ScalarType
from larkc.lower.spec import SPEC_RULES, SpecLowering, lean_real, lower_spec
from larkc.reference import OP_SIGNATURES, Absent, Ref, Scalar, SpecGraph, SpecInput, SpecNode, SpecOp, ValueType
from larkc.reference.rules import infer_type
from larkc.reference.trace import trace_task
from larkc.tasks import load_task
from larkc.tasks.shape_expr import ShapeExpr, shape_expr

ROOT = Path(__file__).resolve().parents[2]
TASK_FILES = sorted((ROOT / "examples" / "cuda").glob("*/task.py"))
LEAN = ROOT / "lean" / "Larkc"
LINT = ROOT.parent / "shared" / "tools" / "lean_lint.py"
SHARED_NAMES = ROOT.parent / "shared" / "lean" / "names.txt"
SPEC_NAMES = ROOT / "lean" / "verified_names.txt"


# Hand-built graphs ----------------------------------------------------------------------------------


class _Builder:
    """A spec graph built node by node, each node typed by the op's own type rule."""

    def __init__(self, name: str, symbols: tuple[str, ...]) -> None:
        self.name = name
        self.symbols = symbols
        self.inputs: list[SpecInput] = []
        self.nodes: list[SpecNode] = []
        self.types: dict[str, ValueType] = {}

    def input(self, name: str, shape: tuple[str | int, ...], dtype: ScalarType = F32) -> Ref:
        t = ValueType(tuple(shape_expr(d) for d in shape), dtype)
        self.inputs.append(SpecInput(name, t))
        self.types[name] = t
        return Ref(name)

    def node(self, name: str, op: SpecOp, *args: Any, dtype: ScalarType = F32, **attrs: Any) -> Ref:
        operands = tuple(a if isinstance(a, Ref | Absent) else Scalar(a) for a in args)
        items = tuple((k, attrs[k]) for k in OP_SIGNATURES[op].attrs)
        draft = SpecNode(name, op, operands, items, ValueType((), dtype))
        t = infer_type(draft, self.types)
        self.nodes.append(SpecNode(name, op, operands, items, t))
        self.types[name] = t
        return Ref(name)

    def graph(self, *outputs: Ref) -> SpecGraph:
        g = SpecGraph(
            self.name, self.symbols, tuple(self.inputs), (), tuple(self.nodes), tuple(o.name for o in outputs)
        )
        g.verify()
        return g


def _s(*dims: str | int) -> tuple[ShapeExpr, ...]:
    return tuple(shape_expr(d) for d in dims)


def _saxpy() -> SpecGraph:
    b = _Builder("saxpy", ("n",))
    x, y = b.input("x", ("n",)), b.input("y", ("n",))
    m = b.node("mul", SpecOp.MUL, x, 2.5)
    return b.graph(b.node("add", SpecOp.ADD, m, y))


def _elementwise_zoo() -> SpecGraph:
    b = _Builder("zoo", ("r", "c"))
    x, y = b.input("x", ("r", "c")), b.input("from", ("c",))
    mask = b.input("mask", ("r", "c"), BOOL)
    outs = [
        b.node("sub", SpecOp.SUB, x, y),
        b.node("div", SpecOp.DIV, x, 3),
        b.node("floordiv", SpecOp.FLOOR_DIVIDE, x, y),
        b.node("pow_t", SpecOp.POW, x, y),
        b.node("pow_i", SpecOp.POW, x, -2),
        b.node("pow_f", SpecOp.POW, x, 0.5),
        b.node("mx", SpecOp.MAXIMUM, x, y),
        b.node("mn", SpecOp.MINIMUM, x, 0.0),
        b.node("lo", SpecOp.CLAMP, x, 0.0, Absent()),
        b.node("hi", SpecOp.CLAMP, x, Absent(), 1),
    ]
    for op in (SpecOp.EQ, SpecOp.NE, SpecOp.LT, SpecOp.LE, SpecOp.GT, SpecOp.GE):
        outs.append(b.node(op.value, op, x, y))
    both = b.node("both", SpecOp.AND, mask, Ref("lt"))
    either = b.node("either", SpecOp.OR, both, True)
    outs.append(b.node("neither", SpecOp.NOT, either))
    outs.append(b.node("sel", SpecOp.WHERE, mask, x, 0.0))
    for op in (SpecOp.ISINF, SpecOp.ISNAN, SpecOp.ISFINITE):
        outs.append(b.node(op.value, op, x))
    for op in (
        SpecOp.NEG,
        SpecOp.ABS,
        SpecOp.RECIPROCAL,
        SpecOp.EXP,
        SpecOp.LOG,
        SpecOp.SQRT,
        SpecOp.RSQRT,
        SpecOp.TANH,
        SpecOp.ERF,
        SpecOp.SIN,
        SpecOp.COS,
        SpecOp.SIGMOID,
        SpecOp.RELU,
        SpecOp.SILU,
    ):
        outs.append(b.node(f"u_{op.value}", op, x))
    outs.append(b.node("gelu", SpecOp.GELU, x, approximate="none"))
    outs.append(b.node("gelu_t", SpecOp.GELU, x, approximate="tanh"))
    outs.append(b.node("softplus", SpecOp.SOFTPLUS, x, beta=1.0, threshold=20.0))
    half = b.node("half", SpecOp.CAST, x, dtype=F16)
    outs.append(b.node("to_bool", SpecOp.CAST, half, dtype=BOOL))
    outs.append(b.node("to_long", SpecOp.CAST, x, dtype=I64))
    return b.graph(*outs)


def _reduction_zoo() -> SpecGraph:
    b = _Builder("reductions", ("a", "b", "c"))
    x = b.input("x", ("a", "b", "c"))
    outs = [
        b.node("sum", SpecOp.SUM, x, dims=(0, 2), keepdim=False),
        b.node("mean", SpecOp.MEAN, x, dims=(1,), keepdim=True),
        b.node("amax", SpecOp.AMAX, x, dims=(2,), keepdim=False),
        b.node("amin", SpecOp.AMIN, x, dims=(), keepdim=False),
        b.node("argmax", SpecOp.ARGMAX, x, dim=1, keepdim=False),
        b.node("argmin", SpecOp.ARGMIN, x, dim=None, keepdim=False),
        b.node("var", SpecOp.VAR, x, dims=(2,), correction=1, keepdim=False),
        b.node("std", SpecOp.STD, x, dims=(), correction=0.0, keepdim=True),
    ]
    for i, ord_ in enumerate((2.0, 1.0, 0.0, float("inf"), float("-inf"), 3.0)):
        outs.append(b.node(f"norm_{i}", SpecOp.NORM, x, ord=ord_, dims=(2,), keepdim=False))
    outs.append(b.node("softmax", SpecOp.SOFTMAX, x, dim=2))
    outs.append(b.node("log_softmax", SpecOp.LOG_SOFTMAX, x, dim=0))
    outs.append(b.node("cumsum", SpecOp.CUMSUM, x, dim=1))
    return b.graph(*outs)


def _layers_zoo() -> SpecGraph:
    b = _Builder("layers", ("B", "T", "D", "V"))
    x = b.input("x", ("B", "T", "D"))
    w, bias = b.input("w", ("V", "D")), b.input("bias", ("V",))
    g, g2 = b.input("g", ("D",)), b.input("g2", ("T", "D"))
    tokens = b.input("tokens", ("B", "T"), I64)
    target = b.input("target", ("B",), I64)
    outs = [
        b.node("ln", SpecOp.LAYER_NORM, x, Absent(), Absent(), normalized_shape=_s("D"), eps=1e-5),
        b.node("ln2", SpecOp.LAYER_NORM, x, g2, g2, normalized_shape=_s("T", "D"), eps=1e-5),
        b.node("rms", SpecOp.RMS_NORM, x, g, normalized_shape=_s("D"), eps=1e-6),
        b.node("lin", SpecOp.LINEAR, x, w, bias),
        b.node("lin0", SpecOp.LINEAR, x, w, Absent()),
    ]
    wt = b.node("wt", SpecOp.TRANSPOSE, w, dim0=0, dim1=1)
    outs.append(b.node("bmm3", SpecOp.MATMUL, x, wt))
    xt = b.node("xt", SpecOp.PERMUTE, x, dims=(0, 2, 1))
    outs.append(b.node("bmm", SpecOp.BMM, x, xt))
    outs.append(b.node("mv", SpecOp.MATMUL, x, g))
    outs.append(b.node("vm", SpecOp.MATMUL, g, xt))
    row = b.node("row", SpecOp.SELECT, x, dim=0, index=0)
    row_t = b.node("row_t", SpecOp.TRANSPOSE, row, dim0=0, dim1=1)
    outs.append(b.node("mm", SpecOp.MM, row, row_t))
    emb = b.node("emb", SpecOp.EMBEDDING, w, tokens)
    outs.append(emb)
    logits = b.node("logits", SpecOp.SELECT, emb, dim=1, index=0)
    for reduction in ("none", "sum", "mean"):
        outs.append(
            b.node(f"ce_{reduction}", SpecOp.CROSS_ENTROPY, logits, target, reduction=reduction, ignore_index=-100)
        )
    return b.graph(*outs)


def _layout_zoo() -> SpecGraph:
    b = _Builder("layout", ("n", "m"))
    x = b.input("x", ("n", "m"))
    idx = b.input("idx", ("m",), I64)
    one = b.node("one", SpecOp.UNSQUEEZE, x, dim=0)
    outs = [
        b.node("flat", SpecOp.RESHAPE, x, shape=_s("n*m")),
        b.node("squeezed", SpecOp.SQUEEZE, one, dims=(0,)),
        b.node("expanded", SpecOp.EXPAND, one, shape=_s(3, "n", "m")),
        b.node("sliced", SpecOp.SLICE, x, dim=1, start=shape_expr(1), end=shape_expr("m"), step=2),
        b.node("cat", SpecOp.CAT, x, x, dim=0),
        b.node("stack", SpecOp.STACK, x, x, x, dim=1),
        b.node("picked", SpecOp.INDEX_SELECT, x, idx, dim=1),
        b.node("full", SpecOp.FULL, shape=_s("n", 2), value=0.25),
        b.node("ar", SpecOp.ARANGE, start=shape_expr(0), end=shape_expr("n"), step=1, dtype=I64),
        b.node("tril", SpecOp.TRIL, x, diagonal=-1),
        b.node("triu", SpecOp.TRIU, x, diagonal=1),
    ]
    gidx = b.input("gidx", ("n", "m"), I64)
    outs.append(b.node("gathered", SpecOp.GATHER, x, gidx, dim=0))
    outs.append(b.node("scattered", SpecOp.SCATTER_ADD, x, gidx, x, dim=0))
    return b.graph(*outs)


HAND_GRAPHS = {
    "saxpy": _saxpy,
    "elementwise": _elementwise_zoo,
    "reductions": _reduction_zoo,
    "layers": _layers_zoo,
    "layout": _layout_zoo,
}


# Traced examples ------------------------------------------------------------------------------------


@cache
def _traced(path: Path) -> SpecGraph | None:
    task = load_task(path)
    if task.reference is None:
        return None
    return trace_task(task)


def _example(path: Path) -> SpecGraph:
    graph = _traced(path)
    if graph is None:
        pytest.skip("task without a reference")
    return graph


@cache
def _torch_defs() -> frozenset[str]:
    return frozenset(re.findall(r"^def (\w+)", (LEAN / "Torch.lean").read_text(encoding="utf-8"), re.M))


def _check_lowering(graph: SpecGraph, low: SpecLowering) -> None:
    assert low == lower_spec(graph, graph.symbols), "lowering is not deterministic"
    defs = re.findall(r"^def (\S+)", low.definitions, re.M)
    assert len(defs) == len(set(defs)) == len(graph.nodes) + len(graph.outputs)
    assert defs[-len(graph.outputs) :] == [o.lean_name for o in low.outputs]
    assert [o.name for o in low.outputs] == list(graph.outputs)
    assert [n for n, _ in low.inputs] == [i.name for i in graph.inputs] + [p.name for p in graph.params]
    used = set(re.findall(r"Larkc\.Torch\.(\w+)", low.definitions))
    assert used <= _torch_defs(), f"undefined Larkc.Torch operations {sorted(used - _torch_defs())}"
    assert low.definitions.count("/--") == len(defs)
    assert "sorry" not in low.definitions


# Tests ----------------------------------------------------------------------------------------------


def test_every_op_has_a_lean_rule() -> None:
    assert set(SPEC_RULES) == set(SpecOp)


def test_hand_graphs_cover_every_op() -> None:
    ops = {n.op for make in HAND_GRAPHS.values() for n in make().nodes}
    assert ops == set(SpecOp)


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.parent.name)
def test_example_spec_lowers(path: Path) -> None:
    graph = _example(path)
    _check_lowering(graph, lower_spec(graph, graph.symbols))


@pytest.mark.parametrize("name", sorted(HAND_GRAPHS))
def test_hand_graph_lowers(name: str) -> None:
    graph = HAND_GRAPHS[name]()
    _check_lowering(graph, lower_spec(graph, graph.symbols))


def test_saxpy_golden() -> None:
    low = lower_spec(_saxpy(), ("n",))
    assert low.definitions == (
        "/-- `torch.mul` (`%mul = mul(%x, 2.5) : f32[n]`), no source line. -/\n"
        "def specMul (n : ℕ) (x y : Larkc.Tensor) : Larkc.Tensor :=\n"
        "  Larkc.Torch.mul x (Larkc.Torch.scalar (5 / 2 : ℝ))\n"
        "\n"
        "/-- `torch.add` (`%add = add(%mul, %y) : f32[n]`), no source line. -/\n"
        "def specAdd (n : ℕ) (x y : Larkc.Tensor) : Larkc.Tensor :=\n"
        "  Larkc.Torch.add (specMul n x y) y\n"
        "\n"
        "/-- Output 0 of spec `saxpy`: `%add`, of type `f32[n]`. -/\n"
        "def specOut0 (n : ℕ) (x y : Larkc.Tensor) : Larkc.Tensor :=\n"
        "  specAdd n x y\n"
    )
    assert low.inputs == (("x", "x"), ("y", "y"))
    assert [(o.name, o.lean_name, o.shape) for o in low.outputs] == [("add", "specOut0", ("n",))]
    assert low.side_conditions == ()


def test_broadcast_norm_and_reduction_golden() -> None:
    b = _Builder("norms", ("rows", "d"))
    x = b.input("x", ("rows", "d"))
    ln = b.node("layer_norm", SpecOp.LAYER_NORM, x, Absent(), Absent(), normalized_shape=_s("d"), eps=1e-05)
    total = b.node("sum_1", SpecOp.SUM, ln, dims=(1,), keepdim=True)
    out = b.node("mul", SpecOp.MUL, ln, total)
    low = lower_spec(b.graph(out, x), ("rows", "d", "extra"), prefix="ref")
    body = [line for line in low.definitions.splitlines() if line.startswith("  ")]
    assert body == [
        "  Larkc.Torch.layerNorm 1 [d] (1 / 100000 : ℝ) x (Larkc.Torch.scalar 1) (Larkc.Torch.scalar 0)",
        "  Larkc.Torch.sum 2 [1] [d] true (refLayerNorm rows d extra x)",
        "  Larkc.Torch.mul (refLayerNorm rows d extra x) (Larkc.Torch.bcast [rows, 1] (refSum1 rows d extra x))",
        "  refMul rows d extra x",
        "  x",
    ]
    assert "def refOut1 (rows d extra : ℕ) (x : Larkc.Tensor) : Larkc.Tensor :=" in low.definitions
    assert low.side_conditions == ("(0 : ℝ) < (1 / 100000 : ℝ)",)
    assert [o.lean_name for o in low.outputs] == ["refOut0", "refOut1"]


def test_names_are_valid_and_distinct() -> None:
    b = _Builder("names", ())
    x = b.input("from", (2,))
    y = b.input("specOut0", (2,))
    end = b.node("end", SpecOp.ADD, x, y)
    low = lower_spec(b.graph(end), ())
    assert low.inputs == (("from", "from'"), ("specOut0", "specOut0'"))
    assert "def specEnd (from' specOut0' : Larkc.Tensor) : Larkc.Tensor :=" in low.definitions
    assert "def specOut0 (from' specOut0' : Larkc.Tensor) : Larkc.Tensor :=\n  specEnd from' specOut0'" in (
        low.definitions
    )


def test_no_arguments_at_all() -> None:
    b = _Builder("const", ())
    low = lower_spec(b.graph(b.node("full", SpecOp.FULL, shape=_s(2, 3), value=True, dtype=BOOL)), ())
    assert "def specFull : Larkc.Tensor :=\n  Larkc.Torch.full (1 : ℝ)" in low.definitions
    assert "def specOut0 : Larkc.Tensor :=\n  specFull\n" in low.definitions


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e-05, "(1 / 100000 : ℝ)"),
        (-0.5, "(-(1 / 2) : ℝ)"),
        (3, "(3 : ℝ)"),
        (-3, "(-3 : ℝ)"),
        (2.0, "(2 : ℝ)"),
        (True, "(1 : ℝ)"),
        (0.044715, "(8943 / 200000 : ℝ)"),
    ],
)
def test_lean_real(value: float, text: str) -> None:
    assert lean_real(value) == text


def test_unsupported_cases_name_the_node() -> None:
    span = Span("ref.py", 7, 3, 7, 9)
    b = _Builder("bad", ("n",))
    x = b.input("x", ("n",))
    b.node("div", SpecOp.DIV, x, 0.0)
    g = b.graph(Ref("div"))
    g = SpecGraph(g.name, g.symbols, g.inputs, g.params, (SpecNode(*_fields(g.nodes[0]), span=span),), g.outputs)
    with pytest.raises(UnsupportedError) as err:
        lower_spec(g, ("n",))
    assert err.value.span == span and "division by the constant zero" in str(err.value)

    b = _Builder("inf", ("n",))
    b.node("add", SpecOp.ADD, b.input("x", ("n",)), float("inf"))
    with pytest.raises(UnsupportedError, match="no real value"):
        lower_spec(b.graph(Ref("add")), ("n",))
    with pytest.raises(UnsupportedError):
        lower_spec(_saxpy(), ())  # the graph's symbol n is not in the signature
    with pytest.raises(UnsupportedError):
        lower_spec(_saxpy(), ("n",), prefix="1bad")


def _fields(node: SpecNode) -> tuple[Any, ...]:
    return (node.name, node.op, node.args, node.attrs, node.type)


# The Lean linter --------------------------------------------------------------------------------------


def _lint(*files: Path) -> list[str]:
    """Run the linter (which must find no errors) and return its warnings, except those about the module
    names of ``import`` lines (the linter reads ``import Larkc.Torch`` as a use of a name)."""
    if not LINT.exists() or not SHARED_NAMES.exists():
        pytest.skip(f"the Lean linter {LINT} or its name list is absent")
    cmd = [sys.executable, str(LINT), "--names", str(SHARED_NAMES), "--names", str(SPEC_NAMES), *map(str, files)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warnings = []
    for line in proc.stdout.splitlines():
        m = re.match(r"(.+):(\d+): warning: ", line)
        if m is None:
            continue
        source = Path(m.group(1)).read_text(encoding="utf-8").splitlines()[int(m.group(2)) - 1]
        if not source.startswith("import "):
            warnings.append(line)
    return warnings


def test_lean_library_lints_clean() -> None:
    assert _lint(LEAN / "Tensor.lean", LEAN / "Torch.lean") == []


def test_lowered_specs_lint_clean(tmp_path: Path) -> None:
    parts = []
    graphs = [g for g in (_traced(p) for p in TASK_FILES) if g is not None]
    graphs += [make() for make in HAND_GRAPHS.values()]
    for i, graph in enumerate(graphs):
        parts.append(lower_spec(graph, graph.symbols, prefix=f"s{i}").definitions)
    test_file = tmp_path / "Test.lean"
    test_file.write_text(
        "import Larkc.Torch\n\nnoncomputable section\n\nnamespace Test\n\n" + "\n".join(parts) + "\nend Test\n\nend\n",
        encoding="utf-8",
    )
    assert _lint(LEAN / "Tensor.lean", LEAN / "Torch.lean", test_file) == []
