"""The flow picture of one compiled function, as inline SVG.

    function -> guard (one per cache entry) -> compiled code -> graphs
                                                             -> resume function -> guard -> ...

It is a tree laid out left to right: each node sits in the column of its depth, leaves take one
row each, and a parent is centred on its children. Every node links to its part of the page.
"""
from html import escape
from typing import Any, Callable, Dict, List, Optional

NODE_WIDTH = 220
NODE_HEIGHT = 38
COLUMN_GAP = 86  # room for a label on the edge
ROW_GAP = 14
MAX_LABEL = 29
MAX_DETAIL = 36  # the second line of a box is in a smaller font

# Fill colours per kind of node; the page's legend uses the same ones.
KIND_COLOURS = {
    "function": "#dbeafe",
    "resume": "#ede9fe",
    "guard": "#fef3c7",
    "code": "#dcfce7",
    "graph": "#fce7f3",
    "fallback": "#ffffff",
}


# The arrow head every picture uses, defined once per page (ids must be unique in a document).
ARROW_DEFS = (
    '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
    '<marker id="flow-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" '
    'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#64748b"/></marker></defs></svg>'
)


# Gives the page anchor of a part: ``anchor_of("entry", function_name, compile_id)``.
AnchorOf = Callable[..., str]


class FlowNode:
    """One box of the picture."""

    def __init__(self, kind: str, title: str, detail: str = "", href: Optional[str] = None, note: str = "") -> None:
        self.kind = kind
        self.title = title
        self.detail = detail
        self.href = href
        self.note = note  # shown only in the tooltip (a graph's break reason, say)
        self.children: List["FlowNode"] = []
        self.edge_label = ""  # written on the edge from the parent
        self.x = 0
        self.y = 0.0

    def add(self, child: "FlowNode", edge_label: str = "") -> "FlowNode":
        child.edge_label = edge_label
        self.children.append(child)
        return child


def function_tree(fn: Dict[str, Any], anchor_of: AnchorOf) -> FlowNode:
    """The tree of ``fn`` (a manifest function); ``anchor_of(kind, *names)`` gives link targets."""
    kind = "resume" if fn.get("kind") == "resume" else "function"
    root = FlowNode(kind, fn["name"], _short_source(fn.get("source")), "#" + anchor_of("fn", fn["name"]))
    _add_entries(root, fn, anchor_of)
    if fn.get("entries"):
        # The seed's mental model: when no guard holds, Dynamo compiles the function again.
        root.add(FlowNode("fallback", "no guard holds", "Dynamo compiles again (new entry)"), "else")
    return root


def _add_entries(node: FlowNode, fn: Dict[str, Any], anchor_of: AnchorOf) -> None:
    for entry in fn.get("entries", []):
        cid = str(entry.get("compile_id", "?"))
        guard = entry.get("guard") or {}
        n_guards = len(guard.get("lines", []))
        guard_node = node.add(
            FlowNode("guard", guard.get("function") or "guard", f"cache entry {cid}, {n_guards} checks",
                     "#" + anchor_of("entry", fn["name"], cid)),
            "recompiled" if entry.get("recompile_reasons") else "",
        )
        code_node = guard_node.add(
            FlowNode("code", entry.get("transformed_code_file") or "transformed code", "Dynamo's transformed code",
                     "#" + anchor_of("entry", fn["name"], cid))
        )
        for graph in entry.get("graphs", []):
            kinds = [str(a.get("kind", "")) for a in graph.get("artifacts", []) if isinstance(a, dict)]
            detail = ", ".join(k.replace("_", " ") for k in kinds) or "graph"
            href = "#" + anchor_of("graph", fn["name"], cid, graph["name"])
            code_node.add(FlowNode("graph", graph["name"], detail, href, str(graph.get("reason") or "")), "calls")
        for resume in entry.get("resume_functions", []):
            resume_node = code_node.add(
                FlowNode("resume", resume["name"], "resume function" + (" (see above)" if resume.get("shown_above") else ""),
                         "#" + anchor_of("fn", resume["name"])),
                "graph break",
            )
            if not resume.get("shown_above"):
                _add_entries(resume_node, resume, anchor_of)


def _short_source(source: Any) -> str:
    text = str(source or "")
    return text.replace("\\", "/").rsplit("/", 1)[-1]


def _layout(node: FlowNode, depth: int, next_row: List[int]) -> None:
    node.x = depth * (NODE_WIDTH + COLUMN_GAP)
    if not node.children:
        node.y = next_row[0] * (NODE_HEIGHT + ROW_GAP)
        next_row[0] += 1
        return
    for child in node.children:
        _layout(child, depth + 1, next_row)
    node.y = (node.children[0].y + node.children[-1].y) / 2


def _all_nodes(node: FlowNode) -> List[FlowNode]:
    out = [node]
    for child in node.children:
        out.extend(_all_nodes(child))
    return out


def _clip(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def render_svg(root: FlowNode, title: str) -> str:
    """The tree as one ``<svg>`` element (text escaped; full names in each box's tooltip)."""
    rows = [0]
    _layout(root, 0, rows)
    nodes = _all_nodes(root)
    width = max(n.x for n in nodes) + NODE_WIDTH + 8
    height = max(rows[0], 1) * (NODE_HEIGHT + ROW_GAP) + 8
    parts = [
        f'<svg class="flow" xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="-4 -4 {width} {height}"><title>{escape(title)}</title>'
    ]
    for parent in nodes:
        for child in parent.children:
            x1, y1 = parent.x + NODE_WIDTH, parent.y + NODE_HEIGHT / 2
            x2, y2 = child.x, child.y + NODE_HEIGHT / 2
            mid = (x1 + x2) / 2
            parts.append(
                f'<path class="edge" d="M{x1},{y1:.1f} C{mid},{y1:.1f} {mid},{y2:.1f} {x2 - 4},{y2:.1f}" '
                'fill="none" stroke="#64748b" marker-end="url(#flow-arrow)"/>'
            )
            if child.edge_label:
                parts.append(
                    f'<text class="edge-label" x="{mid}" y="{y2 - 5:.1f}" text-anchor="middle" font-size="10" '
                    f'fill="#b45309">{escape(child.edge_label)}</text>'
                )
    for node in nodes:
        colour = KIND_COLOURS.get(node.kind, "#f1f5f9")
        tooltip = escape("\n".join(t for t in (node.title, node.detail, node.note) if t))
        dashed = ' stroke-dasharray="4 3"' if node.kind == "fallback" else ""
        box = (
            f'<g class="node node-{node.kind}" data-kind="{node.kind}" data-name="{escape(node.title)}">'
            f"<title>{tooltip}</title>"
            f'<rect x="{node.x}" y="{node.y:.1f}" width="{NODE_WIDTH}" height="{NODE_HEIGHT}" rx="6" '
            f'fill="{colour}" stroke="#475569"{dashed}/>'
            f'<text x="{node.x + 8}" y="{node.y + 15:.1f}" font-size="12" font-family="monospace">'
            f"{escape(_clip(node.title))}</text>"
            f'<text x="{node.x + 8}" y="{node.y + 30:.1f}" font-size="10" fill="#475569">'
            f"{escape(_clip(node.detail, MAX_DETAIL))}</text></g>"
        )
        parts.append(f'<a href="{escape(node.href)}">{box}</a>' if node.href else box)
    parts.append("</svg>")
    return "".join(parts)
