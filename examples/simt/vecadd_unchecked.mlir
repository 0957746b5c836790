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
}
