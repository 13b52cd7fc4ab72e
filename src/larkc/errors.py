"""One error family for every stage of larkc.

Every error a user can provoke is a :class:`LarkcError`. It carries the :class:`Span` of the construct
it is about and the :class:`Stage` that raised it, and renders in the form compilers use::

    kernels/add.cu:12:5: error: unsupported goto statement: goto done;
       12 |     goto done;
          |     ^~~~~~~~~~

The CLI prints :meth:`LarkcError.render` and exits with status 2; nothing else reaches the user as a
traceback. A failure of larkc itself (an invariant of its own broken: a frontend's ill-typed IR, the
simulator failing on a statement, a spec rule torch contradicts) is an :class:`InternalError`, deliberately
outside that family: the CLI reports it as an internal error (exit status 3, one line), never as bad input.

Spans are 1-based (line and column), end-exclusive in the column.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "InternalError",
    "LarkcError",
    "LimitExceeded",
    "ReferenceError_",
    "SimulationError",
    "SourceCache",
    "Span",
    "Stage",
    "TaskError",
    "TypeCheckError",
    "UnsupportedError",
    "UserSyntaxError",
]


@dataclass(frozen=True, slots=True)
class Span:
    """A region of one source file: 1-based line and column, ``end_col`` one past the last character."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(file: str, line: int, col: int) -> Span:
        """A one-character span."""
        return Span(file, line, col, line, col + 1)

    def location(self) -> str:
        """``file:line:col``, the prefix of a diagnostic."""
        return f"{self.file}:{self.line}:{self.col}"

    def join(self, other: Span) -> Span:
        """The smallest span of ``self.file`` covering both spans."""
        start = min((self.line, self.col), (other.line, other.col))
        end = max((self.end_line, self.end_col), (other.end_line, other.end_col))
        return Span(self.file, start[0], start[1], end[0], end[1])


#: The span of nodes that no source produced (IR built by hand, synthesised temporaries).
NO_SPAN = Span("<none>", 0, 0, 0, 0)


class SourceCache:
    """The text of source files by name, so that diagnostics can quote the offending line.

    Frontends register the text they parsed (which may not be on disk, e.g. a string given to the API).
    """

    _texts: dict[str, str] = {}  # noqa: RUF012 - a process-wide registry on purpose

    @classmethod
    def register(cls, file: str, text: str) -> None:
        cls._texts[file] = text

    @classmethod
    def line(cls, file: str, line: int) -> str | None:
        text = cls._texts.get(file)
        if text is None:
            try:
                text = Path(file).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            cls._texts[file] = text
        lines = text.splitlines()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


class Stage(enum.Enum):
    """The pipeline stage that raised an error."""

    TASK = "task"  # reading or checking a verification task
    PREPROCESS = "preprocess"  # the C preprocessor pass of the CUDA frontend
    FRONTEND = "frontend"  # CUDA/Triton source to kernel IR
    IR = "ir"  # IR verifier and IR text parser
    REFERENCE = "reference"  # tracing the PyTorch reference
    SEMANTICS = "semantics"  # the simulator
    LOWER = "lower"  # Lean lowering
    PROVER = "prover"  # prover backends
    CLI = "cli"  # command-line arguments


class LarkcError(Exception):
    """Base of every error larkc reports to users.

    ``message`` is one line without the location prefix; ``notes`` are extra lines printed after it.
    """

    stage: Stage = Stage.CLI

    def __init__(
        self,
        message: str,
        span: Span | None = None,
        *,
        stage: Stage | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        if stage is not None:
            self.stage = stage
        self.notes = notes

    def __str__(self) -> str:
        if self.span is None or self.span is NO_SPAN or self.span.line == 0:
            return f"error: {self.message}"
        return f"{self.span.location()}: error: {self.message}"

    def with_span(self, span: Span) -> LarkcError:
        """Attach ``span`` if the error has none yet (used when a pass wraps errors of inner nodes)."""
        if self.span is None or self.span.line == 0:
            self.span = span
        return self

    def render(self) -> str:
        """The full diagnostic: location line, the quoted source line with a caret, then notes."""
        out = [str(self)]
        span = self.span
        if span is not None and span.line > 0:
            text = SourceCache.line(span.file, span.line)
            if text is not None:
                gutter = f"{span.line:>5} | "
                out.append(gutter + text.rstrip("\n"))
                width = (span.end_col - span.col) if span.end_line == span.line else len(text) - span.col + 1
                width = max(1, width)
                pad = "".join(ch if ch == "\t" else " " for ch in text[: max(0, span.col - 1)])
                out.append(" " * (len(gutter) - 2) + "| " + pad + "^" + "~" * (width - 1))
        out.extend(f"note: {n}" for n in self.notes)
        return "\n".join(out)


class UnsupportedError(LarkcError):
    """A construct outside the supported subset: ``unsupported <construct>: <text>``."""

    stage = Stage.FRONTEND

    def __init__(self, construct: str, text: str, span: Span | None, *, stage: Stage | None = None) -> None:
        snippet = " ".join(text.split())
        if len(snippet) > 60:
            snippet = snippet[:57] + "..."
        super().__init__(f"unsupported {construct}: {snippet}", span, stage=stage)
        self.construct = construct


class UserSyntaxError(LarkcError):
    """Source text that does not parse (CUDA, the IR text form, shape expressions)."""

    stage = Stage.FRONTEND


class TypeCheckError(LarkcError):
    """An IR that violates the typing rules of :mod:`larkc.ir.verify`, or a frontend type error."""

    stage = Stage.IR


class TaskError(LarkcError):
    """A verification task that is malformed or inconsistent with its kernel."""

    stage = Stage.TASK


class PreconditionError(TaskError):
    """The task's inputs (sizes, scalars, launch, data) violate a precondition of the kernel (an IR
    ``Assume``, GPUVerify's ``__requires``): bad input, outside the kernel's contract, never a verdict
    against the kernel. Its span is the precondition's."""

    stage = Stage.SEMANTICS


class ReferenceError_(LarkcError):  # noqa: N801 - trailing underscore avoids the builtin ReferenceError
    """A PyTorch reference that cannot be traced into the spec IR."""

    stage = Stage.REFERENCE


class SimulationError(LarkcError):
    """A failure of the simulator that is not a diagnosis of the kernel (e.g. a bad launch)."""

    stage = Stage.SEMANTICS


class LimitExceeded(SimulationError):
    """A run reached one of the simulator's limits (loop iterations, call depth): the kernel may not
    terminate, or needs more than the limit. Symbolic execution reports it as a reason for UNKNOWN."""


class InternalError(Exception):
    """A bug in larkc, not in its input: an invariant of larkc's own that failed.

    Not a :class:`LarkcError` on purpose, so that no ``except LarkcError`` (bad input, or a reason for
    UNKNOWN) swallows it: the CLI prints ``error: internal error: <message> (a larkc bug; ...)`` and
    exits 3; the Python API raises it. ``message`` is one line; ``span``, where known, is the construct
    of the input larkc failed on (the failure is larkc's, the place helps to reproduce it).
    """

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span

    def __str__(self) -> str:
        if self.span is None or self.span.line == 0:
            return self.message
        return f"{self.span.location()}: {self.message}"
