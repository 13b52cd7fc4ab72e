"""Cooperative groups (``cooperative_groups::this_thread_block``, ``tiled_partition<N>``).

A group is a compile-time value (:class:`~larkc.frontends.cuda.sema.groups.Group`): a variable bound to one
emits no IR, and a device function taking one is instantiated per group passed. Its methods lower to
IR: ``sync`` to a block or warp barrier over the tile's lanes, ``thread_rank``/``size`` to arithmetic on
the thread index, the tile's shuffles and votes to warp operations masked to the tile, and
``cg::reduce`` to a butterfly of xor shuffles.
"""

from __future__ import annotations

from collections.abc import Sequence

import tree_sitter as ts

from larkc.errors import Span
from larkc.frontends.cuda.lowering.conversions import Conversions
from larkc.frontends.cuda.lowering.values import FULL_MASK, Binding, Val
from larkc.frontends.cuda.sema.constants import fold_constant
from larkc.frontends.cuda.sema.ctypes import CArray
from larkc.frontends.cuda.sema.groups import CG_NAMES, GRID_GROUP_NAMES, GRID_GROUPS_UNMODELLED, REDUCE_OPS, Group
from larkc.frontends.cuda.syntax import node_text
from larkc.ir.nodes import (
    Assign,
    Barrier,
    BarrierScope,
    Binary,
    BinaryOp,
    Builtin,
    BuiltinReg,
    Const,
    Dim,
    Expr,
    Extract,
    Function,
    MakeVector,
    ShuffleKind,
    VarRef,
    Vote,
    VoteKind,
)
from larkc.ir.types import BF16, F16, I32, U32, VectorType


