"""Each readable-view pass on its own: what it rewrites, what it must leave alone, and that the
rewritten function computes what the original does (both are run on the same inputs).

The inputs are plain functions written in the shapes Dynamo's code has once decompiled (its
temporaries are ordinary locals here), read back with `decompile_function`; no torch needed.
"""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, List

import pytest

from depyf.decompiler import nodes as n
from depyf.decompiler.api import decompile_function
from depyf.explain.readable import passes, private_locals
from depyf.explain.readable.check import statements_without_effect
from depyf.explain.readable.frame_lists import fold_frame_value_lists
from depyf.explain.readable.markers import describe_pregraph_markers
from depyf.explain.readable.tree import unshare


class Rewritten:
    def __init__(self, fn: Callable[..., Any], *steps: Callable[[n.FunctionDef, set], Any]) -> None:
        decompiled = decompile_function(fn.__code__, name=fn.__name__)
        unshare(decompiled.node)
        private = private_locals(fn.__code__, decompiled.node)
        self.results = [step(decompiled.node, private) for step in steps]
        self.text = decompiled.text()
        namespace: Dict[str, Any] = dict(fn.__globals__)
        exec(compile(self.text, "<rewritten>", "exec"), namespace)
        self.fn = namespace[fn.__name__]

    def lines(self) -> List[str]:
        return [line.strip() for line in self.text.splitlines()[1:]]


def _same_results(original: Callable[..., Any], rewritten: Callable[..., Any], *calls: tuple) -> None:
    for args in calls:
        assert _outcome(original, args) == _outcome(rewritten, args)


def _outcome(fn: Callable[..., Any], args: tuple) -> Any:
    try:
        return ("value", fn(*args))
    except Exception as e:  # the same exception type counts as the same outcome
        return ("raises", type(e))


# --- deletes and walrus targets ----------------------------------------------------------------


def _deletes(a):
    tmp_1 = a + 1
    b = tmp_1 * 2
    del tmp_1
    return b


def _delete_then_read(a):
    tmp_1 = a + 1
    del tmp_1
    return tmp_1  # noqa: F821 (raises: the del must stay)


def test_drop_dead_deletes() -> None:
    view = Rewritten(_deletes, passes.drop_dead_deletes)
    assert view.results == [True] and "del tmp_1" not in view.text
    _same_results(_deletes, view.fn, (1,), (2.5,))
    kept = Rewritten(_delete_then_read, passes.drop_dead_deletes)
    assert kept.results == [False] and "del tmp_1" in kept.text
    _same_results(_delete_then_read, kept.fn, (1,))


def _walrus(a):
    y = (tmp_1 := a.upper)()
    del tmp_1
    return y + (tmp_2 := "!") + tmp_2


def test_drop_unread_walrus() -> None:
    view = Rewritten(_walrus, passes.drop_dead_deletes, passes.drop_unread_walrus)
    assert "y = a.upper()" in view.lines()
    assert "tmp_2 :=" in view.text, "a walrus target that is read stays"
    _same_results(_walrus, view.fn, ("ab",))


def _aliases(g):
    __temp_1 = tmp_2 = g(1)  # (Dynamo's bytecode reads as `__temp_1 = (tmp_2 := g(1))`)
    return tmp_2 + __temp_1


def test_merge_walrus_aliases() -> None:
    view = Rewritten(_aliases, passes.merge_walrus_aliases)
    assert view.results == [True] and "tmp_2" not in view.text
    assert len(view.lines()) == 2 and view.lines()[1] in ("return __temp_1 + __temp_1",)
    _same_results(_aliases, view.fn, (lambda v: [v],), (lambda v: v * 3,))
    walrus = n.FunctionDef("f", "g", [
        n.Assign([n.Name("__temp_1")], n.NamedExpr(n.Name("tmp_2"), n.Call(n.Name("g"), [n.Const(1)]))),
        n.Return(n.BinOp("+", n.Name("tmp_2"), n.Name("__temp_1"))),
    ])
    assert passes.merge_walrus_aliases(walrus, {"__temp_1", "tmp_2", "g"})
    assert isinstance(walrus.body[0].value, n.Call) and walrus.body[1].value.left.id == "__temp_1"


def _copies(d):
    __temp_1 = (tmp_3 := d)["x"]
    __temp_2 = tmp_3["y"]
    return __temp_1 + __temp_2


def _copy_of_rebound(d):
    __temp_1 = (tmp_3 := d)["x"]
    d = {"y": 0}
    return __temp_1 + tmp_3["y"]


