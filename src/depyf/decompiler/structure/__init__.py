"""The region structurer: one module per construct, each finding its construct on the graph
(`graph/`) as typed, immutable facts that the rules read instead of discovering them while
reading. Built so far: `with_regions` (with / async with) and `if_regions` (an if statement's
arms and join; `tools/if_joins.py` measures where it and the rules agree)."""
