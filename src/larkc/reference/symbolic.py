"""Symbolic evaluation of a spec graph: each output element as a term over the input elements.

The inputs (and the parameters, which a proof should cover for every value) are tensors of
:func:`~larkc.symbolic.terms.elem` leaves; every op has a rule in :data:`SYMBOLIC_RULES` that builds the
terms of its result from the terms of its operands, on numpy object arrays so that layout ops are numpy's.
Reductions use the n-ary constructors, so a sum over a row of ``K`` elements costs one pass over ``K``
terms. Indexing by a tensor of indices (gather, index_select, embedding, cross_entropy's target) reads an
input at a symbolic position (:func:`~larkc.symbolic.terms.read`) when the source is an input laid out
along the indexed dim, and otherwise selects among the candidates (``sum_j select(idx == j, x_j, 0)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar, cast

import numpy as np

from larkc.errors import ReferenceError_
from larkc.ir.types import ScalarType
from larkc.reference.shapes import concrete
from larkc.reference.spec import Absent, Ref, Scalar, SpecGraph, SpecNode, SpecOp
from larkc.symbolic import terms as tm
from larkc.symbolic.conditions import Requirement, SideCondition, record, side_conditions
from larkc.symbolic.constants import SQRT_2_OVER_PI, SQRT_HALF
from larkc.symbolic.extended import (
    Ext,
    NonFinite,
    Undecided,
    UndecidedChoice,
    ext_add,
    ext_apply,
    ext_compare,
    ext_div,
    ext_extremum,
    ext_mul,
    ext_neg,
    ext_select,
    ext_sum,
)
from larkc.symbolic.tensor import TermTensor
from larkc.symbolic.terms import BoolTerm, Cmp, CmpOp, Elem, Fn, Poly, Term

__all__ = ["SYMBOLIC_RULES", "InfinityChosenByData", "evaluate_symbolic", "evaluate_symbolic_with_conditions"]

ObjArray = np.ndarray[Any, np.dtype[np.object_]]


class InfinityChosenByData(ReferenceError_):
    """The reference chooses between an infinity and a number (or two non-finite values) by input data
    (``masked_fill(mask, float("-inf"))`` with ``mask`` an input): one term cannot say the element. The
    verifier evaluates the reference again with the mask inputs fixed, case by case."""


@dataclass(frozen=True, slots=True)
class SymValue:
    """A tensor of terms during evaluation: an object array and the spec element type."""

    array: ObjArray
    dtype: ScalarType


@dataclass(frozen=True, slots=True)
class SymbolicContext:
    env: Mapping[str, int]

    def int(self, e: Any) -> int:
        return e if isinstance(e, int) else concrete(e, self.env)


SymbolicRule = Callable[[SpecNode, list[SymValue | None], SymbolicContext], ObjArray]


def _obj(values: Any, shape: Sequence[int] | None = None) -> ObjArray:
    """An object array holding ``values`` (terms are never unpacked as sequences)."""
    if isinstance(values, np.ndarray):
        return values.astype(object, copy=False)
    if shape is not None:
        out = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):
            out[i] = v
        return out.reshape(tuple(shape))
    out0 = np.empty((), dtype=object)
    out0[()] = values
    return out0


def _at(a: ObjArray, index: Any) -> Term:
    """The term at ``index`` of an object array (numpy's stubs type it as an array)."""
    return cast(Term, a[index])


#: An element during evaluation: a term, or (in a floating-point tensor) an infinity or NaN.
Value = Term | NonFinite
_V = TypeVar("_V")


def real(t: Value) -> Poly:
    """A number term: a truth value counts as 1 or 0. An infinity or NaN reaching an op that has no rule
    for it is an error (located at the op's reference line by the caller)."""
    if isinstance(t, NonFinite):
        raise ReferenceError_(f"the value {t} reaches an op without a rule for infinities and NaN")
    return t if isinstance(t, Poly) else tm.select(t, tm.ONE, tm.ZERO)


def xreal(t: Value) -> Ext:
    """An extended real: a number term, or an infinity or NaN as it is."""
    return t if isinstance(t, NonFinite) else real(t)


def truth(t: Value) -> BoolTerm:
    """A truth term: a number is true when nonzero (an infinity and NaN are nonzero)."""
    if isinstance(t, NonFinite):
        return tm.TRUE
    return tm.compare("!=", t, tm.ZERO) if isinstance(t, Poly) else t


def _has_nonfinite(*arrays: ObjArray | None) -> bool:
    return any(a is not None and any(isinstance(v, NonFinite) for v in a.flat) for a in arrays)


#: The per-element condition arrays of the :func:`_map` calls of the elementwise rule being evaluated
#: (the last list; none outside one): each element's own conditions, attributable to that element alone.
_ELEMENT_CONDITIONS: list[list[ObjArray]] = []


def _map(fn: Callable[..., Term | NonFinite], *arrays: ObjArray) -> ObjArray:
    """``fn`` applied elementwise with numpy broadcasting. Inside an elementwise rule the conditions each
    element's computation records are kept per element (:data:`_ELEMENT_CONDITIONS`)."""
    if not _ELEMENT_CONDITIONS:
        return _obj(np.frompyfunc(fn, len(arrays), 1)(*arrays))
    collected = _ELEMENT_CONDITIONS[-1]

    def each(*xs: Any) -> tuple[Term | NonFinite, tuple[SideCondition, ...]]:
        with side_conditions() as sc:
            v = fn(*xs)
        return v, sc.conditions

    values, conditions = np.frompyfunc(each, len(arrays), 2)(*arrays)
    collected.append(_obj(conditions))
    return _obj(values)


def _arr(v: SymValue | None) -> ObjArray:
    if v is None:
        raise ReferenceError_("missing operand")
    return v.array


def _elementwise(
    fn: Callable[..., Term], convert: Callable[[Value], Term] = real, ext: Callable[..., Value] | None = None
) -> SymbolicRule:
    """The rule of an elementwise op; ``ext`` is its extended-real form, used when an operand holds an
    infinity or NaN (without one, such an operand is an error)."""

    def rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
        arrays = [_arr(v) for v in a]
        if ext is not None and _has_nonfinite(*arrays):
            return _map(lambda *xs: _decided(ext, *(xreal(x) for x in xs)), *arrays)
        return _map(lambda *xs: fn(*(convert(x) for x in xs)), *arrays)

    return rule


def _decided(fn: Callable[..., _V], *args: Any) -> _V:
    """``fn(*args)`` with an :class:`Undecided` extended value (and a division by the constant 0) as a
    reference error."""
    try:
        return fn(*args)
    except UndecidedChoice as e:
        raise InfinityChosenByData(f"infinities: {e.reason}") from None
    except Undecided as e:
        raise ReferenceError_(f"infinities: {e.reason}") from None
    except ZeroDivisionError:
        raise ReferenceError_("division by the constant zero") from None


def _div(a: Poly, b: Poly) -> Poly:
    try:
        return tm.div(a, b)
    except ZeroDivisionError:
        raise ReferenceError_("division by the constant zero") from None


def _recip(a: Poly) -> Poly:
    return _div(tm.ONE, a)


def _pow(a: Poly, b: Poly) -> Poly:
    if b.is_const and b.const.denominator == 1 and b.const < 0 and a.is_const and a.const == 0:
        raise ReferenceError_("zero to a negative power")
    if not (b.is_const and b.const.denominator == 1):
        # x ** (p/q) with p/q > 0 is defined for x >= 0; any other non-integer exponent needs x > 0 (an
        # integer power is total, or divides, and the division records x != 0)
        positive_fraction = b.is_const and b.const > 0
        _in_domain(a, Requirement.NONNEGATIVE if positive_fraction else Requirement.POSITIVE)
    return tm.apply(Fn.POW, a, b)


def _in_domain(arg: Poly, requirement: Requirement) -> Poly:
    """``arg``, with the condition that the partial function applied to it needs (``log``: ``> 0``,
    ``sqrt``: ``>= 0``) recorded *when it is evaluated*: the constructors may cancel the application on the
    spot (``0 * sqrt(x - 1)``), and the reference is NaN there all the same. A constant argument is
    evaluated by the term constructors (NaN, -inf) and needs nothing."""
    if not arg.is_const:
        record(arg, requirement)
    return arg


def _abs(x: Poly) -> Poly:
    return tm.maximum(x, tm.neg(x))


def _sigmoid(x: Poly) -> Poly:
    return _recip(tm.add(tm.ONE, tm.apply(Fn.EXP, tm.neg(x))))


_HALF = tm.const(Fraction(1, 2))


def _gelu(approximate: str) -> Callable[[Poly], Poly]:
    if approximate == "tanh":
        # sqrt(2 / pi) and 0.044715 as torch writes them: the exact named constant and the binary64 one
        k = SQRT_2_OVER_PI
        c = tm.const(0.044715)

        def gelu_tanh(x: Poly) -> Poly:
            inner = tm.mul(k, tm.add(x, tm.mul(c, tm.power(x, 3))))
            return tm.mul(tm.mul(_HALF, x), tm.add(tm.ONE, tm.apply(Fn.TANH, inner)))

        return gelu_tanh
    inv_sqrt2 = SQRT_HALF

    def gelu_erf(x: Poly) -> Poly:
        return tm.mul(tm.mul(_HALF, x), tm.add(tm.ONE, tm.apply(Fn.ERF, tm.mul(x, inv_sqrt2))))

    return gelu_erf


def _unary(fn: Callable[[Poly], Poly], ext: Callable[[Ext], Ext] | None = None) -> SymbolicRule:
    return _elementwise(fn, ext=ext)


def _ext_abs(x: Ext) -> Ext:
    return NonFinite.POS_INF if x is NonFinite.NEG_INF else x if isinstance(x, NonFinite) else _abs(x)


def _ext_sigmoid(x: Ext) -> Ext:
    return ext_div(tm.ONE, ext_add(tm.ONE, ext_apply(Fn.EXP, ext_neg(x))))


def _ext_fn(fn: Fn) -> Callable[[Ext], Ext]:
    requirement = {Fn.LOG: Requirement.POSITIVE, Fn.SQRT: Requirement.NONNEGATIVE}.get(fn)
    if requirement is None:
        return lambda x: ext_apply(fn, x)
    return lambda x: ext_apply(fn, _in_domain(x, requirement) if isinstance(x, Poly) else x)


def _gelu_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    return _map(lambda x: _gelu(node.attr("approximate"))(real(x)), _arr(a[0]))


def _softplus_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    beta, threshold = tm.const(node.attr("beta")), tm.const(node.attr("threshold"))

    def softplus(x: Term) -> Poly:
        bx = tm.mul(beta, real(x))
        smooth = _div(tm.apply(Fn.LOG, tm.add(tm.ONE, tm.apply(Fn.EXP, bx))), beta)
        return tm.select(tm.compare(">", bx, threshold), real(x), smooth)

    return _map(softplus, _arr(a[0]))


def _where_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    if node.dtype.is_bool:

        def where_bool(c: Term, x: Term, y: Term) -> Term:
            cond = truth(c)
            return tm.logical_or(tm.logical_and(cond, truth(x)), tm.logical_and(tm.logical_not(cond), truth(y)))

        return _map(where_bool, *(_arr(v) for v in a))
    arrays = [_arr(v) for v in a]
    if _has_nonfinite(*arrays):
        return _map(lambda c, x, y: _decided(ext_select, truth(c), xreal(x), xreal(y)), *arrays)
    return _map(lambda c, x, y: tm.select(truth(c), real(x), real(y)), *arrays)


def _clamp_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    out = _arr(a[0])
    if _has_nonfinite(out, *(v.array for v in a[1:] if v is not None)):
        if a[1] is not None:
            out = _map(lambda x, lo: ext_extremum([xreal(x), xreal(lo)], True), out, a[1].array)
        if a[2] is not None:
            out = _map(lambda x, hi: ext_extremum([xreal(x), xreal(hi)], False), out, a[2].array)
        return out
    if a[1] is not None:
        out = _map(lambda x, lo: tm.maximum(real(x), real(lo)), out, a[1].array)
    if a[2] is not None:
        out = _map(lambda x, hi: tm.minimum(real(x), real(hi)), out, a[2].array)
    return out


def _cast_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    src = a[0]
    assert src is not None
    target = node.dtype
    if target.is_bool:
        return _map(truth, src.array)
    if src.dtype.is_float and not target.is_float:
        return _map(lambda x: tm.apply(Fn.TRUNC, real(x)), src.array)
    return _map(xreal, src.array)  # exact reals: float to float and int to float casts are the identity


# Reductions -----------------------------------------------------------------------------------------


def _rows(x: ObjArray, dims: Sequence[int]) -> tuple[ObjArray, tuple[int, ...]]:
    """``x`` with ``dims`` moved last and flattened: (rows, kept shape)."""
    kept = [d for d in range(x.ndim) if d not in dims]
    moved = np.transpose(x, (*kept, *dims))
    kept_shape = tuple(x.shape[d] for d in kept)
    k = math.prod(x.shape[d] for d in dims)
    return _obj(moved.reshape((*kept_shape, k)).reshape(-1, k)), kept_shape


def _unrows(values: Sequence[Value], x: ObjArray, dims: Sequence[int], keepdim: bool) -> ObjArray:
    kept_shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    out = _obj(list(values), kept_shape)
    if keepdim:
        out = out.reshape(tuple(1 if d in dims else n for d, n in enumerate(x.shape)))
    return out


def _reduce(row_fn: Callable[[list[Term]], Term], ext: Callable[[list[Value]], Value] | None = None) -> SymbolicRule:
    def rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
        x = _arr(a[0])
        dims = tuple(node.attr("dims"))
        if not dims:
            return x.copy()
        rows, _ = _rows(x, dims)
        fn: Callable[[list[Any]], Value] = ext if ext is not None and _has_nonfinite(x) else row_fn
        return _unrows([fn(list(r)) for r in rows], x, dims, bool(node.attr("keepdim")))

    return rule


def _sum(row: list[Term]) -> Poly:
    return tm.add(*(real(t) for t in row)) if row else tm.ZERO


def _mean(row: list[Term]) -> Poly:
    return _div(_sum(row), tm.const(len(row)))


def _ext_sum(row: list[Value]) -> Ext:
    return ext_sum([xreal(t) for t in row])


def _ext_mean(row: list[Value]) -> Value:
    return _decided(ext_div, _ext_sum(row), tm.const(len(row)))


def _ext_extreme(is_max: bool) -> Callable[[list[Value]], Value]:
    return lambda row: ext_extremum([xreal(t) for t in row], is_max)


def _var_of(row: list[Term], correction: float) -> Poly:
    """``sum((x - mean)**2) / (N - correction)``, built as ``(sum(x**2) - sum(x)**2 / N) / (N - correction)``:
    the same polynomial (``expand`` makes them one object), but O(N) terms instead of O(N**2)."""
    vals = [real(t) for t in row]
    n = len(vals)
    total = tm.add(*vals)
    squares = tm.add(*(tm.power(v, 2) for v in vals))
    centred_sum = tm.sub(squares, _div(tm.power(total, 2), tm.const(n)))
    return _div(centred_sum, tm.const(Fraction(n) - Fraction(correction)))


def _var_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0])
    dims = tuple(node.attr("dims")) or tuple(range(x.ndim))
    correction = node.attr("correction")

    def row_fn(row: list[Term]) -> Poly:
        v = _var_of(row, correction)
        return tm.apply(Fn.SQRT, v) if node.op is SpecOp.STD else v

    rows, _ = _rows(x, dims)
    return _unrows([row_fn(list(r)) for r in rows], x, dims, bool(node.attr("keepdim")))


