"""The typed kernel IR shared by the CUDA and Triton frontends (types, nodes, verifier, printer, parser)."""

from larkc.ir.nodes import *  # noqa: F403 - the node module's __all__ is this package's vocabulary
from larkc.ir.nodes import __all__ as _nodes_all
from larkc.ir.parser import parse_module
from larkc.ir.printer import print_expr, print_function, print_module, print_type
from larkc.ir.types import *  # noqa: F403
from larkc.ir.types import __all__ as _types_all
from larkc.ir.verify import verify_function, verify_module

__all__ = [  # noqa: PLE0604 - the star-imported vocabularies, then the passes
    *_nodes_all,
    *_types_all,
    "parse_module",
    "print_expr",
    "print_function",
    "print_module",
    "print_type",
    "verify_function",
    "verify_module",
]
