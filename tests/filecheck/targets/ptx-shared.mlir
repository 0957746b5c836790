// RUN: ferrox-opt %s -t ptx | filecheck %s

// A block-local shared-memory array: written, a barrier, read back at the neighbour's slot.

// CHECK: .visible .entry shift(
// CHECK: .shared .align 16 .b8 tile[1024];
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.b32
llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

llvm.func @shift(%in: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %out: !llvm.ptr<1> {llvm.noalias})
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256>} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %pin = llvm.getelementptr inbounds %in[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %pin : !llvm.ptr<1> -> f32
  %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
  %mine = llvm.getelementptr inbounds %tile[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
  llvm.store %x, %mine : f32, !llvm.ptr<3>
  %zero = llvm.mlir.constant(0 : i32) : i32
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%zero) : (i32) -> ()
  %one = llvm.mlir.constant(1 : i32) : i32
  %mask = llvm.mlir.constant(255 : i32) : i32
  %next = llvm.add %tid, %one : i32
  %wrapped = llvm.and %next, %mask : i32
  %theirs = llvm.getelementptr inbounds %tile[0, %wrapped] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
  %y = llvm.load %theirs : !llvm.ptr<3> -> f32
  %pout = llvm.getelementptr inbounds %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %y, %pout : f32, !llvm.ptr<1>
  llvm.return
}
