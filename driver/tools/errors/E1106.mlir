// E1106: a tensor observed before its stream is synced
//
// Launches are asynchronous: when `host.launch` returns, the kernel may still be running. A
// tensor a launch writes may be read by the host (`host.check`, `host.print`, returning it), or
// used on another stream, only after `host.sync_on` of the launch's stream. The rule is
// docs/safety.md#host-6.
// doc:begin example
simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.print %c2 : !host.tensor<f32, [64]>
  func.return
}
// doc:end
// doc:begin output
// error[E1106]: cannot read %c2 before `host.sync_on %s`: a launch on %s may still be writing it
//  --> E1106.mlir:9:3
//   |
// 8 |   %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
//   |         ------------------ launched here
// 9 |   host.print %c2 : !host.tensor<f32, [64]>
//   |              ^^^
//   |
//   = help: add `host.sync_on` of the launch's stream before this use
// doc:end
