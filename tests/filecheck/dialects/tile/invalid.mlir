// Every shape and type rule of the tile dialect, each with its exact diagnostic.
// RUN: ferrox-opt %s --split-input-file --verify-diagnostics

// Types

// expected-error@+1 {{tile shape must be static powers of two, found [3, 128]}}
func.func @f(%t: !tile.tile<f32, [3, 128]>)

// -----

// expected-error@+1 {{tile shape must be static powers of two, found [?, 128]}}
func.func @f(%t: !tile.tile<f32, [?, 128]>)

// -----

// expected-error@+1 {{tile shape must be static powers of two, found [0]}}
func.func @f(%t: !tile.tile<f32, [0]>)

// -----

// expected-error@+1 {{tile element type must be a float (f16, bf16, f32, f64) or a signless integer (i1, i8, i16, i32, i64), found index}}
func.func @f(%t: !tile.tile<index, [4]>)

// -----

// expected-error@+1 {{partition rank must be 1, 2 or 3 (one grid axis per dimension), found 4}}
func.func @f(%p: !tile.partition<f32, [2, 2, 2, 2]>)

// -----

// expected-error@+1 {{partition rank must be 1, 2 or 3 (one grid axis per dimension), found 0}}
func.func @f(%p: !tile.partition<f32, []>)

// -----

// expected-error@+1 {{tile shape must be static powers of two, found [100]}}
func.func @f(%p: !tile.partition<f32, [100]>)

// -----

// expected-error@+1 {{partition element type must be a float (f16, bf16, f32, f64) or a signless integer (i8, i16, i32, i64), found i1}}
func.func @f(%p: !tile.partition<i1, [128]>)

// -----

// expected-error@+1 {{tensor rank must be at least 1}}
func.func @f(%x: !tile.tensor<f32, []>)

// -----

// expected-error@+1 {{tensor dimensions must be positive or ?, found [?, 0]}}
func.func @f(%x: !tile.tensor<f32, [?, 0]>)

// -----

// expected-error@+1 {{tensor element type must be a float (f16, bf16, f32, f64) or a signless integer (i8, i16, i32, i64), found ui8}}
func.func @f(%x: !tile.tensor<ui8, [?]>)

// -----

// tile.kernel and tile.return

// expected-error@+1 {{kernel parameter 1 has type !tile.tile<f32, [16]>; a tile kernel takes output partitions (!tile.partition), input tensors (!tile.tensor) and scalars}}
tile.kernel @k(%out: !tile.partition<f32, [16]>, %t: !tile.tile<f32, [16]>) {
  tile.return
}

// -----

// expected-error@+1 {{tile kernel @k has no output partition; the first !tile.partition parameter fixes the launch grid}}
tile.kernel @k(%x: !tile.tensor<f32, [?]>, %a: f32) {
  tile.return
}

// -----

// expected-error@+1 {{output partitions must share the grid's rank: parameter 2 is rank 1, the first output partition is rank 2}}
tile.kernel @k(%a: !tile.partition<f32, [16, 16]>, %x: !tile.tensor<f32, [?]>, %b: !tile.partition<f32, [16]>) {
  tile.return
}

// -----

// expected-error@+1 {{tile.kernel body must end with tile.return}}
tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // The ops inside an op that fails are not verified (ferrox/verify.py).
  %i = tile.block_id 0
}

// -----

func.func @f() {
  // expected-error@+1 {{'tile.return' expects parent op 'tile.kernel'}}
  tile.return
}

// -----

// tile.kernel's grid order

// expected-error@+1 {{the grid order of @k must be a permutation of the grid's axes 0 .. 1 (rank 2), found [1, 1]}}
tile.kernel @k(%out: !tile.partition<f32, [4, 4]>) grid_order [1, 1] {
  tile.return
}

// -----

// expected-error@+1 {{the grid order of @k must be a permutation of the grid's axes 0 .. 1 (rank 2), found [1, 0, 2]}}
tile.kernel @k(%out: !tile.partition<f32, [4, 4]>) grid_order [1, 0, 2] {
  tile.return
}

