"""A small normalisation library laid out as Liger-Kernel is: ``normlib/ops/*.py`` kernels choosing their
libdevice imports by the Triton version and the device, helpers in ``normlib/ops/utils.py`` imported by
absolute and relative paths, a kernel re-exported here. Read by ``tests/triton/test_triton_imports.py``."""

from .ops.rms_norm import _rms_norm_forward_kernel as rms_norm_kernel  # noqa: F401 - the re-export
