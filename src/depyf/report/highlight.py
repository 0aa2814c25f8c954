"""Syntax colours for the page's code blocks, with Pygments when it is installed.

Pygments is optional (``pip install depyf[report]``): without it every block is escaped plain
text and the page is otherwise the same. With it, the colours are CSS classes whose style sheet
goes inline into the page, so the page still fetches nothing.
"""
from html import escape
from typing import Any, Optional

# The CSS scope of highlighted blocks; the page's own classes never start with it.
CSS_CLASS = "hl"
# Inductor modules can be long; past this many characters a block stays plain (Pygments'
# Python lexer is linear, but colouring a 200 kB module costs the page more than it gives).
MAX_HIGHLIGHTED_CHARS = 120000
# Light colours on the page's light code background.
STYLE_NAME = "friendly"

_pygments: Optional[Any] = None
_checked = False


def _load() -> Optional[Any]:
    """The Pygments pieces this module uses, or None when Pygments is not importable."""
    global _pygments, _checked
    if not _checked:
        _checked = True
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer

            _pygments = (highlight, HtmlFormatter, PythonLexer)
        except ImportError:
            _pygments = None
    return _pygments


def available() -> bool:
    return _load() is not None


def _formatter() -> Any:
    _, HtmlFormatter, _ = _load()
    # nowrap: only the coloured spans; the page writes its own <pre><code> around them.
    return HtmlFormatter(style=STYLE_NAME, cssclass=CSS_CLASS, nowrap=True)


def _coloured(text: str) -> Optional[str]:
    """The coloured spans of ``text`` as Python, or None without Pygments or for a huge text."""
    pieces = _load()
    if pieces is None or len(text) > MAX_HIGHLIGHTED_CHARS:
        return None
    highlight, _, PythonLexer = pieces
    # stripnl=False keeps leading blank lines, so line numbers in the block match the file.
    return highlight(text, PythonLexer(stripnl=False, ensurenl=False), _formatter())


def code_html(text: str) -> str:
    """``<pre><code>`` of ``text``: coloured as Python where Pygments is there, else escaped."""
    body = _coloured(text)
    if body is None:
        return f"<pre><code>{escape(text)}</code></pre>"
    return f'<pre class="{CSS_CLASS}"><code>{body}</code></pre>'


def inline_code_html(text: str) -> str:
    """``<code>`` of a one-line snippet (a guard check, a line of the user's stack)."""
    body = _coloured(text)
    if body is None:
        return f"<code>{escape(text)}</code>"
    return f'<code class="{CSS_CLASS}">{body.rstrip()}</code>'


def style_sheet() -> str:
    """The CSS of the colours (empty without Pygments), scoped to highlighted code only."""
    if _load() is None:
        return ""
    # Only token rules: the page keeps its own background, border and font for <pre>.
    rules = _formatter().get_style_defs(f".{CSS_CLASS}")
    return "\n".join(line for line in rules.splitlines() if line.startswith(f".{CSS_CLASS} ."))
