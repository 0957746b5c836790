"""The `verify-ownership` analysis: its lattice (`lattice`) and its transfer functions (`checker`).

The pass itself lives in `ferrox.passes.verify_ownership`; docs/ownership-analysis.md describes the
analysis and its join rules.
"""