class CooperativeGroups(Conversions):
    """Cooperative groups: their declarations, methods and reductions."""

    def cg_name(self, node: ts.Node) -> str | None:
        """``this_thread_block`` for ``cg::this_thread_block`` (with ``cg`` an alias), else ``None``."""
        text = self.tu._unalias("".join(node_text(node).split()).removeprefix("::"), node)
        prefix = "cooperative_groups::"
        if text.startswith(prefix):
            return text[len(prefix) :]
        base = text.split("<")[0]
        if base not in CG_NAMES or prefix not in self.tu._scopes(node) or self.lookup(base) is not None:
            return None
        hidden = (self.tu.functions, self.tu.structs, self.tu.typedefs)
        return None if any(self.tu.find(base, node, t) is not None for t in hidden) else text  # `using namespace`

    def group_of(self, node: ts.Node) -> Group | None:
        """The group an expression denotes: a factory call, or a variable bound to a group."""
        if node.type == "parenthesized_expression" and node.named_children:
            return self.group_of(node.named_children[0])
        if node.type == "identifier":
            b = self.lookup(node_text(node))
            return b.group if b is not None else None
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None or fn.type not in ("qualified_identifier", "identifier", "template_function"):
            return None
        inner: ts.Node | None = fn if fn.type == "template_function" else fn.child_by_field_name("name")
        while inner is not None and inner.type == "qualified_identifier":
            inner = inner.child_by_field_name("name")
        name = self.cg_name(fn)
        if name == "this_thread_block":
            return Group()
        if name == "tiled_partition" and len(args.named_children) == 2:
            # `cg::tiled_partition(block, 16)`: the same tiles as `tiled_partition<16>`, as a thread_group
            return self.tiles_of(args.named_children[0], args.named_children[1])
        if inner is not None and inner.type == "template_function" and self.cg_name(fn) is not None:
            base = node_text(inner.child_by_field_name("name"))
            targs = inner.child_by_field_name("arguments")
            parent = args.named_children[0] if args.named_children else None
            if base == "tiled_partition" and targs is not None and parent is not None:
                return self.tiles_of(parent, targs.named_children[0])
        if name is not None and name.split("<")[0] in GRID_GROUP_NAMES:
            raise self.unsupported(GRID_GROUPS_UNMODELLED, node)
        if name is not None:
            raise self.unsupported("cooperative groups function", node)
        return None

    def tiles_of(self, parent: ts.Node, size_node: ts.Node) -> Group:
        """The tiles of ``tiled_partition(parent, size)`` (or ``tiled_partition<size>(parent)``)."""
        size = fold_constant(self.tu, size_node, self.env, self.const_scope())
        if not isinstance(size, int) or size not in (1, 2, 4, 8, 16, 32):
            raise self.unsupported("tiled_partition size (a power of two up to 32)", size_node)
        outer = self.group_of(parent)
        if outer is None or not outer.is_block:
            raise self.unsupported("tiled_partition of something other than the thread block", parent)
        return Group(size)

    def tile_declaration(self, node: ts.Node) -> bool:
        """``cg::thread_block_tile<32> t = ...;``, which tree-sitter (not knowing the template) reads as
        ``(cg::thread_block_tile < 32) > (t = ...)``: declare the group it means."""
        if node.type != "binary_expression" or node_text(node.child_by_field_name("operator")) != ">":
            return False
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "binary_expression" or right.type != "assignment_expression":
            return False
        name = left.child_by_field_name("left")
        target = right.child_by_field_name("left")
        if name is None or target is None or target.type != "identifier":
            return False
        if self.cg_name(name) != "thread_block_tile" or node_text(left.child_by_field_name("operator")) != "<":
            return False
        self.declare_group(target, right.child_by_field_name("right"), node)
        size_node = left.child_by_field_name("right")
        size = fold_constant(self.tu, size_node, self.env, self.const_scope()) if size_node is not None else None
        group = self.lookup(node_text(target))
        if group is not None and group.group is not None and group.group.tile != size:
            raise self.type_error(f"a {group.group} group where the type is thread_block_tile<{size}>", node)
        return True

    def declares_groups(self, node: ts.Node) -> bool:
        """An ``auto`` declaration whose initializers are cooperative groups."""
        inits = [d.child_by_field_name("value") for d in node.children_by_field_name("declarator")]
        return bool(inits) and all(i is not None and self.group_of(i) is not None for i in inits)

    def declare_group(self, name_node: ts.Node, init: ts.Node | None, node: ts.Node) -> None:
        """Bind ``name_node`` in the current scope to the group ``init`` denotes (a compile-time value)."""
        group = self.group_of(init) if init is not None else None
        if group is None:
            raise self.unsupported("cooperative group variable without a this_thread_block/tiled_partition value", node)
        c_name = node_text(name_node)
        if c_name in self.scopes[-1]:
            raise self.type_error(f"redeclaration of {c_name}", node)
        self.scopes[-1][c_name] = Binding("group", c_name, U32, None, group)

    def is_group_type(self, type_node: ts.Node) -> bool:
        """Whether a type node names a cooperative group (``thread_block``, ``thread_block_tile<N>``, or
        ``thread_group``, which holds either)."""
        if type_node.type == "type_identifier" and isinstance(self.env.get(node_text(type_node)), Group):
            return True  # a template type parameter deduced from a group argument (`Group& threads`)
        name = self.cg_name(type_node)
        return name is not None and (name in ("thread_block", "thread_group") or name.startswith("thread_block_tile"))

    def check_group_type(self, type_node: ts.Node, group: Group, node: ts.Node) -> None:
        """Reject a group bound to a variable or parameter whose type cannot hold it: a ``thread_block``
        holds the block, a ``thread_block_tile<N>`` tiles of ``N`` threads, a ``thread_group`` either."""
        name = "".join((self.cg_name(type_node) or "").split())
        deduced = self.env.get(node_text(type_node)) if type_node.type == "type_identifier" else None
        if name == "thread_group":
            return
        if isinstance(deduced, Group):
            fits = deduced == group
        elif name == "thread_block":
            fits = group.is_block
        else:
            inner: ts.Node | None = type_node
            while inner is not None and inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            targs = inner.child_by_field_name("arguments") if inner is not None else None
            size = (
                self.tu.template_argument(targs.named_children[0], self.env, node, self.const_scope())
                if targs is not None and len(targs.named_children) == 1
                else None
            )
            fits = isinstance(size, int) and group.tile == size
        if not fits:
            raise self.type_error(f"a {group} group where the type is {node_text(type_node)}", node)

    def linear_tid(self, span: Span) -> Expr:
        return linear_thread_index(span)

    def block_size(self, span: Span) -> Expr:
        dims = [Builtin(BuiltinReg.BLOCK_DIM, d, U32, span) for d in (Dim.X, Dim.Y, Dim.Z)]
        return Binary(BinaryOp.MUL, Binary(BinaryOp.MUL, dims[0], dims[1], U32, span), dims[2], U32, span)

    def tile_mask(self, size: int, span: Span) -> Expr:
        """The lanes of this thread's tile, as a warp mask."""
        if size == 32:
            return Const(FULL_MASK, U32, span)
        return Binary(BinaryOp.SHL, Const((1 << size) - 1, U32, span), self.tile_first_lane(size, span), U32, span)

    def tile_first_lane(self, size: int, span: Span) -> Expr:
        """The warp lane of the first thread of this thread's tile of ``size`` threads."""
        lane = Binary(BinaryOp.REM, self.linear_tid(span), Const(32, U32, span), U32, span)
        return Binary(
            BinaryOp.MUL,
            Binary(BinaryOp.DIV, lane, Const(size, U32, span), U32, span),
            Const(size, U32, span),
            U32,
            span,
        )

    def group_method(
        self, group: Group, method: str, arg_nodes: Sequence[ts.Node], node: ts.Node, want_value: bool
    ) -> Val | None:
        """A method of a cooperative group (``sync``, ``thread_rank``, ``shfl_down``, ``ballot``, ...)."""
        span = self.span(node)
        size = group.tile
        if method == "sync":
            self.expect_args(method, arg_nodes, (0,), node)
            if size is None:
                self.emit(Barrier(BarrierScope.BLOCK, None, span))
            else:
                self.emit(Barrier(BarrierScope.WARP, self.tile_mask(size, span), span))
            return None if not want_value else self.no_value(method, node)
        if method in ("thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size"):
            self.expect_args(method, arg_nodes, (0,), node)
            tid = self.linear_tid(span)
            if method == "thread_rank":
                e: Expr = tid if size is None else Binary(BinaryOp.REM, tid, Const(size, U32, span), U32, span)
            elif method in ("size", "num_threads"):
                e = self.block_size(span) if size is None else Const(size, U32, span)
            elif size is None:
                raise self.unsupported(f"{method} of a thread block", node)
            elif method == "meta_group_rank":
                e = Binary(BinaryOp.DIV, tid, Const(size, U32, span), U32, span)
            else:
                total = Binary(BinaryOp.ADD, self.block_size(span), Const(size - 1, U32, span), U32, span)
                e = Binary(BinaryOp.DIV, total, Const(size, U32, span), U32, span)
            return Val(e, U32)
        if size is None:
            raise self.unsupported(f"thread block method {method}", node)
        kinds = {
            "shfl": ShuffleKind.IDX,
            "shfl_up": ShuffleKind.UP,
            "shfl_down": ShuffleKind.DOWN,
            "shfl_xor": ShuffleKind.XOR,
        }
        if method in kinds:
            self.expect_args(method, arg_nodes, (2,), node)
            v = self.shuffle_operand(self.rvalue(arg_nodes[0]), method, arg_nodes[0])
            lane = self.convert(self.rvalue(arg_nodes[1]), I32, arg_nodes[1]).expr
            return self.emit_shuffle(kinds[method], self.tile_mask(size, span), v, lane, size, node)
        votes = {"any": VoteKind.ANY, "all": VoteKind.ALL, "ballot": VoteKind.BALLOT}
        if method in votes:
            self.expect_args(method, arg_nodes, (1,), node)
            pred = self.to_bool(self.rvalue(arg_nodes[0]), arg_nodes[0]).expr
            kind = votes[method]
            rt = U32 if kind is VoteKind.BALLOT else I32
            dst = self.tmp(rt, node)
            self.emit(Vote(dst, kind, self.tile_mask(size, span), pred, span))
            result: Expr = VarRef(dst, rt, span)
            if kind is VoteKind.BALLOT and size < 32:
                # a tile's ballot numbers its own lanes from 0
                shifted = Binary(BinaryOp.SHR, result, self.tile_first_lane(size, span), U32, span)
                result = Binary(BinaryOp.BITAND, shifted, Const((1 << size) - 1, U32, span), U32, span)
            return Val(result, rt)
        raise self.unsupported(f"thread_block_tile method {method}", node)

    def group_reduce(self, arg_nodes: Sequence[ts.Node], node: ts.Node) -> Val:
        """``cg::reduce(tile, v, op)``: every lane gets op over the tile, by butterfly exchanges."""
        span = self.span(node)
        self.expect_args("cooperative_groups::reduce", arg_nodes, (3,), node)
        group = self.group_of(arg_nodes[0])
        if group is None or group.tile is None:
            raise self.unsupported("reduce over something other than a thread_block_tile", arg_nodes[0])
        op_name = self.reduce_operator(arg_nodes[2])
        user_op = self.reduce_function(arg_nodes[2]) if op_name is None else None
        if user_op is not None:
            return self.user_butterfly(user_op, self.rvalue(arg_nodes[1]), group.tile, arg_nodes[1], node)
        if op_name is None:
            raise self.unsupported("reduce operator (use cg::plus, cg::greater, cg::less, cg::bit_*)", arg_nodes[2])
        v = self.shuffle_operand(self.rvalue(arg_nodes[1]), "reduce", arg_nodes[1])
        vt = v.ctype
        assert not isinstance(vt, CArray)  # shuffle operands are scalars or half pairs
        return self.butterfly(v, vt, REDUCE_OPS[op_name], self.tile_mask(group.tile, span), group.tile, node)

    def reduce_function(self, node: ts.Node) -> Function | None:
        """``cg::reduce(tile, v, combine)`` with ``combine`` a device function ``T combine(T, T)`` (one
        definition, not a template): its instance; ``None`` where ``node`` names no function."""
        if node.type not in ("identifier", "qualified_identifier") or self.lookup(node_text(node)) is not None:
            return None
        key = self.tu.find("".join(node_text(node).split()), node, self.tu.functions)
        defs = self.tu.functions[key] if key is not None else []
        if not defs:
            return None
        if len(defs) != 1 or defs[0].template is not None or defs[0].owner is not None:
            raise self.unsupported("reduce operator that is an overloaded, template or member function", node)
        callee = self.tu.instantiate(defs[0], {}, node)
        t = callee.ret
        if len(callee.params) != 2 or any(p.by_ref or p.type != t for p in callee.params):
            raise self.unsupported("reduce operator function other than T f(T, T)", node)
        return callee

    def user_butterfly(self, combine: Function, v: Val, size: int, value_node: ts.Node, node: ts.Node) -> Val:
        """``cg::reduce`` with a device function: ``log2 size`` xor-shuffle steps, each lane combining its
        value with its partner's by a call (``combine(mine, partner)``), the result left in every lane."""
        span = self.span(node)
        t = combine.ret
        v = self.convert(v, t, value_node)
        mask = self.tile_mask(size, span)
        acc = self.tmp(t, node)
        self.emit(Assign(acc, v.expr, span))
        current = Val(VarRef(acc, t, span), t)
        offset = size // 2
        while offset >= 1:
            partner = self.shuffle_value(current, mask, offset, size, value_node)
            combined = self.emit_call(combine, [current.expr, partner.expr], [], combine.name, node, True)
            assert combined is not None
            self.emit(Assign(acc, combined.expr, span))
            offset //= 2
        return current

    def shuffle_value(self, v: Val, mask: Expr, offset: int, width: int, node: ts.Node) -> Val:
        """``v`` of the lane ``offset`` away by xor: a scalar whole, a struct (vector) lane by lane."""
        span = self.span(node)
        t = v.ctype
        lane_delta = Const(offset, I32, span)
        if isinstance(t, VectorType) and not (t.lanes == 2 and t.elem in (F16, BF16)):
            lanes: list[Expr] = []
            for k in range(t.lanes):
                part = Val(Extract(v.expr, Const(k, I32, span), t.elem, span), t.elem)
                moved = self.emit_shuffle(
                    ShuffleKind.XOR, mask, self.shuffle_operand(part, "reduce", node), lane_delta, width, node
                )
                lanes.append(self.convert(moved, t.elem, node).expr)
            return Val(MakeVector(tuple(lanes), t, span), t)
        moved = self.emit_shuffle(
            ShuffleKind.XOR, mask, self.shuffle_operand(v, "reduce", node), lane_delta, width, node
        )
        assert not isinstance(t, CArray)
        return self.convert(moved, t, node)

    def reduce_operator(self, node: ts.Node) -> str | None:
        """``plus`` for the operator object ``cg::plus<T>()`` or ``cg::plus<T>{}`` (a key of ``REDUCE_OPS``)."""
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            named = node.child_by_field_name("function") if args is not None and not args.named_children else None
        elif node.type == "compound_literal_expression":
            value = node.child_by_field_name("value")
            named = node.child_by_field_name("type") if value is not None and not value.named_children else None
        else:
            named = None
        cg = self.cg_name(named) if named is not None else None
        op_name = cg.split("<")[0] if cg is not None else None
        return op_name if op_name in REDUCE_OPS else None


def linear_thread_index(span: Span) -> Expr:
    """The thread's index in its block, x fastest (``threadIdx.x + blockDim.x * (threadIdx.y + ...)``)."""

    def reg(r: BuiltinReg, d: Dim) -> Expr:
        return Builtin(r, d, U32, span)

    def mul(a: Expr, b: Expr) -> Expr:
        return Binary(BinaryOp.MUL, a, b, U32, span)

    def add(a: Expr, b: Expr) -> Expr:
        return Binary(BinaryOp.ADD, a, b, U32, span)

    tx, ty, tz = (reg(BuiltinReg.THREAD_IDX, d) for d in (Dim.X, Dim.Y, Dim.Z))
    bx, by = reg(BuiltinReg.BLOCK_DIM, Dim.X), reg(BuiltinReg.BLOCK_DIM, Dim.Y)
    return add(tx, mul(bx, add(ty, mul(by, tz))))
