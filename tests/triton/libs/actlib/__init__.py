"""A small activation library laid out as Unsloth is: ``actlib/kernels/utils.py`` picks ``triton_tanh`` by
the Triton version and the device type, kernels import it relatively and are made by calling
``triton.jit``. Read by ``tests/triton/test_triton_imports.py``."""
