"""The typed kernel IR shared by the CUDA and Triton frontends (types, nodes, verifier, printer, parser)."""

from larkc.ir.nodes import *  # noqa: F403 - the node module's __all__ is this package's vocabulary
from larkc.ir.nodes import __all__ as _nodes_all
from larkc.ir.types import *  # noqa: F403
from larkc.ir.types import __all__ as _types_all

__all__ = [*_nodes_all, *_types_all]  # noqa: PLE0604