// -----

// expected-error@+1 {{the grid order of @k must be a permutation of the grid's axes 0 .. 2 (rank 3), found [2, 0, 3]}}
tile.kernel @k(%out: !tile.partition<f32, [1, 4, 4]>) grid_order [2, 0, 3] {
  tile.return
}

// -----

// tile.kernel's grid reversal: distinct tile-grid axes of the grid, increasing (one spelling)

// expected-error@+1 {{the grid reversal of @k must list distinct tile-grid axes of 0 .. 1 (rank 2) in increasing order, found [2]}}
tile.kernel @k(%out: !tile.partition<f32, [4, 4]>) grid_reverse [2] {
  tile.return
}

// -----

// expected-error@+1 {{the grid reversal of @k must list distinct tile-grid axes of 0 .. 1 (rank 2) in increasing order, found [1, 1]}}
tile.kernel @k(%out: !tile.partition<f32, [4, 4]>) grid_order [1, 0] grid_reverse [1, 1] {
  tile.return
}

// -----

// expected-error@+1 {{the grid reversal of @k must list distinct tile-grid axes of 0 .. 2 (rank 3) in increasing order, found [2, 0]}}
tile.kernel @k(%out: !tile.partition<f32, [1, 4, 4]>) grid_reverse [2, 0] {
  tile.return
}

// -----

// expected-error@+1 {{the grid reversal of @k must list distinct tile-grid axes of 0 .. 1 (rank 2) in increasing order, found [-1]}}
tile.kernel @k(%out: !tile.partition<f32, [4, 4]>) grid_reverse [-1] {
  tile.return
}

// -----

// tile.block_id, tile.num_blocks

tile.kernel @k(%out: !tile.partition<f32, [4, 4, 4]>) {
  // expected-error@+1 {{grid axis must be 0, 1 or 2, found 3}}
  %i = tile.block_id 3
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{grid axis 1 is out of range: @k has a 1-d grid (the rank of its first output partition)}}
  %n = tile.num_blocks 1
  tile.return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tile.block_id' expects ancestor op 'tile.kernel'}}
  %i = tile.block_id 0
  func.return
}

// -----

// tile.dim

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  // expected-error@+1 {{dim axis 2 is out of range for rank 2}}
  %d = tile.dim %x, 2 : !tile.tensor<f32, [?, ?]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %a: f32) {
  // expected-error@+1 {{tile.dim takes a tensor or an output partition, found f32}}
  %d = tile.dim %a, 0 : f32
  tile.return
}

// -----

// tile.load

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{load index rank 1 does not match tensor rank 2}}
  %t = tile.load %x[%i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{load tile rank 1 does not match tensor rank 2}}
  %t = tile.load %x[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{load result element type f16 does not match tensor element type f32}}
  %t = tile.load %x[%i] : !tile.tensor<f32, [?]> -> !tile.tile<f16, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{tile.load reads an input tensor (!tile.tensor), found output partition !tile.partition<f32, [16]>; a kernel does not read its outputs}}
  %t = tile.load %out[%i] : !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %a: f32) {
  // expected-error@+1 {{tile.load reads an input tensor (!tile.tensor), found f32}}
  %t = tile.load %a[] : f32 -> !tile.tile<f32, []>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<i32, [16]>, %x: !tile.tensor<i32, [?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{padding neg_inf needs a float element type, found i32}}
  %t = tile.load %x[%i] padding = neg_inf : !tile.tensor<i32, [?]> -> !tile.tile<i32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{Expected `zero`, `neg_inf`, `pos_inf`, or `nan`.}}
  %t = tile.load %x[%i] padding = one : !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %i = tile.block_id 0
  // expected-error@+1 {{result 'result' at position 0 does not verify}}
  %t = "tile.load"(%x, %i) : (!tile.tensor<f32, [?]>, index) -> f32
  tile.return
}

// -----

