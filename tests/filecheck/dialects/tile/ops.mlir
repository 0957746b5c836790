// Round trip of every tile type and op, in the custom and the generic form.
// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Parameters: output partitions (several; the first fixes the grid), input tensors with static
// and dynamic dims, scalars.
// doc:begin kernel
tile.kernel @signature(%out: !tile.partition<f32, [16, 128]>, %aux: !tile.partition<i32, [8, 2]>, %x: !tile.tensor<bf16, [?, 4096]>, %w: !tile.tensor<f16, [64]>, %alpha: f32, %n: i32, %m: index) attributes {note = "any attributes"} {
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @signature(%out: !tile.partition<f32, [16, 128]>, %aux: !tile.partition<i32, [8, 2]>, %x: !tile.tensor<bf16, [?, 4096]>, %w: !tile.tensor<f16, [64]>, %alpha: f32, %n: i32, %m: index) attributes {note = "any attributes"} {
// CHECK-NEXT:    tile.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "tile.kernel"() <{sym_name = "signature"}> ({
// GENERIC-NEXT:  ^bb0(%out: !tile.partition<f32, [16, 128]>, %aux: !tile.partition<i32, [8, 2]>, %x: !tile.tensor<bf16, [?, 4096]>, %w: !tile.tensor<f16, [64]>, %alpha: f32, %n: i32, %m: index):
// GENERIC-NEXT:    "tile.return"() : () -> ()
// GENERIC-NEXT:  }) {note = "any attributes"} : () -> ()

// doc:begin grid
tile.kernel @grid(%out: !tile.partition<f32, [4, 4, 4]>) {
  %bx = tile.block_id 0
  %by = tile.block_id 1
  %bz = tile.block_id 2
  %nx = tile.num_blocks 0
  %ny = tile.num_blocks 1
  %nz = tile.num_blocks 2
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @grid(
// CHECK-NEXT:    %bx = tile.block_id 0
// CHECK-NEXT:    %by = tile.block_id 1
// CHECK-NEXT:    %bz = tile.block_id 2
// CHECK-NEXT:    %nx = tile.num_blocks 0
// CHECK-NEXT:    %ny = tile.num_blocks 1
// CHECK-NEXT:    %nz = tile.num_blocks 2
// GENERIC:       %bz = "tile.block_id"() <{axis = 2 : i64}> : () -> index
// GENERIC:       %nz = "tile.num_blocks"() <{axis = 2 : i64}> : () -> index

// A grid order: CUDA grid axis x walks tile-grid axis 1, y axis 0, z axis 2. The identity is the
// default and prints as nothing.
// doc:begin grid_order
tile.kernel @grid_order(%out: !tile.partition<f32, [1, 128, 64]>) grid_order [1, 0, 2] {
  %b = tile.block_id 0
  tile.return
}
// doc:end
tile.kernel @identity_order(%out: !tile.partition<f32, [4, 4]>) grid_order [0, 1] {
  tile.return
}

// CHECK-LABEL: tile.kernel @grid_order(%out: !tile.partition<f32, [1, 128, 64]>) grid_order [1, 0, 2] {
// CHECK-LABEL: tile.kernel @identity_order(%out: !tile.partition<f32, [4, 4]>) {
// GENERIC:       "tile.kernel"() <{sym_name = "grid_order", grid_order = array<i64: 1, 0, 2>}>

// A grid reversal: tile-grid axis 1 walked last tile first (block b takes tile n - 1 - b), with
// an order or alone. A reversal of no axis prints as nothing.
tile.kernel @reversed(%out: !tile.partition<f32, [1, 128, 64]>) grid_order [1, 0, 2] grid_reverse [1] {
  tile.return
}
tile.kernel @reversed_alone(%out: !tile.partition<f32, [4, 4]>) grid_reverse [0, 1] {
  tile.return
}
tile.kernel @reversed_none(%out: !tile.partition<f32, [4, 4]>) grid_reverse [] {
  tile.return
}

// CHECK-LABEL: tile.kernel @reversed(%out: !tile.partition<f32, [1, 128, 64]>) grid_order [1, 0, 2] grid_reverse [1] {
// CHECK-LABEL: tile.kernel @reversed_alone(%out: !tile.partition<f32, [4, 4]>) grid_reverse [0, 1] {
// CHECK-LABEL: tile.kernel @reversed_none(%out: !tile.partition<f32, [4, 4]>) {
// GENERIC:       "tile.kernel"() <{sym_name = "reversed", grid_order = array<i64: 1, 0, 2>, grid_reverse = array<i64: 1>}>

// doc:begin memory
tile.kernel @memory(%out: !tile.partition<f32, [16, 32]>, %x: !tile.tensor<f32, [?, ?]>, %v: !tile.tensor<i8, [?, 100]>) {
  %rows = tile.dim %x, 0 : !tile.tensor<f32, [?, ?]>
  %width = tile.dim %out, 1 : !tile.partition<f32, [16, 32]>
  %i = tile.block_id 0
  %j = tile.block_id 1
  %a = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
  %b = tile.load %x[%j, %i] padding = neg_inf : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
  %c = tile.load %x[%i, %i] padding = pos_inf : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 8]>
  %d = tile.load %x[%j, %j] padding = nan : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [1, 64]>
  %e = tile.load %v[%i, %j] : !tile.tensor<i8, [?, 100]> -> !tile.tile<i8, [2, 128]>
  %f = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [16, 32]> -> !tile.tile<f32, [16, 32]>
  %g = tile.load_like %v, %out padding = zero : !tile.tensor<i8, [?, 100]>, !tile.partition<f32, [16, 32]> -> !tile.tile<i8, [16, 32]>
  tile.store %a, %out : !tile.tile<f32, [16, 32]>, !tile.partition<f32, [16, 32]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @memory(
// CHECK-NEXT:    %rows = tile.dim %x, 0 : !tile.tensor<f32, [?, ?]>
// CHECK-NEXT:    %width = tile.dim %out, 1 : !tile.partition<f32, [16, 32]>
// CHECK:         %a = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
// CHECK-NEXT:    %b = tile.load %x[%j, %i] padding = neg_inf : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
// CHECK-NEXT:    %c = tile.load %x[%i, %i] padding = pos_inf : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 8]>
// CHECK-NEXT:    %d = tile.load %x[%j, %j] padding = nan : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [1, 64]>
// CHECK-NEXT:    %e = tile.load %v[%i, %j] : !tile.tensor<i8, [?, 100]> -> !tile.tile<i8, [2, 128]>
// CHECK-NEXT:    %f = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [16, 32]> -> !tile.tile<f32, [16, 32]>
// The default padding (zero) is not printed.
// CHECK-NEXT:    %g = tile.load_like %v, %out : !tile.tensor<i8, [?, 100]>, !tile.partition<f32, [16, 32]> -> !tile.tile<i8, [16, 32]>
// CHECK-NEXT:    tile.store %a, %out : !tile.tile<f32, [16, 32]>, !tile.partition<f32, [16, 32]>
// GENERIC:       %rows = "tile.dim"(%x) <{axis = 0 : i64}> : (!tile.tensor<f32, [?, ?]>) -> index
// GENERIC:       %a = "tile.load"(%x, %i, %j) : (!tile.tensor<f32, [?, ?]>, index, index) -> !tile.tile<f32, [16, 32]>
// GENERIC-NEXT:  %b = "tile.load"(%x, %j, %i) <{padding = #tile<padding neg_inf>}> : (!tile.tensor<f32, [?, ?]>, index, index) -> !tile.tile<f32, [16, 32]>
// GENERIC:       %f = "tile.load_like"(%x, %out) : (!tile.tensor<f32, [?, ?]>, !tile.partition<f32, [16, 32]>) -> !tile.tile<f32, [16, 32]>
// GENERIC-NEXT:  %g = "tile.load_like"(%v, %out) <{padding = #tile<padding zero>}> : (!tile.tensor<i8, [?, 100]>, !tile.partition<f32, [16, 32]>) -> !tile.tile<i8, [16, 32]>
// GENERIC:       "tile.store"(%a, %out) : (!tile.tile<f32, [16, 32]>, !tile.partition<f32, [16, 32]>) -> ()

// doc:begin elementwise
tile.kernel @elementwise(%out: !tile.partition<f32, [64]>, %x: !tile.tensor<f32, [?]>, %k: !tile.tensor<i32, [?]>) {
  %a = tile.load_like %x, %out : !tile.tensor<f32, [?]>, !tile.partition<f32, [64]> -> !tile.tile<f32, [64]>
  %n = tile.load_like %k, %out : !tile.tensor<i32, [?]>, !tile.partition<f32, [64]> -> !tile.tile<i32, [64]>
  %add = tile.add %a, %a : !tile.tile<f32, [64]>
  %sub = tile.sub %a, %add : !tile.tile<f32, [64]>
  %mul = tile.mul %a, %sub : !tile.tile<f32, [64]>
  %div = tile.div %a, %mul : !tile.tile<f32, [64]>
  %max = tile.maximum %a, %div : !tile.tile<f32, [64]>
  %min = tile.minimum %a, %max : !tile.tile<f32, [64]>
  %iadd = tile.add %n, %n : !tile.tile<i32, [64]>
  %imax = tile.maximum %n, %iadd : !tile.tile<i32, [64]>
  %neg = tile.neg %a : !tile.tile<f32, [64]>
  %ineg = tile.neg %n : !tile.tile<i32, [64]>
  %exp = tile.exp %a : !tile.tile<f32, [64]>
  %exp2 = tile.exp2 %a : !tile.tile<f32, [64]>
  %exp2f = tile.exp2 %a {ftz} : !tile.tile<f32, [64]>
  %log = tile.log %a : !tile.tile<f32, [64]>
  %sqrt = tile.sqrt %a : !tile.tile<f32, [64]>
  %rsqrt = tile.rsqrt %a : !tile.tile<f32, [64]>
  %tanh = tile.tanh %a : !tile.tile<f32, [64]>
  %fma = tile.fma %a, %exp, %tanh : !tile.tile<f32, [64]>
  %eq = tile.cmp eq, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
  %ne = tile.cmp ne, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
  %lt = tile.cmp lt, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
  %le = tile.cmp le, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
  %gt = tile.cmp gt, %n, %ineg : !tile.tile<i32, [64]> -> !tile.tile<i1, [64]>
  %ge = tile.cmp ge, %n, %ineg : !tile.tile<i32, [64]> -> !tile.tile<i1, [64]>
  %sel = tile.select %lt, %a, %tanh : !tile.tile<i1, [64]>, !tile.tile<f32, [64]>
  %h = tile.astype %sel : !tile.tile<f32, [64]> -> !tile.tile<bf16, [64]>
  %i = tile.astype %sel : !tile.tile<f32, [64]> -> !tile.tile<i32, [64]>
  %f = tile.astype %ge : !tile.tile<i1, [64]> -> !tile.tile<f32, [64]>
  tile.store %f, %out : !tile.tile<f32, [64]>, !tile.partition<f32, [64]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @elementwise(
// CHECK:         %add = tile.add %a, %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %sub = tile.sub %a, %add : !tile.tile<f32, [64]>
// CHECK-NEXT:    %mul = tile.mul %a, %sub : !tile.tile<f32, [64]>
// CHECK-NEXT:    %div = tile.div %a, %mul : !tile.tile<f32, [64]>
// CHECK-NEXT:    %max = tile.maximum %a, %div : !tile.tile<f32, [64]>
// CHECK-NEXT:    %min = tile.minimum %a, %max : !tile.tile<f32, [64]>
// CHECK-NEXT:    %iadd = tile.add %n, %n : !tile.tile<i32, [64]>
// CHECK-NEXT:    %imax = tile.maximum %n, %iadd : !tile.tile<i32, [64]>
// CHECK-NEXT:    %neg = tile.neg %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %ineg = tile.neg %n : !tile.tile<i32, [64]>
// CHECK-NEXT:    %exp = tile.exp %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %exp2 = tile.exp2 %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %exp2f = tile.exp2 %a {ftz} : !tile.tile<f32, [64]>
// CHECK-NEXT:    %log = tile.log %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %sqrt = tile.sqrt %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %rsqrt = tile.rsqrt %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %tanh = tile.tanh %a : !tile.tile<f32, [64]>
// CHECK-NEXT:    %fma = tile.fma %a, %exp, %tanh : !tile.tile<f32, [64]>
// CHECK-NEXT:    %eq = tile.cmp eq, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %ne = tile.cmp ne, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %lt = tile.cmp lt, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %le = tile.cmp le, %a, %min : !tile.tile<f32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %gt = tile.cmp gt, %n, %ineg : !tile.tile<i32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %ge = tile.cmp ge, %n, %ineg : !tile.tile<i32, [64]> -> !tile.tile<i1, [64]>
// CHECK-NEXT:    %sel = tile.select %lt, %a, %tanh : !tile.tile<i1, [64]>, !tile.tile<f32, [64]>
// CHECK-NEXT:    %h = tile.astype %sel : !tile.tile<f32, [64]> -> !tile.tile<bf16, [64]>
// CHECK-NEXT:    %i = tile.astype %sel : !tile.tile<f32, [64]> -> !tile.tile<i32, [64]>
// CHECK-NEXT:    %f = tile.astype %ge : !tile.tile<i1, [64]> -> !tile.tile<f32, [64]>
// GENERIC:       %add = "tile.add"(%a, %a) : (!tile.tile<f32, [64]>, !tile.tile<f32, [64]>) -> !tile.tile<f32, [64]>
// GENERIC:       %exp = "tile.exp"(%a) : (!tile.tile<f32, [64]>) -> !tile.tile<f32, [64]>
// GENERIC:       %lt = "tile.cmp"(%a, %min) <{predicate = #tile<cmp_predicate lt>}> : (!tile.tile<f32, [64]>, !tile.tile<f32, [64]>) -> !tile.tile<i1, [64]>
// GENERIC:       %sel = "tile.select"(%lt, %a, %tanh) : (!tile.tile<i1, [64]>, !tile.tile<f32, [64]>, !tile.tile<f32, [64]>) -> !tile.tile<f32, [64]>

// doc:begin creation
tile.kernel @creation(%out: !tile.partition<f32, [4]>, %alpha: f32, %n: i32) {
  %splat = tile.constant dense<0.5> : !tile.tile<f32, [4]>
  %list = tile.constant dense<[1.0, 2.0, 3.0, 4.0]> : !tile.tile<f32, [4]>
  %matrix = tile.constant dense<[[1, 2], [3, 4]]> : !tile.tile<i32, [2, 2]>
  %flags = tile.constant dense<[true, false]> : !tile.tile<i1, [2]>
  %scalar = tile.constant dense<2.0> : !tile.tile<bf16, []>
  %full = tile.full %alpha : f32 -> !tile.tile<f32, [4]>
  %nfull = tile.full %n : i32 -> !tile.tile<i32, [8, 8]>
  %iota = tile.iota : !tile.tile<i32, [4]>
  %fiota = tile.iota : !tile.tile<f32, [128]>
  %one = tile.constant dense<1.0> : !tile.tile<f32, []>
  %x = tile.extract %one : !tile.tile<f32, []> -> f32
  tile.store %list, %out : !tile.tile<f32, [4]>, !tile.partition<f32, [4]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @creation(
// CHECK-NEXT:    %splat = tile.constant dense<5.000000e-01> : !tile.tile<f32, [4]>
// CHECK-NEXT:    %list = tile.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : !tile.tile<f32, [4]>
// CHECK-NEXT:    %matrix = tile.constant dense<{{\[\[}}1, 2], [3, 4]]> : !tile.tile<i32, [2, 2]>
// CHECK-NEXT:    %flags = tile.constant dense<[true, false]> : !tile.tile<i1, [2]>
// CHECK-NEXT:    %scalar = tile.constant dense<2.000000e+00> : !tile.tile<bf16, []>
// CHECK-NEXT:    %full = tile.full %alpha : f32 -> !tile.tile<f32, [4]>
// CHECK-NEXT:    %nfull = tile.full %n : i32 -> !tile.tile<i32, [8, 8]>
// CHECK-NEXT:    %iota = tile.iota : !tile.tile<i32, [4]>
// CHECK-NEXT:    %fiota = tile.iota : !tile.tile<f32, [128]>
// CHECK-NEXT:    %one = tile.constant dense<1.000000e+00> : !tile.tile<f32, []>
// CHECK-NEXT:    %x = tile.extract %one : !tile.tile<f32, []> -> f32
// GENERIC:       %list = "tile.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> !tile.tile<f32, [4]>
// GENERIC:       %scalar = "tile.constant"() <{value = dense<2.000000e+00> : tensor<bf16>}> : () -> !tile.tile<bf16, []>
// GENERIC:       %iota = "tile.iota"() : () -> !tile.tile<i32, [4]>

// A constant of more than 100 distinct elements prints as hex and reads back.
tile.kernel @big_constant(%out: !tile.partition<i8, [128]>) {
  %c = tile.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : !tile.tile<i8, [128]>
  tile.store %c, %out : !tile.tile<i8, [128]>, !tile.partition<i8, [128]>
  tile.return
}

// CHECK-LABEL: tile.kernel @big_constant(
// CHECK-NEXT:    %c = tile.constant dense<"0x000102030405060708090A0B0C0D0E0F{{[0-9A-F]+}}7E7F"> : !tile.tile<i8, [128]>

// doc:begin shape
tile.kernel @shape(%out: !tile.partition<f32, [8, 16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [8, 16]> -> !tile.tile<f32, [8, 16]>
  %row = tile.reduce_max %t axis = 0 keepdims : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [1, 16]>
  %rows = tile.broadcast %row : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [8, 16]>
  %batched = tile.broadcast %row : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [2, 8, 16]>
  %flat = tile.reshape %t : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [128]>
  %cube = tile.reshape %flat : !tile.tile<f32, [128]> -> !tile.tile<f32, [2, 4, 16]>
  %tt = tile.transpose %t : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [16, 8]>
  %perm = tile.permute %cube [2, 0, 1] : !tile.tile<f32, [2, 4, 16]> -> !tile.tile<f32, [16, 2, 4]>
  tile.store %rows, %out : !tile.tile<f32, [8, 16]>, !tile.partition<f32, [8, 16]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @shape(
// CHECK:         %rows = tile.broadcast %row : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [8, 16]>
// CHECK-NEXT:    %batched = tile.broadcast %row : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [2, 8, 16]>
// CHECK-NEXT:    %flat = tile.reshape %t : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [128]>
// CHECK-NEXT:    %cube = tile.reshape %flat : !tile.tile<f32, [128]> -> !tile.tile<f32, [2, 4, 16]>
// CHECK-NEXT:    %tt = tile.transpose %t : !tile.tile<f32, [8, 16]> -> !tile.tile<f32, [16, 8]>
// CHECK-NEXT:    %perm = tile.permute %cube [2, 0, 1] : !tile.tile<f32, [2, 4, 16]> -> !tile.tile<f32, [16, 2, 4]>
// GENERIC:       %perm = "tile.permute"(%cube) <{permutation = array<i64: 2, 0, 1>}> : (!tile.tile<f32, [2, 4, 16]>) -> !tile.tile<f32, [16, 2, 4]>

// doc:begin reduction
tile.kernel @reduction(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>, %k: !tile.tensor<i32, [?, ?]>) {
  %i = tile.block_id 0
  %t = tile.load %x[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
  %n = tile.load %k[%i, %i] : !tile.tensor<i32, [?, ?]> -> !tile.tile<i32, [16, 128]>
  %sum = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
  %prod = tile.reduce_prod %t axis = 0 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [128]>
  %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16, 1]>
  %min = tile.reduce_min %n axis = 0 keepdims : !tile.tile<i32, [16, 128]> -> !tile.tile<i32, [1, 128]>
  %all = tile.reduce_sum %sum axis = 0 : !tile.tile<f32, [16]> -> !tile.tile<f32, []>
  tile.store %sum, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @reduction(
// CHECK:         %sum = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
// CHECK-NEXT:    %prod = tile.reduce_prod %t axis = 0 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [128]>
// CHECK-NEXT:    %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16, 1]>
// CHECK-NEXT:    %min = tile.reduce_min %n axis = 0 keepdims : !tile.tile<i32, [16, 128]> -> !tile.tile<i32, [1, 128]>
// CHECK-NEXT:    %all = tile.reduce_sum %sum axis = 0 : !tile.tile<f32, [16]> -> !tile.tile<f32, []>
// GENERIC:       %sum = "tile.reduce_sum"(%t) <{axis = 1 : i64}> : (!tile.tile<f32, [16, 128]>) -> !tile.tile<f32, [16]>
// GENERIC:       %max = "tile.reduce_max"(%t) <{axis = 1 : i64, keepdims}> : (!tile.tile<f32, [16, 128]>) -> !tile.tile<f32, [16, 1]>

// doc:begin mma
tile.kernel @mma(%out: !tile.partition<f32, [32, 16]>, %h: !tile.tensor<f16, [?, ?]>, %b: !tile.tensor<bf16, [?, ?]>, %f: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %acc = tile.constant dense<0.0> : !tile.tile<f32, [32, 16]>
  %hx = tile.load %h[%i, %i] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [32, 64]>
  %hy = tile.load %h[%i, %i] : !tile.tensor<f16, [?, ?]> -> !tile.tile<f16, [64, 16]>
  %bx = tile.load %b[%i, %i] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [32, 16]>
  %by = tile.load %b[%i, %i] : !tile.tensor<bf16, [?, ?]> -> !tile.tile<bf16, [16, 16]>
  %fx = tile.load %f[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [32, 8]>
  %fy = tile.load %f[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 16]>
  %c1 = tile.mma %hx, %hy, %acc : !tile.tile<f16, [32, 64]>, !tile.tile<f16, [64, 16]>, !tile.tile<f32, [32, 16]>
  %c2 = tile.mma %bx, %by, %c1 : !tile.tile<bf16, [32, 16]>, !tile.tile<bf16, [16, 16]>, !tile.tile<f32, [32, 16]>
  %c3 = tile.mma %fx, %fy, %c2 : !tile.tile<f32, [32, 8]>, !tile.tile<f32, [8, 16]>, !tile.tile<f32, [32, 16]>
  tile.store %c3, %out : !tile.tile<f32, [32, 16]>, !tile.partition<f32, [32, 16]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @mma(
// CHECK:         %c1 = tile.mma %hx, %hy, %acc : !tile.tile<f16, [32, 64]>, !tile.tile<f16, [64, 16]>, !tile.tile<f32, [32, 16]>
// CHECK-NEXT:    %c2 = tile.mma %bx, %by, %c1 : !tile.tile<bf16, [32, 16]>, !tile.tile<bf16, [16, 16]>, !tile.tile<f32, [32, 16]>
// CHECK-NEXT:    %c3 = tile.mma %fx, %fy, %c2 : !tile.tile<f32, [32, 8]>, !tile.tile<f32, [8, 16]>, !tile.tile<f32, [32, 16]>
// GENERIC:       %c1 = "tile.mma"(%hx, %hy, %acc) : (!tile.tile<f16, [32, 64]>, !tile.tile<f16, [64, 16]>, !tile.tile<f32, [32, 16]>) -> !tile.tile<f32, [32, 16]>

// Control flow is scf: tiles are loop-carried values and scf.if results.
// doc:begin control_flow
tile.kernel @control_flow(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?]>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %i = tile.block_id 0
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
    %t = tile.load %x[%k] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
    %next = tile.add %acc, %t : !tile.tile<f32, [16]>
    scf.yield %next : !tile.tile<f32, [16]>
  }
  %first = arith.cmpi eq, %i, %c0 : index
  %r = scf.if %first -> (!tile.tile<f32, [16]>) {
    scf.yield %sum : !tile.tile<f32, [16]>
  } else {
    scf.yield %zero : !tile.tile<f32, [16]>
  }
  tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
// doc:end

// CHECK-LABEL: tile.kernel @control_flow(
// CHECK:         %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
// CHECK-NEXT:      %t = tile.load %x[%k] : !tile.tensor<f32, [?]> -> !tile.tile<f32, [16]>
// CHECK-NEXT:      %next = tile.add %acc, %t : !tile.tile<f32, [16]>
// CHECK-NEXT:      scf.yield %next : !tile.tile<f32, [16]>
// CHECK-NEXT:    }
// CHECK:         %r = scf.if %first -> (!tile.tile<f32, [16]>) {
// CHECK-NEXT:      scf.yield %sum : !tile.tile<f32, [16]>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %zero : !tile.tile<f32, [16]>
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
