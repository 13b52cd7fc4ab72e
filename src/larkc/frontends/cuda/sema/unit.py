"""Translation units of the CUDA frontend: the top-level declarations of one preprocessed file.

A :class:`TranslationUnit` parses the preprocessed text with tree-sitter-cuda, rejects syntax errors
outside host code, and collects kernels, device functions (with overloads), templates, structs used
as packed vectors, typedefs, constants and enumerators. It resolves type names and instantiates
functions on demand through the :class:`FunctionLowerer` the driver gives it
(:class:`~larkc.frontends.cuda.lower.FunctionLowering`): the unit is the frontend's semantic analysis
and does not import the lowering, which imports it (``tests/test_layers.py`` keeps it so).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeGuard

import tree_sitter as ts

from larkc.errors import LarkcError, Span, Stage, TypeCheckError, UnsupportedError, UserSyntaxError
from larkc.frontends.cuda.headers import SkippedHeader
from larkc.frontends.cuda.sema.constant_writes import check_constant_writes
from larkc.frontends.cuda.sema.constants import fold_constant, fold_limits_call, try_resolve_type
from larkc.frontends.cuda.sema.ctypes import BUILTIN_TYPES, UNSUPPORTED_TYPES, StructInfo, vector
from larkc.frontends.cuda.sema.groups import GROUP_PARAM, Group
from larkc.frontends.cuda.syntax import misread_comma, node_text, takes_address, type_words
from larkc.ir.nodes import Function, FunctionKind, Module, Param
from larkc.ir.types import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    VOID,
    AddressSpace,
    PointerType,
    ScalarType,
    Type,
    VectorType,
    size_of,
)
from larkc.ir.values import convert_value, wrap_int

__all__ = [
    "FunctionDef",
    "FunctionRef",
    "SourcePositions",
    "TemplateArg",
    "TemplateEnv",
    "TemplateParam",
    "TranslationUnit",
    "is_type_arg",
]


@dataclass(frozen=True, slots=True)
class FunctionRef:
    """A function used as a template argument (``template <float (*F)(float)>``): name and its own arguments."""

    name: str
    targs: tuple[TemplateArg, ...] = ()

    def __str__(self) -> str:
        return self.name + (f"<{', '.join(_targ_str(a) for a in self.targs)}>" if self.targs else "")


#: What a template environment binds: types, integers, functions, and (for parameters of type
#: ``cg::thread_block`` or a tile, under GROUP_PARAM names) cooperative groups.
TemplateArg = Type | int | FunctionRef | Group
TemplateEnv = dict[str, TemplateArg]


class SourceMapLike(Protocol):
    def span_of_points(self, start: tuple[int, int], end: tuple[int, int]) -> Span: ...


class SourcePositions:
    """Maps tree-sitter positions in the preprocessed text to spans of the original source."""

    def __init__(self, file: str, source_map: SourceMapLike | None) -> None:
        self.file = file
        self.source_map = source_map

    def span(self, node: ts.Node) -> Span:
        start = (node.start_point.row, node.start_point.column)
        end = (node.end_point.row, node.end_point.column)
        if self.source_map is not None:
            return self.source_map.span_of_points(start, end)
        return Span(self.file, start[0] + 1, start[1] + 1, end[0] + 1, end[1] + 1)


# --------------------------------------------------------------------------------------------------
# Top-level declarations


@dataclass(frozen=True, slots=True)
class TemplateParam:
    name: str
    is_type: bool
    value_type: ScalarType | None  # for non-type integer parameters
    default: ts.Node | None
    is_function: bool = False  # a function-pointer parameter, bound to a FunctionRef
    #: an unnamed `std::enable_if_t<cond, int> = 0` parameter: no value, only a condition the arguments
    #: must meet (SFINAE: an overload whose condition is false is not a candidate)
    condition: ts.Node | None = None


@dataclass(slots=True)
class FunctionDef:
    """A kernel or device function definition, possibly a template or an explicit specialization."""

    name: str
    node: ts.Node  # the function_definition
    kind: FunctionKind
    template: tuple[TemplateParam, ...] | None  # None when not a template
    template_error: LarkcError | None = None  # a template parameter list larkc cannot read (raised on use)
    specialization: ts.Node | None = None  # the template_argument_list of `template <> f<int>(...)`
    owner: StructInfo | None = None  # for a member function: its struct (a `this` parameter comes first)
    static_method: bool = False  # a member function without `this`
    #: one of several kernels of one name (its template_error says so): usable when the task's template
    #: arguments meet the enable_if conditions of this one alone (see TranslationUnit.enabled_kernel)
    overloaded_kernel: bool = False
    #: for a member function of a struct with members of different types: the struct (each member comes
    #: first as a by-value parameter ``this.member``)
    object_owner: ObjectStruct | None = None


#: Prefix of the environment entries that mark a function instance's pointer parameter (by its IR index)
#: as given the address of a caller's local (``stochastic_rounding(x, &packed[k], seed)``).
LOCAL_POINTER = "&local:"

#: Prefix of the environment entries that mark a function instance's reference parameter (by its IR index)
#: as bound to memory whose address the callee takes (``atomicExch(&ref, 0)`` with ``ref`` a ``__shared__``
#: scalar of the caller): the parameter is that address, the value the index of its ``AddressSpace``.
MEMORY_REF = "&memory:"


@dataclass(frozen=True, slots=True)
class ObjectStruct:
    """A struct whose members have different types, pointers among them (exllamav2's ``MatrixView_half``:
    ``const half* data; const int height; const int width;``), used as a local object: each member is a
    variable of its own, its constructor's member initializers set them, its member functions read them."""

    name: str
    members: dict[str, Type]  # in declaration order, as declared (pointers generic)
    methods: dict[str, list[ts.Node]]  # member function definitions by name (constructors: the struct's name)
    env: dict[str, object]  # template arguments of a struct template instance


@dataclass(frozen=True, slots=True)
class FileScopeVariable:
    """A file-scope ``__constant__ float table[64] = {...};`` or ``__shared__ float buf[256];``."""

    name: str
    shared: bool
    type_node: ts.Node
    declarator: ts.Node  # the init_declarator (or plain declarator) of the variable
    node: ts.Node  # the whole declaration
    #: a `__constant__` array the host writes (`cudaMemcpyToSymbol`) or leaves without an initialiser: its
    #: contents are an input of each kernel that reads it (a read-only buffer parameter of its name)
    host_written: bool = False
    #: a `__device__` variable: global memory every block shares, whose contents at a launch (the
    #: initialiser only before the first) are an input of each kernel that uses it (a buffer parameter)
    device: bool = False


@dataclass(frozen=True, slots=True)
class OutOfClassMethod:
    """A member function defined outside its struct (``template <...> R S<T, N>::m(...) {...}``)."""

    name: str
    node: ts.Node  # the function_definition
    template: tuple[TemplateParam, ...] | None  # the template header it is defined under
    scope_args: ts.Node | None  # the template_argument_list of `S<T, N>::`, if any


@dataclass(frozen=True, slots=True)
class UnionInfo:
    """A union used for type punning (exllamav2's ``half2_uint32``): its members are scalars or vectors of one
    size, held as the bits of the first; reading another member reinterprets them (a bitcast)."""

    name: str
    storage: ScalarType | VectorType  # the first member's type: how a value of the union is held
    members: dict[str, ScalarType | VectorType]
    #: `U(half2 v) : as_half2(v) {}`: the member each constructor sets, by its parameter's type; empty
    #: without constructors (then `U u{x}` sets the first member, as in C)
    constructors: dict[ScalarType | VectorType, str]
    #: `U() : as_uint32(0) {}`: the member the default constructor sets and the constant it sets it to
    default: tuple[str, bool | int | float] | None = None


@dataclass(frozen=True, slots=True)
class LocalDirectives:
    """What ``namespace a = b;``, ``using namespace n;`` and ``using n::f;`` in function bodies bring into view."""

    aliases: dict[str, str]  # alias -> namespace
    namespaces: list[str]  # used namespaces, innermost first
    names: dict[str, str]  # short name -> qualified name


#: The standard library's tag types (a value of one carries no data, only its type).
_TAG_TYPE = re.compile(r"(::)?(std::)?((integral_constant|bool_constant)<.*>|true_type|false_type)")

#: Where a block-scope namespace alias or using declaration may start (checked against the tree).
_LOCAL_DIRECTIVE = re.compile(rb"\bnamespace\s+\w+\s*=|\busing\b")


@dataclass(slots=True)
class StructDef:
    name: str
    node: ts.Node  # the struct_specifier (with a body)
    template: tuple[TemplateParam, ...] | None
    template_error: LarkcError | None = None


@dataclass(frozen=True, slots=True)
class PatternParam:
    """A template parameter in the argument pattern of a partial specialization (``N`` in ``vec_t<half, N>``)."""

    name: str


#: The argument list of a struct template's definition, one item per argument: a parameter of the definition
#: (which any argument matches) or a fixed argument (which only an equal one matches). The primary
#: template's pattern is its parameters.
Pattern = tuple[PatternParam | TemplateArg, ...]


@dataclass(frozen=True, slots=True)
class PartialSpecialization:
    """``template <size_t N> struct vec_t<half, N> {...}``: the definition (its template is the partial
    specialization's own parameters) and its argument list as written."""

    definition: StructDef
    args: ts.Node  # the template_argument_list `<half, N>`


@dataclass(frozen=True, slots=True)
class StructChoice:
    """The definition C++ uses for one instance of a struct (see :meth:`TranslationUnit.struct_definition`)."""

    definition: StructDef
    env: TemplateEnv  # the definition's template parameters bound for the instance
    explicit: bool  # an explicit specialization (`template <> struct vec_t<float, 1>`)
    pattern: Pattern | None  # the primary template's or the partial specialization's; None when not a template
    args: tuple[TemplateArg, ...] = ()  # an explicit specialization's arguments (the primary's defaults included)


#: Top-level nodes that do not affect device code.
#: cub's algorithm enums for its block reductions and scans, enumerators in cub's order (their values as
#: cub/block/block_{reduce,scan}.cuh declare them), usable as template arguments and parameters' types;
#: every algorithm computes the collective's documented result (lowering/cub.py), so any one is accepted
CUB_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "BlockReduceAlgorithm": (
        "BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY",
        "BLOCK_REDUCE_RAKING",
        "BLOCK_REDUCE_WARP_REDUCTIONS",
    ),
    "BlockScanAlgorithm": ("BLOCK_SCAN_RAKING", "BLOCK_SCAN_RAKING_MEMOIZE", "BLOCK_SCAN_WARP_SCANS"),
}

#: Why textures and surfaces are refused: their reads go through the texture unit (filtering, addressing
#: modes, normalised coordinates) and the host binds them; larkc models neither.
TEXTURES_UNMODELLED = "larkc does not model textures or surfaces"
_TEXTURE_NAME = re.compile(
    r"cudaTextureObject_t|cudaSurfaceObject_t|texture(<.*>)?|surface(<.*>)?"
    r"|(tex|surf)(1D|2D|3D|Cubemap)\w*|tex2Dgather|tex[123]D(Lod|Grad)\w*|texCubemap\w*"
)


def is_texture_name(name: str) -> bool:
    """Whether ``name`` is a texture or surface type (``cudaTextureObject_t``, ``texture<float, 1>``) or a
    texture or surface function (``tex1Dfetch``, ``tex2D``, ``surf2Dwrite``)."""
    return _TEXTURE_NAME.fullmatch(name) is not None


_IGNORED_TOP_LEVEL = (
    "preproc_call",
    "comment",
    "using_declaration",
    "static_assert_declaration",
    "empty_declaration",
    "template_instantiation",  # `template void f<float>(...);`: instantiates on the host compiler's side only
)


class FunctionLowerer(Protocol):
    """What the unit asks of the lowering of one function (``lower.FunctionLowering`` is one)."""

    def lower(self) -> Function:
        """The function's IR (checked by the IR verifier)."""
        ...

    def function_declarator(self) -> ts.Node:
        """The function's declarator (name and parameters)."""
        ...

    def lower_params(self, decl: ts.Node) -> list[Param]:
        """The IR parameters of the declarator ``decl``."""
        ...

    def parameter_nodes(self, fn: ts.Node) -> list[ts.Node]:
        """The parameter declarations of the function definition ``fn``."""
        ...

    def is_group_type(self, type_node: ts.Node) -> bool:
        """Whether ``type_node`` names a cooperative group type."""
        ...


