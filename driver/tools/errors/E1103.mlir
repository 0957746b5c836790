// E1103: a launch that does not give back its tensors
//
// A launch takes every tensor it writes (`outs`) and gives back a new value for each, of the
// same type: the old value is moved (E0382), so the host cannot keep using it while the kernel
// owns it. The rule is docs/safety.md#host-3.
// doc:begin example
simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  simt.return
}

func.func @f(%p: !host.prepared<@k>, %s: !host.stream, %c: !host.tensor<f32, [8]>) {
  "host.launch"(%p, %s, %c) <{kernel = @k, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!host.prepared<@k>, !host.stream, !host.tensor<f32, [8]>) -> ()
  func.return
}
// doc:end
// doc:begin output
// error[E1103]: a launch gives back every tensor it takes: expected results (!host.tensor<f32, [8]>), got ()
//  --> E1103.mlir:6:3
//   |
// 6 |   "host.launch"(%p, %s, %c) <{kernel = @k, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!host.prepared<@k>, !host.stream, !host.tensor<f32, [8]>) -> ()
//   |   ^^^^^^^^^^^^^
//   |
//   = help: give the launch one result per `outs` tensor, of the same type
// doc:end
