"""The CUDA C++ frontend: preprocess, parse with tree-sitter-cuda, lower to the kernel IR."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path

import tree_sitter as ts
import tree_sitter_cuda

from larkc.errors import LarkcError, SourceCache, Span, Stage, TaskError
from larkc.frontends.cuda.lower import FunctionLowering
from larkc.frontends.cuda.sema.unit import FunctionDef, SourcePositions, TemplateArg, TranslationUnit
from larkc.ir.cnumbers import parse_number
from larkc.ir.nodes import FunctionKind, Module
from larkc.tasks import KernelName, choose_kernel

__all__ = ["constant_initialisers", "cuda_kernel_names", "parse_cuda"]


#: Macros of CUDA's own headers that the frontend needs expanded (the headers themselves are not read).
_CUDA_HEADER_MACROS = {"__align__(n)": "alignas(n)", "NULL": "nullptr"}


@cache
def _language() -> ts.Language:
    return ts.Language(tree_sitter_cuda.language())


def _translation_unit(
    path: Path | None,
    text: str | None,
    file: str | None,
    defines: Mapping[str, str],
    include_dirs: Sequence[str | Path],
) -> TranslationUnit:
    from larkc.frontends.cuda.headers import cuda_include_dir
    from larkc.frontends.cuda.preprocess import preprocess

    if text is None:
        if path is None:
            raise ValueError("parse_cuda needs a path or a text")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise LarkcError(f"cannot read {path}: {e.strerror}", stage=Stage.FRONTEND) from None
        except UnicodeDecodeError:
            raise LarkcError(f"{path} is not UTF-8 text", stage=Stage.FRONTEND) from None
    name = file or (str(path) if path is not None else "<input>")
    SourceCache.register(name, text)
    pp = preprocess(
        text,
        name,
        defines={**_CUDA_HEADER_MACROS, **defines},
        include_dirs=tuple(include_dirs),
        cuda_include=cuda_include_dir(),
    )
    tu = TranslationUnit(pp.text, SourcePositions(name, pp.source_map), _language(), FunctionLowering)
    tu.skipped_headers = pp.skipped_headers
    return tu


def parse_cuda(
    path: str | Path | None = None,
    *,
    text: str | None = None,
    file: str | None = None,
    kernel: str | None = None,
    template_args: Mapping[str, str | int] | Sequence[str | int] = (),
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str | Path] = (),
) -> Module:
    """Lower a CUDA source file (or ``text``) to an IR module.

    With ``kernel``, the module holds that kernel (instantiated with ``template_args`` if it is a
    template) and the device functions it calls; without, every non-template kernel and device
    function of the file. ``kernel`` is a short or qualified name (``act``, ``vllm::act``), and may
    carry the template arguments itself (``act<float, 128>``). ``include_dirs`` are the ``-I``
    directories, searched in order. Raises :class:`~larkc.errors.LarkcError` for anything unsupported.
    """
    with _deep_recursion():
        return _parse_cuda(path, text, file, kernel, template_args, defines, include_dirs)


def constant_initialisers(
    path: str | Path, *, defines: Mapping[str, str] | None = None, include_dirs: Sequence[str | Path] = ()
) -> dict[str, Span]:
    """The file-scope ``__constant__`` variables of a CUDA file read as holding their initialiser at every
    launch (no ``cudaMemcpyToSymbol`` of the file writes them), by name, with their declarations: what a
    verdict on one of its kernels assumes (host code in another file could overwrite them)."""
    tu = _translation_unit(Path(path), None, None, defines or {}, include_dirs)
    return {
        v.name: tu.span(v.node)
        for v in tu.file_memory.values()
        if not v.shared and not v.device and not v.host_written and v.declarator.type == "init_declarator"
    }


@contextlib.contextmanager
def _deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """Long expressions (a sum of a hundred terms) nest deeply in the syntax tree: allow it while lowering."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _parse_cuda(
    path: str | Path | None,
    text: str | None,
    file: str | None,
    kernel: str | None,
    template_args: Mapping[str, str | int] | Sequence[str | int],
    defines: Mapping[str, str] | None,
    include_dirs: Sequence[str | Path],
) -> Module:
    p = Path(path) if path is not None else None
    tu = _translation_unit(p, text, file, defines or {}, include_dirs)
    if kernel is None and template_args and len(tu.kernel_names()) == 1:
        kernel = tu.kernel_names()[0]  # template arguments can only be meant for the one kernel
    if kernel is not None:
        fd, template_args = _kernel_definition(tu, kernel, template_args)
        enabled = None
        if fd.overloaded_kernel:
            enabled = tu.enabled_kernel(fd.name, _template_args(tu, template_args, fd.node))
        if enabled is not None:  # SFINAE: the one overload whose enable_if conditions hold
            tu.instantiate(*enabled, None)
            return tu.module()
        if fd.template_error is not None:
            raise fd.template_error
        env = {}
        if fd.template is not None:
            args = _template_args(tu, template_args, fd.node)
            positional = list(args) if isinstance(args, list) else []
            named = args if isinstance(args, dict) else {}
            env = tu.bind_template(fd.template, positional, named, fd.node, f"kernel {kernel}")
        elif template_args:
            raise TaskError(f"kernel {kernel} is not a template but template arguments were given")
        tu.instantiate(fd, env, None)
    else:
        for overloads in tu.functions.values():
            for f in overloads:
                # templates and functions taking cooperative groups (or their references' addresses) exist
                # only as instances
                short = f.name.rpartition("::")[2]  # `operator+`, not `operator_scale` (instances of uses only)
                operator = short.startswith("operator") and not (short[8:9].isalnum() or short[8:9] == "_")
                if f.template is None and not operator and not tu.takes_groups(f) and not tu.takes_reference_address(f):
                    tu.instantiate(f, {}, None)
        kernels = tu.kernel_names()
        if kernels and not any(f.kind is FunctionKind.KERNEL for f in tu.order):
            raise TaskError(
                f"{tu.positions.file}: every kernel is a template ({', '.join(kernels)}):"
                " name one and give its template arguments"
            )
    return tu.module()


