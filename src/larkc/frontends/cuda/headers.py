"""Headers of the machine a CUDA file is built on: the CUDA toolkit's and the host toolchain's.

larkc models the device library of the headers kernels include (:data:`~larkc.frontends.cuda.preprocess.
SYSTEM_HEADERS`) and never reads them. Real files include more: ``<cuda_device_runtime_api.h>`` and
``<nvtx3/nvToolsExt.h>`` (the toolkit's), ``<omp.h>`` (the host compiler's OpenMP), PyTorch's old
``<THC/THCAtomics.cuh>``, POSIX headers for host code. A user of those files has them on the machine, so an
``#include`` of one is not an error: the header is *known but skipped* (:class:`SkippedHeader`), and its
declarations are unknown until device code uses one. Such a use is then a located error naming the header
(:meth:`SkippedHeader.declares`), not "undeclared identifier".

The toolkit is found as nvcc's users find it (:func:`cuda_include_dir`, the rule of PyTorch's
``cpp_extension``): ``CUDA_HOME``, else ``CUDA_PATH``, else the ``nvcc`` on ``PATH`` (``bin/..``), else
``/usr/local/cuda``. A header is a toolkit header when its file is in the toolkit's ``include`` directory;
where no toolkit is installed, such an ``#include`` stays "include file not found".
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final

from larkc.errors import Span

__all__ = ["SkippedHeader", "cuda_include_dir", "host_library"]

# A toolkit's include directory has this file (the runtime API every CUDA program includes).
_MARKER: Final = "cuda_runtime.h"
_DEFAULT_TOOLKIT: Final = Path("/usr/local/cuda")


def cuda_include_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The CUDA toolkit's ``include`` directory, or ``None`` where no toolkit is installed.

    ``CUDA_HOME`` (else ``CUDA_PATH``) decides when set, as for PyTorch's extensions: a setting without a
    toolkit there means none (it is not second-guessed). Otherwise ``nvcc`` on ``PATH`` (its directory's
    ``../include``, also through a symbolic link), then ``/usr/local/cuda``. A directory counts only if it
    holds ``cuda_runtime.h``.
    """
    env = os.environ if environ is None else environ
    home = env.get("CUDA_HOME") or env.get("CUDA_PATH")
    if home:
        return _toolkit_include(Path(home))
    nvcc = shutil.which("nvcc", path=env.get("PATH", os.defpath))
    if nvcc is not None:
        for binary in (Path(nvcc), Path(nvcc).resolve()):
            found = _toolkit_include(binary.parent.parent)
            if found is not None:
                return found
    return _toolkit_include(_DEFAULT_TOOLKIT)


def _toolkit_include(home: Path) -> Path | None:
    include = home / "include"
    return include if (include / _MARKER).is_file() else None


@dataclass(frozen=True, slots=True)
class _HostLibrary:
    """Headers of a host library larkc does not model, and the names they declare (by prefix)."""

    library: str  # as an error names it: "OpenMP"
    headers: frozenset[str]  # exact header names
    folders: tuple[str, ...]  # header name prefixes: "THC/"
    names: tuple[str, ...]  # what the declared names start with ("omp_"); () when not known


_HOST_LIBRARIES: Final = (
    _HostLibrary("OpenMP", frozenset({"omp.h"}), (), ("omp_",)),
    _HostLibrary("PyTorch's THC", frozenset(), ("THC/",), ("THC", "gpuAtomic")),
    _HostLibrary("MPI", frozenset({"mpi.h"}), (), ("MPI_",)),
    _HostLibrary("NCCL", frozenset({"nccl.h"}), (), ("nccl",)),
    _HostLibrary("pybind11", frozenset(), ("pybind11/",), ("pybind11",)),
    _HostLibrary(
        "POSIX",
        frozenset({"unistd.h", "dirent.h", "glob.h", "pthread.h", "fcntl.h", "strings.h", "libgen.h", "dlfcn.h"}),
        ("sys/", "arpa/", "netinet/"),
        (),
    ),
)


def host_library(header: str) -> _HostLibrary | None:
    """The host library whose header ``header`` is, if larkc knows it as one it does not model."""
    return next(
        (lib for lib in _HOST_LIBRARIES if header in lib.headers or header.startswith(lib.folders)),
        None,
    )


@dataclass(frozen=True, slots=True)
class SkippedHeader:
    """An ``#include`` of a header that exists on the user's machine and that larkc does not read.

    ``library`` says whose header it is ("the CUDA toolkit", "OpenMP"); ``path`` is its file in the
    toolkit (``None`` for a host library's); ``prefixes`` are what the names a host library declares
    start with.
    """

    header: str
    span: Span = field(compare=False)
    library: str
    path: Path | None = None
    prefixes: tuple[str, ...] = ()

    def declares(self, name: str) -> bool:
        """Whether ``name`` may be declared by this header: a toolkit header's text names it (the header
        and the toolkit headers it includes), a host library's names start with one of its prefixes."""
        if self.path is not None:
            root = self.path.parents[len(Path(self.header).parts) - 1]  # the toolkit's include directory
            return name in _toolkit_names(str(self.path), str(root))
        return name.startswith(self.prefixes) if self.prefixes else False

    def describe(self) -> str:
        """``<omp.h> (OpenMP, included at k.cu:3)``: the header as an error names it."""
        return f"<{self.header}> ({self.library}, included at {self.span.file}:{self.span.line})"


_IDENT = re.compile(r"[A-Za-z_]\w*")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
_MAX_TOOLKIT_FILES: Final = 64  # a header's own includes within the toolkit, read at most


@cache
def _toolkit_names(path: str, include_dir: str) -> frozenset[str]:
    """Every identifier in the toolkit header ``path`` and the toolkit headers it includes (a superset of
    what it declares: enough to say which header a name the frontend does not know would come from)."""
    root = Path(include_dir)
    seen: set[Path] = set()
    pending = [Path(path)]
    names: set[str] = set()
    while pending and len(seen) < _MAX_TOOLKIT_FILES:
        file = pending.pop()
        if file in seen:
            continue
        seen.add(file)
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        names.update(_IDENT.findall(text))
        for inc in _INCLUDE.findall(text):
            for base in (file.parent, root):
                if (base / inc).is_file():
                    pending.append(base / inc)
                    break
    return frozenset(names)
