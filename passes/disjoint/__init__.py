"""The checks behind `verify-disjoint`, one module per SIMT rule group (docs/safety.md#simt-rules).

Each check is `check(fn, ctx, engine)` over one `simt.kernel` or `simt.func`; `ctx` is the
module-wide `Context` (call graph facts), `engine` collects every violation.
"""
