// TOSA mixed with tensor.empty, linalg.fill and linalg.matmul in their custom forms: a dense
// layer whose matmul is linalg's, its bias added and clamped by TOSA.
module {
  func.func @main(%x: tensor<6x24xf32>, %w: tensor<24x10xf32>, %bias: tensor<1x10xf32>) -> tensor<6x10xf32> {
    %zero = arith.constant 0.000000e+00 : f32
    %init = tensor.empty() : tensor<6x10xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<6x10xf32>) -> tensor<6x10xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<6x24xf32>, tensor<24x10xf32>) outs(%acc : tensor<6x10xf32>) -> tensor<6x10xf32>
    %sum = tosa.add %mm, %bias : (tensor<6x10xf32>, tensor<1x10xf32>) -> tensor<6x10xf32>
    %out = tosa.clamp %sum {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<6x10xf32>) -> tensor<6x10xf32>
    return %out : tensor<6x10xf32>
  }
}
