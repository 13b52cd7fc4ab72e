"""A KernelBench problem's ``get_inputs()`` run on meta tensors: shapes, dtypes and input preconditions.

KernelBench problems draw their inputs at the scored shape (``torch.rand(65536, 131072)``: 32 GiB), and
larkc needs only their shapes and element types. :func:`call_get_inputs` runs ``get_inputs()`` with
torch's factory functions making ``meta`` tensors (``with torch.device("meta")``), which carry shape and
dtype and no storage, and ``.cuda()``/``.to(device)`` kept on the meta device, so it answers in
milliseconds with no memory. Python values it returns (a float, an int) are returned as they are.

While it runs, a torch function mode follows what each tensor is made of, to derive the **preconditions**
``get_inputs()`` puts on its inputs (:class:`InputFacts`): ``torch.tril(...)`` zeroes the entries above
the diagonal, ``torch.rand`` draws in ``[0, 1)``, ``torch.abs``/``relu``/``softmax``/``sigmoid`` bound
the values, ``torch.randint(lo, hi, ...)`` draws integers in ``[lo, hi)``, and arithmetic with a Python
number moves those bounds. The rules over-approximate: an op without a rule, any op on two tensors,
and any in-place update (which may reach a tensor through a view) lose the facts, so a fact derived
holds for every value ``get_inputs()`` can return. Verification under a fact is about inputs that
satisfy it; a missing fact only makes verification consider more inputs.

A ``get_inputs()`` that needs values (``.item()``, a data-dependent mask) cannot run on meta tensors; it
is then run as written, on real tensors, and no preconditions are derived.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from larkc.tasks.input_facts import InputFacts, Triangle

__all__ = ["call_get_inputs", "draw", "is_meta", "triangle_mask"]

_UNKNOWN = InputFacts()


def is_meta(value: object) -> bool:
    """Whether ``value`` is a tensor without storage (from :func:`call_get_inputs`)."""
    return isinstance(value, torch.Tensor) and value.device.type == "meta"


def call_get_inputs(fn: Callable[[], Any]) -> tuple[list[Any], list[InputFacts]]:
    """``fn()`` (a problem's ``get_inputs``) with its tensors on the meta device, and the facts of each
    value it returns (:data:`InputFacts()` for a non-tensor or where none are derived). Raises what
    ``fn`` raises when it cannot run even on real tensors."""
    mode = _FactsMode()
    try:
        with torch.device("meta"), mode:
            values = list(fn())
    except (RuntimeError, NotImplementedError, TypeError, ValueError, IndexError):
        # it needs values (.item(), a mask, numpy): run it as written, without preconditions
        with torch.random.fork_rng():
            torch.manual_seed(0)
            values = list(fn())
        return values, [_UNKNOWN for _ in values]
    facts = [mode.facts_of(v) if isinstance(v, torch.Tensor) and not mode.mutated else _UNKNOWN for v in values]
    return values, facts


# -- the rules ---------------------------------------------------------------------------------------

_Interval = tuple[float | None, float | None]


def _scale(iv: _Interval, c: float) -> _Interval:
    if c == 0:
        return (0.0, 0.0)
    lo, hi = iv
    a = None if lo is None else lo * c
    b = None if hi is None else hi * c
    return (b, a) if c < 0 else (a, b)


def _shift(iv: _Interval, c: float) -> _Interval:
    lo, hi = iv
    return (None if lo is None else lo + c, None if hi is None else hi + c)


def _with_zero(iv: _Interval) -> _Interval:
    """The interval also holding 0 (a triangle's zeroed entries)."""
    lo, hi = iv
    return (None if lo is None else min(lo, 0.0), None if hi is None else max(hi, 0.0))


def _number(x: object) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return float(x) if math.isfinite(x) else None


def _is_int_number(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


#: Functions that keep a tensor's values as they are (a copy, another device, a float dtype).
_KEEP = frozenset({"cuda", "cpu", "contiguous", "clone", "detach", "float", "double", "requires_grad_"})
#: Float dtypes a value keeps its facts in (an integer value converted exactly: randint's range is small).
_FLOAT_DTYPES = frozenset({torch.float32, torch.float64, torch.float16, torch.bfloat16})
#: Arithmetic whose keyword arguments change its value (``torch.sub(x, 1, alpha=3)``).
_ARITHMETIC = frozenset({"mul", "multiply", "div", "divide", "add", "sub", "subtract", "rsub"})
#: In-place updates besides the ``*_`` methods: what they change may be seen through views.
_MUTATING = frozenset({"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "copy_"})


class _FactsMode(TorchFunctionMode):
    """Follows each tensor ``get_inputs()`` makes: its :class:`InputFacts` by the tensor's identity (the
    tensors are kept alive, so an identity is never reused), ``.cuda()``/``.to(device)`` kept on meta."""

    def __init__(self) -> None:
        super().__init__()
        self.facts: dict[int, InputFacts] = {}
        self.alive: list[torch.Tensor] = []
        self.mutated = False

    def facts_of(self, t: torch.Tensor) -> InputFacts:
        return self.facts.get(id(t), _UNKNOWN)

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
    ) -> Any:
        kw = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if name in ("cuda", "cpu") and args and isinstance(args[0], torch.Tensor):
            return self._keep(args[0], args[0], name)
        if name == "to" and args and isinstance(args[0], torch.Tensor):
            rest = [a for a in args[1:] if not isinstance(a, torch.device | str)]
            kw.pop("device", None)
            out = func(args[0], *rest, **kw) if rest or kw else args[0]
            dtype = out.dtype if isinstance(out, torch.Tensor) else None
            if out is args[0] or dtype in _FLOAT_DTYPES:
                return self._keep(out, args[0], name)
            return out
        out = func(*args, **kw)
        if name in _MUTATING or (name.endswith("_") and not name.startswith("_") and name != "requires_grad_"):
            self.mutated = True
            return out
        if isinstance(out, torch.Tensor):
            facts = self._rule(name, list(args), kw)
            if facts is not None and facts.known:
                self.facts[id(out)] = facts
                self.alive.append(out)
        return out

    def _keep(self, out: torch.Tensor, src: torch.Tensor, name: str) -> torch.Tensor:
        facts = self.facts.get(id(src))
        if facts is not None and out is not src:
            self.facts[id(out)] = facts
            self.alive.append(out)
        return out

    def _of(self, x: object) -> InputFacts | None:
        return self.facts.get(id(x)) if isinstance(x, torch.Tensor) else None

    def _rule(self, name: str, args: list[Any], kw: dict[str, Any]) -> InputFacts | None:
        """The facts of ``name(*args, **kw)``'s result, or ``None`` where no rule derives any."""
        first = self._of(args[0]) if args else None
        if kw and name in _ARITHMETIC:  # alpha=, rounding_mode=, out=: another value than the plain operator's
            return None
        iv: _Interval = (first.low, first.high) if first is not None else (None, None)
        match name:
            case "rand" | "rand_like":
                return InputFacts(0.0, 1.0, origin=f"torch.{name}")
            case "randint" | "randint_like":
                nums = [a for a in args if _is_int_number(a)]
                if name == "randint_like":
                    nums = [a for a in args[1:] if _is_int_number(a)]
                if "low" in kw and _is_int_number(kw["low"]):
                    nums.insert(0, kw["low"])
                if "high" in kw and _is_int_number(kw["high"]):
                    nums.append(kw["high"])
                lo, hi = (0, nums[0]) if len(nums) == 1 else (nums[0], nums[1]) if len(nums) >= 2 else (None, None)
                if lo is None or hi is None:
                    return None
                return InputFacts(float(lo), float(hi - 1), integer=True, origin=f"torch.randint({lo}, {hi}, ...)")
            case "zeros" | "zeros_like":
                return InputFacts(0.0, 0.0, integer=True, origin=f"torch.{name}")
            case "ones" | "ones_like":
                return InputFacts(1.0, 1.0, integer=True, origin=f"torch.{name}")
            case "tril" | "triu":
                if first is None and not (args and isinstance(args[0], torch.Tensor)):
                    return None
                k = args[1] if len(args) > 1 else kw.get("diagonal", 0)
                if not _is_int_number(k):
                    return None
                lo, hi = _with_zero(iv)
                tri: Triangle = "lower" if name == "tril" else "upper"
                integer = first.integer if first is not None else False
                return InputFacts(lo, hi, integer, tri, int(k), origin=f"torch.{name}")
            case "abs" | "absolute":
                lo, hi = iv
                top = None if lo is None or hi is None else max(abs(lo), abs(hi))
                bottom = lo if lo is not None and lo >= 0 else 0.0
                integer = first.integer if first is not None else False
                kept = first.triangle if first is not None else None  # |0| is 0: the triangle stays
                diag = first.diagonal if first is not None else 0
                return InputFacts(bottom, top, integer, kept, diag, origin="torch.abs")
            case "relu":
                lo, hi = iv
                return InputFacts(
                    max(lo, 0.0) if lo is not None else 0.0,
                    max(hi, 0.0) if hi is not None else None,
                    first.integer if first is not None else False,
                    first.triangle if first is not None else None,
                    first.diagonal if first is not None else 0,
                    origin="relu",
                )
            case "sigmoid" | "softmax" | "_softmax":
                return InputFacts(0.0, 1.0, origin=name)
            case "exp":
                return InputFacts(0.0, None, origin="torch.exp")
            case _ if name in _KEEP:
                return first
            case "__mul__" | "__rmul__" | "mul" | "multiply":
                return self._arith(first, args, lambda c: _scale(iv, c), keeps_zero=True, exact=_is_int_number)
            case "__truediv__" | "div" | "divide":
                return self._arith(
                    first, args, lambda c: _scale(iv, 1.0 / c) if c else (None, None), keeps_zero=True, exact=None
                )
            case "__add__" | "__radd__" | "add":
                return self._arith(first, args, lambda c: _shift(iv, c), keeps_zero=False, exact=_is_int_number)
            case "__sub__" | "sub" | "subtract":
                return self._arith(first, args, lambda c: _shift(iv, -c), keeps_zero=False, exact=_is_int_number)
            case "__rsub__" | "rsub":
                return self._arith(
                    first, args, lambda c: _shift(_scale(iv, -1.0), c), keeps_zero=False, exact=_is_int_number
                )
            case "__neg__" | "neg" | "negative":
                if first is None:
                    return None
                lo, hi = _scale(iv, -1.0)
                return InputFacts(lo, hi, first.integer, first.triangle, first.diagonal, first.origin)
        return None

    def _arith(
        self,
        first: InputFacts | None,
        args: list[Any],
        move: Callable[[float], _Interval],
        *,
        keeps_zero: bool,
        exact: Callable[[object], bool] | None,
    ) -> InputFacts | None:
        """A tensor with known facts and a Python number (``x * 2 - 1``); a tensor with another tensor
        gets no facts (the other's values are unknown here)."""
        if first is None or len(args) != 2 or isinstance(args[1], torch.Tensor):
            return None
        c = _number(args[1])
        if c is None:
            return None
        lo, hi = move(c)
        integer = first.integer and exact is not None and exact(args[1])
        triangle = first.triangle if keeps_zero else None
        return InputFacts(lo, hi, integer, triangle, first.diagonal if triangle else 0, first.origin)


def draw(values: Sequence[Any], facts: Sequence[InputFacts], seed: int = 0) -> list[Any]:
    """Real tensors for ``get_inputs()``'s meta ones, drawn to satisfy their facts (integers in their
    range, floats uniform in a bounded range or standard normal, the zero triangle zeroed); other values
    as they are."""
    gen = torch.Generator().manual_seed(seed)
    out: list[Any] = []
    for v, f in zip(values, facts, strict=True):
        if not is_meta(v):
            out.append(v)
            continue
        shape = tuple(v.shape)
        r = f.int_range()
        if r is not None or (f.integer and not v.dtype.is_floating_point):
            lo, hi = r if r is not None else (0, 2)
            t = torch.randint(lo, hi, shape, generator=gen).to(v.dtype)
        elif not v.dtype.is_floating_point:
            t = torch.randint(0, 2, shape, generator=gen).to(v.dtype)
        elif f.low is not None and f.high is not None:
            t = (f.low + (f.high - f.low) * torch.rand(shape, generator=gen, dtype=torch.float64)).to(v.dtype)
        else:
            t = torch.randn(shape, generator=gen, dtype=torch.float64)
            if f.low is not None:
                t = f.low + t.abs()
            elif f.high is not None:
                t = f.high - t.abs()
            t = t.to(v.dtype)
        out.append(triangle_mask(t, f))
    return out


def triangle_mask(t: torch.Tensor, f: InputFacts) -> torch.Tensor:
    """``t`` with the triangle ``f`` says is zero set to zero."""
    if f.triangle is None or t.dim() < 2:
        return t
    return torch.tril(t, f.diagonal) if f.triangle == "lower" else torch.triu(t, f.diagonal)
