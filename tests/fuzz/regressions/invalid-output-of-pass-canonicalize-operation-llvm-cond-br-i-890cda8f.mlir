// fuzz-signature: invalid output of pass canonicalize: Operation llvm.cond_br is branching to a block of
// fuzz-config: opt-ptx
// fuzz-status: fixed
// found by mutating tests/filecheck/targets/ptxas.mlir (line, line)
llvm.func @saxpy(%x: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %y: !llvm.ptr<1> {llvm.noalias}, %a: f32, %n: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256>} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %bid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  %ntid = llvm.mlir.constant(256 : i32) : i32
  %base = llvm.mul %bid, %ntid : i32
  %i = llvm.add %base, %tid : i32
  %in = llvm.icmp "slt" %i, %n : i32
  llvm.cond_br %in, ^body, ^exit
^body:
^exit:
}
