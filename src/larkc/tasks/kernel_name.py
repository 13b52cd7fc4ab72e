"""Kernel names as tasks and users write them, and the one rule that finds a kernel by its name.

The frontend names a kernel by its qualified name (``vllm::act``; a kernel in an anonymous namespace by
the named namespaces around it), then, for an instance of a template, its template arguments
(``vllm::act<half, 128>``); an IR name can end in more (an overload's parameter types, ``k(f32*, i32)``).
A written name denotes a kernel when it is

* the kernel's name exactly, whitespace aside, or else
* its qualified name or a trailing part of it (``act``, ``vllm::act``; ``::vllm::act`` only as a whole),
  without template arguments (any instance) or with the instance's, compared argument by argument as
  :func:`canonical_template_arg` spells them (``act<__half, 128>`` is ``vllm::act<half, 128>``).

An exact name wins over partial ones; otherwise the name must denote exactly one kernel.
:func:`resolve_kernel` (on a module) and :func:`choose_kernel` (on names) apply the rule, and name the
kernels in their error when a name denotes none or several.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from larkc.errors import TaskError
from larkc.ir.nodes import Function, Module

__all__ = ["KernelName", "canonical_template_arg", "choose_kernel", "resolve_kernel"]

_QUALIFIED = re.compile(r"[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*")
_CLOSERS = {"<": ">", "(": ")", "[": "]", "{": "}"}

# The C, CUDA and PyTorch spellings of each scalar type (whitespace removed), by the IR type's name.
_SCALAR_SPELLINGS: Final = {
    "bool": "bool",
    "i8": "char signedchar int8_t",
    "u8": "unsignedchar uint8_t",
    "i16": "short shortint signedshort signedshortint int16_t",
    "u16": "unsignedshort unsignedshortint uint16_t",
    "i32": "int signed signedint int32_t",
    "u32": "unsigned unsignedint uint uint32_t",
    "i64": "long longint signedlong longlong longlongint signedlonglong int64_t ptrdiff_t",
    "u64": "unsignedlong unsignedlongint unsignedlonglong unsignedlonglongint uint64_t size_t",
    "f16": "half __half c10::Half at::Half",
    "bf16": "nv_bfloat16 __nv_bfloat16 c10::BFloat16 at::BFloat16",
    "f32": "float",
    "f64": "double",
    "f8e4m3": "__nv_fp8_e4m3 c10::Float8_e4m3fn at::Float8_e4m3fn",
    "f8e5m2": "__nv_fp8_e5m2",
}
_SCALAR_OF: Final = {spelling: t for t, spellings in _SCALAR_SPELLINGS.items() for spelling in spellings.split()}


@dataclass(frozen=True, slots=True)
class KernelName:
    """A kernel name split into its parts.

    ``::vllm::act<float, 128>`` has ``path`` ``("vllm", "act")``, ``template_args`` ``("float", "128")``
    (``None`` when no ``<...>`` is written) and ``rooted`` true (written with a leading ``::``). ``rest``
    is what follows the template arguments, without whitespace (an overload's ``(f32*,i32)``).
    """

    path: tuple[str, ...]
    template_args: tuple[str, ...] | None
    rest: str
    rooted: bool

    @property
    def short(self) -> str:
        """The kernel's own name, without namespaces or template arguments."""
        return self.path[-1]

    @property
    def qualified(self) -> str:
        """The namespaces and the kernel's own name: ``vllm::act``."""
        return "::".join(self.path)

    @staticmethod
    def parse(text: str) -> KernelName | None:
        """The parts of ``text``, or ``None`` if it is not a kernel name."""
        s = text.strip()
        rooted = s.startswith("::")
        if rooted:
            s = s[2:].lstrip()
        m = _QUALIFIED.match(s)
        if m is None:
            return None
        path = tuple(p.strip() for p in m.group().split("::"))
        i = m.end()
        while i < len(s) and s[i].isspace():
            i += 1
        template_args = None
        if i < len(s) and s[i] == "<":
            split = _template_args(s, i)
            if split is None:
                return None
            i, template_args = split
        rest = "".join(s[i:].split())
        if rest and rest[0] not in "([":
            return None
        return KernelName(path, template_args, rest, rooted)


def _template_args(s: str, start: int) -> tuple[int, tuple[str, ...]] | None:
    """The index after the ``<...>`` opening at ``s[start]`` and its top-level arguments, stripped.

    Brackets nest; a ``>`` inside parentheses is a comparison (``k<(A > B)>``).
    """
    stack: list[str] = []
    args: list[str] = []
    first = start + 1
    for j in range(start, len(s)):
        c = s[j]
        if c in _CLOSERS:
            stack.append(c)
        elif c in _CLOSERS.values():
            if c == ">" and stack[-1] != "<":
                continue
            if _CLOSERS[stack[-1]] != c:
                return None
            stack.pop()
            if not stack:
                args.append(s[first:j].strip())
                return j + 1, tuple(args) if args != [""] else ()
        elif c == "," and len(stack) == 1:
            args.append(s[first:j].strip())
            first = j + 1
    return None


def canonical_template_arg(text: str) -> str:
    """A template argument spelled so that spellings of one argument are equal: whitespace removed, a
    scalar type by its IR name (``__half``, ``half`` and ``c10::Half`` are ``f16``; ``unsigned int``,
    ``std::uint32_t`` and ``unsigned`` are ``u32``), ``true``/``false`` as ``1``/``0``."""
    squeezed = "".join(text.split()).removeprefix("::")
    scalar = _SCALAR_OF.get(squeezed.removeprefix("std::"))
    if scalar is not None:
        return scalar
    return {"true": "1", "false": "0"}.get(squeezed, squeezed)


def resolve_kernel(module: Module, name: str, where: str = "the module") -> Function:
    """The kernel of ``module`` that ``name`` denotes (see the module docstring); a :class:`TaskError`
    naming the kernels otherwise. ``where`` names the module in errors (its source file)."""
    kernels = module.kernels
    chosen = choose_kernel(name, [f.name for f in kernels], where)
    return next(f for f in kernels if f.name == chosen)


def choose_kernel(name: str, kernels: Sequence[str], where: str) -> str:
    """The one of ``kernels`` (names as the frontend gives them) that ``name`` denotes."""
    squeezed = _squeeze(name).removeprefix("::")
    exact = [k for k in kernels if _squeeze(k) == squeezed]
    if len(exact) == 1:
        return exact[0]
    written = KernelName.parse(name)
    if written is None:
        raise TaskError(f"invalid kernel name {name!r}: expected e.g. k, ns::k or k<float, 128>")
    matches = [k for k in kernels if (given := KernelName.parse(k)) is not None and _denotes(written, given)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise TaskError(f"no kernel {name} in {where} (kernels: {', '.join(kernels) or 'none'})")
    raise TaskError(f"kernel name {name} is ambiguous in {where}: it names {', '.join(matches)} (write one of them)")


def _denotes(written: KernelName, kernel: KernelName) -> bool:
    """Whether the name a user wrote denotes the kernel the frontend named ``kernel``."""
    n = len(written.path)
    if written.rooted and written.path != kernel.path:
        return False
    if n > len(kernel.path) or kernel.path[-n:] != written.path:
        return False
    if written.rest and written.rest != kernel.rest:
        return False
    if written.template_args is None:
        return True
    if kernel.template_args is None or len(kernel.template_args) != len(written.template_args):
        return False
    pairs = zip(written.template_args, kernel.template_args, strict=True)
    return all(canonical_template_arg(a) == canonical_template_arg(b) for a, b in pairs)


def _squeeze(text: str) -> str:
    return "".join(text.split())
