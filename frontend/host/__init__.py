"""The host surface of the Python frontend: host programs recorded from Python functions.

`ops` has one function per host-dialect op (`stream`, `prepare`, `launch`, `tile_launch`,
`partition`, `unpartition`, `sync`, `zeros`, `poison`, `check`), each recording that op at the
caller's Python line; `recorder` holds the program being recorded and its symbolic values;
`program.record` records a function called on caller arrays and verifies the module
(`verify-ownership` included); `arrays` reads caller arrays (NumPy, torch, CuPy) for the bind-time
alias check. The public decorator, `@ferrox.host.program`, and running live in `ferrox.host`.
"""
