"""Running the user's Python: task files, reference files and functions, launchers, candidate modules.

larkc executes code it did not write (a task file is a Python module, a reference is a function). What
that code raises is bad input, not a crash of larkc: every exception, and also ``SystemExit``, since a
``sys.exit(0)`` in a task file that ended larkc with status 0 would read as "verified" to a script.
``KeyboardInterrupt`` (and ``GeneratorExit``) still stop larkc. The error names the statement that
raised, the innermost frame of the user's own code.
"""

from __future__ import annotations

import sys
import sysconfig
import traceback
from pathlib import Path

__all__ = ["USER_CODE_ERRORS", "describe_user_exception", "user_frame"]

#: What a call into the user's code may raise that larkc reports as bad input (exit 2, located).
USER_CODE_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit)

_LARKC_DIR = str(Path(__file__).resolve().parents[1])


def _library_dirs() -> tuple[str, ...]:
    """Folders of installed code (the standard library, site-packages, larkc): not the user's frames."""
    paths = sysconfig.get_paths()
    dirs = {_LARKC_DIR, paths.get("stdlib", ""), paths.get("platstdlib", ""), paths.get("purelib", "")}
    dirs |= {paths.get("platlib", ""), sys.prefix, sys.base_prefix}
    return tuple(str(Path(d).resolve()) for d in dirs if d)


def describe_user_exception(e: BaseException) -> str:
    """What the user's code did, in words: ``called sys.exit(0)`` or ``raised ValueError: bad size``."""
    if isinstance(e, SystemExit):
        code = "" if e.code is None else repr(e.code)
        return f"called sys.exit({code}): no verdict was reached"
    text = str(e).strip()
    first = text.splitlines()[0] if text else ""
    return f"raised {type(e).__name__}: {first}" if first else f"raised {type(e).__name__}"


def user_frame(e: BaseException, files: set[str] | None = None) -> tuple[str, int] | None:
    """``(file, line)`` of the statement of the user's code that raised ``e``.

    The innermost frame of one of ``files`` when given and present; else the innermost frame outside
    larkc, the standard library and installed packages (a helper module the task file imports).
    """
    frames = traceback.extract_tb(e.__traceback__)
    if files:
        wanted = {str(Path(f).resolve()) for f in files}
        own = [f for f in frames if f.lineno and str(Path(f.filename).resolve()) in wanted]
    else:
        own = []
    library = _library_dirs()
    outside = [
        f
        for f in frames
        if f.lineno and not f.filename.startswith("<") and not str(Path(f.filename).resolve()).startswith(library)
    ]
    # the innermost user frame overall names the raising statement (a launcher file the task imports);
    # a frame of ``files`` is preferred only when nothing deeper is the user's
    best = outside[-1] if outside else (own[-1] if own else None)
    if best is None or best.lineno is None:
        return None
    return best.filename, best.lineno
