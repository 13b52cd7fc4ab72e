"""GPUVerify's contracts: ``__requires`` (preconditions) and ``__ensures`` (postconditions).

* ``__requires(c)`` among the first statements of a **kernel** is an :class:`Assume`: the verdict is
  about the launches that satisfy ``c`` (and lists it), the simulator rejects inputs that violate it as
  bad input. In a **device function** it is an :class:`Assert` at its entry: the caller must establish
  it, as GPUVerify checks it at every call site.
* ``__ensures(c)`` among the first statements of a function is an :class:`Assert` of ``c`` before every
  ``return`` and, in a ``void`` function, at the end of its body. In it, ``__return_val_int()`` (``_float``,
  ``_double``, ``_bool``, ``_ptr``) is the returned value, of the function's return type; the parameters
  it reads must keep their values (``__old_*`` is not modelled).
* ``__implies(a, b)`` is ``!a || b`` (``b`` evaluated only when ``a`` holds); ``__enabled()`` is true
  (a statement runs only in the threads that reach it).
* ``__requires_fresh_array(p)`` of a kernel's pointer parameter adds nothing: every verdict assumes that
  the task's distinct tensors are distinct buffers.

A contract anywhere else is a located error, and so is each of GPUVerify's other annotations
(memory-access predicates, ``__global_invariant``, ``__uniform_*``, ...),
named by :data:`UNMODELLED`. GPUVerify's loop invariants (``__invariant``) are asserts
(``BuiltinCalls.loop_invariant``; :func:`in_loop_condition` for the form inside a loop's condition).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

import tree_sitter as ts

from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.values import Val
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import Assert, Assign, Assume, Binary, BinaryOp, Const, Expr, If, Stmt, Unary, UnaryOp, VarRef
from larkc.ir.types import BOOL, F32, F64, I32, AddressSpace, PointerType, Type

#: The contract annotations (they must come first in a function body).
CONTRACTS = ("__requires", "__ensures", "__requires_fresh_array")

#: ``__return_val_<kind>()``: the return type it stands for (``None``: any pointer).
RETURN_VALUES: dict[str, Type | None] = {
    "__return_val_int": I32,
    "__return_val_float": F32,
    "__return_val_double": F64,
    "__return_val_bool": BOOL,
    "__return_val_ptr": None,
}

#: GPUVerify annotations larkc does not model, and what the error calls them.
UNMODELLED: dict[str, str] = {
    **{
        f"__{p}_{k}": f"__{p}_{k} (GPUVerify's {what})"
        for p, what in (
            ("old", "value at the function's entry"),
            ("other", "value in another thread"),
            ("uniform", "uniformity predicate"),
            ("distinct", "distinctness predicate"),
        )
        for k in ("int", "float", "double", "bool", "ptr", "char", "short", "long", "unsigned")
    },
    **{
        n: f"{n} (GPUVerify's memory access predicates are not modelled)"
        for n in (
            "__read",
            "__write",
            "__atomic",
            "__no_read",
            "__no_write",
            "__read_implies",
            "__write_implies",
            "__atomic_implies",
            "__read_offset_bytes",
            "__write_offset_bytes",
            "__ptr_offset_bytes",
            "__ptr_base",
            "__reads_from",
            "__writes_to",
        )
    },
    **{
        n: f"{n} (GPUVerify's annotation)"
        for n in (
            "__global_invariant",
            "__function_wide_invariant",
            "__global_requires",
            "__global_ensures",
            "__global_assert",
            "__assume",
            "__axiom",
            "__return_val_funptr",
            "__same_group",
            "__add_noovfl",
        )
    },
}


class Contracts(Conversions):
    """``__requires``, ``__ensures`` and the functions that may appear in them."""

    _returned: Val | None = None  # while a postcondition is lowered at a return: the returned value
    _contracts: list[ts.Node] | None = None  # the leading contract calls of this function (computed once)

    @abc.abstractmethod
    def never_assigned(self, name: str, body: ts.Node) -> bool:
        """Whether nothing in ``body`` assigns, increments or takes the address of ``name``."""

    def contract_calls(self) -> list[ts.Node]:
        """The calls of ``__requires``/``__ensures`` that open this function's body, in order."""
        if self._contracts is None:
            self._contracts = []
            body = self.fd.node.child_by_field_name("body")
            for s in body.named_children if body is not None else ():
                if s.type == "comment":
                    continue
                call = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
                fn = (
                    call.child_by_field_name("function")
                    if call is not None and call.type == "call_expression"
                    else None
                )
                if call is None or fn is None or node_text(fn) not in CONTRACTS:
                    break
                self._contracts.append(call)
        return self._contracts

    def _leading(self, name: str, node: ts.Node) -> None:
        if not any(c.start_byte == node.start_byte and c.end_byte == node.end_byte for c in self.contract_calls()):
            raise self.unsupported(f"{name} other than among the first statements of a function", node)

    def _condition(self, arg_nodes: Sequence[ts.Node]) -> Expr:
        return self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr

    def requires(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__requires(c)``: an :class:`Assume` in a kernel, an :class:`Assert` in a device function."""
        self.expect_args(name, arg_nodes, (1,), node)
        self._leading(name, node)
        cond = self._condition(arg_nodes)
        self.emit(Assume(cond, self.span(node)) if self.is_kernel else Assert(cond, self.span(node)))
        return None

    def ensures(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__ensures(c)``: checked at every return (:meth:`postconditions`); nothing happens here."""
        self.expect_args(name, arg_nodes, (1,), node)
        self._leading(name, node)
        body = self.fd.node.child_by_field_name("body")
        assert body is not None  # a function with a body (its contract calls were found in it)
        params = self.fd.node.child_by_field_name("declarator")
        names = {node_text(n) for n in _identifiers(params)} if params is not None else set()
        for ident in _identifiers(arg_nodes[0]):
            text = node_text(ident)
            if text in names and not self.never_assigned(text, body):
                raise self.unsupported(f"__ensures reading parameter {text}, which the function changes", ident)
        return None

    def postconditions(self, returned: Val | None) -> list[Stmt]:
        """An :class:`Assert` of every ``__ensures`` of the function, ``returned`` being the value returned
        (a variable or a constant, so that each postcondition reads the same value)."""
        ensures = [c for c in self.contract_calls() if node_text(c.child_by_field_name("function")) == "__ensures"]
        saved = self._returned
        self._returned = returned
        try:
            with self.buffer() as out:
                for call in ensures:
                    args = call.child_by_field_name("arguments")
                    arg_nodes = [a for a in args.named_children if a.type != "comment"] if args is not None else []
                    if len(arg_nodes) == 1:  # (the count is checked where the call is lowered)
                        self.emit(Assert(self._condition(arg_nodes), self.span(call)))
        finally:
            self._returned = saved
        return out

    def fresh_array(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__requires_fresh_array(p)`` of a kernel's pointer parameter: ``p`` aliases no other buffer, which
        every verdict already assumes of the task's distinct tensors (a ``model`` assumption): nothing to add."""
        self.expect_args(name, arg_nodes, (1,), node)
        self._leading(name, node)
        if not self.is_kernel:
            raise self.unsupported(f"{name} in a device function", node)
        params = set()  # the IR parameters: the function scope's variables and parameter structs' members
        for b in self.scopes[0].values():
            params |= {b.ir_name} if b.kind == "var" else {lv.name for lv in (b.fields or {}).values()}
        with self.buffer() as reads:
            e = self.decay(self.rvalue(arg_nodes[0])).expr
        t = e.type
        pointer = isinstance(t, PointerType) and t.space is AddressSpace.GLOBAL
        if reads or not pointer or not isinstance(e, VarRef) or e.name not in params:
            raise self.unsupported(f"{name} of other than a pointer parameter of the kernel", arg_nodes[0])
        return None

    def return_value(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__return_val_int()`` and the like: the value a postcondition is checked against."""
        self.expect_args(name, arg_nodes, (0,), node)
        returned = self._returned
        if returned is None:
            raise self.unsupported(f"{name} outside the __ensures of a function returning a value", node)
        want = RETURN_VALUES[name]
        fits = isinstance(returned.ctype, PointerType) if want is None else returned.ctype == want
        if not fits:
            raise self.type_error(f"{name} in a function returning {returned.ctype}", node)
        return returned

    def implies(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__implies(a, b)``: ``!a || b``, reading ``b``'s memory only when ``a`` holds."""
        self.expect_args(name, arg_nodes, (2,), node)
        span = self.span(node)
        not_a = Unary(UnaryOp.NOT, self._condition(arg_nodes[:1]), BOOL, span)
        with self.buffer() as pre:
            b = self._condition(arg_nodes[1:])
        if not pre:
            return Val(Binary(BinaryOp.LOR, not_a, b, BOOL, span), BOOL)
        res = self.tmp(BOOL, node)
        self.emit(Assign(res, not_a, span))
        self.emit(If(Unary(UnaryOp.NOT, VarRef(res, BOOL, span), BOOL, span), (*pre, Assign(res, b, span)), (), span))
        return Val(VarRef(res, BOOL, span), BOOL)

    def enabled(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """``__enabled()``: true, since a statement runs only in the threads that reach it."""
        self.expect_args(name, arg_nodes, (0,), node)
        return Val(Const(True, BOOL, self.span(node)), BOOL)

    def unmodelled(self, name: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool) -> Val | None:
        """A GPUVerify annotation larkc does not model: an error naming it."""
        raise self.unsupported(UNMODELLED[name], node)


def _identifiers(node: ts.Node) -> list[ts.Node]:
    """The identifiers under ``node``, in order."""
    out: list[ts.Node] = []
    pending = [node]
    while pending:
        n = pending.pop()
        if n.type == "identifier":
            out.append(n)
        pending.extend(reversed(n.named_children))
    return out


def _same(a: ts.Node | None, b: ts.Node) -> bool:
    return a is not None and (a.type, a.start_byte, a.end_byte) == (b.type, b.start_byte, b.end_byte)


def in_loop_condition(node: ts.Node) -> bool:
    """Whether the call ``node`` is the left operand of a comma expression of a loop's condition, GPUVerify's
    way of stating a loop invariant (``while (__invariant(c), i < n)``, ``for (...; __invariant(c), i < n;
    ...)``): evaluated, and so checked, each time the condition is."""
    parent = node.parent
    if parent is None or parent.type != "comma_expression" or not _same(parent.child_by_field_name("left"), node):
        return False
    child = parent
    while (up := child.parent) is not None and up.type in ("comma_expression", "parenthesized_expression"):
        child = up
    if up is not None and up.type == "condition_clause":
        child, up = up, up.parent
    loops = ("for_statement", "while_statement", "do_statement")
    return up is not None and up.type in loops and _same(up.child_by_field_name("condition"), child)
