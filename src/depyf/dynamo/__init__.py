"""The torch side of depyf: the adapter over torch internals, capture of what a compilation
produced, guard rendering, and safe decompilation of Dynamo's code objects."""
