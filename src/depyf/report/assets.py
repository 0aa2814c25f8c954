"""The page's inline style sheet and script (the page fetches nothing, so both travel inside it).

The script only helps reading: it opens the collapsed blocks around a linked part, expands or
collapses everything, and filters functions by name. The page is complete without it.
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 2em 4em; color: #0f172a; line-height: 1.4; }
header { border-bottom: 1px solid #cbd5e1; margin-bottom: 1em; }
nav a { margin-right: 1em; }
h2 { border-bottom: 2px solid #94a3b8; margin-top: 2em; }
section.function { border: 1px solid #cbd5e1; border-radius: 8px; padding: 0 1em 1em; margin: 1.5em 0; }
section.resume { border-left: 4px solid #a78bfa; padding-left: 1em; margin: 1em 0; }
.entry { border-left: 4px solid #fbbf24; padding-left: 1em; margin: 1em 0; }
.graph { border-left: 4px solid #f472b6; padding-left: 1em; margin: 0.7em 0; }
.flow-box { overflow-x: auto; padding: 0.5em 0; }
pre { background: #f8fafc; border: 1px solid #e2e8f0; padding: 0.6em; overflow-x: auto; font-size: 12px; }
code { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #cbd5e1; padding: 0.2em 0.6em; text-align: left; vertical-align: top; font-size: 13px; }
td.same { background: #dcfce7; } td.differs { background: #fee2e2; } td.missing { background: #f1f5f9; color: #64748b; }
.reason { color: #9a3412; } .muted { color: #64748b; font-size: 90%; }
.legend span { display: inline-block; padding: 0 0.6em; margin-right: 0.4em; border: 1px solid #475569; border-radius: 4px; font-size: 12px; }
summary { cursor: pointer; }
.differs-badge { background: #fee2e2; color: #991b1b; border-radius: 4px; padding: 0 0.4em; font-size: 11px; }
h5 { font-size: 1em; margin: 0.6em 0 0.3em; } h6 { font-size: 0.95em; margin: 0.5em 0 0.3em; }
table.guard-checks td { white-space: pre-wrap; word-break: break-word; }
table.guard-checks td code { font-size: 12px; }
tr.stand-in td:first-child { background: #fef9c3; }
table.compile-times td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.compile-times td.total { font-weight: 600; }
.time-bar { display: flex; width: 260px; height: 12px; background: #f1f5f9; border-radius: 3px; overflow: hidden; }
.time-bar .stage { display: block; height: 100%; min-width: 1px; }
.stage-key { display: inline-flex; align-items: center; margin-right: 1em; font-size: 12px; }
.stage-key span { display: inline-block; width: 12px; height: 12px; margin-right: 0.3em; border-radius: 2px; }
.entry-time { color: #334155; font-size: 90%; margin: 0.3em 0; }
details.user-stack ol { margin: 0.3em 0; font-size: 12px; }
details.user-stack li { margin: 0.15em 0; }
"""

SCRIPT = """
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var p = el; p; p = p.parentElement) { if (p.tagName === 'DETAILS') p.open = true; }
    el.scrollIntoView();
  }
  function setAll(open) {
    var all = document.querySelectorAll('details');
    for (var i = 0; i < all.length; i++) all[i].open = open;
  }
  window.addEventListener('hashchange', openTarget);
  document.getElementById('expand-all').addEventListener('click', function () { setAll(true); });
  document.getElementById('collapse-all').addEventListener('click', function () { setAll(false); });
  var filter = document.getElementById('filter');
  filter.addEventListener('input', function () {
    var q = filter.value.toLowerCase();
    var sections = document.querySelectorAll('section.function');
    for (var i = 0; i < sections.length; i++) {
      var names = sections[i].getAttribute('data-names').toLowerCase();
      sections[i].hidden = q !== '' && names.indexOf(q) < 0;
    }
  });
  openTarget();
  document.body.setAttribute('data-ready', 'yes');
})();
"""
