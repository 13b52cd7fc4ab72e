"""Task-level preconditions on the values of input tensors (``Task(preconditions=[...])``).

Library kernels trust more about their index tensors than a value range says: a KV-cache copy writes row
``dest_loc[t]`` from program ``t`` and is race-free only because the memory manager hands out distinct
slots; MoE kernels scatter to sorted token ids that never repeat. A task states such facts as
preconditions. ``larkc verify`` assumes them (each is listed among the verdict's assumptions) and
``larkc run`` draws inputs that satisfy them and refuses given inputs that violate them (bad input).

The one precondition so far is :class:`Distinct` (``"distinct(dest_loc)"``): the entries of an integer
input are pairwise distinct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from larkc.errors import TaskError

if TYPE_CHECKING:  # torch is imported where a tensor is checked: `larkc --help` and `parse` must not import it
    import torch

__all__ = ["Distinct", "Precondition", "parse_precondition", "violation"]


@dataclass(frozen=True, slots=True)
class Distinct:
    """The entries of integer input ``tensor`` are pairwise distinct (over the whole tensor, flattened)."""

    tensor: str

    def __str__(self) -> str:
        return f"distinct({self.tensor})"

    def describe(self) -> str:
        """The precondition as the verdict lists it."""
        return f"the entries of {self.tensor} are pairwise distinct (precondition distinct({self.tensor}))"


#: Every kind of precondition (a closed union: a new kind is handled wherever one is matched).
Precondition = Distinct

_CALL = re.compile(r"\s*(\w+)\s*\(\s*(?:\"(\w+)\"|'(\w+)'|(\w+))\s*\)\s*$")


def parse_precondition(given: object) -> Precondition:
    """A precondition from its task-file form: ``"distinct(dest_loc)"`` (the name may be quoted) or a
    :class:`Distinct` value."""
    if isinstance(given, Distinct):
        return given
    if not isinstance(given, str):
        raise TaskError(f"a precondition is a text such as 'distinct(dest_loc)', got {given!r}")
    m = _CALL.match(given)
    if m is None:
        raise TaskError(f"cannot read precondition {given!r}: expected the form distinct(tensor)")
    kind, name = m.group(1), m.group(2) or m.group(3) or m.group(4)
    if kind != "distinct":
        raise TaskError(f"unknown precondition {kind}(...) in {given!r}: the known one is distinct(tensor)")
    return Distinct(name)


def violation(p: Precondition, t: torch.Tensor) -> str | None:
    """Why tensor ``t`` (the precondition's tensor) violates ``p``, or ``None`` if it satisfies it."""
    import torch

    flat = t.reshape(-1)
    values, counts = torch.unique(flat, return_counts=True)
    repeated = values[counts > 1]
    if repeated.numel() == 0:
        return None
    v = repeated[0].item()
    where = [i for i, x in enumerate(flat.tolist()) if x == v][:2]
    return f"{p.tensor}[{where[0]}] == {p.tensor}[{where[1]}] == {v}, but the task declares {p}"
