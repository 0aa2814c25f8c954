"""Fold away the private lists Dynamo builds to hand a frame's values to its resume function.

At a graph break, Dynamo's bytecode gathers the frame's stack and locals into lists of lists
("frame values", one list per frame, and the frames' cells), moves values between them with slice
assignments, `extend`, `del l[-1]`, and finally calls the resume function with `*` of one of them:

    __temp_6 = [graph_out_0[1]][0:1]; __temp_6.extend([b]); __temp_7 = [__temp_6]
    __temp_7[0][0:0] = []; [__temp_3[0]]; __temp_9 = [__temp_7[0]]; ...
    return __resume_at_102_2([], __temp_9, *__temp_11)

This pass runs those statements on symbolic lists instead of writing them: each list made by a
display in the function is a `ListValue` whose items are expressions that may be evaluated again
at any later point with the same result (constants and the function's own local variables, which
no other code can rebind). Everything else an item holds is evaluated where the original evaluates
it, into a new temporary. Where a list leaves the bookkeeping (a call argument, a returned value),
a display of its current items is written instead:

    return __resume_at_102_2([], [], *[b, __temp_16])

Why the result computes the same: the lists are created by displays in this function and reach no
other code before they leave it, so no code can observe the list operations themselves (they run
no user code: a display makes a real `list`, whose methods cannot be replaced); every other
evaluation stays, in order; and a list that leaves is written as a fresh display with the same
items, which is indistinguishable from the original because nothing else holds the original (a
list that could be reached twice, or used after it left, stops the pass). Whatever the pass does
not understand (a list used another way, an index out of range, a loop, a rebinding of a name an
item stands for) makes it leave the function exactly as it was.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Union

from depyf.decompiler import nodes as n
from depyf.explain.readable.tree import copy_expr, ends_flow, has_hidden_scope, read_names, rewrite_loads, stored_names


class _GiveUp(Exception):
    """The function uses its lists in a way this pass does not model: leave it unchanged."""


class ListValue:
    """A list made by a display in the function, as the pass tracks it."""

    __slots__ = ("items", "left")

    def __init__(self, items: List["Value"]) -> None:
        self.items = items
        self.left = False  # written out as a display: it must not be touched again


# An item or variable value: a tracked list, or an expression that evaluates the same anywhere
# later in the function (a constant, or a local variable that is not bound again).
Value = Union[ListValue, n.Expr]


class _State:
    def __init__(self, env: Dict[str, Value]) -> None:
        self.env = env

    def clone(self) -> "_State":
        memo: Dict[int, ListValue] = {}

        def copy(value: Value) -> Value:
            if not isinstance(value, ListValue):
                return value
            if id(value) not in memo:
                twin = ListValue([])
                twin.left = value.left
                memo[id(value)] = twin
                twin.items = [copy(item) for item in value.items]
            return memo[id(value)]

        return _State({name: copy(value) for name, value in self.env.items()})

    def pinned(self) -> Set[str]:
        """The local variables that items stand for: they must keep their values."""
        out: Set[str] = set()
        seen: Set[int] = set()
        stack: List[Value] = list(self.env.values())
        while stack:
            value = stack.pop()
            if isinstance(value, ListValue):
                if id(value) not in seen:
                    seen.add(id(value))
                    stack.extend(value.items)
            elif isinstance(value, n.Name):
                out.add(value.id)
        return out


class _Folder:
    def __init__(self, private: Set[str], taken: Set[str]) -> None:
        self.private = private  # local variables no other code can see or rebind
        self.taken = set(taken)
        self.fresh_count = 0

    # --- values -----------------------------------------------------------------------------

    def fresh(self) -> str:
        while True:
            name = f"__temp_f{self.fresh_count}"
            self.fresh_count += 1
            if name not in self.taken:
                self.taken.add(name)
                self.private.add(name)  # (a local of the view, like the decompiler's temporaries)
                return name

    def value_of(self, e: n.Expr, state: _State, out: List[n.Stmt]) -> Optional[Value]:
        """The tracked value `e` evaluates to, or None where `e` is not list bookkeeping (then
        nothing was written to `out`). Items that must be evaluated now are bound in `out`."""
        if isinstance(e, n.Name):
            value = state.env.get(e.id)
            if isinstance(value, ListValue) and value.left:
                raise _GiveUp(f"{e.id} is used after it was written out")
            return value
        if isinstance(e, n.List_):
            return ListValue([self.item(elt, state, out) for elt in e.elts])
        if isinstance(e, n.Subscript):
            base = self.peek(e.value, state)
            if base is None and not isinstance(e.value, n.List_):
                return None
            if base is not None and not isinstance(base, ListValue):
                return None  # an item that stands for a value: the subscript is real code
            base_value = self.value_of(e.value, state, out)
            assert isinstance(base_value, ListValue)
            return self.subscript(base_value, e.index)
        return None

    def peek(self, e: n.Expr, state: _State) -> Optional[Value]:
        """`value_of` for expressions that need nothing evaluated now (names, subscripts of
        tracked lists); None for anything else."""
        if isinstance(e, n.Name):
            return self.value_of(e, state, [])
        if isinstance(e, n.Subscript):
            base = self.peek(e.value, state)
            if isinstance(base, ListValue):
                return self.subscript(base, e.index)
        return None

    def subscript(self, base: ListValue, index: n.Expr) -> Value:
        if base.left:
            raise _GiveUp("a list is used after it was written out")
        if isinstance(index, n.Const) and type(index.value) is int:
            if not -len(base.items) <= index.value < len(base.items):
                raise _GiveUp("index out of range")
            return base.items[index.value]
        bounds = _slice_bounds(index)
        if bounds is None:
            raise _GiveUp("a subscript this pass does not model")
        return ListValue(base.items[slice(*bounds)])

    def item(self, e: n.Expr, state: _State, out: List[n.Stmt]) -> Value:
        """An item of a display: a tracked value, a stable expression, or a new temporary that
        holds what `e` evaluates to, evaluated now."""
        if isinstance(e, n.Starred):
            raise _GiveUp("a starred item in a display")
        value = self.value_of(e, state, out)
        if value is not None:
            return value
        if isinstance(e, n.Const) or (isinstance(e, n.Name) and e.id in self.private) \
                or (isinstance(e, n.Tuple_) and not e.elts):  # (`()` is one object: no copy to tell apart)
            return copy_expr(e)
        name = self.fresh()
        out.append(n.Assign([n.Name(name)], self.written(e, state)))
        return n.Name(name)

    # --- writing values out --------------------------------------------------------------------

    def written(self, e: n.Expr, state: _State) -> n.Expr:
        """`e` with the tracked names it reads replaced by what they stand for."""
        holder = n.ExprStmt(e)
        self.write_loads(holder, state)
        return holder.value

    def write_loads(self, stmt: n.Stmt, state: _State) -> None:
        if not state.env:
            return
        if has_hidden_scope(stmt) and set(read_names(stmt)) & set(state.env):
            raise _GiveUp("a tracked name inside a lambda, comprehension or text")
        written: Set[int] = set()

        def rewrite(e: n.Expr) -> Optional[n.Expr]:
            value = self.peek(e, state) if isinstance(e, (n.Name, n.Subscript)) else None
            if value is None:
                return None
            return self.display(value, written)

        rewrite_loads(stmt, rewrite)

    def display(self, value: Value, written: Set[int]) -> n.Expr:
        if not isinstance(value, ListValue):
            return copy_expr(value)
        if value.left or id(value) in written:
            raise _GiveUp("a list reached twice")
        written.add(id(value))
        elts = [self.display(item, written) for item in value.items]
        value.left = True
        return n.List_(elts)

    # --- statements ---------------------------------------------------------------------------

    def block(self, stmts: List[n.Stmt], state: _State) -> List[n.Stmt]:
        out: List[n.Stmt] = []
        for stmt in stmts:
            self.statement(stmt, state, out)
        return out

    def statement(self, stmt: n.Stmt, state: _State, out: List[n.Stmt]) -> None:
        if isinstance(stmt, n.If):
            self.if_statement(stmt, state, out)
            return
        if isinstance(stmt, (n.For, n.While)) and set(read_names(stmt)) & set(state.env):
            raise _GiveUp("a loop over tracked values")
        if not isinstance(stmt, (n.For, n.While)) and self.bookkeeping(stmt, state, out):
            return
        if n.nested_blocks(stmt) and set(read_names(stmt)) & set(state.env):
            raise _GiveUp("a tracked name inside a compound statement")
        if isinstance(stmt, n.AugAssign) and isinstance(stmt.target, n.Name) and stmt.target.id in state.env:
            raise _GiveUp("an augmented assignment to a tracked name")
        self.write_loads(stmt, state)
        if set(read_names(stmt)) & set(state.env):
            raise _GiveUp("a tracked name read where this pass cannot write its value")
        self.rebinds(stmt, state)
        out.append(stmt)

    def rebinds(self, stmt: n.Stmt, state: _State) -> None:
        """Names `stmt` binds: a tracked one stops being tracked; one an item stands for must not
        change."""
        stored = set(stored_names(stmt))
        if stored & state.pinned():
            raise _GiveUp("a name an item stands for is bound again")
        for name in stored & set(state.env):
            del state.env[name]

    def bookkeeping(self, stmt: n.Stmt, state: _State, out: List[n.Stmt]) -> bool:
        """Run `stmt` on the tracked lists if it is list bookkeeping; False where it is not."""
        if isinstance(stmt, n.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, n.Name) and target.id in self.private:
                return self.bind_private(stmt, target, state, out)
            if isinstance(target, n.Subscript):
                return self.assign_item(stmt, target, state, out)
            return False
        if isinstance(stmt, n.ExprStmt):
            call = stmt.value
            if isinstance(call, n.Call) and isinstance(call.func, n.Attribute) and len(call.args) == 1 \
                    and call.func.attr in ("extend", "append") and not isinstance(call.args[0], (n.Starred, n.Keyword)):
                return self.grow_list(call, state, out)
            pending: List[n.Stmt] = []
            if isinstance(stmt.value, n.List_) or self.peek(stmt.value, state) is not None:
                # A display or a tracked value, evaluated and dropped: only its items' own
                # evaluations are kept.
                self.value_of(stmt.value, state, pending)
                out.extend(pending)
                return True
            return False
        if isinstance(stmt, n.Delete) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, n.Name) and target.id in state.env:
                del state.env[target.id]
                return True
            if isinstance(target, n.Subscript):
                return self.delete_item(target, state)
        return False

    def bind_private(self, stmt: n.Assign, target: n.Name, state: _State, out: List[n.Stmt]) -> bool:
        """`name = value` for one of the names the pass tracks."""
        pending: List[n.Stmt] = []
        value = self.value_of(stmt.value, state, pending)
        if value is None:
            return False
        out.extend(pending)
        if target.id in state.pinned():
            raise _GiveUp("a name an item stands for is bound again")
        state.env[target.id] = value
        return True

    def assign_item(self, stmt: n.Assign, target: n.Subscript, state: _State, out: List[n.Stmt]) -> bool:
        """`lst[i] = value` or `lst[a:b] = other` on a tracked list."""
        base = self.peek(target.value, state)
        if not isinstance(base, ListValue):
            return False
        pending: List[n.Stmt] = []
        value = self.value_of(stmt.value, state, pending)  # (evaluated before the target)
        if _slice_bounds(target.index) is not None:
            if not isinstance(value, ListValue):
                raise _GiveUp("a slice assigned from something that is not a tracked list")
            base.items[slice(*_slice_bounds(target.index))] = list(value.items)
        elif isinstance(target.index, n.Const) and type(target.index.value) is int:
            self.subscript(base, target.index)  # (in range)
            base.items[target.index.value] = value if value is not None else self.item(stmt.value, state, pending)
        else:
            raise _GiveUp("an item assignment this pass does not model")
        if base.left:
            raise _GiveUp("a list changed after it was written out")
        out.extend(pending)
        return True

    def grow_list(self, call: n.Call, state: _State, out: List[n.Stmt]) -> bool:
        """`lst.append(x)` or `lst.extend(other)` on a tracked list."""
        base = self.peek(call.func.value, state)
        if not isinstance(base, ListValue):
            return False
        pending: List[n.Stmt] = []
        if call.func.attr == "append":
            base.items.append(self.item(call.args[0], state, pending))
        else:
            value = self.value_of(call.args[0], state, pending)
            if not isinstance(value, ListValue):
                raise _GiveUp("extend with something that is not a tracked list")
            base.items.extend(value.items)
        if base.left:
            raise _GiveUp("a list changed after it was written out")
        out.extend(pending)
        return True

    def delete_item(self, target: n.Subscript, state: _State) -> bool:
        """`del lst[i]` or `del lst[a:b]` on a tracked list."""
        base = self.peek(target.value, state)
        if not isinstance(base, ListValue):
            return False
        if base.left:
            raise _GiveUp("a list changed after it was written out")
        if isinstance(target.index, n.Const) and type(target.index.value) is int:
            self.subscript(base, target.index)  # (in range)
            del base.items[target.index.value]
        elif _slice_bounds(target.index) is not None:
            del base.items[slice(*_slice_bounds(target.index))]
        else:
            raise _GiveUp("a deletion this pass does not model")
        return True

    def if_statement(self, stmt: n.If, state: _State, out: List[n.Stmt]) -> None:
        holder = n.ExprStmt(stmt.test)
        self.write_loads(holder, state)
        self.rebinds(holder, state)
        body_state, else_state = state.clone(), state.clone()
        body = self.block(stmt.body, body_state) or [n.Pass()]
        orelse = self.block(stmt.orelse, else_state)
        if ends_flow(body) and not ends_flow(orelse):
            state.env = else_state.env
        elif ends_flow(orelse) or not (body_state.env or else_state.env):
            state.env = body_state.env
        else:
            raise _GiveUp("tracked lists on two paths that join")
        out.append(n.If(holder.value, body, orelse))


def _slice_bounds(index: n.Expr) -> Optional[tuple]:
    if not isinstance(index, n.Slice) or index.step is not None:
        return None
    bounds = []
    for part in (index.lower, index.upper):
        if part is None:
            bounds.append(None)
        elif isinstance(part, n.Const) and type(part.value) is int:
            bounds.append(part.value)
        else:
            return None
    return tuple(bounds)


def fold_frame_value_lists(func: n.FunctionDef, private: Set[str]) -> Optional[str]:
    """Rewrite `func` in place; returns None when it did, or why it left `func` unchanged.

    `private`: the function's local variables that no other code can see (not cells or free
    variables)."""
    folder = _Folder(set(private), set(read_names(func.body)) | set(stored_names(func.body)) | private)
    try:
        # (on a copy: writing values out changes statements in place, and giving up must leave
        # the function as it was)
        body = folder.block(copy_expr(func.body), _State({}))
    except _GiveUp as why:
        return str(why)
    func.body = body or [n.Pass()]
    private.update(folder.private)  # the new temporaries are locals of the view too
    return None
