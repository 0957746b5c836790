// E1101: a caller array bound to two tensors
//
// `host.from_array N` makes a tensor of the caller's array N. Binding the same array twice
// would give two tensors one memory: a launch could take one as its exclusive output and the
// other as an input. Each caller array is bound once. The rule is docs/safety.md#host-1.
// doc:begin example
func.func @f() {
  %a = host.from_array 0 : !host.tensor<f32, [?]>
  %c = host.from_array 0 : !host.tensor<f32, [?]>
  func.return
}
// doc:end
// doc:begin output
// error[E1101]: caller array 0 is already bound to a tensor; binding it again would alias it
//  --> E1101.mlir:3:3
//   |
// 2 |   %a = host.from_array 0 : !host.tensor<f32, [?]>
//   |        --------------- first bound here
// 3 |   %c = host.from_array 0 : !host.tensor<f32, [?]>
//   |        ^^^^^^^^^^^^^^^
//   |
//   = help: bind each caller array once, and pass the tensor around
// doc:end