// tile.load_like

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  // expected-error@+1 {{tile.load_like takes its tile from an output partition (!tile.partition), found !tile.tensor<f32, [?]>}}
  %t = tile.load_like %x, %y : !tile.tensor<f32, [?]>, !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  // expected-error@+1 {{load_like tensor rank 2 does not match partition rank 1}}
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f16, [?]>) {
  // expected-error@+1 {{load_like result must be !tile.tile<f16, [16]>, found !tile.tile<f32, [16]>}}
  %t = tile.load_like %x, %out : !tile.tensor<f16, [?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  // expected-error@+1 {{load_like result must be !tile.tile<f32, [16]>, found !tile.tile<f32, [32]>}}
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [32]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %o2: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{tile.load_like reads an input tensor (!tile.tensor), found output partition !tile.partition<f32, [16]>; a kernel does not read its outputs}}
  %t = tile.load_like %o2, %out : !tile.partition<f32, [16]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<i8, [16]>, %x: !tile.tensor<i8, [?]>) {
  // expected-error@+1 {{padding nan needs a float element type, found i8}}
  %t = tile.load_like %x, %out padding = nan : !tile.tensor<i8, [?]>, !tile.partition<i8, [16]> -> !tile.tile<i8, [16]>
  tile.return
}

// -----

func.func @f(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  // expected-error@+1 {{'tile.load_like' expects ancestor op 'tile.kernel'}}
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  func.return
}

// -----

// tile.store

tile.kernel @k(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [16]> -> !tile.tile<f32, [16]>
  // expected-error@+1 {{cannot store to an input tensor (!tile.tensor<f32, [?]>); a kernel writes only its own output partition (!tile.partition)}}
  tile.store %t, %x : !tile.tile<f32, [16]>, !tile.tensor<f32, [?]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %a: f32) {
  %t = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{tile.store writes an output partition (!tile.partition), found f32}}
  tile.store %t, %a : !tile.tile<f32, [16]>, f32
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<0.0> : !tile.tile<f32, [8]>
  // expected-error@+1 {{stored tile !tile.tile<f32, [8]> does not match the partition's tile !tile.tile<f32, [16]>}}
  tile.store %t, %out : !tile.tile<f32, [8]>, !tile.partition<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<bf16, [16]>) {
  %t = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{stored tile !tile.tile<f32, [16]> does not match the partition's tile !tile.tile<bf16, [16]>}}
  tile.store %t, %out : !tile.tile<f32, [16]>, !tile.partition<bf16, [16]>
  tile.return
}

// -----

func.func @f(%out: !tile.partition<f32, [16]>, %t: !tile.tile<f32, [16]>) {
  // expected-error@+1 {{'tile.store' expects ancestor op 'tile.kernel'}}
  tile.store %t, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  func.return
}

// -----

// Elementwise

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %b = tile.constant dense<0.0> : !tile.tile<f32, [8]>
  // expected-error@+1 {{tile.add operands and result must have the same type, found !tile.tile<f32, [16]>, !tile.tile<f32, [8]>, !tile.tile<f32, [16]> (tile ops do not broadcast implicitly: use tile.broadcast)}}
  %c = "tile.add"(%a, %b) : (!tile.tile<f32, [16]>, !tile.tile<f32, [8]>) -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %b = tile.constant dense<0.0> : !tile.tile<f32, [8]>
  // expected-error@+1 {{operand is used with type !tile.tile<f32, [16]>, but has been previously used or defined with type !tile.tile<f32, [8]>}}
  %c = tile.mul %a, %b : !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{tile.sub operands and result must have the same type, found !tile.tile<f32, [16]>, !tile.tile<f32, [16]>, !tile.tile<f16, [16]>}}
  %c = "tile.sub"(%a, %a) : (!tile.tile<f32, [16]>, !tile.tile<f32, [16]>) -> !tile.tile<f16, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1> : !tile.tile<i32, [16]>
  // expected-error@+1 {{tile.div needs a float element type, found i32}}
  %c = tile.div %a, %a : !tile.tile<i32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<true> : !tile.tile<i1, [16]>
  // expected-error@+1 {{tile.add needs a float or integer element type (not i1), found i1}}
  %c = tile.add %a, %a : !tile.tile<i1, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1> : !tile.tile<i32, [16]>
  // expected-error@+1 {{tile.exp needs a float element type, found i32}}
  %c = tile.exp %a : !tile.tile<i32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<true> : !tile.tile<i1, [16]>
  // expected-error@+1 {{tile.neg needs a float or integer element type (not i1), found i1}}
  %c = tile.neg %a : !tile.tile<i1, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1> : !tile.tile<i32, [16]>
  // expected-error@+1 {{tile.fma needs a float element type, found i32}}
  %c = tile.fma %a, %a, %a : !tile.tile<i32, [16]>
  tile.return
}

