"""The region structurer over the control-flow graph: one module per construct (issue 20).

Built so far: `if_regions`, the if statement's arms and join. The builder's rules still decide
the constructs while reading; `if_regions` answers the same question from the graph alone, and
`tools/if_joins.py` measures where the two agree."""