def _norm_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0])
    dims = tuple(node.attr("dims")) or tuple(range(x.ndim))
    p = float(node.attr("ord"))

    def row_fn(row: list[Term]) -> Poly:
        vals = [real(t) for t in row]
        if p == math.inf:
            return tm.maximum(*(_abs(v) for v in vals))
        if p == -math.inf:
            return tm.minimum(*(_abs(v) for v in vals))
        if p == 0:
            return tm.add(*(tm.select(truth(v), tm.ONE, tm.ZERO) for v in vals))
        if p == int(p) and int(p) % 2 == 0:
            total = tm.add(*(tm.power(v, int(p)) for v in vals))
        else:
            total = tm.add(*(tm.apply(Fn.POW, _abs(v), tm.const(p)) for v in vals))
        return tm.apply(Fn.POW, total, tm.const(Fraction(1) / Fraction(p)))

    rows, _ = _rows(x, dims)
    return _unrows([row_fn(list(r)) for r in rows], x, dims, bool(node.attr("keepdim")))


def _arg_best(row: list[Poly], is_max: bool) -> tuple[Poly, Poly]:
    """``(index, value)`` of the first extremum, as a tournament so that terms stay shallow."""
    if len(row) == 1:
        return tm.ZERO, row[0]
    mid = len(row) // 2
    li, lv = _arg_best(row[:mid], is_max)
    ri, rv = _arg_best(row[mid:], is_max)
    ri = tm.add(ri, tm.const(mid))
    # ties go left: torch returns the first extremal index
    left_wins = tm.compare(">=", lv, rv) if is_max else tm.compare("<=", lv, rv)
    best = tm.maximum(lv, rv) if is_max else tm.minimum(lv, rv)
    return tm.select(left_wins, li, ri), best


