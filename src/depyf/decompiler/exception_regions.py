"""What a 3.11+ exception table says about one code object.

3.11 dropped the SETUP_* instructions: a protected range is only an entry of the exception table
(`Bytecode.regions`, flattened so that every instruction has at most its innermost handler). This
module reads that table for the statement builders of `exception_table`:

* every handler target gets a *kind* from its first instructions (a try handler starts with
  PUSH_EXC_INFO, a with handler continues with WITH_EXCEPT_START, `COPY 3; POP_EXCEPT; RERAISE 1`
  is the cleanup that restores the previous exception, and so on);
* the *chain* of an instruction lists the try/with handlers that enclose it, innermost first: the
  handler of its own region, then the handler of the region that protects that handler's code
  (through its cleanup block), and so on outwards. A try statement starts at the first instruction
  whose chain names its handler;
* normal-flow reachability tells handler code (reached only by an exception) from the rest; the
  control-flow rules ask it about loops that handler code closes and about 3.11's inline handlers.

Regions that are not source constructs (the generator wrapper, `await`/`yield from`, 3.12+ inlined
comprehensions, async for) never start a statement; their handler code is dead for the builder.
"""
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, ExceptionRegion
from depyf.decompiler.structure.handler_kinds import CONSTRUCTS, HandlerKind, comprehension_cleanup_end
from depyf.decompiler.structure.try_table import TryTable, try_table


class TableState:
    """What the exception table says about one code object, for one reading: the facts of the
    bytecode are `table`'s (`structure/try_table.py`, made once per graph; `region_at`, `kinds`
    and `try_starts` are its, under the names the rules read); the three sets below are filled
    as the reading goes."""

    def __init__(self, table: TryTable) -> None:
        self.table = table
        self.region_at: Sequence[Optional[ExceptionRegion]] = table.region_at
        self.kinds: Mapping[int, HandlerKind] = table.kinds
        self.try_starts: Mapping[int, Tuple[int, ...]] = table.try_starts
        self.handled: Set[int] = set()
        # Small exit blocks a `break` runs after leaving a try/finally: start -> end.
        self.exit_breaks: Dict[int, int] = {}
        # Code in a try body that the try does not protect (where a break's copied exit may be).
        self.unprotected: Set[int] = set()


