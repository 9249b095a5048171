// Smoke model (ours): quantized elementwise add: both int8 inputs rescaled to a common int32
// scale, added, and rescaled back to int8.
module {
  func.func @main(%arg0: tensor<1x28x28x32xi8>, %arg1: tensor<1x28x28x32xi8>) -> tensor<1x28x28x32xi8> {
    %one = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
    %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
    %zp_a = "tosa.const"() <{values = dense<7> : tensor<1xi8>}> : () -> tensor<1xi8>
    %zp_b = "tosa.const"() <{values = dense<-4> : tensor<1xi8>}> : () -> tensor<1xi8>
    %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %a = tosa.rescale %arg0, %one, %s10, %zp_a, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x28x28x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x28x28x32xi32>
    %b = tosa.rescale %arg1, %one, %s10, %zp_b, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x28x28x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x28x28x32xi32>
    %sum = tosa.add %a, %b : (tensor<1x28x28x32xi32>, tensor<1x28x28x32xi32>) -> tensor<1x28x28x32xi32>
    %m = "tosa.const"() <{values = dense<1717986918> : tensor<1xi32>}> : () -> tensor<1xi32>
    %s = "tosa.const"() <{values = dense<51> : tensor<1xi8>}> : () -> tensor<1xi8>
    %ozp = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
    %q = tosa.rescale %sum, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x28x28x32xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x28x28x32xi8>
    return %q : tensor<1x28x28x32xi8>
  }
}