def test_forward_copies_of_parameters() -> None:
    view = Rewritten(_copies, passes.forward_copies)
    assert view.lines()[:2] == ["__temp_1 = d['x']", "__temp_2 = d['y']"]
    _same_results(_copies, view.fn, ({"x": 1, "y": 2},))
    kept = Rewritten(_copy_of_rebound, passes.forward_copies)
    assert kept.results == [False] and "tmp_3" in kept.text
    _same_results(_copy_of_rebound, kept.fn, ({"x": 1, "y": 2},))


# --- the frame-value lists ----------------------------------------------------------------------


def _resume(*args):
    return ("resume",) + args


def _frame_values(g, b):
    graph_out_0 = g()
    __temp_3 = [()]
    __temp_4 = graph_out_0[0]
    __temp_6 = [graph_out_0[1]][0:1]
    __temp_6.extend([b])
    __temp_7 = [__temp_6]
    if __temp_4:
        __temp_7[0][0:0] = []
        [__temp_3[0]]
        __temp_9 = [__temp_7[0]]
        __temp_10 = __temp_9[0]
        __temp_10[0:] = [__temp_10[1], __temp_10[0]]
        __temp_11 = __temp_9[-1]
        del __temp_9[-1]
        return _resume([], __temp_9, *__temp_11)
    __temp_7[0][0:0] = [g]
    __temp_13 = [__temp_7[0]]
    __temp_14 = __temp_13[0]
    __temp_14.append(b)
    __temp_15 = __temp_13[-1]
    del __temp_13[-1]
    return _resume([], __temp_13, *__temp_15)


def test_fold_frame_value_lists() -> None:
    view = Rewritten(_frame_values, fold_frame_value_lists, passes.splice_starred_displays)
    assert view.results[0] is None, view.results
    assert "__temp_3" not in view.text and ".extend(" not in view.text and "del " not in view.text
    assert "return _resume([], [], b, __temp_f0)" in view.lines()
    _same_results(_frame_values, view.fn, (lambda: (True, 1), 7), (lambda: (False, 2), 8), (lambda: (), 1))


_calls: List[str] = []


def _logged(label):
    _calls.append(label)
    return label


def _order_of_items(b):
    __temp_1 = [_logged("first")]
    __temp_2 = _logged("second")
    __temp_1.append(b)
    return __temp_1, __temp_2


def test_fold_keeps_the_order_of_evaluations() -> None:
    view = Rewritten(_order_of_items, fold_frame_value_lists)
    assert view.results == [None] and "append" not in view.text
    for fn in (_order_of_items, view.fn):
        _calls.clear()
        assert fn(3) == (["first", 3], "second")
        assert _calls == ["first", "second"]


def _list_twice(a):
    __temp_1 = [a]
    return __temp_1, __temp_1


def _rebinds_an_item(a):
    __temp_1 = [a]
    a = 2
    return __temp_1


def _used_after_leaving(g, a):
    __temp_1 = [a]
    g(__temp_1)
    __temp_1.append(1)
    return __temp_1


@pytest.mark.parametrize("fn", [_list_twice, _rebinds_an_item, _used_after_leaving])
def test_fold_leaves_what_it_cannot_prove_alone(fn) -> None:
    before = decompile_function(fn.__code__).text()
    view = Rewritten(fn, fold_frame_value_lists)
    assert isinstance(view.results[0], str)  # why it gave up
    assert view.text == before


# --- expressions and single-use temporaries ----------------------------------------------------------


def _starred(g, a):
    return g(*[a, 1], *(2,))


def test_splice_starred_displays() -> None:
    view = Rewritten(_starred, passes.splice_starred_displays)
    assert view.lines() == ["return g(a, 1, 2)"]
    _same_results(_starred, view.fn, (lambda *args: args, 0))


def _single_use(g, h):
    __temp_1 = g()
    return h([], __temp_1)


def _used_after_a_call(g, h):
    __temp_1 = g()
    return h(g(), __temp_1)


def test_inline_single_use() -> None:
    view = Rewritten(_single_use, passes.inline_single_use)
    assert view.lines() == ["return h([], g())"]
    _same_results(_single_use, view.fn, (lambda: 1, lambda a, b: (a, b)))
    kept = Rewritten(_used_after_a_call, passes.inline_single_use)
    assert kept.results == [False], "g() would run before the value it made"


def _dead_stores(g):
    __temp_1 = g()
    __temp_2 = 5
    return 1


def _no_effect(a):
    a
    [a, 1]
    pass
    return a


