// linalg.matmul on i8 operands into an i32 accumulator filled with a constant: MLIR's body
// sign-extends both operands (arith.extsi) and accumulates with arith.muli and arith.addi.
module {
  func.func @main(%a: tensor<5x17xi8>, %b: tensor<17x3xi8>) -> tensor<5x3xi32> {
    %c7 = arith.constant 7 : i32
    %init = tensor.empty() : tensor<5x3xi32>
    %acc = linalg.fill ins(%c7 : i32) outs(%init : tensor<5x3xi32>) -> tensor<5x3xi32>
    %mm = linalg.matmul ins(%a, %b : tensor<5x17xi8>, tensor<17x3xi8>) outs(%acc : tensor<5x3xi32>) -> tensor<5x3xi32>
    return %mm : tensor<5x3xi32>
  }
}
