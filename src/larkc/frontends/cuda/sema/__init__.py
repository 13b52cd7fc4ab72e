"""The CUDA frontend's C++ semantic analysis: declarations, types, templates, overloads and constants.

:mod:`.unit` holds a file's declarations (:class:`~.unit.TranslationUnit`: symbol tables, type
resolution, template binding and specialisation choice), :mod:`.constants` folds constant expressions,
:mod:`.ctypes` has C's types and conversions, :mod:`.groups` the cooperative groups' compile-time
values, :mod:`.constant_writes` the check that no device code writes ``__constant__`` memory.

It does not import the lowering (``lower``, ``lowering``), which imports it: the unit asks for a
function's IR through the :class:`~.unit.FunctionLowerer` the driver gives it. ``tests/test_layers.py``
keeps the direction.
"""
