// Smoke model (ours): global 7x7 average pooling, as at the end of a classifier.
module {
  func.func @main(%arg0: tensor<1x7x7x64xi8>) -> tensor<1x1x1x64xi8> {
    %zp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.avg_pool2d %arg0, %zp, %zp {acc_type = i32, kernel = array<i64: 7, 7>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x7x7x64xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x64xi8>
    return %0 : tensor<1x1x1x64xi8>
  }
}
