"""larkc: formal verification of CUDA and Triton kernels against their PyTorch reference.

The public API is what this module exports; everything else is internal to its stage package.
"""

from larkc.errors import LarkcError, Span
from larkc.tasks import (
    BufferArg,
    ScalarArg,
    ShapeArg,
    Task,
    TensorSpec,
    command_line_task,
    load_task,
)

__version__ = "0.1.0"

__all__ = [
    "BufferArg",
    "LarkcError",
    "ScalarArg",
    "ShapeArg",
    "Span",
    "Task",
    "TensorSpec",
    "__version__",
    "command_line_task",
    "load_task",
]
