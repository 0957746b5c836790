// fuzz-signature: unlocated diagnostic: Integer value _ is out of range for
// fuzz-config: opt-parse
// fuzz-status: fixed
// written by hand: the same alias through ferrox-opt (another cause with this signature)
!t = i8
#big = 300 : !t
func.func @f() {
  func.return
}
