// E1304: a tile launch whose grid or shapes do not match
//
// A tile kernel's static `!tile.tensor` dimensions must match the arrays bound to them, and its
// grid is one block per tile of the output partition: the launch checker refuses any other
// grid or shape before the tile arguments become the lowered SIMT kernel's. The rule is
// docs/safety.md#launch-tile.
