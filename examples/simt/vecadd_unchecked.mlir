// vecadd_unchecked: the same sum through raw pointers, with no launch contract. It is an unsafe
// kernel: it guards its own bounds with `%n`, and the host can launch it only unsafely.
builtin.module {
  // doc:begin vecadd_unchecked
  simt.kernel @vecadd_unchecked(%a: !simt.ptr<f32>, %b: !simt.ptr<f32>, %out: !simt.ptr<f32>, %n: index) unsafe {
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %inb = arith.cmpi ult, %i, %n : index
    scf.if %inb {
      %x = simt.ptr_load %a[%i] : !simt.ptr<f32>
      %y = simt.ptr_load %b[%i] : !simt.ptr<f32>
      %s = arith.addf %x, %y : f32
      simt.ptr_store %s, %out[%i] : !simt.ptr<f32>
    }
    simt.return
  }
  // doc:end

  // The host program. The kernel has no contract, so it cannot be prepared: the launch is spelled
  // unsafe and nothing checks its configuration. Raw pointers are exclusive (a kernel may write
  // through any of them), so all three tensors are moved in as outputs and given back.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %a2, %b2, %out2 = host.unsafe_launch @vecadd_unchecked grid(%blocks) block(%threads) on %s ins(%n : index) outs(%a, %b, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "a + b" (a = %a2 : !host.tensor<f32, [?]>, b = %b2 : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