def _ext_arg_best(row: list[Ext], is_max: bool) -> tuple[Poly, Ext]:
    """:func:`_arg_best` over extended reals: NaN is the extremum (torch's rule), ties go left."""
    if len(row) == 1:
        return tm.ZERO, row[0]
    mid = len(row) // 2
    li, lv = _ext_arg_best(row[:mid], is_max)
    ri, rv = _ext_arg_best(row[mid:], is_max)
    ri = tm.add(ri, tm.const(mid))
    if lv is NonFinite.NAN or rv is NonFinite.NAN:
        return (li, lv) if lv is NonFinite.NAN else (ri, rv)
    left_wins = ext_compare(">=" if is_max else "<=", lv, rv)
    return tm.select(left_wins, li, ri), ext_extremum([lv, rv], is_max)


def _argreduce_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0])
    dim = node.attr("dim")
    keepdim = bool(node.attr("keepdim"))
    is_max = node.op is SpecOp.ARGMAX

    def best(row: Sequence[Value]) -> Poly:
        if any(isinstance(t, NonFinite) for t in row):
            return _ext_arg_best([xreal(t) for t in row], is_max)[0]
        return _arg_best([real(t) for t in row], is_max)[0]

    if dim is None:
        out = _obj(best(list(x.reshape(-1))))
        return out.reshape(tuple(1 for _ in x.shape)) if keepdim else out
    rows, _ = _rows(x, (dim,))
    return _unrows([best(list(r)) for r in rows], x, (dim,), keepdim)


# Along one dim ----------------------------------------------------------------------------------------


def _along(x: ObjArray, dim: int, line_fn: Callable[[list[Any]], Sequence[Value]]) -> ObjArray:
    moved = np.moveaxis(x, dim, -1)
    flat = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, moved.shape[-1])
    out = np.empty(flat.shape, dtype=object)
    for i, line in enumerate(flat):
        out[i, :] = _obj(line_fn(list(line)), (len(line),))
    return _obj(np.moveaxis(out.reshape(moved.shape), -1, dim))


def _softmax_line(line: Sequence[Value], log: bool) -> list[Term]:
    vals = [real(t) for t in line]
    top = tm.maximum(*vals)
    shifted = [tm.sub(v, top) for v in vals]
    exps = [tm.apply(Fn.EXP, s) for s in shifted]
    total = tm.add(*exps)
    if log:
        log_total = tm.apply(Fn.LOG, total)
        return [tm.sub(s, log_total) for s in shifted]
    return [_div(e, total) for e in exps]


def _ext_softmax_line(line: list[Value], log: bool) -> list[Value]:
    """:func:`_softmax_line` over extended reals: a ``-inf`` element has weight ``exp(-inf) = 0``; a row of
    ``-inf`` only is ``inf - inf``, NaN throughout (as torch computes it)."""
    vals = [xreal(t) for t in line]
    top = ext_extremum(vals, True)
    shifted = [ext_add(v, ext_neg(top)) for v in vals]
    exps = [ext_apply(Fn.EXP, s) for s in shifted]
    total = ext_sum(exps)
    if log:
        log_total = ext_apply(Fn.LOG, total)
        return [ext_add(s, ext_neg(log_total)) for s in shifted]
    return [ext_div(e, total) for e in exps]


def _softmax_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    log = node.op is SpecOp.LOG_SOFTMAX

    def line_fn(line: list[Value]) -> Sequence[Value]:
        if any(isinstance(t, NonFinite) for t in line):
            return _decided(_ext_softmax_line, line, log)
        return _softmax_line(line, log)

    return _along(_arr(a[0]), node.attr("dim"), line_fn)


