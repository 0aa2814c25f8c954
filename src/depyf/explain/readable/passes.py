"""Generic rewrites of a function's statement tree that keep what it computes.

Each pass changes a `FunctionDef` in place and is safe on its own: it relies only on facts the
tree shows, and on one property of local variables, that no other code can read or bind them
(`private`: the function's locals that are neither cells nor free variables). What a pass may
change is said in its docstring; apart from the lifetime of temporaries (a `del` that only ended
one early is dropped) nothing else differs.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set

from depyf.decompiler import nodes as n
from depyf.explain.readable.tree import (
    blocks_of,
    read_names,
    rewrite_loads,
    stored_names,
    substitute_names,
    walk,
)

# Names of temporaries: the decompiler's (values Dynamo kept on the stack) and Dynamo's own
# (`tmp_<n>`, made by its code generator). Only these are inlined or dropped: user variables
# keep their statements, even where that would be safe too.
TEMPORARY_PREFIXES = ("__temp_", "tmp_")
# Globals that only Dynamo binds, each once, when it compiles: reading one before or after any
# other evaluation gives the same function.
DYNAMO_GLOBAL_PREFIXES = ("__compiled_fn_", "__resume_at_")


def is_temporary(name: str) -> bool:
    return name.startswith(TEMPORARY_PREFIXES)


def _hidden_names(func: n.FunctionDef) -> Set[str]:
    """Names that appear inside constructs a substitution does not enter (lambdas, Raw text)."""
    out: Set[str] = set()
    for node in walk(func.body):
        if isinstance(node, (n.Lambda, n.ComprehensionExpr, n.Raw, n.FunctionDef, n.ClassDef)) \
                or type(node).__module__ != n.__name__:
            out.update(read_names(node))
            out.update(stored_names(node))
    return out


def _has_loop(func: n.FunctionDef) -> bool:
    return any(isinstance(node, (n.For, n.While)) for node in walk(func.body))


# --- walrus targets -------------------------------------------------------------------------------


def drop_unread_walrus(func: n.FunctionDef, private: Set[str]) -> bool:
    """`(t := v)` where the local `t` is never read: `v` (the store could not be observed)."""
    reads = read_names(func.body)
    changed = False

    def rewrite(e: n.Expr) -> Optional[n.Expr]:
        nonlocal changed
        if isinstance(e, n.NamedExpr) and isinstance(e.target, n.Name) and e.target.id in private \
                and not reads.get(e.target.id):
            changed = True
            inner = e.value
            return _rewrite_expr_fully(inner, rewrite)
        return None

    for block in blocks_of(func.body):
        for stmt in block:
            rewrite_loads(stmt, rewrite)
    return changed


def _rewrite_expr_fully(e: n.Expr, rewrite) -> n.Expr:
    holder = n.ExprStmt(e)
    rewrite_loads(holder, rewrite)
    return holder.value


def merge_walrus_aliases(func: n.FunctionDef, private: Set[str]) -> bool:
    """`a = (b := v)` or `a = b = v`, each name bound only there: `a = v`, and `a` read wherever
    `b` was (both hold the same object for the rest of the call)."""
    if _has_loop(func):
        return False
    stores = stored_names(func.body)
    hidden = _hidden_names(func)
    renames: Dict[str, str] = {}
    for block in blocks_of(func.body):
        for stmt in block:
            if not (isinstance(stmt, n.Assign) and all(isinstance(t, n.Name) for t in stmt.targets)):
                continue
            value = stmt.value
            if len(stmt.targets) == 2:  # `a = b = v`, the same from source
                a, b = stmt.targets[0].id, stmt.targets[1].id  # type: ignore[attr-defined]
            elif len(stmt.targets) == 1 and isinstance(value, n.NamedExpr) and isinstance(value.target, n.Name):
                a, b = stmt.targets[0].id, value.target.id  # type: ignore[attr-defined]
                value = value.value
            else:
                continue
            if {a, b} <= private and stores.get(a) == 1 and stores.get(b) == 1 and b not in hidden and a != b:
                stmt.targets = [n.Name(a)]
                stmt.value = value
                renames[b] = a
    if renames:
        for block in blocks_of(func.body):
            for stmt in block:
                substitute_names(stmt, {b: n.Name(a) for b, a in renames.items()})
    return bool(renames)


def forward_copies(func: n.FunctionDef, private: Set[str]) -> bool:
    """A temporary that only copies a local never bound in the function (a parameter), as
    `t = x` or `(t := x)`: read `x` in its place (values that only pass through)."""
    stores = stored_names(func.body)
    hidden = _hidden_names(func)
    copies: Dict[str, str] = {}
    for node in walk(func.body):
        if isinstance(node, n.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, n.NamedExpr):
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, n.Name) and isinstance(value, n.Name) and is_temporary(target.id) \
                and target.id in private and value.id in private and stores.get(target.id) == 1 \
                and not stores.get(value.id) and target.id not in hidden:
            copies[target.id] = value.id
    if not copies:
        return False

    def rewrite(e: n.Expr) -> Optional[n.Expr]:
        if isinstance(e, n.NamedExpr) and isinstance(e.target, n.Name) and e.target.id in copies:
            return n.Name(copies[e.target.id])
        if isinstance(e, n.Name) and e.id in copies:
            return n.Name(copies[e.id])
        return None

    for block in blocks_of(func.body):
        block[:] = [s for s in block if not (isinstance(s, n.Assign) and len(s.targets) == 1
                                             and isinstance(s.targets[0], n.Name) and s.targets[0].id in copies)]
        for stmt in block:
            rewrite_loads(stmt, rewrite)
    return True


# --- statements that do nothing -----------------------------------------------------------------


def _program_order(stmts: List[n.Stmt], in_loop: bool = False) -> Iterator["tuple[n.Stmt, bool]"]:
    for stmt in stmts:
        yield stmt, in_loop
        if isinstance(stmt, (n.FunctionDef, n.ClassDef)):
            continue
        loop = in_loop or isinstance(stmt, (n.For, n.While))
        for block in n.nested_blocks(stmt):
            yield from _program_order(block, loop)


def drop_dead_deletes(func: n.FunctionDef, private: Set[str]) -> bool:
    """`del x` of locals that no later statement reads: gone (the value lives until the call
    ends instead; nothing else can tell)."""
    order = list(_program_order(func.body))
    dead: Set[int] = set()
    for k, (stmt, in_loop) in enumerate(order):
        if not isinstance(stmt, n.Delete) or in_loop:
            continue
        names = [t.id for t in stmt.targets if isinstance(t, n.Name)]
        if len(names) != len(stmt.targets) or not set(names) <= private:
            continue
        later: Set[str] = set()
        for other, _ in order[k + 1:]:
            later.update(read_names(_own_part(other)))
        if not set(names) & later:
            dead.add(id(stmt))
    if not dead:
        return False
    for block in blocks_of(func.body):
        if any(id(s) in dead for s in block):
            block[:] = [s for s in block if id(s) not in dead] or [n.Pass()]
    return True


def _own_part(stmt: n.Stmt) -> n.Stmt:
    """`stmt` without its nested blocks (they come separately in program order)."""
    if not n.nested_blocks(stmt) or isinstance(stmt, (n.FunctionDef, n.ClassDef)):
        return stmt
    if isinstance(stmt, (n.If, n.While)):
        return n.ExprStmt(stmt.test)
    if isinstance(stmt, n.For):
        return n.Assign([stmt.target], stmt.iter)
    if isinstance(stmt, n.With):
        return n.ExprStmt(n.Tuple_([ctx for ctx, _ in stmt.items] + [t for _, t in stmt.items if t is not None]))
    if isinstance(stmt, n.Match):
        return n.ExprStmt(stmt.subject)
    if isinstance(stmt, n.Try):
        return n.ExprStmt(n.Tuple_([h.type for h in stmt.handlers if h.type is not None]))
    return stmt


def without_effect(stmt: n.Stmt, private: Set[str]) -> bool:
    """An expression statement that only reads locals and constants (or displays of them)."""
    if not isinstance(stmt, n.ExprStmt):
        return False
    return _inert(stmt.value, private)


def _inert(e: n.Expr, private: Set[str]) -> bool:
    if isinstance(e, n.Const):
        return True
    if isinstance(e, n.Name):
        return e.id in private
    if isinstance(e, (n.List_, n.Tuple_)):
        return all(_inert(elt, private) for elt in e.elts)
    return False


def drop_dead_stores(func: n.FunctionDef, private: Set[str]) -> bool:
    """`t = v` where the temporary `t` is never read: `v` evaluated for its effects alone, or
    nothing where evaluating it has none."""
    reads = read_names(func.body)
    changed = False
    for block in blocks_of(func.body):
        for k, stmt in enumerate(block):
            if isinstance(stmt, n.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], n.Name):
                name = stmt.targets[0].id
                if is_temporary(name) and name in private and not reads.get(name):
                    block[k] = n.ExprStmt(stmt.value)
                    changed = True
    return drop_statements_without_effect(func, private) or changed


def drop_statements_without_effect(func: n.FunctionDef, private: Set[str]) -> bool:
    """Expression statements that only read locals or constants, and `pass` beside other
    statements: gone."""
    changed = False
    for block in blocks_of(func.body):
        if not block:
            continue  # (an absent else part)
        kept = [s for s in block if not without_effect(s, private)]
        if len(kept) > 1 or (kept and not isinstance(kept[0], n.Pass)):
            kept = [s for s in kept if not isinstance(s, n.Pass)] or kept
        if not kept:
            kept = [n.Pass()]
        if len(kept) != len(block):
            block[:] = kept
            changed = True
    return changed


# --- expressions ------------------------------------------------------------------------------------


def splice_starred_displays(func: n.FunctionDef, private: Set[str]) -> bool:
    """`f(*[a, b])` and `[*[a, b]]`: `f(a, b)` and `[a, b]` (unpacking a display gives its items,
    evaluated in the same order)."""
    changed = False
    for node in walk(func.body):
        if isinstance(node, n.Call):
            slots = [("args", node)]
        elif isinstance(node, (n.List_, n.Tuple_, n.Set_)):
            slots = [("elts", node)]
        else:
            continue
        for slot, owner in slots:
            items = getattr(owner, slot)
            spliced: List[n.Expr] = []
            for item in items:
                if isinstance(item, n.Starred) and isinstance(item.value, (n.List_, n.Tuple_)) \
                        and not any(isinstance(e, n.Starred) for e in item.value.elts):
                    spliced.extend(item.value.elts)
                    changed = True
                elif isinstance(item, n.Starred) and isinstance(item.value, n.Const) and type(item.value.value) is tuple:
                    spliced.extend(n.Const(v) for v in item.value.value)  # (a folded tuple display)
                    changed = True
                else:
                    spliced.append(item)
            if isinstance(owner, n.Tuple_) and len(spliced) == 1 and len(items) == 1 and spliced is not items:
                continue  # `(*[a],)` stays a tuple display of one item: printed as it was
            setattr(owner, slot, spliced)
    return changed


# --- single-use temporaries ------------------------------------------------------------------------

_UNKNOWN = object()


def _post_order(e: Optional[n.Expr]) -> Iterator[object]:
    """The evaluation events of `e` in the order Python performs them: each leaf, then each
    operation after its operands. After an operand whose successors may not run at all (`and`,
    comparisons, conditional expressions) or a scope of its own, `_UNKNOWN`."""
    if e is None:
        return
    t = type(e)
    if t is n.Name or t is n.Const:
        yield e
    elif t is n.Attribute or t is n.Starred or t is n.DoubleStarred or t is n.Await or t is n.Yield \
            or t is n.YieldFrom or t is n.NamedExpr or t is n.UnaryOp:
        yield from _post_order(e.operand if t is n.UnaryOp else e.value)  # type: ignore[attr-defined]
        yield e
    elif t is n.Keyword:
        yield from _post_order(e.value)  # type: ignore[attr-defined]
    elif t is n.Call:
        yield from _post_order(e.func)  # type: ignore[attr-defined]
        for arg in e.args:  # type: ignore[attr-defined]
            yield from _post_order(arg)
        yield e
    elif t is n.Subscript or t is n.BinOp:
        first, second = (e.value, e.index) if t is n.Subscript else (e.left, e.right)  # type: ignore[attr-defined]
        yield from _post_order(first)
        yield from _post_order(second)
        yield e
    elif t is n.Slice:
        for part in (e.lower, e.upper, e.step):  # type: ignore[attr-defined]
            yield from _post_order(part)
    elif t is n.List_ or t is n.Tuple_ or t is n.Set_:
        for elt in e.elts:  # type: ignore[attr-defined]
            yield from _post_order(elt)
        yield e
    elif t is n.BoolOp or t is n.IfExp or t is n.Compare:
        yield from _post_order(e.values[0] if t is n.BoolOp else e.test if t is n.IfExp else e.left)  # type: ignore[attr-defined]
        yield _UNKNOWN
    else:
        yield _UNKNOWN


def _statement_events(stmt: n.Stmt) -> Iterator[object]:
    if isinstance(stmt, n.Assign):
        yield from _post_order(stmt.value)
        yield _UNKNOWN  # (stores, then target evaluations: not searched)
    elif isinstance(stmt, (n.ExprStmt, n.Return)):
        yield from _post_order(stmt.value)
    elif isinstance(stmt, n.If):
        yield from _post_order(stmt.test)
        yield _UNKNOWN
    else:
        yield _UNKNOWN


def _event_is_inert(event: object, private: Set[str], moved_stores: Set[str]) -> bool:
    """Whether an evaluation can trade places with any other: it has no effect, and nothing
    else can change what it gives (locals the moved code does not bind, Dynamo's globals,
    constants, building a display)."""
    if isinstance(event, n.Const):
        return True
    if isinstance(event, n.Name):
        return (event.id in private and event.id not in moved_stores) or event.id.startswith(DYNAMO_GLOBAL_PREFIXES)
    if isinstance(event, (n.List_, n.Tuple_)):
        return True
    if isinstance(event, n.Starred):
        return isinstance(event.value, (n.List_, n.Tuple_))
    return False


def inline_single_use(func: n.FunctionDef, private: Set[str]) -> bool:
    """`t = v` followed by a statement that reads the temporary `t`, its only read: `v` written
    where `t` was read, when everything that statement evaluates before `t` is inert (see
    `_event_is_inert`), so `v` still runs after the same effects and before the same others."""
    changed = False
    again = True
    while again:
        again = False
        reads = read_names(func.body)
        stores = stored_names(func.body)
        hidden = _hidden_names(func)
        for block in blocks_of(func.body):
            k = 0
            while k < len(block) - 1:
                stmt = block[k]
                if isinstance(stmt, n.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], n.Name):
                    name = stmt.targets[0].id
                    if is_temporary(name) and name in private and reads.get(name) == 1 and stores.get(name) == 1 \
                            and name not in hidden and _inline_into(block[k + 1], name, stmt.value, private):
                        del block[k]
                        changed = again = True
                        continue
                k += 1
    return changed


def _inline_into(user: n.Stmt, name: str, value: n.Expr, private: Set[str]) -> bool:
    moved_stores = set(stored_names(n.ExprStmt(value)))
    for event in _statement_events(user):
        if isinstance(event, n.Name) and event.id == name:
            done = [False]

            def rewrite(e: n.Expr) -> Optional[n.Expr]:
                if e is event and not done[0]:
                    done[0] = True
                    return value
                return None

            rewrite_loads(user, rewrite)
            return done[0]
        if not _event_is_inert(event, private, moved_stores):
            return False
    return False


# --- names ----------------------------------------------------------------------------------------


def rename_globals(func: n.FunctionDef, mapping: Dict[str, str], local_names: Set[str]) -> bool:
    """Reads of the globals in `mapping` written with the names they map to (the caller makes
    each new name refer to the same object: see `ReadableCode.aliases`)."""
    wanted = {old: new for old, new in mapping.items() if old not in local_names and old != new}
    if not wanted:
        return False
    changed = False

    def rewrite(e: n.Expr) -> Optional[n.Expr]:
        nonlocal changed
        if isinstance(e, n.Name) and e.id in wanted:
            changed = True
            return n.Name(wanted[e.id])
        return None

    for block in blocks_of(func.body):
        for stmt in block:
            rewrite_loads(stmt, rewrite)
    return changed


def name_unwritable_constants(func: n.FunctionDef, has_literal: "callable") -> Dict[str, object]:
    """Constants no literal can write (a code object, a dict of modules) as names of their own,
    `__constant_dict_0`; returns the objects by name (the caller defines them where the view
    runs)."""
    named: Dict[str, object] = {}
    by_id: Dict[int, str] = {}

    def rewrite(e: n.Expr) -> Optional[n.Expr]:
        if isinstance(e, n.Const) and not has_literal(e.value):
            name = by_id.get(id(e.value))
            if name is None:
                kind = type(e.value).__name__
                label = getattr(e.value, "co_name", None) if kind == "code" else None
                stem = "__constant_" + "".join(c if c.isalnum() else "_" for c in kind + ("_" + label if label else ""))
                name = f"{stem}_{sum(1 for k in named if k.startswith(stem + '_'))}"
                by_id[id(e.value)] = name
                named[name] = e.value
            return n.Name(name)
        return None

    for block in blocks_of(func.body):
        for stmt in block:
            rewrite_loads(stmt, rewrite)
    return named


def name_values_after_parameters(func: n.FunctionDef, private: Set[str],
                                 parameters: Dict[str, List[str]]) -> bool:
    """A temporary only ever passed, by position, to functions whose parameters there have one
    name (`__resume_at_102_0(..., b, __temp_f0)` with parameters `(..., b, x)`): named so, when
    nothing else in the function uses that name (`x = graph_out_0[1]`). Renaming a local that
    no other code sees changes nothing."""
    if not parameters:
        return False
    stores = stored_names(func.body)
    reads = read_names(func.body)
    hidden = _hidden_names(func)
    wanted: Dict[str, Set[str]] = {}
    for node in walk(func.body):
        if not (isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.func.id in parameters):
            continue
        names = parameters[node.func.id]
        for k, arg in enumerate(node.args):
            if isinstance(arg, (n.Starred, n.Keyword, n.DoubleStarred)):
                break
            if isinstance(arg, n.Name) and is_temporary(arg.id) and k < len(names):
                wanted.setdefault(arg.id, set()).add(names[k])
    renames: Dict[str, str] = {}
    for temp, names in wanted.items():
        if len(names) != 1 or temp not in private or stores.get(temp) != 1 or temp in hidden:
            continue
        (name,) = names
        passed = sum(1 for node in walk(func.body) if isinstance(node, n.Call) and isinstance(node.func, n.Name)
                     and node.func.id in parameters and any(isinstance(a, n.Name) and a.id == temp for a in node.args))
        if not name.isidentifier() or name.startswith("__") or name in reads or name in stores \
                or name in renames.values() or reads.get(temp) != passed:
            continue
        renames[temp] = name
    if not renames:
        return False

    def rewrite(e: n.Expr) -> Optional[n.Expr]:
        if isinstance(e, n.Name) and e.id in renames:
            return n.Name(renames[e.id])
        return None

    for block in blocks_of(func.body):
        for stmt in block:
            for target in getattr(stmt, "targets", None) or []:
                if isinstance(stmt, n.Assign) and isinstance(target, n.Name) and target.id in renames:
                    target.id = renames[target.id]
            rewrite_loads(stmt, rewrite)
    return True
