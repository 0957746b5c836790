// RUN: ferrox-opt %s -p convert-tile-to-simt --split-input-file --verify-diagnostics
// RUN: not ferrox-opt %s -p 'convert-tile-to-simt{threads=48}' --split-input-file 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not ferrox-opt %s -p 'convert-tile-to-simt{elems=3}' --split-input-file 2>&1 | filecheck %s --check-prefix=ELEMS

// What convert-tile-to-simt cannot lower is reported at the tile op, and so is a reduction or
// mma whose barriers or shuffles would sit under control flow not proven uniform across the
// block (lowering/tile_to_simt/uniform.py): here a branch and a loop bound computed from a
// value read out of a tile (block ids, tile.dim and kernel scalars are uniform; see
// tests/lowering/tile_to_simt/test_control_uniformity.py).

// THREADS: error: convert-tile-to-simt: threads must be a power of two from 32 to 1024, got 48
// ELEMS: error: convert-tile-to-simt: elems must be a power of two up to 16, got 3

tile.kernel @loop(%out: !tile.partition<f32, [64]>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{cannot lower 'scf.while' to SIMT: 'scf.while' has no lowering to SIMT inside a tile kernel}}
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi ult, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    scf.yield %i : index
  }
  tile.return
}

// -----

tile.kernel @big(%out: !tile.partition<f32, [256, 256]>, %a: !tile.tensor<f32, [?, ?]>) {
  %z = arith.constant 0 : index
  %x = tile.load %a[%z, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [256, 128]>
  %y = tile.load %a[%z, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 256]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [256, 256]>
  // expected-error@+1 {{cannot lower 'tile.mma' to SIMT: the lowering needs 263680 bytes of shared memory, more than the 232448 a block can opt in to; use smaller tiles or fewer threads}}
  %r = tile.mma %x, %y, %acc : !tile.tile<f32, [256, 128]>, !tile.tile<f32, [128, 256]>, !tile.tile<f32, [256, 256]>
  tile.store %r, %out : !tile.tile<f32, [256, 256]>, !tile.partition<f32, [256, 256]>
  tile.return
}


// -----

// doc:begin tile-divergent
tile.kernel @gate(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
  %all = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
  %s = tile.reduce_sum %all axis = 0 : !tile.tile<f32, [16]> -> !tile.tile<f32, []>
  // expected-note@+1 {{it is computed from a value read out of a tile here, which is the same on every thread but is not proven uniform once lowered (it comes out of shuffles and shared memory)}}
  %v = tile.extract %s : !tile.tile<f32, []> -> f32
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%pos` is not uniform across the warp)}}
  %r = scf.if %pos -> (!tile.tile<f32, [16]>) {
    // expected-error@+1 {{'tile.reduce_max' under divergent control flow: it lowers to warp collectives, which every lane of a warp must reach together}}
    %m = tile.reduce_max %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
    scf.yield %m : !tile.tile<f32, [16]>
  } else {
    scf.yield %all : !tile.tile<f32, [16]>
  }
  tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
// doc:end

// -----

tile.kernel @steps(%out: !tile.partition<f32, [32, 32]>, %a: !tile.tensor<f32, [?, ?]>, %b: !tile.tensor<f32, [?, ?]>, %counts: !tile.tensor<i32, [?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ct = tile.load %counts[%c0] : !tile.tensor<i32, [?]> -> !tile.tile<i32, [1]>
  %c = tile.reshape %ct : !tile.tile<i32, [1]> -> !tile.tile<i32, []>
  // expected-note@+1 {{it is computed from a value read out of a tile here, which is the same on every thread but is not proven uniform once lowered (it comes out of shuffles and shared memory)}}
  %n32 = tile.extract %c : !tile.tile<i32, []> -> i32
  %n = arith.index_cast %n32 : i32 to index
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [32, 32]>
  // expected-note@+1 {{control flow diverges here: the bounds of this loop depend on the thread (`%n` is not uniform across the block)}}
  %acc = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [32, 32]>) {
    %x = tile.load %a[%i, %t] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [32, 16]>
    %y = tile.load %b[%t, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
    // expected-error@+1 {{'tile.mma' under divergent control flow: it lowers to a barrier, which every thread of the tile block must reach together}}
    %m = tile.mma %x, %y, %acc : !tile.tile<f32, [32, 16]>, !tile.tile<f32, [16, 32]>, !tile.tile<f32, [32, 32]>
    scf.yield %m : !tile.tile<f32, [32, 32]>
  }
  tile.store %acc, %out : !tile.tile<f32, [32, 32]>, !tile.partition<f32, [32, 32]>
  tile.return
}
