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
