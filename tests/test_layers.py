"""The import direction between larkc's layers (``docs/architecture.md``, "Layers").

Bottom to top: base modules, stage packages, the pipeline, the command line and the public facade.
Base modules import only base modules; a stage imports base modules and itself, never another stage,
the pipeline or the command line; the pipeline imports base modules and stages; the top imports
anything. Every import of a ``larkc`` module counts, wherever it stands (module level, inside a
function, under ``TYPE_CHECKING``); imports through a table of module names (the CLI's ``COMMANDS``,
the facade's lazy names) are made by the top layer, which may import anything.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


class Layer(enum.Enum):
    """The layers, bottom to top."""

    BASE = "base"  # shared data structures and helpers every stage may use
    STAGE = "stage"  # one step of the pipeline; knows base modules and itself only
    PIPELINE = "pipeline"  # orchestration: connects the stages
    TOP = "top"  # the command line and the public facade (larkc/__init__.py)


#: Each part of larkc and its layer. A module belongs to the longest entry that is its name or a
#: package above it, except ``larkc`` itself (the facade), which is only its own ``__init__.py``.
PARTS: dict[str, Layer] = {
    "larkc": Layer.TOP,
    "larkc.errors": Layer.BASE,
    "larkc._resources": Layer.BASE,
    "larkc.dtypes": Layer.BASE,
    "larkc.ir": Layer.BASE,
    "larkc.tasks": Layer.BASE,
    "larkc.symbolic": Layer.BASE,
    "larkc.reference.spec": Layer.BASE,  # the spec IR, shared by the reference frontend and its consumers
    "larkc.frontends": Layer.STAGE,
    "larkc.reference": Layer.STAGE,
    "larkc.semantics": Layer.STAGE,
    "larkc.provers": Layer.STAGE,
    "larkc.lower": Layer.STAGE,
    "larkc.pipeline": Layer.PIPELINE,
    "larkc.agent": Layer.PIPELINE,  # the agent prover: calls the pipeline and the provers (issue 24)
    "larkc.cli": Layer.TOP,
    "larkc.mcp": Layer.TOP,  # the MCP server: the command line's tools over the protocol
}

#: Imports against the layers that are known and waiting for a fix: (importer, imported) -> why it is
#: there and how it goes away. An entry that no longer occurs fails the test, so that it is removed.
KNOWN: dict[tuple[str, str], str] = {
    ("larkc.reference.spec", "larkc.reference.shapes"): (
        "the spec IR prints shape expressions with reference.shapes.fmt/fmt_shape and verifies with its "
        "sympy algebra (assuming, same_shape): move the printing below (tasks.shape_expr) and verify() "
        "into the reference stage"
    ),
    ("larkc.reference.spec", "larkc.reference.rules"): (
        "SpecGraph.verify checks types with the reference's rules (infer_type): move verify() into the reference stage"
    ),
}


@dataclass(frozen=True, slots=True)
class Import:
    """One import of a larkc module: where it stands and the module it names."""

    file: Path
    line: int
    importer: str
    imported: str


@dataclass(frozen=True, slots=True)
class Violation:
    """An import against the direction of the layers."""

    imp: Import
    reason: str

    def render(self, root: Path) -> str:
        where = self.imp.file.relative_to(root)
        return f"{where}:{self.imp.line}: {self.imp.importer} imports {self.imp.imported}: {self.reason}"


def module_name(root: Path, file: Path) -> str:
    """The dotted name of the module in ``file`` under the source root (a package is its ``__init__``)."""
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str | None:
    """The entry of :data:`PARTS` that ``module`` belongs to, or ``None`` if none does."""
    if module == "larkc":
        return module
    candidates = [p for p in PARTS if p != "larkc" and (module == p or module.startswith(p + "."))]
    return max(candidates, key=len, default=None)


def _imports(root: Path, file: Path, modules: set[str]) -> Iterator[Import]:
    importer = module_name(root, file)
    package = importer if file.name == "__init__.py" else importer.rpartition(".")[0]
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    for node in ast.walk(tree):
        match node:
            case ast.Import(names=names):
                for alias in names:
                    if alias.name.split(".")[0] == "larkc":
                        yield Import(file, node.lineno, importer, alias.name)
            case ast.ImportFrom(module=mod, names=names, level=level):
                if level:
                    base = package.split(".")[: len(package.split(".")) - (level - 1)]
                    mod = ".".join([*base, *([mod] if mod else [])])
                if mod is None or mod.split(".")[0] != "larkc":
                    continue
                for alias in names:  # `from larkc.x import y` names module larkc.x.y if there is one
                    sub = f"{mod}.{alias.name}"
                    yield Import(file, node.lineno, importer, sub if sub in modules else mod)


def _reason(importer: str, imported: str) -> str | None:
    """Why importing ``imported`` from ``importer`` goes against the layers (None: it does not)."""
    src, dst = part_of(importer), part_of(imported)
    if src is None:
        return f"{importer} is in no layer (add it to PARTS in tests/test_layers.py)"
    if dst is None:
        return f"{imported} is in no layer (add it to PARTS in tests/test_layers.py)"
    have, want = PARTS[src], PARTS[dst]
    match have:
        case Layer.BASE:
            ok = want is Layer.BASE
        case Layer.STAGE:
            ok = want is Layer.BASE or dst == src
        case Layer.PIPELINE:
            ok = want is not Layer.TOP
        case Layer.TOP:
            ok = True
    if ok:
        return None
    return f"a {have.value} module ({src}) may not import a {want.value} module ({dst})"


def layer_violations(root: Path) -> list[Violation]:
    """Every import of a larkc module under ``root`` (a folder holding ``larkc/``) against the layers."""
    files = sorted((root / "larkc").rglob("*.py"))
    modules = {module_name(root, f) for f in files}
    out = []
    for f in files:
        for imp in dict.fromkeys(_imports(root, f, modules)):
            reason = _reason(imp.importer, imp.imported)
            if reason is not None:
                out.append(Violation(imp, reason))
    return sorted(out, key=lambda v: (v.imp.file, v.imp.line, v.imp.imported))


def test_imports_follow_the_layers() -> None:
    violations = [v for v in layer_violations(SRC) if (v.imp.importer, v.imp.imported) not in KNOWN]
    assert not violations, "imports against the layers:\n" + "\n".join(v.render(SRC) for v in violations)


def test_known_violations_still_occur() -> None:
    found = {(v.imp.importer, v.imp.imported) for v in layer_violations(SRC)}
    assert [k for k in KNOWN if k not in found] == [], "fixed: remove these from KNOWN"


def test_every_package_is_in_a_layer() -> None:
    packages = {module_name(SRC, p.parent) for p in (SRC / "larkc").glob("*/__init__.py")}
    modules = {module_name(SRC, p) for p in (SRC / "larkc").glob("*.py")}
    assert [m for m in sorted(packages | modules) if part_of(m) is None] == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_finds_each_kind_of_violation(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "larkc/__init__.py": "from larkc.errors import E\n",
            "larkc/errors.py": "",
            "larkc/ir/__init__.py": "from larkc import errors\nimport larkc.semantics\n",
            "larkc/reference/__init__.py": "",
            "larkc/reference/shapes.py": "",
            "larkc/reference/spec.py": "from .shapes import x\nfrom . import shapes\n",
            "larkc/reference/trace.py": "from larkc.reference.spec import S\nfrom .shapes import x\n",
            "larkc/semantics/__init__.py": "from larkc.semantics.run import f\n",
            "larkc/semantics/run.py": (
                "from typing import TYPE_CHECKING\n"
                "from larkc.ir import Module\n"
                "if TYPE_CHECKING:\n"
                "    from larkc.frontends import parse\n"
                "def f():\n"
                "    from larkc.reference import trace\n"
                "    import larkc\n"
            ),
            "larkc/frontends/__init__.py": "",
            "larkc/pipeline/__init__.py": "from larkc.semantics import f\nfrom larkc.cli import main\n",
            "larkc/cli/__init__.py": "import larkc.pipeline\nfrom larkc import semantics\n",
            "larkc/extra.py": "from larkc.errors import E\n",
        },
    )
    found = [(str(v.imp.file.relative_to(tmp_path)), v.imp.line, v.imp.imported) for v in layer_violations(tmp_path)]
    assert found == [
        ("larkc/extra.py", 1, "larkc.errors"),  # a module in no layer
        ("larkc/ir/__init__.py", 2, "larkc.semantics"),  # base -> stage
        ("larkc/pipeline/__init__.py", 2, "larkc.cli"),  # pipeline -> top
        ("larkc/reference/spec.py", 1, "larkc.reference.shapes"),  # base -> stage, relative
        ("larkc/reference/spec.py", 2, "larkc.reference.shapes"),  # `from . import shapes`
        ("larkc/semantics/run.py", 4, "larkc.frontends"),  # stage -> stage, under TYPE_CHECKING
        ("larkc/semantics/run.py", 6, "larkc.reference.trace"),  # stage -> stage, in a function
        ("larkc/semantics/run.py", 7, "larkc"),  # stage -> the facade
    ]
    rendered = layer_violations(tmp_path)[1].render(tmp_path)
    assert rendered == (
        "larkc/ir/__init__.py:2: larkc.ir imports larkc.semantics: "
        "a base module (larkc.ir) may not import a stage module (larkc.semantics)"
    )


@pytest.mark.parametrize(
    ("module", "part"),
    [
        ("larkc", "larkc"),
        ("larkc.reference.spec", "larkc.reference.spec"),
        ("larkc.reference.trace", "larkc.reference"),
        ("larkc.cli.run", "larkc.cli"),
        ("larkc.ir.nodes", "larkc.ir"),
        ("larkc.irx", None),
        ("larkc.unknown.mod", None),
    ],
)
def test_part_of(module: str, part: str | None) -> None:
    assert part_of(module) == part


# -- inside the CUDA frontend ------------------------------------------------------------------------


class CudaPart(enum.Enum):
    """The parts of the CUDA frontend (``docs/architecture.md``), bottom to top."""

    SHARED = "shared"  # the preprocessor, the header finder, the device library's tables, tree helpers
    SEMA = "sema"  # C++ semantic analysis: declarations, types, templates, overloads, constants
    LOWERING = "lowering"  # function bodies to IR (lower.py and its concerns in lowering/)
    DRIVER = "driver"  # the package's __init__: parses a file, asks the unit for its kernels


#: Each module of the CUDA frontend and its part (the longest entry that is its name or a package above it).
CUDA_PARTS: dict[str, CudaPart] = {
    "larkc.frontends.cuda": CudaPart.DRIVER,
    "larkc.frontends.cuda.preprocess": CudaPart.SHARED,
    "larkc.frontends.cuda.headers": CudaPart.SHARED,
    "larkc.frontends.cuda.builtins": CudaPart.SHARED,
    "larkc.frontends.cuda.syntax": CudaPart.SHARED,
    "larkc.frontends.cuda.sema": CudaPart.SEMA,
    "larkc.frontends.cuda.lower": CudaPart.LOWERING,
    "larkc.frontends.cuda.lowering": CudaPart.LOWERING,
}

#: What each part may import of the frontend: a part below it, or itself. The lowering imports the
#: semantic analysis and never the other way (the unit gets the lowering from the driver, as a
#: FunctionLowerer): the cycle unit -> lower -> lowering -> unit is gone and stays gone.
CUDA_MAY_IMPORT: dict[CudaPart, frozenset[CudaPart]] = {
    CudaPart.SHARED: frozenset({CudaPart.SHARED}),
    CudaPart.SEMA: frozenset({CudaPart.SHARED, CudaPart.SEMA}),
    CudaPart.LOWERING: frozenset({CudaPart.SHARED, CudaPart.SEMA, CudaPart.LOWERING}),
    CudaPart.DRIVER: frozenset(CudaPart),
}


def cuda_part_of(module: str) -> CudaPart | None:
    """The part of the CUDA frontend ``module`` is in; ``None`` outside the frontend or in no part."""
    if module == "larkc.frontends.cuda":
        return CudaPart.DRIVER
    candidates = [p for p in CUDA_PARTS if p != "larkc.frontends.cuda" and (module == p or module.startswith(p + "."))]
    best = max(candidates, key=len, default=None)
    return None if best is None else CUDA_PARTS[best]


def cuda_violations(root: Path) -> list[Violation]:
    """Every import inside the CUDA frontend under ``root`` against :data:`CUDA_MAY_IMPORT`, and every
    module of it in no part."""
    package = root / "larkc" / "frontends" / "cuda"
    files = sorted(package.rglob("*.py"))
    modules = {module_name(root, f) for f in sorted((root / "larkc").rglob("*.py"))}
    out = []
    for f in files:
        for imp in dict.fromkeys(_imports(root, f, modules)):
            if not (imp.imported == "larkc.frontends.cuda" or imp.imported.startswith("larkc.frontends.cuda.")):
                continue
            src, dst = cuda_part_of(imp.importer), cuda_part_of(imp.imported)
            if src is None or dst is None:
                missing = imp.importer if src is None else imp.imported
                out.append(Violation(imp, f"{missing} is in no part of the CUDA frontend (add it to CUDA_PARTS)"))
            elif dst not in CUDA_MAY_IMPORT[src]:
                out.append(Violation(imp, f"the {src.value} part may not import the {dst.value} part"))
    return sorted(out, key=lambda v: (v.imp.file, v.imp.line, v.imp.imported))


def test_the_cuda_frontend_imports_downward() -> None:
    violations = cuda_violations(SRC)
    assert not violations, "imports against the CUDA frontend's parts:\n" + "\n".join(v.render(SRC) for v in violations)


def test_every_cuda_module_is_in_a_part() -> None:
    package = SRC / "larkc" / "frontends" / "cuda"
    assert [m for m in (module_name(SRC, f) for f in sorted(package.rglob("*.py"))) if cuda_part_of(m) is None] == []


def test_the_cuda_checker_finds_the_cycle(tmp_path: Path) -> None:
    """The cycle this test forbids: the unit importing the lowering (in a function, as it did)."""
    _write(
        tmp_path,
        {
            "larkc/__init__.py": "",
            "larkc/frontends/__init__.py": "",
            "larkc/frontends/cuda/__init__.py": "from larkc.frontends.cuda.lower import FunctionLowering\n",
            "larkc/frontends/cuda/syntax.py": "",
            "larkc/frontends/cuda/sema/__init__.py": "",
            "larkc/frontends/cuda/sema/unit.py": (
                "from larkc.frontends.cuda.syntax import node_text\n"
                "def instantiate():\n"
                "    from larkc.frontends.cuda.lower import FunctionLowering\n"
            ),
            "larkc/frontends/cuda/lower.py": "from larkc.frontends.cuda.lowering.core import Core\n",
            "larkc/frontends/cuda/lowering/__init__.py": "",
            "larkc/frontends/cuda/lowering/core.py": (
                "from larkc.frontends.cuda.sema.unit import TranslationUnit\nfrom larkc.frontends.cuda import parse\n"
            ),
            "larkc/frontends/cuda/extra.py": "",
        },
    )
    found = [(str(v.imp.file.relative_to(tmp_path)), v.imp.line, v.reason) for v in cuda_violations(tmp_path)]
    assert found == [
        ("larkc/frontends/cuda/lowering/core.py", 2, "the lowering part may not import the driver part"),
        ("larkc/frontends/cuda/sema/unit.py", 3, "the sema part may not import the lowering part"),
    ]
    assert cuda_part_of("larkc.frontends.cuda.extra") is None
