"""The diagnoses of the simulator: what a run found wrong with a kernel, and where.

A :class:`Diagnosis` is a verdict against the kernel (``larkc run`` exits 1), not an error of larkc's
input (those are :class:`~larkc.errors.LarkcError`, exit 2). Each names its :class:`DiagnosisKind`
with one word that scripts match (``race``, ``oob``, ``divergence``, ``uninit``, ``mismatch``, ``ub``,
``assert``, ``nontermination``),
the kernel source location, and the block, thread, buffer and index involved where they apply. It
renders as one line::

    race: kernel.cu:14:7: write of shared partial[3] by block (0,0,0) thread (3,0,0) conflicts with ...
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from larkc.errors import Span

__all__ = ["Diagnosis", "DiagnosisKind", "DiagnosisLog", "Dim3"]

Dim3 = tuple[int, int, int]


class DiagnosisKind(enum.Enum):
    """What went wrong. The value is the word a diagnosis line starts with."""

    RACE = "race"  # two unsynchronised accesses to one location by different threads, at least one a write
    RACE_SAME_VALUE = "race (same value)"  # a write-write race in which both writes store the same bits (a warning)
    OOB = "oob"  # an access outside every buffer, past a buffer's end, or misaligned for its type
    DIVERGENCE = "divergence"  # threads of a block (or warp) reaching different barriers, or some none
    UNINIT = "uninit"  # a read of memory never written (shared, local, "empty" buffers) or of an inactive lane
    MISMATCH = "mismatch"  # an output that differs from the reference beyond tolerance, or is never written
    UB = "ub"  # an operation C leaves undefined: integer division by zero, shift out of range, ...
    ASSERT = "assert"  # an assert() whose condition is false: the thread traps and the launch fails
    NONTERMINATION = "nontermination"  # a loop ran past the step bound (SimLimits.max_loop_iterations)

    @property
    def is_warning(self) -> bool:
        """A finding that ``larkc run`` reports but, unless ``--strict``, does not hold against the kernel."""
        return self is DiagnosisKind.RACE_SAME_VALUE


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """One finding of a simulation run.

    ``message`` is the sentence after the location; ``block``/``thread`` are the CUDA coordinates of
    the first offending thread (``None`` where the finding is not about one thread, e.g. a mismatch),
    ``buffer`` and ``index`` the memory involved (element index into the buffer, counted in elements
    of the buffer's own type). ``count`` is how many occurrences the run folded into this one line.
    """

    kind: DiagnosisKind
    message: str
    span: Span | None = None
    block: Dim3 | None = None
    thread: Dim3 | None = None
    buffer: str | None = None
    index: int | None = None
    count: int = 1

    def location(self) -> str:
        """``file:line:col`` of the kernel construct, or ``""`` when there is none."""
        if self.span is None or self.span.line == 0:
            return ""
        return self.span.location()

    def render(self) -> str:
        """The one-line form: ``kind: file:line:col: message`` (plus the number of repeats)."""
        loc = self.location()
        text = f"{self.kind.value}: {loc}: {self.message}" if loc else f"{self.kind.value}: {self.message}"
        if self.count > 1:
            text += f" ({self.count - 1} more like it)"
        return text

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the ``--json`` report and replay files)."""
        return {
            "kind": self.kind.value,
            "location": self.location() or None,
            "message": self.message,
            "block": list(self.block) if self.block is not None else None,
            "thread": list(self.thread) if self.thread is not None else None,
            "buffer": self.buffer,
            "index": self.index,
            "count": self.count,
        }


@dataclass(slots=True)
class DiagnosisLog:
    """The diagnoses of one run, one line per (kind, source location), in order of discovery.

    Repeats of a finding at the same construct (the same race in every block) fold into a count so
    that the report stays readable; ``limit`` caps the number of distinct lines.
    """

    limit: int = 20
    entries: list[Diagnosis] = field(default_factory=list)
    _index: dict[tuple[DiagnosisKind, Span | None, str], int] = field(default_factory=dict)
    dropped: int = 0
    #: appended to the message of each new entry: the device-function calls being executed
    #: (`` (in device function f called at kernel.cu:12:5)``), set by the interpreter
    where: str = ""

    def add(self, d: Diagnosis, key: str = "", occurrences: int = 1) -> None:
        """Record ``d`` (``occurrences`` times); ``key`` distinguishes findings at one construct."""
        k = (d.kind, d.span, key)
        i = self._index.get(k)
        if i is not None:
            old = self.entries[i]
            self.entries[i] = Diagnosis(
                old.kind, old.message, old.span, old.block, old.thread, old.buffer, old.index,
                old.count + occurrences,
            )  # fmt: skip
            return
        if len(self.entries) >= self.limit:
            self.dropped += occurrences
            return
        self._index[k] = len(self.entries)
        if occurrences != d.count or self.where:
            message = d.message + self.where
            d = Diagnosis(d.kind, message, d.span, d.block, d.thread, d.buffer, d.index, occurrences)
        self.entries.append(d)

    def kinds(self) -> set[DiagnosisKind]:
        return {d.kind for d in self.entries}

    def __bool__(self) -> bool:
        return bool(self.entries)
