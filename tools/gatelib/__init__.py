"""The gate (`tools/gate.py`): record every definition's outcome on every corpus and version, and
compare a later run with a recording. See docs/gate.md."""