#: Makes the lowering of one function: the unit, the definition, its template environment, its IR name.
LowererFactory = Callable[["TranslationUnit", "FunctionDef", TemplateEnv, str], FunctionLowerer]


class TranslationUnit:
    """The top-level declarations of one preprocessed CUDA file, and the functions lowered from it."""

    def __init__(self, text: str, positions: SourcePositions, language: ts.Language, lowerer: LowererFactory) -> None:
        self.lowerer = lowerer  # the lowering of a function body, given by the driver (no import of it here)
        self.positions = positions
        self.parser = ts.Parser(language)
        self.source = text.encode("utf-8")  # the preprocessed text the tree's byte offsets index
        self.tree = self.parser.parse(self.source)
        self.functions: dict[str, list[FunctionDef]] = {}  # overloads in declaration order
        self.host_functions: set[str] = set()
        self.user_operators: set[str] = set()  # operators the file overloads for device code ("+", "*=")
        self.unsupported_globals: dict[str, tuple[str, ts.Node]] = {}  # name -> (construct, declaration)
        #: the headers of the machine larkc skipped (``Preprocessed.skipped_headers``): a name only one of
        #: them declares is an error naming it (:meth:`skipped_header_of`)
        self.skipped_headers: tuple[SkippedHeader, ...] = ()
        self.namespace_aliases: dict[str, str] = {}  # `namespace cg = cooperative_groups;`
        self.using_namespaces: list[str] = []  # `using namespace X;` at file scope
        self.specializations: dict[str, list[FunctionDef]] = {}  # explicit specializations by template name
        self.constexpr_functions: dict[str, ts.Node] = {}  # usable in constant expressions
        self.enum_types: set[str] = set()  # enum names: their values are int
        # explicit specializations of struct templates: (argument list, definition) by template name
        self.struct_specializations: dict[str, list[tuple[ts.Node | None, StructDef]]] = {}
        #: `template <size_t N> struct vec_t<half, N> {...}`: the partial specializations of struct templates, by
        #: the struct's name (chosen among by :meth:`struct_definition`)
        self.partial_specializations: dict[str, list[PartialSpecialization]] = {}
        self.structs: dict[str, StructDef] = {}
        self.out_of_class: dict[str, list[OutOfClassMethod]] = {}  # member functions defined outside, by struct
        self.member_templates: dict[int, tuple[TemplateParam, ...]] = {}  # by the definition's start byte
        #: the definition (by start byte) and template arguments of each struct used as an object, by its name
        #: and member types (see object_struct)
        self._object_instances: dict[tuple[str, tuple[Type, ...]], tuple[int, dict[str, object]]] = {}
        self.declared_functions: dict[str, ts.Node] = {}  # `__device__ float f(float);` prototypes
        self.file_memory: dict[str, FileScopeVariable] = {}  # file-scope __constant__/__shared__ variables
        self.unions: dict[str, ts.Node] = {}  # union_specifier nodes with a body, by qualified name
        self.union_infos: dict[str, UnionInfo] = {}  # by qualified name (laid out on first use)
        self.struct_infos: dict[tuple[str, tuple[TemplateArg, ...]], StructInfo] = {}
        self.vector_fields: dict[VectorType, list[StructInfo]] = {}
        self.typedefs: dict[str, ts.Node] = {}  # name -> type node (resolved lazily, may use templates)
        #: alias templates (`template <typename T> using V = ...;`): their parameters and aliased type, by name
        self.alias_templates: dict[str, tuple[tuple[TemplateParam, ...], ts.Node]] = {}
        self.constants: dict[str, tuple[ScalarType, bool | int | float]] = {}
        for enum_name, enumerators in CUB_ALGORITHMS.items():  # `template <cub::BlockScanAlgorithm A>`
            self.enum_types.add(f"cub::{enum_name}")
            for value, enumerator in enumerate(enumerators):
                self.constants[f"cub::{enumerator}"] = (I32, value)
                self.constants[f"cub::{enum_name}::{enumerator}"] = (I32, value)
        self.lowered: dict[str, Function] = {}
        self.order: list[Function] = []
        self._in_progress: set[str] = set()
        self._check_syntax(self.tree.root_node)
        self._block_directives = self._find_block_directives()
        self._collect(self.tree.root_node)

    def span(self, node: ts.Node) -> Span:
        return self.positions.span(node)

    # -- syntax -------------------------------------------------------------------------------------

    def _check_syntax(self, root: ts.Node) -> None:
        """Report the first syntax error outside host function bodies.

        Host code is not verified, and tree-sitter-cuda does not parse every C++ construct host code
        uses; an error inside a complete host function definition is therefore ignored.
        """
        if not root.has_error:
            return
        stack = [root]
        while stack:
            n = stack.pop()
            if n.is_error and n.parent is not None and misread_comma(n.parent) is not None:
                continue  # `(a = e, b)`: lowered as the comma expression it is
            if n.is_error or n.is_missing:
                if n.is_missing:
                    raise UserSyntaxError(f"syntax error: expected {n.type}", self.span(n))
                snippet = " ".join(node_text(n).split())[:40]
                raise UserSyntaxError(f"syntax error near: {snippet}", self.span(n))
            if n.type == "function_definition" and _is_host_function(n):
                continue
            if n.has_error:
                stack.extend(reversed(n.children))

    # -- collection ---------------------------------------------------------------------------------

    def _collect(self, scope: ts.Node, ns: str = "") -> None:
        for child in scope.named_children:
            self._collect_one(child, None, None, ns)

    def skipped_header_of(self, name: str) -> SkippedHeader | None:
        """The skipped header of the machine that would declare ``name`` (the last one included that
        does: the one a use of the name can come from), or ``None``."""
        short = name.rpartition("::")[2]
        return next((h for h in reversed(self.skipped_headers) if h.declares(short)), None)

    def find(self, text: str, ctx: ts.Node | None, table: Container[str]) -> str | None:
        """The key of ``table`` that the (possibly qualified) name ``text`` denotes at ``ctx``, C++-style.

        Names are stored fully qualified (``fast::act``). An unqualified or partly qualified name is
        looked up from the namespace enclosing ``ctx`` outwards, then in the namespaces of ``using
        namespace`` directives; a name starting with ``::`` only at the top. Namespace aliases apply.
        """
        text = "".join(text.split())
        if text.startswith("::"):
            key = self._unalias(text[2:], ctx)
            return key if key in table else None
        for prefix in self._scopes(ctx):
            key = self._unalias(prefix + text, ctx)
            if key in table:
                return key
        return None

    def _unalias(self, name: str, ctx: ts.Node | None = None) -> str:
        """``name`` with namespace aliases (and ``using ns::f;`` names) visible at ``ctx`` expanded."""
        local = self._local_directives(ctx)
        if name in local.names:
            name = local.names[name]
        head, sep, rest = name.partition("::")
        while sep and (head in local.aliases or head in self.namespace_aliases):
            name = local.aliases.get(head, self.namespace_aliases.get(head, head)) + "::" + rest
            head, sep, rest = name.partition("::")
        return name

    def _scopes(self, ctx: ts.Node | None) -> list[str]:
        parts = namespace_of(ctx).split("::")[:-1] if ctx is not None else []
        scopes = ["".join(f"{p}::" for p in parts[:i]) for i in range(len(parts), -1, -1)]
        local = self._local_directives(ctx).namespaces
        return scopes + [f"{u}::" for u in (*local, *self.using_namespaces)]

    def _local_directives(self, ctx: ts.Node | None) -> LocalDirectives:
        """The namespace aliases and ``using`` directives of the function bodies enclosing ``ctx``, innermost
        block first, each visible from its statement to the end of its block (as in C++)."""
        out = LocalDirectives({}, [], {})
        node = ctx
        while node is not None and self._block_directives:
            parent = node.parent
            directives = self._block_directives.get(parent.id) if parent is not None else None
            for d in directives or ():
                if d.start_byte >= node.start_byte:
                    break
                words = "".join(node_text(d).split()).rstrip(";")
                if d.type == "namespace_alias_definition":
                    alias = _namespace_alias(d)
                    if alias is not None:
                        out.aliases.setdefault(*alias)
                elif words.startswith("usingnamespace"):
                    used = "".join(node_text(d).split()[2:]).rstrip(";").removeprefix("::")
                    if used != "std":  # the device library's std names are builtins already
                        out.namespaces.append(self._unalias(used, d))
                else:  # `using ns::f;`
                    target = words.removeprefix("using").removeprefix("::")
                    out.names.setdefault(target.rpartition("::")[2], target)
            node = parent
        return out

    def _find_block_directives(self) -> dict[int, list[ts.Node]]:
        """``namespace cg = cooperative_groups;`` and ``using`` directives inside blocks, by block node id."""
        found: dict[int, list[ts.Node]] = {}
        root = self.tree.root_node
        for m in _LOCAL_DIRECTIVE.finditer(self.source):
            node: ts.Node | None = root.descendant_for_byte_range(m.start(), m.start())
            while node is not None and node.type not in ("namespace_alias_definition", "using_declaration"):
                node = node.parent
            if node is not None and node.parent is not None and node.parent.type == "compound_statement":
                found.setdefault(node.parent.id, []).append(node)
        return found

    def _collect_one(
        self, node: ts.Node, template: tuple[TemplateParam, ...] | None, template_error: LarkcError | None, ns: str
    ) -> None:
        t = node.type
        if t == "function_definition":
            self._collect_function(node, template, template_error, ns)
        elif t == "template_declaration":
            params: tuple[TemplateParam, ...] = ()
            error: LarkcError | None = None
            try:
                params = self._template_params(node)
            except LarkcError as e:  # raised only if device code instantiates this template
                error = e
            for child in node.named_children:
                if child.type != "template_parameter_list":
                    self._collect_one(child, params, error, ns)
        elif t in ("struct_specifier", "class_specifier"):
            self._collect_struct(node, template, template_error, ns)
        elif t == "union_specifier":
            self._collect_union(node, ns)
        elif t == "declaration":
            self._collect_declaration(node, template, template_error, ns)
        elif t == "type_definition":
            self._collect_typedef(node, ns)
        elif t == "alias_declaration":
            name = node_text(node.child_by_field_name("name"))
            type_node = node.child_by_field_name("type")
            assert type_node is not None
            if template:  # `template <typename T> using vec2_dtype_t = typename vec2_dtype<T>::type;`
                self.alias_templates[ns + name] = (template, type_node)
            else:
                self.typedefs[ns + name] = type_node
        elif t == "namespace_definition":
            body = node.child_by_field_name("body")
            name = node_text(node.child_by_field_name("name"))
            if body is not None:
                self._collect(body, f"{ns}{name}::" if name else ns)
        elif t == "linkage_specification":
            body = node.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                self._collect(body, ns)
            elif body is not None:
                self._collect_one(body, template, template_error, ns)
        elif t == "declaration_list":
            self._collect(node, ns)
        elif t == "namespace_alias_definition":
            alias = _namespace_alias(node)
            if alias is not None:
                self.namespace_aliases[ns + alias[0]] = alias[1]
        elif t == "using_declaration" and node_text(node).split()[:2] == ["using", "namespace"]:
            used = "".join(node_text(node).split()[2:]).rstrip(";").removeprefix("::")
            if used and used != "std":  # the device library's std names are builtins already
                self.using_namespaces.append(used)
        elif t == "enum_specifier":
            self._collect_enum(node, ns)
        elif t in _IGNORED_TOP_LEVEL or (t == "expression_statement" and node_text(node).strip() == ";"):
            return
        else:
            raise UnsupportedError(f"top-level {t.replace('_', ' ')}", node_text(node), self.span(node))

    def _template_params(self, node: ts.Node) -> tuple[TemplateParam, ...]:
        plist = node.child_by_field_name("parameters")
        assert plist is not None
        out = []
        for p in plist.named_children:
            condition = _enable_if_condition(p.child_by_field_name("default_type") or p.child_by_field_name("type"))
            unnamed = p.child_by_field_name("name") is None and p.child_by_field_name("declarator") is None
            if condition is not None and unnamed:
                out.append(TemplateParam(f"enable_if@{p.start_byte}", False, None, None, condition=condition))
                continue
            if p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                name_node = p.child_by_field_name("name")
                if name_node is None:
                    name_node = next((c for c in p.named_children if c.type == "type_identifier"), None)
                default = p.child_by_field_name("default_type")
                if name_node is None and default is not None:  # `typename = void`: never named, so unused
                    out.append(TemplateParam(f"unnamed@{p.start_byte}", True, None, default))
                    continue
                if name_node is None:
                    raise UnsupportedError("template parameter", node_text(p), self.span(p))
                out.append(TemplateParam(node_text(name_node), True, None, default))
            elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
                decl = p.child_by_field_name("declarator")
                type_node = p.child_by_field_name("type")
                default = p.child_by_field_name("default_value")
                if decl is None or type_node is None:
                    raise UnsupportedError("template parameter", node_text(p), self.span(p))
                fn_name = _function_pointer_name(decl)
                if fn_name is not None or self._is_function_pointer_typedef(type_node):
                    name = fn_name if fn_name is not None else node_text(decl)
                    out.append(TemplateParam(name, False, None, default, is_function=True))
                    continue
                if decl.type != "identifier":
                    raise UnsupportedError("template parameter", node_text(p), self.span(p))
                words = type_words(type_node)
                vt = I32 if self.find(words, p, self.enum_types) is not None else _scalar_type_name(words)
                if vt is None or not (vt.is_int or vt.is_bool):
                    raise UnsupportedError("non-integer template parameter", node_text(p), self.span(p))
                out.append(TemplateParam(node_text(decl), False, vt, default))
            else:
                raise UnsupportedError("template parameter", node_text(p), self.span(p))
        return tuple(out)

    @staticmethod
    def is_tag_type(type_node: ts.Node) -> bool:
        """Whether a type is one of the standard library's empty tag types (``std::bool_constant<B>``,
        ``std::integral_constant<int, N>``, ``std::true_type``): a value of it carries no data."""
        return _TAG_TYPE.fullmatch("".join(node_text(type_node).split())) is not None

    def _tag_parameters(self, fd: FunctionDef) -> list[str]:
        """The types of the unnamed tag parameters of ``fd`` (they tell tag-dispatched overloads apart)."""
        decl = fd.node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        plist = decl.child_by_field_name("parameters") if decl is not None else None
        return [
            "".join(node_text(t).split())
            for p in (plist.named_children if plist is not None else [])
            if p.child_by_field_name("declarator") is None
            and (t := p.child_by_field_name("type")) is not None
            and self.is_tag_type(t)
        ]

    def is_tag_value(self, node: ts.Node) -> bool:
        """``std::integral_constant<int, 4>{}`` or ``std::true_type{}``: an argument for an unnamed tag parameter."""
        type_node = node.child_by_field_name("type") if node.type == "compound_literal_expression" else None
        return type_node is not None and self.is_tag_type(type_node)

    def _is_function_pointer_typedef(self, type_node: ts.Node) -> bool:
        key = self.find(type_words(type_node), type_node, self.typedefs)
        if key is None:
            return False
        target = self.typedefs[key]
        decl = target.parent.child_by_field_name("declarator") if target.parent is not None else None
        if target.type == "type_descriptor":
            decl = target.child_by_field_name("declarator")
        return decl is not None and _function_pointer_name(decl, allow_abstract=True) is not None

    def _collect_function(
        self, node: ts.Node, template: tuple[TemplateParam, ...] | None, template_error: LarkcError | None, ns: str
    ) -> None:
        quals = {c.type for c in node.children if not c.is_named} | {
            node_text(c) for c in node.named_children if c.type in ("storage_class_specifier", "type_qualifier")
        }
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
            decl = decl.child_by_field_name("declarator") or (decl.named_children[-1] if decl.named_children else None)
        if decl is None or decl.type != "function_declarator":
            if "__global__" in quals or "__device__" in quals:
                raise UnsupportedError("function declaration", node_text(node).split("{")[0], self.span(node))
            return
        name_node = decl.child_by_field_name("declarator")
        assert name_node is not None
        name = node_text(name_node)
        returned = _enable_if_condition(node.child_by_field_name("type"))
        if template and returned is not None:
            # `template <typename T, int W> __global__ std::enable_if_t<(W > 0)> f(...)` (vLLM's
            # fused_add_rms_norm_kernel): SFINAE in the return type, a condition as an unnamed parameter's is
            template = (
                *template,
                TemplateParam(f"enable_if@{returned.start_byte}", False, None, None, condition=returned),
            )
        if "constexpr" in quals and name_node.type == "identifier":
            self.constexpr_functions.setdefault(ns + name, node)
        if "__global__" in quals:
            kind = FunctionKind.KERNEL
        elif "__device__" in quals:
            kind = FunctionKind.DEVICE
        else:
            self.host_functions.add(name)
            return  # host code is not verified; it only has to parse
        if name_node.type == "operator_name":
            # A user-defined operator: a function named `operator*` that binary operators and compound
            # assignments with a vector operand call (`color_sum * (1.0f / 16.0f)`, `sums[idx] += v` over
            # float3); other uses (unary operators) are rejected where they occur
            op = " ".join(name.split()).removeprefix("operator").strip()
            self.user_operators.add(op)
            if op not in ("[]", "()", "++", "--", "!", "~", "->", "&&", "||", ","):
                self.functions.setdefault(f"{ns}operator{op}", []).append(
                    FunctionDef(f"{ns}operator{op}", node, kind, template, template_error)
                )
            return
        specialization = None
        if name_node.type == "template_function" and template == ():
            # `template <> __device__ int f<int>(int)`: an explicit specialization of template f
            specialization = name_node.child_by_field_name("arguments")
            base = node_text(name_node.child_by_field_name("name"))
            name = self.find(base, node, self.functions) or ns + base
            self.specializations.setdefault(name, []).append(
                FunctionDef(name, node, kind, None, template_error, specialization)
            )
            return
        if name_node.type == "qualified_identifier" and self._collect_out_of_class(node, name_node, template, ns):
            return
        if name_node.type not in ("identifier", "field_identifier"):
            raise UnsupportedError("function name", name, self.span(name_node))
        name = ns + name
        overloads = self.functions.setdefault(name, [])
        if (kind is FunctionKind.KERNEL and overloads) or any(f.kind is FunctionKind.KERNEL for f in overloads):
            # SFINAE-selected kernel overloads: only an error if this kernel is the one verified
            error = UnsupportedError("overloaded __global__ function", name, self.span(name_node))
            for f in overloads:
                if f.template_error is None:
                    f.template_error, f.overloaded_kernel = error, True
            overloads.append(FunctionDef(name, node, kind, template, template_error or error))
            overloads[-1].overloaded_kernel = template_error is None
            return
        overloads.append(FunctionDef(name, node, kind, template, template_error))

    def _collect_out_of_class(
        self, node: ts.Node, name_node: ts.Node, template: tuple[TemplateParam, ...] | None, ns: str
    ) -> bool:
        """``__device__ void vec_t<T, N>::fill(T v) {...}``: a member function defined outside its struct
        (a template's, or an explicit specialization's when the arguments are constants), recorded for
        :meth:`struct_type`. ``False`` if the scope is not a struct of the file."""
        prefix = ""
        scope, inner = name_node.child_by_field_name("scope"), name_node.child_by_field_name("name")
        while inner is not None and inner.type == "qualified_identifier":
            prefix += node_text(scope) + "::"
            scope, inner = inner.child_by_field_name("scope"), inner.child_by_field_name("name")
        if scope is None or inner is None or inner.type not in ("identifier", "field_identifier", "destructor_name"):
            return False
        args = scope.child_by_field_name("arguments") if scope.type == "template_type" else None
        base = node_text(scope.child_by_field_name("name")) if scope.type == "template_type" else node_text(scope)
        key = self.find("".join((prefix + base).split()), node, self.structs)
        if key is None:
            return False
        self.out_of_class.setdefault(key, []).append(OutOfClassMethod(node_text(inner), node, template, args))
        return True

    def _collect_struct(
        self, node: ts.Node, template: tuple[TemplateParam, ...] | None, template_error: LarkcError | None, ns: str
    ) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None:
            if template and name_node is not None and name_node.type == "type_identifier":
                # `template <typename T> struct num_elems;`: a primary template defined only by its specializations
                self.structs.setdefault(ns + node_text(name_node), StructDef(ns + node_text(name_node), node, template))
            return  # a forward declaration
        if name_node is None:
            raise UnsupportedError("anonymous struct", node_text(node), self.span(node))
        if name_node.type == "template_type":
            base = node_text(name_node.child_by_field_name("name"))
            key = self.find(base, node, self.structs) or ns + base
            args_node = name_node.child_by_field_name("arguments")
            if template == () and template_error is None:  # `template <> struct S<double> {...}`: explicit
                self.struct_specializations.setdefault(key, []).append((args_node, StructDef(key, node, None)))
            elif template is not None and args_node is not None:  # `template <int N> struct S<half, N>`: partial
                partial = PartialSpecialization(StructDef(key, node, template, template_error), args_node)
                self.partial_specializations.setdefault(key, []).append(partial)
            return
        name = ns + node_text(name_node)
        self.structs[name] = StructDef(name, node, template, template_error)

    def _collect_declaration(
        self, node: ts.Node, template: tuple[TemplateParam, ...] | None, template_error: LarkcError | None, ns: str
    ) -> None:
        type_node = node.child_by_field_name("type")
        if type_node is not None and type_node.type in ("struct_specifier", "class_specifier"):
            self._collect_struct(type_node, template, template_error, ns)
        if type_node is not None and type_node.type == "enum_specifier":
            self._collect_enum(type_node, ns)
        if type_node is not None and type_node.type == "union_specifier":
            self._collect_union(type_node, ns)
        declarators = node.children_by_field_name("declarator")
        if not declarators:
            return
        specs = {node_text(c) for c in node.named_children if c.type in ("storage_class_specifier", "type_qualifier")}
        specs |= {c.type for c in node.children if not c.is_named}
        for d in declarators:
            if d.type == "function_declarator":  # a prototype
                fname = d.child_by_field_name("declarator")
                if "__device__" in specs and fname is not None and fname.type == "identifier":
                    self.declared_functions.setdefault(ns + node_text(fname), node)
                continue
            name = _declared_name(d)
            if name is not None and type_node is not None and ({"__constant__", "__shared__"} & specs):
                self._collect_memory_variable(ns + name, "__shared__" in specs, type_node, d, node)
                continue
            if (
                name is not None
                and type_node is not None
                and "__device__" in specs
                and not ({"const", "constexpr"} & specs)
            ):
                # `__device__ unsigned int retirementCount = 0;`: device memory every block shares
                self.file_memory[ns + name] = FileScopeVariable(ns + name, False, type_node, d, node, device=True)
                continue
            what = "global variable"
            if d.type == "init_declarator" and ({"const", "constexpr"} & specs) and type_node is not None:
                value = d.child_by_field_name("value")
                target = d.child_by_field_name("declarator")
                if value is not None and target is not None and target.type == "identifier":
                    limit = fold_limits_call(self, value, {}) if value.type == "call_expression" else None
                    if type_node.type == "placeholder_type_specifier" and limit is not None:
                        # `constexpr auto FP8_E4M3_MAX = std::numeric_limits<FP8_TYPE>::max();` (vLLM): of type T
                        self.constants[ns + node_text(target)] = limit
                        continue
                    vt = try_resolve_type(self, type_node, {}, node)  # None: a host type, an error only where used
                    folded = fold_constant(self, value, {}, {}) if isinstance(vt, ScalarType) else None
                    if isinstance(vt, ScalarType) and folded is not None:
                        src_t = BOOL if isinstance(folded, bool) else (I64 if isinstance(folded, int) else F64)
                        self.constants[ns + node_text(target)] = (vt, convert_value(folded, src_t, vt))
                        continue
                what = "global constant that is not a scalar constant expression"
            if name is not None:
                # Host code may declare any globals; device code that uses one is rejected at the use.
                self.unsupported_globals[name] = (what, node)

    def _collect_memory_variable(self, name: str, shared: bool, type_node: ts.Node, d: ts.Node, node: ts.Node) -> None:
        """A file-scope ``__constant__`` (read-only, initialised from its initialiser) or ``__shared__`` variable,
        declared in each kernel that uses it (see :meth:`Statements.file_scope_memory`)."""
        init = d.child_by_field_name("value") if d.type == "init_declarator" else None
        short = name.rpartition("::")[2]
        if shared:
            self.file_memory[name] = FileScopeVariable(name, True, type_node, d, node)
        elif init is None or re.search(
            rb"cudaMemcpyToSymbol(Async)?\s*\(\s*" + re.escape(short.encode()) + rb"\b", self.source
        ):
            # the host sets the contents before a launch (an initialiser is not what kernels then read)
            self.file_memory[name] = FileScopeVariable(name, False, type_node, d, node, host_written=True)
        else:
            self.file_memory[name] = FileScopeVariable(name, False, type_node, d, node)

    def _collect_typedef(self, node: ts.Node, ns: str) -> None:
        type_node = node.child_by_field_name("type")
        assert type_node is not None
        anonymous_struct = (
            type_node.type in ("struct_specifier", "class_specifier")
            and type_node.child_by_field_name("name") is None
            and type_node.child_by_field_name("body") is not None
        )
        if type_node.type in ("struct_specifier", "class_specifier") and not anonymous_struct:
            self._collect_struct(type_node, None, None, ns)
        if type_node.type == "enum_specifier":
            self._collect_enum(type_node, ns)
        if type_node.type == "union_specifier":
            self._collect_union(type_node, ns)
        for d in node.children_by_field_name("declarator"):
            if anonymous_struct and d.type == "type_identifier":
                # `typedef struct {...} T;`: the struct is named T
                self.structs[ns + node_text(d)] = StructDef(ns + node_text(d), type_node, None)
                continue
            name = _declared_name(d) if d.type not in ("type_identifier", "identifier") else node_text(d)
            if name is None:
                raise UnsupportedError("typedef", node_text(node), self.span(node))
            # plain names map to their type; pointer and function declarators are resolved on use
            self.typedefs[ns + name] = type_node if d.type in ("type_identifier", "identifier") else d

    def _collect_union(self, node: ts.Node, ns: str) -> None:
        """Record a union definition (laid out on first use, so host-only unions cost nothing)."""
        name_node = node.child_by_field_name("name")
        if node.child_by_field_name("body") is not None:
            self.unions[ns + node_text(name_node) if name_node is not None else _anonymous(node)] = node

    def union_type(self, key: str, where: ts.Node) -> ScalarType | VectorType:
        """The type a value of union ``key`` is held as (its first member's); lays the union out."""
        info = self.union_infos.get(key)
        if info is not None:
            return info.storage
        node = self.unions[key]
        body = node.child_by_field_name("body")
        assert body is not None
        members: dict[str, ScalarType | VectorType] = {}
        ctors: list[ts.Node] = []
        base_name = key.rpartition("::")[2]
        for f in body.named_children:
            if f.type in ("comment", "access_specifier"):
                continue
            if f.type == "function_definition" and _member_function_name(f, base_name) == base_name:
                ctors.append(f)
                continue
            ftype_node = f.child_by_field_name("type")
            declarators = f.children_by_field_name("declarator")
            if f.type != "field_declaration" or ftype_node is None or not declarators:
                raise UnsupportedError("union member", node_text(f), self.span(f))
            ftype = self.resolve_type(ftype_node, {}, f)
            for d in declarators:
                member_t: Type = ftype
                if d.type == "array_declarator" and isinstance(ftype, ScalarType):
                    # `float f[4]`: an array member, viewed as a vector of its elements (`u.f[i]` is a lane)
                    size_node, inner = d.child_by_field_name("size"), d.child_by_field_name("declarator")
                    count = fold_constant(self, size_node, {}, {}) if size_node is not None else None
                    if not isinstance(count, int) or isinstance(count, bool) or count < 2 or inner is None:
                        raise UnsupportedError("union array member size", node_text(f), self.span(f))
                    member_t, d = vector(ftype, count), inner
                if not isinstance(member_t, ScalarType | VectorType) or d.type != "field_identifier":
                    raise UnsupportedError(
                        "union member (a scalar, a vector or an array of scalars)", node_text(f), self.span(f)
                    )
                members[node_text(d)] = member_t
        if not members:
            raise UnsupportedError("empty union", node_text(node).split("{")[0], self.span(where))
        storage = next(iter(members.values()))
        if any(size_of(t) != size_of(storage) for t in members.values()):
            raise UnsupportedError("union with members of different sizes", key, self.span(node))
        constructors = {}
        default = None
        for ctor in ctors:
            made = self._union_constructor(ctor, members)
            if isinstance(made[0], str):
                default = made
            else:
                constructors[made[0]] = made[1]
        self.union_infos[key] = UnionInfo(key, storage, members, constructors, default)
        return storage

    def _union_constructor(
        self, ctor: ts.Node, members: Mapping[str, ScalarType | VectorType]
    ) -> tuple[ScalarType | VectorType, str] | tuple[str, bool | int | float]:
        """The parameter type and the member of a union constructor ``U(T v) : m(v) {}`` (``m`` of type ``T``),
        or the member and the constant of a default constructor ``U() : m(c) {}`` (``m`` a scalar)."""
        decl = ctor.child_by_field_name("declarator")
        params = decl.child_by_field_name("parameters") if decl is not None else None
        inits = [c for c in ctor.named_children if c.type == "field_initializer_list"]
        body = ctor.child_by_field_name("body")
        if params is not None and not params.named_children and len(inits) == 1 and body is not None:
            fields = inits[0].named_children
            if len(fields) == 1 and not body.named_children and len(fields[0].named_children) == 2:
                member_node, value_args = fields[0].named_children
                value_nodes = [a for a in value_args.named_children if a.type != "comment"]
                value = fold_constant(self, value_nodes[0], {}, {}) if len(value_nodes) == 1 else None
                set_member = node_text(member_node)
                if isinstance(members.get(set_member), ScalarType) and isinstance(value, bool | int | float):
                    return set_member, value
        if params is not None and len(params.named_children) == 1 and len(inits) == 1 and body is not None:
            p = params.named_children[0]
            ptype_node = p.child_by_field_name("type")
            fields = inits[0].named_children
            ptype = self.resolve_type(ptype_node, {}, p) if ptype_node is not None else None
            if len(fields) == 1 and not body.named_children and len(fields[0].named_children) == 2:
                member, args = (node_text(c) for c in fields[0].named_children)
                pname = node_text(p.child_by_field_name("declarator"))
                if members.get(member) == ptype and args.strip("() ") == pname and ptype is not None:
                    return members[member], member
        raise UnsupportedError(
            "union constructor (other than U(T v) : member(v) {} and U() : member(constant) {})",
            node_text(ctor),
            self.span(ctor),
        )

    def union_of(self, type_node: ts.Node) -> UnionInfo | None:
        """The union a type node names (``half2_uint32``, a typedef of one), laid out."""
        held = try_resolve_type(self, type_node, {}, type_node)
        if held is None:
            return None
        words = type_words(type_node)
        if type_node.type == "union_specifier":  # `union U u;` or the body of `typedef union {...} U;`
            name_node = type_node.child_by_field_name("name")
            words = node_text(name_node) if name_node is not None else _anonymous(type_node)
        key = self.find(words, type_node, self.unions)
        typedef = self.find(words, type_node, self.typedefs)
        if key is None and typedef is not None and self.typedefs[typedef].type == "union_specifier":
            return self.union_of(self.typedefs[typedef])
        info = self.union_infos.get(key) if key is not None else None
        return info if info is not None and info.storage == held else None

    def union_member(self, held: Type, member: str) -> tuple[UnionInfo, ScalarType | VectorType] | None:
        """The union (laid out so far) whose values are held as ``held`` and that has ``member``."""
        for info in self.union_infos.values():
            if info.storage == held and member in info.members:
                return info, info.members[member]
        return None

    def _collect_enum(self, node: ts.Node, ns: str) -> None:
        body = node.child_by_field_name("body")
        enum_name = node_text(node.child_by_field_name("name"))
        if enum_name:
            self.enum_types.add(ns + enum_name)
        if body is None:
            return
        value = -1
        for e in body.named_children:
            if e.type != "enumerator":
                continue
            name = node_text(e.child_by_field_name("name"))
            v = e.child_by_field_name("value")
            if v is not None:
                folded = fold_constant(self, v, {}, {})
                if not isinstance(folded, int):
                    raise UnsupportedError("enumerator with a non-integer value", node_text(e), self.span(e))
                value = int(folded)
            else:
                value += 1
            # enumerators of enums and enum classes alike are int constants, also by qualified name
            self.constants[ns + name] = (I32, value)
            if enum_name:
                self.constants[f"{ns}{enum_name}::{name}"] = (I32, value)

    # -- types --------------------------------------------------------------------------------------

    def resolve_type(self, type_node: ts.Node, env: TemplateEnv, ctx: ts.Node) -> Type:
        """The IR type named by a type specifier node (``float``, ``T``, ``Vec<float, 4>``, ``float4``)."""
        t = type_node.type
        condition = _enable_if_condition(type_node)
        if condition is not None:
            # `std::enable_if_t<cond, T>` (T defaults to void) where a function returns it: a function
            # template's condition is one of its template's (see _collect_function); checked again here, so
            # that no other use (a struct's member function template) reads one whose condition is false
            if not fold_constant(self, condition, env, {}):
                text = " ".join(node_text(condition).split())
                raise UnsupportedError(f"enable_if type whose condition {text} is false here", text, self.span(ctx))
            returned = _enable_if_result(type_node)
            return VOID if returned is None else self.resolve_type(returned, env, ctx)
        if t == "type_descriptor":
            inner = type_node.child_by_field_name("type")
            assert inner is not None
            base = self.resolve_type(inner, env, ctx)
            decl = type_node.child_by_field_name("declarator")
            const = any(node_text(c) == "const" for c in type_node.named_children if c.type == "type_qualifier")
            return self.apply_abstract_declarator(base, decl, const, env)
        if t == "pointer_declarator":  # from a pointer typedef
            base_node = type_node.parent.child_by_field_name("type") if type_node.parent else None
            assert base_node is not None
            return PointerType(self.resolve_type(base_node, env, ctx), AddressSpace.GENERIC)
        if t == "placeholder_type_specifier":
            raise UnsupportedError("auto type here", node_text(type_node), self.span(type_node))
        if t == "dependent_type" and type_node.named_children:
            member = self._member_type(type_node.named_children[-1], env, ctx)
            if member is not None:
                return member  # `typename packed_as<T, 2>::type`
        if t == "qualified_identifier" and type_node.child_by_field_name("name") is not None:
            member = self._member_type(type_node, env, ctx)
            if member is not None:
                return member  # `packed_as<float, 2>::type`
            inner = type_node.child_by_field_name("name")
            prefix = node_text(type_node.child_by_field_name("scope")) + "::"
            while inner is not None and inner.type == "qualified_identifier":
                prefix += node_text(inner.child_by_field_name("scope")) + "::"
                inner = inner.child_by_field_name("name")
            if inner is not None and inner.type == "template_type":
                qualified = "".join((prefix + node_text(inner.child_by_field_name("name"))).split()).removeprefix("::")
                trait = _ACCUMULATION_TRAITS.get(qualified)
                args = inner.child_by_field_name("arguments")
                if qualified == "cuda::fast_mod_div" and args is not None:
                    return self._fast_mod_div(args, env, ctx)
                key = self.find(qualified, type_node, self.structs)
                if key is not None and args is not None:  # `fi::vec_t<float, 4>`
                    targs = tuple(self.template_argument(a, env, ctx) for a in _template_args(args))
                    return self.struct_type(key, targs, type_node)
                if trait is not None and args is not None and args.named_children:
                    arg = self.template_argument(args.named_children[0], env, ctx)
                    if isinstance(arg, ScalarType):
                        return trait(arg)
        if t == "template_type":
            name = node_text(type_node.child_by_field_name("name"))
            args_node = type_node.child_by_field_name("arguments")
            assert args_node is not None
            key = self.find(name, type_node, self.structs)
            if key is not None:
                targs = tuple(self.template_argument(a, env, ctx) for a in args_node.named_children)
                return self.struct_type(key, targs, type_node)
            alias = self.find(name, type_node, self.alias_templates)
            if alias is not None:  # `vec2_dtype_t<half>`: the aliased type with the alias's parameters bound
                params, aliased = self.alias_templates[alias]
                targs = tuple(self.template_argument(a, env, ctx) for a in _template_args(args_node))
                bound = self.bind_template(params, list(targs), {}, type_node, f"alias template {alias}")
                return self.resolve_type(aliased, bound, ctx)
            qualified = "".join(name.split()).removeprefix("::")
            if qualified == "cuda::fast_mod_div":
                return self._fast_mod_div(args_node, env, ctx)
            trait = _ACCUMULATION_TRAITS.get(qualified)
            if trait is not None and args_node.named_children:
                arg = self.template_argument(args_node.named_children[0], env, ctx)
                if isinstance(arg, ScalarType):
                    return trait(arg)
            raise UnsupportedError("template type", node_text(type_node), self.span(type_node))
        if t == "union_specifier":
            name_node = type_node.child_by_field_name("name")
            key = self.find(node_text(name_node), type_node, self.unions) if name_node is not None else None
            if name_node is None and type_node.child_by_field_name("body") is not None:
                key = _anonymous(type_node)  # `typedef union {...} U;`
            if key is None or key not in self.unions:
                raise UnsupportedError("union type", node_text(type_node).split("{")[0], self.span(type_node))
            return self.union_type(key, type_node)
        if t in ("struct_specifier", "class_specifier"):
            name_node = type_node.child_by_field_name("name")
            if name_node is None:
                raise UnsupportedError("anonymous struct", node_text(type_node), self.span(type_node))
            return self.struct_type(node_text(name_node), (), type_node)
        words = type_words(type_node)
        if is_texture_name(words.removeprefix("::")):
            raise UnsupportedError(f"texture or surface type ({TEXTURES_UNMODELLED})", words, self.span(type_node))
        if words in env:
            arg = env[words]
            if not is_type_arg(arg):
                raise TypeCheckError(f"{words} is a value, not a type", self.span(type_node), stage=Stage.FRONTEND)
            return arg
        if words in BUILTIN_TYPES:
            return BUILTIN_TYPES[words]
        key = self.find(words, type_node, self.typedefs)
        if key is not None:
            target = self.typedefs[key]
            if target.type == "pointer_declarator":
                return self.resolve_type(target, env, ctx)
            if target.type in ("function_declarator", "type_descriptor") or target.type.endswith("declarator"):
                if target.type == "type_descriptor" and target.child_by_field_name("declarator") is None:
                    return self.resolve_type(target, {}, ctx)
                raise UnsupportedError("type", node_text(type_node), self.span(type_node))
            return self.resolve_type(target, {}, ctx)
        key = self.find(words, type_node, self.structs)
        if key is not None:
            return self.struct_type(key, (), type_node)
        if self.find(words, type_node, self.enum_types) is not None:
            return I32
        key = self.find(words, type_node, self.unions)
        if key is not None:
            return self.union_type(key, type_node)
        if words == "void":
            return VOID
        raise UnsupportedError(UNSUPPORTED_TYPES.get(words, "type"), words, self.span(type_node))

    def _member_type(self, node: ts.Node, env: TemplateEnv, ctx: ts.Node) -> Type | None:
        """``S<args>::name`` where the definition of ``S<args>`` that C++ uses declares ``using name = ...;`` or
        ``typedef ... name;`` (type traits such as flashinfer's ``vec2_dtype<T>::type``): that type, with the
        definition's template parameters bound; ``None`` if ``node`` names no such member of a struct of the file."""
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        if node.type != "qualified_identifier" or scope is None or name is None or name.type != "type_identifier":
            return None
        name_node = scope.child_by_field_name("name") if scope.type == "template_type" else scope
        args = scope.child_by_field_name("arguments") if scope.type == "template_type" else None
        if name_node is None or scope.type not in ("template_type", "type_identifier", "namespace_identifier"):
            return None
        key = self.find(node_text(name_node), scope, self.structs)
        if key is None:
            return None
        targs = tuple(self.template_argument(a, env, ctx) for a in (_template_args(args) if args else []))
        choice = self.struct_definition(key, targs, scope)
        body = choice.definition.node.child_by_field_name("body")
        for f in body.named_children if body is not None else []:
            aliased = f.child_by_field_name("type")
            if f.type == "alias_declaration" and node_text(f.child_by_field_name("name")) == node_text(name):
                assert aliased is not None
                return self.resolve_type(aliased, choice.env, f)
            declarators = f.children_by_field_name("declarator") if f.type == "type_definition" else []
            if aliased is not None and any(node_text(d) == node_text(name) for d in declarators):
                return self.resolve_type(aliased, choice.env, f)  # `typedef T type;`
        return None

    def _fast_mod_div(self, args: ts.Node, env: TemplateEnv, ctx: ts.Node) -> ScalarType:
        """libcu++'s ``cuda::fast_mod_div<T[, DivisorIsNeverOne]>`` (``<cuda/cmath>``): a divisor of type ``T``
        with precomputed magic numbers, whose documented operations are exactly those of ``T`` holding the
        divisor: ``n / d`` and ``n % d`` are the quotient and remainder (floor, for ``n >= 0`` and ``d > 0``),
        ``T(d)`` the divisor. So it is modelled as ``T``, for unsigned ``T`` only: there every dividend of the
        usual arithmetic conversions' common type is non-negative, and a zero divisor is the simulator's
        division by zero. Signed ``T`` (whose negative dividends are outside the contract) is unsupported."""
        targs = [self.template_argument(a, env, ctx) for a in _template_args(args)]
        elem = targs[0] if targs else None
        if (
            not isinstance(elem, ScalarType)
            or not elem.is_int
            or elem.is_signed
            or len(targs) > 2
            or (len(targs) == 2 and (not isinstance(targs[1], int) or targs[1]))
        ):
            raise UnsupportedError(
                "cuda::fast_mod_div other than of an unsigned integer type", node_text(args), self.span(args)
            )
        return elem

    def apply_abstract_declarator(self, base: Type, decl: ts.Node | None, const: bool, env: TemplateEnv) -> Type:
        """Apply ``*``/``&`` of an abstract declarator (as in ``reinterpret_cast<const float4*>``)."""
        if decl is None:
            return base
        if decl.type == "abstract_pointer_declarator":
            inner = decl.child_by_field_name("declarator")
            restrict = any(node_text(c) == "__restrict__" for c in decl.named_children if c.type == "type_qualifier")
            ptr = PointerType(base, AddressSpace.GENERIC, const, restrict)
            return self.apply_abstract_declarator(ptr, inner, False, env)
        if decl.type == "abstract_reference_declarator":
            return base
        raise UnsupportedError("type declarator", node_text(decl), self.span(decl))

    def template_argument(
        self,
        node: ts.Node,
        env: TemplateEnv,
        ctx: ts.Node,
        consts: Mapping[str, bool | int | float] | None = None,
    ) -> TemplateArg:
        """A template argument: a type, an integer constant expression (with the local ``consts`` of the
        function it appears in) or a device function."""
        if node.type == "type_descriptor":
            inner = node.child_by_field_name("type")
            if inner is not None and node.child_by_field_name("declarator") is None:
                words = type_words(inner)
                if words in env and not is_type_arg(env[words]):
                    return env[words]
                function = self.function_reference(inner, env, ctx)
                if function is not None:
                    return function
                key = self.find(words, inner, self.constants)
                if key is not None and not (
                    words in BUILTIN_TYPES
                    or self.find(words, inner, self.typedefs) is not None
                    or self.find(words, inner, self.structs) is not None
                ):
                    return int(self.constants[key][1])
                if consts and words in consts:
                    return int(consts[words])
            try:
                return self.resolve_type(node, env, ctx)
            except LarkcError:
                # `f<g(n)>`: tree-sitter reads the call as a function type; read it as an expression
                expr = self.reparse_expression(node)
                folded_call = fold_constant(self, expr, env, consts or {}) if expr is not None else None
                if not isinstance(folded_call, int):
                    raise
                return int(folded_call)
        if node.type in ("identifier", "qualified_identifier", "template_function"):
            function = self.function_reference(node, env, ctx)
            if function is not None:
                return function
        folded = fold_constant(self, node, env, consts or {})
        if not isinstance(folded, int):  # bool is an int: `f<true>`
            raise UnsupportedError("template argument", node_text(node), self.span(node))
        return int(folded)

    def reparse_expression(self, node: ts.Node) -> ts.Node | None:
        """The text of ``node`` parsed as an expression, at the same rows and columns (so spans map)."""
        source = self.source
        row, col = node.start_point.row, node.start_point.column
        # the probe sits in the namespaces of `node`, so that names in it are looked up as there
        namespaces = [p for p in namespace_of(node).split("::") if p]
        opening = "".join(f"namespace {p} {{ " for p in namespaces).encode()
        prefix = opening + b"int larkc_z=("
        if col >= len(prefix):
            head = b"\n" * row + b" " * (col - len(prefix)) + prefix
        elif row > 0:
            head = b"\n" * (row - 1) + prefix + b"\n" + b" " * col
        else:
            return None
        tree = self.parser.parse(head + source[node.start_byte : node.end_byte] + b");" + b"}" * len(namespaces))
        if tree.root_node.has_error or not tree.root_node.named_children:
            return None
        decl = tree.root_node.named_children[0]
        while decl.type == "namespace_definition":
            body = decl.child_by_field_name("body")
            if body is None or not body.named_children:
                return None
            decl = body.named_children[0]
        declarator = decl.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if value is None or value.type != "parenthesized_expression" or not value.named_children:
            return None
        return value.named_children[0]

    def function_reference(self, node: ts.Node, env: TemplateEnv, ctx: ts.Node) -> FunctionRef | None:
        """A device function named by ``node`` (``silu``, ``ns::silu``, ``ns::silu<float>``), if it names one."""
        prefix = ""
        while node.type == "qualified_identifier":
            prefix += node_text(node.child_by_field_name("scope")) + "::"
            inner = node.child_by_field_name("name")
            if inner is None:
                return None
            node = inner
        targs: tuple[TemplateArg, ...] = ()
        if node.type in ("template_type", "template_function"):
            args = node.child_by_field_name("arguments")
            if args is not None:
                targs = tuple(self.template_argument(a, env, ctx) for a in args.named_children)
            name_node = node.child_by_field_name("name")
            if name_node is None:
                return None
            node = name_node
        text = "".join((prefix + node_text(node)).split()).removeprefix("::")
        bound = env.get(text)
        if isinstance(bound, FunctionRef) and not targs:
            return bound
        name = self.find(text, ctx, self.functions)
        if name is not None and self.functions[name][0].kind is FunctionKind.DEVICE:
            return FunctionRef(name, targs)
        return None

    def struct_type(self, name: str, targs: tuple[TemplateArg, ...], where: ts.Node) -> VectorType:
        """Lay out struct ``name`` (instantiated with ``targs``) as a packed vector type."""
        key = (name, targs)
        if key in self.struct_infos:
            return self.struct_infos[key].vector
        if name not in self.structs:
            raise UnsupportedError("struct type", name, self.span(where))
        choice = self.struct_definition(name, targs, where)
        sd, env = choice.definition, choice.env
        body = sd.node.child_by_field_name("body")
        assert body is not None
        elem: ScalarType | None = None
        lanes = 0
        fields: dict[str, tuple[int, int, bool]] = {}
        vector_arrays: dict[str, tuple[int, VectorType, int]] = {}
        constants: dict[str, tuple[ScalarType, bool | int | float]] = {}
        methods: dict[str, list[ts.Node]] = {}
        base_name = name.rpartition("::")[2]
        for f in body.named_children:
            if f.type in ("comment", "access_specifier"):
                continue
            if f.type == "static_assert_declaration":
                self._struct_static_assert(f, env, constants)
                continue
            if (
                f.type in ("function_definition", "declaration", "field_declaration")
                and f.child_by_field_name("declarator") is not None
            ):
                method = _member_function_name(f, base_name)
                if method is not None:
                    methods.setdefault(method, []).append(f)
                    continue
            member_kinds = ("function_definition", "declaration", "field_declaration")
            inner = next((c for c in f.named_children if c.type in member_kinds), None)
            if f.type == "template_declaration" and inner is not None and inner.child_by_field_name("declarator"):
                method = _member_function_name(inner, base_name)
                if method is not None:  # `template <int K> __device__ T get() const`: a member function template
                    self.member_templates[inner.start_byte] = self._template_params(f)
                    methods.setdefault(method, []).append(inner)
                    continue
            if f.type != "field_declaration":
                raise UnsupportedError("struct member", node_text(f), self.span(f))
            ftype_node = f.child_by_field_name("type")
            assert ftype_node is not None
            ftype = self.resolve_type(ftype_node, env, f)
            specs = {node_text(c) for c in f.named_children if c.type in ("storage_class_specifier", "type_qualifier")}
            if "static" in specs:
                self._struct_constant(f, ftype, env, constants)
                continue
            consts = {k: v for k, (_, v) in constants.items()}
            for d in f.children_by_field_name("declarator"):
                count, is_array, dnode = 1, False, d
                if d.type == "array_declarator":
                    size = d.child_by_field_name("size")
                    folded = fold_constant(self, size, env, consts) if size is not None else None
                    if not isinstance(folded, int) or folded <= 0:
                        raise UnsupportedError("struct array member", node_text(d), self.span(d))
                    count, is_array = folded, True
                    inner = d.child_by_field_name("declarator")
                    assert inner is not None
                    dnode = inner
                fe: ScalarType
                if isinstance(ftype, ScalarType):
                    fe = ftype
                elif isinstance(ftype, VectorType) and not is_array:
                    fe, count, is_array = ftype.elem, ftype.lanes, True
                elif isinstance(ftype, VectorType) and dnode.type == "field_identifier":
                    # `int4 data[vec_size / 8]`: the elements' lanes in order, each element several lanes
                    fe, count = ftype.elem, count * ftype.lanes
                    vector_arrays[node_text(dnode)] = (lanes, ftype, count)
                else:
                    raise UnsupportedError("struct member type", node_text(f), self.span(f))
                if elem is not None and fe != elem:
                    raise UnsupportedError("struct with members of different types", name, self.span(sd.node))
                elem = fe
                if node_text(dnode) not in vector_arrays:
                    fields[node_text(dnode)] = (lanes, count, is_array)
                lanes += count
        out_of_class_env: TemplateEnv = {}
        for m in self.out_of_class.get(name, ()):
            bound = self._out_of_class_env(m, choice)
            if bound is not None:
                methods.setdefault(m.name, []).append(m.node)
                out_of_class_env.update(bound)
        if elem is None or lanes == 0:
            raise UnsupportedError("empty struct", name, self.span(sd.node))
        align = max([elem.size, *(et.align for _, et, _ in vector_arrays.values())])  # `int4 data[N]`: 16
        for c in sd.node.named_children:
            if c.type == "alignas_qualifier" or node_text(c).startswith(("__align__", "alignas")):
                arg = c.named_children[-1] if c.named_children else None
                folded = fold_constant(self, arg, env, {}) if arg is not None else None
                if not isinstance(folded, int):
                    raise UnsupportedError("alignment", node_text(c), self.span(c))
                align = max(align, folded)
        vt = VectorType(elem, lanes, align)
        method_env: dict[str, object] = {**out_of_class_env, **env, base_name: vt}  # the injected class name
        instance = f"<{', '.join(_targ_str(a) for a in targs)}>" if targs else ""
        info = StructInfo(name, vt, fields, constants, methods, method_env, vector_arrays, instance)
        for other in self.vector_fields.get(vt, []):
            # lowering finds a struct's members by its layout and name: two instances of one template laid out
            # alike must not differ in anything else (`Op<float, 1>` and `Op<float, 2>` with `if constexpr`)
            mine = (fields, vector_arrays, constants, methods, method_env)
            theirs = (other.fields, other.vector_arrays, other.constants, other.methods, other.env)
            if other.name == name and theirs != mine:
                raise UnsupportedError(
                    "two instances of a struct template with one layout and different members or template"
                    " arguments (larkc tells struct instances apart by their layout)",
                    f"{name}<{', '.join(_targ_str(a) for a in targs)}>",
                    self.span(where),
                )
        self.struct_infos[key] = info
        self.vector_fields.setdefault(vt, []).append(info)
        return vt

    def struct_definition(self, name: str, targs: tuple[TemplateArg, ...], where: ts.Node) -> StructChoice:
        """The definition of struct ``name`` that C++ uses for the instance ``targs`` (C++ [temp.spec.partial]):
        an explicit specialization for exactly these arguments; else, among the partial specializations whose
        pattern the arguments match, the one more specialized than every other (none such: ambiguous, a located
        error); else the primary template. A partial specialization whose pattern larkc cannot match (``T*``)
        is a located error wherever it may apply, never skipped in favour of another definition."""
        sd = self.structs[name]
        special = self._struct_specialization(name, targs)
        if special is not None:  # `template <> struct vec_t<float, 4> {...}`
            return StructChoice(special, {}, True, None, targs)
        if sd.template_error is not None:
            raise sd.template_error
        if sd.template is None:
            if targs:
                raise TypeCheckError(f"struct {name} is not a template", self.span(where), stage=Stage.FRONTEND)
            return StructChoice(sd, {}, False, None)
        env = self.bind_template(sd.template, list(targs), {}, where, f"struct {name}")
        params = [p for p in sd.template if p.condition is None]
        full = tuple(env[p.name] for p in params)  # with the primary template's defaults
        if full != targs and (special := self._struct_specialization(name, full)) is not None:
            return StructChoice(special, {}, True, None, full)
        matches: list[tuple[PartialSpecialization, Pattern, TemplateEnv]] = []
        for partial in self.partial_specializations.get(name, ()):
            if _names_unmodelled_type(partial.args):
                continue  # `vec_t<__nv_fp4x2_e2m1, N>`: no argument larkc resolves is that type
            if partial.definition.template_error is not None:
                if len(_template_args(partial.args)) == len(full):
                    raise partial.definition.template_error  # its parameters are unreadable: it may apply
                continue
            pattern = self._pattern(partial.args, partial.definition, where, name)
            bound = _deduce(pattern, full)
            if bound is not None:
                matches.append((partial, pattern, bound))
        if not matches:
            primary = StructChoice(sd, env, False, tuple(PatternParam(p.name) for p in params))
            return self._defined(primary, name, full, where)
        best = [
            m
            for m in matches
            if all(
                _at_least_as_specialized(m[1], o[1]) and not _at_least_as_specialized(o[1], m[1])
                for o in matches
                if o is not m
            )
        ]
        if len(best) != 1:
            candidates = ", ".join(f"{name}<{_pattern_str(p)}>" for _, p, _ in matches)
            raise TypeCheckError(
                f"ambiguous partial specializations of {name}<{', '.join(_targ_str(a) for a in full)}>: {candidates}",
                self.span(where),
                stage=Stage.FRONTEND,
            )
        partial, pattern, bound = best[0]
        return StructChoice(partial.definition, bound, False, pattern)

    def _defined(self, choice: StructChoice, name: str, targs: tuple[TemplateArg, ...], where: ts.Node) -> StructChoice:
        """``choice`` if its definition has a body (a primary template may be only declared)."""
        if choice.definition.node.child_by_field_name("body") is None:
            instance = f"{name}<{', '.join(_targ_str(a) for a in targs)}>"
            message = f"{instance} is declared but never defined (no specialization for these arguments)"
            raise TypeCheckError(message, self.span(where), stage=Stage.FRONTEND)
        return choice

    def _pattern(self, args: ts.Node, definition: StructDef, where: ts.Node, name: str) -> Pattern:
        """The argument pattern ``args`` of a partial specialization (or of an out-of-class member's scope)
        over the template parameters of ``definition``: a parameter named alone is a :class:`PatternParam`,
        an argument naming none a fixed argument; any other use of a parameter (``T*``, ``N * 2``) is a
        located error (C++ deduces through it; larkc does not)."""
        params = {p.name for p in definition.template or ()}
        out: list[PatternParam | TemplateArg] = []
        for a in _template_args(args):
            words = "".join(node_text(a).split())
            if words in params:
                out.append(PatternParam(words))
            elif any(w in params for w in re.findall(r"\w+", words)):
                raise UnsupportedError(
                    "partial specialization argument pattern other than a parameter or a fixed argument",
                    f"{name}<{node_text(args).strip('<>')}>",
                    self.span(where),
                )
            else:
                out.append(self.template_argument(a, {}, a))
        return tuple(out)

    def _struct_specialization(self, name: str, targs: tuple[TemplateArg, ...]) -> StructDef | None:
        """The explicit specialization ``template <> struct name<targs> {...}`` of the file, if any."""
        for args_node, spec in self.struct_specializations.get(name, ()):
            if args_node is not None and _names_unmodelled_type(args_node):
                continue  # `vec_t<__nv_fp4x2_e2m1, 1>`: no argument list larkc resolves equals it
            spec_args = tuple(self.template_argument(a, {}, a) for a in args_node.named_children) if args_node else ()
            primary = self.structs.get(name)
            params = [p for p in primary.template or () if p.condition is None] if primary is not None else []
            if primary is not None and primary.template and args_node is not None and len(spec_args) < len(params):
                # `template <> struct Acc<float>` is `Acc<float, 2>` with the primary's default `int N = 2`
                bound = self.bind_template(primary.template, list(spec_args), {}, args_node, f"struct {name}")
                spec_args = tuple(bound[p.name] for p in params)
            if targs and spec_args == targs:
                return spec
        return None

    def _out_of_class_env(self, m: OutOfClassMethod, choice: StructChoice) -> TemplateEnv | None:
        """The template parameters of out-of-class member ``m`` bound for the struct instance laid out from
        ``choice``, or ``None`` if ``m`` belongs to another definition of the struct (an explicit
        specialization's, a partial specialization's, the primary template's). A templated member belongs to
        the definition whose pattern its scope's arguments spell, up to the names of the parameters."""
        args = _template_args(m.scope_args) if m.scope_args is not None else []
        if not m.template:  # `void vec_t<float, 4>::fill(float)`: only for those arguments
            if not args:
                return {} if choice.pattern is None and not choice.explicit else None  # a non-template struct's
            if m.scope_args is not None and _names_unmodelled_type(m.scope_args):
                return None  # `vec_t<__nv_fp4x2_e2m1, 1>::fill`: never the instance larkc lays out
            folded = tuple(self.template_argument(a, {}, a) for a in args)
            return {} if choice.explicit and folded == choice.args else None
        if choice.pattern is None or m.scope_args is None:
            return None  # a member of a template, not of this explicit specialization
        if _names_unmodelled_type(m.scope_args):
            return None  # `template <size_t N> vec_t<__nv_fp4x2_e2m1, N>::fill`: of a definition never laid out
        definition = StructDef(choice.definition.name, m.node, m.template)
        scope = self._pattern(m.scope_args, definition, m.node, choice.definition.name)
        renaming = _renaming(scope, choice.pattern)
        if renaming is None:
            return None
        return {mine: choice.env[theirs] for mine, theirs in renaming.items()}

    def _struct_static_assert(
        self, node: ts.Node, env: TemplateEnv, constants: Mapping[str, tuple[ScalarType, bool | int | float]]
    ) -> None:
        """``static_assert(vec_size % 8 == 0, "...")`` in a struct: a located error where it folds to false (nvcc
        rejects the instance); it has no other effect, so one larkc cannot fold is ignored."""
        cond = node.child_by_field_name("condition")
        consts = {k: v for k, (_, v) in constants.items()}
        folded = fold_constant(self, cond, env, consts) if cond is not None else None
        if cond is not None and folded is not None and not folded:
            raise TypeCheckError(f"static assertion failed: {node_text(cond)}", self.span(node), stage=Stage.FRONTEND)

    def _struct_constant(
        self,
        f: ts.Node,
        ftype: Type,
        env: TemplateEnv,
        constants: dict[str, tuple[ScalarType, bool | int | float]],
    ) -> None:
        """A ``static constexpr`` member with a constant value (``static constexpr size_t size = 4;``)."""
        for d in f.children_by_field_name("declarator"):
            value = f.child_by_field_name("default_value")
            target = d
            if d.type == "init_declarator":
                target = d.child_by_field_name("declarator") or d
                value = d.child_by_field_name("value")
            consts = {k: v for k, (_, v) in constants.items()}
            folded = fold_constant(self, value, env, consts) if value is not None else None
            if (
                not isinstance(ftype, ScalarType)
                or folded is None
                or target.type not in ("identifier", "field_identifier")
            ):
                raise UnsupportedError("static struct member that is not a scalar constant", node_text(f), self.span(f))
            src = BOOL if isinstance(folded, bool) else (I64 if isinstance(folded, int) else F64)
            constants[node_text(target)] = (ftype, convert_value(folded, src, ftype))

    def pointer_struct(self, type_node: ts.Node, env: TemplateEnv) -> dict[str, Type] | None:
        """The members of the struct ``type_node`` names if it has pointer members or members of different types
        (a kernel's parameter struct, ``struct Params { const float* q; float* out; int n; }``, flashinfer's
        ``RopeQuantizeAppendPagedKVCacheParams { uint32_t nnz; size_t stride; float scale; }``), in order; no
        members for a struct of member functions only; ``None`` for any other type."""
        name_node = type_node.child_by_field_name("name") if type_node.type == "template_type" else type_node
        key = self.find(type_words(name_node) if name_node is not None else "", type_node, self.structs)
        sd = self.structs.get(key) if key is not None else None
        body = sd.node.child_by_field_name("body") if sd is not None else None
        if key is None or sd is None or body is None or sd.template_error is not None:
            return None
        if sd.template is not None:
            args = type_node.child_by_field_name("arguments") if type_node.type == "template_type" else None
            targs = [self.template_argument(a, env, type_node) for a in (args.named_children if args else [])]
            choice = self.struct_definition(key, tuple(targs), type_node)
            env, body = choice.env, choice.definition.node.child_by_field_name("body")
            if body is None:
                return None
        members: dict[str, Type] = {}
        for f in body.named_children:
            ftype_node = f.child_by_field_name("type")
            if f.type != "field_declaration" or ftype_node is None:
                continue
            const = any(node_text(c) == "const" for c in f.named_children if c.type == "type_qualifier")
            for d in f.children_by_field_name("declarator"):
                t: Type | None = None
                if d.type == "pointer_declarator" and (inner := d.child_by_field_name("declarator")) is not None:
                    quals = {node_text(c) for c in d.named_children if c.type == "type_qualifier"}
                    pointee = self.resolve_type(ftype_node, env, f)
                    t = PointerType(pointee, AddressSpace.GENERIC, const, "__restrict__" in quals)
                    d = inner
                elif d.type == "field_identifier":
                    t = self.resolve_type(ftype_node, env, f)
                if t is None or d.type != "field_identifier":
                    return None
                members[node_text(d)] = t
        if any(isinstance(t, PointerType) for t in members.values()) or len(set(members.values())) > 1:
            return members  # members of one scalar type are laid out as a vector instead (struct_type)
        if not members and any(f.type == "function_definition" for f in body.named_children):
            return members  # only member functions (the samples' `SharedMemory<T> smem; smem.getPointer()`)
        return None

    def object_struct(self, type_node: ts.Node, env: TemplateEnv) -> ObjectStruct | None:
        """The struct ``type_node`` names if it is one with pointer members whose other members are member
        functions (an object with its own methods, :class:`ObjectStruct`); ``None`` for any other type."""
        name_node = type_node.child_by_field_name("name") if type_node.type == "template_type" else type_node
        words = type_words(name_node) if name_node is not None else ""
        key = self.find(words, type_node, self.structs) if words not in env else None
        sd = self.structs.get(key) if key is not None else None
        if key is None or sd is None or (sd.template is not None and type_node.type != "template_type"):
            return None  # not a struct, or a struct template's own name inside it (laid out as a vector)
        members = self.pointer_struct(type_node, env)
        if members is None:
            return None
        struct_env: dict[str, object] = {}
        if sd.template is not None:
            args = type_node.child_by_field_name("arguments")
            targs = [self.template_argument(a, env, type_node) for a in (args.named_children if args else [])]
            choice = self.struct_definition(key, tuple(targs), type_node)
            sd, struct_env = choice.definition, dict(choice.env)
        body = sd.node.child_by_field_name("body")
        assert body is not None
        methods: dict[str, list[ts.Node]] = {}
        for f in body.named_children:
            method = _member_function_name(f, key.rpartition("::")[2]) if f.type == "function_definition" else None
            if method is not None:
                methods.setdefault(method, []).append(f)
        if not methods:
            return None  # a plain struct of pointers (a kernel's parameter struct)
        # an object's member functions are lowered once per struct name and member types: two instances that
        # differ only in their definition or template arguments (`SharedMemory<float>` and `SharedMemory<int>`,
        # member-less) would share one body, so the second is an error
        instance = (sd.node.start_byte, struct_env)
        seen = self._object_instances.setdefault((key, tuple(members.values())), instance)
        if seen != instance:
            raise UnsupportedError(
                "two instances of a struct template with the same member types used as objects",
                node_text(type_node),
                self.span(type_node),
            )
        return ObjectStruct(key, members, methods, struct_env)

    def struct_constant(self, t: object, member: str) -> tuple[ScalarType, bool | int | float] | None:
        """The ``static constexpr`` member ``member`` of the struct laid out as ``t`` (read through an object)."""
        if not isinstance(t, VectorType):
            return None
        values = {i.constants[member] for i in self.vector_fields.get(t, []) if member in i.constants}
        return values.pop() if len(values) == 1 else None

    def static_constant(
        self, scope: ts.Node, member: str, env: TemplateEnv
    ) -> tuple[ScalarType, bool | int | float] | None:
        """``num_elems<T>::value``: the ``static constexpr`` member ``member`` of the struct ``scope`` names, read
        from the definition the instance takes (explicit, partial or primary) without laying the struct out, as
        a type trait has no data members. ``None`` if ``scope`` names no struct of the file, the member is not a
        static constant, or the definition cannot be chosen (that error is the caller's to report)."""
        name_node = scope.child_by_field_name("name") if scope.type == "template_type" else scope
        args = scope.child_by_field_name("arguments") if scope.type == "template_type" else None
        key = self.find(node_text(name_node), scope, self.structs) if name_node is not None else None
        if key is None:
            return None
        constants: dict[str, tuple[ScalarType, bool | int | float]] = {}
        try:
            targs = tuple(self.template_argument(a, env, scope) for a in (_template_args(args) if args else []))
            choice = self.struct_definition(key, targs, scope)
            body = choice.definition.node.child_by_field_name("body")
            for f in body.named_children if body is not None else []:
                type_node = f.child_by_field_name("type")
                specs = {node_text(c) for c in f.named_children if c.type == "storage_class_specifier"}
                if f.type == "field_declaration" and "static" in specs and type_node is not None:
                    self._struct_constant(f, self.resolve_type(type_node, choice.env, f), choice.env, constants)
                if member in constants:
                    return constants[member]
        except LarkcError:
            return None
        return None

    def struct_info(self, type_node: ts.Node, env: TemplateEnv, ctx: ts.Node) -> StructInfo | None:
        """The struct a type node names (``Pack<float>``, a typedef of it, ``Pack`` in its methods)."""
        vt = try_resolve_type(self, type_node, env, ctx)
        if not isinstance(vt, VectorType):
            return None
        infos = self.vector_fields.get(vt, [])
        words = type_words(type_node)
        base = node_text(type_node.child_by_field_name("name")) if type_node.type == "template_type" else words
        named = [i for i in infos if i.name.rpartition("::")[2] == base.rpartition("::")[2]]
        candidates = named or [i for i in infos if i.methods or i.constants]
        return candidates[0] if candidates else None

    def bind_template(
        self,
        params: Sequence[TemplateParam],
        args: Sequence[TemplateArg],
        named: Mapping[str, TemplateArg],
        where: ts.Node | None,
        what: str,
    ) -> TemplateEnv:
        """Bind template parameters to positional ``args`` and ``named`` ones, then to defaults."""
        span = self.span(where) if where is not None else None
        if len(args) > len(params):
            raise TypeCheckError(f"{what}: too many template arguments", span, stage=Stage.FRONTEND)
        env: TemplateEnv = {}
        conditions = [p for p in params if p.condition is not None]
        params = [p for p in params if p.condition is None]
        for p, a in zip(params, args, strict=False):
            env[p.name] = a
        for k, v in named.items():
            if k not in {p.name for p in params}:
                raise TypeCheckError(f"{what} has no template parameter {k}", span, stage=Stage.FRONTEND)
            env[k] = v
        for p in params:
            if p.name not in env:
                if p.default is None:
                    raise TypeCheckError(
                        f"{what}: no value for template parameter {p.name}", span, stage=Stage.FRONTEND
                    )
                default = p.default
                if p.is_type:  # `typename = void`: a type, not an expression
                    env[p.name] = self.resolve_type(default, env, default)
                else:
                    env[p.name] = self.template_argument(default, env, default)
            arg = env[p.name]
            if p.is_function:
                if not isinstance(arg, FunctionRef):
                    raise TypeCheckError(
                        f"{what}: template parameter {p.name} needs a device function", span, stage=Stage.FRONTEND
                    )
                continue
            if p.is_type and not is_type_arg(arg) and not isinstance(arg, Group):  # a group: `Group& g` deduced
                raise TypeCheckError(f"{what}: template parameter {p.name} needs a type", span, stage=Stage.FRONTEND)
            if not p.is_type and not isinstance(arg, int):
                raise TypeCheckError(
                    f"{what}: template parameter {p.name} needs an integer", span, stage=Stage.FRONTEND
                )
            if not p.is_type and p.value_type is not None and isinstance(arg, int):
                env[p.name] = wrap_int(arg, p.value_type) if p.value_type.is_int else int(bool(arg))
        for c in conditions:
            assert c.condition is not None
            if not fold_constant(self, c.condition, env, {}):
                text = " ".join(node_text(c.condition).split())
                raise TypeCheckError(f"{what}: enable_if condition {text} is false", span, stage=Stage.FRONTEND)
        return env

    # -- functions ----------------------------------------------------------------------------------

    def kernel_names(self) -> list[str]:
        return [n for n, fs in self.functions.items() if fs[0].kind is FunctionKind.KERNEL]

    def kernel(self, name: str) -> FunctionDef | None:
        """The kernel of qualified name ``name`` (one of :meth:`kernel_names`; see
        :func:`larkc.tasks.choose_kernel` for the names users write)."""
        fs = self.functions.get(name)
        return fs[0] if fs and fs[0].kind is FunctionKind.KERNEL else None

    def enabled_kernel(
        self, name: str, args: Sequence[TemplateArg] | Mapping[str, TemplateArg]
    ) -> tuple[FunctionDef, TemplateEnv] | None:
        """The one template kernel overload of ``name`` whose ``enable_if`` conditions the template
        arguments ``args`` meet, with its environment (SFINAE selection); ``None`` unless exactly one does."""
        chosen: list[tuple[FunctionDef, TemplateEnv]] = []
        for fd in self.functions.get(name, ()):
            if not fd.overloaded_kernel or fd.template is None:
                continue
            positional = list(args) if not isinstance(args, Mapping) else []
            named = args if isinstance(args, Mapping) else {}
            try:
                env = self.bind_template(fd.template, positional, named, fd.node, f"kernel {name}")
            except LarkcError:
                continue
            chosen.append((FunctionDef(fd.name, fd.node, fd.kind, fd.template), env))
        return chosen[0] if len(chosen) == 1 else None

    def signature(self, fd: FunctionDef, env: TemplateEnv) -> list[Param]:
        """The parameters of ``fd`` instantiated with ``env`` (for overload resolution)."""
        lowering = self.lowerer(self, fd, env, fd.name)
        return lowering.lower_params(lowering.function_declarator())

    def takes_groups(self, fd: FunctionDef) -> bool:
        """Whether ``fd`` has a cooperative group parameter (it is instantiated per group passed)."""
        lowering = self.lowerer(self, fd, {}, fd.name)
        params = lowering.function_declarator().child_by_field_name("parameters")
        return params is not None and any(
            (t := p.child_by_field_name("type")) is not None and lowering.is_group_type(t)
            for p in params.named_children
        )

    def takes_reference_address(self, fd: FunctionDef) -> bool:
        """Whether ``fd`` takes the address of one of its reference parameters (``atomicExch(&ref, 0)``):
        it exists only as the instances its calls make (the reference bound to memory is that address)."""
        body = fd.node.child_by_field_name("body")
        lowering = self.lowerer(self, fd, {}, fd.name)
        return body is not None and any(
            (d := p.child_by_field_name("declarator")) is not None
            and d.type == "reference_declarator"
            and takes_address(body, node_text(d.named_children[-1]) if d.named_children else "")
            for p in lowering.parameter_nodes(fd.node)
        )

    def instantiate(self, fd: FunctionDef, env: TemplateEnv, where: ts.Node | None) -> Function:
        """The IR of ``fd`` under template environment ``env``, lowering it if needed."""
        if fd.template_error is not None:
            raise fd.template_error
        name = fd.name
        ir_name = name
        if fd.template is not None:
            args = tuple(env[p.name] for p in fd.template if p.condition is None)
            ir_name = f"{name}<{', '.join(_targ_str(a) for a in args)}>"
            special = self.specialization(name, args)
            if special is not None:
                fd, env = special, {}
        if len(self.functions.get(name, ())) > 1:
            # `&` tells `f(float4&)` from `f(const float4&)` (a copy): overloads may differ only there
            params = [f"&{p.type}" if p.by_ref else str(p.type) for p in self.signature(fd, env)]
            ir_name += "(" + ", ".join(params + self._tag_parameters(fd)) + ")"
        groups = {k.removeprefix(GROUP_PARAM): v for k, v in env.items() if k.startswith(GROUP_PARAM)}
        if groups:  # one instance per group passed (a group is a compile-time value)
            ir_name += "[" + ", ".join(f"{k}={v}" for k, v in groups.items()) + "]"
        local = sorted(int(k.removeprefix(LOCAL_POINTER)) for k in env if k.startswith(LOCAL_POINTER))
        if local:  # pointer parameters given the address of a local: an instance taking the local itself
            ir_name += "[" + ", ".join(f"&local {i}" for i in local) + "]"
        memory = sorted(int(k.removeprefix(MEMORY_REF)) for k in env if k.startswith(MEMORY_REF))
        if memory:  # reference parameters bound to memory: an instance taking its address
            ir_name += "[" + ", ".join(f"&memory {i}" for i in memory) + "]"
        done = self.lowered.get(ir_name)
        if done is not None:
            return done
        if ir_name in self._in_progress:
            raise UnsupportedError("recursive function", name, self.span(where) if where else self.span(fd.node))
        self._in_progress.add(ir_name)
        try:
            fn = self.lowerer(self, fd, env, ir_name).lower()
        finally:
            self._in_progress.discard(ir_name)
        self.lowered[ir_name] = fn
        self.order.append(fn)
        return fn

    def conversion_to_pointer(self, struct: str, targs: tuple[TemplateArg, ...], where: ts.Node) -> Function | None:
        """The (non-const) ``operator T*()`` of struct ``struct<targs>``, lowered as a device function.

        This is how CUDA code such as the samples' ``SharedMemory<T>()`` hands out dynamic shared memory:
        a member-less struct whose only use is its conversion to a pointer.
        """
        choice = self.struct_definition(struct, targs, where)
        sd, env = choice.definition, choice.env
        body = sd.node.child_by_field_name("body")
        operators = [
            m
            for m in (body.named_children if body is not None else [])
            if m.type == "function_definition"
            and (d := m.child_by_field_name("declarator")) is not None
            and d.type == "operator_cast"
            and "const" not in node_text(d).split()  # not `operator const T*() const`
            and "__device__" in {c.type for c in m.children if not c.is_named}
        ]
        if len(operators) != 1:
            return None
        name = f"{struct}::operator*"
        fd = FunctionDef(name, operators[0], FunctionKind.DEVICE, sd.template if sd.template else None)
        return self.instantiate(fd, env, where)

    def specialization(self, name: str, args: tuple[TemplateArg, ...]) -> FunctionDef | None:
        """The explicit specialization ``template <> f<args>`` of template ``name``, if the file has one."""
        for spec in self.specializations.get(name, ()):
            assert spec.specialization is not None
            if _names_unmodelled_type(spec.specialization):
                continue  # `f<__nv_fp4x2_e2m1>`: no argument list larkc resolves equals it
            spec_args = tuple(self.template_argument(a, {}, a) for a in spec.specialization.named_children)
            if spec_args == args:
                return spec
        return None

    def module(self) -> Module:
        span = self.span(self.tree.root_node)
        module = Module(tuple(self.order), span)
        constants = {
            v.name.rpartition("::")[2]: self.span(v.node)
            for v in self.file_memory.values()
            if v.host_written and not v.device and not v.shared
        }
        check_constant_writes(module, constants, constants)  # nvcc rejects device writes to __constant__
        return module