class ExceptionRegionAnalysis:
    """Reading the exception table; mixed into `builder.CodeBuilder` through `exception_table`."""

    def _xt(self) -> TableState:
        state = getattr(self, "_xt_state", None)
        if state is None:
            state = self._xt_state = self._analyse_table()
        return state

    def _analyse_table(self) -> TableState:
        st = self._xt_state = TableState(try_table(self.graph))
        size = len(self.instrs)
        # Handler code of regions that are no source construct is never run.
        for t, kind in st.kinds.items():
            if kind == "genwrap":
                self._mark_dead(t, t + 2)
            elif kind == "comp":
                self._mark_dead(t, comprehension_cleanup_end(self.instrs, t) or t + 1)
            elif kind == "send" and t + 1 < size and self.instrs[t + 1].opname == "JUMP":
                self._mark_dead(t, t + 2)
        self._mark_dead_code(self._orphan_code())
        return st

    def _orphan_code(self) -> Set[int]:
        """Code that neither the entry nor any handler reaches: the handlers of a try whose body
        compiled to nothing (`try: pass`), which the compiler keeps though no range leads there."""
        live = set(self._reach(0))
        for region in self.bc.regions:
            live |= self._reach(region.handler)
        return set(range(len(self.instrs))) - live

    def _chain(self, k: int) -> Tuple[int, ...]:
        """The statements enclosing instruction `k`, innermost first (`structure/try_table.py`)."""
        return self._xt_state.table.chain(k)

    def _successors(self, k: int) -> Tuple[int, ...]:
        ins = self.instrs[k]
        if ins.opname in TERMINAL:
            return ()
        if ins.target is not None:
            if ins.opname == "JUMP":
                return (ins.target,)
            return (k + 1, ins.target)
        if ins.opname == "GET_ANEXT":
            return (k + 1,) + self._async_for_exit(k)
        return (k + 1,)

    def _async_for_exit(self, k: int) -> Tuple[int, ...]:
        """The END_ASYNC_FOR that ends the `async for` (statement or comprehension) whose GET_ANEXT
        is at `k`. The loop's way out is the StopAsyncIteration that GET_ANEXT's await raises, so
        only the exception table leads there; in the source it is the loop's normal exit, and the
        code after the loop is as much part of an enclosing try body as the loop itself."""
        for region in self.bc.regions:
            if region.start <= k < region.end and region.handler < len(self.instrs):
                if self.instrs[region.handler].opname == "END_ASYNC_FOR":
                    return (region.handler,)
                break
        return ()

    def _reach(self, start: int, stop: Optional[Set[int]] = None, floor: int = 0) -> Set[int]:
        """Instructions from `floor` on reachable from `start` without exceptions (not entering `stop`).

        Results without `stop` are cached; callers must not change them.
        """
        cache: Optional[Dict[Tuple[int, int], Set[int]]] = None
        if stop is None:
            cache = getattr(self, "_reach_cache", None)
            if cache is None:
                cache = self._reach_cache = {}
            found = cache.get((start, floor))
            if found is not None:
                return found
        size = len(self.instrs)
        seen: Set[int] = set()
        todo = [start]
        while todo:
            k = todo.pop()
            if k in seen or k >= size or k < floor or (stop is not None and k in stop):
                continue
            seen.add(k)
            todo.extend(self._successors(k))
        if cache is not None:
            cache[(start, floor)] = seen
        return seen

    def _cold_span(self, handler: int, warm: Set[int]) -> int:
        """The end of the handler code starting at `handler` (its cleanup blocks included)."""
        code = self._cold_code(handler, warm)
        return max(code) + 1 if code else handler + 1

    def _cold_code(self, handler: int, warm: Set[int]) -> Set[int]:
        """The handler code starting at `handler`, its cleanup blocks included."""
        st = self._xt_state
        code = set(self._reach(handler, warm, floor=handler))  # a jump back goes to a loop's head
        own_cleanup = st.region_at[handler].handler if st.region_at[handler] is not None else None
        # The cleanup blocks protect each other in turn: the handler's own cleanup (`COPY 3;
        # POP_EXCEPT; RERAISE 1`) of a try that is the whole body of an `except E as e` clause is
        # protected by that clause's `e = None; del e; RERAISE 1`, which nothing else leads to.
        todo = list(code)
        entered: Set[int] = set()
        while todo:
            region = st.region_at[todo.pop()]
            if region is None or region.handler <= handler or region.handler in entered:
                continue
            kind = st.kinds.get(region.handler)
            if kind in ("ascleanup", "send", "other") or region.handler == own_cleanup:
                entered.add(region.handler)
                found = self._reach(region.handler, warm, floor=handler) - code
                code |= found
                todo.extend(found)
        return code

    def _mark_dead_code(self, code: Set[int]) -> None:
        """Like `_mark_dead`, for each run of consecutive instructions of `code`."""
        for k in sorted(code, reverse=True):
            self.skip[k] = self.skip[k + 1] if k + 1 in code else k + 1

    def _mark_dead(self, start: int, end: int) -> None:
        """Handler code that has been read: the builder steps over it from now on."""
        for k in range(start, end):
            self.skip[k] = end

    def handler_only_code(self) -> FrozenSet[int]:
        """Instructions that only an exception reaches (3.11+ handler code).

        3.12+ moves handler code to the end of the function; its jumps back to a loop's head must
        not make that loop reach over everything in between. First asked while the control
        tables are prepared, before any `redirect`: the graph of the code as decoded answers,
        and the answer, a fact of the bytecode, is kept frozen.
        """
        frozen: Optional[FrozenSet[int]] = getattr(self, "_handler_code", None)
        if frozen is None:
            cached: Set[int] = set()
            if self.bc.regions:
                cached = FlowGraph.of(self.bc).handler_only_instructions()
                # (the rest is `_reach(0)` as asked here, before any redirect: kept for it)
                reached = set(range(len(self.instrs)))
                reached -= cached
                cache = getattr(self, "_reach_cache", None)
                if cache is None:
                    cache = self._reach_cache = {}
                cache.setdefault((0, 0), reached)
            if cached and (self.version.copies_jumps_back_to_body_ends
                           or self.version.copies_for_jumps_back_to_body_ends):
                # (what a handler reaches, not the dead closing jump that pass
                # `written_continues` lays after a written `continue`, as 3.8/3.9 keep one)
                cached = cached & set().union(*(self._reach(h) for h in {r.handler for r in self.bc.regions}))
            frozen = self._handler_code = frozenset(cached)
        return frozen

    def handler_jump_closes_loop(self, src: int, target: int) -> bool:
        """Does handler code at `src` jumping back to `target` close a source loop?

        3.12+ moves handler code to the end, so its jump to the code after the try goes backwards
        without being a loop; a loop it is when the target comes no later than the try itself
        (`while True: try: ... except: continue`). CLEANUP_THROW's jump back to its END_SEND is
        the end of an await.
        """
        if self.instrs[target].opname == "END_SEND":
            return False
        if target in self.handler_only_code():
            # A loop inside handler code, if its head leads back to the jump: code after a loop
            # that only a handler's `break` reaches (laid after the handler code) may end with a
            # jump back to an exit block that is itself reached only from there.
            return src in self._reach_through_handlers(target)
        st = self._xt()
        owners = [t for t, kind in st.kinds.items() if kind in CONSTRUCTS and t <= src]
        # The handlers whose code leads to the jump: a nested try's handler falls out through the
        # unwinding of the handler around it, whose try may start before the target (the jump
        # then goes to the code after that outer try, not back to a loop's head).
        reaching = [t for t in owners if src in self._reach(t, None, t)]
        if not reaching:
            loops = [h for h, kind in st.kinds.items() if kind == "asyncfor" and h <= src and src in self._reach(h, None, h)]
            if loops:
                # The code after an async for, which its END_ASYNC_FOR (laid with the handler
                # code) runs on to: a jump back to before that loop closes an enclosing loop.
                first_protected = self._first_protected()
                return target < min(first_protected[h] for h in loops)
            if not owners:
                return True
            reaching = [max(owners)]
        reaching.extend(self._unwound_by_jump(src, owners))
        for owner in reaching:
            if st.kinds[owner] == "with":
                # A with statement starts before its protected range (BEFORE_WITH and the store).
                starts = [r.start - 1 for r in self.bc.regions if r.handler == owner]
            else:
                starts = [k for k, ts in st.try_starts.items() if owner in ts]
            if starts and target > min(starts):
                return False
        return True

    def async_for_way_back(self, src: int, target: int) -> bool:
        """3.12+: is the backward jump at `src` the way from an async for's END_ASYNC_FOR (laid
        with the handler code at the end) back to the code after that loop, laid in place (`if
        c: async for x in a: ...` then the if's way out)? No source loop: its target lies between
        the loop's start and its END_ASYNC_FOR, its source in the code that follows that."""
        if not self.version.handler_code_at_end or not self.bc.regions:
            return False
        kinds = self._xt().kinds
        if "asyncfor" not in kinds.values():
            return False
        first_protected = self._first_protected()
        return any(kind == "asyncfor" and first_protected[h] <= target < h <= src
                   and src in self._reach(h, None, h) for h, kind in kinds.items())

    def handler_break_past_loop(self, h: int, j: int, end: int) -> Optional[int]:
        """Where the `while True:` loop [h, j] really ends when the rest of its body lies past its
        last jump back (`if c: continue` then `x = 1; break`, the break's jump dropped since it
        lands on the next instruction) and an except clause of a try in the body breaks out: the
        clause's code jumps to that exit, past `j + 1` (3.11 lays it inline, in the loop; 3.12+
        at the end, jumping back). The code between is reached only from the loop. None when no
        such clause jumps there."""
        handler_code = self.handler_only_code()
        if not handler_code:
            return None
        st = self._xt()
        first_protected = self._first_protected()
        candidates = sorted(
            t for src in handler_code if (t := self.instrs[src].target) is not None
            and j + 1 < t < end and (t < src or h < src < j) and self.instrs[src].opname == "JUMP")
        if not candidates:
            return None
        x = candidates[0]
        for k in range(j + 1, x):
            if k in handler_code or any(not h <= src < k for src in self.jump_sources.get(k, ())):
                return None
        if not any(h <= src <= j for src in self.jump_sources.get(j + 1, ())):
            return None
        owners = [t for t, kind in st.kinds.items() if kind == "except" and h < first_protected[t] <= j]
        # (3.12+: a try body that falls into `x`, its clause jumping back there too, goes on at
        # `x` after the statement: the rest of the loop body, not the loop's exit; `try: ...
        # except E: ...` then `more; break`)
        if self.version.handler_code_at_end and self.instrs[x - 1].opname not in ENDS_FLOW \
                and (region := st.region_at[x - 1]) is not None and region.handler in owners and x - 1 in self._reach(h):
            return None
        for src in self.jump_sources.get(x, ()):
            if src in handler_code and any(src in self._reach(t, None, t) for t in owners):
                return x
        return None

    def _first_protected(self) -> Mapping[int, int]:
        """Each handler's first protected instruction (`structure/try_table.py`)."""
        return try_table(self.graph).first_protected

    def loop_body_reach(self, h: int, exit: int, after: Optional[int] = None,
                        breaks: FrozenSet[int] = frozenset()) -> Set[int]:
        """The code that the body of the loop at `h` reaches without leaving through `exit` (or
        through `after`, the code after the loop, which a `break` jumps to, or `breaks`, where
        the `break`s past an else part go, or by a jump to before `h`), the handler code of
        the statements in it included (handlers whose protected code starts in the loop)."""
        st = self._xt()
        first_protected = self._first_protected()
        stop = ({exit} if after is None else {exit, after}) | set(breaks)
        # (a jump to before the loop's head leaves it: the `break` of a loop ending an enclosing
        # loop's body goes straight to that loop's head, and on from there)
        seen = self._reach(h + 1, stop, h)
        todo = list(seen)
        while todo:
            region = st.region_at[todo.pop()]
            if region is None or region.handler in seen or first_protected[region.handler] <= h:
                continue
            found = self._reach(region.handler, stop, h) - seen
            seen |= found
            todo.extend(found)
        return seen

    def _reach_through_handlers(self, start: int, floor: int = 0,
                                kinds: Tuple[str, ...] = ("except", "star", "with")) -> Set[int]:
        """`_reach` (from `floor` on), also into the except clauses (and with handlers) of the
        code reached; `kinds` names the handlers followed.

        A `while True:` inside handler code (a finally body's exceptional copy) whose try's body
        breaks out and whose clause goes on: only that clause's jump closes the loop."""
        st = self._xt()
        seen: Set[int] = set()
        todo = [start]
        while todo:
            found = self._reach(todo.pop(), floor=floor)
            new = found - seen
            seen |= new
            for k in new:
                region = st.region_at[k]
                if region is not None and region.handler not in seen and region.handler >= floor \
                        and st.kinds.get(region.handler) in kinds:
                    todo.append(region.handler)
        return seen

    def _unwound_by_jump(self, src: int, owners: List[int]) -> List[int]:
        """The handlers that a run of POP_EXCEPTs right before the jump at `src` leaves besides
        the innermost one (3.13 unwinds nested handlers in one run: `POP_EXCEPT; POP_EXCEPT;
        JUMP`). Each POP_EXCEPT but the last still runs inside the handler that a later one
        unwinds, under that handler's cleanup region."""
        st = self._xt()
        instrs = self.instrs
        cleanups = {st.region_at[t].handler: t for t in owners if st.region_at[t] is not None}
        found = []
        k = src - 1
        while k >= 0 and instrs[k].opname == "POP_EXCEPT":
            region = st.region_at[k]
            if region is not None and region.handler in cleanups:
                found.append(cleanups[region.handler])
            k -= 1
        return found

    def handler_loop_end(self, header: int, jump: int) -> int:
        """The last instruction of a loop that only handler code jumps back into.

        A for loop's body runs up to its exit even when the last back edge comes from a 3.11
        inline handler (`for ...: try: ... except: continue` followed by a return).
        """
        ins = self.instrs[header]
        if ins.opname != "FOR_ITER" or ins.target is None:
            if not self.version.handler_code_at_end and self._before_unwinding(jump, 0) is not None:
                # 3.11 lays the handler inline: a `while True:` that its handler's `continue`
                # closes runs to the end of that handler code (its other ways out, `break`s,
                # jump past it).
                # (not into code the loop's head reaches without exceptions: where the loop
                # itself is reached only from a handler, the code after `try: raise E` / `except
                # E: ...` say, all of it is handler-only code, the rest of its body included)
                handler_code = self.handler_only_code() - self._reach(header)
                while jump + 1 in handler_code:
                    jump += 1
            return jump
        if self._before_unwinding(jump, 0) is not None or self._after_with_swallow(jump):
            # a handler's `continue`, or the way on after a with statement whose exit swallowed
            # the exception (the with ends the body): the loop itself ends at its exit
            return ins.target - 1
        return max(jump, ins.target - 1)  # code after a try that only its handlers reach

    def last_normal_index(self, start: int, end: int) -> int:
        """The last instruction before `end` that normal flow from `start` reaches.

        3.11 lays a try's handler code inline, so an if-branch that ends with a try statement
        ends with handler code; the jump over the else part comes before it.
        """
        k = end - 1
        if k not in self.handler_only_code():
            return k
        flow = self._reach(start, None)
        while k > start and k not in flow:
            k -= 1
        target = self.instrs[k].target
        leaves = self.instrs[k].opname == "JUMP" and not start < (target or -1) < end
        # (or the jump back of a `while True:` that only an except clause's `break` leaves)
        closes_loop = self.instrs[k].opname == "JUMP" and target is not None and start < target <= k
        if self.instrs[k].opname in TERMINAL or leaves or closes_loop:
            # A body that ends in a try whose body always leaves (`try: return f()`, or a
            # `continue`) goes on only from its handlers: a handler's way out past `end` is the
            # jump over the else part.
            for j in range(end - 1, k, -1):
                ins = self.instrs[j]
                if ins.opname == "JUMP" and ins.target is not None and ins.target > end \
                        and self._before_unwinding(self._after_finally_copy(j, k), k) is not None:
                    return j
            last = self.instrs[end - 1]
            if last.opname == "JUMP" and last.target is not None and last.target > end \
                    and (end - 1 in self._reach(k + 1, None, k + 1)
                         or end - 1 in self._reach_through_handlers(start, floor=start)):
                # (3.11: the handler falls out to more of the branch, which then jumps over
                # the else part: `except E: pass` then `a = 1`, in an if body with an else; the
                # handler of an enclosing try too, when the normal flow stops at a finally body
                # that raises: `try: (try: ... finally: raise E) except E: pass` then `a = 1`)
                return end - 1
            # (3.11, whose handler code lies inline, before the jump over the else part)
            through = self._reach_through_handlers(start, floor=start) \
                if not self.version.handler_code_at_end else set()
            for j in range(end - 1, k, -1):
                ins = self.instrs[j]
                if ins.opname == "JUMP" and ins.target is not None and ins.target > end and j in through:
                    # (... or after the normal copy of a finally body that the clauses jump to:
                    # `try: raise E / except E: ... / finally: ...` then `else:`)
                    return j
        return k

    def _falls_into(self, s: int, be: int, through_inner_handlers: bool = False) -> bool:
        """Does the code [s, be) reach `be` by itself (rather than only returning or leaving)?

        With `through_inner_handlers` (3.11, handler code inline), also through the except
        clauses and with handlers of constructs inside it, laid before `be` (`try: (with a: (try:
        raise E / except E: pass); more)`: only the inner except clause goes on, to `more`, then
        out of the with to `be`)."""
        st = self._xt() if through_inner_handlers else None
        seen: Set[int] = set()
        todo = [s]
        while todo:
            k = todo.pop()
            if k == be:
                return True
            if k in seen or not s <= k < be:
                continue
            seen.add(k)
            k2 = self.skip.get(k)
            todo.extend((k2,) if k2 is not None and k2 > k else self._successors(k))
            region = st.region_at[k] if st is not None else None
            if region is not None and s <= region.handler < be \
                    and st.kinds.get(region.handler) in ("except", "star", "with"):
                todo.append(region.handler)
        return False

    def _after_with_swallow(self, j: int) -> bool:
        """Does `j` come right after a with statement's swallowing exit (`POP_EXCEPT`, then the
        exit function and the context manager's value popped)?"""
        instrs = self.instrs
        return j >= 3 and instrs[j - 3].opname == "POP_EXCEPT" and instrs[j - 2].opname == "POP_TOP" \
            and instrs[j - 1].opname == "POP_TOP"

    def _after_finally_copy(self, j: int, hs: int) -> int:
        """Where the straight run of handler code that ends right before the jump at `j` starts
        when it follows the handler's unwinding (`POP_EXCEPT [e = None; del e]`): the copy of
        an enclosing finally body that a handler's way out runs before it jumps (3.11: `except
        E: break` inside `try: ... finally: ...`). `j` when no such run comes before it."""
        instrs = self.instrs
        if self.version.handler_code_at_end:
            return j  # (3.12+ lay the clause's way out with the handler code: its own rules)
        k = j - 1
        while k > hs and instrs[k].target is None and instrs[k].opname not in TERMINAL \
                and instrs[k].opname != "POP_EXCEPT" and not self.jump_sources.get(k) \
                and not instrs[k].opname.startswith("DELETE_"):
            k -= 1
        if k == j - 1 or k <= hs or not (instrs[k].opname == "POP_EXCEPT" or instrs[k].opname.startswith("DELETE_")):
            return j
        return k + 1

    def _before_unwinding(self, j: int, hs: int) -> Optional[int]:
        """If `j` comes right after the handler's `POP_EXCEPT [e = None; del e]`, that POP_EXCEPT."""
        instrs = self.instrs
        k = j - 1
        if self.version.handler_code_at_end:
            # (3.12+: the copy of an enclosing finally body on the way out, already marked read,
            # may stand between: `except E: ...; break` in a try/except/finally)
            while k > hs and self.skip.get(k) == j and k - 1 in self.skip and self.skip[k - 1] == j:
                k -= 1
            if k > hs and self.skip.get(k) == j and instrs[k - 1].opname == "POP_EXCEPT":
                k -= 1
        if k >= hs and instrs[k].opname.startswith("DELETE_") and k - 2 >= hs:
            k -= 3
        if k >= hs and instrs[k].opname == "POP_EXCEPT":
            return k
        return None
