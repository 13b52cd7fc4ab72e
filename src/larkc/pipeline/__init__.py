"""The pipeline: orchestration above the stages (task -> frontend -> reference -> simulator).

The stages (:mod:`larkc.frontends`, :mod:`larkc.reference`, :mod:`larkc.semantics`,
:mod:`larkc.provers`) know nothing of each other; this package connects them, and the command line
(:mod:`larkc.cli`) and the public API (:mod:`larkc`) sit on top of it.

* :mod:`larkc.pipeline.api`: ``parse``, ``trace``, ``run`` on a task or a task path (the public API).
* :mod:`larkc.pipeline.run`: :func:`~larkc.pipeline.run.run_task`, ``run_instance``: simulate every
  shape instance of a task and compare it with the reference.
* :mod:`larkc.pipeline.inputs`: the tensors of an instance and the kernel's arguments.
* :mod:`larkc.pipeline.compare`: the reference on those inputs, tolerances, the comparison.
* :mod:`larkc.pipeline.reports`: ``RunReport``, ``InstanceReport``, ``OutputReport``.
* :mod:`larkc.pipeline.replay`: replay files of failing instances.

This facade imports nothing, so that ``larkc parse`` (through :mod:`larkc.pipeline.api`) does not
import torch; import the module you need.
"""
