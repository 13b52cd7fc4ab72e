"""KernelBench-style candidates: a ``ModelNew`` file (CUDA through ``load_inline``) turned into a
verification task against its problem file, with no hand-written task (``docs/kernelbench.md``).

:func:`derive_task` is the entry point; the pipeline hands it what the problem's ``get_inputs()`` and
``get_init_inputs()`` return (:class:`ProblemInput`), as data from the reference stage.
"""

from larkc.frontends.kernelbench.candidate import init_input_values, read_model_new
from larkc.frontends.kernelbench.derive import (
    MAX_ELEMENTS,
    DerivedCandidate,
    ProblemInput,
    ProblemParam,
    cache_root,
    derive_task,
    task_file_text,
)

__all__ = [
    "MAX_ELEMENTS",
    "DerivedCandidate",
    "ProblemInput",
    "ProblemParam",
    "cache_root",
    "derive_task",
    "init_input_values",
    "read_model_new",
    "task_file_text",
]
