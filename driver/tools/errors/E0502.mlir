// E0502: a tensor borrowed as input and as exclusive output of one launch
//
// A launch's exclusive output (`outs`) is written by its threads while they run; an input
// (`ins`) is read by them. One tensor passed as both would be read and written by different
// threads at once, and its input loads assume nothing writes it. The rule is
// docs/safety.md#host-2 (rustc's E0502, cannot borrow as immutable while borrowed as mutable).
//
// Write the output to a tensor of its own (`host.poison`, `host.zeros`) and read the input
// from the original.
// doc:begin example
simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  simt.return
}

func.func @f(%a: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %one = arith.constant 1 : index
  %p = host.prepare @vecadd grid(%one) block(%one) args(%a, %c, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>)
  %c2 = host.launch @vecadd with %p on %s ins(%a, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}
// doc:end
// doc:begin output
// error[E0502]: cannot borrow %c as immutable because it is also borrowed as mutable
//  --> E0502.mlir:9:3
//   |
// 9 |   %c2 = host.launch @vecadd with %p on %s ins(%a, %c : !host.tensor<f32, [64]>, !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
//   |                                                   ^^                                                          -- mutable borrow occurs here
//   |                                                   |
//   |                                                   immutable borrow occurs here
//   |
//   = help: write the output to a tensor of its own (`host.poison`, `host.zeros`)
// doc:end
