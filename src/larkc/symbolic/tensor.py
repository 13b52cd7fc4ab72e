"""A tensor of terms: the symbolic value of a spec output (or of a kernel's output buffer)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from larkc.ir.types import ScalarType
from larkc.symbolic.extended import NonFinite
from larkc.symbolic.terms import And, BoolConst, Cmp, Or, Poly, Term, evaluate

__all__ = ["TermTensor"]


@dataclass(frozen=True, slots=True)
class TermTensor:
    """A tensor of concrete ``shape`` whose elements are terms, stored flat in row-major order.

    ``dtype`` is the element type of the tensor in the reference (the terms themselves are exact reals);
    elements of a ``bool`` tensor are truth values (:data:`~larkc.symbolic.terms.BoolTerm`); an element
    of a floating-point tensor may be an infinity or NaN (:class:`~larkc.symbolic.extended.NonFinite`).
    """

    shape: tuple[int, ...]
    dtype: ScalarType
    elems: tuple[Term | NonFinite, ...]

    def __post_init__(self) -> None:
        if len(self.elems) != math.prod(self.shape):
            raise ValueError(f"{len(self.elems)} elements for shape {self.shape}")
        want: Any = (BoolConst, Cmp, And, Or) if self.dtype.is_bool else Poly
        if self.dtype.is_float:
            want = (Poly, NonFinite)
        for e in self.elems:
            if not isinstance(e, want):
                kind = "truth value" if self.dtype.is_bool else "number"
                raise TypeError(f"element {e} of a {self.dtype} tensor is not a {kind}")

    @property
    def numel(self) -> int:
        return len(self.elems)

    def __getitem__(self, index: Sequence[int] | int) -> Term | NonFinite:
        """The element at a multi-index (or a flat index)."""
        if isinstance(index, int):
            return self.elems[index]
        if len(index) != len(self.shape):
            raise IndexError(f"index {tuple(index)} for shape {self.shape}")
        flat = 0
        for i, n in zip(index, self.shape, strict=True):
            if not 0 <= i < n:
                raise IndexError(f"index {tuple(index)} out of shape {self.shape}")
            flat = flat * n + i
        return self.elems[flat]

    def evaluate(self, env: Mapping[str, Any]) -> np.ndarray[Any, Any]:
        """The float64 (or bool) array of the elements' values with inputs bound by ``env``."""
        special = {NonFinite.POS_INF: math.inf, NonFinite.NEG_INF: -math.inf, NonFinite.NAN: math.nan}
        terms = [e for e in self.elems if not isinstance(e, NonFinite)]
        it = iter(evaluate(terms, env))
        values = [special[e] if isinstance(e, NonFinite) else next(it) for e in self.elems]
        dtype = np.bool_ if self.dtype.is_bool else np.float64
        return np.asarray(values, dtype=dtype).reshape(self.shape)

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)} [{', '.join(str(e) for e in self.elems)}]"
