"""Instructions that end a statement: stores, deletes, returns, raises, imports, expression statements."""
from typing import List, Optional

from depyf.decompiler import deferred_annotations as da
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW, Instr
from depyf.decompiler.signature import CO_FUTURE_ANNOTATIONS, postponed_annotation


_new = object.__new__
_SIMPLE_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
# Values that `store` puts into a plain `name = value` whatever they hold, unless the value stays
# on the stack (a chained assignment or walrus): no marker, no chain, no call (a decorator's).
_PLAIN_VALUES = frozenset({n.Name, n.Const, n.Attribute, n.Subscript, n.BinOp, n.UnaryOp, n.BoolOp,
                           n.Compare, n.IfExp, n.Tuple_, n.List_, n.Dict_, n.Set_, n.JoinedStr,
                           n.ComprehensionExpr})


_CO_OPTIMIZED = 0x01

# The stores of a target whose parts are loaded after the value: attribute, item, slice.
_TARGET_STORES = frozenset({"STORE_ATTR", "STORE_SUBSCR", "STORE_SLICE"})


class StatementRules:
    """Statement-producing instruction handlers; mixed into `builder.CodeBuilder`."""

    stack: List[n.Expr]
    out: List[n.Stmt]

    # --- stores -----------------------------------------------------------------------------

    def store(self, target: n.Expr, value: n.Expr) -> None:
        """Assign `value` to `target`, recognising chained, unpacking and augmented forms."""
        if isinstance(target, n.Name) and target.id.startswith("."):
            self.hidden_locals[target.id] = value  # `.type_params` of a generic class
            return
        if isinstance(value, m.MadeFunction) and self.stack and self.stack[-1] is value:
            # `a = b = lambda: ...` (or a walrus): one function object, stored again; each
            # target written with its own `lambda` would make a new function for each
            value = self.stack[-1] = self.finish_expr(value)
        if isinstance(value, m.MARKER_TYPES):
            self._store_marker(target, value)
            return
        if self.stack and self.stack[-1] is value:
            # value; DUP; STORE a -> either `a = b = value` (when stored again) or a walrus.
            self.stack[-1] = n.NamedExpr(target, value)
            self.chained[id(self.stack[-1])] = self.stack[-1]
            return
        if isinstance(value, n.NamedExpr) and id(value) in self.chained:
            targets: List[n.Expr] = []
            inner: n.Expr = value
            while isinstance(inner, n.NamedExpr) and id(inner) in self.chained:
                targets.insert(0, inner.target)
                inner = inner.value
            self.emit(n.Assign(targets + [target], inner))
            return
        if isinstance(value, n.Call) and self.is_decorated(value) and self._store_definition(target, value):
            return
        self._plain_store(target, value)

    def _for_target_stored(self) -> None:
        """The loop's value is stored: the body's statements start from the stack below it (where
        a value being computed begins, `builder.step`)."""
        self.base_depth = min(self.base_depth, len(self.stack))

    def _store_marker(self, target: n.Expr, value: n.Expr) -> None:
        """A store of one of the builder's internal values (markers.py): each means a statement."""
        if isinstance(value, m.UnpackSlot):
            self._fill_slot(value, target)
            return
        if isinstance(value, m.Sentinel) and value.what == "for-target":
            self.for_targets[-1] = target
            self._for_target_stored()
            return
        if isinstance(value, m.ClearedLocal):
            return  # restoring a local saved around an inlined comprehension
        if isinstance(value, m.InplaceResult):
            self.emit(n.AugAssign(target, value.op, value.value))
            return
        if isinstance(value, m.ImportedModule):
            self._store_import(value, target)
            return
        if isinstance(value, m.ImportedName):
            self._store_import_from(value, target)
            return
        if isinstance(value, (m.MadeFunction, m.ClassValue, m.TypeAliasValue)) and self._store_definition(target, value):
            return
        self._plain_store(target, self.finish_expr(value))

    def _store_definition(self, target: n.Expr, value: n.Expr) -> bool:
        """`def`, `class` or `type` statement for a made function, class or alias stored by name."""
        if isinstance(value, m.MadeFunction) and isinstance(target, n.Name) and target.id in da.STORED_AS \
                and self.version.defers_annotations and da.is_annotate_code(value.code) \
                and not self.code.co_flags & _CO_OPTIMIZED:
            # a class or module body's generated annotations (3.14+): put back by `place_annotations`
            self.emit(da.AnnotationsDefined(self.deferred_annotations(value, None)))
            return True
        stmt = self.definition_statement(value, target)
        if stmt is None:
            return False
        self.emit(stmt)
        return True

    def _plain_store(self, target: n.Expr, value: n.Expr) -> None:
        if not self._annotation(target, value):
            self.emit(n.Assign([target], value))

    def _annotation(self, target: n.Expr, value: n.Expr) -> bool:
        """`x: T = v` in a class or module body: `x = v`, then T stored in `__annotations__['x']`.

        Written as an item assignment the text would lose SETUP_ANNOTATIONS, and `__annotations__`
        would be looked up elsewhere. In a function the compiler drops local annotations, so a
        store into `__annotations__` there is the source's own.
        """
        if self.code.co_flags & _CO_OPTIMIZED or not isinstance(target, n.Subscript) \
                or not isinstance(target.value, n.Name) or target.value.id != "__annotations__" \
                or not isinstance(target.index, n.Const) or not isinstance(target.index.value, str):
            return False
        name = target.index.value
        value = postponed_annotation(value, bool(self.code.co_flags & CO_FUTURE_ANNOTATIONS))
        previous = self.out[-1] if self.out else None
        if isinstance(previous, n.Assign) and len(previous.targets) == 1 and \
                isinstance(previous.targets[0], n.Name) and previous.targets[0].id == name:
            self.out[-1] = n.AnnAssign(previous.targets[0], self.finish_expr(value), previous.value)
        else:
            self.emit(n.AnnAssign(n.Name(name), self.finish_expr(value), None))
        return True

    def parallel_assignment(self, nxt: int, count: int) -> bool:
        """`a, b = x, y`: the compiler swaps the values instead of building a tuple.

        Called at the swap; `nxt` is the first instruction after it. When stores follow, the top
        `count` values become the slots of one tuple assignment.
        """
        if len(self.stack) < count or nxt >= len(self.instrs):
            return False
        values = self.stack[-count:]
        if any(isinstance(v, m.MARKER_TYPES) for v in values):
            return False
        if len({id(v) for v in values}) != count:
            return False
        first = self.instrs[nxt]
        if self.spill_mode and first.opname not in _SIMPLE_STORES:
            return False  # rewritten code swaps values it keeps on the stack: not an assignment
        # The first target may itself unpack: `(a, b), c = x, y` swaps, then unpacks x.
        if first.opname == "POP_TOP" or not self._stores_follow(nxt):
            return False
        group = m.UnpackGroup(n.Tuple_(values), count)
        self.stack[-count:] = [m.UnpackSlot(group, pos) for pos in reversed(range(count))]
        return True

    def _fill_slot(self, slot: m.UnpackSlot, target: n.Expr) -> None:
        group = slot.group
        group.targets[slot.position] = target
        group.filled += 1
        if group.filled < len(group.targets):
            return
        self._name_overwritten_slots(group)
        tuple_target = group.as_target()
        if group.parent is not None:
            self._fill_slot(group.parent, tuple_target)
        elif isinstance(group.value, m.Sentinel) and group.value.what == "for-target":
            self.for_targets[-1] = tuple_target
            self._for_target_stored()
        else:
            # As a plain store: `a, b = c = value` keeps a copy of the value for the next target.
            self.store(tuple_target, group.value)

    def _name_overwritten_slots(self, group: m.UnpackGroup) -> None:
        """A dropped store (`tag, _, _ = x` keeps only the last `_`) gets the name of a later
        target: the value it held was overwritten by that store."""
        for k, target in enumerate(group.targets):
            if isinstance(target, m.Sentinel) and target.what == "overwritten":
                later = next((t for t in group.targets[k + 1:] if isinstance(t, n.Name)), None)
                if later is None:
                    raise self.fail(None, "unpacking target the compiler dropped")
                group.targets[k] = n.Name(later.id)

    def op_STORE_FAST(self, ins: Instr, i: int) -> Optional[int]:
        count = self._reordered_stores(i)
        if count:
            values = self.popn(count)
            targets = [n.Name(self.instrs[k].argval) for k in range(i + count - 1, i - 1, -1)]
            self.emit(n.Assign([n.Tuple_(targets)], n.Tuple_([self.finish_expr(v) for v in values])))
            return i + count
        # (`self.pop()` without the call: see `CodeBuilder.pop`)
        value = self.stack.pop()
        name = ins.argval
        if type(value) in _PLAIN_VALUES and name[:1] != "." and not (self.stack and self.stack[-1] is value):
            # (what `store` makes of most stores, without its tests: `n.Assign([n.Name(name)], value)`,
            # both nodes made without their __init__)
            target = _new(n.Name)
            target.id = name
            assign = _new(n.Assign)
            assign.targets = [target]
            assign.value = value
            self.emit(assign)
            return None
        self.store(n.Name(name), value)
        return None

    def _reordered_stores(self, i: int) -> int:
        """`a, b = x, y` compiled with its swap optimised away: x, y pushed, then b and a stored.

        Returns how many consecutive simple stores at `i` take plain values off the stack (0 if
        this is not such an assignment).
        """
        instrs = self.instrs
        if i + 1 >= len(instrs) or instrs[i + 1].opname not in _SIMPLE_STORES:
            return 0  # (most stores: one on its own)
        count = 0
        while i + count < len(instrs) and instrs[i + count].opname in _SIMPLE_STORES and \
                (count == 0 or not self.jump_sources.get(i + count)):
            count += 1
        count = min(count, len(self.stack))
        while count >= 2:
            values = self.stack[-count:]
            if all(not isinstance(v, m.MARKER_TYPES) and not (isinstance(v, n.NamedExpr) and id(v) in self.chained)
                   for v in values) and len({id(v) for v in values}) == count:
                return count
            count -= 1
        return 0

    op_STORE_NAME = op_STORE_GLOBAL = op_STORE_DEREF = op_STORE_FAST

    def op_STORE_FAST_MAYBE_NULL(self, ins: Instr, i: int) -> None:
        self.pop()  # restores a local saved around an inlined comprehension

    def op_STORE_ATTR(self, ins: Instr, i: int) -> None:
        obj = self.pop()
        value = self.pop()
        self.store(n.Attribute(obj, ins.argval), value)

    def op_STORE_SUBSCR(self, ins: Instr, i: int) -> None:
        index = self.pop()
        obj = self.pop()
        value = self.pop()
        self.store(n.Subscript(obj, index), value)

    def op_STORE_SLICE(self, ins: Instr, i: int) -> None:
        upper = self.pop()
        lower = self.pop()
        obj = self.pop()
        value = self.pop()
        lo = None if isinstance(lower, n.Const) and lower.value is None else lower
        hi = None if isinstance(upper, n.Const) and upper.value is None else upper
        self.store(n.Subscript(obj, n.Slice(lo, hi)), value)

    def op_UNPACK_SEQUENCE(self, ins: Instr, i: int) -> None:
        self._unpack(i, ins.arg, -1)

    def op_UNPACK_EX(self, ins: Instr, i: int) -> None:
        before, after = ins.arg & 0xFF, ins.arg >> 8
        self._unpack(i, before + 1 + after, before)

    def _unpack(self, i: int, count: int, star: int) -> None:
        """Push one slot per item (the first on top); the stores that follow fill them in."""
        value = self.pop()
        parent = value if isinstance(value, m.UnpackSlot) else None
        if self.spill_mode and parent is None and not self._stores_follow(i + 1):
            # Rewritten code keeps unpacked items on the stack for later use: unpack them into
            # temporaries at once, `__temp_0, __temp_1 = value`.
            names = [self.new_temporary() for _ in range(count)]
            targets = [n.Starred(t) if k == star else t for k, t in enumerate(names)]
            self.emit(n.Assign([n.Tuple_(targets)], self.finish_expr(value)))
            self.stack.extend(reversed(names))
            return
        if count == 1 and star == -1 and parent is None and not self._stores_follow(i + 1):
            # One item kept as a value: only a starred annotation compiles so, `*args: *Ts`.
            self.stack.append(n.Starred(self.finish_expr(value)))
            return
        group = m.UnpackGroup(value, count, star=star, parent=parent)
        for pos in reversed(range(count)):
            self.stack.append(m.UnpackSlot(group, pos))

    def _stores_follow(self, j: int) -> bool:
        """Whether instruction `j` starts storing an unpacked item (as every source unpacking does;
        3.13 drops with POP_TOP an item a later target overwrites)."""
        if j >= len(self.instrs):
            return False
        op = self.instrs[j].opname
        if op in _SIMPLE_STORES or op in ("UNPACK_SEQUENCE", "UNPACK_EX", "POP_TOP"):
            return True
        # `obj.attr, seq[k], seq[a:] = ...`: the target's object (and index, bounds) are loaded
        # before the store (3.12+ store a two-bound slice with STORE_SLICE).
        window = self.instrs[j:j + 5]
        return op.startswith("LOAD_") and any(w.opname in _TARGET_STORES for w in window)

    # --- deletes ----------------------------------------------------------------------------

    def op_DELETE_FAST(self, ins: Instr, i: int) -> None:
        self.emit_delete(n.Name(ins.argval))

    op_DELETE_NAME = op_DELETE_GLOBAL = op_DELETE_DEREF = op_DELETE_FAST

    def op_DELETE_ATTR(self, ins: Instr, i: int) -> None:
        self.emit_delete(n.Attribute(self.pop(), ins.argval))

    def op_DELETE_SUBSCR(self, ins: Instr, i: int) -> None:
        index = self.pop()
        obj = self.pop()
        self.emit_delete(n.Subscript(obj, index))

    def emit_delete(self, target: n.Expr) -> None:
        self.emit(n.Delete([target]))

    # --- expression statements, returns, raises ---------------------------------------------

    def op_NOP(self, ins: Instr, i: int) -> Optional[int]:
        return None  # kept only where a loop starts (instructions._nested_loop_heads)

    def op_POP_TOP(self, ins: Instr, i: int) -> Optional[int]:
        value = self.stack.pop()  # (`self.pop()` without the call: see `CodeBuilder.pop`)
        if isinstance(value, m.UnpackSlot):
            # 3.13 drops a store that a later target of the same unpacking overwrites.
            self._fill_slot(value, m.Sentinel("overwritten"))
            return
        if isinstance(value, m.Iterator) and i + 1 in self.dead_end_exits:
            return None  # a `return` leaving the loop, then the try (`exit_into_dead_end`)
        if isinstance(value, (m.Iterator, m.WithExit)):
            after = self.copied_loop_break(value, i)  # control
            if after is not None:
                return after
            if self.falls_out_of_loop(value, i):  # control
                self.emit(n.Break())
                return None
            if self.breaks_out_through_clause_exit(value, i):  # control
                self.emit(n.Break())
                return None
        if isinstance(value, m.ImportedModule):
            if value.names:
                self.emit(n.ImportFrom(value.module, value.names, value.level, value.lazy))
            return
        if isinstance(value, m.MARKER_TYPES):
            return
        if self.spill_mode and n.has_no_effect(value):
            return  # dropping a temporary (or a list of them) has no effect
        self.emit(n.ExprStmt(self.finish_expr(value)))
        return None

    def op_PRINT_EXPR(self, ins: Instr, i: int) -> None:
        self.emit(n.ExprStmt(self.pop()))

    def _kept_jump_to_return(self, k: int) -> bool:
        """3.11 replaces a jump to an implicit `return None` by a copy of it, never one to a
        return written out (it has a line number): one that a JUMP still reaches was written."""
        if not self.version.has_exception_table or self.version.copies_exits_with_line_numbers:
            return False
        return all(self.instrs[src].opname == "JUMP" for src in self.jump_sources.get(k, ()))

    def op_RETURN_VALUE(self, ins: Instr, i: int) -> None:
        value = self.stack.pop()  # (`self.pop()` without the call: see `CodeBuilder.pop`)
        # Reached by two ways (jumps, or a jump and falling into it): one shared block, as only a
        # `return` written out stays (3.10+ gives each way to an implicit one its own copy).
        sources = len(self.jump_sources.get(i - 1, ())) if i > 1 else 0
        falls_in = i > 1 and self.instrs[i - 2].opname not in ENDS_FLOW
        jumped_to = i > 1 and self.instrs[i - 1].opname == "LOAD_CONST" and (
            sources >= 2 or (sources == 1 and (falls_in or self._kept_jump_to_return(i - 1))))
        self.emit(n.Return(self.finish_expr(value), jumped_to,
                              self._line_of(i) if self.version.copies_exits_with_line_numbers else None))
        if i == len(self.instrs) - 1:
            self.read_last_return = True  # (asked when the implicit `return None` is tidied away)

    def op_RAISE_VARARGS(self, ins: Instr, i: int) -> None:
        if ins.arg == 0:
            self.emit(n.Raise(None))
        elif ins.arg == 1:
            self.emit(n.Raise(self.pop()))
        else:
            cause = self.pop()
            exc = self.pop()
            self.emit(n.Raise(exc, cause))

    # --- imports ----------------------------------------------------------------------------

    def op_IMPORT_NAME(self, ins: Instr, i: int) -> None:
        fromlist = self.pop()
        level = self.pop()
        names = fromlist.value if isinstance(fromlist, n.Const) else None
        lvl = level.value if isinstance(level, n.Const) else 0
        if type(lvl) is not int or lvl < 0 or (names is not None and not (
                isinstance(names, tuple) and all(isinstance(x, str) for x in names))):
            raise self.fail(ins, "an import whose level or names are not the compiler's")
        self.stack.append(m.ImportedModule(ins.argval, lvl, names, ins.flag))

    def op_IMPORT_FROM(self, ins: Instr, i: int) -> None:
        source = self.stack[-1]
        if isinstance(source, m.ImportedName):  # `import a.b.c as d` walks attributes
            source.source.attr_path.append(ins.argval)
            self.stack.append(m.ImportedName(source.source, ins.argval))
            return
        assert isinstance(source, m.ImportedModule)
        if source.fromlist is None:
            source.attr_path.append(ins.argval)
        self.stack.append(m.ImportedName(source, ins.argval))

    def op_IMPORT_STAR(self, ins: Instr, i: int) -> None:
        self.import_star(ins, i)

    def import_star(self, ins: Instr, i: int) -> Optional[int]:
        module = self.pop()
        assert isinstance(module, m.ImportedModule)
        self.emit(n.ImportFrom(module.module, [("*", None)], module.level))
        if self.version.uses_intrinsics:
            # CALL_INTRINSIC_1 leaves None, popped by the next POP_TOP.
            self.stack.append(m.Sentinel("import-star"))
        return None

    def _store_import(self, module: m.ImportedModule, target: n.Expr) -> None:
        assert isinstance(target, n.Name)
        first = module.module.split(".")[0]
        alias = None if target.id == first and not module.attr_path else target.id
        if module.level or module.fromlist:
            self.emit(n.Assign([target], n.Raw(f"__import__({module.module!r})")))
            return
        self.emit(n.Import([(module.module, alias)], module.lazy))

    def _store_import_from(self, item: m.ImportedName, target: n.Expr) -> None:
        assert isinstance(target, n.Name)
        source = item.source
        if source.fromlist is None:
            # `import a.b as c`: IMPORT_FROM walked the submodules.
            self.emit(n.Import([(source.module, target.id)], source.lazy))
            return
        source.names.append((item.name, None if item.name == target.id else target.id))