// -----

// exp2's ftz is a unit attribute (present or absent), never a value.
tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{1 : i32 should be of base attribute unit}}
  %c = tile.exp2 %a {ftz = 1 : i32} : !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{tile.sqrt operand and result must have the same type, found !tile.tile<f32, [16]>, !tile.tile<f32, [8]>}}
  %c = "tile.sqrt"(%a) : (!tile.tile<f32, [16]>) -> !tile.tile<f32, [8]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{cmp result must be !tile.tile<i1, [16]>, found !tile.tile<f32, [16]>}}
  %c = tile.cmp lt, %a, %a : !tile.tile<f32, [16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  %b = tile.constant dense<1.0> : !tile.tile<f32, [1]>
  // expected-error@+1 {{tile.cmp operands must have the same type, found !tile.tile<f32, [16]>, !tile.tile<f32, [1]> (tile ops do not broadcast implicitly: use tile.broadcast)}}
  %c = "tile.cmp"(%a, %b) <{predicate = #tile<cmp_predicate lt>}> : (!tile.tile<f32, [16]>, !tile.tile<f32, [1]>) -> !tile.tile<i1, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{Expected `eq`, `ne`, `lt`, `le`, `gt`, or `ge`.}}
  %c = tile.cmp olt, %a, %a : !tile.tile<f32, [16]> -> !tile.tile<i1, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  %m = tile.constant dense<true> : !tile.tile<i1, [8]>
  // expected-error@+1 {{select condition must be !tile.tile<i1, [16]>, found !tile.tile<i1, [8]>}}
  %c = tile.select %m, %a, %a : !tile.tile<i1, [8]>, !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{select condition must be !tile.tile<i1, [16]>, found !tile.tile<f32, [16]>}}
  %c = tile.select %a, %a, %a : !tile.tile<f32, [16]>, !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  %b = tile.constant dense<1.0> : !tile.tile<f16, [16]>
  %m = tile.constant dense<true> : !tile.tile<i1, [16]>
  // expected-error@+1 {{tile.select values and result must have the same type, found !tile.tile<f32, [16]>, !tile.tile<f16, [16]>, !tile.tile<f32, [16]>}}
  %c = "tile.select"(%m, %a, %b) : (!tile.tile<i1, [16]>, !tile.tile<f32, [16]>, !tile.tile<f16, [16]>) -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{astype changes only the element type, but the shape changes from [16] to [4, 4]}}
  %c = tile.astype %a : !tile.tile<f32, [16]> -> !tile.tile<f16, [4, 4]>
  tile.return
}

// -----

