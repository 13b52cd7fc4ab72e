from .geglu import _approx_forward_kernel, geglu_approx_forward_kernel  # noqa: F401 - re-exports
