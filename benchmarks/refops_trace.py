"""Which reference implementations of serving frameworks' kernel tests larkc's reference frontend traces.

    .venv/bin/python benchmarks/refops_trace.py --root DIR [--manifest benchmarks/refops/manifest.json]

Each entry of the manifest names a repository, a commit, a file and a function in it; the file is read
from ``DIR/<repo>/<path>`` (a checkout at that commit, kept outside this repository). The function (and
the module-level helpers the entry lists) is taken from the file's syntax tree and executed on its own
(the test modules import the frameworks, which need GPUs), its non-tensor parameters bound to the entry's
``constants``, and traced with the entry's input shapes. One line per entry: ``traced`` with the spec's
ops, or the located error that stops it.
"""

from __future__ import annotations

import argparse
import ast
import json
import typing
from pathlib import Path
from typing import Any

import torch

from larkc.errors import LarkcError
from larkc.reference import trace_reference

HERE = Path(__file__).resolve().parent


def _load(root: Path, entry: dict[str, Any]) -> Any:
    path = root / entry["repo"] / entry["path"]
    tree = ast.parse(path.read_text(), filename=str(path))
    wanted = {entry["function"], *entry.get("helpers", ())}
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    module = ast.Module(body=list(defs), type_ignores=[])
    namespace: dict[str, Any] = {"torch": torch, **{k: getattr(typing, k) for k in typing.__all__}}
    exec(compile(module, str(path), "exec"), namespace)  # the function's own code, at its own lines
    fn = namespace[entry["function"]]
    constants = {
        k: (eval(v, {"torch": torch}) if isinstance(v, str) else v) for k, v in entry.get("constants", {}).items()
    }
    if not constants:
        return fn

    def bound(*tensors: Any) -> Any:
        return fn(*tensors, **constants)

    bound.__name__ = fn.__name__
    return bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, default=HERE / "refops" / "manifest.json")
    args = parser.parse_args()
    manifest = json.loads(args.manifest.read_text())
    for entry in manifest["references"]:
        where = f"{entry['repo']}@{entry['commit'][:10]} {entry['path']}::{entry['function']}"
        try:
            graph = trace_reference(_load(args.root, entry), entry["inputs"], symbols=entry["symbols"])
            ops = sorted({op.value for op in graph.ops()})
            print(f"traced  {where}: {len(graph.nodes)} nodes ({', '.join(ops)})")
        except LarkcError as e:
            print(f"error   {where}: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    main()
