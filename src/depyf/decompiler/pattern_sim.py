"""Running `match` pattern instructions on a symbolic stack (`_Sim`).

Every value being matched is a `_Subj` that points at a `_Node`; the instructions that test or
take apart a value fill in that node, and a store binds a name to it. Node updates go through
the builder's journal, so that a wrong reading can be undone.
"""
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.pattern_values import (_STORES, _ROTATIONS, _COPIES, _VALUE_OPS, _MAX_INLINE_TAIL,
                                             _TAIL_OPS, _INVERTED, _NotAPattern, _Node, _Subj, _Cond, _Len,
                                             _LenMinus, _Parts, _Keys, _Rest, _Opaque)

if TYPE_CHECKING:  # (the rules run `_Sim`: only the annotation names them)
    from depyf.decompiler.patterns import PatternRules


def _reach(ins: Instr) -> int:
    """How many values at the top of the stack an instruction may read, move or pop."""
    op = ins.opname
    if op in ("SWAP", "COPY", "ROT_N"):
        return ins.arg or 1
    if op == "DICT_UPDATE":
        return (ins.arg or 1) + 1
    return {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4, "MATCH_CLASS": 3}.get(op, 2)


class _Sim:
    """Runs pattern instructions on a symbolic stack, filling in the nodes they test."""

    def __init__(self, builder: "PatternRules", stack: List[n.Expr], floor: int = 0, stored: bool = False) -> None:
        self.b = builder
        self.instrs = builder.instrs
        self.stack = stack
        # The values below `floor` belong to the enclosing case or pattern: reaching them ends the run.
        self.floor = floor
        # Names are stored only once the whole pattern matched: no test may follow a store.
        self.stored = stored
        self.fails: List[Tuple[int, int]] = []
        self.inline_body: Optional[Tuple[int, int]] = None
        self.resumes: List[int] = []
        self.flag = builder.version.match_pushes_success_flag

    # --- node updates go through the journal so that a wrong reading can be undone --------------

    def set(self, obj: Any, attr: str, value: Any) -> None:
        self.b._journal().append((obj, attr, getattr(obj, attr)))
        setattr(obj, attr, value)

    def child(self, node: _Node, key: Any) -> _Node:
        if key not in node.items:
            items = dict(node.items)
            items[key] = _Node()
            self.set(node, "items", items)
        return node.items[key]

    def bind(self, item: n.Expr, name: str) -> None:
        if isinstance(item, _Subj):
            for node in item.nodes:
                if name not in node.names:
                    self.set(node, "names", node.names + [name])
        elif isinstance(item, _Rest) and item.node is not None:
            self.set(item.node, "rest", name)
        else:
            raise _NotAPattern()

    def pop(self) -> n.Expr:
        if not self.stack:
            raise _NotAPattern()
        return self.stack.pop()

    def subj(self, item: n.Expr) -> _Node:
        if not isinstance(item, _Subj):
            raise _NotAPattern()
        return item.node

    # --- the run ------------------------------------------------------------------------------

    def run(self, i: int) -> int:
        """Run pattern code from `i`; return the index of the first instruction that is not."""
        instrs = self.instrs
        while i < len(instrs) and i < self.b.end:
            if i != 0 and i in self.b.loop_end:
                return i
            nxt = self.guarded_step(i)
            if nxt is None:
                return i
            i = nxt
            if self.inline_body is not None:
                return i
        return i

    def guarded_step(self, i: int) -> Optional[int]:
        floor = self.floor
        if not floor or len(self.stack) - _reach(self.instrs[i]) >= floor:
            return self.step(i)
        before = list(self.stack)
        mark = len(self.b._journal())
        nxt = self.step(i)
        st = self.stack
        if self.inline_body is not None:
            return nxt  # the copied tail of an or-pattern has dropped the case's subject too
        if nxt is not None and (len(st) < floor or any(st[k] is not before[k] for k in range(floor))):
            self.stack = before
            self.b._rollback(mark)
            return None
        return nxt

    def step(self, i: int) -> Optional[int]:
        ins = self.instrs[i]
        op = ins.opname
        st = self.stack
        if op in _VALUE_OPS:
            run = self.b._value_run(i, st)
            if run is None:
                return None
            values, k = run
            st.extend(values)
            return k
        if not st:
            return None
        run_one = _STEPS.get(op)
        return None if run_one is None else run_one(self, ins, i, st[-1])

    # --- one method per instruction (`_STEPS`): (instruction, index, top of the stack) -----------

    def step_copy(self, ins: Instr, i: int, top: n.Expr) -> Optional[int]:
        st = self.stack
        k = 1 if ins.opname == "DUP_TOP" else ins.arg
        if len(st) < k:
            return None
        if k == 1 and isinstance(top, _Subj):
            return self.copy_subject(i)
        st.append(st[-k])
        return i + 1

    def step_pop_top(self, ins: Instr, i: int, top: n.Expr) -> int:
        if isinstance(top, _Subj) and top.must_store:
            raise _NotAPattern()
        if isinstance(top, _Subj) and top.as_copy and len(top.nodes) == 1 and top.node.kind is None:
            self.set(top.node, "wild", True)
        self.stack.pop()
        return i + 1

    def step_store(self, ins: Instr, i: int, top: n.Expr) -> int:
        self.bind(self.stack.pop(), ins.argval)
        self.stored = True
        return i + 1

    def step_match_kind(self, ins: Instr, i: int, top: n.Expr) -> int:
        node = self.subj(top)
        self.set_kind(node, "seq" if ins.opname == "MATCH_SEQUENCE" else "map")
        self.stack.append(_Cond(node))
        return i + 1

    def step_get_len(self, ins: Instr, i: int, top: n.Expr) -> int:
        self.stack.append(_Len(self.subj(top)))
        return i + 1

    def step_is_op(self, ins: Instr, i: int, top: n.Expr) -> int:
        value = self.pop()
        node = self.subj(self.pop())
        if ins.flag or not isinstance(value, n.Const) or value.value not in (None, True, False):
            raise _NotAPattern()
        self.set_kind(node, "singleton")
        self.set(node, "value", value)
        self.stack.append(_Cond(node))
        return i + 1

    def step_match_class(self, ins: Instr, i: int, top: n.Expr) -> int:
        st = self.stack
        names = self.pop()
        cls = self.pop()
        node = self.subj(self.pop())
        if not (isinstance(names, n.Const) and isinstance(names.value, tuple)) or isinstance(cls, _Subj):
            raise _NotAPattern()
        self.set_kind(node, "class")
        self.set(node, "cls", cls)
        self.set(node, "nargs", ins.arg)
        self.set(node, "kwnames", names.value)
        st.append(_Parts(node))
        if self.flag:
            st.append(_Cond(node))
        return i + 1

    def step_match_keys(self, ins: Instr, i: int, top: n.Expr) -> int:
        st = self.stack
        keys = self.pop()
        node = self.subj(st[-1]) if st else self.subj(None)
        self.set_kind(node, "map")
        self.set(node, "keys", keys)
        st.append(_Keys(node, keys))
        st.append(_Parts(node))
        if self.flag:
            st.append(_Cond(node))
        return i + 1

    def step_copy_dict_without_keys(self, ins: Instr, i: int, top: n.Expr) -> int:
        keys = self.pop()
        if not isinstance(keys, _Keys):
            raise _NotAPattern()
        self.stack.append(_Rest(keys.node))
        return i + 1

    def step_build_map(self, ins: Instr, i: int, top: n.Expr) -> Optional[int]:
        if ins.arg != 0:
            return None
        self.stack.append(_Rest(None))
        return i + 1

    def step_dict_update(self, ins: Instr, i: int, top: n.Expr) -> int:
        st = self.stack
        source = self.pop()
        target = st[-ins.arg] if len(st) >= ins.arg else None
        if not isinstance(target, _Rest) or target.node is not None:
            raise _NotAPattern()
        st[-ins.arg] = _Rest(self.subj(source))
        return i + 1

    def step_delete_subscr(self, ins: Instr, i: int, top: n.Expr) -> int:
        self.pop()
        self.pop()
        return i + 1

    def step_subtract(self, ins: Instr, i: int, top: n.Expr) -> Optional[int]:
        st = self.stack
        if ins.opname == "BINARY_OP" and ins.argval != "-":
            return None
        if len(st) < 2 or not isinstance(st[-2], _Len) or not isinstance(st[-1], n.Const):
            return None
        k = self.pop()
        length = self.pop()
        st.append(_LenMinus(length.node, k.value))
        return i + 1

    def set_kind(self, node: _Node, kind: str) -> None:
        if node.kind is not None and node.kind != kind:
            raise _NotAPattern()
        self.set(node, "kind", kind)

    def rotate(self, ins: Instr, i: int) -> int:
        st = self.stack
        op = ins.opname
        if op == "SWAP":
            k = ins.arg
            if len(st) < k:
                raise _NotAPattern()
            st[-1], st[-k] = st[-k], st[-1]
            return i + 1
        k = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(op, ins.arg)
        if len(st) < k:
            raise _NotAPattern()
        top = st.pop()
        st.insert(len(st) - (k - 1), top)
        return i + 1

    def compare(self, ins: Instr, i: int) -> int:
        st = self.stack
        value = self.pop()
        left = self.pop()
        op = ins.argval
        if isinstance(left, _Len):
            if not (isinstance(value, n.Const) and isinstance(value.value, int)):
                raise _NotAPattern()
            if op == "==":
                self.set(left.node, "length", value.value)
            elif op == ">=":
                self.set(left.node, "min_length", value.value)
            else:
                raise _NotAPattern()
            st.append(_Cond(left.node))
            return i + 1
        node = self.subj(left)
        if op != "==" or isinstance(value, (_Subj, _Len, _Parts, _Keys, _Rest, _Cond)):
            raise _NotAPattern()
        self.set_kind(node, "value")
        self.set(node, "value", value)
        st.append(_Cond(node))
        return i + 1

    def fail_jump(self, ins: Instr, i: int) -> Optional[int]:
        """A test's jump to the failure path. From 3.12 a failure path that is a jump back (to a
        loop head) inverts the test: it jumps over an unconditional jump to the failure target."""
        st = self.stack
        if ins.target is None or not st:
            return None
        op = ins.opname
        target, nxt = ins.target, i + 1
        item = st[-1]
        # The compiler's own tests jump when the pattern fails; a jump on success is an inverted one.
        inverted = op == "POP_JUMP_IF_TRUE" or (op == "POP_JUMP_IF_NONE" and isinstance(item, _Subj)) \
            or (op == "POP_JUMP_IF_NOT_NONE" and isinstance(item, _Parts))
        if inverted:
            after = self.instrs[i + 1] if i + 1 < len(self.instrs) else None
            if not (target == i + 2 and after is not None and after.opname == "JUMP" and after.target is not None):
                return None
            op = _INVERTED[op]
            target, nxt = after.target, i + 2
        if op == "POP_JUMP_IF_FALSE":
            if not isinstance(item, _Cond):
                return None
        elif op == "POP_JUMP_IF_NONE":
            if not isinstance(item, _Parts):
                return None
        elif op == "POP_JUMP_IF_NOT_NONE":  # `case None`, folded into the jump by 3.11+
            if not isinstance(item, _Subj):
                return None
            node = self.subj(item)
            self.set_kind(node, "singleton")
            self.set(node, "value", n.Const(None))
        else:
            return None
        if self.stored:
            raise _NotAPattern()
        st.pop()
        self.fails.append((target, len(st)))
        return nxt

    def subscript(self, i: int) -> int:
        index = self.pop()
        container = self.pop()
        if isinstance(container, _Subj):
            node = container.node
            if isinstance(index, _LenMinus) and index.node is node:
                key: Any = ("neg", index.k)
            elif isinstance(index, n.Const) and isinstance(index.value, int):
                key = index.value
            else:
                raise _NotAPattern()
        elif isinstance(container, _Parts):
            node = container.node
            if not (isinstance(index, n.Const) and isinstance(index.value, int)):
                raise _NotAPattern()
            key = index.value
        else:
            raise _NotAPattern()
        self.stack.append(_Subj(self.child(node, key)))
        return i + 1

    def unpack(self, ins: Instr, i: int, count: int, star: Optional[int]) -> int:
        item = self.pop()
        if isinstance(item, _Keys):  # keys taken out one by one to delete them from `**rest`
            self.stack.extend(_Opaque() for _ in range(count))
            return i + 1
        if isinstance(item, _Subj):
            node = item.node
            if node.kind != "seq":
                raise _NotAPattern()
            if star is not None:
                self.set(node, "star", star)
        elif isinstance(item, _Parts):
            node = item.node
        else:
            raise _NotAPattern()
        children = [self.child(node, k) for k in range(count)]
        self.stack.extend(_Subj(c) for c in reversed(children))
        return i + 1

    # --- or-patterns and as-patterns ------------------------------------------------------------

    def copy_subject(self, i: int) -> int:
        """COPY 1 of a subject: the first alternative of an or-pattern, or an as-pattern."""
        instrs = self.instrs
        # 3.10 takes items and attributes out with a copy and a subscript; after a `*_` every
        # version indexes from the end with a copy and GET_LEN.
        subscript = i + 2 < len(instrs) and (
            instrs[i + 1].opname == "GET_LEN"
            or instrs[i + 1].opname in ("LOAD_CONST", "LOAD_SMALL_INT") and instrs[i + 2].opname == "BINARY_SUBSCR")
        if not subscript:
            journal_mark = len(self.b._journal())
            saved = (list(self.stack), list(self.fails), self.stored, list(self.resumes))
            try:
                return self.or_pattern(i)
            except _NotAPattern:
                self.b._rollback(journal_mark)
                self.stack, self.fails, self.stored, self.resumes = \
                    list(saved[0]), list(saved[1]), saved[2], list(saved[3])
        top = self.stack[-1]
        assert isinstance(top, _Subj)
        if not subscript:
            # An as-pattern: the copy is matched, the value below it is stored under the name.
            self.stack[-1] = _Subj(*top.nodes, must_store=True)
            self.stack.append(_Subj(*top.nodes, as_copy=True))
        else:
            self.stack.append(top)
        return i + 1

    def or_pattern(self, i: int) -> int:
        instrs = self.instrs
        subject_item = self.stack[-1]
        node = self.subj(subject_item)
        depth = len(self.stack)
        base_stack = list(self.stack)
        alts: List[_Node] = []
        arrivals: List[List[n.Expr]] = []
        inline: Optional[Tuple[int, int, List[n.Expr]]] = None
        end: Optional[int] = None
        k = i
        while True:
            ins = instrs[k]
            if ins.opname not in _COPIES or (ins.opname == "COPY" and ins.arg != 1):
                raise _NotAPattern()
            alt = _Node()
            inner = _Sim(self.b, list(base_stack) + [_Subj(alt)], floor=depth, stored=self.stored)
            j = inner.run(k + 1)
            if inner.inline_body is not None:
                raise _NotAPattern()
            self.resumes.extend(inner.resumes)
            jump = instrs[j] if j < len(instrs) else None
            if jump is not None and jump.opname == "JUMP" and jump.target is not None and jump.target > j:
                if len(inner.stack) < depth or inner.stack[depth - 1] is not subject_item:
                    raise _NotAPattern()
                if end is None:
                    end = jump.target
                elif end != jump.target:
                    raise _NotAPattern()
                arrivals.append(list(inner.stack))
                after = j + 1
            else:
                inline = self._inline_tail(inner, j, depth)
                after = inline[1]
            fail_end = self._alternative_fail_end(inner, after, depth)
            alts.append(alt)
            if not inner.fails:
                # An irrefutable alternative is the last one; nothing follows it but the end.
                if len(alts) < 2 or end is None or fail_end != end:
                    raise _NotAPattern()
                self.set_kind(node, "or")
                self.set(node, "alts", alts)
                self.stack = self._merge(arrivals, depth)
                return end
            if fail_end >= len(instrs):
                raise _NotAPattern()
            nxt = instrs[fail_end]
            if nxt.opname in _COPIES and (nxt.opname == "DUP_TOP" or nxt.arg == 1):
                k = fail_end
                continue
            if nxt.opname != "POP_TOP":
                raise _NotAPattern()
            break
        return self._all_alternatives_failed(node, alts, arrivals, inline, end, fail_end, depth)

    def _inline_tail(self, inner: "_Sim", j: int, depth: int) -> Tuple[int, int, List[n.Expr]]:
        """The jump to the code after the alternatives was replaced by a copy of that code (a short
        block that returns); its stores have run, its body starts at `j`. That body's range and
        the stack it starts with."""
        instrs = self.instrs
        tail = _Sim(self.b, inner.stack, stored=inner.stored)
        while j < len(instrs) and instrs[j].opname in _TAIL_OPS:
            tail.step(j)
            j += 1
        if len(tail.stack) >= depth:
            raise _NotAPattern()
        t = j
        while t < len(instrs) and instrs[t].opname not in TERMINAL:
            if instrs[t].is_jump or t - j > _MAX_INLINE_TAIL:
                raise _NotAPattern()
            t += 1
        if t >= len(instrs):
            raise _NotAPattern()
        return (j, t + 1, list(tail.stack))

    def _alternative_fail_end(self, inner: "_Sim", after: int, depth: int) -> int:
        """Where an alternative's failures meet, past the POP_TOPs that clear what it pushed
        (`after`, the end of the alternative, where it cannot fail)."""
        instrs = self.instrs
        fail_end = after
        ends = set()
        for target, d in inner.fails:
            pops = d - depth
            if target < after or pops < 0:
                raise _NotAPattern()
            for p in range(target, target + pops):
                if instrs[p].opname != "POP_TOP":
                    raise _NotAPattern()
            ends.add(target + pops)
        if len(ends) > 1:
            raise _NotAPattern()
        if ends:
            fail_end = ends.pop()
        return fail_end

    def _all_alternatives_failed(self, node: _Node, alts: List[_Node], arrivals: List[List[n.Expr]],
                                 inline: Optional[Tuple[int, int, List[n.Expr]]], end: Optional[int],
                                 fail_end: int, depth: int) -> int:
        """The or-pattern whose last alternative fails at `fail_end`: where the run goes on."""
        instrs = self.instrs
        if len(alts) < 2:
            raise _NotAPattern()
        # Every alternative failed: drop the subject and go to the enclosing failure.
        p = fail_end + 1
        if p < len(instrs) and instrs[p].opname == "JUMP" and instrs[p].target is not None and instrs[p].target > p:
            self.fails.append((instrs[p].target, depth - 1))
            p += 1
        else:
            self.fails.append((p, depth - 1))
        self.set_kind(node, "or")
        self.set(node, "alts", alts)
        if end is None:
            if inline is None:
                raise _NotAPattern()
            self.stack = list(inline[2])
            self.inline_body = (inline[0], inline[1])
            return p
        # The code after the alternatives usually follows them; 3.13 may have moved it further down.
        self.stack = self._merge(arrivals, depth)
        self.resumes.append(end)
        return end

    def _merge(self, arrivals: List[List[n.Expr]], depth: int) -> List[n.Expr]:
        """One stack for the code after the alternatives: each capture points at every alternative's node."""
        size = len(arrivals[0])
        if any(len(a) != size for a in arrivals):
            raise _NotAPattern()
        merged = list(arrivals[0][:depth])
        for pos in range(depth, size):
            items = [a[pos] for a in arrivals]
            if all(isinstance(x, _Subj) for x in items):
                nodes: List[_Node] = []
                for x in items:
                    nodes.extend(x.nodes)
                merged.append(_Subj(*nodes))
            elif all(x is items[0] for x in items):
                merged.append(items[0])
            else:
                raise _NotAPattern()
        return merged


