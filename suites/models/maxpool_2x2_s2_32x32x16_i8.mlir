// Smoke model (ours): 2x2 max pooling, stride 2, no padding.
module {
  func.func @main(%arg0: tensor<1x32x32x16xi8>) -> tensor<1x16x16x16xi8> {
    %0 = tosa.max_pool2d %arg0 {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x32x32x16xi8>) -> tensor<1x16x16x16xi8>
    return %0 : tensor<1x16x16x16xi8>
  }
}