def _names_unmodelled_type(args: ts.Node) -> bool:
    """Whether a template argument list names a type larkc knows but cannot model (an fp4, fp6 or e8m0 type): a
    specialization for it is never the one a call with resolved arguments asks for."""
    return any(
        n.type in ("type_identifier", "identifier") and node_text(n) in UNSUPPORTED_TYPES for n in _descendants(args)
    )


def _template_args(args: ts.Node) -> list[ts.Node]:
    return [a for a in args.named_children if a.type != "comment"]


def _deduce(pattern: Pattern, targs: tuple[TemplateArg, ...]) -> TemplateEnv | None:
    """The parameters of ``pattern`` bound so that it spells ``targs``, or ``None`` if it cannot."""
    if len(pattern) != len(targs):
        return None
    env: TemplateEnv = {}
    for item, arg in zip(pattern, targs, strict=True):
        if isinstance(item, PatternParam):
            if env.setdefault(item.name, arg) != arg:
                return None  # `S<T, T>` for `S<float, int>`
        elif item != arg:
            return None
    return env


def _at_least_as_specialized(p: Pattern, q: Pattern) -> bool:
    """Whether every argument list ``p`` matches, ``q`` matches too (C++'s partial ordering: ``q``'s parameters
    deduced from ``p``'s pattern, ``p``'s parameters taken as unique values)."""
    bound: dict[str, PatternParam | TemplateArg] = {}
    for mine, theirs in zip(p, q, strict=True):
        if isinstance(theirs, PatternParam):
            if bound.setdefault(theirs.name, mine) != mine:
                return False
        elif isinstance(mine, PatternParam) or mine != theirs:
            return False
    return True


