// fuzz-signature: internal error xdsl.utils.exceptions.VerifyException at xdsl/dialects/builtin.py:verify_value
// fuzz-config: compile
// fuzz-status: fixed
// written by hand: the VerifyException reported escaping `ferrox compile`, from an alias definition
#big = 300 : i8
func.func @f() {
  func.return
}
