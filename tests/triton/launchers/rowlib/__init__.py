"""A small library laid out as Triton libraries are (Liger-Kernel, Unsloth): kernels in modules of a
package importing their helpers relatively, a device query at import. Read by
``tests/triton/test_triton_launcher_library.py``."""
