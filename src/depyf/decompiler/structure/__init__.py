"""The region structurer: one module per construct, each finding its construct on the graph
(`graph/`) as typed, immutable facts that the rules read instead of discovering them while
reading. Built so far: `with_regions` (with / async with)."""
