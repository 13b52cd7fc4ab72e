"""Lowering of CUDA function bodies (a tree-sitter-cuda parse of preprocessed text) into the kernel IR.

A :class:`~larkc.frontends.cuda.sema.unit.TranslationUnit` holds a file's declarations and asks
:class:`FunctionLowering` for each function it instantiates (a kernel with its template arguments,
then every device function it calls, each template instance and overload once).
:class:`FunctionLowering` turns one function body into IR statements:

* expressions are lowered to pure IR expressions; every memory read becomes a :class:`Load` into a fresh
  temporary emitted before the statement that needs it, so C's side effects happen in program order;
* operands are converted by C's rules (integer promotion, usual arithmetic conversions, CUDA's
  half-precision overloads), made explicit as :class:`Cast` nodes; conversions of literals are folded;
* ``&&``, ``||`` and ``?:`` whose right-hand side reads memory become ``if`` statements, preserving C's
  short-circuit evaluation (a guarded load is never executed when its guard is false);
* names are made unique per function (a shadowing declaration of ``i`` becomes ``i.1``).

Anything outside the supported subset raises :class:`UnsupportedError` with the span of the construct.
Each function is checked by the IR verifier as it is lowered: IR the verifier rejects is a bug of the
lowering, raised as :class:`IllTypedLowering` (an internal error, not a :class:`LarkcError`).

The work is split by concern over the modules of :mod:`larkc.frontends.cuda.lowering`, each a mixin of
:class:`FunctionLowering` over the state in :class:`~larkc.frontends.cuda.lowering.core.LoweringCore`:

==========================  ===============================================================================
``lowering.core``           per-function state: scopes, fresh names, the statement buffer, errors
``lowering.values``         lowered values and lvalues, null pointers and zeros
``lowering.conversions``    C's conversions: promotions, usual arithmetic conversions, casts, truth values
``lowering.statements``     the function, its parameters, declarations and statements
``lowering.expressions``    rvalues, lvalues, operators, short-circuits, member access
``lowering.calls``          what a call names: casts, user functions, member functions, constructors
``lowering.overloads``      overload resolution, template argument deduction, default arguments
``lowering.builtin_calls``  the device library (intrinsics, math, atomics, shuffles) as a table by name
``lowering.cooperative``    cooperative groups: thread blocks, tiles, their methods, ``cg::reduce``
``lowering.cub``            cub's block and warp collectives by their documented semantics
``lowering.lambdas``        local lambdas: inlined at each call, captures by reference and by value
==========================  ===============================================================================
"""

from __future__ import annotations

from larkc.frontends.cuda.lowering.builtin_calls import BuiltinCalls
from larkc.frontends.cuda.lowering.calls import Calls
from larkc.frontends.cuda.lowering.cooperative import CooperativeGroups
from larkc.frontends.cuda.lowering.core import IllTypedLowering
from larkc.frontends.cuda.lowering.cub import CubCollectives
from larkc.frontends.cuda.lowering.expressions import Expressions
from larkc.frontends.cuda.lowering.overloads import Overloads
from larkc.frontends.cuda.lowering.statements import Statements

__all__ = ["FunctionLowering", "IllTypedLowering"]


class FunctionLowering(Statements, Expressions, Calls, Overloads, BuiltinCalls, CooperativeGroups, CubCollectives):
    """Lowers one function body (a kernel or a device function instance) to IR.

    Construct it with the translation unit, the function's definition, its template environment and its
    IR name, then call :meth:`lower`; :class:`~larkc.frontends.cuda.sema.unit.TranslationUnit` also uses
    :meth:`lower_params`, :meth:`function_declarator` and :meth:`is_group_type` on their own.
    """
