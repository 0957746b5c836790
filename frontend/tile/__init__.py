"""Tile kernels written in Python (`@ferrox.tile.kernel`): annotations, tile functions, the
builder onto the tile dialect, and the kernel's module (docs/python-tile.md)."""