def _cumsum_line(line: Sequence[Value]) -> list[Term]:
    out: list[Term] = []
    acc = tm.ZERO
    for t in line:
        acc = tm.add(acc, real(t))
        out.append(acc)
    return out


def _norm_layer_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0])
    k = len(node.attr("normalized_shape"))
    eps = tm.const(node.attr("eps"))
    lead = x.shape[: x.ndim - k]
    rows = x.reshape(-1, math.prod(x.shape[x.ndim - k :]))
    out = np.empty(rows.shape, dtype=object)
    for i, row in enumerate(rows):
        vals = [real(t) for t in row]
        if node.op is SpecOp.LAYER_NORM:
            var = _var_of(list(vals), 0)
            inv_std = tm.power(tm.apply(Fn.SQRT, tm.add(var, eps)), -1)
            # (x - mean) * r as x*r - mean*r: one shared term for mean*r, so a row costs O(N)
            shift = tm.mul(_mean(list(vals)), inv_std)
            out[i, :] = _obj([tm.sub(tm.mul(v, inv_std), shift) for v in vals], (len(vals),))
        else:
            var = _div(tm.add(*(tm.power(v, 2) for v in vals)), tm.const(len(vals)))
            inv_std = tm.power(tm.apply(Fn.SQRT, tm.add(var, eps)), -1)
            out[i, :] = _obj([tm.mul(v, inv_std) for v in vals], (len(vals),))
    result = _obj(out.reshape((*lead, *x.shape[x.ndim - k :])))
    weight = a[1]
    if weight is not None:
        result = _map(lambda y, w: tm.mul(real(y), real(w)), result, weight.array)
    bias = a[2] if node.op is SpecOp.LAYER_NORM else None
    if bias is not None:
        result = _map(lambda y, b: tm.add(real(y), real(b)), result, bias.array)
    return result


# Linear algebra ---------------------------------------------------------------------------------------


def _matmul(a: ObjArray, b: ObjArray) -> ObjArray:
    """``torch.matmul`` on term arrays: each entry one n-ary sum of products."""
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    ab = np.broadcast_to(a2, (*batch, *a2.shape[-2:]))
    bb = np.broadcast_to(b2, (*batch, *b2.shape[-2:]))
    m, kk, n = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    out = np.empty((*batch, m, n), dtype=object)
    for idx in np.ndindex(*batch) if batch else [()]:
        am, bm = ab[idx], bb[idx]
        for i in range(m):
            for j in range(n):
                row, col = am[i, :], bm[:, j]
                if _has_nonfinite(row, col):
                    products = [_decided(ext_mul, xreal(row[k]), xreal(col[k])) for k in range(kk)]
                    out[(*idx, i, j)] = ext_sum(products)
                    continue
                out[(*idx, i, j)] = tm.dot((real(row[k]), real(col[k])) for k in range(kk))
    if b.ndim == 1:
        out = out[..., 0]
    if a.ndim == 1:
        out = out[..., 0] if b.ndim == 1 else out[..., 0, :]
    return _obj(out)


def _linear_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    out = _matmul(_arr(a[0]), np.swapaxes(_arr(a[1]), 0, 1))
    if a[2] is not None:
        out = _map(lambda y, b: tm.add(real(y), real(b)), out, a[2].array)
    return out


# Indexing by tensors of indices -------------------------------------------------------------------------


def _affine_input(line: Sequence[Term]) -> tuple[str, int, int, bool] | None:
    """``(tensor, first, stride, is_bool)`` if ``line`` is elements ``first + j*stride`` of one input."""
    leaves: list[Elem] = []
    is_bool = False
    for t in line:
        if isinstance(t, Cmp) and t.op is CmpOp.NE:
            is_bool, t = True, t.lhs
        if not isinstance(t, Poly):
            return None
        mono = t.terms[0] if len(t.terms) == 1 and not t.const else None
        if mono is None or mono[1] != 1 or len(mono[0].factors) != 1 or mono[0].factors[0][1] != 1:
            return None
        atom = mono[0].factors[0][0]
        if not isinstance(atom, Elem):
            return None
        leaves.append(atom)
    if not leaves or any(e.tensor != leaves[0].tensor for e in leaves):
        return None
    stride = leaves[1].index - leaves[0].index if len(leaves) > 1 else 1
    if any(e.index != leaves[0].index + j * stride for j, e in enumerate(leaves)):
        return None
    return leaves[0].tensor, leaves[0].index, stride, is_bool


class _Line:
    """One line of a source tensor along the indexed dim, with its affine input layout if it has one."""

    def __init__(self, terms: Sequence[Term], dtype: ScalarType) -> None:
        self.terms = list(terms)
        self.dtype = dtype
        self.affine = _affine_input(self.terms)

    def at(self, index: Term) -> Term:
        idx = real(index)
        n = len(self.terms)
        if idx.is_const:
            i = int(idx.const)
            if idx.const.denominator != 1 or not -n <= i < n:
                raise ReferenceError_(f"index {idx} out of range for a dim of size {n}")
            return self.terms[i]
        if self.affine is not None:
            tensor, first, stride, is_bool = self.affine
            value = tm.read(tensor, tm.add(tm.const(first), tm.mul(idx, tm.const(stride))))
            return truth(value) if is_bool else value
        if self.dtype.is_bool:
            return tm.logical_or(
                *(tm.logical_and(tm.compare("==", idx, tm.const(j)), truth(t)) for j, t in enumerate(self.terms))
            )
        return tm.add(
            *(tm.select(tm.compare("==", idx, tm.const(j)), real(t), tm.ZERO) for j, t in enumerate(self.terms))
        )


def _index_select_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    src, index = a[0], a[1]
    assert src is not None and index is not None
    x, dim = src.array, node.attr("dim")
    idx = index.array.reshape(-1)
    if x.ndim == 0:
        return _obj(_Line([_at(x, ())], src.dtype).at(_at(idx, 0)))
    moved = np.moveaxis(x, dim, -1)
    lines = moved.reshape(-1, moved.shape[-1])
    out = np.empty((lines.shape[0], len(idx)), dtype=object)
    for i, line in enumerate(lines):
        ln = _Line(list(line), src.dtype)
        for j in range(len(idx)):
            out[i, j] = ln.at(_at(idx, j))
    return _obj(np.moveaxis(out.reshape((*moved.shape[:-1], len(idx))), -1, dim))


def _gather_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    src, index = a[0], a[1]
    assert src is not None and index is not None
    x, dim, idx = src.array, node.attr("dim"), index.array
    out = np.empty(idx.shape, dtype=object)
    cache: dict[tuple[int, ...], _Line] = {}
    for pos in np.ndindex(*idx.shape):
        key = pos[:dim] + pos[dim + 1 :]
        line = cache.get(key)
        if line is None:
            sel = tuple(slice(None) if d == dim else p for d, p in enumerate(pos))
            line = cache[key] = _Line(list(x[sel]), src.dtype)
        out[pos] = line.at(_at(idx, pos))
    return out


