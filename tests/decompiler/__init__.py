"""Tests of the bytecode decompiler (mirrors src/depyf/decompiler/)."""
