// RUN: ferrox-opt %s -p convert-tile-to-simt --split-input-file --verify-diagnostics
// RUN: not ferrox-opt %s -p 'convert-tile-to-simt{threads=48}' --split-input-file 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: not ferrox-opt %s -p 'convert-tile-to-simt{elems=3}' --split-input-file 2>&1 | filecheck %s --check-prefix=ELEMS

// What convert-tile-to-simt cannot lower is reported at the tile op, and a lowered kernel that
// verify-disjoint rejects is reported too (here: a reduction under an scf.if, whose shuffles
// would run on only some threads if the condition were not uniform).

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

tile.kernel @big(%out: !tile.partition<f32, [128, 128]>, %a: !tile.tensor<f32, [?, ?]>) {
  %z = arith.constant 0 : index
  %x = tile.load %a[%z, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 64]>
  %y = tile.load %a[%z, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [64, 128]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [128, 128]>
  // expected-error@+1 {{cannot lower 'tile.mma' to SIMT: the lowering needs 66304 bytes of shared memory, more than the 49152 a block has; use smaller tiles or fewer threads}}
  %r = tile.mma %x, %y, %acc : !tile.tile<f32, [128, 64]>, !tile.tile<f32, [64, 128]>, !tile.tile<f32, [128, 128]>
  tile.store %r, %out : !tile.tile<f32, [128, 128]>, !tile.partition<f32, [128, 128]>
  tile.return
}