def _scatter_add_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    """Each output element is ``x`` there plus every ``src`` element whose index lands there: directly for
    a constant index, else as ``select(index == j, src, 0)`` at every position ``j`` along ``dim`` (an
    index outside ``[0, size)`` adds nothing; torch raises)."""
    x, idx, src = _arr(a[0]), _arr(a[1]), _arr(a[2])
    dim = node.attr("dim")
    size = x.shape[dim]
    parts: dict[tuple[int, ...], list[Poly]] = {}
    for pos in np.ndindex(*idx.shape):
        i, s = real(_at(idx, pos)), real(_at(src, pos))
        if i.is_const:
            if i.const.denominator != 1 or not 0 <= i.const < size:
                raise ReferenceError_(f"scatter_add index {i.const} out of range [0, {size})")
            parts.setdefault((*pos[:dim], int(i.const), *pos[dim + 1 :]), []).append(s)
            continue
        for j in range(size):
            hit = tm.select(tm.compare("==", i, tm.const(j)), s, tm.ZERO)
            parts.setdefault((*pos[:dim], j, *pos[dim + 1 :]), []).append(hit)
    out = np.empty(x.shape, dtype=object)
    for pos in np.ndindex(*x.shape):
        out[pos] = tm.add(real(_at(x, pos)), *parts.get(pos, ()))
    return out


def _embedding_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    weight, indices = a[0], a[1]
    assert weight is not None and indices is not None
    w, idx = weight.array, indices.array
    columns = [_Line(list(w[:, c]), weight.dtype) for c in range(w.shape[1])]
    out = np.empty((*idx.shape, w.shape[1]), dtype=object)
    for pos in np.ndindex(*idx.shape):
        for c, col in enumerate(columns):
            out[(*pos, c)] = col.at(_at(idx, pos))
    return out


def _cross_entropy_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    logits, target = _arr(a[0]), _arr(a[1])
    class_dim = 0 if logits.ndim == 1 else 1
    lsm = _along(logits, class_dim, lambda line: _softmax_line(line, log=True))
    moved = np.moveaxis(lsm, class_dim, -1)  # [..., C] with the target's shape in front
    ignore = tm.const(node.attr("ignore_index"))
    losses: list[Poly] = []
    weights: list[Poly] = []
    for pos in np.ndindex(*target.shape):
        t = real(_at(target, pos))
        keep = tm.compare("!=", t, ignore)
        picked = _Line(list(moved[pos]), node.dtype).at(t)
        losses.append(tm.select(keep, tm.neg(real(picked)), tm.ZERO))
        weights.append(tm.select(keep, tm.ONE, tm.ZERO))
    reduction = node.attr("reduction")
    if reduction == "none":
        return _obj(losses, target.shape)
    total = tm.add(*losses) if losses else tm.ZERO
    if reduction == "sum":
        return _obj(total)
    return _obj(_div(total, tm.add(*weights)))


# Creation, layout ---------------------------------------------------------------------------------------


def _full_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    shape = [ctx.int(d) for d in node.attr("shape")]
    value = node.attr("value")
    term: Value
    if node.dtype.is_bool:
        term = tm.TRUE if value else tm.FALSE
    elif isinstance(value, float) and not math.isfinite(value):
        term = NonFinite.NAN if math.isnan(value) else NonFinite.POS_INF if value > 0 else NonFinite.NEG_INF
    else:
        term = tm.const(value)
    return _obj([term] * math.prod(shape), shape)


def _arange_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    start, end, step = ctx.int(node.attr("start")), ctx.int(node.attr("end")), node.attr("step")
    values = [tm.const(v) for v in range(start, end, step)]
    return _obj(values, (len(values),))


def _triangle_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0]).copy()
    diagonal = node.attr("diagonal")
    rows, cols = x.shape[-2], x.shape[-1]
    zero: Term = tm.FALSE if node.dtype.is_bool else tm.ZERO
    for i in range(rows):
        for j in range(cols):
            drop = j - i > diagonal if node.op is SpecOp.TRIL else j - i < diagonal
            if drop:
                x[..., i, j] = zero
    return x


def _slice_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    x = _arr(a[0])
    dim = node.attr("dim")
    index = (slice(None),) * dim + (slice(ctx.int(node.attr("start")), ctx.int(node.attr("end")), node.attr("step")),)
    return _obj(x[index])


def _join_rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
    convert = truth if node.dtype.is_bool else xreal
    parts = [_map(convert, _arr(v)) for v in a]
    if node.op is SpecOp.CAT:
        return _obj(np.concatenate(parts, axis=node.attr("dim")))
    return _obj(np.stack(parts, axis=node.attr("dim")))


def _layout(fn: Callable[[ObjArray, SpecNode, SymbolicContext], ObjArray]) -> SymbolicRule:
    def rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
        return _obj(fn(_arr(a[0]), node, ctx))

    return rule


def _bool_elementwise(fn: Callable[..., Term]) -> SymbolicRule:
    return _elementwise(fn, truth)


def _floor_div(a: Poly, b: Poly) -> Poly:
    """``floor(a / b)`` (torch's ``//``): the truncated quotient, one less where truncation rounded up
    (a negative non-integer quotient). The division records ``b != 0``."""
    q = _div(a, b)
    t = tm.apply(Fn.TRUNC, q)
    return tm.select(tm.compare("<", q, t), tm.sub(t, tm.ONE), t)


#: Functions finite at every finite real argument, also in floating point: a term built from inputs and
#: these is finite, so ``isinf``/``isnan`` of it are false. ``exp`` overflows to inf past 88.7 in float32,
#: and ``log``, ``sqrt``, ``pow`` and division give NaN or inf outside their domains.
_FINITE_FNS = frozenset({Fn.TANH, Fn.ERF, Fn.SIN, Fn.COS, Fn.TRUNC, Fn.PI, Fn.LN2})


def _classify(kind: SpecOp) -> SymbolicRule:
    """``isinf``/``isnan``/``isfinite``: decided for every element where the element is a non-finite value
    (which says which one it is) or a term that is finite for every finite input (the inputs are finite
    reals: a guard against non-finite inputs is checked on finite ones, docs/reference.md). A term that
    may be non-finite in floating point (``isnan(log(x))``, ``isinf(exp(x))``) is not decided: under exact
    arithmetic it is a finite real, which is not what the reference tests."""

    def test(x: Value) -> BoolTerm:
        if not isinstance(x, NonFinite):
            if not tm.built_from(x, _FINITE_FNS):
                raise ReferenceError_(
                    f"{kind.value} of a value that may be an infinity or NaN in floating point ({x}): "
                    "exact-real terms cannot decide it"
                )
            return tm.TRUE if kind is SpecOp.ISFINITE else tm.FALSE
        if kind is SpecOp.ISINF:
            return tm.TRUE if x is not NonFinite.NAN else tm.FALSE
        if kind is SpecOp.ISNAN:
            return tm.TRUE if x is NonFinite.NAN else tm.FALSE
        return tm.FALSE

    def rule(node: SpecNode, a: list[SymValue | None], ctx: SymbolicContext) -> ObjArray:
        return _map(test, _arr(a[0]))

    return rule


