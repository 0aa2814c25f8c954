"""Instructions that only compute values: loads, operators, displays, calls, f-strings.

Each `op_<OPNAME>` method takes the instruction and its index and returns the next index to run
(None means the next instruction). They only touch the symbolic stack.
"""
from typing import Any, List, Optional

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NeedsTemporaries
from depyf.decompiler.instructions import Instr

BINARY_OPS = {
    "BINARY_ADD": "+", "BINARY_SUBTRACT": "-", "BINARY_MULTIPLY": "*", "BINARY_TRUE_DIVIDE": "/",
    "BINARY_FLOOR_DIVIDE": "//", "BINARY_MODULO": "%", "BINARY_POWER": "**", "BINARY_LSHIFT": "<<",
    "BINARY_RSHIFT": ">>", "BINARY_AND": "&", "BINARY_OR": "|", "BINARY_XOR": "^",
    "BINARY_MATRIX_MULTIPLY": "@",
}
INPLACE_OPS = {name.replace("BINARY_", "INPLACE_"): op for name, op in BINARY_OPS.items()}
# What consumes a truth value that 3.13's TO_BOOL made explicit.
_TRUTH_CONSUMERS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "UNARY_NOT"})
# The bit of 3.13's COMPARE_OP argument that converts the result to bool (a TO_BOOL folded in).
_COMPARE_TO_BOOL = 16
UNARY_OPS = {"UNARY_NEGATIVE": "-", "UNARY_POSITIVE": "+", "UNARY_INVERT": "~", "UNARY_NOT": "not"}
CONVERSIONS = {0: None, 1: "s", 2: "r", 3: "a"}
_new = object.__new__


def folds_under_not(e: n.Expr) -> bool:
    """A single `is`/`in` comparison: the compiler rewrites `not (a is b)` as `a is not b`, so
    its negation cannot be written next to it without changing the instruction it compiles to."""
    return isinstance(e, n.Compare) and not e.fused and not e.keeps_not and len(e.ops) == 1 \
        and e.ops[0] in n.NEGATED_COMPARISONS


def negate(e: n.Expr) -> n.Expr:
    """`not e`, folded the way the compiler folds it (`not a is b` is `a is not b`, up to 3.13;
    a comparison that `keeps_not` stays under its `not`)."""
    if isinstance(e, n.UnaryOp) and e.op == "not":
        return e.operand
    if isinstance(e, n.Compare) and len(e.ops) == 1 and e.ops[0] in n.NEGATED_COMPARISONS and not e.keeps_not:
        return n.Compare(e.left, [n.NEGATED_COMPARISONS[e.ops[0]]], e.comparators, e.fused)
    return n.UnaryOp("not", e)


class AssertionErrorName(n.Name):
    """`AssertionError` as loaded by an assert statement (LOAD_ASSERTION_ERROR)."""
    __slots__ = ()