#: How `_Sim.step` runs each instruction of a pattern (those of `_VALUE_OPS` aside):
#: (simulation, instruction, index, top of the stack) -> where to go on, None where the
#: instruction is not part of the pattern.
_STEPS: Dict[str, Callable[[_Sim, Instr, int, n.Expr], Optional[int]]] = {
    **dict.fromkeys(_COPIES, _Sim.step_copy),
    "POP_TOP": _Sim.step_pop_top,
    **dict.fromkeys(_STORES, _Sim.step_store),
    **dict.fromkeys(_ROTATIONS, lambda sim, ins, i, top: sim.rotate(ins, i)),
    "MATCH_SEQUENCE": _Sim.step_match_kind,
    "MATCH_MAPPING": _Sim.step_match_kind,
    "GET_LEN": _Sim.step_get_len,
    "COMPARE_OP": lambda sim, ins, i, top: sim.compare(ins, i),
    "IS_OP": _Sim.step_is_op,
    "TO_BOOL": lambda sim, ins, i, top: i + 1 if isinstance(top, _Cond) else None,
    **dict.fromkeys(("POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_TRUE"),
                    lambda sim, ins, i, top: sim.fail_jump(ins, i)),
    "MATCH_CLASS": _Sim.step_match_class,
    "MATCH_KEYS": _Sim.step_match_keys,
    "COPY_DICT_WITHOUT_KEYS": _Sim.step_copy_dict_without_keys,
    "BUILD_MAP": _Sim.step_build_map,
    "DICT_UPDATE": _Sim.step_dict_update,
    "DELETE_SUBSCR": _Sim.step_delete_subscr,
    "BINARY_SUBTRACT": _Sim.step_subtract,
    "BINARY_OP": _Sim.step_subtract,
    "BINARY_SUBSCR": lambda sim, ins, i, top: sim.subscript(i),
    "UNPACK_SEQUENCE": lambda sim, ins, i, top: sim.unpack(ins, i, ins.arg, None),
    "UNPACK_EX": lambda sim, ins, i, top: sim.unpack(ins, i, (ins.arg & 0xFF) + 1 + (ins.arg >> 8), ins.arg & 0xFF),
}