def _compare(op: str) -> SymbolicRule:
    return _elementwise(lambda x, y: tm.compare(op, x, y), ext=lambda x, y: ext_compare(op, x, y))


#: The symbolic rule of every op: operand term arrays (scalars as 0-d arrays, None for absent) to the
#: result's term array.
SYMBOLIC_RULES: dict[SpecOp, SymbolicRule] = {
    SpecOp.ADD: _elementwise(tm.add, ext=ext_add),
    SpecOp.SUB: _elementwise(tm.sub, ext=lambda x, y: ext_add(x, ext_neg(y))),
    SpecOp.MUL: _elementwise(tm.mul, ext=ext_mul),
    SpecOp.DIV: _elementwise(_div, ext=ext_div),
    SpecOp.FLOOR_DIVIDE: _elementwise(_floor_div),
    SpecOp.POW: _elementwise(_pow),
    SpecOp.MAXIMUM: _elementwise(tm.maximum, ext=lambda x, y: ext_extremum([x, y], True)),
    SpecOp.MINIMUM: _elementwise(tm.minimum, ext=lambda x, y: ext_extremum([x, y], False)),
    SpecOp.EQ: _compare("=="),
    SpecOp.NE: _compare("!="),
    SpecOp.LT: _compare("<"),
    SpecOp.LE: _compare("<="),
    SpecOp.GT: _compare(">"),
    SpecOp.GE: _compare(">="),
    SpecOp.AND: _bool_elementwise(tm.logical_and),
    SpecOp.OR: _bool_elementwise(tm.logical_or),
    SpecOp.NOT: _bool_elementwise(tm.logical_not),
    SpecOp.ISINF: _classify(SpecOp.ISINF),
    SpecOp.ISNAN: _classify(SpecOp.ISNAN),
    SpecOp.ISFINITE: _classify(SpecOp.ISFINITE),
    SpecOp.WHERE: _where_rule,
    SpecOp.CLAMP: _clamp_rule,
    SpecOp.NEG: _unary(tm.neg, ext_neg),
    SpecOp.ABS: _unary(_abs, _ext_abs),
    SpecOp.RECIPROCAL: _unary(_recip, lambda x: ext_div(tm.ONE, x)),
    SpecOp.EXP: _unary(lambda x: tm.apply(Fn.EXP, x), _ext_fn(Fn.EXP)),
    SpecOp.LOG: _unary(lambda x: tm.apply(Fn.LOG, _in_domain(x, Requirement.POSITIVE)), _ext_fn(Fn.LOG)),
    SpecOp.SQRT: _unary(lambda x: tm.apply(Fn.SQRT, _in_domain(x, Requirement.NONNEGATIVE)), _ext_fn(Fn.SQRT)),
    SpecOp.RSQRT: _unary(
        lambda x: _recip(tm.apply(Fn.SQRT, _in_domain(x, Requirement.NONNEGATIVE))),
        lambda x: ext_div(tm.ONE, ext_apply(Fn.SQRT, x)),
    ),
    SpecOp.TANH: _unary(lambda x: tm.apply(Fn.TANH, x), _ext_fn(Fn.TANH)),
    SpecOp.ERF: _unary(lambda x: tm.apply(Fn.ERF, x), _ext_fn(Fn.ERF)),
    SpecOp.SIN: _unary(lambda x: tm.apply(Fn.SIN, x), _ext_fn(Fn.SIN)),
    SpecOp.COS: _unary(lambda x: tm.apply(Fn.COS, x), _ext_fn(Fn.COS)),
    SpecOp.SIGMOID: _unary(_sigmoid, _ext_sigmoid),
    SpecOp.RELU: _unary(lambda x: tm.maximum(x, tm.ZERO), lambda x: ext_extremum([x, tm.ZERO], True)),
    SpecOp.GELU: _gelu_rule,
    SpecOp.SILU: _unary(lambda x: tm.mul(x, _sigmoid(x))),
    SpecOp.SOFTPLUS: _softplus_rule,
    SpecOp.CAST: _cast_rule,
    SpecOp.SUM: _reduce(_sum, _ext_sum),
    SpecOp.MEAN: _reduce(_mean, _ext_mean),
    SpecOp.AMAX: _reduce(lambda row: tm.maximum(*(real(t) for t in row)), _ext_extreme(True)),
    SpecOp.AMIN: _reduce(lambda row: tm.minimum(*(real(t) for t in row)), _ext_extreme(False)),
    SpecOp.ARGMAX: _argreduce_rule,
    SpecOp.ARGMIN: _argreduce_rule,
    SpecOp.VAR: _var_rule,
    SpecOp.STD: _var_rule,
    SpecOp.NORM: _norm_rule,
    SpecOp.SOFTMAX: _softmax_rule,
    SpecOp.LOG_SOFTMAX: _softmax_rule,
    SpecOp.LAYER_NORM: _norm_layer_rule,
    SpecOp.RMS_NORM: _norm_layer_rule,
    SpecOp.MM: lambda node, a, ctx: _matmul(_arr(a[0]), _arr(a[1])),
    SpecOp.BMM: lambda node, a, ctx: _matmul(_arr(a[0]), _arr(a[1])),
    SpecOp.MATMUL: lambda node, a, ctx: _matmul(_arr(a[0]), _arr(a[1])),
    SpecOp.LINEAR: _linear_rule,
    SpecOp.TRANSPOSE: _layout(lambda x, node, ctx: np.swapaxes(x, node.attr("dim0"), node.attr("dim1"))),
    SpecOp.PERMUTE: _layout(lambda x, node, ctx: np.transpose(x, node.attr("dims"))),
    SpecOp.RESHAPE: _layout(lambda x, node, ctx: x.reshape([ctx.int(d) for d in node.attr("shape")])),
    SpecOp.UNSQUEEZE: _layout(lambda x, node, ctx: np.expand_dims(x, node.attr("dim"))),
    SpecOp.SQUEEZE: _layout(lambda x, node, ctx: np.squeeze(x, tuple(node.attr("dims")))),
    SpecOp.EXPAND: _layout(lambda x, node, ctx: np.broadcast_to(x, [ctx.int(d) for d in node.attr("shape")])),
    SpecOp.SLICE: _slice_rule,
    SpecOp.SELECT: _layout(lambda x, node, ctx: np.take(x, ctx.int(node.attr("index")), axis=node.attr("dim"))),
    SpecOp.CAT: _join_rule,
    SpecOp.STACK: _join_rule,
    SpecOp.INDEX_SELECT: _index_select_rule,
    SpecOp.GATHER: _gather_rule,
    SpecOp.SCATTER_ADD: _scatter_add_rule,
    SpecOp.EMBEDDING: _embedding_rule,
    SpecOp.CUMSUM: lambda node, a, ctx: _along(_arr(a[0]), node.attr("dim"), _cumsum_line),
    SpecOp.CROSS_ENTROPY: _cross_entropy_rule,
    SpecOp.FULL: _full_rule,
    SpecOp.ARANGE: _arange_rule,
    SpecOp.TRIL: _triangle_rule,
    SpecOp.TRIU: _triangle_rule,
}


