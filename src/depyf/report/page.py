"""Render dumps as one self-contained HTML page (inline CSS and a little JS, nothing fetched).

Every text that comes from a dump (code, guards, reasons, names) goes through ``html.escape``.
"""
import os
import re
from html import escape
from typing import Any, Dict, Iterator, List, Optional, Tuple
from urllib.parse import quote

from depyf.report.compare import RankComparison, Row, compare_dumps
from depyf.report.flow import ARROW_DEFS, KIND_COLOURS, AnchorOf, function_tree, render_svg
from depyf.report.assets import SCRIPT, STYLE
from depyf.report.highlight import code_html, inline_code_html, style_sheet
from depyf.report.load import Dump, is_dump_file_name
from depyf.report.timing import STAGES, StageTimes, bar_html, legend_html, seconds, stage_cells

def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class PageWriter:
    """Renders the page for a list of dumps; links to files are relative to ``report_dir``."""

    def __init__(self, dumps: List[Dump], report_dir: str, title: str) -> None:
        self.dumps = dumps
        self.report_dir = report_dir
        self.title = title
        self.comparison_of_ranks = compare_dumps(dumps) if len(dumps) > 1 else None
        differing = self.comparison_of_ranks.differing_functions if self.comparison_of_ranks else []
        self.differing_names = {row.name for row in differing}

    # -- helpers -------------------------------------------------------------------------------

    def file_href(self, dump: Dump, name: str) -> str:
        rel = os.path.relpath(os.path.join(dump.folder, name), self.report_dir)
        return quote(rel.replace(os.sep, "/"))

    def file_link(self, dump: Dump, name: Optional[str]) -> str:
        if not name:
            return '<span class="muted">(no file)</span>'
        if not is_dump_file_name(name):  # never link outside the dump folder
            return f"<code>{escape(name)}</code>"
        return f'<a class="file" href="{escape(self.file_href(dump, name))}">{escape(name)}</a>'

    def code_block(self, dump: Dump, name: Optional[str], summary: str, open_: bool = False) -> str:
        """A dumped file's text, highlighted (or escaped), in a collapsible block with a link to the file."""
        text = dump.read(name)
        body = (
            code_html(text)
            if text is not None
            else '<p class="muted">(the file is not in the dump folder)</p>'
        )
        return (
            f'<details class="code"{" open" if open_ else ""}><summary>{escape(summary)} '
            f"{self.file_link(dump, name)}</summary>{body}</details>"
        )

    @staticmethod
    def anchor_maker(dump: Dump) -> AnchorOf:
        def anchor_of(kind: str, *names: str) -> str:
            return _slug("-".join((dump.anchor, kind) + tuple(str(n) for n in names)))

        return anchor_of

    # -- the page ------------------------------------------------------------------------------

    def render(self) -> str:
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(self.title)}</title><style>{STYLE}\n{style_sheet()}</style></head><body>",
            ARROW_DEFS,
            self.header(),
        ]
        if self.comparison_of_ranks is not None:
            parts.append(self.comparison(self.comparison_of_ranks))
        for dump in self.dumps:
            parts.append(self.dump_section(dump))
        parts.append(f"<script>{SCRIPT}</script></body></html>")
        return "\n".join(parts) + "\n"

    def header(self) -> str:
        links = []
        if len(self.dumps) > 1:
            links.append('<a href="#comparison">where ranks differ</a>')
        links.extend(f'<a href="#{d.anchor}">{escape(d.label)}</a>' for d in self.dumps)
        legend = "".join(
            f'<span style="background:{colour}">{escape(kind)}</span>' for kind, colour in KIND_COLOURS.items()
        )
        return (
            f"<header><h1>{escape(self.title)}</h1>"
            "<p>What torch.compile did, per compiled function: the guard of each cache entry picks the "
            "compiled code that runs; that code calls the captured graphs and, after a graph break, a "
            "resume function that is compiled the same way.</p>"
            f"<nav>{''.join(links)}</nav>"
            f'<p class="legend">Flow pictures: {legend}</p>'
            '<p><label>Filter functions: <input id="filter" type="search"></label> '
            '<button id="expand-all" type="button">expand all</button> '
            '<button id="collapse-all" type="button">collapse all</button></p></header>'
        )

    # -- ranks ---------------------------------------------------------------------------------

    def comparison(self, comp: RankComparison) -> str:
        heads = "".join(f"<th>{escape(label)}</th>" for label in comp.labels)
        parts = ['<section id="comparison" class="comparison"><h2>Where ranks differ</h2>']
        funcs = comp.differing_functions
        if funcs:
            parts.append(f"<p>{_plural(len(funcs), 'function')} compiled differently:</p>")
            parts.append(self._rows_table("function", heads, funcs, "differing-functions"))
        else:
            parts.append(f'<p class="same-functions">Every rank compiled the same {_plural(len(comp.functions), "function")} '
                         "into the same cache entries, graphs and resume functions.</p>")
        files = comp.differing_files
        same = len(comp.files) - len(files)
        if files:
            parts.append(f"<p>{_plural(len(files), 'dumped file')} differ in content or exist on some ranks only "
                         f"({same} identical; object ids masked):</p>")
            parts.append(self._rows_table("file", heads, files, "differing-files"))
        else:
            parts.append(f'<p class="same-files">All {_plural(len(comp.files), "dumped file")} are identical on every rank '
                         "(object ids masked).</p>")
        parts.append("</section>")
        return "\n".join(parts)

    @staticmethod
    def _rows_table(what: str, heads: str, rows: List[Row], css_id: str) -> str:
        out = [f'<table id="{css_id}"><tr><th>{what}</th>{heads}</tr>']
        for row in rows:
            first = next((c for c in row.cells if c is not None), None)
            cells = []
            for cell in row.cells:
                if cell is None:
                    cells.append('<td class="missing">absent</td>')
                else:
                    cls = "same" if cell == first and row.same else "differs"
                    cells.append(f'<td class="{cls}"><code>{escape(cell)}</code></td>')
            out.append(f"<tr><td><code>{escape(row.name)}</code></td>{''.join(cells)}</tr>")
        out.append("</table>")
        return "\n".join(out)

    # -- one dump ------------------------------------------------------------------------------

    def dump_section(self, dump: Dump) -> str:
        m = dump.manifest
        functions = m.get("functions", [])
        parts = [
            f'<section class="dump" id="{escape(dump.anchor)}"><h2>{escape(dump.label)}</h2>',
            f'<p class="muted">folder {escape(dump.folder)}; torch {escape(str(m.get("torch_version", "?")))}, '
            f'Python {escape(str(m.get("python_version", "?")))}</p>',
        ]
        if functions:
            parts.append(self.overview(dump, functions))
            parts.append(self.compile_times(dump, functions))
        else:
            parts.append("<p>No function was compiled while this dump was recorded.</p>")
        for fn in functions:
            parts.append(self.function_section(dump, fn))
        parts.append(self.skipped(dump, m.get("skipped", [])))
        problems = m.get("problems", [])
        if problems:
            items = "".join(f"<li>{escape(str(p))}</li>" for p in problems)
            parts.append(f'<h3>Problems depyf noted</h3><ul class="problems">{items}</ul>')
        files = [f for f in m.get("files", []) if isinstance(f, str)]
        items = "".join(f"<li>{self.file_link(dump, f)}</li>" for f in files)
        parts.append(f"<details><summary>All {_plural(len(files), 'dumped file')}</summary><ul>{items}</ul></details>")
        parts.append("</section>")
        return "\n".join(parts)

    def overview(self, dump: Dump, functions: List[Dict[str, Any]]) -> str:
        anchor_of = self.anchor_maker(dump)
        rows = []
        for fn in functions:
            funcs = list(_walk(fn))
            entries = sum(len(f.get("entries", [])) for f in funcs)
            graphs = sum(len(e.get("graphs", [])) for f in funcs for e in f.get("entries", []))
            badge = ' <a class="differs-badge" href="#comparison">differs between ranks</a>' if fn["name"] in self.differing_names else ""
            rows.append(
                f'<tr><td><a href="#{anchor_of("fn", fn["name"])}"><code>{escape(fn["name"])}</code></a>{badge}</td>'
                f"<td>{escape(str(fn.get('source', '')))}</td><td>{entries}</td><td>{graphs}</td>"
                f"<td>{len(funcs) - 1}</td><td>{len(list(_graph_breaks(fn)))}</td><td>{len(list(_recompiles(fn)))}</td>"
                f'<td class="num">{_compile_time_of(funcs)}</td></tr>'
            )
        return (
            '<table class="overview"><tr><th>function</th><th>defined at</th><th>cache entries</th><th>graphs</th>'
            "<th>resume functions</th><th>graph breaks</th><th>recompiles</th><th>compile time</th></tr>"
            + "".join(rows) + "</table>"
        )

    def function_section(self, dump: Dump, fn: Dict[str, Any]) -> str:
        anchor_of = self.anchor_maker(dump)
        names = " ".join(f["name"] for f in _walk(fn))
        svg = render_svg(function_tree(fn, anchor_of), f"how {fn['name']} runs after torch.compile")
        parts = [
            f'<section class="function" id="{anchor_of("fn", fn["name"])}" data-names="{escape(names)}">',
            f"<h3>{escape(fn['name'])}</h3>",
            f'<p class="muted">defined at {escape(str(fn.get("source", "?")))}; '
            f'the whole explanation as one Python file: {self.file_link(dump, fn.get("full_code_file"))}</p>',
            f'<div class="flow-box">{svg}</div>',
        ]
        breaks = list(_graph_breaks(fn))
        if breaks:
            items = "".join(
                f'<li><code>{escape(owner)}</code>, '
                + (f'<a href="#{anchor_of("graph", owner, cid, graph)}">{escape(graph)}</a>' if graph
                   else f'<a href="#{anchor_of("entry", owner, cid)}">cache entry {escape(cid)}</a>')
                + f': <span class="reason">{escape(reason)}</span></li>'
                for owner, cid, graph, reason in breaks
            )
            parts.append(f'<h4>Graph breaks</h4><ul class="graph-breaks">{items}</ul>')
        recompiles = list(_recompiles(fn))
        if recompiles:
            items = "".join(
                f'<li><a href="#{anchor_of("entry", owner, cid)}"><code>{escape(owner)}</code> cache entry '
                f'{escape(cid)}</a>: <span class="reason">{escape(reason)}</span></li>'
                for owner, cid, reason in recompiles
            )
            parts.append(f'<h4>Recompiles</h4><ul class="recompiles">{items}</ul>')
        for each in _walk(fn):
            parts.append(self.function_body(dump, each, nested=each is not fn))
        parts.append("</section>")
        return "\n".join(parts)

    def function_body(self, dump: Dump, fn: Dict[str, Any], nested: bool) -> str:
        """One function's entries; a resume function also gets its heading and code (and, when it
        is nested in its caller's section, its own anchor)."""
        anchor_of = self.anchor_maker(dump)
        parts = []
        is_resume = fn.get("kind") == "resume"
        if is_resume:
            anchor = f' id="{anchor_of("fn", fn["name"])}"' if nested else ""
            parts.append(f'<section class="resume"{anchor}>')
            parts.append(f"<h4>Resume function <code>{escape(fn['name'])}</code></h4>")
            parts.append(f'<p class="muted">Dynamo made it (code object <code>{escape(str(fn.get("code_name", "")))}</code>) '
                         "to run the rest of its caller after a graph break; it is compiled like any function.</p>")
            parts.append(self.code_block(dump, fn.get("code_file"), "its code:"))
        else:
            parts.append("<div>")
        for entry in fn.get("entries", []):
            parts.append(self.entry_block(dump, fn["name"], entry))
        parts.append("</section>" if is_resume else "</div>")
        return "\n".join(parts)

    def entry_block(self, dump: Dump, owner: str, entry: Dict[str, Any]) -> str:
        anchor_of = self.anchor_maker(dump)
        cid = str(entry.get("compile_id", "?"))
        guard = entry.get("guard")
        parts = [
            f'<div class="entry" id="{anchor_of("entry", owner, cid)}">',
            f"<h5>Cache entry {escape(cid)} of <code>{escape(owner)}</code></h5>",
        ]
        for reason in entry.get("recompile_reasons", []):
            parts.append(f'<p class="reason">recompiled because: {escape(str(reason))}</p>')
        parts.append(self.entry_time(entry))
        parts.append(self.user_stack(entry))
        if "debuggable" in entry:
            parts.append(
                '<p class="muted">Under <code>depyf.debug()</code> this code runs from its dumped file: '
                "breakpoints set there stop.</p>"
                if entry["debuggable"]
                else '<p class="muted">Its dumped file is for reading: under <code>depyf.debug()</code> '
                "Dynamo's own bytecode runs.</p>"
            )
        if guard:
            parts.append(self.guard_block(dump, guard))
        else:
            parts.append('<p class="muted">The guard of this entry was not recorded.</p>')
        readable = entry.get("readable_code")
        if isinstance(readable, str):
            # The view the explanation shows (Dynamo's bookkeeping in words), then the exact text.
            parts.append(
                '<details class="code" open><summary>Transformed code (readable view):</summary>'
                f"<pre><code>{escape(readable)}</code></pre></details>"
            )
            parts.append(self.code_block(dump, entry.get("transformed_code_file"), "Exact decompiled text:"))
        else:
            parts.append(self.code_block(dump, entry.get("transformed_code_file"), "Transformed code:"))
        for graph in entry.get("graphs", []):
            parts.append(f'<div class="graph" id="{anchor_of("graph", owner, cid, graph["name"])}">')
            parts.append(f"<h6>Graph <code>{escape(graph['name'])}</code></h6>")
            if graph.get("reason"):
                parts.append(f'<p class="reason">{escape(str(graph["reason"]))}</p>')
            for artifact in graph.get("artifacts", []):
                if isinstance(artifact, dict):
                    kind = str(artifact.get("kind", "graph")).replace("_", " ")
                    parts.append(self.code_block(dump, artifact.get("file"), f"{kind}:"))
            parts.append("</div>")
        parts.append("</div>")
        return "\n".join(parts)

    # -- compile time and the calls that led to a compilation -------------------------------

    def compile_times(self, dump: Dump, functions: List[Dict[str, Any]]) -> str:
        """One row per compilation (cache entry), with its time per stage and a bar."""
        anchor_of = self.anchor_maker(dump)
        rows = []
        for fn in functions:
            for each in _walk(fn):
                for entry in each.get("entries", []):
                    rows.append((each["name"], str(entry.get("compile_id", "?")), StageTimes(entry.get("compile_time"))))
        recorded = [r for r in rows if r[2].recorded]
        if not recorded:
            return ('<p class="muted compile-times-missing">torch recorded no compile times for this dump '
                    "(torch._dynamo.utils.get_compilation_metrics is missing or empty).</p>")
        scale = max(t.total for _, _, t in recorded)
        heads = "".join(f"<th>{escape(label)}</th>" for _, label, _ in STAGES)
        out = []
        for owner, cid, times in rows:
            link = f'<a href="#{anchor_of("entry", owner, cid)}"><code>{escape(owner)}</code> {escape(cid)}</a>'
            cells = "".join(f'<td class="num">{c}</td>' for c in stage_cells(times))
            failed = f' <span class="reason">failed: {escape(times.failure)}</span>' if times.failure else ""
            out.append(
                f'<tr><td>{link}{failed}</td><td class="num total">{seconds(times.total) if times.recorded else seconds(None)}</td>'
                f"{cells}<td>{bar_html(times, scale)}</td></tr>"
            )
        grand = sum(t.total for _, _, t in recorded)
        return (
            f'<h3>Compile time</h3><p>{_plural(len(recorded), "compilation")}, {seconds(grand)} in all, as torch '
            "measured each stage (each column is that stage's own share).</p>"
            f'<p class="legend stages">{legend_html()}</p>'
            f'<table class="compile-times"><tr><th>function, compile id</th><th>total</th>{heads}<th></th></tr>'
            + "".join(out) + "</table>"
        )

    @staticmethod
    def entry_time(entry: Dict[str, Any]) -> str:
        times = StageTimes(entry.get("compile_time"))
        if not times.recorded:
            return ""
        shares = ", ".join(f"{label} {seconds(times.stages[key])}" for key, label, _ in STAGES if times.stages.get(key))
        return f'<p class="entry-time">Compiled in {seconds(times.total)} ({escape(shares)}).</p>'

    @staticmethod
    def user_stack(entry: Dict[str, Any]) -> str:
        """The user's calls that led Dynamo to compile this entry, outermost first (tlparse's stack)."""
        frames = [f for f in entry.get("user_stack") or [] if isinstance(f, dict)]
        if not frames:
            return ""
        items = []
        for frame in frames:
            where = f'{escape(str(frame.get("file", "?")))}:{escape(str(frame.get("line", "?")))} in <code>{escape(str(frame.get("function", "?")))}</code>'
            code = str(frame.get("code") or "")
            items.append(f"<li>{where}" + (f"<br>{inline_code_html(code)}" if code else "") + "</li>")
        return (
            f'<details class="user-stack"><summary>Compiled when called from ({_plural(len(frames), "frame")}, '
            f'innermost last)</summary><ol>{"".join(items)}</ol></details>'
        )

    def guard_block(self, dump: Dump, guard: Dict[str, Any]) -> str:
        lines = guard.get("lines", [])
        where = f'<code>{escape(str(guard.get("function", "")))}</code> in {self.file_link(dump, guard.get("file"))}'
        rows = "".join(_guard_row(line) for line in lines)
        return (
            f'<details class="guard" open><summary>Guard: {_plural(len(lines), "check")}, all must hold for this '
            f"entry's code to run ({where})</summary>"
            f'<table class="guard-checks"><tr><th>check (L: the frame\'s locals, G: its globals)</th>'
            f"<th>made for</th></tr>{rows}</table></details>"
        )

    def skipped(self, dump: Dump, skipped: List[Dict[str, Any]]) -> str:
        if not skipped:
            return ""
        rows = "".join(
            f"<tr><td><code>{escape(s['name'])}</code></td><td>{escape(str(s.get('source', '')))}</td>"
            f'<td class="reason">{escape(str(s.get("reason", "")))}</td><td>{self.file_link(dump, s.get("file"))}</td></tr>'
            for s in skipped
        )
        return (
            "<h3>Run eagerly (not compiled)</h3>"
            '<table class="skipped"><tr><th>function</th><th>defined at</th><th>why</th><th>file</th></tr>'
            f"{rows}</table>"
        )


