// RUN: ferrox-opt %s | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every host op and type round-trips: custom -> custom, and through the generic form.

// CHECK: simt.kernel @vecadd
simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256]> {
  simt.return
}

// CHECK: tile.kernel @add
tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  tile.return
}

// CHECK-LABEL: func.func @main
func.func @main() {
  // CHECK: %n = host.param "n" = 1024 : index
  %n = host.param "n" = 1024 : index
  // CHECK: %alpha = host.param "alpha" = 2.500000e+00 : f32
  %alpha = host.param "alpha" = 2.5 : f32
  // CHECK: %z = host.zeros : !host.tensor<f32, [1024]>
  %z = host.zeros : !host.tensor<f32, [1024]>
  // CHECK: %zd = host.zeros(%n) : !host.tensor<i32, [?, 4]>
  %zd = host.zeros(%n) : !host.tensor<i32, [?, 4]>
  // CHECK: %one = arith.constant 1.000000e+00 : f32
  %one = arith.constant 1.0 : f32
  // CHECK: %f = host.full %one : f32 -> !host.tensor<f32, [8]>
  %f = host.full %one : f32 -> !host.tensor<f32, [8]>
  // CHECK: %fd = host.full %one (%n) : f32 -> !host.tensor<f32, [?]>
  %fd = host.full %one (%n) : f32 -> !host.tensor<f32, [?]>
  // CHECK: %r0 = host.arange : !host.tensor<f32, [8]>
  %r0 = host.arange : !host.tensor<f32, [8]>
  // CHECK: %r1 = host.arange start 1.000000e+00 step 2.500000e+00 (%n) : !host.tensor<f64, [?]>
  %r1 = host.arange start 1.0 step 2.5 (%n) : !host.tensor<f64, [?]>
  // CHECK: %u = host.random uniform(-1.000000e+00, 1.000000e+00) seed 42 : !host.tensor<f32, [1024]>
  %u = host.random uniform(-1.0, 1.0) seed 42 : !host.tensor<f32, [1024]>
  // CHECK: %g = host.random normal(0.000000e+00, 2.000000e+00) seed 7 (%n) : !host.tensor<f16, [?]>
  %g = host.random normal(0.0, 2.0) seed 7 (%n) : !host.tensor<f16, [?]>
  // CHECK: %x = host.from_array 0 : !host.tensor<f32, [?]>
  %x = host.from_array 0 : !host.tensor<f32, [?]>
  // CHECK: %c = host.poison : !host.tensor<f32, [1024]>
  %c = host.poison : !host.tensor<f32, [1024]>
  // CHECK: %cd = host.poison(%n) : !host.tensor<f32, [?]>
  %cd = host.poison(%n) : !host.tensor<f32, [?]>

  // CHECK: %s = host.stream
  %s = host.stream
  %grid = arith.constant 4 : index
  %block = arith.constant 256 : index
  // CHECK: %p = host.prepare @vecadd grid(%grid) block(%block) args(%u, %z, %c, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index)
  %p = host.prepare @vecadd grid(%grid) block(%block) args(%u, %z, %c, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index)
  // CHECK: %p3 = host.prepare @vecadd grid(%grid, %one_i, %one_i) block(%block, %one_i) shared(%grid) args(%u, %z, %c, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index)
  %one_i = arith.constant 1 : index
  %p3 = host.prepare @vecadd grid(%grid, %one_i, %one_i) block(%block, %one_i) shared(%grid) args(%u, %z, %c, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index)
  // CHECK: %c2 = host.launch @vecadd with %p on %s ins(%u, %z, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index) outs(%c : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
  %c2 = host.launch @vecadd with %p on %s ins(%u, %z, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index) outs(%c : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
  // CHECK: %c3 = host.unsafe_launch @vecadd grid(%grid) block(%block) shared(%grid) on %s ins(%u, %z, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index) outs(%c2 : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
  %c3 = host.unsafe_launch @vecadd grid(%grid) block(%block) shared(%grid) on %s ins(%u, %z, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index) outs(%c2 : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>

  // CHECK: %pz = host.partition %cd : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [128]>
  %pz = host.partition %cd : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [128]>
  // CHECK: %pz2 = host.tile_launch @add on %s ins(%x, %fd : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [128]>) -> !host.partition<f32, [?], [128]>
  %pz2 = host.tile_launch @add on %s ins(%x, %fd : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [128]>) -> !host.partition<f32, [?], [128]>
  // CHECK: %zt = host.unpartition %pz2 : !host.partition<f32, [?], [128]> -> !host.tensor<f32, [?]>
  %zt = host.unpartition %pz2 : !host.partition<f32, [?], [128]> -> !host.tensor<f32, [?]>
  // CHECK: host.sync_on %s
  host.sync_on %s

  // CHECK: host.check %c3, %u : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>
  host.check %c3, %u : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>
  // CHECK: host.check %c3, "2 * (a + b)" (a = %u : !host.tensor<f32, [1024]>, b = %z : !host.tensor<f32, [1024]>) rtol 1.000000e-05 atol 1.000000e-06 : !host.tensor<f32, [1024]>
  host.check %c3, "2 * (a + b)" (a = %u : !host.tensor<f32, [1024]>, b = %z : !host.tensor<f32, [1024]>) rtol 1.0e-05 atol 1.0e-06 : !host.tensor<f32, [1024]>
  // CHECK: host.check %zt, "np.where(x > 0, x, alpha * x)" (x = %x : !host.tensor<f32, [?]>, alpha = %alpha : f32) : !host.tensor<f32, [?]>
  host.check %zt, "np.where(x > 0, x, alpha * x)" (x = %x : !host.tensor<f32, [?]>, alpha = %alpha : f32) : !host.tensor<f32, [?]>
  // CHECK: host.print "z = " %zd : !host.tensor<i32, [?, 4]>
  host.print "z = " %zd : !host.tensor<i32, [?, 4]>
  // CHECK: host.print %n : index
  host.print %n : index
  func.return
}

// GENERIC: "host.zeros"() : () -> !host.tensor<f32, [1024]>
// GENERIC: "host.arange"() <{start = 0.000000e+00 : f64, step = 1.000000e+00 : f64}> : () -> !host.tensor<f32, [8]>
// GENERIC: "host.random"() <{distribution = #host<distribution uniform>, low = -1.000000e+00 : f64, high = 1.000000e+00 : f64, seed = 42 : i64}>
// GENERIC: "host.stream"() : () -> !host.stream
// GENERIC: "host.prepare"(%grid, %block, %u, %z, %c, %n) <{kernel = @vecadd, operandSegmentSizes = array<i32: 1, 1, 0, 4>}> : {{.*}} -> !host.prepared<@vecadd>
// GENERIC: "host.launch"(%p, %s, %u, %z, %n, %c) <{kernel = @vecadd, operandSegmentSizes = array<i32: 1, 1, 3, 1>}>
// GENERIC: "host.tile_launch"(%s, %x, %fd, %pz) <{kernel = @add, operandSegmentSizes = array<i32: 1, 2, 1>}>
// GENERIC: "host.check"(%zt, %x, %alpha) <{formula = "np.where(x > 0, x, alpha * x)", names = ["x", "alpha"], operandSegmentSizes = array<i32: 1, 0, 2>}>