def _kernel_definition(
    tu: TranslationUnit, kernel: str, template_args: Mapping[str, str | int] | Sequence[str | int]
) -> tuple[FunctionDef, Mapping[str, str | int] | Sequence[str | int]]:
    """The kernel that ``kernel`` names and its template arguments (given in the name or separately).

    ``kernel`` is resolved by :func:`~larkc.tasks.choose_kernel` among the (qualified) names of the
    file's kernels; ``vllm::act<float, 128>`` also gives the arguments.
    """
    written = KernelName.parse(kernel)
    if written is None:
        raise TaskError(f"invalid kernel name {kernel!r}: expected e.g. k, ns::k or k<float, 128>")
    base = ("::" if written.rooted else "") + written.qualified
    name = choose_kernel(base, tu.kernel_names(), tu.positions.file)
    if written.template_args is not None:
        if template_args:
            raise TaskError(f"kernel {kernel}: template arguments are given both in the name and separately")
        template_args = written.template_args
    fd = tu.kernel(name)
    assert fd is not None  # `name` is one of tu.kernel_names()
    return fd, template_args


def _template_args(
    tu: TranslationUnit, args: Mapping[str, str | int] | Sequence[str | int], where: object
) -> list[TemplateArg] | dict[str, TemplateArg]:
    def one(a: str | int) -> TemplateArg:
        if isinstance(a, bool):
            return int(a)
        if isinstance(a, int):
            return a
        text = str(a).strip()
        number = parse_number(text.removeprefix("-"))  # `4`, `1U`, `0x10`, `128ull`
        if number is not None and isinstance(number[0], int) and not isinstance(number[0], bool):
            return -number[0] if text.startswith("-") else number[0]
        if text in ("true", "false"):
            return int(text == "true")
        key = tu.find(text, None, tu.constants)
        if key is not None:
            return int(tu.constants[key][1])  # an enumerator or integer constant
        expr = tu.parser.parse(f"int larkc_probe = {text};".encode())
        init = (
            expr.root_node.named_children[0].child_by_field_name("declarator") if not expr.root_node.has_error else None
        )
        value = init.child_by_field_name("value") if init is not None else None
        if value is not None:
            function = tu.function_reference(value, {}, value)  # a device function for a function parameter
            if function is not None:
                return function
        sub = tu.parser.parse(f"{text} larkc_probe;".encode())
        decl = sub.root_node.named_children[0] if sub.root_node.named_children else None
        type_node = decl.child_by_field_name("type") if decl is not None else None
        if type_node is None or sub.root_node.has_error:
            raise TaskError(f"invalid template argument {text!r}")
        t = tu.resolve_type(type_node, {}, type_node)
        declarator = decl.child_by_field_name("declarator") if decl is not None else None
        if declarator is not None and declarator.type == "pointer_declarator":
            raise TaskError(f"pointer template argument {text!r} is not supported")
        return t

    def checked(a: str | int) -> TemplateArg:
        try:
            return one(a)
        except TaskError:
            raise
        except LarkcError as e:  # located in a probe text, not in the user's file: report it plainly
            raise TaskError(f"invalid template argument {a!r}: {e.message}") from None

    if isinstance(args, Mapping):
        return {k: checked(v) for k, v in args.items()}
    return [checked(a) for a in args]


def cuda_kernel_names(
    path: str | Path, *, defines: Mapping[str, str] | None = None, include_dirs: Sequence[str | Path] = ()
) -> list[str]:
    """Qualified names of the ``__global__`` functions of a CUDA file, in order."""
    tu = _translation_unit(Path(path), None, None, defines or {}, include_dirs)
    return tu.kernel_names()
