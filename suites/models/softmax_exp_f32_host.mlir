// Smoke model (ours): a float softmax over 100 classes. The NPU has no float exponent or
// reciprocal, so these run as host programs: the host-fallback path of the pipeline.
module {
  func.func @main(%arg0: tensor<1x100xf32>) -> tensor<1x100xf32> {
    %mx = tosa.reduce_max %arg0 {axis = 1 : i32} : (tensor<1x100xf32>) -> tensor<1x1xf32>
    %d = tosa.sub %arg0, %mx : (tensor<1x100xf32>, tensor<1x1xf32>) -> tensor<1x100xf32>
    %e = tosa.exp %d : (tensor<1x100xf32>) -> tensor<1x100xf32>
    %sum = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x100xf32>) -> tensor<1x1xf32>
    %inv = tosa.reciprocal %sum : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %p = tosa.mul %e, %inv, %shift : (tensor<1x100xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x100xf32>
    return %p : tensor<1x100xf32>
  }
}
