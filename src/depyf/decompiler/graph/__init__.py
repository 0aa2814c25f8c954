"""The control-flow graph of a decoded code object (see `cfg.FlowGraph`)."""
from depyf.decompiler.graph.blocks import Block
from depyf.decompiler.graph.cfg import EXIT, FlowGraph
from depyf.decompiler.graph.edges import Edge, EdgeKind
from depyf.decompiler.graph.jumps import JumpIndex
from depyf.decompiler.graph.loops import Loop
from depyf.decompiler.graph.regions import ProtectedRegion

__all__ = ["Block", "EXIT", "Edge", "EdgeKind", "FlowGraph", "JumpIndex", "Loop", "ProtectedRegion"]
