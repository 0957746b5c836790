// RUN: ferrox-opt %s -p verify-disjoint --split-input-file --verify-diagnostics

// verify-disjoint's rules applied to the tile track's chunk witnesses (dialects/simt/tile_support.py).

simt.kernel @twice(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index, %v: f32) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 4, arg1>>
  // expected-note@+1 {{value moved here}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, !simt.thread_index<tile<[64], 4, arg1>>
  // expected-error@+2 {{use of moved value: witness}}
  // expected-note@+1 {{value used here after move}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, !simt.thread_index<tile<[64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @other_tile(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index, %v: f32) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[128], 4, arg1>>
  // expected-error@+1 {{index space mismatch: expected tile<[64], 4, arg1>, found tile<[128], 4, arg1>}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, !simt.thread_index<tile<[128], 4, arg1>>
  simt.return
}

// -----

// A witness of another grid order names another block's tile: refused as another space.
simt.kernel @other_order(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %v: f32) contract<domain = 2, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  // expected-error@+1 {{index space mismatch: expected tile<[4, 64], 4, arg1>, found tile<[4, 64], 4, arg1, order [1, 0]>}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0]>>
  simt.return
}

// -----

// A witness of another grid reversal names another block's tile: refused as another space, in
// both directions (a reversed witness on a plain slice, a plain witness on a reversed slice).
simt.kernel @other_reverse(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %v: f32) contract<domain = 2, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, reverse [0]>>
  // expected-error@+1 {{index space mismatch: expected tile<[4, 64], 4, arg1>, found tile<[4, 64], 4, arg1, reverse [0]>}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1, reverse [0]>>
  simt.return
}

// -----

simt.kernel @other_reverse_axis(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, %m: index, %n: index, %v: f32) contract<domain = 2, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [0]>>
  // expected-error@+1 {{index space mismatch: expected tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>, found tile<[4, 64], 4, arg1, order [1, 0], reverse [0]>}}
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>>, !simt.thread_index<tile<[4, 64], 4, arg1, order [1, 0], reverse [0]>>
  simt.return
}

// -----

simt.kernel @other_dims(%out: !simt.disjoint_slice<f32, tile<[64], 1, arg1>>, %n: index, %m: index, %v: f32) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%m) : !simt.thread_index<tile<[64], 1, arg2>>
  // expected-error@+1 {{index space mismatch: expected tile<[64], 1, arg1>, found tile<[64], 1, arg2>}}
  simt.store_chunk %out[%w], %v : !simt.disjoint_slice<f32, tile<[64], 1, arg1>>, !simt.thread_index<tile<[64], 1, arg2>>
  simt.return
}

// -----

// expected-note@+1 {{launch contract declared here}}
simt.kernel @domain(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %v: f32) contract<domain = 1, block = [64]> {
  %k = arith.constant 0 : index
  // expected-error@+1 {{index space tile<[4, 64], 4, arg1> needs a launch contract of domain 2, found domain 1}}
  %w = simt.tile_index %k dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @escape(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 4, arg1>>
  %s = simt.shared_alloc : !simt.shared<!simt.thread_index<tile<[64], 4, arg1>>, [1]>
  simt.unsafe {
    // expected-error@+1 {{cannot store a witness to memory}}
    simt.shared_store %w, %s[%k] : !simt.shared<!simt.thread_index<tile<[64], 4, arg1>>, [1]>
    simt.yield
  }
  simt.return
}

// -----

simt.kernel @read_output(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  // expected-error@+1 {{cannot read disjoint slice `%out`: it is written only through simt.get_mut, never read}}
  %v = simt.load %out[%k] : !simt.disjoint_slice<f32, tile<[64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @mma_in_if(%a: i32, %c: f32) contract<domain = 1, block = [32]> {
  %l = simt.lane_id
  %c16 = arith.constant 16 : index
  %p = arith.cmpi ult, %l, %c16 : index
  // expected-note@+1 {{control flow diverges here: not every thread may take this branch (`%p` is not uniform across the warp)}}
  scf.if %p {
    // expected-error@+1 {{warp collective under divergent control flow: 'simt.mma_sync' must be reached by every lane of the warp}}
    %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  }
  simt.return
}