def _input_terms(
    name: str,
    shape: Sequence[int],
    dtype: ScalarType,
    fixed: Sequence[int] | None = None,
    zeros: frozenset[int] = frozenset(),
) -> SymValue:
    n = math.prod(shape)
    if fixed is not None:
        if dtype.is_float or len(fixed) != n:
            raise ValueError(f"input {name}: fixed values need a bool or integer tensor of {n} elements")
        values: list[Term] = (
            [tm.TRUE if v else tm.FALSE for v in fixed] if dtype.is_bool else [tm.const(v) for v in fixed]
        )
        return SymValue(_obj(values, shape), dtype)
    leaves: list[Term] = [tm.ZERO if i in zeros else tm.elem(name, i) for i in range(n)]
    if dtype.is_bool:
        leaves = [truth(t) for t in leaves]  # a bool input element is the number x[i] != 0
    return SymValue(_obj(leaves, shape), dtype)


def _scalar_value(s: Scalar, env: Mapping[str, int]) -> SymValue:
    from larkc.ir.types import BOOL, F64, I64

    v = s.value
    if isinstance(v, bool):
        return SymValue(_obj(tm.TRUE if v else tm.FALSE), BOOL)
    if isinstance(v, float):
        if math.isnan(v):
            return SymValue(_obj(NonFinite.NAN), F64)
        if math.isinf(v):
            return SymValue(_obj(NonFinite.POS_INF if v > 0 else NonFinite.NEG_INF), F64)
        return SymValue(_obj(tm.const(v)), F64)
    if isinstance(v, int):
        return SymValue(_obj(tm.const(v)), I64)
    return SymValue(_obj(tm.const(concrete(v, env))), I64)


def evaluate_symbolic(
    graph: SpecGraph,
    shape_env: Mapping[str, int],
    fixed: Mapping[str, Sequence[int]] | None = None,
    inputs: Mapping[str, Sequence[Value]] | None = None,
    zeros: Mapping[str, frozenset[int]] | None = None,
) -> tuple[TermTensor, ...]:
    """The outputs of ``graph`` for the shape instance ``shape_env``, each element a term over the
    elements of the inputs and parameters (``elem(name, flat_index)``, row-major). ``fixed`` gives some
    ``bool`` or integer inputs fixed values (flat, row-major; a bool as 0 or 1): one case of a split.

    ``inputs`` gives the elements (row-major) of some inputs instead of their ``elem`` leaves: what an
    earlier step of a task left in a buffer that a PyTorch step reads (``larkc.pipeline.torch_steps``).
    ``zeros`` names input elements that are 0 by a precondition of the input (the zero triangle of a
    triangular one)."""
    return tuple(out for out, _ in evaluate_symbolic_with_conditions(graph, shape_env, fixed, inputs, zeros))


def evaluate_symbolic_with_conditions(
    graph: SpecGraph,
    shape_env: Mapping[str, int],
    fixed: Mapping[str, Sequence[int]] | None = None,
    inputs: Mapping[str, Sequence[Value]] | None = None,
    zeros: Mapping[str, frozenset[int]] | None = None,
) -> tuple[tuple[TermTensor, tuple[SideCondition, ...]], ...]:
    """:func:`evaluate_symbolic`, each output with the side conditions its own computation recorded (those of
    the nodes it depends on, not those of another output's): the domain of that output's reference. An
    enclosing :func:`~larkc.symbolic.conditions.side_conditions` block still receives every condition."""
    unbound = [s for s in graph.symbols if s not in shape_env]
    if unbound:
        raise ReferenceError_(f"spec {graph.name}: no value for symbol(s) {', '.join(unbound)}")
    with tm.gc_paused():
        return _evaluate_symbolic(graph, dict(shape_env), fixed or {}, inputs or {}, zeros or {})


_ConditionSet = dict[tuple[int, Requirement], SideCondition]

#: Ops whose every result element is computed from the operands' elements at the same (broadcast)
#: position alone: the conditions of an element's computation are that element's (kept per element, so
#: that a ``where`` can guard them by the condition under which it uses the element).
_ELEMENTWISE_OPS = frozenset(
    {
        SpecOp.ADD, SpecOp.SUB, SpecOp.MUL, SpecOp.DIV, SpecOp.FLOOR_DIVIDE, SpecOp.POW, SpecOp.MAXIMUM,
        SpecOp.MINIMUM, SpecOp.EQ, SpecOp.NE, SpecOp.LT, SpecOp.LE, SpecOp.GT, SpecOp.GE, SpecOp.AND, SpecOp.OR,
        SpecOp.NOT, SpecOp.ISINF, SpecOp.ISNAN, SpecOp.ISFINITE, SpecOp.WHERE, SpecOp.CLAMP, SpecOp.NEG,
        SpecOp.ABS, SpecOp.RECIPROCAL, SpecOp.EXP, SpecOp.LOG, SpecOp.SQRT, SpecOp.RSQRT, SpecOp.TANH, SpecOp.ERF,
        SpecOp.SIN, SpecOp.COS, SpecOp.SIGMOID, SpecOp.RELU, SpecOp.GELU, SpecOp.SILU, SpecOp.SOFTPLUS,
        SpecOp.CAST,
    }
)  # fmt: skip

#: Ops that only move elements (numpy's layout functions on the operand, one operand): an element's
#: conditions move with it.
_LAYOUT_OPS = frozenset(
    {
        SpecOp.TRANSPOSE, SpecOp.PERMUTE, SpecOp.RESHAPE, SpecOp.UNSQUEEZE, SpecOp.SQUEEZE, SpecOp.EXPAND,
        SpecOp.SELECT,
    }
)  # fmt: skip

_NO_CONDITIONS: tuple[SideCondition, ...] = ()


def _guarded(conditions: tuple[SideCondition, ...], guard: BoolTerm) -> tuple[SideCondition, ...]:
    """``conditions`` needed only where ``guard`` holds: ``select(guard, term, 1)`` (1 satisfies every
    requirement), as the kernel's if-converted arms guard theirs."""
    if guard is tm.TRUE:
        return conditions
    if guard is tm.FALSE:
        return _NO_CONDITIONS
    return tuple(SideCondition(tm.select(guard, c.term, tm.ONE), c.requirement) for c in conditions)


def _union(*parts: tuple[SideCondition, ...]) -> tuple[SideCondition, ...]:
    seen: _ConditionSet = {}
    for part in parts:
        for c in part:
            seen.setdefault((id(c.term), c.requirement), c)
    return tuple(seen.values())


def _finite_lower_bound(node: SpecNode, args: list[SymValue | None]) -> frozenset[int]:
    """The operands of ``node`` that it bounds below by a finite constant (``clamp(x, min=c)``,
    ``maximum(x, c)``, ``relu``): a ``log`` among them is defined at 0 (``max(-inf, c) = c``)."""

    def finite_constant(v: SymValue | None) -> bool:
        return v is not None and v.array.ndim == 0 and isinstance(v.array[()], Poly) and v.array[()].is_const

    match node.op:
        case SpecOp.RELU:
            return frozenset({0})
        case SpecOp.CLAMP if len(args) > 1 and finite_constant(args[1]):
            return frozenset({0})
        case SpecOp.MAXIMUM if len(args) == 2:
            return frozenset(k for k in (0, 1) if finite_constant(args[1 - k]))
        case _:
            return frozenset()


