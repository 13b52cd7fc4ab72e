"""Lean lowering: kernel IR and spec IR to Lean 4 over the library in ``lean/``.

The kernel side starts from the phase form (:mod:`larkc.ir.phases`, a base module because the
provers share it; :mod:`larkc.semantics.phased` runs it and is tested against the simulator).

* :mod:`larkc.lower.shapes` — shape expressions as Lean terms.
* :mod:`larkc.lower.spec` — the spec IR as Lean definitions over ``Larkc.Torch``.
"""
