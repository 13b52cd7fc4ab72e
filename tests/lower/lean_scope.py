"""A scope check of generated Lean: every local the lowering names (``v_…``, ``p<n>``, ``q<n>``,
``k<n>``) is bound before it is used, by a parameter, a ``let`` whose indentation encloses the use,
or a ``fun`` binder. It reads the generated layout (one ``let`` per line, nested blocks indented),
which is what lets an identifier slip out of scope unnoticed until Lean runs."""

from __future__ import annotations

import re

LOCAL = re.compile(r"\b(v_\w+|p\d+|q\d+|k\d+)\b")
DEF = re.compile(r"^def (\w+)(.*):=\s*$")
LET = re.compile(r"let (\w+)( : [^:=]+)? :=(.*)$")
FUN = re.compile(r"\(fun \((\w+) : [^)]*\) \((\w+) : .*\) =>$")
LOOP_FUN = re.compile(r"\(fun \((k\d+) : ℕ\) =>")


def unbound_locals(text: str) -> list[tuple[int, str, str]]:
    """``(line, name, text)`` for each use of a generated local that no enclosing binder defines."""
    errors: list[tuple[int, str, str]] = []
    scopes: list[tuple[int, str]] | None = None
    for lineno, line in enumerate(text.split("\n"), 1):
        m = DEF.match(line)
        if m:
            scopes = [(-1, p) for p in LOCAL.findall(m.group(2))]
            continue
        if scopes is None:
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("/--") or line.startswith("end "):
            scopes = None
            continue
        if stripped.startswith("--"):
            continue
        indent = len(line) - len(line.lstrip())
        scopes = [(i, n) for (i, n) in scopes if i == -1 or indent >= i]
        names = {n for _, n in scopes}
        fun = FUN.match(stripped)
        loop = LOOP_FUN.search(stripped)
        let = LET.match(stripped)
        body = "" if fun else (let.group(3) if let else stripped)
        if loop:
            scopes.append((-1, loop.group(1)))
            names.add(loop.group(1))
        errors.extend((lineno, u, stripped[:100]) for u in LOCAL.findall(body) if u not in names)
        if let:
            scopes.append((indent, let.group(1)))
        if fun:
            scopes.append((indent + 1, fun.group(1)))
            scopes.append((indent + 1, fun.group(2)))
    return errors