def _renaming(p: Pattern, q: Pattern) -> dict[str, str] | None:
    """The one-to-one renaming of ``p``'s parameters that makes it ``q``, or ``None`` if there is none."""
    if len(p) != len(q):
        return None
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    for mine, theirs in zip(p, q, strict=True):
        if isinstance(mine, PatternParam) and isinstance(theirs, PatternParam):
            if forward.setdefault(mine.name, theirs.name) != theirs.name:
                return None
            if backward.setdefault(theirs.name, mine.name) != mine.name:
                return None
        elif isinstance(mine, PatternParam) or isinstance(theirs, PatternParam) or mine != theirs:
            return None
    return forward


def _pattern_str(p: Pattern) -> str:
    return ", ".join(item.name if isinstance(item, PatternParam) else _targ_str(item) for item in p)


def _descendants(node: ts.Node) -> Iterator[ts.Node]:
    pending = [node]
    while pending:
        n = pending.pop()
        yield n
        pending.extend(n.named_children)


def _is_host_function(node: ts.Node) -> bool:
    """A function definition without ``__global__``/``__device__`` whose body parsed as a block."""
    keywords = {c.type for c in node.children if not c.is_named}
    body = node.child_by_field_name("body")
    return not ({"__global__", "__device__"} & keywords) and body is not None and body.type == "compound_statement"


