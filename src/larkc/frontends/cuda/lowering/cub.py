"""cub's collectives by their documented semantics: BlockReduce, BlockScan, WarpReduce, BlockLoad, BlockStore.

A kernel names a collective through a local ``typedef`` (or ``using``) of ``cub::BlockReduce<T, BLOCK>``
(``cub::BlockScan<T, BLOCK>``), declares its ``__shared__ typename C::TempStorage``, and calls a method
on ``C(temp_storage)``. The model, per call:

* every thread stores its input into the temporary storage (a shared array of ``BLOCK`` values of ``T``;
  only the first ``num_valid`` threads for ``Sum(v, num_valid)``), then the block meets at a barrier;
* ``Sum``/``Reduce`` (with ``cub::Sum()``, ``cub::Max()``, ``cub::Min()``): thread 0 combines the stored
  values in thread order; cub defines the result in thread 0 only: larkc gives the other threads their
  own input (so a kernel that uses the result elsewhere computes a wrong value, found by comparison
  with the reference, not by an ``uninit`` finding);
* ``InclusiveSum(in, out)``/``ExclusiveSum(in, out)``: each thread sums the values of the threads before it
  (and its own), the exclusive sum of thread 0 being 0;
* ``cub::WarpReduce<T>`` (``TempStorage`` one per warp, unused by the model): ``Sum(v)``/``Reduce(v, op)``
  combine the warp's 32 lanes by xor shuffles (all lanes must take part); lane 0 gets the result, the
  other lanes their own input;
* ``cub::BlockLoad<T, BLOCK, ITEMS>``/``cub::BlockStore`` with a direct algorithm: ``Load(ptr, items[,
  valid[, default]])`` and ``Store(ptr, items[, valid])`` move thread ``t``'s ``items[k]`` from or to
  ``ptr[t * ITEMS + k]`` (the blocked arrangement), only below ``valid`` when given.

Reusing the storage needs a ``__syncthreads()`` first (cub's documented requirement): without it, the next
call's stores race with this call's reads, which the simulator reports. The block size must equal
``BLOCK`` (cub's precondition), an assertion of the lowered code. Floating-point results are combined in
thread order: cub's own order (a tree) can round differently. The reductions' and scans' algorithm
argument (``cub::BLOCK_SCAN_WARP_SCANS``, a ``cub::BlockScanAlgorithm`` template parameter) is accepted:
every algorithm has the same documented result. ``BLOCK_DIM_Y``/``Z`` arguments, the transposing
load/store algorithms, logical warps of other than 32 lanes, other collectives and other methods are a
located error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import tree_sitter as ts

from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.cooperative import linear_thread_index
from larkc.frontends.cuda.lowering.values import FULL_MASK, Val
from larkc.frontends.cuda.sema.ctypes import CArray
from larkc.frontends.cuda.sema.unit import CUB_ALGORITHMS
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import (
    Alloc,
    Assert,
    Assign,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Builtin,
    BuiltinReg,
    Const,
    Decl,
    Dim,
    Expr,
    For,
    If,
    Load,
    PtrAdd,
    Select,
    Store,
    VarRef,
)
from larkc.ir.types import BOOL, I32, U32, AddressSpace, PointerType, ScalarType

__all__ = ["CubCollective", "CubCollectives"]

#: cub's collectives larkc models, by their name in ``cub::``.
_MODELLED = ("BlockReduce", "BlockScan", "WarpReduce", "BlockLoad", "BlockStore")
#: The ``BlockLoad``/``BlockStore`` algorithms that move each thread's items straight from or to memory (the
#: transposing ones also give the blocked arrangement, but through shared memory and barriers of their own).
_DIRECT = ("BLOCK_LOAD_DIRECT", "BLOCK_LOAD_VECTORIZE", "BLOCK_STORE_DIRECT", "BLOCK_STORE_VECTORIZE")
#: ``cub::Sum()`` and friends: the operator each names.
_OPERATORS = {"Sum": "+", "Max": "max", "Min": "min"}


@dataclass(frozen=True, slots=True)
class CubCollective:
    """``cub::BlockReduce<float, 256>``: which collective, its value type and its block size."""

    kind: str  # "BlockReduce" | "BlockScan" | "WarpReduce" | "BlockLoad" | "BlockStore"
    elem: ScalarType
    threads: int
    items: int = 1  # items per thread (BlockLoad, BlockStore)


class CubCollectives(Conversions):
    """Typedefs of cub collectives, their ``TempStorage``, and their methods."""

    def cub_type(self, type_node: ts.Node, node: ts.Node) -> CubCollective | None:
        """The collective ``cub::BlockReduce<T, N>`` names, ``None`` if the type is not one of cub's."""
        text = "".join(node_text(type_node).split()).removeprefix("::")
        if not text.startswith("cub::") or type_node.type != "qualified_identifier":
            return None
        name = type_node.child_by_field_name("name")
        if name is None or name.type != "template_type":
            raise self.unsupported("cub type", type_node)
        kind = node_text(name.child_by_field_name("name"))
        args_node = name.child_by_field_name("arguments")
        args = [a for a in args_node.named_children if a.type != "comment"] if args_node is not None else []
        if kind not in _MODELLED:
            modelled = "BlockReduce, BlockScan, WarpReduce, BlockLoad, BlockStore"
            raise self.unsupported(f"cub::{kind} (larkc models {modelled})", type_node)
        if kind == "WarpReduce" and len(args) == 2:
            lanes = self.tu.template_argument(args[1], self.env, node, self.const_scope())
            if lanes != 32:
                raise self.unsupported("cub::WarpReduce over a logical warp of other than 32 lanes", args[1])
            args = args[:1]
        if kind in ("BlockReduce", "BlockScan") and len(args) == 3:
            # `cub::BlockScan<T, BLOCK, ALGORITHM>` (TensorRT-LLM's cumsum): each algorithm gives the same
            # documented result; only the order of floating-point combination may differ (see above)
            algorithm = self.tu.template_argument(args[2], self.env, node, self.const_scope())
            algorithms = CUB_ALGORITHMS[f"{kind}Algorithm"]
            if not isinstance(algorithm, int) or isinstance(algorithm, bool) or not 0 <= algorithm < len(algorithms):
                raise self.unsupported(f"cub::{kind} algorithm other than a cub::{kind}Algorithm", args[2])
            args = args[:2]
        items: object = 1
        if kind in ("BlockLoad", "BlockStore") and len(args) in (3, 4):
            if len(args) == 4 and "".join(node_text(args[3]).split()).removeprefix("cub::") not in _DIRECT:
                raise self.unsupported(f"cub::{kind} algorithm (larkc models the direct ones)", args[3])
            items = self.tu.template_argument(args[2], self.env, node, self.const_scope())
            if not isinstance(items, int) or isinstance(items, bool) or items <= 0:
                raise self.unsupported(f"cub::{kind} items per thread that is not a positive constant", args[2])
            args = args[:2]
        if kind == "WarpReduce" and len(args) == 1:
            elem = self.tu.template_argument(args[0], self.env, node, self.const_scope())
            threads: object = 32  # a warp's lanes
        elif len(args) != 2:
            raise self.unsupported(f"cub::{kind} with other than a value type and a block size", type_node)
        else:
            elem, threads = (self.tu.template_argument(a, self.env, node, self.const_scope()) for a in args)
        if not isinstance(elem, ScalarType) or elem.is_bool:
            raise self.unsupported(f"cub::{kind} of a value that is not a number", args[0])
        if not isinstance(threads, int) or isinstance(threads, bool) or threads <= 0:
            raise self.unsupported(f"cub::{kind} block size that is not a positive constant", args[1])
        assert isinstance(items, int)
        return CubCollective(kind, elem, threads, items)

    def cub_typedef(self, name: str, type_node: ts.Node, node: ts.Node) -> bool:
        """``typedef cub::BlockReduce<float, 256> BlockReduce;``: remember the collective; whether it was one."""
        collective = self.cub_type(type_node, node)
        if collective is None:
            return False
        self.cub_types[name] = collective
        return True

    def cub_storage(self, type_node: ts.Node, node: ts.Node) -> bool:
        """``__shared__ typename BlockReduce::TempStorage temp;``: a shared array of the block's values;
        whether the declaration was one."""
        inner = type_node.named_children[0] if type_node.type == "dependent_type" and type_node.named_children else None
        target = inner if inner is not None else type_node
        scope = target.child_by_field_name("scope") if target.type == "qualified_identifier" else None
        member = target.child_by_field_name("name") if target.type == "qualified_identifier" else None
        collective = self.cub_types.get(node_text(scope)) if scope is not None else None
        if collective is None or member is None:
            return False
        if node_text(member) != "TempStorage":
            raise self.unsupported(f"cub::{collective.kind} member type", type_node)
        specs = {node_text(c) for c in node.named_children if c.type in ("storage_class_specifier", "type_qualifier")}
        for d in node.children_by_field_name("declarator"):
            if collective.kind == "WarpReduce" and d.type == "array_declarator" and "__shared__" in specs:
                # `TempStorage temp[WARPS]`: one per warp; the model (shuffles) does not use it
                inner = d.child_by_field_name("declarator")
                if inner is None or inner.type != "identifier":
                    raise self.unsupported("TempStorage declarator", d)
                self.warp_storages.add(self.declare(node_text(inner), "const", I32, d, 0))
                continue
            if d.type != "identifier" or "__shared__" not in specs:
                raise self.unsupported("TempStorage other than one __shared__ variable", d)
            if collective.kind in ("WarpReduce", "BlockLoad", "BlockStore"):  # (the direct algorithms use none)
                self.warp_storages.add(self.declare(node_text(d), "const", I32, d, 0))
                continue
            arr = CArray(collective.elem, (collective.threads,), AddressSpace.SHARED)
            ir_name = self.declare(node_text(d), "alloc", arr, d)
            self.emit(Alloc(ir_name, collective.elem, collective.threads, AddressSpace.SHARED, self.span(d)))
        return True

    def cub_collective_of(self, node: ts.Node) -> tuple[CubCollective, VarRef] | None:
        """``BlockReduce(temp_storage)``: the collective and its storage, ``None`` for anything else."""
        if node.type != "call_expression":
            return None
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        collective = self.cub_types.get(node_text(fn)) if fn is not None and fn.type == "identifier" else None
        if collective is None or args is None:
            return None
        storage = [a for a in args.named_children if a.type != "comment"]
        if collective.kind in ("WarpReduce", "BlockLoad", "BlockStore"):
            target = storage[0] if len(storage) == 1 else None
            if target is not None and target.type == "subscript_expression":
                target = target.child_by_field_name("argument")  # `temp[warp_id]`
            held = self.lookup(node_text(target)) if target is not None and target.type == "identifier" else None
            if held is None or held.ir_name not in self.warp_storages:
                raise self.unsupported(f"cub::{collective.kind} constructed from other than its TempStorage", node)
            return collective, VarRef(held.ir_name, I32, self.span(node))
        bound = self.lookup(node_text(storage[0])) if len(storage) == 1 and storage[0].type == "identifier" else None
        if (
            bound is None
            or bound.kind != "alloc"
            or bound.ctype != CArray(collective.elem, (collective.threads,), AddressSpace.SHARED)
        ):
            raise self.unsupported(f"cub::{collective.kind} constructed from other than its TempStorage", node)
        return collective, VarRef(bound.ir_name, PointerType(collective.elem, AddressSpace.SHARED), self.span(node))

    def cub_method(
        self,
        collective: CubCollective,
        storage: VarRef,
        method: str,
        arg_nodes: Sequence[ts.Node],
        node: ts.Node,
        want_value: bool,
    ) -> Val | None:
        """A method of a cub collective on its storage (the module docstring says what each does)."""
        span = self.span(node)
        t = collective.elem
        if collective.kind == "WarpReduce":
            return self.warp_reduce_method(collective, method, arg_nodes, node)
        if collective.kind in ("BlockLoad", "BlockStore"):
            self.block_move(collective, method, arg_nodes, node)
            return None if not want_value else self.no_value(method, node)
        reduce = collective.kind == "BlockReduce"
        if reduce and method == "Sum" and len(arg_nodes) in (1, 2):
            op, count_node = "+", (arg_nodes[1] if len(arg_nodes) == 2 else None)
        elif reduce and method == "Reduce" and len(arg_nodes) in (2, 3):
            op, count_node = self.cub_operator(arg_nodes[1]), (arg_nodes[2] if len(arg_nodes) == 3 else None)
        elif not reduce and method in ("InclusiveSum", "ExclusiveSum") and len(arg_nodes) == 2:
            op, count_node = "+", None
        else:
            raise self.unsupported(f"cub::{collective.kind} method {method} with {len(arg_nodes)} arguments", node)
        value = self.convert(self.rvalue(arg_nodes[0]), t, arg_nodes[0]).expr
        count = Const(collective.threads, I32, span)
        count_e: Expr = count
        if count_node is not None:
            count_e = self.convert(self.rvalue(count_node), I32, count_node).expr
        tid = self.tmp(I32, node)
        dims = [Builtin(BuiltinReg.BLOCK_DIM, d, U32, span) for d in (Dim.X, Dim.Y, Dim.Z)]
        size = Binary(BinaryOp.MUL, Binary(BinaryOp.MUL, dims[0], dims[1], U32, span), dims[2], U32, span)
        self.emit(Assert(Binary(BinaryOp.EQ, size, Const(collective.threads, U32, span), BOOL, span), span))
        self.emit(Assign(tid, self.cast_scalar(linear_thread_index(span), U32, I32, span), span))
        tid_e = VarRef(tid, I32, span)
        mine = PtrAdd(storage, tid_e, storage.type, span)
        store = Store(mine, value, None, span)
        valid = Binary(BinaryOp.LT, tid_e, count_e, BOOL, span)
        self.emit(If(valid, (store,), (), span) if count_node is not None else store)
        self.emit(Barrier(BarrierScope.BLOCK, None, span))
        result = self.tmp(t, node)
        if reduce:
            first = Binary(BinaryOp.EQ, tid_e, Const(0, I32, span), BOOL, span)
            with self.buffer() as body:
                self.emit(Load(result, storage, None, None, span))
                self.cub_fold(result, storage, Const(1, I32, span), count_e, op, t, node)
            # elsewhere cub leaves it undefined; larkc gives the thread's own input, so that the usual
            # `float s = BlockReduce(temp).Sum(v);` in every thread is not an uninitialised read
            self.emit(If(first, tuple(body), (Assign(result, value, span),), span))
            return Val(VarRef(result, t, span), t)
        self.emit(Assign(result, Const(0.0 if t.is_float else 0, t, span), span))
        end: Expr = tid_e if method == "ExclusiveSum" else Binary(BinaryOp.ADD, tid_e, Const(1, I32, span), I32, span)
        self.cub_fold(result, storage, Const(0, I32, span), end, op, t, node)
        out = self.lvalue(arg_nodes[1])
        if isinstance(out, Val):
            raise self.unsupported("cub scan output that is not a variable or memory", arg_nodes[1])
        self.write(out, self.convert(Val(VarRef(result, t, span), t), out.type, arg_nodes[1]), arg_nodes[1])
        return None if not want_value else self.no_value(method, node)

    def warp_reduce_method(
        self, collective: CubCollective, method: str, arg_nodes: Sequence[ts.Node], node: ts.Node
    ) -> Val:
        """``WarpReduce(temp).Sum(v)`` / ``.Reduce(v, op)``: the warp's 32 lanes combined by a butterfly of
        shuffles (every lane must take part, as cub requires); the value is lane 0's (cub defines it there
        only; larkc gives the other lanes their own input, as for ``BlockReduce``)."""
        span = self.span(node)
        t = collective.elem
        if method == "Sum" and len(arg_nodes) == 1:
            op = "+"
        elif method == "Reduce" and len(arg_nodes) == 2:
            op = self.cub_operator(arg_nodes[1])
        else:
            raise self.unsupported(f"cub::WarpReduce method {method} with {len(arg_nodes)} arguments", node)
        own = self.tmp(t, node)
        self.emit(Assign(own, self.convert(self.rvalue(arg_nodes[0]), t, arg_nodes[0]).expr, span))
        mine = Val(VarRef(own, t, span), t)
        operand = self.shuffle_operand(mine, "WarpReduce", node)
        assert not isinstance(operand.ctype, CArray)  # shuffle operands are scalars or half pairs
        total = self.butterfly(operand, operand.ctype, op, Const(FULL_MASK, U32, span), 32, node)
        lane = Binary(BinaryOp.REM, linear_thread_index(span), Const(32, U32, span), U32, span)
        first = Binary(BinaryOp.EQ, lane, Const(0, U32, span), BOOL, span)
        value = self.convert(total, t, node).expr
        return Val(Select(first, value, VarRef(own, t, span), t, span), t)

    def block_move(self, collective: CubCollective, method: str, arg_nodes: Sequence[ts.Node], node: ts.Node) -> None:
        """``BlockLoad(temp).Load(ptr, items[, valid[, default]])`` / ``BlockStore(temp).Store(ptr, items[,
        valid])``: the blocked arrangement, thread ``t``'s ``items[k]`` being ``ptr[t * ITEMS + k]``; with
        ``valid`` only the elements below it are read or written (a load leaves the others as they were,
        or sets them to ``default``)."""
        span = self.span(node)
        t = collective.elem
        load = collective.kind == "BlockLoad"
        arity = (2, 3, 4) if load else (2, 3)
        if method != ("Load" if load else "Store") or len(arg_nodes) not in arity:
            raise self.unsupported(f"cub::{collective.kind} method {method} with {len(arg_nodes)} arguments", node)
        block = self.decay(self.rvalue(arg_nodes[0]))
        items = self.decay(self.rvalue(arg_nodes[1]))
        for what, v, at in (("block pointer", block, arg_nodes[0]), ("items", items, arg_nodes[1])):
            if not isinstance(v.ctype, PointerType) or v.ctype.pointee != t:
                raise self.type_error(f"cub::{collective.kind} {what} of type {v.ctype}, not a {t} pointer", at)
        assert isinstance(block.ctype, PointerType) and isinstance(items.ctype, PointerType)
        valid = self.convert(self.rvalue(arg_nodes[2]), I32, arg_nodes[2]).expr if len(arg_nodes) > 2 else None
        default = self.convert(self.rvalue(arg_nodes[3]), t, arg_nodes[3]).expr if len(arg_nodes) > 3 else None
        dims = [Builtin(BuiltinReg.BLOCK_DIM, d, U32, span) for d in (Dim.X, Dim.Y, Dim.Z)]
        size = Binary(BinaryOp.MUL, Binary(BinaryOp.MUL, dims[0], dims[1], U32, span), dims[2], U32, span)
        self.emit(Assert(Binary(BinaryOp.EQ, size, Const(collective.threads, U32, span), BOOL, span), span))
        tid = self.tmp(I32, node)
        self.emit(Assign(tid, self.cast_scalar(linear_thread_index(span), U32, I32, span), span))
        for k in range(collective.items):
            offset = Binary(
                BinaryOp.ADD,
                Binary(BinaryOp.MUL, VarRef(tid, I32, span), Const(collective.items, I32, span), I32, span),
                Const(k, I32, span),
                I32,
                span,
            )
            at_block = PtrAdd(block.expr, offset, block.ctype, span)
            at_item = PtrAdd(items.expr, Const(k, I32, span), items.ctype, span)
            moved = self.tmp(t, node)
            src, dst = (at_block, at_item) if load else (at_item, at_block)
            move = (Load(moved, src, None, None, span), Store(dst, VarRef(moved, t, span), None, span))
            if valid is None:
                for m in move:
                    self.emit(m)
                continue
            otherwise = (Store(at_item, default, None, span),) if default is not None else ()
            self.emit(If(Binary(BinaryOp.LT, offset, valid, BOOL, span), move, otherwise, span))

    def cub_fold(
        self, acc: str, storage: VarRef, start: Expr, end: Expr, op: str, t: ScalarType, node: ts.Node
    ) -> None:
        """``for (i = start; i < end; i++) acc = acc op storage[i];``"""
        span = self.span(node)
        i = self.fresh("cub.i")
        item = self.tmp(t, node)
        current, loaded = VarRef(acc, t, span), VarRef(item, t, span)
        if op in ("max", "min"):
            combined: Expr = Binary(BinaryOp.MAX if op == "max" else BinaryOp.MIN, current, loaded, t, span)
        else:  # `+` with C's promotions (a sum of shorts is an int, stored back as a short)
            combined = self.convert(self.apply_binary(op, Val(current, t), Val(loaded, t), node), t, node).expr
        i_ref = VarRef(i, I32, span)
        body = (Load(item, PtrAdd(storage, i_ref, storage.type, span), None, None, span), Assign(acc, combined, span))
        step = (Assign(i, Binary(BinaryOp.ADD, i_ref, Const(1, I32, span), I32, span), span),)
        init = (Decl(i, I32, start, span),)
        self.emit(For(init, Binary(BinaryOp.LT, i_ref, end, BOOL, span), step, body, None, span))

    def cub_operator(self, node: ts.Node) -> str:
        """``cub::Sum()``, ``cub::Max()``, ``cub::Min()`` (also with ``{}``): the operator each is."""
        named = node.child_by_field_name("function" if node.type == "call_expression" else "type")
        text = "".join(node_text(named).split()).removeprefix("::") if named is not None else ""
        op = _OPERATORS.get(text.removeprefix("cub::")) if text.startswith("cub::") else None
        if op is None:
            raise self.unsupported("cub reduction operator (cub::Sum(), cub::Max(), cub::Min())", node)
        return op
