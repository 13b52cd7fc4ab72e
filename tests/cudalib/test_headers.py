"""Headers a real machine has (issue 22, item 1): the CUDA toolkit found as nvcc's users find it, and the
toolkit's and host libraries' headers larkc does not model known but skipped, a use of a name only they
declare a located error naming the header.

The tests run without a toolkit (a fake one in ``tmp_path``, or ``CUDA_HOME`` pointing where there is
none); the one that reads the installed toolkit is skipped where there is none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from larkc.errors import LarkcError
from larkc.frontends.cuda import headers, parse_cuda
from larkc.frontends.cuda.headers import cuda_include_dir
from larkc.frontends.cuda.preprocess import preprocess


def _toolkit(root: Path) -> Path:
    """A fake toolkit at ``root``: ``include/cuda_runtime.h``, the file that marks one."""
    include = root / "include"
    include.mkdir(parents=True)
    (include / "cuda_runtime.h").write_text("")
    return include


@pytest.fixture
def no_toolkit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``CUDA_HOME`` set where there is no toolkit: none is used, whatever the machine has."""
    empty = tmp_path / "no-cuda"
    empty.mkdir()
    monkeypatch.setenv("CUDA_HOME", str(empty))


# 1. Finding the toolkit ---------------------------------------------------------------------------------


def test_cuda_home_decides(tmp_path: Path) -> None:
    include = _toolkit(tmp_path / "cuda")
    assert cuda_include_dir({"CUDA_HOME": str(tmp_path / "cuda")}) == include
    assert cuda_include_dir({"CUDA_PATH": str(tmp_path / "cuda"), "PATH": ""}) == include
    # set where there is no toolkit: no toolkit (not the one on PATH or in /usr/local/cuda)
    assert cuda_include_dir({"CUDA_HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}) is None


def test_nvcc_on_path_then_the_usual_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    include = _toolkit(tmp_path / "cuda-13.0")
    nvcc = tmp_path / "cuda-13.0" / "bin" / "nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text("#!/bin/sh\n")
    nvcc.chmod(0o755)
    assert cuda_include_dir({"PATH": str(nvcc.parent)}) == include
    # a link to it elsewhere (/usr/local/bin/nvcc -> the toolkit's): found through the link
    links = tmp_path / "links"
    links.mkdir()
    (links / "nvcc").symlink_to(nvcc)
    assert cuda_include_dir({"PATH": str(links)}) == include
    # no nvcc on PATH: the usual install path
    monkeypatch.setattr(headers, "_DEFAULT_TOOLKIT", tmp_path / "cuda-13.0")
    assert cuda_include_dir({"PATH": str(tmp_path / "nothing")}) == include
    monkeypatch.setattr(headers, "_DEFAULT_TOOLKIT", tmp_path / "nothing")
    assert cuda_include_dir({"PATH": str(tmp_path / "nothing")}) is None


# 2. Toolkit headers larkc does not model ----------------------------------------------------------------

_USES = """#include <cuda_device_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
__global__ void plain(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void uses(float* out) {
  void* p = cudaGetParameterBuffer(16, 16);
  out[threadIdx.x] = 1.0f;
}
__global__ void undeclared(float* out) { out[threadIdx.x] = nowhere_declared; }
"""


def test_a_toolkit_header_is_skipped_and_a_use_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cuda"
    include = _toolkit(root)
    (include / "cuda_device_runtime_api.h").write_text('#include "inner.h"\n')
    (include / "inner.h").write_text("extern __device__ void* cudaGetParameterBuffer(size_t, size_t);\n")
    (include / "nvtx3").mkdir()
    (include / "nvtx3" / "nvToolsExt.h").write_text("void nvtxRangePop(void);\n")
    monkeypatch.setenv("CUDA_HOME", str(root))
    source = tmp_path / "k.cu"
    source.write_text(_USES)
    pp = preprocess(_USES, str(source), cuda_include=include)
    assert [h.header for h in pp.skipped_headers] == ["cuda_device_runtime_api.h", "nvtx3/nvToolsExt.h"]
    assert parse_cuda(source, kernel="plain").functions
    with pytest.raises(LarkcError) as info:
        parse_cuda(source, kernel="uses")
    assert info.value.render().startswith(
        f"{source}:5:13: error: unsupported use of cudaGetParameterBuffer, declared by "
        f"<cuda_device_runtime_api.h> (the CUDA toolkit, included at {source}:1), a header larkc does not model"
    )
    with pytest.raises(LarkcError, match="use of undeclared identifier nowhere_declared"):
        parse_cuda(source, kernel="undeclared")


def test_without_a_toolkit_its_headers_are_not_found(tmp_path: Path, no_toolkit: None) -> None:
    source = tmp_path / "k.cu"
    source.write_text(_USES)
    with pytest.raises(LarkcError) as info:
        parse_cuda(source, kernel="plain")
    assert f"{source}:1:10: error: include file not found: <cuda_device_runtime_api.h>" in info.value.render()


def test_the_installed_toolkit(tmp_path: Path) -> None:
    include = cuda_include_dir()
    if include is None:
        pytest.skip("no CUDA toolkit here (CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda)")
    if not (include / "cuda_device_runtime_api.h").is_file():
        pytest.skip(f"{include} has no cuda_device_runtime_api.h")
    source = tmp_path / "k.cu"
    source.write_text(_USES)
    assert parse_cuda(source, kernel="plain").functions
    with pytest.raises(LarkcError, match=r"declared by <cuda_device_runtime_api.h> \(the CUDA toolkit"):
        parse_cuda(source, kernel="uses")


# 3. Host libraries: OpenMP, THC, POSIX --------------------------------------------------------------------

_HOST = """#include <omp.h>
#include <THC/THCAtomics.cuh>
#include <unistd.h>
#include <sys/stat.h>
__global__ void plain(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void omp(float* out) { out[threadIdx.x] = omp_get_thread_num(); }
__global__ void thc(float* out) { gpuAtomicAdd(out, 1.0f); }
"""


def test_host_library_headers_are_skipped_and_a_use_names_them(tmp_path: Path, no_toolkit: None) -> None:
    source = tmp_path / "k.cu"
    source.write_text(_HOST)
    assert parse_cuda(source, kernel="plain").functions
    with pytest.raises(LarkcError) as info:
        parse_cuda(source, kernel="omp")
    assert info.value.render().startswith(
        f"{source}:6:54: error: unsupported use of omp_get_thread_num, declared by <omp.h> "
        f"(OpenMP, included at {source}:1)"
    )
    with pytest.raises(LarkcError, match=r"gpuAtomicAdd, declared by <THC/THCAtomics.cuh> \(PyTorch's THC"):
        parse_cuda(source, kernel="thc")


def test_a_header_in_the_include_directories_comes_first(tmp_path: Path, no_toolkit: None) -> None:
    """A user's own ``omp.h`` (a stand-in on ``-I``) is read, as nvcc reads it before the system's."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "omp.h").write_text("#define OMP_STUB 3.0f\n")
    source = tmp_path / "k.cu"
    source.write_text("#include <omp.h>\n__global__ void k(float* out) { out[threadIdx.x] = OMP_STUB; }\n")
    assert parse_cuda(source, kernel="k", include_dirs=[stubs]).functions
    with pytest.raises(LarkcError, match="use of undeclared identifier OMP_STUB"):
        parse_cuda(source, kernel="k")
