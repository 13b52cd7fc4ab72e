"""Device queries, as ``liger_kernel.utils``."""

import importlib.util


def is_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None