// tile.constant, tile.full, tile.iota, tile.extract

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{constant value of type tensor<8xf32> does not match !tile.tile<f32, [16]>}}
  %a = "tile.constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{constant value of type tensor<16xf16> does not match !tile.tile<f32, [16]>}}
  %a = "tile.constant"() <{value = dense<1.0> : tensor<16xf16>}> : () -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{tile.constant builds a !tile.tile, found tensor<16xf32>}}
  %a = tile.constant dense<1.0> : tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{Shape mismatch in dense literal. Expected [4] shape from the type, but got [2] shape.}}
  %a = tile.constant dense<[1.0, 2.0]> : !tile.tile<f32, [4]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>, %a: f16) {
  // expected-error@+1 {{full value of type f16 does not match the tile's element type f32}}
  %t = tile.full %a : f16 -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{tile.iota builds a rank-1 tile, found !tile.tile<i32, [4, 4]>}}
  %t = tile.iota : !tile.tile<i32, [4, 4]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{tile.iota needs a float or integer element type (not i1), found i1}}
  %t = tile.iota : !tile.tile<i1, [2]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  // expected-error@+1 {{tile.iota of 256 elements does not fit in i8}}
  %t = tile.iota : !tile.tile<i8, [256]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [1]>
  // expected-error@+1 {{tile.extract needs a rank-0 tile, found !tile.tile<f32, [1]> (reshape it first)}}
  %s = tile.extract %t : !tile.tile<f32, [1]> -> f32
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, []>
  // expected-error@+1 {{tile.extract result must be the element type f32, found f16}}
  %s = tile.extract %t : !tile.tile<f32, []> -> f16
  tile.return
}

// -----

// Shape ops

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [4, 8]>
  // expected-error@+1 {{cannot broadcast [4, 8] to [8, 8]}}
  %b = tile.broadcast %t : !tile.tile<f32, [4, 8]> -> !tile.tile<f32, [8, 8]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{cannot broadcast [16] to [16, 1]}}
  %b = tile.broadcast %t : !tile.tile<f32, [16]> -> !tile.tile<f32, [16, 1]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [1, 16]>
  // expected-error@+1 {{cannot broadcast [1, 16] to [16]}}
  %b = tile.broadcast %t : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [1]>
  // expected-error@+1 {{tile.broadcast keeps the element type, but it changes from f32 to f16 (use tile.astype)}}
  %b = tile.broadcast %t : !tile.tile<f32, [1]> -> !tile.tile<f16, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 4]>
  // expected-error@+1 {{cannot reshape [16, 4] (64 elements) to [32, 4] (128 elements)}}
  %r = tile.reshape %t : !tile.tile<f32, [16, 4]> -> !tile.tile<f32, [32, 4]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [4, 4, 4]>
  // expected-error@+1 {{tile.transpose needs a rank-2 tile, found [4, 4, 4] (use tile.permute)}}
  %r = tile.transpose %t : !tile.tile<f32, [4, 4, 4]> -> !tile.tile<f32, [4, 4, 4]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 32]>
  // expected-error@+1 {{transpose of [16, 32] is [32, 16], found [16, 32]}}
  %r = tile.transpose %t : !tile.tile<f32, [16, 32]> -> !tile.tile<f32, [16, 32]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [2, 4]>
  // expected-error@+1 {{[0, 0] is not a permutation of the 2 axes of [2, 4]}}
  %r = tile.permute %t [0, 0] : !tile.tile<f32, [2, 4]> -> !tile.tile<f32, [2, 2]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [2, 4, 8]>
  // expected-error@+1 {{permute [2, 0, 1] of [2, 4, 8] is [8, 2, 4], found [8, 4, 2]}}
  %r = tile.permute %t [2, 0, 1] : !tile.tile<f32, [2, 4, 8]> -> !tile.tile<f32, [8, 4, 2]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [2, 4]>
  // expected-error@+1 {{tile.permute keeps the element type, but it changes from f32 to i32 (use tile.astype)}}
  %r = tile.permute %t [1, 0] : !tile.tile<f32, [2, 4]> -> !tile.tile<i32, [4, 2]>
  tile.return
}

// -----

