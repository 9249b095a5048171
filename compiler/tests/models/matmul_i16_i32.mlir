// tosa.matmul with i16 inputs and an i32 result: not a TOSA 1.0 combination, but MLIR 22
// verifies it and Torq models use it. It accumulates in i32 (wrapping), as MLIR's lowering does.
module {
  func.func @main(%a: tensor<2x7x19xi16>, %b: tensor<2x19x5xi16>) -> tensor<2x7x5xi32> {
    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
    %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x7x19xi16>, tensor<2x19x5xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<2x7x5xi32>
    return %0 : tensor<2x7x5xi32>
  }
}
