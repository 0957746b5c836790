// E1105: a safe launch without a prepared launch of its kernel
//
// `host.launch` runs a kernel only with a `!host.prepared<@k>` that `host.prepare @k` made:
// preparing is where the launch checker judges the grid, the block and the arguments against
// the kernel's contract. A kernel without a contract cannot be prepared, only launched with
// `host.unsafe_launch`. The rule is docs/safety.md#host-5.
// doc:begin example
simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  simt.return
}

func.func @f(%p: !host.prepared<@scale>, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
  %s = host.stream
  %c2 = host.launch @scale with %p on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
  func.return
}
// doc:end
// doc:begin output
// error[E1105]: safe launch of @scale needs a launch prepared by host.prepare @scale
//  --> E1105.mlir:7:3
//   |
// 5 | func.func @f(%p: !host.prepared<@scale>, %x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {
//   |              -- this prepared value does not come from host.prepare
// 6 |   %s = host.stream
// 7 |   %c2 = host.launch @scale with %p on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
//   |         ^^^^^^^^^^^
//   |
//   = help: prepare the launch with `host.prepare @kernel ...` and pass its result
// doc:end