// Reductions

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  // expected-error@+1 {{reduce axis 2 is out of range for rank 2}}
  %r = tile.reduce_sum %t axis = 2 : !tile.tile<f32, [16, 8]> -> !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  // expected-error@+1 {{tile.reduce_max of [16, 8] along axis 1 is !tile.tile<f32, [16]>, found !tile.tile<f32, [16, 1]>}}
  %r = tile.reduce_max %t axis = 1 : !tile.tile<f32, [16, 8]> -> !tile.tile<f32, [16, 1]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  // expected-error@+1 {{tile.reduce_min of [16, 8] along axis 0 is !tile.tile<f32, [1, 8]>, found !tile.tile<f32, [8]>}}
  %r = tile.reduce_min %t axis = 0 keepdims : !tile.tile<f32, [16, 8]> -> !tile.tile<f32, [8]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  // expected-error@+1 {{tile.reduce_sum of [16, 8] along axis 1 is !tile.tile<f32, [16]>, found !tile.tile<f16, [16]>}}
  %r = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 8]> -> !tile.tile<f16, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %t = tile.constant dense<true> : !tile.tile<i1, [16]>
  // expected-error@+1 {{tile.reduce_prod needs a float or integer element type (not i1), found i1}}
  %r = tile.reduce_prod %t axis = 0 : !tile.tile<i1, [16]> -> !tile.tile<i1, []>
  tile.return
}

// -----

// tile.mma

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %a = tile.constant dense<1.0> : !tile.tile<f32, [16]>
  // expected-error@+1 {{mma x must be a rank-2 tile, found [16]}}
  %m = tile.mma %a, %a, %a : !tile.tile<f32, [16]>, !tile.tile<f32, [16]>, !tile.tile<f32, [16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1> : !tile.tile<i32, [16, 16]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [16, 16]>
  // expected-error@+1 {{mma inputs must be f16, bf16 or f32, found i32}}
  %m = tile.mma %x, %x, %acc : !tile.tile<i32, [16, 16]>, !tile.tile<i32, [16, 16]>, !tile.tile<f32, [16, 16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1.0> : !tile.tile<bf16, [16, 16]>
  %y = tile.constant dense<1.0> : !tile.tile<f16, [16, 16]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [16, 16]>
  // expected-error@+1 {{mma inputs must have the same element type, found bf16 and f16}}
  %m = tile.mma %x, %y, %acc : !tile.tile<bf16, [16, 16]>, !tile.tile<f16, [16, 16]>, !tile.tile<f32, [16, 16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1.0> : !tile.tile<f16, [16, 16]>
  %acc = tile.constant dense<0.0> : !tile.tile<f16, [16, 16]>
  // expected-error@+1 {{mma accumulator must be f32, found f16}}
  %m = tile.mma %x, %x, %acc : !tile.tile<f16, [16, 16]>, !tile.tile<f16, [16, 16]>, !tile.tile<f16, [16, 16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  %y = tile.constant dense<1.0> : !tile.tile<f32, [16, 32]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [16, 32]>
  // expected-error@+1 {{mma inner dimensions do not match: x is [16, 8], y is [16, 32]}}
  %m = tile.mma %x, %y, %acc : !tile.tile<f32, [16, 8]>, !tile.tile<f32, [16, 32]>, !tile.tile<f32, [16, 32]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1.0> : !tile.tile<f32, [16, 8]>
  %y = tile.constant dense<1.0> : !tile.tile<f32, [8, 32]>
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [16, 16]>
  // expected-error@+1 {{mma accumulator must be [16, 32] for x [16, 8] and y [8, 32], found [16, 16]}}
  %m = tile.mma %x, %y, %acc : !tile.tile<f32, [16, 8]>, !tile.tile<f32, [8, 32]>, !tile.tile<f32, [16, 16]>
  tile.return
}

// -----

tile.kernel @k(%out: !tile.partition<f32, [16]>) {
  %x = tile.constant dense<1.0> : !tile.tile<f32, [16, 16]>
  // expected-error@+1 {{tile.mma accumulator and result must have the same type, found !tile.tile<f32, [16, 16]>, !tile.tile<f32, [16, 8]>}}
  %m = "tile.mma"(%x, %x, %x) : (!tile.tile<f32, [16, 16]>, !tile.tile<f32, [16, 16]>, !tile.tile<f32, [16, 16]>) -> !tile.tile<f32, [16, 8]>
  tile.return
}
