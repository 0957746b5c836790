// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// Thread, block and grid ids and dimensions (lowering/simt_to_nvvm/ids.py): a special register,
// zero-extended to 64 bits, as index. Under a launch contract block_dim is the contract's block.

builtin.module {
  // CHECK-LABEL: func.func @ids()
  simt.kernel @ids() unsafe {
    // CHECK-NEXT: %[[R:.*]] = nvvm.read.ptx.sreg.tid.x : i32
    // CHECK-NEXT: %[[E:.*]] = arith.extui %[[R]] : i32 to i64
    // CHECK-NEXT: %a = arith.index_cast %[[E]] : i64 to index
    %a = simt.thread_id x
    // CHECK-NEXT: nvvm.read.ptx.sreg.tid.y : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %b = arith.index_cast
    %b = simt.thread_id y
    // CHECK-NEXT: nvvm.read.ptx.sreg.tid.z : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %c = arith.index_cast
    %c = simt.thread_id z
    // CHECK-NEXT: nvvm.read.ptx.sreg.ctaid.x : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %d = arith.index_cast
    %d = simt.block_id x
    // CHECK-NEXT: nvvm.read.ptx.sreg.ctaid.y : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %e = arith.index_cast
    %e = simt.block_id y
    // CHECK-NEXT: nvvm.read.ptx.sreg.ctaid.z : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %f = arith.index_cast
    %f = simt.block_id z
    // CHECK-NEXT: nvvm.read.ptx.sreg.ntid.x : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %g = arith.index_cast
    %g = simt.block_dim x
    // CHECK-NEXT: nvvm.read.ptx.sreg.ntid.y : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %h = arith.index_cast
    %h = simt.block_dim y
    // CHECK-NEXT: nvvm.read.ptx.sreg.ntid.z : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %i = arith.index_cast
    %i = simt.block_dim z
    // CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.x : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %j = arith.index_cast
    %j = simt.grid_dim x
    // CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.y : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %k = arith.index_cast
    %k = simt.grid_dim y
    // CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.z : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %l = arith.index_cast
    %l = simt.grid_dim z
    // CHECK-NEXT: nvvm.read.ptx.sreg.laneid : i32
    // CHECK-NEXT: arith.extui
    // CHECK-NEXT: %m = arith.index_cast
    %m = simt.lane_id
    // CHECK-NEXT: func.return
    simt.return
  }

  // CHECK-LABEL: func.func @contracted()
  // CHECK-NEXT: %g = arith.constant 32 : index
  // CHECK-NEXT: %h = arith.constant 4 : index
  // CHECK-NEXT: %i = arith.constant 1 : index
  // CHECK-NEXT: nvvm.read.ptx.sreg.nctaid.x
  simt.kernel @contracted() contract<domain = 2, block = [32, 4]> {
    %g = simt.block_dim x
    %h = simt.block_dim y
    %i = simt.block_dim z
    %j = simt.grid_dim x
    simt.return
  }

  // A device function may run under any kernel: its block_dim reads the register.
  // CHECK-LABEL: func.func @device() -> index
  // CHECK-NEXT: nvvm.read.ptx.sreg.ntid.x : i32
  simt.func @device() -> index {
    %g = simt.block_dim x
    simt.return %g : index
  }
}
