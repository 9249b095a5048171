// Smoke model (ours): batched int8 matmul with an int32 accumulator, requantized to int8.
module {
  func.func @main(%arg0: tensor<1x32x64xi8>, %arg1: tensor<1x64x48xi8>) -> tensor<1x32x48xi8> {
    %azp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
    %bzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %acc = tosa.matmul %arg0, %arg1, %azp, %bzp : (tensor<1x32x64xi8>, tensor<1x64x48xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x32x48xi32>
    %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
    %s = "tosa.const"() <{values = dense<43> : tensor<1xi8>}> : () -> tensor<1xi8>
    %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %q = tosa.rescale %acc, %m, %s, %zp32, %bzp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x32x48xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x32x48xi8>
    return %q : tensor<1x32x48xi8>
  }
}