def test_drop_dead_stores_and_statements_without_effect() -> None:
    view = Rewritten(_dead_stores, passes.drop_dead_stores)
    assert view.lines() == ["g()", "return 1"]
    _same_results(_dead_stores, view.fn, (lambda: 0,))
    quiet = Rewritten(_no_effect, passes.drop_statements_without_effect)
    assert quiet.lines() == ["return a"]


# --- Dynamo's words and names --------------------------------------------------------------------------


class _Markers:
    entered = 0

    def record_pregraph_bytecode_enter(self):
        _Markers.entered += 1
        return "token"

    def record_pregraph_bytecode_exit(self, token):
        assert token == "token"


def _pregraph(m, x):
    tmp_2 = m.record_pregraph_bytecode_enter()
    m.record_pregraph_bytecode_exit(tmp_2)
    graph_out_0 = x + 1
    tmp_5 = m.record_pregraph_bytecode_enter()
    __temp_1 = x * 2
    m.record_pregraph_bytecode_exit(tmp_5)
    return graph_out_0 + __temp_1


def test_describe_pregraph_markers() -> None:
    view = Rewritten(_pregraph, lambda func, private: describe_pregraph_markers(func))
    assert "record_pregraph_bytecode_enter(" not in view.text and "record_pregraph_bytecode_exit(" not in view.text
    assert view.text.count("# ") == 3  # one comment for the empty pair, two around the inputs
    assert view.fn(_Markers(), 3) == _pregraph(_Markers(), 3)


def _resume_call(resume, g):
    __temp_1 = g()
    __temp_2 = g()
    return resume([], __temp_1, __temp_2)


def test_name_values_after_parameters() -> None:
    view = Rewritten(_resume_call, lambda func, private: passes.name_values_after_parameters(
        func, private, {"resume": ["__nested_resume_fns", "x", "g"]}))
    # `x` is free; `g` is a name the function already uses; nested-frame names are bookkeeping.
    assert view.lines() == ["x = g()", "__temp_2 = g()", "return resume([], x, __temp_2)"]
    _same_results(_resume_call, view.fn, (lambda *a: a, lambda: 4))


def _graph_call(x):
    return __compiled_fn_9_0bc45bb5_03d2_4da9_922b_59e48fb58841(x)  # noqa: F821


def test_rename_globals_and_the_view_namespace() -> None:
    from depyf.explain.readable import ReadableCode

    long_name = "__compiled_fn_9_0bc45bb5_03d2_4da9_922b_59e48fb58841"
    view = Rewritten(_graph_call, lambda func, private: passes.rename_globals(func, {long_name: "__compiled_fn_0"}, set()))
    assert view.lines() == ["return __compiled_fn_0(x)"]
    code = ReadableCode(view.text, aliases={"__compiled_fn_0": long_name})
    namespace = code.namespace({long_name: lambda v: v + 1})
    exec(compile(view.text, "<view>", "exec"), namespace)
    assert namespace["_graph_call"](1) == 2


def test_unwritable_constants_get_names_of_their_own() -> None:
    from depyf.decompiler.printer import has_literal_form

    first, second = {"m": types}, {"m": types}
    func = n.FunctionDef("f", "", [n.Return(n.Tuple_([n.Const(first), n.Const(second), n.Const(first)]))])
    named = passes.name_unwritable_constants(func, has_literal_form)
    assert list(named) == ["__constant_dict_0", "__constant_dict_1"]
    assert named["__constant_dict_0"] is first and named["__constant_dict_1"] is second
    assert [e.id for e in func.body[0].value.elts] == ["__constant_dict_0", "__constant_dict_1", "__constant_dict_0"]


# --- the check itself ---------------------------------------------------------------------------------


def test_statements_without_effect_are_found() -> None:
    text = (
        "def f(a, g):\n"
        "    __temp_3 = [()]\n"
        "    tmp_1 = g()\n"
        "    [__temp_3[0]]\n"
        "    a\n"
        "    __temp_3[0:0] = []\n"
        "    __temp_3.extend([])\n"
        "    del tmp_1\n"
        "    pass\n"
        "    return a\n"
    )
    found = statements_without_effect(text)
    # every statement but the two that call or store something read later, and the return
    assert [int(f.split(":")[0][len("line "):]) for f in found] == [4, 5, 6, 7, 8, 9], found
    assert statements_without_effect("def f(a, g):\n    x = g()\n    g(x)\n    return [x][0]\n") == []


def _augmented(a):
    __temp_1 = [a]
    __temp_1 += [a]
    return __temp_1


def test_fold_gives_up_on_an_augmented_assignment() -> None:
    view = Rewritten(_augmented, fold_frame_value_lists)
    assert isinstance(view.results[0], str)
    _same_results(_augmented, view.fn, (1,))
