"""What `sat.clamp` means to ferrox's CPU reference interpreter (`ferrox run --device cpu`).

Importing this module registers the op (the `ferrox.interpreter` entry point names it). A
definition takes the op and returns `run(ctx, args, mask)`: `args` holds each operand as a
NumPy array with one entry per thread of the group (or a scalar all of them share), and `run`
returns the results the same way, in the result's own type.
"""

# doc:begin interpreter
import numpy as np

from ferrox.driver.interpreter.ops import lowers

from ferrox_sat.dialect import ClampOp


@lowers(ClampOp)
def clamp(op: ClampOp):
    lo, hi = op.lo.value.data, op.hi.value.data

    def run(ctx, args, mask):
        (x,) = args
        dtype = np.asarray(x).dtype
        return (np.minimum(np.maximum(x, dtype.type(lo)), dtype.type(hi)),)

    return run


# doc:end
