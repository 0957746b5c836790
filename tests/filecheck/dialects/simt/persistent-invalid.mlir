// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// A persistent tile space (docs/safety.md#simt-1-persistent): its witnesses name the tile of a persistent
// loop, an 'scf.for' whose bounds are exactly a 'simt.tile_schedule''s results; anything else is
// refused, and so are nested persistent loops.

// A witness of a persistent space that names no tile: its block's ids would not say which.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' of the persistent space tile<[4, 64], 4, arg1, persistent> needs tile(%t), the induction variable of its persistent loop: a block's ids do not name its tiles}}
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  simt.return
}

// -----

// A witness in a persistent loop that does not use the loop's tile (a block-id tile).
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %step {
    %b = simt.block_id x
    // expected-error@+1 {{'simt.tile_index' tile(...) must be the induction variable of a persistent loop: an 'scf.for' from a 'simt.tile_schedule''s first tile to its tile count in steps of its step (the grid's block count)}}
    %w = simt.tile_index %k dims(%m, %n) tile(%b) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// -----

// A forged step: 1 instead of the grid's block count (every block would write every tile).
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %c1 {
    // expected-error@+1 {{'simt.tile_index' tile(...) must be the induction variable of a persistent loop}}
    %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// -----

// A forged start: 0 for every block.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %k to %count step %step {
    // expected-error@+1 {{'simt.tile_index' tile(...) must be the induction variable of a persistent loop}}
    %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// -----

// A forged bound: the loop runs past the tile count.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %m step %step {
    // expected-error@+1 {{'simt.tile_index' tile(...) must be the induction variable of a persistent loop}}
    %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// -----

// Nested persistent loops.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %step {
    // expected-error@+1 {{persistent loops do not nest: this 'simt.tile_schedule' or a loop over it sits in another persistent loop}}
    %f2, %c2, %s2 = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
    scf.for %u = %f2 to %c2 step %s2 {
    }
  }
  simt.return
}

// -----

// A schedule of a space that is not persistent.
simt.kernel @k(%m: index, %n: index) contract<domain = 1, block = [64]> {
  // expected-error@+1 {{'simt.tile_schedule' schedules a persistent tile space (tile<[T..], w, argN, persistent>), found tile<[4, 64], 4, arg0>}}
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg0>>
  simt.return
}

// -----

// A schedule whose dimensions are not the parameters its space names.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  // expected-error@+1 {{'simt.tile_schedule' dimension 1 must be kernel parameter arg2 (its index space tile<[4, 64], 4, arg1, persistent> names it), so that every thread uses the same tensor shape}}
  %first, %count, %step = simt.tile_schedule dims(%m, %m) <tile<[4, 64], 4, arg1, persistent>>
  simt.return
}

// -----

// A tile(...) in a space that is not persistent.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index) contract<domain = 2, block = [64]> {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' takes tile(...) only in a persistent space, not tile<[4, 64], 4, arg1>: its tile is the block's}}
  %w = simt.tile_index %k dims(%m, %n) tile(%k) : !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.return
}

// -----

// A witness naming the tile of a loop over tiles of another shape.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[8, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %step {
    // expected-error@+1 {{'simt.tile_index' of tile<[4, 64], 4, arg1, persistent> names a tile of a loop over tile<[8, 64], 4, arg1, persistent>: the two must have the same tile shape and dimensions}}
    %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<tile<[4, 64], 4, arg1, persistent>>
  }
  simt.return
}

// -----

// expected-error@+1 {{a persistent tile space takes no grid order: its tiles are numbered row-major with axis 0 fastest, whatever the grid}}
simt.func @f(%w: !simt.thread_index<tile<[4, 64], 4, arg0, order [1, 0], persistent>>) {
  simt.return
}

// -----

// A persistent loop nested in another over a schedule made outside both.
simt.kernel @k(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, persistent>>, %m: index, %n: index) contract<domain = 1, block = [64]> {
  // expected-error@+1 {{persistent loops do not nest}}
  %first, %count, %step = simt.tile_schedule dims(%m, %n) <tile<[4, 64], 4, arg1, persistent>>
  scf.for %t = %first to %count step %step {
    scf.for %u = %first to %count step %step {
    }
  }
  simt.return
}
