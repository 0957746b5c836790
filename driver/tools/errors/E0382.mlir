// E0382: use of a moved value
//
// A value that has been moved is gone: it may not be used again. In a host program, a launch
// takes the tensors it writes (`outs`) and gives back new ones (its results); `host.partition`
// and `host.unpartition` move their operand too. In a kernel, `simt.get_mut` and
// `simt.store_chunk` move their witness: one witness guards one write.
//
// Use what the move gave back instead: the launch's result (after `host.sync_on` of its
// stream), the partition, or a new witness. The rule is docs/safety.md#host-1 and #simt-2; it
// is rustc's E0382, whose words ferrox reuses.
// doc:begin example
simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}

func.func @main(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  host.sync_on %s
  host.print %c : !host.tensor<f32, [64]>
  func.return
}
// doc:end
// doc:begin output
// error[E0382]: use of moved value: %c
//   --> E0382.mlir:10:3
//    |
//  8 |   %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
//    |                                                                                                       -- value moved here
//  9 |   host.sync_on %s
// 10 |   host.print %c : !host.tensor<f32, [64]>
//    |              ^^ value used here after move
//    |
//    = help: use the tensor the launch gave back (its result) instead, after `host.sync_on` of its stream
// doc:end