def is_type_arg(a: TemplateArg) -> TypeGuard[Type]:
    """Whether a template argument is a type (not an integer, a function or a group)."""
    return not isinstance(a, int | FunctionRef | Group)


def _targ_str(a: TemplateArg) -> str:
    if isinstance(a, int | FunctionRef | Group):
        return str(a)
    return _c_type_name(a)


def _c_type_name(t: Type) -> str:
    names = {"f32": "float", "f64": "double", "f16": "half", "bf16": "__nv_bfloat16", "i32": "int"}
    names |= {"u32": "unsigned", "i64": "int64_t", "u64": "uint64_t", "bool": "bool", "i8": "int8_t"}
    names |= {"u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t"}
    names |= {"f8e4m3": "__nv_fp8_e4m3", "f8e5m2": "__nv_fp8_e5m2"}
    if isinstance(t, ScalarType):
        return names[str(t)]
    return str(t)


def _opmath(t: ScalarType) -> ScalarType:
    """PyTorch's ``opmath_type``/``acc_type`` on the device: half types compute in float."""
    return F32 if t.is_float and t.bits < 32 else t


#: PyTorch's type traits naming the type kernels compute (accumulate) in.
_ACCUMULATION_TRAITS: dict[str, Callable[[ScalarType], ScalarType]] = {
    "at::opmath_type": _opmath,
    "c10::opmath_type": _opmath,
    "at::acc_type": lambda t: F32 if t.is_float and t.bits <= 32 else (I64 if t.is_int else t),
    "at::acc_type_device": lambda t: F32 if t.is_float and t.bits <= 32 else (I64 if t.is_int else t),
}


