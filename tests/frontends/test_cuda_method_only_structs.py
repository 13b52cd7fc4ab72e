"""Structs of member functions only used as local objects, as the CUDA samples' simpleTemplates writes its
``SharedMemory<T>`` (sharedmem.cuh): a member-less primary template whose ``getPointer()`` calls an undefined
``error()``, and explicit specializations that each return their own ``extern __shared__`` array."""

from __future__ import annotations

import pytest
import torch

from larkc.errors import LarkcError
from larkc.frontends.cuda import parse_cuda
from larkc.ir import verify_module
from larkc.ir.types import F32, I32, ScalarType
from larkc.semantics import GlobalBuffer, KernelArg, LaunchConfig, simulate

SHAREDMEM = """
template <typename T> struct SharedMemory {
    __device__ T *getPointer() {
        extern __device__ void error(void);
        error();
        return NULL;
    }
};
template <> struct SharedMemory<int> {
    __device__ int *getPointer() {
        extern __shared__ int s_int[];
        return s_int;
    }
};
template <> struct SharedMemory<float> {
    __device__ float *getPointer() {
        extern __shared__ float s_float[];
        return s_float;
    }
};
template <class T>
__global__ void reverse(T *g_idata, T *g_odata) {
    SharedMemory<T> smem;
    T *sdata = smem.getPointer();
    const unsigned int tid = threadIdx.x;
    sdata[tid] = g_idata[tid];
    __syncthreads();
    g_odata[tid] = sdata[blockDim.x - 1 - tid] * (T)2;
}
"""


@pytest.mark.parametrize(("targ", "dtype", "ir_type"), [("float", torch.float32, F32), ("int", torch.int32, I32)])
def test_each_instance_takes_its_own_shared_array(targ: str, dtype: torch.dtype, ir_type: ScalarType) -> None:
    module = parse_cuda(text=SHAREDMEM, file="sharedmem.cu", kernel=f"reverse<{targ}>")
    verify_module(module)
    x = torch.arange(8).to(dtype)
    args: dict[str, KernelArg] = {
        "g_idata": GlobalBuffer("g_idata", x, ir_type),
        "g_odata": GlobalBuffer("g_odata", torch.zeros(8, dtype=dtype), ir_type),
    }
    result = simulate(module, f"reverse<{targ}>", LaunchConfig((1, 1, 1), (8, 1, 1), 8 * 4), args)
    assert not result.diagnoses, result.diagnoses
    assert result.buffers["g_odata"].tolist() == (x.flip(0) * 2).tolist()


def test_the_primary_template_s_block_scope_function_declaration_is_a_located_error() -> None:
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=SHAREDMEM, file="sharedmem.cu", kernel="reverse<double>")
    assert str(info.value).splitlines()[0] == "sharedmem.cu:4:32: error: unsupported declarator: error(void)"


def test_two_instances_of_one_member_less_template_in_one_kernel_are_a_located_error() -> None:
    # the objects' member functions would share one lowered body (one name, no member types to tell apart)
    src = (
        SHAREDMEM
        + """
__global__ void both(float *f, int *i) {
    SharedMemory<float> a;
    SharedMemory<int> b;
    a.getPointer()[threadIdx.x] = f[threadIdx.x];
    b.getPointer()[threadIdx.x] = i[threadIdx.x];
}
"""
    )
    with pytest.raises(LarkcError) as info:
        parse_cuda(text=src, file="sharedmem.cu", kernel="both")
    first = str(info.value).splitlines()[0]
    assert first == (
        "sharedmem.cu:33:5: error: unsupported two instances of a struct template with the same member types used as"
        " objects: SharedMemory<int>"
    )
