// RUN: ferrox-opt %s -p verify-ownership | ferrox-opt | filecheck %s
// RUN: ferrox-opt %s --print-op-generic | ferrox-opt -p verify-ownership | filecheck %s

// The examples of docs/dialects/host.md: each parses, round-trips and passes verify-ownership.

// doc:begin kernels
simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256], requires = [len(arg0) >= arg3, len(arg1) >= arg3, len(arg2) >= arg3]> {
  simt.return
}

tile.kernel @add(%z: !tile.partition<f32, [128]>, %x: !tile.tensor<f32, [?]>, %y: !tile.tensor<f32, [?]>) {
  tile.return
}
// doc:end

// CHECK-LABEL: func.func @simt_main
// doc:begin simt-main
func.func @simt_main() {
  %n = host.param "n" = 4096 : index
  %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
  %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
  %c = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %threads = arith.constant 256 : index
  %last = arith.constant 255 : index
  %padded = arith.addi %n, %last : index
  %blocks = arith.divui %padded, %threads : index
  %p = host.prepare @vecadd grid(%blocks) block(%threads) args(%a, %b, %c, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
  %c2 = host.launch @vecadd with %p on %s ins(%a, %b, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%c : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %c2, "a + b" (a = %a : !host.tensor<f32, [?]>, b = %b : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}
// doc:end
// CHECK: host.launch @vecadd with %p on %s
// CHECK: host.check %c2, "a + b"

// CHECK-LABEL: func.func @tile_main
// doc:begin tile-main
func.func @tile_main() {
  %n = host.param "n" = 1000 : index
  %x = host.random uniform(0.0, 1.0) seed 3 (%n) : !host.tensor<f32, [?]>
  %y = host.random normal(0.0, 1.0) seed 4 (%n) : !host.tensor<f32, [?]>
  %z = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %pz = host.partition %z : !host.tensor<f32, [?]> -> !host.partition<f32, [?], [128]>
  %pz2 = host.tile_launch @add on %s ins(%x, %y : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) outs(%pz : !host.partition<f32, [?], [128]>) -> !host.partition<f32, [?], [128]>
  %z2 = host.unpartition %pz2 : !host.partition<f32, [?], [128]> -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %z2, "x + y" (x = %x : !host.tensor<f32, [?]>, y = %y : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return
}
// doc:end
// CHECK: host.tile_launch @add on %s

// CHECK-LABEL: func.func @loop_main
// doc:begin loop
func.func @loop_main(%x: !host.tensor<f32, [1024]>, %acc: !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]> {
  %s = host.stream
  %n = arith.constant 1024 : index
  %lo = arith.constant 0 : index
  %steps = arith.constant 10 : index
  %one = arith.constant 1 : index
  %blocks = arith.constant 4 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @vecadd grid(%blocks) block(%threads) args(%x, %x, %acc, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index)
  %r = scf.for %i = %lo to %steps step %one iter_args(%cur = %acc) -> (!host.tensor<f32, [1024]>) {
    %fresh = host.zeros : !host.tensor<f32, [1024]>
    %next = host.launch @vecadd with %p on %s ins(%cur, %x, %n : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, index) outs(%fresh : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
    scf.yield %next : !host.tensor<f32, [1024]>
  }
  host.sync_on %s
  func.return %r : !host.tensor<f32, [1024]>
}
// doc:end
// CHECK: scf.for
