"""The one table between larkc's scalar types and torch dtypes, in both directions.

A base module (below every stage): the reference frontend reads dtypes of traced tensors with it, the
pipeline allocates the tensors of a run with it, and tests build buffers with it. It imports torch, so
the modules that must stay light (:mod:`larkc.ir`, :mod:`larkc.tasks`, ``larkc parse``) do not import it.
"""

from __future__ import annotations

import torch

from larkc.errors import ReferenceError_
from larkc.ir.types import SCALARS, ScalarType

__all__ = ["TORCH_DTYPES", "scalar_type_of", "torch_dtype"]

#: The torch dtype of each scalar type that torch has, by scalar kind name.
TORCH_DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "u16": torch.uint16,
    "u32": torch.uint32,
    "u64": torch.uint64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
    "f8e4m3": torch.float8_e4m3fn,
    "f8e5m2": torch.float8_e5m2,
}
_FROM_TORCH = {v: k for k, v in TORCH_DTYPES.items()}


def torch_dtype(t: ScalarType) -> torch.dtype:
    """The torch dtype of scalar type ``t``."""
    return TORCH_DTYPES[t.kind.value]


def scalar_type_of(dtype: torch.dtype) -> ScalarType:
    """The larkc scalar type of a torch dtype; raises :class:`ReferenceError_` for others (complex, fnuz fp8).

    Torch tensors reach larkc from references, hence the error kind.
    """
    name = _FROM_TORCH.get(dtype)
    if name is None:
        raise ReferenceError_(f"unsupported dtype {dtype} in reference")
    return SCALARS[name]
