// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Every op-local rule of the tile track's SIMT ops and of the tile index space.

// expected-error@+1 {{tile chunk width must be a power of two up to 16 that divides the tile's last dimension 2, found 4}}
simt.func @f(%w: !simt.thread_index<tile<[8, 2], 4, arg0>>) {
  simt.return
}

// -----

// expected-error@+1 {{tile index space needs static power-of-two tile dimensions, found [3, 4]}}
simt.func @f(%w: !simt.thread_index<tile<[3, 4], 1, arg0>>) {
  simt.return
}

// -----

// expected-error@+1 {{tile index space needs a tile of rank 1 to 3, found rank 4}}
simt.func @f(%w: !simt.thread_index<tile<[2, 2, 2, 2], 1, arg0>>) {
  simt.return
}

// -----

// expected-error@+1 {{expected argN naming the first dimension parameter, found 'n'}}
simt.func @f(%w: !simt.thread_index<tile<[2], 1, n>>) {
  simt.return
}

// -----

// A grid order must be a permutation of the tile's axes (so block -> tile stays one to one).
// expected-error@+1 {{a tile index space's grid order must be a permutation of the grid's axes 0 .. 1 (rank 2), found [1, 1]}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, order [1, 1]>>) {
  simt.return
}

// -----

// expected-error@+1 {{a tile index space's grid order must be a permutation of the grid's axes 0 .. 1 (rank 2), found [1, 0, 2]}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, order [1, 0, 2]>>) {
  simt.return
}

// -----

// expected-error@+1 {{the identity grid order is written by leaving it out}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, order [0, 1]>>) {
  simt.return
}

// -----

// A grid reversal lists distinct tile-grid axes, increasing (so block -> tile, b -> n - 1 - b,
// stays one to one, and one reversal has one spelling).
// expected-error@+1 {{a tile index space's grid reversal must list distinct tile-grid axes of 0 .. 1 (rank 2) in increasing order, found [1, 0]}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, reverse [1, 0]>>) {
  simt.return
}

// -----

// expected-error@+1 {{a tile index space's grid reversal must list distinct tile-grid axes of 0 .. 1 (rank 2) in increasing order, found [0, 2]}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, order [1, 0], reverse [0, 2]>>) {
  simt.return
}

// -----

// expected-error@+1 {{a grid reversal of no axis is written by leaving it out}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, reverse []>>) {
  simt.return
}

// -----

// expected-error@+1 {{a persistent tile space takes no grid reversal: its tiles are numbered row-major with axis 0 fastest, whatever the grid}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, reverse [0], persistent>>) {
  simt.return
}

// -----

// The order is checked first: a bad order and a bad reversal report the order.
// expected-error@+1 {{a tile index space's grid order must be a permutation of the grid's axes 0 .. 1 (rank 2), found [1, 1]}}
simt.func @f(%w: !simt.thread_index<tile<[8, 4], 4, arg0, order [1, 1], reverse [3]>>) {
  simt.return
}

// -----

simt.kernel @wrong_dims(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index, %m: index) {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' dimension 0 must be kernel parameter arg1 (its index space tile<[64], 4, arg1> names it), so that every thread uses the same tensor shape}}
  %w = simt.tile_index %k dims(%m) : !simt.thread_index<tile<[64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @computed_dims(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index) {
  %k = arith.constant 0 : index
  %m = arith.addi %n, %k : index
  // expected-error@+1 {{'simt.tile_index' dimension 0 must be kernel parameter arg1}}
  %w = simt.tile_index %k dims(%m) : !simt.thread_index<tile<[64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @rank(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index) {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' of a rank-2 tile needs 2 dimensions, got 1}}
  %w = simt.tile_index %k dims(%m) : !simt.thread_index<tile<[4, 64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @not_tile(%n: index) {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' produces a tile<...> witness, found 1d}}
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<1d>
  simt.return
}

// -----

simt.func @in_func(%n: index) {
  %k = arith.constant 0 : index
  // expected-error@+1 {{'simt.tile_index' must sit in a 'simt.kernel' (its space names kernel parameters)}}
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 4, arg0>>
  simt.return
}

// -----

simt.kernel @count(%out: !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, %n: index, %v: f32) {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 4, arg1>>
  // expected-error@+1 {{'simt.store_chunk' to chunks of 4 takes 4 values, got 2}}
  simt.store_chunk %out[%w], %v, %v : !simt.disjoint_slice<f32, tile<[64], 4, arg1>>, !simt.thread_index<tile<[64], 4, arg1>>
  simt.return
}

// -----

simt.kernel @store_1d(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
  %w = simt.thread_index_1d
  // expected-error@+1 {{'simt.store_chunk' writes a slice of a tile<...> space, found 1d}}
  simt.store_chunk %out[%w], %v : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d>
  simt.return
}

// -----

simt.kernel @width(%x: !simt.slice<f32>, %i: index, %p: f32) {
  // expected-error@+1 {{'simt.load_chunk' reads a power-of-two chunk of at most 16 elements, got 3}}
  %a, %b, %c = simt.load_chunk %x[%i], %i, %p : !simt.slice<f32> -> f32, f32, f32
  simt.return
}

// -----

// A shared slice is read-only: no chunk store writes it.
simt.kernel @store_to_input(%x: !simt.slice<f32>, %n: index, %v: f32) contract<domain = 1, block = [16]> {
  %k = arith.constant 0 : index
  %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 1, arg1>>
  // expected-error@+1 {{!simt.slice<f32> should be of base attribute simt.disjoint_slice}}
  simt.store_chunk %x[%w], %v : !simt.slice<f32>, !simt.thread_index<tile<[64], 1, arg1>>
  simt.return
}

// -----

simt.kernel @fragment(%a: i32, %c: f32) {
  // expected-error@+1 {{'simt.mma_sync' takes 2 B registers, got 1}}
  %d0, %d1, %d2, %d3 = simt.mma_sync f16 A[%a, %a, %a, %a] B[%a] C[%c, %c, %c, %c]
  simt.return
}

// -----

simt.func @f(%x: !simt.slice<f32>) {
  // expected-error@+1 {{'simt.slice_aligned' tests a power-of-two alignment of at most 16 bytes, got 32}}
  %ok = simt.slice_aligned %x {bytes = 32} : !simt.slice<f32>
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<f32>, %i: index) unsafe {
  // expected-error@+1 {{'simt.unchecked_load_chunk' moves a power-of-two chunk of at most 16 bytes, got 8 of f32}}
  %a:8 = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32, f32, f32, f32, f32
  simt.return
}

// -----

simt.kernel @k(%x: !simt.slice<index>, %i: index) unsafe {
  // expected-error@+1 {{'simt.unchecked_load_chunk' reads or writes vectors of index: not i1 or index}}
  %a, %b = simt.unchecked_load_chunk %x[%i] : !simt.slice<index> -> index, index
  simt.return
}

// -----

simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>, %i: index, %v: f32) unsafe {
  // expected-error@+1 {{'simt.unchecked_store_chunk' writes a slice of a tile<...> space, found 1d}}
  simt.unchecked_store_chunk %out[%i], %v, %v : !simt.disjoint_slice<f32, 1d>
  simt.return
}
