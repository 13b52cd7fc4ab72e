"""Preconditions a problem's input generator puts on a tensor (:class:`InputFacts`), and the structural
one a task's tensor can declare (:class:`Triangular`, ``TensorSpec.triangular``).

KernelBench problems draw inputs with ``torch.tril(torch.rand(n, n))``, ``torch.randint(0, c, (b,))``,
``torch.abs(...)``: a kernel is scored only on such inputs, so a kernel correct on them is correct.
:mod:`larkc.reference.problem_inputs` derives the facts; a derived task carries the ones the checks use
(integer ranges as ``TensorSpec.low``/``high``, a zero triangle as ``TensorSpec.triangular``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = ["InputFacts", "Triangle", "Triangular"]

#: Which entries of the last two dimensions are zero: ``"lower"`` (a lower-triangular matrix, as
#: ``torch.tril`` makes: zero above the diagonal) or ``"upper"`` (``torch.triu``: zero below it).
Triangle = Literal["lower", "upper"]


@dataclass(frozen=True, slots=True)
class Triangular:
    """The last two dimensions of a tensor are a triangular matrix: ``side`` ``"lower"`` keeps entries
    ``(i, j)`` with ``j - i <= diagonal`` and the others are zero (``torch.tril(x, diagonal)``); ``"upper"``
    keeps those with ``j - i >= diagonal`` (``torch.triu``)."""

    side: Triangle
    diagonal: int = 0

    def zero_at(self, flat: int, shape: tuple[int, ...]) -> bool:
        """Whether the element at row-major index ``flat`` of a tensor of ``shape`` is a zeroed one."""
        if len(shape) < 2:
            return False
        rows, cols = shape[-2], shape[-1]
        i, j = (flat // cols) % rows, flat % cols
        return j - i > self.diagonal if self.side == "lower" else j - i < self.diagonal

    def __str__(self) -> str:
        side = "above" if self.side == "lower" else "below"
        offset = f" offset by {self.diagonal}" if self.diagonal else ""
        return f"{self.side}-triangular (zero {side} the diagonal{offset})"


@dataclass(frozen=True, slots=True)
class InputFacts:
    """What holds for every value ``get_inputs()`` can return for one tensor.

    ``low``/``high`` bound every element (inclusive; ``None``: unbounded on that side), ``integer`` says
    every element is an integer (``torch.randint``), ``triangle`` which triangle of the last two
    dimensions is zero, with the diagonal offset ``diagonal`` (``torch.tril(x, diagonal=k)`` keeps
    entries ``j - i <= k``). ``origin`` is the expression's outermost calls, for the verdict's text.
    """

    low: float | None = None
    high: float | None = None
    integer: bool = False
    triangle: Triangle | None = None
    diagonal: int = 0
    origin: str = ""

    def triangular(self) -> Triangular | None:
        """The zero triangle as a task's tensor declares it."""
        return Triangular(self.triangle, self.diagonal) if self.triangle is not None else None

    @property
    def known(self) -> bool:
        """Whether any precondition is derived."""
        return self.low is not None or self.high is not None or self.integer or self.triangle is not None

    def int_range(self) -> tuple[int, int] | None:
        """The ``[low, high)`` range of an integer tensor's values, when both ends are bounded."""
        if not self.integer or self.low is None or self.high is None:
            return None
        return math.ceil(self.low), math.floor(self.high) + 1

    def describe(self) -> list[str]:
        """The preconditions in words (``"lower-triangular (zero above the diagonal)"``, ``"in [0, 1]"``)."""
        out = []
        tri = self.triangular()
        if tri is not None:
            out.append(str(tri))
        if self.integer:
            r = self.int_range()
            out.append(f"integers in [{r[0]}, {r[1]})" if r is not None else "integers")
        elif self.low is not None or self.high is not None:
            lo = "-inf" if self.low is None else f"{self.low:g}"
            hi = "inf" if self.high is None else f"{self.high:g}"
            out.append(f"in [{lo}, {hi}]")
        return out
