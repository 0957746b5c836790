"""ferrox's Python frontend: decorated Python functions become ferrox IR, built with xDSL's
builders (no text is printed and parsed again), every op located at its Python line.

`common/` is what every surface shares (source locations, diagnostics, typed values, control
flow); `simt/` is the SIMT surface. The public decorators live one layer up, in `ferrox.simt`.
"""
