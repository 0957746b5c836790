"""Analyses over device code that the verifiers and the conversions share.

`cfg` gives the control-flow graph of one region (reachability, post-dominators, control
dependence); `uniformity` says which values and which control flow are the same for every thread
of the grid, of a block or of a warp (docs/uniformity-analysis.md).
"""