class ExpressionRules:
    """Stack-only instruction handlers; mixed into `builder.CodeBuilder`."""

    stack: List[n.Expr]

    def pop(self) -> n.Expr: ...  # provided by the builder
    def popn(self, count: int) -> List[n.Expr]: ...
    def fail(self, instr: Instr, reason: str) -> Exception: ...
    def emit(self, stmt: n.Stmt) -> None: ...  # provided by the builder
    def comprehension_item(self, kind: type, item: n.Expr) -> n.Stmt: ...  # definitions

    # --- loads ----------------------------------------------------------------------------

    # The loads are a third of all instructions: their nodes are made without the call of
    # their __init__ (`n.Const(ins.argval)`, `n.Name(ins.argval)`, `n.Attribute(obj, name)`).

    def op_LOAD_CONST(self, ins: Instr, i: int) -> None:
        value = ins.argval
        kind = type(value)
        if kind is slice or (kind is tuple and any(type(x) is slice for x in value)):
            self.stack.append(_slice_constant(value))  # (3.14 folds constant slices)
            return
        const = _new(n.Const)
        const.value = value
        self.stack.append(const)

    def op_LOAD_FAST(self, ins: Instr, i: int) -> None:
        name = _new(n.Name)
        name.id = ins.argval
        self.stack.append(name)

    op_LOAD_NAME = op_LOAD_DEREF = op_LOAD_CLASSDEREF = op_LOAD_CLOSURE = op_LOAD_FAST

    def op_LOAD_FAST_AND_CLEAR(self, ins: Instr, i: int) -> None:
        self.stack.append(m.ClearedLocal(ins.argval))

    def op_LOAD_GLOBAL(self, ins: Instr, i: int) -> None:
        name = _new(n.Name)
        name.id = ins.argval
        self._push_callable(name, ins.flag)

    def _push_callable(self, value: n.Expr, with_null: bool) -> None:
        if not with_null:
            self.stack.append(value)
        elif self.version.null_above_callable:
            self.stack.append(value)
            self.stack.append(m.NULL)
        else:
            self.stack.append(m.NULL)
            self.stack.append(value)

    def op_LOAD_ATTR(self, ins: Instr, i: int) -> None:
        obj = self.stack.pop()  # (`self.pop()` without the call: see `CodeBuilder.pop`)
        attr = _new(n.Attribute)  # `n.Attribute(obj, ins.argval)`, as the loads above
        attr.value = obj
        attr.attr = ins.argval
        if ins.flag:  # method load: a callable and its self (or NULL), consumed together by CALL
            self.stack.append(attr)
            self.stack.append(m.NULL)
        else:
            self.stack.append(attr)

    def op_LOAD_SUPER_ATTR(self, ins: Instr, i: int) -> None:
        self_arg = self.pop()
        cls_arg = self.pop()
        super_fn = self.pop()
        two_arg = bool(ins.arg & 2)
        call = n.Call(super_fn, [cls_arg, self_arg] if two_arg else [])
        attr = n.Attribute(call, ins.argval)
        self.stack.append(attr)
        if ins.flag:
            self.stack.append(m.NULL)

    def op_LOAD_ASSERTION_ERROR(self, ins: Instr, i: int) -> None:
        self.loaded_assertion_error = True  # (tidy looks for `assert False` only then)
        self.stack.append(AssertionErrorName("AssertionError"))

    def op_LOAD_BUILD_CLASS(self, ins: Instr, i: int) -> None:
        self.stack.append(m.BuildClass())

    def op_LOAD_LOCALS(self, ins: Instr, i: int) -> None:
        self.stack.append(n.Call(n.Name("locals"), []))

    def op_LOAD_FROM_DICT_OR_DEREF(self, ins: Instr, i: int) -> None:
        self.pop()
        self.stack.append(n.Name(ins.argval))

    op_LOAD_FROM_DICT_OR_GLOBALS = op_LOAD_FROM_DICT_OR_DEREF

    def op_PUSH_NULL(self, ins: Instr, i: int) -> None:
        self.stack.append(m.NULL)

    # --- stack shuffles ---------------------------------------------------------------------

    def op_DUP_TOP(self, ins: Instr, i: int) -> None:
        self.stack.append(self.stack[-1])

    def op_DUP_TOP_TWO(self, ins: Instr, i: int) -> None:
        self.stack.extend(self.stack[-2:])

    def op_ROT_TWO(self, ins: Instr, i: int) -> None:
        if self.parallel_assignment(i + 1, 2):
            return
        s = self.stack
        s[-1], s[-2] = s[-2], s[-1]

    def op_ROT_THREE(self, ins: Instr, i: int) -> Optional[int]:
        nxt = self.instrs[i + 1] if i + 1 < len(self.instrs) else None
        if nxt is not None and nxt.opname == "ROT_TWO" and self.parallel_assignment(i + 2, 3):
            return i + 2
        s = self.stack
        s[-1], s[-2], s[-3] = s[-2], s[-3], s[-1]

    def op_ROT_FOUR(self, ins: Instr, i: int) -> None:
        s = self.stack
        s[-1], s[-2], s[-3], s[-4] = s[-2], s[-3], s[-4], s[-1]

    def op_ROT_N(self, ins: Instr, i: int) -> None:
        s = self.stack
        count = ins.arg
        top = s.pop()
        s.insert(len(s) - count + 1, top)

    def op_COPY(self, ins: Instr, i: int) -> None:
        self.stack.append(self.stack[-ins.arg])

    def op_SWAP(self, ins: Instr, i: int) -> None:
        s = self.stack
        s[-1], s[-ins.arg] = s[-ins.arg], s[-1]

    # --- operators --------------------------------------------------------------------------

    def _binary(self, op: str) -> None:
        # (here and in the other common instructions below: `self.pop()` without the call, see
        # `CodeBuilder.pop`)
        right = self.stack.pop()
        left = self.stack.pop()
        self.stack.append(n.BinOp(op, left, right))

    def _inplace(self, op: str) -> None:
        right = self.pop()
        left = self.pop()
        self.stack.append(m.InplaceResult(op, left, right))

    def op_BINARY_OP(self, ins: Instr, i: int) -> None:
        op = ins.argval
        if op.endswith("=") and op not in ("==",):
            self._inplace(op[:-1])
        else:
            self._binary(op)

    def op_BINARY_SUBSCR(self, ins: Instr, i: int) -> None:
        index = self.stack.pop()
        value = self.stack.pop()
        self.stack.append(n.Subscript(value, index))

    def op_BINARY_SLICE(self, ins: Instr, i: int) -> None:
        upper = self.pop()
        lower = self.pop()
        value = self.pop()
        self.stack.append(n.Subscript(value, n.Slice(_none_to_missing(lower), _none_to_missing(upper))))

    def op_BUILD_SLICE(self, ins: Instr, i: int) -> None:
        parts = self.popn(ins.arg)
        step = parts[2] if len(parts) == 3 else None
        self.stack.append(n.Slice(_none_to_missing(parts[0]), _none_to_missing(parts[1]),
                                  _none_to_missing(step) if step is not None else None))

    def op_COMPARE_OP(self, ins: Instr, i: int) -> None:
        right = self.stack.pop()
        left = self.stack.pop()
        compare = n.Compare(left, [ins.argval], [right])
        if self.version.has_to_bool and ins.arg is not None and ins.arg & _COMPARE_TO_BOOL \
                and (self.instrs[i + 1].opname if i + 1 < len(self.instrs) else None) not in _TRUTH_CONSUMERS:
            # (3.13 folds the TO_BOOL after a comparison into it; with no test or `not` after
            # it, that TO_BOOL was `not not x`, as for `op_TO_BOOL`)
            compare = n.UnaryOp("not", n.UnaryOp("not", compare))  # type: ignore[assignment]
        self.stack.append(compare)

    def op_IS_OP(self, ins: Instr, i: int) -> None:
        right = self.stack.pop()
        left = self.stack.pop()
        self.stack.append(n.Compare(left, ["is not" if ins.flag else "is"], [right],
                                    keeps_not=self.version.keeps_not_over_is_in))

    def op_CONTAINS_OP(self, ins: Instr, i: int) -> None:
        right = self.stack.pop()
        left = self.stack.pop()
        self.stack.append(n.Compare(left, ["not in" if ins.flag else "in"], [right],
                                    keeps_not=self.version.keeps_not_over_is_in))

    def op_TO_BOOL(self, ins: Instr, i: int) -> None:
        # 3.13 makes truth tests explicit before a conditional jump or `not`; the source never
        # spells those. Anywhere else the conversion is the value itself: `not not x` compiles
        # to a lone TO_BOOL.
        following = self.instrs[i + 1].opname if i + 1 < len(self.instrs) else None
        if following in _TRUTH_CONSUMERS:
            return
        self.stack.append(n.UnaryOp("not", n.UnaryOp("not", self.pop())))

    def op_CALL_INTRINSIC_1(self, ins: Instr, i: int) -> Optional[int]:
        what = ins.argval
        if what == "INTRINSIC_UNARY_POSITIVE":
            self.stack.append(n.UnaryOp("+", self.pop()))
        elif what == "INTRINSIC_LIST_TO_TUPLE":
            value = self.pop()
            self.stack.append(n.Tuple_(value.elts) if isinstance(value, n.List_) else n.Call(n.Name("tuple"), [value]))
        elif what == "INTRINSIC_IMPORT_STAR":
            return self.import_star(ins, i)
        elif what == "INTRINSIC_STOPITERATION_ERROR":
            pass
        elif what == "INTRINSIC_ASYNC_GEN_WRAP":
            pass  # the value an async generator yields
        else:
            return self.generic_intrinsic(ins, i)  # generics: type parameters and aliases
        return None

    def op_GET_ITER(self, ins: Instr, i: int) -> None:
        self.stack.append(m.Iterator(self.pop()))

    def op_GET_AITER(self, ins: Instr, i: int) -> None:
        self.stack.append(m.Iterator(self.pop(), is_async=True))

    # --- displays ---------------------------------------------------------------------------

    def op_BUILD_TUPLE(self, ins: Instr, i: int) -> None:
        self.stack.append(n.Tuple_(self.popn(ins.arg)))

    def op_BUILD_LIST(self, ins: Instr, i: int) -> None:
        self.stack.append(n.List_(self.popn(ins.arg)))

    def op_BUILD_SET(self, ins: Instr, i: int) -> None:
        self.stack.append(n.Set_(self.popn(ins.arg)))

    def op_BUILD_MAP(self, ins: Instr, i: int) -> None:
        items = self.popn(2 * ins.arg)
        self.stack.append(n.Dict_(items[0::2], items[1::2]))

    def op_BUILD_CONST_KEY_MAP(self, ins: Instr, i: int) -> None:
        keys = self.pop()
        values = self.popn(ins.arg)
        assert isinstance(keys, n.Const)
        self.stack.append(n.Dict_([n.Const(k) for k in keys.value], values))

    def _mutate_in_place(self, target: n.Expr, method: str, value: n.Expr) -> None:
        """`target.method(value)` on a container kept in a temporary (rewritten code only)."""
        if not isinstance(target, n.Name):
            if not self.spill_mode:
                raise NeedsTemporaries()
            target = self.spill_value(target)
        self.emit(n.ExprStmt(n.Call(n.Attribute(target, method), [self.finish_expr(value)])))

    def _unpacked_into_comprehension(self, ins: Instr, value: n.Expr, kind: type) -> bool:
        """3.15's `[*x for ...]` / `{*x for ...}` / `{**x for ...}`: the extend of a loop's
        accumulator, below the loop's iterator (a display's own is right under its item)."""
        if not (ins.arg > 1 and self.version.unpacks_in_comprehensions
                and any(isinstance(v, m.Iterator) for v in self.stack[-ins.arg + 1:])):
            return False
        item = n.DoubleStarred(value) if kind is n.Dict_ else n.Starred(value)
        self.emit(self.comprehension_item(kind, item))
        return True

    def op_LIST_EXTEND(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if self._unpacked_into_comprehension(ins, value, n.List_):
            return
        target = self.stack[-ins.arg]
        if not isinstance(target, n.List_):
            self._mutate_in_place(target, "extend", value)
        elif isinstance(target, n.List_):
            if isinstance(value, n.Const) and isinstance(value.value, tuple):
                target.elts.extend(n.Const(v) for v in value.value)
            elif isinstance(value, (n.List_, n.Tuple_)) and not target.elts:
                target.elts.extend(value.elts)
            else:
                target.elts.append(n.Starred(value))

    def op_SET_UPDATE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if self._unpacked_into_comprehension(ins, value, n.Set_):
            return
        target = self.stack[-ins.arg]
        if isinstance(target, n.Set_):
            if isinstance(value, n.Const) and isinstance(value.value, frozenset) and not target.elts:
                target.elts.extend(n.Const(v) for v in value.value)
            else:
                target.elts.append(n.Starred(value))

    def op_DICT_UPDATE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if self._unpacked_into_comprehension(ins, value, n.Dict_):
            return
        target = self.stack[-ins.arg]
        if isinstance(target, n.Dict_):
            if isinstance(value, n.Dict_) and not target.keys:
                target.keys.extend(value.keys)
                target.values.extend(value.values)
            else:
                target.keys.append(None)
                target.values.append(value)

    op_DICT_MERGE = op_DICT_UPDATE

    def op_LIST_TO_TUPLE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        self.stack.append(n.Tuple_(value.elts) if isinstance(value, n.List_) else n.Call(n.Name("tuple"), [value]))

    def _unpack_build(self, count: int, kind: str) -> None:
        parts = self.popn(count)
        elts: List[n.Expr] = []
        for p in parts:
            if isinstance(p, (n.Tuple_, n.List_, n.Set_)):
                elts.extend(p.elts)
            else:
                elts.append(n.Starred(p))
        self.stack.append({"tuple": n.Tuple_, "list": n.List_, "set": n.Set_}[kind](elts))

    def op_BUILD_TUPLE_UNPACK(self, ins: Instr, i: int) -> None:
        self._unpack_build(ins.arg, "tuple")

    op_BUILD_TUPLE_UNPACK_WITH_CALL = op_BUILD_TUPLE_UNPACK

    def op_BUILD_LIST_UNPACK(self, ins: Instr, i: int) -> None:
        self._unpack_build(ins.arg, "list")

    def op_BUILD_SET_UNPACK(self, ins: Instr, i: int) -> None:
        self._unpack_build(ins.arg, "set")

    def op_BUILD_MAP_UNPACK(self, ins: Instr, i: int) -> None:
        parts = self.popn(ins.arg)
        keys: List[Optional[n.Expr]] = []
        values: List[n.Expr] = []
        for p in parts:
            if isinstance(p, n.Dict_):
                keys.extend(p.keys)
                values.extend(p.values)
            else:
                keys.append(None)
                values.append(p)
        self.stack.append(n.Dict_(keys, values))

    op_BUILD_MAP_UNPACK_WITH_CALL = op_BUILD_MAP_UNPACK

    # --- f-strings --------------------------------------------------------------------------

    def op_FORMAT_VALUE(self, ins: Instr, i: int) -> None:
        flags = ins.arg or 0
        spec = self.pop() if flags & 4 else None
        value = self.pop()
        self.stack.append(n.FormattedValue(value, CONVERSIONS[flags & 3], _as_joined(spec)))

    def op_CONVERT_VALUE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        self.stack.append(n.FormattedValue(value, CONVERSIONS[ins.arg], None))

    def op_FORMAT_SIMPLE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if not isinstance(value, n.FormattedValue):
            value = n.FormattedValue(value, None, None)
        self.stack.append(value)

    def op_FORMAT_WITH_SPEC(self, ins: Instr, i: int) -> None:
        spec = self.pop()
        value = self.pop()
        if not isinstance(value, n.FormattedValue):
            value = n.FormattedValue(value, None, None)
        value.spec = _as_joined(spec)
        self.stack.append(value)

    def op_BUILD_STRING(self, ins: Instr, i: int) -> None:
        parts: List[object] = []
        for p in self.popn(ins.arg):
            if isinstance(p, n.Const) and isinstance(p.value, str):
                parts.append(p.value)
            elif isinstance(p, n.JoinedStr):
                parts.extend(p.parts)
            elif isinstance(p, n.FormattedValue):
                parts.append(p)
            elif isinstance(p, n.Name):
                # A piece no source puts there as it is: Dynamo's resume functions get the
                # f-string's literal pieces as parameters. BUILD_STRING only joins strings, and a
                # string formats as itself: `f'{s}'` shows the same value.
                parts.append(n.FormattedValue(p, None, None))
            else:
                # (a call's or an operator's value, not formatted: joining it raises unless it is
                # a string, which `f'{g()}'` would not; no compiler or Dynamo makes that)
                raise self.fail(ins, "an f-string part that is not formatted")
        self.stack.append(n.JoinedStr(parts))

    def op_LOAD_COMMON_CONSTANT(self, ins: Instr, i: int) -> None:
        # (3.14+: a builtin the compiler loads by itself, as `NotImplementedError` in a generated
        # `__annotate__`; the decoder has made the plain values LOAD_CONST)
        self.stack.append(n.Name(ins.argval))

    # --- template strings (3.14+) -------------------------------------------------------------

    def op_BUILD_INTERPOLATION(self, ins: Instr, i: int) -> None:
        # oparg: bit 0 a format spec is on the stack, bits 2-3 the conversion (as FORMAT_VALUE's)
        spec = self.pop() if ins.arg & 1 else None
        expression = self.pop()
        value = self.pop()
        if not (isinstance(expression, n.Const) and isinstance(expression.value, str)):
            raise self.fail(ins, "an interpolation whose source text is not a string constant")
        self.stack.append(n.Interpolation(value, expression.value, CONVERSIONS[(ins.arg >> 2) & 3],
                                          _as_joined(spec)))

    def op_BUILD_TEMPLATE(self, ins: Instr, i: int) -> None:
        fields = self.pop()
        strings = self.pop()
        values = list(fields.value if isinstance(fields, n.Const) and isinstance(fields.value, tuple)
                      else getattr(fields, "elts", [None]))
        if not (isinstance(strings, n.Const) and isinstance(strings.value, tuple)
                and all(isinstance(s, str) for s in strings.value)
                and isinstance(fields, (n.Const, n.Tuple_))
                and all(isinstance(f, n.Interpolation) for f in values)
                and len(strings.value) == len(values) + 1):
            raise self.fail(ins, "a template built from other than its literal strings and fields")
        parts: List[object] = [strings.value[0]]
        for field, text in zip(values, strings.value[1:]):
            parts += [field, text]
        self.stack.append(n.TemplateStr([p for p in parts if p != ""]))

    # --- calls ------------------------------------------------------------------------------

    def _finish_call(self, func_and_null: List[n.Expr], args: List[n.Expr]) -> None:
        func = [x for x in func_and_null if x is not m.NULL]
        if len(func) == 2:
            # method call with an explicit self: LOAD_ATTR pushed (callable, NULL) so both are
            # real only for 3.12+ `self` pushes; the callable comes first.
            callee: n.Expr = func[0]
        elif func:
            callee = func[0]
        else:
            callee = n.Name("__null__")
        self.stack.append(self.make_call(callee, args))

    def op_CALL_FUNCTION(self, ins: Instr, i: int) -> None:
        args = self.popn(ins.arg)
        callee = self.pop()
        if ins.raw_opname == "CALL_FUNCTION" and callee is not m.NULL:
            self.stack.append(self.make_call(callee, args))  # (`_finish_call` of a lone callable)
            return
        head = [callee]
        # (a plain CALL_FUNCTION, before 3.11, takes no NULL: one below its callable belongs to
        # a method call around it, `obj.m(f(x))`)
        if ins.raw_opname != "CALL_FUNCTION" and (self.stack and self.stack[-1] is m.NULL or head[0] is m.NULL):
            head.insert(0, self.pop())
        self._finish_call(head, args)

    def op_CALL_FUNCTION_KW(self, ins: Instr, i: int) -> None:
        names = self.pop()
        assert isinstance(names, n.Const)
        args = self.popn(ins.arg)
        func = self.pop()
        kw_count = len(names.value)
        positional = args[:len(args) - kw_count]
        keywords = [n.Keyword(k, v) for k, v in zip(names.value, args[len(args) - kw_count:])]
        self.stack.append(self.make_call(func, positional + keywords))

    def op_KW_NAMES(self, ins: Instr, i: int) -> None:
        self.kw_names = ins.argval

    def op_CALL(self, ins: Instr, i: int) -> None:
        kw_names = self.kw_names or ()
        self.kw_names = None
        self._call_with_names(ins.arg, kw_names)

    def op_CALL_KW(self, ins: Instr, i: int) -> None:
        names = self.pop()
        assert isinstance(names, n.Const)
        self._call_with_names(ins.arg, names.value)

    def _call_with_names(self, count: int, kw_names: tuple) -> None:
        args = self.popn(count)
        second = self.pop()
        first = self.pop()
        # Below the arguments lie (NULL, callable) or (callable, self-or-NULL).
        if first is m.NULL:
            callee = second
        else:
            callee = first
            if second is not m.NULL:
                args = [second] + args
        kw_count = len(kw_names)
        positional = args[:len(args) - kw_count]
        keywords = [n.Keyword(k, v) for k, v in zip(kw_names, args[len(args) - kw_count:])]
        self.stack.append(self.make_call(callee, positional + keywords))

    def op_CALL_FUNCTION_EX(self, ins: Instr, i: int) -> None:
        kwargs = self.pop() if ins.arg & 1 else None
        if kwargs is m.NULL:
            # 3.14's kwargs slot, NULL pushed further up than `call_ex_kwargs` looks
            # (Dynamo: PUSH_NULL; PUSH_NULL; SWAP 3; SWAP 2; CALL_FUNCTION_EX).
            kwargs = None
        posargs = self.pop()
        func = self.pop()
        # Before 3.11 CALL_FUNCTION_EX has no NULL of its own: one below it is an outer call's.
        if self.version.call_pushes_null:
            if self.stack and self.stack[-1] is m.NULL:
                self.pop()
            elif func is m.NULL:
                func = self.pop()
        args: List[n.Expr] = []
        if isinstance(posargs, n.Tuple_):
            args.extend(posargs.elts)
        elif isinstance(posargs, n.List_):
            args.extend(posargs.elts)
        elif isinstance(posargs, n.Const) and isinstance(posargs.value, tuple):
            args.extend(n.Const(v) for v in posargs.value)
        else:
            args.append(n.Starred(posargs))
        if kwargs is not None:
            if isinstance(kwargs, n.Dict_):
                for k, v in zip(kwargs.keys, kwargs.values):
                    if k is None:
                        args.append(n.DoubleStarred(v))
                    elif isinstance(k, n.Const) and isinstance(k.value, str):
                        args.append(n.Keyword(k.value, v))
                    else:
                        args.append(n.DoubleStarred(n.Dict_([k], [v])))
            else:
                args.append(n.DoubleStarred(kwargs))
        self.stack.append(self.make_call(func, args))

    def op_UNARY_NEGATIVE(self, ins: Instr, i: int) -> None:
        self.stack.append(n.UnaryOp(UNARY_OPS[ins.opname], self.pop()))

    op_UNARY_POSITIVE = op_UNARY_INVERT = op_UNARY_NOT = op_UNARY_NEGATIVE

    def op_GET_AWAITABLE(self, ins: Instr, i: int) -> None:
        value = self.pop()
        if isinstance(value, m.CoroutineComprehension):
            # Before 3.12 an async comprehension is a coroutine that its caller awaits.
            self.stack.append(m.AwaitedComprehension(value.value))
            return
        if not self.bc.code.co_flags & 0x280:  # (CO_COROUTINE | CO_ASYNC_GENERATOR)
            raise self.fail(ins, "an await outside a coroutine")
        self.stack.append(n.Await(value))

    def op_GET_YIELD_FROM_ITER(self, ins: Instr, i: int) -> None:
        pass

    def op_SETUP_ANNOTATIONS(self, ins: Instr, i: int) -> None:
        pass  # implied by annotated assignments in a module or class body


def _slice_constant(value: Any) -> n.Expr:
    """The subscript a folded constant stands for: `slice(1, 2, None)` is `1:2`, and a tuple of
    them (`(slice(1, 2, None), 3)`) is `1:2, 3`. Only a subscript's index folds to one."""
    if type(value) is tuple:
        return n.Tuple_([_slice_constant(x) for x in value])
    if type(value) is not slice:
        return n.Const(value)
    parts = [None if x is None else n.Const(x) for x in (value.start, value.stop, value.step)]
    return n.Slice(parts[0], parts[1], parts[2])


def _none_to_missing(e: Optional[n.Expr]) -> Optional[n.Expr]:
    if isinstance(e, n.Const) and e.value is None:
        return None
    return e


def _as_joined(spec: Optional[n.Expr]) -> Optional[n.JoinedStr]:
    if spec is None:
        return None
    if isinstance(spec, n.JoinedStr):
        return spec
    if isinstance(spec, n.Const) and isinstance(spec.value, str):
        return n.JoinedStr([spec.value])
    if isinstance(spec, n.FormattedValue):
        return n.JoinedStr([spec])
    return n.JoinedStr([n.FormattedValue(spec, None, None)])


def _install_binary_handlers() -> None:
    for name, op in BINARY_OPS.items():
        setattr(ExpressionRules, "op_" + name, lambda self, ins, i, op=op: self._binary(op))
    for name, op in INPLACE_OPS.items():
        setattr(ExpressionRules, "op_" + name, lambda self, ins, i, op=op: self._inplace(op))


_install_binary_handlers()
