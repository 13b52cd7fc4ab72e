"""Verification tasks: the description of what larkc verifies (see :mod:`larkc.tasks.task`)."""

from larkc.tasks.kernel_name import KernelName, canonical_template_arg, choose_kernel, resolve_kernel
from larkc.tasks.scalar_expr import ScalarExpr, ScalarValue
from larkc.tasks.shape_expr import ShapeExpr, evaluate, free_symbols, parse_shape_expr, shape_expr
from larkc.tasks.task import (
    DEFAULT_MAX_TENSOR_BYTES,
    FAILURE_KINDS,
    Binding,
    BindingValue,
    BufferArg,
    KernelLaunch,
    Launch,
    NullArg,
    ScalarArg,
    ShapeArg,
    Task,
    TensorSpec,
    command_line_task,
    load_task,
    parse_dtype,
)

__all__ = [
    "DEFAULT_MAX_TENSOR_BYTES",
    "FAILURE_KINDS",
    "Binding",
    "BindingValue",
    "BufferArg",
    "KernelLaunch",
    "KernelName",
    "Launch",
    "NullArg",
    "ScalarArg",
    "ScalarExpr",
    "ScalarValue",
    "ShapeArg",
    "ShapeExpr",
    "Task",
    "TensorSpec",
    "canonical_template_arg",
    "choose_kernel",
    "command_line_task",
    "evaluate",
    "free_symbols",
    "load_task",
    "parse_dtype",
    "parse_shape_expr",
    "resolve_kernel",
    "shape_expr",
]