def _member_function_name(f: ts.Node, struct: str) -> str | None:
    """The name of a member function definition or declaration (``bits``, ``operator[]``, the struct's
    own name for a constructor), or ``None`` if ``f`` declares no function."""
    d = f.child_by_field_name("declarator")
    while d is not None and d.type in ("reference_declarator", "pointer_declarator"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
    if d is None:
        return None
    if d.type == "operator_cast":
        return "operator cast"
    if d.type != "function_declarator":
        return None
    name = node_text(d.child_by_field_name("declarator"))
    return "".join(name.split()) if name.startswith("operator") else name


def _enable_if_condition(type_node: ts.Node | None) -> ts.Node | None:
    """The condition of ``std::enable_if_t<cond, T>`` or ``typename std::enable_if<cond, T>::type``."""
    node = type_node
    while node is not None and node.type in ("dependent_type", "qualified_identifier"):
        node = node.named_children[-1] if node.type == "dependent_type" else node.child_by_field_name("name")
        if node is not None and node.type == "qualified_identifier":
            scope = node.child_by_field_name("scope")
            if scope is not None and scope.type == "template_type":  # `enable_if<cond, T>::type`
                node = scope
    if node is None or node.type != "template_type":
        return None
    if node_text(node.child_by_field_name("name")) not in ("enable_if", "enable_if_t"):
        return None
    args = node.child_by_field_name("arguments")
    return args.named_children[0] if args is not None and args.named_children else None


def _enable_if_result(type_node: ts.Node) -> ts.Node | None:
    """The type ``T`` of ``std::enable_if_t<cond, T>`` (``None``: void, the default)."""
    condition = _enable_if_condition(type_node)
    args = condition.parent if condition is not None else None
    rest = [] if args is None else [a for a in args.named_children if a.type != "comment"][1:]
    return rest[0] if rest else None


def _anonymous(node: ts.Node) -> str:
    """The key of an unnamed union or struct (``typedef union {...} U;``): where it starts."""
    return f"<anonymous@{node.start_byte}>"


def _declared_name(d: ts.Node) -> str | None:
    """The identifier a (possibly nested) declarator declares."""
    node: ts.Node | None = d
    while node is not None and node.type not in ("identifier", "field_identifier", "type_identifier"):
        if node.type == "parenthesized_declarator":  # `float (*name)(float)`
            node = node.named_children[0] if node.named_children else None
        else:
            node = node.child_by_field_name("declarator")
    return node_text(node) if node is not None else None


def _namespace_alias(node: ts.Node) -> tuple[str, str] | None:
    """The alias and the namespace of ``namespace cg = cooperative_groups;``."""
    alias = node_text(node.child_by_field_name("name"))
    target = node.named_children[-1] if len(node.named_children) > 1 else None  # after the `=`
    if not alias or target is None:
        return None
    return alias, "".join(node_text(target).split()).removeprefix("::")


def namespace_of(node: ts.Node) -> str:
    """The namespaces enclosing ``node``, as a prefix (``"a::b::"``, or ``""`` at file scope)."""
    parts: list[str] = []
    n = node.parent
    while n is not None:
        if n.type == "namespace_definition":
            name = node_text(n.child_by_field_name("name"))
            if name:
                parts.insert(0, "".join(name.split()))
        n = n.parent
    return "".join(f"{p}::" for p in parts)


def _function_pointer_name(decl: ts.Node, *, allow_abstract: bool = False) -> str | None:
    """The name declared by ``R (*name)(args)`` (``""`` for an abstract ``R (*)(args)``), else ``None``."""
    if decl.type not in ("function_declarator", "abstract_function_declarator"):
        return None
    inner = decl.child_by_field_name("declarator")
    while inner is not None and inner.type in ("parenthesized_declarator", "abstract_parenthesized_declarator"):
        inner = inner.named_children[0] if inner.named_children else None
    if inner is None or inner.type not in ("pointer_declarator", "abstract_pointer_declarator"):
        return None
    target = inner.child_by_field_name("declarator")
    if target is None:
        return "" if allow_abstract else None
    return node_text(target) if target.type in ("identifier", "type_identifier") else None


def _scalar_type_name(words: str) -> ScalarType | None:
    t = BUILTIN_TYPES.get(words)
    return t if isinstance(t, ScalarType) else None