def _guard_row(line: Any) -> str:
    """One check of a guard: the Python expression, and torch's note of where it comes from."""
    if not isinstance(line, dict):
        return f'<tr><td><code>{escape(str(line))}</code></td><td></td></tr>'
    stand_in = bool(line.get("stand_in"))
    css = ' class="stand-in" title="torch describes this check only in prose: always true here, the description is kept"' if stand_in else ""
    return (
        f"<tr{css}><td>{inline_code_html(str(line.get('expr', '')))}</td>"
        f'<td class="muted">{escape(str(line.get("comment") or ""))}</td></tr>'
    )


def _walk(fn: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    """The function and every resume function it leads to (each once), depth first."""
    yield fn
    for entry in fn.get("entries", []):
        for resume in entry.get("resume_functions", []):
            if not resume.get("shown_above"):
                yield from _walk(resume)


def _graph_breaks(fn: Dict[str, Any]) -> Iterator[Tuple[str, str, Optional[str], str]]:
    """(function, compile id, graph or None, reason) of each cache entry whose code breaks the
    graph: one of its graphs ended in a graph break, or it hands over to resume functions (a
    break before any graph was captured leaves no graph, but still a resume function: the flow
    picture shows it, so it is counted). One per entry: an ``if`` on a tensor breaks once and
    resumes in one of two functions."""
    for each in _walk(fn):
        for entry in each.get("entries", []):
            cid = str(entry.get("compile_id", "?"))
            broken = [g for g in entry.get("graphs", []) if str(g.get("reason") or "").startswith("graph break")]
            if broken:
                yield each["name"], cid, broken[0]["name"], str(broken[0].get("reason"))
            elif entry.get("resume_functions"):
                names = ", ".join(str(r.get("name")) for r in entry["resume_functions"])
                yield each["name"], cid, None, f"graph break before any graph was captured; continues in {names}"


def _compile_time_of(funcs: List[Dict[str, Any]]) -> str:
    """The compile time of a function and its resume functions, all entries together."""
    times = [StageTimes(e.get("compile_time")) for f in funcs for e in f.get("entries", [])]
    recorded = [t.total for t in times if t.recorded]
    return seconds(sum(recorded)) if recorded else seconds(None)


def _recompiles(fn: Dict[str, Any]) -> Iterator[Tuple[str, str, str]]:
    for each in _walk(fn):
        for entry in each.get("entries", []):
            for reason in entry.get("recompile_reasons", []):
                yield each["name"], str(entry.get("compile_id", "?")), str(reason)


def render_page(dumps: List[Dump], report_dir: str, title: str) -> str:
    return PageWriter(dumps, report_dir, title).render()