def _absorbed(conditions: tuple[SideCondition, ...], value: Value) -> tuple[SideCondition, ...]:
    """``conditions`` of an element whose value ``log(t)`` is bounded below by a finite constant: its
    ``t > 0`` is ``t >= 0`` (:func:`larkc.symbolic.conditions.absorbed_log`)."""
    from larkc.symbolic.conditions import absorbed_log

    t = absorbed_log(value) if isinstance(value, Poly) else None
    if t is None:
        return conditions
    return tuple(
        SideCondition(t, Requirement.NONNEGATIVE) if c.term is t and c.requirement is Requirement.POSITIVE else c
        for c in conditions
    )


def _spread(elements: ObjArray) -> tuple[SideCondition, ...]:
    """Every element's conditions, for the whole tensor."""
    return _union(*(cast(tuple[SideCondition, ...], cs) for cs in elements.reshape(-1)))


def _element_needs(
    node: SpecNode,
    args: list[SymValue | None],
    operands: list[ObjArray | None],
    own: list[ObjArray],
    shape: tuple[int, ...],
) -> ObjArray:
    """The conditions of each element of an elementwise ``node``'s result: its own computation's and its
    operands' at the same position; a ``where`` needs its ``then`` operand's only where its condition holds
    and its ``other`` operand's only where it does not (``where(x > 0, log(x), 0)`` needs nothing)."""
    out = np.empty(shape, dtype=object)
    parts = [np.broadcast_to(a, shape) for a in own]
    arms = [np.broadcast_to(o, shape) if o is not None else None for o in operands]
    cond = np.broadcast_to(_arr(args[0]), shape) if node.op is SpecOp.WHERE else None
    bounded_below = _finite_lower_bound(node, args)
    values = [np.broadcast_to(a.array, shape) if a is not None else None for a in args]
    for idx in np.ndindex(*shape):
        gathered = [cast(tuple[SideCondition, ...], p[idx]) for p in parts]
        for k, arm in enumerate(arms):
            if arm is None:
                continue
            cs = cast(tuple[SideCondition, ...], arm[idx])
            if cond is not None and k in (1, 2) and cs:
                c = truth(cast(Value, cond[idx]))
                cs = _guarded(cs, c if k == 1 else tm.logical_not(c))
            operand = values[k] if k < len(values) else None
            if k in bounded_below and cs and operand is not None:
                cs = _absorbed(cs, cast(Value, operand[idx]))
            gathered.append(cs)
        out[idx] = _union(*gathered)
    return out


def _evaluate_symbolic(
    graph: SpecGraph,
    env: dict[str, int],
    fixed: Mapping[str, Sequence[int]],
    given: Mapping[str, Sequence[Value]],
    zeros: Mapping[str, frozenset[int]],
) -> tuple[tuple[TermTensor, tuple[SideCondition, ...]], ...]:
    ctx = SymbolicContext(env)
    values: dict[str, SymValue] = {}
    # the conditions each node's value rests on: its own computation's and those of its operands (transitively)
    needs: dict[str, _ConditionSet] = {}
    # the conditions of each element of a node's value computed elementwise (see _element_needs)
    element_needs: dict[str, ObjArray] = {}
    for inp in graph.inputs:
        shape = [concrete(d, env) for d in inp.type.shape]
        if inp.name in given:
            elems = given[inp.name]
            if len(elems) != math.prod(shape):
                raise ReferenceError_(f"spec {graph.name}: {len(elems)} elements given for input {inp.name}{shape}")
            leaves = [truth(t) for t in elems] if inp.type.dtype.is_bool else list(elems)  # as _input_terms
            values[inp.name] = SymValue(_obj(leaves, shape), inp.type.dtype)
            continue
        zero = zeros.get(inp.name, frozenset())
        values[inp.name] = _input_terms(inp.name, shape, inp.type.dtype, fixed.get(inp.name), zero)
    for p in graph.params:
        values[p.name] = _input_terms(p.name, [concrete(d, env) for d in p.type.shape], p.type.dtype)
    for node in graph.nodes:
        args: list[SymValue | None] = []
        for a in node.args:
            match a:
                case Ref(name):
                    args.append(values[name])
                case Scalar():
                    args.append(_scalar_value(a, env))
                case Absent():
                    args.append(None)
        elementwise = node.op in _ELEMENTWISE_OPS
        per_element: list[ObjArray] = []
        with side_conditions() as own:
            if elementwise:
                _ELEMENT_CONDITIONS.append(per_element)
            try:
                out = SYMBOLIC_RULES[node.op](node, args, ctx)
            except ReferenceError_ as e:  # the same class: a choice by data stays one
                raise type(e)(f"symbolic %{node.name} = {node.op.value}: {e.message}", node.span) from None
            finally:
                if elementwise:
                    _ELEMENT_CONDITIONS.pop()
            convert = truth if node.dtype.is_bool else xreal
            out = _map(convert, out)
        arms = [element_needs.get(a.name) if isinstance(a, Ref) else None for a in node.args]
        operands = [needs[a.name] for a in node.args if isinstance(a, Ref) and a.name in needs]
        if elementwise:
            # the node's own conditions are each element's: kept per element, not for the whole node
            element_needs[node.name] = _element_needs(node, args, arms, per_element, tuple(out.shape))
            own_conditions: tuple[SideCondition, ...] = ()
        elif node.op in _LAYOUT_OPS and arms[0] is not None and len(node.args) == 1:
            element_needs[node.name] = SYMBOLIC_RULES[node.op](node, [SymValue(arms[0], node.dtype)], ctx)
            own_conditions = own.conditions
        else:
            # the elements of the result are not those of the operands: every operand element's conditions
            # are the whole result's
            spread = [_spread(arm) for arm in arms if arm is not None]
            own_conditions = _union(*spread, own.conditions)
        if not own_conditions and len(operands) == 1:
            needs[node.name] = operands[0]  # shared, never changed after it is made
        else:
            merged: _ConditionSet = {}
            for o in operands:
                merged.update(o)
            merged.update(((id(c.term), c.requirement), c) for c in own_conditions)
            needs[node.name] = merged
        want = tuple(concrete(d, env) for d in node.shape)
        if tuple(out.shape) != want:
            raise ReferenceError_(
                f"symbolic %{node.name} = {node.op.value} has shape {list(out.shape)}, expected {list(want)}",
                node.span,
            )
        values[node.name] = SymValue(out, node.dtype)
    result = []
    for name in graph.outputs:
        v = values[name]
        tensor = TermTensor(tuple(v.array.shape), v.dtype, tuple(v.array.reshape(-1)))
        elements = element_needs.get(name)
        whole = _spread(elements) if elements is not None else ()
        result.append((tensor, _union(tuple(needs.get(name, {}).values()), whole)))
    return tuple(result)
